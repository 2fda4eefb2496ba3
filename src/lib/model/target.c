/*
 * target.c - open a target from its memory source: executable, load bias,
 * build ids, Go version and layout row, symbolizer, the runtime globals
 * (all of them, in one place), the layout guard; and the brief stop the
 * snapshots use.
 *
 *   memory source --> executable (path from the source, or --exe)
 *                 --> load bias (the executable's offset-0 mapping)
 *                 --> Go version (.go.buildinfo) --> runtime layout
 *                 --> runtime globals (.symtab, or located from the code)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <elf.h>

#include "locate.h"
#include "profile.h"
#include "target.h"

/* ---- load bias ------------------------------------------------------- */

typedef struct bias_search {
	const char *exe_path;
	struct stat st;
	int have_st;
	int found;
	uint64_t start;
} bias_search;

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b != NULL ? b + 1 : p;
}

/*
 * The executable's first mapping is the one at file offset 0 whose file is
 * the executable: same inode where the source reports inodes (live), else
 * the same path, else the same base name (cores, gdb).
 */
static int bias_cb(const goheap_mapping *m, void *payload)
{
	bias_search *b = payload;
	char path[4096];
	size_t n;
	int same = 0;

	if (m->offset != 0 || m->path == NULL || m->path[0] != '/')
		return 0;
	/* A binary replaced or removed after start is listed as
	 * "PATH (deleted)" in maps and in a core's NT_FILE. */
	snprintf(path, sizeof(path), "%s", m->path);
	n = gh_path_len_undeleted(path);
	path[n] = '\0';
	if (b->have_st && m->inode != 0)
		same = (uint64_t)b->st.st_ino == m->inode;
	else
		same = strcmp(path, b->exe_path) == 0 ||
		       strcmp(base_name(path), base_name(b->exe_path)) == 0;
	if (same && !b->found) {
		b->found = 1;
		b->start = m->start;
	}
	return 0;
}

static int find_bias(gh_target *t)
{
	bias_search b;
	int rc;

	t->bias = 0;
	if (!gh_exe_is_dyn(t->exe))
		return 0;
	memset(&b, 0, sizeof(b));
	b.exe_path = t->exe_path;
	b.have_st = stat(t->exe_path, &b.st) == 0;
	rc = t->ops->mappings(t->ctx, bias_cb, &b);
	if (rc != 0)
		return gh_errf(&t->err, rc, "reading the target's mappings: %s",
			       goheap_strerror(rc));
	if (!b.found)
		return gh_errf(&t->err, GOHEAP_ENOEXE,
			       "%s is position-independent but is not mapped "
			       "in the target (wrong executable?)", t->exe_path);
	t->bias = b.start - gh_exe_link_base(t->exe);
	return 0;
}

/*
 * The executable must be the one the target runs: its build-id notes (Go's
 * and, since Go 1.24, GNU's) sit in the first page of text, which live
 * processes have and cores keep (the kernel and gcore dump an ELF file's
 * first page for exactly this purpose).  Where the target's copy cannot be
 * read the check is skipped; where it differs, nothing else can be trusted.
 */
static int check_build_ids(gh_target *t)
{
	static const char *const notes[] = { ".note.go.buildid",
					      ".note.gnu.build-id" };
	unsigned char buf[512];
	size_t i;
	int rc;

	for (i = 0; i < GH_ARRAY_LEN(notes); i++) {
		const gh_section *sec = gh_exe_section(t->exe, notes[i]);

		if (sec == NULL || sec->data == NULL || sec->addr == 0 ||
		    sec->size == 0 || sec->size > sizeof(buf))
			continue;
		rc = t->ops->read(t->ctx, sec->addr + t->bias, buf,
				  (size_t)sec->size);
		/* Go's note is in the first page of text, which any target
		 * running this executable has mapped. */
		if (rc == GOHEAP_EUNMAPPED && i == 0)
			return gh_errf(&t->err, GOHEAP_ENOEXE,
				       "%s is not the executable of %s: its "
				       "text at 0x%llx is not mapped there "
				       "(give the right one with --exe)",
				       t->exe_path, t->source[0] ? t->source :
				       "the target",
				       (unsigned long long)(sec->addr + t->bias));
		if (rc != 0)
			continue;
		if (memcmp(buf, sec->data, (size_t)sec->size) != 0)
			return gh_errf(&t->err, GOHEAP_ENOEXE,
				       "%s is not the executable of %s: its %s "
				       "differs from the target's (give the "
				       "right one with --exe)", t->exe_path,
				       t->source[0] ? t->source : "the target",
				       notes[i]);
	}
	return 0;
}

/* ---- runtime globals ------------------------------------------------- */

/*
 * The globals -p memstats and -p retained read besides: a symbol's address
 * when the executable has it, else what the locator found (stripped), else
 * 0, and the collector that needs one says so.
 */
static void find_more(gh_target *t)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "runtime.memstats", offsetof(gh_rtaddrs, memstats) },
		{ "runtime.gcController", offsetof(gh_rtaddrs, gccontroller) },
		{ "runtime.allp", offsetof(gh_rtaddrs, allp) },
		{ "runtime.sched", offsetof(gh_rtaddrs, sched) },
		{ "runtime.allm", offsetof(gh_rtaddrs, allm) },
		{ "runtime.spanSetBlockPool",
		  offsetof(gh_rtaddrs, spansetblockpool) },
	};
	uint64_t addr;
	size_t i;

	for (i = 0; i < GH_ARRAY_LEN(syms); i++)
		if (gh_exe_symbol(t->exe, syms[i].name, &addr, NULL) == 0)
			*(uint64_t *)((char *)&t->addrs + syms[i].off) =
				addr + t->bias;
	/* allglen: stripped, allgs' length word */
	if (gh_exe_symbol(t->exe, "runtime.allglen", &addr, NULL) == 0)
		t->addrs.allglen = addr + t->bias;
	else
		t->addrs.allglen = t->addrs.allgs != 0 ? t->addrs.allgs + 8 : 0;
	/* the queued roots' (a symbol at 0 is none) */
	if (gh_exe_symbol(t->exe, "runtime.allfin", &addr, NULL) == 0 &&
	    addr != 0)
		t->addrs.allfin = addr + t->bias;
	if (gh_exe_symbol(t->exe, "runtime.gcCleanups", &addr, NULL) == 0 &&
	    addr != 0)
		t->addrs.gccleanups = addr + t->bias;
}

/*
 * Every runtime global a collector reads, in one place: from .symtab, or
 * in a stripped binary located by decoding the runtime's code (locate.c).
 * The required ones (the heap profile's) are an error when missing; the
 * others are left 0 and the collector that needs one says so.
 */
static int find_globals(gh_target *t)
{
	int rc;
	static const struct {
		const char *name;
		size_t off;
		int required;
	} syms[] = {
		{ "runtime.mbuckets", offsetof(gh_rtaddrs, mbuckets), 1 },
		{ "runtime.bbuckets", offsetof(gh_rtaddrs, bbuckets), 0 },
		{ "runtime.xbuckets", offsetof(gh_rtaddrs, xbuckets), 0 },
		{ "runtime.mProfCycle", offsetof(gh_rtaddrs, mprofcycle), 1 },
		{ "runtime.MemProfileRate",
		  offsetof(gh_rtaddrs, memprofilerate), 1 },
	};
	size_t i;

	memset(&t->addrs, 0, sizeof(t->addrs));
	if (!gh_exe_has_symtab(t->exe)) {
		/* Stripped (-s): decode the runtime's own code for them. */
		rc = gh_locate_globals(t->exe, t->sym, t->ver, t->bias,
				       &t->addrs, t->how, sizeof(t->how),
				       &t->err);
		if (rc != 0)
			return gh_err_prefix(&t->err, "%s (stripped)",
					     t->exe_path);
		find_more(t);
		return 0;
	}
	snprintf(t->how, sizeof(t->how), "from .symtab");
	for (i = 0; i < GH_ARRAY_LEN(syms); i++) {
		uint64_t addr = 0;

		if (gh_exe_symbol(t->exe, syms[i].name, &addr, NULL) != 0) {
			if (syms[i].required)
				return gh_errf(&t->err, GOHEAP_ENOSYM,
					       "%s: symbol %s not found (not a "
					       "Go program, or an unsupported "
					       "runtime)", t->exe_path,
					       syms[i].name);
			continue;
		}
		*(uint64_t *)((char *)&t->addrs + syms[i].off) = addr + t->bias;
	}
	{
		uint64_t addr = 0, size = 0;

		/* ticks.val is the struct's last word in every row. */
		if (gh_exe_symbol(t->exe, "runtime.ticks", &addr, &size) == 0 &&
		    size >= 16)
			t->addrs.ticks_val = addr + size - 8 + t->bias;
		if (gh_exe_symbol(t->exe, "runtime.mutexprofilerate", &addr,
				  NULL) == 0)
			t->addrs.mutexprofilerate = addr + t->bias;
		/* goroutine profiles and -p types (optional: each collector
		 * says what it misses) */
		if (gh_exe_symbol(t->exe, "runtime.allgs", &addr, NULL) == 0)
			t->addrs.allgs = addr + t->bias;
		if (gh_exe_symbol(t->exe, "runtime.fingStatus", &addr,
				  NULL) == 0) {
			t->addrs.fing = addr + t->bias;
			t->addrs.fing_size = 4;
		} else if (gh_exe_symbol(t->exe, "runtime.fingRunning", &addr,
					 NULL) == 0) {
			t->addrs.fing = addr + t->bias;
			t->addrs.fing_size = 1;
		}
		if (t->lay->tb_labels != 0 &&
		    gh_exe_symbol(t->exe, "runtime.debug", &addr, NULL) == 0)
			t->addrs.tblabels = addr + t->bias +
					    t->lay->debug_tracebacklabels;
		if (gh_exe_symbol(t->exe, "runtime.mheap_", &addr, NULL) == 0)
			t->addrs.mheap = addr + t->bias;
		if (gh_exe_symbol(t->exe, "runtime.gcphase", &addr, NULL) == 0)
			t->addrs.gcphase = addr + t->bias;
	}
	find_more(t);
	return 0;
}

/* ---- -p retained's queues: a stripped binary's found through the code
 * ---- that uses them (retroots.c reads them) */

/* The data references (link-time addresses) of function name, by its
 * pclntab bounds; -1 when it is not there or does not decode. */
static int func_refs(gh_target *t, const char *name, gh_refvec *rv)
{
	uint64_t lo, hi;
	const unsigned char *code;
	gh_err e;

	rv->n = 0;
	if (gh_sym_func_entry(t->sym, name, &lo, &hi) != 0 || hi <= lo ||
	    hi - lo > GH_LOCATE_MAX_FUNC || lo < t->bias)
		return -1;
	lo -= t->bias;
	hi -= t->bias;
	code = gh_exe_ptr(t->exe, lo, (size_t)(hi - lo));
	memset(&e, 0, sizeof(e));
	if (code == NULL || gh_decode_refs(gh_exe_machine(t->exe), code,
					   (size_t)(hi - lo), lo, rv, &e) != 0)
		return -1;
	return 0;
}

/* In .bss or .noptrbss (allfin, a pointer to a type not in the heap,
 * is no GC pointer: the linker puts it in .noptrbss), 8-aligned. */
static int in_bss(gh_target *t, uint64_t a)
{
	static const char *const names[2] = { ".bss", ".noptrbss" };
	unsigned i;

	for (i = 0; i < 2 && a % 8 == 0; i++) {
		const gh_section *sec = gh_exe_section(t->exe, names[i]);

		if (sec != NULL && a >= sec->addr && a - sec->addr < sec->size)
			return 1;
	}
	return 0;
}

static int has_ref(const gh_refvec *rv, uint64_t t, unsigned kind,
		   unsigned size)
{
	size_t i;

	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == t && (rv->v[i].kind & kind) &&
		    (size == 0 || rv->v[i].size == size))
			return 1;
	return 0;
}

/*
 * runtime.allfin and runtime.gcCleanups (1.25+) without symbols (link-
 * time addresses in *fin, *cq; 0: not found):
 *   - allfin is the one .bss/.noptrbss word that runtime.markroot loads (8 bytes,
 *     fixedRootFinalizers' loop) and runtime.queuefinalizer refers to
 *     ("finc.alllink = allfin; allfin = finc"): queuefinalizer's other
 *     globals (finq, finc, finlock) are not markroot's;
 *   - gcCleanups is the one address runtime.runCleanups materialises (its
 *     methods' receiver) whose .all (cq_all past it) markroot loads.
 */
static void find_queues(gh_target *tg, int a64, uint64_t *fin, uint64_t *cq)
{
	gh_refvec mr = { NULL, 0, 0 }, q = { NULL, 0, 0 };
	uint64_t all = tg->lay->cq_all != 0 ? gh_rt_cq_all(tg->lay, a64) : 0;
	size_t i;
	unsigned nf = 0, nc = 0;

	*fin = *cq = 0;
	if (func_refs(tg, "runtime.markroot", &mr) == 0 &&
	    func_refs(tg, "runtime.queuefinalizer", &q) == 0)
		for (i = 0; i < mr.n; i++) {
			uint64_t t = mr.v[i].target;

			if (!(mr.v[i].kind & GH_REF_LOAD) || mr.v[i].size != 8 ||
			    !in_bss(tg, t) || t == *fin ||
			    !has_ref(&q, t, GH_REF_ADDR | GH_REF_LOAD |
				     GH_REF_STORE, 0))
				continue;
			*fin = t;
			nf++;
		}
	if (nf != 1)
		*fin = 0;
	if (all != 0 && *fin != 0 &&
	    func_refs(tg, "runtime.runCleanups", &q) == 0)
		for (i = 0; i < q.n; i++) {
			uint64_t t = q.v[i].target;

			if (!(q.v[i].kind & GH_REF_ADDR) || !in_bss(tg, t) ||
			    t == *cq || !has_ref(&mr, t + all, GH_REF_LOAD, 8))
				continue;
			*cq = t;
			nc++;
		}
	if (nc != 1)
		*cq = 0;
	gh_refvec_free(&mr);
	gh_refvec_free(&q);
}

int gh_target_queues(gh_target *t, uint64_t *allfin, uint64_t *cq)
{
	*allfin = t->addrs.allfin;
	*cq = t->lay->cq_all != 0 ? t->addrs.gccleanups : 0;
	if (*allfin != 0 || gh_exe_has_symtab(t->exe))
		return 0;
	find_queues(t, gh_exe_machine(t->exe) == EM_AARCH64, allfin, cq);
	if (*allfin != 0)
		*allfin += t->bias;
	if (*cq != 0)
		*cq += t->bias;
	return 1;
}

/* runtime.semtable in a stripped binary (its link-time address, 0 not
 * found): the one .bss address both runtime.semacquire1 and semrelease1
 * materialise (semroot, inlined: &semtable[addr >> 3 % semTabSize].root)
 * with the whole table inside .bss. */
static uint64_t find_semtable(gh_target *t)
{
	gh_refvec a = { NULL, 0, 0 }, r = { NULL, 0, 0 };
	const gh_section *bss = gh_exe_section(t->exe, ".bss");
	uint64_t found = 0, len = (uint64_t)t->lay->semtab_n *
				  t->lay->semtab_stride;
	size_t i, j;
	unsigned n = 0;

	if (bss != NULL &&
	    func_refs(t, "runtime.semacquire1", &a) == 0 &&
	    func_refs(t, "runtime.semrelease1", &r) == 0)
		for (i = 0; i < a.n; i++) {
			uint64_t x = a.v[i].target;

			if (!(a.v[i].kind & GH_REF_ADDR) || x == found ||
			    x < bss->addr || x - bss->addr + len > bss->size)
				continue;
			for (j = 0; j < r.n; j++)
				if (r.v[j].target == x &&
				    (r.v[j].kind & GH_REF_ADDR))
					break;
			if (j == r.n)
				continue;
			found = x;
			n++;
		}
	gh_refvec_free(&a);
	gh_refvec_free(&r);
	return n == 1 ? found : 0;
}

uint64_t gh_target_semtable(gh_target *t)
{
	uint64_t tab;

	if (gh_exe_symbol(t->exe, "runtime.semtable", &tab, NULL) != 0 ||
	    tab == 0)
		tab = find_semtable(t);
	return tab != 0 ? tab + t->bias : 0;
}

/* ---- the brief stop of the snapshots ------------------------------------ */

int gh_target_stop(gh_target *t, const char *what, const char *noun,
		    double *t0)
{
	int (*stop)(void *) = GH_OPS_V2(t, stop);
	int rc;

	rc = stop != NULL ? stop(t->ctx) : GOHEAP_EUNSUPPORTED;
	if (rc != 0) {
		char why[sizeof(t->err.msg)];

		snprintf(why, sizeof(why), "%s", t->err.msg[0] ? t->err.msg :
			 goheap_strerror(rc));
		return gh_errf(&t->err, rc, "%s: cannot stop the target for a "
			       "consistent %s (%s); --no-stop reads it without "
			       "stopping (best-effort)", what, noun, why);
	}
	*t0 = gh_now();
	return 0;
}

int gh_target_resume(gh_target *t, gh_profile *p, double t0, double t1,
		      int rc)
{
	int (*resume)(void *) = GH_OPS_V2(t, resume);
	double b, e;
	int rrc;

	/* the threads the stop holds, kept for gh_target_threads, and
	 * counted for -v (a collector that reads their registers has
	 * counted them already) */
	gh_target_forget_stop(t);
	if (t->caps->stopped_threads != NULL) {
		gh_thread_regs *regs = NULL;
		size_t n = 0;

		if (t->caps->stopped_threads(t->ctx, &regs, &n) == 0) {
			t->stop_regs = regs;
			t->nstop_regs = n;
			if (p->stop.threads == 0)
				p->stop.threads = n;
		} else {
			free(regs);
		}
	}
	rrc = resume != NULL ? resume(t->ctx) : 0;

	/* the live source knows when its threads actually stopped */
	if (t->caps->stop_window != NULL &&
	    t->caps->stop_window(t->ctx, &b, &e) == 0) {
		p->stop.begin = b;
		p->stop.end = e;
	} else {
		p->stop.begin = t0;
		p->stop.end = t1;
	}
	if (rc == 0 && rrc != 0) {
		char why[sizeof(t->err.msg)];

		snprintf(why, sizeof(why), "%s", t->err.msg);
		rc = gh_errf(&t->err, rrc, "resuming the target: %s", why);
	}
	return rc;
}

/* ---- open ------------------------------------------------------------ */

int gh_target_init(gh_target *t, const goheap_options *opts)
{
	goheap_target_info ti;
	const char *v;
	int rc;

	if (opts != NULL && (opts->version < 1 ||
			     opts->version > GOHEAP_OPTIONS_VERSION))
		return gh_errf(&t->err, GOHEAP_EINVAL,
			       "goheap_options version %u not supported",
			       opts->version);
	/* version 1 tables end before no_stop */
	t->no_stop = opts != NULL && opts->version >= 2 && opts->no_stop;
	t->no_traceback = opts != NULL && opts->version >= 3 && opts->no_traceback;
	if (t->ops->describe != NULL)
		t->ops->describe(t->ctx, t->source, sizeof(t->source));
	if (opts != NULL && opts->exe != NULL) {
		snprintf(t->exe_path, sizeof(t->exe_path), "%s", opts->exe);
	} else {
		rc = t->ops->executable(t->ctx, t->exe_path,
					sizeof(t->exe_path));
		if (rc != 0)
			return gh_errf(&t->err, GOHEAP_ENOEXE,
				       "cannot determine the target's "
				       "executable (give it with --exe)");
	}
	rc = gh_exe_open(&t->exe, t->exe_path, &t->err);
	if (rc != 0)
		return rc;

	memset(&ti, 0, sizeof(ti));
	ti.ptr_size = gh_exe_ptr_size(t->exe);
	ti.big_endian = gh_exe_big_endian(t->exe);
	if (t->ops->target_info != NULL) {
		rc = t->ops->target_info(t->ctx, &ti);
		if (rc != 0)
			return gh_errf(&t->err, rc, "describing the target: %s",
				       goheap_strerror(rc));
	}
	if (ti.ptr_size != gh_exe_ptr_size(t->exe) ||
	    ti.big_endian != gh_exe_big_endian(t->exe))
		return gh_errf(&t->err, GOHEAP_EINVAL,
			       "%s is a %u-bit %s-endian executable but the "
			       "target is %u-bit %s-endian", t->exe_path,
			       gh_exe_ptr_size(t->exe) * 8,
			       gh_exe_big_endian(t->exe) ? "big" : "little",
			       ti.ptr_size * 8, ti.big_endian ? "big" : "little");
	if (ti.machine != 0 && ti.machine != gh_exe_machine(t->exe))
		return gh_errf(&t->err, GOHEAP_EINVAL,
			       "%s is built for ELF machine %u but the target "
			       "is machine %u (wrong executable?)", t->exe_path,
			       gh_exe_machine(t->exe), ti.machine);
	gh_mem_init(&t->mem, t->ops, t->ctx, ti.ptr_size, ti.big_endian,
		    &t->err);
	t->mem_ready = 1;

	v = gh_exe_go_version(t->exe);
	snprintf(t->verstr, sizeof(t->verstr), "%s", v);
	if (v[0] == '\0' || gh_gover_parse(&t->ver, v) != 0) {
		/* No .go.buildinfo: the pclntab decodes without a version
		 * (its magic says the format), then the version is inferred
		 * from runtime.buildVersion and checked. */
		gh_gover unknown = { 0, 0, 0 };

		rc = find_bias(t);
		if (rc != 0)
			return rc;
		rc = check_build_ids(t);
		if (rc != 0)
			return rc;
		rc = gh_sym_open(&t->sym, t->exe, t->bias, unknown, &t->err);
		if (rc != 0)
			return rc;
		rc = gh_infer_go_version(t->exe, t->sym, t->bias, &t->ver,
					 t->verstr, sizeof(t->verstr), &t->err);
		if (rc != 0)
			return rc;
		t->version_inferred = 1;
		gh_sym_set_version(t->sym, t->ver);
	}
	t->lay = gh_rtlayout_for(t->ver);
	if (t->lay == NULL)
		return gh_errf(&t->err, GOHEAP_EVERSION,
			       "unsupported runtime layout for go1.%d (this "
			       "go-heap knows go1.%d to go1.%d)", t->ver.minor,
			       gh_rtlayout_oldest(), gh_rtlayout_newest());
	if (t->sym == NULL) {
		rc = find_bias(t);
		if (rc != 0)
			return rc;
		rc = check_build_ids(t);
		if (rc != 0)
			return rc;
		rc = gh_sym_open(&t->sym, t->exe, t->bias, t->ver, &t->err);
		if (rc != 0)
			return rc;
	}
	rc = find_globals(t);
	if (rc != 0)
		return rc;
	/* The linker sets runtime.disableMemoryProfiling (and schedinit then
	 * zeroes MemProfileRate) exactly when the profile's reader is not in
	 * the program; the pclntab says so, stripped or not. */
	t->addrs.linker_disabled =
		gh_sym_func_entry(t->sym, t->lay->memprof_reader, NULL,
				  NULL) != 0;
	/*
	 * A layout read from source for a release we tested is trusted; any
	 * other (a newer release, an inferred version, globals located by
	 * decoding) is first checked against the live data, so that a
	 * mismatch is an error and never a plausible wrong profile.
	 */
	if (!t->lay->tested || t->version_inferred ||
	    !gh_exe_has_symtab(t->exe)) {
		char guard[256];

		rc = gh_validate_layout(&t->mem, t->lay, &t->addrs, t->ver,
					guard, sizeof(guard), &t->err);
		if (rc != 0)
			return rc;
		snprintf(t->how + strlen(t->how),
			 sizeof(t->how) - strlen(t->how), "; layout guard: %s",
			 guard);
	}
	return 0;
}
int gh_target_threads(gh_target *t, const gh_thread_regs **regs, size_t *n)
{
	if (t->stop_regs != NULL) {
		*regs = t->stop_regs;
		*n = t->nstop_regs;
		return 0;
	}
	if (t->caps->core_threads != NULL &&
	    t->caps->core_threads(t->ctx, regs, n) == 0)
		return 0;
	*regs = NULL;
	*n = 0;
	return -1;
}

void gh_target_forget_stop(gh_target *t)
{
	free(t->stop_regs);
	t->stop_regs = NULL;
	t->nstop_regs = 0;
}

void gh_target_fini(gh_target *t)
{
	gh_target_forget_stop(t);
	gh_sym_close(t->sym);
	t->sym = NULL;
	gh_exe_close(t->exe);
	t->exe = NULL;
	if (t->mem_ready)
		gh_mem_fini(&t->mem);
	t->mem_ready = 0;
	if (t->ops != NULL && t->ops->close != NULL)
		t->ops->close(t->ctx);
	t->ops = NULL;
	t->ctx = NULL;
}

int gh_target_can_stop(const gh_target *t)
{
	return GH_OPS_V2(t, stop) != NULL && GH_OPS_V2(t, resume) != NULL;
}

int gh_target_snapshot(const gh_target *t)
{
	if (!gh_target_can_stop(t))
		return GH_SNAP_NONE;
	return t->no_stop ? GH_SNAP_RUNNING : GH_SNAP_STOPPED;
}

/*
 * session.c - open a target, collect a profile, write it: the public API.
 *
 * The data path from a PID (or core, or caller's source) to bytes:
 *
 *   memory source --> executable (path from the source, or --exe)
 *                 --> load bias (the executable's offset-0 mapping)
 *                 --> Go version (.go.buildinfo) --> runtime layout
 *                 --> runtime globals (.symtab + bias)
 *                 --> walker (records) --> writers (+ pclntab symbolizer)
 *
 * Everything here is backend-agnostic: the live and core constructors only
 * build a goheap_memsrc_ops table and hand it to goheap_open_memsrc.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "exe.h"
#include "memsrc.h"
#include "profile.h"
#include "writers.h"
#include "rtlayout.h"
#include "sym.h"
#include "session.h"
#include "walk.h"
#include "locate.h"
#include "goroutine.h"
#include "heapwalk.h"
#include "memstats.h"


static goheap_session *session_new(void)
{
	goheap_session *s = gh_calloc(1, sizeof(*s));

	if (s != NULL) {
		snprintf(s->err.msg, sizeof(s->err.msg), "no error");
		s->caps = &gh_no_caps;
	}
	return s;
}

GOHEAP_EXTERN void goheap_close(goheap_session *s)
{
	if (s == NULL)
		return;
	gh_sym_close(s->sym);
	gh_exe_close(s->exe);
	if (s->mem_ready)
		gh_mem_fini(&s->mem);
	if (s->ops != NULL && s->ops->close != NULL)
		s->ops->close(s->ctx);
	free(s->sysroot);
	free(s);
}

GOHEAP_EXTERN const char *goheap_errmsg(const goheap_session *s)
{
	if (s == NULL)
		return "out of memory";
	return s->err.msg;
}

GOHEAP_EXTERN const char *goheap_go_version(const goheap_session *s)
{
	return s != NULL ? s->verstr : "";
}

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

static int find_bias(goheap_session *s)
{
	bias_search b;
	int rc;

	s->bias = 0;
	if (!gh_exe_is_dyn(s->exe))
		return 0;
	memset(&b, 0, sizeof(b));
	b.exe_path = s->exe_path;
	b.have_st = stat(s->exe_path, &b.st) == 0;
	rc = s->ops->mappings(s->ctx, bias_cb, &b);
	if (rc != 0)
		return gh_errf(&s->err, rc, "reading the target's mappings: %s",
			       goheap_strerror(rc));
	if (!b.found)
		return gh_errf(&s->err, GOHEAP_ENOEXE,
			       "%s is position-independent but is not mapped "
			       "in the target (wrong executable?)", s->exe_path);
	s->bias = b.start - gh_exe_link_base(s->exe);
	return 0;
}

/*
 * The executable must be the one the target runs: its build-id notes (Go's
 * and, since Go 1.24, GNU's) sit in the first page of text, which live
 * processes have and cores keep (the kernel and gcore dump an ELF file's
 * first page for exactly this purpose).  Where the target's copy cannot be
 * read the check is skipped; where it differs, nothing else can be trusted.
 */
static int check_build_ids(goheap_session *s)
{
	static const char *const notes[] = { ".note.go.buildid",
					      ".note.gnu.build-id" };
	unsigned char buf[512];
	size_t i;
	int rc;

	for (i = 0; i < GH_ARRAY_LEN(notes); i++) {
		const gh_section *sec = gh_exe_section(s->exe, notes[i]);

		if (sec == NULL || sec->data == NULL || sec->addr == 0 ||
		    sec->size == 0 || sec->size > sizeof(buf))
			continue;
		rc = s->ops->read(s->ctx, sec->addr + s->bias, buf,
				  (size_t)sec->size);
		/* Go's note is in the first page of text, which any target
		 * running this executable has mapped. */
		if (rc == GOHEAP_EUNMAPPED && i == 0)
			return gh_errf(&s->err, GOHEAP_ENOEXE,
				       "%s is not the executable of %s: its "
				       "text at 0x%llx is not mapped there "
				       "(give the right one with --exe)",
				       s->exe_path, s->source[0] ? s->source :
				       "the target",
				       (unsigned long long)(sec->addr + s->bias));
		if (rc != 0)
			continue;
		if (memcmp(buf, sec->data, (size_t)sec->size) != 0)
			return gh_errf(&s->err, GOHEAP_ENOEXE,
				       "%s is not the executable of %s: its %s "
				       "differs from the target's (give the "
				       "right one with --exe)", s->exe_path,
				       s->source[0] ? s->source : "the target",
				       notes[i]);
	}
	return 0;
}

/* ---- runtime globals ------------------------------------------------- */

/*
 * Every runtime global a collector reads, in one place: from .symtab, or
 * in a stripped binary located by decoding the runtime's code (locate.c).
 * The required ones (the heap profile's) are an error when missing; the
 * others are left 0 and the collector that needs one says so.
 */
static int find_globals(goheap_session *s)
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

	memset(&s->addrs, 0, sizeof(s->addrs));
	if (!gh_exe_has_symtab(s->exe)) {
		/* Stripped (-s): decode the runtime's own code for them. */
		rc = gh_locate_globals(s->exe, s->sym, s->ver, s->bias,
				       &s->addrs, s->how, sizeof(s->how),
				       &s->err);
		if (rc != 0)
			return gh_err_prefix(&s->err, "%s (stripped)",
					     s->exe_path);
		return 0;
	}
	snprintf(s->how, sizeof(s->how), "from .symtab");
	for (i = 0; i < GH_ARRAY_LEN(syms); i++) {
		uint64_t addr = 0;

		if (gh_exe_symbol(s->exe, syms[i].name, &addr, NULL) != 0) {
			if (syms[i].required)
				return gh_errf(&s->err, GOHEAP_ENOSYM,
					       "%s: symbol %s not found (not a "
					       "Go program, or an unsupported "
					       "runtime)", s->exe_path,
					       syms[i].name);
			continue;
		}
		*(uint64_t *)((char *)&s->addrs + syms[i].off) = addr + s->bias;
	}
	{
		uint64_t addr = 0, size = 0;

		/* ticks.val is the struct's last word in every row. */
		if (gh_exe_symbol(s->exe, "runtime.ticks", &addr, &size) == 0 &&
		    size >= 16)
			s->addrs.ticks_val = addr + size - 8 + s->bias;
		if (gh_exe_symbol(s->exe, "runtime.mutexprofilerate", &addr,
				  NULL) == 0)
			s->addrs.mutexprofilerate = addr + s->bias;
		/* goroutine profiles and -p types (optional: each collector
		 * says what it misses) */
		if (gh_exe_symbol(s->exe, "runtime.allgs", &addr, NULL) == 0)
			s->addrs.allgs = addr + s->bias;
		if (gh_exe_symbol(s->exe, "runtime.fingStatus", &addr,
				  NULL) == 0) {
			s->addrs.fing = addr + s->bias;
			s->addrs.fing_size = 4;
		} else if (gh_exe_symbol(s->exe, "runtime.fingRunning", &addr,
					 NULL) == 0) {
			s->addrs.fing = addr + s->bias;
			s->addrs.fing_size = 1;
		}
		if (s->lay->tb_labels != 0 &&
		    gh_exe_symbol(s->exe, "runtime.debug", &addr, NULL) == 0)
			s->addrs.tblabels = addr + s->bias +
					    s->lay->debug_tracebacklabels;
		if (gh_exe_symbol(s->exe, "runtime.mheap_", &addr, NULL) == 0)
			s->addrs.mheap = addr + s->bias;
		if (gh_exe_symbol(s->exe, "runtime.gcphase", &addr, NULL) == 0)
			s->addrs.gcphase = addr + s->bias;
	}
	return 0;
}

/* ---- the brief stop of the snapshots ------------------------------------ */

int gh_session_stop(goheap_session *s, const char *what, const char *noun,
		    double *t0)
{
	int (*stop)(void *) = GH_OPS_V2(s, stop);
	int rc;

	rc = stop != NULL ? stop(s->ctx) : GOHEAP_EUNSUPPORTED;
	if (rc != 0) {
		char why[sizeof(s->err.msg)];

		snprintf(why, sizeof(why), "%s", s->err.msg[0] ? s->err.msg :
			 goheap_strerror(rc));
		return gh_errf(&s->err, rc, "%s: cannot stop the target for a "
			       "consistent %s (%s); --no-stop reads it without "
			       "stopping (best-effort)", what, noun, why);
	}
	*t0 = gh_now();
	return 0;
}

int gh_session_resume(goheap_session *s, gh_profile *p, double t0, double t1,
		      int rc)
{
	int (*resume)(void *) = GH_OPS_V2(s, resume);
	double b, e;
	int rrc = resume != NULL ? resume(s->ctx) : 0;

	/* the live source knows when its threads actually stopped */
	if (s->caps->stop_window != NULL &&
	    s->caps->stop_window(s->ctx, &b, &e) == 0) {
		p->gor_stop_begin = b;
		p->gor_stop_end = e;
	} else {
		p->gor_stop_begin = t0;
		p->gor_stop_end = t1;
	}
	if (rc == 0 && rrc != 0) {
		char why[sizeof(s->err.msg)];

		snprintf(why, sizeof(why), "%s", s->err.msg);
		rc = gh_errf(&s->err, rrc, "resuming the target: %s", why);
	}
	return rc;
}

/* ---- open ------------------------------------------------------------ */

static int session_init(goheap_session *s, const goheap_options *opts)
{
	goheap_target_info ti;
	const char *v;
	int rc;

	if (opts != NULL && (opts->version < 1 ||
			     opts->version > GOHEAP_OPTIONS_VERSION))
		return gh_errf(&s->err, GOHEAP_EINVAL,
			       "goheap_options version %u not supported",
			       opts->version);
	/* version 1 tables end before no_stop */
	s->gor_no_stop = opts != NULL && opts->version >= 2 && opts->no_stop;
	s->gor_no_tb = opts != NULL && opts->version >= 3 && opts->no_traceback;
	if (s->ops->describe != NULL)
		s->ops->describe(s->ctx, s->source, sizeof(s->source));
	if (opts != NULL && opts->exe != NULL) {
		snprintf(s->exe_path, sizeof(s->exe_path), "%s", opts->exe);
	} else {
		rc = s->ops->executable(s->ctx, s->exe_path,
					sizeof(s->exe_path));
		if (rc != 0)
			return gh_errf(&s->err, GOHEAP_ENOEXE,
				       "cannot determine the target's "
				       "executable (give it with --exe)");
	}
	rc = gh_exe_open(&s->exe, s->exe_path, &s->err);
	if (rc != 0)
		return rc;

	memset(&ti, 0, sizeof(ti));
	ti.ptr_size = gh_exe_ptr_size(s->exe);
	ti.big_endian = gh_exe_big_endian(s->exe);
	if (s->ops->target_info != NULL) {
		rc = s->ops->target_info(s->ctx, &ti);
		if (rc != 0)
			return gh_errf(&s->err, rc, "describing the target: %s",
				       goheap_strerror(rc));
	}
	if (ti.ptr_size != gh_exe_ptr_size(s->exe) ||
	    ti.big_endian != gh_exe_big_endian(s->exe))
		return gh_errf(&s->err, GOHEAP_EINVAL,
			       "%s is a %u-bit %s-endian executable but the "
			       "target is %u-bit %s-endian", s->exe_path,
			       gh_exe_ptr_size(s->exe) * 8,
			       gh_exe_big_endian(s->exe) ? "big" : "little",
			       ti.ptr_size * 8, ti.big_endian ? "big" : "little");
	if (ti.machine != 0 && ti.machine != gh_exe_machine(s->exe))
		return gh_errf(&s->err, GOHEAP_EINVAL,
			       "%s is built for ELF machine %u but the target "
			       "is machine %u (wrong executable?)", s->exe_path,
			       gh_exe_machine(s->exe), ti.machine);
	gh_mem_init(&s->mem, s->ops, s->ctx, ti.ptr_size, ti.big_endian,
		    &s->err);
	s->mem_ready = 1;

	v = gh_exe_go_version(s->exe);
	snprintf(s->verstr, sizeof(s->verstr), "%s", v);
	if (v[0] == '\0' || gh_gover_parse(&s->ver, v) != 0) {
		/* No .go.buildinfo: the pclntab decodes without a version
		 * (its magic says the format), then the version is inferred
		 * from runtime.buildVersion and checked. */
		gh_gover unknown = { 0, 0, 0 };

		rc = find_bias(s);
		if (rc != 0)
			return rc;
		rc = check_build_ids(s);
		if (rc != 0)
			return rc;
		rc = gh_sym_open(&s->sym, s->exe, s->bias, unknown, &s->err);
		if (rc != 0)
			return rc;
		rc = gh_infer_go_version(s->exe, s->sym, s->bias, &s->ver,
					 s->verstr, sizeof(s->verstr), &s->err);
		if (rc != 0)
			return rc;
		s->version_inferred = 1;
		gh_sym_set_version(s->sym, s->ver);
	}
	s->lay = gh_rtlayout_for(s->ver);
	if (s->lay == NULL)
		return gh_errf(&s->err, GOHEAP_EVERSION,
			       "unsupported runtime layout for go1.%d (this "
			       "go-heap knows go1.%d to go1.%d)", s->ver.minor,
			       gh_rtlayout_oldest(), gh_rtlayout_newest());
	if (s->sym == NULL) {
		rc = find_bias(s);
		if (rc != 0)
			return rc;
		rc = check_build_ids(s);
		if (rc != 0)
			return rc;
		rc = gh_sym_open(&s->sym, s->exe, s->bias, s->ver, &s->err);
		if (rc != 0)
			return rc;
	}
	rc = find_globals(s);
	if (rc != 0)
		return rc;
	/* The linker sets runtime.disableMemoryProfiling (and schedinit then
	 * zeroes MemProfileRate) exactly when the profile's reader is not in
	 * the program; the pclntab says so, stripped or not. */
	s->addrs.linker_disabled =
		gh_sym_func_entry(s->sym, s->lay->memprof_reader, NULL,
				  NULL) != 0;
	/*
	 * A layout read from source for a release we tested is trusted; any
	 * other (a newer release, an inferred version, globals located by
	 * decoding) is first checked against the live data, so that a
	 * mismatch is an error and never a plausible wrong profile.
	 */
	if (!s->lay->tested || s->version_inferred ||
	    !gh_exe_has_symtab(s->exe)) {
		char guard[256];

		rc = gh_validate_layout(&s->mem, s->lay, &s->addrs, s->ver,
					guard, sizeof(guard), &s->err);
		if (rc != 0)
			return rc;
		snprintf(s->how + strlen(s->how),
			 sizeof(s->how) - strlen(s->how), "; layout guard: %s",
			 guard);
	}
	return 0;
}

GOHEAP_EXTERN const char *goheap_describe(goheap_session *s)
{
	if (s == NULL)
		return "";
	snprintf(s->info, sizeof(s->info),
		 "target: %s\nexecutable: %s\nGo version: %s%s\n"
		 "load bias: 0x%llx\nruntime.mbuckets 0x%llx, "
		 "runtime.MemProfileRate 0x%llx, runtime.mProfCycle 0x%llx, "
		 "runtime.ticks.val 0x%llx, runtime.mutexprofilerate 0x%llx "
		 "(%s)",
		 s->source, s->exe_path, s->verstr,
		 s->version_inferred && strstr(s->verstr, "inferred") == NULL ?
		 " (inferred)" : "",
		 (unsigned long long)s->bias,
		 (unsigned long long)s->addrs.mbuckets,
		 (unsigned long long)s->addrs.memprofilerate,
		 (unsigned long long)s->addrs.mprofcycle,
		 (unsigned long long)s->addrs.ticks_val,
		 (unsigned long long)s->addrs.mutexprofilerate, s->how);
	return s->info;
}

GOHEAP_EXTERN int goheap_open_memsrc(goheap_session **out,
				     const goheap_memsrc_ops *ops, void *ctx,
				     const goheap_options *opts)
{
	goheap_session *s;

	*out = NULL;
	s = session_new();
	if (s == NULL) {
		if (ops != NULL && ops->close != NULL)
			ops->close(ctx);
		return GOHEAP_ENOMEM;
	}
	*out = s;
	if (ops == NULL || ops->version < 1 ||
	    ops->version > GOHEAP_MEMSRC_OPS_VERSION ||
	    ops->read == NULL || ops->mappings == NULL ||
	    ops->executable == NULL) {
		if (ops != NULL && ops->close != NULL)
			ops->close(ctx);
		return gh_errf(&s->err, GOHEAP_EINVAL,
			       "invalid memory source table");
	}
	s->ops = ops;
	s->ctx = ctx;
	return session_init(s, opts);
}

/* Field 22 of /proc/PID/stat (after the comm in parentheses), 0 if unread. */
static unsigned long long proc_start_time(int pid)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (i = 3; p != NULL && i <= 22; i++)
		p = strchr(p + 1, ' ');
	return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

GOHEAP_EXTERN int goheap_open_pid(goheap_session **out, int pid,
				  const goheap_options *opts)
{
	goheap_session *s;
	void *ctx = NULL;
	int rc;

	*out = NULL;
	s = session_new();
	if (s == NULL)
		return GOHEAP_ENOMEM;
	*out = s;
	rc = gh_live_new(&ctx, pid, &s->err);
	if (rc != 0)
		return rc;
	s->ops = &gh_live_ops;
	s->caps = &gh_live_caps;
	s->ctx = ctx;
	s->pid = pid;
	s->start_time = proc_start_time(pid);
	return session_init(s, opts);
}

GOHEAP_EXTERN int goheap_open_core(goheap_session **out, const char *core,
				   const char *exe,
				   const goheap_options *opts)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_session *s;
	void *ctx = NULL;
	int rc;

	*out = NULL;
	s = session_new();
	if (s == NULL)
		return GOHEAP_ENOMEM;
	*out = s;
	if (opts != NULL)
		o = *opts;
	if (exe != NULL)
		o.exe = exe;
	rc = gh_core_new(&ctx, core, o.sysroot, &s->err);
	if (rc != 0)
		return rc;
	s->ops = &gh_core_ops;
	s->caps = &gh_core_caps;
	s->ctx = ctx;
	return session_init(s, &o);
}

/* ---- collect --------------------------------------------------------- */

typedef struct maps_collect {
	goheap_session *s;
	gh_profile *p;
	size_t cap;
	int rc;
	struct stat exe_st;
	int have_st;
} maps_collect;

static int strip_deleted(char *f)
{
	size_t n = gh_path_len_undeleted(f);

	if (f[n] == '\0')
		return 0;
	f[n] = '\0';
	return 1;
}

/* runtime/pprof's parseProcSelfMaps: executable mappings, in order. */
static int maps_cb(const goheap_mapping *m, void *payload)
{
	maps_collect *c = payload;
	gh_profile *p = c->p;
	gh_pmap *pm;
	const char *path = m->path != NULL ? m->path : "";

	if (m->perms[2] != 'x')
		return 0;
	if (m->inode == 0 && path[0] == '\0')
		return 0;
	if (p->nmaps == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 16;
		gh_pmap *v = gh_reallocarray(p->maps, nc, sizeof(*v));

		if (v == NULL) {
			c->rc = GOHEAP_ENOMEM;
			return 1;
		}
		p->maps = v;
		c->cap = nc;
	}
	pm = &p->maps[p->nmaps];
	memset(pm, 0, sizeof(*pm));
	pm->start = m->start;
	pm->end = m->end;
	pm->offset = m->offset;
	pm->file = gh_strdup(path);
	if (pm->file == NULL) {
		c->rc = GOHEAP_ENOMEM;
		return 1;
	}
	p->nmaps++;
	strip_deleted(pm->file);
	if (c->have_st && m->inode != 0 &&
	    (uint64_t)c->exe_st.st_ino == m->inode) {
		snprintf(pm->build_id, sizeof(pm->build_id), "%s",
			 gh_exe_gnu_build_id(c->s->exe));
	} else if (path[0] == '/') {
		gh_file_gnu_build_id(m->open_path != NULL ? m->open_path : path,
				     pm->build_id, sizeof(pm->build_id));
	}
	return 0;
}

/* ---- block/mutex: the tick rate and the mutex sampling period ---------- */

/*
 * runtime.cputicks() as the target would read it.  On x86 it is RDTSC,
 * whose counter the kernel keeps synchronized across CPUs and shares with
 * every process; elsewhere (arm64, ppc64le, ...) Go's cputicks is
 * nanotime() ("a poor approximation of CPU ticks that is enough for the
 * profiler", runtime/os_linux_arm64.go).  0: no host counter to read.
 */
static int64_t host_cputicks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return (int64_t)__rdtsc();
#else
	return 0;
#endif
}

static int64_t mono_nanos(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The target's runtime_cyclesPerSecond(), without calling it.
 *
 * runtime.ticks holds the estimate once computed, in its last 8-byte word
 * in every supported layout: go1.19/1.20 {lock mutex; pad uint32; val
 * uint64} (runtime/runtime.go, tickspersecond) and go1.21+ {lock mutex;
 * startTicks, startTime int64; val atomic.Int64} (ticksPerSecond).  So
 * val is at sizeof(runtime.ticks) - 8 from the symbol, whose size
 * .symtab records; no offset to tabulate.
 *
 * Both runtimes compute it lazily (first SetBlockProfileRate(rate > 1),
 * execution trace, or runtime/pprof writing a block/mutex profile).  While
 * it is 0, we do what the runtime would do at that moment:
 *   - go1.21+: (cputicks() - startTicks) * 1e9 / (nanotime() - startTime),
 *     with startTicks/startTime recorded at schedinit (the words before
 *     val), because the host's TSC and CLOCK_MONOTONIC are the target's;
 *   - go1.19/1.20: the runtime would time a 100 ms usleep; we time 10 ms
 *     of our own (the same clocks, an estimate within ~0.002%).
 * Without a tick counter on the host, cputicks is nanotime: 1e9.
 * Stripped targets (no .symtab) take the same fallback.  For a core with
 * val still 0 the estimate is the host's, not the dead process's: the
 * nearest available, since the runtime never computed one.
 */
static double target_ticks_per_second(goheap_session *s, int *estimated)
{
	uint64_t addr = s->addrs.ticks_val, val = 0, st_ticks = 0, st_time = 0;
	int64_t c0, c1, t0, t1;
	struct timespec d = { 0, 10000000 };

	*estimated = 1;
	if (addr != 0) {
		if (gh_mem_read_uint(&s->mem, addr, 8, &val,
				     "runtime.ticks.val") == 0 && val != 0) {
			*estimated = 0;
			return (double)(int64_t)val;
		}
		if (host_cputicks() == 0)
			return 1e9;
		/* (On 386 the int64s are 4-aligned but val is 8-aligned, so
		 * the words before val are not at fixed distances from it:
		 * 64-bit targets only.) */
		if (s->lay->ticks_start && s->mem.ptr_size == 8 &&
		    gh_mem_read_uint(&s->mem, addr - 16, 8, &st_ticks,
				     "runtime.ticks.startTicks") == 0 &&
		    gh_mem_read_uint(&s->mem, addr - 8, 8, &st_time,
				     "runtime.ticks.startTime") == 0 &&
		    st_time != 0) {
			c1 = host_cputicks();
			t1 = mono_nanos();
			if (c1 > (int64_t)st_ticks && t1 > (int64_t)st_time)
				return (double)(int64_t)((double)(c1 -
					(int64_t)st_ticks) * 1e9 /
					(double)(t1 - (int64_t)st_time));
		}
	}
	if (host_cputicks() == 0)
		return 1e9;
	t0 = mono_nanos();
	c0 = host_cputicks();
	nanosleep(&d, NULL);
	t1 = mono_nanos();
	c1 = host_cputicks();
	if (t1 == t0)
		t1++;
	return (double)((c1 - c0) * 1000 * 1000 * 1000 / (t1 - t0));
}

/*
 * runtime.mutexprofilerate (uint64, runtime/mprof.go), what
 * SetMutexProfileFraction(-1) returns: the text header's "sampling
 * period" and, before 1.20, the proto's scale.  1 when it cannot be read
 * (*found = 0).
 */
static int64_t target_mutex_rate(goheap_session *s, int *found)
{
	uint64_t v = 0;

	*found = 0;
	if (s->addrs.mutexprofilerate == 0 ||
	    gh_mem_read_uint(&s->mem, s->addrs.mutexprofilerate, 8, &v,
			     "runtime.mutexprofilerate") != 0)
		return 1;
	*found = 1;
	return (int64_t)v;
}

/* A new profile of s's target: its identity and header, no records. */
static gh_profile *profile_new(goheap_session *s, int kind)
{
	gh_profile *p = gh_calloc(1, sizeof(*p));
	struct timespec ts;

	if (p == NULL)
		return NULL;
	p->kind = kind;
	p->pid = s->pid;
	p->start_time = s->start_time;
	p->ver = s->ver;
	p->rt = s->lay;
	p->machine = gh_exe_machine(s->exe);
	snprintf(p->source, sizeof(p->source), "%s", s->source);
	clock_gettime(CLOCK_REALTIME, &ts);
	p->time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	gh_mem_invalidate(&s->mem);
	return p;
}

/* p->maps: the target's executable mappings. */
static int profile_maps(goheap_session *s, gh_profile *p)
{
	maps_collect mc;
	int rc;

	memset(&mc, 0, sizeof(mc));
	mc.s = s;
	mc.p = p;
	mc.have_st = stat(s->exe_path, &mc.exe_st) == 0;
	rc = s->ops->mappings(s->ctx, maps_cb, &mc);
	if (mc.rc != 0)
		rc = mc.rc;
	if (rc != 0)
		gh_errf(&s->err, rc, "reading the target's mappings: %s",
			goheap_strerror(rc));
	return rc;
}

/*
 * The walk of a heap/block/mutex list under the session's time limit
 * (gh_walk, or gh_walk_stream into sink when it is not NULL).
 */
static int walk_limited(goheap_session *s, gh_profile *p,
			const gh_walk_sink *sink)
{
	int rc;

	s->mem.deadline = s->time_limit > 0 ? gh_now() + s->time_limit : 0;
	rc = sink != NULL ?
	     gh_walk_stream(p, &s->mem, s->lay, &s->addrs, sink, &s->err) :
	     gh_walk(p, &s->mem, s->lay, &s->addrs, &s->err);
	s->mem.deadline = 0;
	if (rc == GOHEAP_ETIMEDOUT)
		gh_errf(&s->err, rc, "collection stopped at its time limit of "
			"%.3f s, after %llu buckets", s->time_limit,
			(unsigned long long)p->nbuckets);
	return rc;
}

/* The MemStats of heap?debug=1's trailer, read from s's target (the
 * profile's) as the text is written; NULL (no trailer, the profile
 * itself unaffected) when they cannot be read.  Freed by the caller. */
static gh_memstats *memstats_trailer(goheap_session *s)
{
	gh_err saved = s->err;
	gh_profile tmp;

	memset(&tmp, 0, sizeof(tmp));
	s->mem.deadline = s->time_limit > 0 ? gh_now() + s->time_limit : 0;
	if (gh_memstats_collect(&tmp, s) != 0)
		s->err = saved;
	s->mem.deadline = 0;
	return tmp.memstats;
}

/* goheap_profile_collect; objects: -p types' one line per object too */
static int collect(goheap_profile **out, goheap_session *s, int kind,
		   int objects)
{
	gh_profile *p;
	int rc;

	*out = NULL;
	if (s == NULL || s->lay == NULL || s->sym == NULL)
		return s != NULL ? gh_errf(&s->err, GOHEAP_EINVAL,
					   "session is not open") :
				   GOHEAP_EINVAL;
	if (kind < GOHEAP_PROFILE_HEAP || kind > GOHEAP_PROFILE_MEMSTATS)
		return gh_errf(&s->err, GOHEAP_EINVAL, "unknown profile kind %d",
			       kind);
	p = profile_new(s, kind);
	if (p == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");

	if (kind == GOHEAP_PROFILE_GOROUTINE) {
		/* goroutine.c: allgs, stacks, labels */
		s->mem.deadline = s->time_limit > 0 ?
				  gh_now() + s->time_limit : 0;
		rc = gh_gor_collect(p, s);
		s->mem.deadline = 0;
		if (rc != 0)
			goto fail;
		goto maps;
	}
	if (kind == GOHEAP_PROFILE_MEMSTATS) {
		/* memstats.c: readmemstats_m's words */
		s->mem.deadline = s->time_limit > 0 ?
				  gh_now() + s->time_limit : 0;
		rc = gh_memstats_collect(p, s);
		s->mem.deadline = 0;
		if (rc != 0)
			goto fail;
		*out = p;
		return 0;
	}
	if (kind == GOHEAP_PROFILE_TYPES) {
		/* heapwalk.c: allspans, allocation bits, type headers */
		s->mem.deadline = s->time_limit > 0 ?
				  gh_now() + s->time_limit : 0;
		rc = gh_types_collect(p, s, objects);
		s->mem.deadline = 0;
		if (rc != 0)
			goto fail;
		*out = p;
		return 0;
	}
	rc = walk_limited(s, p, NULL);
	if (rc != 0)
		goto fail;
	if (kind == GOHEAP_PROFILE_BLOCK || kind == GOHEAP_PROFILE_MUTEX) {
		int found = 1;

		p->rate = kind == GOHEAP_PROFILE_MUTEX ?
			  target_mutex_rate(s, &found) : 1;
		p->rate_unknown = !found;
		p->cycles_per_second =
			target_ticks_per_second(s, &p->cycles_estimated);
	}

maps:
	rc = profile_maps(s, p);
	if (rc != 0)
		goto fail;
	*out = p;
	return 0;
fail:
	gh_profile_destroy(p);
	free(p);
	return rc;
}

GOHEAP_EXTERN int goheap_profile_collect(goheap_profile **out,
					 goheap_session *s, int kind)
{
	return collect(out, s, kind, 0);
}

GOHEAP_EXTERN int goheap_set_time_limit(goheap_session *s, double seconds)
{
	if (s == NULL || !(seconds >= 0))
		return GOHEAP_EINVAL;
	s->time_limit = seconds;
	return 0;
}

GOHEAP_EXTERN void goheap_profile_free(goheap_profile *p)
{
	gh_profile_destroy(p);
	free(p);
}

static void stats_header(const gh_profile *p, goheap_profile_stats *out);

/* Add r to the record totals of out (wrapping as Go's int64 sums do). */
static void stats_add(goheap_profile_stats *out, const gh_record *r)
{
	out->records++;
	out->alloc_objects = gh_wadd(out->alloc_objects, r->alloc_objects);
	out->alloc_bytes = gh_wadd(out->alloc_bytes, r->alloc_bytes);
	out->inuse_objects = gh_wadd(out->inuse_objects,
				     gh_wsub(r->alloc_objects,
					     r->free_objects));
	out->inuse_bytes = gh_wadd(out->inuse_bytes,
				   gh_wsub(r->alloc_bytes, r->free_bytes));
}

GOHEAP_EXTERN int goheap_profile_stats_get(const goheap_profile *p,
					   goheap_profile_stats *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (p == NULL)
		return GOHEAP_EINVAL;
	/* Counts come from the target: int64 sums wrap as Go's do (gh.h),
	 * never undefined behaviour. */
	for (i = 0; i < p->nrecs; i++)
		stats_add(out, &p->recs[i]);
	stats_header(p, out);
	return 0;
}

/* goheap_profile_stats_get's fields that do not come from the records. */
static void stats_header(const gh_profile *p, goheap_profile_stats *out)
{
	out->mem_profile_rate = p->rate;
	out->read_seconds = p->t_read;
	out->walk_seconds = p->t_walk;
	out->read_calls = p->read_calls;
	out->read_bytes = p->read_bytes;
	out->bucket_bytes = p->bucket_bytes;
	out->cycles_per_second = p->cycles_per_second;
	out->cycles_estimated = p->cycles_estimated;
	out->period_unknown = p->rate_unknown;
	out->skipped_buckets = p->skipped;
	out->first_skipped_bucket = p->skipped_bucket;
	snprintf(out->first_skipped_reason, sizeof(out->first_skipped_reason),
		 "%s", p->skipped_reason);
	out->snapshot = p->gor_snapshot;
	out->stop_begin = p->gor_stop_begin;
	out->stop_end = p->gor_stop_end;
	out->stop_seconds = p->gor_stop_end - p->gor_stop_begin;
	out->stop_threads = p->gor_stop_threads;
	out->stop_rewalked = p->gor_rewalked;
	out->stop_checked = p->gor_checked;
}

/*
 * The writers' context for wo (NULL: the defaults in *def), after
 * checking its version; ws receives the stage timings when wo asks.
 */
static int write_setup(goheap_session *s, const goheap_write_options **wo,
		       const goheap_write_options *def, gh_wctx *w,
		       gh_wstats *ws)
{
	if (*wo == NULL)
		*wo = def;
	if ((*wo)->version < 1 ||
	    (*wo)->version > GOHEAP_WRITE_OPTIONS_VERSION)
		return gh_errf(&s->err, GOHEAP_EINVAL, "goheap_write_options "
			       "version %u is not one this library knows "
			       "(1 to %d)", (*wo)->version,
			       GOHEAP_WRITE_OPTIONS_VERSION);
	memset(w, 0, sizeof(*w));
	memset(ws, 0, sizeof(*ws));
	w->sym = s->sym;
	w->sample_index = (*wo)->sample_index;
	w->top_n = (*wo)->top_n > 0 ? (*wo)->top_n : 20;
	w->exe_path = s->exe_path;
	if ((*wo)->stats != NULL)
		w->stats = ws;
	return 0;
}

/* The write's stage timings into wo->stats, if asked (t0: its start). */
static void write_stats_out(const goheap_write_options *wo,
			    const gh_wstats *ws, double t0)
{
	if (wo->stats == NULL)
		return;
	wo->stats->symbolize_seconds = ws->t_symbolize;
	wo->stats->compress_seconds = ws->t_compress;
	wo->stats->suspect_frames = ws->suspect;
	wo->stats->total_seconds = gh_now() - t0;
	/* (a version 1 caller's struct ends before this field) */
	if (wo->version >= 2)
		wo->stats->encode_thread_seconds = ws->t_encode_thread;
}

GOHEAP_EXTERN int goheap_profile_write(goheap_session *s,
				       const goheap_profile *p,
				       const goheap_write_options *wo,
				       unsigned char **out_buf,
				       size_t *out_len)
{
	goheap_write_options def = GOHEAP_WRITE_OPTIONS_INIT;
	gh_buf b = GH_BUF_INIT;
	gh_wstats ws = { 0, 0, 0, 0 };
	double t0 = gh_now();
	gh_wctx w;
	gh_memstats *trailer = NULL;
	int rc;

	*out_buf = NULL;
	*out_len = 0;
	if (s == NULL || p == NULL)
		return GOHEAP_EINVAL;
	if (p->pid != 0 && s->pid != 0 &&
	    (p->pid != s->pid || p->start_time != s->start_time))
		return gh_errf(&s->err, GOHEAP_EMISMATCH, "this profile comes "
			       "from process %d (started at tick %llu), not "
			       "from this session's process %d (tick %llu): "
			       "its executable would symbolize it wrongly",
			       p->pid, p->start_time, s->pid, s->start_time);
	rc = write_setup(s, &wo, &def, &w, &ws);
	if (rc != 0)
		return rc;
	w.memstats = NULL;
	if (p->kind == GOHEAP_PROFILE_MEMSTATS) {
		/* fmt_memstats.c: text (or the default, top) only */
		if (p->memstats == NULL)
			rc = gh_errf(&s->err, GOHEAP_EINVAL, "no MemStats in "
				     "this profile");
		else if (wo->format != GOHEAP_FORMAT_TEXT &&
			 wo->format != GOHEAP_FORMAT_TOP)
			rc = gh_errf(&s->err, GOHEAP_EUNSUPPORTED, "-p memstats "
				     "is written as text (-f text) only");
		else
			rc = gh_write_memstats(p->memstats, 0, &b);
	} else if (p->kind == GOHEAP_PROFILE_TYPES) {
		rc = gh_write_types(p, &w, wo->format, &b, &s->err);
	} else if (p->kind == GOHEAP_PROFILE_GOROUTINE) {
		/* fmt_goroutine.c */
		if (p->gor_no_tb && (wo->format == GOHEAP_FORMAT_TRACEBACK ||
				     wo->format == GOHEAP_FORMAT_LIST))
			rc = gh_errf(&s->err, GOHEAP_EINVAL,
				     "this goroutine profile was collected "
				     "without tracebacks (goheap_options."
				     "no_traceback): collect it again to "
				     "write -f traceback or list");
		else if (wo->format == GOHEAP_FORMAT_TEXT)
			rc = gh_write_text(p, &w, &b, &s->err);
		else if (wo->format == GOHEAP_FORMAT_COLLAPSED)
			rc = gh_write_goroutine_collapsed(p, &w, &b, &s->err);
		else if (wo->format == GOHEAP_FORMAT_TRACEBACK)
			rc = gh_write_goroutine_traceback(p, &w, &b, &s->err);
		else if (wo->format == GOHEAP_FORMAT_LIST)   /* fmt_golist.c */
			rc = gh_write_goroutine_list(p, &w, &b, &s->err);
		else if (wo->format == GOHEAP_FORMAT_PPROF)
			rc = gh_write_pprof(p, &w, &b, &s->err);
		else if (wo->format == GOHEAP_FORMAT_TOP)
			rc = gh_write_top(p, &w, &b, &s->err);
		else
			rc = gh_errf(&s->err, GOHEAP_EUNSUPPORTED,
				     "goroutine profiles are written as text, "
				     "pprof, top or collapsed so far");
	} else
	switch (wo->format) {
	case GOHEAP_FORMAT_PPROF:
		rc = gh_write_pprof(p, &w, &b, &s->err);
		break;
	case GOHEAP_FORMAT_TEXT:
		/* heap?debug=1 ends with runtime.MemStats (memstats.c) */
		if (p->kind == GOHEAP_PROFILE_HEAP ||
		    p->kind == GOHEAP_PROFILE_ALLOCS)
			trailer = memstats_trailer(s);
		w.memstats = trailer;
		rc = gh_write_text(p, &w, &b, &s->err);
		free(trailer);
		break;
	case GOHEAP_FORMAT_TOP:
		rc = gh_write_top(p, &w, &b, &s->err);
		break;
	case GOHEAP_FORMAT_COLLAPSED:
		rc = gh_write_collapsed(p, &w, &b, &s->err);
		break;
	case GOHEAP_FORMAT_TRACEBACK:
	case GOHEAP_FORMAT_LIST:
		rc = gh_errf(&s->err, GOHEAP_EINVAL, "formats traceback and "
			     "list are for goroutine profiles (-p goroutine)");
		break;
	case GOHEAP_FORMAT_OBJECTS:
		rc = gh_errf(&s->err, GOHEAP_EINVAL, "format objects is for "
			     "-p types");
		break;
	default:
		rc = gh_errf(&s->err, GOHEAP_EINVAL, "unknown format %d",
			     wo->format);
		break;
	}
	if (rc == 0 && b.oom)
		rc = gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory writing");
	if (rc != 0) {
		gh_buf_free(&b);
		return rc;
	}
	*out_buf = gh_buf_detach(&b, out_len);
	write_stats_out(wo, &ws, t0);
	return 0;
}

/* ---- collect and write in one pass ------------------------------------- */

typedef struct stream_sink {
	goheap_session *s;
	gh_wctx *w;
	gh_buf *buf;
	gh_pprof_stream *st;
	goheap_profile_stats totals;   /* records and their sums */
} stream_sink;

static int sink_begin(void *arg, const gh_profile *p)
{
	stream_sink *k = arg;

	return gh_pprof_stream_start(&k->st, p, k->w, k->buf, &k->s->err);
}

static int sink_record(void *arg, const gh_record *r)
{
	stream_sink *k = arg;

	stats_add(&k->totals, r);
	return gh_pprof_stream_record(k->st, r);
}

GOHEAP_EXTERN int goheap_profile_collect_write(goheap_session *s, int kind,
					       const goheap_write_options *wo,
					       unsigned char **out_buf,
					       size_t *out_len,
					       goheap_profile_stats *stats)
{
	goheap_write_options def = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *p = NULL;
	gh_buf b = GH_BUF_INIT;
	gh_wstats ws = { 0, 0, 0, 0 };
	gh_walk_sink sink;
	stream_sink k;
	gh_wctx w;
	double t0;
	int rc, frc;

	*out_buf = NULL;
	*out_len = 0;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if (s == NULL || s->lay == NULL || s->sym == NULL)
		return s != NULL ? gh_errf(&s->err, GOHEAP_EINVAL,
					   "session is not open") :
				   GOHEAP_EINVAL;
	rc = write_setup(s, &wo, &def, &w, &ws);
	if (rc != 0)
		return rc;
	if ((kind != GOHEAP_PROFILE_HEAP && kind != GOHEAP_PROFILE_ALLOCS) ||
	    wo->format != GOHEAP_FORMAT_PPROF) {
		/* Only the heap proto streams: the others sort or group
		 * every record before writing the first. */
		rc = collect(&p, s, kind, kind == GOHEAP_PROFILE_TYPES &&
			     wo->format == GOHEAP_FORMAT_OBJECTS);
		if (rc != 0)
			return rc;
		if (stats != NULL)
			goheap_profile_stats_get(p, stats);
		rc = goheap_profile_write(s, p, wo, out_buf, out_len);
		goheap_profile_free(p);
		return rc;
	}

	t0 = gh_now();
	p = profile_new(s, kind);
	if (p == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	/* The mappings first: locations refer to them as they are made. */
	rc = profile_maps(s, p);
	if (rc != 0)
		goto out;
	memset(&k, 0, sizeof(k));
	k.s = s;
	k.w = &w;
	k.buf = &b;
	sink.begin = sink_begin;
	sink.record = sink_record;
	sink.arg = &k;
	rc = walk_limited(s, p, &sink);
	/* The encoder's tail runs here: joined, the rest written. */
	frc = gh_pprof_stream_finish(k.st, p, rc == 0);
	if (rc == 0)
		rc = frc;
	if (rc == 0 && b.oom)
		rc = gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory writing");
	if (rc != 0)
		goto out;
	if (stats != NULL) {
		*stats = k.totals;
		stats_header(p, stats);
	}
	*out_buf = gh_buf_detach(&b, out_len);
	write_stats_out(wo, &ws, t0);
out:
	gh_buf_free(&b);
	goheap_profile_free(p);
	return rc;
}


/*
 * fuzz_gor.c - libFuzzer harness for the goroutine collector (goroutine.c,
 * gorargs.c) and every goroutine writer (text and the grouping of
 * gorgroup.c, pprof, top, collapsed, -f traceback of fmt_goroutine.c, -f
 * list of fmt_golist.c), over damaged target memory.
 *
 * The target is real: LLVMFuzzerInitialize opens, once per process, the
 * snapshots seeds.sh leaves under GOHEAP_FUZZ_GOR (default
 * $GOHEAP_CACHE/fuzz/gor): DIR/goNN/{core,goroutineprog}, gcores of
 * tests/go/goroutineprog (go1.22: labels in a classic hmap; go1.27:
 * label lists), each a core session (goheap_open_core) whose reads
 * (s->t.mem) go through an *overlay* memory source: the core's bytes with
 * patches laid over them.  An input is a list of patches, each aimed at
 * one of the target ranges found by a clean collection at start-up, so
 * that the mutations land where the collector reads:
 *
 *   region 0        runtime.allgs {ptr, len, cap}
 *   region 1        the allgs array (its first K slots)
 *   region 2        runtime.debug (tracebacklabels; read as zeros if the
 *                   shrunk core lost its all-zero page)
 *   region 3        runtime.fingStatus / fingRunning
 *   region 4        the core's thread registers (gh_thread_regs[], the
 *                   harness's copy, restored after each input)
 *   region 5        runtime.m0 (procid, curg)
 *   6 + 7*i + j     selected goroutine i (i < K): j = 0 its g, 1 its
 *                   stack [sp - 64, hi) (at most 64 KiB), 2 its m, 3 its
 *                   labelMap, 4 the label list / hmap header, 5 the first
 *                   label string / the hmap buckets, 6 its allgs slot
 *                   (a region absent for this g repeats its g)
 *
 * The 2455 goroutines of goroutineprog would cost ~100 ms an input: the
 * overlay's base patches shorten allgs to K (at most 48) goroutines, the
 * first 6 slots (runtime's own, system goroutines) and one of each kind
 * of the rest (stack, wait reason, labels), so that one input takes
 * 10-30 ms under ASan (inputs that lengthen allgs again take longer).
 *
 * Input: byte 0 flags, then patches until the end.
 *   flags bit 0-1  which snapshot (modulo their number)
 *         bit 2    also collect with goheap_options.no_traceback: the
 *                  profile's goroutines (stacks, labels) must be the same
 *         bit 3    snapshot mode: the session's ops become a source with
 *                  stop/resume slots (a live target's two-phase read,
 *                  goroutine.c "the snapshot"); stop switches the
 *                  overlay to phase 2 (the patches with the phase bit
 *                  appear: what changed while the target ran)
 *         bit 4/5  (snapshot mode) stop / resume fail; when neither
 *                  fails and no patch is for phase 2, the core-mode read
 *                  of the same memory must find the same goroutines
 *                  (stacks too, but for running ones)
 *   patch: h (op = h & 3, phase = h >> 2 & 1), region u16, offset u16
 *          (both LE, modulo), then
 *     op 0  n (1..64), n bytes
 *     op 1  value index (the table below), width 1 << (byte & 3)
 *     op 2  region u16, offset u16: that address as an 8-byte word
 *     op 3  a bit index: that bit of the byte at offset flipped
 *
 * Every collection that succeeds is written in every format, each write
 * must succeed, and what must hold whatever the memory said is checked
 * (abort otherwise): records == goroutines <= allgs' length; the text's "total N" is N ==
 * the goroutines == the sum of its groups' counts; the collapsed counts
 * sum to N; the pprof output inflates, walks as protobuf (fuzz_pprof's
 * rules) and its samples' values sum to N; the traceback has one
 * "goroutine ID [" block per goroutine and -f list one line each (plus
 * the note); with no_traceback, traceback and list are refused
 * (GOHEAP_EINVAL); no collection fails with GOHEAP_ENOMEM (the data is
 * bounded: that code would be a wrong one).  ASan, UBSan and
 * LeakSanitizer catch the rest.
 *
 * With GOHEAP_FUZZ_GOR_SEEDS=DIR, LLVMFuzzerInitialize writes seed inputs
 * there (clean runs in each mode, and patches that make a goroutine
 * running, point its m at a thread, break its stack bounds, labels and
 * allgs) and fuzzing goes on as usual.
 */
#include "overlay.h"

#include <sys/stat.h>

#include "goroutine_int.h"
#include "profile.h"
#include "session.h"

#define MAX_SNAPS 4
#define MAX_K 48
#define NFIXED 6
#define PER_G 7
#define MAX_PATCHES 256
#define STACK_MAX (64u << 10)

enum { R_ALLGS, R_ARRAY, R_DEBUG, R_FING, R_THREADS, R_M0 };
enum { G_G, G_STACK, G_M, G_LABELS, G_LIST, G_STR, G_SLOT };

typedef struct snap {
	char name[64];
	goheap_session *s;
	overlay ov;
	gh_thread_regs *regs, *regs0;   /* the core's (patched), saved */
	size_t nregs;
	region r[NFIXED + PER_G * MAX_K];
	size_t nr, k;
	uint64_t gps[MAX_K];
	uint8_t lenw[8], *arr;
	patch base[2];
} snap;

static snap g_snaps[MAX_SNAPS];
static size_t g_nsnaps;

/* ---- start-up: the snapshots and their regions ------------------------------------ */

static void set_region(snap *n, size_t i, uint64_t addr, uint64_t len)
{
	if (len == 0 || len > STACK_MAX)
		len = len == 0 ? 8 : STACK_MAX;
	n->r[i].addr = addr;
	n->r[i].len = (uint32_t)len;
}

static uint64_t rd(snap *n, uint64_t addr, int *ok)
{
	uint64_t v = 0;

	if (gh_mem_read_ptr(&n->s->t.mem, addr, &v, "fuzz") != 0)
		*ok = 0;
	return v;
}

static unsigned gspan(const gh_rtlayout *l)
{
	unsigned v[] = { l->g_m, l->g_sched + 8 * 7, l->g_syscallsp,
			 l->g_syscallpc, l->g_atomicstatus, l->g_goid,
			 l->g_waitsince, l->g_waitreason, l->g_gopc,
			 l->g_startpc, l->g_labels, l->g_parentgoid,
			 l->g_runningcleanups, l->g_lockedm, l->g_bubble };
	unsigned mx = 16;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] + 8 > mx)
			mx = v[i] + 8;
	return mx;
}

static uint64_t gor_key(const gh_goroutine *g)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < g->nstk && i < 4; i++)
		h = (h ^ g->stk[i]) * 1099511628211ull;
	h = (h ^ g->waitreason) * 1099511628211ull;
	h = (h ^ g->status) * 1099511628211ull;
	h = (h ^ g->nlabels) * 1099511628211ull;
	for (i = 0; i < g->nlabels; i++)
		h = (h ^ g->labels[i].vlen ^ (uint64_t)(unsigned char)
		     (g->labels[i].vlen ? g->labels[i].value[0] : 0) << 8) *
		    1099511628211ull;
	h = (h ^ (g->nstk > 32) ^ (uint64_t)(g->ntb > 60) << 1) *
	    1099511628211ull;
	return h;
}

static int open_snap(snap *n, const char *dir, const char *name)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_profile *p = NULL;
	const gh_thread_regs *regs;
	const gh_rtlayout *l;
	char core[4096], exe[4096];
	uint64_t allgs, arr, len, sym, dsz, keys[MAX_K];
	size_t i, nk = 0;
	int rc, ok = 1;

	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(core, sizeof(core), "%s/%s/core", dir, name);
	snprintf(exe, sizeof(exe), "%s/%s/goroutineprog", dir, name);
	rc = goheap_open_core(&n->s, core, exe, &o);
	if (rc != 0) {
		fprintf(stderr, "fuzz_gor: %s: %s\n", core,
			n->s ? goheap_errmsg(n->s) : goheap_strerror(rc));
		goheap_close(n->s);
		return -1;
	}
	l = n->s->t.lay;
	/* every read of the collector and writers goes through the overlay */
	n->ov.ops = n->s->t.ops;
	n->ov.ctx = n->s->t.ctx;
	n->s->t.mem.ops = &ov_ops;
	n->s->t.mem.ctx = &n->ov;
	if (n->s->t.caps->core_threads != NULL &&
	    n->s->t.caps->core_threads(n->s->t.ctx, &regs, &n->nregs) == 0) {
		n->regs = (gh_thread_regs *)regs;  /* restored after each input */
		n->regs0 = malloc(n->nregs * sizeof(*regs));
		if (n->regs0 == NULL)
			return -1;
		memcpy(n->regs0, regs, n->nregs * sizeof(*regs));
	}
	if (gh_exe_symbol(n->s->t.exe, "runtime.allgs", &allgs, NULL) != 0) {
		fprintf(stderr, "fuzz_gor: %s: no runtime.allgs\n", exe);
		return -1;
	}
	allgs += n->s->t.bias;
	arr = rd(n, allgs, &ok);
	len = rd(n, allgs + 8, &ok);
	if (!ok || len == 0 || len > GH_GOR_MAX_GS ||
	    goheap_profile_collect(&p, n->s, GOHEAP_PROFILE_GOROUTINE) != 0) {
		fprintf(stderr, "fuzz_gor: %s: clean collection failed: %s\n",
			core, goheap_errmsg(n->s));
		goheap_profile_free(p);
		return -1;
	}
	/* the goroutines: allgs' first 6 slots, then one of each kind */
	for (i = 0; i < len && i < 6; i++)
		n->gps[n->k++] = rd(n, arr + 8 * i, &ok);
	for (i = 0; i < gh_gor_of(p)->ngors && n->k < MAX_K; i++) {
		uint64_t key = gor_key(&gh_gor_of(p)->gors[i]);
		size_t j, q;

		for (q = 0; q < n->k && n->gps[q] != gh_gor_of(p)->gors[i].addr; q++)
			;
		for (j = 0; j < nk && keys[j] != key; j++)
			;
		if (q < n->k || j < nk)
			continue;
		keys[nk++] = key;
		n->gps[n->k++] = gh_gor_of(p)->gors[i].addr;
	}
	goheap_profile_free(p);
	/* the base patches: allgs = the K goroutines */
	n->arr = calloc(n->k, 8);
	if (n->arr == NULL)
		return -1;
	for (i = 0; i < n->k; i++)
		for (int b = 0; b < 8; b++)
			n->arr[8 * i + b] = (uint8_t)(n->gps[i] >> (8 * b));
	for (int b = 0; b < 8; b++)
		n->lenw[b] = (uint8_t)((uint64_t)n->k >> (8 * b));
	n->base[0] = (patch){ allgs + 8, 8, n->lenw, 0 };
	n->base[1] = (patch){ arr, 8 * n->k, n->arr, 0 };
	n->ov.base = n->base;
	n->ov.nbase = 2;
	gh_mem_invalidate(&n->s->t.mem);

	set_region(n, R_ALLGS, allgs, 24);
	set_region(n, R_ARRAY, arr, 8 * n->k);
	if (l->tb_labels != 0 &&
	    gh_exe_symbol(n->s->t.exe, "runtime.debug", &sym, &dsz) == 0) {
		set_region(n, R_DEBUG, sym + n->s->t.bias,
			   l->debug_tracebacklabels + 8);
		n->ov.zlo = sym + n->s->t.bias;
		n->ov.zhi = n->ov.zlo + (dsz > l->debug_tracebacklabels + 8 ? dsz :
					 l->debug_tracebacklabels + 8);
	} else
		n->r[R_DEBUG] = n->r[R_ALLGS];
	if (gh_exe_symbol(n->s->t.exe, "runtime.fingStatus", &sym, NULL) == 0 ||
	    gh_exe_symbol(n->s->t.exe, "runtime.fingRunning", &sym, NULL) == 0)
		set_region(n, R_FING, sym + n->s->t.bias, 4);
	else
		n->r[R_FING] = n->r[R_ALLGS];
	set_region(n, R_THREADS, 0, n->nregs * sizeof(gh_thread_regs));
	if (gh_exe_symbol(n->s->t.exe, "runtime.m0", &sym, NULL) == 0)
		set_region(n, R_M0, sym + n->s->t.bias,
			   (l->m_procid > l->m_curg ? l->m_procid :
			    l->m_curg) + 8);
	else
		n->r[R_M0] = n->r[R_ALLGS];
	for (i = 0; i < n->k; i++) {
		region *r = &n->r[NFIXED + PER_G * i];
		uint64_t gp = n->gps[i], lo, hi, sp, ssp, m, lb, lp, x;

		ok = 1;
		set_region(n, NFIXED + PER_G * i + G_G, gp, gspan(l));
		for (int j = 1; j < PER_G; j++)
			r[j] = r[0];
		set_region(n, NFIXED + PER_G * i + G_SLOT, arr + 8 * i, 8);
		lo = rd(n, gp, &ok);
		hi = rd(n, gp + 8, &ok);
		sp = rd(n, gp + l->g_sched + l->gobuf_sp, &ok);
		ssp = rd(n, gp + l->g_syscallsp, &ok);
		m = rd(n, gp + l->g_m, &ok);
		lb = rd(n, gp + l->g_labels, &ok);
		if (!ok)
			continue;
		if (ssp != 0 && ssp < sp)
			sp = ssp;
		if (sp >= lo + 64)
			sp -= 64;
		if (lo < hi && sp >= lo && sp < hi)
			set_region(n, NFIXED + PER_G * i + G_STACK, sp, hi - sp);
		if (m != 0)
			set_region(n, NFIXED + PER_G * i + G_M, m,
				   (l->m_procid > l->m_curg ? l->m_procid :
				    l->m_curg) + 8);
		if (lb == 0)
			continue;
		set_region(n, NFIXED + PER_G * i + G_LABELS, lb, 16);
		lp = rd(n, lb, &ok);
		if (!ok || lp == 0)
			continue;
		if (l->labels_list) {
			x = rd(n, lb + 8, &ok);
			if (ok && x > 0 && x < 1024) {
				set_region(n, NFIXED + PER_G * i + G_LIST, lp,
					   32 * x);
				x = rd(n, lp, &ok);
				if (ok && x != 0)
					set_region(n, NFIXED + PER_G * i +
						   G_STR, x, rd(n, lp + 8, &ok));
			}
		} else {
			set_region(n, NFIXED + PER_G * i + G_LIST, lp, 48);
			x = rd(n, lp + 16, &ok);
			if (ok && x != 0)
				set_region(n, NFIXED + PER_G * i + G_STR, x,
					   272 * 2);
		}
	}
	n->nr = NFIXED + PER_G * n->k;
	fprintf(stderr, "fuzz_gor: %s: %zu goroutines of %llu, %zu regions, "
		"%zu threads\n", name, n->k, (unsigned long long)len, n->nr,
		n->nregs);
	return 0;
}

/* ---- seeds ------------------------------------------------------------------------ */

static void write_seeds(const char *dir)
{
	size_t si;

	mkdir(dir, 0777);
	for (si = 0; si < g_nsnaps; si++) {
		const snap *n = &g_snaps[si];
		const gh_rtlayout *l = n->s->t.lay;
		size_t G = NFIXED + PER_G * (n->k > 8 ? 8 : n->k - 1);
		size_t G2 = NFIXED + PER_G * (n->k - 1);
		uint32_t st = 2;
		char name[128];
		seedw w;
		unsigned f;

		for (f = 0; f < 16; f += 4) {   /* bits 2, 3 */
			w.n = 0;
			w.b[w.n++] = (uint8_t)(si | f);
			snprintf(name, sizeof(name), "%s-clean-%u", n->name, f);
			sw_put(dir, name, &w);
		}
		/* a running goroutine whose m's curg is itself and whose
		 * thread is the core's first: unwound from its registers */
		w.n = 0;
		w.b[w.n++] = (uint8_t)si;
		sw_bytes(&w, G + G_G, l->g_atomicstatus, &st, 4, 0);
		sw_ptr(&w, G + G_G, l->g_m, R_M0, 0);
		sw_ptr(&w, R_M0, l->m_curg, G + G_G, 0);
		if (n->nregs > 0) {
			uint64_t tid = 0;
			int ok = 1;

			tid = rd((snap *)n, n->r[R_M0].addr + l->m_procid,
				 &ok);
			sw_bytes(&w, R_THREADS, 0, &tid, 8, 0);
			sw_ptr(&w, R_THREADS, offsetof(gh_thread_regs, sp),
			       G + G_STACK, 64);
		}
		snprintf(name, sizeof(name), "%s-running", n->name);
		sw_put(dir, name, &w);
		/* the same, changed while "running" (snapshot mode) */
		w.b[0] = (uint8_t)(si | 8);
		sw_bytes(&w, G2 + G_G, l->g_sched + l->gobuf_sp, "\x08", 1, 1);
		sw_bytes(&w, R_ALLGS, 8, "\x30", 1, 1);
		snprintf(name, sizeof(name), "%s-snap-changed", n->name);
		sw_put(dir, name, &w);
		/* stack bounds swapped, sched.sp outside, syscallsp set */
		w.n = 0;
		w.b[w.n++] = (uint8_t)(si | 4);
		sw_ptr(&w, G + G_G, 0, G + G_STACK, 200);
		sw_ptr(&w, G2 + G_G, l->g_sched + l->gobuf_sp, G + G_STACK,
		       32);
		sw_ptr(&w, G2 - PER_G + G_G, l->g_syscallsp,
		       G2 - PER_G + G_STACK, 16);
		sw_val(&w, G2 - 2 * PER_G + G_G, 8, 20, 3, 0);
		snprintf(name, sizeof(name), "%s-stack", n->name);
		sw_put(dir, name, &w);
		/* labels: a long string, a list into the stack, a bad B */
		w.n = 0;
		w.b[w.n++] = (uint8_t)si;
		for (size_t i = 0; i < n->k; i++) {
			const region *r = &n->r[NFIXED + PER_G * i];

			if (r[G_LABELS].addr == r[G_G].addr)
				continue;
			sw_val(&w, NFIXED + PER_G * i + G_LIST, 8, 10, 2, 0);
			sw_ptr(&w, NFIXED + PER_G * i + G_LIST, 0,
			       NFIXED + PER_G * i + G_STACK, 8);
			sw_hdr(&w, 3, NFIXED + PER_G * i + G_LIST, 9);
			w.b[w.n++] = 3;
			if (w.n > 400)
				break;
		}
		snprintf(name, sizeof(name), "%s-labels", n->name);
		sw_put(dir, name, &w);
		/* 1.26+: labels in the traceback headers
		 * (debug.tracebacklabels = 1), and one label damaged */
		if (l->tb_labels != 0 && n->r[R_DEBUG].addr != n->r[R_ALLGS].addr) {
			uint32_t one = 1;

			w.n = 0;
			w.b[w.n++] = (uint8_t)si;
			sw_bytes(&w, R_DEBUG, l->debug_tracebacklabels, &one, 4,
				 0);
			snprintf(name, sizeof(name), "%s-tblabels", n->name);
			sw_put(dir, name, &w);
			for (size_t i = 0; i < n->k; i++) {
				const region *r = &n->r[NFIXED + PER_G * i];

				if (r[G_STR].addr == r[G_G].addr)
					continue;
				sw_bytes(&w, NFIXED + PER_G * i + G_STR, 0,
					 "\x00\xff\n\"{", 5, 0);
				break;
			}
			snprintf(name, sizeof(name), "%s-tblabels-bytes",
				 n->name);
			sw_put(dir, name, &w);
		}
		/* allgs: a slot into nowhere, one repeated, len + 1 */
		w.n = 0;
		w.b[w.n++] = (uint8_t)si;
		sw_val(&w, R_ARRAY, 16, 7, 3, 0);
		sw_ptr(&w, R_ARRAY, 24, G + G_G, 0);
		sw_val(&w, NFIXED + G_SLOT, 0, 1, 3, 0);
		snprintf(name, sizeof(name), "%s-allgs", n->name);
		sw_put(dir, name, &w);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir, *seeds;
	char def[4096], *names[16];
	size_t nn, i;

	(void)argc;
	(void)argv;
	dir = ov_snap_dir("GOHEAP_FUZZ_GOR", "gor", def, sizeof(def));
	nn = ov_snap_names(dir, "go", names, 16);
	for (i = 0; i < nn; i++) {
		if (g_nsnaps < MAX_SNAPS && names[i] != NULL &&
		    open_snap(&g_snaps[g_nsnaps], dir, names[i]) == 0)
			g_nsnaps++;
		free(names[i]);
	}
	if (g_nsnaps == 0) {
		fprintf(stderr, "fuzz_gor: no snapshot under %s (GOHEAP_FUZZ_GOR;"
			" tests/fuzz/seeds.sh makes them)\n", dir);
		exit(1);
	}
	seeds = getenv("GOHEAP_FUZZ_GOR_SEEDS");
	if (seeds != NULL && seeds[0] != '\0')
		write_seeds(seeds);
	return 0;
}

/* ---- checks ----------------------------------------------------------------------- */

/*
 * The gzip'd profile.proto (fuzz.h, fuzz_check_pprof: fuzz_pprof's rules):
 * no more samples than goroutines, and their values sum to the goroutines.
 */
static void check_pprof(const unsigned char *gz, size_t len, size_t ngors)
{
	size_t nsample;
	uint64_t total;

	if (fuzz_check_pprof(gz, len, &nsample, &total) == 0 &&
	    (nsample > ngors || total != ngors))
		abort();
}

/* next line of b[0..n) at *pos: its start and length, 0 at the end */
/* debug=1: "goroutine profile: total N", groups "COUNT @ 0x..." */
static void check_text(const unsigned char *b, size_t n, size_t ngors)
{
	static const char head[] = "goroutine profile: total ";
	size_t pos = 0, len, u, sum = 0;
	const char *s;

	if (!ov_line(b, n, &pos, &s, &len) || len < sizeof(head) - 1 ||
	    memcmp(s, head, sizeof(head) - 1) != 0 ||
	    ov_dec(s + sizeof(head) - 1, len - (sizeof(head) - 1), &u) !=
	    ngors || u != len - (sizeof(head) - 1))
		abort();
	while (ov_line(b, n, &pos, &s, &len)) {
		uint64_t c = ov_dec(s, len, &u);

		if (u == 0)
			continue;
		if (u >= len || s[u] != ' ' || len < u + 2 || s[u + 1] != '@')
			abort();
		sum += c;
	}
	if (sum != ngors)
		abort();
}

/* folded stacks: "a;b;c COUNT" */
static void check_collapsed(const unsigned char *b, size_t n, size_t ngors)
{
	size_t pos = 0, len, sum = 0, u;
	const char *s, *sp;

	while (ov_line(b, n, &pos, &s, &len)) {
		sp = NULL;
		for (size_t i = len; i-- > 0;)
			if (s[i] == ' ') {
				sp = s + i;
				break;
			}
		if (sp == NULL)
			abort();
		sum += ov_dec(sp + 1, len - (size_t)(sp + 1 - s), &u);
		if (u == 0 || u != len - (size_t)(sp + 1 - s))
			abort();
	}
	if (sum != ngors)
		abort();
}

/* debug=2: one "goroutine ID [" block per goroutine */
static void check_traceback(const unsigned char *b, size_t n,
			    const goheap_profile *p)
{
	size_t pos = 0, len, u, k = 0;
	const char *s;

	while (ov_line(b, n, &pos, &s, &len)) {
		uint64_t id;

		if (len < 10 || memcmp(s, "goroutine ", 10) != 0)
			continue;
		id = ov_dec(s + 10, len - 10, &u);
		if (u == 0 || 10 + u + 1 >= len || s[10 + u] != ' ' ||
		    s[11 + u] != '[')
			abort();
		if (k >= gh_gor_of(p)->ngors || (id != gh_gor_of(p)->gors[k].goid &&
				      gh_gor_of(p)->gors[k].goid < 10000000000000000000ull))
			abort();
		k++;
	}
	if (k != gh_gor_of(p)->ngors)
		abort();
}

/* -f list: a line per goroutine, then the note */
static void check_list(const unsigned char *b, size_t n,
		       const goheap_profile *p)
{
	size_t pos = 0, len, k = 0;
	const char *s;

	while (ov_line(b, n, &pos, &s, &len))
		k++;
	if (k != gh_gor_of(p)->ngors + (gh_gor_of(p)->note[0] != '\0'))
		abort();
}

static int gor_same(const goheap_profile *a, const goheap_profile *b)
{
	size_t i, j;

	if (gh_gor_of(a)->ngors != gh_gor_of(b)->ngors)
		return 0;
	for (i = 0; i < gh_gor_of(a)->ngors; i++) {
		const gh_goroutine *x = &gh_gor_of(a)->gors[i], *y = &gh_gor_of(b)->gors[i];

		if (x->addr != y->addr || x->goid != y->goid ||
		    x->status != y->status || x->nstk != y->nstk ||
		    (x->nstk && memcmp(x->stk, y->stk, 8 * x->nstk) != 0) ||
		    x->nlabels != y->nlabels)
			return 0;
		for (j = 0; j < x->nlabels; j++)
			if (x->labels[j].klen != y->labels[j].klen ||
			    x->labels[j].vlen != y->labels[j].vlen ||
			    memcmp(x->labels[j].key, y->labels[j].key,
				   x->labels[j].klen) != 0 ||
			    memcmp(x->labels[j].value, y->labels[j].value,
				   x->labels[j].vlen) != 0)
				return 0;
	}
	return 1;
}

/*
 * A snapshot-mode read of memory that did not change while "running"
 * (no phase-2 patch) against the core-mode read of the same memory: the
 * same goroutines in the same order (the stopped re-read of the running
 * ones dropped and put back in allgs order), the same stacks but for
 * running goroutines (the core's are unwound from its threads'
 * registers, the snapshot's from g.sched: no threads here).
 */
static int gor_same_snap(const goheap_profile *a, const goheap_profile *b)
{
	size_t i;

	if (gh_gor_of(a)->ngors != gh_gor_of(b)->ngors)
		return 0;
	for (i = 0; i < gh_gor_of(a)->ngors; i++) {
		const gh_goroutine *x = &gh_gor_of(a)->gors[i], *y = &gh_gor_of(b)->gors[i];

		if (x->addr != y->addr || x->goid != y->goid ||
		    x->status != y->status || x->nlabels != y->nlabels)
			return 0;
		if (!x->running &&
		    (x->nstk != y->nstk ||
		     (x->nstk && memcmp(x->stk, y->stk, 8 * x->nstk) != 0)))
			return 0;
	}
	return 1;
}

static void write_all(goheap_session *s, const goheap_profile *p)
{
	static const int fmts[] = { GOHEAP_FORMAT_PPROF, GOHEAP_FORMAT_TEXT,
				    GOHEAP_FORMAT_TOP, GOHEAP_FORMAT_COLLAPSED,
				    GOHEAP_FORMAT_TRACEBACK,
				    GOHEAP_FORMAT_LIST };
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
		unsigned char *b = NULL;
		size_t n = 0;
		int rc;

		wo.format = fmts[i];
		wo.top_n = 10;
		rc = goheap_profile_write(s, p, &wo, &b, &n);
		if (gh_gor_of(p)->no_tb && (fmts[i] == GOHEAP_FORMAT_TRACEBACK ||
				     fmts[i] == GOHEAP_FORMAT_LIST)) {
			if (rc != GOHEAP_EINVAL)
				abort();
			continue;
		}
		if (rc != 0) {
			if (getenv("FUZZ_GOR_VERBOSE"))
				fprintf(stderr, "fuzz_gor: format %d: %s\n",
					fmts[i], goheap_errmsg(s));
			if (rc != GOHEAP_ENOMEM)
				abort();
			continue;
		}
		if (getenv("FUZZ_GOR_DUMP") &&
		    fmts[i] == atoi(getenv("FUZZ_GOR_DUMP")))
			fwrite(b, 1, n, stderr);   /* FUZZ_GOR_DUMP=FORMAT */
		switch (fmts[i]) {
		case GOHEAP_FORMAT_PPROF:
			check_pprof(b, n, gh_gor_of(p)->ngors);
			break;
		case GOHEAP_FORMAT_TEXT:
			check_text(b, n, gh_gor_of(p)->ngors);
			break;
		case GOHEAP_FORMAT_COLLAPSED:
			check_collapsed(b, n, gh_gor_of(p)->ngors);
			break;
		case GOHEAP_FORMAT_TRACEBACK:
			check_traceback(b, n, p);
			break;
		case GOHEAP_FORMAT_LIST:
			check_list(b, n, p);
			break;
		}
		goheap_free(b);
	}
}

static void check_profile(const goheap_profile *p)
{
	size_t i;

	if (goheap_profile_nrecords(p) != gh_gor_of(p)->ngors || gh_gor_of(p)->ngors > p->nbuckets)
		abort();
	for (i = 0; i < gh_gor_of(p)->ngors; i++) {
		const gh_goroutine *g = &gh_gor_of(p)->gors[i];

		if (g->nstk > 128 || g->nlabels > GH_GOR_MAX_LABELS ||
		    (!gh_gor_of(p)->no_tb && g->ntb > GH_GOR_MAX_TB_FRAMES))
			abort();
	}
}

/* ---- one input -------------------------------------------------------------------- */

static const uint64_t g_vals[] = {
	0, 1, 2, 3, 4, 6, 8, 9, 0x10, 0x1002, 0x7f, 0x80, 0xff, 0x100,
	0x1000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 1ull << 32,
	1ull << 40, 1ull << 48, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xffffffffffffffffull, 0xfffffffffffffff8ull, 0xc000000000ull,
	0x401000, 4096, 8192, 1 << 20, 12, 11, 5, 7, 1ull << 63 | 0x1000,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static patch ps[MAX_PATCHES];
	static uint8_t scratch[MAX_PATCHES * 8];
	snap *n;
	goheap_session *s;
	goheap_profile *p = NULL, *q = NULL;
	const goheap_memsrc_ops *ops0;
	void *ctx0;
	const gh_memsrc_caps *caps0;
	ov_input in;
	size_t np;
	unsigned flags;
	int rc, phase2;

	if (size < 1)
		return 0;
	flags = data[0];
	n = &g_snaps[(flags & 3) % g_nsnaps];
	s = n->s;
	in.r = n->r;
	in.nr = n->nr;
	in.vals = g_vals;
	in.nvals = sizeof(g_vals) / sizeof(g_vals[0]);
	in.special = R_THREADS;
	in.special_bytes = (uint8_t *)n->regs;
	np = ov_parse(&n->ov, &in, data + 1, size - 1, ps, MAX_PATCHES,
		      scratch, &phase2);
	n->ov.p = ps;
	n->ov.np = np;
	n->ov.phase = 0;
	n->ov.stop_fails = (flags >> 4) & 1;
	n->ov.resume_fails = (flags >> 5) & 1;
	ops0 = s->t.ops;
	ctx0 = s->t.ctx;
	caps0 = s->t.caps;
	if (flags & 8) {
		/* a caller's source that can stop: no built-in abilities
		 * (they take the core's ctx) */
		s->t.ops = &ov_stop_ops;
		s->t.ctx = &n->ov;
		s->t.caps = &gh_no_caps;
	}
	gh_mem_invalidate(&s->t.mem);
	s->t.no_traceback = 0;
	rc = goheap_profile_collect(&p, s, GOHEAP_PROFILE_GOROUTINE);
	if (getenv("FUZZ_GOR_VERBOSE")) {
		size_t lb = 0, nl = 0;

		for (size_t i = 0; p != NULL && i < gh_gor_of(p)->ngors; i++)
			for (size_t j = 0; j < gh_gor_of(p)->gors[i].nlabels; j++, nl++)
				lb += gh_gor_of(p)->gors[i].labels[j].klen +
				      gh_gor_of(p)->gors[i].labels[j].vlen;
		fprintf(stderr, "fuzz_gor: %s: %zu patches, rc %d %s, %zu "
			"goroutines (%zu labels, %zu bytes), note \"%s\"\n",
			n->name, np, rc, rc ? goheap_errmsg(s) : "",
			p ? gh_gor_of(p)->ngors : 0, nl, lb, p ? gh_gor_of(p)->note : "");
	}
	/* the data is bounded (allgs' length, GH_GOR_MAX_*): out of
	 * memory here is a wrong code, not a full heap (libFuzzer's
	 * -malloc_limit_mb would have ended the run first) */
	if (rc == GOHEAP_ENOMEM)
		abort();
	if (rc == 0) {
		check_profile(p);
		write_all(s, p);
	}
	if ((flags & 0x38) == 8) {
		/* snapshot mode, stop and resume fine: if nothing changed
		 * while "running", the core-mode read must agree */
		if (!phase2) {
			goheap_profile *c = NULL;
			int crc;

			s->t.ops = ops0;
			s->t.ctx = ctx0;
			s->t.caps = caps0;
			n->ov.phase = 0;
			gh_mem_invalidate(&s->t.mem);
			crc = goheap_profile_collect(&c, s,
						     GOHEAP_PROFILE_GOROUTINE);
			if (crc != rc || (rc == 0 && !gor_same_snap(p, c)))
				abort();
			goheap_profile_free(c);
			s->t.ops = &ov_stop_ops;
			s->t.ctx = &n->ov;
			s->t.caps = &gh_no_caps;
		}
	}
	if (flags & 4) {
		/* the same memory without tracebacks: the same goroutines */
		n->ov.phase = 0;
		gh_mem_invalidate(&s->t.mem);
		s->t.no_traceback = 1;
		rc = goheap_profile_collect(&q, s, GOHEAP_PROFILE_GOROUTINE);
		s->t.no_traceback = 0;
		if (getenv("FUZZ_GOR_VERBOSE"))
			fprintf(stderr, "fuzz_gor: no_traceback: rc %d %s, %zu "
				"goroutines, note \"%s\"\n", rc,
				rc ? goheap_errmsg(s) : "", q ? gh_gor_of(q)->ngors : 0,
				q ? gh_gor_of(q)->note : "");
		if (rc == GOHEAP_ENOMEM)
			abort();
		if (rc == 0) {
			check_profile(q);
			if (p != NULL && !gor_same(p, q))
				abort();
			write_all(s, q);
		}
	}
	goheap_profile_free(p);
	goheap_profile_free(q);
	s->t.ops = ops0;
	s->t.ctx = ctx0;
	s->t.caps = caps0;
	n->ov.np = 0;
	n->ov.phase = 0;
	if (n->regs != NULL)
		memcpy(n->regs, n->regs0, n->nregs * sizeof(*n->regs));
	gh_mem_invalidate(&s->t.mem);
	return 0;
}

/*
 * fuzz_types.c - libFuzzer harness for the span walker (heapwalk.c, -p
 * types) and its writers (fmt_types.c: top, text, collapsed, pprof,
 * objects), over damaged target memory.
 *
 * The target is real: LLVMFuzzerInitialize opens, once per process, the
 * snapshots seeds.sh leaves under GOHEAP_FUZZ_TYPES (default
 * $GOHEAP_CACHE/fuzz/types): DIR/NAME/{core,typesprog}, gcores of
 * tests/go/typesprog (go1.21: no malloc headers, uintptr indexes; go1.27:
 * headers, Green Tea; go1.26 -unswept: right after an automatic GC, its
 * spans unswept and their mark bits read), each a core session whose
 * reads (s->t.mem) go through an overlay memory source, as fuzz_gor's do:
 * the core's bytes with patches laid over them.  An input is a list of
 * patches, each aimed at one of the target ranges found at start-up:
 *
 *   region 0        mheap_.allspans {ptr, len, cap}
 *   region 1        mheap_.sweepgen
 *   region 2        the allspans array (its first K slots)
 *   region 3        runtime.gcphase (or region 0 again when unknown)
 *   region 4        firstmoduledata's types, etypes
 *   5 + 6*i + j     selected span i (i < K): j = 0 its mspan, 1 its
 *                   allocBits, 2 its gcmarkBits, 3 the end of its page
 *                   (heap bits, Green Tea's inline mark bits; a large
 *                   span: its object's first bytes), 4 its first slot
 *                   (a malloc header), 5 the abi.Type its largeType or
 *                   first header points at (else its mspan again)
 *
 * A typesprog heap has thousands of spans: the overlay's base patches
 * shorten allspans to K (at most 40) of them, the first few and one of
 * each kind (state, span class, unswept, largeType set), so that an input
 * takes about a millisecond.
 *
 * Input: byte 0 flags, then patches until the end (fuzz_gor's format).
 *   flags bit 0-1  which snapshot (modulo their number)
 *         bit 2    also collect -f objects (the walk stopped from the
 *                  start in snapshot mode): its lines must agree
 *         bit 3    snapshot mode: the session's ops can stop; stop turns
 *                  on the patches with the phase bit (what changed while
 *                  the target ran)
 *         bit 4/5  (snapshot mode) stop / resume fail; when neither
 *                  fails and no patch is for phase 2, the core-mode read
 *                  of the same memory must give the same histogram
 *   patch: h (op = h & 3, phase = h >> 2 & 1), region u16, offset u16
 *          (both LE, modulo), then
 *     op 0  n (1..64), n bytes
 *     op 1  value index (the table below), width 1 << (byte & 3)
 *     op 2  region u16, offset u16: that address as an 8-byte word
 *     op 3  a bit index: that bit of the byte at offset flipped
 *
 * What must hold whatever the memory says (abort otherwise): no
 * collection fails with GOHEAP_ENOMEM; the rows sum to the totals;
 * typed <= objects, unreachable <= unswept <= objects, marked + unmarked
 * spans == unswept spans <= spans in use <= allspans' length, at most
 * 1024 objects a span; text's header and rows, collapsed's counts,
 * pprof's samples and -f objects' lines (and its 'u' flags) agree with
 * the totals.  ASan, UBSan and LeakSanitizer catch the rest.
 *
 * With GOHEAP_FUZZ_TYPES_SEEDS=DIR, LLVMFuzzerInitialize writes seed
 * inputs there (clean runs in each mode, a junk header, a span made
 * unswept, its mark bits cleared, a span that changes while running).
 */
#include "overlay.h"

#include <sys/stat.h>

#include "heapwalk.h"
#include "profile.h"
#include "session.h"

#define MAX_SNAPS 4
#define MAX_K 40
#define NFIXED 5
#define PER_S 6
#define MAX_PATCHES 256
#define SCAN_SPANS 200000u

enum { R_ALLSPANS, R_SWEEPGEN, R_ARRAY, R_GCPHASE, R_MODULE };
enum { S_SPAN, S_ALLOC, S_MARK, S_TAIL, S_OBJ, S_TYPE };

typedef struct snap {
	char name[64];
	goheap_session *s;
	overlay ov;
	region r[NFIXED + PER_S * MAX_K];
	size_t nr, k;
	uint64_t sps[MAX_K];
	uint8_t lenw[8], arrw[8 * MAX_K];
	patch base[2];
} snap;

static snap g_snaps[MAX_SNAPS];
static size_t g_nsnaps;

/* ---- start-up: the snapshots and their regions --------------------------------- */

static void set_region(snap *n, size_t i, uint64_t addr, uint64_t len)
{
	if (len == 0 || len > 4096)
		len = len == 0 ? 8 : 4096;
	n->r[i].addr = addr;
	n->r[i].len = (uint32_t)len;
}

static uint64_t rdw(snap *n, uint64_t addr, unsigned size, int *ok)
{
	uint64_t v = 0;

	if (gh_mem_read_uint(&n->s->t.mem, addr, size, &v, "fuzz") != 0)
		*ok = 0;
	return v;
}

static int open_snap(snap *n, const char *dir, const char *name)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_profile *p = NULL;
	const gh_rtlayout *l;
	char core[4096], exe[4096];
	uint64_t mheap, arr, len, i, keys[MAX_K], md;
	size_t nk = 0, j;
	int rc, ok = 1;

	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(core, sizeof(core), "%s/%s/core", dir, name);
	snprintf(exe, sizeof(exe), "%s/%s/typesprog", dir, name);
	rc = goheap_open_core(&n->s, core, exe, &o);
	if (rc != 0) {
		fprintf(stderr, "fuzz_types: %s: %s\n", core,
			n->s ? goheap_errmsg(n->s) : goheap_strerror(rc));
		goheap_close(n->s);
		n->s = NULL;
		return -1;
	}
	l = n->s->t.lay;
	n->ov.ops = n->s->t.ops;
	n->ov.ctx = n->s->t.ctx;
	n->s->t.mem.ops = &ov_ops;
	n->s->t.mem.ctx = &n->ov;
	mheap = n->s->t.addrs.mheap;
	if (mheap == 0 || !l->heap_verified) {
		fprintf(stderr, "fuzz_types: %s: no runtime.mheap_\n", exe);
		return -1;
	}
	arr = rdw(n, mheap + l->mh_allspans, 8, &ok);
	len = rdw(n, mheap + l->mh_allspans + 8, 8, &ok);
	if (!ok || len == 0 ||
	    goheap_profile_collect(&p, n->s, GOHEAP_PROFILE_TYPES) != 0) {
		fprintf(stderr, "fuzz_types: %s: clean collection failed: %s\n",
			core, goheap_errmsg(n->s));
		goheap_profile_free(p);
		return -1;
	}
	goheap_profile_free(p);
	/* the spans: the first 4, then one of each kind */
	for (i = 0; i < len && i < SCAN_SPANS && n->k < MAX_K; i++) {
		uint64_t sp = rdw(n, arr + 8 * i, 8, &ok), key;
		uint32_t sg, hsg;

		if (!ok)
			return -1;
		hsg = (uint32_t)rdw(n, mheap + l->mh_sweepgen, 4, &ok);
		sg = (uint32_t)rdw(n, sp + l->ms_sweepgen, 4, &ok);
		key = rdw(n, sp + l->ms_state, 1, &ok) |
		      rdw(n, sp + l->ms_spanclass, 1, &ok) << 8 |
		      (uint64_t)(sg == hsg - 2 || sg == hsg + 1) << 16 |
		      (uint64_t)(l->ms_largetype != 0 &&
				 rdw(n, sp + l->ms_largetype, 8, &ok) != 0)
		      << 17;
		if (!ok)
			continue;
		for (j = 0; j < nk && keys[j] != key; j++)
			;
		if (i >= 4 && j < nk)
			continue;
		if (j == nk)
			keys[nk++] = key;
		n->sps[n->k++] = sp;
	}
	for (i = 0; i < n->k; i++)
		for (int b = 0; b < 8; b++)
			n->arrw[8 * i + b] = (uint8_t)(n->sps[i] >> (8 * b));
	for (int b = 0; b < 8; b++)
		n->lenw[b] = (uint8_t)((uint64_t)n->k >> (8 * b));
	n->base[0] = (patch){ mheap + l->mh_allspans + 8, 8, n->lenw, 0 };
	n->base[1] = (patch){ arr, 8 * n->k, n->arrw, 0 };
	n->ov.base = n->base;
	n->ov.nbase = 2;
	gh_mem_invalidate(&n->s->t.mem);

	set_region(n, R_ALLSPANS, mheap + l->mh_allspans, 24);
	set_region(n, R_SWEEPGEN, mheap + l->mh_sweepgen, 4);
	set_region(n, R_ARRAY, arr, 8 * n->k);
	if (n->s->t.addrs.gcphase != 0)
		set_region(n, R_GCPHASE, n->s->t.addrs.gcphase, 4);
	else
		n->r[R_GCPHASE] = n->r[R_ALLSPANS];
	md = gh_sym_moduledata(n->s->t.sym);
	if (md != 0)
		set_region(n, R_MODULE, md + n->s->t.bias + l->md_types, 16);
	else
		n->r[R_MODULE] = n->r[R_ALLSPANS];
	for (i = 0; i < n->k; i++) {
		size_t r0 = NFIXED + PER_S * i;
		uint64_t sp = n->sps[i], base, npages, nelems, ab, mb, lt, h;
		unsigned sc;

		ok = 1;
		set_region(n, r0 + S_SPAN, sp, l->ms_size);
		for (j = 1; j < PER_S; j++)
			n->r[r0 + j] = n->r[r0];
		base = rdw(n, sp + l->ms_startaddr, 8, &ok);
		npages = rdw(n, sp + l->ms_npages, 8, &ok);
		nelems = rdw(n, sp + l->ms_nelems, l->ms_idx_size, &ok);
		ab = rdw(n, sp + l->ms_allocbits, 8, &ok);
		mb = rdw(n, sp + l->ms_gcmarkbits, 8, &ok);
		sc = (unsigned)rdw(n, sp + l->ms_spanclass, 1, &ok) >> 1;
		lt = l->ms_largetype != 0 ?
		     rdw(n, sp + l->ms_largetype, 8, &ok) : 0;
		if (!ok || base == 0 || npages == 0 || npages > 1u << 20)
			continue;
		nelems = nelems == 0 || nelems > 1024 ? 1 : nelems;
		if (ab != 0)
			set_region(n, r0 + S_ALLOC, ab, (nelems + 7) / 8);
		if (mb != 0)
			set_region(n, r0 + S_MARK, mb, (nelems + 7) / 8);
		if (sc != 0)
			set_region(n, r0 + S_TAIL, base + npages * 8192 - 512,
				   512);
		else
			set_region(n, r0 + S_TAIL, base, 64);
		set_region(n, r0 + S_OBJ, base, 64);
		h = lt != 0 ? lt : rdw(n, base, 8, &ok);
		if (ok && h != 0 && h % 8 == 0 &&
		    gh_mem_read_uint(&n->s->t.mem, h, 8, &mb, "fuzz") == 0)
			set_region(n, r0 + S_TYPE, h, 64);
	}
	n->nr = NFIXED + PER_S * n->k;
	fprintf(stderr, "fuzz_types: %s: %zu spans of %llu, %zu regions\n",
		name, n->k, (unsigned long long)len, n->nr);
	return 0;
}

/* ---- seeds --------------------------------------------------------------------- */

static void write_seeds(const char *dir)
{
	size_t si;

	mkdir(dir, 0777);
	for (si = 0; si < g_nsnaps; si++) {
		const snap *n = &g_snaps[si];
		const gh_rtlayout *l = n->s->t.lay;
		size_t S = NFIXED + PER_S * (n->k / 2);
		char name[128];
		seedw w;
		unsigned f;

		for (f = 0; f < 16; f += 4) {   /* bits 2, 3 */
			w.n = 0;
			w.b[w.n++] = (uint8_t)(si | f);
			snprintf(name, sizeof(name), "%s-clean-%u", n->name, f);
			sw_put(dir, name, &w);
		}
		/* a span's first slot's header pointing at an mspan */
		w.n = 0;
		w.b[w.n++] = (uint8_t)(si | 4);
		sw_ptr(&w, S + S_OBJ, 0, NFIXED + S_SPAN, 0);
		snprintf(name, sizeof(name), "%s-junk-header", n->name);
		sw_put(dir, name, &w);
		/* mheap_.sweepgen + 2: every span unswept, the marks read;
		 * a mark bitmap cleared */
		w.n = 0;
		w.b[w.n++] = (uint8_t)(si | 4);
		{
			int ok = 1;
			uint32_t hsg = (uint32_t)rdw((snap *)n,
						     n->r[R_SWEEPGEN].addr, 4,
						     &ok) + 2;

			sw_bytes(&w, R_SWEEPGEN, 0, &hsg, 4, 0);
		}
		sw_val(&w, S + S_MARK, 0, 0, 3, 0);
		snprintf(name, sizeof(name), "%s-unswept", n->name);
		sw_put(dir, name, &w);
		/* a span whose freeindex and allocBits change while running */
		w.n = 0;
		w.b[w.n++] = (uint8_t)(si | 8 | 4);
		sw_val(&w, S + S_SPAN, l->ms_freeindex, 1, 0, 1);
		sw_val(&w, S + S_ALLOC, 0, 12, 0, 1);
		snprintf(name, sizeof(name), "%s-snap-changed", n->name);
		sw_put(dir, name, &w);
		/* allspans' length beyond the array, a span pointer zeroed */
		w.n = 0;
		w.b[w.n++] = (uint8_t)si;
		sw_val(&w, R_ALLSPANS, 8, 14, 1, 0);
		sw_val(&w, R_ARRAY, 8, 0, 3, 0);
		snprintf(name, sizeof(name), "%s-allspans", n->name);
		sw_put(dir, name, &w);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir, *seeds;
	char def[4096], *names[64];
	size_t nn, i;

	(void)argc;
	(void)argv;
	dir = ov_snap_dir("GOHEAP_FUZZ_TYPES", "types", def, sizeof(def));
	nn = ov_snap_names(dir, "", names, 64);
	for (i = 0; i < nn; i++) {
		if (g_nsnaps < MAX_SNAPS && names[i] != NULL &&
		    open_snap(&g_snaps[g_nsnaps], dir, names[i]) == 0)
			g_nsnaps++;
		else if (names[i] != NULL && g_snaps[g_nsnaps].s != NULL) {
			goheap_close(g_snaps[g_nsnaps].s);
			g_snaps[g_nsnaps].s = NULL;
		}
		free(names[i]);
	}
	if (g_nsnaps == 0) {
		fprintf(stderr, "fuzz_types: no snapshot under %s "
			"(GOHEAP_FUZZ_TYPES; tests/fuzz/seeds.sh makes them)\n",
			dir);
		exit(1);
	}
	seeds = getenv("GOHEAP_FUZZ_TYPES_SEEDS");
	if (seeds != NULL && seeds[0] != '\0')
		write_seeds(seeds);
	return 0;
}

/* ---- checks -------------------------------------------------------------------- */

static void check_types(const gh_types *t)
{
	uint64_t o = 0, b = 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->e[i].name == NULL || t->e[i].shape == NULL)
			abort();
		o += t->e[i].objects;
		b += t->e[i].bytes;
	}
	if (o != t->objects || b != t->bytes ||
	    t->typed_objects > t->objects || t->typed_bytes > t->bytes ||
	    t->unswept_objects > t->objects || t->unswept_bytes > t->bytes ||
	    t->unreach_objects > t->unswept_objects ||
	    t->unreach_bytes > t->unswept_bytes ||
	    t->marked_spans + t->unmarked_spans != t->unswept_spans ||
	    t->unswept_spans > t->spans_inuse ||
	    t->spans_inuse > t->spans || t->spans > GH_TYPES_MAX_SPANS ||
	    t->objects > t->spans_inuse * 1024 ||
	    t->foreign > t->objects || t->unnamed > t->typed_objects) {
		if (getenv("FUZZ_TYPES_VERBOSE"))
			fprintf(stderr, "fuzz_types: rows %llu %llu, objects "
				"%llu bytes %llu typed %llu unswept %llu/%llu "
				"unreach %llu/%llu spans %llu/%llu/%llu "
				"marked %llu unmarked %llu foreign %llu\n",
				(unsigned long long)o, (unsigned long long)b,
				(unsigned long long)t->objects,
				(unsigned long long)t->bytes,
				(unsigned long long)t->typed_objects,
				(unsigned long long)t->unswept_objects,
				(unsigned long long)t->unswept_bytes,
				(unsigned long long)t->unreach_objects,
				(unsigned long long)t->unreach_bytes,
				(unsigned long long)t->unswept_spans,
				(unsigned long long)t->spans_inuse,
				(unsigned long long)t->spans,
				(unsigned long long)t->marked_spans,
				(unsigned long long)t->unmarked_spans,
				(unsigned long long)t->foreign);
		abort();
	}
}

/* "# objects N, bytes B ..." and rows "objects\tbytes\t..." */
static void check_text(const unsigned char *b, size_t n, const gh_types *t)
{
	static const char head[] = "# objects ";
	size_t pos = 0, len, u, u2;
	uint64_t so = 0, sb = 0, v;
	const char *s;
	int seen = 0;

	while (ov_line(b, n, &pos, &s, &len)) {
		if (len > sizeof(head) - 1 &&
		    memcmp(s, head, sizeof(head) - 1) == 0 && !seen) {
			seen = 1;
			v = ov_dec(s + 10, len - 10, &u);
			if (v != t->objects || 10 + u + 8 > len ||
			    memcmp(s + 10 + u, ", bytes ", 8) != 0 ||
			    ov_dec(s + 18 + u, len - 18 - u, &u2) != t->bytes)
				abort();
			continue;
		}
		v = ov_dec(s, len, &u);
		if (u == 0 || u >= len || s[u] != '\t')
			continue;
		so += v;
		sb += ov_dec(s + u + 1, len - u - 1, &u2);
	}
	if (!seen || so != t->objects || sb != t->bytes)
		abort();
}

static void check_collapsed(const unsigned char *b, size_t n,
			    const gh_types *t)
{
	size_t pos = 0, len, u;
	uint64_t sum = 0;
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
	if (sum != t->objects)
		abort();
}

/* -f objects: a line per object, "u" in the fifth column for each
 * unreachable one */
static void check_objects(const unsigned char *b, size_t n,
			  const gh_types *t)
{
	size_t pos = 0, len, k = 0, nu = 0;
	const char *s;

	while (ov_line(b, n, &pos, &s, &len)) {
		int col = 0;

		k++;
		for (size_t i = 0; i < len; i++)
			if (s[i] == ' ' && ++col == 4) {
				if (i + 2 >= len || s[i + 2] != ' ' ||
				    (s[i + 1] != 'u' && s[i + 1] != 'r' &&
				     s[i + 1] != '-'))
					abort();
				nu += s[i + 1] == 'u';
				break;
			}
		if (col < 4)
			abort();
	}
	if (k != t->objects || nu != t->unreach_objects)
		abort();
}

static void write_all(goheap_session *s, const goheap_profile *p)
{
	static const int fmts[] = { GOHEAP_FORMAT_PPROF, GOHEAP_FORMAT_TEXT,
				    GOHEAP_FORMAT_TOP,
				    GOHEAP_FORMAT_COLLAPSED };
	const gh_types *t = gh_types_of(p);
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
		unsigned char *b = NULL;
		size_t n = 0, ns = 0;
		uint64_t total = 0;
		int rc;

		wo.format = fmts[i];
		wo.top_n = 5;
		rc = goheap_profile_write(s, p, &wo, &b, &n);
		if (rc != 0) {
			if (rc != GOHEAP_ENOMEM)
				abort();
			continue;
		}
		switch (fmts[i]) {
		case GOHEAP_FORMAT_PPROF:
			if (fuzz_check_pprof(b, n, &ns, &total) == 0 &&
			    (ns != t->n || total != t->objects + t->bytes))
				abort();
			break;
		case GOHEAP_FORMAT_TEXT:
			check_text(b, n, t);
			break;
		case GOHEAP_FORMAT_COLLAPSED:
			check_collapsed(b, n, t);
			break;
		}
		goheap_free(b);
	}
}

static int same(const gh_types *a, const gh_types *b)
{
	return a->objects == b->objects && a->bytes == b->bytes &&
	       a->typed_objects == b->typed_objects &&
	       a->unswept_objects == b->unswept_objects &&
	       a->unreach_objects == b->unreach_objects &&
	       a->unreach_bytes == b->unreach_bytes &&
	       a->bad_spans == b->bad_spans &&
	       a->spans_inuse == b->spans_inuse;
}

/* ---- one input ------------------------------------------------------------------ */

static const uint64_t g_vals[] = {
	0, 1, 2, 3, 4, 6, 8, 9, 0x10, 0x1002, 0x7f, 0x80, 0xff, 0x100,
	0x1000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 1ull << 32,
	1ull << 40, 1ull << 48, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xffffffffffffffffull, 0xfffffffffffffff8ull, 0xc000000000ull,
	0x401000, 4096, 8192, 1 << 20, 12, 11, 5, 7, 1ull << 63 | 0x1000,
	1024, 1025, 512, 513, 0x2000 - 128,
};

/* goheap_profile_collect_write -f objects; its lines against t (NULL:
 * only that it does not crash) */
static void objects_run(goheap_session *s, const gh_types *t)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	unsigned char *b = NULL;
	size_t n = 0;
	goheap_profile *q = NULL;
	int rc;

	wo.format = GOHEAP_FORMAT_OBJECTS;
	gh_mem_invalidate(&s->t.mem);
	rc = goheap_profile_collect_write(s, GOHEAP_PROFILE_TYPES, &wo, &b, &n,
					  NULL);
	if (rc == GOHEAP_ENOMEM)
		abort();
	if (rc == 0 && t != NULL)
		check_objects(b, n, t);
	goheap_free(b);
	(void)q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static patch ps[MAX_PATCHES];
	static uint8_t scratch[MAX_PATCHES * 8];
	snap *n;
	goheap_session *s;
	goheap_profile *p = NULL;
	const goheap_memsrc_ops *ops0;
	void *ctx0;
	const gh_memsrc_caps *caps0;
	ov_input in;
	size_t np, i;
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
	in.special = SIZE_MAX;
	in.special_bytes = NULL;
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
		s->t.ops = &ov_stop_ops;
		s->t.ctx = &n->ov;
		s->t.caps = &gh_no_caps;
	}
	gh_mem_invalidate(&s->t.mem);
	rc = goheap_profile_collect(&p, s, GOHEAP_PROFILE_TYPES);
	if (getenv("FUZZ_TYPES_VERBOSE"))
		fprintf(stderr, "fuzz_types: %s: %zu patches, rc %d %s, %llu "
			"objects, %llu bad spans\n", n->name, np, rc,
			rc ? goheap_errmsg(s) : "",
			p && gh_types_of(p) ? (unsigned long long)gh_types_of(p)->objects : 0,
			p && gh_types_of(p) ? (unsigned long long)gh_types_of(p)->bad_spans :
					0);
	/* the data is bounded (K spans of at most 1024 objects, the name
	 * and row bounds): out of memory is a wrong code here */
	if (rc == GOHEAP_ENOMEM)
		abort();
	if (rc == 0) {
		if (gh_types_of(p) == NULL)
			abort();
		check_types(gh_types_of(p));
		write_all(s, p);
	}
	if ((flags & 0x38) == 8 && !phase2) {
		/* snapshot mode, stop and resume fine, nothing changed while
		 * "running": the core-mode read must agree */
		goheap_profile *c = NULL;
		int crc;

		s->t.ops = ops0;
		s->t.ctx = ctx0;
		s->t.caps = caps0;
		n->ov.phase = 0;
		gh_mem_invalidate(&s->t.mem);
		crc = goheap_profile_collect(&c, s, GOHEAP_PROFILE_TYPES);
		if (crc != rc || (rc == 0 && !same(gh_types_of(p), gh_types_of(c)))) {
			if (getenv("FUZZ_TYPES_VERBOSE") && rc == 0 && crc == 0)
				fprintf(stderr, "fuzz_types: snapshot %llu %llu "
					"%llu bad %llu, core %llu %llu %llu "
					"bad %llu\n",
					(unsigned long long)gh_types_of(p)->objects,
					(unsigned long long)gh_types_of(p)->bytes,
					(unsigned long long)gh_types_of(p)->unreach_objects,
					(unsigned long long)gh_types_of(p)->bad_spans,
					(unsigned long long)gh_types_of(c)->objects,
					(unsigned long long)gh_types_of(c)->bytes,
					(unsigned long long)gh_types_of(c)->unreach_objects,
					(unsigned long long)gh_types_of(c)->bad_spans);
			abort();
		}
		goheap_profile_free(c);
		s->t.ops = &ov_stop_ops;
		s->t.ctx = &n->ov;
		s->t.caps = &gh_no_caps;
	}
	if (flags & 4) {
		/* -f objects: the walk stopped from the start (phase 2 in
		 * snapshot mode); against p when the memory is p's */
		n->ov.phase = 0;
		n->ov.stop_fails = 0;
		n->ov.resume_fails = 0;
		objects_run(s, rc == 0 && !phase2 ? gh_types_of(p) : NULL);
	}
	goheap_profile_free(p);
	s->t.ops = ops0;
	s->t.ctx = ctx0;
	s->t.caps = caps0;
	n->ov.np = 0;
	n->ov.phase = 0;
	gh_mem_invalidate(&s->t.mem);
	(void)i;
	return 0;
}

/*
 * fmt_text.c - the debug=1 text of runtime/pprof, per target Go version.
 *
 * gh_write_text reproduces what `pprof.Lookup(name).WriteTo(w, 1)` prints
 * inside the target: writeHeapInternal for heap/allocs and
 * writeProfileInternal for block/mutex (src/runtime/pprof/pprof.go).  The
 * output must match byte for byte, so each step follows the Go source of
 * the target's version:
 *
 *   - the sort: sort.Slice (<= 1.22) or slices.SortFunc (1.23+), both
 *     unstable, ported in gosort.c and fed the records in bucket order;
 *     heap sorts by InUseBytes descending up to 1.22 and ascending in
 *     1.23/1.24 (the slices.SortFunc conversion uses cmp.Compare(a, b));
 *     block/mutex sort by Cycles descending in every version;
 *   - the header: the "allocBytes+1 when equal to inUseBytes" adjustment
 *     exists in 1.21+ but not in 1.19;
 *   - printStackRecord: Frame.Function is the raw symbol name in 1.19 and
 *     funcNameForPrint's ("[...]") from 1.21; leading frames whose name
 *     starts with "runtime." are hidden, and from 1.24 also
 *     "internal/runtime/";
 *   - runtime.CallersFrames synthesises missing inlined callers only from
 *     1.23 (symtab.go: ci.nextPC); 1.19-1.22 report one frame per PC;
 *   - block/mutex 1.23+ print the stack after expandInlinedFrames.
 *
 * Everything goes through a text/tabwriter port (tabwriter.c) set up as Go
 * does.  For heap Go wraps bufio around the output and the tabwriter
 * around that; for block/mutex the tabwriter wraps the raw writer (the
 * bufio.Writer is created but never written).  Both give the same bytes.
 *
 * The runtime.MemStats trailer of the heap text is left out on purpose: it
 * needs runtime.ReadMemStats, a stop-the-world call that flushes every
 * mcache, which cannot be reproduced from outside without writing to the
 * target; approximate numbers would look authoritative and be wrong.
 *
 * The file also holds the per-PC frame cache (gh_stackx, declared in
 * profile.h) that the top and collapsed writers share.  A stack's frames
 * are not a pure function of each PC: in 1.23+ the inlined callers of a
 * PC are synthesised only when the *next* PC is not already their virtual
 * PC.  The cache therefore stores, per PC, the full chain CallersFrames
 * gives for [pc, invalid] (innermost frame, then every synthesised caller
 * with its virtual PC - 1), and a stack is assembled by cutting each chain
 * where the next PC takes over, as Frames.Next does.  Caching whole
 * stacks instead was rejected: heap buckets are keyed by (stack, size), so
 * almost every stack is distinct while their PCs repeat heavily.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "gosort.h"
#include "profile.h"
#include "tabwriter.h"

/* ---- version rules ------------------------------------------------------- */


/*
 * profstackdepth's default (Go 1.23 src/runtime/runtime1.go): the size of
 * the buffer expandInlinedFrames fills.  The target's GODEBUG setting is
 * not read; it only matters for stacks deeper than 128 frames.
 */
#define GH_PROFSTACKDEPTH 128

/* runtime.MemProfileRecord.Stack0 / BlockProfileRecord.Stack0 length. */
#define GH_STACK0_LEN 32

/* ---- the frame cache (gh_stackx) ----------------------------------------- */

typedef struct stackx_ent {
	uint64_t pc;
	uint32_t off, len;    /* chain in x->pool */
	const char *ffpc;     /* FuncForPC(pc).Name(), raw */
	int have_chain, have_ffpc;
} stackx_ent;

struct gh_stackx {
	const gh_sym *sym;
	const gh_rtlayout *rt;
	int synth;            /* CallersFrames synthesises callers (1.23+) */
	stackx_ent *ents;
	size_t nents, capents;
	uint32_t *slots;      /* open addressing: ent index + 1, 0 = empty */
	size_t nslots;        /* power of two */
	gh_frame *pool;
	size_t npool, cappool;
	gh_framevec tmp;
};

static uint64_t hash_pc(uint64_t pc)
{
	pc ^= pc >> 33;
	pc *= 0xff51afd7ed558ccdULL;
	pc ^= pc >> 33;
	return pc;
}

int gh_stackx_new(gh_stackx **out, const gh_sym *sym, gh_gover ver)
{
	gh_stackx *x = NULL;

	*out = NULL;
	x = gh_calloc(1, sizeof(*x));
	if (x == NULL)
		return GOHEAP_ENOMEM;
	x->sym = sym;
	x->rt = gh_rtlayout_rules(ver);
	x->synth = x->rt->full_stacks;
	x->nslots = 1024;
	x->slots = gh_calloc(x->nslots, sizeof(*x->slots));
	if (x->slots == NULL) {
		gh_stackx_free(x);
		return GOHEAP_ENOMEM;
	}
	*out = x;
	return 0;
}

size_t gh_stackx_suspect(const gh_stackx *x)
{
	return x != NULL ? x->tmp.suspect : 0;
}

void gh_stackx_free(gh_stackx *x)
{
	if (x == NULL)
		return;
	free(x->ents);
	free(x->slots);
	free(x->pool);
	gh_framevec_free(&x->tmp);
	free(x);
}

static int stackx_rehash(gh_stackx *x)
{
	size_t n = x->nslots * 2, i, h;
	uint32_t *s = gh_calloc(n, sizeof(*s));

	if (s == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < x->nents; i++) {
		h = (size_t)hash_pc(x->ents[i].pc) & (n - 1);
		while (s[h] != 0)
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)(i + 1);
	}
	free(x->slots);
	x->slots = s;
	x->nslots = n;
	return 0;
}

/* The cache entry of pc, created empty if missing; NULL on ENOMEM. */
static stackx_ent *stackx_ent_get(gh_stackx *x, uint64_t pc)
{
	size_t h = (size_t)hash_pc(pc) & (x->nslots - 1);
	stackx_ent *e;

	while (x->slots[h] != 0) {
		e = &x->ents[x->slots[h] - 1];
		if (e->pc == pc)
			return e;
		h = (h + 1) & (x->nslots - 1);
	}
	if (x->nents == x->capents) {
		size_t ncap = x->capents ? x->capents * 2 : 256;
		stackx_ent *ne = gh_reallocarray(x->ents, ncap, sizeof(*ne));

		if (ne == NULL || ncap > UINT32_MAX - 1) {
			if (ne != NULL)
				x->ents = ne;
			return NULL;
		}
		x->ents = ne;
		x->capents = ncap;
	}
	e = &x->ents[x->nents];
	memset(e, 0, sizeof(*e));
	e->pc = pc;
	x->slots[h] = (uint32_t)(x->nents + 1);
	x->nents++;
	/* Keep the load factor under one half. */
	if (x->nents * 2 > x->nslots && stackx_rehash(x) != 0)
		return NULL;
	return &x->ents[x->nents - 1];
}

/*
 * Fill e's chain: CallersFrames([pc, 0]).  The second, invalid PC keeps
 * "more callers follow" true, so Go 1.23's Next synthesises every inlined
 * caller of pc; the invalid PC itself yields no frame (gh_sym reports it
 * with an empty name, which is dropped here as Go drops it).
 */
static int stackx_chain(gh_stackx *x, stackx_ent *e)
{
	uint64_t pcs[2] = { e->pc, 0 };
	size_t i, need;
	int rc;

	x->tmp.n = 0;
	rc = gh_sym_callers_frames(x->sym, pcs, 2, &x->tmp);
	if (rc != 0)
		return rc;
	need = x->npool + x->tmp.n;
	if (need > UINT32_MAX)
		return GOHEAP_ENOMEM;
	if (need > x->cappool) {
		size_t ncap = x->cappool ? x->cappool * 2 : 1024;
		gh_frame *np;

		while (ncap < need)
			ncap *= 2;
		np = gh_reallocarray(x->pool, ncap, sizeof(*np));
		if (np == NULL)
			return GOHEAP_ENOMEM;
		x->pool = np;
		x->cappool = ncap;
	}
	e->off = (uint32_t)x->npool;
	for (i = 0; i < x->tmp.n; i++) {
		const gh_frame *f = &x->tmp.v[i];

		if (f->function == NULL || f->function[0] == '\0')
			continue;
		x->pool[x->npool++] = *f;
	}
	e->len = (uint32_t)(x->npool - e->off);
	e->have_chain = 1;
	return 0;
}

static int framevec_push(gh_framevec *fv, const gh_frame *f)
{
	if (fv->n == fv->cap) {
		size_t ncap = fv->cap ? fv->cap * 2 : 64;
		gh_frame *nv = gh_reallocarray(fv->v, ncap, sizeof(*nv));

		if (nv == NULL)
			return GOHEAP_ENOMEM;
		fv->v = nv;
		fv->cap = ncap;
	}
	fv->v[fv->n++] = *f;
	return 0;
}

int gh_stackx_frames(gh_stackx *x, const uint64_t *pcs, size_t n, int mode,
		     gh_framevec *out)
{
	size_t i, j, off, len;
	stackx_ent *e;
	int rc, last, whole;

	out->n = 0;
	for (i = 0; i < n; i++) {
		e = stackx_ent_get(x, pcs[i]);
		if (e == NULL)
			return GOHEAP_ENOMEM;
		if (!e->have_chain) {
			rc = stackx_chain(x, e);
			if (rc != 0)
				return rc;
		}
		/* Copy: the pool may move while later PCs are added. */
		off = e->off;
		len = e->len;
		if (len == 0)
			continue;
		rc = framevec_push(out, &x->pool[off]);
		if (rc != 0)
			return rc;
		last = i + 1 == n;
		/*
		 * Frames.Next (1.23+) synthesises callers only while more
		 * input PCs follow, and stops at the first caller whose
		 * virtual PC is the next input; appendLocsForStack expands
		 * the last PC fully (expandFinalInlineFrame).
		 */
		whole = last && mode == GH_STACKX_PROTO;
		if (!whole && !(x->synth && !last))
			continue;
		for (j = 1; j < len; j++) {
			if (!last && pcs[i + 1] == x->pool[off + j].pc + 1)
				break;
			rc = framevec_push(out, &x->pool[off + j]);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

int gh_stackx_is_runtime(const gh_stackx *x, const char *name)
{
	if (strncmp(name, "runtime.", 8) == 0)
		return 1;
	/* Go 1.24 pprof.go printStackRecord and protomem.go. */
	return x->rt->hide_internal_runtime &&
	       strncmp(name, "internal/runtime/", 17) == 0;
}

size_t gh_stackx_skip_runtime(gh_stackx *x, const uint64_t *pcs, size_t n)
{
	stackx_ent *e;
	size_t i;

	for (i = 0; i < n; i++) {
		e = stackx_ent_get(x, pcs[i]);
		if (e == NULL)
			return 0;
		if (!e->have_ffpc) {
			e->ffpc = gh_sym_funcforpc_name(x->sym, pcs[i]);
			e->have_ffpc = 1;
		}
		if (e->ffpc != NULL && gh_stackx_is_runtime(x, e->ffpc))
			continue;
		return i;
	}
	/* All runtime: protomem.go keeps the whole stack. */
	return 0;
}

/* ---- line building --------------------------------------------------------- */

/* gh_buf_putc without the call when there is room: the hot path. */
static void put_c(gh_buf *b, char ch)
{
	if (b->len < b->cap) {
		b->data[b->len++] = (unsigned char)ch;
		return;
	}
	gh_buf_putc(b, ch);
}

static void put_str(gh_buf *b, const char *s)
{
	gh_buf_append(b, s, strlen(s));
}

/* Go's %#x of a uintptr: always "0x", lowercase, "0x0" for zero. */
static void put_hex(gh_buf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	gh_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* Go's %d (and %v) of an int64. */
static void put_dec(gh_buf *b, int64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		tmp[--i] = '-';
	gh_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* ---- printStackRecord ------------------------------------------------------ */

typedef struct text_ctx {
	const gh_profile *p;
	gh_stackx *x;
	gh_tabwriter tw;
	gh_buf line;          /* one line, handed to the tabwriter */
	gh_framevec frames;
	int print_names;      /* Frame.Function is funcNameForPrint (1.21+) */
	char namebuf[4096];
} text_ctx;

static void tw_line(text_ctx *c)
{
	if (c->line.oom) {
		c->tw.oom = 1;
		return;
	}
	gh_tabwriter_write(&c->tw, c->line.data, c->line.len);
	c->line.len = 0;
}

static const char *frame_function(text_ctx *c, const char *raw)
{
	if (!c->print_names || strchr(raw, '[') == NULL)
		return raw;
	return gh_func_name_for_print(raw, c->namebuf, sizeof(c->namebuf));
}

/*
 * printStackRecord (pprof.go).  An empty frame list is what Go sees when
 * every PC is unknown (or the stack is empty): Next returns a zero Frame,
 * whose empty Function prints as "#\t0x0".
 */
static int print_stack_record(text_ctx *c, const uint64_t *stk, size_t n,
			      int all_frames)
{
	const gh_frame *f;
	const char *name;
	int show = all_frames, rc;
	size_t i;

	rc = gh_stackx_frames(c->x, stk, n, GH_STACKX_CALLERS, &c->frames);
	if (rc != 0)
		return rc;
	if (c->frames.n == 0) {
		show = 1;
		put_str(&c->line, "#\t0x0\n");
		tw_line(c);
	}
	for (i = 0; i < c->frames.n; i++) {
		f = &c->frames.v[i];
		name = frame_function(c, f->function);
		if (strcmp(name, "runtime.goexit") == 0)
			continue;
		if (!show && gh_stackx_is_runtime(c->x, name))
			continue;
		show = 1;
		put_str(&c->line, "#\t");
		put_hex(&c->line, f->pc);
		put_c(&c->line, '\t');
		put_str(&c->line, name);
		put_c(&c->line, '+');
		put_hex(&c->line, f->pc - f->entry);
		put_c(&c->line, '\t');
		put_str(&c->line, f->file);
		put_c(&c->line, ':');
		put_dec(&c->line, f->line);
		put_c(&c->line, '\n');
		tw_line(c);
	}
	if (!show)
		return print_stack_record(c, stk, n, 1);
	put_c(&c->line, '\n');
	tw_line(c);
	return 0;
}

/* Record.Stack() of Go <= 1.22: Stack0 up to the first zero. */
static size_t stack0_len(const gh_profile *p, const gh_record *r)
{
	size_t i, n = r->nstk;

	if (gh_profile_rt(p)->full_stacks)
		return n;
	if (n > GH_STACK0_LEN)
		n = GH_STACK0_LEN;
	for (i = 0; i < n; i++)
		if (r->stk[i] == 0)
			return i;
	return n;
}

int gh_stackx_sample_frames(gh_stackx *x, const gh_profile *p,
			    const gh_record *r, gh_framevec *out)
{
	size_t n = stack0_len(p, r), skip = 0;
	int rc;

	if (p->kind == GOHEAP_PROFILE_HEAP || p->kind == GOHEAP_PROFILE_ALLOCS)
		skip = gh_stackx_skip_runtime(x, r->stk, n);
	if (n == 0) {
		out->n = 0;
		return 0;
	}
	rc = gh_stackx_frames(x, r->stk + skip, n - skip, GH_STACKX_PROTO, out);
	/* 1.23+ block/mutex: expandInlinedFrames keeps profstackdepth. */
	if (rc == 0 && p->kind != GOHEAP_PROFILE_HEAP &&
	    p->kind != GOHEAP_PROFILE_ALLOCS && gh_profile_rt(p)->full_stacks &&
	    out->n > GH_PROFSTACKDEPTH)
		out->n = GH_PROFSTACKDEPTH;
	return rc;
}

/* ---- sorting ------------------------------------------------------------- */

static int64_t inuse_bytes(const gh_record *r)
{
	return gh_wsub(r->alloc_bytes, r->free_bytes);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* sort.Slice(p, func(i, j) bool { return p[i].InUseBytes() > ... }) */
static int heap_less_desc(const void *a, const void *b, void *payload)
{
	const gh_record *r = payload;

	return inuse_bytes(&r[*(const size_t *)a]) >
	       inuse_bytes(&r[*(const size_t *)b]);
}

/* slices.SortFunc(p, cmp.Compare(a.InUseBytes(), b.InUseBytes())) */
static int heap_cmp_asc(const void *a, const void *b, void *payload)
{
	const gh_record *r = payload;

	return cmp_i64(inuse_bytes(&r[*(const size_t *)a]),
		       inuse_bytes(&r[*(const size_t *)b]));
}

/* sort.Slice(p, func(i, j) bool { return p[i].Cycles > p[j].Cycles }) */
static int cycles_less_desc(const void *a, const void *b, void *payload)
{
	const gh_record *r = payload;

	return r[*(const size_t *)a].cycles > r[*(const size_t *)b].cycles;
}

/* slices.SortFunc(p, cmp.Compare(b.Cycles, a.Cycles)) */
static int cycles_cmp_desc(const void *a, const void *b, void *payload)
{
	const gh_record *r = payload;

	return cmp_i64(r[*(const size_t *)b].cycles,
		       r[*(const size_t *)a].cycles);
}

/* The record order pprof prints, as indices into p->recs. */
static size_t *sorted_order(const gh_profile *p)
{
	size_t *ord = gh_calloc(p->nrecs, sizeof(*ord));
	size_t i;
	int heap = p->kind == GOHEAP_PROFILE_HEAP ||
		   p->kind == GOHEAP_PROFILE_ALLOCS;

	if (ord == NULL)
		return NULL;
	for (i = 0; i < p->nrecs; i++)
		ord[i] = i;
	if (!gh_profile_rt(p)->text_sortfunc)
		gh_sort_slice(ord, p->nrecs, sizeof(*ord),
			      heap ? heap_less_desc : cycles_less_desc,
			      p->recs);
	else
		gh_slices_sort_func(ord, p->nrecs, sizeof(*ord),
				    heap ? heap_cmp_asc : cycles_cmp_desc,
				    p->recs);
	return ord;
}

/* ---- writers ----------------------------------------------------------------- */

/* writeHeapInternal, debug=1, without the MemStats trailer. */
static int write_heap(text_ctx *c, const size_t *ord)
{
	const gh_profile *p = c->p;
	int64_t alloc_b = 0, alloc_o = 0, free_b = 0, free_o = 0, abytes;
	const gh_record *r;
	size_t i, k, n;
	int rc;

	/*
	 * The header is the sum over exactly the records printed below (all
	 * of p->recs, in another order) with the arithmetic they are printed
	 * with: 1.27's AllocObjects*ObjectSize and InUseObjects*ObjectSize
	 * are the walker's count x size (equal modulo 2^64), so no record
	 * may be left out of one loop and not the other.  In a walked
	 * profile they do not wrap either: walk.c leaves implausible
	 * buckets out and keeps every column's total within 2^62.
	 */
	for (i = 0; i < p->nrecs; i++) {
		r = &p->recs[i];
		alloc_b = gh_wadd(alloc_b, r->alloc_bytes);
		alloc_o = gh_wadd(alloc_o, r->alloc_objects);
		free_b = gh_wadd(free_b, r->free_bytes);
		free_o = gh_wadd(free_o, r->free_objects);
	}
	/*
	 * Go 1.21+ bumps allocBytes when it equals inUseBytes so that pprof
	 * does not read a "2-column" profile; 1.19 prints the raw total.
	 */
	abytes = alloc_b;
	if (gh_profile_rt(p)->heap_alloc_bump &&
	    gh_wsub(alloc_b, free_b) == alloc_b)
		abytes = gh_wadd(abytes, 1);
	put_str(&c->line, "heap profile: ");
	put_dec(&c->line, gh_wsub(alloc_o, free_o));
	put_str(&c->line, ": ");
	put_dec(&c->line, gh_wsub(alloc_b, free_b));
	put_str(&c->line, " [");
	put_dec(&c->line, alloc_o);
	put_str(&c->line, ": ");
	put_dec(&c->line, abytes);
	put_str(&c->line, "] @ heap/");
	/* "2*MemProfileRate": the historic C++ heap profiler convention. */
	put_dec(&c->line, gh_wmul(2, p->rate));
	put_c(&c->line, '\n');
	tw_line(c);

	for (k = 0; k < p->nrecs; k++) {
		r = &p->recs[ord[k]];
		n = stack0_len(p, r);
		put_dec(&c->line, gh_wsub(r->alloc_objects, r->free_objects));
		put_str(&c->line, ": ");
		put_dec(&c->line, inuse_bytes(r));
		put_str(&c->line, " [");
		put_dec(&c->line, r->alloc_objects);
		put_str(&c->line, ": ");
		put_dec(&c->line, r->alloc_bytes);
		put_str(&c->line, "] @");
		for (i = 0; i < n; i++) {
			put_c(&c->line, ' ');
			put_hex(&c->line, r->stk[i]);
		}
		put_c(&c->line, '\n');
		tw_line(c);
		rc = print_stack_record(c, r->stk, n, 0);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * expandInlinedFrames (Go 1.23+ pprof.go): f.PC+1 for each frame of
 * CallersFrames(stk), at most profstackdepth of them.  With no frames at
 * all Go still stores one: the zero Frame's PC+1, i.e. 1.
 */
static int expand_inlined(text_ctx *c, const uint64_t *stk, size_t n,
			  uint64_t *dst, size_t *ndst)
{
	size_t i;
	int rc;

	rc = gh_stackx_frames(c->x, stk, n, GH_STACKX_CALLERS, &c->frames);
	if (rc != 0)
		return rc;
	if (c->frames.n == 0) {
		dst[0] = 1;
		*ndst = 1;
		return 0;
	}
	for (i = 0; i < c->frames.n && i < GH_PROFSTACKDEPTH; i++)
		dst[i] = c->frames.v[i].pc + 1;
	*ndst = i;
	return 0;
}

/* writeProfileInternal, debug=1 (block: "contention", mutex: "mutex"). */
static int write_cycles(text_ctx *c, const size_t *ord)
{
	const gh_profile *p = c->p;
	uint64_t expanded[GH_PROFSTACKDEPTH];
	const uint64_t *stk;
	const gh_record *r;
	size_t i, k, n;
	int rc, expand = gh_profile_rt(p)->full_stacks;

	if (p->kind == GOHEAP_PROFILE_MUTEX)
		put_str(&c->line, "--- mutex:\n");
	else
		put_str(&c->line, "--- contention:\n");
	/*
	 * runtime_cyclesPerSecond / pprof_cyclesPerSecond return int64 in
	 * every version (1.19-1.24), so %v prints an integer.
	 */
	put_str(&c->line, "cycles/second=");
	put_dec(&c->line, (int64_t)llround(p->cycles_per_second));
	put_c(&c->line, '\n');
	if (p->kind == GOHEAP_PROFILE_MUTEX) {
		/* SetMutexProfileFraction(-1): the current rate. */
		put_str(&c->line, "sampling period=");
		put_dec(&c->line, p->rate);
		put_c(&c->line, '\n');
	}
	tw_line(c);

	for (k = 0; k < p->nrecs; k++) {
		r = &p->recs[ord[k]];
		if (expand) {
			rc = expand_inlined(c, r->stk, r->nstk, expanded, &n);
			if (rc != 0)
				return rc;
			stk = expanded;
		} else {
			stk = r->stk;
			n = stack0_len(p, r);
		}
		put_dec(&c->line, r->cycles);
		put_c(&c->line, ' ');
		put_dec(&c->line, r->count);
		put_str(&c->line, " @");
		for (i = 0; i < n; i++) {
			put_c(&c->line, ' ');
			put_hex(&c->line, stk[i]);
		}
		put_c(&c->line, '\n');
		tw_line(c);
		rc = print_stack_record(c, stk, n, 1);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * The goroutine profile's debug=1 text: printCountProfile (pprof.go, the
 * same in 1.19 to 1.27): "goroutine profile: total N", then per group of
 * goroutines with one key (gorgroup.c: stack and labels, sorted by count)
 * "COUNT KEY" and printStackRecord(stack, false).
 */
static int write_goroutines(text_ctx *c)
{
	const gh_profile *p = c->p;
	gh_gor_group *k = NULL;
	size_t nk = 0, i;
	int rc;

	rc = gh_gor_groups(p, &k, &nk);
	if (rc != 0)
		return rc;
	put_str(&c->line, "goroutine profile: total ");
	put_dec(&c->line, (int64_t)p->ngors);
	put_c(&c->line, '\n');
	tw_line(c);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &p->gors[k[i].first];

		put_dec(&c->line, k[i].count);
		put_c(&c->line, ' ');
		put_str(&c->line, k[i].key);
		put_c(&c->line, '\n');
		tw_line(c);
		rc = print_stack_record(c, g->stk, g->nstk, 0);
	}
	gh_gor_groups_free(k, nk);
	return rc;
}

int gh_write_text(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		  gh_err *err)
{
	gh_buf empty = GH_BUF_INIT;
	text_ctx *c = NULL;
	size_t *ord = NULL;
	int rc;

	if (p == NULL || w == NULL || w->sym == NULL || out == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "text: missing argument");
	/* The context is large (name buffer): keep it off the stack. */
	c = gh_calloc(1, sizeof(*c));
	if (c == NULL) {
		rc = GOHEAP_ENOMEM;
		goto out;
	}
	c->p = p;
	c->line = empty;
	c->print_names = gh_profile_rt(p)->text_func_names;
	/* tabwriter.NewWriter(w, 1, 8, 1, '\t', 0), as pprof.go. */
	gh_tabwriter_init(&c->tw, out, 1, 8, 1, '\t', 0);
	rc = gh_stackx_new(&c->x, w->sym, p->ver);
	if (rc != 0)
		goto out;
	if (p->kind != GOHEAP_PROFILE_GOROUTINE) {
		ord = sorted_order(p);
		if (ord == NULL) {
			rc = GOHEAP_ENOMEM;
			goto out;
		}
	}
	switch (p->kind) {
	case GOHEAP_PROFILE_GOROUTINE:
		rc = write_goroutines(c);
		break;
	case GOHEAP_PROFILE_HEAP:
	case GOHEAP_PROFILE_ALLOCS:
		rc = write_heap(c, ord);
		break;
	case GOHEAP_PROFILE_BLOCK:
	case GOHEAP_PROFILE_MUTEX:
		rc = write_cycles(c, ord);
		break;
	default:
		rc = gh_errf(err, GOHEAP_EINVAL, "text: unknown profile kind %d",
			     p->kind);
		goto out;
	}
	if (rc == 0)
		rc = gh_tabwriter_flush(&c->tw);
	/* Not in Go's format: only when a goroutine profile is not what the
	 * runtime would have written (running goroutines of a live target,
	 * partial tracebacks, unreadable g's), so a clean read stays equal. */
	if (rc == 0 && p->kind == GOHEAP_PROFILE_GOROUTINE &&
	    p->gor_note[0] != '\0')
		gh_buf_printf(out, "# go-heap: %s\n", p->gor_note);
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "text: out of memory");
	free(ord);
	if (c != NULL) {
		gh_tabwriter_free(&c->tw);
		gh_buf_free(&c->line);
		if (w->stats != NULL)
			w->stats->suspect += gh_stackx_suspect(c->x) +
					     c->frames.suspect;
		gh_framevec_free(&c->frames);
		gh_stackx_free(c->x);
		free(c);
	}
	return rc;
}

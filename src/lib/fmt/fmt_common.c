/*
 * fmt_common.c - the writers' toolkit (fmt_common.h).
 *
 * The per-PC frame cache (gh_stackx).  A stack's frames are not a pure
 * function of each PC: in 1.23+ the inlined callers of a PC are
 * synthesised only when the *next* PC is not already their virtual PC.
 * The cache therefore stores, per PC, the full chain CallersFrames gives
 * for [pc, invalid] (innermost frame, then every synthesised caller with
 * its virtual PC - 1), and a stack is assembled by cutting each chain
 * where the next PC takes over, as Frames.Next does.  Caching whole
 * stacks instead was rejected: heap buckets are keyed by (stack, size),
 * so almost every stack is distinct while their PCs repeat heavily.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>

#include "fmt_common.h"
#include "gosort.h"

/* ---- the profile's constants -------------------------------------------- */

/*
 * The session stores the target's int64 in a double (an integer value);
 * converted back with the x86 rule, an impossible out-of-range value
 * gives MinInt64 on every host rather than undefined behaviour.
 */
int64_t gh_cycles_per_second(const gh_profile *p)
{
	return gh_go_f2i64(p->cycles_per_second, GH_F2I_X86);
}

/* runtime debug.profstackdepth's default (Go 1.23 runtime1.go). */
#define GH_PROFSTACKDEPTH 128

size_t gh_profstackdepth(const gh_profile *p)
{
	return p->profstackdepth > 0 ? (size_t)p->profstackdepth :
				       GH_PROFSTACKDEPTH;
}

/* ---- sample columns ------------------------------------------------------ */

static const char *const heap_names[4] = {
	"alloc_objects", "alloc_space", "inuse_objects", "inuse_space",
};
static const char *const heap_units[4] = {
	"count", "bytes", "count", "bytes",
};

static int is_heap(const gh_profile *p)
{
	return p->kind == GOHEAP_PROFILE_HEAP ||
	       p->kind == GOHEAP_PROFILE_ALLOCS;
}

int gh_sampler_init(gh_sampler *s, const gh_profile *p, int sample_index)
{
	int col = sample_index;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->heap = is_heap(p);
	if (s->heap) {
		if (col == GOHEAP_SAMPLE_DEFAULT)
			col = p->kind == GOHEAP_PROFILE_HEAP ?
				      GOHEAP_SAMPLE_INUSE_SPACE :
				      GOHEAP_SAMPLE_ALLOC_SPACE;
		if (col < 0 || col > 3)
			return GOHEAP_EINVAL;
		s->col = col;
		s->name = heap_names[col];
		s->unit = heap_units[col];
		/* scaleHeapSample as the target's machine computes it */
		s->exp = gh_go_exp_impl(p->machine);
		return 0;
	}
	if (p->kind == GOHEAP_PROFILE_GOROUTINE) {
		/* One sample type: goroutine/count. */
		if (col != GOHEAP_SAMPLE_DEFAULT)
			return GOHEAP_EINVAL;
		s->col = 0;
		s->name = gh_gor_is_leak(p) ? "goroutineleak" : "goroutine";
		s->unit = "count";
		return 0;
	}
	if (p->kind != GOHEAP_PROFILE_BLOCK && p->kind != GOHEAP_PROFILE_MUTEX)
		return GOHEAP_EINVAL;
	/* pprof's default sample type is the last one: delay. */
	if (col == GOHEAP_SAMPLE_DEFAULT)
		col = GOHEAP_SAMPLE_DELAY;
	col -= GOHEAP_SAMPLE_CONTENTIONS;
	if (col < 0 || col > 1)
		return GOHEAP_EINVAL;
	s->col = col;
	s->name = col == 0 ? "contentions" : "delay";
	s->unit = col == 0 ? "count" : "nanoseconds";
	s->scale_mutex = p->kind == GOHEAP_PROFILE_MUTEX &&
			 gh_profile_rt(p)->pprof_scales_mutex;
	/* printCountCycleProfile: float64(pprof_cyclesPerSecond()) / 1e9 */
	s->cpu_ghz = (double)gh_cycles_per_second(p) / 1e9;
	s->f2i = gh_f2i_rule(p->machine);
	return 0;
}

void gh_sampler_cycle_values(const gh_sampler *s, const gh_record *r,
			     int64_t out[2])
{
	double ns = (double)r->cycles / s->cpu_ghz;

	out[0] = r->count;
	if (s->scale_mutex) {
		out[0] = gh_wmul(r->count, s->p->rate);
		ns *= (double)s->p->rate;
	}
	out[1] = gh_go_f2i64(ns, s->f2i);
}

int64_t gh_sampler_value(const gh_sampler *s, const gh_record *r)
{
	int64_t c, v[2];

	if (s->heap) {
		if (s->col < 2)
			gh_scale_heap_sample(r->alloc_objects, r->alloc_bytes,
					     s->p->rate, s->exp, &c, &v[1]);
		else
			gh_scale_heap_sample(
				gh_wsub(r->alloc_objects, r->free_objects),
				gh_wsub(r->alloc_bytes, r->free_bytes),
				s->p->rate, s->exp, &c, &v[1]);
		return s->col % 2 == 0 ? c : v[1];
	}
	if (s->p->kind == GOHEAP_PROFILE_GOROUTINE)
		return r->count;
	gh_sampler_cycle_values(s, r, v);
	return v[s->col];
}

int gh_sample_resolve(const gh_profile *p, int sample_index, int *out_col,
		      const char **name, const char **unit)
{
	gh_sampler s;
	int rc = gh_sampler_init(&s, p, sample_index);

	if (rc != 0)
		return rc;
	*out_col = s.col;
	*name = s.name;
	*unit = s.unit;
	return 0;
}

int64_t gh_sample_value(const gh_profile *p, const gh_record *r, int col)
{
	gh_sampler s;

	if (gh_sampler_init(&s, p, GOHEAP_SAMPLE_DEFAULT) != 0)
		return 0;
	s.col = col;
	return gh_sampler_value(&s, r);
}

/* ---- record order ---------------------------------------------------------- */

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

size_t *gh_record_order(const gh_profile *p)
{
	size_t *ord = gh_calloc(p->nrecs, sizeof(*ord));
	size_t i;
	int heap = is_heap(p);

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

/* ---- growable arrays ------------------------------------------------------ */

/* ---- the frame cache (gh_stackx) ----------------------------------------- */

/* runtime.MemProfileRecord.Stack0 / BlockProfileRecord.Stack0 length. */
#define GH_STACK0_LEN 32

/* stackx_ent.rt: hideRuntime's verdict on the PC, once computed. */
enum { STACKX_RT_UNKNOWN = 0, STACKX_RT_NO, STACKX_RT_YES };

typedef struct stackx_ent {
	uint32_t off, len;    /* chain in x->pool */
	int have_chain;
	int rt;               /* STACKX_RT_*: FuncForPC(pc).Name() is a
	                         hidden runtime name */
} stackx_ent;

struct gh_stackx {
	const gh_sym *sym;
	const gh_rtlayout *rt;
	int synth;            /* CallersFrames synthesises callers (1.23+) */
	stackx_ent *ents;
	size_t nents, capents;
	gh_hmap index;        /* pc -> ent index + 1 */
	gh_frame *pool;
	size_t npool, cappool;
	gh_framevec tmp;      /* the symbolizer's output (stackx_chain) */
	gh_framevec exp;      /* gh_stackx_expand_inlined's frames */
};

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
	gh_hmap_free(&x->index);
	free(x->pool);
	gh_framevec_free(&x->tmp);
	gh_framevec_free(&x->exp);
	free(x);
}

/* The cache entry of pc, created empty if missing; NULL on ENOMEM. */
static stackx_ent *stackx_ent_get(gh_stackx *x, uint64_t pc)
{
	uint64_t k = gh_hmap_get(&x->index, pc);
	stackx_ent *e;

	if (k != 0)
		return &x->ents[k - 1];
	if (gh_grow(&x->ents, &x->capents, x->nents + 1, sizeof(*x->ents)))
		return NULL;
	if (gh_hmap_add(&x->index, pc, (uint64_t)x->nents + 1) != 0)
		return NULL;
	e = &x->ents[x->nents++];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * Fill e's chain: CallersFrames([pc, 0]).  The second, invalid PC keeps
 * "more callers follow" true, so Go 1.23's Next synthesises every inlined
 * caller of pc; the invalid PC itself yields no frame (gh_sym reports it
 * with an empty name, which is dropped here as Go drops it).
 */
static int stackx_chain(gh_stackx *x, stackx_ent *e, uint64_t pc)
{
	uint64_t pcs[2] = { pc, 0 };
	size_t i, need;
	int rc;

	x->tmp.n = 0;
	rc = gh_sym_callers_frames(x->sym, pcs, 2, &x->tmp);
	if (rc != 0)
		return rc;
	need = x->npool + x->tmp.n;
	if (need > UINT32_MAX)
		return GOHEAP_ENOMEM;
	if (gh_grow(&x->pool, &x->cappool, need, sizeof(*x->pool)) != 0)
		return GOHEAP_ENOMEM;
	e->off = (uint32_t)x->npool;
	for (i = 0; i < x->tmp.n; i++) {
		const gh_frame *f = &x->tmp.v[i];

		/*
		 * Frames.Next yields a frame for every PC in a function,
		 * named or not (a valid funcInfo whose name offset is 0
		 * gives Function ""), and none for a PC in no function,
		 * which gh_sym reports with entry 0 and an empty name.
		 * Only the latter is dropped.
		 */
		if (f->entry == 0 &&
		    (f->function == NULL || f->function[0] == '\0'))
			continue;
		x->pool[x->npool++] = *f;
	}
	e->len = (uint32_t)(x->npool - e->off);
	e->have_chain = 1;
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
			rc = stackx_chain(x, e, pcs[i]);
			if (rc != 0)
				return rc;
		}
		/* Copy: the pool may move while later PCs are added. */
		off = e->off;
		len = e->len;
		if (len == 0)
			continue;
		rc = gh_framevec_append(out, &x->pool[off]);
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
			rc = gh_framevec_append(out, &x->pool[off + j]);
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
	const char *name;
	uint64_t k;
	size_t i;

	/* Once per leading PC of every heap record (fmt_pprof.c): the
	 * verdict is cached, not the name, so a hit is one map lookup,
	 * done here inline. */
	for (i = 0; i < n; i++) {
		k = gh_hmap_get(&x->index, pcs[i]);
		if (k != 0 && x->ents[k - 1].rt != STACKX_RT_UNKNOWN) {
			if (x->ents[k - 1].rt == STACKX_RT_NO)
				return i;
			continue;
		}
		e = stackx_ent_get(x, pcs[i]);
		if (e == NULL)
			return 0;
		if (e->rt == STACKX_RT_UNKNOWN) {
			name = gh_sym_funcforpc_name(x->sym, pcs[i]);
			e->rt = name != NULL && gh_stackx_is_runtime(x, name) ?
					STACKX_RT_YES :
					STACKX_RT_NO;
		}
		if (e->rt == STACKX_RT_NO)
			return i;
	}
	/* All runtime: protomem.go keeps the whole stack. */
	return 0;
}

int gh_stackx_expand_inlined(gh_stackx *x, const uint64_t *pcs, size_t n,
			     size_t depth, uint64_t *dst, size_t *ndst)
{
	size_t i;
	int rc;

	*ndst = 0;
	rc = gh_stackx_frames(x, pcs, n, GH_STACKX_CALLERS, &x->exp);
	if (rc != 0)
		return rc;
	if (x->exp.n == 0) {
		if (depth > 0)
			dst[(*ndst)++] = 1;
		return 0;
	}
	for (i = 0; i < x->exp.n && i < depth; i++)
		dst[i] = x->exp.v[i].pc + 1;
	*ndst = i;
	return 0;
}

size_t gh_record_stack_len(const gh_profile *p, const gh_record *r)
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
	size_t n = gh_record_stack_len(p, r), skip = 0;
	int rc;

	if (is_heap(p))
		skip = gh_stackx_skip_runtime(x, r->stk, n);
	if (n == 0) {
		out->n = 0;
		return 0;
	}
	rc = gh_stackx_frames(x, r->stk + skip, n - skip, GH_STACKX_PROTO, out);
	/* 1.23+ block/mutex: expandInlinedFrames keeps profstackdepth. */
	if (rc == 0 && !is_heap(p) && gh_profile_rt(p)->full_stacks &&
	    out->n > gh_profstackdepth(p))
		out->n = gh_profstackdepth(p);
	return rc;
}

/* ---- folded stacks --------------------------------------------------------- */

size_t gh_folded_append(gh_buf *b, const gh_framevec *fv)
{
	const char *name;
	size_t j, n = 0;

	for (j = fv->n; j > 0; j--) {
		name = fv->v[j - 1].function;
		if (name[0] == 'r' && strcmp(name, "runtime.goexit") == 0)
			continue;
		if (n++ > 0)
			gh_buf_putc(b, ';');
		for (; *name != '\0'; name++)
			gh_buf_putc(b, *name == ';' ? ',' : *name);
	}
	return n;
}

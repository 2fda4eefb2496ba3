/*
 * retgraph.c - the object graph under construction (retained_int.h): the
 * objects' arrays sorted by address, node edge lists in one CSR array,
 * root nodes and their names, words of the target's memory read a chunk
 * at a time, a core's pages released as the reads go.  retained.c (objects, heap
 * pointers, data/bss, specials) and retstack.c (stack roots) build with it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained_int.h"

uint32_t gh_retained_find(const gh_retained *r, uint64_t p)
{
	uint32_t lo = 0, hi = r->nobj;

	if (r->pg != NULL) {
		/* the objects starting in p's page, and the one before them */
		uint64_t k = (p - r->pg_lo) >> GH_RET_PAGE_SHIFT;

		if (p < r->pg_lo || k >= r->npg)
			return GH_RET_NONE;
		lo = r->pg[k];
		hi = r->pg[k + 1];
		if (lo == hi || r->addr[lo] > p) {
			if (lo == 0)
				return GH_RET_NONE;
			lo--;
			return p - r->addr[lo] < gh_retained_size(r, lo) ? lo :
			       GH_RET_NONE;
		}
		if (hi - lo > 1) {
			/* first where p would be if the page's objects were
			 * evenly spaced (a span's slots are), then a few
			 * steps to either side: most lookups end there */
			uint64_t g = lo + ((((p - r->pg_lo) & GH_RET_PAGE_MASK) *
					    (hi - lo) + GH_RET_PAGE_MASK / 2) >>
					   GH_RET_PAGE_SHIFT);
			unsigned step;

			if (g >= hi)
				g = hi - 1;
			if (r->addr[g] <= p) {
				/* all below lo start at or below p */
				for (lo = (uint32_t)g + 1, step = 0;
				     lo < hi && step < 4; lo++, step++)
					if (r->addr[lo] > p) {
						hi = lo;
						break;
					}
			} else {
				/* all from hi start above p; lo's at or
				 * below it */
				for (hi = (uint32_t)g, step = 0; step < 4;
				     hi--, step++)
					if (r->addr[hi - 1] <= p) {
						lo = hi;
						break;
					}
			}
		}
	}
	/* the last object starting at or below p */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->addr[mid] <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return GH_RET_NONE;
	lo--;
	return p - r->addr[lo] < gh_retained_size(r, lo) ? lo : GH_RET_NONE;
}

void gh_ret_find_prefetch(const gh_retained *r, uint64_t p, int stage)
{
	uint64_t k, g;
	uint32_t lo, hi;

	if (r->pg == NULL || p < r->pg_lo)
		return;
	k = (p - r->pg_lo) >> GH_RET_PAGE_SHIFT;
	if (k >= r->npg)
		return;
	if (stage == 0) {
		__builtin_prefetch(&r->pg[k]);
		return;
	}
	lo = r->pg[k];
	hi = r->pg[k + 1];
	if (lo == hi) {
		if (lo > 0) {
			__builtin_prefetch(&r->addr[lo - 1]);
			__builtin_prefetch(&r->size8[lo - 1]);
		}
		return;
	}
	/* gh_retained_find's first probe */
	g = lo + ((((p - r->pg_lo) & GH_RET_PAGE_MASK) * (hi - lo) +
		   GH_RET_PAGE_MASK / 2) >> GH_RET_PAGE_SHIFT);
	if (g >= hi)
		g = hi - 1;
	__builtin_prefetch(&r->addr[g]);
	__builtin_prefetch(&r->size8[g]);
}

int gh_ret_nomem(rb *b)
{
	return gh_errf(&b->s->err, GOHEAP_ENOMEM, "out of memory");
}

int gh_ret_edge(rb *b, uint32_t dst)
{
	gh_retained *r = b->r;

	if (r->nedges >= GH_RET_MAX_EDGES)
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: "
			       "more than %llu pointers",
			       (unsigned long long)GH_RET_MAX_EDGES);
	if (gh_grow(&r->adj, &b->capadj, (size_t)r->nedges + 1,
		    sizeof(*r->adj)))
		return gh_ret_nomem(b);
	r->adj[r->nedges++] = dst;
	return 0;
}

/* Close node v's edge list (nodes are made in order). */
int gh_ret_node_end(rb *b, uint64_t v)
{
	if (gh_grow(&b->r->off, &b->capoff, (size_t)v + 2,
		    sizeof(*b->r->off)))
		return gh_ret_nomem(b);
	b->r->off[v + 1] = b->r->nedges;
	return 0;
}

/* A new root node (its edges follow until the next). */
int gh_ret_root_new(rb *b, int kind, uint64_t addr, uint64_t goid,
		    const char *label)
{
	gh_retained *r = b->r;
	gh_root *o;

	if (b->cur_root != GH_RET_NONE) {
		int rc = gh_ret_node_end(b, (uint64_t)r->nobj + b->cur_root);

		if (rc != 0)
			return rc;
	}
	if (gh_grow(&r->roots, &b->caproots, r->nroot + 1, sizeof(*r->roots)))
		return gh_ret_nomem(b);
	o = &r->roots[r->nroot];
	o->kind = (uint8_t)kind;
	o->addr = addr;
	o->goid = goid;
	o->name = r->names.len;
	gh_buf_printf(&r->names, "%s", label);
	gh_buf_putc(&r->names, '\0');
	if (r->names.oom)
		return gh_ret_nomem(b);
	b->cur_root = r->nroot++;
	return 0;
}

int gh_ret_word_at(rb *b, wbuf *wb, uint64_t a, uint64_t limit, uint64_t *v)
{
	if (a < wb->lo || a + 8 > wb->hi) {
		uint64_t n = limit - a < CHUNK ? limit - a : CHUNK;

		if (n < 8 || gh_mem_read(b->m, a, b->buf, (size_t)n,
					 "heap object") != 0)
			return -1;
		wb->lo = a;
		wb->hi = a + n;
	}
	*v = gh_load(b->buf + (a - wb->lo), 8, b->m->big_endian);
	return 0;
}

/*
 * A core's pages the walk, the scan and the inference touched (its heap)
 * are dropped every GH_RET_RELEASE bytes of objects or of the source's
 * reads (the inference reads a few words of objects spread over the
 * heap: each read fills a 64 KiB block of the cache, and faults that
 * much of the mapping in): nothing is read twice but the roots' and
 * types' few pages, which fault in again from the page cache.
 */
void gh_ret_release(rb *b, uint64_t bytes, int now)
{
	b->unreleased += bytes;
	if ((now || b->unreleased >= GH_RET_RELEASE ||
	     b->m->nbytes >= b->rel_nbytes + GH_RET_RELEASE) &&
	    b->s->caps->release != NULL) {
		b->s->caps->release(b->s->ctx);
		b->unreleased = 0;
		b->rel_nbytes = b->m->nbytes;
	}
}

/* The heap of runs by their next object's address: i sifted down. */
static void run_sift(const rb *b, uint32_t *h, size_t n, size_t i)
{
	const uint64_t *addr = b->r->addr;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t x;

		if (l < n && addr[b->runs[h[l]].at] < addr[b->runs[h[m]].at])
			m = l;
		if (l + 1 < n &&
		    addr[b->runs[h[l + 1]].at] < addr[b->runs[h[m]].at])
			m = l + 1;
		if (m == i)
			return;
		x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* One per-object array in perm's order: a new array, the old freed. */
static int permute(rb *b, const uint32_t *perm, void **arr, size_t size)
{
	unsigned char *o = *arr, *d = gh_malloc_huge((b->nobjs + 1) * size);
	size_t k;

	if (d == NULL)
		return gh_ret_nomem(b);
	for (k = 0; k < b->nobjs; k++)
		memcpy(d + k * size, o + (size_t)perm[k] * size, size);
	free(o);
	*arr = d;
	return 0;
}

/*
 * The page index of the sorted objects: pg[k], the first object at or
 * above page k's start, for the pages from the first object's to the
 * last's end (4 bytes an 8 KiB page: 0.5 MiB a GiB of heap), so that
 * gh_retained_find searches one page's objects, not all of them (a
 * binary search over 10 million addresses misses the cache at most of
 * its 24 steps; the pointers of a real heap jump across it).  A heap
 * whose objects spread over more pages than GH_RET_PAGE_MAX or half the
 * objects (a sparse address space) keeps the search over all of them.
 */
static int page_index(rb *b)
{
	gh_retained *r = b->r;
	size_t n = b->nobjs, i;
	uint64_t lo, hi, k, npg;

	free(r->pg);
	r->pg = NULL;
	r->npg = 0;
	if (n == 0)
		return 0;
	lo = r->addr[0] & ~(((uint64_t)1 << GH_RET_PAGE_SHIFT) - 1);
	hi = r->addr[n - 1] + ((uint64_t)r->size8[n - 1] << 3);
	if (hi <= lo)
		return 0;
	npg = ((hi - lo - 1) >> GH_RET_PAGE_SHIFT) + 1;
	if (npg > GH_RET_PAGE_MAX || npg > (uint64_t)n / 2 + 1024)
		return 0;
	r->pg = malloc((size_t)(npg + 1) * sizeof(*r->pg));
	if (r->pg == NULL)
		return gh_ret_nomem(b);
	for (i = 0, k = 0; k <= npg; k++) {
		uint64_t at = lo + (k << GH_RET_PAGE_SHIFT);

		while (i < n && r->addr[i] < at)
			i++;
		r->pg[k] = (uint32_t)i;
	}
	r->pg_lo = lo;
	r->npg = npg;
	return 0;
}

/*
 * The objects by address.  The walk gives each span's slots ascending,
 * spans in allspans' order: its ascending runs, merged (a heap of runs:
 * most steps take the next object of the same run) into a permutation
 * (4 bytes an object), then each array laid out anew in that order, one
 * at a time (8, then 4, then 4 bytes an object on top).
 */
int gh_ret_sort_objects(rb *b)
{
	gh_retained *r = b->r;
	size_t k, n = b->nobjs, hn = b->nruns;
	uint32_t *perm, *h;
	int rc;

	for (k = 1; k < b->nruns; k++)
		if (b->runs[k].lo <= b->runs[k - 1].hi)
			break;
	if (k >= b->nruns)
		return page_index(b);
	perm = malloc((n + 1) * sizeof(*perm));
	h = malloc((hn + 1) * sizeof(*h));
	if (perm == NULL || h == NULL) {
		free(perm);
		free(h);
		return gh_ret_nomem(b);
	}
	for (k = 0; k < hn; k++)
		h[k] = (uint32_t)k;
	for (k = hn / 2; k-- > 0;)
		run_sift(b, h, hn, k);
	for (k = 0; k < n && hn > 0; k++) {
		struct run *u = &b->runs[h[0]];

		perm[k] = (uint32_t)u->at++;
		if (--u->n == 0)
			h[0] = h[--hn];
		run_sift(b, h, hn, 0);
	}
	free(h);
	rc = permute(b, perm, (void **)&r->addr, sizeof(*r->addr));
	if (rc == 0)
		rc = permute(b, perm, (void **)&r->size8, sizeof(*r->size8));
	if (rc == 0)
		rc = permute(b, perm, (void **)&r->ent, sizeof(*r->ent));
	free(perm);
	return rc != 0 ? rc : page_index(b);
}

const char *gh_retained_label(const gh_retained *r, uint32_t v)
{
	if (v < r->nobj) {
		const gh_tentry *e = &r->types->e[r->ent[v]];

		return e->type != 0 ? e->name : e->shape;
	}
	if (v - r->nobj < r->nroot)
		return (const char *)r->names.data + r->roots[v - r->nobj].name;
	return "(roots)";
}

void gh_retained_free(gh_retained *r)
{
	if (r == NULL)
		return;
	gh_types_free(r->types);
	free(r->addr);
	free(r->size8);
	free(r->ent);
	free(r->pg);
	free(r->off);
	free(r->adj);
	free(r->roots);
	gh_buf_free(&r->names);
	free(r->idom);
	free(r->via);
	free(r->ret);
	free(r->retn);
	free(r->gw);
	free(r->gwobj);
	free(r->semw);
	free(r);
}

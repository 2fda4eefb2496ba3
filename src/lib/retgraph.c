/*
 * retgraph.c - the object graph under construction (retained_int.h): node
 * edge lists in one CSR array, root nodes and their names, words of the
 * target's memory read a chunk at a time.  retained.c (objects, heap
 * pointers, data/bss, specials) and retstack.c (stack roots) build with it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained_int.h"

uint32_t gh_retained_find(const gh_retained *r, uint64_t p)
{
	uint32_t lo = 0, hi = r->nobj;

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

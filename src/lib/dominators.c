/*
 * dominators.c - the dominator tree of -p retained's graph (retained.h):
 * Lengauer and Tarjan's algorithm ("A fast algorithm for finding
 * dominators in a flowgraph", 1979), the simple version with path
 * compression, iterative (a linked list of a million objects is a DFS a
 * million deep), over 32-bit indexes in DFS-number space; then each
 * node's retained bytes and objects, summed up the tree.
 *
 * Memory: the CSR graph (8 bytes a node, 4 an edge) plus, while it runs,
 * nine 4-byte arrays a node and the predecessors (4 bytes an edge).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained.h"

#define NONE GH_RET_NONE

typedef struct lt {
	uint32_t *dfn;        /* node -> DFS number, NONE unvisited */
	uint32_t *vert;       /* DFS number -> node */
	uint32_t *par, *semi, *anc, *label, *dom, *bhead, *bnext;
	uint64_t *poff;       /* predecessors, by DFS number (CSR) */
	uint32_t *pred;
	uint32_t *stk;        /* compress's path; the DFS's node stack */
	uint64_t *stkpos;     /* the DFS's edge cursor */
} lt;

static void lt_free(lt *t)
{
	free(t->dfn);
	free(t->vert);
	free(t->par);
	free(t->semi);
	free(t->anc);
	free(t->label);
	free(t->dom);
	free(t->bhead);
	free(t->bnext);
	free(t->poff);
	free(t->pred);
	free(t->stk);
	free(t->stkpos);
}

/* eval with path compression (iterative compress). */
static uint32_t eval(lt *t, uint32_t v)
{
	uint32_t x, n = 0;

	if (t->anc[v] == NONE)
		return v;
	for (x = v; t->anc[t->anc[x]] != NONE; x = t->anc[x])
		t->stk[n++] = x;
	while (n > 0) {
		x = t->stk[--n];
		if (t->semi[t->label[t->anc[x]]] < t->semi[t->label[x]])
			t->label[x] = t->label[t->anc[x]];
		t->anc[x] = t->anc[t->anc[x]];
	}
	return t->label[v];
}

int gh_retained_dominators(gh_retained *r)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot + 1, e;
	uint32_t n = 0, i, root = (uint32_t)(nn - 1), sp;
	lt t;
	int rc = GOHEAP_ENOMEM;

	memset(&t, 0, sizeof(t));
	t.dfn = malloc(nn * sizeof(uint32_t));
	t.vert = malloc(nn * sizeof(uint32_t));
	t.par = malloc(nn * sizeof(uint32_t));
	t.stk = malloc(nn * sizeof(uint32_t));
	t.stkpos = malloc(nn * sizeof(uint64_t));
	if (!t.dfn || !t.vert || !t.par || !t.stk || !t.stkpos)
		goto out;
	memset(t.dfn, 0xff, nn * sizeof(uint32_t));
	/* the DFS from the super-root: preorder numbers, tree parents */
	sp = 0;
	t.dfn[root] = n;
	t.vert[n] = root;
	t.par[n] = NONE;
	n++;
	t.stk[sp] = root;
	t.stkpos[sp] = r->off[root];
	sp++;
	while (sp > 0) {
		uint32_t v = t.stk[sp - 1], w;

		if (t.stkpos[sp - 1] == r->off[v + 1]) {
			sp--;
			continue;
		}
		w = r->adj[t.stkpos[sp - 1]++];
		if (t.dfn[w] != NONE)
			continue;
		t.dfn[w] = n;
		t.vert[n] = w;
		t.par[n] = t.dfn[v];
		n++;
		t.stk[sp] = w;
		t.stkpos[sp] = r->off[w];
		sp++;
	}
	free(t.stkpos);
	t.stkpos = NULL;
	/* predecessors of the reached nodes, in DFS numbers: counted, the
	 * counts summed to each list's end, then filled backwards, which
	 * leaves each list's start (no second cursor array) */
	t.poff = gh_calloc((size_t)n + 1, sizeof(uint64_t));
	if (t.poff == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t v = t.vert[i];

		for (e = r->off[v]; e < r->off[v + 1]; e++)
			t.poff[t.dfn[r->adj[e]]]++;
	}
	for (i = 1; i < n; i++)
		t.poff[i] += t.poff[i - 1];
	t.poff[n] = n > 0 ? t.poff[n - 1] : 0;
	t.pred = malloc((t.poff[n] + 1) * sizeof(uint32_t));
	t.semi = malloc((size_t)n * sizeof(uint32_t));
	t.anc = malloc((size_t)n * sizeof(uint32_t));
	t.label = malloc((size_t)n * sizeof(uint32_t));
	t.dom = malloc((size_t)n * sizeof(uint32_t));
	t.bhead = malloc((size_t)n * sizeof(uint32_t));
	t.bnext = malloc((size_t)n * sizeof(uint32_t));
	if (!t.pred || !t.semi || !t.anc || !t.label || !t.dom || !t.bhead ||
	    !t.bnext)
		goto out;
	for (i = n; i-- > 0;) {
		uint32_t v = t.vert[i];

		for (e = r->off[v + 1]; e-- > r->off[v];)
			t.pred[--t.poff[t.dfn[r->adj[e]]]] = i;
	}
	for (i = 0; i < n; i++) {
		t.semi[i] = i;
		t.anc[i] = NONE;
		t.label[i] = i;
		t.dom[i] = 0;
		t.bhead[i] = NONE;
	}
	for (i = n - 1; i >= 1; i--) {
		uint32_t w = i, p = t.par[w], v, u, nx;

		for (e = t.poff[w]; e < t.poff[w + 1]; e++) {
			u = eval(&t, t.pred[e]);
			if (t.semi[u] < t.semi[w])
				t.semi[w] = t.semi[u];
		}
		t.bnext[w] = t.bhead[t.semi[w]];
		t.bhead[t.semi[w]] = w;
		t.anc[w] = p;
		for (v = t.bhead[p]; v != NONE; v = nx) {
			nx = t.bnext[v];
			u = eval(&t, v);
			t.dom[v] = t.semi[u] < t.semi[v] ? u : p;
		}
		t.bhead[p] = NONE;
	}
	for (i = 1; i < n; i++)
		if (t.dom[i] != t.semi[i])
			t.dom[i] = t.dom[t.dom[i]];
	/* the working arrays go before the results come (the peak) */
	free(t.pred);
	free(t.poff);
	free(t.semi);
	free(t.anc);
	free(t.label);
	free(t.bhead);
	free(t.bnext);
	free(t.stk);
	free(t.par);
	t.pred = t.stk = t.par = t.semi = t.anc = t.label = NULL;
	t.bhead = t.bnext = NULL;
	t.poff = NULL;
	r->idom = malloc(nn * sizeof(uint32_t));
	r->ret = gh_calloc(nn, sizeof(uint64_t));
	r->retn = gh_calloc(nn, sizeof(uint32_t));
	if (!r->idom || !r->ret || !r->retn)
		goto out;
	/* back to nodes; retained sizes, children before their dominator
	 * (a dominator's DFS number is smaller) */
	for (e = 0; e < nn; e++)
		r->idom[e] = NONE;
	for (i = 1; i < n; i++)
		r->idom[t.vert[i]] = t.vert[t.dom[i]];
	for (i = 0; i < r->nobj; i++) {
		if (t.dfn[i] != NONE) {
			r->ret[i] = r->size[i];
			r->retn[i] = 1;
		}
	}
	for (i = n - 1; i >= 1; i--) {
		uint32_t v = t.vert[i], d = r->idom[v];

		r->ret[d] += r->ret[v];
		r->retn[d] += r->retn[v];
	}
	rc = 0;
out:
	lt_free(&t);
	return rc;
}

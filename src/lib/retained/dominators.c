/*
 * dominators.c - the dominator tree of -p retained's graph (retained.h):
 * Lengauer and Tarjan's algorithm ("A fast algorithm for finding
 * dominators in a flowgraph", 1979), the simple version with path
 * compression, iterative (a linked list of a million objects is a DFS a
 * million deep), over 32-bit indexes in DFS-number space; then each
 * node's retained bytes and objects, summed up the tree.
 *
 * Memory, a node: while the DFS runs, dfn, vert, par and the DFS's node
 * and edge-cursor stacks (20 bytes); then the predecessors (4 bytes a
 * reached edge, 4 a node of offsets) while dfn goes; then semi, label,
 * anc and one array that is in turn a bucket's head, the next in a
 * bucket and the semidominator-based dom (16 bytes: a bucket is emptied
 * at the start of its own node's step, before that node joins its
 * semidominator's bucket, which is LT's "end of the step of the child
 * that links it" with the same forest below it).  compress walks up by
 * reversing the ancestor links and back down restoring them (no stack).
 * The results: idom in par's array, ret (8 bytes) and retn (4).  Above
 * GH_RET_SPILL_BYTES the arrays this does not read wait in a file
 * (retspill.c): the objects' addresses and rows (12 bytes) from the
 * start, the CSR (4 bytes a node and an edge) once the predecessors are
 * built; they come back at the end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained.h"
#include "retspill.h"

#define NONE GH_RET_NONE

typedef struct lt {
	uint32_t *semi, *anc, *label;
} lt;

/*
 * LT's compress(v) without a stack: up the ancestors while the one above
 * has an ancestor, each link reversed to point down, then down again,
 * each node taking the smaller-semi label of the node above and its
 * ancestor (path compression), its link restored compressed.
 */
static void compress(lt *t, uint32_t v)
{
	uint32_t x = v, prev = NONE, nx, above, down;

	while (t->anc[t->anc[x]] != NONE) {
		nx = t->anc[x];
		t->anc[x] = prev;
		prev = x;
		x = nx;
	}
	if (prev == NONE) {
		/* v alone below x: the single step of compress(v) */
		return;
	}
	above = x;
	for (x = prev; x != NONE; above = x, x = down) {
		down = t->anc[x];
		if (t->semi[t->label[above]] < t->semi[t->label[x]])
			t->label[x] = t->label[above];
		t->anc[x] = t->anc[above];
	}
}

static uint32_t eval(lt *t, uint32_t v)
{
	if (t->anc[v] == NONE)
		return v;
	if (t->anc[t->anc[v]] != NONE)
		compress(t, v);
	return t->label[v];
}

int gh_retained_dominators(gh_retained *r)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot + 1;
	uint32_t n = 0, i, root = (uint32_t)(nn - 1), sp, e, *dfn, *vert,
		 *par, *stk, *spos, *poff = NULL, *pred = NULL, *x = NULL;
	lt t;
	int rc = GOHEAP_ENOMEM, rc2;
	gh_ret_spill spill;

	memset(&t, 0, sizeof(t));
	gh_ret_spill_init(&spill);
	/* what this does not read (retspill.c): the objects' addresses and
	 * rows now, the edges once the predecessors are built */
	if ((uint64_t)r->nobj * 12 + (nn + 1) * 4 + r->nedges * 4 >
	    GH_RET_SPILL_BYTES) {
		gh_ret_spill_out(&spill, (void **)&r->addr,
				 (size_t)r->nobj * sizeof(*r->addr));
		gh_ret_spill_out(&spill, (void **)&r->ent,
				 (size_t)r->nobj * sizeof(*r->ent));
	}
	dfn = malloc(nn * sizeof(uint32_t));
	vert = malloc(nn * sizeof(uint32_t));
	par = malloc(nn * sizeof(uint32_t));
	stk = malloc(nn * sizeof(uint32_t));
	spos = malloc(nn * sizeof(uint32_t));
	if (!dfn || !vert || !par || !stk || !spos) {
		free(stk);
		free(spos);
		goto out;
	}
	memset(dfn, 0xff, nn * sizeof(uint32_t));
	/* the DFS from the super-root: preorder numbers, tree parents */
	sp = 0;
	dfn[root] = n;
	vert[n] = root;
	par[n] = NONE;
	n++;
	stk[sp] = root;
	spos[sp] = r->off[root];
	sp++;
	while (sp > 0) {
		uint32_t v = stk[sp - 1], w;

		if (spos[sp - 1] == r->off[v + 1]) {
			sp--;
			continue;
		}
		w = r->adj[spos[sp - 1]++];
		if (dfn[w] != NONE)
			continue;
		dfn[w] = n;
		vert[n] = w;
		par[n] = dfn[v];
		n++;
		stk[sp] = w;
		spos[sp] = r->off[w];
		sp++;
	}
	free(stk);
	free(spos);
	/* predecessors of the reached nodes, in DFS numbers: counted, the
	 * counts summed to each list's end, then filled backwards, which
	 * leaves each list's start (no second cursor array) */
	poff = gh_calloc((size_t)n + 1, sizeof(uint32_t));
	if (poff == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t v = vert[i];

		for (e = r->off[v]; e < r->off[v + 1]; e++)
			poff[dfn[r->adj[e]]]++;
	}
	for (i = 1; i < n; i++)
		poff[i] += poff[i - 1];
	poff[n] = n > 0 ? poff[n - 1] : 0;
	pred = malloc(((size_t)poff[n] + 1) * sizeof(uint32_t));
	if (pred == NULL)
		goto out;
	for (i = n; i-- > 0;) {
		uint32_t v = vert[i];

		for (e = r->off[v + 1]; e-- > r->off[v];)
			pred[--poff[dfn[r->adj[e]]]] = i;
	}
	free(dfn);
	dfn = NULL;
	if (spill.n > 0) {
		gh_ret_spill_out(&spill, (void **)&r->off,
				 (size_t)(nn + 1) * sizeof(*r->off));
		gh_ret_spill_out(&spill, (void **)&r->adj,
				 (size_t)r->nedges * sizeof(*r->adj));
	}
	t.semi = malloc((size_t)n * sizeof(uint32_t));
	t.anc = malloc((size_t)n * sizeof(uint32_t));
	t.label = malloc((size_t)n * sizeof(uint32_t));
	x = malloc((size_t)n * sizeof(uint32_t));
	if (!t.semi || !t.anc || !t.label || !x)
		goto out;
	for (i = 0; i < n; i++) {
		t.semi[i] = i;
		t.anc[i] = NONE;
		t.label[i] = i;
		x[i] = NONE;          /* bucket heads: empty */
	}
	/* step i: empty bucket i (the nodes whose semidominator is i; every
	 * node above i linked, i not yet), then i's semidominator, into its
	 * bucket, linked to its parent */
	for (i = n; i-- > 0;) {
		uint32_t w = i, v, u, nx;

		for (v = x[w]; v != NONE; v = nx) {
			nx = x[v];
			u = eval(&t, v);
			x[v] = t.semi[u] < t.semi[v] ? u : w;
		}
		if (w == 0)
			break;
		for (e = poff[w]; e < poff[w + 1]; e++) {
			u = eval(&t, pred[e]);
			if (t.semi[u] < t.semi[w])
				t.semi[w] = t.semi[u];
		}
		x[w] = x[t.semi[w]];
		x[t.semi[w]] = w;
		t.anc[w] = par[w];
	}
	for (i = 1; i < n; i++)
		if (x[i] != t.semi[i])
			x[i] = x[x[i]];
	/* the working arrays go before the results come (the peak) */
	free(pred);
	free(poff);
	free(t.semi);
	free(t.anc);
	free(t.label);
	pred = poff = t.semi = t.anc = t.label = NULL;
	/* back to nodes: idom in par's array (par is done); retained sizes,
	 * children before their dominator (a dominator's DFS number is
	 * smaller) */
	memset(par, 0xff, nn * sizeof(uint32_t));
	for (i = 1; i < n; i++)
		par[vert[i]] = vert[x[i]];
	free(x);
	x = NULL;
	r->idom = par;
	par = NULL;
	r->ret = gh_calloc(nn, sizeof(uint64_t));
	r->retn = gh_calloc(nn, sizeof(uint32_t));
	if (!r->ret || !r->retn)
		goto out;
	for (i = 0; i < r->nobj; i++) {
		if (r->idom[i] != NONE) {
			r->ret[i] = gh_retained_size(r, i);
			r->retn[i] = 1;
		}
	}
	for (i = n - 1; i >= 1; i--) {
		uint32_t v = vert[i], d = r->idom[v];

		r->ret[d] += r->ret[v];
		r->retn[d] += r->retn[v];
	}
	rc = 0;
out:
	free(dfn);
	free(vert);
	free(par);
	free(poff);
	free(pred);
	free(x);
	free(t.semi);
	free(t.anc);
	free(t.label);
	/* the spilled arrays back, after the working arrays (the peak) */
	rc2 = gh_ret_spill_in(&spill);
	return rc != 0 ? rc : rc2;
}

/*
 * dominators.c - the dominator tree of -p retained's graph (retained.h):
 * Lengauer and Tarjan's algorithm ("A fast algorithm for finding
 * dominators in a flowgraph", 1979), the simple version with path
 * compression, iterative (a linked list of a million objects is a DFS a
 * million deep), over 32-bit indexes in DFS-number space; then each
 * node's retained bytes and objects, summed up the tree.
 *
 * Memory, a node: while the DFS runs, its DFS number with its first
 * edge's target (8 bytes), vert and par (8), and the stack of the nodes
 * with edges left (12 bytes an entry, touched only as deep as it goes: a
 * list's nodes are never on it); then the predecessors (4 bytes a
 * reached edge, 4 a node of offsets) while the numbers go; then semi, label,
 * anc and one array that is in turn a bucket's head, the next in a
 * bucket and the semidominator-based dom (16 bytes: a bucket is emptied
 * at the start of its own node's step, before that node joins its
 * semidominator's bucket, which is LT's "end of the step of the child
 * that links it" with the same forest below it).  compress walks up by
 * reversing the ancestor links and back down restoring them (no stack).
 * The retained sizes are summed in DFS numbers (8 bytes, retn's counts in
 * par's array), then the results laid out by node one array at a time:
 * idom, ret (8 bytes) and retn (4).  The passes over the edges go in the
 * nodes' order, the sums in the DFS's: only the DFS itself follows the
 * pointers (on a heap of interleaved lists the other orders were a cache
 * and TLB miss an access); the arrays ask for huge pages.  Above
 * GH_RET_SPILL_BYTES the arrays this does not read wait in a file
 * (retspill.c): the objects' addresses and rows (12 bytes) from the
 * start, the CSR (4 bytes a node and an edge) once the predecessors are
 * built; they come back at the end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retmodel.h"
#include "retspill.h"

#define NONE GH_RET_NONE

/* A node's DFS number and the target of its first edge, together: the
 * DFS reads both of each node it reaches. */
typedef struct dnode {
	uint32_t dfn, first;
} dnode;

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
	uint64_t o, *retd = NULL;
	uint32_t n = 0, i, root = (uint32_t)(nn - 1), sp, e, cur, pd, *vert,
		 *par, *stk, *spos, *send, *poff = NULL, *pred = NULL, *x = NULL;
	dnode *nd;
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
	nd = gh_malloc_huge(nn * sizeof(*nd));
	vert = gh_malloc_huge(nn * sizeof(uint32_t));
	par = gh_malloc_huge(nn * sizeof(uint32_t));
	/* the stacks are only touched as deep as they go */
	stk = malloc(nn * sizeof(uint32_t));
	spos = malloc(nn * sizeof(uint32_t));
	send = malloc(nn * sizeof(uint32_t));
	if (!nd || !vert || !par || !stk || !spos || !send) {
		free(stk);
		free(spos);
		free(send);
		goto out;
	}
	for (o = 0; o < nn; o++) {
		nd[o].dfn = NONE;
		nd[o].first = r->off[o] < r->off[o + 1] ? r->adj[r->off[o]] :
			      NONE;
	}
	/*
	 * The DFS from the super-root: preorder numbers, tree parents.  A
	 * node's first edge is followed from its dnode, read with its DFS
	 * number (one cache miss a node down a list, not three: the CSR's
	 * offsets, then its edge, then the pointee's number); the stack
	 * holds only the nodes with edges left (node's DFS number, next
	 * edge, end), so a list's nodes are never pushed.
	 */
	sp = 0;
	cur = root;
	pd = NONE;
	for (;;) {
		uint32_t d = n++, f = nd[cur].first;

		nd[cur].dfn = d;
		vert[d] = cur;
		par[d] = pd;
		if (f != NONE) {
			uint32_t e0 = r->off[cur], e1 = r->off[cur + 1];

			if (e1 - e0 > 1) {
				stk[sp] = d;
				spos[sp] = e0 + 1;
				send[sp] = e1;
				sp++;
			}
			if (nd[f].dfn == NONE) {
				cur = f;
				pd = d;
				continue;
			}
		}
		/* back up to a node with an edge to an unvisited node */
		cur = NONE;
		while (sp > 0 && cur == NONE) {
			while (spos[sp - 1] < send[sp - 1]) {
				uint32_t u = r->adj[spos[sp - 1]++];

				if (nd[u].dfn == NONE) {
					cur = u;
					pd = stk[sp - 1];
					break;
				}
			}
			if (cur == NONE)
				sp--;
		}
		if (cur == NONE)
			break;
	}
	free(stk);
	free(spos);
	free(send);
	/* predecessors of the reached nodes, in DFS numbers: counted, the
	 * counts summed to each list's end, then filled backwards, which
	 * leaves each list's start (no second cursor array).  Both passes go
	 * through the nodes in their own order (the edges' arrays read
	 * straight through, not at the DFS's jumps: on a heap of lists the
	 * DFS's next node is seldom the next in memory); a list's order
	 * does not change the dominators (a semidominator is a minimum) */
	poff = gh_calloc((size_t)n + 1, sizeof(uint32_t));
	if (poff == NULL)
		goto out;
	gh_huge(poff, ((size_t)n + 1) * sizeof(uint32_t));
	for (o = 0; o < nn; o++) {
		if (nd[o].dfn == NONE)
			continue;
		for (e = r->off[o]; e < r->off[o + 1]; e++)
			poff[nd[r->adj[e]].dfn]++;
	}
	for (i = 1; i < n; i++)
		poff[i] += poff[i - 1];
	poff[n] = n > 0 ? poff[n - 1] : 0;
	pred = gh_malloc_huge(((size_t)poff[n] + 1) * sizeof(uint32_t));
	if (pred == NULL)
		goto out;
	for (o = nn; o-- > 0;) {
		uint32_t d = nd[o].dfn;

		if (d == NONE)
			continue;
		for (e = r->off[o + 1]; e-- > r->off[o];)
			pred[--poff[nd[r->adj[e]].dfn]] = d;
	}
	free(nd);
	nd = NULL;
	if (spill.n > 0) {
		gh_ret_spill_out(&spill, (void **)&r->off,
				 (size_t)(nn + 1) * sizeof(*r->off));
		gh_ret_spill_out(&spill, (void **)&r->adj,
				 (size_t)r->nedges * sizeof(*r->adj));
	}
	t.semi = gh_malloc_huge((size_t)n * sizeof(uint32_t));
	t.anc = gh_malloc_huge((size_t)n * sizeof(uint32_t));
	t.label = gh_malloc_huge((size_t)n * sizeof(uint32_t));
	x = gh_malloc_huge((size_t)n * sizeof(uint32_t));
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
	/* the retained sizes summed in DFS numbers, children before their
	 * dominator (a dominator's DFS number is smaller): x and the sums
	 * are read in the DFS's order, not at the nodes' places (on a heap
	 * of lists a node's dominator is the DFS's previous node, seldom
	 * the previous in memory); retn's sums in par's array (par is
	 * done) */
	retd = gh_calloc((size_t)n, sizeof(uint64_t));
	if (retd == NULL)
		goto out;
	gh_huge(retd, (size_t)n * sizeof(uint64_t));
	for (i = 1; i < n; i++) {
		uint32_t v = vert[i];

		retd[i] = v < r->nobj ? gh_retained_size(r, v) : 0;
		par[i] = v < r->nobj;
	}
	par[0] = 0;
	for (i = n - 1; i >= 1; i--) {
		retd[x[i]] += retd[i];
		par[x[i]] += par[i];
	}
	/* back to nodes, one array at a time (the peak stays the LT's) */
	r->idom = gh_malloc_huge(nn * sizeof(uint32_t));
	if (r->idom == NULL)
		goto out;
	memset(r->idom, 0xff, nn * sizeof(uint32_t));
	for (i = 1; i < n; i++)
		r->idom[vert[i]] = vert[x[i]];
	free(x);
	x = NULL;
	r->ret = gh_calloc(nn, sizeof(uint64_t));
	if (r->ret == NULL)
		goto out;
	gh_huge(r->ret, nn * sizeof(uint64_t));
	for (i = 0; i < n; i++)
		r->ret[vert[i]] = retd[i];
	free(retd);
	retd = NULL;
	r->retn = gh_calloc(nn, sizeof(uint32_t));
	if (r->retn == NULL)
		goto out;
	gh_huge(r->retn, nn * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		r->retn[vert[i]] = par[i];
	rc = 0;
out:
	free(nd);
	free(vert);
	free(par);
	free(poff);
	free(pred);
	free(x);
	free(t.semi);
	free(t.anc);
	free(t.label);
	free(retd);
	/* the spilled arrays back, after the working arrays (the peak) */
	rc2 = gh_ret_spill_in(&spill);
	return rc != 0 ? rc : rc2;
}

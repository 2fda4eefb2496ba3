/*
 * test_dominators.c - -p retained's dominator tree (src/lib/retained/dominators.c)
 * and its spill file (src/lib/retained/retspill.c).
 *
 * The graphs are the product's shape (retained.h): objects first, then
 * roots, then one super-root with an edge to every root; objects point at
 * objects, roots at objects, some objects are reached by nothing.  On
 * random graphs of many seeds, Lengauer-Tarjan's idom, ret and retn are
 * checked against a brute-force computation: d dominates v when v is
 * reachable and no longer is once d is removed; idom(v) is the strict
 * dominator that every other strict dominator of v dominates; ret/retn
 * sum the objects each node dominates.  A chain of two million objects
 * (with back edges, which change no dominator) runs past
 * GH_RET_SPILL_BYTES, so the spill file carries the arrays out and back,
 * and the iterative DFS goes two million deep.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "retained.h"
#include "retspill.h"

#define NONE GH_RET_NONE

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: the same graphs on every run */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)(((rng_state * 2685821657736338717ull) >> 33) % n);
}

/* A random graph of nobj objects and nroot roots, its edges in r's CSR;
 * each object's size8 is 1..8. */
static gh_retained *random_graph(uint32_t nobj, uint32_t nroot,
				 uint32_t maxdeg)
{
	gh_retained *r = calloc(1, sizeof(*r));
	uint32_t nn = nobj + nroot + 1, v, k, deg;
	uint64_t cap = (uint64_t)nn * (maxdeg + nroot + 1);

	assert_non_null(r);
	r->nobj = nobj;
	r->nroot = nroot;
	r->addr = calloc(nobj + 1, sizeof(*r->addr));
	r->ent = calloc(nobj + 1, sizeof(*r->ent));
	r->size8 = calloc(nobj + 1, sizeof(*r->size8));
	r->off = calloc((size_t)nn + 1, sizeof(*r->off));
	r->adj = calloc(cap, sizeof(*r->adj));
	assert_true(r->addr && r->ent && r->size8 && r->off && r->adj);
	for (v = 0; v < nobj; v++) {
		r->addr[v] = 0xc000000000ull + 64ull * v;
		r->ent[v] = v % 7;
		r->size8[v] = 1 + rnd(8);
	}
	for (v = 0; v < nn; v++) {
		r->off[v] = (uint32_t)r->nedges;
		if (v == nn - 1) {
			/* the super-root: every root */
			for (k = 0; k < nroot; k++)
				r->adj[r->nedges++] = nobj + k;
		} else if (nobj > 0) {
			/* objects: sometimes none (a leaf); a quarter of the
			 * objects pointed at by nobody are unreachable */
			deg = rnd(maxdeg + 1);
			for (k = 0; k < deg; k++)
				r->adj[r->nedges++] = rnd(nobj);
		}
	}
	r->off[nn] = (uint32_t)r->nedges;
	return r;
}

/* reached[u] after a DFS from the super-root with node `skip` removed */
static void reach(const gh_retained *r, uint32_t skip, uint8_t *reached,
		  uint32_t *stk)
{
	uint32_t nn = r->nobj + r->nroot + 1, root = nn - 1, sp = 0, e;

	memset(reached, 0, nn);
	if (skip == root)
		return;
	reached[root] = 1;
	stk[sp++] = root;
	while (sp > 0) {
		uint32_t v = stk[--sp];

		for (e = r->off[v]; e < r->off[v + 1]; e++) {
			uint32_t w = r->adj[e];

			if (w != skip && !reached[w]) {
				reached[w] = 1;
				stk[sp++] = w;
			}
		}
	}
}

/* The brute force against what gh_retained_dominators left in r. */
static void check_against_brute_force(const gh_retained *r)
{
	uint32_t nn = r->nobj + r->nroot + 1, root = nn - 1, d, v, u;
	uint8_t *dom = calloc((size_t)nn * nn, 1);  /* dom[d*nn+v]: d dom v */
	uint8_t *all = malloc(nn), *without = malloc(nn);
	uint32_t *stk = malloc((size_t)nn * sizeof(uint32_t));

	assert_true(dom && all && without && stk);
	reach(r, NONE, all, stk);
	for (d = 0; d < nn; d++) {
		reach(r, d, without, stk);
		for (v = 0; v < nn; v++)
			if (all[v] && all[d] && (v == d || !without[v]))
				dom[(size_t)d * nn + v] = 1;
	}
	for (v = 0; v < nn; v++) {
		uint32_t want = NONE;
		uint64_t ret = 0;
		uint32_t retn = 0;

		if (all[v] && v != root) {
			/* the strict dominator every other one dominates */
			for (d = 0; d < nn; d++) {
				int ok = d != v && dom[(size_t)d * nn + v];

				for (u = 0; ok && u < nn; u++)
					if (u != v && u != d &&
					    dom[(size_t)u * nn + v] &&
					    !dom[(size_t)u * nn + d])
						ok = 0;
				if (ok) {
					assert_int_equal(want, NONE);
					want = d;
				}
			}
			assert_int_not_equal(want, NONE);
		}
		/* the super-root's idom is NONE, as an unreachable node's */
		assert_int_equal(r->idom[v], want);
		for (u = 0; u < r->nobj; u++)
			if (all[v] && dom[(size_t)v * nn + u]) {
				ret += gh_retained_size(r, u);
				retn++;
			}
		assert_int_equal(r->ret[v], ret);
		assert_int_equal(r->retn[v], retn);
	}
	free(dom);
	free(all);
	free(without);
	free(stk);
}

static void free_graph(gh_retained *r)
{
	gh_retained_free(r);
}

static void test_random_graphs(void **state)
{
	unsigned seed, tried = 0;

	(void)state;
	for (seed = 1; seed <= 400; seed++) {
		uint32_t nobj, nroot, maxdeg;
		gh_retained *r;

		rng_state = 0x9e3779b97f4a7c15ull * seed;
		nobj = rnd(60);
		nroot = 1 + rnd(seed % 4 == 0 ? 12 : 3);
		maxdeg = rnd(4);
		r = random_graph(nobj, nroot, maxdeg);
		assert_int_equal(gh_retained_dominators(r), 0);
		check_against_brute_force(r);
		free_graph(r);
		tried++;
	}
	assert_int_equal(tried, 400);
}

/* Graphs with a known answer: a diamond, a cycle through the roots, two
 * roots sharing a child, an object nothing reaches. */
static void test_small_shapes(void **state)
{
	/* objects 0..4, roots 5, 6, super-root 7:
	 * 5->0, 6->0, 0->1, 0->2, 1->3, 2->3, 3->0, 6->4? no: 4 unreached */
	static const uint32_t off[] = { 0, 2, 3, 4, 5, 5, 6, 7, 9 };
	static const uint32_t adj[] = { 1, 2, 3, 3, 0, 0, 0, 5, 6 };
	static const uint32_t want[] = { 7, 0, 0, 0, NONE, 7, 7, NONE };
	gh_retained *r = calloc(1, sizeof(*r));
	uint32_t v;

	(void)state;
	assert_non_null(r);
	r->nobj = 5;
	r->nroot = 2;
	r->addr = calloc(5, sizeof(*r->addr));
	r->ent = calloc(5, sizeof(*r->ent));
	r->size8 = calloc(5, sizeof(*r->size8));
	r->off = malloc(sizeof(off));
	r->adj = malloc(sizeof(adj));
	assert_true(r->addr && r->ent && r->size8 && r->off && r->adj);
	memcpy(r->off, off, sizeof(off));
	memcpy(r->adj, adj, sizeof(adj));
	r->nedges = GH_ARRAY_LEN(adj);
	for (v = 0; v < 5; v++)
		r->size8[v] = v + 1;
	assert_int_equal(gh_retained_dominators(r), 0);
	for (v = 0; v < 8; v++)
		assert_int_equal(r->idom[v], want[v]);
	/* 0 dominates 0..3: 8+16+24+32 bytes; 4 (40 B) is unreachable */
	assert_int_equal(r->ret[0], 80);
	assert_int_equal(r->retn[0], 4);
	assert_int_equal(r->ret[7], 80);
	assert_int_equal(r->ret[4], 0);
	assert_int_equal(r->retn[4], 0);
	assert_int_equal(r->ret[5], 0);   /* two roots share object 0 */
	check_against_brute_force(r);
	free_graph(r);
}

/* Two million objects in a chain from one root, each with a back edge to
 * the chain's start: the spillable arrays (12 B an object, 4 a node and an
 * edge) are about 40 MiB, past GH_RET_SPILL_BYTES; idom(i) is i-1. */
static void test_chain_spills(void **state)
{
	const uint32_t nobj = 2000000;
	uint32_t nn = nobj + 2, v, e = 0;
	gh_retained *r = calloc(1, sizeof(*r));
	uint64_t total = 0;

	(void)state;
	assert_true((uint64_t)nobj * 12 + (uint64_t)(nn + 1) * 4 +
		    (uint64_t)2 * nobj * 4 > GH_RET_SPILL_BYTES);
	assert_non_null(r);
	r->nobj = nobj;
	r->nroot = 1;
	r->addr = malloc(nobj * sizeof(*r->addr));
	r->ent = malloc(nobj * sizeof(*r->ent));
	r->size8 = malloc(nobj * sizeof(*r->size8));
	r->off = malloc(((size_t)nn + 1) * sizeof(*r->off));
	r->adj = malloc(((size_t)2 * nobj + 2) * sizeof(*r->adj));
	assert_true(r->addr && r->ent && r->size8 && r->off && r->adj);
	for (v = 0; v < nobj; v++) {
		r->addr[v] = 0xc000000000ull + 16ull * v;
		r->ent[v] = v * 3;
		r->size8[v] = 1 + v % 5;
		total += 8 * (1 + v % 5);
		r->off[v] = e;
		if (v + 1 < nobj)
			r->adj[e++] = v + 1;
		r->adj[e++] = 0;
	}
	r->off[nobj] = e;          /* the root: object 0 */
	r->adj[e++] = 0;
	r->off[nobj + 1] = e;      /* the super-root: the root */
	r->adj[e++] = nobj;
	r->off[nn] = e;
	r->nedges = e;
	assert_int_equal(gh_retained_dominators(r), 0);
	/* the arrays came back from the file as they went */
	assert_non_null(r->addr);
	assert_non_null(r->ent);
	assert_non_null(r->off);
	assert_non_null(r->adj);
	for (v = 0; v < nobj; v++) {
		assert_int_equal(r->addr[v], 0xc000000000ull + 16ull * v);
		assert_int_equal(r->ent[v], v * 3);
		assert_int_equal(r->idom[v], v == 0 ? nobj : v - 1);
	}
	assert_int_equal(r->off[nn], e);
	assert_int_equal(r->adj[e - 1], nobj);
	assert_int_equal(r->idom[nobj], nobj + 1);
	assert_int_equal(r->ret[0], total);
	assert_int_equal(r->retn[0], nobj);
	assert_int_equal(r->ret[nobj + 1], total);
	assert_int_equal(r->ret[nobj - 1], 8 * (1 + (nobj - 1) % 5));
	free_graph(r);
}

/* The spill file alone: arrays out (freed, NULL), back in (equal). */
static void test_spill_roundtrip(void **state)
{
	gh_ret_spill sp;
	uint32_t *a = malloc(1000 * sizeof(uint32_t));
	uint64_t *b = malloc(3 * sizeof(uint64_t)), *empty = NULL;
	unsigned i;

	(void)state;
	assert_true(a && b);
	for (i = 0; i < 1000; i++)
		a[i] = i * 2654435761u;
	b[0] = 1;
	b[1] = UINT64_MAX;
	b[2] = 0;
	gh_ret_spill_init(&sp);
	gh_ret_spill_out(&sp, (void **)&a, 1000 * sizeof(uint32_t));
	gh_ret_spill_out(&sp, (void **)&b, 3 * sizeof(uint64_t));
	assert_null(a);
	assert_null(b);
	assert_int_equal(sp.n, 2);
	assert_int_equal(gh_ret_spill_in(&sp), 0);
	assert_non_null(a);
	assert_non_null(b);
	for (i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 2654435761u);
	assert_int_equal(b[0], 1);
	assert_int_equal(b[1], UINT64_MAX);
	assert_int_equal(b[2], 0);
	(void)empty;
	free(a);
	free(b);
}

/* A $TMPDIR where no file can be made: nothing spills, the arrays stay. */
static void test_spill_unwritable(void **state)
{
	gh_ret_spill sp;
	uint32_t *a = malloc(64 * sizeof(uint32_t)), *keep = a;
	const char *old = getenv("TMPDIR");
	char saved[4096] = "";

	(void)state;
	assert_non_null(a);
	if (old != NULL)
		snprintf(saved, sizeof(saved), "%s", old);
	setenv("TMPDIR", "/nonexistent/go-heap-test", 1);
	gh_ret_spill_init(&sp);
	gh_ret_spill_out(&sp, (void **)&a, 64 * sizeof(uint32_t));
	assert_ptr_equal(a, keep);
	assert_int_equal(gh_ret_spill_in(&sp), 0);
	assert_ptr_equal(a, keep);
	if (old != NULL)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_shapes),
		cmocka_unit_test(test_random_graphs),
		cmocka_unit_test(test_chain_spills),
		cmocka_unit_test(test_spill_roundtrip),
		cmocka_unit_test(test_spill_unwritable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_retgraph.c - -p retained's graph under construction (src/lib/
 * retgraph.c) on synthetic objects, no target: the objects as the heap walk
 * gives them (each span's slots ascending, spans in allspans' order, so
 * ascending runs in any order) sorted by address with their sizes and rows
 * carried along; findObject (interior pointers, gaps, the last object's
 * end, below the first); the CSR of objects' and roots' edges as the
 * builder makes it, with the roots' labels.  The dominators over such a
 * graph are tests/test_dominators.c's.
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

#include "retained_int.h"

#define NONE GH_RET_NONE

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)(((rng_state * 2685821657736338717ull) >> 33) % n);
}

/* spans of 8 KiB at distinct bases, visited in a shuffled order, each
 * contributing its slots ascending: one run a span */
static void make_runs(rb *b, gh_retained *r, uint32_t nspans)
{
	uint32_t *order = malloc(nspans * sizeof(*order)), i, k, t;
	size_t n = 0, nr = 0, cap = (size_t)nspans * 128 + 1;

	assert_non_null(order);
	r->addr = malloc(cap * sizeof(*r->addr));
	r->size8 = malloc(cap * sizeof(*r->size8));
	r->ent = malloc(cap * sizeof(*r->ent));
	b->runs = calloc(nspans, sizeof(*b->runs));
	assert_true(r->addr && r->size8 && r->ent && b->runs);
	for (i = 0; i < nspans; i++)
		order[i] = i;
	for (i = nspans; i > 1; i--) {
		k = rnd(i);
		t = order[i - 1];
		order[i - 1] = order[k];
		order[k] = t;
	}
	for (i = 0; i < nspans; i++) {
		uint64_t base = 0xc000000000ull + (uint64_t)order[i] * 8192;
		uint32_t elem8 = 2u << rnd(5);       /* 16..256 bytes */
		uint32_t slots = 8192 / (elem8 * 8), s, used = 0;

		for (s = 0; s < slots && n < cap; s++) {
			if (rnd(3) == 0)
				continue;     /* a free slot */
			r->addr[n] = base + (uint64_t)s * elem8 * 8;
			r->size8[n] = elem8;
			/* the row follows the address: checks the permutation */
			r->ent[n] = (uint32_t)(r->addr[n] >> 4);
			n++;
			used++;
		}
		if (used == 0)
			continue;     /* the walk makes no empty run */
		b->runs[nr].at = n - used;
		b->runs[nr].n = used;
		b->runs[nr].lo = r->addr[n - used];
		b->runs[nr].hi = r->addr[n - 1];
		nr++;
	}
	b->nruns = nr;
	b->nobjs = n;
	r->nobj = (uint32_t)n;
	free(order);
}

static void test_sort_objects(void **state)
{
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 50; seed++) {
		gh_target t;
		gh_retained r;
		rb b;
		uint32_t i;

		rng_state = 0x9e3779b97f4a7c15ull * seed;
		memset(&t, 0, sizeof(t));
		memset(&r, 0, sizeof(r));
		memset(&b, 0, sizeof(b));
		b.s = &t;
		b.r = &r;
		b.cur_root = NONE;
		make_runs(&b, &r, 1 + rnd(40));
		assert_int_equal(gh_ret_sort_objects(&b), 0);
		for (i = 0; i < r.nobj; i++) {
			if (i > 0)
				assert_true(r.addr[i - 1] < r.addr[i]);
			assert_int_equal(r.ent[i], (uint32_t)(r.addr[i] >> 4));
			assert_int_equal((r.addr[i] - 0xc000000000ull) %
					 ((uint64_t)r.size8[i] * 8), 0);
		}
		/* findObject: each object's first, interior and last byte;
		 * the byte past it is the next object's or none */
		for (i = 0; i < r.nobj; i++) {
			uint64_t a = r.addr[i], sz = gh_retained_size(&r, i);
			uint32_t after = gh_retained_find(&r, a + sz);

			assert_int_equal(gh_retained_find(&r, a), i);
			assert_int_equal(gh_retained_find(&r, a + sz / 2), i);
			assert_int_equal(gh_retained_find(&r, a + sz - 1), i);
			if (i + 1 < r.nobj && r.addr[i + 1] == a + sz)
				assert_int_equal(after, i + 1);
			else
				assert_int_equal(after, NONE);
		}
		if (r.nobj > 0)
			assert_int_equal(gh_retained_find(&r, r.addr[0] - 1),
					 NONE);
		assert_int_equal(gh_retained_find(&r, 0), NONE);
		free(b.runs);
		free(r.addr);
		free(r.size8);
		free(r.ent);
		free(r.pg);     /* the page index (gh_ret_sort_objects) */
	}
}

/* Runs already ascending: nothing to merge, the arrays stay as they are. */
static void test_sorted_runs_untouched(void **state)
{
	gh_target t;
	gh_retained r;
	rb b;
	uint64_t *addr;
	struct run runs[2] = { { 0x1000, 0x1010, 0, 2 },
			       { 0x2000, 0x2000, 2, 1 } };

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&r, 0, sizeof(r));
	memset(&b, 0, sizeof(b));
	r.addr = malloc(3 * sizeof(*r.addr));
	r.size8 = malloc(3 * sizeof(*r.size8));
	r.ent = malloc(3 * sizeof(*r.ent));
	assert_true(r.addr && r.size8 && r.ent);
	r.addr[0] = 0x1000;
	r.addr[1] = 0x1010;
	r.addr[2] = 0x2000;
	r.size8[0] = r.size8[1] = r.size8[2] = 2;
	r.ent[0] = 0;
	r.ent[1] = 1;
	r.ent[2] = 2;
	r.nobj = 3;
	b.s = &t;
	b.r = &r;
	b.runs = runs;
	b.nruns = 2;
	b.nobjs = 3;
	addr = r.addr;
	assert_int_equal(gh_ret_sort_objects(&b), 0);
	assert_ptr_equal(r.addr, addr);
	assert_int_equal(gh_retained_find(&r, 0x100f), 0);
	assert_int_equal(gh_retained_find(&r, 0x1020), NONE);
	assert_int_equal(gh_retained_find(&r, 0x200f), 2);
	free(r.addr);
	free(r.size8);
	free(r.ent);
	free(r.pg);     /* the page index (gh_ret_sort_objects) */
}

/* The plain search gh_retained_find's page index and first guess must
 * agree with: the last object starting at or below p, if p is in it. */
static uint32_t find_ref(const gh_retained *r, uint64_t p)
{
	uint32_t lo = 0, hi = r->nobj;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->addr[mid] <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NONE;
	lo--;
	return p - r->addr[lo] < gh_retained_size(r, lo) ? lo : NONE;
}

/* Spans of Go's size classes that do not divide a page (48, 112, 1152
 * bytes, ...: the first guess is off by some slots), of one or several
 * pages, some slots free, a gap between spans: every 8th byte of the
 * range found as the plain search finds it. */
static void test_find_odd_classes(void **state)
{
	static const uint32_t cls[] = { 16, 24, 48, 80, 112, 208, 416, 1152,
					3072, 8192, 13568 };
	static const uint32_t pages[] = { 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 5 };
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		gh_target t;
		gh_retained r;
		rb b;
		struct run run;
		size_t cap = 40000, n = 0;
		uint64_t base = 0xc000000000ull, p, end;
		unsigned sp;

		rng_state = 0x9e3779b97f4a7c15ull * (seed + 100);
		memset(&t, 0, sizeof(t));
		memset(&r, 0, sizeof(r));
		memset(&b, 0, sizeof(b));
		r.addr = malloc(cap * sizeof(*r.addr));
		r.size8 = malloc(cap * sizeof(*r.size8));
		r.ent = malloc(cap * sizeof(*r.ent));
		assert_true(r.addr && r.size8 && r.ent);
		for (sp = 0; sp < 40; sp++) {
			unsigned c = rnd(sizeof(cls) / sizeof(cls[0])), s;
			uint64_t bytes = (uint64_t)pages[c] * 8192;
			unsigned dense = rnd(4);

			for (s = 0; (uint64_t)(s + 1) * cls[c] <= bytes; s++) {
				if (dense == 0 ? rnd(2) == 0 : rnd(8) == 0)
					continue;     /* a free slot */
				r.addr[n] = base + (uint64_t)s * cls[c];
				r.size8[n] = cls[c] / 8;
				r.ent[n] = 0;
				n++;
			}
			base += bytes + (rnd(3) == 0 ? 8192 * (1 + rnd(3)) : 0);
		}
		assert_true(n > 0 && n < cap);
		run.lo = r.addr[0];
		run.hi = r.addr[n - 1];
		run.at = 0;
		run.n = n;
		r.nobj = (uint32_t)n;
		b.s = &t;
		b.r = &r;
		b.runs = &run;
		b.nruns = 1;
		b.nobjs = n;
		assert_int_equal(gh_ret_sort_objects(&b), 0);
		assert_non_null(r.pg);
		end = r.addr[n - 1] + gh_retained_size(&r, (uint32_t)n - 1);
		for (p = 0xc000000000ull - 64; p < end + 64; p += 8)
			assert_int_equal(gh_retained_find(&r, p),
					 find_ref(&r, p));
		free(r.addr);
		free(r.size8);
		free(r.ent);
		free(r.pg);
	}
}

/* The CSR as the builder makes it: each object's edges then its node
 * closed, then root nodes, each closed by the next or at the end. */
static void test_edges_and_roots(void **state)
{
	gh_target t;
	gh_retained r;
	rb b;
	uint32_t v;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&r, 0, sizeof(r));
	memset(&b, 0, sizeof(b));
	b.s = &t;
	b.r = &r;
	b.cur_root = NONE;
	r.nobj = 3;
	assert_int_equal(gh_ret_edge(&b, 1), 0);
	assert_int_equal(gh_ret_edge(&b, 2), 0);
	assert_int_equal(gh_ret_node_end(&b, 0), 0);
	r.off[0] = 0;     /* the builder's start (retained.c) */
	assert_int_equal(gh_ret_node_end(&b, 1), 0);   /* no edges */
	assert_int_equal(gh_ret_edge(&b, 0), 0);
	assert_int_equal(gh_ret_node_end(&b, 2), 0);
	assert_int_equal(gh_ret_root_new(&b, GH_ROOT_DATA, 0x5000, 0,
					 "main.global"), 0);
	assert_int_equal(gh_ret_edge(&b, 0), 0);
	assert_int_equal(gh_ret_root_new(&b, GH_ROOT_STACK, 0x7000, 42,
					 "goroutine 42"), 0);
	assert_int_equal(gh_ret_edge(&b, 2), 0);
	assert_int_equal(gh_ret_edge(&b, 1), 0);
	assert_int_equal(gh_ret_node_end(&b, (uint64_t)r.nobj + b.cur_root),
			 0);
	assert_int_equal(r.nroot, 2);
	assert_int_equal(r.nedges, 6);
	{
		static const uint32_t off[] = { 0, 2, 2, 3, 4, 6 };
		static const uint32_t adj[] = { 1, 2, 0, 0, 2, 1 };

		for (v = 0; v < 6; v++)
			assert_int_equal(r.off[v], off[v]);
		for (v = 0; v < 6; v++)
			assert_int_equal(r.adj[v], adj[v]);
	}
	assert_int_equal(r.roots[0].kind, GH_ROOT_DATA);
	assert_int_equal(r.roots[1].goid, 42);
	assert_string_equal(r.names.data + r.roots[0].name, "main.global");
	assert_string_equal(r.names.data + r.roots[1].name, "goroutine 42");
	free(r.off);
	free(r.adj);
	free(r.roots);
	gh_buf_free(&r.names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_objects),
		cmocka_unit_test(test_sorted_runs_untouched),
		cmocka_unit_test(test_find_odd_classes),
		cmocka_unit_test(test_edges_and_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_walk.c - the walker against a fake memory source filled from byte
 * arrays: the runtime's flush and "no GC yet" fold, version layouts, both
 * word sizes and byte orders, and hostile lists (cycles, absurd depths,
 * unmapped pointers, wrong bucket types).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fakemem.h"
#include "walk.h"

/* ---- fake memory source: one flat image at a base address ------------ */

#define IMG_BASE 0x10000u
#define IMG_SIZE 0x10000u

typedef struct fake {
	unsigned char img[IMG_SIZE];
	unsigned ps;
	int big;
} fake;


static void put(fake *f, uint64_t addr, uint64_t v, unsigned size)
{
	unsigned char *p = f->img + (addr - IMG_BASE);
	unsigned i;

	for (i = 0; i < size; i++) {
		unsigned shift = f->big ? (size - 1 - i) * 8 : i * 8;

		p[i] = (unsigned char)(v >> shift);
	}
}

/* Global addresses inside the image. */
#define A_MBUCKETS (IMG_BASE + 0x10)
#define A_BBUCKETS (IMG_BASE + 0x18)
#define A_XBUCKETS (IMG_BASE + 0x20)
#define A_CYCLE (IMG_BASE + 0x28)
#define A_RATE (IMG_BASE + 0x30)

typedef struct mrec {
	uint64_t c[4][4]; /* active, future[0..2]: allocs, frees, ab, fb */
} mrec;

/*
 * Write a memory bucket at addr using the layout; returns its size.
 * cycle_words 2 writes only allocs/frees.
 */
static uint64_t put_bucket(fake *f, const gh_rtlayout *lay, uint64_t addr,
			   uint64_t next, uint64_t typ, uint64_t size,
			   const uint64_t *stk, unsigned nstk, const mrec *r)
{
	unsigned ps = f->ps, i, k, w;
	uint64_t p;

	put(f, addr + lay->w_allnext * ps, next, ps);
	put(f, addr + lay->w_typ * ps, typ, ps);
	put(f, addr + 3 * ps, 0x1234, ps);
	put(f, addr + lay->w_size * ps, size, ps);
	put(f, addr + lay->w_nstk * ps, nstk, ps);
	p = addr + lay->bucket_words * ps;
	for (i = 0; i < nstk; i++, p += ps)
		put(f, p, stk[i], ps);
	if (r != NULL) {
		for (k = 0; k < 4; k++)
			for (w = 0; w < lay->cycle_words; w++, p += ps)
				put(f, p, r->c[k][w], ps);
	}
	return p - addr;
}

static gh_gover ver(int minor)
{
	gh_gover v = { 1, minor, 0 };
	return v;
}

/* What gh_walk_stream handed out: records with their stacks copied. */
typedef struct collected {
	gh_record r[256];
	uint64_t stk[256][64];
	size_t n;
	int began;
	int64_t rate_at_begin;
} collected;

static int col_begin(void *arg, const gh_profile *p)
{
	collected *c = arg;

	c->began++;
	c->rate_at_begin = p->rate;
	return 0;
}

static int col_record(void *arg, const gh_record *r)
{
	collected *c = arg;

	assert_true(c->n < 256 && r->nstk <= 64);
	c->r[c->n] = *r;
	if (r->nstk > 0)
		memcpy(c->stk[c->n], r->stk, r->nstk * sizeof(*r->stk));
	c->r[c->n].stk = c->stk[c->n];
	c->n++;
	return 0;
}

/*
 * gh_walk_stream over the same image must hand out exactly the records
 * gh_walk kept, in order, and fail the same way: every test of this file
 * checks the streaming walk too (the fold, the skips, the refusals).
 */
static void check_stream(fake *f, const gh_profile *want, int want_rc,
			 int minor, int kind, double deadline)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(minor));
	gh_rtaddrs a = { .mbuckets = A_MBUCKETS, .bbuckets = A_BBUCKETS,
			 .xbuckets = A_XBUCKETS, .mprofcycle = A_CYCLE,
			 .memprofilerate = A_RATE };
	gh_fakemem src = { f->img, IMG_SIZE, IMG_BASE };
	collected *c = calloc(1, sizeof(*c));
	gh_walk_sink sink = { col_begin, col_record, NULL };
	gh_profile p;
	gh_err err;
	gh_mem m;
	size_t i;
	int rc;

	assert_non_null(c);
	sink.arg = c;
	memset(&err, 0, sizeof(err));
	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.ver = ver(minor);
	gh_mem_init(&m, &gh_fakemem_ops, &src, f->ps, f->big, &err);
	m.deadline = deadline;
	rc = gh_walk_stream(&p, &m, lay, &a, &sink, &err);
	gh_mem_fini(&m);
	assert_int_equal(rc, want_rc);
	assert_int_equal(p.nrecs, 0);
	assert_null(p.recs);
	if (rc == 0) {
		assert_int_equal(c->began, 1);
		assert_int_equal(c->rate_at_begin, want->rate);
		assert_int_equal(c->n, want->nrecs);
		assert_int_equal(p.skipped, want->skipped);
		assert_int_equal(p.nbuckets, want->nbuckets);
		/* the same first bucket named, though the stream checks
		 * the totals as it goes (fuzz_walk found them differ) */
		assert_int_equal(p.skipped_bucket, want->skipped_bucket);
		assert_string_equal(p.skipped_reason, want->skipped_reason);
		for (i = 0; i < c->n; i++) {
			const gh_record *x = &c->r[i], *y = &want->recs[i];

			assert_int_equal(x->alloc_objects, y->alloc_objects);
			assert_int_equal(x->free_objects, y->free_objects);
			assert_int_equal(x->alloc_bytes, y->alloc_bytes);
			assert_int_equal(x->free_bytes, y->free_bytes);
			assert_int_equal(x->count, y->count);
			assert_int_equal(x->cycles, y->cycles);
			assert_int_equal(x->bucket, y->bucket);
			assert_int_equal(x->object_size, y->object_size);
			assert_int_equal(x->nstk, y->nstk);
			if (x->nstk > 0)
				assert_memory_equal(x->stk, y->stk,
						    x->nstk * sizeof(*x->stk));
		}
	}
	gh_profile_destroy(&p);
	free(c);
}

/* gh_walk over f's image; deadline as gh_mem's (0: none); *nreads if asked. */
static int run_limited(fake *f, gh_profile *p, int minor, int kind,
		       gh_err *err, double deadline, uint64_t *nreads)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(minor));
	gh_rtaddrs a = { .mbuckets = A_MBUCKETS, .bbuckets = A_BBUCKETS,
			 .xbuckets = A_XBUCKETS, .mprofcycle = A_CYCLE,
			 .memprofilerate = A_RATE };
	gh_fakemem src = { f->img, IMG_SIZE, IMG_BASE };
	gh_mem m;
	int rc;

	assert_non_null(lay);
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->ver = ver(minor);
	gh_mem_init(&m, &gh_fakemem_ops, &src, f->ps, f->big, err);
	m.deadline = deadline;
	rc = gh_walk(p, &m, lay, &a, err);
	if (nreads != NULL)
		*nreads = m.nreads;
	gh_mem_fini(&m);
	check_stream(f, p, rc, minor, kind, deadline);
	return rc;
}

static int run(fake *f, gh_profile *p, int minor, int kind, gh_err *err)
{
	return run_limited(f, p, minor, kind, err, 0, NULL);
}

static fake *new_fake(unsigned ps, int big)
{
	fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->ps = ps;
	f->big = big;
	return f;
}

/* Two buckets; cycle 7 (value 7<<1|1): idx 1 is flushed into active. */
static void test_flush_active(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(8, 0);
	uint64_t s1[] = { 0x401000, 0x402000 }, s2[] = { 0x403000 };
	mrec r1 = { { { 10, 4, 640, 256 }, { 100, 100, 6400, 6400 },
		      { 1, 1, 64, 64 }, { 7, 7, 448, 448 } } };
	mrec r2 = { { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
		      { 5, 0, 80, 0 } } };
	uint64_t b1 = IMG_BASE + 0x100, b2 = IMG_BASE + 0x400;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_CYCLE, (7u << 1) | 1u, 4);
	put(f, A_RATE, 1, 8);
	put_bucket(f, lay, b1, b2, 1, 64, s1, 2, &r1);
	put_bucket(f, lay, b2, 0, 1, 16, s2, 1, &r2);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.nrecs, 2);
	assert_int_equal(p.rate, 1);
	/* list order: b1 first; active + future[7 % 3 = 1] */
	assert_int_equal(p.recs[0].alloc_objects, 11);
	assert_int_equal(p.recs[0].free_objects, 5);
	assert_int_equal(p.recs[0].alloc_bytes, 704);
	assert_int_equal(p.recs[0].free_bytes, 320);
	assert_int_equal(p.recs[0].nstk, 2);
	assert_int_equal(p.recs[0].stk[1], 0x402000);
	assert_int_equal(p.recs[0].bucket, b1);
	/* b2 is all zero (allocated after the last GC): still a record. */
	assert_int_equal(p.recs[1].alloc_objects, 0);
	assert_int_equal(p.recs[1].stk[0], 0x403000);
	gh_profile_destroy(&p);
	free(f);
}

/*
 * No GC yet: after flushing future[cycle % 3] (zero here) every active
 * count is zero, so all futures are folded.
 */
static void test_no_gc_fold(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(21));
	fake *f = new_fake(8, 0);
	uint64_t s1[] = { 0x401000 };
	mrec r1 = { { { 0, 0, 0, 0 }, { 1, 0, 8, 0 }, { 2, 1, 16, 8 },
		      { 0, 0, 0, 0 } } };
	uint64_t b1 = IMG_BASE + 0x100;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_CYCLE, 2u << 1, 4);
	put(f, A_RATE, 524288, 8);
	put_bucket(f, lay, b1, 0, 1, 8, s1, 1, &r1);
	assert_int_equal(run(f, &p, 21, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].alloc_objects, 3);
	assert_int_equal(p.recs[0].free_objects, 1);
	assert_int_equal(p.recs[0].alloc_bytes, 24);
	assert_int_equal(p.recs[0].free_bytes, 8);
	gh_profile_destroy(&p);
	free(f);
}

/* Go 1.27: memRecordCycle is {allocs, frees}; bytes = count x size. */
static void test_go127_layout(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(27));
	fake *f = new_fake(8, 0);
	uint64_t s1[] = { 0x401000 };
	mrec r1 = { { { 3, 1 }, { 0, 0 }, { 0, 0 }, { 2, 2 } } };
	uint64_t b1 = IMG_BASE + 0x100;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	assert_int_equal(lay->cycle_words, 2);
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_CYCLE, 5u << 1, 4); /* idx 2 */
	put(f, A_RATE, 524288, 8);
	put_bucket(f, lay, b1, 0, 1, 48, s1, 1, &r1);
	assert_int_equal(run(f, &p, 27, GOHEAP_PROFILE_ALLOCS, &err), 0);
	assert_int_equal(p.recs[0].alloc_objects, 5);
	assert_int_equal(p.recs[0].free_objects, 3);
	assert_int_equal(p.recs[0].alloc_bytes, 240);
	assert_int_equal(p.recs[0].free_bytes, 144);
	gh_profile_destroy(&p);
	free(f);
}

/* 32-bit big-endian target: 24-byte header, 4-byte words. */
static void test_be32(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(4, 1);
	uint64_t s1[] = { 0x8049000, 0x8049100, 0x8049200 };
	mrec r1 = { { { 2, 1, 32, 16 }, { 0 }, { 0 }, { 0 } } };
	uint64_t b1 = IMG_BASE + 0x100;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 4);
	put(f, A_CYCLE, 0, 4);
	put(f, A_RATE, 1, 4);
	put_bucket(f, lay, b1, 0, 1, 16, s1, 3, &r1);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].nstk, 3);
	assert_int_equal(p.recs[0].stk[2], 0x8049200);
	assert_int_equal(p.recs[0].alloc_bytes, 32);
	gh_profile_destroy(&p);
	free(f);
}

static void test_disabled(void **state)
{
	fake *f = new_fake(8, 0);
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_EDISABLED);
	gh_profile_destroy(&p);
	free(f);
}

static void test_cycle_detected(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(23));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000 };
	mrec r = { { { 1, 0, 8, 0 } } };
	uint64_t b[4] = { IMG_BASE + 0x100, IMG_BASE + 0x300,
			  IMG_BASE + 0x500, IMG_BASE + 0x700 };
	gh_profile p;
	gh_err err = { 0, "" };
	int i;

	(void)state;
	put(f, A_MBUCKETS, b[0], 8);
	put(f, A_RATE, 1, 8);
	for (i = 0; i < 4; i++)
		put_bucket(f, lay, b[i], b[(i + 1) % 4 == 0 ? 1 : i + 1], 1, 8,
			   s, 1, &r);
	assert_int_equal(run(f, &p, 23, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_ECORRUPT);
	assert_non_null(strstr(err.msg, "cycle"));
	gh_profile_destroy(&p);
	free(f);
}

static void test_hostile_fields(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000 };
	mrec r = { { { 1, 0, 8, 0 } } };
	uint64_t b1 = IMG_BASE + 0x100;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_RATE, 1, 8);
	/* absurd depth */
	put_bucket(f, lay, b1, 0, 1, 8, s, 1, &r);
	put(f, b1 + 5 * 8, 1u << 30, 8);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_ECORRUPT);
	assert_non_null(strstr(err.msg, "stack depth"));
	gh_profile_destroy(&p);
	/* wrong bucket type */
	put_bucket(f, lay, b1, 0, 2, 8, s, 1, &r);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_ECORRUPT);
	gh_profile_destroy(&p);
	/* allnext into unmapped memory */
	put_bucket(f, lay, b1, 0xdead0000ull, 1, 8, s, 1, &r);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_EUNMAPPED);
	assert_non_null(strstr(err.msg, "0xdead0000"));
	gh_profile_destroy(&p);
	/* misaligned pointer */
	put_bucket(f, lay, b1, IMG_BASE + 0x203, 1, 8, s, 1, &r);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_ECORRUPT);
	gh_profile_destroy(&p);
	free(f);
}

/* Block buckets: float64 count truncated; Count 0 becomes 1 (block). */
static void test_block_records(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000 };
	uint64_t b1 = IMG_BASE + 0x100, b2 = IMG_BASE + 0x200, bits, rec;
	double c1 = 2.75, c2 = 0.25;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_BBUCKETS, b1, 8);
	rec = b1 + put_bucket(f, lay, b1, b2, 2, 0, s, 1, NULL);
	memcpy(&bits, &c1, 8);
	put(f, rec, bits, 8);
	put(f, rec + 8, 123456, 8);
	rec = b2 + put_bucket(f, lay, b2, 0, 2, 0, s, 1, NULL);
	memcpy(&bits, &c2, 8);
	put(f, rec, bits, 8);
	put(f, rec + 8, 99, 8);
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_BLOCK, &err), 0);
	assert_int_equal(p.nrecs, 2);
	assert_int_equal(p.recs[0].count, 2);
	assert_int_equal(p.recs[0].cycles, 123456);
	assert_int_equal(p.recs[1].count, 1);
	gh_profile_destroy(&p);
	free(f);
}

/*
 * Implausible buckets (walk.c): each damaged one is skipped and counted,
 * the first one's address and reason kept, the others read as usual, and
 * the "no GC yet" decision ignores the skipped ones.
 */
static void test_implausible_skipped(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(24));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000, 0x402000 }, bad_pc[] = { 0x401000, 0 };
	mrec ok = { { { 4, 1, 64, 16 } } };
	mrec bytes = { { { 4, 1, 65, 16 } } };     /* 65 != 4 x 16 */
	mrec frees = { { { 1, 4, 16, 64 } } };     /* frees > allocs */
	mrec future = { { { 4, 1, 64, 16 }, { 0 }, { 0 },
			  { 0, 0, 0, 1 } } };      /* future[2] bytes */
	mrec huge = { { { (uint64_t)1 << 59, 0, (uint64_t)1 << 63, 0 } } };
	mrec large = { { { 4, 1, 4 * 40960, 40960 } } };
	uint64_t b[8];
	gh_profile p;
	gh_err err = { 0, "" };
	int i;

	(void)state;
	for (i = 0; i < 8; i++)
		b[i] = IMG_BASE + 0x100 + (uint64_t)i * 0x100;
	put(f, A_MBUCKETS, b[0], 8);
	put(f, A_CYCLE, 3u << 1, 4); /* idx 0: nothing to flush */
	put(f, A_RATE, 512 * 1024, 8);
	put_bucket(f, lay, b[0], b[1], 1, 16, s, 2, &ok);
	put_bucket(f, lay, b[1], b[2], 1, 16, s, 2, &bytes);
	put_bucket(f, lay, b[2], b[3], 1, 17, s, 2, &ok);     /* size */
	put_bucket(f, lay, b[3], b[4], 1, 16, bad_pc, 2, &ok);/* PC 0 */
	put_bucket(f, lay, b[4], b[5], 1, 16, s, 2, &frees);
	put_bucket(f, lay, b[5], b[6], 1, 16, s, 2, &future);
	put_bucket(f, lay, b[6], b[7], 1, 8, s, 2, &huge);
	put_bucket(f, lay, b[7], 0, 1, 40960, s, 1, &large);  /* 5 pages */
	assert_int_equal(run(f, &p, 24, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.nbuckets, 8);
	assert_int_equal(p.skipped, 6);
	assert_int_equal(p.nrecs, 2);
	assert_int_equal(p.recs[1].bucket, b[7]);
	assert_int_equal(p.skipped_bucket, b[1]);
	assert_non_null(strstr(p.skipped_reason, "are not"));
	assert_int_equal(p.recs[0].bucket, b[0]);
	assert_int_equal(p.recs[0].alloc_bytes, 64);
	assert_int_equal(p.recs[0].stk[1], 0x402000);
	gh_profile_destroy(&p);

	free(f);
}

/*
 * n buckets at IMG_BASE + 0x100 + i x 0x100, the first nbad of them with
 * bytes that are not count x size.
 */
static void put_list(fake *f, const gh_rtlayout *lay, int n, int nbad)
{
	uint64_t s[] = { 0x401000, 0x402000 };
	mrec ok = { { { 4, 1, 64, 16 } } };
	mrec bytes = { { { 4, 1, 65, 16 } } };
	uint64_t at;
	int i;

	memset(f->img, 0, sizeof(f->img));
	put(f, A_MBUCKETS, IMG_BASE + 0x100, 8);
	put(f, A_RATE, 512 * 1024, 8);
	for (i = 0; i < n; i++) {
		at = IMG_BASE + 0x100 + (uint64_t)i * 0x100;
		put_bucket(f, lay, at, i + 1 < n ? at + 0x100 : 0, 1, 16, s,
			   2, i < nbad ? &bytes : &ok);
	}
}

/* More than 8 implausible buckets that are more than 1 in 10: refused. */
static void test_implausible_refused(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(24));
	fake *f = new_fake(8, 0);
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put_list(f, lay, 9, 8);           /* 8 of 9: not more than 8 */
	assert_int_equal(run(f, &p, 24, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.skipped, 8);
	assert_int_equal(p.nrecs, 1);
	gh_profile_destroy(&p);
	put_list(f, lay, 100, 10);        /* 10 of 100: not more than 1 in 10 */
	assert_int_equal(run(f, &p, 24, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.skipped, 10);
	assert_int_equal(p.nrecs, 90);
	gh_profile_destroy(&p);
	put_list(f, lay, 100, 11);        /* 11 of 100: refused */
	assert_int_equal(run(f, &p, 24, GOHEAP_PROFILE_HEAP, &err),
			 GOHEAP_ECORRUPT);
	assert_non_null(strstr(err.msg, "11 of 100 buckets"));
	assert_non_null(strstr(err.msg, "first at 0x10100"));
	assert_int_equal(p.nrecs, 0);
	gh_profile_destroy(&p);
	free(f);
}

/*
 * Go 1.27 (bytes = count x size): a count whose bytes pass 2^60 is
 * skipped, and a bucket skipped while reading takes no part in the "no
 * GC yet" decision; then the profile's totals as pprof scales them stay
 * within 2^62.
 */
static void test_implausible_go127(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(27));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000 };
	mrec zero = { { { 0, 0 }, { 2, 1 }, { 0, 0 }, { 0, 0 } } };
	mrec damaged = { { { 5, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 } } };
	mrec big = { { { (uint64_t)1 << 56, 0 } } };
	mrec ok = { { { 3, 1 } } };
	uint64_t b1 = IMG_BASE + 0x100, b2 = IMG_BASE + 0x200;
	uint64_t b3 = IMG_BASE + 0x300;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_CYCLE, 2u << 1, 4); /* idx 2 */
	put(f, A_RATE, 512 * 1024, 8);
	put_bucket(f, lay, b1, b2, 1, 48, s, 1, &zero);
	/* size 20 is no size class: its active 5 does not end the fold */
	put_bucket(f, lay, b2, b3, 1, 20, s, 1, &damaged);
	/* 2^56 x 32 = 2^61 bytes */
	put_bucket(f, lay, b3, 0, 1, 32, s, 1, &big);
	assert_int_equal(run(f, &p, 27, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.skipped, 2);
	assert_int_equal(p.skipped_bucket, b2);
	assert_non_null(strstr(p.skipped_reason, "size 20"));
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].alloc_objects, 2);
	assert_int_equal(p.recs[0].free_bytes, 48);
	gh_profile_destroy(&p);

	/* 2^56 x 16 = 2^60 bytes pass, but scaled at 512 KiB (x 2^15) the
	 * count wraps int64: left out after the walk. */
	put_bucket(f, lay, b1, b2, 1, 48, s, 1, &ok);
	put_bucket(f, lay, b2, 0, 1, 16, s, 1, &big);
	assert_int_equal(run(f, &p, 27, GOHEAP_PROFILE_HEAP, &err), 0);
	assert_int_equal(p.skipped, 1);
	assert_int_equal(p.skipped_bucket, b2);
	assert_non_null(strstr(p.skipped_reason, "pprof scales"));
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].alloc_bytes, 144);
	gh_profile_destroy(&p);
	free(f);
}

/* Block/mutex: size 0, count a finite float >= 0, cycles >= 0. */
static void test_implausible_block(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(8, 0);
	uint64_t s[] = { 0x401000 };
	uint64_t b[5], bits, rec;
	double counts[5] = { 1.5, NAN, -2, 3, 4 };
	int64_t cycles[5] = { 10, 10, 10, -1, 10 };
	gh_profile p;
	gh_err err = { 0, "" };
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		b[i] = IMG_BASE + 0x100 + (uint64_t)i * 0x100;
	put(f, A_XBUCKETS, b[0], 8);
	for (i = 0; i < 5; i++) {
		rec = b[i] + put_bucket(f, lay, b[i], i < 4 ? b[i + 1] : 0, 3,
					i == 4 ? 64 : 0, s, 1, NULL);
		memcpy(&bits, &counts[i], 8);
		put(f, rec, bits, 8);
		put(f, rec + 8, (uint64_t)cycles[i], 8);
	}
	assert_int_equal(run(f, &p, 22, GOHEAP_PROFILE_MUTEX, &err), 0);
	assert_int_equal(p.nbuckets, 5);
	assert_int_equal(p.skipped, 4);
	assert_int_equal(p.skipped_bucket, b[1]);
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].count, 1);
	assert_int_equal(p.recs[0].cycles, 10);
	gh_profile_destroy(&p);
	free(f);
}

/*
 * The memory wrapper's deadline (goheap_set_time_limit): past it, no read
 * reaches the source and the walk fails with GOHEAP_ETIMEDOUT; before it,
 * the walk is unchanged.
 */
static void test_time_limit(void **state)
{
	const gh_rtlayout *lay = gh_rtlayout_for(ver(22));
	fake *f = new_fake(8, 0);
	uint64_t s1[] = { 0x401000 };
	mrec r1 = { { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
		      { 3, 1, 96, 32 } } };
	uint64_t b1 = IMG_BASE + 0x100, nreads = 99;
	gh_profile p;
	gh_err err = { 0, "" };

	(void)state;
	put(f, A_MBUCKETS, b1, 8);
	put(f, A_CYCLE, 7u << 1, 4);
	put(f, A_RATE, 1, 8);
	put_bucket(f, lay, b1, 0, 1, 32, s1, 1, &r1);
	assert_int_equal(run_limited(f, &p, 22, GOHEAP_PROFILE_HEAP, &err,
				     gh_now() - 1, &nreads),
			 GOHEAP_ETIMEDOUT);
	assert_int_equal(nreads, 0);
	assert_int_equal(err.code, GOHEAP_ETIMEDOUT);
	gh_profile_destroy(&p);
	assert_int_equal(run_limited(f, &p, 22, GOHEAP_PROFILE_HEAP, &err,
				     gh_now() + 60, &nreads), 0);
	assert_int_equal(p.nrecs, 1);
	assert_true(nreads > 0);
	gh_profile_destroy(&p);
	free(f);
}

/*
 * Walk down through [base, base + len) with bucket-sized reads through
 * the memory cache, as the walker reads a persistentalloc chunk: every
 * byte must be the image's; returns the backend calls made.  Bytes just
 * outside the mapping are never served.
 */
static uint64_t cache_walk_down(uint64_t base, size_t len)
{
	unsigned char *img = malloc(len), buf[264];
	const unsigned char *p;
	gh_fakemem src;
	gh_err err;
	gh_mem m;
	uint64_t a, n;
	size_t i;

	assert_non_null(img);
	for (i = 0; i < len; i++)
		img[i] = (unsigned char)(i * 7 + i / 251);
	src.img = img;
	src.len = len;
	src.base = base;
	memset(&err, 0, sizeof(err));
	gh_mem_init(&m, &gh_fakemem_ops, &src, 8, 0, &err);
	for (a = base + len - sizeof(buf);; a -= sizeof(buf)) {
		p = gh_mem_peek(&m, a, sizeof(buf));
		if (p == NULL) {
			assert_int_equal(gh_mem_read(&m, a, buf, sizeof(buf),
						     "bucket"), 0);
			p = buf;
		}
		assert_memory_equal(p, img + (a - base), sizeof(buf));
		if (a - base < sizeof(buf))
			break;
	}
	n = m.nreads;
	assert_null(gh_mem_peek(&m, base - 8, 16));
	assert_int_equal(gh_mem_read(&m, base - 8, buf, 16, "bucket"),
			 GOHEAP_EUNMAPPED);
	assert_null(gh_mem_peek(&m, base + len - 8, 16));
	assert_int_equal(gh_mem_read(&m, base + len - 8, buf, 16, "bucket"),
			 GOHEAP_EUNMAPPED);
	gh_mem_fini(&m);
	free(img);
	return n;
}

/*
 * The memory cache over mappings that start or end inside a cache block,
 * as the runtime's persistentalloc chunks often do: a block is grown to
 * the mapping's edge a page or a block at a time, not read again for
 * each bucket (three calls a bucket before).  ~250 buckets a block.
 */
static void test_cache_partial_blocks(void **state)
{
	uint64_t blk = 8 * (uint64_t)GH_MEM_BLOCK;

	(void)state;
	/* starts 5 pages into a block, ends 2 blocks later */
	assert_true(cache_walk_down(blk + 5 * 4096, 2 * GH_MEM_BLOCK) <= 24);
	/* starts and ends inside one block (5 pages of 16) */
	assert_true(cache_walk_down(blk + 3 * 4096, 5 * 4096) <= 16);
	/* starts on a block, ends inside the next one */
	assert_true(cache_walk_down(blk, GH_MEM_BLOCK + 9 * 4096) <= 16);
	/* one page, unaligned end inside it is not a mapping: whole pages */
	assert_true(cache_walk_down(blk + 7 * 4096, 4096) <= 12);
}

static void test_layout_table(void **state)
{
	(void)state;
	assert_null(gh_rtlayout_for(ver(17)));
	assert_null(gh_rtlayout_for(ver(28)));
	assert_int_equal(gh_rtlayout_for(ver(19))->max_stack, 32);
	assert_int_equal(gh_rtlayout_for(ver(23))->max_stack, 1024);
	assert_int_equal(gh_rtlayout_for(ver(26))->cycle_words, 4);
	assert_int_equal(gh_rtlayout_for(ver(27))->cycle_words, 2);
	/* Every row fits the walker's fixed buffers. */
	{
		int m;

		for (m = gh_rtlayout_oldest(); m <= gh_rtlayout_newest(); m++) {
			const gh_rtlayout *l = gh_rtlayout_for(ver(m));

			assert_non_null(l);
			assert_int_equal(l->minor, m);
			assert_true(l->bucket_words <= 16);
			assert_true(l->cycle_words <= GH_RT_MAX_CYCLE_WORDS);
			assert_true(l->max_stack <= GH_RT_MAX_STACK);
			assert_true(l->blockrec_size <= GH_RT_MAX_BLOCKREC);
			assert_true(l->blockrec_cycles + 8 <= l->blockrec_size);
			assert_non_null(l->memprof_reader);
			assert_true(l->nsize_classes > 0 &&
				    l->size_classes[l->nsize_classes - 1] ==
				    l->max_small_size);
			/* strconv.IsPrint's tables: a set goquote.c has,
			 * 13.0.0 up to 1.20, 15.0.0 in 1.21-1.26, 17.0.0
			 * from 1.27 */
			assert_non_null(gh_unicode_version(l->unicode));
			assert_int_equal(l->unicode,
					 m <= 20 ? GH_UNICODE_13 :
					 m <= 26 ? GH_UNICODE_15 :
					 GH_UNICODE_17);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_active),
		cmocka_unit_test(test_no_gc_fold),
		cmocka_unit_test(test_go127_layout),
		cmocka_unit_test(test_be32),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_cycle_detected),
		cmocka_unit_test(test_hostile_fields),
		cmocka_unit_test(test_block_records),
		cmocka_unit_test(test_implausible_skipped),
		cmocka_unit_test(test_implausible_refused),
		cmocka_unit_test(test_implausible_go127),
		cmocka_unit_test(test_implausible_block),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_cache_partial_blocks),
		cmocka_unit_test(test_layout_table),
	};

	return cmocka_run_group_tests_name("walk", tests, NULL, NULL);
}

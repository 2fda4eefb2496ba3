/*
 * test_profile.c - the public record accessors and deltas of profiles
 * (src/lib/model/profile.c: goheap_profile_record, goheap_profile_delta), on
 * profiles built by hand so that every counter is known; and the writers'
 * toolkit parts that need no symbolizer (src/lib/fmt/fmt_common.c: the hash map,
 * Go's int64(float64), block/mutex sample values); and the order in
 * which the pprof writer emits block/mutex samples, which needs no
 * symbolizer when the stacks are empty.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "fmt_common.h"
#include "session.h"

/* A heap profile of n records: id ids[i], counters v[i][0..3], stack {id, id+1}. */
static gh_profile *mk(int kind, int64_t t, size_t n, const uint64_t *ids,
		      const int64_t (*v)[4])
{
	gh_profile *p = calloc(1, sizeof(*p));
	size_t i;

	assert_non_null(p);
	p->kind = kind;
	p->rate = 512 * 1024;
	p->time_nanos = t;
	p->recs = calloc(n ? n : 1, sizeof(*p->recs));
	p->pcpool = calloc(2 * (n ? n : 1), sizeof(*p->pcpool));
	p->maps = calloc(1, sizeof(*p->maps));
	assert_non_null(p->recs);
	assert_non_null(p->pcpool);
	assert_non_null(p->maps);
	p->maps[0].start = 0x400000;
	p->maps[0].end = 0x500000;
	p->maps[0].file = strdup("/bin/prog");
	p->nmaps = 1;
	for (i = 0; i < n; i++) {
		gh_record *r = &p->recs[i];

		r->bucket = ids[i];
		if (kind == GOHEAP_PROFILE_BLOCK) {
			r->count = v[i][0];
			r->cycles = v[i][1];
		} else {
			r->alloc_objects = v[i][0];
			r->alloc_bytes = v[i][1];
			r->free_objects = v[i][2];
			r->free_bytes = v[i][3];
		}
		r->stk = p->pcpool + 2 * i;
		r->stk[0] = ids[i];
		r->stk[1] = ids[i] + 1;
		r->nstk = 2;
	}
	p->nrecs = n;
	return p;
}

static void test_records(void **state)
{
	const uint64_t ids[] = { 0xc000010000, 0xc000020000 };
	const int64_t v[][4] = { { 10, 100, 4, 40 }, { 1, 8, 0, 0 } };
	gh_profile *p = mk(GOHEAP_PROFILE_HEAP, 1000, 2, ids, v);
	goheap_record r = GOHEAP_RECORD_INIT;

	(void)state;
	assert_int_equal(goheap_profile_kind(p), GOHEAP_PROFILE_HEAP);
	assert_int_equal(goheap_profile_nrecords(p), 2);
	assert_int_equal(goheap_profile_record(p, 0, &r), 0);
	assert_true(r.id == ids[0]);
	assert_int_equal(r.alloc_objects, 10);
	assert_int_equal(r.alloc_bytes, 100);
	assert_int_equal(r.free_objects, 4);
	assert_int_equal(r.free_bytes, 40);
	assert_int_equal(r.nstack, 2);
	assert_true(r.stack[0] == ids[0] && r.stack[1] == ids[0] + 1);
	assert_int_equal(goheap_profile_record(p, 2, &r), GOHEAP_EINVAL);
	assert_int_equal(goheap_profile_record(NULL, 0, &r), GOHEAP_EINVAL);
	assert_int_equal(goheap_profile_nrecords(NULL), 0);
	goheap_profile_free(p);
}

/* Output structures carry their size: too small is refused, nothing is
 * written past it; a newer caller's larger structure is filled. */
static void test_output_sizes(void **state)
{
	const uint64_t ids[] = { 0xc000010000 };
	const int64_t v[][4] = { { 10, 100, 4, 40 } };
	gh_profile *p = mk(GOHEAP_PROFILE_HEAP, 1000, 1, ids, v);
	struct {
		goheap_record r;
		unsigned char guard[16];
	} small;
	struct {
		goheap_profile_stats st;
		unsigned char more[32];
	} big;
	goheap_profile_stats st = GOHEAP_PROFILE_STATS_INIT;
	size_t i;

	(void)state;
	assert_string_equal(goheap_version(), GOHEAP_VERSION_STRING);
	memset(&small, 0xa5, sizeof(small));
	small.r.size = sizeof(small.r) - 1;
	assert_int_equal(goheap_profile_record(p, 0, &small.r), GOHEAP_EINVAL);
	for (i = 0; i < sizeof(small.guard); i++)
		assert_int_equal(small.guard[i], 0xa5);
	st.size = 0;
	assert_int_equal(goheap_profile_stats_get(p, &st), GOHEAP_EINVAL);
	assert_int_equal(goheap_profile_stats_get(p, NULL), GOHEAP_EINVAL);
	memset(&big, 0xa5, sizeof(big));
	big.st.size = sizeof(big);
	assert_int_equal(goheap_profile_stats_get(p, &big.st), 0);
	assert_true(big.st.size == sizeof(big));
	assert_int_equal(big.st.records, 1);
	assert_int_equal(big.st.inuse_bytes, 60);
	for (i = 0; i < sizeof(big.more); i++)
		assert_int_equal(big.more[i], 0xa5);
	goheap_profile_free(p);
}

/* Every byte of b[from, to) is 0xa5 (not written). */
static void assert_untouched(const void *b, size_t from, size_t to)
{
	const unsigned char *c = b;

	for (; from < to; from++)
		assert_int_equal(c[from], 0xa5);
}

/*
 * The fields added after the first release (the warnings' words) are
 * written only when the caller's size covers them: a caller built
 * against the first release's header, whose size ends where they begin,
 * is served and gets no byte past it; a size below the first release's
 * is refused untouched.  And the words themselves, as go-heap prints them.
 */
static void test_output_old_sizes(void **state)
{
	const uint64_t ids[] = { 0xc000010000, 0xc000020000 };
	const int64_t v[][4] = { { 3, 300, 0, 0 }, { 1, 100, 0, 0 } };
	gh_profile *p = mk(GOHEAP_PROFILE_BLOCK, 1000, 2, ids, v);
	const size_t old = offsetof(goheap_profile_stats, skipped_warning);
	goheap_profile_stats st;
	goheap_force_result fr, full;
	goheap_write_stats ws;
	goheap_session *s;

	(void)state;
	p->kind = GOHEAP_PROFILE_MUTEX;
	p->skipped = 2;
	p->skipped_bucket = 0xc000030000;
	snprintf(p->skipped_reason, sizeof(p->skipped_reason),
		 "count -1 < 0");
	p->cycles_per_second = 2500000000.0;
	p->cycles_estimated = 1;
	p->rate_unknown = 1;

	memset(&st, 0xa5, sizeof(st));
	st.size = old - 1;
	assert_int_equal(goheap_profile_stats_get(p, &st), GOHEAP_EINVAL);
	assert_untouched(&st, sizeof(st.size), sizeof(st));
	st.size = old;
	assert_int_equal(goheap_profile_stats_get(p, &st), 0);
	assert_true(st.size == old);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.skipped_buckets, 2);
	assert_untouched(&st, old, sizeof(st));
	/* one new field known: that one only */
	memset(&st, 0xa5, sizeof(st));
	st.size = offsetof(goheap_profile_stats, skipped_warning_brief);
	assert_int_equal(goheap_profile_stats_get(p, &st), 0);
	assert_string_equal(st.skipped_warning, "2 of 4 buckets hold numbers "
			    "the runtime cannot produce (damaged or changing "
			    "data) and are left out of the profile; the "
			    "first, at 0xc000030000: count -1 < 0");
	assert_untouched(&st, st.size, sizeof(st));
	st = (goheap_profile_stats)GOHEAP_PROFILE_STATS_INIT;
	assert_int_equal(goheap_profile_stats_get(p, &st), 0);
	assert_string_equal(st.skipped_warning_brief, "2 of 4 buckets hold "
			    "numbers the runtime cannot produce (damaged or "
			    "changing data) and are left out of the profile "
			    "(-v names the first)");
	assert_string_equal(st.estimate_warnings, "the target's cycles/"
			    "second is not known (the runtime has not "
			    "computed it yet, or runtime.ticks was not found): "
			    "delays use go-heap's estimate, 2500000000\n"
			    "runtime.mutexprofilerate was not found: the "
			    "sampling period is written as 1");
	/* the estimates are block and mutex profiles' only */
	p->kind = GOHEAP_PROFILE_HEAP;
	p->skipped = 0;
	assert_int_equal(goheap_profile_stats_get(p, &st), 0);
	assert_string_equal(st.skipped_warning, "");
	assert_string_equal(st.skipped_warning_brief, "");
	assert_string_equal(st.estimate_warnings, "");
	goheap_profile_free(p);

	/* goheap_force: refused below the first release's size, served (an
	 * error here: the session is not open) at it, untouched past it */
	s = calloc(1, sizeof(*s));
	assert_non_null(s);
	memset(&fr, 0xa5, sizeof(fr));
	fr.size = offsetof(goheap_force_result, message) - 1;
	assert_int_equal(goheap_force(s, 1, 0, &fr), GOHEAP_EINVAL);
	assert_untouched(&fr, sizeof(fr.size), sizeof(fr));
	fr.size = offsetof(goheap_force_result, message);
	assert_int_equal(goheap_force(s, 1, 0, &fr), GOHEAP_EINVAL);
	assert_true(fr.size == offsetof(goheap_force_result, message));
	assert_int_equal(fr.changed, 0);
	assert_true(fr.address == 0);
	assert_untouched(&fr, fr.size, sizeof(fr));
	free(s);
	/* the copy a result is handed over by, message and all */
	memset(&full, 0, sizeof(full));
	full.size = sizeof(full);
	full.old_rate = 7;
	snprintf(full.message, sizeof(full.message), "done");
	memset(&fr, 0xa5, sizeof(fr));
	fr.size = offsetof(goheap_force_result, message);
	assert_true(GH_OUT_OK_BEFORE(&fr, message) && !GH_OUT_OK(&fr));
	assert_false(GH_OUT_HAS(&fr, message));
	GH_OUT_COPY(&fr, &full);
	assert_true(fr.size == offsetof(goheap_force_result, message));
	assert_int_equal(fr.old_rate, 7);
	assert_untouched(&fr, fr.size, sizeof(fr));
	fr.size = sizeof(fr);
	GH_OUT_COPY(&fr, &full);
	assert_string_equal(fr.message, "done");
	/* goheap_write_stats: cleared as far as an old caller knows */
	memset(&ws, 0xa5, sizeof(ws));
	ws.size = offsetof(goheap_write_stats, suspect_warning);
	assert_true(GH_OUT_OK_BEFORE(&ws, suspect_warning));
	assert_false(GH_OUT_HAS(&ws, suspect_warning));
	GH_OUT_CLEAR(&ws);
	assert_true(ws.suspect_frames == 0);
	assert_untouched(&ws, ws.size, sizeof(ws));
}

static void test_delta_heap(void **state)
{
	const uint64_t bid[] = { 0xa0, 0xb0 };
	const int64_t bv[][4] = { { 10, 100, 2, 20 }, { 5, 50, 5, 50 } };
	const uint64_t cid[] = { 0xb0, 0xa0, 0xc0 };
	const int64_t cv[][4] = {
		{ 5, 50, 5, 50 },        /* unchanged: dropped */
		{ 15, 150, 4, 40 },      /* +5/+50 allocated, +2/+20 freed */
		{ 1, 8, 0, 0 },          /* new bucket: whole */
	};
	gh_profile *base = mk(GOHEAP_PROFILE_HEAP, 1000, 2, bid, bv);
	gh_profile *cur = mk(GOHEAP_PROFILE_HEAP, 3000, 3, cid, cv);
	goheap_profile *d = NULL;
	goheap_record r = GOHEAP_RECORD_INIT;

	(void)state;
	assert_int_equal(goheap_profile_delta(&d, cur, base), 0);
	assert_non_null(d);
	assert_int_equal(goheap_profile_nrecords(d), 2);
	assert_int_equal(goheap_profile_record(d, 0, &r), 0);
	assert_true(r.id == 0xa0);
	assert_int_equal(r.alloc_objects, 5);
	assert_int_equal(r.alloc_bytes, 50);
	assert_int_equal(r.free_objects, 2);
	assert_int_equal(r.free_bytes, 20);
	assert_true(r.stack != cur->recs[1].stk);       /* its own copy */
	assert_true(r.stack[0] == 0xa0 && r.stack[1] == 0xa1);
	assert_int_equal(goheap_profile_record(d, 1, &r), 0);
	assert_true(r.id == 0xc0);
	assert_int_equal(r.alloc_objects, 1);
	assert_int_equal(r.alloc_bytes, 8);
	assert_int_equal(d->time_nanos, 3000);
	assert_int_equal(d->duration_nanos, 2000);
	assert_int_equal(d->rate, cur->rate);
	assert_int_equal(d->nmaps, 1);
	assert_string_equal(d->maps[0].file, "/bin/prog");
	assert_true(d->maps[0].file != cur->maps[0].file);
	/* Independent of its inputs. */
	goheap_profile_free(cur);
	goheap_profile_free(base);
	assert_int_equal(goheap_profile_record(d, 1, &r), 0);
	assert_true(r.stack[1] == 0xc1);
	goheap_profile_free(d);
}

static void test_delta_block_and_errors(void **state)
{
	const uint64_t id[] = { 0x10 };
	const int64_t b0[][4] = { { 3, 3000, 0, 0 } };
	const int64_t b1[][4] = { { 7, 9000, 0, 0 } };
	gh_profile *base = mk(GOHEAP_PROFILE_BLOCK, 10, 1, id, b0);
	gh_profile *cur = mk(GOHEAP_PROFILE_BLOCK, 20, 1, id, b1);
	gh_profile *heap = mk(GOHEAP_PROFILE_HEAP, 20, 1, id, b1);
	goheap_profile *d = NULL;
	goheap_record r = GOHEAP_RECORD_INIT;

	(void)state;
	assert_int_equal(goheap_profile_delta(&d, cur, base), 0);
	assert_int_equal(goheap_profile_record(d, 0, &r), 0);
	assert_int_equal(r.count, 4);
	assert_int_equal(r.cycles, 6000);
	goheap_profile_free(d);
	/* Same profile twice: nothing happened. */
	assert_int_equal(goheap_profile_delta(&d, cur, cur), 0);
	assert_int_equal(goheap_profile_nrecords(d), 0);
	assert_int_equal(d->duration_nanos, 0);
	goheap_profile_free(d);
	/* Kinds differ; base after cur; NULLs. */
	d = (goheap_profile *)1;
	assert_int_equal(goheap_profile_delta(&d, heap, base), GOHEAP_EINVAL);
	assert_null(d);
	assert_int_equal(goheap_profile_delta(&d, base, cur), GOHEAP_EINVAL);
	assert_int_equal(goheap_profile_delta(&d, NULL, cur), GOHEAP_EINVAL);
	assert_int_equal(goheap_profile_delta(NULL, cur, base), GOHEAP_EINVAL);
	/* Two processes (or a PID reused by another process): refused. */
	cur->pid = base->pid = 42;
	cur->start_time = 1000;
	base->start_time = 999;
	assert_int_equal(goheap_profile_delta(&d, cur, base), GOHEAP_EMISMATCH);
	base->start_time = 1000;
	base->pid = 43;
	assert_int_equal(goheap_profile_delta(&d, cur, base), GOHEAP_EMISMATCH);
	base->pid = 42;
	assert_int_equal(goheap_profile_delta(&d, cur, base), 0);
	goheap_profile_free(d);
	goheap_profile_free(base);
	goheap_profile_free(cur);
	goheap_profile_free(heap);
}

/* The hash map: identity keys (put/get), hashed keys (add/first/next). */
static void test_hmap(void **state)
{
	gh_hmap m = GH_HMAP_INIT;
	uint64_t k, seen;
	size_t i, it;

	(void)state;
	assert_int_equal(gh_hmap_get(&m, 0x401000), 0);
	assert_int_equal(gh_hmap_put(&m, 1, 0), GOHEAP_EINVAL);
	/* Enough keys to grow several times; key 0 is a key like another. */
	for (i = 0; i < 5000; i++)
		assert_int_equal(gh_hmap_put(&m, 0x401000 + 16 * i, i + 1), 0);
	assert_int_equal(gh_hmap_put(&m, 0, 77), 0);
	assert_int_equal(m.n, 5001);
	assert_true(m.n * 2 <= m.mask + 1);
	for (i = 0; i < 5000; i++)
		assert_int_equal(gh_hmap_get(&m, 0x401000 + 16 * i), i + 1);
	assert_int_equal(gh_hmap_get(&m, 0), 77);
	assert_int_equal(gh_hmap_get(&m, 0x401008), 0);
	/* put overwrites: a Go map assignment. */
	assert_int_equal(gh_hmap_put(&m, 0x401000, 9), 0);
	assert_int_equal(gh_hmap_get(&m, 0x401000), 9);
	assert_int_equal(m.n, 5001);
	/* add keeps both entries of one key: walk them. */
	assert_int_equal(gh_hmap_add(&m, 0, 78), 0);
	assert_int_equal(gh_hmap_add(&m, 0, 79), 0);
	seen = 0;
	for (k = gh_hmap_first(&m, 0, &it); k != 0; k = gh_hmap_next(&m, 0, &it))
		seen |= 1ULL << (k - 64);
	assert_true(seen == ((1ULL << 13) | (1ULL << 14) | (1ULL << 15)));
	gh_hmap_free(&m);
	assert_null(m.slot);
	assert_int_equal(gh_hmap_get(&m, 0), 0);
}

/* int64(f) out of range: CVTTSD2SQ's MinInt64, FCVTZS's saturation. */
static void test_go_f2i64(void **state)
{
	const double inf = 1.0 / 0.0, big = 9223372036854775808.0;
	double nan = inf - inf;

	(void)state;
	assert_true(gh_go_f2i64(-2.9, GH_F2I_X86) == -2);
	assert_true(gh_go_f2i64(2.9, GH_F2I_ARM64) == 2);
	assert_true(gh_go_f2i64(-big, GH_F2I_X86) == INT64_MIN);
	assert_true(gh_go_f2i64(big, GH_F2I_X86) == INT64_MIN);
	assert_true(gh_go_f2i64(inf, GH_F2I_X86) == INT64_MIN);
	assert_true(gh_go_f2i64(nan, GH_F2I_X86) == INT64_MIN);
	assert_true(gh_go_f2i64(big, GH_F2I_ARM64) == INT64_MAX);
	assert_true(gh_go_f2i64(-inf, GH_F2I_ARM64) == INT64_MIN);
	assert_true(gh_go_f2i64(nan, GH_F2I_ARM64) == 0);
	assert_int_equal(gh_f2i_rule(183 /* EM_AARCH64 */), GH_F2I_ARM64);
	assert_int_equal(gh_f2i_rule(62 /* EM_X86_64 */), GH_F2I_X86);
}

/*
 * scaleHeapSample as the target's machine computes it: an arm64 profile
 * read on amd64 gives -f top and -f collapsed (gh_sampler_value) the value
 * -f pprof gives, arm64's.  (9635, 1876973262) at rate 512 KiB is a case
 * where arm64's math.Exp and amd64's differ in the scaled size.
 */
static void test_sampler_scale_machine(void **state)
{
	const uint64_t id[] = { 0x10 };
	const int64_t v[][4] = { { 9635, 1876973262, 0, 0 } };
	gh_profile *p = mk(GOHEAP_PROFILE_ALLOCS, 10, 1, id, v);
	gh_sampler s;
	int64_t arm_c, arm_s, x86_c, x86_s;

	(void)state;
	gh_scale_heap_sample(9635, 1876973262, p->rate, GH_GOEXP_ARM64,
			     &arm_c, &arm_s);
	gh_scale_heap_sample(9635, 1876973262, p->rate, GH_GOEXP_AMD64_FMA,
			     &x86_c, &x86_s);
	assert_true(arm_s == 6047986569LL && x86_s == 6047986568LL);
	p->machine = 183;     /* EM_AARCH64 */
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_ALLOC_SPACE), 0);
	assert_true(gh_sampler_value(&s, &p->recs[0]) == arm_s);
	p->machine = 62;      /* EM_X86_64: this host's math.Exp, with or without FMA */
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_ALLOC_SPACE), 0);
	assert_true(gh_sampler_value(&s, &p->recs[0]) == x86_s);
	goheap_profile_free(p);
}

/* printCountCycleProfile's values, and the columns -s selects. */
static void test_sampler_cycles(void **state)
{
	const uint64_t id[] = { 0x10, 0x20 };
	const int64_t v[][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
	gh_profile *p = mk(GOHEAP_PROFILE_BLOCK, 10, 2, id, v);
	gh_sampler s;
	int64_t out[2];

	(void)state;
	p->cycles_per_second = 2e9;
	p->recs[0].count = 3;
	p->recs[0].cycles = 5000;
	p->recs[1].count = 1;
	p->recs[1].cycles = INT64_MAX;      /* / 2 GHz fits */
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_DEFAULT), 0);
	assert_string_equal(s.name, "delay");
	assert_string_equal(s.unit, "nanoseconds");
	assert_int_equal(gh_sampler_value(&s, &p->recs[0]), 2500);
	gh_sampler_cycle_values(&s, &p->recs[0], out);
	assert_true(out[0] == 3 && out[1] == 2500);
	assert_true(gh_sampler_value(&s, &p->recs[1]) == 4611686018427387904LL);
	/* Slower than 1 GHz: the delay leaves int64, Go's rule applies. */
	p->cycles_per_second = 5e8;
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_DELAY), 0);
	s.f2i = GH_F2I_X86;
	assert_true(gh_sampler_value(&s, &p->recs[1]) == INT64_MIN);
	s.f2i = GH_F2I_ARM64;
	assert_true(gh_sampler_value(&s, &p->recs[1]) == INT64_MAX);
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_CONTENTIONS), 0);
	assert_int_equal(gh_sampler_value(&s, &p->recs[0]), 3);
	assert_int_equal(gh_cycles_per_second(p), 500000000);
	assert_int_equal(gh_sampler_init(&s, p, GOHEAP_SAMPLE_INUSE_SPACE),
			 GOHEAP_EINVAL);
	goheap_profile_free(p);
}

/* gunzip (one or more gzip members) with zlib; free() the result. */
static unsigned char *gunzip_all(const unsigned char *in, size_t inlen,
				 size_t *outlen)
{
	size_t cap = 1 << 16, used = 0;
	unsigned char *out = malloc(cap);
	z_stream zs;
	int rc;

	assert_non_null(out);
	*outlen = 0;
	while (used < inlen) {
		memset(&zs, 0, sizeof(zs));
		assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
		zs.next_in = (unsigned char *)in + used;
		zs.avail_in = (uInt)(inlen - used);
		do {
			if (*outlen == cap) {
				cap *= 2;
				out = realloc(out, cap);
				assert_non_null(out);
			}
			zs.next_out = out + *outlen;
			zs.avail_out = (uInt)(cap - *outlen);
			rc = inflate(&zs, Z_NO_FLUSH);
			assert_true(rc == Z_OK || rc == Z_STREAM_END);
			*outlen = cap - zs.avail_out;
		} while (rc != Z_STREAM_END);
		used = inlen - zs.avail_in;
		inflateEnd(&zs);
	}
	return out;
}

static uint64_t pb_varint(const unsigned char *b, size_t len, size_t *i)
{
	uint64_t x = 0;
	unsigned s = 0;

	do {
		assert_true(*i < len && s < 64);
		x |= (uint64_t)(b[*i] & 0x7f) << s;
		s += 7;
	} while (b[(*i)++] & 0x80);
	return x;
}

/* Skip or read one field at b[*i]: its number, wire type and value (a
 * varint's value, or a length-delimited field's offset and length). */
static int pb_field(const unsigned char *b, size_t len, size_t *i,
		    uint64_t *val, size_t *off, size_t *flen)
{
	uint64_t key = pb_varint(b, len, i);

	switch (key & 7) {
	case 0:
		*val = pb_varint(b, len, i);
		break;
	case 2:
		*flen = (size_t)pb_varint(b, len, i);
		*off = *i;
		assert_true(*flen <= len - *i);
		*i += *flen;
		break;
	default:
		fail_msg("wire type %d", (int)(key & 7));
	}
	return (int)(key >> 3) << 3 | (int)(key & 7);
}

/*
 * The first value (contentions) of every Sample of a pprof profile, in
 * the order written; values are unpacked (two per sample).
 */
static size_t sample_counts(const gh_buf *gz, int64_t *out, size_t max)
{
	size_t rawlen, i = 0, off = 0, flen = 0, j, soff, slen, ns = 0;
	unsigned char *raw = gunzip_all(gz->data, gz->len, &rawlen);
	uint64_t v = 0;
	int k, first;

	while (i < rawlen) {
		k = pb_field(raw, rawlen, &i, &v, &off, &flen);
		if (k != (2 << 3 | 2))      /* Profile.sample */
			continue;
		soff = off;
		slen = flen;
		first = 1;
		for (j = soff; j < soff + slen;) {
			k = pb_field(raw, soff + slen, &j, &v, &off, &flen);
			if (k == (2 << 3 | 0) && first) {  /* Sample.value */
				assert_true(ns < max);
				out[ns++] = (int64_t)v;
				first = 0;
			}
		}
		assert_false(first);
	}
	free(raw);
	return ns;
}

/*
 * writeProfileInternal sorts block and mutex records by Cycles with
 * sort.Slice (slices.SortFunc from 1.23) before printCountCycleProfile
 * writes them, so the proto's samples come out in pdqsort's order, ties
 * included.  Up to 12 records that is insertion sort (stable); above, the
 * writer used to keep equal Cycles in input order (a stable merge sort),
 * which is not Go's.  The 20 records here have Cycles in {0, 1, 2}, those
 * of tests/test_fmt_text.c's sort case (0, 0, 20); Go's permutation, from Go
 * 1.22 and 1.27 (sort.Slice and slices.SortFunc agree on it):
 *
 *   p := make([]rec, 20) // Count i+1, Cycles keys()[i]
 *   sort.Slice(p, func(i, j int) bool { return p[i].Cycles > p[j].Cycles })
 *
 * Empty stacks keep the symbolizer out (1.22 expands no frames).
 */
static void test_pprof_cycle_order(void **state)
{
	static const int go_order[20] = {
		6, 1, 18, 17, 12, 5, 10, 13, 3, 14,
		0, 11, 4, 7, 9, 15, 16, 8, 2, 19,
	};
	uint64_t id[20], x = 20;
	int64_t v[20][4], got[32];
	gh_wctx w = { NULL, GOHEAP_SAMPLE_DEFAULT, 20, "x", NULL, NULL };
	gh_err err = { 0, "" };
	gh_buf out = GH_BUF_INIT;
	gh_profile *p;
	size_t i, n;
	int kind;

	(void)state;
	for (i = 0; i < 20; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		id[i] = 0x1000 + 16 * i;
		v[i][0] = (int64_t)i + 1;               /* count: the index */
		v[i][1] = (int64_t)((x >> 33) % 3);     /* cycles: keys() */
		v[i][2] = v[i][3] = 0;
	}
	for (kind = 0; kind < 2; kind++) {
		p = mk(GOHEAP_PROFILE_BLOCK, 10, 20, id, v);
		p->kind = kind == 0 ? GOHEAP_PROFILE_BLOCK :
				      GOHEAP_PROFILE_MUTEX;
		p->ver.major = 1;
		p->ver.minor = kind == 0 ? 22 : 19;
		p->rate = 1;          /* 1.19 mutex: count * rate */
		p->cycles_per_second = 1e9;
		for (i = 0; i < 20; i++)
			p->recs[i].nstk = 0;
		assert_int_equal(gh_write_pprof(p, &w, &out, &err), 0);
		n = sample_counts(&out, got, 32);
		assert_int_equal(n, 20);
		for (i = 0; i < n; i++)
			if (got[i] != go_order[i] + 1)
				fail_msg("go1.%d: sample %zu is record %lld, "
					 "Go writes record %d", p->ver.minor, i,
					 (long long)got[i] - 1, go_order[i]);
		gh_buf_free(&out);
		goheap_profile_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_output_sizes),
		cmocka_unit_test(test_output_old_sizes),
		cmocka_unit_test(test_delta_heap),
		cmocka_unit_test(test_delta_block_and_errors),
		cmocka_unit_test(test_hmap),
		cmocka_unit_test(test_go_f2i64),
		cmocka_unit_test(test_sampler_cycles),
		cmocka_unit_test(test_sampler_scale_machine),
		cmocka_unit_test(test_pprof_cycle_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_memsnap.c - the recording layer and the snapshot (src/lib/mem/memsnap.c)
 * over a synthetic source: a few mapped regions whose bytes follow
 * pat(addr, version), the version bumped to play a target that changed.
 * Reads are checked against the address and version they claim to come
 * from; misses, the running pass's failed reads, the mappings' edges, the
 * 64 KiB widening, the page-by-page retry, two readers and the temporary
 * file are each exercised.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "memsnap.h"

typedef struct fsrc {
	const gh_range *maps;
	size_t nmaps;
	unsigned version;
	unsigned reads;
} fsrc;

static unsigned char pat(uint64_t a, unsigned version)
{
	return (unsigned char)((a ^ (a >> 8) ^ (a >> 16)) + version * 7u);
}

static int mapped(const fsrc *f, uint64_t a, uint64_t len)
{
	size_t i;

	for (i = 0; i < f->nmaps; i++)
		if (a >= f->maps[i].addr &&
		    a + len <= f->maps[i].addr + f->maps[i].len)
			return 1;
	return 0;
}

static int f_fill(const fsrc *f, uint64_t addr, void *buf, size_t len)
{
	size_t i;

	if (!mapped(f, addr, len))
		return GOHEAP_EUNMAPPED;
	for (i = 0; i < len; i++)
		((unsigned char *)buf)[i] = pat(addr + i, f->version);
	return 0;
}

static int f_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	fsrc *f = ctx;

	f->reads++;
	return f_fill(f, addr, buf, len);
}

static int f_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	fsrc *f = ctx;
	size_t i;
	int rc;

	for (i = 0; i < f->nmaps; i++) {
		goheap_mapping m;

		memset(&m, 0, sizeof(m));
		m.start = f->maps[i].addr;
		m.end = f->maps[i].addr + f->maps[i].len;
		memcpy(m.perms, "rw-p", 5);
		m.path = "";
		rc = cb(&m, payload);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int f_exe(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return GOHEAP_ENOEXE;
}

static int f_readv(void *ctx, const uint64_t *addrs, const size_t *lens,
		   size_t n, unsigned char *out, unsigned char *ok)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ok[i] = f_fill(ctx, addrs[i], out, lens[i]) == 0;  /* (two
		 * readers: no counting) */
		out += lens[i];
	}
	return 0;
}

static const goheap_memsrc_ops f_ops = {
	.version = 1,
	.read = f_read,
	.mappings = f_mappings,
	.executable = f_exe,
};

static const gh_memsrc_caps f_caps = { .readv = f_readv,
				       .concurrent_reads = 1 };
static const gh_memsrc_caps f_nocaps = { .readv = NULL };

#define M0 0x100000ull     /* 3 x 64 KiB, a hole, then 8 MiB */
#define M1 0x200000ull
static const gh_range maps[] = {
	{ M0, 3 * 65536 },
	{ M1, 8u << 20 },
};

static void check_bytes(const unsigned char *b, uint64_t a, size_t n,
			unsigned version)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != pat(a + i, version))
			fail_msg("byte %zu of 0x%llx: %u, want %u", i,
				 (unsigned long long)a, b[i], pat(a + i, version));
}

static void test_merge(void **state)
{
	gh_range v[] = { { 300, 10 }, { 100, 50 }, { 150, 10 }, { 120, 5 },
			 { 500, 1 }, { 305, 20 } };
	size_t n = gh_ranges_merge(v, 6);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(v[0].addr, 100);
	assert_int_equal(v[0].len, 60);
	assert_int_equal(v[1].addr, 300);
	assert_int_equal(v[1].len, 25);
	assert_int_equal(v[2].addr, 500);
	assert_int_equal(gh_ranges_merge(v, 0), 0);
}

/* The recording through a gh_mem, a snapshot of what it recorded read
 * through another gh_mem: the same bytes, no misses; a read outside it
 * counted; its failed reads and unmapped bytes not. */
static void test_record_and_snapshot(void **state)
{
	fsrc f = { maps, 2, 1, 0 };
	gh_memrec rec;
	gh_memsnap sn;
	gh_mem m;
	gh_err err = { 0, "" };
	unsigned char buf[256];

	(void)state;
	gh_memrec_init(&rec, &f_ops, &f);
	gh_mem_init(&m, &gh_memrec_ops, &rec, 8, 0, &err);
	assert_int_equal(gh_mem_read(&m, M0 + 100, buf, 64, "a"), 0);
	assert_int_equal(gh_mem_read(&m, M1 + 70000, buf, 200, "b"), 0);
	/* the third block's end and past the mapping: the cache's retries */
	assert_int_not_equal(gh_mem_read(&m, M0 + 3 * 65536 - 8, buf, 16,
					 "edge"), 0);
	gh_mem_fini(&m);
	assert_true(rec.nok >= 2);
	assert_true(rec.nbad >= 1);
	assert_false(rec.oom);

	gh_memsnap_init(&sn, 0, &err);
	gh_memsnap_take_bad(&sn, &rec);
	gh_memsnap_maps(&sn, &f_ops, &f);
	assert_int_equal(gh_memsnap_plan(&sn, rec.ok, rec.nok), 0);
	f.version = 2;    /* the target changed before the copy */
	assert_int_equal(gh_memsnap_copy(&sn, &f_caps, &f, &f_ops), 0);
	assert_true(sn.bytes >= 2 * 65536);
	assert_int_equal(sn.lost, 0);
	f.version = 3;    /* ... and after it: the snapshot does not follow */

	gh_mem_init(&m, &gh_memsnap_ops, &sn, 8, 0, &err);
	assert_int_equal(gh_mem_read(&m, M0 + 100, buf, 64, "a"), 0);
	check_bytes(buf, M0 + 100, 64, 2);
	assert_int_equal(gh_mem_read(&m, M1 + 70000, buf, 200, "b"), 0);
	check_bytes(buf, M1 + 70000, 200, 2);
	/* the failed read again: failed, not counted */
	assert_int_not_equal(gh_mem_read(&m, M0 + 3 * 65536 - 8, buf, 16,
					 "edge"), 0);
	assert_int_equal(sn.misses, 0);
	/* mapped but never read: a miss, counted once a read */
	assert_int_not_equal(gh_mem_read(&m, M1 + (4u << 20), buf, 8, "c"), 0);
	assert_true(sn.misses >= 1);
	assert_int_equal(sn.first_miss & ~(uint64_t)0xffff,
			 (M1 + (4u << 20)) & ~(uint64_t)0xffff);
	gh_mem_fini(&m);
	gh_memrec_fini(&rec);
	gh_memsnap_fini(&sn);
}

/* Wants widen to 64 KiB blocks within the mappings, skip what is held;
 * a read across two copies' segments is served from both; recopy takes
 * every copy again. */
static void test_wants_and_recopy(void **state)
{
	fsrc f = { maps, 2, 1, 0 };
	gh_memsnap sn;
	gh_err err = { 0, "" };
	gh_range v[] = { { M1 + 65536, 100 } };
	unsigned char buf[64];

	(void)state;
	gh_memsnap_init(&sn, 0, &err);
	gh_memsnap_maps(&sn, &f_ops, &f);
	assert_int_equal(gh_memsnap_plan(&sn, v, 1), 0);
	assert_int_equal(gh_memsnap_copy(&sn, &f_caps, &f, &f_ops), 0);
	assert_int_equal(sn.bytes, 100);
	assert_true(gh_memsnap_has(&sn, M1 + 65536, 100));
	assert_false(gh_memsnap_has(&sn, M1 + 65536, 101));
	/* overlapping the held range, and reaching into the hole after M0 */
	assert_int_equal(gh_memsnap_want(&sn, M1 + 65536 + 50, 100), 0);
	assert_int_equal(gh_memsnap_want(&sn, M0 + 3 * 65536 - 10, 20), 0);
	assert_int_equal(gh_memsnap_plan_wants(&sn), 0);
	assert_int_equal(sn.nplan, 2);    /* M1's block less the held 100;
					   * M0's third block, not the hole */
	assert_int_equal(gh_memsnap_copy(&sn, &f_caps, &f, &f_ops), 0);
	/* M1's block (64 KiB) less what was held, M0's third block */
	assert_int_equal(sn.bytes, 100 + 65536 - 100 + 65536);
	assert_true(gh_memsnap_has(&sn, M1 + 65536, 65536));
	assert_false(gh_memsnap_has(&sn, M0 + 3 * 65536, 1));
	/* a read across the first copy's segment and the second's */
	assert_int_equal(gh_memsnap_get(&sn, M1 + 65536 + 90, buf, 20), 0);
	check_bytes(buf, M1 + 65536 + 90, 20, 1);
	/* nothing more wanted: no plan */
	assert_int_equal(gh_memsnap_want(&sn, M1 + 65536, 10), 0);
	assert_int_equal(gh_memsnap_plan_wants(&sn), 0);
	assert_int_equal(sn.nplan, 0);
	f.version = 5;
	assert_int_equal(gh_memsnap_recopy(&sn, &f_caps, &f, &f_ops), 0);
	assert_int_equal(gh_memsnap_get(&sn, M1 + 65536 + 90, buf, 20), 0);
	check_bytes(buf, M1 + 65536 + 90, 20, 5);
	assert_int_equal(gh_memsnap_get(&sn, M0 + 2 * 65536, buf, 64), 0);
	check_bytes(buf, M0 + 2 * 65536, 64, 5);
	gh_memsnap_fini(&sn);
}

/* Without the mappings, a planned range over the hole reads page by
 * page: what reads is kept, the rest counted lost; without readv, one
 * read a range. */
static void test_pages_and_no_readv(void **state)
{
	fsrc f = { maps, 2, 1, 0 };
	gh_memsnap sn;
	gh_err err = { 0, "" };
	gh_range v[] = { { M0 + 2 * 65536, 65536 + 8192 } };
	unsigned char buf[16];

	(void)state;
	gh_memsnap_init(&sn, 0, &err);
	assert_int_equal(gh_memsnap_plan(&sn, v, 1), 0);
	assert_int_equal(gh_memsnap_copy(&sn, &f_caps, &f, &f_ops), 0);
	assert_int_equal(sn.lost, 8192);
	assert_true(gh_memsnap_has(&sn, M0 + 2 * 65536, 65536));
	assert_int_equal(gh_memsnap_get(&sn, M0 + 3 * 65536 - 16, buf, 16), 0);
	check_bytes(buf, M0 + 3 * 65536 - 16, 16, 1);
	gh_memsnap_fini(&sn);

	v[0].addr = M1;
	v[0].len = 3 * 4096;
	gh_memsnap_init(&sn, 0, &err);
	f.reads = 0;
	assert_int_equal(gh_memsnap_plan(&sn, v, 1), 0);
	assert_int_equal(gh_memsnap_copy(&sn, &f_nocaps, &f, &f_ops), 0);
	assert_int_equal(f.reads, 1);
	assert_int_equal(gh_memsnap_get(&sn, M1 + 4096, buf, 16), 0);
	check_bytes(buf, M1 + 4096, 16, 1);
	gh_memsnap_fini(&sn);
}

/* 8 MiB in 64 ranges: two readers; with a bound of 1 byte the storage
 * is an unlinked temporary file; the bytes are the same. */
static void test_two_readers_and_file(void **state)
{
	fsrc f = { maps, 2, 1, 0 };
	gh_memsnap sn;
	gh_err err = { 0, "" };
	gh_range v[64];
	unsigned char *buf = malloc(1u << 20);
	size_t i;
	int file;

	(void)state;
	assert_non_null(buf);
	for (file = 0; file < 2; file++) {
		for (i = 0; i < 64; i++) {
			v[i].addr = M1 + i * 131072;
			v[i].len = 131072 - 4096;   /* gaps: 64 ranges */
		}
		gh_memsnap_init(&sn, file ? 1 : 0, &err);
		assert_int_equal(gh_memsnap_plan(&sn, v, 64), 0);
		assert_int_equal(gh_memsnap_copy(&sn, &f_caps, &f, &f_ops), 0);
		assert_int_equal(sn.ranges, 64);
		assert_int_equal(sn.nseg, 64);
		if (file) {
			assert_true(sn.file_bytes >= 64 * (131072 - 4096));
			assert_int_equal(sn.mem_bytes, 0);
		} else
			assert_int_equal(sn.file_bytes, 0);
		for (i = 0; i < 64; i += 7) {
			assert_int_equal(gh_memsnap_get(&sn, M1 + i * 131072,
							buf, 131072 - 4096), 0);
			check_bytes(buf, M1 + i * 131072, 131072 - 4096, 1);
		}
		assert_int_not_equal(gh_memsnap_get(&sn, M1 + 131072 - 4096,
						    buf, 1), 0);
		gh_memsnap_fini(&sn);
	}
	free(buf);
}

/* A damaged target's wants: bounded in number; a plan past the bytes'
 * bound is one error. */
static void test_limits(void **state)
{
	fsrc f = { maps, 2, 1, 0 };
	gh_memsnap sn;
	gh_err err = { 0, "" };
	gh_range v[] = { { 0x1000000000ull, GH_SNAP_MAX_BYTES + 65536 } };
	uint64_t i;

	(void)state;
	(void)f;
	gh_memsnap_init(&sn, 0, &err);
	for (i = 0; i < GH_SNAP_MAX_WANTS + 10; i++)
		assert_int_equal(gh_memsnap_want(&sn, i << 17, 8), 0);
	assert_int_equal(sn.nwant, GH_SNAP_MAX_WANTS);
	sn.nwant = 0;
	assert_int_equal(gh_memsnap_plan(&sn, v, 1), GOHEAP_ENOMEM);
	assert_non_null(strstr(err.msg, "would exceed"));
	gh_memsnap_fini(&sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_record_and_snapshot),
		cmocka_unit_test(test_wants_and_recopy),
		cmocka_unit_test(test_pages_and_no_readv),
		cmocka_unit_test(test_two_readers_and_file),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

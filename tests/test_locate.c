/*
 * test_locate.c - the stripped-binary locator's parts that need no Go
 * binary: the decoder on hand-assembled amd64 and arm64 code (the exact
 * instruction forms the anchors use, instruction lengths with trailing
 * immediates, register tracking and its invalidation, garbage bytes), the
 * version-string scanner, and the layout guard against fake memory images
 * of the Go 1.26 (4-word memRecordCycle) and 1.27 (2-word) layouts,
 * including each read with the other's layout.  Real binaries are covered
 * by tests/run-stripped.sh.
 */
#include "config.h"

#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fakemem.h"

#include "locate.h"
#include "dwarfcheck.h"

/* ---- helpers ------------------------------------------------------------ */

/* The reference at index i must be (target, size, kind). */
static void expect_ref(const gh_refvec *rv, size_t i, uint64_t target,
		       unsigned size, unsigned kind)
{
	assert_true(i < rv->n);
	assert_int_equal(rv->v[i].target, target);
	assert_int_equal(rv->v[i].size, size);
	assert_int_equal(rv->v[i].kind, kind);
}

/* ---- amd64 ---------------------------------------------------------------- */

/*
 * At 0x401000:
 *   +0x00 mov rcx, [rip+0x10]        48 8b 0d 10 00 00 00     load 8
 *   +0x07 lea rax, [rip+0x20]        48 8d 05 20 00 00 00     addr
 *   +0x0e mov [rip+0x30], rax        48 89 05 30 00 00 00     store 8
 *   +0x15 mov ecx, [rip+0x40]        8b 0d 40 00 00 00        load 4
 *   +0x1b (bad byte 0x06: push es is invalid in 64-bit mode)
 *   +0x1c cmp byte [rip+0x5], 0      80 3d 05 00 00 00 00     load 1
 *   +0x23 mov qword [rip+0x8], 0     48 c7 05 08 00 00 00 00 00 00 00
 *         (the displacement counts from the end of the immediate)
 *   +0x2e add [rip+0x100], rdi       48 01 3d 00 01 00 00     load+store
 *   +0x35 mov rax, [rbx+0x10]        48 8b 43 10              (no ref)
 */
static void test_amd64(void **state)
{
	static const unsigned char code[] = {
		0x48, 0x8b, 0x0d, 0x10, 0x00, 0x00, 0x00,
		0x48, 0x8d, 0x05, 0x20, 0x00, 0x00, 0x00,
		0x48, 0x89, 0x05, 0x30, 0x00, 0x00, 0x00,
		0x8b, 0x0d, 0x40, 0x00, 0x00, 0x00,
		0x06,
		0x80, 0x3d, 0x05, 0x00, 0x00, 0x00, 0x00,
		0x48, 0xc7, 0x05, 0x08, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
		0x48, 0x01, 0x3d, 0x00, 0x01, 0x00, 0x00,
		0x48, 0x8b, 0x43, 0x10,
	};
	gh_refvec rv = { NULL, 0, 0 };
	gh_err err = { 0, "" };
	const uint64_t a = 0x401000;

	(void)state;
	assert_int_equal(gh_decode_refs(EM_X86_64, code, sizeof(code), a, &rv,
					&err), 0);
	assert_int_equal(rv.n, 7);
	expect_ref(&rv, 0, a + 0x07 + 0x10, 8, GH_REF_LOAD);
	assert_int_equal(rv.v[0].pc, a);
	expect_ref(&rv, 1, a + 0x0e + 0x20, 0, GH_REF_ADDR);
	expect_ref(&rv, 2, a + 0x15 + 0x30, 8, GH_REF_STORE);
	expect_ref(&rv, 3, a + 0x1b + 0x40, 4, GH_REF_LOAD);
	expect_ref(&rv, 4, a + 0x23 + 0x05, 1, GH_REF_LOAD);
	assert_int_equal(rv.v[4].pc, a + 0x1c);
	expect_ref(&rv, 5, a + 0x2e + 0x08, 8, GH_REF_STORE);
	expect_ref(&rv, 6, a + 0x35 + 0x100, 8, GH_REF_LOAD | GH_REF_STORE);
	gh_refvec_free(&rv);
}

/* ---- arm64 ---------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t w)
{
	p[0] = (unsigned char)w;
	p[1] = (unsigned char)(w >> 8);
	p[2] = (unsigned char)(w >> 16);
	p[3] = (unsigned char)(w >> 24);
}

/* ADRP xd, target page (from pc). */
static uint32_t a64_adrp(unsigned rd, uint64_t pc, uint64_t target)
{
	int64_t d = (int64_t)((target & ~0xfffull) - (pc & ~0xfffull)) >> 12;
	uint32_t imm = (uint32_t)d & 0x1fffff;

	return 0x90000000u | ((imm & 3) << 29) | ((imm >> 2) << 5) | rd;
}

/* ADD xd, xn, #imm12 */
static uint32_t a64_add(unsigned rd, unsigned rn, unsigned imm)
{
	return 0x91000000u | (imm << 10) | (rn << 5) | rd;
}

/* LDAR xt/wt, [xn] */
static uint32_t a64_ldar(unsigned rt, unsigned rn, int x)
{
	return (x ? 0xc8dffc00u : 0x88dffc00u) | (rn << 5) | rt;
}

/* LDR xt, [xn, #off] / STR xt, [xn, #off] (off multiple of 8) */
static uint32_t a64_ldr(unsigned rt, unsigned rn, unsigned off)
{
	return 0xf9400000u | ((off / 8) << 10) | (rn << 5) | rt;
}

static uint32_t a64_str(unsigned rt, unsigned rn, unsigned off)
{
	return 0xf9000000u | ((off / 8) << 10) | (rn << 5) | rt;
}

/*
 * The stkbucket / mProf_FlushLocked shapes, at 0x3e000:
 *   adrp x4, 0x18a000; add x4, x4, #0x168; ldar x6, [x4]   -> mbuckets
 *   adrp x1, 0x1b0000; ldar w2 ... via add #0x614             -> 4-byte
 *   adrp x3, 0x180000; ldr x5, [x3, #0x348]; str x5, [x3, #0x350]
 *   mov x3, x9 (x3 forgotten); ldr x5, [x3, #8]               -> no ref
 *   adrp x7, ...; bl (everything forgotten); ldr x8, [x7]     -> no ref
 *   a word that is not an instruction (0x00000000 is udf on newer
 *   decoders, invalid in Capstone 4): skipped, state forgotten
 */
static void test_arm64(void **state)
{
	unsigned char code[4 * 16];
	uint64_t a = 0x3e000, pc = a;
	size_t n = 0;
	gh_refvec rv = { NULL, 0, 0 };
	gh_err err = { 0, "" };
	uint32_t ins[16];
	size_t i;

	(void)state;
	ins[n++] = a64_adrp(4, pc + 4 * 0, 0x18a168);
	ins[n++] = a64_add(4, 4, 0x168);
	ins[n++] = a64_ldar(6, 4, 1);
	ins[n++] = a64_adrp(1, pc + 4 * 3, 0x1b0614);
	ins[n++] = a64_add(1, 1, 0x614);
	ins[n++] = a64_ldar(2, 1, 0);
	ins[n++] = a64_adrp(3, pc + 4 * 6, 0x180348);
	ins[n++] = a64_ldr(5, 3, 0x348);
	ins[n++] = a64_str(5, 3, 0x350);
	ins[n++] = 0xaa0903e3u;                     /* mov x3, x9 */
	ins[n++] = a64_ldr(5, 3, 8);
	ins[n++] = a64_adrp(7, pc + 4 * 11, 0x200000);
	ins[n++] = 0x94000010u;                     /* bl +0x40 */
	ins[n++] = a64_ldr(8, 7, 0);
	for (i = 0; i < n; i++)
		put32(code + 4 * i, ins[i]);
	assert_int_equal(gh_decode_refs(EM_AARCH64, code, 4 * n, a, &rv,
					&err), 0);
	assert_int_equal(rv.n, 6);
	expect_ref(&rv, 0, 0x18a168, 0, GH_REF_ADDR);
	expect_ref(&rv, 1, 0x18a168, 8, GH_REF_LOAD);
	assert_int_equal(rv.v[1].pc, a + 8);
	expect_ref(&rv, 2, 0x1b0614, 0, GH_REF_ADDR);
	expect_ref(&rv, 3, 0x1b0614, 4, GH_REF_LOAD);
	expect_ref(&rv, 4, 0x180348, 8, GH_REF_LOAD);
	expect_ref(&rv, 5, 0x180350, 8, GH_REF_STORE);
	gh_refvec_free(&rv);
}

/* An ADRP whose register is overwritten by a load is forgotten. */
static void test_arm64_load_clobbers(void **state)
{
	unsigned char code[16];
	gh_refvec rv = { NULL, 0, 0 };
	gh_err err = { 0, "" };

	(void)state;
	put32(code, a64_adrp(2, 0x10000, 0x90000));
	put32(code + 4, a64_ldr(2, 2, 0x10));       /* x2 = [x2+0x10] */
	put32(code + 8, a64_ldr(3, 2, 0x18));       /* base unknown now */
	put32(code + 12, 0xffffffffu);             /* not an instruction */
	assert_int_equal(gh_decode_refs(EM_AARCH64, code, sizeof(code),
					0x10000, &rv, &err), 0);
	assert_int_equal(rv.n, 1);
	expect_ref(&rv, 0, 0x90010, 8, GH_REF_LOAD);
	gh_refvec_free(&rv);
}

/* Random bytes never crash the decoder; other machines are refused. */
static void test_garbage(void **state)
{
	unsigned char *code = malloc(1 << 16);
	gh_refvec rv = { NULL, 0, 0 };
	gh_err err = { 0, "" };
	uint32_t x = 2463534242u;
	size_t i;

	(void)state;
	assert_non_null(code);
	for (i = 0; i < (1u << 16); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		code[i] = (unsigned char)x;
	}
	assert_int_equal(gh_decode_refs(EM_X86_64, code, 1 << 16, 0x400000,
					&rv, &err), 0);
	gh_refvec_free(&rv);
	assert_int_equal(gh_decode_refs(EM_AARCH64, code, (1 << 16) - 3,
					0x10000, &rv, &err), 0);
	gh_refvec_free(&rv);
	assert_int_equal(gh_decode_refs(EM_386, code, 16, 0, &rv, &err),
			 GOHEAP_EUNSUPPORTED);
	assert_int_equal(gh_decode_refs(EM_X86_64, code, 0, 0, &rv, &err), 0);
	assert_int_equal(rv.n, 0);
	free(code);
}

/* ---- version strings ------------------------------------------------------- */

static void test_scan_version(void **state)
{
	static const char s1[] = "abcgo1.26requires go1.27.0xyzgo1.27.0unknown";
	static const char s2[] = "go1.22.1 and go1.22.3";
	static const char s3[] = "built for go1.26 only";
	static const char s4[] = "go1.24.40000 go1.x go1.";
	static const char s5[] = "go1.23rc2!";
	gh_gover v;
	char vs[32];

	(void)state;
	assert_int_equal(gh_scan_go_version((const unsigned char *)s1,
					    sizeof(s1) - 1, &v, vs,
					    sizeof(vs)), 0);
	assert_string_equal(vs, "go1.27.0");
	assert_int_equal(v.minor, 27);
	assert_int_equal(gh_scan_go_version((const unsigned char *)s2,
					    sizeof(s2) - 1, &v, vs,
					    sizeof(vs)), GOHEAP_EVERSION);
	assert_int_equal(gh_scan_go_version((const unsigned char *)s3,
					    sizeof(s3) - 1, &v, vs,
					    sizeof(vs)), 0);
	assert_string_equal(vs, "go1.26");
	assert_int_equal(gh_scan_go_version((const unsigned char *)s4,
					    sizeof(s4) - 1, &v, vs,
					    sizeof(vs)), GOHEAP_EVERSION);
	assert_int_equal(gh_scan_go_version((const unsigned char *)s5,
					    sizeof(s5) - 1, &v, vs,
					    sizeof(vs)), 0);
	assert_string_equal(vs, "go1.23rc2");
	assert_int_equal(gh_scan_go_version((const unsigned char *)"", 0, &v,
					    vs, sizeof(vs)), GOHEAP_EVERSION);
}

/* ---- the layout guard ------------------------------------------------------ */

#define IMG_BASE 0x10000u
#define IMG_SIZE 0x10000u

typedef struct fake {
	unsigned char img[IMG_SIZE];
} fake;


static void put64(fake *f, uint64_t addr, uint64_t v)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		f->img[addr - IMG_BASE + i] = (unsigned char)(v >> (8 * i));
}

#define A_M (IMG_BASE + 0x10)
#define A_B (IMG_BASE + 0x18)
#define A_X (IMG_BASE + 0x20)
#define A_CYCLE (IMG_BASE + 0x28)
#define A_RATE (IMG_BASE + 0x30)

/*
 * Go 1.26 / 1.27 images with nb memory buckets (64-bit), written as the
 * runtime writes them: header {next, allnext, typ, hash, size, nstk}, the
 * stack, then active + future[3] cycles of `words` words: {allocs, frees,
 * alloc_bytes, free_bytes} (1.26) or {allocs, frees} (1.27).  Bucket i
 * has size 16 * (i + 1), i + 3 allocations and i + 1 frees in active.
 */
static fake *image(unsigned words, unsigned nb)
{
	fake *f = calloc(1, sizeof(*f));
	uint64_t at = IMG_BASE + 0x100, prev = 0;
	unsigned i, k;

	assert_non_null(f);
	put64(f, A_CYCLE, (5u << 1) | 1u);
	put64(f, A_RATE, 524288);
	for (i = 0; i < nb; i++) {
		uint64_t size = 16u * (i + 1), c[4][2] = {
			{ i + 3, i + 1 }, { 2, 0 }, { 0, 1 }, { 1, 1 }
		};

		put64(f, at + 8, prev);
		put64(f, at + 16, 1);
		put64(f, at + 24, 0xabcdef + i);
		put64(f, at + 32, size);
		put64(f, at + 40, 2);
		put64(f, at + 48, 0x401000 + i);
		put64(f, at + 56, 0x402000);
		for (k = 0; k < 4; k++) {
			uint64_t r = at + 64 + k * words * 8;

			put64(f, r, c[k][0]);
			put64(f, r + 8, c[k][1]);
			if (words == 4) {
				put64(f, r + 16, c[k][0] * size);
				put64(f, r + 24, c[k][1] * size);
			}
		}
		prev = at;
		at += 64 + 4 * words * 8;
	}
	put64(f, A_M, prev);
	return f;
}

static int guard(fake *f, int minor, char *how, size_t howlen, gh_err *err)
{
	gh_gover v = { 1, minor, 0 };
	gh_rtaddrs a = { .mbuckets = A_M, .bbuckets = A_B, .xbuckets = A_X,
			 .mprofcycle = A_CYCLE, .memprofilerate = A_RATE };
	gh_fakemem src = { f->img, IMG_SIZE, IMG_BASE };
	gh_mem m;
	int rc;

	gh_mem_init(&m, &gh_fakemem_ops, &src, 8, 0, err);
	rc = gh_validate_layout(&m, gh_rtlayout_for(v), &a, v, how, howlen,
				err);
	gh_mem_fini(&m);
	return rc;
}

static void test_guard_matching(void **state)
{
	fake *f26 = image(4, 20), *f27 = image(2, 20);
	gh_err err = { 0, "" };
	char how[128];

	(void)state;
	assert_int_equal(guard(f26, 26, how, sizeof(how), &err), 0);
	assert_non_null(strstr(how, "20 buckets"));
	assert_int_equal(guard(f27, 27, how, sizeof(how), &err), 0);
	free(f26);
	free(f27);
}

static void test_guard_swapped(void **state)
{
	fake *f26 = image(4, 20), *f27 = image(2, 20);
	gh_err err = { 0, "" };

	(void)state;
	/* A 1.26 image read with the 1.27 layout: bytes where counts are. */
	assert_int_equal(guard(f26, 27, NULL, 0, &err), GOHEAP_EVERSION);
	assert_non_null(strstr(err.msg, "unsupported runtime layout for "
				       "go1.27"));
	/* A 1.27 image read with the 1.26 layout: the next bucket's header
	 * is taken for byte counts, or the list breaks. */
	assert_int_equal(guard(f27, 26, NULL, 0, &err), GOHEAP_EVERSION);
	assert_non_null(strstr(err.msg, "go1.26"));
	free(f26);
	free(f27);
}

static void test_guard_hostile(void **state)
{
	fake *f = image(2, 4);
	gh_err err = { 0, "" };
	uint64_t head;

	(void)state;
	head = (uint64_t)f->img[A_M - IMG_BASE] |
	       (uint64_t)f->img[A_M - IMG_BASE + 1] << 8 |
	       (uint64_t)f->img[A_M - IMG_BASE + 2] << 16;
	/* a loop through allnext */
	put64(f, IMG_BASE + 0x100 + 8, head);
	assert_int_equal(guard(f, 27, NULL, 0, &err), GOHEAP_EVERSION);
	assert_non_null(strstr(err.msg, "loops"));
	free(f);

	f = image(2, 4);
	put64(f, IMG_BASE + 0x100 + 16, 2);        /* wrong type */
	assert_int_equal(guard(f, 27, NULL, 0, &err), GOHEAP_EVERSION);
	assert_non_null(strstr(err.msg, "type 2"));
	free(f);

	f = image(2, 4);
	put64(f, IMG_BASE + 0x100 + 40, 5000);     /* absurd depth */
	assert_int_equal(guard(f, 27, NULL, 0, &err), GOHEAP_EVERSION);
	free(f);

	f = image(2, 4);
	put64(f, IMG_BASE + 0x100 + 8, 0x7000000); /* unmapped allnext */
	assert_int_equal(guard(f, 27, NULL, 0, &err), GOHEAP_EVERSION);
	free(f);

	f = image(4, 4);
	put64(f, A_CYCLE, 0xffffffffu);            /* past mProfCycleWrap */
	assert_int_equal(guard(f, 26, NULL, 0, &err), GOHEAP_EVERSION);
	free(f);

	f = image(4, 0);                           /* empty: nothing wrong */
	assert_int_equal(guard(f, 26, NULL, 0, &err), 0);
	free(f);
}

static void test_tested_range(void **state)
{
	gh_gover v = { 1, 19, 0 };

	(void)state;
	/* Rows checked against real toolchains in make check; 1.18 and
	 * 1.20 (no Debian toolchain) are from source reading only. */
	for (v.minor = 19; v.minor <= 27; v.minor++)
		assert_int_equal(gh_rtlayout_for(v)->tested, v.minor != 20);
	v.minor = 18;
	assert_false(gh_rtlayout_for(v)->tested);
	v.minor = 28;
	assert_null(gh_rtlayout_for(v));
}

/* No DWARF is not an error; a missing file is. */
static void test_dwarf_absent(void **state)
{
	gh_gover v = { 1, 24, 0 };
	gh_err err = { 0, "" };
	char rep[64];

	(void)state;
	assert_int_equal(gh_dwarf_check_layout("/nonexistent/go-heap-test",
					       gh_rtlayout_for(v), 8, rep,
					       sizeof(rep), &err),
			 GOHEAP_ENOEXE);
	assert_int_equal(gh_dwarf_check_layout("/dev/null", gh_rtlayout_for(v),
					       8, rep, sizeof(rep), &err), 0);
	assert_string_equal(rep, "no DWARF");
}

/*
 * goheap_is_go_executable on what is not a Go program: this C test, a text
 * file, a missing path, a directory.  (Go programs are found by
 * tests/run-watch.sh's discovery, which uses it.)
 */
static void test_is_go_executable(void **state)
{
	(void)state;
	assert_int_equal(goheap_is_go_executable("/proc/self/exe"), 0);
	assert_int_equal(goheap_is_go_executable("/etc/passwd"), 0);
	assert_int_equal(goheap_is_go_executable("/nonexistent/x"),
			 GOHEAP_ENOEXE);
	assert_int_equal(goheap_is_go_executable("/"), 0);
	assert_int_equal(goheap_is_go_executable(NULL), GOHEAP_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd64),
		cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_arm64_load_clobbers),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_scan_version),
		cmocka_unit_test(test_guard_matching),
		cmocka_unit_test(test_guard_swapped),
		cmocka_unit_test(test_guard_hostile),
		cmocka_unit_test(test_tested_range),
		cmocka_unit_test(test_dwarf_absent),
		cmocka_unit_test(test_is_go_executable),
	};

	return cmocka_run_group_tests_name("locate", tests, NULL, NULL);
}

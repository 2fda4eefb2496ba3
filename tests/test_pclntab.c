/*
 * test_pclntab.c - unit and integration tests of exe.c and pclntab.c.
 *
 * Group "decoder": the pc-value decoder and funcNameForPrint on byte
 * arrays; no files needed.
 *
 * Group "gobin": for every executable in GOHEAP_TEST_GOBIN (colon
 * separated; built from tests/go/symcheck by tests/run-symcheck.sh), the
 * ground truth the program printed about itself (EXE.truth, or the output
 * of running EXE) is compared field by field with gh_sym: every frame of
 * runtime.CallersFrames, every FuncForPC name, plus consistency checks of
 * gh_sym_expand_final_inline and a corruption smoke test (flipped bytes
 * in the pclntab must never crash).  Without GOHEAP_TEST_GOBIN the
 * program exits 77 (automake SKIP) after the decoder group passes, so a
 * missing toolchain is never reported as a pass.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exe.h"
#include "sym.h"

/* ---- decoder group ------------------------------------------------------- */

static void test_pctab_basic(void **state)
{
	/* (+1 -> 0 until +5), (+2 -> 2 until +8), end. */
	static const unsigned char t[] = { 0x02, 0x05, 0x04, 0x03, 0x00 };

	(void)state;
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 1, 100), 0);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 1, 104), 0);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 1, 105), 2);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 1, 107), 2);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 1, 108), -1);
	/* Quantum 4 (arm64): pc deltas are scaled. */
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 4, 119), 0);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 4, 120), 2);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 4, 131), 2);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 100, 4, 132), -1);
}

static void test_pctab_varint_zigzag(void **state)
{
	/*
	 * uv 300 = 0xac 0x02 -> +150 -> 149; pc delta 200 = 0xc8 0x01;
	 * uv 3 -> -2 -> 147; pc +1.
	 */
	static const unsigned char t[] = { 0xac, 0x02, 0xc8, 0x01, 0x03, 0x01,
					   0x00 };

	(void)state;
	assert_int_equal(gh_pctab_value(t, sizeof(t), 0, 1, 199), 149);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 0, 1, 200), 147);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 0, 1, 201), -1);
}

static void test_pctab_first_zero(void **state)
{
	/* A zero value delta is allowed as the very first entry. */
	static const unsigned char t[] = { 0x00, 0x02, 0x02, 0x02, 0x00 };

	(void)state;
	assert_int_equal(gh_pctab_value(t, sizeof(t), 10, 1, 11), -1);
	assert_int_equal(gh_pctab_value(t, sizeof(t), 10, 1, 12), 0);
}

static void test_pctab_truncated(void **state)
{
	static const unsigned char t1[] = { 0x02 };
	static const unsigned char t2[] = { 0x82 };
	static const unsigned char t3[] = { 0x02, 0x85 };
	/* 0x80 continuation bytes forever: must stop at the end. */
	unsigned char t4[64];

	(void)state;
	memset(t4, 0x80, sizeof(t4));
	assert_int_equal(gh_pctab_value(t1, sizeof(t1), 0, 1, 0), -1);
	assert_int_equal(gh_pctab_value(t2, sizeof(t2), 0, 1, 0), -1);
	assert_int_equal(gh_pctab_value(t3, sizeof(t3), 0, 1, 0), -1);
	assert_int_equal(gh_pctab_value(t4, sizeof(t4), 0, 1, 0), -1);
	assert_int_equal(gh_pctab_value(t1, 0, 0, 1, 0), -1);
}

static void test_pctab_shift_wrap(void **state)
{
	/*
	 * Go's readvarint shifts by (shift & 31): a 6-byte varint wraps its
	 * 6th group onto bits 3..9.  uv = 0x7f | ... ; check it decodes like
	 * Go: bytes ff ff ff ff ff 01 -> low 32 bits all ones | (1 << 3).
	 */
	static const unsigned char t[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
					   0x01, 0x00 };

	(void)state;
	/* uv = 0xffffffff: zigzag -> ^0x7fffffff = INT32_MIN; -1 + that. */
	assert_int_equal(gh_pctab_value(t, sizeof(t), 0, 1, 0),
			 (int32_t)((uint32_t)-1 + 0x80000000u));
}

static void test_name_for_print(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(gh_func_name_for_print("main.F", buf, sizeof(buf)),
			    "main.F");
	assert_string_equal(gh_func_name_for_print("main.F[go.shape.int]", buf,
						   sizeof(buf)),
			    "main.F[...]");
	assert_string_equal(
		gh_func_name_for_print("main.(*box[go.shape.string]).get", buf,
				       sizeof(buf)),
		"main.(*box[...]).get");
	assert_string_equal(
		gh_func_name_for_print("p.F[go.shape.[]int,go.shape.map[a]b].func1",
				       buf, sizeof(buf)),
		"p.F[...].func1");
	assert_string_equal(gh_func_name_for_print("a]b[c", buf, sizeof(buf)),
			    "a]b[c");
	assert_string_equal(gh_func_name_for_print("a[b", buf, sizeof(buf)),
			    "a[b");
	assert_string_equal(gh_func_name_for_print("", buf, sizeof(buf)), "");
	assert_string_equal(gh_func_name_for_print("x[y]", buf, 4), "x[.");
}

static void test_open_errors(void **state)
{
	gh_exe *e = NULL;
	gh_err err;
	char path[] = "/tmp/test_pclntab_XXXXXX";
	int fd;
	char id[64];

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(gh_exe_open(&e, "/nonexistent/exe", &err),
			 GOHEAP_ENOEXE);
	assert_null(e);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello, world, not an elf file", 29), 29);
	close(fd);
	assert_int_equal(gh_exe_open(&e, path, &err), GOHEAP_ENOTGO);
	assert_non_null(strstr(err.msg, "not an ELF file"));
	gh_file_gnu_build_id(path, id, sizeof(id));
	assert_string_equal(id, "");
	unlink(path);
	/* A non-Go ELF file: the test itself. */
	if (gh_exe_open(&e, "/proc/self/exe", &err) == 0) {
		gh_sym *s = NULL;
		gh_gover v = { 0, 0, 0 };

		assert_int_equal(gh_sym_open(&s, e, 0, v, &err), GOHEAP_ENOTGO);
		assert_non_null(strstr(err.msg, "not a Go program"));
		assert_null(s);
		gh_exe_close(e);
	}
}

/* ---- gobin group ------------------------------------------------------------ */

typedef struct truth_frame {
	uint64_t pc, entry;
	int64_t line, start;
	int inlined;
	char *function, *file;
} truth_frame;

typedef struct checker {
	const char *exe_path;
	gh_exe *exe;
	gh_sym *sym;
	int go_minor;
	uint64_t bias;
	long nframes, nstacks, nfuncforpc, failures;
} checker;

#define CHECK(c, cond, ...)                                   \
	do {                                                  \
		if (!(cond)) {                                \
			(c)->failures++;                      \
			if ((c)->failures <= 30) {            \
				print_error(__VA_ARGS__);     \
				print_error("\n");            \
			}                                     \
		}                                             \
	} while (0)

/* Split line on tabs in place; returns the number of fields. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		char *t = strchr(p, '\t');

		f[n++] = p;
		if (t == NULL)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

static void check_stack(checker *c, const char *kind, const char *name,
			const uint64_t *pcs, size_t npcs, truth_frame *tf,
			size_t ntf)
{
	gh_framevec fv = { NULL, 0, 0, 0 };
	size_t i, k = 0;
	char buf[1024];

	c->nstacks++;
	assert_int_equal(gh_sym_callers_frames(c->sym, pcs, npcs, &fv), 0);
	for (i = 0; i < fv.n; i++) {
		const gh_frame *g = &fv.v[i];
		const char *want_fn;

		/* runtime.CallersFrames drops PCs in no function. */
		if (g->entry == 0 && g->function[0] == '\0')
			continue;
		if (k >= ntf) {
			CHECK(c, 0, "%s %s %s: extra frame %s", c->exe_path,
			      kind, name, g->function);
			k++;
			continue;
		}
		c->nframes++;
		/* 1.21+ Frame.Function is funcNameForPrint(raw name). */
		want_fn = c->go_minor >= 21 ?
			gh_func_name_for_print(g->function, buf, sizeof(buf)) :
			g->function;
		CHECK(c, g->pc == tf[k].pc, "%s %s %s #%zu: pc %#llx want %#llx",
		      c->exe_path, kind, name, k, (unsigned long long)g->pc,
		      (unsigned long long)tf[k].pc);
		CHECK(c, g->entry == tf[k].entry,
		      "%s %s %s #%zu: entry %#llx want %#llx", c->exe_path,
		      kind, name, k, (unsigned long long)g->entry,
		      (unsigned long long)tf[k].entry);
		CHECK(c, strcmp(want_fn, tf[k].function) == 0,
		      "%s %s %s #%zu: function %s want %s", c->exe_path, kind,
		      name, k, want_fn, tf[k].function);
		CHECK(c, strcmp(g->file, tf[k].file) == 0,
		      "%s %s %s #%zu: file %s want %s", c->exe_path, kind, name,
		      k, g->file, tf[k].file);
		CHECK(c, g->line == tf[k].line,
		      "%s %s %s #%zu: line %lld want %lld", c->exe_path, kind,
		      name, k, (long long)g->line, (long long)tf[k].line);
		CHECK(c, tf[k].start < 0 || g->start_line == tf[k].start,
		      "%s %s %s #%zu: start line %lld want %lld", c->exe_path,
		      kind, name, k, (long long)g->start_line,
		      (long long)tf[k].start);
		CHECK(c, g->inlined == tf[k].inlined,
		      "%s %s %s #%zu: inlined %d want %d", c->exe_path, kind,
		      name, k, g->inlined, tf[k].inlined);
		k++;
	}
	CHECK(c, k == ntf, "%s %s %s: %zu frames, want %zu", c->exe_path,
	      kind, name, k, ntf);
	gh_framevec_free(&fv);
}

/*
 * expandFinalInlineFrame on every prefix of a logical stack must give a
 * prefix of that stack: the virtual PCs it re-adds are the ones Callers
 * recorded.
 */
static void check_expand(checker *c, const char *name, const uint64_t *pcs,
			 size_t n)
{
	size_t k;

	for (k = 1; k <= n; k++) {
		uint64_t *out = NULL;
		size_t nout = 0;

		assert_int_equal(
			gh_sym_expand_final_inline(c->sym, pcs, k, &out, &nout),
			0);
		CHECK(c, nout >= k && nout <= n &&
			      memcmp(out, pcs, nout * sizeof(*out)) == 0,
		      "%s %s: expand_final_inline of %zu PCs gave %zu",
		      c->exe_path, name, k, nout);
		free(out);
	}
}

static FILE *open_truth(const char *exe, int *is_pipe)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.truth", exe);
	f = fopen(path, "r");
	*is_pipe = 0;
	if (f != NULL)
		return f;
	*is_pipe = 1;
	return popen(exe, "r");
}

static void check_gobin(checker *c)
{
	char *line = NULL, *fl[64];
	size_t cap = 0, nf, i;
	FILE *in;
	int is_pipe = 0;
	uint64_t *pcs = NULL, entry = 0, mainentry = 0;
	size_t npcs = 0, ntf = 0;
	truth_frame tf[512];
	char kind[32] = "", sname[256] = "";
	gh_err err;
	gh_gover v = { 0, 0, 0 };
	gh_sym *s0 = NULL;

	memset(&err, 0, sizeof(err));
	in = open_truth(c->exe_path, &is_pipe);
	assert_non_null(in);
	if (gh_exe_open(&c->exe, c->exe_path, &err) != 0)
		fail_msg("%s", err.msg);
	while (getline(&line, &cap, in) > 0) {
		line[strcspn(line, "\n")] = '\0';
		nf = split_tabs(line, fl, GH_ARRAY_LEN(fl));
		if (strcmp(fl[0], "version") == 0 && nf == 2) {
			gh_gover gv;

			assert_int_equal(gh_gover_parse(&gv, fl[1]), 0);
			c->go_minor = gv.minor;
			CHECK(c, strcmp(gh_exe_go_version(c->exe), fl[1]) == 0,
			      "%s: buildinfo version %s want %s", c->exe_path,
			      gh_exe_go_version(c->exe), fl[1]);
		} else if (strcmp(fl[0], "mainentry") == 0 && nf == 2) {
			/* Bias: main.main's runtime entry minus its link one. */
			mainentry = strtoull(fl[1], NULL, 16);
			if (gh_sym_open(&s0, c->exe, 0, v, &err) != 0)
				fail_msg("%s", err.msg);
			assert_int_equal(gh_sym_func_entry(s0, "main.main",
							   &entry, NULL), 0);
			gh_sym_close(s0);
			c->bias = mainentry - entry;
			if (!gh_exe_is_dyn(c->exe))
				assert_int_equal(c->bias, 0);
			if (gh_sym_open(&c->sym, c->exe, c->bias, v, &err) != 0)
				fail_msg("%s", err.msg);
		} else if (strcmp(fl[0], "stack") == 0 && nf >= 3) {
			assert_non_null(c->sym);
			snprintf(kind, sizeof(kind), "%s", fl[1]);
			snprintf(sname, sizeof(sname), "%s", fl[2]);
			free(pcs);
			pcs = calloc(nf, sizeof(*pcs));
			assert_non_null(pcs);
			npcs = 0;
			for (i = 3; i < nf; i++)
				pcs[npcs++] = strtoull(fl[i], NULL, 16);
			ntf = 0;
		} else if (strcmp(fl[0], "frame") == 0 && nf == 8) {
			assert_true(ntf < GH_ARRAY_LEN(tf));
			tf[ntf].pc = strtoull(fl[1], NULL, 16);
			tf[ntf].entry = strtoull(fl[2], NULL, 16);
			tf[ntf].line = strtoll(fl[3], NULL, 10);
			tf[ntf].start = strtoll(fl[4], NULL, 10);
			tf[ntf].inlined = atoi(fl[5]);
			tf[ntf].function = strdup(fl[6]);
			tf[ntf].file = strdup(fl[7]);
			ntf++;
		} else if (strcmp(fl[0], "end") == 0) {
			/*
			 * Go 1.21/1.22 do not synthesise the virtual PCs of
			 * physical-only stacks; we always do (1.23+), so only
			 * compare those with 1.23+ ground truth.
			 */
			if (strcmp(kind, "physical") != 0 || c->go_minor >= 23)
				check_stack(c, kind, sname, pcs, npcs, tf, ntf);
			if (strcmp(kind, "logical") == 0 &&
			    strstr(sname, "bogus") == NULL)
				check_expand(c, sname, pcs, npcs);
			for (i = 0; i < ntf; i++) {
				free(tf[i].function);
				free(tf[i].file);
			}
			ntf = 0;
		} else if (strcmp(fl[0], "funcforpc") == 0 && nf == 3) {
			uint64_t pc = strtoull(fl[1], NULL, 16);
			const char *got = gh_sym_funcforpc_name(c->sym, pc);
			char buf[1024];

			c->nfuncforpc++;
			if (got != NULL && c->go_minor >= 21)
				got = gh_func_name_for_print(got, buf,
							     sizeof(buf));
			CHECK(c, strcmp(got != NULL ? got : "", fl[2]) == 0,
			      "%s: FuncForPC(%#llx) = %s want %s", c->exe_path,
			      (unsigned long long)pc, got ? got : "(nil)",
			      fl[2]);
		}
	}
	free(line);
	free(pcs);
	if (is_pipe)
		assert_int_equal(pclose(in), 0);
	else
		fclose(in);
	assert_non_null(c->sym);
}

/*
 * Flip bytes inside the pclntab of a copy of the binary and symbolize
 * every function's entry and a few PCs inside it.  The results are
 * meaningless; the test is that nothing crashes, hangs or leaks (run it
 * under ASan/valgrind).
 */
static void check_corrupt(const char *exe_path)
{
	gh_exe *e = NULL;
	gh_err err;
	const gh_section *sec;
	FILE *f;
	unsigned char *img;
	long sz;
	uint32_t seed = 12345;
	char tmp[] = "/tmp/test_pclntab_corrupt_XXXXXX";
	int round, fd;

	memset(&err, 0, sizeof(err));
	if (gh_exe_open(&e, exe_path, &err) != 0)
		fail_msg("%s", err.msg);
	sec = gh_exe_section(e, ".gopclntab");
	if (sec == NULL)
		sec = gh_exe_section(e, ".data.rel.ro.gopclntab");
	assert_non_null(sec);
	f = fopen(exe_path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	img = malloc((size_t)sz);
	assert_non_null(img);
	assert_int_equal(fread(img, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	for (round = 0; round < 12; round++) {
		unsigned char *cp = malloc((size_t)sz);
		uint64_t secoff = 0, secsize = sec->size;
		gh_exe *ce = NULL;
		gh_sym *cs = NULL;
		gh_gover v = { 0, 0, 0 };
		int k;

		assert_non_null(cp);
		memcpy(cp, img, (size_t)sz);
		/* Locate the section bytes in the image by content (1.27
		 * aligns .gopclntab to 8 only: step by 4). */
		for (secoff = 0; secoff + 64 <= (uint64_t)sz; secoff += 4) {
			if (memcmp(cp + secoff, sec->data, 64) == 0)
				break;
		}
		assert_true(secoff + secsize <= (uint64_t)sz);
		/* Round 0 corrupts only the header; later ones anywhere. */
		for (k = 0; k < (round == 0 ? 4 : 2000); k++) {
			uint64_t off;

			seed = seed * 1103515245u + 12345u;
			off = round == 0 ? 8 + seed % 56 :
				((uint64_t)seed * 2654435761u) % secsize;
			cp[secoff + off] ^= (unsigned char)(seed >> 16) | 1;
		}
		fd = mkstemp(tmp);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, cp, (size_t)sz), sz);
		close(fd);
		if (gh_exe_open(&ce, tmp, &err) == 0 &&
		    gh_sym_open(&cs, ce, 0, v, &err) == 0) {
			size_t nf = gh_sym_nfunc(cs), j;
			gh_framevec fv = { NULL, 0, 0, 0 };
			uint64_t pcs[64];
			size_t np = 0;

			for (j = 0; j < 20000; j++) {
				uint64_t pc;
				const char *nm;

				seed = seed * 1103515245u + 12345u;
				pc = seed % (uint32_t)sec->addr;
				(void)gh_sym_funcforpc_name(cs, pc);
				(void)gh_sym_lookup(cs, pc, NULL, &nm);
				pcs[np++] = pc;
				if (np == GH_ARRAY_LEN(pcs)) {
					uint64_t *o = NULL;
					size_t no = 0;

					assert_int_equal(gh_sym_callers_frames(
						cs, pcs, np, &fv), 0);
					fv.n = 0;
					assert_int_equal(
						gh_sym_expand_final_inline(
							cs, pcs, np, &o, &no),
						0);
					free(o);
					np = 0;
				}
			}
			(void)nf;
			gh_framevec_free(&fv);
		}
		printf("# corrupt round %d: %s\n", round,
		       cs != NULL ? "symbolized" : err.msg);
		gh_sym_close(cs);
		gh_exe_close(ce);
		unlink(tmp);
		memcpy(tmp + strlen(tmp) - 6, "XXXXXX", 6);
		free(cp);
	}
	free(img);
	gh_exe_close(e);
}

static void test_gobins(void **state)
{
	const char *list = *state;
	char *copy = strdup(list), *save = NULL, *p;
	long failures = 0;

	assert_non_null(copy);
	for (p = strtok_r(copy, ":", &save); p != NULL;
	     p = strtok_r(NULL, ":", &save)) {
		checker c;
		char id[256];

		memset(&c, 0, sizeof(c));
		c.exe_path = p;
		check_gobin(&c);
		gh_file_gnu_build_id(p, id, sizeof(id));
		CHECK(&c, strcmp(id, gh_exe_gnu_build_id(c.exe)) == 0,
		      "%s: gnu build id %s vs %s", p, id,
		      gh_exe_gnu_build_id(c.exe));
		CHECK(&c, gh_exe_go_build_id(c.exe)[0] != '\0',
		      "%s: no Go build id", p);
		printf("# %s: go1.%d bias %#llx: %ld stacks, %ld frames, "
		       "%ld FuncForPC, %ld failures\n",
		       p, c.go_minor, (unsigned long long)c.bias, c.nstacks,
		       c.nframes, c.nfuncforpc, c.failures);
		failures += c.failures;
		gh_sym_close(c.sym);
		gh_exe_close(c.exe);
		/*
		 * The corruption smoke test is slow under sanitizers: run it
		 * on the first and the last binary only (oldest and newest
		 * toolchain, with and without .symtab in run-symcheck.sh).
		 */
		if (getenv("GOHEAP_TEST_NO_CORRUPT") == NULL &&
		    (p == copy || save == NULL || *save == '\0'))
			check_corrupt(p);
	}
	free(copy);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest decoder[] = {
		cmocka_unit_test(test_pctab_basic),
		cmocka_unit_test(test_pctab_varint_zigzag),
		cmocka_unit_test(test_pctab_first_zero),
		cmocka_unit_test(test_pctab_truncated),
		cmocka_unit_test(test_pctab_shift_wrap),
		cmocka_unit_test(test_name_for_print),
		cmocka_unit_test(test_open_errors),
	};
	const char *gobin = getenv("GOHEAP_TEST_GOBIN");
	int rc;

	rc = cmocka_run_group_tests_name("decoder", decoder, NULL, NULL);
	if (rc != 0)
		return 1;
	if (gobin == NULL || gobin[0] == '\0') {
		/* The decoder group above is this program's own test; the
		 * group over real Go binaries runs from tests/run-symcheck.sh,
		 * which builds them and sets GOHEAP_TEST_GOBIN. */
		printf("# gobin group: run by tests/run-symcheck.sh\n");
		return 0;
	}
	{
		const struct CMUnitTest gobins[] = {
			cmocka_unit_test_prestate(test_gobins, (void *)gobin),
		};

		rc = cmocka_run_group_tests_name("gobin", gobins, NULL, NULL);
	}
	return rc == 0 ? 0 : 1;
}

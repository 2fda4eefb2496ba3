/*
 * fuzz_walk.c - libFuzzer harness for the bucket-list walker (walk.c) over
 * a synthetic memory image, through a fake goheap_memsrc_ops, as
 * tests/test_walk.c does with fixed images.
 *
 * Input: 4 header bytes, then the image mapped at IMG_BASE.
 *   byte 0  Go minor version (taken modulo the supported range)
 *   byte 1  bit 0: 4-byte pointers; bit 1: big endian
 *   byte 2  profile kind (heap, allocs, block, mutex)
 *   byte 3  bit 0: MemProfileRate address unknown
 * The runtime globals sit at fixed image offsets (0x10 mbuckets, 0x18
 * bbuckets, 0x20 xbuckets, 0x28 mProfCycle, 0x30 MemProfileRate), so every
 * bucket pointer, nstk and count is the fuzzer's.  Reads outside the image
 * fail with GOHEAP_EUNMAPPED, as the core backend does for undumped memory.
 * When LLVMFuzzerInitialize found a Go executable (GOHEAP_FUZZ_EXE), each
 * walked profile is also written as text and pprof, as go-heap would.
 */
#include "fuzz.h"

#include "fakemem.h"
#include "walk.h"

#define IMG_BASE 0x10000u



static gh_exe *g_exe;
static gh_sym *g_sym;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("GOHEAP_FUZZ_EXE");
	gh_err err = { 0, "" };
	gh_gover v = { 0, 0, 0 };

	(void)argc;
	(void)argv;
	if (path == NULL || path[0] == '\0')
		return 0;
	if (gh_exe_open(&g_exe, path, &err) != 0 ||
	    gh_sym_open(&g_sym, g_exe, 0, v, &err) != 0) {
		fprintf(stderr, "fuzz_walk: %s: %s (writers not fuzzed)\n",
			path, err.msg);
		gh_sym_close(g_sym);
		g_sym = NULL;
	}
	return 0;
}

static void write_all(const gh_profile *p)
{
	gh_wctx w;
	gh_buf b = GH_BUF_INIT;
	gh_err err = { 0, "" };

	memset(&w, 0, sizeof(w));
	w.sym = g_sym;
	w.sample_index = GOHEAP_SAMPLE_DEFAULT;
	w.top_n = 5;
	w.exe_path = "fuzz";
	(void)gh_write_text(p, &w, &b, &err);
	gh_buf_free(&b);
	(void)gh_write_pprof(p, &w, &b, &err);
	gh_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int oldest = gh_rtlayout_oldest(), newest = gh_rtlayout_newest();
	gh_gover ver = { 1, 0, 0 };
	const gh_rtlayout *lay;
	gh_rtaddrs a = { .mbuckets = IMG_BASE + 0x10, .bbuckets = IMG_BASE + 0x18,
			 .xbuckets = IMG_BASE + 0x20, .mprofcycle = IMG_BASE + 0x28,
			 .memprofilerate = IMG_BASE + 0x30 };
	gh_err err = { 0, "" };
	gh_profile p;
	gh_fakemem f;
	gh_mem m;
	int rc;

	if (size < 4)
		return 0;
	ver.minor = oldest + data[0] % (newest - oldest + 1);
	lay = gh_rtlayout_for(ver);
	if (lay == NULL)
		return 0;
	if (data[3] & 1)
		a.memprofilerate = 0;
	f.img = data + 4;
	f.len = size - 4;
	f.base = IMG_BASE;
	memset(&p, 0, sizeof(p));
	p.kind = data[2] % 4;
	p.ver = ver;
	gh_mem_init(&m, &gh_fakemem_ops, &f, (data[1] & 1) ? 4 : 8, (data[1] >> 1) & 1,
		    &err);
	rc = gh_walk(&p, &m, lay, &a, &err);
	gh_mem_fini(&m);
	if (rc == 0 && g_sym != NULL)
		write_all(&p);
	gh_profile_destroy(&p);
	return 0;
}

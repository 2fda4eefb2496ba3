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
 *
 * Every image is also walked by gh_walk_stream (what the CLI runs): it must
 * fail as gh_walk failed or hand out exactly gh_walk's records, and, with
 * an executable, its pprof stream (the encoder thread) must write the
 * bytes gh_write_pprof wrote.  A difference aborts.
 */
#include "fuzz.h"

#include "fakemem.h"
#include "walk.h"
#include "writers.h"

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

/* The streaming walk's records (stacks copied), and its pprof stream. */
typedef struct stream_check {
	const gh_profile *want;
	size_t n;
	int bad;
	gh_pprof_stream *st;
	gh_wctx *w;
	gh_buf *out;
} stream_check;

static int sc_begin(void *arg, const gh_profile *p)
{
	stream_check *c = arg;
	gh_err err = { 0, "" };

	if (c->w == NULL)
		return 0;
	if (gh_pprof_stream_start(&c->st, p, c->w, c->out, &err) != 0)
		c->bad |= 4;  /* gh_write_pprof could start: so must this */
	return 0;
}

static int sc_record(void *arg, const gh_record *r)
{
	stream_check *c = arg;
	const gh_record *y;

	if (c->n >= c->want->nrecs) {
		c->bad |= 1;
		return 0;
	}
	y = &c->want->recs[c->n++];
	if (r->alloc_objects != y->alloc_objects ||
	    r->free_objects != y->free_objects ||
	    r->alloc_bytes != y->alloc_bytes ||
	    r->free_bytes != y->free_bytes || r->count != y->count ||
	    r->cycles != y->cycles || r->bucket != y->bucket ||
	    r->object_size != y->object_size || r->nstk != y->nstk ||
	    (r->nstk > 0 && memcmp(r->stk, y->stk, r->nstk * 8) != 0))
		c->bad |= 2;
	if (c->st != NULL)
		(void)gh_pprof_stream_record(c->st, r);
	return 0;
}

/*
 * The two pprof outputs hold the same profile: the same bytes once
 * inflated.  (Not the same gzip bytes: in a long fuzzing process igzip
 * gave two streams of equal content different Huffman blocks, which no
 * run of the input alone repeats; doc/fuzzing.md, finding 16.)
 */
static int same_profile(const gh_buf *a, const gh_buf *b)
{
	unsigned char *x, *y;
	size_t nx, ny;
	int same;

	if (a->len == b->len && memcmp(a->data, b->data, a->len) == 0)
		return 1;
	if (fuzz_gunzip(a->data, a->len, &x, &nx) != 0)
		return 1;   /* out of memory: nothing to compare */
	if (fuzz_gunzip(b->data, b->len, &y, &ny) != 0) {
		free(x);
		return 1;
	}
	same = nx == ny && memcmp(x, y, nx) == 0;
	free(x);
	free(y);
	return same;
}

static void check_stream(const uint8_t *data, size_t size,
			 const gh_rtlayout *lay, const gh_rtaddrs *a,
			 const gh_profile *want, int want_rc,
			 const gh_buf *want_pprof)
{
	gh_profile p;
	gh_fakemem f;
	gh_mem m;
	gh_err err = { 0, "" };
	gh_wctx w;
	gh_buf out = GH_BUF_INIT;
	stream_check c;
	gh_walk_sink sink = { sc_begin, sc_record, NULL };
	int rc, frc;

	memset(&c, 0, sizeof(c));
	c.want = want;
	c.out = &out;
	if (want_pprof != NULL) {
		memset(&w, 0, sizeof(w));
		w.sym = g_sym;
		w.sample_index = GOHEAP_SAMPLE_DEFAULT;
		w.top_n = 5;
		w.exe_path = "fuzz";
		c.w = &w;
	}
	sink.arg = &c;
	f.img = data + 4;
	f.len = size - 4;
	f.base = IMG_BASE;
	memset(&p, 0, sizeof(p));
	p.kind = want->kind;
	p.ver = want->ver;
	p.time_nanos = want->time_nanos;
	gh_mem_init(&m, &gh_fakemem_ops, &f, (data[1] & 1) ? 4 : 8,
		    (data[1] >> 1) & 1, &err);
	rc = gh_walk_stream(&p, &m, lay, a, &sink, &err);
	gh_mem_fini(&m);
	frc = gh_pprof_stream_finish(c.st, &p, rc == 0);
	if (rc != want_rc || (rc == 0 && (c.bad || c.n != want->nrecs ||
					  p.skipped != want->skipped ||
					  p.skipped_bucket != want->skipped_bucket ||
					  strcmp(p.skipped_reason,
						 want->skipped_reason) != 0 ||
					  p.nbuckets != want->nbuckets)))
		abort();
	if (rc == 0 && want_pprof != NULL && frc == 0 &&
	    !same_profile(&out, want_pprof)) {
		if (getenv("FUZZ_WALK_DUMP") != NULL) {
			FILE *fp = fopen("/tmp/fw-stream.gz", "wb");

			if (fp != NULL) {
				fwrite(out.data, 1, out.len, fp);
				fclose(fp);
			}
			fp = fopen("/tmp/fw-write.gz", "wb");
			if (fp != NULL) {
				fwrite(want_pprof->data, 1, want_pprof->len, fp);
				fclose(fp);
			}
		}
		abort();
	}
	gh_buf_free(&out);
	gh_profile_destroy(&p);
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
	{
		/* the streaming walk, and for heap kinds its pprof stream */
		gh_buf want = GH_BUF_INIT;
		int with_pprof = rc == 0 && g_sym != NULL &&
				 (p.kind == GOHEAP_PROFILE_HEAP ||
				  p.kind == GOHEAP_PROFILE_ALLOCS);

		if (with_pprof) {
			gh_wctx w;
			gh_err werr = { 0, "" };

			memset(&w, 0, sizeof(w));
			w.sym = g_sym;
			w.sample_index = GOHEAP_SAMPLE_DEFAULT;
			w.top_n = 5;
			w.exe_path = "fuzz";
			if (gh_write_pprof(&p, &w, &want, &werr) != 0)
				with_pprof = 0;
		}
		check_stream(data, size, lay, &a, &p, rc,
			     with_pprof ? &want : NULL);
		gh_buf_free(&want);
	}
	gh_profile_destroy(&p);
	return 0;
}

/*
 * fuzz_pprof.c - libFuzzer harness for the profile writers (fmt_pprof.c,
 * pb.c, fmt_text.c, fmt_top.c, fmt_collapsed.c), with a round trip for
 * the gzip'd profile.proto.
 *
 * The symbolizer is real: LLVMFuzzerInitialize loads the Go executable
 * named by GOHEAP_FUZZ_EXE (the seed script builds tests/go/heapprog).
 * The input describes a profile:
 *   byte 0 kind, byte 1 Go minor, byte 2 mapping flags, bytes 3..10 rate,
 *   then records of 33 + 4*nstk bytes: four int64 counts, nstk (byte), and
 *   nstk PCs, each a 32-bit offset into .text (offsets >= 0xfff00000 are
 *   taken as absolute garbage PCs).
 * gh_write_pprof's output is inflated and walked as protobuf: every field
 * must have a valid wire type and fit in its message, the string table
 * must start with "", there can be no more samples than records, and the
 * gzip stream must end exactly at the end of the buffer.
 */
#include "fuzz.h"

#include "profile.h"
#include "writers.h"

#define MAX_RECS 512

static gh_exe *g_exe;
static gh_sym *g_sym;
static uint64_t g_text, g_span = 1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("GOHEAP_FUZZ_EXE");
	const gh_section *t;
	gh_err err = { 0, "" };
	gh_gover v = { 0, 0, 0 };

	(void)argc;
	(void)argv;
	if (path == NULL || path[0] == '\0') {
		fprintf(stderr, "fuzz_pprof: set GOHEAP_FUZZ_EXE to a Go "
			"executable (tests/fuzz/seeds.sh builds one)\n");
		exit(1);
	}
	if (gh_exe_open(&g_exe, path, &err) != 0 ||
	    gh_sym_open(&g_sym, g_exe, 0, v, &err) != 0) {
		fprintf(stderr, "fuzz_pprof: %s: %s\n", path, err.msg);
		exit(1);
	}
	t = gh_exe_section(g_exe, ".text");
	if (t != NULL && t->size > 0) {
		g_text = t->addr;
		g_span = t->size;
	}
	return 0;
}

static int64_t s64(const uint8_t *p)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return (int64_t)v;
}

/*
 * The gzip'd profile.proto (fuzz.h, fuzz_check_pprof): well-formed, and no
 * more samples than records.
 */
static void round_trip(const unsigned char *gz, size_t len, size_t nrecs)
{
	size_t nsample;

	if (fuzz_check_pprof(gz, len, &nsample, NULL) == 0 && nsample > nrecs)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gh_record recs[MAX_RECS];
	static uint64_t pool[MAX_RECS * 256];
	gh_profile p;
	gh_pmap map;
	gh_wctx w;
	gh_buf b = GH_BUF_INIT;
	gh_err err = { 0, "" };
	size_t off = 11, npool = 0, i;
	int fmt;

	if (size < 11)
		return 0;
	memset(&p, 0, sizeof(p));
	p.kind = data[0] % 4;
	p.ver.major = 1;
	p.ver.minor = 19 + data[1] % 9;
	p.rate = s64(data + 3);
	p.cycles_per_second = (double)(data[2] | 1) * 1e6;
	p.profstackdepth = (data[2] & 0x80) ? 0 : 128;
	p.recs = recs;
	memset(&map, 0, sizeof(map));
	map.start = g_text;
	map.end = g_text + g_span;
	map.file = (char *)"/fuzz/exe";
	snprintf(map.build_id, sizeof(map.build_id), "%02x", data[2]);
	if (data[2] & 1) {
		p.maps = &map;
		p.nmaps = 1;
	}
	while (p.nrecs < MAX_RECS && off + 33 <= size) {
		gh_record *r = &recs[p.nrecs++];
		unsigned n = data[off + 32];

		r->alloc_objects = s64(data + off);
		r->alloc_bytes = s64(data + off + 8);
		r->free_objects = s64(data + off + 16);
		r->free_bytes = s64(data + off + 24);
		r->count = r->alloc_objects;
		r->cycles = r->alloc_bytes;
		r->bucket = off;
		off += 33;
		r->stk = pool + npool;
		r->nstk = 0;
		for (i = 0; i < n && off + 4 <= size; i++, off += 4) {
			uint32_t o = (uint32_t)fuzz_u64(data, off + 4, off);

			r->stk[r->nstk++] = o >= 0xfff00000u ?
				(uint64_t)o << 20 : g_text + o % g_span;
		}
		npool += r->nstk;
	}
	memset(&w, 0, sizeof(w));
	w.sym = g_sym;
	w.sample_index = GOHEAP_SAMPLE_DEFAULT;
	w.top_n = 10;
	w.exe_path = "/fuzz/exe";
	if (gh_write_pprof(&p, &w, &b, &err) == 0)
		round_trip(b.data, b.len, p.nrecs);
	gh_buf_free(&b);
	fmt = data[2] % 3;
	if (fmt == 0)
		(void)gh_write_text(&p, &w, &b, &err);
	else if (fmt == 1)
		(void)gh_write_top(&p, &w, &b, &err);
	else
		(void)gh_write_collapsed(&p, &w, &b, &err);
	gh_buf_free(&b);
	return 0;
}

/*
 * test_pb.c - unit tests for pb.c (protobuf encoding) and fmt_pprof.c
 * (profileBuilder, scaleHeapSample, gzip).
 *
 * fmt_pprof.c symbolizes only through sym.h, so this file links a fake
 * symbolizer instead of pclntab.c: a table of PCs with the frames
 * runtime.CallersFrames would give for them, plus a synthetic range used by
 * the speed test.  The written profile is gunzipped and decoded with a tiny
 * protobuf reader, and its structure is compared with what Go's proto.go
 * would emit for the same stacks (worked out by hand in each test).
 * Expected scaleHeapSample and math.Exp values come from Go itself:
 * tests/go/scalecheck/gen.sh, pasted below.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>
#include <cmocka.h>

#include "gomath.h"
#include "pb.h"
#include "profile.h"
#include "writers.h"

/* ---- fake symbolizer ------------------------------------------------------ */

typedef struct fake_pc {
	uint64_t pc;          /* return PC as stored in a bucket */
	gh_frame frame;       /* what CallersFrames([]uintptr{pc}) gives */
} fake_pc;

/* Synthetic functions for the speed test: pc >= SYNTH_BASE. */
#define SYNTH_BASE 0x10000000ULL
#define SYNTH_FUNCS 4096

struct gh_sym {
	const fake_pc *tab;
	size_t n;
	char (*synth_names)[32];
	int expand_calls;
};

static const fake_pc *fake_find(const gh_sym *s, uint64_t pc)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->tab[i].pc == pc)
			return &s->tab[i];
	}
	return NULL;
}

void gh_framevec_free(gh_framevec *fv)
{
	free(fv->v);
	fv->v = NULL;
	fv->n = fv->cap = 0;
}

static int fv_push(gh_framevec *out, const gh_frame *f)
{
	gh_frame *nv;

	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 8;
		nv = realloc(out->v, out->cap * sizeof(*nv));
		if (nv == NULL)
			return GOHEAP_ENOMEM;
		out->v = nv;
	}
	out->v[out->n++] = *f;
	return 0;
}

int gh_sym_callers_frames(const gh_sym *s, const uint64_t *pcs, size_t n,
			  gh_framevec *out)
{
	size_t i;
	const fake_pc *e;
	gh_frame f;

	for (i = 0; i < n; i++) {
		e = fake_find(s, pcs[i]);
		if (e != NULL) {
			f = e->frame;
		} else if (pcs[i] >= SYNTH_BASE && s->synth_names != NULL) {
			uint64_t fn = ((pcs[i] - SYNTH_BASE) >> 8) % SYNTH_FUNCS;

			memset(&f, 0, sizeof(f));
			f.pc = pcs[i] - 1;
			f.entry = SYNTH_BASE + (fn << 8);
			f.function = s->synth_names[fn];
			f.file = "synth.go";
			f.line = (int64_t)(pcs[i] & 0xff) + 1;
			f.start_line = 1;
		} else {
			memset(&f, 0, sizeof(f));
			f.pc = pcs[i];
			f.function = "";
			f.file = "";
		}
		if (fv_push(out, &f) != 0)
			return GOHEAP_ENOMEM;
	}
	return 0;
}

const char *gh_sym_funcforpc_name(const gh_sym *s, uint64_t pc)
{
	const fake_pc *e = fake_find(s, pc);

	if (e != NULL && e->frame.function[0] != '\0')
		return e->frame.function;
	if (pc >= SYNTH_BASE && s->synth_names != NULL)
		return s->synth_names[((pc - SYNTH_BASE) >> 8) % SYNTH_FUNCS];
	return NULL;
}

int gh_sym_expand_final_inline(const gh_sym *s, const uint64_t *pcs,
			       size_t n, uint64_t **out, size_t *nout)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v));

	(void)s;
	if (v == NULL)
		return GOHEAP_ENOMEM;
	if (n > 0)
		memcpy(v, pcs, n * sizeof(*v));
	*out = v;
	*nout = n;
	return 0;
}

const char *gh_func_name_for_print(const char *raw, char *buf, size_t len)
{
	const char *open = strchr(raw, '['), *close = strrchr(raw, ']');

	if (open == NULL || close == NULL || close < open) {
		snprintf(buf, len, "%s", raw);
		return buf;
	}
	snprintf(buf, len, "%.*s[...]%s", (int)(open - raw), raw, close + 1);
	return buf;
}

/* ---- protobuf reader -------------------------------------------------------- */

typedef struct pbfield {
	int tag, wire;
	uint64_t v;                 /* varint */
	const unsigned char *p;     /* length-delimited */
	size_t len;
} pbfield;

typedef struct pbreader {
	const unsigned char *p, *end;
} pbreader;

static uint64_t rd_varint(pbreader *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->p < r->end) {
		unsigned char c = *r->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
		assert_true(shift < 70);
	}
	fail_msg("truncated varint");
	return 0;
}

/* Next field, 0 at the end. */
static int rd_field(pbreader *r, pbfield *f)
{
	uint64_t key;

	if (r->p >= r->end)
		return 0;
	key = rd_varint(r);
	f->tag = (int)(key >> 3);
	f->wire = (int)(key & 7);
	f->p = NULL;
	f->len = 0;
	f->v = 0;
	if (f->wire == 0) {
		f->v = rd_varint(r);
	} else if (f->wire == 2) {
		f->len = (size_t)rd_varint(r);
		assert_true(f->len <= (size_t)(r->end - r->p));
		f->p = r->p;
		r->p += f->len;
	} else {
		fail_msg("unexpected wire type %d", f->wire);
	}
	return 1;
}

/* Values of a repeated integer, packed or not, appended to v[*n]. */
static void rd_repeated(const pbfield *f, uint64_t *v, size_t *n, size_t max)
{
	pbreader r;

	if (f->wire == 0) {
		assert_true(*n < max);
		v[(*n)++] = f->v;
		return;
	}
	r.p = f->p;
	r.end = f->p + f->len;
	while (r.p < r.end) {
		assert_true(*n < max);
		v[(*n)++] = rd_varint(&r);
	}
}

/* A decoded profile, enough for the checks below. */
#define MAXN 64

typedef struct dloc {
	uint64_t id, mapping, address;
	uint64_t line_func[8];
	int64_t line_line[8];
	size_t nlines;
} dloc;

typedef struct dfunc {
	uint64_t id;
	int64_t name, system_name, filename, start_line;
} dfunc;

typedef struct dsample {
	int64_t values[4];
	size_t nvalues;
	uint64_t locs[MAXN];
	size_t nlocs;
	int64_t label_key, label_num;
	int nlabels;
} dsample;

typedef struct dmapping {
	uint64_t id, start, limit, offset;
	int64_t filename, build_id;
	int has_functions;
} dmapping;

typedef struct dprofile {
	int order[256];             /* top-level tags in stream order */
	size_t norder;
	dloc locs[MAXN];
	size_t nlocs;
	dfunc funcs[MAXN];
	size_t nfuncs;
	dsample samples[MAXN];
	size_t nsamples;
	dmapping maps[8];
	size_t nmaps;
	char *strings[256];
	size_t nstrings;
	int64_t period, time_nanos, default_sample_type;
	int64_t types[8][2];
	size_t ntypes;
	int64_t period_type[2];
	unsigned char *raw;
	size_t rawlen;
} dprofile;

static void decode_value_type(const pbfield *f, int64_t out[2])
{
	pbreader r = { f->p, f->p + f->len };
	pbfield g;

	while (rd_field(&r, &g))
		out[g.tag - 1] = (int64_t)g.v;
}

static void decode_profile(dprofile *d, const unsigned char *buf, size_t len)
{
	pbreader r = { buf, buf + len }, s;
	pbfield f, g, h;
	size_t n;

	memset(d, 0, sizeof(*d));
	while (rd_field(&r, &f)) {
		if (d->norder < 256)
			d->order[d->norder++] = f.tag;
		s.p = f.p;
		s.end = f.p + f.len;
		switch (f.tag) {
		case 1:
			decode_value_type(&f, d->types[d->ntypes++]);
			break;
		case 11:
			decode_value_type(&f, d->period_type);
			break;
		case 12:
			d->period = (int64_t)f.v;
			break;
		case 9:
			d->time_nanos = (int64_t)f.v;
			break;
		case 14:
			d->default_sample_type = (int64_t)f.v;
			break;
		case 4: {
			dloc *l = &d->locs[d->nlocs++];

			while (rd_field(&s, &g)) {
				if (g.tag == 1)
					l->id = g.v;
				else if (g.tag == 2)
					l->mapping = g.v;
				else if (g.tag == 3)
					l->address = g.v;
				else if (g.tag == 4) {
					pbreader t = { g.p, g.p + g.len };

					while (rd_field(&t, &h)) {
						if (h.tag == 1)
							l->line_func[l->nlines] = h.v;
						else
							l->line_line[l->nlines] = (int64_t)h.v;
					}
					l->nlines++;
				}
			}
			break;
		}
		case 5: {
			dfunc *fn = &d->funcs[d->nfuncs++];

			while (rd_field(&s, &g)) {
				if (g.tag == 1)
					fn->id = g.v;
				else if (g.tag == 2)
					fn->name = (int64_t)g.v;
				else if (g.tag == 3)
					fn->system_name = (int64_t)g.v;
				else if (g.tag == 4)
					fn->filename = (int64_t)g.v;
				else if (g.tag == 5)
					fn->start_line = (int64_t)g.v;
			}
			break;
		}
		case 2: {
			dsample *sm = &d->samples[d->nsamples++];
			uint64_t vals[8];

			n = 0;
			while (rd_field(&s, &g)) {
				if (g.tag == 1) {
					rd_repeated(&g, sm->locs, &sm->nlocs, MAXN);
				} else if (g.tag == 2) {
					rd_repeated(&g, vals, &n, 8);
				} else if (g.tag == 3) {
					pbreader t = { g.p, g.p + g.len };

					sm->nlabels++;
					while (rd_field(&t, &h)) {
						if (h.tag == 1)
							sm->label_key = (int64_t)h.v;
						else if (h.tag == 3)
							sm->label_num = (int64_t)h.v;
						else
							fail_msg("label str set");
					}
				}
			}
			for (sm->nvalues = 0; sm->nvalues < n; sm->nvalues++)
				sm->values[sm->nvalues] = (int64_t)vals[sm->nvalues];
			break;
		}
		case 3: {
			dmapping *m = &d->maps[d->nmaps++];

			while (rd_field(&s, &g)) {
				switch (g.tag) {
				case 1: m->id = g.v; break;
				case 2: m->start = g.v; break;
				case 3: m->limit = g.v; break;
				case 4: m->offset = g.v; break;
				case 5: m->filename = (int64_t)g.v; break;
				case 6: m->build_id = (int64_t)g.v; break;
				case 7: m->has_functions = (int)g.v; break;
				default: fail_msg("mapping field %d", g.tag);
				}
			}
			break;
		}
		case 6:
			d->strings[d->nstrings] = calloc(1, f.len + 1);
			memcpy(d->strings[d->nstrings], f.p, f.len);
			d->nstrings++;
			break;
		default:
			fail_msg("unexpected profile field %d", f.tag);
		}
	}
}

static void dprofile_free(dprofile *d)
{
	size_t i;

	for (i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	free(d->raw);
}

static const char *dstr(const dprofile *d, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < d->nstrings);
	return d->strings[i];
}

/* gunzip with zlib, checking the header compress/gzip would write. */
static unsigned char *gunzip(const unsigned char *in, size_t inlen,
			     size_t *outlen)
{
	static const unsigned char hdr[10] = {
		0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255
	};
	z_stream zs;
	size_t cap = 1 << 16;
	unsigned char *out = malloc(cap);
	int rc;

	assert_true(inlen >= 18);
	assert_memory_equal(in, hdr, sizeof(hdr));
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)inlen;
	*outlen = 0;
	do {
		if (*outlen == cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		zs.next_out = out + *outlen;
		zs.avail_out = (uInt)(cap - *outlen);
		rc = inflate(&zs, Z_NO_FLUSH);
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
		*outlen = cap - zs.avail_out;
	} while (rc != Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0);
	inflateEnd(&zs);
	return out;
}

static void write_and_decode(const gh_profile *p, const gh_sym *sym,
			     dprofile *d)
{
	gh_buf out = GH_BUF_INIT;
	gh_wctx w = { sym, GOHEAP_SAMPLE_DEFAULT, 20, "x", NULL, NULL };
	gh_err err = { 0, "" };
	unsigned char *raw;
	size_t rawlen;

	assert_int_equal(gh_write_pprof(p, &w, &out, &err), 0);
	raw = gunzip(out.data, out.len, &rawlen);
	decode_profile(d, raw, rawlen);
	d->raw = raw;
	d->rawlen = rawlen;
	gh_buf_free(&out);
}

/* ---- pb.c against known bytes ------------------------------------------------ */

static void expect_bytes(const gh_pb *b, const char *hex)
{
	unsigned char want[256];
	size_t n = 0;
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		want[n++] = (unsigned char)v;
		hex += 2;
	}
	assert_int_equal(b->data.len, n);
	assert_memory_equal(b->data.data, want, n);
}

static void test_pb_varint(void **state)
{
	gh_pb b = GH_PB_INIT;

	(void)state;
	gh_pb_varint(&b, 0);
	gh_pb_varint(&b, 1);
	gh_pb_varint(&b, 127);
	gh_pb_varint(&b, 128);
	gh_pb_varint(&b, 300);
	gh_pb_varint(&b, UINT64_MAX);
	expect_bytes(&b, "00 01 7f 8001 ac02 ffffffffffffffffff01");
	gh_pb_free(&b);

	/* int64 is uint64(x): ten bytes for -1, no zigzag */
	gh_pb_int64(&b, 2, -1);
	gh_pb_uint64(&b, 1, 150);
	gh_pb_int64(&b, 16, 1);   /* two-byte key */
	expect_bytes(&b, "10 ffffffffffffffffff01 08 9601 8001 01");
	gh_pb_free(&b);
}

static void test_pb_opt_and_bool(void **state)
{
	gh_pb b = GH_PB_INIT;

	(void)state;
	gh_pb_uint64_opt(&b, 1, 0);
	gh_pb_int64_opt(&b, 2, 0);
	gh_pb_bool_opt(&b, 7, 0);
	gh_pb_string_opt(&b, 3, "", 0);
	assert_int_equal(b.data.len, 0);
	gh_pb_uint64_opt(&b, 1, 5);
	gh_pb_int64_opt(&b, 2, -2);
	gh_pb_bool_opt(&b, 7, 1);
	gh_pb_bool(&b, 8, 0);
	gh_pb_string(&b, 6, "", 0);
	gh_pb_string(&b, 6, "hi", 2);
	expect_bytes(&b, "08 05 10 feffffffffffffffff01 38 01 40 00 3200 3202 6869");
	gh_pb_free(&b);
}

static void test_pb_packed_rule(void **state)
{
	gh_pb b = GH_PB_INIT;
	uint64_t u[3] = { 1, 300, 2 };
	int64_t s[4] = { 1, -1, 0, 3 };

	(void)state;
	/* protobuf.go: packed only for more than 2 values */
	gh_pb_uint64s(&b, 1, u, 0);
	assert_int_equal(b.data.len, 0);
	gh_pb_uint64s(&b, 1, u, 1);
	gh_pb_uint64s(&b, 1, u, 2);
	expect_bytes(&b, "0801 0801 08ac02");
	gh_pb_free(&b);
	gh_pb_uint64s(&b, 1, u, 3);
	expect_bytes(&b, "0a04 01ac0202");
	gh_pb_free(&b);
	gh_pb_int64s(&b, 2, s, 2);
	expect_bytes(&b, "1001 10ffffffffffffffffff01");
	gh_pb_free(&b);
	gh_pb_int64s(&b, 2, s, 4);
	expect_bytes(&b, "120d 01ffffffffffffffffff01 00 03");
	gh_pb_free(&b);
}

static void test_pb_messages(void **state)
{
	gh_pb b = GH_PB_INIT;
	size_t m1, m2, i;
	char big[200];

	(void)state;
	/* ValueType{type:1, unit:2} as pbValueType(SampleType) writes it */
	m1 = gh_pb_start_message(&b);
	gh_pb_int64(&b, 1, 1);
	gh_pb_int64(&b, 2, 2);
	gh_pb_end_message(&b, 1, m1);
	assert_int_equal(b.nest, 0);
	expect_bytes(&b, "0a04 0801 1002");
	gh_pb_free(&b);

	/* nested: Location{id:1, line{function_id:1, line:42}} after data */
	gh_pb_uint64(&b, 12, 7);
	m1 = gh_pb_start_message(&b);
	gh_pb_uint64_opt(&b, 1, 1);
	m2 = gh_pb_start_message(&b);
	assert_int_equal(b.nest, 2);
	gh_pb_uint64_opt(&b, 1, 1);
	gh_pb_int64_opt(&b, 2, 42);
	gh_pb_end_message(&b, 4, m2);
	gh_pb_end_message(&b, 4, m1);
	expect_bytes(&b, "6007 2208 0801 2204 0801 102a");
	gh_pb_free(&b);

	/* a body of 200 bytes needs a two-byte length: shifted right by 3 */
	memset(big, 'x', sizeof(big));
	m1 = gh_pb_start_message(&b);
	gh_pb_string(&b, 1, big, 197);
	gh_pb_end_message(&b, 6, m1);
	assert_int_equal(b.data.len, 3 + 200);
	assert_int_equal(b.data.data[0], 0x32);
	assert_int_equal(b.data.data[1], 0xc8);
	assert_int_equal(b.data.data[2], 0x01);
	assert_int_equal(b.data.data[3], 0x0a);
	assert_int_equal(b.data.data[4], 0xc5);
	assert_int_equal(b.data.data[5], 0x01);
	for (i = 6; i < 203; i++)
		assert_int_equal(b.data.data[i], 'x');
	gh_pb_free(&b);
}

/* ---- scaleHeapSample and math.Exp ---------------------------------------------- */

typedef struct scale_case {
	int64_t count, size, rate, want_count, want_size;
} scale_case;

/*
 * tests/go/scalecheck/gen.sh, Go 1.22 on amd64 (FMA and not), 386 and
 * arm64 (qemu): all four agree on these integers.
 */
static const scale_case scale_cases[] = {
	{ 0, 0, 524288, 0, 0 },
	{ 0, 100, 524288, 0, 0 },
	{ 5, 0, 524288, 0, 0 },
	{ 3, 300, 1, 3, 300 },
	{ 3, 300, 0, 3, 300 },
	{ 3, 300, -7, 3, 300 },
	{ 1, 8, 2, 1, 8 },
	{ 1, 8, 524288, 65536, 524292 },
	{ 3, 24, 2, 3, 24 },
	{ 3, 24, 524288, 196609, 1572876 },
	{ 12345, 98760, 2, 12575, 100602 },
	{ 12345, 98760, 524288, 809048092, 6472384740 },
	{ 1, 16, 2, 1, 16 },
	{ 1, 16, 524288, 32768, 524296 },
	{ 3, 48, 2, 3, 48 },
	{ 3, 48, 524288, 98305, 1572888 },
	{ 12345, 197520, 2, 12349, 197586 },
	{ 12345, 197520, 524288, 404527132, 6472434120 },
	{ 1, 24, 2, 1, 24 },
	{ 1, 24, 524288, 21845, 524300 },
	{ 3, 72, 2, 3, 72 },
	{ 3, 72, 524288, 65537, 1572900 },
	{ 12345, 296280, 2, 12345, 296281 },
	{ 12345, 296280, 524288, 269686812, 6472483501 },
	{ 1, 32, 2, 1, 32 },
	{ 1, 32, 524288, 16384, 524304 },
	{ 3, 96, 2, 3, 96 },
	{ 3, 96, 524288, 49153, 1572912 },
	{ 12345, 395040, 2, 12345, 395040 },
	{ 12345, 395040, 524288, 202266652, 6472532882 },
	{ 1, 48, 2, 1, 48 },
	{ 1, 48, 524288, 10923, 524312 },
	{ 3, 144, 2, 3, 144 },
	{ 3, 144, 524288, 32769, 1572936 },
	{ 12345, 592560, 2, 12345, 592560 },
	{ 12345, 592560, 524288, 134846492, 6472631644 },
	{ 1, 64, 2, 1, 64 },
	{ 1, 64, 524288, 8192, 524320 },
	{ 3, 192, 2, 3, 192 },
	{ 3, 192, 524288, 24577, 1572960 },
	{ 12345, 790080, 2, 12345, 790080 },
	{ 12345, 790080, 524288, 101136412, 6472730408 },
	{ 1, 96, 2, 1, 96 },
	{ 1, 96, 524288, 5461, 524336 },
	{ 3, 288, 2, 3, 288 },
	{ 3, 288, 524288, 16385, 1573008 },
	{ 12345, 1185120, 2, 12345, 1185120 },
	{ 12345, 1185120, 524288, 67426332, 6472927938 },
	{ 1, 112, 2, 1, 112 },
	{ 1, 112, 524288, 4681, 524344 },
	{ 3, 336, 2, 3, 336 },
	{ 3, 336, 524288, 14044, 1573032 },
	{ 12345, 1382640, 2, 12345, 1382640 },
	{ 12345, 1382640, 524288, 57794881, 6473026704 },
	{ 1, 128, 2, 1, 128 },
	{ 1, 128, 524288, 4096, 524352 },
	{ 3, 384, 2, 3, 384 },
	{ 3, 384, 524288, 12289, 1573056 },
	{ 12345, 1580160, 2, 12345, 1580160 },
	{ 12345, 1580160, 524288, 50571292, 6473125472 },
	{ 1, 256, 2, 1, 256 },
	{ 1, 256, 524288, 2048, 524416 },
	{ 3, 768, 2, 3, 768 },
	{ 3, 768, 524288, 6145, 1573248 },
	{ 12345, 3160320, 2, 12345, 3160320 },
	{ 12345, 3160320, 524288, 25288733, 6473915648 },
	{ 1, 512, 2, 1, 512 },
	{ 1, 512, 524288, 1024, 524544 },
	{ 3, 1536, 2, 3, 1536 },
	{ 3, 1536, 524288, 3073, 1573632 },
	{ 12345, 6320640, 2, 12345, 6320640 },
	{ 12345, 6320640, 524288, 12647453, 6475496194 },
	{ 1, 1024, 2, 1, 1024 },
	{ 1, 1024, 524288, 512, 524800 },
	{ 3, 3072, 2, 3, 3072 },
	{ 3, 3072, 524288, 1537, 1574400 },
	{ 12345, 12641280, 2, 12345, 12641280 },
	{ 12345, 12641280, 524288, 6326814, 6478658057 },
	{ 1, 2048, 2, 1, 2048 },
	{ 1, 2048, 524288, 256, 525312 },
	{ 3, 6144, 2, 3, 6144 },
	{ 3, 6144, 524288, 769, 1575937 },
	{ 12345, 25282560, 2, 12345, 25282560 },
	{ 12345, 25282560, 524288, 3166496, 6484984869 },
	{ 1, 4096, 2, 1, 4096 },
	{ 1, 4096, 524288, 128, 526338 },
	{ 3, 12288, 2, 3, 12288 },
	{ 3, 12288, 524288, 385, 1579015 },
	{ 12345, 50565120, 2, 12345, 50565120 },
	{ 12345, 50565120, 524288, 1586340, 6497650839 },
	{ 1, 8192, 2, 1, 8192 },
	{ 1, 8192, 524288, 64, 528394 },
	{ 3, 24576, 2, 3, 24576 },
	{ 3, 24576, 524288, 193, 1585183 },
	{ 12345, 101130240, 2, 12345, 101130240 },
	{ 12345, 101130240, 524288, 796268, 6523032159 },
	{ 1, 16384, 2, 1, 16384 },
	{ 1, 16384, 524288, 32, 532522 },
	{ 3, 49152, 2, 3, 49152 },
	{ 3, 49152, 524288, 97, 1597567 },
	{ 12345, 202260480, 2, 12345, 202260480 },
	{ 12345, 202260480, 524288, 401244, 6573992311 },
	{ 1, 32768, 2, 1, 32768 },
	{ 1, 32768, 524288, 16, 540842 },
	{ 3, 98304, 2, 3, 98304 },
	{ 3, 98304, 524288, 49, 1622527 },
	{ 12345, 404520960, 2, 12345, 404520960 },
	{ 12345, 404520960, 524288, 203756, 6676702582 },
	{ 1, 65536, 2, 1, 65536 },
	{ 1, 65536, 524288, 8, 557738 },
	{ 3, 196608, 2, 3, 196608 },
	{ 3, 196608, 524288, 25, 1673215 },
	{ 12345, 809041920, 2, 12345, 809041920 },
	{ 12345, 809041920, 524288, 105061, 6885281646 },
	{ 1, 1048576, 2, 1, 1048576 },
	{ 1, 1048576, 524288, 1, 1212696 },
	{ 3, 3145728, 2, 3, 3145728 },
	{ 3, 3145728, 524288, 3, 3638089 },
	{ 12345, 12944670720, 2, 12345, 12944670720 },
	{ 12345, 12944670720, 524288, 14277, 14970740067 },
	{ 1, 10485760, 2, 1, 10485760 },
	{ 1, 10485760, 524288, 1, 10485760 },
	{ 3, 31457280, 2, 3, 31457280 },
	{ 3, 31457280, 524288, 3, 31457280 },
	{ 12345, 129446707200, 2, 12345, 129446707200 },
	{ 12345, 129446707200, 524288, 12345, 129446707466 },
	{ 1, 1073741824, 2, 1, 1073741824 },
	{ 1, 1073741824, 524288, 1, 1073741824 },
	{ 3, 3221225472, 2, 3, 3221225472 },
	{ 3, 3221225472, 524288, 3, 3221225472 },
	{ 12345, 13255342817280, 2, 12345, 13255342817280 },
	{ 12345, 13255342817280, 524288, 12345, 13255342817280 },
	{ 12411, 19397, 512, 4072036, 6364135 },
	{ 62846, 615752, 512, 3315646, 32486009 },
	{ 79721, 20292221, 512, 203505, 51800508 },
	{ 15742, 222303852065, 524288, 15742, 222303852065 },
	{ 23466, 3895136, 1, 23466, 3895136 },
	{ 75548, 83691908351, 524288, 85935, 95199645370 },
	{ 25704, 22282998418, 128, 25704, 22282998418 },
	{ 56521, 95604862, 512, 58677, 99252085 },
	{ 72339, 224926, 32, 781239, 2429131 },
	{ 76643, 10021036148, 512, 76643, 10021036148 },
	{ 10931, 1918598747, 524288, 38421, 6743716858 },
	{ 55193, 292126130491, 4194304, 76989, 407493321906 },
	{ 81133, 857270200579, 524288, 81133, 857270202094 },
	{ 95015, 80215906, 16, 95015, 80215906 },
	{ 85830, 41813440, 512, 139825, 68118149 },
	{ 12701, 1534133173394, 524288, 12701, 1534133173394 },
	{ 57054, 64118, 524288, 26617214930, 29912759611 },
	{ 30000, 490238, 16384, 30093454, 491765159 },
	{ 16430, 245372858, 524288, 585045, 8737320718 },
	{ 20028, 159865, 8192, 20564742, 164149321 },
	{ 15737, 116379, 131072, 278927572, 2062738254 },
	{ 27708, 5800946, 524288, 69401388, 14529872570 },
	{ 97445, 53983676, 524288, 92269042, 51116240751 },
	{ 29580, 25413559, 512, 36372, 31249119 },
	{ 44765, 205371, 512, 5018250, 23022518 },
	{ 46077, 213302, 1, 46077, 213302 },
	{ 73437, 3334328918, 4194304, 6820714, 309687275183 },
	{ 31636, 2047625719, 512, 31636, 2047625719 },
	{ 15878, 55746235, 524288, 2379026, 8352549090 },
	{ 40305, 628536490, 512, 40305, 628536490 },
	{ 28882, 621285, 524288, 703951090, 15142796660 },
	{ 14603, 3315100, 512, 40774, 9256376 },
	{ 49400, 21579675, 4, 49400, 21579675 },
	{ 4804, 52390985395, 512, 4804, 52390985395 },
	{ 78063, 31870942, 524288, 100284676, 40943431683 },
	{ 22726, 1223237, 524288, 221374506, 11915580716 },
	{ 12732, 34615042, 8, 12732, 34615042 },
	{ 99687, 177269, 512, 28752008, 51128429 },
	{ 32470, 52442, 524288, 10540371489, 17023657580 },
	{ 27094, 13009894470, 524288, 45169, 21689337015 },
	{ 23315, 11611798, 4194304, 196361823, 97796003773 },
	{ 85175, 17575930, 512, 256777, 52986273 },
	{ 79940, 111085211, 16384, 983057, 1366064611 },
	{ 38007, 293839242621, 16, 38007, 293839242621 },
	{ 70431, 4029009, 2, 70431, 4029009 },
	{ 51027, 3372248006652, 524288, 51027, 3372248006652 },
	{ 12533, 338941409, 524288, 249291, 6741829088 },
	{ 47531, 3407114, 512, 363817, 26079166 },
	{ 64042, 320775, 512, 6578423, 32950153 },
	{ 93746, 700666, 8192, 102797486, 768317618 },
	{ 18179, 32060567, 16, 18179, 32060567 },
	{ 61686, 14665936, 524288, 136060423, 32348563090 },
	{ 28127, 1663497973, 524288, 263669, 15594031842 },
	{ 90806, 1265783451, 32, 90806, 1265783451 },
	{ 71263, 8229076, 1048576, 647144039, 74728786101 },
	{ 52721, 7692864856, 524288, 217011, 31665609289 },
	{ 78611, 209980323, 524288, 15469055, 41319883279 },
	{ 99418, 342657, 524288, 15123133334, 52123835712 },
	{ 58526, 22835718, 256, 74823, 29194499 },
	{ 83104, 166853870258, 524288, 84949, 170558402186 },
	{ 20494, 6966827183, 524288, 42954, 14601997230 },
	{ 51034, 72347, 512, 18457367, 26165598 },
	{ 98598, 506012197365, 524288, 98603, 506040578324 },
	{ 10883, 590089395865, 16, 10883, 590089395865 },
	{ 5036, 83850352, 524288, 161106, 2682461448 },
	{ 74044, 8513650332, 524288, 375998, 43232674445 },
	{ 62302, 97696, 512, 20373331, 31947496 },
	{ 6345, 1540128, 512, 16805, 4079323 },
	{ 13031, 314160, 512, 283308, 6830184 },
	{ 92832, 201953860817, 65536, 92832, 201953860817 },
	{ 46939, 9186018777, 2, 46939, 9186018777 },
	{ 24229, 422639272375, 524288, 24229, 422639272375 },
	{ 75158, 31275003, 262144, 47384646, 19717860390 },
	{ 97371, 25026552, 8388608, 3178006598, 816819662909 },
	{ 22237, 97166, 512, 2616736, 11433996 },
	{ 75207, 9291569715, 512, 75207, 9291569715 },
	{ 46006, 23800217173, 8388608, 769237, 397948714495 },
	{ 37301, 1696081497214, 524288, 37301, 1696081497214 },
	{ 76950, 5253862584, 1048576, 1220677, 83343360535 },
	{ 71219, 39130309, 524288, 67994835, 37358835643 },
	{ 70986, 59272212126, 524288, 89110, 74406002334 },
	{ 44675, 254690205, 524288, 4130911, 23550142287 },
	{ 46731, 1167311, 262144, 490438081, 12250834928 },
	{ 98121, 23584408899, 8388608, 3473729, 834947123312 },
	{ 60648, 41367345901, 524288, 83337, 56843916340 },
	{ 19392, 44601, 1048576, 8840992016, 20334008092 },
	{ 20394, 175073346907, 512, 20394, 175073346907 },
	{ 45728, 7011181, 524288, 156389162, 23978147425 },
	{ 83816, 21944579, 524288, 167882319, 43954696210 },
	{ 26305, 453799391454, 524288, 26305, 453799391454 },
	{ 5465, 59894, 8, 7326, 80299 },
	{ 54489, 6276687, 2, 54489, 6276687 },
	{ 90026, 289348, 512, 14386256, 46238137 },
	{ 49332, 3915585952, 2097152, 1328260, 105426844766 },
	{ 53785, 6734926, 8192, 3545638, 443982761 },
	{ 36750, 8168252754, 524288, 106356, 23639418786 },
	{ 2227, 7912023613, 512, 2227, 7912023613 },
	{ 84259, 671995, 524288, 5539107326, 44176318590 },
	{ 28505, 56371, 262144, 3778573823, 7472442905 },
	{ 15900, 385556511328, 512, 15900, 385556511328 },
	{ 89408, 347045, 524288, 12076427924, 46875715026 },
	{ 2811, 39588703063, 262144, 2811, 39588703063 },
	{ 64080, 427309347838, 512, 64080, 427309347838 },
	{ 33276, 619976121231, 524288, 33276, 619976121231 },
	{ 80694, 9026679783441, 1024, 80694, 9026679783441 },
	{ 34283, 59891, 524288, 10288847115, 17974195449 },
	{ 80358, 164331875, 512, 81866, 167416247 },
	{ 85677, 53919071322, 8388608, 1185400, 746007364408 },
	{ 73372, 1742475572264, 512, 73372, 1742475572264 },
	{ 9205, 12658259058, 512, 9205, 12658259058 },
	{ 92457, 8178869, 524288, 548015571, 48478185165 },
	{ 80996, 156401549031, 512, 80996, 156401549031 },
	{ 31268, 3354386, 512, 165409, 17744936 },
	{ 95033, 280566266258, 512, 95033, 280566266258 },
	{ 61952, 5046885, 512, 421162, 34309755 },
	{ 58238, 2971456, 262144, 299244230, 15268228048 },
	{ 17627, 17330906, 1, 17627, 17330906 },
	{ 63590, 2033176, 512, 1050418, 33585247 },
	{ 5646, 752243, 4194304, 177742135, 23681416507 },
	{ 22242, 21475824, 524288, 12088366, 11671954903 },
	{ 51021, 77847, 524288, 17531803794, 26749736971 },
	{ 57111, 9863313814, 524288, 203495, 35144534414 },
	{ 36, 575436, 512, 36, 575436 },
	{ 50277, 1446009, 512, 920404, 26471597 },
	{ 92681, 1122926, 524288, 4010561868, 48592097593 },
	{ 74230, 1813757, 524288, 1592794902, 38918805125 },
	{ 96642, 12257214031494, 524288, 96642, 12257214031494 },
	{ 85230, 54871192394, 512, 85230, 54871192394 },
	{ 15889, 5645607, 512, 31751, 11281873 },
	{ 35840, 1665128038, 524288, 422628, 19635340676 },
	{ 43967, 163115621611, 512, 43967, 163115621611 },
	{ 37351, 10355772, 524288, 70649116, 19587859430 },
	{ 9004, 740468000, 128, 9004, 740468000 },
	{ 16743, 16179895388, 524288, 19892, 19223104874 },
	{ 85888, 7223335099299, 524288, 85888, 7223335099299 },
	{ 61807, 3437176, 2097152, 2330822624, 129620392259 },
	{ 24325, 171228, 512, 1781487, 12540210 },
	{ 34862, 1120318415897, 524288, 34862, 1120318415897 },
	{ 66649, 1892188, 1, 66649, 1892188 },
	{ 42801, 63362385, 512, 45315, 67085542 },
	{ 80537, 2576096, 8388608, 21121248256, 675594610542 },
	{ 59693, 60853767, 524288, 30729211, 31326760328 },
	{ 94940, 297660, 32, 1017254, 3189339 },
	{ 69589, 379180636333, 524288, 69591, 379192258627 },
	{ 87028, 420862, 524288, 9435180481, 45627946495 },
	{ 91815, 130100577560, 524288, 98411, 139447044900 },
	{ 46685, 5356514328, 512, 46685, 5356514328 },
	{ 71498, 241966269697, 512, 71498, 241966269697 },
	{ 36964, 51233206671, 512, 36964, 51233206671 },
	{ 27616, 73107270641, 524288, 27794, 73579201620 },
};

typedef struct exp_case {
	uint64_t x;
	uint64_t want[4];     /* by enum gh_goexp_impl */
} exp_case;

/* math.Exp bits, by implementation; these include every input out of
 * 2000 random ones on which the implementations disagree. */
static const exp_case exp_cases[] = {
	{ 0x0000000000000000, { 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000 } },
	{ 0xc024000000000000, { 0x3f07cd79b5647c9a, 0x3f07cd79b5647c9b, 0x3f07cd79b5647c9b, 0x3f07cd79b5647c9a } },
	{ 0x40862d999999999a, { 0x7fed75ae7a50ee14, 0x7ff0000000000000, 0x7ff0000000000000, 0x7fed75ae7a50ee14 } },
	{ 0xc087480000000000, { 0x0000000000000001, 0x0000000000000001, 0x0000000000000001, 0x0000000000000000 } },
	{ 0x7ff0000000000000, { 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000 } },
	{ 0xc05ebd4b3b55a4a5, { 0x34d869714150e2d0, 0x34d869714150e2d1, 0x34d869714150e2d1, 0x34d869714150e2d0 } },
	{ 0xc01a6a7b9844fa76, { 0x3f563317c1bd4a12, 0x3f563317c1bd4a13, 0x3f563317c1bd4a13, 0x3f563317c1bd4a12 } },
	{ 0x402ccd20087a9c31, { 0x413b648e679e018b, 0x413b648e679e018a, 0x413b648e679e018a, 0x413b648e679e018b } },
	{ 0x40667b54f526c35f, { 0x50263bb780b24b56, 0x50263bb780b24b55, 0x50263bb780b24b55, 0x50263bb780b24b56 } },
	{ 0xbea85c800e7ea30e, { 0x3feffffe7a38085e, 0x3feffffe7a38085e, 0x3feffffe7a38085e, 0x3feffffe7a38085e } },
	{ 0x4017a0db2156d8b7, { 0x4076fa21e8a334eb, 0x4076fa21e8a334ea, 0x4076fa21e8a334ea, 0x4076fa21e8a334eb } },
	{ 0xc009a70199dbc616, { 0x3fa4bbec80bd6d19, 0x3fa4bbec80bd6d18, 0x3fa4bbec80bd6d18, 0x3fa4bbec80bd6d19 } },
	{ 0xc059dce9ece610ed, { 0x369aeba5fc72da72, 0x369aeba5fc72da72, 0x369aeba5fc72da72, 0x369aeba5fc72da72 } },
	{ 0xc01ee34a14391240, { 0x3f3d0825a0823594, 0x3f3d0825a0823594, 0x3f3d0825a0823593, 0x3f3d0825a0823594 } },
	{ 0x40815de000d4b0cc, { 0x720b01a3151f5796, 0x720b01a3151f5796, 0x720b01a3151f5797, 0x720b01a3151f5796 } },
	{ 0xbf40c2507e4f6f13, { 0x3feffbcfb214bf35, 0x3feffbcfb214bf35, 0x3feffbcfb214bf35, 0x3feffbcfb214bf35 } },
	{ 0xc080f8771426c4e4, { 0x0ef725730fba5dea, 0x0ef725730fba5dea, 0x0ef725730fba5de9, 0x0ef725730fba5dea } },
	{ 0xc02d572082048f90, { 0x3e9c8ccc8d92a0d2, 0x3e9c8ccc8d92a0d2, 0x3e9c8ccc8d92a0d3, 0x3e9c8ccc8d92a0d2 } },
	{ 0xc077f8bf6c09dbf6, { 0x1d5943aa09c41556, 0x1d5943aa09c41556, 0x1d5943aa09c41555, 0x1d5943aa09c41556 } },
	{ 0xbf313b4ed7d4c82f, { 0x3feffdd8a8b37e32, 0x3feffdd8a8b37e32, 0x3feffdd8a8b37e32, 0x3feffdd8a8b37e32 } },
	{ 0xc0331b048df5542e, { 0x3e35a7520efdfe77, 0x3e35a7520efdfe78, 0x3e35a7520efdfe77, 0x3e35a7520efdfe77 } },
	{ 0x408212d5c8b691c8, { 0x7414f3ac5629b504, 0x7414f3ac5629b505, 0x7414f3ac5629b505, 0x7414f3ac5629b504 } },
	{ 0xc02030206cc1ac9c, { 0x3f340333c32d0e7e, 0x3f340333c32d0e7e, 0x3f340333c32d0e7d, 0x3f340333c32d0e7e } },
	{ 0xc083713ed294d4be, { 0x07d564b4e5ebc8b8, 0x07d564b4e5ebc8b9, 0x07d564b4e5ebc8b9, 0x07d564b4e5ebc8b8 } },
	{ 0x4078022f4a78e389, { 0x629246b109eca385, 0x629246b109eca385, 0x629246b109eca385, 0x629246b109eca385 } },
	{ 0xc011e484a01f0ab6, { 0x3f875ebded91105b, 0x3f875ebded91105a, 0x3f875ebded91105b, 0x3f875ebded91105b } },
	{ 0xc02f15ee0defc6aa, { 0x3e87dbc8fcb6fea7, 0x3e87dbc8fcb6fea6, 0x3e87dbc8fcb6fea7, 0x3e87dbc8fcb6fea7 } },
	{ 0xc027e80013eddda4, { 0x3edb01e7941f6ae4, 0x3edb01e7941f6ae4, 0x3edb01e7941f6ae5, 0x3edb01e7941f6ae4 } },
	{ 0xc0850c9bc7a5fd14, { 0x0332d51e63f18fdc, 0x0332d51e63f18fdc, 0x0332d51e63f18fdc, 0x0332d51e63f18fdc } },
	{ 0x407a257fd33099b8, { 0x65a74d5a6f327394, 0x65a74d5a6f327394, 0x65a74d5a6f327393, 0x65a74d5a6f327394 } },
	{ 0xc00194ebc70f02ae, { 0x3fbc6e347f35412b, 0x3fbc6e347f35412b, 0x3fbc6e347f35412b, 0x3fbc6e347f35412b } },
	{ 0xc02b5b1a69473c92, { 0x3eb3406bbcc2d240, 0x3eb3406bbcc2d23f, 0x3eb3406bbcc2d23f, 0x3eb3406bbcc2d240 } },
	{ 0xc0818e497d3248f8, { 0x0d46da49e33a343a, 0x0d46da49e33a343a, 0x0d46da49e33a3439, 0x0d46da49e33a343a } },
	{ 0x405cd8786c3d6c9a, { 0x4a560840caffa36b, 0x4a560840caffa36c, 0x4a560840caffa36b, 0x4a560840caffa36b } },
	{ 0xc02409e4926d1787, { 0x3f0758de1611f755, 0x3f0758de1611f756, 0x3f0758de1611f755, 0x3f0758de1611f755 } },
	{ 0xbf38057db56ccab4, { 0x3feffcff7458acaa, 0x3feffcff7458acaa, 0x3feffcff7458acaa, 0x3feffcff7458acaa } },
	{ 0xc0319cfac1767a4b, { 0x3e581372ad1d4e80, 0x3e581372ad1d4e7f, 0x3e581372ad1d4e7f, 0x3e581372ad1d4e80 } },
	{ 0xbeb09ec947d3494f, { 0x3feffffdec26e849, 0x3feffffdec26e849, 0x3feffffdec26e849, 0x3feffffdec26e849 } },
	{ 0xc02dbf5f5e6aa808, { 0x3e974a6860180d9e, 0x3e974a6860180d9e, 0x3e974a6860180d9f, 0x3e974a6860180d9e } },
	{ 0xc032f62998983328, { 0x3e3901ace72ad3b2, 0x3e3901ace72ad3b2, 0x3e3901ace72ad3b3, 0x3e3901ace72ad3b2 } },
	{ 0x4081fa2840383212, { 0x73ceab162b63fe92, 0x73ceab162b63fe92, 0x73ceab162b63fe92, 0x73ceab162b63fe92 } },
	{ 0xc02873c003e9b43f, { 0x3ed48e6485a46a06, 0x3ed48e6485a46a07, 0x3ed48e6485a46a07, 0x3ed48e6485a46a06 } },
	{ 0xbfcfef3628fe7690, { 0x3fe8ef349fde04b1, 0x3fe8ef349fde04b0, 0x3fe8ef349fde04b1, 0x3fe8ef349fde04b1 } },
	{ 0xbf2f24bc6d2c4b0a, { 0x3feffe0dc3608a33, 0x3feffe0dc3608a33, 0x3feffe0dc3608a33, 0x3feffe0dc3608a33 } },
	{ 0x4067f3d12e714472, { 0x5135d44b0970ad3a, 0x5135d44b0970ad3a, 0x5135d44b0970ad3a, 0x5135d44b0970ad3a } },
	{ 0xc0493268aea43791, { 0x3b63a897e3becbf0, 0x3b63a897e3becbf1, 0x3b63a897e3becbf1, 0x3b63a897e3becbf0 } },
	{ 0x4070200224495977, { 0x573295c96cff038c, 0x573295c96cff038b, 0x573295c96cff038b, 0x573295c96cff038c } },
	{ 0xc01fbd4126f096d9, { 0x3f3777325d435fc3, 0x3f3777325d435fc2, 0x3f3777325d435fc2, 0x3f3777325d435fc3 } },
	{ 0xc067d3bfee567d82, { 0x2ebff20c9bafa619, 0x2ebff20c9bafa619, 0x2ebff20c9bafa619, 0x2ebff20c9bafa619 } },
	{ 0xc0216a629ac86cba, { 0x3f25aa5a81664fb6, 0x3f25aa5a81664fb7, 0x3f25aa5a81664fb7, 0x3f25aa5a81664fb6 } },
	{ 0x407d83ef42973273, { 0x6a83cab8cece50b9, 0x6a83cab8cece50ba, 0x6a83cab8cece50ba, 0x6a83cab8cece50b9 } },
	{ 0x40731f351b915c2b, { 0x5b85035cfb4dfb4f, 0x5b85035cfb4dfb4e, 0x5b85035cfb4dfb4e, 0x5b85035cfb4dfb4f } },
	{ 0x406875b9204c142d, { 0x5193c3f051ce9244, 0x5193c3f051ce9245, 0x5193c3f051ce9245, 0x5193c3f051ce9244 } },
	{ 0xc074905226f0928a, { 0x224408c3f7b3dfe0, 0x224408c3f7b3dfe0, 0x224408c3f7b3dfe1, 0x224408c3f7b3dfe0 } },
	{ 0xc003c6b24ff6e2fe, { 0x3fb59c2b0f4b2f84, 0x3fb59c2b0f4b2f85, 0x3fb59c2b0f4b2f85, 0x3fb59c2b0f4b2f84 } },
	{ 0xc065554a68d3168b, { 0x308b82fabd8f5f67, 0x308b82fabd8f5f68, 0x308b82fabd8f5f67, 0x308b82fabd8f5f67 } },
	{ 0xc01a89e72dfd7a6c, { 0x3f55875ca186582c, 0x3f55875ca186582b, 0x3f55875ca186582b, 0x3f55875ca186582c } },
	{ 0xbea547df6966c10d, { 0x3feffffeab82107d, 0x3feffffeab82107d, 0x3feffffeab82107d, 0x3feffffeab82107d } },
	{ 0xc032316379795783, { 0x3e4af7b8c58c650c, 0x3e4af7b8c58c650c, 0x3e4af7b8c58c650b, 0x3e4af7b8c58c650c } },
	{ 0x400377657d3083e8, { 0x4026caf73903d830, 0x4026caf73903d82f, 0x4026caf73903d82f, 0x4026caf73903d830 } },
	{ 0x4076f6d3d81201bb, { 0x6110f7b16ce5d0bf, 0x6110f7b16ce5d0bf, 0x6110f7b16ce5d0bf, 0x6110f7b16ce5d0bf } },
	{ 0xc011e21da4bf34e4, { 0x3f876ccb30e3543a, 0x3f876ccb30e3543a, 0x3f876ccb30e35439, 0x3f876ccb30e3543a } },
	{ 0xc024b7a7df9399e2, { 0x3f00a0cae328d3b9, 0x3f00a0cae328d3b9, 0x3f00a0cae328d3b9, 0x3f00a0cae328d3b9 } },
	{ 0xbff0cb4615a54010, { 0x3fd667844e9d6cdd, 0x3fd667844e9d6cdd, 0x3fd667844e9d6cde, 0x3fd667844e9d6cdd } },
	{ 0xc00da09039d6bf05, { 0x3f993b20096bde1f, 0x3f993b20096bde1e, 0x3f993b20096bde1e, 0x3f993b20096bde1f } },
	{ 0xbeac21a4d4e35c1c, { 0x3feffffe3de5bf0f, 0x3feffffe3de5bf0f, 0x3feffffe3de5bf0f, 0x3feffffe3de5bf0f } },
	{ 0xc02345bb004a5b41, { 0x3f111fa3741d761e, 0x3f111fa3741d761d, 0x3f111fa3741d761d, 0x3f111fa3741d761e } },
	{ 0xc026cf0218dacbb4, { 0x3ee760a9cf0eb7fa, 0x3ee760a9cf0eb7fa, 0x3ee760a9cf0eb7fb, 0x3ee760a9cf0eb7fa } },
	{ 0x407e7c1c68e3f312, { 0x6be9b6ec5fd9e550, 0x6be9b6ec5fd9e551, 0x6be9b6ec5fd9e551, 0x6be9b6ec5fd9e550 } },
	{ 0xbe60ccb83e415c53, { 0x3fefffffef3347c6, 0x3fefffffef3347c6, 0x3fefffffef3347c6, 0x3fefffffef3347c6 } },
	{ 0xc0230e02a952bcd0, { 0x3f1317a113836812, 0x3f1317a113836813, 0x3f1317a113836813, 0x3f1317a113836812 } },
	{ 0xbf3c39e6fc3b0d4c, { 0x3feffc78f4ea1e27, 0x3feffc78f4ea1e27, 0x3feffc78f4ea1e27, 0x3feffc78f4ea1e27 } },
	{ 0xc0224b25ce3f26cf, { 0x3f1bef54f16eaf6f, 0x3f1bef54f16eaf6e, 0x3f1bef54f16eaf6e, 0x3f1bef54f16eaf6f } },
	{ 0xc05323a886ad119e, { 0x39077290b2321560, 0x39077290b2321560, 0x39077290b232155f, 0x39077290b2321560 } },
	{ 0x406f65a775a879c4, { 0x5694b27f78597ffb, 0x5694b27f78597ffc, 0x5694b27f78597ffc, 0x5694b27f78597ffb } },
	{ 0xbf422aa3418113d1, { 0x3feffb75a9ad3c6f, 0x3feffb75a9ad3c6f, 0x3feffb75a9ad3c6f, 0x3feffb75a9ad3c6f } },
	{ 0x407d8642c92c44bd, { 0x6a86e3a0addcd655, 0x6a86e3a0addcd654, 0x6a86e3a0addcd654, 0x6a86e3a0addcd655 } },
	{ 0x407e86d1f4c09cc7, { 0x6bf91bf1678ad334, 0x6bf91bf1678ad334, 0x6bf91bf1678ad333, 0x6bf91bf1678ad334 } },
	{ 0xbfd2df8d49fd2cd0, { 0x3fe7d3d89a7a8978, 0x3fe7d3d89a7a8978, 0x3fe7d3d89a7a8979, 0x3fe7d3d89a7a8978 } },
	{ 0xc02421a5c391f6e1, { 0x3f0649e67ed7f8cf, 0x3f0649e67ed7f8ce, 0x3f0649e67ed7f8ce, 0x3f0649e67ed7f8cf } },
	{ 0x408453e03d73ee2b, { 0x7a95de36f3581c4b, 0x7a95de36f3581c4b, 0x7a95de36f3581c4b, 0x7a95de36f3581c4b } },
	{ 0x405b1d85f0893abb, { 0x49b6435792dbd996, 0x49b6435792dbd996, 0x49b6435792dbd997, 0x49b6435792dbd996 } },
	{ 0xc027467ad74d2a01, { 0x3ee28325710282bc, 0x3ee28325710282bc, 0x3ee28325710282bb, 0x3ee28325710282bc } },
	{ 0x404c381758a51cec, { 0x4505740cffe5d208, 0x4505740cffe5d208, 0x4505740cffe5d209, 0x4505740cffe5d208 } },
	{ 0xc074ee79c96ff528, { 0x21bc88aa3035ac0c, 0x21bc88aa3035ac0d, 0x21bc88aa3035ac0d, 0x21bc88aa3035ac0c } },
	{ 0xbe92a0b9144a9468, { 0x3fefffff6afa38b9, 0x3fefffff6afa38b9, 0x3fefffff6afa38b9, 0x3fefffff6afa38b9 } },
	{ 0xc03043791fcbf8a8, { 0x3e77359642edad24, 0x3e77359642edad25, 0x3e77359642edad25, 0x3e77359642edad24 } },
	{ 0xbff1b6bf93921a88, { 0x3fd5271648083678, 0x3fd5271648083678, 0x3fd5271648083679, 0x3fd5271648083678 } },
	{ 0x40780f6cbd1e9479, { 0x62a4e77af7f5b204, 0x62a4e77af7f5b204, 0x62a4e77af7f5b204, 0x62a4e77af7f5b204 } },
	{ 0x407529eaa15fad29, { 0x5e770634599cbd93, 0x5e770634599cbd92, 0x5e770634599cbd93, 0x5e770634599cbd93 } },
	{ 0xc00f02cb9003fe08, { 0x3f9539346726833e, 0x3f9539346726833f, 0x3f9539346726833f, 0x3f9539346726833e } },
	{ 0xc0257b778ca5329a, { 0x3ef6afe6c67cf0b5, 0x3ef6afe6c67cf0b6, 0x3ef6afe6c67cf0b5, 0x3ef6afe6c67cf0b5 } },
	{ 0x408398766fc1ab31, { 0x787929af1f4c6392, 0x787929af1f4c6392, 0x787929af1f4c6392, 0x787929af1f4c6392 } },
	{ 0xc02017cb5516a434, { 0x3f34fc8e7a7e49d0, 0x3f34fc8e7a7e49d0, 0x3f34fc8e7a7e49cf, 0x3f34fc8e7a7e49d0 } },
	{ 0xc03011cdcd33e28c, { 0x3e7c2dce5544dc13, 0x3e7c2dce5544dc12, 0x3e7c2dce5544dc13, 0x3e7c2dce5544dc13 } },
	{ 0x4066a2dbbdd5bf17, { 0x50431d9024bbb014, 0x50431d9024bbb015, 0x50431d9024bbb015, 0x50431d9024bbb014 } },
	{ 0xbfd2c8df0c4ad1b8, { 0x3fe7dc4bcb133872, 0x3fe7dc4bcb133872, 0x3fe7dc4bcb133873, 0x3fe7dc4bcb133872 } },
	{ 0xc080798881833263, { 0x10657461c28a3328, 0x10657461c28a3328, 0x10657461c28a3327, 0x10657461c28a3328 } },
	{ 0xc010f7a77c4e06fa, { 0x3f8d73c467d1f0c4, 0x3f8d73c467d1f0c4, 0x3f8d73c467d1f0c4, 0x3f8d73c467d1f0c4 } },
	{ 0xbf44e8216adbb5dc, { 0x3feffac664e5439b, 0x3feffac664e5439b, 0x3feffac664e5439b, 0x3feffac664e5439b } },
	{ 0xc030543295782d7b, { 0x3e75bdd4d70422f5, 0x3e75bdd4d70422f6, 0x3e75bdd4d70422f5, 0x3e75bdd4d70422f5 } },
	{ 0xbe9181bba2f4931f, { 0x3fefffff73f2241b, 0x3fefffff73f2241b, 0x3fefffff73f2241b, 0x3fefffff73f2241b } },
	{ 0xc02f53b224e17619, { 0x3e8525abeed9c440, 0x3e8525abeed9c441, 0x3e8525abeed9c441, 0x3e8525abeed9c440 } },
	{ 0xc03315ba3b4e3953, { 0x3e361b1121c425c8, 0x3e361b1121c425c9, 0x3e361b1121c425c9, 0x3e361b1121c425c8 } },
	{ 0xc07725573dfce1d3, { 0x1e8a60c5b7b192bf, 0x1e8a60c5b7b192be, 0x1e8a60c5b7b192be, 0x1e8a60c5b7b192bf } },
	{ 0xbe99cb5c6403dc4e, { 0x3fefffff31a51f79, 0x3fefffff31a51f79, 0x3fefffff31a51f79, 0x3fefffff31a51f79 } },
	{ 0xc02299c39bf05c50, { 0x3f17f56904009ee0, 0x3f17f56904009ee0, 0x3f17f56904009edf, 0x3f17f56904009ee0 } },
	{ 0xc06b2626cabf05df, { 0x2c593e54fa4ff40e, 0x2c593e54fa4ff40e, 0x2c593e54fa4ff40f, 0x2c593e54fa4ff40e } },
	{ 0xc051b63c988de57a, { 0x398ba417f647c644, 0x398ba417f647c643, 0x398ba417f647c643, 0x398ba417f647c644 } },
	{ 0xbea168b65c876609, { 0x3feffffee9749ef4, 0x3feffffee9749ef4, 0x3feffffee9749ef4, 0x3feffffee9749ef4 } },
	{ 0x4085a0094b4fde17, { 0x7e546a1657665b51, 0x7e546a1657665b50, 0x7e546a1657665b51, 0x7e546a1657665b51 } },
	{ 0xc0322bab3ec0c710, { 0x3e4b93b408e3f64e, 0x3e4b93b408e3f64f, 0x3e4b93b408e3f64f, 0x3e4b93b408e3f64e } },
	{ 0x4067ce9451a9dcf4, { 0x511b45ac9fb37ccf, 0x511b45ac9fb37ccf, 0x511b45ac9fb37ccf, 0x511b45ac9fb37ccf } },
	{ 0x4080d90f45255324, { 0x708bedf778575379, 0x708bedf77857537a, 0x708bedf778575379, 0x708bedf778575379 } },
	{ 0xc00c9cc0168a06ad, { 0x3f9ca4c99369ffa8, 0x3f9ca4c99369ffa8, 0x3f9ca4c99369ffa7, 0x3f9ca4c99369ffa8 } },
	{ 0xc014bdd642a20cae, { 0x3f76edaeed5433d1, 0x3f76edaeed5433d0, 0x3f76edaeed5433d1, 0x3f76edaeed5433d1 } },
	{ 0xc02ab41bdf1d9a39, { 0x3ebaad01eef57adf, 0x3ebaad01eef57ade, 0x3ebaad01eef57adf, 0x3ebaad01eef57adf } },
	{ 0xc01f94b3818b8867, { 0x3f3869df53dbf856, 0x3f3869df53dbf856, 0x3f3869df53dbf855, 0x3f3869df53dbf856 } },
	{ 0xc02696d284212e43, { 0x3eea16cc665a4c24, 0x3eea16cc665a4c24, 0x3eea16cc665a4c24, 0x3eea16cc665a4c24 } },
	{ 0xc07de8920279c85e, { 0x14c892a896694132, 0x14c892a896694132, 0x14c892a896694133, 0x14c892a896694132 } },
	{ 0xc01a9647702b0f56, { 0x3f5545271888aeba, 0x3f5545271888aeba, 0x3f5545271888aebb, 0x3f5545271888aeba } },
	{ 0xc02f22ba4ccccbfb, { 0x3e87450230858289, 0x3e87450230858288, 0x3e87450230858289, 0x3e87450230858289 } },
	{ 0xc026912e96cbe532, { 0x3eea60c7e09049eb, 0x3eea60c7e09049eb, 0x3eea60c7e09049eb, 0x3eea60c7e09049eb } },
	{ 0xc05c0269a275e3f3, { 0x35d496aa792894ac, 0x35d496aa792894ad, 0x35d496aa792894ad, 0x35d496aa792894ac } },
	{ 0xbff1b73ec1a6a5e0, { 0x3fd5266e27780860, 0x3fd5266e27780861, 0x3fd5266e27780861, 0x3fd5266e27780860 } },
	{ 0x4071ec7ca988cafa, { 0x59caa976fa192ae2, 0x59caa976fa192ae1, 0x59caa976fa192ae1, 0x59caa976fa192ae2 } },
	{ 0xc030c1e97375f6fc, { 0x3e6c53994c793ea3, 0x3e6c53994c793ea3, 0x3e6c53994c793ea3, 0x3e6c53994c793ea3 } },
	{ 0xc02b450c7c642e7a, { 0x3eb41959e3bd9ffc, 0x3eb41959e3bd9ffd, 0x3eb41959e3bd9ffd, 0x3eb41959e3bd9ffc } },
	{ 0xc071f39d2c78df2a, { 0x260899e9c32f7554, 0x260899e9c32f7553, 0x260899e9c32f7553, 0x260899e9c32f7554 } },
	{ 0xc031c2ca24ac6b49, { 0x3e54c52ab8f11539, 0x3e54c52ab8f11538, 0x3e54c52ab8f11539, 0x3e54c52ab8f11539 } },
	{ 0x4080c0ce1cc69511, { 0x70458d423ee61b17, 0x70458d423ee61b18, 0x70458d423ee61b18, 0x70458d423ee61b17 } },
	{ 0xbf216e869f067d6d, { 0x3feffee91c557831, 0x3feffee91c557831, 0x3feffee91c557831, 0x3feffee91c557831 } },
	{ 0xbfce167b41157f20, { 0x3fe94bf5f978d190, 0x3fe94bf5f978d190, 0x3fe94bf5f978d18f, 0x3fe94bf5f978d190 } },
	{ 0xc02f72cc5f1e70fd, { 0x3e83e698d2a57d31, 0x3e83e698d2a57d32, 0x3e83e698d2a57d31, 0x3e83e698d2a57d31 } },
	{ 0x40837fe7528ff6d9, { 0x7832b10faedd3a3a, 0x7832b10faedd3a39, 0x7832b10faedd3a39, 0x7832b10faedd3a3a } },
	{ 0x406bfb74bd936640, { 0x541f1983d2e8777e, 0x541f1983d2e8777f, 0x541f1983d2e8777f, 0x541f1983d2e8777e } },
	{ 0x40784cf7f7ef2b4b, { 0x62fe974daae755f9, 0x62fe974daae755f9, 0x62fe974daae755f9, 0x62fe974daae755f9 } },
	{ 0xc027fc9e33ace04e, { 0x3ed9f10544b5baa0, 0x3ed9f10544b5baa1, 0x3ed9f10544b5baa1, 0x3ed9f10544b5baa0 } },
	{ 0x4073ab4b6a9ece6d, { 0x5c50469c9257a0b5, 0x5c50469c9257a0b4, 0x5c50469c9257a0b4, 0x5c50469c9257a0b5 } },
	{ 0xc0200b39952bc6e0, { 0x3f35821513322345, 0x3f35821513322346, 0x3f35821513322346, 0x3f35821513322345 } },
	{ 0x407ed01da70d1bab, { 0x6c6325cfd4cb2102, 0x6c6325cfd4cb2102, 0x6c6325cfd4cb2102, 0x6c6325cfd4cb2102 } },
	{ 0xc022ace5c0771ea4, { 0x3f17146f7260cb8e, 0x3f17146f7260cb8f, 0x3f17146f7260cb8e, 0x3f17146f7260cb8e } },
	{ 0xc0254e7ddae53e83, { 0x3ef8c5292435cc6b, 0x3ef8c5292435cc6a, 0x3ef8c5292435cc6b, 0x3ef8c5292435cc6b } },
	{ 0xbf3efbb3f208e9fa, { 0x3feffc20c57eadc3, 0x3feffc20c57eadc3, 0x3feffc20c57eadc3, 0x3feffc20c57eadc3 } },
	{ 0xbfd2b7873a7ae118, { 0x3fe7e2c3ed3fc8b7, 0x3fe7e2c3ed3fc8b6, 0x3fe7e2c3ed3fc8b7, 0x3fe7e2c3ed3fc8b7 } },
	{ 0xc07e0e85b46898c8, { 0x149257100568a1ca, 0x149257100568a1cb, 0x149257100568a1cb, 0x149257100568a1ca } },
	{ 0xc0739d74ce206d18, { 0x23a2ad14e1e5e57c, 0x23a2ad14e1e5e57c, 0x23a2ad14e1e5e57d, 0x23a2ad14e1e5e57c } },
	{ 0xc012703cdb517f2e, { 0x3f8463ab479ee3dd, 0x3f8463ab479ee3de, 0x3f8463ab479ee3de, 0x3f8463ab479ee3dd } },
	{ 0xc033398875a3b218, { 0x3e33386b020c6742, 0x3e33386b020c6741, 0x3e33386b020c6741, 0x3e33386b020c6742 } },
	{ 0x406728d1a8b7ac74, { 0x50a3a56e4b6c8f56, 0x50a3a56e4b6c8f57, 0x50a3a56e4b6c8f57, 0x50a3a56e4b6c8f56 } },
	{ 0xc02950e8ec887f59, { 0x3ecab11cbf3e1edb, 0x3ecab11cbf3e1edc, 0x3ecab11cbf3e1edb, 0x3ecab11cbf3e1edb } },
	{ 0xbf4280086f36ca58, { 0x3feffb605370612d, 0x3feffb605370612d, 0x3feffb605370612d, 0x3feffb605370612d } },
	{ 0xc06c5bad12d3849f, { 0x2b7a0c97f08f34d0, 0x2b7a0c97f08f34cf, 0x2b7a0c97f08f34cf, 0x2b7a0c97f08f34d0 } },
	{ 0x407bea9f7556db41, { 0x68351c18240a2202, 0x68351c18240a2201, 0x68351c18240a2201, 0x68351c18240a2202 } },
	{ 0xc0312432863313a3, { 0x3e634ba661816884, 0x3e634ba661816884, 0x3e634ba661816884, 0x3e634ba661816884 } },
	{ 0xc0756e7c42b6d275, { 0x21039779b0f4e45e, 0x21039779b0f4e45f, 0x21039779b0f4e45f, 0x21039779b0f4e45e } },
	{ 0xbff0dc2cf2a0ba48, { 0x3fd64fe6008f9ad1, 0x3fd64fe6008f9ad2, 0x3fd64fe6008f9ad1, 0x3fd64fe6008f9ad1 } },
	{ 0x407167a916b6b652, { 0x590b1854a5a988da, 0x590b1854a5a988d9, 0x590b1854a5a988d9, 0x590b1854a5a988da } },
	{ 0xc0125e6c421abfe6, { 0x3f84bf45904b3115, 0x3f84bf45904b3115, 0x3f84bf45904b3115, 0x3f84bf45904b3115 } },
	{ 0xbede2b84695bc419, { 0x3feffff0ea41598c, 0x3feffff0ea41598c, 0x3feffff0ea41598c, 0x3feffff0ea41598c } },
	{ 0x4085aca667a4afae, { 0x7e78b24c34d28d9f, 0x7e78b24c34d28d9e, 0x7e78b24c34d28d9e, 0x7e78b24c34d28d9f } },
	{ 0xc06b2ea8821056bc, { 0x2c5359cdce3c939c, 0x2c5359cdce3c939d, 0x2c5359cdce3c939d, 0x2c5359cdce3c939c } },
	{ 0x406f26d59b9ec04e, { 0x5667401fec87261a, 0x5667401fec87261a, 0x5667401fec87261b, 0x5667401fec87261a } },
	{ 0x408354c65b9095ed, { 0x77b5ce2f32105189, 0x77b5ce2f3210518a, 0x77b5ce2f3210518a, 0x77b5ce2f32105189 } },
	{ 0xc0501b73e7a562de, { 0x3a208c8cf643a42d, 0x3a208c8cf643a42d, 0x3a208c8cf643a42d, 0x3a208c8cf643a42d } },
	{ 0xc030f0ed4d8dc8e2, { 0x3e6792f6196d4d34, 0x3e6792f6196d4d35, 0x3e6792f6196d4d35, 0x3e6792f6196d4d34 } },
	{ 0x4081d47704cd9bf8, { 0x7361a5aafdbd9e1d, 0x7361a5aafdbd9e1e, 0x7361a5aafdbd9e1e, 0x7361a5aafdbd9e1d } },
	{ 0xbf4687be8ffc4ed9, { 0x3feffa5e8f3bbdf7, 0x3feffa5e8f3bbdf7, 0x3feffa5e8f3bbdf7, 0x3feffa5e8f3bbdf7 } },
	{ 0xc0520ee5ad3790d1, { 0x396baafe18fa3ced, 0x396baafe18fa3cee, 0x396baafe18fa3ced, 0x396baafe18fa3ced } },
	{ 0xc0299ecc348a2aa7, { 0x3ec6ecd4f25fd734, 0x3ec6ecd4f25fd734, 0x3ec6ecd4f25fd735, 0x3ec6ecd4f25fd734 } },
	{ 0xc02e2724e334e0cf, { 0x3e93048c0ea9d2a7, 0x3e93048c0ea9d2a6, 0x3e93048c0ea9d2a6, 0x3e93048c0ea9d2a7 } },
	{ 0xbf41f8b25bcd4480, { 0x3feffb82242397fe, 0x3feffb82242397fe, 0x3feffb82242397fe, 0x3feffb82242397fe } },
	{ 0x4065ade66b609731, { 0x4f928b61908afbfc, 0x4f928b61908afbfc, 0x4f928b61908afbfb, 0x4f928b61908afbfc } },
	{ 0xc02f397898aea356, { 0x3e86422f8e8a13d4, 0x3e86422f8e8a13d5, 0x3e86422f8e8a13d5, 0x3e86422f8e8a13d4 } },
	{ 0x407b2e583ec75a37, { 0x672573e47ddf86fd, 0x672573e47ddf86fc, 0x672573e47ddf86fd, 0x672573e47ddf86fd } },
	{ 0xc024817732bff961, { 0x3f027c09d47b766a, 0x3f027c09d47b766b, 0x3f027c09d47b766b, 0x3f027c09d47b766a } },
	{ 0x404cc308f6651783, { 0x451fc2bfd7eb043e, 0x451fc2bfd7eb043e, 0x451fc2bfd7eb043e, 0x451fc2bfd7eb043e } },
	{ 0xc01a2ed8884dee4a, { 0x3f5787e647d1dc16, 0x3f5787e647d1dc17, 0x3f5787e647d1dc17, 0x3f5787e647d1dc16 } },
	{ 0xc05ec0edb542e50b, { 0x34d7106a655b588e, 0x34d7106a655b588e, 0x34d7106a655b588d, 0x34d7106a655b588e } },
	{ 0xc017dae0b997beb3, { 0x3f650e3a4af0ecde, 0x3f650e3a4af0ecde, 0x3f650e3a4af0ecdf, 0x3f650e3a4af0ecde } },
	{ 0xc062faf812d1e915, { 0x323ea2e5779edcc2, 0x323ea2e5779edcc2, 0x323ea2e5779edcc2, 0x323ea2e5779edcc2 } },
	{ 0xc003e13a2ed673e4, { 0x3fb554f6d0c9d5a4, 0x3fb554f6d0c9d5a5, 0x3fb554f6d0c9d5a5, 0x3fb554f6d0c9d5a4 } },
	{ 0xc03104976d50fda5, { 0x3e65d4becc6ebcec, 0x3e65d4becc6ebcec, 0x3e65d4becc6ebcec, 0x3e65d4becc6ebcec } },
	{ 0xbf4db564d2082d59, { 0x3feff8938360c4a6, 0x3feff8938360c4a6, 0x3feff8938360c4a6, 0x3feff8938360c4a6 } },
	{ 0xc064aa7d3ab92b94, { 0x31065a77e92a289d, 0x31065a77e92a289c, 0x31065a77e92a289d, 0x31065a77e92a289d } },
	{ 0xbfd2781cef63e340, { 0x3fe7fa7a8f5c696e, 0x3fe7fa7a8f5c696e, 0x3fe7fa7a8f5c696d, 0x3fe7fa7a8f5c696e } },
	{ 0xc0315db1c29033a8, { 0x3e5ed3f4916ca1d3, 0x3e5ed3f4916ca1d3, 0x3e5ed3f4916ca1d3, 0x3e5ed3f4916ca1d3 } },
	{ 0xbffd3bc788f3f5f4, { 0x3fc497b9e15ace9e, 0x3fc497b9e15ace9e, 0x3fc497b9e15ace9d, 0x3fc497b9e15ace9e } },
	{ 0xc05978a0d5ef9979, { 0x36c02026dbd211f6, 0x36c02026dbd211f6, 0x36c02026dbd211f6, 0x36c02026dbd211f6 } },
	{ 0x406ad3b94f8384cb, { 0x5348b1296a969c1f, 0x5348b1296a969c20, 0x5348b1296a969c1f, 0x5348b1296a969c1f } },
	{ 0xc02037dd34955ab0, { 0x3f33b65c94645fe8, 0x3f33b65c94645fe9, 0x3f33b65c94645fe9, 0x3f33b65c94645fe8 } },
	{ 0x4080ecac5580b865, { 0x70c44348d06d1bcd, 0x70c44348d06d1bcc, 0x70c44348d06d1bcd, 0x70c44348d06d1bcd } },
	{ 0xc015824ceca92123, { 0x3f72ecf933770532, 0x3f72ecf933770532, 0x3f72ecf933770533, 0x3f72ecf933770532 } },
	{ 0xc02debbeeb634456, { 0x3e955b6cfb003040, 0x3e955b6cfb003040, 0x3e955b6cfb00303f, 0x3e955b6cfb003040 } },
	{ 0xc00f0c5c3f3e4b64, { 0x3f951fe35b2eb280, 0x3f951fe35b2eb280, 0x3f951fe35b2eb280, 0x3f951fe35b2eb280 } },
	{ 0x4082f0972be0427e, { 0x7694d122f7648bdc, 0x7694d122f7648bdd, 0x7694d122f7648bdd, 0x7694d122f7648bdc } },
	{ 0xbf4836b107a372ac, { 0x3feff9f2e64811a6, 0x3feff9f2e64811a5, 0x3feff9f2e64811a5, 0x3feff9f2e64811a6 } },
	{ 0xc03124200b768e0c, { 0x3e634d0b005618f2, 0x3e634d0b005618f2, 0x3e634d0b005618f1, 0x3e634d0b005618f2 } },
	{ 0xc018d191625fd3ad, { 0x3f608c40fc754065, 0x3f608c40fc754065, 0x3f608c40fc754065, 0x3f608c40fc754065 } },
	{ 0x405c465623196a4a, { 0x4a21f7de7dd629df, 0x4a21f7de7dd629e0, 0x4a21f7de7dd629e0, 0x4a21f7de7dd629df } },
	{ 0x4081955ec9ab967d, { 0x72ab2750197e063b, 0x72ab2750197e063c, 0x72ab2750197e063b, 0x72ab2750197e063b } },
	{ 0xc0857b988ea38746, { 0x01f2a2d804c5dd8b, 0x01f2a2d804c5dd8c, 0x01f2a2d804c5dd8c, 0x01f2a2d804c5dd8b } },
	{ 0x406e010d6841d3e0, { 0x55939eba26083d3b, 0x55939eba26083d3c, 0x55939eba26083d3b, 0x55939eba26083d3b } },
	{ 0xbf37baf0c8cbcb64, { 0x3feffd08c517cc95, 0x3feffd08c517cc95, 0x3feffd08c517cc95, 0x3feffd08c517cc95 } },
	{ 0x4083de8f6ec295bb, { 0x79439f45fcf56d2b, 0x79439f45fcf56d2c, 0x79439f45fcf56d2c, 0x79439f45fcf56d2b } },
	{ 0xbea63f32432b5e77, { 0x3feffffe9c0ce389, 0x3feffffe9c0ce389, 0x3feffffe9c0ce389, 0x3feffffe9c0ce389 } },
	{ 0x407536394545ac61, { 0x5e88d7f5156bd799, 0x5e88d7f5156bd798, 0x5e88d7f5156bd799, 0x5e88d7f5156bd799 } },
	{ 0x4064c12a446f0406, { 0x4ee74313febfe82f, 0x4ee74313febfe830, 0x4ee74313febfe830, 0x4ee74313febfe82f } },
	{ 0xc01fa7f46afe1d20, { 0x3f37f5754d6dcb5e, 0x3f37f5754d6dcb5e, 0x3f37f5754d6dcb5f, 0x3f37f5754d6dcb5e } },
	{ 0xbeafadf61bb2188c, { 0x3feffffe0520adf3, 0x3feffffe0520adf3, 0x3feffffe0520adf3, 0x3feffffe0520adf3 } },
	{ 0xc02d816fe988177c, { 0x3e9a491a795559df, 0x3e9a491a795559e0, 0x3e9a491a795559df, 0x3e9a491a795559df } },
	{ 0xc0322eafedc9af5a, { 0x3e4b40f4e25efeb5, 0x3e4b40f4e25efeb6, 0x3e4b40f4e25efeb5, 0x3e4b40f4e25efeb5 } },
	{ 0xc01c105ae3fabe20, { 0x3f4d683768ffe1e2, 0x3f4d683768ffe1e1, 0x3f4d683768ffe1e1, 0x3f4d683768ffe1e2 } },
	{ 0xbeb028f2772fef50, { 0x3feffffdfae1c16c, 0x3feffffdfae1c16c, 0x3feffffdfae1c16c, 0x3feffffdfae1c16c } },
	{ 0xc0322c60baebb1cb, { 0x3e4b802e26d0c101, 0x3e4b802e26d0c102, 0x3e4b802e26d0c101, 0x3e4b802e26d0c101 } },
	{ 0xbf44fc88fe63d4e4, { 0x3feffac14bd60435, 0x3feffac14bd60435, 0x3feffac14bd60435, 0x3feffac14bd60435 } },
	{ 0xc01d32778c402ad3, { 0x3f4626e3508ba08a, 0x3f4626e3508ba08b, 0x3f4626e3508ba08b, 0x3f4626e3508ba08a } },
	{ 0x408407d3cc169826, { 0x79baa7e907bd3d1e, 0x79baa7e907bd3d1e, 0x79baa7e907bd3d1f, 0x79baa7e907bd3d1e } },
	{ 0xc03251bdc98c2303, { 0x3e47c41f7be4c89e, 0x3e47c41f7be4c89e, 0x3e47c41f7be4c89e, 0x3e47c41f7be4c89e } },
	{ 0xbff2ba2222c5e35e, { 0x3fd3dacd1f2cbc16, 0x3fd3dacd1f2cbc16, 0x3fd3dacd1f2cbc17, 0x3fd3dacd1f2cbc16 } },
	{ 0xc0283603acbd539f, { 0x3ed730c249f0eb66, 0x3ed730c249f0eb66, 0x3ed730c249f0eb67, 0x3ed730c249f0eb66 } },
	{ 0x4084daa1572f0f4a, { 0x7c1af1cd395570d6, 0x7c1af1cd395570d6, 0x7c1af1cd395570d5, 0x7c1af1cd395570d6 } },
	{ 0xc02d4165a1e9e53f, { 0x3e9dc9abd1be1108, 0x3e9dc9abd1be1108, 0x3e9dc9abd1be1108, 0x3e9dc9abd1be1108 } },
	{ 0xc030cfc830475bdf, { 0x3e6ad5294a83c492, 0x3e6ad5294a83c492, 0x3e6ad5294a83c493, 0x3e6ad5294a83c492 } },
	{ 0xc079671f5a9dbe34, { 0x1b48a6ba7588b564, 0x1b48a6ba7588b565, 0x1b48a6ba7588b565, 0x1b48a6ba7588b564 } },
	{ 0x406c70ba800ce41d, { 0x5472f9648473b546, 0x5472f9648473b545, 0x5472f9648473b545, 0x5472f9648473b546 } },
	{ 0xc03288d4eacb93ad, { 0x3e432a21dbeaacec, 0x3e432a21dbeaaced, 0x3e432a21dbeaaced, 0x3e432a21dbeaacec } },
	{ 0xbf43f7f3031bc1ee, { 0x3feffb0266e99889, 0x3feffb0266e99889, 0x3feffb0266e99889, 0x3feffb0266e99889 } },
	{ 0xc033ca45ba41b739, { 0x3e25d6f8221ab19b, 0x3e25d6f8221ab19c, 0x3e25d6f8221ab19b, 0x3e25d6f8221ab19b } },
	{ 0xc0746d55f1c9542f, { 0x22764cbc54244396, 0x22764cbc54244396, 0x22764cbc54244395, 0x22764cbc54244396 } },
	{ 0xc07fff4e5b8acd15, { 0x11c526dc31f3c9f0, 0x11c526dc31f3c9f1, 0x11c526dc31f3c9f1, 0x11c526dc31f3c9f0 } },
	{ 0xbf475710c1eaeac8, { 0x3feffa2ac3f7e655, 0x3feffa2ac3f7e655, 0x3feffa2ac3f7e655, 0x3feffa2ac3f7e655 } },
	{ 0xc0330964b8003757, { 0x3e3732650c2e156f, 0x3e3732650c2e156e, 0x3e3732650c2e156f, 0x3e3732650c2e156f } },
	{ 0xc0097287cd6ca931, { 0x3fa545af92ef4324, 0x3fa545af92ef4325, 0x3fa545af92ef4325, 0x3fa545af92ef4324 } },
	{ 0xc0687a201ca609a5, { 0x2e4693125f306d0e, 0x2e4693125f306d0e, 0x2e4693125f306d0d, 0x2e4693125f306d0e } },
	{ 0xc0202a43a5493a56, { 0x3f343e333e440a07, 0x3f343e333e440a06, 0x3f343e333e440a07, 0x3f343e333e440a07 } },
	{ 0x407082627bc02a4f, { 0x57c0fd24b23d753b, 0x57c0fd24b23d753b, 0x57c0fd24b23d753b, 0x57c0fd24b23d753b } },
	{ 0xbea158c33f5128cf, { 0x3feffffeea73d0bf, 0x3feffffeea73d0bf, 0x3feffffeea73d0bf, 0x3feffffeea73d0bf } },
	{ 0xc07d8889d0d6a1bc, { 0x155366a15ab5ce95, 0x155366a15ab5ce94, 0x155366a15ab5ce94, 0x155366a15ab5ce95 } },
	{ 0xc00a31a07a382d2f, { 0x3fa3608aa488c42f, 0x3fa3608aa488c42e, 0x3fa3608aa488c42e, 0x3fa3608aa488c42f } },
	{ 0xc07d17ee64dbf0ee, { 0x15f5949edd27a12a, 0x15f5949edd27a129, 0x15f5949edd27a129, 0x15f5949edd27a12a } },
	{ 0xbea4a37660ab639c, { 0x3feffffeb5c8a09d, 0x3feffffeb5c8a09d, 0x3feffffeb5c8a09d, 0x3feffffeb5c8a09d } },
	{ 0xc0323fa53aabde54, { 0x3e4981c1ef7ca9a1, 0x3e4981c1ef7ca9a2, 0x3e4981c1ef7ca9a2, 0x3e4981c1ef7ca9a1 } },
	{ 0x406fd8a660297817, { 0x56e7854fd42977be, 0x56e7854fd42977be, 0x56e7854fd42977bf, 0x56e7854fd42977be } },
	{ 0xc008a2926bafd9db, { 0x3fa78bb3e16bd290, 0x3fa78bb3e16bd291, 0x3fa78bb3e16bd291, 0x3fa78bb3e16bd290 } },
	{ 0x40623e87b9f57530, { 0x4d17b4dcb68060c9, 0x4d17b4dcb68060ca, 0x4d17b4dcb68060ca, 0x4d17b4dcb68060c9 } },
	{ 0x406c0d2785db4f51, { 0x542b08e6f699b74c, 0x542b08e6f699b74b, 0x542b08e6f699b74b, 0x542b08e6f699b74c } },
	{ 0xbf49baab4472f908, { 0x3feff991faa3313e, 0x3feff991faa3313e, 0x3feff991faa3313e, 0x3feff991faa3313e } },
	{ 0xc082b329f6f76fd1, { 0x09f9f3cd2c990f4c, 0x09f9f3cd2c990f4d, 0x09f9f3cd2c990f4d, 0x09f9f3cd2c990f4c } },
	{ 0xc028671d7583a6ff, { 0x3ed511df40462fd4, 0x3ed511df40462fd4, 0x3ed511df40462fd5, 0x3ed511df40462fd4 } },
	{ 0xc02b5b75443c5364, { 0x3eb33d017bc18769, 0x3eb33d017bc18768, 0x3eb33d017bc18768, 0x3eb33d017bc18769 } },
	{ 0xbf28b3ce9a7f2d92, { 0x3feffe74cc9f04eb, 0x3feffe74cc9f04eb, 0x3feffe74cc9f04eb, 0x3feffe74cc9f04eb } },
	{ 0xc02bed1541fd2b08, { 0x3eacf39e669174ab, 0x3eacf39e669174aa, 0x3eacf39e669174ab, 0x3eacf39e669174ab } },
	{ 0xc030d3fc101883ca, { 0x3e6a655063f072b6, 0x3e6a655063f072b5, 0x3e6a655063f072b5, 0x3e6a655063f072b6 } },
	{ 0xc02ad06ba34a64a1, { 0x3eb93da40ed3c26b, 0x3eb93da40ed3c26c, 0x3eb93da40ed3c26b, 0x3eb93da40ed3c26b } },
	{ 0xbf45bf9dd32379cc, { 0x3feffa908ec4594d, 0x3feffa908ec4594d, 0x3feffa908ec4594d, 0x3feffa908ec4594d } },
	{ 0x4077d9669f93f3c1, { 0x6256db05468d7ace, 0x6256db05468d7ace, 0x6256db05468d7acd, 0x6256db05468d7ace } },
	{ 0xbff0b38a64984bdc, { 0x3fd688d8a08faf09, 0x3fd688d8a08faf0a, 0x3fd688d8a08faf09, 0x3fd688d8a08faf09 } },
	{ 0xc0258662ca71acf9, { 0x3ef6355a815107eb, 0x3ef6355a815107eb, 0x3ef6355a815107eb, 0x3ef6355a815107eb } },
	{ 0x406831f72246caf6, { 0x516307524373332a, 0x516307524373332a, 0x516307524373332b, 0x516307524373332a } },
	{ 0xbfef68fa3172a764, { 0x3fd7fb7bcd7100df, 0x3fd7fb7bcd7100de, 0x3fd7fb7bcd7100de, 0x3fd7fb7bcd7100df } },
	{ 0xc08100478802a877, { 0x0ee16e1a6faf397d, 0x0ee16e1a6faf397e, 0x0ee16e1a6faf397d, 0x0ee16e1a6faf397d } },
	{ 0x4082cc432ea4a0c6, { 0x762c694b04160d34, 0x762c694b04160d35, 0x762c694b04160d35, 0x762c694b04160d34 } },
	{ 0xbf4a98af23137f25, { 0x3feff95a8502a512, 0x3feff95a8502a512, 0x3feff95a8502a512, 0x3feff95a8502a512 } },
	{ 0xc030372f230c1443, { 0x3e7859c36ac56d36, 0x3e7859c36ac56d37, 0x3e7859c36ac56d37, 0x3e7859c36ac56d36 } },
	{ 0x4076d9d1a242e8cf, { 0x60e625a5a54eb74d, 0x60e625a5a54eb74c, 0x60e625a5a54eb74c, 0x60e625a5a54eb74d } },
	{ 0x406e33b7ae4afec8, { 0x55b7e45746c50cc9, 0x55b7e45746c50cc8, 0x55b7e45746c50cc9, 0x55b7e45746c50cc9 } },
	{ 0xc083443ce989513e, { 0x085731541515f051, 0x085731541515f050, 0x085731541515f050, 0x085731541515f051 } },
	{ 0xc00cdd9dbbfc5e83, { 0x3f9bc02d624da966, 0x3f9bc02d624da965, 0x3f9bc02d624da965, 0x3f9bc02d624da966 } },
	{ 0xc077c9cb9c2795a9, { 0x1d9db4948a3c7f9d, 0x1d9db4948a3c7f9e, 0x1d9db4948a3c7f9e, 0x1d9db4948a3c7f9d } },
	{ 0xc07f8ce3079586a6, { 0x126a5984bdad4d8a, 0x126a5984bdad4d8a, 0x126a5984bdad4d8b, 0x126a5984bdad4d8a } },
	{ 0xbfecf4ca7643f27c, { 0x3fd9e4cc640c765c, 0x3fd9e4cc640c765c, 0x3fd9e4cc640c765d, 0x3fd9e4cc640c765c } },
	{ 0x407102cc66f82c18, { 0x58796035de478913, 0x58796035de478913, 0x58796035de478913, 0x58796035de478913 } },
	{ 0xc00a7b3ed82af3a8, { 0x3fa2b164d348bfe4, 0x3fa2b164d348bfe5, 0x3fa2b164d348bfe5, 0x3fa2b164d348bfe4 } },
	{ 0x407dfd58464bba69, { 0x6b3315371cbb4aeb, 0x6b3315371cbb4aea, 0x6b3315371cbb4aea, 0x6b3315371cbb4aeb } },
	{ 0xbf4bebc40449d28e, { 0x3feff905d1d5e123, 0x3feff905d1d5e123, 0x3feff905d1d5e123, 0x3feff905d1d5e123 } },
	{ 0xc07236958f6c7161, { 0x25a7f3a0933c2875, 0x25a7f3a0933c2874, 0x25a7f3a0933c2874, 0x25a7f3a0933c2875 } },
	{ 0xc00b4ee483092bea, { 0x3fa0db8d0bba9cbe, 0x3fa0db8d0bba9cbd, 0x3fa0db8d0bba9cbd, 0x3fa0db8d0bba9cbe } },
	{ 0x40825bd1b5d211df, { 0x74e76fec201addca, 0x74e76fec201addca, 0x74e76fec201addc9, 0x74e76fec201addca } },
	{ 0x4078c1f8be1f6b0a, { 0x63a664c554b18d68, 0x63a664c554b18d68, 0x63a664c554b18d67, 0x63a664c554b18d68 } },
};

static void test_scale_heap_sample(void **state)
{
	size_t i;
	int impl;
	int64_t c, s;

	(void)state;
	for (impl = GH_GOEXP_GENERIC; impl <= GH_GOEXP_ARM64; impl++) {
		for (i = 0; i < GH_ARRAY_LEN(scale_cases); i++) {
			const scale_case *t = &scale_cases[i];

			gh_scale_heap_sample(t->count, t->size, t->rate, impl,
					     &c, &s);
			if (c != t->want_count || s != t->want_size)
				fail_msg("impl %d scale(%lld,%lld,%lld) = %lld,%lld want %lld,%lld",
					 impl, (long long)t->count,
					 (long long)t->size, (long long)t->rate,
					 (long long)c, (long long)s,
					 (long long)t->want_count,
					 (long long)t->want_size);
		}
	}
	gh_scale_heap_sample(2, 256, 524288, gh_go_exp_impl(0), &c, &s);
	assert_int_equal(c, 8193);
	assert_int_equal(s, 1048704);
}

static void test_go_exp(void **state)
{
	size_t i;
	int impl, ndiff = 0;
	double x, got;
	uint64_t gb;

	(void)state;
	for (i = 0; i < GH_ARRAY_LEN(exp_cases); i++) {
		memcpy(&x, &exp_cases[i].x, sizeof(x));
		for (impl = GH_GOEXP_GENERIC; impl <= GH_GOEXP_ARM64; impl++) {
			got = gh_go_exp(x, impl);
			memcpy(&gb, &got, sizeof(gb));
			if (gb != exp_cases[i].want[impl])
				fail_msg("impl %d exp(%a) = %016llx want %016llx",
					 impl, x, (unsigned long long)gb,
					 (unsigned long long)exp_cases[i].want[impl]);
		}
		if (exp_cases[i].want[1] != exp_cases[i].want[2])
			ndiff++;
	}
	/* the table must be able to tell the implementations apart */
	assert_true(ndiff > 10);
}

/* ---- builder ------------------------------------------------------------------ */

/*
 * main.main (entry 0x1000) inlines main.b, which inlines main.a.  A bucket
 * stack holds 0x1010 (a), 0x1006 (b's virtual PC), 0x1003 (main's).
 */
#define F(pc_, entry_, fn_, file_, line_, sl_, inl_) \
	{ pc_, { (pc_) - 1, entry_, fn_, file_, line_, sl_, inl_, 0, 0 } }
static const fake_pc fake_tab[] = {
	F(0x1010, 0x1000, "main.a", "a.go", 5, 4, 1),
	F(0x1011, 0x1000, "main.a", "a.go", 6, 4, 1),
	F(0x1006, 0x1000, "main.b", "a.go", 9, 8, 1),
	F(0x1003, 0x1000, "main.main", "main.go", 20, 18, 0),
	F(0x2005, 0x2000, "runtime.main", "proc.go", 250, 144, 0),
	F(0x5010, 0x5000, "runtime.mallocgc", "malloc.go", 1000, 900, 0),
	F(0x5011, 0x5000, "internal/runtime/x.F", "x.go", 3, 1, 0),
	F(0x9001, 0x9000, "runtime.goexit", "asm.s", 1700, 1690, 0),
	/* generic: 1.21 compares Frame.Function, i.e. printed names */
	F(0x3010, 0x3000, "main.G[go.shape.int]", "g.go", 3, 2, 1),
	F(0x3006, 0x3000, "main.G[go.shape.string]", "g.go", 7, 6, 1),
	F(0x3003, 0x3000, "main.H", "g.go", 12, 10, 0),
	/* a frame that symbolizes without a line: lookupFailed */
	F(0x7001, 0x7000, "main.noline", "n.go", 0, 0, 0),
};
#undef F

static gh_sym fake_sym = { fake_tab, GH_ARRAY_LEN(fake_tab), NULL, 0 };

static uint64_t stk_pool[] = {
	/* 0 */ 0x5010, 0x1010, 0x1006, 0x1003, 0x2005, 0x9001,
	/* 6 */ 0x1010, 0x1006, 0x1003, 0x2005,
	/* 10 */ 0x1006, 0x1003, 0x2005,
	/* 13 */ 0xdead0,
	/* 14 */ 0x5010, 0x9001,
	/* 16 */ 0x9001,
	/* 17 */ 0x1011, 0x1006, 0x1003,
};

static gh_pmap test_maps[] = {
	{ 0x1000, 0x3000, 0, "/bin/x", "abc" },
	{ 0x5000, 0x6000, 0x1000, "/lib/rt", "" },
	{ 0xd0000, 0xe0000, 0, "[vdso]", "" },
};

static void init_heap_profile(gh_profile *p, gh_record *recs)
{
	static const size_t off[] = { 0, 6, 10, 13, 14, 16, 17, 20 };
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 7; i++) {
		memset(&recs[i], 0, sizeof(recs[i]));
		recs[i].stk = stk_pool + off[i];
		recs[i].nstk = off[i + 1] - off[i];
		recs[i].alloc_objects = 2;
		recs[i].alloc_bytes = 256;
		recs[i].free_objects = 1;
		recs[i].free_bytes = 128;
	}
	recs[5].alloc_objects = recs[5].alloc_bytes = 0;   /* no label */
	recs[5].free_objects = recs[5].free_bytes = 0;
	p->kind = GOHEAP_PROFILE_HEAP;
	p->ver.major = 1;
	p->ver.minor = 22;
	p->rate = 1;
	p->recs = recs;
	p->nrecs = 7;
	p->maps = test_maps;
	p->nmaps = GH_ARRAY_LEN(test_maps);
	p->time_nanos = 1700000000123456789LL;
}

static void expect_order(const dprofile *d, const int *want, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < d->norder; i++) {
		if (d->order[i] != want[i])
			fail_msg("field %zu is %d, want %d", i, d->order[i],
				 want[i]);
	}
	assert_int_equal(d->norder, n);
}

static void expect_lines(const dprofile *d, size_t loc, const char **names)
{
	const dloc *l = &d->locs[loc];
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		assert_true(i < l->nlines);
		assert_true(l->line_func[i] >= 1 &&
			    l->line_func[i] <= d->nfuncs);
		assert_string_equal(
			dstr(d, d->funcs[l->line_func[i] - 1].name), names[i]);
	}
	assert_int_equal(l->nlines, i);
}

static void test_builder_heap(void **state)
{
	gh_profile p;
	gh_record recs[7];
	dprofile d;
	static const int order[] = {
		11, 12, 1, 1, 1, 1,
		4, 5, 5, 5, 4, 5, 2,  /* a+b+main, runtime.main, sample 0 */
		2,                    /* sample 1: cached */
		4, 2,                 /* b+main: no new function */
		4, 5, 2,              /* unknown pc: function "" */
		4, 5, 2,              /* all runtime: mallocgc */
		2,                    /* goexit only: no location */
		4, 2,                 /* a'+b+main through the cache path */
		9, 3, 3, 3,
	};
	static const char *l1[] = { "main.a", "main.b", "main.main", NULL };
	static const char *l2[] = { "runtime.main", NULL };
	static const char *l3[] = { "main.b", "main.main", NULL };
	static const char *l4[] = { "", NULL };
	static const char *l5[] = { "runtime.mallocgc", NULL };
	size_t i;

	(void)state;
	init_heap_profile(&p, recs);
	write_and_decode(&p, &fake_sym, &d);
	assert_true(d.norder > GH_ARRAY_LEN(order));
	d.norder = GH_ARRAY_LEN(order);   /* the rest is the string table */
	expect_order(&d, order, GH_ARRAY_LEN(order));

	assert_string_equal(dstr(&d, 0), "");
	assert_string_equal(dstr(&d, d.period_type[0]), "space");
	assert_string_equal(dstr(&d, d.period_type[1]), "bytes");
	assert_int_equal(d.period, 1);
	assert_int_equal(d.ntypes, 4);
	assert_string_equal(dstr(&d, d.types[0][0]), "alloc_objects");
	assert_string_equal(dstr(&d, d.types[3][0]), "inuse_space");
	assert_int_equal(d.default_sample_type, 0);
	assert_int_equal(d.time_nanos, 1700000000123456789LL);
	/* strings in order of first use */
	assert_string_equal(dstr(&d, 1), "space");
	assert_string_equal(dstr(&d, 2), "bytes");
	assert_string_equal(dstr(&d, 3), "alloc_objects");

	assert_int_equal(d.nlocs, 6);
	for (i = 0; i < d.nlocs; i++)
		assert_int_equal(d.locs[i].id, i + 1);
	expect_lines(&d, 0, l1);
	expect_lines(&d, 1, l2);
	expect_lines(&d, 2, l3);
	expect_lines(&d, 3, l4);
	expect_lines(&d, 4, l5);
	expect_lines(&d, 5, l1);
	/* Address is the call PC of the deck's first PC */
	assert_int_equal(d.locs[0].address, 0x100f);
	assert_int_equal(d.locs[2].address, 0x1005);
	assert_int_equal(d.locs[3].address, 0xdeacf);  /* addr-1 */
	assert_int_equal(d.locs[5].address, 0x1010);
	assert_int_equal(d.locs[0].mapping, 1);
	assert_int_equal(d.locs[3].mapping, 3);
	assert_int_equal(d.locs[4].mapping, 2);
	assert_int_equal(d.locs[0].line_line[0], 5);
	assert_int_equal(d.locs[0].line_line[2], 20);

	assert_int_equal(d.nfuncs, 6);
	for (i = 0; i < d.nfuncs; i++) {
		assert_int_equal(d.funcs[i].id, i + 1);
		assert_int_equal(d.funcs[i].name, d.funcs[i].system_name);
	}
	assert_string_equal(dstr(&d, d.funcs[0].filename), "a.go");
	assert_int_equal(d.funcs[0].start_line, 4);
	assert_int_equal(d.funcs[4].name, 0);    /* "" */

	assert_int_equal(d.nsamples, 8 - 1);
	assert_int_equal(d.samples[0].nlocs, 2);
	assert_int_equal(d.samples[0].locs[0], 1);
	assert_int_equal(d.samples[0].locs[1], 2);
	assert_int_equal(d.samples[1].nlocs, 2);
	assert_int_equal(d.samples[2].nlocs, 2);
	assert_int_equal(d.samples[2].locs[0], 3);
	assert_int_equal(d.samples[2].locs[1], 2);
	assert_int_equal(d.samples[4].locs[0], 5);
	assert_int_equal(d.samples[5].nlocs, 0);
	assert_int_equal(d.samples[6].locs[0], 6);
	/* rate 1: unscaled; inuse = alloc - free; bytes = 256/2 */
	assert_int_equal(d.samples[0].nvalues, 4);
	assert_int_equal(d.samples[0].values[0], 2);
	assert_int_equal(d.samples[0].values[1], 256);
	assert_int_equal(d.samples[0].values[2], 1);
	assert_int_equal(d.samples[0].values[3], 128);
	assert_int_equal(d.samples[0].nlabels, 1);
	assert_string_equal(dstr(&d, d.samples[0].label_key), "bytes");
	assert_int_equal(d.samples[0].label_num, 128);
	assert_int_equal(d.samples[5].nlabels, 0);
	assert_int_equal(d.samples[5].values[0], 0);

	assert_int_equal(d.nmaps, 3);
	assert_int_equal(d.maps[0].id, 1);
	assert_int_equal(d.maps[0].start, 0x1000);
	assert_int_equal(d.maps[0].limit, 0x3000);
	assert_int_equal(d.maps[1].offset, 0x1000);
	assert_string_equal(dstr(&d, d.maps[0].filename), "/bin/x");
	assert_string_equal(dstr(&d, d.maps[0].build_id), "abc");
	assert_int_equal(d.maps[1].build_id, 0);
	assert_int_equal(d.maps[0].has_functions, 1);
	assert_int_equal(d.maps[1].has_functions, 1);
	assert_int_equal(d.maps[2].has_functions, 0);  /* lookupFailed */
	dprofile_free(&d);
}

static void test_builder_versions(void **state)
{
	gh_profile p;
	gh_record recs[7];
	dprofile d;
	/* G[int] inlined into G[string] inlined into H */
	static uint64_t gstk[] = { 0x3010, 0x3006, 0x3003 };
	static uint64_t istk[] = { 0x5011, 0x1003 };
	static const char *merged[] = { "main.G[go.shape.int]",
		"main.G[go.shape.string]", "main.H", NULL };
	static const char *gonly[] = { "main.G[go.shape.int]", NULL };
	static const char *inl[] = { "internal/runtime/x.F", NULL };
	static const char *mainl[] = { "main.main", NULL };

	(void)state;
	init_heap_profile(&p, recs);
	p.kind = GOHEAP_PROFILE_ALLOCS;
	p.nrecs = 2;
	recs[0].stk = gstk;
	recs[0].nstk = 3;
	recs[1].stk = istk;
	recs[1].nstk = 2;

	/* 1.22: raw names differ, merged; allocs default type */
	write_and_decode(&p, &fake_sym, &d);
	assert_string_equal(dstr(&d, d.default_sample_type), "alloc_space");
	assert_int_equal(d.order[6], 14);
	expect_lines(&d, 0, merged);
	/* 1.22 keeps internal/runtime/ frames */
	expect_lines(&d, 1, inl);
	dprofile_free(&d);

	/* 1.21: printed names both main.G[...]: looks like recursion */
	p.ver.minor = 21;
	write_and_decode(&p, &fake_sym, &d);
	expect_lines(&d, 0, gonly);
	assert_int_equal(d.samples[0].nlocs, 2);
	assert_int_equal(d.funcs[0].start_line, 2);
	dprofile_free(&d);

	/* 1.19: no start_line */
	p.ver.minor = 19;
	write_and_decode(&p, &fake_sym, &d);
	expect_lines(&d, 0, merged);
	assert_int_equal(d.funcs[0].start_line, 0);
	dprofile_free(&d);

	/* 1.24: hideRuntime also drops internal/runtime/ */
	p.ver.minor = 24;
	write_and_decode(&p, &fake_sym, &d);
	expect_lines(&d, 1, mainl);
	assert_int_equal(d.funcs[0].start_line, 2);
	dprofile_free(&d);

	/* no mappings: one fake mapping that every location matches */
	p.nmaps = 0;
	write_and_decode(&p, &fake_sym, &d);
	assert_int_equal(d.nmaps, 1);
	assert_int_equal(d.maps[0].start, 0);
	assert_int_equal(d.maps[0].filename, 0);
	assert_int_equal(d.maps[0].has_functions, 1);
	assert_int_equal(d.locs[0].mapping, 1);
	dprofile_free(&d);
}

static void test_builder_block(void **state)
{
	gh_profile p;
	gh_record recs[3];
	dprofile d;
	static uint64_t s1[] = { 0x1010, 0x1006, 0x1003 };
	static uint64_t s2[] = { 0xffffffffffffffffULL, 0x2005 };

	(void)state;
	memset(&p, 0, sizeof(p));
	memset(recs, 0, sizeof(recs));
	recs[0].count = 3;
	recs[0].cycles = 1000;
	recs[0].stk = s1;
	recs[0].nstk = 3;
	recs[1].count = 5;
	recs[1].cycles = 3000;
	recs[1].stk = s2;
	recs[1].nstk = 2;
	recs[2].count = 1;
	recs[2].cycles = 2000;
	recs[2].stk = NULL;
	recs[2].nstk = 0;
	p.kind = GOHEAP_PROFILE_MUTEX;
	p.ver.major = 1;
	p.ver.minor = 22;
	p.rate = 10;
	p.cycles_per_second = 2e9;
	p.recs = recs;
	p.nrecs = 3;
	p.maps = test_maps;
	p.nmaps = 1;

	write_and_decode(&p, &fake_sym, &d);
	assert_string_equal(dstr(&d, d.period_type[0]), "contentions");
	assert_string_equal(dstr(&d, d.period_type[1]), "count");
	assert_int_equal(d.period, 1);
	assert_int_equal(d.ntypes, 2);
	assert_string_equal(dstr(&d, d.types[1][0]), "delay");
	assert_string_equal(dstr(&d, d.types[1][1]), "nanoseconds");
	/* sorted by cycles, descending */
	assert_int_equal(d.nsamples, 3);
	assert_int_equal(d.samples[0].nvalues, 2);
	assert_int_equal(d.samples[0].values[0], 5);
	assert_int_equal(d.samples[0].values[1], 1500);
	assert_int_equal(d.samples[1].values[1], 1000);
	assert_int_equal(d.samples[2].values[0], 3);
	/* 1.22: sentinel kept as a PC without symbol */
	assert_int_equal(d.samples[0].nlocs, 2);
	assert_int_equal(d.samples[1].nlocs, 0);
	dprofile_free(&d);

	/* 1.23: expandInlinedFrames drops the sentinel; empty -> [1] */
	p.ver.minor = 23;
	write_and_decode(&p, &fake_sym, &d);
	assert_int_equal(d.samples[0].nlocs, 1);
	assert_int_equal(d.samples[1].nlocs, 1);
	assert_int_equal(d.locs[d.samples[1].locs[0] - 1].address, 0);
	assert_int_equal(d.samples[2].nlocs, 1);
	dprofile_free(&d);

	/* 1.19: pprof scaled mutex samples by the rate itself */
	p.ver.minor = 19;
	write_and_decode(&p, &fake_sym, &d);
	assert_int_equal(d.samples[0].values[0], 50);
	assert_int_equal(d.samples[0].values[1], 15000);
	dprofile_free(&d);
	p.kind = GOHEAP_PROFILE_BLOCK;
	write_and_decode(&p, &fake_sym, &d);
	assert_int_equal(d.samples[0].values[0], 5);
	dprofile_free(&d);
}

/* CPU time: wall time is meaningless on a loaded build machine. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A synthetic PC: call site `site` in synthetic function `fn`. */
static uint64_t synth_pc(uint64_t fn, uint64_t site)
{
	return SYNTH_BASE + ((fn % SYNTH_FUNCS) << 8) + 1 + site % 8;
}

/*
 * Write NREC samples of DEPTH frames; `shape` 0 gives program-like stacks
 * (a random leaf under one of 200 call paths), 1 random frames throughout
 * (every sample distinct, the deflate worst case).  Returns CPU seconds.
 */
static double time_builder(int shape, size_t *gzlen)
{
	enum { NREC = 100000, DEPTH = 16 };
	gh_sym sym = { fake_tab, 0, NULL, 0 };
	gh_profile p;
	gh_record *recs = calloc(NREC, sizeof(*recs));
	uint64_t *pool = calloc((size_t)NREC * DEPTH, sizeof(*pool));
	uint64_t x = 88172645463325252ULL, path;
	gh_buf out = GH_BUF_INIT;
	gh_wctx w = { NULL, GOHEAP_SAMPLE_DEFAULT, 20, "x", NULL, NULL };
	gh_err err = { 0, "" };
	double t0, dt;
	size_t i, j;

	sym.synth_names = calloc(SYNTH_FUNCS, sizeof(*sym.synth_names));
	assert_non_null(recs);
	assert_non_null(pool);
	assert_non_null(sym.synth_names);
	for (i = 0; i < SYNTH_FUNCS; i++)
		snprintf(sym.synth_names[i], sizeof(sym.synth_names[i]),
			 "pkg%zu.F%zu", i % 50, i);
	for (i = 0; i < NREC; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		path = (x >> 20) % 200;
		for (j = 0; j < DEPTH; j++) {
			if (shape == 1) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				pool[i * DEPTH + j] = synth_pc(x, x >> 40);
			} else if (j < 2) {
				pool[i * DEPTH + j] = synth_pc(x >> (8 + 12 * j),
							       x >> 50);
			} else {
				pool[i * DEPTH + j] =
					synth_pc(path * 13 + j * 7 + 2048, j);
			}
		}
		recs[i].stk = pool + i * DEPTH;
		recs[i].nstk = DEPTH;
		recs[i].alloc_objects = (int64_t)(x % 100) + 1;
		recs[i].alloc_bytes = recs[i].alloc_objects * 64;
	}
	memset(&p, 0, sizeof(p));
	p.kind = GOHEAP_PROFILE_HEAP;
	p.ver.major = 1;
	p.ver.minor = 22;
	p.rate = 524288;
	p.recs = recs;
	p.nrecs = NREC;
	w.sym = &sym;
	t0 = cpu_now();
	assert_int_equal(gh_write_pprof(&p, &w, &out, &err), 0);
	dt = cpu_now() - t0;
	*gzlen = out.len;
	gh_buf_free(&out);
	free(sym.synth_names);
	free(pool);
	free(recs);
	return dt;
}

/*
 * 100k samples of 16 frames, gzip included: the builder must cope with a
 * profile of that size (hashed maps, nothing quadratic).  Its CPU time is
 * printed as information only: a timing is a benchmark figure
 * (bench/run-bench.sh), never a pass/fail assertion on a shared machine.
 * What is asserted is machine-independent: the program-like shape, whose
 * stacks repeat, must compress far better than the random one (a builder
 * that stopped sharing locations and functions would not).
 */
static void test_builder_speed(void **state)
{
	double dt;
	size_t len, rlen;

	(void)state;
	dt = time_builder(0, &len);
	print_message("100k program-like samples: %.1f ms CPU, %zu bytes "
		      "(information, not asserted)\n", dt * 1e3, len);
	assert_true(len > 0);
	if (getenv("GH_TEST_NO_RANDOM") != NULL)
		return;
	dt = time_builder(1, &rlen);
	print_message("100k random samples: %.1f ms CPU, %zu bytes\n",
		      dt * 1e3, rlen);
	assert_true(len < rlen);
}

static void test_gzip_roundtrip(void **state)
{
	gh_profile p;
	gh_record recs[7];
	dprofile d;
	gh_buf out = GH_BUF_INIT;
	gh_wctx w = { &fake_sym, GOHEAP_SAMPLE_DEFAULT, 20, "x", NULL, NULL };
	gh_err err = { 0, "" };
	unsigned char *a, *b;
	size_t alen, blen;

	(void)state;
	init_heap_profile(&p, recs);
	/* deterministic: same input, same decompressed bytes */
	write_and_decode(&p, &fake_sym, &d);
	assert_int_equal(gh_write_pprof(&p, &w, &out, &err), 0);
	b = gunzip(out.data, out.len, &blen);
	a = d.raw;
	alen = d.rawlen;
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	/* the trailer's ISIZE is the decompressed length */
	assert_int_equal(gh_le32(out.data + out.len - 4), (uint32_t)alen);
	free(b);
	gh_buf_free(&out);
	dprofile_free(&d);
}

int main(void)
{
	const struct CMUnitTest pb_tests[] = {
		cmocka_unit_test(test_pb_varint),
		cmocka_unit_test(test_pb_opt_and_bool),
		cmocka_unit_test(test_pb_packed_rule),
		cmocka_unit_test(test_pb_messages),
	};
	const struct CMUnitTest scale_tests[] = {
		cmocka_unit_test(test_scale_heap_sample),
		cmocka_unit_test(test_go_exp),
	};
	const struct CMUnitTest builder_tests[] = {
		cmocka_unit_test(test_builder_heap),
		cmocka_unit_test(test_builder_versions),
		cmocka_unit_test(test_builder_block),
		cmocka_unit_test(test_gzip_roundtrip),
		cmocka_unit_test(test_builder_speed),
	};
	int rc = 0;

	rc |= cmocka_run_group_tests_name("pb", pb_tests, NULL, NULL);
	rc |= cmocka_run_group_tests_name("scale", scale_tests, NULL, NULL);
	rc |= cmocka_run_group_tests_name("builder", builder_tests, NULL, NULL);
	return rc;
}

/*
 * pprof_small.c - profile.proto for the writers whose frames are not
 * program counters (-p types: one frame per type; -p retained: the
 * dominator paths' roots and types): the string table's entries, value
 * types, n synthetic locations of one function each, and the message's
 * end gzip'd as one member.  The bytes are those the two writers wrote
 * with their own copies before.
 */
#include "config.h"

#include <string.h>

#include <zlib.h>

#include "pb.h"
#include "writers.h"

void gh_spp_str(gh_pb *b, const char *s)
{
	gh_pb_string(b, GH_SPP_STRINGS, s, strlen(s));
}

void gh_spp_valtype(gh_pb *b, int tag, int64_t type, int64_t unit)
{
	size_t m = gh_pb_start_message(b);

	gh_pb_int64_opt(b, 1, type);
	gh_pb_int64_opt(b, 2, unit);
	gh_pb_end_message(b, tag, m);
}

void gh_spp_frames(gh_pb *b, size_t n, int64_t name0, int64_t stride)
{
	size_t i, m, m2;

	for (i = 0; i < n; i++) {
		m = gh_pb_start_message(b);
		gh_pb_uint64(b, 1, i + 1);
		m2 = gh_pb_start_message(b);
		gh_pb_uint64(b, 1, i + 1);
		gh_pb_end_message(b, 4, m2);
		gh_pb_end_message(b, GH_SPP_LOCATION, m);
	}
	for (i = 0; i < n; i++) {
		m = gh_pb_start_message(b);
		gh_pb_uint64(b, 1, i + 1);
		gh_pb_int64(b, 2, name0 + stride * (int64_t)i);
		gh_pb_int64(b, 3, name0 + stride * (int64_t)i);
		gh_pb_end_message(b, GH_SPP_FUNCTION, m);
	}
}

int gh_spp_finish(gh_pb *b, int64_t time_nanos, int64_t ptype, int64_t punit,
		 int64_t comment, int64_t default_type, gh_buf *out,
		 gh_err *err)
{
	int rc;

	gh_pb_int64_opt(b, GH_SPP_TIME, time_nanos);
	gh_spp_valtype(b, GH_SPP_PERIOD_TYPE, ptype, punit);
	gh_pb_int64(b, GH_SPP_PERIOD, 1);
	gh_pb_int64(b, GH_SPP_COMMENT, comment);
	gh_pb_int64_opt(b, GH_SPP_DEFAULT_SAMPLE_TYPE, default_type);
	if (b->data.oom) {
		gh_pb_free(b);
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	}
	rc = gh_fmt_gzip_append(b->data.data, b->data.len, out, err);
	gh_pb_free(b);
	return rc;
}

/* The gzip member of in[0..n) (zlib, level 1) appended to out. */
int gh_fmt_gzip_append(const unsigned char *in, size_t n, gh_buf *out,
		       gh_err *err)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return gh_errf(err, GOHEAP_ENOMEM, "zlib: deflateInit2 failed");
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	do {
		if (gh_buf_reserve(out, 65536) != 0) {
			deflateEnd(&z);
			return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		}
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)(out->cap - out->len);
		rc = deflate(&z, Z_FINISH);
		out->len = out->cap - z.avail_out;
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 :
	       gh_errf(err, GOHEAP_EIO, "zlib: deflate failed (%d)", rc);
}

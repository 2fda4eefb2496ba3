/*
 * pb.c - protocol-buffer encoding as Go's runtime/pprof/protobuf.go does it.
 *
 * Go writes a nested message by appending its fields first and then moving
 * them right to make room for the key and length (endMessage copies through
 * a 16-byte tmp).  We do the same with memmove, which keeps a single pass
 * and a single buffer; the alternative, sizing messages in a first pass as
 * protobuf-c does, would double the code for no gain in output.  Packed
 * repeated fields use the same trick.  Byte-for-byte equality with Go is
 * the point: tests/test_pb.c checks against known byte strings.
 */
#include "config.h"

#include <stdlib.h>

#include "pb.h"

/* A key plus a 64-bit length is at most 1 + 10 bytes for our tags. */
#define PB_MAX_HEADER 16

void gh_pb_varint(gh_pb *b, uint64_t x)
{
	unsigned char *p;

	/* The hot path of the whole writer: write in place, no tmp copy. */
	if (b->data.cap - b->data.len < 10 &&
	    gh_buf_reserve(&b->data, 10) != 0)
		return;
	p = b->data.data + b->data.len;
	while (x >= 128) {
		*p++ = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char)x;
	b->data.len = (size_t)(p - b->data.data);
}

void gh_pb_length(gh_pb *b, int tag, uint64_t len)
{
	gh_pb_varint(b, (uint64_t)tag << 3 | 2);
	gh_pb_varint(b, len);
}

void gh_pb_uint64(gh_pb *b, int tag, uint64_t x)
{
	gh_pb_varint(b, (uint64_t)tag << 3 | 0);
	gh_pb_varint(b, x);
}

void gh_pb_int64(gh_pb *b, int tag, int64_t x)
{
	/* Go: uint64(x), so negative values take ten bytes (no zigzag). */
	gh_pb_uint64(b, tag, (uint64_t)x);
}

void gh_pb_uint64_opt(gh_pb *b, int tag, uint64_t x)
{
	if (x == 0)
		return;
	gh_pb_uint64(b, tag, x);
}

void gh_pb_int64_opt(gh_pb *b, int tag, int64_t x)
{
	if (x == 0)
		return;
	gh_pb_int64(b, tag, x);
}

/*
 * Insert the key and length of the bytes data[start:] in front of them:
 * protobuf.go's endMessage without the nest bookkeeping.
 */
static void pb_wrap(gh_pb *b, int tag, size_t start)
{
	size_t n1 = start, n2, n3, hdr;
	unsigned char tmp[PB_MAX_HEADER];

	n2 = b->data.len;
	gh_pb_length(b, tag, (uint64_t)(n2 - n1));
	if (b->data.oom)
		return;
	n3 = b->data.len;
	hdr = n3 - n2;
	memcpy(tmp, b->data.data + n2, hdr);
	memmove(b->data.data + n1 + hdr, b->data.data + n1, n2 - n1);
	memcpy(b->data.data + n1, tmp, hdr);
}

void gh_pb_uint64s(gh_pb *b, int tag, const uint64_t *x, size_t n)
{
	size_t i, start;

	if (n > 2) {
		start = b->data.len;
		for (i = 0; i < n; i++)
			gh_pb_varint(b, x[i]);
		pb_wrap(b, tag, start);
		return;
	}
	for (i = 0; i < n; i++)
		gh_pb_uint64(b, tag, x[i]);
}

void gh_pb_int64s(gh_pb *b, int tag, const int64_t *x, size_t n)
{
	size_t i, start;

	if (n > 2) {
		start = b->data.len;
		for (i = 0; i < n; i++)
			gh_pb_varint(b, (uint64_t)x[i]);
		pb_wrap(b, tag, start);
		return;
	}
	for (i = 0; i < n; i++)
		gh_pb_int64(b, tag, x[i]);
}

void gh_pb_string(gh_pb *b, int tag, const char *s, size_t len)
{
	gh_pb_length(b, tag, (uint64_t)len);
	gh_buf_append(&b->data, s, len);
}

void gh_pb_string_opt(gh_pb *b, int tag, const char *s, size_t len)
{
	if (len == 0)
		return;
	gh_pb_string(b, tag, s, len);
}

void gh_pb_bool(gh_pb *b, int tag, int x)
{
	gh_pb_uint64(b, tag, x ? 1 : 0);
}

void gh_pb_bool_opt(gh_pb *b, int tag, int x)
{
	if (!x)
		return;
	gh_pb_bool(b, tag, x);
}

size_t gh_pb_start_message(gh_pb *b)
{
	b->nest++;
	return b->data.len;
}

void gh_pb_end_message(gh_pb *b, int tag, size_t start)
{
	pb_wrap(b, tag, start);
	b->nest--;
}

void gh_pb_free(gh_pb *b)
{
	gh_buf_free(&b->data);
	b->nest = 0;
}

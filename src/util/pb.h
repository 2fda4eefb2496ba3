/*
 * pb.h - a small protocol-buffer encoder, modelled on Go's
 * src/runtime/pprof/protobuf.go.
 *
 * Only what profile.proto needs: varints, length-delimited nested messages
 * and strings, packed repeated integers.  Nested messages are written in
 * place and their length prefix is inserted at gh_pb_end_message, exactly as
 * protobuf.go's startMessage/endMessage do, so the bytes are the same as Go's.
 * Appends never fail loudly; check gh_pb.data.oom once at the end.
 */
#ifndef GH_PB_H
#define GH_PB_H

#include "gh.h"

typedef struct gh_pb {
	gh_buf data;
	int nest;             /* open messages (Go's protobuf.nest) */
} gh_pb;

#define GH_PB_INIT { GH_BUF_INIT, 0 }

/* Base-128 varint, least significant group first. */
void gh_pb_varint(gh_pb *b, uint64_t x);
/* Key (tag, wire type 2) and a length. */
void gh_pb_length(gh_pb *b, int tag, uint64_t len);
/* Field `tag` as a varint (wire type 0). */
void gh_pb_uint64(gh_pb *b, int tag, uint64_t x);
void gh_pb_int64(gh_pb *b, int tag, int64_t x);
/* The same, omitted when x == 0 (Go's uint64Opt / int64Opt). */
void gh_pb_uint64_opt(gh_pb *b, int tag, uint64_t x);
void gh_pb_int64_opt(gh_pb *b, int tag, int64_t x);
/*
 * Repeated integers.  Go's rule: packed (one length-delimited field) only
 * when there are more than 2 values, otherwise one varint field per value.
 */
void gh_pb_uint64s(gh_pb *b, int tag, const uint64_t *x, size_t n);
void gh_pb_int64s(gh_pb *b, int tag, const int64_t *x, size_t n);
/* Length-delimited bytes; the _opt form omits the empty string. */
void gh_pb_string(gh_pb *b, int tag, const char *s, size_t len);
void gh_pb_string_opt(gh_pb *b, int tag, const char *s, size_t len);
/* 1 or 0; the _opt form writes only true. */
void gh_pb_bool(gh_pb *b, int tag, int x);
void gh_pb_bool_opt(gh_pb *b, int tag, int x);

/*
 * Nested message: remember the offset, write the fields, then end it with
 * its tag; the key and length are inserted before the fields.
 */
size_t gh_pb_start_message(gh_pb *b);
void gh_pb_end_message(gh_pb *b, int tag, size_t start);

void gh_pb_free(gh_pb *b);

#endif

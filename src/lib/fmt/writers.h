/*
 * writers.h - the writers of src/lib/fmt: a profile (profile.h) in
 * runtime/pprof's formats and go-heap's own.  The dispatcher
 * (session.c) and the writers include it; the profile model does not,
 * so the model never depends on its writers.
 */
#ifndef GH_WRITERS_H
#define GH_WRITERS_H

#include "profile.h"

/* Time spent in the writer's stages (seconds), when asked for. */
typedef struct gh_wstats {
	double t_symbolize, t_compress;
	size_t suspect;       /* frames whose symbolization is untrustworthy */
	double t_encode_thread; /* gh_pprof_stream's thread, CPU seconds */
} gh_wstats;

/* What a writer needs besides the profile. */
typedef struct gh_wctx {
	const gh_sym *sym;
	int sample_index;     /* enum goheap_sample_index */
	int top_n;
	const char *exe_path; /* for the summary */
	gh_wstats *stats;     /* NULL: no timing */
	/* heap/allocs text: the # runtime.MemStats trailer's numbers
	 * (memstats.h), read when the profile is written; NULL: none */
	const struct gh_memstats *memstats;
} gh_wctx;

/* gzip'd profile.proto as runtime/pprof writeHeapProto / printCountProfile. */
int gh_write_pprof(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		   gh_err *err);
/*
 * The same for a heap/allocs profile whose records arrive one by one
 * (gh_walk_stream), encoded on a thread of the writer's own while they
 * come: start once p's header (kind, rate, maps, time) is set, pass each
 * record (copied: r->stk need not outlive the call), finish with the
 * walked profile (its skip counts go into the comment) and ok = 0 to
 * discard the output after a failed walk.  The bytes are gh_write_pprof's
 * for the same records.  finish frees the stream, whatever happened.
 */
typedef struct gh_pprof_stream gh_pprof_stream;
int gh_pprof_stream_start(gh_pprof_stream **out, const gh_profile *p,
			  const gh_wctx *w, gh_buf *buf, gh_err *err);
int gh_pprof_stream_record(gh_pprof_stream *st, const gh_record *r);
int gh_pprof_stream_finish(gh_pprof_stream *st, const gh_profile *p,
			   int ok);
/* debug=1 text of the target's Go version. */
int gh_write_text(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		  gh_err *err);
/* Summary paragraph and flat/cum table like `go tool pprof -top`. */
int gh_write_top(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		 gh_err *err);
/* Folded stacks "root;...;leaf value\n". */
int gh_write_collapsed(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		       gh_err *err);

/* Goroutine profiles (fmt_goroutine.c): folded stacks and tracebacks; their
 * debug=1 text is gh_write_text's. */
int gh_write_goroutine_collapsed(const gh_profile *p, const gh_wctx *w,
				 gh_buf *out, gh_err *err);
/* debug=2: runtime.Stack(buf, true) of every goroutine (fmt_goroutine.c) */
int gh_write_goroutine_traceback(const gh_profile *p, const gh_wctx *w,
				 gh_buf *out, gh_err *err);
/* one line per goroutine, cut from the traceback (fmt_golist.c), with
 * "(thread TID)" for those the collection found on a thread */
int gh_write_goroutine_list(const gh_profile *p, const gh_wctx *w,
			    gh_buf *out, gh_err *err);

/* -p types (fmt_types.c): the histogram as format (top, text, collapsed,
 * pprof, or objects when collected with them). */
int gh_write_types(const gh_profile *p, const gh_wctx *w, int format,
		   gh_buf *out, gh_err *err);

/* ---- profile.proto of synthetic frames (pprof_small.c) ------------------
 * For -p types and -p retained, whose frames are types and roots, not
 * program counters. */

/* profile.proto's fields (github.com/google/pprof/proto/profile.proto) */
enum {
	GH_SPP_SAMPLE_TYPE = 1, GH_SPP_SAMPLE = 2, GH_SPP_LOCATION = 4,
	GH_SPP_FUNCTION = 5, GH_SPP_STRINGS = 6, GH_SPP_TIME = 9,
	GH_SPP_PERIOD_TYPE = 11, GH_SPP_PERIOD = 12, GH_SPP_COMMENT = 13,
	GH_SPP_DEFAULT_SAMPLE_TYPE = 14,
};

struct gh_pb;
/* The next string table entry. */
void gh_spp_str(struct gh_pb *b, const char *s);
/* A ValueType {type, unit} (string indexes) as field tag. */
void gh_spp_valtype(struct gh_pb *b, int tag, int64_t type, int64_t unit);
/* n Locations, location i+1 a Line of Function i+1, whose name and
 * system_name are string name0 + stride * i. */
void gh_spp_frames(struct gh_pb *b, size_t n, int64_t name0, int64_t stride);
/* The message's end (time_nanos, period type, period 1, the comment's
 * string, default_type unless 0), gzip'd onto out; frees b. */
int gh_spp_finish(struct gh_pb *b, int64_t time_nanos, int64_t ptype,
		 int64_t punit, int64_t comment, int64_t default_type,
		 gh_buf *out, gh_err *err);
/* The gzip member of in[0..n) (zlib, level 1) appended to out. */
int gh_fmt_gzip_append(const unsigned char *in, size_t n, gh_buf *out,
		       gh_err *err);

/* -p retained (fmt_retained.c): top, text, collapsed, pprof or objects;
 * path: --path's address or type (NULL: none). */
int gh_write_retained(const gh_profile *p, const gh_wctx *w, int format,
		      const char *path, gh_buf *out, gh_err *err);
/* Its pprof rows one by one (growth.c): the folded path (root first) and
 * objects, own bytes, retained bytes; fn's nonzero return stops. */
typedef int (*gh_retained_row_fn)(void *ctx, const char *path,
				  const int64_t v[3]);
struct gh_retained;
int gh_retained_rows(const struct gh_retained *r, gh_retained_row_fn fn,
		     void *ctx);

#endif

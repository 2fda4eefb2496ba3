/*
 * fmt_common.h - the writers' toolkit: what every fmt_*.c needs.
 *
 *   - sample columns: which column -s selects and the value the proto
 *     holds for it (scaleHeapSample, printCountCycleProfile's delay);
 *   - the record order of writeHeapInternal / writeProfileInternal;
 *   - stack expansion: PCs to logical frames (inlining as the target's
 *     runtime.CallersFrames does it) through a per-PC cache, the
 *     hideRuntime test, Record.Stack() and expandInlinedFrames;
 *   - folded stacks' frame names.
 *
 * Go's float arithmetic (int64(float64), math.Exp, scaleHeapSample) is
 * src/util/gomath.h, the writers' hash map src/util/hmap.h; both come
 * with this header.  Writers include it directly (it includes
 * profile.h).
 */
#ifndef GH_FMT_COMMON_H
#define GH_FMT_COMMON_H

#include "gomath.h"
#include "goroutine.h"
#include "hmap.h"
#include "profile.h"
#include "writers.h"

/* ---- Go's int64(float64) ----------------------------------------------- */

/* runtime_cyclesPerSecond(): an int64 in Go, a double in gh_profile. */
int64_t gh_cycles_per_second(const gh_profile *p);

/* The profstackdepth the target's runtime uses (1.23+; default 128). */
size_t gh_profstackdepth(const gh_profile *p);

/* ---- sample columns ---------------------------------------------------- */

/*
 * The column -s selects (`sample_index`, enum goheap_sample_index) with
 * what computing its values needs, decided once per profile.  Columns:
 * heap/allocs 0..3 = alloc_objects, alloc_space, inuse_objects,
 * inuse_space (the proto's order); block/mutex 0 = contentions, 1 = delay
 * (pprof's default, the last); goroutine 0 = goroutine.
 */
typedef struct gh_sampler {
	const gh_profile *p;
	int col;
	const char *name, *unit;  /* the pprof sample type */
	int heap;                 /* heap or allocs */
	int scale_mutex;          /* before 1.20: pprof.go's scaleMutexProfile
	                             multiplies by the sampling period */
	double cpu_ghz;           /* float64(cyclesPerSecond) / 1e9 */
	int f2i;                  /* enum gh_f2i_rule of the target */
	int exp;                  /* heap: enum gh_goexp_impl of the target */
} gh_sampler;

/* 0, or GOHEAP_EINVAL when the index does not apply to p->kind. */
int gh_sampler_init(gh_sampler *s, const gh_profile *p, int sample_index);
/* Column s->col of r as the proto holds it (heap values scaled). */
int64_t gh_sampler_value(const gh_sampler *s, const gh_record *r);
/* printCountCycleProfile's values of a block/mutex record:
 * out[0] contentions, out[1] delay in nanoseconds. */
void gh_sampler_cycle_values(const gh_sampler *s, const gh_record *r,
			     int64_t out[2]);

/* One-shot forms of the above (kept for callers that hold no sampler). */
int gh_sample_resolve(const gh_profile *p, int sample_index, int *out_col,
		      const char **name, const char **unit);
int64_t gh_sample_value(const gh_profile *p, const gh_record *r, int col);

/* ---- record order -------------------------------------------------------- */

/*
 * The order runtime/pprof writes a heap/allocs or block/mutex profile's
 * records in at debug=1 (and, for block/mutex, at debug=0: the same
 * sorted slice feeds printCountCycleProfile): indices into p->recs, sorted
 * with the target version's sort.Slice or slices.SortFunc port
 * (gosort.c), unstable ties included.  NULL on ENOMEM; free() it.
 */
size_t *gh_record_order(const gh_profile *p);

/* ---- stack expansion ------------------------------------------------- */

/*
 * A per-PC cache of symbolized frames for one target version, so that a
 * profile with 100k records symbolizes each distinct PC once.  Frame
 * strings are owned by the gh_sym, which must outlive the cache.
 */
typedef struct gh_stackx gh_stackx;

enum gh_stackx_mode {
	/* runtime.CallersFrames(pcs) as the target's Go version runs it. */
	GH_STACKX_CALLERS = 0,
	/* As profileBuilder.appendLocsForStack sees it: also expand the
	 * inlined callers of the last PC (runtime_expandFinalInlineFrame). */
	GH_STACKX_PROTO = 1,
};

int gh_stackx_new(gh_stackx **out, const gh_sym *sym, gh_gover ver);
void gh_stackx_free(gh_stackx *x);
/* Suspect frames (gh_frame.suspect) the cache has symbolized. */
size_t gh_stackx_suspect(const gh_stackx *x);
/* The frames of pcs[0..n), into out (reset first; caller frees with
 * gh_framevec_free).  PCs with no function give no frame, as in Go; a
 * PC in a function whose name is empty (damaged tables) gives a frame
 * with Function "", as Go's does. */
int gh_stackx_frames(gh_stackx *x, const uint64_t *pcs, size_t n, int mode,
		     gh_framevec *out);
/* protomem.go's hideRuntime: index of the first PC whose FuncForPC name
 * is not a runtime one (0 if every PC is). */
size_t gh_stackx_skip_runtime(gh_stackx *x, const uint64_t *pcs, size_t n);
/* The version's hidden-runtime prefix test ("runtime.", and from 1.24
 * "internal/runtime/"). */
int gh_stackx_is_runtime(const gh_stackx *x, const char *name);
/*
 * expandInlinedFrames (pprof.go, 1.23+): f.PC+1 for each frame of
 * CallersFrames(pcs), at most `depth` of them, into dst (room for depth,
 * depth >= 1).  With no frame at all Go still stores one: the zero
 * Frame's PC+1, i.e. 1.  Returns 0 or GOHEAP_ENOMEM; *ndst the count.
 */
int gh_stackx_expand_inlined(gh_stackx *x, const uint64_t *pcs, size_t n,
			     size_t depth, uint64_t *dst, size_t *ndst);
/*
 * The frames of record r as runtime/pprof's proto writer would emit them
 * (writeHeapProto / printCountCycleProfile): Stack() truncation before
 * 1.23, leading runtime frames hidden for heap, inline expansion.
 */
int gh_stackx_sample_frames(gh_stackx *x, const gh_profile *p,
			    const gh_record *r, gh_framevec *out);

/* Record.Stack() of Go <= 1.22: Stack0 (32) up to the first zero PC;
 * the whole stack from 1.23. */
size_t gh_record_stack_len(const gh_profile *p, const gh_record *r);

/* ---- folded stacks ------------------------------------------------------ */

/*
 * Append fv's frames (leaf first) to b root first, joined by ';', as
 * flame graph tools read them: runtime.goexit, the useless root of every
 * goroutine, left out, and a ';' inside a name (generic instantiations:
 * "struct { a int; b int }") written as ','.  Returns the number of
 * frames written; b->oom says whether all fitted.
 */
size_t gh_folded_append(gh_buf *b, const gh_framevec *fv);

#endif

/*
 * goheap.h - the public interface of libgoheap.
 *
 * libgoheap reads the profiles that the Go runtime keeps in a target
 * program's memory (heap, allocs, block, mutex, goroutine) and the heap's
 * objects by type, from outside that program, and writes them in the
 * formats runtime/pprof would have written inside it.
 *
 * A session is opened on a target (a live PID, a core file, or any memory
 * source you implement), a profile is collected from it, and the profile is
 * written in one of several formats.  Every function that can fail returns 0
 * or a negative GOHEAP_E* code; the detailed message is kept on the session
 * and read with goheap_errmsg().  The library never prints and never exits.
 *
 * Ownership: everything returned through an `out` parameter is owned by the
 * caller and freed with the matching goheap_*_free / goheap_close, all of
 * which accept NULL.  Strings returned by accessor functions stay valid until
 * the object they came from is freed.
 *
 * Threads: the library has no global mutable state, so different sessions
 * may be used from different threads at the same time.  One session, and
 * the calls that take it (collect, write, force, describe, errmsg), must not
 * be used from two threads at once: it holds the last error message and a
 * cache of the target's memory.  A profile is never modified after it is
 * collected: goheap_profile_nrecords/record/stats_get/delta may read one
 * profile from several threads at once.
 *
 * Structures: an input structure (goheap_options, goheap_write_options,
 * goheap_memsrc_ops) starts with its version and an output structure the
 * caller allocates (goheap_record, goheap_profile_stats, goheap_write_stats,
 * goheap_force_result, goheap_command_result) with its size: start each
 * from its GOHEAP_*_INIT.  The library refuses (GOHEAP_EINVAL) a version it
 * does not know or a size smaller than its first release's, and never
 * writes past the size given or into fields it does not know (they keep
 * what the caller set: zero from the INIT macro), so a program built
 * against another release's header keeps working with this library.
 */
#ifndef GOHEAP_H
#define GOHEAP_H

#include <stddef.h>
#include <stdint.h>

/* The version of this header; goheap_version() is the library's. */
#define GOHEAP_VERSION_MAJOR 0
#define GOHEAP_VERSION_MINOR 1
#define GOHEAP_VERSION_PATCH 0
#define GOHEAP_VERSION_STRING "0.1.0"
#define GOHEAP_VERSION_NUMBER \
	(GOHEAP_VERSION_MAJOR * 10000 + GOHEAP_VERSION_MINOR * 100 + \
	 GOHEAP_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GOHEAP_BUILDING_LIBRARY) && defined(__GNUC__)
#define GOHEAP_EXTERN __attribute__((visibility("default")))
#else
#define GOHEAP_EXTERN
#endif

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * The error codes.  X(name, value, fixed message).  goheap_strerror() maps a
 * code to its fixed message; goheap_errmsg() gives the detailed one.
 */
#define GOHEAP_ERRORS(X)                                                      \
	X(OK, 0, "success")                                                   \
	X(ENOMEM, -1, "out of memory")                                        \
	X(EINVAL, -2, "invalid argument")                                     \
	X(EIO, -3, "I/O error")                                               \
	X(EUNMAPPED, -4, "address not mapped in the target")                  \
	X(ENOTGO, -5, "not a Go program")                                     \
	X(ENOSYM, -6, "required runtime symbol not found")                    \
	X(EVERSION, -7, "unsupported Go version or runtime layout")           \
	X(ECORRUPT, -8, "corrupt or inconsistent data")                       \
	X(EPERM, -9, "permission denied")                                     \
	X(ENOPROC, -10, "no such process")                                    \
	X(EDISABLED, -11, "memory profiling is disabled in the target")      \
	X(EUNSUPPORTED, -12, "operation not supported by this target")        \
	X(ELIMIT, -13, "a safety limit was exceeded")                         \
	X(ENOEXE, -14, "executable not found")                                \
	X(EBUSY, -15, "target busy")                                          \
	X(ETIMEDOUT, -16, "time limit exceeded")                              \
	X(EMISMATCH, -17, "the profiles come from different processes")

enum goheap_error {
#define GOHEAP_X_ENUM(name, value, msg) GOHEAP_##name = (value),
	GOHEAP_ERRORS(GOHEAP_X_ENUM)
#undef GOHEAP_X_ENUM
};

/* The fixed message of an error code; never NULL, static storage. */
GOHEAP_EXTERN const char *goheap_strerror(int code);

/* ---------------------------------------------------------------------- */
/* Memory sources (for people implementing a backend)                     */
/* ---------------------------------------------------------------------- */

/* One mapping of the target's address space, as /proc/PID/maps shows it. */
typedef struct goheap_mapping {
	uint64_t start;     /* first address */
	uint64_t end;       /* one past the last address */
	uint64_t offset;    /* file offset of start */
	uint64_t inode;     /* 0 for anonymous mappings */
	char perms[5];      /* "r-xp" and NUL */
	const char *path;   /* file, "[vdso]", or "" (valid during the callback) */
	/*
	 * A path this process can open to read the mapped file (for a live
	 * target "/proc/PID/map_files/START-END", for a core the recorded
	 * path under --sysroot), or NULL to use `path`.
	 */
	const char *open_path;
} goheap_mapping;

/* Called once per mapping, in address order; a non-zero return stops. */
typedef int (*goheap_mapping_cb)(const goheap_mapping *m, void *payload);

/* Byte order and word size of the target (not of the host). */
typedef struct goheap_target_info {
	unsigned ptr_size;  /* 4 or 8 */
	int big_endian;     /* 0 or 1 */
	unsigned machine;   /* ELF e_machine of the target, EM_NONE if unknown */
} goheap_target_info;

/*
 * One thread's call stack, innermost first (return PCs after the first),
 * for the force-mode safety check; valid during the callback.
 */
typedef int (*goheap_stack_cb)(int tid, const uint64_t *pcs, size_t n,
			       void *payload);

/*
 * Version 1 tables end after `close`; version 2 adds stop, resume and
 * thread_stacks (force mode).  The library reads the slots of the version
 * the table declares, so version-1 tables built by older callers (for
 * example through ctypes) keep working.
 */
#define GOHEAP_MEMSRC_OPS_VERSION 2

/*
 * A memory source: a table of functions and an opaque context, in the manner
 * of libunwind's accessors.  The walker and symbolizer read everything
 * through it and never ask which kind of backend it is.  Tables are
 * read-only statics; state lives in `ctx`.
 */
typedef struct goheap_memsrc_ops {
	/* GOHEAP_MEMSRC_OPS_VERSION; the library refuses other values. */
	unsigned version;

	/*
	 * Read exactly `len` bytes at target address `addr` into `buf`
	 * (caller-owned).  Required.  Returns 0 when every byte was read;
	 * GOHEAP_EUNMAPPED when any part is not mapped (or, for cores, not
	 * dumped: never zero-fill); GOHEAP_EIO, GOHEAP_EPERM, GOHEAP_ENOPROC
	 * for other failures.  May be called many times; the library batches
	 * and caches, so backends need not.
	 */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);

	/*
	 * Enumerate the target's mappings in address order.  Required.  The
	 * mapping and its path are valid only during the callback.  Returns 0,
	 * or a GOHEAP_E* code; a non-zero callback return is passed through.
	 */
	int (*mappings)(void *ctx, goheap_mapping_cb cb, void *payload);

	/*
	 * Write the NUL-terminated path of a file from which the target's main
	 * executable can be opened by this process into buf[0..len).
	 * Required.  GOHEAP_ENOEXE when unknown, GOHEAP_EINVAL if too long.
	 */
	int (*executable)(void *ctx, char *buf, size_t len);

	/*
	 * Describe the target's word size and byte order.  May be NULL: the
	 * executable's ELF header is used then.
	 */
	int (*target_info)(void *ctx, goheap_target_info *out);

	/*
	 * Write `len` bytes at `addr`.  May be NULL (read-only source, as a
	 * core).  Called only in force mode, with every thread stopped by the
	 * backend.  Returns 0 or a GOHEAP_E* code.
	 */
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);

	/*
	 * Describe the source for the summary ("live process 1234", "core
	 * file core.1 (signal 6)") into buf.  May be NULL.
	 */
	int (*describe)(void *ctx, char *buf, size_t len);

	/* Release ctx.  May be NULL.  Called exactly once, by goheap_close. */
	void (*close)(void *ctx);

	/* ---- version 2 ---- */

	/*
	 * Stop every thread of the target so that checks and a write see a
	 * still state (force mode).  May be NULL: the target is already
	 * stopped (a debugger's inferior).  After a successful stop, resume
	 * is always called exactly once, on every path.
	 */
	int (*stop)(void *ctx);

	/* Resume every thread that stop stopped.  NULL iff stop is NULL. */
	int (*resume)(void *ctx);

	/*
	 * While stopped: call cb once per thread with its call stack.  May be
	 * NULL, in which case force mode cannot check for a safe point and
	 * refuses unless told otherwise.
	 */
	int (*thread_stacks)(void *ctx, goheap_stack_cb cb, void *payload);
} goheap_memsrc_ops;

#define GOHEAP_MEMSRC_OPS_INIT \
	{ GOHEAP_MEMSRC_OPS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* ---------------------------------------------------------------------- */
/* Sessions                                                               */
/* ---------------------------------------------------------------------- */

typedef struct goheap_session goheap_session;

/* 2 adds no_stop, 3 no_traceback; older tables are still accepted (the
 * fields they lack are 0). */
#define GOHEAP_OPTIONS_VERSION 3

/* Options for opening a session.  Start from GOHEAP_OPTIONS_INIT. */
typedef struct goheap_options {
	unsigned version;        /* GOHEAP_OPTIONS_VERSION */
	const char *exe;         /* executable override, or NULL */
	const char *sysroot;     /* prefix for paths recorded in a core, or NULL */
	int reserved;            /* must be 0 (was `verbose`, never read) */
	/*
	 * Goroutine and types profiles of a source with a stop slot (a live
	 * process): 0 (default) reads every goroutine (span) while the target
	 * runs, then stops it briefly (ptrace, as force mode) to re-read what
	 * can have changed, for a consistent snapshot; 1 never stops it
	 * (best-effort, marked in the output's comment line).  Sources without a stop slot (cores, a
	 * debugger's stopped inferior) are never stopped.
	 */
	int no_stop;
	/*
	 * Goroutine profiles: 0 (default) also collects what
	 * GOHEAP_FORMAT_TRACEBACK and GOHEAP_FORMAT_LIST print (every
	 * goroutine's whole stack unwound a second time, each frame's
	 * argument words); 1 skips it (about half of the walk), for callers
	 * that will not write those formats: writing them from such a
	 * profile is refused (GOHEAP_EINVAL).
	 */
	int no_traceback;
} goheap_options;

#define GOHEAP_OPTIONS_INIT { GOHEAP_OPTIONS_VERSION, NULL, NULL, 0, 0, 0 }

/*
 * Is the ELF file at `path` a Go program (a .go.buildinfo or .gopclntab
 * section: every go1.13+ binary, stripped ones too)?  1, 0, or a negative
 * GOHEAP_E* code when it cannot be read.  Only the section headers are
 * read, so it is cheap enough to scan every process of a host with
 * (/proc/PID/exe); goheap_open_* does the full check.
 */
GOHEAP_EXTERN int goheap_is_go_executable(const char *path);

/*
 * Open a session on the live process `pid`.  *out is set even on failure
 * (unless the failure is GOHEAP_ENOMEM) so that goheap_errmsg() can explain;
 * the caller always calls goheap_close(*out).
 */
GOHEAP_EXTERN int goheap_open_pid(goheap_session **out, int pid,
				  const goheap_options *opts);

/*
 * Open a session on an ELF core file, with an optional executable path.
 * *out is set even on failure, as for goheap_open_pid.
 */
GOHEAP_EXTERN int goheap_open_core(goheap_session **out, const char *core,
				   const char *exe,
				   const goheap_options *opts);

/*
 * Open a session on a caller-supplied memory source.  The session owns ctx
 * from then on: ops->close(ctx) is called by goheap_close, also when this
 * function fails.  `ops` must outlive the session.  *out is set even on
 * failure, as for goheap_open_pid.
 */
GOHEAP_EXTERN int goheap_open_memsrc(goheap_session **out,
				     const goheap_memsrc_ops *ops, void *ctx,
				     const goheap_options *opts);

/* Close a session; NULL is allowed. */
GOHEAP_EXTERN void goheap_close(goheap_session *s);

/*
 * The detailed message of the last error on this session, e.g.
 * "reading runtime.mbuckets at 0x561200: address not mapped".  Valid until
 * the next call on the session.  Never NULL.
 */
GOHEAP_EXTERN const char *goheap_errmsg(const goheap_session *s);

/*
 * Several lines on what the session found: target, executable, Go version
 * (and whether inferred), load bias, runtime globals and how they were
 * located.  Valid until the next call on the session.
 */
GOHEAP_EXTERN const char *goheap_describe(goheap_session *s);

/* The Go version of the target, e.g. "go1.22.12"; "" if unknown. */
GOHEAP_EXTERN const char *goheap_go_version(const goheap_session *s);

/* ---------------------------------------------------------------------- */
/* Profiles                                                               */
/* ---------------------------------------------------------------------- */

enum goheap_profile_kind {
	GOHEAP_PROFILE_HEAP = 0,
	GOHEAP_PROFILE_ALLOCS = 1,
	GOHEAP_PROFILE_BLOCK = 2,
	GOHEAP_PROFILE_MUTEX = 3,
	GOHEAP_PROFILE_GOROUTINE = 4, /* pprof.Lookup("goroutine"): live
	                                 amd64, cores of amd64 and arm64,
	                                 stripped or not (doc/goroutines.md) */
	GOHEAP_PROFILE_TYPES = 5,     /* every allocated heap object by type
	                                 (src/lib/heap/heapwalk.h) */
	GOHEAP_PROFILE_MEMSTATS = 6,  /* runtime.MemStats as ReadMemStats
	                                 computes it: the heap?debug=1
	                                 trailer (src/lib/heap/memstats.h) */
	GOHEAP_PROFILE_RETAINED = 7,  /* who holds the heap: reachability
	                                 and retained size from the roots
	                                 (src/lib/retained/retained.h) */
	GOHEAP_PROFILE_GOROUTINELEAK = 8, /* pprof.Lookup("goroutineleak"):
	                                 goroutines blocked forever, by the
	                                 runtime's own algorithm on the
	                                 object graph (doc/goroutineleak.md);
	                                 written as a goroutine profile */
};

enum goheap_format {
	GOHEAP_FORMAT_PPROF = 0,     /* gzip'd profile.proto */
	GOHEAP_FORMAT_TEXT = 1,      /* Go's debug=1 text */
	GOHEAP_FORMAT_TOP = 2,       /* summary and top table */
	GOHEAP_FORMAT_COLLAPSED = 3, /* folded stacks */
	GOHEAP_FORMAT_TRACEBACK = 4, /* goroutines: debug=2 (runtime.Stack) */
	GOHEAP_FORMAT_LIST = 5,      /* goroutines: one line each (gdb's
	                                `info goroutines`) */
	GOHEAP_FORMAT_OBJECTS = 6,   /* types: one line per object (address,
	                                size, type address, type) */
	GOHEAP_FORMAT_JSON = 7,      /* memstats: runtime.MemStats as Go's
	                                encoding/json writes it */
};

enum goheap_sample_index {
	GOHEAP_SAMPLE_DEFAULT = -1,  /* inuse_space for heap, alloc_space for allocs */
	GOHEAP_SAMPLE_ALLOC_OBJECTS = 0,
	GOHEAP_SAMPLE_ALLOC_SPACE = 1,
	GOHEAP_SAMPLE_INUSE_OBJECTS = 2,
	GOHEAP_SAMPLE_INUSE_SPACE = 3,
};

/* The sample indexes of block and mutex profiles (default: delay). */
enum goheap_block_sample_index {
	GOHEAP_SAMPLE_CONTENTIONS = 16,
	GOHEAP_SAMPLE_DELAY = 17,
};

/* runtime.MemProfileRate's default, one sample per 512 KiB allocated. */
#define GOHEAP_DEFAULT_MEM_PROFILE_RATE 524288

typedef struct goheap_profile goheap_profile;

/*
 * Collect a profile of kind `kind` from the session's target, without
 * writing to it.  Returns GOHEAP_EDISABLED when MemProfileRate is 0 and
 * either nothing was recorded or the program's linker disabled the profile
 * (the CLI's exit 3).  A block or mutex collection may sleep about 10 ms:
 * when the target's runtime has not computed its cycles/second yet (or it
 * cannot be located), the library measures the host's tick rate, which is
 * the target's (goheap_profile_stats.cycles_estimated says so).
 * A goroutine or types profile of a source with a stop slot (a live
 * process) stops the target once, briefly, after reading it running (unless
 * goheap_options.no_stop): the stop of goheap_force, with the same
 * conditions (the calling thread is the tracer for its length; see
 * there); goheap_profile_stats.snapshot and stop_* report it (for types,
 * stop_rewalked/stop_checked count spans).  A types profile has no
 * records (goheap_profile_nrecords is 0): it is read through
 * goheap_profile_write's formats.
 */
GOHEAP_EXTERN int goheap_profile_collect(goheap_profile **out,
					 goheap_session *s, int kind);

/* goheap_profile_collect_flags' flags */
enum goheap_collect_flag {
	/* heap and allocs: also record the target's runtime.MemStats in the
	 * profile (as -p memstats reads them: the brief stop unless
	 * no_stop), which GOHEAP_FORMAT_TEXT ends with as heap?debug=1's
	 * "# runtime.MemStats" trailer, as Go's handler calls ReadMemStats
	 * when it writes.  Without it the text has no trailer: writing never
	 * reads the target.  Best-effort: MemStats that cannot be read leave
	 * the trailer out, the profile is collected all the same. */
	GOHEAP_COLLECT_MEMSTATS = 1
};

/* goheap_profile_collect with GOHEAP_COLLECT_* flags (0: the same). */
GOHEAP_EXTERN int goheap_profile_collect_flags(goheap_profile **out,
					       goheap_session *s, int kind,
					       unsigned flags);

/* Free a profile; NULL is allowed. */
GOHEAP_EXTERN void goheap_profile_free(goheap_profile *p);

/*
 * Bound every later goheap_profile_collect on s to `seconds` (0, the
 * default: no bound): once that much time has passed, its next read of
 * the target fails and the collection returns GOHEAP_ETIMEDOUT, having
 * changed nothing.  Reads are checked, not the CPU work between them, so
 * a slow or stalled memory source stops within one read.  Only collection
 * is bounded: goheap_open_* (bounded by the library's own safety limits
 * on what it reads), goheap_profile_write and goheap_force are not.
 */
GOHEAP_EXTERN int goheap_set_time_limit(goheap_session *s, double seconds);

/*
 * Change goheap_options.no_stop for the later collections on s (1: never
 * stop the target, numbers best-effort; 0: the brief stop where one is
 * needed).  0, or GOHEAP_EINVAL.
 */
GOHEAP_EXTERN int goheap_set_no_stop(goheap_session *s, int no_stop);

/* Its kind (enum goheap_profile_kind). */
GOHEAP_EXTERN int goheap_profile_kind(const goheap_profile *p);

/*
 * One record of a profile: a runtime.MemProfileRecord (heap, allocs) or a
 * BlockProfileRecord (block, mutex), as the target's own runtime would
 * return it: counters not yet scaled by the sampling rate.  `id` is the
 * address of the runtime's bucket, which keeps its stack for the life of
 * the process, so two collections from one process match record by id.
 */
typedef struct goheap_record {
	size_t size;            /* sizeof(goheap_record): GOHEAP_RECORD_INIT */
	uint64_t id;
	int64_t alloc_objects, alloc_bytes;   /* heap, allocs */
	int64_t free_objects, free_bytes;
	int64_t count, cycles;                /* block, mutex */
	const uint64_t *stack;  /* PCs as the runtime stored them, innermost
	                           first; owned by the profile */
	size_t nstack;
} goheap_record;

#define GOHEAP_RECORD_INIT { .size = sizeof(goheap_record) }

/* Number of records; record i (0 <= i < that) into *out. */
GOHEAP_EXTERN size_t goheap_profile_nrecords(const goheap_profile *p);
GOHEAP_EXTERN int goheap_profile_record(const goheap_profile *p, size_t i,
					goheap_record *out);

/*
 * What happened between two collections of one kind from one process:
 * *out is `cur` with each record's counters minus those of the record of
 * `base` with the same id, records that did not change left out, and a
 * duration of cur's collection time minus base's (net/http/pprof's
 * ?seconds=N, which merges cur with base scaled by -1).  *out owns its
 * memory; free it with goheap_profile_free.  GOHEAP_EINVAL if the kinds
 * differ or base was collected after cur.
 */
/* (Each profile of a live process carries the process's identity, its PID
 * and start time: goheap_profile_delta refuses two profiles of different
 * processes with GOHEAP_EMISMATCH, a recycled PID included, and
 * goheap_profile_write refuses a profile from another process than the
 * session's, whose executable would symbolize it wrongly.) */
GOHEAP_EXTERN int goheap_profile_delta(goheap_profile **out,
				       const goheap_profile *cur,
				       const goheap_profile *base);

/* Summary figures of a collected profile. */
typedef struct goheap_profile_stats {
	size_t size;               /* sizeof(goheap_profile_stats) */
	uint64_t records;          /* records in the profile */
	int64_t mem_profile_rate;  /* runtime.MemProfileRate at collection */
	int64_t inuse_objects, inuse_bytes, alloc_objects, alloc_bytes;
	double read_seconds;       /* in the memory source's read calls */
	double walk_seconds;       /* decoding and emulating, reads excluded */
	uint64_t read_calls;       /* memory source read calls */
	uint64_t read_bytes;       /* bytes those calls moved */
	uint64_t bucket_bytes;     /* bytes of the buckets themselves */
	/* block/mutex: runtime_cyclesPerSecond as written, and whether it is
	 * go-heap's estimate (the runtime had not computed it yet, or
	 * runtime.ticks could not be located) rather than the target's own */
	double cycles_per_second;
	int cycles_estimated;
	/* mutex: runtime.mutexprofilerate could not be read (taken as 1) */
	int period_unknown;
	/* buckets left out of the profile as implausible (counts, sizes or
	 * PCs no runtime produces: a damaged core, a torn read of a live
	 * process), and the first one found: its address and the reason */
	uint64_t skipped_buckets;
	uint64_t first_skipped_bucket;
	char first_skipped_reason[160];
	/* goroutine profiles: 1 the target was stopped for the snapshot
	 * (goheap_options.no_stop), 2 not (no_stop: best-effort), 0 no stop
	 * was needed (a core, a debugger's stopped inferior); the stop, as
	 * the target felt it (CLOCK_MONOTONIC seconds, first thread
	 * interrupted .. last detached), threads stopped, goroutines re-read
	 * while stopped and goroutines checked */
	int snapshot;
	double stop_seconds, stop_begin, stop_end;
	uint64_t stop_threads, stop_rewalked, stop_checked;
	/*
	 * Added after the first release (written only when size covers
	 * them).  The warnings the figures above call for, worded as go-heap
	 * prints them after "warning: ", "" when there is none:
	 * skipped_warning: skipped_buckets > 0, one line naming the first
	 *   bucket (its address and reason); the profile is incomplete, so
	 *   go-heap prints it even with -q;
	 * skipped_warning_brief: the same line without the first bucket,
	 *   pointing to go-heap's -v instead (go-heap without -v);
	 * estimate_warnings: block and mutex profiles, the figures go-heap
	 *   had to estimate (cycles/second, the mutex sampling period): one
	 *   line each, '\n' between them, no final newline; go-heap -q
	 *   leaves them out.
	 */
	char skipped_warning[512];
	char skipped_warning_brief[256];
	char estimate_warnings[512];
} goheap_profile_stats;

#define GOHEAP_PROFILE_STATS_INIT { .size = sizeof(goheap_profile_stats) }

GOHEAP_EXTERN int goheap_profile_stats_get(const goheap_profile *p,
					   goheap_profile_stats *out);

/*
 * The numbers of client_golang's Go collector (v1.14, the one Debian 12
 * ships; prometheus/go_collector.go, go_collector_latest.go) for a
 * GOHEAP_PROFILE_MEMSTATS profile: go_memstats_* as memStatsFromRM
 * derives them from runtime/metrics (no mcache flush; Lookups 0; no
 * gc_cpu_fraction), go_gc_duration_seconds as debug.ReadGCStats' pause
 * quantiles, go_goroutines (runtime.NumGoroutine), go_threads
 * (runtime.ThreadCreateProfile), go_info's version.  doc/watch.md.
 */
typedef struct goheap_gometrics {
	uint64_t alloc, total_alloc, sys, lookups, mallocs, frees,
		 heap_alloc, heap_sys, heap_idle, heap_inuse, heap_released,
		 heap_objects, stack_inuse, stack_sys, mspan_inuse, mspan_sys,
		 mcache_inuse, mcache_sys, buckhash_sys, gc_sys, other_sys,
		 next_gc;
	uint64_t last_gc_unix_ns;   /* memstats.last_gc_unix (0: none yet) */
	uint64_t num_gc, pause_total_ns;
	/* quantiles 0, .25, .5, .75, 1 of the last min(NumGC, 256) pauses,
	 * ns: sorted[n*i/4], sorted[n-1] (all 0 before the first GC) */
	uint64_t pause_quantiles[5];
	int64_t goroutines, threads;   /* -1: not known (stripped binary) */
	char go_version[64];        /* runtime.Version() */
	/* 1 read stopped (consistent), 2 running (best-effort), 0 a core */
	int snapshot;
} goheap_gometrics;

/* 0, or GOHEAP_EINVAL when p is not a GOHEAP_PROFILE_MEMSTATS profile. */
GOHEAP_EXTERN int goheap_profile_gometrics(const goheap_profile *p,
					   goheap_gometrics *out);

/*
 * GOMEMLIMIT as the target's runtime holds it (runtime.gcController,
 * mgcpacer.go), read running (no stop: each word is the runtime's atomic,
 * the set is not one instant) from Go 1.19 on: the limit and what the
 * runtime counts against it (mappedReady: /memory/classes/total:bytes -
 * heap/released:bytes), and the part of that a GC cannot free, as
 * memoryLimitHeapGoal splits it: the heap marked live by the last GC
 * plus the non-heap memory (mappedReady - heapFree - heapAlloc, with
 * heapAlloc = totalAlloc - totalFree).  doc/watch.md.
 */
typedef struct goheap_memlimit {
	size_t size;               /* sizeof(goheap_memlimit) */
	int64_t limit;             /* gcController.memoryLimit: bytes;
	                              INT64_MAX when none is set */
	uint64_t mapped_ready;     /* gcController.mappedReady */
	uint64_t heap_marked;      /* gcController.heapMarked */
	uint64_t heap_alloc;       /* totalAlloc - totalFree */
	uint64_t heap_free;        /* gcController.heapFree */
	uint64_t nonheap;          /* mappedReady - heapFree - heapAlloc */
} goheap_memlimit;

#define GOHEAP_MEMLIMIT_INIT { .size = sizeof(goheap_memlimit) }

/* Fill *out (out->size set by the caller: GOHEAP_MEMLIMIT_INIT) from s's
 * target.  0, or GOHEAP_EINVAL, GOHEAP_EUNSUPPORTED (a release or word
 * size without the layout), GOHEAP_ENOSYM (runtime.gcController not
 * found), a read's error; goheap_errmsg says which. */
GOHEAP_EXTERN int goheap_memory_limit(goheap_session *s,
				      goheap_memlimit *out);

/* Time spent in the stages of goheap_profile_write, in seconds. */
typedef struct goheap_write_stats {
	size_t size;               /* sizeof(goheap_write_stats) */
	double symbolize_seconds;  /* pclntab lookups (pprof format) */
	double compress_seconds;   /* deflate (pprof format) */
	double total_seconds;      /* the whole write */
	/* frames whose symbolization cannot be trusted (a name offset or an
	 * inline record outside its table): printed, but the user must be
	 * told (the CLI warns on stderr) */
	uint64_t suspect_frames;
	/* CPU time of goheap_profile_collect_write's encoder thread, which
	 * runs beside the walk (0 when there was none) */
	double encode_thread_seconds;
	/* added after the first release (written only when size covers
	 * it): suspect_frames > 0 worded as go-heap's warning (one line, no
	 * "warning: " prefix), "" when there is none */
	char suspect_warning[256];
} goheap_write_stats;

#define GOHEAP_WRITE_STATS_INIT { .size = sizeof(goheap_write_stats) }

#define GOHEAP_WRITE_OPTIONS_VERSION 3

/*
 * Options for writing.  Start from GOHEAP_WRITE_OPTIONS_INIT; the library
 * refuses (GOHEAP_EINVAL) a version it does not know.  sample_index takes
 * enum goheap_sample_index for heap and allocs profiles and enum
 * goheap_block_sample_index for block and mutex ones.
 */
typedef struct goheap_write_options {
	unsigned version;        /* GOHEAP_WRITE_OPTIONS_VERSION */
	int format;              /* enum goheap_format */
	int sample_index;        /* enum goheap_sample_index, top/collapsed */
	int top_n;               /* rows of the top table, default 20 */
	goheap_write_stats *stats; /* optional: filled when not NULL */
	/* version 3 on: GOHEAP_PROFILE_RETAINED only, a shortest path from
	 * the roots to the object at this address ("0x...") or to the
	 * object of this type (or shape) that retains the most, as text,
	 * instead of the format; NULL: none */
	const char *path;
} goheap_write_options;

#define GOHEAP_WRITE_OPTIONS_INIT \
	{ GOHEAP_WRITE_OPTIONS_VERSION, GOHEAP_FORMAT_TOP, \
	  GOHEAP_SAMPLE_DEFAULT, 20, NULL, NULL }

/*
 * Write the profile in the chosen format into a newly allocated buffer.
 * *out_buf is freed with goheap_free().  The session must still be open
 * (symbolization reads its executable).
 */
GOHEAP_EXTERN int goheap_profile_write(goheap_session *s,
				       const goheap_profile *p,
				       const goheap_write_options *wo,
				       unsigned char **out_buf,
				       size_t *out_len);

/*
 * What keeps growing (growth.c): -p types or -p retained over snapshots of
 * one live process.  goheap_growth_add keeps only a collected profile's
 * rows (-p types: per type or shape; -p retained: per dominator path, as
 * their pprof samples), so the profile can be freed at once;
 * goheap_growth_write writes the last snapshot minus the first (negative
 * allowed, as go tool pprof -diff_base) as top, text, collapsed or pprof
 * with the single profile's sample types, rows sorted by growth (bytes;
 * retained bytes for -p retained), the snapshots' times in the header,
 * and with 3 or more snapshots a row that grew in every interval marked a
 * leak suspect ('!', pprof label leak_suspect=1).  The caller takes the
 * snapshots (goheap_profile_collect, at its own pace: the CLI sleeps,
 * go-heap watch schedules them); goheap_growth_add refuses a profile of
 * another kind or process (GOHEAP_EMISMATCH) or older than the last.
 * Errors: goheap_growth_errmsg.
 */
typedef struct goheap_growth goheap_growth;
GOHEAP_EXTERN int goheap_growth_new(goheap_growth **out, int kind);
GOHEAP_EXTERN int goheap_growth_add(goheap_growth *g,
				    const goheap_profile *p);
GOHEAP_EXTERN size_t goheap_growth_snapshots(const goheap_growth *g);
GOHEAP_EXTERN int goheap_growth_write(const goheap_growth *g,
				      const goheap_write_options *wo,
				      unsigned char **out_buf,
				      size_t *out_len);
GOHEAP_EXTERN const char *goheap_growth_errmsg(const goheap_growth *g);
/*
 * The last snapshot's rows, in no order (go-heap watch's top-K series):
 * -p types one per type or shape (name: the type's, or the shape for an
 * untyped row; shape: the slot's; a type in several size classes is
 * several rows), -p retained one per root (name: the root's frame, as
 * pprof shows it, shape NULL; objects and bytes: what the root
 * dominates, the sum of its dominator paths).  name and shape belong to
 * g and are valid during the call only.  A non-zero return of fn stops
 * the walk and is returned; 0 once every row was handed out (none before
 * the first snapshot), GOHEAP_EINVAL when g or fn is NULL.
 */
typedef int (*goheap_growth_row_fn)(const char *name, const char *shape,
				    int64_t objects, int64_t bytes,
				    void *payload);
GOHEAP_EXTERN int goheap_growth_rows(const goheap_growth *g,
				     goheap_growth_row_fn fn, void *payload);
GOHEAP_EXTERN void goheap_growth_free(goheap_growth *g);

/*
 * goheap_profile_collect then goheap_profile_write in one call, for a
 * caller that wants the bytes and not the records: the same output
 * (TimeNanos aside) and the same errors, with the profile's summary in
 * *stats (may be NULL).  Faster where the format allows it: a heap or
 * allocs profile written as pprof is encoded on a second thread while
 * the walker reads the target, and its records are not kept (memory
 * stays flat in the number of buckets once a GC has completed).  The
 * other kinds and formats are collected, then written.  Like
 * goheap_profile_collect, it runs the memory source's reads on the
 * calling thread only; the encoder thread starts with every signal
 * blocked and is joined before the call returns.
 */
GOHEAP_EXTERN int goheap_profile_collect_write(goheap_session *s, int kind,
					       const goheap_write_options *wo,
					       unsigned char **out_buf,
					       size_t *out_len,
					       goheap_profile_stats *stats);

/* ---------------------------------------------------------------------- */
/* Force mode                                                             */
/* ---------------------------------------------------------------------- */

/* What goheap_force did. */
typedef struct goheap_force_result {
	size_t size;             /* sizeof(goheap_force_result) */
	int64_t old_rate;        /* MemProfileRate before */
	int64_t new_rate;        /* after (read back), or what would be written */
	uint64_t address;        /* of runtime.MemProfileRate in the target */
	int changed;             /* 1 if written */
	int retries;             /* stops retried because a thread was unsafe */
	int threads;             /* threads stopped */
	double stop_seconds;     /* longest time the target was stopped */
	double stop_begin;       /* that stop, CLOCK_MONOTONIC seconds: first */
	double stop_end;         /* thread stopped .. last thread resumed */
	/* added after the first release (written only when size covers
	 * it): what was done, one line as go-heap --force prints it (no
	 * newline); "" when goheap_force failed (goheap_errmsg says why) */
	char message[256];
} goheap_force_result;

#define GOHEAP_FORCE_RESULT_INIT { .size = sizeof(goheap_force_result) }

#define GOHEAP_FORCE_DRY_RUN 1u

/*
 * Enable heap profiling: if runtime.MemProfileRate is 0, stop the target
 * briefly, check every thread is outside the allocation-sampling path,
 * write `rate`, read it back and resume.  A non-zero rate is left alone
 * (changed = 0).  With GOHEAP_FORCE_DRY_RUN nothing is written.
 *
 * What it does to the caller, for a live target (goheap_open_pid): the
 * calling thread becomes the ptrace tracer of every thread of the target
 * for the length of the stop (PTRACE_SEIZE/INTERRUPT, then waitpid on each
 * thread with __WALL; every one is detached before returning, on every
 * path), so the caller must not be ptracing the target itself nor reaping
 * its own children with waitpid(-1, ...) from another thread meanwhile.
 * The calling thread switches itself to SCHED_FIFO during the stop when it
 * may (restored before returning; GOHEAP_STOP_NO_RT=1 in the environment
 * disables it).  Signals: nothing is installed; a SIGTERM or SIGINT that
 * should not interrupt the stop is the caller's to block around the call
 * (the CLI does, so that a killed go-heap never leaves a target stopped:
 * the kernel detaches a dead tracer's tracees).
 *
 * Memory sources: with stop == NULL the target is taken as already
 * stopped (a debugger's inferior); the stacks are then checked if
 * thread_stacks is set, and the write is made without a check if it is
 * NULL (the debugger's user sees where the threads are).  With a stop
 * slot, thread_stacks == NULL (or resume == NULL) is refused with
 * GOHEAP_EUNSUPPORTED: no write without the safe-point check.
 */
GOHEAP_EXTERN int goheap_force(goheap_session *s, int64_t rate,
			       unsigned flags, goheap_force_result *out);

/* ---------------------------------------------------------------------- */
/* Front ends                                                             */
/* ---------------------------------------------------------------------- */

/*
 * The command line's options that a front end holding a session accepts
 * (the gdb command), from the CLI's own option table: one line per option,
 * "long<TAB>letter<TAB>ARG<TAB>values<TAB>help\n", where letter is "-" for
 * a long-only option, ARG is empty for an option without an argument, and
 * values lists the accepted words separated by '|' (empty: any).  Front
 * ends generate their help and completion from it.  0, or GOHEAP_EINVAL
 * when buf (4 KiB is ample) is too small.
 */
GOHEAP_EXTERN int goheap_command_options(char *buf, size_t len);

/* What goheap_command produced. */
typedef struct goheap_command_result {
	size_t size;           /* sizeof(goheap_command_result) */
	unsigned char *out;    /* the profile's bytes (goheap_free), or NULL
	                          (after --force alone) */
	size_t out_len;
	int format;            /* enum goheap_format of out */
	const char *output;    /* -o FILE as given (points into argv): write
	                          out there; NULL: show it */
	int quiet, verbose;    /* -q, -v as given: the front end's to honour */
	char message[512];     /* one line: what --force did, or the error */
	char warnings[1024];   /* "warning: ..." lines, or "" */
} goheap_command_result;

#define GOHEAP_COMMAND_RESULT_INIT { .size = sizeof(goheap_command_result) }

/*
 * Run the go-heap command line's options (-o -f -p -s -n -q -v --force
 * --dry-run: goheap_command_options) on an open session: force if asked,
 * collect and format the profile.  argv[0..argc) holds options only (no
 * program name, no target).  Nothing is printed and no file is written:
 * the front end shows r->out or writes it to r->output, and prints
 * r->message and r->warnings (unless r->quiet).  Returns 0, or a GOHEAP_E*
 * code with r->message set: GOHEAP_EINVAL for a usage error,
 * GOHEAP_EDISABLED when profiling is off in the target (see --force).
 */
GOHEAP_EXTERN int goheap_command(goheap_session *s, int argc, char **argv,
				 goheap_command_result *r);

/* Free memory returned by the library; NULL is allowed. */
GOHEAP_EXTERN void goheap_free(void *ptr);

/* The library's version string, e.g. "0.1.0". */
GOHEAP_EXTERN const char *goheap_version(void);

#ifdef __cplusplus
}
#endif
#endif /* GOHEAP_H */

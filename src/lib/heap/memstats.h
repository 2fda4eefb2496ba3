/*
 * memstats.h - runtime.MemStats from outside (`-p memstats`, and the
 * `# runtime.MemStats` trailer of `-p heap -f text`).
 *
 * gh_memstats_collect computes what runtime.ReadMemStats would return at
 * this instant, from the memory readmemstats_m reads (Go 1.19-1.27
 * src/runtime/mstats.go): the consistent heap-stats shards
 * (memstats.heapStats, all three summed as unsafeRead does), the per-P
 * mcache counters flushallmcaches would fold in (each cached span's
 * allocCount - allocCountBeforeCache, tinyAllocs), mheap_'s fixalloc
 * counters, gcController's and memstats' sysMemStats, the pause ring and
 * gcController.heapGoal() (mgcpacer.go).  A live target is read running,
 * then stopped (the goroutine snapshot's ptrace stop) and read again; a
 * core is consistent as it is.  What cannot be exact is listed in
 * doc/memstats.md.
 */
#ifndef GH_MEMSTATS_H
#define GH_MEMSTATS_H

#include "profile.h"
#include "target.h"

#define GH_MS_NPAUSE 256            /* len(memstats.pause_ns) */
#define GH_MS_NCLASSES 68           /* _NumSizeClasses */
#define GH_MS_NBYSIZE 61            /* len(MemStats.BySize) */
#define GH_MS_NSPANCLASSES 136      /* numSpanClasses */
#define GH_MS_MAX_PROCS (1u << 16)  /* len(allp) beyond this: damaged */

typedef struct gh_memstats {
	/* the fields of runtime.MemStats the debug=1 trailer prints */
	uint64_t alloc, total_alloc, sys, lookups, mallocs, frees;
	uint64_t heap_alloc, heap_sys, heap_idle, heap_inuse, heap_released,
		 heap_objects;
	uint64_t stack_inuse, stack_sys, mspan_inuse, mspan_sys,
		 mcache_inuse, mcache_sys, buckhash_sys, gc_sys, other_sys;
	uint64_t next_gc, last_gc, pause_total_ns;
	uint64_t pause_ns[GH_MS_NPAUSE], pause_end[GH_MS_NPAUSE];
	uint32_t num_gc, num_forced_gc;
	double gc_cpu_fraction;
	int debug_gc;                /* always false (unused field) */
	/* BySize: the first 61 size classes (class 0 included) as
	 * readmemstats_m copies them: Size, Mallocs and Frees after the
	 * flush */
	struct {
		uint32_t size;
		uint64_t mallocs, frees;
	} by_size[GH_MS_NBYSIZE];
	/* MaxRSS: VmHWM of /proc/PID/status x 1024 (live); have_maxrss 0 in
	 * a core, which does not record it */
	int have_maxrss;
	uint64_t maxrss;
	/* how: 1 read stopped (live), 2 best-effort (--no-stop), 0 a core;
	 * Ps and their cached spans folded in as flushallmcaches would */
	int snapshot;
	uint64_t nprocs, cached_spans;
	double t_stop;               /* seconds the target was stopped */
	/* runtime/metrics' view of the same words (metrics.go
	 * heapStatsAggregate, sysStatsAggregate: no mcache flush), as
	 * client_golang 1.14's memStatsFromRM turns it into a MemStats for
	 * go_memstats_* (Lookups 0, no GCCPUFraction) */
	struct {
		uint64_t alloc, total_alloc, sys, mallocs, frees, heap_alloc,
			 heap_sys, heap_idle, heap_inuse, heap_released,
			 heap_objects, stack_inuse, stack_sys, mspan_inuse,
			 mspan_sys, mcache_inuse, mcache_sys, buckhash_sys,
			 gc_sys, other_sys, next_gc;
	} rm;
	/* runtime.NumGoroutine (proc.go gcount) and
	 * runtime.ThreadCreateProfile's count (the Ms on allm); -1: not
	 * known (a stripped binary: runtime.sched and allm not located) */
	int64_t goroutines, threads;
	char go_version[64];         /* runtime.Version() */
} gh_memstats;

/* The MemStats part of p (GH_PART_MEMSTATS: -p memstats, and -p heap or
 * allocs collected for -f text's trailer; NULL: none), freed with p. */
static inline gh_memstats *gh_memstats_of(const gh_profile *p)
{
	return (gh_memstats *)gh_profile_part(p, GH_PART_MEMSTATS);
}

/*
 * Fill p's MemStats part from s's target.  0, or a GOHEAP_E* code with
 * tg->err set (unsupported release, symbols not found, damaged data).
 */
int gh_memstats_collect(gh_profile *p, gh_target *tg);

/* goheap_memory_limit's words of runtime.gcController, read running: 0, or
 * a GOHEAP_E* code with tg->err set. */
int gh_memlimit_read(gh_target *tg, goheap_memlimit *out);

/* fmt_memstats.c: the trailer's lines as runtime/pprof writes them
 * (pprof.go writeHeapInternal), with its leading blank line when
 * trailer is 1; then, in -p memstats (trailer 0), what the numbers
 * could not be: best-effort (--no-stop), MaxRSS absent (a core). */
int gh_write_memstats(const gh_memstats *m, int trailer, gh_buf *out);
/* runtime.MemStats as Go's encoding/json.Marshal writes it (one line, no
 * newline): every exported field in order, BySize included, EnableGC
 * true (ReadMemStats sets it), GCCPUFraction in its float form */
int gh_write_memstats_json(const gh_memstats *m, gh_buf *out);

/* Go's fmt %v of a float64 (strconv 'g' with the shortest digits that
 * read back, %e when the exponent is < -4 or >= 6): GCCPUFraction. */
void gh_go_float_v(double v, char *buf, size_t len);

#endif

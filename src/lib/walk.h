/*
 * walk.h - the bucket-list walker.
 */
#ifndef GH_WALK_H
#define GH_WALK_H

#include "memsrc.h"
#include "profile.h"
#include "rtlayout.h"

/* Hard limits that keep hostile memory from exhausting us. */
#define GH_WALK_MAX_BUCKETS 20000000u
#define GH_WALK_MAX_PCS (64u * 1024u * 1024u)
/* Largest stack of any layout (maxProfStackDepth) in bytes. */
#define GH_WALK_STACK_BYTES (GH_RT_MAX_STACK * 8u)

/*
 * Plausibility bounds (walk.c, "Implausible buckets"): the bytes of one
 * memRecordCycle (1 EiB: decades of allocation at one call site), the
 * writers' column totals (so that no sum, scaled or not, nor Go's +1 on
 * the text header, can wrap), the first PC beyond any user address
 * space.  More than GH_WALK_SKIP_MAX implausible buckets that are also
 * more than 1 in GH_WALK_SKIP_RATIO of those walked refuse the read.
 */
#define GH_WALK_MAX_BYTES ((uint64_t)1 << 60)
#define GH_WALK_MAX_TOTAL ((int64_t)1 << 62)
#define GH_WALK_MAX_PC ((uint64_t)1 << 57)
#define GH_WALK_SKIP_MAX 8u
#define GH_WALK_SKIP_RATIO 10u

/* Target addresses of the runtime globals the walker reads. */
typedef struct gh_rtaddrs {
	uint64_t mbuckets, bbuckets, xbuckets;   /* 0 when unknown */
	uint64_t mprofcycle;                     /* 0 when unknown */
	uint64_t memprofilerate;                 /* 0 when unknown */
	/* block/mutex: runtime.ticks.val and runtime.mutexprofilerate; 0 when
	 * unknown (then the rate is estimated / taken as 1, and -v says so) */
	uint64_t ticks_val, mutexprofilerate;
	/* 1: the program has no reader of the memory profile, so the linker
	 * set runtime.disableMemoryProfiling (rtlayout memprof_reader). */
	int linker_disabled;
	/* goroutine profiles (from .symtab, or located in a stripped binary:
	 * session.c find_globals; 0 when unknown): runtime.allgs, and
	 * fingStatus (fing_size 4) or 1.19's fingRunning (fing_size 1) */
	uint64_t allgs, fing;
	unsigned fing_size;
	/* runtime.debug.tracebacklabels (1.26+: the traceback's header
	 * labels; 1.27's default is 1): runtime.debug + the row's offset,
	 * or located in goroutineheader */
	uint64_t tblabels;
	/* -p types (heapwalk.c): runtime.mheap_ (stripped: located in
	 * sweepone) */
	uint64_t mheap;
	/* runtime.gcphase (from .symtab; 0 when unknown: stripped) */
	uint64_t gcphase;
	/* -p memstats (memstats.c): runtime.memstats, gcController, allp
	 * of stripped binaries (locate.c; 0 when unknown) */
	uint64_t memstats, gccontroller, allp;
	/* go_goroutines/go_threads (memstats.c): runtime.sched, allm of
	 * stripped binaries (0 when unknown) */
	uint64_t sched, allm;
} gh_rtaddrs;

/*
 * Fill p->recs/p->pcpool with the records that runtime.MemProfile(p, true)
 * (kind heap/allocs) or BlockProfile / MutexProfile would return at this
 * instant, in bucket-list order, without writing to the target.
 * p->kind and p->ver must be set (p->machine selects the math.Exp of the
 * scaled-total check).  Also sets p->nbuckets (buckets walked, skipped
 * ones included), p->skipped and its first bucket and reason, and, for
 * heap kinds, p->rate.  Returns 0, GOHEAP_EDISABLED (rate 0 and either no
 * bucket or a linker-disabled profile), GOHEAP_ECORRUPT when too many
 * buckets are implausible, or an error with err set.
 */
int gh_walk(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
	    const gh_rtaddrs *a, gh_err *err);

/*
 * A consumer of the walk's records as they become final, in the order
 * gh_walk would store them (gh_walk_stream).  begin is called once, when
 * p's header fields (kind, rate) are set and before the first record;
 * record for each record, whose stk is valid during the call only.  A
 * nonzero return ends the walk with that error.
 */
typedef struct gh_walk_sink {
	int (*begin)(void *arg, const gh_profile *p);
	int (*record)(void *arg, const gh_record *r);
	void *arg;
} gh_walk_sink;

/*
 * gh_walk, handing each record to sink instead of keeping it: the
 * records, the checks, the skips and the errors are gh_walk's, but
 * p->recs stays empty (p->nbuckets and the skip counts are set).  A
 * record is final as soon as a record with activity has been seen (a GC
 * has completed: no "no GC yet" fold can follow), so from then on each
 * one goes out as it is read, and the walk keeps one bucket at a time;
 * before that (and for block/mutex lists) records are held until it is
 * known.  On error, what was handed out must be discarded.
 */
int gh_walk_stream(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
		   const gh_rtaddrs *a, const gh_walk_sink *sink,
		   gh_err *err);

#endif

/*
 * walk.h - the bucket-list walker.
 */
#ifndef GH_WALK_H
#define GH_WALK_H

#include "memsrc.h"
#include "profile.h"
#include "rtaddrs.h"
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

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
} gh_rtaddrs;

/*
 * Fill p->recs/p->pcpool with the records that runtime.MemProfile(p, true)
 * (kind heap/allocs) or BlockProfile / MutexProfile would return at this
 * instant, in bucket-list order, without writing to the target.
 * p->kind and p->ver must be set.  Also sets p->nbuckets and, for heap
 * kinds, p->rate.  Returns 0, GOHEAP_EDISABLED (rate 0 and either no
 * bucket or a linker-disabled profile), or an error with err set.
 */
int gh_walk(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
	    const gh_rtaddrs *a, gh_err *err);

#endif

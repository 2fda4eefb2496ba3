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
#define GH_WALK_STACK_BYTES (1024u * 8u)

/* Target addresses of the runtime globals the walker reads. */
typedef struct gh_rtaddrs {
	uint64_t mbuckets, bbuckets, xbuckets;   /* 0 when unknown */
	uint64_t mprofcycle;                     /* 0 when unknown */
	uint64_t memprofilerate;                 /* 0 when unknown */
} gh_rtaddrs;

/*
 * Fill p->recs/p->pcpool with the records that runtime.MemProfile(p, true)
 * (kind heap/allocs) or BlockProfile / MutexProfile would return at this
 * instant, in bucket-list order, without writing to the target.
 * p->kind and p->ver must be set.  Also sets p->nbuckets and, for heap
 * kinds, p->rate.  Returns 0, GOHEAP_EDISABLED (rate 0 and no bucket), or
 * an error with err set.
 */
int gh_walk(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
	    const gh_rtaddrs *a, gh_err *err);

#endif

/*
 * profile.h - the profile model shared by the walker and the writers.
 *
 * The walker fills a gh_profile with records exactly as runtime.MemProfile
 * (or BlockProfile / MutexProfile) would return them inside the target, in
 * bucket-list order.  The writers (fmt_*.c) turn it into bytes, symbolizing
 * through a gh_sym, and never read the target.  The model holds what every
 * kind shares (records and stacks, mappings, identity, timings, skipped
 * buckets, how the stop went); a kind's own data is one part the profile
 * owns, declared in its subsystem's header (doc/design.md, "The profile
 * model").
 */
#ifndef GH_PROFILE_H
#define GH_PROFILE_H

#include "rtlayout.h"
#include "sym.h"

/* One record: runtime.MemProfileRecord or runtime.BlockProfileRecord. */
typedef struct gh_record {
	/* heap / allocs */
	int64_t alloc_bytes, free_bytes, alloc_objects, free_objects;
	/* block / mutex: Count (after the reader's conversion) and Cycles */
	int64_t count, cycles;
	uint64_t *stk;        /* runtime PCs as stored in the bucket */
	size_t nstk;
	uint64_t bucket;      /* target address of the bucket (for deltas) */
	int64_t object_size;  /* heap: the bucket's size (1.27 ObjectSize) */
} gh_record;

/*
 * How a collection's stop went, written by whichever collector stopped the
 * target for a consistent snapshot (goroutines: goroutine.c, gorsnap.c;
 * -p types: heapwalk.c; -p memstats: memstats.c; -p retained and
 * goroutineleak: retained.c, retlive.c), its window by target.c.  state:
 * target.h's GH_SNAP_STOPPED (1) the target was stopped to re-read what
 * changed, GH_SNAP_RUNNING (2) not (--no-stop: best-effort), GH_SNAP_NONE
 * (0) no stop needed (a core, a debugger's stopped inferior); the stop's
 * CLOCK_MONOTONIC window (first interrupt .. last detach), threads
 * stopped, and what was re-read while stopped of what was checked
 * (goroutines, spans or Ps, by kind).
 */
typedef struct gh_stopinfo {
	int state;
	double begin, end;
	uint64_t threads, rewalked, checked;
} gh_stopinfo;

/*
 * A profile's own data beside its records, by kind: one part, owned by the
 * profile, declared by its subsystem (the model declares no collector's
 * structure) and read through that subsystem's header:
 */
enum gh_part_kind {
	GH_PART_NONE = 0,
	GH_PART_GOROUTINES,   /* gh_gorprof (goroutine.h): the goroutines */
	GH_PART_GOROUTINELEAK,/* gh_gorprof with its leak judgement
	                       * (retleak.c): -p goroutineleak */
	GH_PART_TYPES,        /* gh_types (heapwalk.h): -p types */
	GH_PART_RETAINED,     /* gh_retained (retained.h): -p retained */
	GH_PART_MEMSTATS,     /* gh_memstats (memstats.h): -p memstats,
	                       * and -p heap/allocs -f text's trailer */
};

/* One executable mapping of the target, for pprof Mapping messages. */
typedef struct gh_pmap {
	uint64_t start, end, offset;
	char *file;           /* " (deleted)" already stripped */
	char build_id[130];   /* hex GNU build id, "" if none */
} gh_pmap;

typedef struct goheap_profile {
	int kind;             /* enum goheap_profile_kind */
	gh_gover ver;         /* Go version of the target */
	const gh_rtlayout *rt;/* its row of release facts and output rules;
	                         NULL: gh_rtlayout_rules(ver) (gh_profile_rt) */
	int64_t rate;         /* MemProfileRate (heap), 1 (block), mutex rate */
	double cycles_per_second; /* block/mutex: runtime_cyclesPerSecond */
	int cycles_estimated; /* 1: the runtime had not computed it (or it could
	                         not be located): go-heap's estimate */
	int rate_unknown;     /* mutex: mutexprofilerate not located; rate 1 */
	gh_record *recs;
	size_t nrecs;
	uint64_t *pcpool;     /* all stacks, one allocation */
	gh_pmap *maps;        /* executable mappings in maps order */
	size_t nmaps;
	int64_t time_nanos;   /* collection time (TimeNanos) */
	int pid;              /* the process it came from, 0 unknown ... */
	unsigned long long start_time; /* ... and its start time (PID reuse) */
	int64_t duration_nanos; /* deltas: time since the base (DurationNanos) */
	uint64_t nbuckets;    /* buckets walked */
	double t_read, t_walk;/* seconds in backend reads / the rest of the walk */
	uint64_t read_calls, read_bytes, bucket_bytes;
	char source[256];     /* "live process 1234" etc. */
	unsigned machine;     /* ELF e_machine of the target; 0 = the host's
	                         (selects Go's math.Exp implementation) */
	int profstackdepth;   /* 1.23+: runtime debug.profstackdepth; 0 =
	                         unknown, taken as the default 128 */
	/* Buckets the walker left out as implausible (counts, sizes or PCs
	 * no runtime produces: a damaged core, a torn read): how many, and
	 * the first one found, its address and why (walk.c). */
	uint64_t skipped;
	uint64_t skipped_bucket;
	char skipped_reason[160];
	/* how the collection's stop went (gh_stopinfo), whichever collector
	 * stopped the target */
	gh_stopinfo stop;
	/* the kind's own data (gh_profile_set_part): enum gh_part_kind, the
	 * part, and its free function, set with it by the collector (the
	 * model calls into no collector); NULL: none */
	int part_kind;
	void *part;
	void (*part_free)(void *part);
} gh_profile;

void gh_profile_destroy(gh_profile *p);

/* Give p the part of kind part_kind (enum gh_part_kind), freed with p by
 * fr (never NULL); p's previous part is freed first. */
void gh_profile_set_part(gh_profile *p, int part_kind, void *part,
			 void (*fr)(void *part));
/* Free p's part (p's records stay). */
void gh_profile_free_part(gh_profile *p);

/* p's part if it is of kind part_kind, else NULL. */
static inline void *gh_profile_part(const gh_profile *p, int part_kind)
{
	return p != NULL && p->part_kind == part_kind ? p->part : NULL;
}

/* The release facts and output rules a profile is written with. */
static inline const gh_rtlayout *gh_profile_rt(const gh_profile *p)
{
	return p->rt != NULL ? p->rt : gh_rtlayout_rules(p->ver);
}

#endif

/*
 * rtaddrs.h - where the runtime's globals are in one target (gh_rtaddrs),
 * apart from the walkers that read them, so that the locator (locate.h)
 * and the target (target.h) need no walker.
 */
#ifndef GH_RTADDRS_H
#define GH_RTADDRS_H

#include <stdint.h>

/* Target addresses of the runtime globals the collectors read, every one
 * located in target.c (find_globals): from .symtab, or in a stripped binary
 * by locate.c on target.c's behalf. */
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
	 * target.c find_globals; 0 when unknown): runtime.allgs, and
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
	/* -p memstats (memstats.c) and -p retained's tiny blocks:
	 * runtime.memstats, gcController, allp (.symtab, or located in a
	 * stripped binary: locate.c; 0 when unknown) */
	uint64_t memstats, gccontroller, allp;
	/* go_goroutines/go_threads (memstats.c): runtime.sched, allm
	 * (stripped: located; 0 when unknown), runtime.allglen (else allgs'
	 * length word) */
	uint64_t sched, allm, allglen;
	/* -p memstats: runtime.spanSetBlockPool (0 when unknown) */
	uint64_t spansetblockpool;
	/* -p retained's queued roots (retroots.c): runtime.allfin and
	 * runtime.gcCleanups from .symtab (0 when unknown; a stripped binary's
	 * are located on demand: gh_target_queues) */
	uint64_t allfin, gccleanups;
} gh_rtaddrs;

#endif

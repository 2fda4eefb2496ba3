/*
 * target.h - one Go target as the collectors see it: where its memory comes
 * from (the source and its capabilities), its executable and symbolizer, the
 * load bias, the runtime release's layout row and every runtime global
 * located in it.  The session (session.c) owns one; the collectors (walk,
 * goroutine, types, memstats, force) take it and nothing else of the
 * session's.
 */
#ifndef GH_TARGET_H
#define GH_TARGET_H

#include "exe.h"
#include "memsrc.h"
#include "rtaddrs.h"
#include "rtlayout.h"
#include "sym.h"

typedef struct gh_target {
	gh_err err;
	const goheap_memsrc_ops *ops;
	const gh_memsrc_caps *caps;   /* never NULL: gh_no_caps at least */
	void *ctx;
	gh_mem mem;
	int mem_ready;
	int no_stop;          /* goheap_options.no_stop: read without stopping */
	int no_traceback;     /* goheap_options.no_traceback */
	gh_exe *exe;
	gh_sym *sym;
	uint64_t bias;
	gh_gover ver;
	char verstr[64];
	int version_inferred; /* no .go.buildinfo: from the binary */
	const gh_rtlayout *lay;
	gh_rtaddrs addrs;
	char exe_path[4096];
	char source[256];     /* the source's own description */
	char how[768];        /* how the globals were found (-v) */
	/* a live target: PID and start time (/proc/PID/stat field 22, clock
	 * ticks since boot); 0 for cores and callers' sources */
	int pid;
	unsigned long long start_time;
	/* a core file's modification time (CLOCK_REALTIME, ns); 0 otherwise */
	int64_t core_mtime_ns;
	/* the last stop's threads (gh_target_resume keeps them: owned) */
	gh_thread_regs *stop_regs;
	size_t nstop_regs;
} gh_target;

/*
 * Fill t from its source (ops, caps and ctx already set): the executable,
 * the load bias, the build-id check, the Go version and layout row, the
 * symbolizer and the runtime globals, with the layout guard where the row
 * is not trusted as is.  0 or the error in t->err.
 */
int gh_target_init(gh_target *t, const goheap_options *opts);

/* Release what gh_target_init acquired and close the source. */
void gh_target_fini(gh_target *t);

/*
 * The brief stop of a live target for a consistent read (the goroutine,
 * heap-by-type and MemStats snapshots).  0 with *t0 the time it began, or
 * the error in t->err: "WHAT: cannot stop the target for a consistent NOUN
 * (why); --no-stop reads it without stopping (best-effort)".
 */
struct goheap_profile;
int gh_target_stop(gh_target *t, const char *what, const char *noun,
		   double *t0);
/*
 * Resume after gh_target_stop and record the stop in p (the source's own
 * window when it has one, else t0..t1); rc is the stopped work's result,
 * returned unless it was 0 and the resume failed.
 */
int gh_target_resume(gh_target *t, struct goheap_profile *p, double t0,
		     double t1, int rc);

/*
 * The threads of the instant the collectors read: a core's (its notes,
 * owned by the source) or, after a brief stop of a live target, the
 * threads as that stop held them (owned by t, until the next stop or
 * gh_target_fini).  0 and *regs, *n, or -1 when there are none (a caller's
 * source without either slot, a live target not stopped yet).
 */
int gh_target_threads(gh_target *t, const gh_thread_regs **regs, size_t *n);
/* Drop the last stop's threads (a new collection begins: a live target
 * has run since). */
void gh_target_forget_stop(gh_target *t);

/*
 * -p retained's queued roots: runtime.allfin and (1.25+) runtime.gcCleanups
 * in *allfin and *cq (0: not found); a stripped binary's located through
 * the machine code of runtime.markroot, queuefinalizer and runCleanups.
 * 1 when that location was tried, 0 when the symbols answered.
 */
int gh_target_queues(gh_target *t, uint64_t *allfin, uint64_t *cq);

/*
 * -p goroutineleak's semaphore waiters: runtime.semtable's runtime
 * address (0: not found); a stripped binary's located through the machine
 * code of runtime.semacquire1 and semrelease1.
 */
uint64_t gh_target_semtable(gh_target *t);

/* Whether the source can stop and resume the target. */
int gh_target_can_stop(const gh_target *t);

/*
 * The one stop-or-not decision of the snapshots (goroutines, -p types,
 * -p memstats, -p retained), the value of gh_profile's stop.state:
 * GH_SNAP_NONE, the source cannot stop and resume the target (a core, a
 * stopped debugger's inferior): read as it is; GH_SNAP_STOPPED, a live
 * target stopped briefly for a consistent read; GH_SNAP_RUNNING, --no-stop:
 * read running (best-effort, marked in the output).
 */
enum { GH_SNAP_NONE = 0, GH_SNAP_STOPPED = 1, GH_SNAP_RUNNING = 2 };
int gh_target_snapshot(const gh_target *t);

/* The version-2 slots of the ops table, or NULL for a version-1 table. */
#define GH_OPS_V2(t, slot) \
	((t)->ops->version >= 2 ? (t)->ops->slot : NULL)

#endif

/*
 * watch_targets.h - `go-heap watch`'s fleet: discovery of the Go processes,
 * per-target state, collection in steps, counters' deltas, --output-dir
 * (src/watch/watch_targets.c, doc/watch.md).  Knows nothing of HTTP.
 */
#ifndef GH_WATCH_TARGETS_H
#define GH_WATCH_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "goheap.h"
#include "watch_rows.h"

typedef struct wt_config {
	double budget;              /* --target-budget, seconds */
	int mode;                   /* enum gh_watch_mode */
	int gometrics;              /* --go-metrics: enum gh_watch_gometrics */
	const char *outdir;         /* --output-dir, or NULL */
	unsigned long long outmax;  /* --output-max-bytes */
	/* go_goroutines_leaked (-p goroutineleak): each Go process checked
	 * at most every leak_interval seconds, each check's time limit
	 * leak_budget, only while its heap is at most leak_max_heap bytes
	 * (0: never checked) */
	double leak_interval, leak_budget;
	unsigned long long leak_max_heap;
	/* --heap-series: GH_SERIES_* bits, K, the retained cadence (s) and
	 * the heap size above which there are no retained series */
	int series, series_top;
	double ret_interval;
	unsigned long long ret_max_heap;
	const int *pids;            /* the PIDs given (borrowed), or none: */
	size_t npids;               /* every process of the host */
	int verbose;
} wt_config;

typedef struct wt_fleet wt_fleet;

/* A process's top K of one kind (types or retaining roots) */
typedef struct wt_series {
	const wt_row *rows;         /* by bytes, most first */
	size_t n;
	double age;                 /* seconds since collected; < 0: never */
	const char *state;          /* ok, backoff, error, heap-too-large */
	double seconds;             /* its last collection took (0: none) */
} wt_series;

/*
 * One Go process as /metrics and the index page show it.  The strings
 * point into the fleet: valid until the next wt_round_step.
 */
typedef struct wt_view {
	int pid;
	const char *comm, *exe, *container;
	const char *state;          /* new, ok, profiling-disabled, error,
	                               backoff */
	int ok;                     /* its last collection succeeded */
	int have_stats;             /* the figures below are set */
	double alloc_bytes, alloc_objects;     /* counters, scaled */
	long long inuse_bytes, inuse_objects, rate;
	double collect_seconds;     /* its last collection */
	/* the Go collector's numbers of its last collection (--go-metrics),
	 * NULL when there are none */
	const goheap_gometrics *gm;
	unsigned long long errors, over_budget;
	/* its last leak check (go_goroutines_leaked): the leaked goroutines,
	 * -1 when none was done or the last one failed or was skipped (heap
	 * over --goroutineleak-max-heap); its seconds */
	long long leaked;
	double leak_seconds;
	wt_series types, roots;     /* --heap-series */
} wt_view;

/* The fleet's own figures. */
typedef struct wt_totals {
	double round_seconds;       /* wall time of the last round */
	double round_cpu;           /* CPU time of its steps */
	unsigned long long rounds, errors, out_written, out_removed;
	unsigned long long out_refused;   /* output files not written: their
	                                   * .tmp name was taken (a symlink) */
	size_t bucket_state_bytes;  /* kept between collections */
} wt_totals;

/* NULL when out of memory.  cfg is copied; cfg->pids must outlive it. */
wt_fleet *wt_new(const wt_config *cfg);
void wt_free(wt_fleet *f);

/*
 * A round (discovery, then each target's collection, then the output
 * directory's rotation) runs as a sequence of steps, each of which
 * collects at most one target: the caller serves between steps.
 * wt_round_start begins one (nothing is done yet); wt_round_step does the
 * next step and returns 1 while the round goes on, 0 once it has ended.
 */
void wt_round_start(wt_fleet *f);
int wt_round_step(wt_fleet *f);
int wt_round_active(const wt_fleet *f);

/* The Go processes, in discovery order: a malloc'd array (NULL when there
 * are none or on out of memory: -1).  Returns the count. */
long wt_views(const wt_fleet *f, wt_view **out);
void wt_totals_get(const wt_fleet *f, wt_totals *out);

/* Is pid a Go process of the fleet? */
int wt_watches(const wt_fleet *f, int pid);

/*
 * On demand (the /pprof endpoints): collect a profile of `kind` from pid,
 * through the fleet's session for it (opened if needed; a goroutine
 * profile with `tracebacks`, for ?debug=2, through a session of its
 * own; heap and allocs with `trailer` also record the MemStats that
 * ?debug=1's text ends with).  The process's identity is checked before
 * and after, so the
 * profile is of the program it runs now; *gen numbers that program (an
 * exec or a reused PID changes it: a ?seconds=N delta compares them).
 * 0, or a GOHEAP_E* code with the detail in err: GOHEAP_ENOPROC when pid
 * is not, or no longer, a Go process of the fleet (it exited or exec'd
 * another program).  *out may be set either way and is the caller's.
 */
int wt_collect(wt_fleet *f, int pid, int kind, int tracebacks,
	       int trailer, goheap_profile **out, unsigned long long *gen,
	       char *err, size_t errlen);
/*
 * Write p, or its delta over base when base is not NULL, in `format`
 * (enum goheap_format) into *buf (goheap_free).  0, or -1 with the
 * message for the client in err.  Needs pid's session: call between
 * wt_collect and wt_release.
 */
int wt_write(wt_fleet *f, int pid, const goheap_profile *p,
	     const goheap_profile *base, int format, unsigned char **buf,
	     size_t *len, char *err, size_t errlen);
/* Done with pid's session for now (closed when the fleet is large). */
void wt_release(wt_fleet *f, int pid);
/*
 * pid's GOMEMLIMIT and what its runtime counts against it
 * (goheap_memory_limit: read running, no stop), through the fleet's
 * session when it has one open: 0; 1 when none is open (a fleet larger
 * than the sessions it keeps: opening one each second would cost more
 * than the check; the next round's opens one), or -1 with the detail in
 * err (not a Go process of the fleet, a release without the layout, the
 * program changed during the read).
 */
int wt_memory_limit(wt_fleet *f, int pid, goheap_memlimit *out, char *err,
		    size_t errlen);

#endif

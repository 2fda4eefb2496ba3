/*
 * watch_options.h - go-heap watch's options (watch_options.c): its own
 * table, parsed by src/util's engine (optparse.h).
 */
#ifndef GH_WATCH_OPTIONS_H
#define GH_WATCH_OPTIONS_H

#include <stddef.h>


enum gh_watch_mode {
	GH_WATCH_DISABLED = 0,  /* list the processes only */
	GH_WATCH_ENABLED = 1,   /* read those that profile already */
	GH_WATCH_FORCE = 2,     /* also enable profiling where it is off */
};

/* go-heap watch --go-metrics: the Go collector's series per process */
enum gh_watch_gometrics {
	GH_GOM_OFF = 0,         /* none */
	GH_GOM_RUNNING = 1,     /* read running (default; best-effort) */
	GH_GOM_STOP = 2,        /* read during the brief ptrace stop */
};

/* go-heap watch --heap-series */
enum gh_watch_series {
	GH_SERIES_TYPES = 1,    /* go_heap_type_bytes, go_heap_type_objects */
	GH_SERIES_RETAINED = 2, /* go_heap_retained_bytes{root} */
};

typedef struct gh_watch_opts {
	const char *listen;     /* --listen ADDR:PORT */
	double interval;        /* --interval, seconds */
	double budget;          /* --target-budget, seconds */
	int mode;               /* --go-heap-profiler, enum gh_watch_mode */
	int gometrics;          /* --go-metrics, enum gh_watch_gometrics */
	const char *outdir;     /* --output-dir, NULL = none */
	const char *webconfig;  /* --web.config.file, NULL = none */
	int endpoints;          /* --endpoints: GH_EP_* bits; -1 = not given
	                         * (all on loopback or with authentication,
	                         * else metrics only) */
	unsigned long long outmax; /* --output-max-bytes */
	/* --on-memory-pressure: heap, types and retained profiles to
	 * --output-dir when a process nears its memory limit (cgroup v2
	 * memory.high/max, memory.events high, or --memory-pressure-rss) */
	int pressure;
	unsigned long long pressure_rss;  /* bytes; 0 = no RSS threshold */
	double pressure_period;           /* at most once per process per */
	/* go_goroutines_leaked: --goroutineleak-interval, -budget (seconds),
	 * --goroutineleak-max-heap (bytes; 0: never checked) */
	double leak_interval, leak_budget;
	unsigned long long leak_max_heap;
	/* --heap-series: the top-K types and retaining roots per process */
	int series;                       /* GH_SERIES_* bits; 0 = off */
	int series_top;                   /* --heap-series-top K */
	double ret_interval;              /* --retained-series-interval, s */
	unsigned long long ret_max_heap;  /* --retained-series-max-heap */
	int *pids;              /* operands (malloc'd; gh_watch_opts_free) */
	size_t npids;
	int verbose, help;
} gh_watch_opts;

/* go-heap watch's endpoint families (--endpoints). */
enum gh_watch_endpoint {
	GH_EP_METRICS = 1,      /* /metrics and the process list */
	GH_EP_PROFILES = 2,     /* /pprof/PID/heap|allocs|block|mutex|types */
	GH_EP_GOROUTINES = 4,   /* /pprof/PID/goroutine (grouped, ?debug<2) */
	GH_EP_TRACEBACKS = 8,   /* ?debug=2: tracebacks with argument words */
	GH_EP_ALL = 15,
};
/* "metrics,profiles,..." for the bits of mask (all, none). */
void gh_watch_endpoints_str(int mask, char *buf, size_t len);

/* As gh_cli_parse, for `go-heap watch` (argv[first..argc)). */
int gh_watch_parse(gh_watch_opts *out, int argc, char **argv, int first,
		   char *err, size_t errlen);
void gh_watch_opts_free(gh_watch_opts *w);
/* go-heap watch --help, generated from its table. */
void gh_watch_help(char *buf, size_t len);

#endif

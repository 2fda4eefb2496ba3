/*
 * options.h - the command line, parsed from one option table.
 *
 * Shared by the CLI (src/cli/main.c) and the gdb command (through the
 * library's goheap_command and goheap_command_options, src/lib/command.c),
 * so both accept exactly the same options; `go-heap watch` has a table of
 * its own, parsed by the same engine.
 */
#ifndef GH_OPTIONS_H
#define GH_OPTIONS_H

#include <stddef.h>

typedef struct gh_cli {
	const char *output;     /* -o; NULL = stdout */
	int format;             /* enum goheap_format, -1 = from -o */
	int format_given;       /* -f/--format was on the command line */
	int profile;            /* enum goheap_profile_kind */
	int sample_index;       /* enum goheap_sample_index */
	int top_n;
	const char *exe;
	const char *sysroot;
	int force;              /* --force given */
	long long force_rate;   /* its RATE (default 524288) */
	int dry_run;
	int no_stop;            /* --no-stop: goroutine snapshot unstopped */
	const char *path;       /* --path (-p retained) */
	/* growth (-p types|retained of a live process): --seconds N, or
	 * --count K --interval N; count 0: one snapshot */
	double seconds, interval;
	int count;
	int quiet, verbose;
	int help, version;
	const char *positional[2]; /* PID | CORE [EXE] */
	int npositional;
} gh_cli;

/*
 * Parse argv[first..argc).  Returns 0, or 2 (usage error) with a one-line
 * message in err.  Prints nothing.  Strings point into argv.
 */
int gh_cli_parse(gh_cli *out, int argc, char **argv, int first, char *err,
		 size_t errlen);

/*
 * Write the --help text (generated from the option table) into buf;
 * standalone: the CLI's (it also names `watch`), else the gdb command's.
 */
void gh_cli_help(char *buf, size_t len, const char *prog, int standalone);

/*
 * The options a front end holding a session (the gdb command) accepts, one
 * line each: "long<TAB>letter or -<TAB>ARGNAME<TAB>word|word<TAB>help\n"
 * (goheap_command_options).  0, or GOHEAP_EINVAL when buf is too small.
 */
int gh_cli_front_options(char *buf, size_t len);

/* ---- go-heap watch: its own table, parsed by the same engine ---------- */

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
	int *pids;              /* operands (malloc'd; gh_watch_opts_free) */
	size_t npids;
	int verbose, help;
} gh_watch_opts;

/* go-heap watch's endpoint families (--endpoints). */
enum gh_watch_endpoint {
	GH_EP_METRICS = 1,      /* /metrics and the process list */
	GH_EP_PROFILES = 2,     /* /pprof/PID/heap|allocs|block|mutex|types|
	                         * retained */
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

/* Format from an output file name's extension, -1 when none applies. */
int gh_cli_format_from_path(const char *path);

#endif

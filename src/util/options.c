/*
 * options.c - one option table, sorted by long name, as curl's
 * tool_getparam.c keeps it: each entry names the long and short spelling,
 * whether it takes an argument, and an id; one switch does the work and
 * --help is generated from the same rows, so the two never disagree.
 * Parsing prints nothing and exits nowhere: errors come back as a status
 * and a one-line message.  getopt_long is not used because it keeps global
 * state (optind) and prints its own messages, neither of which suits a
 * parser also called from inside gdb.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goheap.h"
#include "options.h"

enum arg_kind { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

enum opt_id {
	OPT_DRY_RUN,
	OPT_EXE,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_HELP,
	OPT_NO_STOP,
	OPT_OUTPUT,
	OPT_PATH,
	OPT_PROFILE,
	OPT_QUIET,
	OPT_SAMPLE_INDEX,
	OPT_SYSROOT,
	OPT_TOP,
	OPT_VERBOSE,
	OPT_VERSION,
	OPT_SECONDS,
	OPT_COUNT,
	OPT_INTERVAL,
	/* go-heap watch */
	OPT_W_PROFILER,
	OPT_W_INTERVAL,
	OPT_W_LISTEN,
	OPT_W_OUTPUT_DIR,
	OPT_W_OUTPUT_MAX,
	OPT_W_BUDGET,
	OPT_W_WEB_CONFIG,
	OPT_W_ENDPOINTS,
	OPT_W_GOMETRICS,
	OPT_W_PRESSURE,
	OPT_W_PRESSURE_RSS,
	OPT_W_PRESSURE_PERIOD,
};

struct opt_def {
	const char *lname;
	char letter;            /* 0 = long only */
	enum arg_kind arg;
	enum opt_id id;
	const char *argname;
	const char *help;
	const char *values;     /* "a|b|c": the accepted words (completion), or NULL */
	int cli_only;           /* 1: names the target or its files: not for a
	                           front end that already holds a session (gdb) */
};

static const struct opt_def opts[] = {
	{ "count", 0, ARG_REQUIRED, OPT_COUNT, "K",
	  "-p types|retained of a live process: K snapshots (with\n"
	  "--interval), the growth between the first and the last; a row\n"
	  "that grew in every interval is marked a leak suspect",
	  NULL, 1 },
	{ "dry-run", 0, ARG_NONE, OPT_DRY_RUN, NULL,
	  "with --force: print what would be written, change nothing",
	  NULL, 0 },
	{ "exe", 'e', ARG_REQUIRED, OPT_EXE, "PATH",
	  "executable of the target (default: from the process or core)",
	  NULL, 1 },
	{ "force", 0, ARG_OPTIONAL, OPT_FORCE, "RATE",
	  "enable heap profiling in a process whose rate is 0 (default 524288)",
	  NULL, 0 },
	{ "format", 'f', ARG_REQUIRED, OPT_FORMAT, "F",
	  "pprof | text | top | collapsed (default: from -o's extension, else\n"
	  "top); goroutines also: traceback (debug=2), list (one line each);\n"
	  "memstats: text, json (as Go's json.Marshal of runtime.MemStats)",
	  "pprof|text|top|collapsed|traceback|list|json", 0 },
	{ "help", 'h', ARG_NONE, OPT_HELP, NULL, "show this help",
	  NULL, 0 },
	{ "interval", 0, ARG_REQUIRED, OPT_INTERVAL, "N",
	  "seconds between --count's snapshots",
	  NULL, 1 },
	{ "no-stop", 0, ARG_NONE, OPT_NO_STOP, NULL,
	  "goroutine, types or memstats of a live process: do not stop it\n"
	  "for a consistent snapshot (best-effort, marked in the output)",
	  NULL, 0 },
	{ "output", 'o', ARG_REQUIRED, OPT_OUTPUT, "FILE",
	  "write the profile to FILE ('-' = stdout)",
	  NULL, 0 },
	{ "path", 0, ARG_REQUIRED, OPT_PATH, "ADDR|TYPE",
	  "-p retained: a shortest path from the roots to the object at\n"
	  "ADDR (0x...), or to the object of TYPE that retains the most",
	  NULL, 0 },
	{ "profile", 'p', ARG_REQUIRED, OPT_PROFILE, "K",
	  "heap (default) | allocs | block | mutex | goroutine | types\n"
	  "(every heap object by type: -f top, text, collapsed, objects)\n"
	  "| memstats (runtime.MemStats as heap?debug=1's trailer)\n"
	  "| retained (who holds the heap: reachability, retained size)\n"
	  "| goroutineleak (goroutines blocked forever, by the runtime's\n"
	  "own algorithm on the object graph: -f text, traceback, pprof)",
	  "heap|allocs|block|mutex|goroutine|types|memstats|retained|"
	  "goroutineleak", 0 },
	{ "quiet", 'q', ARG_NONE, OPT_QUIET, NULL, "print errors only",
	  NULL, 0 },
	{ "sample-index", 's', ARG_REQUIRED, OPT_SAMPLE_INDEX, "I",
	  "inuse_space | inuse_objects | alloc_space | alloc_objects;\n"
	  "contentions | delay (top, collapsed)",
	  "inuse_space|inuse_objects|alloc_space|alloc_objects|contentions|delay", 0 },
	{ "seconds", 0, ARG_REQUIRED, OPT_SECONDS, "N",
	  "-p types|retained of a live process: two snapshots N seconds\n"
	  "apart, the growth per type / per holder (net/http/pprof's\n"
	  "?seconds=N); with --count K, K snapshots over N seconds",
	  NULL, 1 },
	{ "sysroot", 0, ARG_REQUIRED, OPT_SYSROOT, "DIR",
	  "prefix for paths recorded in a core",
	  NULL, 1 },
	{ "top", 'n', ARG_REQUIRED, OPT_TOP, "N", "rows of the top table (default 20)",
	  NULL, 0 },
	{ "verbose", 'v', ARG_NONE, OPT_VERBOSE, NULL,
	  "print timings and details to stderr",
	  NULL, 0 },
	{ "version", 0, ARG_NONE, OPT_VERSION, NULL, "print the version",
	  NULL, 0 },
};

#define GH_OPTS_LEN (sizeof(opts) / sizeof(opts[0]))

/* go-heap watch's table, parsed by the same engine. */
static const struct opt_def watch_opts[] = {
	{ "endpoints", 0, ARG_REQUIRED, OPT_W_ENDPOINTS, "LIST",
	  "what is served: metrics, profiles (heap, allocs,\n"
	  "block, mutex, types, retained), goroutines,\n"
	  "tracebacks (?debug=2: argument words),\n"
	  "comma-separated, or\n"
	  "all; default all on a loopback address or with\n"
	  "authentication (--web.config.file), else metrics",
	  NULL, 0 },
	{ "go-heap-profiler", 0, ARG_REQUIRED, OPT_W_PROFILER, "MODE",
	  "disabled: only list the Go processes;\n"
	  "enabled (default): read those that profile already;\n"
	  "force: also enable profiling where MemProfileRate is 0",
	  "disabled|enabled|force", 0 },
	{ "go-metrics", 0, ARG_REQUIRED, OPT_W_GOMETRICS, "MODE",
	  "the Go collector's go_memstats_*, go_gc_duration_\n"
	  "seconds, go_goroutines, go_threads, go_info per\n"
	  "process: running (default: read without stopping\n"
	  "it), stop (read during a brief ptrace stop:\n"
	  "consistent), off",
	  "off|running|stop", 0 },
	{ "help", 'h', ARG_NONE, OPT_HELP, NULL, "show this help",
	  NULL, 0 },
	{ "interval", 0, ARG_REQUIRED, OPT_W_INTERVAL, "DURATION",
	  "collect every DURATION (60s; units s, ms, m, h)",
	  NULL, 0 },
	{ "listen", 0, ARG_REQUIRED, OPT_W_LISTEN, "ADDR:PORT",
	  "serve HTTP there (127.0.0.1:9465; port 0 picks one,\n"
	  "printed on stderr)",
	  NULL, 0 },
	{ "memory-pressure-period", 0, ARG_REQUIRED, OPT_W_PRESSURE_PERIOD,
	  "DURATION",
	  "--on-memory-pressure writes a process's profiles\n"
	  "at most once per DURATION (10m)",
	  NULL, 0 },
	{ "memory-pressure-rss", 0, ARG_REQUIRED, OPT_W_PRESSURE_RSS, "BYTES",
	  "--on-memory-pressure: also when a process's RSS\n"
	  "reaches BYTES (suffixes K, M, G: KiB, MiB, GiB)",
	  NULL, 0 },
	{ "on-memory-pressure", 0, ARG_NONE, OPT_W_PRESSURE, NULL,
	  "write heap, types and retained profiles to\n"
	  "--output-dir when a process nears its memory limit:\n"
	  "its cgroup v2 memory.high or memory.max (90%),\n"
	  "memory.events 'high' rising, or --memory-pressure-rss",
	  NULL, 0 },
	{ "output-dir", 0, ARG_REQUIRED, OPT_W_OUTPUT_DIR, "DIR",
	  "write each process's delta profile there every\n"
	  "interval (PID-COMM-TIME.pb.gz)",
	  NULL, 0 },
	{ "output-max-bytes", 0, ARG_REQUIRED, OPT_W_OUTPUT_MAX, "N",
	  "cap of DIR, oldest removed first (256 MiB)",
	  NULL, 0 },
	{ "target-budget", 0, ARG_REQUIRED, OPT_W_BUDGET, "DURATION",
	  "time limit of one collection (2s); a process that\n"
	  "reaches it is skipped for 1, 2, 4 ... 32 "
	  "intervals",
	  NULL, 0 },
	{ "verbose", 'v', ARG_NONE, OPT_VERBOSE, NULL,
	  "log targets and errors on stderr",
	  NULL, 0 },
	{ "web.config.file", 0, ARG_REQUIRED, OPT_W_WEB_CONFIG, "FILE",
	  "TLS, basic auth, rate limit and headers from FILE,\n"
	  "the Prometheus exporters' web configuration\n"
	  "(re-read when it or a certificate changes)",
	  NULL, 0 },
};

#define GH_WATCH_OPTS_LEN (sizeof(watch_opts) / sizeof(watch_opts[0]))

static const char *const format_names[] = { "pprof", "text", "top",
					    "collapsed", "traceback", "list",
					    "objects", "json" };
static const char *const profile_names[] = { "heap", "allocs", "block",
					     "mutex", "goroutine", "types",
					     "memstats", "retained",
					     "goroutineleak" };
static const char *const sample_names[] = { "alloc_objects", "alloc_space",
					    "inuse_objects", "inuse_space" };
static const char *const contention_names[] = { "contentions", "delay" };

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

int gh_cli_format_from_path(const char *path)
{
	if (path == NULL || strcmp(path, "-") == 0)
		return -1;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof") ||
	    ends_with(path, ".pb"))
		return GOHEAP_FORMAT_PPROF;
	if (ends_with(path, ".txt"))
		return GOHEAP_FORMAT_TEXT;
	if (ends_with(path, ".folded") || ends_with(path, ".collapsed"))
		return GOHEAP_FORMAT_COLLAPSED;
	return -1;
}

static int cli_apply(void *out, const struct opt_def *d, const char *val,
		     char *err, size_t errlen)
{
	gh_cli *c = out;
	char *end;
	long long n;
	int k;

	switch (d->id) {
	case OPT_DRY_RUN:
		c->dry_run = 1;
		break;
	case OPT_EXE:
		c->exe = val;
		break;
	case OPT_FORCE:
		c->force = 1;
		if (val != NULL) {
			errno = 0;
			n = strtoll(val, &end, 10);
			if (errno != 0 || *end != '\0' || end == val || n <= 0 ||
			    n > 0x7fffffff) {
				snprintf(err, errlen,
					 "--force: RATE must be a positive "
					 "integer, not '%s'", val);
				return 2;
			}
			c->force_rate = n;
		}
		break;
	case OPT_FORMAT:
		k = lookup(format_names, sizeof(format_names) /
			   sizeof(format_names[0]), val);
		if (k < 0) {
			snprintf(err, errlen, "unknown format '%s' (pprof, "
				 "text, top, collapsed, traceback, list, objects, "
				 "json)",
				 val);
			return 2;
		}
		c->format = k;
		c->format_given = 1;
		break;
	case OPT_HELP:
		c->help = 1;
		break;
	case OPT_NO_STOP:
		c->no_stop = 1;
		break;
	case OPT_OUTPUT:
		c->output = val;
		break;
	case OPT_PATH:
		c->path = val;
		break;
	case OPT_PROFILE:
		k = lookup(profile_names, sizeof(profile_names) /
			   sizeof(profile_names[0]), val);
		if (k < 0) {
			snprintf(err, errlen, "unknown profile '%s' (heap, "
				 "allocs, block, mutex, goroutine, types, "
				 "memstats, retained, goroutineleak)", val);
			return 2;
		}
		c->profile = k;
		break;
	case OPT_QUIET:
		c->quiet = 1;
		break;
	case OPT_SAMPLE_INDEX:
		k = lookup(sample_names, 4, val);
		/* block and mutex profiles: indexes of their own */
		if (k < 0 && (k = lookup(contention_names, 2, val)) >= 0)
			k += GOHEAP_SAMPLE_CONTENTIONS;
		if (k < 0) {
			snprintf(err, errlen, "unknown sample index '%s' "
				 "(inuse_space, inuse_objects, alloc_space, "
				 "alloc_objects; contentions, delay)", val);
			return 2;
		}
		c->sample_index = k;
		break;
	case OPT_SYSROOT:
		c->sysroot = val;
		break;
	case OPT_TOP:
		errno = 0;
		n = strtoll(val, &end, 10);
		if (errno != 0 || *end != '\0' || end == val || n <= 0 ||
		    n > 1000000) {
			snprintf(err, errlen, "--top: N must be a positive "
				 "integer, not '%s'", val);
			return 2;
		}
		c->top_n = (int)n;
		break;
	case OPT_VERBOSE:
		c->verbose++;
		break;
	case OPT_VERSION:
		c->version = 1;
		break;
	case OPT_SECONDS:
	case OPT_INTERVAL: {
		double x;

		errno = 0;
		x = strtod(val, &end);
		if (errno != 0 || *end != '\0' || end == val || !(x > 0) ||
		    x > 86400) {
			snprintf(err, errlen, "--%s: N must be a number of "
				 "seconds above 0 and at most 86400, not '%s'",
				 d->lname, val);
			return 2;
		}
		if (d->id == OPT_SECONDS)
			c->seconds = x;
		else
			c->interval = x;
		break;
	}
	case OPT_COUNT:
		errno = 0;
		n = strtoll(val, &end, 10);
		if (errno != 0 || *end != '\0' || end == val || n < 2 ||
		    n > 1000) {
			snprintf(err, errlen, "--count: K must be an integer "
				 "from 2 to 1000, not '%s'", val);
			return 2;
		}
		c->count = (int)n;
		break;
	default:
		break;
	}
	return 0;
}

/* A parse: the table, and what its options and operands do. */
typedef struct parser {
	const struct opt_def *tab;
	size_t ntab;
	int (*apply)(void *out, const struct opt_def *d, const char *val,
		     char *err, size_t errlen);
	int (*operand)(void *out, const char *arg, char *err, size_t errlen);
	void *out;
} parser;

static const struct opt_def *find_long(const parser *p, const char *name,
				       size_t len)
{
	size_t i;

	for (i = 0; i < p->ntab; i++)
		if (strlen(p->tab[i].lname) == len &&
		    strncmp(p->tab[i].lname, name, len) == 0)
			return &p->tab[i];
	return NULL;
}

static const struct opt_def *find_short(const parser *p, char ch)
{
	size_t i;

	for (i = 0; i < p->ntab; i++)
		if (p->tab[i].letter == ch)
			return &p->tab[i];
	return NULL;
}

/*
 * The one parsing loop: --long, --long=VALUE, --long VALUE, -x, -xVALUE,
 * -x VALUE, "--" ends the options, "-" is an operand.  0, or 2 with a
 * one-line message in err.
 */
static int parse(const parser *p, int argc, char **argv, int first,
		 char *err, size_t errlen)
{
	int i, rc, only_pos = 0;

	err[0] = '\0';
	for (i = first; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_def *d;
		const char *val = NULL;

		if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
			rc = p->operand(p->out, a, err, errlen);
			if (rc != 0)
				return rc;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			d = find_long(p, a + 2, len);
			if (d == NULL) {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (eq != NULL && d->arg == ARG_NONE) {
				snprintf(err, errlen, "option '--%s' takes no "
					 "argument", d->lname);
				return 2;
			}
			if (eq != NULL)
				val = eq + 1;
			else if (d->arg == ARG_REQUIRED) {
				if (i + 1 >= argc) {
					snprintf(err, errlen, "option '--%s' "
						 "needs an argument", d->lname);
					return 2;
				}
				val = argv[++i];
			}
		} else {
			d = find_short(p, a[1]);
			if (d == NULL) {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (d->arg == ARG_NONE && a[2] != '\0') {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (d->arg != ARG_NONE) {
				if (a[2] != '\0')
					val = a + 2;
				else if (i + 1 < argc)
					val = argv[++i];
				else {
					snprintf(err, errlen, "option '-%c' "
						 "needs an argument", a[1]);
					return 2;
				}
			}
		}
		rc = p->apply(p->out, d, val, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int cli_operand(void *out, const char *arg, char *err, size_t errlen)
{
	gh_cli *c = out;

	if (c->npositional == 2) {
		snprintf(err, errlen, "unexpected argument '%s'", arg);
		return 2;
	}
	c->positional[c->npositional++] = arg;
	return 0;
}

/* --seconds, --count, --interval: growth over snapshots; normalized to
 * count snapshots interval seconds apart (count 0: none asked for). */
static int growth_check(gh_cli *c, char *err, size_t errlen)
{
	if (c->seconds == 0 && c->count == 0 && c->interval == 0)
		return 0;
	if (c->profile != GOHEAP_PROFILE_TYPES &&
	    c->profile != GOHEAP_PROFILE_RETAINED) {
		snprintf(err, errlen, "--seconds, --count and --interval are "
			 "for -p types and -p retained (heap and allocs "
			 "deltas: go-heap watch)");
		return 2;
	}
	if (c->seconds > 0 && c->interval > 0) {
		snprintf(err, errlen, "--seconds and --interval: give one "
			 "(--seconds N is --count 2 --interval N)");
		return 2;
	}
	if (c->count > 0 && c->seconds == 0 && c->interval == 0) {
		snprintf(err, errlen, "--count needs --interval N (or "
			 "--seconds N, the whole window)");
		return 2;
	}
	if (c->interval > 0 && c->count == 0) {
		snprintf(err, errlen, "--interval needs --count K");
		return 2;
	}
	if (c->path != NULL || c->format == GOHEAP_FORMAT_OBJECTS ||
	    c->format > GOHEAP_FORMAT_COLLAPSED) {
		snprintf(err, errlen, "growth is written as top, text, "
			 "collapsed or pprof (no --path, no objects)");
		return 2;
	}
	if (c->count == 0)
		c->count = 2;
	if (c->seconds > 0)
		c->interval = c->seconds / (c->count - 1);
	return 0;
}

int gh_cli_parse(gh_cli *c, int argc, char **argv, int first, char *err,
		 size_t errlen)
{
	parser p = { opts, GH_OPTS_LEN, cli_apply, cli_operand, c };
	int rc;

	memset(c, 0, sizeof(*c));
	c->format = -1;
	c->profile = GOHEAP_PROFILE_HEAP;
	c->sample_index = GOHEAP_SAMPLE_DEFAULT;
	c->top_n = 20;
	c->force_rate = GOHEAP_DEFAULT_MEM_PROFILE_RATE;
	rc = parse(&p, argc, argv, first, err, errlen);
	if (rc != 0)
		return rc;
	/* A sample index belongs to its kind of profile: -p block -s delay,
	 * but -p heap -s delay is a mistake, not alloc_space. */
	if (c->sample_index != GOHEAP_SAMPLE_DEFAULT &&
	    c->profile == GOHEAP_PROFILE_GOROUTINE) {
		snprintf(err, errlen, "--sample-index: a goroutine profile has "
			 "one sample type (goroutine count)");
		return 2;
	}
	if (c->sample_index != GOHEAP_SAMPLE_DEFAULT) {
		int blockish = c->profile == GOHEAP_PROFILE_BLOCK ||
			       c->profile == GOHEAP_PROFILE_MUTEX;
		int is_block = c->sample_index >= GOHEAP_SAMPLE_CONTENTIONS;

		if (blockish != is_block) {
			snprintf(err, errlen, "--sample-index %s is for %s "
				 "profiles, not %s (%s)", is_block ?
				 contention_names[c->sample_index -
						  GOHEAP_SAMPLE_CONTENTIONS] :
				 sample_names[c->sample_index],
				 is_block ? "block and mutex" : "heap and allocs",
				 profile_names[c->profile], blockish ?
				 "contentions, delay" : "inuse_space, "
				 "inuse_objects, alloc_space, alloc_objects");
			return 2;
		}
	}
	if (c->format < 0)
		c->format = gh_cli_format_from_path(c->output);
	if (c->format < 0)
		c->format = GOHEAP_FORMAT_TOP;
	return growth_check(c, err, errlen);
}

/* ---- go-heap watch ------------------------------------------------------ */

/* "60", "60s", "500ms", "5m", "1h": seconds in [0.001, 86400]. */
static int parse_duration(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v > 0))
		return -1;
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
		;
	else if (strcmp(end, "ms") == 0)
		v /= 1000;
	else if (strcmp(end, "m") == 0)
		v *= 60;
	else if (strcmp(end, "h") == 0)
		v *= 3600;
	else
		return -1;
	if (v < 0.001 || v > 86400)
		return -1;
	*out = v;
	return 0;
}

static const char *const ep_names[] = { "metrics", "profiles",
					"goroutines", "tracebacks" };

/* "metrics,profiles" (or all, none) into GH_EP_* bits: 0, or -1. */
static int parse_endpoints(const char *val, int *out)
{
	const char *p = val, *q;
	size_t k, n;
	int mask = 0;

	if (strcmp(val, "all") == 0 || strcmp(val, "none") == 0) {
		*out = val[0] == 'a' ? GH_EP_ALL : 0;
		return 0;
	}
	while (*p != '\0') {
		q = strchr(p, ',');
		n = q != NULL ? (size_t)(q - p) : strlen(p);
		for (k = 0; k < 4; k++)
			if (strlen(ep_names[k]) == n &&
			    strncmp(p, ep_names[k], n) == 0)
				break;
		if (k == 4)
			return -1;
		mask |= 1 << k;
		p += n;
		if (*p == ',' && *++p == '\0')
			return -1;
	}
	if (mask == 0)
		return -1;
	*out = mask;
	return 0;
}

static int watch_apply(void *out, const struct opt_def *d, const char *val,
		       char *err, size_t errlen)
{
	static const char *const modes[] = { "disabled", "enabled", "force" };
	static const char *const gom_modes[] = { "off", "running", "stop" };
	gh_watch_opts *w = out;
	char *end;
	int k;

	switch (d->id) {
	case OPT_HELP:
		w->help = 1;
		break;
	case OPT_VERBOSE:
		w->verbose++;
		break;
	case OPT_W_GOMETRICS:
		k = lookup(gom_modes, 3, val);
		if (k < 0) {
			snprintf(err, errlen, "--go-metrics: unknown mode '%s' "
				 "(off, running, stop)", val);
			return 2;
		}
		w->gometrics = k;
		break;
	case OPT_W_PROFILER:
		k = lookup(modes, 3, val);
		if (k < 0) {
			snprintf(err, errlen, "--go-heap-profiler: unknown "
				 "mode '%s' (disabled, enabled, force)", val);
			return 2;
		}
		w->mode = k;
		break;
	case OPT_W_INTERVAL:
	case OPT_W_BUDGET:
		if (parse_duration(val, d->id == OPT_W_INTERVAL ?
				   &w->interval : &w->budget) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a duration "
				 "from 1ms to 24h (60, 60s, 500ms, 5m, 1h)",
				 d->lname, val);
			return 2;
		}
		break;
	case OPT_W_LISTEN:
		w->listen = val;
		break;
	case OPT_W_OUTPUT_DIR:
		w->outdir = val;
		break;
	case OPT_W_PRESSURE:
		w->pressure = 1;
		break;
	case OPT_W_PRESSURE_PERIOD:
		if (parse_duration(val, &w->pressure_period) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a duration "
				 "from 1ms to 24h (60, 60s, 500ms, 5m, 1h)",
				 d->lname, val);
			return 2;
		}
		break;
	case OPT_W_PRESSURE_RSS: {
		unsigned long long v, mul = 1;

		errno = 0;
		v = strtoull(val, &end, 10);
		if (*end == 'K' || *end == 'M' || *end == 'G') {
			mul = *end == 'K' ? 1ULL << 10 : *end == 'M' ?
			      1ULL << 20 : 1ULL << 30;
			end++;
		}
		if (end == val || *end != '\0' || errno != 0 || v == 0 ||
		    val[0] == '-' || v > (1ULL << 50) / mul) {
			snprintf(err, errlen, "--memory-pressure-rss: '%s' is "
				 "not a size in bytes (1G, 512M, ...)", val);
			return 2;
		}
		w->pressure_rss = v * mul;
		break;
	}
	case OPT_W_WEB_CONFIG:
		w->webconfig = val;
		break;
	case OPT_W_ENDPOINTS:
		if (parse_endpoints(val, &w->endpoints) != 0) {
			snprintf(err, errlen, "--endpoints: '%s' is not a list "
				 "of metrics, profiles, goroutines, tracebacks "
				 "(or all, none)", val);
			return 2;
		}
		break;
	case OPT_W_OUTPUT_MAX:
		errno = 0;
		w->outmax = strtoull(val, &end, 10);
		if (end == val || *end != '\0' || errno != 0 || w->outmax == 0 ||
		    val[0] == '-') {
			snprintf(err, errlen, "--output-max-bytes: N must be a "
				 "positive integer, not '%s'", val);
			return 2;
		}
		break;
	default:
		break;
	}
	return 0;
}

static int watch_operand(void *out, const char *arg, char *err,
			 size_t errlen)
{
	gh_watch_opts *w = out;
	char *end;
	long pid;
	int *np;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || errno != 0 || pid <= 0 ||
	    pid > 0x7fffffff) {
		snprintf(err, errlen, "'%s' is not a process id", arg);
		return 2;
	}
	np = realloc(w->pids, (w->npids + 1) * sizeof(*np));
	if (np == NULL) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	w->pids = np;
	w->pids[w->npids++] = (int)pid;
	return 0;
}

void gh_watch_endpoints_str(int mask, char *buf, size_t len)
{
	size_t k, used = 0;

	buf[0] = '\0';
	if (mask == GH_EP_ALL || mask == 0) {
		snprintf(buf, len, "%s", mask ? "all" : "none");
		return;
	}
	for (k = 0; k < 4; k++)
		if (mask & (1 << k) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "," : "", ep_names[k]);
}

int gh_watch_parse(gh_watch_opts *w, int argc, char **argv, int first,
		   char *err, size_t errlen)
{
	parser p = { watch_opts, GH_WATCH_OPTS_LEN, watch_apply,
		     watch_operand, w };

	memset(w, 0, sizeof(*w));
	w->listen = "127.0.0.1:9465";
	w->interval = 60;
	w->budget = 2;
	w->mode = GH_WATCH_ENABLED;
	w->gometrics = GH_GOM_RUNNING;
	w->outmax = 256ULL << 20;
	w->endpoints = -1;
	w->pressure_period = 600;
	if (parse(&p, argc, argv, first, err, errlen) != 0)
		return 2;
	if (w->pressure && w->outdir == NULL) {
		snprintf(err, errlen, "--on-memory-pressure needs --output-dir "
			 "DIR (where the profiles go)");
		return 2;
	}
	if (!w->pressure && w->pressure_rss > 0) {
		snprintf(err, errlen, "--memory-pressure-rss applies only to "
			 "--on-memory-pressure");
		return 2;
	}
	return 0;
}

void gh_watch_opts_free(gh_watch_opts *w)
{
	free(w->pids);
	w->pids = NULL;
	w->npids = 0;
}

/* The left column of an option's help line: "-x, --long ARG". */
static void help_left(char *left, size_t len, const struct opt_def *d)
{
	const char *arg = d->argname ? d->argname : "";

	if (d->arg == ARG_OPTIONAL)
		snprintf(left, len, "%s%c%s--%s[=%s]", d->letter ? "-" : "   ",
			 d->letter ? d->letter : ' ', d->letter ? ", " : " ",
			 d->lname, arg);
	else
		snprintf(left, len, "%s%c%s--%s%s%s", d->letter ? "-" : "   ",
			 d->letter ? d->letter : ' ', d->letter ? ", " : " ",
			 d->lname, d->arg ? " " : "", arg);
}

/*
 * One entry per option of tab: "  -x, --long ARG   help", the help column
 * as wide as the widest left column needs, and each "\n" in a help text
 * continued in that column.
 */
static void help_rows(char *buf, size_t len, const struct opt_def *tab,
		      size_t ntab)
{
	size_t used = 0, i, width = 0;
	const char *h;
	char left[64];

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < ntab; i++) {
		help_left(left, sizeof(left), &tab[i]);
		if (strlen(left) > width)
			width = strlen(left);
	}
	for (i = 0; i < ntab; i++) {
		help_left(left, sizeof(left), &tab[i]);
		used += (size_t)snprintf(buf + used, len - used, "  %-*s  ",
					 (int)width, left);
		for (h = tab[i].help; *h != '\0' && used + 1 < len; h++) {
			buf[used++] = *h;
			if (*h == '\n')
				used += (size_t)snprintf(buf + used, len - used,
							 "%*s", (int)width + 4,
							 "");
			if (used >= len)
				used = len - 1;
		}
		if (used + 1 < len)
			buf[used++] = '\n';
		buf[used] = '\0';
		if (used + 1 >= len)
			return;
	}
}

int gh_cli_front_options(char *buf, size_t len)
{
	size_t used = 0, i;
	const char *h;
	int n;

	if (len == 0)
		return GOHEAP_EINVAL;
	buf[0] = '\0';
	for (i = 0; i < GH_OPTS_LEN; i++) {
		const struct opt_def *o = &opts[i];

		if (o->cli_only)
			continue;
		n = snprintf(buf + used, len - used, "%s\t%c\t%s\t%s\t",
			     o->lname, o->letter ? o->letter : '-',
			     o->argname ? o->argname : "",
			     o->values ? o->values : "");
		if (n < 0 || (size_t)n >= len - used)
			return GOHEAP_EINVAL;
		used += (size_t)n;
		for (h = o->help; *h != '\0'; h++) {
			if (used + 2 >= len)
				return GOHEAP_EINVAL;
			buf[used++] = *h == '\n' ? ' ' : *h;
		}
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	return 0;
}

void gh_cli_help(char *buf, size_t len, const char *prog, int standalone)
{
	size_t used = 0;
	int n;

#define PUT(...)                                                        \
	do {                                                            \
		n = snprintf(buf + used, len - used, __VA_ARGS__);       \
		if (n < 0 || (size_t)n >= len - used)                   \
			return;                                         \
		used += (size_t)n;                                      \
	} while (0)

	PUT("Usage: %s [OPTIONS] PID\n"
	    "       %s [OPTIONS] CORE [EXECUTABLE]\n", prog, prog);
	if (standalone)
		PUT("       %s watch [OPTIONS] [PID...]   (see %s watch "
		    "--help)\n", prog, prog);
	PUT("Write the heap profile of a running Go process or core dump, "
	    "read from outside it.\n\n");
#undef PUT
	help_rows(buf + used, len - used, opts, GH_OPTS_LEN);
	used += strlen(buf + used);
	if (used < len)
		snprintf(buf + used, len - used, "\nExit status: 0 ok, 1 error, "
			 "2 usage, 3 memory profiling disabled in the target "
			 "(see --force).\n");
}

void gh_watch_help(char *buf, size_t len)
{
	size_t used;

	snprintf(buf, len, "Usage: go-heap watch [OPTIONS] [PID...]\n"
		 "Export the heap profiles of the given Go processes, or of "
		 "every Go\nprocess on the host, to Prometheus (/metrics) and "
		 "pprof clients\n(/pprof/PID/heap|allocs|block|mutex, like "
		 "net/http/pprof).\n\n");
	used = strlen(buf);
	help_rows(buf + used, len - used, watch_opts, GH_WATCH_OPTS_LEN);
}

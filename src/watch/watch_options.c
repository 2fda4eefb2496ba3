/*
 * watch_options.c - go-heap watch's option table and its parse, by the
 * engine of src/util/options.c (optparse.h); here, not in src/util, so
 * that libgoheap does not ship them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goheap.h"
#include "optparse.h"
#include "watch_options.h"

enum watch_opt_id {
	OPT_HELP,
	OPT_VERBOSE,
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
	OPT_W_LEAK_INTERVAL,
	OPT_W_LEAK_BUDGET,
	OPT_W_LEAK_MAX_HEAP,
	OPT_W_SERIES,
	OPT_W_SERIES_TOP,
	OPT_W_RET_INTERVAL,
	OPT_W_RET_MAX_HEAP,
};

/* go-heap watch's table, parsed by the same engine. */
static const struct opt_def watch_opts[] = {
	{ "endpoints", 0, ARG_REQUIRED, OPT_W_ENDPOINTS, "LIST",
	  "what is served: metrics, profiles (heap, allocs,\n"
	  "block, mutex, types), goroutines, tracebacks\n"
	  "(?debug=2: argument words), comma-separated, or\n"
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
	{ "goroutineleak-budget", 0, ARG_REQUIRED, OPT_W_LEAK_BUDGET,
	  "DURATION",
	  "time limit of one leak check (5s)",
	  NULL, 0 },
	{ "goroutineleak-interval", 0, ARG_REQUIRED, OPT_W_LEAK_INTERVAL,
	  "DURATION",
	  "go_goroutines_leaked: check each Go process for\n"
	  "leaked goroutines (-p goroutineleak) at most every\n"
	  "DURATION (10m)",
	  NULL, 0 },
	{ "goroutineleak-max-heap", 0, ARG_REQUIRED, OPT_W_LEAK_MAX_HEAP,
	  "BYTES",
	  "check only processes whose heap is at most BYTES\n"
	  "(64M; the check reads every object; 0: never)",
	  NULL, 0 },
	{ "heap-series", 0, ARG_REQUIRED, OPT_W_SERIES, "LIST",
	  "per process, the top K types (go_heap_type_bytes,\n"
	  "go_heap_type_objects) and the top K roots by what\n"
	  "they retain (go_heap_retained_bytes): types,\n"
	  "retained, all, or off (default)",
	  NULL, 0 },
	{ "heap-series-top", 0, ARG_REQUIRED, OPT_W_SERIES_TOP, "K",
	  "--heap-series: K types and K roots per process (10)",
	  NULL, 0 },
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
	  "90% of its cgroup v2 memory.high or memory.max\n"
	  "(or memory.events 'high' rising), of its cgroup v1\n"
	  "soft or hard limit (the working set), of its\n"
	  "GOMEMLIMIT (what its runtime counts), or\n"
	  "--memory-pressure-rss",
	  NULL, 0 },
	{ "output-dir", 0, ARG_REQUIRED, OPT_W_OUTPUT_DIR, "DIR",
	  "write each process's delta profile there every\n"
	  "interval (PID-COMM-TIME.pb.gz)",
	  NULL, 0 },
	{ "output-max-bytes", 0, ARG_REQUIRED, OPT_W_OUTPUT_MAX, "N",
	  "cap of DIR, oldest removed first (256 MiB)",
	  NULL, 0 },
	{ "retained-series-interval", 0, ARG_REQUIRED, OPT_W_RET_INTERVAL,
	  "DURATION",
	  "--heap-series retained: collect a process's roots\n"
	  "at most once per DURATION (10m; they cost a heap\n"
	  "walk and a dominator tree)",
	  NULL, 0 },
	{ "retained-series-max-heap", 0, ARG_REQUIRED, OPT_W_RET_MAX_HEAP,
	  "BYTES",
	  "--heap-series retained: not for a process whose\n"
	  "heap is larger (256M; suffixes K, M, G)",
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

/* "512M", "1G", "4096": bytes (K, M, G: KiB, MiB, GiB), 1 to 2^50. */
static int parse_size(const char *val, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (*end == 'K' || *end == 'M' || *end == 'G') {
		mul = *end == 'K' ? 1ULL << 10 : *end == 'M' ?
		      1ULL << 20 : 1ULL << 30;
		end++;
	}
	if (end == val || *end != '\0' || errno != 0 || v == 0 ||
	    val[0] == '-' || v > (1ULL << 50) / mul)
		return -1;
	*out = v * mul;
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
		k = gh_opt_lookup(gom_modes, 3, val);
		if (k < 0) {
			snprintf(err, errlen, "--go-metrics: unknown mode '%s' "
				 "(off, running, stop)", val);
			return 2;
		}
		w->gometrics = k;
		break;
	case OPT_W_PROFILER:
		k = gh_opt_lookup(modes, 3, val);
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
	case OPT_W_LEAK_INTERVAL:
	case OPT_W_LEAK_BUDGET:
		if (parse_duration(val, d->id == OPT_W_LEAK_INTERVAL ?
				   &w->leak_interval : &w->leak_budget) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a duration "
				 "from 1ms to 24h (60, 60s, 500ms, 5m, 1h)",
				 d->lname, val);
			return 2;
		}
		break;
	case OPT_W_LEAK_MAX_HEAP:
		if (strcmp(val, "0") == 0) {
			w->leak_max_heap = 0;
		} else if (parse_size(val, &w->leak_max_heap) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a size in "
				 "bytes (1G, 512M, ...; 0: never)", d->lname,
				 val);
			return 2;
		}
		break;
	case OPT_W_PRESSURE_RSS:
	case OPT_W_RET_MAX_HEAP:
		if (parse_size(val, d->id == OPT_W_PRESSURE_RSS ?
			       &w->pressure_rss : &w->ret_max_heap) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a size in "
				 "bytes (1G, 512M, ...)", d->lname, val);
			return 2;
		}
		break;
	case OPT_W_SERIES:
		if (strcmp(val, "off") == 0)
			w->series = 0;
		else if (strcmp(val, "all") == 0 ||
			 strcmp(val, "types,retained") == 0 ||
			 strcmp(val, "retained,types") == 0)
			w->series = GH_SERIES_TYPES | GH_SERIES_RETAINED;
		else if (strcmp(val, "types") == 0)
			w->series = GH_SERIES_TYPES;
		else if (strcmp(val, "retained") == 0)
			w->series = GH_SERIES_RETAINED;
		else {
			snprintf(err, errlen, "--heap-series: '%s' is not "
				 "types, retained, all or off", val);
			return 2;
		}
		break;
	case OPT_W_SERIES_TOP: {
		long top;

		errno = 0;
		top = strtol(val, &end, 10);
		if (end == val || *end != '\0' || errno != 0 || top < 1 ||
		    top > 1000) {
			snprintf(err, errlen, "--heap-series-top: K must be "
				 "from 1 to 1000, not '%s'", val);
			return 2;
		}
		w->series_top = (int)top;
		break;
	}
	case OPT_W_RET_INTERVAL:
		if (parse_duration(val, &w->ret_interval) != 0) {
			snprintf(err, errlen, "--%s: '%s' is not a duration "
				 "from 1ms to 24h (60, 60s, 500ms, 5m, 1h)",
				 d->lname, val);
			return 2;
		}
		break;
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
	int rc;

	memset(w, 0, sizeof(*w));
	w->listen = "127.0.0.1:9465";
	w->interval = 60;
	w->budget = 2;
	w->mode = GH_WATCH_ENABLED;
	w->gometrics = GH_GOM_RUNNING;
	w->outmax = 256ULL << 20;
	w->endpoints = -1;
	w->pressure_period = 600;
	w->leak_interval = 600;
	w->leak_budget = 5;
	w->leak_max_heap = 64ULL << 20;
	w->series_top = 10;
	w->ret_interval = 600;
	w->ret_max_heap = 256ULL << 20;
	rc = gh_opt_parse(&p, argc, argv, first, err, errlen);
	if (rc != 0)
		return rc;
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

void gh_watch_help(char *buf, size_t len)
{
	size_t used;

	snprintf(buf, len, "Usage: go-heap watch [OPTIONS] [PID...]\n"
		 "Export the heap profiles of the given Go processes, or of "
		 "every Go\nprocess on the host, to Prometheus (/metrics) and "
		 "pprof clients\n(/pprof/PID/heap|allocs|block|mutex, like "
		 "net/http/pprof).\n\n");
	used = strlen(buf);
	gh_opt_help_rows(buf + used, len - used, watch_opts,
			 GH_WATCH_OPTS_LEN);
}

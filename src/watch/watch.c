/*
 * watch.c - `go-heap watch`: every Go process on a node, continuously
 * (doc/watch.md).  This file holds the options and the loop that ties the
 * modules together:
 *
 *   watch_targets.c  the fleet: discovery, per-target state, collection in
 *                    steps, counters' deltas, --output-dir (no HTTP);
 *   watch_metrics.c  /metrics and the index page from a snapshot of the
 *                    numbers (neither collects nor serves);
 *   watch_http.c     the HTTP server: connections, parsing, limits,
 *                    eviction, responses, deferred answers (no targets);
 *   watch_util.c     string buffer, clocks, /proc reads.
 *
 * One thread.  Each turn of the loop serves HTTP once (wh_serve: poll(2),
 * zero timeout while there is work to do), then does at most one step of
 * work: a due /pprof request (deferred by its handler) or the next step
 * of a collection round (discovery, one target, the rotation).  So a
 * scrape waits at most for one step, never for a whole round: a step is
 * one target's collection, bounded by --target-budget (milliseconds for
 * ordinary programs).  No threads, no locks.
 *
 * Routes: / and /pprof/ (index), /metrics, and /pprof/PID/KIND (heap,
 * allocs, block, mutex) as Go's net/http/pprof answers them: gzip'd
 * proto, ?debug=N text, ?seconds=N delta (the base is collected, the
 * connection deferred N s, then the delta answered); types and retained
 * too, ?seconds=N their growth (growth.c: the first snapshot's rows kept
 * while the connection waits).  --on-memory-pressure: watch_pressure.c,
 * checked once a second between steps.
 *
 * The only global is the signal flag.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "goheap.h"
#include "watch_options.h"
#include "watch.h"
#include "watch_http.h"
#include "watch_metrics.h"
#include "watch_pressure.h"
#include "watch_targets.h"
#include "watch_tls.h"
#include "watch_util.h"

enum {
	MAX_DELTA_SECONDS = 600,
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

typedef struct watch {
	double interval;
	int mode;
	wt_fleet *fleet;
	wh_server *http;
	wtls *web;                 /* --web.config.file, or NULL */
	int endpoints;             /* --endpoints (GH_EP_*), -1: the default */
	int loopback;              /* the listener is 127.0.0.0/8 or ::1 */
	wp_state *pressure;        /* --on-memory-pressure, or NULL */
} watch;

/*
 * A /pprof request, deferred until the loop gets to it: first its
 * profile is collected (and, for ?seconds=N, kept as p0 while the
 * connection waits N s), then the answer is written.
 */
typedef struct pprof_job {
	int pid, kind, head;
	long debug, secs;
	goheap_profile *p0;        /* ?seconds=N: the base, once collected */
	goheap_growth *g;          /* types|retained?seconds=N: the first
	                            * snapshot's rows (growth.c) */
	unsigned long long gen;    /* the program p0 is of (wt_collect) */
} pprof_job;

static void job_free(pprof_job *j)
{
	if (j == NULL)
		return;
	goheap_profile_free(j->p0);
	goheap_growth_free(j->g);
	free(j);
}

/* The server dropped a deferred request (its connection closed). */
static void on_drop(void *ctx, void *token)
{
	(void)ctx;
	job_free(token);
}

/* Indexed by enum goheap_profile_kind. */
static const char *const kinds[] = { "heap", "allocs", "block", "mutex",
				      "goroutine", "types", NULL, "retained" };

/* A served kind's name: kinds[], or goroutineleak (-p goroutineleak,
 * doc/goroutineleak.md: on demand only, in the goroutines family). */
static const char *kind_str(int kind)
{
	if (kind == GOHEAP_PROFILE_GOROUTINELEAK)
		return "goroutineleak";
	return kind >= 0 && kind < (int)GH_ARRAY_LEN(kinds) ? kinds[kind] :
	       "profile";
}

/* The goroutine profile and the leaked goroutines' (goroutine families,
 * debug=2 a traceback, never a delta). */
static int gor_kind(int kind)
{
	return kind == GOHEAP_PROFILE_GOROUTINE ||
	       kind == GOHEAP_PROFILE_GOROUTINELEAK;
}

/* ---- what is served to whom ------------------------------------------------ */

/*
 * The endpoint families served now: --endpoints, else all of them on a
 * loopback listener or when the web configuration in force authenticates
 * every client, and /metrics only otherwise (the start-up warning says
 * how to change it).  Asked per request: a reloaded configuration counts.
 */
static int served(const watch *w)
{
	if (w->endpoints >= 0)
		return w->endpoints;
	if (w->loopback || (w->web != NULL && wtls_authenticates(w->web)))
		return GH_EP_ALL;
	return GH_EP_METRICS;
}

/* 0 when the family may be served; else answer 403 and return -1. */
static int gate(watch *w, wh_conn *c, int family)
{
	char on[64], msg[256];

	if (served(w) & family)
		return 0;
	gh_watch_endpoints_str(served(w), on, sizeof(on));
	snprintf(msg, sizeof(msg), "Forbidden: this endpoint is disabled "
		 "(serving: %s; see go-heap watch --endpoints)\n", on);
	wh_respond_text(w->http, c, 403, msg);
	return -1;
}

/* ---- the pages ---------------------------------------------------------- */

static void index_page(watch *w, wh_conn *c, int head)
{
	gh_buf b = GH_BUF_INIT;
	wt_view *v = NULL;
	long n = wt_views(w->fleet, &v);

	if (n >= 0)
		wm_index(v, (size_t)n, &b);
	if (n < 0 || b.oom)
		wh_respond_text(w->http, c, 500, "out of memory\n");
	else
		wh_respond(w->http, c, 200, "text/html; charset=utf-8", NULL,
			   (char *)b.data, b.len, head);
	free(v);
	gh_buf_free(&b);
}

static void metrics_page(watch *w, wh_conn *c, int head)
{
	gh_buf b = GH_BUF_INIT;
	wm_snapshot s;
	wt_view *v = NULL;
	long n = wt_views(w->fleet, &v);

	memset(&s, 0, sizeof(s));
	if (n >= 0) {
		s.t = v;
		s.nt = (size_t)n;
		wt_totals_get(w->fleet, &s.fleet);
		wh_stats_get(w->http, &s.http);
		s.cpu_seconds = cpu_seconds();
		s.rss_bytes = rss_bytes();
		wm_metrics(&s, &b);
	}
	if (n < 0 || b.oom)
		wh_respond_text(w->http, c, 500, "out of memory\n");
	else
		wh_respond(w->http, c, 200, "text/plain; version=0.0.4; "
			   "charset=utf-8", NULL, (char *)b.data, b.len, head);
	free(v);
	gh_buf_free(&b);
}

/* ---- /pprof/PID/KIND ---------------------------------------------------- */

/* Validate the request, answer what can be answered at once, and defer
 * the rest (the collection) to the loop. */
static void pprof_request(watch *w, wh_conn *c, const char *path,
			  const char *q, int head)
{
	char pidbuf[16], vbuf[32];
	const char *slash;
	long pid, debug = 0, secs = 0;
	pprof_job *j;
	size_t n;
	int kind = -1, k;

	/* path is "PID/KIND" */
	slash = strchr(path, '/');
	n = slash ? (size_t)(slash - path) : strlen(path);
	if (n == 0 || n >= sizeof(pidbuf)) {
		wh_respond_text(w->http, c, 404, "404 page not found\n");
		return;
	}
	memcpy(pidbuf, path, n);
	pidbuf[n] = '\0';
	if (parse_long(pidbuf, 1, 0x7fffffff, &pid) != 0) {
		wh_respond_text(w->http, c, 404, "404 page not found\n");
		return;
	}
	if (!wt_watches(w->fleet, (int)pid)) {
		wh_respond_text(w->http, c, 404, "Unknown process (not a Go "
				"process this exporter watches)\n");
		return;
	}
	if (slash == NULL || slash[1] == '\0') {
		index_page(w, c, head);
		return;
	}
	for (k = 0; k < (int)GH_ARRAY_LEN(kinds); k++)
		if (kinds[k] != NULL && strcmp(slash + 1, kinds[k]) == 0)
			kind = k;
	if (strcmp(slash + 1, "goroutineleak") == 0)
		kind = GOHEAP_PROFILE_GOROUTINELEAK;
	if (kind < 0) {
		wh_respond_text(w->http, c, 404, "Unknown profile\n");
		return;
	}
	if (wh_query_get(q, "debug", vbuf, sizeof(vbuf)) != NULL &&
	    parse_long(vbuf, 0, 1000, &debug) != 0)
		debug = 0;  /* Go: strconv.Atoi error means 0 */
	if (gate(w, c, !gor_kind(kind) ? GH_EP_PROFILES :
		       debug >= 2 ? GH_EP_TRACEBACKS : GH_EP_GOROUTINES) != 0)
		return;
	if (w->mode == GH_WATCH_DISABLED) {
		wh_respond_text(w->http, c, 403, "profiling is disabled "
				"(--go-heap-profiler=disabled)\n");
		return;
	}
	if (wh_query_get(q, "seconds", vbuf, sizeof(vbuf)) != NULL) {
		if (parse_long(vbuf, -0x7fffffff, 0x7fffffff, &secs) != 0 ||
		    secs <= 0) {
			wh_respond_text(w->http, c, 400, "invalid value for "
					"\"seconds\"\n");
			return;
		}
		if (debug != 0) {
			wh_respond_text(w->http, c, 400, "seconds and debug "
					"params are incompatible\n");
			return;
		}
		/* types and retained: the growth between two snapshots
		 * N s apart (growth.c) */
		if (gor_kind(kind)) {
			wh_respond_text(w->http, c, 400, "goroutine profiles "
					"are not deltas: ask without "
					"\"seconds\"\n");
			return;
		}
		if (secs > MAX_DELTA_SECONDS) {
			wh_respond_text(w->http, c, 400, "profile duration "
					"exceeds server's WriteTimeout\n");
			return;
		}
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		wh_respond_text(w->http, c, 500, "out of memory\n");
		return;
	}
	j->pid = (int)pid;
	j->kind = kind;
	j->head = head;
	j->debug = debug;
	j->secs = secs;
	/* Collected by the loop, between two turns of the server (503 when
	 * too many answers are pending). */
	if (wh_defer(w->http, c, gh_now(), j) != 0)
		job_free(j);
}

/* Answer text built from the library's or the kernel's words (which may
 * carry a path's bytes) as valid UTF-8. */
static void respond_msg(watch *w, wh_conn *c, int code, const char *msg)
{
	char clean[1200];

	utf8_sanitize(clean, sizeof(clean), msg, strlen(msg));
	wh_respond_text(w->http, c, code, clean);
}

/* Answer with p (or its delta over base) as the handler would. */
static void send_profile(watch *w, wh_conn *c, const pprof_job *j,
			 const goheap_profile *p, const goheap_profile *base)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	char disp[128], err[300], msg[320];
	/* net/http/pprof: ?debug=2 of the goroutine profile is every
	 * goroutine's traceback (WriteTo(w, 2)); other debug values text. */
	int fmt = j->debug <= 0 ? GOHEAP_FORMAT_PPROF :
		  gor_kind(j->kind) && j->debug >= 2 ?
		  GOHEAP_FORMAT_TRACEBACK : GOHEAP_FORMAT_TEXT;

	if (wt_write(w->fleet, j->pid, p, base, fmt, &buf, &len, err,
		     sizeof(err)) != 0) {
		snprintf(msg, sizeof(msg), "%s\n", err);
		respond_msg(w, c, 500, msg);
	} else if (j->debug > 0) {
		wh_respond(w->http, c, 200, "text/plain; charset=utf-8", NULL,
			   buf, len, j->head);
	} else {
		snprintf(disp, sizeof(disp), "Content-Disposition: attachment; "
			 "filename=\"%s%s\"\r\n", kind_str(j->kind),
			 base != NULL ? "-delta" : "");
		wh_respond(w->http, c, 200, "application/octet-stream", disp,
			   buf, len, j->head);
	}
	goheap_free(buf);
}

/* types|retained?seconds=N: the growth from the first snapshot (in j->g)
 * to p, as profile.proto with the single profile's sample types. */
static void send_growth(watch *w, wh_conn *c, const pprof_job *j,
			const goheap_profile *p)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	unsigned char *buf = NULL;
	size_t len = 0;
	char disp[128], msg[600];

	wo.format = GOHEAP_FORMAT_PPROF;
	if (goheap_growth_add(j->g, p) != 0 ||
	    goheap_growth_write(j->g, &wo, &buf, &len) != 0) {
		snprintf(msg, sizeof(msg), "Could not write profile: %s\n",
			 goheap_growth_errmsg(j->g));
		respond_msg(w, c, 500, msg);
		return;
	}
	snprintf(disp, sizeof(disp), "Content-Disposition: attachment; "
		 "filename=\"%s-delta\"\r\n", kinds[j->kind]);
	wh_respond(w->http, c, 200, "application/octet-stream", disp, buf,
		   len, j->head);
	goheap_free(buf);
}

/*
 * One step: the collection (and answer) of a due /pprof request.  A
 * process that was a Go target when asked and is not now (it exited, or
 * exec'd another program, before or during the collection or the
 * ?seconds=N wait) is 410 Gone; 5xx are go-heap's own failures.
 */
static void pprof_step(watch *w, wh_conn *c, pprof_job *j)
{
	goheap_profile *p = NULL;
	unsigned long long gen = 0;
	char err[300], msg[400];
	int rc;

	if (!wt_watches(w->fleet, j->pid)) {
		wh_respond_text(w->http, c, 410, "Could not collect profile: "
				"the process exited\n");
		goto done;
	}
	/* heap?debug=1 ends with the MemStats read as it is made */
	rc = wt_collect(w->fleet, j->pid, j->kind,
			gor_kind(j->kind) && j->debug >= 2,
			j->debug > 0 && j->secs == 0 &&
			(j->kind == GOHEAP_PROFILE_HEAP ||
			 j->kind == GOHEAP_PROFILE_ALLOCS),
			&p, &gen, err, sizeof(err));
	if (rc == 0 && (j->p0 != NULL || j->g != NULL) && gen != j->gen) {
		snprintf(err, sizeof(err), "the process exec'd another program "
			 "during the %ld s", j->secs);
		rc = GOHEAP_ENOPROC;
	}
	if (rc != 0) {
		snprintf(msg, sizeof(msg), "Could not collect profile: %s\n",
			 rc == GOHEAP_EDISABLED ? "memory profiling is disabled "
			 "in the target (runtime.MemProfileRate is 0)" : err);
		respond_msg(w, c, rc == GOHEAP_ENOPROC ? 410 :
			    rc == GOHEAP_EDISABLED && j->p0 == NULL ? 503 : 500,
			    msg);
	} else if (j->secs > 0 && (j->kind == GOHEAP_PROFILE_TYPES ||
				   j->kind == GOHEAP_PROFILE_RETAINED)) {
		if (j->g != NULL) {
			send_growth(w, c, j, p);
			goto out;
		}
		/* the first snapshot's rows only: the profile is freed now */
		rc = goheap_growth_new(&j->g, j->kind);
		if (rc == 0)
			rc = goheap_growth_add(j->g, p);
		goheap_profile_free(p);
		wt_release(w->fleet, j->pid);
		if (rc != 0) {
			respond_msg(w, c, 500, "Could not collect profile: out "
				    "of memory\n");
			goto done;
		}
		j->gen = gen;
		wh_defer(w->http, c, gh_now() + (double)j->secs, j);
		return;
	} else if (j->secs > 0 && j->p0 == NULL) {
		/* ?seconds=N: keep the base, answer the delta in N s. */
		wt_release(w->fleet, j->pid);
		j->p0 = p;
		j->gen = gen;
		wh_defer(w->http, c, gh_now() + (double)j->secs, j);
		return;
	} else {
		send_profile(w, c, j, p, j->p0);
	}
out:
	goheap_profile_free(p);
	wt_release(w->fleet, j->pid);
done:
	job_free(j);
}

static void on_request(void *ctx, wh_server *s, wh_conn *c,
		       const wh_request *r)
{
	watch *w = ctx;

	(void)s;
	if (strcmp(r->path, "/") == 0 || strcmp(r->path, "/pprof") == 0 ||
	    strcmp(r->path, "/pprof/") == 0) {
		if (gate(w, c, GH_EP_METRICS) == 0)
			index_page(w, c, r->head);
	} else if (strcmp(r->path, "/metrics") == 0) {
		if (gate(w, c, GH_EP_METRICS) == 0)
			metrics_page(w, c, r->head);
	} else if (strncmp(r->path, "/pprof/", 7) == 0) {
		pprof_request(w, c, r->path + 7, r->query, r->head);
	} else {
		wh_respond_text(w->http, c, 404, "404 page not found\n");
	}
}

/* ---- the loop ---------------------------------------------------------- */

/*
 * Serve, then do one step of work: a due /pprof request first (a client
 * waits on it; at most WH_MAX_BUSY are pending), else the round's next
 * step.  poll(2) waits only when there is nothing to do: until the next
 * round, a deferred request's due time, a deadline, or 1 s.
 */
static void run(watch *w)
{
	double next = gh_now(), t;
	wh_conn *c;
	void *tok;

	while (!stop_flag) {
		t = gh_now();
		if (!wt_round_active(w->fleet) && t >= next) {
			wt_round_start(w->fleet);
			next += w->interval;
		}
		wh_serve(w->http, wt_round_active(w->fleet) ? 0 :
			 w->pressure != NULL && wp_due_in(w->pressure, t) <
			 next - t ? wp_due_in(w->pressure, t) : next - t);
		if (stop_flag)
			break;
		c = wh_take_due(w->http, gh_now(), &tok);
		if (c != NULL) {
			pprof_step(w, c, tok);
		} else if (w->pressure != NULL &&
			   wp_step(w->pressure, w->fleet, gh_now())) {
			/* a check of the memory limits (watch_pressure.c) */
		} else if (wt_round_active(w->fleet) &&
			   wt_round_step(w->fleet) == 0) {
			/* A round longer than the interval: the next one
			 * starts an interval after it ended. */
			t = gh_now();
			if (next < t)
				next = t + w->interval;
		}
	}
}

int gh_watch_main(int argc, char **argv)
{
	watch w;
	gh_watch_opts o;
	wt_config cfg;
	struct sigaction sa;
	char desc[200], err[300], help[8192];

	if (gh_watch_parse(&o, argc, argv, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "go-heap watch: %s (see go-heap watch --help)\n",
			err);
		gh_watch_opts_free(&o);
		return 2;
	}
	if (o.help) {
		gh_watch_help(help, sizeof(help));
		fputs(help, stdout);
		gh_watch_opts_free(&o);
		return 0;
	}
	memset(&w, 0, sizeof(w));
	w.interval = o.interval;
	w.mode = o.mode;
	w.endpoints = o.endpoints;
	/* The web configuration first: a bad one is a usage error (2),
	 * before anything is started. */
	if (o.webconfig != NULL &&
	    wtls_open(&w.web, o.webconfig, o.verbose, err, sizeof(err)) != 0) {
		fprintf(stderr, "go-heap watch: --web.config.file %s: %s\n",
			o.webconfig, err);
		gh_watch_opts_free(&o);
		return 2;
	}
	if (o.outdir != NULL && mkdir(o.outdir, 0755) != 0 &&
	    errno != EEXIST) {
		fprintf(stderr, "go-heap watch: cannot create %s: %s\n",
			o.outdir, strerror(errno));
		wtls_free(w.web);
		gh_watch_opts_free(&o);
		return 1;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.budget = o.budget;
	cfg.mode = o.mode;
	cfg.gometrics = o.gometrics;
	cfg.outdir = o.outdir;
	cfg.outmax = o.outmax;
	cfg.leak_interval = o.leak_interval;
	cfg.leak_budget = o.leak_budget;
	cfg.leak_max_heap = o.leak_max_heap;
	cfg.pids = o.pids;
	cfg.npids = o.npids;
	cfg.verbose = o.verbose;
	cfg.series = o.series;
	cfg.series_top = o.series_top;
	cfg.ret_interval = o.ret_interval;
	cfg.ret_max_heap = o.ret_max_heap;
	w.fleet = wt_new(&cfg);
	if (w.fleet == NULL) {
		fprintf(stderr, "go-heap watch: out of memory\n");
		wtls_free(w.web);
		gh_watch_opts_free(&o);
		return 1;
	}
	if (wh_open(&w.http, o.listen, on_request, on_drop, &w, desc,
		    sizeof(desc)) != 0) {
		fprintf(stderr, "go-heap watch: cannot listen on %s: %s\n",
			o.listen, strerror(errno));
		wt_free(w.fleet);
		wtls_free(w.web);
		gh_watch_opts_free(&o);
		return 1;
	}
	if (w.web != NULL) {
		wh_set_web(w.http, w.web);
		wtls_describe(w.web, help, sizeof(help));
		fprintf(stderr, "go-heap watch: --web.config.file %s: %s\n",
			o.webconfig, help);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "go-heap watch: listening on %s\n", desc);
	w.loopback = strncmp(desc, "127.", 4) == 0 ||
		     strncmp(desc, "[::1]:", 6) == 0;
	/* Profiles, labels and tracebacks to whoever can connect: never by
	 * default, and said when chosen. */
	if (!w.loopback && !(w.web != NULL && wtls_authenticates(w.web))) {
		if (w.endpoints < 0)
			fprintf(stderr, "go-heap watch: warning: %s is "
				"reachable from other hosts and no "
				"authentication is configured: serving "
				"/metrics only; --web.config.file (TLS, basic "
				"auth; doc/watch.md) serves the profiles to "
				"authenticated clients, --endpoints all to "
				"anyone\n", desc);
		else if (w.endpoints & ~GH_EP_METRICS)
			fprintf(stderr, "go-heap watch: warning: %s is "
				"reachable from other hosts and serves heap "
				"profiles, labels or goroutine tracebacks "
				"without authentication (--endpoints): keep "
				"the port behind a network policy\n", desc);
	}
	if (o.pressure) {
		wp_config pc;

		memset(&pc, 0, sizeof(pc));
		pc.outdir = o.outdir;
		pc.rss = o.pressure_rss;
		pc.period = o.pressure_period;
		pc.verbose = o.verbose;
		w.pressure = wp_new(&pc);
		if (w.pressure == NULL) {
			fprintf(stderr, "go-heap watch: out of memory\n");
			wh_close(w.http);
			wtls_free(w.web);
			wt_free(w.fleet);
			gh_watch_opts_free(&o);
			return 1;
		}
	}
	run(&w);
	wh_close(w.http);       /* drops the deferred requests' profiles */
	wp_free(w.pressure);
	wtls_free(w.web);
	wt_free(w.fleet);
	gh_watch_opts_free(&o);
	return 0;
}

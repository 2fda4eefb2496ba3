/*
 * watch_metrics.c - /metrics (Prometheus text format 0.0.4) and the index
 * page, from a snapshot (wm_snapshot): the targets' numbers (wt_views),
 * the fleet's and the server's figures.  Pure rendering: no I/O.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_metrics.h"

/*
 * A label value as the exposition format wants it: valid UTF-8 (a
 * process may be called anything: the kernel cuts comm at 15 bytes,
 * often inside a character, and paths are bytes), with \\, \" and \n
 * escaped.
 */
static void put_label(gh_buf *b, const char *name, const char *v, int first)
{
	const char *run = v, *esc;

	gh_buf_printf(b, "%s%s=\"", first ? "" : ",", name);
	for (; *v != '\0'; v++) {
		esc = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" :
		      *v == '\n' ? "\\n" : NULL;
		if (esc == NULL)
			continue;
		sb_utf8(b, run, (size_t)(v - run));
		gh_buf_append(b, esc, 2);
		run = v + 1;
	}
	sb_utf8(b, run, (size_t)(v - run));
	gh_buf_append(b, "\"", 1);
}

/* {pid=...,comm=...,exe=...,container_id=...[,state=...]} */
static void put_target_labels(gh_buf *b, const wt_view *t, const char *state)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", t->pid);
	gh_buf_append(b, "{", 1);
	put_label(b, "pid", pid, 1);
	put_label(b, "comm", t->comm, 0);
	put_label(b, "exe", t->exe, 0);
	put_label(b, "container_id", t->container, 0);
	if (state != NULL)
		put_label(b, "state", state, 0);
	gh_buf_append(b, "}", 1);
}

/* One per-target metric family: HELP, TYPE, then a line per Go process. */
enum per_target { PT_COLLECT_SECONDS, PT_ERRORS, PT_OVER_BUDGET };

static void put_per_target(gh_buf *b, const wm_snapshot *s,
			   enum per_target which, const char *name,
			   const char *type, const char *help)
{
	size_t i;

	gh_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < s->nt; i++) {
		const wt_view *t = &s->t[i];

		gh_buf_puts(b, name);
		put_target_labels(b, t, NULL);
		if (which == PT_COLLECT_SECONDS)
			gh_buf_printf(b, " %.6f\n", t->collect_seconds);
		else
			gh_buf_printf(b, " %llu\n", which == PT_ERRORS ?
				  t->errors : t->over_budget);
	}
}

/*
 * v as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, which is how
 * client_golang's text format writes a sample (expfmt writeFloat): the
 * shortest digits that read back, %e form when the exponent is < -4 or
 * >= 6 (two exponent digits at least), integers 0 and 1 as such.
 */
static void put_gofloat(gh_buf *b, double v)
{
	char e[40], digs[24];
	int prec, exp, nd = 0, i;
	const char *p;

	if (v == 0) {
		gh_buf_puts(b, "0");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	p = e;
	if (*p == '-') {
		gh_buf_puts(b, "-");
		p++;
	}
	for (; *p != 'e' && *p != '\0'; p++)
		if (*p >= '0' && *p <= '9' && nd < (int)sizeof(digs) - 1)
			digs[nd++] = *p;
	while (nd > 1 && digs[nd - 1] == '0')
		nd--;
	digs[nd] = '\0';
	exp = *p == 'e' ? atoi(p + 1) : 0;
	if (exp < -4 || exp >= 6) {
		gh_buf_append(b, digs, 1);
		if (nd > 1) {
			gh_buf_puts(b, ".");
			gh_buf_append(b, digs + 1, (size_t)nd - 1);
		}
		gh_buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	} else if (exp < 0) {
		gh_buf_puts(b, "0.");
		for (i = -1; i > exp; i--)
			gh_buf_puts(b, "0");
		gh_buf_puts(b, digs);
	} else {
		for (i = 0; i <= exp || i < nd; i++) {
			if (i == exp + 1)
				gh_buf_puts(b, ".");
			gh_buf_append(b, i < nd ? &digs[i] : "0", 1);
		}
	}
}

/* time.Duration(ns).Seconds(): whole seconds plus the rest / 1e9 */
static double dur_seconds(uint64_t ns)
{
	int64_t d = (int64_t)ns;

	return (double)(d / 1000000000) + (double)(d % 1000000000) / 1e9;
}

/* Take back the "}" put_target_labels ended with, to add a label. */
static void unclose(gh_buf *b)
{
	if (!b->oom && b->len > 0 && b->data[b->len - 1] == '}')
		b->len--;
}

#define GM_FIELD(f) offsetof(goheap_gometrics, f)
#define GM_LAST_GC ((size_t)-1)    /* from last_gc_unix_ns, in seconds */

/*
 * client_golang 1.14's Go collector (prometheus/go_collector.go
 * goRuntimeMemStats and newBaseGoCollector; go_collector_latest.go on Go
 * 1.17+, which fills MemStats from runtime/metrics and leaves out
 * go_memstats_gc_cpu_fraction): per Go process, with its labels.
 * Families in name order, as its registry gathers them.
 */
static void put_gometrics(gh_buf *b, const wm_snapshot *s)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;      /* a uint64_t of goheap_gometrics */
	} ms[] = {
		{ "alloc_bytes", "gauge", "Number of bytes allocated and still "
		  "in use.", GM_FIELD(alloc) },
		{ "alloc_bytes_total", "counter", "Total number of bytes "
		  "allocated, even if freed.", GM_FIELD(total_alloc) },
		{ "buck_hash_sys_bytes", "gauge", "Number of bytes used by the "
		  "profiling bucket hash table.", GM_FIELD(buckhash_sys) },
		{ "frees_total", "counter", "Total number of frees.",
		  GM_FIELD(frees) },
		{ "gc_sys_bytes", "gauge", "Number of bytes used for garbage "
		  "collection system metadata.", GM_FIELD(gc_sys) },
		{ "heap_alloc_bytes", "gauge", "Number of heap bytes allocated "
		  "and still in use.", GM_FIELD(heap_alloc) },
		{ "heap_idle_bytes", "gauge", "Number of heap bytes waiting to "
		  "be used.", GM_FIELD(heap_idle) },
		{ "heap_inuse_bytes", "gauge", "Number of heap bytes that are "
		  "in use.", GM_FIELD(heap_inuse) },
		{ "heap_objects", "gauge", "Number of allocated objects.",
		  GM_FIELD(heap_objects) },
		{ "heap_released_bytes", "gauge", "Number of heap bytes "
		  "released to OS.", GM_FIELD(heap_released) },
		{ "heap_sys_bytes", "gauge", "Number of heap bytes obtained "
		  "from system.", GM_FIELD(heap_sys) },
		{ "last_gc_time_seconds", "gauge", "Number of seconds since "
		  "1970 of last garbage collection.", GM_LAST_GC },
		{ "lookups_total", "counter", "Total number of pointer "
		  "lookups.", GM_FIELD(lookups) },
		{ "mallocs_total", "counter", "Total number of mallocs.",
		  GM_FIELD(mallocs) },
		{ "mcache_inuse_bytes", "gauge", "Number of bytes in use by "
		  "mcache structures.", GM_FIELD(mcache_inuse) },
		{ "mcache_sys_bytes", "gauge", "Number of bytes used for mcache "
		  "structures obtained from system.", GM_FIELD(mcache_sys) },
		{ "mspan_inuse_bytes", "gauge", "Number of bytes in use by "
		  "mspan structures.", GM_FIELD(mspan_inuse) },
		{ "mspan_sys_bytes", "gauge", "Number of bytes used for mspan "
		  "structures obtained from system.", GM_FIELD(mspan_sys) },
		{ "next_gc_bytes", "gauge", "Number of heap bytes when next "
		  "garbage collection will take place.", GM_FIELD(next_gc) },
		{ "other_sys_bytes", "gauge", "Number of bytes used for other "
		  "system allocations.", GM_FIELD(other_sys) },
		{ "stack_inuse_bytes", "gauge", "Number of bytes in use by the "
		  "stack allocator.", GM_FIELD(stack_inuse) },
		{ "stack_sys_bytes", "gauge", "Number of bytes obtained from "
		  "system for stack allocator.", GM_FIELD(stack_sys) },
		{ "sys_bytes", "gauge", "Number of bytes obtained from system.",
		  GM_FIELD(sys) },
	};
	static const char *const qname[5] = { "0", "0.25", "0.5", "0.75",
					      "1" };
	size_t i, k, q;

	gh_buf_puts(b, "# HELP go_gc_duration_seconds A summary of the pause "
	       "duration of garbage collection cycles.\n"
	       "# TYPE go_gc_duration_seconds summary\n");
	for (i = 0; i < s->nt; i++) {
		const goheap_gometrics *g = s->t[i].gm;

		if (g == NULL)
			continue;
		for (q = 0; q < 5; q++) {
			gh_buf_puts(b, "go_gc_duration_seconds");
			put_target_labels(b, &s->t[i], NULL);
			unclose(b);
			gh_buf_printf(b, ",quantile=\"%s\"} ", qname[q]);
			put_gofloat(b, dur_seconds(g->pause_quantiles[q]));
			gh_buf_puts(b, "\n");
		}
		gh_buf_puts(b, "go_gc_duration_seconds_sum");
		put_target_labels(b, &s->t[i], NULL);
		gh_buf_puts(b, " ");
		put_gofloat(b, dur_seconds(g->pause_total_ns));
		gh_buf_puts(b, "\ngo_gc_duration_seconds_count");
		put_target_labels(b, &s->t[i], NULL);
		gh_buf_printf(b, " %llu\n", (unsigned long long)g->num_gc);
	}
	gh_buf_puts(b, "# HELP go_goroutines Number of goroutines that currently "
	       "exist.\n# TYPE go_goroutines gauge\n");
	for (i = 0; i < s->nt; i++)
		if (s->t[i].gm != NULL && s->t[i].gm->goroutines >= 0) {
			gh_buf_puts(b, "go_goroutines");
			put_target_labels(b, &s->t[i], NULL);
			gh_buf_printf(b, " %lld\n",
				  (long long)s->t[i].gm->goroutines);
		}
	gh_buf_puts(b, "# HELP go_info Information about the Go environment.\n"
	       "# TYPE go_info gauge\n");
	for (i = 0; i < s->nt; i++)
		if (s->t[i].gm != NULL) {
			gh_buf_puts(b, "go_info");
			put_target_labels(b, &s->t[i], NULL);
			unclose(b);
			put_label(b, "version", s->t[i].gm->go_version, 0);
			gh_buf_puts(b, "} 1\n");
		}
	for (k = 0; k < GH_ARRAY_LEN(ms); k++) {
		gh_buf_printf(b, "# HELP go_memstats_%s %s\n# TYPE go_memstats_%s "
			  "%s\n", ms[k].name, ms[k].help, ms[k].name,
			  ms[k].type);
		for (i = 0; i < s->nt; i++) {
			const goheap_gometrics *g = s->t[i].gm;
			uint64_t v;

			if (g == NULL)
				continue;
			gh_buf_printf(b, "go_memstats_%s", ms[k].name);
			put_target_labels(b, &s->t[i], NULL);
			gh_buf_puts(b, " ");
			if (ms[k].off == GM_LAST_GC) {
				/* float64(LastGC.UnixNano()) / 1e9 */
				put_gofloat(b, (double)(int64_t)
					    g->last_gc_unix_ns / 1e9);
			} else {
				memcpy(&v, (const char *)g + ms[k].off,
				       sizeof(v));
				put_gofloat(b, (double)v);
			}
			gh_buf_puts(b, "\n");
		}
	}
	gh_buf_puts(b, "# HELP go_threads Number of OS threads created.\n"
	       "# TYPE go_threads gauge\n");
	for (i = 0; i < s->nt; i++)
		if (s->t[i].gm != NULL && s->t[i].gm->threads >= 0) {
			gh_buf_puts(b, "go_threads");
			put_target_labels(b, &s->t[i], NULL);
			gh_buf_printf(b, " %lld\n",
				  (long long)s->t[i].gm->threads);
		}
}

/*
 * go_goroutines_leaked and its check's seconds, per Go process checked
 * (watch --goroutineleak-*): no family at all while none was.
 */
static void put_leaked(gh_buf *b, const wm_snapshot *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nt; i++)
		n += s->t[i].leaked >= 0;
	if (n == 0)
		return;
	gh_buf_puts(b, "# HELP go_goroutines_leaked Goroutines blocked for "
		    "ever on a channel or lock nothing else reaches (go-heap "
		    "-p goroutineleak: the runtime's leak GC from outside), at "
		    "the last check.\n# TYPE go_goroutines_leaked gauge\n");
	for (i = 0; i < s->nt; i++)
		if (s->t[i].leaked >= 0) {
			gh_buf_puts(b, "go_goroutines_leaked");
			put_target_labels(b, &s->t[i], NULL);
			gh_buf_printf(b, " %lld\n", s->t[i].leaked);
		}
	gh_buf_puts(b, "# HELP go_heap_watch_goroutineleak_seconds Time of "
		    "the last leak check of each process.\n"
		    "# TYPE go_heap_watch_goroutineleak_seconds gauge\n");
	for (i = 0; i < s->nt; i++)
		if (s->t[i].leaked >= 0) {
			gh_buf_puts(b, "go_heap_watch_goroutineleak_seconds");
			put_target_labels(b, &s->t[i], NULL);
			gh_buf_printf(b, " %.6f\n", s->t[i].leak_seconds);
		}
}

/*
 * --heap-series: the top K types and retaining roots of each process, from
 * their last collection (a type or root that left the top K has no series
 * from then on), and each kind's age.  Nothing when no process has any.
 */
static void put_series(gh_buf *b, const wm_snapshot *s)
{
	static const struct {
		const char *name, *label, *help;
		int roots, objects;
	} fam[] = {
		{ "go_heap_retained_bytes", "root", "Bytes a root of the heap "
		  "retains (dominates: go-heap -p retained), for the "
		  "--heap-series-top roots that retain the most.", 1, 0 },
		{ "go_heap_type_bytes", "type", "Bytes of the allocated heap "
		  "objects of a type, or of a shape for untyped objects "
		  "(go-heap -p types), for the --heap-series-top types with "
		  "the most bytes.", 0, 0 },
		{ "go_heap_type_objects", "type", "Allocated heap objects of "
		  "a type (go-heap -p types), for the same types as "
		  "go_heap_type_bytes.", 0, 1 },
	};
	size_t i, j, k;
	int any = 0, kind;

	for (i = 0; i < s->nt; i++)
		any |= s->t[i].types.age >= 0 || s->t[i].roots.age >= 0 ||
		       s->t[i].types.seconds > 0 || s->t[i].roots.seconds > 0;
	if (!any)
		return;
	for (k = 0; k < GH_ARRAY_LEN(fam); k++) {
		gh_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", fam[k].name,
			      fam[k].help, fam[k].name);
		for (i = 0; i < s->nt; i++) {
			const wt_series *ss = fam[k].roots ? &s->t[i].roots :
					      &s->t[i].types;

			for (j = 0; j < ss->n; j++) {
				gh_buf_puts(b, fam[k].name);
				put_target_labels(b, &s->t[i], NULL);
				unclose(b);
				put_label(b, fam[k].label, ss->rows[j].name, 0);
				gh_buf_printf(b, "} %lld\n", (long long)
					      (fam[k].objects ?
					       ss->rows[j].objects :
					       ss->rows[j].bytes));
			}
		}
	}
	gh_buf_puts(b, "# HELP go_heap_series_age_seconds Seconds since the "
		    "--heap-series of a process were collected (types every "
		    "round, retained every --retained-series-interval; older "
		    "when backed off).\n"
		    "# TYPE go_heap_series_age_seconds gauge\n");
	for (i = 0; i < s->nt; i++)
		for (kind = 0; kind < 2; kind++) {
			const wt_series *ss = kind ? &s->t[i].roots :
					      &s->t[i].types;

			if (ss->age < 0)
				continue;
			gh_buf_puts(b, "go_heap_series_age_seconds");
			put_target_labels(b, &s->t[i], NULL);
			unclose(b);
			put_label(b, "series", kind ? "retained" : "types", 0);
			gh_buf_printf(b, "} %.3f\n", ss->age);
		}
	gh_buf_puts(b, "# HELP go_heap_series_collect_seconds Time of the last "
		    "--heap-series collection of a process (successful or "
		    "not), against --target-budget.\n"
		    "# TYPE go_heap_series_collect_seconds gauge\n");
	for (i = 0; i < s->nt; i++)
		for (kind = 0; kind < 2; kind++) {
			const wt_series *ss = kind ? &s->t[i].roots :
					      &s->t[i].types;

			if (ss->seconds <= 0)
				continue;
			gh_buf_puts(b, "go_heap_series_collect_seconds");
			put_target_labels(b, &s->t[i], NULL);
			unclose(b);
			put_label(b, "series", kind ? "retained" : "types", 0);
			gh_buf_printf(b, "} %.6f\n", ss->seconds);
		}
}

void wm_metrics(const wm_snapshot *s, gh_buf *b)
{
	static const struct {
		const char *name, *type, *help;
		int which;
	} per[] = {
		{ "container_go_alloc_bytes_total", "counter",
		  "Bytes allocated (heap profile estimate, per-interval "
		  "deltas of the runtime's cumulative bucket counters).", 0 },
		{ "container_go_alloc_objects_total", "counter",
		  "Objects allocated (heap profile estimate).", 1 },
		{ "container_go_inuse_bytes", "gauge",
		  "Bytes in use as of the last completed GC (heap profile).", 2 },
		{ "container_go_inuse_objects", "gauge",
		  "Objects in use as of the last completed GC (heap profile).",
		  3 },
		{ "container_go_mem_profile_rate", "gauge",
		  "runtime.MemProfileRate of the process.", 4 },
	};
	const wt_totals *f = &s->fleet;
	const wh_stats *h = &s->http;
	size_t i, k, nok = 0;

	for (k = 0; k < GH_ARRAY_LEN(per); k++) {
		gh_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", per[k].name,
			  per[k].help, per[k].name, per[k].type);
		for (i = 0; i < s->nt; i++) {
			const wt_view *t = &s->t[i];

			if (!t->have_stats)
				continue;
			gh_buf_append(b, per[k].name, strlen(per[k].name));
			put_target_labels(b, t, NULL);
			switch (per[k].which) {
			case 0:
				gh_buf_printf(b, " %.0f\n", t->alloc_bytes);
				break;
			case 1:
				gh_buf_printf(b, " %.0f\n", t->alloc_objects);
				break;
			case 2:
				gh_buf_printf(b, " %lld\n", t->inuse_bytes);
				break;
			case 3:
				gh_buf_printf(b, " %lld\n", t->inuse_objects);
				break;
			default:
				gh_buf_printf(b, " %lld\n", t->rate);
				break;
			}
		}
	}
	gh_buf_printf(b, "# HELP go_heap_watch_target_state 1 for the state of "
		  "each Go process's last collection.\n"
		  "# TYPE go_heap_watch_target_state gauge\n");
	for (i = 0; i < s->nt; i++) {
		const wt_view *t = &s->t[i];

		nok += t->ok != 0;
		gh_buf_puts(b, "go_heap_watch_target_state");
		put_target_labels(b, t, t->state);
		gh_buf_puts(b, " 1\n");
	}
	put_gometrics(b, s);
	put_leaked(b, s);
	put_series(b, s);
	put_per_target(b, s, PT_COLLECT_SECONDS,
		       "go_heap_watch_target_collect_seconds", "gauge",
		       "Time of the last collection of each process.");
	put_per_target(b, s, PT_ERRORS, "go_heap_watch_target_errors_total",
		       "counter", "Failed collections per process.");
	put_per_target(b, s, PT_OVER_BUDGET,
		       "go_heap_watch_target_over_budget_total", "counter",
		       "Collections that took longer than --target-budget.");
	gh_buf_printf(b,
		  "# HELP go_heap_watch_targets Go processes found.\n"
		  "# TYPE go_heap_watch_targets gauge\n"
		  "go_heap_watch_targets %zu\n"
		  "# HELP go_heap_watch_targets_ok Go processes whose last "
		  "collection succeeded.\n"
		  "# TYPE go_heap_watch_targets_ok gauge\n"
		  "go_heap_watch_targets_ok %zu\n"
		  "# HELP go_heap_watch_scrape_duration_seconds Wall time of "
		  "the last collection round.\n"
		  "# TYPE go_heap_watch_scrape_duration_seconds gauge\n"
		  "go_heap_watch_scrape_duration_seconds %.6f\n"
		  "# HELP go_heap_watch_scrape_cpu_seconds CPU time of the last "
		  "collection round.\n"
		  "# TYPE go_heap_watch_scrape_cpu_seconds gauge\n"
		  "go_heap_watch_scrape_cpu_seconds %.6f\n"
		  "# HELP go_heap_watch_scrapes_total Collection rounds.\n"
		  "# TYPE go_heap_watch_scrapes_total counter\n"
		  "go_heap_watch_scrapes_total %llu\n"
		  "# HELP go_heap_watch_scrape_errors_total Failed target "
		  "collections.\n"
		  "# TYPE go_heap_watch_scrape_errors_total counter\n"
		  "go_heap_watch_scrape_errors_total %llu\n"
		  "# HELP go_heap_watch_http_requests_total HTTP requests.\n"
		  "# TYPE go_heap_watch_http_requests_total counter\n"
		  "go_heap_watch_http_requests_total %llu\n"
		  "# HELP go_heap_watch_http_errors_total HTTP requests "
		  "answered with 4xx/5xx.\n"
		  "# TYPE go_heap_watch_http_errors_total counter\n"
		  "go_heap_watch_http_errors_total %llu\n"
		  "# HELP go_heap_watch_output_files_written_total Delta "
		  "profiles written to --output-dir.\n"
		  "# TYPE go_heap_watch_output_files_written_total counter\n"
		  "go_heap_watch_output_files_written_total %llu\n"
		  "# HELP go_heap_watch_output_files_removed_total Files "
		  "removed by rotation.\n"
		  "# TYPE go_heap_watch_output_files_removed_total counter\n"
		  "go_heap_watch_output_files_removed_total %llu\n"
		  "# HELP go_heap_watch_output_files_refused_total Delta "
		  "profiles not written: the temporary name existed (a "
		  "symlink or file planted in --output-dir).\n"
		  "# TYPE go_heap_watch_output_files_refused_total counter\n"
		  "go_heap_watch_output_files_refused_total %llu\n"
		  "# HELP go_heap_watch_cpu_seconds_total CPU time of the "
		  "exporter.\n"
		  "# TYPE go_heap_watch_cpu_seconds_total counter\n"
		  "go_heap_watch_cpu_seconds_total %.6f\n"
		  "# HELP go_heap_watch_resident_memory_bytes Resident set "
		  "size of the exporter.\n"
		  "# TYPE go_heap_watch_resident_memory_bytes gauge\n"
		  "go_heap_watch_resident_memory_bytes %ld\n",
		  s->nt, nok, f->round_seconds, f->round_cpu, f->rounds,
		  f->errors, h->requests, h->errors, f->out_written,
		  f->out_removed, f->out_refused, s->cpu_seconds,
		  s->rss_bytes);
	gh_buf_printf(b,
		  "# HELP go_heap_watch_connections Open HTTP connections "
		  "(this scrape's included).\n"
		  "# TYPE go_heap_watch_connections gauge\n"
		  "go_heap_watch_connections %zu\n"
		  "# HELP go_heap_watch_connections_max Connection cap; at "
		  "it, the connection idle longest is closed for a new one.\n"
		  "# TYPE go_heap_watch_connections_max gauge\n"
		  "go_heap_watch_connections_max %zu\n"
		  "# HELP go_heap_watch_connections_evicted_total Idle or "
		  "incomplete connections closed to make room.\n"
		  "# TYPE go_heap_watch_connections_evicted_total counter\n"
		  "go_heap_watch_connections_evicted_total %llu\n"
		  "# HELP go_heap_watch_connections_refused_total Connections "
		  "closed at once: every open one was being answered.\n"
		  "# TYPE go_heap_watch_connections_refused_total counter\n"
		  "go_heap_watch_connections_refused_total %llu\n"
		  "# HELP go_heap_watch_connection_memory_bytes Memory held "
		  "by open connections: state, header buffers, unsent "
		  "responses (not the base profiles of parked ?seconds=N "
		  "requests).\n"
		  "# TYPE go_heap_watch_connection_memory_bytes gauge\n"
		  "go_heap_watch_connection_memory_bytes %zu\n"
		  "# HELP go_heap_watch_http_busy_total /pprof requests "
		  "answered 503: too many responses in progress.\n"
		  "# TYPE go_heap_watch_http_busy_total counter\n"
		  "go_heap_watch_http_busy_total %llu\n"
		  "# HELP go_heap_watch_bucket_state_bytes Memory kept "
		  "between collections for the counters' deltas (per-bucket "
		  "cumulative counters).\n"
		  "# TYPE go_heap_watch_bucket_state_bytes gauge\n"
		  "go_heap_watch_bucket_state_bytes %zu\n",
		  h->conns, h->conns_max, h->evicted, h->refused,
		  h->conn_memory, h->busy, f->bucket_state_bytes);
}

static const char *const kinds[] = { "heap", "allocs", "block", "mutex",
				      "goroutine", "types" };

/* Text for the index page: escaped, valid UTF-8. */
static void put_html(gh_buf *b, const char *s)
{
	const char *run = s, *esc;

	for (; *s != '\0'; s++) {
		esc = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" :
		      *s == '&' ? "&amp;" : *s == '"' ? "&quot;" : NULL;
		if (esc == NULL)
			continue;
		sb_utf8(b, run, (size_t)(s - run));
		gh_buf_puts(b, esc);
		run = s + 1;
	}
	sb_utf8(b, run, (size_t)(s - run));
}

void wm_index(const wt_view *v, size_t nt, gh_buf *b)
{
	size_t i, k;

	gh_buf_printf(b, "<html><head><title>go-heap watch</title></head>"
		  "<body><h1>go-heap watch</h1><p><a href=\"/metrics\">"
		  "metrics</a></p><table><tr><th>pid</th><th>comm</th>"
		  "<th>exe</th><th>container</th><th>state</th>"
		  "<th>profiles</th></tr>\n");
	for (i = 0; i < nt; i++) {
		const wt_view *t = &v[i];

		gh_buf_printf(b, "<tr><td>%d</td><td>", t->pid);
		put_html(b, t->comm);
		gh_buf_printf(b, "</td><td>");
		put_html(b, t->exe);
		gh_buf_printf(b, "</td><td>%.12s</td><td>%s</td><td>",
			  t->container, t->state);
		for (k = 0; k < GH_ARRAY_LEN(kinds); k++)
			gh_buf_printf(b, "<a href=\"/pprof/%d/%s?debug=1\">%s</a> ",
				  t->pid, kinds[k], kinds[k]);
		gh_buf_printf(b, "</td></tr>\n");
	}
	gh_buf_printf(b, "</table></body></html>\n");
}

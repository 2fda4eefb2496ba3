/*
 * watch_metrics.h - `go-heap watch`'s read-only pages: the Prometheus
 * text exposition of /metrics and the index page, rendered from a
 * snapshot of the numbers (src/watch/watch_metrics.c, doc/watch.md).  Neither
 * collects nor serves.
 */
#ifndef GH_WATCH_METRICS_H
#define GH_WATCH_METRICS_H

#include <stddef.h>

#include "watch_http.h"
#include "watch_targets.h"
#include "watch_util.h"

typedef struct wm_snapshot {
	const wt_view *t;           /* the Go processes */
	size_t nt;
	wt_totals fleet;
	wh_stats http;
	double cpu_seconds;         /* the exporter's */
	long rss_bytes;
} wm_snapshot;

/* The /metrics body (text format 0.0.4); b->oom on out of memory. */
void wm_metrics(const wm_snapshot *s, gh_buf *b);
/* The index page (HTML): the processes and links to their profiles. */
void wm_index(const wt_view *t, size_t nt, gh_buf *b);

#endif

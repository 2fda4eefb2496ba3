/*
 * watch_pressure.h - go-heap watch --on-memory-pressure: notice a Go
 * process near its memory limit and write its heap, types and retained
 * profiles to --output-dir before the kernel acts (watch_pressure.c,
 * doc/watch.md).  Built on the fleet's public calls (watch_targets.h).
 */
#ifndef GH_WATCH_PRESSURE_H
#define GH_WATCH_PRESSURE_H

#include "watch_targets.h"

typedef struct wp_config {
	const char *outdir;
	unsigned long long rss;     /* bytes; 0: no RSS threshold */
	double period;              /* at most once per process per period */
	int verbose;
} wp_config;

typedef struct wp_state wp_state;

wp_state *wp_new(const wp_config *cfg);
void wp_free(wp_state *p);
/* Seconds until the next check is due (0: now). */
double wp_due_in(const wp_state *p, double now);
/* Check every Go process of the fleet (once a second at most) and write
 * the profiles of those under pressure; 1 if it checked. */
int wp_step(wp_state *p, wt_fleet *f, double now);
/* Profile sets written so far. */
unsigned long long wp_written(const wp_state *p);

#endif

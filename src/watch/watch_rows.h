/*
 * watch_rows.h - --heap-series' rows: a growth snapshot's rows
 * (goheap_growth_rows) gathered, one per name (a type's size classes
 * summed), most bytes first.
 */
#ifndef GH_WATCH_ROWS_H
#define GH_WATCH_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* One series of --heap-series: a type (or shape) or a root, its objects
 * and bytes (a root's: what it dominates). */
typedef struct wt_row {
	char *name;
	int64_t objects, bytes;
} wt_row;

typedef struct wr_vec {
	wt_row *r;
	size_t n, cap;
} wr_vec;

/* goheap_growth_rows' callback: the row appended to payload (a wr_vec);
 * 0 or GOHEAP_ENOMEM. */
int wr_take(const char *name, const char *shape, int64_t objects,
	    int64_t bytes, void *payload);

/* One row per name (their objects and bytes summed), then most bytes
 * first, most objects, by name: the same K chosen in every round. */
void wr_fold(wr_vec *v);

#endif

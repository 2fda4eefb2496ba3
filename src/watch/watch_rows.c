/*
 * watch_rows.c - --heap-series' rows (watch_rows.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "goheap.h"
#include "watch_rows.h"

int wr_take(const char *name, const char *shape, int64_t objects,
	    int64_t bytes, void *payload)
{
	wr_vec *v = payload;
	wt_row *nr;

	(void)shape;      /* a type in several size classes: one series */
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;

		nr = realloc(v->r, cap * sizeof(*nr));
		if (nr == NULL)
			return GOHEAP_ENOMEM;
		v->r = nr;
		v->cap = cap;
	}
	v->r[v->n].name = strdup(name);
	if (v->r[v->n].name == NULL)
		return GOHEAP_ENOMEM;
	v->r[v->n].objects = objects;
	v->r[v->n].bytes = bytes;
	v->n++;
	return 0;
}

static int row_by_name(const void *a, const void *b)
{
	return strcmp(((const wt_row *)a)->name, ((const wt_row *)b)->name);
}

/* Most bytes first; then most objects; then by name (a stable order for
 * ties, so that the same K are chosen in every round). */
static int row_by_bytes(const void *a, const void *b)
{
	const wt_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->objects != y->objects)
		return x->objects > y->objects ? -1 : 1;
	return strcmp(x->name, y->name);
}

void wr_fold(wr_vec *v)
{
	size_t i, j;

	if (v->n < 2)
		return;
	qsort(v->r, v->n, sizeof(*v->r), row_by_name);
	for (i = j = 0; i < v->n; i++) {
		if (j > 0 && strcmp(v->r[j - 1].name, v->r[i].name) == 0) {
			v->r[j - 1].objects += v->r[i].objects;
			v->r[j - 1].bytes += v->r[i].bytes;
			free(v->r[i].name);
			continue;
		}
		v->r[j++] = v->r[i];
	}
	v->n = j;
	qsort(v->r, v->n, sizeof(*v->r), row_by_bytes);
}

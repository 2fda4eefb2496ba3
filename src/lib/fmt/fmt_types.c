/*
 * fmt_types.c - the heap-by-type histogram (heapwalk.c) as text.
 *
 * top:       `jmap -histo`'s table: rank, objects, bytes, average, type
 *            (shape), largest bytes first, the first -n rows, the totals
 * text:      every row, tab-separated, after '#' comment lines
 * collapsed: "type;shape value" (objects; bytes with -s *_space), one
 *            line per row, for flame graphs ("untyped" for shapes)
 * objects:   one line per object: address, size, type address, where
 *            the type comes from (h header, l largeType, - a shape), type
 *            (collected on request only: tests/run-types.sh compares it
 *            with the runtime's own heap dump)
 */
#include "config.h"

#include <stdlib.h>

#include "heapwalk.h"

static int by_bytes(const void *a, const void *b)
{
	const gh_tentry *x = *(const gh_tentry *const *)a;
	const gh_tentry *y = *(const gh_tentry *const *)b;
	int c;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->objects != y->objects)
		return x->objects > y->objects ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c != 0 ? c : strcmp(x->shape, y->shape);
}

/* A name as one frame of a folded stack: ';' separates frames. */
static void put_frame(gh_buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		gh_buf_putc(b, *s == ';' ? ',' : *s);
}

static double pct(uint64_t a, uint64_t b)
{
	return b != 0 ? 100.0 * (double)a / (double)b : 0.0;
}

/* The comment lines every text format starts with. */
static void header(const gh_profile *p, const gh_types *t, gh_buf *b,
		   const char *pfx)
{
	gh_buf_printf(b, "%sgo-heap -p types: every allocated object of the "
		      "Go heap, go1.%d.%d, %s\n", pfx, p->ver.minor,
		      p->ver.patch, p->source);
	gh_buf_printf(b, "%sobjects %llu, bytes %llu (as MemStats HeapObjects, "
		      "HeapAlloc), %llu of %llu spans in use\n", pfx,
		      (unsigned long long)t->objects,
		      (unsigned long long)t->bytes,
		      (unsigned long long)t->spans_inuse,
		      (unsigned long long)t->spans);
	if (t->headers)
		gh_buf_printf(b, "%styped exactly (malloc header, largeType): "
			      "%llu objects (%.1f%%), %llu bytes (%.1f%%); the "
			      "rest by shape\n", pfx,
			      (unsigned long long)t->typed_objects,
			      pct(t->typed_objects, t->objects),
			      (unsigned long long)t->typed_bytes,
			      pct(t->typed_bytes, t->bytes));
	else
		gh_buf_printf(b, "%sgo1.%d has no allocation headers: every "
			      "object is counted by shape\n", pfx,
			      p->ver.minor);
	if (t->unswept_spans > 0)
		gh_buf_printf(b, "%snot swept since the last GC: %llu spans, "
			      "%llu objects, %llu bytes (garbage among them "
			      "still counts, as in MemStats)\n", pfx,
			      (unsigned long long)t->unswept_spans,
			      (unsigned long long)t->unswept_objects,
			      (unsigned long long)t->unswept_bytes);
	if (t->claimed > 0)
		gh_buf_printf(b, "%s%llu slots being allocated (claimed, not "
			      "yet published): counted untyped\n", pfx,
			      (unsigned long long)t->claimed);
	if (t->unnamed > 0)
		gh_buf_printf(b, "%s%llu typed objects have a type outside the "
			      "module's type data (named by address)\n", pfx,
			      (unsigned long long)t->unnamed);
	if (t->bad_spans > 0)
		gh_buf_printf(b, "%swarning: %llu spans left out as implausible "
			      "(damaged or changing data); the first, %s\n",
			      pfx, (unsigned long long)t->bad_spans,
			      t->first_bad);
	if (p->pid != 0)
		gh_buf_printf(b, "%sread while the process ran (no stop): "
			      "best-effort under allocation\n", pfx);
}

int gh_write_types(const gh_profile *p, const gh_wctx *w, int format,
		   gh_buf *out, gh_err *err)
{
	const gh_types *t = p->types;
	const gh_tentry **v;
	size_t i, n;
	int space;

	if (t == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "not a -p types profile");
	if (format == GOHEAP_FORMAT_OBJECTS) {
		if (!t->want_objects)
			return gh_errf(err, GOHEAP_EINVAL, "this types profile "
				       "was collected without its objects");
		gh_buf_append(out, t->objlines.data, t->objlines.len);
		return 0;
	}
	if (format != GOHEAP_FORMAT_TOP && format != GOHEAP_FORMAT_TEXT &&
	    format != GOHEAP_FORMAT_COLLAPSED)
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "-p types is written "
			       "as top, text, collapsed or objects so far");
	v = gh_calloc(t->n + 1, sizeof(*v));
	if (v == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < t->n; i++)
		v[i] = &t->e[i];
	qsort(v, t->n, sizeof(*v), by_bytes);
	switch (format) {
	case GOHEAP_FORMAT_TOP:
		header(p, t, out, "");
		gh_buf_printf(out, "\n %5s %12s %14s %9s  %s\n", "num",
			      "#objects", "#bytes", "avg", "type (shape)");
		gh_buf_printf(out, "%s\n", "-------------------------------"
			      "-------------------------------------------");
		n = w->top_n > 0 && (size_t)w->top_n < t->n ?
		    (size_t)w->top_n : t->n;
		for (i = 0; i < n; i++) {
			const gh_tentry *e = v[i];

			gh_buf_printf(out, " %4zu: %12llu %14llu %9llu  %s",
				      i + 1, (unsigned long long)e->objects,
				      (unsigned long long)e->bytes,
				      (unsigned long long)(e->objects ?
					e->bytes / e->objects : 0), e->name);
			if (e->type != 0)
				gh_buf_printf(out, "  (%s)", e->shape);
			gh_buf_putc(out, '\n');
		}
		if (n < t->n)
			gh_buf_printf(out, " %5s %zu more rows (-n)\n", "...",
				      t->n - n);
		gh_buf_printf(out, " %5s %12llu %14llu\n", "Total",
			      (unsigned long long)t->objects,
			      (unsigned long long)t->bytes);
		break;
	case GOHEAP_FORMAT_TEXT:
		header(p, t, out, "# ");
		gh_buf_printf(out, "objects\tbytes\ttype\tshape\n");
		for (i = 0; i < t->n; i++)
			gh_buf_printf(out, "%llu\t%llu\t%s\t%s\n",
				      (unsigned long long)v[i]->objects,
				      (unsigned long long)v[i]->bytes,
				      v[i]->type != 0 ? v[i]->name : "untyped",
				      v[i]->shape);
		break;
	default:
		space = w->sample_index == GOHEAP_SAMPLE_INUSE_SPACE ||
			w->sample_index == GOHEAP_SAMPLE_ALLOC_SPACE;
		for (i = 0; i < t->n; i++) {
			put_frame(out, v[i]->type != 0 ? v[i]->name :
				  "untyped");
			gh_buf_putc(out, ';');
			put_frame(out, v[i]->shape);
			gh_buf_printf(out, " %llu\n", (unsigned long long)
				      (space ? v[i]->bytes : v[i]->objects));
		}
		break;
	}
	free(v);
	return 0;
}

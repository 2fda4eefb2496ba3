/*
 * fmt_types.c - the heap-by-type histogram (heapwalk.c) as text.
 *
 * top:       `jmap -histo`'s table: rank, objects, bytes, average, type
 *            (shape), largest bytes first, the first -n rows, the totals
 * text:      every row, tab-separated, after '#' comment lines
 * collapsed: "type;shape value" (objects; bytes with -s *_space), one
 *            line per row, for flame graphs ("untyped" for shapes)
 * pprof:     profile.proto, gzip'd: sample types objects/count and
 *            space/bytes, one location per row whose function is the type
 *            (or the shape) and labels "shape" and "size" (the slot size;
 *            0 for large objects), so `go tool pprof -top` lists types
 * objects:   one line per object: address, size, type address, where
 *            the type comes from (h header, l largeType, - a shape), type
 *            (collected on request only: tests/run-types.sh compares it
 *            with the runtime's own heap dump)
 */
#include "config.h"

#include <stdlib.h>

#include "heapwalk.h"
#include "profile.h"
#include "writers.h"
#include "pb.h"

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
	if (t->marked_spans > 0)
		gh_buf_printf(b, "%sthe last GC found unreachable (allocated, "
			      "not marked: the sweep frees them): %llu objects, "
			      "%llu bytes, in %llu unswept spans%s\n", pfx,
			      (unsigned long long)t->unreach_objects,
			      (unsigned long long)t->unreach_bytes,
			      (unsigned long long)t->marked_spans,
			      t->gcphase < 0 ? " (runtime.gcphase unknown: an "
			      "unswept span means _GCoff)" : "");
	if (t->unmarked_spans > 0)
		gh_buf_printf(b, "%s%llu unswept spans without valid mark bits "
			      "(%s): their unreachable objects are not known\n",
			      pfx, (unsigned long long)t->unmarked_spans,
			      t->gcphase > 0 ? "a GC is marking" :
			      "unreadable");
	if (t->claimed > 0)
		gh_buf_printf(b, "%s%llu slots being allocated (claimed, not "
			      "yet published): counted untyped\n", pfx,
			      (unsigned long long)t->claimed);
	if (t->unnamed > 0)
		gh_buf_printf(b, "%s%llu typed objects have a type outside the "
			      "module's type data (named by address)\n", pfx,
			      (unsigned long long)t->unnamed);
	if (t->foreign > 0)
		gh_buf_printf(b, "%swarning: %llu objects have a header or "
			      "largeType that is no type go-heap can trust "
			      "(damaged or changing data): counted by shape\n",
			      pfx, (unsigned long long)t->foreign);
	if (t->bad_spans > 0)
		gh_buf_printf(b, "%swarning: %llu spans left out as implausible "
			      "(damaged or changing data); the first, %s\n",
			      pfx, (unsigned long long)t->bad_spans,
			      t->first_bad);
	if (p->stop.state == 1)
		gh_buf_printf(b, "%sa consistent snapshot: read running, then "
			      "stopped %.3f ms (%.3f ms reading) to re-read "
			      "%llu of %llu spans (%llu full, swept spans not "
			      "read again: no GC ended meanwhile; %llu found "
			      "unswept since)\n",
			      pfx, (p->stop.end - p->stop.begin) * 1e3,
			      t->t_stopwalk * 1e3,
			      (unsigned long long)p->stop.rewalked,
			      (unsigned long long)p->stop.checked,
			      (unsigned long long)t->stable_skipped,
			      (unsigned long long)t->reclassified);
	else if (p->stop.state == 2)
		gh_buf_printf(b, "%sread while the process ran (--no-stop): "
			      "best-effort under allocation\n", pfx);
}

/*
 * The rows as profile.proto, one sample and one location per row (its
 * function named by the type, or the shape).  String indexes: 0 "", 1
 * objects, 2 count, 3 space, 4 bytes, 5 shape, 6 size, 7 the comment;
 * then row i's name and shape at 8 + 2i and 9 + 2i.
 */
static int write_pprof(const gh_profile *p, const gh_types *t,
		       const gh_tentry *const *v, gh_buf *out, gh_err *err)
{
	gh_pb b = GH_PB_INIT;
	gh_buf c = GH_BUF_INIT;
	size_t i, m, m2;
	int64_t val[2];

	gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 1, 2);
	gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 3, 4);
	for (i = 0; i < t->n; i++) {
		uint64_t id = i + 1;

		m = gh_pb_start_message(&b);
		gh_pb_uint64s(&b, 1, &id, 1);
		val[0] = (int64_t)v[i]->objects;
		val[1] = (int64_t)v[i]->bytes;
		gh_pb_int64s(&b, 2, val, 2);
		m2 = gh_pb_start_message(&b);
		gh_pb_int64(&b, 1, 5);
		gh_pb_int64(&b, 2, (int64_t)(9 + 2 * i));
		gh_pb_end_message(&b, 3, m2);
		m2 = gh_pb_start_message(&b);
		gh_pb_int64(&b, 1, 6);
		gh_pb_int64(&b, 3, v[i]->size);
		gh_pb_int64(&b, 4, 4);
		gh_pb_end_message(&b, 3, m2);
		gh_pb_end_message(&b, GH_SPP_SAMPLE, m);
	}
	gh_spp_frames(&b, t->n, 8, 2);
	gh_spp_str(&b, "");
	gh_spp_str(&b, "objects");
	gh_spp_str(&b, "count");
	gh_spp_str(&b, "space");
	gh_spp_str(&b, "bytes");
	gh_spp_str(&b, "shape");
	gh_spp_str(&b, "size");
	header(p, t, &c, "");
	gh_buf_putc(&c, '\0');
	gh_spp_str(&b, c.oom ? "" : (const char *)c.data);
	gh_buf_free(&c);
	for (i = 0; i < t->n; i++) {
		gh_spp_str(&b, v[i]->type != 0 ? v[i]->name : v[i]->shape);
		gh_spp_str(&b, v[i]->shape);
	}
	return gh_spp_finish(&b, p->time_nanos, 3, 4, 7, 0, out, err);
}

int gh_write_types(const gh_profile *p, const gh_wctx *w, int format,
		   gh_buf *out, gh_err *err)
{
	const gh_types *t = gh_types_of(p);
	const gh_tentry **v;
	size_t i, n;
	int space, rc;

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
	    format != GOHEAP_FORMAT_COLLAPSED && format != GOHEAP_FORMAT_PPROF)
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "-p types is written "
			       "as top, text, collapsed, pprof or objects");
	v = gh_calloc(t->n + 1, sizeof(*v));
	if (v == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < t->n; i++)
		v[i] = &t->e[i];
	qsort(v, t->n, sizeof(*v), by_bytes);
	switch (format) {
	case GOHEAP_FORMAT_PPROF:
		rc = write_pprof(p, t, v, out, err);
		free(v);
		return rc;
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

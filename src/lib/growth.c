/*
 * growth.c - what keeps growing: -p types and -p retained over K snapshots
 * of one live process (go-heap --seconds N, --count K --interval N: the
 * CLI takes the snapshots; go-heap watch's /pprof/PID/types?seconds=N).
 *
 * Each snapshot is the product's normal collection (the brief stop
 * included); only its rows are kept: -p types' rows keyed by the pprof
 * function (the type, or the shape) and the shape label, -p retained's by
 * the dominator path pprof shows (root first, fmt_retained.c's
 * gh_retained_rows).  The growth is the last snapshot's values minus the
 * first's, negative allowed (as go tool pprof -diff_base), with the same
 * sample types as the single profile.  A row whose bytes (types) or
 * retained bytes (retained: the dominated bytes of the holders where the
 * path enters its last frame, MAT's accumulation point) grew in every
 * interval of three or more snapshots is a leak suspect.
 * goheap_growth_rows hands out the last snapshot's rows (-p retained: the
 * roots' summaries only), from which go-heap watch --heap-series keeps
 * the top K of one snapshot: the same rows as the growth, so a series and
 * a ?seconds=N delta name a type or a root the same way.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"
#include "heapwalk.h"
#include "retained.h"
#include "fmt/writers.h"
#include "pb.h"

#define GROW_MAX_SNAPS 1000
/* -p retained: the shape of a root's summary row */
#define GROW_ROOT "(root)"

typedef struct grow_row {
	char *key;            /* the frames, ';' between, root/type first */
	char *shape;          /* -p types: the shape label; NULL */
	int64_t first[3], cur[3], prev[3];
	int grew_all;         /* the metric grew in every interval so far */
	int m;                /* the metric: bytes (types), retained */
} grow_row;

typedef struct grow_snap {
	int64_t time_nanos;
	uint64_t objects, bytes;   /* types: allocated; retained: reachable */
	double stop_ms;            /* the brief stop; <0 none */
} grow_snap;

struct goheap_growth {
	int kind;
	int nval;             /* 2 (types) or 3 (retained) */
	grow_row *rows;
	size_t n, cap;
	gh_hmap idx;
	grow_snap *snaps;
	size_t nsnaps, snapcap;
	gh_gover ver;
	char source[256];
	int pid;
	unsigned long long start_time;
	gh_err err;
};

static int metric(const goheap_growth *g)
{
	return g->kind == GOHEAP_PROFILE_RETAINED ? 2 : 1;
}

GOHEAP_EXTERN int goheap_growth_new(goheap_growth **out, int kind)
{
	goheap_growth *g;

	if (out == NULL)
		return GOHEAP_EINVAL;
	*out = NULL;
	if (kind != GOHEAP_PROFILE_TYPES && kind != GOHEAP_PROFILE_RETAINED)
		return GOHEAP_EINVAL;
	g = gh_calloc(1, sizeof(*g));
	if (g == NULL)
		return GOHEAP_ENOMEM;
	g->kind = kind;
	g->nval = kind == GOHEAP_PROFILE_RETAINED ? 3 : 2;
	snprintf(g->err.msg, sizeof(g->err.msg), "no error");
	*out = g;
	return 0;
}

GOHEAP_EXTERN void goheap_growth_free(goheap_growth *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++) {
		free(g->rows[i].key);
		free(g->rows[i].shape);
	}
	free(g->rows);
	free(g->snaps);
	gh_hmap_free(&g->idx);
	free(g);
}

GOHEAP_EXTERN const char *goheap_growth_errmsg(const goheap_growth *g)
{
	return g != NULL ? g->err.msg : "out of memory";
}

GOHEAP_EXTERN size_t goheap_growth_snapshots(const goheap_growth *g)
{
	return g != NULL ? g->nsnaps : 0;
}

static uint64_t row_hash(const char *key, const char *shape)
{
	uint64_t h = gh_fnv1a_str(key);

	if (shape != NULL)
		h = h * 31 + gh_fnv1a_str(shape);
	return h | 1;
}

/* Add v to the row (key, shape) of the snapshot being read. */
static int row_add(goheap_growth *g, const char *key, const char *shape,
		   const int64_t *v)
{
	uint64_t h = row_hash(key, shape), x;
	size_t it;
	grow_row *r;
	int i;

	for (x = gh_hmap_first(&g->idx, h, &it); x != 0;
	     x = gh_hmap_next(&g->idx, h, &it)) {
		r = &g->rows[x - 1];
		if (strcmp(r->key, key) == 0 &&
		    (shape == NULL ? r->shape == NULL :
		     r->shape != NULL && strcmp(r->shape, shape) == 0))
			goto found;
	}
	if (gh_grow(&g->rows, &g->cap, g->n + 1, sizeof(*g->rows)) != 0)
		return GOHEAP_ENOMEM;
	r = &g->rows[g->n];
	memset(r, 0, sizeof(*r));
	r->key = gh_strdup(key);
	r->shape = shape != NULL ? gh_strdup(shape) : NULL;
	if (r->key == NULL || (shape != NULL && r->shape == NULL) ||
	    gh_hmap_add(&g->idx, h, g->n + 1) != 0) {
		free(r->key);
		free(r->shape);
		return GOHEAP_ENOMEM;
	}
	/* absent (0) before: it grew in the first interval when it appears
	 * in the second snapshot, and not in the earlier ones after that */
	r->grew_all = g->nsnaps <= 1;
	r->m = metric(g);
	g->n++;
found:
	for (i = 0; i < g->nval; i++)
		r->cur[i] += v[i];
	return 0;
}

/* A path's row, and its bytes added to its root's summary row (shape
 * "(root)": the bytes the root dominates, whatever path they take, so
 * that a map whose directory grows a size keeps one row). */
static int retained_row(void *ctx, const char *path, const int64_t v[3])
{
	const char *semi = strchr(path, ';');
	char root[512];
	int64_t rv[3] = { v[0], v[1], v[1] };
	int rc = row_add(ctx, path, NULL, v);

	if (rc != 0)
		return rc;
	snprintf(root, sizeof(root), "%.*s",
		 (int)(semi != NULL ? (size_t)(semi - path) : strlen(path)),
		 path);
	return row_add(ctx, root, GROW_ROOT, rv);
}

GOHEAP_EXTERN int goheap_growth_add(goheap_growth *g,
				    const goheap_profile *p)
{
	grow_snap *sn;
	size_t i;
	int rc = 0, m, k;

	if (g == NULL)
		return GOHEAP_EINVAL;
	if (p == NULL || p->kind != g->kind ||
	    (g->kind == GOHEAP_PROFILE_TYPES && gh_types_of(p) == NULL) ||
	    (g->kind == GOHEAP_PROFILE_RETAINED && gh_retained_of(p) == NULL))
		return gh_errf(&g->err, GOHEAP_EINVAL, "a snapshot of another "
			       "kind than the growth's");
	if (g->nsnaps > 0) {
		if (p->pid != g->pid || p->start_time != g->start_time)
			return gh_errf(&g->err, GOHEAP_EMISMATCH, "a snapshot "
				       "of another process");
		if (p->time_nanos < g->snaps[g->nsnaps - 1].time_nanos)
			return gh_errf(&g->err, GOHEAP_EINVAL, "a snapshot "
				       "older than the last one");
	} else {
		g->pid = p->pid;
		g->start_time = p->start_time;
		g->ver = p->ver;
		snprintf(g->source, sizeof(g->source), "%s", p->source);
	}
	if (g->nsnaps >= GROW_MAX_SNAPS)
		return gh_errf(&g->err, GOHEAP_EINVAL, "more than %d "
			       "snapshots", GROW_MAX_SNAPS);
	if (gh_grow(&g->snaps, &g->snapcap, g->nsnaps + 1,
		    sizeof(*g->snaps)) != 0)
		return gh_errf(&g->err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < g->n; i++)
		memset(g->rows[i].cur, 0, sizeof(g->rows[i].cur));
	sn = &g->snaps[g->nsnaps];
	memset(sn, 0, sizeof(*sn));
	sn->time_nanos = p->time_nanos;
	sn->stop_ms = p->stop.state == 1 ?
		      (p->stop.end - p->stop.begin) * 1e3 : -1;
	if (g->kind == GOHEAP_PROFILE_TYPES) {
		const gh_types *t = gh_types_of(p);

		sn->objects = t->objects;
		sn->bytes = t->bytes;
		for (i = 0; i < t->n && rc == 0; i++) {
			const gh_tentry *e = &t->e[i];
			int64_t v[3] = { (int64_t)e->objects,
					 (int64_t)e->bytes, 0 };

			rc = row_add(g, e->type != 0 ? e->name : e->shape,
				     e->shape, v);
		}
	} else {
		const gh_retained *r = gh_retained_of(p);

		sn->objects = r->reach_objects;
		sn->bytes = r->reach_bytes;
		sn->stop_ms = r->snap.on ? r->snap.t_copy * 1e3 : sn->stop_ms;
		rc = gh_retained_rows(r, retained_row, g);
	}
	if (rc != 0)
		return gh_errf(&g->err, rc, "out of memory");
	m = metric(g);
	for (i = 0; i < g->n; i++) {
		grow_row *r = &g->rows[i];

		if (g->nsnaps == 0)
			memcpy(r->first, r->cur, sizeof(r->first));
		else if (r->cur[m] <= r->prev[m])
			r->grew_all = 0;
		for (k = 0; k < 3; k++)
			r->prev[k] = r->cur[k];
	}
	g->nsnaps++;
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

static int64_t delta(const grow_row *r, int k)
{
	return gh_wsub(r->cur[k], r->first[k]);
}

static int by_growth(const void *a, const void *b)
{
	const grow_row *x = *(const grow_row *const *)a;
	const grow_row *y = *(const grow_row *const *)b;
	int m = x->m, c;
	int64_t dx = delta(x, m), dy = delta(y, m);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	dx = delta(x, 0);
	dy = delta(y, 0);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	c = strcmp(x->key, y->key);
	if (c != 0 || x->shape == NULL || y->shape == NULL)
		return c;
	return strcmp(x->shape, y->shape);
}

static int suspect(const goheap_growth *g, const grow_row *r)
{
	return g->nsnaps >= 3 && r->grew_all;
}

static void put_time(gh_buf *b, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	gh_buf_printf(b, "%s.%03dZ", s, (int)(ns % 1000000000 / 1000000));
}

static void header(const goheap_growth *g, size_t nsusp, gh_buf *b,
		   const char *pfx)
{
	const grow_snap *f = &g->snaps[0], *l = &g->snaps[g->nsnaps - 1];
	size_t i;

	gh_buf_printf(b, "%sgo-heap -p %s: growth over %zu snapshots in "
		      "%.3f s, go1.%d.%d, %s\n", pfx,
		      g->kind == GOHEAP_PROFILE_TYPES ? "types" : "retained",
		      g->nsnaps, (double)(l->time_nanos - f->time_nanos) / 1e9,
		      g->ver.minor, g->ver.patch, g->source);
	for (i = 0; i < g->nsnaps; i++) {
		const grow_snap *s = &g->snaps[i];

		gh_buf_printf(b, "%ssnapshot %zu: ", pfx, i + 1);
		put_time(b, s->time_nanos);
		gh_buf_printf(b, " (+%.3f s), %s %llu objects, %llu bytes",
			      (double)(s->time_nanos - f->time_nanos) / 1e9,
			      g->kind == GOHEAP_PROFILE_TYPES ? "allocated" :
			      "reachable", (unsigned long long)s->objects,
			      (unsigned long long)s->bytes);
		if (s->stop_ms >= 0)
			gh_buf_printf(b, ", stopped %.3f ms", s->stop_ms);
		gh_buf_putc(b, '\n');
	}
	gh_buf_printf(b, "%sgrowth: %+lld objects, %+lld bytes (last minus "
		      "first, negative allowed as go tool pprof -diff_base)\n",
		      pfx, (long long)(l->objects - f->objects),
		      (long long)(l->bytes - f->bytes));
	if (g->nsnaps >= 3)
		gh_buf_printf(b, "%sleak suspects (%s grew in each of the %zu "
			      "intervals, marked '!'): %zu\n", pfx,
			      g->kind == GOHEAP_PROFILE_TYPES ? "bytes" :
			      "retained bytes", g->nsnaps - 1, nsusp);
	else
		gh_buf_printf(b, "%sleak suspects need 3 or more snapshots "
			      "(--count)\n", pfx);
}

/* A name as one frame of a folded stack: ';' separates frames. */
static void put_frame(gh_buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		gh_buf_putc(b, *s == ';' ? ',' : *s);
}

/*
 * profile.proto with the single profile's sample types and the rows'
 * deltas as values; one location and function per distinct frame name.
 * Strings: 0 "", the sample types' names and units, "shape" (5),
 * "leak_suspect" (6), the comment (7); from 8 (-p types) each row's
 * shape, then the frames' names.
 */
static int write_pprof(const goheap_growth *g, grow_row **v, size_t n,
		       size_t nsusp, gh_buf *out, gh_err *err)
{
	gh_pb b = GH_PB_INIT;
	gh_buf c = GH_BUF_INIT;
	gh_hmap fx = GH_HMAP_INIT;
	char **names = NULL;
	size_t nn = 0, ncap = 0, i, m, m2;
	uint64_t *locs = NULL;
	size_t lcap = 0;
	int64_t val[3], str0;
	int k, rc = 0, types = g->kind == GOHEAP_PROFILE_TYPES;
	const grow_snap *f = &g->snaps[0], *l = &g->snaps[g->nsnaps - 1];

	/* strings 1.. : the value types */
	if (types) {
		gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 1, 2);  /* objects count */
		gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 3, 4);  /* space bytes */
		str0 = 8;      /* 5 shape, 6 suspect, 7 comment */
	} else {
		gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 1, 2);
		gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 3, 4);
		gh_spp_valtype(&b, GH_SPP_SAMPLE_TYPE, 5, 4);
		str0 = 8;      /* 6 suspect, 7 comment */
	}
	for (i = 0; i < n && rc == 0; i++) {
		char *key, *s, *save = NULL;
		size_t nl = 0, j;

		if (!types && v[i]->shape != NULL)
			continue;       /* a root's summary: its paths say it */
		key = gh_strdup(v[i]->key);
		if (key == NULL) {
			rc = GOHEAP_ENOMEM;
			break;
		}
		for (s = strtok_r(key, ";", &save); s != NULL;
		     s = strtok_r(NULL, ";", &save)) {
			uint64_t h = gh_fnv1a_str(s) | 1, x;
			size_t it;

			for (x = gh_hmap_first(&fx, h, &it); x != 0;
			     x = gh_hmap_next(&fx, h, &it))
				if (strcmp(names[x - 1], s) == 0)
					break;
			if (x == 0) {
				if (gh_grow(&names, &ncap, nn + 1,
					    sizeof(*names)) != 0 ||
				    (names[nn] = gh_strdup(s)) == NULL ||
				    gh_hmap_add(&fx, h, nn + 1) != 0) {
					rc = GOHEAP_ENOMEM;
					break;
				}
				x = ++nn;
			}
			if (gh_grow(&locs, &lcap, nl + 1, sizeof(*locs)) != 0) {
				rc = GOHEAP_ENOMEM;
				break;
			}
			locs[nl++] = x;
		}
		free(key);
		if (rc != 0)
			break;
		/* leaf first */
		for (j = 0; j < nl / 2; j++) {
			uint64_t t = locs[j];

			locs[j] = locs[nl - 1 - j];
			locs[nl - 1 - j] = t;
		}
		m = gh_pb_start_message(&b);
		gh_pb_uint64s(&b, 1, locs, nl);
		for (k = 0; k < g->nval; k++)
			val[k] = delta(v[i], k);
		gh_pb_int64s(&b, 2, val, (size_t)g->nval);
		if (types) {
			m2 = gh_pb_start_message(&b);
			gh_pb_int64(&b, 1, 5);
			gh_pb_int64(&b, 2, str0 + (int64_t)i);
			gh_pb_end_message(&b, 3, m2);
		}
		if (suspect(g, v[i])) {
			m2 = gh_pb_start_message(&b);
			gh_pb_int64(&b, 1, 6);
			gh_pb_int64(&b, 3, 1);
			gh_pb_end_message(&b, 3, m2);
		}
		gh_pb_end_message(&b, GH_SPP_SAMPLE, m);
	}
	if (rc == 0) {
		/* the shapes (types) at str0 + row, then the frames */
		gh_spp_frames(&b, nn, str0 + (types ? (int64_t)n : 0), 1);
		gh_spp_str(&b, "");
		if (types) {
			gh_spp_str(&b, "objects");
			gh_spp_str(&b, "count");
			gh_spp_str(&b, "space");
			gh_spp_str(&b, "bytes");
			gh_spp_str(&b, "shape");
		} else {
			gh_spp_str(&b, "inuse_objects");
			gh_spp_str(&b, "count");
			gh_spp_str(&b, "inuse_space");
			gh_spp_str(&b, "bytes");
			gh_spp_str(&b, "retained_space");
		}
		gh_spp_str(&b, "leak_suspect");
		header(g, nsusp, &c, "");
		gh_buf_putc(&c, '\0');
		gh_spp_str(&b, c.oom ? "" : (const char *)c.data);
		if (types)
			for (i = 0; i < n; i++)
				gh_spp_str(&b, v[i]->shape != NULL ?
					   v[i]->shape : "");
		for (i = 0; i < nn; i++)
			gh_spp_str(&b, names[i]);
		/* the window, as net/http/pprof's delta profiles */
		gh_pb_int64_opt(&b, 10, l->time_nanos - f->time_nanos);
		rc = gh_spp_finish(&b, f->time_nanos, 3, 4, 7,
				   types ? 0 : 3, out, err);
	} else {
		gh_pb_free(&b);
		rc = gh_errf(err, rc, "out of memory");
	}
	gh_buf_free(&c);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	free(locs);
	gh_hmap_free(&fx);
	return rc;
}

static void write_top(const goheap_growth *g, grow_row **v, size_t n,
		      size_t nsusp, int top_n, gh_buf *out)
{
	size_t i, show = top_n > 0 && (size_t)top_n < n ? (size_t)top_n : n;
	int ret = g->kind == GOHEAP_PROFILE_RETAINED;

	header(g, nsusp, out, "");
	if (ret)
		gh_buf_printf(out, "\n %4s %14s %10s %12s %14s  %s\n", "num",
			      "+retained", "+objects", "+own bytes",
			      "retained now", "holder (dominator path, root "
			      "first)");
	else
		gh_buf_printf(out, "\n %4s %10s %14s %12s %14s  %s\n", "num",
			      "+objects", "+bytes", "objects now",
			      "bytes now", "type (shape)");
	gh_buf_printf(out, "%s\n", "-------------------------------------"
		      "-------------------------------------------");
	for (i = 0; i < show; i++) {
		const grow_row *r = v[i];

		if (ret)
			gh_buf_printf(out, " %3zu:%c%+14lld %+10lld %+12lld "
				      "%14lld  %s%s\n", i + 1,
				      suspect(g, r) ? '!' : ' ',
				      (long long)delta(r, 2),
				      (long long)delta(r, 0),
				      (long long)delta(r, 1),
				      (long long)r->cur[2],
				      r->shape != NULL ? "root " : "", r->key);
		else {
			gh_buf_printf(out, " %3zu:%c%+10lld %+14lld %12lld "
				      "%14lld  %s", i + 1,
				      suspect(g, r) ? '!' : ' ',
				      (long long)delta(r, 0),
				      (long long)delta(r, 1),
				      (long long)r->cur[0],
				      (long long)r->cur[1], r->key);
			if (r->shape != NULL && strcmp(r->shape, r->key) != 0)
				gh_buf_printf(out, "  (%s)", r->shape);
			gh_buf_putc(out, '\n');
		}
	}
	if (show < n)
		gh_buf_printf(out, " %4s %zu more rows that changed (-n)\n",
			      "...", n - show);
	if (n == 0)
		gh_buf_printf(out, " (no row changed)\n");
}

static void write_text(const goheap_growth *g, grow_row **v, size_t n,
		       size_t nsusp, gh_buf *out)
{
	size_t i;
	int ret = g->kind == GOHEAP_PROFILE_RETAINED;

	header(g, nsusp, out, "# ");
	if (ret)
		gh_buf_printf(out, "objects_delta\tbytes_delta\t"
			      "retained_delta\tobjects\tbytes\tretained\t"
			      "suspect\tholder\tpath\n");
	else
		gh_buf_printf(out, "objects_delta\tbytes_delta\tobjects\t"
			      "bytes\tsuspect\ttype\tshape\n");
	for (i = 0; i < n; i++) {
		const grow_row *r = v[i];

		if (ret)
			gh_buf_printf(out, "%lld\t%lld\t%lld\t%lld\t%lld\t%lld"
				      "\t%d\t%s\t%s\n", (long long)delta(r, 0),
				      (long long)delta(r, 1),
				      (long long)delta(r, 2),
				      (long long)r->cur[0],
				      (long long)r->cur[1],
				      (long long)r->cur[2], suspect(g, r),
				      r->shape != NULL ? "root" : "path",
				      r->key);
		else
			gh_buf_printf(out, "%lld\t%lld\t%lld\t%lld\t%d\t%s\t%s"
				      "\n", (long long)delta(r, 0),
				      (long long)delta(r, 1),
				      (long long)r->cur[0],
				      (long long)r->cur[1], suspect(g, r),
				      strcmp(r->key, r->shape) == 0 ?
				      "untyped" : r->key, r->shape);
	}
}

GOHEAP_EXTERN int goheap_growth_write(const goheap_growth *gc,
				      const goheap_write_options *wo,
				      unsigned char **out_buf,
				      size_t *out_len)
{
	goheap_growth *g = (goheap_growth *)gc;
	gh_buf out = GH_BUF_INIT;
	grow_row **v;
	size_t i, n = 0, nsusp = 0;
	int rc = 0, k, changed, space;

	if (out_buf == NULL || out_len == NULL)
		return GOHEAP_EINVAL;
	*out_buf = NULL;
	*out_len = 0;
	if (g == NULL || wo == NULL)
		return GOHEAP_EINVAL;
	if (g->nsnaps < 2)
		return gh_errf(&g->err, GOHEAP_EINVAL, "growth needs two "
			       "snapshots or more (%zu taken)", g->nsnaps);
	if (wo->format != GOHEAP_FORMAT_TOP && wo->format != GOHEAP_FORMAT_TEXT &&
	    wo->format != GOHEAP_FORMAT_COLLAPSED &&
	    wo->format != GOHEAP_FORMAT_PPROF)
		return gh_errf(&g->err, GOHEAP_EUNSUPPORTED, "growth is "
			       "written as top, text, collapsed or pprof");
	v = gh_calloc(g->n + 1, sizeof(*v));
	if (v == NULL)
		return gh_errf(&g->err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < g->n; i++) {
		for (changed = 0, k = 0; k < g->nval; k++)
			changed |= delta(&g->rows[i], k) != 0;
		if (!changed)
			continue;
		v[n++] = &g->rows[i];
		nsusp += suspect(g, &g->rows[i]);
	}
	qsort(v, n, sizeof(*v), by_growth);
	switch (wo->format) {
	case GOHEAP_FORMAT_PPROF:
		rc = write_pprof(g, v, n, nsusp, &out, &g->err);
		break;
	case GOHEAP_FORMAT_TOP:
		write_top(g, v, n, nsusp, wo->top_n, &out);
		break;
	case GOHEAP_FORMAT_TEXT:
		write_text(g, v, n, nsusp, &out);
		break;
	default:
		space = wo->sample_index != GOHEAP_SAMPLE_INUSE_OBJECTS &&
			wo->sample_index != GOHEAP_SAMPLE_ALLOC_OBJECTS;
		for (i = 0; i < n; i++) {
			/* fmt_types.c's "type;shape", "untyped;shape" */
			if (g->kind == GOHEAP_PROFILE_TYPES) {
				put_frame(&out, strcmp(v[i]->key,
					  v[i]->shape) == 0 ? "untyped" :
					  v[i]->key);
				gh_buf_putc(&out, ';');
				put_frame(&out, v[i]->shape);
			} else if (v[i]->shape != NULL)
				continue;       /* a root's summary */
			else
				gh_buf_append(&out, v[i]->key,
					      strlen(v[i]->key));
			gh_buf_printf(&out, " %lld\n",
				      (long long)delta(v[i], space ? 1 : 0));
		}
		break;
	}
	free(v);
	if (rc == 0 && out.oom)
		rc = gh_errf(&g->err, GOHEAP_ENOMEM, "out of memory");
	if (rc != 0) {
		gh_buf_free(&out);
		return rc;
	}
	*out_buf = gh_buf_detach(&out, out_len);
	return 0;
}

/* ---- the last snapshot's rows (go-heap watch's series) ------------------ */

GOHEAP_EXTERN int goheap_growth_rows(const goheap_growth *g,
				     goheap_growth_row_fn fn, void *payload)
{
	size_t i;
	int rc;

	if (g == NULL || fn == NULL)
		return GOHEAP_EINVAL;
	if (g->nsnaps == 0)
		return 0;
	for (i = 0; i < g->n; i++) {
		const grow_row *r = &g->rows[i];

		if (r->cur[0] == 0 && r->cur[1] == 0)
			continue;       /* not in the last snapshot */
		if (g->kind == GOHEAP_PROFILE_RETAINED) {
			if (r->shape == NULL)
				continue;       /* a path: its root sums it */
			rc = fn(r->key, NULL, r->cur[0], r->cur[1], payload);
		} else {
			rc = fn(r->key, r->shape, r->cur[0], r->cur[1], payload);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

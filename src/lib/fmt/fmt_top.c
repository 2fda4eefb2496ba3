/*
 * fmt_top.c - a summary paragraph and a `go tool pprof -top` table.
 *
 * The table is what pprof prints for the profile runtime/pprof would have
 * written (fmt_pprof.c), computed directly from the records rather than by
 * decoding our own protobuf: sample values are the proto's (heap values
 * scaled with scaleHeapSample, block/mutex delay converted from cycles to
 * nanoseconds), stacks are the proto's (gh_stackx_sample_frames: leading
 * runtime frames hidden for heap as protomem.go does), and nodes are
 * functions, pprof's default granularity.  From pprof's report package
 * (src/cmd/vendor/github.com/google/pprof/internal/report) it follows:
 * flat = value of samples whose leaf is the function, cum = value of
 * samples containing it, counted once per sample even under recursion;
 * nodes with |cum| below 0.5% of the total are dropped (NodeFraction
 * 0.005); rows are sorted by |flat| desc, then name, then |cum| desc
 * (FlatNameOrder); values use measurement.ScaledLabel with the unit chosen
 * by selectOutputUnit, percentages measurement.Percentage.  The
 * "(inline)" label is not reproduced: it needs the call-graph edges.
 *
 * Function names are the raw symbol names the proto carries
 * (runtime_FrameSymbolName, "[go.shape.int]" kept), as pprof shows them.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt_common.h"
#include "retleak.h"

/* ---- pprof's measurement package -------------------------------------- */

typedef struct unit_def {
	const char *name;
	double factor;
} unit_def;

static const unit_def mem_units[] = {
	{ "B", 1 }, { "kB", 1024.0 }, { "MB", 1048576.0 },
	{ "GB", 1073741824.0 }, { "TB", 1099511627776.0 },
	{ "PB", 1125899906842624.0 },
};
static const unit_def time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "hrs", 3600e9 },
};

typedef struct scaler {
	const unit_def *units;   /* NULL for plain counts */
	size_t nunits;
	const unit_def *deflt;   /* unitType.defaultUnit */
	const unit_def *out;     /* chosen output unit */
} scaler;

static void scaler_init(scaler *sc, const char *unit)
{
	memset(sc, 0, sizeof(*sc));
	if (strcmp(unit, "bytes") == 0) {
		sc->units = mem_units;
		sc->nunits = GH_ARRAY_LEN(mem_units);
		sc->deflt = &mem_units[0];
	} else if (strcmp(unit, "nanoseconds") == 0) {
		sc->units = time_units;
		sc->nunits = GH_ARRAY_LEN(time_units);
		sc->deflt = &time_units[3];
	}
}

/* unitType.autoScale, falling back to the default unit. */
static const unit_def *auto_unit(const scaler *sc, int64_t value)
{
	const unit_def *best = NULL;
	double v = fabs((double)value), f = 0;
	size_t i;

	for (i = 0; i < sc->nunits; i++) {
		if (sc->units[i].factor >= f && v / sc->units[i].factor >= 1.0) {
			f = sc->units[i].factor;
			best = &sc->units[i];
		}
	}
	return best != NULL ? best : sc->deflt;
}

/* Report.selectOutputUnit: fit the smallest value, unless far smaller. */
static void scaler_select(scaler *sc, int64_t minv, int64_t maxv)
{
	const unit_def *umin, *umax;

	if (sc->units == NULL)
		return;
	if (minv == 0)
		minv = maxv;
	umin = auto_unit(sc, minv);
	umax = auto_unit(sc, maxv);
	sc->out = umin;
	if (umin != umax && gh_wmul(minv, 100) < maxv)
		sc->out = auto_unit(sc, gh_wmul(100, minv));
}

/* measurement.ScaledLabel: "%.2f" without ".00", plus the unit. */
static void scaled_label(const scaler *sc, int64_t value, char *buf,
			 size_t len)
{
	const unit_def *u = sc->out != NULL ? sc->out : auto_unit(sc, value);
	double v = (double)value;
	size_t n;

	if (sc->units != NULL)
		v = v / u->factor;
	snprintf(buf, len, "%.2f", v);
	n = strlen(buf);
	if (n >= 3 && strcmp(buf + n - 3, ".00") == 0)
		buf[n - 3] = '\0';
	if (strcmp(buf, "0") == 0 || strcmp(buf, "-0") == 0)
		return;
	if (sc->units != NULL)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", u->name);
}

/* measurement.Percentage. */
static void percentage(int64_t value, int64_t total, char *buf, size_t len)
{
	double ratio = 0;

	if (total != 0)
		ratio = fabs((double)value / (double)total) * 100;
	if (ratio >= 99.95 && ratio <= 100.05)
		snprintf(buf, len, "  100%%");
	else if (ratio >= 1.0)
		snprintf(buf, len, "%5.2f%%", ratio);
	else
		snprintf(buf, len, "%5.2g%%", ratio);
}

/* ---- nodes -------------------------------------------------------------- */

typedef struct node {
	const char *name;
	int64_t flat, cum;
	size_t stamp;         /* last sample counted in cum, plus one */
} node;

/* The nodes by name: FNV-1a of the name -> index + 1. */
typedef struct node_map {
	node *v;
	size_t n, cap;
	gh_hmap index;
} node_map;

static node *node_get(node_map *m, const char *name)
{
	uint64_t h = gh_fnv1a_str(name), k;
	size_t it;
	node *nd;

	for (k = gh_hmap_first(&m->index, h, &it); k != 0;
	     k = gh_hmap_next(&m->index, h, &it)) {
		nd = &m->v[k - 1];
		if (strcmp(nd->name, name) == 0)
			return nd;
	}
	if (gh_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) != 0 ||
	    gh_hmap_add(&m->index, h, (uint64_t)m->n + 1) != 0)
		return NULL;
	nd = &m->v[m->n++];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	return nd;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? gh_wsub(0, v) : v;
}

/* graph.FlatNameOrder; names are unique, so the order is total. */
static int cmp_flat_name(const void *a, const void *b)
{
	const node *l = a, *r = b;
	int c;

	if (abs64(l->flat) != abs64(r->flat))
		return abs64(l->flat) > abs64(r->flat) ? -1 : 1;
	c = strcmp(l->name, r->name);
	if (c != 0)
		return c;
	if (abs64(l->cum) != abs64(r->cum))
		return abs64(l->cum) > abs64(r->cum) ? -1 : 1;
	return 0;
}

/* ---- writer ------------------------------------------------------------- */

static const char *kind_name(int kind)
{
	switch (kind) {
	case GOHEAP_PROFILE_HEAP:
		return "heap";
	case GOHEAP_PROFILE_ALLOCS:
		return "allocs";
	case GOHEAP_PROFILE_BLOCK:
		return "block";
	case GOHEAP_PROFILE_GOROUTINE:
		return "goroutine";
	default:
		return "mutex";
	}
}

static void write_summary(const gh_sampler *smp, const gh_wctx *w,
			  gh_buf *out)
{
	const gh_profile *p = smp->p;
	int64_t ao = 0, ab = 0, fo = 0, fb = 0, cnt = 0, cyc = 0;
	char l1[64], l2[64];
	scaler sc;
	size_t i;

	for (i = 0; i < p->nrecs; i++) {
		ao = gh_wadd(ao, p->recs[i].alloc_objects);
		ab = gh_wadd(ab, p->recs[i].alloc_bytes);
		fo = gh_wadd(fo, p->recs[i].free_objects);
		fb = gh_wadd(fb, p->recs[i].free_bytes);
		cnt = gh_wadd(cnt, p->recs[i].count);
		cyc = gh_wadd(cyc, p->recs[i].cycles);
	}
	if (p->ver.major != 0)
		gh_buf_printf(out, "go%d.%d.%d", p->ver.major, p->ver.minor,
			      p->ver.patch);
	else
		gh_buf_printf(out, "Go (version unknown)");
	gh_buf_printf(out, " %s profile from %s", gh_gor_is_leak(p) ?
		      "goroutineleak" : kind_name(p->kind),
		      p->source[0] != '\0' ? p->source : "an unnamed source");
	if (w->exe_path != NULL)
		gh_buf_printf(out, " (%s)", w->exe_path);
	gh_buf_printf(out, ": %" PRIu64 " %s walked, %zu records",
		      p->nbuckets, p->kind == GOHEAP_PROFILE_GOROUTINE ?
		      "goroutines (allgs)" : "buckets", p->nrecs);
	if (smp->heap) {
		scaler_init(&sc, "bytes");
		scaled_label(&sc, gh_wsub(ab, fb), l1, sizeof(l1));
		scaled_label(&sc, ab, l2, sizeof(l2));
		gh_buf_printf(out,
			      ", MemProfileRate %" PRId64 "; sampled totals"
			      " (before scaling): %s in use in %" PRId64
			      " objects, %s allocated in %" PRId64
			      " objects.\n",
			      p->rate, l1, gh_wsub(ao, fo), l2, ao);
		return;
	}
	if (p->kind == GOHEAP_PROFILE_GOROUTINE) {
		const char *note = gh_gor_of(p)->note;

		gh_buf_printf(out, "; %" PRId64 " goroutines%s%s.\n", cnt,
			      note[0] != '\0' ? "; " : "", note);
		/* -p goroutineleak: what the leaks keep alive, per record */
		if (gh_gor_is_leak(p))
			gh_leak_text_note(p, w->sym, out);
		return;
	}
	scaler_init(&sc, "nanoseconds");
	gh_buf_printf(out, ", %" PRId64 " cycles/second",
		      gh_cycles_per_second(p));
	if (p->kind == GOHEAP_PROFILE_MUTEX)
		gh_buf_printf(out, ", sampling period %" PRId64, p->rate);
	if (smp->cpu_ghz > 0) {
		scaled_label(&sc, gh_go_f2i64((double)cyc / smp->cpu_ghz,
					      smp->f2i), l1, sizeof(l1));
		gh_buf_printf(out, "; %" PRId64 " contentions, %s delay.\n",
			      cnt, l1);
	} else {
		gh_buf_printf(out, "; %" PRId64 " contentions, %" PRId64
			      " cycles.\n", cnt, cyc);
	}
}

int gh_write_top(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		 gh_err *err)
{
	node_map m = { NULL, 0, 0, GH_HMAP_INIT };
	gh_framevec fv = { NULL, 0, 0, 0 };
	gh_stackx *x = NULL;
	gh_sampler smp;
	/* Go's int64(float64) as pprof, run on this host, computes it. */
	int pprof_f2i = gh_f2i_rule(0);
	int64_t total = 0, flatsum = 0, cutoff, v, minv = 0, nodemin, sum;
	char f1[64], f2[64], f3[64], c1[64], c2[64];
	size_t i, j, kept, shown;
	scaler sc;
	node *nd;
	int rc;

	if (p == NULL || w == NULL || w->sym == NULL || out == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "top: missing argument");
	rc = gh_sampler_init(&smp, p, w->sample_index);
	if (rc != 0) {
		gh_errf(err, rc, "top: sample index %d does not apply to a %s"
			" profile", w->sample_index, kind_name(p->kind));
		goto out;
	}
	rc = gh_stackx_new(&x, w->sym, p->ver);
	if (rc != 0)
		goto out;

	for (i = 0; i < p->nrecs; i++) {
		v = gh_sampler_value(&smp, &p->recs[i]);
		total = gh_wadd(total, v);
		/* graph.newGraph skips samples with a zero value. */
		if (v == 0)
			continue;
		rc = gh_stackx_sample_frames(x, p, &p->recs[i], &fv);
		if (rc != 0)
			goto out;
		for (j = 0; j < fv.n; j++) {
			nd = node_get(&m, fv.v[j].function);
			if (nd == NULL) {
				rc = GOHEAP_ENOMEM;
				goto out;
			}
			if (j == 0)
				nd->flat = gh_wadd(nd->flat, v);
			if (nd->stamp != i + 1) {
				nd->cum = gh_wadd(nd->cum, v);
				nd->stamp = i + 1;
			}
		}
	}

	/* newTrimmedGraph: drop nodes with |cum| < 0.5% of the flat sum. */
	for (i = 0; i < m.n; i++)
		flatsum = gh_wadd(flatsum, m.v[i].flat);
	cutoff = abs64(gh_go_f2i64((double)flatsum * 0.005, pprof_f2i));
	kept = 0;
	for (i = 0; i < m.n; i++)
		if (cutoff == 0 || abs64(m.v[i].cum) >= cutoff)
			m.v[kept++] = m.v[i];
	if (kept > 0)
		qsort(m.v, kept, sizeof(*m.v), cmp_flat_name);
	shown = kept;
	if (w->top_n > 0 && (size_t)w->top_n < shown)
		shown = (size_t)w->top_n;

	/* selectOutputUnit over the nodes shown. */
	scaler_init(&sc, smp.unit);
	for (i = 0; i < shown; i++) {
		nodemin = abs64(m.v[i].flat);
		if (nodemin == 0)
			nodemin = abs64(m.v[i].cum);
		if (nodemin > 0 && (minv == 0 || nodemin < minv))
			minv = nodemin;
	}
	if (shown > 0)
		scaler_select(&sc, minv, total);

	write_summary(&smp, w, out);
	gh_buf_printf(out, "Type: %s\n", smp.name);
	sum = 0;
	for (i = 0; i < shown; i++)
		sum = gh_wadd(sum, m.v[i].flat);
	scaled_label(&sc, sum, f1, sizeof(f1));
	percentage(sum, total, f2, sizeof(f2));
	scaled_label(&sc, total, f3, sizeof(f3));
	gh_buf_printf(out, "Showing nodes accounting for %s, %s of %s total\n",
		      f1, f2 + strspn(f2, " "), f3);
	if (total != 0 && kept < m.n) {
		scaled_label(&sc, abs64(gh_go_f2i64((double)total * 0.005,
						    pprof_f2i)), f1,
			     sizeof(f1));
		gh_buf_printf(out, "Dropped %zu node%s (cum <= %s)\n",
			      m.n - kept, m.n - kept > 1 ? "s" : "", f1);
	}
	if (total != 0 && shown > 0 && shown < kept)
		gh_buf_printf(out, "Showing top %zu nodes out of %zu\n", shown,
			      kept);
	gh_buf_printf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat",
		      "sum", "cum", "cum");
	sum = 0;
	for (i = 0; i < shown; i++) {
		nd = &m.v[i];
		sum = gh_wadd(sum, nd->flat);
		scaled_label(&sc, nd->flat, f1, sizeof(f1));
		percentage(nd->flat, total, f2, sizeof(f2));
		percentage(sum, total, f3, sizeof(f3));
		scaled_label(&sc, nd->cum, c1, sizeof(c1));
		percentage(nd->cum, total, c2, sizeof(c2));
		gh_buf_printf(out, "%10s %s %s %10s %s  %s\n", f1, f2, f3, c1,
			      c2, nd->name);
	}
	if (out->oom)
		rc = GOHEAP_ENOMEM;
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "top: out of memory");
	if (w->stats != NULL)
		w->stats->suspect += gh_stackx_suspect(x) + fv.suspect;
	gh_framevec_free(&fv);
	gh_stackx_free(x);
	free(m.v);
	gh_hmap_free(&m.index);
	return rc;
}

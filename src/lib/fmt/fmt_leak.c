/*
 * fmt_leak.c - the writers' side of -p goroutineleak (retleak.c collects):
 * the view of the leaked goroutines only, what each record's goroutines
 * keep alive, the "# go-heap:" lines.  Apart from the collector so that
 * the writers link without the object graph (tests/test_pb.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fmt_common.h"
#include "retleak.h"
#include "sym.h"

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int gh_leak_view(const gh_profile *p, gh_profile *v)
{
	const gh_gorprof *gp = gh_gor_of(p);
	const gh_leak *lk = gp->leak;
	gh_gorprof *vg;
	size_t i, n = 0;

	*v = *p;
	vg = gh_calloc(1, sizeof(*vg));
	v->recs = gh_calloc(gp->ngors + 1, sizeof(*v->recs));
	if (vg != NULL) {
		*vg = *gp;
		vg->gors = gh_calloc(gp->ngors + 1, sizeof(*vg->gors));
	}
	/* the view's part: p's with its own gors, the judgement p's (the
	 * view frees its arrays alone: gh_leak_view_free) */
	v->part = vg;
	v->part_free = NULL;
	if (vg == NULL || vg->gors == NULL || v->recs == NULL) {
		gh_leak_view_free(v);
		return GOHEAP_ENOMEM;
	}
	for (i = 0; i < gp->ngors; i++) {
		if (!gp->gors[i].leaked)
			continue;
		vg->gors[n] = gp->gors[i];
		/* one count-1 record per goroutine, as goroutine.c makes */
		v->recs[n].count = 1;
		v->recs[n].stk = (uint64_t *)gp->gors[i].stk;
		v->recs[n].nstk = gp->gors[i].nstk;
		v->recs[n].bucket = gp->gors[i].addr;
		n++;
	}
	/* goroutine 1 in select {}: the runtime counts it
	 * (work.goroutineLeak.count) but writes no stack for it (its
	 * status went back to _Gwaiting): an empty record, "1 @" */
	if (lk != NULL && lk->main_select) {
		memset(&vg->gors[n], 0, sizeof(vg->gors[n]));
		vg->gors[n].goid = 1;
		vg->gors[n].wait_minutes = -1;
		memset(&v->recs[n], 0, sizeof(v->recs[n]));
		v->recs[n].count = 1;
		n++;
	}
	vg->ngors = v->nrecs = n;
	return 0;
}

void gh_leak_view_free(gh_profile *v)
{
	gh_gorprof *vg = v->part;

	if (vg != NULL)
		free(vg->gors);
	free(vg);
	free(v->recs);
	v->part = NULL;
	v->recs = NULL;
}

/* gors[i] and gors[j] in one printCountProfile record: one stack, one
 * label set. */
static int same_record(const gh_goroutine *a, const gh_goroutine *b)
{
	size_t k;

	if (a->nstk != b->nstk || a->has_labels != b->has_labels ||
	    (a->nstk > 0 &&
	     memcmp(a->stk, b->stk, a->nstk * sizeof(*a->stk)) != 0))
		return 0;
	if (!a->has_labels)
		return 1;
	if (a->nlabels != b->nlabels)
		return 0;
	for (k = 0; k < a->nlabels; k++) {
		const gh_glabel *x = &a->labels[k], *y = &b->labels[k];

		if (x->klen != y->klen || x->vlen != y->vlen ||
		    memcmp(x->key, y->key, x->klen) != 0 ||
		    memcmp(x->value, y->value, x->vlen) != 0)
			return 0;
	}
	return 1;
}

static const gh_leak_held *held_of(const gh_leak *lk, uint64_t goid)
{
	const uint64_t *f = lk->ngoids ? bsearch(&goid, lk->goids, lk->ngoids,
						 sizeof(*lk->goids), u64_cmp) :
					 NULL;

	return f != NULL ? &lk->held[f - lk->goids] : NULL;
}

void gh_leak_group_held(const gh_profile *p, size_t first,
			gh_leak_held *out)
{
	const gh_gorprof *gp = gh_gor_of(p);
	const gh_leak *lk = gp->leak;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (lk == NULL || first >= gp->ngors)
		return;
	for (i = first; i < gp->ngors; i++) {
		const gh_leak_held *h;

		if (i != first && !same_record(&gp->gors[first], &gp->gors[i]))
			continue;
		h = held_of(lk, gp->gors[i].goid);
		if (h != NULL) {
			out->objects += h->objects;
			out->bytes += h->bytes;
		}
	}
}

/* A record's site: the innermost function (FuncForPC at the return PC
 * less one) of its stack outside the runtime and sync packages, else
 * outside the runtime; "?" without symbols. */
static const char *site_name(const gh_sym *sym, const gh_goroutine *g)
{
	const char *fallback = "?";
	size_t i;

	for (i = 0; sym != NULL && i < g->nstk; i++) {
		const char *n = g->stk[i] > 0 ?
			gh_sym_funcforpc_name(sym, g->stk[i] - 1) : NULL;

		if (n == NULL || strncmp(n, "runtime.", 8) == 0)
			continue;
		if (strncmp(n, "sync.", 5) != 0 &&
		    strncmp(n, "internal/", 9) != 0)
			return n;
		if (strcmp(fallback, "?") == 0)
			fallback = n;
	}
	return fallback;
}

void gh_leak_text_note(const gh_profile *p, const gh_sym *sym, gh_buf *out)
{
	const gh_gorprof *gp = gh_gor_of(p);
	const gh_leak *lk = gp->leak;
	gh_gor_group *g = NULL;
	size_t ng = 0, i;

	if (lk == NULL)
		return;
	gh_buf_printf(out, "# go-heap: %zu leaked goroutines keep %llu bytes "
		      "in %llu objects alive (%zu waiting on channels or sync "
		      "judged; graph of %llu objects)\n", lk->ngoids,
		      (unsigned long long)lk->bytes,
		      (unsigned long long)lk->objects, lk->candidates,
		      (unsigned long long)lk->graph_objects);
	gh_buf_printf(out, "# go-heap: the graph read in %.1f ms%s",
		      lk->t_graph * 1e3, lk->graph_stop > 0 ? "" : "\n");
	if (lk->graph_stop > 0)
		gh_buf_printf(out, " (the target stopped %.3f ms), the "
			      "goroutines in %.1f ms\n", lk->graph_stop * 1e3,
			      (lk->t_total - lk->t_graph) * 1e3);
	if (lk->main_select)
		gh_buf_printf(out, "# go-heap: goroutine 1 in select {} is "
			      "not reported (as the runtime)\n");
	if (lk->sema_state >= 2)
		gh_buf_printf(out, "# go-heap: %s: goroutines waiting on "
			      "Mutex, RWMutex or WaitGroup were not judged\n",
			      lk->sema_state == 2 ? "runtime.semtable not "
			      "found (stripped)" : "runtime.semtable damaged");
	if (gh_gor_groups(p, &g, &ng) != 0)
		return;
	for (i = 0; i < ng; i++) {
		gh_leak_held h;

		gh_leak_group_held(p, g[i].first, &h);
		gh_buf_printf(out, "# go-heap: record %zu, %s (%lld "
			      "goroutines): %llu bytes in %llu objects held "
			      "by them alone\n", i + 1,
			      site_name(sym, &gp->gors[g[i].first]),
			      (long long)g[i].count,
			      (unsigned long long)h.bytes,
			      (unsigned long long)h.objects);
	}
	gh_gor_groups_free(g, ng);
}

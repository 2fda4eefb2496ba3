/*
 * retleak.c - leaked goroutines (`-p goroutineleak`) from outside, by the
 * Go runtime's own algorithm (go1.27 src/runtime/mgc.go
 * findGoroutineLeaks, findMaybeRunnableGoroutines, isMaybeRunnable;
 * mgcmark.go allGsSnapshotSortedForGC; doc/goroutineleak.md) on
 * -p retained's object graph:
 *
 *   - a goroutine waiting on a channel operation or a select with cases
 *     (isChanWait), on nil channels or select {} (never runnable), or on
 *     a sync primitive (isSyncWait: Cond.Wait, Mutex, RWMutex, WaitGroup)
 *     is a candidate: its stack is not a root, and the pointers from its
 *     sudogs to what it waits on (sudog.c, sudog.elem) are hidden, as
 *     setSyncObjectsUntraceable hides them;
 *   - marking from every other root, a candidate becomes runnable when
 *     what it waits on is marked or not in the heap (a global): its
 *     stack's roots join the marking; repeated to a fixpoint;
 *   - the candidates left are leaked, but the main goroutine in select {}.
 *
 * Releases before the wait-reason classes (1.19-1.25) are judged the same
 * way from their wait reasons and sync frames (gh_rtlayout's GH_LEAK
 * facts).  Nothing is written to the target and no GC runs in it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "goroutine.h"
#include "retained_int.h"
#include "retleak.h"

enum { C_NONE, C_NEVER, C_CHAN, C_SYNC };

/* A candidate: its class and, in the graph, its stack roots' nodes. */
typedef struct cand {
	uint64_t goid;
	uint32_t gw;          /* gh_retained.gw index */
	int cls;
	int runnable;
	uint32_t r0, r1;      /* roots [r0, r1) of rorder */
	uint64_t *objs;       /* (sudog, what it waits on) pairs, in wobj */
	size_t objs_at, nobjs;
} cand;

/* A hidden edge: node from to node to (a sudog to its channel or
 * semaphore). */
typedef struct hedge {
	uint32_t from, to;
} hedge;

static int he_cmp(const void *x, const void *y)
{
	const hedge *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

static int hidden(const hedge *he, size_t n, uint32_t from, uint32_t to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (he[mid].from < from ||
		    (he[mid].from == from && he[mid].to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && he[lo].from == from && he[lo].to == to;
}

/* The stack roots' order by goid (ties by node); the leaked candidates'
 * (node: their index in cd). */
typedef struct rord {
	uint64_t goid;
	uint32_t node;
} rord;

static int ro_cmp(const void *x, const void *y)
{
	const rord *a = x, *b = y;

	if (a->goid != b->goid)
		return a->goid < b->goid ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

static int s_eq(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* The class of a waiting goroutine's wait (isChanWait, isSyncWait, the
 * never-runnable ones), from its release's wait-reason string. */
static int classify(const gh_rtlayout *l, const gh_ret_gwait *w)
{
	static const char *const never[] = { "chan receive (nil chan)",
		"chan send (nil chan)", "select (no cases)", NULL };
	static const char *const chan[] = { "select", "chan receive",
		"chan send", NULL };
	static const char *const sync[] = { "sync.Cond.Wait",
		"sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.Lock",
		"sync.WaitGroup.Wait", NULL };
	const char *s;

	if (w->waitreason >= l->nwaitreason)
		return C_NONE;
	s = l->waitreason_strings[w->waitreason];
	if (s_eq(s, never))
		return C_NEVER;
	if (s_eq(s, chan))
		return C_CHAN;
	if (s_eq(s, sync))
		return C_SYNC;
	if (l->lk_semacquire_sync && w->sync_frame == 1 &&
	    strcmp(s, "semacquire") == 0)
		return C_SYNC;
	return C_NONE;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* semw triples (g, sudog, elem) sorted by g */
static int sw_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* A (node, predecessor) pair of the graph's reverse edges into sudogs. */
typedef struct rpair {
	uint32_t to, from;
} rpair;

static int rp_cmp(const void *x, const void *y)
{
	const rpair *a = x, *b = y;

	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

/*
 * Before 1.26 a Cond waiter's sudog is on the Cond's notifyList only
 * (notifyListWait sets neither g.waiting nor sudog.elem): what it waits on
 * is found backwards.  Its sudog S: the one object its frame of
 * runtime.notifyListWait (sync.runtime_notifyListWait) points to (the
 * local s, live across the park).
 * The objects pointing to S are the notifyList's holder (head, tail) and
 * the previous waiter's sudog (next), whose own holders are followed: the
 * one object at the end is the Cond's (or what embeds it), as 1.26's
 * sudog.elem would name it.  Anything else (a global or another root
 * pointing at a sudog, two ends, no frame) leaves the waiter not judged.
 * cond[2 * i], cond[2 * i + 1]: gw i's sudog and that object, or 0, 0.
 */
static int cond_waits(const gh_retained *r, const gh_rtlayout *l,
		      uint64_t *cond)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot, e;
	uint32_t *snode = NULL, *st = NULL, *stamp = NULL, *wend = NULL;
	uint8_t *is_wroot = NULL;
	rord *cw = NULL;
	rpair *rp = NULL;
	size_t i, j, nrp = 0, caprp = 0, ncw = 0, capst = 0;
	int rc = GOHEAP_ENOMEM;

	for (i = 0; i < r->ngw; i++)
		if (r->gw[i].waitreason < l->nwaitreason &&
		    strcmp(l->waitreason_strings[r->gw[i].waitreason],
			   "sync.Cond.Wait") == 0)
			ncw++;
	if (ncw == 0)
		return 0;
	snode = gh_calloc(r->ngw, sizeof(*snode));
	wend = gh_calloc(r->ngw, sizeof(*wend));
	cw = gh_calloc(ncw, sizeof(*cw));
	/* per object: 0 not a waiter's sudog, 1 one not visited yet, k + 2
	 * visited by the walk of gw k */
	stamp = gh_calloc(r->nobj ? r->nobj : 1, sizeof(*stamp));
	is_wroot = gh_calloc(r->nroot ? r->nroot : 1, 1);
	if (snode == NULL || wend == NULL || cw == NULL || stamp == NULL ||
	    is_wroot == NULL)
		goto out;
	for (i = j = 0; i < r->ngw; i++) {
		snode[i] = wend[i] = GH_RET_NONE;
		if (r->gw[i].waitreason < l->nwaitreason &&
		    strcmp(l->waitreason_strings[r->gw[i].waitreason],
			   "sync.Cond.Wait") == 0) {
			cw[j].goid = r->gw[i].goid;
			cw[j].node = (uint32_t)i;
			j++;
		}
	}
	if (ncw > 1)
		qsort(cw, ncw, sizeof(*cw), ro_cmp);
	/* each waiter's S, from its notifyListWait frame's one edge */
	for (j = 0; j < r->nroot; j++) {
		const gh_root *o = &r->roots[j];
		const char *name = (const char *)r->names.data + o->name;
		uint64_t v = (uint64_t)r->nobj + j;
		size_t lo = 0, hi = ncw;

		if (o->kind != GH_ROOT_STACK)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cw[mid].goid < o->goid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == ncw || cw[lo].goid != o->goid)
			continue;
		i = cw[lo].node;
		is_wroot[j] = 1;    /* a Cond waiter's own frame */
		/* (linknamed: sync.runtime_notifyListWait) */
		if ((ends_with(name, ": runtime.notifyListWait") ||
		     ends_with(name, ": sync.runtime_notifyListWait")) &&
		    r->off[v + 1] - r->off[v] == 1 &&
		    r->adj[r->off[v]] < r->nobj)
			snode[i] = r->adj[r->off[v]];
	}
	for (i = 0; i < r->ngw; i++)
		if (snode[i] != GH_RET_NONE)
			stamp[snode[i]] = 1;
	/* the edges into them */
	for (e = 0; e < nn; e++) {
		uint64_t k;

		for (k = r->off[e]; k < r->off[e + 1]; k++) {
			if (r->adj[k] >= r->nobj || stamp[r->adj[k]] == 0)
				continue;
			if (gh_grow(&rp, &caprp, nrp + 1, sizeof(*rp)) != 0)
				goto out;
			rp[nrp].to = r->adj[k];
			rp[nrp].from = (uint32_t)e;
			nrp++;
		}
	}
	if (nrp > 1)
		qsort(rp, nrp, sizeof(*rp), rp_cmp);
	/* backwards from each S to the one holder; a list's sudogs are
	 * walked once (a walk reaching another's takes its end) */
	for (i = 0; i < r->ngw; i++) {
		uint32_t end = GH_RET_NONE, me = (uint32_t)i + 2;
		size_t nst = 0, h = 0;
		int bad = 0;

		if (snode[i] == GH_RET_NONE)
			continue;
		if (stamp[snode[i]] >= 2) {
			wend[i] = wend[stamp[snode[i]] - 2];
			goto judged;
		}
		if (gh_grow(&st, &capst, 1, sizeof(*st)) != 0)
			goto out;
		st[nst++] = snode[i];
		stamp[snode[i]] = me;
		while (h < nst && !bad) {
			uint32_t v = st[h++];
			size_t lo = 0, hi = nrp;
			const rpair *f;

			while (lo < hi) {     /* v's first predecessor */
				size_t mid = lo + (hi - lo) / 2;

				if (rp[mid].to < v)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (f = rp + lo; f < rp + nrp && f->to == v && !bad;
			     f++) {
				uint32_t u = f->from, t = u;

				if (u >= r->nobj) {
					/* a root: a Cond waiter's own frame,
					 * else a global's Cond (or anything
					 * else): not judged */
					bad = !is_wroot[u - r->nobj];
					continue;
				}
				if (stamp[u] == me)
					continue;
				if (stamp[u] == 1) {
					if (gh_grow(&st, &capst, nst + 1,
						    sizeof(*st)) != 0)
						goto out;
					stamp[u] = me;
					st[nst++] = u;
					continue;
				}
				if (stamp[u] >= 2) {
					/* another walk's: its end */
					t = wend[stamp[u] - 2];
					if (t == GH_RET_NONE) {
						bad = 1;
						continue;
					}
				}
				if (end != GH_RET_NONE && end != t)
					bad = 1;
				end = t;
			}
		}
		wend[i] = bad ? GH_RET_NONE : end;
judged:
		if (wend[i] == GH_RET_NONE)
			continue;
		cond[2 * i] = r->addr[snode[i]];
		cond[2 * i + 1] = r->addr[wend[i]];
	}
	rc = 0;
out:
	free(snode);
	free(wend);
	free(cw);
	free(st);
	free(stamp);
	free(is_wroot);
	free(rp);
	return rc;
}

int gh_leak_find(gh_retained *r, const gh_rtlayout *l, gh_leak *lk)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot + 1, e;
	cand *cd = NULL;
	size_t ncd = 0, i, j, nhe = 0, capte = 0, nro = 0, nw = 0, capw = 0;
	hedge *he = NULL;
	rord *ro = NULL, *lc = NULL;
	uint64_t *wobj = NULL, *gids = NULL, *cond = NULL;
	uint8_t *seen = NULL;
	uint32_t *q = NULL, h = 0, t = 0;
	int rc = GOHEAP_ENOMEM, more;

	memset(lk, 0, sizeof(*lk));
	lk->sema_state = r->sema_state;
	if (r->nsemw > 0)
		qsort(r->semw, r->nsemw / 3, 3 * sizeof(uint64_t), sw_cmp);
	cd = gh_calloc(r->ngw ? r->ngw : 1, sizeof(*cd));
	cond = gh_calloc(r->ngw ? 2 * r->ngw : 1, sizeof(*cond));
	if (cd == NULL || cond == NULL)
		goto out;
	if (!l->lk_sema_waiting && cond_waits(r, l, cond) != 0)
		goto out;
	/* candidates and what each waits on */
	for (i = 0; i < r->ngw; i++) {
		const gh_ret_gwait *w = &r->gw[i];
		int cls = classify(l, w);
		size_t at0;

		if (cls == C_NONE)
			continue;
		at0 = nw;
		if (cls == C_CHAN) {
			for (j = 0; j < w->n; j++) {
				if (gh_grow(&wobj, &capw, nw + 2,
					    sizeof(*wobj)) != 0)
					goto out;
				wobj[nw++] = r->gwobj[w->at + 3 * j];
				wobj[nw++] = r->gwobj[w->at + 3 * j + 1];
			}
		} else if (cls == C_SYNC && l->lk_sema_waiting) {
			/* isMaybeRunnable: gp.waiting.elem, the first sudog's;
			 * every sudog's elem is hidden */
			if (w->n == 0)
				continue;     /* waiting nil: maybe runnable */
			for (j = 0; j < w->n; j++) {
				if (gh_grow(&wobj, &capw, nw + 2,
					    sizeof(*wobj)) != 0)
					goto out;
				wobj[nw++] = r->gwobj[w->at + 3 * j];
				wobj[nw++] = r->gwobj[w->at + 3 * j + 2];
			}
		} else if (cls == C_SYNC) {
			/* semtable's waiters of this g; a Cond's sudog is on
			 * its notifyList only: its holder found backwards
			 * (cond_waits), else not a candidate */
			uint64_t key[3] = { w->gp, 0, 0 };
			uint64_t *f = r->nsemw ? bsearch(key, r->semw,
					r->nsemw / 3, 3 * sizeof(uint64_t),
					sw_cmp) : NULL;

			if (f == NULL && cond[2 * i] != 0) {
				if (gh_grow(&wobj, &capw, nw + 2,
					    sizeof(*wobj)) != 0)
					goto out;
				wobj[nw++] = cond[2 * i];
				wobj[nw++] = cond[2 * i + 1];
			}
			if (f == NULL && cond[2 * i] == 0)
				continue;
			while (f != NULL && f > r->semw && f[-3] == w->gp)
				f -= 3;
			for (; f != NULL && f < r->semw + r->nsemw &&
			     f[0] == w->gp; f += 3) {
				if (gh_grow(&wobj, &capw, nw + 2,
					    sizeof(*wobj)) != 0)
					goto out;
				wobj[nw++] = f[1];
				wobj[nw++] = f[2];
			}
		}
		cd[ncd].goid = w->goid;
		cd[ncd].gw = (uint32_t)i;
		cd[ncd].cls = cls;
		cd[ncd].objs_at = at0;    /* wobj may move until the end */
		cd[ncd].nobjs = (nw - at0) / 2;
		ncd++;
	}
	for (i = 0; i < ncd; i++)
		cd[i].objs = wobj + cd[i].objs_at;
	/* the hidden edges: each candidate's sudog to what it waits on */
	for (i = 0; i < ncd; i++)
		for (j = 0; j < cd[i].nobjs; j++) {
			uint32_t s = gh_retained_find(r, cd[i].objs[2 * j]);
			uint32_t o = gh_retained_find(r, cd[i].objs[2 * j + 1]);

			if (s == GH_RET_NONE || o == GH_RET_NONE)
				continue;
			if (gh_grow(&he, &capte, nhe + 1, sizeof(*he)) != 0)
				goto out;
			he[nhe].from = s;
			he[nhe].to = o;
			nhe++;
		}
	if (nhe > 1)
		qsort(he, nhe, sizeof(*he), he_cmp);
	/* the stack roots by goid */
	ro = gh_calloc(r->nroot ? r->nroot : 1, sizeof(*ro));
	gids = gh_calloc(ncd ? ncd : 1, sizeof(*gids));
	seen = gh_calloc(nn, 1);
	q = malloc(nn * sizeof(*q));
	if (ro == NULL || gids == NULL || seen == NULL || q == NULL)
		goto out;
	for (i = 0; i < r->nroot; i++)
		if (r->roots[i].kind == GH_ROOT_STACK) {
			ro[nro].goid = r->roots[i].goid;
			ro[nro].node = r->nobj + (uint32_t)i;
			nro++;
		}
	if (nro > 1)
		qsort(ro, nro, sizeof(*ro), ro_cmp);
	for (i = 0; i < ncd; i++) {
		size_t lo = 0, hi = nro;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ro[mid].goid < cd[i].goid)
				lo = mid + 1;
			else
				hi = mid;
		}
		cd[i].r0 = (uint32_t)lo;
		while (lo < nro && ro[lo].goid == cd[i].goid)
			lo++;
		cd[i].r1 = (uint32_t)lo;
		gids[i] = cd[i].goid;
	}
	qsort(gids, ncd, sizeof(*gids), u64_cmp);
	/* every root but the candidates' stacks */
	for (i = 0; i < r->nroot; i++) {
		if (r->roots[i].kind == GH_ROOT_STACK && ncd > 0 &&
		    bsearch(&r->roots[i].goid, gids, ncd, sizeof(*gids),
			    u64_cmp) != NULL)
			continue;
		seen[r->nobj + i] = 1;
		q[t++] = r->nobj + (uint32_t)i;
	}
	do {
		while (h < t) {
			uint32_t v = q[h++];

			for (e = r->off[v]; e < r->off[v + 1]; e++) {
				uint32_t w = r->adj[e];

				if (seen[w] || (nhe > 0 &&
						hidden(he, nhe, v, w)))
					continue;
				seen[w] = 1;
				q[t++] = w;
			}
		}
		/* findMaybeRunnableGoroutines */
		more = 0;
		for (i = 0; i < ncd; i++) {
			cand *c = &cd[i];
			int run = 0;
			uint32_t k;

			if (c->runnable || c->cls == C_NEVER)
				continue;
			for (j = 0; j < c->nobjs && !run; j++) {
				uint32_t o = gh_retained_find(r,
							      c->objs[2 * j + 1]);

				run = o == GH_RET_NONE || seen[o];
				if (c->cls == C_SYNC && l->lk_sema_waiting)
					break;    /* gp.waiting.elem only */
			}
			if (!run)
				continue;
			c->runnable = 1;
			more = 1;
			for (k = c->r0; k < c->r1; k++)
				if (!seen[ro[k].node]) {
					seen[ro[k].node] = 1;
					q[t++] = ro[k].node;
				}
		}
	} while (more || h < t);
	/* the leaked: every candidate left but goroutine 1 in select {} */
	for (i = 0; i < ncd; i++) {
		const gh_ret_gwait *w = &r->gw[cd[i].gw];

		if (cd[i].runnable)
			continue;
		lk->candidates_left++;
		if (w->goid == 1 && w->waitreason < l->nwaitreason &&
		    strcmp(l->waitreason_strings[w->waitreason],
			   "select (no cases)") == 0) {
			lk->main_select = 1;
			continue;
		}
		if (gh_grow(&lk->goids, &lk->capgoids, lk->ngoids + 1,
			    sizeof(*lk->goids)) != 0)
			goto out;
		lk->goids[lk->ngoids++] = w->goid;
	}
	lk->candidates = ncd;
	/* the leaked in goid order, each with its candidate (a linear
	 * search per leaked goroutine was 54 s for 100 000 of them) */
	lc = gh_calloc(lk->ngoids ? lk->ngoids : 1, sizeof(*lc));
	if (lc == NULL)
		goto out;
	for (i = j = 0; i < ncd; i++)
		if (!cd[i].runnable && j < lk->ngoids &&
		    lk->goids[j] == cd[i].goid) {
			lc[j].goid = cd[i].goid;
			lc[j].node = (uint32_t)i;
			j++;
		}
	if (lk->ngoids > 1)
		qsort(lc, lk->ngoids, sizeof(*lc), ro_cmp);
	for (i = 0; i < lk->ngoids; i++)
		lk->goids[i] = lc[i].goid;
	/* what the leaked hold: reached from their stacks and wait objects,
	 * not from the rest (per leaked goroutine, the objects it alone
	 * reaches; a shared one counts in the total only) */
	lk->held = gh_calloc(lk->ngoids ? lk->ngoids : 1,
			     sizeof(*lk->held));
	if (lk->held == NULL)
		goto out;
	{
		uint32_t *own = gh_calloc(nn, sizeof(*own));
		size_t gi;

		if (own == NULL)
			goto out;
		for (gi = 0; gi < lk->ngoids; gi++) {
			const cand *c = &cd[lc[gi].node];
			uint32_t k, mark = (uint32_t)gi + 1, hh = 0, tt = 0;

			for (k = c->r0; k < c->r1; k++)
				q[tt++] = ro[k].node;
			for (j = 0; j < c->nobjs; j++) {
				uint32_t o = gh_retained_find(r,
							      c->objs[2 * j + 1]);

				if (o == GH_RET_NONE || seen[o] ||
				    own[o] == mark || own[o] == UINT32_MAX)
					continue;
				own[o] = own[o] == 0 ? mark : UINT32_MAX;
				q[tt++] = o;
			}
			/* own[]: 0 unvisited, gi + 1 this leak's alone,
			 * UINT32_MAX shared (a node another leak reached
			 * passes that on to what it reaches) */
			while (hh < tt) {
				uint32_t v = q[hh++];

				for (e = r->off[v]; e < r->off[v + 1]; e++) {
					uint32_t w = r->adj[e];

					if (seen[w] || w >= r->nobj ||
					    own[w] == mark ||
					    own[w] == UINT32_MAX ||
					    (nhe > 0 && hidden(he, nhe, v, w)))
						continue;
					own[w] = own[w] == 0 ? mark :
						 UINT32_MAX;
					q[tt++] = w;
				}
			}
		}
		for (i = 0; i < r->nobj; i++) {
			if (own[i] == 0)
				continue;
			lk->objects++;
			lk->bytes += gh_retained_size(r, (uint32_t)i);
			if (own[i] != UINT32_MAX) {
				lk->held[own[i] - 1].objects++;
				lk->held[own[i] - 1].bytes +=
					gh_retained_size(r, (uint32_t)i);
			}
		}
		free(own);
	}
	rc = 0;
out:
	if (rc != 0)
		gh_leak_free(lk);
	free(cd);
	free(he);
	free(ro);
	free(lc);
	free(cond);
	free(wobj);
	free(gids);
	free(seen);
	free(q);
	return rc;
}

int gh_leak_label_roots(gh_retained *r, const gh_rtlayout *l, size_t *n)
{
	gh_leak lk;
	const char **why = NULL;
	size_t i;
	int rc;

	*n = 0;
	rc = gh_leak_find(r, l, &lk);
	if (rc != 0 || lk.ngoids == 0)
		goto out;
	*n = lk.ngoids;
	rc = GOHEAP_ENOMEM;
	why = gh_calloc(lk.ngoids, sizeof(*why));
	if (why == NULL)
		goto out;
	for (i = 0; i < r->ngw; i++) {
		const gh_ret_gwait *w = &r->gw[i];
		uint64_t *f = bsearch(&w->goid, lk.goids, lk.ngoids,
				      sizeof(*lk.goids), u64_cmp);

		if (f != NULL)
			why[f - lk.goids] = w->waitreason < l->nwaitreason ?
				l->waitreason_strings[w->waitreason] : "waiting";
	}
	for (i = 0; i < r->nroot; i++) {
		gh_root *o = &r->roots[i];
		uint64_t *f;
		char old[320], pre[32];
		size_t np;

		if (o->kind != GH_ROOT_STACK)
			continue;
		f = bsearch(&o->goid, lk.goids, lk.ngoids, sizeof(*lk.goids),
			    u64_cmp);
		if (f == NULL)
			continue;
		/* retstack.c's emit: "goroutine N" then ": f", ": sched.ctxt",
		 * ": defer records" or nothing (the rest of the stack) */
		snprintf(old, sizeof(old), "%s",
			 (const char *)r->names.data + o->name);
		np = (size_t)snprintf(pre, sizeof(pre), "goroutine %llu",
				      (unsigned long long)o->goid);
		if (strncmp(old, pre, np) != 0)
			np = 0;
		o->kind = GH_ROOT_LEAKED;
		o->name = r->names.len;
		gh_buf_printf(&r->names, "leaked goroutine %llu [%s]%s",
			      (unsigned long long)o->goid,
			      why[f - lk.goids] ? why[f - lk.goids] : "waiting",
			      np ? old + np : "");
		gh_buf_putc(&r->names, '\0');
		if (r->names.oom)
			goto out;
	}
	rc = 0;
out:
	free(why);
	gh_leak_free(&lk);
	return rc;
}

/* The goroutines lk lists marked leaked (for -f traceback, which like
 * the runtime's debug=2 writes them all; gh_leak_view keeps only them),
 * and p's records kept for them alone. */
static void mark_leaked(gh_profile *p, const gh_leak *lk)
{
	const gh_gorprof *gp = gh_gor_of(p);
	size_t i, n = 0;

	for (i = 0; i < gp->ngors; i++) {
		if (lk->ngoids == 0 ||
		    bsearch(&gp->gors[i].goid, lk->goids, lk->ngoids,
			    sizeof(*lk->goids), u64_cmp) == NULL)
			continue;
		gp->gors[i].leaked = 1;
		/* the records (goheap_profile_record) are the leaked
		 * goroutines' only */
		if (p->recs != NULL && i < p->nrecs)
			p->recs[n++] = p->recs[i];
	}
	if (p->recs != NULL)
		p->nrecs = n;
}

int gh_goroutineleak_collect(gh_profile *p, gh_target *s)
{
	gh_profile q = *p;
	gh_retained *r;
	gh_gorprof *gp;
	gh_leak *lk;
	double t0 = gh_now();
	int rc;

	if (s->lay->g_waiting == 0)
		return gh_errf(&s->err, GOHEAP_EUNSUPPORTED, "-p goroutineleak: "
			       "go1.%d: g.waiting and sudog not known",
			       s->ver.minor);
	lk = gh_calloc(1, sizeof(*lk));
	if (lk == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	/* the graph (under the brief stop, as -p retained), then the
	 * goroutines: a leaked goroutine stays as it is between the two */
	q.kind = GOHEAP_PROFILE_RETAINED;
	q.part_kind = GH_PART_NONE;
	q.part = NULL;
	q.part_free = NULL;
	rc = gh_retained_collect_leak(&q, s);
	r = gh_retained_of(&q);
	if (rc == 0) {
		rc = gh_leak_find(r, s->lay, lk);
		if (rc != 0)
			rc = gh_errf(&s->err, rc, "-p goroutineleak: out of "
				     "memory");
	}
	if (rc == 0) {
		lk->graph_objects = r->nobj;
		lk->graph_edges = r->nedges;
		lk->snap = r->snap;
		lk->graph_stop = q.stop.state == 1 ?
				 q.stop.end - q.stop.begin : 0;
	}
	gh_profile_free_part(&q);   /* q's records and maps are p's */
	if (rc != 0) {
		gh_leak_free(lk);
		free(lk);
		return rc;
	}
	lk->t_graph = gh_now() - t0;
	rc = gh_gor_collect(p, s);
	if (rc != 0) {
		gh_leak_free(lk);
		free(lk);
		return rc;
	}
	mark_leaked(p, lk);
	gp = gh_gor_part(p);
	gp->leak = lk;
	gp->leak_free = gh_leak_free;
	p->part_kind = GH_PART_GOROUTINELEAK;
	lk->t_total = gh_now() - t0;
	return 0;
}

/* retleak.h: a record's arrays, freed with the profile through its
 * goroutine part's leak_free */
void gh_leak_free(gh_leak *lk)
{
	if (lk == NULL)
		return;
	free(lk->goids);
	free(lk->held);
	memset(lk, 0, sizeof(*lk));
}

/*
 * gorsnap.c - the goroutine snapshot of a live process: read running, then stopped briefly to re-read only the g headers that changed (one bulk read) and the running threads' registers (goroutine_int.h).
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "goroutine_int.h"

/* ---- the snapshot ------------------------------------------------- */

/*
 * One allgs slot: one_g, and what the snapshot must remember of it.
 */
int gor_snap_one(gor_build *bd, uint32_t idx, uint64_t gp)
{
	size_t ngs0 = bd->ngs;
	uint64_t unr0 = bd->unreadable;
	int rc;

	bd->cur_idx = idx;
	bd->cur_hash = 0;
	bd->cur_flags = 0;
	rc = gor_one_g(bd, gp);
	if (rc != 0 || bd->hdr == NULL || idx >= bd->nhdr)
		return rc;
	bd->hdr[idx].gp = gp;
	bd->hdr[idx].hash = bd->cur_hash;
	bd->hdr[idx].flags = (unsigned char)(bd->cur_flags |
		(bd->unreadable != unr0 ? GOR_HDR_UNREADABLE : 0));
	bd->hdr[idx].tmp = bd->ngs != ngs0 ? (int32_t)(bd->ngs - 1) : -1;
	return 0;
}

/*
 * Re-read slot idx while stopped: its old record (if any) is dropped
 * and one_g appends the new one.
 */
static int snap_reread(gor_build *bd, uint32_t idx, uint64_t gp)
{
	if (idx < bd->nhdr && bd->hdr[idx].tmp >= 0)
		bd->gs[bd->hdr[idx].tmp].dropped = 1;
	if (idx < bd->nhdr && (bd->hdr[idx].flags & GOR_HDR_UNREADABLE))
		bd->unreadable--;
	return gor_snap_one(bd, idx, gp);
}

/*
 * Bulk header reads: the g's sorted by address and merged into runs
 * (g's are heap objects of one size class, mostly adjacent), read with
 * one iovec a run: process_vm_readv's cost is per iovec (pinning the
 * target's pages), about 0.6 us each, against a few ns a byte copied.
 * The plan is made before the stop; only the reads happen during it.
 */
#define GOR_RUN_GAP 1024u            /* merge g's this close */
#define GOR_RUN_MAX 65536u           /* bytes of one run */
#define GOR_BATCH_BYTES (256u << 10)  /* run bytes per bulk read (cache-warm) */
/* headers to re-read at which a second reader thread pays: below it, its
 * start and the two threads' contention for the target's mm cost more
 * than sharing the copy and the compare gains (bench/README.md: the
 * headers of 10 000 goroutines, 4.8 MB, 1.15 -> 0.87 ms; of 100 000,
 * 14.2 -> 8.4 ms stopped) */
#ifndef GOR_THREAD_BYTES         /* -D: the benchmark's one-reader build */
#define GOR_THREAD_BYTES (4u << 20)
#endif

typedef struct gor_ord {
	gor_hdr h;                /* a copy: read in address order */
	uint32_t idx;
} gor_ord;

typedef struct snap_share {
	const gor_build *bd;
	struct gor_plan *pl;
	const size_t *bfirst;
	size_t nb;
	int fing_changed;
	atomic_size_t next;       /* next batch to take */
	atomic_size_t done;       /* batches finished */
	atomic_int enoproc;
} snap_share;

typedef struct snap_part {
	snap_share *sh;
	unsigned char *buf;
	uint32_t *chg, *redo;     /* slot indexes / ord indexes */
	size_t nchg, capchg, nredo, capredo;
	int nomem;
	double t_read;            /* seconds in the bulk reads */
	uint64_t calls;
} snap_part;

typedef struct gor_plan {
	gor_ord *ord;             /* the slots by g address */
	size_t nord;
	uint64_t *raddr;          /* run r: raddr[r], rlen[r] bytes, slots */
	size_t *rlen, *rfirst;    /* ord[rfirst[r] .. rfirst[r + 1]) */
	size_t nruns;
	unsigned char *buf, *ok;  /* one batch's bytes, its runs' success */
	unsigned char *buf2;      /* the second reader's batch (NULL: none) */
	size_t bufsz, bytes;      /* bytes: of all runs */
	size_t *bfirst;           /* the stopped re-read's batches */
	snap_part parts[2];       /* its two readers (snap_changed) */
	snap_share share;         /* their shared state */
	pthread_t th;             /* the second reader, if started */
	int started;
} gor_plan;

static int ord_cmp(const void *a, const void *b)
{
	const gor_ord *x = a, *y = b;

	if (x->h.gp != y->h.gp)
		return x->h.gp < y->h.gp ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void plan_free(gor_plan *pl)
{
	size_t k;

	if (pl->started)
		pthread_join(pl->th, NULL);
	for (k = 0; k < 2; k++) {
		free(pl->parts[k].chg);
		free(pl->parts[k].redo);
	}
	free(pl->bfirst);
	free(pl->ord);
	free(pl->raddr);
	free(pl->rlen);
	free(pl->rfirst);
	free(pl->buf);
	free(pl->buf2);
	free(pl->ok);
	memset(pl, 0, sizeof(*pl));
}

static int s_has_readv(const gor_build *bd)
{
	return bd->tg->caps->readv != NULL;
}

static int snap_plan(gor_build *bd, size_t n, gor_plan *pl)
{
	uint64_t span = gor_g_span(bd->lay), end = 0;
	size_t i, r = 0, batch = 0;

	memset(pl, 0, sizeof(*pl));
	pl->ord = gh_calloc(n ? n : 1, sizeof(*pl->ord));
	pl->raddr = gh_calloc(n + 1, sizeof(*pl->raddr));
	pl->rlen = gh_calloc(n + 1, sizeof(*pl->rlen));
	pl->rfirst = gh_calloc(n + 1, sizeof(*pl->rfirst));
	pl->bfirst = gh_calloc(n + 2, sizeof(*pl->bfirst));
	if (pl->ord == NULL || pl->raddr == NULL || pl->rlen == NULL ||
	    pl->rfirst == NULL || pl->bfirst == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		pl->ord[i].h = bd->hdr[i];
		pl->ord[i].idx = (uint32_t)i;
	}
	pl->nord = n;
	if (n > 1)
		qsort(pl->ord, n, sizeof(*pl->ord), ord_cmp);
	for (i = 0; i < n; i++) {
		uint64_t gp = pl->ord[i].h.gp;

		if (gp + span < gp)
			gp = UINT64_MAX - span;   /* hostile: read fails */
		if (r > 0 && gp <= end + GOR_RUN_GAP &&
		    gp + span - pl->raddr[r - 1] <= GOR_RUN_MAX) {
			if (gp + span > end)
				end = gp + span;
			pl->rlen[r - 1] = (size_t)(end - pl->raddr[r - 1]);
			continue;
		}
		pl->raddr[r] = gp;
		pl->rlen[r] = (size_t)span;
		pl->rfirst[r] = i;
		end = gp + span;
		r++;
	}
	pl->nruns = r;
	pl->rfirst[r] = n;
	for (i = 0; i < r; i++)
		pl->bytes += pl->rlen[i];
	for (i = 0; i < r; i++)
		if ((batch += pl->rlen[i]) >= GOR_BATCH_BYTES)
			break;
	pl->bufsz = batch > GOR_BATCH_BYTES + GOR_RUN_MAX ?
		    GOR_BATCH_BYTES + GOR_RUN_MAX : batch;
	pl->buf = gh_calloc(pl->bufsz ? pl->bufsz : 1, 1);
	pl->ok = gh_calloc(r ? r : 1, 1);
	if (pl->buf == NULL || pl->ok == NULL)
		goto nomem;
	/* fault the buffer in now: not while the target waits */
	memset(pl->buf, 0xa5, pl->bufsz);
	if (pl->bytes >= GOR_THREAD_BYTES && s_has_readv(bd)) {
		pl->buf2 = gh_calloc(pl->bufsz, 1);   /* none: one reader */
		if (pl->buf2 != NULL)
			memset(pl->buf2, 0xa5, pl->bufsz);
	}
	return 0;
nomem:
	plan_free(pl);
	return GOHEAP_ENOMEM;
}

/* Did slot h change?  gb: its header now, NULL if unreadable. */
static int hdr_changed(const gor_build *bd, const gor_hdr *h,
		       const unsigned char *gb, int fing_changed)
{
	unsigned st;

	if (gb == NULL || (h->flags & (GOR_HDR_UNREADABLE | GOR_HDR_RUNNING)) ||
	    (fing_changed && (h->flags & GOR_HDR_FING)))
		return 1;
	st = (unsigned)gh_mem_word(&bd->tg->mem, gb + bd->lay->g_atomicstatus,
				   4) & ~0x1000u;
	return st == GH_G_RUNNING || gor_hdr_hash(bd, gb) != h->hash;
}

/*
 * The stopped re-read's batches (runs [bfirst[b], bfirst[b + 1]) of the
 * plan, about one buffer each) are taken in turn by one or two readers
 * from a shared counter: a reader that is not scheduled (a busy machine)
 * takes none and costs the stop nothing but its start.  Each reader has
 * its own buffer and lists: the slots that changed (chg), those of runs
 * the bulk read did not give (redo: read one by one afterwards, by the
 * calling thread, whose cache is not shared).  Readers touch nothing else
 * of bd.
 */


static int part_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (gh_grow(v, cap, *n + 1, sizeof(**v)) != 0)
		return GOHEAP_ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

/* one batch; 0, or GOHEAP_ENOMEM / GOHEAP_ENOPROC */
static int part_batch(snap_part *w, size_t b)
{
	snap_share *sh = w->sh;
	const gor_build *bd = sh->bd;
	gh_target *tg = bd->tg;
	gor_plan *pl = sh->pl;
	size_t r0 = sh->bfirst[b], r1 = sh->bfirst[b + 1], r, i, off;
	double t0 = gh_now();
	int bulk;

	bulk = tg->caps->readv == NULL ? -1 :
	       tg->caps->readv(tg->ctx, pl->raddr + r0, pl->rlen + r0, r1 - r0,
			      w->buf, pl->ok + r0);
	w->t_read += gh_now() - t0;
	w->calls += (r1 - r0 + 1023) / 1024;
	if (bulk == GOHEAP_ENOPROC)
		return bulk;
	if (bulk != 0)
		memset(pl->ok + r0, 0, r1 - r0);
	for (r = r0, off = 0; r < r1; off += pl->rlen[r], r++) {
		for (i = pl->rfirst[r]; i < pl->rfirst[r + 1]; i++) {
			const gor_ord *o = &pl->ord[i];

			if (!pl->ok[r]) {
				if (part_push(&w->redo, &w->nredo,
					      &w->capredo, (uint32_t)i) != 0)
					return GOHEAP_ENOMEM;
				continue;
			}
			if (!hdr_changed(bd, &o->h, w->buf + off +
					 (o->h.gp - pl->raddr[r]),
					 sh->fing_changed))
				continue;
			if (part_push(&w->chg, &w->nchg, &w->capchg,
				      o->idx) != 0)
				return GOHEAP_ENOMEM;
		}
	}
	return 0;
}

static void *snap_part_run(void *arg)
{
	snap_part *w = arg;
	snap_share *sh = w->sh;
	size_t b;
	int rc;

	while ((b = atomic_fetch_add(&sh->next, 1)) < sh->nb) {
		rc = part_batch(w, b);
		if (rc == GOHEAP_ENOPROC)
			atomic_store(&sh->enoproc, 1);
		else if (rc != 0)
			w->nomem = 1;
		atomic_fetch_add(&sh->done, 1);
	}
	return NULL;
}

/*
 * Stopped: the g headers of the planned slots read again in bulk (for
 * a live target; else one read each), by two readers when the plan has a
 * second buffer; *chg gets the indexes of the slots that changed (or are
 * running, or were or are unreadable).  A second reader started here is
 * left in pl (joined by plan_free, after the resume: it has no batch
 * left to take by then, so it only has to be scheduled to exit).
 */
static int snap_changed(gor_build *bd, gor_plan *pl, int fing_changed,
			uint32_t **chg, size_t *nchg)
{
	gh_target *tg = bd->tg;
	unsigned span = gor_g_span(bd->lay);
	unsigned char gb[512];
	snap_part *w = pl->parts;
	snap_share *sh = &pl->share;
	size_t nb, r, bytes, k, j, cap = 0;
	int rc = 0;

	*chg = NULL;
	*nchg = 0;
	/* the batches: runs of about one buffer each */
	for (r = 0, nb = 0; r < pl->nruns; nb++) {
		pl->bfirst[nb] = r;
		for (bytes = 0; r < pl->nruns &&
		     (bytes == 0 || bytes + pl->rlen[r] <= pl->bufsz); r++)
			bytes += pl->rlen[r];
	}
	pl->bfirst[nb] = pl->nruns;
	memset(w, 0, 2 * sizeof(*w));
	sh->bd = bd;
	sh->pl = pl;
	sh->bfirst = pl->bfirst;
	sh->nb = nb;
	sh->fing_changed = fing_changed;
	atomic_init(&sh->next, 0);
	atomic_init(&sh->done, 0);
	atomic_init(&sh->enoproc, 0);
	w[0].sh = w[1].sh = sh;
	w[0].buf = pl->buf;
	w[1].buf = pl->buf2;
	if (pl->buf2 != NULL && nb > 1)
		pl->started = pthread_create(&pl->th, NULL, snap_part_run,
					     &w[1]) == 0;
	snap_part_run(&w[0]);
	/* the second reader's last batch, if it took one */
	while (atomic_load(&sh->done) < nb)
		sched_yield();
	for (k = 0; k < 2; k++) {
		tg->mem.t_backend += w[k].t_read;
		tg->mem.nreads += w[k].calls;
		if (w[k].nomem)
			rc = GOHEAP_ENOMEM;
	}
	tg->mem.nbytes += pl->bytes;
	if (atomic_load(&sh->enoproc))
		return gh_errf(&tg->err, GOHEAP_ENOPROC, "the target exited "
			       "while stopped");
	for (k = 0; k < 2 && rc == 0; k++) {
		for (j = 0; j < w[k].nchg && rc == 0; j++)
			rc = part_push(chg, nchg, &cap, w[k].chg[j]);
		/* the runs the bulk read did not give: one read each */
		for (j = 0; j < w[k].nredo && rc == 0; j++) {
			const gor_ord *o = &pl->ord[w[k].redo[j]];
			const unsigned char *p = NULL;

			if (gh_mem_read(&tg->mem, o->h.gp, gb, span, "g") == 0)
				p = gb;
			if (hdr_changed(bd, &o->h, p, fing_changed))
				rc = part_push(chg, nchg, &cap, o->idx);
		}
	}
	return rc;
}

/*
 * runtime.allgs ({ptr, len, cap} at addr): *arr, *len, or ECORRUPT for a
 * slice that cannot be (len > cap, more than GH_GOR_MAX_GS, fewer than
 * min entries: allgs only grows, a nil array with entries).
 */
int gor_read_allgs(gh_target *tg, uint64_t addr, uint64_t min,
		   uint64_t *arr, uint64_t *len)
{
	uint64_t cap;
	int rc;

	rc = gh_mem_read_ptr(&tg->mem, addr, arr, "runtime.allgs");
	if (rc == 0)
		rc = gh_mem_read_ptr(&tg->mem, addr + 8, len, "runtime.allgs");
	if (rc == 0)
		rc = gh_mem_read_ptr(&tg->mem, addr + 16, &cap,
				     "runtime.allgs");
	if (rc != 0)
		return rc;
	if (*len > cap || *len > GH_GOR_MAX_GS || *len < min ||
	    (*len > 0 && *arr == 0)) {
		if (min > 0)
			return gh_errf(&tg->err, GOHEAP_ECORRUPT,
				       "runtime.allgs {%#llx, %llu, %llu} is "
				       "not a plausible slice (it had %llu "
				       "entries)", (unsigned long long)*arr,
				       (unsigned long long)*len,
				       (unsigned long long)cap,
				       (unsigned long long)min);
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "runtime.allgs {%#llx, %llu, %llu} is not a "
			       "plausible slice", (unsigned long long)*arr,
			       (unsigned long long)*len,
			       (unsigned long long)cap);
	}
	return 0;
}

/*
 * Stopped: everything that can have changed since the unstopped read of
 * len0 slots of allgs (at allgs, the runtime.allgs slice header) is read
 * again: the slice (allgs only grows; its old entries never change, so
 * only new ones are read), every g header (one bulk read), the stopped
 * threads' registers; the goroutines whose header changed, the new and
 * the running ones go through one_g again.  The target is resumed on
 * every path.  *len_out: allgs' length at the stop.
 */
int gor_snap_stopped(gor_build *bd, gh_profile *p, uint64_t allgs,
		     uint64_t len0, uint64_t *len_out)
{
	gh_target *tg = bd->tg;
	gh_thread_regs *regs = NULL;
	uint32_t *chg = NULL;
	size_t nregs = 0, nchg = 0, j;
	uint64_t arr, len, i;
	double t0, t1;
	int rc, fing0 = bd->fing_running;
	gor_plan pl;

	rc = snap_plan(bd, (size_t)len0, &pl);
	if (rc != 0)
		return gh_errf(&tg->err, rc, "out of memory");
	rc = gh_target_stop(tg, "goroutine profile", "snapshot", &t0);
	if (rc != 0) {
		plan_free(&pl);
		return rc;
	}
	gh_mem_invalidate(&tg->mem);
	rc = tg->caps->stopped_threads == NULL ? GOHEAP_EUNSUPPORTED :
	     tg->caps->stopped_threads(tg->ctx, &regs, &nregs);
	if (rc == GOHEAP_ENOMEM) {
		gh_errf(&tg->err, rc, "out of memory");
		goto resume;
	}
	bd->threads = rc == 0 ? regs : NULL;
	bd->nthreads = rc == 0 ? nregs : 0;
	bd->stop_regs = rc == 0;
	gor_read_fing(bd);
	rc = gor_read_allgs(tg, allgs, len0, &arr, &len);
	if (rc != 0)
		goto resume;
	if (len > bd->nhdr) {
		/* room for the goroutines created since (their slots are
		 * read below: unreadable ones must be counted) */
		gor_hdr *nh = gh_reallocarray(bd->hdr, (size_t)len,
					      sizeof(*nh));

		if (nh == NULL) {
			rc = gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
			goto resume;
		}
		memset(nh + bd->nhdr, 0, ((size_t)len - bd->nhdr) *
		       sizeof(*nh));
		bd->hdr = nh;
		bd->nhdr = (size_t)len;
	}
	rc = snap_changed(bd, &pl, fing0 != bd->fing_running, &chg, &nchg);
	if (rc != 0)
		goto resume;
	for (j = 0; j < nchg; j++) {
		rc = snap_reread(bd, chg[j], bd->hdr[chg[j]].gp);
		if (rc != 0)
			goto resume;
	}
	/* goroutines created since: allgs' new entries */
	for (i = len0; i < len; i++) {
		uint64_t gp;

		rc = gh_mem_read_ptr(&tg->mem, arr + 8 * i, &gp,
				     "runtime.allgs array");
		if (rc == 0)
			rc = gor_snap_one(bd, (uint32_t)i, gp);
		if (rc == 0 && bd->unreadable > GH_GOR_MAX_UNREADABLE &&
		    bd->unreadable > (i + 1) / 2)   /* as gh_gor_collect */
			rc = gh_errf(&tg->err, GOHEAP_ECORRUPT, "runtime.allgs: "
				     "%llu of its first %llu g pointers are "
				     "unreadable: not the runtime's list of "
				     "goroutines",
				     (unsigned long long)bd->unreadable,
				     (unsigned long long)(i + 1));
		if (rc != 0)
			goto resume;
	}
	p->stop.rewalked = nchg + (len - len0);
	p->stop.checked = len;
	*len_out = len;
resume:
	t1 = gh_now();
	p->stop.threads = nregs;
	rc = gh_target_resume(tg, p, t0, t1, rc);
	bd->threads = NULL;
	bd->nthreads = 0;
	free(regs);
	free(chg);
	plan_free(&pl);
	return rc;
}

/* compare gor_tmp by allgs index */
static int tmp_cmp(const void *a, const void *b)
{
	uint32_t x = ((const gor_tmp *)a)->idx, y = ((const gor_tmp *)b)->idx;

	return x < y ? -1 : x > y;
}

/*
 * allgs order back: the records kept from the running read are in order,
 * the re-read ones follow them; sort only those and merge (a qsort of the
 * whole array moved every record: a fifth of the walk at 10k goroutines).
 */
static void snap_order(gor_build *bd)
{
	size_t k = bd->ngs, p = 1, i, j, o;
	gor_tmp *m;

	while (p < k && bd->gs[p - 1].idx <= bd->gs[p].idx)
		p++;
	if (p >= k)
		return;
	qsort(bd->gs + p, k - p, sizeof(*bd->gs), tmp_cmp);
	m = gh_calloc(k, sizeof(*m));
	if (m == NULL) {       /* no room to merge: sort in place */
		qsort(bd->gs, k, sizeof(*bd->gs), tmp_cmp);
		return;
	}
	for (i = 0, j = p, o = 0; i < p || j < k;)
		m[o++] = j >= k || (i < p && bd->gs[i].idx <= bd->gs[j].idx) ?
			 bd->gs[i++] : bd->gs[j++];
	memcpy(bd->gs, m, k * sizeof(*m));
	free(m);
}

/*
 * After the stopped re-read: the replaced records out, allgs order back,
 * the note's counts from what is left.
 */
void gor_snap_finish(gor_build *bd, uint64_t len)
{
	size_t i, k = 0;

	for (i = 0; i < bd->ngs; i++)
		if (!bd->gs[i].dropped)
			bd->gs[k++] = bd->gs[i];
	bd->ngs = k;
	snap_order(bd);
	bd->running = bd->running_regs = bd->partial = 0;
	for (i = 0; i < k; i++) {
		bd->running += bd->gs[i].g.running != 0;
		bd->running_regs += bd->gs[i].cnt_regs;
		bd->partial += bd->gs[i].cnt_partial;
	}
	bd->unreadable = bd->first_unreadable = 0;
	for (i = 0; i < len && i < bd->nhdr; i++)
		if (bd->hdr[i].flags & GOR_HDR_UNREADABLE)
			if (bd->unreadable++ == 0)
				bd->first_unreadable = bd->hdr[i].gp;
}

/*
 * retlive.c - the brief stop of -p retained on a live target (retlive.h).
 *
 * The running pass records every range the builder's reads fetched (the
 * heap's pointerful spans, the span structs and their bitmaps, allgs, the
 * stacks, data and bss, types, specials).  While the target is stopped
 * (the goroutine snapshot's ptrace stop) those ranges are copied in bulk
 * (memsnap.c), then the copy itself is searched for what the builder will
 * read that the running pass did not: mheap_.allspans and every in-use
 * span (its struct, allocBits and gcmarkBits, a pointerful span's pages,
 * a noscan span's inline mark bits, its specials), go1.19/1.21's arena
 * bitmap under a pointerful span, allgs and every live goroutine's stack
 * from its sp; what is missing is copied in another round, until a
 * round finds nothing (a new span's struct is found in one round, its
 * pages in the next).  The target resumes; the graph is built again from
 * the copy.  A read the copy cannot serve fails and is counted.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "goroutine.h"
#include "gorshare.h"
#include "heapwalk.h"
#include "memsnap.h"
#include "retlive.h"
#include "testhooks.h"

#define SPAN_INUSE 1            /* mSpanInUse */
#define HEAP_PAGE 8192u         /* _PageSize */
#define MAX_ROUNDS 8u
#define MAX_SPECIALS 4096u      /* a span's specials followed */
#define ARENA_BYTES ((uint64_t)64 << 20)   /* heapArenaBytes, linux 64-bit */
#define ARENA_L2_BITS 22

typedef struct lv {
	gh_target *s;
	gh_memsnap *sn;
	int big;
	int rc;
	uint64_t spans, fetched, fetched_total;
} lv;

int gh_ret_live_can(const gh_target *s)
{
	return gh_target_can_stop(s) &&
	       s->mem.ops == s->ops && s->mem_ready;
}

/* Bytes from the copy; missing ones wanted for the next round (-1). */
static int get(lv *x, uint64_t a, void *buf, uint64_t n)
{
	if (gh_memsnap_get(x->sn, a, buf, n) == 0)
		return 0;
	if (x->rc == 0)
		x->rc = gh_memsnap_want(x->sn, a, n);
	return -1;
}

static int word(lv *x, uint64_t a, uint64_t *v)
{
	unsigned char b[8];

	if (get(x, a, b, 8) != 0)
		return -1;
	*v = gh_load(b, 8, x->big);
	return 0;
}

/* Want a range not (wholly) in the copy; 1 if it was wanted. */
static int want(lv *x, uint64_t a, uint64_t n)
{
	if (n == 0 || gh_memsnap_has(x->sn, a, n))
		return 0;
	if (x->rc == 0)
		x->rc = gh_memsnap_want(x->sn, a, n);
	return 1;
}

/* go1.19-1.21: the arena bitmap's bytes for [base, end) (heapBitsForAddr:
 * heapArena.bitmap first, two bits a word (1.19) or one). */
static int want_bitmap(lv *x, uint64_t base, uint64_t end)
{
	const gh_rtlayout *l = x->s->lay;
	uint64_t off = gh_exe_machine(x->s->exe) == EM_X86_64 ?
		       0xffff800000000000ULL : 0, l2, a, ha;
	unsigned per = l->arena_bits == 2 ? 4 : 8;
	int got = 0;

	if (word(x, x->s->addrs.mheap + l->mh_arenas, &l2) != 0 || l2 == 0)
		return 0;
	for (a = base; a < end;) {
		uint64_t ri = (a - off) / ARENA_BYTES,
			 aend = (ri + 1) * ARENA_BYTES + off, to = end < aend ?
			 end : aend, w0 = a / 8 % (ARENA_BYTES / 8),
			 w1 = (to - 1) / 8 % (ARENA_BYTES / 8);

		if (ri >> ARENA_L2_BITS || word(x, l2 + 8 * ri, &ha) != 0 ||
		    ha == 0)
			return got;
		got |= want(x, ha + w0 / per, w1 / per - w0 / per + 1);
		a = to;
	}
	return got;
}

/*
 * mheap_.allspans and every in-use span's bytes the builder reads (as
 * heapwalk.c's walk_span reads them): its struct; allocBits (small spans,
 * a large one once swept); an unswept span's gcmarkBits and inline mark
 * bits; its specials; a pointerful span's pages where the running pass
 * read none of them (a span made since: one it read is in the copy as far
 * as its objects' pointers were read), and go1.19/1.21's arena bitmap
 * under them.
 */
static void spans(lv *x)
{
	gh_target *s = x->s;
	const gh_rtlayout *l = s->lay;
	uint64_t arr, len, i, hsg;
	unsigned char b[256];

	x->spans = 0;
	if (s->addrs.mheap == 0 || l->ms_size > sizeof(b) ||
	    word(x, s->addrs.mheap + l->mh_allspans, &arr) != 0 ||
	    word(x, s->addrs.mheap + l->mh_allspans + 8, &len) != 0 ||
	    word(x, s->addrs.mheap + l->mh_sweepgen, &hsg) != 0 ||
	    len > GH_TYPES_MAX_SPANS || arr == 0)
		return;
	hsg = (uint32_t)hsg;
	/* the array first: a damaged one is not read word by word */
	if (want(x, arr, 8 * len))
		return;
	for (i = 0; i < len && x->rc == 0; i++) {
		uint64_t sp, base, npages, nelems, freeindex, ab, mb, esize, sc,
			 k, nb;
		uint32_t sg;
		unsigned spc;
		int got = 0, unswept;

		if (word(x, arr + 8 * i, &sp) != 0 || sp == 0 ||
		    get(x, sp, b, l->ms_size) != 0 ||
		    b[l->ms_state] != SPAN_INUSE)
			continue;
		x->spans++;
		base = gh_load(b + l->ms_startaddr, 8, x->big);
		npages = gh_load(b + l->ms_npages, 8, x->big);
		nelems = gh_load(b + l->ms_nelems, l->ms_idx_size, x->big);
		freeindex = gh_load(b + l->ms_freeindex, l->ms_idx_size,
				    x->big);
		ab = gh_load(b + l->ms_allocbits, 8, x->big);
		mb = gh_load(b + l->ms_gcmarkbits, 8, x->big);
		esize = gh_load(b + l->ms_elemsize, 8, x->big);
		sg = (uint32_t)gh_load(b + l->ms_sweepgen, 4, x->big);
		spc = b[l->ms_spanclass];
		if (base % HEAP_PAGE != 0 || npages == 0 ||
		    npages > (1u << 24) || nelems > (1u << 20))
			continue;
		nb = (nelems + 7) / 8;
		if ((spc >> 1) != 0 || freeindex == 0)
			got |= want(x, ab, nb);
		unswept = sg == (uint32_t)(hsg - 2) || sg == (uint32_t)(hsg + 1);
		if (unswept) {
			got |= want(x, mb, nb);
			if (l->imb_size != 0 && (spc >> 1) != 0 &&
			    esize >= 16 && esize <= 512)
				got |= want(x, base + HEAP_PAGE - l->imb_size,
					    l->imb_size);
		}
		if (!(spc & 1) && want(x, base, npages * HEAP_PAGE)) {
			got = 1;
			if (l->arena_bits != 0)
				got |= want_bitmap(x, base,
						   base + npages * HEAP_PAGE);
		}
		sc = l->ms_specials != 0 ?
		     gh_load(b + l->ms_specials, 8, x->big) : 0;
		for (k = 0; sc != 0 && k < MAX_SPECIALS; k++) {
			unsigned char h[64];

			if (l->sp_size + 24 > sizeof(h) ||
			    get(x, sc, h, l->sp_size + 24) != 0) {
				got = 1;
				break;
			}
			sc = gh_load(h, 8, x->big);
		}
		x->fetched += got != 0;
	}
	x->fetched_total += x->fetched;
}

/* allgs and every live goroutine's stack from its sp (all of a running
 * one's), as retstack.c reads them. */
static void stacks(lv *x)
{
	gh_target *s = x->s;
	const gh_rtlayout *l = s->lay;
	uint64_t arr, len, i;
	unsigned char gb[512];
	unsigned span = gor_g_span(l);

	if (s->addrs.allgs == 0 || span > sizeof(gb) ||
	    word(x, s->addrs.allgs, &arr) != 0 ||
	    word(x, s->addrs.allgs + 8, &len) != 0 || len > GH_GOR_MAX_GS ||
	    arr == 0)
		return;
	if (want(x, arr, 8 * len))
		return;
	for (i = 0; i < len && x->rc == 0; i++) {
		uint64_t gp, lo, hi, sp;
		uint32_t st;

		if (word(x, arr + 8 * i, &gp) != 0 || gp == 0 ||
		    get(x, gp, gb, span) != 0)
			continue;
		st = (uint32_t)gh_load(gb + l->g_atomicstatus, 4, x->big) &
		     ~0x1000u;
		if (st == GH_G_DEAD)
			continue;
		lo = gh_load(gb, 8, x->big);
		hi = gh_load(gb + 8, 8, x->big);
		if (hi <= lo || hi - lo > ((uint64_t)1 << 30))
			continue;
		sp = gh_load(gb + l->g_syscallsp, 8, x->big);
		if (sp == 0)
			sp = gh_load(gb + l->g_sched + l->gobuf_sp, 8, x->big);
		if (st == GH_G_RUNNING || sp < lo || sp >= hi)
			sp = lo;
		want(x, sp, hi - sp);
	}
}

/* Rounds of what the copy lacks until one finds nothing: the number of
 * copies made. */
static int closure(lv *x, uint64_t *copies)
{
	gh_target *s = x->s;
	gh_memsnap *sn = x->sn;
	unsigned round;
	int rc = 0;

	for (round = 0; rc == 0 && round < MAX_ROUNDS; round++) {
		x->rc = 0;
		x->fetched = 0;
		spans(x);
		stacks(x);
		rc = x->rc;
		if (rc == 0)
			rc = gh_memsnap_plan_wants(sn);
		if (rc != 0 || sn->nplan == 0)
			break;
		rc = gh_memsnap_copy(sn, s->caps, s->ctx, s->ops);
		(*copies)++;
	}
	return rc;
}

int gh_ret_live(gh_target *s, gh_profile *p, gh_ret_snap *out,
		int (*pass)(void *arg, int final), void *arg)
{
	gh_mem *m = &s->mem;
	const goheap_memsrc_ops *ops0 = m->ops;
	void *ctx0 = m->ctx;
	const char *hook = gh_test_hook("GOHEAP_TEST_RETAINED_SNAP");
	/* test controls: the stop copies only what the running pass read
	 * (not what changed since), after a pause */
	int noclosure = hook != NULL && strcmp(hook, "noclosure") == 0;
	gh_memrec rec;
	gh_memsnap sn;
	lv x;
	double t0 = gh_now(), t1;
	uint64_t b0, r0, copies = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	gh_memrec_init(&rec, ops0, ctx0);
	gh_memsnap_init(&sn, 0, &s->err);
	/* 1. the running pass, recorded (its errors are the target changing
	 * under it: the stopped copy decides) */
	gh_mem_invalidate(m);
	m->ops = &gh_memrec_ops;
	m->ctx = &rec;
	rc = pass(arg, 0);
	m->ops = ops0;
	m->ctx = ctx0;
	gh_mem_invalidate(m);
	out->t_running = gh_now() - t0;
	if (rc == GOHEAP_ENOMEM || rc == GOHEAP_ENOPROC)
		goto done;
	if (rec.oom) {
		rc = gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
		goto done;
	}
	memset(&s->err, 0, sizeof(s->err));
	/* 2. a running copy of what was read and of what the builder would
	 * read besides (the span and stack parts it did not touch), into the
	 * storage the stop copies into again */
	memset(&x, 0, sizeof(x));
	x.s = s;
	x.sn = &sn;
	x.big = m->big_endian;
	gh_memsnap_take_bad(&sn, &rec);
	gh_memsnap_maps(&sn, s->ops, s->ctx);
	rc = gh_memsnap_plan(&sn, rec.ok, rec.nok);
	gh_memrec_fini(&rec);
	if (rc == 0)
		rc = gh_memsnap_copy(&sn, s->caps, s->ctx, s->ops);
	if (rc == 0)
		rc = closure(&x, &copies);
	if (rc != 0)
		goto done;
	/* the control gives the target time to change between the running
	 * read and the stop (a busy machine may give it none in the usual
	 * window): 250 ms */
	if (noclosure) {
		struct timespec ts = { 0, 250 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	/* 3. the stop: the same ranges copied again, then what changed since
	 * (new spans, moved stacks), resume */
	rc = gh_target_stop(s, "-p retained", "snapshot", &t0);
	if (rc != 0)
		goto done;
	b0 = sn.bytes;
	r0 = sn.ranges;
	x.fetched_total = 0;
	sn.t_copy = 0;
	if (rc == 0)
		rc = gh_memsnap_recopy(&sn, s->caps, s->ctx, s->ops);
	/* the mappings now (the heap may have grown into its reservation) */
	if (rc == 0)
		gh_memsnap_maps(&sn, s->ops, s->ctx);
	copies = 1;
	if (rc == 0 && !noclosure)
		rc = closure(&x, &copies);
	t1 = gh_now();
	rc = gh_target_resume(s, p, t0, t1, rc);
	if (rc != 0)
		goto done;
	out->rounds = copies;
	out->spans = x.spans;
	out->spans_fetched = x.fetched_total;
	out->bytes = sn.bytes - b0;
	out->ranges = sn.ranges - r0;
	/* 4. the graph from the copy */
	gh_mem_invalidate(m);
	m->ops = &gh_memsnap_ops;
	m->ctx = &sn;
	rc = pass(arg, 1);
	m->ops = ops0;
	m->ctx = ctx0;
	gh_mem_invalidate(m);
	p->stop.checked = out->spans;
	p->stop.rewalked = out->spans_fetched;
	out->on = 1;
	out->file_bytes = sn.file_bytes;
	out->lost = sn.lost;
	out->misses = sn.misses;
	out->miss_bytes = sn.miss_bytes;
	out->first_miss = sn.first_miss;
	out->t_copy = sn.t_copy;
done:
	gh_memrec_fini(&rec);
	gh_memsnap_fini(&sn);
	return rc;
}

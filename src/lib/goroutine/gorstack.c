/*
 * gorstack.c - the goroutines' stacks read in bulk (goroutine_int.h): before
 * a chunk of allgs is walked, the live part [sp, hi) of each of its
 * goroutines' stacks is read in one process_vm_readv of many iovecs, and
 * the unwinder then takes its words from that copy (one read per stack
 * instead of a cache look-up per frame, and only the pages in use
 * instead of every 64 KiB block a stack lies in).
 */
#include "config.h"

#include "goroutine_int.h"

/* The bytes of a g the collector reads: up to its last field used. */
unsigned gor_g_span(const gh_rtlayout *l)
{
	unsigned v[] = { l->g_m, l->g_sched + 8 * 7, l->g_syscallsp,
			 l->g_syscallpc, l->g_atomicstatus, l->g_goid,
			 l->g_waitsince, l->g_waitreason, l->g_gopc,
			 l->g_startpc, l->g_labels, l->g_parentgoid,
			 l->g_runningcleanups, l->g_lockedm, l->g_bubble,
			 l->g_ancestors };
	unsigned mx = 16;
	size_t i;

	for (i = 0; i < GH_ARRAY_LEN(v); i++)
		if (v[i] + 8 > mx)
			mx = v[i] + 8;
	return mx;
}

/* a stack's live part longer than this is read frame by frame */
#define GOR_PF_MAX_STACK (64u << 10)
/* the bytes of one chunk's stacks read at once */
#define GOR_PF_MAX_BYTES (8u << 20)
/* stacks whose live parts have no whole page between them are read as
 * one range (of at most GOR_PF_MAX_RANGE bytes): the kernel pins the same
 * pages, and an iovec of its own costs more than copying the bytes
 * between them (flat stacks, 10 000 goroutines: 8.6 -> 6.7 ms) */
#define GOR_PF_PAGE_SHIFT 12
#define GOR_PF_MAX_RANGE (256u << 10)

/*
 * The bulk reader of the snapshot and of the stacks: caps->readv, its
 * calls, bytes and time counted as the cache's backend reads are (-v).
 */
int gor_readv(gh_target *s, const uint64_t *addrs, const size_t *lens,
	      size_t n, unsigned char *out, unsigned char *ok)
{
	double t0 = gh_now();
	size_t i;
	int rc;

	if (s->caps->readv == NULL)
		return -1;
	rc = s->caps->readv(s->ctx, addrs, lens, n, out, ok);
	s->mem.t_backend += gh_now() - t0;
	s->mem.nreads += (n + 1023) / 1024;
	for (i = 0; i < n; i++)
		s->mem.nbytes += lens[i];
	return rc;
}

/* merge g headers this close into one range of the bulk read */
#define GOR_PF_GAP 512u

static int pford_cmp(const void *a, const void *b)
{
	const gor_pford *x = a, *y = b;

	if (x->gp != y->gp)
		return x->gp < y->gp ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Room for k ranges of the bulk read.
 */
static int pf_ranges(gor_build *bd, size_t k)
{
	return gh_grow(&bd->pfaddr, &bd->cappfa, k, sizeof(*bd->pfaddr)) ||
	       gh_grow(&bd->pflen, &bd->cappfl, k, sizeof(*bd->pflen)) ||
	       gh_grow(&bd->pfok, &bd->cappfo, k, 1);
}

/* buf grown to n bytes (*cap its size) */
static int pf_buf(unsigned char **buf, size_t *cap, size_t n)
{
	unsigned char *nb;

	if (n <= *cap)
		return 0;
	nb = realloc(*buf, n);
	if (nb == NULL)
		return -1;
	*buf = nb;
	*cap = n;
	return 0;
}

/*
 * Read the headers and the live stacks of the n goroutines at gps
 * (allgs' entries; bd->pf's slots 0..n-1) in two bulk reads: the g's in
 * address order, neighbours merged into one range (a span holds many);
 * then each stack's [sp, hi).  A goroutine whose header or stack is not
 * read here (dead, bounds absurd, stack too long, a range the target did
 * not give, no bulk reader) is read by gor_one_g through the cache and
 * unwound frame by frame.  Never an error: the walk falls back.
 */
void gor_prefetch(gor_build *bd, const uint64_t *gps, size_t n)
{
	gh_target *s = bd->tg;
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &s->mem;
	unsigned span = gor_g_span(l);
	size_t i, j, k = 0, total = 0;
	gor_pford *ord;
	uint64_t end = 0;
	int rc;

	bd->npf = 0;
	if (s->caps->readv == NULL || n == 0 || bd->pf_broken)
		return;
	if (gh_grow(&bd->pf, &bd->cappf, n, sizeof(*bd->pf)) != 0 ||
	    gh_grow(&bd->pford, &bd->cappford, n, sizeof(*bd->pford)) != 0 ||
	    pf_ranges(bd, n) != 0 ||
	    gh_grow(&bd->pfoff, &bd->cappfoff, n, sizeof(*bd->pfoff)) != 0)
		return;
	ord = bd->pford;
	for (i = 0; i < n; i++) {
		memset(&bd->pf[i], 0, sizeof(bd->pf[i]));
		bd->pf[i].gp = gps[i];
		ord[i].gp = gps[i];
		ord[i].i = i;
	}
	/* the headers: runs of g's in address order */
	for (i = 1; i < n && gps[i - 1] <= gps[i]; i++)
		;
	if (i < n)
		qsort(ord, n, sizeof(*ord), pford_cmp);
	for (i = 0; i < n; i++) {
		gor_pf *f = &bd->pf[ord[i].i];

		if (f->gp == 0 || f->gp + span < f->gp)
			continue;
		if (k > 0 && f->gp <= end + GOR_PF_GAP &&
		    f->gp + span - bd->pfaddr[k - 1] <= 65536) {
			if (f->gp + span > end)
				end = f->gp + span;
			bd->pflen[k - 1] = (size_t)(end - bd->pfaddr[k - 1]);
		} else {
			bd->pfaddr[k] = f->gp;
			bd->pflen[k] = span;
			end = f->gp + span;
			k++;
		}
		f->hslot = k;
	}
	for (i = 0; i < k; i++)
		total += bd->pflen[i];
	if (k == 0 || pf_buf(&bd->pfhbuf, &bd->pfhcap, total) != 0)
		return;
	rc = gor_readv(s, bd->pfaddr, bd->pflen, k, bd->pfhbuf, bd->pfok);
	if (rc != 0) {
		if (rc == -1)
			bd->pf_broken = 1;
		return;
	}
	/* each slot's header: its run's offset + its place in the run */
	for (i = 0, j = 0, total = 0; i < n; i++) {
		gor_pf *f = &bd->pf[ord[i].i];

		if (f->hslot == 0)
			continue;
		while (j + 1 < f->hslot)
			total += bd->pflen[j++];
		if (!bd->pfok[f->hslot - 1]) {
			f->hslot = 0;
			continue;
		}
		f->hoff = total + (size_t)(f->gp - bd->pfaddr[f->hslot - 1]);
	}
	bd->npf = n;
	/* the stacks: each live part [sp, hi), in address order, neighbours
	 * merged (a stack span holds several stacks) */
	for (i = 0, k = 0; i < n; i++) {
		gor_pf *f = &bd->pf[i];
		const unsigned char *gb = bd->pfhbuf + f->hoff;
		uint64_t lo, hi, sp, st;

		if (f->hslot == 0)
			continue;
		st = gh_mem_word(m, gb + l->g_atomicstatus, 4) & ~0x1000u;
		if (st == GH_G_DEAD || st == 11)
			continue;
		lo = gh_mem_word(m, gb, 8);
		hi = gh_mem_word(m, gb + 8, 8);
		sp = gh_mem_word(m, gb + l->g_syscallsp, 8);
		if (sp == 0)
			sp = gh_mem_word(m, gb + l->g_sched + l->gobuf_sp, 8);
		if (sp < lo || sp >= hi || hi - sp > GOR_PF_MAX_STACK)
			continue;
		f->lo = sp;
		f->hi = hi;
		ord[k].gp = sp;
		ord[k].i = i;
		k++;
	}
	if (k > 1)
		qsort(ord, k, sizeof(*ord), pford_cmp);
	for (j = 0, i = 0, total = 0; j < k; j++) {
		gor_pf *f = &bd->pf[ord[j].i];
		uint64_t len = f->hi - f->lo;

		if (i > 0 && f->lo >= bd->pfaddr[i - 1] &&
		    (f->lo >> GOR_PF_PAGE_SHIFT) <=
		    ((end - 1) >> GOR_PF_PAGE_SHIFT) + 1 &&
		    (f->hi > end ? f->hi : end) - bd->pfaddr[i - 1] <=
		    GOR_PF_MAX_RANGE &&
		    total + (f->hi > end ? f->hi - end : 0) <=
		    GOR_PF_MAX_BYTES) {
			if (f->hi > end) {
				total += (size_t)(f->hi - end);
				end = f->hi;
			}
			bd->pflen[i - 1] = (size_t)(end - bd->pfaddr[i - 1]);
		} else {
			if (total + len > GOR_PF_MAX_BYTES)
				continue;     /* frame by frame */
			bd->pfaddr[i] = f->lo;
			bd->pflen[i] = (size_t)len;
			bd->pfoff[i] = total;
			total += (size_t)len;
			end = f->hi;
			i++;
		}
		f->slot = i;
		f->off = bd->pfoff[i - 1] + (size_t)(f->lo - bd->pfaddr[i - 1]);
	}
	if (i == 0)
		return;
	if (pf_buf(&bd->pfbuf, &bd->pfcap, total) != 0 ||
	    gor_readv(s, bd->pfaddr, bd->pflen, i, bd->pfbuf, bd->pfok) != 0) {
		for (j = 0; j < n; j++)
			bd->pf[j].slot = 0;
		return;
	}
	for (j = 0; j < n; j++)
		if (bd->pf[j].slot != 0 && !bd->pfok[bd->pf[j].slot - 1])
			bd->pf[j].slot = 0;
}

/*
 * The header of goroutine gp (allgs chunk slot bd->pf_cur) as the bulk
 * read gave it, or NULL (then read it through the cache).
 */
const unsigned char *gor_pf_header(const gor_build *bd, uint64_t gp)
{
	const gor_pf *f;

	if (bd->pf_cur >= bd->npf)
		return NULL;
	f = &bd->pf[bd->pf_cur];
	if (f->hslot == 0 || f->gp != gp)
		return NULL;
	return bd->pfhbuf + f->hoff;
}

/*
 * The window of goroutine gp (allgs chunk slot cur) being unwound from sp
 * in the stack that ends at hi: its prefetched bytes when they are the
 * ones it needs, else none.
 */
void gor_stack_window(gor_build *bd, uint64_t gp, uint64_t sp, uint64_t hi)
{
	const gor_pf *f;

	bd->sw_n = 0;
	if (bd->pf_cur >= bd->npf)
		return;
	f = &bd->pf[bd->pf_cur];
	if (f->slot == 0 || f->gp != gp || f->hi != hi || sp < f->lo ||
	    sp >= hi)
		return;
	bd->sw = bd->pfbuf + f->off;
	bd->sw_lo = f->lo;
	bd->sw_n = (size_t)(hi - f->lo);
}

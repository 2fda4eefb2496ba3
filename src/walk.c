/*
 * walk.c - reproduce runtime.MemProfile's records from outside the process.
 *
 * What the runtime does (Go 1.22 src/runtime/mprof.go, MemProfile; 1.23+
 * memProfileInternal), holding profMemActiveLock:
 *
 *   1. cycle = mProfCycle.read(); mProf_FlushLocked(cycle % 3) folds
 *      future[cycle%3] into active for every bucket;
 *   2. if every bucket's active allocs and frees are zero ("no GC has
 *      completed yet"), it folds all three future cycles into active;
 *   3. it returns one record per bucket (inuseZero = true, as runtime/pprof
 *      asks) in list order: newest bucket first.
 *
 * The flush and the fold are permanent in the process; we apply them to a
 * private copy of each memRecord, so the target is never written, and two
 * runs give the same answer as two in-process calls would.
 *
 * Hostile memory: every read is checked, nstk is bounded by the version's
 * maximum, the bucket type must match the list, Brent's algorithm detects
 * a cycle in allnext in O(n) without extra memory, and the total number of
 * buckets and PCs is capped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "walk.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GH_HOST_LITTLE_ENDIAN 1
#else
#define GH_HOST_LITTLE_ENDIAN 0
#endif

typedef struct mcycle {
	uint64_t allocs, frees, alloc_bytes, free_bytes;
} mcycle;

typedef struct walk_state {
	gh_profile *p;
	gh_mem *m;
	const gh_rtlayout *lay;
	gh_err *err;
	size_t cap_recs, cap_pcs, npcs;
	size_t prev_off, prev_nstk; /* the previous record's stack */
	/*
	 * "No GC has completed yet" holds while every record so far has zero
	 * active allocs and frees (after the flush).  Only then are the
	 * future cycles needed, for the fold at the end; the first record
	 * with activity frees them, so a profile after a GC never stores
	 * them (12 MB at 100k buckets, mostly page faults).
	 */
	int clear;
	mcycle *future;    /* per record, while clear: the 3 future cycles */
	size_t cap_future;
} walk_state;

static void add_cycle(mcycle *dst, const mcycle *src)
{
	dst->allocs += src->allocs;
	dst->frees += src->frees;
	dst->alloc_bytes += src->alloc_bytes;
	dst->free_bytes += src->free_bytes;
}

/* Decode one memRecordCycle at p; 1.27's two-word form derives bytes. */
static void load_cycle(const walk_state *w, const unsigned char *p,
		       uint64_t size, mcycle *out)
{
	unsigned ps = w->m->ptr_size;

	out->allocs = gh_mem_word(w->m, p, ps);
	out->frees = gh_mem_word(w->m, p + ps, ps);
	if (w->lay->cycle_words >= 4) {
		out->alloc_bytes = gh_mem_word(w->m, p + 2 * ps, ps);
		out->free_bytes = gh_mem_word(w->m, p + 3 * ps, ps);
	} else {
		out->alloc_bytes = out->allocs * size;
		out->free_bytes = out->frees * size;
	}
}

static int grow(walk_state *w, size_t nstk)
{
	gh_profile *p = w->p;

	if (p->nrecs == w->cap_recs) {
		size_t nc = w->cap_recs ? w->cap_recs * 2 : 1024;
		gh_record *r = gh_reallocarray(p->recs, nc, sizeof(*r));

		if (r == NULL)
			return GOHEAP_ENOMEM;
		p->recs = r;
		w->cap_recs = nc;
	}
	if (w->clear && p->nrecs == w->cap_future) {
		size_t nc = w->cap_future ? w->cap_future * 2 : 1024;
		mcycle *f = gh_reallocarray(w->future, nc * 3, sizeof(*f));

		if (f == NULL)
			return GOHEAP_ENOMEM;
		w->future = f;
		w->cap_future = nc;
	}
	if (w->npcs + nstk > w->cap_pcs || w->cap_pcs == 0) {
		size_t nc = w->cap_pcs ? w->cap_pcs : 8192;
		uint64_t *v;

		while (nc < w->npcs + nstk)
			nc *= 2;
		v = gh_reallocarray(p->pcpool, nc, sizeof(*v));
		if (v == NULL)
			return GOHEAP_ENOMEM;
		p->pcpool = v;
		w->cap_pcs = nc;
	}
	return 0;
}

/*
 * The len bytes at addr: in the memory cache when it has them (no copy),
 * else copied into buf.  *out is valid until the next read on w->m.
 */
static int read_view(walk_state *w, uint64_t addr, unsigned char *buf,
		     size_t len, const unsigned char **out)
{
	int rc;

	*out = gh_mem_peek(w->m, addr, len);
	if (*out != NULL)
		return 0;
	rc = gh_mem_read(w->m, addr, buf, len, "bucket");
	*out = buf;
	return rc;
}

/*
 * Read one bucket at addr: header, stack, record.  Returns its allnext in
 * *next.  The stack is stored as an offset into pcpool (the pool may move
 * while growing); pointers are fixed up at the end.
 */
static int read_bucket(walk_state *w, uint64_t addr, int want_typ,
		       unsigned cycle_idx, uint64_t *next)
{
	const gh_rtlayout *lay = w->lay;
	gh_mem *m = w->m;
	unsigned ps = m->ptr_size;
	unsigned char hdrbuf[16 * 8], recbuf[16 * 8];
	_Static_assert(sizeof(hdrbuf) >= 6 * 8 &&
		       sizeof(recbuf) >= GH_RT_MAX_CYCLE_WORDS * 4 * 8 &&
		       sizeof(recbuf) >= GH_RT_MAX_BLOCKREC,
		       "buffers hold the largest row of rtlayout.c");
	unsigned char stkbuf[GH_WALK_STACK_BYTES];
	const unsigned char *hdr, *rec, *sp;
	uint64_t typ, size, nstk, recaddr, stkaddr;
	uint64_t *dst;
	gh_record *r;
	size_t i, reclen;
	const char *what = "bucket";
	int rc, dup;

	if (addr % ps != 0)
		return gh_errf(w->err, GOHEAP_ECORRUPT,
			       "bucket pointer 0x%llx is misaligned",
			       (unsigned long long)addr);
	rc = read_view(w, addr, hdrbuf, (size_t)lay->bucket_words * ps, &hdr);
	if (rc != 0)
		return rc;
	*next = gh_mem_word(m, hdr + lay->w_allnext * ps, ps);
	typ = gh_mem_word(m, hdr + lay->w_typ * ps, ps);
	size = gh_mem_word(m, hdr + lay->w_size * ps, ps);
	nstk = gh_mem_word(m, hdr + lay->w_nstk * ps, ps);
	if (typ != (uint64_t)want_typ)
		return gh_errf(w->err, GOHEAP_ECORRUPT,
			       "bucket at 0x%llx: type %llu where %d was "
			       "expected (corrupt list or unsupported runtime "
			       "layout)", (unsigned long long)addr,
			       (unsigned long long)typ, want_typ);
	if (nstk > lay->max_stack)
		return gh_errf(w->err, GOHEAP_ECORRUPT,
			       "bucket at 0x%llx: stack depth %llu exceeds the "
			       "runtime's maximum %u", (unsigned long long)addr,
			       (unsigned long long)nstk,
			       lay->max_stack);
	if (w->p->nrecs >= GH_WALK_MAX_BUCKETS)
		return gh_errf(w->err, GOHEAP_ELIMIT,
			       "more than %u buckets: refusing to continue",
			       GH_WALK_MAX_BUCKETS);
	if (w->npcs + nstk > GH_WALK_MAX_PCS)
		return gh_errf(w->err, GOHEAP_ELIMIT,
			       "more than %u stack words in all buckets",
			       GH_WALK_MAX_PCS);
	rc = grow(w, (size_t)nstk);
	if (rc != 0)
		return gh_errf(w->err, rc, "out of memory walking buckets");

	/*
	 * A stack equal to the previous record's (same call site, another
	 * size class, as a slice growing in a loop makes them) is stored
	 * once: the records share it, and the writers see equal neighbours
	 * by their pointers.  It is compared where it lies in the memory
	 * cache, so only new stacks are copied.
	 */
	stkaddr = addr + (uint64_t)lay->bucket_words * ps;
	dup = w->p->nrecs > 0 && nstk == w->prev_nstk;
	if (nstk > 0 && ps == 8 && !m->big_endian && GH_HOST_LITTLE_ENDIAN) {
		/* The common case: the words are already host uint64s. */
		dst = w->p->pcpool + w->npcs;
		rc = read_view(w, stkaddr, (unsigned char *)dst,
			       (size_t)nstk * ps, &sp);
		if (rc != 0)
			return rc;
		dup = dup && memcmp(w->p->pcpool + w->prev_off, sp,
				    (size_t)nstk * ps) == 0;
		if (!dup && sp != (const unsigned char *)dst)
			memcpy(dst, sp, (size_t)nstk * ps);
	} else if (nstk > 0) {
		/* max_stack <= 1024 words: fits the on-stack buffer. */
		dst = w->p->pcpool + w->npcs;
		rc = gh_mem_read(m, stkaddr, stkbuf, (size_t)nstk * ps, what);
		if (rc != 0)
			return rc;
		for (i = 0; i < nstk; i++)
			dst[i] = gh_mem_word(m, stkbuf + i * ps, ps);
		dup = dup && memcmp(w->p->pcpool + w->prev_off, dst,
				    (size_t)nstk * sizeof(*dst)) == 0;
	}

	r = &w->p->recs[w->p->nrecs];
	memset(r, 0, sizeof(*r));
	r->bucket = addr;
	r->object_size = (int64_t)size;
	r->nstk = (size_t)nstk;
	if (dup) {
		nstk = 0;   /* nothing new in the pool */
	} else {
		w->prev_off = w->npcs;
		w->prev_nstk = r->nstk;
	}
	r->stk = (uint64_t *)(uintptr_t)w->prev_off; /* fixed up later */
	recaddr = addr + ((uint64_t)lay->bucket_words + r->nstk) * ps;

	if (want_typ == lay->typ_mem) {
		mcycle act, fut[3];
		unsigned k;

		reclen = (size_t)lay->cycle_words * ps * 4;
		rc = read_view(w, recaddr, recbuf, reclen, &rec);
		if (rc != 0)
			return rc;
		load_cycle(w, rec, size, &act);
		for (k = 0; k < 3; k++)
			load_cycle(w, rec + (size_t)(k + 1) * lay->cycle_words * ps,
				   size, &fut[k]);
		/* mProf_FlushLocked(idx): active += future[idx]. */
		add_cycle(&act, &fut[cycle_idx]);
		memset(&fut[cycle_idx], 0, sizeof(fut[cycle_idx]));
		r->alloc_objects = (int64_t)act.allocs;
		r->free_objects = (int64_t)act.frees;
		r->alloc_bytes = (int64_t)act.alloc_bytes;
		r->free_bytes = (int64_t)act.free_bytes;
		if (act.allocs != 0 || act.frees != 0) {
			w->clear = 0;
			free(w->future);
			w->future = NULL;
			w->cap_future = 0;
		}
		if (w->clear)
			memcpy(&w->future[w->p->nrecs * 3], fut, sizeof(fut));
	} else {
		uint64_t cbits, cycles;
		double count;

		reclen = lay->blockrec_size;
		rc = read_view(w, recaddr, recbuf, reclen, &rec);
		if (rc != 0)
			return rc;
		cbits = gh_mem_word(m, rec + lay->blockrec_count, 8);
		cycles = gh_mem_word(m, rec + lay->blockrec_cycles, 8);
		memcpy(&count, &cbits, sizeof(count));
		/* int64(bp.count): Go truncates toward zero; NaN/huge
		 * values from a corrupt record are clamped rather than UB. */
		if (!(count > -9.2e18 && count < 9.2e18))
			count = 0;
		r->count = (int64_t)count;
		/* BlockProfile forces Count = 1 (CL 299991); MutexProfile
		 * does not. */
		if (want_typ == lay->typ_block && r->count == 0)
			r->count = 1;
		r->cycles = (int64_t)cycles;
	}
	w->npcs += (size_t)nstk;
	w->p->nrecs++;
	w->p->bucket_bytes += ((uint64_t)lay->bucket_words + r->nstk) * ps +
			      reclen;
	return 0;
}

static int walk_list(walk_state *w, uint64_t head, int want_typ,
		     unsigned cycle_idx)
{
	uint64_t b = head, next, tortoise = head;
	uint64_t power = 1, lam = 0;
	int rc;

	while (b != 0) {
		rc = read_bucket(w, b, want_typ, cycle_idx, &next);
		if (rc != 0)
			return rc;
		b = next;
		/* Brent's cycle detection on the allnext chain. */
		if (b == tortoise && b != 0)
			return gh_errf(w->err, GOHEAP_ECORRUPT,
				       "bucket list has a cycle at 0x%llx",
				       (unsigned long long)b);
		if (++lam == power) {
			tortoise = b;
			power *= 2;
			lam = 0;
		}
	}
	return 0;
}

static void finish_mem(walk_state *w)
{
	gh_profile *p = w->p;
	gh_record *r;
	mcycle act;
	size_t i;
	unsigned k;

	/* No GC has completed: fold every future cycle (the flushed one is
	 * already zero in our copy, as it is in the runtime). */
	if (!w->clear)
		return;
	for (i = 0; i < p->nrecs; i++) {
		r = &p->recs[i];
		act.allocs = (uint64_t)r->alloc_objects;
		act.frees = (uint64_t)r->free_objects;
		act.alloc_bytes = (uint64_t)r->alloc_bytes;
		act.free_bytes = (uint64_t)r->free_bytes;
		for (k = 0; k < 3; k++)
			add_cycle(&act, &w->future[i * 3 + k]);
		r->alloc_objects = (int64_t)act.allocs;
		r->free_objects = (int64_t)act.frees;
		r->alloc_bytes = (int64_t)act.alloc_bytes;
		r->free_bytes = (int64_t)act.free_bytes;
	}
}

int gh_walk(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
	    const gh_rtaddrs *a, gh_err *err)
{
	walk_state w;
	uint64_t head = 0, listaddr, rate = 0, cyc = 0;
	unsigned idx = 0;
	const char *listname;
	int want, rc;
	double t0 = gh_now(), tb0 = m->t_backend;
	uint64_t n0 = m->nreads, b0 = m->nbytes;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.m = m;
	w.lay = lay;
	w.err = err;
	w.clear = 1;

	switch (p->kind) {
	case GOHEAP_PROFILE_BLOCK:
		listaddr = a->bbuckets;
		listname = "runtime.bbuckets";
		want = lay->typ_block;
		break;
	case GOHEAP_PROFILE_MUTEX:
		listaddr = a->xbuckets;
		listname = "runtime.xbuckets";
		want = lay->typ_mutex;
		break;
	default:
		listaddr = a->mbuckets;
		listname = "runtime.mbuckets";
		want = lay->typ_mem;
		break;
	}
	if (listaddr == 0)
		return gh_errf(err, GOHEAP_ENOSYM, "%s: address unknown",
			       listname);
	rc = gh_mem_read_ptr(m, listaddr, &head, listname);
	if (rc != 0)
		return rc;

	if (want == lay->typ_mem) {
		if (a->memprofilerate != 0) {
			rc = gh_mem_read_uint(m, a->memprofilerate, m->ptr_size,
					      &rate, "runtime.MemProfileRate");
			if (rc != 0)
				return rc;
		}
		p->rate = (int64_t)rate;
		if (m->ptr_size == 4)
			p->rate = (int32_t)(uint32_t)rate;
		/* With the rate 0, a program whose linker disabled
		 * profiling may still hold a sample or two taken before
		 * schedinit zeroed the rate (1.25+ sample the first
		 * allocations): that is not a profile. */
		if (rate == 0 && head == 0)
			return gh_errf(err, GOHEAP_EDISABLED,
				       "memory profiling is disabled in the "
				       "target (runtime.MemProfileRate is 0 "
				       "and nothing was recorded)");
		if (rate == 0 && a->linker_disabled)
			return gh_errf(err, GOHEAP_EDISABLED,
				       "memory profiling is disabled in the "
				       "target (runtime.MemProfileRate is 0: "
				       "the program never reads the profile, "
				       "so its linker turned it off)");
		if (a->mprofcycle == 0)
			return gh_errf(err, GOHEAP_ENOSYM,
				       "runtime.mProfCycle: address unknown");
		rc = gh_mem_read_uint(m, a->mprofcycle, 4, &cyc,
				      "runtime.mProfCycle");
		if (rc != 0)
			return rc;
		if (lay->cycle_flag_bit)
			cyc >>= 1;
		idx = (unsigned)(cyc % 3);
	}
	rc = walk_list(&w, head, want, idx);
	if (rc != 0)
		goto out;
	if (want == lay->typ_mem)
		finish_mem(&w);
	for (i = 0; i < p->nrecs; i++)
		p->recs[i].stk = p->pcpool + (uintptr_t)p->recs[i].stk;
	p->nbuckets = p->nrecs;
out:
	if (rc != 0) {
		/* Leave no half-fixed-up stack pointers behind. */
		free(p->recs);
		p->recs = NULL;
		p->nrecs = 0;
	}
	free(w.future);
	p->t_read = m->t_backend - tb0;
	p->t_walk = gh_now() - t0 - p->t_read;
	p->read_calls = m->nreads - n0;
	p->read_bytes = m->nbytes - b0;
	return rc;
}

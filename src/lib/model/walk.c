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
 *
 * Implausible buckets.  A bucket whose header and links are sound may
 * still hold numbers no runtime produces (one damaged word in a core, a
 * torn read of a live process).  Printed, they give negative counts, or
 * sums that wrap; so every bucket is checked against what mprof.go can
 * write before it becomes a record (plausible_*, below):
 *
 *   - size: heap buckets are keyed by the allocation slot's size, which is
 *     always a size class (class_to_size, identical in 1.18-1.27) or a
 *     whole number of 8 KiB pages up to maxAlloc (mallocgcLarge: size =
 *     span.elemsize; user arena chunks are 8 MiB); block/mutex buckets
 *     have size 0 (saveblockevent / saveBlockEventStack);
 *   - stack: the runtime stores return PCs (callers, gcallers,
 *     fpTracebackPartialExpand, tracebackPCs: uf.pc + 1), never 0 and
 *     never in the zero page or beyond the user address space (but for
 *     the logicalStackSentinel that starts 1.23-1.26's runtime-lock
 *     mutex stacks); a memory
 *     bucket has at least one (mProf_Malloc runs under mallocgc's caller,
 *     and 1.23+ sample nothing when profstackdepth is 0);
 *   - memRecordCycle (each of the four): bytes are that cycle's count x
 *     size (<= 1.26 mProf_Malloc/mProf_Free add the bucket's size per
 *     object, modulo the word size; 1.27 derives them), at most 2^60
 *     bytes each; after the flush (and after the "no GC" fold) frees <=
 *     allocs in objects and bytes (a free is recorded in the same or an
 *     earlier future slot than its allocation is published to, never
 *     before it);
 *   - block/mutex: count a finite float64 >= 0, cycles >= 0;
 *   - the totals: the writers' sums of every column, raw and as pprof
 *     scales them (scaleHeapSample), stay within int64 (2^62).
 *
 * (MemProfileRate itself is not a bucket: a negative one, or one beyond
 * 2^62, refuses the read.)
 *
 * Such a bucket is skipped and counted (gh_profile.skipped, with the first
 * one's address and reason), so that the profile is the target's minus
 * what cannot be right and every writer's header is the sum of what it
 * prints.  When more than GH_WALK_SKIP_MAX and more than 1 in
 * GH_WALK_SKIP_RATIO are implausible, the read is refused
 * (GOHEAP_ECORRUPT): that is a wrong layout or a wrecked core, not a
 * damaged word.  A skipped bucket does not take part in the "no GC yet"
 * decision.
 */
#include "config.h"

/*
 * No vectorisation in this file (GCC): it turned the word stores of a
 * bucket's cycles and of the running totals into 16-byte loads a few
 * instructions later (add_cycle, finish_check's totals), and a load that
 * smaller stores must forward waits for them to retire: the hottest
 * instructions of the walk in perf at 100k buckets, for no vector work
 * worth having here.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#include <math.h>
#include <stdarg.h>
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
	/*
	 * Sizes plausible_size accepted, by (size / 8) % 64: a profile has
	 * few distinct ones, and the binary search's branches are as hard
	 * to predict as the sizes.
	 */
	uint64_t size_ok[64];
	uint64_t size_maxn[64]; /* GH_WALK_MAX_BYTES / size_ok[i] */
	/*
	 * finish_check's running totals, and the records already through it
	 * ([0, nfinal) of p->recs).  With a sink, those are handed out and
	 * dropped (nemitted counts them), so that a streaming walk keeps
	 * one bucket at a time once a GC has completed.
	 */
	int64_t tot[8];
	size_t nfinal;
	/* scaled_bounds' factor 1 + rate/size, by the size's slot as
	 * size_ok (f_size 0: none): a division per record otherwise */
	int64_t f_size[64];
	double f_val[64];
	const gh_walk_sink *sink;
	uint64_t nemitted;
	/*
	 * The one record a streaming walk holds once a GC has completed
	 * has its stack here, where it lies in the memory cache (NULL: in
	 * pcpool): it goes to the sink before anything else is read, so
	 * the copy into the pool would be the walker's only use of it.
	 */
	const uint64_t *direct;
	int late;        /* skip() is called from finish_check */
	int first_late;  /* p->skipped_bucket came from finish_check */
} walk_state;

/* ---- plausibility ---------------------------------------------------- */

/* A size mallocgc records for a sampled object on a ps-byte target. */
static int plausible_size(const gh_rtlayout *lay, uint64_t size, unsigned ps)
{
	const uint16_t *size_classes = lay->size_classes;
	size_t lo = 0, hi = lay->nsize_classes, mid;
	/* maxAlloc: 1<<heapAddrBits (48) on 64-bit, 1<<32 - 1 on 32-bit */
	uint64_t max = ps == 4 ? 0xffffffffu : (uint64_t)1 << 48;

	if (size > lay->max_small_size)
		return size % lay->page_size == 0 && size <= max;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (size_classes[mid] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lay->nsize_classes && size_classes[lo] == size;
}

/* A return PC the runtime could have stored: not in the zero page, and
 * inside the user address space (below 2^57 on every 64-bit Linux). */
static int plausible_pc(uint64_t pc, unsigned ps)
{
	return pc >= 4096 && (ps == 4 || pc < GH_WALK_MAX_PC);
}

/*
 * Count bucket `addr` as skipped; the first one's address and reason are
 * kept for the warning.  Returns 0 so that read_bucket can `return
 * skip(...)` and walk on.
 */
static int skip(walk_state *w, uint64_t addr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int skip(walk_state *w, uint64_t addr, const char *fmt, ...)
{
	gh_profile *p = w->p;
	va_list ap;

	/*
	 * The first bucket named is the first one the walk itself left
	 * out, else the first one finish_check (w->late) did: the order in
	 * which gh_walk finds them, which runs finish_check after the
	 * walk.  A streaming walk runs it as it goes, and must name the
	 * same bucket.
	 */
	if (p->skipped++ == 0 || (w->first_late && !w->late)) {
		p->skipped_bucket = addr;
		w->first_late = w->late;
		va_start(ap, fmt);
		vsnprintf(p->skipped_reason, sizeof(p->skipped_reason), fmt,
			  ap);
		va_end(ap);
	}
	return 0;
}

/*
 * One memRecordCycle as the runtime can leave it: bytes that are this
 * cycle's objects times the bucket's size (4-word cycles store them, in
 * a uintptr: equal modulo the word size), at most GH_WALK_MAX_BYTES.  The
 * 2-word form derived them already (load_cycle).  0 if plausible, else
 * a reason in why.
 */
static int cycle_implausible(const walk_state *w, const mcycle *c,
			     uint64_t size, uint64_t maxn, char *why, size_t len)
{
	uint64_t mask = w->m->ptr_size == 4 ? 0xffffffffu : UINT64_MAX;

	if (c->allocs > maxn || c->frees > maxn) {
		snprintf(why, len, "%llu allocations and %llu frees of %llu "
			 "bytes are beyond any heap",
			 (unsigned long long)c->allocs,
			 (unsigned long long)c->frees,
			 (unsigned long long)size);
		return 1;
	}
	if (w->lay->cycle_words < 4)
		return 0;
	if (c->alloc_bytes != ((c->allocs * size) & mask) ||
	    c->free_bytes != ((c->frees * size) & mask)) {
		snprintf(why, len, "bytes %llu allocated / %llu freed are not "
			 "%llu / %llu objects of %llu bytes",
			 (unsigned long long)c->alloc_bytes,
			 (unsigned long long)c->free_bytes,
			 (unsigned long long)c->allocs,
			 (unsigned long long)c->frees,
			 (unsigned long long)size);
		return 1;
	}
	return 0;
}

/* Frees of objects never allocated (after the flush or the fold). */
static int frees_exceed(const mcycle *c)
{
	return c->frees > c->allocs || c->free_bytes > c->alloc_bytes;
}

/*
 * The common case of load_cycle and cycle_implausible for all four
 * cycles at once: a 64-bit little-endian target read on a little-endian
 * host.  1 with act and fut filled when every cycle is plausible; 0 when
 * not the common case or when some check fails (the caller then decodes
 * again the general way, which names the failure).
 */
static int fast_cycles(const walk_state *w, const unsigned char *rec,
		       uint64_t size, uint64_t maxn, mcycle *act,
		       mcycle fut[3])
{
	uint64_t bad = 0, x0, x1, x2, x3;
	unsigned k, cw = w->lay->cycle_words;

	if (w->m->ptr_size != 8 || w->m->big_endian || !GH_HOST_LITTLE_ENDIAN ||
	    (cw != 2 && cw != 4))
		return 0;
	/* Word by word where the record lies: a memcpy of the whole
	 * record into a local array compiled to rep movs, whose start-up
	 * cost was 9% of the walk. */
	for (k = 0; k < 4; k++) {
		const unsigned char *x = rec + (size_t)k * cw * 8;
		mcycle *o = k == 0 ? act : &fut[k - 1];

		memcpy(&x0, x, 8);
		memcpy(&x1, x + 8, 8);
		o->allocs = x0;
		o->frees = x1;
		bad |= (uint64_t)(x0 > maxn) | (uint64_t)(x1 > maxn);
		if (cw == 4) {
			memcpy(&x2, x + 16, 8);
			memcpy(&x3, x + 24, 8);
			o->alloc_bytes = x2;
			o->free_bytes = x3;
			bad |= (x2 ^ x0 * size) | (x3 ^ x1 * size);
		} else {
			o->alloc_bytes = x0 * size;
			o->free_bytes = x1 * size;
		}
	}
	return bad == 0;
}

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
	const unsigned char *hdr, *rec, *sp, *rest = NULL;
	/* The new stack's words, host order, for the plausibility pass */
	const unsigned char *chk = NULL;
	uint64_t typ, size, nstk, recaddr, stkaddr, pc;
	uint64_t *dst;
	gh_record *r;
	size_t i, reclen;
	const char *what = "bucket";
	uint64_t maxn = 0;   /* the most objects of this size a cycle may count */
	const uint64_t *direct = NULL;
	int rc, dup, pcs_ok = 0;

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
	if (w->nemitted + w->p->nrecs + w->p->skipped >= GH_WALK_MAX_BUCKETS)
		return gh_errf(w->err, GOHEAP_ELIMIT,
			       "more than %u buckets: refusing to continue",
			       GH_WALK_MAX_BUCKETS);
	if (w->npcs + nstk > GH_WALK_MAX_PCS)
		return gh_errf(w->err, GOHEAP_ELIMIT,
			       "more than %u stack words in all buckets",
			       GH_WALK_MAX_PCS);
	reclen = want_typ == lay->typ_mem ?
		 (size_t)lay->cycle_words * ps * 4 : lay->blockrec_size;
	w->p->bucket_bytes += ((uint64_t)lay->bucket_words + nstk) * ps +
			      reclen;
	/* The allnext link stays trusted: a skipped bucket is walked past. */
	if (want_typ == lay->typ_mem) {
		unsigned slot = (unsigned)((size >> 3) & 63);

		if (size == 0 || w->size_ok[slot] != size) {
			if (!plausible_size(lay, size, ps))
				return skip(w, addr, "size %llu is not one the "
					    "runtime records for a memory "
					    "bucket", (unsigned long long)size);
			w->size_ok[slot] = size;
			/* size > 0: plausible_size has no class 0 */
			w->size_maxn[slot] = GH_WALK_MAX_BYTES / size;
		}
		maxn = w->size_maxn[slot];
	} else if (size != 0)
		return skip(w, addr, "size %llu is not one the runtime records "
			    "for a %s bucket", (unsigned long long)size,
			    want_typ == lay->typ_mem ? "memory" : "block/mutex");
	if (want_typ == lay->typ_mem && nstk == 0)
		return skip(w, addr, "empty stack (mProf_Malloc records at "
			    "least the allocating function)");
	rc = grow(w, (size_t)nstk);
	if (rc != 0)
		return gh_errf(w->err, rc, "out of memory walking buckets");

	/*
	 * A stack equal to the previous record's (same call site, another
	 * size class, as a slice growing in a loop makes them) is stored
	 * once: the records share it, and the writers see equal neighbours
	 * by their pointers.  It is compared where it lies in the memory
	 * cache, so only new stacks are copied.  The pool slot past the last
	 * record is scratch until the bucket is accepted.
	 */
	stkaddr = addr + (uint64_t)lay->bucket_words * ps;
	dup = w->p->nrecs > 0 && nstk == w->prev_nstk;
	if (nstk > 0 && ps == 8 && !m->big_endian && GH_HOST_LITTLE_ENDIAN) {
		/* The common case: the words are already host uint64s, and
		 * the stack and the record usually lie in one cache block:
		 * one look-up for both. */
		dst = w->p->pcpool + w->npcs;
		rest = gh_mem_peek(m, stkaddr, (size_t)nstk * ps + reclen);
		sp = rest;
		if (rest == NULL) {
			rc = read_view(w, stkaddr, (unsigned char *)dst,
				       (size_t)nstk * ps, &sp);
			if (rc != 0)
				return rc;
		}
		dup = dup && memcmp(w->p->pcpool + w->prev_off, sp,
				    (size_t)nstk * ps) == 0;
		/* Streaming and nothing held: the record goes out before
		 * the next read, with its stack where it was read
		 * (w->direct; one look-up held the stack and the record, so
		 * no read replaces that block first).  sp is 8-aligned:
		 * bucket words are. */
		if (rest != NULL && w->sink != NULL && !w->clear &&
		    w->p->nrecs == 0)
			direct = (const uint64_t *)(const void *)sp;
		else if (!dup && sp != (const unsigned char *)dst)
			memcpy(dst, sp, (size_t)nstk * ps);
		/* Checked where they were read, not in the copy just made:
		 * word loads from the copy wait on its wide stores (no store
		 * forwarding), which was 60% of the walk's own time at 100k
		 * buckets (perf). */
		chk = sp;
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
		chk = (const unsigned char *)dst;
	}
	/* A duplicate was checked with the previous record.  1.23-1.26
	 * mutex stacks of runtime-internal locks start with
	 * logicalStackSentinel, ^uintptr(0) (mLockProfile).  One pass without
	 * branches first (every word of every new stack goes through it);
	 * the loop below only finds and names the culprit. */
	if (!dup && nstk > 0) {
		/* v < 4096 or v >= lim, as one unsigned compare of the
		 * largest v - 4096 (branch-free, two words a step) */
		uint64_t span = (ps == 4 ? UINT64_MAX : GH_WALK_MAX_PC) - 4096;
		uint64_t m0 = 0, m1 = 0, x, y;

		memcpy(&x, chk, 8);
		i = want_typ == lay->typ_mutex &&
		    x == (ps == 4 ? 0xffffffffu : UINT64_MAX);
		for (; i + 1 < nstk; i += 2) {
			memcpy(&x, chk + i * 8, 8);
			memcpy(&y, chk + i * 8 + 8, 8);
			x -= 4096;
			m0 = x > m0 ? x : m0;
			y -= 4096;
			m1 = y > m1 ? y : m1;
		}
		if (i < nstk) {
			memcpy(&x, chk + i * 8, 8);
			x -= 4096;
			m0 = x > m0 ? x : m0;
		}
		pcs_ok = (m0 > m1 ? m0 : m1) < span;
	}
	for (i = 0; !dup && !pcs_ok && i < nstk; i++) {
		pc = direct != NULL ? direct[i] : w->p->pcpool[w->npcs + i];
		if (i == 0 && want_typ == lay->typ_mutex &&
		    pc == (ps == 4 ? 0xffffffffu : UINT64_MAX))
			continue;
		if (!plausible_pc(pc, ps))
			return skip(w, addr, "stack word %zu of %llu is 0x%llx, "
				    "not a return address", i,
				    (unsigned long long)nstk,
				    (unsigned long long)pc);
	}
	recaddr = addr + ((uint64_t)lay->bucket_words + nstk) * ps;
	if (rest != NULL) {
		rec = rest + (size_t)nstk * ps;
	} else {
		rc = read_view(w, recaddr, recbuf, reclen, &rec);
		if (rc != 0)
			return rc;
	}

	r = &w->p->recs[w->p->nrecs];
	memset(r, 0, sizeof(*r));
	if (want_typ == lay->typ_mem) {
		mcycle act, fut[3];
		char why[sizeof(w->p->skipped_reason)];
		unsigned k;

		if (!fast_cycles(w, rec, size, maxn, &act, fut)) {
			/* The general decoding, which also names what is
			 * wrong. */
			load_cycle(w, rec, size, &act);
			for (k = 0; k < 3; k++)
				load_cycle(w, rec + (size_t)(k + 1) *
					   lay->cycle_words * ps, size,
					   &fut[k]);
			if (cycle_implausible(w, &act, size, maxn, why,
					      sizeof(why)))
				return skip(w, addr, "active: %s", why);
			for (k = 0; k < 3; k++)
				if (cycle_implausible(w, &fut[k], size, maxn,
						      why, sizeof(why)))
					return skip(w, addr,
						    "future[%u]: %s", k, why);
		}
		/* mProf_FlushLocked(idx): active += future[idx]. */
		add_cycle(&act, &fut[cycle_idx]);
		memset(&fut[cycle_idx], 0, sizeof(fut[cycle_idx]));
		if (frees_exceed(&act))
			return skip(w, addr, "%llu frees (%llu bytes) exceed "
				    "%llu allocations (%llu bytes)",
				    (unsigned long long)act.frees,
				    (unsigned long long)act.free_bytes,
				    (unsigned long long)act.allocs,
				    (unsigned long long)act.alloc_bytes);
		r->alloc_objects = (int64_t)act.allocs;
		r->free_objects = (int64_t)act.frees;
		r->alloc_bytes = (int64_t)act.alloc_bytes;
		r->free_bytes = (int64_t)act.free_bytes;
		if (w->clear && (act.allocs != 0 || act.frees != 0)) {
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

		cbits = gh_mem_word(m, rec + lay->blockrec_count, 8);
		cycles = gh_mem_word(m, rec + lay->blockrec_cycles, 8);
		memcpy(&count, &cbits, sizeof(count));
		/* saveBlockEventStack adds rate/cycles, rate or 1 (finite,
		 * > 0) and cycles >= 0 (blockevent and the mutex paths
		 * clamp them); int64(bp.count) then truncates. */
		if (!(count >= 0 && count < 0x1p62))
			return skip(w, addr, "count %g is negative, not a "
				    "number or beyond int64", count);
		if (cycles > (uint64_t)GH_WALK_MAX_TOTAL)
			return skip(w, addr, "cycles %lld are negative or "
				    "beyond 2^62", (long long)cycles);
		r->count = (int64_t)count;
		/* BlockProfile forces Count = 1 (CL 299991); MutexProfile
		 * does not. */
		if (want_typ == lay->typ_block && r->count == 0)
			r->count = 1;
		r->cycles = (int64_t)cycles;
	}
	r->bucket = addr;
	r->object_size = (int64_t)size;
	r->nstk = (size_t)nstk;
	w->direct = direct;
	if (direct != NULL) {
		/* Not in the pool: no later record compares with it. */
		w->prev_nstk = 0;
		r->stk = NULL;
		w->p->nrecs++;
		return 0;
	}
	if (!dup) {
		w->prev_off = w->npcs;
		w->prev_nstk = r->nstk;
		w->npcs += (size_t)nstk;
	}
	r->stk = (uint64_t *)(uintptr_t)w->prev_off; /* fixed up later */
	w->p->nrecs++;
	return 0;
}

static void finish_check(walk_state *w);
static int emit_final(walk_state *w);

static int walk_list(walk_state *w, uint64_t head, int want_typ,
		     unsigned cycle_idx)
{
	uint64_t b = head, next = 0, tortoise = head;
	uint64_t power = 1, lam = 0;
	int rc;

	while (b != 0) {
		rc = read_bucket(w, b, want_typ, cycle_idx, &next);
		if (rc != 0)
			return rc;
		/* Streaming, once a GC has completed: records are final as
		 * they are read (memory lists only: block/mutex records wait
		 * for the end, as their clear flag never drops). */
		if (w->sink != NULL && !w->clear && w->p->nrecs > 0) {
			finish_check(w);
			rc = emit_final(w);
			if (rc != 0)
				return rc;
		}
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

/*
 * The last checks, on the records as the writers will see them: after
 * the "no GC" fold, frees <= allocs again; then every column the writers
 * sum (raw, and heap samples as scaleHeapSample scales them at this
 * rate) must keep its total within GH_WALK_MAX_TOTAL.  A record that
 * fails is removed (the list order of the others is kept).
 */
/*
 * An upper bound of scaleHeapSample(count, size, rate) (protomem.go), for
 * the totals check: with x = avg/rate, 1/(1-exp(-x)) <= 1 + 1/x, so each
 * scaled value is at most v * (1 + rate/avg), plus one for rounding.  A
 * bound, not the value: no math.Exp per record (that cost a tenth of a
 * 100k-bucket collection), and only ever stricter than the exact check.
 * Values beyond 2^62 come back as 2^62 + 1.
 */
static void scaled_bound(int64_t count, int64_t size, int64_t rate,
			 int64_t *bc, int64_t *bs)
{
	const double lim = (double)GH_WALK_MAX_TOTAL;
	double f, c, z;

	if (count <= 0 || size <= 0 || rate <= 1) {
		*bc = count > 0 && size > 0 ? count : 0;
		*bs = count > 0 && size > 0 ? size : 0;
		return;
	}
	f = 1.0 + (double)rate * (double)count / (double)size;
	c = (double)count * f + 1;
	z = (double)size * f + 1;
	*bc = c < lim ? (int64_t)c : GH_WALK_MAX_TOTAL + 1;
	*bs = z < lim ? (int64_t)z : GH_WALK_MAX_TOTAL + 1;
}

/*
 * scaled_bound of a heap record's allocated and in-use columns, into
 * v[0..3].  A memory bucket's bytes are its counts times its size (each
 * cycle was checked), so both averages are the size and one division
 * serves both: rate * count / bytes = rate / size.
 */
static void scaled_bounds(walk_state *w, const gh_record *r, int64_t rate,
			  int64_t *v)
{
	const double lim = (double)GH_WALK_MAX_TOTAL;
	int64_t c0 = r->alloc_objects, b0 = r->alloc_bytes;
	int64_t c1 = c0 - r->free_objects, b1 = b0 - r->free_bytes;
	int64_t size = r->object_size, p0, p1;
	double f, x[4];
	size_t j;

	if (rate <= 1 || size <= 0 || c0 <= 0 ||
	    __builtin_mul_overflow(c0, size, &p0) || p0 != b0 ||
	    __builtin_mul_overflow(c1, size, &p1) || p1 != b1) {
		scaled_bound(c0, b0, rate, &v[0], &v[1]);
		scaled_bound(c1, b1, rate, &v[2], &v[3]);
		return;
	}
	j = (size_t)(((uint64_t)size >> 3) & 63);
	if (w->f_size[j] != size) {
		w->f_size[j] = size;
		w->f_val[j] = 1.0 + (double)rate / (double)size;
	}
	f = w->f_val[j];
	x[0] = (double)c0 * f + 1;
	x[1] = (double)b0 * f + 1;
	/* scaled_bound: nothing in use scales to 0 */
	x[2] = c1 > 0 ? (double)c1 * f + 1 : 0;
	x[3] = c1 > 0 ? (double)b1 * f + 1 : 0;
	for (j = 0; j < 4; j++)
		v[j] = x[j] < lim ? (int64_t)x[j] : GH_WALK_MAX_TOTAL + 1;
}

/* The first column of v that would take its total beyond
 * GH_WALK_MAX_TOTAL (or is negative), or n; n is a constant at each call,
 * so the loops unroll. */
static inline size_t totals_fit(const int64_t *tot, const int64_t *v,
				size_t n)
{
	size_t j, first = n;

	for (j = n; j-- > 0;)
		if (v[j] < 0 || v[j] > GH_WALK_MAX_TOTAL - tot[j])
			first = j;
	return first;
}

static inline void totals_add(int64_t *tot, const int64_t *v, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		tot[j] += v[j];
}

static void finish_check(walk_state *w)
{
	gh_profile *p = w->p;
	int heap = p->kind == GOHEAP_PROFILE_HEAP ||
		   p->kind == GOHEAP_PROFILE_ALLOCS;
	int64_t *tot = w->tot, v[8];
	size_t i, k = w->nfinal, j, nv;
	const gh_record *r;

	w->late = 1;
	for (i = w->nfinal; i < p->nrecs; i++) {
		r = &p->recs[i];
		if (heap && (r->free_objects > r->alloc_objects ||
			     r->free_bytes > r->alloc_bytes)) {
			skip(w, r->bucket, "%lld frees (%lld bytes) exceed "
			     "%lld allocations (%lld bytes)",
			     (long long)r->free_objects,
			     (long long)r->free_bytes,
			     (long long)r->alloc_objects,
			     (long long)r->alloc_bytes);
			continue;
		}
		if (heap) {
			v[0] = r->alloc_objects;
			v[1] = r->alloc_bytes;
			v[2] = r->free_objects;
			v[3] = r->free_bytes;
			scaled_bounds(w, r, p->rate, &v[4]);
			nv = 8;
		} else {
			v[0] = r->count;
			v[1] = r->cycles;
			nv = 2;
		}
		j = nv == 8 ? totals_fit(tot, v, 8) : totals_fit(tot, v, 2);
		if (j < nv) {
			skip(w, r->bucket, "its %s (%lld, %lld) take the "
			     "profile's totals beyond 2^62",
			     !heap ? "count and cycles" :
			     j < 4 ? "counts" : "counts as pprof scales them",
			     (long long)v[j & ~(size_t)1],
			     (long long)v[j | 1]);
			continue;
		}
		if (nv == 8)
			totals_add(tot, v, 8);
		else
			totals_add(tot, v, 2);
		if (k != i)
			p->recs[k] = *r;
		k++;
	}
	p->nrecs = k;
	w->nfinal = k;
	w->late = 0;
}

/*
 * Streaming: hand the final records to the sink and drop them, with the
 * stacks they alone use (all of them: the pool restarts empty, and with
 * no record kept, the next bucket's stack is not compared with a stale
 * one).
 */
static int emit_final(walk_state *w)
{
	gh_profile *p = w->p;
	gh_record t;
	size_t i;
	int rc;

	for (i = 0; i < w->nfinal; i++) {
		t = p->recs[i];
		/* w->direct: the only record (read_bucket) */
		t.stk = w->direct != NULL ? (uint64_t *)w->direct :
			p->pcpool + (uintptr_t)t.stk;
		rc = w->sink->record(w->sink->arg, &t);
		if (rc != 0)
			return gh_errf(w->err, rc, "writing record %llu: %s",
				       (unsigned long long)w->nemitted,
				       goheap_strerror(rc));
		w->nemitted++;
	}
	p->nrecs = 0;
	w->nfinal = 0;
	w->npcs = 0;
	w->direct = NULL;
	return 0;
}

static int walk_impl(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
		     const gh_rtaddrs *a, const gh_walk_sink *sink,
		     gh_err *err)
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
	w.sink = sink;

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
		/* A negative rate samples nothing (mallocgc tests rate > 0)
		 * and one past 2^62 makes the "@ heap/2*rate" of the text
		 * wrap: either is a damaged word or a wrong address. */
		if (p->rate < 0 || p->rate > GH_WALK_MAX_TOTAL)
			return gh_errf(err, GOHEAP_ECORRUPT,
				       "runtime.MemProfileRate reads %lld: not "
				       "a rate the runtime samples with (a "
				       "corrupt core or a wrong address)",
				       (long long)p->rate);
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
	p->skipped = 0;
	p->skipped_bucket = 0;
	p->skipped_reason[0] = '\0';
	if (sink != NULL && sink->begin != NULL) {
		rc = sink->begin(sink->arg, p);
		if (rc != 0) {
			rc = gh_errf(err, rc, "starting the writer: %s",
				     goheap_strerror(rc));
			goto out;
		}
	}
	rc = walk_list(&w, head, want, idx);
	if (rc != 0)
		goto out;
	if (want == lay->typ_mem)
		finish_mem(&w);
	finish_check(&w);
	if (sink != NULL) {
		rc = emit_final(&w);
		if (rc != 0)
			goto out;
	}
	p->nbuckets = w.nemitted + p->nrecs + p->skipped;
	if (p->skipped > GH_WALK_SKIP_MAX &&
	    p->skipped > p->nbuckets / GH_WALK_SKIP_RATIO) {
		rc = gh_errf(err, GOHEAP_ECORRUPT, "%llu of %llu buckets in "
			     "%s are implausible (first at 0x%llx: %s): a "
			     "corrupt core or an unsupported runtime layout",
			     (unsigned long long)p->skipped,
			     (unsigned long long)p->nbuckets, listname,
			     (unsigned long long)p->skipped_bucket,
			     p->skipped_reason);
		goto out;
	}
	for (i = 0; i < p->nrecs; i++)
		p->recs[i].stk = p->pcpool + (uintptr_t)p->recs[i].stk;
out:
	if (rc != 0) {
		/* Leave no half-fixed-up stack pointers behind; nbuckets
		 * still says how far the walk got (for messages). */
		if (p->nbuckets == 0)
			p->nbuckets = w.nemitted + p->nrecs + p->skipped;
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

int gh_walk(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
	    const gh_rtaddrs *a, gh_err *err)
{
	return walk_impl(p, m, lay, a, NULL, err);
}

int gh_walk_stream(gh_profile *p, gh_mem *m, const gh_rtlayout *lay,
		   const gh_rtaddrs *a, const gh_walk_sink *sink,
		   gh_err *err)
{
	int rc = walk_impl(p, m, lay, a, sink, err);

	/* Everything went to the sink. */
	free(p->recs);
	p->recs = NULL;
	p->nrecs = 0;
	return rc;
}

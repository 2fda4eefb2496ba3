/*
 * memstats.c - runtime.MemStats as runtime.ReadMemStats computes it, read
 * from outside (memstats.h).
 *
 * Go 1.19-1.27 src/runtime/mstats.go readmemstats_m: with the world
 * stopped it flushes every P's mcache (mcache.go releaseAll: each cached
 * span's allocCount - allocCountBeforeCache into
 * heapStats.smallAllocCount[sizeclass] and gcController.totalAlloc, the
 * mcache's tinyAllocs into heapStats.tinyAllocCount), sums the three
 * heapStatsDelta shards (consistentHeapStats.unsafeRead), and derives
 * every field from them, gcController's sysMemStats, memstats' and
 * mheap_'s fixallocs; NextGC is gcController.heapGoal() (mgcpacer.go).
 * go-heap does the same arithmetic on the words it reads, never writing
 * to the target.  The offsets are the release's row (rtlayout.c, checked
 * against DWARF by tests/dwarfcheck.c).  Every read is bounded; damaged
 * data is an error, never a crash.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "memstats.h"

#define MIB (1ull << 20)

/* The words read: the same at the running read and while stopped. */
typedef struct msraw {
	unsigned char *mst;          /* runtime.memstats, mst_len bytes */
	size_t mst_len;
	unsigned char gcc[512];      /* runtime.gcController */
	size_t gcc_len;
	uint64_t span_inuse, cache_inuse;
	/* the flush: per size class slots allocated from cached spans, and
	 * their bytes (gcController.totalAlloc), the mcaches' tiny allocs */
	uint64_t flush_small[GH_MS_NCLASSES];
	uint64_t flush_bytes, flush_tiny;
	uint64_t nprocs, cached_spans;
	/* uncacheSpan's pushes: bytes persistentalloc moves from other_sys
	 * to gcMiscSys; stale spans it would sweep (not done: counted) */
	uint64_t moved, stale;
	int pool_unknown;            /* spanSetBlockPool not found */
	/* the final read is of a running target (--no-stop): a cached span
	 * caught mid-change is skipped (counted in skipped), not an error */
	int tolerant;
	uint64_t skipped;
	/* gcount's and ThreadCreateProfile's words (have_counts 0: not
	 * located) */
	int have_counts;
	int64_t allglen, sched_gfree, ngsys, p_gfree, nthreads;
} msraw;

/* A spanSet as the flush's pushes leave it. */
typedef struct simset {
	uint64_t addr, spinelen, spinecap;
	uint32_t tail;
} simset;

#define GH_MS_MAX_SETS (2 * GH_MS_NSPANCLASSES)
#define GH_MS_SPANSET_ENTRIES 512    /* spanSetBlockEntries */
#define GH_MS_SPINE_INIT 256         /* spanSetInitSpineCap */
#define GH_MS_MAX_POOL 4096u         /* lfstack nodes walked at most */

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* runtime.<name>'s address, from .symtab (or 0 with the error set). */
/* A global target.c located (find_globals), or the error naming it. */
static int global(gh_target *tg, const char *name, uint64_t addr,
		  uint64_t *out)
{
	*out = addr;
	if (addr != 0)
		return 0;
	return gh_errf(&tg->err, GOHEAP_ENOSYM, "-p memstats: %s not found%s",
		       name, gh_exe_has_symtab(tg->exe) ? "" :
		       " (stripped: not located)");
}

typedef struct msaddrs {
	uint64_t memstats, gccontroller, mheap, allp;
	uint64_t pool;               /* runtime.spanSetBlockPool, 0 unknown */
	/* runtime.allglen (or allgs' length word), sched, allm; 0 unknown */
	uint64_t allglen, sched, allm;
	/* mheap_'s offsets for this target's machine (gh_rt_mheap_a64) */
	unsigned central, stride, spanalloc, cachealloc;
} msaddrs;

/* The flush's push simulation. */
typedef struct mspush {
	simset sets[GH_MS_MAX_SETS];
	size_t nsets;
	uint64_t pool_avail;         /* spanSetBlocks the pool can give */
	int pool_read;
	uint32_t sweepgen;           /* mheap_.sweepgen */
} mspush;

/* How many spanSetBlocks spanSetBlockPool's lfstack holds (at most
 * GH_MS_MAX_POOL); a node that cannot be read ends the count. */
static uint64_t pool_count(gh_target *tg, const gh_rtlayout *l,
			   uint64_t pool)
{
	uint64_t v, n = 0;
	unsigned char w[8];

	if (gh_mem_read(&tg->mem, pool, w, 8, "spanSetBlockPool") != 0)
		return 0;
	v = le64(w);
	while (v != 0 && n < GH_MS_MAX_POOL) {
		uint64_t node = (uint64_t)((int64_t)v >> l->lf_tagbits) <<
				l->lf_alignbits;

		n++;
		if (node == 0 || gh_mem_read(&tg->mem, node, w, 8,
					     "lfnode") != 0)
			break;
		v = le64(w);
	}
	return n;
}

/*
 * uncacheSpan(s) of a span of class spc whose nelems - allocCount is
 * free: the push on mcentral.partial or full [sweepgen/2%2], with what
 * it would persistentalloc (spanSet.push).
 */
static int sim_push(gh_target *tg, const gh_rtlayout *l,
		    const msaddrs *a, mspush *ps, msraw *r, unsigned spc,
		    int full)
{
	uint64_t addr = a->mheap + a->central +
			(uint64_t)spc * a->stride +
			(full ? l->mc_full : l->mc_partial) +
			(uint64_t)(ps->sweepgen / 2 % 2) * l->ss_size;
	simset *set = NULL;
	uint64_t top;
	size_t i;

	for (i = 0; i < ps->nsets; i++)
		if (ps->sets[i].addr == addr)
			set = &ps->sets[i];
	if (set == NULL) {
		unsigned char b[64];
		int rc;

		if (ps->nsets == GH_MS_MAX_SETS || l->ss_size > sizeof(b))
			return 0;
		rc = gh_mem_read(&tg->mem, addr, b, l->ss_size, "spanSet");
		if (rc != 0)
			return gh_errf(&tg->err, rc, "-p memstats: reading "
				       "mheap_.central[%u]'s spanSet", spc);
		set = &ps->sets[ps->nsets++];
		set->addr = addr;
		set->spinelen = le64(b + l->ss_spinelen);
		set->spinecap = le64(b + l->ss_spinecap);
		set->tail = le32(b + l->ss_index);   /* headTailIndex's tail */
		if (set->spinelen > set->spinecap || set->spinecap > (1u << 24))
			return gh_errf(&tg->err, GOHEAP_ECORRUPT, "-p memstats: "
				       "mheap_.central[%u]'s spanSet is damaged "
				       "(spine %llu of %llu)", spc,
				       (unsigned long long)set->spinelen,
				       (unsigned long long)set->spinecap);
	}
	top = set->tail / GH_MS_SPANSET_ENTRIES;
	set->tail++;
	if (top < set->spinelen)
		return 0;
	if (set->spinelen == set->spinecap) {
		uint64_t cap = set->spinecap ? set->spinecap * 2 :
			       GH_MS_SPINE_INIT;

		r->moved += cap * 8;
		set->spinecap = cap;
	}
	if (!ps->pool_read) {
		ps->pool_read = 1;
		ps->pool_avail = a->pool != 0 ? pool_count(tg, l, a->pool) :
				 ~(uint64_t)0;
	}
	if (ps->pool_avail > 0)
		ps->pool_avail--;
	else
		r->moved += l->ssb_size;
	set->spinelen++;
	return 0;
}

/* The Ps' mcaches, as flushmcache would release them. */
static int flush_ps(gh_target *tg, const gh_rtlayout *l,
		    const msaddrs *a, msraw *r, mspush *ps, uint64_t arr,
		    uint64_t len, unsigned char *cache, size_t clen,
		    unsigned char *span, size_t slen, uint64_t *emptyp)
{
	gh_mem *m = &tg->mem;
	uint64_t i, empty = *emptyp;
	int rc;

	for (i = 0; i < len; i++) {
		uint64_t pp, c, sp, j;
		unsigned char w[8];

		rc = gh_mem_read(m, arr + 8 * i, w, 8, "allp[i]");
		if (rc != 0)
			return gh_errf(&tg->err, rc, "-p memstats: reading "
				       "allp[%llu]", (unsigned long long)i);
		pp = le64(w);
		if (pp == 0)
			continue;
		rc = gh_mem_read(m, pp + l->p_mcache, w, 8, "p.mcache");
		if (rc != 0)
			return gh_errf(&tg->err, rc, "-p memstats: reading "
				       "allp[%llu].mcache", (unsigned long long)i);
		c = le64(w);
		if (c == 0)
			continue;
		rc = gh_mem_read(m, c, cache, clen, "mcache");
		if (rc != 0)
			return gh_errf(&tg->err, rc, "-p memstats: reading the "
				       "mcache of allp[%llu]",
				       (unsigned long long)i);
		r->flush_tiny += le64(cache + l->mc_tinyallocs);
		for (j = 0; j < GH_MS_NSPANCLASSES; j++) {
			int64_t used;
			uint64_t elemsize, nelems;
			uint32_t sweepgen;

			sp = le64(cache + l->mc_alloc + 8 * j);
			if ((sp == 0 || (sp & 7) != 0) && r->tolerant) {
				r->skipped++;
				continue;
			}
			if (sp == 0 || (sp & 7) != 0)
				return gh_errf(&tg->err, GOHEAP_ECORRUPT,
					       "-p memstats: the mcache of "
					       "allp[%llu] is damaged (alloc[%llu]"
					       " = %#llx)",
					       (unsigned long long)i,
					       (unsigned long long)j,
					       (unsigned long long)sp);
			if (sp == empty)
				continue;
			rc = gh_mem_read(m, sp, span, slen, "mspan");
			if (rc != 0)
				return gh_errf(&tg->err, rc, "-p memstats: "
					       "reading a cached span");
			used = (int64_t)le16(span + l->ms_alloccount) -
			       (int64_t)le16(span + l->ms_alloccount_bc);
			elemsize = le64(span + l->ms_elemsize);
			nelems = l->ms_idx_size == 2 ?
				 le16(span + l->ms_nelems) :
				 le64(span + l->ms_nelems);
			sweepgen = le32(span + l->ms_sweepgen);
			/* &emptymspan: all zeros (the slot's usual value) */
			if (elemsize == 0 && used == 0) {
				empty = sp;
				continue;
			}
			if ((nelems < le16(span + l->ms_alloccount) ||
			     nelems > 8192 ||
			     (used != 0 && (used < 0 || elemsize > 32768))) &&
			    r->tolerant) {
				r->skipped++;
				continue;
			}
			if (nelems < le16(span + l->ms_alloccount) ||
			    nelems > 8192)
				return gh_errf(&tg->err, GOHEAP_ECORRUPT,
					       "-p memstats: a cached span at "
					       "%#llx is damaged (nelems %llu)",
					       (unsigned long long)sp,
					       (unsigned long long)nelems);
			if (sweepgen == ps->sweepgen + 1) {
				/* stale: uncacheSpan would sweep it */
				r->stale++;
			} else {
				rc = sim_push(tg, l, a, ps, r, (unsigned)j,
					      nelems == le16(span +
							     l->ms_alloccount));
				if (rc != 0)
					return rc;
			}
			if (used == 0)
				continue;
			if (used < 0 || elemsize > 32768)
				return gh_errf(&tg->err, GOHEAP_ECORRUPT,
					       "-p memstats: a cached span at "
					       "%#llx is damaged (allocCount %u,"
					       " before cache %u, elemsize "
					       "%llu)", (unsigned long long)sp,
					       le16(span + l->ms_alloccount),
					       le16(span + l->ms_alloccount_bc),
					       (unsigned long long)elemsize);
			r->flush_small[j >> 1] += (uint64_t)used;
			r->flush_bytes += (uint64_t)used * elemsize;
			r->cached_spans++;
		}
	}
	*emptyp = empty;
	return 0;
}

/*
 * What flushallmcaches would fold in: for each P of allp, its mcache's
 * tinyAllocs and each cached span's allocCount - allocCountBeforeCache
 * (emptymspan, all zeros, adds nothing).
 */
static int read_mcaches(gh_target *tg, const gh_rtlayout *l,
			const msaddrs *a, msraw *r)
{
	gh_mem *m = &tg->mem;
	unsigned char hdr[24], cache[GH_MS_NSPANCLASSES * 8 + 64],
		      span[256];
	uint64_t arr, len, empty = 0;
	size_t clen = l->mc_alloc + GH_MS_NSPANCLASSES * 8;
	size_t slen = l->ms_elemsize + 8;
	mspush *ps;
	int rc;

	if (clen > sizeof(cache) || slen > sizeof(span) ||
	    (size_t)l->ms_alloccount_bc + 2 > slen ||
	    (size_t)l->ms_nelems + 8 > slen || (size_t)l->ms_sweepgen + 4 > slen)
		return gh_errf(&tg->err, GOHEAP_EVERSION, "unsupported runtime "
			       "layout: mcache of %zu bytes", clen);
	rc = gh_mem_read(m, a->allp, hdr, sizeof(hdr), "runtime.allp");
	if (rc != 0)
		return gh_errf(&tg->err, rc, "-p memstats: reading runtime.allp");
	arr = le64(hdr);
	len = le64(hdr + 8);
	if (len == 0 || len > GH_MS_MAX_PROCS || arr == 0 || (arr & 7) != 0)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT, "-p memstats: "
			       "runtime.allp is damaged (len %llu at %#llx)",
			       (unsigned long long)len,
			       (unsigned long long)arr);
	r->nprocs = len;
	rc = gh_mem_read(m, a->mheap + l->mh_sweepgen, hdr, 4,
			 "mheap_.sweepgen");
	if (rc != 0)
		return gh_errf(&tg->err, rc, "-p memstats: reading "
			       "mheap_.sweepgen");
	ps = gh_calloc(1, sizeof(*ps));
	if (ps == NULL)
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	ps->sweepgen = le32(hdr);
	r->pool_unknown = a->pool == 0;
	rc = flush_ps(tg, l, a, r, ps, arr, len, cache, clen, span, slen,
		      &empty);
	free(ps);
	return rc;
}

#define GH_MS_MAX_MS (1u << 20)      /* Ms on allm beyond this: damaged */

static int32_t rd32(gh_target *tg, uint64_t addr, int *rc)
{
	unsigned char w[4];

	if (*rc == 0)
		*rc = gh_mem_read(&tg->mem, addr, w, 4, "int32");
	return *rc == 0 ? (int32_t)le32(w) : 0;
}

/*
 * gcount's words (allglen, sched.gFree's counts, sched.ngsys, each P's
 * gFree count) and the Ms on allm (ThreadCreateProfile counts them).
 * Only watch's go_goroutines/go_threads use them: a word that cannot be
 * read, or an allm list that does not end, leaves them unknown
 * (have_counts 0) and MemStats are read all the same; only the time
 * limit ends the collection.
 */
static int read_counts(gh_target *tg, const gh_rtlayout *l,
		       const msaddrs *a, msraw *r)
{
	gh_mem *m = &tg->mem;
	unsigned char w[16];
	uint64_t arr, len, i, mp;
	int rc = 0;

	r->have_counts = 0;
	if (a->allglen == 0 || a->sched == 0 || a->allm == 0 ||
	    l->sched_ngsys == 0)
		return 0;
	rc = gh_mem_read(m, a->allglen, w, 8, "runtime.allglen");
	r->allglen = (int64_t)le64(w);
	r->sched_gfree = rd32(tg, a->sched + l->sched_gfree_n, &rc);
	if (l->sched_gfree_n2 != 0)
		r->sched_gfree += rd32(tg, a->sched + l->sched_gfree_n2, &rc);
	r->ngsys = rd32(tg, a->sched + l->sched_ngsys, &rc);
	if (rc == 0)
		rc = gh_mem_read(m, a->allp, w, 16, "runtime.allp");
	if (rc != 0)
		goto unknown;
	arr = le64(w);
	len = le64(w + 8);
	if (len > GH_MS_MAX_PROCS)
		return 0;
	r->p_gfree = 0;
	for (i = 0; i < len && rc == 0; i++) {
		rc = gh_mem_read(m, arr + 8 * i, w, 8, "allp[i]");
		if (rc == 0 && le64(w) != 0)
			r->p_gfree += rd32(tg, le64(w) + l->p_gfree_n, &rc);
	}
	if (rc == 0)
		rc = gh_mem_read(m, a->allm, w, 8, "runtime.allm");
	r->nthreads = 0;
	for (mp = rc == 0 ? le64(w) : 0; mp != 0 && rc == 0;
	     r->nthreads++) {
		if (r->nthreads == GH_MS_MAX_MS)
			return 0;      /* a cycle: damaged */
		rc = gh_mem_read(m, mp + l->m_alllink, w, 8, "m.alllink");
		mp = le64(w);
	}
	if (rc != 0)
		goto unknown;
	r->have_counts = 1;
	return 0;
unknown:
	if (rc == GOHEAP_ETIMEDOUT || rc == GOHEAP_ENOMEM)
		return gh_errf(&tg->err, rc, "-p memstats: reading "
			       "runtime.sched's goroutine counts or allm");
	return 0;
}

/* Every word readmemstats_m uses, into r (reset first). */
static int read_all(gh_target *tg, const gh_rtlayout *l,
		    const msaddrs *a, msraw *r)
{
	gh_mem *m = &tg->mem;
	unsigned char w[8];
	int rc;

	memset(r->flush_small, 0, sizeof(r->flush_small));
	r->flush_bytes = r->flush_tiny = r->nprocs = r->cached_spans = 0;
	r->moved = r->stale = r->skipped = 0;
	rc = gh_mem_read(m, a->memstats, r->mst, r->mst_len,
			 "runtime.memstats");
	if (rc == 0)
		rc = gh_mem_read(m, a->gccontroller, r->gcc, r->gcc_len,
				 "runtime.gcController");
	if (rc != 0)
		return gh_errf(&tg->err, rc, "-p memstats: reading %s",
			       tg->err.msg[0] ? tg->err.msg : "the runtime's "
			       "statistics");
	rc = gh_mem_read(m, a->mheap + a->spanalloc + l->fa_inuse, w, 8,
			 "mheap_.spanalloc.inuse");
	if (rc != 0)
		return gh_errf(&tg->err, rc, "-p memstats: reading "
			       "mheap_.spanalloc");
	r->span_inuse = le64(w);
	rc = gh_mem_read(m, a->mheap + a->cachealloc + l->fa_inuse, w, 8,
			 "mheap_.cachealloc.inuse");
	if (rc != 0)
		return gh_errf(&tg->err, rc, "-p memstats: reading "
			       "mheap_.cachealloc");
	r->cache_inuse = le64(w);
	rc = read_mcaches(tg, l, a, r);
	return rc != 0 ? rc : read_counts(tg, l, a, r);
}

/* gcControllerState.heapGoal() (mgcpacer.go heapGoalInternal and
 * memoryLimitHeapGoal), totalAlloc as the flush left it. */
static uint64_t heap_goal(const gh_rtlayout *l, const unsigned char *g,
			  uint64_t total_alloc)
{
	uint64_t goal = le64(g + l->gcc_gcpercentgoal);
	uint64_t heap_free = le64(g + l->gcc_heapfree);
	uint64_t heap_alloc = total_alloc - le64(g + l->gcc_totalfree);
	uint64_t mapped = le64(g + l->gcc_mappedready);
	uint64_t limit = le64(g + l->gcc_memorylimit);
	uint64_t marked = le64(g + l->gcc_heapmarked);
	uint64_t nonheap, overage = 0, lgoal, headroom, sweep, triggered;

	/* memoryLimitHeapGoal (the runtime retries while heapFree +
	 * heapAlloc > mappedReady, which a stopped world never shows) */
	nonheap = mapped - heap_free - heap_alloc;
	if (mapped > limit)
		overage = mapped - limit;
	if (nonheap + overage >= limit) {
		lgoal = marked;
	} else {
		lgoal = limit - (nonheap + overage);
		headroom = l->memlimit_headroom_pct == 0 ? MIB :
			   lgoal / 100 * l->memlimit_headroom_pct;
		if (headroom < MIB)
			headroom = MIB;
		if (lgoal < headroom || lgoal - headroom < headroom)
			lgoal = headroom;
		else
			lgoal -= headroom;
		if (lgoal < marked)
			lgoal = marked;
	}
	if (lgoal < goal)
		return lgoal;
	sweep = le64(g + l->gcc_sweepdisttrigger);
	if (sweep > goal)
		goal = sweep;
	triggered = le64(g + l->gcc_triggered);
	if (triggered != ~(uint64_t)0 && goal < triggered + (64u << 10))
		goal = triggered + (64u << 10);
	return goal;
}

/*
 * runtime/metrics' arithmetic (metrics.go, 1.19-1.27 alike) on the same
 * words, without the flush, and client_golang 1.14's memStatsFromRM on
 * top: Mallocs/Frees = allocs/frees:objects + tiny/allocs:objects, Sys =
 * total:bytes, HeapAlloc = Alloc = heap/objects:bytes, HeapInuse =
 * objects + unused = inHeap, HeapIdle = released + free, GCSys =
 * metadata/other, NextGC = heap/goal (heapGoal with totalAlloc as the
 * runtime holds it, unflushed).
 */
static void compute_rm(const gh_rtlayout *l, const msraw *r, gh_memstats *o)
{
	const unsigned char *mst = r->mst, *g = r->gcc;
	uint64_t committed = 0, released = 0, in_heap = 0, in_stacks = 0,
		 in_wb = 0, in_psb = 0, tiny = 0, allocs = 0, frees = 0,
		 allocated = 0, freed = 0, free_bytes;
	unsigned i, k;

	for (k = 0; k < 3; k++) {
		const unsigned char *d = mst + (size_t)k * l->hsd_size;

		committed += le64(d + l->hsd_committed);
		released += le64(d + l->hsd_released);
		in_heap += le64(d + l->hsd_inheap);
		in_stacks += le64(d + l->hsd_instacks);
		in_wb += le64(d + l->hsd_inworkbufs);
		if (l->hsd_inptrscalar != 0)
			in_psb += le64(d + l->hsd_inptrscalar);
		tiny += le64(d + l->hsd_tiny);
		allocated += le64(d + l->hsd_largealloc);
		allocs += le64(d + l->hsd_largealloccount);
		freed += le64(d + l->hsd_largefree);
		frees += le64(d + l->hsd_largefreecount);
		for (i = 0; i < GH_MS_NCLASSES; i++) {
			uint64_t size = i == 0 || i > l->nsize_classes ? 0 :
					l->size_classes[i - 1];
			uint64_t a = le64(d + l->hsd_smallalloc + 8 * i);
			uint64_t f = le64(d + l->hsd_smallfree + 8 * i);

			allocated += a * size;
			allocs += a;
			freed += f * size;
			frees += f;
		}
	}
	free_bytes = committed - in_heap - in_stacks - in_wb - in_psb;
	o->rm.mallocs = allocs + tiny;
	o->rm.frees = frees + tiny;
	o->rm.total_alloc = allocated;
	o->rm.sys = committed + released + le64(mst + l->mst_stacks_sys) +
		    le64(mst + l->mst_mspan_sys) +
		    le64(mst + l->mst_mcache_sys) +
		    le64(mst + l->mst_buckhash_sys) +
		    le64(mst + l->mst_gcmisc_sys) + le64(mst + l->mst_other_sys);
	o->rm.heap_alloc = o->rm.alloc = allocated - freed;
	o->rm.heap_inuse = o->rm.heap_alloc + (in_heap - o->rm.heap_alloc);
	o->rm.heap_released = released;
	o->rm.heap_idle = released + free_bytes;
	o->rm.heap_sys = o->rm.heap_inuse + o->rm.heap_idle;
	o->rm.heap_objects = allocs - frees;
	o->rm.stack_inuse = in_stacks;
	o->rm.stack_sys = in_stacks + le64(mst + l->mst_stacks_sys);
	o->rm.mspan_inuse = r->span_inuse;
	o->rm.mspan_sys = r->span_inuse + (le64(mst + l->mst_mspan_sys) -
					   r->span_inuse);
	o->rm.mcache_inuse = r->cache_inuse;
	o->rm.mcache_sys = r->cache_inuse + (le64(mst + l->mst_mcache_sys) -
					     r->cache_inuse);
	o->rm.buckhash_sys = le64(mst + l->mst_buckhash_sys);
	o->rm.gc_sys = in_wb + in_psb + le64(mst + l->mst_gcmisc_sys);
	o->rm.other_sys = le64(mst + l->mst_other_sys);
	o->rm.next_gc = heap_goal(l, g, le64(g + l->gcc_totalalloc));
}

/* readmemstats_m's arithmetic on what was read. */
static void compute(const gh_rtlayout *l, const msraw *r, gh_memstats *o)
{
	const unsigned char *mst = r->mst, *g = r->gcc;
	uint64_t total_alloc, n_malloc, total_free, n_free, tiny;
	uint64_t in_stacks = 0, in_wb = 0, in_psb = 0;
	uint64_t heap_inuse, heap_free, heap_released, mapped;
	unsigned i, k;

	total_alloc = n_malloc = total_free = n_free = tiny = 0;
	for (k = 0; k < 3; k++) {
		const unsigned char *d = mst + (size_t)k * l->hsd_size;

		in_stacks += le64(d + l->hsd_instacks);
		in_wb += le64(d + l->hsd_inworkbufs);
		if (l->hsd_inptrscalar != 0)
			in_psb += le64(d + l->hsd_inptrscalar);
		tiny += le64(d + l->hsd_tiny);
		total_alloc += le64(d + l->hsd_largealloc);
		n_malloc += le64(d + l->hsd_largealloccount);
		total_free += le64(d + l->hsd_largefree);
		n_free += le64(d + l->hsd_largefreecount);
		for (i = 0; i < GH_MS_NCLASSES; i++) {
			uint64_t size = i == 0 || i > l->nsize_classes ? 0 :
					l->size_classes[i - 1];
			uint64_t a = le64(d + l->hsd_smallalloc + 8 * i);
			uint64_t f = le64(d + l->hsd_smallfree + 8 * i);

			total_alloc += a * size;
			n_malloc += a;
			total_free += f * size;
			n_free += f;
		}
	}
	/* the flush's contributions (releaseAll) */
	for (i = 0; i < GH_MS_NCLASSES; i++) {
		uint64_t size = i == 0 || i > l->nsize_classes ? 0 :
				l->size_classes[i - 1];

		total_alloc += r->flush_small[i] * size;
		n_malloc += r->flush_small[i];
	}
	/* BySize: copy(stats.BySize[:], bySize[:]), the first 61 classes */
	for (i = 0; i < GH_MS_NBYSIZE; i++) {
		o->by_size[i].size = i == 0 || i > l->nsize_classes ? 0 :
				     (uint32_t)l->size_classes[i - 1];
		o->by_size[i].mallocs = r->flush_small[i];
		o->by_size[i].frees = 0;
		for (k = 0; k < 3; k++) {
			const unsigned char *d = mst + (size_t)k * l->hsd_size;

			o->by_size[i].mallocs +=
				le64(d + l->hsd_smallalloc + 8 * i);
			o->by_size[i].frees +=
				le64(d + l->hsd_smallfree + 8 * i);
		}
	}
	tiny += r->flush_tiny;
	n_free += tiny;
	n_malloc += tiny;

	heap_inuse = le64(g + l->gcc_heapinuse);
	heap_free = le64(g + l->gcc_heapfree);
	heap_released = le64(g + l->gcc_heapreleased);
	mapped = heap_inuse + heap_free + heap_released +
		 le64(mst + l->mst_stacks_sys) + le64(mst + l->mst_mspan_sys) +
		 le64(mst + l->mst_mcache_sys) +
		 le64(mst + l->mst_buckhash_sys) +
		 le64(mst + l->mst_gcmisc_sys) + le64(mst + l->mst_other_sys) +
		 in_stacks + in_wb + in_psb;

	o->alloc = total_alloc - total_free;
	o->total_alloc = total_alloc;
	o->sys = mapped;
	o->lookups = 0;
	o->mallocs = n_malloc;
	o->frees = n_free;
	o->heap_alloc = total_alloc - total_free;
	o->heap_sys = heap_inuse + heap_free + heap_released;
	o->heap_idle = heap_free + heap_released;
	o->heap_inuse = heap_inuse;
	o->heap_released = heap_released;
	o->heap_objects = n_malloc - n_free;
	o->stack_inuse = in_stacks;
	o->stack_sys = in_stacks + le64(mst + l->mst_stacks_sys);
	o->mspan_inuse = r->span_inuse;
	o->mspan_sys = le64(mst + l->mst_mspan_sys);
	o->mcache_inuse = r->cache_inuse;
	o->mcache_sys = le64(mst + l->mst_mcache_sys);
	o->buckhash_sys = le64(mst + l->mst_buckhash_sys);
	/* persistentalloc(..., &gcMiscSys) of the flush's pushes */
	o->gc_sys = le64(mst + l->mst_gcmisc_sys) + r->moved + in_wb + in_psb;
	o->other_sys = le64(mst + l->mst_other_sys) - r->moved;
	o->next_gc = heap_goal(l, g, le64(g + l->gcc_totalalloc) +
			       r->flush_bytes);
	o->last_gc = le64(mst + l->mst_last_gc_unix);
	o->pause_total_ns = le64(mst + l->mst_pause_total_ns);
	for (i = 0; i < GH_MS_NPAUSE; i++) {
		o->pause_ns[i] = le64(mst + l->mst_pause_ns + 8 * i);
		o->pause_end[i] = le64(mst + l->mst_pause_end + 8 * i);
	}
	o->num_gc = le32(mst + l->mst_numgc);
	o->num_forced_gc = le32(mst + l->mst_numforcedgc);
	{
		uint64_t bits = le64(mst + l->mst_gc_cpu_fraction);

		memcpy(&o->gc_cpu_fraction, &bits, sizeof(bits));
	}
	o->debug_gc = 0;
	o->nprocs = r->nprocs;
	o->cached_spans = r->cached_spans;
	compute_rm(l, r, o);
	o->goroutines = o->threads = -1;
	if (r->have_counts) {
		/* gcount: at least 1 (the caller runs) */
		int64_t n = (int64_t)(int32_t)((uint32_t)r->allglen -
			     (uint32_t)r->sched_gfree - (uint32_t)r->ngsys -
			     (uint32_t)r->p_gfree);

		o->goroutines = n < 1 ? 1 : n;
		o->threads = r->nthreads;
	}
}

/* VmHWM of /proc/PID/status, in bytes (getrusage's ru_maxrss x 1024). */
static int read_vmhwm(int pid, uint64_t *out)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long kb;

		if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) {
			*out = (uint64_t)kb * 1024;
			found = 1;
			break;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* Stop the target, read everything again, resume it on every path. */
static int read_stopped(gh_target *tg, gh_profile *p,
			const gh_rtlayout *l, const msaddrs *a, msraw *r)
{
	double t0;
	int rc;

	rc = gh_target_stop(tg, "-p memstats", "read", &t0);
	if (rc != 0)
		return rc;
	gh_mem_invalidate(&tg->mem);
	rc = read_all(tg, l, a, r);
	rc = gh_target_resume(tg, p, t0, gh_now(), rc);
	gh_mem_invalidate(&tg->mem);
	return rc;
}

int gh_memstats_collect(gh_profile *p, gh_target *tg)
{
	const gh_rtlayout *l = tg->lay;
	gh_memstats *o;
	msaddrs a;
	msraw r;
	int rc, snap;

	if (!l->mstats_verified || tg->mem.ptr_size != 8)
		return gh_errf(&tg->err, GOHEAP_EUNSUPPORTED, "-p memstats: "
			       "unsupported runtime layout for go1.%d on a "
			       "%u-bit target (64-bit go1.19 and go1.21 to "
			       "go1.27 are known)", tg->ver.minor,
			       tg->mem.ptr_size * 8);
	memset(&a, 0, sizeof(a));
	rc = global(tg, "runtime.memstats", tg->addrs.memstats, &a.memstats);
	if (rc == 0)
		rc = global(tg, "runtime.gcController", tg->addrs.gccontroller,
			    &a.gccontroller);
	if (rc == 0)
		rc = global(tg, "runtime.mheap_", tg->addrs.mheap, &a.mheap);
	if (rc == 0)
		rc = global(tg, "runtime.allp", tg->addrs.allp, &a.allp);
	if (rc != 0)
		return rc;
	gh_rt_mheap_a64(l, gh_exe_machine(tg->exe) == EM_AARCH64,
			&a.central, &a.stride, &a.spanalloc, &a.cachealloc);
	/* go_goroutines and go_threads (0: unknown) */
	a.pool = tg->addrs.spansetblockpool;
	a.allglen = tg->addrs.allglen;
	a.sched = tg->addrs.sched;
	a.allm = tg->addrs.allm;
	memset(&r, 0, sizeof(r));
	r.mst_len = l->mst_gc_cpu_fraction + 8;
	r.gcc_len = l->gcc_mappedready + 8;
	if (r.gcc_len > sizeof(r.gcc) || r.mst_len > 16384 ||
	    (size_t)3 * l->hsd_size > r.mst_len)
		return gh_errf(&tg->err, GOHEAP_EVERSION, "unsupported runtime "
			       "layout: runtime.mstats of %zu bytes", r.mst_len);
	r.mst = gh_calloc(1, r.mst_len);
	o = gh_calloc(1, sizeof(*o));
	if (r.mst == NULL || o == NULL) {
		free(r.mst);
		free(o);
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	}
	/* a live target: read running (which also pages in the block cache's
	 * view of the Ps), then stopped; --no-stop: the running read */
	snap = gh_target_snapshot(tg);
	p->stop.state = snap;
	r.tolerant = snap == 2;
	rc = read_all(tg, l, &a, &r);
	/* the running read only warms the cache when a stop follows: a
	 * word caught mid-update there (a span being cached) is no reason
	 * to give up before the consistent read */
	if (snap == 1 && rc != GOHEAP_ENOMEM)
		rc = read_stopped(tg, p, l, &a, &r);
	if (rc == 0) {
		compute(l, &r, o);
		o->snapshot = snap;
		snprintf(o->go_version, sizeof(o->go_version), "%s",
			 tg->verstr);
		o->t_stop = snap == 1 ? p->stop.end - p->stop.begin : 0;
		p->stop.rewalked = p->stop.checked = r.nprocs;
		if (tg->pid > 0 && read_vmhwm(tg->pid, &o->maxrss) == 0)
			o->have_maxrss = 1;
		gh_profile_set_part(p, GH_PART_MEMSTATS, o, free);
		o = NULL;
	}
	free(r.mst);
	free(o);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

GOHEAP_EXTERN int goheap_profile_gometrics(const goheap_profile *p,
					   goheap_gometrics *out)
{
	const gh_memstats *m;
	uint64_t sorted[GH_MS_NPAUSE];
	uint32_t n, i;

	memset(out, 0, sizeof(*out));
	m = gh_memstats_of(p);
	if (p == NULL || p->kind != GOHEAP_PROFILE_MEMSTATS || m == NULL)
		return GOHEAP_EINVAL;
	out->alloc = m->rm.alloc;
	out->total_alloc = m->rm.total_alloc;
	out->sys = m->rm.sys;
	out->lookups = 0;
	out->mallocs = m->rm.mallocs;
	out->frees = m->rm.frees;
	out->heap_alloc = m->rm.heap_alloc;
	out->heap_sys = m->rm.heap_sys;
	out->heap_idle = m->rm.heap_idle;
	out->heap_inuse = m->rm.heap_inuse;
	out->heap_released = m->rm.heap_released;
	out->heap_objects = m->rm.heap_objects;
	out->stack_inuse = m->rm.stack_inuse;
	out->stack_sys = m->rm.stack_sys;
	out->mspan_inuse = m->rm.mspan_inuse;
	out->mspan_sys = m->rm.mspan_sys;
	out->mcache_inuse = m->rm.mcache_inuse;
	out->mcache_sys = m->rm.mcache_sys;
	out->buckhash_sys = m->rm.buckhash_sys;
	out->gc_sys = m->rm.gc_sys;
	out->other_sys = m->rm.other_sys;
	out->next_gc = m->rm.next_gc;
	out->last_gc_unix_ns = m->last_gc;
	out->num_gc = m->num_gc;
	out->pause_total_ns = m->pause_total_ns;
	/* readGCStats_m: the last min(numgc, 256) pauses; ReadGCStats sorts
	 * them and takes sorted[len*i/4] for i < 4, then the largest */
	n = m->num_gc < GH_MS_NPAUSE ? m->num_gc : GH_MS_NPAUSE;
	for (i = 0; i < n; i++)
		sorted[i] = m->pause_ns[(m->num_gc - 1 - i) % GH_MS_NPAUSE];
	if (n > 0) {
		qsort(sorted, n, sizeof(sorted[0]), cmp_u64);
		for (i = 0; i < 4; i++)
			out->pause_quantiles[i] = sorted[(uint64_t)n * i / 4];
		out->pause_quantiles[4] = sorted[n - 1];
	}
	out->goroutines = m->goroutines;
	out->threads = m->threads;
	snprintf(out->go_version, sizeof(out->go_version), "%s",
		 m->go_version);
	out->snapshot = m->snapshot;
	return 0;
}

int gh_memlimit_read(gh_target *tg, goheap_memlimit *out)
{
	const gh_rtlayout *l = tg->lay;
	unsigned char g[512];
	uint64_t addr, freed;
	size_t len;
	int rc;

	if (!l->mstats_verified || tg->mem.ptr_size != 8)
		return gh_errf(&tg->err, GOHEAP_EUNSUPPORTED, "GOMEMLIMIT: "
			       "unsupported runtime layout for go1.%d on a "
			       "%u-bit target (64-bit go1.19 and go1.21 to "
			       "go1.27 are known)", tg->ver.minor,
			       tg->mem.ptr_size * 8);
	rc = global(tg, "runtime.gcController", tg->addrs.gccontroller, &addr);
	if (rc != 0)
		return rc;
	len = l->gcc_mappedready + 8;
	if (len > sizeof(g))
		return gh_errf(&tg->err, GOHEAP_EVERSION, "unsupported runtime "
			       "layout: runtime.gcControllerState of %zu "
			       "bytes", len);
	gh_mem_invalidate(&tg->mem);
	rc = gh_mem_read(&tg->mem, addr, g, len, "runtime.gcController");
	gh_mem_invalidate(&tg->mem);
	if (rc != 0)
		return gh_errf(&tg->err, rc, "GOMEMLIMIT: reading %s",
			       tg->err.msg[0] ? tg->err.msg :
			       "runtime.gcController");
	out->limit = (int64_t)le64(g + l->gcc_memorylimit);
	out->mapped_ready = le64(g + l->gcc_mappedready);
	out->heap_marked = le64(g + l->gcc_heapmarked);
	out->heap_free = le64(g + l->gcc_heapfree);
	freed = le64(g + l->gcc_totalfree);
	out->heap_alloc = le64(g + l->gcc_totalalloc);
	out->heap_alloc = out->heap_alloc > freed ? out->heap_alloc - freed : 0;
	/* the words are read at slightly different times: never below 0 */
	out->nonheap = out->mapped_ready > out->heap_free + out->heap_alloc ?
		       out->mapped_ready - out->heap_free - out->heap_alloc : 0;
	return 0;
}

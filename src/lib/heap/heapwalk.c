/*
 * heapwalk.c - the Go heap by type: every allocated object of
 * mheap_.allspans, typed from the runtime's own metadata.
 *
 * Go 1.19-1.27 src/runtime/mheap.go (mspan, allspans), mbitmap.go (isFree,
 * the malloc header, largeType, heapBitsSlice), malloc.go (mallocgc),
 * heapdump.go (dumpobjs: the oracle of tests/run-types.sh) and
 * internal/abi/type.go (Type.Str, TFlagExtraStar, Name's encoding).  The
 * offsets are the release's row (rtlayout.c, checked against DWARF).
 *
 * Nothing here trusts the target: every count is bounded, a span that no
 * runtime could produce is left out and counted (bad_spans), a type
 * pointer outside the module's types section is never dereferenced as a
 * name.  Reads go through the target's block cache, a span at a time.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "heapwalk.h"

#define GH_PAGE 8192u
/* mSpanInUse (mheap.go: mSpanDead, mSpanInUse, mSpanManual) */
#define GH_SPAN_INUSE 1
/* gc.MinSizeForMallocHeader (1.22+): pointerful objects above it carry a
 * header, at or below it the span's heap bits hold their pointers */
#define GH_MIN_HEADER 512u
/* The most objects a small span holds (class 1: 8192 / 8). */
#define GH_MAX_NELEMS 1024u

/*
 * The snapshot of a live target: what the running read saw of each span
 * (the fields whose change means its objects changed: mallocgc advances
 * freeindex, allocCount and freeIndexForScan and sets largeType, a sweep
 * swaps allocBits and moves sweepgen) and what it counted there, as runs
 * of one row; while the target is stopped a span that changed has its
 * runs taken back and is walked again.
 *
 * The span's fields, as the row places them: */
typedef struct span {
	uint64_t addr, base, npages, nelems, freeindex, scanidx, allocbits,
		 markbits, elemsize, largetype, specials;
	uint64_t rh;         /* raw_hash of the mspan's bytes */
	uint32_t sweepgen;
	uint16_t alloccount;
	uint8_t spanclass, sizeclass, noscan, state;
} span;

/* A span as the running read saw it (a hash of its fields, 32 bytes a
 * span: 1 M spans, a 10 GiB heap, in 32 MB), and its counts (runs). */
typedef struct srec {
	uint64_t hash;          /* raw_hash */
	uint64_t elemsize;
	uint32_t sweepgen, runs;
	uint16_t nruns, claimed, unreach;   /* unreach: of the counted */
	unsigned inuse : 1, bad : 2,        /* bad: 1 implausible, 2 no span */
		 unswept : 1, mwant : 1,    /* mwant: unswept, marks valid */
		 marks : 1,                 /* marks: read (unreach known) */
		 stable : 1;                /* full and swept: see walk_all */
} srec;

_Static_assert(sizeof(srec) <= 32, "a span's record stays 32 bytes");

typedef struct srun {
	uint32_t entry, n;
} srun;

typedef struct hw {
	gh_target *tg;
	gh_profile *p;
	gh_types *t;
	gh_mem *m;
	const gh_rtlayout *l;
	uint32_t mh_sweepgen;
	/* the last GC's mark bits are valid (gcphase == _GCoff; unknown,
	 * stripped: an unswept span proves it, see marks_valid) */
	int marks_ok;
	int greentea;             /* Green Tea's inline mark bits: heap_bits */
	const gh_heap_sink *sink; /* gh_heap_objects' caller, or NULL */
	int freegc;               /* GOEXPERIMENT=runtimefreegc (1.26+) */
	uint32_t run_sweepgen;    /* mheap_.sweepgen when the running read began */
	int skip;                 /* the stop may skip stable spans */
	/* the mspan's bytes the change test hashes (raw_hash): every field
	 * span_decode reads, as 8-byte words of at most 3 ranges */
	unsigned hr_off[3], hr_len[3], nhr;
	/* the snapshot (NULL rec: not recording) */
	srec *recs, *cur;
	size_t nrecs;
	span *batch;              /* the running read's headers, a chunk */
	srun *runs;
	size_t nruns, capruns;
	/* the stop's second reader (live targets): its own cache over the
	 * same source, warmed before the stop */
	gh_mem m2;
	gh_err err2;
	int have_m2;
	pthread_t th;             /* running while th_started */
	int th_started;
	unsigned char *same;      /* compare_upper's answers */
	uint64_t c_arr, c_from, c_to;   /* its allspans[c_from, c_to) */
	uint64_t nstable;         /* stable spans of the running read */
	int before_stop;          /* the running read a stop will check */
	/* its judgement deferred: the counts when a read without a stop
	 * would have found the list damaged (too_bad), tripped 1 */
	int tripped;
	uint64_t trip_bad, trip_inuse;
	uint16_t *cstable;        /* the same, per chunk of 512 */
} hw;

/* From this many spans the stop compares the upper half of allspans on
 * a second thread (creating it costs ~50 us). */
#define GH_TYPES_TWO_READERS 8192u

/* ---- the walk ---------------------------------------------------------- */

/* Too many implausible spans (bad of inuse): the list is damaged (or
 * changed under a read that no stop will check again). */
static int is_too_bad(uint64_t bad, uint64_t inuse)
{
	return bad > GH_TYPES_MAX_BAD && bad > inuse / 2;
}

static int damaged(hw *w, uint64_t bad, uint64_t inuse)
{
	return gh_errf(&w->tg->err, GOHEAP_ECORRUPT, "the heap's span list is "
		       "damaged or changing too fast: %llu of %llu spans in "
		       "use are implausible (the first, %s)",
		       (unsigned long long)bad, (unsigned long long)inuse,
		       w->t->first_bad);
}

static int too_bad(hw *w)
{
	gh_types *t = w->t;

	if (is_too_bad(t->bad_spans, t->spans_inuse))
		return damaged(w, t->bad_spans, t->spans_inuse);
	return 0;
}

static int bad_span(hw *w, uint64_t addr, const char *why)
{
	gh_types *t = w->t;

	if (t->bad_spans++ == 0)
		snprintf(t->first_bad, sizeof(t->first_bad), "span 0x%llx: %s",
			 (unsigned long long)addr, why);
	/* the running read before a stop counts on: the stop walks every
	 * span it found bad again (the runtime may have moved allspans
	 * under it: zeros where the old array was), and judges after; where
	 * a read without a stop would have stopped is kept, for a running
	 * read that ends in an error (no stop: gh_types_collect) */
	if (!w->before_stop)
		return too_bad(w);
	if (!w->tripped && is_too_bad(t->bad_spans, t->spans_inuse)) {
		w->tripped = 1;
		w->trip_bad = t->bad_spans;
		w->trip_inuse = t->spans_inuse;
	}
	return 0;
}

static const char *bad_ptr_why(uint64_t sp)
{
	return sp == 0 || sp % 8 != 0 ? "not a span pointer" : "unreadable";
}

/* unswept: 0 swept, 1 unswept, 2 unswept and marked by the last GC, 3
 * unswept and found unreachable by it */
static int count(hw *w, gh_tentry *e, uint64_t addr, uint64_t size,
		 int unswept)
{
	gh_types *t = w->t;

	if (e == NULL)
		return gh_errf(&w->tg->err, GOHEAP_ENOMEM, "out of memory");
	e->objects++;
	e->bytes += size;
	t->objects++;
	t->bytes += size;
	if (e->type != 0) {
		t->typed_objects++;
		t->typed_bytes += size;
		if (!e->named)
			t->unnamed++;
	}
	if (unswept) {
		t->unswept_objects++;
		t->unswept_bytes += size;
	}
	if (unswept == 3) {
		t->unreach_objects++;
		t->unreach_bytes += size;
		if (w->cur != NULL)
			w->cur->unreach++;
	}
	if (w->cur != NULL) {
		srec *r = w->cur;
		size_t k = e - t->e;

		if (r->nruns > 0 && w->runs[w->nruns - 1].entry == k) {
			w->runs[w->nruns - 1].n++;
		} else {
			if (gh_grow(&w->runs, &w->capruns, w->nruns + 1,
				    sizeof(*w->runs)) != 0)
				return gh_errf(&w->tg->err, GOHEAP_ENOMEM,
					       "out of memory");
			w->runs[w->nruns].entry = (uint32_t)k;
			w->runs[w->nruns].n = 1;
			w->nruns++;
			r->nruns++;
		}
	}
	if (w->sink != NULL) {
		int rc = w->sink->obj(w->sink->arg, addr, size,
				      (uint32_t)(e - t->e));

		if (rc != 0)
			return rc;
	}
	if (t->want_objects)
		gh_buf_printf(&t->objlines, "0x%llx %llu 0x%llx %c %c %s\n",
			      (unsigned long long)addr,
			      (unsigned long long)size,
			      (unsigned long long)e->type,
			      e->type == 0 ? '-' :
			      e->kind == GH_TK_HEADER ? 'h' : 'l',
			      unswept == 3 ? 'u' : unswept == 2 ? 'r' : '-',
			      e->name);
	return 0;
}

static void span_decode(const hw *w, const unsigned char *b, span *sp)
{
	const gh_rtlayout *l = w->l;
	int big = w->m->big_endian;

	sp->base = gh_load(b + l->ms_startaddr, 8, big);
	sp->npages = gh_load(b + l->ms_npages, 8, big);
	sp->freeindex = gh_load(b + l->ms_freeindex, l->ms_idx_size, big);
	sp->nelems = gh_load(b + l->ms_nelems, l->ms_idx_size, big);
	sp->scanidx = gh_load(b + l->ms_freeidxscan, l->ms_idx_size, big);
	sp->allocbits = gh_load(b + l->ms_allocbits, 8, big);
	sp->markbits = gh_load(b + l->ms_gcmarkbits, 8, big);
	sp->elemsize = gh_load(b + l->ms_elemsize, 8, big);
	sp->sweepgen = (uint32_t)gh_load(b + l->ms_sweepgen, 4, big);
	sp->alloccount = (uint16_t)gh_load(b + l->ms_alloccount, 2, big);
	sp->spanclass = b[l->ms_spanclass];
	sp->sizeclass = b[l->ms_spanclass] >> 1;
	sp->noscan = b[l->ms_spanclass] & 1;
	sp->state = b[l->ms_state];
	sp->largetype = l->ms_largetype != 0 ?
			gh_load(b + l->ms_largetype, 8, big) : 0;
	/* -p retained's specials (read stopped: not in the change test) */
	sp->specials = l->ms_specials != 0 ?
		       gh_load(b + l->ms_specials, 8, big) : 0;
}

/* NULL when the span is one the runtime can make, else why not. */
static const char *span_check(const hw *w, const span *sp)
{
	const gh_rtlayout *l = w->l;

	if (sp->base == 0 || sp->base % GH_PAGE != 0)
		return "startAddr not page-aligned";
	if (sp->npages == 0 || sp->npages > (1u << 24))
		return "npages out of range";
	if (sp->sizeclass > l->nsize_classes)
		return "size class out of range";
	if (sp->sizeclass == 0) {
		if (sp->elemsize != sp->npages * GH_PAGE)
			return "large span's elemsize is not its size";
		if (sp->nelems != 1 || sp->freeindex > 1)
			return "large span with nelems/freeindex other than 1";
		return NULL;
	}
	if (sp->elemsize != l->size_classes[sp->sizeclass - 1])
		return "elemsize is not its size class's";
	if (sp->nelems == 0 || sp->nelems > GH_MAX_NELEMS ||
	    sp->nelems > sp->npages * GH_PAGE / sp->elemsize)
		return "nelems out of range";
	if (sp->freeindex > sp->nelems || sp->scanidx > sp->freeindex)
		return "freeindex out of range";
	if (sp->allocbits == 0)
		return "no allocBits";
	return NULL;
}

/*
 * The slot's pointer words from the span's heap bits (1.22+, pointerful
 * classes up to 512 B): the bitmap ends the span (heapBitsSlice), before
 * Green Tea's inline mark bits for 16 B and up.
 */
static int heap_bits(hw *w, const span *sp, unsigned char *bits,
		     size_t *nbits)
{
	uint64_t size = sp->npages * GH_PAGE, bsize = size / 8 / 8,
		 at = sp->base + size - bsize;

	if (w->greentea && sp->elemsize >= 16)
		at -= w->l->imb_size;
	if (bsize > 1024)
		return -1;
	if (gh_mem_read(w->m, at, bits, (size_t)bsize, "heap bits") != 0)
		return -1;
	*nbits = (size_t)bsize * 8;
	return 0;
}

static uint64_t slot_mask(const unsigned char *bits, size_t nbits,
			  uint64_t first, unsigned words)
{
	uint64_t m = 0;
	unsigned i;

	for (i = 0; i < words && i < 64; i++) {
		uint64_t b = first + i;

		if (b < nbits && (bits[b / 8] >> (b % 8)) & 1)
			m |= (uint64_t)1 << i;
	}
	return m;
}

/*
 * The change test of the stop, on the mspan's raw bytes: a hash of the
 * words holding every field span_decode reads (and a few the runtime
 * changes alongside them: allocCache, needzero, specials...), so that an
 * unchanged span costs a few loads, no decoding.  A field outside them
 * that changes only makes the stop walk the span again.
 */
static uint64_t raw_hash(const hw *w, const unsigned char *b, uint64_t addr)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ addr, v;
	unsigned k, o;

	for (k = 0; k < w->nhr; k++)
		for (o = w->hr_off[k]; o < w->hr_off[k] + w->hr_len[k]; o += 8) {
			memcpy(&v, b + o, 8);
			h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
			h ^= h >> 29;
		}
	return h;
}

/* hw's raw_hash ranges from the row: [startAddr, elemsize + 8) and each
 * field beyond it (freeIndexForScan <= 1.21, largeType 1.22+), 8-byte
 * aligned, inside ms_size. */
static void raw_ranges(hw *w)
{
	const gh_rtlayout *l = w->l;
	unsigned lo = l->ms_startaddr & ~7u, hi = (l->ms_elemsize + 8 + 7) & ~7u;
	unsigned far[2] = { l->ms_freeidxscan, l->ms_largetype }, k;

	w->hr_off[0] = lo;
	w->hr_len[0] = hi - lo;
	w->nhr = 1;
	for (k = 0; k < 2; k++)
		if (far[k] != 0 && (far[k] < lo || far[k] >= hi)) {
			w->hr_off[w->nhr] = far[k] & ~7u;
			w->hr_len[w->nhr] = 8;
			w->nhr++;
		}
	for (k = 0; k < w->nhr; k++)
		if (w->hr_off[k] + w->hr_len[k] > l->ms_size)
			w->hr_len[k] = w->hr_off[k] < l->ms_size ?
				       (l->ms_size - w->hr_off[k]) & ~7u : 0;
}

/* Take back what the running read counted in span r. */
static void rec_undo(hw *w, const srec *r)
{
	gh_types *t = w->t;
	uint32_t i;

	if (!r->inuse)
		return;
	t->spans_inuse--;
	if (r->bad == 1) {
		t->bad_spans--;
		return;
	}
	if (r->unswept)
		t->unswept_spans--;
	if (r->marks) {
		t->marked_spans--;
		t->unreach_objects -= r->unreach;
		t->unreach_bytes -= (uint64_t)r->unreach * r->elemsize;
	} else if (r->unswept) {
		t->unmarked_spans--;
	}
	t->claimed -= r->claimed;
	for (i = 0; i < r->nruns; i++) {
		const srun *u = &w->runs[r->runs + i];
		gh_tentry *e = &t->e[u->entry];
		uint64_t bytes = (uint64_t)u->n * r->elemsize;

		e->objects -= u->n;
		e->bytes -= bytes;
		t->objects -= u->n;
		t->bytes -= bytes;
		if (e->type != 0) {
			t->typed_objects -= u->n;
			t->typed_bytes -= bytes;
			if (!e->named)
				t->unnamed -= u->n;
		}
		if (e->kind == GH_TK_FOREIGN)
			t->foreign -= u->n;
		if (r->unswept) {
			t->unswept_objects -= u->n;
			t->unswept_bytes -= bytes;
		}
	}
}

/*
 * The last GC's mark bits of an unswept span (mgcsweep.go sweep: what it
 * has not marked, the sweep frees): gcmarkBits, or'ed for a span with
 * Green Tea's inline mark bits (16 to 512 B objects) with their marks at
 * the end of its page (moveInlineMarks).  -1 when unreadable.
 */
static int mark_bits(hw *w, const span *sp, unsigned char *mbits)
{
	const gh_rtlayout *l = w->l;
	size_t n = (size_t)(sp->nelems + 7) / 8, i;
	unsigned char imb[GH_MAX_NELEMS / 8];

	if (sp->markbits == 0 ||
	    gh_mem_read(w->m, sp->markbits, mbits, n, "gcmarkBits") != 0)
		return -1;
	if (w->greentea && l->imb_size != 0 && sp->sizeclass != 0 &&
	    sp->elemsize >= 16 && sp->elemsize <= GH_MIN_HEADER) {
		/* marks [63]uint8: the last byte of the block is the class */
		if (n > l->imb_size - l->imb_marks - 1 ||
		    gh_mem_read(w->m, sp->base + GH_PAGE - l->imb_size +
				l->imb_marks, imb, n, "inline mark bits") != 0)
			return -1;
		for (i = 0; i < n; i++)
			mbits[i] |= imb[i];
	}
	return 0;
}

static int walk_span(hw *w, const span *spp)
{
	const gh_rtlayout *l = w->l;
	gh_types *t = w->t;
	unsigned char abits[GH_MAX_NELEMS / 8], hbits[1024],
		      mbits[GH_MAX_NELEMS / 8];
	size_t nhbits = 0;
	int have_hbits = -1, unswept, marks = 0, swept, prov = 0;
	const char *why;
	uint64_t i, hdr, addr = spp->addr;
	span sp = *spp;
	int rc;

	if (sp.state != GH_SPAN_INUSE)
		return 0;
	t->spans_inuse++;
	why = span_check(w, &sp);
	/* the allocation bits (a large span's once the sweep set them:
	 * freeindex 0), before anything of the span is counted */
	if (why == NULL && (sp.sizeclass != 0 || sp.freeindex == 0) &&
	    gh_mem_read(w->m, sp.allocbits, abits,
			(size_t)(sp.nelems + 7) / 8, "allocBits") != 0)
		why = "allocBits unreadable";
	if (why != NULL) {
		if (w->cur != NULL)
			w->cur->bad = 1;
		return bad_span(w, addr, why);
	}
	/* not swept since the last GC: sweepgen == h.sweepgen - 2, or + 1
	 * (cached before it was swept) */
	unswept = sp.sweepgen == w->mh_sweepgen - 2 ||
		  sp.sweepgen == w->mh_sweepgen + 1;
	swept = sp.sweepgen == w->mh_sweepgen ||
		sp.sweepgen == w->mh_sweepgen + 3;
	if (unswept) {
		t->unswept_spans++;
		/* what the last GC marked, what it did not */
		marks = w->marks_ok && mark_bits(w, &sp, mbits) == 0;
		if (marks)
			t->marked_spans++;
		else
			t->unmarked_spans++;
	}
	if (w->cur != NULL) {
		w->cur->unswept = unswept != 0;
		w->cur->mwant = unswept && w->marks_ok;
		w->cur->marks = marks != 0;
	}
	if (w->sink != NULL && w->sink->span != NULL && sp.specials != 0) {
		rc = w->sink->span(w->sink->arg, sp.specials, sp.base,
				   sp.elemsize, sp.noscan);
		if (rc != 0)
			return rc;
	}
	if (sp.sizeclass == 0) {
		if (marks)
			unswept = mbits[0] & 1 ? 2 : 3;
		/* a large object: allocated once mallocgc set freeindex, or
		 * marked by the last sweep */
		if (sp.freeindex == 0 && !(abits[0] & 1))
			return 0;
		/* allocated and swept: only a sweep can change it (a
		 * pointerful one once it has its largeType) */
		if (w->cur != NULL)
			w->cur->stable = swept && (sp.noscan ||
						   sp.largetype != 0 ||
						   l->ms_largetype == 0);
		if (sp.noscan)
			return count(w, gh_types_shape(w->t, GH_TK_LARGE_NOSCAN, 0, 0),
				     sp.base, sp.elemsize, unswept);
		if (sp.largetype != 0)
			return count(w, gh_types_typed(w->t, w->m, w->l, sp.largetype,
						   GH_TK_LARGETYPE, 0),
				     sp.base, sp.elemsize, unswept);
		return count(w, gh_types_shape(w->t, GH_TK_LARGE_PTRS, 0, 0),
			     sp.base, sp.elemsize, unswept);
	}
	for (i = 0; i < sp.nelems; i++) {
		uint64_t slot = sp.base + i * sp.elemsize;
		int bit = (abits[i / 8] >> (i % 8)) & 1;
		gh_tentry *e;

		if (i >= sp.freeindex && !bit)
			continue;
		if (marks)
			unswept = (mbits[i / 8] >> (i % 8)) & 1 ? 2 : 3;
		/* claimed by mallocgc, not yet published (isFree's
		 * freeIndexForScan): its header may not be written */
		if (i >= sp.scanidx && !bit) {
			t->claimed++;
			if (w->cur != NULL)
				w->cur->claimed++;
		}
		if (sp.noscan) {
			e = gh_types_shape(w->t, GH_TK_NOSCAN, (uint32_t)sp.elemsize,
					0);
		} else if (!l->heap_headers) {
			e = gh_types_shape(w->t, GH_TK_SCAN, (uint32_t)sp.elemsize, 0);
		} else if (sp.elemsize > GH_MIN_HEADER) {
			hdr = 0;
			if ((i < sp.scanidx || bit) &&
			    gh_mem_read_ptr(w->m, slot, &hdr, "malloc header")
			    != 0)
				hdr = 0;
			e = hdr != 0 ? gh_types_typed(w->t, w->m, w->l, hdr, GH_TK_HEADER,
						  (uint32_t)sp.elemsize) :
				       gh_types_shape(w->t, GH_TK_HDRLESS,
						   (uint32_t)sp.elemsize, 0);
		} else {
			uint64_t mask = 0;

			if (have_hbits < 0)
				have_hbits = heap_bits(w, &sp, hbits,
						       &nhbits) == 0;
			if (have_hbits)
				mask = slot_mask(hbits, nhbits,
						 i * sp.elemsize / 8,
						 (unsigned)(sp.elemsize / 8));
			e = gh_types_shape(w->t, GH_TK_PTRS, (uint32_t)sp.elemsize,
					mask);
		}
		prov |= e != NULL && e->kind == GH_TK_HDRLESS;
		rc = count(w, e, slot, sp.elemsize, unswept);
		if (rc != 0)
			return rc;
	}
	/* full (every slot allocated, none claimed, every header written)
	 * and swept: nothing but a sweep can change it */
	if (w->cur != NULL) {
		uint64_t n = 0;
		uint32_t k;

		for (k = 0; k < w->cur->nruns; k++)
			n += w->runs[w->cur->runs + k].n;
		w->cur->stable = swept && !prov && w->cur->claimed == 0 &&
				 n == sp.nelems;
	}
	return 0;
}

/*
 * An experiment as the binary was built: its build info's "GOEXPERIMENT="
 * setting (debug/buildinfo) names exp (1) or noexp (0), else def (the
 * release's default): greenteagc (1.25) or nogreenteagc (1.26+),
 * runtimefreegc (1.26+, off by default).
 */
static int find_experiment(const hw *w, const char *exp, int def)
{
	static const char key[] = "GOEXPERIMENT=";
	const gh_section *sec = gh_exe_section(w->tg->exe, ".go.buildinfo");
	const char *b, *end, *p, *q;
	size_t el = strlen(exp);
	int gt = def;

	if (!w->l->heap_headers || sec == NULL || sec->data == NULL ||
	    sec->size > (1u << 20))
		return gt;
	b = (const char *)sec->data;
	end = b + sec->size;
	for (p = b; p + sizeof(key) - 1 <= end; p++) {
		if (memcmp(p, key, sizeof(key) - 1) != 0)
			continue;
		for (p += sizeof(key) - 1; p < end && *p != '\n' &&
		     *p != '\0'; p = q + (q < end && *q == ',')) {
			for (q = p; q < end && *q != ',' && *q != '\n' &&
			     *q != '\0'; q++)
				;
			if ((size_t)(q - p) == el && memcmp(p, exp, el) == 0)
				gt = 1;
			else if ((size_t)(q - p) == el + 2 &&
				 memcmp(p, "no", 2) == 0 &&
				 memcmp(p + 2, exp, el) == 0)
				gt = 0;
			if (q == p)
				break;
		}
		break;
	}
	return gt;
}

/* The module's types section, [types, etypes) of firstmoduledata. */
static void find_types(hw *w)
{
	uint64_t md = gh_sym_moduledata(w->tg->sym), lo = 0, hi = 0;

	if (md == 0)
		return;
	md += w->tg->bias;
	if (gh_mem_read_ptr(w->m, md + w->l->md_types, &lo,
			    "moduledata.types") != 0 ||
	    gh_mem_read_ptr(w->m, md + w->l->md_etypes, &hi,
			    "moduledata.etypes") != 0 ||
	    lo == 0 || hi <= lo || hi - lo > (1u << 30))
		return;
	w->t->types_lo = lo;
	w->t->types_hi = hi;
}

/* mheap_.sweepgen into w, and mheap_.allspans' {ptr, len}. */
static int read_mheap(hw *w, uint64_t mheap, uint64_t *arr, uint64_t *len)
{
	const gh_rtlayout *l = w->l;
	uint64_t v, cap;
	int rc;

	rc = gh_mem_read_uint(w->m, mheap + l->mh_sweepgen, 4, &v,
			      "mheap_.sweepgen");
	if (rc == 0)
		rc = gh_mem_read_ptr(w->m, mheap + l->mh_allspans, arr,
				     "mheap_.allspans");
	if (rc == 0)
		rc = gh_mem_read_ptr(w->m, mheap + l->mh_allspans + 8, len,
				     "mheap_.allspans");
	if (rc == 0)
		rc = gh_mem_read_ptr(w->m, mheap + l->mh_allspans + 16, &cap,
				     "mheap_.allspans");
	if (rc != 0)
		return rc;
	w->mh_sweepgen = (uint32_t)v;
	/* the mark bits: valid when gcphase is _GCoff (0).  Without
	 * runtime.gcphase (stripped) an unswept span proves it: gcStart
	 * sweeps every span (finishsweep_m) before _GCmark, and mark
	 * termination sets _GCoff before it advances mheap_.sweepgen (gcSweep),
	 * both with the world stopped */
	w->marks_ok = 1;
	w->t->gcphase = -1;
	if (w->tg->addrs.gcphase != 0) {
		rc = gh_mem_read_uint(w->m, w->tg->addrs.gcphase, 4, &v,
				      "runtime.gcphase");
		if (rc != 0)
			return rc;
		w->t->gcphase = v <= 2 ? (int)v : -1;
		w->marks_ok = v == 0;
	}
	if (*len > cap || *len > GH_TYPES_MAX_SPANS || (*len > 0 && *arr == 0))
		return gh_errf(&w->tg->err, GOHEAP_ECORRUPT, "mheap_.allspans "
			       "{%#llx, %llu, %llu} is not a span list",
			       (unsigned long long)*arr,
			       (unsigned long long)*len,
			       (unsigned long long)cap);
	return 0;
}

/* An unchanged span whose status the stop sees otherwise than the
 * running read did (a GC ended or began in between: unswept now, or its
 * marks valid now): walked again, as a changed one. */
static int rec_stale(const hw *w, const srec *r)
{
	int now;

	if (!r->inuse || r->bad)
		return 0;
	now = r->sweepgen == w->mh_sweepgen - 2 ||
	      r->sweepgen == w->mh_sweepgen + 1;
	return now != (int)r->unswept ||
	       (now && w->marks_ok != (int)r->mwant);
}

/*
 * Walk mheap_.allspans.  mode 0: every span; 1: every span, each one's
 * fields and counts recorded (the running read of a snapshot); 2: the
 * stopped re-read: a span whose fields differ from its record has its
 * counts taken back and is walked again, new spans are walked.
 */
/*
 * The running read of one chunk of allspans (recs[i0 .. i0 + n), headers
 * in w->batch): the cache emptied, then each span's bits and objects, so
 * that none of what is counted is older than the fields its hash records
 * (a cached block of allocBits from before a sweep, under fields read
 * after it, would lose objects the stop could not see change).
 */
static int walk_batch(hw *w, uint64_t i0, uint64_t n)
{
	uint64_t j;
	int rc;

	gh_mem_invalidate(w->m);
	for (j = 0; j < n; j++) {
		srec *r = &w->recs[i0 + j];
		const span *sp = &w->batch[j];

		if (r->bad == 2) {
			/* a bad span pointer: counted here, so that the
			 * chunk's spans are counted in allspans' order as a
			 * read without a stop counts them (bad_span's
			 * tripped) */
			rc = bad_span(w, sp->addr, bad_ptr_why(sp->addr));
			if (rc != 0)
				return rc;
			continue;
		}
		r->hash = sp->rh;
		r->elemsize = sp->elemsize;
		r->sweepgen = sp->sweepgen;
		r->inuse = sp->state == GH_SPAN_INUSE;
		r->runs = (uint32_t)w->nruns;
		w->cur = r;
		rc = walk_span(w, sp);
		w->cur = NULL;
		if (rc != 0)
			return rc;
		w->nstable += r->stable;
		w->cstable[(i0 + j) / 512] += r->stable;
	}
	return 0;
}

/*
 * A span the stop found unchanged but for its status (a GC ended since
 * the running read: it is unswept now, its mark bits valid): its counts
 * move into the unswept ones and its unreachable objects are counted
 * from its allocation and mark bits, without walking it again (no header
 * is read).  0, or -1 when it must be walked again.
 */
static int reclassify(hw *w, srec *r, const unsigned char *mb, uint64_t sp)
{
	gh_types *t = w->t;
	unsigned char abits[GH_MAX_NELEMS / 8], mbits[GH_MAX_NELEMS / 8];
	uint64_t n = 0, alloc = 0, unreach = 0, i;
	span s;
	int now, marks = 0;
	uint32_t k;

	if (!r->inuse || r->bad)
		return -1;
	span_decode(w, mb, &s);
	s.addr = sp;
	if (span_check(w, &s) != NULL)
		return -1;
	for (k = 0; k < r->nruns; k++)
		n += w->runs[r->runs + k].n;
	now = s.sweepgen == w->mh_sweepgen - 2 ||
	      s.sweepgen == w->mh_sweepgen + 1;
	if (now && w->marks_ok) {
		if (mark_bits(w, &s, mbits) == 0 &&
		    gh_mem_read(w->m, s.allocbits, abits,
				(size_t)(s.nelems + 7) / 8, "allocBits") == 0)
			marks = 1;
		for (i = 0; marks && i < s.nelems; i++) {
			int a = s.sizeclass == 0 ?
				i < s.freeindex || (abits[0] & 1) :
				i < s.freeindex || ((abits[i / 8] >> (i % 8)) & 1);

			alloc += a;
			unreach += a && !((mbits[i / 8] >> (i % 8)) & 1);
		}
		if (marks && alloc != n)
			return -1;   /* not what was counted: walk it */
	}
	/* out of the old status ... */
	if (r->unswept) {
		t->unswept_spans--;
		t->unswept_objects -= n;
		t->unswept_bytes -= n * r->elemsize;
	}
	if (r->marks) {
		t->marked_spans--;
		t->unreach_objects -= r->unreach;
		t->unreach_bytes -= (uint64_t)r->unreach * r->elemsize;
	} else if (r->unswept) {
		t->unmarked_spans--;
	}
	/* ... into the new */
	if (now) {
		t->unswept_spans++;
		t->unswept_objects += n;
		t->unswept_bytes += n * r->elemsize;
		if (marks) {
			t->marked_spans++;
			t->unreach_objects += unreach;
			t->unreach_bytes += unreach * r->elemsize;
		} else {
			t->unmarked_spans++;
		}
	}
	r->unswept = now != 0;
	r->mwant = now && w->marks_ok;
	r->marks = marks != 0;
	r->unreach = (uint16_t)unreach;
	r->stable = 0;
	return 0;
}

/*
 * The stop's second reader: for allspans[from, to) (all recorded),
 * same[i - from] = 1 when the span need not be walked again (stable and
 * skipped, or its raw_hash and status unchanged), read through its own
 * cache.  Reads w only; the main thread walks what is not the same.
 */
static void *compare_upper(void *arg)
{
	const hw *w = arg;
	struct {
		uint64_t arr, from, to;
		unsigned char *same;
	} cc = { w->c_arr, w->c_from, w->c_to, w->same }, *c = &cc;
	gh_mem *m = (gh_mem *)&w->m2;
	uint64_t i, j, chunk[512];
	unsigned char sb[256];

	gh_mem_invalidate(m);
	for (i = c->from; i < c->to; i += GH_ARRAY_LEN(chunk)) {
		uint64_t n = c->to - i < GH_ARRAY_LEN(chunk) ?
			     c->to - i : GH_ARRAY_LEN(chunk);
		int have = 0;

		for (j = 0; j < n; j++) {
			const srec *r = &w->recs[i + j];
			const unsigned char *mb;
			uint64_t sp;

			if (w->skip && r->stable && r->bad == 0) {
				c->same[i + j - c->from] = 1;
				continue;
			}
			if (r->bad == 2)
				continue;
			if (!have) {
				if (gh_mem_read(m, c->arr + i * 8, chunk,
						(size_t)n * 8, "allspans") != 0)
					break;   /* the main thread reads */
				have = 1;
			}
			sp = gh_mem_word(m, (unsigned char *)&chunk[j], 8);
			if (sp == 0 || sp % 8 != 0)
				continue;
			mb = gh_mem_peek(m, sp, w->l->ms_size);
			if (mb == NULL &&   /* across two blocks */
			    gh_mem_read(m, sp, sb, w->l->ms_size, "mspan") == 0)
				mb = sb;
			if (mb != NULL && r->hash == raw_hash(w, mb, sp) &&
			    !rec_stale(w, r))
				c->same[i + j - c->from] = 1;
		}
	}
	return NULL;
}

static int walk_all_(hw *w, uint64_t mheap, int mode)
{
	const gh_rtlayout *l = w->l;
	gh_types *t = w->t;
	uint64_t arr, len, i, chunk[512], half = UINT64_MAX;
	unsigned char sb[256], *same = NULL;
	int rc;

	rc = read_mheap(w, mheap, &arr, &len);
	if (rc != 0)
		return rc;
	/*
	 * The stop skips the stable spans (full and swept at the running
	 * read: walk_span) when no GC ended since it began (mheap_.sweepgen
	 * unchanged): objects are freed only by a sweep, so such a span has
	 * no free slot to hand out and no garbage to lose, and allspans
	 * only grows, its slot still names it.  Under runtimefreegc the
	 * program may free objects itself: every span is compared.
	 */
	if (mode == 1)
		w->run_sweepgen = w->mh_sweepgen;
	w->skip = mode == 2 && w->mh_sweepgen == w->run_sweepgen && !w->freegc;
	if (mode == 1) {
		w->recs = gh_calloc((size_t)len + 1, sizeof(*w->recs));
		w->batch = gh_calloc(GH_ARRAY_LEN(chunk), sizeof(*w->batch));
		w->cstable = gh_calloc((size_t)len / 512 + 1,
				       sizeof(*w->cstable));
		if (w->recs == NULL || w->batch == NULL || w->cstable == NULL)
			return gh_errf(&w->tg->err, GOHEAP_ENOMEM, "out of "
				       "memory (%llu spans)",
				       (unsigned long long)len);
		w->nrecs = (size_t)len;
	}
	t->spans = len;
	if (mode == 2) {
		/* allspans only grows (mheap.go recordspan): a shorter list at
		 * the stop is damaged data; what it no longer lists is taken
		 * back, so that the counts are the stopped list's */
		for (i = len; i < w->nrecs; i++) {
			if (w->recs[i].bad == 2)
				t->bad_spans--;
			else
				rec_undo(w, &w->recs[i]);
			w->recs[i].bad = 2;
			w->recs[i].inuse = 0;
			w->recs[i].stable = 0;
		}
		if (len < w->nrecs)
			w->nrecs = (size_t)len;
		/* a big list: its upper half compared on a second thread
		 * (when there is enough to compare: the spans it skips are
		 * not, and under load, waiting for a thread to be scheduled
		 * costs more than a few thousand spans) */
		if (w->have_m2 && w->nrecs >= GH_TYPES_TWO_READERS &&
		    w->nrecs - (w->skip ? w->nstable : 0) >=
		    GH_TYPES_TWO_READERS &&
		    (w->same = calloc(w->nrecs / 2 + 512, 1)) != NULL) {
			half = (w->nrecs / 2) & ~(uint64_t)511;
			same = w->same;
			w->c_arr = arr;
			w->c_from = half;
			w->c_to = w->nrecs;
			w->th_started = pthread_create(&w->th, NULL,
						       compare_upper, w) == 0;
			if (!w->th_started) {
				same = NULL;
				half = UINT64_MAX;
			}
		}
	}
	for (i = 0; i < len; i += GH_ARRAY_LEN(chunk)) {
		uint64_t n = len - i < GH_ARRAY_LEN(chunk) ?
			     len - i : GH_ARRAY_LEN(chunk), j, nst = 0;

		if (w->th_started && i + n > half) {
			/* the second reader's half begins: its answers */
			pthread_join(w->th, NULL);
			w->th_started = 0;
		}
		if (w->skip && i + n <= w->nrecs &&
		    w->cstable[i / 512] == n) {
			/* every span of the chunk stable (none was walked
			 * again since: that is only at the stop) */
			t->stable_skipped += n;
			continue;
		}
		if (w->skip) {
			for (j = 0; j < n && i + j < w->nrecs; j++)
				nst += w->recs[i + j].stable &&
				       w->recs[i + j].bad == 0;
			t->stable_skipped += nst;
		}
		if (same != NULL && i >= half && i + n <= w->nrecs) {
			uint64_t ns = 0;

			for (j = 0; j < n; j++)
				ns += same[i + j - half];
			if (ns == n)
				continue;
		} else if (nst == n) {
			continue;   /* not even their array slots */
		}
		rc = gh_mem_read(w->m, arr + i * 8, chunk, (size_t)n * 8,
				 "mheap_.allspans array");
		if (rc != 0 && mode != 2) {
			/* the running program grew allspans meanwhile
			 * (recordspan: a bigger copy, the old array freed):
			 * the same spans at its new place */
			uint64_t a2 = 0, l2 = 0;

			if (gh_mem_read_ptr(w->m, mheap + l->mh_allspans, &a2,
					    "mheap_.allspans") == 0 &&
			    gh_mem_read_ptr(w->m, mheap + l->mh_allspans + 8,
					    &l2, "mheap_.allspans") == 0 &&
			    a2 != arr && a2 != 0 && l2 >= i + n &&
			    l2 <= GH_TYPES_MAX_SPANS) {
				arr = a2;
				rc = gh_mem_read(w->m, arr + i * 8, chunk,
						 (size_t)n * 8,
						 "mheap_.allspans array");
			}
		}
		if (rc != 0)
			return rc;
		for (j = 0; j < n; j++) {
			uint64_t sp = gh_mem_word(w->m, (unsigned char *)
						  &chunk[j], 8);
			srec *r = mode != 0 && i + j < w->nrecs ?
				  &w->recs[i + j] : NULL;
			span now;

			const unsigned char *mb = NULL;

			if (w->skip && r != NULL && r->stable && r->bad == 0)
				continue;
			if (same != NULL && i + j >= half && r != NULL &&
			    same[i + j - half])
				continue;   /* compared by the second reader */
			if (sp != 0 && sp % 8 == 0) {
				/* in the cache's block, as a rule: no copy */
				mb = gh_mem_peek(w->m, sp, l->ms_size);
				if (mb == NULL &&
				    gh_mem_read(w->m, sp, sb, l->ms_size,
						"mspan") == 0)
					mb = sb;
			}
			if (mb == NULL) {
				if (mode == 2 && r != NULL) {
					if (r->bad == 2)
						continue;   /* counted */
					rec_undo(w, r);
				}
				if (r != NULL)
					r->bad = 2;
				if (mode == 1 && r != NULL) {
					/* counted in walk_batch, in order */
					w->batch[j].addr = sp;
					continue;
				}
				rc = bad_span(w, sp, bad_ptr_why(sp));
				if (rc != 0)
					return rc;
				continue;
			}
			if (mode == 2 && r != NULL && r->bad != 2 &&
			    r->hash == raw_hash(w, mb, sp)) {
				if (!rec_stale(w, r))
					continue;   /* unchanged */
				/* only its status: its bytes kept, the
				 * cache's block may go */
				if (mb != sb) {
					memcpy(sb, mb, l->ms_size);
					mb = sb;
				}
				if (reclassify(w, r, mb, sp) == 0) {
					t->reclassified++;
					continue;
				}
			}
			span_decode(w, mb, &now);
			now.addr = sp;
			now.rh = raw_hash(w, mb, sp);
			if (mode == 1) {
				w->batch[j] = now;   /* walk_batch */
				continue;
			}
			if (mode == 2 && r != NULL) {
				if (r->bad == 2)
					t->bad_spans--;
				else
					rec_undo(w, r);
				r->bad = 0;
				w->p->stop.rewalked++;
			} else if (mode == 2) {
				w->p->stop.rewalked++;   /* new since */
			}
			rc = walk_span(w, &now);
			if (rc != 0)
				return rc;
		}
		if (mode == 1) {
			rc = walk_batch(w, i, n);
			if (rc != 0)
				return rc;
		}
	}
	if (mode == 2)
		w->p->stop.checked = len - t->stable_skipped;
	return 0;
}

/* walk_all_, the second reader joined and its answers freed on every
 * path */
static int walk_all(hw *w, uint64_t mheap, int mode)
{
	int rc = walk_all_(w, mheap, mode);

	if (w->th_started)
		pthread_join(w->th, NULL);
	w->th_started = 0;
	free(w->same);
	w->same = NULL;
	return rc;
}

/*
 * Stop the target (the goroutine snapshot's ptrace stop), walk (mode 2:
 * only what changed since the running read; 0: everything), resume it on
 * every path.
 */
static int walk_stopped(hw *w, uint64_t mheap, int mode)
{
	gh_target *tg = w->tg;
	double t0, t1;
	int rc;

	rc = gh_target_stop(tg, "-p types", "snapshot", &t0);
	if (rc != 0)
		return rc;
	gh_mem_invalidate(w->m);
	t1 = gh_now();
	rc = walk_all(w, mheap, mode);
	if (rc == 0)
		rc = too_bad(w);
	w->t->t_stopwalk = gh_now() - t1;
	return gh_target_resume(tg, w->p, t0, gh_now(), rc);
}

/* The checks and the walker's state every heap reader shares. */
static int hw_setup(hw *w, gh_profile *p, gh_target *tg, gh_types *t,
		    uint64_t *mheap, const char *what)
{
	const gh_rtlayout *l = tg->lay;

	if (!l->heap_verified || tg->mem.ptr_size != 8)
		return gh_errf(&tg->err, GOHEAP_EUNSUPPORTED, "%s: "
			       "unsupported runtime layout for go1.%d on a "
			       "%u-bit target (the heap walker knows 64-bit "
			       "go1.19 and go1.21 to go1.27)", what,
			       tg->ver.minor, tg->mem.ptr_size * 8);
	if (l->ms_size > 256)
		return gh_errf(&tg->err, GOHEAP_EVERSION, "unsupported runtime "
			       "layout: mspan of %u bytes", l->ms_size);
	*mheap = tg->addrs.mheap;   /* .symtab, or located (find_mheap) */
	if (*mheap == 0)
		return gh_errf(&tg->err, GOHEAP_ENOSYM, "%s: "
			       "runtime.mheap_ not found%s", what,
			       gh_exe_has_symtab(tg->exe) ? "" : " (stripped: "
			       "not located from runtime.sweepone's code)");
	t->headers = l->heap_headers;
	memset(w, 0, sizeof(*w));
	w->tg = tg;
	w->p = p;
	w->t = t;
	w->m = &tg->mem;
	w->l = l;
	raw_ranges(w);
	w->greentea = find_experiment(w, "greenteagc", l->heap_greentea);
	w->freegc = find_experiment(w, "runtimefreegc", 0);
	find_types(w);
	return 0;
}

int gh_heap_objects(gh_profile *p, gh_target *tg, gh_types *t,
		    const gh_heap_sink *k)
{
	uint64_t mheap;
	hw w;
	int rc;

	rc = hw_setup(&w, p, tg, t, &mheap, "-p retained");
	if (rc != 0)
		return rc;
	w.sink = k;
	w.before_stop = k->tolerant;
	return walk_all(&w, mheap, 0);
}

/* the types part's free function (gh_profile_set_part) */
static void types_free(void *t)
{
	gh_types_free(t);
}

int gh_types_collect(gh_profile *p, gh_target *tg, int objects)
{
	const gh_rtlayout *l = tg->lay;
	uint64_t mheap = 0;
	double t0 = gh_now(), tb0 = tg->mem.t_backend;
	uint64_t n0 = tg->mem.nreads, b0 = tg->mem.nbytes;
	gh_types *t;
	hw w;
	int rc, snap;

	t = gh_calloc(1, sizeof(*t));
	if (t == NULL)
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	gh_profile_set_part(p, GH_PART_TYPES, t, types_free);
	t->want_objects = objects;
	rc = hw_setup(&w, p, tg, t, &mheap, "-p types");
	if (rc != 0)
		return rc;
	/* a live target is read running, then stopped to re-read the spans
	 * that changed (as the goroutine snapshot does); -f objects lists
	 * every object, so it is walked stopped from the start */
	snap = gh_target_snapshot(tg);
	p->stop.state = snap;
	/* the stop's second reader: the live source only (a caller's
	 * source, gdb's, may not be read from two threads) */
	if (snap == 1 && !objects && tg->caps->concurrent_reads &&
	    tg->mem.ops == tg->ops) {
		uint64_t v;

		gh_mem_init(&w.m2, tg->mem.ops, tg->mem.ctx, tg->mem.ptr_size,
			    tg->mem.big_endian, &w.err2);
		/* its cache's blocks made before the stop */
		w.have_m2 = gh_mem_read_uint(&w.m2, mheap + l->mh_sweepgen, 4,
					     &v, "mheap_.sweepgen") == 0;
	}
	if (snap == 1 && objects) {
		rc = walk_stopped(&w, mheap, 0);
		p->stop.rewalked = p->stop.checked = t->spans;
	} else if (snap == 1) {
		w.before_stop = 1;
		rc = walk_all(&w, mheap, 1);
		w.before_stop = 0;
		/* the running read failed (an allspans chunk unreadable):
		 * there is no stop to judge the spans it found bad, and a
		 * read without one (a core's) stops at the damage that came
		 * before the failure: that verdict, the same code and
		 * message (fuzz_types, regress/types/snapshot-unreadable-
		 * after-damage) */
		if (rc != 0 && w.tripped)
			rc = damaged(&w, w.trip_bad, w.trip_inuse);
		if (rc == 0)
			rc = walk_stopped(&w, mheap, 2);
	} else
		rc = walk_all(&w, mheap, 0);
	free(w.recs);
	free(w.runs);
	free(w.batch);
	free(w.cstable);
	if (w.have_m2 || w.m2.ops != NULL)
		gh_mem_fini(&w.m2);
	if (rc != 0)
		return rc;
	if (t->objlines.oom)
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	t->t_walk = gh_now() - t0;
	/* -v's stages, as walk.c reports them */
	p->t_read = tg->mem.t_backend - tb0;
	p->t_walk = t->t_walk - p->t_read;
	p->read_calls = tg->mem.nreads - n0;
	p->read_bytes = tg->mem.nbytes - b0;
	p->nbuckets = t->spans;
	return 0;
}

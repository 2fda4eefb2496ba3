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
 * name.  Reads go through the session's block cache, a span at a time.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "heapwalk.h"

#define GH_PAGE 8192u
/* mSpanInUse (mheap.go: mSpanDead, mSpanInUse, mSpanManual) */
#define GH_SPAN_INUSE 1
/* abi.TFlagExtraStar */
#define GH_TFLAG_EXTRASTAR 2
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
		 markbits, elemsize, largetype;
	uint32_t sweepgen;
	uint16_t alloccount;
	uint8_t spanclass, sizeclass, noscan, state;
} span;

/* A span as the running read saw it (a hash of its fields, 32 bytes a
 * span: 1 M spans, a 10 GiB heap, in 32 MB), and its counts (runs). */
typedef struct srec {
	uint64_t hash;          /* span_hash */
	uint64_t elemsize;
	uint32_t sweepgen, runs;
	uint16_t nruns, claimed, unreach;   /* unreach: of the counted */
	unsigned inuse : 1, bad : 2,        /* bad: 1 implausible, 2 no span */
		 unswept : 1, mwant : 1,    /* mwant: unswept, marks valid */
		 marks : 1;                 /* marks: read (unreach known) */
} srec;

_Static_assert(sizeof(srec) <= 32, "a span's record stays 32 bytes");

typedef struct srun {
	uint32_t entry, n;
} srun;

typedef struct hw {
	goheap_session *s;
	gh_profile *p;
	gh_types *t;
	gh_mem *m;
	const gh_rtlayout *l;
	uint32_t mh_sweepgen;
	/* the last GC's mark bits are valid (gcphase == _GCoff; unknown,
	 * stripped: an unswept span proves it, see marks_valid) */
	int marks_ok;
	int greentea;             /* Green Tea's inline mark bits: heap_bits */
	/* the snapshot (NULL rec: not recording) */
	srec *recs, *cur;
	size_t nrecs;
	span *batch;              /* the running read's headers, a chunk */
	srun *runs;
	size_t nruns, capruns;
} hw;

void gh_types_free(gh_types *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].shape);
	}
	free(t->e);
	gh_hmap_free(&t->idx);
	gh_buf_free(&t->objlines);
	free(t);
}

/* ---- entries ---------------------------------------------------------- */

static uint64_t shape_key(unsigned kind, uint32_t size, uint64_t mask)
{
	uint64_t k[3] = { kind, size, mask };

	/* never an aligned address: typed entries are keyed by theirs */
	return gh_fnv1a(k, sizeof(k)) | 1;
}

static char *shape_name(unsigned kind, uint32_t size, uint64_t mask)
{
	gh_buf b = GH_BUF_INIT;
	unsigned i, words = size / 8;
	size_t len;

	switch (kind) {
	case GH_TK_NOSCAN:
		gh_buf_printf(&b, "noscan %u B", size);
		break;
	case GH_TK_SCAN:
		gh_buf_printf(&b, "scan %u B", size);
		break;
	case GH_TK_PTRS:
		gh_buf_printf(&b, "ptrs %u B 0b", size);
		for (i = 0; i < words && i < 64; i++)
			gh_buf_putc(&b, (mask >> i) & 1 ? '1' : '0');
		break;
	case GH_TK_HDRLESS:
		gh_buf_printf(&b, "ptrs %u B (no header yet)", size);
		break;
	case GH_TK_LARGE_NOSCAN:
		gh_buf_printf(&b, "noscan large");
		break;
	case GH_TK_LARGE_PTRS:
		gh_buf_printf(&b, "ptrs large (no largeType)");
		break;
	case GH_TK_FOREIGN:
		if (size != 0)
			gh_buf_printf(&b, "ptrs %u B (implausible header)",
				      size);
		else
			gh_buf_printf(&b, "ptrs large (implausible "
				      "largeType)");
		break;
	default:
		gh_buf_printf(&b, "?");
		break;
	}
	gh_buf_putc(&b, '\0');
	if (b.oom) {
		gh_buf_free(&b);
		return NULL;
	}
	return (char *)gh_buf_detach(&b, &len);
}

static gh_tentry *entry_new(hw *w, uint64_t key)
{
	gh_types *t = w->t;
	gh_tentry *e;

	if (gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) != 0 ||
	    gh_hmap_put(&t->idx, key, t->n + 1) != 0)
		return NULL;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* The shape entry (kind, size, mask), made on first use. */
static gh_tentry *shape_entry(hw *w, unsigned kind, uint32_t size,
			      uint64_t mask)
{
	uint64_t key = shape_key(kind, size, mask);
	gh_types *t = w->t;
	size_t it;
	uint64_t v;
	gh_tentry *e;

	for (v = gh_hmap_first(&t->idx, key, &it); v != 0;
	     v = gh_hmap_next(&t->idx, key, &it)) {
		e = &t->e[v - 1];
		if (e->type == 0 && e->kind == kind && e->size == size &&
		    e->mask == mask)
			return e;
	}
	if (gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) != 0 ||
	    gh_hmap_add(&t->idx, key, t->n + 1) != 0)
		return NULL;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	e->size = size;
	e->mask = mask;
	e->name = shape_name(kind, size, mask);
	e->shape = e->name != NULL ? gh_strdup(e->name) : NULL;
	if (e->name == NULL || e->shape == NULL)
		return NULL;
	return e;
}

/*
 * The name of the type at addr: abi.Type.Str, a nameOff into the module's
 * types section (resolveNameOff), then abi.Name's encoding: a flag byte,
 * a uvarint length, the bytes; TFlagExtraStar drops the leading '*'.
 * NULL (not an error) when addr or its name lies outside the section.
 */
static char *type_name(hw *w, uint64_t addr)
{
	const gh_rtlayout *l = w->l;
	gh_types *t = w->t;
	unsigned char ty[64], hdr[5];
	uint64_t n = 0, at;
	int32_t str;
	unsigned i, shift = 0;
	char *name;
	size_t skip;

	if (t->types_lo == 0 || addr % 8 != 0 || addr < t->types_lo ||
	    addr >= t->types_hi || t->types_hi - addr < l->ty_str + 4 ||
	    l->ty_str + 4 > sizeof(ty))
		return NULL;
	if (gh_mem_read(w->m, addr, ty, l->ty_str + 4, "abi.Type") != 0)
		return NULL;
	str = (int32_t)gh_load(ty + l->ty_str, 4, w->m->big_endian);
	if (str <= 0 || (uint64_t)str >= t->types_hi - t->types_lo)
		return NULL;
	at = t->types_lo + (uint64_t)str;
	if (t->types_hi - at < 2 ||
	    gh_mem_read(w->m, at, hdr, t->types_hi - at < sizeof(hdr) ?
			(size_t)(t->types_hi - at) : sizeof(hdr),
			"type name") != 0)
		return NULL;
	for (i = 1; i < sizeof(hdr) && at + i < t->types_hi; i++) {
		n |= (uint64_t)(hdr[i] & 0x7f) << shift;
		shift += 7;
		if (!(hdr[i] & 0x80))
			break;
	}
	if (i == sizeof(hdr) || at + i >= t->types_hi ||
	    n > t->types_hi - (at + i + 1))
		return NULL;
	at += i + 1;
	if (n > GH_TYPES_MAX_NAME)
		n = GH_TYPES_MAX_NAME;
	name = malloc((size_t)n + 1);
	if (name == NULL)
		return NULL;
	if (gh_mem_read(w->m, at, name, (size_t)n, "type name") != 0) {
		free(name);
		return NULL;
	}
	name[n] = '\0';
	skip = (ty[l->ty_tflag] & GH_TFLAG_EXTRASTAR) && n > 0 &&
	       name[0] == '*';
	if (skip)
		memmove(name, name + 1, (size_t)n);
	if (strlen(name) != (size_t)n - skip) {   /* a NUL inside: damaged */
		free(name);
		return NULL;
	}
	return name;
}

/* The typed entry of the type at addr (slot size for the shape). */
static gh_tentry *type_entry(hw *w, uint64_t addr, unsigned kind,
			     uint32_t size)
{
	uint64_t v = addr % 8 == 0 ? gh_hmap_get(&w->t->idx, addr) : 0;
	gh_tentry *e;
	char buf[64], *name;

	if (v != 0)
		return &w->t->e[v - 1];
	/* no type starts there: a shape, never a row per junk word */
	if (addr % 8 != 0)
		goto foreign;
	name = type_name(w, addr);
	if (name == NULL && w->t->unnamed_types >= GH_TYPES_MAX_UNNAMED)
		goto foreign;
	e = entry_new(w, addr);
	if (e == NULL) {
		free(name);
		return NULL;
	}
	e->type = addr;
	e->kind = (uint8_t)kind;
	e->name = name;
	e->named = e->name != NULL;
	if (!e->named)
		w->t->unnamed_types++;
	if (e->name == NULL) {
		snprintf(buf, sizeof(buf), "type 0x%llx",
			 (unsigned long long)addr);
		e->name = gh_strdup(buf);
	}
	if (kind == GH_TK_LARGETYPE)
		e->shape = gh_strdup("ptrs large");
	else {
		snprintf(buf, sizeof(buf), "ptrs %u B", size);
		e->shape = gh_strdup(buf);
	}
	if (e->name == NULL || e->shape == NULL)
		return NULL;
	return e;
foreign:
	w->t->foreign++;
	return shape_entry(w, GH_TK_FOREIGN, kind == GH_TK_LARGETYPE ? 0 : size,
			   0);
}

/* ---- the walk ---------------------------------------------------------- */

static int bad_span(hw *w, uint64_t addr, const char *why)
{
	gh_types *t = w->t;

	if (t->bad_spans++ == 0)
		snprintf(t->first_bad, sizeof(t->first_bad), "span 0x%llx: %s",
			 (unsigned long long)addr, why);
	if (t->bad_spans > GH_TYPES_MAX_BAD &&
	    t->bad_spans > t->spans_inuse / 2)
		return gh_errf(&w->s->err, GOHEAP_ECORRUPT, "the heap's span "
			       "list is damaged or changing too fast: %llu of "
			       "%llu spans in use are implausible (the first, "
			       "%s)", (unsigned long long)t->bad_spans,
			       (unsigned long long)t->spans_inuse,
			       t->first_bad);
	return 0;
}

/* unswept: 0 swept, 1 unswept, 2 unswept and marked by the last GC, 3
 * unswept and found unreachable by it */
static int count(hw *w, gh_tentry *e, uint64_t addr, uint64_t size,
		 int unswept)
{
	gh_types *t = w->t;

	if (e == NULL)
		return gh_errf(&w->s->err, GOHEAP_ENOMEM, "out of memory");
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
				return gh_errf(&w->s->err, GOHEAP_ENOMEM,
					       "out of memory");
			w->runs[w->nruns].entry = (uint32_t)k;
			w->runs[w->nruns].n = 1;
			w->nruns++;
			r->nruns++;
		}
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

/* A hash of the fields mallocgc and the sweeper change (and the rest of
 * what the walk reads from the mspan): a span whose hash is unchanged at
 * the stop has the objects the running read counted. */
static uint64_t span_hash(const span *a)
{
	const uint64_t v[] = {
		a->addr, a->base, a->npages, a->nelems, a->allocbits,
		a->markbits, a->largetype, a->freeindex, a->scanidx, a->elemsize,
		a->sweepgen, a->alloccount,
		(uint64_t)a->state << 8 | a->spanclass,
	};
	uint64_t h = 0x243f6a8885a308d3ULL;
	size_t i;

	for (i = 0; i < GH_ARRAY_LEN(v); i++) {
		h = (h ^ v[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return h;
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
	int have_hbits = -1, unswept, marks = 0;
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
	if (sp.sizeclass == 0) {
		if (marks)
			unswept = mbits[0] & 1 ? 2 : 3;
		/* a large object: allocated once mallocgc set freeindex, or
		 * marked by the last sweep */
		if (sp.freeindex == 0 && !(abits[0] & 1))
			return 0;
		if (sp.noscan)
			return count(w, shape_entry(w, GH_TK_LARGE_NOSCAN, 0, 0),
				     sp.base, sp.elemsize, unswept);
		if (sp.largetype != 0)
			return count(w, type_entry(w, sp.largetype,
						   GH_TK_LARGETYPE, 0),
				     sp.base, sp.elemsize, unswept);
		return count(w, shape_entry(w, GH_TK_LARGE_PTRS, 0, 0),
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
			e = shape_entry(w, GH_TK_NOSCAN, (uint32_t)sp.elemsize,
					0);
		} else if (!l->heap_headers) {
			e = shape_entry(w, GH_TK_SCAN, (uint32_t)sp.elemsize, 0);
		} else if (sp.elemsize > GH_MIN_HEADER) {
			hdr = 0;
			if ((i < sp.scanidx || bit) &&
			    gh_mem_read_ptr(w->m, slot, &hdr, "malloc header")
			    != 0)
				hdr = 0;
			e = hdr != 0 ? type_entry(w, hdr, GH_TK_HEADER,
						  (uint32_t)sp.elemsize) :
				       shape_entry(w, GH_TK_HDRLESS,
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
			e = shape_entry(w, GH_TK_PTRS, (uint32_t)sp.elemsize,
					mask);
		}
		rc = count(w, e, slot, sp.elemsize, unswept);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Green Tea: the release's default, or what the binary was built with:
 * its build info's "GOEXPERIMENT=" setting (debug/buildinfo), greenteagc
 * (1.25) or nogreenteagc (1.26+).
 */
static int find_greentea(const hw *w)
{
	static const char key[] = "GOEXPERIMENT=";
	const gh_section *sec = gh_exe_section(w->s->exe, ".go.buildinfo");
	const char *b, *end, *p, *q;
	int gt = w->l->heap_greentea;

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
			if (q - p == 10 && memcmp(p, "greenteagc", 10) == 0)
				gt = 1;
			else if (q - p == 12 &&
				 memcmp(p, "nogreenteagc", 12) == 0)
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
	uint64_t md = gh_sym_moduledata(w->s->sym), lo = 0, hi = 0;

	if (md == 0)
		return;
	md += w->s->bias;
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
	if (w->s->addrs.gcphase != 0) {
		rc = gh_mem_read_uint(w->m, w->s->addrs.gcphase, 4, &v,
				      "runtime.gcphase");
		if (rc != 0)
			return rc;
		w->t->gcphase = v <= 2 ? (int)v : -1;
		w->marks_ok = v == 0;
	}
	if (*len > cap || *len > GH_TYPES_MAX_SPANS || (*len > 0 && *arr == 0))
		return gh_errf(&w->s->err, GOHEAP_ECORRUPT, "mheap_.allspans "
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

		if (r->bad == 2)
			continue;
		r->hash = span_hash(sp);
		r->elemsize = sp->elemsize;
		r->sweepgen = sp->sweepgen;
		r->inuse = sp->state == GH_SPAN_INUSE;
		r->runs = (uint32_t)w->nruns;
		w->cur = r;
		rc = walk_span(w, sp);
		w->cur = NULL;
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int walk_all(hw *w, uint64_t mheap, int mode)
{
	const gh_rtlayout *l = w->l;
	gh_types *t = w->t;
	uint64_t arr, len, i, chunk[512];
	unsigned char sb[256];
	int rc;

	rc = read_mheap(w, mheap, &arr, &len);
	if (rc != 0)
		return rc;
	if (mode == 1) {
		w->recs = gh_calloc((size_t)len + 1, sizeof(*w->recs));
		w->batch = gh_calloc(GH_ARRAY_LEN(chunk), sizeof(*w->batch));
		if (w->recs == NULL || w->batch == NULL)
			return gh_errf(&w->s->err, GOHEAP_ENOMEM, "out of "
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
		}
		if (len < w->nrecs)
			w->nrecs = (size_t)len;
	}
	for (i = 0; i < len; i += GH_ARRAY_LEN(chunk)) {
		uint64_t n = len - i < GH_ARRAY_LEN(chunk) ?
			     len - i : GH_ARRAY_LEN(chunk), j;

		rc = gh_mem_read(w->m, arr + i * 8, chunk, (size_t)n * 8,
				 "mheap_.allspans array");
		if (rc != 0)
			return rc;
		for (j = 0; j < n; j++) {
			uint64_t sp = gh_mem_word(w->m, (unsigned char *)
						  &chunk[j], 8);
			srec *r = mode != 0 && i + j < w->nrecs ?
				  &w->recs[i + j] : NULL;
			span now;

			if (sp == 0 || sp % 8 != 0 ||
			    gh_mem_read(w->m, sp, sb, l->ms_size,
					"mspan") != 0) {
				if (mode == 2 && r != NULL) {
					if (r->bad == 2)
						continue;   /* counted */
					rec_undo(w, r);
				}
				if (r != NULL)
					r->bad = 2;
				rc = bad_span(w, sp, sp == 0 || sp % 8 != 0 ?
					      "not a span pointer" :
					      "unreadable");
				if (rc != 0)
					return rc;
				continue;
			}
			span_decode(w, sb, &now);
			now.addr = sp;
			if (mode == 1) {
				w->batch[j] = now;   /* walk_batch */
				continue;
			}
			if (mode == 2 && r != NULL) {
				if (r->bad != 2 && r->hash == span_hash(&now) &&
				    !rec_stale(w, r))
					continue;
				if (r->bad == 2)
					t->bad_spans--;
				else
					rec_undo(w, r);
				r->bad = 0;
				w->p->gor_rewalked++;
			} else if (mode == 2) {
				w->p->gor_rewalked++;   /* new since */
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
		w->p->gor_checked = len;
	return 0;
}

/*
 * Stop the target (the goroutine snapshot's ptrace stop), walk (mode 2:
 * only what changed since the running read; 0: everything), resume it on
 * every path.
 */
static int walk_stopped(hw *w, uint64_t mheap, int mode)
{
	goheap_session *s = w->s;
	double t0;
	int rc;

	rc = gh_session_stop(s, "-p types", "snapshot", &t0);
	if (rc != 0)
		return rc;
	gh_mem_invalidate(w->m);
	rc = walk_all(w, mheap, mode);
	return gh_session_resume(s, w->p, t0, gh_now(), rc);
}

int gh_types_collect(gh_profile *p, goheap_session *s, int objects)
{
	const gh_rtlayout *l = s->lay;
	uint64_t mheap = 0;
	double t0 = gh_now(), tb0 = s->mem.t_backend;
	uint64_t n0 = s->mem.nreads, b0 = s->mem.nbytes;
	gh_types *t;
	hw w;
	int rc, snap;

	if (!l->heap_verified || s->mem.ptr_size != 8)
		return gh_errf(&s->err, GOHEAP_EUNSUPPORTED, "-p types: "
			       "unsupported runtime layout for go1.%d on a "
			       "%u-bit target (the heap walker knows 64-bit "
			       "go1.19 and go1.21 to go1.27)", s->ver.minor,
			       s->mem.ptr_size * 8);
	if (l->ms_size > 256)
		return gh_errf(&s->err, GOHEAP_EVERSION, "unsupported runtime "
			       "layout: mspan of %u bytes", l->ms_size);
	mheap = s->addrs.mheap;   /* .symtab, or located (find_mheap) */
	if (mheap == 0)
		return gh_errf(&s->err, GOHEAP_ENOSYM, "-p types: "
			       "runtime.mheap_ not found%s",
			       gh_exe_has_symtab(s->exe) ? "" : " (stripped: "
			       "not located from runtime.sweepone's code)");
	t = gh_calloc(1, sizeof(*t));
	if (t == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	p->types = t;
	t->want_objects = objects;
	t->headers = l->heap_headers;
	memset(&w, 0, sizeof(w));
	w.s = s;
	w.p = p;
	w.t = t;
	w.m = &s->mem;
	w.l = l;
	w.greentea = find_greentea(&w);
	find_types(&w);
	/* a live target is read running, then stopped to re-read the spans
	 * that changed (as the goroutine snapshot does); -f objects lists
	 * every object, so it is walked stopped from the start */
	snap = GH_OPS_V2(s, stop) == NULL || GH_OPS_V2(s, resume) == NULL ?
	       0 : s->gor_no_stop ? 2 : 1;
	p->gor_snapshot = snap;
	if (snap == 1 && objects) {
		rc = walk_stopped(&w, mheap, 0);
		p->gor_rewalked = p->gor_checked = t->spans;
	} else if (snap == 1) {
		rc = walk_all(&w, mheap, 1);
		if (rc == 0)
			rc = walk_stopped(&w, mheap, 2);
	} else
		rc = walk_all(&w, mheap, 0);
	free(w.recs);
	free(w.runs);
	free(w.batch);
	if (rc != 0)
		return rc;
	if (t->objlines.oom)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	t->t_walk = gh_now() - t0;
	/* -v's stages, as walk.c reports them */
	p->t_read = s->mem.t_backend - tb0;
	p->t_walk = t->t_walk - p->t_read;
	p->read_calls = s->mem.nreads - n0;
	p->read_bytes = s->mem.nbytes - b0;
	p->nbuckets = t->spans;
	return 0;
}

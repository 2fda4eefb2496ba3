/*
 * retained.c - the object graph of -p retained (retained.h) from the
 * runtime's own GC metadata, and reachability from the roots.
 *
 * Objects: heapwalk.c's enumeration of mheap_.allspans (every allocated
 * slot), sorted by address.  Their pointers, as the runtime's
 * typePointersOf (go1.22+ src/runtime/mbitmap.go) finds them (go1.19 and
 * go1.21: every pointerful object's words from its arena's bitmap,
 * heapArena.bitmap: 1.19's nibbles of pointer and scan bits, four words a
 * byte; 1.20+'s one pointer bit a word):
 *   - small pointerful objects (<= 512 B): the span's heap bits, one bit a
 *     word at the end of the span (heapwalk.c reads them per slot);
 *   - objects with a malloc header (the slot's first word) or a large
 *     span's largeType: the type's GCData mask (PtrBytes/8 bits), the
 *     element repeated every Size_ bytes up to the slot's end (past the
 *     header); from 1.24 a type with TFlagGCMaskOnDemand keeps only a
 *     slot for the mask the runtime builds on first use (often unbuilt:
 *     1.27 puts every type with more than 128 pointer-sized words there):
 *     the mask is built from the type as buildGCMask does (arrays repeat
 *     their element's, structs place their fields'); a type it cannot be
 *     built from is counted (ondemand) and its words are taken as
 *     pointers where they point at an object;
 *   - noscan objects: none.
 * Roots, as markroot scans them (mgcmark.go):
 *   - data and bss with the module's GC programs (moduledata.gcdata,
 *     gcbss; runGCProg's encoding, mbitmap.go), precise;
 *   - every goroutine's stack that is not _Gdead, precisely with its
 *     frames' stack maps (retstack.c);
 *   - the specials: finalizers, cleanups, weak handles (markrootSpans);
 *   - the queued finalizers and cleanups (retroots.c).
 * A live target is read running, then stopped only while what was read
 * is copied (retlive.c); the graph is built from the copy.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "retained.h"
#include "retained_int.h"
#include "retlive.h"
#include "testhooks.h"

#define TFLAG_GCMASK_ONDEMAND 0x10u   /* abi.TFlagGCMaskOnDemand, 1.24+ */

static int obj_sink(void *arg, uint64_t addr, uint64_t size, uint32_t ent)
{
	rb *b = arg;
	gh_retained *r = b->r;
	size_t n = b->nobjs;
	struct run *u = b->nruns > 0 ? &b->runs[b->nruns - 1] : NULL;

	if (n >= GH_RET_MAX_OBJECTS)
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: "
			       "more than %u objects", GH_RET_MAX_OBJECTS);
	if (size % 8 != 0 || size / 8 > UINT32_MAX)
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: an "
			       "object of %llu bytes at %#llx (sizes are "
			       "multiples of 8 below 32 GiB)",
			       (unsigned long long)size,
			       (unsigned long long)addr);
	if (gh_grow(&r->addr, &b->capaddr, n + 1, sizeof(*r->addr)) ||
	    gh_grow(&r->size8, &b->capsize, n + 1, sizeof(*r->size8)) ||
	    gh_grow(&r->ent, &b->capent, n + 1, sizeof(*r->ent)))
		return gh_ret_nomem(b);
	gh_ret_release(b, size, 0);
	r->addr[n] = addr;
	r->size8[n] = (uint32_t)(size / 8);
	r->ent[n] = ent;
	b->nobjs++;
	if (u != NULL && addr > u->hi) {
		u->hi = addr;
		u->n++;
		return 0;
	}
	if (gh_grow(&b->runs, &b->capruns, b->nruns + 1, sizeof(*b->runs)))
		return gh_ret_nomem(b);
	u = &b->runs[b->nruns++];
	u->lo = u->hi = addr;
	u->at = n;
	u->n = 1;
	return 0;
}

static int span_sink(void *arg, uint64_t head, uint64_t base,
		     uint64_t elemsize, int noscan)
{
	rb *b = arg;

	if (gh_grow(&b->spl, &b->capspl, b->nspl + 1, sizeof(*b->spl)))
		return gh_ret_nomem(b);
	b->spl[b->nspl].head = head;
	b->spl[b->nspl].base = base;
	b->spl[b->nspl].elemsize = elemsize;
	b->spl[b->nspl].noscan = noscan;
	b->nspl++;
	return 0;
}

/* ---- heap objects' pointers ------------------------------------------ */

/* abi.Kind (internal/abi/type.go, 1.19-1.27) and the array and struct
 * types' fields past abi.Type (48 bytes): ArrayType.Elem, Len;
 * StructType.Fields {ptr, len} after PkgPath; StructField {Name, Typ,
 * Offset}. */
#define KIND_MASK 0x1fu
#define KIND_ARRAY 17u
#define KIND_STRUCT 25u
#define AT_ELEM 48u
#define AT_LEN 64u
#define ST_FIELDS 56u
#define SF_SIZE 24u
#define MASK_BUDGET (1u << 26)   /* type reads a mask may take */

/*
 * buildGCMask (runtime/type.go, 1.24+) of the type at ta into bits from
 * bit at, at most nbits: a type with its mask in GCData copies it, an
 * array repeats its element's, a struct places its fields'.  -1 on a
 * type that is not plausible or past the budget.
 */
static int build_mask(rb *b, uint64_t ta, unsigned char *bits, uint64_t at,
		      uint64_t nbits, unsigned depth, uint64_t *budget)
{
	const gh_rtlayout *l = b->l;
	unsigned char ty[72];
	uint64_t size, ptrbytes, gcdata, i, n, elem, len, f, ft, fo;
	unsigned kind, tflag;
	unsigned char m[512];
	int big = b->m->big_endian;

	if (depth > 64 || (*budget)-- == 0 ||
	    gh_mem_read(b->m, ta, ty, sizeof(ty), "abi.Type") != 0)
		return -1;
	size = gh_load(ty + l->ty_size, 8, big);
	ptrbytes = gh_load(ty + l->ty_ptrbytes, 8, big);
	tflag = ty[l->ty_tflag];
	kind = ty[l->ty_kind] & KIND_MASK;
	gcdata = gh_load(ty + l->ty_gcdata, 8, big);
	if (ptrbytes == 0)
		return 0;
	if (ptrbytes > size || ptrbytes % 8 != 0 || at + ptrbytes / 8 > nbits)
		return -1;
	if (!(tflag & TFLAG_GCMASK_ONDEMAND)) {
		n = ptrbytes / 8;
		for (i = 0; i < n; i += 8 * sizeof(m)) {
			uint64_t k, c = n - i < 8 * sizeof(m) ? n - i :
					8 * sizeof(m);

			if (gh_mem_read(b->m, gcdata + i / 8, m,
					(size_t)((c + 7) / 8), "GC mask") != 0)
				return -1;
			for (k = 0; k < c; k++)
				if ((m[k / 8] >> (k % 8)) & 1)
					bits[(at + i + k) / 8] |= (unsigned char)
						(1u << ((at + i + k) % 8));
		}
		return 0;
	}
	if (kind == KIND_ARRAY) {
		uint64_t esize;
		unsigned char et[16];

		elem = gh_load(ty + AT_ELEM, 8, big);
		len = gh_load(ty + AT_LEN, 8, big);
		if (gh_mem_read(b->m, elem, et, 16, "abi.Type") != 0)
			return -1;
		esize = gh_load(et + l->ty_size, 8, big);
		if (esize == 0 || esize % 8 != 0 || len > size / esize)
			return -1;
		for (i = 0; i < len; i++)
			if (build_mask(b, elem, bits, at + i * (esize / 8),
				       nbits, depth + 1, budget) != 0)
				return -1;
		return 0;
	}
	if (kind == KIND_STRUCT) {
		unsigned char fs[SF_SIZE];

		f = gh_load(ty + ST_FIELDS, 8, big);
		n = gh_load(ty + ST_FIELDS + 8, 8, big);
		if (n > size)
			return -1;
		for (i = 0; i < n; i++) {
			if (gh_mem_read(b->m, f + SF_SIZE * i, fs, SF_SIZE,
					"abi.StructField") != 0)
				return -1;
			ft = gh_load(fs + 8, 8, big);
			fo = gh_load(fs + 16, 8, big);
			if (fo % 8 != 0 || fo >= size)
				continue;   /* a pointerless field (no pointer
					     * is unaligned) */
			if (build_mask(b, ft, bits, at + fo / 8, nbits,
				       depth + 1, budget) != 0)
				return -1;
		}
		return 0;
	}
	return -1;
}

static tinfo *type_info(rb *b, uint32_t ent)
{
	tinfo *t = &b->ti[ent];
	const gh_tentry *e = &b->r->types->e[ent];
	const gh_rtlayout *l = b->l;
	unsigned char ty[64];
	uint64_t gcdata, n;
	unsigned tflag;

	if (t->state != 0)
		return t;
	t->state = 2;
	if (gh_mem_read(b->m, e->type, ty, 48, "abi.Type") != 0)
		return t;
	t->tsize = gh_load(ty + l->ty_size, 8, b->m->big_endian);
	t->ptrbytes = gh_load(ty + l->ty_ptrbytes, 8, b->m->big_endian);
	tflag = ty[l->ty_tflag];
	gcdata = gh_load(ty + l->ty_gcdata, 8, b->m->big_endian);
	if (t->tsize < 8 || t->ptrbytes == 0 || t->ptrbytes > t->tsize ||
	    t->ptrbytes % 8 != 0 || t->ptrbytes > ((uint64_t)1 << 34) ||
	    gcdata == 0)
		return t;       /* no type the runtime would put there */
	n = (t->ptrbytes / 8 + 7) / 8;
	if (b->s->ver.minor >= 24 && (tflag & TFLAG_GCMASK_ONDEMAND)) {
		/* GCData is the slot of the mask getGCMask builds on first
		 * use (or a sentinel while it does): built here from the
		 * type, as buildGCMask does */
		uint64_t budget = MASK_BUDGET;

		if (n > (1u << 24) || (t->mask = gh_calloc((size_t)n, 1)) ==
		    NULL) {
			t->state = 3;
			return t;
		}
		if (build_mask(b, e->type, t->mask, 0, t->ptrbytes / 8, 0,
			       &budget) != 0) {
			free(t->mask);
			t->mask = NULL;
			t->state = 3;
			return t;
		}
		b->r->ondemand_types++;
		t->state = 1;
		return t;
	}
	t->mask = malloc(n ? (size_t)n : 1);
	if (t->mask == NULL)
		return t;
	if (gh_mem_read(b->m, gcdata, t->mask, (size_t)n, "GC mask") != 0) {
		free(t->mask);
		t->mask = NULL;
		return t;
	}
	t->state = 1;
	return t;
}

/* ---- go1.19-1.21: the arenas' heap bitmap ----------------------------------- */

#define ARENA_BYTES ((uint64_t)64 << 20)   /* heapArenaBytes, 64-bit linux */
#define ARENA_L2_BITS 22                   /* arenaL2Bits (arenaL1Bits 0) */

/*
 * Word a's bits from its arena's bitmap (heapBitsForAddr): *ptr the
 * pointer bit; *scan 1.19's scan bit (0: no pointers from this word on),
 * always 1 on 1.20+.  -1 when the arena or its bitmap is unreadable.
 */
static int arena_bits(rb *b, uint64_t a, int *ptr, int *scan)
{
	/* arenaBaseOffset: amd64's addresses start at -2^47 */
	uint64_t base = gh_exe_machine(b->s->exe) == EM_X86_64 ?
			0xffff800000000000ULL : 0, ri = (a - base) / ARENA_BYTES,
		 w = a / 8 % (ARENA_BYTES / 8), at;
	unsigned char byte;

	if (ri >> ARENA_L2_BITS)
		return -1;
	if (!b->ar_ok || ri != b->ar_index) {
		b->ar_ok = 0;
		b->bm_lo = b->bm_hi = 0;
		if (b->arenas_l2 == 0 &&
		    gh_mem_read_ptr(b->m, b->s->addrs.mheap + b->l->mh_arenas,
				    &b->arenas_l2, "mheap_.arenas") != 0)
			return -1;
		if (b->arenas_l2 == 0 ||
		    gh_mem_read_ptr(b->m, b->arenas_l2 + 8 * ri, &b->ar_ha,
				    "mheap_.arenas[ri]") != 0 || b->ar_ha == 0)
			return -1;
		b->ar_index = ri;
		b->ar_ok = 1;
	}
	at = b->ar_ha + (b->l->arena_bits == 2 ? w / 4 : w / 8);
	if (at < b->bm_lo || at >= b->bm_hi) {
		uint64_t lo = at & ~(uint64_t)(sizeof(b->bm) - 1);

		if (gh_mem_read(b->m, lo, b->bm, sizeof(b->bm),
				"heap bitmap") != 0)
			return -1;
		b->bm_lo = lo;
		b->bm_hi = lo + sizeof(b->bm);
	}
	byte = b->bm[at - b->bm_lo];
	if (b->l->arena_bits == 2) {
		*ptr = (byte >> (w % 4)) & 1;
		*scan = (byte >> (4 + w % 4)) & 1;
	} else {
		*ptr = (byte >> (w % 8)) & 1;
		*scan = 1;
	}
	return 0;
}

static int ptr_edge(rb *b, uint64_t v);

/* The object's pointer words from the arenas' bitmap (go1.19-1.21's
 * scanobject). */
static int arena_scan(rb *b, uint32_t i)
{
	gh_retained *r = b->r;
	uint64_t a = r->addr[i], lim = a + gh_retained_size(r, i), w, v;
	wbuf wb = { 0, 0 };
	int ptr, scan, rc;

	for (w = a; w + 8 <= lim; w += 8) {
		if (arena_bits(b, w, &ptr, &scan) != 0) {
			r->unscanned++;
			return 0;
		}
		if (!scan)
			break;
		if (!ptr)
			continue;
		if (gh_ret_word_at(b, &wb, w, lim, &v) != 0)
			return 0;
		rc = ptr_edge(b, v);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * The scan's pointer words are looked up GH_RET_PV at a time, each
 * object's edge list closed once its words' are made: the page index's
 * entries of the words PV_AHEAD ahead, then the objects they point at,
 * are asked for before the search (a pointer's object is anywhere in the
 * heap, each lookup a few dependent cache misses: overlapped this way).
 * The edges are the same, in the same order.
 */
#define PV_AHEAD 16u

static int pv_flush(rb *b)
{
	gh_retained *r = b->r;
	uint32_t n = b->npv, i, k, j, m = 0;
	int rc;

	for (i = 0; i < n + 2 * PV_AHEAD; i++) {
		if (i < n)
			gh_ret_find_prefetch(r, b->pv[i], 0);
		if (i >= PV_AHEAD && i - PV_AHEAD < n)
			gh_ret_find_prefetch(r, b->pv[i - PV_AHEAD], 1);
		if (i < 2 * PV_AHEAD || (k = i - 2 * PV_AHEAD) >= n)
			continue;
		for (; m < b->npend && b->pend[m] <= k; m++) {
			rc = gh_ret_node_end(b, b->pendobj[m]);
			if (rc != 0)
				return rc;
		}
		j = gh_retained_find(r, b->pv[k]);
		if (j != GH_RET_NONE) {
			rc = gh_ret_edge(b, j);
			if (rc != 0)
				return rc;
		}
	}
	for (; m < b->npend; m++) {
		rc = gh_ret_node_end(b, b->pendobj[m]);
		if (rc != 0)
			return rc;
	}
	b->npv = b->npend = 0;
	return 0;
}

static int ptr_edge(rb *b, uint64_t v)
{
	if (v == 0)
		return 0;
	b->pv[b->npv++] = v;
	return b->npv == GH_RET_PV ? pv_flush(b) : 0;
}

/* Object i's pointer words are all in pv: its edge list closes after
 * them. */
static int obj_end(rb *b, uint32_t i)
{
	b->pend[b->npend] = b->npv;
	b->pendobj[b->npend++] = i;
	return b->npend == GH_RET_PV ? pv_flush(b) : 0;
}

static int scan_object(rb *b, uint32_t i)
{
	gh_retained *r = b->r;
	const gh_tentry *e = &r->types->e[r->ent[i]];
	uint64_t a = r->addr[i], lim = a + gh_retained_size(r, i), v, el, w;
	wbuf wb = { 0, 0 };
	tinfo *t;
	unsigned k;
	int rc;

	switch (e->kind) {
	case GH_TK_PTRS:
		for (k = 0; k < 64 && k < r->size8[i]; k++) {
			if (!((e->mask >> k) & 1))
				continue;
			if (gh_ret_word_at(b, &wb, a + 8 * k, lim, &v) != 0)
				break;
			rc = ptr_edge(b, v);
			if (rc != 0)
				return rc;
		}
		return 0;
	case GH_TK_HEADER:
	case GH_TK_LARGETYPE:
		t = type_info(b, r->ent[i]);
		if (e->kind == GH_TK_HEADER)
			a += 8;
		if (t->state == 3)
			r->ondemand++;
		if (t->state != 1 && t->state != 3) {
			r->unscanned++;
			return 0;
		}
		for (el = a; el < lim; el += t->tsize) {
			for (w = 0; w < t->ptrbytes / 8 && el + 8 * w < lim;
			     w++) {
				if (t->state == 1 &&
				    !((t->mask[w / 8] >> (w % 8)) & 1))
					continue;
				if (gh_ret_word_at(b, &wb, el + 8 * w, lim, &v) != 0)
					return 0;
				rc = ptr_edge(b, v);
				if (rc != 0)
					return rc;
			}
			if (t->tsize > lim - el)
				break;
		}
		return 0;
	case GH_TK_SCAN:
		return arena_scan(b, i);
	case GH_TK_LARGE_PTRS:
		if (b->l->arena_bits != 0)
			return arena_scan(b, i);
		return 0;   /* 1.22+: largeType not yet set, as the runtime */
	case GH_TK_FOREIGN:
		r->unscanned++;
		return 0;
	default:
		return 0;     /* noscan, headerless, large without largeType */
	}
}

/* ---- data and bss ------------------------------------------------------ */

static int dsym_cmp(const void *x, const void *y)
{
	const dsym *a = x, *c = y;

	return a->addr < c->addr ? -1 : a->addr > c->addr;
}

/* The executable's data objects in [lo, hi) (runtime addresses). */
static int load_syms(rb *b, uint64_t lo, uint64_t hi)
{
	const gh_section *st = gh_exe_section(b->s->exe, ".symtab");
	const gh_section *sx = gh_exe_section(b->s->exe, ".strtab");
	size_t i, n, cap = 0;

	if (st == NULL || sx == NULL || st->data == NULL || sx->data == NULL)
		return 0;
	n = (size_t)(st->size / sizeof(Elf64_Sym));
	for (i = 0; i < n; i++) {
		Elf64_Sym sym;
		uint64_t at;

		memcpy(&sym, st->data + i * sizeof(sym), sizeof(sym));
		if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    sym.st_name >= sx->size)
			continue;
		at = sym.st_value + b->s->bias;
		if (at < lo || at >= hi)
			continue;
		if (memchr(sx->data + sym.st_name, '\0',
			   (size_t)(sx->size - sym.st_name)) == NULL)
			continue;
		if (gh_grow(&b->syms, &cap, b->nsyms + 1, sizeof(*b->syms)))
			return gh_ret_nomem(b);
		b->syms[b->nsyms].addr = at;
		b->syms[b->nsyms].name = (const char *)sx->data + sym.st_name;
		b->nsyms++;
	}
	if (b->nsyms > 1)
		qsort(b->syms, b->nsyms, sizeof(*b->syms), dsym_cmp);
	b->r->symbols = b->nsyms > 0;
	return 0;
}

/* The symbol containing a (the last at or below), or NULL. */
static const dsym *sym_at(const rb *b, uint64_t a)
{
	size_t lo = 0, hi = b->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? &b->syms[lo - 1] : NULL;
}

/*
 * runGCProg (mbitmap.go) of the program at prog into bits[0 .. nbits):
 * a literal (0nnnnnnn: n bits follow, low bit first), a repeat
 * (1nnnnnnn [n as varint if 0] count: the last n bits count more times),
 * 0 ends.  -1 on a program that runs past nbits or its bytes.
 */
static int run_gcprog(const unsigned char *p, size_t len, unsigned char *bits,
		      uint64_t nbits)
{
	size_t i = 0;
	uint64_t out = 0, k;

	for (;;) {
		unsigned inst;
		uint64_t n, c;

		if (i >= len)
			return -1;
		inst = p[i++];
		if (!(inst & 0x80)) {
			if (inst == 0)
				return 0;
			n = inst;
			if (out + n > nbits || i + (n + 7) / 8 > len)
				return -1;
			for (k = 0; k < n; k++, out++)
				if ((p[i + k / 8] >> (k % 8)) & 1)
					bits[out / 8] |= (unsigned char)
						(1u << (out % 8));
			i += (size_t)(n + 7) / 8;
			continue;
		}
		n = inst & 0x7f;
		if (n == 0) {
			unsigned sh = 0;

			do {
				if (i >= len || sh > 56)
					return -1;
				n |= (uint64_t)(p[i] & 0x7f) << sh;
				sh += 7;
			} while (p[i++] & 0x80);
		}
		{
			unsigned sh = 0;

			c = 0;
			do {
				if (i >= len || sh > 56)
					return -1;
				c |= (uint64_t)(p[i] & 0x7f) << sh;
				sh += 7;
			} while (p[i++] & 0x80);
		}
		if (n == 0 || n > out || c > nbits || n * c > nbits - out)
			return -1;
		for (k = 0; k < n * c; k++, out++)
			if ((bits[(out - n) / 8] >> ((out - n) % 8)) & 1)
				bits[out / 8] |= (unsigned char)(1u << (out % 8));
	}
}

/* One segment's roots: the words its mask marks, one root per symbol. */
static int seg_roots(rb *b, int kind, uint64_t lo, uint64_t hi,
		     uint64_t prog)
{
	const char *segname = kind == GH_ROOT_DATA ? "data" : "bss";
	uint64_t nw = (hi - lo) / 8, w, v, cur = ~(uint64_t)0;
	const gh_section *sec;
	const unsigned char *p;
	unsigned char *bits;
	uint64_t at, lk = prog - b->s->bias;
	int rc = 0;
	wbuf wb = { 0, 0 };

	if (hi <= lo)
		return 0;
	if (hi - lo > ((uint64_t)1 << 32) || prog == 0)
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: "
			       "moduledata's %s [%#llx, %#llx) or its GC "
			       "program %#llx is implausible", segname,
			       (unsigned long long)lo, (unsigned long long)hi,
			       (unsigned long long)prog);
	sec = gh_exe_section_at(b->s->exe, lk);
	if (sec == NULL || sec->data == NULL)
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: the "
			       "%s GC program %#llx is in no section of the "
			       "executable", segname, (unsigned long long)prog);
	p = sec->data + (lk - sec->addr);
	bits = gh_calloc((size_t)(nw + 8) / 8 + 1, 1);
	if (bits == NULL)
		return gh_ret_nomem(b);
	if (run_gcprog(p, (size_t)(sec->size - (lk - sec->addr)), bits,
		       nw) != 0) {
		free(bits);
		return gh_errf(&b->s->err, GOHEAP_ECORRUPT, "-p retained: the "
			       "%s GC program at %#llx does not decode",
			       segname, (unsigned long long)prog);
	}
	for (w = 0; w < nw; w++) {
		const dsym *sy;
		uint32_t j;
		char label[256];

		if (!((bits[w / 8] >> (w % 8)) & 1))
			continue;
		at = lo + 8 * w;
		if (gh_ret_word_at(b, &wb, at, hi, &v) != 0)
			continue;
		j = v != 0 ? gh_retained_find(b->r, v) : GH_RET_NONE;
		if (j == GH_RET_NONE)
			continue;
		sy = sym_at(b, at);
		if (sy == NULL || sy->addr < lo)
			sy = NULL;
		if ((sy != NULL ? sy->addr : at) != cur) {
			cur = sy != NULL ? sy->addr : at;
			if (sy != NULL)
				snprintf(label, sizeof(label), "%s", sy->name);
			else
				snprintf(label, sizeof(label), "%s+%#llx",
					 segname, (unsigned long long)(at - lo));
			rc = gh_ret_root_new(b, kind, cur, 0, label);
			if (rc != 0)
				break;
		}
		b->r->root_words[kind]++;
		rc = gh_ret_edge(b, j);
		if (rc != 0)
			break;
	}
	free(bits);
	return rc;
}

static int data_roots(rb *b)
{
	const gh_rtlayout *l = b->l;
	uint64_t md = gh_sym_moduledata(b->s->sym), v[6];
	unsigned off[6] = { l->md_data, l->md_edata, l->md_bss, l->md_ebss,
			    l->md_gcdata, l->md_gcbss };
	int i, rc;

	if (md == 0 || l->md_data == 0)
		return gh_errf(&b->s->err, GOHEAP_ENOSYM, "-p retained: "
			       "runtime.firstmoduledata not found");
	md += b->s->bias;
	for (i = 0; i < 6; i++) {
		rc = gh_mem_read_ptr(b->m, md + off[i], &v[i], "moduledata");
		if (rc != 0)
			return rc;
	}
	rc = load_syms(b, v[0], v[3] > v[1] ? v[3] : v[1]);
	if (rc == 0)
		rc = seg_roots(b, GH_ROOT_DATA, v[0], v[1], v[4]);
	if (rc == 0)
		rc = seg_roots(b, GH_ROOT_BSS, v[2], v[3], v[5]);
	return rc;
}

/* ---- specials (markrootSpans) ----------------------------------------------- */

#define MAX_SPECIALS (1u << 24)

/* A special's edges, gathered before its root node is made (none: no
 * node). */
typedef struct sedges {
	uint32_t *v;
	size_t n, cap;
} sedges;

static int sedge(rb *b, sedges *se, uint32_t j)
{
	if (j == GH_RET_NONE)
		return 0;
	if (gh_grow(&se->v, &se->cap, se->n + 1, sizeof(*se->v)))
		return gh_ret_nomem(b);
	se->v[se->n++] = j;
	return 0;
}

/*
 * Every in-use span's specials list: a finalizer roots its object's
 * referents (not the object: gcScanFinalizer) and its function; a
 * cleanup its function words (gcScanCleanup); a weak pointer its handle.
 * Each is a root node of its own, named after the object.
 */
static int special_roots(rb *b)
{
	const gh_rtlayout *l = b->l;
	gh_retained *r = b->r;
	size_t i;
	uint64_t seen = 0;
	sedges se = { NULL, 0, 0 };
	int rc = 0;

	if (l->ms_specials == 0)
		return 0;
	for (i = 0; i < b->nspl; i++) {
		uint64_t sp = b->spl[i].head;

		while (sp != 0 && seen++ < MAX_SPECIALS) {
			unsigned char h[64];
			uint64_t next, off, p, e, v;
			unsigned kind, k, nw;
			uint32_t j;
			const char *what;
			char label[256];

			if (gh_mem_read(b->m, sp, h, l->sp_size + 24,
					"special") != 0)
				break;
			next = gh_load(h, 8, b->m->big_endian);
			off = gh_load(h + l->sp_offset, l->sp_offset_size,
				      b->m->big_endian);
			kind = h[l->sp_kind];
			p = b->spl[i].base + (b->spl[i].elemsize ?
			    off / b->spl[i].elemsize * b->spl[i].elemsize : 0);
			j = gh_retained_find(r, p);
			nw = 0;
			what = NULL;
			if (kind == l->sk_finalizer) {
				what = "finalizer";
				nw = 1;
			} else if (l->sk_cleanup != 0 && kind == l->sk_cleanup) {
				what = "cleanup";
				nw = l->sp_cleanup_words;
			} else if (l->sk_weak != 0 && kind == l->sk_weak) {
				what = "weak handle";
				nw = 1;
			}
			se.n = 0;
			if (what != NULL && kind == l->sk_finalizer &&
			    j != GH_RET_NONE && !b->spl[i].noscan)
				for (e = r->off[j]; e < r->off[j + 1] && rc == 0;
				     e++)
					rc = sedge(b, &se, r->adj[e]);
			for (k = 0; what != NULL && k < nw && rc == 0; k++) {
				v = gh_load(h + l->sp_size + 8 * k, 8,
					    b->m->big_endian);
				rc = sedge(b, &se, v != 0 ?
					   gh_retained_find(r, v) :
					   GH_RET_NONE);
			}
			if (rc == 0 && se.n > 0) {
				snprintf(label, sizeof(label), "%s of 0x%llx %s",
					 what, (unsigned long long)p,
					 j != GH_RET_NONE ?
					 gh_retained_label(r, j) : "?");
				rc = gh_ret_root_new(b, GH_ROOT_FINALIZER, p, 0,
						     label);
				for (e = 0; e < se.n && rc == 0; e++) {
					r->root_words[GH_ROOT_FINALIZER]++;
					rc = gh_ret_edge(b, se.v[e]);
				}
			}
			if (rc != 0)
				break;
			sp = next;
		}
		if (rc != 0)
			break;
	}
	free(se.v);
	return rc;
}

/* ---- the Ps' tiny blocks (gcMarkTinyAllocs) ------------------------------- */

/* Each P's mcache.tiny, the block tiny allocations are carved from: the
 * GC marks it whatever points at it.  (mcache: tiny, tinyoffset,
 * tinyAllocs, 1.19-1.27; allp from the target: target.c.) */
static int tiny_roots(rb *b)
{
	const gh_rtlayout *l = b->l;
	uint64_t allp = b->s->addrs.allp, arr, len, i, pp, c, tiny;
	uint32_t j;
	char label[64];
	int rc;

	if (allp == 0 || !l->mstats_verified || l->p_mcache == 0 ||
	    l->mc_tinyallocs < 16 ||
	    gh_mem_read_ptr(b->m, allp, &arr, "runtime.allp") != 0 ||
	    gh_mem_read_ptr(b->m, allp + 8, &len, "runtime.allp") != 0 ||
	    len > 1u << 20)
		return 0;
	for (i = 0; i < len; i++) {
		if (gh_mem_read_ptr(b->m, arr + 8 * i, &pp, "allp[i]") != 0 ||
		    pp == 0 ||
		    gh_mem_read_ptr(b->m, pp + l->p_mcache, &c, "p.mcache") !=
		    0 || c == 0 ||
		    gh_mem_read_ptr(b->m, c + l->mc_tinyallocs - 16, &tiny,
				    "mcache.tiny") != 0 || tiny == 0)
			continue;
		j = gh_retained_find(b->r, tiny);
		if (j == GH_RET_NONE)
			continue;
		snprintf(label, sizeof(label), "P %llu's tiny block",
			 (unsigned long long)i);
		rc = gh_ret_root_new(b, GH_ROOT_TINY, c, 0, label);
		if (rc == 0)
			rc = gh_ret_edge(b, j);
		if (rc != 0)
			return rc;
		b->r->root_words[GH_ROOT_TINY]++;
	}
	return 0;
}

/* ---- reachability ---------------------------------------------------------- */

/* BFS from the roots, a kind at a time: via[] and tot's totals, or a
 * shortest path's parent[] (within the first kind that reaches the
 * node). */
static int bfs(const gh_retained *r, uint8_t *via, uint32_t *parent,
	       gh_retained *tot)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot + 1, e;
	uint32_t *q = malloc(nn * sizeof(uint32_t)), h, t = 0, k, i, w;
	uint8_t *seen = via;

	if (seen == NULL)
		seen = gh_calloc(nn, 1);
	if (q == NULL || seen == NULL) {
		free(q);
		if (seen != via)
			free(seen);
		return GOHEAP_ENOMEM;
	}
	if (parent != NULL)
		memset(parent, 0xff, nn * sizeof(uint32_t));
	for (k = 1; k < GH_ROOT_NKINDS; k++) {
		h = t;
		for (i = 0; i < r->nroot; i++) {
			if (r->roots[i].kind != k)
				continue;
			seen[r->nobj + i] = (uint8_t)k;
			if (parent != NULL)
				parent[r->nobj + i] = (uint32_t)(nn - 1);
			q[t++] = r->nobj + i;
		}
		while (h < t) {
			uint32_t v = q[h++];

			for (e = r->off[v]; e < r->off[v + 1]; e++) {
				w = r->adj[e];
				if (seen[w] != 0)
					continue;
				seen[w] = (uint8_t)k;
				q[t++] = w;
				if (parent != NULL) {
					parent[w] = v;
					continue;
				}
				tot->via_objects[k]++;
				tot->via_bytes[k] += gh_retained_size(r, w);
				tot->reach_objects++;
				tot->reach_bytes += gh_retained_size(r, w);
			}
		}
	}
	free(q);
	if (seen != via)
		free(seen);
	return 0;
}

static int mark(gh_retained *r)
{
	r->via = gh_calloc((uint64_t)r->nobj + r->nroot + 1, 1);
	if (r->via == NULL)
		return GOHEAP_ENOMEM;
	return bfs(r, r->via, NULL, r);
}

uint32_t *gh_retained_parents(const gh_retained *r)
{
	uint32_t *p = malloc(((uint64_t)r->nobj + r->nroot + 1) *
			     sizeof(uint32_t));

	if (p != NULL && bfs(r, NULL, p, NULL) != 0) {
		free(p);
		p = NULL;
	}
	return p;
}

int gh_retained_path(const gh_retained *r, const char *want, uint32_t *obj,
		     uint32_t **chain, uint32_t *n, gh_err *err)
{
	uint32_t v = GH_RET_NONE, i, *parent;
	char *end;
	unsigned long long a;

	*chain = NULL;
	*n = 0;
	if (want[0] == '0' && (want[1] == 'x' || want[1] == 'X')) {
		a = strtoull(want, &end, 16);
		if (*end != '\0')
			return gh_errf(err, GOHEAP_EINVAL, "--path %s: not an "
				       "address", want);
		v = gh_retained_find(r, a);
		if (v == GH_RET_NONE)
			return gh_errf(err, GOHEAP_EINVAL, "--path %s: no "
				       "allocated object there", want);
	} else {
		for (i = 0; i < r->nobj; i++)
			if (r->idom[i] != GH_RET_NONE &&
			    strcmp(gh_retained_label(r, i), want) == 0 &&
			    (v == GH_RET_NONE || r->ret[i] > r->ret[v]))
				v = i;
		if (v == GH_RET_NONE)
			return gh_errf(err, GOHEAP_EINVAL, "--path %s: no "
				       "reachable object of that type or "
				       "shape", want);
	}
	*obj = v;
	if (r->idom[v] == GH_RET_NONE)
		return 0;
	*chain = malloc(((size_t)r->nobj + 1) * sizeof(**chain));
	parent = gh_retained_parents(r);
	if (*chain == NULL || parent == NULL) {
		free(*chain);
		free(parent);
		*chain = NULL;
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	}
	for (i = v; i < r->nobj + r->nroot; i = parent[i])
		(*chain)[(*n)++] = i;
	free(parent);
	return 0;
}

/* ---- the collection ------------------------------------------------------ */

static int build(rb *b, gh_profile *p)
{
	gh_retained *r = b->r;
	double t0 = gh_now();
	gh_ret_frame *fr;
	uint32_t i;
	size_t k;
	int rc;
	gh_heap_sink sink = { obj_sink, span_sink, NULL, 0 };

	sink.arg = b;
	sink.tolerant = b->reads_only;
	rc = gh_heap_objects(p, b->s, r->types, &sink);
	if (rc != 0)
		return rc;
	rc = gh_ret_sort_objects(b);
	free(b->runs);
	b->runs = NULL;
	if (rc != 0)
		return rc;
	r->nobj = (uint32_t)b->nobjs;
	b->nti = r->types->n;
	b->ti = gh_calloc(r->types->n + 1, sizeof(*b->ti));
	b->buf = malloc(CHUNK);
	if (r->addr == NULL && (r->addr = malloc(sizeof(*r->addr))) == NULL)
		return gh_ret_nomem(b);
	if (!b->ti || !b->buf)
		return gh_ret_nomem(b);
	for (k = 0; k < b->nobjs; k++) {
		r->objects++;
		r->bytes += gh_retained_size(r, (uint32_t)k);
	}
	r->t_read = gh_now() - t0;
	/* edges of every object, then the roots' */
	if (gh_ret_node_end(b, 0) != 0)
		return gh_ret_nomem(b);
	r->off[0] = 0;
	for (i = 0; i < r->nobj; i++) {
		gh_ret_release(b, gh_retained_size(r, i), 0);
		rc = scan_object(b, i);
		if (rc == 0)
			rc = obj_end(b, i);
		if (rc != 0)
			return rc;
	}
	rc = pv_flush(b);
	if (rc != 0)
		return rc;
	b->cur_root = GH_RET_NONE;
	rc = data_roots(b);
	if (rc == 0)
		rc = special_roots(b);
	if (rc == 0)
		rc = tiny_roots(b);
	if (rc != 0)
		return rc;
	fr = malloc(GH_RET_MAX_FRAMES * sizeof(*fr));
	if (fr == NULL)
		return gh_ret_nomem(b);
	rc = gh_ret_stack_roots(b, fr);
	free(fr);
	if (rc == 0)
		rc = gh_ret_queue_roots(b);
	if (rc != 0)
		return rc;
	if (b->cur_root != GH_RET_NONE) {
		rc = gh_ret_node_end(b, (uint64_t)r->nobj + b->cur_root);
		if (rc != 0)
			return rc;
	}
	/* the super-root: an edge to every root */
	for (i = 0; i < r->nroot; i++) {
		rc = gh_ret_edge(b, r->nobj + i);
		if (rc != 0)
			return rc;
	}
	rc = gh_ret_node_end(b, (uint64_t)r->nobj + r->nroot);
	if (rc != 0)
		return rc;
	rc = gh_ret_infer(b);
	if (rc != 0)
		return rc;
	gh_ret_release(b, 0, 1);
	r->t_graph = gh_now() - t0;
	return 0;
}

/* The builder's state for r, and its release. */
static void rb_setup(rb *b, gh_target *s, gh_retained *r)
{
	memset(b, 0, sizeof(*b));
	b->s = s;
	b->r = r;
	b->m = &s->mem;
	b->l = s->lay;
	b->cur_root = GH_RET_NONE;
}

static void rb_free(rb *b)
{
	size_t k;

	free(b->runs);
	if (b->ti != NULL)
		for (k = 0; k < b->nti; k++)
			free(b->ti[k].mask);
	free(b->ti);
	free(b->buf);
	free(b->syms);
	free(b->spl);
	b->runs = NULL;
	b->ti = NULL;
	b->buf = NULL;
	b->syms = NULL;
	b->spl = NULL;
}

/* retlive.c's passes: the running one into a graph thrown away, the
 * final one (from the snapshot) into b's. */
typedef struct lpass {
	rb *b;
	gh_profile *p;
} lpass;

static int live_pass(void *arg, int final)
{
	lpass *x = arg;
	gh_retained *r;
	rb sb;
	int rc;

	if (final)
		return build(x->b, x->p);
	r = gh_calloc(1, sizeof(*r));
	if (r != NULL)
		r->types = gh_calloc(1, sizeof(*r->types));
	if (r == NULL || r->types == NULL) {
		gh_retained_free(r);
		return gh_errf(&x->b->s->err, GOHEAP_ENOMEM, "out of memory");
	}
	r->leak = x->b->r->leak;
	rb_setup(&sb, x->b->s, r);
	sb.reads_only = 1;
	rc = build(&sb, x->p);
	rb_free(&sb);
	gh_retained_free(r);
	return rc;
}

/* retained.h: a graph and its arrays */
/* the retained part's free function (gh_profile_set_part) */
static void retained_free(void *r)
{
	gh_retained_free(r);
}

/* leak: for -p goroutineleak (retleak.c), the goroutines' waits recorded
 * and no dominators (the caller judges the graph). */
static int collect(gh_profile *p, gh_target *s, int leak,
		   gh_ret_labeller label)
{
	const gh_rtlayout *l = s->lay;
	const char *hook = gh_test_hook("GOHEAP_TEST_RETAINED_SNAP");
	gh_retained *r;
	rb b;
	lpass lp;
	double t0 = 0, t1;
	int rc, stop;

	if (!l->heap_verified || s->mem.ptr_size != 8 ||
	    (!l->heap_headers && l->arena_bits == 0) || l->ty_gcdata == 0 ||
	    !l->g_verified)
		return gh_errf(&s->err, GOHEAP_EUNSUPPORTED, "-p retained: "
			       "go1.%d on a %u-bit target is not supported "
			       "(the object graph reads go1.19 and go1.21 to "
			       "go1.27 on 64-bit targets)",
			       s->ver.minor, s->mem.ptr_size * 8);
	r = gh_calloc(1, sizeof(*r));
	if (r == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	gh_profile_set_part(p, GH_PART_RETAINED, r, retained_free);
	r->types = gh_calloc(1, sizeof(*r->types));
	if (r->types == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	/* the goroutines' waits, always: -p retained names leaked
	 * goroutines' roots (gh_leak_label_roots) */
	r->leak = l->g_waiting != 0 || leak;
	rb_setup(&b, s, r);
	p->stop.state = gh_target_snapshot(s);
	stop = p->stop.state == GH_SNAP_STOPPED;
	if (stop && gh_ret_live_can(s) &&
	    (hook == NULL || strcmp(hook, "whole") != 0)) {
		/* read running, stopped only to copy what was read */
		lp.b = &b;
		lp.p = p;
		rc = gh_ret_live(s, p, &r->snap, live_pass, &lp);
	} else {
		/* stopped from the first read to the last */
		if (stop) {
			rc = gh_target_stop(s, "-p retained", "snapshot", &t0);
			if (rc != 0)
				goto out;
			gh_mem_invalidate(b.m);
		}
		rc = build(&b, p);
		if (stop) {
			t1 = gh_now();
			rc = gh_target_resume(s, p, t0, t1, rc);
		}
	}
	if (rc != 0 || leak)
		goto out;
	t0 = gh_now();
	if (r->leak && label != NULL && label(r, l, &r->leaked) != 0) {
		rc = gh_ret_nomem(&b);
		goto out;
	}
	if (mark(r) != 0) {
		rc = gh_ret_nomem(&b);
		goto out;
	}
	rc = gh_retained_dominators(r);
	if (rc != 0) {
		rc = rc == GOHEAP_EIO ? gh_errf(&s->err, GOHEAP_EIO, "-p "
						"retained: the graph's temporary "
						"file in $TMPDIR could not be "
						"read back") :
		     gh_ret_nomem(&b);
		goto out;
	}
	r->t_dom = gh_now() - t0;
out:
	rb_free(&b);
	return rc;
}

int gh_retained_collect(gh_profile *p, gh_target *s, gh_ret_labeller label)
{
	return collect(p, s, 0, label);
}

int gh_retained_collect_leak(gh_profile *p, gh_target *s)
{
	return collect(p, s, 1, NULL);
}

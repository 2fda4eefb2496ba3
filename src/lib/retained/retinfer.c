/*
 * retinfer.c - the types of -p retained's headerless objects, inferred
 * from the typed objects that point at them.
 *
 * On go1.22+ an object has its type in the heap only with a malloc header
 * (pointerful, over 512 B) or as a large span's largeType; the others are
 * shapes.  From every object with an exact type, each pointer word's
 * static type (internal/abi/type.go) says what it points at:
 *   - a pointer (PtrType.Elem), a slice's data word (SliceType.Elem: an
 *     array of them), a struct's fields (StructType.Fields at their
 *     offsets), an array's elements (ArrayType.Elem x Len);
 *   - an interface: its type word (eface) or its itab's Type (iface) is
 *     the value's dynamic type: a direct-interface type is the data word
 *     itself, any other is pointed at by it (a boxed copy);
 *   - a map: its header (runtime.hmap; the swiss internal/runtime/maps.Map
 *     from 1.24) is typed with the map's type; an hmap's buckets and
 *     oldbuckets are arrays of MapType.Bucket, a bucket's overflow word
 *     points at another bucket; a swiss map's directory (dirLen tables, or
 *     one group when dirLen is 0) leads to each table's groups, arrays of
 *     the map type's Group;
 *   - a channel: its hchan is typed with the chan type; hchan.buf, when an
 *     allocation of its own, is an array of ChanType.Elem;
 *   - a func: a closure in the heap (funcval: its function's PC, then
 *     what it captured) is named after its function (pclntab).
 * A pointee is typed when the pointer is at its start and the type fits
 * its slot: no larger than the slot, pointerful exactly where the slot's
 * heap bits are (the first element's mask equal to the type's, the rest a
 * subset of it repeated), or no pointers for a noscan slot (a type
 * under 16 B not in a 16-byte slot: those are the tiny allocator's
 * blocks, shared by several objects).
 * Typed objects propagate further (breadth-first), so a list hanging from
 * one typed field is typed to its end.  An exact type is never replaced;
 * of two inferences of one object the first is kept and the other
 * counted (a conflict).  Roots (data, bss, stacks) have no types without
 * DWARF: nothing is inferred from them.
 *
 * The inferred objects get rows of their own in the histogram, named
 * "T (inferred)", never mixed with the exact rows.  It reads the objects'
 * words: on a live target in both of retlive.c's passes (the running one
 * records what it reads, so that the stop copies it), the result kept from
 * the final one, built from the copy after the resume.
 *
 * A word's pointee is taken from the scan's edges (pointee()): the scan
 * made one of each of a holder's pointer words that points into an
 * object, in the words' order, and the words are read here in that order;
 * the search (gh_retained_find) only where the next edge is not the
 * word's.
 * The next holders' pointees are prefetched; an object's inferred type is
 * kept in its r->ent (INF_BIT) until the rows are made.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained_int.h"

#define KIND_MASK 0x1fu
#define K_ARRAY 17u
#define K_CHAN 18u
#define K_INTERFACE 20u
#define K_MAP 21u
#define K_PTR 22u
#define K_SLICE 23u
#define K_FUNC 19u
#define K_STRING 24u
#define K_STRUCT 25u
#define K_UNSAFEPTR 26u
#define CLOSURE_KEY ((uint64_t)1 << 63)  /* a closure's pseudo-type: its
                                            * function's entry | this */
#define KIND_DIRECT 0x20u          /* abi.KindDirectIface (<= 1.25) */
#define TFLAG_DIRECT 0x20u         /* abi.TFlagDirectIface (1.26+) */
#define TFLAG_ONDEMAND 0x10u       /* abi.TFlagGCMaskOnDemand */
#define MAX_FIELDS 4096u
#define MAX_DIR (1u << 20)         /* a swiss map's directory entries */
#define STEP_BUDGET ((uint64_t)1 << 30)
/* An object's inferred type, while the inference runs, in its r->ent (a
 * row index below INF_BIT): INF_BIT | (type index) << 2 | mode, one array
 * read for whether it is typed and by what (a cache miss an object). */
#define INF_BIT 0x80000000u
#define INF_MAXTY (1u << 29)
#define INF_ENC(ty, mode) (INF_BIT | ((ty) - 1) << 2 | (uint32_t)(mode))
#define INF_TY(en) ((((en) & ~INF_BIT) >> 2) + 1)
#define INF_MODE(en) ((int)((en) & 3u))
#define PF_EDGES 8u                /* a holder's edges prefetched ahead */
#define PF_HOLDERS 8u              /* a level's holders prefetched ahead */
#define PREFETCH(p) __builtin_prefetch(p)

enum { M_PLAIN, M_MAP, M_CHAN, M_NMODES };

typedef struct ifield {
	uint64_t typ, off;
	int ovf;                   /* a map bucket's overflow word */
} ifield;

/* A type read once. */
typedef struct ity {
	uint64_t addr, size, ptrbytes, elem, len, group;
	uint64_t mask;             /* the first 64 words' pointer bits */
	ifield *f;
	uint32_t nf;
	uint8_t kind, direct, ok, eface, maskok;
	uint8_t closure;           /* addr: a closure's function's entry */
	uint8_t mapkind;           /* its Group/Bucket: 1 bucket, 2 group */
	uint32_t row[M_NMODES];    /* its inferred rows + 1 */
	/* the lowest object inferred of it (index + 1) and that object's
	 * shape row: the shape of its inferred row */
	uint32_t like[M_NMODES], likerow[M_NMODES];
} ity;

typedef struct inf {
	rb *b;
	gh_retained *r;
	gh_mem *m;
	const gh_rtlayout *l;
	int big;
	ity *ty;
	size_t nty, capty;
	gh_hmap tidx;              /* type address -> index + 1 */
	uint32_t *q;
	size_t qt;
	uint64_t *bits;            /* nobj bits, zero between levels */
	uint32_t ek, eend;         /* the scanned object's edges left */
	int noedges;               /* no edges: the search for every one */
	uint64_t steps;
	int oom;
} inf;

/* Object j's bytes (the graph's one per-object field read besides addr
 * and ent). */
static inline uint64_t osize(const gh_retained *r, uint32_t j)
{
	return gh_retained_size(r, j);
}

static uint64_t ld(const inf *x, const unsigned char *p)
{
	return gh_load(p, 8, x->big);
}

static int in_types(const inf *x, uint64_t a, uint64_t n)
{
	const gh_types *t = x->r->types;

	return a % 8 == 0 && a >= t->types_lo && a < t->types_hi &&
	       t->types_hi - a >= n;
}

/* The type at a (index + 1 into x->ty), 0 when it is not one. */
static uint32_t ty_get(inf *x, uint64_t a)
{
	const gh_rtlayout *l = x->l;
	uint64_t v = gh_hmap_get(&x->tidx, a), gcdata, fa, n, i;
	unsigned char h[72], fs[32], mb[8];
	ity *t;
	uint32_t k;
	char *name;

	if (v != 0)
		return x->ty[v - 1].ok ? (uint32_t)v : 0;
	if (!in_types(x, a, 56) || x->nty + 1 >= INF_MAXTY)
		return 0;
	if (gh_grow(&x->ty, &x->capty, x->nty + 1, sizeof(*x->ty)) != 0 ||
	    gh_hmap_put(&x->tidx, a, x->nty + 1) != 0) {
		x->oom = 1;
		return 0;
	}
	k = (uint32_t)x->nty++;
	t = &x->ty[k];
	memset(t, 0, sizeof(*t));
	t->addr = a;
	memset(h, 0, sizeof(h));
	if (gh_mem_read(x->m, a, h, in_types(x, a, sizeof(h)) ? sizeof(h) : 56,
			"abi.Type") != 0)
		return 0;
	t->size = ld(x, h + l->ty_size);
	t->ptrbytes = ld(x, h + l->ty_ptrbytes);
	t->kind = h[l->ty_kind] & KIND_MASK;
	t->direct = l->ti_direct_tflag ? (h[l->ty_tflag] & TFLAG_DIRECT) != 0 :
		    (h[l->ty_kind] & KIND_DIRECT) != 0;
	gcdata = ld(x, h + l->ty_gcdata);
	if (t->size > ((uint64_t)1 << 40) || t->ptrbytes > t->size ||
	    t->ptrbytes % 8 != 0)
		return 0;
	if (t->ptrbytes != 0 && t->size <= 512 &&
	    !(h[l->ty_tflag] & TFLAG_ONDEMAND) && gcdata != 0 &&
	    gh_mem_read(x->m, gcdata, mb, (size_t)((t->ptrbytes / 8 + 7) / 8),
			"GC mask") == 0) {
		for (i = 0; i < t->ptrbytes / 8; i++)
			if ((mb[i / 8] >> (i % 8)) & 1)
				t->mask |= (uint64_t)1 << i;
		t->maskok = 1;
	}
	switch (t->kind) {
	case K_PTR:
	case K_SLICE:
	case K_CHAN:
		t->elem = ld(x, h + l->ti_elem);
		break;
	case K_ARRAY:
		t->elem = ld(x, h + l->ti_elem);
		t->len = ld(x, h + l->ti_len);
		break;
	case K_INTERFACE:
		t->eface = ld(x, h + l->ti_methods + 8) == 0;
		break;
	case K_MAP:
		t->group = ld(x, h + l->ti_map_group);
		break;
	case K_STRUCT:
		fa = ld(x, h + l->ti_fields);
		n = ld(x, h + l->ti_fields + 8);
		if (t->ptrbytes == 0)
			break;
		if (n > MAX_FIELDS || l->ti_sf_size > sizeof(fs))
			return 0;
		name = gh_types_name(x->r->types, x->m, l, a);
		if (name != NULL && strncmp(name, "map.bucket[", 11) == 0)
			t->mapkind = 1;
		free(name);
		for (i = 0; i < n; i++) {
			uint64_t ft, fo, fp;
			unsigned char fh[24];

			if (gh_mem_read(x->m, fa + l->ti_sf_size * i, fs,
					l->ti_sf_size, "abi.StructField") != 0)
				return 0;
			ft = ld(x, fs + l->ti_sf_typ);
			fo = ld(x, fs + l->ti_sf_off);
			if (!in_types(x, ft, 24) ||
			    gh_mem_read(x->m, ft, fh, 24, "abi.Type") != 0)
				return 0;
			fp = ld(x, fh + l->ty_ptrbytes);
			if (fp == 0 || fo % 8 != 0 || fo >= t->size)
				continue;
			if (gh_grow(&t->f, &(size_t){ t->nf }, t->nf + 1,
				    sizeof(*t->f)) != 0) {
				x->oom = 1;
				return 0;
			}
			t->f[t->nf].typ = ft;
			t->f[t->nf].off = fo;
			t->f[t->nf].ovf = t->mapkind == 1 &&
					  fo + 8 == t->size &&
					  (fh[l->ty_kind] & KIND_MASK) == 26u;
			t->nf++;
		}
		break;
	default:
		break;
	}
	t->ok = 1;
	return k + 1;
}

/*
 * The pseudo-type of the closures (funcval: the function's PC, then what
 * it captured) of the function at pc (index + 1), 0 when pc is in no
 * function.  Named after it; what they captured is untyped.
 */
static uint32_t closure_get(inf *x, uint64_t pc)
{
	uint64_t key = pc | CLOSURE_KEY, v;
	ity *t;

	if (pc == 0 || (pc & CLOSURE_KEY) || x->nty + 1 >= INF_MAXTY)
		return 0;
	v = gh_hmap_get(&x->tidx, key);
	if (v != 0)
		return x->ty[v - 1].ok ? (uint32_t)v : 0;
	if (gh_grow(&x->ty, &x->capty, x->nty + 1, sizeof(*x->ty)) != 0 ||
	    gh_hmap_put(&x->tidx, key, x->nty + 1) != 0) {
		x->oom = 1;
		return 0;
	}
	t = &x->ty[x->nty++];
	memset(t, 0, sizeof(*t));
	t->addr = pc;
	t->closure = 1;
	t->size = 8;
	t->kind = K_FUNC;
	t->ok = gh_sym_funcforpc_name(x->b->s->sym, pc) != NULL;
	return t->ok ? (uint32_t)x->nty : 0;
}

/* Does type t fit object j's slot (its shape row e)? */
static int fits(const inf *x, const ity *t, uint32_t j, const gh_tentry *e,
		int mode)
{
	uint64_t sz = osize(x->r, j), w, tw;

	if (mode != M_PLAIN)
		return e->kind == GH_TK_PTRS && sz >= 48;
	if (t->closure)            /* its first word is the function's PC */
		return (e->kind == GH_TK_PTRS && (e->mask & 1) == 0) ||
		       e->kind == GH_TK_NOSCAN;
	if (t->size == 0 || t->size > sz)
		return 0;
	if (e->kind == GH_TK_NOSCAN || e->kind == GH_TK_LARGE_NOSCAN)
		/* a 16-byte noscan slot may be a tiny block shared by
		 * several smaller objects */
		return t->ptrbytes == 0 && (t->size >= 16 || sz > 16);
	if (e->kind != GH_TK_PTRS || t->ptrbytes == 0 || !t->maskok ||
	    sz > 512)
		return 0;
	tw = t->size / 8;
	for (w = 0; w < sz / 8 && w < 64; w++) {
		int sb = (e->mask >> w) & 1, tb = (t->mask >> (w % tw)) & 1;

		if (w < tw ? sb != tb : sb && !tb)
			return 0;
	}
	return 1;
}

/* What infer() reads of object j (< r->nobj), asked for ahead: the
 * pointees are spread over the heap, each a cache miss, overlapped this
 * way.  (Macros: GCC drops a call to a static function that only
 * prefetches, as it would a pure function's.) */
#define PREFETCH_OBJ(x, j)                                               \
	do {                                                             \
		uint32_t pj_ = (j);                                      \
		if (pj_ < (x)->r->nobj) {                                \
			PREFETCH(&(x)->r->addr[pj_]);                    \
			PREFETCH(&(x)->r->ent[pj_]);                     \
			PREFETCH(&(x)->r->size8[pj_]);                   \
		}                                                        \
	} while (0)

/* Does the scanned object's next edge go to the object containing v? */
static int edge_is(const inf *x, uint64_t v)
{
	const gh_retained *r = x->r;
	uint32_t j;
	uint64_t a;

	if (x->ek >= x->eend)
		return 0;
	j = r->adj[x->ek];
	if (j >= r->nobj)
		return 0;
	a = r->addr[j];
	return v == a || (v > a && v - a < gh_retained_size(r, j));
}

/*
 * The object pointer word v (of the object being scanned) points into, or
 * GH_RET_NONE.  The graph's scan made an edge of every pointer word of the
 * object that points into an object, in the words' order, and the words
 * asked for here come in that order: the next edge is this word's when it
 * contains v (objects do not overlap: it is then gh_retained_find(v)).
 * Otherwise (a word with no edge, or one the inference passed over that
 * had one) the search finds it, and the edges move past its first edge
 * to that object: the cursor is never past the next word's edge, so an
 * edge that matches is that word's.
 */
static uint32_t pointee(inf *x, uint64_t v)
{
	const gh_retained *r = x->r;
	uint32_t j, k;

	if (v == 0)
		return GH_RET_NONE;
	if (x->ek + PF_EDGES < x->eend)
		PREFETCH_OBJ(x, r->adj[x->ek + PF_EDGES]);
	if (edge_is(x, v))
		return r->adj[x->ek++];
	j = gh_retained_find(r, v);
	if (j != GH_RET_NONE)
		for (k = x->ek; k < x->eend && k - x->ek < 64; k++)
			if (r->adj[k] == j) {
				x->ek = k + 1;
				break;
			}
	return j;
}

/* A pointer word the inference does not follow (a string's data, an
 * unsafe.Pointer, an interface's type word): past its edge, if it has
 * one. */
static void pass_word(inf *x, uint64_t v)
{
	if (v != 0 && edge_is(x, v))
		x->ek++;
}

/* The pointee j (GH_RET_NONE: none) of pointer p, by the static type at
 * ty (index + 1). */
static void infer(inf *x, uint64_t p, uint32_t j, uint32_t ty, int mode)
{
	gh_retained *r = x->r;
	const gh_tentry *e;
	uint32_t cur, en = INF_ENC(ty, mode);
	ity *t;

	if (p == 0 || ty == 0 || j == GH_RET_NONE || r->addr[j] != p)
		return;
	cur = r->ent[j];
	if (cur & INF_BIT) {
		if (cur != en)
			r->infer_conflicts++;
		return;
	}
	e = &r->types->e[cur];
	if (e->type != 0)
		return;                    /* exact: never replaced */
	t = &x->ty[ty - 1];
	if (!fits(x, t, j, e, mode))
		return;
	if (t->like[mode] == 0 || j < t->like[mode] - 1) {
		t->like[mode] = j + 1;
		t->likerow[mode] = cur;
	}
	r->ent[j] = en;
	x->q[x->qt++] = j;
}

/* The value of type ty (index + 1) at address at, inside object o's
 * [lo, hi): the pointees of its pointer words. */
static void walk(inf *x, wbuf *wb, uint32_t ty, uint64_t at, uint64_t hi,
		 unsigned depth)
{
	ity *t;
	uint64_t v, w1, i, dyn;
	uint32_t d;

	if (ty == 0 || depth > 32 || x->steps++ > STEP_BUDGET)
		return;
	t = &x->ty[ty - 1];
	if (t->ptrbytes == 0 || at + 8 > hi)
		return;
	switch (t->kind) {
	case K_PTR:
	case K_SLICE:
		if (gh_ret_word_at(x->b, wb, at, hi, &v) == 0) {
			uint32_t j = pointee(x, v);

			infer(x, v, j, ty_get(x, x->ty[ty - 1].elem), M_PLAIN);
		}
		return;
	case K_MAP:
	case K_CHAN:
		if (gh_ret_word_at(x->b, wb, at, hi, &v) == 0)
			infer(x, v, pointee(x, v), ty,
			      t->kind == K_MAP ? M_MAP : M_CHAN);
		return;
	case K_INTERFACE:
		if (gh_ret_word_at(x->b, wb, at, hi, &v) != 0)
			return;
		pass_word(x, v);
		if (v == 0 || gh_ret_word_at(x->b, wb, at + 8, hi, &w1) != 0)
			return;
		dyn = v;
		if (!t->eface && gh_mem_read_ptr(x->m, v + x->l->ti_itab_type,
						 &dyn, "itab") != 0)
			return;
		d = ty_get(x, dyn);
		if (d == 0)
			return;
		if (x->ty[d - 1].direct)
			walk(x, wb, d, at + 8, hi, depth + 1);
		else
			infer(x, w1, pointee(x, w1), d, M_PLAIN);
		return;
	case K_ARRAY: {
		uint64_t es, n = t->len, tsz = t->size;
		uint32_t el = ty_get(x, t->elem);   /* may move x->ty */

		if (el == 0)
			return;
		es = x->ty[el - 1].size;
		if (es == 0 || n > tsz / es || x->ty[el - 1].ptrbytes == 0)
			return;
		/* within the object (a hostile Len ends there) */
		for (i = 0; i < n && i <= (hi - at - 8) / es &&
		     x->steps <= STEP_BUDGET; i++)
			walk(x, wb, el, at + i * es, hi, depth + 1);
		return;
	}
	case K_STRUCT:
		for (i = 0; i < x->ty[ty - 1].nf; i++) {
			const ifield *f = &x->ty[ty - 1].f[i];

			if (f->ovf) {
				if (gh_ret_word_at(x->b, wb, at + f->off, hi,
						   &v) == 0)
					infer(x, v, pointee(x, v), ty, M_PLAIN);
				continue;
			}
			walk(x, wb, ty_get(x, f->typ), at + f->off, hi,
			     depth + 1);
		}
		return;
	case K_FUNC:
		/* a closure: the object's first word is its function's PC */
		if (gh_ret_word_at(x->b, wb, at, hi, &v) == 0 && v != 0) {
			uint32_t j = pointee(x, v);

			if (j != GH_RET_NONE && x->r->addr[j] == v &&
			    gh_mem_read_ptr(x->m, v, &w1, "funcval") == 0)
				infer(x, v, j, closure_get(x, w1), M_PLAIN);
		}
		return;
	case K_STRING:
	case K_UNSAFEPTR:
		/* nothing typed, but their edges passed */
		if (gh_ret_word_at(x->b, wb, at, hi, &v) == 0)
			pass_word(x, v);
		return;
	default:
		return;
	}
}

/* infer() of a word read outside the scanned object's order. */
static void infer_found(inf *x, uint64_t p, uint32_t ty, int mode)
{
	if (p != 0 && ty != 0)
		infer(x, p, gh_retained_find(x->r, p), ty, mode);
}

/* A map's header (mode M_MAP) of map type ty: its buckets or groups. */
static void map_header(inf *x, uint32_t ty, uint32_t j)
{
	const gh_rtlayout *l = x->l;
	uint64_t a = x->r->addr[j], v, n, i, tab, last = 0;
	uint32_t g = ty_get(x, x->ty[ty - 1].group);
	char *name;
	int swiss = l->ti_swiss;

	if (g == 0)
		return;
	if (x->ty[g - 1].mapkind == 0) {
		name = gh_types_name(x->r->types, x->m, l, x->ty[g - 1].addr);
		x->ty[g - 1].mapkind = name != NULL &&
			strncmp(name, "map.bucket[", 11) == 0 ? 1 : 2;
		free(name);
	}
	swiss = x->ty[g - 1].mapkind == 2;
	if (!swiss) {
		if (gh_mem_read_ptr(x->m, a + l->ti_hmap_buckets, &v,
				    "hmap") == 0)
			infer_found(x, v, g, M_PLAIN);
		if (gh_mem_read_ptr(x->m, a + l->ti_hmap_oldbuckets, &v,
				    "hmap") == 0)
			infer_found(x, v, g, M_PLAIN);
		return;
	}
	if (gh_mem_read_ptr(x->m, a + l->ti_smap_dirptr, &v, "maps.Map") != 0 ||
	    gh_mem_read_ptr(x->m, a + l->ti_smap_dirlen, &n, "maps.Map") != 0)
		return;
	if (n == 0) {
		infer_found(x, v, g, M_PLAIN);
		return;
	}
	for (i = 0; i < n && i < MAX_DIR; i++) {
		uint64_t data;

		if (gh_mem_read_ptr(x->m, v + 8 * i, &tab, "map directory") != 0)
			return;
		if (tab == 0 || tab == last)
			continue;
		last = tab;
		if (gh_mem_read_ptr(x->m, tab + l->ti_table_groups, &data,
				    "maps.table") == 0)
			infer_found(x, data, g, M_PLAIN);
	}
}

/* A channel's hchan (mode M_CHAN) of chan type ty: its buffer, when an
 * allocation of its own. */
static void chan_header(inf *x, uint32_t ty, uint32_t j)
{
	uint64_t v;

	if (gh_mem_read_ptr(x->m, x->r->addr[j] + x->l->ti_hchan_buf, &v,
			    "hchan") != 0 || gh_retained_find(x->r, v) == j)
		return;
	infer_found(x, v, ty_get(x, x->ty[ty - 1].elem), M_PLAIN);
}

/* Object j's pointees by its type ty: exact (hdr: a malloc header's
 * bytes first) or inferred (mode). */
static void scan(inf *x, uint32_t j, uint32_t ty, int mode, uint64_t hdr)
{
	gh_retained *r = x->r;
	uint64_t a = r->addr[j] + hdr, hi = r->addr[j] + osize(r, j), el;
	uint64_t ts = x->ty[ty - 1].size;
	wbuf wb = { 0, 0 };

	/* a core's pages read are dropped as the walk's and the scan's are
	 * (each level goes forward through the heap) */
	gh_ret_release(x->b, osize(r, j), 0);
	/* its edges, as the scan made them (none: the search finds every
	 * pointee) */
	x->ek = x->eend = 0;
	if (!x->noedges) {
		x->ek = r->off[j];
		x->eend = r->off[j + 1];
	}
	if (mode == M_MAP) {
		map_header(x, ty, j);
		return;
	}
	if (mode == M_CHAN) {
		chan_header(x, ty, j);
		return;
	}
	if (ts == 0 || x->ty[ty - 1].ptrbytes == 0)
		return;
	/* the window reads up to the object's end: a chunk of elements */
	for (el = a; el + ts <= hi && x->steps <= STEP_BUDGET; el += ts)
		walk(x, &wb, ty, el, hi, 0);
}

/* The row of inferred type ty in mode (index into r->types), made on
 * first use with the shape of row `like` (an index: the rows move as
 * they grow); GH_RET_NONE when out of memory. */
static uint32_t row_of(inf *x, uint32_t ty, int mode, uint32_t like)
{
	gh_types *t = x->r->types;
	ity *it = &x->ty[ty - 1];
	gh_tentry *e;
	char *name, buf[64];
	size_t n;
	int named;

	if (it->row[mode] != 0)
		return it->row[mode] - 1;
	if (gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) != 0)
		return GH_RET_NONE;
	if (it->closure) {
		const char *fn = gh_sym_funcforpc_name(x->b->s->sym, it->addr);
		gh_buf nb = GH_BUF_INIT;
		size_t len;

		gh_buf_printf(&nb, "closure %s", fn != NULL ? fn : "?");
		gh_buf_putc(&nb, '\0');
		name = nb.oom ? NULL : (char *)gh_buf_detach(&nb, &len);
		gh_buf_free(&nb);
		if (name == NULL)
			return GH_RET_NONE;
	} else
		name = gh_types_name(t, x->m, x->l, it->addr);
	named = name != NULL;
	if (name == NULL) {
		snprintf(buf, sizeof(buf), "type 0x%llx",
			 (unsigned long long)it->addr);
		name = gh_strdup(buf);
		if (name == NULL)
			return GH_RET_NONE;
	}
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	n = strlen(name);
	e->name = malloc(n + sizeof(" (inferred)"));
	e->shape = gh_strdup(t->e[like].shape != NULL ? t->e[like].shape : "?");
	if (e->name == NULL || e->shape == NULL) {
		free(e->name);
		free(e->shape);
		free(name);
		return GH_RET_NONE;
	}
	memcpy(e->name, name, n);
	memcpy(e->name + n, " (inferred)", sizeof(" (inferred)"));
	free(name);
	e->type = it->closure ? it->addr | CLOSURE_KEY : it->addr;
	e->kind = t->e[like].kind;
	e->size = t->e[like].size;
	e->mask = t->e[like].mask;
	e->named = named;
	e->inferred = 1;
	it->row[mode] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

/*
 * Before the level's holder h is scanned: the CSR offsets of the holder
 * 3 x PF_HOLDERS ahead, the edges of the one 2 x ahead and the first
 * pointees of the one PF_HOLDERS ahead are asked for (each step needs
 * the one before it in the cache), so that a holder's pointees are there
 * when it is scanned.
 */
#define PREFETCH_LEVEL(x, h, lend)                                        \
	do {                                                              \
		const gh_retained *pr_ = (x)->r;                          \
		const uint32_t *pq_ = (x)->q;                             \
		uint32_t pk_, pe_;                                        \
		if (!(x)->noedges) {                                      \
			if ((h) + 3 * PF_HOLDERS < (lend))                \
				PREFETCH(&pr_->off[pq_[(h) +              \
						       3 * PF_HOLDERS]]); \
			if ((h) + 2 * PF_HOLDERS < (lend))                \
				PREFETCH(&pr_->adj[pr_->off[pq_[(h) +     \
						       2 * PF_HOLDERS]]]);\
			if ((h) + PF_HOLDERS < (lend)) {                  \
				pk_ = pr_->off[pq_[(h) + PF_HOLDERS]];    \
				pe_ = pr_->off[pq_[(h) + PF_HOLDERS] + 1];\
				if (pe_ - pk_ > PF_EDGES)                 \
					pe_ = pk_ + PF_EDGES;             \
				for (; pk_ < pe_; pk_++)                  \
					PREFETCH_OBJ(x, pr_->adj[pk_]);   \
			}                                                 \
		}                                                         \
	} while (0)

static int idx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A level's n objects (distinct indexes) in address order: through the
 * bitmap when they are dense enough (a word of it for at most 4 of them:
 * no comparisons), else qsort. */
static void level_sort(inf *x, uint32_t *q, size_t n)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t i, w, k = 0;

	for (i = 0; i < n; i++) {
		lo = q[i] < lo ? q[i] : lo;
		hi = q[i] > hi ? q[i] : hi;
	}
	if (x->bits == NULL || (hi - lo) / 64 > 4 * n) {
		qsort(q, n, sizeof(*q), idx_cmp);
		return;
	}
	for (i = 0; i < n; i++)
		x->bits[q[i] / 64] |= (uint64_t)1 << (q[i] % 64);
	for (w = lo / 64; w <= hi / 64; w++) {
		uint64_t v = x->bits[w];

		x->bits[w] = 0;
		while (v != 0) {
			q[k++] = (uint32_t)(w * 64 + (unsigned)__builtin_ctzll(v));
			v &= v - 1;
		}
	}
}

int gh_ret_infer(rb *b)
{
	gh_retained *r = b->r;
	inf x;
	uint32_t i, ty;
	size_t h;
	int rc = 0;
	double t0;

	if (b->l->ti_elem == 0 || !b->l->heap_headers || r->nobj == 0 ||
	    r->types->n >= INF_BIT) {
		r->infer_none = 1;
		return 0;
	}
	memset(&x, 0, sizeof(x));
	x.b = b;
	x.r = r;
	x.m = b->m;
	x.l = b->l;
	x.big = b->m->big_endian;
	x.noedges = r->off == NULL || r->adj == NULL;
	t0 = gh_now();
	x.q = malloc((size_t)r->nobj * sizeof(*x.q));
	/* (without it, qsort) */
	x.bits = gh_calloc(((size_t)r->nobj + 63) / 64, sizeof(*x.bits));
	if (x.q == NULL) {
		rc = gh_ret_nomem(b);
		goto out;
	}
	/* the exactly typed objects in address order, then what they type,
	 * a breadth-first level at a time, each level in address order (the
	 * objects' indexes: they are sorted by address), so that the reads
	 * go forward through the target's memory */
	for (i = 0; i < r->nobj && !x.oom; i++) {
		const gh_tentry *e;

		if (r->ent[i] & INF_BIT)
			continue;          /* inferred already: not exact */
		e = &r->types->e[r->ent[i]];
		if (e->type == 0 || (e->kind != GH_TK_HEADER &&
				     e->kind != GH_TK_LARGETYPE))
			continue;
		ty = ty_get(&x, e->type);
		if (ty != 0)
			scan(&x, i, ty, M_PLAIN,
			     e->kind == GH_TK_HEADER ? 8 : 0);
	}
	for (h = 0; h < x.qt && !x.oom;) {
		size_t lend = x.qt;

		if (lend - h > 1)
			level_sort(&x, x.q + h, lend - h);
		for (; h < lend && !x.oom; h++) {
			uint32_t en = r->ent[x.q[h]];

			PREFETCH_LEVEL(&x, h, lend);
			scan(&x, x.q[h], INF_TY(en), INF_MODE(en), 0);
		}
	}
	/* each inferred object was queued once (its ent is set before it is
	 * queued, and kept): its row, made in address order (the first
	 * object of a row gives its shape); out of memory, every one gets
	 * back a shape row (the first object's of its type) */
	for (i = 0; i < r->nobj; i++) {
		uint32_t row, en = r->ent[i];
		const ity *t;

		if (!(en & INF_BIT))
			continue;
		t = &x.ty[INF_TY(en) - 1];
		row = x.oom ? GH_RET_NONE :
		      row_of(&x, INF_TY(en), INF_MODE(en),
			     t->likerow[INF_MODE(en)]);
		if (row == GH_RET_NONE) {
			x.oom = 1;
			r->ent[i] = x.ty[INF_TY(en) - 1].likerow[INF_MODE(en)];
			continue;
		}
		r->ent[i] = row;
		r->inferred_objects++;
		r->inferred_bytes += osize(r, i);
	}
	if (x.steps > STEP_BUDGET)
		r->infer_truncated = 1;
	if (x.oom)
		rc = gh_ret_nomem(b);
	for (i = 0; i < r->nobj; i++)
		if (r->types->e[r->ent[i]].type == 0)
			r->untyped_objects++;
	r->t_infer = gh_now() - t0;
out:
	for (h = 0; h < x.nty; h++)
		free(x.ty[h].f);
	free(x.ty);
	gh_hmap_free(&x.tidx);
	free(x.q);
	free(x.bits);
	return rc;
}

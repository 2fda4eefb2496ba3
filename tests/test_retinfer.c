/*
 * test_retinfer.c - -p retained's type inference (src/lib/retained/
 * retinfer.c) on a synthetic heap, no target: a fake memory source (tests/
 * fakemem.h) holding abi.Type descriptors as go1.27's rtlayout row lays
 * them out (internal/abi/type.go: Size_ 0, PtrBytes 8, TFlag 20, Kind_ 23,
 * GCData 32, Str 40; PtrType/SliceType/ArrayType.Elem 48, ArrayType.Len 64,
 * StructType.Fields and InterfaceType.Methods 56; StructField 24 bytes,
 * Typ 8, Offset 16; abi.ITab.Type 8), their names (abi.Name: a flag byte,
 * a uvarint length, the bytes) and GC masks in the module's types section,
 * then heap objects as the heap walk records them (gh_retained's addr,
 * size8 and ent; a row per object: exact HEADER or LARGETYPE rows with
 * their *abi.Type, PTRS shapes with the slot's heap bits, NOSCAN shapes),
 * sorted by gh_ret_sort_objects as the graph's builder sorts them.  The
 * real gh_ret_infer runs on it; each test asserts the rows it leaves.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fakemem.h"
#include "retained_int.h"

/* One image: the types section, then the heap. */
#define IMG_BASE 0x400000ull
#define IMG_SIZE 0x40000u
#define TYPES_LO IMG_BASE
#define TYPES_HI (IMG_BASE + 0x10000)
#define HEAP_LO TYPES_HI

/* internal/abi/type.go: Kind, TFlag */
#define K_INT64 6u
#define K_ARRAY 17u
#define K_CHAN 18u
#define K_INTERFACE 20u
#define K_MAP 21u
#define K_PTR 22u
#define K_SLICE 23u
#define K_STRING 24u
#define K_STRUCT 25u
#define K_UNSAFEPTR 26u
#define TFLAG_DIRECT 0x20u     /* TFlagDirectIface, 1.26+ */

typedef struct fobj {
	uint64_t addr;
	uint32_t size, row;
} fobj;

typedef struct fx {
	unsigned char *img;
	gh_fakemem fm;
	uint64_t tnext, hnext;
	gh_retained *r;
	fobj *o;
	size_t no, capo;
	gh_target t;
	gh_mem m;
	rb b;
	const gh_rtlayout *l;
	int edges;            /* the graph's edges run() makes (E_*) */
} fx;

/* The objects' edges (CSR) gh_ret_infer is given: as the graph's scan
 * makes them (the default), none (a live target's running pass), or
 * edges that are not the scan's (each object's reversed; targets that
 * are not its pointees): the inference takes an edge only where it is
 * the pointee of the word it reads, so every one gives the same rows. */
enum { E_SCAN, E_NONE, E_REVERSED, E_WRONG };

static void put(fx *f, uint64_t a, uint64_t v, unsigned size)
{
	unsigned i;

	assert_true(a >= IMG_BASE && a + size <= IMG_BASE + IMG_SIZE);
	for (i = 0; i < size; i++)
		f->img[a - IMG_BASE + i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get(const fx *f, uint64_t a, unsigned size)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)f->img[a - IMG_BASE + i] << (8 * i);
	return v;
}

/* n bytes of the types section, 8-aligned */
static uint64_t talloc(fx *f, uint64_t n)
{
	uint64_t a = f->tnext;

	f->tnext += (n + 7) & ~(uint64_t)7;
	assert_true(f->tnext <= TYPES_HI);
	return a;
}

/* n bytes of heap, 16-aligned (a slot) */
static uint64_t halloc(fx *f, uint64_t n)
{
	uint64_t a = f->hnext;

	f->hnext += (n + 15) & ~(uint64_t)15;
	assert_true(f->hnext <= IMG_BASE + IMG_SIZE);
	return a;
}

/* ---- the types section ------------------------------------------------ */

static uint64_t ty_mask(const fx *f, uint64_t ty)
{
	uint64_t pb = get(f, ty + 8, 8), gc = get(f, ty + 32, 8), m = 0, i;

	for (i = 0; i < pb / 8; i++)
		if ((get(f, gc + i / 8, 1) >> (i % 8)) & 1)
			m |= (uint64_t)1 << i;
	return m;
}

static uint64_t ty_size(const fx *f, uint64_t ty)
{
	return get(f, ty, 8);
}

/* An abi.Type of kind, size and pointer mask (its words' bits), named
 * name; room for the kind's fields after it (80 bytes in all). */
static uint64_t ty_new(fx *f, const char *name, unsigned kind, uint64_t size,
		       uint64_t mask)
{
	uint64_t ty = talloc(f, 80), nm, gc = 0, pb = 0, i;
	size_t n = strlen(name);

	assert_true(n < 128);
	nm = talloc(f, 2 + n);
	put(f, nm, 0, 1);                  /* abi.Name: flags */
	put(f, nm + 1, n, 1);              /* its length (one varint byte) */
	memcpy(f->img + (nm + 2 - IMG_BASE), name, n);
	for (i = 0; i < 64; i++)
		if ((mask >> i) & 1)
			pb = 8 * (i + 1);
	if (pb != 0) {
		gc = talloc(f, 8);
		put(f, gc, mask, 8);
	}
	put(f, ty + 0, size, 8);           /* Size_ */
	put(f, ty + 8, pb, 8);             /* PtrBytes */
	put(f, ty + 16, 0x12345678, 4);    /* Hash */
	/* TFlag: a value of a pointer-shaped type is the interface's data
	 * word (Size_ == PtrBytes == PtrSize) */
	put(f, ty + 20, size == 8 && pb == 8 ? TFLAG_DIRECT : 0, 1);
	put(f, ty + 21, 8, 1);             /* Align_ */
	put(f, ty + 22, 8, 1);             /* FieldAlign_ */
	put(f, ty + 23, kind, 1);          /* Kind_ */
	put(f, ty + 32, gc, 8);            /* GCData */
	put(f, ty + 40, nm - TYPES_LO, 4); /* Str: a NameOff */
	return ty;
}

static uint64_t t_int64(fx *f)
{
	return ty_new(f, "int64", K_INT64, 8, 0);
}

static uint64_t t_ptr(fx *f, const char *name, uint64_t elem)
{
	uint64_t ty = ty_new(f, name, K_PTR, 8, 1);

	put(f, ty + 48, elem, 8);          /* PtrType.Elem */
	return ty;
}

static uint64_t t_slice(fx *f, const char *name, uint64_t elem)
{
	uint64_t ty = ty_new(f, name, K_SLICE, 24, 1);

	put(f, ty + 48, elem, 8);          /* SliceType.Elem */
	return ty;
}

static uint64_t t_array(fx *f, const char *name, uint64_t elem, uint64_t len)
{
	uint64_t es = ty_size(f, elem), em = ty_mask(f, elem), m = 0, i;
	uint64_t ty;

	for (i = 0; i < len && es * i / 8 < 64; i++)
		m |= em << (es * i / 8);
	ty = ty_new(f, name, K_ARRAY, es * len, m);
	put(f, ty + 48, elem, 8);          /* ArrayType.Elem */
	put(f, ty + 64, len, 8);           /* ArrayType.Len */
	return ty;
}

typedef struct ffield {
	uint64_t typ, off;
} ffield;

/* A struct of size bytes and fields (their types' masks at their
 * offsets make its own). */
static uint64_t t_struct(fx *f, const char *name, uint64_t size,
			 const ffield *fl, size_t n)
{
	uint64_t m = 0, fa = talloc(f, 24 * n), ty;
	size_t i;

	for (i = 0; i < n; i++) {
		put(f, fa + 24 * i, 0, 8);                 /* Name */
		put(f, fa + 24 * i + 8, fl[i].typ, 8);     /* Typ */
		put(f, fa + 24 * i + 16, fl[i].off, 8);    /* Offset */
		m |= ty_mask(f, fl[i].typ) << (fl[i].off / 8);
	}
	ty = ty_new(f, name, K_STRUCT, size, m);
	put(f, ty + 56, fa, 8);            /* StructType.Fields */
	put(f, ty + 64, n, 8);
	put(f, ty + 72, n, 8);
	return ty;
}

/* interface{} (nmethods 0) or one with methods (an itab in its words) */
static uint64_t t_iface(fx *f, const char *name, unsigned nmethods)
{
	uint64_t ty = ty_new(f, name, K_INTERFACE, 16, 3), ms = 0;

	if (nmethods != 0)
		ms = talloc(f, 8 * nmethods);   /* Imethods (not read) */
	put(f, ty + 56, ms, 8);            /* InterfaceType.Methods */
	put(f, ty + 64, nmethods, 8);
	put(f, ty + 72, nmethods, 8);
	return ty;
}

/* abi.ITab{Inter, Type, Hash, Fun[1]} (the runtime's are in .data; the
 * inference reads one anywhere) */
static uint64_t itab_new(fx *f, uint64_t inter, uint64_t typ)
{
	uint64_t it = talloc(f, 32);

	put(f, it, inter, 8);
	put(f, it + 8, typ, 8);
	put(f, it + 16, 0x12345678, 4);
	put(f, it + 24, 0x401000, 8);
	return it;
}

/* ---- the heap ----------------------------------------------------------- */

static uint32_t row_new(fx *f, uint64_t type, unsigned kind, uint32_t size,
			uint64_t mask, const char *name)
{
	gh_types *t = f->r->types;
	gh_tentry *e;

	assert_int_equal(gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)), 0);
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->kind = (uint8_t)kind;
	e->size = size;
	e->mask = mask;
	e->named = 1;
	e->name = gh_strdup(name);
	e->shape = gh_strdup(type != 0 ? "header" : name);
	assert_true(e->name != NULL && e->shape != NULL);
	return (uint32_t)t->n++;
}

static void obj_add(fx *f, uint64_t a, uint32_t size, uint32_t row)
{
	assert_int_equal(gh_grow(&f->o, &f->capo, f->no + 1, sizeof(*f->o)),
			 0);
	f->o[f->no].addr = a;
	f->o[f->no].size = size;
	f->o[f->no].row = row;
	f->no++;
}

/* A headerless object at a of slot bytes: pointers where mask says
 * (GH_TK_PTRS: the slot's heap bits), none (GH_TK_NOSCAN) when 0. */
static uint64_t o_shape_at(fx *f, uint64_t a, uint32_t slot, uint64_t mask)
{
	char nm[64];

	snprintf(nm, sizeof(nm), "%s %u B 0x%llx", mask ? "ptrs" : "noscan",
		 slot, (unsigned long long)mask);
	obj_add(f, a, slot, row_new(f, 0, mask ? GH_TK_PTRS : GH_TK_NOSCAN,
				    slot, mask, nm));
	return a;
}

static uint64_t o_shape(fx *f, uint32_t slot, uint64_t mask)
{
	return o_shape_at(f, halloc(f, slot), slot, mask);
}

/* An object with its exact type: a malloc header (the slot's first word,
 * the value after it) or a large span's largeType (the value at the
 * slot's start).  The value's address. */
static uint64_t o_typed(fx *f, uint64_t ty, const char *name, int large)
{
	uint64_t sz = ty_size(f, ty) + (large ? 0 : 8);
	uint64_t a = halloc(f, sz);

	if (!large)
		put(f, a, ty, 8);
	obj_add(f, a, (uint32_t)sz,
		row_new(f, ty, large ? GH_TK_LARGETYPE : GH_TK_HEADER, 0, 0,
			name));
	return large ? a : a + 8;
}

/* Each object's pointer words' pointees, as retained.c's scan_object
 * finds them: a shape's heap bits (64 words at most), an exact type's
 * mask repeated from the value's start (after a malloc header). */
static void edges(fx *f)
{
	gh_retained *r = f->r;
	uint32_t i, j, n = 0, cap = 0, k, lo;

	r->off = calloc((size_t)r->nobj + 1, sizeof(*r->off));
	assert_non_null(r->off);
	for (i = 0; i < r->nobj; i++) {
		const gh_tentry *e = &r->types->e[r->ent[i]];
		uint64_t a = r->addr[i], lim = a + gh_retained_size(r, i);
		uint64_t m = e->mask, ts = 0, w;

		if (e->kind == GH_TK_HEADER || e->kind == GH_TK_LARGETYPE) {
			m = ty_mask(f, e->type);
			ts = ty_size(f, e->type);
			a += e->kind == GH_TK_HEADER ? 8 : 0;
		} else if (e->kind != GH_TK_PTRS)
			m = 0;
		lo = n;
		for (w = 0; m != 0 && a + 8 * w + 8 <= lim && w < 4096; w++) {
			uint64_t bit = ts != 0 ? w % (ts / 8) : w;

			if (bit >= 64 || !((m >> bit) & 1))
				continue;
			j = gh_retained_find(r, get(f, a + 8 * w, 8));
			if (j == GH_RET_NONE)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				r->adj = realloc(r->adj, cap * sizeof(*r->adj));
				assert_non_null(r->adj);
			}
			r->adj[n++] = j;
		}
		for (k = lo; f->edges == E_REVERSED && k < lo + (n - lo) / 2;
		     k++) {
			j = r->adj[k];
			r->adj[k] = r->adj[n - 1 - (k - lo)];
			r->adj[n - 1 - (k - lo)] = j;
		}
		for (k = lo; f->edges == E_WRONG && k < n; k++)
			r->adj[k] = (r->adj[k] + 1 + k) % r->nobj;
		r->off[i + 1] = n;
	}
	r->nedges = n;
}

/* gh_ret_infer on the objects (any order: one run each, sorted by
 * address as the builder sorts the walk's runs), with their edges
 * (f->edges) */
static int run(fx *f)
{
	gh_retained *r = f->r;
	size_t i;

	r->addr = malloc(f->no * sizeof(*r->addr));
	r->size8 = malloc(f->no * sizeof(*r->size8));
	r->ent = malloc(f->no * sizeof(*r->ent));
	f->b.runs = calloc(f->no, sizeof(*f->b.runs));
	assert_true(r->addr && r->size8 && r->ent && f->b.runs);
	for (i = 0; i < f->no; i++) {
		r->addr[i] = f->o[i].addr;
		r->size8[i] = f->o[i].size / 8;
		r->ent[i] = f->o[i].row;
		f->b.runs[i].lo = f->b.runs[i].hi = f->o[i].addr;
		f->b.runs[i].at = i;
		f->b.runs[i].n = 1;
	}
	r->nobj = (uint32_t)f->no;
	f->b.nobjs = f->no;
	f->b.nruns = f->no;
	assert_int_equal(gh_ret_sort_objects(&f->b), 0);
	for (i = 1; i < r->nobj; i++)
		assert_true(r->addr[i - 1] + gh_retained_size(r, (uint32_t)i - 1)
			    <= r->addr[i]);
	if (f->edges != E_NONE)
		edges(f);
	return gh_ret_infer(&f->b);
}

/* The row of the object at a (its start) after the inference. */
static const gh_tentry *row_at(const fx *f, uint64_t a)
{
	uint32_t j = gh_retained_find(f->r, a);

	assert_int_not_equal(j, GH_RET_NONE);
	assert_true(f->r->addr[j] == a);
	return &f->r->types->e[f->r->ent[j]];
}

static const char *name_at(const fx *f, uint64_t a)
{
	return row_at(f, a)->name;
}

static int setup(void **state)
{
	fx *f = calloc(1, sizeof(*f));
	gh_gover v = { 1, 27, 4 };

	if (f == NULL)
		return -1;
	f->img = calloc(1, IMG_SIZE);
	f->r = gh_calloc(1, sizeof(*f->r));
	if (f->img == NULL || f->r == NULL)
		return -1;
	f->r->types = gh_calloc(1, sizeof(*f->r->types));
	if (f->r->types == NULL)
		return -1;
	f->r->types->types_lo = TYPES_LO;
	f->r->types->types_hi = TYPES_HI;
	f->r->types->headers = 1;
	f->tnext = TYPES_LO + 64;          /* a NameOff is never 0 */
	f->hnext = HEAP_LO;
	f->fm.img = f->img;
	f->fm.len = IMG_SIZE;
	f->fm.base = IMG_BASE;
	f->l = gh_rtlayout_for(v);
	if (f->l == NULL || f->l->ti_elem == 0 || !f->l->heap_headers)
		return -1;
	f->t.caps = &gh_no_caps;
	f->t.lay = f->l;
	f->t.ver = v;
	gh_mem_init(&f->m, &gh_fakemem_ops, &f->fm, 8, 0, &f->t.err);
	f->b.s = &f->t;
	f->b.r = f->r;
	f->b.m = &f->m;
	f->b.l = f->l;
	f->b.cur_root = GH_RET_NONE;
	f->b.buf = malloc(CHUNK);
	if (f->b.buf == NULL)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;

	free(f->b.runs);
	free(f->b.buf);
	gh_mem_fini(&f->m);
	gh_retained_free(f->r);
	free(f->o);
	free(f->img);
	free(f);
	return 0;
}

/* type Node struct { next *Node; val int64 }: *Node its next field */
static uint64_t t_node(fx *f, const char *name, const char *pname,
		       uint64_t *pnode)
{
	uint64_t p = t_ptr(f, pname, 0), i64 = t_int64(f), n;
	ffield fl[2] = { { p, 0 }, { i64, 8 } };

	n = t_struct(f, name, 16, fl, 2);
	put(f, p + 48, n, 8);
	if (pnode != NULL)
		*pnode = p;
	return n;
}

/* chan T: ChanType.Elem */
static uint64_t t_chan(fx *f, const char *name, uint64_t elem)
{
	uint64_t ty = ty_new(f, name, K_CHAN, 8, 1);

	put(f, ty + 48, elem, 8);          /* ChanType.Elem */
	return ty;
}

/* map[K]V (swiss, 1.24+): MapType.Key, Elem, Group */
static uint64_t t_map(fx *f, const char *name, uint64_t key, uint64_t elem,
		      uint64_t group)
{
	uint64_t ty = ty_new(f, name, K_MAP, 8, 1);

	put(f, ty + 48, key, 8);
	put(f, ty + 56, elem, 8);
	put(f, ty + 64, group, 8);         /* MapType.Group */
	return ty;
}

/* ---- the tests ----------------------------------------------------------- */

/* A *T field types its pointee T: from a headered object (its value after
 * the header word) and from a largeType one (at the slot's start). */
static void test_ptr_field(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	ffield fl[2] = { { t_int64(f), 0 }, { pn, 8 } };
	uint64_t hold = t_struct(f, "main.Holder", 16, fl, 2);
	uint64_t h1 = o_typed(f, hold, "main.Holder", 0);
	uint64_t h2 = o_typed(f, hold, "main.Holder", 1);
	uint64_t a = o_shape(f, 16, 0x1), b = o_shape(f, 16, 0x1);
	uint64_t c = o_shape(f, 16, 0x1);

	(void)node;
	put(f, h1, a, 8);          /* the int64: an address, not a pointer */
	put(f, h1 + 8, b, 8);
	put(f, h2 + 8, c, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, b), "main.Node (inferred)");
	assert_string_equal(name_at(f, c), "main.Node (inferred)");
	assert_true(row_at(f, b)->inferred);
	assert_int_equal(row_at(f, b)->type, node);
	assert_string_equal(name_at(f, a), "ptrs 16 B 0x1");
	assert_false(row_at(f, a)->inferred);
	assert_int_equal(f->r->inferred_objects, 2);
	assert_int_equal(f->r->inferred_bytes, 32);
	assert_int_equal(f->r->infer_conflicts, 0);
	assert_int_equal(f->r->untyped_objects, 1);
	assert_false(f->r->infer_none);
	assert_false(f->r->infer_truncated);
}

/* A []*T field: its backing array is typed as T's pointer type (an array
 * of them: the row is the element's) and each element's pointee as T;
 * an array field [2]*T: each element's pointee. */
static void test_slice_elems(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t sl = t_slice(f, "[]*main.Node", pn);
	uint64_t ar = t_array(f, "[2]*main.Node", pn, 2);
	ffield fl[2] = { { sl, 0 }, { ar, 24 } };
	uint64_t hold = t_struct(f, "main.Holder", 40, fl, 2);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t arr = o_shape(f, 32, 0xf), n[5];
	unsigned i;

	(void)node;
	assert_int_equal(ty_mask(f, hold), 0x19);
	for (i = 0; i < 5; i++)
		n[i] = o_shape(f, 16, 0x1);
	for (i = 0; i < 3; i++)
		put(f, arr + 8 * i, n[i], 8);
	put(f, h, arr, 8);         /* len 3, cap 4 */
	put(f, h + 8, 3, 8);
	put(f, h + 16, 4, 8);
	put(f, h + 24, n[3], 8);
	put(f, h + 32, n[4], 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, arr), "*main.Node (inferred)");
	for (i = 0; i < 5; i++)
		assert_string_equal(name_at(f, n[i]), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 6);
	assert_int_equal(f->r->untyped_objects, 0);
}

/* An interface whose dynamic type is pointer-shaped (TFlagDirectIface):
 * the data word is the value, a *T: its pointee is a T.  Both kinds of
 * interface: the eface's type word, the iface's itab.Type. */
static void test_iface_direct(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t ef = t_iface(f, "interface {}", 0);
	uint64_t st = t_iface(f, "fmt.Stringer", 1);
	ffield fl[2] = { { ef, 0 }, { st, 16 } };
	uint64_t hold = t_struct(f, "main.Holder", 32, fl, 2);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t a = o_shape(f, 16, 0x1), b = o_shape(f, 16, 0x1);

	(void)node;
	assert_true(get(f, pn + 20, 1) & TFLAG_DIRECT);
	put(f, h, pn, 8);
	put(f, h + 8, a, 8);
	put(f, h + 16, itab_new(f, st, pn), 8);
	put(f, h + 24, b, 8);
	assert_int_equal(run(f), 0);
	/* the data word is the *Node: what it points at is a Node (typing
	 * the pointee as the boxed *Node would be "*main.Node") */
	assert_string_equal(name_at(f, a), "main.Node (inferred)");
	assert_string_equal(name_at(f, b), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 2);
}

/* An interface whose dynamic type is not pointer-shaped: the data word
 * points at a boxed copy, typed as the dynamic type, which types on. */
static void test_iface_indirect(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t i64 = t_int64(f);
	ffield bf[3] = { { pn, 0 }, { i64, 8 }, { i64, 16 } };
	uint64_t big = t_struct(f, "main.Big", 24, bf, 3);
	uint64_t ef = t_iface(f, "interface {}", 0);
	uint64_t st = t_iface(f, "fmt.Stringer", 1);
	ffield fl[2] = { { ef, 0 }, { st, 16 } };
	uint64_t hold = t_struct(f, "main.Holder", 32, fl, 2);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t a = o_shape(f, 24, 0x1), b = o_shape(f, 24, 0x1);
	uint64_t na = o_shape(f, 16, 0x1), nb = o_shape(f, 16, 0x1);

	(void)node;
	assert_false(get(f, big + 20, 1) & TFLAG_DIRECT);
	put(f, h, big, 8);
	put(f, h + 8, a, 8);
	put(f, h + 16, itab_new(f, st, big), 8);
	put(f, h + 24, b, 8);
	put(f, a, na, 8);
	put(f, b, nb, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, a), "main.Big (inferred)");
	assert_string_equal(name_at(f, b), "main.Big (inferred)");
	assert_string_equal(name_at(f, na), "main.Node (inferred)");
	assert_string_equal(name_at(f, nb), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 4);
}

/* A pointer into the middle of an object (a field's address, a slice of
 * an array's tail) types nothing; the same pointer at the start of the
 * same shape does. */
static void test_interior_pointer(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	ffield fl[2] = { { pn, 0 }, { pn, 8 } };
	uint64_t hold = t_struct(f, "main.Holder", 16, fl, 2);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t in = o_shape(f, 32, 0x5), at = o_shape(f, 32, 0x5);

	(void)node;
	put(f, h, in + 16, 8);
	put(f, h + 8, at, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, in), "ptrs 32 B 0x5");
	assert_false(row_at(f, in)->inferred);
	assert_string_equal(name_at(f, at), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 1);
	assert_int_equal(f->r->untyped_objects, 1);
}

/* A type larger than the slot it points at types nothing (its mask a
 * prefix of the slot's: only the size disagrees); the same pointer to a
 * slot of its size does. */
static void test_too_big(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t i64 = t_int64(f);
	ffield bf[3] = { { pn, 0 }, { i64, 8 }, { i64, 16 } };
	uint64_t big = t_struct(f, "main.Big", 24, bf, 3);
	uint64_t pb = t_ptr(f, "*main.Big", big);
	ffield fl[2] = { { pb, 0 }, { pb, 8 } };
	uint64_t hold = t_struct(f, "main.Holder", 16, fl, 2);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t small = o_shape(f, 16, 0x1), fit = o_shape(f, 24, 0x1);

	(void)node;
	put(f, h, small, 8);
	put(f, h + 8, fit, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, small), "ptrs 16 B 0x1");
	assert_string_equal(name_at(f, fit), "main.Big (inferred)");
	assert_int_equal(f->r->inferred_objects, 1);
}

/* A type whose pointers are not where the slot's heap bits are types
 * nothing: *Node (a pointer in word 0) at a slot with one in word 1, a
 * pointerful type at a noscan slot, a pointer-free one at a pointerful
 * slot. */
static void test_mask_mismatch(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t i64 = t_int64(f);
	ffield pf[2] = { { i64, 0 }, { i64, 8 } };
	uint64_t pair = t_struct(f, "main.Pair", 16, pf, 2);
	uint64_t pp = t_ptr(f, "*main.Pair", pair);
	ffield fl[4] = { { pn, 0 }, { pn, 8 }, { pp, 16 }, { pn, 24 } };
	uint64_t hold = t_struct(f, "main.Holder", 32, fl, 4);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t w1 = o_shape(f, 16, 0x2), ns = o_shape(f, 16, 0);
	uint64_t ps = o_shape(f, 16, 0x1), ok = o_shape(f, 16, 0x1);

	(void)node;
	put(f, h, w1, 8);
	put(f, h + 8, ns, 8);
	put(f, h + 16, ps, 8);
	put(f, h + 24, ok, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, w1), "ptrs 16 B 0x2");
	assert_string_equal(name_at(f, ns), "noscan 16 B 0x0");
	assert_string_equal(name_at(f, ps), "ptrs 16 B 0x1");
	assert_string_equal(name_at(f, ok), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 1);
}

/* A 16-byte noscan slot may be a tiny block several objects share: a
 * type under 16 B is not inferred there (a 16-byte one is, and an 8-byte
 * one in a bigger noscan slot: an array of them). */
static void test_tiny_block(void **state)
{
	fx *f = *state;
	uint64_t i64 = t_int64(f), pi = t_ptr(f, "*int64", i64);
	ffield pf[2] = { { i64, 0 }, { i64, 8 } };
	uint64_t pair = t_struct(f, "main.Pair", 16, pf, 2);
	uint64_t pp = t_ptr(f, "*main.Pair", pair);
	ffield fl[3] = { { pi, 0 }, { pp, 8 }, { pi, 16 } };
	uint64_t hold = t_struct(f, "main.Holder", 24, fl, 3);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t tiny = o_shape(f, 16, 0), p16 = o_shape(f, 16, 0);
	uint64_t arr = o_shape(f, 32, 0);

	put(f, h, tiny, 8);
	put(f, h + 8, p16, 8);
	put(f, h + 16, arr, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, tiny), "noscan 16 B 0x0");
	assert_string_equal(name_at(f, p16), "main.Pair (inferred)");
	assert_string_equal(name_at(f, arr), "int64 (inferred)");
	assert_int_equal(f->r->inferred_objects, 2);
}

/* Two typed objects that type one pointee differently: the one at the
 * lower address wins (the typed objects are scanned in address order)
 * and the disagreement is counted once; a third that agrees is not a
 * conflict. */
static void test_conflict_first_kept(void **state)
{
	fx *f = *state;
	uint64_t pa, pb, i64 = t_int64(f), ta, tb, ha, hb;
	uint64_t lo, hi, third, x;

	t_node(f, "main.A", "*main.A", &pa);
	t_node(f, "main.B", "*main.B", &pb);
	{
		ffield fa[2] = { { pa, 0 }, { i64, 8 } };
		ffield fb[2] = { { pb, 0 }, { i64, 8 } };

		ta = t_struct(f, "main.HoldA", 16, fa, 2);
		tb = t_struct(f, "main.HoldB", 16, fb, 2);
	}
	/* made in the other order than their addresses: the B holder is
	 * added first, at the higher address */
	x = o_shape(f, 16, 0x1);
	lo = halloc(f, 32);
	hi = halloc(f, 32);
	third = halloc(f, 32);
	put(f, hi, tb, 8);
	obj_add(f, hi, 24, row_new(f, tb, GH_TK_HEADER, 0, 0, "main.HoldB"));
	put(f, lo, ta, 8);
	obj_add(f, lo, 24, row_new(f, ta, GH_TK_HEADER, 0, 0, "main.HoldA"));
	put(f, third, ta, 8);
	obj_add(f, third, 24,
		row_new(f, ta, GH_TK_HEADER, 0, 0, "main.HoldA"));
	ha = lo + 8;
	hb = hi + 8;
	put(f, ha, x, 8);
	put(f, hb, x, 8);
	put(f, third + 8, x, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, x), "main.A (inferred)");
	assert_int_equal(f->r->infer_conflicts, 1);
	assert_int_equal(f->r->inferred_objects, 1);
}

/* Within a breadth-first level the objects are scanned in address order
 * too, whatever order the level before found them in: the typed object
 * at the lower address finds the higher of two level-1 objects, whose
 * inference of a level-2 object loses to the lower one's. */
static void test_conflict_level_order(void **state)
{
	fx *f = *state;
	uint64_t pa, pb, i64 = t_int64(f);
	uint64_t ta, tb, tc, td, pc, pd, hl, hh, cl, ch, y;

	t_node(f, "main.A", "*main.A", &pa);
	t_node(f, "main.B", "*main.B", &pb);
	{
		ffield fc[2] = { { pa, 0 }, { i64, 8 } };   /* C -> A */
		ffield fd[2] = { { pb, 0 }, { i64, 8 } };   /* D -> B */

		tc = t_struct(f, "main.C", 16, fc, 2);
		td = t_struct(f, "main.D", 16, fd, 2);
	}
	pc = t_ptr(f, "*main.C", tc);
	pd = t_ptr(f, "*main.D", td);
	{
		ffield f1[1] = { { pd, 0 } };
		ffield f2[1] = { { pc, 0 } };

		ta = t_struct(f, "main.H1", 8, f1, 1);
		tb = t_struct(f, "main.H2", 8, f2, 1);
	}
	hl = o_typed(f, ta, "main.H1", 0);   /* lower: finds D, high */
	hh = o_typed(f, tb, "main.H2", 0);   /* higher: finds C, low */
	cl = o_shape(f, 16, 0x1);
	ch = o_shape(f, 16, 0x1);
	y = o_shape(f, 16, 0x1);
	put(f, hl, ch, 8);
	put(f, hh, cl, 8);
	put(f, cl, y, 8);
	put(f, ch, y, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, ch), "main.D (inferred)");
	assert_string_equal(name_at(f, cl), "main.C (inferred)");
	/* cl (main.C, lower) is scanned first on level 1: y is an A */
	assert_string_equal(name_at(f, y), "main.A (inferred)");
	assert_int_equal(f->r->infer_conflicts, 1);
}

/* Breadth-first: an object one pointer from a typed object is typed by
 * it, not by a longer path found earlier in address order. */
static void test_nearer_wins(void **state)
{
	fx *f = *state;
	uint64_t pa, pb, i64 = t_int64(f);
	uint64_t tc, pc, t1, t2, h1, h2, c, y;

	t_node(f, "main.A", "*main.A", &pa);
	t_node(f, "main.B", "*main.B", &pb);
	{
		ffield fc[2] = { { pa, 0 }, { i64, 8 } };   /* C -> A */

		tc = t_struct(f, "main.C", 16, fc, 2);
	}
	pc = t_ptr(f, "*main.C", tc);
	{
		ffield f1[1] = { { pc, 0 } };
		ffield f2[1] = { { pb, 0 } };

		t1 = t_struct(f, "main.H1", 8, f1, 1);
		t2 = t_struct(f, "main.H2", 8, f2, 1);
	}
	h1 = o_typed(f, t1, "main.H1", 0);   /* lower: H1 -> C -> y */
	h2 = o_typed(f, t2, "main.H2", 0);   /* higher: H2 -> y */
	c = o_shape(f, 16, 0x1);
	y = o_shape(f, 16, 0x1);
	put(f, h1, c, 8);
	put(f, c, y, 8);
	put(f, h2, y, 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, c), "main.C (inferred)");
	assert_string_equal(name_at(f, y), "main.B (inferred)");
	assert_int_equal(f->r->infer_conflicts, 1);
}

/* An object with an exact type (a malloc header, a largeType) keeps its
 * row whatever points at it, and types what it points at by its own type:
 * not a conflict. */
static void test_exact_kept(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t i64 = t_int64(f), po, other, large;
	ffield of[2] = { { i64, 0 }, { pn, 8 } };
	ffield hf[2] = { { pn, 0 }, { pn, 8 } };
	uint64_t hold, h, e, l, ne, nl;
	uint32_t re, rl;

	(void)node;
	other = t_struct(f, "main.Other", 16, of, 2);
	po = t_ptr(f, "*main.Other", other);
	(void)po;
	large = t_struct(f, "main.Large", 16, of, 2);
	hold = t_struct(f, "main.Holder", 16, hf, 2);
	h = o_typed(f, hold, "main.Holder", 0);
	e = o_typed(f, other, "main.Other", 0);
	l = o_typed(f, large, "main.Large", 1);
	re = f->o[f->no - 2].row;
	rl = f->o[f->no - 1].row;
	ne = o_shape(f, 16, 0x1);
	nl = o_shape(f, 16, 0x1);
	/* a *Node at the headered slot's start (a Go pointer is at the
	 * value, after the header word: the interior-pointer rule refuses
	 * that first); at the largeType object's, which is its value's */
	put(f, h, e - 8, 8);
	put(f, h + 8, l, 8);       /* a *Node at the largeType object */
	put(f, e + 8, ne, 8);
	put(f, l + 8, nl, 8);
	assert_int_equal(run(f), 0);
	assert_ptr_equal(row_at(f, e - 8), &f->r->types->e[re]);
	assert_ptr_equal(row_at(f, l), &f->r->types->e[rl]);
	assert_string_equal(name_at(f, e - 8), "main.Other");
	assert_string_equal(name_at(f, l), "main.Large");
	assert_false(row_at(f, e - 8)->inferred);
	assert_false(row_at(f, l)->inferred);
	assert_string_equal(name_at(f, ne), "main.Node (inferred)");
	assert_string_equal(name_at(f, nl), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 2);
	assert_int_equal(f->r->infer_conflicts, 0);
}

/* A chan *T field: its hchan (112 B on go1.27: runtime/chan.go) is typed
 * as the chan type, its buffer (hchan.buf, an allocation of its own:
 * pointerful elements) as the element type, whose pointees are T's. */
static void test_chan(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t ch = t_chan(f, "chan *main.Node", pn);
	ffield fl[1] = { { ch, 0 } };
	uint64_t hold = t_struct(f, "main.Holder", 8, fl, 1);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	/* buf, timer, elemtype, recvq, sendq, bubble */
	uint64_t hc = o_shape(f, 112, 0x1f34);
	uint64_t buf = o_shape(f, 32, 0xf), n[3];
	unsigned i;

	(void)node;
	for (i = 0; i < 3; i++) {
		n[i] = o_shape(f, 16, 0x1);
		put(f, buf + 8 * i, n[i], 8);
	}
	put(f, h, hc, 8);
	put(f, hc, 3, 8);          /* qcount */
	put(f, hc + 8, 4, 8);      /* dataqsiz */
	put(f, hc + 16, buf, 8);   /* buf */
	put(f, hc + 40, pn, 8);    /* elemtype */
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, hc), "chan *main.Node (inferred)");
	assert_string_equal(name_at(f, buf), "*main.Node (inferred)");
	for (i = 0; i < 3; i++)
		assert_string_equal(name_at(f, n[i]), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 5);
}

/* A map[int64]*T field (go1.27: swiss): its header (internal/runtime/
 * maps.Map, 48 B) is typed as the map type; with dirLen 0 its dirPtr is
 * one group, typed as MapType.Group, whose slots' elements type T. */
static void test_map(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	uint64_t i64 = t_int64(f);
	ffield sf[2] = { { i64, 0 }, { pn, 8 } };
	uint64_t slot = t_struct(f, "struct { key int64; elem *main.Node }",
				 16, sf, 2);
	uint64_t slots = t_array(f, "[8]struct { key int64; elem *main.Node }",
				 slot, 8);
	ffield gf[2] = { { i64, 0 }, { slots, 8 } };
	uint64_t grp = t_struct(f, "map.group[int64]*main.Node", 136, gf, 2);
	uint64_t mt = t_map(f, "map[int64]*main.Node", i64, pn, grp);
	ffield fl[1] = { { mt, 0 } };
	uint64_t hold = t_struct(f, "main.Holder", 8, fl, 1);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t mh = o_shape(f, 48, 0x4), g = o_shape(f, 144, ty_mask(f, grp));
	uint64_t n[2];

	(void)node;
	n[0] = o_shape(f, 16, 0x1);
	n[1] = o_shape(f, 16, 0x1);
	put(f, h, mh, 8);
	put(f, mh, 2, 8);          /* used */
	put(f, mh + 16, g, 8);     /* dirPtr: the one group */
	put(f, mh + 24, 0, 8);     /* dirLen */
	put(f, g, 0x8080808080800201ull, 8);   /* ctrl: two full slots */
	put(f, g + 8, 7, 8);
	put(f, g + 16, n[0], 8);
	put(f, g + 24, 9, 8);
	put(f, g + 32, n[1], 8);
	assert_int_equal(run(f), 0);
	assert_string_equal(name_at(f, mh), "map[int64]*main.Node (inferred)");
	assert_string_equal(name_at(f, g),
			    "map.group[int64]*main.Node (inferred)");
	assert_string_equal(name_at(f, n[0]), "main.Node (inferred)");
	assert_string_equal(name_at(f, n[1]), "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, 4);
}

/* A list of N headerless nodes hanging from one typed field is typed to
 * its end, N levels deep (the nodes in shuffled address order). */
#define CHAIN 2000u

static void test_chain(void **state)
{
	fx *f = *state;
	uint64_t pn, node = t_node(f, "main.Node", "*main.Node", &pn);
	ffield fl[1] = { { pn, 0 } };
	uint64_t hold = t_struct(f, "main.Holder", 8, fl, 1);
	uint64_t h = o_typed(f, hold, "main.Holder", 0);
	uint64_t base = halloc(f, 16 * CHAIN), rng = 0x9e3779b97f4a7c15ull;
	uint32_t *slot = malloc(CHAIN * sizeof(*slot)), i, k, t;
	uint64_t prev = h;

	(void)node;
	assert_non_null(slot);
	for (i = 0; i < CHAIN; i++)
		slot[i] = i;
	for (i = CHAIN; i > 1; i--) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		k = (uint32_t)((rng * 2685821657736338717ull >> 33) % i);
		t = slot[i - 1];
		slot[i - 1] = slot[k];
		slot[k] = t;
	}
	for (i = 0; i < CHAIN; i++) {
		uint64_t a = o_shape_at(f, base + 16 * (uint64_t)slot[i], 16,
					0x1);

		put(f, prev, a, 8);    /* the holder's field, then next */
		put(f, a + 8, i, 8);
		prev = a;
	}
	assert_int_equal(run(f), 0);
	for (i = 0; i < CHAIN; i++)
		assert_string_equal(name_at(f, base + 16 * (uint64_t)i),
				    "main.Node (inferred)");
	assert_int_equal(f->r->inferred_objects, CHAIN);
	assert_int_equal(f->r->inferred_bytes, 16 * CHAIN);
	assert_int_equal(f->r->untyped_objects, 0);
	assert_false(f->r->infer_truncated);
	free(slot);
}

/*
 * A holder whose pointer words the inference reads in part: a string's
 * data and an unsafe.Pointer (edges it passes over), an interface (its
 * type word, then its data), a nil pointer, one out of the heap, one into
 * an object's middle; inferred holders with two pointer words each, one
 * nil, one to an object typed already.  The same rows whatever edges
 * the graph gives (E_*).
 */
static void edges_case(void **state, int mode)
{
	fx *f = *state;
	uint64_t pp = t_ptr(f, "*main.Pair", 0), pair, hold, h, sdata, x;
	uint64_t str = ty_new(f, "string", K_STRING, 16, 0x1);
	uint64_t up = ty_new(f, "unsafe.Pointer", K_UNSAFEPTR, 8, 0x1);
	uint64_t ef = t_iface(f, "interface {}", 0), p[9];
	ffield pf[2] = { { pp, 0 }, { pp, 8 } };
	ffield hf[9] = { { str, 0 }, { pp, 16 }, { up, 24 }, { ef, 32 },
			 { pp, 48 }, { pp, 56 }, { pp, 64 }, { pp, 72 },
			 { str, 80 } };
	unsigned i;

	pair = t_struct(f, "main.Pair", 16, pf, 2);
	put(f, pp + 48, pair, 8);
	hold = t_struct(f, "main.Holder", 96, hf, 9);
	assert_int_equal(ty_mask(f, hold), 0x7fd);
	h = o_typed(f, hold, "main.Holder", 0);
	sdata = o_shape(f, 16, 0);         /* the strings' bytes */
	x = o_shape(f, 32, 0x3);           /* the unsafe.Pointer's */
	for (i = 0; i < 9; i++)
		p[i] = o_shape(f, 16, 0x3);
	f->edges = mode;
	put(f, h, sdata, 8);
	put(f, h + 8, 5, 8);
	put(f, h + 16, p[0], 8);
	put(f, h + 24, x, 8);
	put(f, h + 32, pp, 8);             /* interface {}(*main.Pair) */
	put(f, h + 40, p[4], 8);
	put(f, h + 48, 0, 8);
	put(f, h + 56, TYPES_LO + 64, 8);  /* not in the heap */
	put(f, h + 64, p[8] + 8, 8);       /* p[8]'s second word */
	put(f, h + 72, p[5], 8);
	put(f, h + 80, sdata + 8, 8);
	put(f, h + 88, 3, 8);
	put(f, x, p[7], 8);                /* untyped: not followed */
	put(f, p[0], p[1], 8);
	put(f, p[0] + 8, p[2], 8);
	put(f, p[1], 0, 8);
	put(f, p[1] + 8, p[3], 8);
	put(f, p[2], p[0], 8);             /* typed already */
	put(f, p[2] + 8, p[1], 8);
	put(f, p[5], p[6], 8);
	put(f, p[5] + 8, p[0], 8);
	assert_int_equal(run(f), 0);
	for (i = 0; i < 7; i++)
		assert_string_equal(name_at(f, p[i]), "main.Pair (inferred)");
	assert_string_equal(name_at(f, p[7]), "ptrs 16 B 0x3");
	assert_string_equal(name_at(f, p[8]), "ptrs 16 B 0x3");
	assert_string_equal(name_at(f, x), "ptrs 32 B 0x3");
	assert_string_equal(name_at(f, sdata), "noscan 16 B 0x0");
	assert_string_equal(name_at(f, h - 8), "main.Holder");
	assert_int_equal(f->r->inferred_objects, 7);
	assert_int_equal(f->r->infer_conflicts, 0);
	assert_int_equal(f->r->untyped_objects, 4);
}

static void test_edges_scan(void **state)
{
	edges_case(state, E_SCAN);
}

static void test_edges_none(void **state)
{
	edges_case(state, E_NONE);
}

static void test_edges_reversed(void **state)
{
	edges_case(state, E_REVERSED);
}

static void test_edges_wrong(void **state)
{
	edges_case(state, E_WRONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ptr_field, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_slice_elems, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_iface_direct, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_iface_indirect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_interior_pointer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mask_mismatch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tiny_block, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conflict_first_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conflict_level_order,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_nearer_wins, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exact_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edges_scan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_edges_none, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_edges_reversed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_edges_wrong, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * heapwalk.h - the Go heap by type, from outside (`-p types`).
 *
 * gh_types_collect walks mheap_.allspans: every in-use span, every
 * allocated slot (below freeindex or set in allocBits, as the runtime's
 * isFree decides, slots past nelems never), each large span once.  An
 * object is typed where the runtime records its type: the *abi.Type
 * header of pointerful objects over 512 B (1.22+) and mspan.largeType of
 * large spans, named from abi.Type.Str in the module's types section (no
 * DWARF); every other object is counted under its shape (size class,
 * scan or noscan, and on 1.22+ the slot's pointer bitmap from the span's
 * heap bits).  Spans and their bits are read one at a time: memory stays
 * bounded whatever the heap's size.
 */
#ifndef GH_HEAPWALK_H
#define GH_HEAPWALK_H

#include "hmap.h"
#include "profile.h"
#include "target.h"

/* Safety limits on hostile data. */
#define GH_TYPES_MAX_SPANS (1u << 26)   /* len(mheap_.allspans) */
#define GH_TYPES_MAX_NAME 4096u         /* bytes of a type name kept */
/* damaged spans that, when also more than half of those read so far,
 * refuse the histogram (GOHEAP_ECORRUPT) */
#define GH_TYPES_MAX_BAD 64u
/* distinct types outside the module's type data (reflect-made types, or a
 * damaged heap's junk headers) kept as rows of their own; more are
 * counted under a shape (GH_TK_FOREIGN) */
#define GH_TYPES_MAX_UNNAMED 1024u

/* How an entry's objects are known. */
enum gh_tkind {
	GH_TK_HEADER = 0,    /* typed: the slot's malloc header (1.22+) */
	GH_TK_LARGETYPE,     /* typed: mspan.largeType */
	GH_TK_NOSCAN,        /* shape: small, no pointers */
	GH_TK_PTRS,          /* shape: small, pointers (bitmap on 1.22+) */
	GH_TK_SCAN,          /* shape: small, pointers, <= 1.21 (no bitmap) */
	GH_TK_HDRLESS,       /* shape: headered class, header not (yet) set */
	GH_TK_LARGE_NOSCAN,  /* shape: large, no pointers */
	GH_TK_LARGE_PTRS,    /* shape: large, pointers, no largeType */
	GH_TK_FOREIGN,       /* shape: a header or largeType that is not an
	                      * aligned type pointer, or one more type
	                      * outside the module than GH_TYPES_MAX_UNNAMED */
};

/* One row of the histogram. */
typedef struct gh_tentry {
	uint64_t type;       /* *abi.Type (typed kinds), else 0 */
	uint64_t mask;       /* GH_TK_PTRS: the slot's pointer words */
	uint32_t size;       /* shapes: the slot size (0 for large) */
	uint8_t kind;        /* enum gh_tkind */
	int named;           /* typed: the name was read from the types
	                      * section (0: "type 0x..." only) */
	int inferred;        /* -p retained: a type inferred from the typed
	                      * objects pointing at these (retinfer.c) */
	char *name;          /* the type's name, or the shape */
	char *shape;         /* the slot's shape ("ptrs 704 B", ...) */
	uint64_t objects, bytes;
} gh_tentry;

typedef struct gh_types {
	gh_tentry *e;
	size_t n, cap;
	gh_hmap idx;         /* entry key -> index + 1 */
	size_t last_shape;   /* gh_types_shape's last answer: index + 1 */
	uint64_t objects, bytes;              /* all allocated objects */
	uint64_t typed_objects, typed_bytes;  /* of which typed exactly */
	uint64_t spans, spans_inuse;          /* allspans' length, in use */
	/* in spans not swept since the last GC (sweepgen behind mheap_'s):
	 * their garbage is still counted as allocated, as MemStats does */
	uint64_t unswept_spans, unswept_objects, unswept_bytes;
	/* of the unswept spans, those whose mark bits (the last GC's) were
	 * read and those whose were not (a GC running, or unreadable); the
	 * objects and bytes of the former the last GC found unreachable
	 * (allocated, not marked: the sweep will free them) */
	uint64_t marked_spans, unmarked_spans;
	uint64_t unreach_objects, unreach_bytes;
	int gcphase;         /* runtime.gcphase at the (last) read; -1 unknown */
	uint64_t claimed;    /* slots between freeIndexForScan and freeindex:
	                      * being allocated, counted untyped */
	uint64_t stable_skipped;   /* live: full, swept spans the stop did
	                            * not read again (heapwalk.c walk_all) */
	uint64_t reclassified;     /* live: spans the stop found unswept now
	                            * (a GC ended), counted without a walk */
	uint64_t bad_spans;  /* left out: damaged or changing */
	char first_bad[160];
	uint64_t unnamed;    /* objects whose type has no name in the module */
	uint64_t unnamed_types;        /* rows of such types */
	uint64_t foreign;    /* objects counted GH_TK_FOREIGN */
	uint64_t types_lo, types_hi;   /* the module's types section */
	int headers;         /* the release has malloc headers (1.22+) */
	double t_walk;
	double t_stopwalk;   /* live: seconds of the walk while stopped */
	/* -f objects: one line per object, when asked (tests) */
	int want_objects;
	gh_buf objlines;
} gh_types;

/* t and its rows (NULL: nothing). */
void gh_types_free(gh_types *t);

/* -p types' part of p (GH_PART_TYPES; NULL: none): its histogram, freed
 * with p (gh_types_collect sets it). */
static inline gh_types *gh_types_of(const gh_profile *p)
{
	return (gh_types *)gh_profile_part(p, GH_PART_TYPES);
}


/*
 * Fill p's types part (p->kind GOHEAP_PROFILE_TYPES, set up by the
 * session) from s's target; with objects, also the one-line-per-object
 * listing.  0, or a GOHEAP_E* code with tg->err set.
 */
int gh_types_collect(gh_profile *p, gh_target *tg, int objects);

/* What gh_heap_objects hands its caller (-p retained: retained.c). */
typedef struct gh_heap_sink {
	/* each object: its address, size and row (an index of t->e);
	 * non-zero stops the walk */
	int (*obj)(void *arg, uint64_t addr, uint64_t size, uint32_t entry);
	/* each in-use span with specials: the list's head, the span's
	 * base, elemsize and noscan (NULL: not asked) */
	int (*span)(void *arg, uint64_t specials, uint64_t base,
		    uint64_t elemsize, int noscan);
	void *arg;
	/* a read whose result is thrown away (a running pass a stop reads
	 * again): implausible spans are counted, never an error */
	int tolerant;
} gh_heap_sink;

/*
 * Every allocated object of tg through k (t: a zeroed histogram that
 * gets the rows), read as it is: the caller stops a live target around
 * it.  0, or a GOHEAP_E* code with tg->err set.
 */
int gh_heap_objects(gh_profile *p, gh_target *tg, gh_types *t,
		    const gh_heap_sink *k);

/*
 * The rows (heaptypes.c, for heapwalk.c): the shape row (kind, size,
 * mask), made on first use; the row of the type at addr (kind
 * GH_TK_HEADER or GH_TK_LARGETYPE, size the slot's), named from the
 * module's types section [t->types_lo, t->types_hi) read through m, or a
 * GH_TK_FOREIGN shape when addr cannot be a type.  NULL: out of memory.
 */
gh_tentry *gh_types_shape(gh_types *t, unsigned kind, uint32_t size,
			  uint64_t mask);
gh_tentry *gh_types_typed(gh_types *t, gh_mem *m, const gh_rtlayout *l,
			  uint64_t addr, unsigned kind, uint32_t size);
/* The name of the type at addr (malloc'ed), NULL when it has none in
 * the module's types section. */
char *gh_types_name(gh_types *t, gh_mem *m, const gh_rtlayout *l,
		    uint64_t addr);

#endif

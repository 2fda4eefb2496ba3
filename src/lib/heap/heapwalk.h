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


/*
 * Fill p->types (p->kind GOHEAP_PROFILE_TYPES, set up by the session)
 * from s's target; with objects, also the one-line-per-object listing.
 * 0, or a GOHEAP_E* code with tg->err set.
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

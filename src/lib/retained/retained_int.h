/*
 * retained_int.h - what retained.c (the graph), retstack.c (the goroutine
 * stacks' roots) and retgraph.c (the graph under construction) share: the
 * builder's state, its limits and its helpers.
 */
#ifndef GH_RETAINED_INT_H
#define GH_RETAINED_INT_H

#include "gorshare.h"
#include "retmodel.h"
#include "rtlayout.h"
#include "target.h"

#define CHUNK 65536u
#define GH_RET_MAX_STACK ((uint64_t)1 << 30)  /* bytes of one stack */
#define GH_RET_MAX_FRAMES 100000u             /* frames of one stack */
#define GH_RET_PAGE_SHIFT 13                  /* gh_retained_find's pages */
#define GH_RET_PAGE_MASK (((uint64_t)1 << GH_RET_PAGE_SHIFT) - 1)
#define GH_RET_PAGE_MAX ((uint64_t)1 << 24)   /* pages indexed: 128 GiB */
#define GH_RET_RELEASE ((uint64_t)32 << 20)   /* object bytes a core's
                                               * pages are kept for */
#define GH_RET_PV 256u                        /* the scan's pointer words
                                               * looked up together */

/* A row's pointer layout (headered and largeType rows). */
typedef struct tinfo {
	uint64_t tsize, ptrbytes;
	unsigned char *mask;  /* ptrbytes / 8 bits; NULL: unknown */
	int state;            /* 0 unread, 1 read, 2 unknown, 3 on demand */
} tinfo;

typedef struct dsym {
	uint64_t addr;        /* runtime address */
	const char *name;
} dsym;

typedef struct rb {
	gh_target *s;
	gh_retained *r;
	gh_mem *m;
	const gh_rtlayout *l;
	size_t nobjs, capaddr, capsize, capent;
	struct run {          /* objects as the walk gave them: ascending */
		uint64_t lo, hi;      /* runs, [first, last] address */
		size_t at, n;
	} *runs;
	size_t nruns, capruns;
	size_t capadj, caproots, capoff;
	uint64_t unreleased;  /* object bytes read since the source's
	                       * pages were last released */
	uint64_t rel_nbytes;  /* the source's bytes read (m->nbytes) then */
	tinfo *ti;
	size_t nti;           /* ti's entries (r->types grows after) */
	unsigned char *buf;   /* CHUNK bytes */
	dsym *syms;
	size_t nsyms;
	uint32_t cur_root;    /* the root node taking edges; NONE: none */
	struct spl {          /* in-use spans with specials */
		uint64_t head, base, elemsize;
		int noscan;
	} *spl;
	size_t nspl, capspl;
	/* go1.19-1.21: the last arena's heapArena and a block of its bitmap */
	uint64_t arenas_l2, ar_index, ar_ha, bm_lo, bm_hi;
	int ar_ok;
	unsigned char bm[4096];
	int reads_only;       /* a live target's running pass (retlive.c):
	                       * its graph thrown away (the edges made all
	                       * the same: the inference takes its pointees
	                       * from them, cheaper than searching) */
	/* the scan's pointer words not yet looked up, and the objects whose
	 * words end before each (pv's count then) */
	uint64_t pv[GH_RET_PV];
	uint32_t pend[GH_RET_PV], pendobj[GH_RET_PV];
	uint32_t npv, npend;
} rb;

/* A window of the target's memory, a chunk at a time (gh_ret_word_at). */
typedef struct wbuf {
	uint64_t lo, hi;      /* b->buf holds [lo, hi) */
} wbuf;

/* One frame of a goroutine's stack (retstack.c). */
typedef struct gh_ret_frame {
	uint64_t sp, fp, pc;
	const char *name;
	int32_t args;
	uint8_t funcid;
} gh_ret_frame;

int gh_ret_nomem(rb *b);
/* What gh_retained_find(r, p) will read, asked for ahead: stage 0 the
 * page index's entry, stage 1 (after it) the objects it points at. */
void gh_ret_find_prefetch(const gh_retained *r, uint64_t p, int stage);
/* Close node v's edge list (nodes are made in order). */
int gh_ret_node_end(rb *b, uint64_t v);
/* An edge from the node being built to object dst. */
int gh_ret_edge(rb *b, uint32_t dst);
/* A new root node; its edges follow until the next. */
int gh_ret_root_new(rb *b, int kind, uint64_t addr, uint64_t goid,
		    const char *label);
/* The word at a (a < limit) through wb's window of b->buf. */
int gh_ret_word_at(rb *b, wbuf *wb, uint64_t a, uint64_t limit,
		   uint64_t *v);
/* The objects' arrays (r->addr, size8, ent) sorted by address, from the
 * walk's ascending runs (b->runs). */
int gh_ret_sort_objects(rb *b);
/* bytes more of objects read: a core's pages are released every
 * GH_RET_RELEASE bytes, or now. */
void gh_ret_release(rb *b, uint64_t bytes, int now);
/* retinfer.c: rows for the untyped objects that typed ones point at
 * through typed words (r->ent changed; new rows in r->types). */
int gh_ret_infer(rb *b);
/* retstack.c: every goroutine's roots (fr: GH_RET_MAX_FRAMES frames). */
int gh_ret_stack_roots(rb *b, gh_ret_frame *fr);
/* retroots.c: the data references (link-time addresses) of function
 * name's code (a struct gh_refvec, locate.h), -1 when not decoded. */
struct gh_refvec;
/* retroots.c: the queued finalizers' and cleanups' roots. */
int gh_ret_queue_roots(rb *b);

#endif

/*
 * retmodel.h - the graph of `-p retained` (retained.c builds it): its
 * nodes (the heap's objects sorted by address, then the roots, then one
 * super-root), the compact adjacency array (CSR), the dominators' arrays,
 * and what reads them: the object at an address and a node's label
 * (retgraph.c), the dominators (dominators.c).  The builder's helpers,
 * the inference, the roots' readers and the dominators include this
 * header, never the collector's (retained.h): the collector calls them,
 * they do not call it.  doc/retained.md has the design.
 */
#ifndef GH_RETMODEL_H
#define GH_RETMODEL_H

#include "heapwalk.h"
#include "profile.h"
#include "retlive.h"

/* Safety limits on hostile data. */
#define GH_RET_MAX_OBJECTS (1u << 30)
#define GH_RET_MAX_EDGES ((uint64_t)UINT32_MAX - 1)  /* 32-bit CSR offsets */

#define GH_RET_NONE 0xffffffffu

/* Root kinds, in the order reachability is attributed (an object reached
 * from a global is "data" even when a stack slot points at it too). */
enum gh_root_kind {
	GH_ROOT_DATA = 1,     /* a global in .data (moduledata.gcdata) */
	GH_ROOT_BSS,          /* a global in .bss (moduledata.gcbss) */
	GH_ROOT_FINALIZER,    /* a special: a finalizer's object's referents
	                       * and function, a cleanup's function words, a
	                       * weak pointer's handle */
	GH_ROOT_TINY,         /* a P's mcache's current tiny block
	                       * (gcMarkTinyAllocs) */
	GH_ROOT_STACK,        /* a goroutine's frame (its defer records,
	                       * panics and sched.ctxt too) */
	GH_ROOT_QUEUED,       /* a queued finalizer or cleanup (allfin,
	                       * gcCleanups: retroots.c) */
	GH_ROOT_LEAKED,       /* a leaked goroutine's frame (retleak.c
	                       * gh_leak_label_roots: -p goroutineleak's
	                       * judgement; a GH_ROOT_STACK root relabelled
	                       * "leaked goroutine N [reason]: f"), last: an
	                       * object it reaches is another kind's first */
	GH_ROOT_NKINDS
};

typedef struct gh_root {
	uint64_t addr;        /* the symbol, the frame's sp, the object */
	uint64_t goid;        /* stack roots */
	size_t name;          /* offset of its label in names */
	uint8_t kind;         /* enum gh_root_kind */
} gh_root;

/* -p goroutineleak: one goroutine's wait as the graph's builder read it
 * (retstack.c, when gh_retained.leak is set; retleak.c judges it): its
 * g, goid, status and waitReason, whether its stack has a sync frame
 * (1: Mutex, RWMutex or WaitGroup; 2: Cond.Wait) and its sudogs, three
 * words each in gh_retained.gwobj from at: the sudog, its c and elem. */
typedef struct gh_ret_gwait {
	uint64_t gp, goid;
	uint32_t status;
	uint8_t waitreason, sync_frame;
	size_t at, n;
} gh_ret_gwait;

typedef struct gh_retained {
	gh_types *types;      /* the rows (types and shapes) of the objects */
	uint32_t nobj, nroot; /* nodes: objects, roots, then the super-root */
	uint64_t *addr;       /* per object, sorted by address */
	uint32_t *size8;      /* per object: its bytes / 8 (gh_retained_size) */
	uint32_t *ent;        /* per object: its row in types */
	/* per 8 KiB page of [pg_lo, pg_lo + npg * 8 KiB): the first object
	 * at or above the page's start (gh_retained_find; NULL: none) */
	uint32_t *pg;
	uint64_t pg_lo, npg;
	uint32_t *off;        /* CSR: node i's edges adj[off[i] .. off[i+1]) */
	uint32_t *adj;
	uint64_t nedges;
	gh_root *roots;
	gh_buf names;         /* the roots' labels, NUL-terminated */
	/* results, per node (a shortest path from the roots: retained.h's
	 * gh_retained_parents, on demand) */
	uint32_t *idom;       /* immediate dominator; GH_RET_NONE unreachable */
	uint8_t *via;         /* the root kind that reached it first, 0 none */
	uint64_t *ret;        /* retained bytes */
	uint32_t *retn;       /* retained objects */
	/* totals */
	uint64_t objects, bytes, reach_objects, reach_bytes;
	uint64_t via_objects[GH_ROOT_NKINDS], via_bytes[GH_ROOT_NKINDS];
	uint64_t root_words[GH_ROOT_NKINDS];   /* root slots pointing at objects */
	uint64_t goroutines, stack_bytes, running_whole, running_regs;
	/* frames scanned with their stack maps, or every word (asyncPreempt
	 * and the frame under it, missing maps); stacks whose rest past the
	 * last frame unwound was scanned every word, and those bytes */
	uint64_t frames_precise, frames_conservative;
	uint64_t stacks_conservative, bytes_conservative;
	uint64_t unscanned;   /* pointerful objects whose pointers are unknown */
	uint64_t ondemand;    /* objects whose on-demand GC mask could not be
	                       * built from the type */
	uint64_t ondemand_types;   /* on-demand masks built from the type */
	/* types inferred from typed pointers (retinfer.c): objects and bytes
	 * given an inferred row, pointees two inferences disagreed on (the
	 * first kept), objects left without a type; infer_none: the release
	 * has no typed objects to infer from (go1.19, go1.21); truncated:
	 * the walk's budget ran out */
	uint64_t inferred_objects, inferred_bytes, infer_conflicts;
	uint64_t untyped_objects;
	int infer_none, infer_truncated;
	double t_infer;       /* seconds the inference took */
	/* queued finalizers and cleanups read (retroots.c); queue_state 0
	 * read, 1 not found (stripped), 2 unknown release, 3 damaged, 4 the
	 * finalizers only (gcCleanups not found) */
	uint64_t queued;
	int queue_state;
	int queue_found;      /* 1: found through the code (no symbols) */
	/* scanstack's extra pointers (retstack.c): defer records walked,
	 * panics and sched.ctxt words that point somewhere */
	uint64_t defers, panics, ctxts;
	int symbols;          /* data roots named from .symtab */
	double t_read, t_graph, t_dom;
	gh_ret_snap snap;
	/* -p goroutineleak (retleak.c): leak 1 while the graph is built for
	 * it (retstack.c records gw, and the semaphore waiters found in
	 * runtime.semtable: semw, three words each: g, sudog, elem; sema_state
	 * 0 read, 1 not needed, 2 runtime.semtable not found, 3 damaged) */
	int leak, sema_state;
	size_t leaked;        /* -p retained: goroutines whose roots are
	                       * GH_ROOT_LEAKED (gh_leak_label_roots) */
	gh_ret_gwait *gw;
	size_t ngw, capgw;
	uint64_t *gwobj, *semw;
	size_t ngwobj, capgwobj, nsemw, capsemw;
} gh_retained;

/* r and its arrays (NULL: nothing). */
void gh_retained_free(gh_retained *r);

/* -p retained's part of p (GH_PART_RETAINED; NULL: none): the graph and
 * its dominators, freed with p (gh_retained_collect sets it). */
static inline gh_retained *gh_retained_of(const gh_profile *p)
{
	return (gh_retained *)gh_profile_part(p, GH_PART_RETAINED);
}

/* Object v's size in bytes (v < r->nobj). */
static inline uint64_t gh_retained_size(const gh_retained *r, uint32_t v)
{
	return (uint64_t)r->size8[v] << 3;
}

/* The object containing addr (findObject), or GH_RET_NONE. */
uint32_t gh_retained_find(const gh_retained *r, uint64_t addr);

/* The label of node v: a root's, or the type (shape) of an object. */
const char *gh_retained_label(const gh_retained *r, uint32_t v);

/* dominators.c: idom, ret and retn of r's graph (Lengauer-Tarjan from the
 * super-root).  0, GOHEAP_ENOMEM or GOHEAP_EIO (a spilled array could not
 * be read back from its temporary file). */
int gh_retained_dominators(gh_retained *r);

#endif

/*
 * retained.h - who holds the heap (`-p retained`): the object graph from
 * the garbage collector's own metadata, reachability from the roots, the
 * dominator tree and each object's retained size, with no DWARF.
 *
 * The nodes are 32-bit indexes: the heap's objects first (sorted by
 * address: an interior pointer finds its object by binary search, as the
 * runtime's findObject finds its span and slot), then the roots (one node
 * per global symbol, goroutine frame, finalizer), then one super-root
 * whose edges go to every root.  Edges are one compact adjacency array
 * (CSR).  doc/retained.md has the design and what is precise.
 */
#ifndef GH_RETAINED_H
#define GH_RETAINED_H

#include "heapwalk.h"
#include "profile.h"
#include "target.h"

/* The graph's model (gh_retained, gh_root) is in profile.h. */

/* Safety limits on hostile data. */
#define GH_RET_MAX_OBJECTS (1u << 30)
#define GH_RET_MAX_EDGES ((uint64_t)UINT32_MAX - 1)  /* 32-bit CSR offsets */

/*
 * Fill p->retained (kind GOHEAP_PROFILE_RETAINED) from s's target: a live
 * target is read running and stopped only while what was read is copied
 * (retlive.c; the whole read where that cannot be).  0, or a GOHEAP_E*
 * code with s->err set (s: the target).
 */
int gh_retained_collect(gh_profile *p, gh_target *s);

/* The graph alone, with every goroutine's wait (gh_retained.gw, semw)
 * for -p goroutineleak (retleak.c): no reachability, no dominators. */
int gh_retained_collect_leak(gh_profile *p, gh_target *s);

/* The object containing addr (findObject), or GH_RET_NONE. */
uint32_t gh_retained_find(const gh_retained *r, uint64_t addr);

/* The label of node v: a root's, or the type (shape) of an object. */
const char *gh_retained_label(const gh_retained *r, uint32_t v);

/* A shortest path's previous node of each node (the roots' kinds in
 * order, breadth first: the root kind that reaches it first), allocated
 * (the caller frees it), NULL when out of memory; a root's is the
 * super-root, an unreachable node's GH_RET_NONE. */
uint32_t *gh_retained_parents(const gh_retained *r);

/*
 * --path WANT: the object (*obj) at address WANT ("0x..."), or the
 * reachable object of type or shape WANT that retains the most, and a
 * shortest path to it from the roots (gh_retained_parents): *chain (the
 * caller frees it) holds its *n nodes from the object up to its root, or
 * is NULL with *n 0 when the object is unreachable.  0, or GOHEAP_EINVAL
 * (no such object) / GOHEAP_ENOMEM with err set.
 */
int gh_retained_path(const gh_retained *r, const char *want, uint32_t *obj,
		     uint32_t **chain, uint32_t *n, gh_err *err);

/* dominators.c: idom, ret and retn of r's graph (Lengauer-Tarjan from the
 * super-root).  0, GOHEAP_ENOMEM or GOHEAP_EIO (a spilled array could not
 * be read back from its temporary file). */
int gh_retained_dominators(gh_retained *r);

#endif

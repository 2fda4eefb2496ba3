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

#include "retmodel.h"
#include "rtlayout.h"
#include "target.h"


/*
 * Names the roots of goroutines judged leaked GH_ROOT_LEAKED in r (built
 * with r->leak set), *n the goroutines: retleak.c's gh_leak_label_roots,
 * handed in by the caller (the leak judgement sits above the graph, which
 * calls no judge of its own).  0 or GOHEAP_ENOMEM.
 */
typedef int (*gh_ret_labeller)(gh_retained *r, const gh_rtlayout *l,
			       size_t *n);

/*
 * Fill p's retained part (kind GOHEAP_PROFILE_RETAINED) from s's target:
 * a live target is read running and stopped only while what was read is
 * copied (retlive.c; the whole read where that cannot be); label (NULL:
 * none) names leaked goroutines' roots before the dominators.  0, or a
 * GOHEAP_E* code with s->err set (s: the target).
 */
int gh_retained_collect(gh_profile *p, gh_target *s, gh_ret_labeller label);

/* The graph alone, with every goroutine's wait (gh_retained.gw, semw)
 * for -p goroutineleak (retleak.c): no reachability, no dominators. */
int gh_retained_collect_leak(gh_profile *p, gh_target *s);



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


#endif

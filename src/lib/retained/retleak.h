/*
 * retleak.h - leaked goroutines by the runtime's own algorithm on
 * -p retained's graph (retleak.c, doc/goroutineleak.md).
 */
#ifndef GH_RETLEAK_H
#define GH_RETLEAK_H

#include "profile.h"
#include "retained.h"
#include "rtlayout.h"
#include "target.h"

/* What one leaked goroutine alone keeps alive. */
typedef struct gh_leak_held {
	uint64_t objects, bytes;
} gh_leak_held;

typedef struct gh_leak {
	uint64_t *goids;      /* the leaked goroutines, ascending */
	size_t ngoids, capgoids;
	gh_leak_held *held;   /* per goids[i] */
	size_t candidates;    /* goroutines judged (waiting on chan/sync) */
	size_t candidates_left; /* not found runnable (main's select {} too) */
	int main_select;      /* goroutine 1 in select {}: not reported */
	int sema_state;       /* gh_retained.sema_state */
	/* every object reachable only from leaked goroutines */
	uint64_t objects, bytes;
	/* the graph: its objects and edges, the live stop, seconds */
	uint64_t graph_objects, graph_edges;
	gh_ret_snap snap;
	double t_graph, t_total;
	double graph_stop;    /* seconds the graph's read stopped a live
	                       * target (0: not stopped) */
} gh_leak;

/* -p retained: r's stack roots of goroutines gh_leak_find finds leaked
 * become GH_ROOT_LEAKED, labelled "leaked goroutine N [wait reason]..."
 * (r built with r->leak set; nothing changes when none leaked).  0 or
 * GOHEAP_ENOMEM; *n: the leaked goroutines.  The labeller session.c hands
 * to gh_retained_collect (a gh_ret_labeller): the leak finder is above
 * the graph. */
int gh_leak_label_roots(gh_retained *r, const gh_rtlayout *l, size_t *n);

/* A record's arrays (not lk itself); the goroutine part's leak_free. */
void gh_leak_free(gh_leak *lk);

/* The fixpoint on r (built by gh_retained_collect_leak) with l's release
 * facts: 0 or GOHEAP_ENOMEM. */
int gh_leak_find(gh_retained *r, const gh_rtlayout *l, gh_leak *lk);

/* gh_leak_label_roots (-p retained's leaked roots): declared in
 * retained_int.h, the hook retained.c calls (no include circle). */

/* -p goroutineleak: p (kind GOHEAP_PROFILE_GOROUTINE, its goroutine part's
 * leak set: GH_PART_GOROUTINELEAK) holds the leaked goroutines as the
 * goroutine profile has them (retleak.c). */
int gh_goroutineleak_collect(gh_profile *p, gh_target *s);

/* What the goroutines of the record whose first goroutine is gors[first]
 * keep alive, each alone (summed). */
void gh_leak_group_held(const gh_profile *p, size_t first,
			gh_leak_held *out);
/* "# go-heap: ..." lines after -f text: the bytes held, per record. */
struct gh_sym;
void gh_leak_text_note(const gh_profile *p, const struct gh_sym *sym,
		       gh_buf *out);

/* v: p with only its leaked goroutines (gors and recs allocated anew,
 * the rest shared with p): what -f text, pprof and top write.  0 or
 * GOHEAP_ENOMEM; gh_leak_view_free frees v's arrays. */
int gh_leak_view(const gh_profile *p, gh_profile *v);
void gh_leak_view_free(gh_profile *v);

#endif

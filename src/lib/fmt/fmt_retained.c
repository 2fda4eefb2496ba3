/*
 * fmt_retained.c - who holds the heap (retained.c) as text and pprof.
 *
 * top:       the header (allocated, reachable, unreachable, the roots),
 *            then the biggest holders: roots and objects by retained
 *            bytes (what would be freed if they let go), -n rows
 * text:      the `jmap -histo:live` view: every row (type or shape) with
 *            its reachable and unreachable objects and bytes, most
 *            reachable bytes first
 * collapsed: "root;type;...;type bytes": each reachable object's bytes
 *            under its dominator path (the frames are the dominators'
 *            types, a run of one type folded into one frame)
 * pprof:     the same paths as profile.proto: sample types
 *            inuse_objects/count, inuse_space/bytes (the objects' own
 *            bytes: a frame's cumulative value is what its holders
 *            retain), retained_space/bytes (the retained bytes of the
 *            objects where the path enters that frame: read it flat)
 * objects:   one line per object (tests): address, size, reachable,
 *            the root kind that reached it, retained bytes and objects,
 *            its immediate dominator (an address or "root"), type
 * --path:    a shortest path from a root to one object (by address, or
 *            the type's object that retains the most)
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "retained.h"
#include "writers.h"
#include "pb.h"

#define NONE GH_RET_NONE
#define MAX_DEPTH 48u

static const char *const kind_names[GH_ROOT_NKINDS] = {
	"-", "data", "bss", "finalizer", "tiny", "stack", "queued", "leaked"
};

static double pct(uint64_t a, uint64_t b)
{
	return b != 0 ? 100.0 * (double)a / (double)b : 0.0;
}

static void header(const gh_profile *p, const gh_retained *r, gh_buf *b,
		   const char *pfx)
{
	uint64_t rw = 0;
	size_t k, nr[GH_ROOT_NKINDS] = { 0 };
	char runs[128] = "";

	for (k = 0; k < r->nroot; k++)
		nr[r->roots[k].kind]++;
	/* running goroutines found on their thread (a core's, the stop's):
	 * only their interrupted frame every word */
	if (r->running_regs > 0)
		snprintf(runs, sizeof(runs), " (and the interrupted frame "
			 "of %llu more, unwound from their threads' "
			 "registers)", (unsigned long long)r->running_regs);
	for (k = 1; k < GH_ROOT_NKINDS; k++)
		rw += r->root_words[k];
	gh_buf_printf(b, "%sgo-heap -p retained: who holds the Go heap, "
		      "go1.%d.%d, %s\n", pfx, p->ver.minor, p->ver.patch,
		      p->source);
	gh_buf_printf(b, "%sallocated: %llu objects, %llu bytes; reachable: "
		      "%llu objects (%.1f%%), %llu bytes (%.1f%%); "
		      "unreachable (garbage the next GC frees): %llu objects, "
		      "%llu bytes\n", pfx, (unsigned long long)r->objects,
		      (unsigned long long)r->bytes,
		      (unsigned long long)r->reach_objects,
		      pct(r->reach_objects, r->objects),
		      (unsigned long long)r->reach_bytes,
		      pct(r->reach_bytes, r->bytes),
		      (unsigned long long)(r->objects - r->reach_objects),
		      (unsigned long long)(r->bytes - r->reach_bytes));
	gh_buf_printf(b, "%sroots: %llu slots pointing into the heap: data "
		      "%llu in %zu %s, bss %llu in %zu %s (precise: the "
		      "module's GC programs); stacks %llu in %zu frames of "
		      "%llu goroutines\n", pfx,
		      (unsigned long long)rw,
		      (unsigned long long)r->root_words[GH_ROOT_DATA],
		      nr[GH_ROOT_DATA], r->symbols ? "symbols" : "runs",
		      (unsigned long long)r->root_words[GH_ROOT_BSS],
		      nr[GH_ROOT_BSS], r->symbols ? "symbols" : "runs",
		      (unsigned long long)r->root_words[GH_ROOT_STACK],
		      nr[GH_ROOT_STACK] + nr[GH_ROOT_LEAKED],
		      (unsigned long long)r->goroutines);
	gh_buf_printf(b, "%sstacks: %llu frames precise (stack maps, stack "
		      "objects), %llu frames conservative (every word that "
		      "points into an object: asyncPreempt, missing maps); "
		      "conservative too: %llu running goroutines' whole stacks"
		      "%s, the rest of %llu stacks not unwound (%llu bytes)\n",
		      pfx, (unsigned long long)r->frames_precise,
		      (unsigned long long)r->frames_conservative,
		      (unsigned long long)r->running_whole, runs,
		      (unsigned long long)r->stacks_conservative,
		      (unsigned long long)r->bytes_conservative);
	gh_buf_printf(b, "%sspecials: %zu roots (finalizers: their objects' "
		      "referents and functions; cleanups' functions; weak "
		      "pointers' handles), %llu slots\n", pfx,
		      nr[GH_ROOT_FINALIZER],
		      (unsigned long long)r->root_words[GH_ROOT_FINALIZER]);
	gh_buf_printf(b, "%sreached first from: globals %llu objects %llu "
		      "bytes, specials %llu objects %llu bytes, stacks %llu "
		      "objects %llu bytes\n", pfx,
		      (unsigned long long)(r->via_objects[GH_ROOT_DATA] +
					   r->via_objects[GH_ROOT_BSS]),
		      (unsigned long long)(r->via_bytes[GH_ROOT_DATA] +
					   r->via_bytes[GH_ROOT_BSS]),
		      (unsigned long long)r->via_objects[GH_ROOT_FINALIZER],
		      (unsigned long long)r->via_bytes[GH_ROOT_FINALIZER],
		      (unsigned long long)r->via_objects[GH_ROOT_STACK],
		      (unsigned long long)r->via_bytes[GH_ROOT_STACK]);
	if (nr[GH_ROOT_LEAKED] > 0)
		gh_buf_printf(b, "%sleaked goroutines (-p goroutineleak: "
			      "blocked for ever on what nothing else reaches): "
			      "%zu, their %zu frames roots of their own kind; "
			      "reached from them alone: %llu objects %llu "
			      "bytes\n", pfx, r->leaked, nr[GH_ROOT_LEAKED],
			      (unsigned long long)r->via_objects[GH_ROOT_LEAKED],
			      (unsigned long long)r->via_bytes[GH_ROOT_LEAKED]);
	if (nr[GH_ROOT_TINY] > 0)
		gh_buf_printf(b, "%sthe Ps' current tiny blocks: %zu roots\n",
			      pfx, nr[GH_ROOT_TINY]);
	gh_buf_printf(b, "%sdefer records: %llu (their closures, links and "
		      "heap records), panics: %llu, sched.ctxt: %llu\n", pfx,
		      (unsigned long long)r->defers,
		      (unsigned long long)r->panics,
		      (unsigned long long)r->ctxts);
	if (r->queue_state == 0 || r->queue_state == 4)
		gh_buf_printf(b, "%squeued finalizers and cleanups (allfin, "
			      "gcCleanups%s): %llu, %zu roots; reached first "
			      "from them: %llu objects %llu bytes\n", pfx,
			      r->queue_found ? ", found through markroot's "
			      "code" : "",
			      (unsigned long long)r->queued,
			      nr[GH_ROOT_QUEUED],
			      (unsigned long long)r->via_objects[GH_ROOT_QUEUED],
			      (unsigned long long)r->via_bytes[GH_ROOT_QUEUED]);
	if (r->queue_state == 4)
		gh_buf_printf(b, "%snot roots: the queued cleanups (no "
			      "gcCleanups symbol, and not found through the "
			      "code): what only they hold shows as "
			      "unreachable\n", pfx);
	else if (r->queue_state != 0)
		gh_buf_printf(b, "%snot roots, or in part only: the queued finalizers and "
			      "cleanups (%s): what only they hold shows as "
			      "unreachable\n", pfx, r->queue_state == 1 ?
			      "no runtime.allfin symbol, and not found through "
			      "runtime.markroot's code" : r->queue_state == 2 ? "this release's "
			      "layout is unknown" : "their blocks are damaged");
	if (r->unscanned > 0)
		gh_buf_printf(b, "%swarning: %llu pointerful objects whose "
			      "pointers are unknown (no usable type): their "
			      "referents may show as unreachable\n", pfx,
			      (unsigned long long)r->unscanned);
	if (r->infer_none)
		gh_buf_printf(b, "%stypes: go1.%d objects carry no type in "
			      "the heap (no malloc headers): none inferred, "
			      "all shapes\n", pfx, p->ver.minor);
	else
		gh_buf_printf(b, "%sinferred types: %llu objects, %llu bytes "
			      "typed from the typed objects pointing at them "
			      "(rows \"T (inferred)\"); %llu objects untyped "
			      "(shapes); %llu conflicting inferences (the first "
			      "kept), %.1f ms%s\n", pfx,
			      (unsigned long long)r->inferred_objects,
			      (unsigned long long)r->inferred_bytes,
			      (unsigned long long)r->untyped_objects,
			      (unsigned long long)r->infer_conflicts,
			      r->t_infer * 1e3, r->infer_truncated ? "; the walk's budget ran "
			      "out: incomplete" : "");
	if (r->ondemand_types > 0)
		gh_buf_printf(b, "%s%llu types' GC masks built from the type "
			      "(TFlagGCMaskOnDemand), as buildGCMask does\n", pfx,
			      (unsigned long long)r->ondemand_types);
	if (r->ondemand > 0)
		gh_buf_printf(b, "%swarning: %llu objects of on-demand types "
			      "whose mask could not be built: every word taken "
			      "as a pointer where it points into an object\n",
			      pfx, (unsigned long long)r->ondemand);
	if (r->types->bad_spans > 0)
		gh_buf_printf(b, "%swarning: %llu spans left out as "
			      "implausible; the first, %s\n", pfx,
			      (unsigned long long)r->types->bad_spans,
			      r->types->first_bad);
	if (p->stop.state == 1 && r->snap.on)
		gh_buf_printf(b, "%sa consistent snapshot: the process was "
			      "stopped %.3f ms while %llu bytes in %llu ranges "
			      "it read running were copied (%llu rounds; %llu "
			      "bytes in a temporary file; %llu spans in use, "
			      "%llu changed); %llu reads outside the snapshot "
			      "(%llu bytes), %llu bytes unreadable\n", pfx,
			      (p->stop.end - p->stop.begin) * 1e3,
			      (unsigned long long)r->snap.bytes,
			      (unsigned long long)r->snap.ranges,
			      (unsigned long long)r->snap.rounds,
			      (unsigned long long)r->snap.file_bytes,
			      (unsigned long long)r->snap.spans,
			      (unsigned long long)r->snap.spans_fetched,
			      (unsigned long long)r->snap.misses,
			      (unsigned long long)r->snap.miss_bytes,
			      (unsigned long long)r->snap.lost);
	else if (p->stop.state == 1)
		gh_buf_printf(b, "%sa consistent snapshot: the process was "
			      "stopped %.3f ms while the graph was read\n", pfx,
			      (p->stop.end - p->stop.begin) * 1e3);
	else if (p->stop.state == 2)
		gh_buf_printf(b, "%sread while the process ran (--no-stop): "
			      "best-effort\n", pfx);
}

/* ---- dominator paths as stacks ------------------------------------------ */

typedef struct snode {
	uint32_t parent, frame, depth;
	uint64_t objects, bytes, retained;
} snode;

typedef struct stacks {
	snode *v;
	size_t n, cap;
	gh_hmap idx;
	uint32_t *sid;        /* per node: its stack, NONE not yet */
	uint32_t nframes;     /* types' rows, then roots, then "(roots)" */
} stacks;

static void stacks_free(stacks *st)
{
	free(st->v);
	gh_hmap_free(&st->idx);
	free(st->sid);
}

static uint32_t frame_of(const gh_retained *r, uint32_t v)
{
	if (v < r->nobj)
		return r->ent[v];
	return (uint32_t)r->types->n + (v - r->nobj);
}

static const char *frame_name(const gh_retained *r, uint32_t f)
{
	const gh_tentry *e;

	if (f < r->types->n) {
		e = &r->types->e[f];
		return e->type != 0 ? e->name : e->shape;
	}
	if (f - r->types->n < r->nroot)
		return gh_retained_label(r, r->nobj + (f - (uint32_t)
							r->types->n));
	return "(several roots)";
}

static int intern(stacks *st, uint32_t parent, uint32_t frame,
		  uint32_t *out)
{
	uint64_t key = ((uint64_t)parent << 32 | frame) * 0x9e3779b97f4a7c15ULL;
	size_t it;
	uint64_t x;

	key |= 1;
	for (x = gh_hmap_first(&st->idx, key, &it); x != 0;
	     x = gh_hmap_next(&st->idx, key, &it)) {
		if (st->v[x - 1].parent == parent &&
		    st->v[x - 1].frame == frame) {
			*out = (uint32_t)(x - 1);
			return 0;
		}
	}
	if (gh_grow(&st->v, &st->cap, st->n + 1, sizeof(*st->v)) != 0 ||
	    gh_hmap_add(&st->idx, key, st->n + 1) != 0)
		return GOHEAP_ENOMEM;
	memset(&st->v[st->n], 0, sizeof(st->v[0]));
	st->v[st->n].parent = parent;
	st->v[st->n].frame = frame;
	st->v[st->n].depth = parent == NONE ? 1 : st->v[parent].depth + 1;
	*out = (uint32_t)st->n++;
	return 0;
}

/* Node v's stack, with its dominators' first. */
static int stack_of(const gh_retained *r, stacks *st, uint32_t v0,
		    uint32_t *chain)
{
	uint32_t super = r->nobj + r->nroot, n = 0, v = v0, s, f, ps;
	int rc;

	while (v != super && st->sid[v] == NONE) {
		chain[n++] = v;
		v = r->idom[v];
	}
	while (n > 0) {
		v = chain[--n];
		if (r->idom[v] == super) {
			ps = v >= r->nobj ? NONE : (uint32_t)-2;
			if (ps == (uint32_t)-2) {
				rc = intern(st, NONE, st->nframes - 1, &ps);
				if (rc != 0)
					return rc;
			}
		} else
			ps = st->sid[r->idom[v]];
		f = frame_of(r, v);
		if (ps != NONE && (st->v[ps].frame == f ||
				   st->v[ps].depth >= MAX_DEPTH)) {
			s = ps;
		} else {
			rc = intern(st, ps, f, &s);
			if (rc != 0)
				return rc;
		}
		st->sid[v] = s;
		if (v < r->nobj) {
			st->v[s].objects++;
			st->v[s].bytes += gh_retained_size(r, v);
			if (s != ps)
				st->v[s].retained += r->ret[v];
		}
	}
	return 0;
}

static int build_stacks(const gh_retained *r, stacks *st)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot + 1;
	uint32_t *chain, i;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	st->nframes = (uint32_t)r->types->n + r->nroot + 1;
	st->sid = malloc(nn * sizeof(uint32_t));
	chain = malloc(nn * sizeof(uint32_t));
	if (st->sid == NULL || chain == NULL) {
		free(chain);
		return GOHEAP_ENOMEM;
	}
	memset(st->sid, 0xff, nn * sizeof(uint32_t));
	for (i = 0; i < r->nobj && rc == 0; i++)
		if (r->idom[i] != NONE)
			rc = stack_of(r, st, i, chain);
	free(chain);
	return rc;
}

/* A frame as one element of a folded stack. */
static void put_frame(gh_buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		gh_buf_putc(b, *s == ';' ? ',' : *s);
}

static void folded(const gh_retained *r, const stacks *st, uint32_t s,
		   gh_buf *b)
{
	uint32_t path[MAX_DEPTH + 2], n = 0;

	for (; s != NONE && n < MAX_DEPTH + 2; s = st->v[s].parent)
		path[n++] = s;
	while (n > 0) {
		put_frame(b, frame_name(r, st->v[path[--n]].frame));
		if (n > 0)
			gh_buf_putc(b, ';');
	}
}

/*
 * profile.proto: one sample per stack with objects; a location and a
 * function per frame (id = frame + 1).  Strings: 0 "", 1 inuse_objects,
 * 2 count, 3 inuse_space, 4 bytes, 5 retained_space, 6 the comment, then
 * frame f's name at 7 + f.
 */
static int write_pprof(const gh_profile *p, const gh_retained *r,
		       const stacks *st, gh_buf *out, gh_err *err)
{
	gh_pb b = GH_PB_INIT;
	gh_buf c = GH_BUF_INIT;
	uint64_t locs[MAX_DEPTH + 2];
	size_t i, m;
	uint32_t f;
	int64_t val[3];

	gh_spp_valtype(&b, 1, 1, 2);
	gh_spp_valtype(&b, 1, 3, 4);
	gh_spp_valtype(&b, 1, 5, 4);
	for (i = 0; i < st->n; i++) {
		uint32_t s = (uint32_t)i, n = 0;

		if (st->v[i].objects == 0)
			continue;
		for (; s != NONE && n < MAX_DEPTH + 2; s = st->v[s].parent)
			locs[n++] = (uint64_t)st->v[s].frame + 1;
		m = gh_pb_start_message(&b);
		gh_pb_uint64s(&b, 1, locs, n);
		val[0] = (int64_t)st->v[i].objects;
		val[1] = (int64_t)st->v[i].bytes;
		val[2] = (int64_t)st->v[i].retained;
		gh_pb_int64s(&b, 2, val, 3);
		gh_pb_end_message(&b, 2, m);
	}
	gh_spp_frames(&b, st->nframes, 7, 1);
	gh_spp_str(&b, "");
	gh_spp_str(&b, "inuse_objects");
	gh_spp_str(&b, "count");
	gh_spp_str(&b, "inuse_space");
	gh_spp_str(&b, "bytes");
	gh_spp_str(&b, "retained_space");
	header(p, r, &c, "");
	gh_buf_putc(&c, '\0');
	gh_spp_str(&b, c.oom ? "" : (const char *)c.data);
	gh_buf_free(&c);
	for (f = 0; f < st->nframes; f++)
		gh_spp_str(&b, frame_name(r, f));
	return gh_spp_finish(&b, p->time_nanos, 3, 4, 6, 3, out, err);
}

/* ---- top, text, objects, path ------------------------------------------- */

typedef struct hrank {
	uint64_t ret;
	uint32_t v;
} hrank;

static int by_ret(const void *x, const void *y)
{
	const hrank *a = x, *b = y;

	if (a->ret != b->ret)
		return a->ret > b->ret ? -1 : 1;
	/* roots (the higher indexes) first at equal bytes */
	return a->v > b->v ? -1 : a->v < b->v;
}

static void node_desc(const gh_retained *r, uint32_t v, gh_buf *b)
{
	if (v < r->nobj)
		gh_buf_printf(b, "0x%llx %s", (unsigned long long)r->addr[v],
			      gh_retained_label(r, v));
	else if (r->roots[v - r->nobj].kind == GH_ROOT_LEAKED)
		gh_buf_printf(b, "root %s", gh_retained_label(r, v));
	else
		gh_buf_printf(b, "%s root %s",
			      kind_names[r->roots[v - r->nobj].kind],
			      gh_retained_label(r, v));
}

/* The heap's order of the kept rows: its root the one that sorts last. */
static void sift(hrank *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		hrank x;

		if (l < n && by_ret(&h[l], &h[m]) > 0)
			m = l;
		if (l + 1 < n && by_ret(&h[l + 1], &h[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/*
 * The holders by retained bytes, roots before objects at equal bytes; a
 * holder that keeps 99% or more of what its immediate dominator keeps
 * (the next link of a list, a map's buckets under the map) is folded into
 * it, as is everything folded below a folded one: one row per chain.
 * Whether a holder folds needs only its dominator (which comes before it
 * in that order: more bytes, or as many and a higher index), so the rows
 * shown are the first -n of the holders that do not fold, kept in a heap
 * of -n rows (no sort of every node).
 */
static int write_top(const gh_profile *p, const gh_retained *r, int top_n,
		     gh_buf *out, gh_err *err)
{
	uint64_t nn = (uint64_t)r->nobj + r->nroot, i, want, shown = 0,
		 folded = 0;
	size_t cap, n = 0;
	hrank *h;

	want = top_n > 0 ? (uint64_t)top_n : 20;
	cap = want < nn ? (size_t)want : (size_t)nn;
	h = malloc((cap + 1) * sizeof(*h));
	if (h == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < nn; i++) {
		uint32_t d = r->idom[i];
		hrank c;

		if (d == NONE)
			continue;
		if (d < nn && (r->ret[d] > r->ret[i] ||
			       (r->ret[d] == r->ret[i] && d > i)) &&
		    (double)r->ret[i] >= 0.99 * (double)r->ret[d]) {
			folded++;
			continue;
		}
		shown++;
		c.ret = r->ret[i];
		c.v = (uint32_t)i;
		if (n < cap) {
			size_t k = n++;

			h[k] = c;
			while (k > 0 && by_ret(&h[(k - 1) / 2], &h[k]) < 0) {
				hrank x = h[k];

				h[k] = h[(k - 1) / 2];
				h[(k - 1) / 2] = x;
				k = (k - 1) / 2;
			}
		} else if (cap > 0 && by_ret(&c, &h[0]) < 0) {
			h[0] = c;
			sift(h, n, 0);
		}
	}
	if (n > 1)
		qsort(h, n, sizeof(*h), by_ret);
	header(p, r, out, "");
	gh_buf_printf(out, "\n %4s %14s %10s %12s  %s\n", "num", "retained",
		      "objects", "own bytes", "holder (root, or object and "
		      "type)");
	gh_buf_printf(out, "%s\n", "-------------------------------------"
		      "-------------------------------------");
	for (i = 0; i < n; i++) {
		uint32_t v = h[i].v;

		gh_buf_printf(out, " %3llu: %14llu %10llu %12llu  ",
			      (unsigned long long)(i + 1),
			      (unsigned long long)r->ret[v],
			      (unsigned long long)r->retn[v],
			      (unsigned long long)(v < r->nobj ?
						   gh_retained_size(r, v) : 0));
		node_desc(r, v, out);
		gh_buf_putc(out, '\n');
	}
	if (shown > want)
		gh_buf_printf(out, " %4s %llu more holders (-n)\n", "...",
			      (unsigned long long)(shown - want));
	gh_buf_printf(out, " (%llu holders keeping 99%% or more of their "
		      "dominator's bytes are folded into it)\n",
		      (unsigned long long)folded);
	free(h);
	return 0;
}

/* The rows by reachable bytes, then unreachable bytes (jmap -histo:live's
 * order); c: four counts a row. */
typedef struct trow {
	const uint64_t *c;
	size_t i;
} trow;

static int by_live(const void *x, const void *y)
{
	const trow *a = x, *b = y;

	if (a->c[1] != b->c[1])
		return a->c[1] > b->c[1] ? -1 : 1;
	if (a->c[3] != b->c[3])
		return a->c[3] > b->c[3] ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int write_text(const gh_profile *p, const gh_retained *r,
		      gh_buf *out, gh_err *err)
{
	size_t nt = r->types->n, i, k;
	uint64_t *c = gh_calloc(4 * nt + 1, sizeof(uint64_t));
	trow *o = gh_calloc(nt + 1, sizeof(*o));
	uint32_t v;

	if (c == NULL || o == NULL) {
		free(c);
		free(o);
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	}
	for (v = 0; v < r->nobj; v++) {
		int live = r->idom[v] != NONE;

		c[4 * r->ent[v] + (live ? 0 : 2)]++;
		c[4 * r->ent[v] + (live ? 1 : 3)] += gh_retained_size(r, v);
	}
	header(p, r, out, "# ");
	gh_buf_printf(out, "reachable_objects\treachable_bytes\t"
		      "unreachable_objects\tunreachable_bytes\ttype\tshape\n");
	for (i = 0; i < nt; i++) {
		o[i].c = c + 4 * i;
		o[i].i = i;
	}
	if (nt > 1)
		qsort(o, nt, sizeof(*o), by_live);
	for (k = 0; k < nt; k++) {
		const gh_tentry *e;

		i = o[k].i;
		e = &r->types->e[i];
		if (c[4 * i] + c[4 * i + 2] == 0)
			continue;
		gh_buf_printf(out, "%llu\t%llu\t%llu\t%llu\t%s\t%s\n",
			      (unsigned long long)c[4 * i],
			      (unsigned long long)c[4 * i + 1],
			      (unsigned long long)c[4 * i + 2],
			      (unsigned long long)c[4 * i + 3],
			      e->type != 0 ? e->name : "untyped", e->shape);
	}
	free(c);
	free(o);
	return 0;
}

static void write_objects(const gh_retained *r, gh_buf *out)
{
	uint32_t v, d;

	for (v = 0; v < r->nobj; v++) {
		d = r->idom[v];
		gh_buf_printf(out, "0x%llx %llu %d %s %llu %u ",
			      (unsigned long long)r->addr[v],
			      (unsigned long long)gh_retained_size(r, v), d != NONE,
			      kind_names[r->via[v]],
			      (unsigned long long)(d != NONE ? r->ret[v] : 0),
			      d != NONE ? r->retn[v] : 0);
		if (d == NONE)
			gh_buf_printf(out, "-");
		else if (d < r->nobj)
			gh_buf_printf(out, "0x%llx",
				      (unsigned long long)r->addr[d]);
		else
			gh_buf_printf(out, "root");
		gh_buf_printf(out, " %s\n", gh_retained_label(r, v));
	}
}

static int write_path(const gh_retained *r, const char *want, gh_buf *out,
		      gh_err *err)
{
	uint32_t v, n, *chain;
	int rc;

	rc = gh_retained_path(r, want, &v, &chain, &n, err);
	if (rc != 0)
		return rc;
	if (chain == NULL) {
		gh_buf_printf(out, "0x%llx %s (%llu bytes): unreachable, "
			      "garbage the next GC frees\n",
			      (unsigned long long)r->addr[v],
			      gh_retained_label(r, v),
			      (unsigned long long)gh_retained_size(r, v));
		return 0;
	}
	gh_buf_printf(out, "a shortest path from the roots (%s) to "
		      "0x%llx %s, %llu bytes, retaining %llu bytes in %u "
		      "objects:\n", "globals first, then specials, tiny "
		      "blocks, stacks",
		      (unsigned long long)r->addr[v], gh_retained_label(r, v),
		      (unsigned long long)gh_retained_size(r, v),
		      (unsigned long long)r->ret[v], r->retn[v]);
	while (n > 0) {
		uint32_t x = chain[--n];

		gh_buf_printf(out, "  ");
		node_desc(r, x, out);
		if (x < r->nobj)
			gh_buf_printf(out, " (%llu bytes, retains %llu)",
				      (unsigned long long)gh_retained_size(r, x),
				      (unsigned long long)r->ret[x]);
		gh_buf_putc(out, '\n');
	}
	free(chain);
	return 0;
}

int gh_write_retained(const gh_profile *p, const gh_wctx *w, int format,
		      const char *path, gh_buf *out, gh_err *err)
{
	const gh_retained *r = gh_retained_of(p);
	stacks st;
	size_t i;
	int rc, space;

	if (r == NULL || r->idom == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "not a -p retained profile");
	if (path != NULL)
		return write_path(r, path, out, err);
	switch (format) {
	case GOHEAP_FORMAT_TOP:
		return write_top(p, r, w->top_n, out, err);
	case GOHEAP_FORMAT_TEXT:
		return write_text(p, r, out, err);
	case GOHEAP_FORMAT_OBJECTS:
		write_objects(r, out);
		return 0;
	case GOHEAP_FORMAT_PPROF:
	case GOHEAP_FORMAT_COLLAPSED:
		break;
	default:
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "-p retained is "
			       "written as top, text, collapsed, pprof or "
			       "objects");
	}
	if (build_stacks(r, &st) != 0) {
		stacks_free(&st);
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	}
	if (format == GOHEAP_FORMAT_PPROF) {
		rc = write_pprof(p, r, &st, out, err);
		stacks_free(&st);
		return rc;
	}
	space = w->sample_index != GOHEAP_SAMPLE_INUSE_OBJECTS &&
		w->sample_index != GOHEAP_SAMPLE_ALLOC_OBJECTS;
	for (i = 0; i < st.n; i++) {
		if (st.v[i].objects == 0)
			continue;
		folded(r, &st, (uint32_t)i, out);
		gh_buf_printf(out, " %llu\n", (unsigned long long)
			      (space ? st.v[i].bytes : st.v[i].objects));
	}
	stacks_free(&st);
	return 0;
}

/* The pprof rows (gh_write_retained's samples) one by one, for growth.c:
 * each dominator path with objects as its folded frames (root first, ';'
 * between) and its objects, own bytes and retained bytes. */
int gh_retained_rows(const gh_retained *r, gh_retained_row_fn fn, void *ctx)
{
	gh_buf b = GH_BUF_INIT;
	stacks st;
	size_t i;
	int64_t v[3];
	int rc;

	if (r == NULL || r->idom == NULL)
		return GOHEAP_EINVAL;
	rc = build_stacks(r, &st);
	for (i = 0; i < st.n && rc == 0; i++) {
		if (st.v[i].objects == 0)
			continue;
		b.len = 0;
		folded(r, &st, (uint32_t)i, &b);
		gh_buf_putc(&b, '\0');
		if (b.oom) {
			rc = GOHEAP_ENOMEM;
			break;
		}
		v[0] = (int64_t)st.v[i].objects;
		v[1] = (int64_t)st.v[i].bytes;
		v[2] = (int64_t)st.v[i].retained;
		rc = fn(ctx, (const char *)b.data, v);
	}
	stacks_free(&st);
	gh_buf_free(&b);
	return rc;
}

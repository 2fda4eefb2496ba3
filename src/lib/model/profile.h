/*
 * profile.h - the profile model shared by the walker and the writers.
 *
 * The walker fills a gh_profile with records exactly as runtime.MemProfile
 * (or BlockProfile / MutexProfile) would return them inside the target, in
 * bucket-list order.  The writers (fmt_*.c) turn it into bytes, symbolizing
 * through a gh_sym, and never read the target.
 */
#ifndef GH_PROFILE_H
#define GH_PROFILE_H

#include "hmap.h"
#include "rtlayout.h"
#include "sym.h"

/* One record: runtime.MemProfileRecord or runtime.BlockProfileRecord. */
typedef struct gh_record {
	/* heap / allocs */
	int64_t alloc_bytes, free_bytes, alloc_objects, free_objects;
	/* block / mutex: Count (after the reader's conversion) and Cycles */
	int64_t count, cycles;
	uint64_t *stk;        /* runtime PCs as stored in the bucket */
	size_t nstk;
	uint64_t bucket;      /* target address of the bucket (for deltas) */
	int64_t object_size;  /* heap: the bucket's size (1.27 ObjectSize) */
} gh_record;

/* A pprof label of a goroutine (g.labels): Go strings, any bytes (NUL
 * included), klen and vlen long (each also NUL-terminated). */
typedef struct gh_glabel {
	const char *key, *value;
	size_t klen, vlen;
} gh_glabel;

/* Goroutine status (runtime2.go), _Gscan bit removed. */
enum {
	GH_G_IDLE = 0, GH_G_RUNNABLE = 1, GH_G_RUNNING = 2, GH_G_SYSCALL = 3,
	GH_G_WAITING = 4, GH_G_DEAD = 6, GH_G_COPYSTACK = 8,
	GH_G_PREEMPTED = 9
};

/* One ancestor of a goroutine (g.ancestors, GODEBUG=tracebackancestors):
 * the goroutine that created it (or that one's creator ...) as it was
 * then: its return PCs (gcallers), goid and go statement's PC. */
typedef struct gh_gancestor {
	uint64_t goid, gopc;
	const uint64_t *pcs;
	size_t npcs;
} gh_gancestor;

/* One goroutine of a goroutine profile (goroutine.c). */
typedef struct gh_goroutine {
	uint64_t addr;        /* the *g */
	uint64_t goid, parent_goid, gopc, startpc;
	uint32_t status;      /* atomicstatus &^ _Gscan */
	uint8_t waitreason;
	int64_t waitsince;
	const uint64_t *stk;  /* tracebackPCs: logical return PCs */
	size_t nstk;
	int has_labels;       /* g.labels != nil ("# labels: {...}") */
	const gh_glabel *labels;
	size_t nlabels;
	int running;          /* _Grunning: stack from g.sched (may be stale) */
	/* m.procid of the M running it (g.m's curg is g), 0: none or not
	 * read; read at collection, for -f list's "(thread N)" */
	uint64_t tid;
	int partial;          /* unwinding stopped on implausible data */
	/* -f traceback (runtime.Stack(all)): the whole stack as the
	 * traceback printer walks it: logical frames' return PCs (uf.pc+1,
	 * wrappers elided) and, for each, its physical frame's pc (for
	 * "+0x.."); 1.19: at most rt->tb_max_phys physical frames */
	const uint64_t *tb_pcs, *tb_phys;
	size_t ntb;
	/* -f traceback: for each logical frame, 1 + the offset in tb_argstr
	 * of the argument list printArgs printed for its physical frame
	 * ("0x1, {0x2, 0x3}, ...", NUL-terminated, read at collection:
	 * gorargs.c), set on the physical (outermost) frame of each
	 * inline group; 0: not read (printed "(...)") */
	const uint64_t *tb_args;
	const char *tb_argstr;
	int scan;             /* atomicstatus had _Gscan */
	int locked;           /* g.lockedm != 0 */
	int in_syscall;       /* g.syscallsp != 0 */
	int64_t wait_minutes; /* goroutineheader's waitfor; -1 unknown */
	/* -p goroutineleak: judged leaked (retleak.c); -f traceback prints
	 * it as the runtime prints _Gleaked: "[chan receive (leaked)]" */
	int leaked;
	/* -f traceback: g.bubble != nil (1.25+; g.syncGroup in 1.24): its
	 * id (1.24: the group's root goroutine's goid), for goroutineheader's
	 * ", synctest bubble N" and " (durable)" */
	int in_bubble;
	uint64_t bubble_id;
	/* -f traceback: g.ancestors, nearest first (printAncestorTraceback) */
	const gh_gancestor *anc;
	size_t nanc;
} gh_goroutine;

/* ---- -p types: the heap by type (filled by heapwalk.c) -------------- */

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

void gh_types_free(gh_types *t);

/* ---- -p retained: who holds the heap (filled by retained.c) ---------- */

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

/* A live target's brief-stop snapshot (retlive.c), for the header. */
typedef struct gh_ret_snap {
	int on;               /* 1: read running, copied while stopped */
	uint64_t ranges, bytes, file_bytes;   /* copied; spilled to a file */
	uint64_t rounds;      /* copies while stopped (1: nothing changed) */
	uint64_t spans, spans_fetched;  /* in use at the stop; fetched */
	uint64_t lost;        /* bytes wanted that did not read */
	uint64_t misses, miss_bytes, first_miss;   /* reads outside it */
	double t_running, t_copy;
} gh_ret_snap;

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

void gh_retained_free(gh_retained *r);
struct gh_leak;

/* Object v's size in bytes (v < r->nobj). */
static inline uint64_t gh_retained_size(const gh_retained *r, uint32_t v)
{
	return (uint64_t)r->size8[v] << 3;
}

struct gh_memstats;        /* memstats.h */

/* One executable mapping of the target, for pprof Mapping messages. */
typedef struct gh_pmap {
	uint64_t start, end, offset;
	char *file;           /* " (deleted)" already stripped */
	char build_id[130];   /* hex GNU build id, "" if none */
} gh_pmap;

typedef struct goheap_profile {
	int kind;             /* enum goheap_profile_kind */
	gh_gover ver;         /* Go version of the target */
	const gh_rtlayout *rt;/* its row of release facts and output rules;
	                         NULL: gh_rtlayout_rules(ver) (gh_profile_rt) */
	int64_t rate;         /* MemProfileRate (heap), 1 (block), mutex rate */
	double cycles_per_second; /* block/mutex: runtime_cyclesPerSecond */
	int cycles_estimated; /* 1: the runtime had not computed it (or it could
	                         not be located): go-heap's estimate */
	int rate_unknown;     /* mutex: mutexprofilerate not located; rate 1 */
	gh_record *recs;
	size_t nrecs;
	uint64_t *pcpool;     /* all stacks, one allocation */
	gh_pmap *maps;        /* executable mappings in maps order */
	size_t nmaps;
	int64_t time_nanos;   /* collection time (TimeNanos) */
	int pid;              /* the process it came from, 0 unknown ... */
	unsigned long long start_time; /* ... and its start time (PID reuse) */
	int64_t duration_nanos; /* deltas: time since the base (DurationNanos) */
	uint64_t nbuckets;    /* buckets walked */
	double t_read, t_walk;/* seconds in backend reads / the rest of the walk */
	uint64_t read_calls, read_bytes, bucket_bytes;
	char source[256];     /* "live process 1234" etc. */
	unsigned machine;     /* ELF e_machine of the target; 0 = the host's
	                         (selects Go's math.Exp implementation) */
	int profstackdepth;   /* 1.23+: runtime debug.profstackdepth; 0 =
	                         unknown, taken as the default 128 */
	/* Buckets the walker left out as implausible (counts, sizes or PCs
	 * no runtime produces: a damaged core, a torn read): how many, and
	 * the first one found, its address and why (walk.c). */
	uint64_t skipped;
	uint64_t skipped_bucket;
	char skipped_reason[160];
	/* goroutine profiles: the goroutines the runtime's profile would
	 * hold, in allgs order.  The array, the stacks and the label strings
	 * live in pcpool's one allocation (gh_profile_destroy frees them);
	 * recs holds one count-1 record per goroutine, with the same stack. */
	gh_goroutine *gors;
	size_t ngors;
	char gor_note[256];   /* what the output's comment must say, or "" */
	int tb_labels_on;     /* runtime debug.tracebacklabels == 1 */
	int gor_no_tb;        /* collected with goheap_options.no_traceback */
	/* goroutine profiles, the snapshot (goroutine.c): 1 the target was
	 * stopped to re-read what changed, 2 not (--no-stop: best-effort),
	 * 0 no stop needed (a core, a debugger's stopped inferior); the
	 * stop's CLOCK_MONOTONIC window (first interrupt .. last detach),
	 * threads stopped, goroutines re-read while stopped / all */
	int gor_snapshot;
	double gor_stop_begin, gor_stop_end;
	uint64_t gor_stop_threads, gor_rewalked, gor_checked;
	/* -p types: the histogram (heapwalk.c), freed with the profile */
	gh_types *types;
	/* -p retained: the graph and its dominators (retained.c) */
	gh_retained *retained;
	/* -p memstats, and the trailer of -p heap/allocs -f text
	 * (memstats.c), freed with the profile; NULL: none */
	struct gh_memstats *memstats;
	/* -p goroutineleak (retleak.c): the leaked goroutines' judgement
	 * (a struct gh_leak, owned); gors hold only the leaked; NULL in
	 * every other profile; leak_free, set with it by retleak.c, frees
	 * its arrays (the model calls into no collector) */
	struct gh_leak *leak;
	void (*leak_free)(struct gh_leak *lk);
} gh_profile;

void gh_profile_destroy(gh_profile *p);

/* The release facts and output rules a profile is written with. */
static inline const gh_rtlayout *gh_profile_rt(const gh_profile *p)
{
	return p->rt != NULL ? p->rt : gh_rtlayout_rules(p->ver);
}

/*
 * printCountProfile's records of a goroutine profile, in its order (count
 * descending, then key): each group's first goroutine (p->gors index) and
 * how many share its stack and labels (gorgroup.c).  Freed with
 * gh_gor_groups_free.
 */
typedef struct gh_gor_group {
	char *key;            /* printCountProfile's key */
	size_t first;         /* index of its first goroutine */
	int64_t count;
} gh_gor_group;
int gh_gor_groups(const gh_profile *p, gh_gor_group **out, size_t *nout);
void gh_gor_groups_free(gh_gor_group *g, size_t n);

#endif

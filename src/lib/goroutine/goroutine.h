/*
 * goroutine.h - the goroutine profile, read from outside.
 *
 * gh_gor_collect walks runtime.allgs, reads every g (status, goid,
 * labels, ...), leaves out dead and system goroutines exactly where
 * runtime.goroutineProfileWithLabelsConcurrent does, and unwinds each
 * stack as saveg's unwinder + tracebackPCs would (pclntab pcsp tables,
 * inline expansion).  doc/goroutines.md has the design and what is
 * verified per release.
 */
#ifndef GH_GOROUTINE_H
#define GH_GOROUTINE_H

#include "profile.h"
#include "target.h"

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

/*
 * A goroutine profile's part (GH_PART_GOROUTINES; GH_PART_GOROUTINELEAK
 * with leak set): the goroutines the runtime's profile would hold, in
 * allgs order.  The array, the stacks and the label strings live in the
 * profile's pcpool (one allocation, gh_profile_destroy frees it); the
 * profile's recs hold one count-1 record per goroutine, with the same
 * stack.
 */
typedef struct gh_gorprof {
	gh_goroutine *gors;
	size_t ngors;
	char note[256];       /* what the output's comment must say, or "" */
	int tb_labels_on;     /* runtime debug.tracebacklabels == 1 */
	int no_tb;            /* collected with goheap_options.no_traceback */
	/* -p goroutineleak (retleak.c): the leaked goroutines' judgement
	 * (a struct gh_leak, owned; the leaked gors marked); leak_free, set
	 * with it by retleak.c, frees its arrays */
	struct gh_leak *leak;
	void (*leak_free)(struct gh_leak *lk);
} gh_gorprof;

/* p's goroutines: its part, or an empty one when it has none (another
 * kind, a delta) (gorgroup.c). */
const gh_gorprof *gh_gor_of(const gh_profile *p);
/* p's part for its collectors (goroutine.c, retleak.c); NULL: none. */
gh_gorprof *gh_gor_part(gh_profile *p);

/* -p goroutineleak's profile: the goroutine part with its judgement. */
static inline int gh_gor_is_leak(const gh_profile *p)
{
	return p->part_kind == GH_PART_GOROUTINELEAK;
}

/*
 * Fill p (kind GOHEAP_PROFILE_GOROUTINE, already set up by the session)
 * with the target's goroutines: its records and its gh_gorprof part.  0
 * or a GOHEAP_E* code with tg->err set.  A source with a stop slot (live)
 * is read running, then stopped (unless tg->no_stop) while every g header
 * is read again in bulk and the goroutines that changed, the running ones
 * (from their thread's registers) and the new ones are re-read: a
 * consistent snapshot; p->stop says how it went (doc/goroutines.md).
 */
int gh_gor_collect(gh_profile *p, gh_target *tg);

/*
 * Go's strconv.Quote of s[0..n) appended to b (fmt's %q of a label):
 * gh_go_quote (goquote.c) with the IsPrint tables u, the target release's
 * (gh_profile_rt(p)->unicode).
 */
void gh_gor_quote(gh_buf *b, const char *s, size_t n, gh_unicode u);

/*
 * printCountProfile's records of a goroutine profile, in its order (count
 * descending, then key): each group's first goroutine (gors index) and
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

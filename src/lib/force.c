/*
 * force.c - force mode: turn heap profiling on in a running Go program.
 *
 * The Go linker sets runtime.disableMemoryProfiling when nothing can read
 * the profile (no runtime.MemProfile / memProfileInternal reachable), and
 * the runtime then sets runtime.MemProfileRate to 0 at start-up
 * (cmd/link/internal/ld/lib.go, linksetup; runtime/proc.go, schedinit in
 * 1.21+, runtime.init in 1.19).  Writing a non-zero rate into that one
 * word is all it takes to profile the allocations that follow:
 *
 *   - Go <= 1.23: each P's mcache.nextSample was computed while the rate
 *     was 0, and fastexprand(0) is 0, so the first allocation on each P
 *     after the write fails `size < c.nextSample` and calls profilealloc,
 *     which draws a proper nextSample (runtime/malloc.go, mallocgc and
 *     nextSample).
 *   - Go 1.24: mallocgc compares MemProfileRate with mcache.memProfRate
 *     and calls profilealloc when they differ (runtime/malloc.go).
 *
 * So no mcache is touched: the write is one aligned word, which every
 * thread sees whole.
 *
 * The write happens with every thread stopped (the backend's stop slot,
 * ptrace.c for a live process), after checking that no thread is inside
 * the allocation-sampling path.  While the rate is 0 no thread should be
 * there at all (mallocgc guards it with `rate > 0`, or in 1.24 with a
 * nextSample of maxInt64 and memProfRate == 0); one can be only if the
 * program itself set the rate to 0 at run time while a sample was being
 * taken.  Such a thread would finish a sample drawn with one rate and
 * continue with another, so we step back and retry (bounded, with
 * backoff) rather than reason about each interleaving.
 *
 * mallocgc itself is NOT treated as unsafe: it reads MemProfileRate once
 * per allocation into a local (`if rate := MemProfileRate; rate > 0` in
 * 1.19-1.23) or once in a comparison (1.24), so a thread stopped anywhere
 * in it either read 0 before the write (this allocation goes unsampled,
 * as it would have) or reads the new rate after resuming (sampled through
 * the normal path).  Counting it unsafe would make the stop fail in the
 * very programs that need profiling, whose threads are in mallocgc much
 * of the time.
 *
 * The address must be certain: the .symtab symbol, of size int (the
 * pointer size), in a writable Go data section, and inside a writable
 * mapping of the target.  Any doubt is a refusal, never a guess.
 *
 * Test hooks (tests/run-force.sh): GOHEAP_TEST_STOP_DELAY_MS=N keeps the
 * target stopped N ms longer on each attempt, so that tests can kill
 * go-heap in the middle of a stop; it only lengthens the stop.
 * GOHEAP_TEST_UNSAFE_FUNC=NAME counts one more function (and its
 * closures) as unsafe, so that tests can check the stack walk finds a
 * known function of the target in every stop, and the retry path; it
 * can only make go-heap refuse more.
 *
 * Rejected: writing each mcache's nextSample as well (per-version layout,
 * a P's mcache changes hands; unnecessary as shown above); a write without
 * stopping (the safe-point check would be meaningless); SIGSTOP to the
 * whole process (a job-control stop that a parent can observe and that
 * outlives us if we die).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "memsrc.h"
#include "ptrace.h"
#include "session.h"
#include "target.h"
#include "sym.h"
#include "testhooks.h"

/* Stops attempted before giving up on a thread that stays unsafe. */
#define GH_FORCE_ATTEMPTS 20
/* Wait between attempts: 1, 2, 4 ... ms, at most this. */
#define GH_FORCE_BACKOFF_MAX_MS 64
/* A check found a thread in the sampling path (positive: not an error). */
#define GH_FORCE_UNSAFE 1
/*
 * The stop could not reach a thread (uninterruptible sleep: ptrace.c) and
 * resumed the rest; retried this many times, as such sleeps are usually
 * short (disk I/O, vfork).
 */
#define GH_FORCE_STUCK_ATTEMPTS 3

/*
 * The allocation-sampling path (runtime/malloc.go: profilealloc,
 * nextSample, fastexprand, nextSampleNoFP; runtime/mprof.go: mProf_Malloc,
 * stkbucket, setprofilebucket).
 *
 * How complete the check is.  The stacks come from frame-pointer chains
 * (ptrace.c), which miss a frameless function's caller when a signal
 * handler interrupted it, and everything below runtime.morestack.  Every
 * function here is reached through profilealloc, which mallocgc calls with
 * its M acquired (acquirem, mallocing = 1: 1.19-1.24), so a goroutine in
 * the path cannot be preempted or descheduled there, and each caller up
 * to profilealloc is itself in the list: a missed frame leaves one of
 * its callers in the chain.  What stays invisible is a thread growing the
 * stack of a goroutine that is in the path (morestack -> newstack, some
 * microseconds), and profilealloc's own body under a signal handler.  As
 * argued at the top, even those would only sample one allocation at the
 * old rate.  tests/run-force.sh checks that the walk finds a known
 * function at every stop, on a parked and on a running thread.
 * Go 1.25-1.27 still call profilealloc with the M acquired (malloc.go:
 * mallocgcSmallNoscan etc. pass mp) and keep the chain across
 * systemstack, but runtime.mcall and runtime.morestack now clear BP on
 * the switch to g0, so the chain of a thread on g0 ends there.  For
 * mcall (gopark, Gosched, preemption: every parked or descheduled
 * goroutine) the walk crosses anyway (setup_crossing, rows with
 * mcall_clears_bp): mcall pushes the g it leaves just above its callee's
 * return address, and that g's g.sched (pc, sp, bp; offsets from the
 * row) leads to the goroutine's frames, as the chain did up to 1.24
 * (ptrace.c, cross_step; tests/run-force.sh finds main.parkLocked and
 * main.spinTop at each stop on every release).  morestack pushes no g,
 * and newstack's goroutine is reachable only through its M: a thread
 * growing a stack (or preempted at a function's prologue) shows its g0
 * frames only.  By the argument above no goroutine inside the path can
 * be parked, descheduled or growing its stack there (morestack -> newstack
 * is the case already named), so the check is as complete as before
 * either way; the crossing keeps the walk's view equal across releases.
 *
 * A name also matches its closures
 * ("runtime.mProf_Malloc.func1").
 */
static const char *const unsafe_funcs[] = {
	"runtime.profilealloc",
	"runtime.mProf_Malloc",
	"runtime.nextSample",
	"runtime.nextSampleNoFP",
	"runtime.fastexprand",
	"runtime.stkbucket",
	"runtime.setprofilebucket",
};

/* Sections where the Go linker puts a writable int (cmd/link, symkind). */
static const char *const rate_sections[] = {
	".noptrdata", ".noptrbss", ".data", ".bss",
};

/* Is fn `name` or one of its closures ("name.func1")? */
static int name_matches(const char *fn, const char *name)
{
	size_t n = strlen(name);

	return strncmp(fn, name, n) == 0 && (fn[n] == '\0' || fn[n] == '.');
}

/*
 * The sampling-path function fn is (or belongs to), else NULL.  `extra`
 * is the test hook's additional name (GOHEAP_TEST_UNSAFE_FUNC), or NULL.
 */
static const char *unsafe_name(const char *fn, const char *extra)
{
	size_t i;

	if (fn == NULL)
		return NULL;
	for (i = 0; i < GH_ARRAY_LEN(unsafe_funcs); i++)
		if (name_matches(fn, unsafe_funcs[i]))
			return unsafe_funcs[i];
	return extra != NULL && name_matches(fn, extra) ? extra : NULL;
}

/* ---- locating runtime.MemProfileRate ---------------------------------- */

typedef struct map_search {
	uint64_t addr, end;
	int found, writable;
	char perms[5];
} map_search;

static int map_cb(const goheap_mapping *m, void *payload)
{
	map_search *ms = payload;

	if (ms->addr < m->start || ms->end > m->end)
		return 0;
	ms->found = 1;
	ms->writable = m->perms[1] == 'w';
	memcpy(ms->perms, m->perms, sizeof(ms->perms));
	return 1;
}

/*
 * The runtime address of runtime.MemProfileRate, checked four ways; any
 * failure is a refusal.  A stripped binary's comes from the locator
 * (decoded from the runtime's code and cross-checked, locate.c).
 */
static int locate_rate(gh_target *tg, uint64_t *out)
{
	const char *name = "runtime.MemProfileRate";
	unsigned ps = tg->mem.ptr_size;
	uint64_t link = 0, size = 0;
	const gh_section *sec;
	map_search ms;
	size_t i;
	int rc, ok = 0;

	if (!gh_exe_has_symtab(tg->exe) && tg->addrs.memprofilerate != 0) {
		/* Stripped: located by decoding and cross-checked
		 * (locate.c); the variable is a Go int. */
		link = tg->addrs.memprofilerate - tg->bias;
		size = ps;
	} else if (gh_exe_symbol(tg->exe, name, &link, &size) != 0)
		return gh_errf(&tg->err, GOHEAP_ENOSYM,
			       "%s: no .symtab entry for %s: its address "
			       "cannot be located with certainty, refusing "
			       "to write", tg->exe_path, name);
	if (size != ps || link % ps != 0)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "%s: %s is %llu bytes at 0x%llx, expected an "
			       "aligned %u-byte int: refusing to write",
			       tg->exe_path, name, (unsigned long long)size,
			       (unsigned long long)link, ps);
	if (link + tg->bias != tg->addrs.memprofilerate)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "%s: %s resolves to two addresses (0x%llx, "
			       "0x%llx): refusing to write", tg->exe_path, name,
			       (unsigned long long)(link + tg->bias),
			       (unsigned long long)tg->addrs.memprofilerate);
	sec = gh_exe_section_at(tg->exe, link);
	for (i = 0; sec != NULL && i < GH_ARRAY_LEN(rate_sections); i++)
		ok |= strcmp(sec->name, rate_sections[i]) == 0;
	if (!ok || !(sec->flags & SHF_WRITE) ||
	    link + ps > sec->addr + sec->size)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "%s: %s at 0x%llx is in %s, not in a writable "
			       "Go data section: refusing to write",
			       tg->exe_path, name, (unsigned long long)link,
			       sec != NULL ? sec->name : "no section");
	memset(&ms, 0, sizeof(ms));
	ms.addr = link + tg->bias;
	ms.end = ms.addr + ps;
	rc = tg->ops->mappings(tg->ctx, map_cb, &ms);
	if (rc < 0)
		return gh_errf(&tg->err, rc, "reading the target's mappings: %s",
			       goheap_strerror(rc));
	if (!ms.found || !ms.writable)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "%s at 0x%llx is %s in the target: refusing to "
			       "write", name, (unsigned long long)ms.addr,
			       ms.found ? "not in a writable mapping" :
			       "not mapped");
	*out = ms.addr;
	return 0;
}

/* An uncached read of the rate: the target runs between our reads. */
static int read_rate(gh_target *tg, uint64_t addr, int64_t *out)
{
	unsigned ps = tg->mem.ptr_size;
	uint64_t v = 0;
	int rc, saved = tg->mem.no_cache;

	gh_mem_invalidate(&tg->mem);
	tg->mem.no_cache = 1;
	rc = gh_mem_read_uint(&tg->mem, addr, ps, &v,
			      "runtime.MemProfileRate");
	tg->mem.no_cache = saved;
	if (rc != 0)
		return rc;
	*out = ps == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
	return 0;
}

/* Write `rate` as a Go int in the target's byte order, then read it back. */
static int write_rate(gh_target *tg, uint64_t addr, int64_t rate,
		      int64_t *readback)
{
	unsigned ps = tg->mem.ptr_size, i;
	unsigned char b[8];
	int rc;

	for (i = 0; i < ps; i++)
		b[tg->mem.big_endian ? ps - 1 - i : i] =
			(unsigned char)((uint64_t)rate >> (8 * i));
	rc = gh_mem_write(&tg->mem, addr, b, ps, "runtime.MemProfileRate");
	if (rc != 0)
		return rc;
	rc = read_rate(tg, addr, readback);
	if (rc != 0)
		return rc;
	if (*readback != rate)
		return gh_errf(&tg->err, GOHEAP_ECORRUPT,
			       "runtime.MemProfileRate reads back %lld after "
			       "writing %lld", (long long)*readback,
			       (long long)rate);
	return 0;
}

/* ---- the safe-point check ---------------------------------------------- */

/*
 * Verdicts per PC, so that the threads' many identical frames (idle
 * threads all sleep in the same few runtime functions) are symbolized
 * once per stop rather than once per thread.  A direct-mapped table:
 * a collision just evicts.
 */
#define GH_CHECK_MEMO 512

typedef struct check_memo {
	uint64_t pc;           /* 0: empty */
	const char *bad;       /* unsafe_name's answer for pc */
} check_memo;

typedef struct safe_check {
	gh_target *tg;
	gh_framevec fv;        /* reused for every frame */
	int threads;
	int tid;               /* the unsafe thread */
	const char *fn;        /* and its function (static storage) */
	const char *extra;     /* GOHEAP_TEST_UNSAFE_FUNC (test hook) */
	/* Crossing runtime.mcall's switch to g0 (rows with
	 * mcall_clears_bp; the live source only): sw, when crossing */
	gh_gswitch sw;
	int crossing;
	check_memo memo[GH_CHECK_MEMO];
} safe_check;

/*
 * Physical functions into which the compiler may inline part of the
 * sampling path: mallocgc and, in 1.24, its size-class variants
 * (mallocgcTiny, mallocgcSmallNoscan, ...) call profilealloc; allocmcache
 * calls nextSample.  Only frames in these need inline expansion: inlining
 * copies a callee's body into its callers only, so an unsafe function can
 * hide in no other physical function.
 */
static const char *const inline_hosts[] = {
	"runtime.mallocgc",
	"runtime.allocmcache",
};

static int is_inline_host(const char *fn)
{
	size_t i;

	for (i = 0; fn != NULL && i < GH_ARRAY_LEN(inline_hosts); i++)
		if (strncmp(fn, inline_hosts[i], strlen(inline_hosts[i])) == 0)
			return 1;
	return 0;
}

/* The verdict for one PC (already adjusted to lie in its call). */
static int check_pc(safe_check *c, int tid, uint64_t pc, const char **bad)
{
	check_memo *m = &c->memo[(pc ^ (pc >> 9)) % GH_CHECK_MEMO];
	const char *name;
	uint64_t pc1;
	size_t j;
	int rc;

	*bad = NULL;
	if (pc != 0 && m->pc == pc) {
		*bad = m->bad;
		return 0;
	}
	if (gh_sym_lookup(c->tg->sym, pc, NULL, &name) == 0) {
		*bad = unsafe_name(name, c->extra);
		if (*bad == NULL && is_inline_host(name)) {
			/* CallersFrames looks up pc-1 itself: give it pc+1. */
			pc1 = pc + 1;
			c->fv.n = 0;
			rc = gh_sym_callers_frames(c->tg->sym, &pc1, 1, &c->fv);
			if (rc != 0)
				return gh_errf(&c->tg->err, rc, "symbolizing "
					       "thread %d: %s", tid,
					       goheap_strerror(rc));
			for (j = 0; j < c->fv.n && *bad == NULL; j++)
				*bad = unsafe_name(c->fv.v[j].function,
						   c->extra);
		}
	}
	m->pc = pc;
	m->bad = *bad;
	return 0;
}

/*
 * goheap_stack_cb: is this thread inside the sampling path?  Each PC's
 * physical function comes from gh_sym_lookup (return addresses minus one,
 * to land on the call instruction).  In an inline host the PC is expanded
 * with CallersFrames as well, since nextSample or fastexprand may be
 * inlined into profilealloc, and profilealloc into mallocgc.  This runs
 * while the target is stopped, so it does the cheap lookup everywhere and
 * the expansion only where it can find something.
 */
static int check_stack(int tid, const uint64_t *pcs, size_t n, void *payload)
{
	safe_check *c = payload;
	const char *bad = NULL;
	size_t i;
	int rc;

	c->threads++;
	for (i = 0; i < n && bad == NULL; i++) {
		rc = check_pc(c, tid, i == 0 ? pcs[i] : pcs[i] - 1, &bad);
		if (rc != 0)
			return rc;
	}
	if (bad == NULL)
		return 0;
	c->tid = tid;
	c->fn = bad;
	return GH_FORCE_UNSAFE;
}

/*
 * What the live source needs to cross runtime.mcall's switch to g0 where
 * the release clears the frame pointer there (see "How complete the check
 * is"): chk->sw, from the release's row.  Without runtime.mcall in the
 * pclntab the walk stops at the switch, as before.
 */
static void setup_crossing(safe_check *c)
{
	const gh_rtlayout *l = c->tg->lay;
	uint64_t lo = 0, hi = 0;

	c->crossing = 0;
	if (!l->mcall_clears_bp ||
	    gh_sym_func_entry(c->tg->sym, "runtime.mcall", &lo, &hi) != 0 ||
	    hi <= lo)
		return;
	c->sw.mcall_lo = lo;
	c->sw.mcall_hi = hi;
	c->sw.sched_sp = l->g_sched + l->gobuf_sp;
	c->sw.sched_pc = l->g_sched + l->gobuf_pc;
	c->sw.sched_g = l->g_sched + l->gobuf_g;
	c->sw.sched_bp = l->g_sched + l->gobuf_bp;
	c->crossing = 1;
}

/* Every stopped thread's stack through check_stack: the live source
 * crosses mcall's switch when chk asks; others through their slot. */
static int check_stacks(gh_target *tg, safe_check *chk)
{
	if (tg->caps->thread_stacks_sw != NULL)
		return tg->caps->thread_stacks_sw(tg->ctx, chk->crossing ?
						 &chk->sw : NULL, check_stack,
						 chk);
	return GH_OPS_V2(tg, thread_stacks)(tg->ctx, check_stack, chk);
}

/* ---- goheap_force ---------------------------------------------------------- */

static long test_stop_delay_ms(void)
{
	const char *v = gh_test_hook("GOHEAP_TEST_STOP_DELAY_MS");
	long ms = v != NULL ? strtol(v, NULL, 10) : 0;

	return ms < 0 ? 0 : ms > 600000 ? 600000 : ms;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * One attempt: stop, check, write, resume.  Resume follows every
 * successful stop, whatever happened in between.  Returns 0 (written),
 * GH_FORCE_UNSAFE, or a GOHEAP_E* code.
 */
static int attempt(gh_target *tg, safe_check *chk, uint64_t addr,
		   int64_t rate, goheap_force_result *r)
{
	int (*stop)(void *) = GH_OPS_V2(tg, stop);
	int (*resume)(void *) = GH_OPS_V2(tg, resume);
	long delay = test_stop_delay_ms();
	double t0, t1, b, e;
	int rc, rrc;

	chk->threads = 0;
	t0 = gh_now();
	gh_errf(&tg->err, 0, "no error");
	rc = stop(tg->ctx);
	if (rc != 0) {
		if (tg->err.code != rc)
			gh_errf(&tg->err, rc, "stopping the target: %s",
				goheap_strerror(rc));
		return rc;      /* GOHEAP_EBUSY: a thread could not stop */
	}
	if (delay > 0)
		sleep_ms(delay);
	rc = check_stacks(tg, chk);
	if (rc == 0)
		rc = write_rate(tg, addr, rate, &r->new_rate);
	rrc = resume(tg->ctx);
	t1 = gh_now();
	/* The live source knows when its threads actually stopped. */
	if (tg->caps->stop_window != NULL &&
	    tg->caps->stop_window(tg->ctx, &b, &e) == 0) {
		t0 = b;
		t1 = e;
	}
	if (t1 - t0 > r->stop_seconds) {
		r->stop_seconds = t1 - t0;
		r->stop_begin = t0;
		r->stop_end = t1;
	}
	r->threads = chk->threads;
	if (rc < 0 && tg->err.code != rc)
		gh_errf(&tg->err, rc, "checking the stopped threads: %s",
			goheap_strerror(rc));
	if (rc >= 0 && rrc != 0) {
		if (tg->err.code != rrc)
			gh_errf(&tg->err, rrc, "resuming the target: %s",
				goheap_strerror(rrc));
		rc = rrc;
	}
	return rc;
}

/* What was done, in r->message: the line go-heap --force and the gdb
 * command print (no prefix, no newline). */
static void force_message(goheap_force_result *r, unsigned dry_run)
{
	char *m = r->message;
	size_t len = sizeof(r->message);

	if (r->old_rate != 0)
		snprintf(m, len, "runtime.MemProfileRate is already %lld: "
			 "nothing changed", (long long)r->old_rate);
	else if (dry_run)
		snprintf(m, len, "dry run: would write %lld to "
			 "runtime.MemProfileRate at 0x%llx (now 0)",
			 (long long)r->new_rate,
			 (unsigned long long)r->address);
	else
		snprintf(m, len, "runtime.MemProfileRate 0 -> %lld at 0x%llx: "
			 "heap profiling enabled", (long long)r->new_rate,
			 (unsigned long long)r->address);
}

GOHEAP_EXTERN int goheap_force(goheap_session *s, int64_t rate,
			       unsigned flags, goheap_force_result *out)
{
	gh_target *tg;
	goheap_force_result r;
	safe_check chk;
	uint64_t addr = 0;
	long backoff = 1;
	int rc, stuck = 0;

	memset(&r, 0, sizeof(r));
	memset(&chk, 0, sizeof(chk));
	if (s == NULL)
		return GOHEAP_EINVAL;
	tg = &s->t;
	if (out != NULL) {
		if (!GH_OUT_OK_BEFORE(out, message))
			return gh_errf(&tg->err, GOHEAP_EINVAL,
				       "goheap_force_result.size %zu: start "
				       "from GOHEAP_FORCE_RESULT_INIT",
				       out->size);
		GH_OUT_CLEAR(out);
	}
	chk.tg = tg;
	chk.extra = gh_test_hook("GOHEAP_TEST_UNSAFE_FUNC");
	if (chk.extra != NULL && chk.extra[0] == '\0')
		chk.extra = NULL;
	if (tg->lay == NULL || tg->sym == NULL || !tg->mem_ready) {
		rc = gh_errf(&tg->err, GOHEAP_EINVAL, "session is not open");
		goto done;
	}
	if ((flags & ~GOHEAP_FORCE_DRY_RUN) != 0 || rate <= 0 ||
	    (tg->mem.ptr_size == 4 && rate > INT32_MAX)) {
		rc = gh_errf(&tg->err, GOHEAP_EINVAL, "invalid rate %lld or "
			     "flags 0x%x", (long long)rate, flags);
		goto done;
	}
	if (tg->ops->write == NULL) {
		rc = gh_errf(&tg->err, GOHEAP_EUNSUPPORTED,
			     "%s is read-only (a core file?): force mode "
			     "needs a live process", tg->source);
		goto done;
	}
	setup_crossing(&chk);
	rc = locate_rate(tg, &addr);
	if (rc != 0)
		goto done;
	r.address = addr;
	rc = read_rate(tg, addr, &r.old_rate);
	if (rc != 0)
		goto done;
	r.new_rate = r.old_rate;
	if (r.old_rate != 0)
		goto done;      /* enabled already: leave the program's choice */
	r.new_rate = rate;
	if (flags & GOHEAP_FORCE_DRY_RUN)
		goto done;
	if (GH_OPS_V2(tg, stop) == NULL) {
		/*
		 * No stop slot: the target is already stopped (a debugger's
		 * inferior).  Check the stacks if the source can give them;
		 * a debugger's user can step out and retry.
		 */
		rc = 0;
		if (GH_OPS_V2(tg, thread_stacks) != NULL)
			rc = check_stacks(tg, &chk);
		if (rc == GH_FORCE_UNSAFE)
			rc = gh_errf(&tg->err, GOHEAP_EBUSY,
				     "thread %d is inside %s: step out of it "
				     "and retry", chk.tid, chk.fn);
		if (rc == 0)
			rc = write_rate(tg, addr, rate, &r.new_rate);
		goto done;
	}
	if (GH_OPS_V2(tg, resume) == NULL ||
	    GH_OPS_V2(tg, thread_stacks) == NULL) {
		rc = gh_errf(&tg->err, GOHEAP_EUNSUPPORTED,
			     "this memory source can stop the target but not "
			     "list its threads' stacks: cannot check for a "
			     "safe point, refusing to write");
		goto done;
	}
	for (;;) {
		rc = attempt(tg, &chk, addr, rate, &r);
		if (rc == GOHEAP_EBUSY && ++stuck < GH_FORCE_STUCK_ATTEMPTS) {
			r.retries++;
			sleep_ms(backoff * 10);
			backoff *= 2;
			continue;
		}
		if (rc == GOHEAP_EBUSY && stuck > 1)
			gh_err_prefix(&tg->err, "after %d attempts", stuck);
		if (rc != GH_FORCE_UNSAFE)
			break;
		if (r.retries + 1 >= GH_FORCE_ATTEMPTS) {
			rc = gh_errf(&tg->err, GOHEAP_EBUSY,
				     "thread %d was inside %s at each of %d "
				     "stops: nothing written", chk.tid, chk.fn,
				     GH_FORCE_ATTEMPTS);
			break;
		}
		r.retries++;
		sleep_ms(backoff);
		if (backoff < GH_FORCE_BACKOFF_MAX_MS)
			backoff *= 2;
	}
done:
	if (rc == 0 && r.new_rate != r.old_rate &&
	    !(flags & GOHEAP_FORCE_DRY_RUN))
		r.changed = 1;
	if (rc == 0)
		force_message(&r, flags & GOHEAP_FORCE_DRY_RUN);
	if (out != NULL)
		GH_OUT_COPY(out, &r);
	gh_framevec_free(&chk.fv);
	return rc;
}

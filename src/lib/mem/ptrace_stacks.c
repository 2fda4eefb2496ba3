/*
 * ptrace_stacks.c - the stacks of a stopped target's threads (ptrace_int.h):
 * registers read as each thread reports its stop, frame-pointer chains
 * walked with every thread's next window read in one process_vm_readv,
 * runtime.mcall's switch to g0 crossed to the goroutine's own frames;
 * libunwind-ptrace on architectures without Go frame pointers.
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ptrace_int.h"
#include "testhooks.h"

/* ---- capturing a stopped thread's stack -------------------------------- */

#ifdef GH_PT_FRAME_POINTERS
/*
 * The registers of t's stop (PC, SP, FP, and LR on arm64), read once as it
 * reports the stop, while later threads are still stopping.
 */
void gh_pt_get_thread_regs(gh_ptrace *pt, pt_thread *t)
{
	/* glibc's <sys/user.h>: NT_PRSTATUS's layout on both. */
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	t->nframes = 0;
	t->err = 0;
	if (pt->foreign)
		return;         /* reported by gh_ptrace_thread_stacks */
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)(uintptr_t)NT_PRSTATUS,
		   &iov) != 0) {
		t->err = errno;
		return;
	}
#if defined(__x86_64__)
	t->pcs[0] = u.rip;
	t->sp = u.rsp;
	t->fp = u.rbp;
	t->cand = 0;
	/* orig_rax is the system call's number inside one, else -1. */
	t->in_syscall = (long)u.orig_rax >= 0;
#else
	t->pcs[0] = u.pc;
	t->sp = u.sp;
	t->fp = u.regs[29];
	t->cand = u.regs[30];
	t->in_syscall = 0;      /* not in NT_PRSTATUS: treated as running */
#endif
	t->nframes = 1;
}

/* Two target words at addr from t's window, if it holds them. */
static int window_pair(const gh_ptrace *pt, const pt_thread *t, size_t ti,
		       uint64_t addr, uint64_t out[2])
{
	unsigned long w[2];

	if (addr < t->wbase || addr - t->wbase > t->wlen ||
	    t->wlen - (addr - t->wbase) < sizeof(w))
		return -1;
	memcpy(w, pt->wbuf + ti * GH_PT_WINDOW + (addr - t->wbase),
	       sizeof(w));
	out[0] = w[0];
	out[1] = w[1];
	return 0;
}

/* The same two words with PTRACE_PEEKDATA (the thread is stopped). */
static int peek_pair(const pt_thread *t, uint64_t addr, uint64_t out[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		errno = 0;
		out[i] = (unsigned long)ptrace(PTRACE_PEEKDATA, t->tid,
					       (void *)(uintptr_t)(addr +
					       i * sizeof(long)), NULL);
		if (errno != 0)
			return -1;
	}
	return 0;
}

/*
 * Follow t's frame-pointer chain as far as its window allows: FP points
 * at the saved caller FP, and the return address sits just above it.
 * Leaves t->need set when the next record lies outside the window.
 * Worked example (amd64, thread stopped in runtime.nextSample called from
 * runtime.profilealloc called from runtime.mallocgc):
 *   RIP in nextSample          -> pcs[0]
 *   [RSP] (candidate)          -> return into profilealloc if nextSample
 *                                 had not pushed RBP yet, else a local
 *   RBP -> [RBP+8]             -> return into profilealloc   (pcs[n])
 *          [RBP] -> [..+8]     -> return into mallocgc
 * On arm64 the candidate is LR (a leaf keeps its return address there).
 * The candidate is kept only if it differs from the first chain entry.
 */
static void walk(gh_ptrace *pt, pt_thread *t, size_t ti)
{
	uint64_t rec[2];
	int n = t->nframes;

	t->need = 0;
#if defined(__x86_64__)
	if (n == 1 && t->cand == 0 &&
	    window_pair(pt, t, ti, t->sp, rec) == 0)
		t->cand = rec[0];
#endif
	while (n < GH_PT_MAX_FRAMES && t->fp != 0 &&
	       t->fp % sizeof(long) == 0) {
		if (window_pair(pt, t, ti, t->fp, rec) != 0) {
			/*
			 * Not in the window: read one there next round,
			 * unless the window was read at this very address
			 * and came back short (unmapped, or process_vm_readv
			 * forbidden): then PEEKDATA has the definitive
			 * answer.
			 */
			if (t->wbase != t->fp) {
				t->need = t->fp;
				break;
			}
			if (peek_pair(t, t->fp, rec) != 0)
				break;
		}
		if (rec[1] == 0)
			break;
		if (n == 1 && t->cand != 0 && t->cand != rec[1])
			t->pcs[n++] = t->cand;
		if (n == GH_PT_MAX_FRAMES)
			break;
		t->pcs[n++] = rec[1];
		if (rec[0] == 0)
			t->end_rec = t->fp;
		if (rec[0] == t->fp)
			break;
		t->fp = rec[0];
	}
	t->nframes = n;
	if (t->need == 0) {
		if (n == 1 && t->cand != 0)
			t->pcs[t->nframes++] = t->cand;
		t->walking = 0;
	}
}

/*
 * Read the windows every walking thread needs, in as few
 * process_vm_readv calls as the iovec limit allows.  A call stops at the
 * first iovec it cannot read in full; that one gets what it got, and the
 * next call starts after it.
 */
static void read_windows(gh_ptrace *pt)
{
	struct iovec lv[GH_PT_IOV], rv[GH_PT_IOV];
	size_t idx[GH_PT_IOV];
	size_t i = 0, k, j;
	ssize_t got;

	while (i < pt->n) {
		for (k = 0; i < pt->n && k < GH_PT_IOV; i++) {
			pt_thread *t = &pt->t[i];

			if (!t->walking || t->need == 0)
				continue;
			t->wbase = t->need;
			t->wlen = 0;
			lv[k].iov_base = pt->wbuf + i * GH_PT_WINDOW;
			lv[k].iov_len = GH_PT_WINDOW;
			rv[k].iov_base = (void *)(uintptr_t)t->need;
			rv[k].iov_len = GH_PT_WINDOW;
			idx[k++] = i;
		}
		for (j = 0; j < k;) {
			got = process_vm_readv(pt->pid, lv + j, k - j, rv + j,
					       k - j, 0);
			if (got < 0)
				got = 0;
			while (j < k && (size_t)got >= GH_PT_WINDOW) {
				pt->t[idx[j++]].wlen = GH_PT_WINDOW;
				got -= GH_PT_WINDOW;
			}
			if (j < k)
				pt->t[idx[j++]].wlen = (size_t)got;
		}
	}
}

/*
 * The stacks of every stopped thread, from the registers wait_stop
 * captured: rounds of one batched read and a walk, until every chain
 * has ended.
 */
int gh_pt_capture_stacks(gh_ptrace *pt, gh_err *err)
{
	size_t i;
	int round, any = 0;

	if (pt->foreign)
		return 0;       /* reported by gh_ptrace_thread_stacks */
	if (pt->wcap < pt->n) {
		unsigned char *b = gh_reallocarray(pt->wbuf, pt->n,
						   GH_PT_WINDOW);

		if (b == NULL)
			return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		pt->wbuf = b;
		pt->wcap = pt->n;
	}
	for (i = 0; i < pt->n; i++) {
		pt_thread *t = &pt->t[i];

		if (t->state != PT_STOPPED || t->err != 0 || t->captured)
			continue;
		t->captured = 1;
		t->walking = 1;
		t->need = t->sp;
		t->end_rec = 0;
		t->xstate = PT_X_NONE;
		any = 1;
	}
	for (round = 0; any && round < GH_PT_MAX_READS; round++) {
		read_windows(pt);
		any = 0;
		for (i = 0; i < pt->n; i++) {
			if (!pt->t[i].walking)
				continue;
			walk(pt, &pt->t[i], i);
			any |= pt->t[i].walking;
		}
	}
	return 0;
}

#if defined(__x86_64__)
/*
 * One word at addr: 1 and *out, or 0 with t->need set for the next
 * round's window, or -1 when it cannot be read (the window read there
 * came back short and PTRACE_PEEKDATA fails too).
 */
static int fetch_word(const gh_ptrace *pt, pt_thread *t, size_t ti,
		      uint64_t addr, uint64_t *out)
{
	unsigned long w;

	if (addr >= t->wbase && addr - t->wbase <= t->wlen &&
	    t->wlen - (addr - t->wbase) >= sizeof(w)) {
		memcpy(&w, pt->wbuf + ti * GH_PT_WINDOW + (addr - t->wbase),
		       sizeof(w));
		*out = w;
		return 1;
	}
	if (t->wbase != addr) {
		t->need = addr;
		return 0;
	}
	errno = 0;
	w = (unsigned long)ptrace(PTRACE_PEEKDATA, t->tid,
				  (void *)(uintptr_t)addr, NULL);
	if (errno != 0)
		return -1;
	*out = w;
	return 1;
}

/*
 * Go on from where capture_stacks stopped, across runtime.mcall's switch
 * to g0 (gh_gswitch, ptrace.h), as far as the windows read so far allow;
 * leaves t->need set for the next round, or t->walking 0 when done.
 * Worked example (1.25, a goroutine parked in a channel receive, its M
 * asleep on g0):
 *   ... futex, ..., schedule, park_m   (the g0 chain)
 *   park_m's record R: [R] = 0 (saved FP), [R+8] = return into mcall:
 *                      the chain ends (end_rec = R)
 *   [R+16]             the g (mcall's PUSHQ AX)
 *   g.sched.pc         return into gopark (its call of mcall)
 *   the first record X >= g.sched.sp with [X] == g.sched.bp: gopark's;
 *   [X+8]              return into chanrecv (mcall saved the FP of
 *                      its caller's caller: "MOVQ (BP), BX")
 *   the chain from g.sched.bp: chanrecv1, main.parkLocked, goexit
 * The g is the one this M last switched from: if it has run on another M
 * since, its saved frames are stale, which only adds frames to check.
 */
static void cross_step(gh_ptrace *pt, pt_thread *t, size_t ti,
		       const gh_gswitch *sw)
{
	uint64_t *w = t->xsched, cand = 0, a;
	const unsigned off[4] = { sw->sched_sp, sw->sched_pc, sw->sched_g,
				  sw->sched_bp };
	int i, r, n = t->nframes;

	t->need = 0;
	switch (t->xstate) {
	case PT_X_G:
		r = fetch_word(pt, t, ti, t->end_rec + 16, &t->xg);
		if (r == 0)
			return;
		if (r < 0 || t->xg == 0 || t->xg % sizeof(long) != 0)
			break;
		t->xstate = PT_X_SCHED;
		/* fall through */
	case PT_X_SCHED:
		/* gobuf's words in ascending order: one window holds them. */
		for (i = 0; i < 4; i++) {
			r = fetch_word(pt, t, ti, t->xg + off[i], &w[i]);
			if (r == 0)
				return;
			if (r < 0)
				break;
		}
		if (i < 4 || w[2] != t->xg || w[0] == 0 || w[1] == 0 ||
		    w[0] % sizeof(long) != 0)
			break;
		t->xstate = PT_X_CALLER;
		if (t->wbase != w[0]) {
			t->need = w[0];
			return;
		}
		/* fall through */
	case PT_X_CALLER:
		/* The window is at sched.sp: the caller's record in it. */
		for (a = w[0]; w[3] != 0 && a + 16 <= w[3] &&
		     a + 16 <= t->wbase + t->wlen; a += sizeof(long)) {
			uint64_t rec[2];

			if (window_pair(pt, t, ti, a, rec) == 0 &&
			    rec[0] == w[3]) {
				cand = rec[1];
				break;
			}
		}
		if (n < GH_PT_MAX_FRAMES)
			t->pcs[n++] = w[1];
		if (cand != 0 && n < GH_PT_MAX_FRAMES)
			t->pcs[n++] = cand;
		t->nframes = n;
		t->xstate = PT_X_DONE;
		t->fp = w[3];
		walk(pt, t, ti);
		return;
	default:
		break;
	}
	t->xstate = PT_X_DONE;
	t->walking = 0;
}

/*
 * After capture_stacks: the threads whose chain ended at mcall's switch
 * (a record with saved FP 0 returning into mcall) go on into the
 * goroutine, in rounds of batched window reads as there.
 */
static void cross_switches(gh_ptrace *pt, const gh_gswitch *sw)
{
	size_t i;
	int round, any = 0;

	for (i = 0; i < pt->n; i++) {
		pt_thread *t = &pt->t[i];

		if (t->state != PT_STOPPED || t->err != 0 || !t->captured ||
		    t->xstate != PT_X_NONE)
			continue;
		t->xstate = PT_X_DONE;
		if (t->walking || t->fp != 0 || t->end_rec == 0 ||
		    t->nframes < 2 ||
		    t->pcs[t->nframes - 1] < sw->mcall_lo ||
		    t->pcs[t->nframes - 1] >= sw->mcall_hi)
			continue;
		t->xstate = PT_X_G;
		t->walking = 1;
		cross_step(pt, t, i, sw);
		any |= t->walking;
	}
	for (round = 0; any && round < GH_PT_MAX_READS; round++) {
		read_windows(pt);
		any = 0;
		for (i = 0; i < pt->n; i++) {
			pt_thread *t = &pt->t[i];

			if (!t->walking)
				continue;
			if (t->xstate == PT_X_DONE)
				walk(pt, t, i);
			else
				cross_step(pt, t, i, sw);
			any |= t->walking;
		}
	}
	for (i = 0; i < pt->n; i++)
		pt->t[i].walking = 0;
}
#endif
#else
/* libunwind unwinds at gh_ptrace_thread_stacks time. */
void gh_pt_get_thread_regs(gh_ptrace *pt, pt_thread *t)
{
	(void)pt;
	t->nframes = 0;
	t->err = 0;
}

int gh_pt_capture_stacks(gh_ptrace *pt, gh_err *err)
{
	(void)pt;
	(void)err;
	return 0;
}
#endif

/* ---- the stacks --------------------------------------------------------- */

#ifndef GH_PT_FRAME_POINTERS
/* libunwind-ptrace all the way (see "Unwinding"). */
static int unwind_thread(unw_addr_space_t as, pt_thread *t, gh_err *err)
{
	unw_cursor_t c;
	unw_word_t ip = 0;
	void *ui;
	int r, n = 0;

	ui = _UPT_create(t->tid);
	if (ui == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	r = unw_init_remote(&c, as, ui);
	if (r == 0)
		r = unw_get_reg(&c, UNW_REG_IP, &ip);
	if (r != 0) {
		_UPT_destroy(ui);
		return gh_errf(err, GOHEAP_EIO, "thread %d: reading its "
			       "registers: %s", t->tid, unw_strerror(r));
	}
	t->pcs[n++] = ip;
	while (n < GH_PT_MAX_FRAMES && unw_step(&c) > 0 &&
	       unw_get_reg(&c, UNW_REG_IP, &ip) == 0)
		t->pcs[n++] = ip;
	_UPT_destroy(ui);
	t->nframes = n;
	return 0;
}
#endif

int gh_ptrace_thread_stacks(gh_ptrace *pt, const gh_gswitch *sw,
			    goheap_stack_cb cb, void *payload, gh_err *err)
{
	size_t i;
	int rc = 0;
#ifndef GH_PT_FRAME_POINTERS
	unw_addr_space_t as;
#endif

#if defined(__x86_64__)
	if (!pt->foreign && sw != NULL)
		cross_switches(pt, sw);
#else
	(void)sw;
#endif

	if (pt->foreign)
		return gh_errf(err, GOHEAP_EUNSUPPORTED,
			       "process %d has another word size than this "
			       "%zu-bit go-heap: its threads cannot be "
			       "unwound (use a go-heap built for it)",
			       pt->pid, sizeof(void *) * 8);
#ifndef GH_PT_FRAME_POINTERS
	as = unw_create_addr_space(&_UPT_accessors, 0);
	if (as == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
#endif
	for (i = 0; i < pt->n && rc == 0; i++) {
		pt_thread *t = &pt->t[i];

		if (t->state != PT_STOPPED)
			continue;
#ifndef GH_PT_FRAME_POINTERS
		rc = unwind_thread(as, t, err);
		if (rc != 0)
			break;
#endif
		if (t->err != 0) {
			rc = gh_errf(err, GOHEAP_EIO, "thread %d: reading its "
				     "registers: %s", t->tid,
				     strerror(t->err));
			break;
		}
		rc = cb(t->tid, t->pcs, (size_t)t->nframes, payload);
	}
#ifndef GH_PT_FRAME_POINTERS
	unw_destroy_addr_space(as);
#endif
	return rc;
}

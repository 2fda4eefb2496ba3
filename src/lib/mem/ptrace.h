/*
 * ptrace.h - stop, unwind and resume every thread of a live process
 * (force mode's side of the live memory source; see ptrace.c).
 */
#ifndef GH_PTRACE_H
#define GH_PTRACE_H

#include "gh.h"

/* Every thread of one process, attached with PTRACE_SEIZE and stopped. */
typedef struct gh_ptrace gh_ptrace;

/*
 * Stop every thread of `pid`.  On success *out holds the stopped set and
 * gh_ptrace_resume(*out) must follow.  On failure nothing stays attached,
 * *out is NULL and err explains (which permission rule refused us, or
 * that the process is gone).
 */
int gh_ptrace_stop(gh_ptrace **out, int pid, gh_err *err);

/*
 * Detach every thread, re-injecting the signals that were being delivered
 * when they stopped, and free pt.  NULL is allowed.  Returns 0, or the
 * first detach error (every thread is still detached as far as possible).
 */
int gh_ptrace_resume(gh_ptrace *pt, gh_err *err);

/*
 * When gh_ptrace_stop interrupted its first thread (gh_now's clock): the
 * seizing before it stops nothing.
 */
double gh_ptrace_stopped_at(const gh_ptrace *pt);

/*
 * The registers thread slot i (0 .. until -1) reported as it stopped: its
 * id, PC and SP (amd64/arm64; the goroutine snapshot, goroutine.c).
 * 0, 1 when that slot has none (exited, unread, foreign, other arch), -1
 * past the last slot.
 */
int gh_ptrace_thread_regs(const gh_ptrace *pt, size_t i, int64_t *tid,
			  uint64_t *pc, uint64_t *sp);

/* Threads stopped by gh_ptrace_stop (not counting those that exited). */
size_t gh_ptrace_nthreads(const gh_ptrace *pt);

/*
 * Call cb(tid, pcs, n, payload) once per stopped thread with its call
 * stack, innermost first.  pcs[0] is the thread's PC; the rest are return
 * addresses from the frame-pointer chain.  On amd64 and arm64 pcs[1] may
 * be a second candidate for the innermost caller (the word at SP, or LR),
 * included because the innermost function may not have set up its frame
 * yet; a consumer looking for "is this thread inside F" should treat every
 * entry as possibly live.  A non-zero cb return stops and is returned.
 * sw (may be NULL): cross runtime.mcall's switch to g0 as it says.
 */
struct gh_gswitch;
int gh_ptrace_thread_stacks(gh_ptrace *pt, const struct gh_gswitch *sw,
			    goheap_stack_cb cb, void *payload, gh_err *err);

/*
 * Crossing runtime.mcall's switch to g0 (Go 1.25+, where it clears the
 * frame pointer): a thread whose chain ends at a frame record with a
 * saved FP of 0 and a return address in [mcall_lo, mcall_hi) is on g0
 * in mcall's callee; the g mcall switched from is the word just above
 * that return address (mcall's PUSHQ AX), and its frames go on from
 * g.sched: pc, then the caller found by its frame record, then the
 * chain from sched.bp.  Offsets are from the g (g_sched + gobuf_*, from
 * the release's row: rtlayout.c); sched.g must equal the g.  amd64 only
 * (mcall's PUSHQ AX); elsewhere the request is ignored.
 */
typedef struct gh_gswitch {
	uint64_t mcall_lo, mcall_hi;
	unsigned sched_sp, sched_pc, sched_g, sched_bp;
} gh_gswitch;


#endif

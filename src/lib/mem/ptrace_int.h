/*
 * ptrace_int.h - the stop's private parts, shared by ptrace.c (seizing,
 * stopping, resuming the threads) and ptrace_stacks.c (what the stopped
 * threads' stacks hold: frame-pointer chains read in batches, the crossing
 * of runtime.mcall's switch, libunwind elsewhere).
 */
#ifndef GH_PTRACE_INT_H
#define GH_PTRACE_INT_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "ptrace.h"

/* Frames reported per thread; enough to see past the runtime's own. */
#define GH_PT_MAX_FRAMES 64
/* Rescans of /proc/PID/task before we give up on a thread storm. */
#define GH_PT_MAX_ROUNDS 16
/*
 * The longest a stop may take to reach every thread before we give up and
 * resume the others: a thread in uninterruptible sleep (state D) does not
 * stop until its system call completes, and the rest of the target must
 * not wait for it.  Generous against scheduling delays on a loaded
 * machine (a woken thread may wait a few ms for a CPU).
 */
#define GH_PT_STOP_TIMEOUT_MS 100
#define GH_PT_STR2(x) #x
#define GH_PT_STR(x) GH_PT_STR2(x)
/* How long to wait for such a thread afterwards, only to detach it. */
#define GH_PT_DETACH_TIMEOUT_MS 10000
/* How long to wait for the exits of threads that died under the stop (a
 * SIGKILLed thread runs its exit at once: a few ms on a loaded machine). */
#define GH_PT_REAP_TIMEOUT_MS 2000
/* Pauses between polls of the waits (waitpid has no timeout): 10 us, doubling. */
#define GH_PT_POLL_US 10
#define GH_PT_POLL_MAX_US 1000
/* linux/capability.h: CAP_SYS_PTRACE. */
#define GH_CAP_SYS_PTRACE 19

/*
 * Architectures whose Go code keeps frame pointers and whose registers we
 * read ourselves (see "Unwinding"); anything else uses libunwind.
 */
#if defined(__x86_64__) || defined(__aarch64__)
#define GH_PT_FRAME_POINTERS 1
#else
#include <libunwind-ptrace.h>
#endif

enum pt_state {
	PT_NEW,       /* listed in /proc/PID/task, not seized */
	PT_ATTACHED,  /* seized, maybe interrupted, not yet seen stopped */
	PT_STOPPED,   /* in a ptrace-stop: may be read and detached */
	PT_EXITED,    /* seized, then exited (or exiting: SIGKILL woke it from
	               * its stop), its exit not collected yet: a traced
	               * thread's exit is reported to its tracer, and until we
	               * collect it (reap_exited) it stays a zombie traced by
	               * us, and its process cannot be reaped by its parent */
	PT_GONE,      /* exited and collected, never seized, or detached */
};

typedef struct pt_thread {
	pid_t tid;
	int state;       /* enum pt_state */
	int sig;         /* signal to re-inject at detach, 0 if none */
	int in_syscall;  /* stopped inside a system call (it was blocked) */
	int err;         /* reading its registers failed: errno */
	int nframes;     /* captured frames in pcs, innermost first */
	uint64_t pcs[GH_PT_MAX_FRAMES];
	/* The frame-chain walk (capture_stacks): */
	uint64_t sp, fp, cand;
	uint64_t need;   /* address of the next window to read, 0 if none */
	uint64_t wbase;  /* the window held in the thread's buffer */
	size_t wlen;
	int walking;
	int captured;    /* capture_stacks has walked it */
	int interrupted; /* PTRACE_INTERRUPT sent */
	char proc_state; /* its state letter in /proc when listed */
	/* Crossing runtime.mcall's switch to g0 (gh_gswitch): */
	uint64_t end_rec; /* the last frame record read, if its saved FP was 0 */
	int xstate;       /* enum pt_xstate */
	uint64_t xg;      /* the g mcall switched from */
	uint64_t xsched[4]; /* its g.sched: sp, pc, g, bp */
} pt_thread;

/* Where a thread's crossing of mcall's switch stands (cross_step). */
enum pt_xstate {
	PT_X_NONE,    /* not tried */
	PT_X_G,       /* read the g pushed above the return into mcall */
	PT_X_SCHED,   /* read its g.sched */
	PT_X_CALLER,  /* find the frame record of mcall's caller */
	PT_X_DONE,    /* crossed (the chain goes on from sched.bp), or not */
};

/*
 * Stack bytes read per thread and round: the frame records of a thread's
 * innermost frames lie just above SP (Go frames are small; a parked
 * thread's g0 chain, futex up to mcall, spans about 500 bytes), and when
 * the chain leaves them, for the goroutine stack that called mcall or
 * systemstack, the next round reads there.  Every stopped thread's window
 * is read in the same process_vm_readv (one iovec each), since the call's
 * fixed cost (about 2 us: task lookup, access check, page pinning) would
 * otherwise be paid per thread while the target stands still.
 */
#define GH_PT_WINDOW 1024
/* process_vm_readv takes at most IOV_MAX (1024) iovecs per call. */
#define GH_PT_IOV 1024
/* Rounds of window reads; each round adds at least one frame per thread. */
#define GH_PT_MAX_READS GH_PT_MAX_FRAMES

struct gh_ptrace {
	pid_t pid;
	pt_thread *t;
	size_t n, cap;
	int foreign;      /* the target's ELF class is not ours */
	int leader_gone;  /* the group leader exited while we waited */
	int rt;           /* we switched to SCHED_FIFO: restore old_policy */
	int old_policy;
	struct sched_param old_param;
	double stopped_at;    /* gh_now() at the first interrupt */
	int taskfd;           /* /proc/PID/task, during the stop */
	unsigned char *wbuf;  /* GH_PT_WINDOW bytes per thread */
	size_t wcap;          /* threads wbuf has room for */
};

/* ptrace_stacks.c */
void gh_pt_get_thread_regs(gh_ptrace *pt, pt_thread *t);
int gh_pt_capture_stacks(gh_ptrace *pt, gh_err *err);
/* ptrace.c: wait until t reports its stop (or exit), read its registers */
int gh_pt_wait_stop(gh_ptrace *pt, pt_thread *t, double deadline);

#endif

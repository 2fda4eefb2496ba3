/*
 * ptrace.c - stop every thread of a live process, unwind them, resume them:
 * the stop, resume and thread_stacks slots of the live memory source.
 *
 * Force mode writes one word into a running Go program and must first make
 * sure no thread is half-way through the code that reads it.  That needs
 * every thread still, for as short a time as possible (the goal is under
 * 2 ms for 50 threads), and it must never leave the target stopped.
 *
 * Stopping.  PTRACE_SEIZE attaches without stopping and without the
 * SIGSTOP that PTRACE_ATTACH would queue (which, if we died before
 * consuming it, would group-stop the target); PTRACE_INTERRUPT then stops
 * a seized thread and reports PTRACE_EVENT_STOP (ptrace(2), "Attaching and
 * detaching"; kernel/ptrace.c, ptrace_attach and PTRACE_INTERRUPT).  So
 * we seize every thread listed in /proc/PID/task first, which costs the
 * target nothing, then interrupt them all, then wait for each: the window
 * in which the target is (partly) stopped starts at the first interrupt.
 * A thread that was inside clone() when interrupted may have created a
 * child we did not list, so we rescan until a pass finds no new thread;
 * once every listed thread is stopped none can create another.
 *
 * What waitpid reports for a seized, interrupted thread:
 *   - PTRACE_EVENT_STOP with SIGTRAP: our interrupt.
 *   - PTRACE_EVENT_STOP with SIGSTOP/SIGTSTP/SIGTTIN/SIGTTOU: the process
 *     was already group-stopped (ptrace_attach kicks a stopped task into a
 *     trap).  Detaching leaves it group-stopped, as it was (__ptrace_unlink
 *     reinstates JOBCTL_STOP_PENDING while SIGNAL_STOP_STOPPED holds).
 *   - a plain stop (no event): signal-delivery-stop; the signal (often
 *     SIGURG, Go's preemption signal) would be lost unless we pass it back
 *     as PTRACE_DETACH's data, which is what we do.  The pending interrupt
 *     trap is cleared by the detach itself.
 *   - an exit: the thread died meanwhile; nothing to detach.
 * Threads are waited for in reverse order so that the group leader comes
 * last: a leader whose process is exiting cannot be reaped while traced
 * sub-threads remain unreaped (delay_group_leader in kernel/exit.c).
 *
 * Resuming.  PTRACE_DETACH every stopped thread, first-stopped first, so
 * each thread is stopped for about the same time.  If go-heap itself is
 * killed (even with SIGKILL) the kernel detaches every tracee on exit
 * (exit_ptrace) and the target runs on; only a signal caught in
 * signal-delivery-stop at that moment is lost.
 *
 * Unwinding.  libunwind-ptrace's _UPT accessors read the registers of the
 * innermost frame.  Stepping further with unw_step does unwind Go code
 * correctly (Go emits .debug_frame, not .eh_frame, and libunwind finds
 * it), but each _UPT_create'd thread maps the executable and parses its
 * CFI again: about 1 ms per thread, 60 ms for 60 threads, while the target
 * is stopped.  Go keeps frame pointers on amd64 and arm64 (every Go
 * function with a frame saves the caller's frame pointer below its return
 * address: cmd/compile, "framepointer_enabled"; runtime/tracebackfp uses
 * the same chain), so after the first frame we follow [FP] / [FP+8]
 * ourselves, one 16-byte process_vm_readv per frame.  Elsewhere we fall
 * back to unw_step.
 *
 * Rejected: PTRACE_ATTACH (queues a SIGSTOP, see above); SIGSTOP to the
 * whole process (visible to the parent as a job-control stop, and left in
 * place if we die); /proc/PID/syscall or /proc/PID/task/TID/stat for the
 * PC (no stack, and racy without a stop).
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libunwind-ptrace.h>

#include "ptrace.h"

/* Frames reported per thread; enough to see past the runtime's own. */
#define GH_PT_MAX_FRAMES 64
/* Rescans of /proc/PID/task before we give up on a thread storm. */
#define GH_PT_MAX_ROUNDS 16
/* linux/capability.h: CAP_SYS_PTRACE. */
#define GH_CAP_SYS_PTRACE 19

#if defined(UNW_TARGET_X86_64)
/* amd64: FP is RBP; a frameless innermost function's caller is at [RSP]. */
#define GH_UNW_FP UNW_X86_64_RBP
#define GH_CAND_AT_SP 1
#elif defined(UNW_TARGET_AARCH64)
/* arm64: FP is X29; a leaf's return address is still in LR (X30). */
#define GH_UNW_FP UNW_AARCH64_X29
#define GH_UNW_LR UNW_AARCH64_X30
#endif

enum pt_state {
	PT_ATTACHED,  /* seized, maybe interrupted, not yet seen stopped */
	PT_STOPPED,   /* in a ptrace-stop: may be read and detached */
	PT_GONE,      /* exited, or detached */
};

typedef struct pt_thread {
	pid_t tid;
	int state;    /* enum pt_state */
	int sig;      /* signal to re-inject at detach, 0 if none */
} pt_thread;

struct gh_ptrace {
	pid_t pid;
	pt_thread *t;
	size_t n, cap;
	int foreign;      /* the target's ELF class is not ours */
	int leader_gone;  /* the group leader exited while we waited */
};

/* ---- permission diagnosis --------------------------------------------- */

/* The first "Key:\tvalue" line of a /proc status file, as text. */
static int status_field(const char *path, const char *key, char *out,
			size_t outlen)
{
	char line[256];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "re");
	int found = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			snprintf(out, outlen, "%s", line + klen + 1 +
				 strspn(line + klen + 1, " \t"));
			out[strcspn(out, "\n")] = '\0';
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * PTRACE_SEIZE said EPERM: say which rule.  The kernel's order
 * (ptrace_attach -> __ptrace_may_access -> security_ptrace_access_check):
 * a task has one tracer; then same uid/gid and dumpable, or CAP_SYS_PTRACE
 * in the target's user namespace; then Yama (security/yama/yama_lsm.c:
 * 1 = only descendants unless CAP_SYS_PTRACE, 2 = CAP_SYS_PTRACE only,
 * 3 = nobody).
 */
static int explain_eperm(const gh_ptrace *pt, pid_t tid, gh_err *err)
{
	char path[64], tracer[32] = "0", cap[32] = "0", comm[64] = "";
	char yama[16] = "";
	unsigned long long capeff;
	int has_cap, scope = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pt->pid, tid);
	status_field(path, "TracerPid", tracer, sizeof(tracer));
	if (atol(tracer) != 0) {
		snprintf(path, sizeof(path), "/proc/%s/comm", tracer);
		f = fopen(path, "re");
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) == NULL)
				comm[0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: thread %d is already traced by "
			       "process %s%s%s%s (a debugger or strace?): a "
			       "thread can have only one tracer; detach it "
			       "first", pt->pid, tid, tracer,
			       comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
	}
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f != NULL) {
		if (fgets(yama, sizeof(yama), f) != NULL)
			scope = atoi(yama);
		fclose(f);
	}
	status_field("/proc/self/status", "CapEff", cap, sizeof(cap));
	capeff = strtoull(cap, NULL, 16);
	has_cap = (capeff >> GH_CAP_SYS_PTRACE) & 1;
	if (scope == 3)
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: kernel.yama.ptrace_scope=3 forbids "
			       "every ptrace attach (it cannot be lowered "
			       "until reboot)", pt->pid);
	if (!has_cap && scope == 2)
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: kernel.yama.ptrace_scope=2 allows "
			       "attaching only with CAP_SYS_PTRACE: run as "
			       "root", pt->pid);
	if (!has_cap && scope == 1)
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: kernel.yama.ptrace_scope=1 allows "
			       "attaching only to descendants: run as root or "
			       "with CAP_SYS_PTRACE, or set "
			       "kernel.yama.ptrace_scope=0", pt->pid);
	if (!has_cap && geteuid() == 0)
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: running as root but without "
			       "CAP_SYS_PTRACE in the effective set (a "
			       "container without SYS_PTRACE?)", pt->pid);
	if (!has_cap)
		return gh_errf(err, GOHEAP_EPERM,
			       "process %d: not root and no CAP_SYS_PTRACE: "
			       "attaching needs the target's uid and a "
			       "dumpable target, or CAP_SYS_PTRACE", pt->pid);
	return gh_errf(err, GOHEAP_EPERM,
		       "process %d: ptrace attach refused despite "
		       "CAP_SYS_PTRACE (a seccomp filter or a security "
		       "module such as SELinux or AppArmor forbids it)",
		       pt->pid);
}

/* ---- stop --------------------------------------------------------------- */

/* Is /proc/PID/exe of a different word size than this process? */
static int foreign_class(pid_t pid)
{
	unsigned char id[EI_NIDENT];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG) != 0)
		return 0;
	return id[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
}

/*
 * A zombie thread (a group leader that called pthread_exit while others
 * run on) cannot be attached: ptrace_attach refuses tasks with an
 * exit_state with EPERM, which must not be mistaken for a permission
 * problem.  It runs no code, so it needs no stop.
 */
static int thread_is_dead(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static int known(const gh_ptrace *pt, pid_t tid)
{
	size_t i;

	for (i = 0; i < pt->n; i++)
		if (pt->t[i].tid == tid)
			return 1;
	return 0;
}

/* Block until t reports its stop (or exit); see the top comment. */
static void wait_stop(gh_ptrace *pt, pt_thread *t)
{
	pid_t r;
	int st = 0;

	do
		r = waitpid(t->tid, &st, __WALL);
	while (r < 0 && errno == EINTR);
	if (r < 0 || !WIFSTOPPED(st)) {
		/* ECHILD (already reaped), WIFEXITED, WIFSIGNALED. */
		t->state = PT_GONE;
		if (t->tid == pt->pid)
			pt->leader_gone = 1;
		return;
	}
	t->state = PT_STOPPED;
	if ((st >> 16) == 0)
		t->sig = WSTOPSIG(st);
}

/*
 * Seize every thread of /proc/PID/task we do not hold yet, then interrupt
 * them.  A thread is recorded before it is seized (the array grows first),
 * so a failure here can always detach what was attached.
 */
static int seize_new(gh_ptrace *pt, gh_err *err)
{
	char path[64];
	struct dirent *de;
	size_t first = pt->n, i;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pt->pid);
	d = opendir(path);
	if (d == NULL)
		return gh_errf(err, errno == ENOENT ? GOHEAP_ENOPROC :
			       GOHEAP_EIO, "process %d: %s", pt->pid,
			       errno == ENOENT ? "no such process (it exited)" :
			       strerror(errno));
	while ((de = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end != '\0' || tid <= 0 ||
		    known(pt, (pid_t)tid))
			continue;
		if (pt->n == pt->cap) {
			size_t nc = pt->cap ? pt->cap * 2 : 64;
			pt_thread *v = gh_reallocarray(pt->t, nc, sizeof(*v));

			if (v == NULL) {
				rc = gh_errf(err, GOHEAP_ENOMEM,
					     "out of memory");
				break;
			}
			pt->t = v;
			pt->cap = nc;
		}
		if (ptrace(PTRACE_SEIZE, (pid_t)tid, NULL, NULL) != 0) {
			int e = errno;

			if (e == ESRCH || thread_is_dead(pt->pid, (pid_t)tid))
				continue;   /* exited since readdir */
			if (e == EPERM)
				rc = explain_eperm(pt, (pid_t)tid, err);
			else
				rc = gh_errf(err, GOHEAP_EIO,
					     "process %d: PTRACE_SEIZE of "
					     "thread %ld: %s", pt->pid, tid,
					     strerror(e));
			break;
		}
		pt->t[pt->n].tid = (pid_t)tid;
		pt->t[pt->n].state = PT_ATTACHED;
		pt->t[pt->n].sig = 0;
		pt->n++;
	}
	closedir(d);
	for (i = first; i < pt->n; i++) {
		if (ptrace(PTRACE_INTERRUPT, pt->t[i].tid, NULL, NULL) != 0 &&
		    errno == ESRCH)
			pt->t[i].state = PT_GONE;
	}
	return rc;
}

size_t gh_ptrace_nthreads(const gh_ptrace *pt)
{
	size_t i, k = 0;

	for (i = 0; pt != NULL && i < pt->n; i++)
		k += pt->t[i].state == PT_STOPPED;
	return k;
}

int gh_ptrace_stop(gh_ptrace **out, int pid, gh_err *err)
{
	gh_ptrace *pt;
	size_t first, i;
	int rc, round;

	*out = NULL;
	pt = gh_calloc(1, sizeof(*pt));
	if (pt == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	pt->pid = pid;
	pt->foreign = foreign_class(pid);
	for (round = 0;; round++) {
		if (round == GH_PT_MAX_ROUNDS) {
			rc = gh_errf(err, GOHEAP_ELIMIT,
				     "process %d: still finding new threads "
				     "after %d scans of /proc/%d/task", pid,
				     round, pid);
			goto fail;
		}
		first = pt->n;
		rc = seize_new(pt, err);
		for (i = pt->n; i > first; i--)
			if (pt->t[i - 1].state == PT_ATTACHED)
				wait_stop(pt, &pt->t[i - 1]);
		if (rc != 0)
			goto fail;
		if (pt->leader_gone || (round == 0 && pt->n == 0)) {
			rc = gh_errf(err, GOHEAP_ENOPROC,
				     "process %d exited while being stopped",
				     pid);
			goto fail;
		}
		if (pt->n == first)
			break;
	}
	*out = pt;
	return 0;
fail:
	gh_ptrace_resume(pt, NULL);
	return rc;
}

/* ---- resume ------------------------------------------------------------- */

int gh_ptrace_resume(gh_ptrace *pt, gh_err *err)
{
	size_t i;
	int rc = 0;

	if (pt == NULL)
		return 0;
	for (i = 0; i < pt->n; i++) {
		pt_thread *t = &pt->t[i];

		/*
		 * Only a thread in a ptrace-stop can be detached
		 * (ptrace_check_attach); one still running (an error cut
		 * the stop short) is interrupted and waited for first.
		 */
		if (t->state == PT_ATTACHED) {
			ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
			wait_stop(pt, t);
		}
		if (t->state != PT_STOPPED)
			continue;
		if (ptrace(PTRACE_DETACH, t->tid, NULL,
			   (void *)(uintptr_t)t->sig) != 0 && errno != ESRCH &&
		    rc == 0)
			rc = gh_errf(err, GOHEAP_EIO, "process %d: detaching "
				     "thread %d: %s", pt->pid, t->tid,
				     strerror(errno));
		t->state = PT_GONE;
	}
	free(pt->t);
	free(pt);
	return rc;
}

/* ---- unwinding ---------------------------------------------------------- */

/*
 * The stack just above SP, read with one system call per thread: Go frames
 * are small, so most of a thread's frame records lie in it, and a read per
 * frame (about 1.5 us each) would dominate the stop.  A window that runs
 * into an unmapped page is simply shorter (process_vm_readv stops there).
 */
#define GH_PT_WINDOW 8192

typedef struct stack_window {
	pid_t tid;
	uint64_t base;
	size_t len;
	unsigned char b[GH_PT_WINDOW];
} stack_window;

static void window_fill(stack_window *sw, pid_t tid, uint64_t sp)
{
	sw->tid = tid;
	sw->base = sp;
	sw->len = 0;
#ifdef HAVE_PROCESS_VM_READV
	{
		struct iovec local = { sw->b, sizeof(sw->b) };
		struct iovec remote = { (void *)(uintptr_t)sp, sizeof(sw->b) };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);

		if (n > 0)
			sw->len = (size_t)n;
	}
#endif
}

static int window_has(const stack_window *sw, uint64_t addr, size_t len)
{
	return addr >= sw->base && addr - sw->base <= sw->len &&
	       sw->len - (addr - sw->base) >= len;
}

/*
 * Two target words at addr (frame record: saved FP, return address).  A
 * miss moves the window to addr: the chain has left the stack we read,
 * typically from a thread's g0 stack back to the goroutine stack that
 * called mcall or systemstack, and its next records are above addr.
 */
static int read_pair(stack_window *sw, uint64_t addr, uint64_t out[2])
{
	unsigned long w[2];
	int i;

	if (!window_has(sw, addr, sizeof(w)))
		window_fill(sw, sw->tid, addr);
	if (window_has(sw, addr, sizeof(w))) {
		memcpy(w, sw->b + (addr - sw->base), sizeof(w));
		out[0] = w[0];
		out[1] = w[1];
		return 0;
	}
	/*
	 * Nothing readable there with process_vm_readv (unmapped, or the
	 * call is unavailable): the thread is in a ptrace-stop, so PEEKDATA
	 * gives the definitive answer.
	 */
	for (i = 0; i < 2; i++) {
		errno = 0;
		w[i] = (unsigned long)ptrace(PTRACE_PEEKDATA, sw->tid,
					     (void *)(uintptr_t)(addr +
					     i * sizeof(long)), NULL);
		if (errno != 0)
			return -1;
		out[i] = w[i];
	}
	return 0;
}

/*
 * pcs[0] from the registers, then the frame-pointer chain: FP points at
 * the saved caller FP, and the return address sits just above it.
 * Worked example (amd64, thread stopped in runtime.nextSample called from
 * runtime.profilealloc called from runtime.mallocgc):
 *   RIP in nextSample          -> pcs[0]
 *   [RSP] (candidate)          -> return into profilealloc if nextSample
 *                                 had not pushed RBP yet, else a local
 *   RBP -> [RBP+8]             -> return into profilealloc   (pcs[n])
 *          [RBP] -> [..+8]     -> return into mallocgc
 * The candidate is kept only if it differs from the first chain entry.
 */
static int unwind_thread(unw_addr_space_t as, stack_window *sw, pid_t tid,
			 uint64_t *pcs, size_t *np, gh_err *err)
{
	unw_cursor_t c;
	unw_word_t ip = 0, sp = 0, fp = 0, cand = 0;
	uint64_t rec[2];
	size_t n = 0;
	void *ui;
	int r;

	(void)sp;
	(void)rec;
	(void)fp;
	(void)cand;
	(void)sw;
	ui = _UPT_create(tid);
	if (ui == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	r = unw_init_remote(&c, as, ui);
	if (r == 0)
		r = unw_get_reg(&c, UNW_REG_IP, &ip);
	if (r == 0)
		r = unw_get_reg(&c, UNW_REG_SP, &sp);
#ifdef GH_UNW_FP
	if (r == 0)
		r = unw_get_reg(&c, GH_UNW_FP, &fp);
#endif
#ifdef GH_UNW_LR
	if (r == 0)
		r = unw_get_reg(&c, GH_UNW_LR, &cand);
#endif
	if (r != 0) {
		_UPT_destroy(ui);
		return gh_errf(err, GOHEAP_EIO, "thread %d: reading its "
			       "registers: %s", tid, unw_strerror(r));
	}
	pcs[n++] = ip;
#ifndef GH_UNW_FP
	/* No frame-pointer convention known here: let libunwind step. */
	while (n < GH_PT_MAX_FRAMES && unw_step(&c) > 0 &&
	       unw_get_reg(&c, UNW_REG_IP, &ip) == 0)
		pcs[n++] = ip;
#endif
	_UPT_destroy(ui);
#ifdef GH_UNW_FP
	window_fill(sw, tid, sp);
#ifdef GH_CAND_AT_SP
	if (read_pair(sw, sp, rec) == 0)
		cand = rec[0];
#endif
	while (n < GH_PT_MAX_FRAMES && fp != 0 && fp % sizeof(long) == 0 &&
	       read_pair(sw, fp, rec) == 0 && rec[1] != 0) {
		if (n == 1 && cand != 0 && cand != rec[1])
			pcs[n++] = cand;
		pcs[n++] = rec[1];
		if (rec[0] == fp)
			break;
		fp = rec[0];
	}
	if (n == 1 && cand != 0)
		pcs[n++] = cand;
#endif
	*np = n;
	return 0;
}

int gh_ptrace_thread_stacks(gh_ptrace *pt, goheap_stack_cb cb, void *payload,
			    gh_err *err)
{
	uint64_t pcs[GH_PT_MAX_FRAMES];
	stack_window *sw;
	unw_addr_space_t as;
	size_t i, n = 0;
	int rc = 0;

	if (pt->foreign)
		return gh_errf(err, GOHEAP_EUNSUPPORTED,
			       "process %d has another word size than this "
			       "%zu-bit go-heap: its threads cannot be "
			       "unwound (use a go-heap built for it)",
			       pt->pid, sizeof(void *) * 8);
	sw = malloc(sizeof(*sw));
	as = unw_create_addr_space(&_UPT_accessors, 0);
	if (sw == NULL || as == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < pt->n && rc == 0; i++) {
		if (pt->t[i].state != PT_STOPPED)
			continue;
		rc = unwind_thread(as, sw, pt->t[i].tid, pcs, &n, err);
		if (rc == 0)
			rc = cb(pt->t[i].tid, pcs, n, payload);
	}
out:
	if (as != NULL)
		unw_destroy_addr_space(as);
	free(sw);
	return rc;
}

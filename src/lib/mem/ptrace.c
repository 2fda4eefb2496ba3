/*
 * ptrace.c - stop every thread of a live process, unwind them, resume them:
 * the stop, resume and thread_stacks slots of the live memory source.
 *
 * Why it is done this way (SEIZE + INTERRUPT, the order of stopping and
 * resuming, uninterruptible sleepers, the measurements behind it):
 * doc/design.md, "Stopping a live process".
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

/* ---- the target ------------------------------------------------------- */

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
 * The state letter of /proc/PID/task/TID/stat ("R" running or runnable,
 * "S" sleeping, "Z" zombie...), read relative to an open /proc/PID/task;
 * 'X' (dead) when the thread is gone.
 */
static char thread_state(int taskfd, pid_t tid)
{
	char path[32], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/stat", tid);
	fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 'X';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 'X';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] != '\0' ? p[2] : 'X';
}

/*
 * A zombie thread (a group leader that called pthread_exit while others
 * run on) cannot be attached: ptrace_attach refuses tasks with an
 * exit_state with EPERM, which must not be mistaken for a permission
 * problem.  It runs no code, so it needs no stop.
 */
static int thread_is_dead(int taskfd, pid_t tid)
{
	char st = thread_state(taskfd, tid);

	return st == 'Z' || st == 'X';
}

static int known(const gh_ptrace *pt, pid_t tid)
{
	size_t i;

	for (i = 0; i < pt->n; i++)
		if (pt->t[i].tid == tid)
			return 1;
	return 0;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/*
 * Test hook (tests/test_ptrace.c): GOHEAP_TEST_SEIZE_DELAY_MS=N waits N ms
 * between seizing the threads and interrupting them, so that a test can
 * put a thread into uninterruptible sleep after it was listed.  It stops
 * nothing: seized threads run on.
 */
static void test_seize_delay(void)
{
	const char *v = gh_test_hook("GOHEAP_TEST_SEIZE_DELAY_MS");
	long ms = v != NULL ? strtol(v, NULL, 10) : 0;

	if (ms > 0 && ms <= 10000)
		sleep_us(ms * 1000);
}

/* ---- the tracer's own priority ----------------------------------------- */

/*
 * SCHED_FIFO for the length of the stop, so that the threads we interrupt
 * and detach do not preempt us on our CPU (see the top comment).  Best
 * effort: without CAP_SYS_NICE, or in a cgroup without a real-time
 * budget, sched_setscheduler fails and we run as we are.  Only this
 * thread changes (Linux policies are per thread).
 */
static void rt_enter(gh_ptrace *pt)
{
	const char *off = getenv("GOHEAP_STOP_NO_RT");
	struct sched_param p = { 0 };

	if (off != NULL && strcmp(off, "1") == 0)
		return;
	pt->old_policy = sched_getscheduler(0);
	if (pt->old_policy < 0 || pt->old_policy == SCHED_FIFO ||
	    pt->old_policy == SCHED_RR ||
	    sched_getparam(0, &pt->old_param) != 0)
		return;
	p.sched_priority = sched_get_priority_min(SCHED_FIFO);
	if (sched_setscheduler(0, SCHED_FIFO, &p) == 0)
		pt->rt = 1;
}

static void rt_leave(gh_ptrace *pt)
{
	if (pt->rt)
		sched_setscheduler(0, pt->old_policy, &pt->old_param);
	pt->rt = 0;
}

/* ---- stop --------------------------------------------------------------- */


/*
 * Wait until t reports its stop (or exit), and read its registers; see the
 * top comment.  waitpid cannot time out, and a thread in uninterruptible
 * sleep (state D) does not stop until its system call completes, which
 * may be never (a hung NFS server).  So: one non-blocking waitpid; if t
 * has not stopped yet and is not in D, a blocking one (the fastest: our
 * CPU is free for t the moment it can run), except for the group leader,
 * which is polled and given up as gone once it is a zombie (the process
 * died during the stop); if it is in D, polls until
 * `deadline` (gh_now's clock) and returns -1 if t has not stopped by then,
 * with t still PT_ATTACHED and its interrupt pending.  deadline 0: only
 * the non-blocking waitpid.  The pauses between polls double from
 * GH_PT_POLL_US: as SCHED_FIFO we take our CPU back at every poll, and a
 * thread that needs it to reach its stop must get long enough turns
 * (fixed 10 us pauses made stops of 58 threads last 25-40 ms instead of
 * 1).  A thread may still enter D between our look at /proc and its
 * stop: then the blocking waitpid lasts as long as that sleep.
 */
int gh_pt_wait_stop(gh_ptrace *pt, pt_thread *t, double deadline)
{
	long pause = GH_PT_POLL_US;
	int block = 0, flags = __WALL | WNOHANG;
	pid_t r;
	int st = 0;
	char c;

	for (;;) {
		r = waitpid(t->tid, &st, flags);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;
		if (r < 0)
			continue;       /* EINTR */
		if (deadline == 0)
			return -1;
		c = thread_state(pt->taskfd, t->tid);
		/* The process died during the stop (SIGKILL): its zombie
		 * leader is reported only once every other thread has been
		 * reaped, and those are ours to reap.  Never a blocking wait
		 * for the leader, then: it is polled, and gone once a
		 * zombie. */
		if (t->tid == pt->pid && (c == 'Z' || c == 'X')) {
			t->state = PT_EXITED;   /* collected after the others */
			pt->leader_gone = 1;
			return 0;
		}
		if (!block) {
			block = 1;
			if (t->tid != pt->pid && c != 'D') {
				flags = __WALL;
				continue;
			}
		}
		if (c == 'D' && gh_now() > deadline)
			return -1;
		sleep_us(pause);
		if (pause < GH_PT_POLL_MAX_US)
			pause *= 2;
	}
	if (r < 0 || !WIFSTOPPED(st)) {
		/* ECHILD (already reaped), WIFEXITED, WIFSIGNALED. */
		t->state = PT_GONE;
		if (t->tid == pt->pid)
			pt->leader_gone = 1;
		return 0;
	}
	t->state = PT_STOPPED;
	if ((st >> 16) == 0)
		t->sig = WSTOPSIG(st);
	gh_pt_get_thread_regs(pt, t);
	return 0;
}

/*
 * t cannot be stopped (now): say why, from /proc.  A thread in
 * uninterruptible sleep, state D, answers no signal and no ptrace
 * interrupt until its system call or page fault completes (vfork, NFS, a
 * hung disk).  Message: "process P: thread T WHAT state D (uninterruptible
 * sleep, in WCHAN): CONSEQUENCE".
 */
static int explain_sleep(const gh_ptrace *pt, const pt_thread *t,
			 const char *what, const char *consequence,
			 gh_err *err)
{
	char path[32], wchan[64] = "";
	ssize_t n;
	int fd;
	char st = thread_state(pt->taskfd, t->tid);

	snprintf(path, sizeof(path), "%d/wchan", t->tid);
	fd = openat(pt->taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, wchan, sizeof(wchan) - 1);
		wchan[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (strcmp(wchan, "0") == 0)
		wchan[0] = '\0';
	return gh_errf(err, GOHEAP_EBUSY, "process %d: thread %d %s state %c "
		       "(%s%s%s): %s", pt->pid, t->tid, what, st,
		       st == 'D' ? "uninterruptible sleep" : "not stopped",
		       wchan[0] ? ", in " : "", wchan, consequence);
}

/* In the second group: running or runnable when listed, or the leader. */
static int stops_last(const gh_ptrace *pt, const pt_thread *t)
{
	return t->tid == pt->pid || t->proc_state == 'R';
}

/*
 * Seize every thread of /proc/PID/task we do not hold yet, and order the
 * new ones for stopping: those asleep first, then those running (state R
 * in /proc/PID/task/TID/stat), then the group leader (see the top
 * comment).  *mid is where the second group starts.  A thread is recorded
 * once seized, so a failure here can always detach what was attached.
 */
static int seize_new(gh_ptrace *pt, size_t *mid, gh_err *err)
{
	char path[64];
	struct dirent *de;
	size_t first = pt->n, i, k;
	pt_thread tmp, *t;
	DIR *d;
	int rc = 0;

	*mid = pt->n;
	snprintf(path, sizeof(path), "/proc/%d/task", pt->pid);
	d = opendir(path);
	if (d == NULL)
		return gh_errf(err, errno == ENOENT ? GOHEAP_ENOPROC :
			       GOHEAP_EIO, "process %d: %s", pt->pid,
			       errno == ENOENT ? "no such process (it exited)" :
			       strerror(errno));
	/* List the new threads and their states, touching nothing. */
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
		t = &pt->t[pt->n++];
		memset(t, 0, sizeof(*t));
		t->tid = (pid_t)tid;
		t->state = PT_NEW;
		t->proc_state = thread_state(dirfd(d), (pid_t)tid);
	}
	closedir(d);
	/*
	 * A thread in uninterruptible sleep would not stop until its system
	 * call completes: do not start a stop that would wait for it.
	 */
	for (i = first; i < pt->n && rc == 0; i++)
		if (pt->t[i].proc_state == 'D') {
			rc = explain_sleep(pt, &pt->t[i], "is in", "it cannot be "
					   "stopped now, nothing was stopped in "
					   "this pass", err);
			pt->n = first;
		}
	for (i = first; i < pt->n && rc == 0; i++) {
		t = &pt->t[i];
		if (ptrace(PTRACE_SEIZE, t->tid, NULL, NULL) != 0) {
			int e = errno;

			if (e == ESRCH || thread_is_dead(pt->taskfd, t->tid)) {
				t->state = PT_GONE;   /* exited since */
				continue;
			}
			if (e == EPERM)
				rc = explain_eperm(pt, t->tid, err);
			else
				rc = gh_errf(err, GOHEAP_EIO,
					     "process %d: PTRACE_SEIZE of "
					     "thread %d: %s", pt->pid, t->tid,
					     strerror(e));
			break;
		}
		t->state = PT_ATTACHED;
	}
	/* Sleepers first (stable), then the running, the leader last. */
	for (i = first, k = first; i < pt->n; i++) {
		if (stops_last(pt, &pt->t[i]))
			continue;
		tmp = pt->t[i];
		memmove(&pt->t[k + 1], &pt->t[k], (i - k) * sizeof(tmp));
		pt->t[k++] = tmp;
	}
	*mid = k;
	for (i = k; i + 1 < pt->n; i++) {
		if (pt->t[i].tid != pt->pid)
			continue;
		tmp = pt->t[i];
		memmove(&pt->t[i], &pt->t[i + 1],
			(pt->n - i - 1) * sizeof(tmp));
		pt->t[pt->n - 1] = tmp;
		break;
	}
	return rc;
}

/*
 * Interrupt threads [from, to), wait for each, and capture the stacks of
 * those that stopped.
 */
static int stop_group(gh_ptrace *pt, size_t from, size_t to, gh_err *err)
{
	double t0, deadline;
	size_t i;

	if (from == to)
		return 0;
	if (pt->stopped_at == 0)
		pt->stopped_at = gh_now();
	for (i = from; i < to; i++) {
		pt->t[i].interrupted = 1;
		if (ptrace(PTRACE_INTERRUPT, pt->t[i].tid, NULL, NULL) != 0 &&
		    errno == ESRCH)
			pt->t[i].state = PT_EXITED;   /* seized: ours to collect */
	}
	/*
	 * Every thread gets GH_PT_STOP_TIMEOUT_MS from the end of the
	 * interrupts, and at least a little from the moment we look at it
	 * (waiting for thousands of threads takes a while).
	 */
	t0 = gh_now();
	for (i = from; i < to; i++) {
		if (pt->t[i].state != PT_ATTACHED)
			continue;
		deadline = t0 + GH_PT_STOP_TIMEOUT_MS / 1e3;
		if (deadline < gh_now() + 0.01)
			deadline = gh_now() + 0.01;
		if (gh_pt_wait_stop(pt, &pt->t[i], deadline) != 0)
			return explain_sleep(pt, &pt->t[i], "did not stop within "
					     GH_PT_STR(GH_PT_STOP_TIMEOUT_MS)
					     " ms, in", "the other threads were "
					     "resumed", err);
	}
	return gh_pt_capture_stacks(pt, err);
}

double gh_ptrace_stopped_at(const gh_ptrace *pt)
{
	return pt != NULL ? pt->stopped_at : 0;
}

int gh_ptrace_thread_regs(const gh_ptrace *pt, size_t i, int64_t *tid,
			  uint64_t *pc, uint64_t *sp)
{
	const pt_thread *t;

	if (pt == NULL || i >= pt->n)
		return -1;
	t = &pt->t[i];
#ifdef GH_PT_FRAME_POINTERS
	if (t->state != PT_STOPPED || t->err != 0 || t->nframes < 1 ||
	    pt->foreign)
		return 1;
	*tid = t->tid;
	*pc = t->pcs[0];
	*sp = t->sp;
	return 0;
#else
	(void)t;
	(void)tid;
	(void)pc;
	(void)sp;
	return 1;
#endif
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
	char path[64];
	gh_ptrace *pt;
	size_t first, mid;
	int rc, round;

	*out = NULL;
	pt = gh_calloc(1, sizeof(*pt));
	if (pt == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	pt->pid = pid;
	pt->foreign = foreign_class(pid);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	pt->taskfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pt->taskfd < 0) {
		rc = gh_errf(err, errno == ENOENT ? GOHEAP_ENOPROC : GOHEAP_EIO,
			     "process %d: %s", pid, errno == ENOENT ?
			     "no such process (it exited)" : strerror(errno));
		free(pt);
		return rc;
	}
	for (round = 0;; round++) {
		if (round == GH_PT_MAX_ROUNDS) {
			rc = gh_errf(err, GOHEAP_ELIMIT,
				     "process %d: still finding new threads "
				     "after %d scans of /proc/%d/task", pid,
				     round, pid);
			goto fail;
		}
		first = pt->n;
		rc = seize_new(pt, &mid, err);
		if (rc != 0)
			goto fail;
		if (round == 0) {
			test_seize_delay();
			rt_enter(pt);
		}
		/*
		 * Those asleep first, with their stacks, while the running
		 * ones still run; then the running ones, briefly.
		 */
		rc = stop_group(pt, first, mid, err);
		if (rc == 0)
			rc = stop_group(pt, mid, pt->n, err);
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

static int detach(gh_ptrace *pt, pt_thread *t, int rc, gh_err *err)
{
	if (t->state != PT_STOPPED)
		return rc;
	if (ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(uintptr_t)t->sig) !=
	    0) {
		/* ESRCH: no longer in its stop, so killed (SIGKILL, the
		 * exit_group of a thread we had not stopped yet): exiting,
		 * its exit ours to collect */
		if (errno == ESRCH) {
			t->state = PT_EXITED;
			return rc;
		}
		if (rc == 0)
			rc = gh_errf(err, GOHEAP_EIO, "process %d: detaching "
				     "thread %d: %s", pt->pid, t->tid,
				     strerror(errno));
	}
	t->state = PT_GONE;
	return rc;
}

/* Collect t's exit if it is reported (1: collected, or not ours). */
static int reap_one(pt_thread *t)
{
	int st = 0;
	pid_t r;

	do
		r = waitpid(t->tid, &st, __WALL | WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r > 0 && WIFSTOPPED(st))
		/* not dead after all (a stop reported late): let it go */
		ptrace(PTRACE_DETACH, t->tid, NULL, NULL);
	t->state = PT_GONE;       /* reaped, stopped and detached, ECHILD */
	return 1;
}

/*
 * Threads that died under the stop (PT_EXITED: the process was killed, or
 * one of its threads we had not stopped called exit_group): a traced
 * thread's exit is reported to its tracer, not its parent, and until the
 * tracer collects it the thread stays a zombie traced by us, the process
 * with it: its parent's wait blocks for as long as we live (go-heap watch
 * held a `go` process this way until it exited: a hung test).  Collected
 * here, the other threads first: the kernel reports the leader only once
 * every other thread has been reaped (its parent is told then).  For at
 * most GH_PT_REAP_TIMEOUT_MS; after that the kernel releases what is left
 * when this process exits (exit_ptrace).
 */
static size_t reap_round(gh_ptrace *pt)
{
	size_t i, others = 0, leader = 0;

	for (i = 0; i < pt->n; i++) {
		pt_thread *t = &pt->t[i];

		if (t->tid == pt->pid)
			leader += t->state == PT_EXITED;
		else if (t->state == PT_EXITED && !reap_one(t))
			others++;
	}
	if (leader > 0 && others == 0)
		for (i = 0; i < pt->n; i++)
			if (pt->t[i].tid == pt->pid &&
			    pt->t[i].state == PT_EXITED && reap_one(&pt->t[i]))
				leader--;
	return others + leader;
}

static void reap_exited(gh_ptrace *pt)
{
	double deadline = gh_now() + GH_PT_REAP_TIMEOUT_MS / 1e3;

	while (reap_round(pt) > 0 && gh_now() <= deadline)
		sleep_us(1000);
}

/*
 * Threads still attached but not seen stopped (an error or a timeout cut
 * the stop short; the others are running again by now): only a thread in
 * a ptrace-stop can be detached (ptrace_check_attach), so interrupt those
 * not yet interrupted and sweep them all, detaching each as soon as it
 * stops, for at most GH_PT_DETACH_TIMEOUT_MS.  One that never stops (stuck
 * in uninterruptible sleep) stays attached until this process exits,
 * when the kernel detaches it (exit_ptrace).
 */
static int detach_pending(gh_ptrace *pt, int rc, gh_err *err)
{
	double deadline = gh_now() + GH_PT_DETACH_TIMEOUT_MS / 1e3;
	size_t i, left;

	for (i = 0; i < pt->n; i++)
		if (pt->t[i].state == PT_ATTACHED && !pt->t[i].interrupted) {
			pt->t[i].interrupted = 1;
			ptrace(PTRACE_INTERRUPT, pt->t[i].tid, NULL, NULL);
		}
	for (;;) {
		/* the dead first: an attached leader is reported only once
		 * they are collected */
		reap_round(pt);
		left = 0;
		for (i = 0; i < pt->n; i++) {
			if (pt->t[i].state != PT_ATTACHED)
				continue;
			if (gh_pt_wait_stop(pt, &pt->t[i], 0) == 0)
				rc = detach(pt, &pt->t[i], rc, err);
			else
				left++;
		}
		if (left == 0)
			return rc;
		if (gh_now() > deadline)
			break;
		sleep_us(1000);
	}
	for (i = 0; i < pt->n; i++)
		if (pt->t[i].state == PT_ATTACHED && rc == 0)
			rc = gh_errf(err, GOHEAP_EBUSY, "process %d: thread %d "
				     "has not stopped after %d s: it stays "
				     "attached, with a stop pending, until this "
				     "process exits", pt->pid, pt->t[i].tid,
				     GH_PT_DETACH_TIMEOUT_MS / 1000);
	return rc;
}

int gh_ptrace_resume(gh_ptrace *pt, gh_err *err)
{
	size_t i;
	int rc = 0;

	if (pt == NULL)
		return 0;
	/* Threads that were running first, then those that were asleep. */
	for (i = 0; i < pt->n; i++)
		if (!pt->t[i].in_syscall)
			rc = detach(pt, &pt->t[i], rc, err);
	for (i = 0; i < pt->n; i++)
		rc = detach(pt, &pt->t[i], rc, err);
	rt_leave(pt);
	rc = detach_pending(pt, rc, err);
	reap_exited(pt);
	if (pt->taskfd >= 0)
		close(pt->taskfd);
	free(pt->wbuf);
	free(pt->t);
	free(pt);
	return rc;
}

/*
 * test_ptrace.c - stopping and resuming every thread of a live process
 * (src/lib/mem/ptrace.c), against real threads of a real child process.
 *
 * The target is a fork of this test: a main thread, a thread spinning in
 * user code, one blocked in read() for good, and optionally one that calls vfork() whose
 * child sleeps, which leaves the calling thread in uninterruptible sleep
 * (state D: wait_for_vfork_done waits TASK_KILLABLE, which no ptrace
 * interrupt wakes) for as long as the child lives.  The kernel's own
 * /proc/PID/task/TID/stat is the truth for "stopped": "t" is a tracing
 * stop, and TracerPid says whether anyone is still attached.
 *
 *   - a stop reaches every thread (all "t"), gives each a stack whose
 *     first PC is non-zero, the spinner's agreeing with libunwind-ptrace's
 *     own unwind of it, and the resume leaves none stopped or traced,
 *     with the spinner still counting;
 *   - a thread already in D: the stop refuses at once, stopping nothing;
 *   - a thread that enters D after being listed (the test hook
 *     GOHEAP_TEST_SEIZE_DELAY_MS holds the stop between seizing and
 *     interrupting): the stop gives up after its 100 ms deadline, resumes
 *     the others then (the parked thread, stopped with it, is seen in
 *     "t" only until then, not for the whole vfork), detaches the sleeper
 *     as soon as its vfork ends, and no thread is left traced;
 *   - the target killed while stopped (SIGKILL wakes its threads from
 *     their stops: they exit under us): the resume collects their exits,
 *     so that the process can be reaped by its parent at once (a traced
 *     thread's exit is reported to its tracer; uncollected, the process
 *     stayed a zombie for as long as the tracer lived: go-heap watch held
 *     a `go` process so, its parent's wait hung).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libunwind-ptrace.h>

#include "ptrace.h"

/* Shared between this test and its target (MAP_SHARED anonymous). */
typedef struct shared {
	volatile unsigned long spins;   /* the spinner's progress */
	volatile pid_t parked_tid;      /* blocked in read() for good */
	volatile int vfork_after_ms;    /* -1: no vfork thread */
	volatile int vfork_child_ms;    /* how long the vfork child lives */
	volatile int vfork_started;
	volatile int vfork_returned;
	volatile int ready;
	volatile pid_t spinner_tid;
} shared;

static shared *sh;
/* The running target, killed by the teardown even when a test failed. */
static pid_t target_pid;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Built with frame pointers (Makefile.am), like Go code on amd64. */
static void *spinner(void *arg)
{
	(void)arg;
	sh->spinner_tid = (pid_t)syscall(SYS_gettid);
	for (;;)
		sh->spins++;
	return NULL;
}

/* Asleep for good (state S), so stopped with the first group. */
static void *parked(void *arg)
{
	int p[2];
	char c;

	(void)arg;
	sh->parked_tid = (pid_t)syscall(SYS_gettid);
	if (pipe(p) == 0)
		for (;;)
			if (read(p[0], &c, 1) < 0 && errno != EINTR)
				break;
	return NULL;
}

static void *vforker(void *arg)
{
	struct timespec ts;
	pid_t p;

	(void)arg;
	sleep_ms(sh->vfork_after_ms);
	ts.tv_sec = sh->vfork_child_ms / 1000;
	ts.tv_nsec = (sh->vfork_child_ms % 1000) * 1000000L;
	sh->vfork_started = 1;
	p = vfork();
	if (p == 0) {
		/* The vfork child: raw system calls only, then _exit. */
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
	sh->vfork_returned = 1;
	for (;;)
		sleep_ms(1000);
	return NULL;
}

/* The target: 3 threads (4 with the vforker), then wait to be killed. */
static pid_t start_target(int vfork_after_ms, int vfork_child_ms)
{
	pthread_t t;
	pid_t pid;
	int i;

	memset((void *)sh, 0, sizeof(*sh));
	sh->vfork_after_ms = vfork_after_ms;
	sh->vfork_child_ms = vfork_child_ms;
	pid = fork();
	if (pid == 0) {
		/* Never outlive the test, even if it crashes. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		pthread_create(&t, NULL, spinner, NULL);
		pthread_create(&t, NULL, parked, NULL);
		if (vfork_after_ms >= 0)
			pthread_create(&t, NULL, vforker, NULL);
		sh->ready = 1;
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	target_pid = pid;
	for (i = 0; i < 2000 && !sh->ready; i++)
		sleep_ms(1);
	assert_true(sh->ready);
	sleep_ms(20);
	return pid;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	target_pid = 0;
}

static int teardown(void **state)
{
	(void)state;
	if (target_pid > 0)
		stop_target(target_pid);
	return 0;
}

/* The state letters of every thread of pid ("ttt"), and how many are traced. */
static void states(pid_t pid, char *out, size_t len, int *traced)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	size_t k = 0;
	FILE *f;
	DIR *d;

	*traced = 0;
	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL && k + 2 < len) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			 de->d_name);
		f = fopen(path, "re");
		if (f == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL) {
			out[k++] = p[2];
			out[k] = '\0';
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid,
			 de->d_name);
		f = fopen(path, "re");
		if (f == NULL)
			continue;
		while (fgets(buf, sizeof(buf), f) != NULL)
			if (strncmp(buf, "TracerPid:", 10) == 0 &&
			    atoi(buf + 10) != 0)
				(*traced)++;
		fclose(f);
	}
	closedir(d);
}

/*
 * Watches the parked thread's state in /proc while `watching`: when it was
 * first and last seen in a tracing stop ("t"), in now_ms() time.
 */
static volatile int watching;
static volatile double first_t, last_t;

static void *stop_watch(void *arg)
{
	char path[64], buf[512], *p;
	FILE *f;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", target_pid,
		 sh->parked_tid);
	while (watching) {
		f = fopen(path, "re");
		if (f != NULL) {
			if (fgets(buf, sizeof(buf), f) != NULL &&
			    (p = strrchr(buf, ')')) != NULL && p[2] == 't') {
				if (first_t == 0)
					first_t = now_ms();
				last_t = now_ms();
			}
			fclose(f);
		}
		sleep_ms(1);
	}
	return NULL;
}

typedef struct stacks_seen {
	int nonzero;                 /* threads whose first PC is not 0 */
	uint64_t spin[8];            /* the spinner's stack */
	size_t nspin;
} stacks_seen;

static int count_cb(int tid, const uint64_t *pcs, size_t n, void *payload)
{
	stacks_seen *k = payload;

	if (n >= 1 && pcs[0] != 0)
		k->nonzero++;
	if (tid == sh->spinner_tid) {
		k->nspin = n < 8 ? n : 8;
		memcpy(k->spin, pcs, k->nspin * sizeof(pcs[0]));
	}
	return 0;
}

/*
 * The reference: libunwind-ptrace's own unwind (CFI, _UPT accessors) of
 * a stopped thread, at most max frames.
 */
static size_t libunwind_stack(pid_t tid, uint64_t *out, size_t max)
{
	unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
	void *ui = _UPT_create(tid);
	unw_cursor_t c;
	unw_word_t ip;
	size_t n = 0;

	assert_non_null(as);
	assert_non_null(ui);
	if (unw_init_remote(&c, as, ui) == 0) {
		do {
			if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0)
				break;
			out[n++] = ip;
		} while (n < max && unw_step(&c) > 0);
	}
	_UPT_destroy(ui);
	unw_destroy_addr_space(as);
	return n;
}

static void test_stop_and_resume(void **state)
{
	char st[64];
	gh_ptrace *pt = NULL;
	stacks_seen seen;
	uint64_t ref[8];
	size_t nref;
	gh_err err;
	unsigned long before;
	int traced;
	pid_t pid;

	(void)state;
	pid = start_target(-1, 0);
	memset(&err, 0, sizeof(err));
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), 0);
	assert_int_equal(gh_ptrace_nthreads(pt), 3);
	states(pid, st, sizeof(st), &traced);
	assert_string_equal(st, "ttt");
	assert_int_equal(traced, 3);
	before = sh->spins;
	sleep_ms(20);
	assert_true(sh->spins == before);       /* really stopped */
	assert_int_equal(gh_ptrace_thread_stacks(pt, NULL, count_cb, &seen, &err),
			 0);
	assert_int_equal(seen.nonzero, 3);
	/*
	 * The spinner's frame-pointer stack agrees with libunwind-ptrace's:
	 * the same PC, and its caller (start_thread) among the next two
	 * (the first may be the candidate at SP).
	 */
	nref = libunwind_stack(sh->spinner_tid, ref, 8);
	assert_true(nref >= 2);
	assert_true(seen.nspin >= 2);
	assert_true(seen.spin[0] == ref[0]);
	assert_true(seen.spin[1] == ref[1] ||
		    (seen.nspin > 2 && seen.spin[2] == ref[1]));
	assert_int_equal(gh_ptrace_resume(pt, &err), 0);
	sleep_ms(20);
	states(pid, st, sizeof(st), &traced);
	assert_null(strchr(st, 't'));
	assert_int_equal(traced, 0);
	assert_true(sh->spins != before);       /* running again */
	stop_target(pid);
}

static void test_killed_while_stopped(void **state)
{
	gh_ptrace *pt = NULL;
	gh_err err;
	pid_t pid, r = 0;
	int i, st, rc;

	(void)state;
	pid = start_target(-1, 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), 0);
	assert_int_equal(gh_ptrace_nthreads(pt), 3);
	kill(pid, SIGKILL);
	sleep_ms(50);
	rc = gh_ptrace_resume(pt, &err);
	/* the parent (this test: also the tracer, so the resume's collection
	 * of the leader may have reaped it already: ECHILD) reaps it now */
	for (i = 0; i < 200; i++) {
		r = waitpid(pid, &st, WNOHANG);
		if (r != 0)
			break;
		sleep_ms(10);
	}
	if (r == 0) {
		/* left traced zombies: collect them ourselves, then fail */
		while (waitpid(-1, &st, __WALL | WNOHANG) > 0)
			;
		waitpid(pid, &st, 0);
	}
	target_pid = 0;
	if (rc != 0 || r == 0)
		fprintf(stderr, "resume %d (%s), parent's wait %d\n", rc,
			err.msg, (int)r);
	assert_int_equal(rc, 0);
	assert_true(r == pid || (r < 0 && errno == ECHILD));
}

static void test_already_in_d(void **state)
{
	char st[64];
	gh_ptrace *pt = NULL;
	gh_err err;
	double t0;
	int traced;
	pid_t pid;

	(void)state;
	pid = start_target(0, 2000);
	while (!sh->vfork_started)
		sleep_ms(1);
	sleep_ms(50);
	states(pid, st, sizeof(st), &traced);
	assert_non_null(strchr(st, 'D'));
	memset(&err, 0, sizeof(err));
	t0 = now_ms();
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), GOHEAP_EBUSY);
	assert_null(pt);
	assert_true(now_ms() - t0 < 50);
	assert_non_null(strstr(err.msg, "uninterruptible sleep"));
	assert_non_null(strstr(err.msg, "nothing was stopped"));
	states(pid, st, sizeof(st), &traced);
	assert_null(strchr(st, 't'));
	assert_int_equal(traced, 0);
	stop_target(pid);
}

static void test_enters_d_during_stop(void **state)
{
	char st[64];
	gh_ptrace *pt = NULL;
	gh_err err;
	unsigned long before;
	double t0, dt;
	pthread_t w;
	int traced, i;
	pid_t pid;

	(void)state;
	/* Listed at ~20 ms (asleep), in vfork from ~120 ms to ~1120 ms. */
	pid = start_target(100, 1000);
	setenv("GOHEAP_TEST_SEIZE_DELAY_MS", "250", 1);
	memset(&err, 0, sizeof(err));
	first_t = last_t = 0;
	watching = 1;
	assert_int_equal(pthread_create(&w, NULL, stop_watch, NULL), 0);
	t0 = now_ms();
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), GOHEAP_EBUSY);
	dt = now_ms() - t0;
	watching = 0;
	pthread_join(w, NULL);
	unsetenv("GOHEAP_TEST_SEIZE_DELAY_MS");
	assert_null(pt);
	print_message("stop gave up after %.0f ms; the parked thread was "
		      "stopped from %.0f to %.0f ms: %s\n", dt, first_t - t0,
		      last_t - t0, err.msg);
	/*
	 * The parked thread was stopped (with the first group, as the
	 * vforker), and resumed at the deadline, not when the vfork ended.
	 */
	assert_true(first_t != 0);
	assert_true(last_t - t0 < 500);
	assert_non_null(strstr(err.msg, "did not stop within 100 ms"));
	assert_non_null(strstr(err.msg, "uninterruptible sleep"));
	/* It returned only once it could detach the sleeper as well. */
	assert_true(sh->vfork_returned || dt >= 1000);
	sleep_ms(20);
	states(pid, st, sizeof(st), &traced);
	assert_null(strchr(st, 't'));
	assert_int_equal(traced, 0);
	/* running again: its spin counter moves (within 2 s: a loaded
	 * machine may not schedule it within the first 20 ms) */
	before = sh->spins;
	for (i = 0; i < 100 && sh->spins == before; i++)
		sleep_ms(20);
	assert_true(sh->spins != before);
	stop_target(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stop_and_resume, teardown),
		cmocka_unit_test_teardown(test_killed_while_stopped, teardown),
		cmocka_unit_test_teardown(test_already_in_d, teardown),
		cmocka_unit_test_teardown(test_enters_d_during_stop, teardown),
	};

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

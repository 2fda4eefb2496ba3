/*
 * test_ptrace.c - stopping and resuming every thread of a live process
 * (src/ptrace.c), against real threads of a real child process.
 *
 * The target is a fork of this test: a main thread, a thread spinning in
 * user code, one ticking once per ms (asleep nearly always), and optionally one that calls vfork() whose
 * child sleeps, which leaves the calling thread in uninterruptible sleep
 * (state D: wait_for_vfork_done waits TASK_KILLABLE, which no ptrace
 * interrupt wakes) for as long as the child lives.  The kernel's own
 * /proc/PID/task/TID/stat is the truth for "stopped": "t" is a tracing
 * stop, and TracerPid says whether anyone is still attached.
 *
 *   - a stop reaches every thread (all "t"), gives each a stack whose
 *     first PC is non-zero, and the resume leaves none stopped or traced,
 *     with the spinner still counting;
 *   - a thread already in D: the stop refuses at once, stopping nothing;
 *   - a thread that enters D after being listed (the test hook
 *     GOHEAP_TEST_SEIZE_DELAY_MS holds the stop between seizing and
 *     interrupting): the stop gives up after its 100 ms deadline, resumes
 *     the others then (the ticker, stopped with it, stood still for about
 *     100 ms, not for the whole vfork), detaches the sleeper as soon as
 *     its vfork ends, and no thread is left traced.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ptrace.h"

/* Shared between this test and its target (MAP_SHARED anonymous). */
typedef struct shared {
	volatile unsigned long spins;   /* the spinner's progress */
	volatile unsigned long ticks;   /* the ticker's: +1 per ms asleep */
	volatile int vfork_after_ms;    /* -1: no vfork thread */
	volatile int vfork_child_ms;    /* how long the vfork child lives */
	volatile int vfork_started;
	volatile int vfork_returned;
	volatile int ready;
} shared;

static shared *sh;

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

static void *spinner(void *arg)
{
	(void)arg;
	for (;;)
		sh->spins++;
	return NULL;
}

/* Asleep nearly all the time, so stopped with the first group. */
static void *ticker(void *arg)
{
	(void)arg;
	for (;;) {
		sleep_ms(1);
		sh->ticks++;
	}
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
		pthread_create(&t, NULL, spinner, NULL);
		pthread_create(&t, NULL, ticker, NULL);
		if (vfork_after_ms >= 0)
			pthread_create(&t, NULL, vforker, NULL);
		sh->ready = 1;
		for (;;)
			pause();
	}
	assert_true(pid > 0);
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
 * Watches sh->ticks from this process: the longest time (ms) it stood
 * still while `watching`, i.e. how long the target's ticker was stopped.
 */
static volatile int watching;
static volatile double longest_stall;

static void *stall_watch(void *arg)
{
	unsigned long last = sh->ticks;
	double since = now_ms(), t;

	(void)arg;
	while (watching) {
		sleep_ms(1);
		t = now_ms();
		if (sh->ticks != last) {
			last = sh->ticks;
			since = t;
		} else if (t - since > longest_stall) {
			longest_stall = t - since;
		}
	}
	return NULL;
}

static int count_cb(int tid, const uint64_t *pcs, size_t n, void *payload)
{
	int *k = payload;

	(void)tid;
	if (n >= 1 && pcs[0] != 0)
		(*k)++;
	return 0;
}

static void test_stop_and_resume(void **state)
{
	char st[64];
	gh_ptrace *pt = NULL;
	gh_err err;
	unsigned long before;
	int traced, stacks = 0;
	pid_t pid;

	(void)state;
	pid = start_target(-1, 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), 0);
	assert_int_equal(gh_ptrace_nthreads(pt), 3);
	states(pid, st, sizeof(st), &traced);
	assert_string_equal(st, "ttt");
	assert_int_equal(traced, 3);
	before = sh->spins;
	sleep_ms(20);
	assert_true(sh->spins == before);       /* really stopped */
	assert_int_equal(gh_ptrace_thread_stacks(pt, count_cb, &stacks, &err),
			 0);
	assert_int_equal(stacks, 3);
	assert_int_equal(gh_ptrace_resume(pt, &err), 0);
	sleep_ms(20);
	states(pid, st, sizeof(st), &traced);
	assert_null(strchr(st, 't'));
	assert_int_equal(traced, 0);
	assert_true(sh->spins != before);       /* running again */
	stop_target(pid);
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
	int traced;
	pid_t pid;

	(void)state;
	/* Listed at ~20 ms (asleep), in vfork from ~120 ms to ~1120 ms. */
	pid = start_target(100, 1000);
	setenv("GOHEAP_TEST_SEIZE_DELAY_MS", "250", 1);
	memset(&err, 0, sizeof(err));
	longest_stall = 0;
	watching = 1;
	assert_int_equal(pthread_create(&w, NULL, stall_watch, NULL), 0);
	t0 = now_ms();
	assert_int_equal(gh_ptrace_stop(&pt, pid, &err), GOHEAP_EBUSY);
	dt = now_ms() - t0;
	watching = 0;
	pthread_join(w, NULL);
	unsetenv("GOHEAP_TEST_SEIZE_DELAY_MS");
	assert_null(pt);
	print_message("stop gave up after %.0f ms, the ticker stood still "
		      "for at most %.0f ms: %s\n", dt, longest_stall, err.msg);
	/*
	 * The ticker was stopped (with the first group, as the vforker),
	 * and resumed at the deadline, not when the vfork ended.
	 */
	assert_true(longest_stall >= 50);
	assert_true(longest_stall < 500);
	assert_non_null(strstr(err.msg, "did not stop within 100 ms"));
	assert_non_null(strstr(err.msg, "uninterruptible sleep"));
	/* It returned only once it could detach the sleeper as well. */
	assert_true(sh->vfork_returned || dt >= 1000);
	sleep_ms(20);
	states(pid, st, sizeof(st), &traced);
	assert_null(strchr(st, 't'));
	assert_int_equal(traced, 0);
	before = sh->spins;
	sleep_ms(20);
	assert_true(sh->spins != before);
	stop_target(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_and_resume),
		cmocka_unit_test(test_already_in_d),
		cmocka_unit_test(test_enters_d_during_stop),
	};

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

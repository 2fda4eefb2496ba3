/*
 * readfloor.c - the floor of go-heap's read step (issue 2's benchmark).
 *
 *   bench/readfloor [-r RUNS] PID
 *
 * Walks PID's runtime.mbuckets once with the library, only to learn where
 * the buckets are ([bucket, end of its memRecord), as walk.c reads them),
 * then times reading exactly those bytes once more with process_vm_readv,
 * IOV_MAX remote iovecs a call, into one buffer faulted in beforehand, so
 * that only the kernel's work (pinning the target's pages, copying) is
 * timed.  Two layouts, RUNS timed passes each after one untimed pass:
 *
 *   floor: the ranges sorted and those that touch merged (buckets come
 *          back to back from persistentalloc chunks): the same bytes in
 *          the fewest iovecs.  This is the floor go-heap is compared with.
 *   exact: one iovec per bucket.  Much slower: the kernel pins the pages
 *          of every iovec separately, which is why go-heap reads 64 KiB
 *          blocks instead.
 *
 * No reader that knows nothing more can fetch the bucket bytes with less
 * work; go-heap does not even know where the next bucket is until it has
 * read the previous one.  Prints one line for bench/run-bench.sh:
 *
 *   floor_ms MED MIN MAX buckets N bytes B runs R calls C
 *       exact_ms MED MIN MAX calls C
 *
 * With -g, the floor of the goroutine snapshot's stop instead: the g
 * headers of every runtime.allgs slot (the bytes the stop re-reads: its
 * fingerprint's span of each g), sorted and merged into runs as
 * gorsnap.c's plan does (g's this close: one range, at most 64 KiB), read
 * as the stop reads them (calls of ~256 KiB into one reused buffer) by one
 * thread, then by two threads each taking half of the bytes (the stop's
 * second reader):
 *
 *   gfloor_ms MED MIN MAX gs N bytes B runs R calls C
 *       two_ms MED MIN MAX
 *
 * Not a test and not installed: built on demand (make bench/readfloor).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "goheap.h"
#include <pthread.h>

#include "goroutine_int.h"
#include "profile.h"
#include "session.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define MAX_RUNS 99

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_iov(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct iovec *)a)->iov_base;
	uintptr_t y = (uintptr_t)((const struct iovec *)b)->iov_base;

	return (x > y) - (x < y);
}

/*
 * Sort the ranges and merge those that touch: the same bytes in fewer
 * iovecs.  Returns the new count.
 */
static size_t coalesce(struct iovec *v, size_t n)
{
	size_t i, out = 0;
	uintptr_t end;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_iov);
	for (i = 1; i < n; i++) {
		end = (uintptr_t)v[out].iov_base + v[out].iov_len;
		if ((uintptr_t)v[i].iov_base == end)
			v[out].iov_len += v[i].iov_len;
		else
			v[++out] = v[i];
	}
	return out + 1;
}

/* One timed pass: every range once, IOV_MAX per call; 0 or -1 (errno). */
static int read_once(int pid, const struct iovec *remote, size_t n,
		     unsigned char *buf, size_t *calls)
{
	struct iovec local;
	size_t i = 0, j, k, want;
	ssize_t got;

	*calls = 0;
	while (i < n) {
		k = n - i < IOV_MAX ? n - i : IOV_MAX;
		want = 0;
		for (j = 0; j < k; j++)
			want += remote[i + j].iov_len;
		local.iov_base = buf;
		local.iov_len = want;
		got = process_vm_readv(pid, &local, 1, remote + i,
				       (unsigned long)k, 0);
		(*calls)++;
		if (got < 0 || (size_t)got != want) {
			if (got >= 0)
				errno = EFAULT;
			return -1;
		}
		buf += want;
		i += k;
	}
	return 0;
}

/* -g: one reader's half of the runs (a thread) */
typedef struct half {
	int pid;
	const struct iovec *remote;
	size_t n;
	unsigned char *buf;
	size_t calls;
	int rc;
} half;

#define G_BATCH (256u << 10)  /* as gorsnap.c: bytes per call, buffer reused */

/* the runs in calls of about G_BATCH bytes into one reused buffer of
 * G_BATCH + 64 KiB (the stop's way: the compare reads it cache-warm) */
static int read_batched(int pid, const struct iovec *remote, size_t n,
			unsigned char *buf, size_t *calls)
{
	size_t i = 0, j, bytes, c;

	*calls = 0;
	while (i < n) {
		for (j = i, bytes = 0; j < n && j - i < IOV_MAX &&
		     (j == i || bytes + remote[j].iov_len <= G_BATCH); j++)
			bytes += remote[j].iov_len;
		if (read_once(pid, remote + i, j - i, buf, &c) != 0)
			return -1;
		*calls += c;
		i = j;
	}
	return 0;
}

static void *half_run(void *arg)
{
	half *h = arg;

	h->rc = read_batched(h->pid, h->remote, h->n, h->buf, &h->calls);
	return NULL;
}

/* -g: the runs read by two threads (the second from run k on); 0 or -1 */
static int read_two(int pid, const struct iovec *remote, size_t n, size_t k,
		    unsigned char *buf, size_t off)
{
	half h[2] = { { pid, remote, k, buf, 0, 0 },
		      { pid, remote + k, n - k, buf + off, 0, 0 } };
	pthread_t t;

	if (pthread_create(&t, NULL, half_run, &h[1]) != 0)
		return -1;
	half_run(&h[0]);
	pthread_join(t, NULL);
	return h[0].rc == 0 && h[1].rc == 0 ? 0 : -1;
}

/* Median, min and max of the runs of one layout; 0 or -1 (errno). */
static int time_runs(int pid, const struct iovec *remote, size_t n,
		     unsigned char *buf, int runs, double *out, size_t *calls)
{
	double t[MAX_RUNS], t0;
	int r;

	/* One untimed pass: also checks that every range is readable. */
	if (read_once(pid, remote, n, buf, calls) != 0)
		return -1;
	for (r = 0; r < runs; r++) {
		t0 = now_ms();
		if (read_once(pid, remote, n, buf, calls) != 0)
			return -1;
		t[r] = now_ms() - t0;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	out[0] = t[runs / 2];
	out[1] = t[0];
	out[2] = t[runs - 1];
	return 0;
}

#define G_RUN_GAP 1024u      /* as gorsnap.c */
#define G_RUN_MAX 65536u

/* -g: the g headers' floor (see the top of the file) */
static int g_floor(goheap_session *s, int pid, int runs)
{
	unsigned span = gor_g_span(s->t.lay);
	uint64_t arr, len, cap, i, gp;
	struct iovec *v = NULL;
	unsigned char *buf = NULL;
	double one[3], two[3], t[MAX_RUNS], t0;
	size_t n = 0, k, total = 0, half_bytes = 0, calls = 0, off = 0;
	uintptr_t end = 0;
	int r, status = 1;

	if (gh_mem_read_ptr(&s->t.mem, s->t.addrs.allgs, &arr, "allgs") != 0 ||
	    gh_mem_read_ptr(&s->t.mem, s->t.addrs.allgs + 8, &len, "allgs") != 0 ||
	    gh_mem_read_ptr(&s->t.mem, s->t.addrs.allgs + 16, &cap, "allgs") != 0 ||
	    len > cap || len > GH_GOR_MAX_GS) {
		fprintf(stderr, "readfloor: runtime.allgs unreadable\n");
		return 1;
	}
	v = calloc(len ? len : 1, sizeof(*v));
	if (v == NULL)
		goto nomem;
	for (i = 0; i < len; i++) {
		if (gh_mem_read_ptr(&s->t.mem, arr + 8 * i, &gp, "allgs") != 0)
			goto readerr;
		v[i].iov_base = (void *)(uintptr_t)gp;
		v[i].iov_len = span;
	}
	qsort(v, len, sizeof(*v), cmp_iov);
	for (i = 0; i < len; i++) {
		uintptr_t a = (uintptr_t)v[i].iov_base;

		if (n > 0 && a <= end + G_RUN_GAP &&
		    a + span - (uintptr_t)v[n - 1].iov_base <= G_RUN_MAX) {
			if (a + span > end)
				end = a + span;
			v[n - 1].iov_len = end - (uintptr_t)v[n - 1].iov_base;
			continue;
		}
		v[n].iov_base = (void *)a;
		v[n].iov_len = span;
		end = a + span;
		n++;
	}
	for (k = 0; k < n; k++)
		total += v[k].iov_len;
	/* two reused batch buffers, faulted in */
	off = G_BATCH + G_RUN_MAX;
	buf = malloc(2 * off);
	if (buf == NULL)
		goto nomem;
	memset(buf, 0, 2 * off);
	if (read_batched(pid, v, n, buf, &calls) != 0)
		goto readerr;
	for (r = 0; r < runs; r++) {
		t0 = now_ms();
		if (read_batched(pid, v, n, buf, &calls) != 0)
			goto readerr;
		t[r] = now_ms() - t0;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	one[0] = t[runs / 2];
	one[1] = t[0];
	one[2] = t[runs - 1];
	for (k = 0; k < n && half_bytes < total / 2; k++)
		half_bytes += v[k].iov_len;
	if (read_two(pid, v, n, k, buf, off) != 0)
		goto readerr;
	for (r = 0; r < runs; r++) {
		t0 = now_ms();
		if (read_two(pid, v, n, k, buf, off) != 0)
			goto readerr;
		t[r] = now_ms() - t0;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	two[0] = t[runs / 2];
	two[1] = t[0];
	two[2] = t[runs - 1];
	printf("gfloor_ms %.3f %.3f %.3f gs %llu bytes %zu runs %zu calls %zu "
	       "two_ms %.3f %.3f %.3f\n", one[0], one[1], one[2],
	       (unsigned long long)len, total, n, calls, two[0], two[1],
	       two[2]);
	status = 0;
	goto out;
nomem:
	fprintf(stderr, "readfloor: out of memory\n");
	goto out;
readerr:
	fprintf(stderr, "readfloor: reading the g headers: %s\n",
		strerror(errno));
out:
	free(v);
	free(buf);
	return status;
}

int main(int argc, char **argv)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_session *s = NULL;
	goheap_profile *p = NULL;
	struct iovec *remote = NULL;
	unsigned char *buf = NULL;
	double exact[3], merged[3];
	size_t i, n = 0, nruns, total = 0, calls = 0, mcalls = 0;
	unsigned ps, reclen, words;
	int runs = 9, pid, status = 1, gmode = 0;

	if (argc >= 2 && strcmp(argv[1], "-g") == 0) {
		gmode = 1;
		argv++;
		argc--;
	}
	if (argc == 4 && strcmp(argv[1], "-r") == 0) {
		runs = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: readfloor [-g] [-r RUNS(1-%d)] PID\n",
			MAX_RUNS);
		return 2;
	}
	pid = atoi(argv[1]);
	if (gmode) {
		if (goheap_open_pid(&s, pid, &o) != 0) {
			fprintf(stderr, "readfloor: %s\n",
				s ? goheap_errmsg(s) : "out of memory");
			goheap_close(s);
			return 1;
		}
		status = g_floor(s, pid, runs);
		goheap_close(s);
		return status;
	}

	if (goheap_open_pid(&s, pid, &o) != 0 ||
	    goheap_profile_collect(&p, s, GOHEAP_PROFILE_HEAP) != 0) {
		fprintf(stderr, "readfloor: %s\n",
			s ? goheap_errmsg(s) : "out of memory");
		goto done;
	}
	/* The walker's own account of a memory bucket: header, stack,
	 * memRecord (walk.c read_bucket). */
	ps = s->t.mem.ptr_size;
	words = s->t.lay->bucket_words;
	reclen = s->t.lay->cycle_words * ps * 4;
	n = p->nrecs;
	remote = calloc(n ? n : 1, sizeof(*remote));
	if (remote == NULL) {
		fprintf(stderr, "readfloor: out of memory\n");
		goto done;
	}
	for (i = 0; i < n; i++) {
		remote[i].iov_base = (void *)(uintptr_t)p->recs[i].bucket;
		remote[i].iov_len = (words + p->recs[i].nstk) * ps + reclen;
		total += remote[i].iov_len;
	}
	/* Fault the buffer in first: the floor is the kernel's copying.
	 * (go-heap's read includes faulting in its 1 MiB cache, once.) */
	buf = malloc(total ? total : 1);
	if (buf == NULL) {
		fprintf(stderr, "readfloor: out of memory\n");
		goto done;
	}
	memset(buf, 0, total);
	if (time_runs(pid, remote, n, buf, runs, exact, &calls) != 0)
		goto readerr;
	nruns = coalesce(remote, n);
	if (time_runs(pid, remote, nruns, buf, runs, merged, &mcalls) != 0)
		goto readerr;
	printf("floor_ms %.3f %.3f %.3f buckets %zu bytes %zu runs %zu "
	       "calls %zu exact_ms %.3f %.3f %.3f calls %zu\n",
	       merged[0], merged[1], merged[2], n, total, nruns, mcalls,
	       exact[0], exact[1], exact[2], calls);
	status = 0;
	goto done;
readerr:
	fprintf(stderr, "readfloor: process_vm_readv: %s\n", strerror(errno));
done:
	free(buf);
	free(remote);
	goheap_profile_free(p);
	goheap_close(s);
	return status;
}

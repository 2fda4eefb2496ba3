/*
 * soak.c - one long-lived go-heap session profiling a busy target over and
 * over (issue 7's soak): does the library leak, and does the target feel it?
 *
 *   bench/soak [-i MS] [-d SECONDS] PID
 *
 * Opens one session on PID with the public API, then every MS milliseconds
 * (default 100) collects the heap profile and writes it as pprof, for
 * SECONDS (default 600).  Every 10 s it prints one line: elapsed seconds,
 * profiles written, this process's RSS (VmRSS, KiB), the target's CPU
 * seconds so far (utime+stime from /proc/PID/stat) and the median time of a
 * profile in that window.  A leak shows as RSS growing across the lines.
 * Uses only include/goheap.h, as any embedding program would.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "goheap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long self_rss_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static double target_cpu(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
				"%*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_session *s = NULL;
	double interval = 0.1, duration = 600, t0, next_report, win[1000];
	unsigned long count = 0;
	size_t nwin = 0;
	int opt, pid, rc, status = 1;

	while ((opt = getopt(argc, argv, "i:d:")) != -1) {
		if (opt == 'i')
			interval = atof(optarg) / 1000.0;
		else if (opt == 'd')
			duration = atof(optarg);
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	pid = atoi(argv[optind]);
	rc = goheap_open_pid(&s, pid, NULL);
	if (rc != 0) {
		fprintf(stderr, "soak: %s\n", goheap_errmsg(s));
		goto done;
	}
	wo.format = GOHEAP_FORMAT_PPROF;
	t0 = now();
	next_report = t0 + 10;
	printf("seconds profiles rss_kib target_cpu_s median_profile_ms\n");
	while (now() - t0 < duration) {
		goheap_profile *p = NULL;
		unsigned char *buf = NULL;
		size_t len = 0;
		double t1 = now();

		rc = goheap_profile_collect(&p, s, GOHEAP_PROFILE_HEAP);
		if (rc == 0)
			rc = goheap_profile_write(s, p, &wo, &buf, &len);
		goheap_free(buf);
		goheap_profile_free(p);
		if (rc != 0) {
			fprintf(stderr, "soak: %s\n", goheap_errmsg(s));
			goto done;
		}
		count++;
		if (nwin < sizeof(win) / sizeof(win[0]))
			win[nwin++] = now() - t1;
		if (now() >= next_report) {
			qsort(win, nwin, sizeof(win[0]), cmp_double);
			printf("%.0f %lu %ld %.2f %.2f\n", now() - t0, count,
			       self_rss_kib(), target_cpu(pid),
			       nwin ? win[nwin / 2] * 1e3 : 0.0);
			fflush(stdout);
			nwin = 0;
			next_report += 10;
		}
		t1 = interval - (now() - t1);
		if (t1 > 0) {
			struct timespec ts = { (time_t)t1,
					       (long)((t1 - (double)(time_t)t1) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
	status = 0;
done:
	goheap_close(s);
	return status;
}

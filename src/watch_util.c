/*
 * watch_util.c - helpers shared by the `go-heap watch` modules.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "watch_util.h"

static void sb_grow(sbuf *b, size_t need)
{
	size_t nc;
	char *np;

	if (b->oom || b->len + need + 1 <= b->cap)
		return;
	nc = b->cap ? b->cap : 4096;
	while (nc < b->len + need + 1)
		nc *= 2;
	np = realloc(b->p, nc);
	if (np == NULL) {
		b->oom = 1;
		return;
	}
	b->p = np;
	b->cap = nc;
}

void sb_add(sbuf *b, const void *s, size_t n)
{
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sb_str(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

long rss_bytes(void)
{
	char buf[256];
	long pages = 0, rss = 0;

	if (read_small("/proc/self/statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%ld %ld", &pages, &rss) != 2)
		return 0;
	return rss * sysconf(_SC_PAGESIZE);
}

int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

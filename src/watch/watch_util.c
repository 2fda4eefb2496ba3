/*
 * watch_util.c - helpers shared by the `go-heap watch` modules.
 */
#include "config.h"

#include <ctype.h>
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

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;          /* continuation, overlong 2-byte, > U+10FFFF */
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;         /* overlong 3-byte */
	else if (c == 0xed)
		hi = 0x9f;         /* surrogates */
	else if (c == 0xf0)
		lo = 0x90;         /* overlong 4-byte */
	else if (c == 0xf4)
		hi = 0x8f;         /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static const char replacement[] = "\xef\xbf\xbd";  /* U+FFFD */

void sb_utf8(sbuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, l;
	int bad = 0;

	while (i < n) {
		l = utf8_seq_len(u + i, n - i);
		if (l == 0) {
			if (!bad) {
				sb_add(b, s + start, i - start);
				sb_add(b, replacement, 3);
				bad = 1;
			}
			i++;
			start = i;
			continue;
		}
		bad = 0;
		i += l;
	}
	sb_add(b, s + start, n - start);
}

void utf8_sanitize(char *dst, size_t dstlen, const char *src, size_t n)
{
	const unsigned char *u = (const unsigned char *)src;
	size_t i = 0, o = 0, l;
	int bad = 0;

	while (i < n) {
		l = utf8_seq_len(u + i, n - i);
		if (l == 0) {
			if (!bad) {
				if (o + 3 >= dstlen)
					break;
				memcpy(dst + o, replacement, 3);
				o += 3;
				bad = 1;
			}
			i++;
			continue;
		}
		if (o + l >= dstlen)
			break;
		memcpy(dst + o, src + i, l);
		o += l;
		i += l;
		bad = 0;
	}
	dst[o] = '\0';
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

	/* strtol skips leading white space; Go's strconv.ParseInt (what
	 * net/http/pprof parses ?seconds= with) does not */
	if (s[0] == '\0' || isspace((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

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

#include "utf8.h"
#include "watch_util.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	return gh_utf8_decode(s, n, NULL);   /* src/util/utf8.c */
}

static const char replacement[] = "\xef\xbf\xbd";  /* U+FFFD */

void sb_utf8(gh_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, l;
	int bad = 0;

	while (i < n) {
		l = utf8_seq_len(u + i, n - i);
		if (l == 0) {
			if (!bad) {
				gh_buf_append(b, s + start, i - start);
				gh_buf_append(b, replacement, 3);
				bad = 1;
			}
			i++;
			start = i;
			continue;
		}
		bad = 0;
		i += l;
	}
	gh_buf_append(b, s + start, n - start);
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

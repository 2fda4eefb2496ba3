/*
 * watch_util.h - small helpers shared by the `go-heap watch` modules
 * (doc/watch.md): labels as valid UTF-8, process clocks, /proc reads,
 * option values (the buffer and the monotonic clock are src/util's).
 */
#ifndef GH_WATCH_UTIL_H
#define GH_WATCH_UTIL_H

#include <stddef.h>

#include "gh.h"     /* gh_buf, gh_now, GH_ARRAY_LEN: src/util's */

/*
 * Append the n bytes at s as valid UTF-8: each maximal run of bytes that
 * is not valid UTF-8 becomes one U+FFFD, as Go's strings.ToValidUTF8(s,
 * "\uFFFD") does (so Prometheus' parser, which rejects an invalid label
 * value and with it the whole scrape, always accepts the result).
 */
void sb_utf8(gh_buf *b, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s[0..n) (1-4), or 0 if the bytes
 * there do not start one (Go's rules: no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
size_t utf8_seq_len(const unsigned char *s, size_t n);
/* Copy src into dst (dstlen > 0) as valid UTF-8 (sb_utf8's rule),
 * NUL-terminated, never cutting a character: a label read from /proc. */
void utf8_sanitize(char *dst, size_t dstlen, const char *src, size_t n);
/* User + system CPU time of this process, in seconds. */
double cpu_seconds(void);
/* Resident set size of this process (/proc/self/statm), 0 if unknown. */
long rss_bytes(void);
/* Read at most len - 1 bytes of a small file, NUL-terminated: the byte
 * count, or -1. */
int read_small(const char *path, char *buf, size_t len);
/* A decimal integer in [lo, hi], the whole string: 0, or -1. */
int parse_long(const char *s, long lo, long hi, long *out);

#endif

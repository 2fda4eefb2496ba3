/*
 * watch_util.h - small helpers shared by the `go-heap watch` modules
 * (doc/watch.md): a growable string buffer, clocks, /proc reads.
 */
#ifndef GH_WATCH_UTIL_H
#define GH_WATCH_UTIL_H

#include <stddef.h>

#define WATCH_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A growable NUL-terminated buffer; `oom` once an allocation failed (the
 * contents are then incomplete and the buffer stops growing). */
typedef struct sbuf {
	char *p;
	size_t len, cap;
	int oom;
} sbuf;

#define SBUF_INIT { NULL, 0, 0, 0 }

void sb_add(sbuf *b, const void *s, size_t n);
void sb_str(sbuf *b, const char *s);
#ifdef __GNUC__
void sb_printf(sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#else
void sb_printf(sbuf *b, const char *fmt, ...);
#endif

/* CLOCK_MONOTONIC, in seconds. */
double now_mono(void);
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

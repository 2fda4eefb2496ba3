/*
 * gh.h - internal definitions shared by every module of libgoheap.
 *
 * Small, dependency-free helpers: the error context each session carries,
 * a growable byte buffer, Go version numbers, and byte-order helpers.
 * Nothing here is exported from the shared library (-fvisibility=hidden);
 * only goheap_* functions declared in include/goheap.h are.
 */
#ifndef GH_H
#define GH_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "goheap.h"

#define GH_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * An output structure the caller allocates starts with its size
 * (goheap.h).  The library takes any size from the structure's first
 * release's on, and never writes past the caller's size nor into fields
 * it does not know:
 *   GH_OUT_OK: out holds at least its first release's fields (sizeof, for
 *     a structure that never grew);
 *   GH_OUT_OK_BEFORE: the same for one that grew since: `added` names its
 *     first field added later, where the first release's size ended;
 *   GH_OUT_HAS: out's caller knows `field` (a later one): the library may
 *     write it;
 *   GH_OUT_CLEAR: zeroes what both the caller and the library know, and
 *     keeps the size;
 *   GH_OUT_COPY: copies a whole result src (of out's type) into out, as
 *     far as both know, out's size kept.
 * The size is the first field of each.
 */
#define GH_OUT_OFFSET(out, field)                                     \
	((size_t)((const char *)&(out)->field - (const char *)(out)))
#define GH_OUT_OK(out) ((out) != NULL && (out)->size >= sizeof(*(out)))
#define GH_OUT_OK_BEFORE(out, added)                                   \
	((out) != NULL && (out)->size >= GH_OUT_OFFSET(out, added))
#define GH_OUT_HAS(out, field)                                        \
	((out)->size >= GH_OUT_OFFSET(out, field) + sizeof((out)->field))
#define GH_OUT_KNOWN(out)                                             \
	((out)->size < sizeof(*(out)) ? (out)->size : sizeof(*(out)))
#define GH_OUT_CLEAR(out)                                            \
	do {                                                         \
		size_t gh_size_ = (out)->size;                       \
		memset((out), 0, GH_OUT_KNOWN(out));                 \
		(out)->size = gh_size_;                              \
	} while (0)
#define GH_OUT_COPY(out, src)                                        \
	do {                                                         \
		size_t gh_skip_ = sizeof((out)->size);               \
		memcpy((char *)(out) + gh_skip_,                     \
		       (const char *)(src) + gh_skip_,               \
		       GH_OUT_KNOWN(out) - gh_skip_);                \
	} while (0)

/* ---- errors ---------------------------------------------------------- */

/*
 * The detailed message of the last error.  Embedded in the session; modules
 * receive a pointer so that they can explain what they were doing.  Not
 * thread safe (one session, one thread), never global.
 */
typedef struct gh_err {
	int code;
	char msg[512];
} gh_err;

/*
 * Record `code` with a printf-style message and return `code`, so that a
 * failure reads `return gh_errf(err, GOHEAP_EIO, "reading %s", what);`.
 * err may be NULL (the message is dropped).
 */
int gh_errf(gh_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with more context: "walking buckets: <msg>". */
int gh_err_prefix(gh_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- allocation ------------------------------------------------------ */

/* calloc/realloc with overflow checks; NULL on failure (never aborts). */
void *gh_calloc(size_t n, size_t size);
void *gh_reallocarray(void *p, size_t n, size_t size);

/*
 * Make room for `need` elements of elsize bytes in the array *pp of
 * capacity *cap (doubling, from 16); 0 or GOHEAP_ENOMEM (*pp kept).
 * Inline when there is room already: the encoder asks once per PC.
 */
int gh_grow_slow(void *pp, size_t *cap, size_t need, size_t elsize);

static inline int gh_grow(void *pp, size_t *cap, size_t need, size_t elsize)
{
	return need <= *cap ? 0 : gh_grow_slow(pp, cap, need, elsize);
}
char *gh_strdup(const char *s);

/* Large arrays read at random (-p retained's graph): transparent huge
 * pages asked for the 2 MiB-aligned inside of p's n bytes when n is at
 * least GH_HUGE_MIN (gh_grow does it as it grows); gh_malloc_huge is
 * malloc and that. */
#define GH_HUGE_MIN ((size_t)8 << 20)
void gh_huge(void *p, size_t n);
void *gh_malloc_huge(size_t n);

/* ---- growable byte buffer -------------------------------------------- */

typedef struct gh_buf {
	unsigned char *data;
	size_t len, cap;
	int oom;              /* sticky: an append failed */
} gh_buf;

#define GH_BUF_INIT { NULL, 0, 0, 0 }

/* Appends never fail loudly: they set b->oom, checked once at the end.
 * The room-to-spare case inline (writers append a few bytes at a time:
 * the call was a tenth of a traceback's instructions); the rest in gh.c. */
void gh_buf_append_slow(gh_buf *b, const void *p, size_t n);

static inline void gh_buf_append(gh_buf *b, const void *p, size_t n)
{
	if (!b->oom && n != 0 && n <= b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		return;
	}
	gh_buf_append_slow(b, p, n);
}

static inline void gh_buf_putc(gh_buf *b, int c)
{
	unsigned char ch = (unsigned char)c;

	if (!b->oom && b->len < b->cap) {
		b->data[b->len++] = ch;
		return;
	}
	gh_buf_append_slow(b, &ch, 1);
}

void gh_buf_puts(gh_buf *b, const char *s);
void gh_buf_printf(gh_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gh_buf_vprintf(gh_buf *b, const char *fmt, va_list ap);
/* Ensure room for n more bytes; 0 or GOHEAP_ENOMEM. */
int gh_buf_reserve(gh_buf *b, size_t n);
void gh_buf_free(gh_buf *b);
/* Hand the bytes to the caller (b is reset). */
unsigned char *gh_buf_detach(gh_buf *b, size_t *len);

/* ---- Go versions ------------------------------------------------------ */

/* A Go release, e.g. {1, 22, 12}.  {0,0,0} means unknown. */
typedef struct gh_gover {
	int major, minor, patch;
} gh_gover;

/* Parse "go1.22.12", "go1.23rc1", "devel go1.24-abc..."; 0 or EINVAL. */
int gh_gover_parse(gh_gover *out, const char *s);
/* Compare with major.minor: <0, 0, >0. */
int gh_gover_cmp(gh_gover v, int major, int minor);

/* ---- byte order -------------------------------------------------------- */

static inline uint64_t gh_load(const unsigned char *p, unsigned size, int big)
{
	uint64_t v = 0;
	unsigned i;
	if (big) {
		for (i = 0; i < size; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = size; i > 0; i--)
			v = (v << 8) | p[i - 1];
	}
	return v;
}

static inline uint32_t gh_le32(const unsigned char *p)
{
	return (uint32_t)gh_load(p, 4, 0);
}

/* ---- Go integer semantics ---------------------------------------------- */

/*
 * Go's int64 arithmetic wraps on overflow; C's is undefined.  Counts read
 * from a hostile target can be anything, and the writers must print what
 * the Go code would (and never invoke undefined behaviour), so sums and
 * products of target-supplied counts go through these.
 */
static inline int64_t gh_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t gh_wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t gh_wmul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* Go's int64(float64), out-of-range rule included: gh_go_f2i64 in
 * gomath.h. */

/* ---- small shared helpers ----------------------------------------------- */

/* FNV-1a over n bytes, and over a NUL-terminated string (the writers'
 * hash tables). */
static inline uint64_t gh_fnv1a(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static inline uint64_t gh_fnv1a_str(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

/*
 * A fast hash of a NUL-terminated string for in-memory indexes (symbol
 * and function names at open: tens of thousands of them): eight bytes a
 * step where FNV-1a takes one.  Not stable across go-heap versions.
 */
static inline uint64_t gh_hash_str(const char *s)
{
	size_t n = strlen(s), i;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n, w;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, s + i, n - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

/* Length of path without the " (deleted)" the kernel's d_path() appends to
 * an unlinked file's name (in /proc/PID/maps and a core's NT_FILE). */
static inline size_t gh_path_len_undeleted(const char *path)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(path), d = sizeof(del) - 1;

	return n >= d && strcmp(path + n - d, del) == 0 ? n - d : n;
}

/* ---- front ends: what the CLI (main.c) and goheap_command share ------ */

/*
 * main.c includes this header too but links only the public API (the
 * installed go-heap uses libgoheap.so, where gh_* are hidden): what
 * follows stays static inline.  Decisions only: the words front ends
 * print are the library's, handed over in the public result structures
 * (goheap.h: what force did, the profile's and the write's warnings),
 * never written here.
 */

/* With --force, a profile is written too only when one was asked for
 * explicitly (-o or -f). */
static inline int gh_force_wants_profile(const char *output, int format_given)
{
	return output != NULL || format_given;
}

/* ---- monotonic time --------------------------------------------------- */
double gh_now(void);

#endif /* GH_H */

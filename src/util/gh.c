/*
 * gh.c - error messages, checked allocation, byte buffers, Go versions.
 *
 * The error list lives once, in goheap.h's GOHEAP_ERRORS X-macro (as
 * elfutils' DWFL_ERRORS); this file turns it into goheap_strerror.  The
 * buffer is append-only with a sticky out-of-memory flag so that writers
 * can emit hundreds of small pieces and check once, the way Go's
 * bufio.Writer defers its error.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "gh.h"

GOHEAP_EXTERN const char *goheap_strerror(int code)
{
	switch (code) {
#define GOHEAP_X_CASE(name, value, msg) \
	case (value):                   \
		return msg;
		GOHEAP_ERRORS(GOHEAP_X_CASE)
#undef GOHEAP_X_CASE
	default:
		return "unknown error";
	}
}

GOHEAP_EXTERN const char *goheap_version(void)
{
	return PACKAGE_VERSION;
}

GOHEAP_EXTERN void goheap_free(void *ptr)
{
	free(ptr);
}

int gh_errf(gh_err *err, int code, const char *fmt, ...)
{
	char tmp[sizeof(err->msg)];
	va_list ap;

	if (err == NULL)
		return code;
	/* formatted aside first: an argument may be err->msg itself (a
	 * message wrapped in a wider one), and vsnprintf into its own
	 * source is undefined (valgrind saw mempcpy's overlap in watch) */
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	err->code = code;
	memcpy(err->msg, tmp, sizeof(err->msg));
	return code;
}

int gh_err_prefix(gh_err *err, const char *fmt, ...)
{
	char head[256], old[sizeof(err->msg)];
	va_list ap;
	size_t n;

	if (err == NULL)
		return 0;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: ", head);
	n = strlen(err->msg);
	if (n < sizeof(err->msg) - 1)
		memcpy(err->msg + n, old, sizeof(err->msg) - 1 - n);
	err->msg[sizeof(err->msg) - 1] = '\0';
	return err->code;
}

/*
 * No allocation of the library reaches this many bytes: a larger request
 * comes from a count a damaged or changing target handed us, and is
 * answered as out of memory without asking the allocator (which may
 * reserve it, and which valgrind reports as a "fishy" argument).
 */
#define GH_ALLOC_MAX ((size_t)1 << 40)

void *gh_calloc(size_t n, size_t size)
{
	if (n == 0 || size == 0)
		n = size = 1;
	if (n > GH_ALLOC_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return calloc(n, size);
}

void *gh_reallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > GH_ALLOC_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (n == 0 || size == 0)
		n = size = 1;
	return realloc(p, n * size);
}

char *gh_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d != NULL)
		memcpy(d, s, n);
	return d;
}

int gh_buf_reserve(gh_buf *b, size_t n)
{
	size_t want, cap;
	unsigned char *d;

	if (b->oom)
		return GOHEAP_ENOMEM;
	if (n > SIZE_MAX - b->len)
		goto oom;
	want = b->len + n;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < want) {
		if (cap > SIZE_MAX / 2)
			goto oom;
		cap *= 2;
	}
	d = realloc(b->data, cap);
	if (d == NULL)
		goto oom;
	b->data = d;
	b->cap = cap;
	return 0;
oom:
	b->oom = 1;
	return GOHEAP_ENOMEM;
}

void gh_buf_append_slow(gh_buf *b, const void *p, size_t n)
{
	if (n == 0 || gh_buf_reserve(b, n) != 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void gh_buf_puts(gh_buf *b, const char *s)
{
	gh_buf_append(b, s, strlen(s));
}

void gh_buf_vprintf(gh_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || gh_buf_reserve(b, (size_t)n + 1) != 0)
		return;
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void gh_buf_printf(gh_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gh_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void gh_buf_free(gh_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

unsigned char *gh_buf_detach(gh_buf *b, size_t *len)
{
	unsigned char *d = b->data;

	*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return d;
}

/* Accepts "go1.22.12", "go1.21", "go1.23rc1", "devel go1.24-ab12 ...". */
int gh_gover_parse(gh_gover *out, const char *s)
{
	const char *p = strstr(s, "go1.");
	int minor = 0, patch = 0;

	memset(out, 0, sizeof(*out));
	if (p == NULL)
		return GOHEAP_EINVAL;
	p += 4;
	if (*p < '0' || *p > '9')
		return GOHEAP_EINVAL;
	while (*p >= '0' && *p <= '9' && minor < 100000)
		minor = minor * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && patch < 100000)
			patch = patch * 10 + (*p++ - '0');
	}
	out->major = 1;
	out->minor = minor;
	out->patch = patch;
	return 0;
}

int gh_gover_cmp(gh_gover v, int major, int minor)
{
	if (v.major != major)
		return v.major < major ? -1 : 1;
	if (v.minor != minor)
		return v.minor < minor ? -1 : 1;
	return 0;
}

double gh_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int gh_grow_slow(void *pp, size_t *cap, size_t need, size_t elsize)
{
	void **p = pp;
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return GOHEAP_ENOMEM;
		ncap *= 2;
	}
	np = gh_reallocarray(*p, ncap, elsize);
	if (np == NULL)
		return GOHEAP_ENOMEM;
	gh_huge(np, ncap * elsize);
	*p = np;
	*cap = ncap;
	return 0;
}

/*
 * Transparent huge pages for the 2 MiB-aligned inside of a large array
 * (madvise(MADV_HUGEPAGE): the machines' default is "madvise"): the graph's
 * per-object arrays are read at random, and with 4 KiB pages most of
 * those reads also miss the TLB (a page walk, two-dimensional under a
 * hypervisor).  An allocation that large is its own mapping (glibc's
 * mmap threshold), so the advice touches no other memory; it is only
 * advice (nothing happens where THP is off).
 */
void gh_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)1 << 21;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1),
		  hi = ((uintptr_t)p + n) & ~(huge - 1);

	if (p == NULL || n < GH_HUGE_MIN || hi <= lo)
		return;
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void *gh_malloc_huge(size_t n)
{
	void *p = malloc(n);

	gh_huge(p, n);
	return p;
}

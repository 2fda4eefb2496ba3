/*
 * tests/api-stream.c - goheap_profile_collect_write against
 * goheap_profile_collect + goheap_profile_write on a live Go program
 * (tests/run-live.sh), through the shared library as an API user links it:
 *
 *   api-stream PID
 *
 * For heap and allocs written as pprof (the streamed path: the walk and an
 * encoder thread) and as text (collected, then written), the two calls
 * must give the same profile: the same bytes once inflated, TimeNanos
 * (field 9 of Profile, the collection's own clock) aside, and the same
 * summary (records, totals, rate, skips).  A version the library does not
 * know is refused, and the session's time limit stops the streamed walk.
 * One line per check ("ok: ..." or "FAIL: ..."); exit 0
 * when all hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "goheap.h"

static int failed;

static void check(int cond, const char *what, const char *detail)
{
	printf("%s: %s%s%s\n", cond ? "ok" : "FAIL", what,
	       detail ? ": " : "", detail ? detail : "");
	failed |= !cond;
}

/* Inflate every gzip member of in (libdeflate writes one per chunk). */
static unsigned char *gunzip(const unsigned char *in, size_t n, size_t *outn)
{
	size_t cap = n * 8 + 4096, len = 0;
	unsigned char *out = malloc(cap);
	z_stream z;
	int rc = Z_OK;

	if (out == NULL)
		return NULL;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	for (;;) {
		if (len == cap) {
			unsigned char *o = realloc(out, cap * 2);

			if (o == NULL)
				break;
			out = o;
			cap *= 2;
		}
		z.next_out = out + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		if (rc == Z_STREAM_END) {
			if (z.avail_in == 0)
				break;
			if (inflateReset(&z) != Z_OK)   /* the next member */
				break;
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			break;
		if (rc == Z_BUF_ERROR && z.avail_in == 0)
			break;
	}
	inflateEnd(&z);
	if (rc != Z_STREAM_END || z.avail_in != 0) {
		free(out);
		return NULL;
	}
	*outn = len;
	return out;
}

static int varint(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
	unsigned sh = 0;

	*v = 0;
	while (*i < n && sh < 64) {
		unsigned char c = p[(*i)++];

		*v |= (uint64_t)(c & 0x7f) << sh;
		if (c < 0x80)
			return 0;
		sh += 7;
	}
	return -1;
}

/* The top-level fields of a Profile message but field 9 (time_nanos),
 * copied to out (which may be p: fields only move down, memmove); its
 * length, or (size_t)-1 if p is not protobuf. */
static size_t strip_time(const unsigned char *p, size_t n, unsigned char *out)
{
	size_t i = 0, st, o = 0;
	uint64_t key, v;

	while (i < n) {
		st = i;
		if (varint(p, n, &i, &key) != 0)
			return (size_t)-1;
		switch (key & 7) {
		case 0:
			if (varint(p, n, &i, &v) != 0)
				return (size_t)-1;
			break;
		case 2:
			if (varint(p, n, &i, &v) != 0 || v > n - i)
				return (size_t)-1;
			i += (size_t)v;
			break;
		case 1:
			i += 8;
			break;
		case 5:
			i += 4;
			break;
		default:
			return (size_t)-1;
		}
		if (i > n)
			return (size_t)-1;
		if ((key >> 3) != 9) {
			memmove(out + o, p + st, i - st);
			o += i - st;
		}
	}
	return o;
}

static int same_stats(const goheap_profile_stats *a,
		      const goheap_profile_stats *b)
{
	return a->records == b->records &&
	       a->mem_profile_rate == b->mem_profile_rate &&
	       a->inuse_objects == b->inuse_objects &&
	       a->inuse_bytes == b->inuse_bytes &&
	       a->alloc_objects == b->alloc_objects &&
	       a->alloc_bytes == b->alloc_bytes &&
	       a->skipped_buckets == b->skipped_buckets;
}

static void compare(goheap_session *s, int kind, int format, const char *name)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_write_stats ws = GOHEAP_WRITE_STATS_INIT;
	goheap_profile_stats st1 = GOHEAP_PROFILE_STATS_INIT;
	goheap_profile_stats st2 = GOHEAP_PROFILE_STATS_INIT;
	goheap_profile *p = NULL;
	unsigned char *b1 = NULL, *b2 = NULL, *u1 = NULL, *u2 = NULL;
	size_t n1 = 0, n2 = 0, m1 = 0, m2 = 0, k1, k2;
	char what[160], detail[160];
	int rc;

	wo.format = format;
	wo.stats = &ws;
	snprintf(what, sizeof(what), "%s: collect_write == collect + write",
		 name);
	/* collect_write records the text's MemStats trailer at collection:
	 * so does the flag */
	rc = goheap_profile_collect_flags(&p, s, kind,
					  format == GOHEAP_FORMAT_TEXT ?
					  GOHEAP_COLLECT_MEMSTATS : 0);
	if (rc == 0)
		rc = goheap_profile_write(s, p, &wo, &b1, &n1);
	if (rc == 0)
		goheap_profile_stats_get(p, &st1);
	goheap_profile_free(p);
	if (rc != 0) {
		check(0, what, goheap_errmsg(s));
		return;
	}
	ws = (goheap_write_stats)GOHEAP_WRITE_STATS_INIT;
	rc = goheap_profile_collect_write(s, kind, &wo, &b2, &n2, &st2);
	if (rc != 0) {
		check(0, what, goheap_errmsg(s));
		goheap_free(b1);
		return;
	}
	if (format == GOHEAP_FORMAT_PPROF) {
		u1 = gunzip(b1, n1, &m1);
		u2 = gunzip(b2, n2, &m2);
		k1 = u1 ? strip_time(u1, m1, u1) : (size_t)-1;
		k2 = u2 ? strip_time(u2, m2, u2) : (size_t)-1;
		snprintf(detail, sizeof(detail), "%zu / %zu protobuf bytes, "
			 "%llu records, encoder thread %.1f ms", k1, k2,
			 (unsigned long long)st2.records,
			 ws.encode_thread_seconds * 1e3);
		check(k1 != (size_t)-1 && k1 == k2 && memcmp(u1, u2, k1) == 0 &&
		      same_stats(&st1, &st2), what, detail);
	} else {
		snprintf(detail, sizeof(detail), "%zu / %zu bytes", n1, n2);
		check(n1 == n2 && memcmp(b1, b2, n1) == 0 &&
		      same_stats(&st1, &st2), what, detail);
	}
	free(u1);
	free(u2);
	goheap_free(b1);
	goheap_free(b2);
}

int main(int argc, char **argv)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_session *s = NULL;
	unsigned char *buf = NULL;
	size_t len = 0;
	int pid, rc;

	if (argc != 2 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: api-stream PID\n");
		return 2;
	}
	rc = goheap_open_pid(&s, pid, NULL);
	check(rc == 0, "open", rc ? goheap_errmsg(s) : NULL);
	if (rc != 0) {
		goheap_close(s);
		return 1;
	}
	compare(s, GOHEAP_PROFILE_HEAP, GOHEAP_FORMAT_PPROF, "heap pprof");
	compare(s, GOHEAP_PROFILE_ALLOCS, GOHEAP_FORMAT_PPROF, "allocs pprof");
	compare(s, GOHEAP_PROFILE_HEAP, GOHEAP_FORMAT_TEXT, "heap text");
	wo.version = GOHEAP_WRITE_OPTIONS_VERSION + 1;
	wo.format = GOHEAP_FORMAT_PPROF;
	rc = goheap_profile_collect_write(s, GOHEAP_PROFILE_HEAP, &wo, &buf,
					  &len, NULL);
	check(rc == GOHEAP_EINVAL && buf == NULL &&
	      strstr(goheap_errmsg(s), "version") != NULL,
	      "an unknown goheap_write_options version is refused",
	      goheap_errmsg(s));
	goheap_free(buf);
	buf = NULL;
	/* the session's time limit bounds the streamed walk too: nothing
	 * written, one message naming the limit */
	wo.version = GOHEAP_WRITE_OPTIONS_VERSION;
	goheap_set_time_limit(s, 1e-9);
	rc = goheap_profile_collect_write(s, GOHEAP_PROFILE_HEAP, &wo, &buf,
					  &len, NULL);
	check(rc == GOHEAP_ETIMEDOUT && buf == NULL && len == 0 &&
	      strstr(goheap_errmsg(s), "time limit") != NULL,
	      "the time limit stops collect_write", goheap_errmsg(s));
	goheap_free(buf);
	goheap_close(s);
	return failed ? 1 : 0;
}

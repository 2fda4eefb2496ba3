/*
 * test_growth.c - growth over snapshots (src/lib/growth.c) on -p types
 * profiles built by hand, so that every row is known: last minus first
 * (negative included, a row gone counts 0), rows that did not change left
 * out, the order by bytes grown, leak suspects only with 3+ snapshots and
 * only for rows that grew in every interval, and the refusals (another
 * kind, another process, an older snapshot, one snapshot only).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "heapwalk.h"
#include "profile.h"

/* the types part's free function (as heapwalk.c's) */
static void types_free(void *t)
{
	gh_types_free(t);
}

/* A -p types profile at time t with rows names[i] of objs[i] objects of
 * 64 bytes each (typed: type address i + 1). */
static gh_profile *mk(int64_t t, size_t n, const char *const *names,
		      const uint64_t *objs)
{
	gh_profile *p = calloc(1, sizeof(*p));
	gh_types *ty = calloc(1, sizeof(*ty));
	size_t i;

	assert_non_null(p);
	p->kind = GOHEAP_PROFILE_TYPES;
	p->time_nanos = t;
	p->pid = 42;
	p->start_time = 7;
	p->ver.major = 1;
	p->ver.minor = 27;
	assert_non_null(ty);
	gh_profile_set_part(p, GH_PART_TYPES, ty, types_free);
	ty->e = calloc(n ? n : 1, sizeof(*ty->e));
	assert_non_null(ty->e);
	for (i = 0; i < n; i++) {
		gh_tentry *e = &ty->e[i];

		e->type = 0x1000 + 8 * (i + 1);
		e->name = strdup(names[i]);
		e->shape = strdup("ptrs 64 B");
		e->objects = objs[i];
		e->bytes = 64 * objs[i];
		ty->objects += e->objects;
		ty->bytes += e->bytes;
	}
	ty->n = n;
	return p;
}

static void add(goheap_growth *g, gh_profile *p, int want)
{
	assert_int_equal(goheap_growth_add(g, p), want);
	gh_profile_destroy(p);
	free(p);
}

static char *text(goheap_growth *g, int format)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	unsigned char *buf = NULL;
	size_t len = 0;
	char *s;

	wo.format = format;
	assert_int_equal(goheap_growth_write(g, &wo, &buf, &len), 0);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, buf, len);
	s[len] = '\0';
	goheap_free(buf);
	return s;
}

static void test_two(void **state)
{
	static const char *const n1[] = { "main.A", "main.B", "main.C" };
	static const char *const n2[] = { "main.A", "main.B", "main.D" };
	static const uint64_t o1[] = { 10, 5, 3 }, o2[] = { 30, 5, 1 };
	goheap_growth *g = NULL;
	char *s;

	(void)state;
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_TYPES), 0);
	add(g, mk(1000000000, 3, n1, o1), 0);
	add(g, mk(3000000000LL, 3, n2, o2), 0);
	s = text(g, GOHEAP_FORMAT_TEXT);
	/* A +20, D +1 (new), C -3 (gone); B unchanged: no row */
	assert_non_null(strstr(s, "# go-heap -p types: growth over 2 snapshots in 2.000 s"));
	assert_non_null(strstr(s, "20\t1280\t30\t1920\t0\tmain.A\tptrs 64 B\n"
				  "1\t64\t1\t64\t0\tmain.D\tptrs 64 B\n"
				  "-3\t-192\t0\t0\t0\tmain.C\tptrs 64 B\n"));
	assert_null(strstr(s, "main.B"));
	free(s);
	goheap_growth_free(g);
}

static void test_suspects(void **state)
{
	static const char *const n[] = { "main.Leak", "main.Flat", "main.Up" };
	static const uint64_t a[] = { 1, 4, 1 }, b[] = { 2, 4, 5 },
			      c[] = { 3, 5, 5 };
	goheap_growth *g = NULL;
	char *s;

	(void)state;
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_TYPES), 0);
	add(g, mk(1, 3, n, a), 0);
	add(g, mk(2, 3, n, b), 0);
	add(g, mk(3, 3, n, c), 0);
	s = text(g, GOHEAP_FORMAT_TEXT);
	/* Leak grew in both intervals; Up only in the first, Flat only in
	 * the second */
	assert_non_null(strstr(s, "\t1\tmain.Leak\t"));
	assert_non_null(strstr(s, "\t0\tmain.Up\t"));
	assert_non_null(strstr(s, "\t0\tmain.Flat\t"));
	assert_non_null(strstr(s, "leak suspects (bytes grew in each of the 2 intervals, marked '!'): 1"));
	free(s);
	s = text(g, GOHEAP_FORMAT_TOP);
	assert_non_null(strstr(s, "!"));
	free(s);
	goheap_growth_free(g);
}

/* goheap_growth_rows: the last snapshot's rows only (a row gone from it
 * is not handed out), with their values, and fn's non-zero return. */
static int take(const char *name, const char *shape, int64_t objects,
		int64_t bytes, void *payload)
{
	char *out = payload;
	size_t n = strlen(out);

	snprintf(out + n, 512 - n, "%s/%s/%lld/%lld;", name, shape,
		 (long long)objects, (long long)bytes);
	return strcmp(name, "main.Stop") == 0 ? 7 : 0;
}

static void test_rows(void **state)
{
	static const char *const n1[] = { "main.A", "main.C" };
	static const char *const n2[] = { "main.A", "main.D" };
	static const char *const n3[] = { "main.Stop", "main.A" };
	static const uint64_t o1[] = { 10, 3 }, o2[] = { 30, 1 },
			      o3[] = { 1, 1 };
	goheap_growth *g = NULL;
	char out[512] = "";

	(void)state;
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_TYPES), 0);
	assert_int_equal(goheap_growth_rows(g, take, out), 0);
	assert_string_equal(out, "");
	add(g, mk(1, 2, n1, o1), 0);
	add(g, mk(2, 2, n2, o2), 0);
	assert_int_equal(goheap_growth_rows(g, take, out), 0);
	assert_string_equal(out, "main.A/ptrs 64 B/30/1920;"
			    "main.D/ptrs 64 B/1/64;");
	goheap_growth_free(g);
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_TYPES), 0);
	add(g, mk(1, 2, n3, o3), 0);
	out[0] = '\0';
	assert_int_equal(goheap_growth_rows(g, take, out), 7);
	assert_string_equal(out, "main.Stop/ptrs 64 B/1/64;");
	assert_int_equal(goheap_growth_rows(NULL, take, out), GOHEAP_EINVAL);
	goheap_growth_free(g);
}

static void test_refusals(void **state)
{
	static const char *const n[] = { "main.A" };
	static const uint64_t o[] = { 1 };
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_growth *g = NULL;
	unsigned char *buf = NULL;
	size_t len = 0;
	gh_profile *p;

	(void)state;
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_HEAP),
			 GOHEAP_EINVAL);
	assert_null(g);
	assert_int_equal(goheap_growth_new(&g, GOHEAP_PROFILE_TYPES), 0);
	add(g, mk(10, 1, n, o), 0);
	assert_int_equal(goheap_growth_write(g, &wo, &buf, &len),
			 GOHEAP_EINVAL);
	assert_non_null(strstr(goheap_growth_errmsg(g), "two snapshots"));
	add(g, mk(5, 1, n, o), GOHEAP_EINVAL);          /* older */
	p = mk(20, 1, n, o);
	p->start_time = 8;                              /* another process */
	add(g, p, GOHEAP_EMISMATCH);
	p = mk(20, 1, n, o);
	p->kind = GOHEAP_PROFILE_RETAINED;
	add(g, p, GOHEAP_EINVAL);
	wo.format = GOHEAP_FORMAT_OBJECTS;
	add(g, mk(30, 1, n, o), 0);
	assert_int_equal(goheap_growth_write(g, &wo, &buf, &len),
			 GOHEAP_EUNSUPPORTED);
	goheap_growth_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_suspects),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

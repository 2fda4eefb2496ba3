/*
 * tests/test_watch.c - the pure parts of `go-heap watch` (src/watch/
 * watch_util.c): UTF-8 as Go's unicode/utf8 decides it, the invalid runs
 * replaced as strings.ToValidUTF8(s, "\uFFFD") does, labels cut without
 * cutting a character, and the option values' integer parser.  The
 * property test against Go itself is tests/run-watch-churn.sh; these are
 * the cases a reader checks by eye.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "watch_util.h"

static size_t seq(const char *s)
{
	return utf8_seq_len((const unsigned char *)s, strlen(s));
}

/* Go's utf8.DecodeRune: what is one valid sequence, and what is not. */
static void test_utf8_seq_len(void **state)
{
	(void)state;
	assert_int_equal(seq("a"), 1);
	assert_int_equal(seq("\xc3\xa9"), 2);             /* é */
	assert_int_equal(seq("\xe2\x82\xac"), 3);         /* € */
	assert_int_equal(seq("\xf0\x9f\x98\x80"), 4);     /* U+1F600 */
	assert_int_equal(seq("\xf4\x8f\xbf\xbf"), 4);     /* U+10FFFF */
	assert_int_equal(seq("\xc0\x80"), 0);             /* overlong NUL */
	assert_int_equal(seq("\xc1\xbf"), 0);             /* overlong */
	assert_int_equal(seq("\xe0\x80\x80"), 0);         /* overlong */
	assert_int_equal(seq("\xf0\x80\x80\x80"), 0);     /* overlong */
	assert_int_equal(seq("\xed\xa0\x80"), 0);         /* surrogate D800 */
	assert_int_equal(seq("\xf4\x90\x80\x80"), 0);     /* above U+10FFFF */
	assert_int_equal(seq("\xe2\x82"), 0);             /* cut short */
	assert_int_equal(seq("\x80"), 0);                 /* continuation */
	assert_int_equal(seq("\xff"), 0);
}

static void valid(const char *in, size_t n, const char *want)
{
	sbuf b = SBUF_INIT;

	sb_utf8(&b, in, n);
	assert_false(b.oom);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.p, want, b.len);
	free(b.p);
}

/* strings.ToValidUTF8(s, "\uFFFD"): one U+FFFD per maximal invalid run. */
static void test_sb_utf8(void **state)
{
	(void)state;
	valid("plain", 5, "plain");
	valid("latin1-\xe9t\xe9", 10, "latin1-\xef\xbf\xbdt\xef\xbf\xbd");
	valid("a\xff\xfe" "b", 4, "a\xef\xbf\xbd" "b");
	valid("\xe2\x82x", 3, "\xef\xbf\xbdx");            /* cut € */
	valid("\xed\xa0\x80", 3, "\xef\xbf\xbd");          /* a surrogate */
	valid("\xc3\xa9\xff\xc3\xa9", 5, "\xc3\xa9\xef\xbf\xbd\xc3\xa9");
	valid("", 0, "");
}

/* A label read from /proc: valid UTF-8, NUL-terminated, never a cut
 * character, however small the destination. */
static void test_utf8_sanitize(void **state)
{
	char d[8];

	(void)state;
	utf8_sanitize(d, sizeof(d), "abc", 3);
	assert_string_equal(d, "abc");
	utf8_sanitize(d, 3, "a\xc3\xa9", 3);       /* room for "a" only */
	assert_string_equal(d, "a");
	utf8_sanitize(d, 4, "a\xc3\xa9", 3);
	assert_string_equal(d, "a\xc3\xa9");
	utf8_sanitize(d, sizeof(d), "\xff", 1);
	assert_string_equal(d, "\xef\xbf\xbd");
	utf8_sanitize(d, 3, "\xff", 1);            /* U+FFFD does not fit */
	assert_string_equal(d, "");
	utf8_sanitize(d, 1, "abc", 3);
	assert_string_equal(d, "");
}

static void test_parse_long(void **state)
{
	long v = -1;

	(void)state;
	assert_int_equal(parse_long("12", 0, 100, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(parse_long("100", 0, 100, &v), 0);
	assert_int_equal(parse_long("101", 0, 100, &v), -1);
	assert_int_equal(parse_long("-1", 0, 100, &v), -1);
	assert_int_equal(parse_long("12x", 0, 100, &v), -1);
	assert_int_equal(parse_long("", 0, 100, &v), -1);
	assert_int_equal(parse_long(" 1", 0, 100, &v), -1);
	assert_int_equal(parse_long("99999999999999999999", 0, 100, &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_seq_len),
		cmocka_unit_test(test_sb_utf8),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_parse_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

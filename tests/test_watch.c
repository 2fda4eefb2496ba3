/*
 * tests/test_watch.c - the pure parts of `go-heap watch` (src/watch/
 * watch_util.c): UTF-8 as Go's unicode/utf8 decides it, the invalid runs
 * replaced as strings.ToValidUTF8(s, "\uFFFD") does, labels cut without
 * cutting a character, and the option values' integer parser.  The
 * property test against Go itself is tests/run-watch-churn.sh; these are
 * the cases a reader checks by eye.  And --on-memory-pressure's cgroup
 * texts (src/watch/watch_cgroup.c): mountinfo lines, /proc/PID/cgroup,
 * memory.stat, a cgroup's directory under a mount in and out of cgroup
 * namespaces (the lines below are this machine's, a hybrid host's, and
 * those unshare -C and a bind mount gave: doc/watch.md).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "watch_cgroup.h"
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
	gh_buf b = GH_BUF_INIT;

	sb_utf8(&b, in, n);
	assert_false(b.oom);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.data, want, b.len);
	gh_buf_free(&b);
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

/* mountinfo: which lines are cgroup mounts, their root and mount point */
static void test_mountinfo(void **state)
{
	static const struct {
		const char *line;
		int kind;
		const char *dir, *root;
	} cases[] = {
		{ "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup "
		  "cgroup rw,memory\n", WCG_V1_MEMORY, "/sys/fs/cgroup/memory",
		  "/" },
		{ "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup "
		  "rw,cpu", WCG_OTHER, NULL, NULL },
		{ "33 31 0:30 / /sys/fs/cgroup/cpu,memory rw shared:9 - cgroup "
		  "cgroup rw,cpu,memory", WCG_V1_MEMORY,
		  "/sys/fs/cgroup/cpu,memory", "/" },
		/* cgroup2 options are no controllers */
		{ "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 "
		  "cgroup2 rw,nsdelegate,memory_recursiveprot", WCG_V2,
		  "/sys/fs/cgroup/unified", "/" },
		{ "50 31 0:39 / /sys/fs/cgroup/x rw - cgroup none "
		  "rw,memory_recursiveprot", WCG_OTHER, NULL, NULL },
		/* unshare -C: the root relative to the namespace */
		{ "72 68 0:32 /../.. /sys/fs/cgroup/memory rw,relatime - cgroup "
		  "cgroup rw,memory", WCG_V1_MEMORY, "/sys/fs/cgroup/memory",
		  "/../.." },
		/* escapes: a space in the mount point */
		{ "60 1 0:40 /a\\040b /mnt/c\\040g rw - cgroup2 cgroup2 rw",
		  WCG_V2, "/mnt/c g", "/a b" },
		{ "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs "
		  "rw,mode=755", WCG_OTHER, NULL, NULL },
		{ "garbage", WCG_OTHER, NULL, NULL },
		{ "1 2 3 - cgroup2 x rw", WCG_OTHER, NULL, NULL },
	};
	char line[256];
	const char *dir, *root;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "%s", cases[i].line);
		dir = root = NULL;
		assert_int_equal(wcg_mountinfo_line(line, &dir, &root),
				 cases[i].kind);
		if (cases[i].dir != NULL) {
			assert_string_equal(dir, cases[i].dir);
			assert_string_equal(root, cases[i].root);
		}
	}
}

/* a cgroup's directory under a mount, namespaces included */
static void test_cgroup_path(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(wcg_path("/sys/fs/cgroup/memory", "/", "/a/b", out,
				  sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/memory/a/b");
	assert_int_equal(wcg_path("/sys/fs/cgroup", "/", "/", out,
				  sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	/* watch in a cgroup namespace of its own, the host's mount */
	assert_int_equal(wcg_path("/sys/fs/cgroup/memory", "/../..",
				  "/../../go-heap-nstry.1", out,
				  sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/memory/go-heap-nstry.1");
	/* its own cgroup bind-mounted: the target climbs out */
	assert_int_equal(wcg_path("/sys/fs/cgroup/memory", "/",
				  "/../../go-heap-nstry.1", out,
				  sizeof(out)), -1);
	assert_int_equal(wcg_path("/sys/fs/cgroup/memory", "/", "/a/../..",
				  out, sizeof(out)), -1);
	/* a subtree mounted: below it, or not (a prefix is no parent) */
	assert_int_equal(wcg_path("/c", "/kubepods/pod1", "/kubepods/pod1/x",
				  out, sizeof(out)), 0);
	assert_string_equal(out, "/c/x");
	assert_int_equal(wcg_path("/c", "/kubepods/pod1", "/kubepods/pod1",
				  out, sizeof(out)), 0);
	assert_string_equal(out, "/c");
	assert_int_equal(wcg_path("/c", "/kubepods/pod1", "/kubepods/pod10",
				  out, sizeof(out)), -1);
	assert_int_equal(wcg_path("/c", "/kubepods/pod1", "/other", out,
				  sizeof(out)), -1);
	/* a name with dots is no ".." */
	assert_int_equal(wcg_path("/m", "/", "/..a/b..", out, sizeof(out)),
			 0);
	assert_string_equal(out, "/m/..a/b..");
	/* no mount of the hierarchy; a directory too long for out */
	assert_int_equal(wcg_path(NULL, NULL, "/a", out, sizeof(out)), -2);
	assert_int_equal(wcg_path("/m", "/", "/abcdefgh", out, 8), -1);
}

/* /proc/PID/cgroup: the v2 line and v1's memory line */
static void test_proc_cgroup(void **state)
{
	char text[512];
	const char *v2, *v1;

	(void)state;
	snprintf(text, sizeof(text), "9:name=systemd:/\n8:pids:/\n"
		 "4:memory:/process_api/41ed\n1:cpu:/\n0::/\n");
	wcg_proc_cgroup(text, &v2, &v1);
	assert_non_null(v2);
	assert_non_null(v1);
	assert_string_equal(v2, "/");
	assert_string_equal(v1, "/process_api/41ed");
	/* pure v2; a path with a colon; controllers sharing a line */
	snprintf(text, sizeof(text), "0::/system.slice/a:b.service\n");
	wcg_proc_cgroup(text, &v2, &v1);
	assert_string_equal(v2, "/system.slice/a:b.service");
	assert_null(v1);
	snprintf(text, sizeof(text), "5:cpu,memory:/x\n3:memory_y:/z");
	wcg_proc_cgroup(text, &v2, &v1);
	assert_null(v2);
	assert_string_equal(v1, "/x");
	snprintf(text, sizeof(text), "garbage\n10:a\n");
	wcg_proc_cgroup(text, &v2, &v1);
	assert_null(v2);
	assert_null(v1);
}

/* memory.stat: a key is a whole word at a line's start */
static void test_stat_value(void **state)
{
	const char *stat = "cache 114688\ninactive_file 106496\n"
			   "hierarchical_memory_limit 9223372036854771712\n"
			   "total_inactive_file 4096\n";

	(void)state;
	assert_int_equal(wcg_stat_value(stat, "cache"), 114688);
	assert_int_equal(wcg_stat_value(stat, "inactive_file"), 106496);
	assert_int_equal(wcg_stat_value(stat, "total_inactive_file"), 4096);
	assert_true(wcg_stat_value(stat, "hierarchical_memory_limit") ==
		    9223372036854771712ULL);
	assert_int_equal(wcg_stat_value(stat, "total_cache"), 0);
	assert_int_equal(wcg_stat_value(stat, "inactive"), 0);
	assert_int_equal(wcg_stat_value("", "cache"), 0);
	assert_true(wcg_has_word("rw,cpu,memory", "memory"));
	assert_true(wcg_has_word("memory", "memory"));
	assert_false(wcg_has_word("rw,memory_recursiveprot", "memory"));
	assert_false(wcg_has_word("rw,nomemory", "memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_seq_len),
		cmocka_unit_test(test_sb_utf8),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_parse_long),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_proc_cgroup),
		cmocka_unit_test(test_stat_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

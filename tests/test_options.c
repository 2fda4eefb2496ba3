/*
 * test_options.c - the option table: spellings, defaults, the format
 * chosen from -o's extension, and one-line errors for bad usage.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gh.h"
#include "goheap.h"
#include "options.h"
#include "watch_options.h"

static int parse(gh_cli *c, char *err, size_t n, int argc, char **argv)
{
	return gh_cli_parse(c, argc, argv, 1, err, n);
}

/* An error message wrapped in a wider one whose argument is the message
 * itself (memstats.c: "-p memstats: reading %s", tg->err.msg): gh_errf
 * must not format into its own source (valgrind caught the overlap in a
 * watch round; the result was undefined). */
static void test_errf_wraps_its_own_message(void **state)
{
	gh_err e;

	(void)state;
	memset(&e, 0, sizeof(e));
	gh_errf(&e, GOHEAP_EUNMAPPED, "reading runtime.memstats: %s", "address not mapped");
	assert_int_equal(gh_errf(&e, GOHEAP_ECORRUPT, "-p memstats: %s (%d)", e.msg, 7),
			 GOHEAP_ECORRUPT);
	assert_string_equal(e.msg, "-p memstats: reading runtime.memstats: address not mapped (7)");
	assert_int_equal(e.code, GOHEAP_ECORRUPT);
}

static void test_defaults(void **state)
{
	char *argv[] = { "go-heap", "1234" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 2, argv), 0);
	assert_int_equal(c.format, GOHEAP_FORMAT_TOP);
	assert_int_equal(c.profile, GOHEAP_PROFILE_HEAP);
	assert_int_equal(c.top_n, 20);
	assert_int_equal(c.npositional, 1);
	assert_string_equal(c.positional[0], "1234");
	assert_int_equal(c.force, 0);
}

static void test_format_from_extension(void **state)
{
	(void)state;
	assert_int_equal(gh_cli_format_from_path("x.pb.gz"), GOHEAP_FORMAT_PPROF);
	assert_int_equal(gh_cli_format_from_path("x.pprof"), GOHEAP_FORMAT_PPROF);
	assert_int_equal(gh_cli_format_from_path("x.txt"), GOHEAP_FORMAT_TEXT);
	assert_int_equal(gh_cli_format_from_path("a.folded"),
			 GOHEAP_FORMAT_COLLAPSED);
	assert_int_equal(gh_cli_format_from_path("a.collapsed"),
			 GOHEAP_FORMAT_COLLAPSED);
	assert_int_equal(gh_cli_format_from_path("a.out"), -1);
	assert_int_equal(gh_cli_format_from_path("-"), -1);
}

/* Block/mutex sample indexes are their own: never a heap index by number. */
static void test_sample_index_kinds(void **state)
{
	char *ok[] = { "go-heap", "-p", "block", "-s", "delay", "1" };
	char *ok2[] = { "go-heap", "-s", "contentions", "-p", "mutex", "1" };
	char *bad[] = { "go-heap", "-p", "heap", "-s", "delay", "1" };
	char *bad2[] = { "go-heap", "-s", "alloc_space", "-p", "block", "1" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 6, ok), 0);
	assert_int_equal(c.sample_index, GOHEAP_SAMPLE_DELAY);
	assert_int_equal(parse(&c, err, sizeof(err), 6, ok2), 0);
	assert_int_equal(c.sample_index, GOHEAP_SAMPLE_CONTENTIONS);
	assert_int_equal(parse(&c, err, sizeof(err), 6, bad), 2);
	assert_non_null(strstr(err, "delay is for block and mutex"));
	assert_int_equal(parse(&c, err, sizeof(err), 6, bad2), 2);
	assert_non_null(strstr(err, "alloc_space is for heap and allocs"));
}

static void test_all_spellings(void **state)
{
	char *argv[] = { "go-heap", "-o", "p.pb.gz", "--profile=allocs",
			 "-salloc_objects", "-n", "5", "--exe", "/bin/x",
			 "--sysroot", "/r", "-v", "-q", "--force=1024",
			 "--dry-run", "core", "exe" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 17, argv), 0);
	assert_string_equal(c.output, "p.pb.gz");
	assert_int_equal(c.format, GOHEAP_FORMAT_PPROF);
	assert_int_equal(c.profile, GOHEAP_PROFILE_ALLOCS);
	assert_int_equal(c.sample_index, GOHEAP_SAMPLE_ALLOC_OBJECTS);
	assert_int_equal(c.top_n, 5);
	assert_string_equal(c.exe, "/bin/x");
	assert_string_equal(c.sysroot, "/r");
	assert_int_equal(c.verbose, 1);
	assert_int_equal(c.quiet, 1);
	assert_int_equal(c.force, 1);
	assert_int_equal(c.force_rate, 1024);
	assert_int_equal(c.dry_run, 1);
	assert_int_equal(c.no_stop, 0);
	assert_int_equal(c.npositional, 2);
	assert_string_equal(c.positional[1], "exe");
}

/* --no-stop: the goroutine snapshot without the stop (issue 13). */
static void test_no_stop(void **state)
{
	char *argv[] = { "go-heap", "-p", "goroutine", "--no-stop", "1" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 5, argv), 0);
	assert_int_equal(c.no_stop, 1);
	assert_int_equal(c.profile, GOHEAP_PROFILE_GOROUTINE);
}

static void test_explicit_format_wins(void **state)
{
	char *argv[] = { "go-heap", "-f", "text", "-o", "x.pb.gz", "1" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 6, argv), 0);
	assert_int_equal(c.format, GOHEAP_FORMAT_TEXT);
}

static void test_errors(void **state)
{
	char *bad1[] = { "go-heap", "--bogus", "1" };
	char *bad2[] = { "go-heap", "-f", "svg", "1" };
	char *bad3[] = { "go-heap", "-n", "0", "1" };
	char *bad4[] = { "go-heap", "1", "2", "3" };
	char *bad5[] = { "go-heap", "-o" };
	char *bad6[] = { "go-heap", "--force=abc", "1" };
	char *bad7[] = { "go-heap", "--help=x" };
	char err[256];
	gh_cli c;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 3, bad1), 2);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(parse(&c, err, sizeof(err), 4, bad2), 2);
	assert_non_null(strstr(err, "svg"));
	assert_int_equal(parse(&c, err, sizeof(err), 4, bad3), 2);
	assert_int_equal(parse(&c, err, sizeof(err), 4, bad4), 2);
	assert_int_equal(parse(&c, err, sizeof(err), 2, bad5), 2);
	assert_int_equal(parse(&c, err, sizeof(err), 3, bad6), 2);
	assert_int_equal(parse(&c, err, sizeof(err), 2, bad7), 2);
	assert_null(strchr(err, '\n'));
}

/* --seconds, --count, --interval: normalized to count snapshots interval
 * seconds apart; only for -p types|retained; one of --seconds, --interval */
static void test_growth(void **state)
{
	char *sec[] = { "go-heap", "-p", "types", "--seconds", "30", "1" };
	char *cnt[] = { "go-heap", "-p", "retained", "--count", "5",
			"--interval=2.5", "1" };
	char *both[] = { "go-heap", "-p", "types", "--count", "3",
			 "--seconds", "10", "1" };
	char *bad[][6] = {
		{ "go-heap", "-p", "heap", "--seconds", "3", "1" },
		{ "go-heap", "-p", "types", "--seconds", "0", "1" },
		{ "go-heap", "-p", "types", "--count", "1", "1" },
		{ "go-heap", "-p", "types", "--count", "3", "1" },
		{ "go-heap", "-p", "types", "--interval", "3", "1" },
		{ "go-heap", "-p", "types", "--seconds", "-2", "1" },
		{ "go-heap", "-p", "types", "-f", "objects", "--seconds=2" },
	};
	char err[256];
	gh_cli c;
	size_t i;

	(void)state;
	assert_int_equal(parse(&c, err, sizeof(err), 6, sec), 0);
	assert_int_equal(c.count, 2);
	assert_true(c.interval == 30.0);
	assert_int_equal(parse(&c, err, sizeof(err), 7, cnt), 0);
	assert_int_equal(c.count, 5);
	assert_true(c.interval == 2.5);
	assert_int_equal(parse(&c, err, sizeof(err), 8, both), 0);
	assert_int_equal(c.count, 3);
	assert_true(c.interval == 5.0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&c, err, sizeof(err), 6, bad[i]), 2);
		assert_null(strchr(err, '\n'));
	}
}

static void test_help_lists_every_option(void **state)
{
	static const char *const names[] = { "--dry-run", "--exe", "--force",
		"--format", "--help", "--no-stop", "--output", "--profile",
		"--quiet",
		"--sample-index", "--sysroot", "--top", "--verbose",
		"--version" };
	char buf[4096];
	size_t i;

	(void)state;
	gh_cli_help(buf, sizeof(buf), "go-heap", 1);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(strstr(buf, names[i]));
	assert_non_null(strstr(buf, "go-heap watch"));
	gh_cli_help(buf, sizeof(buf), "go-heap", 0);  /* the gdb command's */
	assert_null(strstr(buf, "watch"));
}

/* go-heap watch: the same engine over its own table. */
static void test_watch(void **state)
{
	char *ok[] = { "watch", "--listen", "127.0.0.1:0", "--interval=500ms",
		       "--target-budget", "2m", "--go-heap-profiler=force",
		       "--output-dir", "/tmp/x", "--output-max-bytes=1000",
		       "-v", "-v", "--web.config.file", "/etc/web.yml", "12",
		       "34", "--endpoints=metrics,tracebacks", "--", "56" };
	char *dflt[] = { "watch" };
	char *bad[][2] = {
		{ "watch", "--interval=abc" }, { "watch", "--interval=0" },
		{ "watch", "--target-budget=25h" }, { "watch", "--bogus" },
		{ "watch", "12x" }, { "watch", "-5" }, { "watch", "0" },
		{ "watch", "--go-heap-profiler=maybe" },
		{ "watch", "--output-max-bytes=-1" }, { "watch", "--listen" },
		{ "watch", "--verbose=2" }, { "watch", "--web.config.file" },
		{ "watch", "--web-config-file=x" },
		{ "watch", "--endpoints=pprof" }, { "watch", "--endpoints=" },
		{ "watch", "--endpoints=metrics," },
		{ "watch", "--goroutineleak-interval=0" },
		{ "watch", "--goroutineleak-budget=x" },
		{ "watch", "--goroutineleak-max-heap=-1" },
		{ "watch", "--goroutineleak-max-heap=1T" },
	};
	char *leak[] = { "watch", "--goroutineleak-interval=30s",
			 "--goroutineleak-budget", "500ms",
			 "--goroutineleak-max-heap=1G" };
	char *noleak[] = { "watch", "--goroutineleak-max-heap", "0" };
	static const char *const names[] = { "--endpoints",
		"--go-heap-profiler", "--help",
		"--interval", "--listen", "--output-dir", "--output-max-bytes",
		"--target-budget", "--verbose", "--web.config.file",
		"--goroutineleak-interval", "--goroutineleak-budget",
		"--goroutineleak-max-heap" };
	char err[256], buf[8192];
	gh_watch_opts w;
	size_t i;

	(void)state;
	assert_int_equal(gh_watch_parse(&w, 19, ok, 1, err, sizeof(err)), 0);
	assert_int_equal(w.endpoints, GH_EP_METRICS | GH_EP_TRACEBACKS);
	assert_string_equal(w.listen, "127.0.0.1:0");
	assert_true(w.interval == 0.5);
	assert_true(w.budget == 120);
	assert_int_equal(w.mode, GH_WATCH_FORCE);
	assert_string_equal(w.outdir, "/tmp/x");
	assert_true(w.outmax == 1000);
	assert_int_equal(w.verbose, 2);
	assert_string_equal(w.webconfig, "/etc/web.yml");
	assert_int_equal(w.npids, 3);
	assert_int_equal(w.pids[0], 12);
	assert_int_equal(w.pids[2], 56);
	gh_watch_opts_free(&w);
	assert_int_equal(gh_watch_parse(&w, 1, dflt, 1, err, sizeof(err)), 0);
	assert_string_equal(w.listen, "127.0.0.1:9465");
	assert_true(w.interval == 60 && w.budget == 2);
	assert_int_equal(w.mode, GH_WATCH_ENABLED);
	assert_null(w.outdir);
	assert_null(w.webconfig);
	assert_int_equal(w.npids, 0);
	assert_int_equal(w.endpoints, -1);   /* decided by the listener */
	/* go_goroutines_leaked: every 10 minutes, 5 s, heaps up to 64 MiB */
	assert_true(w.leak_interval == 600 && w.leak_budget == 5);
	assert_true(w.leak_max_heap == 64ULL << 20);
	gh_watch_opts_free(&w);
	assert_int_equal(gh_watch_parse(&w, 5, leak, 1, err, sizeof(err)), 0);
	assert_true(w.leak_interval == 30 && w.leak_budget == 0.5);
	assert_true(w.leak_max_heap == 1ULL << 30);
	gh_watch_opts_free(&w);
	assert_int_equal(gh_watch_parse(&w, 3, noleak, 1, err, sizeof(err)),
			 0);
	assert_true(w.leak_max_heap == 0);
	gh_watch_opts_free(&w);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(gh_watch_parse(&w, 2, bad[i], 1, err,
						sizeof(err)), 2);
		assert_true(err[0] != '\0' && strchr(err, '\n') == NULL);
		gh_watch_opts_free(&w);
	}
	gh_watch_help(buf, sizeof(buf));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(strstr(buf, names[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_format_from_extension),
		cmocka_unit_test(test_all_spellings),
		cmocka_unit_test(test_sample_index_kinds),
		cmocka_unit_test(test_explicit_format_wins),
		cmocka_unit_test(test_no_stop),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_errf_wraps_its_own_message),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}

/*
 * options.c - one option table, sorted by long name, as curl's
 * tool_getparam.c keeps it: each entry names the long and short spelling,
 * whether it takes an argument, and an id; one switch does the work and
 * --help is generated from the same rows, so the two never disagree.
 * Parsing prints nothing and exits nowhere: errors come back as a status
 * and a one-line message.  getopt_long is not used because it keeps global
 * state (optind) and prints its own messages, neither of which suits a
 * parser also called from inside gdb.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goheap.h"
#include "options.h"

enum arg_kind { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

enum opt_id {
	OPT_DRY_RUN,
	OPT_EXE,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_HELP,
	OPT_OUTPUT,
	OPT_PROFILE,
	OPT_QUIET,
	OPT_SAMPLE_INDEX,
	OPT_SYSROOT,
	OPT_TOP,
	OPT_VERBOSE,
	OPT_VERSION,
};

struct opt_def {
	const char *lname;
	char letter;            /* 0 = long only */
	enum arg_kind arg;
	enum opt_id id;
	const char *argname;
	const char *help;
};

static const struct opt_def opts[] = {
	{ "dry-run", 0, ARG_NONE, OPT_DRY_RUN, NULL,
	  "with --force: print what would be written, change nothing" },
	{ "exe", 'e', ARG_REQUIRED, OPT_EXE, "PATH",
	  "executable of the target (default: from the process or core)" },
	{ "force", 0, ARG_OPTIONAL, OPT_FORCE, "RATE",
	  "enable heap profiling in a process whose rate is 0 (default 524288)" },
	{ "format", 'f', ARG_REQUIRED, OPT_FORMAT, "F",
	  "pprof | text | top | collapsed (default: from -o's extension, else top)" },
	{ "help", 'h', ARG_NONE, OPT_HELP, NULL, "show this help" },
	{ "output", 'o', ARG_REQUIRED, OPT_OUTPUT, "FILE",
	  "write the profile to FILE ('-' = stdout)" },
	{ "profile", 'p', ARG_REQUIRED, OPT_PROFILE, "K",
	  "heap (default) | allocs | block | mutex" },
	{ "quiet", 'q', ARG_NONE, OPT_QUIET, NULL, "print errors only" },
	{ "sample-index", 's', ARG_REQUIRED, OPT_SAMPLE_INDEX, "I",
	  "inuse_space | inuse_objects | alloc_space | alloc_objects;\n"
	  "                               contentions | delay (top, collapsed)" },
	{ "sysroot", 0, ARG_REQUIRED, OPT_SYSROOT, "DIR",
	  "prefix for paths recorded in a core" },
	{ "top", 'n', ARG_REQUIRED, OPT_TOP, "N", "rows of the top table (default 20)" },
	{ "verbose", 'v', ARG_NONE, OPT_VERBOSE, NULL,
	  "print timings and details to stderr" },
	{ "version", 0, ARG_NONE, OPT_VERSION, NULL, "print the version" },
};

#define GH_OPTS_LEN (sizeof(opts) / sizeof(opts[0]))

static const char *const format_names[] = { "pprof", "text", "top",
					    "collapsed" };
static const char *const profile_names[] = { "heap", "allocs", "block",
					     "mutex" };
static const char *const sample_names[] = { "alloc_objects", "alloc_space",
					    "inuse_objects", "inuse_space" };
static const char *const contention_names[] = { "contentions", "delay" };

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

int gh_cli_format_from_path(const char *path)
{
	if (path == NULL || strcmp(path, "-") == 0)
		return -1;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof") ||
	    ends_with(path, ".pb"))
		return GOHEAP_FORMAT_PPROF;
	if (ends_with(path, ".txt"))
		return GOHEAP_FORMAT_TEXT;
	if (ends_with(path, ".folded") || ends_with(path, ".collapsed"))
		return GOHEAP_FORMAT_COLLAPSED;
	return -1;
}

static int apply(gh_cli *c, const struct opt_def *d, const char *val,
		 char *err, size_t errlen)
{
	char *end;
	long long n;
	int k;

	switch (d->id) {
	case OPT_DRY_RUN:
		c->dry_run = 1;
		break;
	case OPT_EXE:
		c->exe = val;
		break;
	case OPT_FORCE:
		c->force = 1;
		if (val != NULL) {
			errno = 0;
			n = strtoll(val, &end, 10);
			if (errno != 0 || *end != '\0' || end == val || n <= 0 ||
			    n > 0x7fffffff) {
				snprintf(err, errlen,
					 "--force: RATE must be a positive "
					 "integer, not '%s'", val);
				return 2;
			}
			c->force_rate = n;
		}
		break;
	case OPT_FORMAT:
		k = lookup(format_names, 4, val);
		if (k < 0) {
			snprintf(err, errlen, "unknown format '%s' (pprof, "
				 "text, top, collapsed)", val);
			return 2;
		}
		c->format = k;
		c->format_given = 1;
		break;
	case OPT_HELP:
		c->help = 1;
		break;
	case OPT_OUTPUT:
		c->output = val;
		break;
	case OPT_PROFILE:
		k = lookup(profile_names, 4, val);
		if (k < 0) {
			snprintf(err, errlen, "unknown profile '%s' (heap, "
				 "allocs, block, mutex)", val);
			return 2;
		}
		c->profile = k;
		break;
	case OPT_QUIET:
		c->quiet = 1;
		break;
	case OPT_SAMPLE_INDEX:
		k = lookup(sample_names, 4, val);
		/* block and mutex profiles: sample 0 and 1 of theirs */
		if (k < 0)
			k = lookup(contention_names, 2, val);
		if (k < 0) {
			snprintf(err, errlen, "unknown sample index '%s' "
				 "(inuse_space, inuse_objects, alloc_space, "
				 "alloc_objects; contentions, delay)", val);
			return 2;
		}
		c->sample_index = k;
		break;
	case OPT_SYSROOT:
		c->sysroot = val;
		break;
	case OPT_TOP:
		errno = 0;
		n = strtoll(val, &end, 10);
		if (errno != 0 || *end != '\0' || end == val || n <= 0 ||
		    n > 1000000) {
			snprintf(err, errlen, "--top: N must be a positive "
				 "integer, not '%s'", val);
			return 2;
		}
		c->top_n = (int)n;
		break;
	case OPT_VERBOSE:
		c->verbose++;
		break;
	case OPT_VERSION:
		c->version = 1;
		break;
	}
	return 0;
}

static const struct opt_def *find_long(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < GH_OPTS_LEN; i++)
		if (strlen(opts[i].lname) == len &&
		    strncmp(opts[i].lname, name, len) == 0)
			return &opts[i];
	return NULL;
}

static const struct opt_def *find_short(char ch)
{
	size_t i;

	for (i = 0; i < GH_OPTS_LEN; i++)
		if (opts[i].letter == ch)
			return &opts[i];
	return NULL;
}

int gh_cli_parse(gh_cli *c, int argc, char **argv, int first, char *err,
		 size_t errlen)
{
	int i, rc, only_pos = 0;

	memset(c, 0, sizeof(*c));
	c->format = -1;
	c->profile = GOHEAP_PROFILE_HEAP;
	c->sample_index = GOHEAP_SAMPLE_DEFAULT;
	c->top_n = 20;
	c->force_rate = 524288;
	err[0] = '\0';
	for (i = first; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_def *d;
		const char *val = NULL;

		if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
			if (c->npositional == 2) {
				snprintf(err, errlen, "unexpected argument "
					 "'%s'", a);
				return 2;
			}
			c->positional[c->npositional++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			d = find_long(a + 2, len);
			if (d == NULL) {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (eq != NULL && d->arg == ARG_NONE) {
				snprintf(err, errlen, "option '--%s' takes no "
					 "argument", d->lname);
				return 2;
			}
			if (eq != NULL)
				val = eq + 1;
			else if (d->arg == ARG_REQUIRED) {
				if (i + 1 >= argc) {
					snprintf(err, errlen, "option '--%s' "
						 "needs an argument", d->lname);
					return 2;
				}
				val = argv[++i];
			}
		} else {
			d = find_short(a[1]);
			if (d == NULL) {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (d->arg == ARG_NONE && a[2] != '\0') {
				snprintf(err, errlen, "unknown option '%s'", a);
				return 2;
			}
			if (d->arg != ARG_NONE) {
				if (a[2] != '\0')
					val = a + 2;
				else if (i + 1 < argc)
					val = argv[++i];
				else {
					snprintf(err, errlen, "option '-%c' "
						 "needs an argument", a[1]);
					return 2;
				}
			}
		}
		rc = apply(c, d, val, err, errlen);
		if (rc != 0)
			return rc;
	}
	if (c->format < 0)
		c->format = gh_cli_format_from_path(c->output);
	if (c->format < 0)
		c->format = GOHEAP_FORMAT_TOP;
	return 0;
}

void gh_cli_help(char *buf, size_t len, const char *prog)
{
	size_t used = 0, i;
	int n;

#define PUT(...)                                                        \
	do {                                                            \
		n = snprintf(buf + used, len - used, __VA_ARGS__);       \
		if (n < 0 || (size_t)n >= len - used)                   \
			return;                                         \
		used += (size_t)n;                                      \
	} while (0)

	PUT("Usage: %s [OPTIONS] PID\n"
	    "       %s [OPTIONS] CORE [EXECUTABLE]\n"
	    "Write the heap profile of a running Go process or core dump, "
	    "read from outside it.\n\n", prog, prog);
	for (i = 0; i < GH_OPTS_LEN; i++) {
		char left[64];
		const struct opt_def *d = &opts[i];
		const char *arg = d->argname ? d->argname : "";

		if (d->arg == ARG_OPTIONAL)
			snprintf(left, sizeof(left), "%s%c%s--%s[=%s]",
				 d->letter ? "-" : "   ",
				 d->letter ? d->letter : ' ',
				 d->letter ? ", " : " ", d->lname, arg);
		else
			snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
				 d->letter ? "-" : "   ",
				 d->letter ? d->letter : ' ',
				 d->letter ? ", " : " ", d->lname,
				 d->arg ? " " : "", arg);
		PUT("  %-28s %s\n", left, d->help);
	}
	PUT("\nExit status: 0 ok, 1 error, 2 usage, 3 memory profiling "
	    "disabled in the target (see --force).\n");
#undef PUT
}

/*
 * options.c - one option table, sorted by long name, as curl's
 * tool_getparam.c keeps it: each entry names the long and short spelling,
 * whether it takes an argument, and an id; one switch does the work and
 * --help is generated from the same rows, so the two never disagree.
 * Parsing prints nothing and exits nowhere: errors come back as a status
 * and a one-line message.  getopt_long is not used because it keeps global
 * state (optind) and prints its own messages, neither of which suits a
 * parser also called from inside gdb.  The engine (optparse.h) also
 * parses `go-heap watch`'s table, which lives with watch
 * (src/watch/watch_options.c): libgoheap does not carry it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goheap.h"
#include "options.h"
#include "optparse.h"

enum opt_id {
	OPT_DRY_RUN,
	OPT_EXE,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_HELP,
	OPT_NO_STOP,
	OPT_OUTPUT,
	OPT_PATH,
	OPT_PROFILE,
	OPT_QUIET,
	OPT_SAMPLE_INDEX,
	OPT_SYSROOT,
	OPT_TOP,
	OPT_VERBOSE,
	OPT_VERSION,
	OPT_SECONDS,
	OPT_COUNT,
	OPT_INTERVAL,
};


static const struct opt_def opts[] = {
	{ "count", 0, ARG_REQUIRED, OPT_COUNT, "K",
	  "-p types|retained of a live process: K snapshots (with\n"
	  "--interval), the growth between the first and the last; a row\n"
	  "that grew in every interval is marked a leak suspect",
	  NULL, 1 },
	{ "dry-run", 0, ARG_NONE, OPT_DRY_RUN, NULL,
	  "with --force: print what would be written, change nothing",
	  NULL, 0 },
	{ "exe", 'e', ARG_REQUIRED, OPT_EXE, "PATH",
	  "executable of the target (default: from the process or core)",
	  NULL, 1 },
	{ "force", 0, ARG_OPTIONAL, OPT_FORCE, "RATE",
	  "enable heap profiling in a process whose rate is 0 (default 524288)",
	  NULL, 0 },
	{ "format", 'f', ARG_REQUIRED, OPT_FORMAT, "F",
	  "pprof | text | top | collapsed (default: from -o's extension, else\n"
	  "top); goroutines also: traceback (debug=2), list (one line each);\n"
	  "memstats: text, json (as Go's json.Marshal of runtime.MemStats)",
	  "pprof|text|top|collapsed|traceback|list|json", 0 },
	{ "help", 'h', ARG_NONE, OPT_HELP, NULL, "show this help",
	  NULL, 0 },
	{ "interval", 0, ARG_REQUIRED, OPT_INTERVAL, "N",
	  "seconds between --count's snapshots",
	  NULL, 1 },
	{ "no-stop", 0, ARG_NONE, OPT_NO_STOP, NULL,
	  "goroutine, types or memstats of a live process: do not stop it\n"
	  "for a consistent snapshot (best-effort, marked in the output)",
	  NULL, 0 },
	{ "output", 'o', ARG_REQUIRED, OPT_OUTPUT, "FILE",
	  "write the profile to FILE ('-' = stdout)",
	  NULL, 0 },
	{ "path", 0, ARG_REQUIRED, OPT_PATH, "ADDR|TYPE",
	  "-p retained: a shortest path from the roots to the object at\n"
	  "ADDR (0x...), or to the object of TYPE that retains the most",
	  NULL, 0 },
	{ "profile", 'p', ARG_REQUIRED, OPT_PROFILE, "K",
	  "heap (default) | allocs | block | mutex | goroutine | types\n"
	  "(every heap object by type: -f top, text, collapsed, objects)\n"
	  "| memstats (runtime.MemStats as heap?debug=1's trailer)\n"
	  "| retained (who holds the heap: reachability, retained size)\n"
	  "| goroutineleak (goroutines blocked forever, by the runtime's\n"
	  "own algorithm on the object graph: -f text, traceback, pprof)",
	  "heap|allocs|block|mutex|goroutine|types|memstats|retained|"
	  "goroutineleak", 0 },
	{ "quiet", 'q', ARG_NONE, OPT_QUIET, NULL, "print errors only",
	  NULL, 0 },
	{ "sample-index", 's', ARG_REQUIRED, OPT_SAMPLE_INDEX, "I",
	  "inuse_space | inuse_objects | alloc_space | alloc_objects;\n"
	  "contentions | delay (top, collapsed)",
	  "inuse_space|inuse_objects|alloc_space|alloc_objects|contentions|delay", 0 },
	{ "seconds", 0, ARG_REQUIRED, OPT_SECONDS, "N",
	  "-p types|retained of a live process: two snapshots N seconds\n"
	  "apart, the growth per type / per holder (net/http/pprof's\n"
	  "?seconds=N); with --count K, K snapshots over N seconds",
	  NULL, 1 },
	{ "sysroot", 0, ARG_REQUIRED, OPT_SYSROOT, "DIR",
	  "prefix for paths recorded in a core",
	  NULL, 1 },
	{ "top", 'n', ARG_REQUIRED, OPT_TOP, "N", "rows of the top table (default 20)",
	  NULL, 0 },
	{ "verbose", 'v', ARG_NONE, OPT_VERBOSE, NULL,
	  "print timings and details to stderr",
	  NULL, 0 },
	{ "version", 0, ARG_NONE, OPT_VERSION, NULL, "print the version",
	  NULL, 0 },
};

#define GH_OPTS_LEN (sizeof(opts) / sizeof(opts[0]))


static const char *const format_names[] = { "pprof", "text", "top",
					    "collapsed", "traceback", "list",
					    "objects", "json" };
static const char *const profile_names[] = { "heap", "allocs", "block",
					     "mutex", "goroutine", "types",
					     "memstats", "retained",
					     "goroutineleak" };
static const char *const sample_names[] = { "alloc_objects", "alloc_space",
					    "inuse_objects", "inuse_space" };
static const char *const contention_names[] = { "contentions", "delay" };

int gh_opt_lookup(const char *const *names, size_t n, const char *s)
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

static int cli_apply(void *out, const struct opt_def *d, const char *val,
		     char *err, size_t errlen)
{
	gh_cli *c = out;
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
		k = gh_opt_lookup(format_names, sizeof(format_names) /
			   sizeof(format_names[0]), val);
		if (k < 0) {
			snprintf(err, errlen, "unknown format '%s' (pprof, "
				 "text, top, collapsed, traceback, list, objects, "
				 "json)",
				 val);
			return 2;
		}
		c->format = k;
		c->format_given = 1;
		break;
	case OPT_HELP:
		c->help = 1;
		break;
	case OPT_NO_STOP:
		c->no_stop = 1;
		break;
	case OPT_OUTPUT:
		c->output = val;
		break;
	case OPT_PATH:
		c->path = val;
		break;
	case OPT_PROFILE:
		k = gh_opt_lookup(profile_names, sizeof(profile_names) /
			   sizeof(profile_names[0]), val);
		if (k < 0) {
			snprintf(err, errlen, "unknown profile '%s' (heap, "
				 "allocs, block, mutex, goroutine, types, "
				 "memstats, retained, goroutineleak)", val);
			return 2;
		}
		c->profile = k;
		break;
	case OPT_QUIET:
		c->quiet = 1;
		break;
	case OPT_SAMPLE_INDEX:
		k = gh_opt_lookup(sample_names, 4, val);
		/* block and mutex profiles: indexes of their own */
		if (k < 0 && (k = gh_opt_lookup(contention_names, 2, val)) >= 0)
			k += GOHEAP_SAMPLE_CONTENTIONS;
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
	case OPT_SECONDS:
	case OPT_INTERVAL: {
		double x;

		errno = 0;
		x = strtod(val, &end);
		if (errno != 0 || *end != '\0' || end == val || !(x > 0) ||
		    x > 86400) {
			snprintf(err, errlen, "--%s: N must be a number of "
				 "seconds above 0 and at most 86400, not '%s'",
				 d->lname, val);
			return 2;
		}
		if (d->id == OPT_SECONDS)
			c->seconds = x;
		else
			c->interval = x;
		break;
	}
	case OPT_COUNT:
		errno = 0;
		n = strtoll(val, &end, 10);
		if (errno != 0 || *end != '\0' || end == val || n < 2 ||
		    n > 1000) {
			snprintf(err, errlen, "--count: K must be an integer "
				 "from 2 to 1000, not '%s'", val);
			return 2;
		}
		c->count = (int)n;
		break;
	default:
		break;
	}
	return 0;
}


static const struct opt_def *find_long(const parser *p, const char *name,
				       size_t len)
{
	size_t i;

	for (i = 0; i < p->ntab; i++)
		if (strlen(p->tab[i].lname) == len &&
		    strncmp(p->tab[i].lname, name, len) == 0)
			return &p->tab[i];
	return NULL;
}

static const struct opt_def *find_short(const parser *p, char ch)
{
	size_t i;

	for (i = 0; i < p->ntab; i++)
		if (p->tab[i].letter == ch)
			return &p->tab[i];
	return NULL;
}

/*
 * The one parsing loop: --long, --long=VALUE, --long VALUE, -x, -xVALUE,
 * -x VALUE, "--" ends the options, "-" is an operand.  0, or 2 with a
 * one-line message in err.
 */
int gh_opt_parse(const parser *p, int argc, char **argv, int first,
		 char *err, size_t errlen)
{
	int i, rc, only_pos = 0;

	err[0] = '\0';
	for (i = first; i < argc; i++) {
		const char *a = argv[i];
		const struct opt_def *d;
		const char *val = NULL;

		if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
			rc = p->operand(p->out, a, err, errlen);
			if (rc != 0)
				return rc;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			d = find_long(p, a + 2, len);
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
			d = find_short(p, a[1]);
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
		rc = p->apply(p->out, d, val, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int cli_operand(void *out, const char *arg, char *err, size_t errlen)
{
	gh_cli *c = out;

	if (c->npositional == 2) {
		snprintf(err, errlen, "unexpected argument '%s'", arg);
		return 2;
	}
	c->positional[c->npositional++] = arg;
	return 0;
}

/* --seconds, --count, --interval: growth over snapshots; normalized to
 * count snapshots interval seconds apart (count 0: none asked for). */
static int growth_check(gh_cli *c, char *err, size_t errlen)
{
	if (c->seconds == 0 && c->count == 0 && c->interval == 0)
		return 0;
	if (c->profile != GOHEAP_PROFILE_TYPES &&
	    c->profile != GOHEAP_PROFILE_RETAINED) {
		snprintf(err, errlen, "--seconds, --count and --interval are "
			 "for -p types and -p retained (heap and allocs "
			 "deltas: go-heap watch)");
		return 2;
	}
	if (c->seconds > 0 && c->interval > 0) {
		snprintf(err, errlen, "--seconds and --interval: give one "
			 "(--seconds N is --count 2 --interval N)");
		return 2;
	}
	if (c->count > 0 && c->seconds == 0 && c->interval == 0) {
		snprintf(err, errlen, "--count needs --interval N (or "
			 "--seconds N, the whole window)");
		return 2;
	}
	if (c->interval > 0 && c->count == 0) {
		snprintf(err, errlen, "--interval needs --count K");
		return 2;
	}
	if (c->path != NULL || c->format == GOHEAP_FORMAT_OBJECTS ||
	    c->format > GOHEAP_FORMAT_COLLAPSED) {
		snprintf(err, errlen, "growth is written as top, text, "
			 "collapsed or pprof (no --path, no objects)");
		return 2;
	}
	if (c->count == 0)
		c->count = 2;
	if (c->seconds > 0)
		c->interval = c->seconds / (c->count - 1);
	return 0;
}

int gh_cli_parse(gh_cli *c, int argc, char **argv, int first, char *err,
		 size_t errlen)
{
	parser p = { opts, GH_OPTS_LEN, cli_apply, cli_operand, c };
	int rc;

	memset(c, 0, sizeof(*c));
	c->format = -1;
	c->profile = GOHEAP_PROFILE_HEAP;
	c->sample_index = GOHEAP_SAMPLE_DEFAULT;
	c->top_n = 20;
	c->force_rate = GOHEAP_DEFAULT_MEM_PROFILE_RATE;
	rc = gh_opt_parse(&p, argc, argv, first, err, errlen);
	if (rc != 0)
		return rc;
	/* A sample index belongs to its kind of profile: -p block -s delay,
	 * but -p heap -s delay is a mistake, not alloc_space. */
	if (c->sample_index != GOHEAP_SAMPLE_DEFAULT &&
	    c->profile == GOHEAP_PROFILE_GOROUTINE) {
		snprintf(err, errlen, "--sample-index: a goroutine profile has "
			 "one sample type (goroutine count)");
		return 2;
	}
	if (c->sample_index != GOHEAP_SAMPLE_DEFAULT) {
		int blockish = c->profile == GOHEAP_PROFILE_BLOCK ||
			       c->profile == GOHEAP_PROFILE_MUTEX;
		int is_block = c->sample_index >= GOHEAP_SAMPLE_CONTENTIONS;

		if (blockish != is_block) {
			snprintf(err, errlen, "--sample-index %s is for %s "
				 "profiles, not %s (%s)", is_block ?
				 contention_names[c->sample_index -
						  GOHEAP_SAMPLE_CONTENTIONS] :
				 sample_names[c->sample_index],
				 is_block ? "block and mutex" : "heap and allocs",
				 profile_names[c->profile], blockish ?
				 "contentions, delay" : "inuse_space, "
				 "inuse_objects, alloc_space, alloc_objects");
			return 2;
		}
	}
	if (c->format < 0)
		c->format = gh_cli_format_from_path(c->output);
	if (c->format < 0)
		c->format = GOHEAP_FORMAT_TOP;
	return growth_check(c, err, errlen);
}

/* The left column of an option's help line: "-x, --long ARG". */
static void help_left(char *left, size_t len, const struct opt_def *d)
{
	const char *arg = d->argname ? d->argname : "";

	if (d->arg == ARG_OPTIONAL)
		snprintf(left, len, "%s%c%s--%s[=%s]", d->letter ? "-" : "   ",
			 d->letter ? d->letter : ' ', d->letter ? ", " : " ",
			 d->lname, arg);
	else
		snprintf(left, len, "%s%c%s--%s%s%s", d->letter ? "-" : "   ",
			 d->letter ? d->letter : ' ', d->letter ? ", " : " ",
			 d->lname, d->arg ? " " : "", arg);
}

/*
 * One entry per option of tab: "  -x, --long ARG   help", the help column
 * as wide as the widest left column needs, and each "\n" in a help text
 * continued in that column.
 */
void gh_opt_help_rows(char *buf, size_t len, const struct opt_def *tab,
		      size_t ntab)
{
	size_t used = 0, i, width = 0;
	const char *h;
	char left[64];

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < ntab; i++) {
		help_left(left, sizeof(left), &tab[i]);
		if (strlen(left) > width)
			width = strlen(left);
	}
	for (i = 0; i < ntab; i++) {
		help_left(left, sizeof(left), &tab[i]);
		used += (size_t)snprintf(buf + used, len - used, "  %-*s  ",
					 (int)width, left);
		for (h = tab[i].help; *h != '\0' && used + 1 < len; h++) {
			buf[used++] = *h;
			if (*h == '\n')
				used += (size_t)snprintf(buf + used, len - used,
							 "%*s", (int)width + 4,
							 "");
			if (used >= len)
				used = len - 1;
		}
		if (used + 1 < len)
			buf[used++] = '\n';
		buf[used] = '\0';
		if (used + 1 >= len)
			return;
	}
}

int gh_cli_front_options(char *buf, size_t len)
{
	size_t used = 0, i;
	const char *h;
	int n;

	if (len == 0)
		return GOHEAP_EINVAL;
	buf[0] = '\0';
	for (i = 0; i < GH_OPTS_LEN; i++) {
		const struct opt_def *o = &opts[i];

		if (o->cli_only)
			continue;
		n = snprintf(buf + used, len - used, "%s\t%c\t%s\t%s\t",
			     o->lname, o->letter ? o->letter : '-',
			     o->argname ? o->argname : "",
			     o->values ? o->values : "");
		if (n < 0 || (size_t)n >= len - used)
			return GOHEAP_EINVAL;
		used += (size_t)n;
		for (h = o->help; *h != '\0'; h++) {
			if (used + 2 >= len)
				return GOHEAP_EINVAL;
			buf[used++] = *h == '\n' ? ' ' : *h;
		}
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	return 0;
}

void gh_cli_help(char *buf, size_t len, const char *prog, int standalone)
{
	size_t used = 0;
	int n;

#define PUT(...)                                                        \
	do {                                                            \
		n = snprintf(buf + used, len - used, __VA_ARGS__);       \
		if (n < 0 || (size_t)n >= len - used)                   \
			return;                                         \
		used += (size_t)n;                                      \
	} while (0)

	PUT("Usage: %s [OPTIONS] PID\n"
	    "       %s [OPTIONS] CORE [EXECUTABLE]\n", prog, prog);
	if (standalone)
		PUT("       %s watch [OPTIONS] [PID...]   (see %s watch "
		    "--help)\n", prog, prog);
	PUT("Write the heap profile of a running Go process or core dump, "
	    "read from outside it.\n\n");
#undef PUT
	gh_opt_help_rows(buf + used, len - used, opts, GH_OPTS_LEN);
	used += strlen(buf + used);
	if (used < len)
		snprintf(buf + used, len - used, "\nExit status: 0 ok, 1 error, "
			 "2 usage, 3 memory profiling disabled in the target "
			 "(see --force).\n");
}

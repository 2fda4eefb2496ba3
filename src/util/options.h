/*
 * options.h - the command line, parsed from one option table.
 *
 * Shared by the CLI (src/cli/main.c) and the gdb command (through the
 * library's goheap_command and goheap_command_options, src/lib/command.c),
 * so both accept exactly the same options; `go-heap watch` has a table of
 * its own, parsed by the same engine.
 */
#ifndef GH_OPTIONS_H
#define GH_OPTIONS_H

#include <stddef.h>

typedef struct gh_cli {
	const char *output;     /* -o; NULL = stdout */
	int format;             /* enum goheap_format, -1 = from -o */
	int format_given;       /* -f/--format was on the command line */
	int profile;            /* enum goheap_profile_kind */
	int sample_index;       /* enum goheap_sample_index */
	int top_n;
	const char *exe;
	const char *sysroot;
	int force;              /* --force given */
	long long force_rate;   /* its RATE (default 524288) */
	int dry_run;
	int no_stop;            /* --no-stop: goroutine snapshot unstopped */
	const char *path;       /* --path (-p retained) */
	/* growth (-p types|retained of a live process): --seconds N, or
	 * --count K --interval N; count 0: one snapshot */
	double seconds, interval;
	int count;
	int quiet, verbose;
	int help, version;
	const char *positional[2]; /* PID | CORE [EXE] */
	int npositional;
} gh_cli;

/*
 * Parse argv[first..argc).  Returns 0, or 2 (usage error) with a one-line
 * message in err.  Prints nothing.  Strings point into argv.
 */
int gh_cli_parse(gh_cli *out, int argc, char **argv, int first, char *err,
		 size_t errlen);

/*
 * Write the --help text (generated from the option table) into buf;
 * standalone: the CLI's (it also names `watch`), else the gdb command's.
 */
void gh_cli_help(char *buf, size_t len, const char *prog, int standalone);

/*
 * The options a front end holding a session (the gdb command) accepts, one
 * line each: "long<TAB>letter or -<TAB>ARGNAME<TAB>word|word<TAB>help\n"
 * (goheap_command_options).  0, or GOHEAP_EINVAL when buf is too small.
 */
int gh_cli_front_options(char *buf, size_t len);

/* Format from an output file name's extension, -1 when none applies. */
int gh_cli_format_from_path(const char *path);

#endif

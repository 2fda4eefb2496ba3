/*
 * options.h - the command line, parsed from one option table.
 *
 * Shared by the CLI (main.c) and the gdb command (through the library's
 * goheap_cli_* entry points), so both accept exactly the same options.
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

/* Write the --help text (generated from the option table) into buf. */
void gh_cli_help(char *buf, size_t len, const char *prog);

/* Format from an output file name's extension, -1 when none applies. */
int gh_cli_format_from_path(const char *path);

#endif

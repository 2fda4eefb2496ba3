/*
 * optparse.h - the option engine of options.c, for the tables that live
 * elsewhere (go-heap watch's: src/watch/watch_options.c): a table of rows,
 * sorted by long name, parsed by one loop and printed by one --help.
 */
#ifndef GH_OPTPARSE_H
#define GH_OPTPARSE_H

#include <stddef.h>

enum arg_kind { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

struct opt_def {
	const char *lname;
	char letter;            /* 0 = long only */
	enum arg_kind arg;
	int id;                 /* the table's own enum */
	const char *argname;
	const char *help;
	const char *values;     /* "a|b|c": the accepted words (completion), or NULL */
	int cli_only;           /* 1: names the target or its files: not for a
	                           front end that already holds a session (gdb) */
};

/* A parse: the table, and what its options and operands do. */
typedef struct parser {
	const struct opt_def *tab;
	size_t ntab;
	int (*apply)(void *out, const struct opt_def *d, const char *val,
		     char *err, size_t errlen);
	int (*operand)(void *out, const char *arg, char *err, size_t errlen);
	void *out;
} parser;

/*
 * The one parsing loop: --long, --long=VALUE, --long VALUE, -x, -xVALUE,
 * -x VALUE, "--" ends the options, "-" is an operand.  0, or 2 with a
 * one-line message in err.
 */
int gh_opt_parse(const parser *p, int argc, char **argv, int first,
		 char *err, size_t errlen);

/* The index of s in names[0..n), -1 when absent. */
int gh_opt_lookup(const char *const *names, size_t n, const char *s);

/* --help's rows of tab: "  -x, --long ARG   help", aligned. */
void gh_opt_help_rows(char *buf, size_t len, const struct opt_def *tab,
		      size_t ntab);

#endif

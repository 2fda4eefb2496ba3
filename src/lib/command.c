/*
 * command.c - the front-end entry points of the library: goheap_command and
 * goheap_command_options, for front ends that already hold a session (the
 * gdb command, gdb/go_heap.py).
 *
 * They parse with the CLI's own table (options.c), so a front end accepts
 * exactly the CLI's options, and it generates its help and its completion
 * from goheap_command_options rather than from a list of its own.  Like
 * the rest of the library they return 0 or a GOHEAP_E* code, print
 * nothing and write no file: the front end shows the bytes or writes them
 * where -o says, and maps codes to its own conventions.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gh.h"
#include "options.h"

GOHEAP_EXTERN int goheap_command_options(char *buf, size_t len)
{
	if (buf == NULL)
		return GOHEAP_EINVAL;
	return gh_cli_front_options(buf, len);
}

static void say(goheap_command_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(goheap_command_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

/* Append one "warning: ..." line to r->warnings. */
static void warn(goheap_command_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(goheap_command_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->warnings);
	va_list ap;

	if (n + 16 >= sizeof(r->warnings))
		return;
	n += (size_t)snprintf(r->warnings + n, sizeof(r->warnings) - n,
			      "%swarning: ", n > 0 ? "\n" : "");
	if (n >= sizeof(r->warnings))
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings + n, sizeof(r->warnings) - n, fmt, ap);
	va_end(ap);
}

/* Each line of the library's warning text ('\n' between lines, "" for
 * none: goheap.h) as one "warning: ..." line of r->warnings. */
static void warn_lines(goheap_command_result *r, const char *text)
{
	size_t n;

	while (*text != '\0') {
		n = strcspn(text, "\n");
		warn(r, "%.*s", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* The --force step; 1 when the command is complete after it. */
static int run_force(goheap_session *s, const gh_cli *c,
		     goheap_command_result *r, int *rc)
{
	goheap_force_result fr = GOHEAP_FORCE_RESULT_INIT;

	/* The front end's target is stopped by its debugger, whose memory
	 * source has no stop slot: goheap_force checks the address (and the
	 * stacks, when the source lists them) and writes; a core, which has
	 * no write slot, is refused. */
	*rc = goheap_force(s, c->force_rate,
			   c->dry_run ? GOHEAP_FORCE_DRY_RUN : 0, &fr);
	if (*rc != 0) {
		say(r, "--force: %s", goheap_errmsg(s));
		return 1;
	}
	say(r, "%s", fr.message);
	/* A profile too only when one was asked for (-o or -f). */
	return !gh_force_wants_profile(c->output, c->format_given);
}

GOHEAP_EXTERN int goheap_command(goheap_session *s, int argc, char **argv,
				 goheap_command_result *r)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_write_stats ws = GOHEAP_WRITE_STATS_INIT;
	goheap_profile_stats st = GOHEAP_PROFILE_STATS_INIT;
	char err[512];
	gh_cli c;
	int rc;

	if (!GH_OUT_OK(r))
		return GOHEAP_EINVAL;
	GH_OUT_CLEAR(r);
	if (s == NULL || (argc > 0 && argv == NULL)) {
		say(r, "no session");
		return GOHEAP_EINVAL;
	}
	if (gh_cli_parse(&c, argc, argv, 0, err, sizeof(err)) != 0) {
		say(r, "%s", err);
		return GOHEAP_EINVAL;
	}
	r->quiet = c.quiet;
	r->verbose = c.verbose;
	if (c.help || c.version) {
		say(r, "--help and --version are the front end's to answer");
		return GOHEAP_EINVAL;
	}
	if (c.npositional > 0) {
		say(r, "unexpected argument '%s': the target is the current "
		    "inferior", c.positional[0]);
		return GOHEAP_EINVAL;
	}
	if (c.exe != NULL || c.sysroot != NULL) {
		say(r, "--exe and --sysroot do not apply here: the executable "
		    "is the current program's");
		return GOHEAP_EINVAL;
	}
	if (c.count > 0) {
		say(r, "--seconds and --count need a running process: the "
		    "debugger's inferior is stopped (use go-heap PID)");
		return GOHEAP_EINVAL;
	}
	if (c.dry_run && !c.force) {
		say(r, "--dry-run applies only to --force");
		return GOHEAP_EINVAL;
	}
	if (c.force && run_force(s, &c, r, &rc))
		return rc;
	wo.format = c.format;
	wo.sample_index = c.sample_index;
	wo.top_n = c.top_n;
	wo.path = c.path;
	wo.stats = &ws;
	/* Collected and written in one call (goheap.h): the walker reads
	 * through the debugger on this thread, a heap proto is encoded on
	 * a second one. */
	rc = goheap_profile_collect_write(s, c.profile, &wo, &r->out,
					  &r->out_len, &st);
	if (rc == GOHEAP_EDISABLED) {
		say(r, "%s; enable it with --force", goheap_errmsg(s));
		return rc;
	}
	if (rc != 0) {
		say(r, "%s", goheap_errmsg(s));
		return rc;
	}
	/* The skipped buckets always, the first one named (a debugger's
	 * user is there to look at it); the estimates unless -q. */
	warn_lines(r, st.skipped_warning);
	if (!c.quiet)
		warn_lines(r, st.estimate_warnings);
	warn_lines(r, ws.suspect_warning);
	r->format = c.format;
	if (c.output != NULL && strcmp(c.output, "-") != 0)
		r->output = c.output;
	return 0;
}

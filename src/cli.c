/*
 * cli.c - goheap_command: the CLI's option handling for front ends that
 * already hold a session (the gdb command).  It parses with the same table
 * as the go-heap binary (options.c), so "the same options as the CLI"
 * stays true by construction rather than by keeping two lists in step.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gh.h"
#include "options.h"

/* Was a profile asked for explicitly (-o or -f)?  With --force only then. */
static int output_requested(const gh_cli *c)
{
	return c->output != NULL || c->format_given;
}

GOHEAP_EXTERN int goheap_command(goheap_session *s, int argc, char **argv,
				 unsigned char **out, size_t *out_len,
				 char *msg, size_t msglen)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *p = NULL;
	unsigned char *buf = NULL;
	size_t len = 0;
	goheap_force_result fr;
	char fline[160] = "";
	gh_cli c;
	FILE *f = NULL;
	int rc, status = 1;

	*out = NULL;
	*out_len = 0;
	msg[0] = '\0';
	if (gh_cli_parse(&c, argc, argv, 0, msg, msglen) != 0)
		return 2;
	if (c.help) {
		gh_cli_help(msg, msglen, "go-heap", 0);
		return 2;
	}
	if (c.npositional > 0) {
		snprintf(msg, msglen, "unexpected argument '%s': the target "
			 "is the current inferior", c.positional[0]);
		return 2;
	}
	if (c.exe != NULL || c.sysroot != NULL) {
		snprintf(msg, msglen, "--exe and --sysroot do not apply here: "
			 "the executable is the current program's");
		return 2;
	}
	if (c.force) {
		/*
		 * The inferior is stopped by gdb, and gdb's memory source has
		 * no stop slot, so goheap_force checks the address and writes
		 * directly; on a core (no write slot) it refuses.
		 */
		rc = goheap_force(s, c.force_rate,
				  c.dry_run ? GOHEAP_FORCE_DRY_RUN : 0, &fr);
		if (rc != 0) {
			snprintf(msg, msglen, "--force: %s", goheap_errmsg(s));
			return 1;
		}
		if (fr.old_rate != 0)
			snprintf(fline, sizeof(fline), "runtime.MemProfileRate "
				 "is already %lld: nothing changed",
				 (long long)fr.old_rate);
		else if (c.dry_run)
			snprintf(fline, sizeof(fline), "dry run: would write "
				 "%lld to runtime.MemProfileRate at 0x%llx "
				 "(now 0)", (long long)fr.new_rate,
				 (unsigned long long)fr.address);
		else
			snprintf(fline, sizeof(fline), "runtime.MemProfileRate "
				 "0 -> %lld at 0x%llx: heap profiling enabled",
				 (long long)fr.new_rate,
				 (unsigned long long)fr.address);
		if (!output_requested(&c)) {
			snprintf(msg, msglen, "%s", fline);
			return 0;
		}
	} else if (c.dry_run) {
		snprintf(msg, msglen, "--dry-run applies only to --force");
		return 2;
	}
	rc = goheap_profile_collect(&p, s, c.profile);
	if (rc == GOHEAP_EDISABLED) {
		snprintf(msg, msglen, "memory profiling is disabled in the "
			 "target (runtime.MemProfileRate is 0 and nothing was "
			 "recorded); enable it with --force");
		status = 3;
		goto done;
	}
	if (rc != 0) {
		snprintf(msg, msglen, "%s", goheap_errmsg(s));
		goto done;
	}
	wo.format = c.format;
	wo.sample_index = c.sample_index;
	wo.top_n = c.top_n;
	rc = goheap_profile_write(s, p, &wo, &buf, &len);
	if (rc != 0) {
		snprintf(msg, msglen, "%s", goheap_errmsg(s));
		goto done;
	}
	if (c.output != NULL && strcmp(c.output, "-") != 0) {
		f = fopen(c.output, "wb");
		if (f == NULL || fwrite(buf, 1, len, f) != len) {
			snprintf(msg, msglen, "writing %s: %s", c.output,
				 strerror(errno));
			goto done;
		}
		if (fclose(f) != 0) {
			f = NULL;
			snprintf(msg, msglen, "writing %s: %s", c.output,
				 strerror(errno));
			goto done;
		}
		f = NULL;
		snprintf(msg, msglen, "wrote %zu bytes to %s", len, c.output);
	} else {
		*out = buf;
		*out_len = len;
		buf = NULL;
	}
	status = 0;
	if (fline[0] != '\0') {
		char rest[256];

		snprintf(rest, sizeof(rest), "%s", msg);
		snprintf(msg, msglen, "%s%s%s", fline, rest[0] ? "; " : "",
			 rest);
	}
done:
	if (f != NULL)
		fclose(f);
	free(buf);
	goheap_profile_free(p);
	return status;
}

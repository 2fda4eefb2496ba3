/*
 * tests/api-goroutine.c - the public API's goheap_options.no_traceback
 * against a live Go program (tests/run-goroutine.sh):
 *
 *   api-goroutine PID
 *
 * Collects the goroutine profile with no_traceback = 1: text must be
 * written, traceback and list refused with GOHEAP_EINVAL and a message
 * naming the option; then with no_traceback = 0 the traceback is written.
 * Prints one line per check ("ok: ..." or "FAIL: ..."); exit 0 when all
 * hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goheap.h"

static int failed;

static void check(int cond, const char *what, const char *detail)
{
	printf("%s: %s%s%s\n", cond ? "ok" : "FAIL", what,
	       detail ? ": " : "", detail ? detail : "");
	failed |= !cond;
}

static int write_fmt(goheap_session *s, const goheap_profile *p, int format,
		     size_t *len)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	unsigned char *buf = NULL;
	int rc;

	wo.format = format;
	*len = 0;
	rc = goheap_profile_write(s, p, &wo, &buf, len);
	goheap_free(buf);
	return rc;
}

static void run(int pid, int no_tb)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_session *s = NULL;
	goheap_profile *p = NULL;
	size_t len;
	int rc;

	o.no_stop = 1;           /* the program stands still */
	o.no_traceback = no_tb;
	rc = goheap_open_pid(&s, pid, &o);
	check(rc == 0, "open", rc ? goheap_errmsg(s) : NULL);
	if (rc != 0)
		goto out;
	rc = goheap_profile_collect(&p, s, GOHEAP_PROFILE_GOROUTINE);
	check(rc == 0, "collect", rc ? goheap_errmsg(s) : NULL);
	if (rc != 0)
		goto out;
	rc = write_fmt(s, p, GOHEAP_FORMAT_TEXT, &len);
	check(rc == 0 && len > 0, "text written", rc ? goheap_errmsg(s) : NULL);
	rc = write_fmt(s, p, GOHEAP_FORMAT_TRACEBACK, &len);
	if (no_tb) {
		check(rc == GOHEAP_EINVAL &&
		      strstr(goheap_errmsg(s), "no_traceback") != NULL,
		      "no_traceback: traceback refused", goheap_errmsg(s));
		rc = write_fmt(s, p, GOHEAP_FORMAT_LIST, &len);
		check(rc == GOHEAP_EINVAL, "no_traceback: list refused",
		      goheap_errmsg(s));
	} else {
		check(rc == 0 && len > 0, "traceback written",
		      rc ? goheap_errmsg(s) : NULL);
	}
out:
	goheap_profile_free(p);
	goheap_close(s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: api-goroutine PID\n");
		return 2;
	}
	run(atoi(argv[1]), 1);
	run(atoi(argv[1]), 0);
	return failed ? 1 : 0;
}

/*
 * main.c - the go-heap command: parse, open, collect, write, map errors to
 * exit codes (eu-stack's shape).  All the work is in libgoheap; this file
 * only talks to the user: one line on stderr per failure, and the exit
 * codes of the contract: 0 ok, 1 error, 2 usage, 3 memory profiling
 * disabled in the target.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gh.h"
#include "options.h"
#include "watch.h"

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_DISABLED = 3 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A PID is all digits and names a process; anything else is a core. */
static int parse_pid(const char *s)
{
	char path[64];
	long v;
	char *end;

	if (s[0] == '\0' || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || v <= 0 || v > 0x7fffffff)
		return -1;
	snprintf(path, sizeof(path), "%s", s);
	/* A file of that name in the current directory is a core only if no
	 * such process exists. */
	if (access(path, F_OK) == 0) {
		snprintf(path, sizeof(path), "/proc/%ld", v);
		if (access(path, F_OK) != 0)
			return -1;
	}
	return (int)v;
}

/*
 * --force: enable profiling, then one line saying what happened (on
 * stdout when it is the only output).  SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * are held while goheap_force runs, so that their default action cannot
 * end go-heap while the target is stopped: they are delivered as soon as
 * the target has been resumed.  (SIGKILL cannot be held; the kernel then
 * detaches every thread itself, see src/lib/mem/ptrace.c.)
 */
static int run_force(goheap_session *s, const gh_cli *c, const char *target,
		     FILE *msg)
{
	goheap_force_result r = GOHEAP_FORCE_RESULT_INIT;
	sigset_t hold, old;
	double t0, t1;
	int rc;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	sigprocmask(SIG_BLOCK, &hold, &old);
	t0 = now();
	rc = goheap_force(s, c->force_rate,
			  c->dry_run ? GOHEAP_FORCE_DRY_RUN : 0, &r);
	t1 = now();
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* For bench/force-bench.sh: which of the target's gaps is ours. */
	if (c->verbose > 1)
		fprintf(stderr, "go-heap: goheap_force ran from %.0f to %.0f ns "
			"(CLOCK_MONOTONIC)\n", t0 * 1e9, t1 * 1e9);
	if (rc != 0) {
		fprintf(stderr, "go-heap: %s: --force: %s\n", target,
			goheap_errmsg(s));
		return EXIT_ERR;
	}
	if (c->quiet)
		return EXIT_OK;
	fprintf(msg, "go-heap: %s: %s\n", target, r.message);
	if (c->verbose && r.threads > 0)
		fprintf(stderr, "go-heap: stopped %d threads for %.3f ms "
			"(longest stop), %d %s\n", r.threads,
			r.stop_seconds * 1e3, r.retries,
			r.retries == 1 ? "retry" : "retries");
	/* For bench/force-bench.sh: the gap that overlaps the stop. */
	if (c->verbose > 1 && r.threads > 0)
		fprintf(stderr, "go-heap: the stop ran from %.0f to %.0f ns "
			"(CLOCK_MONOTONIC)\n", r.stop_begin * 1e9,
			r.stop_end * 1e9);
	fflush(msg);
	return EXIT_OK;
}

/* CLOCK_REALTIME in nanoseconds (the profiles' TimeNanos clock). */
static long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* --seconds / --count: c->count snapshots c->interval seconds apart, the
 * growth between them (growth.c); -v says when each was taken. */
static int run_growth(goheap_session *s, const gh_cli *c,
		      unsigned char **buf, size_t *len)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_growth *g = NULL;
	goheap_profile *p;
	struct timespec ts;
	double next = now(), d;
	long long t0;
	int i, rc;

	if (goheap_growth_new(&g, c->profile) != 0) {
		fprintf(stderr, "go-heap: out of memory\n");
		return EXIT_ERR;
	}
	for (i = 0; i < c->count; i++) {
		while (i > 0 && (d = next - now()) > 0) {
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		next += c->interval;
		t0 = wall_ns();
		rc = goheap_profile_collect(&p, s, c->profile);
		if (rc != 0) {
			fprintf(stderr, "go-heap: snapshot %d of %d: %s\n",
				i + 1, c->count, goheap_errmsg(s));
			goheap_growth_free(g);
			return EXIT_ERR;
		}
		rc = goheap_growth_add(g, p);
		goheap_profile_free(p);
		if (rc != 0) {
			fprintf(stderr, "go-heap: snapshot %d of %d: %s\n",
				i + 1, c->count, goheap_growth_errmsg(g));
			goheap_growth_free(g);
			return EXIT_ERR;
		}
		/* (tests/run-growth.sh brackets its change between these) */
		if (c->verbose)
			fprintf(stderr, "go-heap: snapshot %d of %d taken from "
				"%lld to %lld ns (CLOCK_REALTIME)\n", i + 1,
				c->count, t0, wall_ns());
	}
	wo.format = c->format;
	wo.sample_index = c->sample_index;
	wo.top_n = c->top_n;
	rc = goheap_growth_write(g, &wo, buf, len);
	if (rc != 0)
		fprintf(stderr, "go-heap: %s\n", goheap_growth_errmsg(g));
	goheap_growth_free(g);
	return rc != 0 ? EXIT_ERR : EXIT_OK;
}

/* The library's warning text (goheap.h: '\n' between lines, "" for none)
 * on stderr, "go-heap: warning: " before each line. */
static void warn_lines(const char *text)
{
	size_t n;

	while (*text != '\0') {
		n = strcspn(text, "\n");
		fprintf(stderr, "go-heap: warning: %.*s\n", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

static int write_all(FILE *f, const unsigned char *p, size_t n)
{
	if (n == 0)
		return 0;       /* an empty output: p may be NULL */
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/*
 * The -o file.  A new file beside it (O_EXCL, mode 0600: a profile can
 * hold the target's strings) is renamed over it once written whole, so a
 * failed run leaves the previous file as it was, and a name planted where
 * others can write (a symlink to a file of root's) is replaced, never
 * followed.  An existing device or FIFO (/dev/null, a pipe) is written in
 * place.
 */
typedef struct outfile {
	FILE *fp;
	const char *name;
	char tmp[4352];         /* "" when written in place */
} outfile;

static int out_open(outfile *o, const char *name)
{
	struct stat st;
	int fd;

	o->name = name;
	o->tmp[0] = '\0';
	if (lstat(name, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode)) {
		fd = open(name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX",
				     name) >= sizeof(o->tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = mkstemp(o->tmp);           /* O_EXCL, 0600 */
		if (fd < 0)
			o->tmp[0] = '\0';
	}
	if (fd < 0)
		return -1;
	o->fp = fdopen(fd, "wb");
	if (o->fp == NULL) {
		close(fd);
		if (o->tmp[0] != '\0')
			unlink(o->tmp);
		o->tmp[0] = '\0';
		return -1;
	}
	return 0;
}

/* Close; a complete file (ok) takes its name, else it is removed.
 * 0, or -1 with errno. */
static int out_close(outfile *o, int ok)
{
	int rc = fclose(o->fp);

	o->fp = NULL;
	if (o->tmp[0] == '\0')
		return rc;
	if (rc == 0 && ok && rename(o->tmp, o->name) == 0)
		return 0;
	rc = -1;
	{
		int e = errno;

		unlink(o->tmp);
		errno = e;
	}
	return rc;
}

int main(int argc, char **argv)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_write_stats ws = GOHEAP_WRITE_STATS_INIT;
	goheap_session *s = NULL;
	goheap_profile *p = NULL;
	goheap_profile_stats ks = GOHEAP_PROFILE_STATS_INIT;
	unsigned char *buf = NULL;
	size_t len = 0;
	char err[512];
	static char help[4096];
	gh_cli c;
	FILE *out = NULL;
	outfile of = { NULL, NULL, "" };
	int rc, pid, status = EXIT_ERR, want_profile;
	double t0, t1, t2;

	/* `go-heap watch ...` is its own command (src/watch/watch.c); a core
	 * file named "watch" is given as ./watch. */
	if (argc > 1 && strcmp(argv[1], "watch") == 0)
		return gh_watch_main(argc - 1, argv + 1);
	rc = gh_cli_parse(&c, argc, argv, 1, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "go-heap: %s (see go-heap --help)\n", err);
		return EXIT_USAGE;
	}
	if (c.help) {
		gh_cli_help(help, sizeof(help), "go-heap", 1);
		fputs(help, stdout);
		return EXIT_OK;
	}
	if (c.version) {
		printf("go-heap %s\n", goheap_version());
		return EXIT_OK;
	}
	if (c.npositional == 0) {
		fprintf(stderr, "go-heap: missing PID or CORE (see go-heap "
			"--help)\n");
		return EXIT_USAGE;
	}
	o.exe = c.exe;
	o.sysroot = c.sysroot;
	o.no_stop = c.no_stop;
	/* the traceback's own stacks and argument words only for the
	 * formats that print them */
	o.no_traceback = c.format != GOHEAP_FORMAT_TRACEBACK &&
			 c.format != GOHEAP_FORMAT_LIST;

	pid = parse_pid(c.positional[0]);
	if (pid > 0 && c.npositional > 1) {
		fprintf(stderr, "go-heap: unexpected argument '%s' after a "
			"PID (use --exe)\n", c.positional[1]);
		return EXIT_USAGE;
	}
	if (c.dry_run && !c.force) {
		fprintf(stderr, "go-heap: --dry-run applies only to --force\n");
		return EXIT_USAGE;
	}
	if (c.count > 0 && pid <= 0) {
		fprintf(stderr, "go-heap: %s: a core is one instant: --seconds "
			"and --count need the PID of a running process\n",
			c.positional[0]);
		return EXIT_USAGE;
	}
	if (c.force && pid <= 0) {
		fprintf(stderr, "go-heap: --force needs the PID of a running "
			"process ('%s' is not one)\n", c.positional[0]);
		return EXIT_USAGE;
	}
	want_profile = !c.force ||
		       gh_force_wants_profile(c.output, c.format_given);
	if (!c.output && c.format == GOHEAP_FORMAT_PPROF && isatty(1)) {
		fprintf(stderr, "go-heap: refusing to write a binary pprof "
			"profile to a terminal (use -o FILE)\n");
		return EXIT_USAGE;
	}

	t0 = now();
	if (pid > 0)
		rc = goheap_open_pid(&s, pid, &o);
	else
		rc = goheap_open_core(&s, c.positional[0],
				      c.npositional > 1 ? c.positional[1] : NULL,
				      &o);
	if (rc != 0) {
		fprintf(stderr, "go-heap: %s\n", goheap_errmsg(s));
		goto done;
	}
	if (c.verbose)
		fprintf(stderr, "%s\n", goheap_describe(s));
	if (c.force) {
		status = run_force(s, &c, c.positional[0],
				   want_profile ? stderr : stdout);
		if (status != EXIT_OK || !want_profile)
			goto done;
		status = EXIT_ERR;
	}
	t1 = now();
	if (c.count > 0) {
		status = run_growth(s, &c, &buf, &len);
		if (status != EXIT_OK)
			goto done;
		status = EXIT_ERR;
		t2 = now();
		goto write;
	}
	/* Collected and written in one call: a heap proto is encoded on a
	 * second thread while the walker reads (goheap.h). */
	t1 = now();
	wo.format = c.format;
	wo.sample_index = c.sample_index;
	wo.top_n = c.top_n;
	wo.stats = &ws;
	wo.path = c.path;
	rc = goheap_profile_collect_write(s, c.profile, &wo, &buf, &len, &ks);
	if (rc == GOHEAP_EDISABLED) {
		if (pid > 0)
			fprintf(stderr, "go-heap: %s: memory profiling is "
				"disabled in the target (runtime.MemProfileRate "
				"is 0: the program never references "
				"runtime.MemProfile); enable it with --force\n",
				c.positional[0]);
		else
			fprintf(stderr, "go-heap: %s: no heap profile in this "
				"core (runtime.MemProfileRate is 0 and "
				"runtime.mbuckets is empty; a live process can be "
				"given one with --force)\n", c.positional[0]);
		status = EXIT_DISABLED;
		goto done;
	}
	if (rc != 0) {
		fprintf(stderr, "go-heap: %s\n", goheap_errmsg(s));
		goto done;
	}
	/* The library's words: the skipped buckets even with -q (the
	 * profile is incomplete), the first one named with -v only; the
	 * block/mutex estimates unless -q; untrusted frames. */
	warn_lines(c.verbose ? ks.skipped_warning : ks.skipped_warning_brief);
	if (!c.quiet)
		warn_lines(ks.estimate_warnings);
	warn_lines(ws.suspect_warning);
	t2 = now();
write:
	if (c.output == NULL || strcmp(c.output, "-") == 0) {
		out = stdout;
	} else {
		if (out_open(&of, c.output) != 0) {
			fprintf(stderr, "go-heap: cannot create %s: %s\n",
				c.output, strerror(errno));
			goto done;
		}
		out = of.fp;
	}
	if (write_all(out, buf, len) != 0 || fflush(out) != 0) {
		fprintf(stderr, "go-heap: writing %s: %s\n",
			c.output ? c.output : "standard output",
			strerror(errno));
		goto done;
	}
	if (c.verbose && c.count == 0) {
		const goheap_profile_stats st = ks;

		/* The stages of bench/run-bench.sh's table: read (inside the memory
		 * source), walk, symbolize, encode, compress.  Without an
		 * encoder thread, encode is the rest of the write and the
		 * stages add up to the call (the open aside).  With one (a
		 * heap proto), encode is that thread's CPU time, spent beside
		 * the walk, and "after the walk" what the call still took
		 * once the walk had ended: the stages then add up to more
		 * than the call, by as much as the two overlapped. */
		double rest = (t2 - t1 - st.read_seconds - st.walk_seconds -
			       ws.symbolize_seconds - ws.compress_seconds) *
			      1e3;
		char after[64] = "";

		/* (symbolize and compress are then the encoder's too) */
		if (ws.encode_thread_seconds > 0)
			snprintf(after, sizeof(after), " (on a second thread; "
				 "%.3f ms after the walk)",
				 (t2 - t1 - st.read_seconds - st.walk_seconds) *
				 1e3);
		fprintf(stderr,
			"go-heap: %s, %llu records, MemProfileRate %lld\n"
			"go-heap: open %.3f ms, read %.3f ms (%llu calls, "
			"%llu bytes; bucket bytes %llu), walk %.3f ms, "
			"symbolize %.3f ms, encode %.3f ms%s, compress %.3f ms, "
			"%zu bytes out\n",
			goheap_go_version(s), (unsigned long long)st.records,
			(long long)st.mem_profile_rate,
			(t1 - t0) * 1e3,
			st.read_seconds * 1e3,
			(unsigned long long)st.read_calls,
			(unsigned long long)st.read_bytes,
			(unsigned long long)st.bucket_bytes,
			st.walk_seconds * 1e3, ws.symbolize_seconds * 1e3,
			ws.encode_thread_seconds > 0 ?
				ws.encode_thread_seconds * 1e3 : rest,
			after, ws.compress_seconds * 1e3, len);
		/* -p types' snapshot re-reads spans (heapwalk.c) */
		const char *what = c.profile == GOHEAP_PROFILE_TYPES ?
				   "types" : c.profile ==
				   GOHEAP_PROFILE_RETAINED ? "retained" :
				   c.profile ==
				   GOHEAP_PROFILE_MEMSTATS ? "memstats" :
				   "goroutine";
		const char *unit = c.profile == GOHEAP_PROFILE_TYPES ||
				   c.profile == GOHEAP_PROFILE_RETAINED ?
				   "spans" : c.profile ==
				   GOHEAP_PROFILE_MEMSTATS ? "Ps" :
				   "goroutines";

		if (st.snapshot == 1)
			fprintf(stderr, "go-heap: %s snapshot: the target "
				"was stopped for %.3f ms (%llu threads; %llu "
				"of %llu %s re-read while stopped), %.0f ns a "
				"%.*s; the stop ran from %.0f to %.0f ns "
				"(CLOCK_MONOTONIC)\n",
				what, st.stop_seconds * 1e3,
				(unsigned long long)st.stop_threads,
				(unsigned long long)st.stop_rewalked,
				(unsigned long long)st.stop_checked, unit,
				st.stop_checked > 0 ? st.stop_seconds * 1e9 /
				(double)st.stop_checked : 0.0,
				(int)strlen(unit) - 1, unit,
				st.stop_begin * 1e9, st.stop_end * 1e9);
		else if (st.snapshot == 2)
			fprintf(stderr, "go-heap: %s snapshot: "
				"best-effort, the target was not stopped "
				"(--no-stop)\n", what);
	}
	status = EXIT_OK;
done:
	if (out != NULL && out != stdout &&
	    out_close(&of, status == EXIT_OK) != 0 && status == EXIT_OK) {
		fprintf(stderr, "go-heap: writing %s: %s\n", c.output,
			strerror(errno));
		status = EXIT_ERR;
	}
	goheap_free(buf);
	goheap_profile_free(p);
	goheap_close(s);
	return status;
}

/*
 * session.h - the session object, shared by the modules that act on a whole
 * target (session.c: open/collect/write; force.c: force mode).
 */
#ifndef GH_SESSION_H
#define GH_SESSION_H

#include "exe.h"
#include "memsrc.h"
#include "rtlayout.h"
#include "sym.h"
#include "walk.h"

struct goheap_session {
	gh_err err;
	const goheap_memsrc_ops *ops;
	const gh_memsrc_caps *caps;   /* never NULL: gh_no_caps at least */
	void *ctx;
	gh_mem mem;
	int mem_ready;
	double time_limit;    /* goheap_set_time_limit, seconds; 0: none */
	int gor_no_stop;      /* goheap_options.no_stop (goroutine.c) */
	int gor_no_tb;        /* goheap_options.no_traceback (goroutine.c) */
	gh_exe *exe;
	gh_sym *sym;
	uint64_t bias;
	gh_gover ver;
	char verstr[64];
	const gh_rtlayout *lay;
	gh_rtaddrs addrs;
	char exe_path[4096];
	char source[256];
	/* a live target's identity: PID and start time (/proc/PID/stat field
	 * 22, clock ticks since boot); 0 when unknown (cores, memory sources) */
	int pid;
	unsigned long long start_time;
	char *sysroot;
	int version_inferred;     /* no .go.buildinfo: from the binary */
	char how[768];            /* how the globals were found (-v) */
	char info[8192];          /* goheap_describe's text */
};

/*
 * The brief stop of a live target for a consistent read (the goroutine,
 * heap-by-type and MemStats snapshots; the source's stop slot).  0 with
 * *t0 the time it began, or the error in s->err: "WHAT: cannot stop the
 * target for a consistent NOUN (why); --no-stop reads it without stopping
 * (best-effort)".
 */
struct goheap_profile;
int gh_session_stop(goheap_session *s, const char *what, const char *noun,
		    double *t0);
/*
 * Resume after gh_session_stop and record the stop in p (the source's
 * own window when it has one, else t0..t1); rc is the stopped work's
 * result, returned unless it was 0 and the resume failed.
 */
int gh_session_resume(goheap_session *s, struct goheap_profile *p, double t0,
		      double t1, int rc);

/* The version-2 slots of the ops table, or NULL for a version-1 table. */
#define GH_OPS_V2(s, slot) \
	((s)->ops->version >= 2 ? (s)->ops->slot : NULL)

#endif

/*
 * watch_targets.c - `go-heap watch`'s fleet (doc/watch.md): which Go
 * processes there are, what is kept of each, and their collection.
 *
 *   - Discovery: the PIDs given, or every process whose /proc/PID/exe is
 *     an ELF file with .go.buildinfo or .gopclntab (goheap_is_go_executable:
 *     section headers only).  A process's identity (ident) is its start
 *     time, its executable's device and inode and, for a Go target, a hash
 *     of the auxiliary vector the kernel saved at its exec: a reused PID,
 *     an exec (sh -> Go, Go -> anything, a program that execs itself) make
 *     a new target whose counters start over; exited ones are dropped.
 *     The identity is checked at every discovery and again right before
 *     and after each collection, so a profile is always of the program
 *     the process runs now.
 *   - A round runs as steps (wt_round_step): discovery, then one target
 *     collected per step, visited from a rotating start, then the output
 *     directory's rotation.  The caller serves HTTP between steps, so the
 *     longest it waits is one target's collection, which the budget
 *     bounds (--target-budget is the session's time limit,
 *     goheap_set_time_limit: the library stops a walk that reaches it
 *     within one read).  A target over budget or failing is skipped for
 *     1, 2, 4, ... 32 rounds.  (Opening a session is not bounded by the
 *     budget: the library's safety limits bound that.)
 *   - Counters: each collection's per-bucket cumulative alloc counters
 *     minus the previous collection's, keyed by bucket address (a record's
 *     id; a bucket never seen counts from zero), scaled like pprof's
 *     scaleHeapSample.  Only the public API is used (goheap_profile_record,
 *     goheap_profile_delta).
 *   - Memory between rounds: a target keeps its buckets' cumulative
 *     counters as {bucket address, objects, bytes} sorted by address (24
 *     bytes a bucket); each profile is freed right after it is accounted
 *     for, except with --output-dir, whose delta profiles need the last
 *     whole profile as their base.  Sessions stay open between rounds only
 *     while there are at most KEEP_SESSIONS (16) Go targets: an open
 *     session maps the executable and holds the library's read cache
 *     (about 1.8 MiB for a small program), so a larger fleet closes each
 *     one after use and reopens it next time (about 1 ms;
 *     bench/watch-mem.sh: 100 targets of 10 000 buckets in 34 MiB).
 *   - --output-dir: each collection's delta profile as
 *     PID-COMM-TIME.pb.gz; the oldest of ours go first beyond
 *     --output-max-bytes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "goheap.h"
#include "gomath.h"
#include "watch_options.h"
#include "watch_outdir.h"
#include "watch_rows.h"
#include "watch_targets.h"
#include "watch_util.h"

enum {
	KEEP_SESSIONS = 16,     /* more Go targets: close sessions after use */
	MAX_TARGETS = 4096,
	MAX_BACKOFF = 32,
	FORCE_RATE = 512 * 1024,
};

/*
 * runtime/pprof's scaleHeapSample (gomath.h, as every writer computes it):
 * the estimated true count and size behind `count` sampled objects of
 * `size` bytes at MemProfileRate `rate`.  A live target runs on this
 * machine, so `impl` is this machine's math.Exp (gh_go_exp_impl(0)).
 */
static void scale_sample(int64_t count, int64_t size, int64_t rate, int impl,
			 double *c, double *s)
{
	int64_t ic, is;

	gh_scale_heap_sample(count, size, rate, impl, &ic, &is);
	*c = (double)ic;
	*s = (double)is;
}

/* ---- targets ---------------------------------------------------------- */

enum tstate { T_NEW, T_OK, T_DISABLED, T_ERROR, T_SKIPPED };

static const char *const tstate_name[] = {
	"new", "ok", "profiling-disabled", "error", "backoff"
};

/*
 * What a target keeps of a collection for the next one's deltas: a bucket's
 * cumulative alloc counters, keyed by bucket address (a record's id).
 */
typedef struct bucket_count {
	uint64_t id;
	int64_t objects, bytes;
} bucket_count;

/*
 * Which program a PID runs: its start time (a reused PID differs), the
 * device and inode of /proc/PID/exe (exec keeps the start time), and for
 * Go targets a hash of /proc/PID/auxv, the auxiliary vector the kernel
 * saved at exec (its stack, vDSO and PIE addresses are random per exec,
 * so a program that execs its own file is a new one too; without ASLR
 * they repeat, and so do the addresses a session relies on).
 */
typedef struct ident {
	unsigned long long start, dev, ino;
	uint64_t auxv;             /* 0: not read */
} ident;

/*
 * A process's top K of one kind for --heap-series: the last successful
 * collection's rows (kept, and exported with their age, until the next
 * one replaces them), and the kind's own backoff.
 */
enum sstate { S_NONE, S_OK, S_BACKOFF, S_ERROR, S_TOO_LARGE };

static const char *const sstate_name[] = {
	"none", "ok", "backoff", "error", "heap-too-large"
};

typedef struct series_set {
	wt_row *r;
	size_t n;
	double at;                 /* gh_now() of the collection; 0: never */
	double next;               /* retained: not before (gh_now()) */
	int64_t total_bytes;       /* types: every row's (the heap's) */
	int skip, backoff;         /* rounds (types) or intervals (retained) */
	enum sstate state;
	double seconds;            /* its collection in this step (0: none) */
	double last_seconds;       /* its last collection's, for /metrics */
} series_set;

static void series_clear(series_set *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++)
		free(ss->r[i].name);
	free(ss->r);
	memset(ss, 0, sizeof(*ss));
}

typedef struct target {
	int pid;
	ident id;
	unsigned long long gen;    /* the fleet's number for this identity */
	int is_go;
	int seen;                  /* found in the last discovery */
	char comm[64], exe[512], container[80];
	goheap_session *s;
	double budget;             /* --target-budget: each collection's limit */
	bucket_count *base;        /* the last collection's counters, by id */
	size_t nbase;
	int have_base;
	goheap_profile *prev;      /* --output-dir only: the last heap profile */
	double alloc_bytes, alloc_objects;  /* counters (scaled) */
	int64_t inuse_bytes, inuse_objects, rate;
	int have_stats;
	goheap_gometrics gm;       /* --go-metrics: the last ones read */
	int have_gm;
	series_set ty, ret;        /* --heap-series: types, retaining roots */
	int forced;                /* force applied (or refused) once */
	enum tstate state;
	char err[200];
	unsigned long long errors, collections, over_budget;
	double last_seconds;
	int skip, backoff;
	/* go_goroutines_leaked: the last check's count (-1: none, failed or
	 * skipped), when it ran (0: never), its seconds */
	long long leaked;
	double leak_at, leak_seconds;
} target;

/* The steps of a round. */
enum rphase { R_IDLE, R_DISCOVER, R_TARGETS };

struct wt_fleet {
	wt_config cfg;
	target **t;
	size_t nt;
	size_t rot;                /* the round's first target */
	/* the round in progress */
	enum rphase phase;
	size_t k;                  /* targets visited */
	size_t ngo;                /* Go targets found by its discovery */
	double round_start, round_cpu;
	/* totals */
	double last_round_seconds, last_round_cpu;
	unsigned long long rounds, errors, out_written, out_removed;
	unsigned long long out_refused;  /* .tmp names taken by someone else */
	unsigned long long next_gen;
};

static void target_reset(target *t)
{
	goheap_close(t->s);
	t->s = NULL;
	goheap_profile_free(t->prev);
	t->prev = NULL;
	free(t->base);
	t->base = NULL;
	t->nbase = 0;
	t->have_base = 0;
	t->alloc_bytes = t->alloc_objects = 0;
	t->inuse_bytes = t->inuse_objects = t->rate = 0;
	t->have_stats = 0;
	t->have_gm = 0;
	series_clear(&t->ty);
	series_clear(&t->ret);
	t->forced = 0;
	t->state = T_NEW;
	t->err[0] = '\0';
	t->skip = t->backoff = 0;
	t->leaked = -1;
	t->leak_at = t->leak_seconds = 0;
}

static void target_free(target *t)
{
	if (t == NULL)
		return;
	target_reset(t);
	free(t);
}

/* FNV-1a of /proc/PID/auxv (never 0), or 0 when it cannot be read. */
static uint64_t auxv_hash(int pid)
{
	char path[64], buf[1024];
	uint64_t h = 14695981039346656037ULL;
	int n, i;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
	return h ? h : 1;
}

/*
 * pid's identity; the auxv hash only `with_auxv` (Go targets).  -1 when
 * the process is gone: no /proc/PID/stat, or a zombie (its executable
 * and memory are gone with it; the dev and inode of a process whose exe
 * cannot be read, a kernel thread, are 0).
 */
static int ident_read(int pid, int with_auxv, ident *id)
{
	char path[64], buf[1024], *p;
	struct stat st;
	int i;

	memset(id, 0, sizeof(*id));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return -1;
	p++;
	/* field 22, starttime: fields 3..21 precede it */
	for (i = 3; i <= 21; i++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -1;
	}
	id->start = strtoull(p + 1, NULL, 10);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st) == 0) {
		id->dev = (unsigned long long)st.st_dev;
		id->ino = (unsigned long long)st.st_ino;
	}
	if (with_auxv)
		id->auxv = auxv_hash(pid);
	return 0;
}

/* The same program?  (An auxv hash counts when both sides have one.) */
static int ident_same(const ident *a, const ident *b)
{
	return a->start == b->start && a->dev == b->dev && a->ino == b->ino &&
	       (a->auxv == 0 || b->auxv == 0 || a->auxv == b->auxv);
}

/* Is /proc/PID/exe a Go program?  (Section headers only: the library's.) */
static int is_go_exe(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return goheap_is_go_executable(path) == 1;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * The container id: the last run of 64 hex digits in /proc/PID/cgroup
 * (docker-ID.scope, /docker/ID, cri-containerd-ID.scope, crio-ID.scope,
 * /kubepods/.../ID); "" for processes outside containers.
 */
static void container_id(int pid, char *out, size_t len)
{
	char path[64], buf[8192];
	size_t i, run = 0;
	int n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	for (i = 0; i <= (size_t)n; i++) {
		if (i < (size_t)n && is_hex(buf[i])) {
			run++;
			continue;
		}
		if (run == 64 && len > 64) {
			memcpy(out, buf + i - 64, 64);
			out[64] = '\0';
		}
		run = 0;
	}
}

/* comm as the kernel keeps it now (a process may rename itself at any
 * time), as valid UTF-8. */
static void read_comm(target *t)
{
	char path[64], raw[64];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/comm", t->pid);
	n = read_small(path, raw, sizeof(raw));
	if (n > 0 && raw[n - 1] == '\n')
		n--;
	utf8_sanitize(t->comm, sizeof(t->comm), raw, n > 0 ? (size_t)n : 0);
}

/* The labels of a new target, as valid UTF-8 (paths are bytes). */
static void target_labels(target *t)
{
	char path[64], raw[512];
	ssize_t n;

	read_comm(t);
	snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
	n = readlink(path, raw, sizeof(raw));
	utf8_sanitize(t->exe, sizeof(t->exe), raw, n > 0 ? (size_t)n : 0);
	container_id(t->pid, t->container, sizeof(t->container));
}

static target *find_target(const wt_fleet *f, int pid)
{
	size_t i;

	for (i = 0; i < f->nt; i++)
		if (f->t[i]->pid == pid)
			return f->t[i];
	return NULL;
}

/* t becomes the program of identity id: a new target as far as anyone can
 * tell (its session, counters and labels start over). */
static void target_adopt(wt_fleet *f, target *t, const ident *id)
{
	int was_go = t->is_go && t->gen != 0;

	target_reset(t);
	t->errors = t->collections = t->over_budget = 0;
	t->last_seconds = 0;
	t->id = *id;
	t->gen = ++f->next_gen;
	t->is_go = is_go_exe(t->pid);
	t->comm[0] = t->exe[0] = t->container[0] = '\0';
	if (t->is_go) {
		if (t->id.auxv == 0)
			t->id.auxv = auxv_hash(t->pid);
		target_labels(t);
	}
	if (f->cfg.verbose && (was_go || t->is_go) && t->gen > 1)
		fprintf(stderr, "go-heap watch: pid %d: %s\n", t->pid,
			t->is_go ? "a new Go program (exec or new process)" :
			"no longer a Go program (exec)");
}

/*
 * Is t still the program it was?  0: yes (its comm re-read); 1: it
 * exec'd, or its PID was reused: t is the new program now (is_go says
 * whether that is one of ours); -1: the process is gone.
 */
static int target_check(wt_fleet *f, target *t)
{
	ident id;

	if (ident_read(t->pid, t->is_go, &id) != 0)
		return -1;
	if (ident_same(&t->id, &id)) {
		if (t->is_go)
			read_comm(t);
		return 0;
	}
	target_adopt(f, t, &id);
	return 1;
}

/* Note pid as present (re-checking who it is); add it if new. */
static void discover_pid(wt_fleet *f, int pid)
{
	ident id;
	target *t, **nv;

	if (pid == getpid())
		return;
	t = find_target(f, pid);
	if (t != NULL) {
		if (target_check(f, t) >= 0)
			t->seen = 1;   /* else gone: dropped below */
		return;
	}
	if (f->nt >= MAX_TARGETS || ident_read(pid, 0, &id) != 0)
		return;
	t = calloc(1, sizeof(*t));
	nv = realloc(f->t, (f->nt + 1) * sizeof(*nv));
	if (t == NULL || nv == NULL) {
		free(t);
		if (nv != NULL)
			f->t = nv;
		return;
	}
	f->t = nv;
	t->pid = pid;
	t->budget = f->cfg.budget;
	t->seen = 1;
	target_adopt(f, t, &id);
	f->t[f->nt++] = t;
}

static void discover(wt_fleet *f)
{
	size_t i, j;

	for (i = 0; i < f->nt; i++)
		f->t[i]->seen = 0;
	if (f->cfg.npids > 0) {
		for (i = 0; i < f->cfg.npids; i++)
			discover_pid(f, f->cfg.pids[i]);
	} else {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d != NULL && (de = readdir(d)) != NULL) {
			char *end;
			long v = strtol(de->d_name, &end, 10);

			if (*end == '\0' && v > 0 && v <= 0x7fffffff)
				discover_pid(f, (int)v);
		}
		if (d != NULL)
			closedir(d);
	}
	/* Drop the processes that exited. */
	for (i = j = 0; i < f->nt; i++) {
		if (f->t[i]->seen) {
			f->t[j++] = f->t[i];
		} else {
			if (f->cfg.verbose && f->t[i]->is_go)
				fprintf(stderr, "go-heap watch: pid %d (%s) "
					"exited\n", f->t[i]->pid,
					f->t[i]->comm);
			target_free(f->t[i]);
		}
	}
	f->nt = j;
}

/* ---- collection -------------------------------------------------------- */

static int ensure_session(target *t)
{
	int rc;

	if (t->s != NULL)
		return 0;
	/* The fleet's session serves /metrics and every /pprof profile;
	 * goroutine tracebacks (?debug=2) take a session of their own
	 * (wt_collect): without them a goroutine profile reads only the
	 * stacks the grouping needs. */
	goheap_options o = GOHEAP_OPTIONS_INIT;

	o.no_traceback = 1;
	rc = goheap_open_pid(&t->s, t->pid, &o);
	if (rc != 0) {
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(t->s));
		goheap_close(t->s);
		t->s = NULL;
		return rc;
	}
	/* The budget is a hard bound on the walk (the library stops at it). */
	goheap_set_time_limit(t->s, t->budget);
	return 0;
}

/* Write p's delta over t->prev to --output-dir as PID-COMM-TIME.pb.gz
 * (watch_outdir.c). */
static void write_output(wt_fleet *f, target *t, const goheap_profile *p)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *d = NULL;
	unsigned char *buf = NULL;
	size_t len = 0;
	int rc;

	if (goheap_profile_delta(&d, p, t->prev) != 0)
		return;
	wo.format = GOHEAP_FORMAT_PPROF;
	if (goheap_profile_write(t->s, d, &wo, &buf, &len) == 0) {
		rc = wod_write(f->cfg.outdir, t->pid, t->comm, buf, len,
			       f->cfg.verbose);
		if (rc == 0)
			f->out_written++;
		else if (rc == WOD_REFUSED)
			f->out_refused++;
	}
	goheap_free(buf);
	goheap_profile_free(d);
}

static int bucket_cmp(const void *a, const void *b)
{
	const bucket_count *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Fold heap profile p into t's counters (the allocations since the last
 * collection: each bucket's cumulative counters minus those t->base holds
 * for its id, as goheap_profile_delta would subtract them; all of p the
 * first time) and gauges (in use now), then make p's counters, sorted by
 * id, the next base.  The profile itself is not kept: p stays the
 * caller's.  0, or -1 (out of memory: t is unchanged).
 */
static int account(target *t, const goheap_profile *p)
{
	goheap_profile_stats st = GOHEAP_PROFILE_STATS_INIT;
	goheap_record r = GOHEAP_RECORD_INIT;
	bucket_count *cur = NULL;
	size_t i, j, k, n, ncur = 0;
	double c, s, ao = 0, ab = 0;
	int64_t io = 0, ib = 0, dobj, dbytes;
	int impl = gh_go_exp_impl(0);

	goheap_profile_stats_get(p, &st);
	n = goheap_profile_nrecords(p);
	if (n > 0 && (cur = malloc(n * sizeof(*cur))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		goheap_profile_record(p, i, &r);
		scale_sample(r.alloc_objects - r.free_objects,
			     r.alloc_bytes - r.free_bytes, st.mem_profile_rate,
			     impl, &c, &s);
		io += (int64_t)c;
		ib += (int64_t)s;
		if (r.id != 0) {
			cur[ncur].id = r.id;
			cur[ncur].objects = r.alloc_objects;
			cur[ncur].bytes = r.alloc_bytes;
			ncur++;
		} else if (r.alloc_objects > 0 && r.alloc_bytes > 0) {
			/* No id: never matched, all of it is new. */
			scale_sample(r.alloc_objects, r.alloc_bytes,
				     st.mem_profile_rate, impl, &c, &s);
			ao += c;
			ab += s;
		}
	}
	if (ncur > 1)
		qsort(cur, ncur, sizeof(*cur), bucket_cmp);
	/* Merge with the base (both sorted by id). */
	for (i = j = 0; i < ncur; i++) {
		while (j < t->nbase && t->base[j].id < cur[i].id)
			j++;
		dobj = cur[i].objects;
		dbytes = cur[i].bytes;
		if (j < t->nbase && t->base[j].id == cur[i].id) {
			dobj -= t->base[j].objects;
			dbytes -= t->base[j].bytes;
		}
		/* Counters only grow; a smaller value means a reset bucket. */
		if (dobj > 0 && dbytes > 0) {
			scale_sample(dobj, dbytes, st.mem_profile_rate, impl,
				     &c, &s);
			ao += c;
			ab += s;
		}
	}
	/* One entry per id (a bucket address is unique: a duplicate would be
	 * a torn read; keep the last, as an index of the profile would). */
	for (i = k = 0; i < ncur; i++) {
		if (k > 0 && cur[k - 1].id == cur[i].id)
			k--;
		cur[k++] = cur[i];
	}
	ncur = k;
	if (ncur > 0 && ncur < n) {
		bucket_count *shrunk = realloc(cur, ncur * sizeof(*cur));

		if (shrunk != NULL)
			cur = shrunk;
	} else if (ncur == 0) {
		free(cur);
		cur = NULL;
	}
	free(t->base);
	t->base = cur;
	t->nbase = ncur;
	t->have_base = 1;
	t->alloc_objects += ao;
	t->alloc_bytes += ab;
	t->inuse_objects = io;
	t->inuse_bytes = ib;
	t->rate = st.mem_profile_rate;
	t->have_stats = 1;
	return 0;
}

/*
 * Close t's session when there are more Go targets than KEEP_SESSIONS: an
 * open session holds the target's executable mapped and the library's
 * read cache (about 1.7 MiB together for a small program), so a large
 * fleet reopens each target at its next collection instead.
 */
static size_t count_go(const wt_fleet *f)
{
	size_t i, ngo = 0;

	for (i = 0; i < f->nt; i++)
		ngo += f->t[i]->is_go != 0;
	return ngo;
}

static void release_session(target *t, size_t ngo)
{
	if (ngo > KEEP_SESSIONS && t->s != NULL) {
		goheap_close(t->s);
		t->s = NULL;
	}
}

/*
 * The Go collector's numbers (--go-metrics): a MemStats profile read
 * running, or during the brief stop with --go-metrics=stop.  A failure
 * (a release without the row, a damaged word) only leaves them out.
 */
static void collect_gometrics(wt_fleet *f, target *t)
{
	goheap_profile *p = NULL;
	int rc;

	t->have_gm = 0;
	if (f->cfg.gometrics == GH_GOM_OFF)
		return;
	goheap_set_no_stop(t->s, f->cfg.gometrics != GH_GOM_STOP);
	rc = goheap_profile_collect(&p, t->s, GOHEAP_PROFILE_MEMSTATS);
	goheap_set_no_stop(t->s, 0);
	if (rc == 0)
		rc = goheap_profile_gometrics(p, &t->gm);
	t->have_gm = rc == 0;
	if (rc != 0 && f->cfg.verbose)
		fprintf(stderr, "go-heap watch: pid %d: go metrics: %s\n",
			t->pid, goheap_errmsg(t->s));
	goheap_profile_free(p);
}

/* ---- --heap-series ---------------------------------------------------- */

/*
 * Collect one -p types or -p retained profile of t and keep its top K rows
 * (types: summed per name over the size classes) in ss.  Its own
 * backoff: over budget or failing, skipped for 1, 2, 4 ... 32 rounds
 * (types) or retained intervals.  0, or -1 when t is no longer the
 * program it was (nothing kept).
 */
static int series_collect(wt_fleet *f, target *t, series_set *ss, int kind)
{
	goheap_profile *p = NULL;
	goheap_growth *g = NULL;
	wr_vec v = { NULL, 0, 0 };
	size_t i, k = (size_t)f->cfg.series_top;
	int64_t total = 0;
	double t0 = gh_now();
	int rc;

	rc = goheap_profile_collect(&p, t->s, kind);
	if (target_check(f, t) != 0) {
		goheap_profile_free(p);
		return -1;
	}
	if (rc == 0)
		rc = goheap_growth_new(&g, kind);
	if (rc == 0)
		rc = goheap_growth_add(g, p);
	if (rc == 0)
		rc = goheap_growth_rows(g, wr_take, &v);
	goheap_growth_free(g);
	goheap_profile_free(p);
	ss->seconds = gh_now() - t0;
	ss->last_seconds = ss->seconds;
	if (rc == 0)
		wr_fold(&v);   /* one row per name, most bytes first */
	if (rc != 0 || ss->seconds > f->cfg.budget) {
		for (i = 0; i < v.n; i++)
			free(v.r[i].name);
		free(v.r);
		ss->backoff = ss->backoff ? ss->backoff * 2 : 1;
		if (ss->backoff > MAX_BACKOFF)
			ss->backoff = MAX_BACKOFF;
		ss->skip = ss->backoff;
		ss->state = rc == 0 || rc == GOHEAP_ETIMEDOUT ? S_BACKOFF :
			    S_ERROR;
		if (f->cfg.verbose)
			fprintf(stderr, "go-heap watch: pid %d: %s series: "
				"%s%s\n", t->pid,
				kind == GOHEAP_PROFILE_TYPES ? "types" :
				"retained", rc == 0 ? "over budget" :
				goheap_errmsg(t->s), ss->backoff > 0 ?
				" (backing off)" : "");
		/* the last good rows stay, with their age */
		return 0;
	}
	for (i = 0; i < v.n; i++)
		total += v.r[i].bytes;
	for (i = k; i < v.n; i++)
		free(v.r[i].name);
	if (v.n > k)
		v.n = k;
	for (i = 0; i < ss->n; i++)
		free(ss->r[i].name);
	free(ss->r);
	ss->r = v.r;
	ss->n = v.n;
	ss->at = gh_now();
	ss->total_bytes = total;
	ss->backoff = 0;
	ss->state = S_OK;
	return 0;
}

/*
 * --heap-series for t (its session open): types every round, retained at
 * most once per --retained-series-interval and only below
 * --retained-series-max-heap (the heap: types' total when types are on,
 * else the heap profile's in-use estimate).  0, or -1 when t changed.
 */
static int collect_series(wt_fleet *f, target *t)
{
	int64_t heap;
	double now;

	if (f->cfg.series & GH_SERIES_TYPES) {
		if (t->ty.skip > 0) {
			t->ty.skip--;
		} else if (series_collect(f, t, &t->ty,
					  GOHEAP_PROFILE_TYPES) != 0) {
			return -1;
		}
	}
	if (!(f->cfg.series & GH_SERIES_RETAINED))
		return 0;
	heap = t->ty.at > 0 ? t->ty.total_bytes : t->inuse_bytes;
	if (heap > 0 && (unsigned long long)heap > f->cfg.ret_max_heap) {
		series_clear(&t->ret);
		t->ret.state = S_TOO_LARGE;
		return 0;
	}
	now = gh_now();
	if (t->ret.state == S_TOO_LARGE)
		t->ret.state = S_NONE;
	if (t->ret.next > now)
		return 0;
	if (series_collect(f, t, &t->ret, GOHEAP_PROFILE_RETAINED) != 0)
		return -1;
	t->ret.next = now + f->cfg.ret_interval *
		      (t->ret.backoff > 0 ? t->ret.backoff : 1);
	return 0;
}

static void collect_target(wt_fleet *f, target *t)
{
	goheap_profile *p = NULL;
	goheap_profile_stats st = GOHEAP_PROFILE_STATS_INIT;
	goheap_force_result fr = GOHEAP_FORCE_RESULT_INIT;
	int rc;

	/* The program the process runs now, or none: an exec since the
	 * discovery makes t a new target, an exit leaves it to the next. */
	if (target_check(f, t) < 0 || !t->is_go)
		return;
	rc = ensure_session(t);
	if (rc != 0)
		goto fail;
	collect_gometrics(f, t);
	rc = goheap_profile_collect(&p, t->s, GOHEAP_PROFILE_HEAP);
	if (target_check(f, t) != 0) {
		/* Exited or exec'd during the collection: whatever was read
		 * is not one program's, and not a failure of ours. */
		goheap_profile_free(p);
		return;
	}
	if (rc == 0) {
		goheap_profile_stats_get(p, &st);
		if (st.mem_profile_rate == 0)
			rc = GOHEAP_EDISABLED;
	}
	if (rc == GOHEAP_EDISABLED && f->cfg.mode == GH_WATCH_FORCE &&
	    !t->forced) {
		int frc;

		t->forced = 1;
		frc = goheap_force(t->s, FORCE_RATE, 0, &fr);
		if (f->cfg.verbose)
			fprintf(stderr, "go-heap watch: pid %d: force: %s\n",
				t->pid, frc == 0 ? "profiling enabled" :
				goheap_errmsg(t->s));
	}
	if (rc == GOHEAP_EDISABLED && p == NULL) {
		t->state = T_DISABLED;
		if (f->cfg.series)
			collect_series(f, t);
		return;
	}
	if (rc == GOHEAP_ETIMEDOUT) {
		/* Over budget: not an error; the caller backs it off. */
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(t->s));
		t->state = T_SKIPPED;
		return;
	}
	if (rc != 0 && rc != GOHEAP_EDISABLED)
		goto fail;
	if (f->cfg.outdir != NULL && t->prev != NULL)
		write_output(f, t, p);
	if (account(t, p) != 0) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		rc = GOHEAP_ENOMEM;
		goto fail;
	}
	/* Only --output-dir's delta profiles need the whole profile. */
	goheap_profile_free(t->prev);
	t->prev = NULL;
	if (f->cfg.outdir != NULL)
		t->prev = p;
	else
		goheap_profile_free(p);
	p = NULL;
	t->state = rc == GOHEAP_EDISABLED ? T_DISABLED : T_OK;
	t->collections++;
	if (f->cfg.series)
		collect_series(f, t);
	return;
fail:
	if (t->s != NULL)
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(t->s));
	goheap_profile_free(p);
	if (target_check(f, t) != 0)
		return;   /* it exited or exec'd: not a failure of ours */
	t->state = T_ERROR;
	t->errors++;
	f->errors++;
	/* The executable may have been replaced: reopen next time. */
	goheap_close(t->s);
	t->s = NULL;
	if (f->cfg.verbose)
		fprintf(stderr, "go-heap watch: pid %d: %s\n", t->pid, t->err);
}


/*
 * go_goroutines_leaked: -p goroutineleak on t (the graph under the brief
 * stop, as -p retained), at most every --goroutineleak-interval, within
 * --goroutineleak-budget, and only while the process's heap (MemStats
 * HeapAlloc from --go-metrics, else the heap profile's in-use bytes) is at
 * most --goroutineleak-max-heap: the check reads every object.  A failure
 * or a skip leaves no figure until the next check.
 */
static void leak_check(wt_fleet *f, target *t)
{
	goheap_profile *p = NULL;
	double now = gh_now();
	long long heap = -1;
	int rc;

	if (f->cfg.leak_max_heap == 0 || t->s == NULL || !t->is_go ||
	    (t->leak_at > 0 && now - t->leak_at < f->cfg.leak_interval))
		return;
	t->leak_at = now;
	if (t->have_gm)
		heap = (long long)t->gm.heap_alloc;
	else if (t->have_stats && t->rate > 0)
		heap = (long long)t->inuse_bytes;
	if (heap < 0 || (unsigned long long)heap > f->cfg.leak_max_heap) {
		t->leaked = -1;
		if (f->cfg.verbose)
			fprintf(stderr, "go-heap watch: pid %d: goroutineleak: "
				"not checked (heap %s %lld bytes, "
				"--goroutineleak-max-heap %llu)\n", t->pid,
				heap < 0 ? "unknown:" : "of", heap,
				f->cfg.leak_max_heap);
		return;
	}
	goheap_set_time_limit(t->s, f->cfg.leak_budget);
	rc = goheap_profile_collect(&p, t->s, GOHEAP_PROFILE_GOROUTINELEAK);
	goheap_set_time_limit(t->s, t->budget);
	t->leak_seconds = gh_now() - now;
	/* one record per leaked goroutine (goheap.h); none when the process
	 * exited or exec'd meanwhile (not this program's) */
	t->leaked = rc == 0 && target_check(f, t) == 0 ?
		    (long long)goheap_profile_nrecords(p) : -1;
	if (rc != 0 && f->cfg.verbose)
		fprintf(stderr, "go-heap watch: pid %d: goroutineleak: %s\n",
			t->pid, goheap_errmsg(t->s));
	goheap_profile_free(p);
}

/* Collect t (one step of a round) and back it off if it was slow or
 * failed. */
static void round_collect(wt_fleet *f, target *t)
{
	double t1 = gh_now();

	t->ty.seconds = t->ret.seconds = 0;
	collect_target(f, t);
	/* the heap profile's own time: the series and the leak check have
	 * their own cadence and backoff */
	t->last_seconds = gh_now() - t1 - t->ty.seconds - t->ret.seconds;
	if (t->state == T_OK || t->state == T_DISABLED)
		leak_check(f, t);   /* through the session still open */
	release_session(t, f->ngo);
	/* Over budget, or failing (gone wrong for good, as an unsupported
	 * runtime): back off, so that neither costs a full collection every
	 * interval. */
	if (t->last_seconds > f->cfg.budget || t->state == T_ERROR) {
		if (t->last_seconds > f->cfg.budget)
			t->over_budget++;
		t->backoff = t->backoff ? t->backoff * 2 : 1;
		if (t->backoff > MAX_BACKOFF)
			t->backoff = MAX_BACKOFF;
		t->skip = t->backoff;
	} else {
		t->backoff = 0;
	}
}

/* ---- rounds ------------------------------------------------------------- */

wt_fleet *wt_new(const wt_config *cfg)
{
	wt_fleet *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->cfg = *cfg;
	f->phase = R_IDLE;
	if (f->cfg.outdir != NULL)
		f->out_removed += wod_sweep_tmp(f->cfg.outdir, f->cfg.verbose);
	return f;
}

void wt_free(wt_fleet *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nt; i++)
		target_free(f->t[i]);
	free(f->t);
	free(f);
}

void wt_round_start(wt_fleet *f)
{
	if (f->phase != R_IDLE)
		return;
	f->phase = R_DISCOVER;
	f->round_start = gh_now();
	f->round_cpu = 0;
}

int wt_round_active(const wt_fleet *f)
{
	return f->phase != R_IDLE;
}

/*
 * One step: the discovery; or the next target that is due (those backed
 * off are passed over in the same step); or, when none is left, the
 * rotation of --output-dir and the round's figures.
 */
int wt_round_step(wt_fleet *f)
{
	double c0 = cpu_seconds();
	int more = 1;

	switch (f->phase) {
	case R_IDLE:
		return 0;
	case R_DISCOVER:
		discover(f);
		f->ngo = count_go(f);
		f->k = 0;
		if (f->cfg.mode != GH_WATCH_DISABLED && f->nt > 0)
			f->rot = (f->rot + 1) % f->nt;
		else
			f->k = f->nt;   /* nothing to collect */
		f->phase = R_TARGETS;
		break;
	case R_TARGETS:
		while (f->k < f->nt) {
			target *t = f->t[(f->rot + f->k) % f->nt];

			f->k++;
			if (!t->is_go)
				continue;
			if (t->skip > 0) {
				t->skip--;
				t->state = T_SKIPPED;
				continue;
			}
			round_collect(f, t);
			break;
		}
		if (f->k < f->nt)
			break;
		/* Every target visited: the round ends with this step (after
		 * the collection, if there was one). */
		if (f->cfg.outdir != NULL)
			f->out_removed += wod_rotate(f->cfg.outdir, f->cfg.outmax);
		more = 0;
		break;
	}
	f->round_cpu += cpu_seconds() - c0;
	if (!more) {
		f->rounds++;
		f->last_round_seconds = gh_now() - f->round_start;
		f->last_round_cpu = f->round_cpu;
		f->phase = R_IDLE;
	}
	return more;
}

/* ---- views -------------------------------------------------------------- */

static void series_view(const series_set *ss, wt_series *out)
{
	out->rows = ss->r;
	out->n = ss->n;
	out->age = ss->at > 0 ? gh_now() - ss->at : -1;
	out->state = sstate_name[ss->state];
	out->seconds = ss->last_seconds;
}

long wt_views(const wt_fleet *f, wt_view **out)
{
	wt_view *v;
	size_t i, n = 0;

	*out = NULL;
	for (i = 0; i < f->nt; i++)
		n += f->t[i]->is_go != 0;
	if (n == 0)
		return 0;
	v = calloc(n, sizeof(*v));
	if (v == NULL)
		return -1;
	for (i = n = 0; i < f->nt; i++) {
		const target *t = f->t[i];
		wt_view *x = &v[n];

		if (!t->is_go)
			continue;
		x->pid = t->pid;
		x->comm = t->comm;
		x->exe = t->exe;
		x->container = t->container;
		x->state = tstate_name[t->state];
		x->ok = t->state == T_OK;
		x->have_stats = t->have_stats;
		x->alloc_bytes = t->alloc_bytes;
		x->alloc_objects = t->alloc_objects;
		x->inuse_bytes = (long long)t->inuse_bytes;
		x->inuse_objects = (long long)t->inuse_objects;
		x->rate = (long long)t->rate;
		x->collect_seconds = t->last_seconds;
		x->gm = t->have_gm ? &t->gm : NULL;
		x->errors = t->errors;
		x->over_budget = t->over_budget;
		x->leaked = t->leaked;
		x->leak_seconds = t->leak_seconds;
		series_view(&t->ty, &x->types);
		series_view(&t->ret, &x->roots);
		n++;
	}
	*out = v;
	return (long)n;
}

void wt_totals_get(const wt_fleet *f, wt_totals *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->round_seconds = f->last_round_seconds;
	out->round_cpu = f->last_round_cpu;
	out->rounds = f->rounds;
	out->errors = f->errors;
	out->out_written = f->out_written;
	out->out_removed = f->out_removed;
	out->out_refused = f->out_refused;
	for (i = 0; i < f->nt; i++)
		out->bucket_state_bytes += f->t[i]->nbase *
					   sizeof(bucket_count);
}

int wt_watches(const wt_fleet *f, int pid)
{
	const target *t = find_target(f, pid);

	return t != NULL && t->is_go;
}

/* ---- on demand ---------------------------------------------------------- */

/* A goroutine profile with tracebacks, through a session opened for it
 * (the profile is self-contained: it outlives the session). */
static int collect_tracebacks(target *t, int kind, goheap_profile **out)
{
	goheap_session *s = NULL;
	int rc = goheap_open_pid(&s, t->pid, NULL);

	if (rc == 0) {
		goheap_set_time_limit(s, t->budget);
		rc = goheap_profile_collect(out, s, kind);
	}
	if (rc != 0)
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(s));
	goheap_close(s);
	return rc;
}

int wt_collect(wt_fleet *f, int pid, int kind, int tracebacks,
	       int trailer, goheap_profile **out, unsigned long long *gen,
	       char *err, size_t errlen)
{
	target *t = find_target(f, pid);
	int rc = 0, attempt, c = -1;

	*out = NULL;
	*gen = 0;
	if (t == NULL || !t->is_go) {
		snprintf(err, errlen, "the process exited");
		return GOHEAP_ENOPROC;
	}
	/* Check who the process is before and after: a profile is of the
	 * program it runs now.  One exec during the collection is retried on
	 * the new program. */
	for (attempt = 0; attempt < 2; attempt++) {
		c = target_check(f, t);
		if (c < 0 || !t->is_go)
			break;
		rc = ensure_session(t);
		if (rc == 0 && (kind == GOHEAP_PROFILE_GOROUTINE ||
				kind == GOHEAP_PROFILE_GOROUTINELEAK) &&
		    tracebacks) {
			rc = collect_tracebacks(t, kind, out);
		} else if (rc == 0) {
			rc = goheap_profile_collect_flags(out, t->s, kind,
				trailer ? GOHEAP_COLLECT_MEMSTATS : 0);
			if (rc != 0 && rc != GOHEAP_EDISABLED) {
				snprintf(t->err, sizeof(t->err), "%s",
					 goheap_errmsg(t->s));
				if (rc != GOHEAP_ETIMEDOUT) {
					goheap_close(t->s);
					t->s = NULL;
				}
			}
		}
		c = target_check(f, t);
		if (c == 0) {
			*gen = t->gen;
			snprintf(err, errlen, "%s", t->err);
			return rc;
		}
		goheap_profile_free(*out);
		*out = NULL;
		if (c < 0 || !t->is_go)
			break;
	}
	if (c < 0)
		snprintf(err, errlen, "the process exited");
	else if (!t->is_go)
		snprintf(err, errlen, "the process exec'd a program that is "
			 "not Go");
	else
		snprintf(err, errlen, "the process keeps exec'ing");
	return GOHEAP_ENOPROC;
}

int wt_write(wt_fleet *f, int pid, const goheap_profile *p,
	     const goheap_profile *base, int format, unsigned char **buf,
	     size_t *len, char *err, size_t errlen)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *d = NULL;
	target *t = find_target(f, pid);
	int rc = -1;

	*buf = NULL;
	*len = 0;
	if (t == NULL || t->s == NULL) {
		snprintf(err, errlen, "Could not write profile: no session");
		return -1;
	}
	if (base != NULL) {
		if (goheap_profile_delta(&d, p, base) != 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		p = d;
	}
	wo.format = format;
	if (goheap_profile_write(t->s, p, &wo, buf, len) == 0)
		rc = 0;
	else
		snprintf(err, errlen, "Could not write profile: %s",
			 goheap_errmsg(t->s));
	goheap_profile_free(d);
	return rc;
}

int wt_memory_limit(wt_fleet *f, int pid, goheap_memlimit *out, char *err,
		    size_t errlen)
{
	target *t = find_target(f, pid);
	int rc;

	if (t == NULL || !t->is_go) {
		snprintf(err, errlen, "not a Go process of the fleet");
		return -1;
	}
	if (t->s == NULL && count_go(f) > KEEP_SESSIONS)
		return 1;
	rc = target_check(f, t);
	if (rc != 0 || !t->is_go) {
		snprintf(err, errlen, "%s", rc < 0 ? "the process exited" :
			 "the process exec'd another program");
		return -1;
	}
	if (ensure_session(t) != 0) {
		snprintf(err, errlen, "%s", t->err);
		return -1;
	}
	rc = goheap_memory_limit(t->s, out);
	if (rc != 0)
		snprintf(err, errlen, "%s", goheap_errmsg(t->s));
	if (target_check(f, t) != 0) {
		snprintf(err, errlen, "the process exec'd during the read");
		rc = -1;
	}
	return rc != 0 ? -1 : 0;
}

void wt_release(wt_fleet *f, int pid)
{
	target *t = find_target(f, pid);

	if (t != NULL)
		release_session(t, count_go(f));
}

/*
 * watch.c - `go-heap watch`: every Go process on a node, continuously.
 *
 * One single-threaded loop does three things:
 *
 *   1. every --interval: find the targets (the PIDs given, or every process
 *      whose /proc/PID/exe is an ELF file with .go.buildinfo or .gopclntab),
 *      collect each one's heap profile through the public API
 *      (goheap_open_pid / goheap_profile_collect), and turn the cumulative
 *      per-bucket alloc counters into per-interval deltas, keyed by bucket
 *      address (a bucket never seen counts from zero; a process whose start
 *      time changed is a new process and starts over);
 *   2. serve HTTP/1.1 on --listen with plain sockets and poll(2):
 *      /metrics (Prometheus text exposition), /pprof/PID/KIND (what Go's
 *      net/http/pprof answers: gzip'd proto, ?debug=N text, ?seconds=N
 *      delta profiles) and an index page;
 *   3. optionally write each target's delta profile to --output-dir, with
 *      a size cap and oldest-first rotation.
 *
 * Why one thread and no HTTP library: the exporter must be cheap and have
 * no dependency beyond libgoheap; a node has tens of Go processes, not
 * thousands.  Every request is bounded (8 KiB of headers, read and write
 * deadlines of 10 and 30 s); a ?seconds=N request is parked, not slept on.
 *
 * Connections: idle clients must not stop scrapes, so the cap is high
 * (MAX_CONNS, 4096, or the descriptor limit less FD_RESERVE: the soft
 * RLIMIT_NOFILE is raised to the hard one at start; poll(2) holds
 * thousands) and, at the cap, the connection that has been reading a
 * request without a byte for the longest time (the head of the idle list)
 * is closed for the new one; a new one is refused only when every open
 * connection is being answered.  A connection costs its struct until its
 * first byte, then a header buffer that grows from 512 bytes to at most
 * 8 KiB, freed once the request is parsed (1000 connections, half of
 * them with half a request line: 0.4 MB).  Responses are the bytes to
 * send; a /pprof request that arrives while MAX_BUSY (64) responses are
 * being written or parked (each may hold a profile) is answered 503;
 * /metrics is always answered.  Own metrics:
 * go_heap_watch_connections, go_heap_watch_connections_max,
 * go_heap_watch_connection_memory_bytes (structs, header buffers, unsent
 * responses), go_heap_watch_connections_evicted_total,
 * go_heap_watch_connections_refused_total, go_heap_watch_http_busy_total.
 *
 * Collection is synchronous but bounded: the budget
 * (--target-budget) is the session's time limit (goheap_set_time_limit),
 * so the library stops a walk that reaches it, within one read; such a
 * target is then skipped for a growing number of intervals (1, 2, 4, ...
 * 32; a failing one too), and targets are visited from a rotating start,
 * so one slow or hostile target costs the others at most its budget, once.
 * (Opening a session, once per process, is not bounded by it: the
 * library's safety limits bound that.)
 *
 * Counters and delta profiles come from the public API alone: the records
 * of a profile (goheap_profile_record) and the delta of two collections
 * (goheap_profile_delta).  Nothing of the library's internals is used.
 *
 * Memory between intervals: a target keeps only what the counters' deltas
 * need, its buckets' cumulative alloc counters as an array of {bucket
 * address, objects, bytes} sorted by address (24 bytes a bucket:
 * go_heap_watch_bucket_state_bytes); each profile is freed right after it
 * is accounted for.  --output-dir is the exception: its delta profiles
 * need the last whole profile (with stacks) as their base, so with it
 * each target keeps that too.  Sessions are kept open between intervals
 * only while there are at most KEEP_SESSIONS (16) Go targets: an open
 * session maps the target's executable and holds the library's read
 * cache, about 1.8 MiB for a small program, so a larger fleet closes each
 * one after use and reopens it at the next collection (about 1 ms per
 * target; bench/watch-mem.sh: 100 targets of 10 000 buckets, 35 MiB
 * resident instead of 280).  ?seconds=N requests keep their base profile
 * until answered (at most MAX_BUSY of them).
 *
 * The only global is the signal flag.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "goheap.h"
#include "options.h"
#include "watch.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
	MAX_CONNS = 4096,       /* fewer if RLIMIT_NOFILE is lower */
	FD_RESERVE = 256,       /* descriptors left for targets and files */
	MAX_BUSY = 64,          /* /pprof responses in progress or parked */
	MAX_REQ = 8192,         /* request line + headers */
	REQ_CHUNK = 512,        /* first size of a header buffer */
	KEEP_SESSIONS = 16,     /* more Go targets: close sessions after use */
	MAX_TARGETS = 4096,
	READ_TIMEOUT_MS = 10000,
	WRITE_TIMEOUT_MS = 30000,
	MAX_DELTA_SECONDS = 600,
	MAX_BACKOFF = 32,
};


static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- growable string buffer ------------------------------------------ */

typedef struct sbuf {
	char *p;
	size_t len, cap;
	int oom;
} sbuf;

static void sb_grow(sbuf *b, size_t need)
{
	size_t nc;
	char *np;

	if (b->oom || b->len + need + 1 <= b->cap)
		return;
	nc = b->cap ? b->cap : 4096;
	while (nc < b->len + need + 1)
		nc *= 2;
	np = realloc(b->p, nc);
	if (np == NULL) {
		b->oom = 1;
		return;
	}
	b->p = np;
	b->cap = nc;
}

static void sb_add(sbuf *b, const void *s, size_t n)
{
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

#ifdef __GNUC__
static void sb_printf(sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#endif

static void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/*
 * runtime/pprof's scaleHeapSample: the estimated true count and size
 * behind `count` sampled objects of `size` bytes at MemProfileRate `rate`
 * (libm's exp: metrics need no bit-exactness).
 */
static void scale_sample(int64_t count, int64_t size, int64_t rate,
			 double *c, double *s)
{
	double avg, scale;

	*c = (double)count;
	*s = (double)size;
	if (count == 0 || size == 0 || rate <= 1)
		return;
	avg = (double)size / (double)count;
	scale = 1 / (1 - exp(-avg / (double)rate));
	*c *= scale;
	*s *= scale;
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

typedef struct target {
	int pid;
	unsigned long long start;  /* /proc/PID/stat starttime */
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
	int forced;                /* force applied (or refused) once */
	enum tstate state;
	char err[200];
	unsigned long long errors, collections, over_budget;
	double last_seconds;
	int skip, backoff;
} target;

typedef struct conn {
	int fd;
	size_t slot;               /* its index in watch.c[] */
	char *in;                  /* the request so far: NULL, or incap bytes */
	size_t inlen, incap;
	sbuf out;
	size_t outoff;
	double deadline;
	int writing;
	/* a parked ?seconds=N request */
	int parked, pid, kind;
	double due;
	goheap_profile *p0;        /* the base of its delta */
	/* the idle list: connections still reading a request, the one whose
	 * last byte (or accept) is oldest first */
	struct conn *idle_prev, *idle_next;
	int idle_linked;
} conn;

typedef struct watch {
	/* options */
	const char *listen;
	double interval, budget;
	int mode;
	const char *outdir;
	unsigned long long outmax;
	int *pids;
	size_t npids;
	int verbose;
	/* state */
	target **t;
	size_t nt;
	size_t rot;
	int lfd;
	conn **c;                  /* conn_cap slots, NULL when free */
	size_t *free_slots, nfree;
	size_t conn_cap, nconns;
	conn *idle_head, *idle_tail;
	double accept_pause;       /* out of descriptors: until then */
	unsigned long long conns_evicted, conns_refused, http_busy;
	double last_round_seconds, last_round_cpu;
	unsigned long long rounds, errors, http_requests, http_errors;
	unsigned long long out_written, out_removed;
	double started;
} watch;

/* Memory of one connection: its state, header buffer, unsent response. */
static size_t conn_bytes(const conn *c)
{
	return sizeof(*c) + c->incap + c->out.cap;
}

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
	t->forced = 0;
	t->state = T_NEW;
	t->err[0] = '\0';
	t->skip = t->backoff = 0;
}

static void target_free(target *t)
{
	if (t == NULL)
		return;
	target_reset(t);
	free(t);
}

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Field 22 of /proc/PID/stat (after the comm in parentheses). */
static int proc_start(int pid, unsigned long long *out)
{
	char path[64], buf[1024], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (p == NULL)
		return -1;
	p++;
	/* fields 3..21 precede it */
	for (i = 3; i <= 21; i++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -1;
	}
	*out = strtoull(p + 1, NULL, 10);
	return 0;
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

static void target_labels(target *t)
{
	char path[64];
	ssize_t n;
	size_t l;

	snprintf(path, sizeof(path), "/proc/%d/comm", t->pid);
	if (read_small(path, t->comm, sizeof(t->comm)) <= 0)
		t->comm[0] = '\0';
	l = strlen(t->comm);
	if (l > 0 && t->comm[l - 1] == '\n')
		t->comm[l - 1] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = '\0';
	container_id(t->pid, t->container, sizeof(t->container));
}

static target *find_target(watch *w, int pid)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (w->t[i]->pid == pid)
			return w->t[i];
	return NULL;
}

/* Note pid as present; add it (checking whether it runs Go) if new. */
static void discover_pid(watch *w, int pid)
{
	unsigned long long start;
	target *t, **nv;

	if (pid == getpid() || proc_start(pid, &start) != 0)
		return;
	t = find_target(w, pid);
	if (t != NULL && t->start != start) {
		/* The PID was reused, or the process exec'd: start over. */
		target_reset(t);
		t->start = start;
		t->is_go = is_go_exe(pid);
		if (t->is_go)
			target_labels(t);
	}
	if (t != NULL) {
		t->seen = 1;
		return;
	}
	if (w->nt >= MAX_TARGETS)
		return;
	t = calloc(1, sizeof(*t));
	nv = realloc(w->t, (w->nt + 1) * sizeof(*nv));
	if (t == NULL || nv == NULL) {
		free(t);
		if (nv != NULL)
			w->t = nv;
		return;
	}
	w->t = nv;
	t->pid = pid;
	t->budget = w->budget;
	t->start = start;
	t->seen = 1;
	t->is_go = is_go_exe(pid);
	if (t->is_go)
		target_labels(t);
	w->t[w->nt++] = t;
}

static void discover(watch *w)
{
	size_t i, j;

	for (i = 0; i < w->nt; i++)
		w->t[i]->seen = 0;
	if (w->npids > 0) {
		for (i = 0; i < w->npids; i++)
			discover_pid(w, w->pids[i]);
	} else {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d != NULL && (de = readdir(d)) != NULL) {
			char *end;
			long v = strtol(de->d_name, &end, 10);

			if (*end == '\0' && v > 0 && v <= 0x7fffffff)
				discover_pid(w, (int)v);
		}
		if (d != NULL)
			closedir(d);
	}
	/* Drop the processes that exited. */
	for (i = j = 0; i < w->nt; i++) {
		if (w->t[i]->seen) {
			w->t[j++] = w->t[i];
		} else {
			if (w->verbose && w->t[i]->is_go)
				fprintf(stderr, "go-heap watch: pid %d (%s) "
					"exited\n", w->t[i]->pid,
					w->t[i]->comm);
			target_free(w->t[i]);
		}
	}
	w->nt = j;
}

/* ---- collection -------------------------------------------------------- */

static int ensure_session(target *t)
{
	int rc;

	if (t->s != NULL)
		return 0;
	rc = goheap_open_pid(&t->s, t->pid, NULL);
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

/* Write p's delta over t->prev to --output-dir as PID-COMM-TIME.pb.gz. */
static void write_output(watch *w, target *t, const goheap_profile *p)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *d = NULL;
	unsigned char *buf = NULL;
	size_t len = 0, i;
	char name[4200], comm[64], stamp[32], tmp[4300];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	if (goheap_profile_delta(&d, p, t->prev) != 0)
		return;
	wo.format = GOHEAP_FORMAT_PPROF;
	if (goheap_profile_write(t->s, d, &wo, &buf, &len) != 0)
		goto out;
	snprintf(comm, sizeof(comm), "%s", t->comm[0] ? t->comm : "go");
	for (i = 0; comm[i] != '\0'; i++)
		if (!((comm[i] >= 'a' && comm[i] <= 'z') ||
		      (comm[i] >= 'A' && comm[i] <= 'Z') ||
		      (comm[i] >= '0' && comm[i] <= '9') || comm[i] == '_' ||
		      comm[i] == '.'))
			comm[i] = '_';
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(name, sizeof(name), "%s/%d-%s-%s.pb.gz", w->outdir, t->pid,
		 comm, stamp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	f = fopen(tmp, "wb");
	if (f == NULL)
		goto out;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) != 0 || rename(tmp, name) != 0) {
		unlink(tmp);
		goto out;
	}
	w->out_written++;
out:
	goheap_free(buf);
	goheap_profile_free(d);
}

typedef struct ofile {
	char name[256];
	time_t mtime;
	unsigned long long size;
} ofile;

static int ofile_cmp(const void *a, const void *b)
{
	const ofile *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Ours: "PID-...-STAMP.pb.gz". */
static int is_output_name(const char *n)
{
	size_t l = strlen(n);

	return l > 6 && n[0] >= '0' && n[0] <= '9' &&
	       strcmp(n + l - 6, ".pb.gz") == 0 && strchr(n, '-') != NULL;
}

/* Delete our oldest files until the directory holds at most --output-max. */
static void rotate_output(watch *w)
{
	DIR *d = opendir(w->outdir);
	struct dirent *de;
	ofile *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	unsigned long long total = 0;
	char path[4400];
	struct stat st;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!is_output_name(de->d_name) ||
		    strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", w->outdir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].mtime = st.st_mtime;
		v[n].size = (unsigned long long)st.st_size;
		total += v[n].size;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), ofile_cmp);
	for (i = 0; i < n && total > w->outmax; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->outdir, v[i].name);
		if (unlink(path) == 0) {
			total -= v[i].size;
			w->out_removed++;
		}
	}
	free(v);
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
	goheap_profile_stats st;
	goheap_record r;
	bucket_count *cur = NULL;
	size_t i, j, k, n, ncur = 0;
	double c, s, ao = 0, ab = 0;
	int64_t io = 0, ib = 0, dobj, dbytes;

	goheap_profile_stats_get(p, &st);
	n = goheap_profile_nrecords(p);
	if (n > 0 && (cur = malloc(n * sizeof(*cur))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		goheap_profile_record(p, i, &r);
		scale_sample(r.alloc_objects - r.free_objects,
			     r.alloc_bytes - r.free_bytes, st.mem_profile_rate,
			     &c, &s);
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
				     st.mem_profile_rate, &c, &s);
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
			scale_sample(dobj, dbytes, st.mem_profile_rate, &c, &s);
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
static size_t count_go(const watch *w)
{
	size_t i, ngo = 0;

	for (i = 0; i < w->nt; i++)
		ngo += w->t[i]->is_go != 0;
	return ngo;
}

static void release_session(target *t, size_t ngo)
{
	if (ngo > KEEP_SESSIONS && t->s != NULL) {
		goheap_close(t->s);
		t->s = NULL;
	}
}

static void collect_target(watch *w, target *t)
{
	goheap_profile *p = NULL;
	goheap_profile_stats st;
	goheap_force_result fr;
	int rc;

	rc = ensure_session(t);
	if (rc != 0)
		goto fail;
	rc = goheap_profile_collect(&p, t->s, GOHEAP_PROFILE_HEAP);
	if (rc == 0) {
		goheap_profile_stats_get(p, &st);
		if (st.mem_profile_rate == 0)
			rc = GOHEAP_EDISABLED;
	}
	if (rc == GOHEAP_EDISABLED && w->mode == GH_WATCH_FORCE && !t->forced) {
		int frc;

		t->forced = 1;
		frc = goheap_force(t->s, 512 * 1024, 0, &fr);
		if (w->verbose)
			fprintf(stderr, "go-heap watch: pid %d: force: %s\n",
				t->pid, frc == 0 ? "profiling enabled" :
				goheap_errmsg(t->s));
	}
	if (rc == GOHEAP_EDISABLED && p == NULL) {
		t->state = T_DISABLED;
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
	if (w->outdir != NULL && t->prev != NULL)
		write_output(w, t, p);
	if (account(t, p) != 0) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		rc = GOHEAP_ENOMEM;
		goto fail;
	}
	/* Only --output-dir's delta profiles need the whole profile. */
	goheap_profile_free(t->prev);
	t->prev = NULL;
	if (w->outdir != NULL)
		t->prev = p;
	else
		goheap_profile_free(p);
	p = NULL;
	t->state = rc == GOHEAP_EDISABLED ? T_DISABLED : T_OK;
	t->collections++;
	return;
fail:
	if (t->s != NULL)
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(t->s));
	goheap_profile_free(p);
	t->state = T_ERROR;
	t->errors++;
	w->errors++;
	/* The executable may have been replaced: reopen next time. */
	goheap_close(t->s);
	t->s = NULL;
	if (w->verbose)
		fprintf(stderr, "go-heap watch: pid %d: %s\n", t->pid, t->err);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void collect_all(watch *w)
{
	double t0 = now_mono(), c0 = cpu_seconds(), t1;
	size_t k, i, ngo;

	discover(w);
	ngo = count_go(w);
	if (w->mode != GH_WATCH_DISABLED && w->nt > 0) {
		w->rot = (w->rot + 1) % w->nt;
		for (k = 0; k < w->nt && !stop_flag; k++) {
			target *t;

			i = (w->rot + k) % w->nt;
			t = w->t[i];
			if (!t->is_go)
				continue;
			if (t->skip > 0) {
				t->skip--;
				t->state = T_SKIPPED;
				continue;
			}
			t1 = now_mono();
			collect_target(w, t);
			release_session(t, ngo);
			t->last_seconds = now_mono() - t1;
			/* Over budget, or failing (gone wrong for good, as an
			 * unsupported runtime): back off, so that neither costs
			 * a full collection every interval. */
			if (t->last_seconds > w->budget ||
			    t->state == T_ERROR) {
				if (t->last_seconds > w->budget)
					t->over_budget++;
				t->backoff = t->backoff ? t->backoff * 2 : 1;
				if (t->backoff > MAX_BACKOFF)
					t->backoff = MAX_BACKOFF;
				t->skip = t->backoff;
			} else {
				t->backoff = 0;
			}
		}
	}
	if (w->outdir != NULL)
		rotate_output(w);
	w->rounds++;
	w->last_round_seconds = now_mono() - t0;
	w->last_round_cpu = cpu_seconds() - c0;
}

/* ---- /metrics ----------------------------------------------------------- */

static void put_label(sbuf *b, const char *name, const char *v, int first)
{
	sb_printf(b, "%s%s=\"", first ? "" : ",", name);
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			sb_printf(b, "\\%c", *v);
		else if (*v == '\n')
			sb_add(b, "\\n", 2);
		else
			sb_add(b, v, 1);
	}
	sb_add(b, "\"", 1);
}

/* {pid=...,comm=...,exe=...,container_id=...[,state=...]} */
static void put_target_labels(sbuf *b, const target *t, const char *state)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", t->pid);
	sb_add(b, "{", 1);
	put_label(b, "pid", pid, 1);
	put_label(b, "comm", t->comm, 0);
	put_label(b, "exe", t->exe, 0);
	put_label(b, "container_id", t->container, 0);
	if (state != NULL)
		put_label(b, "state", state, 0);
	sb_add(b, "}", 1);
}

static long rss_bytes(void)
{
	char buf[256];
	long pages = 0, rss = 0;

	if (read_small("/proc/self/statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%ld %ld", &pages, &rss) != 2)
		return 0;
	return rss * sysconf(_SC_PAGESIZE);
}

/* One per-target metric family: HELP, TYPE, then a line per Go process. */
enum per_target { PT_COLLECT_SECONDS, PT_ERRORS, PT_OVER_BUDGET };

static void put_per_target(sbuf *b, const watch *w, enum per_target which,
			   const char *name, const char *type,
			   const char *help)
{
	size_t i;

	sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < w->nt; i++) {
		const target *t = w->t[i];

		if (!t->is_go)
			continue;
		sb_str(b, name);
		put_target_labels(b, t, NULL);
		if (which == PT_COLLECT_SECONDS)
			sb_printf(b, " %.6f\n", t->last_seconds);
		else
			sb_printf(b, " %llu\n", which == PT_ERRORS ?
				  t->errors : t->over_budget);
	}
}

static void metrics(watch *w, sbuf *b)
{
	static const struct {
		const char *name, *type, *help;
		int which;
	} per[] = {
		{ "container_go_alloc_bytes_total", "counter",
		  "Bytes allocated (heap profile estimate, per-interval "
		  "deltas of the runtime's cumulative bucket counters).", 0 },
		{ "container_go_alloc_objects_total", "counter",
		  "Objects allocated (heap profile estimate).", 1 },
		{ "container_go_inuse_bytes", "gauge",
		  "Bytes in use as of the last completed GC (heap profile).", 2 },
		{ "container_go_inuse_objects", "gauge",
		  "Objects in use as of the last completed GC (heap profile).",
		  3 },
		{ "container_go_mem_profile_rate", "gauge",
		  "runtime.MemProfileRate of the process.", 4 },
	};
	size_t i, k, ngo = 0, nok = 0, conn_mem = 0, base_mem = 0;

	for (k = 0; k < ARRAY_LEN(per); k++) {
		sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", per[k].name,
			  per[k].help, per[k].name, per[k].type);
		for (i = 0; i < w->nt; i++) {
			const target *t = w->t[i];

			if (!t->is_go || !t->have_stats)
				continue;
			sb_add(b, per[k].name, strlen(per[k].name));
			put_target_labels(b, t, NULL);
			switch (per[k].which) {
			case 0:
				sb_printf(b, " %.0f\n", t->alloc_bytes);
				break;
			case 1:
				sb_printf(b, " %.0f\n", t->alloc_objects);
				break;
			case 2:
				sb_printf(b, " %lld\n",
					  (long long)t->inuse_bytes);
				break;
			case 3:
				sb_printf(b, " %lld\n",
					  (long long)t->inuse_objects);
				break;
			default:
				sb_printf(b, " %lld\n", (long long)t->rate);
				break;
			}
		}
	}
	sb_printf(b, "# HELP go_heap_watch_target_state 1 for the state of "
		  "each Go process's last collection.\n"
		  "# TYPE go_heap_watch_target_state gauge\n");
	for (i = 0; i < w->nt; i++) {
		const target *t = w->t[i];

		if (!t->is_go)
			continue;
		ngo++;
		nok += t->state == T_OK;
		sb_str(b, "go_heap_watch_target_state");
		put_target_labels(b, t, tstate_name[t->state]);
		sb_str(b, " 1\n");
	}
	put_per_target(b, w, PT_COLLECT_SECONDS,
		       "go_heap_watch_target_collect_seconds", "gauge",
		       "Time of the last collection of each process.");
	put_per_target(b, w, PT_ERRORS, "go_heap_watch_target_errors_total",
		       "counter", "Failed collections per process.");
	put_per_target(b, w, PT_OVER_BUDGET,
		       "go_heap_watch_target_over_budget_total", "counter",
		       "Collections that took longer than --target-budget.");
	sb_printf(b,
		  "# HELP go_heap_watch_targets Go processes found.\n"
		  "# TYPE go_heap_watch_targets gauge\n"
		  "go_heap_watch_targets %zu\n"
		  "# HELP go_heap_watch_targets_ok Go processes whose last "
		  "collection succeeded.\n"
		  "# TYPE go_heap_watch_targets_ok gauge\n"
		  "go_heap_watch_targets_ok %zu\n"
		  "# HELP go_heap_watch_scrape_duration_seconds Wall time of "
		  "the last collection round.\n"
		  "# TYPE go_heap_watch_scrape_duration_seconds gauge\n"
		  "go_heap_watch_scrape_duration_seconds %.6f\n"
		  "# HELP go_heap_watch_scrape_cpu_seconds CPU time of the last "
		  "collection round.\n"
		  "# TYPE go_heap_watch_scrape_cpu_seconds gauge\n"
		  "go_heap_watch_scrape_cpu_seconds %.6f\n"
		  "# HELP go_heap_watch_scrapes_total Collection rounds.\n"
		  "# TYPE go_heap_watch_scrapes_total counter\n"
		  "go_heap_watch_scrapes_total %llu\n"
		  "# HELP go_heap_watch_scrape_errors_total Failed target "
		  "collections.\n"
		  "# TYPE go_heap_watch_scrape_errors_total counter\n"
		  "go_heap_watch_scrape_errors_total %llu\n"
		  "# HELP go_heap_watch_http_requests_total HTTP requests.\n"
		  "# TYPE go_heap_watch_http_requests_total counter\n"
		  "go_heap_watch_http_requests_total %llu\n"
		  "# HELP go_heap_watch_http_errors_total HTTP requests "
		  "answered with 4xx/5xx.\n"
		  "# TYPE go_heap_watch_http_errors_total counter\n"
		  "go_heap_watch_http_errors_total %llu\n"
		  "# HELP go_heap_watch_output_files_written_total Delta "
		  "profiles written to --output-dir.\n"
		  "# TYPE go_heap_watch_output_files_written_total counter\n"
		  "go_heap_watch_output_files_written_total %llu\n"
		  "# HELP go_heap_watch_output_files_removed_total Files "
		  "removed by rotation.\n"
		  "# TYPE go_heap_watch_output_files_removed_total counter\n"
		  "go_heap_watch_output_files_removed_total %llu\n"
		  "# HELP go_heap_watch_cpu_seconds_total CPU time of the "
		  "exporter.\n"
		  "# TYPE go_heap_watch_cpu_seconds_total counter\n"
		  "go_heap_watch_cpu_seconds_total %.6f\n"
		  "# HELP go_heap_watch_resident_memory_bytes Resident set "
		  "size of the exporter.\n"
		  "# TYPE go_heap_watch_resident_memory_bytes gauge\n"
		  "go_heap_watch_resident_memory_bytes %ld\n",
		  ngo, nok, w->last_round_seconds, w->last_round_cpu,
		  w->rounds, w->errors, w->http_requests, w->http_errors,
		  w->out_written, w->out_removed, cpu_seconds(),
		  rss_bytes());
	for (i = 0; i < w->conn_cap; i++)
		if (w->c[i] != NULL)
			conn_mem += conn_bytes(w->c[i]);
	for (i = 0; i < w->nt; i++)
		base_mem += w->t[i]->nbase * sizeof(bucket_count);
	sb_printf(b,
		  "# HELP go_heap_watch_connections Open HTTP connections "
		  "(this scrape's included).\n"
		  "# TYPE go_heap_watch_connections gauge\n"
		  "go_heap_watch_connections %zu\n"
		  "# HELP go_heap_watch_connections_max Connection cap; at "
		  "it, the connection idle longest is closed for a new one.\n"
		  "# TYPE go_heap_watch_connections_max gauge\n"
		  "go_heap_watch_connections_max %zu\n"
		  "# HELP go_heap_watch_connections_evicted_total Idle or "
		  "incomplete connections closed to make room.\n"
		  "# TYPE go_heap_watch_connections_evicted_total counter\n"
		  "go_heap_watch_connections_evicted_total %llu\n"
		  "# HELP go_heap_watch_connections_refused_total Connections "
		  "closed at once: every open one was being answered.\n"
		  "# TYPE go_heap_watch_connections_refused_total counter\n"
		  "go_heap_watch_connections_refused_total %llu\n"
		  "# HELP go_heap_watch_connection_memory_bytes Memory held "
		  "by open connections: state, header buffers, unsent "
		  "responses (not the base profiles of parked ?seconds=N "
		  "requests).\n"
		  "# TYPE go_heap_watch_connection_memory_bytes gauge\n"
		  "go_heap_watch_connection_memory_bytes %zu\n"
		  "# HELP go_heap_watch_http_busy_total /pprof requests "
		  "answered 503: too many responses in progress.\n"
		  "# TYPE go_heap_watch_http_busy_total counter\n"
		  "go_heap_watch_http_busy_total %llu\n"
		  "# HELP go_heap_watch_bucket_state_bytes Memory kept "
		  "between collections for the counters' deltas (per-bucket "
		  "cumulative counters).\n"
		  "# TYPE go_heap_watch_bucket_state_bytes gauge\n"
		  "go_heap_watch_bucket_state_bytes %zu\n",
		  w->nconns, w->conn_cap, w->conns_evicted, w->conns_refused,
		  conn_mem, w->http_busy, base_mem);
}

/* ---- HTTP --------------------------------------------------------------- */

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

/* The idle list (watch.idle_head .. idle_tail): connections reading. */
static void idle_unlink(watch *w, conn *c)
{
	if (!c->idle_linked)
		return;
	if (c->idle_prev != NULL)
		c->idle_prev->idle_next = c->idle_next;
	else
		w->idle_head = c->idle_next;
	if (c->idle_next != NULL)
		c->idle_next->idle_prev = c->idle_prev;
	else
		w->idle_tail = c->idle_prev;
	c->idle_prev = c->idle_next = NULL;
	c->idle_linked = 0;
}

/* Append c (it was just accepted, or just sent bytes): the newest. */
static void idle_touch(watch *w, conn *c)
{
	idle_unlink(w, c);
	c->idle_prev = w->idle_tail;
	c->idle_next = NULL;
	if (w->idle_tail != NULL)
		w->idle_tail->idle_next = c;
	else
		w->idle_head = c;
	w->idle_tail = c;
	c->idle_linked = 1;
}

static void respond(watch *w, conn *c, int code, const char *ctype,
		    const char *extra, const void *body, size_t len, int head)
{
	idle_unlink(w, c);
	/* The request is done with: only the response is kept. */
	free(c->in);
	c->in = NULL;
	c->inlen = c->incap = 0;
	c->out.len = 0;
	sb_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		  "Content-Length: %zu\r\nConnection: close\r\n"
		  "X-Content-Type-Options: nosniff\r\n%s\r\n", code,
		  reason(code), ctype, len, extra ? extra : "");
	if (!head)
		sb_add(&c->out, body, len);
	if (code >= 400)
		w->http_errors++;
	c->writing = 1;
	c->outoff = 0;
	c->deadline = now_mono() + WRITE_TIMEOUT_MS / 1000.0;
}

/* Errors carry X-Go-Pprof as net/http/pprof's serveError sets it, so that
 * go tool pprof shows the message instead of a parse error. */
static void respond_text(watch *w, conn *c, int code, const char *msg)
{
	respond(w, c, code, "text/plain; charset=utf-8",
		code >= 400 ? "X-Go-Pprof: 1\r\n" : NULL, msg, strlen(msg), 0);
}

static const char *const kinds[] = { "heap", "allocs", "block", "mutex" };

static void put_html(sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '<')
			sb_add(b, "&lt;", 4);
		else if (*s == '>')
			sb_add(b, "&gt;", 4);
		else if (*s == '&')
			sb_add(b, "&amp;", 5);
		else if (*s == '"')
			sb_add(b, "&quot;", 6);
		else
			sb_add(b, s, 1);
	}
}

static void index_page(watch *w, conn *c, int head)
{
	sbuf b = { NULL, 0, 0, 0 };
	size_t i, k;

	sb_printf(&b, "<html><head><title>go-heap watch</title></head>"
		  "<body><h1>go-heap watch</h1><p><a href=\"/metrics\">"
		  "metrics</a></p><table><tr><th>pid</th><th>comm</th>"
		  "<th>exe</th><th>container</th><th>state</th>"
		  "<th>profiles</th></tr>\n");
	for (i = 0; i < w->nt; i++) {
		const target *t = w->t[i];

		if (!t->is_go)
			continue;
		sb_printf(&b, "<tr><td>%d</td><td>", t->pid);
		put_html(&b, t->comm);
		sb_printf(&b, "</td><td>");
		put_html(&b, t->exe);
		sb_printf(&b, "</td><td>%.12s</td><td>%s</td><td>",
			  t->container, tstate_name[t->state]);
		for (k = 0; k < ARRAY_LEN(kinds); k++)
			sb_printf(&b, "<a href=\"/pprof/%d/%s?debug=1\">%s</a> ",
				  t->pid, kinds[k], kinds[k]);
		sb_printf(&b, "</td></tr>\n");
	}
	sb_printf(&b, "</table></body></html>\n");
	if (b.oom)
		respond_text(w, c, 500, "out of memory\n");
	else
		respond(w, c, 200, "text/html; charset=utf-8", NULL, b.p, b.len,
			head);
	free(b.p);
}

/* The value of `key` in query string q ("a=1&b=2"), or NULL. */
static const char *query_get(const char *q, const char *key, char *buf,
			     size_t len)
{
	size_t kl = strlen(key);

	while (q != NULL && *q != '\0') {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);

		if (n > kl && strncmp(q, key, kl) == 0 && q[kl] == '=') {
			n -= kl + 1;
			if (n >= len)
				n = len - 1;
			memcpy(buf, q + kl + 1, n);
			buf[n] = '\0';
			return buf;
		}
		if (n == kl && strncmp(q, key, kl) == 0) {
			buf[0] = '\0';
			return buf;
		}
		q = amp ? amp + 1 : NULL;
	}
	return NULL;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Write profile p (or its delta over base) as the handler would. */
static void send_profile(watch *w, conn *c, target *t,
			 const goheap_profile *p, long debug,
			 const goheap_profile *base, int head)
{
	goheap_write_options wo = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *d = NULL;
	unsigned char *buf = NULL;
	size_t len = 0;
	char disp[128];
	int rc;

	if (base != NULL) {
		if (goheap_profile_delta(&d, p, base) != 0) {
			respond_text(w, c, 500, "out of memory\n");
			return;
		}
		p = d;
	}
	wo.format = debug > 0 ? GOHEAP_FORMAT_TEXT : GOHEAP_FORMAT_PPROF;
	rc = goheap_profile_write(t->s, p, &wo, &buf, &len);
	if (rc != 0) {
		char msg[300];

		snprintf(msg, sizeof(msg), "Could not write profile: %s\n",
			 goheap_errmsg(t->s));
		respond_text(w, c, 500, msg);
	} else if (debug > 0) {
		respond(w, c, 200, "text/plain; charset=utf-8", NULL, buf, len,
			head);
	} else {
		snprintf(disp, sizeof(disp), "Content-Disposition: attachment; "
			 "filename=\"%s%s\"\r\n", kinds[goheap_profile_kind(p)],
			 base != NULL ? "-delta" : "");
		respond(w, c, 200, "application/octet-stream", disp, buf, len,
			head);
	}
	goheap_free(buf);
	goheap_profile_free(d);
}

static int collect_kind(target *t, int kind, goheap_profile **out)
{
	int rc = ensure_session(t);

	if (rc != 0)
		return rc;
	rc = goheap_profile_collect(out, t->s, kind);
	if (rc != 0 && rc != GOHEAP_EDISABLED) {
		snprintf(t->err, sizeof(t->err), "%s", goheap_errmsg(t->s));
		if (rc != GOHEAP_ETIMEDOUT) {
			goheap_close(t->s);
			t->s = NULL;
		}
	}
	return rc;
}

/* /pprof responses being written or parked (c itself is neither yet). */
static size_t busy_conns(const watch *w)
{
	size_t i, n = 0;

	for (i = 0; i < w->conn_cap; i++)
		n += w->c[i] != NULL && (w->c[i]->writing || w->c[i]->parked);
	return n;
}

static void pprof_request(watch *w, conn *c, const char *path,
			  const char *q, int head)
{
	char pidbuf[16], kbuf[16], vbuf[32], msg[400];
	const char *slash;
	long pid, debug = 0, secs = 0;
	target *t;
	goheap_profile *p = NULL;
	size_t n;
	int kind = -1, rc, k;

	/* path is "PID/KIND" */
	slash = strchr(path, '/');
	n = slash ? (size_t)(slash - path) : strlen(path);
	if (n == 0 || n >= sizeof(pidbuf)) {
		respond_text(w, c, 404, "404 page not found\n");
		return;
	}
	memcpy(pidbuf, path, n);
	pidbuf[n] = '\0';
	if (parse_int(pidbuf, 1, 0x7fffffff, &pid) != 0) {
		respond_text(w, c, 404, "404 page not found\n");
		return;
	}
	t = find_target(w, (int)pid);
	if (t == NULL || !t->is_go) {
		respond_text(w, c, 404, "Unknown process (not a Go process "
			     "this exporter watches)\n");
		return;
	}
	if (slash == NULL || slash[1] == '\0') {
		index_page(w, c, head);
		return;
	}
	snprintf(kbuf, sizeof(kbuf), "%.15s", slash + 1);
	for (k = 0; k < (int)ARRAY_LEN(kinds); k++)
		if (strcmp(slash + 1, kinds[k]) == 0)
			kind = k;
	if (kind < 0) {
		respond_text(w, c, 404, "Unknown profile\n");
		return;
	}
	if (w->mode == GH_WATCH_DISABLED) {
		respond_text(w, c, 403, "profiling is disabled "
			     "(--go-heap-profiler=disabled)\n");
		return;
	}
	if (query_get(q, "debug", vbuf, sizeof(vbuf)) != NULL &&
	    parse_int(vbuf, 0, 1000, &debug) != 0)
		debug = 0;  /* Go: strconv.Atoi error means 0 */
	if (query_get(q, "seconds", vbuf, sizeof(vbuf)) != NULL) {
		if (parse_int(vbuf, -0x7fffffff, 0x7fffffff, &secs) != 0 ||
		    secs <= 0) {
			respond_text(w, c, 400, "invalid value for \"seconds\""
				     "\n");
			return;
		}
		if (debug != 0) {
			respond_text(w, c, 400, "seconds and debug params are "
				     "incompatible\n");
			return;
		}
		if (secs > MAX_DELTA_SECONDS) {
			respond_text(w, c, 400, "profile duration exceeds "
				     "server's WriteTimeout\n");
			return;
		}
	}
	if (busy_conns(w) >= MAX_BUSY) {
		/* Each holds a profile or its bytes: bound what they cost. */
		w->http_busy++;
		respond_text(w, c, 503, "too many profile requests in "
			     "progress, retry later\n");
		return;
	}
	rc = collect_kind(t, kind, &p);
	if (rc != 0) {
		if (rc == GOHEAP_EDISABLED)
			snprintf(msg, sizeof(msg), "Could not collect profile: "
				 "memory profiling is disabled in the target "
				 "(runtime.MemProfileRate is 0)\n");
		else
			snprintf(msg, sizeof(msg), "Could not collect profile: "
				 "%s\n", t->err);
		respond_text(w, c, rc == GOHEAP_EDISABLED ? 503 : 500, msg);
		goheap_profile_free(p);
		release_session(t, count_go(w));
		return;
	}
	if (secs > 0) {
		/* Park it: the loop finishes it when due. */
		idle_unlink(w, c);
		free(c->in);
		c->in = NULL;
		c->inlen = c->incap = 0;
		release_session(t, count_go(w));
		c->p0 = p;
		c->parked = 1;
		c->pid = (int)pid;
		c->kind = kind;
		c->due = now_mono() + (double)secs;
		c->deadline = c->due + WRITE_TIMEOUT_MS / 1000.0;
		return;
	}
	send_profile(w, c, t, p, debug, NULL, head);
	goheap_profile_free(p);
	release_session(t, count_go(w));
}

static void finish_parked(watch *w, conn *c)
{
	target *t = find_target(w, c->pid);
	goheap_profile *p = NULL;
	int rc;

	c->parked = 0;
	if (t == NULL || !t->is_go) {
		respond_text(w, c, 500, "Could not collect profile: the "
			     "process exited\n");
		goto out;
	}
	rc = collect_kind(t, c->kind, &p);
	if (rc != 0) {
		respond_text(w, c, 500, "Could not collect profile\n");
		release_session(t, count_go(w));
		goto out;
	}
	send_profile(w, c, t, p, 0, c->p0, 0);
	release_session(t, count_go(w));
out:
	goheap_profile_free(p);
	goheap_profile_free(c->p0);
	c->p0 = NULL;
}

static void handle_request(watch *w, conn *c)
{
	char *line = c->in, *sp1, *sp2, *q, *eol;
	int head = 0;

	w->http_requests++;
	eol = strstr(line, "\r\n");
	if (eol == NULL) {
		respond_text(w, c, 400, "bad request\n");
		return;
	}
	*eol = '\0';
	sp1 = strchr(line, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (sp1 == NULL || sp2 == NULL || strncmp(sp2 + 1, "HTTP/1.", 7) != 0) {
		respond_text(w, c, 400, "bad request\n");
		return;
	}
	*sp1 = '\0';
	*sp2 = '\0';
	if (strcmp(line, "HEAD") == 0)
		head = 1;
	else if (strcmp(line, "GET") != 0) {
		respond_text(w, c, 405, "method not allowed\n");
		return;
	}
	line = sp1 + 1;
	q = strchr(line, '?');
	if (q != NULL)
		*q++ = '\0';
	if (strcmp(line, "/") == 0 || strcmp(line, "/pprof") == 0 ||
	    strcmp(line, "/pprof/") == 0) {
		index_page(w, c, head);
	} else if (strcmp(line, "/metrics") == 0) {
		sbuf b = { NULL, 0, 0, 0 };

		metrics(w, &b);
		if (b.oom)
			respond_text(w, c, 500, "out of memory\n");
		else
			respond(w, c, 200, "text/plain; version=0.0.4; "
				"charset=utf-8", NULL, b.p, b.len, head);
		free(b.p);
	} else if (strncmp(line, "/pprof/", 7) == 0) {
		pprof_request(w, c, line + 7, q, head);
	} else {
		respond_text(w, c, 404, "404 page not found\n");
	}
}

static void conn_close(watch *w, size_t i)
{
	conn *c = w->c[i];

	idle_unlink(w, c);
	close(c->fd);
	free(c->in);
	free(c->out.p);
	goheap_profile_free(c->p0);
	free(c);
	w->c[i] = NULL;
	w->free_slots[w->nfree++] = i;
	w->nconns--;
}

static void conn_read(watch *w, conn *c)
{
	ssize_t n;

	if (c->inlen >= MAX_REQ) {
		respond_text(w, c, 431, "request too large\n");
		return;
	}
	/* Grow the header buffer as bytes come: REQ_CHUNK, then doubling up
	 * to MAX_REQ + 1 (an idle or half-sent request costs little). */
	if (c->incap - c->inlen < REQ_CHUNK / 2 && c->incap < MAX_REQ + 1) {
		size_t nc = c->incap ? c->incap * 2 : REQ_CHUNK;
		char *np;

		if (nc > MAX_REQ + 1)
			nc = MAX_REQ + 1;
		np = realloc(c->in, nc);
		if (np == NULL) {
			c->deadline = 0;  /* drop */
			return;
		}
		c->in = np;
		c->incap = nc;
	}
	n = recv(c->fd, c->in + c->inlen, c->incap - 1 - c->inlen, 0);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		c->deadline = 0;  /* peer closed: drop */
		return;
	}
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if (strstr(c->in, "\r\n\r\n") != NULL ||
	    strstr(c->in, "\n\n") != NULL)
		handle_request(w, c);
	else if (c->inlen >= MAX_REQ)
		respond_text(w, c, 431, "request too large\n");
	else
		idle_touch(w, c);
}

/* 1 when done (close it). */
static int conn_write(conn *c)
{
	ssize_t n;

	while (c->outoff < c->out.len) {
		n = send(c->fd, c->out.p + c->outoff, c->out.len - c->outoff,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return 1;
		}
		c->outoff += (size_t)n;
	}
	return 1;
}

/*
 * Make room for one more connection: close the one that has been reading
 * a request, without a byte, for the longest time.  0, or -1 when every
 * connection is being answered (then the new one is refused).
 */
static int evict_idle(watch *w)
{
	if (w->idle_head == NULL)
		return -1;
	conn_close(w, w->idle_head->slot);
	w->conns_evicted++;
	return 0;
}

static void accept_conns(watch *w)
{
	int fd;
	conn *c;

	for (;;) {
		fd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EMFILE && errno != ENFILE &&
			    errno != ENOBUFS && errno != ENOMEM)
				return;
			/* Out of descriptors or memory: free an idle one and
			 * retry, or stop accepting for a moment (the
			 * listener would wake poll at once). */
			if (evict_idle(w) == 0)
				continue;
			w->accept_pause = now_mono() + 0.1;
			return;
		}
		if (w->nconns >= w->conn_cap && evict_idle(w) != 0) {
			w->conns_refused++;
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			w->conns_refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->slot = w->free_slots[--w->nfree];
		c->deadline = now_mono() + READ_TIMEOUT_MS / 1000.0;
		w->c[c->slot] = c;
		w->nconns++;
		idle_touch(w, c);
	}
}

static int open_listener(const char *spec, char *desc, size_t dlen)
{
	char host[256], port[16];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints, *ai = NULL, *a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, one = 1;
	size_t hl;

	errno = EINVAL;
	if (colon == NULL || strlen(colon + 1) >= sizeof(port))
		return -1;
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	snprintf(port, sizeof(port), "%s", colon + 1);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (getaddrinfo(hl ? host : NULL, port, &hints, &ai) != 0) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	for (a = ai; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
		    listen(fd, 1024) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		char h[128], p[16];

		if (getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p,
				sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
			snprintf(desc, dlen, ss.ss_family == AF_INET6 ?
				 "[%s]:%s" : "%s:%s", h, p);
	}
	return fd;
}

/* ---- options and main loop --------------------------------------------- */

/* 0, or -1 (out of memory) when pfd/idx cannot be allocated. */
static int serve(watch *w)
{
	struct pollfd *pfd;
	size_t *idx, i, n;
	double next = now_mono(), t, wake;
	int ms;

	pfd = calloc(w->conn_cap + 1, sizeof(*pfd));
	idx = calloc(w->conn_cap + 1, sizeof(*idx));
	if (pfd == NULL || idx == NULL) {
		free(pfd);
		free(idx);
		return -1;
	}
	while (!stop_flag) {
		t = now_mono();
		if (t >= next) {
			collect_all(w);
			next += w->interval;
			t = now_mono();
			if (next < t)
				next = t + w->interval;
		}
		wake = next;
		n = 0;
		if (w->accept_pause <= t) {
			pfd[n].fd = w->lfd;
			pfd[n].events = POLLIN;
			idx[n++] = (size_t)-1;
		} else if (w->accept_pause < wake) {
			wake = w->accept_pause;
		}
		for (i = 0; i < w->conn_cap; i++) {
			conn *c = w->c[i];

			if (c == NULL)
				continue;
			if (c->parked && t >= c->due)
				finish_parked(w, c);
			if (c->deadline <= t) {
				if (!c->writing && !c->parked && c->inlen > 0)
					respond_text(w, c, 408,
						     "request timeout\n");
				if (c->deadline <= t) {
					conn_close(w, i);
					continue;
				}
			}
			if (c->parked) {
				if (c->due < wake)
					wake = c->due;
				continue;
			}
			if (c->deadline < wake)
				wake = c->deadline;
			pfd[n].fd = c->fd;
			pfd[n].events = c->writing ? POLLOUT : POLLIN;
			pfd[n].revents = 0;
			idx[n++] = i;
		}
		ms = (int)((wake - t) * 1000) + 1;
		if (ms < 0)
			ms = 0;
		if (ms > 1000)
			ms = 1000;
		if (poll(pfd, (nfds_t)n, ms) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			conn *c;

			if (idx[i] == (size_t)-1 || pfd[i].revents == 0)
				continue;
			c = w->c[idx[i]];
			if (c->writing) {
				if (conn_write(c))
					conn_close(w, idx[i]);
			} else if (pfd[i].revents & (POLLIN | POLLHUP |
						      POLLERR)) {
				conn_read(w, c);
				if (c->writing && conn_write(c))
					conn_close(w, idx[i]);
			}
		}
		if (n > 0 && idx[0] == (size_t)-1 && (pfd[0].revents & POLLIN))
			accept_conns(w);
	}
	free(pfd);
	free(idx);
	return 0;
}

/*
 * The connection cap: MAX_CONNS, or fewer when the descriptor limit
 * (raised to its hard limit first) leaves less than that beside
 * FD_RESERVE for the targets and files.
 */
static size_t connection_cap(void)
{
	struct rlimit rl;
	rlim_t avail;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 32;
	if (rl.rlim_cur != RLIM_INFINITY &&
	    (rl.rlim_max == RLIM_INFINITY || rl.rlim_cur < rl.rlim_max)) {
		struct rlimit want = rl;

		want.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return MAX_CONNS;
	avail = rl.rlim_cur > FD_RESERVE + 32 ? rl.rlim_cur - FD_RESERVE : 32;
	return avail < MAX_CONNS ? (size_t)avail : MAX_CONNS;
}

int gh_watch_main(int argc, char **argv)
{
	watch w;
	gh_watch_opts o;
	struct sigaction sa;
	char desc[200], err[300], help[4096];
	size_t i;
	int rc = 0;

	if (gh_watch_parse(&o, argc, argv, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "go-heap watch: %s (see go-heap watch --help)\n",
			err);
		gh_watch_opts_free(&o);
		return 2;
	}
	if (o.help) {
		gh_watch_help(help, sizeof(help));
		fputs(help, stdout);
		gh_watch_opts_free(&o);
		return 0;
	}
	memset(&w, 0, sizeof(w));
	w.listen = o.listen;
	w.interval = o.interval;
	w.budget = o.budget;
	w.mode = o.mode;
	w.outdir = o.outdir;
	w.outmax = o.outmax;
	w.pids = o.pids;        /* freed below, as w.pids */
	w.npids = o.npids;
	w.verbose = o.verbose;
	w.lfd = -1;
	if (w.outdir != NULL && mkdir(w.outdir, 0755) != 0 &&
	    errno != EEXIST) {
		fprintf(stderr, "go-heap watch: cannot create %s: %s\n",
			w.outdir, strerror(errno));
		free(w.pids);
		return 1;
	}
	w.conn_cap = connection_cap();
	w.c = calloc(w.conn_cap, sizeof(*w.c));
	w.free_slots = calloc(w.conn_cap, sizeof(*w.free_slots));
	if (w.c == NULL || w.free_slots == NULL) {
		fprintf(stderr, "go-heap watch: out of memory\n");
		free(w.c);
		free(w.free_slots);
		free(w.pids);
		return 1;
	}
	/* Free slots, lowest on top. */
	for (i = 0; i < w.conn_cap; i++)
		w.free_slots[i] = w.conn_cap - 1 - i;
	w.nfree = w.conn_cap;
	snprintf(desc, sizeof(desc), "%s", w.listen);
	w.lfd = open_listener(w.listen, desc, sizeof(desc));
	if (w.lfd < 0) {
		fprintf(stderr, "go-heap watch: cannot listen on %s: %s\n",
			w.listen, strerror(errno));
		free(w.c);
		free(w.free_slots);
		free(w.pids);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "go-heap watch: listening on %s\n", desc);
	w.started = now_mono();
	if (serve(&w) != 0) {
		fprintf(stderr, "go-heap watch: out of memory\n");
		rc = 1;
	}
	for (i = 0; i < w.conn_cap; i++)
		if (w.c[i] != NULL)
			conn_close(&w, i);
	for (i = 0; i < w.nt; i++)
		target_free(w.t[i]);
	free(w.t);
	free(w.c);
	free(w.free_slots);
	free(w.pids);
	close(w.lfd);
	return rc;
}

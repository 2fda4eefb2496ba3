/*
 * watch_pressure.c - go-heap watch --on-memory-pressure.
 *
 * Once a second, for each Go process the fleet watches, its memory cgroup
 * is found from /proc/PID/cgroup and this process's /proc/self/mountinfo
 * (where each hierarchy is mounted, and which part of it):
 *   - cgroup v2 (the "0::PATH" line, when the directory has memory files):
 *     memory.current, memory.high, memory.max and memory.events' "high"
 *     counter;
 *   - else cgroup v1 (the "N:...memory...:PATH" line; hybrid hosts bind
 *     the memory controller to v1 and leave v2 without it): the working
 *     set, memory.usage_in_bytes minus memory.stat's total_inactive_file
 *     (the kubelet's figure: clean page cache the kernel reclaims before
 *     it kills anyone is not pressure), against memory.soft_limit_in_bytes
 *     (v2's memory.high equivalent) or else the lower of
 *     memory.limit_in_bytes and memory.stat's hierarchical_memory_limit
 *     (a parent's limit); v1 writes "no limit" as a huge page-rounded
 *     number (2^63 - 4096 with 4 KiB pages), taken as none here from 2^62.
 * /proc/PID/statm gives its RSS.  It is under pressure when the v2 "high"
 * counter rose since the last check (the kernel throttled it over
 * memory.high), when the usage (v2: memory.current, v1: the working set)
 * reached 90% of the limit, or when its RSS reached --memory-pressure-rss.
 * Then, at most once per process per --memory-pressure-period, its heap
 * (inuse, the whole profile), types and retained profiles are collected
 * with the fleet's session (the brief stop each) and written to
 * --output-dir as PID-COMM-TIME-pressure-KIND.pb.gz, and one line on
 * stderr says why.
 *
 * The paths in /proc/PID/cgroup are relative to this process's cgroup
 * namespace, and are looked up in this process's mounts: a target in
 * another mount namespace (a container) is found as long as its cgroup is
 * below the part of the hierarchy mounted here; one that is not (this
 * process in a container with its own cgroup namespace or a cgroupfs
 * mounted from a subdirectory, the target outside it) has no cgroup
 * check, only the RSS threshold (-v says so once).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "watch_cgroup.h"
#include "watch_outdir.h"
#include "watch_pressure.h"
#include "watch_util.h"

#define CHECK_EVERY 1.0
#define FRACTION 0.9
/* A process at NEAR of a limit or more is checked every CHECK_NEAR s: at
 * 5 MiB/s, 90% to the kill of a 96 MiB limit is 2 s. */
#define NEAR 0.75
#define CHECK_NEAR 0.25
/* v1's "no limit": PAGE_COUNTER_MAX pages, LONG_MAX rounded down to a
 * page (9223372036854771712 with 4 KiB pages); anything from 2^62 on is
 * taken as none. */
#define V1_NO_LIMIT (1ULL << 62)

/* Where a cgroup hierarchy is mounted here: the mount point and the part
 * of the hierarchy it shows (mountinfo's root, "/" for the whole). */
typedef struct cgmount {
	char *dir;
	char *root;
} cgmount;

typedef struct pstate {
	int pid;
	unsigned long long start;    /* /proc/PID/stat's start time */
	unsigned long long high_events;
	int have_events;
	double last;                 /* when profiles were last written */
	int written;
	int seen;                    /* -v said where its limits are read */
	int told;                    /* -v said it is still under pressure */
	int ml_told;                 /* -v said GOMEMLIMIT: 1 cannot be read,
	                                2 its value */
} pstate;

struct wp_state {
	wp_config cfg;
	pstate *v;
	size_t n, cap;
	double next;
	unsigned long long sets;
	cgmount v2, v1;              /* cgroup2; v1's memory controller */
};

static int set_mount(cgmount *m, const char *dir, const char *root)
{
	/* the first mount of it, unless a later one covers the same point */
	if (m->dir != NULL && strcmp(m->dir, dir) != 0)
		return 0;
	free(m->dir);
	free(m->root);
	m->dir = strdup(dir);
	m->root = strdup(root);
	return m->dir != NULL && m->root != NULL ? 0 : -1;
}

/* The cgroup2 mount and the cgroup v1 mount with the memory controller,
 * from /proc/self/mountinfo, read once: 0, or -1 (out of memory).
 * Without mountinfo, the usual places. */
static int find_mounts(wp_state *p)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	const char *dir, *root;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0, kind;

	while (fp != NULL && rc == 0 && getline(&line, &cap, fp) > 0) {
		kind = wcg_mountinfo_line(line, &dir, &root);
		if (kind == WCG_V2)
			rc = set_mount(&p->v2, dir, root);
		else if (kind == WCG_V1_MEMORY)
			rc = set_mount(&p->v1, dir, root);
	}
	free(line);
	if (fp != NULL)
		fclose(fp);
	if (rc == 0 && fp == NULL) {
		rc = set_mount(&p->v2, "/sys/fs/cgroup", "/");
		if (rc == 0)
			rc = set_mount(&p->v1, "/sys/fs/cgroup/memory", "/");
	}
	return rc;
}

wp_state *wp_new(const wp_config *cfg)
{
	wp_state *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->cfg = *cfg;
	if (find_mounts(p) != 0) {
		wp_free(p);
		return NULL;
	}
	return p;
}

void wp_free(wp_state *p)
{
	if (p == NULL)
		return;
	free(p->v);
	free(p->v2.dir);
	free(p->v2.root);
	free(p->v1.dir);
	free(p->v1.root);
	free(p);
}

unsigned long long wp_written(const wp_state *p)
{
	return p->sets;
}

double wp_due_in(const wp_state *p, double now)
{
	return p->next > now ? p->next - now : 0;
}

static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *q;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	q = strrchr(buf, ')');
	for (i = 3; q != NULL && i <= 22; i++)
		q = strchr(q + 1, ' ');
	return q != NULL ? strtoull(q + 1, NULL, 10) : 0;
}

static pstate *state_of(wp_state *p, int pid)
{
	unsigned long long st = start_time(pid);
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].pid == pid) {
			if (p->v[i].start != st && st != 0) {  /* a new
							       * process */
				memset(&p->v[i], 0, sizeof(p->v[i]));
				p->v[i].pid = pid;
				p->v[i].start = st;
			}
			return &p->v[i];
		}
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		pstate *v = realloc(p->v, nc * sizeof(*v));

		if (v == NULL)
			return NULL;
		p->v = v;
		p->cap = nc;
	}
	memset(&p->v[p->n], 0, sizeof(p->v[0]));
	p->v[p->n].pid = pid;
	p->v[p->n].start = st;
	return &p->v[p->n++];
}

/* A cgroup memory file's value: a number, or v2's "max" (0 here: none). */
static int cg_value(const char *dir, const char *file,
		    unsigned long long *out)
{
	char path[4200], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	*out = strncmp(buf, "max", 3) == 0 ? 0 : strtoull(buf, NULL, 10);
	return 0;
}


/* The process's memory cgroup directory: 2 (v2, with memory files: the
 * root cgroup has none, nor a v2 hierarchy without the memory controller),
 * 1 (v1's memory controller), 0 (none found; *unseen set when the line
 * names a cgroup that is not below the mounts here) or -1 (no process). */
static int cg_dir(const wp_state *p, int pid, char *dir, size_t len,
		  int *unseen)
{
	char path[64], buf[8192], v1dir[4200];
	const char *v2p, *v1p;
	unsigned long long v;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	wcg_proc_cgroup(buf, &v2p, &v1p);
	if (v2p != NULL) {
		rc = wcg_path(p->v2.dir, p->v2.root, v2p, dir, len);
		if (rc == 0 && cg_value(dir, "memory.current", &v) == 0)
			return 2;
		if (rc == -1)
			*unseen = 1;
	}
	if (v1p != NULL) {
		rc = wcg_path(p->v1.dir, p->v1.root, v1p, v1dir,
			      sizeof(v1dir));
		if (rc == 0 &&
		    cg_value(v1dir, "memory.usage_in_bytes", &v) == 0) {
			snprintf(dir, len, "%s", v1dir);
			*unseen = 0;
			return 1;
		}
		if (rc == -1)
			*unseen = 1;
	}
	return 0;
}

static unsigned long long rss_of(int pid)
{
	char path[64], buf[256];
	unsigned long long pages = 0, res = 0;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &pages, &res) != 2)
		return 0;
	return res * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* cgroup v2: why it is under pressure ("" if it is not). */
static void reason_v2(pstate *s, const char *dir, char *why, size_t len,
		      double *near)
{
	char path[4300], buf[4096], *h;
	unsigned long long cur = 0, high = 0, max = 0, ev, lim;

	cg_value(dir, "memory.current", &cur);
	cg_value(dir, "memory.high", &high);
	cg_value(dir, "memory.max", &max);
	snprintf(path, sizeof(path), "%s/memory.events", dir);
	if (read_small(path, buf, sizeof(buf)) > 0 &&
	    (h = strstr(buf, "high ")) != NULL &&
	    (h == buf || h[-1] == '\n')) {
		ev = strtoull(h + 5, NULL, 10);
		if (s->have_events && ev > s->high_events)
			snprintf(why, len, "cgroup %s: memory.events high "
				 "%llu -> %llu (throttled over memory.high "
				 "%llu)", dir, s->high_events, ev, high);
		s->high_events = ev;
		s->have_events = 1;
	}
	lim = high != 0 ? high : max;
	if (lim != 0)
		*near = (double)cur / (double)lim;
	if (why[0] == '\0' && lim != 0 && (double)cur >= FRACTION * (double)lim)
		snprintf(why, len, "cgroup %s: memory.current %llu >= 90%% of "
			 "memory.%s %llu", dir, cur, high != 0 ? "high" : "max",
			 lim);
}

/* cgroup v1: why it is under pressure ("" if it is not). */
static void reason_v1(const char *dir, char *why, size_t len, double *near)
{
	char path[4300], buf[8192];
	unsigned long long use = 0, lim = 0, soft = 0, fail = 0, hier, inact;
	unsigned long long ws;
	const char *what = "limit_in_bytes";

	cg_value(dir, "memory.usage_in_bytes", &use);
	cg_value(dir, "memory.limit_in_bytes", &lim);
	cg_value(dir, "memory.soft_limit_in_bytes", &soft);
	cg_value(dir, "memory.failcnt", &fail);
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		buf[0] = '\0';
	inact = wcg_stat_value(buf, "total_inactive_file");
	hier = wcg_stat_value(buf, "hierarchical_memory_limit");
	if (lim == 0 || lim >= V1_NO_LIMIT)
		lim = 0;
	if (hier != 0 && hier < V1_NO_LIMIT && (lim == 0 || hier < lim)) {
		lim = hier;
		what = "stat's hierarchical_memory_limit";
	}
	if (soft != 0 && soft < V1_NO_LIMIT && (lim == 0 || soft < lim)) {
		lim = soft;
		what = "soft_limit_in_bytes";
	}
	ws = use > inact ? use - inact : 0;
	if (lim != 0)
		*near = (double)ws / (double)lim;
	if (lim != 0 && (double)ws >= FRACTION * (double)lim)
		snprintf(why, len, "cgroup v1 %s: working set %llu "
			 "(memory.usage_in_bytes %llu - total_inactive_file "
			 "%llu) >= 90%% of memory.%s %llu; memory.failcnt %llu",
			 dir, ws, use, inact, what, lim, fail);
}

/* GOMEMLIMIT: why it is under pressure ("" if it is not). */
static void reason_memlimit(wp_state *p, wt_fleet *f, pstate *s, int pid,
			    char *why, size_t len, double *near)
{
	goheap_memlimit m = GOHEAP_MEMLIMIT_INIT;
	char err[300];
	uint64_t live;
	int rc = wt_memory_limit(f, pid, &m, err, sizeof(err));

	if (rc < 0 && p->cfg.verbose && !(s->ml_told & 1)) {
		s->ml_told |= 1;
		fprintf(stderr, "go-heap watch: %d: memory pressure: "
			"GOMEMLIMIT not read: %s\n", pid, err);
	}
	if (rc != 0 || m.limit <= 0 || m.limit == INT64_MAX)
		return;
	if (p->cfg.verbose && !(s->ml_told & 2)) {
		s->ml_told |= 2;
		fprintf(stderr, "go-heap watch: %d: memory pressure: GOMEMLIMIT "
			"%lld (the runtime holds %llu)\n", pid,
			(long long)m.limit,
			(unsigned long long)m.mapped_ready);
	}
	/* what the runtime itself compares with the limit (mgcscavenge.go,
	 * mgcpacer.go): mappedReady; the last GC's live heap + the non-heap
	 * memory (memoryLimitHeapGoal's split) says how much of it a GC
	 * could not free, but it moves once per GC: a growing program's
	 * heapMarked jumps from half the limit to past it in one cycle */
	live = m.heap_marked + m.nonheap;
	if ((double)m.mapped_ready / (double)m.limit > *near)
		*near = (double)m.mapped_ready / (double)m.limit;
	if ((double)m.mapped_ready >= FRACTION * (double)m.limit)
		snprintf(why, len, "GOMEMLIMIT %lld: the runtime holds %llu "
			 "(mappedReady) >= 90%%; the heap the last GC marked "
			 "%llu + non-heap %llu = %llu", (long long)m.limit,
			 (unsigned long long)m.mapped_ready,
			 (unsigned long long)m.heap_marked,
			 (unsigned long long)m.nonheap,
			 (unsigned long long)live);
}

/* Why pid is under pressure ("" if it is not); *near = the highest
 * fraction of a limit it is at (0 if none). */
static void pressure_reason(wp_state *p, wt_fleet *f, pstate *s, int pid,
			    char *why, size_t len, double *near)
{
	char dir[4200];
	unsigned long long rss = 0;
	int unseen = 0, kind;

	why[0] = '\0';
	kind = cg_dir(p, pid, dir, sizeof(dir), &unseen);
	if (p->cfg.verbose && !s->seen && kind >= 0) {
		s->seen = 1;
		if (kind > 0)
			fprintf(stderr, "go-heap watch: %d: memory pressure: "
				"cgroup v%d %s\n", pid, kind, dir);
		else
			fprintf(stderr, "go-heap watch: %d: memory pressure: "
				"no memory cgroup%s; RSS only\n", pid,
				unseen ? " below the cgroup mounts here "
				"(another cgroup namespace?)" : "");
	}
	*near = 0;
	if (kind < 0)                /* gone (its /proc/PID/cgroup with it) */
		return;
	if (kind == 2)
		reason_v2(s, dir, why, len, near);
	else if (kind == 1)
		reason_v1(dir, why, len, near);
	if (p->cfg.rss > 0 && (why[0] == '\0' || *near < NEAR)) {
		rss = rss_of(pid);
		if ((double)rss / (double)p->cfg.rss > *near)
			*near = (double)rss / (double)p->cfg.rss;
	}
	if (why[0] == '\0' && p->cfg.rss > 0 && rss >= p->cfg.rss)
		snprintf(why, len, "RSS %llu >= --memory-pressure-rss %llu",
			 rss, p->cfg.rss);
	if (why[0] == '\0')
		reason_memlimit(p, f, s, pid, why, len, near);
}

/* Write buf to DIR/NAME through NAME.tmp (O_EXCL, never following a
 * planted name); 0 or -1. */
static int write_file(const char *dir, const char *name,
		      const unsigned char *buf, size_t len)
{
	char path[4400], tmp[4410];
	int fd;
	ssize_t w;
	size_t off = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -1;
	while (off < len) {
		w = write(fd, buf + off, len - off);
		if (w <= 0) {
			close(fd);
			unlink(tmp);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The heap, types and retained profiles of pid into the output
 * directory; the number written. */
static int write_set(wp_state *p, wt_fleet *f, const wt_view *v,
		     const char *why)
{
	static const int kinds[3] = { GOHEAP_PROFILE_HEAP, GOHEAP_PROFILE_TYPES,
				      GOHEAP_PROFILE_RETAINED };
	static const char *const names[3] = { "heap", "types", "retained" };
	char comm[64], stamp[32], name[256], err[300];
	unsigned long long gen;
	unsigned char *buf;
	size_t len;
	time_t now = time(NULL);
	goheap_profile *prof;
	int k, rc, done = 0;

	wod_name_parts(v->comm, now, comm, sizeof(comm), stamp, sizeof(stamp));
	for (k = 0; k < 3; k++) {
		prof = NULL;
		buf = NULL;
		len = 0;
		rc = wt_collect(f, v->pid, kinds[k], 0, 0, &prof, &gen, err,
				sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "go-heap watch: %d (%s): memory "
				"pressure: %s profile: %s\n", v->pid, comm,
				names[k], rc == GOHEAP_EDISABLED ? "memory "
				"profiling is disabled in the target "
				"(runtime.MemProfileRate is 0)" : err);
		} else if (wt_write(f, v->pid, prof, NULL, GOHEAP_FORMAT_PPROF,
				    &buf, &len, err, sizeof(err)) != 0) {
			fprintf(stderr, "go-heap watch: %d (%s): memory "
				"pressure: %s profile: %s\n", v->pid, comm,
				names[k], err);
		} else {
			snprintf(name, sizeof(name), "%d-%s-%s-pressure-%s"
				 ".pb.gz", v->pid, comm, stamp, names[k]);
			if (write_file(p->cfg.outdir, name, buf, len) == 0)
				done++;
			else
				fprintf(stderr, "go-heap watch: %s/%s: %s\n",
					p->cfg.outdir, name, strerror(errno));
		}
		goheap_free(buf);
		goheap_profile_free(prof);
		wt_release(f, v->pid);
	}
	fprintf(stderr, "go-heap watch: %d (%s): memory pressure (%s): wrote "
		"%d of 3 profiles (heap, types, retained) to %s\n", v->pid,
		comm, why, done, p->cfg.outdir);
	return done;
}

int wp_step(wp_state *p, wt_fleet *f, double now)
{
	wt_view *v = NULL;
	long n, i;
	char why[4400];
	double near;

	if (now < p->next)
		return 0;
	p->next = now + CHECK_EVERY;
	n = wt_views(f, &v);
	for (i = 0; i < n; i++) {
		pstate *s = state_of(p, v[i].pid);

		if (s == NULL)
			break;
		pressure_reason(p, f, s, v[i].pid, why, sizeof(why), &near);
		if (near >= NEAR)
			p->next = now + CHECK_NEAR;
		if (why[0] == '\0')
			continue;
		if (s->written && now - s->last < p->cfg.period) {
			if (p->cfg.verbose && !s->told)
				fprintf(stderr, "go-heap watch: %d: memory "
					"pressure (%s); profiles written "
					"%.0f s ago\n", v[i].pid, why,
					now - s->last);
			s->told = 1;
			continue;
		}
		s->written = 1;
		s->told = 0;
		s->last = now;
		if (write_set(p, f, &v[i], why) > 0)
			p->sets++;
		/* the views' strings may have moved; the rest are checked
		 * in the loop's next turn */
		p->next = 0;
		break;
	}
	free(v);
	return 1;
}

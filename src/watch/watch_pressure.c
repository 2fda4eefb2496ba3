/*
 * watch_pressure.c - go-heap watch --on-memory-pressure.
 *
 * Once a second, for each Go process the fleet watches: its cgroup v2
 * (the "0::PATH" line of /proc/PID/cgroup, under the cgroup2 mount) gives
 * memory.current, memory.high, memory.max and memory.events' "high"
 * counter; /proc/PID/statm its RSS.  It is under pressure when the
 * "high" counter rose since the last check (the kernel throttled it over
 * memory.high), when memory.current reached 90% of memory.high (or of
 * memory.max without one), or when its RSS reached --memory-pressure-rss.
 * Then, at most once per process per --memory-pressure-period, its heap
 * (inuse, the whole profile), types and retained profiles are collected
 * with the fleet's session (the brief stop each) and written to
 * --output-dir as PID-COMM-TIME-pressure-KIND.pb.gz, and one line on
 * stderr says why.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "watch_pressure.h"
#include "watch_util.h"

#define CHECK_EVERY 1.0
#define FRACTION 0.9

typedef struct pstate {
	int pid;
	unsigned long long start;    /* /proc/PID/stat's start time */
	unsigned long long high_events;
	int have_events;
	double last;                 /* when profiles were last written */
	int written;
	int seen;
} pstate;

struct wp_state {
	wp_config cfg;
	pstate *v;
	size_t n, cap;
	double next;
	unsigned long long sets;
};

wp_state *wp_new(const wp_config *cfg)
{
	wp_state *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->cfg = *cfg;
	if (p->cfg.cgroup_root == NULL)
		p->cfg.cgroup_root = "/sys/fs/cgroup";
	return p;
}

void wp_free(wp_state *p)
{
	if (p == NULL)
		return;
	free(p->v);
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
			if (p->v[i].start != st) {   /* a new process */
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

/* A cgroup v2 memory file's value: a number, or "max" (0 here: none). */
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

/* The process's cgroup v2 directory, or -1 (no v2 hierarchy, or no
 * memory files there: the root cgroup has none). */
static int cg_dir(const wp_state *p, int pid, char *dir, size_t len)
{
	char path[64], buf[4096], *l;
	unsigned long long v;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (l = buf; l != NULL && *l != '\0';) {
		char *nl = strchr(l, '\n');

		if (nl != NULL)
			*nl = '\0';
		if (strncmp(l, "0::", 3) == 0) {
			snprintf(dir, len, "%s%s", p->cfg.cgroup_root, l + 3);
			return cg_value(dir, "memory.current", &v) == 0 ? 0 : -1;
		}
		l = nl != NULL ? nl + 1 : NULL;
	}
	return -1;
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

/* Why pid is under pressure ("" if it is not). */
static void pressure_reason(wp_state *p, pstate *s, int pid, char *why,
			    size_t len)
{
	char dir[4200], path[4300], buf[4096], *h;
	unsigned long long cur = 0, high = 0, max = 0, ev, rss, lim;

	why[0] = '\0';
	if (cg_dir(p, pid, dir, sizeof(dir)) == 0) {
		cg_value(dir, "memory.current", &cur);
		cg_value(dir, "memory.high", &high);
		cg_value(dir, "memory.max", &max);
		snprintf(path, sizeof(path), "%s/memory.events", dir);
		if (read_small(path, buf, sizeof(buf)) > 0 &&
		    (h = strstr(buf, "high ")) != NULL &&
		    (h == buf || h[-1] == '\n')) {
			ev = strtoull(h + 5, NULL, 10);
			if (s->have_events && ev > s->high_events)
				snprintf(why, len, "cgroup %s: memory.events "
					 "high %llu -> %llu (throttled over "
					 "memory.high %llu)", dir,
					 s->high_events, ev, high);
			s->high_events = ev;
			s->have_events = 1;
		}
		lim = high != 0 ? high : max;
		if (why[0] == '\0' && lim != 0 &&
		    (double)cur >= FRACTION * (double)lim)
			snprintf(why, len, "cgroup %s: memory.current %llu >= "
				 "90%% of memory.%s %llu", dir, cur,
				 high != 0 ? "high" : "max", lim);
	}
	if (why[0] == '\0' && p->cfg.rss > 0 &&
	    (rss = rss_of(pid)) >= p->cfg.rss)
		snprintf(why, len, "RSS %llu >= --memory-pressure-rss %llu",
			 rss, p->cfg.rss);
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
	size_t len, i;
	time_t now = time(NULL);
	struct tm tm;
	goheap_profile *prof;
	int k, rc, done = 0;

	snprintf(comm, sizeof(comm), "%s", v->comm ? v->comm : "go");
	for (i = 0; comm[i] != '\0'; i++)
		if (!((comm[i] >= 'a' && comm[i] <= 'z') ||
		      (comm[i] >= 'A' && comm[i] <= 'Z') ||
		      (comm[i] >= '0' && comm[i] <= '9') || comm[i] == '_' ||
		      comm[i] == '.'))
			comm[i] = '_';
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
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

	if (now < p->next)
		return 0;
	p->next = now + CHECK_EVERY;
	n = wt_views(f, &v);
	for (i = 0; i < n; i++) {
		pstate *s = state_of(p, v[i].pid);

		if (s == NULL)
			break;
		pressure_reason(p, s, v[i].pid, why, sizeof(why));
		if (why[0] == '\0')
			continue;
		if (s->written && now - s->last < p->cfg.period) {
			if (p->cfg.verbose)
				fprintf(stderr, "go-heap watch: %d: memory "
					"pressure (%s); profiles written "
					"%.0f s ago\n", v[i].pid, why,
					now - s->last);
			continue;
		}
		s->written = 1;
		s->last = now;
		if (write_set(p, f, &v[i], why) > 0)
			p->sets++;
		/* the views' strings may have moved */
		break;
	}
	free(v);
	return 1;
}

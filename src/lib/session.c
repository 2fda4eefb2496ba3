/*
 * session.c - the public API: open a target (target.c does the work),
 * collect a profile with the collector its kind names, write it.
 *
 *   target (target.c) --> collector (walk, goroutine, heapwalk, memstats)
 *                     --> profile (records) --> writers (fmt/)
 *
 * Everything here is backend-agnostic: the live and core constructors only
 * pick a built-in source and its capabilities and hand them to the target.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "exe.h"
#include "memsrc.h"
#include "profile.h"
#include "writers.h"
#include "rtlayout.h"
#include "sym.h"
#include "session.h"
#include "walk.h"
#include "locate.h"
#include "goroutine.h"
#include "heapwalk.h"
#include "retained.h"
#include "retleak.h"
#include "memstats.h"


static goheap_session *session_new(void)
{
	goheap_session *s = gh_calloc(1, sizeof(*s));

	if (s != NULL) {
		snprintf(s->t.err.msg, sizeof(s->t.err.msg), "no error");
		s->t.caps = &gh_no_caps;
	}
	return s;
}

GOHEAP_EXTERN void goheap_close(goheap_session *s)
{
	if (s == NULL)
		return;
	gh_target_fini(&s->t);
	free(s);
}

GOHEAP_EXTERN const char *goheap_errmsg(const goheap_session *s)
{
	if (s == NULL)
		return "out of memory";
	return s->t.err.msg;
}

GOHEAP_EXTERN const char *goheap_go_version(const goheap_session *s)
{
	return s != NULL ? s->t.verstr : "";
}


GOHEAP_EXTERN const char *goheap_describe(goheap_session *s)
{
	if (s == NULL)
		return "";
	snprintf(s->info, sizeof(s->info),
		 "target: %s\nexecutable: %s\nGo version: %s%s\n"
		 "load bias: 0x%llx\nruntime.mbuckets 0x%llx, "
		 "runtime.MemProfileRate 0x%llx, runtime.mProfCycle 0x%llx, "
		 "runtime.ticks.val 0x%llx, runtime.mutexprofilerate 0x%llx "
		 "(%s)",
		 s->t.source, s->t.exe_path, s->t.verstr,
		 s->t.version_inferred && strstr(s->t.verstr, "inferred") == NULL ?
		 " (inferred)" : "",
		 (unsigned long long)s->t.bias,
		 (unsigned long long)s->t.addrs.mbuckets,
		 (unsigned long long)s->t.addrs.memprofilerate,
		 (unsigned long long)s->t.addrs.mprofcycle,
		 (unsigned long long)s->t.addrs.ticks_val,
		 (unsigned long long)s->t.addrs.mutexprofilerate, s->t.how);
	return s->info;
}

GOHEAP_EXTERN int goheap_open_memsrc(goheap_session **out,
				     const goheap_memsrc_ops *ops, void *ctx,
				     const goheap_options *opts)
{
	goheap_session *s;

	*out = NULL;
	s = session_new();
	if (s == NULL) {
		if (ops != NULL && ops->close != NULL)
			ops->close(ctx);
		return GOHEAP_ENOMEM;
	}
	*out = s;
	if (ops == NULL || ops->version < 1 ||
	    ops->version > GOHEAP_MEMSRC_OPS_VERSION ||
	    ops->read == NULL || ops->mappings == NULL ||
	    ops->executable == NULL) {
		if (ops != NULL && ops->close != NULL)
			ops->close(ctx);
		return gh_errf(&s->t.err, GOHEAP_EINVAL,
			       "invalid memory source table");
	}
	s->t.ops = ops;
	s->t.ctx = ctx;
	return gh_target_init(&s->t, opts);
}

/* Field 22 of /proc/PID/stat (after the comm in parentheses), 0 if unread. */
static unsigned long long proc_start_time(int pid)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (i = 3; p != NULL && i <= 22; i++)
		p = strchr(p + 1, ' ');
	return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

GOHEAP_EXTERN int goheap_open_pid(goheap_session **out, int pid,
				  const goheap_options *opts)
{
	goheap_session *s;
	void *ctx = NULL;
	int rc;

	*out = NULL;
	s = session_new();
	if (s == NULL)
		return GOHEAP_ENOMEM;
	*out = s;
	rc = gh_live_new(&ctx, pid, &s->t.err);
	if (rc != 0)
		return rc;
	s->t.ops = &gh_live_ops;
	s->t.caps = &gh_live_caps;
	s->t.ctx = ctx;
	s->t.pid = pid;
	s->t.start_time = proc_start_time(pid);
	return gh_target_init(&s->t, opts);
}

GOHEAP_EXTERN int goheap_open_core(goheap_session **out, const char *core,
				   const char *exe,
				   const goheap_options *opts)
{
	goheap_options o = GOHEAP_OPTIONS_INIT;
	goheap_session *s;
	struct stat st;
	void *ctx = NULL;
	int rc;

	*out = NULL;
	s = session_new();
	if (s == NULL)
		return GOHEAP_ENOMEM;
	*out = s;
	if (opts != NULL)
		o = *opts;
	if (exe != NULL)
		o.exe = exe;
	rc = gh_core_new(&ctx, core, o.sysroot, &s->t.err);
	if (rc != 0)
		return rc;
	s->t.ops = &gh_core_ops;
	s->t.caps = &gh_core_caps;
	s->t.ctx = ctx;
	if (o.exe != NULL && gh_core_use_exe(ctx, o.exe) != 0)
		return gh_errf(&s->t.err, GOHEAP_ENOMEM, "out of memory");
	if (stat(core, &st) == 0)
		s->t.core_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				     st.st_mtim.tv_nsec;
	return gh_target_init(&s->t, &o);
}

/* ---- collect --------------------------------------------------------- */

typedef struct maps_collect {
	goheap_session *s;
	gh_profile *p;
	size_t cap;
	int rc;
	struct stat exe_st;
	int have_st;
} maps_collect;

static int strip_deleted(char *f)
{
	size_t n = gh_path_len_undeleted(f);

	if (f[n] == '\0')
		return 0;
	f[n] = '\0';
	return 1;
}

/* runtime/pprof's parseProcSelfMaps: executable mappings, in order. */
static int maps_cb(const goheap_mapping *m, void *payload)
{
	maps_collect *c = payload;
	gh_profile *p = c->p;
	gh_pmap *pm;
	const char *path = m->path != NULL ? m->path : "";

	if (m->perms[2] != 'x')
		return 0;
	if (m->inode == 0 && path[0] == '\0')
		return 0;
	if (p->nmaps == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 16;
		gh_pmap *v = gh_reallocarray(p->maps, nc, sizeof(*v));

		if (v == NULL) {
			c->rc = GOHEAP_ENOMEM;
			return 1;
		}
		p->maps = v;
		c->cap = nc;
	}
	pm = &p->maps[p->nmaps];
	memset(pm, 0, sizeof(*pm));
	pm->start = m->start;
	pm->end = m->end;
	pm->offset = m->offset;
	pm->file = gh_strdup(path);
	if (pm->file == NULL) {
		c->rc = GOHEAP_ENOMEM;
		return 1;
	}
	p->nmaps++;
	strip_deleted(pm->file);
	if (c->have_st && m->inode != 0 &&
	    (uint64_t)c->exe_st.st_ino == m->inode) {
		snprintf(pm->build_id, sizeof(pm->build_id), "%s",
			 gh_exe_gnu_build_id(c->s->t.exe));
	} else if (path[0] == '/') {
		gh_file_gnu_build_id(m->open_path != NULL ? m->open_path : path,
				     pm->build_id, sizeof(pm->build_id));
	}
	return 0;
}

/* ---- block/mutex: the tick rate and the mutex sampling period ---------- */

/*
 * runtime.cputicks() as the target would read it.  On x86 it is RDTSC,
 * whose counter the kernel keeps synchronized across CPUs and shares with
 * every process; elsewhere (arm64, ppc64le, ...) Go's cputicks is
 * nanotime() ("a poor approximation of CPU ticks that is enough for the
 * profiler", runtime/os_linux_arm64.go).  0: no host counter to read.
 */
static int64_t host_cputicks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return (int64_t)__rdtsc();
#else
	return 0;
#endif
}

static int64_t mono_nanos(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The target's runtime_cyclesPerSecond(), without calling it.
 *
 * runtime.ticks holds the estimate once computed, in its last 8-byte word
 * in every supported layout: go1.19/1.20 {lock mutex; pad uint32; val
 * uint64} (runtime/runtime.go, tickspersecond) and go1.21+ {lock mutex;
 * startTicks, startTime int64; val atomic.Int64} (ticksPerSecond).  So
 * val is at sizeof(runtime.ticks) - 8 from the symbol, whose size
 * .symtab records; no offset to tabulate.
 *
 * Both runtimes compute it lazily (first SetBlockProfileRate(rate > 1),
 * execution trace, or runtime/pprof writing a block/mutex profile).  While
 * it is 0, we do what the runtime would do at that moment:
 *   - go1.21+: (cputicks() - startTicks) * 1e9 / (nanotime() - startTime),
 *     with startTicks/startTime recorded at schedinit (the words before
 *     val), because the host's TSC and CLOCK_MONOTONIC are the target's;
 *   - go1.19/1.20: the runtime would time a 100 ms usleep; we time 10 ms
 *     of our own (the same clocks, an estimate within ~0.002%).
 * Without a tick counter on the host, cputicks is nanotime: 1e9.
 * Stripped targets (no .symtab) take the same fallback.  For a core with
 * val still 0 the estimate is the host's, not the dead process's: the
 * nearest available, since the runtime never computed one.
 */
static double target_ticks_per_second(goheap_session *s, int *estimated)
{
	uint64_t addr = s->t.addrs.ticks_val, val = 0, st_ticks = 0, st_time = 0;
	int64_t c0, c1, t0, t1;
	struct timespec d = { 0, 10000000 };

	*estimated = 1;
	if (addr != 0) {
		if (gh_mem_read_uint(&s->t.mem, addr, 8, &val,
				     "runtime.ticks.val") == 0 && val != 0) {
			*estimated = 0;
			return (double)(int64_t)val;
		}
		if (host_cputicks() == 0)
			return 1e9;
		/* (On 386 the int64s are 4-aligned but val is 8-aligned, so
		 * the words before val are not at fixed distances from it:
		 * 64-bit targets only.) */
		if (s->t.lay->ticks_start && s->t.mem.ptr_size == 8 &&
		    gh_mem_read_uint(&s->t.mem, addr - 16, 8, &st_ticks,
				     "runtime.ticks.startTicks") == 0 &&
		    gh_mem_read_uint(&s->t.mem, addr - 8, 8, &st_time,
				     "runtime.ticks.startTime") == 0 &&
		    st_time != 0) {
			c1 = host_cputicks();
			t1 = mono_nanos();
			if (c1 > (int64_t)st_ticks && t1 > (int64_t)st_time)
				return (double)(int64_t)((double)(c1 -
					(int64_t)st_ticks) * 1e9 /
					(double)(t1 - (int64_t)st_time));
		}
	}
	if (host_cputicks() == 0)
		return 1e9;
	t0 = mono_nanos();
	c0 = host_cputicks();
	nanosleep(&d, NULL);
	t1 = mono_nanos();
	c1 = host_cputicks();
	if (t1 == t0)
		t1++;
	return (double)((c1 - c0) * 1000 * 1000 * 1000 / (t1 - t0));
}

/*
 * runtime.mutexprofilerate (uint64, runtime/mprof.go), what
 * SetMutexProfileFraction(-1) returns: the text header's "sampling
 * period" and, before 1.20, the proto's scale.  1 when it cannot be read
 * (*found = 0).
 */
static int64_t target_mutex_rate(goheap_session *s, int *found)
{
	uint64_t v = 0;

	*found = 0;
	if (s->t.addrs.mutexprofilerate == 0 ||
	    gh_mem_read_uint(&s->t.mem, s->t.addrs.mutexprofilerate, 8, &v,
			     "runtime.mutexprofilerate") != 0)
		return 1;
	*found = 1;
	return (int64_t)v;
}

/* A new profile of s's target: its identity and header, no records. */
static gh_profile *profile_new(goheap_session *s, int kind)
{
	gh_profile *p = gh_calloc(1, sizeof(*p));
	struct timespec ts;

	if (p == NULL)
		return NULL;
	p->kind = kind;
	p->pid = s->t.pid;
	p->start_time = s->t.start_time;
	p->ver = s->t.ver;
	p->rt = s->t.lay;
	p->machine = gh_exe_machine(s->t.exe);
	snprintf(p->source, sizeof(p->source), "%s", s->t.source);
	clock_gettime(CLOCK_REALTIME, &ts);
	p->time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	gh_mem_invalidate(&s->t.mem);
	return p;
}

/* p->maps: the target's executable mappings. */
static int profile_maps(goheap_session *s, gh_profile *p)
{
	maps_collect mc;
	int rc;

	memset(&mc, 0, sizeof(mc));
	mc.s = s;
	mc.p = p;
	mc.have_st = stat(s->t.exe_path, &mc.exe_st) == 0;
	rc = s->t.ops->mappings(s->t.ctx, maps_cb, &mc);
	if (mc.rc != 0)
		rc = mc.rc;
	if (rc != 0)
		gh_errf(&s->t.err, rc, "reading the target's mappings: %s",
			goheap_strerror(rc));
	return rc;
}

/*
 * The walk of a heap/block/mutex list under the session's time limit
 * (gh_walk, or gh_walk_stream into sink when it is not NULL).
 */
static int walk_limited(goheap_session *s, gh_profile *p,
			const gh_walk_sink *sink)
{
	int rc;

	s->t.mem.deadline = s->time_limit > 0 ? gh_now() + s->time_limit : 0;
	rc = sink != NULL ?
	     gh_walk_stream(p, &s->t.mem, s->t.lay, &s->t.addrs, sink, &s->t.err) :
	     gh_walk(p, &s->t.mem, s->t.lay, &s->t.addrs, &s->t.err);
	s->t.mem.deadline = 0;
	if (rc == GOHEAP_ETIMEDOUT)
		gh_errf(&s->t.err, rc, "collection stopped at its time limit of "
			"%.3f s, after %llu buckets", s->time_limit,
			(unsigned long long)p->nbuckets);
	return rc;
}

/* The MemStats of heap?debug=1's trailer, read from s's target when the
 * profile is collected (GOHEAP_COLLECT_MEMSTATS); NULL (no trailer, the
 * profile itself unaffected) when they cannot be read.  Freed with the
 * profile. */
static gh_memstats *memstats_trailer(goheap_session *s)
{
	gh_err saved = s->t.err;
	gh_memstats *m;
	gh_profile tmp;

	memset(&tmp, 0, sizeof(tmp));
	s->t.mem.deadline = s->time_limit > 0 ? gh_now() + s->time_limit : 0;
	if (gh_memstats_collect(&tmp, &s->t) != 0)
		s->t.err = saved;
	s->t.mem.deadline = 0;
	m = gh_memstats_of(&tmp);
	tmp.part = NULL;      /* handed to the caller */
	return m;
}

/* ---- one row per profile kind ------------------------------------------ */

/*
 * A kind's collector: fill p from s's target (objects: -p types' one line
 * per object too; flags: GOHEAP_COLLECT_*).  Its stop policy is the
 * target's (gh_target_snapshot: the snapshot kinds stop a live target
 * briefly, unless --no-stop; the bucket lists are read running).
 */
typedef int (*collect_fn)(goheap_session *s, gh_profile *p, int objects,
			  unsigned flags);
/* A kind's writer: p in wo->format into b (w set up by write_setup). */
typedef int (*write_fn)(goheap_session *s, const gh_profile *p,
			const goheap_write_options *wo, gh_wctx *w, gh_buf *b);

/* heap, allocs (walk.c), block, mutex: the bucket lists, under their own
 * deadlines (the walk's and the MemStats trailer's) */
static int collect_buckets(goheap_session *s, gh_profile *p, int objects,
			   unsigned flags)
{
	int kind = p->kind, rc;

	(void)objects;
	rc = walk_limited(s, p, NULL);
	if (rc != 0)
		return rc;
	/* heap?debug=1's trailer: ReadMemStats when the text is made, here
	 * at collection, so that writing never reads the target */
	if ((flags & GOHEAP_COLLECT_MEMSTATS) &&
	    (kind == GOHEAP_PROFILE_HEAP || kind == GOHEAP_PROFILE_ALLOCS)) {
		gh_memstats *m = memstats_trailer(s);

		if (m != NULL)
			gh_profile_set_part(p, GH_PART_MEMSTATS, m, free);
	}
	if (kind == GOHEAP_PROFILE_BLOCK || kind == GOHEAP_PROFILE_MUTEX) {
		int found = 1;

		p->rate = kind == GOHEAP_PROFILE_MUTEX ?
			  target_mutex_rate(s, &found) : 1;
		p->rate_unknown = !found;
		p->cycles_per_second =
			target_ticks_per_second(s, &p->cycles_estimated);
	}
	return 0;
}

/* goroutine.c: allgs, stacks, labels */
static int collect_goroutine(goheap_session *s, gh_profile *p, int objects,
			     unsigned flags)
{
	(void)objects;
	(void)flags;
	return gh_gor_collect(p, &s->t);
}

/* heapwalk.c: allspans, allocation bits, type headers */
static int collect_types(goheap_session *s, gh_profile *p, int objects,
			 unsigned flags)
{
	(void)flags;
	return gh_types_collect(p, &s->t, objects);
}

/* memstats.c: readmemstats_m's words */
static int collect_memstats(goheap_session *s, gh_profile *p, int objects,
			    unsigned flags)
{
	(void)objects;
	(void)flags;
	return gh_memstats_collect(p, &s->t);
}

/* retained.c: the object graph, roots, dominators */
static int collect_retained(goheap_session *s, gh_profile *p, int objects,
			    unsigned flags)
{
	(void)objects;
	(void)flags;
	return gh_retained_collect(p, &s->t, gh_leak_label_roots);
}

/* retleak.c: the graph's fixpoint, then the leaked goroutines as a
 * goroutine profile (its part GH_PART_GOROUTINELEAK; its kind becomes
 * GOROUTINE) */
static int collect_goroutineleak(goheap_session *s, gh_profile *p,
				 int objects, unsigned flags)
{
	(void)objects;
	(void)flags;
	p->kind = GOHEAP_PROFILE_GOROUTINE;
	return gh_goroutineleak_collect(p, &s->t);
}

static int write_buckets(goheap_session *s, const gh_profile *p,
			 const goheap_write_options *wo, gh_wctx *w,
			 gh_buf *b);
static int write_goroutine(goheap_session *s, const gh_profile *p,
			   const goheap_write_options *wo, gh_wctx *w,
			   gh_buf *b);
static int write_types(goheap_session *s, const gh_profile *p,
		       const goheap_write_options *wo, gh_wctx *w, gh_buf *b);
static int write_memstats(goheap_session *s, const gh_profile *p,
			  const goheap_write_options *wo, gh_wctx *w,
			  gh_buf *b);
static int write_retained(goheap_session *s, const gh_profile *p,
			  const goheap_write_options *wo, gh_wctx *w,
			  gh_buf *b);

/*
 * The kinds, indexed by GOHEAP_PROFILE_*: collector, writer, whether the
 * session's time limit is the collector's deadline (the bucket lists set
 * their own), whether the executable's mappings are recorded (for pprof's
 * Mapping messages).
 */
static const struct kind_row {
	collect_fn collect;
	write_fn write;
	int deadline;
	int maps;
} kinds[] = {
	[GOHEAP_PROFILE_HEAP] = { collect_buckets, write_buckets, 0, 1 },
	[GOHEAP_PROFILE_ALLOCS] = { collect_buckets, write_buckets, 0, 1 },
	[GOHEAP_PROFILE_BLOCK] = { collect_buckets, write_buckets, 0, 1 },
	[GOHEAP_PROFILE_MUTEX] = { collect_buckets, write_buckets, 0, 1 },
	[GOHEAP_PROFILE_GOROUTINE] = { collect_goroutine, write_goroutine,
				       1, 1 },
	[GOHEAP_PROFILE_TYPES] = { collect_types, write_types, 1, 0 },
	[GOHEAP_PROFILE_MEMSTATS] = { collect_memstats, write_memstats, 1, 0 },
	[GOHEAP_PROFILE_RETAINED] = { collect_retained, write_retained, 1, 0 },
	/* a goroutine profile with the leak judgement: write_goroutine */
	[GOHEAP_PROFILE_GOROUTINELEAK] = { collect_goroutineleak,
					   write_goroutine, 1, 1 },
};

/* goheap_profile_collect; objects: -p types' one line per object too;
 * flags: GOHEAP_COLLECT_* */
static int collect(goheap_profile **out, goheap_session *s, int kind,
		   int objects, unsigned flags)
{
	const struct kind_row *k;
	gh_profile *p;
	int rc;

	*out = NULL;
	if (s == NULL || s->t.lay == NULL || s->t.sym == NULL)
		return s != NULL ? gh_errf(&s->t.err, GOHEAP_EINVAL,
					   "session is not open") :
				   GOHEAP_EINVAL;
	if (kind < 0 || (size_t)kind >= GH_ARRAY_LEN(kinds) ||
	    kinds[kind].collect == NULL)
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "unknown profile kind %d",
			       kind);
	k = &kinds[kind];
	p = profile_new(s, kind);
	if (p == NULL)
		return gh_errf(&s->t.err, GOHEAP_ENOMEM, "out of memory");
	if (k->deadline)
		s->t.mem.deadline = s->time_limit > 0 ?
				    gh_now() + s->time_limit : 0;
	/* the threads a collector sees are its own stop's, or a core's */
	gh_target_forget_stop(&s->t);
	rc = k->collect(s, p, objects, flags);
	if (k->deadline)
		s->t.mem.deadline = 0;
	if (rc == 0 && k->maps)
		rc = profile_maps(s, p);
	if (rc != 0) {
		gh_profile_destroy(p);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

GOHEAP_EXTERN int goheap_profile_collect(goheap_profile **out,
					 goheap_session *s, int kind)
{
	return collect(out, s, kind, 0, 0);
}

GOHEAP_EXTERN int goheap_profile_collect_flags(goheap_profile **out,
					       goheap_session *s, int kind,
					       unsigned flags)
{
	if (flags & ~(unsigned)GOHEAP_COLLECT_MEMSTATS) {
		*out = NULL;
		return s != NULL ? gh_errf(&s->t.err, GOHEAP_EINVAL, "unknown "
					   "collection flags %#x", flags) :
				   GOHEAP_EINVAL;
	}
	return collect(out, s, kind, 0, flags);
}

GOHEAP_EXTERN int goheap_set_time_limit(goheap_session *s, double seconds)
{
	if (s == NULL || !(seconds >= 0))
		return GOHEAP_EINVAL;
	s->time_limit = seconds;
	return 0;
}

GOHEAP_EXTERN int goheap_set_no_stop(goheap_session *s, int no_stop)
{
	if (s == NULL)
		return GOHEAP_EINVAL;
	s->t.no_stop = no_stop != 0;
	return 0;
}

GOHEAP_EXTERN int goheap_memory_limit(goheap_session *s,
				      goheap_memlimit *out)
{
	goheap_memlimit m;
	size_t n;
	int rc;

	if (s == NULL || out == NULL || out->size < sizeof(size_t))
		return s != NULL ? gh_errf(&s->t.err, GOHEAP_EINVAL,
					   "goheap_memlimit: size not set "
					   "(GOHEAP_MEMLIMIT_INIT)") :
		       GOHEAP_EINVAL;
	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	s->t.mem.deadline = s->time_limit > 0 ? gh_now() + s->time_limit : 0;
	rc = gh_memlimit_read(&s->t, &m);
	s->t.mem.deadline = 0;
	/* an older caller's smaller struct gets the fields it knows */
	n = out->size < sizeof(m) ? out->size : sizeof(m);
	memcpy((char *)out + sizeof(size_t), (char *)&m + sizeof(size_t),
	       n - sizeof(size_t));
	return rc;
}

GOHEAP_EXTERN void goheap_profile_free(goheap_profile *p)
{
	gh_profile_destroy(p);
	free(p);
}

static void stats_header(const gh_profile *p, goheap_profile_stats *out);
static void stats_warnings(const gh_profile *p, goheap_profile_stats *out);

/* Add r to the record totals of out (wrapping as Go's int64 sums do). */
static void stats_add(goheap_profile_stats *out, const gh_record *r)
{
	out->records++;
	out->alloc_objects = gh_wadd(out->alloc_objects, r->alloc_objects);
	out->alloc_bytes = gh_wadd(out->alloc_bytes, r->alloc_bytes);
	out->inuse_objects = gh_wadd(out->inuse_objects,
				     gh_wsub(r->alloc_objects,
					     r->free_objects));
	out->inuse_bytes = gh_wadd(out->inuse_bytes,
				   gh_wsub(r->alloc_bytes, r->free_bytes));
}

GOHEAP_EXTERN int goheap_profile_stats_get(const goheap_profile *p,
					   goheap_profile_stats *out)
{
	size_t i;

	if (!GH_OUT_OK_BEFORE(out, skipped_warning))
		return GOHEAP_EINVAL;
	GH_OUT_CLEAR(out);
	if (p == NULL)
		return GOHEAP_EINVAL;
	/* Counts come from the target: int64 sums wrap as Go's do (gh.h),
	 * never undefined behaviour. */
	for (i = 0; i < p->nrecs; i++)
		stats_add(out, &p->recs[i]);
	stats_header(p, out);
	return 0;
}

/* goheap_profile_stats_get's fields that do not come from the records. */
static void stats_header(const gh_profile *p, goheap_profile_stats *out)
{
	out->mem_profile_rate = p->rate;
	out->read_seconds = p->t_read;
	out->walk_seconds = p->t_walk;
	out->read_calls = p->read_calls;
	out->read_bytes = p->read_bytes;
	out->bucket_bytes = p->bucket_bytes;
	out->cycles_per_second = p->cycles_per_second;
	out->cycles_estimated = p->cycles_estimated;
	out->period_unknown = p->rate_unknown;
	out->skipped_buckets = p->skipped;
	out->first_skipped_bucket = p->skipped_bucket;
	snprintf(out->first_skipped_reason, sizeof(out->first_skipped_reason),
		 "%s", p->skipped_reason);
	out->snapshot = p->stop.state;
	out->stop_begin = p->stop.begin;
	out->stop_end = p->stop.end;
	out->stop_seconds = p->stop.end - p->stop.begin;
	out->stop_threads = p->stop.threads;
	out->stop_rewalked = p->stop.rewalked;
	out->stop_checked = p->stop.checked;
	stats_warnings(p, out);
}

/* The skipped buckets' line without its end into buf; snprintf's count. */
static int skipped_line(char *buf, size_t len, const gh_profile *p,
			const goheap_profile_stats *out)
{
	return snprintf(buf, len, "%llu of %llu buckets hold numbers the "
			"runtime cannot produce (damaged or changing data) and "
			"are left out of the profile",
			(unsigned long long)p->skipped,
			(unsigned long long)(out->records + p->skipped));
}

/*
 * goheap_profile_stats' warnings (goheap.h), in the fields the caller's
 * size covers: the library words them, go-heap and the gdb command print
 * them.  The skipped buckets' line comes in two forms because go-heap
 * names the first bucket only with -v, and the library has no input that
 * says how verbose the caller is (goheap_options' old verbose field is
 * reserved, and a new write option would tie the words to one front
 * end's flags): the caller picks the form, as it picks whether to print
 * the estimates (-q).  out's first-release fields are set already: the
 * words use them as they are (the reason as cut to its field).
 */
static void stats_warnings(const gh_profile *p, goheap_profile_stats *out)
{
	size_t n = 0;
	int k;

	if (p->skipped > 0 && GH_OUT_HAS(out, skipped_warning)) {
		k = skipped_line(out->skipped_warning,
				 sizeof(out->skipped_warning), p, out);
		if (k > 0 && (size_t)k < sizeof(out->skipped_warning))
			snprintf(out->skipped_warning + k,
				 sizeof(out->skipped_warning) - (size_t)k,
				 "; the first, at 0x%llx: %s",
				 (unsigned long long)out->first_skipped_bucket,
				 out->first_skipped_reason);
	}
	if (p->skipped > 0 && GH_OUT_HAS(out, skipped_warning_brief)) {
		k = skipped_line(out->skipped_warning_brief,
				 sizeof(out->skipped_warning_brief), p, out);
		if (k > 0 && (size_t)k < sizeof(out->skipped_warning_brief))
			snprintf(out->skipped_warning_brief + k,
				 sizeof(out->skipped_warning_brief) - (size_t)k,
				 " (-v names the first)");
	}
	if ((p->kind != GOHEAP_PROFILE_BLOCK &&
	     p->kind != GOHEAP_PROFILE_MUTEX) ||
	    !GH_OUT_HAS(out, estimate_warnings))
		return;
	if (p->cycles_estimated)
		n = (size_t)snprintf(out->estimate_warnings,
				     sizeof(out->estimate_warnings),
				     "the target's cycles/second is not known "
				     "(the runtime has not computed it yet, or "
				     "runtime.ticks was not found): delays use "
				     "go-heap's estimate, %.0f",
				     p->cycles_per_second);
	if (p->rate_unknown && p->kind == GOHEAP_PROFILE_MUTEX &&
	    n < sizeof(out->estimate_warnings))
		snprintf(out->estimate_warnings + n,
			 sizeof(out->estimate_warnings) - n, "%sruntime."
			 "mutexprofilerate was not found: the sampling period "
			 "is written as 1", n > 0 ? "\n" : "");
}

/*
 * The writers' context for wo (NULL: the defaults in *def), after
 * checking its version; ws receives the stage timings when wo asks.
 */
static int write_setup(goheap_session *s, const goheap_write_options **wo,
		       const goheap_write_options *def, gh_wctx *w,
		       gh_wstats *ws)
{
	if (*wo == NULL)
		*wo = def;
	if ((*wo)->version < 1 ||
	    (*wo)->version > GOHEAP_WRITE_OPTIONS_VERSION)
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "goheap_write_options "
			       "version %u is not one this library knows "
			       "(1 to %d)", (*wo)->version,
			       GOHEAP_WRITE_OPTIONS_VERSION);
	memset(w, 0, sizeof(*w));
	memset(ws, 0, sizeof(*ws));
	w->sym = s->t.sym;
	w->sample_index = (*wo)->sample_index;
	w->top_n = (*wo)->top_n > 0 ? (*wo)->top_n : 20;
	w->exe_path = s->t.exe_path;
	if ((*wo)->stats != NULL) {
		if (!GH_OUT_OK_BEFORE((*wo)->stats, suspect_warning))
			return gh_errf(&s->t.err, GOHEAP_EINVAL,
				       "goheap_write_stats.size %zu: start "
				       "from GOHEAP_WRITE_STATS_INIT",
				       (*wo)->stats->size);
		GH_OUT_CLEAR((*wo)->stats);
		w->stats = ws;
	}
	return 0;
}

/* The write's stage timings into wo->stats, if asked (t0: its start). */
static void write_stats_out(const goheap_write_options *wo,
			    const gh_wstats *ws, double t0)
{
	if (wo->stats == NULL)
		return;
	wo->stats->symbolize_seconds = ws->t_symbolize;
	wo->stats->compress_seconds = ws->t_compress;
	wo->stats->suspect_frames = ws->suspect;
	wo->stats->total_seconds = gh_now() - t0;
	wo->stats->encode_thread_seconds = ws->t_encode_thread;
	if (ws->suspect > 0 && GH_OUT_HAS(wo->stats, suspect_warning))
		snprintf(wo->stats->suspect_warning,
			 sizeof(wo->stats->suspect_warning), "%llu frames "
			 "could not be symbolized reliably (the executable's "
			 "pclntab or inline tables are inconsistent with what "
			 "go-heap reads: their names or inlined callees may be "
			 "wrong)", (unsigned long long)ws->suspect);
}

/* fmt_memstats.c: text (or the default, top) or json only */
static int write_memstats(goheap_session *s, const gh_profile *p,
			  const goheap_write_options *wo, gh_wctx *w,
			  gh_buf *b)
{
	const gh_memstats *m = gh_memstats_of(p);

	(void)w;
	if (m == NULL)
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "no MemStats in "
			       "this profile");
	if (wo->format == GOHEAP_FORMAT_JSON)
		return gh_write_memstats_json(m, b);
	if (wo->format != GOHEAP_FORMAT_TEXT &&
	    wo->format != GOHEAP_FORMAT_TOP)
		return gh_errf(&s->t.err, GOHEAP_EUNSUPPORTED, "-p memstats "
			       "is written as text (-f text) or json (-f "
			       "json) only");
	return gh_write_memstats(m, 0, b);
}

static int write_types(goheap_session *s, const gh_profile *p,
		       const goheap_write_options *wo, gh_wctx *w, gh_buf *b)
{
	return gh_write_types(p, w, wo->format, b, &s->t.err);
}

static int write_retained(goheap_session *s, const gh_profile *p,
			  const goheap_write_options *wo, gh_wctx *w,
			  gh_buf *b)
{
	return gh_write_retained(p, w, wo->format, wo->version >= 3 ?
				 wo->path : NULL, b, &s->t.err);
}

/* fmt_goroutine.c, fmt_golist.c */
static int write_goroutine(goheap_session *s, const gh_profile *p,
			   const goheap_write_options *wo, gh_wctx *w,
			   gh_buf *b)
{
	if (gh_gor_of(p)->no_tb && (wo->format == GOHEAP_FORMAT_TRACEBACK ||
			     wo->format == GOHEAP_FORMAT_LIST))
		return gh_errf(&s->t.err, GOHEAP_EINVAL,
			       "this goroutine profile was collected "
			       "without tracebacks (goheap_options."
			       "no_traceback): collect it again to "
			       "write -f traceback or list");
	if (gh_gor_is_leak(p) && wo->format != GOHEAP_FORMAT_TRACEBACK &&
	    wo->format != GOHEAP_FORMAT_LIST) {
		/* -p goroutineleak: the leaked goroutines only (retleak.c);
		 * -f traceback and list write them all, the leaked marked */
		gh_profile v;
		int rc = gh_leak_view(p, &v);

		if (rc != 0)
			return gh_errf(&s->t.err, rc, "out of memory");
		if (wo->format == GOHEAP_FORMAT_TEXT)
			rc = gh_write_text(&v, w, b, &s->t.err);
		else if (wo->format == GOHEAP_FORMAT_PPROF)
			rc = gh_write_pprof(&v, w, b, &s->t.err);
		else if (wo->format == GOHEAP_FORMAT_TOP)
			rc = gh_write_top(&v, w, b, &s->t.err);
		else if (wo->format == GOHEAP_FORMAT_COLLAPSED)
			rc = gh_write_goroutine_collapsed(&v, w, b, &s->t.err);
		else
			rc = gh_errf(&s->t.err, GOHEAP_EUNSUPPORTED,
				     "-p goroutineleak is written as text, "
				     "traceback, list, pprof, top or "
				     "collapsed");
		gh_leak_view_free(&v);
		return rc;
	}
	switch (wo->format) {
	case GOHEAP_FORMAT_TEXT:
		return gh_write_text(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_COLLAPSED:
		return gh_write_goroutine_collapsed(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_TRACEBACK:
		return gh_write_goroutine_traceback(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_LIST:
		return gh_write_goroutine_list(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_PPROF:
		return gh_write_pprof(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_TOP:
		return gh_write_top(p, w, b, &s->t.err);
	default:
		return gh_errf(&s->t.err, GOHEAP_EUNSUPPORTED,
			       "goroutine profiles are written as text, "
			       "pprof, top or collapsed so far");
	}
}

/* heap, allocs, block, mutex */
static int write_buckets(goheap_session *s, const gh_profile *p,
			 const goheap_write_options *wo, gh_wctx *w,
			 gh_buf *b)
{
	switch (wo->format) {
	case GOHEAP_FORMAT_PPROF:
		return gh_write_pprof(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_TEXT:
		/* heap?debug=1 ends with runtime.MemStats, recorded at
		 * collection (GOHEAP_COLLECT_MEMSTATS) */
		if (p->kind == GOHEAP_PROFILE_HEAP ||
		    p->kind == GOHEAP_PROFILE_ALLOCS)
			w->memstats = gh_memstats_of(p);
		return gh_write_text(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_TOP:
		return gh_write_top(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_COLLAPSED:
		return gh_write_collapsed(p, w, b, &s->t.err);
	case GOHEAP_FORMAT_TRACEBACK:
	case GOHEAP_FORMAT_LIST:
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "formats traceback "
			       "and list are for goroutine profiles (-p "
			       "goroutine)");
	case GOHEAP_FORMAT_OBJECTS:
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "format objects is "
			       "for -p types");
	case GOHEAP_FORMAT_JSON:
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "format json is for "
			       "-p memstats");
	default:
		return gh_errf(&s->t.err, GOHEAP_EINVAL, "unknown format %d",
			       wo->format);
	}
}

GOHEAP_EXTERN int goheap_profile_write(goheap_session *s,
				       const goheap_profile *p,
				       const goheap_write_options *wo,
				       unsigned char **out_buf,
				       size_t *out_len)
{
	goheap_write_options def = GOHEAP_WRITE_OPTIONS_INIT;
	gh_buf b = GH_BUF_INIT;
	gh_wstats ws = { 0, 0, 0, 0 };
	double t0 = gh_now();
	gh_wctx w;
	int rc;

	*out_buf = NULL;
	*out_len = 0;
	if (s == NULL || p == NULL)
		return GOHEAP_EINVAL;
	if (p->pid != 0 && s->t.pid != 0 &&
	    (p->pid != s->t.pid || p->start_time != s->t.start_time))
		return gh_errf(&s->t.err, GOHEAP_EMISMATCH, "this profile comes "
			       "from process %d (started at tick %llu), not "
			       "from this session's process %d (tick %llu): "
			       "its executable would symbolize it wrongly",
			       p->pid, p->start_time, s->t.pid, s->t.start_time);
	rc = write_setup(s, &wo, &def, &w, &ws);
	if (rc != 0)
		return rc;
	w.memstats = NULL;
	if (p->kind < 0 || (size_t)p->kind >= GH_ARRAY_LEN(kinds) ||
	    kinds[p->kind].write == NULL)
		rc = gh_errf(&s->t.err, GOHEAP_EINVAL, "unknown profile kind %d",
			     p->kind);
	else
		rc = kinds[p->kind].write(s, p, wo, &w, &b);
	if (rc == 0 && b.oom)
		rc = gh_errf(&s->t.err, GOHEAP_ENOMEM, "out of memory writing");
	if (rc != 0) {
		gh_buf_free(&b);
		return rc;
	}
	*out_buf = gh_buf_detach(&b, out_len);
	write_stats_out(wo, &ws, t0);
	return 0;
}

/* ---- collect and write in one pass ------------------------------------- */

typedef struct stream_sink {
	goheap_session *s;
	gh_wctx *w;
	gh_buf *buf;
	gh_pprof_stream *st;
	goheap_profile_stats totals;   /* records and their sums */
} stream_sink;

static int sink_begin(void *arg, const gh_profile *p)
{
	stream_sink *k = arg;

	return gh_pprof_stream_start(&k->st, p, k->w, k->buf, &k->s->t.err);
}

static int sink_record(void *arg, const gh_record *r)
{
	stream_sink *k = arg;

	stats_add(&k->totals, r);
	return gh_pprof_stream_record(k->st, r);
}

GOHEAP_EXTERN int goheap_profile_collect_write(goheap_session *s, int kind,
					       const goheap_write_options *wo,
					       unsigned char **out_buf,
					       size_t *out_len,
					       goheap_profile_stats *stats)
{
	goheap_write_options def = GOHEAP_WRITE_OPTIONS_INIT;
	goheap_profile *p = NULL;
	gh_buf b = GH_BUF_INIT;
	gh_wstats ws = { 0, 0, 0, 0 };
	gh_walk_sink sink;
	stream_sink k;
	gh_wctx w;
	double t0;
	int rc, frc;

	*out_buf = NULL;
	*out_len = 0;
	if (s == NULL || s->t.lay == NULL || s->t.sym == NULL)
		return s != NULL ? gh_errf(&s->t.err, GOHEAP_EINVAL,
					   "session is not open") :
				   GOHEAP_EINVAL;
	if (stats != NULL) {
		if (!GH_OUT_OK_BEFORE(stats, skipped_warning))
			return gh_errf(&s->t.err, GOHEAP_EINVAL,
				       "goheap_profile_stats.size %zu: start "
				       "from GOHEAP_PROFILE_STATS_INIT",
				       stats->size);
		GH_OUT_CLEAR(stats);
	}
	rc = write_setup(s, &wo, &def, &w, &ws);
	if (rc != 0)
		return rc;
	if ((kind != GOHEAP_PROFILE_HEAP && kind != GOHEAP_PROFILE_ALLOCS) ||
	    wo->format != GOHEAP_FORMAT_PPROF) {
		/* Only the heap proto streams: the others sort or group
		 * every record before writing the first. */
		rc = collect(&p, s, kind, kind == GOHEAP_PROFILE_TYPES &&
			     wo->format == GOHEAP_FORMAT_OBJECTS,
			     wo->format == GOHEAP_FORMAT_TEXT ?
			     GOHEAP_COLLECT_MEMSTATS : 0);
		if (rc != 0)
			return rc;
		if (stats != NULL)
			goheap_profile_stats_get(p, stats);
		rc = goheap_profile_write(s, p, wo, out_buf, out_len);
		goheap_profile_free(p);
		return rc;
	}

	t0 = gh_now();
	p = profile_new(s, kind);
	if (p == NULL)
		return gh_errf(&s->t.err, GOHEAP_ENOMEM, "out of memory");
	/* The mappings first: locations refer to them as they are made. */
	rc = profile_maps(s, p);
	if (rc != 0)
		goto out;
	memset(&k, 0, sizeof(k));
	k.s = s;
	k.w = &w;
	k.buf = &b;
	sink.begin = sink_begin;
	sink.record = sink_record;
	sink.arg = &k;
	rc = walk_limited(s, p, &sink);
	/* The encoder's tail runs here: joined, the rest written. */
	frc = gh_pprof_stream_finish(k.st, p, rc == 0);
	if (rc == 0)
		rc = frc;
	if (rc == 0 && b.oom)
		rc = gh_errf(&s->t.err, GOHEAP_ENOMEM, "out of memory writing");
	if (rc != 0)
		goto out;
	if (stats != NULL) {
		GH_OUT_COPY(stats, &k.totals);
		stats_header(p, stats);
	}
	*out_buf = gh_buf_detach(&b, out_len);
	write_stats_out(wo, &ws, t0);
out:
	gh_buf_free(&b);
	goheap_profile_free(p);
	return rc;
}


/*
 * fmt_memstats.c - the `# runtime.MemStats` lines of heap?debug=1, as
 * runtime/pprof writes them (Go 1.19-1.27 src/runtime/pprof/pprof.go
 * writeHeapInternal, the same lines in every release; MaxRSS from
 * pprof_rusage.go addMaxRSS, printed only when getrusage succeeds).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memstats.h"

void gh_go_float_v(double v, char *buf, size_t len)
{
	char e[40], digs[24], *p;
	int nd = 0, exp10, dp, prec, i;
	size_t o = 0;

	if (len == 0)
		return;
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, signbit(v) ? "-0" : "0");
		return;
	}
	/* the shortest digits that read back (strconv's shortest; glibc's
	 * %e rounds correctly, so the first that round-trips is Go's) */
	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	p = e;
	if (*p == '-')
		p++;
	for (; *p != 'e' && *p != '\0'; p++)
		if (*p >= '0' && *p <= '9' && nd < (int)sizeof(digs) - 1)
			digs[nd++] = *p;
	digs[nd] = '\0';
	exp10 = *p == 'e' ? atoi(p + 1) : 0;
	while (nd > 1 && digs[nd - 1] == '0')
		digs[--nd] = '\0';
	dp = exp10 + 1;
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	if (exp10 < -4 || exp10 >= 6) {
		/* %e: d.ddde±XX */
		o += (size_t)snprintf(buf + o, len - o, "%c", digs[0]);
		if (nd > 1 && o < len)
			o += (size_t)snprintf(buf + o, len - o, ".%s", digs + 1);
		if (o < len)
			snprintf(buf + o, len - o, "e%c%02d",
				 exp10 < 0 ? '-' : '+', abs(exp10));
		return;
	}
	/* %f with max(nd - dp, 0) decimals */
	if (dp <= 0) {
		o += (size_t)snprintf(buf + o, len - o, "0.");
		for (i = 0; i < -dp && o + 1 < len; i++)
			buf[o++] = '0';
		snprintf(buf + o, len - o, "%s", digs);
		return;
	}
	for (i = 0; i < dp && o + 1 < len; i++)
		buf[o++] = i < nd ? digs[i] : '0';
	if (nd > dp && o + 1 < len)
		snprintf(buf + o, len - o, ".%s", digs + dp);
	else
		buf[o < len ? o : len - 1] = '\0';
}

/* Go's %d of a [256]uint64: "[a b c ...]" */
static void put_array(gh_buf *b, const char *name, const uint64_t *v)
{
	size_t i;

	gh_buf_printf(b, "# %s = [", name);
	for (i = 0; i < GH_MS_NPAUSE; i++)
		gh_buf_printf(b, i == 0 ? "%llu" : " %llu",
			      (unsigned long long)v[i]);
	gh_buf_printf(b, "]\n");
}

int gh_write_memstats(const gh_memstats *m, int trailer, gh_buf *b)
{
	char f[64];

#define U(x) ((unsigned long long)(x))
	if (trailer)
		gh_buf_printf(b, "\n");
	gh_buf_printf(b, "# runtime.MemStats\n");
	gh_buf_printf(b, "# Alloc = %llu\n", U(m->alloc));
	gh_buf_printf(b, "# TotalAlloc = %llu\n", U(m->total_alloc));
	gh_buf_printf(b, "# Sys = %llu\n", U(m->sys));
	gh_buf_printf(b, "# Lookups = %llu\n", U(m->lookups));
	gh_buf_printf(b, "# Mallocs = %llu\n", U(m->mallocs));
	gh_buf_printf(b, "# Frees = %llu\n", U(m->frees));
	gh_buf_printf(b, "# HeapAlloc = %llu\n", U(m->heap_alloc));
	gh_buf_printf(b, "# HeapSys = %llu\n", U(m->heap_sys));
	gh_buf_printf(b, "# HeapIdle = %llu\n", U(m->heap_idle));
	gh_buf_printf(b, "# HeapInuse = %llu\n", U(m->heap_inuse));
	gh_buf_printf(b, "# HeapReleased = %llu\n", U(m->heap_released));
	gh_buf_printf(b, "# HeapObjects = %llu\n", U(m->heap_objects));
	gh_buf_printf(b, "# Stack = %llu / %llu\n", U(m->stack_inuse),
		      U(m->stack_sys));
	gh_buf_printf(b, "# MSpan = %llu / %llu\n", U(m->mspan_inuse),
		      U(m->mspan_sys));
	gh_buf_printf(b, "# MCache = %llu / %llu\n", U(m->mcache_inuse),
		      U(m->mcache_sys));
	gh_buf_printf(b, "# BuckHashSys = %llu\n", U(m->buckhash_sys));
	gh_buf_printf(b, "# GCSys = %llu\n", U(m->gc_sys));
	gh_buf_printf(b, "# OtherSys = %llu\n", U(m->other_sys));
	gh_buf_printf(b, "# NextGC = %llu\n", U(m->next_gc));
	gh_buf_printf(b, "# LastGC = %llu\n", U(m->last_gc));
	put_array(b, "PauseNs", m->pause_ns);
	put_array(b, "PauseEnd", m->pause_end);
	gh_buf_printf(b, "# NumGC = %u\n", m->num_gc);
	gh_buf_printf(b, "# NumForcedGC = %u\n", m->num_forced_gc);
	gh_go_float_v(m->gc_cpu_fraction, f, sizeof(f));
	gh_buf_printf(b, "# GCCPUFraction = %s\n", f);
	gh_buf_printf(b, "# DebugGC = %s\n", m->debug_gc ? "true" : "false");
	if (m->have_maxrss)
		gh_buf_printf(b, "# MaxRSS = %llu\n", U(m->maxrss));
#undef U
	if (m->snapshot == 2)
		gh_buf_printf(b, "# go-heap: best-effort, read without stopping "
			      "the target (--no-stop): the counters may be "
			      "microseconds apart\n");
	if (!trailer && !m->have_maxrss)
		gh_buf_printf(b, "# go-heap: no MaxRSS: %s\n", m->snapshot == 0 ?
			      "a core does not record the process's peak RSS" :
			      "/proc/PID/status has no VmHWM");
	return b->oom ? GOHEAP_ENOMEM : 0;
}

/*
 * v as encoding/json writes a float64 (encode.go floatEncoder): the
 * shortest digits, 'f' form unless |v| < 1e-6 or >= 1e21, then 'e' with
 * "e-07" cleaned up to "e-7".
 */
static void json_float(double v, gh_buf *b)
{
	char e[40], digs[24], *p;
	int nd = 0, exp10, dp, prec, i;
	double a = fabs(v);

	if (v == 0 || isnan(v) || isinf(v)) {
		/* json.Marshal fails on NaN and Inf; the runtime holds a
		 * fraction in [0, 1] */
		gh_buf_printf(b, "0");
		return;
	}
	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	p = e;
	if (*p == '-')
		p++;
	for (; *p != 'e' && *p != '\0'; p++)
		if (*p >= '0' && *p <= '9' && nd < (int)sizeof(digs) - 1)
			digs[nd++] = *p;
	digs[nd] = '\0';
	exp10 = *p == 'e' ? atoi(p + 1) : 0;
	while (nd > 1 && digs[nd - 1] == '0')
		digs[--nd] = '\0';
	if (v < 0)
		gh_buf_printf(b, "-");
	if (a < 1e-6 || a >= 1e21) {
		gh_buf_printf(b, "%c%s%s", digs[0], nd > 1 ? "." : "",
			      digs + 1);
		gh_buf_printf(b, exp10 < 0 && exp10 > -10 ? "e-%d" : "e%c%02d",
			      exp10 < 0 && exp10 > -10 ? -exp10 :
			      exp10 < 0 ? '-' : '+', abs(exp10));
		return;
	}
	dp = exp10 + 1;
	if (dp <= 0) {
		gh_buf_printf(b, "0.");
		for (i = 0; i < -dp; i++)
			gh_buf_printf(b, "0");
		gh_buf_printf(b, "%s", digs);
		return;
	}
	for (i = 0; i < dp; i++)
		gh_buf_printf(b, "%c", i < nd ? digs[i] : '0');
	if (nd > dp)
		gh_buf_printf(b, ".%s", digs + dp);
}

static void json_array(gh_buf *b, const char *name, const uint64_t *v)
{
	size_t i;

	gh_buf_printf(b, ",\"%s\":[", name);
	for (i = 0; i < GH_MS_NPAUSE; i++)
		gh_buf_printf(b, i == 0 ? "%llu" : ",%llu",
			      (unsigned long long)v[i]);
	gh_buf_printf(b, "]");
}

int gh_write_memstats_json(const gh_memstats *m, gh_buf *b)
{
	size_t i;

#define U(x) ((unsigned long long)(x))
	gh_buf_printf(b, "{\"Alloc\":%llu,\"TotalAlloc\":%llu,\"Sys\":%llu,"
		      "\"Lookups\":%llu,\"Mallocs\":%llu,\"Frees\":%llu,"
		      "\"HeapAlloc\":%llu,\"HeapSys\":%llu,\"HeapIdle\":%llu,"
		      "\"HeapInuse\":%llu,\"HeapReleased\":%llu,"
		      "\"HeapObjects\":%llu,\"StackInuse\":%llu,"
		      "\"StackSys\":%llu,\"MSpanInuse\":%llu,"
		      "\"MSpanSys\":%llu,\"MCacheInuse\":%llu,"
		      "\"MCacheSys\":%llu,\"BuckHashSys\":%llu,"
		      "\"GCSys\":%llu,\"OtherSys\":%llu,\"NextGC\":%llu,"
		      "\"LastGC\":%llu,\"PauseTotalNs\":%llu",
		      U(m->alloc), U(m->total_alloc), U(m->sys), U(m->lookups),
		      U(m->mallocs), U(m->frees), U(m->heap_alloc),
		      U(m->heap_sys), U(m->heap_idle), U(m->heap_inuse),
		      U(m->heap_released), U(m->heap_objects),
		      U(m->stack_inuse), U(m->stack_sys), U(m->mspan_inuse),
		      U(m->mspan_sys), U(m->mcache_inuse), U(m->mcache_sys),
		      U(m->buckhash_sys), U(m->gc_sys), U(m->other_sys),
		      U(m->next_gc), U(m->last_gc), U(m->pause_total_ns));
	json_array(b, "PauseNs", m->pause_ns);
	json_array(b, "PauseEnd", m->pause_end);
	gh_buf_printf(b, ",\"NumGC\":%u,\"NumForcedGC\":%u,\"GCCPUFraction\":",
		      m->num_gc, m->num_forced_gc);
	json_float(m->gc_cpu_fraction, b);
	gh_buf_printf(b, ",\"EnableGC\":true,\"DebugGC\":%s,\"BySize\":[",
		      m->debug_gc ? "true" : "false");
	for (i = 0; i < GH_MS_NBYSIZE; i++)
		gh_buf_printf(b, "%s{\"Size\":%u,\"Mallocs\":%llu,\"Frees\":%llu}",
			      i == 0 ? "" : ",", m->by_size[i].size,
			      U(m->by_size[i].mallocs), U(m->by_size[i].frees));
	gh_buf_printf(b, "]}");
#undef U
	return b->oom ? GOHEAP_ENOMEM : 0;
}

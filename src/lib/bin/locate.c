/*
 * locate.c - find the runtime's profiling globals in stripped Go binaries,
 * infer their Go version, and guard a runtime layout with live data.
 *
 * A binary built with -ldflags="-s -w" has no .symtab and no DWARF, but
 * keeps the pclntab, so runtime functions can still be found by name
 * (gh_sym_func_entry).  The runtime's own code loads the globals we need,
 * with absolute addresses the decoder recovers: RIP-relative operands on
 * amd64, ADRP-based pairs on arm64.  For each global one or two "anchor"
 * functions are chosen whose use of it is distinctive (the table under
 * "rules"), and every candidate must pass checks that do not depend on
 * the anchor: the section it lies in, its alignment, its value in the
 * file, and agreement between independent anchors.  Anything unconfirmed
 * is refused; a wrong address would give a plausible but wrong profile.
 *
 * The decoder is Capstone (doc/decoder.md says why not a hand-written
 * one).  It runs on the file's bytes only; the target is never touched
 * here except by the layout guard, which reads through gh_mem.
 *
 * Worked example (go1.24.4 amd64, tests/go/stripprog):
 *
 *   runtime.mProf_FlushLocked+0x20:  mov rcx, [rip+0x1bec71]  -> 0x5ef678
 *     the only .bss reference in the function: mbuckets;
 *   runtime.stkbucket: lea mbuckets; lea 0x5ef688; lea 0x5ef680
 *     (source order: if memProfile / else if mutexProfile / else), so
 *     xbuckets = 0x5ef688 and bbuckets = 0x5ef680;
 *   runtime.mProf_PostSweep, mProf_Free, mProf_Flush: the first 4-byte
 *     load from .noptrbss is mProfCycle in all three;
 *   runtime.parsegodebug stores, runtime.profilealloc loads, one common
 *     word in .noptrdata holding 0x80000: MemProfileRate.
 *
 * Rejected alternatives: scanning .bss for pointer patterns (nothing in
 * the file distinguishes mbuckets from its neighbours); moduledata-based
 * guesses of fixed offsets inside .bss (they move with every program);
 * reading DWARF (stripped).
 */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>

#include "locate_int.h"

/* ====================================================================== */
/* Anchors and rules                                                      */
/* ====================================================================== */

static const char *const sec_names[] = {
	"another section", ".bss", ".noptrbss", ".data", ".noptrdata"
};

int gh_loc_sec_class(const gh_exe *e, uint64_t addr, unsigned size)
{
	const gh_section *s = gh_exe_section_at(e, addr);

	if (s == NULL || s->name == NULL || size > s->size ||
	    addr - s->addr > s->size - size)
		return SEC_OTHER;
	if (strcmp(s->name, ".bss") == 0)
		return SEC_BSS;
	if (strcmp(s->name, ".noptrbss") == 0)
		return SEC_NOPTRBSS;
	if (strcmp(s->name, ".data") == 0)
		return SEC_DATA;
	if (strcmp(s->name, ".noptrdata") == 0)
		return SEC_NOPTRDATA;
	return SEC_OTHER;
}


/*
 * Decode the function `name` into `out` (link-time addresses).  Returns 0,
 * 1 when the pclntab has no such function (the linker drops unreachable
 * ones), or an error code.  *entry gets its link-time entry.
 */
int gh_loc_func_refs(const loc *L, const char *name, gh_refvec *out,
		     uint64_t *entry)
{
	uint64_t lo, hi;
	const unsigned char *code;

	out->n = 0;
	if (gh_sym_func_entry(L->sym, name, &lo, &hi) != 0)
		return 1;
	if (hi <= lo || hi - lo > GH_LOCATE_MAX_FUNC || lo < L->bias)
		return gh_errf(L->err, GOHEAP_ECORRUPT,
			       "%s: implausible function bounds 0x%llx-0x%llx "
			       "in the pclntab", name, (unsigned long long)lo,
			       (unsigned long long)hi);
	lo -= L->bias;
	hi -= L->bias;
	code = gh_exe_ptr(L->exe, lo, (size_t)(hi - lo));
	if (code == NULL)
		return gh_errf(L->err, GOHEAP_ECORRUPT,
			       "%s: code at 0x%llx is not in the file", name,
			       (unsigned long long)lo);
	*entry = lo;
	return gh_decoder_refs(L->dec, gh_exe_machine(L->exe), code,
			       (size_t)(hi - lo), lo, out, L->err);
}

/* The first reference matching kind/size/section, or NULL. */
static const gh_ref *first_ref(const loc *L, const gh_refvec *rv,
			       unsigned kind, unsigned size, int sec)
{
	size_t i;

	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & kind) || (size != 0 && r->size != size))
			continue;
		if (gh_loc_sec_class(L->exe, r->target, size ? size : 1) == sec)
			return r;
	}
	return NULL;
}

static int has_ref(const gh_refvec *rv, uint64_t target, unsigned kind,
		   unsigned size)
{
	size_t i;

	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == target && (rv->v[i].kind & kind) &&
		    (size == 0 || rv->v[i].size == size))
			return 1;
	return 0;
}

/* Distinct targets in section `sec`, in order of first appearance. */
static size_t distinct_targets(const loc *L, const gh_refvec *rv, int sec,
			       uint64_t *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < rv->n; i++) {
		uint64_t t = rv->v[i].target;

		if (gh_loc_sec_class(L->exe, t, 1) != sec)
			continue;
		for (j = 0; j < n; j++)
			if (out[j] == t)
				break;
		if (j < n)
			continue;
		if (n == max)
			return max + 1;
		out[n++] = t;
	}
	return n;
}

typedef struct found {
	uint64_t m, b, x, cycle, rate, ticks, mrate, allgs, fing, tblabels,
		 mheap, memstats, gcc, allp, sched, allm;
	unsigned fing_size;
	char how[768];
} located;

static void how_add(located *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void how_add(located *f, const char *fmt, ...)
{
	size_t n = strlen(f->how);
	va_list ap;

	if (n + 3 >= sizeof(f->how))
		return;
	if (n > 0) {
		f->how[n++] = ';';
		f->how[n++] = ' ';
		f->how[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(f->how + n, sizeof(f->how) - n, fmt, ap);
	va_end(ap);
}

/* Short name for messages: "runtime.stkbucket" -> "stkbucket". */
static const char *short_name(const char *n)
{
	return strncmp(n, "runtime.", 8) == 0 ? n + 8 : n;
}

/*
 * mbuckets: runtime.mProf_FlushLocked walks the list and touches nothing
 * else in .bss (Go 1.19-1.24 src/runtime/mprof.go; the same shape in 1.26
 * and 1.27 binaries), so its one .bss target, loaded as a pointer, is
 * mbuckets.  Confirmed by the profile reader (memProfileInternal 1.23+,
 * MemProfile before) loading it, or by runtime.stkbucket materialising it.
 */
static int find_mbuckets(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const readers[] = {
		"runtime.memProfileInternal", "runtime.MemProfile"
	};
	static const char anchor[] = "runtime.mProf_FlushLocked";
	uint64_t t[4], entry = 0, aentry = 0, pc = 0;
	size_t n, i;
	const char *conf = NULL;
	int rc;

	rc = gh_loc_func_refs(L, anchor, rv, &aentry);
	if (rc == 1)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: "
			       "%s is not in the pclntab", anchor);
	if (rc != 0)
		return rc;
	n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
	if (n != 1)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: %s "
			       "refers to %s%zu .bss addresses, expected "
			       "exactly one", anchor, n > GH_ARRAY_LEN(t) ?
			       "more than " : "", n > GH_ARRAY_LEN(t) ?
			       GH_ARRAY_LEN(t) : n);
	if (!has_ref(rv, t[0], GH_REF_LOAD, L->ps) || t[0] % L->ps != 0)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: %s "
			       "does not load a pointer from 0x%llx", anchor,
			       (unsigned long long)t[0]);
	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == t[0]) {
			pc = rv->v[i].pc;
			break;
		}
	for (i = 0; i < GH_ARRAY_LEN(readers) && conf == NULL; i++) {
		rc = gh_loc_func_refs(L, readers[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		if (!has_ref(rv, t[0], GH_REF_LOAD, L->ps))
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mbuckets: %s and %s disagree "
				       "(0x%llx is not loaded by the latter)",
				       anchor, readers[i],
				       (unsigned long long)t[0]);
		conf = readers[i];
	}
	if (conf == NULL) {
		rc = gh_loc_func_refs(L, "runtime.stkbucket", rv, &entry);
		if (rc < 0)
			return rc;
		if (rc == 0 && has_ref(rv, t[0], GH_REF_ADDR | GH_REF_LOAD, 0))
			conf = "runtime.stkbucket";
	}
	if (conf == NULL)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: "
			       "candidate 0x%llx from %s could not be "
			       "confirmed (no memProfileInternal, MemProfile "
			       "or stkbucket reference)",
			       (unsigned long long)t[0], anchor);
	f->m = t[0];
	how_add(f, "mbuckets via %s+0x%llx (confirmed by %s)",
		anchor, (unsigned long long)(pc - aentry), short_name(conf));
	return 0;
}

/*
 * bbuckets / xbuckets.  Two independent sources:
 *   - the readers (blockProfileInternal / mutexProfileInternal 1.23+,
 *     BlockProfile / MutexProfile before): their first pointer load from
 *     .bss is the list head.  The linker drops them from programs that
 *     never ask for those profiles.
 *   - runtime.stkbucket: "if typ == memProfile {mbuckets} else if typ ==
 *     mutexProfile {xbuckets} else {bbuckets}" (Go 1.19-1.24 mprof.go)
 *     materialises the three heads in that order, so the two distinct .bss
 *     targets after mbuckets are xbuckets, then bbuckets.
 * Where both exist they must agree.  Not needed for heap profiles, so an
 * unconfirmed pair is left 0 (with a note) instead of failing.
 */
static int find_bx(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const breaders[] = {
		"runtime.blockProfileInternal", "runtime.BlockProfile"
	};
	static const char *const xreaders[] = {
		"runtime.mutexProfileInternal", "runtime.MutexProfile"
	};
	uint64_t t[16], entry, pb = 0, px = 0, sb = 0, sx = 0;
	const gh_ref *r;
	size_t n, i, k;
	int rc, readers;

	for (i = 0; i < GH_ARRAY_LEN(breaders) && pb == 0; i++) {
		rc = gh_loc_func_refs(L, breaders[i], rv, &entry);
		if (rc < 0)
			return rc;
		r = rc == 0 ? first_ref(L, rv, GH_REF_LOAD, L->ps, SEC_BSS) :
			      NULL;
		if (r != NULL)
			pb = r->target;
	}
	for (i = 0; i < GH_ARRAY_LEN(xreaders) && px == 0; i++) {
		rc = gh_loc_func_refs(L, xreaders[i], rv, &entry);
		if (rc < 0)
			return rc;
		r = rc == 0 ? first_ref(L, rv, GH_REF_LOAD, L->ps, SEC_BSS) :
			      NULL;
		if (r != NULL)
			px = r->target;
	}
	rc = gh_loc_func_refs(L, "runtime.stkbucket", rv, &entry);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
		for (k = 0; k < n && k < GH_ARRAY_LEN(t); k++)
			if (t[k] == f->m)
				break;
		if (k < n && n <= GH_ARRAY_LEN(t) && n - k == 3) {
			sx = t[k + 1];
			sb = t[k + 2];
		}
	}
	if ((pb != 0 && sb != 0 && pb != sb) ||
	    (px != 0 && sx != 0 && px != sx)) {
		how_add(f, "bbuckets/xbuckets not confirmed (the profile "
			"readers and stkbucket disagree)");
		return 0;
	}
	readers = pb != 0 || px != 0;
	if (pb == 0)
		pb = sb;
	if (px == 0)
		px = sx;
	if (pb == 0 || px == 0 || pb == px || pb == f->m || px == f->m ||
	    pb % L->ps != 0 || px % L->ps != 0) {
		how_add(f, "bbuckets/xbuckets not confirmed");
		return 0;
	}
	f->b = pb;
	f->x = px;
	how_add(f, "bbuckets/xbuckets via %s", sb != 0 && readers ?
		"stkbucket and the profile readers" : sb != 0 ?
		"stkbucket" : "the profile readers");
	return 0;
}

/*
 * mProfCycle (a uint32 in .noptrbss, Go 1.19+ mProfCycleHolder): the first
 * thing mProf_PostSweep, mProf_Free and mProf_Flush do is
 * mProfCycle.read(), a 4-byte load.  At least two of them must be present
 * and all present ones must agree.
 */
static int find_cycle(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const anchors[] = {
		"runtime.mProf_PostSweep", "runtime.mProf_Free",
		"runtime.mProf_Flush"
	};
	uint64_t cand = 0, entry;
	const gh_ref *r;
	size_t i, agree = 0;
	int rc;

	for (i = 0; i < GH_ARRAY_LEN(anchors); i++) {
		rc = gh_loc_func_refs(L, anchors[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		r = first_ref(L, rv, GH_REF_LOAD, 4, SEC_NOPTRBSS);
		if (r == NULL)
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mProfCycle: %s loads no "
				       "32-bit word from .noptrbss", anchors[i]);
		if (cand != 0 && r->target != cand)
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mProfCycle: anchors disagree "
				       "(0x%llx, and 0x%llx in %s)",
				       (unsigned long long)cand,
				       (unsigned long long)r->target,
				       anchors[i]);
		cand = r->target;
		agree++;
	}
	if (agree < 2 || cand % 4 != 0)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mProfCycle: "
			       "only %zu of mProf_PostSweep, mProf_Free, "
			       "mProf_Flush found (two must agree)", agree);
	f->cycle = cand;
	how_add(f, "mProfCycle via %zu agreeing anchors", agree);
	return 0;
}

/*
 * runtime.ticks.val, the cycles/second the runtime computed (block and mutex
 * profiles' "cycles/second").  runtime.ticksPerSecond (1.22+;
 * tickspersecond before) is the one function that computes it: it takes
 * &ticks.lock (the struct's first word) and loads ticks.val (and, from
 * 1.22, ticks.startTicks and ticks.startTime), all in .noptrbss.  val is
 * the highest target loaded as 8 bytes, and the lock must sit exactly
 * rt->ticks_val_off below it; with rt->ticks_start, startTicks and
 * startTime must be loaded at val-16 and val-8.  Optional: when it is not
 * found (the function inlined away, say), the session estimates the rate
 * and says so.  Returns 0, 1 (not found) or an error.
 */
static int find_ticks(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		      located *f)
{
	static const char *const fns[] = {
		"runtime.ticksPerSecond", "runtime.tickspersecond"
	};
	uint64_t t[8], val = 0, lo = UINT64_MAX, entry;
	size_t n, i, k;
	int rc = 1;

	for (k = 0; k < GH_ARRAY_LEN(fns) && rc == 1; k++)
		rc = gh_loc_func_refs(L, fns[k], rv, &entry);
	if (rc != 0)
		return rc;
	k--;
	n = distinct_targets(L, rv, SEC_NOPTRBSS, t, GH_ARRAY_LEN(t));
	if (n == 0 || n > GH_ARRAY_LEN(t))
		return 1;
	for (i = 0; i < n; i++) {
		if (t[i] > val && has_ref(rv, t[i], GH_REF_LOAD, 8))
			val = t[i];
		if (t[i] < lo)
			lo = t[i];
	}
	if (val == 0 || val % 8 != 0 || val < rt->ticks_val_off ||
	    lo != val - rt->ticks_val_off)
		return 1;
	if (rt->ticks_start && (!has_ref(rv, val - 16, GH_REF_LOAD, 8) ||
				!has_ref(rv, val - 8, GH_REF_LOAD, 8)))
		return 1;
	f->ticks = val;
	how_add(f, "ticks.val via %s", short_name(fns[k]));
	return 0;
}

/* The 8-byte .noptrbss words `name` loads, into set (at most max). */
static int loads8(const loc *L, gh_refvec *rv, const char *name,
		  uint64_t *set, size_t *n, size_t max)
{
	uint64_t t[16], entry;
	size_t m, i;
	int rc;

	*n = 0;
	rc = gh_loc_func_refs(L, name, rv, &entry);
	if (rc != 0)
		return rc;
	m = distinct_targets(L, rv, SEC_NOPTRBSS, t, GH_ARRAY_LEN(t));
	if (m > GH_ARRAY_LEN(t))
		return 1;
	for (i = 0; i < m && *n < max; i++)
		if (t[i] % 8 == 0 && has_ref(rv, t[i], GH_REF_LOAD, 8))
			set[(*n)++] = t[i];
	return 0;
}

/*
 * runtime.mutexprofilerate (uint64, .noptrbss): loaded by
 * runtime.semacquire1 ("mutexprofilerate > 0", next to blockprofilerate)
 * and by the mutex event recorder, runtime.mutexevent (1.22+) or, where
 * that is inlined, sync.event (1.19-1.21).  The one 8-byte .noptrbss word
 * both load is it.  Optional: 1 when not found.
 */
static int find_mutexrate(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const recorders[] = {
		"runtime.mutexevent", "sync.event"
	};
	uint64_t a[16], b[16], cand = 0;
	size_t na, nb, i, j, k, ncand = 0;
	int rc;

	rc = loads8(L, rv, "runtime.semacquire1", a, &na, GH_ARRAY_LEN(a));
	if (rc != 0)
		return rc;
	rc = 1;
	for (k = 0; k < GH_ARRAY_LEN(recorders) && rc == 1; k++)
		rc = loads8(L, rv, recorders[k], b, &nb, GH_ARRAY_LEN(b));
	if (rc != 0)
		return rc;
	k--;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j] && a[i] != cand) {
				cand = a[i];
				ncand++;
			}
	if (ncand != 1)
		return 1;
	f->mrate = cand;
	how_add(f, "mutexprofilerate via semacquire1 and %s",
		short_name(recorders[k]));
	return 0;
}

/*
 * runtime.MemProfileRate's default, defaultMemProfileRate(512 * 1024)
 * (Go 1.21-1.24 src/runtime/mprof.go, var MemProfileRate): the file value
 * of the variable in .noptrdata for Go 1.21+.
 */
#define GH_DEFAULT_MEMPROFILERATE ((uint64_t)GOHEAP_DEFAULT_MEM_PROFILE_RATE)

/* Append the distinct ps-sized targets of `kind` in `funcs` to set. */
static int collect(const loc *L, gh_refvec *rv, const char *const *funcs,
		   size_t nfuncs, unsigned kind, uint64_t *set, size_t *n,
		   size_t max, const char **used)
{
	uint64_t entry;
	size_t i, j, k;
	int rc;

	for (i = 0; i < nfuncs; i++) {
		rc = gh_loc_func_refs(L, funcs[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		if (*used == NULL)
			*used = funcs[i];
		for (j = 0; j < rv->n; j++) {
			const gh_ref *r = &rv->v[j];
			int sec;

			if (!(r->kind & kind) || r->size != L->ps)
				continue;
			sec = gh_loc_sec_class(L->exe, r->target, L->ps);
			if (sec != SEC_NOPTRDATA && sec != SEC_NOPTRBSS)
				continue;
			for (k = 0; k < *n; k++)
				if (set[k] == r->target)
					break;
			if (k == *n && *n < max)
				set[(*n)++] = r->target;
		}
	}
	return 0;
}

/*
 * MemProfileRate (a Go int): written by the GODEBUG parser
 * (parsedebugvars 1.19, parsegodebug 1.21+: memprofilerate=N), by
 * runtime.init (1.19: the dynamic initialiser) and schedinit (1.21+: 0
 * when disableMemoryProfiling); read by profilealloc / mallocgc /
 * nextSample.  The word both written and read, in .noptrdata with the
 * default in the file (1.21+) or in .noptrbss (1.19, initialised at run
 * time), is the one; it must be unique.
 */
static int find_rate(const loc *L, gh_refvec *rv, gh_gover ver, located *f)
{
	static const char *const writers[] = {
		"runtime.parsegodebug", "runtime.parsedebugvars",
		"runtime.schedinit", "runtime.init"
	};
	static const char *const readers[] = {
		"runtime.profilealloc", "runtime.mallocgc",
		"runtime.nextSample", "runtime.(*mcache).nextSample"
	};
	const gh_rtlayout *rt = gh_rtlayout_for(ver);
	uint64_t st[64], ld[64], cand = 0;
	size_t nst = 0, nld = 0, i, j, ncand = 0;
	const char *wused = NULL, *rused = NULL, *why = NULL;
	int rc;

	rc = collect(L, rv, writers, GH_ARRAY_LEN(writers), GH_REF_STORE, st,
		     &nst, GH_ARRAY_LEN(st), &wused);
	if (rc != 0)
		return rc;
	rc = collect(L, rv, readers, GH_ARRAY_LEN(readers), GH_REF_LOAD, ld,
		     &nld, GH_ARRAY_LEN(ld), &rused);
	if (rc != 0)
		return rc;
	for (i = 0; i < nst; i++) {
		const unsigned char *p;
		int sec = gh_loc_sec_class(L->exe, st[i], L->ps);

		for (j = 0; j < nld; j++)
			if (ld[j] == st[i])
				break;
		if (j == nld || st[i] % L->ps != 0)
			continue;
		if (sec == SEC_NOPTRDATA) {
			p = gh_exe_ptr(L->exe, st[i], L->ps);
			if (p == NULL ||
			    gh_load(p, L->ps, gh_exe_big_endian(L->exe)) !=
				    GH_DEFAULT_MEMPROFILERATE) {
				why = "its file value is not 524288";
				continue;
			}
			if (rt != NULL && rt->rate_static == 0) {
				why = "it is in .noptrdata, not .noptrbss as "
				      "in go1.19";
				continue;
			}
		} else if (rt != NULL && rt->rate_static == 1) {
			why = "it is in .noptrbss, not .noptrdata as in "
			      "go1.21+";
			continue;
		}
		cand = st[i];
		ncand++;
	}
	if (ncand != 1)
		return gh_errf(L->err, GOHEAP_ENOSYM,
			       "runtime.MemProfileRate: %zu candidates "
			       "written by %s and read by %s%s%s", ncand,
			       wused != NULL ? short_name(wused) : "(no writer)",
			       rused != NULL ? short_name(rused) : "(no reader)",
			       ncand == 0 && why != NULL ? "; rejected: " : "",
			       ncand == 0 && why != NULL ? why : "");
	f->rate = cand;
	how_add(f, "MemProfileRate in %s via %s and %s",
		sec_names[gh_loc_sec_class(L->exe, cand, L->ps)], short_name(wused),
		short_name(rused));
	return 0;
}

/*
 * runtime.allgs ([]*g in .bss, {ptr, len, cap}): runtime.allgadd appends
 * to it ("allgs = append(allgs, gp)", Go 1.19-1.27 src/runtime/proc.go),
 * storing all three words; allgptr and allglen, the other globals it
 * writes, are single words.  The candidate is the one pointer-aligned .bss
 * address A whose A, A+ps and A+2ps allgadd all stores as words.
 * Confirmed by runtime.forEachG ("for _, gp := range allgs" under
 * allglock), whose only .bss targets are A (loaded) and A+ps, and which
 * takes the same lock (its first .noptrbss address) as allgadd.  Optional
 * (heap profiles do not need it): 1 when not confirmed, with a note.
 */
static int find_allgs(const loc *L, gh_refvec *rv, located *f)
{
	uint64_t t[32], u[4], lock = 0, entry, cand = 0;
	const gh_ref *r;
	size_t n, i, ncand = 0;
	unsigned ps = L->ps;
	int rc;

	rc = gh_loc_func_refs(L, "runtime.allgadd", rv, &entry);
	if (rc != 0)
		goto none;
	r = first_ref(L, rv, GH_REF_ADDR, 0, SEC_NOPTRBSS);
	lock = r != NULL ? r->target : 0;
	n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
	if (n > GH_ARRAY_LEN(t))
		goto none;
	for (i = 0; i < n; i++)
		if (t[i] % ps == 0 && has_ref(rv, t[i], GH_REF_STORE, ps) &&
		    has_ref(rv, t[i] + ps, GH_REF_STORE, ps) &&
		    has_ref(rv, t[i] + 2 * ps, GH_REF_STORE, ps) &&
		    t[i] != cand) {
			cand = t[i];
			ncand++;
		}
	if (ncand != 1 || lock == 0)
		goto none;
	rc = gh_loc_func_refs(L, "runtime.forEachG", rv, &entry);
	if (rc != 0)
		goto none;
	/* arm64 loads {ptr, len} with one LDP: only A may be seen */
	n = distinct_targets(L, rv, SEC_BSS, u, GH_ARRAY_LEN(u));
	if (n < 1 || n > 2 || (u[0] != cand && u[0] != cand + ps) ||
	    (n == 2 && u[1] != cand && u[1] != cand + ps) ||
	    !has_ref(rv, cand, GH_REF_LOAD, ps) ||
	    !has_ref(rv, lock, GH_REF_ADDR, 0))
		goto none;
	f->allgs = cand;
	how_add(f, "allgs via allgadd (confirmed by forEachG)");
	return 0;
none:
	/* optional: only running out of memory ends the location */
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "allgs not confirmed (%s)", ncand > 1 ?
		"several candidates in allgadd" : "allgadd/forEachG");
	return 1;
}

/*
 * The finalizer goroutine's state, as isSystemGoroutine reads it:
 * runtime.fingStatus (atomic.Uint32, 1.21+) or fingRunning (bool, 1.19),
 * both in .noptrbss.  isSystemGoroutine loads exactly one 4- or 1-byte
 * .noptrbss word; the finalizer loop (runfinq, runFinalizers 1.25+) must
 * refer to it too.  Optional: 1 when not confirmed.
 */
static int find_fing(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const loops[] = {
		"runtime.runFinalizers", "runtime.runfinq"
	};
	uint64_t cand = 0, entry;
	unsigned size = 0;
	size_t i, ncand = 0;
	int rc;

	rc = gh_loc_func_refs(L, "runtime.isSystemGoroutine", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_LOAD) || (r->size != 4 && r->size != 1) ||
		    gh_loc_sec_class(L->exe, r->target, r->size) != SEC_NOPTRBSS ||
		    (r->target == cand && r->size == size))
			continue;
		cand = r->target;
		size = r->size;
		ncand++;
	}
	if (ncand != 1 || cand % size != 0)
		goto none;
	rc = 1;
	for (i = 0; i < GH_ARRAY_LEN(loops) && rc == 1; i++)
		rc = gh_loc_func_refs(L, loops[i], rv, &entry);
	if (rc != 0 || !has_ref(rv, cand, GH_REF_ADDR | GH_REF_STORE, 0))
		goto none;
	f->fing = cand;
	f->fing_size = size;
	how_add(f, "%s via isSystemGoroutine and %s", size == 4 ?
		"fingStatus" : "fingRunning", short_name(loops[i - 1]));
	return 0;
none:
	/* optional: only running out of memory ends the location */
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "fingStatus not confirmed");
	return 1;
}

/*
 * runtime.debug.tracebacklabels (atomic.Int32, 1.26+): goroutineheader
 * loads it once, its only 4-byte load from .bss/.noptrbss (runtime.debug
 * is zero until schedinit; traceback_cache, which the inlined gotraceback
 * loads, is initialised: .noptrdata), and it is the field at the row's
 * debug_tracebacklabels offset of a 4-aligned struct.  Optional: 1 when
 * the release has no such setting or it is not confirmed.
 */
static int find_tblabels(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
			 located *f)
{
	uint64_t cand = 0, entry;
	size_t i, ncand = 0;
	int rc, cls;

	if (rt->tb_labels == 0)
		return 1;
	rc = gh_loc_func_refs(L, "runtime.goroutineheader", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_LOAD) || r->size != 4 ||
		    r->target == cand)
			continue;
		cls = gh_loc_sec_class(L->exe, r->target, 4);
		if (cls != SEC_BSS && cls != SEC_NOPTRBSS)
			continue;
		cand = r->target;
		ncand++;
	}
	if (ncand != 1 || cand % 4 != 0 || cand < rt->debug_tracebacklabels)
		goto none;
	f->tblabels = cand;
	how_add(f, "debug.tracebacklabels via goroutineheader");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "debug.tracebacklabels not confirmed");
	return 1;
}

/*
 * runtime.mheap_ (-p types): runtime.sweepone reads mheap_.sweepgen (a
 * 4-byte load at mheap_ + the row's mh_sweepgen) and passes &mheap_ to
 * nextSpanForSweep (Go 1.19-1.27 mgcsweep.go), so the candidate is the one
 * pointer-aligned .bss address A it materialises with a 4-byte load of
 * A + mh_sweepgen beside it.  Confirmed by runtime.markrootSpans loading
 * that word too ("sg := mheap_.sweepgen", mgcmark.go).  Optional: 1 when
 * the release has no heap row or it is not confirmed.
 */
static int find_mheap(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		      located *f)
{
	uint64_t cand = 0, entry;
	size_t i, ncand = 0;
	int rc;

	if (!rt->heap_verified)
		return 1;
	rc = gh_loc_func_refs(L, "runtime.sweepone", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_ADDR) || r->target % L->ps != 0 ||
		    r->target == cand ||
		    gh_loc_sec_class(L->exe, r->target, 1) != SEC_BSS ||
		    !has_ref(rv, r->target + rt->mh_sweepgen, GH_REF_LOAD, 4))
			continue;
		cand = r->target;
		ncand++;
	}
	if (ncand != 1)
		goto none;
	rc = gh_loc_func_refs(L, "runtime.markrootSpans", rv, &entry);
	if (rc != 0 || !has_ref(rv, cand + rt->mh_sweepgen, GH_REF_LOAD, 4))
		goto none;
	f->mheap = cand;
	how_add(f, "mheap_ via sweepone (confirmed by markrootSpans)");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "mheap_ not confirmed");
	return 1;
}

/*
 * -p memstats (memstats.c): three globals, each from code every program
 * links (Go 1.19-1.27), at the row's offsets:
 *   - runtime.memstats M: gcMarkTermination counts the cycle (4-byte
 *     load/store of M.numgc and M.numforcedgc), sets M.last_gc_unix and
 *     indexes M.pause_ns and M.pause_end (their addresses); the one M
 *     with all five;
 *   - runtime.gcController C: (*mheap).allocSpan touches C.heapInUse,
 *     C.heapFree and C.mappedReady (and C.heapReleased, from a register
 *     on arm64); the one C with those three, confirmed by gcStart taking C's address (c.startCycle);
 *   - runtime.allp A: retake's loop loads A and A + 8 (len), its only
 *     .bss pair (arm64: its one word-sized .bss load, LDP loading both);
 *     confirmed by procresize loading A.
 * Optional: 1 when the release has no MemStats row or one is not
 * confirmed (all three are then left 0).
 */
static int find_mstats(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		       located *f)
{
	uint64_t ms = 0, gc = 0, ap = 0, entry;
	size_t i, nms = 0, ngc = 0, nap = 0;
	const char *why = "gcMarkTermination";
	int rc, pass;

	if (!rt->mstats_verified)
		return 1;
	rc = gh_loc_func_refs(L, "runtime.gcMarkTermination", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];
		uint64_t c = r->target - rt->mst_numgc;

		if (r->size != 4 || !(r->kind & (GH_REF_LOAD | GH_REF_STORE)) ||
		    c == ms || r->target < rt->mst_numgc ||
		    !has_ref(rv, c + rt->mst_numforcedgc,
			     GH_REF_LOAD | GH_REF_STORE, 4) ||
		    !has_ref(rv, c + rt->mst_last_gc_unix,
			     GH_REF_ADDR | GH_REF_STORE, 0) ||
		    !has_ref(rv, c + rt->mst_pause_ns, GH_REF_ADDR, 0) ||
		    !has_ref(rv, c + rt->mst_pause_end, GH_REF_ADDR, 0))
			continue;
		ms = c;
		nms++;
	}
	if (nms != 1)
		goto none;
	why = "(*mheap).allocSpan";
	rc = gh_loc_func_refs(L, "runtime.(*mheap).allocSpan", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];
		uint64_t c = r->target - rt->gcc_heapinuse;

		if (r->target < rt->gcc_heapinuse || c == gc ||
		    c % L->ps != 0 ||
		    !has_ref(rv, c + rt->gcc_heapfree, ~0u, 0) ||
		    !has_ref(rv, c + rt->gcc_mappedready, ~0u, 0))
			continue;
		gc = c;
		ngc++;
	}
	if (ngc != 1)
		goto none;
	rc = gh_loc_func_refs(L, "runtime.gcStart", rv, &entry);
	if (rc != 0 || !has_ref(rv, gc, GH_REF_ADDR, 0))
		goto none;
	why = "retake";
	rc = gh_loc_func_refs(L, "runtime.retake", rv, &entry);
	if (rc != 0)
		goto none;
	/* pass 0: {A, A+8} loaded; pass 1 (arm64's LDP loads both with one
	 * instruction: only A is seen): the one word-sized .bss load */
	for (pass = 0; pass < 2 && nap == 0; pass++)
		for (i = 0; i < rv->n; i++) {
			const gh_ref *r = &rv->v[i];

			if (!(r->kind & GH_REF_LOAD) || r->size != L->ps ||
			    r->target == ap || r->target % L->ps != 0 ||
			    gh_loc_sec_class(L->exe, r->target, 1) != SEC_BSS ||
			    (pass == 0 && !has_ref(rv, r->target + L->ps,
						   GH_REF_LOAD, L->ps)))
				continue;
			if (ap != 0 && r->target != ap + L->ps) {
				nap++;
				continue;
			}
			if (ap == 0) {
				ap = r->target;
				nap++;
			}
		}
	if (nap != 1)
		goto none;
	why = "procresize";
	rc = gh_loc_func_refs(L, "runtime.procresize", rv, &entry);
	if (rc != 0 || !has_ref(rv, ap, GH_REF_LOAD, L->ps))
		goto none;
	f->memstats = ms;
	f->gcc = gc;
	f->allp = ap;
	how_add(f, "memstats via gcMarkTermination, gcController via "
		"allocSpan+gcStart, allp via retake+procresize");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "memstats/gcController/allp not confirmed (%s)", why);
	return 1;
}

/*
 * go_goroutines' and go_threads' globals (memstats.c read_counts), each
 * from code every program links (Go 1.19-1.27), at the row's offsets:
 *   - runtime.sched S: gfget pops sched.gFree under its lock: the address
 *     of S.gFree.lock and 4-byte read-modify-writes of the count(s)
 *     (S.gFree.n, 1.25+ S.gFree.stack.size and noStack.size), the one S
 *     with all; confirmed by newproc1 taking the addresses of S.goidgen
 *     (S + 0) and S.ngsys (their atomic adds);
 *   - runtime.allm A: mcommoninit loads A (mp.alllink = allm) and takes
 *     its address (atomicstorep): the one .bss word with both.
 * Optional: 1 when not confirmed (both left 0).
 */
static int find_sched(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		      located *f)
{
	uint64_t sc = 0, am = 0, entry;
	unsigned lockoff;
	size_t i, nsc = 0, nam = 0;
	const char *why = "gfget";
	int rc;

	if (rt->sched_ngsys == 0 || L->ps != 8)
		return 1;
	/* gFree {lock; stack, noStack gList; [n]}: a gList is a word (<=
	 * 1.24) or {head; size int32} (1.25+) */
	lockoff = rt->sched_gfree_n2 == 0 ? 24 : 16;
	rc = gh_loc_func_refs(L, "runtime.gfget", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];
		uint64_t c = r->target - rt->sched_gfree_n;

		/* (amd64 decodes one read-modify-write, arm64 a load and a
		 * store) */
		if (r->size != 4 || r->target < rt->sched_gfree_n ||
		    !(r->kind & GH_REF_LOAD) ||
		    !has_ref(rv, r->target, GH_REF_STORE, 4) || c == sc ||
		    c % 8 != 0 ||
		    !has_ref(rv, c + rt->sched_gfree_n - lockoff,
			     GH_REF_ADDR, 0) ||
		    (rt->sched_gfree_n2 != 0 &&
		     !has_ref(rv, c + rt->sched_gfree_n2,
			      GH_REF_LOAD | GH_REF_STORE, 4)))
			continue;
		sc = c;
		nsc++;
	}
	if (nsc != 1)
		goto none;
	why = "newproc1";
	rc = gh_loc_func_refs(L, "runtime.newproc1", rv, &entry);
	if (rc != 0 || !has_ref(rv, sc, GH_REF_ADDR, 0) ||
	    !has_ref(rv, sc + rt->sched_ngsys, GH_REF_ADDR, 0))
		goto none;
	why = "mcommoninit";
	rc = gh_loc_func_refs(L, "runtime.mcommoninit", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_LOAD) || r->size != 8 ||
		    r->target == am || r->target % 8 != 0 ||
		    gh_loc_sec_class(L->exe, r->target, 8) != SEC_BSS ||
		    !has_ref(rv, r->target, GH_REF_ADDR, 0))
			continue;
		am = r->target;
		nam++;
	}
	if (nam != 1)
		goto none;
	f->sched = sc;
	f->allm = am;
	how_add(f, "sched via gfget (confirmed by newproc1), allm via "
		"mcommoninit");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "sched/allm not confirmed (%s)", why);
	return 1;
}

int gh_locate_globals(const gh_exe *exe, const gh_sym *sym, gh_gover ver,
		      uint64_t bias, gh_rtaddrs *out, char *how,
		      size_t howlen, gh_err *err)
{
	gh_refvec rv = { NULL, 0, 0 };
	located f;
	loc L;
	gh_decoder dec = GH_DECODER_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	L.dec = &dec;
	memset(&f, 0, sizeof(f));
	if (how != NULL && howlen > 0)
		how[0] = '\0';
	L.exe = exe;
	L.sym = sym;
	L.bias = bias;
	L.ps = gh_exe_ptr_size(exe);
	L.err = err;
	if (gh_exe_machine(exe) != EM_X86_64 &&
	    gh_exe_machine(exe) != EM_AARCH64) {
		rc = gh_errf(err, GOHEAP_ENOSYM, "no symbol table, and "
			     "locating the runtime globals from machine code "
			     "is implemented for amd64 and arm64 only "
			     "(e_machine %u)", gh_exe_machine(exe));
		goto out;
	}
	if (gh_exe_section(exe, ".bss") == NULL ||
	    gh_exe_section(exe, ".noptrbss") == NULL) {
		rc = gh_errf(err, GOHEAP_ENOSYM, "no symbol table and no "
			     ".bss/.noptrbss section headers: cannot "
			     "confirm any runtime global");
		goto out;
	}
	rc = find_mbuckets(&L, &rv, &f);
	if (rc == 0)
		rc = find_cycle(&L, &rv, &f);
	if (rc == 0)
		rc = find_rate(&L, &rv, ver, &f);
	if (rc == 0)
		rc = find_bx(&L, &rv, &f);
	if (rc == 0 && gh_rtlayout_for(ver) != NULL) {
		/* Optional: absent or unconfirmed leaves them 0. */
		rc = find_ticks(&L, &rv, gh_rtlayout_for(ver), &f);
		if (rc == 0 || rc == 1)
			rc = find_mutexrate(&L, &rv, &f);
		if (rc == 1)
			rc = 0;
	}
	/* Optional, for goroutine profiles: unconfirmed leaves them 0. */
	if (rc == 0)
		rc = find_allgs(&L, &rv, &f);
	if (rc == 0 || rc == 1)
		rc = find_fing(&L, &rv, &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_tblabels(&L, &rv, gh_rtlayout_for(ver), &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_mheap(&L, &rv, gh_rtlayout_for(ver), &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_mstats(&L, &rv, gh_rtlayout_for(ver), &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_sched(&L, &rv, gh_rtlayout_for(ver), &f);
	if (rc == 1)
		rc = 0;
	if (rc != 0) {
		gh_err_prefix(err, "%s has no symbol table; decoding its "
			      "runtime code", gh_exe_path(exe));
		goto out;
	}
	out->mbuckets = f.m + bias;
	out->bbuckets = f.b != 0 ? f.b + bias : 0;
	out->xbuckets = f.x != 0 ? f.x + bias : 0;
	out->mprofcycle = f.cycle + bias;
	out->memprofilerate = f.rate + bias;
	out->ticks_val = f.ticks != 0 ? f.ticks + bias : 0;
	out->mutexprofilerate = f.mrate != 0 ? f.mrate + bias : 0;
	out->allgs = f.allgs != 0 ? f.allgs + bias : 0;
	out->fing = f.fing != 0 ? f.fing + bias : 0;
	out->fing_size = f.fing != 0 ? f.fing_size : 0;
	out->tblabels = f.tblabels != 0 ? f.tblabels + bias : 0;
	out->mheap = f.mheap != 0 ? f.mheap + bias : 0;
	out->memstats = f.memstats != 0 ? f.memstats + bias : 0;
	out->gccontroller = f.gcc != 0 ? f.gcc + bias : 0;
	out->allp = f.allp != 0 ? f.allp + bias : 0;
	out->sched = f.sched != 0 ? f.sched + bias : 0;
	out->allm = f.allm != 0 ? f.allm + bias : 0;
	if (how != NULL && howlen > 0)
		snprintf(how, howlen, "%s", f.how);
out:
	gh_refvec_free(&rv);
	gh_decoder_close(&dec);
	/* Whatever went wrong (a hostile table, a limit), the outcome for
	 * the caller is the same: these globals could not be confirmed. */
	if (rc != 0 && rc != GOHEAP_ENOMEM && rc != GOHEAP_ENOSYM) {
		rc = GOHEAP_ENOSYM;
		if (err != NULL)
			err->code = rc;
	}
	return rc;
}


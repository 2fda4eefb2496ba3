/*
 * layoutguard.c - a runtime layout checked against live data before it is
 * trusted: the bucket lists walked a little way with the release's row
 * (locate.h gh_validate_layout).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locate_int.h"
#include "walk.h"

typedef struct guard {
	gh_mem *m;
	const gh_rtlayout *lay;
	gh_gover ver;
	gh_err *err;
	size_t buckets, records, informative, consistent4, inconsistent4,
	       looks4, badcounts;
} guard;

static int guard_fail(const guard *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int guard_fail(const guard *g, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return gh_errf(g->err, GOHEAP_EVERSION,
		       "unsupported runtime layout for go%d.%d: %s",
		       g->ver.major, g->ver.minor, why);
}

/*
 * The record after bucket `addr` (nstk PCs after the header): active and
 * future[3] memRecordCycles of lay->cycle_words words each.
 */
static int guard_record(guard *g, uint64_t addr, uint64_t size,
			uint64_t nstk)
{
	const gh_rtlayout *lay = g->lay;
	unsigned ps = g->m->ptr_size, k;
	unsigned char rec[4 * 4 * 8];
	uint64_t w[16];
	size_t nw = 4u * lay->cycle_words, i;
	uint64_t at = addr + (lay->bucket_words + nstk) * ps;
	int rc, ok4 = 1;

	if (nw > GH_ARRAY_LEN(w))
		return guard_fail(g, "memRecordCycle of %u words",
				  lay->cycle_words);
	rc = gh_mem_read(g->m, at, rec, nw * ps, "memRecord");
	if (rc != 0)
		return rc;
	for (i = 0; i < nw; i++)
		w[i] = gh_mem_word(g->m, rec + i * ps, ps);
	g->records++;
	/* active.frees <= active.allocs: frees are of earlier allocations. */
	if (w[1] > w[0])
		g->badcounts++;
	if (w[0] == 0 || size <= 1)
		return 0;
	g->informative++;
	if (lay->cycle_words >= 4) {
		for (k = 0; k < 4; k++) {
			const uint64_t *c = w + 4 * k;

			if (c[2] != c[0] * size || c[3] != c[1] * size)
				ok4 = 0;
		}
		if (ok4)
			g->consistent4++;
		else
			g->inconsistent4++;
	} else if (w[2] == w[0] * size && w[3] == w[1] * size) {
		/* Words 2 and 3 are bytes of words 0 and 1: a 4-word
		 * {allocs, frees, alloc_bytes, free_bytes} cycle read as
		 * two 2-word ones. */
		g->looks4++;
	}
	return 0;
}

/*
 * Follow one list from the head stored at head_addr, checking every
 * header (at most `max` buckets; Brent's cycle check) and, for the memory
 * list, the first GH_LOCATE_GUARD_RECORDS records.
 */
static int guard_list(guard *g, uint64_t head_addr, int typ, size_t max,
		      const char *what)
{
	const gh_rtlayout *lay = g->lay;
	gh_mem *m = g->m;
	unsigned ps = m->ptr_size;
	unsigned char hdr[16 * 8];
	uint64_t cur, saved = 0, steps = 0, limit = 1;
	size_t n = 0;
	int rc;

	if (head_addr == 0)
		return 0;
	if (lay->bucket_words > 16)
		return guard_fail(g, "bucket header of %u words",
				  lay->bucket_words);
	rc = gh_mem_read_ptr(m, head_addr, &cur, what);
	if (rc != 0)
		return rc;
	while (cur != 0) {
		uint64_t btyp, size, nstk;

		if (n == max) {
			if (typ != lay->typ_mem)
				return 0;
			return guard_fail(g, "the %s list does not end "
					  "within %zu buckets", what, max);
		}
		if (cur == saved)
			return guard_fail(g, "the %s list (allnext) loops",
					  what);
		if (cur % ps != 0)
			return guard_fail(g, "%s bucket pointer 0x%llx is "
					  "misaligned", what,
					  (unsigned long long)cur);
		rc = gh_mem_read(m, cur, hdr, (size_t)lay->bucket_words * ps,
				 "bucket");
		if (rc != 0)
			return guard_fail(g, "%s bucket 0x%llx is unreadable "
					  "(%s)", what, (unsigned long long)cur,
					  goheap_strerror(rc));
		btyp = gh_mem_word(m, hdr + lay->w_typ * ps, ps);
		size = gh_mem_word(m, hdr + lay->w_size * ps, ps);
		nstk = gh_mem_word(m, hdr + lay->w_nstk * ps, ps);
		if (btyp != (uint64_t)typ)
			return guard_fail(g, "%s bucket 0x%llx has type %llu, "
					  "expected %d", what,
					  (unsigned long long)cur,
					  (unsigned long long)btyp, typ);
		if (nstk > lay->max_stack)
			return guard_fail(g, "%s bucket 0x%llx has %llu stack "
					  "words, more than %u", what,
					  (unsigned long long)cur,
					  (unsigned long long)nstk,
					  lay->max_stack);
		if ((typ == lay->typ_mem) != (size != 0))
			return guard_fail(g, "%s bucket 0x%llx has size %llu",
					  what, (unsigned long long)cur,
					  (unsigned long long)size);
		if (typ == lay->typ_mem && n < GH_LOCATE_GUARD_RECORDS) {
			rc = guard_record(g, cur, size, nstk);
			if (rc != 0)
				return rc;
		}
		n++;
		if (typ == lay->typ_mem)
			g->buckets++;
		/* Brent: remember a bucket at every power of two steps; a
		 * loop of length L returns to it once limit >= L. */
		if (++steps == limit) {
			saved = cur;
			steps = 0;
			limit *= 2;
		}
		cur = gh_mem_word(m, hdr + lay->w_allnext * ps, ps);
	}
	return 0;
}

int gh_validate_layout(gh_mem *m, const gh_rtlayout *lay,
		       const gh_rtaddrs *a, gh_gover ver, char *how,
		       size_t howlen, gh_err *err)
{
	guard g;
	uint64_t cycle, rate;
	int rc;

	if (how != NULL && howlen > 0)
		how[0] = '\0';
	memset(&g, 0, sizeof(g));
	g.m = m;
	g.lay = lay;
	g.ver = ver;
	g.err = err;
	if (a->mbuckets == 0 || a->mprofcycle == 0 || a->memprofilerate == 0)
		return gh_errf(err, GOHEAP_EINVAL, "layout guard: runtime "
			       "globals not located");
	rc = gh_mem_read_uint(m, a->memprofilerate, m->ptr_size, &rate,
			      "runtime.MemProfileRate");
	if (rc != 0)
		return rc;
	rc = gh_mem_read_uint(m, a->mprofcycle, 4, &cycle,
			      "runtime.mProfCycle");
	if (rc != 0)
		return rc;
	if ((lay->cycle_flag_bit ? cycle >> 1 : cycle) >= lay->cycle_wrap)
		return guard_fail(&g, "mProfCycle 0x%llx is past the wrap %u",
				  (unsigned long long)cycle, lay->cycle_wrap);
	rc = guard_list(&g, a->mbuckets, lay->typ_mem, GH_WALK_MAX_BUCKETS,
			"runtime.mbuckets");
	if (rc == 0)
		rc = guard_list(&g, a->bbuckets, lay->typ_block, 64,
				"runtime.bbuckets");
	if (rc == 0)
		rc = guard_list(&g, a->xbuckets, lay->typ_mutex, 64,
				"runtime.xbuckets");
	if (rc != 0)
		return rc;
	/*
	 * The record checks tolerate a few inconsistent records (a live
	 * target may be caught between two increments), never a majority.
	 */
	if (g.badcounts * 8 > g.records)
		return guard_fail(&g, "%zu of %zu records free more objects "
				  "than they allocated", g.badcounts,
				  g.records);
	if (lay->cycle_words >= 4 && g.inconsistent4 * 8 > g.consistent4)
		return guard_fail(&g, "in %zu of %zu records the byte counts "
				  "are not count x size (memRecordCycle is "
				  "not {allocs, frees, alloc_bytes, "
				  "free_bytes})", g.inconsistent4,
				  g.informative);
	if (lay->cycle_words < 4 && g.informative > 0 &&
	    g.looks4 * 2 > g.informative)
		return guard_fail(&g, "%zu of %zu records carry byte counts "
				  "(memRecordCycle is not {allocs, frees})",
				  g.looks4, g.informative);
	if (how != NULL && howlen > 0)
		snprintf(how, howlen, "layout checked on %zu buckets (%zu "
			 "records, %zu with counts)", g.buckets, g.records,
			 g.informative);
	(void)rate;
	return 0;
}

/*
 * profile.c - lifetime of a collected profile (gh_profile).
 *
 * The walker allocates the record array, one pool for every stack's PCs
 * (records point into it, so a profile costs three allocations instead of
 * one per record) and the mapping list; this file only releases them.
 * The writers that turn a profile into bytes live in fmt_*.c.  The public
 * accessors (goheap_profile_record) and deltas between two collections
 * (goheap_profile_delta, for go-heap watch and any other front end) are
 * here too.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "profile.h"

void gh_profile_destroy(gh_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].file);
	free(p->maps);
	free(p->pcpool);
	free(p->recs);
	gh_profile_free_part(p);
	p->maps = NULL;
	p->pcpool = NULL;
	p->recs = NULL;
	p->nmaps = p->nrecs = 0;
}

void gh_profile_set_part(gh_profile *p, int part_kind, void *part,
			 void (*fr)(void *part))
{
	gh_profile_free_part(p);
	p->part_kind = part_kind;
	p->part = part;
	p->part_free = fr;
}

void gh_profile_free_part(gh_profile *p)
{
	if (p->part != NULL && p->part_free != NULL)
		p->part_free(p->part);
	p->part_kind = GH_PART_NONE;
	p->part = NULL;
	p->part_free = NULL;
}

/* ---- the public record accessors --------------------------------------- */

GOHEAP_EXTERN int goheap_profile_kind(const goheap_profile *p)
{
	if (p != NULL && p->part_kind == GH_PART_GOROUTINELEAK)
		return GOHEAP_PROFILE_GOROUTINELEAK;
	return p != NULL ? p->kind : -1;
}

GOHEAP_EXTERN size_t goheap_profile_nrecords(const goheap_profile *p)
{
	return p != NULL ? p->nrecs : 0;
}

GOHEAP_EXTERN int goheap_profile_record(const goheap_profile *p, size_t i,
					goheap_record *out)
{
	const gh_record *r;

	if (p == NULL || !GH_OUT_OK(out) || i >= p->nrecs)
		return GOHEAP_EINVAL;
	GH_OUT_CLEAR(out);
	r = &p->recs[i];
	out->id = r->bucket;
	out->alloc_objects = r->alloc_objects;
	out->alloc_bytes = r->alloc_bytes;
	out->free_objects = r->free_objects;
	out->free_bytes = r->free_bytes;
	out->count = r->count;
	out->cycles = r->cycles;
	out->stack = r->stk;
	out->nstack = r->nstk;
	return 0;
}

/* ---- deltas -------------------------------------------------------------- */

/* An index of base's records: bucket address -> index + 1 (the last
 * record of an address, as a map assignment keeps it). */
static int id_index_build(gh_hmap *x, const gh_profile *p)
{
	size_t i;

	for (i = 0; i < p->nrecs; i++)
		if (p->recs[i].bucket != 0 &&
		    gh_hmap_put(x, p->recs[i].bucket, (uint64_t)i + 1) != 0)
			return GOHEAP_ENOMEM;
	return 0;
}

static const gh_record *id_index_get(const gh_hmap *x, const gh_profile *p,
				     uint64_t k)
{
	uint64_t v = k != 0 ? gh_hmap_get(x, k) : 0;

	return v != 0 ? &p->recs[v - 1] : NULL;
}

/* r minus b (b may be NULL); 1 if anything is left. */
static int subtract(const gh_record *r, const gh_record *b, gh_record *d)
{
	*d = *r;
	/* Counts come from the target: int64 differences wrap as Go's do
	 * (gh.h), never undefined behaviour. */
	if (b != NULL) {
		d->alloc_objects = gh_wsub(d->alloc_objects, b->alloc_objects);
		d->alloc_bytes = gh_wsub(d->alloc_bytes, b->alloc_bytes);
		d->free_objects = gh_wsub(d->free_objects, b->free_objects);
		d->free_bytes = gh_wsub(d->free_bytes, b->free_bytes);
		d->count = gh_wsub(d->count, b->count);
		d->cycles = gh_wsub(d->cycles, b->cycles);
	}
	return d->alloc_objects != 0 || d->alloc_bytes != 0 ||
	       d->free_objects != 0 || d->free_bytes != 0 || d->count != 0 ||
	       d->cycles != 0;
}

GOHEAP_EXTERN int goheap_profile_delta(goheap_profile **out,
				       const goheap_profile *cur,
				       const goheap_profile *base)
{
	gh_profile *d = NULL;
	gh_hmap ix = GH_HMAP_INIT;
	gh_record tmp;
	size_t i, n = 0, npc = 0, k = 0, at = 0;
	int rc = GOHEAP_ENOMEM;

	if (out == NULL)
		return GOHEAP_EINVAL;
	*out = NULL;
	if (cur == NULL || base == NULL || cur->kind != base->kind ||
	    base->time_nanos > cur->time_nanos)
		return GOHEAP_EINVAL;
	/* Bucket addresses mean nothing across processes (a PID reused by a
	 * new process included). */
	if (cur->pid != 0 && base->pid != 0 &&
	    (cur->pid != base->pid || cur->start_time != base->start_time))
		return GOHEAP_EMISMATCH;
	if (id_index_build(&ix, base) != 0) {
		gh_hmap_free(&ix);
		return GOHEAP_ENOMEM;
	}
	for (i = 0; i < cur->nrecs; i++)
		if (subtract(&cur->recs[i], id_index_get(&ix, base,
			     cur->recs[i].bucket), &tmp)) {
			n++;
			npc += cur->recs[i].nstk;
		}
	d = gh_calloc(1, sizeof(*d));
	if (d == NULL)
		goto out;
	*d = *cur;
	/* a delta has no part: no MemStats trailer (Go's handler refuses
	 * debug with seconds), and the other kinds' parts describe one
	 * collection (their deltas are growth.c's) */
	d->part_kind = GH_PART_NONE;
	d->part = NULL;
	d->part_free = NULL;
	d->recs = NULL;
	d->pcpool = NULL;
	d->maps = NULL;
	d->nrecs = d->nmaps = 0;
	d->duration_nanos = cur->time_nanos - base->time_nanos;
	if ((n > 0 && (d->recs = gh_calloc(n, sizeof(*d->recs))) == NULL) ||
	    (npc > 0 &&
	     (d->pcpool = gh_calloc(npc, sizeof(*d->pcpool))) == NULL) ||
	    (cur->nmaps > 0 &&
	     (d->maps = gh_calloc(cur->nmaps, sizeof(*d->maps))) == NULL))
		goto out;
	for (i = 0; i < cur->nmaps; i++) {
		d->maps[i] = cur->maps[i];
		d->maps[i].file = NULL;
		if (cur->maps[i].file != NULL &&
		    (d->maps[i].file = gh_strdup(cur->maps[i].file)) == NULL)
			goto out;
		d->nmaps++;
	}
	for (i = 0; i < cur->nrecs; i++) {
		const gh_record *r = &cur->recs[i];

		if (!subtract(r, id_index_get(&ix, base, r->bucket), &tmp))
			continue;
		tmp.stk = d->pcpool + at;
		if (r->nstk > 0)
			memcpy(tmp.stk, r->stk, r->nstk * sizeof(*r->stk));
		at += r->nstk;
		d->recs[k++] = tmp;
	}
	d->nrecs = k;
	*out = d;
	d = NULL;
	rc = 0;
out:
	gh_hmap_free(&ix);
	if (d != NULL) {
		gh_profile_destroy(d);
		free(d);
	}
	return rc;
}

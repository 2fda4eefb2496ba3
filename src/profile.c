/*
 * profile.c - lifetime of a collected profile (gh_profile).
 *
 * The walker allocates the record array, one pool for every stack's PCs
 * (records point into it, so a profile costs three allocations instead of
 * one per record) and the mapping list; this file only releases them.
 * The writers that turn a profile into bytes live in fmt_*.c.
 */
#include "config.h"

#include <stdlib.h>

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
	p->maps = NULL;
	p->pcpool = NULL;
	p->recs = NULL;
	p->nmaps = p->nrecs = 0;
}

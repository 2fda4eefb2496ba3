/*
 * hmap.c - the hash map of hmap.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gh.h"
#include "hmap.h"

static void hmap_place(gh_hmap *m, uint64_t key, uint64_t val)
{
	size_t i;

	for (i = gh_hmap_home(m, key); m->slot[i].val != 0;
	     i = (i + 1) & m->mask)
		;
	m->slot[i].key = key;
	m->slot[i].val = val;
	m->n++;
}

/* Room for one more entry at a load of at most one half. */
static int hmap_reserve(gh_hmap *m)
{
	gh_hmap nm;
	size_t cap = m->slot != NULL ? m->mask + 1 : 0, i;

	if (m->slot != NULL && (m->n + 1) * 2 <= cap)
		return 0;
	nm.mask = cap != 0 ? cap * 2 - 1 : 63;
	nm.shift = cap != 0 ? m->shift - 1 : 64 - 6;
	nm.n = 0;
	if (nm.mask >= SIZE_MAX / 2 / sizeof(*nm.slot))
		return GOHEAP_ENOMEM;
	nm.slot = gh_calloc(nm.mask + 1, sizeof(*nm.slot));
	if (nm.slot == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < cap; i++)
		if (m->slot[i].val != 0)
			hmap_place(&nm, m->slot[i].key, m->slot[i].val);
	free(m->slot);
	*m = nm;
	return 0;
}

int gh_hmap_add(gh_hmap *m, uint64_t key, uint64_t val)
{
	if (val == 0)
		return GOHEAP_EINVAL;
	if (hmap_reserve(m) != 0)
		return GOHEAP_ENOMEM;
	hmap_place(m, key, val);
	return 0;
}

int gh_hmap_put(gh_hmap *m, uint64_t key, uint64_t val)
{
	size_t it;

	if (val == 0)
		return GOHEAP_EINVAL;
	if (gh_hmap_first(m, key, &it) != 0) {
		m->slot[it].val = val;
		return 0;
	}
	return gh_hmap_add(m, key, val);
}

void gh_hmap_free(gh_hmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

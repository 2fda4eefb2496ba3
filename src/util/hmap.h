/*
 * hmap.h - one open-addressing hash map from uint64 keys to nonzero values,
 * shared by the walker (stack interning), the writers (strings, functions,
 * locations) and the profile model (bucket indexes).
 */
#ifndef GH_HMAP_H
#define GH_HMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Open addressing with linear probing, at most half full; the home slot
 * is Fibonacci hashing of the key (its top bits times 2^64/phi), which
 * spreads return PCs and FNV-1a hashes alike.  Key and value share a
 * slot, so a hit costs one cache line.  A value of 0 marks an empty slot:
 * store an index + 1.
 *
 * Two uses:
 *   - the key is the identity (a PC, a bucket address): gh_hmap_get and
 *     gh_hmap_put, as a Go map[uint64]T;
 *   - the key is a hash of the real key (gh_fnv1a of a string or bytes):
 *     several entries may share it; walk them with gh_hmap_first and
 *     gh_hmap_next, compare the real keys, and gh_hmap_add a new one.
 */
typedef struct gh_hslot {
	uint64_t key;
	uint64_t val;             /* 0: empty */
} gh_hslot;

typedef struct gh_hmap {
	gh_hslot *slot;
	size_t mask;              /* capacity - 1 (a power of two), or 0 */
	size_t n;                 /* entries */
	unsigned shift;           /* 64 - log2(capacity) */
} gh_hmap;

#define GH_HMAP_INIT { NULL, 0, 0, 0 }

static inline size_t gh_hmap_home(const gh_hmap *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> m->shift);
}

/* The value of the first entry with `key` (from slot *it on); 0 if none.
 * *it is left at that entry, for gh_hmap_next. */
static inline uint64_t gh_hmap_scan(const gh_hmap *m, uint64_t key,
				    size_t *it)
{
	size_t i = *it;

	for (; m->slot[i].val != 0; i = (i + 1) & m->mask) {
		if (m->slot[i].key == key) {
			*it = i;
			return m->slot[i].val;
		}
	}
	*it = i;
	return 0;
}

static inline uint64_t gh_hmap_first(const gh_hmap *m, uint64_t key,
				     size_t *it)
{
	if (m->slot == NULL)
		return 0;
	*it = gh_hmap_home(m, key);
	return gh_hmap_scan(m, key, it);
}

static inline uint64_t gh_hmap_next(const gh_hmap *m, uint64_t key,
				    size_t *it)
{
	*it = (*it + 1) & m->mask;
	return gh_hmap_scan(m, key, it);
}

static inline uint64_t gh_hmap_get(const gh_hmap *m, uint64_t key)
{
	size_t it;

	return gh_hmap_first(m, key, &it);
}

/* Add an entry (val != 0), even if another has the same key. */
int gh_hmap_add(gh_hmap *m, uint64_t key, uint64_t val);
/* Set key's value (val != 0): overwrite its first entry, or add one. */
int gh_hmap_put(gh_hmap *m, uint64_t key, uint64_t val);
void gh_hmap_free(gh_hmap *m);

#endif

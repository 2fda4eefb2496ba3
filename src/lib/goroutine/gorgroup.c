/*
 * gorgroup.c - printCountProfile's grouping of a goroutine profile, shared
 * by its text writer (fmt_goroutine.c) and its proto writer (fmt_pprof.c).
 *
 * One key per goroutine: "@ 0x.. 0x.." of its stack plus, when g.labels
 * is set, "\n# labels: " + labelMap.String() (the "%q:%q" pairs sorted as
 * strings, joined by ", ", in braces; %q of the whole Go strings, NUL
 * bytes as \x00); goroutines grouped by key, sorted
 * by count (descending) then key (ascending), as keysByCount does
 * (runtime/pprof/pprof.go, the same in 1.19 to 1.27).  It depends on no
 * symbolizer, so the proto writer can use it without the traceback code.
 * The goroutine part's accessors (gh_gor_of, gh_gor_part) are here too.
 */
#include "config.h"

#include <stdlib.h>

#include "hmap.h"
#include "profile.h"
#include "goquote.h"
#include "goroutine.h"

/* fmt's %q of a label's key or value: strconv.Quote (goquote.c) with the
 * target release's strconv.IsPrint tables (its row's unicode: a rune
 * printable in Unicode 17 may be \u-escaped by a 1.19 to 1.26 program). */
void gh_gor_quote(gh_buf *b, const char *s, size_t n, gh_unicode u)
{
	gh_go_quote(b, s, n, u);
}

/* goroutine.h */
gh_gorprof *gh_gor_part(gh_profile *p)
{
	void *g = gh_profile_part(p, GH_PART_GOROUTINES);

	return g != NULL ? g : gh_profile_part(p, GH_PART_GOROUTINELEAK);
}

const gh_gorprof *gh_gor_of(const gh_profile *p)
{
	static const gh_gorprof none;   /* read-only: no goroutines */
	const void *g = gh_profile_part(p, GH_PART_GOROUTINES);

	if (g == NULL)
		g = gh_profile_part(p, GH_PART_GOROUTINELEAK);
	return g != NULL ? g : &none;
}

typedef gh_gor_group gkey;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* labelMap.String(), with the IsPrint tables u */
static int labels_string(gh_buf *b, const gh_goroutine *g, gh_unicode u)
{
	gh_buf tmp = GH_BUF_INIT;
	char **kv;
	size_t i, *off;
	int rc = 0;

	kv = gh_calloc(g->nlabels + 1, sizeof(*kv));
	off = gh_calloc(g->nlabels + 1, sizeof(*off));
	if (kv == NULL || off == NULL) {
		rc = GOHEAP_ENOMEM;
		goto out;
	}
	for (i = 0; i < g->nlabels; i++) {
		off[i] = tmp.len;
		/* the whole Go strings (a NUL byte is \x00); the quoted
		 * pair holds no NUL, so it is sorted as a C string */
		gh_gor_quote(&tmp, g->labels[i].key, g->labels[i].klen, u);
		gh_buf_putc(&tmp, ':');
		gh_gor_quote(&tmp, g->labels[i].value, g->labels[i].vlen, u);
		gh_buf_putc(&tmp, '\0');
	}
	if (tmp.oom) {
		rc = GOHEAP_ENOMEM;
		goto out;
	}
	for (i = 0; i < g->nlabels; i++)
		kv[i] = (char *)tmp.data + off[i];
	qsort(kv, g->nlabels, sizeof(*kv), cmp_str);
	gh_buf_putc(b, '{');
	for (i = 0; i < g->nlabels; i++) {
		if (i > 0)
			gh_buf_append(b, ", ", 2);
		gh_buf_append(b, kv[i], strlen(kv[i]));
	}
	gh_buf_putc(b, '}');
out:
	free(kv);
	free(off);
	gh_buf_free(&tmp);
	return rc;
}

static char *make_key(const gh_goroutine *g, gh_unicode u)
{
	gh_buf b = GH_BUF_INIT;
	size_t i, len;

	gh_buf_putc(&b, '@');
	for (i = 0; i < g->nstk; i++) {
		/* " %#x" without printf (a key per goroutine) */
		char t[20], *e = t + sizeof(t), *q = e;
		uint64_t x = g->stk[i];

		do {
			*--q = "0123456789abcdef"[x & 15];
			x >>= 4;
		} while (x != 0);
		if (g->stk[i] != 0) {   /* %#x of 0 is "0" */
			*--q = 'x';
			*--q = '0';
		}
		*--q = ' ';
		gh_buf_append(&b, q, (size_t)(e - q));
	}
	if (g->has_labels) {
		gh_buf_append(&b, "\n# labels: ", 11);
		if (labels_string(&b, g, u) != 0)
			b.oom = 1;
	}
	gh_buf_putc(&b, '\0');
	if (b.oom) {
		gh_buf_free(&b);
		return NULL;
	}
	return (char *)gh_buf_detach(&b, &len);
}

static int key_cmp_count(const void *a, const void *b)
{
	const gkey *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* a hash of a stack's PCs (the grouping of unlabelled goroutines) */
static uint64_t stk_hash(const gh_goroutine *g)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ g->nstk;
	size_t i;

	for (i = 0; i < g->nstk; i++) {
		h ^= g->stk[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* Do goroutines a and b have one key?  (Both unlabelled: the key is
 * their PCs' text, one to one with the PCs; labelled ones compare their
 * key strings, ka and kb.) */
static int same_key(const gh_goroutine *a, const char *ka,
		    const gh_goroutine *b, const char *kb)
{
	if (a->has_labels != b->has_labels)
		return 0;
	if (a->has_labels)
		return strcmp(ka, kb) == 0;
	return a->nstk == b->nstk &&
	       (a->nstk == 0 || memcmp(a->stk, b->stk,
				       a->nstk * sizeof(*a->stk)) == 0);
}

/* The groups of printCountProfile, sorted as keysByCount: grouped in
 * allgs order through a hash of the key (a group's first goroutine is its
 * lowest index), then only the groups sorted.  Unlabelled goroutines are
 * grouped by their PCs and a key string is made once per group. */
static int group(const gh_profile *p, gkey **out, size_t *nout)
{
	const gh_gorprof *gp = gh_gor_of(p);
	gh_hmap m = GH_HMAP_INIT;
	gkey *k;
	size_t i, n = 0;
	/* the keys' %q, hence their order too, follow the release's tables */
	gh_unicode u = gh_profile_rt(p)->unicode;

	*out = NULL;
	*nout = 0;
	k = gh_calloc(gp->ngors + 1, sizeof(*k));
	if (k == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < gp->ngors; i++) {
		const gh_goroutine *g = &gp->gors[i];
		char *key = NULL;
		uint64_t h, v;
		size_t it;

		if (g->has_labels) {
			key = make_key(g, u);
			if (key == NULL)
				goto oom;
			h = gh_fnv1a_str(key);
		} else {
			h = stk_hash(g);
		}
		for (v = gh_hmap_first(&m, h, &it); v != 0;
		     v = gh_hmap_next(&m, h, &it))
			if (same_key(&gp->gors[k[v - 1].first], k[v - 1].key,
				     g, key))
				break;
		if (v != 0) {
			k[v - 1].count++;
			free(key);
			continue;
		}
		k[n].key = key;
		k[n].first = i;
		k[n].count = 1;
		n++;
		if (gh_hmap_add(&m, h, n) != 0)
			goto oom;
	}
	gh_hmap_free(&m);
	for (i = 0; i < n; i++)
		if (k[i].key == NULL &&
		    (k[i].key = make_key(&gp->gors[k[i].first], u)) == NULL)
			goto oom_keys;
	qsort(k, n, sizeof(*k), key_cmp_count);
	*out = k;
	*nout = n;
	return 0;
oom:
	gh_hmap_free(&m);
oom_keys:
	while (n-- > 0)
		free(k[n].key);
	free(k);
	return GOHEAP_ENOMEM;
}

static void free_groups(gkey *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(k[i].key);
	free(k);
}

int gh_gor_groups(const gh_profile *p, gh_gor_group **out, size_t *nout)
{
	return group(p, out, nout);
}

void gh_gor_groups_free(gh_gor_group *g, size_t n)
{
	free_groups(g, n);
}

/*
 * fmt_collapsed.c - folded stacks ("root;caller;leaf value"), one per line.
 *
 * The input format of flamegraph.pl, speedscope and inferno.  Each record
 * contributes its stack as runtime/pprof's proto would hold it
 * (gh_stackx_sample_frames: inlined frames expanded, leading runtime frames
 * hidden for heap as protomem.go does) with runtime.goexit dropped, since
 * every goroutine stack ends in it and it only adds a useless root.  The
 * value is the chosen sample column, scaled like the proto.  Records with
 * the same folded stack (buckets differ by allocation size, or stacks
 * differ only in hidden frames) are summed into one line, lines with a
 * zero total are omitted (flame graph tools ignore them), and lines are
 * sorted with strcmp so that output does not depend on bucket order.
 *
 * Names are the raw symbol names, as in the proto.  Stacks are built into
 * one shared byte arena and deduplicated with a hash map; sorting pointers
 * into the arena avoids copying strings.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "profile.h"

typedef struct folded {
	size_t off, len;      /* key in the arena */
	int64_t value;
	const char *key;      /* set once the arena stops moving */
} folded;

typedef struct fold_map {
	gh_buf arena;
	folded *v;
	size_t n, cap;
	uint32_t *slots;      /* index + 1, 0 = empty */
	size_t nslots;
} fold_map;

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	return gh_fnv1a(p, n);
}

static int fold_grow(fold_map *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 1024, i, h;
	uint32_t *s = gh_calloc(n, sizeof(*s));

	if (s == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < m->n; i++) {
		h = (size_t)hash_bytes(m->arena.data + m->v[i].off,
				       m->v[i].len) & (n - 1);
		while (s[h] != 0)
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)(i + 1);
	}
	free(m->slots);
	m->slots = s;
	m->nslots = n;
	return 0;
}

/*
 * Add `value` to the stack whose key is the arena's tail from `off`: an
 * existing key absorbs the value and the tail is dropped again.
 */
static int fold_add(fold_map *m, size_t off, int64_t value)
{
	size_t len = m->arena.len - off, h;
	const unsigned char *key = m->arena.data + off;
	folded *f;

	if ((m->n + 1) * 2 > m->nslots && fold_grow(m) != 0)
		return GOHEAP_ENOMEM;
	h = (size_t)hash_bytes(key, len) & (m->nslots - 1);
	while (m->slots[h] != 0) {
		f = &m->v[m->slots[h] - 1];
		if (f->len == len && memcmp(m->arena.data + f->off, key, len) == 0) {
			f->value = gh_wadd(f->value, value);
			m->arena.len = off;
			return 0;
		}
		h = (h + 1) & (m->nslots - 1);
	}
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		folded *nv = gh_reallocarray(m->v, ncap, sizeof(*nv));

		if (nv == NULL)
			return GOHEAP_ENOMEM;
		m->v = nv;
		m->cap = ncap;
	}
	f = &m->v[m->n];
	f->off = off;
	f->len = len;
	f->value = value;
	f->key = NULL;
	m->slots[h] = (uint32_t)(m->n + 1);
	m->n++;
	/* Keys are NUL-terminated in the arena for the final strcmp. */
	gh_buf_putc(&m->arena, '\0');
	return m->arena.oom ? GOHEAP_ENOMEM : 0;
}

/*
 * Generic instantiations can contain ';' ("struct { a int; b int }"),
 * which would split the frame in two: write it as ','.
 */
static void put_name(gh_buf *b, const char *name)
{
	for (; *name != '\0'; name++)
		gh_buf_putc(b, *name == ';' ? ',' : *name);
}

static int cmp_key(const void *a, const void *b)
{
	const folded *l = a, *r = b;

	return strcmp(l->key, r->key);
}

int gh_write_collapsed(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		       gh_err *err)
{
	fold_map m = { GH_BUF_INIT, NULL, 0, 0, NULL, 0 };
	gh_framevec fv = { NULL, 0, 0, 0 };
	gh_stackx *x = NULL;
	const char *sname, *sunit, *name;
	size_t i, j, off, nframes;
	int64_t v;
	int col, rc;

	if (p == NULL || w == NULL || w->sym == NULL || out == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "collapsed: missing argument");
	rc = gh_sample_resolve(p, w->sample_index, &col, &sname, &sunit);
	if (rc != 0) {
		gh_errf(err, rc, "collapsed: sample index %d does not apply",
			w->sample_index);
		goto out;
	}
	rc = gh_stackx_new(&x, w->sym, p->ver);
	if (rc != 0)
		goto out;
	for (i = 0; i < p->nrecs; i++) {
		v = gh_sample_value(p, &p->recs[i], col);
		if (v == 0)
			continue;
		rc = gh_stackx_sample_frames(x, p, &p->recs[i], &fv);
		if (rc != 0)
			goto out;
		/* Frames are leaf first; folded stacks are root first. */
		off = m.arena.len;
		nframes = 0;
		for (j = fv.n; j > 0; j--) {
			name = fv.v[j - 1].function;
			if (strcmp(name, "runtime.goexit") == 0)
				continue;
			if (nframes++ > 0)
				gh_buf_putc(&m.arena, ';');
			put_name(&m.arena, name);
		}
		if (m.arena.oom) {
			rc = GOHEAP_ENOMEM;
			goto out;
		}
		if (nframes == 0)
			continue;
		rc = fold_add(&m, off, v);
		if (rc != 0)
			goto out;
	}
	for (i = 0; i < m.n; i++)
		m.v[i].key = (const char *)m.arena.data + m.v[i].off;
	if (m.n > 0)
		qsort(m.v, m.n, sizeof(*m.v), cmp_key);
	for (i = 0; i < m.n; i++) {
		if (m.v[i].value == 0)
			continue;
		gh_buf_append(out, m.v[i].key, m.v[i].len);
		gh_buf_printf(out, " %" PRId64 "\n", m.v[i].value);
	}
	if (out->oom)
		rc = GOHEAP_ENOMEM;
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "collapsed: out of memory");
	if (w->stats != NULL)
		w->stats->suspect += gh_stackx_suspect(x) + fv.suspect;
	gh_framevec_free(&fv);
	gh_stackx_free(x);
	gh_buf_free(&m.arena);
	free(m.v);
	free(m.slots);
	return rc;
}

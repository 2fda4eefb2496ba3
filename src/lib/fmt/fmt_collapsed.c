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

#include "fmt_common.h"

typedef struct folded {
	size_t off, len;      /* key in the arena */
	int64_t value;
	const char *key;      /* set once the arena stops moving */
} folded;

/* The folded stacks by key: FNV-1a of the key -> index + 1. */
typedef struct fold_map {
	gh_buf arena;
	folded *v;
	size_t n, cap;
	gh_hmap index;
} fold_map;

/*
 * Add `value` to the stack whose key is the arena's tail from `off`: an
 * existing key absorbs the value and the tail is dropped again.
 */
static int fold_add(fold_map *m, size_t off, int64_t value)
{
	/* an empty arena (nothing appended: an empty key) has no data */
	const unsigned char *base = m->arena.data != NULL ?
				    (const unsigned char *)m->arena.data :
				    (const unsigned char *)"";
	size_t len = m->arena.len - off, it;
	const unsigned char *key = base + off;
	uint64_t h = gh_fnv1a(key, len), k;
	folded *f;

	for (k = gh_hmap_first(&m->index, h, &it); k != 0;
	     k = gh_hmap_next(&m->index, h, &it)) {
		f = &m->v[k - 1];
		if (f->len == len && memcmp(base + f->off, key, len) == 0) {
			f->value = gh_wadd(f->value, value);
			m->arena.len = off;
			return 0;
		}
	}
	if (gh_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) != 0 ||
	    gh_hmap_add(&m->index, h, (uint64_t)m->n + 1) != 0)
		return GOHEAP_ENOMEM;
	f = &m->v[m->n++];
	f->off = off;
	f->len = len;
	f->value = value;
	f->key = NULL;
	/* Keys are NUL-terminated in the arena for the final strcmp. */
	gh_buf_putc(&m->arena, '\0');
	return m->arena.oom ? GOHEAP_ENOMEM : 0;
}

static int cmp_key(const void *a, const void *b)
{
	const folded *l = a, *r = b;

	return strcmp(l->key, r->key);
}

int gh_write_collapsed(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		       gh_err *err)
{
	fold_map m = { GH_BUF_INIT, NULL, 0, 0, GH_HMAP_INIT };
	gh_framevec fv = { NULL, 0, 0, 0 };
	gh_stackx *x = NULL;
	gh_sampler smp;
	size_t i, off, nframes;
	int64_t v;
	int rc;

	if (p == NULL || w == NULL || w->sym == NULL || out == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "collapsed: missing argument");
	rc = gh_sampler_init(&smp, p, w->sample_index);
	if (rc != 0) {
		gh_errf(err, rc, "collapsed: sample index %d does not apply",
			w->sample_index);
		goto out;
	}
	rc = gh_stackx_new(&x, w->sym, p->ver);
	if (rc != 0)
		goto out;
	for (i = 0; i < p->nrecs; i++) {
		v = gh_sampler_value(&smp, &p->recs[i]);
		if (v == 0)
			continue;
		rc = gh_stackx_sample_frames(x, p, &p->recs[i], &fv);
		if (rc != 0)
			goto out;
		off = m.arena.len;
		nframes = gh_folded_append(&m.arena, &fv);
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
		m.v[i].key = m.arena.data != NULL ?
			     (const char *)m.arena.data + m.v[i].off : "";
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
	gh_hmap_free(&m.index);
	return rc;
}

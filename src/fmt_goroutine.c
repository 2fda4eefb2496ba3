/*
 * fmt_goroutine.c - writers of goroutine profiles.
 *
 * Text: pprof.Lookup("goroutine").WriteTo(w, 1), i.e. runtime/pprof's
 * printCountProfile (pprof.go, the same in 1.19 to 1.27): one key per
 * goroutine, "@ 0x.. 0x.." of its stack plus, when g.labels is set,
 * "\n# labels: " + labelMap.String() (the "%q:%q" pairs sorted as
 * strings, joined by ", ", in braces); records grouped by key, sorted by
 * count (descending) then key (ascending: a total order, so the output is
 * unique); each printed as "COUNT KEY" and printStackRecord(stack), all
 * through text/tabwriter (1, 8, 1, '\t', 0).
 *
 * Collapsed: the same groups as folded stacks "root;..;leaf COUNT".
 */
#include "config.h"

#include <stdlib.h>

#include "goroutine.h"
#include "tabwriter.h"

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t c;
	size_t k, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		k = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		k = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		k = 4, c = p[0] & 0x07;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return k;
}

void gh_gor_quote(gh_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	gh_buf_putc(b, '"');
	while (i < n) {
		unsigned char c = p[i];

		if (c >= 0x80) {
			k = utf8_len(p + i, n - i);
			if (k > 0) {
				/* (Go escapes non-printable runes as \u;
				 * taken as printable here: doc/goroutines.md) */
				gh_buf_append(b, p + i, k);
				i += k;
			} else {
				gh_buf_printf(b, "\\x%02x", c);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"': gh_buf_append(b, "\\\"", 2); break;
		case '\\': gh_buf_append(b, "\\\\", 2); break;
		case '\a': gh_buf_append(b, "\\a", 2); break;
		case '\b': gh_buf_append(b, "\\b", 2); break;
		case '\f': gh_buf_append(b, "\\f", 2); break;
		case '\n': gh_buf_append(b, "\\n", 2); break;
		case '\r': gh_buf_append(b, "\\r", 2); break;
		case '\t': gh_buf_append(b, "\\t", 2); break;
		case '\v': gh_buf_append(b, "\\v", 2); break;
		default:
			if (c < 0x20 || c == 0x7f)
				gh_buf_printf(b, "\\x%02x", c);
			else
				gh_buf_putc(b, (char)c);
		}
		i++;
	}
	gh_buf_putc(b, '"');
}

typedef struct gkey {
	char *key;            /* printCountProfile's key */
	size_t first;         /* index of its first goroutine */
	int64_t count;
} gkey;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* labelMap.String() */
static int labels_string(gh_buf *b, const gh_goroutine *g)
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
		gh_gor_quote(&tmp, g->labels[i].key, strlen(g->labels[i].key));
		gh_buf_putc(&tmp, ':');
		gh_gor_quote(&tmp, g->labels[i].value,
			     strlen(g->labels[i].value));
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

static char *make_key(const gh_goroutine *g)
{
	gh_buf b = GH_BUF_INIT;
	size_t i, len;

	gh_buf_putc(&b, '@');
	for (i = 0; i < g->nstk; i++)
		gh_buf_printf(&b, " %#llx", (unsigned long long)g->stk[i]);
	if (g->has_labels) {
		gh_buf_printf(&b, "\n# labels: ");
		if (labels_string(&b, g) != 0)
			b.oom = 1;
	}
	gh_buf_putc(&b, '\0');
	if (b.oom) {
		gh_buf_free(&b);
		return NULL;
	}
	return (char *)gh_buf_detach(&b, &len);
}

static int key_cmp_str(const void *a, const void *b)
{
	const gkey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int key_cmp_count(const void *a, const void *b)
{
	const gkey *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The groups of printCountProfile, sorted as keysByCount. */
static int group(const gh_profile *p, gkey **out, size_t *nout)
{
	gkey *k;
	size_t i, n = 0;

	*out = NULL;
	*nout = 0;
	k = gh_calloc(p->ngors + 1, sizeof(*k));
	if (k == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < p->ngors; i++) {
		k[i].key = make_key(&p->gors[i]);
		k[i].first = i;
		k[i].count = 1;
		if (k[i].key == NULL) {
			while (i-- > 0)
				free(k[i].key);
			free(k);
			return GOHEAP_ENOMEM;
		}
	}
	qsort(k, p->ngors, sizeof(*k), key_cmp_str);
	for (i = 0; i < p->ngors; i++) {
		if (n > 0 && strcmp(k[n - 1].key, k[i].key) == 0) {
			k[n - 1].count++;
			free(k[i].key);
			continue;
		}
		k[n++] = k[i];
	}
	qsort(k, n, sizeof(*k), key_cmp_count);
	*out = k;
	*nout = n;
	return 0;
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
	gh_gor_group *g;
	gkey *k = NULL;
	size_t n = 0, i;
	int rc;

	*out = NULL;
	*nout = 0;
	rc = group(p, &k, &n);
	if (rc != 0)
		return rc;
	g = gh_calloc(n + 1, sizeof(*g));
	if (g == NULL) {
		free_groups(k, n);
		return GOHEAP_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		g[i].first = k[i].first;
		g[i].count = k[i].count;
	}
	free_groups(k, n);
	*out = g;
	*nout = n;
	return 0;
}

typedef struct gtext {
	gh_stackx *x;
	gh_tabwriter tw;
	gh_buf line;
	gh_framevec frames;
	int print_names;
	char namebuf[4096];
} gtext;

static void tw_line(gtext *c)
{
	if (c->line.oom) {
		c->tw.oom = 1;
		return;
	}
	gh_tabwriter_write(&c->tw, c->line.data, c->line.len);
	c->line.len = 0;
}

static const char *frame_function(gtext *c, const char *raw)
{
	if (!c->print_names || strchr(raw, '[') == NULL)
		return raw;
	return gh_func_name_for_print(raw, c->namebuf, sizeof(c->namebuf));
}

/* printStackRecord (pprof.go), as fmt_text.c has it. */
static int print_stack_record(gtext *c, const uint64_t *stk, size_t n,
			      int all_frames)
{
	const gh_frame *f;
	const char *name;
	int show = all_frames, rc;
	size_t i;

	rc = gh_stackx_frames(c->x, stk, n, GH_STACKX_CALLERS, &c->frames);
	if (rc != 0)
		return rc;
	if (c->frames.n == 0) {
		show = 1;
		gh_buf_printf(&c->line, "#\t0x0\n");
		tw_line(c);
	}
	for (i = 0; i < c->frames.n; i++) {
		f = &c->frames.v[i];
		name = frame_function(c, f->function);
		if (strcmp(name, "runtime.goexit") == 0)
			continue;
		if (!show && gh_stackx_is_runtime(c->x, name))
			continue;
		show = 1;
		gh_buf_printf(&c->line, "#\t%#llx\t%s+%#llx\t%s:%lld\n",
			      (unsigned long long)f->pc, name,
			      (unsigned long long)(f->pc - f->entry),
			      f->file, (long long)f->line);
		tw_line(c);
	}
	if (!show)
		return print_stack_record(c, stk, n, 1);
	gh_buf_putc(&c->line, '\n');
	tw_line(c);
	return 0;
}

int gh_write_goroutine_text(const gh_profile *p, const gh_wctx *w,
			    gh_buf *out, gh_err *err)
{
	gkey *k = NULL;
	size_t nk = 0, i;
	gtext *c;
	int rc;

	c = gh_calloc(1, sizeof(*c));
	if (c == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "text: out of memory");
	c->print_names = gh_profile_rt(p)->text_func_names;
	gh_tabwriter_init(&c->tw, out, 1, 8, 1, '\t', 0);
	rc = gh_stackx_new(&c->x, w->sym, p->ver);
	if (rc == 0)
		rc = group(p, &k, &nk);
	if (rc != 0)
		goto out;
	gh_buf_printf(&c->line, "goroutine profile: total %zu\n", p->ngors);
	tw_line(c);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &p->gors[k[i].first];

		gh_buf_printf(&c->line, "%lld %s\n", (long long)k[i].count,
			      k[i].key);
		tw_line(c);
		rc = print_stack_record(c, g->stk, g->nstk, 0);
	}
	if (rc == 0)
		rc = gh_tabwriter_flush(&c->tw);
	/* Not in Go's format: only when the profile is not what the runtime
	 * would have written (running goroutines of a live target, partial
	 * tracebacks, unreadable g's), so a clean read stays byte-equal. */
	if (rc == 0 && p->gor_note[0] != '\0')
		gh_buf_printf(out, "# go-heap: %s\n", p->gor_note);
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "text: out of memory");
	free_groups(k, nk);
	if (w->stats != NULL)
		w->stats->suspect += gh_stackx_suspect(c->x) +
				     c->frames.suspect;
	gh_tabwriter_free(&c->tw);
	gh_buf_free(&c->line);
	gh_framevec_free(&c->frames);
	gh_stackx_free(c->x);
	free(c);
	return rc;
}

int gh_write_goroutine_collapsed(const gh_profile *p, const gh_wctx *w,
				 gh_buf *out, gh_err *err)
{
	gh_framevec fv = { NULL, 0, 0, 0 };
	gh_stackx *x = NULL;
	gkey *k = NULL;
	size_t nk = 0, i, j;
	int rc;

	rc = gh_stackx_new(&x, w->sym, p->ver);
	if (rc == 0)
		rc = group(p, &k, &nk);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &p->gors[k[i].first];
		int any = 0;

		rc = gh_stackx_frames(x, g->stk, g->nstk, GH_STACKX_CALLERS,
				      &fv);
		if (rc != 0)
			break;
		for (j = fv.n; j-- > 0;) {
			gh_buf_printf(out, "%s%s", any ? ";" : "",
				      fv.v[j].function);
			any = 1;
		}
		if (!any)
			gh_buf_printf(out, "[unknown]");
		gh_buf_printf(out, " %lld\n", (long long)k[i].count);
	}
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "collapsed: out of memory");
	free_groups(k, nk);
	gh_framevec_free(&fv);
	gh_stackx_free(x);
	return rc;
}

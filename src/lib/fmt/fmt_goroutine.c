/*
 * fmt_goroutine.c - writers of goroutine profiles.
 *
 * Text (WriteTo(w, 1)) is fmt_text.c's, which has printStackRecord; the
 * grouping of printCountProfile is gorgroup.c's.
 *
 * Collapsed: the same groups as folded stacks "root;..;leaf COUNT".
 */
#include "config.h"

#include <stdlib.h>

#include "fmt_common.h"
#include "goroutine.h"
#include "tabwriter.h"
#include "utf8.h"

/* "%lld" and "%#llx" without printf (a traceback has a line per frame) */
static void put_udec(gh_buf *b, uint64_t v)
{
	char t[24], *e = t + sizeof(t), *q = e;

	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	gh_buf_append(b, q, (size_t)(e - q));
}

static void put_sdec(gh_buf *b, int64_t v)
{
	if (v < 0) {
		gh_buf_putc(b, '-');
		put_udec(b, (uint64_t)0 - (uint64_t)v);
	} else {
		put_udec(b, (uint64_t)v);
	}
}

static void put_xhex(gh_buf *b, uint64_t v)
{
	char t[20], *e = t + sizeof(t), *q = e;

	do {
		*--q = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	if (e - q > 1 || q[0] != '0') {   /* %#x of 0 is "0" */
		*--q = 'x';
		*--q = '0';
	}
	gh_buf_append(b, q, (size_t)(e - q));
}

static void put_s(gh_buf *b, const char *s)
{
	gh_buf_append(b, s, strlen(s));
}

/*
 * The traceback writer's memos, per PC: the one frame a return PC
 * symbolizes to (goroutines share their PCs: the symbolizer's search per
 * frame was a third of the writer), and printcreatedby1's text of a go
 * statement's PC (all but " in goroutine N").
 */
#define TB_FMEMO_BITS 12
#define TB_CMEMO_BITS 10
/* what the writer prints of a frame, decided once per PC: showfuncinfo
 * (TBX_SHOW: not the first frame shown, TBX_SHOW1: the first) and the
 * printed name (at off in tb_ctx.text, len bytes) */
#define TBX_SHOW 1u
#define TBX_SHOW1 2u
#define TBX_NAME 4u           /* off/len are set */
typedef struct tb_fx {
	unsigned flags;
	size_t off, len;
} tb_fx;

typedef struct tb_fmemo {
	uint64_t pc;          /* 0: empty */
	gh_frame f;
	tb_fx x;
} tb_fmemo;

typedef struct tb_cmemo {
	uint64_t pc;          /* 0: empty */
	int shown;            /* 0: printcreatedby1 prints nothing */
	size_t name_off, name_len, rest_off, rest_len;   /* in text */
} tb_cmemo;

typedef struct tb_ctx {
	const gh_rtlayout *rt;
	tb_fmemo *fm;
	tb_cmemo *cm;
	gh_buf text;          /* the memos' strings */
	tb_fx *fx;            /* per frame of the stack being written */
} tb_ctx;

static int show_frame(const gh_rtlayout *rt, const char *name, int first);
static void tb_func_name(gh_buf *b, const char *name, char *tmp, size_t n);

/* a frame's tb_fx, computed */
static void tb_fx_make(tb_ctx *t, const gh_frame *f, tb_fx *x)
{
	char tmp[4096];

	x->flags = (show_frame(t->rt, f->function, 0) ? TBX_SHOW : 0) |
		   (show_frame(t->rt, f->function, 1) ? TBX_SHOW1 : 0);
	x->off = t->text.len;
	if (f->inlined && t->rt->tb_style == 0)
		gh_buf_append(&t->text, f->function, strlen(f->function));
	else
		tb_func_name(&t->text, f->function, tmp, sizeof(tmp));
	x->len = t->text.len - x->off;
	if (!t->text.oom)
		x->flags |= TBX_NAME;
}

static uint64_t tb_hash(uint64_t pc, unsigned bits)
{
	return (pc * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

/* gh_sym_callers_frames of one return PC, through the memo; *x what
 * the writer prints of it (flags 0 without the memo: compute it) */
static int tb_callers1(tb_ctx *t, const gh_sym *sym, const uint64_t *pc,
		       gh_framevec *fv, tb_fx *x)
{
	tb_fmemo *e;
	size_t before = fv->n;
	int rc;

	x->flags = 0;
	if (t->fm == NULL || *pc == 0)
		return gh_sym_callers_frames(sym, pc, 1, fv);
	e = &t->fm[tb_hash(*pc, TB_FMEMO_BITS)];
	if (e->pc == *pc) {
		if (e->f.suspect)
			fv->suspect++;
		*x = e->x;
		return gh_framevec_append(fv, &e->f);
	}
	rc = gh_sym_callers_frames(sym, pc, 1, fv);
	if (rc == 0 && fv->n == before + 1) {
		e->pc = *pc;
		e->f = fv->v[before];
		tb_fx_make(t, &e->f, &e->x);
		*x = e->x;
	}
	return rc;
}

int gh_write_goroutine_collapsed(const gh_profile *p, const gh_wctx *w,
				 gh_buf *out, gh_err *err)
{
	gh_framevec fv = { NULL, 0, 0, 0 };
	gh_stackx *x = NULL;
	gh_gor_group *k = NULL;
	size_t nk = 0, i, j;
	int rc;

	rc = gh_stackx_new(&x, w->sym, p->ver);
	if (rc == 0)
		rc = gh_gor_groups(p, &k, &nk);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &gh_gor_of(p)->gors[k[i].first];
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
	gh_gor_groups_free(k, nk);
	gh_framevec_free(&fv);
	gh_stackx_free(x);
	return rc;
}

/* ---- debug=2: runtime.Stack(buf, true) ------------------------------------------ */

/* isExportedRuntime (traceback.go); rcvr: the 1.23+ receiver rule. */
static int exported_runtime(const char *name, int rcvr)
{
	const char *r, *fn;
	size_t i, nl;

	if (strncmp(name, "runtime.", 8) != 0)
		return 0;
	name += 8;
	if (!rcvr)
		return name[0] >= 'A' && name[0] <= 'Z';
	nl = strlen(name);
	for (i = nl; i > 0 && name[i - 1] != '.'; i--)
		;
	fn = name + i;
	if (i == 0)
		return fn[0] >= 'A' && fn[0] <= 'Z';
	r = name;
	if (i - 1 >= 3 && r[0] == '(' && r[1] == '*' && r[i - 2] == ')')
		r += 2;
	return fn[0] >= 'A' && fn[0] <= 'Z' && r[0] >= 'A' && r[0] <= 'Z';
}

/* showfuncinfo at GOTRACEBACK level 1 (runtime.Stack sets m.traceback =
 * 1), wrappers already elided by the collector with the same rule. */
static int show_frame(const gh_rtlayout *rt, const char *name, int first)
{
	if (rt->tb_show_fincleanup &&
	    (strcmp(name, "runtime.runFinalizers") == 0 ||
	     strcmp(name, "runtime.runCleanups") == 0))
		return 1;
	if (strcmp(name, "runtime.gopanic") == 0 && !first)
		return 1;
	return strchr(name, '.') != NULL &&
	       (strncmp(name, "runtime.", 8) != 0 ||
		exported_runtime(name, rt->tb_exported_rcvr));
}

/* printFuncName (1.21+) / funcNameForPrint (1.19) */
static void tb_func_name(gh_buf *b, const char *name, char *tmp, size_t n)
{
	if (strcmp(name, "runtime.gopanic") == 0)
		name = "panic";
	else if (strchr(name, '[') != NULL)
		name = gh_func_name_for_print(name, tmp, n);
	gh_buf_append(b, name, strlen(name));
}

/*
 * printquoted (1.26+ print.go) of the n bytes at s: printable ASCII,
 * \n \r \t \\ \", else \xNN (runes < 127, NUL included), \uNNNN,
 * \UNNNNNNNN.  A byte of invalid UTF-8 is \xNN in 1.27 (its runeError
 * case); 1.26 ranges over the string without it, so each such byte is
 * the rune U+FFFD: "\ufffd" (bad_hex 0).
 */
static void tb_quoted(gh_buf *b, const char *s, size_t n, int bad_hex)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	gh_buf_putc(b, '"');
	while (i < n) {
		uint32_t r = p[i];

		k = gh_utf8_decode(p + i, n - i, NULL);
		if (k == 0 && bad_hex) {
			gh_buf_printf(b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (k == 0) {
			r = 0xfffd;
			k = 1;
		} else if (k > 1) {
			r = p[i] & (k == 2 ? 0x1f : k == 3 ? 0x0f : 0x07);
			for (size_t j = 1; j < k; j++)
				r = (r << 6) | (p[i + j] & 0x3f);
		}
		i += k;
		if (r == '\n')
			gh_buf_append(b, "\\n", 2);
		else if (r == '\r')
			gh_buf_append(b, "\\r", 2);
		else if (r == '\t')
			gh_buf_append(b, "\\t", 2);
		else if (r == '\\' || r == '"')
			gh_buf_printf(b, "\\%c", (char)r);
		else if (r >= ' ' && r <= '~')
			gh_buf_putc(b, (char)r);
		else if (r < 127)
			gh_buf_printf(b, "\\x%02x", (unsigned)r);
		else if (r < 0x10000)
			gh_buf_printf(b, "\\u%04x", (unsigned)r);
		else
			gh_buf_printf(b, "\\U%08x", (unsigned)r);
	}
	gh_buf_putc(b, '"');
}

/* 1.27: tracebackStringNeedsQuoting (any byte outside [a-zA-Z0-9./_],
 * NUL included: a non-ASCII rune is outside too) */
static void tb_maybe_quoted(gh_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		      s[i] == '/' || s[i] == '_'))
			break;
	if (i < n)
		tb_quoted(b, s, n, 1);
	else
		gh_buf_append(b, s, n);
}

static void tb_labels(gh_buf *b, const gh_goroutine *g, int style)
{
	size_t i;

	gh_buf_append(b, style == 1 ? " labels:{" : " {", style == 1 ? 9 : 2);
	for (i = 0; i < g->nlabels; i++) {
		const gh_glabel *l = &g->labels[i];

		if (style == 1)
			tb_quoted(b, l->key, l->klen, 0);
		else
			tb_maybe_quoted(b, l->key, l->klen);
		gh_buf_append(b, ": ", 2);
		if (style == 1)
			tb_quoted(b, l->value, l->vlen, 0);
		else
			tb_maybe_quoted(b, l->value, l->vlen);
		if (i + 1 < g->nlabels)
			gh_buf_append(b, ", ", 2);
	}
	gh_buf_putc(b, '}');
}

/*
 * goroutineheader's " (durable)" (1.25+): a goroutine in a bubble whose
 * wait reason isIdleInSynctest, unless its status string (st) already
 * says "(durable)"; 1.26+ only while _Gwaiting, 1.25 whatever the status
 * (the wait reason of a goroutine that ran again is stale, and counts).
 */
static int tb_durable(const gh_rtlayout *rt, const gh_goroutine *g,
		      const char *st)
{
	static const char sfx[] = "(durable)";
	size_t n = strlen(st);

	if (!g->in_bubble || rt->tb_durable == 0 ||
	    (rt->tb_durable == 2 && g->status != GH_G_WAITING) ||
	    g->waitreason >= 64 ||
	    !(rt->idle_in_synctest >> g->waitreason & 1))
		return 0;
	return n < sizeof(sfx) - 1 ||
	       strcmp(st + n - (sizeof(sfx) - 1), sfx) != 0;
}

/* goroutineheader */
static void tb_header(gh_buf *b, const gh_profile *p, const gh_rtlayout *rt,
		      const gh_goroutine *g)
{
	const char *st = "???";
	int labels = rt->tb_labels != 0 && gh_gor_of(p)->tb_labels_on &&
		     g->has_labels && g->nlabels > 0;

	if (g->status < rt->ngstatus)
		st = rt->gstatus_strings[g->status];
	int leaked = g->leaked ||
		     (rt->g_leaked != 0 && g->status == rt->g_leaked);

	if ((g->status == GH_G_WAITING || leaked) && g->waitreason != 0)
		st = g->waitreason < rt->nwaitreason ?
		     rt->waitreason_strings[g->waitreason] :
		     "unknown wait reason";
	gh_buf_append(b, "goroutine ", 10);
	put_udec(b, g->goid);
	gh_buf_append(b, " [", 2);
	put_s(b, st);
	if (leaked)
		gh_buf_printf(b, " (leaked)");
	if (g->scan)
		gh_buf_printf(b, " (scan)");
	if (tb_durable(rt, g, st))
		gh_buf_printf(b, " (durable)");
	if (g->wait_minutes >= 1 && !leaked) {
		gh_buf_append(b, ", ", 2);
		put_sdec(b, g->wait_minutes);
		gh_buf_append(b, " minutes", 8);
	}
	if (g->locked)
		gh_buf_printf(b, ", locked to thread");
	if (g->in_bubble && rt->tb_bubble != 0)
		gh_buf_printf(b, ", synctest %s %llu", rt->tb_bubble == 1 ?
			      "group" : "bubble",
			      (unsigned long long)g->bubble_id);
	if (labels && rt->tb_labels == 1)
		tb_labels(b, g, 1);
	gh_buf_putc(b, ']');
	if (labels && rt->tb_labels == 2)
		tb_labels(b, g, 2);
	gh_buf_append(b, ":\n", 2);
}

/*
 * printcreatedby1 for the go statement at gopc of goroutine goid
 * (printcreatedby skips goid 1, main), " in goroutine N" with suffix
 * (1.21+; 0: none, as for an ancestor).
 */
static int tb_created_by_text(gh_buf *b, const gh_wctx *w,
			      const gh_rtlayout *rt, uint64_t gopc,
			      uint64_t goid, uint64_t suffix, gh_framevec *fv);

/* tb_created_by_text through the memo (t NULL: none) */
static int tb_created_by_pc(tb_ctx *t, gh_buf *b, const gh_wctx *w,
			    const gh_rtlayout *rt, uint64_t gopc,
			    uint64_t goid, uint64_t suffix, gh_framevec *fv)
{
	tb_cmemo *e;
	gh_buf tmp = GH_BUF_INIT;
	size_t cut;
	int rc;

	if (goid == 1)
		return 0;
	if (t == NULL || t->cm == NULL || gopc == 0)
		return tb_created_by_text(b, w, rt, gopc, goid, suffix, fv);
	e = &t->cm[tb_hash(gopc, TB_CMEMO_BITS)];
	if (e->pc != gopc) {
		/* the text without a suffix: "created by NAME" then the rest */
		rc = tb_created_by_text(&tmp, w, rt, gopc, goid, 0, fv);
		if (rc != 0 || tmp.oom) {
			gh_buf_free(&tmp);
			return rc != 0 ? rc : GOHEAP_ENOMEM;
		}
		e->pc = gopc;
		e->shown = tmp.len > 0;
		cut = 0;
		if (e->shown) {
			const char *nl = memchr(tmp.data, '\n', tmp.len);

			cut = nl != NULL ? (size_t)(nl - (const char *)tmp.data) :
			      tmp.len;
		}
		e->name_off = t->text.len;
		e->name_len = cut;
		e->rest_off = t->text.len + cut;
		e->rest_len = tmp.len - cut;
		gh_buf_append(&t->text, tmp.data, tmp.len);
		gh_buf_free(&tmp);
		if (t->text.oom)
			return GOHEAP_ENOMEM;
	}
	if (!e->shown)
		return 0;
	gh_buf_append(b, t->text.data + e->name_off, e->name_len);
	if (rt->tb_style != 0 && suffix != 0) {
		gh_buf_append(b, " in goroutine ", 14);
		put_udec(b, suffix);
	}
	gh_buf_append(b, t->text.data + e->rest_off, e->rest_len);
	return 0;
}

static int tb_created_by_text(gh_buf *b, const gh_wctx *w,
			      const gh_rtlayout *rt, uint64_t gopc,
			      uint64_t goid, uint64_t suffix, gh_framevec *fv)
{
	gh_funcinfo fi;
	char tmp[4096];
	int rc;

	if (goid == 1 || gh_sym_funcinfo(w->sym, gopc, &fi) != 0 ||
	    fi.funcid == rt->funcid.wrapper ||
	    !show_frame(rt, fi.name, 0))
		return 0;
	fv->n = 0;
	rc = gh_sym_callers_frames(w->sym, &gopc, 1, fv);
	if (rc != 0)
		return rc;
	gh_buf_printf(b, "created by ");
	if (rt->tb_style == 0)
		gh_buf_append(b, fi.name, strlen(fi.name));
	else
		tb_func_name(b, fi.name, tmp, sizeof(tmp));
	if (rt->tb_style != 0 && suffix != 0)
		gh_buf_printf(b, " in goroutine %llu",
			      (unsigned long long)suffix);
	gh_buf_printf(b, "\n\t%s:%lld", fv->n ? fv->v[0].file : "?",
		      (long long)(fv->n ? fv->v[0].line : 0));
	if (gopc > fi.entry)
		gh_buf_printf(b, " +%#llx",
			      (unsigned long long)(gopc - fi.entry));
	gh_buf_putc(b, '\n');
	return 0;
}

/* printcreatedby */
static int tb_created_by(tb_ctx *t, gh_buf *b, const gh_wctx *w,
			 const gh_rtlayout *rt, const gh_goroutine *g,
			 gh_framevec *fv)
{
	return tb_created_by_pc(t, b, w, rt, g->gopc, g->goid,
				g->parent_goid, fv);
}

/*
 * printAncestorTraceback for each of g's ancestors: the innermost
 * function at each saved PC itself (no back-up to the call: the PCs are
 * gcallers' return PCs, printed as they are), "(...)", its file:line at
 * that PC and the offset in the physical function, for the frames
 * showfuncinfo shows (1.21+ hides wrappers; 1.19 passes funcID_normal
 * and shows them); the elision line when the PCs filled the array
 * saveAncestors gave gcallers; printcreatedby1 without a goroutine id.
 */
static int tb_ancestors(gh_buf *b, const gh_wctx *w, const gh_rtlayout *rt,
			const gh_goroutine *g, gh_framevec *fv)
{
	size_t k, i, full = gh_rt_ancestor_pcs(rt);
	char tmp[4096];
	int rc;

	for (k = 0; k < g->nanc; k++) {
		const gh_gancestor *a = &g->anc[k];

		gh_buf_printf(b, "[originating from goroutine %llu]:\n",
			      (unsigned long long)a->goid);
		for (i = 0; i < a->npcs; i++) {
			gh_funcinfo fi;
			uint64_t pc = a->pcs[i], pc1 = pc + 1;
			const char *name;

			if (gh_sym_funcinfo(w->sym, pc, &fi) != 0 ||
			    (rt->tb_style != 0 &&
			     fi.funcid == rt->funcid.wrapper) ||
			    !show_frame(rt, fi.name, i == 0))
				continue;
			/* the frame at pc itself: callers_frames backs pc + 1
			 * up to pc; its first frame is the innermost */
			fv->n = 0;
			rc = gh_sym_callers_frames(w->sym, &pc1, 1, fv);
			if (rc != 0)
				return rc;
			if (fv->n == 0 || fv->v[0].function[0] == '\0')
				continue;
			name = fv->v[0].function;
			if (rt->tb_style == 0 &&
			    strcmp(name, "runtime.gopanic") == 0)
				name = "panic";
			if (rt->tb_style == 0)
				gh_buf_append(b, name, strlen(name));
			else
				tb_func_name(b, name, tmp, sizeof(tmp));
			gh_buf_printf(b, "(...)\n\t%s:%lld", fv->v[0].file,
				      (long long)fv->v[0].line);
			if (pc > fi.entry)
				gh_buf_printf(b, " +%#llx",
					      (unsigned long long)(pc - fi.entry));
			gh_buf_putc(b, '\n');
		}
		if (a->npcs == full)
			gh_buf_printf(b, "...additional frames elided...\n");
		rc = tb_created_by_pc(NULL, b, w, rt, a->gopc, a->goid, 0, fv);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* One logical frame as traceback2 (or 1.19's gentraceback) prints it;
 * x its memo (x->flags without TBX_NAME: none). */
static void tb_frame(const tb_ctx *t, gh_buf *b, const gh_rtlayout *rt,
		     const gh_frame *f, const tb_fx *x, uint64_t physpc,
		     const char *args)
{
	char tmp[4096];

	if (x->flags & TBX_NAME)
		gh_buf_append(b, t->text.data + x->off, x->len);
	else if (f->inlined && rt->tb_style == 0)
		gh_buf_append(b, f->function, strlen(f->function));
	else
		tb_func_name(b, f->function, tmp, sizeof(tmp));
	/* an inlined frame prints "(...)"; a physical one printArgs' list,
	 * read at collection (gorargs.c; "(...)" when it could not be) */
	if (f->inlined || args == NULL)
		args = "...";
	gh_buf_putc(b, '(');
	put_s(b, args);
	gh_buf_append(b, ")\n\t", 3);
	put_s(b, f->file);
	gh_buf_putc(b, ':');
	put_sdec(b, f->line);
	if (!f->inlined && physpc > f->entry) {
		gh_buf_append(b, " +", 2);
		put_xhex(b, physpc - f->entry);
	}
	gh_buf_putc(b, '\n');
}

/* traceback1 of one goroutine (not running elsewhere). */
static int tb_stack(tb_ctx *t, gh_buf *b, const gh_wctx *w,
		    const gh_rtlayout *rt, const gh_goroutine *g,
		    gh_framevec *fv, size_t *shown)
{
	size_t i, ns = 0, j, total;
	int rc, all;

	/* symbolize every logical frame (one frame per return PC) */
	fv->n = 0;
	for (i = 0; i < g->ntb; i++) {
		size_t before = fv->n;

		rc = tb_callers1(t, w->sym, &g->tb_pcs[i], fv, &t->fx[i]);
		if (rc != 0)
			return rc;
		if (fv->n != before + 1)
			return GOHEAP_ECORRUPT;
	}
	/* showRuntime false, then true if that printed nothing */
	for (all = 0; all < 2 && ns == 0; all++)
		for (i = 0; i < g->ntb; i++)
			if (all ||
			    ((t->fx[i].flags & TBX_NAME) ?
			     (t->fx[i].flags &
			      (ns == 0 ? TBX_SHOW1 : TBX_SHOW)) != 0 :
			     show_frame(rt, fv->v[i].function, ns == 0)))
				shown[ns++] = i;
	total = ns;
	for (j = 0; j < ns; j++) {
		if (rt->tb_style != 0 && total > rt->tb_inner + rt->tb_outer &&
		    j == rt->tb_inner) {
			gh_buf_printf(b, "...%zu frames elided...\n",
				      total - rt->tb_inner - rt->tb_outer);
			j = total - rt->tb_outer;
		}
		i = shown[j];
		tb_frame(t, b, rt, &fv->v[i], &t->fx[i], g->tb_phys[i],
			 g->tb_args != NULL && g->tb_args[i] != 0 ?
			 g->tb_argstr + g->tb_args[i] - 1 : NULL);
	}
	if (rt->tb_style == 0 && ns == rt->tb_max_phys)
		gh_buf_printf(b, "...additional frames elided...\n");
	return 0;
}

int gh_write_goroutine_traceback(const gh_profile *p, const gh_wctx *w,
				 gh_buf *out, gh_err *err)
{
	const gh_rtlayout *rt = gh_profile_rt(p);
	const gh_gorprof *gp = gh_gor_of(p);
	gh_framevec fv = { NULL, 0, 0, 0 };
	size_t i, maxn = 1, *shown;
	int rc = 0;
	tb_ctx t;

	if (rt->ngstatus == 0)
		return gh_errf(err, GOHEAP_EVERSION, "traceback: no "
			       "traceback rules for go1.%d", rt->minor);
	for (i = 0; i < gp->ngors; i++)
		if (gp->gors[i].ntb > maxn)
			maxn = gp->gors[i].ntb;
	shown = gh_calloc(maxn, sizeof(*shown));
	memset(&t, 0, sizeof(t));
	t.fx = gh_calloc(maxn, sizeof(*t.fx));
	if (shown == NULL || t.fx == NULL) {
		free(shown);
		free(t.fx);
		return gh_errf(err, GOHEAP_ENOMEM, "traceback: out of memory");
	}
	t.rt = rt;
	/* no memo on ENOMEM: the same look-ups, slower */
	t.fm = gh_calloc((size_t)1 << TB_FMEMO_BITS, sizeof(*t.fm));
	t.cm = gh_calloc((size_t)1 << TB_CMEMO_BITS, sizeof(*t.cm));
	for (i = 0; i < gp->ngors && rc == 0; i++) {
		const gh_goroutine *g = &gp->gors[i];

		if (i > 0)
			gh_buf_putc(out, '\n');
		tb_header(out, p, rt, g);
		if (g->status == GH_G_RUNNING &&
		    !(rt->tb_running_syscallsp && g->in_syscall)) {
			gh_buf_printf(out, "\tgoroutine running on other "
				      "thread; stack unavailable\n");
			rc = tb_created_by(&t, out, w, rt, g, &fv);
		} else {
			rc = tb_stack(&t, out, w, rt, g, &fv, shown);
			if (rc != 0)
				break;
			/* traceback1: printcreatedby, then the ancestors
			 * (tracebackothers prints neither for a running g
			 * but printcreatedby) */
			rc = tb_created_by(&t, out, w, rt, g, &fv);
			if (rc == 0)
				rc = tb_ancestors(out, w, rt, g, &fv);
		}
	}
	/* the note is a block of its own: after a blank line, if any
	 * goroutine was printed (-f list cuts the text at blank lines) */
	if (rc == 0 && gp->note[0] != '\0')
		gh_buf_printf(out, "%s# go-heap: %s\n", gp->ngors > 0 ? "\n" : "",
			      gp->note);
	if (rc == 0 && out->oom)
		rc = GOHEAP_ENOMEM;
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "traceback: out of memory");
	else if (rc != 0)
		gh_errf(err, rc, "traceback: a return PC did not symbolize "
			"to one frame");
	if (w->stats != NULL)
		w->stats->suspect += fv.suspect;
	gh_framevec_free(&fv);
	free(shown);
	free(t.fm);
	free(t.cm);
	free(t.fx);
	gh_buf_free(&t.text);
	return rc;
}

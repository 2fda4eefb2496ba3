/*
 * fmt_text.c - the debug=1 text of runtime/pprof, per target Go version.
 *
 * gh_write_text reproduces what `pprof.Lookup(name).WriteTo(w, 1)` prints
 * inside the target: writeHeapInternal for heap/allocs and
 * writeProfileInternal for block/mutex (src/runtime/pprof/pprof.go).  The
 * output must match byte for byte, so each step follows the Go source of
 * the target's version:
 *
 *   - the sort: sort.Slice (<= 1.22) or slices.SortFunc (1.23+), both
 *     unstable, ported in gosort.c and fed the records in bucket order;
 *     heap sorts by InUseBytes descending up to 1.22 and ascending in
 *     1.23/1.24 (the slices.SortFunc conversion uses cmp.Compare(a, b));
 *     block/mutex sort by Cycles descending in every version;
 *   - the header: the "allocBytes+1 when equal to inUseBytes" adjustment
 *     exists in 1.21+ but not in 1.19;
 *   - printStackRecord: Frame.Function is the raw symbol name in 1.19 and
 *     funcNameForPrint's ("[...]") from 1.21; leading frames whose name
 *     starts with "runtime." are hidden, and from 1.24 also
 *     "internal/runtime/";
 *   - runtime.CallersFrames synthesises missing inlined callers only from
 *     1.23 (symtab.go: ci.nextPC); 1.19-1.22 report one frame per PC;
 *   - block/mutex 1.23+ print the stack after expandInlinedFrames.
 *
 * Everything goes through a text/tabwriter port (tabwriter.c) set up as Go
 * does.  For heap Go wraps bufio around the output and the tabwriter
 * around that; for block/mutex the tabwriter wraps the raw writer (the
 * bufio.Writer is created but never written).  Both give the same bytes.
 *
 * The runtime.MemStats trailer of the heap text is written when the writer
 * is given MemStats (w->memstats: the session reads them from the
 * profile's target as it writes, as Go's handler calls ReadMemStats
 * first; memstats.c computes what ReadMemStats would, the mcaches' flush
 * included, from a stopped or dead target; fmt_memstats.c writes the
 * lines); without them it is left out rather than approximated.
 *
 * Stacks are expanded through the writers' per-PC frame cache (gh_stackx,
 * fmt_common.c), and records are put in Go's order by gh_record_order.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "fmt_common.h"
#include "tabwriter.h"
#include "utf8.h"
#include "memstats.h"
#include "retleak.h"

/* ---- line building --------------------------------------------------------- */

/* gh_buf_putc without the call when there is room: the hot path. */
static void put_c(gh_buf *b, char ch)
{
	if (b->len < b->cap) {
		b->data[b->len++] = (unsigned char)ch;
		return;
	}
	gh_buf_putc(b, ch);
}

static void put_str(gh_buf *b, const char *s)
{
	gh_buf_append(b, s, strlen(s));
}

/* Go's %#x of a uintptr: always "0x", lowercase, "0x0" for zero. */
static void put_hex(gh_buf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	gh_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* Go's %d (and %v) of an int64. */
static void put_dec(gh_buf *b, int64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		tmp[--i] = '-';
	gh_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* ---- printStackRecord ------------------------------------------------------ */

/* one frame line of printStackRecord, for the direct formatter: its
 * "name+0xoff" at off in text (n2 bytes, w2 runes), "file:line" after */
typedef struct fline {
	uint64_t pc;
	size_t off, n2, n3;
	int w2;
} fline;

typedef struct text_ctx {
	const gh_profile *p;
	gh_stackx *x;
	gh_tabwriter tw;
	gh_buf line;          /* one line, handed to the tabwriter */
	gh_buf *out;          /* the tabwriter's output */
	gh_framevec frames;
	/* the direct formatter's lines of one record */
	fline *fl;
	size_t nfl, capfl;
	gh_buf fltext;
	/* fl_put's scan of a symbolizer-owned string, by its address (names
	 * and files repeat on every stack) */
	struct fl_smemo {
		const char *s;    /* NULL: empty */
		size_t n;
		int w, ok;
	} *smemo;
	int print_names;      /* Frame.Function is funcNameForPrint (1.21+) */
	char namebuf[4096];
} text_ctx;

static void tw_line(text_ctx *c)
{
	if (c->line.oom) {
		c->tw.oom = 1;
		return;
	}
	gh_tabwriter_write(&c->tw, c->line.data, c->line.len);
	c->line.len = 0;
}

static const char *frame_function(text_ctx *c, const char *raw)
{
	if (!c->print_names || strchr(raw, '[') == NULL)
		return raw;
	return gh_func_name_for_print(raw, c->namebuf, sizeof(c->namebuf));
}

static int print_tw_record(text_ctx *c, const uint64_t *stk, size_t n,
			   int all_frames);

/* hex digits of "%#x" (v != 0 here: a frame's pc) */
static size_t hex_len(uint64_t v)
{
	size_t n = 2;

	do {
		n++;
		v >>= 4;
	} while (v != 0);
	return n;
}

/*
 * Append s to b; its width in runes to *w; 0 when it holds a byte the
 * tabwriter treats specially (a cell boundary, an escape): then the
 * record goes through the tabwriter.
 */
#define FL_SMEMO_BITS 11

static int fl_put(text_ctx *c, gh_buf *b, const char *s, int *w)
{
	const unsigned char *p = (const unsigned char *)s;
	struct fl_smemo *e = NULL;
	size_t n, i;
	int ascii = 1, ok = 1, width;

	/* a name of namebuf changes from call to call: not memoised */
	if (c->smemo != NULL && s != c->namebuf) {
		e = &c->smemo[((uintptr_t)s * 0x9e3779b97f4a7c15ull) >>
			      (64 - FL_SMEMO_BITS)];
		if (e->s == s) {
			if (!e->ok)
				return 0;
			gh_buf_append(b, s, e->n);
			if (w != NULL)
				*w += e->w;
			return 1;
		}
	}
	n = strlen(s);
	for (i = 0; i < n; i++) {
		unsigned char ch = p[i];

		if (ch == '\t' || ch == '\v' || ch == '\n' || ch == '\f' ||
		    ch == GH_TW_ESCAPE)
			ok = 0;
		ascii &= ch < 0x80;
	}
	width = ascii ? (int)n : (int)gh_utf8_rune_count(p, n);
	if (e != NULL) {
		e->s = s;
		e->n = n;
		e->w = width;
		e->ok = ok;
	}
	if (!ok)
		return 0;
	gh_buf_append(b, s, n);
	if (w != NULL)
		*w += width;
	return 1;
}

/* tabs padding a cell of textw runes to column width cellw (tabwidth 8,
 * padchar '\t': tabwriter.writePadding) */
static void fl_pad(gh_buf *b, int textw, int cellw)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	int n = ((cellw + 7) & ~7) - textw;
	size_t k;

	if (n < 0)
		n = 0;
	for (k = (size_t)(n + 7) >> 3; k > 0;) {
		size_t m = k < sizeof(tabs) - 1 ? k : sizeof(tabs) - 1;

		gh_buf_append(b, tabs, m);
		k -= m;
	}
}

/*
 * printStackRecord's lines written straight to the output, as
 * tabwriter.NewWriter(w, 1, 8, 1, '\t', 0) would align them: every line
 * "#\t0xPC\tNAME+0xOFF\tFILE:LINE", one block (the empty line after it
 * has one cell and ends it), columns padded with tabs to max(width)+1
 * rounded up to 8.  Only when the tabwriter holds nothing (the record's
 * header line, one cell, flushed it) and every line is of that shape:
 * 1 when written, 0 when the caller must use the tabwriter.
 */
static int direct_record(text_ctx *c, const size_t *sel, size_t nsel)
{
	gh_tabwriter *tw = &c->tw;
	gh_buf *t = &c->fltext, *o = c->out;
	int w1 = 0, w2 = 0;
	size_t i;

	if (tw->minwidth != 1 || tw->tabwidth != 8 || tw->padding != 1 ||
	    tw->padchar != '\t' || tw->flags != 0 || tw->nlines != 1 ||
	    tw->ncells != 0 || tw->cell.size != 0 || tw->text.len != 0 ||
	    nsel == 0 ||
	    gh_grow(&c->fl, &c->capfl, nsel, sizeof(*c->fl)) != 0)
		return 0;
	t->len = 0;
	for (i = 0; i < nsel; i++) {
		const gh_frame *f = &c->frames.v[sel[i]];
		const char *name = frame_function(c, f->function);
		fline *l = &c->fl[i];
		size_t at;
		int w = 0;

		if (name[0] == '\0')
			return 0;
		l->pc = f->pc;
		l->off = t->len;
		if (!fl_put(c, t, name, &w))
			return 0;
		put_c(t, '+');
		at = t->len;
		put_hex(t, f->pc - f->entry);
		w += (int)(t->len - at) + 1;
		l->n2 = t->len - l->off;
		l->w2 = w;
		at = t->len;
		if (!fl_put(c, t, f->file, NULL))
			return 0;
		put_c(t, ':');
		put_dec(t, f->line);
		l->n3 = t->len - at;
		if ((int)hex_len(f->pc) > w1)
			w1 = (int)hex_len(f->pc);
		if (w > w2)
			w2 = w;
	}
	if (t->oom)
		return 0;
	for (i = 0; i < nsel; i++) {
		const fline *l = &c->fl[i];
		size_t at = o->len;

		gh_buf_append(o, "#\t", 2);   /* "#": width 1, column 2 */
		put_hex(o, l->pc);
		fl_pad(o, (int)(o->len - at - 2), w1 + 1);
		gh_buf_append(o, t->data + l->off, l->n2);
		fl_pad(o, l->w2, w2 + 1);
		gh_buf_append(o, t->data + l->off + l->n2, l->n3);
		put_c(o, '\n');
	}
	put_c(o, '\n');
	return 1;
}

/*
 * printStackRecord (pprof.go).  An empty frame list is what Go sees when
 * every PC is unknown (or the stack is empty): Next returns a zero Frame,
 * whose empty Function prints as "#\t0x0".
 */
static int print_stack_record(text_ctx *c, const uint64_t *stk, size_t n,
			      int all_frames)
{
	size_t sel[256], nsel = 0, i;
	int show = all_frames, rc;

	/* which frames it prints (as below): the direct formatter's lines */
	rc = gh_stackx_frames(c->x, stk, n, GH_STACKX_CALLERS, &c->frames);
	if (rc != 0)
		return rc;
	for (i = 0; i < c->frames.n && c->frames.n <= GH_ARRAY_LEN(sel);
	     i++) {
		const char *name = c->frames.v[i].function;

		if (name[0] == '\0')
			break;           /* a line of another shape */
		if (name[0] == 'r' && strcmp(name, "runtime.goexit") == 0)
			continue;
		if (!show && gh_stackx_is_runtime(c->x,
						 frame_function(c, name)))
			continue;
		show = 1;
		sel[nsel++] = i;
	}
	if (c->frames.n > 0 && c->frames.n <= GH_ARRAY_LEN(sel) &&
	    i == c->frames.n && !show && !all_frames)
		return print_stack_record(c, stk, n, 1);
	if (c->frames.n > 0 && c->frames.n <= GH_ARRAY_LEN(sel) &&
	    i == c->frames.n && direct_record(c, sel, nsel))
		return 0;
	return print_tw_record(c, stk, n, all_frames);
}

/* print_stack_record through the tabwriter, every line as Go writes it */
static int print_tw_record(text_ctx *c, const uint64_t *stk, size_t n,
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
		put_str(&c->line, "#\t0x0\n");
		tw_line(c);
	}
	for (i = 0; i < c->frames.n; i++) {
		f = &c->frames.v[i];
		name = frame_function(c, f->function);
		if (name[0] == '\0') {
			/* a PC inside a function without a name */
			show = 1;
			put_str(&c->line, "#\t");
			put_hex(&c->line, f->pc);
			put_c(&c->line, '\n');
			tw_line(c);
			continue;
		}
		if (name[0] == 'r' && strcmp(name, "runtime.goexit") == 0)
			continue;
		if (!show && gh_stackx_is_runtime(c->x, name))
			continue;
		show = 1;
		put_str(&c->line, "#\t");
		put_hex(&c->line, f->pc);
		put_c(&c->line, '\t');
		put_str(&c->line, name);
		put_c(&c->line, '+');
		put_hex(&c->line, f->pc - f->entry);
		put_c(&c->line, '\t');
		put_str(&c->line, f->file);
		put_c(&c->line, ':');
		put_dec(&c->line, f->line);
		put_c(&c->line, '\n');
		tw_line(c);
	}
	if (!show)
		return print_tw_record(c, stk, n, 1);
	put_c(&c->line, '\n');
	tw_line(c);
	return 0;
}

/* " 0x.." for each PC of a record's header line, which it ends. */
static void put_pcs(text_ctx *c, const uint64_t *stk, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		put_c(&c->line, ' ');
		put_hex(&c->line, stk[i]);
	}
	put_c(&c->line, '\n');
	tw_line(c);
}

/* ---- writers ----------------------------------------------------------------- */

/* writeHeapInternal, debug=1, without the MemStats trailer. */
static int write_heap(text_ctx *c, const size_t *ord)
{
	const gh_profile *p = c->p;
	int64_t alloc_b = 0, alloc_o = 0, free_b = 0, free_o = 0, abytes;
	const gh_record *r;
	size_t i, k, n;
	int rc;

	/*
	 * The header is the sum over exactly the records printed below (all
	 * of p->recs, in another order) with the arithmetic they are printed
	 * with: 1.27's AllocObjects*ObjectSize and InUseObjects*ObjectSize
	 * are the walker's count x size (equal modulo 2^64), so no record
	 * may be left out of one loop and not the other.  In a walked
	 * profile they do not wrap either: walk.c leaves implausible
	 * buckets out and keeps every column's total within 2^62.
	 */
	for (i = 0; i < p->nrecs; i++) {
		r = &p->recs[i];
		alloc_b = gh_wadd(alloc_b, r->alloc_bytes);
		alloc_o = gh_wadd(alloc_o, r->alloc_objects);
		free_b = gh_wadd(free_b, r->free_bytes);
		free_o = gh_wadd(free_o, r->free_objects);
	}
	/*
	 * Go 1.21+ bumps allocBytes when it equals inUseBytes so that pprof
	 * does not read a "2-column" profile; 1.19 prints the raw total.
	 */
	abytes = alloc_b;
	if (gh_profile_rt(p)->heap_alloc_bump &&
	    gh_wsub(alloc_b, free_b) == alloc_b)
		abytes = gh_wadd(abytes, 1);
	put_str(&c->line, "heap profile: ");
	put_dec(&c->line, gh_wsub(alloc_o, free_o));
	put_str(&c->line, ": ");
	put_dec(&c->line, gh_wsub(alloc_b, free_b));
	put_str(&c->line, " [");
	put_dec(&c->line, alloc_o);
	put_str(&c->line, ": ");
	put_dec(&c->line, abytes);
	put_str(&c->line, "] @ heap/");
	/* "2*MemProfileRate": the historic C++ heap profiler convention. */
	put_dec(&c->line, gh_wmul(2, p->rate));
	put_c(&c->line, '\n');
	tw_line(c);

	for (k = 0; k < p->nrecs; k++) {
		r = &p->recs[ord[k]];
		n = gh_record_stack_len(p, r);
		put_dec(&c->line, gh_wsub(r->alloc_objects, r->free_objects));
		put_str(&c->line, ": ");
		put_dec(&c->line, gh_wsub(r->alloc_bytes, r->free_bytes));
		put_str(&c->line, " [");
		put_dec(&c->line, r->alloc_objects);
		put_str(&c->line, ": ");
		put_dec(&c->line, r->alloc_bytes);
		put_str(&c->line, "] @");
		put_pcs(c, r->stk, n);
		rc = print_stack_record(c, r->stk, n, 0);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* writeProfileInternal, debug=1 (block: "contention", mutex: "mutex"). */
static int write_cycles(text_ctx *c, const size_t *ord)
{
	const gh_profile *p = c->p;
	/* expandInlinedFrames' buffer, pprof_makeProfStack(): 1.23+ */
	size_t depth = gh_profstackdepth(p);
	uint64_t *expanded = NULL;
	const uint64_t *stk;
	const gh_record *r;
	size_t k, n;
	int rc = 0, expand = gh_profile_rt(p)->full_stacks;

	if (p->kind == GOHEAP_PROFILE_MUTEX)
		put_str(&c->line, "--- mutex:\n");
	else
		put_str(&c->line, "--- contention:\n");
	/*
	 * runtime_cyclesPerSecond / pprof_cyclesPerSecond return int64 in
	 * every version (1.19-1.24), so %v prints an integer.
	 */
	put_str(&c->line, "cycles/second=");
	put_dec(&c->line, gh_cycles_per_second(p));
	put_c(&c->line, '\n');
	if (p->kind == GOHEAP_PROFILE_MUTEX) {
		/* SetMutexProfileFraction(-1): the current rate. */
		put_str(&c->line, "sampling period=");
		put_dec(&c->line, p->rate);
		put_c(&c->line, '\n');
	}
	tw_line(c);
	if (expand && (expanded = gh_calloc(depth, sizeof(*expanded))) == NULL)
		return GOHEAP_ENOMEM;

	for (k = 0; k < p->nrecs; k++) {
		r = &p->recs[ord[k]];
		if (expand) {
			rc = gh_stackx_expand_inlined(c->x, r->stk, r->nstk,
						      depth, expanded, &n);
			if (rc != 0)
				break;
			stk = expanded;
		} else {
			stk = r->stk;
			n = gh_record_stack_len(p, r);
		}
		put_dec(&c->line, r->cycles);
		put_c(&c->line, ' ');
		put_dec(&c->line, r->count);
		put_str(&c->line, " @");
		put_pcs(c, stk, n);
		rc = print_stack_record(c, stk, n, 1);
		if (rc != 0)
			break;
	}
	free(expanded);
	return rc;
}

/*
 * The goroutine profile's debug=1 text: printCountProfile (pprof.go, the
 * same in 1.19 to 1.27): "goroutine profile: total N", then per group of
 * goroutines with one key (gorgroup.c: stack and labels, sorted by count)
 * "COUNT KEY" and printStackRecord(stack, false).
 */
static int write_goroutines(text_ctx *c)
{
	const gh_profile *p = c->p;
	const gh_gorprof *gp = gh_gor_of(p);
	gh_gor_group *k = NULL;
	size_t nk = 0, i;
	int rc;

	rc = gh_gor_groups(p, &k, &nk);
	if (rc != 0)
		return rc;
	put_str(&c->line, gh_gor_is_leak(p) ?
		"goroutineleak profile: total " : "goroutine profile: total ");
	put_dec(&c->line, (int64_t)gp->ngors);
	put_c(&c->line, '\n');
	tw_line(c);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &gp->gors[k[i].first];

		put_dec(&c->line, k[i].count);
		put_c(&c->line, ' ');
		put_str(&c->line, k[i].key);
		put_c(&c->line, '\n');
		tw_line(c);
		rc = print_stack_record(c, g->stk, g->nstk, 0);
	}
	gh_gor_groups_free(k, nk);
	return rc;
}

int gh_write_text(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		  gh_err *err)
{
	gh_buf empty = GH_BUF_INIT;
	text_ctx *c = NULL;
	size_t *ord = NULL;
	int rc;

	if (p == NULL || w == NULL || w->sym == NULL || out == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "text: missing argument");
	/* The context is large (name buffer): keep it off the stack. */
	c = gh_calloc(1, sizeof(*c));
	if (c == NULL) {
		rc = GOHEAP_ENOMEM;
		goto out;
	}
	c->p = p;
	c->line = empty;
	c->print_names = gh_profile_rt(p)->text_func_names;
	/* tabwriter.NewWriter(w, 1, 8, 1, '\t', 0), as pprof.go. */
	gh_tabwriter_init(&c->tw, out, 1, 8, 1, '\t', 0);
	c->out = out;
	c->fltext = empty;
	/* c->smemo stays NULL (each string scanned again): a memo keyed by a
	 * string's address is stale once the symbolizer's storage moves and
	 * another string takes that address (suspected of one wrong line in
	 * a mutex text; kept out until proven safe) */
	rc = gh_stackx_new(&c->x, w->sym, p->ver);
	if (rc != 0)
		goto out;
	if (p->kind != GOHEAP_PROFILE_GOROUTINE) {
		ord = gh_record_order(p);
		if (ord == NULL) {
			rc = GOHEAP_ENOMEM;
			goto out;
		}
	}
	switch (p->kind) {
	case GOHEAP_PROFILE_GOROUTINE:
		rc = write_goroutines(c);
		break;
	case GOHEAP_PROFILE_HEAP:
	case GOHEAP_PROFILE_ALLOCS:
		rc = write_heap(c, ord);
		break;
	case GOHEAP_PROFILE_BLOCK:
	case GOHEAP_PROFILE_MUTEX:
		rc = write_cycles(c, ord);
		break;
	default:
		rc = gh_errf(err, GOHEAP_EINVAL, "text: unknown profile kind %d",
			     p->kind);
		goto out;
	}
	if (rc == 0)
		rc = gh_tabwriter_flush(&c->tw);
	/* the trailer's lines have no tab: the tabwriter passes them as
	 * they are, so they are appended after its flush */
	if (rc == 0 && w->memstats != NULL &&
	    (p->kind == GOHEAP_PROFILE_HEAP || p->kind == GOHEAP_PROFILE_ALLOCS))
		rc = gh_write_memstats(w->memstats, 1, out);
	/* Not in Go's format: only when a goroutine profile is not what the
	 * runtime would have written (running goroutines of a live target,
	 * partial tracebacks, unreadable g's), so a clean read stays equal. */
	if (rc == 0 && p->kind == GOHEAP_PROFILE_GOROUTINE &&
	    gh_gor_of(p)->note[0] != '\0')
		gh_buf_printf(out, "# go-heap: %s\n", gh_gor_of(p)->note);
	/* -p goroutineleak: what the leaked goroutines keep alive (not in
	 * Go's format; the program's own profile has no such line) */
	if (rc == 0 && gh_gor_is_leak(p))
		gh_leak_text_note(p, w->sym, out);
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "text: out of memory");
	free(ord);
	if (c != NULL) {
		gh_tabwriter_free(&c->tw);
		gh_buf_free(&c->line);
		gh_buf_free(&c->fltext);
		free(c->fl);
		free(c->smemo);
		if (w->stats != NULL)
			w->stats->suspect += gh_stackx_suspect(c->x) +
					     c->frames.suspect;
		gh_framevec_free(&c->frames);
		gh_stackx_free(c->x);
		free(c);
	}
	return rc;
}

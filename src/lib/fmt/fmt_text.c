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
#include "memstats.h"

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

typedef struct text_ctx {
	const gh_profile *p;
	gh_stackx *x;
	gh_tabwriter tw;
	gh_buf line;          /* one line, handed to the tabwriter */
	gh_framevec frames;
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

/*
 * printStackRecord (pprof.go).  An empty frame list is what Go sees when
 * every PC is unknown (or the stack is empty): Next returns a zero Frame,
 * whose empty Function prints as "#\t0x0".
 */
static int print_stack_record(text_ctx *c, const uint64_t *stk, size_t n,
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
		return print_stack_record(c, stk, n, 1);
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
	gh_gor_group *k = NULL;
	size_t nk = 0, i;
	int rc;

	rc = gh_gor_groups(p, &k, &nk);
	if (rc != 0)
		return rc;
	put_str(&c->line, "goroutine profile: total ");
	put_dec(&c->line, (int64_t)p->ngors);
	put_c(&c->line, '\n');
	tw_line(c);
	for (i = 0; i < nk && rc == 0; i++) {
		const gh_goroutine *g = &p->gors[k[i].first];

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
	    p->gor_note[0] != '\0')
		gh_buf_printf(out, "# go-heap: %s\n", p->gor_note);
out:
	if (rc == GOHEAP_ENOMEM)
		gh_errf(err, rc, "text: out of memory");
	free(ord);
	if (c != NULL) {
		gh_tabwriter_free(&c->tw);
		gh_buf_free(&c->line);
		if (w->stats != NULL)
			w->stats->suspect += gh_stackx_suspect(c->x) +
					     c->frames.suspect;
		gh_framevec_free(&c->frames);
		gh_stackx_free(c->x);
		free(c);
	}
	return rc;
}

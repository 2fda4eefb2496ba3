/*
 * tabwriter.c - Go's text/tabwriter, function by function.
 *
 * runtime/pprof's debug=1 output is aligned by tabwriter.NewWriter(w, 1,
 * 8, 1, '\t', 0): the frame lines of a record form one block (the empty
 * line after them has a single cell and flushes it), each column is padded
 * with tabs to max(cell width)+1 rounded up to a multiple of 8, and widths
 * are counted in UTF-8 runes.  The rules have enough corner cases (the
 * last cell of a line is never aligned, a column ends at the first line
 * that lacks it, escapes with 0xff are honoured even with flags == 0) that
 * re-deriving them would drift, so this is a direct port of
 * src/text/tabwriter/tabwriter.go (identical in Go 1.19-1.24 apart from
 * comments and a panic message), with the same names in C form.  Every
 * flag is ported, not just the ones pprof uses, so the unit tests can
 * compare against Go on the full behaviour.
 *
 * Go keeps lines as [][]cell; here all cells sit in one array and each
 * line records where its cells start, which avoids one allocation per line
 * on large profiles.  Go panics on write errors; output here is a gh_buf
 * whose only failure is out-of-memory, kept sticky and reported by flush.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tabwriter.h"
#include "utf8.h"

/* ---- storage --------------------------------------------------------------- */

static void add_line(gh_tabwriter *b)
{
	if (gh_grow(&b->lines, &b->caplines, b->nlines + 1,
		 sizeof(*b->lines)) != 0) {
		b->oom = 1;
		return;
	}
	b->lines[b->nlines++] = b->ncells;
}

/* The number of cells of line i. */
static size_t line_len(const gh_tabwriter *b, size_t i)
{
	size_t end = i + 1 < b->nlines ? b->lines[i + 1] : b->ncells;

	return end - b->lines[i];
}

static const gh_tw_cell *line_cell(const gh_tabwriter *b, size_t i,
				   size_t j)
{
	return &b->cells[b->lines[i] + j];
}

static void reset(gh_tabwriter *b)
{
	b->text.len = 0;
	b->pos = 0;
	memset(&b->cell, 0, sizeof(b->cell));
	b->end_char = 0;
	b->nlines = 0;
	b->ncells = 0;
	b->nwidths = 0;
	add_line(b);
}

void gh_tabwriter_init(gh_tabwriter *tw, gh_buf *output, int minwidth,
		       int tabwidth, int padding, unsigned char padchar,
		       unsigned flags)
{
	gh_buf empty = GH_BUF_INIT;

	memset(tw, 0, sizeof(*tw));
	tw->text = empty;
	tw->scratch = empty;
	tw->output = output;
	/* Go panics on negative values; clamp instead of crashing. */
	tw->minwidth = minwidth < 0 ? 0 : minwidth;
	tw->tabwidth = tabwidth < 0 ? 0 : tabwidth;
	tw->padding = padding < 0 ? 0 : padding;
	tw->padchar = padchar;
	if (padchar == '\t')
		flags &= ~(unsigned)GH_TW_ALIGN_RIGHT;
	tw->flags = flags;
	/* The bytes Writer.Write reacts to outside an escaped section. */
	tw->special['\t'] = tw->special['\v'] = 1;
	tw->special['\n'] = tw->special['\f'] = 1;
	tw->special[GH_TW_ESCAPE] = 1;
	if ((flags & GH_TW_FILTER_HTML) != 0)
		tw->special['<'] = tw->special['&'] = 1;
	reset(tw);
}

void gh_tabwriter_free(gh_tabwriter *tw)
{
	if (tw == NULL)
		return;
	gh_buf_free(&tw->text);
	gh_buf_free(&tw->scratch);
	free(tw->cells);
	free(tw->lines);
	free(tw->widths);
	tw->cells = NULL;
	tw->lines = NULL;
	tw->widths = NULL;
}

/* ---- output ---------------------------------------------------------------- */

static void write0(gh_tabwriter *b, const void *p, size_t n)
{
	gh_buf_append(b->output, p, n);
}

/* writeN: n bytes of c (Go repeats an 8-byte pattern; same result). */
static void write_n(gh_tabwriter *b, unsigned char c, size_t n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	size_t k;

	if (c == '\t') {
		for (; n > 0; n -= k) {
			k = n < sizeof(tabs) - 1 ? n : sizeof(tabs) - 1;
			write0(b, tabs, k);
		}
		return;
	}
	if (gh_buf_reserve(b->output, n) != 0)
		return;
	memset(b->output->data + b->output->len, c, n);
	b->output->len += n;
}

static void write_padding(gh_tabwriter *b, int textw, int cellw,
			  int use_tabs)
{
	int n;

	if (b->padchar == '\t' || use_tabs) {
		/* Tabs have no width when tabwidth is 0: no padding. */
		if (b->tabwidth == 0)
			return;
		/* pprof's tabwidth 8 as shifts: this runs for every cell. */
		if (b->tabwidth == 8) {
			cellw = (cellw + 7) & ~7;
			n = cellw - textw;
			if (n < 0)
				n = 0;
			write_n(b, '\t', (size_t)((n + 7) >> 3));
			return;
		}
		cellw = (cellw + b->tabwidth - 1) / b->tabwidth * b->tabwidth;
		n = cellw - textw;
		/* Go panics ("internal error"); cannot happen for sane input. */
		if (n < 0)
			n = 0;
		write_n(b, '\t', (size_t)((n + b->tabwidth - 1) / b->tabwidth));
		return;
	}
	if (cellw > textw)
		write_n(b, b->padchar, (size_t)(cellw - textw));
}

static size_t write_lines(gh_tabwriter *b, size_t pos, size_t line0,
			  size_t line1)
{
	size_t i, j, n;
	const gh_tw_cell *c;
	int use_tabs;

	for (i = line0; i < line1; i++) {
		use_tabs = (b->flags & GH_TW_TAB_INDENT) != 0;
		n = line_len(b, i);
		for (j = 0; j < n; j++) {
			c = line_cell(b, i, j);
			if (j > 0 && (b->flags & GH_TW_DEBUG) != 0)
				write0(b, "|", 1);
			if (c->size == 0) {
				/* An empty cell. */
				if (j < b->nwidths)
					write_padding(b, c->width, b->widths[j],
						      use_tabs);
				continue;
			}
			/* Non-empty cell: tab indentation stops here. */
			use_tabs = 0;
			if ((b->flags & GH_TW_ALIGN_RIGHT) == 0) {
				write0(b, b->text.data + pos, c->size);
				pos += c->size;
				if (j < b->nwidths)
					write_padding(b, c->width, b->widths[j],
						      0);
			} else {
				if (j < b->nwidths)
					write_padding(b, c->width, b->widths[j],
						      0);
				write0(b, b->text.data + pos, c->size);
				pos += c->size;
			}
		}
		if (i + 1 == b->nlines) {
			/* The last buffered line: its text has no newline. */
			if (b->cell.size > 0)
				write0(b, b->text.data + pos, b->cell.size);
			pos += b->cell.size;
		} else {
			write0(b, "\n", 1);
		}
	}
	return pos;
}

/*
 * format: find the lines sharing column `len(widths)`, compute its width,
 * and recurse into the next column for exactly those lines.  The loop
 * variable `this` is advanced inside the block and again by the for
 * statement, exactly as in Go.
 */
static size_t format(gh_tabwriter *b, size_t pos, size_t line0, size_t line1)
{
	size_t column = b->nwidths, this;
	int width, w, discardable;
	const gh_tw_cell *c;

	for (this = line0; this < line1; this++) {
		if ((ptrdiff_t)column >= (ptrdiff_t)line_len(b, this) - 1)
			continue;
		/* Cell exists in this column: print the lines before it. */
		pos = write_lines(b, pos, line0, this);
		line0 = this;

		width = b->minwidth;
		discardable = 1;
		for (; this < line1; this++) {
			if ((ptrdiff_t)column >=
			    (ptrdiff_t)line_len(b, this) - 1)
				break;
			c = line_cell(b, this, column);
			w = c->width + b->padding;
			if (w > width)
				width = w;
			if (c->width > 0 || c->htab)
				discardable = 0;
		}
		if (discardable &&
		    (b->flags & GH_TW_DISCARD_EMPTY_COLUMNS) != 0)
			width = 0;

		if (gh_grow(&b->widths, &b->capwidths, b->nwidths + 1,
			 sizeof(*b->widths)) != 0) {
			b->oom = 1;
			return pos;
		}
		b->widths[b->nwidths++] = width;
		pos = format(b, pos, line0, this);
		b->nwidths--;
		line0 = this;
	}
	return write_lines(b, pos, line0, line1);
}

/* ---- input ----------------------------------------------------------------- */

static void append_text(gh_tabwriter *b, const unsigned char *p, size_t n)
{
	gh_buf_append(&b->text, p, n);
	b->cell.size += n;
}

static void update_width(gh_tabwriter *b)
{
	if (b->text.len == b->pos)
		return;
	b->cell.width += (int)gh_utf8_rune_count(b->text.data + b->pos,
						 b->text.len - b->pos);
	b->pos = b->text.len;
}

static void start_escape(gh_tabwriter *b, unsigned char ch)
{
	switch (ch) {
	case GH_TW_ESCAPE:
		b->end_char = GH_TW_ESCAPE;
		break;
	case '<':
		b->end_char = '>';
		break;
	case '&':
		b->end_char = ';';
		break;
	}
}

static void end_escape(gh_tabwriter *b)
{
	switch (b->end_char) {
	case GH_TW_ESCAPE:
		update_width(b);
		if ((b->flags & GH_TW_STRIP_ESCAPE) == 0)
			b->cell.width -= 2; /* the Escape bytes have no width */
		break;
	case '>':                           /* a tag has no width */
		break;
	case ';':
		b->cell.width++;            /* an entity counts as one rune */
		break;
	}
	b->pos = b->text.len;
	b->end_char = 0;
}

/* Terminate the current cell; returns the number of cells in the line. */
static size_t terminate_cell(gh_tabwriter *b, int htab)
{
	b->cell.htab = htab;
	if (gh_grow(&b->cells, &b->capcells, b->ncells + 1,
		 sizeof(*b->cells)) != 0) {
		b->oom = 1;
		return 0;
	}
	b->cells[b->ncells++] = b->cell;
	memset(&b->cell, 0, sizeof(b->cell));
	return line_len(b, b->nlines - 1);
}

static void flush_no_defers(gh_tabwriter *b)
{
	if (b->cell.size > 0) {
		if (b->end_char != 0)
			end_escape(b);
		terminate_cell(b, 0);
	}
	format(b, 0, 0, b->nlines);
	reset(b);
}

void gh_tabwriter_write(gh_tabwriter *b, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i, j, n = 0, ncells;
	unsigned char ch;

	if (b->oom)
		return;
	for (i = 0; i < len; i++) {
		/* Skip plain text quickly; only these bytes do anything. */
		if (b->end_char == 0) {
			while (i < len && !b->special[p[i]])
				i++;
			if (i == len)
				break;
		}
		ch = p[i];
		if (b->end_char != 0) {
			/* Inside an escaped section: look for its end only. */
			if (ch == b->end_char) {
				j = i + 1;
				if (ch == GH_TW_ESCAPE &&
				    (b->flags & GH_TW_STRIP_ESCAPE) != 0)
					j = i;
				append_text(b, p + n, j - n);
				n = i + 1;
				end_escape(b);
			}
			continue;
		}
		switch (ch) {
		case '\t':
		case '\v':
		case '\n':
		case '\f':
			append_text(b, p + n, i - n);
			update_width(b);
			n = i + 1;
			ncells = terminate_cell(b, ch == '\t');
			if (ch == '\n' || ch == '\f') {
				add_line(b);
				/* A line with one cell ends the block. */
				if (ch == '\f' || ncells == 1) {
					flush_no_defers(b);
					if (ch == '\f' &&
					    (b->flags & GH_TW_DEBUG) != 0)
						write0(b, "---\n", 4);
				}
			}
			break;
		case GH_TW_ESCAPE:
			append_text(b, p + n, i - n);
			update_width(b);
			n = i;
			if ((b->flags & GH_TW_STRIP_ESCAPE) != 0)
				n++;
			start_escape(b, GH_TW_ESCAPE);
			break;
		case '<':
		case '&':
			if ((b->flags & GH_TW_FILTER_HTML) != 0) {
				append_text(b, p + n, i - n);
				update_width(b);
				n = i;
				start_escape(b, ch);
			}
			break;
		}
	}
	append_text(b, p + n, len - n);
}

void gh_tabwriter_printf(gh_tabwriter *tw, const char *fmt, ...)
{
	va_list ap;

	tw->scratch.len = 0;
	va_start(ap, fmt);
	gh_buf_vprintf(&tw->scratch, fmt, ap);
	va_end(ap);
	if (tw->scratch.oom) {
		tw->oom = 1;
		return;
	}
	gh_tabwriter_write(tw, tw->scratch.data, tw->scratch.len);
}

int gh_tabwriter_flush(gh_tabwriter *tw)
{
	if (!tw->oom)
		flush_no_defers(tw);
	if (tw->oom || tw->text.oom || tw->output->oom)
		return GOHEAP_ENOMEM;
	return 0;
}

/*
 * tabwriter.h - a port of Go's text/tabwriter, writing into a gh_buf.
 *
 * runtime/pprof passes all of its debug=1 text through
 * tabwriter.NewWriter(w, 1, 8, 1, '\t', 0); the frame lines of one record
 * are aligned as a block.  This port reproduces that output byte for byte
 * (Go 1.19-1.24 tabwriter.go are functionally identical).
 */
#ifndef GH_TABWRITER_H
#define GH_TABWRITER_H

#include "gh.h"

/* The flags of tabwriter.Writer.Init, same values as Go's. */
enum {
	GH_TW_FILTER_HTML = 1 << 0,
	GH_TW_STRIP_ESCAPE = 1 << 1,
	GH_TW_ALIGN_RIGHT = 1 << 2,
	GH_TW_DISCARD_EMPTY_COLUMNS = 1 << 3,
	GH_TW_TAB_INDENT = 1 << 4,
	GH_TW_DEBUG = 1 << 5,
};

/* Go's tabwriter.Escape. */
#define GH_TW_ESCAPE 0xff

/* One cell of a line (Go's tabwriter.cell). */
typedef struct gh_tw_cell {
	size_t size;          /* cell size in bytes */
	int width;            /* cell width in runes */
	int htab;             /* true if the cell is terminated by an htab */
} gh_tw_cell;

/*
 * The writer.  Fields are private to tabwriter.c; the struct is public only
 * so that callers can keep it on the stack.  Initialise with
 * gh_tabwriter_init, release with gh_tabwriter_free.
 */
typedef struct gh_tabwriter {
	gh_buf *output;       /* not owned */
	int minwidth, tabwidth, padding;
	unsigned char padchar;
	unsigned flags;

	gh_buf text;          /* collected text without tabs or line breaks */
	size_t pos;           /* text position up to which cell.width counts */
	gh_tw_cell cell;      /* the current, incomplete cell */
	unsigned char end_char; /* end of the escaped section, or 0 */
	gh_tw_cell *cells;    /* the cells of all lines, line after line */
	size_t ncells, capcells;
	size_t *lines;        /* index in cells of each line's first cell */
	size_t nlines, caplines;
	int *widths;          /* column widths during format (a stack) */
	size_t nwidths, capwidths;
	gh_buf scratch;       /* for gh_tabwriter_printf */
	unsigned char special[256]; /* bytes Write reacts to (per flags) */
	int oom;              /* sticky: an allocation failed */
} gh_tabwriter;

/*
 * tabwriter.NewWriter(output, minwidth, tabwidth, padding, padchar, flags).
 * Output goes to `output` (appended; the caller owns it).  Cannot fail:
 * allocation failures are remembered and reported by gh_tabwriter_flush.
 */
void gh_tabwriter_init(gh_tabwriter *tw, gh_buf *output, int minwidth,
		       int tabwidth, int padding, unsigned char padchar,
		       unsigned flags);

/* Writer.Write: feed bytes; text is emitted when a block is complete. */
void gh_tabwriter_write(gh_tabwriter *tw, const void *p, size_t n);

/* Fprintf(tw, ...) with C format directives. */
void gh_tabwriter_printf(gh_tabwriter *tw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writer.Flush: 0, or GOHEAP_ENOMEM if anything failed since init. */
int gh_tabwriter_flush(gh_tabwriter *tw);

/* Release the writer's memory (not the output buffer). */
void gh_tabwriter_free(gh_tabwriter *tw);


#endif

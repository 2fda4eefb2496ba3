/*
 * goquote.h - Go's strconv.Quote (fmt's %q of a string) and
 * strconv.IsPrint, with IsPrint's tables copied from the toolchains
 * (scripts/gen-isprint.py), one set per Unicode version.
 */
#ifndef GH_GOQUOTE_H
#define GH_GOQUOTE_H

#include <stddef.h>
#include <stdint.h>

#include "gh.h"

/* A set of strconv.IsPrint tables (src/strconv/isprint.go), named by the
 * major of the Unicode version they come from.  Which set a Go release
 * uses is a fact of its row (gh_rtlayout.unicode, rtlayout.c). */
typedef enum gh_unicode {
	GH_UNICODE_13 = 13,     /* 13.0.0: Go 1.16 to 1.20 (1.19 read) */
	GH_UNICODE_15 = 15,     /* 15.0.0: Go 1.21 to 1.26 */
	GH_UNICODE_17 = 17,     /* 17.0.0: Go 1.27 */
} gh_unicode;

/* The newest set, for callers with no release at hand. */
#define GH_UNICODE_NEWEST GH_UNICODE_17

/* The full Unicode version of set u ("15.0.0"), or NULL when go-heap has
 * no such set. */
const char *gh_unicode_version(gh_unicode u);

/* strconv.IsPrint(r) of the release whose tables are u: 1 when r is
 * printable as Go defines it (letters, marks, numbers, punctuation,
 * symbols and U+0020), else 0.  A u with no set is read as the newest. */
int gh_go_isprint(gh_unicode u, uint32_t r);

/* strconv.Quote of the n bytes at s, appended to b, with the IsPrint
 * tables u: '"', each valid rune as itself when printable, '\"' and '\\',
 * \a \b \f \n \r \t \v, other runes below 0x20 and 0x7f as \xNN, other
 * non-printable runes as \uNNNN or \UNNNNNNNN, each byte of invalid UTF-8
 * as \xNN, '"'. */
void gh_go_quote(gh_buf *b, const char *s, size_t n, gh_unicode u);

#endif

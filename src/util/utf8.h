/*
 * utf8.h - UTF-8 as Go's unicode/utf8 decodes it: the one validator of the
 * tree (strconv.Quote, text/tabwriter's cell widths, the goroutine
 * writers' label quoting).
 */
#ifndef GH_UTF8_H
#define GH_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* utf8.DecodeRune: the width of the valid sequence at p[0..n) (n >= 1; its
 * rune in *r unless r is NULL), or 0 where Go returns (RuneError, 1): a
 * stray continuation or bad lead byte, a truncated sequence, an overlong
 * form, a surrogate, a rune above U+10FFFF. */
size_t gh_utf8_decode(const unsigned char *p, size_t n, uint32_t *r);

/* utf8.RuneCount: runes in p[0..n), an invalid byte counting as one. */
size_t gh_utf8_rune_count(const unsigned char *p, size_t n);

#endif

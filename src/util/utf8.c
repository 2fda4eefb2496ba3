/*
 * utf8.c - UTF-8 decoding as Go's unicode/utf8 (utf8.h).
 */
#include "config.h"

#include "utf8.h"

size_t gh_utf8_decode(const unsigned char *p, size_t n, uint32_t *r)
{
	uint32_t c;
	size_t k, i;

	if (p[0] < 0x80) {
		if (r != NULL)
			*r = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		k = 2, c = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		k = 3, c = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		k = 4, c = p[0] & 0x07u;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3fu);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	if (r != NULL)
		*r = c;
	return k;
}

size_t gh_utf8_rune_count(const unsigned char *p, size_t n)
{
	size_t i = 0, count = 0, k;

	while (i < n) {
		/* ASCII needs no decoding: the common case in symbols. */
		if (p[i] < 0x80) {
			i++;
		} else {
			k = gh_utf8_decode(p + i, n - i, NULL);
			i += k != 0 ? k : 1;
		}
		count++;
	}
	return count;
}

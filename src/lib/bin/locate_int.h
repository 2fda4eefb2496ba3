/*
 * locate_int.h - what the locator's files share (locate.c: anchors and
 * rules; decode.c: the Capstone decoder; goversion.c: the Go version of a
 * binary without .go.buildinfo; layoutguard.c: the layout guard).
 */
#ifndef GH_LOCATE_INT_H
#define GH_LOCATE_INT_H

#include "locate.h"

/* A Capstone decoder, loaded (dlopen) on its first use: GH_DECODER_INIT,
 * then gh_decoder_close.  No state outside it. */
struct cs_lib;
typedef struct gh_decoder {
	struct cs_lib *cs;
} gh_decoder;
#define GH_DECODER_INIT { NULL }

/* gh_decode_refs through d (the library loaded once for many calls). */
int gh_decoder_refs(gh_decoder *d, unsigned machine, const unsigned char *code,
		    size_t len, uint64_t addr, gh_refvec *out, gh_err *err);
void gh_decoder_close(gh_decoder *d);

/* One locate: the file, its symbolizer and bias, the decoder. */
typedef struct loc {
	const gh_exe *exe;
	const gh_sym *sym;
	uint64_t bias;
	unsigned ps;
	gh_err *err;
	gh_decoder *dec;      /* Capstone, loaded on the first decode */
} loc;

/* Where a data address lies, from the section headers: enum sec_class. */
enum sec_class {
	SEC_OTHER, SEC_BSS, SEC_NOPTRBSS, SEC_DATA, SEC_NOPTRDATA
};
int gh_loc_sec_class(const gh_exe *e, uint64_t addr, unsigned size);

/*
 * Decode the function `name` into `out` (link-time addresses).  Returns 0,
 * 1 when the pclntab has no such function (the linker drops unreachable
 * ones), or an error code.  *entry gets its link-time entry.
 */
int gh_loc_func_refs(const loc *L, const char *name, gh_refvec *out,
		     uint64_t *entry);

#endif

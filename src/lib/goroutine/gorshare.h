/*
 * gorshare.h - what the goroutine collector lends the other collectors
 * (-p retained's stacks and live pass): the bound on allgs, a g's span in
 * bytes and allgs read whole.  Its private state stays in goroutine_int.h.
 */
#ifndef GH_GORSHARE_H
#define GH_GORSHARE_H

#include <stdint.h>

#include "rtlayout.h"
#include "target.h"

#define GH_GOR_MAX_GS (1u << 22)       /* len(allgs) */

/* goroutine.c: the bytes of a g this release's readers need */
unsigned gor_g_span(const gh_rtlayout *l);
/* gorsnap.c: runtime.allgs ({ptr, len, cap} at addr): *arr, *len, or
 * ECORRUPT for a slice that cannot be (len > cap, more than GH_GOR_MAX_GS,
 * fewer than min entries, a nil array with entries) */
int gor_read_allgs(gh_target *tg, uint64_t addr, uint64_t min,
		   uint64_t *arr, uint64_t *len);

#endif

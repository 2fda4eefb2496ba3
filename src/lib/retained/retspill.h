/*
 * retspill.h - -p retained's arrays kept in an unlinked temporary file
 * while the dominators run (retspill.c, dominators.c).
 */
#ifndef GH_RETSPILL_H
#define GH_RETSPILL_H

#include "gh.h"

/* Graphs whose spillable arrays take more bytes than this spill them. */
#define GH_RET_SPILL_BYTES ((uint64_t)32 << 20)

typedef struct gh_ret_spill {
	int fd;               /* -1: not made yet */
	int failed;           /* made or written in vain: nothing spills */
	uint64_t end;         /* bytes written */
	struct {
		void **arr;   /* where the array goes back */
		size_t len;
		uint64_t at;  /* its offset in the file */
	} v[4];
	unsigned n;
} gh_ret_spill;

void gh_ret_spill_init(gh_ret_spill *sp);
/* *arr's len bytes to the file, *arr freed and NULL; when the file cannot
 * be made or written, *arr stays as it is. */
void gh_ret_spill_out(gh_ret_spill *sp, void **arr, size_t len);
/* Every array spilled back in memory (allocated anew) and the file
 * closed: 0, GOHEAP_ENOMEM or GOHEAP_EIO (then the arrays not read are
 * NULL). */
int gh_ret_spill_in(gh_ret_spill *sp);
void gh_ret_spill_close(gh_ret_spill *sp);

#endif

/*
 * rtlayout.h - Go runtime layouts an external reader depends on, per version.
 *
 * Every offset, size and constant of the runtime's profiling structures
 * lives in the one table in rtlayout.c; nothing else in the library may
 * hard-code them.
 */
#ifndef GH_RTLAYOUT_H
#define GH_RTLAYOUT_H

#include "gh.h"

typedef struct gh_rtlayout {
	int first_minor;        /* applies to go1.first_minor and later ... */
	int last_minor;         /* ... up to go1.last_minor */
	const char *cite;       /* where it comes from */
	/* runtime.bucket header, in pointer-sized words (6 words: 48 / 24 B) */
	unsigned bucket_words;
	unsigned w_allnext, w_typ, w_size, w_nstk;
	/* memRecordCycle: 4 words {allocs, frees, alloc_bytes, free_bytes}
	 * (<= 1.26) or 2 words {allocs, frees} (1.27: bytes = n x size) */
	unsigned cycle_words;
	/* mProfCycle holds (cycle << 1 | flushed) (1.19+) or the cycle. */
	int cycle_flag_bit;
	/* Largest nstk the runtime can record (maxStack / maxProfStackDepth). */
	unsigned max_stack;
	/* bucketType values */
	int typ_mem, typ_block, typ_mutex;
	/* blockRecord {count float64; cycles int64}: 16 bytes */
	unsigned blockrec_size;
	/* the mProfCycle wrap (mProfCycleWrap) */
	uint32_t cycle_wrap;
} gh_rtlayout;

/*
 * The layout for version v, or NULL when v is outside every known range
 * (unknown newer versions are refused, never guessed).
 */
const gh_rtlayout *gh_rtlayout_for(gh_gover v);

/* Oldest and newest supported minor versions, for messages. */
int gh_rtlayout_oldest(void);
int gh_rtlayout_newest(void);

#endif

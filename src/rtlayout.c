/*
 * rtlayout.c - the one table of Go runtime layouts, keyed by Go version.
 *
 * The heap profile lives in runtime.mbuckets: a list of runtime.bucket
 * headers, each followed by nstk PCs and a memRecord (src/runtime/mprof.go).
 * Only a handful of facts change between releases; they are here, each with
 * the source it was read from.  An unknown version (newer than the last
 * row) is refused with "unsupported runtime layout" rather than read with
 * a guess: a wrong layout would yield a plausible but wrong profile.
 */
#include "config.h"

#include "rtlayout.h"

static const gh_rtlayout layouts[] = {
	{
		/* Go 1.18: mProfCycle was a plain uint32 (the holder with its
		 * flushed bit came with 1.19).  Not checked against 1.18
		 * binaries: no 1.18 toolchain in the test bed. */
		.first_minor = 18, .last_minor = 18,
		.cite = "go1.18 src/runtime/mprof.go (unverified)",
		.bucket_words = 6, .w_allnext = 1, .w_typ = 2, .w_size = 4,
		.w_nstk = 5, .cycle_words = 4, .cycle_flag_bit = 0,
		.max_stack = 32, .typ_mem = 1, .typ_block = 2, .typ_mutex = 3,
		.blockrec_size = 16, .cycle_wrap = 3u * (2u << 24),
	},
	{
		/* type bucket, memRecord, mProfCycleHolder; maxStack = 32. */
		.first_minor = 19, .last_minor = 22,
		.cite = "go1.19/go1.21/go1.22 src/runtime/mprof.go",
		.bucket_words = 6, .w_allnext = 1, .w_typ = 2, .w_size = 4,
		.w_nstk = 5, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 32, .typ_mem = 1, .typ_block = 2, .typ_mutex = 3,
		.blockrec_size = 16, .cycle_wrap = 3u * (2u << 24),
	},
	{
		/* debug.profstackdepth (default 128) capped at
		 * maxProfStackDepth = 1024 (src/runtime/runtime1.go). 1.25 and
		 * 1.26 are assumed equal (1.26 checked by disassembly only). */
		.first_minor = 23, .last_minor = 26,
		.cite = "go1.23/go1.24 src/runtime/mprof.go, runtime1.go",
		.bucket_words = 6, .w_allnext = 1, .w_typ = 2, .w_size = 4,
		.w_nstk = 5, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 1024, .typ_mem = 1, .typ_block = 2,
		.typ_mutex = 3, .blockrec_size = 16,
		.cycle_wrap = 3u * (2u << 24),
	},
	{
		/* memRecordCycle shrank to {allocs, frees}; bytes are
		 * count x bucket.size (disassembly of mProf_FlushLocked in a
		 * go1.27.3 binary: index scaled by 16). */
		.first_minor = 27, .last_minor = 27,
		.cite = "go1.27 binaries (mProf_FlushLocked, memProfileInternal)",
		.bucket_words = 6, .w_allnext = 1, .w_typ = 2, .w_size = 4,
		.w_nstk = 5, .cycle_words = 2, .cycle_flag_bit = 1,
		.max_stack = 1024, .typ_mem = 1, .typ_block = 2,
		.typ_mutex = 3, .blockrec_size = 16,
		.cycle_wrap = 3u * (2u << 24),
	},
};

const gh_rtlayout *gh_rtlayout_for(gh_gover v)
{
	size_t i;

	if (v.major != 1)
		return NULL;
	for (i = 0; i < GH_ARRAY_LEN(layouts); i++) {
		if (v.minor >= layouts[i].first_minor &&
		    v.minor <= layouts[i].last_minor)
			return &layouts[i];
	}
	return NULL;
}

int gh_rtlayout_oldest(void)
{
	return layouts[0].first_minor;
}

int gh_rtlayout_newest(void)
{
	return layouts[GH_ARRAY_LEN(layouts) - 1].last_minor;
}

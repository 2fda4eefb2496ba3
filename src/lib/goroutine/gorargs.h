/*
 * gorargs.h - a traceback frame's argument list, as runtime.printArgs
 * (runtime/traceback.go, the same logic in 1.19 and 1.21-1.27) prints it.
 *
 * The compiler describes the arguments of each function in
 * FUNCDATA_ArgInfo (cmd/compile/internal/ssagen.emitArgInfo): a byte
 * stream of (offset, size) pairs, relative to the frame's argp, and the
 * operators 0xff end, 0xfe "{", 0xfd "}", 0xfc "...", 0xfb "_" (offset too
 * large).  With the register ABI the register arguments are printed from
 * their spill slots; FUNCDATA_ArgLiveInfo (its first byte: the lowest
 * spill-slot offset) and PCDATA_ArgLiveIndex (a byte index into it, per
 * pc) tell which slots are live: a dead one is followed by "?".
 *
 * The words are read from the target at collection time (the profile is
 * self-contained); the text is what sits between the parentheses.
 */
#ifndef GH_GORARGS_H
#define GH_GORARGS_H

#include "gh.h"
#include "sym.h"

/* abi.FUNCDATA_ArgInfo, FUNCDATA_ArgLiveInfo, PCDATA_ArgLiveIndex (every
 * supported release) */
#define GH_FUNCDATA_ARGINFO 5
#define GH_FUNCDATA_ARGLIVEINFO 6
#define GH_PCDATA_ARGLIVEINDEX 3

/* abi.TraceArgs* */
#define GH_TRACEARGS_ENDSEQ 0xffu
#define GH_TRACEARGS_STARTAGG 0xfeu
#define GH_TRACEARGS_ENDAGG 0xfdu
#define GH_TRACEARGS_DOTDOTDOT 0xfcu
#define GH_TRACEARGS_OFFSETTOOLARGE 0xfbu
/* abi.TraceArgsMaxLen = (maxDepth*3+2)*limit + 1: the runtime reads the
 * stream as a [TraceArgsMaxLen]uint8 */
#define GH_TRACEARGS_MAXLEN ((5 * 3 + 2) * 10 + 1)

/* Reads the 8 bytes at target address addr into *v (little- or
 * big-endian as the target): 0 or a GOHEAP_E* code. */
typedef int (*gh_gor_readfn)(void *ctx, uint64_t addr, uint64_t *v);

/*
 * The decoded inputs of printArgs for one frame.  info[0..ninfo): the
 * ArgInfo bytes that could be read (at most GH_TRACEARGS_MAXLEN); has_live:
 * ArgLiveInfo present, start_offset its first byte; liveidx:
 * pcdatavalue(ArgLiveIndex) at the frame's pc; bits[0..nbits): the
 * ArgLiveInfo bytes from liveidx on (slot i's bit: bits[i/8] >> (i%8)).
 */
typedef struct gh_gor_argin {
	const unsigned char *info;
	size_t ninfo;
	int has_live;
	uint8_t start_offset;
	int32_t liveidx;
	const unsigned char *bits;
	size_t nbits;
	uint64_t argp;
	gh_gor_readfn read;
	void *ctx;
	int big_endian;
} gh_gor_argin;

/*
 * printArgs' text (without the parentheses) appended to out.  0, or
 * GOHEAP_ECORRUPT when the stream runs past what was read or past
 * GH_TRACEARGS_MAXLEN (where the runtime would index out of range), a
 * liveness byte is missing, or a word cannot be read (then out holds a
 * partial text the caller should discard).
 */
int gh_gor_args_format(gh_buf *out, const gh_gor_argin *in);

/*
 * The same for the physical frame of function at runtime pc: ArgInfo and
 * ArgLiveInfo from the symbolizer, the liveness index at livepc
 * (1.21+: u.symPC(); 1.19: the tracepc left by the inline loop), the
 * words at argp (amd64: frame.fp = the caller's sp) through read.
 * 0: appended (nothing for a function without ArgInfo: "()");
 * GOHEAP_EUNSUPPORTED: the funcdata cannot be found (moduledata.gofunc
 * unknown); GOHEAP_ENOSYM: pc in no function; GOHEAP_ECORRUPT as above.
 */
int gh_gor_args(gh_buf *out, const gh_sym *sym, uint64_t pc,
		uint64_t livepc, uint64_t argp, gh_gor_readfn read, void *ctx,
		int big_endian);

/*
 * gh_gor_args in two steps, so that a caller printing many frames of the
 * same function at the same pc (goroutines parked alike) looks the
 * function data up once: gh_gor_argdesc_load fills *d from the symbolizer
 * (what depends on pc and livepc only) and returns what gh_gor_args would
 * return before reading any word (d->rc keeps it); gh_gor_argdesc_print
 * prints the frame at argp from *d (d->rc != 0: returns it, prints
 * nothing; d->none: a function without ArgInfo, prints nothing).
 */
typedef struct gh_gor_argdesc {
	int rc;
	int none;
	unsigned char info[GH_TRACEARGS_MAXLEN];
	size_t ninfo;
	int has_live;
	uint8_t start_offset;
	int32_t liveidx;
	unsigned char bits[32];
	size_t nbits;
} gh_gor_argdesc;

int gh_gor_argdesc_load(gh_gor_argdesc *d, const gh_sym *sym, uint64_t pc,
			uint64_t livepc);
int gh_gor_argdesc_print(gh_buf *out, const gh_gor_argdesc *d, uint64_t argp,
			 gh_gor_readfn read, void *ctx, int big_endian);

#endif

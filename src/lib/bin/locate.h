/*
 * locate.h - the runtime's profiling globals and Go version of binaries
 * without .symtab, DWARF or .go.buildinfo, and a guard that checks a
 * runtime layout against live data before it is trusted.
 *
 * Stripped Go binaries (-ldflags="-s -w") keep the pclntab: every function
 * can still be found by name.  The addresses of runtime.mbuckets and its
 * siblings are recovered by decoding the machine code of a few runtime
 * functions that load or store them (see locate.c and doc/decoder.md).
 */
#ifndef GH_LOCATE_H
#define GH_LOCATE_H

#include "exe.h"
#include "memsrc.h"
#include "rtaddrs.h"
#include "rtlayout.h"
#include "sym.h"

/* The largest function the locator decodes (bytes); bigger is hostile. */
#define GH_LOCATE_MAX_FUNC (1u << 20)
/* The most data references kept per function. */
#define GH_LOCATE_MAX_REFS 65536u

/* ---- the decoder ------------------------------------------------------ */

/* What an instruction does with a data address (bits, may combine). */
enum gh_ref_kind {
	GH_REF_ADDR = 1,   /* materialises it: lea, adrp+add */
	GH_REF_LOAD = 2,   /* reads `size` bytes there */
	GH_REF_STORE = 4   /* writes `size` bytes there */
};

/* One absolute data reference found in machine code. */
typedef struct gh_ref {
	uint64_t pc;       /* address of the instruction (as decoded) */
	uint64_t target;   /* the data address it refers to */
	unsigned size;     /* access size in bytes; 0 for GH_REF_ADDR */
	unsigned kind;     /* enum gh_ref_kind bits */
} gh_ref;

/* A growable array of references, owned by the caller. */
typedef struct gh_refvec {
	gh_ref *v;
	size_t n, cap;
} gh_refvec;

void gh_refvec_free(gh_refvec *rv);

/*
 * Decode code[0..len), which sits at address `addr`, for machine
 * `machine` (ELF e_machine: EM_X86_64 or EM_AARCH64), and append every
 * absolute data reference to `out`: RIP-relative operands on amd64;
 * ADRP-based addresses on arm64, with ADRP + ADD / LDR / STR / LDAR /
 * STLR ... tracked per register.  Undecodable bytes are skipped.
 * Returns 0, GOHEAP_ENOMEM, GOHEAP_ELIMIT (more than GH_LOCATE_MAX_REFS),
 * or GOHEAP_EUNSUPPORTED (other machine, or Capstone refuses it).
 */
int gh_decode_refs(unsigned machine, const unsigned char *code, size_t len,
		   uint64_t addr, gh_refvec *out, gh_err *err);

/* ---- the globals ------------------------------------------------------- */

/*
 * Fill `out` with the runtime addresses (link-time address + bias) of
 * runtime.mbuckets, bbuckets, xbuckets, mProfCycle and MemProfileRate
 * without using .symtab or DWARF: anchor functions are found by name in
 * the pclntab (`sym`, opened with the same bias) and their code decoded;
 * every candidate is cross-checked (section, alignment, file value,
 * agreement between anchors).  `ver` is the target's Go version ({0} if
 * unknown; used for the MemProfileRate section check).
 *
 * mbuckets, mProfCycle and MemProfileRate are required: if any cannot be
 * confirmed the result is GOHEAP_ENOSYM with a message naming it, and
 * `out` is zeroed.  bbuckets/xbuckets are left 0 when they cannot be
 * confirmed (the heap profile does not need them; `how` says so).
 * `how` (may be NULL) receives a short description of what was used, e.g.
 * "mbuckets via runtime.mProf_FlushLocked+0x20, ...".
 * For goroutine profiles, runtime.allgs (allgadd's three stored words,
 * confirmed by forEachG) and fingStatus/fingRunning (isSystemGoroutine,
 * confirmed by the finalizer loop) are located too; left 0 (and `how`
 * says so) when not confirmed.
 */
int gh_locate_globals(const gh_exe *exe, const gh_sym *sym, gh_gover ver,
		      uint64_t bias, gh_rtaddrs *out, char *how,
		      size_t howlen, gh_err *err);

/* ---- the Go version ---------------------------------------------------- */

/*
 * The Go version of a binary without .go.buildinfo: runtime.buildVersion,
 * found through runtime.schedinit's references to it (the string header
 * {ptr, len} in .data), else a scan of .rodata for "go1.N.P"; then
 * cross-checked against the pclntab magic and the section set
 * (.go.module => 1.26+, .go.type / .go.func => 1.27+).  `bias` is the
 * load bias `sym` was opened with.  On success *out is set and `verstr`
 * receives e.g. "go1.26.5 (inferred)".  GOHEAP_EVERSION when no version
 * is found or the evidence disagrees (the message says which).
 */
int gh_infer_go_version(const gh_exe *exe, const gh_sym *sym, uint64_t bias,
			gh_gover *out, char *verstr, size_t len, gh_err *err);

/*
 * The "go1.N[.P]" version strings in buf[0..n): 0 and the version when
 * every full "go1.N.P" there names the same release (or, if there is
 * none, every "go1.N"); GOHEAP_EVERSION when there is none or they
 * disagree.  `verstr` gets the plain string ("go1.26.5").  Exposed for
 * unit tests.
 */
int gh_scan_go_version(const unsigned char *buf, size_t n, gh_gover *out,
		       char *verstr, size_t len);

/* ---- the layout guard -------------------------------------------------- */


/*
 * Check `lay` against the target's live data before trusting it: the
 * globals are readable, the mProfCycle value is below the wrap, and along
 * runtime.mbuckets every bucket is aligned, has type memProfile, a size,
 * a stack depth within the layout's bound, and the allnext chain ends
 * (Brent's cycle check, at most GH_WALK_MAX_BUCKETS); the first
 * GH_LOCATE_GUARD_RECORDS records must be consistent with the layout's
 * memRecordCycle: frees <= allocs in active and, for the 4-word form,
 * bytes == count x size, while the 2-word form must *not* read like the
 * 4-word one.  The heads of bbuckets/xbuckets (if known) must have their
 * types.  Returns 0 or GOHEAP_EVERSION "unsupported runtime layout for
 * goX.Y: ..." (other codes for unreadable globals).  `how` (may be NULL)
 * gets a summary ("checked 812 buckets, 512 records").
 */
#define GH_LOCATE_GUARD_RECORDS 1024u
int gh_validate_layout(gh_mem *m, const gh_rtlayout *lay,
		       const gh_rtaddrs *a, gh_gover ver, char *how,
		       size_t howlen, gh_err *err);


#endif

/*
 * sym.h - symbolization from the Go pclntab (no DWARF needed).
 *
 * Reproduces what runtime.CallersFrames, runtime.FuncForPC and runtime/pprof's
 * helpers return for PCs recorded in profile buckets.  Reads .gopclntab (or
 * .data.rel.ro.gopclntab) and the function data from the executable file;
 * never touches the target.  PCs given to and returned by this module are
 * runtime addresses: the module subtracts/adds the load bias itself.
 */
#ifndef GH_SYM_H
#define GH_SYM_H

#include "exe.h"

typedef struct gh_sym gh_sym;

/* One frame, as runtime.Frame describes it. */
typedef struct gh_frame {
	uint64_t pc;          /* Frame.PC: pc-1 unless pc <= entry (runtime addr) */
	uint64_t entry;       /* Frame.Entry: the physical function's entry */
	const char *function; /* raw symbol name ("" if not found); e.g.
	                         "main.F[go.shape.int]" (owned by gh_sym) */
	const char *file;     /* "" if not found */
	int64_t line;         /* 0 if not found */
	int64_t start_line;   /* inline-aware start line (1.20+), else 0 */
	int inlined;          /* Frame.Func == nil: an inlined frame */
	uint8_t funcid;       /* abi.FuncID of the frame's function */
	/* 1: the tables this frame was read from are inconsistent (a name
	 * offset outside funcnametab or not at a name's start, an inline
	 * record outside the file, an inline tree with no moduledata.gofunc
	 * to find it): its name or its inlined callees cannot be trusted */
	int suspect;
} gh_frame;

/* A growable array of frames, owned by the caller (gh_framevec_free). */
typedef struct gh_framevec {
	gh_frame *v;
	size_t n, cap;
	size_t suspect;       /* suspect frames pushed so far (never reset by
	                         the symbolizer: writers read it at the end) */
} gh_framevec;

void gh_framevec_free(gh_framevec *fv);

/* Append one frame (the symbolizer's and the writers' one definition);
 * 0 or GOHEAP_ENOMEM.  Inline: the tests replace the symbolizer, so
 * nothing the writers need may live beside it in pclntab.c. */
static inline int gh_framevec_append(gh_framevec *fv, const gh_frame *f)
{
	if (fv->n == fv->cap) {
		size_t ncap = fv->cap ? 2 * fv->cap : 16;
		gh_frame *nv;

		if (ncap < fv->cap)
			return GOHEAP_ENOMEM;
		nv = gh_reallocarray(fv->v, ncap, sizeof(*nv));
		if (nv == NULL)
			return GOHEAP_ENOMEM;
		fv->v = nv;
		fv->cap = ncap;
	}
	fv->v[fv->n++] = *f;
	return 0;
}

/*
 * Load the pclntab of `exe`, with load bias `bias` (runtime = link + bias),
 * for a target of Go version `ver` ({0,0,0} = infer from the pclntab).
 * `exe` must outlive the symbolizer.
 */
int gh_sym_open(gh_sym **out, const gh_exe *exe, uint64_t bias,
		gh_gover ver, gh_err *err);
void gh_sym_close(gh_sym *s);

/*
 * Settle the release-dependent choices (moduledata.gofunc, the FuncID
 * numbering) for version `ver` once it is known, for a symbolizer opened
 * with {0,0,0} (a binary without .go.buildinfo, whose version is inferred
 * afterwards).  No-op for a version without a row.
 */
void gh_sym_set_version(gh_sym *s, gh_gover ver);

/* Number of functions; the pclntab magic (0xfffffff0, 0xfffffff1, ...). */
size_t gh_sym_nfunc(const gh_sym *s);
/* pcHeader magics (Go src/runtime/symtab.go, type pcHeader): Go 1.18-1.19
 * and 1.20+ (gh_sym_magic). */
#define GH_PCLN_MAGIC_118 0xfffffff0u
#define GH_PCLN_MAGIC_120 0xfffffff1u
uint32_t gh_sym_magic(const gh_sym *s);
/* runtime.firstmoduledata's link address (symbol, .go.module or found in
 * .noptrdata), 0 when not found; the target's copy is at it + bias. */
uint64_t gh_sym_moduledata(const gh_sym *s);

/*
 * runtime.CallersFrames(pcs) drained into `out` (appended), with Go 1.21+
 * semantics: inline expansion, synthesised virtual PCs for physical-only
 * stacks, wrapper elision.  runtime.goexit frames are returned like others.
 * A PC with no function gives {pc = pcs[i], function = "", file = ""}.
 * Returns 0 or GOHEAP_ENOMEM.
 */
int gh_sym_callers_frames(const gh_sym *s, const uint64_t *pcs, size_t n,
			  gh_framevec *out);

/*
 * runtime.FuncForPC(pc).Name(): the innermost (inlined) function at exactly
 * pc (not pc-1).  NULL when pc is in no function.
 */
const char *gh_sym_funcforpc_name(const gh_sym *s, uint64_t pc);

/*
 * runtime_expandFinalInlineFrame(stk): if the last PC is inside an inlined
 * call, append the virtual PCs of its inlined callers (as tracebackPCs would
 * have).  Writes a new array to *out (caller frees with free()).
 */
int gh_sym_expand_final_inline(const gh_sym *s, const uint64_t *pcs, size_t n,
			       uint64_t **out, size_t *nout);

/*
 * Function entry (runtime address) and raw name of the function containing
 * pc (pc itself, no decrement): 0 or GOHEAP_ENOSYM.
 */
int gh_sym_lookup(const gh_sym *s, uint64_t pc, uint64_t *entry,
		  const char **name);

/* Entry (runtime address) of a function by exact name: 0 or GOHEAP_ENOSYM. */
int gh_sym_func_entry(const gh_sym *s, const char *name, uint64_t *entry,
		      uint64_t *end);

/*
 * funcNameForPrint (Go 1.21+): "pkg.F[go.shape.int]" -> "pkg.F[...]".
 * Writes into buf (truncating), returns buf.
 */
const char *gh_func_name_for_print(const char *raw, char *buf, size_t len);

/*
 * The pc-value table decoder on its own (runtime pcvalue/step): the value
 * in effect at `targetpc` for the table at tab[0..len), for a function at
 * `entry`, with PC quantum `quantum` (pcHeader.minLC).  -1 when targetpc
 * is past the table or the table is truncated.  Exposed for unit tests.
 */
int32_t gh_pctab_value(const unsigned char *tab, size_t len, uint64_t entry,
		       unsigned quantum, uint64_t targetpc);

/* abi.FuncFlag bits (the same in every supported release). */
#define GH_FUNCFLAG_TOPFRAME 1u
#define GH_FUNCFLAG_SPWRITE 2u

/* What the runtime's stack unwinder needs of one function. */
typedef struct gh_funcinfo {
	uint64_t entry;       /* runtime address */
	const char *name;     /* raw name ("" if unnamed), owned by gh_sym */
	uint8_t funcid;       /* abi.FuncID */
	uint8_t flag;         /* abi.FuncFlag */
	int has_pcsp;         /* f.pcsp != 0 (an external function has none) */
	int32_t spdelta;      /* funcspdelta at the pc asked; -1: no value */
	int32_t args;         /* _func.args: argument bytes (INT32_MIN:
	                         unknown, reflect's stubs) */
} gh_funcinfo;

/* The function containing runtime pc: 0 or GOHEAP_ENOSYM. */
int gh_sym_funcinfo(const gh_sym *s, uint64_t pc, gh_funcinfo *out);

/*
 * tracebackPCs' inline expansion of one physical frame: the logical
 * frames' return PCs (uf.pc+1) for the frame whose symbolization PC is
 * sympc, innermost first, wrapper frames elided given the callee's
 * abi.FuncID in *callee (updated as the runtime updates calleeFuncID).
 * At most cap PCs are written; returns the number written.
 */
size_t gh_sym_inline_pcs(const gh_sym *s, uint64_t sympc, uint8_t *callee,
			 uint64_t *out, size_t cap);

/*
 * funcdata(f, idx) of the function containing runtime pc, from the
 * executable: at most want bytes from off bytes past its start into buf,
 * *got read.  0; GOHEAP_ENOSYM: no function or funcdata(f, idx) is nil;
 * GOHEAP_EUNSUPPORTED: present but moduledata.gofunc is unknown.
 */
int gh_sym_funcdata_read(const gh_sym *s, uint64_t pc, uint32_t idx,
			 uint64_t off, unsigned char *buf, size_t want,
			 size_t *got);

/* pcdatavalue(f, table, targetpc) of the function containing runtime pc
 * (runtime targetpc): -1 when absent. */
int32_t gh_sym_pcdata_value(const gh_sym *s, uint64_t pc, uint32_t table,
			    uint64_t targetpc);

#endif

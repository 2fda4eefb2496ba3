/*
 * pclntab.c - symbolization from the Go pclntab, as the runtime does it.
 *
 * The Go runtime symbolizes its own PCs with the pclntab (.gopclntab, or
 * .data.rel.ro.gopclntab in a PIE): a header, a sorted function table, one
 * _func record per function and compact pc-value tables.  This module
 * reads that table straight from the mapped executable (gh_exe) and
 * reimplements, function for function, the runtime code whose results go
 * into profiles: findfunc, pcvalue/step/readvarint, funcline1, the
 * inlineUnwinder, (*Frames).Next, FuncForPC,
 * runtime_expandFinalInlineFrame and funcNameForPrint (Go 1.22-1.24
 * src/runtime/symtab.go, symtabinl.go, traceback.go).  Keeping the same
 * names and the same order of operations is deliberate: the quirks (pc--
 * only when pc > entry, file "?" on bad tables, wrapper elision that
 * looks at the callee's funcID) are what make our output byte-identical
 * to runtime/pprof's.
 *
 * Supported tables: magic 0xfffffff0 (Go 1.18/1.19) and 0xfffffff1 (Go
 * 1.20 and later), 32- or 64-bit, either byte order.  Both have uint32
 * functab entries relative to textStart and funcdata offsets relative to
 * moduledata.gofunc.  Older magics are refused: their layout differs and
 * go-heap's runtime layouts start at 1.19 anyway.
 *
 * Everything is computed on demand from the mapping; the only index built
 * at open is a name-sorted array for gh_sym_func_entry.  There is no
 * cache of decoded values (the runtime keeps a per-M pcvalue cache; a
 * symbolizer whose callers cache by PC, as profile.c does, gains little
 * from a second one, and it would be mutable shared state).
 *
 * The table is untrusted: every offset is checked against the bounds of
 * the sub-table it indexes, strings must be NUL-terminated inside the
 * table, and inline chains are cut at GH_MAX_INLINE_DEPTH, so a hostile
 * file yields empty names or "?" rather than a crash or an endless loop.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "rtlayout.h"
#include "sym.h"

/* pcHeader magics (Go src/runtime/symtab.go, type pcHeader). */

/* abi.PCDATA_InlTreeIndex and abi.FUNCDATA_InlTree. */
#define GH_PCDATA_INLTREEINDEX 2
#define GH_FUNCDATA_INLTREE 3

/* Fixed part of _func: through nfuncdata (Go runtime2.go, type _func). */
#define GH_FUNC_SIZE_118 40
#define GH_FUNC_SIZE_120 44
/* inlinedCall: 20 bytes with a parent index (1.18/1.19), 16 after. */
#define GH_INLCALL_SIZE_118 20
#define GH_INLCALL_SIZE_120 16

/* No real inline chain is this deep; hostile tables can loop. */
#define GH_MAX_INLINE_DEPTH 1000

/*
 * moduledata's word indexes (text, gofunc) and the abi.FuncID numbering
 * used by wrapper elision are release facts: rtlayout.c has them.  Until
 * the release is known (a binary without .go.buildinfo, whose version is
 * inferred after the pclntab is open), they are chosen from the file
 * itself, and gh_sym_set_version settles them.
 */
typedef struct gh_funcids {
	uint8_t goexit, gopanic, panicwrap, sigpanic, systemstack_switch,
		wrapper;
} gh_funcids;

#define GH_FUNCID_NORMAL 0

typedef struct gh_byname {
	const char *name;
	uint32_t idx;
} gh_byname;

struct gh_sym {
	const gh_exe *exe;
	uint64_t bias;
	gh_gover ver;
	const gh_rtlayout *rt;    /* ver's row; NULL while unknown */
	uint64_t md;              /* link address of moduledata; 0 unknown */
	int gofunc_from_symbol;   /* go:func.* named by .symtab */

	const unsigned char *tab; /* pcHeader */
	uint64_t tablen;
	uint64_t tabaddr;         /* link address of pcHeader */
	uint32_t magic;
	int big;
	int old;                  /* 1.18/1.19 layouts */
	unsigned ptrsize;
	unsigned minlc;           /* sys.PCQuantum */
	uint64_t nfunc;
	uint64_t text;            /* link address of moduledata.text */

	/* Sub-tables as [start, end) offsets from tab. */
	uint64_t funcname_off, funcname_end;
	uint64_t cu_off, cu_end;
	uint64_t file_off, file_end;
	uint64_t pc_off, pc_end;
	uint64_t pcln_off, pcln_end;

	uint64_t gofunc;          /* link address of go:func.*; 0 unknown */
	gh_funcids ids;

	gh_byname *byname;        /* by function index */
	/* name -> the first function of that name (index; UINT32_MAX
	 * empty), open addressing: one pass where a sort of every name
	 * cost a tenth of a small profile's run. */
	uint32_t *nameidx;
	uint64_t namecap;         /* a power of two */
};

/* A decoded _func record (the runtime's funcInfo). */
typedef struct gh_func {
	uint64_t entry;           /* link address */
	int32_t nameoff;
	int32_t args;             /* _func.args (abi.ArgsSizeUnknown: -1<<31) */
	uint32_t pcfile, pcln, npcdata, cuoff, nfuncdata;
	int32_t startline;
	uint8_t funcid;
	uint8_t flag;             /* abi.FuncFlag */
	uint32_t pcsp;            /* pc-value table of the SP delta */
	uint64_t pcdata;          /* offset in tab of pcdata[0] */
} gh_func;

/* A srcFunc: a logical (possibly inlined) function. */
typedef struct gh_srcfunc {
	int32_t nameoff;
	int32_t startline;
	uint8_t funcid;
} gh_srcfunc;

/* An inlineFrame: pc (link) and index, plus validity (pc != 0). */
typedef struct gh_inlframe {
	uint64_t pc;
	int32_t index;
	int valid;
} gh_inlframe;

/* ---- raw access ---------------------------------------------------------- */

static int gh_fits(uint64_t off, uint64_t len, uint64_t end)
{
	return off <= end && len <= end - off;
}

static uint32_t gh_u32(const gh_sym *s, uint64_t off)
{
	return (uint32_t)gh_load(s->tab + off, 4, s->big);
}

static uint64_t gh_word(const gh_sym *s, uint64_t off)
{
	return gh_load(s->tab + off, s->ptrsize, s->big);
}

/* NUL-terminated string at tab[off], inside [off, end); "" otherwise. */
static const char *gh_str(const gh_sym *s, uint64_t off, uint64_t end)
{
	if (off >= end || end > s->tablen)
		return "";
	if (memchr(s->tab + off, '\0', (size_t)(end - off)) == NULL)
		return "";
	return (const char *)s->tab + off;
}

/* moduledata.funcName: nameOff 0 is "" (not the first name). */
static const char *gh_funcname(const gh_sym *s, int32_t nameoff)
{
	if (nameoff <= 0)
		return "";
	return gh_str(s, s->funcname_off + (uint64_t)nameoff, s->funcname_end);
}

/*
 * A name offset that cannot be right: outside funcnametab, unterminated,
 * or not at the start of a name (names are NUL-separated, so the byte
 * before one is NUL).  Such an offset yields a cut or foreign name.
 */
static int gh_funcname_bad(const gh_sym *s, int32_t nameoff)
{
	uint64_t off;

	if (nameoff <= 0)
		return nameoff < 0;
	off = s->funcname_off + (uint64_t)nameoff;
	if (off >= s->funcname_end || gh_funcname(s, nameoff)[0] == '\0')
		return 1;
	return s->tab[off - 1] != '\0';
}

/* ---- findfunc --------------------------------------------------------- */

static uint32_t gh_ftab_entryoff(const gh_sym *s, uint64_t i)
{
	return gh_u32(s, s->pcln_off + 8 * i);
}

static int gh_decode_func(const gh_sym *s, uint64_t i, gh_func *f)
{
	uint64_t base, fixed = s->old ? GH_FUNC_SIZE_118 : GH_FUNC_SIZE_120;
	const unsigned char *p;

	base = s->pcln_off + gh_u32(s, s->pcln_off + 8 * i + 4);
	if (!gh_fits(base, fixed, s->pcln_end))
		return -1;
	p = s->tab + base;
	f->entry = s->text + gh_load(p, 4, s->big);
	f->nameoff = (int32_t)gh_load(p + 4, 4, s->big);
	f->args = (int32_t)gh_load(p + 8, 4, s->big);
	f->pcsp = (uint32_t)gh_load(p + 16, 4, s->big);
	f->pcfile = (uint32_t)gh_load(p + 20, 4, s->big);
	f->pcln = (uint32_t)gh_load(p + 24, 4, s->big);
	f->npcdata = (uint32_t)gh_load(p + 28, 4, s->big);
	f->cuoff = (uint32_t)gh_load(p + 32, 4, s->big);
	if (s->old) {
		f->startline = 0;
		f->funcid = p[36];
		f->flag = p[37];
		f->nfuncdata = p[39];
	} else {
		f->startline = (int32_t)gh_load(p + 36, 4, s->big);
		f->funcid = p[40];
		f->flag = p[41];
		f->nfuncdata = p[43];
	}
	f->pcdata = base + fixed;
	/* Tables running off the pclntab are treated as absent. */
	if (!gh_fits(f->pcdata, 4 * ((uint64_t)f->npcdata + f->nfuncdata),
		     s->pcln_end)) {
		f->npcdata = 0;
		f->nfuncdata = 0;
	}
	return 0;
}

/*
 * findfunc(pc): the function whose [entry, next entry) holds pc (link
 * address).  The runtime uses the findfunctab bucket index; a binary
 * search of the sorted functab gives the same answer.  The module range
 * check is findmoduledatap's minpc <= pc < maxpc.
 */
static int gh_findfunc(const gh_sym *s, uint64_t pc, gh_func *f,
		       uint64_t *idx)
{
	uint64_t lo = 0, hi = s->nfunc, off, minpc, maxpc;

	if (s->nfunc == 0)
		return -1;
	minpc = s->text + gh_ftab_entryoff(s, 0);
	maxpc = s->text + gh_ftab_entryoff(s, s->nfunc);
	if (pc < minpc || pc >= maxpc)
		return -1;
	off = pc - s->text;
	if (off > UINT32_MAX)
		return -1;
	/* Last i in [0, nfunc) with entryoff(i) <= off. */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (gh_ftab_entryoff(s, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (idx != NULL)
		*idx = lo;
	return gh_decode_func(s, lo, f);
}

/* ---- pc-value tables ------------------------------------------------------- */

/*
 * readvarint (Go symtab.go): 7 bits a byte; the shift wraps at 32 the way
 * Go's `<< (shift & 31)` does.  Returns bytes read, 0 if the table ends.
 */
static size_t gh_readvarint(const unsigned char *p, size_t avail,
			    uint32_t *val)
{
	uint32_t v = 0, shift = 0;
	size_t n = 0;

	while (n < avail) {
		unsigned char b = p[n++];

		v |= (uint32_t)(b & 0x7f) << (shift & 31);
		if ((b & 0x80) == 0) {
			*val = v;
			return n;
		}
		shift += 7;
	}
	return 0;
}

/*
 * step (Go symtab.go): advance one (value delta, pc delta) pair.  A zero
 * value delta ends the table, except as the very first entry.  Returns 0
 * at the end of the table (or of the bytes we have).
 */
static int gh_step(const unsigned char **pp, const unsigned char *end,
		   uint64_t *pc, int32_t *val, int first, unsigned quantum)
{
	const unsigned char *p = *pp;
	uint32_t uvdelta, pcdelta;
	size_t n;

	if (p >= end)
		return 0;
	uvdelta = p[0];
	if (uvdelta == 0 && !first)
		return 0;
	n = gh_readvarint(p, (size_t)(end - p), &uvdelta);
	if (n == 0)
		return 0;
	/*
	 * Zig-zag: -(uv&1) ^ (uv>>1).  Go's int32 addition wraps; do it in
	 * uint32 so that a hostile table is not undefined behaviour here.
	 */
	*val = (int32_t)((uint32_t)*val +
			 ((0u - (uvdelta & 1)) ^ (uvdelta >> 1)));
	p += n;
	n = gh_readvarint(p, (size_t)(end - p), &pcdelta);
	if (n == 0)
		return 0;
	p += n;
	*pc += (uint32_t)(pcdelta * quantum);
	*pp = p;
	return 1;
}

/*
 * pcvalue(f, off, targetpc, strict=false): the table value in effect at
 * targetpc, or -1.  Every step consumes at least two bytes, so the loop
 * ends within the table.
 */
int32_t gh_pctab_value(const unsigned char *tab, size_t len, uint64_t entry,
		       unsigned quantum, uint64_t targetpc)
{
	const unsigned char *p = tab, *end = tab + len;
	uint64_t pc = entry;
	int32_t val = -1;

	while (gh_step(&p, end, &pc, &val, pc == entry, quantum)) {
		if (targetpc < pc)
			return val;
	}
	return -1;
}

static int32_t gh_pcvalue(const gh_sym *s, const gh_func *f, uint32_t off,
			  uint64_t targetpc)
{
	if (off == 0 || !gh_fits(s->pc_off, off, s->pc_end))
		return -1;
	return gh_pctab_value(s->tab + s->pc_off + off,
			      (size_t)(s->pc_end - s->pc_off - off), f->entry,
			      s->minlc, targetpc);
}

static int32_t gh_pcdatavalue(const gh_sym *s, const gh_func *f,
			      uint32_t table, uint64_t targetpc)
{
	if (table >= f->npcdata)
		return -1;
	return gh_pcvalue(s, f, gh_u32(s, f->pcdata + 4 * (uint64_t)table),
			  targetpc);
}

/* funcdata(f, i) as a link address, 0 when absent. */
static uint64_t gh_funcdata(const gh_sym *s, const gh_func *f, uint32_t i)
{
	uint32_t off;

	if (i >= f->nfuncdata || s->gofunc == 0)
		return 0;
	off = gh_u32(s, f->pcdata + 4 * ((uint64_t)f->npcdata + i));
	if (off == UINT32_MAX)
		return 0;
	return s->gofunc + off;
}

/* funcfile + funcline1: "?" and 0 when the tables are inconsistent. */
static const char *gh_funcline1(const gh_sym *s, const gh_func *f,
				uint64_t pc, int64_t *line)
{
	int32_t fileno = gh_pcvalue(s, f, f->pcfile, pc);
	int32_t ln = gh_pcvalue(s, f, f->pcln, pc);
	uint64_t cu;
	uint32_t fileoff;

	*line = 0;
	if (fileno == -1 || ln == -1 ||
	    (fileno >= 0 && (uint64_t)fileno >= s->file_end - s->file_off))
		return "?";
	/* cutab[cuOffset + uint32(fileno)], bounds-checked. */
	cu = s->cu_off + 4 * (uint64_t)(uint32_t)(f->cuoff + (uint32_t)fileno);
	if (!gh_fits(cu, 4, s->cu_end))
		return "?";
	fileoff = gh_u32(s, cu);
	if (fileoff == UINT32_MAX)
		return "?";
	*line = ln;
	return gh_str(s, s->file_off + fileoff, s->file_end);
}

/* ---- the inline unwinder ------------------------------------------------- */

/*
 * inlineUnwinder state: the physical function and its inline tree (link
 * address, 0 when the function has none, in which case every pc is the
 * outermost frame, as in newInlineUnwinder).
 */
typedef struct gh_inlunw {
	const gh_func *f;
	uint64_t tree;
} gh_inlunw;

static gh_inlframe gh_inl_resolve(const gh_sym *s, const gh_inlunw *u,
				  uint64_t pc)
{
	gh_inlframe uf;

	uf.pc = pc;
	uf.valid = 1;
	uf.index = u->tree == 0 ? -1 :
		gh_pcdatavalue(s, u->f, GH_PCDATA_INLTREEINDEX, pc);
	return uf;
}

static gh_inlframe gh_inl_new(const gh_sym *s, gh_inlunw *u, const gh_func *f,
			      uint64_t pc)
{
	u->f = f;
	u->tree = gh_funcdata(s, f, GH_FUNCDATA_INLTREE);
	return gh_inl_resolve(s, u, pc);
}

/*
 * Read inlinedCall[index]: the callee's srcFunc and parentPc.  1.18/1.19
 * records are {parent int16, funcID u8, _, file, line, func_, parentPc};
 * 1.20+ are {funcID u8, _[3], nameOff, parentPc, startLine}.  The 1.19
 * parent index is not used: re-resolving InlTreeIndex at parentPc (as Go
 * 1.19's own gentraceback does) yields the same chain.
 */
static int gh_inl_record(const gh_sym *s, const gh_inlunw *u, int32_t index,
			 gh_srcfunc *sf, int32_t *parentpc)
{
	unsigned size = s->old ? GH_INLCALL_SIZE_118 : GH_INLCALL_SIZE_120;
	const unsigned char *p;

	if (index < 0 || u->tree == 0)
		return -1;
	p = gh_exe_ptr(s->exe, u->tree + (uint64_t)index * size, size);
	if (p == NULL)
		return -1;
	if (s->old) {
		sf->funcid = p[2];
		sf->nameoff = (int32_t)gh_load(p + 12, 4, s->big);
		sf->startline = 0;
		*parentpc = (int32_t)gh_load(p + 16, 4, s->big);
	} else {
		sf->funcid = p[0];
		sf->nameoff = (int32_t)gh_load(p + 4, 4, s->big);
		*parentpc = (int32_t)gh_load(p + 8, 4, s->big);
		sf->startline = (int32_t)gh_load(p + 12, 4, s->big);
	}
	return 0;
}

/*
 * The inline step of a frame cannot be trusted: the function has an
 * inline tree but no moduledata.gofunc to find it (its inlined callees
 * would silently vanish), or the record it names is outside the file.
 */
static int gh_inl_untrusted(const gh_sym *s, const gh_inlunw *u,
			    const gh_func *f, gh_inlframe uf)
{
	gh_srcfunc sf;
	int32_t parentpc;

	if (uf.index >= 0)
		return gh_inl_record(s, u, uf.index, &sf, &parentpc) != 0;
	if (s->gofunc != 0 || f->nfuncdata <= GH_FUNCDATA_INLTREE)
		return 0;
	return gh_u32(s, f->pcdata + 4 * ((uint64_t)f->npcdata +
					  GH_FUNCDATA_INLTREE)) != UINT32_MAX &&
	       gh_pcdatavalue(s, f, GH_PCDATA_INLTREEINDEX, uf.pc) >= 0;
}

/* u.srcFunc(uf); a bad record reads as an anonymous normal function. */
static gh_srcfunc gh_inl_srcfunc(const gh_sym *s, const gh_inlunw *u,
				 gh_inlframe uf)
{
	gh_srcfunc sf;
	int32_t parentpc;

	if (uf.index < 0) {
		sf.nameoff = u->f->nameoff;
		sf.startline = u->f->startline;
		sf.funcid = u->f->funcid;
		return sf;
	}
	if (gh_inl_record(s, u, uf.index, &sf, &parentpc) != 0) {
		sf.nameoff = 0;
		sf.startline = 0;
		sf.funcid = GH_FUNCID_NORMAL;
	}
	return sf;
}

/* u.next(uf): the logical caller; invalid after the physical frame. */
static gh_inlframe gh_inl_next(const gh_sym *s, const gh_inlunw *u,
			       gh_inlframe uf)
{
	gh_srcfunc sf;
	int32_t parentpc;

	if (uf.index < 0 ||
	    gh_inl_record(s, u, uf.index, &sf, &parentpc) != 0) {
		uf.valid = 0;
		uf.pc = 0;
		return uf;
	}
	uf = gh_inl_resolve(s, u, u->f->entry + (uint64_t)(int64_t)parentpc);
	/* uf.valid() is pc != 0, in runtime addresses. */
	if (uf.pc + s->bias == 0)
		uf.valid = 0;
	return uf;
}

/* elideWrapperCalling (Go traceback.go): keep wrappers that panicked. */
static int gh_elide_wrapper_calling(const gh_sym *s, uint8_t callee)
{
	return !(callee == s->ids.gopanic || callee == s->ids.sigpanic ||
		 callee == s->ids.panicwrap);
}

/* ---- locating the table ------------------------------------------------------ */

/* The slot of name in nameidx: its entry, or the empty slot for it. */
static uint64_t gh_name_slot(const gh_sym *s, const char *name)
{
	uint64_t i = gh_hash_str(name) & (s->namecap - 1);

	while (s->nameidx[i] != UINT32_MAX &&
	       strcmp(s->byname[s->nameidx[i]].name, name) != 0)
		i = (i + 1) & (s->namecap - 1);
	return i;
}

/*
 * The index of the first function named name; nfunc when absent.  With a
 * .symtab there is no name index (building it decodes every function and
 * hashes its name: ~1.5 ms at open for a 10 MB binary, for a handful of
 * lookups): the symbol's address is looked up in the pclntab and its
 * name checked there, and a name .symtab does not give is searched for
 * in table order (a miss costs one pass, as the index would have).
 */
static uint64_t gh_find_name(const gh_sym *s, const char *name)
{
	uint64_t addr, idx, k;
	uint32_t i;
	gh_func f;

	if (s->nameidx != NULL) {
		i = s->nameidx[gh_name_slot(s, name)];
		return i == UINT32_MAX ? s->nfunc : i;
	}
	if (gh_exe_symbol(s->exe, name, &addr, NULL) == 0 &&
	    gh_findfunc(s, addr, &f, &idx) == 0 && f.entry == addr &&
	    strcmp(gh_funcname(s, f.nameoff), name) == 0)
		return idx;
	for (k = 0; k < s->nfunc; k++)
		if (gh_decode_func(s, k, &f) == 0 &&
		    strcmp(gh_funcname(s, f.nameoff), name) == 0)
			return k;
	return s->nfunc;
}

/*
 * The address of runtime.firstmoduledata: the symbol, the .go.module
 * section (Go 1.26+), or, in a stripped binary, the .noptrdata word that
 * points at the pclntab and is followed by funcnametab's slice pointer.
 */
static uint64_t gh_find_moduledata(const gh_sym *s)
{
	const gh_exe *e = s->exe;
	const gh_section *sec;
	uint64_t addr = 0, off, w, fn;

	if (gh_exe_symbol(e, "runtime.firstmoduledata", &addr, NULL) == 0)
		return addr;
	sec = gh_exe_section(e, ".go.module");
	if (sec != NULL)
		return sec->addr;
	sec = gh_exe_section(e, ".noptrdata");
	if (sec == NULL)
		return 0;
	fn = s->tabaddr + s->funcname_off;
	for (off = 0; off + 2 * (uint64_t)s->ptrsize <= sec->size;
	     off += s->ptrsize) {
		if (gh_exe_read_word(e, sec->addr + off, &w) != 0 ||
		    w != s->tabaddr)
			continue;
		if (gh_exe_read_word(e, sec->addr + off + s->ptrsize, &w) == 0 &&
		    w == fn)
			return sec->addr + off;
	}
	return 0;
}

static void gh_find_text(gh_sym *s, uint64_t md)
{
	const gh_exe *e = s->exe;
	const gh_section *sec;
	uint64_t v = 0;

	if (gh_exe_symbol(e, "runtime.text", &v, NULL) == 0) {
		s->text = v;
		return;
	}
	/* pcHeader.textStart: relocated in a PIE, 0 from Go 1.26 on. */
	if (gh_exe_read_word(e, s->tabaddr + 8 + 2 * (uint64_t)s->ptrsize,
			     &v) == 0 && v != 0) {
		s->text = v;
		return;
	}
	if (md != 0 &&
	    gh_exe_read_word(e, md + (s->rt != NULL ? s->rt->md_text : 22) *
				    (uint64_t)s->ptrsize, &v) == 0 &&
	    v != 0) {
		s->text = v;
		return;
	}
	sec = gh_exe_section(e, ".text");
	s->text = sec != NULL ? sec->addr : 0;
}

/*
 * moduledata.gofunc, the base of every funcdata offset (the inline trees
 * among them).  go:func.* from .symtab when there is one; else the word
 * of the release's row (38 in 1.18/1.19, 40 in 1.20-1.26, 43 in 1.27,
 * which added typedesclen, itaboffset and itabsize before it).  While the
 * release is unknown the file decides: the 1.18 pclntab magic, or the
 * .go.type section that 1.27 introduced.  (The .go.func section is not
 * it: it holds the function descriptors, go:funcdesc.)
 */
static void gh_find_gofunc(gh_sym *s, uint64_t md)
{
	const gh_exe *e = s->exe;
	uint64_t v = 0, idx;

	if (gh_exe_symbol(e, "go:func.*", &v, NULL) == 0 ||
	    gh_exe_symbol(e, "go.func.*", &v, NULL) == 0) {
		s->gofunc = v;
		s->gofunc_from_symbol = 1;
		return;
	}
	s->gofunc = 0;
	if (md == 0)
		return;
	if (s->rt != NULL)
		idx = s->rt->md_gofunc;
	else if (s->old)
		idx = 38;
	else if (gh_exe_section(e, ".go.type") != NULL ||
		 gh_exe_section(e, ".data.rel.ro.go.type") != NULL)
		idx = 43;
	else
		idx = 40;
	if (gh_exe_read_word(e, md + idx * s->ptrsize, &v) == 0 &&
	    gh_exe_section_at(e, v) != NULL)
		s->gofunc = v;
}

/*
 * The FuncID numbering: the release's row; while the release is unknown,
 * runtime.goexit's funcID tells 1.19-1.21 (7) from later (8), and
 * runtime.runFinalizers (1.25+) tells 1.22-1.24 from 1.25+.
 */
static void gh_find_funcids(gh_sym *s)
{
	static const gh_funcids ids119 = { 7, 9, 14, 18, 20, 21 };
	static const gh_funcids ids122 = { 8, 10, 15, 19, 21, 22 };
	static const gh_funcids ids125 = { 8, 10, 15, 20, 22, 23 };
	uint64_t i;
	gh_func f;

	if (s->rt != NULL) {
		s->ids.goexit = s->rt->funcid.goexit;
		s->ids.gopanic = s->rt->funcid.gopanic;
		s->ids.panicwrap = s->rt->funcid.panicwrap;
		s->ids.sigpanic = s->rt->funcid.sigpanic;
		s->ids.systemstack_switch = s->rt->funcid.systemstack_switch;
		s->ids.wrapper = s->rt->funcid.wrapper;
		return;
	}
	i = gh_find_name(s, "runtime.goexit");
	if (s->old || (i < s->nfunc &&
		       gh_decode_func(s, i, &f) == 0 &&
		       f.funcid == ids119.goexit))
		s->ids = ids119;
	else if (gh_find_name(s, "runtime.runFinalizers") < s->nfunc)
		s->ids = ids125;
	else
		s->ids = ids122;
}

static int gh_build_byname(gh_sym *s, gh_err *err)
{
	uint64_t i;

	s->byname = gh_calloc((size_t)s->nfunc, sizeof(*s->byname));
	if (s->byname == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "pclntab: out of memory");
	for (i = 0; i < s->nfunc; i++) {
		gh_func f;

		s->byname[i].idx = (uint32_t)i;
		s->byname[i].name = gh_decode_func(s, i, &f) == 0 ?
			gh_funcname(s, f.nameoff) : "";
	}
	if (s->nfunc >= UINT32_MAX / 4)
		return gh_errf(err, GOHEAP_ELIMIT, "pclntab: too many functions");
	for (s->namecap = 16; s->namecap < 2 * s->nfunc; s->namecap *= 2)
		;
	s->nameidx = malloc((size_t)s->namecap * sizeof(*s->nameidx));
	if (s->nameidx == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "pclntab: out of memory");
	memset(s->nameidx, 0xff, (size_t)s->namecap * sizeof(*s->nameidx));
	/* In table order: a duplicate name keeps its first function. */
	for (i = 0; i < s->nfunc; i++) {
		uint64_t k = gh_name_slot(s, s->byname[i].name);

		if (s->nameidx[k] == UINT32_MAX)
			s->nameidx[k] = (uint32_t)i;
	}
	return 0;
}

/* Parse and validate the header and sub-table bounds. */
static int gh_parse_header(gh_sym *s, gh_err *err)
{
	const char *path = gh_exe_path(s->exe);
	uint64_t w[8], hdr;
	unsigned i;

	if (s->tablen < 8)
		goto corrupt;
	s->big = gh_exe_big_endian(s->exe);
	s->magic = gh_u32(s, 0);
	if (s->magic != GH_PCLN_MAGIC_118 && s->magic != GH_PCLN_MAGIC_120)
		return gh_errf(err, GOHEAP_EVERSION,
			       "%s: pclntab magic %#x is not Go 1.18 or later",
			       path, (unsigned)s->magic);
	s->old = s->magic == GH_PCLN_MAGIC_118;
	s->minlc = s->tab[6];
	s->ptrsize = s->tab[7];
	if (s->tab[4] != 0 || s->tab[5] != 0 ||
	    (s->minlc != 1 && s->minlc != 2 && s->minlc != 4) ||
	    (s->ptrsize != 4 && s->ptrsize != 8))
		goto corrupt;
	hdr = 8 + 8 * (uint64_t)s->ptrsize;
	if (s->tablen < hdr)
		goto corrupt;
	for (i = 0; i < 8; i++)
		w[i] = gh_word(s, 8 + i * (uint64_t)s->ptrsize);
	/* nfunc, nfiles, textStart, funcname, cu, filetab, pctab, pcln. */
	s->nfunc = w[0];
	s->funcname_off = w[3];
	s->cu_off = w[4];
	s->file_off = w[5];
	s->pc_off = w[6];
	s->pcln_off = w[7];
	/* The linker lays the sub-tables out in this order. */
	if (s->funcname_off < hdr || s->cu_off < s->funcname_off ||
	    s->file_off < s->cu_off || s->pc_off < s->file_off ||
	    s->pcln_off < s->pc_off || s->pcln_off > s->tablen)
		goto corrupt;
	s->funcname_end = s->cu_off;
	s->cu_end = s->file_off;
	s->file_end = s->pc_off;
	s->pc_end = s->pcln_off;
	s->pcln_end = s->tablen;
	if (s->nfunc > UINT32_MAX ||
	    !gh_fits(s->pcln_off, 8 * (s->nfunc + 1), s->pcln_end))
		goto corrupt;
	return 0;
corrupt:
	return gh_errf(err, GOHEAP_ECORRUPT, "%s: corrupt pclntab header",
		       path);
}

/* .gopclntab, .data.rel.ro.gopclntab, or moduledata.pcHeader. */
static int gh_locate_table(gh_sym *s, gh_err *err)
{
	const gh_exe *e = s->exe;
	const gh_section *sec = gh_exe_section(e, ".gopclntab");
	uint64_t addr = 0;

	if (sec == NULL)
		sec = gh_exe_section(e, ".data.rel.ro.gopclntab");
	if (sec == NULL) {
		const gh_section *md = gh_exe_section(e, ".go.module");
		uint64_t mdaddr = md != NULL ? md->addr : 0;

		if (mdaddr == 0)
			gh_exe_symbol(e, "runtime.firstmoduledata", &mdaddr,
				      NULL);
		if (gh_exe_symbol(e, "runtime.pclntab", &addr, NULL) != 0 &&
		    (mdaddr == 0 || gh_exe_read_word(e, mdaddr, &addr) != 0))
			addr = 0;
		sec = addr != 0 ? gh_exe_section_at(e, addr) : NULL;
	}
	if (sec == NULL || sec->data == NULL)
		return gh_errf(err, GOHEAP_ENOTGO,
			       "%s: no .gopclntab section: not a Go program",
			       gh_exe_path(e));
	if (addr == 0)
		addr = sec->addr;
	s->tabaddr = addr;
	s->tab = sec->data + (addr - sec->addr);
	s->tablen = sec->size - (addr - sec->addr);
	return 0;
}

/* ---- public ---------------------------------------------------------------- */

void gh_framevec_free(gh_framevec *fv)
{
	if (fv == NULL)
		return;
	free(fv->v);
	fv->v = NULL;
	fv->n = fv->cap = 0;
}

void gh_sym_close(gh_sym *s)
{
	if (s == NULL)
		return;
	free(s->byname);
	free(s->nameidx);
	free(s);
}

int gh_sym_open(gh_sym **out, const gh_exe *exe, uint64_t bias,
		gh_gover ver, gh_err *err)
{
	gh_sym *s = NULL;
	uint64_t md;
	int rc;

	*out = NULL;
	s = gh_calloc(1, sizeof(*s));
	if (s == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "pclntab: out of memory");
	s->exe = exe;
	s->bias = bias;
	s->ver = ver;
	if (ver.major == 0)
		gh_gover_parse(&s->ver, gh_exe_go_version(exe));
	rc = gh_locate_table(s, err);
	if (rc == 0)
		rc = gh_parse_header(s, err);
	if (rc != 0)
		goto out;
	s->rt = gh_rtlayout_for(s->ver);
	md = gh_find_moduledata(s);
	s->md = md;
	gh_find_text(s, md);
	gh_find_gofunc(s, md);
	/* Stripped binaries look functions up by name a lot (locate.c):
	 * they get the index; others use .symtab (gh_find_name). */
	if (!gh_exe_has_symtab(exe)) {
		rc = gh_build_byname(s, err);
		if (rc != 0)
			goto out;
	}
	gh_find_funcids(s);
	*out = s;
	s = NULL;
out:
	gh_sym_close(s);
	return rc;
}

void gh_sym_set_version(gh_sym *s, gh_gover ver)
{
	const gh_rtlayout *rt = gh_rtlayout_for(ver);

	if (rt == NULL || rt == s->rt)
		return;
	s->ver = ver;
	s->rt = rt;
	if (!s->gofunc_from_symbol)
		gh_find_gofunc(s, s->md);
	gh_find_funcids(s);
}

size_t gh_sym_nfunc(const gh_sym *s)
{
	return (size_t)s->nfunc;
}

uint32_t gh_sym_magic(const gh_sym *s)
{
	return s->magic;
}

uint64_t gh_sym_moduledata(const gh_sym *s)
{
	return s->md;
}

/*
 * (*Frames).Next, drained (Go 1.23/1.24 src/runtime/symtab.go).  Worked
 * example, with leaf inlined into mid inlined into outer, called from a
 * physical function P at return address R:
 *
 *   Callers gives   [R_leaf, V_mid, V_outer, R_P]   (V = entry+parentPc+1)
 *   Next yields     leaf @R_leaf-1, mid @V_mid-1, outer @V_outer-1, P ...
 *
 * Given only the physical [R_leaf, R_P], after leaf (inlined) the next
 * input R_P is not the implied V_mid, so V_mid is synthesised, and in
 * turn V_outer; the frames come out the same.  Go 1.21/1.22 lack the
 * synthesis but agree on logical stacks, which is what buckets hold.
 * Note that nothing is synthesised after the last input PC.
 */
int gh_sym_callers_frames(const gh_sym *s, const uint64_t *pcs, size_t n,
			  gh_framevec *out)
{
	uint64_t nextpc = 0;
	int have_next = 0, nsynth = 0;
	size_t i = 0;

	while (i < n || have_next) {
		gh_frame fr;
		gh_func f;
		gh_inlunw u;
		gh_inlframe uf;
		gh_srcfunc sf;
		uint64_t pc;

		if (have_next) {
			pc = nextpc;
			have_next = 0;
			nsynth++;
		} else {
			pc = pcs[i++] - s->bias;
			nsynth = 0;
		}
		memset(&fr, 0, sizeof(fr));
		if (gh_findfunc(s, pc, &f, NULL) != 0) {
			/* sym.h: unknown PCs are reported, not dropped. */
			fr.pc = pc + s->bias;
			fr.function = "";
			fr.file = "";
			if (gh_framevec_append(out, &fr) != 0)
				return GOHEAP_ENOMEM;
			continue;
		}
		/* Return PC -> the call instruction, except at an entry. */
		if (pc > f.entry)
			pc--;
		uf = gh_inl_new(s, &u, &f, pc);
		sf = gh_inl_srcfunc(s, &u, uf);
		/*
		 * Real chains are finite; a hostile table could make each
		 * synthesised PC imply another, so bound them per input PC.
		 */
		if (uf.index >= 0 && nsynth < GH_MAX_INLINE_DEPTH) {
			gh_inlframe un = gh_inl_next(s, &u, uf);
			int depth = 0;

			for (; un.valid && i < n &&
			       pcs[i] - s->bias != un.pc + 1 &&
			       depth < GH_MAX_INLINE_DEPTH;
			     un = gh_inl_next(s, &u, un), depth++) {
				gh_srcfunc sn = gh_inl_srcfunc(s, &u, un);

				if (sn.funcid == s->ids.wrapper &&
				    gh_elide_wrapper_calling(s, sf.funcid))
					continue;
				nextpc = un.pc + 1;
				have_next = 1;
				break;
			}
		}
		fr.inlined = uf.index >= 0;
		fr.pc = pc + s->bias;
		fr.entry = f.entry + s->bias;
		fr.function = gh_funcname(s, sf.nameoff);
		fr.suspect = gh_funcname_bad(s, sf.nameoff) ||
			     gh_inl_untrusted(s, &u, &f, uf);
		out->suspect += fr.suspect != 0;
		fr.start_line = sf.startline;
		fr.funcid = sf.funcid;
		fr.file = gh_funcline1(s, &f, pc, &fr.line);
		if (gh_framevec_append(out, &fr) != 0)
			return GOHEAP_ENOMEM;
	}
	return 0;
}

/*
 * FuncForPC(pc).Name(): innermost function at pc itself (FuncForPC does
 * not back up to the call instruction).  Returns the raw symbol name;
 * Name() would also apply funcNameForPrint (gh_func_name_for_print).
 */
const char *gh_sym_funcforpc_name(const gh_sym *s, uint64_t pc)
{
	gh_func f;
	gh_inlunw u;
	gh_inlframe uf;

	pc -= s->bias;
	if (gh_findfunc(s, pc, &f, NULL) != 0)
		return NULL;
	uf = gh_inl_new(s, &u, &f, pc);
	return gh_funcname(s, gh_inl_srcfunc(s, &u, uf).nameoff);
}

int gh_sym_expand_final_inline(const gh_sym *s, const uint64_t *pcs, size_t n,
			       uint64_t **out, size_t *nout)
{
	uint64_t *v = NULL, tracepc;
	size_t nv = 0, cap;
	gh_func f;
	gh_inlunw u;
	gh_inlframe uf;
	uint8_t callee = GH_FUNCID_NORMAL;
	int depth = 0, expand = 0;

	*out = NULL;
	*nout = 0;
	if (n > 0) {
		tracepc = pcs[n - 1] - 1 - s->bias;
		if (gh_findfunc(s, tracepc, &f, NULL) == 0) {
			uf = gh_inl_new(s, &u, &f, tracepc);
			expand = uf.index >= 0;
		}
	}
	cap = n + (expand ? 16 : 0);
	v = gh_calloc(cap, sizeof(*v));
	if (v == NULL)
		return GOHEAP_ENOMEM;
	if (n > 0)
		memcpy(v, pcs, n * sizeof(*v));
	nv = n;
	if (expand) {
		/* Drop the last PC; the loop re-adds it as uf.pc+1. */
		nv--;
		for (; uf.valid && depth < GH_MAX_INLINE_DEPTH;
		     uf = gh_inl_next(s, &u, uf), depth++) {
			uint8_t id = gh_inl_srcfunc(s, &u, uf).funcid;

			if (!(id == s->ids.wrapper &&
			      gh_elide_wrapper_calling(s, callee))) {
				if (nv == cap) {
					uint64_t *nn = gh_reallocarray(
						v, 2 * cap, sizeof(*v));

					if (nn == NULL) {
						free(v);
						return GOHEAP_ENOMEM;
					}
					v = nn;
					cap *= 2;
				}
				v[nv++] = uf.pc + 1 + s->bias;
			}
			callee = id;
		}
	}
	*out = v;
	*nout = nv;
	return 0;
}

int gh_sym_lookup(const gh_sym *s, uint64_t pc, uint64_t *entry,
		  const char **name)
{
	gh_func f;

	if (gh_findfunc(s, pc - s->bias, &f, NULL) != 0)
		return GOHEAP_ENOSYM;
	if (entry != NULL)
		*entry = f.entry + s->bias;
	if (name != NULL)
		*name = gh_funcname(s, f.nameoff);
	return 0;
}

int gh_sym_func_entry(const gh_sym *s, const char *name, uint64_t *entry,
		      uint64_t *end)
{
	uint64_t i = gh_find_name(s, name), idx;
	gh_func f;

	if (i >= s->nfunc)
		return GOHEAP_ENOSYM;
	idx = i;
	if (gh_decode_func(s, idx, &f) != 0)
		return GOHEAP_ENOSYM;
	if (entry != NULL)
		*entry = f.entry + s->bias;
	if (end != NULL)
		*end = s->text + gh_ftab_entryoff(s, idx + 1) + s->bias;
	return 0;
}

/*
 * funcNameForPrint (Go 1.21+ src/runtime/traceback.go,
 * funcNamePiecesForPrint): "a[b]c" -> "a[...]c" between the first '[' and
 * the last ']'.  Go would panic on a '[' with no ']' at all; we keep the
 * name as it is.
 */
const char *gh_func_name_for_print(const char *raw, char *buf, size_t len)
{
	const char *lb, *rb;
	size_t a, c;

	if (len == 0)
		return buf;
	lb = strchr(raw, '[');
	rb = strrchr(raw, ']');
	if (lb == NULL || rb == NULL || rb <= lb) {
		snprintf(buf, len, "%s", raw);
		return buf;
	}
	a = (size_t)(lb - raw);
	c = strlen(rb + 1);
	snprintf(buf, len, "%.*s[...]%.*s", (int)a, raw, (int)c, rb + 1);
	return buf;
}

/*
 * What the runtime's unwinder reads of the function at pc (runtime
 * address): findfunc, funcspdelta (pcvalue of f.pcsp at pc itself, not
 * pc-1, as resolveInternal does), f.funcID and f.flag.
 */
int gh_sym_funcinfo(const gh_sym *s, uint64_t pc, gh_funcinfo *out)
{
	gh_func f;

	memset(out, 0, sizeof(*out));
	if (gh_findfunc(s, pc - s->bias, &f, NULL) != 0)
		return GOHEAP_ENOSYM;
	out->entry = f.entry + s->bias;
	out->name = gh_funcname(s, f.nameoff);
	out->funcid = f.funcid;
	out->flag = f.flag;
	out->args = f.args;
	out->has_pcsp = f.pcsp != 0;
	out->spdelta = f.pcsp != 0 ? gh_pcvalue(s, &f, f.pcsp, pc - s->bias) :
				     -1;
	return 0;
}

/*
 * The inline loop of tracebackPCs (traceback.go) for one physical frame
 * whose symbolization PC is sympc: every logical frame's "return PC"
 * uf.pc+1, innermost first, wrappers elided as elideWrapperCalling says
 * given the callee's funcID in *callee (updated).  Writes at most cap
 * PCs; returns how many.
 */
size_t gh_sym_inline_pcs(const gh_sym *s, uint64_t sympc, uint8_t *callee,
			 uint64_t *out, size_t cap)
{
	gh_func f;
	gh_inlunw u;
	gh_inlframe uf;
	size_t n = 0;
	int depth = 0;

	sympc -= s->bias;
	if (gh_findfunc(s, sympc, &f, NULL) != 0)
		return 0;
	for (uf = gh_inl_new(s, &u, &f, sympc);
	     n < cap && uf.valid && depth < GH_MAX_INLINE_DEPTH;
	     uf = gh_inl_next(s, &u, uf), depth++) {
		uint8_t id = gh_inl_srcfunc(s, &u, uf).funcid;

		if (!(id == s->ids.wrapper &&
		      gh_elide_wrapper_calling(s, *callee)))
			out[n++] = uf.pc + 1 + s->bias;
		*callee = id;
	}
	return n;
}

/* ---- funcdata / pcdata accessors (argument printing, gorargs.c) ------------ */

/*
 * funcdata(f, idx) of the function containing runtime pc, read from the
 * executable's file bytes: at most want bytes from off bytes past its
 * start into buf, *got of them (the rest is not file-backed).  0: read;
 * GOHEAP_ENOSYM: pc in no function, or funcdata(f, idx) is nil (idx >=
 * nfuncdata, offset ^0); GOHEAP_EUNSUPPORTED: the funcdata exists but
 * moduledata.gofunc, its base, is unknown.
 */
int gh_sym_funcdata_read(const gh_sym *s, uint64_t pc, uint32_t idx,
			 uint64_t off, unsigned char *buf, size_t want,
			 size_t *got)
{
	gh_func f;
	uint64_t base;
	size_t lo = 0, hi = want;

	*got = 0;
	if (gh_findfunc(s, pc - s->bias, &f, NULL) != 0 || idx >= f.nfuncdata ||
	    gh_u32(s, f.pcdata + 4 * ((uint64_t)f.npcdata + idx)) == UINT32_MAX)
		return GOHEAP_ENOSYM;
	base = gh_funcdata(s, &f, idx);
	if (base == 0)
		return GOHEAP_EUNSUPPORTED;
	if (base + off < base)
		return 0;
	/* the longest file-backed prefix (the PT_LOADs' file parts are
	 * contiguous: availability is monotone in the length) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;

		if (gh_exe_ptr(s->exe, base + off, mid) != NULL)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo > 0)
		memcpy(buf, gh_exe_ptr(s->exe, base + off, lo), lo);
	*got = lo;
	return 0;
}

/*
 * pcdatavalue(f, table, targetpc) for the function containing runtime pc,
 * targetpc a runtime address: -1 when pc is in no function, the table is
 * absent or has no value there.
 */
int32_t gh_sym_pcdata_value(const gh_sym *s, uint64_t pc, uint32_t table,
			    uint64_t targetpc)
{
	gh_func f;

	if (gh_findfunc(s, pc - s->bias, &f, NULL) != 0)
		return -1;
	return gh_pcdatavalue(s, &f, table, targetpc - s->bias);
}

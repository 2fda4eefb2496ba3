/*
 * goroutine.c - the goroutine profile, read from outside the program.
 *
 * runtime.goroutineProfileWithLabelsConcurrent (runtime/mprof.go, 1.19 to
 * 1.27) records, for every g in runtime.allgs that is not _Gdead and not
 * a system goroutine, saveg(^0, ^0, gp): an unwind from g.syscallpc/sp
 * (a goroutine in a system call) or g.sched.pc/sp, through tracebackPCs,
 * which expands inlined frames into "return PCs" of their own; and
 * g.labels.  This file does the same from the target's memory:
 *
 *   allgs {ptr, len, cap} -> each *g (offsets: the release's row of
 *   rtlayout.c) -> status, goid, startpc, labels -> the unwinder of
 *   runtime/traceback.go (resolveInternal / next), amd64 and arm64
 *   (gor_arch):
 *       amd64: fp = sp + funcspdelta(f, pc) + 8; lr = *(fp - 8)
 *       arm64: fp = sp + funcspdelta(f, pc); lr = *sp (the link
 *              register for an innermost frame not yet set up)
 *   stopping at a TOPFRAME (goexit) or SPWRITE function, an unknown
 *   return PC, the stack-depth limit of the release.
 *
 * Nothing here trusts the target: a g pointer into nowhere skips that
 * goroutine (counted in the profile's note), a stack pointer leaving the
 * goroutine's stack bounds or a frame that does not advance ends its
 * traceback (marked partial), every count is bounded.
 */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "goroutine.h"
#include "gorargs.h"

typedef struct gor_tmp {
	gh_goroutine g;
	size_t stk_off, lab_off, tb_off, anc_off;
	/* the snapshot: allgs index; replaced by a re-read while stopped;
	 * what it added to the note's partial and running-from-registers
	 * counts */
	uint32_t idx;
	unsigned char dropped, cnt_partial, cnt_regs;
} gor_tmp;

/*
 * The snapshot (issue 13, 3): one allgs slot as the unstopped read saw
 * it.  hash covers every g field the profile depends on (hdr_hash).
 */
typedef struct gor_hdr {
	uint64_t gp, hash;
	int32_t tmp;              /* index in gs, -1: not recorded */
	unsigned char flags;      /* GOR_HDR_* */
} gor_hdr;

#define GOR_HDR_UNREADABLE 1u
#define GOR_HDR_RUNNING 2u        /* _Grunning: always re-read stopped */
#define GOR_HDR_FING 4u           /* the finalizer goroutine */

typedef struct lab_tmp {
	size_t koff, voff, klen, vlen;  /* in strs (each NUL-terminated too) */
} lab_tmp;

/* One g.ancestors entry; its PCs at pc_off in the build's pcs pool. */
typedef struct anc_tmp {
	uint64_t goid, gopc;
	size_t pc_off, npcs;
} anc_tmp;

/* g.ancestors: at most this many entries a goroutine (the runtime keeps
 * GODEBUG=tracebackancestors of them), and ancestor PCs in all. */
#define GOR_MAX_ANCESTORS 1024u
#define GOR_MAX_ANC_PCS (4u << 20)

/*
 * The target architecture as the runtime's unwinder sees it (one place:
 * chosen once per collect from the executable's e_machine).
 * runtime/traceback.go: usesLR (arm64: the callee saves the return
 * address at *sp when it sets up its frame; amd64: CALL pushes it at
 * fp - 8), sys.MinFrameSize (argp = fp + MinFrameSize), the injected-call
 * adjustment on LR machines (frame.sp += alignUp(MinFrameSize,
 * StackAlign)); and the kernel's signal frame above runtime.sigtramp's
 * frame: where the interrupted pc, sp and lr (LR machines) lie, counted
 * from sigtramp's fp.
 */
typedef struct gor_arch {
	const char *name;
	unsigned uses_lr;         /* 1: arm64 */
	unsigned ret_push;        /* fp = sp + spdelta + ret_push */
	unsigned min_frame;       /* sys.MinFrameSize */
	unsigned trap_skip;       /* alignUp(MinFrameSize, StackAlign) */
	/* signal frame: fp of sigtramp + these (sig_lr 0: none) */
	unsigned sig_pc, sig_sp, sig_lr;
} gor_arch;

/* amd64: the rt_sigframe starts at sigtramp's fp - 8 (pretcode), the
 * ucontext at fp, uc_mcontext at +40, rsp and rip at 120 and 128 in
 * struct sigcontext. */
static const gor_arch gor_amd64 = {
	"amd64", 0, 8, 0, 0, 40 + 128, 40 + 120, 0
};
/* arm64: the kernel's sp at sigtramp's entry (its fp) is the rt_sigframe
 * {siginfo (128 bytes); ucontext}; uc_mcontext at 176 in the ucontext
 * (uc_flags, uc_link, uc_stack 24, uc_sigmask 8, 120 unused, aligned to
 * 16), struct sigcontext {fault_address; regs[31]; sp; pc; pstate}:
 * x30 at 8 + 240, sp at 256, pc at 264. */
static const gor_arch gor_arm64 = {
	"arm64", 1, 0, 8, 16, 128 + 176 + 264, 128 + 176 + 256,
	128 + 176 + 248
};

typedef struct gor_build {
	goheap_session *s;
	const gh_rtlayout *lay;
	const gor_arch *arch;
	gor_tmp *gs;
	size_t ngs, capgs;
	uint64_t *pcs;
	size_t npcs, cappcs;
	lab_tmp *labs;
	size_t nlabs, caplabs;
	anc_tmp *anc;             /* -f traceback: g.ancestors entries */
	size_t nanc, capanc, anc_pcs;
	size_t label_bytes;       /* keys and values read, for the bound */
	size_t label_cap;         /* the bound (gh_gor_collect) */
	gh_buf strs;
	uint64_t *frame;          /* one stack's PCs, max_pcs long */
	size_t max_pcs;
	/* -f traceback: one whole stack (tbframe, tbphys: GH_GOR_MAX_TB_FRAMES
	 * each), every goroutine's (tbpcs, tbphyss: ntb) and the target's
	 * nanotime() now (now_ok 0: unknown) */
	uint64_t *tbframe, *tbphys, *tbpcs, *tbphyss;
	size_t ntb, captb, captb2;
	/* -f traceback: per logical frame, 1 + offset in strs of its
	 * physical frame's argument list (gorargs.c), 0 none; parallel to
	 * tbpcs, room for one more whole stack past ntb */
	uint64_t *tbargs;
	size_t captb3;
	int64_t now;
	int now_ok;
	int fing_running;
	/* what went wrong, for the note */
	uint64_t unreadable, first_unreadable, partial, running;
	/* a core's threads (memsrc_core.c), NULL for other sources; running
	 * goroutines unwound from their thread's registers */
	const gh_thread_regs *threads;
	size_t nthreads;
	uint64_t running_regs;
	/* the snapshot's stop gave the threads' registers (a live source;
	 * a caller's source with a stop slot gives none) */
	int stop_regs;
	/* the snapshot: per allgs slot (NULL: no stop to come), and what
	 * one_g saw of the slot it read last */
	gor_hdr *hdr;
	size_t nhdr;
	uint32_t cur_idx;
	uint64_t cur_hash;
	unsigned cur_flags;
	/* gh_sym_funcinfo memoised by pc (goroutines share their PCs: a
	 * pclntab search per frame was a third of the walk) */
	struct gor_fmemo *fmemo;
	/* gh_gor_argdesc_load memoised by (pc, livepc), and
	 * gh_sym_inline_pcs by (sympc, callee): same reason */
	struct gor_amemo *amemo;
	struct gor_imemo *imemo;
	/* gor_read_word's window: aw[0..aw_n) holds the target's bytes at
	 * aw_lo, inside the stack [aw_stklo, aw_stkhi) being unwound */
	uint64_t aw_lo, aw_stklo, aw_stkhi;
	size_t aw_n;
	unsigned char aw[264];
} gor_build;

#define GOR_AMEMO_BITS 10
typedef struct gor_amemo {
	uint64_t pc, livepc;      /* pc 0: empty */
	gh_gor_argdesc d;
} gor_amemo;

#define GOR_IMEMO_BITS 12
#define GOR_IMEMO_PCS 14
typedef struct gor_imemo {
	uint64_t sympc;           /* 0: empty */
	uint8_t callee_in, callee_out;
	uint8_t k;
	uint64_t pcs[GOR_IMEMO_PCS];
} gor_imemo;

#define GOR_FMEMO_BITS 12
/* what the unwinder asks of a function's name, answered once per pc */
#define GOR_XF_CGOCALLBACK 1u    /* runtime.cgocallback */
#define GOR_XF_INJECTED 2u       /* sigpanic, asyncPreempt, debugCallV2 */
#define GOR_XF_SIGPANIC 4u       /* runtime.sigpanic */
typedef struct gor_fmemo {
	uint64_t pc;              /* 0: empty */
	int rc;
	unsigned xf;
	gh_funcinfo fi;
} gor_fmemo;

static unsigned name_flags(const char *name)
{
	if (name == NULL || strncmp(name, "runtime.", 8) != 0)
		return 0;
	name += 8;
	if (strcmp(name, "cgocallback") == 0)
		return GOR_XF_CGOCALLBACK;
	if (strcmp(name, "sigpanic") == 0)
		return GOR_XF_INJECTED | GOR_XF_SIGPANIC;
	if (strcmp(name, "asyncPreempt") == 0 ||
	    strcmp(name, "debugCallV2") == 0)
		return GOR_XF_INJECTED;
	return 0;
}

/* gh_sym_funcinfo through bd's memo (none: straight through); *xf (if
 * not NULL) the GOR_XF_* of its name. */
static int gor_funcinfo_xf(gor_build *bd, uint64_t pc, gh_funcinfo *out,
			   unsigned *xf)
{
	gor_fmemo *e;
	int rc;

	if (bd->fmemo == NULL || pc == 0) {
		rc = gh_sym_funcinfo(bd->s->sym, pc, out);
		if (xf != NULL)
			*xf = rc == 0 ? name_flags(out->name) : 0;
		return rc;
	}
	e = &bd->fmemo[(pc * 0x9e3779b97f4a7c15ull) >> (64 - GOR_FMEMO_BITS)];
	if (e->pc != pc) {
		e->rc = gh_sym_funcinfo(bd->s->sym, pc, &e->fi);
		e->xf = e->rc == 0 ? name_flags(e->fi.name) : 0;
		e->pc = pc;
	}
	*out = e->fi;
	if (xf != NULL)
		*xf = e->xf;
	return e->rc;
}

static int gor_funcinfo(gor_build *bd, uint64_t pc, gh_funcinfo *out)
{
	return gor_funcinfo_xf(bd, pc, out, NULL);
}

/* ---- labels ------------------------------------------------------------------ */

/* A Go {ptr, len} header at addr (a string, or a slice's first words),
 * with len at most max. */
static int read_ptr_len(gor_build *bd, uint64_t addr, uint64_t max,
			const char *what, uint64_t *ptr, uint64_t *len)
{
	gh_mem *m = &bd->s->mem;
	int rc;

	rc = gh_mem_read_ptr(m, addr, ptr, what);
	if (rc == 0)
		rc = gh_mem_read_ptr(m, addr + m->ptr_size, len, what);
	if (rc != 0)
		return rc;
	if (*len > max)
		return gh_errf(&bd->s->err, GOHEAP_ECORRUPT, "%s of length %llu",
			       what, (unsigned long long)*len);
	return 0;
}

/* A Go string {ptr, len} at addr: its len bytes (any, NUL included)
 * appended to strs at *off, then a NUL (for C-string readers). */
static int read_gostring(gor_build *bd, uint64_t addr, size_t *off,
			 size_t *n)
{
	gh_mem *m = &bd->s->mem;
	uint64_t ptr, len;
	int rc;

	rc = read_ptr_len(bd, addr, GH_GOR_MAX_LABEL_LEN, "label string",
			  &ptr, &len);
	if (rc != 0)
		return rc;
	/* every writer quotes every goroutine's labels: bounded in all */
	if (len > bd->label_cap - bd->label_bytes)
		return gh_errf(&bd->s->err, GOHEAP_ELIMIT, "labels over %zu "
			       "bytes in all", bd->label_cap);
	bd->label_bytes += (size_t)len;
	*off = bd->strs.len;
	if (gh_buf_reserve(&bd->strs, (size_t)len + 1) != 0)
		return GOHEAP_ENOMEM;
	if (len > 0) {
		rc = gh_mem_read(m, ptr, bd->strs.data + bd->strs.len,
				 (size_t)len, "label string");
		if (rc != 0)
			return rc;
	}
	bd->strs.len += (size_t)len;
	*n = (size_t)len;
	gh_buf_putc(&bd->strs, '\0');
	return bd->strs.oom ? GOHEAP_ENOMEM : 0;
}

static int push_label(gor_build *bd, uint64_t kaddr, uint64_t vaddr)
{
	lab_tmp *l;
	int rc;

	if (bd->nlabs - bd->gs[bd->ngs].lab_off >= GH_GOR_MAX_LABELS)
		return gh_errf(&bd->s->err, GOHEAP_ELIMIT, "over %u labels",
			       GH_GOR_MAX_LABELS);
	rc = gh_grow(&bd->labs, &bd->caplabs, bd->nlabs + 1,
		  sizeof(*bd->labs));
	if (rc != 0)
		return rc;
	l = &bd->labs[bd->nlabs];
	rc = read_gostring(bd, kaddr, &l->koff, &l->klen);
	if (rc == 0)
		rc = read_gostring(bd, vaddr, &l->voff, &l->vlen);
	if (rc == 0)
		bd->nlabs++;
	return rc;
}

/*
 * 1.24+: g.labels -> labelMap {list []label}, label {key, value string}
 * (runtime/pprof/label.go; internal/runtime/pprof/label.Set in 1.26+).
 */
static int read_labels_list(gor_build *bd, uint64_t lm)
{
	uint64_t ptr, len, i;
	int rc;

	rc = read_ptr_len(bd, lm, GH_GOR_MAX_LABELS, "labelMap", &ptr, &len);
	if (rc != 0)
		return rc;
	for (i = 0; i < len; i++) {
		rc = push_label(bd, ptr + 32 * i, ptr + 32 * i + 16);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Before 1.24: g.labels -> a labelMap variable, map[string]string, i.e. a
 * *hmap (runtime/map.go): {count, flags u8, B u8, noverflow u16, hash0
 * u32, buckets, oldbuckets, nevacuate, extra}; a bucket is tophash[8],
 * 8 keys, 8 values (16 bytes each), overflow: 272 bytes.  A slot is live
 * when tophash >= minTopHash (5); evacuated old slots hold 2..4, so
 * reading the new buckets and the old ones (if growing) gives each key
 * once.  Iteration order does not matter: String() sorts.
 */
static int read_hmap_buckets(gor_build *bd, uint64_t buckets, uint64_t nb,
			     uint64_t *left)
{
	gh_mem *m = &bd->s->mem;
	unsigned char bk[272];
	uint64_t i, b;
	int rc, j, chain;

	for (i = 0; i < nb && *left > 0; i++) {
		b = buckets + 272 * i;
		for (chain = 0; b != 0 && chain < 64; chain++) {
			rc = gh_mem_read(m, b, bk, sizeof(bk), "label map bucket");
			if (rc != 0)
				return rc;
			for (j = 0; j < 8; j++)
				if (bk[j] >= 5) {
					rc = push_label(bd, b + 8 + 16 * j,
							b + 136 + 16 * j);
					if (rc != 0)
						return rc;
					/* hmap.count keys found: no other
					 * slot is live */
					if (--*left == 0)
						return 0;
				}
			b = gh_mem_word(m, bk + 264, 8);
		}
	}
	return 0;
}

static int read_labels_hmap(gor_build *bd, uint64_t lm)
{
	gh_mem *m = &bd->s->mem;
	unsigned char h[48];
	uint64_t hp, count, buckets, old, nb;
	unsigned flags, B;
	int rc;

	rc = gh_mem_read_ptr(m, lm, &hp, "labelMap");
	if (rc != 0 || hp == 0)
		return rc;
	rc = gh_mem_read(m, hp, h, sizeof(h), "label map");
	if (rc != 0)
		return rc;
	count = gh_mem_word(m, h, 8);
	flags = h[8];
	B = h[9];
	buckets = gh_mem_word(m, h + 16, 8);
	old = gh_mem_word(m, h + 24, 8);
	if (count > GH_GOR_MAX_LABELS || B > 12)
		return gh_errf(&bd->s->err, GOHEAP_ECORRUPT,
			       "label map with %llu entries, B = %u",
			       (unsigned long long)count, B);
	if (count == 0)
		return 0;
	nb = (uint64_t)1 << B;
	rc = read_hmap_buckets(bd, buckets, nb, &count);
	if (rc == 0 && old != 0)
		rc = read_hmap_buckets(bd, old, (flags & 8) || B == 0 ?
				       nb : nb / 2, &count);
	return rc;
}

/* ---- the unwinder -------------------------------------------------------------- */

/*
 * The argument words of a traceback frame (gorargs.c's reader): through
 * a window of the goroutine's stack (one read for a frame's words instead
 * of one each; the window never leaves [lo, hi) of the stack being
 * unwound, set by unwind(), and is emptied there).
 */
static int gor_read_word(void *ctx, uint64_t addr, uint64_t *v)
{
	gor_build *bd = ctx;
	gh_mem *m = &bd->s->mem;
	size_t n;

	if (addr >= bd->aw_lo && addr - bd->aw_lo + 8 <= bd->aw_n) {
		*v = gh_mem_word(m, bd->aw + (addr - bd->aw_lo), 8);
		return 0;
	}
	bd->aw_n = 0;
	if (addr >= bd->aw_stklo && addr < bd->aw_stkhi &&
	    bd->aw_stkhi - addr >= 8) {
		n = bd->aw_stkhi - addr < sizeof(bd->aw) ?
		    (size_t)(bd->aw_stkhi - addr) : sizeof(bd->aw);
		if (gh_mem_read(m, addr, bd->aw, n, "argument words") == 0) {
			bd->aw_lo = addr;
			bd->aw_n = n;
			*v = gh_mem_word(m, bd->aw, 8);
			return 0;
		}
	}
	return gh_mem_read_ptr(m, addr, v, "argument word");
}

/*
 * -f traceback: printArgs of the physical frame at pc, whose k logical
 * frames are at index i.. of the stack being unwound, kept on the last
 * one (the physical frame; an elided wrapper's list is never printed).
 * argp: amd64's frame.argp = fp + sys.MinFrameSize (0).  livepc: the pc
 * whose PCDATA_ArgLiveIndex printArgs reads: u.symPC() in 1.21+; 1.19's
 * gentraceback passes its tracepc after the inline loop, the outermost
 * call's entry + parentPc, i.e. that frame's uf.pc (its "return PC" - 1).
 */
static int gor_args(gor_build *bd, uint64_t pc, uint64_t livepc,
		    uint64_t argp)
{
	gor_amemo *e;
	uint64_t h;

	if (bd->amemo == NULL || pc == 0)
		return gh_gor_args(&bd->strs, bd->s->sym, pc, livepc, argp,
				   gor_read_word, bd, 0);
	h = (pc ^ (livepc * 0x94d049bb133111ebull)) * 0x9e3779b97f4a7c15ull;
	e = &bd->amemo[h >> (64 - GOR_AMEMO_BITS)];
	if (e->pc != pc || e->livepc != livepc) {
		gh_gor_argdesc_load(&e->d, bd->s->sym, pc, livepc);
		e->pc = pc;
		e->livepc = livepc;
	}
	return gh_gor_argdesc_print(&bd->strs, &e->d, argp, gor_read_word, bd,
				    0);
}

/* gh_sym_inline_pcs through bd's memo */
static size_t gor_inline_pcs(gor_build *bd, uint64_t sympc, uint8_t *callee,
			     uint64_t *out, size_t cap)
{
	gor_imemo *e;
	size_t k;

	if (bd->imemo == NULL || sympc == 0 || cap < GOR_IMEMO_PCS)
		return gh_sym_inline_pcs(bd->s->sym, sympc, callee, out, cap);
	e = &bd->imemo[((sympc ^ *callee) * 0x9e3779b97f4a7c15ull) >>
		       (64 - GOR_IMEMO_BITS)];
	if (e->sympc == sympc && e->callee_in == *callee) {
		memcpy(out, e->pcs, e->k * sizeof(*out));
		*callee = e->callee_out;
		return e->k;
	}
	e->callee_in = *callee;
	k = gh_sym_inline_pcs(bd->s->sym, sympc, callee, out, cap);
	if (k < GOR_IMEMO_PCS) {   /* < cap: not truncated */
		memcpy(e->pcs, out, k * sizeof(*out));
		e->k = (uint8_t)k;
		e->callee_out = *callee;
		e->sympc = sympc;
	} else {
		e->sympc = 0;
	}
	return k;
}

static void tb_args(gor_build *bd, uint64_t pc, uint64_t livepc,
		    uint64_t argp, size_t i, size_t k)
{
	uint64_t *a = bd->tbargs;
	size_t off = bd->strs.len, j;

	if (a == NULL || k == 0)
		return;
	a += bd->ntb;
	for (j = 0; j < k; j++)
		a[i + j] = 0;
	if (gor_args(bd, pc, livepc, argp) == 0) {
		gh_buf_putc(&bd->strs, '\0');
		if (!bd->strs.oom) {
			a[i + k - 1] = (uint64_t)off + 1;
			return;
		}
	}
	if (!bd->strs.oom)
		bd->strs.len = off;
}

/*
 * saveg's unwind of one goroutine into bd->frame: 1 when it stopped on
 * implausible data (partial), 0 otherwise; *n the PCs recorded.
 */
static int unwind(gor_build *bd, uint64_t pc0, uint64_t sp0, uint64_t lr0,
		  int syscall, int trap0, uint64_t lo, uint64_t hi, size_t *n,
		  uint64_t *out, uint64_t *physpc, size_t cap, size_t physmax)
{
	const gor_arch *a = bd->arch;
	gh_mem *m = &bd->s->mem;
	/* flr: frame.lr before resolveInternal (LR machines: lr0 for the
	 * innermost frame, the injected-call slot, else 0) */
	uint64_t pc = pc0, sp = sp0, fp, lr, sympc, flr = a->uses_lr ? lr0 : 0;
	uint8_t callee = 0;
	/* trap0: pc0 is the instruction a thread was stopped at (its
	 * registers), not a resumption point: the runtime's unwinder then
	 * has unwindTrap (tracebacktrap), so the innermost frame is
	 * symbolized at pc itself and recorded as pc + 1 (1.19's
	 * gentraceback: _TraceTrap at n == 0, the same) */
	int innermost = 1, trap = trap0, regtrap = trap0, waspanic = 0;
	size_t k, phys = 0;
	gh_funcinfo fi, fl;
	unsigned xfi = 0, xfl = 0;

	*n = 0;
	bd->aw_n = 0;
	bd->aw_stklo = lo;
	bd->aw_stkhi = hi;
	if (sp < lo || sp >= hi)
		return 1;
	if (pc == 0) {
		/* a nil function call: start in the caller's frame */
		if (gh_mem_read_ptr(m, sp, &pc, "goroutine stack") != 0)
			return 1;
		if (a->uses_lr)
			flr = 0;
		else
			sp += 8;
	}
	if (gor_funcinfo_xf(bd, pc, &fi, &xfi) != 0)
		return 0;          /* unknown pc: the runtime records nothing */
	for (;;) {
		unsigned flag = fi.flag;

		if (!fi.has_pcsp)
			return 0;  /* external function: finishInternal */
		if ((xfi & GOR_XF_CGOCALLBACK) ||
		    (innermost && syscall && pc == pc0 && sp == sp0))
			flag &= ~GH_FUNCFLAG_SPWRITE;
		if (fi.spdelta < 0)
			return 1;
		fp = sp + (uint64_t)fi.spdelta + a->ret_push;
		lr = 0;
		if (flag & (GH_FUNCFLAG_TOPFRAME | GH_FUNCFLAG_SPWRITE)) {
			/* the top of the stack, or an SP write: stop */
		} else if (!a->uses_lr) {
			if (fp - 8 < lo || fp > hi ||
			    gh_mem_read_ptr(m, fp - 8, &lr,
					    "goroutine stack") != 0)
				return 1;
		} else {
			/* LR machine: a frame that has been set up (or
			 * any frame but the innermost) saved its return
			 * address at *sp; the innermost frame before its
			 * prologue still has it in the link register */
			if (fp > hi)
				return 1;
			lr = flr;
			if ((innermost && sp < fp) || lr == 0) {
				if (hi < 8 || sp > hi - 8 ||
				    gh_mem_read_ptr(m, sp, &lr,
						"goroutine stack") != 0)
					return 1;
			}
		}
		/* tracebackPCs: the logical frames of this physical one */
		sympc = !trap && pc > fi.entry ? pc - 1 : pc;
		k = gor_inline_pcs(bd, sympc, &callee, out + *n, cap - *n);
		/* 1.19's gentraceback records the physical pc itself (the
		 * profile; the traceback printer keeps uf.pc+1, physpc set),
		 * but pc+1 for the frame below runtime.sigpanic (waspanic;
		 * checked with goroutineprog -inject) */
		if (physpc == NULL && !bd->lay->gor_unwinder && k > 0 &&
		    !waspanic && !regtrap && out[*n] == sympc + 1)
			out[*n] = pc;
		for (size_t j = 0; physpc != NULL && j < k; j++)
			physpc[*n + j] = pc;
		if (physpc != NULL && k > 0)
			tb_args(bd, pc, bd->lay->tb_style == 0 ?
				out[*n + k - 1] - 1 : sympc, fp + a->min_frame,
				*n, k);
		*n += k;
		if (physpc != NULL && *n >= cap)
			return 1;  /* traceback longer than we keep */
		if (*n >= cap || lr == 0 || (physmax && phys + 1 >= physmax))
			return 0;
		if (gor_funcinfo_xf(bd, lr, &fl, &xfl) != 0)
			return 0;  /* unexpected return pc: stop, silently */
		if (pc == lr && sp == fp)
			return 1;  /* traceback stuck */
		if (++phys >= GH_GOR_MAX_PHYS_FRAMES)
			return 1;
		trap = (xfi & GOR_XF_INJECTED) != 0;
		regtrap = 0;
		waspanic = (xfi & GOR_XF_SIGPANIC) != 0;
		callee = fi.funcid;
		pc = lr;
		sp = fp;
		fi = fl;
		xfi = xfl;
		flr = 0;
		innermost = 0;
		if (a->uses_lr && trap) {
			/* sighandler saved the LR on the stack before faking
			 * the call (traceback.go next) */
			uint64_t x;

			if (sp < lo || hi < 8 || sp > hi - 8 ||
			    gh_mem_read_ptr(m, sp, &x, "goroutine stack") != 0)
				return 1;
			sp += a->trap_skip;
			if (fi.spdelta == 0)
				flr = x;
		}
		if (sp < lo || sp > hi)
			return 1;
	}
}

/* ---- running goroutines in cores ---------------------------------------------------- */

/* Bounds of the walk from a thread's registers to the signal frame. */
#define GOR_SIG_MAX_FRAMES 64
#define GOR_SIG_MAX_SPAN ((uint64_t)1 << 20)

/*
 * The registers a running goroutine (g at gp, stack [lo, hi)) really has,
 * from its thread in the core: g.m's procid names the thread (and m.curg
 * must be gp).  When the thread's sp is on the goroutine's stack (a core
 * taken with the thread stopped in Go code: gcore) they are the thread's
 * pc/sp (and lr on arm64); when it is elsewhere (g0 or gsignal: a kernel
 * core written from the runtime's crash handler), the thread's stack is
 * unwound through the pcsp tables (the architecture's rules: return
 * address at fp - 8 on amd64; at *sp, or in the link register for an
 * innermost frame not set up yet, on arm64) to runtime.sigtramp, the
 * frame the kernel called (its return address must be the signal
 * restorer: Go's runtime.sigreturn__sigaction, 1.19's runtime.sigreturn
 * on amd64, or one outside Go's code: libc's in cgo programs, the vdso's
 * on arm64), and the interrupted pc/sp (lr) are read from the kernel's
 * signal frame at sigtramp's fp (gor_arch.sig_*); the sp must be on the
 * goroutine's stack (else, a signal inside a handler, the walk goes on
 * from the interrupted registers) and the pc in Go code.  1 and *pc, *sp,
 * *lr set, or 0 (then g.sched is used, as live).
 */
static int running_regs(gor_build *bd, const unsigned char *gb, uint64_t gp,
			uint64_t lo, uint64_t hi, uint64_t *pc, uint64_t *sp,
			uint64_t *lr0)
{
	const gor_arch *a = bd->arch;
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->s->mem;
	const gh_thread_regs *t = NULL;
	uint64_t mp, procid, curg, p, q, sp0, lr, plr;
	gh_funcinfo fi, fl;
	size_t i;
	int k, innermost = 1;

	mp = gh_mem_word(m, gb + l->g_m, 8);
	if (mp == 0 || l->m_procid == 0 ||
	    gh_mem_read_ptr(m, mp + l->m_procid, &procid, "m.procid") != 0 ||
	    gh_mem_read_ptr(m, mp + l->m_curg, &curg, "m.curg") != 0 ||
	    curg != gp)
		return 0;
	for (i = 0; i < bd->nthreads; i++)
		if ((uint64_t)bd->threads[i].tid == procid) {
			t = &bd->threads[i];
			break;
		}
	if (t == NULL)
		return 0;
	if (t->sp >= lo && t->sp < hi &&
	    gh_sym_funcinfo(bd->s->sym, t->pc, &fi) == 0) {
		*pc = t->pc;
		*sp = t->sp;
		*lr0 = a->uses_lr ? t->lr : 0;
		return 1;
	}
	p = t->pc;
	q = sp0 = t->sp;
	plr = a->uses_lr ? t->lr : 0;
	for (k = 0; k < GOR_SIG_MAX_FRAMES; k++) {
		uint64_t fp;

		if (gh_sym_funcinfo(bd->s->sym, p, &fi) != 0 || !fi.has_pcsp ||
		    fi.spdelta < 0)
			return 0;
		fp = q + (uint64_t)fi.spdelta + a->ret_push;
		if (fp - sp0 > GOR_SIG_MAX_SPAN)
			return 0;
		if (!a->uses_lr) {
			if (gh_mem_read_ptr(m, fp - 8, &lr,
					    "thread stack") != 0)
				return 0;
		} else if ((innermost && q < fp) || plr == 0) {
			if (gh_mem_read_ptr(m, q, &lr, "thread stack") != 0)
				return 0;
		} else {
			lr = plr;
		}
		if (strcmp(fi.name, "runtime.sigtramp") == 0 ||
		    strcmp(fi.name, "runtime.cgoSigtramp") == 0) {
			/* the kernel called it: its return address is the
			 * restorer, Go's own or one outside Go (libc's in
			 * cgo programs, the vdso's on arm64); the kernel's
			 * signal frame is at fp */
			if (gh_sym_funcinfo(bd->s->sym, lr, &fl) == 0 &&
			    (lr != fl.entry ||
			     (strcmp(fl.name, "runtime.sigreturn__sigaction") &&
			      strcmp(fl.name, "runtime.sigreturn"))))
				return 0;
			*lr0 = 0;
			if (gh_mem_read_ptr(m, fp + a->sig_pc, pc,
					    "signal frame") != 0 ||
			    gh_mem_read_ptr(m, fp + a->sig_sp, sp,
					    "signal frame") != 0 ||
			    (a->sig_lr != 0 &&
			     gh_mem_read_ptr(m, fp + a->sig_lr, lr0,
					     "signal frame") != 0) ||
			    gh_sym_funcinfo(bd->s->sym, *pc, &fl) != 0)
				return 0;
			if (*sp >= lo && *sp < hi)
				return 1;
			/* a signal taken inside a signal handler (the
			 * crash thread's raise): go on from there */
			if (*sp <= fp || *sp - sp0 > GOR_SIG_MAX_SPAN)
				return 0;
			p = *pc;
			q = *sp;
			plr = *lr0;
			innermost = 1;
			continue;
		}
		/* frames grow the stack, but for an LR machine's innermost
		 * leaf (no frame: the return address in the link register) */
		if (fp < q || (fp == q && !(a->uses_lr && innermost)))
			return 0;
		p = lr;
		q = fp;
		plr = 0;
		innermost = 0;
	}
	return 0;
}

/* ---- isSystemGoroutine ------------------------------------------------------------ */

/*
 * isSystemGoroutine as goroutineProfileWithLabelsConcurrent applies it: the
 * finalizer goroutine is recorded only while it runs a finalizer
 * (fingStatus&fingRunningFinalizer, fingRunning in 1.19: it is checked
 * with fixed=false), a cleanup goroutine (1.25+, whose check moved to
 * doRecordGoroutineProfile with fixed=false) only while runningCleanups.
 */
static int is_system(gor_build *bd, uint64_t startpc, int running_cleanups)
{
	gh_funcinfo fi;

	if (gor_funcinfo(bd, startpc, &fi) != 0)
		return 0;
	if (strcmp(fi.name, "runtime.main") == 0 ||
	    strcmp(fi.name, "runtime.corostart") == 0 ||
	    strcmp(fi.name, "runtime.handleAsyncEvent") == 0)
		return 0;
	if (strcmp(fi.name, "runtime.runCleanups") == 0)
		return !running_cleanups;
	if (strcmp(fi.name, "runtime.runfinq") == 0 ||
	    strcmp(fi.name, "runtime.runFinalizers") == 0) {
		bd->cur_flags |= GOR_HDR_FING;
		return !bd->fing_running;
	}
	return strncmp(fi.name, "runtime.", 8) == 0;
}

static void read_fing(gor_build *bd)
{
	goheap_session *s = bd->s;
	uint64_t addr, v;

	if (!gh_exe_has_symtab(s->exe) && s->addrs.fing != 0) {
		/* stripped: located from machine code (locate.c find_fing) */
		if (gh_mem_read_uint(&s->mem, s->addrs.fing,
				     s->addrs.fing_size, &v,
				     "runtime.fingStatus") == 0)
			bd->fing_running = s->addrs.fing_size == 4 ?
					   (v & 2) != 0 : v != 0;
	} else if (gh_exe_symbol(s->exe, "runtime.fingStatus", &addr,
				 NULL) == 0) {
		if (gh_mem_read_uint(&s->mem, addr + s->bias, 4, &v,
				     "runtime.fingStatus") == 0)
			bd->fing_running = (v & 2) != 0;
	} else if (gh_exe_symbol(s->exe, "runtime.fingRunning", &addr,
				 NULL) == 0) {
		if (gh_mem_read_uint(&s->mem, addr + s->bias, 1, &v,
				     "runtime.fingRunning") == 0)
			bd->fing_running = v != 0;
	}
}

/* ---- one goroutine ---------------------------------------------------------------- */

static unsigned g_span(const gh_rtlayout *l)
{
	unsigned v[] = { l->g_m, l->g_sched + 8 * 7, l->g_syscallsp,
			 l->g_syscallpc, l->g_atomicstatus, l->g_goid,
			 l->g_waitsince, l->g_waitreason, l->g_gopc,
			 l->g_startpc, l->g_labels, l->g_parentgoid,
			 l->g_runningcleanups, l->g_lockedm, l->g_bubble,
			 l->g_ancestors };
	unsigned mx = 16;
	size_t i;

	for (i = 0; i < GH_ARRAY_LEN(v); i++)
		if (v[i] + 8 > mx)
			mx = v[i] + 8;
	return mx;
}

/*
 * The snapshot's fingerprint of one g: every field one_g and tb_record
 * read (a change in any of them re-reads the goroutine while stopped).
 * The stack itself is not read: a goroutine that does not run cannot
 * change its frames, and whatever moves them (running, GC stack
 * shrinking or growth) changes sched.sp/pc or the stack bounds.
 */
static uint64_t hdr_hash(const gor_build *bd, const unsigned char *gb)
{
	const gh_rtlayout *l = bd->lay;
	const gh_mem *m = &bd->s->mem;
	unsigned w8[] = { 8, l->g_sched + l->gobuf_pc,
			  l->g_sched + l->gobuf_sp, l->g_sched + l->gobuf_bp,
			  l->g_syscallsp, l->g_syscallpc, l->g_goid,
			  l->g_waitsince, l->g_gopc, l->g_startpc,
			  l->g_labels, l->g_parentgoid, l->g_lockedm, l->g_m,
			  l->g_sched + l->gobuf_lr, l->g_bubble };
	uint64_t h, k = 0x9e3779b97f4a7c15ull;
	size_t i;

	/* a sum of independent products (no serial chain: 100 000 g's are
	 * hashed while the target is stopped), mixed at the end; offsets 0
	 * are fields this release does not have (stack.lo, at 0, first) */
	h = gh_mem_word(m, gb, 8) * 0xff51afd7ed558ccdull +
	    (gh_mem_word(m, gb + l->g_atomicstatus, 4) |
	     (uint64_t)gb[l->g_waitreason] << 32 |
	     (uint64_t)(l->g_runningcleanups ? gb[l->g_runningcleanups] :
			0) << 40) * 0xc4ceb9fe1a85ec53ull;
	for (i = 0; i < GH_ARRAY_LEN(w8); i++) {
		k += 0x9e3779b97f4a7c16ull;   /* odd multipliers */
		if (w8[i] != 0)
			h += gh_mem_word(m, gb + w8[i], 8) * (k | 1);
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/* Count t's goroutine once as partial (the note's "N tracebacks
 * partial"): data beside its stack could not be read. */
static void mark_partial(gor_build *bd, gor_tmp *t)
{
	if (t->g.partial)
		return;
	t->g.partial = 1;
	bd->partial++;
	t->cnt_partial = 1;
}

/*
 * goroutineheader's synctest bubble: g.bubble (1.25+) -> synctestBubble.id,
 * g.syncGroup (1.24) -> synctestGroup.root -> its goid.  An unreadable
 * bubble leaves the id 0 and marks the goroutine partial (the note).
 */
static void tb_bubble(gor_build *bd, gor_tmp *t, const unsigned char *gb)
{
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->s->mem;
	gh_goroutine *g = &t->g;
	uint64_t bp, v;

	if (l->tb_bubble == 0 || l->g_bubble == 0)
		return;
	bp = gh_mem_word(m, gb + l->g_bubble, 8);
	if (bp == 0)
		return;
	g->in_bubble = 1;
	if (gh_mem_read_ptr(m, bp + l->bubble_id, &v, "synctest bubble") == 0 &&
	    (l->tb_bubble != 1 ||
	     gh_mem_read_ptr(m, v + l->g_goid, &v, "synctest group root") ==
	     0)) {
		g->bubble_id = v;
	} else {
		mark_partial(bd, t);
	}
}

/*
 * g.ancestors (GODEBUG=tracebackancestors=N: newproc1's saveAncestors):
 * *[]ancestorInfo {pcs []uintptr; goid; gopc}, 40 bytes an entry on
 * 64-bit targets (tests/dwarfcheck.c), each pcs at most the traceback's
 * inner-frame count (gcallers into an array of that size).  Unreadable
 * or implausible entries end the list and mark the goroutine partial.
 */
static int read_ancestors(gor_build *bd, gor_tmp *t,
			  const unsigned char *gb)
{
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->s->mem;
	gh_goroutine *g = &t->g;
	unsigned char hdr[24], ent[40];
	uint64_t ap, arr, n, i, pcs, npcs;
	uint64_t maxpcs = gh_rt_ancestor_pcs(l);
	size_t j;
	anc_tmp *a;
	int rc, bad = 0;

	t->anc_off = bd->nanc;
	g->nanc = 0;
	if (l->g_ancestors == 0)
		return 0;
	ap = gh_mem_word(m, gb + l->g_ancestors, 8);
	if (ap == 0)
		return 0;
	rc = gh_mem_read(m, ap, hdr, sizeof(hdr), "g.ancestors");
	if (rc == GOHEAP_ENOMEM || rc == GOHEAP_ETIMEDOUT)
		return rc;
	arr = gh_mem_word(m, hdr, 8);
	n = gh_mem_word(m, hdr + 8, 8);
	if (rc != 0 || n > GOR_MAX_ANCESTORS) {
		bad = 1;
		n = 0;
	}
	for (i = 0; i < n && !bad; i++) {
		rc = gh_mem_read(m, arr + i * sizeof(ent), ent, sizeof(ent),
				 "ancestorInfo");
		if (rc == GOHEAP_ENOMEM || rc == GOHEAP_ETIMEDOUT)
			return rc;
		pcs = gh_mem_word(m, ent, 8);
		npcs = gh_mem_word(m, ent + 8, 8);
		if (rc != 0 || npcs > maxpcs ||
		    bd->anc_pcs + npcs > GOR_MAX_ANC_PCS) {
			bad = 1;
			break;
		}
		rc = gh_grow(&bd->anc, &bd->capanc, bd->nanc + 1,
			     sizeof(*bd->anc));
		if (rc == 0)
			rc = gh_grow(&bd->pcs, &bd->cappcs,
				     bd->npcs + (size_t)npcs + 1,
				     sizeof(*bd->pcs));
		if (rc != 0)
			return rc;
		a = &bd->anc[bd->nanc];
		a->goid = gh_mem_word(m, ent + 24, 8);
		a->gopc = gh_mem_word(m, ent + 32, 8);
		a->pc_off = bd->npcs;
		a->npcs = (size_t)npcs;
		if (npcs > 0) {
			rc = gh_mem_read(m, pcs, bd->pcs + bd->npcs,
					 (size_t)npcs * 8, "ancestor PCs");
			if (rc == GOHEAP_ENOMEM || rc == GOHEAP_ETIMEDOUT)
				return rc;
			if (rc != 0) {
				bad = 1;
				break;
			}
			for (j = 0; j < npcs; j++)
				bd->pcs[bd->npcs + j] = gh_mem_word(m,
					(const unsigned char *)
					(bd->pcs + bd->npcs + j), 8);
		}
		bd->npcs += (size_t)npcs;
		bd->anc_pcs += (size_t)npcs;
		bd->nanc++;
		g->nanc++;
	}
	if (bad)
		mark_partial(bd, t);
	return 0;
}

/*
 * What the traceback printer (runtime.Stack(all)) needs beyond the
 * profile: goroutineheader's fields and the whole stack (traceback1: from
 * syscallpc/sp in _Gsyscall, else as saveg; 1.19: at most tb_max_phys
 * physical frames).
 */
static int tb_record(gor_build *bd, gor_tmp *t, const unsigned char *gb,
		     uint64_t pc0, uint64_t sp0, uint64_t lr0,
		     uint64_t syscallsp, uint64_t lo, uint64_t hi)
{
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->s->mem;
	gh_goroutine *g = &t->g;
	size_t n = 0;
	int rc;

	g->scan = (gh_mem_word(m, gb + l->g_atomicstatus, 4) & 0x1000u) != 0;
	g->locked = l->g_lockedm != 0 &&
		    gh_mem_word(m, gb + l->g_lockedm, 8) != 0;
	g->in_syscall = syscallsp != 0;
	g->wait_minutes = -1;
	if (g->status != GH_G_WAITING && g->status != GH_G_SYSCALL)
		g->wait_minutes = 0;
	else if (g->waitsince == 0)
		g->wait_minutes = 0;
	else if (bd->now_ok)
		/* Go's int64 wraps on a waitsince no clock gave */
		g->wait_minutes = gh_wsub(bd->now, g->waitsince) /
				  60000000000LL;
	if (g->status == GH_G_SYSCALL && syscallsp == 0)
		sp0 = 0;    /* traceback1 unwinds from syscallsp: nothing */
	if (bd->s->gor_no_tb) {
		/* goheap_options.no_traceback: no stack of its own */
		t->tb_off = bd->ntb;
		g->ntb = 0;
		t->anc_off = bd->nanc;
		g->nanc = 0;
		return 0;
	}
	/* room for this stack's argument lists (unwind -> tb_args) */
	if (bd->tbframe != NULL &&
	    gh_grow(&bd->tbargs, &bd->captb3,
		 bd->ntb + GH_GOR_MAX_TB_FRAMES, sizeof(*bd->tbargs)) != 0)
		return GOHEAP_ENOMEM;
	if (!g->partial && sp0 != 0 && bd->tbframe != NULL &&
	    unwind(bd, pc0, sp0, lr0, syscallsp != 0, t->cnt_regs, lo, hi, &n,
		   bd->tbframe,
		   bd->tbphys, GH_GOR_MAX_TB_FRAMES,
		   l->tb_style == 0 ? l->tb_max_phys : 0) != 0)
		g->partial = 1;
	rc = gh_grow(&bd->tbpcs, &bd->captb, bd->ntb + n,
		  sizeof(*bd->tbpcs));
	if (rc == 0)
		rc = gh_grow(&bd->tbphyss, &bd->captb2, bd->ntb + n,
			  sizeof(*bd->tbphyss));
	if (rc != 0)
		return rc;
	t->tb_off = bd->ntb;
	if (n > 0) {   /* none yet: tbpcs may still be NULL */
		memcpy(bd->tbpcs + bd->ntb, bd->tbframe, n * sizeof(uint64_t));
		memcpy(bd->tbphyss + bd->ntb, bd->tbphys,
		       n * sizeof(uint64_t));
	}
	bd->ntb += n;
	g->ntb = n;
	tb_bubble(bd, t, gb);
	return read_ancestors(bd, t, gb);
}

/* 0: done (recorded or left out); a GOHEAP_E* code only for ENOMEM and
 * time limits, which end the collection. */
static int one_g(gor_build *bd, uint64_t gp)
{
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->s->mem;
	unsigned char gb[512];
	unsigned span = g_span(l);
	gor_tmp *t;
	gh_goroutine *g;
	uint64_t lo, hi, syscallsp, pc0, sp0, lr0 = 0, labels;
	size_t n = 0;
	int rc;

	rc = gh_mem_read(m, gp, gb, span, "g");
	if (rc == GOHEAP_ETIMEDOUT || rc == GOHEAP_ENOMEM)
		return rc;
	if (rc != 0) {
		if (bd->unreadable++ == 0)
			bd->first_unreadable = gp;
		return 0;
	}
	rc = gh_grow(&bd->gs, &bd->capgs, bd->ngs + 1, sizeof(*bd->gs));
	if (rc != 0)
		return rc;
	t = &bd->gs[bd->ngs];
	memset(t, 0, sizeof(*t));
	t->idx = bd->cur_idx;
	g = &t->g;
	g->addr = gp;
	g->status = (uint32_t)gh_mem_word(m, gb + l->g_atomicstatus, 4) &
		    ~0x1000u;
	bd->cur_hash = hdr_hash(bd, gb);
	if (g->status == GH_G_RUNNING)
		bd->cur_flags |= GOR_HDR_RUNNING;
	/* _Gdead; _Gdeadextra (11, 1.26+: an extra M's g, never another
	 * meaning in earlier releases) */
	if (g->status == GH_G_DEAD || g->status == 11)
		return 0;
	g->startpc = gh_mem_word(m, gb + l->g_startpc, 8);
	if (is_system(bd, g->startpc, l->g_runningcleanups != 0 &&
		      gb[l->g_runningcleanups] != 0))
		return 0;
	g->goid = gh_mem_word(m, gb + l->g_goid, 8);
	g->parent_goid = l->g_parentgoid ?
		gh_mem_word(m, gb + l->g_parentgoid, 8) : 0;
	g->gopc = gh_mem_word(m, gb + l->g_gopc, 8);
	g->waitreason = gb[l->g_waitreason];
	g->waitsince = (int64_t)gh_mem_word(m, gb + l->g_waitsince, 8);
	lo = gh_mem_word(m, gb, 8);
	hi = gh_mem_word(m, gb + 8, 8);
	syscallsp = gh_mem_word(m, gb + l->g_syscallsp, 8);
	if (syscallsp != 0) {
		pc0 = gh_mem_word(m, gb + l->g_syscallpc, 8);
		sp0 = syscallsp;
	} else {
		pc0 = gh_mem_word(m, gb + l->g_sched + l->gobuf_pc, 8);
		sp0 = gh_mem_word(m, gb + l->g_sched + l->gobuf_sp, 8);
		lr0 = gh_mem_word(m, gb + l->g_sched + l->gobuf_lr, 8);
	}
	g->running = g->status == GH_G_RUNNING;
	bd->running += g->running != 0;
	if (g->running && bd->threads != NULL && syscallsp == 0 &&
	    running_regs(bd, gb, gp, lo, hi, &pc0, &sp0, &lr0)) {
		bd->running_regs++;
		t->cnt_regs = 1;
	}
	if (hi <= lo || hi - lo > ((uint64_t)1 << 32))
		g->partial = 1;     /* absurd stack bounds: no traceback */
	else
		g->partial = unwind(bd, pc0, sp0, lr0, syscallsp != 0,
				    t->cnt_regs, lo, hi, &n, bd->frame, NULL,
				    bd->max_pcs, 0);
	bd->partial += g->partial != 0;
	t->cnt_partial = g->partial != 0;
	rc = tb_record(bd, t, gb, pc0, sp0, lr0, syscallsp, lo, hi);
	if (rc != 0)
		return rc;
	rc = gh_grow(&bd->pcs, &bd->cappcs, bd->npcs + n,
		  sizeof(*bd->pcs));
	if (rc != 0)
		return rc;
	t->stk_off = bd->npcs;
	if (n > 0)     /* none yet: pcs may still be NULL */
		memcpy(bd->pcs + bd->npcs, bd->frame, n * sizeof(*bd->pcs));
	bd->npcs += n;
	g->nstk = n;

	t->lab_off = bd->nlabs;
	labels = gh_mem_word(m, gb + l->g_labels, 8);
	if (labels != 0) {
		size_t strs0 = bd->strs.len;

		g->has_labels = 1;
		rc = l->labels_list ? read_labels_list(bd, labels) :
				      read_labels_hmap(bd, labels);
		if (rc == GOHEAP_ENOMEM || rc == GOHEAP_ETIMEDOUT)
			return rc;
		if (rc != 0) {
			/* unreadable labels: none, goroutine marked (and
			 * counted in the note, as tb_bubble does) */
			bd->nlabs = t->lab_off;
			bd->strs.len = strs0;
			mark_partial(bd, t);
		}
	}
	g->nlabels = bd->nlabs - t->lab_off;
	bd->ngs++;
	return 0;
}

/* ---- freezing into one allocation --------------------------------------------------- */

static int freeze(gor_build *bd, gh_profile *p)
{
	/* one block: goroutines, labels, ancestors (all 8-byte words,
	 * so what follows stays aligned), PCs, the traceback's three
	 * arrays, strings */
	size_t szg = bd->ngs * sizeof(gh_goroutine);
	size_t szl = bd->nlabs * sizeof(gh_glabel);
	size_t sza = bd->nanc * sizeof(gh_gancestor);
	size_t szp = bd->npcs * sizeof(uint64_t);
	size_t szt = bd->ntb * sizeof(uint64_t);
	size_t total = szg + szl + sza + szp + 3 * szt + bd->strs.len + 8;
	size_t i, j;
	unsigned char *blk;
	gh_gancestor *anc;
	gh_glabel *labs;
	uint64_t *pcs, *tbp;
	char *strs;

	blk = gh_calloc(1, total);
	if (blk == NULL)
		return GOHEAP_ENOMEM;
	p->gors = (gh_goroutine *)blk;
	labs = (gh_glabel *)(blk + szg);
	anc = (gh_gancestor *)(blk + szg + szl);
	pcs = (uint64_t *)(blk + szg + szl + sza);
	tbp = pcs + bd->npcs;
	strs = (char *)(tbp + 3 * bd->ntb);
	if (szp > 0)
		memcpy(pcs, bd->pcs, szp);
	if (szt > 0) {
		memcpy(tbp, bd->tbpcs, szt);
		memcpy(tbp + bd->ntb, bd->tbphyss, szt);
		memcpy(tbp + 2 * bd->ntb, bd->tbargs, szt);
	}
	if (bd->strs.len > 0)
		memcpy(strs, bd->strs.data, bd->strs.len);
	for (i = 0; i < bd->nlabs; i++) {
		labs[i].key = strs + bd->labs[i].koff;
		labs[i].value = strs + bd->labs[i].voff;
		labs[i].klen = bd->labs[i].klen;
		labs[i].vlen = bd->labs[i].vlen;
	}
	for (i = 0; i < bd->nanc; i++) {
		anc[i].goid = bd->anc[i].goid;
		anc[i].gopc = bd->anc[i].gopc;
		anc[i].pcs = pcs + bd->anc[i].pc_off;
		anc[i].npcs = bd->anc[i].npcs;
	}
	for (i = 0; i < bd->ngs; i++) {
		p->gors[i] = bd->gs[i].g;
		p->gors[i].stk = pcs + bd->gs[i].stk_off;
		p->gors[i].labels = labs + bd->gs[i].lab_off;
		p->gors[i].anc = anc + bd->gs[i].anc_off;
		p->gors[i].tb_pcs = tbp + bd->gs[i].tb_off;
		p->gors[i].tb_phys = tbp + bd->ntb + bd->gs[i].tb_off;
		p->gors[i].tb_args = tbp + 2 * bd->ntb + bd->gs[i].tb_off;
		p->gors[i].tb_argstr = strs;
	}
	p->ngors = bd->ngs;
	p->pcpool = (uint64_t *)blk;
	p->recs = gh_calloc(bd->ngs ? bd->ngs : 1, sizeof(*p->recs));
	if (p->recs == NULL)
		return GOHEAP_ENOMEM;
	for (j = 0; j < bd->ngs; j++) {
		p->recs[j].count = 1;
		p->recs[j].stk = (uint64_t *)p->gors[j].stk;
		p->recs[j].nstk = p->gors[j].nstk;
		p->recs[j].bucket = p->gors[j].addr;
	}
	p->nrecs = bd->ngs;
	return 0;
}

/* ---- the snapshot (issue 13, 3) ------------------------------------------------- */

/*
 * One allgs slot: one_g, and what the snapshot must remember of it.
 */
static int snap_one(gor_build *bd, uint32_t idx, uint64_t gp)
{
	size_t ngs0 = bd->ngs;
	uint64_t unr0 = bd->unreadable;
	int rc;

	bd->cur_idx = idx;
	bd->cur_hash = 0;
	bd->cur_flags = 0;
	rc = one_g(bd, gp);
	if (rc != 0 || bd->hdr == NULL || idx >= bd->nhdr)
		return rc;
	bd->hdr[idx].gp = gp;
	bd->hdr[idx].hash = bd->cur_hash;
	bd->hdr[idx].flags = (unsigned char)(bd->cur_flags |
		(bd->unreadable != unr0 ? GOR_HDR_UNREADABLE : 0));
	bd->hdr[idx].tmp = bd->ngs != ngs0 ? (int32_t)(bd->ngs - 1) : -1;
	return 0;
}

/*
 * Re-read slot idx while stopped: its old record (if any) is dropped
 * and one_g appends the new one.
 */
static int snap_reread(gor_build *bd, uint32_t idx, uint64_t gp)
{
	if (idx < bd->nhdr && bd->hdr[idx].tmp >= 0)
		bd->gs[bd->hdr[idx].tmp].dropped = 1;
	if (idx < bd->nhdr && (bd->hdr[idx].flags & GOR_HDR_UNREADABLE))
		bd->unreadable--;
	return snap_one(bd, idx, gp);
}

/*
 * Bulk header reads: the g's sorted by address and merged into runs
 * (g's are heap objects of one size class, mostly adjacent), read with
 * one iovec a run: process_vm_readv's cost is per iovec (pinning the
 * target's pages), about 0.6 us each, against a few ns a byte copied.
 * The plan is made before the stop; only the reads happen during it.
 */
#define GOR_RUN_GAP 1024u            /* merge g's this close */
#define GOR_RUN_MAX 65536u           /* bytes of one run */
#define GOR_BATCH_BYTES (256u << 10)  /* run bytes per bulk read (cache-warm) */

typedef struct gor_ord {
	gor_hdr h;                /* a copy: read in address order */
	uint32_t idx;
} gor_ord;

typedef struct gor_plan {
	gor_ord *ord;             /* the slots by g address */
	size_t nord;
	uint64_t *raddr;          /* run r: raddr[r], rlen[r] bytes, slots */
	size_t *rlen, *rfirst;    /* ord[rfirst[r] .. rfirst[r + 1]) */
	size_t nruns;
	unsigned char *buf, *ok;  /* one batch's bytes, its runs' success */
	size_t bufsz;
} gor_plan;

static int ord_cmp(const void *a, const void *b)
{
	const gor_ord *x = a, *y = b;

	if (x->h.gp != y->h.gp)
		return x->h.gp < y->h.gp ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void plan_free(gor_plan *pl)
{
	free(pl->ord);
	free(pl->raddr);
	free(pl->rlen);
	free(pl->rfirst);
	free(pl->buf);
	free(pl->ok);
	memset(pl, 0, sizeof(*pl));
}

static int snap_plan(gor_build *bd, size_t n, gor_plan *pl)
{
	uint64_t span = g_span(bd->lay), end = 0;
	size_t i, r = 0, batch = 0;

	memset(pl, 0, sizeof(*pl));
	pl->ord = gh_calloc(n ? n : 1, sizeof(*pl->ord));
	pl->raddr = gh_calloc(n + 1, sizeof(*pl->raddr));
	pl->rlen = gh_calloc(n + 1, sizeof(*pl->rlen));
	pl->rfirst = gh_calloc(n + 1, sizeof(*pl->rfirst));
	if (pl->ord == NULL || pl->raddr == NULL || pl->rlen == NULL ||
	    pl->rfirst == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		pl->ord[i].h = bd->hdr[i];
		pl->ord[i].idx = (uint32_t)i;
	}
	pl->nord = n;
	if (n > 1)
		qsort(pl->ord, n, sizeof(*pl->ord), ord_cmp);
	for (i = 0; i < n; i++) {
		uint64_t gp = pl->ord[i].h.gp;

		if (gp + span < gp)
			gp = UINT64_MAX - span;   /* hostile: read fails */
		if (r > 0 && gp <= end + GOR_RUN_GAP &&
		    gp + span - pl->raddr[r - 1] <= GOR_RUN_MAX) {
			if (gp + span > end)
				end = gp + span;
			pl->rlen[r - 1] = (size_t)(end - pl->raddr[r - 1]);
			continue;
		}
		pl->raddr[r] = gp;
		pl->rlen[r] = (size_t)span;
		pl->rfirst[r] = i;
		end = gp + span;
		r++;
	}
	pl->nruns = r;
	pl->rfirst[r] = n;
	for (i = 0; i < r; i++)
		if ((batch += pl->rlen[i]) >= GOR_BATCH_BYTES)
			break;
	pl->bufsz = batch > GOR_BATCH_BYTES + GOR_RUN_MAX ?
		    GOR_BATCH_BYTES + GOR_RUN_MAX : batch;
	pl->buf = gh_calloc(pl->bufsz ? pl->bufsz : 1, 1);
	pl->ok = gh_calloc(r ? r : 1, 1);
	if (pl->buf == NULL || pl->ok == NULL)
		goto nomem;
	/* fault the buffer in now: not while the target waits */
	memset(pl->buf, 0xa5, pl->bufsz);
	return 0;
nomem:
	plan_free(pl);
	return GOHEAP_ENOMEM;
}

/* Did slot h change?  gb: its header now, NULL if unreadable. */
static int hdr_changed(const gor_build *bd, const gor_hdr *h,
		       const unsigned char *gb, int fing_changed)
{
	unsigned st;

	if (gb == NULL || (h->flags & (GOR_HDR_UNREADABLE | GOR_HDR_RUNNING)) ||
	    (fing_changed && (h->flags & GOR_HDR_FING)))
		return 1;
	st = (unsigned)gh_mem_word(&bd->s->mem, gb + bd->lay->g_atomicstatus,
				   4) & ~0x1000u;
	return st == GH_G_RUNNING || hdr_hash(bd, gb) != h->hash;
}

/*
 * Stopped: the g headers of the planned slots read again in bulk (for
 * a live target; else one read each); *chg gets the indexes of the
 * slots that changed (or are running, or were or are unreadable).
 */
static int snap_changed(gor_build *bd, gor_plan *pl, int fing_changed,
			uint32_t **chg, size_t *nchg)
{
	goheap_session *s = bd->s;
	unsigned span = g_span(bd->lay);
	unsigned char gb[512];
	size_t r0 = 0, r1, r, i, cap = 0, bytes, off;
	int rc = 0, bulk;

	*chg = NULL;
	*nchg = 0;
	while (r0 < pl->nruns) {
		for (r1 = r0, bytes = 0; r1 < pl->nruns &&
		     (r1 == r0 || bytes + pl->rlen[r1] <= pl->bufsz); r1++)
			bytes += pl->rlen[r1];
		bulk = s->caps->readv == NULL ? -1 :
		       s->caps->readv(s->ctx, pl->raddr + r0,
				     pl->rlen + r0, r1 - r0, pl->buf,
				     pl->ok + r0);
		if (bulk == GOHEAP_ENOPROC)
			return gh_errf(&s->err, bulk, "the target exited "
				       "while stopped");
		if (bulk != 0)
			memset(pl->ok + r0, 0, r1 - r0);
		for (r = r0, off = 0; r < r1; off += pl->rlen[r], r++) {
			for (i = pl->rfirst[r]; i < pl->rfirst[r + 1]; i++) {
				const gor_ord *o = &pl->ord[i];
				const unsigned char *p = NULL;

				if (pl->ok[r])
					p = pl->buf + off +
					    (o->h.gp - pl->raddr[r]);
				else if (gh_mem_read(&s->mem, o->h.gp, gb, span,
						     "g") == 0)
					p = gb;
				if (!hdr_changed(bd, &o->h, p,
						 fing_changed))
					continue;
				rc = gh_grow(chg, &cap, *nchg + 1,
					  sizeof(**chg));
				if (rc != 0)
					return rc;
				(*chg)[(*nchg)++] = o->idx;
			}
		}
		r0 = r1;
	}
	return 0;
}

/*
 * runtime.allgs ({ptr, len, cap} at addr): *arr, *len, or ECORRUPT for a
 * slice that cannot be (len > cap, more than GH_GOR_MAX_GS, fewer than
 * min entries: allgs only grows, a nil array with entries).
 */
static int read_allgs(goheap_session *s, uint64_t addr, uint64_t min,
		      uint64_t *arr, uint64_t *len)
{
	uint64_t cap;
	int rc;

	rc = gh_mem_read_ptr(&s->mem, addr, arr, "runtime.allgs");
	if (rc == 0)
		rc = gh_mem_read_ptr(&s->mem, addr + 8, len, "runtime.allgs");
	if (rc == 0)
		rc = gh_mem_read_ptr(&s->mem, addr + 16, &cap,
				     "runtime.allgs");
	if (rc != 0)
		return rc;
	if (*len > cap || *len > GH_GOR_MAX_GS || *len < min ||
	    (*len > 0 && *arr == 0)) {
		if (min > 0)
			return gh_errf(&s->err, GOHEAP_ECORRUPT,
				       "runtime.allgs {%#llx, %llu, %llu} is "
				       "not a plausible slice (it had %llu "
				       "entries)", (unsigned long long)*arr,
				       (unsigned long long)*len,
				       (unsigned long long)cap,
				       (unsigned long long)min);
		return gh_errf(&s->err, GOHEAP_ECORRUPT,
			       "runtime.allgs {%#llx, %llu, %llu} is not a "
			       "plausible slice", (unsigned long long)*arr,
			       (unsigned long long)*len,
			       (unsigned long long)cap);
	}
	return 0;
}

/*
 * Stopped: everything that can have changed since the unstopped read of
 * len0 slots of allgs (at allgs, the runtime.allgs slice header) is read
 * again: the slice (allgs only grows; its old entries never change, so
 * only new ones are read), every g header (one bulk read), the stopped
 * threads' registers; the goroutines whose header changed, the new and
 * the running ones go through one_g again.  The target is resumed on
 * every path.  *len_out: allgs' length at the stop.
 */
static int snap_stopped(gor_build *bd, gh_profile *p, uint64_t allgs,
			uint64_t len0, uint64_t *len_out)
{
	goheap_session *s = bd->s;
	int (*stop)(void *) = GH_OPS_V2(s, stop);
	int (*resume)(void *) = GH_OPS_V2(s, resume);
	gh_thread_regs *regs = NULL;
	uint32_t *chg = NULL;
	size_t nregs = 0, nchg = 0, j;
	uint64_t arr, len, i;
	double t0, t1, b, e;
	int rc, rrc, fing0 = bd->fing_running;
	gor_plan pl;

	rc = snap_plan(bd, (size_t)len0, &pl);
	if (rc != 0)
		return gh_errf(&s->err, rc, "out of memory");
	rc = stop(s->ctx);
	if (rc != 0) {
		char why[sizeof(s->err.msg)];

		plan_free(&pl);
		snprintf(why, sizeof(why), "%s", s->err.msg[0] ? s->err.msg :
			 goheap_strerror(rc));
		return gh_errf(&s->err, rc, "goroutine profile: cannot stop "
			       "the target for a consistent snapshot (%s); "
			       "--no-stop reads it without stopping "
			       "(best-effort)", why);
	}
	t0 = gh_now();
	gh_mem_invalidate(&s->mem);
	rc = s->caps->stopped_threads == NULL ? GOHEAP_EUNSUPPORTED :
	     s->caps->stopped_threads(s->ctx, &regs, &nregs);
	if (rc == GOHEAP_ENOMEM) {
		gh_errf(&s->err, rc, "out of memory");
		goto resume;
	}
	bd->threads = rc == 0 ? regs : NULL;
	bd->nthreads = rc == 0 ? nregs : 0;
	bd->stop_regs = rc == 0;
	read_fing(bd);
	rc = read_allgs(s, allgs, len0, &arr, &len);
	if (rc != 0)
		goto resume;
	if (len > bd->nhdr) {
		/* room for the goroutines created since (their slots are
		 * read below: unreadable ones must be counted) */
		gor_hdr *nh = gh_reallocarray(bd->hdr, (size_t)len,
					      sizeof(*nh));

		if (nh == NULL) {
			rc = gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
			goto resume;
		}
		memset(nh + bd->nhdr, 0, ((size_t)len - bd->nhdr) *
		       sizeof(*nh));
		bd->hdr = nh;
		bd->nhdr = (size_t)len;
	}
	rc = snap_changed(bd, &pl, fing0 != bd->fing_running, &chg, &nchg);
	if (rc != 0)
		goto resume;
	for (j = 0; j < nchg; j++) {
		rc = snap_reread(bd, chg[j], bd->hdr[chg[j]].gp);
		if (rc != 0)
			goto resume;
	}
	/* goroutines created since: allgs' new entries */
	for (i = len0; i < len; i++) {
		uint64_t gp;

		rc = gh_mem_read_ptr(&s->mem, arr + 8 * i, &gp,
				     "runtime.allgs array");
		if (rc == 0)
			rc = snap_one(bd, (uint32_t)i, gp);
		if (rc == 0 && bd->unreadable > GH_GOR_MAX_UNREADABLE &&
		    bd->unreadable > (i + 1) / 2)   /* as gh_gor_collect */
			rc = gh_errf(&s->err, GOHEAP_ECORRUPT, "runtime.allgs: "
				     "%llu of its first %llu g pointers are "
				     "unreadable: not the runtime's list of "
				     "goroutines",
				     (unsigned long long)bd->unreadable,
				     (unsigned long long)(i + 1));
		if (rc != 0)
			goto resume;
	}
	p->gor_rewalked = nchg + (len - len0);
	p->gor_checked = len;
	*len_out = len;
resume:
	t1 = gh_now();
	p->gor_stop_threads = nregs;
	rrc = resume(s->ctx);
	bd->threads = NULL;
	bd->nthreads = 0;
	free(regs);
	free(chg);
	plan_free(&pl);
	/* the live source knows when its threads actually stopped */
	if (s->caps->stop_window != NULL &&
	    s->caps->stop_window(s->ctx, &b, &e) == 0) {
		p->gor_stop_begin = b;
		p->gor_stop_end = e;
	} else {
		p->gor_stop_begin = t0;
		p->gor_stop_end = t1;
	}
	if (rc == 0 && rrc != 0) {
		char why[sizeof(s->err.msg)];

		snprintf(why, sizeof(why), "%s", s->err.msg);
		rc = gh_errf(&s->err, rrc, "resuming the target: %s", why);
	}
	return rc;
}

/* compare gor_tmp by allgs index */
static int tmp_cmp(const void *a, const void *b)
{
	uint32_t x = ((const gor_tmp *)a)->idx, y = ((const gor_tmp *)b)->idx;

	return x < y ? -1 : x > y;
}

/*
 * allgs order back: the records kept from the running read are in order,
 * the re-read ones follow them; sort only those and merge (a qsort of the
 * whole array moved every record: a fifth of the walk at 10k goroutines).
 */
static void snap_order(gor_build *bd)
{
	size_t k = bd->ngs, p = 1, i, j, o;
	gor_tmp *m;

	while (p < k && bd->gs[p - 1].idx <= bd->gs[p].idx)
		p++;
	if (p >= k)
		return;
	qsort(bd->gs + p, k - p, sizeof(*bd->gs), tmp_cmp);
	m = gh_calloc(k, sizeof(*m));
	if (m == NULL) {       /* no room to merge: sort in place */
		qsort(bd->gs, k, sizeof(*bd->gs), tmp_cmp);
		return;
	}
	for (i = 0, j = p, o = 0; i < p || j < k;)
		m[o++] = j >= k || (i < p && bd->gs[i].idx <= bd->gs[j].idx) ?
			 bd->gs[i++] : bd->gs[j++];
	memcpy(bd->gs, m, k * sizeof(*m));
	free(m);
}

/*
 * After the stopped re-read: the replaced records out, allgs order back,
 * the note's counts from what is left.
 */
static void snap_finish(gor_build *bd, uint64_t len)
{
	size_t i, k = 0;

	for (i = 0; i < bd->ngs; i++)
		if (!bd->gs[i].dropped)
			bd->gs[k++] = bd->gs[i];
	bd->ngs = k;
	snap_order(bd);
	bd->running = bd->running_regs = bd->partial = 0;
	for (i = 0; i < k; i++) {
		bd->running += bd->gs[i].g.running != 0;
		bd->running_regs += bd->gs[i].cnt_regs;
		bd->partial += bd->gs[i].cnt_partial;
	}
	bd->unreadable = bd->first_unreadable = 0;
	for (i = 0; i < len && i < bd->nhdr; i++)
		if (bd->hdr[i].flags & GOR_HDR_UNREADABLE)
			if (bd->unreadable++ == 0)
				bd->first_unreadable = bd->hdr[i].gp;
}

/* ---- collect -------------------------------------------------------------------------- */

/*
 * The traceback's extras: its stack buffers (none on ENOMEM: tracebacks
 * then empty, marked partial), runtime debug.tracebacklabels, and the
 * target's nanotime() now for "N minutes": CLOCK_MONOTONIC (Go's
 * nanotime on linux) for a live process; for a core, the same clock at
 * the core file's modification (dump) time, if analysed on the same boot
 * (a later boot: unknown, the minutes are left out and noted).
 */
static void tb_setup(gor_build *bd, gh_profile *p)
{
	goheap_session *s = bd->s;
	const gh_rtlayout *l = bd->lay;
	struct timespec mono, real;
	uint64_t addr, v;

	bd->tbframe = gh_calloc(GH_GOR_MAX_TB_FRAMES, sizeof(uint64_t));
	bd->tbphys = gh_calloc(GH_GOR_MAX_TB_FRAMES, sizeof(uint64_t));
	if (bd->tbframe == NULL || bd->tbphys == NULL) {
		free(bd->tbframe);
		free(bd->tbphys);
		bd->tbframe = bd->tbphys = NULL;
	}
	/* runtime.debug's field; stripped: located in goroutineheader */
	addr = 0;
	if (gh_exe_symbol(s->exe, "runtime.debug", &addr, NULL) == 0)
		addr += s->bias + l->debug_tracebacklabels;
	else
		addr = s->addrs.tblabels;
	if (l->tb_labels != 0 && addr != 0 &&
	    gh_mem_read_uint(&s->mem, addr, 4, &v,
			     "runtime.debug.tracebacklabels") == 0)
		p->tb_labels_on = v == 1;
	if (clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
		return;
	bd->now = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec;
	if (strncmp(s->source, "live process ", 13) == 0) {
		bd->now_ok = 1;
	} else if (strncmp(s->source, "core file ", 10) == 0 &&
		   clock_gettime(CLOCK_REALTIME, &real) == 0) {
		char path[256];
		const char *e = strstr(s->source + 10, " (");
		size_t len = e ? (size_t)(e - s->source - 10) : 0;
		struct stat st;
		int64_t ago;

		if (len == 0 || len >= sizeof(path))
			return;
		memcpy(path, s->source + 10, len);
		path[len] = '\0';
		if (stat(path, &st) != 0)
			return;
		ago = ((int64_t)real.tv_sec - (int64_t)st.st_mtim.tv_sec) *
		      1000000000 + (real.tv_nsec - st.st_mtim.tv_nsec);
		if (ago < 0 || ago > bd->now)
			return;    /* not this boot */
		bd->now -= ago;
		bd->now_ok = 1;
	}
}

int gh_gor_collect(gh_profile *p, goheap_session *s)
{
	const gh_rtlayout *l = s->lay;
	const gor_arch *arch;
	gor_build bd;
	uint64_t allgs, arr, len, i, chunk[512];
	double t0 = gh_now();
	int rc, snap;

	if (!l->g_verified)
		return gh_errf(&s->err, GOHEAP_EVERSION,
			       "goroutine profile: the g layout of go1.%d is "
			       "not verified (no toolchain to check it on)",
			       l->minor);
	if (s->mem.ptr_size != 8 || s->mem.big_endian)
		return gh_errf(&s->err, GOHEAP_EUNSUPPORTED,
			       "goroutine profile: only little-endian 64-bit "
			       "targets (amd64, arm64) are supported so far");
	switch (gh_exe_machine(s->exe)) {
	case EM_X86_64:
		arch = &gor_amd64;
		break;
	case EM_AARCH64:
		arch = &gor_arm64;
		break;
	default:
		return gh_errf(&s->err, GOHEAP_EUNSUPPORTED,
			       "goroutine profile: only amd64 and arm64 "
			       "targets are supported so far (ELF machine "
			       "%u)", gh_exe_machine(s->exe));
	}
	if (gh_exe_symbol(s->exe, "runtime.allgs", &allgs, NULL) == 0)
		allgs += s->bias;
	else if (!gh_exe_has_symtab(s->exe) && s->addrs.allgs != 0)
		allgs = s->addrs.allgs;   /* located: locate.c find_allgs */
	else
		return gh_errf(&s->err, GOHEAP_ENOSYM,
			       "goroutine profile: runtime.allgs not found "
			       "(%s)", gh_exe_has_symtab(s->exe) ?
			       "not in .symtab" : "no .symtab, and not "
			       "located from runtime.allgadd/forEachG");
	memset(&bd, 0, sizeof(bd));
	bd.s = s;
	bd.lay = l;
	bd.arch = arch;
	bd.max_pcs = l->gor_max_stack ? l->gor_max_stack :
		     (p->profstackdepth > 0 ? (size_t)p->profstackdepth : 128);
	bd.frame = gh_calloc(bd.max_pcs, sizeof(*bd.frame));
	if (bd.frame == NULL)
		return gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
	/* no memo on ENOMEM: the same lookups, slower */
	bd.fmemo = gh_calloc((size_t)1 << GOR_FMEMO_BITS, sizeof(*bd.fmemo));
	bd.amemo = gh_calloc((size_t)1 << GOR_AMEMO_BITS, sizeof(*bd.amemo));
	bd.imemo = gh_calloc((size_t)1 << GOR_IMEMO_BITS, sizeof(*bd.imemo));
	read_fing(&bd);
	if (s->caps->core_threads == NULL ||
	    s->caps->core_threads(s->ctx, &bd.threads, &bd.nthreads) != 0)
		bd.threads = NULL;
	tb_setup(&bd, p);
	/* the snapshot: a source that can stop the target (live) is read
	 * running, then stopped for what changed; --no-stop: best-effort */
	snap = GH_OPS_V2(s, stop) == NULL || GH_OPS_V2(s, resume) == NULL ?
	       0 : s->gor_no_stop ? 2 : 1;
	p->gor_snapshot = snap;
	p->gor_no_tb = s->gor_no_tb;

	rc = read_allgs(s, allgs, 0, &arr, &len);
	if (rc != 0)
		goto out;
	/* len <= GH_GOR_MAX_GS: no overflow */
	bd.label_cap = (size_t)len * GH_GOR_LABEL_BYTES_PER_G >
		       GH_GOR_MAX_LABEL_BYTES ?
		       (size_t)len * GH_GOR_LABEL_BYTES_PER_G :
		       GH_GOR_MAX_LABEL_BYTES;
	if (snap == 1) {
		bd.nhdr = (size_t)len;
		bd.hdr = gh_calloc(len ? (size_t)len : 1, sizeof(*bd.hdr));
		if (bd.hdr == NULL) {
			rc = gh_errf(&s->err, GOHEAP_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < len; i += GH_ARRAY_LEN(chunk)) {
		uint64_t k, nk = len - i < GH_ARRAY_LEN(chunk) ? len - i :
				 GH_ARRAY_LEN(chunk);
		unsigned char *raw = (unsigned char *)chunk;

		rc = gh_mem_read(&s->mem, arr + 8 * i, raw, (size_t)(8 * nk),
				 "runtime.allgs array");
		if (rc != 0)
			goto out;
		for (k = 0; k < nk; k++) {
			uint64_t gp = gh_mem_word(&s->mem, raw + 8 * k, 8);

			rc = snap_one(&bd, (uint32_t)(i + k), gp);
			if (rc != 0)
				goto out;
			/* allgs holds every g ever made, none freed: a list
			 * whose g's are mostly unreadable is not the
			 * runtime's (and would cost a failed read each, up
			 * to GH_GOR_MAX_GS of them) */
			if (bd.unreadable > GH_GOR_MAX_UNREADABLE &&
			    bd.unreadable > (i + k + 1) / 2) {
				rc = gh_errf(&s->err, GOHEAP_ECORRUPT,
					     "runtime.allgs: %llu of its first "
					     "%llu g pointers are unreadable "
					     "(first %#llx): not the runtime's "
					     "list of goroutines",
					     (unsigned long long)bd.unreadable,
					     (unsigned long long)(i + k + 1),
					     (unsigned long long)
					     bd.first_unreadable);
				goto out;
			}
		}
	}
	if (snap == 1) {
		uint64_t len1 = len;

		rc = snap_stopped(&bd, p, allgs, len, &len1);
		if (rc != 0)
			goto out;
		snap_finish(&bd, len1);
		len = len1;
	}
	rc = freeze(&bd, p);
	if (rc != 0) {
		gh_errf(&s->err, rc, "out of memory");
		goto out;
	}
	{
		char *note = p->gor_note;
		size_t nl = sizeof(p->gor_note);

		if (snap == 2)
			snprintf(note, nl, "best-effort snapshot: the target "
				 "was not stopped (--no-stop)");
		if (bd.running > bd.running_regs)
			snprintf(note + strlen(note), nl - strlen(note),
				 "%s%llu running goroutine(s): stack from "
				 "g.sched%s", note[0] ? "; " : "",
				 (unsigned long long)(bd.running -
						      bd.running_regs),
				 snap == 1 && bd.stop_regs ? " (stopped off "
				 "the goroutine's stack)" : snap == 1 ?
				 ", may be stale (stopped, no thread "
				 "registers)" : bd.threads != NULL ? ", may be "
				 "stale (no thread registers found for it)" :
				 snap == 2 ? ", may be stale (live, not "
				 "stopped)" : ", may be stale (no thread "
				 "registers)");
		if (bd.running_regs > 0)
			snprintf(note + strlen(note), nl - strlen(note),
				 "%s%llu running goroutine(s) unwound from "
				 "their thread's registers (%s)",
				 note[0] ? "; " : "",
				 (unsigned long long)bd.running_regs,
				 snap == 1 ? "stopped" : "core");
		if (bd.unreadable > 0 || bd.partial > 0)
			snprintf(note + strlen(note), nl - strlen(note),
				 "%s%llu g unreadable (first %#llx), %llu "
				 "tracebacks partial", note[0] ? "; " : "",
				 (unsigned long long)bd.unreadable,
				 (unsigned long long)bd.first_unreadable,
				 (unsigned long long)bd.partial);
	}
	p->nbuckets = len;
	p->t_walk = gh_now() - t0;
out:
	free(bd.frame);
	free(bd.tbframe);
	free(bd.tbphys);
	free(bd.tbpcs);
	free(bd.tbphyss);
	free(bd.tbargs);
	free(bd.gs);
	free(bd.pcs);
	free(bd.labs);
	free(bd.anc);
	free(bd.hdr);
	free(bd.fmemo);
	free(bd.amemo);
	free(bd.imemo);
	gh_buf_free(&bd.strs);
	return rc;
}

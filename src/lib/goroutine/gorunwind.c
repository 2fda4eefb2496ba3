/*
 * gorunwind.c - the goroutine unwinder: runtime/traceback.go's frame walk with the pclntab's pcsp tables, amd64 and arm64, and the registers of goroutines running on a core's threads (goroutine_int.h).
 */
#include "config.h"

#include "goroutine_int.h"

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
int gor_funcinfo_xf(gor_build *bd, uint64_t pc, gh_funcinfo *out,
		    unsigned *xf)
{
	gor_fmemo *e;
	int rc;

	if (bd->fmemo == NULL || pc == 0) {
		rc = gh_sym_funcinfo(bd->tg->sym, pc, out);
		if (xf != NULL)
			*xf = rc == 0 ? name_flags(out->name) : 0;
		return rc;
	}
	e = &bd->fmemo[(pc * 0x9e3779b97f4a7c15ull) >> (64 - GOR_FMEMO_BITS)];
	if (e->pc != pc) {
		e->rc = gh_sym_funcinfo(bd->tg->sym, pc, &e->fi);
		e->xf = e->rc == 0 ? name_flags(e->fi.name) : 0;
		e->pc = pc;
	}
	*out = e->fi;
	if (xf != NULL)
		*xf = e->xf;
	return e->rc;
}

/* ---- the unwinder -------------------------------------------------------------- */

/*
 * The argument words of a traceback frame (gorargs.c's reader): through
 * a window of the goroutine's stack (one read for a frame's words instead
 * of one each; the window never leaves [lo, hi) of the stack being
 * unwound, set by gor_unwind(), and is emptied there).
 */
static int gor_read_word(void *ctx, uint64_t addr, uint64_t *v)
{
	gor_build *bd = ctx;
	gh_mem *m = &bd->tg->mem;
	size_t n;

	if (addr >= bd->sw_lo && addr - bd->sw_lo < bd->sw_n &&
	    bd->sw_n - (addr - bd->sw_lo) >= 8)
		return gor_stk_read(bd, addr, v, "argument word");
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
		return gh_gor_args(&bd->strs, bd->tg->sym, pc, livepc, argp,
				   gor_read_word, bd, 0);
	h = (pc ^ (livepc * 0x94d049bb133111ebull)) * 0x9e3779b97f4a7c15ull;
	e = &bd->amemo[h >> (64 - GOR_AMEMO_BITS)];
	if (e->pc != pc || e->livepc != livepc) {
		gh_gor_argdesc_load(&e->d, bd->tg->sym, pc, livepc);
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
		return gh_sym_inline_pcs(bd->tg->sym, sympc, callee, out, cap);
	e = &bd->imemo[((sympc ^ *callee) * 0x9e3779b97f4a7c15ull) >>
		       (64 - GOR_IMEMO_BITS)];
	if (e->sympc == sympc && e->callee_in == *callee) {
		memcpy(out, e->pcs, e->k * sizeof(*out));
		*callee = e->callee_out;
		return e->k;
	}
	e->callee_in = *callee;
	k = gh_sym_inline_pcs(bd->tg->sym, sympc, callee, out, cap);
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

void gor_tb_args(gor_build *bd, uint64_t pc, uint64_t livepc,
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
int gor_unwind(gor_build *bd, uint64_t pc0, uint64_t sp0, uint64_t lr0,
	       int syscall, int trap0, uint64_t lo, uint64_t hi, size_t *n,
	       uint64_t *out, uint64_t *physpc, size_t cap, size_t physmax)
{
	const gor_arch *a = bd->arch;
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
		if (gor_stk_read(bd, sp, &pc, "goroutine stack") != 0)
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
			    gor_stk_read(bd, fp - 8, &lr,
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
				    gor_stk_read(bd, sp, &lr,
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
			gor_tb_args(bd, pc, bd->lay->tb_style == 0 ?
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
			    gor_stk_read(bd, sp, &x, "goroutine stack") != 0)
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

/* m.procid of the M running gp (g.m's curg is gp), from its header gb; 0
 * when it is on none or the release has no verified m layout. */
uint64_t gor_threads_tid(const gor_threads *th, const unsigned char *gb,
			 uint64_t gp)
{
	const gh_rtlayout *l = th->tg->lay;
	gh_mem *m = th->m;
	uint64_t mp, procid, curg;

	if (!l->g_verified || l->m_procid == 0 || m->ptr_size != 8)
		return 0;
	mp = gh_mem_word(m, gb + l->g_m, 8);
	if (mp == 0 ||
	    gh_mem_read_ptr(m, mp + l->m_procid, &procid, "m.procid") != 0 ||
	    gh_mem_read_ptr(m, mp + l->m_curg, &curg, "m.curg") != 0 ||
	    curg != gp)
		return 0;
	return procid;
}

uint64_t gor_thread_of(gor_build *bd, const unsigned char *gb, uint64_t gp)
{
	gor_threads th = { bd->tg, &bd->tg->mem, bd->threads, bd->nthreads };

	return gor_threads_tid(&th, gb, gp);
}

int gor_running_regs(gor_build *bd, const unsigned char *gb, uint64_t gp,
		     uint64_t lo, uint64_t hi, uint64_t *pc, uint64_t *sp,
		     uint64_t *lr0)
{
	gor_threads th = { bd->tg, &bd->tg->mem, bd->threads, bd->nthreads };

	return gor_threads_regs(&th, gb, gp, lo, hi, pc, sp, lr0);
}

/* Bounds of the walk from a thread's registers to the signal frame. */
#define GOR_SIG_MAX_FRAMES 64
#define GOR_SIG_MAX_SPAN ((uint64_t)1 << 20)

/*
 * The registers a running goroutine (g at gp, stack [lo, hi)) really has,
 * from its thread in th (a core's notes, a live stop's): g.m's procid names
 * the thread (and m.curg must be gp).  When the thread's sp is on the
 * goroutine's stack (a core taken with the thread stopped in Go code:
 * gcore; a live stop) they are the thread's pc/sp (and lr on arm64); when
 * it is elsewhere (g0 or gsignal: a kernel core written from the
 * runtime's crash handler), the thread's stack is unwound through the pcsp
 * tables (the architecture's rules: return address at fp - 8 on amd64; at
 * *sp, or in the link register for an innermost frame not set up yet, on
 * arm64) to runtime.sigtramp, the frame the kernel called (its return
 * address must be the signal restorer: Go's runtime.sigreturn__sigaction,
 * 1.19's runtime.sigreturn on amd64, or one outside Go's code: libc's in
 * cgo programs, the vdso's on arm64), and the interrupted pc/sp (lr) are
 * read from the kernel's signal frame at sigtramp's fp (gor_arch.sig_*);
 * the sp must be on the goroutine's stack (else, a signal inside a
 * handler, the walk goes on from the interrupted registers) and the pc in
 * Go code.  1 and *pc, *sp, *lr set, or 0 (then g.sched is used, as live).
 */
int gor_threads_regs(const gor_threads *th, const unsigned char *gb,
		     uint64_t gp, uint64_t lo, uint64_t hi, uint64_t *pc,
		     uint64_t *sp, uint64_t *lr0)
{
	const gor_arch *a;
	gh_mem *m = th->m;
	const gh_thread_regs *t = NULL;
	uint64_t procid, p, q, sp0, lr, plr;
	gh_funcinfo fi, fl;
	size_t i;
	int k, innermost = 1;

	switch (gh_exe_machine(th->tg->exe)) {
	case EM_X86_64:
		a = &gor_amd64;
		break;
	case EM_AARCH64:
		a = &gor_arm64;
		break;
	default:
		return 0;
	}
	procid = gor_threads_tid(th, gb, gp);
	if (procid == 0)
		return 0;
	for (i = 0; i < th->n; i++)
		if ((uint64_t)th->t[i].tid == procid) {
			t = &th->t[i];
			break;
		}
	if (t == NULL)
		return 0;
	if (t->sp >= lo && t->sp < hi &&
	    gh_sym_funcinfo(th->tg->sym, t->pc, &fi) == 0) {
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

		if (gh_sym_funcinfo(th->tg->sym, p, &fi) != 0 || !fi.has_pcsp ||
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
			if (gh_sym_funcinfo(th->tg->sym, lr, &fl) == 0 &&
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
			    gh_sym_funcinfo(th->tg->sym, *pc, &fl) != 0)
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

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


#include "gor_build.h"

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

static int gor_funcinfo(gor_build *bd, uint64_t pc, gh_funcinfo *out)
{
	return gor_funcinfo_xf(bd, pc, out, NULL);
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

void gor_read_fing(gor_build *bd)
{
	gh_target *tg = bd->tg;
	uint64_t v;

	/* runtime.fingStatus (fing_size 4) or 1.19's fingRunning (1), from
	 * .symtab or located (target.c find_globals) */
	if (tg->addrs.fing != 0 &&
	    gh_mem_read_uint(&tg->mem, tg->addrs.fing, tg->addrs.fing_size, &v,
			     "runtime.fingStatus") == 0)
		bd->fing_running = tg->addrs.fing_size == 4 ? (v & 2) != 0 :
				   v != 0;
}

/* ---- one goroutine ---------------------------------------------------------------- */

unsigned gor_g_span(const gh_rtlayout *l)
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
uint64_t gor_hdr_hash(const gor_build *bd, const unsigned char *gb)
{
	const gh_rtlayout *l = bd->lay;
	const gh_mem *m = &bd->tg->mem;
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
	gh_mem *m = &bd->tg->mem;
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
	gh_mem *m = &bd->tg->mem;
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
	gh_mem *m = &bd->tg->mem;
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
	if (bd->tg->no_traceback) {
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
	    gor_unwind(bd, pc0, sp0, lr0, syscallsp != 0, t->cnt_regs, lo, hi, &n,
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
int gor_one_g(gor_build *bd, uint64_t gp)
{
	const gh_rtlayout *l = bd->lay;
	gh_mem *m = &bd->tg->mem;
	unsigned char gb[512];
	const unsigned char *pg;
	unsigned span = gor_g_span(l);
	gor_tmp *t;
	gh_goroutine *g;
	uint64_t lo, hi, syscallsp, pc0, sp0, lr0 = 0, labels;
	size_t n = 0;
	int rc;

	bd->sw_n = 0;
	pg = gor_pf_header(bd, gp);
	if (pg != NULL) {
		memcpy(gb, pg, span);
		rc = 0;
	} else {
		rc = gh_mem_read(m, gp, gb, span, "g");
	}
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
	bd->cur_hash = gor_hdr_hash(bd, gb);
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
	g->tid = gor_thread_of(bd, gb, gp);
	if (g->running && bd->threads != NULL && syscallsp == 0 &&
	    gor_running_regs(bd, gb, gp, lo, hi, &pc0, &sp0, &lr0)) {
		bd->running_regs++;
		t->cnt_regs = 1;
	}
	gor_stack_window(bd, gp, sp0, hi);
	if (hi <= lo || hi - lo > ((uint64_t)1 << 32))
		g->partial = 1;     /* absurd stack bounds: no traceback */
	else
		g->partial = gor_unwind(bd, pc0, sp0, lr0, syscallsp != 0,
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
		rc = l->labels_list ? gor_read_labels_list(bd, labels) :
				      gor_read_labels_hmap(bd, labels);
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
	gh_target *tg = bd->tg;
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
	/* runtime.debug's field (stripped: located in goroutineheader) */
	addr = tg->addrs.tblabels;
	if (l->tb_labels != 0 && addr != 0 &&
	    gh_mem_read_uint(&tg->mem, addr, 4, &v,
			     "runtime.debug.tracebacklabels") == 0)
		p->tb_labels_on = v == 1;
	if (clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
		return;
	bd->now = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec;
	if (tg->pid != 0) {
		bd->now_ok = 1;
	} else if (tg->core_mtime_ns != 0 &&
		   clock_gettime(CLOCK_REALTIME, &real) == 0) {
		/* a core taken on this boot: nanotime then = now minus its
		 * age */
		int64_t ago = ((int64_t)real.tv_sec * 1000000000 +
			       real.tv_nsec) - tg->core_mtime_ns;

		if (ago < 0 || ago > bd->now)
			return;    /* not this boot */
		bd->now -= ago;
		bd->now_ok = 1;
	}
}

int gh_gor_collect(gh_profile *p, gh_target *tg)
{
	const gh_rtlayout *l = tg->lay;
	const gor_arch *arch;
	gor_build bd;
	uint64_t allgs, arr, len, i, chunk[512];
	double t0 = gh_now(), tb0 = tg->mem.t_backend;
	uint64_t n0 = tg->mem.nreads, b0 = tg->mem.nbytes;
	int rc, snap;

	if (!l->g_verified)
		return gh_errf(&tg->err, GOHEAP_EVERSION,
			       "goroutine profile: the g layout of go1.%d is "
			       "not verified (no toolchain to check it on)",
			       l->minor);
	if (tg->mem.ptr_size != 8 || tg->mem.big_endian)
		return gh_errf(&tg->err, GOHEAP_EUNSUPPORTED,
			       "goroutine profile: only little-endian 64-bit "
			       "targets (amd64, arm64) are supported so far");
	switch (gh_exe_machine(tg->exe)) {
	case EM_X86_64:
		arch = &gor_amd64;
		break;
	case EM_AARCH64:
		arch = &gor_arm64;
		break;
	default:
		return gh_errf(&tg->err, GOHEAP_EUNSUPPORTED,
			       "goroutine profile: only amd64 and arm64 "
			       "targets are supported so far (ELF machine "
			       "%u)", gh_exe_machine(tg->exe));
	}
	allgs = tg->addrs.allgs;   /* .symtab, or located (find_allgs) */
	if (allgs == 0)
		return gh_errf(&tg->err, GOHEAP_ENOSYM,
			       "goroutine profile: runtime.allgs not found "
			       "(%s)", gh_exe_has_symtab(tg->exe) ?
			       "not in .symtab" : "no .symtab, and not "
			       "located from runtime.allgadd/forEachG");
	memset(&bd, 0, sizeof(bd));
	bd.tg = tg;
	bd.lay = l;
	bd.arch = arch;
	bd.max_pcs = l->gor_max_stack ? l->gor_max_stack :
		     (p->profstackdepth > 0 ? (size_t)p->profstackdepth : 128);
	bd.frame = gh_calloc(bd.max_pcs, sizeof(*bd.frame));
	if (bd.frame == NULL)
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	/* no memo on ENOMEM: the same lookups, slower */
	bd.fmemo = gh_calloc((size_t)1 << GOR_FMEMO_BITS, sizeof(*bd.fmemo));
	bd.amemo = gh_calloc((size_t)1 << GOR_AMEMO_BITS, sizeof(*bd.amemo));
	bd.imemo = gh_calloc((size_t)1 << GOR_IMEMO_BITS, sizeof(*bd.imemo));
	gor_read_fing(&bd);
	if (tg->caps->core_threads == NULL ||
	    tg->caps->core_threads(tg->ctx, &bd.threads, &bd.nthreads) != 0)
		bd.threads = NULL;
	tb_setup(&bd, p);
	/* the snapshot: a source that can stop the target (live) is read
	 * running, then stopped for what changed; --no-stop: best-effort */
	snap = GH_OPS_V2(tg, stop) == NULL || GH_OPS_V2(tg, resume) == NULL ?
	       0 : tg->no_stop ? 2 : 1;
	p->gor_snapshot = snap;
	p->gor_no_tb = tg->no_traceback;

	rc = gor_read_allgs(tg, allgs, 0, &arr, &len);
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
			rc = gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < len; i += GH_ARRAY_LEN(chunk)) {
		uint64_t k, nk = len - i < GH_ARRAY_LEN(chunk) ? len - i :
				 GH_ARRAY_LEN(chunk);
		unsigned char *raw = (unsigned char *)chunk;

		rc = gh_mem_read(&tg->mem, arr + 8 * i, raw, (size_t)(8 * nk),
				 "runtime.allgs array");
		if (rc != 0)
			goto out;
		for (k = 0; k < nk; k++)   /* in place: the target's order */
			chunk[k] = gh_mem_word(&tg->mem, raw + 8 * k, 8);
		gor_prefetch(&bd, chunk, (size_t)nk);
		for (k = 0; k < nk; k++) {
			uint64_t gp = chunk[k];

			bd.pf_cur = (size_t)k;
			rc = gor_snap_one(&bd, (uint32_t)(i + k), gp);
			if (rc != 0)
				goto out;
			/* allgs holds every g ever made, none freed: a list
			 * whose g's are mostly unreadable is not the
			 * runtime's (and would cost a failed read each, up
			 * to GH_GOR_MAX_GS of them) */
			if (bd.unreadable > GH_GOR_MAX_UNREADABLE &&
			    bd.unreadable > (i + k + 1) / 2) {
				rc = gh_errf(&tg->err, GOHEAP_ECORRUPT,
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
	bd.npf = 0;        /* no window for the stopped re-reads */
	bd.sw_n = 0;
	if (snap == 1) {
		uint64_t len1 = len;

		rc = gor_snap_stopped(&bd, p, allgs, len, &len1);
		if (rc != 0)
			goto out;
		gor_snap_finish(&bd, len1);
		len = len1;
	}
	rc = freeze(&bd, p);
	if (rc != 0) {
		gh_errf(&tg->err, rc, "out of memory");
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
	/* -v's stages: backend reads (the cache's and the bulk ones) */
	p->t_read = tg->mem.t_backend - tb0;
	p->t_walk = gh_now() - t0 - p->t_read;
	p->read_calls = tg->mem.nreads - n0;
	p->read_bytes = tg->mem.nbytes - b0;
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
	free(bd.pf);
	free(bd.pfaddr);
	free(bd.pflen);
	free(bd.pfok);
	free(bd.pfbuf);
	free(bd.pfhbuf);
	free(bd.pford);
	free(bd.pfoff);
	gh_buf_free(&bd.strs);
	return rc;
}

/*
 * gorread.c - one goroutine read from the target (goroutine_int.h): its g
 * (status, goid, start PC, wait reason, labels, ancestors), whether it is
 * a system goroutine, its stack unwound (gorunwind.c) into the record the
 * profile keeps; the g header's hash the snapshot compares; the finalizer
 * goroutine's state.
 */
#include "config.h"

#include "goroutine_int.h"

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

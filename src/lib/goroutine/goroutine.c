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


#include "goroutine_int.h"

static int freeze(gor_build *bd, gh_profile *p)
{
	gh_gorprof *gp = gh_gor_part(p);
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
	gp->gors = (gh_goroutine *)blk;
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
		gp->gors[i] = bd->gs[i].g;
		gp->gors[i].stk = pcs + bd->gs[i].stk_off;
		gp->gors[i].labels = labs + bd->gs[i].lab_off;
		gp->gors[i].anc = anc + bd->gs[i].anc_off;
		gp->gors[i].tb_pcs = tbp + bd->gs[i].tb_off;
		gp->gors[i].tb_phys = tbp + bd->ntb + bd->gs[i].tb_off;
		gp->gors[i].tb_args = tbp + 2 * bd->ntb + bd->gs[i].tb_off;
		gp->gors[i].tb_argstr = strs;
	}
	gp->ngors = bd->ngs;
	p->pcpool = (uint64_t *)blk;
	p->recs = gh_calloc(bd->ngs ? bd->ngs : 1, sizeof(*p->recs));
	if (p->recs == NULL)
		return GOHEAP_ENOMEM;
	for (j = 0; j < bd->ngs; j++) {
		p->recs[j].count = 1;
		p->recs[j].stk = (uint64_t *)gp->gors[j].stk;
		p->recs[j].nstk = gp->gors[j].nstk;
		p->recs[j].bucket = gp->gors[j].addr;
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
		gh_gor_part(p)->tb_labels_on = v == 1;
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

/* the goroutine part's free function (gh_profile_set_part): the
 * goroutines themselves live in the profile's pcpool */
static void gorprof_free(void *part)
{
	gh_gorprof *gp = part;

	if (gp->leak != NULL) {
		if (gp->leak_free != NULL)
			gp->leak_free(gp->leak);
		free(gp->leak);
	}
	free(gp);
}

int gh_gor_collect(gh_profile *p, gh_target *tg)
{
	const gh_rtlayout *l = tg->lay;
	const gor_arch *arch;
	gh_gorprof *gor;
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
	gor = gh_calloc(1, sizeof(*gor));
	if (gor == NULL)
		return gh_errf(&tg->err, GOHEAP_ENOMEM, "out of memory");
	gh_profile_set_part(p, GH_PART_GOROUTINES, gor, gorprof_free);
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
	snap = gh_target_snapshot(tg);
	p->stop.state = snap;
	gor->no_tb = tg->no_traceback;

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
		char *note = gor->note;
		size_t nl = sizeof(gor->note);

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

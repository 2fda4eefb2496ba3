/*
 * goroutine_int.h - the goroutine collector's private state (gor_build),
 * its limits on hostile data and the functions its files share:
 * goroutine.c (the collection), gorread.c (one goroutine), gorlabels.c
 * (label readers), gorunwind.c (the pcsp unwinder, running goroutines of
 * cores, the per-PC function memo), gorstack.c (stacks in bulk reads),
 * gorsnap.c (the live snapshot: read running, stop, re-read what changed).
 */
#ifndef GH_GOROUTINE_INT_H
#define GH_GOROUTINE_INT_H

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "goroutine.h"
#include "gorargs.h"
#include "gorshare.h"

/* Safety limits on hostile data. */
#define GH_GOR_MAX_LABELS 4096         /* labels of one goroutine */
#define GH_GOR_MAX_LABEL_LEN (1u << 20)/* bytes of one key or value */
/* label keys and values read, in all: this, or GH_GOR_LABEL_BYTES_PER_G
 * times allgs' length when that is more (every writer quotes every
 * goroutine's labels: their work stays proportional to the goroutines) */
#define GH_GOR_MAX_LABEL_BYTES (8u << 20)
#define GH_GOR_LABEL_BYTES_PER_G 512u
#define GH_GOR_MAX_PHYS_FRAMES 100000  /* physical frames of one stack */
#define GH_GOR_MAX_TB_FRAMES (1u << 17)/* logical frames kept for -f traceback */
/* unreadable g's that, when also more than half of allgs' slots read so
 * far, refuse the profile (GOHEAP_ECORRUPT) */
#define GH_GOR_MAX_UNREADABLE 64

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
 * The snapshot: one allgs slot as the unstopped read saw
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

/* one goroutine of the allgs chunk being walked (gorstack.c): its header
 * read in bulk at hoff in pfhbuf (hslot 0: not read), its stack's live
 * part [lo, hi) at off in pfbuf (slot 0: not read) */
typedef struct gor_pf {
	uint64_t gp, lo, hi;
	size_t off, slot, hoff, hslot;
} gor_pf;

typedef struct gor_pford {
	uint64_t gp;
	size_t i;
} gor_pford;

typedef struct gor_build {
	gh_target *tg;
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
	/* the stacks of the allgs chunk being walked (gorstack.c): pf[i]
	 * for its slot i (npf of them; pf_cur the one being walked), the
	 * bulk read's ranges and results, the bytes; pf_broken: the bulk
	 * reader refused, do not try again */
	gor_pf *pf;
	size_t npf, cappf, pf_cur;
	uint64_t *pfaddr;
	size_t *pflen, cappfa, cappfl, cappfo;
	unsigned char *pfok, *pfbuf, *pfhbuf;
	size_t pfcap, pfhcap, cappford, *pfoff, cappfoff;
	gor_pford *pford;
	int pf_broken;
	/* the window of the stack being unwound: sw[0..sw_n) holds the
	 * target's bytes at sw_lo (sw_n 0: none) */
	const unsigned char *sw;
	uint64_t sw_lo;
	size_t sw_n;
} gor_build;

/* A word of the stack being unwound: from its window, else the cache.
 * (Collection is for 64-bit little-endian targets only.) */
static inline int gor_stk_read(gor_build *bd, uint64_t addr, uint64_t *v,
			       const char *what)
{
	uint64_t off = addr - bd->sw_lo;

	if (addr >= bd->sw_lo && off < bd->sw_n && bd->sw_n - off >= 8) {
		*v = gh_mem_word(&bd->tg->mem, bd->sw + off, 8);
		return 0;
	}
	return gh_mem_read_ptr(&bd->tg->mem, addr, v, what);
}

#define GOR_AMEMO_BITS 13
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

/* gorlabels.c */
int gor_read_labels_list(gor_build *bd, uint64_t lm);
/* gorlabels.c */
int gor_read_labels_hmap(gor_build *bd, uint64_t lm);
/* gorunwind.c */
void gor_tb_args(gor_build *bd, uint64_t pc, uint64_t livepc,
		 uint64_t argp, size_t i, size_t k);
/* gorunwind.c */
int gor_unwind(gor_build *bd, uint64_t pc0, uint64_t sp0, uint64_t lr0,
	       int syscall, int trap0, uint64_t lo, uint64_t hi, size_t *n,
	       uint64_t *out, uint64_t *physpc, size_t cap, size_t physmax);
/* gorunwind.c: gor_threads_tid and gor_threads_regs (gorshare.h) on the
 * build's threads */
uint64_t gor_thread_of(gor_build *bd, const unsigned char *gb, uint64_t gp);
int gor_running_regs(gor_build *bd, const unsigned char *gb, uint64_t gp,
		     uint64_t lo, uint64_t hi, uint64_t *pc, uint64_t *sp,
		     uint64_t *lr0);
/* goroutine.c */
int gor_funcinfo_xf(gor_build *bd, uint64_t pc, gh_funcinfo *out,
		    unsigned *xf);
/* goroutine.c */
void gor_read_fing(gor_build *bd);
/* goroutine.c */
uint64_t gor_hdr_hash(const gor_build *bd, const unsigned char *gb);
/* goroutine.c */
int gor_one_g(gor_build *bd, uint64_t gp);
/* gorstack.c */
int gor_readv(gh_target *s, const uint64_t *addrs, const size_t *lens,
	      size_t n, unsigned char *out, unsigned char *ok);
/* gorstack.c */
void gor_prefetch(gor_build *bd, const uint64_t *gps, size_t n);
/* gorstack.c */
const unsigned char *gor_pf_header(const gor_build *bd, uint64_t gp);
/* gorstack.c */
void gor_stack_window(gor_build *bd, uint64_t gp, uint64_t sp, uint64_t hi);
/* gorsnap.c */
int gor_snap_one(gor_build *bd, uint32_t idx, uint64_t gp);
/* gorsnap.c */
int gor_snap_stopped(gor_build *bd, gh_profile *p, uint64_t allgs,
		     uint64_t len0, uint64_t *len_out);
/* gorsnap.c */
void gor_snap_finish(gor_build *bd, uint64_t len);

#endif

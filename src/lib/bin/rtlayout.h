/*
 * rtlayout.h - what go-heap knows of each Go release, in one table.
 *
 * Every release-dependent fact an external reader relies on lives in the
 * table in rtlayout.c, one row per release: the runtime's profiling
 * structures, where the pclntab's companions sit in moduledata, how
 * runtime.ticks is laid out, and the rules by which that release's
 * runtime/pprof writes its output (down to the Unicode version of the
 * strconv.IsPrint tables its %q uses).  The walker, the symbolizer, the
 * locator, the session and the writers read the row (a profile carries
 * it: gh_profile.rt); none of them compares version numbers itself.
 *
 * Adding a release is adding a row; a release without a row is refused
 * ("unsupported runtime layout") rather than read with a guess.
 */
#ifndef GH_RTLAYOUT_H
#define GH_RTLAYOUT_H

#include "gh.h"
#include "goquote.h"

/* Bounds every row stays within: the walker's fixed buffers are sized by
 * them (static assertions in walk.c and rtlayout.c). */
#define GH_RT_MAX_STACK 1024        /* maxProfStackDepth (1.23+) */
#define GH_RT_MAX_CYCLE_WORDS 4     /* memRecordCycle words, <= 1.26 */
#define GH_RT_MAX_BLOCKREC 16       /* sizeof(blockRecord) */

typedef struct gh_rtlayout {
	int minor;              /* go1.minor */
	/* 1: make check runs this release's real toolchain (the README's
	 * table); 0: the row is from source reading or disassembly only, and
	 * every collection is checked by the live layout guard first. */
	int tested;
	const char *cite;       /* where the row comes from */

	/* ---- runtime/mprof.go ---- */
	/* runtime.bucket header, in pointer-sized words (6 words: 48 / 24 B) */
	unsigned bucket_words;
	unsigned w_allnext, w_typ, w_size, w_nstk;
	/* memRecordCycle: 4 words {allocs, frees, alloc_bytes, free_bytes}
	 * (<= 1.26) or 2 words {allocs, frees} (1.27: bytes = n x size) */
	unsigned cycle_words;
	/* mProfCycle holds (cycle << 1 | flushed) (1.19+) or the cycle. */
	int cycle_flag_bit;
	/* Largest nstk the runtime can record (maxStack / maxProfStackDepth). */
	unsigned max_stack;
	/* The sizes mallocgc records for a sampled object: a size class
	 * (class_to_size) or whole pages above max_small_size (the walker's
	 * plausibility check) */
	const uint16_t *size_classes;
	unsigned nsize_classes;
	uint32_t page_size, max_small_size;
	/* bucketType values */
	int typ_mem, typ_block, typ_mutex;
	/* blockRecord {count float64; cycles int64} */
	unsigned blockrec_size, blockrec_count, blockrec_cycles;
	/* the mProfCycle wrap (mProfCycleWrap) */
	uint32_t cycle_wrap;
	/* The function whose absence makes the linker set
	 * runtime.disableMemoryProfiling (cmd/link/internal/ld/lib.go). */
	const char *memprof_reader;
	/* MemProfileRate: 1 = a static 524288 in .noptrdata (1.21+), 0 = set
	 * by runtime.init, in .noptrbss (1.19), -1 = either (unverified). */
	int rate_static;

	/* ---- runtime/symtab.go, runtime2.go ---- */
	unsigned md_text, md_gofunc;   /* moduledata word indexes */
	/* abi.FuncID values used by wrapper elision: corostart (1.22) and
	 * runFinalizers/runCleanups replacing runfinq (1.25) shift them. */
	struct {
		uint8_t goexit, gopanic, panicwrap, sigpanic,
			systemstack_switch, wrapper;
	} funcid;

	/* ---- runtime.ticks {lock; ...; val int64}: val is the last word, at
	 * ticks_val_off ({lock; pad; val}: 16 up to 1.20, {lock; val}: 8 in
	 * 1.21, {lock; startTicks; startTime; val}: 24 from 1.22, whose
	 * ticks_start says startTicks/startTime lie just before val) ---- */
	unsigned ticks_val_off;
	int ticks_start;

	/* ---- runtime/pprof's output rules ---- */
	int pprof_scales_mutex;   /* scaleMutexProfile by the period (< 1.20) */
	int text_func_names;      /* debug=1 "#\t0x... name+0x.. file:line" (1.21+) */
	int proto_name_eq;        /* Function.name == system name quirk (1.21 only) */
	int proto_start_line;     /* Function.start_line (1.21+) */
	int heap_alloc_bump;      /* debug=1 header: allocBytes+1 when == inuse (1.21+) */
	int hide_internal_runtime;/* internal/runtime/ hidden like runtime. (1.24+) */
	int full_stacks;          /* records carry whole stacks, CallersFrames
	                           * synthesises inline PCs, block/mutex frames
	                           * are expanded lazily (1.23+) */
	int text_sortfunc;        /* debug=1 sorts with slices.SortFunc, heap
	                           * records ascending (a regression) (1.23+) */
	int heap_label_always;    /* every heap sample has "bytes" = ObjectSize (1.27) */

	/* ---- goroutines (runtime2.go types g, m, gobuf; byte offsets on
	 * 64-bit targets, read from the DWARF of each release's binaries
	 * with gdb; doc/goroutines.md) ---- */
	/* 1: the offsets below were checked on this release's binaries;
	 * 0: estimated from a neighbour, the goroutine profile is refused. */
	int g_verified;
	unsigned g_m, g_sched, g_syscallsp, g_syscallpc, g_atomicstatus,
		 g_goid, g_waitsince, g_waitreason, g_gopc, g_startpc,
		 g_labels;
	unsigned g_parentgoid;    /* 0: no g.parentGoid (before 1.21) */
	/* g.ancestors: *[]ancestorInfo {pcs []uintptr; goid; gopc}, set at
	 * creation when GODEBUG=tracebackancestors=N > 0 (0: unknown) */
	unsigned g_ancestors;
	/* g.runningCleanups (atomic.Bool, 1.25+; 0: none): a cleanup
	 * goroutine is a user goroutine only while it runs cleanups */
	unsigned g_runningcleanups;
	unsigned gobuf_sp, gobuf_pc, gobuf_lr, gobuf_bp;
	unsigned gobuf_g;         /* gobuf.g: 16 in every release */
	/* 1: runtime.mcall clears BP on the switch to g0 ("MOVQ $0, BP",
	 * asm_amd64.s, 1.25+; morestack too) and pushes the old g just
	 * above its callee's return address (PUSHQ AX, every release), so a
	 * frame-pointer walk from g0 reaches the goroutine only through
	 * g.sched (force mode: ptrace.c's crossing); 0: BP is left as it
	 * was and the chain runs on into the goroutine's frames */
	int mcall_clears_bp;
	unsigned m_procid, m_curg;
	/* g.labels points at a runtime/pprof labelMap: 1 = struct {list
	 * []label} (1.24+), 0 = map[string]string (classic hmap) */
	int labels_list;
	/* A goroutine profile record holds at most this many PCs: 32
	 * (StackRecord.Stack0, <= 1.22) or 0 = debug.profstackdepth (1.23+) */
	unsigned gor_max_stack;
	/* 1: saveg uses the unwinder and tracebackPCs (1.21+), which record
	 * a frame stopped at its function's entry as entry+1; 0: 1.19's
	 * gentraceback records entry itself */
	int gor_unwinder;
	/* ---- runtime.Stack(buf, true) / goroutine debug=2 (traceback.go:
	 * goroutineheader, traceback1/2, showfuncinfo, printcreatedby) ---- */
	/* 0: gentraceback prints (1.19: inlined names raw, "created by F"
	 * raw, at most tb_max_phys physical frames, "...additional frames
	 * elided..." when exactly that many were printed); 1: the unwinder
	 * and traceback2 (1.21+: printFuncName, "created by F in goroutine
	 * N", tb_inner + tb_outer logical frames, "...N frames elided...") */
	int tb_style;
	unsigned tb_max_phys, tb_inner, tb_outer;
	int tb_exported_rcvr;     /* isExportedRuntime: exported methods of
	                           * exported receivers only (1.23+) */
	int tb_show_fincleanup;   /* runFinalizers/runCleanups shown (1.25+) */
	int tb_running_syscallsp; /* "stack unavailable" only when syscallsp
	                           * == 0 (1.26+) */
	/* goroutine labels in the header while debug.tracebacklabels == 1:
	 * 0 never, 1 " labels:{"k": "v"}" before "]" (1.26), 2 " {k: v}"
	 * after "]", quoted only when needed (1.27) */
	int tb_labels;
	unsigned debug_tracebacklabels; /* offset in runtime.debug */
	unsigned g_lockedm;       /* g.lockedm: ", locked to thread" */
	unsigned g_leaked;        /* _Gleaked (1.26+: status 10), 0: none */
	const char *const *gstatus_strings;   /* gStatusStrings */
	unsigned ngstatus;
	const char *const *waitreason_strings;/* waitReasonStrings */
	unsigned nwaitreason;
	/* testing/synctest bubbles in goroutineheader (DWARF offsets, as
	 * above; tests/dwarfcheck.c checks them):
	 *   tb_bubble 0: none (<= 1.23); 1: ", synctest group N" with N =
	 *   g.syncGroup.root.goid (1.24: synctestGroup.root at bubble_id;
	 *   only GOEXPERIMENT=synctest programs make groups); 2: ", synctest
	 *   bubble N" with N = g.bubble.id (1.25+: synctestBubble.id at
	 *   bubble_id).  g_bubble: g.syncGroup / g.bubble, 0: none. */
	int tb_bubble;
	unsigned g_bubble, bubble_id;
	/* " (durable)" after the status of a goroutine in a bubble whose
	 * waitreason.isIdleInSynctest() and whose status string does not end
	 * in "(durable)" already: 0 never (<= 1.24), 1 whatever its status
	 * (1.25: a runnable goroutine's stale wait reason counts), 2 only
	 * while _Gwaiting (1.26+).  idle_in_synctest: bit w set when
	 * isIdleInSynctest[w] (runtime2.go; every waitReason is < 64). */
	int tb_durable;
	uint64_t idle_in_synctest;

	/* ---- strconv (src/strconv/isprint.go, from package unicode) ---- */
	/* The Unicode version of strconv.IsPrint's tables: which runes fmt's
	 * %q of a goroutine label (goroutine debug=1, gorgroup.c) keeps as
	 * themselves rather than \u/\U escapes: 13 up to 1.20, 15 in 1.21 to
	 * 1.26, 17 in 1.27 (goquote.c holds each set) */
	gh_unicode unicode;

	/* ---- the heap by type (heapwalk.c: mheap.go, mbitmap.go, malloc.go,
	 * internal/abi/type.go, symtab.go; byte offsets on 64-bit targets
	 * from the DWARF of each release's binaries, tests/dwarfcheck.c) ----
	 * heap_verified 0: no row checked, -p types is refused. */
	int heap_verified;
	unsigned mh_allspans, mh_sweepgen;          /* in runtime.mheap */
	unsigned ms_size;                           /* sizeof(mspan) */
	unsigned ms_startaddr, ms_npages, ms_freeindex, ms_nelems,
		 ms_freeidxscan, ms_allocbits, ms_gcmarkbits, ms_sweepgen,
		 ms_alloccount, ms_spanclass, ms_state, ms_elemsize;
	unsigned ms_idx_size;     /* freeindex/nelems/freeIndexForScan: 8
	                           * (uintptr, <= 1.21) or 2 (uint16) */
	unsigned ms_largetype;    /* mspan.largeType (1.22+), 0: none */
	/* 1: pointerful objects over 512 B start with a *abi.Type header
	 * (allocation headers, 1.22+) */
	int heap_headers;
	/* 1: Green Tea's inline mark bits (128 B) end every span of 16 to
	 * 512 B objects, before which the heap bits sit (default 1.26+) */
	int heap_greentea;
	/* Green Tea's runtime.spanInlineMarkBits (mgcmark_greenteagc.go,
	 * 1.25+; 0: the release has none): its size (it ends the first page
	 * of a span of 16 to 512 B objects) and the offset of its marks
	 * ([63]uint8, after scans and owned).  The last GC's marks of such a
	 * span, unswept, are its gcmarkBits or'ed with these (the sweep's
	 * moveInlineMarks). */
	unsigned imb_size, imb_marks;
	/* abi.Type (runtime._type <= 1.20: heap_type_old) and moduledata's
	 * types, etypes */
	int heap_type_old;
	unsigned ty_size, ty_ptrbytes, ty_tflag, ty_kind, ty_str;
	unsigned md_types, md_etypes;
	/* -p retained (retained.c): abi.Type.GCData, and moduledata's data,
	 * edata, bss, ebss, gcdata and gcbss (the data and bss roots) */
	unsigned ty_gcdata;
	unsigned md_data, md_edata, md_bss, md_ebss, md_gcdata, md_gcbss;
	/* -p retained's special roots (mheap.go: mspan.specials, special,
	 * specialfinalizer.fn, specialWeakHandle.handle, specialCleanup's
	 * function words, each at sp_size; the kinds' numbers; 0: none) */
	unsigned ms_specials, sp_offset, sp_offset_size, sp_kind, sp_size;
	unsigned sk_finalizer, sk_weak, sk_cleanup, sp_cleanup_words;
	/* go1.19-1.21's pointer bits: mheap_.arenas, and heapArena.bitmap's
	 * bits a heap word (2: 1.19's pointer and scan nibbles; 1: 1.20+'s
	 * pointer bit); 0: the bits are in spans and headers (1.22+) */
	unsigned mh_arenas, arena_bits;
	/* -p retained's type inference (retinfer.c; internal/abi/type.go,
	 * iface.go, map*.go, runtime/chan.go, map.go, internal/runtime/maps;
	 * 0: the release is not inferred): ArrayType/PtrType/SliceType/
	 * ChanType.Elem, ArrayType.Len, StructType.Fields, StructField's
	 * size, Typ and Offset, InterfaceType.Methods, MapType.Bucket (1.22-
	 * 1.23; SwissMapType.Group 1.24-1.25, MapType.Group 1.26+), ITab.Type
	 * (runtime.itab._type in 1.22), hmap.buckets and oldbuckets, the
	 * swiss maps.Map's dirPtr and dirLen, maps.table.groups (its data
	 * word; lengthMask after), hchan.buf; ti_direct_tflag 1: the
	 * direct-interface bit is TFlagDirectIface (1.26+), 0: Kind_'s
	 * KindDirectIface; ti_swiss 1: maps are swiss tables by default */
	unsigned ti_elem, ti_len, ti_fields, ti_sf_size, ti_sf_typ, ti_sf_off,
		 ti_methods, ti_map_group, ti_itab_type, ti_hmap_buckets,
		 ti_hmap_oldbuckets, ti_smap_dirptr, ti_smap_dirlen,
		 ti_table_groups, ti_hchan_buf;
	int ti_direct_tflag, ti_swiss;
	/* -p retained's roots beyond data, bss and the specials (retroots.c,
	 * retstack.c: mgcmark.go markroot's fixedRootFinalizers and
	 * fixedRootCleanups, scanstack's sched.ctxt, defer records and
	 * panics): g._panic, g._defer, gobuf.ctxt; _defer.heap (a bool),
	 * .fn, .link; runtime.allfin's blocks (finblock/finBlock: alllink at
	 * 0, cnt, fin[]) and sizeof(finalizer) (fn, arg, nret, fint, ot:
	 * finptrmask 0b11011); cleanupQueue.all (runtime.gcCleanups) and
	 * cleanupBlock's alllink, n, cleanups[] and one entry's size (1.25:
	 * a *funcval, 1.26+: cleanupFn {call, fn, arg}), cq_all 0: no
	 * cleanup queue (<= 1.24: cleanups are queued on finq).  fin_size 0:
	 * none of these known. */
	unsigned g_panic, g_defer, gobuf_ctxt, dfr_heap, dfr_fn, dfr_link;
	unsigned fb_cnt, fb_fin, fin_size;
	unsigned cq_all, cb_alllink, cb_n, cb_fns, cb_fn_size;
	/* cleanupQueue.all on arm64: after two cache-line pads, 128 bytes
	 * each there (64 on amd64): gh_rt_cq_all */
	unsigned cq_all_a64;

	/* -p goroutineleak (retleak.c; runtime2.go g.waiting, sudog, sema.go
	 * semTable; byte offsets on 64-bit targets from the DWARF of the
	 * binaries of the goroutine offsets above, gdb): g.waiting (*sudog,
	 * the list a blocked goroutine's sudogs hang on by waitlink), the
	 * sudog's g, next, prev (semaRoot's treap children), elem (a sync
	 * waiter's semaphore or notifyList), waitlink and c (the channel);
	 * sud_vu: 8 when elem and c are maybeTraceablePtr {vp, vu} and vu,
	 * the address kept while the leak GC hides vp, is read (1.26+), 0
	 * plain pointers.  lk_sema_waiting 1: semacquire1 and notifyListWait
	 * hang their sudog on g.waiting (1.26+); 0: a sync waiter's sudog is
	 * found in runtime.semtable's treaps (semtab_n semaRoots, semtab_stride
	 * bytes apart, semaRoot.treap at semtab_treap), a Cond waiter's not at
	 * all.  lk_semacquire_sync 1: Mutex, RWMutex and WaitGroup waits say
	 * "semacquire" (1.19: all three; 1.21-1.23: WaitGroup.Wait), told
	 * apart by their sync frames.  g_waiting 0: not known. */
	unsigned g_waiting, sud_g, sud_next, sud_prev, sud_elem, sud_waitlink,
		 sud_c, sud_vu;
	int lk_sema_waiting, lk_semacquire_sync;
	unsigned semtab_n, semtab_stride, semtab_treap;

	/* ---- runtime.MemStats (memstats.c: mstats.go readmemstats_m,
	 * flushallmcaches -> mcache.go releaseAll, mgcpacer.go heapGoal;
	 * byte offsets on 64-bit targets from each release's DWARF,
	 * tests/dwarfcheck.c).  mstats_verified 0: -p memstats is refused.
	 * The sums are the same from 1.19 to 1.27 but for
	 * heapStatsDelta.inPtrScalarBits (gone in 1.25) and the memory
	 * limit's headroom (1.19: 1 MiB; 1.21+: 3 %, at least 1 MiB). */
	int mstats_verified;
	/* runtime.mstats (heapStats, a consistentHeapStats whose
	 * stats [3]heapStatsDelta come first, is at 0) */
	unsigned mst_stacks_sys, mst_mspan_sys, mst_mcache_sys,
		 mst_buckhash_sys, mst_gcmisc_sys, mst_other_sys,
		 mst_last_gc_unix, mst_pause_total_ns, mst_pause_ns,
		 mst_pause_end, mst_numgc, mst_numforcedgc, mst_gc_cpu_fraction;
	/* runtime.heapStatsDelta: its size and fields (hsd_inptrscalar 0:
	 * none, 1.25+); smallAllocCount/smallFreeCount are [68]uint64 */
	unsigned hsd_committed, hsd_released, hsd_inheap;  /* runtime/metrics */
	unsigned hsd_size, hsd_instacks, hsd_inworkbufs, hsd_inptrscalar,
		 hsd_tiny, hsd_largealloc, hsd_largealloccount, hsd_smallalloc,
		 hsd_largefree, hsd_largefreecount, hsd_smallfree;
	/* runtime.gcControllerState */
	unsigned gcc_memorylimit, gcc_gcpercentgoal, gcc_sweepdisttrigger,
		 gcc_triggered, gcc_heapmarked, gcc_heapinuse, gcc_heapreleased,
		 gcc_heapfree, gcc_totalalloc, gcc_totalfree, gcc_mappedready;
	/* mheap.spanalloc/cachealloc (fixalloc.inuse at fa_inuse), p.mcache,
	 * mcache.tinyAllocs and alloc [136]*mspan, and
	 * mspan.allocCountBeforeCache (uint16) */
	unsigned mh_spanalloc, mh_cachealloc, fa_inuse, p_mcache,
		 mc_tinyallocs, mc_alloc, ms_alloccount_bc;
	/* memoryLimitHeapGoal's headroom: 0 = a fixed 1 MiB (1.19), else
	 * this percent of the goal, at least 1 MiB */
	unsigned memlimit_headroom_pct;
	/* The flush's side effect on GCSys/OtherSys: uncacheSpan pushes each
	 * cached span on mheap_.central[spc].mcentral.partial or .full
	 * [sweepgen/2%2] (a spanSet), whose push may grow the spine
	 * (persistentalloc(cap*8, &gcMiscSys)) or take a spanSetBlock
	 * (spanSetBlockPool's lfstack, else persistentalloc(ssb_size)), moving
	 * those bytes from other_sys to gcMiscSys.  mh_central: the
	 * [136]struct{mcentral; pad} array (central_stride apart);
	 * spanSet {spineLock; spine; spineLen; spineCap; index}; a tagged
	 * lfstack pointer is (v >> lf_tagbits) << lf_alignbits. */
	unsigned mh_central, central_stride, mc_partial, mc_full, ss_size,
		 ss_spine, ss_spinelen, ss_spinecap, ss_index, ssb_size,
		 lf_tagbits, lf_alignbits;
	/* arm64 pads to 128-byte cache lines (internal/cpu
	 * CacheLinePadSize, 1.21+): mheap.central moves by
	 * a64_central_delta and its elements are a64_stride apart, moving
	 * spanalloc and cachealloc too (gh_rt_mheap_a64); 0: as amd64 */
	unsigned a64_central_delta, a64_stride;
	/* ---- the Go collector's counts (proc.go gcount, which
	 * runtime.NumGoroutine returns; runtime.ThreadCreateProfile's walk of
	 * allm): allglen - sched.gFree's count(s) - sched.ngsys - each P's
	 * gFree count, and m.alllink.  sched_gfree_n: gFree.n (<= 1.24) or
	 * gFree.stack.size, sched_gfree_n2 gFree.noStack.size (1.25+; 0:
	 * none); p_gfree_n: p.gFree.n or p.gFree.size (1.25+); all int32.
	 * From each release's DWARF, tests/dwarfcheck.c. */
	unsigned sched_gfree_n, sched_gfree_n2, sched_ngsys, p_gfree_n,
		 m_alllink;
} gh_rtlayout;

/*
 * The row of version v, or NULL when v has none (unknown newer or older
 * releases are refused, never guessed).
 */
const gh_rtlayout *gh_rtlayout_for(gh_gover v);

/* The PCs saveAncestors keeps of a creator's stack at most (gcallers into
 * an array of tracebackInnerFrames; 1.19: _TracebackMaxFrames); a list
 * that long prints "...additional frames elided...". */
static inline unsigned gh_rt_ancestor_pcs(const gh_rtlayout *rt)
{
	return rt->tb_style == 0 ? rt->tb_max_phys : rt->tb_inner;
}

/* The row whose output rules a profile of version v is written with: v's
 * row, else (a version of 0.0, from tests or synthetic profiles) the
 * newest. Never NULL. */
const gh_rtlayout *gh_rtlayout_rules(gh_gover v);

/*
 * What the linker of each release puts in binaries: the version a binary
 * without .go.buildinfo claims is checked against them (goversion.c).
 * Releases from..to (minor; to 0: every later one) carry it; `always` 1:
 * every binary of theirs has it, so a binary with section headers but
 * without it is older than `from`; 0: only some (crypto/fips), a lower
 * bound only.  A mark is a pcHeader magic (pcln_magic != 0) or any of
 * the section names.
 */
typedef struct gh_rt_filemark {
	uint32_t pcln_magic;
	const char *sections[4];
	int from, to, always;
	const char *what;           /* for messages */
} gh_rt_filemark;

extern const gh_rt_filemark gh_rt_filemarks[];
extern const size_t gh_rt_nfilemarks;

/* cleanupQueue.all for a target that is arm64 (a64 1) or not. */
static inline unsigned gh_rt_cq_all(const gh_rtlayout *rt, int a64)
{
	return a64 ? rt->cq_all_a64 : rt->cq_all;
}

/* mheap.central, its stride, spanalloc and cachealloc for a target that
 * is arm64 (a64 1) or not. */
static inline void gh_rt_mheap_a64(const gh_rtlayout *rt, int a64,
				   unsigned *central, unsigned *stride,
				   unsigned *spanalloc, unsigned *cachealloc)
{
	unsigned d = 0, st = rt->central_stride;

	if (a64 && rt->a64_stride != 0) {
		st = rt->a64_stride;
		d = rt->a64_central_delta;
	}
	*central = rt->mh_central + d;
	*stride = st;
	/* 136 (numSpanClasses) elements lie between central and spanalloc */
	*spanalloc = rt->mh_spanalloc + d + 136 * (st - rt->central_stride);
	*cachealloc = rt->mh_cachealloc + d + 136 * (st - rt->central_stride);
}

/* Oldest and newest supported minor versions, for messages. */
int gh_rtlayout_oldest(void);
int gh_rtlayout_newest(void);

#endif

/*
 * rtlayout.c - the one table of Go release facts, one row per release.
 *
 * The heap profile lives in runtime.mbuckets: a list of runtime.bucket
 * headers, each followed by nstk PCs and a memRecord (src/runtime/mprof.go).
 * Only a handful of facts change between releases; they are here, each
 * with the source it was read from, together with the symbolizer's
 * moduledata offsets and FuncID numbering and runtime/pprof's output rules
 * (src/runtime/pprof/pprof.go, protomem.go, proto.go) and the Unicode
 * version of strconv.IsPrint's tables (%q of goroutine labels; the tables
 * themselves are in goquote.c, scripts/gen-isprint.py).  An unknown version
 * (no row) is refused with "unsupported runtime layout" rather than read
 * with a guess: a wrong layout would yield a plausible but wrong profile.
 *
 * Rows marked tested = 1 are checked in `make check` against the real
 * toolchain's own profiles (tests/lib.sh GH_GO_ALL lists them); the
 * others come from source reading only and every collection of such a
 * target passes the live layout guard first (locate.c).
 */
#include "config.h"

#include "rtlayout.h"
#include "sym.h"

/*
 * runtime.class_to_size (Go 1.18-1.24 src/runtime/sizeclasses.go) =
 * gc.SizeClassToSize (1.25-1.27 src/internal/runtime/gc/sizeclasses.go):
 * the same 67 sizes in every release go-heap reads, with _PageSize 8192
 * and _MaxSmallSize 32768.  A release with other classes gets a table of
 * its own in its row (tests/run-mutate.sh and run-core.sh would show every
 * bucket skipped otherwise).
 */
static const uint16_t size_classes_118[] = {
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208,
	224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704,
	768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072,
	3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472,
	9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480,
	21760, 24576, 27264, 28672, 32768,
};

/* Common to every row: runtime.bucket {next, allnext, typ, hash, size,
 * nstk}; bucketType memProfile = 1, blockProfile, mutexProfile;
 * blockRecord {count float64; cycles int64}; mProfCycleWrap
 * = len(memRecord{}.future) * (2 << 24); moduledata.text is word 22. */
#define GH_RT_BUCKET \
	.bucket_words = 6, .w_allnext = 1, .w_typ = 2, .w_size = 4, \
	.w_nstk = 5, .typ_mem = 1, .typ_block = 2, .typ_mutex = 3, \
	.blockrec_size = 16, .blockrec_count = 0, .blockrec_cycles = 8, \
	.cycle_wrap = 3u * (2u << 24), .md_text = 22, \
	.size_classes = size_classes_118, \
	.nsize_classes = GH_ARRAY_LEN(size_classes_118), \
	.page_size = 8192, .max_small_size = 32768

/* abi.FuncID numberings (goexit, gopanic, panicwrap, sigpanic,
 * systemstack_switch, wrapper). */
#define GH_FUNCID_119 { 7, 9, 14, 18, 20, 21 }   /* 1.18-1.21 */
#define GH_FUNCID_122 { 8, 10, 15, 19, 21, 22 }  /* + corostart (1.22) */
#define GH_FUNCID_125 { 8, 10, 15, 20, 22, 23 }  /* runfinq -> runFinalizers,
						  * runCleanups (1.25) */

/* Goroutine offsets (64-bit), from the DWARF of go1.19.8, 1.21.13,
 * 1.22.12, 1.23.5, 1.24.4, 1.25.12, 1.26.11, 1.27.4 binaries (gdb:
 * gdb.lookup_type("runtime.g").fields()).  gobuf {sp, pc, g, ctxt, ret,
 * lr, bp} lost ret in 1.25; g gained syscallbp in 1.23 and lost two words
 * before syscallsp in 1.25; parentGoid came in 1.21; ancestors
 * (*[]ancestorInfo, GODEBUG=tracebackancestors) follows gopc in all. */
#define GH_G_119 .g_m = 48, .g_sched = 56, .g_syscallsp = 112, \
	.g_syscallpc = 120, .g_atomicstatus = 144, .g_goid = 152, \
	.g_waitsince = 168, .g_waitreason = 176, .g_parentgoid = 0, \
	.g_gopc = 296, .g_ancestors = 304, .g_startpc = 312, .g_labels = 360, .gobuf_sp = 0, .gobuf_g = 16, \
	.gobuf_pc = 8, .gobuf_lr = 40, .gobuf_bp = 48, .m_procid = 72, \
	.m_curg = 192
#define GH_G_121 .g_m = 48, .g_sched = 56, .g_syscallsp = 112, \
	.g_syscallpc = 120, .g_atomicstatus = 144, .g_goid = 152, \
	.g_waitsince = 168, .g_waitreason = 176, .g_parentgoid = 272, \
	.g_gopc = 280, .g_ancestors = 288, .g_startpc = 296, .g_labels = 344, .gobuf_sp = 0, .gobuf_g = 16, \
	.gobuf_pc = 8, .gobuf_lr = 40, .gobuf_bp = 48, .m_procid = 72, \
	.m_curg = 192
#define GH_G_123 .g_m = 48, .g_sched = 56, .g_syscallsp = 112, \
	.g_syscallpc = 120, .g_atomicstatus = 152, .g_goid = 160, \
	.g_waitsince = 176, .g_waitreason = 184, .g_parentgoid = 280, \
	.g_gopc = 288, .g_ancestors = 296, .g_startpc = 304, .g_labels = 352, .gobuf_sp = 0, .gobuf_g = 16, \
	.gobuf_pc = 8, .gobuf_lr = 40, .gobuf_bp = 48, .m_procid = 72, \
	.m_curg = 192
#define GH_G_125 .g_runningcleanups = 218, .g_m = 48, .g_sched = 56, .g_syscallsp = 104, \
	.g_syscallpc = 112, .g_atomicstatus = 144, .g_goid = 152, \
	.g_waitsince = 168, .g_waitreason = 176, .g_parentgoid = 272, \
	.g_gopc = 280, .g_ancestors = 288, .g_startpc = 296, .g_labels = 344, .gobuf_sp = 0, .gobuf_g = 16, \
	.gobuf_pc = 8, .gobuf_lr = 32, .gobuf_bp = 40, .m_procid = 64, \
	.m_curg = 184
#define GH_G_126 .g_runningcleanups = 220, .g_m = 48, .g_sched = 56, .g_syscallsp = 104, \
	.g_syscallpc = 112, .g_atomicstatus = 144, .g_goid = 152, \
	.g_waitsince = 168, .g_waitreason = 176, .g_parentgoid = 280, \
	.g_gopc = 288, .g_ancestors = 296, .g_startpc = 304, .g_labels = 352, .gobuf_sp = 0, .gobuf_g = 16, \
	.gobuf_pc = 8, .gobuf_lr = 32, .gobuf_bp = 40, .m_procid = 64, \
	.m_curg = 184

/* -p goroutineleak: g.waiting, sudog {g, next, prev, elem, ...,
 * waitlink, waittail, c} (88 B; 104 B with 1.26's maybeTraceablePtr elem
 * and c) and semtable [251]struct{semaRoot; pad} (64 B apart, treap at
 * 8), from the DWARF of the binaries above (gdb: runtime.g, runtime.sudog,
 * runtime.semaRoot, runtime.semtable). */
#define GH_LEAK(waiting, sema_sync) .g_waiting = waiting, .sud_g = 0, \
	.sud_next = 8, .sud_prev = 16, .sud_elem = 24, .sud_waitlink = 64, \
	.sud_c = 80, .sud_vu = 0, .lk_sema_waiting = 0, \
	.lk_semacquire_sync = sema_sync, .semtab_n = 251, \
	.semtab_stride = 64, .semtab_treap = 8
#define GH_LEAK_126 .g_waiting = 320, .sud_g = 0, .sud_next = 8, \
	.sud_prev = 16, .sud_elem = 24, .sud_waitlink = 72, .sud_c = 88, \
	.sud_vu = 8, .lk_sema_waiting = 1, .lk_semacquire_sync = 0, \
	.semtab_n = 251, .semtab_stride = 64, .semtab_treap = 8

/* waitReasonStrings, go1.19 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_119[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"timer goroutine (idle)",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"preempted",
	"debug call",
};
/* waitReasonStrings, go1.21 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_121[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
};
/* waitReasonStrings, go1.22 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_122[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
};
/* waitReasonStrings, go1.23 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_123[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
};
/* waitReasonStrings, go1.24 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_124[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (synctest)",
	"chan send (synctest)",
	"select (synctest)",
};
/* waitReasonStrings, go1.25 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_125[] = {
	"",
	"GC assist marking",
	"IO wait",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"select",
	"select (no cases)",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"chan receive",
	"chan send",
	"finalizer wait",
	"force gc (idle)",
	"GOMAXPROCS updater (idle)",
	"semacquire",
	"sleep",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (durable)",
	"chan send (durable)",
	"select (durable)",
	"sync.WaitGroup.Wait (durable)",
	"cleanup wait",
};
/* waitReasonStrings, go1.26, 1.27 (runtime2.go, indexed by waitReason) */
static const char *const gh_waitreasons_126[] = {
	"",
	"GC assist marking",
	"IO wait",
	"dumping heap",
	"garbage collection",
	"garbage collection scan",
	"panicwait",
	"GC assist wait",
	"GC sweep wait",
	"GC scavenge wait",
	"finalizer wait",
	"force gc (idle)",
	"GOMAXPROCS updater (idle)",
	"semacquire",
	"sleep",
	"chan receive (nil chan)",
	"chan send (nil chan)",
	"select (no cases)",
	"select",
	"chan receive",
	"chan send",
	"sync.Cond.Wait",
	"sync.Mutex.Lock",
	"sync.RWMutex.RLock",
	"sync.RWMutex.Lock",
	"sync.WaitGroup.Wait",
	"trace reader (blocked)",
	"wait for GC cycle",
	"GC worker (idle)",
	"GC worker (active)",
	"preempted",
	"debug call",
	"GC mark termination",
	"stopping the world",
	"flushing proc caches",
	"trace goroutine status",
	"trace proc status",
	"page trace flush",
	"coroutine",
	"GC weak to strong wait",
	"synctest.Run",
	"synctest.Wait",
	"chan receive (durable)",
	"chan send (durable)",
	"select (durable)",
	"sync.WaitGroup.Wait (durable)",
	"cleanup wait",
};

/* gStatusStrings (traceback.go), indexed by status */
static const char *const gh_gstatus_119[] = {
	"idle", "runnable", "running", "syscall", "waiting", "", "dead", "",
	"copystack", "preempted",
};
static const char *const gh_gstatus_126[] = {
	"idle", "runnable", "running", "syscall", "waiting", "", "dead", "",
	"copystack", "preempted", "leaked", "waiting for cgo callback",
};

#define GH_TB(st, wr) .gstatus_strings = st, .ngstatus = GH_ARRAY_LEN(st), \
	.waitreason_strings = wr, .nwaitreason = GH_ARRAY_LEN(wr)
/* 1.19: gentraceback, _TracebackMaxFrames = 100 */
#define GH_TB_119 .tb_style = 0, .tb_max_phys = 100, .g_lockedm = 232, \
	GH_TB(gh_gstatus_119, gh_waitreasons_119)
/* 1.21+: tracebackInnerFrames = tracebackOuterFrames = 50; g.lockedm
 * from the DWARF of each release (gdb, as the offsets above) */
#define GH_TB_121(lockedm) .tb_style = 1, .tb_inner = 50, .tb_outer = 50, \
	.g_lockedm = lockedm

/*
 * testing/synctest bubbles (goroutineheader, runtime2.go, synctest.go;
 * offsets from the DWARF of the binaries above, checked by
 * tests/dwarfcheck.c): g.syncGroup (1.24) / g.bubble (1.25+), and in the
 * struct it points at synctestGroup.root (1.24, a *g whose goid is
 * printed) / synctestBubble.id (1.25+).
 */
#define GH_BUBBLE_124 .tb_bubble = 1, .g_bubble = 392, .bubble_id = 88
#define GH_BUBBLE_125 .tb_bubble = 2, .g_bubble = 384, .bubble_id = 72
#define GH_BUBBLE_126 .tb_bubble = 2, .g_bubble = 392, .bubble_id = 72
/* isIdleInSynctest (runtime2.go), as bits of waitReason values: chan
 * receive (nil chan), chan send (nil chan), select (no cases), sleep,
 * sync.Cond.Wait, coroutine, synctest.Run, synctest.Wait, chan receive
 * (durable), chan send (durable), select (durable), sync.WaitGroup.Wait
 * (durable): the same twelve reasons, renumbered in 1.26. */
#define GH_W(n) ((uint64_t)1 << (n))
#define GH_IDLE_125 (GH_W(3) | GH_W(4) | GH_W(10) | GH_W(20) | GH_W(21) | \
	GH_W(38) | GH_W(40) | GH_W(41) | GH_W(42) | GH_W(43) | GH_W(44) | \
	GH_W(45))
#define GH_IDLE_126 (GH_W(14) | GH_W(15) | GH_W(16) | GH_W(17) | GH_W(21) | \
	GH_W(38) | GH_W(40) | GH_W(41) | GH_W(42) | GH_W(43) | GH_W(44) | \
	GH_W(45))

/*
 * The heap by type (heapwalk.c): runtime.mheap's allspans and sweepgen,
 * runtime.mspan, abi.Type and moduledata.types/etypes, from the DWARF of
 * the binaries above (gdb: gdb.lookup_type("runtime.mspan").fields());
 * tests/dwarfcheck.c compares them.  1.21 widened mspan (userArenaChunkFree,
 * 168 B); 1.22 made freeindex/nelems uint16, added largeType and the
 * allocation headers; 1.27 put typedesclen between types and etypes.
 */
#define GH_TY .ty_size = 0, .ty_ptrbytes = 8, .ty_tflag = 20, .ty_kind = 23, \
	.ty_str = 40, .ty_gcdata = 32, .md_data = 208, .md_edata = 216, \
	.md_bss = 224, .md_ebss = 232
#define GH_HEAP_119 .heap_verified = 1, .mh_allspans = 65856, \
	.mh_sweepgen = 65848, .ms_size = 144, .ms_startaddr = 24, \
	.ms_npages = 32, .ms_freeindex = 48, .ms_nelems = 56, \
	.ms_freeidxscan = 136, .ms_allocbits = 72, .ms_gcmarkbits = 80, \
	.ms_sweepgen = 88, .ms_alloccount = 96, .ms_spanclass = 98, \
	.ms_state = 99, .ms_elemsize = 104, .ms_idx_size = 8, \
	.heap_type_old = 1, GH_TY, .md_types = 280, .md_etypes = 288, \
	.md_gcdata = 264, .md_gcbss = 272, .mh_arenas = 65936, .arena_bits = 2, \
	GH_SPECIALS(2, 10, 16, 1, 0, 0, 0), .ms_specials = 128
#define GH_HEAP_121 .heap_verified = 1, .mh_allspans = 65864, \
	.mh_sweepgen = 65856, .ms_size = 168, .ms_startaddr = 24, \
	.ms_npages = 32, .ms_freeindex = 48, .ms_nelems = 56, \
	.ms_freeidxscan = 160, .ms_allocbits = 72, .ms_gcmarkbits = 80, \
	.ms_sweepgen = 96, .ms_alloccount = 104, .ms_spanclass = 106, \
	.ms_state = 107, .ms_elemsize = 112, .ms_idx_size = 8, GH_TY, \
	.md_types = 296, .md_etypes = 304, .md_gcdata = 280, .md_gcbss = 288, \
	.mh_arenas = 65944, .arena_bits = 1, GH_SPECIALS(2, 10, 16, 1, 0, 0, 0), \
	.ms_specials = 136
/* mheap.go's specials: 1.24 widened special.offset to a uintptr; the kinds
 * were renumbered in 1.23 (weak handles), 1.24 (cleanups) and 1.25 (tiny
 * blocks first); 1.26 made a cleanup three pointer words (cleanupFn). */
#define GH_SPECIALS(osz, kind, size, fin, weak, cln, cw) \
	.sp_offset = 8, .sp_offset_size = osz, .sp_kind = kind, .sp_size = size, \
	.sk_finalizer = fin, .sk_weak = weak, .sk_cleanup = cln, \
	.sp_cleanup_words = cw
#define GH_HEAP_122(etypes) .heap_verified = 1, .mh_allspans = 65864, \
	.mh_sweepgen = 65856, .ms_size = 160, .ms_startaddr = 24, \
	.ms_npages = 32, .ms_freeindex = 48, .ms_nelems = 50, \
	.ms_freeidxscan = 52, .ms_allocbits = 64, .ms_gcmarkbits = 72, \
	.ms_sweepgen = 88, .ms_alloccount = 96, .ms_spanclass = 98, \
	.ms_state = 99, .ms_elemsize = 104, .ms_idx_size = 2, \
	.ms_largetype = 152, .heap_headers = 1, GH_TY, .md_types = 296, \
	.ms_specials = 128, \
	.md_etypes = etypes, .md_gcdata = 280, .md_gcbss = 288

/* -p retained's type inference (retinfer.c), the same offsets in 1.22 to
 * 1.27 (internal/abi/type.go, map*.go, iface.go; runtime.itab in 1.22 is
 * abi.ITab's layout; hmap in runtime/map.go (map_noswiss.go 1.24-1.25);
 * internal/runtime/maps' Map, table, groupsReference (1.24+);
 * runtime/chan.go's hchan): the direct-interface bit moved from Kind_ to
 * TFlag in 1.26; maps are swiss tables by default from 1.24. */
#define GH_TYI(dtf, swiss) .ti_elem = 48, .ti_len = 64, .ti_fields = 56, \
	.ti_sf_size = 24, .ti_sf_typ = 8, .ti_sf_off = 16, .ti_methods = 56, \
	.ti_map_group = 64, .ti_itab_type = 8, .ti_hmap_buckets = 16, \
	.ti_hmap_oldbuckets = 24, .ti_smap_dirptr = 16, .ti_smap_dirlen = 24, \
	.ti_table_groups = 16, .ti_hchan_buf = 16, .ti_direct_tflag = (dtf), \
	.ti_swiss = (swiss)

/* -p retained's other roots (rtlayout.h), from the DWARF of each release
 * (tests/dwarfcheck.c): g._panic 32, g._defer 40, gobuf.ctxt 24 and the
 * finalizer blocks alike in 1.19-1.27; 1.22 reordered _defer (heap first,
 * no started/openDefer/_panic); 1.25 added the cleanup queue, whose entry
 * grew from a *funcval to a cleanupFn in 1.26; its all follows two
 * cache-line pads: 128 on amd64, 256 on arm64 (CacheLinePadSize 128). */
#define GH_ROOTS(dheap, dlink, cq, cfn) .g_panic = 32, .g_defer = 40, \
	.gobuf_ctxt = 24, .dfr_heap = dheap, .dfr_fn = 24, .dfr_link = dlink, \
	.fb_cnt = 16, .fb_fin = 24, .fin_size = 40, .cq_all = cq, \
	.cq_all_a64 = 2 * (cq), \
	.cb_alllink = 16, .cb_n = 24, .cb_fns = 32, .cb_fn_size = cfn

/* Green Tea's inline mark bits (1.25 under GOEXPERIMENT=greenteagc, the
 * default from 1.26): spanInlineMarkBits {scans [63]uint8; owned uint8;
 * marks [63]uint8; class spanClass}, 128 B at base + 8192 - 128. */
#define GH_IMB .imb_size = 128, .imb_marks = 64

/*
 * runtime.MemStats (memstats.c), from the DWARF of each release
 * (tests/dwarfcheck.c): mstats, heapStatsDelta and gcControllerState are
 * laid out alike from 1.19 to 1.24; 1.21 dropped four words before
 * gcPercentHeapGoal; 1.25 dropped heapStatsDelta.inPtrScalarBits (every
 * later field 8 bytes lower, mstats 24); mheap.spanalloc moves with
 * mheap (1.19 92224, 1.21 92232, 1.22-1.24 92296, 1.25+ 92320), and
 * cachealloc is 72 B after it but in 1.26+ (144); p.mcache 64 (<= 1.22)
 * or 56; mcache.alloc 40 (<= 1.23) or 48.
 */
#define GH_MST(d) .mstats_verified = 1, \
	.mst_stacks_sys = 3544 - (d), .mst_mspan_sys = 3552 - (d), \
	.mst_mcache_sys = 3560 - (d), .mst_buckhash_sys = 3568 - (d), \
	.mst_gcmisc_sys = 3576 - (d), .mst_other_sys = 3584 - (d), \
	.mst_last_gc_unix = 3592 - (d), .mst_pause_total_ns = 3600 - (d), \
	.mst_pause_ns = 3608 - (d), .mst_pause_end = 5656 - (d), \
	.mst_numgc = 7704 - (d), .mst_numforcedgc = 7708 - (d), \
	.mst_gc_cpu_fraction = 7712 - (d), .fa_inuse = 48
#define GH_HSD_119 .hsd_committed = 0, .hsd_released = 8, .hsd_inheap = 16, \
	.hsd_size = 1176, .hsd_instacks = 24, \
	.hsd_inworkbufs = 32, .hsd_inptrscalar = 40, .hsd_tiny = 48, \
	.hsd_largealloc = 56, .hsd_largealloccount = 64, \
	.hsd_smallalloc = 72, .hsd_largefree = 616, \
	.hsd_largefreecount = 624, .hsd_smallfree = 632
#define GH_HSD_125 .hsd_committed = 0, .hsd_released = 8, .hsd_inheap = 16, \
	.hsd_size = 1168, .hsd_instacks = 24, \
	.hsd_inworkbufs = 32, .hsd_inptrscalar = 0, .hsd_tiny = 40, \
	.hsd_largealloc = 48, .hsd_largealloccount = 56, \
	.hsd_smallalloc = 64, .hsd_largefree = 608, \
	.hsd_largefreecount = 616, .hsd_smallfree = 624
/* gcControllerState: d = 32 from 1.21 */
#define GH_GCC(d) .gcc_memorylimit = 8, .gcc_gcpercentgoal = 104 - (d), \
	.gcc_sweepdisttrigger = 112 - (d), .gcc_triggered = 120 - (d), \
	.gcc_heapmarked = 184 - (d), .gcc_heapinuse = 304 - (d), \
	.gcc_heapreleased = 312 - (d), .gcc_heapfree = 320 - (d), \
	.gcc_totalalloc = 328 - (d), .gcc_totalfree = 336 - (d), \
	.gcc_mappedready = 344 - (d)
/* mcentral {spanclass; partial, full [2]spanSet} padded to 192 B;
 * spanSetBlock 4120 B (4608 B from 1.25, its header padded to 512 B);
 * tagged pointers: 48 address bits and 3 alignment bits (19 tag bits),
 * from 1.25 49 and 9 (tagptr.go tagAlignBits): 24.  On arm64 (DWARF of
 * the arm64 builds) mcentral is padded to 256 B from 1.21 and
 * mheap.central is 64 B further from 1.22 (1.19: as amd64). */
#define GH_SPANSET(central, ssb, tb, ab) .mh_central = (central), \
	.central_stride = 192, .mc_partial = 8, .mc_full = 88, \
	.ss_size = 40, .ss_spine = 8, .ss_spinelen = 16, .ss_spinecap = 24, \
	.ss_index = 32, .ssb_size = (ssb), .lf_tagbits = (tb), \
	.lf_alignbits = (ab)
#define GH_MEMSTATS_119 GH_SPANSET(66112, 4120, 19, 3), GH_MST(0), GH_HSD_119, GH_GCC(0), \
	.mh_spanalloc = 92224, .mh_cachealloc = 92296, .p_mcache = 64, \
	.mc_tinyallocs = 32, .mc_alloc = 40, .ms_alloccount_bc = 102, \
	.memlimit_headroom_pct = 0
#define GH_MEMSTATS_121 GH_SPANSET(66120, 4120, 19, 3), GH_MST(0), \
	.a64_stride = 256, GH_HSD_119, GH_GCC(32), \
	.mh_spanalloc = 92232, .mh_cachealloc = 92304, .p_mcache = 64, \
	.mc_tinyallocs = 32, .mc_alloc = 40, .ms_alloccount_bc = 110, \
	.memlimit_headroom_pct = 3
#define GH_MEMSTATS_122(pmc, mca) GH_SPANSET(66184, 4120, 19, 3), GH_MST(0), \
	.a64_central_delta = 64, .a64_stride = 256, GH_HSD_119, GH_GCC(32), \
	.mh_spanalloc = 92296, .mh_cachealloc = 92368, .p_mcache = (pmc), \
	.mc_tinyallocs = (mca) - 8, .mc_alloc = (mca), \
	.ms_alloccount_bc = 102, .memlimit_headroom_pct = 3
#define GH_MEMSTATS_125(cache) GH_SPANSET(66208, 4608, 24, 9), GH_MST(24), \
	.a64_central_delta = 64, .a64_stride = 256, GH_HSD_125, GH_GCC(32), \
	.mh_spanalloc = 92320, .mh_cachealloc = (cache), .p_mcache = 56, \
	.mc_tinyallocs = 40, .mc_alloc = 48, .ms_alloccount_bc = 102, \
	.memlimit_headroom_pct = 3

/* gcount's and ThreadCreateProfile's fields (DWARF of each release's
 * binaries): sched.gFree's count(s), sched.ngsys, p.gFree's count,
 * m.alllink */
#define GH_SCHED(gf, gf2, ngsys, pgf, alllink) .sched_gfree_n = (gf), \
	.sched_gfree_n2 = (gf2), .sched_ngsys = (ngsys), .p_gfree_n = (pgf), \
	.m_alllink = (alllink)

static const gh_rtlayout layouts[] = {
	{
		/* mProfCycle was a plain uint32 (the holder with its flushed
		 * bit came with 1.19).  Not checked: no 1.18 toolchain. */
		.minor = 18, .tested = 0,
		.cite = "go1.18 src/runtime/mprof.go (unverified)",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 0,
		.max_stack = 32, .memprof_reader = "runtime.MemProfile",
		.rate_static = -1, .md_gofunc = 38, .funcid = GH_FUNCID_119,
		.ticks_val_off = 16, .ticks_start = 0, .pprof_scales_mutex = 1,
		/* goroutines: no toolchain to check; estimated from
		 * go1.19 (unverified, refused) */
		GH_G_119, .g_verified = 0, .labels_list = 0,
		.gor_max_stack = 32, .gor_unwinder = 0,
		GH_TB_119,
		.unicode = GH_UNICODE_13, /* Unicode 13.0.0 since go1.16; 14
					   * never landed (golang/go#48621);
					   * unverified: no 1.18 toolchain */
	},
	{
		.minor = 19, .tested = 1,
		.cite = "go1.19.8 src/runtime/mprof.go, symtab.go, pprof/",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 32, .memprof_reader = "runtime.MemProfile",
		.rate_static = 0, .md_gofunc = 38, .funcid = GH_FUNCID_119,
		.ticks_val_off = 16, .ticks_start = 0, .pprof_scales_mutex = 1,
		GH_G_119, .g_verified = 1, .labels_list = 0,
		.gor_max_stack = 32, .gor_unwinder = 0,
		GH_TB_119,
		.unicode = GH_UNICODE_13,
		GH_HEAP_119,
		GH_MEMSTATS_119,
		GH_SCHED(176, 0, 72, 2472, 336),
		GH_ROOTS(1, 40, 0, 0),
		GH_LEAK(328, 1),
	},
	{
		/* pclntab magic 0xfffffff1, moduledata covctrs (gofunc moves
		 * to word 40); mutex samples scaled by the runtime (commit
		 * 30b1af00).  Not checked: no 1.20 toolchain. */
		.minor = 20, .tested = 0,
		.cite = "go1.20 (from 1.19 and 1.21 sources; unverified)",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 32, .memprof_reader = "runtime.MemProfile",
		.rate_static = -1, .md_gofunc = 40, .funcid = GH_FUNCID_119,
		.ticks_val_off = 16, .ticks_start = 0,
		/* goroutines: no toolchain to check; estimated from
		 * go1.19 (unverified, refused) */
		GH_G_119, .g_verified = 0, .labels_list = 0,
		.gor_max_stack = 32, .gor_unwinder = 0,
		GH_TB_119,
		.unicode = GH_UNICODE_13, /* golang/go#55079 (Sep 2022:
					   * "Go currently supports Unicode
					   * 13"), 15.0.0 regenerated for 1.21
					   * (#65142: "15.0.0 (as in go1.21)");
					   * unverified: no 1.20 toolchain */
	},
	{
		.minor = 21, .tested = 1,
		.cite = "go1.21.13 src/runtime, src/runtime/pprof",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 32, .memprof_reader = "runtime.MemProfile",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_119,
		.ticks_val_off = 8, .ticks_start = 0, .text_func_names = 1,
		.proto_name_eq = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		GH_G_121, .g_verified = 1, .labels_list = 0,
		.gor_max_stack = 32, .gor_unwinder = 1,
		GH_TB_121(208), GH_TB(gh_gstatus_119, gh_waitreasons_121),
		.unicode = GH_UNICODE_15,
		GH_HEAP_121,
		GH_MEMSTATS_121,
		GH_SCHED(184, 0, 72, 2472, 336),
		GH_ROOTS(1, 40, 0, 0),
		GH_LEAK(312, 1),
	},
	{
		.minor = 22, .tested = 1,
		.cite = "go1.22.12 src/runtime, src/internal/abi",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = 32, .memprof_reader = "runtime.MemProfile",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_122,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		GH_G_121, .g_verified = 1, .labels_list = 0,
		.gor_max_stack = 32, .gor_unwinder = 1,
		GH_TB_121(208), GH_TB(gh_gstatus_119, gh_waitreasons_122),
		.unicode = GH_UNICODE_15,
		GH_HEAP_122(304), GH_TYI(0, 0),
		GH_SPECIALS(2, 10, 16, 1, 0, 0, 0),
		GH_MEMSTATS_122(64, 40),
		GH_SCHED(184, 0, 72, 2472, 328),
		GH_ROOTS(0, 32, 0, 0),
		GH_LEAK(312, 1),
	},
	{
		/* debug.profstackdepth capped at maxProfStackDepth = 1024;
		 * memProfileInternal; frame-pointer block/mutex stacks. */
		.minor = 23, .tested = 1,
		.cite = "go1.23.5 src/runtime/mprof.go, runtime1.go, pprof/",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = GH_RT_MAX_STACK,
		.memprof_reader = "runtime.memProfileInternal",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_122,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		.full_stacks = 1, .text_sortfunc = 1,
		GH_G_123, .g_verified = 1, .labels_list = 0,
		.gor_max_stack = 0, .gor_unwinder = 1,
		GH_TB_121(216), GH_TB(gh_gstatus_119, gh_waitreasons_123),
		.tb_exported_rcvr = 1,
		.unicode = GH_UNICODE_15,
		GH_HEAP_122(304), GH_TYI(0, 0),
		GH_SPECIALS(2, 10, 16, 1, 2, 0, 0),
		GH_MEMSTATS_122(56, 40),
		GH_SCHED(184, 0, 72, 2464, 328),
		GH_ROOTS(0, 32, 0, 0),
		GH_LEAK(320, 1),
	},
	{
		.minor = 24, .tested = 1,
		.cite = "go1.24.4 src/runtime, src/runtime/pprof",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = GH_RT_MAX_STACK,
		.memprof_reader = "runtime.memProfileInternal",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_122,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		.hide_internal_runtime = 1, .full_stacks = 1,
		.text_sortfunc = 1,
		GH_G_123, .g_verified = 1, .labels_list = 1,
		.gor_max_stack = 0, .gor_unwinder = 1,
		GH_TB_121(216), GH_TB(gh_gstatus_119, gh_waitreasons_124),
		.tb_exported_rcvr = 1,
		GH_BUBBLE_124,
		.unicode = GH_UNICODE_15,
		GH_HEAP_122(304), GH_TYI(0, 1),
		GH_SPECIALS(8, 16, 24, 1, 2, 6, 1),
		GH_MEMSTATS_122(56, 48),
		GH_SCHED(184, 0, 72, 2464, 328),
		GH_ROOTS(0, 32, 0, 0),
		GH_LEAK(320, 0),
	},
	{
		.minor = 25, .tested = 1,
		.cite = "go1.25.12 src/runtime, src/internal/abi/symtab.go",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = GH_RT_MAX_STACK,
		.memprof_reader = "runtime.memProfileInternal",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_125,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		.hide_internal_runtime = 1, .full_stacks = 1,
		.text_sortfunc = 1,
		GH_G_125, .g_verified = 1, .labels_list = 1,
		.gor_max_stack = 0, .gor_unwinder = 1,
		GH_TB_121(208), GH_TB(gh_gstatus_119, gh_waitreasons_125),
		.tb_exported_rcvr = 1, .tb_show_fincleanup = 1,
		.mcall_clears_bp = 1,
		GH_BUBBLE_125, .tb_durable = 1, .idle_in_synctest = GH_IDLE_125,
		.unicode = GH_UNICODE_15,
		GH_HEAP_122(304), GH_TYI(0, 1), GH_IMB,
		GH_SPECIALS(8, 16, 24, 2, 3, 7, 1),
		GH_MEMSTATS_125(92392),
		GH_SCHED(184, 200, 80, 2464, 344),
		GH_ROOTS(0, 32, 128, 8),
		GH_LEAK(312, 0),
	},
	{
		/* moduledata gains epclntab after gofunc (gofunc stays word
		 * 40); pcHeader.textStart is 0; .go.module section. */
		.minor = 26, .tested = 1,
		.cite = "go1.26.11 src/runtime/symtab.go, mprof.go",
		GH_RT_BUCKET, .cycle_words = 4, .cycle_flag_bit = 1,
		.max_stack = GH_RT_MAX_STACK,
		.memprof_reader = "runtime.memProfileInternal",
		.rate_static = 1, .md_gofunc = 40, .funcid = GH_FUNCID_125,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		.hide_internal_runtime = 1, .full_stacks = 1,
		.text_sortfunc = 1,
		GH_G_126, .g_verified = 1, .labels_list = 1,
		.gor_max_stack = 0, .gor_unwinder = 1,
		GH_TB_121(208), GH_TB(gh_gstatus_126, gh_waitreasons_126),
		.tb_exported_rcvr = 1, .tb_show_fincleanup = 1,
		.mcall_clears_bp = 1,
		.tb_running_syscallsp = 1, .tb_labels = 1,
		.debug_tracebacklabels = 136, .g_leaked = 10,
		GH_BUBBLE_126, .tb_durable = 2, .idle_in_synctest = GH_IDLE_126,
		.unicode = GH_UNICODE_15,
		GH_HEAP_122(304), GH_TYI(1, 1), .heap_greentea = 1, GH_IMB,
		GH_SPECIALS(8, 16, 24, 2, 3, 7, 3),
		GH_MEMSTATS_125(92464),
		GH_SCHED(200, 216, 96, 2472, 352),
		GH_ROOTS(0, 32, 128, 24),
		GH_LEAK_126,
	},
	{
		/* memRecordCycle {allocs, frees} (bytes = n x bucket.size),
		 * MemProfileRecord.ObjectSize and a "bytes" label on every
		 * heap sample; moduledata gains typedesclen, itaboffset,
		 * itabsize before rodata: gofunc is word 43. */
		.minor = 27, .tested = 1,
		.cite = "go1.27.4 src/runtime/mprof.go, symtab.go, "
			"pprof/protomem.go",
		GH_RT_BUCKET, .cycle_words = 2, .cycle_flag_bit = 1,
		.max_stack = GH_RT_MAX_STACK,
		.memprof_reader = "runtime.memProfileInternal",
		.rate_static = 1, .md_gofunc = 43, .funcid = GH_FUNCID_125,
		.ticks_val_off = 24, .ticks_start = 1, .text_func_names = 1,
		.proto_start_line = 1, .heap_alloc_bump = 1,
		.hide_internal_runtime = 1, .full_stacks = 1,
		.text_sortfunc = 1, .heap_label_always = 1,
		GH_G_126, .g_verified = 1, .labels_list = 1,
		.gor_max_stack = 0, .gor_unwinder = 1,
		GH_TB_121(208), GH_TB(gh_gstatus_126, gh_waitreasons_126),
		.tb_exported_rcvr = 1, .tb_show_fincleanup = 1,
		.mcall_clears_bp = 1,
		.tb_running_syscallsp = 1, .tb_labels = 2,
		.debug_tracebacklabels = 132, .g_leaked = 10,
		GH_BUBBLE_126, .tb_durable = 2, .idle_in_synctest = GH_IDLE_126,
		.unicode = GH_UNICODE_17,
		GH_HEAP_122(312), GH_TYI(1, 1), .heap_greentea = 1, GH_IMB,
		GH_SPECIALS(8, 16, 24, 2, 3, 7, 3),
		GH_MEMSTATS_125(92464),
		GH_SCHED(200, 216, 96, 2472, 352),
		GH_ROOTS(0, 32, 128, 24),
		GH_LEAK_126,
	},
};

/* The walker's buffers are sized by the GH_RT_MAX_* bounds; a row must
 * stay within them (checked for the bucket header at compile time, for
 * the rest by test_walk's table test). */
_Static_assert(6 * 8 <= 16 * 8, "bucket header fits walk.c's hdrbuf");
_Static_assert(GH_RT_MAX_CYCLE_WORDS * 4 * 8 <= 16 * 8,
	       "memRecord fits walk.c's recbuf");
_Static_assert(GH_RT_MAX_BLOCKREC <= 16 * 8, "blockRecord fits recbuf");

const gh_rt_filemark gh_rt_filemarks[] = {
	/* pcHeader.magic (runtime/symtab.go): go12magic.. go120magic */
	{ GH_PCLN_MAGIC_118, { NULL }, 18, 19, 1, "pclntab magic 0xfffffff0" },
	{ GH_PCLN_MAGIC_120, { NULL }, 20, 0, 1, "pclntab magic 0xfffffff1" },
	/* cmd/link: crypto/internal/fips140 checksums (1.24+, only when
	 * linked) */
	{ 0, { ".go.fipsinfo" }, 24, 0, 0, ".go.fipsinfo" },
	/* cmd/link: the module data in a section of its own (1.26+) */
	{ 0, { ".go.module" }, 26, 0, 1, ".go.module" },
	/* cmd/link: type and func data sections (1.27+; in a PIE the
	 * linker names them .data.rel.ro.go.type/.go.func) */
	{ 0, { ".go.type", ".go.func", ".data.rel.ro.go.type",
	       ".data.rel.ro.go.func" }, 27, 0, 1, ".go.type/.go.func" },
};
const size_t gh_rt_nfilemarks = sizeof(gh_rt_filemarks) /
				sizeof(gh_rt_filemarks[0]);

const gh_rtlayout *gh_rtlayout_for(gh_gover v)
{
	size_t i;

	if (v.major != 1)
		return NULL;
	for (i = 0; i < GH_ARRAY_LEN(layouts); i++)
		if (v.minor == layouts[i].minor)
			return &layouts[i];
	return NULL;
}

const gh_rtlayout *gh_rtlayout_rules(gh_gover v)
{
	const gh_rtlayout *l = gh_rtlayout_for(v);

	return l != NULL ? l : &layouts[GH_ARRAY_LEN(layouts) - 1];
}

int gh_rtlayout_oldest(void)
{
	return layouts[0].minor;
}

int gh_rtlayout_newest(void)
{
	return layouts[GH_ARRAY_LEN(layouts) - 1].minor;
}

/*
 * dwarfcheck.c - the layout table against the runtime's own DWARF (tests only).
 *
 * Where a Go executable has DWARF, the runtime's struct layouts in it are
 * the compiler's truth: this compares runtime.bucket, runtime.memRecord and
 * runtime.memRecordCycle with a row of src/lib/bin/rtlayout.c, and (64-bit, rows
 * whose goroutine offsets are verified) the goroutine reader's offsets:
 * runtime.g's fields (a field the row says this release lacks must be
 * absent; g.waiting, runtime.sudog and semaRoot for -p goroutineleak),
 * runtime.stack, runtime.gobuf, runtime.m, the synctest bubble
 * (synctestGroup.root 1.24, synctestBubble.id 1.25+) and
 * runtime.debug.tracebacklabels (1.26+).  With a .symtab it also compares
 * the row's traceback tables with the runtime's own data in the file:
 * gStatusStrings, waitReasonStrings and isIdleInSynctest (1.25+).  Only
 * the tests use it (tests/locate-dump, tests/test_locate): it is built
 * into the test archive, never into libgoheap, so the library does not
 * depend on libdw.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarfcheck.h"
#include "exe.h"

/* The structures and fields compared with the layout table. */
typedef struct dw_struct {
	const char *name;
	int found;
	uint64_t size;
	/* member offsets, -1 when absent; names in dw_fields */
	int64_t off[4];
} dw_struct;

static const char *const dw_bucket_fields[4] = {
	"allnext", "typ", "size", "nstk"
};

/*
 * The offset of the member `name` of the struct at die (the last one of
 * that name), -1 when it has none.  A dotted name ("gFree.n") goes down
 * through the members' struct types and adds their offsets.
 */
static int64_t dw_member_off(Dwarf_Die *die, const char *name)
{
	Dwarf_Die child, sub;
	int64_t got = -1;
	const char *dot = strchr(name, '.');
	size_t len = dot != NULL ? (size_t)(dot - name) : strlen(name);
	int have_sub = 0;

	if (dwarf_child(die, &child) != 0)
		return -1;
	do {
		Dwarf_Attribute at;
		Dwarf_Word off;
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		n = dwarf_diename(&child);
		if (n == NULL ||
		    dwarf_attr(&child, DW_AT_data_member_location, &at) == NULL ||
		    dwarf_formudata(&at, &off) != 0)
			continue;
		if (strlen(n) == len && strncmp(n, name, len) == 0) {
			got = (int64_t)off;
			have_sub = dot != NULL &&
				   dwarf_attr(&child, DW_AT_type, &at) != NULL &&
				   dwarf_formref_die(&at, &sub) != NULL;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (got < 0 || dot == NULL)
		return got;
	if (!have_sub)
		return -1;
	/* a named type may come as a typedef of its struct */
	while (dwarf_tag(&sub) == DW_TAG_typedef) {
		Dwarf_Attribute at;

		if (dwarf_attr(&sub, DW_AT_type, &at) == NULL ||
		    dwarf_formref_die(&at, &sub) == NULL)
			return -1;
	}
	{
		int64_t in = dw_member_off(&sub, dot + 1);

		return in < 0 ? -1 : got + in;
	}
}

static void dw_read_struct(Dwarf_Die *die, dw_struct *ds,
			   const char *const *fields, size_t nfields)
{
	Dwarf_Word sz;
	size_t i;

	ds->found = 1;
	if (dwarf_aggregate_size(die, &sz) == 0)
		ds->size = sz;
	for (i = 0; i < 4; i++)
		ds->off[i] = -1;
	for (i = 0; fields != NULL && i < nfields; i++)
		ds->off[i] = dw_member_off(die, fields[i]);
}

/* ---- the goroutine reader's offsets ---------------------------------------- */

#define DW_ABSENT (-1)      /* the row says this release has no such field */
#define DW_NFIELDS 20
#define DW_NGTYPES 55       /* gtypes_for's 10 + htypes_for's 7 +
                             * mtypes_for's 15 + itypes_for's 13 +
                             * rtypes_for's 8 */

typedef struct dw_gfield {
	const char *name;
	int64_t want;       /* offset, or DW_ABSENT */
	int64_t got;        /* -1 until seen */
} dw_gfield;

typedef struct dw_gtype {
	const char *name;   /* a struct type, or a variable ("runtime.debug") */
	int var;            /* 1: the variable's (anonymous) struct type */
	int found;
	int optional;       /* 1: absent is fine (a GOEXPERIMENT's type) */
	uint64_t size_want;   /* 0: not compared */
	uint64_t size_got;
	size_t n;
	dw_gfield f[DW_NFIELDS];
} dw_gtype;

static void gt_add(dw_gtype *t, const char *name, int64_t want)
{
	if (t->n < DW_NFIELDS) {
		t->f[t->n].name = name;
		t->f[t->n].want = want;
		t->f[t->n].got = -1;
		t->n++;
	}
}

/* An offset of the row, 0 meaning "none" (want absent). */
static int64_t opt(unsigned off)
{
	return off != 0 ? (int64_t)off : DW_ABSENT;
}

/* The types and fields rtlayout.c's goroutine rows name; *n of them. */
static void gtypes_for(const gh_rtlayout *l, dw_gtype *t, size_t *n)
{
	size_t k = 0;

	memset(t, 0, DW_NGTYPES * sizeof(*t));
	t[k].name = "runtime.g";
	gt_add(&t[k], "stack", 0);
	gt_add(&t[k], "m", l->g_m);
	gt_add(&t[k], "sched", l->g_sched);
	gt_add(&t[k], "syscallsp", l->g_syscallsp);
	gt_add(&t[k], "syscallpc", l->g_syscallpc);
	gt_add(&t[k], "atomicstatus", l->g_atomicstatus);
	gt_add(&t[k], "goid", l->g_goid);
	gt_add(&t[k], "waitsince", l->g_waitsince);
	gt_add(&t[k], "waitreason", l->g_waitreason);
	gt_add(&t[k], "gopc", l->g_gopc);
	gt_add(&t[k], "ancestors", opt(l->g_ancestors));
	gt_add(&t[k], "startpc", l->g_startpc);
	gt_add(&t[k], "labels", l->g_labels);
	gt_add(&t[k], "lockedm", l->g_lockedm);
	gt_add(&t[k], "parentGoid", opt(l->g_parentgoid));
	gt_add(&t[k], "runningCleanups", opt(l->g_runningcleanups));
	gt_add(&t[k], "syncGroup", l->tb_bubble == 1 ? (int64_t)l->g_bubble :
	       DW_ABSENT);
	gt_add(&t[k], "bubble", l->tb_bubble == 2 ? (int64_t)l->g_bubble :
	       DW_ABSENT);
	gt_add(&t[k], "waiting", opt(l->g_waiting));
	k++;
	/* -p goroutineleak (retstack.c, retleak.c): the sudog's fields and
	 * semaRoot.treap */
	if (l->g_waiting != 0) {
		t[k].name = "runtime.sudog";
		gt_add(&t[k], "g", l->sud_g);
		gt_add(&t[k], "next", l->sud_next);
		gt_add(&t[k], "prev", l->sud_prev);
		gt_add(&t[k], "elem", l->sud_elem);
		gt_add(&t[k], "waitlink", l->sud_waitlink);
		gt_add(&t[k], "c", l->sud_c);
		k++;
		t[k].name = "runtime.semaRoot";
		gt_add(&t[k], "treap", l->semtab_treap);
		k++;
	}
	t[k].name = "runtime.stack";
	gt_add(&t[k], "lo", 0);
	gt_add(&t[k], "hi", 8);
	k++;
	t[k].name = "runtime.gobuf";
	gt_add(&t[k], "sp", l->gobuf_sp);
	gt_add(&t[k], "pc", l->gobuf_pc);
	gt_add(&t[k], "g", l->gobuf_g);
	gt_add(&t[k], "lr", l->gobuf_lr);
	gt_add(&t[k], "bp", l->gobuf_bp);
	k++;
	t[k].name = "runtime.m";
	gt_add(&t[k], "procid", l->m_procid);
	gt_add(&t[k], "curg", l->m_curg);
	k++;
	/* goroutine.c tb_ancestors reads {pcs, goid, gopc} at 0, 24, 32 */
	if (l->g_ancestors != 0) {
		t[k].name = "runtime.ancestorInfo";
		gt_add(&t[k], "pcs", 0);
		gt_add(&t[k], "goid", 24);
		gt_add(&t[k], "gopc", 32);
		k++;
	}
	if (l->tb_bubble == 1) {
		t[k].name = "runtime.synctestGroup";
		gt_add(&t[k], "root", l->bubble_id);
		k++;
	} else if (l->tb_bubble == 2) {
		t[k].name = "runtime.synctestBubble";
		gt_add(&t[k], "id", l->bubble_id);
		k++;
	}
	if (l->tb_labels != 0) {
		t[k].name = "runtime.debug";
		t[k].var = 1;
		gt_add(&t[k], "tracebacklabels", l->debug_tracebacklabels);
		k++;
	}
	*n = k;
}

/* The heap walker's types (heapwalk.c), appended to t[*n...]. */
static void htypes_for(const gh_rtlayout *l, dw_gtype *t, size_t *n)
{
	size_t k = *n;
	int o = l->heap_type_old;

	t[k].name = "runtime.mheap";
	gt_add(&t[k], "allspans", l->mh_allspans);
	if (l->mh_arenas != 0)
		gt_add(&t[k], "arenas", l->mh_arenas);
	gt_add(&t[k], "sweepgen", l->mh_sweepgen);
	k++;
	t[k].name = "runtime.mspan";
	gt_add(&t[k], "startAddr", l->ms_startaddr);
	gt_add(&t[k], "npages", l->ms_npages);
	gt_add(&t[k], "freeindex", l->ms_freeindex);
	gt_add(&t[k], "nelems", l->ms_nelems);
	gt_add(&t[k], "freeIndexForScan", l->ms_freeidxscan);
	gt_add(&t[k], "allocBits", l->ms_allocbits);
	gt_add(&t[k], "gcmarkBits", l->ms_gcmarkbits);
	gt_add(&t[k], "sweepgen", l->ms_sweepgen);
	gt_add(&t[k], "allocCount", l->ms_alloccount);
	gt_add(&t[k], "spanclass", l->ms_spanclass);
	gt_add(&t[k], "state", l->ms_state);
	gt_add(&t[k], "elemsize", l->ms_elemsize);
	gt_add(&t[k], "largeType", opt(l->ms_largetype));
	if (l->ms_specials != 0)   /* -p retained's releases only */
		gt_add(&t[k], "specials", l->ms_specials);
	k++;
	t[k].name = o ? "runtime._type" : "internal/abi.Type";
	gt_add(&t[k], o ? "size" : "Size_", l->ty_size);
	gt_add(&t[k], o ? "ptrdata" : "PtrBytes", l->ty_ptrbytes);
	gt_add(&t[k], o ? "tflag" : "TFlag", l->ty_tflag);
	gt_add(&t[k], o ? "kind" : "Kind_", l->ty_kind);
	gt_add(&t[k], o ? "str" : "Str", l->ty_str);
	gt_add(&t[k], o ? "gcdata" : "GCData", l->ty_gcdata);
	k++;
	t[k].name = "runtime.moduledata";
	gt_add(&t[k], "types", l->md_types);
	gt_add(&t[k], "etypes", l->md_etypes);
	gt_add(&t[k], "data", l->md_data);
	gt_add(&t[k], "edata", l->md_edata);
	gt_add(&t[k], "bss", l->md_bss);
	gt_add(&t[k], "ebss", l->md_ebss);
	gt_add(&t[k], "gcdata", l->md_gcdata);
	gt_add(&t[k], "gcbss", l->md_gcbss);
	/* retstack.c: rodata is the word before gofunc */
	gt_add(&t[k], "rodata", l->md_gofunc ? 8 * ((int64_t)l->md_gofunc - 1) :
	       -1);
	k++;
	if (l->ms_specials != 0) {
		t[k].name = "runtime.special";
		gt_add(&t[k], "offset", l->sp_offset);
		gt_add(&t[k], "kind", l->sp_kind);
		k++;
		t[k].name = "runtime.specialfinalizer";
		gt_add(&t[k], "fn", l->sp_size);
		k++;
	}
	/* Green Tea's inline mark bits: in every build where it is the
	 * default, in a 1.25 build only under GOEXPERIMENT=greenteagc */
	if (l->imb_size != 0) {
		t[k].name = "runtime.spanInlineMarkBits";
		t[k].optional = !l->heap_greentea;
		t[k].size_want = l->imb_size;
		gt_add(&t[k], "marks", l->imb_marks);
		k++;
	}
	*n = k;
}

/* -p retained's type inference (retinfer.c): the type descriptors'
 * fields it follows, the itab's type, the map headers (hmap; the swiss
 * maps.Map, table, groupsReference from 1.24) and hchan.buf, appended to
 * t[*n...]. */
static void itypes_for(const gh_rtlayout *l, dw_gtype *t, size_t *n)
{
	size_t k = *n;
	static const char *const elems[4] = {
		"internal/abi.ArrayType", "internal/abi.PtrType",
		"internal/abi.SliceType", "internal/abi.ChanType"
	};
	size_t i;

	for (i = 0; i < 4; i++) {
		t[k].name = elems[i];
		gt_add(&t[k], "Elem", l->ti_elem);
		if (i == 0)
			gt_add(&t[k], "Len", l->ti_len);
		k++;
	}
	t[k].name = "internal/abi.StructType";
	gt_add(&t[k], "Fields", l->ti_fields);
	k++;
	t[k].name = "internal/abi.StructField";
	t[k].size_want = l->ti_sf_size;
	gt_add(&t[k], "Typ", l->ti_sf_typ);
	gt_add(&t[k], "Offset", l->ti_sf_off);
	k++;
	t[k].name = "internal/abi.InterfaceType";
	gt_add(&t[k], "Methods", l->ti_methods);
	k++;
	/* 1.22-1.23 MapType.Bucket; 1.24-1.25 SwissMapType.Group (and the
	 * noswiss OldMapType under GOEXPERIMENT=noswissmap); 1.26+
	 * MapType.Group */
	if (!l->ti_swiss) {
		t[k].name = "internal/abi.MapType";
		gt_add(&t[k], "Bucket", l->ti_map_group);
	} else if (!l->ti_direct_tflag) {
		t[k].name = "internal/abi.SwissMapType";
		gt_add(&t[k], "Group", l->ti_map_group);
	} else {
		t[k].name = "internal/abi.MapType";
		gt_add(&t[k], "Group", l->ti_map_group);
	}
	k++;
	if (l->ti_swiss) {
		t[k].name = "internal/runtime/maps.Map";
		gt_add(&t[k], "dirPtr", l->ti_smap_dirptr);
		gt_add(&t[k], "dirLen", l->ti_smap_dirlen);
		k++;
		t[k].name = "internal/runtime/maps.table";
		gt_add(&t[k], "groups.data", l->ti_table_groups);
		k++;
	} else {
		t[k].name = "runtime.hmap";
		gt_add(&t[k], "buckets", l->ti_hmap_buckets);
		gt_add(&t[k], "oldbuckets", l->ti_hmap_oldbuckets);
		k++;
	}
	/* runtime.itab in 1.22, an alias of abi.ITab from 1.23 */
	t[k].name = "runtime.itab";
	t[k].optional = 1;
	gt_add(&t[k], "_type", l->ti_itab_type);
	k++;
	t[k].name = "internal/abi.ITab";
	t[k].optional = 1;
	gt_add(&t[k], "Type", l->ti_itab_type);
	k++;
	t[k].name = "runtime.hchan";
	gt_add(&t[k], "buf", l->ti_hchan_buf);
	k++;
	*n = k;
}

/* -p retained's other roots (retroots.c, retstack.c), appended to
 * t[*n...]. */
static void rtypes_for(const gh_rtlayout *l, int a64, dw_gtype *t,
		       size_t *n)
{
	size_t k = *n;

	t[k].name = "runtime.g";
	gt_add(&t[k], "_panic", l->g_panic);
	gt_add(&t[k], "_defer", l->g_defer);
	k++;
	t[k].name = "runtime.gobuf";
	gt_add(&t[k], "ctxt", l->gobuf_ctxt);
	k++;
	t[k].name = "runtime._defer";
	gt_add(&t[k], "heap", l->dfr_heap);
	gt_add(&t[k], "fn", l->dfr_fn);
	gt_add(&t[k], "link", l->dfr_link);
	k++;
	/* finblock became finBlock in 1.25, with the cleanup queue */
	t[k].name = l->cq_all != 0 ? "runtime.finBlock" : "runtime.finblock";
	gt_add(&t[k], "alllink", 0);
	gt_add(&t[k], "cnt", l->fb_cnt);
	gt_add(&t[k], "fin", l->fb_fin);
	k++;
	t[k].name = "runtime.finalizer";
	t[k].size_want = l->fin_size;
	gt_add(&t[k], "fn", 0);
	gt_add(&t[k], "arg", 8);
	gt_add(&t[k], "fint", 24);
	gt_add(&t[k], "ot", 32);
	k++;
	if (l->cq_all != 0) {
		t[k].name = "runtime.cleanupQueue";
		gt_add(&t[k], "all", gh_rt_cq_all(l, a64));
		k++;
		t[k].name = "runtime.cleanupBlock";
		gt_add(&t[k], "cleanupBlockHeader.alllink", l->cb_alllink);
		gt_add(&t[k], "cleanupBlockHeader.n", l->cb_n);
		gt_add(&t[k], "cleanups", l->cb_fns);
		k++;
		if (l->cb_fn_size != 8) {   /* 1.26+: cleanupFn */
			t[k].name = "runtime.cleanupFn";
			t[k].size_want = l->cb_fn_size;
			gt_add(&t[k], "call", 0);
			gt_add(&t[k], "fn", 8);
			gt_add(&t[k], "arg", 16);
			k++;
		}
	}
	*n = k;
}

/* The MemStats collector's types (memstats.c), appended to t[*n...]. */
static void mtypes_for(const gh_rtlayout *l, int a64, dw_gtype *t,
		       size_t *n)
{
	size_t k = *n;
	unsigned central, stride, spanalloc, cachealloc;

	gh_rt_mheap_a64(l, a64, &central, &stride, &spanalloc, &cachealloc);
	t[k].name = "runtime.mstats";
	gt_add(&t[k], "heapStats", 0);
	gt_add(&t[k], "stacks_sys", l->mst_stacks_sys);
	gt_add(&t[k], "mspan_sys", l->mst_mspan_sys);
	gt_add(&t[k], "mcache_sys", l->mst_mcache_sys);
	gt_add(&t[k], "buckhash_sys", l->mst_buckhash_sys);
	gt_add(&t[k], "gcMiscSys", l->mst_gcmisc_sys);
	gt_add(&t[k], "other_sys", l->mst_other_sys);
	gt_add(&t[k], "last_gc_unix", l->mst_last_gc_unix);
	gt_add(&t[k], "pause_total_ns", l->mst_pause_total_ns);
	gt_add(&t[k], "pause_ns", l->mst_pause_ns);
	gt_add(&t[k], "pause_end", l->mst_pause_end);
	gt_add(&t[k], "numgc", l->mst_numgc);
	gt_add(&t[k], "numforcedgc", l->mst_numforcedgc);
	gt_add(&t[k], "gc_cpu_fraction", l->mst_gc_cpu_fraction);
	k++;
	t[k].name = "runtime.consistentHeapStats";
	gt_add(&t[k], "stats", 0);
	k++;
	t[k].name = "runtime.heapStatsDelta";
	t[k].size_want = l->hsd_size;
	gt_add(&t[k], "committed", l->hsd_committed);
	gt_add(&t[k], "released", l->hsd_released);
	gt_add(&t[k], "inHeap", l->hsd_inheap);
	gt_add(&t[k], "inStacks", l->hsd_instacks);
	gt_add(&t[k], "inWorkBufs", l->hsd_inworkbufs);
	gt_add(&t[k], "inPtrScalarBits", opt(l->hsd_inptrscalar));
	gt_add(&t[k], "tinyAllocCount", l->hsd_tiny);
	gt_add(&t[k], "largeAlloc", l->hsd_largealloc);
	gt_add(&t[k], "largeAllocCount", l->hsd_largealloccount);
	gt_add(&t[k], "smallAllocCount", l->hsd_smallalloc);
	gt_add(&t[k], "largeFree", l->hsd_largefree);
	gt_add(&t[k], "largeFreeCount", l->hsd_largefreecount);
	gt_add(&t[k], "smallFreeCount", l->hsd_smallfree);
	k++;
	t[k].name = "runtime.gcControllerState";
	gt_add(&t[k], "memoryLimit", l->gcc_memorylimit);
	gt_add(&t[k], "gcPercentHeapGoal", l->gcc_gcpercentgoal);
	gt_add(&t[k], "sweepDistMinTrigger", l->gcc_sweepdisttrigger);
	gt_add(&t[k], "triggered", l->gcc_triggered);
	gt_add(&t[k], "heapMarked", l->gcc_heapmarked);
	gt_add(&t[k], "heapInUse", l->gcc_heapinuse);
	gt_add(&t[k], "heapReleased", l->gcc_heapreleased);
	gt_add(&t[k], "heapFree", l->gcc_heapfree);
	gt_add(&t[k], "totalAlloc", l->gcc_totalalloc);
	gt_add(&t[k], "totalFree", l->gcc_totalfree);
	gt_add(&t[k], "mappedReady", l->gcc_mappedready);
	k++;
	t[k].name = "runtime.mheap";
	gt_add(&t[k], "spanalloc", spanalloc);
	gt_add(&t[k], "cachealloc", cachealloc);
	k++;
	t[k].name = "runtime.fixalloc";
	gt_add(&t[k], "inuse", l->fa_inuse);
	k++;
	t[k].name = "runtime.p";
	gt_add(&t[k], "mcache", l->p_mcache);
	k++;
	t[k].name = "runtime.mcache";
	gt_add(&t[k], "tinyAllocs", l->mc_tinyallocs);
	/* retained.c: the tiny block two words before */
	gt_add(&t[k], "tiny", (int64_t)l->mc_tinyallocs - 16);
	gt_add(&t[k], "alloc", l->mc_alloc);
	k++;
	/* releaseAll's fields of a cached span (heap fields: htypes_for) */
	t[k].name = "runtime.mspan";
	gt_add(&t[k], "allocCountBeforeCache", l->ms_alloccount_bc);
	gt_add(&t[k], "nelems", l->ms_nelems);
	k++;
	/* uncacheSpan's push (the stride, the padded element, is checked
	 * through spanalloc's offset: 136 elements after central) */
	t[k].name = "runtime.mheap";
	gt_add(&t[k], "central", central);
	k++;
	t[k].name = "runtime.mcentral";
	t[k].size_want = 168;   /* padded to stride (spanalloc's offset) */
	gt_add(&t[k], "partial", l->mc_partial);
	gt_add(&t[k], "full", l->mc_full);
	k++;
	t[k].name = "runtime.spanSet";
	t[k].size_want = l->ss_size;
	gt_add(&t[k], "spine", l->ss_spine);
	gt_add(&t[k], "spineLen", l->ss_spinelen);
	gt_add(&t[k], "spineCap", l->ss_spinecap);
	gt_add(&t[k], "index", l->ss_index);
	k++;
	t[k].name = "runtime.spanSetBlock";
	t[k].size_want = l->ssb_size;
	k++;
	/* gcount (runtime.NumGoroutine) and ThreadCreateProfile's walk */
	t[k].name = "runtime.schedt";
	gt_add(&t[k], "ngsys", l->sched_ngsys);
	if (l->sched_gfree_n2 == 0) {
		gt_add(&t[k], "gFree.n", l->sched_gfree_n);
		t[k + 1].name = "runtime.p";
		gt_add(&t[k + 1], "gFree.n", l->p_gfree_n);
	} else {
		gt_add(&t[k], "gFree.stack.size", l->sched_gfree_n);
		gt_add(&t[k], "gFree.noStack.size", l->sched_gfree_n2);
		t[k + 1].name = "runtime.p";
		gt_add(&t[k + 1], "gFree.size", l->p_gfree_n);
	}
	k += 2;
	t[k].name = "runtime.m";
	gt_add(&t[k], "alllink", l->m_alllink);
	k++;
	*n = k;
}

static void gt_read(Dwarf_Die *die, dw_gtype *t)
{
	size_t i;
	Dwarf_Word sz;

	t->found = 1;
	if (dwarf_aggregate_size(die, &sz) == 0)
		t->size_got = sz;
	for (i = 0; i < t->n; i++)
		t->f[i].got = dw_member_off(die, t->f[i].name);
}

/* Mismatches of the goroutine types into b; *nchk the offsets compared. */
static void gt_report(gh_buf *b, const dw_gtype *t, size_t n, size_t *nchk)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!t[i].found) {
			if (t[i].optional)
				continue;
			gh_buf_printf(b, "; no %s in the DWARF", t[i].name);
			continue;
		}
		if (t[i].size_want != 0) {
			(*nchk)++;
			if (t[i].size_got != t[i].size_want)
				gh_buf_printf(b, "; %s is %llu bytes, the table "
					      "says %llu", t[i].name,
					      (unsigned long long)t[i].size_got,
					      (unsigned long long)t[i].size_want);
		}
		for (j = 0; j < t[i].n; j++) {
			const dw_gfield *f = &t[i].f[j];

			(*nchk)++;
			if (f->got == f->want)
				continue;
			if (f->want == DW_ABSENT)
				gh_buf_printf(b, "; %s.%s at %lld, the table says "
					      "this release has none", t[i].name,
					      f->name, (long long)f->got);
			else if (f->got < 0)
				gh_buf_printf(b, "; no %s.%s, the table says %lld",
					      t[i].name, f->name,
					      (long long)f->want);
			else
				gh_buf_printf(b, "; %s.%s at %lld, the table says "
					      "%lld", t[i].name, f->name,
					      (long long)f->got, (long long)f->want);
		}
	}
}

/* ---- the traceback tables against the runtime's data ----------------------- */

/* The Go string {ptr, len} at vaddr, or NULL. */
static const char *exe_gostring(const gh_exe *e, uint64_t vaddr, size_t *len)
{
	uint64_t p, n;
	const unsigned char *s;

	if (gh_exe_read_word(e, vaddr, &p) != 0 ||
	    gh_exe_read_word(e, vaddr + 8, &n) != 0 || n > 4096)
		return NULL;
	if (n == 0) {
		*len = 0;
		return "";
	}
	s = gh_exe_ptr(e, p, (size_t)n);
	*len = (size_t)n;
	return (const char *)s;
}

/* A [N]string of the runtime (sym) against the row's table (want, nwant). */
static void strings_check(gh_buf *b, const gh_exe *e, const char *sym,
			  const char *const *want, unsigned nwant, int *nok)
{
	uint64_t addr, size, i;

	if (gh_exe_symbol(e, sym, &addr, &size) != 0) {
		gh_buf_printf(b, "; no %s in .symtab", sym);
		return;
	}
	if (size / 16 != nwant) {
		gh_buf_printf(b, "; %s has %llu entries, the table %u", sym,
			      (unsigned long long)(size / 16), nwant);
		return;
	}
	for (i = 0; i < nwant; i++) {
		size_t n;
		const char *s = exe_gostring(e, addr + 16 * i, &n);

		if (s == NULL || n != strlen(want[i]) ||
		    memcmp(s, want[i], n) != 0) {
			gh_buf_printf(b, "; %s[%llu] is \"%.*s\", the table "
				      "says \"%s\"", sym, (unsigned long long)i,
				      s != NULL ? (int)n : 1, s != NULL ? s : "?",
				      want[i]);
			return;
		}
	}
	(*nok)++;
}

/*
 * With a .symtab: gStatusStrings, waitReasonStrings and (rows that print
 * "(durable)") isIdleInSynctest against the row.  *what says what was
 * compared ("" when nothing: stripped).
 */
static void data_check(gh_buf *b, const char *path, const gh_rtlayout *l,
		       char *what, size_t wlen)
{
	gh_exe *e = NULL;
	gh_err err;
	uint64_t addr, size, i, mask = 0;
	int nok = 0;

	what[0] = '\0';
	memset(&err, 0, sizeof(err));
	if (l->ngstatus == 0 || gh_exe_open(&e, path, &err) != 0)
		return;
	if (!gh_exe_has_symtab(e) || gh_exe_ptr_size(e) != 8) {
		gh_exe_close(e);
		return;
	}
	strings_check(b, e, "runtime.gStatusStrings", l->gstatus_strings,
		      l->ngstatus, &nok);
	strings_check(b, e, "runtime.waitReasonStrings",
		      l->waitreason_strings, l->nwaitreason, &nok);
	snprintf(what, wlen, "gStatusStrings (%u), waitReasonStrings (%u)",
		 l->ngstatus, l->nwaitreason);
	if (l->tb_durable != 0) {
		const unsigned char *v;

		if (gh_exe_symbol(e, "runtime.isIdleInSynctest", &addr,
				  &size) != 0 || size != l->nwaitreason ||
		    size > 64 ||
		    (v = gh_exe_ptr(e, addr, (size_t)size)) == NULL) {
			gh_buf_printf(b, "; runtime.isIdleInSynctest not a "
				      "[%u]bool in the file", l->nwaitreason);
		} else {
			for (i = 0; i < size; i++)
				if (v[i] != 0)
					mask |= (uint64_t)1 << i;
			if (mask != l->idle_in_synctest)
				gh_buf_printf(b, "; runtime.isIdleInSynctest is "
					      "%#llx, the table says %#llx",
					      (unsigned long long)mask,
					      (unsigned long long)
					      l->idle_in_synctest);
			else
				nok++;
			snprintf(what + strlen(what), wlen - strlen(what),
				 ", isIdleInSynctest");
		}
	}
	gh_exe_close(e);
}

int gh_dwarf_check_layout(const char *path, const gh_rtlayout *lay,
			  unsigned ptr_size, char *report, size_t len,
			  gh_err *err)
{
	dw_struct ds[3] = {
		{ "runtime.bucket", 0, 0, { -1, -1, -1, -1 } },
		{ "runtime.memRecord", 0, 0, { -1, -1, -1, -1 } },
		{ "runtime.memRecordCycle", 0, 0, { -1, -1, -1, -1 } },
	};
	const unsigned want[4] = { lay->w_allnext, lay->w_typ, lay->w_size,
				   lay->w_nstk };
	dw_gtype gt[DW_NGTYPES];
	gh_buf b = GH_BUF_INIT;
	Dwarf *dw = NULL;
	Dwarf_Off off = 0, next;
	size_t hsize, i, nfound = 0, ngt = 0, gfound = 0, nchk = 0;
	char what[160] = "";
	int fd, rc = 0;

	if (report != NULL && len > 0)
		report[0] = '\0';
	/* the goroutine offsets are 64-bit ones, of verified rows */
	if (ptr_size == 8 && lay->g_verified)
		gtypes_for(lay, gt, &ngt);
	else
		memset(gt, 0, sizeof(gt));
	if (ptr_size == 8 && lay->heap_verified)
		htypes_for(lay, gt, &ngt);
	if (ptr_size == 8 && lay->ti_elem != 0)
		itypes_for(lay, gt, &ngt);
	if (ptr_size == 8) {
		gh_exe *e = NULL;
		gh_err e2;
		int a64 = 0;

		memset(&e2, 0, sizeof(e2));
		if (gh_exe_open(&e, path, &e2) == 0) {
			a64 = gh_exe_machine(e) == EM_AARCH64;
			gh_exe_close(e);
		}
		if (lay->heap_verified && lay->fin_size != 0)
			rtypes_for(lay, a64, gt, &ngt);
		if (lay->mstats_verified)
			mtypes_for(lay, a64, gt, &ngt);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gh_errf(err, GOHEAP_ENOEXE, "%s: cannot open", path);
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (dw == NULL) {
		if (report != NULL)
			snprintf(report, len, "no DWARF");
		goto out;
	}
	while ((nfound < 3 || gfound < ngt) &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) != NULL &&
		    dwarf_child(&cu, &die) == 0) {
			do {
				const char *n;
				int tag = dwarf_tag(&die);

				if (tag != DW_TAG_structure_type &&
				    tag != DW_TAG_variable)
					continue;
				n = dwarf_diename(&die);
				if (n == NULL)
					continue;
				for (i = 0; tag == DW_TAG_structure_type &&
				     i < 3; i++) {
					if (ds[i].found ||
					    strcmp(n, ds[i].name) != 0)
						continue;
					dw_read_struct(&die, &ds[i], i == 0 ?
						       dw_bucket_fields : NULL,
						       4);
					nfound++;
				}
				for (i = 0; i < ngt; i++) {
					Dwarf_Attribute at;
					Dwarf_Die ty;

					if (gt[i].found ||
					    (tag == DW_TAG_variable) != gt[i].var ||
					    strcmp(n, gt[i].name) != 0)
						continue;
					if (!gt[i].var) {
						gt_read(&die, &gt[i]);
						gfound++;
					} else if (dwarf_attr(&die, DW_AT_type,
							      &at) != NULL &&
						   dwarf_formref_die(&at, &ty) !=
						   NULL) {
						gt_read(&ty, &gt[i]);
						gfound++;
					}
				}
			} while ((nfound < 3 || gfound < ngt) &&
				 dwarf_siblingof(&die, &die) == 0);
		}
		off = next;
	}
	if (nfound == 0) {
		if (report != NULL)
			snprintf(report, len, "DWARF without runtime.bucket");
		goto out;
	}
	if (ds[0].found) {
		if (ds[0].size != (uint64_t)lay->bucket_words * ptr_size)
			gh_buf_printf(&b, "; runtime.bucket is %llu bytes, "
				      "the table says %u",
				      (unsigned long long)ds[0].size,
				      lay->bucket_words * ptr_size);
		for (i = 0; i < 4; i++)
			if (ds[0].off[i] != (int64_t)want[i] * ptr_size)
				gh_buf_printf(&b, "; bucket.%s at %lld, the "
					      "table says %u",
					      dw_bucket_fields[i],
					      (long long)ds[0].off[i],
					      want[i] * ptr_size);
	}
	if (ds[2].found &&
	    ds[2].size != (uint64_t)lay->cycle_words * ptr_size)
		gh_buf_printf(&b, "; runtime.memRecordCycle is %llu bytes, "
			      "the table says %u",
			      (unsigned long long)ds[2].size,
			      lay->cycle_words * ptr_size);
	if (ds[1].found &&
	    ds[1].size != 4ull * lay->cycle_words * ptr_size)
		gh_buf_printf(&b, "; runtime.memRecord is %llu bytes, the "
			      "table says %u", (unsigned long long)ds[1].size,
			      4 * lay->cycle_words * ptr_size);
	gt_report(&b, gt, ngt, &nchk);
	data_check(&b, path, lay, what, sizeof(what));
	if (b.oom) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	} else if (b.len > 0) {
		gh_buf_putc(&b, '\0');
		rc = gh_errf(err, GOHEAP_EVERSION, "unsupported runtime "
			     "layout: DWARF of %s disagrees with the built-in "
			     "table (%s)%s", path, lay->cite,
			     b.oom ? "" : (const char *)b.data);
	} else if (report != NULL) {
		size_t l0;

		snprintf(report, len, "DWARF layouts match (%zu of 3 types "
			 "found)", nfound);
		l0 = strlen(report);
		if (ngt > 0 && l0 < len)
			snprintf(report + l0, len - l0, "; goroutine offsets "
				 "match (%zu of %zu types, %zu offsets)",
				 gfound, ngt, nchk);
		l0 = strlen(report);
		if (what[0] != '\0' && l0 < len)
			snprintf(report + l0, len - l0, "; the runtime's %s "
				 "== the table", what);
	}
out:
	gh_buf_free(&b);
	if (dw != NULL)
		dwarf_end(dw);
	close(fd);
	return rc;
}

/*
 * pprof_builder.h - the pprof writer's builder (Go's profileBuilder), its
 * memos and the proto's field numbers: private to fmt_pprof.c and
 * pprof_stream.c.
 */
#ifndef GH_PPROF_BUILDER_H
#define GH_PPROF_BUILDER_H

#include "fmt_common.h"
#include "pb.h"
#include "pprof_gzip.h"

/* ---- profile.proto field numbers (proto.go's tag constants) ----------- */

enum {
	/* message Profile */
	tagProfile_SampleType = 1,        /* repeated ValueType */
	tagProfile_Sample = 2,            /* repeated Sample */
	tagProfile_Mapping = 3,           /* repeated Mapping */
	tagProfile_Location = 4,          /* repeated Location */
	tagProfile_Function = 5,          /* repeated Function */
	tagProfile_StringTable = 6,       /* repeated string */
	tagProfile_TimeNanos = 9,         /* int64 */
	tagProfile_DurationNanos = 10,    /* int64 (deltas) */
	tagProfile_PeriodType = 11,       /* ValueType */
	tagProfile_Period = 12,           /* int64 */
	tagProfile_Comment = 13,          /* repeated int64 (string table index) */
	tagProfile_DefaultSampleType = 14,/* int64 (string table index) */

	/* message ValueType */
	tagValueType_Type = 1,            /* int64 (string table index) */
	tagValueType_Unit = 2,            /* int64 (string table index) */

	/* message Sample */
	tagSample_Location = 1,           /* repeated uint64 */
	tagSample_Value = 2,              /* repeated int64 */
	tagSample_Label = 3,              /* repeated Label */

	/* message Label */
	tagLabel_Key = 1,                 /* int64 (string table index) */
	tagLabel_Str = 2,                 /* int64 (string table index) */
	tagLabel_Num = 3,                 /* int64 */

	/* message Mapping */
	tagMapping_ID = 1,                /* uint64 */
	tagMapping_Start = 2,             /* uint64 */
	tagMapping_Limit = 3,             /* uint64 */
	tagMapping_Offset = 4,            /* uint64 */
	tagMapping_Filename = 5,          /* int64 (string table index) */
	tagMapping_BuildID = 6,           /* int64 (string table index) */
	tagMapping_HasFunctions = 7,      /* bool */

	/* message Location */
	tagLocation_ID = 1,               /* uint64 */
	tagLocation_MappingID = 2,        /* uint64 */
	tagLocation_Address = 3,          /* uint64 */
	tagLocation_Line = 4,             /* repeated Line */

	/* message Line */
	tagLine_FunctionID = 1,           /* uint64 */
	tagLine_Line = 2,                 /* int64 */

	/* message Function */
	tagFunction_ID = 1,               /* uint64 */
	tagFunction_Name = 2,             /* int64 (string table index) */
	tagFunction_SystemName = 3,       /* int64 (string table index) */
	tagFunction_Filename = 4,         /* int64 (string table index) */
	tagFunction_StartLine = 5,        /* int64 */
};

/* proto.go symbolizeFlag */
enum { LOOKUP_TRIED = 1, LOOKUP_FAILED = 2 };

/* ---- memos -------------------------------------------------------------- */

/* The memos' direct-mapped slots (fin, scale) are indexed by this. */
static inline uint64_t hash_u64(uint64_t x)
{
	/* splitmix64 finaliser: PCs differ in few low bits. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* ---- the builder ----------------------------------------------------- */

/* proto.go memMap */
typedef struct mem_map {
	uint64_t start, end, offset;
	const char *file, *build_id;
	unsigned funcs;       /* symbolizeFlag, OR of every location's */
	int fake;             /* no maps were known: matches every address */
} mem_map;

/* proto.go locInfo; pcs and firstPCFrames live in the builder's pools. */
typedef struct loc_info {
	uint64_t id;
	size_t pc_off, npcs;
	size_t fr_off, nfr;
	unsigned first_sym;   /* firstPCSymbolizeResult */
} loc_info;

/* proto.go pcDeck */
typedef struct pc_deck {
	uint64_t *pcs;
	size_t npcs, cap_pcs;
	gh_frame *frames;
	size_t nframes, cap_frames;
	unsigned sym;         /* symbolizeResult */
	size_t first_frames;  /* firstPCFrames */
	unsigned first_sym;   /* firstPCSymbolizeResult */
} pc_deck;

/* emitLocation's newFunc */
typedef struct new_func {
	uint64_t id;
	const char *name, *file;
	int64_t start_line;
} new_func;

/*
 * Direct-mapped memo of "expandFinalInlineFrame leaves the stack as it
 * is", keyed by the last PC: most last PCs are not inside an inlined call.
 */
#define FIN_CACHE 4096u

typedef struct fin_slot {
	uint64_t pc;          /* 0 = empty */
	int expands;
} fin_slot;

/*
 * Direct-mapped memo in front of the location map for the hot loop of
 * append_locs_for_stack: a PC that starts a cached location, with that
 * location's id and PC count in one 16-byte slot (no probe loop, no
 * second load from linfo).  A location is made for a PC that has none,
 * so a slot does not go stale (emit_location clears it all the same if
 * its PC gets another); a collision only costs a look-up in locs.
 */
#define LOC_CACHE 1024u
#define LOC_CACHE_SHIFT 54    /* 64 - log2(LOC_CACHE) */

typedef struct loc_slot {
	uint64_t pc;          /* 0 = empty */
	uint32_t id, npcs;
} loc_slot;

static inline loc_slot *loc_slot_of(loc_slot *lc, uint64_t pc)
{
	return &lc[(pc * 0x9e3779b97f4a7c15ULL) >> LOC_CACHE_SHIFT];
}

/*
 * Direct-mapped memo of scaleHeapSample's scale factor for this profile's
 * rate, keyed by the average object size (see scale_cached): a profile has
 * few distinct ones, and each costs one of Go's math.Exp.
 */
#define SCALE_CACHE 1024u

typedef struct scale_slot {
	uint64_t avg_bits;    /* the average object size's double, as bits */
	double scale;         /* 1 / (1 - exp(-avg / rate)) */
	int used;
} scale_slot;

typedef struct builder {
	const gh_profile *p;
	const gh_sym *sym;
	/* Per-PC frames and hideRuntime's verdicts (fmt_common.h); the
	 * location cache below is proto.go's own, keyed by location. */
	gh_stackx *x;
	fin_slot *fin;        /* FIN_CACHE slots, or NULL */
	loc_slot *lc;         /* LOC_CACHE slots, or NULL */
	scale_slot *scale;    /* SCALE_CACHE slots, or NULL */
	/* string_index("bytes") once known, else 0: the label of every
	 * heap sample would hash and compare the key again. */
	int64_t str_bytes;
	gh_wstats *stats;     /* optional stage timings (bench, -v) */
	gh_pb pb;
	int err;              /* sticky GOHEAP_E* */

	/* Behaviour by version and target, decided once. */
	int print_name_eq;    /* 1.21: tryAdd compares Frame.Function */
	int start_line;       /* 1.21+: Function.start_line */
	int f2i;              /* enum gh_f2i_rule: Go's int64(float64) */
	int impl;             /* gh_go_exp_impl(p->machine) */

	/*
	 * stringMap and funcs: FNV-1a of the string -> index + 1 (strings)
	 * or Function.ID (fnames[ID-1]); entries sharing a hash are told
	 * apart by the strings themselves.  Keys are not copied: every
	 * string comes from the symbolizer, the profile or a literal, all
	 * of which outlive the builder.
	 */
	const char **strings; /* string table, "" first */
	size_t nstrings, cap_strings;
	gh_hmap string_map;
	/*
	 * Strings holding a NUL byte (goroutine labels are Go strings:
	 * string_index_n): their ids and lengths in id order, and a map of
	 * their own (FNV-1a of the bytes -> index in nul + 1), so that no
	 * C-string lookup can match one.
	 */
	struct nul_str { size_t id, len; } *nul;
	size_t nnul, cap_nul;
	gh_hmap nul_map;

	/*
	 * addr -> index in linfo + 1 (map[uintptr]locInfo).  The hot path
	 * (a cached location) reads id and npcs from linfo: one load more
	 * than keeping them in the slot, as this file once did, but linfo
	 * stays in cache and the slots are half the size: callgrind at
	 * 100k buckets, 5% fewer instructions, the same cache misses.
	 */
	gh_hmap locs;
	loc_info *linfo;
	size_t nlinfo, cap_linfo;
	uint64_t *pcpool;
	size_t npcpool, cap_pcpool;
	gh_frame *frpool;
	size_t nfrpool, cap_frpool;

	gh_hmap funcs;        /* symbol name -> Function.ID */
	const char **fnames;  /* by Function.ID - 1 */
	size_t nfnames, cap_fnames;

	mem_map *mem;
	size_t nmem;

	pc_deck deck;
	new_func *newf;
	size_t nnewf, cap_newf;

	gh_framevec fv;       /* scratch for all_frames */
	uint64_t *lids;       /* the sample's location ids */
	size_t nlids, cap_lids;
	/*
	 * lids as the payload of the packed Sample.location field, encoded
	 * once per append_locs_for_stack: records that repeat the previous
	 * stack reuse both (write_heap_proto).
	 */
	unsigned char *lidbytes;
	size_t nlidbytes, cap_lidbytes;
	int lidbytes_ok;
	/*
	 * The return PC inside runtime.goexit, which ends every goroutine's
	 * stack: all_frames gives no frame for it, so it is never cached as
	 * a location and would be symbolized again for every sample.
	 */
	uint64_t goexit_pc;
	uint64_t *stk;        /* scratch stack (expandInlinedFrames) */
	size_t cap_stk;

	gh_gz gz;
} builder;

/* A heap sample's values and "bytes" label, as writeHeapProto makes them
 * (tab: a scale memo of SCALE_CACHE slots, or NULL). */
typedef struct heap_vals {
	int64_t v[4];
	int label;
	int64_t label_bytes;
} heap_vals;

/* The builder's steps that the streaming writer (pprof_stream.c) shares
 * with gh_write_pprof (fmt_pprof.c). */
int gh_pp_init(builder *b, const gh_profile *p, const gh_wctx *w, gh_buf *out,
	       gh_err *err);
int gh_pp_finish(builder *b, int rc, gh_err *err);
void gh_pp_free(builder *b);
int gh_pp_same_stack(const gh_record *x, const gh_record *y);
void gh_pp_heap_values(const gh_profile *p, scale_slot *tab, int impl, int f2i,
		       const gh_record *r, heap_vals *out);
void gh_pp_heap_begin(builder *b);
void gh_pp_heap_emit(builder *b, const gh_record *r, int same,
		     const heap_vals *hv);

#endif

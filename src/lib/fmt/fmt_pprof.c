/*
 * fmt_pprof.c - gzip'd profile.proto, as runtime/pprof writes it inside the
 * target.
 *
 * This is Go's profileBuilder (src/runtime/pprof/proto.go) with
 * writeHeapProto (protomem.go) and printCountCycleProfile (pprof.go) on top,
 * ported step by step and under the same names: append_locs_for_stack,
 * all_frames, deck_try_add, emit_location, scale_heap_sample.  Doing the
 * same steps in the same order is what makes the decompressed stream equal
 * to Go's byte for byte: the string table and the location and function
 * ids are assigned in order of first use, each Location is followed by the
 * Functions it introduced, and mappings and strings come last.  We
 * rejected building a message tree and serialising it at the end (as
 * google/pprof's Go package does): it would order ids differently.
 *
 * Where Go recomputes a result we know cannot change, we remember it: the
 * goexit PC that ends every stack, the ids of a stack equal to the
 * previous record's, scaleHeapSample by (count, size), the "bytes" label
 * key.  Each memo says why its result is the one Go computes; none changes
 * a byte of the output.
 *
 * Symbolization goes through sym.h only, which emulates
 * runtime.CallersFrames, runtime.FuncForPC and runtime_expandFinalInlineFrame
 * from the executable's pclntab.  Behaviour that changed between Go releases
 * is selected from gh_profile.ver; each switch cites the version whose
 * source shows it.
 *
 * The bytes are compressed at level 1 (gzip.BestSpeed) on a thread of the
 * writer's own (pprof_gzip.c), behind a header equal to compress/gzip's;
 * the deflate stream itself differs from Go's compress/flate, so compare
 * decompressed bytes.  scaleHeapSample needs Go's math.Exp, which is
 * assembly on amd64 and arm64 and differs from glibc's exp in the last
 * bit: src/util/gomath.c ports the three.  The streaming writer
 * (gh_pprof_stream) is pprof_stream.c.
 */
#include "config.h"

#include <elf.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fmt_common.h"
#include "pb.h"
#include "pprof_builder.h"
#include "retleak.h"

#if defined(__clang__)
/* Go never fuses a*b+c on amd64/386; the ports below must not either. */
#pragma STDC FP_CONTRACT OFF
#endif

/* The builder's types and the proto's field numbers: pprof_builder.h. */

static int64_t string_index(builder *b, const char *s)
{
	uint64_t h = gh_fnv1a_str(s), v;
	size_t it;
	int64_t id;

	for (v = gh_hmap_first(&b->string_map, h, &it); v != 0;
	     v = gh_hmap_next(&b->string_map, h, &it))
		if (strcmp(b->strings[v - 1], s) == 0)
			return (int64_t)(v - 1);
	id = (int64_t)b->nstrings;
	if (gh_grow(&b->strings, &b->cap_strings, b->nstrings + 1,
		    sizeof(*b->strings)) != 0 ||
	    gh_hmap_add(&b->string_map, h, (uint64_t)id + 1) != 0) {
		b->err = GOHEAP_ENOMEM;
		return 0;
	}
	b->strings[b->nstrings++] = s;
	return id;
}

/* string_index of the n bytes at s (s[n] == '\0'), which may hold NUL
 * bytes (a goroutine label: the proto has the whole Go string). */
static int64_t string_index_n(builder *b, const char *s, size_t n)
{
	uint64_t h, v;
	size_t it;
	int64_t id;

	if (memchr(s, '\0', n) == NULL)
		return string_index(b, s);
	h = gh_fnv1a(s, n);
	for (v = gh_hmap_first(&b->nul_map, h, &it); v != 0;
	     v = gh_hmap_next(&b->nul_map, h, &it))
		if (b->nul[v - 1].len == n &&
		    memcmp(b->strings[b->nul[v - 1].id], s, n) == 0)
			return (int64_t)b->nul[v - 1].id;
	id = (int64_t)b->nstrings;
	if (gh_grow(&b->strings, &b->cap_strings, b->nstrings + 1,
		    sizeof(*b->strings)) != 0 ||
	    gh_grow(&b->nul, &b->cap_nul, b->nnul + 1, sizeof(*b->nul)) != 0 ||
	    gh_hmap_add(&b->nul_map, h, (uint64_t)b->nnul + 1) != 0) {
		b->err = GOHEAP_ENOMEM;
		return 0;
	}
	b->nul[b->nnul].id = (size_t)id;
	b->nul[b->nnul++].len = n;
	b->strings[b->nstrings++] = s;
	return id;
}

/* funcs[name], or 0; *h is set to name's hash for func_add. */
static uint64_t func_find(const builder *b, const char *name, uint64_t *h)
{
	uint64_t v;
	size_t it;

	*h = gh_fnv1a_str(name);
	for (v = gh_hmap_first(&b->funcs, *h, &it); v != 0;
	     v = gh_hmap_next(&b->funcs, *h, &it))
		if (strcmp(b->fnames[v - 1], name) == 0)
			return v;
	return 0;
}

/* funcs[name] = len(funcs) + 1, for a name func_find did not find. */
static uint64_t func_add(builder *b, const char *name, uint64_t h)
{
	uint64_t id = (uint64_t)b->nfnames + 1;

	if (gh_grow(&b->fnames, &b->cap_fnames, b->nfnames + 1,
		    sizeof(*b->fnames)) != 0 ||
	    gh_hmap_add(&b->funcs, h, id) != 0)
		return 0;
	b->fnames[b->nfnames++] = name;
	return id;
}

/* proto.go flush: only between top-level messages. */
static void builder_flush(builder *b)
{
	int rc;

	if (b->err == 0 && b->pb.nest == 0 && b->pb.data.len > GH_GZ_CHUNK &&
	    (rc = gh_gz_push(&b->gz, &b->pb.data, 0)) != 0)
		b->err = rc;
}

static void pb_value_type(builder *b, int tag, const char *typ,
			  const char *unit)
{
	size_t start = gh_pb_start_message(&b->pb);

	gh_pb_int64(&b->pb, tagValueType_Type, string_index(b, typ));
	gh_pb_int64(&b->pb, tagValueType_Unit, string_index(b, unit));
	gh_pb_end_message(&b->pb, tag, start);
}

/* pbLabel, with the string indexes of key and str already looked up. */
static void pb_label(builder *b, int tag, int64_t key, int64_t str,
		     int64_t num)
{
	size_t start = gh_pb_start_message(&b->pb);

	gh_pb_int64_opt(&b->pb, tagLabel_Key, key);
	gh_pb_int64_opt(&b->pb, tagLabel_Str, str);
	gh_pb_int64_opt(&b->pb, tagLabel_Num, num);
	gh_pb_end_message(&b->pb, tag, start);
}

/*
 * Encode b->lids as a packed varint payload into b->lidbytes, once per
 * stack; 0, or ENOMEM (the caller then falls back to gh_pb_uint64s).
 */
static int encode_lids(builder *b)
{
	unsigned char *q;
	uint64_t x;
	size_t i;

	if (b->lidbytes_ok)
		return 0;
	if (gh_grow(&b->lidbytes, &b->cap_lidbytes, b->nlids * 10,
		 sizeof(*b->lidbytes)) != 0)
		return GOHEAP_ENOMEM;
	q = b->lidbytes;
	for (i = 0; i < b->nlids; i++) {
		for (x = b->lids[i]; x >= 128; x >>= 7)
			*q++ = (unsigned char)(x | 0x80);
		*q++ = (unsigned char)x;
	}
	b->nlidbytes = (size_t)(q - b->lidbytes);
	b->lidbytes_ok = 1;
	return 0;
}

static size_t varint_len(uint64_t x)
{
	/* 7 bits a byte: ceil(bits / 7) for the bits x needs. */
	return x < 128 ? 1 : (size_t)(70 - __builtin_clzll(x)) / 7;
}

static unsigned char *put_varint(unsigned char *p, uint64_t x)
{
	while (x >= 128) {
		*p++ = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char)x;
	return p;
}

/*
 * pb_sample below in one pass: the lengths are summed first and each
 * byte is written once, where pb.c's startMessage/endMessage writes the
 * fields and then moves them right to insert each key and length (three
 * moves per sample).  The same bytes: the same fields, in Go's order,
 * with Go's packing rule.  Returns 0 when it does not apply (more than 8
 * values, or locations that could not be packed).
 */
static int pb_sample_fast(builder *b, const int64_t *values, size_t nvalues,
			  int label, int64_t label_bytes)
{
	size_t i, vlen = 0, body, llen = 0, loclen;
	unsigned char *q;

	if (nvalues > 8 || (b->nlids > 2 && encode_lids(b) != 0))
		return 0;
	for (i = 0; i < nvalues; i++)
		vlen += varint_len((uint64_t)values[i]);
	/* Value: packed (key, length, varints) when more than 2. */
	body = nvalues > 2 ? 1 + varint_len(vlen) + vlen : nvalues + vlen;
	if (b->nlids > 2) {
		loclen = 1 + varint_len(b->nlidbytes) + b->nlidbytes;
	} else {
		loclen = 0;
		for (i = 0; i < b->nlids; i++)
			loclen += 1 + varint_len(b->lids[i]);
	}
	body += loclen;
	if (label) {
		if (b->str_bytes == 0)
			b->str_bytes = string_index(b, "bytes");
		/* pbLabel: key, (str 0 omitted), num, each only if != 0 */
		if (b->str_bytes != 0)
			llen += 1 + varint_len((uint64_t)b->str_bytes);
		if (label_bytes != 0)
			llen += 1 + varint_len((uint64_t)label_bytes);
		body += 1 + varint_len(llen) + llen;
	}
	if (gh_buf_reserve(&b->pb.data, 1 + varint_len(body) + body) != 0)
		return 1;     /* oom is sticky in the buffer */
	q = b->pb.data.data + b->pb.data.len;
	*q++ = tagProfile_Sample << 3 | 2;
	q = put_varint(q, body);
	if (nvalues > 2) {
		*q++ = tagSample_Value << 3 | 2;
		q = put_varint(q, vlen);
		for (i = 0; i < nvalues; i++)
			q = put_varint(q, (uint64_t)values[i]);
	} else {
		for (i = 0; i < nvalues; i++) {
			*q++ = tagSample_Value << 3 | 0;
			q = put_varint(q, (uint64_t)values[i]);
		}
	}
	if (b->nlids > 2) {
		*q++ = tagSample_Location << 3 | 2;
		q = put_varint(q, b->nlidbytes);
		memcpy(q, b->lidbytes, b->nlidbytes);
		q += b->nlidbytes;
	} else {
		for (i = 0; i < b->nlids; i++) {
			*q++ = tagSample_Location << 3 | 0;
			q = put_varint(q, b->lids[i]);
		}
	}
	if (label) {
		*q++ = tagSample_Label << 3 | 2;
		q = put_varint(q, llen);
		if (b->str_bytes != 0) {
			*q++ = tagLabel_Key << 3 | 0;
			q = put_varint(q, (uint64_t)b->str_bytes);
		}
		if (label_bytes != 0) {
			*q++ = tagLabel_Num << 3 | 0;
			q = put_varint(q, (uint64_t)label_bytes);
		}
	}
	b->pb.data.len = (size_t)(q - b->pb.data.data);
	builder_flush(b);
	return 1;
}

/* pbSample; `label` adds protomem.go's "bytes" label with label_bytes. */
static void pb_sample(builder *b, const int64_t *values, size_t nvalues,
		      int label, int64_t label_bytes)
{
	size_t start;

	if (b->pb.nest == 0 &&
	    pb_sample_fast(b, values, nvalues, label, label_bytes))
		return;
	start = gh_pb_start_message(&b->pb);

	gh_pb_int64s(&b->pb, tagSample_Value, values, nvalues);
	if (b->nlids > 2 && encode_lids(b) == 0) {
		/* Packed: the same bytes as gh_pb_uint64s would write. */
		gh_pb_string(&b->pb, tagSample_Location,
			     (const char *)b->lidbytes, b->nlidbytes);
	} else {
		gh_pb_uint64s(&b->pb, tagSample_Location, b->lids, b->nlids);
	}
	if (label) {
		/* pbLabel(tagSample_Label, "bytes", "", blockSize); "" is
		 * always string 0. */
		if (b->str_bytes == 0)
			b->str_bytes = string_index(b, "bytes");
		pb_label(b, tagSample_Label, b->str_bytes, 0, label_bytes);
	}
	gh_pb_end_message(&b->pb, tagProfile_Sample, start);
	builder_flush(b);
}

static void pb_line(builder *b, int tag, uint64_t func_id, int64_t line)
{
	size_t start = gh_pb_start_message(&b->pb);

	gh_pb_uint64_opt(&b->pb, tagLine_FunctionID, func_id);
	gh_pb_int64_opt(&b->pb, tagLine_Line, line);
	gh_pb_end_message(&b->pb, tag, start);
}

static void pb_mapping(builder *b, int tag, uint64_t id, const mem_map *m,
		       int has_funcs)
{
	size_t start = gh_pb_start_message(&b->pb);

	gh_pb_uint64_opt(&b->pb, tagMapping_ID, id);
	gh_pb_uint64_opt(&b->pb, tagMapping_Start, m->start);
	gh_pb_uint64_opt(&b->pb, tagMapping_Limit, m->end);
	gh_pb_uint64_opt(&b->pb, tagMapping_Offset, m->offset);
	gh_pb_int64_opt(&b->pb, tagMapping_Filename,
			string_index(b, m->file));
	gh_pb_int64_opt(&b->pb, tagMapping_BuildID,
			string_index(b, m->build_id));
	/* HasFilenames/LineNumbers/InlineFrames: Go never sets them. */
	if (has_funcs)
		gh_pb_bool(&b->pb, tagMapping_HasFunctions, 1);
	gh_pb_end_message(&b->pb, tag, start);
}

static int push_lid(builder *b, uint64_t id)
{
	unsigned char *q;

	/* Once per PC of a stack: test the room here, grow out of line. */
	if ((b->nlids >= b->cap_lids &&
	     gh_grow(&b->lids, &b->cap_lids, b->nlids + 1, sizeof(*b->lids))) ||
	    gh_grow(&b->lidbytes, &b->cap_lidbytes, b->nlidbytes + 10,
		    sizeof(*b->lidbytes)))
		return GOHEAP_ENOMEM;
	b->lids[b->nlids++] = id;
	q = b->lidbytes + b->nlidbytes;
	for (; id >= 128; id >>= 7)
		*q++ = (unsigned char)(id | 0x80);
	*q++ = (unsigned char)id;
	b->nlidbytes = (size_t)(q - b->lidbytes);
	return 0;
}

/* ---- allFrames, pcDeck, emitLocation ----------------------------------- */

/*
 * allFrames(addr): runtime.CallersFrames([]uintptr{addr}).  With a single
 * PC, Next returns exactly one frame in every version 1.19-1.24: the
 * innermost function at addr-1.  (1.23 synthesises the missing virtual PCs
 * of inlined callers only while `len(ci.callers) > 0`, i.e. never after
 * the last PC, symtab.go Frames.Next.)  So we keep only the first frame,
 * whatever the symbolizer returned after it.  An unknown PC gives Go's
 * zero Frame, whose PC 0 is then replaced by addr-1.
 * Returns the number of frames (0 for runtime.goexit, else 1).
 */
static size_t all_frames(builder *b, uint64_t addr, gh_frame *out,
			 unsigned *sym)
{
	static const gh_frame zero = { 0, 0, "", "", 0, 0, 1, 0, 0 };
	gh_frame f = zero;

	double t0;

	/* Same PC, same answer: the symbolizer is a pure function. */
	if (addr != 0 && addr == b->goexit_pc)
		return 0;
	t0 = b->stats != NULL ? gh_now() : 0;
	b->fv.n = 0;
	if (gh_sym_callers_frames(b->sym, &addr, 1, &b->fv) != 0) {
		b->err = GOHEAP_ENOMEM;
		return 0;
	}
	if (b->stats != NULL)
		b->stats->t_symbolize += gh_now() - t0;
	if (b->fv.n > 0 && (b->fv.v[0].entry != 0 ||
			    b->fv.v[0].function[0] != '\0'))
		f = b->fv.v[0];
	if (f.function == NULL)
		f.function = "";
	if (f.file == NULL)
		f.file = "";
	if (strcmp(f.function, "runtime.goexit") == 0) {
		/* Short-circuit: no useless empty location for goexit. */
		b->goexit_pc = addr;
		return 0;
	}
	*sym = LOOKUP_TRIED;
	if (f.pc == 0 || f.function[0] == '\0' || f.file[0] == '\0' ||
	    f.line == 0)
		*sym |= LOOKUP_FAILED;
	if (f.pc == 0) {
		/* "at least make up a reasonable call PC" (proto.go) */
		f.pc = addr - 1;
	}
	*out = f;
	return 1;
}

static void deck_reset(pc_deck *d)
{
	d->npcs = 0;
	d->nframes = 0;
	d->sym = 0;
	d->first_frames = 0;
	d->first_sym = 0;
}

/* Frame.Function == Frame.Function as the version's tryAdd compares. */
static int same_func_name(const builder *b, const gh_frame *x,
			  const gh_frame *y)
{
	char bx[512], by[512];

	if (!b->print_name_eq)
		return strcmp(x->function, y->function) == 0;
	/* Go 1.21 compares Frame.Function: funcNameForPrint of the name. */
	return strcmp(gh_func_name_for_print(x->function, bx, sizeof(bx)),
		      gh_func_name_for_print(y->function, by, sizeof(by))) == 0;
}

/*
 * pcDeck.tryAdd.  Inlined frames of one physical frame arrive as
 * consecutive PCs (the innermost at the real return PC, the callers at
 * their virtual PCs); they are merged into one Location when the last
 * frame is inlined, both share the physical entry, and the names differ
 * (an inlined function cannot be directly recursive).  Worked example in
 * proto.go above pcDeck.
 */
static int deck_try_add(builder *b, uint64_t pc, const gh_frame *frames,
			size_t nframes, unsigned sym)
{
	pc_deck *d = &b->deck;
	const gh_frame *last, *nf;

	if (d->nframes > 0) {
		nf = &frames[0];
		last = &d->frames[d->nframes - 1];
		if (!last->inlined)
			return 0;
		if (last->entry == 0 || nf->entry == 0)
			return 0;
		if (last->entry != nf->entry)
			return 0;
		if (same_func_name(b, last, nf))
			return 0;
	}
	if (gh_grow(&d->pcs, &d->cap_pcs, d->npcs + 1, sizeof(*d->pcs)) ||
	    gh_grow(&d->frames, &d->cap_frames, d->nframes + nframes,
		 sizeof(*d->frames))) {
		b->err = GOHEAP_ENOMEM;
		return 1;
	}
	d->pcs[d->npcs++] = pc;
	memcpy(d->frames + d->nframes, frames, nframes * sizeof(*frames));
	d->nframes += nframes;
	d->sym |= sym;
	if (d->npcs == 1) {
		d->first_frames = d->nframes;
		d->first_sym = sym;
	}
	return 1;
}

/*
 * emitLocation: write the deck as one Location, then the Functions it
 * introduced (a message cannot be written inside another), cache it by its
 * first PC and reset the deck.  Returns the id, 0 if the deck was empty.
 */
static uint64_t emit_location(builder *b)
{
	pc_deck *d = &b->deck;
	uint64_t addr, id, func_id;
	loc_info *li;
	size_t start, i, fstart;
	const gh_frame *fr;
	const char *name;
	uint64_t h;

	if (d->npcs == 0 || b->err != 0)
		return 0;
	addr = d->pcs[0];
	b->nnewf = 0;

	/* id = len(b.locs)+1: distinct keys, as a Go map counts them. */
	id = (uint64_t)b->locs.n + 1;
	if (gh_grow(&b->linfo, &b->cap_linfo, b->nlinfo + 1, sizeof(*b->linfo)) ||
	    gh_grow(&b->pcpool, &b->cap_pcpool, b->npcpool + d->npcs,
		 sizeof(*b->pcpool)) ||
	    gh_grow(&b->frpool, &b->cap_frpool, b->nfrpool + d->first_frames,
		 sizeof(*b->frpool)))
		goto oom;
	if (gh_hmap_put(&b->locs, addr, (uint64_t)b->nlinfo + 1) != 0)
		goto oom;
	/* A deck starts at a PC with no location, so this adds a key; were
	 * one ever replaced, its slot in the direct-mapped memo goes too. */
	if (b->lc != NULL) {
		loc_slot *ls = loc_slot_of(b->lc, addr);

		if (ls->pc == addr)
			ls->pc = 0;
	}
	li = &b->linfo[b->nlinfo++];
	li->id = id;
	li->pc_off = b->npcpool;
	li->npcs = d->npcs;
	li->fr_off = b->nfrpool;
	li->nfr = d->first_frames;
	li->first_sym = d->first_sym;
	memcpy(b->pcpool + b->npcpool, d->pcs, d->npcs * sizeof(*d->pcs));
	b->npcpool += d->npcs;
	memcpy(b->frpool + b->nfrpool, d->frames,
	       d->first_frames * sizeof(*d->frames));
	b->nfrpool += d->first_frames;

	start = gh_pb_start_message(&b->pb);
	gh_pb_uint64_opt(&b->pb, tagLocation_ID, id);
	gh_pb_uint64_opt(&b->pb, tagLocation_Address, d->frames[0].pc);
	for (i = 0; i < d->nframes; i++) {
		fr = &d->frames[i];
		/*
		 * Functions are keyed by runtime_FrameSymbolName (1.21+), the
		 * raw name with go.shape arguments; 1.19 used Frame.Function,
		 * which was also the raw name then.
		 */
		name = fr->function;
		func_id = func_find(b, name, &h);
		if (func_id == 0) {
			func_id = func_add(b, name, h);
			if (func_id == 0 ||
			    gh_grow(&b->newf, &b->cap_newf, b->nnewf + 1,
				    sizeof(*b->newf)))
				goto oom;
			b->newf[b->nnewf].id = func_id;
			b->newf[b->nnewf].name = name;
			b->newf[b->nnewf].file = fr->file;
			b->newf[b->nnewf].start_line = fr->start_line;
			b->nnewf++;
		}
		pb_line(b, tagLocation_Line, func_id, fr->line);
	}
	/* The mapping of the return PC deck.pcs[0], not of Address. */
	for (i = 0; i < b->nmem; i++) {
		if ((b->mem[i].start <= addr && addr < b->mem[i].end) ||
		    b->mem[i].fake) {
			gh_pb_uint64_opt(&b->pb, tagLocation_MappingID,
					 (uint64_t)i + 1);
			b->mem[i].funcs |= d->sym;
			break;
		}
	}
	gh_pb_end_message(&b->pb, tagProfile_Location, start);

	for (i = 0; i < b->nnewf; i++) {
		const new_func *nf = &b->newf[i];

		fstart = gh_pb_start_message(&b->pb);
		gh_pb_uint64_opt(&b->pb, tagFunction_ID, nf->id);
		gh_pb_int64_opt(&b->pb, tagFunction_Name,
				string_index(b, nf->name));
		gh_pb_int64_opt(&b->pb, tagFunction_SystemName,
				string_index(b, nf->name));
		gh_pb_int64_opt(&b->pb, tagFunction_Filename,
				string_index(b, nf->file));
		if (b->start_line)
			gh_pb_int64_opt(&b->pb, tagFunction_StartLine,
					nf->start_line);
		gh_pb_end_message(&b->pb, tagProfile_Function, fstart);
	}
	builder_flush(b);
	deck_reset(d);
	return id;
oom:
	b->err = GOHEAP_ENOMEM;
	deck_reset(d);
	return 0;
}

/* Emit the pending deck and append its id to the sample, if any. */
static void flush_deck(builder *b)
{
	uint64_t id = emit_location(b);

	if (id > 0 && push_lid(b, id) != 0)
		b->err = GOHEAP_ENOMEM;
}

/*
 * appendLocsForStack: the location ids of stk (return PCs, or 1 + the PC
 * of an inline mark) into b->lids.  May be empty, e.g. for a stack of only
 * runtime.goexit; the sample is still written, for the totals.
 */
static void append_locs_for_stack(builder *b, const uint64_t *stk0,
				  size_t n0)
{
	uint64_t *stk = NULL, addr, id;
	const uint64_t *pcs;
	fin_slot *fin;
	size_t n = 0, i = 0, skip;
	uint64_t v;
	const loc_info *li;
	gh_frame frame;
	unsigned sym = 0;

	b->nlids = 0;
	b->nlidbytes = 0;
	b->lidbytes_ok = 0;
	deck_reset(&b->deck);
	if (b->err != 0)
		return;

	/* The last frame might be truncated.  Recover lost inline frames.
	 * Most last PCs are not inside an inlined call; the memo keyed on
	 * the last PC skips the lookup and the copy for those. */
	fin = NULL;
	if (b->fin != NULL && n0 > 0) {
		fin = &b->fin[hash_u64(stk0[n0 - 1]) & (FIN_CACHE - 1)];
		if (fin->pc != stk0[n0 - 1])
			fin = NULL;
	}
	if (fin != NULL && !fin->expands) {
		stk = NULL;
		n = n0;
	} else {
		if (gh_sym_expand_final_inline(b->sym, stk0, n0, &stk, &n) != 0) {
			b->err = GOHEAP_ENOMEM;
			goto cleanup;
		}
		if (b->fin != NULL && n0 > 0) {
			fin = &b->fin[hash_u64(stk0[n0 - 1]) & (FIN_CACHE - 1)];
			fin->pc = stk0[n0 - 1];
			fin->expands = n != n0;
		}
	}
	pcs = stk != NULL ? stk : stk0;
	/* Each id takes at least one PC: room for all of them once, and
	 * for their packed encoding (at most 10 bytes each), written as
	 * they are found (push_lid and the loop below). */
	if (n > 0 && (gh_grow(&b->lids, &b->cap_lids, n, sizeof(*b->lids)) != 0 ||
		      gh_grow(&b->lidbytes, &b->cap_lidbytes, n * 10,
			      sizeof(*b->lidbytes)) != 0)) {
		b->err = GOHEAP_ENOMEM;
		goto cleanup;
	}

	while (i < n && b->err == 0) {
		/*
		 * The common case, a PC that starts a cached location while
		 * no deck is being built, in a tight loop: exactly what the
		 * general step below does for it (push the id, skip its
		 * PCs), without its other tests.
		 */
		if (b->deck.npcs == 0) {
			/* On locals: lids are uint64_t, as size_t is here,
			 * so with b->nlids and the map read through b every
			 * store into lids would make the compiler reload
			 * them. */
			const gh_hmap locs = b->locs;
			const loc_info *linfo = b->linfo;
			loc_slot *lc = b->lc, *ls;
			uint64_t *lids = b->lids, x, pc;
			unsigned char *q = b->lidbytes + b->nlidbytes;
			size_t nl = b->nlids;

			while (i < n) {
				pc = pcs[i];
				ls = lc != NULL ? loc_slot_of(lc, pc) : NULL;
				if (ls != NULL && ls->pc == pc && pc != 0) {
					x = ls->id;
					skip = ls->npcs;
				} else {
					v = gh_hmap_get(&locs, pc);
					if (v == 0)
						break;
					li = &linfo[v - 1];
					x = li->id;
					skip = li->npcs;
					if (ls != NULL && x <= UINT32_MAX &&
					    skip <= UINT32_MAX) {
						ls->pc = pc;
						ls->id = (uint32_t)x;
						ls->npcs = (uint32_t)skip;
					}
				}
				lids[nl++] = x;
				for (; x >= 128; x >>= 7)
					*q++ = (unsigned char)(x | 0x80);
				*q++ = (unsigned char)x;
				/*
				 * A branch, not arithmetic: most locations
				 * cover one PC, and a predicted branch lets
				 * the next PC's look-up start before this
				 * one's linfo load returns (i + npcs would
				 * chain every look-up on the previous one):
				 * this function's CPU time at 100k buckets
				 * about halved (perf: ~120 -> ~65 ns a
				 * record).
				 */
				if (skip == 1)
					i++;
				else
					i = skip > n - i ? n : i + skip;
			}
			b->nlids = nl;
			b->nlidbytes = (size_t)(q - b->lidbytes);
		}
		if (i >= n)
			break;
		addr = pcs[i];
		v = gh_hmap_get(&b->locs, addr);
		if (v != 0) {
			li = &b->linfo[v - 1];
			/*
			 * addr may be an inline mark's virtual PC belonging to
			 * the deck being built (proto.go explains the NOPs),
			 * so try the deck before trusting the cache.
			 */
			if (b->deck.npcs > 0) {
				if (deck_try_add(b, addr, b->frpool + li->fr_off,
						 li->nfr, li->first_sym)) {
					i++;
					continue;
				}
			}
			id = li->id;
			skip = li->npcs; /* li dies in emit_location */
			if (b->deck.npcs > 0)
				flush_deck(b);
			if (push_lid(b, id) != 0)
				b->err = GOHEAP_ENOMEM;
			/*
			 * Skip the PCs the cached location covers.  Go
			 * slices stk[len(l.pcs):] and panics if the stack is
			 * too short (1.24 says so explicitly); we stop.
			 */
			i = skip > n - i ? n : i + skip;
			continue;
		}

		if (all_frames(b, addr, &frame, &sym) == 0) {
			/* runtime.goexit (or out of memory) */
			flush_deck(b);
			i++;
			continue;
		}
		if (deck_try_add(b, addr, &frame, 1, sym)) {
			i++;
			continue;
		}
		/* Not inlined with the deck: flush it and retry this pc. */
		flush_deck(b);
		v = gh_hmap_get(&b->locs, addr);
		if (v != 0) {
			li = &b->linfo[v - 1];
			if (push_lid(b, li->id) != 0)
				b->err = GOHEAP_ENOMEM;
			skip = li->npcs;
			i = skip > n - i ? n : i + skip;
		} else {
			deck_try_add(b, addr, &frame, 1, sym); /* succeeds */
			i++;
		}
	}
	flush_deck(b);
	/* Every id went through push_lid or the loop above. */
	b->lidbytes_ok = b->err == 0;
cleanup:
	free(stk);
}

/* ---- heap / allocs: writeHeapProto ------------------------------------- */

int gh_pp_same_stack(const gh_record *x, const gh_record *y)
{
	return x->nstk == y->nstk &&
	       (x->nstk == 0 || x->stk == y->stk ||
		memcmp(x->stk, y->stk, x->nstk * sizeof(*x->stk)) == 0);
}

/*
 * The sample's location ids for r: hideRuntime drops the leading runtime
 * frames; if that leaves no location, the whole stack is used.
 */
static void heap_locs(builder *b, const gh_record *r)
{
	/* The leading PCs whose FuncForPC name is a runtime one (none if
	 * all are: protomem.go then keeps the whole stack). */
	size_t skip = gh_stackx_skip_runtime(b->x, r->stk, r->nstk);

	append_locs_for_stack(b, r->stk + skip, r->nstk - skip);
	if (b->nlids == 0 && skip > 0)
		/* try again, and show all frames */
		append_locs_for_stack(b, r->stk, r->nstk);
}

/*
 * gh_scale_heap_sample_impl at the profile's rate, with its one costly
 * step memoised: scale = 1/(1-exp(-avg/rate)) depends only on the average
 * object size avg = float64(size)/float64(count), and a profile has few
 * distinct ones (a bucket holds one size class), while counts differ from
 * bucket to bucket.  The key is avg's exact bits, so the products below
 * are the very operations Go performs: bit for bit the same results.
 */
static void scale_cached(scale_slot *tab, int64_t rate, int64_t count,
			 int64_t size, int impl, int f2i, int64_t *out_count,
			 int64_t *out_size)
{
	scale_slot *slot;
	double avg;
	uint64_t bits;

	if (tab == NULL || count == 0 || size == 0 || rate <= 1) {
		gh_scale_heap_sample(count, size, rate, impl, out_count,
					  out_size);
		return;
	}
	avg = (double)size / (double)count;
	memcpy(&bits, &avg, sizeof(bits));
	slot = &tab[hash_u64(bits) & (SCALE_CACHE - 1)];
	if (!slot->used || slot->avg_bits != bits) {
		slot->used = 1;
		slot->avg_bits = bits;
		slot->scale = 1 / (1 - gh_go_exp(-avg / (double)rate, impl));
	}
	*out_count = gh_go_f2i64((double)count * slot->scale, f2i);
	*out_size = gh_go_f2i64((double)size * slot->scale, f2i);
}


/*
 * bytes is exactly count objects of size, all three exact as doubles
 * (below 2^53): float64(bytes)/float64(count) is then size itself, the
 * correctly rounded quotient of exact values.
 */
static inline int avg_is_size(int64_t count, int64_t bytes, int64_t size)
{
	int64_t prod;

	return count > 0 && bytes < ((int64_t)1 << 53) &&
	       !__builtin_mul_overflow(count, size, &prod) && prod == bytes;
}

void gh_pp_heap_values(const gh_profile *p, scale_slot *tab, int impl,
			int f2i, const gh_record *r, heap_vals *out)
{
	int64_t size = r->object_size;
	int64_t c0 = r->alloc_objects, b0 = r->alloc_bytes;
	int64_t c1 = gh_wsub(r->alloc_objects, r->free_objects);
	int64_t b1 = gh_wsub(r->alloc_bytes, r->free_bytes);

	/*
	 * A memory bucket's bytes are its counts times its size (the
	 * walker checks each cycle), so both averages are the size: one
	 * memo look-up keyed by it, no division, the same bits as
	 * scale_cached computes (the key is the same average).
	 */
	if (tab != NULL && p->rate > 1 && size > 0 &&
	    avg_is_size(c0, b0, size) &&
	    (c1 == 0 || avg_is_size(c1, b1, size))) {
		double avg = (double)size, scale;
		uint64_t bits;
		scale_slot *slot;

		memcpy(&bits, &avg, sizeof(bits));
		slot = &tab[hash_u64(bits) & (SCALE_CACHE - 1)];
		if (!slot->used || slot->avg_bits != bits) {
			slot->used = 1;
			slot->avg_bits = bits;
			slot->scale = 1 / (1 - gh_go_exp(-avg / (double)p->rate,
							 impl));
		}
		scale = slot->scale;
		out->v[0] = gh_go_f2i64((double)c0 * scale, f2i);
		out->v[1] = gh_go_f2i64((double)b0 * scale, f2i);
		if (c1 == 0 || b1 == 0) {
			out->v[2] = 0;
			out->v[3] = 0;
		} else {
			out->v[2] = gh_go_f2i64((double)c1 * scale, f2i);
			out->v[3] = gh_go_f2i64((double)b1 * scale, f2i);
		}
	} else {
		scale_cached(tab, p->rate, c0, b0, impl, f2i, &out->v[0],
			     &out->v[1]);
		scale_cached(tab, p->rate, c1, b1, impl, f2i, &out->v[2],
			     &out->v[3]);
	}
	if (gh_profile_rt(p)->heap_label_always) {
		/* 1.27: every sample, "bytes" = ObjectSize. */
		out->label = 1;
		out->label_bytes = r->object_size;
		return;
	}
	out->label_bytes = 0;
	if (r->alloc_objects > 0)
		out->label_bytes = r->alloc_bytes / r->alloc_objects;
	out->label = out->label_bytes != 0;
}

/* writeHeapProto's header: sample types, period, default type. */
void gh_pp_heap_begin(builder *b)
{
	const gh_profile *p = b->p;

	pb_value_type(b, tagProfile_PeriodType, "space", "bytes");
	gh_pb_int64_opt(&b->pb, tagProfile_Period, p->rate);
	pb_value_type(b, tagProfile_SampleType, "alloc_objects", "count");
	pb_value_type(b, tagProfile_SampleType, "alloc_space", "bytes");
	pb_value_type(b, tagProfile_SampleType, "inuse_objects", "count");
	pb_value_type(b, tagProfile_SampleType, "inuse_space", "bytes");
	/* pprof.go: writeHeap passes "", writeAlloc "alloc_space". */
	if (p->kind == GOHEAP_PROFILE_ALLOCS)
		gh_pb_int64_opt(&b->pb, tagProfile_DefaultSampleType,
				string_index(b, "alloc_space"));
}

/*
 * writeHeapProto's loop body for r; same: r's stack is the previous
 * record's (same_stack).
 */
void gh_pp_heap_emit(builder *b, const gh_record *r, int same,
			    const heap_vals *hv)
{
	/*
	 * A record with the previous record's stack (one call site,
	 * another size class: a slice growing in a loop makes such
	 * neighbours) gets the previous ids, still in b->lids.  Go
	 * computes them again and gets the same ones: the first call
	 * cached a location under every PC it started one at, so the
	 * second finds each of them with an empty deck, emits nothing
	 * and returns the same ids.
	 */
	if (!same)
		heap_locs(b, r);
	pb_sample(b, hv->v, 4, hv->label, hv->label_bytes);
}

static void heap_proto_record(builder *b, const gh_record *r,
			      const gh_record *prev)
{
	heap_vals hv;

	gh_pp_heap_values(b->p, b->scale, b->impl, b->f2i, r, &hv);
	gh_pp_heap_emit(b, r, prev != NULL && gh_pp_same_stack(r, prev), &hv);
}

static void write_heap_proto(builder *b)
{
	const gh_profile *p = b->p;
	size_t i;

	gh_pp_heap_begin(b);
	for (i = 0; i < p->nrecs && b->err == 0; i++)
		heap_proto_record(b, &p->recs[i],
				  i > 0 ? &p->recs[i - 1] : NULL);
}

/* ---- block / mutex: printCountCycleProfile ----------------------------- */

/*
 * printCountProfile's proto half for the goroutine profile (pprof.go,
 * writeGoroutine -> writeRuntimeProfile at debug 0): period type and
 * sample type "goroutine"/"count", period 1, one sample per key in the
 * keysByCount order with its count, the stack's locations (return PCs, as
 * appendLocsForStack expects) and, when the goroutine has labels, one
 * string label per key/value (in labelMap order: the sorted list from
 * 1.24, map order, which pprof does not fix, before).
 */
static int write_goroutine_proto(builder *b)
{
	const gh_profile *p = b->p;
	gh_gor_group *g = NULL;
	size_t ng = 0, i, j;
	int64_t value;
	int rc;

	const char *name = gh_gor_is_leak(p) ? "goroutineleak" : "goroutine";
	int64_t vals[2];

	pb_value_type(b, tagProfile_PeriodType, name, "count");
	gh_pb_int64_opt(&b->pb, tagProfile_Period, 1);
	pb_value_type(b, tagProfile_SampleType, name, "count");
	/* -p goroutineleak: what each record's goroutines alone keep alive
	 * (not in Go's profile) */
	if (gh_gor_is_leak(p))
		pb_value_type(b, tagProfile_SampleType, "leaked_space",
			      "bytes");
	rc = gh_gor_groups(p, &g, &ng);
	if (rc != 0)
		return rc;
	for (i = 0; i < ng && b->err == 0; i++) {
		const gh_goroutine *gr = &gh_gor_of(p)->gors[g[i].first];
		size_t start;

		value = g[i].count;
		vals[0] = value;
		if (gh_gor_is_leak(p)) {
			gh_leak_held hd;

			gh_leak_group_held(p, g[i].first, &hd);
			vals[1] = (int64_t)hd.bytes;
		}
		append_locs_for_stack(b, gr->stk, gr->nstk);
		start = gh_pb_start_message(&b->pb);
		gh_pb_int64s(&b->pb, tagSample_Value, vals,
			     gh_gor_is_leak(p) ? 2 : 1);
		gh_pb_uint64s(&b->pb, tagSample_Location, b->lids, b->nlids);
		for (j = 0; gr->has_labels && j < gr->nlabels; j++)
			pb_label(b, tagSample_Label,
				 string_index_n(b, gr->labels[j].key,
						gr->labels[j].klen),
				 string_index_n(b, gr->labels[j].value,
						gr->labels[j].vlen), 0);
		gh_pb_end_message(&b->pb, tagProfile_Sample, start);
		builder_flush(b);
	}
	gh_gor_groups_free(g, ng);
	return 0;
}

/*
 * writeProfileInternal sorts the records by Cycles, descending, before
 * printCountCycleProfile writes them: sort.Slice up to 1.22,
 * slices.SortFunc from 1.23, both pdqsort, whose order of equal Cycles
 * gh_record_order reproduces.  From 1.23 each stack is first expanded
 * (expandInlinedFrames, at most profstackdepth frames).
 */
static int write_count_cycle_proto(builder *b)
{
	const gh_profile *p = b->p;
	size_t *order = NULL, depth = gh_profstackdepth(p), i, n;
	int expand = gh_profile_rt(p)->full_stacks;
	const gh_record *r;
	int64_t values[2];
	gh_sampler s;
	int rc;

	pb_value_type(b, tagProfile_PeriodType, "contentions", "count");
	gh_pb_int64_opt(&b->pb, tagProfile_Period, 1);
	pb_value_type(b, tagProfile_SampleType, "contentions", "count");
	pb_value_type(b, tagProfile_SampleType, "delay", "nanoseconds");

	/* The values: contentions, and Cycles / (cyclesPerSecond / 1e9)
	 * as int64 (before 1.20 mutex ones scaled by the sampling rate). */
	rc = gh_sampler_init(&s, p, GOHEAP_SAMPLE_DEFAULT);
	if (rc != 0)
		return rc;
	order = gh_record_order(p);
	if (order == NULL && p->nrecs > 0)
		return GOHEAP_ENOMEM;
	if (expand && gh_grow(&b->stk, &b->cap_stk, depth,
			      sizeof(*b->stk)) != 0) {
		free(order);
		return GOHEAP_ENOMEM;
	}
	for (i = 0; i < p->nrecs && b->err == 0; i++) {
		r = &p->recs[order[i]];
		gh_sampler_cycle_values(&s, r, values);
		if (expand) {
			if (gh_stackx_expand_inlined(b->x, r->stk, r->nstk,
						     depth, b->stk, &n) != 0) {
				b->err = GOHEAP_ENOMEM;
				break;
			}
			append_locs_for_stack(b, b->stk, n);
		} else {
			append_locs_for_stack(b, r->stk, r->nstk);
		}
		pb_sample(b, values, 2, 0, 0);
	}
	free(order);
	return 0;
}

/* ---- build ------------------------------------------------------------- */

void gh_pp_free(builder *b)
{
	gh_gz_free(&b->gz);
	gh_pb_free(&b->pb);
	free(b->strings);
	gh_hmap_free(&b->string_map);
	free(b->nul);
	gh_hmap_free(&b->nul_map);
	gh_hmap_free(&b->locs);
	free(b->linfo);
	free(b->pcpool);
	free(b->frpool);
	gh_hmap_free(&b->funcs);
	free(b->fnames);
	free(b->mem);
	gh_stackx_free(b->x);
	free(b->fin);
	free(b->lc);
	free(b->scale);
	free(b->deck.pcs);
	free(b->deck.frames);
	free(b->newf);
	gh_framevec_free(&b->fv);
	free(b->lids);
	free(b->lidbytes);
	free(b->stk);
}

/*
 * build(): TimeNanos, the mappings with HasFunctions when every location
 * in them was symbolized (funcs == lookupTried), the string table, then
 * close the gzip stream.
 */
static int builder_build(builder *b)
{
	/* Lives until the string table is written below. */
	char note[sizeof(b->p->skipped_reason) + 160];
	size_t i, j;

	/* Not Go's: what the walker left out (walk.c, "Implausible
	 * buckets"), where every reader of the profile sees it. */
	if (b->p->skipped > 0) {
		snprintf(note, sizeof(note), "go-heap: %llu of %llu buckets "
			 "left out as implausible (first at 0x%llx: %s)",
			 (unsigned long long)b->p->skipped,
			 (unsigned long long)(b->p->nbuckets >= b->p->skipped ?
					      b->p->nbuckets :
					      b->p->nrecs + b->p->skipped),
			 (unsigned long long)b->p->skipped_bucket,
			 b->p->skipped_reason);
		gh_pb_int64(&b->pb, tagProfile_Comment, string_index(b, note));
	}
	gh_pb_int64_opt(&b->pb, tagProfile_TimeNanos, b->p->time_nanos);
	gh_pb_int64_opt(&b->pb, tagProfile_DurationNanos, b->p->duration_nanos);
	for (i = 0; i < b->nmem; i++)
		pb_mapping(b, tagProfile_Mapping, (uint64_t)i + 1, &b->mem[i],
			   b->mem[i].funcs == LOOKUP_TRIED);
	for (i = 0, j = 0; i < b->nstrings; i++)
		gh_pb_string(&b->pb, tagProfile_StringTable, b->strings[i],
			     j < b->nnul && b->nul[j].id == i ?
			     b->nul[j++].len : strlen(b->strings[i]));
	if (b->err != 0)
		return b->err;
	return gh_gz_push(&b->gz, &b->pb.data, 1);
}

/* newProfileBuilder: the builder for p, its string table started and
 * the mappings read.  builder_free in any case. */
int gh_pp_init(builder *b, const gh_profile *p, const gh_wctx *w,
			gh_buf *out, gh_err *err)
{
	size_t i;
	int rc;

	memset(b, 0, sizeof(*b));
	b->p = p;
	b->sym = w->sym;
	b->stats = w->stats;
	/* A memo only: without memory it is skipped, not an error. */
	b->fin = gh_calloc(FIN_CACHE, sizeof(*b->fin));
	b->lc = gh_calloc(LOC_CACHE, sizeof(*b->lc));
	b->scale = gh_calloc(SCALE_CACHE, sizeof(*b->scale));
	b->print_name_eq = gh_profile_rt(p)->proto_name_eq;
	b->start_line = gh_profile_rt(p)->proto_start_line;
	b->f2i = gh_f2i_rule(p->machine);
	b->impl = gh_go_exp_impl(p->machine);

	rc = gh_gz_init(&b->gz, out, b->stats, err);
	if (rc != 0)
		return rc;
	if (gh_stackx_new(&b->x, b->sym, p->ver) != 0)
		return gh_errf(err, GOHEAP_ENOMEM, "allocating the frame cache");

	/* newProfileBuilder: strings = [""], then readMapping. */
	if (string_index(b, "") != 0 || b->err != 0)
		return gh_errf(err, GOHEAP_ENOMEM, "building the string table");
	b->nmem = p->nmaps > 0 ? p->nmaps : 1;
	b->mem = gh_calloc(b->nmem, sizeof(*b->mem));
	if (b->mem == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "copying mappings");
	for (i = 0; i < p->nmaps; i++) {
		b->mem[i].start = p->maps[i].start;
		b->mem[i].end = p->maps[i].end;
		b->mem[i].offset = p->maps[i].offset;
		b->mem[i].file = p->maps[i].file ? p->maps[i].file : "";
		b->mem[i].build_id = p->maps[i].build_id;
	}
	if (p->nmaps == 0) {
		/* "pprof expects a map entry, so fake one." */
		b->mem[0].file = "";
		b->mem[0].build_id = "";
		b->mem[0].fake = 1;
	}
	return 0;
}

/* The end of a write: the rest of the profile, or the error. */
int gh_pp_finish(builder *b, int rc, gh_err *err)
{
	if (rc == 0)
		rc = b->err;
	if (rc == 0)
		rc = builder_build(b);
	if (rc != 0)
		rc = gh_errf(err, rc, "writing the pprof profile: %s",
			     goheap_strerror(rc));
	if (b->stats != NULL)
		b->stats->suspect += b->fv.suspect + gh_stackx_suspect(b->x);
	gh_pp_free(b);
	return rc;
}

int gh_write_pprof(const gh_profile *p, const gh_wctx *w, gh_buf *out,
		   gh_err *err)
{
	builder b;
	int rc;

	rc = gh_pp_init(&b, p, w, out, err);
	if (rc != 0) {
		if (b.stats != NULL)
			b.stats->suspect += b.fv.suspect +
					    gh_stackx_suspect(b.x);
		gh_pp_free(&b);
		return rc;
	}
	switch (p->kind) {
	case GOHEAP_PROFILE_HEAP:
	case GOHEAP_PROFILE_ALLOCS:
		write_heap_proto(&b);
		break;
	case GOHEAP_PROFILE_GOROUTINE:
		rc = write_goroutine_proto(&b);
		break;
	case GOHEAP_PROFILE_BLOCK:
	case GOHEAP_PROFILE_MUTEX:
		rc = write_count_cycle_proto(&b);
		break;
	default:
		rc = gh_errf(err, GOHEAP_EINVAL, "unknown profile kind %d",
			     p->kind);
		gh_pp_free(&b);
		return rc;
	}
	return gh_pp_finish(&b, rc, err);
}

/*
 * gorargs.c - runtime.printArgs from outside (gorargs.h).
 *
 * The loop below is printArgs of runtime/traceback.go (identical in 1.19
 * and 1.21-1.27 but for the constants' names), with the runtime's
 * implicit bounds made explicit: the stream is a [TraceArgsMaxLen]uint8
 * (an index past it would panic inside the runtime; here it is
 * ECORRUPT), only bytes actually present in the executable are decoded,
 * and a liveness byte outside the file is ECORRUPT too.
 */
#include "config.h"

#include "gorargs.h"

/* isLive: a slot below startOffset (a stack argument) is always live;
 * -1: the liveness byte is not there */
static int is_live(const gh_gor_argin *in, uint8_t off, uint8_t slot)
{
	if (!in->has_live || in->liveidx <= 0)
		return 1;
	if (off < in->start_offset)
		return 1;
	if ((size_t)(slot / 8) >= in->nbits)
		return -1;
	return (in->bits[slot / 8] & (1u << (slot % 8))) != 0;
}

/* print1 */
static int print1(gh_buf *out, const gh_gor_argin *in, uint8_t off,
		  uint8_t sz, uint8_t slot)
{
	uint64_t x;
	int live;

	if (in->read(in->ctx, in->argp + off, &x) != 0)
		return GOHEAP_ECORRUPT;
	if (sz < 8) {
		/* Go: shift := 64 - sz*8 (uint8); a shift of 64 gives 0 */
		unsigned shift = 64u - 8u * sz;

		if (shift >= 64)
			x = 0;
		else if (in->big_endian)
			x >>= shift;
		else
			x = x << shift >> shift;
	}
	live = is_live(in, off, slot);
	if (live < 0)
		return GOHEAP_ECORRUPT;
	{
		/* "0x%x" (+ "?"), without printf: a traceback has
		 * thousands of these */
		char t[20], *e = t + sizeof(t), *q = e;

		if (!live)
			*--q = '?';
		do {
			*--q = "0123456789abcdef"[x & 15];
			x >>= 4;
		} while (x != 0);
		*--q = 'x';
		*--q = '0';
		gh_buf_append(out, q, (size_t)(e - q));
	}
	return 0;
}

int gh_gor_args_format(gh_buf *out, const gh_gor_argin *in)
{
	size_t pi = 0, n = in->ninfo;
	uint8_t slot = 0, start_offset = in->has_live ? in->start_offset : 0xff;
	int start = 1, rc;

	if (n > GH_TRACEARGS_MAXLEN)
		n = GH_TRACEARGS_MAXLEN;
	/* every iteration consumes at least one byte of at most MAXLEN */
	for (;;) {
		uint8_t o;

		if (pi >= n)
			return GOHEAP_ECORRUPT;
		o = in->info[pi++];
		switch (o) {
		case GH_TRACEARGS_ENDSEQ:
			return 0;
		case GH_TRACEARGS_STARTAGG:
			if (!start)
				gh_buf_append(out, ", ", 2);
			gh_buf_putc(out, '{');
			start = 1;
			continue;
		case GH_TRACEARGS_ENDAGG:
			gh_buf_putc(out, '}');
			break;
		case GH_TRACEARGS_DOTDOTDOT:
			if (!start)
				gh_buf_append(out, ", ", 2);
			gh_buf_append(out, "...", 3);
			break;
		case GH_TRACEARGS_OFFSETTOOLARGE:
			if (!start)
				gh_buf_append(out, ", ", 2);
			gh_buf_putc(out, '_');
			break;
		default:
			if (!start)
				gh_buf_append(out, ", ", 2);
			if (pi >= n)
				return GOHEAP_ECORRUPT;
			rc = print1(out, in, o, in->info[pi++], slot);
			if (rc != 0)
				return rc;
			if (o >= start_offset)
				slot++;
			break;
		}
		start = 0;
	}
}

int gh_gor_argdesc_load(gh_gor_argdesc *d, const gh_sym *sym, uint64_t pc,
			uint64_t livepc)
{
	unsigned char first;
	size_t got = 0;
	int rc;

	d->rc = d->none = 0;
	d->ninfo = d->nbits = 0;
	d->has_live = 0;
	d->start_offset = 0;
	d->liveidx = 0;
	rc = gh_sym_funcdata_read(sym, pc, GH_FUNCDATA_ARGINFO, 0, d->info,
				  sizeof(d->info), &got);
	if (rc == GOHEAP_ENOSYM) {
		uint64_t entry;

		/* in a function without ArgInfo: "()" */
		d->none = 1;
		return d->rc = gh_sym_lookup(sym, pc, &entry, NULL) == 0 ? 0 :
			       rc;
	}
	if (rc != 0)
		return d->rc = rc;
	d->ninfo = got;
	rc = gh_sym_funcdata_read(sym, pc, GH_FUNCDATA_ARGLIVEINFO, 0, &first,
				  1, &got);
	if (rc == GOHEAP_EUNSUPPORTED)
		return d->rc = rc;
	if (rc == 0) {
		if (got != 1)
			return d->rc = GOHEAP_ECORRUPT;
		d->has_live = 1;
		d->start_offset = first;
		d->liveidx = gh_sym_pcdata_value(sym, pc, GH_PCDATA_ARGLIVEINDEX,
						 livepc);
		if (d->liveidx > 0) {
			/* slotIdx is a uint8: bits[0..31] covers all */
			rc = gh_sym_funcdata_read(sym, pc,
						  GH_FUNCDATA_ARGLIVEINFO,
						  (uint64_t)d->liveidx,
						  d->bits, sizeof(d->bits),
						  &got);
			if (rc != 0)
				return d->rc = rc;
			d->nbits = got;
		}
	}
	return d->rc = 0;
}

int gh_gor_argdesc_print(gh_buf *out, const gh_gor_argdesc *d, uint64_t argp,
			 gh_gor_readfn read, void *ctx, int big_endian)
{
	gh_gor_argin in;

	if (d->rc != 0 || d->none)
		return d->rc;
	memset(&in, 0, sizeof(in));
	in.info = d->info;
	in.ninfo = d->ninfo;
	in.has_live = d->has_live;
	in.start_offset = d->start_offset;
	in.liveidx = d->liveidx;
	in.bits = d->nbits > 0 ? d->bits : NULL;
	in.nbits = d->nbits;
	in.argp = argp;
	in.read = read;
	in.ctx = ctx;
	in.big_endian = big_endian;
	return gh_gor_args_format(out, &in);
}

int gh_gor_args(gh_buf *out, const gh_sym *sym, uint64_t pc,
		uint64_t livepc, uint64_t argp, gh_gor_readfn read, void *ctx,
		int big_endian)
{
	gh_gor_argdesc d;

	gh_gor_argdesc_load(&d, sym, pc, livepc);
	return gh_gor_argdesc_print(out, &d, argp, read, ctx, big_endian);
}

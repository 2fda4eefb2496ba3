/*
 * overlay.h - what the harnesses over a real target's memory share
 * (fuzz_gor.c, fuzz_types.c): the *overlay* memory source (a core's bytes
 * with patches laid over them, a second phase of patches switched on by
 * stop, as a live target changes while it runs), the decoder of an input
 * into patches aimed at the target ranges a harness found at start-up,
 * the seed writers, the snapshot directory's listing and the small text
 * scanners of the checks.
 *
 * Input format (after the harness's flag byte): patches until the end,
 *   patch: h (op = h & 3, phase = h >> 2 & 1), region u16, offset u16
 *          (both LE, modulo), then
 *     op 0  n (1..64), n bytes
 *     op 1  value index (the harness's table), width 1 << (byte & 3)
 *     op 2  region u16, offset u16: that address as an 8-byte word
 *     op 3  a bit index: that bit of the byte at offset flipped
 */
#ifndef GH_FUZZ_OVERLAY_H
#define GH_FUZZ_OVERLAY_H

#include "fuzz.h"

#include <dirent.h>

#include "memsrc.h"

typedef struct region {
	uint64_t addr;
	uint32_t len;
} region;

typedef struct patch {
	uint64_t addr;
	size_t len;
	const uint8_t *bytes;
	int phase;
} patch;

typedef struct overlay {
	const goheap_memsrc_ops *ops;  /* the core's */
	void *ctx;
	const patch *base;
	size_t nbase;
	const patch *p;
	size_t np;
	int phase;                      /* 1: stopped (phase-2 patches on) */
	int stop_fails, resume_fails;
	/* a page of zeros that shrink-core.py dropped from the core (it
	 * keeps only non-zero pages) is read as zeros; 0, 0: none */
	uint64_t zlo, zhi;
} overlay;

/* ---- the overlay memory source ---------------------------------------- */

static void ov_lay(const patch *p, uint64_t addr, void *buf, size_t len)
{
	uint64_t lo, hi, end = addr + len < addr ? UINT64_MAX : addr + len;
	uint64_t pend = p->addr + p->len < p->addr ? UINT64_MAX :
			p->addr + p->len;

	lo = addr > p->addr ? addr : p->addr;
	hi = end < pend ? end : pend;
	if (lo < hi)
		memcpy((uint8_t *)buf + (lo - addr), p->bytes + (lo - p->addr),
		       (size_t)(hi - lo));
}

static int ov_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	overlay *o = ctx;
	size_t i;
	int rc;

	rc = o->ops->read(o->ctx, addr, buf, len);
	if (rc != 0 && addr >= o->zlo && addr < o->zhi &&
	    len <= o->zhi - addr) {
		memset(buf, 0, len);
		rc = 0;
	}
	if (rc != 0)
		return rc;
	for (i = 0; i < o->nbase; i++)
		ov_lay(&o->base[i], addr, buf, len);
	for (i = 0; i < o->np; i++)
		if (o->p[i].phase <= o->phase)
			ov_lay(&o->p[i], addr, buf, len);
	return 0;
}

static int ov_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	overlay *o = ctx;

	return o->ops->mappings(o->ctx, cb, payload);
}

static int ov_executable(void *ctx, char *buf, size_t len)
{
	overlay *o = ctx;

	return o->ops->executable(o->ctx, buf, len);
}

static int ov_describe(void *ctx, char *buf, size_t len)
{
	overlay *o = ctx;

	return o->ops->describe != NULL ? o->ops->describe(o->ctx, buf, len) :
					  GOHEAP_EUNSUPPORTED;
}

static int ov_stop(void *ctx)
{
	overlay *o = ctx;

	if (o->stop_fails)
		return GOHEAP_EPERM;
	o->phase = 1;
	return 0;
}

static int ov_resume(void *ctx)
{
	overlay *o = ctx;

	return o->resume_fails ? GOHEAP_EIO : 0;
}

/* s->t.mem's source: reads only (the session's own ops stay the core's, so
 * that the core source's core_threads finds the threads) */
static const goheap_memsrc_ops ov_ops = {
	.version = GOHEAP_MEMSRC_OPS_VERSION,
	.read = ov_read,
	.mappings = ov_mappings,
	.executable = ov_executable,
	.describe = ov_describe,
};

/* snapshot mode: the session's ops, a live-like source that can stop */
static const goheap_memsrc_ops ov_stop_ops = {
	.version = GOHEAP_MEMSRC_OPS_VERSION,
	.read = ov_read,
	.mappings = ov_mappings,
	.executable = ov_executable,
	.describe = ov_describe,
	.stop = ov_stop,
	.resume = ov_resume,
};

/* ---- an input's patches ------------------------------------------------- */

typedef struct ov_input {
	const region *r;
	size_t nr;
	const uint64_t *vals;           /* op 1's values */
	size_t nvals;
	/* a region that is not memory (ri == special: the core's thread
	 * registers): op 3 starts from special_bytes[o], and a phase-1 patch
	 * is copied there instead of being kept; SIZE_MAX: none */
	size_t special;
	uint8_t *special_bytes;
} ov_input;

/*
 * Decode data[0..size) into at most max patches (ps; scratch: 8 bytes a
 * patch).  Returns the patches kept; *phase2 is set when one is for the
 * stopped phase.
 */
static size_t ov_parse(const overlay *ov, const ov_input *in,
		       const uint8_t *data, size_t size, patch *ps,
		       size_t max, uint8_t *scratch, int *phase2)
{
	size_t off = 0, np = 0, ns = 0;

	*phase2 = 0;
	while (off + 5 <= size && np < max) {
		unsigned h = data[off], op = h & 3;
		size_t ri = (data[off + 1] | (size_t)data[off + 2] << 8) % in->nr;
		const region *r = &in->r[ri];
		size_t o = (data[off + 3] | (size_t)data[off + 4] << 8) % r->len;
		patch *pt = &ps[np];
		uint8_t *sc = scratch + 8 * ns;
		uint64_t v = 0;

		off += 5;
		pt->addr = r->addr + o;
		pt->phase = (h >> 2) & 1;
		if (op == 0) {
			size_t len;

			if (off >= size)
				break;
			len = (size_t)(data[off++] & 63) + 1;
			if (len > size - off)
				len = size - off;
			pt->bytes = data + off;
			pt->len = len;
			off += len;
		} else if (op == 1 || op == 2) {
			unsigned w = 8;

			if (op == 1) {
				if (off + 2 > size)
					break;
				v = in->vals[data[off] % in->nvals];
				w = 1u << (data[off + 1] & 3);
				off += 2;
			} else {
				const region *r2;

				if (off + 4 > size)
					break;
				r2 = &in->r[(data[off] |
					     (size_t)data[off + 1] << 8) % in->nr];
				v = r2->addr + (data[off + 2] |
						(size_t)data[off + 3] << 8) %
					       r2->len;
				off += 4;
			}
			for (unsigned b = 0; b < 8; b++)
				sc[b] = (uint8_t)(v >> (8 * b));
			pt->bytes = sc;
			pt->len = w;
			ns++;
		} else {
			if (off >= size)
				break;
			/* the byte as the core has it, one bit flipped */
			if (ri == in->special)
				sc[0] = in->special_bytes != NULL ?
					in->special_bytes[o] : 0;
			else if (ov->ops->read(ov->ctx, pt->addr, sc, 1) != 0)
				sc[0] = 0;
			sc[0] ^= (uint8_t)(1u << (data[off++] & 7));
			pt->bytes = sc;
			pt->len = 1;
			ns++;
		}
		if (pt->len > r->len - o)
			pt->len = r->len - o;
		if (ri == in->special) {
			/* not memory: patched in place (restored by the
			 * harness after the input) */
			if (pt->phase == 0 && in->special_bytes != NULL)
				memcpy(in->special_bytes + o, pt->bytes,
				       pt->len);
			continue;
		}
		*phase2 |= pt->phase;
		np++;
	}
	return np;
}

/* ---- seeds -------------------------------------------------------------- */

typedef struct seedw {
	uint8_t b[512];
	size_t n;
} seedw;

static void sw_hdr(seedw *w, unsigned h, size_t reg, unsigned off)
{
	w->b[w->n++] = (uint8_t)h;
	w->b[w->n++] = (uint8_t)reg;
	w->b[w->n++] = (uint8_t)(reg >> 8);
	w->b[w->n++] = (uint8_t)off;
	w->b[w->n++] = (uint8_t)(off >> 8);
}

/* op 1: value index vi, width 1 << wl */
static void sw_val(seedw *w, size_t reg, unsigned off, unsigned vi,
		   unsigned wl, int phase)
{
	sw_hdr(w, 1 | (unsigned)phase << 2, reg, off);
	w->b[w->n++] = (uint8_t)vi;
	w->b[w->n++] = (uint8_t)wl;
}

static void sw_ptr(seedw *w, size_t reg, unsigned off, size_t reg2,
		   unsigned off2)
{
	sw_hdr(w, 2, reg, off);
	w->b[w->n++] = (uint8_t)reg2;
	w->b[w->n++] = (uint8_t)(reg2 >> 8);
	w->b[w->n++] = (uint8_t)off2;
	w->b[w->n++] = (uint8_t)(off2 >> 8);
}

static void sw_bytes(seedw *w, size_t reg, unsigned off, const void *b,
		     size_t len, int phase)
{
	sw_hdr(w, (unsigned)phase << 2, reg, off);
	w->b[w->n++] = (uint8_t)(len - 1);
	memcpy(w->b + w->n, b, len);
	w->n += len;
}

static void sw_put(const char *dir, const char *name, const seedw *w)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		return;
	fwrite(w->b, 1, w->n, f);
	fclose(f);
}

/* ---- the snapshots' directory ------------------------------------------- */

/*
 * The directory of a harness's snapshots: $ENV, else
 * $GOHEAP_CACHE/fuzz/SUB, $XDG_CACHE_HOME/go-heap/fuzz/SUB or
 * ~/.cache/go-heap/fuzz/SUB (seeds.sh's places).  Fills def.
 */
static const char *ov_snap_dir(const char *env, const char *sub, char *def,
			       size_t deflen)
{
	const char *dir = getenv(env), *c = getenv("GOHEAP_CACHE"),
		   *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (dir != NULL && dir[0] != '\0')
		return dir;
	if (c != NULL && c[0] != '\0')
		snprintf(def, deflen, "%s/fuzz/%s", c, sub);
	else if (x != NULL && x[0] != '\0')
		snprintf(def, deflen, "%s/go-heap/fuzz/%s", x, sub);
	else
		snprintf(def, deflen, "%s/.cache/go-heap/fuzz/%s",
			 h != NULL ? h : ".", sub);
	return def;
}

/*
 * The names in dir that start with prefix ("" any but dot files), sorted
 * (region and snapshot numbers must mean the same thing from run to run):
 * at most max, each strdup'ed.
 */
static size_t ov_snap_names(const char *dir, const char *prefix,
			    char **names, size_t max)
{
	size_t nn = 0, i, pl = strlen(prefix);
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d != NULL && (e = readdir(d)) != NULL && nn < max)
		if (e->d_name[0] != '.' &&
		    strncmp(e->d_name, prefix, pl) == 0 &&
		    (names[nn] = strdup(e->d_name)) != NULL)
			nn++;
	if (d != NULL)
		closedir(d);
	for (i = 1; i < nn; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0;
		     j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	return nn;
}

/* ---- the checks' text scanners ------------------------------------------ */

/* The next line of b[0..n) from *pos (without its newline). */
static int ov_line(const unsigned char *b, size_t n, size_t *pos,
		   const char **s, size_t *len)
{
	const unsigned char *e;

	if (*pos >= n)
		return 0;
	*s = (const char *)b + *pos;
	e = memchr(b + *pos, '\n', n - *pos);
	*len = e != NULL ? (size_t)(e - (b + *pos)) : n - *pos;
	*pos += *len + 1;
	return 1;
}

/* The decimal number s starts with (at most 20 digits); *used digits. */
static uint64_t ov_dec(const char *s, size_t n, size_t *used)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9' && i < 20; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	*used = i;
	return v;
}

#endif

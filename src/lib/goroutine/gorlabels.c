/*
 * gorlabels.c - goroutine labels (pprof.Labels / runtime labels) read from a g: the list and hash-map forms (goroutine_int.h).
 */
#include "config.h"

#include "goroutine_int.h"

/* ---- labels ------------------------------------------------------------------ */

/* A Go {ptr, len} header at addr (a string, or a slice's first words),
 * with len at most max. */
static int read_ptr_len(gor_build *bd, uint64_t addr, uint64_t max,
			const char *what, uint64_t *ptr, uint64_t *len)
{
	gh_mem *m = &bd->tg->mem;
	int rc;

	rc = gh_mem_read_ptr(m, addr, ptr, what);
	if (rc == 0)
		rc = gh_mem_read_ptr(m, addr + m->ptr_size, len, what);
	if (rc != 0)
		return rc;
	if (*len > max)
		return gh_errf(&bd->tg->err, GOHEAP_ECORRUPT, "%s of length %llu",
			       what, (unsigned long long)*len);
	return 0;
}

/* A Go string {ptr, len} at addr: its len bytes (any, NUL included)
 * appended to strs at *off, then a NUL (for C-string readers). */
static int read_gostring(gor_build *bd, uint64_t addr, size_t *off,
			 size_t *n)
{
	gh_mem *m = &bd->tg->mem;
	uint64_t ptr, len;
	int rc;

	rc = read_ptr_len(bd, addr, GH_GOR_MAX_LABEL_LEN, "label string",
			  &ptr, &len);
	if (rc != 0)
		return rc;
	/* every writer quotes every goroutine's labels: bounded in all */
	if (len > bd->label_cap - bd->label_bytes)
		return gh_errf(&bd->tg->err, GOHEAP_ELIMIT, "labels over %zu "
			       "bytes in all", bd->label_cap);
	bd->label_bytes += (size_t)len;
	*off = bd->strs.len;
	if (gh_buf_reserve(&bd->strs, (size_t)len + 1) != 0)
		return GOHEAP_ENOMEM;
	if (len > 0) {
		rc = gh_mem_read(m, ptr, bd->strs.data + bd->strs.len,
				 (size_t)len, "label string");
		if (rc != 0)
			return rc;
	}
	bd->strs.len += (size_t)len;
	*n = (size_t)len;
	gh_buf_putc(&bd->strs, '\0');
	return bd->strs.oom ? GOHEAP_ENOMEM : 0;
}

static int push_label(gor_build *bd, uint64_t kaddr, uint64_t vaddr)
{
	lab_tmp *l;
	int rc;

	if (bd->nlabs - bd->gs[bd->ngs].lab_off >= GH_GOR_MAX_LABELS)
		return gh_errf(&bd->tg->err, GOHEAP_ELIMIT, "over %u labels",
			       GH_GOR_MAX_LABELS);
	rc = gh_grow(&bd->labs, &bd->caplabs, bd->nlabs + 1,
		  sizeof(*bd->labs));
	if (rc != 0)
		return rc;
	l = &bd->labs[bd->nlabs];
	rc = read_gostring(bd, kaddr, &l->koff, &l->klen);
	if (rc == 0)
		rc = read_gostring(bd, vaddr, &l->voff, &l->vlen);
	if (rc == 0)
		bd->nlabs++;
	return rc;
}

/*
 * 1.24+: g.labels -> labelMap {list []label}, label {key, value string}
 * (runtime/pprof/label.go; internal/runtime/pprof/label.Set in 1.26+).
 */
int gor_read_labels_list(gor_build *bd, uint64_t lm)
{
	uint64_t ptr, len, i;
	int rc;

	rc = read_ptr_len(bd, lm, GH_GOR_MAX_LABELS, "labelMap", &ptr, &len);
	if (rc != 0)
		return rc;
	for (i = 0; i < len; i++) {
		rc = push_label(bd, ptr + 32 * i, ptr + 32 * i + 16);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Before 1.24: g.labels -> a labelMap variable, map[string]string, i.e. a
 * *hmap (runtime/map.go): {count, flags u8, B u8, noverflow u16, hash0
 * u32, buckets, oldbuckets, nevacuate, extra}; a bucket is tophash[8],
 * 8 keys, 8 values (16 bytes each), overflow: 272 bytes.  A slot is live
 * when tophash >= minTopHash (5); evacuated old slots hold 2..4, so
 * reading the new buckets and the old ones (if growing) gives each key
 * once.  Iteration order does not matter: String() sorts.
 */
static int read_hmap_buckets(gor_build *bd, uint64_t buckets, uint64_t nb,
			     uint64_t *left)
{
	gh_mem *m = &bd->tg->mem;
	unsigned char bk[272];
	uint64_t i, b;
	int rc, j, chain;

	for (i = 0; i < nb && *left > 0; i++) {
		b = buckets + 272 * i;
		for (chain = 0; b != 0 && chain < 64; chain++) {
			rc = gh_mem_read(m, b, bk, sizeof(bk), "label map bucket");
			if (rc != 0)
				return rc;
			for (j = 0; j < 8; j++)
				if (bk[j] >= 5) {
					rc = push_label(bd, b + 8 + 16 * j,
							b + 136 + 16 * j);
					if (rc != 0)
						return rc;
					/* hmap.count keys found: no other
					 * slot is live */
					if (--*left == 0)
						return 0;
				}
			b = gh_mem_word(m, bk + 264, 8);
		}
	}
	return 0;
}

int gor_read_labels_hmap(gor_build *bd, uint64_t lm)
{
	gh_mem *m = &bd->tg->mem;
	unsigned char h[48];
	uint64_t hp, count, buckets, old, nb;
	unsigned flags, B;
	int rc;

	rc = gh_mem_read_ptr(m, lm, &hp, "labelMap");
	if (rc != 0 || hp == 0)
		return rc;
	rc = gh_mem_read(m, hp, h, sizeof(h), "label map");
	if (rc != 0)
		return rc;
	count = gh_mem_word(m, h, 8);
	flags = h[8];
	B = h[9];
	buckets = gh_mem_word(m, h + 16, 8);
	old = gh_mem_word(m, h + 24, 8);
	if (count > GH_GOR_MAX_LABELS || B > 12)
		return gh_errf(&bd->tg->err, GOHEAP_ECORRUPT,
			       "label map with %llu entries, B = %u",
			       (unsigned long long)count, B);
	if (count == 0)
		return 0;
	nb = (uint64_t)1 << B;
	rc = read_hmap_buckets(bd, buckets, nb, &count);
	if (rc == 0 && old != 0)
		rc = read_hmap_buckets(bd, old, (flags & 8) || B == 0 ?
				       nb : nb / 2, &count);
	return rc;
}

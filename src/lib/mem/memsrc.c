/*
 * memsrc.c - checked, cached, typed reads over any memory source.
 *
 * Why a cache here and not in the backends: buckets are small (a few hundred
 * bytes) and the walker reads each in two or three pieces, so a 100k-bucket
 * profile would cost ~300k system calls through process_vm_readv, or as many
 * gdb round trips.  Buckets come from persistentalloc's 256 KiB chunks, so
 * neighbouring buckets share blocks: reading aligned 64 KiB blocks and
 * keeping the last 16 makes the walk cost about one call per 64 KiB of
 * bucket memory.  A block read that comes back short (end of a mapping) is
 * kept short; a read that fails is retried at the exact size, so a failing
 * block never hides readable bytes and unreadable bytes are never zeros.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/mman.h>

#ifdef MADV_POPULATE_WRITE
#define GH_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define GH_MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

#include "memsrc.h"

void gh_mem_init(gh_mem *m, const goheap_memsrc_ops *ops, void *ctx,
		 unsigned ptr_size, int big_endian, gh_err *err)
{
	memset(m, 0, sizeof(*m));
	m->ops = ops;
	m->ctx = ctx;
	m->ptr_size = ptr_size;
	m->big_endian = big_endian;
	m->err = err;
}

void gh_mem_fini(gh_mem *m)
{
	unsigned i;

	for (i = 0; i < GH_MEM_NBLOCKS; i++) {
		if (m->arena == NULL)
			free(m->blocks[i].data);
		m->blocks[i].data = NULL;
	}
	if (m->arena != NULL)
		munmap(m->arena, (size_t)GH_MEM_BLOCK * GH_MEM_NBLOCKS);
	m->arena = NULL;
}

void gh_mem_invalidate(gh_mem *m)
{
	unsigned i;

	for (i = 0; i < GH_MEM_NBLOCKS; i++)
		m->blocks[i].stamp = 0;
}

static int backend_read(gh_mem *m, uint64_t addr, void *buf, size_t len)
{
	double t0 = gh_now();
	int rc;

	if (m->deadline != 0 && t0 > m->deadline)
		return GOHEAP_ETIMEDOUT;
	m->nreads++;
	m->nbytes += len;
	rc = m->ops->read(m->ctx, addr, buf, len);
	m->t_backend += gh_now() - t0;
	return rc;
}

/* Read the target's bytes [base + off, base + off + len) into the
 * block's data at off (base: the block's address, set once filled). */
static int read_part(gh_mem *m, gh_mem_block *b, uint64_t base, size_t off,
		     size_t len)
{
	return backend_read(m, base + off, b->data + off, len);
}

/*
 * Fill a block.  Backends fill all or nothing, so a block that straddles
 * the end of a mapping is fetched by halving until a prefix succeeds; one
 * whose start is not mapped (a mapping that begins inside the block, as
 * the runtime's first persistentalloc chunks do) is fetched from the page
 * of need_start on, halving the same way.  Without the second step every
 * bucket of such a mapping cost two failed block reads and a direct read.
 */
static int fill_block(gh_mem *m, gh_mem_block *b, uint64_t base,
		      uint64_t need_start, uint64_t need_end)
{
	size_t len, lo;
	int pass, rc = 0;

	if (b->data == NULL && m->arena == NULL && !m->no_arena) {
		/*
		 * All blocks in one mapping; each is populated in one call
		 * when first filled (below): the kernel's copy into fresh
		 * pages otherwise faults once per page inside the read.
		 */
		void *a = mmap(NULL, (size_t)GH_MEM_BLOCK * GH_MEM_NBLOCKS,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (a == MAP_FAILED) {
			m->no_arena = 1;
		} else {
			unsigned i;

			m->arena = a;
			for (i = 0; i < GH_MEM_NBLOCKS; i++)
				m->blocks[i].data = m->arena +
						    (size_t)i * GH_MEM_BLOCK;
		}
	}
	if (b->data != NULL && !b->populated) {
		b->populated = 1;
		/* (A kernel without it faults the pages in as before.) */
		(void)madvise(b->data, GH_MEM_BLOCK, GH_MADV_POPULATE_WRITE);
	}
	if (b->data == NULL) {
		b->data = malloc(GH_MEM_BLOCK);
		if (b->data == NULL)
			return GOHEAP_ENOMEM;
	}
	b->stamp = 0;
	b->edge_bad = 0;
	/*
	 * Pass 0 from the block's start, pass 1 from need_start's page
	 * (halving), pass 2 once, the pages needed alone: a mapping that
	 * starts and ends inside the block, which halving from either end
	 * never fits (grow() adds the rest of it as the walk reaches it).
	 */
	for (pass = 0; pass < 3; pass++) {
		lo = pass == 0 ? 0 : (size_t)((need_start - base) & ~(uint64_t)4095);
		if (pass == 1 && lo == 0)
			continue;
		len = GH_MEM_BLOCK - lo;
		if (pass == 2 && need_end - base < GH_MEM_BLOCK)
			len = (size_t)(((need_end - base + 4095) &
					~(uint64_t)4095) - lo);
		while (len >= 4096 && base + lo + len >= need_end) {
			rc = read_part(m, b, base, lo, len);
			if (rc == 0) {
				b->base = base;
				b->lo = lo;
				b->valid = lo + len;
				b->stamp = ++m->clock;
				return 0;
			}
			if (rc == GOHEAP_ETIMEDOUT || pass == 2)
				break;
			len /= 2;
		}
		if (rc == GOHEAP_ETIMEDOUT)
			return rc;
	}
	return GOHEAP_EUNMAPPED;
}

static gh_mem_block *find_block(gh_mem *m, uint64_t base)
{
	unsigned i;

	for (i = 0; i < GH_MEM_NBLOCKS; i++) {
		if (m->blocks[i].stamp != 0 && m->blocks[i].base == base)
			return &m->blocks[i];
	}
	return NULL;
}

static gh_mem_block *victim(gh_mem *m)
{
	gh_mem_block *v = &m->blocks[0];
	unsigned i;

	for (i = 1; i < GH_MEM_NBLOCKS; i++) {
		if (m->blocks[i].stamp < v->stamp)
			v = &m->blocks[i];
	}
	return v;
}

/*
 * Grow a partly read block (a mapping that starts or ends inside it) to
 * cover [start, end): first to the block's edge in one call, and when
 * that fails (the mapping ends first; remembered in edge_bad) by the
 * pages needed.  The walk runs down through a persistentalloc chunk, so
 * without this the runtime's first chunk, whose mapping starts inside a
 * block, was read one bucket at a time below the first page filled
 * (three calls a bucket: 387 of a 100k-bucket walk's 862 calls).  An
 * error leaves the block as it was (the caller then reads directly).
 */
static int grow(gh_mem *m, gh_mem_block *b, size_t start, size_t end)
{
	size_t from = start & ~(size_t)4095;
	size_t to = (end + 4095) & ~(size_t)4095;
	int rc;

	if (to > GH_MEM_BLOCK)
		to = GH_MEM_BLOCK;
	if (from < b->lo) {
		if (!(b->edge_bad & 1) && from > 0) {
			if (read_part(m, b, b->base, 0, b->lo) == 0)
				b->lo = 0;
			else
				b->edge_bad |= 1;
		}
		if (from < b->lo) {
			rc = read_part(m, b, b->base, from, b->lo - from);
			if (rc != 0)
				return rc;
			b->lo = from;
		}
	}
	if (to > b->valid) {
		if (!(b->edge_bad & 2) && to < GH_MEM_BLOCK) {
			if (read_part(m, b, b->base, b->valid,
				      GH_MEM_BLOCK - b->valid) == 0)
				b->valid = GH_MEM_BLOCK;
			else
				b->edge_bad |= 2;
		}
		if (to > b->valid) {
			rc = read_part(m, b, b->base, b->valid,
				       to - b->valid);
			if (rc != 0)
				return rc;
			b->valid = to;
		}
	}
	return 0;
}

/* [addr, addr+len) inside one cached block (filled if needed), or NULL. */
static const unsigned char *cached_bytes(gh_mem *m, uint64_t addr,
					 size_t len)
{
	uint64_t base = addr & ~(uint64_t)(GH_MEM_BLOCK - 1);
	uint64_t off = addr - base;
	gh_mem_block *b;

	if (off + len > GH_MEM_BLOCK)
		return NULL;
	b = m->last;
	if (b == NULL || b->stamp == 0 || b->base != base)
		b = find_block(m, base);
	if (b == NULL) {
		b = victim(m);
		if (fill_block(m, b, base, addr, addr + len) != 0)
			return NULL;
	}
	if ((off < b->lo || off + len > b->valid) &&
	    grow(m, b, (size_t)off, (size_t)(off + len)) != 0)
		return NULL;
	b->stamp = ++m->clock;
	m->last = b;
	return b->data + off;
}

/*
 * Try to serve [addr, addr+len) from the cache; 1 if served.  A range that
 * crosses into the next block (a bucket straddling a 64 KiB boundary: one
 * in ~100) is copied from both blocks rather than read again.
 */
static int cached_read(gh_mem *m, uint64_t addr, void *buf, size_t len)
{
	uint64_t split = (addr & ~(uint64_t)(GH_MEM_BLOCK - 1)) + GH_MEM_BLOCK;
	const unsigned char *p;
	size_t n1;

	if (len <= GH_MEM_BLOCK && addr + len > split) {
		n1 = (size_t)(split - addr);
		p = cached_bytes(m, addr, n1);
		if (p == NULL)
			return 0;
		memcpy(buf, p, n1);
		p = cached_bytes(m, split, len - n1);
		if (p == NULL)
			return 0;
		memcpy((unsigned char *)buf + n1, p, len - n1);
		return 1;
	}
	p = cached_bytes(m, addr, len);
	if (p == NULL)
		return 0;
	memcpy(buf, p, len);
	return 1;
}

const unsigned char *gh_mem_peek_slow(gh_mem *m, uint64_t addr, size_t len)
{
	if (len == 0 || addr + len < addr || m->no_cache)
		return NULL;
	return cached_bytes(m, addr, len);
}

int gh_mem_read(gh_mem *m, uint64_t addr, void *buf, size_t len,
		const char *what)
{
	int rc;

	if (len == 0)
		return 0;
	if (addr + len < addr)
		return gh_errf(m->err, GOHEAP_EUNMAPPED,
			       "reading %s at 0x%llx: address range wraps",
			       what, (unsigned long long)addr);
	if (!m->no_cache && cached_read(m, addr, buf, len))
		return 0;
	rc = backend_read(m, addr, buf, len);
	if (rc != 0)
		return gh_errf(m->err, rc, "reading %s (%zu bytes at 0x%llx): %s",
			       what, len, (unsigned long long)addr,
			       goheap_strerror(rc));
	return 0;
}

int gh_mem_read_uint(gh_mem *m, uint64_t addr, unsigned size, uint64_t *out,
		     const char *what)
{
	unsigned char b[8];
	int rc;

	if (size == 0 || size > 8)
		return gh_errf(m->err, GOHEAP_EINVAL, "bad read size %u", size);
	rc = gh_mem_read(m, addr, b, size, what);
	if (rc != 0)
		return rc;
	*out = gh_load(b, size, m->big_endian);
	return 0;
}

int gh_mem_read_ptr(gh_mem *m, uint64_t addr, uint64_t *out, const char *what)
{
	return gh_mem_read_uint(m, addr, m->ptr_size, out, what);
}

int gh_mem_write(gh_mem *m, uint64_t addr, const void *buf, size_t len,
		 const char *what)
{
	int rc;

	if (m->ops->write == NULL)
		return gh_errf(m->err, GOHEAP_EUNSUPPORTED,
			       "writing %s: this target is read-only", what);
	rc = m->ops->write(m->ctx, addr, buf, len);
	gh_mem_invalidate(m);
	if (rc != 0)
		return gh_errf(m->err, rc, "writing %s at 0x%llx: %s", what,
			       (unsigned long long)addr, goheap_strerror(rc));
	return 0;
}

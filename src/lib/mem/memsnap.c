/*
 * memsnap.c - the recording layer and the snapshot (memsnap.h).
 *
 * The recording keeps each backend read's range as it came (the cache
 * reads aligned 64 KiB blocks, so a running pass records few, large
 * ranges); gh_ranges_merge sorts and joins them.  The snapshot's copies
 * live in chunks mmapped per copy, faulted in when planned (before the
 * stop: a fresh page's first touch costs a fault, ~0.25 us a 4 KiB page,
 * that would otherwise fall inside the stop); above the bound a chunk is
 * an unlinked temporary file's mapping, its blocks allocated up front
 * (posix_fallocate: a full disk is an error now, not a SIGBUS later).
 * The file's mapping is never resident whole: a copy writes it a window
 * (GH_SNAP_WINDOW) at a time and drops each window's pages after
 * (MADV_DONTNEED: on a shared file mapping the bytes stay in the file,
 * dirty in the page cache), and the reads drop the pages they faulted in
 * every GH_SNAP_WINDOW bytes served, so that a snapshot of a 1 GiB heap
 * costs the process ~64 MiB, not 1 GiB.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memsnap.h"
#include "testhooks.h"

#ifdef MADV_POPULATE_WRITE
#define SNAP_POPULATE MADV_POPULATE_WRITE
#else
#define SNAP_POPULATE 23   /* Linux 5.14 */
#endif

#define SNAP_BLOCK ((uint64_t)GH_MEM_BLOCK)
#define SNAP_PAGE 4096u
/* a plan this large is copied by two threads (creating one: ~50 us) */
#define SNAP_TWO_READERS ((uint64_t)4 << 20)

static int range_cmp(const void *x, const void *y)
{
	const gh_range *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

size_t gh_ranges_merge(gh_range *v, size_t n)
{
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), range_cmp);
	for (i = 1; i < n; i++) {
		uint64_t end = v[k].addr + v[k].len;

		if (v[i].addr <= end) {
			if (v[i].addr + v[i].len > end)
				v[k].len = v[i].addr + v[i].len - v[k].addr;
		} else
			v[++k] = v[i];
	}
	return k + 1;
}

static int range_add(gh_range **v, size_t *n, size_t *cap, uint64_t addr,
		     uint64_t len)
{
	if (gh_grow(v, cap, *n + 1, sizeof(**v)))
		return GOHEAP_ENOMEM;
	(*v)[*n].addr = addr;
	(*v)[*n].len = len;
	(*n)++;
	return 0;
}

/* ---- the recording layer ------------------------------------------------ */

static int rec_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	gh_memrec *r = ctx;
	int rc = r->ops->read(r->ctx, addr, buf, len);

	if (rc == 0 || rc == GOHEAP_EUNMAPPED) {
		gh_range **v = rc == 0 ? &r->ok : &r->bad;
		size_t *n = rc == 0 ? &r->nok : &r->nbad;
		size_t *cap = rc == 0 ? &r->capok : &r->capbad;

		/* a block read again extends the last range: no record */
		if (rc == 0 && *n > 0 && (*v)[*n - 1].addr <= addr &&
		    addr + len <= (*v)[*n - 1].addr + (*v)[*n - 1].len)
			return rc;
		if (range_add(v, n, cap, addr, len) != 0)
			r->oom = 1;
	}
	return rc;
}

static int rec_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	gh_memrec *r = ctx;

	return r->ops->mappings(r->ctx, cb, payload);
}

static int rec_executable(void *ctx, char *buf, size_t len)
{
	gh_memrec *r = ctx;

	return r->ops->executable(r->ctx, buf, len);
}

const goheap_memsrc_ops gh_memrec_ops = {
	.version = 1,
	.read = rec_read,
	.mappings = rec_mappings,
	.executable = rec_executable,
};

void gh_memrec_init(gh_memrec *r, const goheap_memsrc_ops *ops, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->ctx = ctx;
}

void gh_memrec_fini(gh_memrec *r)
{
	free(r->ok);
	free(r->bad);
	memset(r, 0, sizeof(*r));
}

/* ---- the snapshot's storage ---------------------------------------------- */

static int snap_nomem(gh_memsnap *s, const char *what, uint64_t n)
{
	return gh_errf(s->err, GOHEAP_ENOMEM, "-p retained: the live "
		       "snapshot's %s of %llu bytes: %s", what,
		       (unsigned long long)n, strerror(errno ? errno : ENOMEM));
}

/* n bytes of storage, faulted in: anonymous memory within the bound, else
 * an unlinked temporary file's pages. */
static unsigned char *chunk_new(gh_memsnap *s, size_t n)
{
	void *p;
	int file = s->mem_bytes + n > s->bound;

	if (gh_grow(&s->chunk, &s->capchunk, s->nchunk + 1,
		    sizeof(*s->chunk))) {
		snap_nomem(s, "chunk list", n);
		return NULL;
	}
	if (!file) {
		p = mmap(NULL, n, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			snap_nomem(s, "memory", n);
			return NULL;
		}
		s->mem_bytes += n;
	} else {
		const char *dir = getenv("TMPDIR");
		char path[4096];
		int fd, e;

		snprintf(path, sizeof(path), "%s/go-heap-snapshot.XXXXXX",
			 dir != NULL && dir[0] != '\0' ? dir : "/tmp");
		fd = mkstemp(path);
		if (fd < 0) {
			gh_errf(s->err, GOHEAP_EIO, "-p retained: the live "
				"snapshot's temporary file in %s: %s",
				dir != NULL && dir[0] != '\0' ? dir : "/tmp",
				strerror(errno));
			return NULL;
		}
		unlink(path);
		e = posix_fallocate(fd, 0, (off_t)n);
		if (e != 0) {
			close(fd);
			gh_errf(s->err, GOHEAP_EIO, "-p retained: the live "
				"snapshot's temporary file (%zu bytes): %s", n,
				strerror(e));
			return NULL;
		}
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			snap_nomem(s, "temporary file's mapping", n);
			return NULL;
		}
		s->file_bytes += n;
	}
	/* (A kernel without it faults the pages in during the copy.)  A
	 * file's pages are faulted in a window at a time by the copy. */
	if (!file)
		(void)madvise(p, n, SNAP_POPULATE);
	s->chunk[s->nchunk].p = p;
	s->chunk[s->nchunk].size = n;
	s->chunk[s->nchunk].file = file;
	s->nchunk++;
	s->pfile = file;
	return p;
}

void gh_memsnap_init(gh_memsnap *s, uint64_t bound, gh_err *err)
{
	const char *h = gh_test_hook("GOHEAP_TEST_SNAP_BOUND");

	memset(s, 0, sizeof(*s));
	s->bound = bound != 0 ? bound : GH_SNAP_MEM_BOUND;
	if (h != NULL)
		s->bound = strtoull(h, NULL, 0);
	s->err = err;
}

void gh_memsnap_fini(gh_memsnap *s)
{
	size_t i;

	for (i = 0; i < s->nchunk; i++)
		munmap(s->chunk[i].p, s->chunk[i].size);
	free(s->chunk);
	for (i = 0; i < s->nbatch; i++) {
		free(s->batch[i].addrs);
		free(s->batch[i].lens);
		free(s->batch[i].ok);
	}
	free(s->batch);
	free(s->seg);
	free(s->bad);
	free(s->plan);
	free(s->want);
	free(s->map);
	memset(s, 0, sizeof(*s));
}

static int map_cb(const goheap_mapping *mp, void *payload)
{
	gh_memsnap *s = payload;

	if (mp->perms[0] != 'r' || mp->end <= mp->start)
		return 0;
	return range_add(&s->map, &s->nmap, &s->capmap, mp->start,
			 mp->end - mp->start);
}

int gh_memsnap_maps(gh_memsnap *s, const goheap_memsrc_ops *ops, void *ctx)
{
	s->nmap = 0;
	s->have_map = ops->mappings(ctx, map_cb, s) == 0;
	if (s->have_map)
		s->nmap = gh_ranges_merge(s->map, s->nmap);
	return 0;
}

int gh_memsnap_take_bad(gh_memsnap *s, gh_memrec *r)
{
	free(s->bad);
	s->bad = r->bad;
	s->nbad = r->nbad;
	r->bad = NULL;
	r->nbad = r->capbad = 0;
	if (s->nbad > 1)
		qsort(s->bad, s->nbad, sizeof(*s->bad), range_cmp);
	return 0;
}

/* ---- lookups ------------------------------------------------------------- */

/* The first segment ending above addr (nseg if none). */
static size_t seg_find(const gh_memsnap *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nseg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->seg[mid].addr + s->seg[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const unsigned char *gh_memsnap_at(const gh_memsnap *s, uint64_t addr,
				   uint64_t len)
{
	size_t i = seg_find(s, addr);

	if (i == s->nseg || s->seg[i].addr > addr ||
	    addr + len > s->seg[i].addr + s->seg[i].len || addr + len < addr)
		return NULL;
	return s->seg[i].data + (addr - s->seg[i].addr);
}

/* Copy [addr, addr+len) from segments that cover it together; 0, or -1
 * at the first byte not covered. */
static int snap_copy_out(const gh_memsnap *s, uint64_t addr, unsigned char *buf,
			 uint64_t len, uint64_t *gap)
{
	size_t i = seg_find(s, addr);

	while (len > 0) {
		uint64_t n;

		if (i == s->nseg || s->seg[i].addr > addr) {
			*gap = addr;
			return -1;
		}
		n = s->seg[i].addr + s->seg[i].len - addr;
		if (n > len)
			n = len;
		memcpy(buf, s->seg[i].data + (addr - s->seg[i].addr), (size_t)n);
		buf += n;
		addr += n;
		len -= n;
		i++;
	}
	return 0;
}

int gh_memsnap_get(const gh_memsnap *s, uint64_t addr, void *buf,
		   uint64_t len)
{
	uint64_t gap;

	return addr + len < addr ? -1 : snap_copy_out(s, addr, buf, len, &gap);
}

int gh_memsnap_has(const gh_memsnap *s, uint64_t addr, uint64_t len)
{
	size_t i = seg_find(s, addr);

	if (addr + len < addr)
		return 0;
	while (len > 0) {
		uint64_t n;

		if (i == s->nseg || s->seg[i].addr > addr)
			return 0;
		n = s->seg[i].addr + s->seg[i].len - addr;
		if (n >= len)
			return 1;
		addr += n;
		len -= n;
		i++;
	}
	return 1;
}

/* The temporary files' pages this process faulted in, dropped (their
 * bytes stay in the files). */
static void snap_release(gh_memsnap *s)
{
	size_t i;

	for (i = 0; i < s->nchunk; i++)
		if (s->chunk[i].file)
			(void)madvise(s->chunk[i].p, s->chunk[i].size,
				      MADV_DONTNEED);
	s->unreleased = 0;
}

static int snap_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	gh_memsnap *s = ctx;
	gh_range key = { addr, len };
	uint64_t gap = addr;
	size_t lo = 0, hi = s->nmap;

	if (addr + len >= addr && snap_copy_out(s, addr, buf, len, &gap) == 0) {
		s->unreleased += len;
		if (s->unreleased >= GH_SNAP_WINDOW && s->file_bytes != 0)
			snap_release(s);
		return 0;
	}
	/* the running pass saw this read fail too: not a miss */
	if (s->nbad > 0 && bsearch(&key, s->bad, s->nbad, sizeof(*s->bad),
				   range_cmp) != NULL)
		return GOHEAP_EUNMAPPED;
	/* nor is a read whose first byte not copied is in no readable
	 * mapping: it would fail live too (a cache block over a mapping's
	 * edge) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->map[mid].addr + s->map[mid].len <= gap)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->have_map && (lo == s->nmap || s->map[lo].addr > gap))
		return GOHEAP_EUNMAPPED;
	if (s->misses++ == 0)
		s->first_miss = addr;
	s->miss_bytes += len;
	return GOHEAP_EUNMAPPED;
}

static int snap_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	(void)ctx;
	(void)cb;
	(void)payload;
	return GOHEAP_EUNSUPPORTED;
}

static int snap_executable(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return GOHEAP_ENOEXE;
}

const goheap_memsrc_ops gh_memsnap_ops = {
	.version = 1,
	.read = snap_read,
	.mappings = snap_mappings,
	.executable = snap_executable,
};

/* ---- plans and copies ------------------------------------------------------ */

int gh_memsnap_want(gh_memsnap *s, uint64_t addr, uint64_t len)
{
	uint64_t lo = addr & ~(SNAP_BLOCK - 1), hi;

	/* (a damaged target's wants are bounded: what is not wanted is a
	 * read outside the snapshot later, counted) */
	if (len == 0 || addr + len < addr || len > ((uint64_t)1 << 36) ||
	    s->nwant >= GH_SNAP_MAX_WANTS)
		return 0;
	hi = (addr + len + SNAP_BLOCK - 1) & ~(SNAP_BLOCK - 1);
	if (hi < lo)
		return 0;
	if (range_add(&s->want, &s->nwant, &s->capwant, lo, hi - lo) != 0)
		return snap_nomem(s, "list of ranges", 0);
	return 0;
}

/* Plan [a, to), within the readable mappings when they are known (a
 * damaged span's pages count never reserves more than the target has). */
static int plan_add(gh_memsnap *s, uint64_t a, uint64_t to, uint64_t *total)
{
	size_t lo = 0, hi = s->nmap;

	if (!s->have_map) {
		*total += to - a;
		return range_add(&s->plan, &s->nplan, &s->capplan, a, to - a);
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->map[mid].addr + s->map[mid].len <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nmap && s->map[lo].addr < to; lo++) {
		uint64_t x = a > s->map[lo].addr ? a : s->map[lo].addr,
			 y = s->map[lo].addr + s->map[lo].len;

		if (y > to)
			y = to;
		if (y <= x)
			continue;
		if (range_add(&s->plan, &s->nplan, &s->capplan, x, y - x) != 0)
			return GOHEAP_ENOMEM;
		*total += y - x;
	}
	return 0;
}

int gh_memsnap_plan(gh_memsnap *s, gh_range *v, size_t n)
{
	size_t i, j;
	uint64_t total = 0;

	n = gh_ranges_merge(v, n);
	s->nplan = 0;
	s->pbuf = NULL;
	s->pfile = 0;
	/* drop what the snapshot holds: the gaps of each range */
	for (i = 0; i < n; i++) {
		uint64_t a = v[i].addr, end = v[i].addr + v[i].len;

		for (j = seg_find(s, a); a < end; j++) {
			uint64_t to = j < s->nseg && s->seg[j].addr < end ?
				      s->seg[j].addr : end;

			if (to > a && plan_add(s, a, to, &total) != 0)
				return snap_nomem(s, "plan", 0);
			if (j >= s->nseg || s->seg[j].addr >= end)
				break;
			a = s->seg[j].addr + s->seg[j].len;
		}
	}
	if (s->nplan == 0)
		return 0;
	if (total > GH_SNAP_MAX_BYTES - (s->mem_bytes + s->file_bytes))
		return gh_errf(s->err, GOHEAP_ENOMEM, "-p retained: the live "
			       "snapshot would exceed %llu GiB (%llu bytes more "
			       "wanted); --no-stop reads the target running "
			       "(best-effort)", (unsigned long long)
			       (GH_SNAP_MAX_BYTES >> 30),
			       (unsigned long long)total);
	s->pbuf = chunk_new(s, (size_t)total);
	return s->pbuf != NULL ? 0 : s->err->code != 0 ? s->err->code :
	       GOHEAP_ENOMEM;
}

int gh_memsnap_plan_wants(gh_memsnap *s)
{
	int rc = gh_memsnap_plan(s, s->want, s->nwant);

	s->nwant = 0;
	return rc;
}

static int seg_cmp(const void *x, const void *y)
{
	const gh_snapseg *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int seg_add(gh_memsnap *s, uint64_t addr, uint64_t len,
		   unsigned char *data)
{
	if (gh_grow(&s->seg, &s->capseg, s->nseg + 1, sizeof(*s->seg)))
		return snap_nomem(s, "segment list", 0);
	s->seg[s->nseg].addr = addr;
	s->seg[s->nseg].len = len;
	s->seg[s->nseg].data = data;
	s->nseg++;
	return 0;
}

/* caps->readv, or where the source has none (or it cannot now) one read
 * a range; 0 or GOHEAP_ENOPROC. */
static int readv_any(const gh_memsrc_caps *caps, void *ctx,
		     const goheap_memsrc_ops *ops, const uint64_t *addrs,
		     const size_t *lens, size_t n, unsigned char *out,
		     unsigned char *ok)
{
	size_t i, off = 0;
	int rc = caps->readv != NULL ?
		 caps->readv(ctx, addrs, lens, n, out, ok) : -1;

	if (rc >= 0)
		return rc;
	for (i = 0; i < n; i++) {
		rc = ops->read(ctx, addrs[i], out + off, lens[i]);
		if (rc == GOHEAP_ENOPROC)
			return rc;
		ok[i] = rc == 0;
		off += lens[i];
	}
	return 0;
}

/* The pages of a range that did not read whole, one iovec each. */
static int copy_pages(gh_memsnap *s, const gh_memsrc_caps *caps, void *ctx,
		      const goheap_memsrc_ops *ops, uint64_t addr,
		      uint64_t len, unsigned char *out)
{
	uint64_t first = addr, end = addr + len;
	size_t n = (size_t)((end + SNAP_PAGE - 1) / SNAP_PAGE -
			    addr / SNAP_PAGE), k = 0, i;
	uint64_t *a = malloc(n * sizeof(*a));
	size_t *l = malloc(n * sizeof(*l));
	unsigned char *ok = malloc(n);
	int rc = 0;

	if (a == NULL || l == NULL || ok == NULL) {
		free(a);
		free(l);
		free(ok);
		return snap_nomem(s, "page list", n);
	}
	while (first < end && k < n) {
		uint64_t to = (first & ~(uint64_t)(SNAP_PAGE - 1)) + SNAP_PAGE;

		if (to > end)
			to = end;
		a[k] = first;
		l[k] = (size_t)(to - first);
		k++;
		first = to;
	}
	rc = readv_any(caps, ctx, ops, a, l, k, out, ok);
	for (i = 0; rc == 0 && i < k; i++) {
		if (ok[i])
			rc = seg_add(s, a[i], l[i], out + (a[i] - addr));
		else
			s->lost += l[i];
	}
	free(a);
	free(l);
	free(ok);
	return rc;
}

typedef struct rdjob {
	const gh_memsrc_caps *caps;
	void *ctx;
	const goheap_memsrc_ops *ops;
	uint64_t *addrs;
	size_t *lens;
	size_t n;
	unsigned char *out, *ok;
	int rc;
} rdjob;

static void *rd_run(void *arg)
{
	rdjob *j = arg;

	j->rc = readv_any(j->caps, j->ctx, j->ops, j->addrs, j->lens, j->n,
			  j->out, j->ok);
	return NULL;
}

/* Read ranges into out (two readers, half of the bytes each, when they
 * are many bytes); ok[i] whether range i read whole. */
static int read_list(const gh_memsrc_caps *caps, void *ctx,
		     const goheap_memsrc_ops *ops, uint64_t *addrs,
		     size_t *lens, size_t n, uint64_t bytes, unsigned char *out,
		     unsigned char *ok)
{
	uint64_t half = bytes / 2, acc = 0;
	size_t split;
	rdjob j[2];
	pthread_t th;
	int two = 0;

	for (split = 0; split < n && acc < half; split++)
		acc += lens[split];
	j[0] = (rdjob){ caps, ctx, ops, addrs, lens, split, out, ok, 0 };
	j[1] = (rdjob){ caps, ctx, ops, addrs + split, lens + split,
			n - split, out + acc, ok + split, 0 };
	if (caps->concurrent_reads && caps->readv != NULL &&
	    bytes >= SNAP_TWO_READERS && split > 0 && split < n &&
	    pthread_create(&th, NULL, rd_run, &j[1]) == 0)
		two = 1;
	if (two) {
		rd_run(&j[0]);
		pthread_join(th, NULL);
	} else {
		j[0].n = n;
		rd_run(&j[0]);
		j[1].rc = 0;
	}
	return j[0].rc != 0 ? j[0].rc : j[1].rc;
}

/*
 * A batch whose storage is a file's mapping, a window of storage at a
 * time: the window's pages faulted in, its ranges' parts read, its pages
 * dropped (a range over a window's edge reads in two parts: bt->ok[i]
 * whether both did).
 */
static int read_windows(gh_memsnap *s, gh_snapbatch *bt,
			const gh_memsrc_caps *caps, void *ctx,
			const goheap_memsrc_ops *ops)
{
	uint64_t *a = malloc((bt->n + 1) * sizeof(*a)), wo, off;
	size_t *l = malloc((bt->n + 1) * sizeof(*l)),
	       *ri = malloc((bt->n + 1) * sizeof(*ri)), i, k, first = 0;
	unsigned char *ok = malloc(bt->n + 1);
	int rc = 0;

	if (a == NULL || l == NULL || ri == NULL || ok == NULL) {
		free(a);
		free(l);
		free(ri);
		free(ok);
		return snap_nomem(s, "window list", bt->n);
	}
	memset(bt->ok, 1, bt->n);
	/* first: the first range ending past the window's start; off: its
	 * storage offset */
	for (wo = 0, off = 0; wo < bt->bytes && rc == 0; wo += GH_SNAP_WINDOW) {
		uint64_t we = wo + GH_SNAP_WINDOW < bt->bytes ?
			      wo + GH_SNAP_WINDOW : bt->bytes, o = off;

		k = 0;
		for (i = first; i < bt->n && o < we; o += bt->lens[i], i++) {
			uint64_t x = o > wo ? o : wo,
				 y = o + bt->lens[i] < we ? o + bt->lens[i] : we;

			if (y <= x)
				continue;
			a[k] = bt->addrs[i] + (x - o);
			l[k] = (size_t)(y - x);
			ri[k] = i;
			k++;
		}
		(void)madvise(bt->buf + wo, (size_t)(we - wo), SNAP_POPULATE);
		rc = read_list(caps, ctx, ops, a, l, k, we - wo, bt->buf + wo,
			       ok);
		for (i = 0; i < k; i++)
			if (!ok[i])
				bt->ok[ri[i]] = 0;
		(void)madvise(bt->buf + wo, (size_t)(we - wo), MADV_DONTNEED);
		/* the next window starts in the range holding we */
		while (first < bt->n && off + bt->lens[first] <= we)
			off += bt->lens[first++];
	}
	free(a);
	free(l);
	free(ri);
	free(ok);
	return rc;
}

/* Read a batch into its storage and add what was read to the segments
 * (unsorted). */
static int batch_copy(gh_memsnap *s, gh_snapbatch *bt,
		      const gh_memsrc_caps *caps, void *ctx,
		      const goheap_memsrc_ops *ops)
{
	uint64_t off = 0;
	size_t i;
	int rc;

	rc = bt->file ? read_windows(s, bt, caps, ctx, ops) :
	     read_list(caps, ctx, ops, bt->addrs, bt->lens, bt->n, bt->bytes,
		       bt->buf, bt->ok);
	for (i = 0; rc == 0 && i < bt->n; i++) {
		unsigned char *p = bt->buf + off;

		if (bt->ok[i])
			rc = seg_add(s, bt->addrs[i], bt->lens[i], p);
		else
			rc = copy_pages(s, caps, ctx, ops, bt->addrs[i],
					bt->lens[i], p);
		off += bt->lens[i];
	}
	if (bt->file)   /* copy_pages' pages */
		(void)madvise(bt->buf, (size_t)bt->bytes, MADV_DONTNEED);
	if (rc == 0) {
		s->ranges += bt->n;
		s->bytes += bt->bytes;
	}
	return rc;
}

int gh_memsnap_copy(gh_memsnap *s, const gh_memsrc_caps *caps, void *ctx,
		    const goheap_memsrc_ops *ops)
{
	double t0 = gh_now();
	gh_snapbatch *bt;
	size_t i;
	int rc;

	if (s->nplan == 0)
		return 0;
	if (gh_grow(&s->batch, &s->capbatch, s->nbatch + 1, sizeof(*s->batch)))
		return snap_nomem(s, "batch list", 0);
	bt = &s->batch[s->nbatch];
	memset(bt, 0, sizeof(*bt));
	bt->addrs = malloc(s->nplan * sizeof(*bt->addrs));
	bt->lens = malloc(s->nplan * sizeof(*bt->lens));
	bt->ok = malloc(s->nplan);
	if (bt->addrs == NULL || bt->lens == NULL || bt->ok == NULL) {
		free(bt->addrs);
		free(bt->lens);
		free(bt->ok);
		return snap_nomem(s, "plan", s->nplan);
	}
	s->nbatch++;
	for (i = 0; i < s->nplan; i++) {
		bt->addrs[i] = s->plan[i].addr;
		bt->lens[i] = (size_t)s->plan[i].len;
		bt->bytes += s->plan[i].len;
	}
	bt->n = s->nplan;
	bt->buf = s->pbuf;
	bt->file = s->pfile;
	s->nplan = 0;
	s->pbuf = NULL;
	rc = batch_copy(s, bt, caps, ctx, ops);
	if (s->nseg > 1)
		qsort(s->seg, s->nseg, sizeof(*s->seg), seg_cmp);
	s->t_copy += gh_now() - t0;
	return rc;
}

int gh_memsnap_recopy(gh_memsnap *s, const gh_memsrc_caps *caps, void *ctx,
		      const goheap_memsrc_ops *ops)
{
	double t0 = gh_now();
	size_t i;
	int rc = 0;

	s->nseg = 0;
	s->lost = 0;
	for (i = 0; i < s->nbatch && rc == 0; i++)
		rc = batch_copy(s, &s->batch[i], caps, ctx, ops);
	if (s->nseg > 1)
		qsort(s->seg, s->nseg, sizeof(*s->seg), seg_cmp);
	s->t_copy += gh_now() - t0;
	return rc;
}

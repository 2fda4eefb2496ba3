/*
 * memsnap.h - a recording layer under a memory source, and a snapshot of a
 * target's memory that a gh_mem can read as its source.
 *
 * A live read that must be consistent without stopping the target for the
 * whole read (-p retained) goes in three steps: a running pass reads
 * through a gh_memrec, which records every range the backend served (and
 * every read that failed); while the target is stopped those ranges, and
 * what the caller finds changed since, are copied in bulk (the source's
 * readv: process_vm_readv with many iovecs, two reader threads when the
 * source allows it) into a gh_memsnap; after the resume the caller reads
 * the snapshot through gh_memsnap_ops.  Nothing is written to the target.
 *
 * A read the snapshot does not cover is never served live: it fails
 * (GOHEAP_EUNMAPPED) and is counted (misses), unless the running pass saw
 * the same read fail (a cache block over the end of a mapping).  The
 * copy stays in memory up to a bound and goes to an unlinked temporary
 * file above it.
 */
#ifndef GH_MEMSNAP_H
#define GH_MEMSNAP_H

#include "memsrc.h"

typedef struct gh_range {
	uint64_t addr, len;
} gh_range;

/* Sort and merge ranges that overlap or touch; the new count. */
size_t gh_ranges_merge(gh_range *v, size_t n);

/* ---- the recording layer ------------------------------------------------ */

typedef struct gh_memrec {
	const goheap_memsrc_ops *ops;   /* the source recorded */
	void *ctx;
	gh_range *ok, *bad;             /* reads served, reads that failed */
	size_t nok, capok, nbad, capbad;
	int oom;                        /* a range could not be recorded */
} gh_memrec;

/* The recording source (ctx: a gh_memrec); only read, mappings and
 * executable, forwarded. */
extern const goheap_memsrc_ops gh_memrec_ops;

void gh_memrec_init(gh_memrec *r, const goheap_memsrc_ops *ops, void *ctx);
void gh_memrec_fini(gh_memrec *r);

/* ---- the snapshot -------------------------------------------------------- */

typedef struct gh_snapseg {
	uint64_t addr, len;
	unsigned char *data;
} gh_snapseg;

typedef struct gh_snapchunk {
	unsigned char *p;
	size_t size;
	int file;             /* a temporary file's mapping */
} gh_snapchunk;

/* One copy: its ranges, in order in buf; ok[i] whether range i read. */
typedef struct gh_snapbatch {
	uint64_t *addrs;
	size_t *lens;
	size_t n;
	uint64_t bytes;
	unsigned char *buf, *ok;
	int file;             /* buf is a temporary file's mapping: copied
	                       * into a window at a time, each window's
	                       * pages dropped from memory after */
} gh_snapbatch;

typedef struct gh_memsnap {
	gh_snapseg *seg;                /* sorted, disjoint */
	size_t nseg, capseg;
	gh_snapchunk *chunk;            /* the copies' storage (mmapped) */
	size_t nchunk, capchunk;
	uint64_t bound;                 /* bytes kept in memory; the rest in
	                                 * unlinked temporary files */
	uint64_t mem_bytes, file_bytes; /* storage of each kind */
	gh_range *bad;                  /* reads that failed when recorded */
	size_t nbad;
	gh_range *map;                  /* the readable mappings */
	size_t nmap, capmap;
	int have_map;
	/* the next copy: ranges and their storage */
	gh_range *plan;
	size_t nplan, capplan;
	unsigned char *pbuf;
	int pfile;                      /* pbuf is a file's mapping */
	uint64_t unreleased;            /* bytes served since the file
	                                 * mappings' pages were dropped */
	gh_snapbatch *batch;            /* the copies made */
	size_t nbatch, capbatch;
	/* ranges wanted (gh_memsnap_want), not yet planned */
	gh_range *want;
	size_t nwant, capwant;
	/* figures */
	uint64_t ranges, bytes;         /* copied */
	uint64_t lost;                  /* bytes planned but unreadable */
	uint64_t misses, miss_bytes, first_miss;
	double t_copy;                  /* seconds in the copies */
	gh_err *err;
} gh_memsnap;

/* The snapshot as a source (ctx: a gh_memsnap): read, no mappings. */
extern const goheap_memsrc_ops gh_memsnap_ops;

/* bound: bytes kept in memory (0: GH_SNAP_MEM_BOUND). */
#define GH_SNAP_MEM_BOUND ((uint64_t)64 << 20)
/* Of the temporary file's mapping, the bytes a copy writes before their
 * pages are dropped from this process's memory, and the bytes the reads
 * serve before the file's pages read are (the file keeps the copy: its
 * pages stay in the page cache, a read faults them in again): the
 * process holds a window of the copy, not the copy. */
#define GH_SNAP_WINDOW ((uint64_t)32 << 20)
/* Safety limits on a damaged target: bytes of a snapshot, ranges wanted
 * in one round. */
#define GH_SNAP_MAX_BYTES ((uint64_t)64 << 30)
#define GH_SNAP_MAX_WANTS (1u << 20)
void gh_memsnap_init(gh_memsnap *s, uint64_t bound, gh_err *err);
void gh_memsnap_fini(gh_memsnap *s);
/* Take the recording's failed reads (sorted; r keeps nothing of them). */
int gh_memsnap_take_bad(gh_memsnap *s, gh_memrec *r);

/* The target's readable mappings (ops->mappings): plans keep within them,
 * and a read the snapshot misses whose first missing byte is in none is
 * not counted. */
int gh_memsnap_maps(gh_memsnap *s, const goheap_memsrc_ops *ops, void *ctx);

/*
 * Plan the copy of v[0..n) (merged here; the parts the snapshot already
 * holds dropped) and reserve its storage, faulted in, so that the copy
 * itself only copies.  0 or GOHEAP_ENOMEM (err set).
 */
int gh_memsnap_plan(gh_memsnap *s, gh_range *v, size_t n);
/* Plan the ranges wanted since the last plan (see gh_memsnap_want). */
int gh_memsnap_plan_wants(gh_memsnap *s);
/*
 * Copy what was planned through caps->readv (two threads when
 * caps->concurrent_reads and the plan is large), or ops->read a range at
 * a time where the source has no bulk read; a range that does not read
 * whole is read again page by page (what still fails is counted in
 * lost).  0, GOHEAP_ENOPROC or GOHEAP_ENOMEM.
 */
int gh_memsnap_copy(gh_memsnap *s, const gh_memsrc_caps *caps, void *ctx,
		    const goheap_memsrc_ops *ops);

/* Every copy made so far made again into the same storage (the segments
 * are the new copy's): the running copy taken again while stopped. */
int gh_memsnap_recopy(gh_memsnap *s, const gh_memsrc_caps *caps, void *ctx,
		      const goheap_memsrc_ops *ops);

/* [addr, addr+len) inside one segment of the snapshot, or NULL. */
const unsigned char *gh_memsnap_at(const gh_memsnap *s, uint64_t addr,
				   uint64_t len);
/* Copy [addr, addr+len) out of the snapshot: 0, or -1 where it is not
 * covered; whether it is covered. */
int gh_memsnap_get(const gh_memsnap *s, uint64_t addr, void *buf,
		   uint64_t len);
int gh_memsnap_has(const gh_memsnap *s, uint64_t addr, uint64_t len);
/* Want [addr, addr+len) (widened to 64 KiB blocks) copied at the next
 * plan.  0 or GOHEAP_ENOMEM. */
int gh_memsnap_want(gh_memsnap *s, uint64_t addr, uint64_t len);

#endif

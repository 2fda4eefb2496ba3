/*
 * memsrc.h - the library's view of a memory source.
 *
 * Wraps a goheap_memsrc_ops table (live, core or caller-supplied) with the
 * checks every backend needs and none should repeat: overflow of addr+len,
 * a block cache that turns thousands of small bucket reads into a few large
 * ones, typed reads in the target's byte order and word size, and error
 * messages that name what was being read.  The walker sees only this.
 */
#ifndef GH_MEMSRC_H
#define GH_MEMSRC_H

#include "gh.h"

/*
 * Cache geometry: aligned blocks, least recently used replaced.  16 blocks
 * (1 MiB) serve the walk as well as 64 did: it moves through each
 * persistentalloc chunk in one direction, so a block is rarely needed
 * again once left (100k buckets: 1228 reads with 16 blocks, 1226 with
 * 64), and each block costs 16 page faults when it is first filled.
 */
#define GH_MEM_BLOCK 65536u
#define GH_MEM_NBLOCKS 16u

typedef struct gh_mem_block {
	uint64_t base;        /* block-aligned target address */
	size_t lo;            /* data[lo, valid) was read: lo > 0 when a */
	size_t valid;         /* mapping starts inside the block, valid < */
	                      /* GH_MEM_BLOCK when one ends inside it */
	uint64_t stamp;       /* LRU clock, 0 = empty */
	int populated;        /* data faulted in (memsrc.c) */
	int edge_bad;         /* growing to the block's edge failed: */
	                      /* 1 below lo, 2 above valid (memsrc.c grow) */
	unsigned char *data;  /* GH_MEM_BLOCK bytes */
} gh_mem_block;

typedef struct gh_mem {
	const goheap_memsrc_ops *ops;
	void *ctx;
	unsigned ptr_size;
	int big_endian;
	gh_err *err;
	gh_mem_block blocks[GH_MEM_NBLOCKS];
	uint64_t clock;
	gh_mem_block *last;       /* most recently used block: checked first */
	unsigned char *arena;     /* the blocks' one mapping, or NULL */
	int no_arena;             /* mmap failed: blocks are malloc'd */
	uint64_t nreads, nbytes;  /* backend calls and bytes, for -v */
	double t_backend;         /* seconds inside backend reads */
	int no_cache;             /* set for writes / volatile reads */
	double deadline;          /* gh_now() after which backend reads fail
	                             with GOHEAP_ETIMEDOUT; 0: none */
} gh_mem;

void gh_mem_init(gh_mem *m, const goheap_memsrc_ops *ops, void *ctx,
		 unsigned ptr_size, int big_endian, gh_err *err);
/* Free the cache (not the source). */
void gh_mem_fini(gh_mem *m);
/* Forget cached bytes (the target may have changed). */
void gh_mem_invalidate(gh_mem *m);

/*
 * Read len bytes at addr.  `what` names the object for the message
 * ("runtime.mbuckets", "bucket 0x...").  0, or a GOHEAP_E* code with
 * the message set.
 */
int gh_mem_read(gh_mem *m, uint64_t addr, void *buf, size_t len,
		const char *what);
/*
 * gh_mem_read without the copy: a pointer to the len bytes at addr inside
 * the cache, valid until the next call on m, or NULL when the cache cannot
 * serve them (they cross a block, caching is off, the block cannot be
 * read).  NULL is not an error: the caller then uses gh_mem_read, which
 * reads the bytes another way or reports why it cannot.
 */
const unsigned char *gh_mem_peek_slow(gh_mem *m, uint64_t addr, size_t len);

static inline const unsigned char *gh_mem_peek(gh_mem *m, uint64_t addr,
					       size_t len)
{
	gh_mem_block *b = m->last;
	uint64_t off = addr - (b != NULL ? b->base : 0);

	/* The walker's case, inline: the bytes are in the block it used
	 * last (a bucket list mostly runs through one block after
	 * another).  The slow path also checks caching is on: a block is
	 * only `last` while it is. */
	if (b != NULL && b->stamp != 0 && !m->no_cache && len != 0 &&
	    off >= b->lo && off < b->valid && len <= b->valid - off) {
		b->stamp = ++m->clock;
		return b->data + off;
	}
	return gh_mem_peek_slow(m, addr, len);
}
/* Typed reads in the target's byte order. */
int gh_mem_read_uint(gh_mem *m, uint64_t addr, unsigned size, uint64_t *out,
		     const char *what);
int gh_mem_read_ptr(gh_mem *m, uint64_t addr, uint64_t *out,
		    const char *what);
/* Decode a `size`-byte word from a buffer already read. */
static inline uint64_t gh_mem_word(const gh_mem *m, const unsigned char *p,
				   unsigned size)
{
	if (size == 8 && !m->big_endian) {
		uint64_t v;

		memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		return v;
#else
		return gh_load(p, 8, 0);
#endif
	}
	return gh_load(p, size, m->big_endian);
}

/* Uncached write (force mode). */
int gh_mem_write(gh_mem *m, uint64_t addr, const void *buf, size_t len,
		 const char *what);

/* Backend constructors (memsrc_live.c, memsrc_core.c). */
extern const goheap_memsrc_ops gh_live_ops;
extern const goheap_memsrc_ops gh_core_ops;
int gh_live_new(void **out_ctx, int pid, gh_err *err);

/*
 * One thread of a stopped process or a core: its id and the registers the
 * goroutine unwinder needs (amd64: rip, rsp, rbp, r14 = the g under the
 * register ABI when in Go code, fs_base, lr 0; arm64: pc, sp, x29, x28 =
 * the g, lr = x30, fsbase = tpidr 0: not in NT_PRSTATUS).  A live stop
 * gives id, pc and sp only.
 */
typedef struct gh_thread_regs {
	int64_t tid;
	uint64_t pc, sp, fp, g, fsbase, lr;
} gh_thread_regs;
#define GH_CORE_MAX_THREADS 65536u
struct gh_gswitch;

/*
 * What a built-in source can do beyond the public goheap_memsrc_ops: the
 * session holds its source's table (gh_live_caps, gh_core_caps), a
 * caller's source gh_no_caps.  Callers test an entry, never the ops
 * pointer; each entry takes the source's ctx.
 */
typedef struct gh_memsrc_caps {
	/*
	 * Bulk reads (the snapshots' re-reads): n ranges of lens[i] bytes at
	 * addrs[i] into out, one after the other, in as few
	 * process_vm_readv calls as the iovec limit allows; ok[i] 1 for each
	 * range read in full.  0; -1 when not possible now (the caller reads
	 * another way); GOHEAP_ENOPROC.
	 */
	int (*readv)(void *ctx, const uint64_t *addrs, const size_t *lens,
		     size_t n, unsigned char *out, unsigned char *ok);
	/*
	 * The last stop, CLOCK_MONOTONIC seconds from the first thread
	 * interrupted to the last one detached (the seizing and ordering
	 * before it stop nothing).  -1 if there was none.
	 */
	int (*stop_window)(void *ctx, double *begin, double *end);
	/*
	 * While stopped (the stop slot): every stopped thread's id, pc and sp
	 * in *regs (allocated: the caller frees it) and *n.
	 * GOHEAP_EUNSUPPORTED when not stopped, GOHEAP_ENOMEM.
	 */
	int (*stopped_threads)(void *ctx, gh_thread_regs **regs, size_t *n);
	/*
	 * The threads of a core, in note order (the signalled one first):
	 * *regs (owned by the source, valid until it is closed) and *n.  -1
	 * for cores whose registers are not decoded (only 64-bit
	 * little-endian amd64 and arm64 are).
	 */
	int (*core_threads)(void *ctx, const gh_thread_regs **regs, size_t *n);
	/*
	 * The thread_stacks slot, crossing runtime.mcall's switch to g0 as sw
	 * says (NULL: as the slot; ptrace.h gh_gswitch): force mode.
	 */
	int (*thread_stacks_sw)(void *ctx, const struct gh_gswitch *sw,
				goheap_stack_cb cb, void *payload);
	/* 1: the read slot may be called from two threads at once (the
	 * snapshots' second reader); a caller's source (gdb's) may not */
	int concurrent_reads;
	/* Drop the source's pages from this process's resident memory (a
	 * core's mapping: a later read faults them in again from the page
	 * cache); NULL: nothing to drop.  -p retained reads a heap's worth
	 * of a core and keeps none of it. */
	void (*release)(void *ctx);
} gh_memsrc_caps;

extern const gh_memsrc_caps gh_live_caps, gh_core_caps, gh_no_caps;

int gh_core_new(void **out_ctx, const char *core, const char *sysroot,
		gh_err *err);
/*
 * The executable the caller named for core ctx (goheap_open_core's exe):
 * the ranges of the main executable's file mappings that the core did not
 * dump are read from it, not from the path the core recorded, which may
 * have been rebuilt since (its build-id notes are checked against the
 * core's own copy of its first page at open).  ENOMEM or 0.
 */
int gh_core_use_exe(void *ctx, const char *exe);

#endif

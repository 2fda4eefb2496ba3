/*
 * retroots.c - the roots of -p retained that live outside the heap, the
 * data and bss and the goroutine stacks: the queued finalizers and
 * cleanups, as markroot scans them (src/runtime/mgcmark.go):
 *   - fixedRootFinalizers: every block of runtime.allfin (finblock /
 *     finBlock, linked by alllink, persistentalloc'ed: no heap object),
 *     its first cnt finalizers {fn, arg, nret, fint, ot} with finptrmask
 *     (every word but nret).  Between the GC that found an object with a
 *     finalizer unreachable (and took its special away) and the finalizer
 *     goroutine running it, the object is held only from here; the
 *     finalizer running keeps its slot until it returns.  Up to 1.24 the
 *     cleanups are queued here too (arg nil, the closure in fn);
 *   - fixedRootCleanups (1.25+): every block of gcCleanups.all
 *     (cleanupBlock, linked by alllink), its first n entries, every word
 *     a pointer (1.25: a *funcval; 1.26+: cleanupFn {call, fn, arg}).
 * The blocks are found through the symbols runtime.allfin and
 * runtime.gcCleanups; in a stripped binary through the machine code of
 * runtime.markroot, queuefinalizer and runCleanups (target.c
 * gh_target_queues); when
 * neither finds them the header says the queues were not read.  Each
 * entry that points at an object is a root node of kind GH_ROOT_QUEUED.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "retained_int.h"

#define MAX_BLOCKS 65536u      /* blocks of one queue */
#define FIN_BLOCK 4096u        /* _FinBlockSize / finBlockSize */
#define CLEANUP_BLOCK 512u     /* cleanupBlockSize */
#define FIN_PTRMASK 0x1bu      /* finalizer1: fn, arg, fint, ot */

/* One queued entry's words w[0 .. nw) (mask: which are pointers) as a
 * root named after what its argument (word arg) points at. */
static int entry_root(rb *b, const char *what, const unsigned char *e,
		      unsigned nw, unsigned mask, unsigned arg)
{
	gh_retained *r = b->r;
	uint32_t j[8];
	unsigned k, n = 0, i;
	uint64_t a = 0, v;
	char label[256];
	int rc;

	for (k = 0; k < nw && k < 8; k++) {
		if (!((mask >> k) & 1))
			continue;
		v = gh_load(e + 8 * k, 8, b->m->big_endian);
		if (k == arg)
			a = v;
		j[n] = v != 0 ? gh_retained_find(r, v) : GH_RET_NONE;
		if (j[n] == GH_RET_NONE)
			continue;
		for (i = 0; i < n && j[i] != j[n]; i++)
			;
		if (i == n)
			n++;
	}
	r->queued++;
	if (n == 0)
		return 0;
	if (a != 0 && gh_retained_find(r, a) != GH_RET_NONE)
		snprintf(label, sizeof(label), "queued %s of 0x%llx %s", what,
			 (unsigned long long)a,
			 gh_retained_label(r, gh_retained_find(r, a)));
	else
		snprintf(label, sizeof(label), "queued %s", what);
	rc = gh_ret_root_new(b, GH_ROOT_QUEUED, a, 0, label);
	for (k = 0; k < n && rc == 0; k++) {
		r->root_words[GH_ROOT_QUEUED]++;
		rc = gh_ret_edge(b, j[k]);
	}
	return rc;
}

/* The blocks of one queue from head (link: the next block's offset;
 * cnt: the uint32 count's; ents: the first entry's; esize, nw, mask,
 * arg: an entry's bytes, words, pointer words and argument word). */
static int queue(rb *b, uint64_t head, unsigned bsize, unsigned link,
		 unsigned cnt, unsigned ents, unsigned esize, unsigned mask,
		 unsigned arg, const char *what)
{
	unsigned char *blk = malloc(bsize);
	uint64_t fb = head, mark = 0;
	unsigned nblk = 0, n, i, power = 1, lam = 0;
	int rc = 0;

	if (blk == NULL)
		return gh_ret_nomem(b);
	while (fb != 0 && rc == 0) {
		/* a damaged list: too long, or a cycle (Brent's) */
		if (++nblk > MAX_BLOCKS || fb == mark) {
			b->r->queue_state = 3;
			break;
		}
		if (++lam == power) {
			mark = fb;
			power *= 2;
			lam = 0;
		}
		if (gh_mem_read(b->m, fb, blk, bsize, "finalizer block") != 0) {
			b->r->queue_state = 3;
			break;
		}
		n = (unsigned)gh_load(blk + cnt, 4, b->m->big_endian);
		if (n > (bsize - ents) / esize) {
			b->r->queue_state = 3;   /* implausible: not read */
			break;
		}
		for (i = 0; i < n && rc == 0; i++)
			rc = entry_root(b, what, blk + ents + esize * i,
					esize / 8, mask, arg);
		fb = gh_load(blk + link, 8, b->m->big_endian);
	}
	free(blk);
	return rc;
}

int gh_ret_queue_roots(rb *b)
{
	const gh_rtlayout *l = b->l;
	uint64_t allfin, cq, head;
	int rc, a64 = gh_exe_machine(b->s->exe) == EM_AARCH64;

	if (l->fin_size == 0) {
		b->r->queue_state = 2;
		return 0;
	}
	if (gh_target_queues(b->s, &allfin, &cq))
		b->r->queue_found = allfin != 0;
	if (allfin == 0) {
		b->r->queue_state = 1;
		return 0;
	}
	if (gh_mem_read_ptr(b->m, allfin, &head, "runtime.allfin") != 0) {
		b->r->queue_state = 3;
		return 0;
	}
	/* sizeof(finblock): the header and as many finalizers as fit in
	 * _FinBlockSize less two pointers and two uint32s */
	rc = queue(b, head, l->fb_fin + (FIN_BLOCK - 2 * 8 - 2 * 4) /
		   l->fin_size * l->fin_size, 0, l->fb_cnt, l->fb_fin, l->fin_size,
		   FIN_PTRMASK, 1, "finalizer");
	if (rc == 0 && l->cq_all != 0 && cq == 0 && b->r->queue_state == 0)
		b->r->queue_state = 4;     /* the finalizers only */
	if (rc != 0 || cq == 0)
		return rc;
	if (gh_mem_read_ptr(b->m, cq + gh_rt_cq_all(l, a64), &head,
			    "gcCleanups.all") != 0) {
		b->r->queue_state = 3;
		return 0;
	}
	return queue(b, head, CLEANUP_BLOCK, l->cb_alllink, l->cb_n, l->cb_fns,
		     l->cb_fn_size, 0xffu, l->cb_fn_size == 24 ? 2 : 8,
		     "cleanup");
}

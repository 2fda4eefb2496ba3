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
 * runtime.markroot, queuefinalizer and runCleanups (find_queues); when
 * neither finds them the header says the queues were not read.  Each
 * entry that points at an object is a root node of kind GH_ROOT_QUEUED.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "locate.h"
#include "retained_int.h"

#define MAX_BLOCKS 65536u      /* blocks of one queue */
#define FIN_BLOCK 4096u        /* _FinBlockSize / finBlockSize */
#define CLEANUP_BLOCK 512u     /* cleanupBlockSize */
#define FIN_PTRMASK 0x1bu      /* finalizer1: fn, arg, fint, ot */

/* The symbol's runtime address, 0 when the binary has none. */
static uint64_t sym_addr(rb *b, const char *name)
{
	uint64_t a;

	if (gh_exe_symbol(b->s->exe, name, &a, NULL) != 0 || a == 0)
		return 0;
	return a + b->s->bias;
}

/* ---- a stripped binary: the queues found through the code that uses them */

/* The data references (link-time addresses) of function name, by its
 * pclntab bounds; -1 when it is not there or does not decode. */
static int func_refs(rb *b, const char *name, gh_refvec *rv)
{
	uint64_t lo, hi;
	const unsigned char *code;
	gh_err e;

	rv->n = 0;
	if (gh_sym_func_entry(b->s->sym, name, &lo, &hi) != 0 || hi <= lo ||
	    hi - lo > GH_LOCATE_MAX_FUNC || lo < b->s->bias)
		return -1;
	lo -= b->s->bias;
	hi -= b->s->bias;
	code = gh_exe_ptr(b->s->exe, lo, (size_t)(hi - lo));
	memset(&e, 0, sizeof(e));
	if (code == NULL || gh_decode_refs(gh_exe_machine(b->s->exe), code,
					   (size_t)(hi - lo), lo, rv, &e) != 0)
		return -1;
	return 0;
}

int gh_ret_func_refs(rb *b, const char *name, gh_refvec *rv)
{
	return func_refs(b, name, rv);
}

/* In .bss or .noptrbss (allfin, a pointer to a type not in the heap,
 * is no GC pointer: the linker puts it in .noptrbss), 8-aligned. */
static int in_bss(rb *b, uint64_t a)
{
	static const char *const names[2] = { ".bss", ".noptrbss" };
	unsigned i;

	for (i = 0; i < 2 && a % 8 == 0; i++) {
		const gh_section *sec = gh_exe_section(b->s->exe, names[i]);

		if (sec != NULL && a >= sec->addr && a - sec->addr < sec->size)
			return 1;
	}
	return 0;
}

static int has_ref(const gh_refvec *rv, uint64_t t, unsigned kind,
		   unsigned size)
{
	size_t i;

	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == t && (rv->v[i].kind & kind) &&
		    (size == 0 || rv->v[i].size == size))
			return 1;
	return 0;
}

/*
 * runtime.allfin and runtime.gcCleanups (1.25+) without symbols (link-
 * time addresses in *fin, *cq; 0: not found):
 *   - allfin is the one .bss/.noptrbss word that runtime.markroot loads (8 bytes,
 *     fixedRootFinalizers' loop) and runtime.queuefinalizer refers to
 *     ("finc.alllink = allfin; allfin = finc"): queuefinalizer's other
 *     globals (finq, finc, finlock) are not markroot's;
 *   - gcCleanups is the one address runtime.runCleanups materialises (its
 *     methods' receiver) whose .all (cq_all past it) markroot loads.
 */
static void find_queues(rb *b, int a64, uint64_t *fin, uint64_t *cq)
{
	gh_refvec mr = { NULL, 0, 0 }, q = { NULL, 0, 0 };
	uint64_t all = b->l->cq_all != 0 ? gh_rt_cq_all(b->l, a64) : 0;
	size_t i;
	unsigned nf = 0, nc = 0;

	*fin = *cq = 0;
	if (func_refs(b, "runtime.markroot", &mr) == 0 &&
	    func_refs(b, "runtime.queuefinalizer", &q) == 0)
		for (i = 0; i < mr.n; i++) {
			uint64_t t = mr.v[i].target;

			if (!(mr.v[i].kind & GH_REF_LOAD) || mr.v[i].size != 8 ||
			    !in_bss(b, t) || t == *fin ||
			    !has_ref(&q, t, GH_REF_ADDR | GH_REF_LOAD |
				     GH_REF_STORE, 0))
				continue;
			*fin = t;
			nf++;
		}
	if (nf != 1)
		*fin = 0;
	if (all != 0 && *fin != 0 &&
	    func_refs(b, "runtime.runCleanups", &q) == 0)
		for (i = 0; i < q.n; i++) {
			uint64_t t = q.v[i].target;

			if (!(q.v[i].kind & GH_REF_ADDR) || !in_bss(b, t) ||
			    t == *cq || !has_ref(&mr, t + all, GH_REF_LOAD, 8))
				continue;
			*cq = t;
			nc++;
		}
	if (nc != 1)
		*cq = 0;
	gh_refvec_free(&mr);
	gh_refvec_free(&q);
}

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
	allfin = sym_addr(b, "runtime.allfin");
	cq = l->cq_all != 0 ? sym_addr(b, "runtime.gcCleanups") : 0;
	if (allfin == 0 && !gh_exe_has_symtab(b->s->exe)) {
		find_queues(b, a64, &allfin, &cq);
		if (allfin != 0)
			allfin += b->s->bias;
		if (cq != 0)
			cq += b->s->bias;
		b->r->queue_found = allfin != 0;
	}
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

/*
 * retstack.c - the goroutine stacks' roots of -p retained, as the
 * garbage collector's scanstack and scanframeworker find them (go1.22+
 * src/runtime/mgcmark.go, stkframe.go getStackMap, stack.go
 * stackObjectRecord).
 *
 * Every g of allgs that is not _Gdead, unwound from its saved pc and sp
 * (the syscall pc and sp in a syscall) with pcsp, amd64 and arm64.  In
 * each frame:
 *   - locals: FUNCDATA_LocalsPointerMaps' bitmap at the frame's
 *     PCDATA_StackMapIndex (the entry map at the entry pc), the words
 *     below varp (amd64: fp - 8, arm64: fp; less the saved frame pointer);
 *   - arguments: FUNCDATA_ArgsPointerMaps' bitmap, _func.args bytes from
 *     argp (amd64: fp; arm64: fp + 8, past the caller's LR slot);
 *   - stack objects (FUNCDATA_StackObjects: address-taken variables):
 *     scanned, with their own GC mask, when a pointer found so far
 *     points into them, until no more are found (the runtime's
 *     stackScanState);
 *   - a frame of runtime.asyncPreempt or debugCallV2, and the frame under
 *     it, every word (the runtime scans them conservatively too);
 *   - the g's sched.ctxt, its defer records' closures and links and its
 *     panics (extra_ptrs: scanstack's "additional pointers").
 * A running goroutine is unwound from its thread's registers (a core's
 * notes, through the signal frame of a crash core: gorshare.h
 * gor_threads_regs; a live stop's threads: the one whose sp is on its
 * stack), its interrupted frame scanned every word (no safe point), the
 * frames above with their maps: the stack below its sp is dead and holds
 * old values.  A running goroutine whose thread is not found (its whole
 * stack), a stack that cannot be unwound to its end (the rest of it), and
 * every stack of another architecture are scanned conservatively: every
 * word that points into an object; the output says how many.
 */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine.h"
#include "locate.h"
#include "retained_int.h"

#define ARGS_UNKNOWN INT32_MIN  /* abi.ArgsSizeUnknown */
#define FUNCDATA_ARGS 0u
#define FUNCDATA_LOCALS 1u
#define FUNCDATA_STACKOBJ 2u
#define PCDATA_STACKMAP 1u
#define MAX_STACKOBJ 4096u      /* stack objects of one frame */
#define MAX_MAPBITS (1u << 20)  /* words of one stack map */

typedef struct sobj {
	uint64_t ptr, gcdata;
	uint32_t size, ptrbytes, frame;
	int scanned;
} sobj;

typedef struct fedge {
	uint32_t frame, obj;
} fedge;

/* One goroutine's scan. */
typedef struct gscan {
	rb *b;
	uint64_t lo, hi;
	uint64_t *sptr;           /* pointers into the stack */
	size_t nsptr, capsptr;
	sobj *so;
	size_t nso, capso;
	fedge *fe;
	size_t nfe, capfe;
	wbuf wb;
	int lr;                   /* arm64: a link-register machine */
} gscan;

/*
 * The frames of a stopped goroutine from (pc, sp), by pcsp, as the
 * unwinder's resolveInternal and next (traceback.go) find them:
 *   - amd64: fp = sp + spdelta + 8 (the return address, the caller's pc,
 *     at fp - 8);
 *   - arm64 (lr: a link-register machine): fp = sp + spdelta; the
 *     caller's pc is at 0(sp) (the prologue's MOVD.W R30, -size(RSP)),
 *     but in an innermost frame not yet allocated (sp == fp) it is lr0
 *     (gobuf.lr); under a call the signal handler injected (sigpanic,
 *     asyncPreempt, debugCallV2) the handler saved the interrupted LR at
 *     0(sp) and moved sp down by 16: that word is the caller's pc when
 *     the interrupted function had not allocated its frame.
 */
static size_t unwind(rb *b, int lr, uint64_t pc, uint64_t sp, uint64_t lr0,
		     uint64_t hi, gh_ret_frame *fr, size_t cap, int *whole)
{
	size_t n = 0;
	int injected = 0;

	*whole = 0;
	while (n < cap && sp < hi) {
		gh_funcinfo fi;
		uint64_t fp, next;

		if (gh_sym_funcinfo(b->s->sym, pc, &fi) != 0 || !fi.has_pcsp ||
		    fi.spdelta < 0)
			return n;
		if (lr && injected) {
			uint64_t x;

			if (gh_mem_read_ptr(b->m, sp, &x, "goroutine stack") != 0)
				return n;
			sp += 16;
			if (fi.spdelta == 0)
				lr0 = x;
		}
		fp = sp + (uint64_t)fi.spdelta + (lr ? 0 : 8);
		if (fp > hi)
			return n;
		fr[n].sp = sp;
		fr[n].fp = fp;
		fr[n].pc = pc;
		fr[n].name = fi.name;
		fr[n].args = fi.args;
		fr[n].funcid = fi.funcid;
		n++;
		if (fi.flag & (GH_FUNCFLAG_TOPFRAME | GH_FUNCFLAG_SPWRITE)) {
			*whole = (fi.flag & GH_FUNCFLAG_TOPFRAME) != 0;
			return n;
		}
		if (!lr) {
			if (gh_mem_read_ptr(b->m, fp - 8, &next,
					    "goroutine stack") != 0)
				return n;
		} else if (sp < fp || lr0 == 0) {
			if (gh_mem_read_ptr(b->m, sp, &next,
					    "goroutine stack") != 0)
				return n;
		} else
			next = lr0;
		lr0 = 0;
		injected = strcmp(fi.name, "runtime.sigpanic") == 0 ||
			   strcmp(fi.name, "runtime.asyncPreempt") == 0 ||
			   strcmp(fi.name, "runtime.debugCallV2") == 0;
		pc = next;
		sp = fp;
	}
	return n;
}

/* A slot's value v (frame f): into the stack, or into an object. */
static int slot(gscan *g, uint32_t f, uint64_t v)
{
	uint32_t j;

	if (v >= g->lo && v < g->hi) {
		if (gh_grow(&g->sptr, &g->capsptr, g->nsptr + 1,
			    sizeof(*g->sptr)))
			return gh_ret_nomem(g->b);
		g->sptr[g->nsptr++] = v;
		return 0;
	}
	j = v != 0 ? gh_retained_find(g->b->r, v) : GH_RET_NONE;
	if (j == GH_RET_NONE)
		return 0;
	if (gh_grow(&g->fe, &g->capfe, g->nfe + 1, sizeof(*g->fe)))
		return gh_ret_nomem(g->b);
	g->fe[g->nfe].frame = f;
	g->fe[g->nfe].obj = j;
	g->nfe++;
	return 0;
}

/* Every word of [lo, hi) (frame f). */
static int scan_all(gscan *g, uint32_t f, uint64_t lo, uint64_t hi)
{
	uint64_t a, v;
	int rc;

	for (a = lo & ~(uint64_t)7; a + 8 <= hi; a += 8) {
		if (gh_ret_word_at(g->b, &g->wb, a, g->hi, &v) != 0)
			return 0;
		rc = slot(g, f, v);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The words of [base, base + 8 * nbits) whose bit is set in bits. */
static int scan_bits(gscan *g, uint32_t f, uint64_t base,
		     const unsigned char *bits, uint32_t nbits)
{
	uint32_t i;
	uint64_t v;
	int rc;

	for (i = 0; i < nbits; i++) {
		if (!((bits[i / 8] >> (i % 8)) & 1))
			continue;
		if (base + 8 * (uint64_t)i < g->lo ||
		    base + 8 * (uint64_t)i + 8 > g->hi ||
		    gh_ret_word_at(g->b, &g->wb, base + 8 * (uint64_t)i, g->hi,
				   &v) != 0)
			continue;
		rc = slot(g, f, v);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * stackmapdata(funcdata(f, idx), index): the bitmap into bits (at most
 * cap bytes), its bits in *nbits.  -1 when absent or out of range.
 */
static int stackmap(rb *b, uint64_t pc, uint32_t idx, int32_t index,
		    unsigned char *bits, size_t cap, uint32_t *nbits)
{
	unsigned char h[8];
	size_t got;
	int32_t n, nbit;
	uint64_t nb;

	if (gh_sym_funcdata_read(b->s->sym, pc, idx, 0, h, 8, &got) != 0 ||
	    got != 8)
		return -1;
	n = (int32_t)gh_load(h, 4, b->m->big_endian);
	nbit = (int32_t)gh_load(h + 4, 4, b->m->big_endian);
	if (nbit == 0) {
		*nbits = 0;
		return 0;
	}
	if (n <= 0 || nbit < 0 || (uint32_t)nbit > MAX_MAPBITS ||
	    index < 0 || index >= n)
		return -1;
	nb = ((uint64_t)nbit + 7) / 8;
	if (nb > cap ||
	    gh_sym_funcdata_read(b->s->sym, pc, idx, 8 + (uint64_t)index * nb,
				 bits, (size_t)nb, &got) != 0 || got != nb)
		return -1;
	*nbits = (uint32_t)nbit;
	return 0;
}

/* The precise roots of frame f; -1 (nothing scanned) when its maps are
 * missing: the caller scans it whole. */
static int scan_frame(gscan *g, const gh_ret_frame *fr, uint32_t f,
		      uint64_t rodata, unsigned char *bits, size_t cap)
{
	rb *b = g->b;
	/* amd64: varp below the return address, argp at fp; arm64: varp at
	 * fp, argp past the caller's saved-LR word (sys.MinFrameSize) */
	uint64_t varp = g->lr ? fr->fp : fr->fp - 8,
		 argp = g->lr ? fr->fp + 8 : fr->fp, targetpc = fr->pc, nobj;
	int32_t index = -1;
	uint32_t nbits, k;
	unsigned char rec[16], h[8];
	size_t got;
	gh_funcinfo fi;
	int rc;

	if (varp > fr->sp)
		varp -= 8;     /* the saved frame pointer */
	if (gh_sym_funcinfo(b->s->sym, fr->pc, &fi) != 0)
		return -1;
	if (targetpc != fi.entry) {
		targetpc--;
		index = gh_sym_pcdata_value(b->s->sym, fr->pc,
					    PCDATA_STACKMAP, targetpc);
	}
	if (index == -1)
		index = 0;     /* the prologue: the entry map */
	/* locals when the frame is larger than sys.MinFrameSize (amd64: 0)
	 * or sys.StackAlign (arm64: 16) */
	if (varp > fr->sp + (g->lr ? 16 : 0)) {
		if (stackmap(b, fr->pc, FUNCDATA_LOCALS, index, bits, cap,
			     &nbits) != 0)
			return -1;
		rc = scan_bits(g, f, varp - 8 * (uint64_t)nbits, bits, nbits);
		if (rc != 0)
			return rc;
	}
	if (fr->args == ARGS_UNKNOWN)
		return -1;     /* reflect's stubs */
	if (fr->args >= 8) {
		if (stackmap(b, fr->pc, FUNCDATA_ARGS, index, bits, cap,
			     &nbits) != 0)
			return -1;
		rc = scan_bits(g, f, argp, bits, nbits);
		if (rc != 0)
			return rc;
	}
	/* stack objects: kept, scanned once something points at them */
	if (gh_sym_funcdata_read(b->s->sym, fr->pc, FUNCDATA_STACKOBJ, 0, h, 8,
				 &got) != 0 || got != 8)
		return 0;
	nobj = gh_load(h, 8, b->m->big_endian);
	if (nobj > MAX_STACKOBJ)
		return -1;
	for (k = 0; k < nobj; k++) {
		int32_t off, size, ptrbytes;
		uint64_t ptr;

		if (gh_sym_funcdata_read(b->s->sym, fr->pc, FUNCDATA_STACKOBJ,
					 8 + 16 * (uint64_t)k, rec, 16, &got) !=
		    0 || got != 16)
			return -1;
		off = (int32_t)gh_load(rec, 4, b->m->big_endian);
		size = (int32_t)gh_load(rec + 4, 4, b->m->big_endian);
		ptrbytes = (int32_t)gh_load(rec + 8, 4, b->m->big_endian);
		ptr = (off >= 0 ? argp : varp) + (uint64_t)(int64_t)off;
		if (ptr < fr->sp || size <= 0 || ptrbytes < 0 ||
		    ptrbytes > size || rodata == 0)
			continue;
		if (gh_grow(&g->so, &g->capso, g->nso + 1, sizeof(*g->so)))
			return gh_ret_nomem(b);
		g->so[g->nso].ptr = ptr;
		g->so[g->nso].size = (uint32_t)size;
		g->so[g->nso].ptrbytes = (uint32_t)ptrbytes;
		g->so[g->nso].gcdata = rodata +
			(uint32_t)gh_load(rec + 12, 4, b->m->big_endian);
		g->so[g->nso].frame = f;
		g->so[g->nso].scanned = 0;
		g->nso++;
	}
	return 0;
}

/* The stack objects some pointer found so far points into, until no
 * more: each scanned with its GC mask. */
static int scan_objects(gscan *g, unsigned char *bits, size_t cap)
{
	size_t i, k, done = 0;
	int more = 1, rc;

	while (more) {
		more = 0;
		for (i = 0; i < g->nso; i++) {
			sobj *o = &g->so[i];
			uint32_t nw = o->ptrbytes / 8;
			size_t nb = (nw + 7) / 8;
			int hit = 0;

			if (o->scanned)
				continue;
			for (k = 0; k < g->nsptr && !hit; k++)
				hit = g->sptr[k] >= o->ptr &&
				      g->sptr[k] - o->ptr < o->size;
			if (!hit)
				continue;
			o->scanned = 1;
			more = 1;
			if (nb > cap || gh_mem_read(g->b->m, o->gcdata, bits, nb,
						    "stack object GC mask") != 0)
				continue;
			rc = scan_bits(g, o->frame, o->ptr, bits, nw);
			if (rc != 0)
				return rc;
			if (++done > 1u << 20)
				return 0;
		}
	}
	return 0;
}

static int fe_cmp(const void *x, const void *y)
{
	const fedge *a = x, *c = y;

	if (a->frame != c->frame)
		return a->frame < c->frame ? -1 : 1;
	return a->obj < c->obj ? -1 : a->obj > c->obj;
}

#define MAX_DEFERS 100000u      /* defer records of one goroutine */

/*
 * What scanstack finds besides the frames (mgcmark.go): gp.sched.ctxt
 * (pseudo frame nf + 1), each defer record's fn and link, and a heap
 * record itself (nf + 2: the records are chained through the stack and
 * the heap, their fields uintptrs to the compiler, so no stack map has
 * them), and gp._panic (a stack record: its stack object is scanned).
 * A pointer into the stack marks the stack object it points into (a
 * stack-allocated defer's closure), as the runtime's state.putPtr.
 */
static int extra_ptrs(gscan *g, const unsigned char *gb, uint32_t nf)
{
	rb *b = g->b;
	const gh_rtlayout *l = b->l;
	uint64_t ctxt, d, v, mark = 0;
	unsigned char rec[80];
	unsigned n = 0, rl, power = 1, lam = 0;
	int rc = 0;

	if (l->fin_size == 0)
		return 0;
	ctxt = gh_mem_word(b->m, gb + l->g_sched + l->gobuf_ctxt, 8);
	if (ctxt != 0) {
		b->r->ctxts++;
		rc = slot(g, nf + 1, ctxt);
	}
	v = gh_mem_word(b->m, gb + l->g_panic, 8);
	if (rc == 0 && v != 0) {
		b->r->panics++;
		rc = slot(g, nf + 2, v);
	}
	rl = (l->dfr_link > l->dfr_fn ? l->dfr_link : l->dfr_fn) + 8;
	for (d = gh_mem_word(b->m, gb + l->g_defer, 8);
	     d != 0 && rc == 0 && n < MAX_DEFERS && rl <= sizeof(rec); n++) {
		uint64_t fn, link;

		if (d == mark ||   /* a cycle (Brent's): a damaged chain */
		    gh_mem_read(b->m, d, rec, rl, "defer record") != 0)
			break;
		if (++lam == power) {
			mark = d;
			power *= 2;
			lam = 0;
		}
		b->r->defers++;
		fn = gh_load(rec + l->dfr_fn, 8, b->m->big_endian);
		link = gh_load(rec + l->dfr_link, 8, b->m->big_endian);
		if (fn != 0)
			rc = slot(g, nf + 2, fn);
		if (rc == 0 && link != 0)
			rc = slot(g, nf + 2, link);
		if (rc == 0 && rec[l->dfr_heap] != 0)
			rc = slot(g, nf + 2, d);
		d = link;
	}
	return rc;
}

/* The goroutine's edges as root nodes, one per frame (nf: the frames
 * that were found; frame nf is "the rest of the stack", nf + 1 its
 * sched.ctxt, nf + 2 its defer records and panics). */
static int emit(gscan *g, const gh_ret_frame *fr, size_t nf, uint64_t goid,
		uint64_t gp, int running)
{
	size_t i;
	uint32_t cur = GH_RET_NONE;
	char label[320];
	int rc;

	if (g->nfe > 1)    /* (fe is NULL while empty) */
		qsort(g->fe, g->nfe, sizeof(*g->fe), fe_cmp);
	for (i = 0; i < g->nfe; i++) {
		uint32_t f = g->fe[i].frame;

		if (i > 0 && g->fe[i].frame == g->fe[i - 1].frame &&
		    g->fe[i].obj == g->fe[i - 1].obj)
			continue;
		if (f != cur) {
			cur = f;
			if (f < nf)
				snprintf(label, sizeof(label),
					 "goroutine %llu: %s",
					 (unsigned long long)goid, fr[f].name);
			else if (f > nf)
				snprintf(label, sizeof(label),
					 "goroutine %llu: %s",
					 (unsigned long long)goid, f == nf + 1 ?
					 "sched.ctxt" : "defer records");
			else
				snprintf(label, sizeof(label),
					 "goroutine %llu%s",
					 (unsigned long long)goid,
					 running ? " (running)" : "");
			rc = gh_ret_root_new(g->b, GH_ROOT_STACK,
					     f < nf ? fr[f].sp : gp, goid,
					     label);
			if (rc != 0)
				return rc;
		}
		g->b->r->root_words[GH_ROOT_STACK]++;
		rc = gh_ret_edge(g->b, g->fe[i].obj);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* moduledata.rodata (the stack objects' masks are offsets from it): the
 * word before gofunc, 1.19 to 1.27. */
static uint64_t read_rodata(rb *b)
{
	uint64_t md = gh_sym_moduledata(b->s->sym), v = 0;

	if (md == 0 || b->l->md_gofunc == 0 ||
	    gh_mem_read_ptr(b->m, md + b->s->bias +
			    8 * ((uint64_t)b->l->md_gofunc - 1), &v,
			    "moduledata.rodata") != 0)
		return 0;
	return v;
}

/* -p goroutineleak: the sudogs a goroutine waiting at most this deep
 * hangs on g.waiting (a select's cases), and semaRoot treap nodes walked */
#define LEAK_MAX_SUDOGS 65536u
#define LEAK_MAX_SEMA (1u << 22)
/* sudogs recorded in all (three words each): a damaged core's cyclic
 * waitlinks stop here */
#define LEAK_MAX_ALL_SUDOGS (1u << 22)

/* The word at a, read through sud_vu (maybeTraceablePtr's vu) when the
 * release hides the pointer from the leak GC; 0 unreadable. */
static uint64_t sud_word(rb *b, uint64_t a)
{
	uint64_t v = 0;

	if (gh_mem_read_ptr(b->m, a, &v, "sudog") != 0)
		return 0;
	return v;
}

/* -p goroutineleak: a waiting goroutine's wait (gh_ret_gwait), its
 * sudogs from g.waiting by waitlink, and whether its stack has a sync
 * frame (the releases whose waitReason does not tell Mutex, RWMutex and
 * WaitGroup from other semaphores). */
static int leak_note(rb *b, const unsigned char *gb, uint64_t gp,
		     uint64_t goid, uint32_t status, const gh_ret_frame *fr,
		     size_t nf)
{
	const gh_rtlayout *l = b->l;
	gh_retained *r = b->r;
	gh_ret_gwait *w;
	uint64_t sg, first;
	size_t f;
	unsigned n = 0;

	if (status != GH_G_WAITING &&
	    (l->g_leaked == 0 || status != l->g_leaked))
		return 0;
	if (gh_grow(&r->gw, &r->capgw, r->ngw + 1, sizeof(*r->gw)) != 0)
		return gh_ret_nomem(b);
	w = &r->gw[r->ngw++];
	memset(w, 0, sizeof(*w));
	w->gp = gp;
	w->goid = goid;
	w->status = status;
	w->waitreason = gb[l->g_waitreason];
	w->at = r->ngwobj;
	for (f = 0; f < nf; f++) {
		const char *s = fr[f].name;

		if (strncmp(s, "sync.(*Mutex).", 14) == 0 ||
		    strncmp(s, "sync.(*RWMutex).", 16) == 0 ||
		    strncmp(s, "sync.(*WaitGroup).Wait", 22) == 0 ||
		    strncmp(s, "internal/sync.(*Mutex).", 23) == 0 ||
		    /* the sync package's own semaphore calls, physical
		     * frames when the methods above are inlined (1.19's
		     * RWMutex.RLock) */
		    strncmp(s, "sync.runtime_Semacquire", 23) == 0) {
			w->sync_frame = 1;
			break;
		}
		if (strcmp(s, "sync.(*Cond).Wait") == 0) {
			w->sync_frame = 2;
			break;
		}
	}
	if (l->g_waiting == 0)
		return 0;
	sg = gh_mem_word(b->m, gb + l->g_waiting, 8);
	first = sg;
	while (sg != 0 && n++ < LEAK_MAX_SUDOGS &&
	       r->ngwobj / 3 < LEAK_MAX_ALL_SUDOGS) {
		if (gh_grow(&r->gwobj, &r->capgwobj, r->ngwobj + 3,
			    sizeof(*r->gwobj)) != 0)
			return gh_ret_nomem(b);
		r->gwobj[r->ngwobj++] = sg;
		r->gwobj[r->ngwobj++] = sud_word(b, sg + l->sud_c + l->sud_vu);
		r->gwobj[r->ngwobj++] = sud_word(b, sg + l->sud_elem +
						 l->sud_vu);
		w->n++;
		sg = sud_word(b, sg + l->sud_waitlink);
		if (sg == first)
			break;        /* a cycle: damaged */
	}
	return 0;
}

/* A semaRoot treap's sudogs (prev, next: its children; waitlink: the
 * other waiters on one address), as semtable triples (g, sudog, elem). */
static int sema_walk(rb *b, uint64_t t, unsigned depth, size_t *budget)
{
	gh_retained *r = b->r;
	const gh_rtlayout *l = b->l;
	uint64_t s;
	int rc;

	if (t == 0)
		return 0;
	if (depth > 64 || *budget == 0)
		return 1;
	for (s = t; s != 0 && *budget > 0; s = sud_word(b, s + l->sud_waitlink)) {
		(*budget)--;
		if (gh_grow(&r->semw, &r->capsemw, r->nsemw + 3,
			    sizeof(*r->semw)) != 0)
			return gh_ret_nomem(b);
		r->semw[r->nsemw++] = sud_word(b, s + l->sud_g);
		r->semw[r->nsemw++] = s;
		r->semw[r->nsemw++] = sud_word(b, s + l->sud_elem);
	}
	rc = sema_walk(b, sud_word(b, t + l->sud_prev), depth + 1, budget);
	if (rc == 0)
		rc = sema_walk(b, sud_word(b, t + l->sud_next), depth + 1,
			       budget);
	return rc;
}

/* The releases whose semacquire does not hang its sudog on g.waiting:
 * every semaphore waiter of runtime.semtable (sema.go semTable). */
static int leak_sema(rb *b)
{
	const gh_rtlayout *l = b->l;
	uint64_t tab, t;
	size_t budget = LEAK_MAX_SEMA;
	unsigned i;
	int rc;

	if (l->lk_sema_waiting || l->semtab_n == 0) {
		b->r->sema_state = 1;
		return 0;
	}
	tab = gh_target_semtable(b->s);
	if (tab == 0) {
		b->r->sema_state = 2;
		return 0;
	}
	for (i = 0; i < l->semtab_n; i++) {
		if (gh_mem_read_ptr(b->m, tab + (uint64_t)i * l->semtab_stride +
				    l->semtab_treap, &t, "semtable") != 0) {
			b->r->sema_state = 3;
			return 0;
		}
		rc = sema_walk(b, t, 0, &budget);
		if (rc < 0)
			return rc;
		if (rc > 0)
			b->r->sema_state = 3;
	}
	return 0;
}

/*
 * A thread of th whose sp is on the stack [lo, hi) and whose pc is Go
 * code: the goroutine running there, its registers.  Stacks do not
 * overlap, so no M is read (a live stop's copy holds none); a thread in
 * the runtime's signal handler (a crash core) is found by
 * gor_threads_regs instead.
 */
static int thread_on_stack(rb *b, const gor_threads *th, uint64_t lo,
			   uint64_t hi, uint64_t *pc, uint64_t *sp,
			   uint64_t *lr)
{
	gh_funcinfo fi;
	size_t i;

	for (i = 0; i < th->n; i++) {
		const gh_thread_regs *t = &th->t[i];

		if (t->sp >= lo && t->sp < hi &&
		    gh_sym_funcinfo(b->s->sym, t->pc, &fi) == 0) {
			*pc = t->pc;
			*sp = t->sp;
			*lr = t->lr;
			return 1;
		}
	}
	return 0;
}

int gh_ret_stack_roots(rb *b, gh_ret_frame *fr)
{
	gh_target *s = b->s;
	const gh_rtlayout *l = b->l;
	uint64_t allgs = s->addrs.allgs, arr, len, i, rodata = read_rodata(b);
	unsigned char gb[512], *bits;
	unsigned span = gor_g_span(l);
	unsigned mach = gh_exe_machine(s->exe);
	int rc;
	gscan g;
	gor_threads th;
	int core;
	const size_t cap = MAX_MAPBITS / 8;

	if (allgs == 0)
		return gh_errf(&s->err, GOHEAP_ENOSYM, "-p retained: "
			       "runtime.allgs not found");
	if (span > sizeof(gb))
		return gh_errf(&s->err, GOHEAP_EVERSION, "-p retained: g of "
			       "%u bytes", span);
	rc = gor_read_allgs(s, allgs, 0, &arr, &len);
	if (rc != 0)
		return rc;
	bits = malloc(cap);
	if (bits == NULL)
		return gh_ret_nomem(b);
	memset(&g, 0, sizeof(g));
	g.b = b;
	g.lr = mach == EM_AARCH64;
	/* the threads of this instant (a core's, the live stop's): a
	 * running goroutine's real pc and sp */
	th.tg = s;
	th.m = b->m;
	if (gh_target_threads(s, &th.t, &th.n) != 0)
		th.n = 0;
	core = s->stop_regs == NULL;
	for (i = 0; i < len && rc == 0; i++) {
		uint64_t gp, sp, pc, goid, syscallsp, rest, ilr;
		uint32_t status;
		size_t nf = 0, f;
		int running, whole = 0, cons = 0, interrupted = 0;

		if (gh_mem_read_ptr(b->m, arr + 8 * i, &gp, "allgs[i]") != 0 ||
		    gp == 0 || gh_mem_read(b->m, gp, gb, span, "g") != 0)
			continue;
		status = (uint32_t)gh_mem_word(b->m, gb + l->g_atomicstatus,
					       4) & ~0x1000u;
		if (status == GH_G_DEAD)
			continue;
		g.lo = gh_mem_word(b->m, gb, 8);
		g.hi = gh_mem_word(b->m, gb + 8, 8);
		goid = gh_mem_word(b->m, gb + l->g_goid, 8);
		if (g.hi <= g.lo || g.hi - g.lo > GH_RET_MAX_STACK)
			continue;
		syscallsp = gh_mem_word(b->m, gb + l->g_syscallsp, 8);
		if (syscallsp != 0) {
			sp = syscallsp;
			pc = gh_mem_word(b->m, gb + l->g_syscallpc, 8);
		} else {
			sp = gh_mem_word(b->m, gb + l->g_sched + l->gobuf_sp, 8);
			pc = gh_mem_word(b->m, gb + l->g_sched + l->gobuf_pc, 8);
		}
		g.nsptr = g.nso = g.nfe = 0;
		g.wb.lo = g.wb.hi = 0;
		running = status == GH_G_RUNNING || sp < g.lo || sp >= g.hi;
		b->r->goroutines++;
		if (running && syscallsp == 0 && th.n > 0 &&
		    (mach == EM_X86_64 || mach == EM_AARCH64) &&
		    (thread_on_stack(b, &th, g.lo, g.hi, &pc, &sp, &ilr) ||
		     (core && gor_threads_regs(&th, gb, gp, g.lo, g.hi, &pc,
					       &sp, &ilr)))) {
			/* where its thread was interrupted: that frame
			 * every word (not at a safe point: no stack map,
			 * as the runtime's asyncPreempt frame), the frames
			 * above it with their maps; the stack below sp is
			 * dead (a whole-stack scan would find old values
			 * there) */
			b->r->running_regs++;
			interrupted = 1;
			nf = unwind(b, g.lr, pc, sp, ilr, g.hi, fr,
				    GH_RET_MAX_FRAMES, &whole);
		} else if (running) {
			b->r->running_whole++;
			sp = g.lo;
		} else if (mach == EM_X86_64 || mach == EM_AARCH64) {
			/* gobuf.lr: 0 but where a goroutine stopped before
			 * its frame was allocated (arm64) */
			uint64_t lr0 = g.lr && syscallsp == 0 ?
				gh_mem_word(b->m, gb + l->g_sched + l->gobuf_lr, 8) :
				0;

			nf = unwind(b, g.lr, pc, sp, lr0, g.hi, fr,
				    GH_RET_MAX_FRAMES, &whole);
		}
		b->r->stack_bytes += g.hi - sp;
		for (f = 0; f < nf && rc == 0; f++) {
			const char *n = fr[f].name;

			if (f == 0 && interrupted) {
				b->r->frames_conservative++;
				rc = scan_all(&g, 0, fr[0].sp, fr[0].fp);
				continue;
			}
			if (cons || strcmp(n, "runtime.asyncPreempt") == 0 ||
			    strcmp(n, "runtime.debugCallV2") == 0) {
				cons = !cons;   /* this frame and the next */
				b->r->frames_conservative++;
				rc = scan_all(&g, (uint32_t)f, fr[f].sp,
					      fr[f].fp);
				continue;
			}
			rc = scan_frame(&g, &fr[f], (uint32_t)f, rodata, bits,
					cap);
			if (rc < 0) {
				b->r->frames_conservative++;
				rc = scan_all(&g, (uint32_t)f, fr[f].sp,
					      fr[f].fp);
			} else
				b->r->frames_precise++;
		}
		/* what was not unwound: every word */
		rest = nf > 0 ? fr[nf - 1].fp : sp;
		if (rc == 0 && !whole && rest < g.hi) {
			b->r->stacks_conservative++;
			b->r->bytes_conservative += g.hi - rest;
			rc = scan_all(&g, (uint32_t)nf, rest, g.hi);
		}
		if (rc == 0)
			rc = extra_ptrs(&g, gb, (uint32_t)nf);
		if (rc == 0)
			rc = scan_objects(&g, bits, cap);
		if (rc == 0 && b->r->leak)
			rc = leak_note(b, gb, gp, goid, status, fr, nf);
		if (rc == 0)
			rc = emit(&g, fr, nf, goid, gp, running);
	}
	if (rc == 0 && b->r->leak)
		rc = leak_sema(b);
	free(bits);
	free(g.sptr);
	free(g.so);
	free(g.fe);
	return rc;
}

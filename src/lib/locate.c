/*
 * locate.c - find the runtime's profiling globals in stripped Go binaries,
 * infer their Go version, and guard a runtime layout with live data.
 *
 * A binary built with -ldflags="-s -w" has no .symtab and no DWARF, but
 * keeps the pclntab, so runtime functions can still be found by name
 * (gh_sym_func_entry).  The runtime's own code loads the globals we need,
 * with absolute addresses the decoder recovers: RIP-relative operands on
 * amd64, ADRP-based pairs on arm64.  For each global one or two "anchor"
 * functions are chosen whose use of it is distinctive (the table under
 * "rules"), and every candidate must pass checks that do not depend on
 * the anchor: the section it lies in, its alignment, its value in the
 * file, and agreement between independent anchors.  Anything unconfirmed
 * is refused; a wrong address would give a plausible but wrong profile.
 *
 * The decoder is Capstone (doc/decoder.md says why not a hand-written
 * one).  It runs on the file's bytes only; the target is never touched
 * here except by the layout guard, which reads through gh_mem.
 *
 * Worked example (go1.24.4 amd64, tests/go/stripprog):
 *
 *   runtime.mProf_FlushLocked+0x20:  mov rcx, [rip+0x1bec71]  -> 0x5ef678
 *     the only .bss reference in the function: mbuckets;
 *   runtime.stkbucket: lea mbuckets; lea 0x5ef688; lea 0x5ef680
 *     (source order: if memProfile / else if mutexProfile / else), so
 *     xbuckets = 0x5ef688 and bbuckets = 0x5ef680;
 *   runtime.mProf_PostSweep, mProf_Free, mProf_Flush: the first 4-byte
 *     load from .noptrbss is mProfCycle in all three;
 *   runtime.parsegodebug stores, runtime.profilealloc loads, one common
 *     word in .noptrdata holding 0x80000: MemProfileRate.
 *
 * Rejected alternatives: scanning .bss for pointer patterns (nothing in
 * the file distinguishes mbuckets from its neighbours); moduledata-based
 * guesses of fixed offsets inside .bss (they move with every program);
 * reading DWARF (stripped).
 */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>

#include "locate.h"

/* ====================================================================== */
/* The decoder                                                            */
/* ====================================================================== */

void gh_refvec_free(gh_refvec *rv)
{
	if (rv == NULL)
		return;
	free(rv->v);
	rv->v = NULL;
	rv->n = rv->cap = 0;
}

static int ref_add(gh_refvec *rv, uint64_t pc, uint64_t target,
		   unsigned size, unsigned kind)
{
	if (rv->n == rv->cap) {
		size_t nc = rv->cap ? rv->cap * 2 : 64;
		gh_ref *v;

		if (rv->n >= GH_LOCATE_MAX_REFS)
			return GOHEAP_ELIMIT;
		v = gh_reallocarray(rv->v, nc, sizeof(*v));
		if (v == NULL)
			return GOHEAP_ENOMEM;
		rv->v = v;
		rv->cap = nc;
	}
	rv->v[rv->n].pc = pc;
	rv->v[rv->n].target = target;
	rv->v[rv->n].size = size;
	rv->v[rv->n].kind = kind;
	rv->n++;
	return 0;
}

/*
 * amd64: every memory operand based on RIP is an absolute reference,
 * target = next instruction + disp.  lea only materialises the address;
 * Capstone's operand access flags tell loads from stores (mov [rip+X], r
 * writes, cmp [rip+X], 0 reads, add [rip+X], r does both).
 */
static int decode_x86(const cs_insn *in, gh_refvec *out)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;
	int rc;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		uint64_t target;
		unsigned kind = 0;

		if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP ||
		    op->mem.index != X86_REG_INVALID)
			continue;
		target = in->address + in->size + (uint64_t)op->mem.disp;
		if (in->id == X86_INS_LEA) {
			kind = GH_REF_ADDR;
		} else {
			if (op->access & CS_AC_READ)
				kind |= GH_REF_LOAD;
			if (op->access & CS_AC_WRITE)
				kind |= GH_REF_STORE;
			if (kind == 0)
				kind = GH_REF_LOAD;
		}
		rc = ref_add(out, in->address, target,
			     kind == GH_REF_ADDR ? 0 : op->size, kind);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* arm64 general registers x0..x30 (and their w views) as 0..30, else -1. */
static int a64_reg(unsigned r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	if (r == ARM64_REG_X29)
		return 29;
	if (r == ARM64_REG_X30)
		return 30;
	return -1;
}

/* Register file of known addresses: set by ADRP/ADR/ADD, lost on write. */
typedef struct a64_state {
	uint64_t val[31];
	uint32_t known;    /* bit n: val[n] holds an address */
} a64_state;

static void a64_forget(a64_state *st, unsigned r)
{
	int n = a64_reg(r);

	if (n >= 0)
		st->known &= ~(1u << n);
}

static int a64_get(const a64_state *st, unsigned r, uint64_t *v)
{
	int n = a64_reg(r);

	if (n < 0 || !(st->known & (1u << n)))
		return 0;
	*v = st->val[n];
	return 1;
}

static void a64_set(a64_state *st, unsigned r, uint64_t v)
{
	int n = a64_reg(r);

	if (n >= 0) {
		st->val[n] = v;
		st->known |= 1u << n;
	}
}

/* Access size of a load/store from its mnemonic and first register. */
static unsigned a64_access_size(const cs_insn *in, const cs_arm64 *a)
{
	const char *m = in->mnemonic;
	size_t n = strlen(m);
	unsigned r;

	if (strcmp(m, "ldrsw") == 0 || strcmp(m, "ldursw") == 0)
		return 4;
	if (n > 0 && m[n - 1] == 'b')
		return 1;
	if (n > 0 && m[n - 1] == 'h')
		return 2;
	if (a->op_count == 0 || a->operands[0].type != ARM64_OP_REG)
		return 0;
	r = a->operands[0].reg;
	if ((r >= ARM64_REG_X0 && r <= ARM64_REG_X28) ||
	    r == ARM64_REG_X29 || r == ARM64_REG_X30 || r == ARM64_REG_XZR)
		return 8;
	if ((r >= ARM64_REG_W0 && r <= ARM64_REG_W30) || r == ARM64_REG_WZR)
		return 4;
	return 0;
}

/*
 * arm64: a global is reached with ADRP xN, page (4 KiB page of the target)
 * followed by ADD xN, xN, #lo12 (the address) or LDR/STR/LDAR... [xN, #lo12]
 * (the access), not necessarily adjacent.  Track, per register, the value
 * an ADRP/ADR/ADD gave it; forget it when the register is written any
 * other way, and forget everything at calls and unconditional branches
 * (Go's ABI clobbers every register across a call; after a branch the
 * next instruction starts another path).
 */
static int decode_a64(const cs_insn *in, a64_state *st, gh_refvec *out)
{
	const cs_arm64 *a = &in->detail->arm64;
	const cs_arm64_op *op = a->operands;
	uint64_t base;
	uint8_t i;
	int rc;

	switch (in->id) {
	case ARM64_INS_ADRP:
	case ARM64_INS_ADR:
		if (a->op_count == 2 && op[0].type == ARM64_OP_REG &&
		    op[1].type == ARM64_OP_IMM) {
			a64_set(st, op[0].reg, (uint64_t)op[1].imm);
			if (in->id == ARM64_INS_ADR)
				return ref_add(out, in->address,
					       (uint64_t)op[1].imm, 0,
					       GH_REF_ADDR);
			return 0;
		}
		break;
	case ARM64_INS_ADD:
		if (a->op_count == 3 && op[0].type == ARM64_OP_REG &&
		    op[1].type == ARM64_OP_REG && op[2].type == ARM64_OP_IMM &&
		    a64_get(st, op[1].reg, &base)) {
			uint64_t imm = (uint64_t)op[2].imm;

			if (op[2].shift.type == ARM64_SFT_LSL &&
			    op[2].shift.value < 64)
				imm <<= op[2].shift.value;
			a64_set(st, op[0].reg, base + imm);
			return ref_add(out, in->address, base + imm, 0,
				       GH_REF_ADDR);
		}
		break;
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
	case ARM64_INS_BR:
	case ARM64_INS_RET:
		st->known = 0;
		return 0;
	case ARM64_INS_B:
		if (a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL)
			st->known = 0;
		return 0;
	default:
		break;
	}

	for (i = 0; i < a->op_count; i++) {
		unsigned kind = 0;

		if (op[i].type != ARM64_OP_MEM)
			continue;
		if (op[i].mem.index == ARM64_REG_INVALID &&
		    a64_get(st, op[i].mem.base, &base)) {
			if (strncmp(in->mnemonic, "ld", 2) == 0)
				kind = GH_REF_LOAD;
			else if (strncmp(in->mnemonic, "st", 2) == 0)
				kind = GH_REF_STORE;
			if (kind != 0) {
				rc = ref_add(out, in->address,
					     base + (uint64_t)(int64_t)
						     op[i].mem.disp,
					     a64_access_size(in, a), kind);
				if (rc != 0)
					return rc;
			}
		}
		if (a->writeback)
			a64_forget(st, op[i].mem.base);
	}
	/* Whatever an instruction writes no longer holds a known address.
	 * Operand 0 is treated as written even when Capstone has no access
	 * flags for it: forgetting too much only loses a reference. */
	for (i = 0; i < a->op_count; i++) {
		if (op[i].type != ARM64_OP_REG)
			continue;
		if (i == 0 || (op[i].access & CS_AC_WRITE))
			if (strncmp(in->mnemonic, "st", 2) != 0 || i > 0)
				a64_forget(st, op[i].reg);
	}
	/* Load pairs write operand 1 too. */
	if (strncmp(in->mnemonic, "ldp", 3) == 0 && a->op_count > 1 &&
	    op[1].type == ARM64_OP_REG)
		a64_forget(st, op[1].reg);
	return 0;
}

/*
 * Capstone is loaded when a stripped binary first needs decoding, not
 * when go-heap starts: linked in, its ~78 000 relocations cost every run
 * about a millisecond of start-up (a tenth of a 10 000-bucket heap
 * profile), and only the stripped-binary locator uses it.  The handle
 * belongs to its caller (one locate, or one gh_decode_refs call): no
 * state outside it.  The soname is the API major the headers describe
 * (libcapstone.so.4 for 4.x), and the library's own cs_version must
 * agree: the structures decoded below are that API's.
 */
#define GH_CS_STR2(x) #x
#define GH_CS_STR(x) GH_CS_STR2(x)
#define GH_CAPSTONE_SONAME "libcapstone.so." GH_CS_STR(CS_API_MAJOR)

typedef struct cs_lib {
	void *dl;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *,
			    cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	unsigned (*version)(int *, int *);
} cs_lib;

static void cs_lib_close(cs_lib *c)
{
	if (c->dl != NULL)
		dlclose(c->dl);
	memset(c, 0, sizeof(*c));
}

/* Resolve name into *fn (ISO C has no void * -> function pointer cast). */
static int cs_sym(cs_lib *c, const char *name, void *fn, size_t fnsize)
{
	void *p = dlsym(c->dl, name);

	if (p == NULL || fnsize != sizeof(p))
		return -1;
	memcpy(fn, &p, sizeof(p));
	return 0;
}

static int cs_lib_load(cs_lib *c, gh_err *err)
{
	const char *why;
	int major = 0, minor = 0;

	if (c->dl != NULL)
		return 0;
	c->dl = dlopen(GH_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (c->dl == NULL) {
		why = dlerror();
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "decoding machine "
			       "code needs Capstone %d: %s", CS_API_MAJOR,
			       why != NULL ? why : GH_CAPSTONE_SONAME
			       " not found");
	}
	if (cs_sym(c, "cs_open", &c->open, sizeof(c->open)) ||
	    cs_sym(c, "cs_option", &c->option, sizeof(c->option)) ||
	    cs_sym(c, "cs_malloc", &c->malloc, sizeof(c->malloc)) ||
	    cs_sym(c, "cs_disasm_iter", &c->disasm_iter,
		   sizeof(c->disasm_iter)) ||
	    cs_sym(c, "cs_free", &c->free, sizeof(c->free)) ||
	    cs_sym(c, "cs_close", &c->close, sizeof(c->close)) ||
	    cs_sym(c, "cs_version", &c->version, sizeof(c->version))) {
		cs_lib_close(c);
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "%s lacks a function "
			       "go-heap calls", GH_CAPSTONE_SONAME);
	}
	c->version(&major, &minor);
	if (major != CS_API_MAJOR) {
		cs_lib_close(c);
		return gh_errf(err, GOHEAP_EUNSUPPORTED, "%s is Capstone "
			       "%d.%d, go-heap was built for %d.x",
			       GH_CAPSTONE_SONAME, major, minor, CS_API_MAJOR);
	}
	return 0;
}

static int decode_refs(cs_lib *cs, unsigned machine,
		       const unsigned char *code, size_t len, uint64_t addr,
		       gh_refvec *out, gh_err *err)
{
	csh h = 0;
	cs_insn *in = NULL;
	a64_state st;
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	cs_arch arch;
	int rc = 0, opened = 0;

	if (machine == EM_X86_64) {
		arch = CS_ARCH_X86;
	} else if (machine == EM_AARCH64) {
		arch = CS_ARCH_ARM64;
	} else {
		return gh_errf(err, GOHEAP_EUNSUPPORTED,
			       "decoding machine code: e_machine %u is not "
			       "supported (amd64 and arm64 are)", machine);
	}
	rc = cs_lib_load(cs, err);
	if (rc != 0)
		return rc;
	if (cs->open(arch, arch == CS_ARCH_X86 ? CS_MODE_64 : CS_MODE_ARM,
		    &h) != CS_ERR_OK) {
		rc = gh_errf(err, GOHEAP_EUNSUPPORTED,
			     "Capstone cannot decode e_machine %u", machine);
		goto out;
	}
	opened = 1;
	cs->option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs->malloc(h);
	if (in == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		goto out;
	}
	memset(&st, 0, sizeof(st));
	while (n > 0) {
		if (!cs->disasm_iter(h, &p, &n, &a, in)) {
			/* Not an instruction: step over it and resync
			 * (1 byte on amd64, one word on arm64). */
			size_t step = arch == CS_ARCH_X86 ? 1 : 4;

			if (step > n)
				step = n;
			p += step;
			n -= step;
			a += step;
			st.known = 0;
			continue;
		}
		if (arch == CS_ARCH_X86)
			rc = decode_x86(in, out);
		else
			rc = decode_a64(in, &st, out);
		if (rc == GOHEAP_ELIMIT) {
			rc = gh_errf(err, rc, "more than %u data references "
				     "in one function", GH_LOCATE_MAX_REFS);
			goto out;
		}
		if (rc != 0) {
			rc = gh_errf(err, rc, "out of memory");
			goto out;
		}
	}
out:
	if (in != NULL)
		cs->free(in, 1);
	if (opened)
		cs->close(&h);
	return rc;
}

int gh_decode_refs(unsigned machine, const unsigned char *code, size_t len,
		   uint64_t addr, gh_refvec *out, gh_err *err)
{
	cs_lib cs;
	int rc;

	memset(&cs, 0, sizeof(cs));
	rc = decode_refs(&cs, machine, code, len, addr, out, err);
	cs_lib_close(&cs);
	return rc;
}

/* ====================================================================== */
/* Anchors and rules                                                      */
/* ====================================================================== */

/* Where a data address lies, from the section headers. */
enum sec_class {
	SEC_OTHER, SEC_BSS, SEC_NOPTRBSS, SEC_DATA, SEC_NOPTRDATA
};

static const char *const sec_names[] = {
	"another section", ".bss", ".noptrbss", ".data", ".noptrdata"
};

static int sec_class(const gh_exe *e, uint64_t addr, unsigned size)
{
	const gh_section *s = gh_exe_section_at(e, addr);

	if (s == NULL || s->name == NULL || size > s->size ||
	    addr - s->addr > s->size - size)
		return SEC_OTHER;
	if (strcmp(s->name, ".bss") == 0)
		return SEC_BSS;
	if (strcmp(s->name, ".noptrbss") == 0)
		return SEC_NOPTRBSS;
	if (strcmp(s->name, ".data") == 0)
		return SEC_DATA;
	if (strcmp(s->name, ".noptrdata") == 0)
		return SEC_NOPTRDATA;
	return SEC_OTHER;
}

typedef struct loc {
	const gh_exe *exe;
	const gh_sym *sym;
	uint64_t bias;
	unsigned ps;
	gh_err *err;
	cs_lib *cs;           /* loaded on the first decode */
} loc;

/*
 * Decode the function `name` into `out` (link-time addresses).  Returns 0,
 * 1 when the pclntab has no such function (the linker drops unreachable
 * ones), or an error code.  *entry gets its link-time entry.
 */
static int func_refs(const loc *L, const char *name, gh_refvec *out,
		     uint64_t *entry)
{
	uint64_t lo, hi;
	const unsigned char *code;

	out->n = 0;
	if (gh_sym_func_entry(L->sym, name, &lo, &hi) != 0)
		return 1;
	if (hi <= lo || hi - lo > GH_LOCATE_MAX_FUNC || lo < L->bias)
		return gh_errf(L->err, GOHEAP_ECORRUPT,
			       "%s: implausible function bounds 0x%llx-0x%llx "
			       "in the pclntab", name, (unsigned long long)lo,
			       (unsigned long long)hi);
	lo -= L->bias;
	hi -= L->bias;
	code = gh_exe_ptr(L->exe, lo, (size_t)(hi - lo));
	if (code == NULL)
		return gh_errf(L->err, GOHEAP_ECORRUPT,
			       "%s: code at 0x%llx is not in the file", name,
			       (unsigned long long)lo);
	*entry = lo;
	return decode_refs(L->cs, gh_exe_machine(L->exe), code,
			   (size_t)(hi - lo), lo, out, L->err);
}

/* The first reference matching kind/size/section, or NULL. */
static const gh_ref *first_ref(const loc *L, const gh_refvec *rv,
			       unsigned kind, unsigned size, int sec)
{
	size_t i;

	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & kind) || (size != 0 && r->size != size))
			continue;
		if (sec_class(L->exe, r->target, size ? size : 1) == sec)
			return r;
	}
	return NULL;
}

static int has_ref(const gh_refvec *rv, uint64_t target, unsigned kind,
		   unsigned size)
{
	size_t i;

	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == target && (rv->v[i].kind & kind) &&
		    (size == 0 || rv->v[i].size == size))
			return 1;
	return 0;
}

/* Distinct targets in section `sec`, in order of first appearance. */
static size_t distinct_targets(const loc *L, const gh_refvec *rv, int sec,
			       uint64_t *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < rv->n; i++) {
		uint64_t t = rv->v[i].target;

		if (sec_class(L->exe, t, 1) != sec)
			continue;
		for (j = 0; j < n; j++)
			if (out[j] == t)
				break;
		if (j < n)
			continue;
		if (n == max)
			return max + 1;
		out[n++] = t;
	}
	return n;
}

typedef struct found {
	uint64_t m, b, x, cycle, rate, ticks, mrate, allgs, fing, tblabels,
		 mheap;
	unsigned fing_size;
	char how[512];
} located;

static void how_add(located *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void how_add(located *f, const char *fmt, ...)
{
	size_t n = strlen(f->how);
	va_list ap;

	if (n + 3 >= sizeof(f->how))
		return;
	if (n > 0) {
		f->how[n++] = ';';
		f->how[n++] = ' ';
		f->how[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(f->how + n, sizeof(f->how) - n, fmt, ap);
	va_end(ap);
}

/* Short name for messages: "runtime.stkbucket" -> "stkbucket". */
static const char *short_name(const char *n)
{
	return strncmp(n, "runtime.", 8) == 0 ? n + 8 : n;
}

/*
 * mbuckets: runtime.mProf_FlushLocked walks the list and touches nothing
 * else in .bss (Go 1.19-1.24 src/runtime/mprof.go; the same shape in 1.26
 * and 1.27 binaries), so its one .bss target, loaded as a pointer, is
 * mbuckets.  Confirmed by the profile reader (memProfileInternal 1.23+,
 * MemProfile before) loading it, or by runtime.stkbucket materialising it.
 */
static int find_mbuckets(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const readers[] = {
		"runtime.memProfileInternal", "runtime.MemProfile"
	};
	static const char anchor[] = "runtime.mProf_FlushLocked";
	uint64_t t[4], entry = 0, aentry = 0, pc = 0;
	size_t n, i;
	const char *conf = NULL;
	int rc;

	rc = func_refs(L, anchor, rv, &aentry);
	if (rc == 1)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: "
			       "%s is not in the pclntab", anchor);
	if (rc != 0)
		return rc;
	n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
	if (n != 1)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: %s "
			       "refers to %s%zu .bss addresses, expected "
			       "exactly one", anchor, n > GH_ARRAY_LEN(t) ?
			       "more than " : "", n > GH_ARRAY_LEN(t) ?
			       GH_ARRAY_LEN(t) : n);
	if (!has_ref(rv, t[0], GH_REF_LOAD, L->ps) || t[0] % L->ps != 0)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: %s "
			       "does not load a pointer from 0x%llx", anchor,
			       (unsigned long long)t[0]);
	for (i = 0; i < rv->n; i++)
		if (rv->v[i].target == t[0]) {
			pc = rv->v[i].pc;
			break;
		}
	for (i = 0; i < GH_ARRAY_LEN(readers) && conf == NULL; i++) {
		rc = func_refs(L, readers[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		if (!has_ref(rv, t[0], GH_REF_LOAD, L->ps))
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mbuckets: %s and %s disagree "
				       "(0x%llx is not loaded by the latter)",
				       anchor, readers[i],
				       (unsigned long long)t[0]);
		conf = readers[i];
	}
	if (conf == NULL) {
		rc = func_refs(L, "runtime.stkbucket", rv, &entry);
		if (rc < 0)
			return rc;
		if (rc == 0 && has_ref(rv, t[0], GH_REF_ADDR | GH_REF_LOAD, 0))
			conf = "runtime.stkbucket";
	}
	if (conf == NULL)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mbuckets: "
			       "candidate 0x%llx from %s could not be "
			       "confirmed (no memProfileInternal, MemProfile "
			       "or stkbucket reference)",
			       (unsigned long long)t[0], anchor);
	f->m = t[0];
	how_add(f, "mbuckets via %s+0x%llx (confirmed by %s)",
		anchor, (unsigned long long)(pc - aentry), short_name(conf));
	return 0;
}

/*
 * bbuckets / xbuckets.  Two independent sources:
 *   - the readers (blockProfileInternal / mutexProfileInternal 1.23+,
 *     BlockProfile / MutexProfile before): their first pointer load from
 *     .bss is the list head.  The linker drops them from programs that
 *     never ask for those profiles.
 *   - runtime.stkbucket: "if typ == memProfile {mbuckets} else if typ ==
 *     mutexProfile {xbuckets} else {bbuckets}" (Go 1.19-1.24 mprof.go)
 *     materialises the three heads in that order, so the two distinct .bss
 *     targets after mbuckets are xbuckets, then bbuckets.
 * Where both exist they must agree.  Not needed for heap profiles, so an
 * unconfirmed pair is left 0 (with a note) instead of failing.
 */
static int find_bx(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const breaders[] = {
		"runtime.blockProfileInternal", "runtime.BlockProfile"
	};
	static const char *const xreaders[] = {
		"runtime.mutexProfileInternal", "runtime.MutexProfile"
	};
	uint64_t t[16], entry, pb = 0, px = 0, sb = 0, sx = 0;
	const gh_ref *r;
	size_t n, i, k;
	int rc, readers;

	for (i = 0; i < GH_ARRAY_LEN(breaders) && pb == 0; i++) {
		rc = func_refs(L, breaders[i], rv, &entry);
		if (rc < 0)
			return rc;
		r = rc == 0 ? first_ref(L, rv, GH_REF_LOAD, L->ps, SEC_BSS) :
			      NULL;
		if (r != NULL)
			pb = r->target;
	}
	for (i = 0; i < GH_ARRAY_LEN(xreaders) && px == 0; i++) {
		rc = func_refs(L, xreaders[i], rv, &entry);
		if (rc < 0)
			return rc;
		r = rc == 0 ? first_ref(L, rv, GH_REF_LOAD, L->ps, SEC_BSS) :
			      NULL;
		if (r != NULL)
			px = r->target;
	}
	rc = func_refs(L, "runtime.stkbucket", rv, &entry);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
		for (k = 0; k < n && k < GH_ARRAY_LEN(t); k++)
			if (t[k] == f->m)
				break;
		if (k < n && n <= GH_ARRAY_LEN(t) && n - k == 3) {
			sx = t[k + 1];
			sb = t[k + 2];
		}
	}
	if ((pb != 0 && sb != 0 && pb != sb) ||
	    (px != 0 && sx != 0 && px != sx)) {
		how_add(f, "bbuckets/xbuckets not confirmed (the profile "
			"readers and stkbucket disagree)");
		return 0;
	}
	readers = pb != 0 || px != 0;
	if (pb == 0)
		pb = sb;
	if (px == 0)
		px = sx;
	if (pb == 0 || px == 0 || pb == px || pb == f->m || px == f->m ||
	    pb % L->ps != 0 || px % L->ps != 0) {
		how_add(f, "bbuckets/xbuckets not confirmed");
		return 0;
	}
	f->b = pb;
	f->x = px;
	how_add(f, "bbuckets/xbuckets via %s", sb != 0 && readers ?
		"stkbucket and the profile readers" : sb != 0 ?
		"stkbucket" : "the profile readers");
	return 0;
}

/*
 * mProfCycle (a uint32 in .noptrbss, Go 1.19+ mProfCycleHolder): the first
 * thing mProf_PostSweep, mProf_Free and mProf_Flush do is
 * mProfCycle.read(), a 4-byte load.  At least two of them must be present
 * and all present ones must agree.
 */
static int find_cycle(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const anchors[] = {
		"runtime.mProf_PostSweep", "runtime.mProf_Free",
		"runtime.mProf_Flush"
	};
	uint64_t cand = 0, entry;
	const gh_ref *r;
	size_t i, agree = 0;
	int rc;

	for (i = 0; i < GH_ARRAY_LEN(anchors); i++) {
		rc = func_refs(L, anchors[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		r = first_ref(L, rv, GH_REF_LOAD, 4, SEC_NOPTRBSS);
		if (r == NULL)
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mProfCycle: %s loads no "
				       "32-bit word from .noptrbss", anchors[i]);
		if (cand != 0 && r->target != cand)
			return gh_errf(L->err, GOHEAP_ENOSYM,
				       "runtime.mProfCycle: anchors disagree "
				       "(0x%llx, and 0x%llx in %s)",
				       (unsigned long long)cand,
				       (unsigned long long)r->target,
				       anchors[i]);
		cand = r->target;
		agree++;
	}
	if (agree < 2 || cand % 4 != 0)
		return gh_errf(L->err, GOHEAP_ENOSYM, "runtime.mProfCycle: "
			       "only %zu of mProf_PostSweep, mProf_Free, "
			       "mProf_Flush found (two must agree)", agree);
	f->cycle = cand;
	how_add(f, "mProfCycle via %zu agreeing anchors", agree);
	return 0;
}

/*
 * runtime.ticks.val, the cycles/second the runtime computed (block and mutex
 * profiles' "cycles/second").  runtime.ticksPerSecond (1.22+;
 * tickspersecond before) is the one function that computes it: it takes
 * &ticks.lock (the struct's first word) and loads ticks.val (and, from
 * 1.22, ticks.startTicks and ticks.startTime), all in .noptrbss.  val is
 * the highest target loaded as 8 bytes, and the lock must sit exactly
 * rt->ticks_val_off below it; with rt->ticks_start, startTicks and
 * startTime must be loaded at val-16 and val-8.  Optional: when it is not
 * found (the function inlined away, say), the session estimates the rate
 * and says so.  Returns 0, 1 (not found) or an error.
 */
static int find_ticks(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		      located *f)
{
	static const char *const fns[] = {
		"runtime.ticksPerSecond", "runtime.tickspersecond"
	};
	uint64_t t[8], val = 0, lo = UINT64_MAX, entry;
	size_t n, i, k;
	int rc = 1;

	for (k = 0; k < GH_ARRAY_LEN(fns) && rc == 1; k++)
		rc = func_refs(L, fns[k], rv, &entry);
	if (rc != 0)
		return rc;
	k--;
	n = distinct_targets(L, rv, SEC_NOPTRBSS, t, GH_ARRAY_LEN(t));
	if (n == 0 || n > GH_ARRAY_LEN(t))
		return 1;
	for (i = 0; i < n; i++) {
		if (t[i] > val && has_ref(rv, t[i], GH_REF_LOAD, 8))
			val = t[i];
		if (t[i] < lo)
			lo = t[i];
	}
	if (val == 0 || val % 8 != 0 || val < rt->ticks_val_off ||
	    lo != val - rt->ticks_val_off)
		return 1;
	if (rt->ticks_start && (!has_ref(rv, val - 16, GH_REF_LOAD, 8) ||
				!has_ref(rv, val - 8, GH_REF_LOAD, 8)))
		return 1;
	f->ticks = val;
	how_add(f, "ticks.val via %s", short_name(fns[k]));
	return 0;
}

/* The 8-byte .noptrbss words `name` loads, into set (at most max). */
static int loads8(const loc *L, gh_refvec *rv, const char *name,
		  uint64_t *set, size_t *n, size_t max)
{
	uint64_t t[16], entry;
	size_t m, i;
	int rc;

	*n = 0;
	rc = func_refs(L, name, rv, &entry);
	if (rc != 0)
		return rc;
	m = distinct_targets(L, rv, SEC_NOPTRBSS, t, GH_ARRAY_LEN(t));
	if (m > GH_ARRAY_LEN(t))
		return 1;
	for (i = 0; i < m && *n < max; i++)
		if (t[i] % 8 == 0 && has_ref(rv, t[i], GH_REF_LOAD, 8))
			set[(*n)++] = t[i];
	return 0;
}

/*
 * runtime.mutexprofilerate (uint64, .noptrbss): loaded by
 * runtime.semacquire1 ("mutexprofilerate > 0", next to blockprofilerate)
 * and by the mutex event recorder, runtime.mutexevent (1.22+) or, where
 * that is inlined, sync.event (1.19-1.21).  The one 8-byte .noptrbss word
 * both load is it.  Optional: 1 when not found.
 */
static int find_mutexrate(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const recorders[] = {
		"runtime.mutexevent", "sync.event"
	};
	uint64_t a[16], b[16], cand = 0;
	size_t na, nb, i, j, k, ncand = 0;
	int rc;

	rc = loads8(L, rv, "runtime.semacquire1", a, &na, GH_ARRAY_LEN(a));
	if (rc != 0)
		return rc;
	rc = 1;
	for (k = 0; k < GH_ARRAY_LEN(recorders) && rc == 1; k++)
		rc = loads8(L, rv, recorders[k], b, &nb, GH_ARRAY_LEN(b));
	if (rc != 0)
		return rc;
	k--;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j] && a[i] != cand) {
				cand = a[i];
				ncand++;
			}
	if (ncand != 1)
		return 1;
	f->mrate = cand;
	how_add(f, "mutexprofilerate via semacquire1 and %s",
		short_name(recorders[k]));
	return 0;
}

/*
 * runtime.MemProfileRate's default, defaultMemProfileRate(512 * 1024)
 * (Go 1.21-1.24 src/runtime/mprof.go, var MemProfileRate): the file value
 * of the variable in .noptrdata for Go 1.21+.
 */
#define GH_DEFAULT_MEMPROFILERATE ((uint64_t)GOHEAP_DEFAULT_MEM_PROFILE_RATE)

/* Append the distinct ps-sized targets of `kind` in `funcs` to set. */
static int collect(const loc *L, gh_refvec *rv, const char *const *funcs,
		   size_t nfuncs, unsigned kind, uint64_t *set, size_t *n,
		   size_t max, const char **used)
{
	uint64_t entry;
	size_t i, j, k;
	int rc;

	for (i = 0; i < nfuncs; i++) {
		rc = func_refs(L, funcs[i], rv, &entry);
		if (rc == 1)
			continue;
		if (rc != 0)
			return rc;
		if (*used == NULL)
			*used = funcs[i];
		for (j = 0; j < rv->n; j++) {
			const gh_ref *r = &rv->v[j];
			int sec;

			if (!(r->kind & kind) || r->size != L->ps)
				continue;
			sec = sec_class(L->exe, r->target, L->ps);
			if (sec != SEC_NOPTRDATA && sec != SEC_NOPTRBSS)
				continue;
			for (k = 0; k < *n; k++)
				if (set[k] == r->target)
					break;
			if (k == *n && *n < max)
				set[(*n)++] = r->target;
		}
	}
	return 0;
}

/*
 * MemProfileRate (a Go int): written by the GODEBUG parser
 * (parsedebugvars 1.19, parsegodebug 1.21+: memprofilerate=N), by
 * runtime.init (1.19: the dynamic initialiser) and schedinit (1.21+: 0
 * when disableMemoryProfiling); read by profilealloc / mallocgc /
 * nextSample.  The word both written and read, in .noptrdata with the
 * default in the file (1.21+) or in .noptrbss (1.19, initialised at run
 * time), is the one; it must be unique.
 */
static int find_rate(const loc *L, gh_refvec *rv, gh_gover ver, located *f)
{
	static const char *const writers[] = {
		"runtime.parsegodebug", "runtime.parsedebugvars",
		"runtime.schedinit", "runtime.init"
	};
	static const char *const readers[] = {
		"runtime.profilealloc", "runtime.mallocgc",
		"runtime.nextSample", "runtime.(*mcache).nextSample"
	};
	const gh_rtlayout *rt = gh_rtlayout_for(ver);
	uint64_t st[64], ld[64], cand = 0;
	size_t nst = 0, nld = 0, i, j, ncand = 0;
	const char *wused = NULL, *rused = NULL, *why = NULL;
	int rc;

	rc = collect(L, rv, writers, GH_ARRAY_LEN(writers), GH_REF_STORE, st,
		     &nst, GH_ARRAY_LEN(st), &wused);
	if (rc != 0)
		return rc;
	rc = collect(L, rv, readers, GH_ARRAY_LEN(readers), GH_REF_LOAD, ld,
		     &nld, GH_ARRAY_LEN(ld), &rused);
	if (rc != 0)
		return rc;
	for (i = 0; i < nst; i++) {
		const unsigned char *p;
		int sec = sec_class(L->exe, st[i], L->ps);

		for (j = 0; j < nld; j++)
			if (ld[j] == st[i])
				break;
		if (j == nld || st[i] % L->ps != 0)
			continue;
		if (sec == SEC_NOPTRDATA) {
			p = gh_exe_ptr(L->exe, st[i], L->ps);
			if (p == NULL ||
			    gh_load(p, L->ps, gh_exe_big_endian(L->exe)) !=
				    GH_DEFAULT_MEMPROFILERATE) {
				why = "its file value is not 524288";
				continue;
			}
			if (rt != NULL && rt->rate_static == 0) {
				why = "it is in .noptrdata, not .noptrbss as "
				      "in go1.19";
				continue;
			}
		} else if (rt != NULL && rt->rate_static == 1) {
			why = "it is in .noptrbss, not .noptrdata as in "
			      "go1.21+";
			continue;
		}
		cand = st[i];
		ncand++;
	}
	if (ncand != 1)
		return gh_errf(L->err, GOHEAP_ENOSYM,
			       "runtime.MemProfileRate: %zu candidates "
			       "written by %s and read by %s%s%s", ncand,
			       wused != NULL ? short_name(wused) : "(no writer)",
			       rused != NULL ? short_name(rused) : "(no reader)",
			       ncand == 0 && why != NULL ? "; rejected: " : "",
			       ncand == 0 && why != NULL ? why : "");
	f->rate = cand;
	how_add(f, "MemProfileRate in %s via %s and %s",
		sec_names[sec_class(L->exe, cand, L->ps)], short_name(wused),
		short_name(rused));
	return 0;
}

/*
 * runtime.allgs ([]*g in .bss, {ptr, len, cap}): runtime.allgadd appends
 * to it ("allgs = append(allgs, gp)", Go 1.19-1.27 src/runtime/proc.go),
 * storing all three words; allgptr and allglen, the other globals it
 * writes, are single words.  The candidate is the one pointer-aligned .bss
 * address A whose A, A+ps and A+2ps allgadd all stores as words.
 * Confirmed by runtime.forEachG ("for _, gp := range allgs" under
 * allglock), whose only .bss targets are A (loaded) and A+ps, and which
 * takes the same lock (its first .noptrbss address) as allgadd.  Optional
 * (heap profiles do not need it): 1 when not confirmed, with a note.
 */
static int find_allgs(const loc *L, gh_refvec *rv, located *f)
{
	uint64_t t[32], u[4], lock = 0, entry, cand = 0;
	const gh_ref *r;
	size_t n, i, ncand = 0;
	unsigned ps = L->ps;
	int rc;

	rc = func_refs(L, "runtime.allgadd", rv, &entry);
	if (rc != 0)
		goto none;
	r = first_ref(L, rv, GH_REF_ADDR, 0, SEC_NOPTRBSS);
	lock = r != NULL ? r->target : 0;
	n = distinct_targets(L, rv, SEC_BSS, t, GH_ARRAY_LEN(t));
	if (n > GH_ARRAY_LEN(t))
		goto none;
	for (i = 0; i < n; i++)
		if (t[i] % ps == 0 && has_ref(rv, t[i], GH_REF_STORE, ps) &&
		    has_ref(rv, t[i] + ps, GH_REF_STORE, ps) &&
		    has_ref(rv, t[i] + 2 * ps, GH_REF_STORE, ps) &&
		    t[i] != cand) {
			cand = t[i];
			ncand++;
		}
	if (ncand != 1 || lock == 0)
		goto none;
	rc = func_refs(L, "runtime.forEachG", rv, &entry);
	if (rc != 0)
		goto none;
	/* arm64 loads {ptr, len} with one LDP: only A may be seen */
	n = distinct_targets(L, rv, SEC_BSS, u, GH_ARRAY_LEN(u));
	if (n < 1 || n > 2 || (u[0] != cand && u[0] != cand + ps) ||
	    (n == 2 && u[1] != cand && u[1] != cand + ps) ||
	    !has_ref(rv, cand, GH_REF_LOAD, ps) ||
	    !has_ref(rv, lock, GH_REF_ADDR, 0))
		goto none;
	f->allgs = cand;
	how_add(f, "allgs via allgadd (confirmed by forEachG)");
	return 0;
none:
	/* optional: only running out of memory ends the location */
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "allgs not confirmed (%s)", ncand > 1 ?
		"several candidates in allgadd" : "allgadd/forEachG");
	return 1;
}

/*
 * The finalizer goroutine's state, as isSystemGoroutine reads it:
 * runtime.fingStatus (atomic.Uint32, 1.21+) or fingRunning (bool, 1.19),
 * both in .noptrbss.  isSystemGoroutine loads exactly one 4- or 1-byte
 * .noptrbss word; the finalizer loop (runfinq, runFinalizers 1.25+) must
 * refer to it too.  Optional: 1 when not confirmed.
 */
static int find_fing(const loc *L, gh_refvec *rv, located *f)
{
	static const char *const loops[] = {
		"runtime.runFinalizers", "runtime.runfinq"
	};
	uint64_t cand = 0, entry;
	unsigned size = 0;
	size_t i, ncand = 0;
	int rc;

	rc = func_refs(L, "runtime.isSystemGoroutine", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_LOAD) || (r->size != 4 && r->size != 1) ||
		    sec_class(L->exe, r->target, r->size) != SEC_NOPTRBSS ||
		    (r->target == cand && r->size == size))
			continue;
		cand = r->target;
		size = r->size;
		ncand++;
	}
	if (ncand != 1 || cand % size != 0)
		goto none;
	rc = 1;
	for (i = 0; i < GH_ARRAY_LEN(loops) && rc == 1; i++)
		rc = func_refs(L, loops[i], rv, &entry);
	if (rc != 0 || !has_ref(rv, cand, GH_REF_ADDR | GH_REF_STORE, 0))
		goto none;
	f->fing = cand;
	f->fing_size = size;
	how_add(f, "%s via isSystemGoroutine and %s", size == 4 ?
		"fingStatus" : "fingRunning", short_name(loops[i - 1]));
	return 0;
none:
	/* optional: only running out of memory ends the location */
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "fingStatus not confirmed");
	return 1;
}

/*
 * runtime.debug.tracebacklabels (atomic.Int32, 1.26+): goroutineheader
 * loads it once, its only 4-byte load from .bss/.noptrbss (runtime.debug
 * is zero until schedinit; traceback_cache, which the inlined gotraceback
 * loads, is initialised: .noptrdata), and it is the field at the row's
 * debug_tracebacklabels offset of a 4-aligned struct.  Optional: 1 when
 * the release has no such setting or it is not confirmed.
 */
static int find_tblabels(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
			 located *f)
{
	uint64_t cand = 0, entry;
	size_t i, ncand = 0;
	int rc, cls;

	if (rt->tb_labels == 0)
		return 1;
	rc = func_refs(L, "runtime.goroutineheader", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_LOAD) || r->size != 4 ||
		    r->target == cand)
			continue;
		cls = sec_class(L->exe, r->target, 4);
		if (cls != SEC_BSS && cls != SEC_NOPTRBSS)
			continue;
		cand = r->target;
		ncand++;
	}
	if (ncand != 1 || cand % 4 != 0 || cand < rt->debug_tracebacklabels)
		goto none;
	f->tblabels = cand;
	how_add(f, "debug.tracebacklabels via goroutineheader");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "debug.tracebacklabels not confirmed");
	return 1;
}

/*
 * runtime.mheap_ (-p types): runtime.sweepone reads mheap_.sweepgen (a
 * 4-byte load at mheap_ + the row's mh_sweepgen) and passes &mheap_ to
 * nextSpanForSweep (Go 1.19-1.27 mgcsweep.go), so the candidate is the one
 * pointer-aligned .bss address A it materialises with a 4-byte load of
 * A + mh_sweepgen beside it.  Confirmed by runtime.markrootSpans loading
 * that word too ("sg := mheap_.sweepgen", mgcmark.go).  Optional: 1 when
 * the release has no heap row or it is not confirmed.
 */
static int find_mheap(const loc *L, gh_refvec *rv, const gh_rtlayout *rt,
		      located *f)
{
	uint64_t cand = 0, entry;
	size_t i, ncand = 0;
	int rc;

	if (!rt->heap_verified)
		return 1;
	rc = func_refs(L, "runtime.sweepone", rv, &entry);
	if (rc != 0)
		goto none;
	for (i = 0; i < rv->n; i++) {
		const gh_ref *r = &rv->v[i];

		if (!(r->kind & GH_REF_ADDR) || r->target % L->ps != 0 ||
		    r->target == cand ||
		    sec_class(L->exe, r->target, 1) != SEC_BSS ||
		    !has_ref(rv, r->target + rt->mh_sweepgen, GH_REF_LOAD, 4))
			continue;
		cand = r->target;
		ncand++;
	}
	if (ncand != 1)
		goto none;
	rc = func_refs(L, "runtime.markrootSpans", rv, &entry);
	if (rc != 0 || !has_ref(rv, cand + rt->mh_sweepgen, GH_REF_LOAD, 4))
		goto none;
	f->mheap = cand;
	how_add(f, "mheap_ via sweepone (confirmed by markrootSpans)");
	return 0;
none:
	if (rc == GOHEAP_ENOMEM)
		return rc;
	how_add(f, "mheap_ not confirmed");
	return 1;
}

int gh_locate_globals(const gh_exe *exe, const gh_sym *sym, gh_gover ver,
		      uint64_t bias, gh_rtaddrs *out, char *how,
		      size_t howlen, gh_err *err)
{
	gh_refvec rv = { NULL, 0, 0 };
	located f;
	loc L;
	cs_lib cs;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&cs, 0, sizeof(cs));
	L.cs = &cs;
	memset(&f, 0, sizeof(f));
	if (how != NULL && howlen > 0)
		how[0] = '\0';
	L.exe = exe;
	L.sym = sym;
	L.bias = bias;
	L.ps = gh_exe_ptr_size(exe);
	L.err = err;
	if (gh_exe_machine(exe) != EM_X86_64 &&
	    gh_exe_machine(exe) != EM_AARCH64) {
		rc = gh_errf(err, GOHEAP_ENOSYM, "no symbol table, and "
			     "locating the runtime globals from machine code "
			     "is implemented for amd64 and arm64 only "
			     "(e_machine %u)", gh_exe_machine(exe));
		goto out;
	}
	if (gh_exe_section(exe, ".bss") == NULL ||
	    gh_exe_section(exe, ".noptrbss") == NULL) {
		rc = gh_errf(err, GOHEAP_ENOSYM, "no symbol table and no "
			     ".bss/.noptrbss section headers: cannot "
			     "confirm any runtime global");
		goto out;
	}
	rc = find_mbuckets(&L, &rv, &f);
	if (rc == 0)
		rc = find_cycle(&L, &rv, &f);
	if (rc == 0)
		rc = find_rate(&L, &rv, ver, &f);
	if (rc == 0)
		rc = find_bx(&L, &rv, &f);
	if (rc == 0 && gh_rtlayout_for(ver) != NULL) {
		/* Optional: absent or unconfirmed leaves them 0. */
		rc = find_ticks(&L, &rv, gh_rtlayout_for(ver), &f);
		if (rc == 0 || rc == 1)
			rc = find_mutexrate(&L, &rv, &f);
		if (rc == 1)
			rc = 0;
	}
	/* Optional, for goroutine profiles: unconfirmed leaves them 0. */
	if (rc == 0)
		rc = find_allgs(&L, &rv, &f);
	if (rc == 0 || rc == 1)
		rc = find_fing(&L, &rv, &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_tblabels(&L, &rv, gh_rtlayout_for(ver), &f);
	if ((rc == 0 || rc == 1) && gh_rtlayout_for(ver) != NULL)
		rc = find_mheap(&L, &rv, gh_rtlayout_for(ver), &f);
	if (rc == 1)
		rc = 0;
	if (rc != 0) {
		gh_err_prefix(err, "%s has no symbol table; decoding its "
			      "runtime code", gh_exe_path(exe));
		goto out;
	}
	out->mbuckets = f.m + bias;
	out->bbuckets = f.b != 0 ? f.b + bias : 0;
	out->xbuckets = f.x != 0 ? f.x + bias : 0;
	out->mprofcycle = f.cycle + bias;
	out->memprofilerate = f.rate + bias;
	out->ticks_val = f.ticks != 0 ? f.ticks + bias : 0;
	out->mutexprofilerate = f.mrate != 0 ? f.mrate + bias : 0;
	out->allgs = f.allgs != 0 ? f.allgs + bias : 0;
	out->fing = f.fing != 0 ? f.fing + bias : 0;
	out->fing_size = f.fing != 0 ? f.fing_size : 0;
	out->tblabels = f.tblabels != 0 ? f.tblabels + bias : 0;
	out->mheap = f.mheap != 0 ? f.mheap + bias : 0;
	if (how != NULL && howlen > 0)
		snprintf(how, howlen, "%s", f.how);
out:
	gh_refvec_free(&rv);
	cs_lib_close(&cs);
	/* Whatever went wrong (a hostile table, a limit), the outcome for
	 * the caller is the same: these globals could not be confirmed. */
	if (rc != 0 && rc != GOHEAP_ENOMEM && rc != GOHEAP_ENOSYM) {
		rc = GOHEAP_ENOSYM;
		if (err != NULL)
			err->code = rc;
	}
	return rc;
}

/* ====================================================================== */
/* The Go version                                                         */
/* ====================================================================== */

/* pcHeader magics (Go src/runtime/symtab.go, type pcHeader). */
#define GH_LOCATE_MAGIC_118 0xfffffff0u
#define GH_LOCATE_MAGIC_120 0xfffffff1u

/*
 * A release string as runtime.buildVersion holds it: "go1.N", "go1.N.P",
 * "go1.NrcK", "go1.N.P X:exp", "devel go1.N-hash ...": printable, short.
 */
static int version_string_ok(const unsigned char *p, size_t n)
{
	size_t i, off = 0;

	if (n < 5 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return 0;
	if (n > 6 && memcmp(p, "devel ", 6) == 0)
		off = 6;
	return n - off >= 5 && memcmp(p + off, "go1.", 4) == 0 &&
	       isdigit(p[off + 4]);
}

/*
 * runtime.schedinit reads runtime.buildVersion ("if buildVersion == ""
 * {buildVersion = "unknown"}", Go 1.19-1.24 src/runtime/proc.go), a Go
 * string header {ptr, len} in .data; the pointer is relocated in a PIE,
 * hence gh_exe_read_word.  The reference may be to the len word.
 */
static int version_from_schedinit(const gh_exe *exe, const gh_sym *sym,
				  uint64_t bias, char *buf, size_t len,
				  gh_err *err)
{
	gh_refvec rv = { NULL, 0, 0 };
	unsigned ps = gh_exe_ptr_size(exe);
	loc L;
	cs_lib cs;
	uint64_t entry;
	size_t i;
	int rc, k, found = 0;

	memset(&cs, 0, sizeof(cs));
	L.exe = exe;
	L.sym = sym;
	L.bias = bias;
	L.ps = ps;
	L.err = err;
	L.cs = &cs;
	rc = func_refs(&L, "runtime.schedinit", &rv, &entry);
	cs_lib_close(&cs);
	if (rc != 0)
		goto out;
	for (i = 0; i < rv.n && !found; i++) {
		for (k = 0; k < 2 && !found; k++) {
			uint64_t hdr = rv.v[i].target - (uint64_t)k * ps;
			uint64_t sp, sl;
			const unsigned char *p;
			int sec = sec_class(exe, hdr, 2 * ps);

			if (sec != SEC_DATA && sec != SEC_NOPTRDATA)
				continue;
			if (gh_exe_read_word(exe, hdr, &sp) != 0 ||
			    gh_exe_read_word(exe, hdr + ps, &sl) != 0 ||
			    sl >= len)
				continue;
			p = gh_exe_ptr(exe, sp, (size_t)sl);
			if (p == NULL || !version_string_ok(p, (size_t)sl))
				continue;
			memcpy(buf, p, (size_t)sl);
			buf[sl] = '\0';
			found = 1;
		}
	}
	rc = found ? 0 : 1;
out:
	gh_refvec_free(&rv);
	return rc;
}

int gh_scan_go_version(const unsigned char *buf, size_t n, gh_gover *out,
		       char *verstr, size_t len)
{
	char full[32] = "", shrt[32] = "";
	int full_bad = 0, shrt_bad = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; n >= 5 && i <= n - 5; i++) {
		char cand[32];
		size_t j = i + 4, d, c;
		int patch = 0;

		if (memcmp(buf + i, "go1.", 4) != 0 || !isdigit(buf[j]))
			continue;
		for (d = 0; j < n && isdigit(buf[j]) && d < 4; d++)
			j++;
		if (d > 3 || buf[i + 4] == '0')
			continue;
		if (j + 1 < n && buf[j] == '.' && isdigit(buf[j + 1])) {
			j++;
			for (d = 0; j < n && isdigit(buf[j]) && d < 4; d++)
				j++;
			if (d > 3)
				continue;
			patch = 1;
		} else if (j + 2 < n && (memcmp(buf + j, "rc", 2) == 0) &&
			   isdigit(buf[j + 2])) {
			j += 3;
			patch = 1;
		}
		c = j - i;
		memcpy(cand, buf + i, c);
		cand[c] = '\0';
		if (patch) {
			if (full[0] == '\0')
				snprintf(full, sizeof(full), "%s", cand);
			else if (strcmp(full, cand) != 0)
				full_bad = 1;
		} else {
			if (shrt[0] == '\0')
				snprintf(shrt, sizeof(shrt), "%s", cand);
			else if (strcmp(shrt, cand) != 0)
				shrt_bad = 1;
		}
		i = j - 1;
	}
	if (full[0] != '\0' && !full_bad) {
		snprintf(verstr, len, "%s", full);
		return gh_gover_parse(out, full) == 0 ? 0 : GOHEAP_EVERSION;
	}
	if (full[0] == '\0' && shrt[0] != '\0' && !shrt_bad) {
		snprintf(verstr, len, "%s", shrt);
		return gh_gover_parse(out, shrt) == 0 ? 0 : GOHEAP_EVERSION;
	}
	return GOHEAP_EVERSION;
}

/*
 * What the file itself says about its release: the pclntab magic (0xfff0:
 * 1.18/1.19, 0xfff1: 1.20+) and sections added over time (.go.fipsinfo
 * 1.24, .go.module 1.26, .go.type/.go.func 1.27; .typelink gone in 1.27).
 * Fills [*lo, *hi] (minor versions; hi 0 = no upper bound).
 */
static void version_bounds(const gh_exe *exe, const gh_sym *sym, int *lo,
			   int *hi, char *why, size_t len)
{
	uint32_t magic = gh_sym_magic(sym);
	int has_mod = gh_exe_section(exe, ".go.module") != NULL;
	/* (In a PIE the linker names them .data.rel.ro.go.type/.go.func.) */
	int has_t27 = gh_exe_section(exe, ".go.type") != NULL ||
		      gh_exe_section(exe, ".go.func") != NULL ||
		      gh_exe_section(exe, ".data.rel.ro.go.type") != NULL ||
		      gh_exe_section(exe, ".data.rel.ro.go.func") != NULL;
	int has_fips = gh_exe_section(exe, ".go.fipsinfo") != NULL;

	*lo = 0;
	*hi = 0;
	if (magic == GH_LOCATE_MAGIC_118) {
		*lo = 18;
		*hi = 19;
	} else if (magic == GH_LOCATE_MAGIC_120) {
		*lo = 20;
	}
	if (has_fips && *lo < 24)
		*lo = 24;
	if (has_mod && *lo < 26)
		*lo = 26;
	if (has_t27 && *lo < 27)
		*lo = 27;
	/* Absent sections bound from above only when section headers exist
	 * at all (the pclntab has its own). */
	if (gh_exe_section(exe, ".gopclntab") != NULL ||
	    gh_exe_section(exe, ".data.rel.ro.gopclntab") != NULL) {
		if (!has_mod && (*hi == 0 || *hi > 25))
			*hi = 25;
		else if (!has_t27 && (*hi == 0 || *hi > 26))
			*hi = 26;
	}
	snprintf(why, len, "pclntab magic 0x%x%s%s%s", magic,
		 has_fips ? ", .go.fipsinfo" : "",
		 has_mod ? ", .go.module" : ", no .go.module",
		 has_t27 ? ", .go.type/.go.func" : "");
}

int gh_infer_go_version(const gh_exe *exe, const gh_sym *sym, uint64_t bias,
			gh_gover *out, char *verstr, size_t len, gh_err *err)
{
	char vs[160], why[160];
	const char *how = "runtime.buildVersion via runtime.schedinit";
	const gh_section *ro;
	gh_gover v;
	int rc, lo, hi;

	memset(out, 0, sizeof(*out));
	if (len > 0)
		verstr[0] = '\0';
	rc = version_from_schedinit(exe, sym, bias, vs, sizeof(vs), err);
	if (rc == GOHEAP_ENOMEM)
		return rc;
	if (rc != 0 || gh_gover_parse(&v, vs) != 0) {
		how = "a scan of .rodata";
		ro = gh_exe_section(exe, ".rodata");
		if (ro == NULL || ro->data == NULL ||
		    gh_scan_go_version(ro->data, (size_t)ro->size, &v, vs,
				       sizeof(vs)) != 0)
			return gh_errf(err, GOHEAP_EVERSION,
				       "%s: Go version unknown: no "
				       ".go.buildinfo, runtime.buildVersion "
				       "not found through runtime.schedinit, "
				       "and no unambiguous \"go1.N.P\" in "
				       ".rodata", gh_exe_path(exe));
	}
	version_bounds(exe, sym, &lo, &hi, why, sizeof(why));
	if (v.major != 1 || v.minor < lo || (hi != 0 && v.minor > hi)) {
		char upper[16] = "later";

		if (hi != 0)
			snprintf(upper, sizeof(upper), "go1.%d", hi);
		return gh_errf(err, GOHEAP_EVERSION,
			       "%s: version string \"%s\" (from %s) "
			       "contradicts the file (%s: go1.%d to %s)",
			       gh_exe_path(exe), vs, how, why, lo, upper);
	}
	*out = v;
	snprintf(verstr, len, "%s (inferred)", vs);
	return 0;
}

/* ====================================================================== */
/* The layout guard                                                       */
/* ====================================================================== */

typedef struct guard {
	gh_mem *m;
	const gh_rtlayout *lay;
	gh_gover ver;
	gh_err *err;
	size_t buckets, records, informative, consistent4, inconsistent4,
	       looks4, badcounts;
} guard;

static int guard_fail(const guard *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int guard_fail(const guard *g, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return gh_errf(g->err, GOHEAP_EVERSION,
		       "unsupported runtime layout for go%d.%d: %s",
		       g->ver.major, g->ver.minor, why);
}

/*
 * The record after bucket `addr` (nstk PCs after the header): active and
 * future[3] memRecordCycles of lay->cycle_words words each.
 */
static int guard_record(guard *g, uint64_t addr, uint64_t size,
			uint64_t nstk)
{
	const gh_rtlayout *lay = g->lay;
	unsigned ps = g->m->ptr_size, k;
	unsigned char rec[4 * 4 * 8];
	uint64_t w[16];
	size_t nw = 4u * lay->cycle_words, i;
	uint64_t at = addr + (lay->bucket_words + nstk) * ps;
	int rc, ok4 = 1;

	if (nw > GH_ARRAY_LEN(w))
		return guard_fail(g, "memRecordCycle of %u words",
				  lay->cycle_words);
	rc = gh_mem_read(g->m, at, rec, nw * ps, "memRecord");
	if (rc != 0)
		return rc;
	for (i = 0; i < nw; i++)
		w[i] = gh_mem_word(g->m, rec + i * ps, ps);
	g->records++;
	/* active.frees <= active.allocs: frees are of earlier allocations. */
	if (w[1] > w[0])
		g->badcounts++;
	if (w[0] == 0 || size <= 1)
		return 0;
	g->informative++;
	if (lay->cycle_words >= 4) {
		for (k = 0; k < 4; k++) {
			const uint64_t *c = w + 4 * k;

			if (c[2] != c[0] * size || c[3] != c[1] * size)
				ok4 = 0;
		}
		if (ok4)
			g->consistent4++;
		else
			g->inconsistent4++;
	} else if (w[2] == w[0] * size && w[3] == w[1] * size) {
		/* Words 2 and 3 are bytes of words 0 and 1: a 4-word
		 * {allocs, frees, alloc_bytes, free_bytes} cycle read as
		 * two 2-word ones. */
		g->looks4++;
	}
	return 0;
}

/*
 * Follow one list from the head stored at head_addr, checking every
 * header (at most `max` buckets; Brent's cycle check) and, for the memory
 * list, the first GH_LOCATE_GUARD_RECORDS records.
 */
static int guard_list(guard *g, uint64_t head_addr, int typ, size_t max,
		      const char *what)
{
	const gh_rtlayout *lay = g->lay;
	gh_mem *m = g->m;
	unsigned ps = m->ptr_size;
	unsigned char hdr[16 * 8];
	uint64_t cur, saved = 0, steps = 0, limit = 1;
	size_t n = 0;
	int rc;

	if (head_addr == 0)
		return 0;
	if (lay->bucket_words > 16)
		return guard_fail(g, "bucket header of %u words",
				  lay->bucket_words);
	rc = gh_mem_read_ptr(m, head_addr, &cur, what);
	if (rc != 0)
		return rc;
	while (cur != 0) {
		uint64_t btyp, size, nstk;

		if (n == max) {
			if (typ != lay->typ_mem)
				return 0;
			return guard_fail(g, "the %s list does not end "
					  "within %zu buckets", what, max);
		}
		if (cur == saved)
			return guard_fail(g, "the %s list (allnext) loops",
					  what);
		if (cur % ps != 0)
			return guard_fail(g, "%s bucket pointer 0x%llx is "
					  "misaligned", what,
					  (unsigned long long)cur);
		rc = gh_mem_read(m, cur, hdr, (size_t)lay->bucket_words * ps,
				 "bucket");
		if (rc != 0)
			return guard_fail(g, "%s bucket 0x%llx is unreadable "
					  "(%s)", what, (unsigned long long)cur,
					  goheap_strerror(rc));
		btyp = gh_mem_word(m, hdr + lay->w_typ * ps, ps);
		size = gh_mem_word(m, hdr + lay->w_size * ps, ps);
		nstk = gh_mem_word(m, hdr + lay->w_nstk * ps, ps);
		if (btyp != (uint64_t)typ)
			return guard_fail(g, "%s bucket 0x%llx has type %llu, "
					  "expected %d", what,
					  (unsigned long long)cur,
					  (unsigned long long)btyp, typ);
		if (nstk > lay->max_stack)
			return guard_fail(g, "%s bucket 0x%llx has %llu stack "
					  "words, more than %u", what,
					  (unsigned long long)cur,
					  (unsigned long long)nstk,
					  lay->max_stack);
		if ((typ == lay->typ_mem) != (size != 0))
			return guard_fail(g, "%s bucket 0x%llx has size %llu",
					  what, (unsigned long long)cur,
					  (unsigned long long)size);
		if (typ == lay->typ_mem && n < GH_LOCATE_GUARD_RECORDS) {
			rc = guard_record(g, cur, size, nstk);
			if (rc != 0)
				return rc;
		}
		n++;
		if (typ == lay->typ_mem)
			g->buckets++;
		/* Brent: remember a bucket at every power of two steps; a
		 * loop of length L returns to it once limit >= L. */
		if (++steps == limit) {
			saved = cur;
			steps = 0;
			limit *= 2;
		}
		cur = gh_mem_word(m, hdr + lay->w_allnext * ps, ps);
	}
	return 0;
}

int gh_validate_layout(gh_mem *m, const gh_rtlayout *lay,
		       const gh_rtaddrs *a, gh_gover ver, char *how,
		       size_t howlen, gh_err *err)
{
	guard g;
	uint64_t cycle, rate;
	int rc;

	if (how != NULL && howlen > 0)
		how[0] = '\0';
	memset(&g, 0, sizeof(g));
	g.m = m;
	g.lay = lay;
	g.ver = ver;
	g.err = err;
	if (a->mbuckets == 0 || a->mprofcycle == 0 || a->memprofilerate == 0)
		return gh_errf(err, GOHEAP_EINVAL, "layout guard: runtime "
			       "globals not located");
	rc = gh_mem_read_uint(m, a->memprofilerate, m->ptr_size, &rate,
			      "runtime.MemProfileRate");
	if (rc != 0)
		return rc;
	rc = gh_mem_read_uint(m, a->mprofcycle, 4, &cycle,
			      "runtime.mProfCycle");
	if (rc != 0)
		return rc;
	if ((lay->cycle_flag_bit ? cycle >> 1 : cycle) >= lay->cycle_wrap)
		return guard_fail(&g, "mProfCycle 0x%llx is past the wrap %u",
				  (unsigned long long)cycle, lay->cycle_wrap);
	rc = guard_list(&g, a->mbuckets, lay->typ_mem, GH_WALK_MAX_BUCKETS,
			"runtime.mbuckets");
	if (rc == 0)
		rc = guard_list(&g, a->bbuckets, lay->typ_block, 64,
				"runtime.bbuckets");
	if (rc == 0)
		rc = guard_list(&g, a->xbuckets, lay->typ_mutex, 64,
				"runtime.xbuckets");
	if (rc != 0)
		return rc;
	/*
	 * The record checks tolerate a few inconsistent records (a live
	 * target may be caught between two increments), never a majority.
	 */
	if (g.badcounts * 8 > g.records)
		return guard_fail(&g, "%zu of %zu records free more objects "
				  "than they allocated", g.badcounts,
				  g.records);
	if (lay->cycle_words >= 4 && g.inconsistent4 * 8 > g.consistent4)
		return guard_fail(&g, "in %zu of %zu records the byte counts "
				  "are not count x size (memRecordCycle is "
				  "not {allocs, frees, alloc_bytes, "
				  "free_bytes})", g.inconsistent4,
				  g.informative);
	if (lay->cycle_words < 4 && g.informative > 0 &&
	    g.looks4 * 2 > g.informative)
		return guard_fail(&g, "%zu of %zu records carry byte counts "
				  "(memRecordCycle is not {allocs, frees})",
				  g.looks4, g.informative);
	if (how != NULL && howlen > 0)
		snprintf(how, howlen, "layout checked on %zu buckets (%zu "
			 "records, %zu with counts)", g.buckets, g.records,
			 g.informative);
	(void)rate;
	return 0;
}

/*
 * decode.c - the locator's decoder: Capstone (loaded with dlopen on first
 * use) turned into the absolute data references of a function's code,
 * RIP-relative operands on amd64, ADRP-based pairs on arm64 (locate.h;
 * doc/decoder.md says why Capstone).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>

#include "locate_int.h"

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

struct cs_lib {
	void *dl;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *,
			    cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	unsigned (*version)(int *, int *);
};
typedef struct cs_lib cs_lib;

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
	gh_decoder d = GH_DECODER_INIT;
	int rc;

	rc = gh_decoder_refs(&d, machine, code, len, addr, out, err);
	gh_decoder_close(&d);
	return rc;
}

int gh_decoder_refs(gh_decoder *d, unsigned machine, const unsigned char *code,
		    size_t len, uint64_t addr, gh_refvec *out, gh_err *err)
{
	if (d->cs == NULL && (d->cs = calloc(1, sizeof(*d->cs))) == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	return decode_refs(d->cs, machine, code, len, addr, out, err);
}

void gh_decoder_close(gh_decoder *d)
{
	if (d->cs != NULL) {
		cs_lib_close(d->cs);
		free(d->cs);
		d->cs = NULL;
	}
}


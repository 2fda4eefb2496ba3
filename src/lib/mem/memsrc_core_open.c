/*
 * memsrc_core_open.c - opening an ELF core (memsrc_core_int.h): the ELF
 * header and program headers, the notes (NT_FILE, NT_AUXV, NT_PRSTATUS,
 * NT_SIGINFO) decoded by hand with every offset and size checked against
 * the file (memsrc_core.c's first comment says why not libelf), the main
 * executable found, qemu-user's missing NT_FILE synthesized.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "memsrc_core_int.h"

/* ---- notes ------------------------------------------------------------ */

/*
 * NT_FILE (fs/binfmt_elf.c fill_files_note): count, page_size, then count
 * {start, end, file_ofs} triples, all target words, file_ofs in pages; then
 * count NUL-terminated names.  Worked example (64-bit, page 4096):
 *   2 4096 | 0x400000 0x401000 0 | 0x401000 0x480000 1 | "/a\0" "/a\0"
 * says /a's first page is at 0x400000 and its bytes 4096.. at 0x401000.
 */
static int parse_nt_file(core_ctx *c, const unsigned char *d, uint64_t dsz,
			 gh_err *err)
{
	unsigned w = c->is64 ? 8 : 4;
	uint64_t count, page, i, names_off;
	const unsigned char *names, *end;
	core_file *files = NULL;
	int rc = 0;

	if (c->files != NULL)
		return 0;  /* only the first NT_FILE counts */
	if (dsz < 2 * (uint64_t)w)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s: NT_FILE note too short", c->path);
	count = gh_load(d, w, c->big);
	page = gh_load(d + w, w, c->big);
	if (count > (dsz - 2 * w) / (3 * (uint64_t)w))
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s: NT_FILE note claims %" PRIu64
			       " files in %" PRIu64 " bytes", c->path, count,
			       dsz);
	if (page == 0 || (page & (page - 1)) != 0)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s: NT_FILE page size %" PRIu64
			       " is not a power of two", c->path, page);
	files = gh_calloc((size_t)count, sizeof(*files));
	if (files == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	names_off = 2 * w + count * 3 * w;
	names = d + names_off;
	end = d + dsz;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 2 * w + i * 3 * w;
		const unsigned char *nul;
		uint64_t pgoff;

		files[i].start = gh_load(e, w, c->big);
		files[i].end = gh_load(e + w, w, c->big);
		pgoff = gh_load(e + 2 * w, w, c->big);
		if (files[i].end < files[i].start ||
		    pgoff > UINT64_MAX / page) {
			rc = gh_errf(err, GOHEAP_ECORRUPT,
				     "core file %s: NT_FILE entry %" PRIu64
				     " is malformed", c->path, i);
			goto out;
		}
		files[i].offset = pgoff * page;
		nul = names < end ? memchr(names, '\0', (size_t)(end - names))
				  : NULL;
		if (nul == NULL) {
			rc = gh_errf(err, GOHEAP_ECORRUPT,
				     "core file %s: NT_FILE note has fewer "
				     "names than its %" PRIu64 " entries",
				     c->path, count);
			goto out;
		}
		files[i].name = (const char *)names;
		names = nul + 1;
	}
	qsort(files, (size_t)count, sizeof(*files), gh_core_cmp_file);
	c->files = files;
	c->nfiles = (size_t)count;
	c->page = page;
	files = NULL;
out:
	free(files);
	return rc;
}

/* NT_AUXV: {a_type, a_val} target words up to AT_NULL. */
static void parse_auxv(core_ctx *c, const unsigned char *d, uint64_t dsz)
{
	unsigned w = c->is64 ? 8 : 4;
	uint64_t off;

	/* dsz is bounded by the file size: off + 2w cannot wrap. */
	for (off = 0; off + 2 * (uint64_t)w <= dsz; off += 2 * w) {
		uint64_t type = gh_load(d + off, w, c->big);
		uint64_t val = gh_load(d + off + w, w, c->big);

		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY) {
			c->at_entry = val;
			c->have_entry = 1;
		} else if (type == AT_PHDR) {
			c->at_phdr = val;
			c->have_phdr = 1;
		} else if (type == AT_EXECFN) {
			c->at_execfn = val;
			c->have_execfn = 1;
		} else if (type == AT_SYSINFO_EHDR) {
			c->at_vdso = val;
			c->have_vdso = 1;
		} else if (type == AT_PAGESZ) {
			c->at_pagesz = val;
		}
	}
}

static int name_is_core(const unsigned char *name, uint64_t namesz)
{
	/* "CORE\0"; tolerate a producer that leaves out the NUL. */
	return (namesz == 5 || namesz == 4) && memcmp(name, "CORE", 4) == 0 &&
	       (namesz == 4 || name[4] == '\0');
}

/*
 * amd64 struct elf_prstatus (include/uapi/linux/elfcore.h): pr_pid at 32,
 * pr_reg (struct user_regs_struct, 27 words) at 112; in pr_reg r14 is
 * word 1, rbp 4, rip 16, rsp 19, fs_base 21.
 */
#define PRSTATUS_AMD64_PID 32
#define PRSTATUS_AMD64_REG 112
#define PRSTATUS_AMD64_SIZE (PRSTATUS_AMD64_REG + 27 * 8)

/*
 * arm64 struct elf_prstatus: the same header (pr_pid at 32), pr_reg
 * (struct user_pt_regs: regs[31], sp, pc, pstate) at 112.
 */
#define PRSTATUS_ARM64_PID 32
#define PRSTATUS_ARM64_REG 112
#define PRSTATUS_ARM64_SIZE (PRSTATUS_ARM64_REG + 34 * 8)

/* Keep one thread's registers (amd64 and arm64, 64-bit little-endian
 * only). */
static int keep_regs(core_ctx *c, const unsigned char *d, uint64_t dsz)
{
	gh_thread_regs *t;
	const unsigned char *r = d + PRSTATUS_AMD64_REG;
	int arm64 = c->machine == EM_AARCH64;

	if ((c->machine != EM_X86_64 && !arm64) || !c->is64 || c->big ||
	    dsz < (arm64 ? PRSTATUS_ARM64_SIZE : PRSTATUS_AMD64_SIZE) ||
	    c->nregs >= GH_CORE_MAX_THREADS)
		return 0;
	if (c->nregs == c->capregs) {
		size_t nc = c->capregs ? 2 * c->capregs : 16;
		gh_thread_regs *nv = realloc(c->regs, nc * sizeof(*nv));

		if (nv == NULL)
			return GOHEAP_ENOMEM;
		c->regs = nv;
		c->capregs = nc;
	}
	t = &c->regs[c->nregs++];
	memset(t, 0, sizeof(*t));
	if (arm64) {
		r = d + PRSTATUS_ARM64_REG;
		t->tid = (int32_t)gh_load(d + PRSTATUS_ARM64_PID, 4, 0);
		t->g = gh_load(r + 8 * 28, 8, 0);
		t->fp = gh_load(r + 8 * 29, 8, 0);
		t->lr = gh_load(r + 8 * 30, 8, 0);
		t->sp = gh_load(r + 8 * 31, 8, 0);
		t->pc = gh_load(r + 8 * 32, 8, 0);
		return 0;
	}
	t->tid = (int32_t)gh_load(d + PRSTATUS_AMD64_PID, 4, 0);
	t->g = gh_load(r + 8 * 1, 8, 0);
	t->fp = gh_load(r + 8 * 4, 8, 0);
	t->pc = gh_load(r + 8 * 16, 8, 0);
	t->sp = gh_load(r + 8 * 19, 8, 0);
	t->fsbase = gh_load(r + 8 * 21, 8, 0);
	return 0;
}

static int core_threads(void *ctx, const gh_thread_regs **regs, size_t *n)
{
	const core_ctx *c = ctx;

	*regs = NULL;
	*n = 0;
	if (c == NULL || c->nregs == 0)
		return -1;
	*regs = c->regs;
	*n = c->nregs;
	return 0;
}

/* The mapping is read-only and private, never written: MADV_DONTNEED
 * only unmaps its pages, the file's bytes come back on the next read. */
static void core_release(void *ctx)
{
	const core_ctx *c = ctx;

	if (c != NULL && c->map != NULL && c->size > 0)
		(void)madvise((void *)(uintptr_t)c->map, c->size,
			      MADV_DONTNEED);
}

const gh_memsrc_caps gh_core_caps = {
	.core_threads = core_threads,
	.release = core_release,
};

/* Walk one PT_NOTE segment at p[0..size). */
static int parse_notes(core_ctx *c, const unsigned char *p, uint64_t size,
		       uint64_t align, gh_err *err)
{
	uint64_t off = 0;
	int rc;

	while (size - off >= NHDR_SIZE) {
		uint64_t namesz = ELF_FIELD(c->big, p + off, Elf64_Nhdr, n_namesz);
		uint64_t descsz = ELF_FIELD(c->big, p + off, Elf64_Nhdr, n_descsz);
		uint64_t type = ELF_FIELD(c->big, p + off, Elf64_Nhdr, n_type);
		uint64_t name_off = off + NHDR_SIZE, desc_off;
		const unsigned char *desc;

		/* Sizes are 32-bit and size is a file size: no overflow. */
		desc_off = (name_off + namesz + align - 1) & ~(align - 1);
		if (desc_off > size || descsz > size - desc_off)
			return gh_errf(err, GOHEAP_ECORRUPT,
				       "core file %s: malformed note at "
				       "offset %" PRIu64 " of a PT_NOTE "
				       "segment (sizes %" PRIu64 "/%" PRIu64
				       " exceed the segment)", c->path, off,
				       namesz, descsz);
		desc = p + desc_off;
		off = (desc_off + descsz + align - 1) & ~(align - 1);
		if (off > size)
			off = size;
		if (!name_is_core(p + name_off, namesz))
			continue;
		switch (type) {
		case NT_PRSTATUS:
			/* The thread that took the signal comes first. */
			if (c->nthreads == 0 &&
			    descsz >= PRSTATUS_CURSIG_OFF + 2)
				c->signal = (int16_t)gh_load(
					desc + PRSTATUS_CURSIG_OFF, 2, c->big);
			c->nthreads++;
			rc = keep_regs(c, desc, descsz);
			if (rc != 0)
				return gh_errf(err, rc, "out of memory");
			break;
		case NT_SIGINFO:
			if (descsz >= 4 && c->siginfo_signo == 0)
				c->siginfo_signo =
					(int32_t)gh_load(desc, 4, c->big);
			break;
		case NT_AUXV:
			parse_auxv(c, desc, descsz);
			break;
		case NT_FILE:
			rc = parse_nt_file(c, desc, descsz, err);
			if (rc != 0)
				return rc;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* ---- headers ---------------------------------------------------------- */

typedef struct core_ehdr {
	unsigned type, machine, phentsize;
	uint64_t phoff, phnum, shoff, shentsize;
} core_ehdr;

static void decode_ehdr(const core_ctx *c, core_ehdr *h)
{
	const unsigned char *p = c->map;

	if (c->is64) {
		h->type = (unsigned)ELF_FIELD(c->big, p, Elf64_Ehdr, e_type);
		h->machine = (unsigned)ELF_FIELD(c->big, p, Elf64_Ehdr, e_machine);
		h->phoff = ELF_FIELD(c->big, p, Elf64_Ehdr, e_phoff);
		h->phentsize = (unsigned)ELF_FIELD(c->big, p, Elf64_Ehdr,
						   e_phentsize);
		h->phnum = ELF_FIELD(c->big, p, Elf64_Ehdr, e_phnum);
		h->shoff = ELF_FIELD(c->big, p, Elf64_Ehdr, e_shoff);
		h->shentsize = ELF_FIELD(c->big, p, Elf64_Ehdr, e_shentsize);
	} else {
		h->type = (unsigned)ELF_FIELD(c->big, p, Elf32_Ehdr, e_type);
		h->machine = (unsigned)ELF_FIELD(c->big, p, Elf32_Ehdr, e_machine);
		h->phoff = ELF_FIELD(c->big, p, Elf32_Ehdr, e_phoff);
		h->phentsize = (unsigned)ELF_FIELD(c->big, p, Elf32_Ehdr,
						   e_phentsize);
		h->phnum = ELF_FIELD(c->big, p, Elf32_Ehdr, e_phnum);
		h->shoff = ELF_FIELD(c->big, p, Elf32_Ehdr, e_shoff);
		h->shentsize = ELF_FIELD(c->big, p, Elf32_Ehdr, e_shentsize);
	}
}

/*
 * The number of program headers.  A core with 65535 or more mappings has
 * e_phnum == PN_XNUM and the real count in sh_info of section header 0
 * (fs/binfmt_elf.c fill_extnum_info; gdb does the same).
 */
static int count_phdrs(core_ctx *c, const core_ehdr *h, uint64_t *out,
		       gh_err *err)
{
	uint64_t shsz = c->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	const unsigned char *sh;

	*out = h->phnum;
	if (h->phnum != PN_XNUM)
		return 0;
	if (h->shoff == 0 || h->shentsize != shsz)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s: e_phnum is PN_XNUM but there is "
			       "no section header 0", c->path);
	if (h->shoff > c->size || c->size - h->shoff < shsz)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s is truncated: section header 0 "
			       "ends at byte %" PRIu64 " but the file has %zu",
			       c->path, h->shoff + shsz, c->size);
	sh = c->map + h->shoff;
	*out = c->is64 ? ELF_FIELD(c->big, sh, Elf64_Shdr, sh_info) :
			 ELF_FIELD(c->big, sh, Elf32_Shdr, sh_info);
	return 0;
}

static int parse_headers(core_ctx *c, gh_err *err)
{
	const unsigned char *id = c->map;
	uint64_t ehsz, phsz, phnum, i, nload = 0;
	core_ehdr h;
	int rc;

	if (c->size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return gh_errf(err, GOHEAP_EINVAL, "%s is not an ELF file",
			       c->path);
	if (c->size < EI_NIDENT)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s is truncated: %zu bytes, not even "
			       "an ELF identification", c->path, c->size);
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "%s: unknown ELF class %u", c->path,
			       id[EI_CLASS]);
	if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "%s: unknown ELF byte order %u", c->path,
			       id[EI_DATA]);
	c->is64 = id[EI_CLASS] == ELFCLASS64;
	c->big = id[EI_DATA] == ELFDATA2MSB;
	ehsz = c->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	phsz = c->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (c->size < ehsz)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s is truncated: the ELF header "
			       "needs %" PRIu64 " bytes but the file has %zu",
			       c->path, ehsz, c->size);
	decode_ehdr(c, &h);
	if (h.type != ET_CORE)
		return gh_errf(err, GOHEAP_EINVAL,
			       "%s is not a core file (ELF type %s)", c->path,
			       gh_core_elf_type_name(h.type));
	c->machine = h.machine;
	rc = count_phdrs(c, &h, &phnum, err);
	if (rc != 0)
		return rc;
	if (phnum == 0)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s has no program headers", c->path);
	if (h.phentsize != phsz)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s: program header size %u, "
			       "expected %" PRIu64, c->path, h.phentsize, phsz);
	if (h.phoff > c->size || (c->size - h.phoff) / phsz < phnum)
		return gh_errf(err, GOHEAP_ECORRUPT,
			       "core file %s is truncated: its %" PRIu64
			       " program headers end at byte %" PRIu64
			       " but the file has %zu", c->path, phnum,
			       h.phoff + phnum * phsz, c->size);
	c->need_size = h.phoff + phnum * phsz;

	/* First pass: notes (sizes checked) and the PT_LOAD count. */
	for (i = 0; i < phnum; i++) {
		core_phdr ph;

		gh_core_decode_phdr(c->is64, c->big, c->map + h.phoff + i * phsz, &ph);
		if (ph.type == PT_LOAD && ph.memsz > 0)
			nload++;
		if (ph.type != PT_NOTE)
			continue;
		if (ph.offset > c->size || ph.filesz > c->size - ph.offset)
			return gh_errf(err, GOHEAP_ECORRUPT,
				       "core file %s is truncated: its notes "
				       "end at byte %" PRIu64 " but the file "
				       "has %zu", c->path,
				       ph.offset + ph.filesz, c->size);
		/* Core notes are 4-aligned; honour an explicit 8. */
		rc = parse_notes(c, c->map + ph.offset, ph.filesz,
				 ph.align == 8 ? 8 : 4, err);
		if (rc != 0)
			return rc;
	}

	c->segs = gh_calloc((size_t)nload, sizeof(*c->segs));
	if (c->segs == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	for (i = 0; i < phnum; i++) {
		core_phdr ph;
		core_seg *s;

		gh_core_decode_phdr(c->is64, c->big, c->map + h.phoff + i * phsz, &ph);
		if (ph.type != PT_LOAD || ph.memsz == 0)
			continue;
		if (ph.vaddr + ph.memsz - 1 < ph.vaddr ||
		    ph.offset + ph.filesz < ph.offset)
			return gh_errf(err, GOHEAP_ECORRUPT,
				       "core file %s: program header %" PRIu64
				       " wraps around the address space",
				       c->path, i);
		s = &c->segs[c->nsegs++];
		s->vaddr = ph.vaddr;
		s->memsz = ph.memsz;
		s->offset = ph.offset;
		s->filesz = ph.filesz;
		s->flags = ph.flags;
		s->avail = ph.filesz < ph.memsz ? ph.filesz : ph.memsz;
		if (ph.offset >= c->size)
			s->avail = 0;
		else if (s->avail > c->size - ph.offset)
			s->avail = c->size - ph.offset;
		if (ph.filesz > 0 && ph.offset + ph.filesz > c->need_size)
			c->need_size = ph.offset + ph.filesz;
	}
	qsort(c->segs, c->nsegs, sizeof(*c->segs), gh_core_cmp_seg);
	for (i = 1; i < c->nsegs; i++) {
		if (c->segs[i].vaddr - c->segs[i - 1].vaddr <
		    c->segs[i - 1].memsz)
			return gh_errf(err, GOHEAP_ECORRUPT,
				       "core file %s: segments at 0x%" PRIx64
				       " and 0x%" PRIx64 " overlap", c->path,
				       c->segs[i - 1].vaddr, c->segs[i].vaddr);
	}
	return 0;
}

/*
 * qemu-user's cores have no NT_FILE, so nothing names the executable's
 * mappings: runtime/pprof's mapping list would lose the executable, and
 * its undumped text could not be read from the file.  If AT_EXECFN leads
 * to a readable ELF file of the core's machine, make NT_FILE-like entries
 * from its PT_LOADs, placed by the load bias AT_ENTRY - e_entry (0 for a
 * non-PIE Go binary), each covering the file-backed pages of a segment as
 * the kernel's elf_map() maps them.  The name is the canonical path, as
 * /proc/PID/maps (d_path) would show it.  A wrong file is caught by the
 * session's build-id check, as for any executable.
 */
static int synth_exe_files(core_ctx *c, gh_err *err)
{
	unsigned char eh[sizeof(Elf64_Ehdr)], ph[sizeof(Elf64_Phdr)];
	uint64_t page = c->at_pagesz, phoff, phnum, phsz, entry, bias, i;
	char path[PATH_MAX], canon[PATH_MAX];
	core_file *files = NULL;
	size_t n = 0;
	int fd = -1, rc = 0, is64;

	if (c->nfiles > 0 || !c->have_execfn || !c->have_entry)
		return 0;
	if (page == 0 || (page & (page - 1)) != 0)
		page = 4096;
	if (gh_core_execfn_path(c, path, sizeof(path)) != 0 ||
	    realpath(path, canon) == NULL)
		return 0;
	fd = open(canon, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	is64 = c->is64;
	phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (pread(fd, eh, sizeof(eh), 0) < (ssize_t)sizeof(Elf32_Ehdr) ||
	    memcmp(eh, ELFMAG, SELFMAG) != 0 ||
	    eh[EI_CLASS] != (is64 ? ELFCLASS64 : ELFCLASS32) ||
	    eh[EI_DATA] != (c->big ? ELFDATA2MSB : ELFDATA2LSB))
		goto out;
	if ((is64 ? ELF_FIELD(c->big, eh, Elf64_Ehdr, e_machine) :
		    ELF_FIELD(c->big, eh, Elf32_Ehdr, e_machine)) != c->machine)
		goto out;
	entry = is64 ? ELF_FIELD(c->big, eh, Elf64_Ehdr, e_entry) :
		       ELF_FIELD(c->big, eh, Elf32_Ehdr, e_entry);
	phoff = is64 ? ELF_FIELD(c->big, eh, Elf64_Ehdr, e_phoff) :
		       ELF_FIELD(c->big, eh, Elf32_Ehdr, e_phoff);
	phnum = is64 ? ELF_FIELD(c->big, eh, Elf64_Ehdr, e_phnum) :
		       ELF_FIELD(c->big, eh, Elf32_Ehdr, e_phnum);
	if (phnum > BACKING_MAX_PHDRS || phoff > (uint64_t)INT64_MAX / 2)
		goto out;
	bias = c->at_entry - entry;
	files = gh_calloc((size_t)phnum, sizeof(*files));
	if (files == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		core_phdr p;
		uint64_t start, end;

		if (pread(fd, ph, phsz, (off_t)(phoff + i * phsz)) !=
		    (ssize_t)phsz)
			goto out;
		gh_core_decode_phdr(is64, c->big, ph, &p);
		if (p.type != PT_LOAD || p.filesz == 0)
			continue;
		start = (p.vaddr + bias) & ~(page - 1);
		end = (p.vaddr + bias + p.filesz + page - 1) & ~(page - 1);
		if (end <= start || (p.vaddr & (page - 1)) !=
				    (p.offset & (page - 1)))
			goto out;
		files[n].start = start;
		files[n].end = end;
		files[n].offset = p.offset & ~(page - 1);
		files[n].resolved = 1;
		n++;
	}
	if (n == 0)
		goto out;
	c->synth_name = gh_strdup(canon);
	if (c->synth_name == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		files[i].name = c->synth_name;
	qsort(files, n, sizeof(*files), gh_core_cmp_file);
	c->files = files;
	c->nfiles = n;
	c->page = page;
	files = NULL;
out:
	free(files);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Pick the main executable's NT_FILE entry (see the top comment). */
static void find_exe(core_ctx *c)
{
	const core_file *f = NULL;
	size_t i;

	c->exe = -1;
	if (c->have_entry)
		f = gh_core_find_file(c, c->at_entry);
	if (f == NULL && c->have_phdr)
		f = gh_core_find_file(c, c->at_phdr);
	for (i = 0; f == NULL && i < c->nfiles; i++) {
		if (c->files[i].offset == 0)
			f = &c->files[i];
	}
	if (f != NULL)
		c->exe = f - c->files;
}

int gh_core_new(void **out_ctx, const char *core, const char *sysroot,
		gh_err *err)
{
	core_ctx *c = NULL;
	struct stat st;
	void *map;
	int fd = -1, rc = 0, e;

	*out_ctx = NULL;
	if (core == NULL)
		return gh_errf(err, GOHEAP_EINVAL, "no core file given");
	c = gh_calloc(1, sizeof(*c));
	if (c == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	c->exe = -1;
	c->path = gh_strdup(core);
	if (sysroot != NULL && sysroot[0] != '\0')
		c->sysroot = gh_strdup(sysroot);
	if (c->path == NULL ||
	    (sysroot != NULL && sysroot[0] != '\0' && c->sysroot == NULL)) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
		goto out;
	}
	fd = open(core, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		e = errno;
		rc = gh_errf(err, (e == EACCES || e == EPERM) ? GOHEAP_EPERM :
				  GOHEAP_EIO, "cannot open core file %s: %s",
			     core, strerror(e));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = gh_errf(err, GOHEAP_EINVAL,
			     "core file %s is not a regular file", core);
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		rc = gh_errf(err, GOHEAP_ELIMIT,
			     "core file %s is too large to map", core);
		goto out;
	}
	c->mtime = st.st_mtime;
	if (st.st_size == 0) {
		rc = gh_errf(err, GOHEAP_EINVAL,
			     "%s is not an ELF file (it is empty)", core);
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = gh_errf(err, errno == ENOMEM ? GOHEAP_ENOMEM : GOHEAP_EIO,
			     "cannot map core file %s: %s", core,
			     strerror(errno));
		goto out;
	}
	c->map = map;
	c->size = (size_t)st.st_size;
	rc = parse_headers(c, err);
	if (rc != 0)
		goto out;
	if (c->signal <= 0)
		c->signal = c->siginfo_signo;
	rc = synth_exe_files(c, err);
	if (rc != 0)
		goto out;
	find_exe(c);
	*out_ctx = c;
	c = NULL;
out:
	if (fd >= 0)
		close(fd);
	gh_core_close(c);
	return rc;
}

/*
 * exe.c - the Go executable as an ELF file.
 *
 * The file is opened once and mapped read-only; libelf (elf_begin with
 * ELF_C_READ_MMAP on the same descriptor) parses the headers, the symbol
 * table and the relocations, converting them to host order for us.  The
 * raw bytes handed out by gh_exe_ptr and gh_section.data come from our own
 * PROT_READ mapping, never from libelf's buffers, because libelf may
 * convert foreign-endian data in place or into private copies and we want
 * the file bytes exactly (the pclntab is decoded in the target's order).
 *
 * Everything a caller may ask repeatedly is indexed once at open time:
 * sections (a small array, scanned linearly), .symtab (sorted by name, so
 * a lookup is a binary search over ~10k-60k names), PT_LOAD file parts and
 * the R_*_RELATIVE relocations (sorted by offset).  Nothing is global.
 *
 * Rejected alternatives: elf_memory on a private writable copy (doubles
 * the memory of a 100 MB binary once libelf starts converting), and
 * hashing symbol names (a sorted array is smaller, simpler and fast
 * enough for the handful of lookups a session makes).
 *
 * The input is untrusted: every offset and size taken from the file is
 * checked against the file size before it is used.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exe.h"

/* Relocation types that mean "word = load bias + addend". */
#define GH_R_X86_64_RELATIVE 8
#define GH_R_386_RELATIVE 8
#define GH_R_AARCH64_RELATIVE 1027
#define GH_R_ARM_RELATIVE 23
#define GH_R_PPC64_RELATIVE 22
#define GH_R_390_RELATIVE 12
#define GH_R_RISCV_RELATIVE 3
#define GH_R_LARCH_RELATIVE 3

/* Note types (elf.h names them too, but not every libc ships all). */
#define GH_NT_GNU_BUILD_ID 3
#define GH_NT_GO_BUILD_ID 4

/* "\xff Go buildinf:" (Go src/debug/buildinfo/buildinfo.go). */
static const char gh_buildinfo_magic[14] = "\xff Go buildinf:";
#define GH_BUILDINFO_HDR 32
#define GH_BUILDINFO_ALIGN 16

typedef struct gh_ptload {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;
} gh_ptload;

typedef struct gh_esym {
	const char *name;
	uint64_t value, size;
	size_t index; /* symbol table index, for a deterministic order */
} gh_esym;

typedef struct gh_reloc {
	uint64_t offset;
	uint64_t addend;
} gh_reloc;

struct gh_exe {
	char *path;
	int fd;
	const unsigned char *map;
	size_t maplen;
	Elf *elf;

	unsigned ptr_size;
	int big;
	unsigned machine;
	int is_dyn;
	uint64_t entry;

	gh_section *secs;
	size_t nsecs;
	gh_ptload *loads;
	size_t nloads;
	gh_esym *syms;
	size_t nsyms;
	/* name -> index in syms of the first symbol of that name (open
	 * addressing, UINT32_MAX empty): built in one pass, where sorting
	 * every name cost a tenth of a small profile's run. */
	uint32_t *symidx;
	size_t symcap;            /* a power of two */
	int has_symtab;
	gh_reloc *relocs;
	size_t nrelocs;

	char go_version[128];
	char *gnu_build_id;
	char *go_build_id;
};

/* ---- small helpers ------------------------------------------------------ */

/* [off, off+len) lies inside a buffer of `size` bytes (overflow-safe). */
static int gh_in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static uint64_t gh_exe_load(const gh_exe *e, const unsigned char *p,
			    unsigned n)
{
	return gh_load(p, n, e->big);
}

static char *gh_hex(const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);
	size_t i;

	if (s == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

/* ---- indexes built at open ----------------------------------------------- */

static int gh_exe_load_sections(gh_exe *e, gh_err *err)
{
	size_t shstrndx, n = 0, i;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(e->elf, &n) != 0)
		return gh_errf(err, GOHEAP_ECORRUPT, "%s: bad section headers",
			       e->path);
	if (n == 0)
		return 0;
	if (elf_getshdrstrndx(e->elf, &shstrndx) != 0)
		shstrndx = SHN_UNDEF;
	e->secs = gh_calloc(n, sizeof(*e->secs));
	if (e->secs == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", e->path);
	for (i = 0; i < n; i++) {
		GElf_Shdr sh;
		gh_section *s = &e->secs[e->nsecs];
		const char *name = NULL;

		scn = elf_getscn(e->elf, i);
		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (shstrndx != SHN_UNDEF)
			name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		s->name = name != NULL ? name : "";
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->data = NULL;
		/* A section whose bytes lie outside the file gets no data. */
		if (sh.sh_type != SHT_NOBITS &&
		    gh_in_bounds(sh.sh_offset, sh.sh_size, e->maplen))
			s->data = e->map + sh.sh_offset;
		e->nsecs++;
	}
	return 0;
}

static int gh_exe_load_phdrs(gh_exe *e, gh_err *err)
{
	size_t n = 0, i;

	if (elf_getphdrnum(e->elf, &n) != 0 || n == 0)
		return 0;
	e->loads = gh_calloc(n, sizeof(*e->loads));
	if (e->loads == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", e->path);
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		gh_ptload *l = &e->loads[e->nloads];

		if (gelf_getphdr(e->elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		l->vaddr = ph.p_vaddr;
		l->memsz = ph.p_memsz;
		l->offset = ph.p_offset;
		l->filesz = ph.p_filesz;
		l->flags = ph.p_flags;
		/*
		 * Clamp the file part to what the file really holds; a
		 * segment wholly past the end has none (and offset 0, so that
		 * no pointer is ever formed beyond the mapping).
		 */
		if (l->offset > e->maplen) {
			l->filesz = 0;
			l->offset = 0;
		} else if (l->filesz > e->maplen - l->offset)
			l->filesz = e->maplen - l->offset;
		if (l->filesz > l->memsz)
			l->filesz = l->memsz;
		if (l->vaddr + l->memsz < l->vaddr)
			continue;
		e->nloads++;
	}
	return 0;
}

/* The slot of name in e->symidx: its entry, or the empty slot for it. */
static size_t gh_esym_slot(const gh_exe *e, const char *name)
{
	size_t i = (size_t)gh_hash_str(name) & (e->symcap - 1);

	while (e->symidx[i] != UINT32_MAX &&
	       strcmp(e->syms[e->symidx[i]].name, name) != 0)
		i = (i + 1) & (e->symcap - 1);
	return i;
}

static int gh_exe_load_symtab(gh_exe *e, gh_err *err)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t n, k;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB)
			break;
	}
	if (scn == NULL)
		return 0;
	d = elf_getdata(scn, NULL);
	if (d == NULL || sh.sh_entsize == 0)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	e->syms = gh_calloc(n, sizeof(*e->syms));
	if (e->syms == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", e->path);
	e->has_symtab = 1;
	/* Index 0 is the reserved null symbol. */
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (gelf_getsym(d, (int)k, &sym) == NULL)
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		name = elf_strptr(e->elf, sh.sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		e->syms[e->nsyms].name = name;
		e->syms[e->nsyms].value = sym.st_value;
		e->syms[e->nsyms].size = sym.st_size;
		e->syms[e->nsyms].index = k;
		e->nsyms++;
	}
	if (e->nsyms >= UINT32_MAX / 4)
		return gh_errf(err, GOHEAP_ELIMIT, "%s: too many symbols",
			       e->path);
	for (e->symcap = 16; e->symcap < 2 * e->nsyms; e->symcap *= 2)
		;
	e->symidx = malloc(e->symcap * sizeof(*e->symidx));
	if (e->symidx == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", e->path);
	memset(e->symidx, 0xff, e->symcap * sizeof(*e->symidx));
	/* In .symtab order: a duplicate name keeps its first symbol. */
	for (k = 0; k < e->nsyms; k++) {
		size_t i = gh_esym_slot(e, e->syms[k].name);

		if (e->symidx[i] == UINT32_MAX)
			e->symidx[i] = (uint32_t)k;
	}
	return 0;
}

static int gh_reloc_cmp(const void *a, const void *b)
{
	const gh_reloc *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int gh_is_relative(unsigned machine, uint64_t type)
{
	switch (machine) {
	case EM_X86_64:
		return type == GH_R_X86_64_RELATIVE;
	case EM_386:
		return type == GH_R_386_RELATIVE;
	case EM_AARCH64:
		return type == GH_R_AARCH64_RELATIVE;
	case EM_ARM:
		return type == GH_R_ARM_RELATIVE;
	case EM_PPC64:
		return type == GH_R_PPC64_RELATIVE;
	case EM_S390:
		return type == GH_R_390_RELATIVE;
	case EM_RISCV:
		return type == GH_R_RISCV_RELATIVE;
#ifdef EM_LOONGARCH
	case EM_LOONGARCH:
		return type == GH_R_LARCH_RELATIVE;
#endif
	default:
		return 0;
	}
}

/*
 * Collect the RELATIVE relocations of every SHT_RELA/SHT_REL section.
 * Go's linker puts them in .rela.dyn (amd64, arm64) or .rel.dyn (386,
 * arm).  For SHT_REL the addend is the word already in the file, so those
 * need no entry: gh_exe_read_word reads the file word anyway.
 */
static int gh_exe_load_relocs(gh_exe *e, gh_err *err)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n, k;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_RELA ||
		    sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (d == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Rela r;
			uint64_t type;

			if (gelf_getrela(d, (int)k, &r) == NULL)
				break;
			type = e->ptr_size == 8 ? GELF_R_TYPE(r.r_info)
						: ELF32_R_TYPE(r.r_info);
			if (!gh_is_relative(e->machine, type))
				continue;
			if (e->nrelocs == cap) {
				size_t ncap = cap ? cap * 2 : 1024;
				gh_reloc *nr = gh_reallocarray(e->relocs, ncap,
							       sizeof(*nr));
				if (nr == NULL)
					return gh_errf(err, GOHEAP_ENOMEM,
						       "%s: out of memory",
						       e->path);
				e->relocs = nr;
				cap = ncap;
			}
			e->relocs[e->nrelocs].offset = r.r_offset;
			e->relocs[e->nrelocs].addend = (uint64_t)r.r_addend;
			if (e->ptr_size == 4)
				e->relocs[e->nrelocs].addend &= 0xffffffffu;
			e->nrelocs++;
		}
	}
	if (e->nrelocs > 1)
		qsort(e->relocs, e->nrelocs, sizeof(*e->relocs), gh_reloc_cmp);
	return 0;
}

/* ---- notes ----------------------------------------------------------------- */

/*
 * Find the first note named `name` (without NUL) of type `type` in the
 * SHT_NOTE sections.  Notes are {namesz, descsz, type, name, desc}, with
 * name and desc padded to 4 bytes, in the file's byte order.
 */
static const unsigned char *gh_exe_find_note(const gh_exe *e, const char *name,
					     uint32_t type, size_t *desclen)
{
	size_t nlen = strlen(name), i;

	for (i = 0; i < e->nsecs; i++) {
		const gh_section *s = &e->secs[i];
		uint64_t off = 0;

		if (s->type != SHT_NOTE || s->data == NULL)
			continue;
		while (gh_in_bounds(off, 12, s->size)) {
			const unsigned char *p = s->data + off;
			uint64_t namesz = gh_exe_load(e, p, 4);
			uint64_t descsz = gh_exe_load(e, p + 4, 4);
			uint64_t ntype = gh_exe_load(e, p + 8, 4);
			uint64_t nameoff = off + 12;
			uint64_t descoff = nameoff + ((namesz + 3) & ~3ull);

			if (!gh_in_bounds(nameoff, namesz, s->size) ||
			    !gh_in_bounds(descoff, descsz, s->size))
				break;
			if (ntype == type && namesz >= nlen &&
			    namesz <= nlen + 3 &&
			    memcmp(s->data + nameoff, name, nlen) == 0) {
				*desclen = (size_t)descsz;
				return s->data + descoff;
			}
			off = descoff + ((descsz + 3) & ~3ull);
		}
	}
	return NULL;
}

static int gh_exe_load_build_ids(gh_exe *e, gh_err *err)
{
	const unsigned char *d;
	size_t n = 0;

	d = gh_exe_find_note(e, "GNU", GH_NT_GNU_BUILD_ID, &n);
	e->gnu_build_id = d != NULL ? gh_hex(d, n) : gh_strdup("");
	/* "Go\0\0": namesz is 4, so a name of "Go" plus padding matches. */
	d = gh_exe_find_note(e, "Go", GH_NT_GO_BUILD_ID, &n);
	if (d != NULL) {
		e->go_build_id = malloc(n + 1);
		if (e->go_build_id != NULL) {
			memcpy(e->go_build_id, d, n);
			e->go_build_id[n] = '\0';
		}
	} else {
		e->go_build_id = gh_strdup("");
	}
	if (e->gnu_build_id == NULL || e->go_build_id == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", e->path);
	return 0;
}

/* ---- build info ------------------------------------------------------------ */

/* Read a uvarint from [p, end); 0 bytes consumed on error. */
static size_t gh_uvarint(const unsigned char *p, const unsigned char *end,
			 uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	size_t n = 0;

	while (p + n < end && n < 10) {
		unsigned char b = p[n++];

		v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0) {
			*out = v;
			return n;
		}
		shift += 7;
	}
	return 0;
}

static void gh_set_version(gh_exe *e, const unsigned char *s, uint64_t len)
{
	if (len >= sizeof(e->go_version))
		return;
	memcpy(e->go_version, s, (size_t)len);
	e->go_version[len] = '\0';
	/* A version with a NUL in it is not one we can use. */
	if (strlen(e->go_version) != len)
		e->go_version[0] = '\0';
}

/*
 * Decode the .go.buildinfo blob (Go src/debug/buildinfo/buildinfo.go,
 * readRawBuildInfo).  1.18+ stores the version inline after the 32-byte
 * header (flag 0x2); older releases store pointers to Go strings.
 */
static void gh_exe_parse_buildinfo(gh_exe *e, const unsigned char *p,
				   size_t len)
{
	unsigned ptrsz, flags;
	int big;

	if (len < GH_BUILDINFO_HDR ||
	    memcmp(p, gh_buildinfo_magic, sizeof(gh_buildinfo_magic)) != 0)
		return;
	ptrsz = p[14];
	flags = p[15];
	big = (flags & 1) != 0;
	if (flags & 2) {
		uint64_t vlen = 0;
		size_t n = gh_uvarint(p + GH_BUILDINFO_HDR, p + len, &vlen);

		if (n == 0 || !gh_in_bounds(GH_BUILDINFO_HDR + n, vlen, len))
			return;
		gh_set_version(e, p + GH_BUILDINFO_HDR + n, vlen);
	} else {
		const unsigned char *hdr, *s;
		uint64_t vptr, sptr, slen;

		if (ptrsz != 4 && ptrsz != 8)
			return;
		vptr = gh_load(p + 16, ptrsz, big);
		hdr = gh_exe_ptr(e, vptr, 2 * ptrsz);
		if (hdr == NULL)
			return;
		/* The string pointer may be relocated in a PIE. */
		if (gh_exe_read_word(e, vptr, &sptr) != 0)
			return;
		slen = gh_load(hdr + ptrsz, ptrsz, big);
		if (slen == 0 || slen >= sizeof(e->go_version))
			return;
		s = gh_exe_ptr(e, sptr, (size_t)slen);
		if (s != NULL)
			gh_set_version(e, s, slen);
	}
}

static void gh_exe_load_buildinfo(gh_exe *e)
{
	const gh_section *s = gh_exe_section(e, ".go.buildinfo");
	size_t i;

	if (s != NULL && s->data != NULL) {
		gh_exe_parse_buildinfo(e, s->data, (size_t)s->size);
		return;
	}
	/*
	 * Without the section, debug/buildinfo searches the first writable
	 * segment for the 16-byte aligned magic; do the same.
	 */
	for (i = 0; i < e->nloads; i++) {
		const gh_ptload *l = &e->loads[i];
		uint64_t off;

		if (!(l->flags & PF_W))
			continue;
		for (off = (GH_BUILDINFO_ALIGN - (l->vaddr % GH_BUILDINFO_ALIGN)) %
			   GH_BUILDINFO_ALIGN;
		     off + GH_BUILDINFO_HDR <= l->filesz;
		     off += GH_BUILDINFO_ALIGN) {
			const unsigned char *p = e->map + l->offset + off;

			if (memcmp(p, gh_buildinfo_magic,
				   sizeof(gh_buildinfo_magic)) == 0) {
				gh_exe_parse_buildinfo(e, p,
						       (size_t)(l->filesz - off));
				return;
			}
		}
		return;
	}
}

/* ---- open / close ---------------------------------------------------------- */

void gh_exe_close(gh_exe *e)
{
	if (e == NULL)
		return;
	if (e->elf != NULL)
		elf_end(e->elf);
	if (e->map != NULL && e->map != MAP_FAILED)
		munmap((void *)e->map, e->maplen);
	if (e->fd >= 0)
		close(e->fd);
	free(e->secs);
	free(e->loads);
	free(e->syms);
	free(e->symidx);
	free(e->relocs);
	free(e->gnu_build_id);
	free(e->go_build_id);
	free(e->path);
	free(e);
}

int gh_exe_open(gh_exe **out, const char *path, gh_err *err)
{
	gh_exe *e = NULL;
	struct stat st;
	GElf_Ehdr eh;
	int rc = 0, cls;
	void *m;

	*out = NULL;
	e = gh_calloc(1, sizeof(*e));
	if (e == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", path);
	e->fd = -1;
	e->path = gh_strdup(path);
	if (e->path == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		rc = gh_errf(err, errno == ENOENT ? GOHEAP_ENOEXE :
			     errno == EACCES ? GOHEAP_EPERM : GOHEAP_EIO,
			     "%s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(e->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = gh_errf(err, GOHEAP_EIO, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size < EI_NIDENT) {
		rc = gh_errf(err, GOHEAP_ENOTGO, "%s: not an ELF file", path);
		goto out;
	}
	e->maplen = (size_t)st.st_size;
	m = mmap(NULL, e->maplen, PROT_READ, MAP_PRIVATE, e->fd, 0);
	if (m == MAP_FAILED) {
		rc = gh_errf(err, GOHEAP_EIO, "%s: mmap: %s", path,
			     strerror(errno));
		goto out;
	}
	e->map = m;
	if (memcmp(e->map, ELFMAG, SELFMAG) != 0) {
		rc = gh_errf(err, GOHEAP_ENOTGO, "%s: not an ELF file", path);
		goto out;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		rc = gh_errf(err, GOHEAP_EIO, "%s: libelf: %s", path,
			     elf_errmsg(-1));
		goto out;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (e->elf == NULL || elf_kind(e->elf) != ELF_K_ELF ||
	    gelf_getehdr(e->elf, &eh) == NULL) {
		rc = gh_errf(err, GOHEAP_ENOTGO, "%s: not an ELF file (%s)",
			     path, elf_errmsg(-1));
		goto out;
	}
	cls = gelf_getclass(e->elf);
	if (cls != ELFCLASS32 && cls != ELFCLASS64) {
		rc = gh_errf(err, GOHEAP_ENOTGO, "%s: unknown ELF class", path);
		goto out;
	}
	if (e->map[EI_DATA] != ELFDATA2LSB && e->map[EI_DATA] != ELFDATA2MSB) {
		rc = gh_errf(err, GOHEAP_ENOTGO, "%s: unknown ELF byte order",
			     path);
		goto out;
	}
	e->ptr_size = cls == ELFCLASS64 ? 8 : 4;
	e->big = e->map[EI_DATA] == ELFDATA2MSB;
	e->machine = eh.e_machine;
	e->is_dyn = eh.e_type == ET_DYN;
	e->entry = eh.e_entry;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		rc = gh_errf(err, GOHEAP_ENOTGO,
			     "%s: not an executable (ELF type %u)", path,
			     (unsigned)eh.e_type);
		goto out;
	}
	rc = gh_exe_load_sections(e, err);
	if (rc == 0)
		rc = gh_exe_load_phdrs(e, err);
	if (rc == 0)
		rc = gh_exe_load_symtab(e, err);
	if (rc == 0)
		rc = gh_exe_load_relocs(e, err);
	if (rc == 0)
		rc = gh_exe_load_build_ids(e, err);
	if (rc != 0)
		goto out;
	gh_exe_load_buildinfo(e);
	*out = e;
	e = NULL;
out:
	gh_exe_close(e);
	return rc;
}

/* ---- accessors --------------------------------------------------------------- */

const char *gh_exe_path(const gh_exe *e)
{
	return e->path;
}

unsigned gh_exe_ptr_size(const gh_exe *e)
{
	return e->ptr_size;
}

int gh_exe_big_endian(const gh_exe *e)
{
	return e->big;
}

unsigned gh_exe_machine(const gh_exe *e)
{
	return e->machine;
}

int gh_exe_is_dyn(const gh_exe *e)
{
	return e->is_dyn;
}

uint64_t gh_exe_entry(const gh_exe *e)
{
	return e->entry;
}

const gh_section *gh_exe_section(const gh_exe *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nsecs; i++) {
		if (strcmp(e->secs[i].name, name) == 0)
			return &e->secs[i];
	}
	return NULL;
}

const gh_section *gh_exe_section_at(const gh_exe *e, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < e->nsecs; i++) {
		const gh_section *s = &e->secs[i];

		if (!(s->flags & SHF_ALLOC) || s->size == 0)
			continue;
		if (vaddr >= s->addr && vaddr - s->addr < s->size)
			return s;
	}
	return NULL;
}

int gh_exe_symbol(const gh_exe *e, const char *name, uint64_t *addr,
		  uint64_t *size)
{
	size_t lo;

	if (e->symidx == NULL)
		return GOHEAP_ENOSYM;
	lo = e->symidx[gh_esym_slot(e, name)];
	if (lo == UINT32_MAX)
		return GOHEAP_ENOSYM;
	if (addr != NULL)
		*addr = e->syms[lo].value;
	if (size != NULL)
		*size = e->syms[lo].size;
	return 0;
}

int gh_exe_has_symtab(const gh_exe *e)
{
	return e->has_symtab;
}

const unsigned char *gh_exe_ptr(const gh_exe *e, uint64_t vaddr, size_t len)
{
	size_t i;

	for (i = 0; i < e->nloads; i++) {
		const gh_ptload *l = &e->loads[i];

		if (vaddr < l->vaddr)
			continue;
		if (!gh_in_bounds(vaddr - l->vaddr, len, l->filesz))
			continue;
		return e->map + l->offset + (vaddr - l->vaddr);
	}
	return NULL;
}

int gh_exe_read_word(const gh_exe *e, uint64_t vaddr, uint64_t *out)
{
	const unsigned char *p;
	size_t lo = 0, hi = e->nrelocs, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->relocs[mid].offset < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < e->nrelocs && e->relocs[lo].offset == vaddr) {
		*out = e->relocs[lo].addend;
		return 0;
	}
	p = gh_exe_ptr(e, vaddr, e->ptr_size);
	if (p != NULL) {
		*out = gh_exe_load(e, p, e->ptr_size);
		return 0;
	}
	/* The zero-filled tail of a segment (.bss) reads as zero. */
	for (i = 0; i < e->nloads; i++) {
		const gh_ptload *l = &e->loads[i];

		if (vaddr >= l->vaddr &&
		    gh_in_bounds(vaddr - l->vaddr, e->ptr_size, l->memsz)) {
			*out = 0;
			return 0;
		}
	}
	return GOHEAP_EUNMAPPED;
}

uint64_t gh_exe_link_base(const gh_exe *e)
{
	uint64_t base = UINT64_MAX;
	size_t i;

	for (i = 0; i < e->nloads; i++) {
		if (e->loads[i].vaddr < base)
			base = e->loads[i].vaddr;
	}
	if (base == UINT64_MAX)
		return 0;
	return base & ~(uint64_t)0xfff;
}

const char *gh_exe_go_version(const gh_exe *e)
{
	return e->go_version;
}

const char *gh_exe_gnu_build_id(const gh_exe *e)
{
	return e->gnu_build_id;
}

const char *gh_exe_go_build_id(const gh_exe *e)
{
	return e->go_build_id;
}

/* ---- runtime/pprof's elfBuildID -------------------------------------------- */

static int gh_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX - n)
		return -1;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done,
				  (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/*
 * A line-by-line port of Go src/runtime/pprof/elf.go, elfBuildID, so that
 * the mapping BuildIDs match the ones pprof writes: only SHT_NOTE section
 * headers are consulted (not PT_NOTE), a 16-byte read must succeed for
 * every note header, and descriptors longer than 256 bytes are an error.
 */
void gh_file_gnu_build_id(const char *path, char *out, size_t outlen)
{
	unsigned char buf[256];
	int fd = -1, big, is64;
	uint64_t shoff, shentsize, shnum, i;

	if (outlen == 0)
		return;
	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (gh_pread_full(fd, buf, 64, 0) != 0)
		goto out;
	if (memcmp(buf, ELFMAG, SELFMAG) != 0)
		goto out;
	if (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB)
		goto out;
	big = buf[EI_DATA] == ELFDATA2MSB;
	if (buf[EI_CLASS] == ELFCLASS32) {
		is64 = 0;
		shoff = gh_load(buf + 32, 4, big);
		shentsize = gh_load(buf + 46, 2, big);
		shnum = gh_load(buf + 48, 2, big);
		if (shentsize != 40)
			goto out;
	} else if (buf[EI_CLASS] == ELFCLASS64) {
		is64 = 1;
		shoff = gh_load(buf + 40, 8, big);
		shentsize = gh_load(buf + 58, 2, big);
		shnum = gh_load(buf + 60, 2, big);
		if (shentsize != 64)
			goto out;
	} else {
		goto out;
	}
	for (i = 0; i < shnum; i++) {
		uint64_t off, size;

		if (shoff > UINT64_MAX - i * shentsize ||
		    gh_pread_full(fd, buf, (size_t)shentsize,
				  shoff + i * shentsize) != 0)
			goto out;
		if (gh_load(buf + 4, 4, big) != SHT_NOTE)
			continue;
		off = is64 ? gh_load(buf + 24, 8, big) : gh_load(buf + 16, 4, big);
		size = is64 ? gh_load(buf + 32, 8, big) : gh_load(buf + 20, 4, big);
		if (size > UINT64_MAX - off)
			goto out;
		size += off;
		while (off < size) {
			uint64_t namesz, descsz, type, descoff;

			if (gh_pread_full(fd, buf, 16, off) != 0)
				goto out;
			namesz = gh_load(buf, 4, big);
			descsz = gh_load(buf + 4, 4, big);
			type = gh_load(buf + 8, 4, big);
			descoff = off + 12 + ((namesz + 3) & ~3ull);
			off = descoff + ((descsz + 3) & ~3ull);
			if (namesz != 4 || type != GH_NT_GNU_BUILD_ID ||
			    memcmp(buf + 12, "GNU", 4) != 0)
				continue;
			if (descsz > sizeof(buf) ||
			    gh_pread_full(fd, buf, (size_t)descsz, descoff) != 0)
				goto out;
			if (2 * descsz + 1 <= outlen) {
				char *hex = gh_hex(buf, (size_t)descsz);

				if (hex != NULL) {
					memcpy(out, hex, 2 * descsz + 1);
					free(hex);
				}
			}
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
}

/* ---- the cheap test for "is this a Go program" ------------------------ */

GOHEAP_EXTERN int goheap_is_go_executable(const char *path)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	size_t shstrndx;
	Elf *elf;
	int fd, found = 0;

	if (path == NULL)
		return GOHEAP_EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? GOHEAP_ENOEXE :
		       errno == EACCES ? GOHEAP_EPERM : GOHEAP_EIO;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return GOHEAP_EIO;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL)
				break;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = name != NULL &&
				(strcmp(name, ".go.buildinfo") == 0 ||
				 strcmp(name, ".gopclntab") == 0);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

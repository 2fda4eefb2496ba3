/*
 * test_memsrc_core.c - the ELF core memory source against synthetic cores.
 *
 * Every core here is built in memory by core_build() from a small spec
 * (class, byte order, segments, NT_FILE entries, auxv, threads) and
 * written to a temporary directory: a 64-bit little-endian core like the
 * kernel's, 32- and 64-bit big-endian ones (the reader must not follow the
 * host), backing files for the NT_FILE fallback, and cores cut at every
 * length to check that truncation gives an error or unreadable ranges and
 * never a crash or zeros.  Segment bytes follow pat(addr), so a read is
 * checked against the address it claims to come from.
 */
#include "config.h"

#include <elf.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "memsrc.h"

/* ---- synthetic cores ---------------------------------------------------- */

typedef struct tseg {
	uint64_t vaddr, memsz;
	uint64_t filesz;            /* dumped bytes, <= memsz */
	uint32_t flags;
} tseg;

typedef struct tfile {
	uint64_t start, end, pgoff;
	const char *name;
} tfile;

typedef struct tspec {
	int is64, big;
	unsigned type;              /* ET_CORE unless testing */
	unsigned machine;
	const tseg *segs;
	size_t nsegs;
	const tfile *files;
	size_t nfiles;
	int cursig;
	unsigned nthreads;
	int have_entry;
	uint64_t entry;
	int have_execfn;
	uint64_t execfn;
	int have_vdso;
	uint64_t vdso;              /* AT_SYSINFO_EHDR */
	const char *str;            /* written into segment memory at str_addr */
	uint64_t str_addr;
	int xnum;                   /* use PN_XNUM extended numbering */
	int file_names_short;       /* hostile: one name missing */
	uint64_t file_count_bump;   /* hostile: count larger than entries */
} tspec;

static unsigned char pat(uint64_t addr)
{
	return (unsigned char)((addr * 131u) ^ (addr >> 9) ^ 0x5a);
}

static void put(unsigned char *p, uint64_t v, unsigned size, int big)
{
	unsigned i;

	for (i = 0; i < size; i++) {
		unsigned sh = big ? (size - 1 - i) * 8 : i * 8;

		p[i] = (unsigned char)(v >> sh);
	}
}

/* Append a zeroed area of n bytes and return its offset. */
static size_t grow(gh_buf *b, size_t n)
{
	size_t off = b->len;

	assert_int_equal(gh_buf_reserve(b, n), 0);
	memset(b->data + off, 0, n);
	b->len += n;
	return off;
}

static void note(gh_buf *b, const tspec *s, uint32_t type,
		 const unsigned char *desc, size_t dsz)
{
	size_t off = grow(b, 12 + 8 + ((dsz + 3) & ~(size_t)3));

	put(b->data + off, 5, 4, s->big);
	put(b->data + off + 4, dsz, 4, s->big);
	put(b->data + off + 8, type, 4, s->big);
	memcpy(b->data + off + 12, "CORE", 5);
	if (dsz > 0)
		memcpy(b->data + off + 20, desc, dsz);
}

static void build_notes(gh_buf *n, const tspec *s)
{
	unsigned w = s->is64 ? 8 : 4;
	unsigned char pr[336], aux[10 * 8];
	gh_buf f = GH_BUF_INIT;
	size_t i, a = 0, o;

	for (i = 0; i < s->nthreads; i++) {
		memset(pr, 0, sizeof(pr));
		if (i == 0)
			put(pr + 12, (uint64_t)s->cursig, 2, s->big);
		note(n, s, NT_PRSTATUS, pr, s->is64 ? 336 : 148);
	}
	memset(aux, 0, sizeof(aux));
	put(aux + a, AT_PAGESZ, w, s->big);
	put(aux + a + w, 4096, w, s->big);
	a += 2 * w;
	if (s->have_entry) {
		put(aux + a, AT_ENTRY, w, s->big);
		put(aux + a + w, s->entry, w, s->big);
		a += 2 * w;
	}
	if (s->have_execfn) {
		put(aux + a, AT_EXECFN, w, s->big);
		put(aux + a + w, s->execfn, w, s->big);
		a += 2 * w;
	}
	if (s->have_vdso) {
		put(aux + a, AT_SYSINFO_EHDR, w, s->big);
		put(aux + a + w, s->vdso, w, s->big);
		a += 2 * w;
	}
	a += 2 * w; /* AT_NULL */
	note(n, s, NT_AUXV, aux, a);
	if (s->nfiles == 0)
		return;
	o = grow(&f, 2 * w + s->nfiles * 3 * w);
	put(f.data + o, s->nfiles + s->file_count_bump, w, s->big);
	put(f.data + o + w, 4096, w, s->big);
	for (i = 0; i < s->nfiles; i++) {
		unsigned char *e = f.data + o + 2 * w + i * 3 * w;

		put(e, s->files[i].start, w, s->big);
		put(e + w, s->files[i].end, w, s->big);
		put(e + 2 * w, s->files[i].pgoff, w, s->big);
	}
	for (i = 0; i < s->nfiles; i++) {
		if (s->file_names_short && i == s->nfiles - 1)
			break;
		gh_buf_append(&f, s->files[i].name,
			      strlen(s->files[i].name) + 1);
	}
	note(n, s, NT_FILE, f.data, f.len);
	gh_buf_free(&f);
}

/* Build the core image of spec s into out (caller frees). */
static void core_build(gh_buf *out, const tspec *s)
{
	size_t ehsz = s->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsz = s->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t shsz = s->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	size_t nph = 1 + s->nsegs, phoff, noteoff, notelen, dataoff, i;
	size_t shoff = 0;
	gh_buf notes = GH_BUF_INIT;
	unsigned char *e;

	build_notes(&notes, s);
	grow(out, ehsz);
	phoff = grow(out, nph * phsz);
	if (s->xnum)
		shoff = grow(out, shsz);
	notelen = notes.len;
	noteoff = grow(out, notes.len);
	memcpy(out->data + noteoff, notes.data, notes.len);
	gh_buf_free(&notes);

	e = out->data;
	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = s->is64 ? ELFCLASS64 : ELFCLASS32;
	e[EI_DATA] = s->big ? ELFDATA2MSB : ELFDATA2LSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + 16, s->type ? s->type : ET_CORE, 2, s->big);
	put(e + 18, s->machine, 2, s->big);
	put(e + 20, EV_CURRENT, 4, s->big);
	if (s->is64) {
		put(e + offsetof(Elf64_Ehdr, e_phoff), phoff, 8, s->big);
		put(e + offsetof(Elf64_Ehdr, e_shoff), shoff, 8, s->big);
		put(e + offsetof(Elf64_Ehdr, e_ehsize), ehsz, 2, s->big);
		put(e + offsetof(Elf64_Ehdr, e_phentsize), phsz, 2, s->big);
		put(e + offsetof(Elf64_Ehdr, e_phnum),
		    s->xnum ? PN_XNUM : nph, 2, s->big);
		put(e + offsetof(Elf64_Ehdr, e_shentsize), shsz, 2, s->big);
		put(e + offsetof(Elf64_Ehdr, e_shnum), s->xnum, 2, s->big);
	} else {
		put(e + offsetof(Elf32_Ehdr, e_phoff), phoff, 4, s->big);
		put(e + offsetof(Elf32_Ehdr, e_shoff), shoff, 4, s->big);
		put(e + offsetof(Elf32_Ehdr, e_ehsize), ehsz, 2, s->big);
		put(e + offsetof(Elf32_Ehdr, e_phentsize), phsz, 2, s->big);
		put(e + offsetof(Elf32_Ehdr, e_phnum),
		    s->xnum ? PN_XNUM : nph, 2, s->big);
		put(e + offsetof(Elf32_Ehdr, e_shentsize), shsz, 2, s->big);
		put(e + offsetof(Elf32_Ehdr, e_shnum), s->xnum, 2, s->big);
	}
	if (s->xnum) {
		unsigned char *sh = out->data + shoff;

		if (s->is64)
			put(sh + offsetof(Elf64_Shdr, sh_info), nph, 4, s->big);
		else
			put(sh + offsetof(Elf32_Shdr, sh_info), nph, 4, s->big);
	}

	dataoff = out->len;
	for (i = 0; i <= s->nsegs; i++) {
		unsigned char *p = out->data + phoff + i * phsz;
		uint64_t type = i == 0 ? PT_NOTE : PT_LOAD;
		uint64_t off = i == 0 ? noteoff : dataoff;
		uint64_t va = i == 0 ? 0 : s->segs[i - 1].vaddr;
		uint64_t fsz = i == 0 ? notelen : s->segs[i - 1].filesz;
		uint64_t msz = i == 0 ? 0 : s->segs[i - 1].memsz;
		uint64_t fl = i == 0 ? PF_R : s->segs[i - 1].flags;

		if (s->is64) {
			put(p + offsetof(Elf64_Phdr, p_type), type, 4, s->big);
			put(p + offsetof(Elf64_Phdr, p_flags), fl, 4, s->big);
			put(p + offsetof(Elf64_Phdr, p_offset), off, 8, s->big);
			put(p + offsetof(Elf64_Phdr, p_vaddr), va, 8, s->big);
			put(p + offsetof(Elf64_Phdr, p_filesz), fsz, 8, s->big);
			put(p + offsetof(Elf64_Phdr, p_memsz), msz, 8, s->big);
			put(p + offsetof(Elf64_Phdr, p_align), 4, 8, s->big);
		} else {
			put(p + offsetof(Elf32_Phdr, p_type), type, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_flags), fl, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_offset), off, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_vaddr), va, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_filesz), fsz, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_memsz), msz, 4, s->big);
			put(p + offsetof(Elf32_Phdr, p_align), 4, 4, s->big);
		}
		if (i > 0)
			dataoff += s->segs[i - 1].filesz;
	}
	for (i = 0; i < s->nsegs; i++) {
		uint64_t k;
		size_t o = grow(out, (size_t)s->segs[i].filesz);

		for (k = 0; k < s->segs[i].filesz; k++)
			out->data[o + k] = pat(s->segs[i].vaddr + k);
		if (s->str != NULL && s->str_addr >= s->segs[i].vaddr &&
		    s->str_addr - s->segs[i].vaddr + strlen(s->str) <
		    s->segs[i].filesz)
			memcpy(out->data + o + (s->str_addr - s->segs[i].vaddr),
			       s->str, strlen(s->str) + 1);
	}
	assert_false(out->oom);
}

/* ---- fixture ----------------------------------------------------------- */

typedef struct tstate {
	char dir[64];
	char path[128];
	gh_err err;
	void *ctx;
} tstate;

static int setup(void **state)
{
	tstate *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_memsrc_core.XXXXXX");
	if (mkdtemp(t->dir) == NULL) {
		free(t);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s/core", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	tstate *t = *state;
	char cmd[128];

	gh_core_ops.close(t->ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (n > 0)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Write the core of spec s and open it; the source is closed in teardown. */
static int open_spec(tstate *t, const tspec *s, const char *sysroot)
{
	gh_buf b = GH_BUF_INIT;

	core_build(&b, s);
	write_file(t->path, b.data, b.len);
	gh_buf_free(&b);
	gh_core_ops.close(t->ctx);
	t->ctx = NULL;
	memset(&t->err, 0, sizeof(t->err));
	return gh_core_new(&t->ctx, t->path, sysroot, &t->err);
}

static void expect_pat(tstate *t, uint64_t addr, size_t len)
{
	unsigned char buf[256];
	size_t i;

	assert_true(len <= sizeof(buf));
	assert_int_equal(gh_core_ops.read(t->ctx, addr, buf, len), 0);
	for (i = 0; i < len; i++)
		assert_int_equal(buf[i], pat(addr + i));
}

static void expect_unmapped(tstate *t, uint64_t addr, size_t len)
{
	unsigned char buf[256];

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(gh_core_ops.read(t->ctx, addr, buf, len),
			 GOHEAP_EUNMAPPED);
}

/* ---- mappings collector ------------------------------------------------ */

typedef struct mlist {
	unsigned n;
	goheap_mapping m[16];
	char path[16][128], open[16][160];
} mlist;

static int collect(const goheap_mapping *m, void *payload)
{
	mlist *l = payload;

	if (l->n >= 16)
		return 1;
	l->m[l->n] = *m;
	snprintf(l->path[l->n], sizeof(l->path[0]), "%s", m->path);
	snprintf(l->open[l->n], sizeof(l->open[0]), "%s",
		 m->open_path != NULL ? m->open_path : "(null)");
	l->n++;
	return 0;
}

/* ---- a kernel-like 64-bit LE core --------------------------------------- */

/*
 * 0x400000 text (r-x, first page dumped: the ELF header rule)
 * 0x410000 data (rw-, dumped)           adjacent: 0x411000 bss (rw-, dumped)
 * 0x500000 heap (rw-, not dumped at all)
 * 0xc000000000 arena (rw-, half dumped)
 */
static const tseg k_segs[] = {
	{ 0x400000, 0x10000, 0x1000, PF_R | PF_X },
	{ 0x410000, 0x1000, 0x1000, PF_R | PF_W },
	{ 0x411000, 0x2000, 0x2000, PF_R | PF_W },
	{ 0x500000, 0x1000, 0, PF_R | PF_W },
	{ 0xc000000000ULL, 0x4000, 0x2000, PF_R | PF_W },
};
static const tfile k_files[] = {
	{ 0x400000, 0x410000, 0, "/usr/bin/prog" },
	{ 0x410000, 0x411000, 0x10, "/usr/bin/prog" },
};

static tspec kernel_spec(int is64, int big)
{
	tspec s;

	memset(&s, 0, sizeof(s));
	s.is64 = is64;
	s.big = big;
	s.machine = is64 ? (big ? EM_PPC64 : EM_X86_64) : (big ? EM_PPC : EM_386);
	s.segs = k_segs;
	s.nsegs = GH_ARRAY_LEN(k_segs) - (is64 ? 0 : 1);
	s.files = k_files;
	s.nfiles = GH_ARRAY_LEN(k_files);
	s.cursig = 6;
	s.nthreads = 3;
	s.have_entry = 1;
	s.entry = 0x401234;
	return s;
}

static void check_kernel_like(tstate *t, int is64, int big)
{
	tspec s = kernel_spec(is64, big);
	goheap_target_info ti;
	char buf[512];
	mlist l;

	assert_int_equal(open_spec(t, &s, NULL), 0);
	assert_int_equal(gh_core_ops.target_info(t->ctx, &ti), 0);
	assert_int_equal(ti.ptr_size, is64 ? 8 : 4);
	assert_int_equal(ti.big_endian, big);
	assert_int_equal(ti.machine, s.machine);

	/* Within a segment, at its edges, and spanning two adjacent ones. */
	expect_pat(t, 0x400000, 64);
	expect_pat(t, 0x400fc0, 64);
	expect_pat(t, 0x410000, 16);
	expect_pat(t, 0x410ff0, 32);
	expect_pat(t, 0x412f00, 256);
	/* Not dumped: the text past its first page (file is absent). */
	expect_unmapped(t, 0x401000, 8);
	expect_unmapped(t, 0x400ff8, 16);
	/* Not dumped at all, writable: never from anywhere. */
	expect_unmapped(t, 0x500000, 8);
	/* Gaps, the end of the last segment, wrap-around. */
	expect_unmapped(t, 0x413000, 1);
	expect_unmapped(t, 0x3fffff, 2);
	expect_unmapped(t, 0xffffffffffffff00ULL, 0x100);
	if (is64) {
		expect_pat(t, 0xc000001f00ULL, 256);
		expect_unmapped(t, 0xc000001f00ULL, 0x101);
		expect_unmapped(t, 0xc000003000ULL, 8);
	}

	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/usr/bin/prog");
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, 5), GOHEAP_EINVAL);

	assert_int_equal(gh_core_ops.describe(t->ctx, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "core file "));
	assert_non_null(strstr(buf, "(signal 6, threads: 3, dumped "));
	assert_null(strstr(buf, "truncated"));

	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_int_equal(l.n, s.nsegs);
	assert_int_equal(l.m[0].start, 0x400000);
	assert_int_equal(l.m[0].end, 0x410000);
	assert_string_equal(l.m[0].perms, "r-xp");
	assert_string_equal(l.path[0], "/usr/bin/prog");
	assert_string_equal(l.open[0], "/usr/bin/prog");
	assert_int_equal(l.m[0].offset, 0);
	assert_int_equal(l.m[0].inode, 0);
	assert_string_equal(l.m[1].perms, "rw-p");
	assert_int_equal(l.m[1].offset, 0x10000);
	assert_string_equal(l.path[1], "/usr/bin/prog");
	assert_string_equal(l.path[2], "");
	assert_string_equal(l.open[2], "(null)");
	assert_int_equal(l.m[3].start, 0x500000);
}

static void test_le64(void **state)
{
	check_kernel_like(*state, 1, 0);
}

static void test_be64(void **state)
{
	check_kernel_like(*state, 1, 1);
}

static void test_be32(void **state)
{
	check_kernel_like(*state, 0, 1);
}

static void test_le32(void **state)
{
	check_kernel_like(*state, 0, 0);
}

/* PN_XNUM: the phdr count lives in section header 0. */
static void test_xnum(void **state)
{
	tstate *t = *state;
	tspec s = kernel_spec(1, 0);

	s.xnum = 1;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	expect_pat(t, 0x410ff0, 32);
	s = kernel_spec(0, 1);
	s.xnum = 1;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	expect_pat(t, 0x410ff0, 32);
}

/* The kernel's layout of elf_prstatus, checked against the host's. */
static void test_prstatus_layout(void **state)
{
	(void)state;
	assert_int_equal(offsetof(struct elf_prstatus, pr_cursig), 12);
}

/* ---- backing files ------------------------------------------------------ */

static void make_backing(const char *path, uint64_t base, size_t n)
{
	unsigned char *p = malloc(n);
	size_t i;

	assert_non_null(p);
	/* File offset k holds what address base+k holds in the process. */
	for (i = 0; i < n; i++)
		p[i] = pat(base + i);
	write_file(path, p, n);
	free(p);
}

static void test_backing_file(void **state)
{
	tstate *t = *state;
	static const tseg segs[] = {
		{ 0x400000, 0x4000, 0x1000, PF_R | PF_X },   /* header page */
		{ 0x404000, 0x2000, 0, PF_R | PF_W },        /* rw, not dumped */
		/* 0x406000-0x408000: no segment at all (gcore drops it) */
		{ 0x408000, 0x1000, 0x1000, PF_R | PF_W },
	};
	tfile files[] = {
		{ 0x400000, 0x404000, 0, NULL },
		{ 0x404000, 0x406000, 4, NULL },
		{ 0x406000, 0x407000, 6, NULL },
		{ 0x407000, 0x408000, 7, NULL },
	};
	char root[96], bin[160], exe[256], want[256];
	tspec s;
	mlist l;

	snprintf(root, sizeof(root), "%s/root", t->dir);
	snprintf(bin, sizeof(bin), "%s/bin", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(bin, 0755), 0);
	snprintf(exe, sizeof(exe), "%s/prog", bin);
	make_backing(exe, 0x400000, 0x8000);
	files[0].name = files[1].name = "/bin/prog";
	files[2].name = files[3].name = "/bin/prog";

	memset(&s, 0, sizeof(s));
	s.is64 = 1;
	s.machine = EM_AARCH64;
	s.segs = segs;
	s.nsegs = GH_ARRAY_LEN(segs);
	s.files = files;
	s.nfiles = GH_ARRAY_LEN(files);
	s.nthreads = 1;
	s.have_entry = 1;
	s.entry = 0x400100;

	/* Without the sysroot the recorded path does not exist. */
	assert_int_equal(open_spec(t, &s, NULL), 0);
	expect_pat(t, 0x400000, 16);
	expect_unmapped(t, 0x401000, 16);

	assert_int_equal(open_spec(t, &s, root), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, want, sizeof(want)),
			 0);
	assert_string_equal(want, exe);
	/* Read-only segment past the dumped page: from the file. */
	expect_pat(t, 0x401000, 256);
	expect_pat(t, 0x400f80, 256);  /* core, then file, in one read */
	expect_pat(t, 0x403f80, 128);
	/* Writable and not dumped: never from the file. */
	expect_unmapped(t, 0x404000, 8);
	/* No segment, NT_FILE covers it: from the file. */
	expect_pat(t, 0x406000, 256);
	expect_pat(t, 0x406f80, 256);  /* two NT_FILE entries */
	/* Across the file-backed gap into a dumped segment. */
	expect_pat(t, 0x407f80, 256);
	/* A file shorter than its mapping: its tail is not readable. */
	make_backing(exe, 0x400000, 0x7800);
	assert_int_equal(open_spec(t, &s, root), 0);
	expect_pat(t, 0x4077f0, 16);
	expect_unmapped(t, 0x4077f0, 17);
	expect_unmapped(t, 0x407f80, 256);

	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.m[2].start, 0x406000);
	assert_int_equal(l.m[2].end, 0x407000);
	assert_int_equal(l.m[2].offset, 0x6000);
	assert_string_equal(l.m[2].perms, "r--p");
	assert_string_equal(l.path[2], "/bin/prog");
	assert_string_equal(l.open[2], exe);
	assert_int_equal(l.m[3].start, 0x407000);
	assert_int_equal(l.m[3].offset, 0x7000);
	assert_int_equal(l.m[1].offset, 0x4000);
	assert_string_equal(l.m[1].perms, "rw-p");
	assert_string_equal(l.path[4], "");

	/* A trailing slash on the sysroot and a deleted file's suffix. */
	files[0].name = files[1].name = "/bin/prog (deleted)";
	files[2].name = files[3].name = "/bin/prog (deleted)";
	snprintf(bin, sizeof(bin), "%s/", root);
	assert_int_equal(open_spec(t, &s, bin), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, want, sizeof(want)),
			 0);
	assert_string_equal(want, exe);
	expect_pat(t, 0x401000, 64);
}

/* No NT_FILE (qemu-user): the executable from AT_EXECFN on the stack. */
static void test_execfn(void **state)
{
	tstate *t = *state;
	static const tseg segs[] = {
		{ 0x10000, 0x1000, 0x1000, PF_R | PF_W },
	};
	char buf[256], want[256];
	tspec s;
	unsigned char c;
	int i;

	memset(&s, 0, sizeof(s));
	s.is64 = 1;
	s.machine = EM_AARCH64;
	s.segs = segs;
	s.nsegs = 1;
	s.nthreads = 2;
	s.cursig = 11;
	/* Find a NUL in the pattern, so the "string" ends inside. */
	for (i = 0; i < 0x1000 && pat(0x10000 + i) != 0; i++)
		;
	assert_true(i < 0x1000);
	s.have_execfn = 1;
	s.execfn = 0x10000 + i - 3;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)), 0);
	c = pat(s.execfn);
	if (c == '/') {
		assert_int_equal(buf[0], '/');
	} else {
		snprintf(want, sizeof(want), "%s/", t->dir);
		assert_memory_equal(buf, want, strlen(want));
		assert_int_equal(strlen(buf), strlen(want) + 3);
	}
	assert_int_equal(gh_core_ops.describe(t->ctx, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "signal 11, threads: 2"));

	/* Pointing at unmapped memory: unknown. */
	s.execfn = 0x20000;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)),
			 GOHEAP_ENOEXE);
	s.have_execfn = 0;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)),
			 GOHEAP_ENOEXE);
	assert_int_equal(gh_core_ops.describe(t->ctx, buf, sizeof(buf)), 0);
}

/* [vdso] from AT_SYSINFO_EHDR, [vsyscall] at its fixed x86-64 address. */
static void test_special_mappings(void **state)
{
	tstate *t = *state;
	static const tseg segs[] = {
		{ 0x400000, 0x1000, 0x1000, PF_R | PF_X },
		{ 0x7fff0000ULL, 0x2000, 0x2000, PF_R | PF_X },
		{ 0xffffffffff600000ULL, 0x1000, 0x1000, PF_X },
	};
	tspec s;
	mlist l;

	memset(&s, 0, sizeof(s));
	s.is64 = 1;
	s.machine = EM_X86_64;
	s.segs = segs;
	s.nsegs = GH_ARRAY_LEN(segs);
	s.nthreads = 1;
	s.have_vdso = 1;
	s.vdso = 0x7fff0000ULL;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.path[0], "");
	assert_string_equal(l.path[1], "[vdso]");
	assert_string_equal(l.path[2], "[vsyscall]");
	assert_string_equal(l.m[2].perms, "--xp");
	assert_string_equal(l.open[1], "(null)");

	/* Not x86-64: no vsyscall page. */
	s.machine = EM_AARCH64;
	s.have_vdso = 0;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_string_equal(l.path[1], "");
	assert_string_equal(l.path[2], "");
}

/* A minimal ELF executable: one r-x PT_LOAD at 0x10000, one rw- at 0x22100. */
static void make_exe(const char *path, int big, unsigned machine)
{
	unsigned char f[0x3000];
	unsigned char *e = f, *p;
	size_t i;

	for (i = 0; i < sizeof(f); i++)
		f[i] = pat(0x10000 + i);
	memset(f, 0, sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr));
	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = ELFCLASS64;
	e[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + offsetof(Elf64_Ehdr, e_type), ET_EXEC, 2, big);
	put(e + offsetof(Elf64_Ehdr, e_machine), machine, 2, big);
	put(e + offsetof(Elf64_Ehdr, e_entry), 0x10800, 8, big);
	put(e + offsetof(Elf64_Ehdr, e_phoff), sizeof(Elf64_Ehdr), 8, big);
	put(e + offsetof(Elf64_Ehdr, e_phentsize), sizeof(Elf64_Phdr), 2,
	    big);
	put(e + offsetof(Elf64_Ehdr, e_phnum), 2, 2, big);
	for (i = 0; i < 2; i++) {
		p = f + sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr);
		put(p + offsetof(Elf64_Phdr, p_type), PT_LOAD, 4, big);
		put(p + offsetof(Elf64_Phdr, p_flags),
		    i == 0 ? PF_R | PF_X : PF_R | PF_W, 4, big);
		/* The second one is not page aligned, as in most libraries. */
		put(p + offsetof(Elf64_Phdr, p_offset), i * 0x2100, 8, big);
		put(p + offsetof(Elf64_Phdr, p_vaddr), 0x10000 + i * 0x12100,
		    8, big);
		put(p + offsetof(Elf64_Phdr, p_filesz), i == 0 ? 0x2000 : 0x700,
		    8, big);
		put(p + offsetof(Elf64_Phdr, p_memsz), i == 0 ? 0x2000 : 0x4000,
		    8, big);
	}
	write_file(path, f, sizeof(f));
}

/*
 * No NT_FILE (qemu-user): AT_EXECFN names the executable, relative to the
 * core's directory; its PT_LOADs name the mappings and back the undumped
 * text.
 */
static void test_synth_exe(void **state)
{
	tstate *t = *state;
	static const tseg segs[] = {
		{ 0x10000, 0x2000, 0, PF_R | PF_X },     /* text, not dumped */
		{ 0x22000, 0x4000, 0x4000, PF_R | PF_W },/* data + bss */
		{ 0x7f000000, 0x1000, 0x1000, PF_R | PF_W }, /* stack */
	};
	char exe[160], want[PATH_MAX], buf[PATH_MAX];
	tspec s;
	mlist l;

	snprintf(exe, sizeof(exe), "%s/prog", t->dir);
	make_exe(exe, 1, EM_AARCH64);
	memset(&s, 0, sizeof(s));
	s.is64 = 1;
	s.big = 1;
	s.machine = EM_AARCH64;
	s.segs = segs;
	s.nsegs = GH_ARRAY_LEN(segs);
	s.nthreads = 1;
	s.have_entry = 1;
	s.entry = 0x10800;
	s.have_execfn = 1;
	s.execfn = 0x7f000100;
	s.str = "./sub/../prog";
	s.str_addr = s.execfn;
	snprintf(want, sizeof(want), "%s/sub", t->dir);
	assert_int_equal(mkdir(want, 0755), 0);
	assert_non_null(realpath(exe, want));

	assert_int_equal(open_spec(t, &s, NULL), 0);
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	expect_pat(t, 0x10f00, 256);   /* text, from the file */
	expect_pat(t, 0x22000, 64);    /* data, from the core */
	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.path[0], want);
	assert_string_equal(l.m[0].perms, "r-xp");
	assert_int_equal(l.m[0].offset, 0);
	assert_string_equal(l.path[1], "");  /* 0x22000-0x26000 is not */
	assert_string_equal(l.path[2], "");  /* all file-backed */

	/* An executable of another machine is not used. */
	make_exe(exe, 1, EM_PPC64);
	assert_int_equal(open_spec(t, &s, NULL), 0);
	expect_unmapped(t, 0x10f00, 16);
	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_string_equal(l.path[0], "");
}

/*
 * gcore drops unmodified file mappings that do not start with an ELF
 * header: their permissions come from the backing file's PT_LOADs.
 */
static void test_gap_perms(void **state)
{
	tstate *t = *state;
	static const tseg segs[] = {
		{ 0x7f000000, 0x1000, 0x1000, PF_R | PF_W },
	};
	tfile files[] = {
		{ 0x10000, 0x11000, 0, NULL },  /* in the r-x PT_LOAD */
		{ 0x22000, 0x23000, 2, NULL },  /* in the rw- PT_LOAD */
	};
	char exe[160], buf[256];
	tspec s;
	mlist l;

	snprintf(exe, sizeof(exe), "%s/prog", t->dir);
	make_exe(exe, 0, EM_X86_64);
	files[0].name = files[1].name = exe;
	memset(&s, 0, sizeof(s));
	s.is64 = 1;
	s.machine = EM_X86_64;
	s.segs = segs;
	s.nsegs = 1;
	s.files = files;
	s.nfiles = 2;
	s.nthreads = 1;
	assert_int_equal(open_spec(t, &s, NULL), 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(gh_core_ops.mappings(t->ctx, collect, &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.m[0].perms, "r-xp");
	assert_string_equal(l.m[1].perms, "rw-p");
	assert_int_equal(l.m[1].offset, 0x2000);
	assert_string_equal(l.path[2], "");
	/* Its bytes come from the file. */
	expect_pat(t, 0x10100, 64);
	/* Without AT_ENTRY the executable is the entry at file offset 0. */
	assert_int_equal(gh_core_ops.executable(t->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, exe);
}

/* ---- errors ------------------------------------------------------------- */

static void expect_open_error(tstate *t, const void *p, size_t n, int code,
			      const char *msg)
{
	write_file(t->path, p, n);
	gh_core_ops.close(t->ctx);
	t->ctx = NULL;
	assert_int_equal(gh_core_new(&t->ctx, t->path, NULL, &t->err), code);
	assert_null(t->ctx);
	if (strstr(t->err.msg, msg) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", t->err.msg, msg);
}

static void test_not_core(void **state)
{
	tstate *t = *state;
	tspec s = kernel_spec(1, 0);
	gh_buf b = GH_BUF_INIT;

	expect_open_error(t, "", 0, GOHEAP_EINVAL, "is not an ELF file");
	expect_open_error(t, "#!/bin/sh\necho hi\n", 18, GOHEAP_EINVAL,
			  "is not an ELF file");
	s.type = ET_EXEC;
	core_build(&b, &s);
	expect_open_error(t, b.data, b.len, GOHEAP_EINVAL,
			  "is not a core file (ELF type EXEC)");
	b.data[16] = ET_DYN;
	expect_open_error(t, b.data, b.len, GOHEAP_EINVAL, "(ELF type DYN)");
	b.data[EI_CLASS] = 7;
	expect_open_error(t, b.data, b.len, GOHEAP_ECORRUPT,
			  "unknown ELF class");
	gh_buf_free(&b);

	gh_core_ops.close(t->ctx);
	t->ctx = NULL;
	assert_int_equal(gh_core_new(&t->ctx, "/nonexistent/core", NULL,
				     &t->err), GOHEAP_EIO);
	assert_non_null(strstr(t->err.msg, "cannot open core file"));
	assert_int_equal(gh_core_new(&t->ctx, t->dir, NULL, &t->err),
			 GOHEAP_EINVAL);
	assert_non_null(strstr(t->err.msg, "not a regular file"));
}

static void test_hostile_notes(void **state)
{
	tstate *t = *state;
	tspec s = kernel_spec(1, 0);
	static const tseg over[] = {
		{ 0x1000, 0x2000, 0, PF_R },
		{ 0x2000, 0x1000, 0, PF_R },
	};

	s.file_names_short = 1;
	assert_int_equal(open_spec(t, &s, NULL), GOHEAP_ECORRUPT);
	assert_non_null(strstr(t->err.msg, "fewer names"));
	s = kernel_spec(1, 0);
	s.file_count_bump = 1000000;
	assert_int_equal(open_spec(t, &s, NULL), GOHEAP_ECORRUPT);
	assert_non_null(strstr(t->err.msg, "NT_FILE note claims"));
	s = kernel_spec(1, 0);
	s.segs = over;
	s.nsegs = 2;
	assert_int_equal(open_spec(t, &s, NULL), GOHEAP_ECORRUPT);
	assert_non_null(strstr(t->err.msg, "overlap"));
}

/*
 * Cut a core at every length: below the headers and notes it must fail
 * with a message; above, it opens, reads of dumped bytes that survived
 * are exact and the rest is unmapped, and describe says "truncated".
 */
static void check_truncations(tstate *t, int is64, int big)
{
	tspec s = kernel_spec(is64, big);
	gh_buf b = GH_BUF_INIT;
	size_t cut, headers = 0, ok = 0, failed = 0;
	char buf[512];

	core_build(&b, &s);
	for (cut = 0; cut < b.len; cut += cut < 4096 ? 1 : 61) {
		int rc;
		size_t i;

		write_file(t->path, b.data, cut);
		gh_core_ops.close(t->ctx);
		t->ctx = NULL;
		memset(&t->err, 0, sizeof(t->err));
		rc = gh_core_new(&t->ctx, t->path, NULL, &t->err);
		if (rc != 0) {
			assert_null(t->ctx);
			assert_true(t->err.msg[0] != '\0');
			if (strstr(t->err.msg, "truncated") == NULL &&
			    strstr(t->err.msg, "not an ELF file") == NULL)
				fail_msg("cut %zu: \"%s\"", cut, t->err.msg);
			assert_int_equal(ok, 0); /* errors only below */
			failed++;
			headers = cut + 1;
			continue;
		}
		ok++;
		assert_int_equal(gh_core_ops.describe(t->ctx, buf, sizeof(buf)),
				 0);
		assert_non_null(strstr(buf, "truncated"));
		for (i = 0; i < s.nsegs; i++) {
			unsigned char rb[64];
			uint64_t a = s.segs[i].vaddr;
			int r = gh_core_ops.read(t->ctx, a, rb, sizeof(rb));
			size_t k;

			if (r == 0) {
				for (k = 0; k < sizeof(rb); k++)
					assert_int_equal(rb[k], pat(a + k));
			} else {
				assert_int_equal(r, GOHEAP_EUNMAPPED);
			}
		}
	}
	assert_true(failed > 100);
	assert_true(ok > 10);
	assert_true(headers > 0);
	gh_buf_free(&b);
}

static void test_truncated_le64(void **state)
{
	check_truncations(*state, 1, 0);
}

static void test_truncated_be32(void **state)
{
	check_truncations(*state, 0, 1);
}

/* Flip bytes of the headers and notes: errors or success, no crash. */
static void test_fuzz_headers(void **state)
{
	tstate *t = *state;
	tspec s = kernel_spec(1, 0);
	gh_buf b = GH_BUF_INIT;
	unsigned seed = 12345, iter;
	size_t hdr;

	core_build(&b, &s);
	hdr = b.len - 0x1000 - 0x1000 - 0x2000 - 0x2000;
	for (iter = 0; iter < 2000; iter++) {
		unsigned char *copy = malloc(b.len);
		unsigned nflip = 1 + iter % 4, k;
		int rc;

		assert_non_null(copy);
		memcpy(copy, b.data, b.len);
		for (k = 0; k < nflip; k++) {
			seed = seed * 1103515245u + 12345u;
			/* Keep the magic so that parsing gets further. */
			copy[SELFMAG + (seed >> 8) % (hdr - SELFMAG)] =
				(unsigned char)(seed >> 20);
		}
		write_file(t->path, copy, b.len);
		free(copy);
		gh_core_ops.close(t->ctx);
		t->ctx = NULL;
		rc = gh_core_new(&t->ctx, t->path, NULL, &t->err);
		if (rc == 0) {
			unsigned char rb[32];
			char d[512];
			mlist l;

			memset(&l, 0, sizeof(l));
			(void)gh_core_ops.read(t->ctx, 0x410ff0, rb, sizeof(rb));
			(void)gh_core_ops.read(t->ctx, 0x401000, rb, sizeof(rb));
			(void)gh_core_ops.mappings(t->ctx, collect, &l);
			(void)gh_core_ops.executable(t->ctx, d, sizeof(d));
			(void)gh_core_ops.describe(t->ctx, d, sizeof(d));
		} else {
			assert_true(t->err.msg[0] != '\0');
		}
	}
	gh_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest layout[] = {
		cmocka_unit_test(test_prstatus_layout),
		cmocka_unit_test_setup_teardown(test_le64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_be64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_be32, setup, teardown),
		cmocka_unit_test_setup_teardown(test_le32, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xnum, setup, teardown),
	};
	const struct CMUnitTest files[] = {
		cmocka_unit_test_setup_teardown(test_backing_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_execfn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_mappings, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_synth_exe, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gap_perms, setup,
						teardown),
	};
	const struct CMUnitTest hostile[] = {
		cmocka_unit_test_setup_teardown(test_not_core, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_notes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated_le64, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated_be32, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fuzz_headers, setup,
						teardown),
	};
	int rc = 0;

	rc |= cmocka_run_group_tests_name("core layout", layout, NULL, NULL);
	rc |= cmocka_run_group_tests_name("core backing files", files, NULL,
					  NULL);
	rc |= cmocka_run_group_tests_name("core hostile", hostile, NULL, NULL);
	return rc != 0;
}

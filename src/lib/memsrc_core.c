/*
 * memsrc_core.c - memory source for an ELF core file (post-mortem).
 *
 * The core is mmap'ed read-only and never copied: a read touches only the
 * pages it needs, so a multi-GiB core costs what the walker reads (a few
 * MiB of buckets), not its size.  At open we decode the ELF header, the
 * program headers and the notes, eagerly and with every offset and size
 * checked against the file size; after that a read is a binary search over
 * the PT_LOAD segments (sorted by address) and a memcpy.
 *
 * Addresses that the producer did not dump are unreadable, never zeros:
 * the kernel writes p_filesz < p_memsz (often 0) for mappings excluded by
 * coredump_filter, and a truncated core lacks the tail of its segments.
 * Like libunwind's _UCD backing files, we serve those bytes from the mapped
 * file instead, but only where that is provably the same data: the range
 * lies in a non-writable segment (or in no segment: gdb's gcore drops some
 * unmodified file mappings entirely) and an NT_FILE entry names the file
 * and the offset.  Writable mappings are never served from the file, since
 * the process may have changed them (Go's .data and .noptrdata always are).
 * The files are opened lazily, under --sysroot when given, and their
 * descriptors cached for the life of the source.
 *
 * Headers and notes are decoded by hand rather than with libelf.  We need
 * four things from a core (Ehdr, Phdrs, a handful of note types whose
 * descriptors libelf would not decode anyway: NT_FILE, NT_AUXV,
 * NT_PRSTATUS, NT_SIGINFO), in either byte order and class regardless of
 * the host's, and we want errors that say exactly what is wrong
 * ("truncated: its 29 program headers end at byte 1688 but the file has
 * 100").  libelf reports a cut or inconsistent file through one generic
 * elf_errmsg() string, and would have us go through its converted copies
 * instead of the mapping.  Field offsets come from <elf.h>'s structs via
 * offsetof, so there are no magic numbers; values are decoded with gh_load
 * in the core's byte order.
 *
 * The main executable is the NT_FILE entry that contains AT_ENTRY from
 * NT_AUXV (the kernel's and gdb's notes both have it; for a PIE it is the
 * biased address, which is what NT_FILE records too), else the one that
 * contains AT_PHDR, else the first entry at file offset 0.  qemu-user's
 * cores carry no NT_FILE at all: there the AT_EXECFN string names the
 * executable, and its program headers stand in for NT_FILE (see
 * synth_exe_files).  The mappings op is /proc/PID/maps rebuilt from the
 * segments' flags and NT_FILE's names and offsets, plus [vdso] and
 * [vsyscall], which runtime/pprof lists and which no note names.
 *
 * Rejected: pread'ing the core instead of mmap (one system call per read,
 * and a large core's page cache is shared anyway); copying segments into
 * memory at open (costs the core's size).  One hazard of mmap remains: a
 * core truncated by someone else *while* we read it turns a read into
 * SIGBUS.  Cores are not rewritten in place in practice.
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

#include "memsrc.h"

/* Decode member `m` of ELF struct type `T` at p, in byte order `big`. */
#define ELF_FIELD(big, p, T, m) \
	gh_load((p) + offsetof(T, m), sizeof(((T *)0)->m), (big))

/* Descriptors kept open for backing files; more are opened per read. */
#define CORE_MAX_FDS 32

/* Program headers we look at in a backing file (real ones have < 16). */
#define BACKING_MAX_PHDRS 64

/*
 * The kernel's (and gdb's) size of a note header: three 32-bit words for
 * both classes (Elf32_Nhdr and Elf64_Nhdr are the same).
 */
#define NHDR_SIZE sizeof(Elf64_Nhdr)

/*
 * struct elf_prstatus starts with struct elf_siginfo (three ints) and then
 * `short pr_cursig`, on every Linux architecture and in both classes
 * (include/uapi/linux/elfcore.h; the arch-specific part comes later).  So
 * the current signal is at byte 12 of NT_PRSTATUS for amd64, arm64, i386,
 * arm...; test_core checks this against the host's <sys/procfs.h>.
 */
#define PRSTATUS_CURSIG_OFF 12


typedef struct core_seg {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset;   /* p_offset */
	uint64_t avail;    /* bytes present in the file: min(filesz, EOF) */
	uint64_t filesz;   /* p_filesz as recorded */
	uint32_t flags;    /* PF_R | PF_W | PF_X */
} core_seg;

typedef struct core_file {
	uint64_t start, end;   /* mapped range */
	uint64_t offset;       /* file offset of start, in bytes */
	const char *name;      /* NUL-terminated, inside the mapped note */
	int resolved;          /* name is already a path we can open */
} core_file;

typedef struct core_fd {
	const char *name;      /* core_file.name it was opened for */
	int fd;                /* -1: open failed, do not retry */
} core_fd;

typedef struct core_ctx {
	char *path;            /* the core, as given */
	char *sysroot;         /* NULL or prefix for recorded paths */
	const unsigned char *map;
	size_t size;
	time_t mtime;
	int is64, big;
	unsigned machine;
	core_seg *segs;        /* PT_LOAD, sorted by vaddr, memsz > 0 */
	size_t nsegs;
	core_file *files;      /* NT_FILE, sorted by start */
	size_t nfiles;
	uint64_t page;         /* NT_FILE's page size */
	long exe;              /* index into files, -1 if unknown */
	uint64_t at_entry, at_phdr, at_execfn, at_vdso, at_pagesz;
	int have_entry, have_phdr, have_execfn, have_vdso;
	char *synth_name;      /* executable path of synthesized entries */
	int signal;            /* pr_cursig of the first thread, or si_signo */
	int siginfo_signo;
	unsigned nthreads;     /* NT_PRSTATUS notes */
	gh_thread_regs *regs;  /* amd64, arm64 (64-bit LE): each NT_PRSTATUS */
	size_t nregs, capregs;
	uint64_t need_size;    /* file size the headers promise (truncation) */
	core_fd fds[CORE_MAX_FDS];
	unsigned nfds;
} core_ctx;

/* ---- helpers ---------------------------------------------------------- */

static int cmp_seg(const void *a, const void *b)
{
	const core_seg *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int cmp_file(const void *a, const void *b)
{
	const core_file *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const char *elf_type_name(unsigned t)
{
	switch (t) {
	case ET_NONE:
		return "NONE";
	case ET_REL:
		return "REL";
	case ET_EXEC:
		return "EXEC";
	case ET_DYN:
		return "DYN";
	case ET_CORE:
		return "CORE";
	default:
		return "unknown";
	}
}

/* The segment containing addr, or NULL; *next gets the first one above. */
static const core_seg *find_seg(const core_ctx *c, uint64_t addr,
				const core_seg **next)
{
	size_t lo = 0, hi = c->nsegs;

	/* Find the first segment with vaddr > addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->segs[mid].vaddr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo < c->nsegs ? &c->segs[lo] : NULL;
	if (lo == 0)
		return NULL;
	if (addr - c->segs[lo - 1].vaddr < c->segs[lo - 1].memsz)
		return &c->segs[lo - 1];
	return NULL;
}

/* The NT_FILE entry containing addr, or NULL. */
static const core_file *find_file(const core_ctx *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->files[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (addr < c->files[lo - 1].end)
		return &c->files[lo - 1];
	return NULL;
}

/*
 * "PATH" resolved for opening: under the sysroot, and without the
 * " (deleted)" that the kernel's d_path() appends to unlinked files (the
 * file, if it exists again under that name, is checked by build id later).
 */
static int resolve_path(const core_ctx *c, const char *name, char *buf,
			size_t len)
{
	size_t n = gh_path_len_undeleted(name);
	const char *root = c->sysroot != NULL ? c->sysroot : "";
	size_t rl = strlen(root);
	int w;

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (n > INT_MAX || rl > INT_MAX)
		return GOHEAP_EINVAL;
	w = snprintf(buf, len, "%.*s%s%.*s", (int)rl, root,
		     rl > 0 && name[0] != '/' ? "/" : "", (int)n, name);
	return (w < 0 || (size_t)w >= len) ? GOHEAP_EINVAL : 0;
}

/* The path to open for NT_FILE entry f. */
static int file_path(const core_ctx *c, const core_file *f, char *buf,
		     size_t len)
{
	int w;

	if (!f->resolved)
		return resolve_path(c, f->name, buf, len);
	w = snprintf(buf, len, "%s", f->name);
	return (w < 0 || (size_t)w >= len) ? GOHEAP_EINVAL : 0;
}

/* A descriptor for the backing file of f, or -1. */
static int backing_fd(core_ctx *c, const core_file *f, int *owned)
{
	char path[PATH_MAX];
	unsigned i;
	int fd;

	*owned = 0;
	for (i = 0; i < c->nfds; i++) {
		if (c->fds[i].name == f->name ||
		    strcmp(c->fds[i].name, f->name) == 0)
			return c->fds[i].fd;
	}
	if (file_path(c, f, path, sizeof(path)) != 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->nfds < CORE_MAX_FDS) {
		c->fds[c->nfds].name = f->name;
		c->fds[c->nfds].fd = fd;
		c->nfds++;
	} else {
		*owned = fd >= 0;
	}
	return fd;
}

/*
 * Read the start of [addr, addr+len), a range the core did not dump, from
 * the file mapped there: up to the end of that file mapping, all or
 * nothing, and set *done to the length read.
 */
static int read_backing(core_ctx *c, uint64_t addr, unsigned char *out,
			size_t len, size_t *done)
{
	const core_file *f = find_file(c, addr);
	uint64_t off;
	ssize_t n;
	int fd, owned;

	if (f == NULL)
		return GOHEAP_EUNMAPPED;
	if (len > f->end - addr)
		len = (size_t)(f->end - addr);
	*done = len;
	off = f->offset + (addr - f->start);
	if (off < f->offset || off > (uint64_t)INT64_MAX - len)
		return GOHEAP_EUNMAPPED;
	fd = backing_fd(c, f, &owned);
	if (fd < 0)
		return GOHEAP_EUNMAPPED;
	n = pread(fd, out, len, (off_t)off);
	if (owned)
		close(fd);
	/* Past the end of the file would have been SIGBUS in the process. */
	return n == (ssize_t)len ? 0 : GOHEAP_EUNMAPPED;
}

/*
 * Read the part of [addr, addr+len) that lies in one segment (or in one
 * gap between segments) and set *done to its length.
 */
static int read_piece(core_ctx *c, uint64_t addr, unsigned char *out,
		      size_t len, size_t *done)
{
	const core_seg *next = NULL;
	const core_seg *s = find_seg(c, addr, &next);
	uint64_t off, n;

	if (s == NULL) {
		/* A gap: only a file mapping gcore left out can fill it. */
		n = len;
		if (next != NULL && next->vaddr - addr < n)
			n = next->vaddr - addr;
		return read_backing(c, addr, out, (size_t)n, done);
	}
	off = addr - s->vaddr;
	if (off < s->avail) {
		n = s->avail - off;
		if (n > len)
			n = len;
		memcpy(out, c->map + s->offset + off, (size_t)n);
		*done = (size_t)n;
		return 0;
	}
	/* Not dumped (p_filesz < p_memsz) or cut off by truncation. */
	if (s->flags & PF_W)
		return GOHEAP_EUNMAPPED;
	n = s->memsz - off;
	if (n > len)
		n = len;
	return read_backing(c, addr, out, (size_t)n, done);
}

typedef struct core_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
} core_phdr;

static void decode_phdr(int is64, int big, const unsigned char *p,
			core_phdr *ph)
{
	if (is64) {
		ph->type = (uint32_t)ELF_FIELD(big, p, Elf64_Phdr, p_type);
		ph->flags = (uint32_t)ELF_FIELD(big, p, Elf64_Phdr, p_flags);
		ph->offset = ELF_FIELD(big, p, Elf64_Phdr, p_offset);
		ph->vaddr = ELF_FIELD(big, p, Elf64_Phdr, p_vaddr);
		ph->filesz = ELF_FIELD(big, p, Elf64_Phdr, p_filesz);
		ph->memsz = ELF_FIELD(big, p, Elf64_Phdr, p_memsz);
		ph->align = ELF_FIELD(big, p, Elf64_Phdr, p_align);
	} else {
		ph->type = (uint32_t)ELF_FIELD(big, p, Elf32_Phdr, p_type);
		ph->flags = (uint32_t)ELF_FIELD(big, p, Elf32_Phdr, p_flags);
		ph->offset = ELF_FIELD(big, p, Elf32_Phdr, p_offset);
		ph->vaddr = ELF_FIELD(big, p, Elf32_Phdr, p_vaddr);
		ph->filesz = ELF_FIELD(big, p, Elf32_Phdr, p_filesz);
		ph->memsz = ELF_FIELD(big, p, Elf32_Phdr, p_memsz);
		ph->align = ELF_FIELD(big, p, Elf32_Phdr, p_align);
	}
}

/* ---- ops -------------------------------------------------------------- */

static int core_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	core_ctx *c = ctx;
	unsigned char *out = buf;

	if (len > 0 && addr + len - 1 < addr)
		return GOHEAP_EUNMAPPED;
	while (len > 0) {
		size_t done = 0;
		int rc = read_piece(c, addr, out, len, &done);

		if (rc != 0)
			return rc;
		addr += done;
		out += done;
		len -= done;
	}
	return 0;
}

/* The NT_FILE entry covering all of [start, end), or NULL. */
static const core_file *file_covering(const core_ctx *c, uint64_t start,
				      uint64_t end)
{
	const core_file *f = find_file(c, start);

	if (f != NULL && end <= f->end)
		return f;
	return NULL;
}

/*
 * Permissions of a file mapping that the core has no segment for (gdb's
 * gcore leaves out unmodified private file mappings that do not start with
 * an ELF header, e.g. a Go binary's .rodata or a shared library's text):
 * those of the backing ELF file's PT_LOAD that contains the file offset,
 * else a guess of "r--p".
 */
static void file_perms(core_ctx *c, const core_file *f, char perms[5])
{
	unsigned char eh[sizeof(Elf64_Ehdr)], ph[sizeof(Elf64_Phdr)];
	uint64_t page = c->page != 0 ? c->page : 4096;
	uint64_t phoff, phnum, phsz, i;
	int fd, owned, is64, big;

	memcpy(perms, "r--p", 5);
	fd = backing_fd(c, f, &owned);
	if (fd < 0)
		return;
	if (pread(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh, ELFMAG, SELFMAG) != 0)
		goto out;
	is64 = eh[EI_CLASS] == ELFCLASS64;
	big = eh[EI_DATA] == ELFDATA2MSB;
	phoff = is64 ? ELF_FIELD(big, eh, Elf64_Ehdr, e_phoff) :
		       ELF_FIELD(big, eh, Elf32_Ehdr, e_phoff);
	phnum = is64 ? ELF_FIELD(big, eh, Elf64_Ehdr, e_phnum) :
		       ELF_FIELD(big, eh, Elf32_Ehdr, e_phnum);
	phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (phnum > BACKING_MAX_PHDRS || phoff > (uint64_t)INT64_MAX / 2)
		goto out;
	for (i = 0; i < phnum; i++) {
		uint64_t base;
		core_phdr p;

		if (pread(fd, ph, phsz, (off_t)(phoff + i * phsz)) !=
		    (ssize_t)phsz)
			break;
		decode_phdr(is64, big, ph, &p);
		/* The mapping starts at the page holding p_offset. */
		base = p.offset & ~(page - 1);
		if (p.type != PT_LOAD || f->offset < base ||
		    f->offset - base >= p.filesz + (p.offset - base))
			continue;
		perms[0] = (p.flags & PF_R) ? 'r' : '-';
		perms[1] = (p.flags & PF_W) ? 'w' : '-';
		perms[2] = (p.flags & PF_X) ? 'x' : '-';
		break;
	}
out:
	if (owned)
		close(fd);
}

/*
 * The kernel's special mappings that runtime/pprof lists (they are
 * executable): the vDSO, found by AT_SYSINFO_EHDR, and x86-64's legacy
 * vsyscall page at its fixed address (arch/x86/include/asm/vsyscall.h,
 * VSYSCALL_ADDR).  Neither has an NT_FILE entry.
 */
#define X86_64_VSYSCALL_ADDR 0xffffffffff600000ULL

static const char *special_name(const core_ctx *c, uint64_t start)
{
	if (c->have_vdso && start == c->at_vdso)
		return "[vdso]";
	if (c->machine == EM_X86_64 && start == X86_64_VSYSCALL_ADDR)
		return "[vsyscall]";
	return "";
}

static int emit_mapping(core_ctx *c, goheap_mapping *m, const core_file *f,
			goheap_mapping_cb cb, void *payload)
{
	char openp[PATH_MAX];

	m->path = special_name(c, m->start);
	m->open_path = NULL;
	m->offset = 0;
	if (f != NULL) {
		m->path = f->name;
		m->offset = f->offset + (m->start - f->start);
		if (file_path(c, f, openp, sizeof(openp)) == 0)
			m->open_path = openp;
	}
	return cb(m, payload);
}

/*
 * Segments, named after the NT_FILE entry that covers them, merged in
 * address order with the NT_FILE entries that no segment touches.
 */
static int core_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	core_ctx *c = ctx;
	size_t i = 0, j = 0;
	int rc;

	while (i < c->nsegs || j < c->nfiles) {
		goheap_mapping m;

		memset(&m, 0, sizeof(m));
		if (j < c->nfiles &&
		    (i == c->nsegs || c->files[j].end <= c->segs[i].vaddr)) {
			const core_file *f = &c->files[j++];
			const core_seg *next = NULL;

			/* Emit it only if no segment overlaps it. */
			if (f->start == f->end ||
			    find_seg(c, f->start, &next) != NULL ||
			    (next != NULL && next->vaddr < f->end))
				continue;
			m.start = f->start;
			m.end = f->end;
			file_perms(c, f, m.perms);
			rc = emit_mapping(c, &m, f, cb, payload);
		} else if (i < c->nsegs) {
			const core_seg *s = &c->segs[i++];

			m.start = s->vaddr;
			m.end = s->vaddr + s->memsz;
			m.perms[0] = (s->flags & PF_R) ? 'r' : '-';
			m.perms[1] = (s->flags & PF_W) ? 'w' : '-';
			m.perms[2] = (s->flags & PF_X) ? 'x' : '-';
			/* Cores do not record sharing; most mappings are private. */
			m.perms[3] = 'p';
			rc = emit_mapping(c, &m, file_covering(c, m.start, m.end),
					  cb, payload);
		} else {
			j++;
			continue;
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Without NT_FILE (qemu-user writes none), the executable is the
 * AT_EXECFN string on the dumped stack: the path given to execve(),
 * relative to the process's working directory if it is relative.  Cores
 * are written into that directory (core_pattern "core", qemu's
 * qemu_PROG_DATE_PID.core), so the core's own directory is our best guess
 * for it; the session's build-id check catches a wrong guess.
 */
static int execfn_path(core_ctx *c, char *buf, size_t len)
{
	char name[PATH_MAX], dir[PATH_MAX];
	const char *slash;
	size_t i;
	int w;

	for (i = 0; i < sizeof(name); i++) {
		if (core_read(c, c->at_execfn + i, &name[i], 1) != 0)
			return GOHEAP_ENOEXE;
		if (name[i] == '\0')
			break;
	}
	if (i == 0 || i == sizeof(name))
		return GOHEAP_ENOEXE;
	if (name[0] == '/')
		return resolve_path(c, name, buf, len);
	slash = strrchr(c->path, '/');
	if (slash == NULL)
		w = snprintf(buf, len, "%s", name);
	else {
		w = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - c->path),
			     c->path);
		if (w < 0 || (size_t)w >= sizeof(dir))
			return GOHEAP_EINVAL;
		w = snprintf(buf, len, "%s/%s", dir, name);
	}
	return (w < 0 || (size_t)w >= len) ? GOHEAP_EINVAL : 0;
}

static int core_executable(void *ctx, char *buf, size_t len)
{
	core_ctx *c = ctx;

	if (c->exe >= 0)
		return file_path(c, &c->files[c->exe], buf, len);
	if (c->have_execfn && c->nfiles == 0)
		return execfn_path(c, buf, len);
	return GOHEAP_ENOEXE;
}

static int core_target_info(void *ctx, goheap_target_info *out)
{
	core_ctx *c = ctx;

	out->ptr_size = c->is64 ? 8 : 4;
	out->big_endian = c->big;
	out->machine = c->machine;
	return 0;
}

static int core_describe(void *ctx, char *buf, size_t len)
{
	core_ctx *c = ctx;
	char when[32] = "unknown time", sig[32] = "no signal";
	char trunc[96] = "";
	struct tm tm;

	if (gmtime_r(&c->mtime, &tm) != NULL)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (c->signal > 0)
		snprintf(sig, sizeof(sig), "signal %d", c->signal);
	if (c->need_size > c->size)
		snprintf(trunc, sizeof(trunc),
			 ", truncated: %zu of %" PRIu64 " bytes", c->size,
			 c->need_size);
	snprintf(buf, len, "core file %s (%s, threads: %u, dumped %s%s)",
		 c->path, sig, c->nthreads, when, trunc);
	return 0;
}

static void core_close(void *ctx)
{
	core_ctx *c = ctx;
	unsigned i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nfds; i++) {
		if (c->fds[i].fd >= 0)
			close(c->fds[i].fd);
	}
	if (c->map != NULL)
		munmap((void *)c->map, c->size);
	free(c->files);
	free(c->regs);
	free(c->synth_name);
	free(c->segs);
	free(c->sysroot);
	free(c->path);
	free(c);
}

const goheap_memsrc_ops gh_core_ops = {
	.version = GOHEAP_MEMSRC_OPS_VERSION,
	.read = core_read,
	.mappings = core_mappings,
	.executable = core_executable,
	.target_info = core_target_info,
	.write = NULL,             /* a core is read-only */
	.describe = core_describe,
	.close = core_close,
};

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
	qsort(files, (size_t)count, sizeof(*files), cmp_file);
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

const gh_memsrc_caps gh_core_caps = {
	.core_threads = core_threads,
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
			       elf_type_name(h.type));
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

		decode_phdr(c->is64, c->big, c->map + h.phoff + i * phsz, &ph);
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

		decode_phdr(c->is64, c->big, c->map + h.phoff + i * phsz, &ph);
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
	qsort(c->segs, c->nsegs, sizeof(*c->segs), cmp_seg);
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
	if (execfn_path(c, path, sizeof(path)) != 0 ||
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
		decode_phdr(is64, c->big, ph, &p);
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
	qsort(files, n, sizeof(*files), cmp_file);
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
		f = find_file(c, c->at_entry);
	if (f == NULL && c->have_phdr)
		f = find_file(c, c->at_phdr);
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
	core_close(c);
	return rc;
}

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
 * descriptors cached for the life of the source.  When the caller names
 * the executable (CORE EXE), its mappings are read from that file instead
 * of the recorded path, which may hold a rebuilt program by now: the
 * build-id check at open compares EXE with the core's own copy of its
 * first page, so the bytes served are the dumped program's.
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

#include "memsrc_core_int.h"


/* ---- helpers ---------------------------------------------------------- */

int gh_core_cmp_seg(const void *a, const void *b)
{
	const core_seg *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

int gh_core_cmp_file(const void *a, const void *b)
{
	const core_file *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

const char *gh_core_elf_type_name(unsigned t)
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
const core_file *gh_core_find_file(const core_ctx *c, uint64_t addr)
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

	if (f->alt != NULL) {
		w = snprintf(buf, len, "%s", f->alt);
		return (w < 0 || (size_t)w >= len) ? GOHEAP_EINVAL : 0;
	}
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

	const char *key = f->alt != NULL ? f->alt : f->name;

	*owned = 0;
	for (i = 0; i < c->nfds; i++) {
		if (c->fds[i].name == key || strcmp(c->fds[i].name, key) == 0)
			return c->fds[i].fd;
	}
	if (file_path(c, f, path, sizeof(path)) != 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->nfds < CORE_MAX_FDS) {
		c->fds[c->nfds].name = key;
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
	const core_file *f = gh_core_find_file(c, addr);
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

void gh_core_decode_phdr(int is64, int big, const unsigned char *p,
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
	const core_file *f = gh_core_find_file(c, start);

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
		gh_core_decode_phdr(is64, big, ph, &p);
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
int gh_core_execfn_path(core_ctx *c, char *buf, size_t len)
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
		return gh_core_execfn_path(c, buf, len);
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

void gh_core_close(void *ctx)
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
	free(c->exe_path);
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
	.close = gh_core_close,
};

int gh_core_use_exe(void *ctx, const char *exe)
{
	core_ctx *c = ctx;
	const char *recorded;
	size_t i;

	if (c == NULL || exe == NULL || exe[0] == '\0' || c->exe < 0)
		return 0;
	c->exe_path = gh_strdup(exe);
	if (c->exe_path == NULL)
		return GOHEAP_ENOMEM;
	/* every mapping of the recorded executable (text, rodata, ...) */
	recorded = c->files[c->exe].name;
	for (i = 0; i < c->nfiles; i++)
		if (c->files[i].name == recorded ||
		    strcmp(c->files[i].name, recorded) == 0)
			c->files[i].alt = c->exe_path;
	return 0;
}

/*
 * memsrc_core_int.h - the ELF core source's private parts, shared by
 * memsrc_core.c (reads, mappings, the ops table) and memsrc_core_open.c
 * (decoding the headers and notes at open).
 */
#ifndef GH_MEMSRC_CORE_INT_H
#define GH_MEMSRC_CORE_INT_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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
 * arm...; test_memsrc_core checks this against the host's <sys/procfs.h>.
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
	const char *alt;       /* read from this file instead (the caller's
	                        * executable, gh_core_use_exe); NULL: name */
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
	char *exe_path;        /* the caller's executable (gh_core_use_exe) */
	int signal;            /* pr_cursig of the first thread, or si_signo */
	int siginfo_signo;
	unsigned nthreads;     /* NT_PRSTATUS notes */
	gh_thread_regs *regs;  /* amd64, arm64 (64-bit LE): each NT_PRSTATUS */
	size_t nregs, capregs;
	uint64_t need_size;    /* file size the headers promise (truncation) */
	core_fd fds[CORE_MAX_FDS];
	unsigned nfds;
} core_ctx;

typedef struct core_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
} core_phdr;


/* memsrc_core.c: the reading side */
int gh_core_cmp_seg(const void *a, const void *b);
int gh_core_cmp_file(const void *a, const void *b);
const char *gh_core_elf_type_name(unsigned t);
const core_file *gh_core_find_file(const core_ctx *c, uint64_t addr);
int gh_core_execfn_path(core_ctx *c, char *buf, size_t len);
void gh_core_close(void *ctx);
void gh_core_decode_phdr(int is64, int big, const unsigned char *p,
			 core_phdr *ph);

#endif

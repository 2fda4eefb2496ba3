/*
 * exe.h - the Go executable: ELF sections, symbols, build ids, Go version.
 *
 * The file is mapped read-only once; every pointer handed out points into
 * that mapping and stays valid until gh_exe_close.  All addresses are the
 * link-time virtual addresses of the file (add the load bias for a PIE).
 */
#ifndef GH_EXE_H
#define GH_EXE_H

#include "gh.h"

typedef struct gh_exe gh_exe;

typedef struct gh_section {
	const char *name;
	uint64_t addr;               /* link-time virtual address */
	uint64_t size;
	uint32_t type;               /* SHT_* */
	uint64_t flags;              /* SHF_* */
	const unsigned char *data;   /* file bytes, NULL for SHT_NOBITS */
} gh_section;

/* Open and validate an ELF file.  *out is NULL on failure. */
int gh_exe_open(gh_exe **out, const char *path, gh_err *err);
void gh_exe_close(gh_exe *e);

const char *gh_exe_path(const gh_exe *e);
unsigned gh_exe_ptr_size(const gh_exe *e);   /* 4 or 8 */
int gh_exe_big_endian(const gh_exe *e);
unsigned gh_exe_machine(const gh_exe *e);    /* e_machine */
int gh_exe_is_dyn(const gh_exe *e);          /* ET_DYN (PIE) */
uint64_t gh_exe_entry(const gh_exe *e);      /* e_entry */

/* Section by name, NULL if absent. */
const gh_section *gh_exe_section(const gh_exe *e, const char *name);
/* Section containing vaddr, NULL if none. */
const gh_section *gh_exe_section_at(const gh_exe *e, uint64_t vaddr);

/* Symbol from .symtab by exact name: 0, or GOHEAP_ENOSYM. size may be NULL. */
int gh_exe_symbol(const gh_exe *e, const char *name, uint64_t *addr,
		  uint64_t *size);
int gh_exe_has_symtab(const gh_exe *e);

/*
 * Pointer to `len` file bytes at link-time vaddr (any PT_LOAD segment's file
 * part), or NULL when not entirely file-backed.
 */
const unsigned char *gh_exe_ptr(const gh_exe *e, uint64_t vaddr, size_t len);

/*
 * The pointer-sized word at vaddr as the loader leaves it, with the file's
 * R_*_RELATIVE relocations applied (value = addend, i.e. link-time address):
 * 0, or GOHEAP_EUNMAPPED.
 */
int gh_exe_read_word(const gh_exe *e, uint64_t vaddr, uint64_t *out);

/* Lowest PT_LOAD p_vaddr, page-truncated (the link base); for load bias. */
uint64_t gh_exe_link_base(const gh_exe *e);

/* "go1.22.12" from .go.buildinfo, or "" when absent. */
const char *gh_exe_go_version(const gh_exe *e);
/* Hex GNU build id ("" if none), Go build id string ("" if none). */
const char *gh_exe_gnu_build_id(const gh_exe *e);
const char *gh_exe_go_build_id(const gh_exe *e);

/*
 * Hex GNU build id of any ELF file by path, as runtime/pprof's
 * elfBuildID does (SHT_NOTE section headers).  Writes "" when there is none
 * or the file cannot be read.
 */
void gh_file_gnu_build_id(const char *path, char *out, size_t outlen);

#endif

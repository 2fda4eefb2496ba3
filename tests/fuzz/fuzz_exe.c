/*
 * fuzz_exe.c - libFuzzer harness for the ELF executable parser (exe.c).
 *
 * The input is an ELF file, or with GOHEAP_FUZZ_EXE a patch for one (see
 * fuzz.h, "overlay mode").  After gh_exe_open succeeds every accessor the
 * rest of the library uses is called, with addresses taken from the file's
 * own sections and from the input's first bytes, so that section, symbol,
 * relocation and build-info decoding all see the mutated bytes.
 */
#include "fuzz.h"

#include "exe.h"

static const char *const names[] = {
	".gopclntab", ".data.rel.ro.gopclntab", ".go.buildinfo", ".noptrdata",
	".data", ".bss", ".text", ".symtab", ".note.go.buildid",
};

static const char *const syms[] = {
	"runtime.mbuckets", "runtime.MemProfileRate", "runtime.buildVersion",
	"runtime.firstmoduledata", "main.main",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_base();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_elf_file(data, size);
	gh_err err = { 0, "" };
	gh_exe *e = NULL;
	uint64_t addr, sz, w;
	unsigned i;
	volatile size_t sink = 0;

	if (path == NULL || gh_exe_open(&e, path, &err) != 0) {
		gh_exe_close(e);
		return 0;
	}
	sink += gh_exe_ptr_size(e) + (size_t)gh_exe_big_endian(e) +
		gh_exe_machine(e) + (size_t)gh_exe_is_dyn(e) +
		(size_t)gh_exe_entry(e) + (size_t)gh_exe_link_base(e) +
		(size_t)gh_exe_has_symtab(e);
	sink += strlen(gh_exe_go_version(e)) + strlen(gh_exe_gnu_build_id(e)) +
		strlen(gh_exe_go_build_id(e)) + strlen(gh_exe_path(e));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const gh_section *s = gh_exe_section(e, names[i]);
		const unsigned char *p;

		if (s == NULL)
			continue;
		sink += s->size + strlen(s->name);
		if (gh_exe_section_at(e, s->addr) != NULL)
			sink++;
		p = gh_exe_ptr(e, s->addr, s->size > 64 ? 64 : (size_t)s->size);
		if (p != NULL && s->size > 0)
			sink += p[0];
		if (gh_exe_read_word(e, s->addr, &w) == 0)
			sink += (size_t)w;
		if (gh_exe_read_word(e, s->addr + s->size - 1, &w) == 0)
			sink += (size_t)w;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (gh_exe_symbol(e, syms[i], &addr, &sz) == 0) {
			if (gh_exe_read_word(e, addr, &w) == 0)
				sink += (size_t)w;
			if (gh_exe_ptr(e, addr, (size_t)(sz & 0xffff)) != NULL)
				sink++;
		}
	}
	/* Arbitrary addresses and lengths from the input's header bytes. */
	for (i = 0; i + 8 <= 64 && i + 8 <= size; i += 8) {
		addr = fuzz_u64(data, size, i);
		if (gh_exe_read_word(e, addr, &w) == 0)
			sink += (size_t)w;
		if (gh_exe_ptr(e, addr, (size_t)(addr >> 48)) != NULL)
			sink++;
		if (gh_exe_section_at(e, addr) != NULL)
			sink++;
	}
	(void)sink;
	gh_exe_close(e);
	return 0;
}

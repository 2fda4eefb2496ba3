/*
 * fuzz_sym.c - libFuzzer harness for pclntab decoding and symbolization
 * (pclntab.c).
 *
 * The input is a Go executable, or with GOHEAP_FUZZ_EXE a patch for one (see
 * fuzz.h, "overlay mode"; whole-file seeds: tests/go/heapprog from each
 * toolchain).  gh_sym_open parses the pclntab header, the function table
 * and the module data; then gh_sym_callers_frames, FuncForPC, lookup and
 * final-inline expansion run over PCs spread across .text (entries, entry
 * plus one, random offsets from the input's bytes) and PCs outside it.
 * The pc-value decoder also runs directly on the input's first bytes.
 */
#include "fuzz.h"

#include "sym.h"

#define NPCS 48

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_base();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	gh_err err = { 0, "" };
	gh_gover ver = { 0, 0, 0 };
	gh_exe *e = NULL;
	gh_sym *s = NULL;
	gh_framevec fv = { NULL, 0, 0, 0 };
	uint64_t pcs[NPCS], entry, end, lo = 0x400000, span = 0x100000, *x;
	const gh_section *text;
	const char *name;
	char pbuf[256];
	size_t i, nx;
	volatile size_t sink = 0;

	/* The pc-value decoder alone, on raw bytes (cheap, deep). */
	if (size > 16)
		sink += (size_t)gh_pctab_value(data + 8, size > 264 ? 256 :
					       size - 8, 0x1000, 1 + data[0] % 4,
					       0x1000 + data[1]);
	path = fuzz_elf_file(data, size);
	if (path == NULL || gh_exe_open(&e, path, &err) != 0)
		goto out;
	if (gh_sym_open(&s, e, 0, ver, &err) != 0)
		goto out;
	sink += gh_sym_nfunc(s) + gh_sym_magic(s);
	text = gh_exe_section(e, ".text");
	if (text != NULL && text->size > 0) {
		lo = text->addr;
		span = text->size;
	}
	for (i = 0; i < NPCS; i++)
		pcs[i] = lo + fuzz_u64(data, size, 0x40 + 8 * i) % span;
	if (gh_sym_func_entry(s, "main.main", &entry, &end) == 0) {
		pcs[0] = entry;
		pcs[1] = entry + 1;
		pcs[2] = end;
	}
	if (gh_sym_func_entry(s, "runtime.mallocgc", &entry, &end) == 0)
		pcs[3] = entry + (end - entry) / 2;
	pcs[4] = 0;
	pcs[5] = UINT64_MAX;
	pcs[6] = lo + span;
	for (i = 0; i < NPCS; i++) {
		name = gh_sym_funcforpc_name(s, pcs[i]);
		if (name != NULL) {
			sink += strlen(name);
			sink += strlen(gh_func_name_for_print(name, pbuf,
							      sizeof(pbuf)));
		}
		if (gh_sym_lookup(s, pcs[i], &entry, &name) == 0)
			sink += strlen(name) + (size_t)entry;
	}
	if (gh_sym_callers_frames(s, pcs + 7, NPCS - 7, &fv) == 0) {
		for (i = 0; i < fv.n; i++)
			sink += strlen(fv.v[i].function) +
				strlen(fv.v[i].file) + (size_t)fv.v[i].line;
	}
	fv.n = 0;
	(void)gh_sym_callers_frames(s, pcs, 3, &fv);
	for (i = 0; i + 4 <= NPCS; i += 4) {
		if (gh_sym_expand_final_inline(s, pcs + i, 4, &x, &nx) == 0) {
			sink += nx;
			free(x);
		}
	}
out:
	(void)sink;
	gh_framevec_free(&fv);
	gh_sym_close(s);
	gh_exe_close(e);
	return 0;
}

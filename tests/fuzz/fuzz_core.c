/*
 * fuzz_core.c - libFuzzer harness for the ELF core parser (memsrc_core.c).
 *
 * The input is a core file.  After gh_core_new succeeds, the harness runs
 * what a session does with a core: target_info, describe, executable,
 * every mapping, and reads at the start, middle and end of each mapping
 * (crossing into the next one), through both the raw backend and the
 * caching gh_mem wrapper.  Every read must fill the buffer or fail.
 */
#include "fuzz.h"

#include "memsrc.h"

typedef struct maps_state {
	void *ctx;
	gh_mem *m;
	unsigned n;
} maps_state;

static void probe(maps_state *st, uint64_t addr, size_t len)
{
	static unsigned char buf[4096];
	uint64_t w;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (gh_core_ops.read(st->ctx, addr, buf, len) == 0 && len > 0)
		buf[0] ^= buf[len - 1];
	(void)gh_mem_read(st->m, addr, buf, len, "probe");
	(void)gh_mem_read_ptr(st->m, addr, &w, "probe");
}

static int on_map(const goheap_mapping *mp, void *payload)
{
	maps_state *st = payload;
	uint64_t span = mp->end - mp->start;

	if (++st->n > 64)
		return 1;
	(void)strlen(mp->path);
	if (mp->open_path != NULL)
		(void)strlen(mp->open_path);
	probe(st, mp->start, 16);
	probe(st, mp->start + span / 2, 4096);
	probe(st, mp->end - 8, 16);
	probe(st, mp->end - 1, 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	gh_err err = { 0, "" };
	goheap_target_info ti;
	char buf[512];
	void *ctx = NULL;
	gh_mem m;
	maps_state st;

	if (path == NULL || gh_core_new(&ctx, path, NULL, &err) != 0)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (gh_core_ops.target_info == NULL ||
	    gh_core_ops.target_info(ctx, &ti) != 0 ||
	    (ti.ptr_size != 4 && ti.ptr_size != 8)) {
		ti.ptr_size = 8;
		ti.big_endian = 0;
	}
	if (gh_core_ops.describe != NULL)
		(void)gh_core_ops.describe(ctx, buf, sizeof(buf));
	(void)gh_core_ops.executable(ctx, buf, sizeof(buf));
	(void)gh_core_ops.executable(ctx, buf, 4);
	gh_mem_init(&m, &gh_core_ops, ctx, ti.ptr_size, ti.big_endian, &err);
	st.ctx = ctx;
	st.m = &m;
	st.n = 0;
	(void)gh_core_ops.mappings(ctx, on_map, &st);
	/* Addresses from the input itself, including wrapping ones. */
	probe(&st, fuzz_u64(data, size, 0x20), 64);
	probe(&st, UINT64_MAX - 3, 8);
	gh_mem_fini(&m);
	gh_core_ops.close(ctx);
	return 0;
}

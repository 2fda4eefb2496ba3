/*
 * fakemem.h - a memory source over a byte image, for unit tests and fuzz
 * harnesses that drive the walker or the layout guard without a process:
 * the "fake in-memory source" of the memory-source family (style.md).
 * Reads outside [base, base+len) are GOHEAP_EUNMAPPED, like a real
 * backend's; nothing is zero-filled.  No mappings, no executable.
 */
#ifndef GH_FAKEMEM_H
#define GH_FAKEMEM_H

#include <string.h>

#include "goheap.h"

typedef struct gh_fakemem {
	const unsigned char *img;
	size_t len;
	uint64_t base;
} gh_fakemem;

static int gh_fakemem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const gh_fakemem *f = ctx;

	if (addr < f->base || addr - f->base > f->len ||
	    len > f->len - (addr - f->base))
		return GOHEAP_EUNMAPPED;
	memcpy(buf, f->img + (addr - f->base), len);
	return 0;
}

static int gh_fakemem_maps(void *ctx, goheap_mapping_cb cb, void *payload)
{
	(void)ctx;
	(void)cb;
	(void)payload;
	return 0;
}

static int gh_fakemem_exe(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return GOHEAP_ENOEXE;
}

static const goheap_memsrc_ops gh_fakemem_ops = {
	.version = GOHEAP_MEMSRC_OPS_VERSION,
	.read = gh_fakemem_read,
	.mappings = gh_fakemem_maps,
	.executable = gh_fakemem_exe,
};

#endif

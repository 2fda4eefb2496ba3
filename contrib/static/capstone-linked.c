/*
 * contrib/static/capstone-linked.c: Capstone linked into the static go-heap
 * (src/go-heap-static, `make static`; doc/packaging.md).
 *
 * The library opens Capstone with dlopen("libcapstone.so.<API major>") the
 * first time a stripped binary needs decoding (src/lib/bin/decode.c, doc/
 * dependencies.md).  A static executable cannot do that usefully: glibc's
 * static dlopen needs the very glibc it was linked against as shared objects
 * on the node.  The static link therefore wraps dlopen, dlsym, dlclose and
 * dlerror (ld --wrap, in Makefile.am): opening Capstone's soname returns a
 * handle on the copy of libcapstone.a linked in, dlsym resolves the seven
 * functions src/lib/bin/decode.c asks for, and anything else fails the way a missing
 * library does.  src/lib/bin/decode.c is the same code in both builds, its version
 * check included.
 */
#include "config.h"

#include <capstone/capstone.h>
#include <stddef.h>
#include <string.h>

#define GH_CS_STR2(x) #x
#define GH_CS_STR(x) GH_CS_STR2(x)
#define GH_CAPSTONE_SONAME "libcapstone.so." GH_CS_STR(CS_API_MAJOR)

void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);
char *__wrap_dlerror(void);

static int capstone_handle;
static const char *dl_error;

void *__wrap_dlopen(const char *file, int mode)
{
	(void)mode;
	if (file != NULL && strcmp(file, GH_CAPSTONE_SONAME) == 0)
		return &capstone_handle;
	dl_error = "static go-heap: no dynamic loading (only Capstone, linked in)";
	return NULL;
}

/* The linked-in function called name, as a void * (ISO C has no direct
 * conversion between function and object pointers). */
static void *fn_ptr(const char *name)
{
	void *p = NULL;

#define TRY(f) \
	if (strcmp(name, #f) == 0) { \
		__typeof__(&f) q = &f; \
		memcpy(&p, &q, sizeof(p)); \
		return p; \
	}
	TRY(cs_open)
	TRY(cs_option)
	TRY(cs_malloc)
	TRY(cs_disasm_iter)
	TRY(cs_free)
	TRY(cs_close)
	TRY(cs_version)
#undef TRY
	return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
	void *p = handle == &capstone_handle && name != NULL ? fn_ptr(name) : NULL;

	if (p == NULL)
		dl_error = "static go-heap: symbol not linked in";
	return p;
}

int __wrap_dlclose(void *handle)
{
	return handle == &capstone_handle ? 0 : -1;
}

char *__wrap_dlerror(void)
{
	const char *e = dl_error;

	dl_error = NULL;
	return (char *)e;
}

/*
 * watch_tls_load.c - watch_tls.h's functions in the go-heap executable:
 * --web.config.file's module (src/watch/watch_tls_impl.h) is opened with
 * dlopen by wtls_open, so that OpenSSL, libyaml and libxcrypt are loaded
 * only by a watch that uses them (linked, they cost every go-heap command
 * about 1 ms of start-up: doc/dependencies.md).  Looked for next to the
 * executable first (.libs/, the build tree's), then in the installed
 * module directory (GH_PKGLIBDIR).  The handle belongs to the wtls that
 * opened it.  Built with -DGH_WEBCONFIG_BUILTIN (a static binary), the
 * module's files are linked in and nothing is opened.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch_tls.h"
#include "watch_tls_impl.h"

#ifndef GH_PKGLIBDIR          /* Makefile.am gives $(pkglibdir) */
#define GH_PKGLIBDIR "/usr/local/lib/go-heap"
#endif

struct wtls {
	void *dl;
	const wtls_ops *ops;
	wtls_impl *impl;
};

#define OPS(c) (((const struct wtls_conn_head *)(const void *)(c))->ops)

#if defined(HAVE_WEBCONFIG) && !defined(GH_WEBCONFIG_BUILTIN)
/* Open the module: next to the executable, else where it is installed. */
static void *open_module(char *err, size_t errlen)
{
	char self[PATH_MAX], path[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *e;
	void *dl;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/.libs/%s", self,
				 GH_WEBCONFIG_MODULE);
			if (access(path, R_OK) == 0 &&
			    (dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL)
				return dl;
		}
	}
	snprintf(path, sizeof(path), "%s/%s", GH_PKGLIBDIR,
		 GH_WEBCONFIG_MODULE);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		e = dlerror();
		snprintf(err, errlen, "cannot load its module: %s",
			 e ? e : path);
	}
	return dl;
}
#endif

int wtls_open(wtls **out, const char *path, int verbose, char *err,
	      size_t errlen)
{
#ifdef HAVE_WEBCONFIG
	const wtls_ops *(*get)(void);
	void *sym;
	wtls *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
#ifdef GH_WEBCONFIG_BUILTIN
	/* a static binary: the module's files compiled in */
	(void)get;
	(void)sym;
	t->ops = gh_webconfig_ops();
#else
	t->dl = open_module(err, errlen);
	if (t->dl == NULL) {
		free(t);
		return -1;
	}
	/* ISO C has no void * -> function pointer cast (src/lib/bin/locate.c) */
	sym = dlsym(t->dl, "gh_webconfig_ops");
	memcpy(&get, &sym, sizeof(get));
	t->ops = sym != NULL ? get() : NULL;
#endif
	if (t->ops == NULL || t->ops->abi != WTLS_ABI) {
		snprintf(err, errlen, "its module %s is of another go-heap",
			 GH_WEBCONFIG_MODULE);
		wtls_free(t);
		return -1;
	}
	if (t->ops->open(&t->impl, path, verbose, err, errlen) != 0) {
		wtls_free(t);
		return -1;
	}
	*out = t;
	return 0;
#else
	(void)path;
	(void)verbose;
	*out = NULL;
	snprintf(err, errlen, "this go-heap was built without "
		 "--web.config.file (it needs OpenSSL, libyaml and libxcrypt: "
		 "libssl-dev libyaml-dev libcrypt-dev)");
	return -1;
#endif
}

void wtls_free(wtls *t)
{
	if (t == NULL)
		return;
	if (t->impl != NULL)
		t->ops->free(t->impl);
	if (t->dl != NULL)
		dlclose(t->dl);
	free(t);
}

int wtls_on(const wtls *t)
{
	return t->ops->on(t->impl);
}

int wtls_authenticates(const wtls *t)
{
	return t->ops->authenticates(t->impl);
}

void wtls_describe(const wtls *t, char *buf, size_t len)
{
	t->ops->describe(t->impl, buf, len);
}

const char *wtls_headers(const wtls *t)
{
	return t->ops->headers(t->impl);
}

int wtls_gate(wtls *t, int fd, const char *authz, double now)
{
	return t->ops->gate(t->impl, fd, authz, now);
}

wtls_conn *wtls_conn_new(wtls *t, int fd)
{
	return t->ops->conn_new(t->impl, fd);
}

int wtls_handshake(wtls_conn *c, short *events)
{
	return OPS(c)->handshake(c, events);
}

ssize_t wtls_read(wtls_conn *c, void *buf, size_t len, short *events)
{
	return OPS(c)->read(c, buf, len, events);
}

ssize_t wtls_write(wtls_conn *c, const void *buf, size_t len, short *events)
{
	return OPS(c)->write(c, buf, len, events);
}

int wtls_pending(const wtls_conn *c)
{
	return OPS(c)->pending(c);
}

void wtls_conn_free(wtls_conn *c)
{
	if (c != NULL)
		OPS(c)->conn_free(c);
}

size_t wtls_conn_memory(const wtls_conn *c)
{
	return OPS(c)->conn_memory(c);
}

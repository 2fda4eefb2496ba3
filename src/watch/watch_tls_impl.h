/*
 * watch_tls_impl.h - the contract between `go-heap watch` and its
 * --web.config.file module (src/watch/watch_tls_load.c loads it; src/watch/watch_tls.c
 * and src/watch/watch_webconfig.c are the module, linked to OpenSSL, libyaml and
 * libxcrypt).  The module exports one symbol, gh_webconfig_ops, whose
 * table implements watch_tls.h's functions; every wtls_conn it makes
 * starts with a wtls_conn_head, so that the loader finds the table from a
 * connection alone.  Loading it only when the option is given keeps
 * OpenSSL out of every other go-heap command's start-up
 * (doc/dependencies.md).
 */
#ifndef GH_WATCH_TLS_IMPL_H
#define GH_WATCH_TLS_IMPL_H

#include <stddef.h>
#include <sys/types.h>

typedef struct wtls_impl wtls_impl;
typedef struct wtls_conn wtls_conn;

enum { WTLS_ABI = 2 };

typedef struct wtls_ops {
	unsigned abi;              /* WTLS_ABI */
	int (*open)(wtls_impl **out, const char *path, int verbose,
		    char *err, size_t errlen);
	void (*free)(wtls_impl *t);
	int (*on)(const wtls_impl *t);
	void (*describe)(const wtls_impl *t, char *buf, size_t len);
	const char *(*headers)(const wtls_impl *t);
	int (*gate)(wtls_impl *t, int fd, const char *authz, double now);
	wtls_conn *(*conn_new)(wtls_impl *t, int fd);
	int (*handshake)(wtls_conn *c, short *events);
	ssize_t (*read)(wtls_conn *c, void *buf, size_t len, short *events);
	ssize_t (*write)(wtls_conn *c, const void *buf, size_t len,
			 short *events);
	int (*pending)(const wtls_conn *c);
	void (*conn_free)(wtls_conn *c);
	size_t (*conn_memory)(const wtls_conn *c);
	int (*authenticates)(const wtls_impl *t);
} wtls_ops;

/* The first member of every wtls_conn. */
struct wtls_conn_head {
	const wtls_ops *ops;
};

#define GH_WEBCONFIG_MODULE "go-heap-webconfig.so"
const wtls_ops *gh_webconfig_ops(void);

#endif

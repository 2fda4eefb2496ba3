/*
 * watch_tls.h - `go-heap watch --web.config.file` on the server's side
 * (src/watch/watch_tls.c, doc/watch.md "TLS and basic auth"): the web
 * configuration in force (src/watch/watch_webconfig.c reads it), OpenSSL's
 * context built from it and rebuilt when the file or the certificates
 * change, and each connection's TLS: a non-blocking handshake, read and
 * write that say which poll(2) event they wait for, so that the server's
 * one loop drives them like its plain sockets.  Plus the checks the file
 * configures before a request is answered: rate limit and basic auth.
 */
#ifndef GH_WATCH_TLS_H
#define GH_WATCH_TLS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct wtls wtls;
typedef struct wtls_conn wtls_conn;

/*
 * Read the web configuration at path and, when it configures TLS, load
 * its certificates and keys.  verbose: log every refused handshake and
 * request (else at most a few lines every 10 s).  0, or -1 with a
 * one-line message naming the key in err.
 */
int wtls_open(wtls **out, const char *path, int verbose, char *err,
	      size_t errlen);
void wtls_free(wtls *t);
/* 1 when connections speak TLS (else plain HTTP, with the checks). */
int wtls_on(const wtls *t);
/* 1 when the configuration in force authenticates every client: basic
 * auth users, or client certificates verified and required
 * (RequireAndVerifyClientCert). */
int wtls_authenticates(const wtls *t);
/* One line for the start-up log: "TLS 1.2-1.3, client certificates
 * RequireAndVerifyClientCert; basic auth (2 users); rate limit ...". */
void wtls_describe(const wtls *t, char *buf, size_t len);
/* The configured response headers ("Name: v\r\n" lines), or "". */
const char *wtls_headers(const wtls *t);
/*
 * A request's checks, in the toolkit's order: the rate limit (429), then
 * basic auth against authz, the Authorization header's value or NULL
 * (401; 429 when too many new credentials need a bcrypt check).  0 when
 * the request may be answered.  Refusals are logged with fd's peer.
 */
int wtls_gate(wtls *t, int fd, const char *authz, double now);

/*
 * A TLS connection on fd (non-blocking, accepted).  Checks first whether
 * the configuration or a certificate changed on disk (stat) and reloads
 * them: a new connection gets the new certificate.  NULL on failure.
 */
wtls_conn *wtls_conn_new(wtls *t, int fd);
/*
 * Advance the handshake.  1: done; 0: call again when *events (POLLIN or
 * POLLOUT) is ready; -1: failed (logged; close it).  A client that sent
 * plain HTTP gets Go's "400 Bad Request ... HTTP request to an HTTPS
 * server" before -1.
 */
int wtls_handshake(wtls_conn *c, short *events);
/*
 * As recv/send: bytes (> 0); 0: the peer closed (read); -1 with errno
 * EAGAIN and *events the poll event to wait for, or another errno.
 * *events is 0 after a call that moved bytes.
 */
ssize_t wtls_read(wtls_conn *c, void *buf, size_t len, short *events);
ssize_t wtls_write(wtls_conn *c, const void *buf, size_t len,
		   short *events);
/* Decrypted bytes OpenSSL holds that poll(2) cannot announce. */
int wtls_pending(const wtls_conn *c);
/* close_notify when the handshake was done (one try, not waited for),
 * then free; the caller closes fd. */
void wtls_conn_free(wtls_conn *c);
/* The heap the connection's OpenSSL state holds, as measured (glibc's
 * mallinfo2 around its OpenSSL calls): part of
 * go_heap_watch_connection_memory_bytes. */
size_t wtls_conn_memory(const wtls_conn *c);

#endif

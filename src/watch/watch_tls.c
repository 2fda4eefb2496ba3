/*
 * watch_tls.c - TLS, basic auth and the rate limit of `go-heap watch
 * --web.config.file` (watch_tls.h, doc/watch.md "TLS and basic auth").
 * Part of the module go-heap-webconfig.so with watch_webconfig.c: its
 * functions are reached through the table gh_webconfig_ops returns
 * (watch_tls_impl.h; src/watch/watch_tls_load.c opens the module).
 *
 * OpenSSL (doc/dependencies.md says why not GnuTLS).  One SSL_CTX built
 * from the configuration; each connection an SSL on its non-blocking
 * socket, driven by the server's poll loop: SSL_ERROR_WANT_READ/WRITE
 * become POLLIN/POLLOUT, so a client that stalls in its handshake costs
 * a slot and a deadline, never a wait.  The toolkit re-reads its file
 * for every connection; here each new connection stats the file and the
 * certificate, key and client CA files (four stat calls) and the whole
 * configuration is read again only when one changed: a rotated
 * certificate is served from the next connection on.  A reload that
 * fails keeps the configuration in force and says why once.
 *
 * Buffers: the first record (the ClientHello) is read into a buffer of
 * the connection's before any SSL exists and given to OpenSSL in a memory
 * BIO, after which OpenSSL reads the socket: a client stalled in its
 * ClientHello costs the bytes it sent (738 B for half of one), not an SSL
 * with its buffers (73 KB).  SSL_MODE_RELEASE_BUFFERS, so an idle
 * connection past its handshake holds no record buffers; the server-side session cache is
 * off (stateless tickets resume).  The heap each connection's OpenSSL
 * state holds is measured with glibc's mallinfo2 before and after each
 * OpenSSL call on it (one thread: nothing else allocates meanwhile).
 *
 * Refusals (handshakes, 401, 429) are logged with the peer's address: all
 * of them with -v, else at most LOG_MAX lines every LOG_WINDOW seconds
 * and a count of the rest; a peer that closes before sending anything
 * (a port probe) is not logged.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch_tls_impl.h"
#include "watch_util.h"
#include "watch_webconfig.h"

#ifdef HAVE_WEBCONFIG

#include <arpa/inet.h>
#include <malloc.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

enum { LOG_WINDOW = 10, LOG_MAX = 10, NFILES = 4 };

/* What a file looked like when it was read. */
typedef struct filesig {
	dev_t dev;
	ino_t ino;
	off_t size;
	long long mtime_ns, ctime_ns;
	int ok;
} filesig;

struct wtls_impl {
	char *path;
	int verbose;
	wc_config cfg;
	SSL_CTX *ctx;              /* NULL without TLS */
	filesig sig[NFILES];       /* the file, cert, key, client CA */
	wc_auth *auth;
	wc_bucket rate;            /* rate_limit, as read at start */
	char reload_err[300];
	double log_t0;
	unsigned log_n, log_dropped;
};

struct wtls_conn {
	struct wtls_conn_head head;  /* first: the loader reads ops */
	wtls_impl *t;
	SSL *ssl;                  /* NULL until the first record is in */
	int fd;
	int done;                  /* handshake completed */
	int failed;                /* fatal error: no close_notify */
	size_t mem;                /* measured heap of its OpenSSL state */
	/* the first record (the ClientHello) as it comes, before there is
	 * an SSL; then, until OpenSSL has read it, its memory BIO */
	unsigned char *rec;
	size_t reclen, reccap;
	int from_rec;
};

/* Go's default cipher suites for TLS 1.2 (1.22 on: no RSA key exchange)
 * and curve preferences, when the file names none. */
static const char default_ciphers[] =
	"ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
	"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
	"ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
	"ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:"
	"ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA";
static const char default_curves[] = "X25519:P-256:P-384:P-521";

static const char *const auth_names[] = {
	"NoClientCert", "RequestClientCert", "RequireAnyClientCert",
	"VerifyClientCertIfGiven", "RequireAndVerifyClientCert",
};

/* ---- logging ------------------------------------------------------------ */

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[96], p[16];

	snprintf(buf, len, "?");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%s" :
			 "%s:%s", h, p);
}

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
static void tlog(wtls_impl *t, int fd, const char *fmt, ...)
{
	char peer[128], msg[400];
	double now = gh_now();
	va_list ap;

	if (!t->verbose) {
		if (now - t->log_t0 >= LOG_WINDOW) {
			if (t->log_dropped > 0)
				fprintf(stderr, "go-heap watch: %u more refused "
					"connections or requests not logged "
					"(-v logs each)\n", t->log_dropped);
			t->log_t0 = now;
			t->log_n = t->log_dropped = 0;
		}
		if (t->log_n >= LOG_MAX) {
			t->log_dropped++;
			return;
		}
		t->log_n++;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	peer_name(fd, peer, sizeof(peer));
	fprintf(stderr, "go-heap watch: %s: %s\n", peer, msg);
}

/* ---- memory ------------------------------------------------------------- */

static size_t heap_used(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#else
	return 0;
#endif
}

static void account(wtls_conn *c, size_t before)
{
	size_t after = heap_used();

	if (after >= before)
		c->mem += after - before;
	else
		c->mem = c->mem > before - after ? c->mem - (before - after) : 0;
}

/* ---- the context -------------------------------------------------------- */

/* Never prompt for a key's passphrase on the terminal. */
static int no_passphrase(char *buf, int size, int rw, void *u)
{
	(void)buf;
	(void)size;
	(void)rw;
	(void)u;
	return 0;
}

/* RequestClientCert, RequireAnyClientCert: take any certificate. */
static int accept_any(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

/* The PEM of a key: the file, else the inline text. */
static BIO *open_pem(const char *key, const char *file, const char *text,
		     char *err, size_t errlen)
{
	BIO *b;

	if (file != NULL) {
		FILE *f = fopen(file, "r");

		if (f == NULL) {
			snprintf(err, errlen, "tls_server_config.%s: cannot "
				 "read %s: %s", key, file, strerror(errno));
			return NULL;
		}
		b = BIO_new_fp(f, BIO_CLOSE);
		if (b == NULL)
			fclose(f);
	} else {
		b = BIO_new_mem_buf(text, -1);
	}
	if (b == NULL)
		snprintf(err, errlen, "tls_server_config.%s: out of memory",
			 key);
	return b;
}

static const char *ossl_reason(void)
{
	const char *r = ERR_reason_error_string(ERR_peek_last_error());

	return r ? r : "unknown error";
}

static int load_cert(SSL_CTX *ctx, const wc_config *cfg, char *err,
		     size_t errlen)
{
	const char *key = cfg->cert_file ? "cert_file" : "cert";
	const char *where = cfg->cert_file ? cfg->cert_file : "the text";
	BIO *b = open_pem(key, cfg->cert_file, cfg->cert, err, errlen);
	X509 *x;
	int rc = -1;

	if (b == NULL)
		return -1;
	x = PEM_read_bio_X509_AUX(b, NULL, no_passphrase, NULL);
	if (x == NULL) {
		snprintf(err, errlen, "tls_server_config.%s: no PEM "
			 "certificate in %s (%s)", key, where, ossl_reason());
		goto out;
	}
	if (SSL_CTX_use_certificate(ctx, x) != 1) {
		snprintf(err, errlen, "tls_server_config.%s: certificate in %s "
			 "refused: %s", key, where, ossl_reason());
		X509_free(x);
		goto out;
	}
	X509_free(x);
	/* The rest of the file: the chain. */
	while ((x = PEM_read_bio_X509(b, NULL, no_passphrase, NULL)) != NULL)
		if (SSL_CTX_add0_chain_cert(ctx, x) != 1) {
			X509_free(x);
			snprintf(err, errlen, "tls_server_config.%s: chain "
				 "certificate in %s refused: %s", key, where,
				 ossl_reason());
			goto out;
		}
	rc = 0;
out:
	ERR_clear_error();
	BIO_free(b);
	return rc;
}

static int load_key(SSL_CTX *ctx, const wc_config *cfg, char *err,
		    size_t errlen)
{
	const char *key = cfg->key_file ? "key_file" : "key";
	const char *where = cfg->key_file ? cfg->key_file : "the text";
	BIO *b = open_pem(key, cfg->key_file, cfg->key, err, errlen);
	EVP_PKEY *k;
	int rc = -1;

	if (b == NULL)
		return -1;
	k = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
	if (k == NULL)
		snprintf(err, errlen, "tls_server_config.%s: no unencrypted "
			 "PEM private key in %s (%s)", key, where,
			 ossl_reason());
	else if (SSL_CTX_use_PrivateKey(ctx, k) != 1 ||
		 SSL_CTX_check_private_key(ctx) != 1)
		snprintf(err, errlen, "tls_server_config.%s: the key in %s "
			 "does not match the certificate (%s)", key, where,
			 ossl_reason());
	else
		rc = 0;
	EVP_PKEY_free(k);
	ERR_clear_error();
	BIO_free(b);
	return rc;
}

static int load_client_ca(SSL_CTX *ctx, const wc_config *cfg, char *err,
			  size_t errlen)
{
	const char *key = cfg->client_ca_file ? "client_ca_file" : "client_ca";
	const char *where = cfg->client_ca_file ? cfg->client_ca_file :
			    "the text";
	BIO *b = open_pem(key, cfg->client_ca_file, cfg->client_ca, err,
			  errlen);
	X509_STORE *st = SSL_CTX_get_cert_store(ctx);
	STACK_OF(X509_NAME) *names;
	X509 *x;
	int n = 0;

	if (b == NULL)
		return -1;
	names = sk_X509_NAME_new_null();
	while (names != NULL &&
	       (x = PEM_read_bio_X509(b, NULL, no_passphrase, NULL)) != NULL) {
		X509_NAME *nm = X509_NAME_dup(X509_get_subject_name(x));

		if (X509_STORE_add_cert(st, x) == 1)
			n++;
		if (nm != NULL && sk_X509_NAME_push(names, nm) <= 0)
			X509_NAME_free(nm);
		X509_free(x);
	}
	ERR_clear_error();
	BIO_free(b);
	if (names == NULL || n == 0) {
		sk_X509_NAME_pop_free(names, X509_NAME_free);
		snprintf(err, errlen, "tls_server_config.%s: no PEM "
			 "certificate in %s", key, where);
		return -1;
	}
	SSL_CTX_set_client_CA_list(ctx, names);
	return 0;
}

static SSL_CTX *build_ctx(const wc_config *cfg, char *err, size_t errlen)
{
	static const int modes[] = {
		[WC_NO_CLIENT_CERT] = SSL_VERIFY_NONE,
		[WC_REQUEST_CLIENT_CERT] = SSL_VERIFY_PEER,
		[WC_REQUIRE_ANY_CLIENT_CERT] = SSL_VERIFY_PEER |
			SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
		[WC_VERIFY_CLIENT_CERT_IF_GIVEN] = SSL_VERIFY_PEER,
		[WC_REQUIRE_AND_VERIFY_CLIENT_CERT] = SSL_VERIFY_PEER |
			SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
	};
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	int verify_any;

	if (ctx == NULL) {
		snprintf(err, errlen, "OpenSSL: %s", ossl_reason());
		return NULL;
	}
	/* TLS 1.0 and 1.1 need OpenSSL 3's security level 0: only when the
	 * file asks for them. */
	if (cfg->min_version < WC_TLS12)
		SSL_CTX_set_security_level(ctx, 0);
	SSL_CTX_set_min_proto_version(ctx, cfg->min_version);
	SSL_CTX_set_max_proto_version(ctx, cfg->max_version);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
			    SSL_OP_NO_COMPRESSION |
			    (cfg->prefer_server_ciphers ?
			     SSL_OP_CIPHER_SERVER_PREFERENCE : 0));
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS |
			 SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
	if (SSL_CTX_set_cipher_list(ctx, cfg->cipher_list ? cfg->cipher_list :
				    default_ciphers) != 1) {
		snprintf(err, errlen, "tls_server_config.cipher_suites: none "
			 "of them available in this OpenSSL (%s)",
			 ossl_reason());
		goto fail;
	}
	if (SSL_CTX_set1_groups_list(ctx, cfg->curves_list ? cfg->curves_list
				     : default_curves) != 1) {
		snprintf(err, errlen, "tls_server_config.curve_preferences: "
			 "not available in this OpenSSL (%s)", ossl_reason());
		goto fail;
	}
	if (load_cert(ctx, cfg, err, errlen) != 0 ||
	    load_key(ctx, cfg, err, errlen) != 0)
		goto fail;
	if ((cfg->client_ca_file != NULL || cfg->client_ca != NULL) &&
	    load_client_ca(ctx, cfg, err, errlen) != 0)
		goto fail;
	verify_any = cfg->client_auth == WC_REQUEST_CLIENT_CERT ||
		     cfg->client_auth == WC_REQUIRE_ANY_CLIENT_CERT;
	SSL_CTX_set_verify(ctx, modes[cfg->client_auth],
			   verify_any ? accept_any : NULL);
	/* Verifying without a client CA: Go verifies against the system's
	 * roots. */
	if (!verify_any && cfg->client_auth != WC_NO_CLIENT_CERT &&
	    cfg->client_ca_file == NULL && cfg->client_ca == NULL)
		SSL_CTX_set_default_verify_paths(ctx);
	ERR_clear_error();
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

static void stat_sig(const char *path, filesig *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (path == NULL || stat(path, &st) != 0)
		return;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL +
		      st.st_mtim.tv_nsec;
	s->ctime_ns = (long long)st.st_ctim.tv_sec * 1000000000LL +
		      st.st_ctim.tv_nsec;
	s->ok = 1;
}

static void stat_all(const char *path, const wc_config *cfg, filesig *sig)
{
	stat_sig(path, &sig[0]);
	stat_sig(cfg->cert_file, &sig[1]);
	stat_sig(cfg->key_file, &sig[2]);
	stat_sig(cfg->client_ca_file, &sig[3]);
}

/* Read the file and its certificates (stat'd before they are read, so
 * that a change while reading is seen next time). */
static int load_all(const char *path, wc_config *cfg, SSL_CTX **ctx,
		    filesig *sig, char *err, size_t errlen)
{
	stat_sig(path, &sig[0]);
	*ctx = NULL;
	if (wc_load(path, cfg, err, errlen) != 0)
		return -1;
	stat_all(path, cfg, sig);
	if (cfg->tls && (*ctx = build_ctx(cfg, err, errlen)) == NULL)
		return -1;
	return 0;
}

/* Reload when the file or a certificate changed since it was read. */
static void maybe_reload(wtls_impl *t)
{
	filesig now[NFILES];
	wc_config nc;
	SSL_CTX *nctx = NULL;
	char err[300];
	int rc;

	memset(now, 0, sizeof(now));
	stat_all(t->path, &t->cfg, now);
	if (memcmp(now, t->sig, sizeof(now)) == 0)
		return;
	rc = load_all(t->path, &nc, &nctx, now, err, sizeof(err));
	if (rc == 0 && nc.tls != t->cfg.tls) {
		snprintf(err, sizeof(err), "TLS cannot be turned %s without a "
			 "restart", nc.tls ? "on" : "off");
		SSL_CTX_free(nctx);
		nctx = NULL;
		rc = -1;
	}
	/* Whatever the outcome, these files are not read again until they
	 * change. */
	memcpy(t->sig, now, sizeof(now));
	if (rc != 0) {
		if (strcmp(err, t->reload_err) != 0)
			fprintf(stderr, "go-heap watch: --web.config.file %s: "
				"not reloaded, the previous configuration "
				"stays: %s\n", t->path, err);
		snprintf(t->reload_err, sizeof(t->reload_err), "%s", err);
		wc_free(&nc);
		return;
	}
	t->reload_err[0] = '\0';
	wc_free(&t->cfg);
	t->cfg = nc;
	SSL_CTX_free(t->ctx);
	t->ctx = nctx;
	wc_auth_reset(t->auth);
	if (t->verbose)
		fprintf(stderr, "go-heap watch: --web.config.file %s: "
			"reloaded\n", t->path);
}

static void impl_free(wtls_impl *t)
{
	if (t == NULL)
		return;
	wc_free(&t->cfg);
	SSL_CTX_free(t->ctx);
	wc_auth_free(t->auth);
	free(t->path);
	free(t);
}

static int impl_open(wtls_impl **out, const char *path, int verbose,
		     char *err, size_t errlen)
{
	wtls_impl *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (t == NULL || (t->path = strdup(path)) == NULL ||
	    (t->auth = wc_auth_new()) == NULL) {
		impl_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->verbose = verbose;
	if (load_all(path, &t->cfg, &t->ctx, t->sig, err, errlen) != 0) {
		impl_free(t);
		return -1;
	}
	wc_bucket_init(&t->rate, t->cfg.rate_interval, t->cfg.rate_burst,
		       gh_now());
	t->log_t0 = gh_now();
	*out = t;
	return 0;
}

static int impl_on(const wtls_impl *t)
{
	return t->cfg.tls;
}

static int impl_authenticates(const wtls_impl *t)
{
	return t->cfg.nusers > 0 ||
	       (t->cfg.tls &&
		t->cfg.client_auth == WC_REQUIRE_AND_VERIFY_CLIENT_CERT);
}

static void impl_describe(const wtls_impl *t, char *buf, size_t len)
{
	const wc_config *c = &t->cfg;
	int n = 0;

	if (c->tls)
		n = snprintf(buf, len, "TLS 1.%d-1.%d, client certificates: "
			     "%s", c->min_version - WC_TLS10,
			     c->max_version - WC_TLS10,
			     auth_names[c->client_auth]);
	else
		n = snprintf(buf, len, "no TLS (plain HTTP)");
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; basic auth: %s%zu "
			      "user%s", c->nusers ? "" : "off, ", c->nusers,
			      c->nusers == 1 ? "" : "s");
	if (n >= 0 && (size_t)n < len && c->rate_interval > 0)
		n += snprintf(buf + n, len - (size_t)n, "; rate limit: one "
			      "request every %gs, burst %ld", c->rate_interval,
			      c->rate_burst);
	if (n >= 0 && (size_t)n < len && c->nusers > 0 && !c->tls)
		snprintf(buf + n, len - (size_t)n, " (warning: without TLS the "
			 "passwords cross the network in clear text)");
}

static const char *impl_headers(const wtls_impl *t)
{
	return t->cfg.headers ? t->cfg.headers : "";
}

static int impl_gate(wtls_impl *t, int fd, const char *authz, double now)
{
	char why[160];
	int code;

	maybe_reload(t);
	if (!wc_bucket_allow(&t->rate, now)) {
		tlog(t, fd, "429: over rate_limit");
		return 429;
	}
	code = wc_auth_check(t->auth, &t->cfg, authz, now, why, sizeof(why));
	if (code != 0)
		tlog(t, fd, "%d: %s", code, why);
	return code;
}

/* ---- connections -------------------------------------------------------- */

static const wtls_ops ops;

static wtls_conn *impl_conn_new(wtls_impl *t, int fd)
{
	wtls_conn *c;

	maybe_reload(t);
	if (t->ctx == NULL)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->head.ops = &ops;
	c->t = t;
	c->fd = fd;
	return c;
}

/*
 * Read the first TLS record (the ClientHello, or what stands in its
 * place) into c->rec, never past it, the buffer growing as bytes come:
 * a client that stalls in its ClientHello costs the bytes it sent, not an
 * SSL and its buffers (about 70 KiB).  1: it is in (or the bytes are no
 * handshake record: OpenSSL refuses them); 0: wait for POLLIN; -1: the
 * peer closed or failed.
 */
static int first_record(wtls_conn *c, short *events)
{
	size_t need, want;
	ssize_t n;

	for (;;) {
		need = 5;
		if (c->reclen >= 5) {
			if (c->rec[0] != 0x16)
				return 1;
			need = 5 + ((size_t)c->rec[3] << 8 | c->rec[4]);
			if (need > 5 + 16384 + 2048)
				return 1;
		}
		if (c->reclen >= need)
			return 1;
		if (c->reccap < need && c->reclen == c->reccap) {
			size_t nc = c->reccap ? c->reccap * 2 : 512;
			unsigned char *np;

			if (nc > need && need > 5)
				nc = need;
			np = realloc(c->rec, nc);
			if (np == NULL)
				return -1;
			c->rec = np;
			c->reccap = nc;
		}
		want = (need < c->reccap ? need : c->reccap) - c->reclen;
		n = recv(c->fd, c->rec + c->reclen, want, 0);
		if (n > 0) {
			c->reclen += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			*events = POLLIN;
			return 0;
		}
		return -1;
	}
}

/* The SSL, reading first the record read already, then the socket. */
static int make_ssl(wtls_conn *c)
{
	size_t before = heap_used();
	BIO *rb, *wb;

	c->ssl = SSL_new(c->t->ctx);
	rb = BIO_new(BIO_s_mem());
	wb = BIO_new_socket(c->fd, BIO_NOCLOSE);
	if (c->ssl == NULL || rb == NULL || wb == NULL ||
	    BIO_write(rb, c->rec, (int)c->reclen) != (int)c->reclen) {
		BIO_free(rb);
		BIO_free(wb);
		SSL_free(c->ssl);
		c->ssl = NULL;
		ERR_clear_error();
		return -1;
	}
	BIO_set_mem_eof_return(rb, -1);  /* empty: retry, not EOF */
	SSL_set_bio(c->ssl, rb, wb);
	SSL_set_accept_state(c->ssl);
	c->from_rec = 1;
	free(c->rec);
	c->rec = NULL;
	c->reclen = c->reccap = 0;
	account(c, before);
	return 0;
}

/* Does the client certificate carry one of client_allowed_sans (DNS,
 * IP, e-mail or URI, exact)? */
static int sans_ok(const wc_config *cfg, SSL *ssl)
{
	X509 *x = SSL_get0_peer_certificate(ssl);
	GENERAL_NAMES *gens;
	int i, ok = 0;
	size_t k;

	if (x == NULL)
		return 0;
	gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	for (i = 0; gens != NULL && !ok && i < sk_GENERAL_NAME_num(gens);
	     i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
		char ip[INET6_ADDRSTRLEN];
		const char *s = NULL;
		size_t n = 0;

		if (g->type == GEN_DNS || g->type == GEN_EMAIL ||
		    g->type == GEN_URI) {
			s = (const char *)ASN1_STRING_get0_data(g->d.ia5);
			n = (size_t)ASN1_STRING_length(g->d.ia5);
		} else if (g->type == GEN_IPADD &&
			   (g->d.ip->length == 4 || g->d.ip->length == 16) &&
			   inet_ntop(g->d.ip->length == 4 ? AF_INET : AF_INET6,
				     g->d.ip->data, ip, sizeof(ip)) != NULL) {
			s = ip;
			n = strlen(ip);
		}
		for (k = 0; s != NULL && k < cfg->nsans; k++)
			if (strlen(cfg->allowed_sans[k]) == n &&
			    memcmp(cfg->allowed_sans[k], s, n) == 0)
				ok = 1;
	}
	GENERAL_NAMES_free(gens);
	return ok;
}

static int impl_handshake(wtls_conn *c, short *events)
{
	static const char plain[] = "HTTP/1.0 400 Bad Request\r\n\r\n"
		"Client sent an HTTP request to an HTTPS server.\n";
	unsigned long e;
	size_t before;
	int rc, se;
	long vr;

	if (c->ssl == NULL) {
		rc = first_record(c, events);
		if (rc <= 0) {
			if (rc < 0 && c->t->verbose)
				tlog(c->t, c->fd, "TLS handshake failed: the "
				     "peer closed the connection");
			return rc;
		}
		if (make_ssl(c) != 0)
			return -1;
	}
	before = heap_used();
	ERR_clear_error();
	rc = SSL_do_handshake(c->ssl);
	/* (SSL_get_error reads the retry flags of the BIO in place) */
	se = SSL_get_error(c->ssl, rc);
	/* The first record read: from now on, the socket. */
	if (c->from_rec && BIO_ctrl_pending(SSL_get_rbio(c->ssl)) == 0) {
		BIO *sb = BIO_new_socket(c->fd, BIO_NOCLOSE);

		if (sb == NULL) {
			account(c, before);
			c->failed = 1;
			return -1;
		}
		SSL_set0_rbio(c->ssl, sb);
		c->from_rec = 0;
	}
	account(c, before);
	if (rc == 1) {
		*events = 0;
		if (c->t->cfg.nsans > 0 && !sans_ok(&c->t->cfg, c->ssl)) {
			c->failed = 1;
			tlog(c->t, c->fd, "TLS: the client certificate has "
			     "none of client_allowed_sans");
			return -1;
		}
		c->done = 1;
		return 1;
	}
	if (se == SSL_ERROR_WANT_READ || se == SSL_ERROR_WANT_WRITE) {
		*events = se == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		return 0;
	}
	c->failed = 1;
	e = ERR_peek_last_error();
	if (ERR_GET_LIB(e) == ERR_LIB_SSL &&
	    (ERR_GET_REASON(e) == SSL_R_HTTP_REQUEST ||
	     ERR_GET_REASON(e) == SSL_R_HTTPS_PROXY_REQUEST)) {
		/* As Go's server answers it; the socket's buffer takes it.
		 * The request is read first (what came of it), so that the
		 * close does not reset the connection under the answer. */
		char junk[4096];

		while (recv(c->fd, junk, sizeof(junk), 0) > 0)
			;
		if (send(c->fd, plain, sizeof(plain) - 1, MSG_NOSIGNAL) < 0)
			(void)0;
		tlog(c->t, c->fd, "TLS handshake failed: the client sent plain "
		     "HTTP");
	} else if (e == 0 || (ERR_GET_LIB(e) == ERR_LIB_SSL &&
			      ERR_GET_REASON(e) ==
			      SSL_R_UNEXPECTED_EOF_WHILE_READING)) {
		/* closed or reset by the peer before or during the
		 * handshake: a probe, or a client that gave up */
		if (c->t->verbose)
			tlog(c->t, c->fd, "TLS handshake failed: the peer "
			     "closed the connection");
	} else {
		vr = SSL_get_verify_result(c->ssl);
		tlog(c->t, c->fd, "TLS handshake failed: %s%s%s%s",
		     ossl_reason(), vr != X509_V_OK ? " (client certificate: "
		     : "", vr != X509_V_OK ? X509_verify_cert_error_string(vr)
		     : "", vr != X509_V_OK ? ")" : "");
	}
	ERR_clear_error();
	return -1;
}

/* SSL_read/SSL_write's result as recv/send's. */
static ssize_t io_result(wtls_conn *c, int n, short *events)
{
	int se;

	if (n > 0) {
		*events = 0;
		return n;
	}
	se = SSL_get_error(c->ssl, n);
	ERR_clear_error();
	switch (se) {
	case SSL_ERROR_WANT_READ:
		*events = POLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		*events = POLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	default:
		c->failed = 1;
		errno = ECONNRESET;
		return -1;
	}
}

static ssize_t impl_read(wtls_conn *c, void *buf, size_t len, short *events)
{
	size_t before = heap_used();
	int n;

	ERR_clear_error();
	n = SSL_read(c->ssl, buf, len > 0x40000000 ? 0x40000000 : (int)len);
	account(c, before);
	return io_result(c, n, events);
}

static ssize_t impl_write(wtls_conn *c, const void *buf, size_t len,
			  short *events)
{
	size_t before = heap_used();
	int n;

	ERR_clear_error();
	n = SSL_write(c->ssl, buf, len > 0x40000000 ? 0x40000000 : (int)len);
	account(c, before);
	return io_result(c, n, events);
}

static int impl_pending(const wtls_conn *c)
{
	return c->ssl != NULL ? SSL_pending(c->ssl) : 0;
}

static void impl_conn_free(wtls_conn *c)
{
	if (c == NULL)
		return;
	if (c->ssl != NULL && c->done && !c->failed)
		SSL_shutdown(c->ssl);
	ERR_clear_error();
	SSL_free(c->ssl);
	free(c->rec);
	free(c);
}

static size_t impl_conn_memory(const wtls_conn *c)
{
	return sizeof(*c) + c->reccap + c->mem;
}

static const wtls_ops ops = {
	WTLS_ABI, impl_open, impl_free, impl_on, impl_describe, impl_headers,
	impl_gate, impl_conn_new, impl_handshake, impl_read, impl_write,
	impl_pending, impl_conn_free, impl_conn_memory, impl_authenticates,
};

/* The module's one exported symbol (src/watch/watch_tls_load.c). */
__attribute__((visibility("default"))) const wtls_ops *gh_webconfig_ops(void)
{
	return &ops;
}

#endif

/*
 * watch_webconfig.c - the exporter-toolkit's web configuration file
 * (watch_webconfig.h, doc/watch.md "TLS and basic auth").
 *
 * The YAML is read with libyaml's document loader and walked against the
 * toolkit's schema (web/tls_config.go's Config, as yaml.v2's
 * UnmarshalStrict decodes it): an unknown or repeated key, a mapping where
 * a string goes, a value outside its set is an error naming the key, with
 * the line.  Defaults as the toolkit's getConfig: min_version TLS12,
 * max_version TLS13, prefer_server_cipher_suites true, http2 true,
 * client_auth_type NoClientCert; relative paths are joined with the
 * config file's directory.  Go's names are mapped to OpenSSL's here
 * (cipher suites: Go's tls.CipherSuites(), the secure ones; curves:
 * CurveP256/384/521, X25519), so that watch_tls.c only applies them.
 *
 * Basic auth as the toolkit's webHandler: "Basic" credentials, bcrypt
 * checked (crypt_rn, its output compared with the stored hash in constant
 * time), an unknown user checked against a real hash all the same (no
 * timing difference), results cached by a SHA-256 of user, hash and
 * password.  One addition: uncached checks draw on a token bucket, so a
 * client guessing passwords costs the single-threaded loop at most
 * WC_BCRYPT_PER_S bcrypt runs a second; past it the answer is 429
 * without a check (cached credentials, the scraper's, still pass).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "watch_webconfig.h"

void wc_free(wc_config *c)
{
	size_t i;

	if (c == NULL)
		return;
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert);
	free(c->key);
	free(c->client_ca);
	for (i = 0; i < c->nsans; i++)
		free(c->allowed_sans[i]);
	free(c->allowed_sans);
	free(c->cipher_list);
	free(c->curves_list);
	free(c->headers);
	for (i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	memset(c, 0, sizeof(*c));
}

void wc_bucket_init(wc_bucket *b, double interval, long burst, double now)
{
	b->interval = interval;
	b->burst = (double)burst;
	b->tokens = (double)burst;
	b->last = now;
}

int wc_bucket_allow(wc_bucket *b, double now)
{
	if (!(b->interval > 0))
		return 1;
	if (now > b->last) {
		b->tokens += (now - b->last) / b->interval;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
		b->last = now;
	}
	if (b->tokens >= 1) {
		b->tokens -= 1;
		return 1;
	}
	return 0;
}

#ifdef HAVE_WEBCONFIG

#include <crypt.h>
#include <libgen.h>
#include <yaml.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

enum { MAX_FILE = 1 << 20 };

typedef struct pctx {
	yaml_document_t *doc;
	const char *dir;           /* the config file's directory */
	char *err;
	size_t errlen;
} pctx;

/* "KEY (line N): message" */
#ifdef __GNUC__
__attribute__((format(printf, 4, 5)))
#endif
static int fail(pctx *p, const char *key, const yaml_node_t *n,
		const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n != NULL)
		snprintf(p->err, p->errlen, "%s (line %lu): %s", key,
			 (unsigned long)n->start_mark.line + 1, msg);
	else
		snprintf(p->err, p->errlen, "%s: %s", key, msg);
	return -1;
}

static yaml_node_t *node(pctx *p, int i)
{
	return yaml_document_get_node(p->doc, i);
}

/* A plain null (~, null, or nothing): the key is left at its default. */
static int is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = (const char *)n->data.scalar.value;
	return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
	       strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

static const char *sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A string: any scalar (yaml.v2 takes a number's text for a string). */
static int get_str(pctx *p, const char *key, yaml_node_t *n, char **out)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE)
		return fail(p, key, n, "expected a string");
	if (strlen(sval(n)) != n->data.scalar.length)
		return fail(p, key, n, "contains a NUL byte");
	free(*out);
	*out = strdup(sval(n));
	if (*out == NULL)
		return fail(p, key, n, "out of memory");
	return 0;
}

/* A path: a string, joined with the config file's directory. */
static int get_path(pctx *p, const char *key, yaml_node_t *n, char **out)
{
	char *s = NULL;
	size_t len;

	if (get_str(p, key, n, &s) != 0)
		return -1;
	if (s == NULL || s[0] == '/' || s[0] == '\0') {
		free(*out);
		*out = s;
		return 0;
	}
	len = strlen(p->dir) + 1 + strlen(s) + 1;
	free(*out);
	*out = malloc(len);
	if (*out == NULL) {
		free(s);
		return fail(p, key, n, "out of memory");
	}
	snprintf(*out, len, "%s/%s", p->dir, s);
	free(s);
	return 0;
}

/* A bool as YAML 1.1 (yaml.v2) spells it, plain. */
static int get_bool(pctx *p, const char *key, yaml_node_t *n, int *out)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes",
					  "YES", "on", "On", "ON", "y", "Y" };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No",
					  "NO", "off", "Off", "OFF", "n", "N" };
	size_t i;

	if (is_null(n))
		return 0;
	if (n->type == YAML_SCALAR_NODE &&
	    n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			if (strcmp(sval(n), t[i]) == 0) {
				*out = 1;
				return 0;
			}
			if (strcmp(sval(n), f[i]) == 0) {
				*out = 0;
				return 0;
			}
		}
	}
	return fail(p, key, n, "expected true or false, not '%s'",
		    n->type == YAML_SCALAR_NODE ? sval(n) : "(not a scalar)");
}

/* A non-negative decimal int, plain. */
static int get_int(pctx *p, const char *key, yaml_node_t *n, long *out)
{
	char *end;
	long v;

	if (is_null(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return fail(p, key, n, "expected an integer");
	errno = 0;
	v = strtol(sval(n), &end, 10);
	if (end == sval(n) || *end != '\0' || errno != 0 || v < 0 ||
	    v > 0x7fffffff)
		return fail(p, key, n, "expected a non-negative integer, not "
			    "'%s'", sval(n));
	*out = v;
	return 0;
}

/*
 * A duration as Go's time.ParseDuration ("1s", "1m30s", "250ms", "0"),
 * or a plain integer of nanoseconds (yaml.v2 decodes an int into a
 * time.Duration as is).  Negative ones are refused.
 */
static int get_duration(pctx *p, const char *key, yaml_node_t *n,
			double *out)
{
	static const struct { const char *u; double s; } units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 },
		{ "\xce\xbcs", 1e-6 }, { "ms", 1e-3 }, { "s", 1 }, { "m", 60 },
		{ "h", 3600 },
	};
	const char *s;
	char *end;
	double total = 0, v;
	size_t i, best;

	if (is_null(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE)
		return fail(p, key, n, "expected a duration");
	s = sval(n);
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		long ns;

		errno = 0;
		ns = strtol(s, &end, 10);
		if (end != s && *end == '\0' && errno == 0) {
			if (ns < 0)
				goto bad;
			*out = (double)ns * 1e-9;
			return 0;
		}
	}
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (*s == '\0')
		goto bad;
	while (*s != '\0') {
		if (!((*s >= '0' && *s <= '9') || *s == '.'))
			goto bad;
		errno = 0;
		v = strtod(s, &end);
		if (end == s || errno != 0)
			goto bad;
		s = end;
		best = sizeof(units) / sizeof(units[0]);
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strncmp(s, units[i].u, strlen(units[i].u)) == 0 &&
			    (best == sizeof(units) / sizeof(units[0]) ||
			     strlen(units[i].u) > strlen(units[best].u)))
				best = i;
		if (best == sizeof(units) / sizeof(units[0]))
			goto bad;
		total += v * units[best].s;
		s += strlen(units[best].u);
	}
	*out = total;
	return 0;
bad:
	return fail(p, key, n, "'%s' is not a duration (1s, 500ms, 1m30s)",
		    sval(n));
}

/* A list of strings: each item through item(); null is empty. */
static int get_list(pctx *p, const char *key, yaml_node_t *n,
		    int (*item)(pctx *p, const char *key, yaml_node_t *it,
				void *arg), void *arg)
{
	yaml_node_item_t *i;

	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(p, key, n, "expected a list");
	for (i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		yaml_node_t *it = node(p, *i);

		if (it == NULL || it->type != YAML_SCALAR_NODE)
			return fail(p, key, it, "expected a list of "
				    "strings");
		if (item(p, key, it, arg) != 0)
			return -1;
	}
	return 0;
}

/* Append s to the ':'-separated list *l. */
static int list_add(char **l, const char *s)
{
	size_t a = *l ? strlen(*l) : 0, b = strlen(s);
	char *np = realloc(*l, a + 1 + b + 1);

	if (np == NULL)
		return -1;
	if (a > 0)
		np[a++] = ':';
	memcpy(np + a, s, b + 1);
	*l = np;
	return 0;
}

/* Append a to the string *s. */
static int str_append(char **s, const char *a)
{
	size_t n = *s ? strlen(*s) : 0, m = strlen(a);
	char *np = realloc(*s, n + m + 1);

	if (np == NULL)
		return -1;
	memcpy(np + n, a, m + 1);
	*s = np;
	return 0;
}

/* Go's tls.CipherSuites() (the secure ones), with OpenSSL's names; the
 * TLS 1.3 suites are accepted and, as in Go, not configurable. */
static const struct { const char *go, *ossl; } ciphers[] = {
	{ "TLS_AES_128_GCM_SHA256", NULL },
	{ "TLS_AES_256_GCM_SHA384", NULL },
	{ "TLS_CHACHA20_POLY1305_SHA256", NULL },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	  "ECDHE-ECDSA-AES128-GCM-SHA256" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	  "ECDHE-ECDSA-AES256-GCM-SHA384" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	  "ECDHE-RSA-AES128-GCM-SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	  "ECDHE-RSA-AES256-GCM-SHA384" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	  "ECDHE-RSA-CHACHA20-POLY1305" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	  "ECDHE-ECDSA-CHACHA20-POLY1305" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA" },
	{ "TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA" },
	{ "TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256" },
	{ "TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384" },
};

static int cipher_item(pctx *p, const char *key, yaml_node_t *it, void *arg)
{
	wc_config *c = arg;
	size_t i;

	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		if (strcmp(sval(it), ciphers[i].go) != 0)
			continue;
		if (ciphers[i].ossl != NULL &&
		    list_add(&c->cipher_list, ciphers[i].ossl) != 0)
			return fail(p, key, it, "out of memory");
		return 0;
	}
	return fail(p, key, it, "unknown cipher: %s", sval(it));
}

static int curve_item(pctx *p, const char *key, yaml_node_t *it, void *arg)
{
	static const struct { const char *go, *ossl; } curves[] = {
		{ "CurveP256", "P-256" }, { "CurveP384", "P-384" },
		{ "CurveP521", "P-521" }, { "X25519", "X25519" },
	};
	wc_config *c = arg;
	size_t i;

	for (i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
		if (strcmp(sval(it), curves[i].go) == 0) {
			if (list_add(&c->curves_list, curves[i].ossl) != 0)
				return fail(p, key, it, "out of memory");
			return 0;
		}
	return fail(p, key, it, "unknown curve: %s (CurveP256, CurveP384, "
		    "CurveP521, X25519)", sval(it));
}

static int san_item(pctx *p, const char *key, yaml_node_t *it, void *arg)
{
	wc_config *c = arg;
	char **np = realloc(c->allowed_sans,
			    (c->nsans + 2) * sizeof(*c->allowed_sans));

	if (np == NULL)
		return fail(p, key, it, "out of memory");
	c->allowed_sans = np;
	np[c->nsans] = NULL;
	np[c->nsans + 1] = NULL;
	if (get_str(p, key, it, &np[c->nsans]) != 0)
		return -1;
	if (np[c->nsans] == NULL)
		return fail(p, key, it, "an empty entry");
	c->nsans++;
	return 0;
}

static int get_version(pctx *p, const char *key, yaml_node_t *n, int *out)
{
	static const struct { const char *name; int v; } vers[] = {
		{ "TLS10", WC_TLS10 }, { "TLS11", WC_TLS11 },
		{ "TLS12", WC_TLS12 }, { "TLS13", WC_TLS13 },
	};
	size_t i;

	if (is_null(n))
		return 0;
	if (n->type == YAML_SCALAR_NODE)
		for (i = 0; i < sizeof(vers) / sizeof(vers[0]); i++)
			if (strcmp(sval(n), vers[i].name) == 0) {
				*out = vers[i].v;
				return 0;
			}
	return fail(p, key, n, "unknown TLS version: %s (TLS10, TLS11, TLS12, "
		    "TLS13)", n->type == YAML_SCALAR_NODE ? sval(n) : "?");
}

static int get_client_auth(pctx *p, const char *key, yaml_node_t *n,
			   int *out, int *set)
{
	static const struct { const char *name; int v; } types[] = {
		{ "NoClientCert", WC_NO_CLIENT_CERT },
		{ "RequestClientCert", WC_REQUEST_CLIENT_CERT },
		{ "RequireAnyClientCert", WC_REQUIRE_ANY_CLIENT_CERT },
		/* the toolkit keeps this older spelling */
		{ "RequireClientCert", WC_REQUIRE_ANY_CLIENT_CERT },
		{ "VerifyClientCertIfGiven", WC_VERIFY_CLIENT_CERT_IF_GIVEN },
		{ "RequireAndVerifyClientCert",
		  WC_REQUIRE_AND_VERIFY_CLIENT_CERT },
	};
	size_t i;

	if (is_null(n))
		return 0;
	if (n->type == YAML_SCALAR_NODE) {
		if (sval(n)[0] == '\0') {
			*set = 1;   /* "" is NoClientCert, and counts as set */
			return 0;
		}
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strcmp(sval(n), types[i].name) == 0) {
				*out = types[i].v;
				*set = 1;
				return 0;
			}
	}
	return fail(p, key, n, "invalid ClientAuth: %s (NoClientCert, "
		    "RequestClientCert, RequireAnyClientCert, "
		    "VerifyClientCertIfGiven, RequireAndVerifyClientCert)",
		    n->type == YAML_SCALAR_NODE ? sval(n) : "?");
}

/*
 * Walk mapping n: for each pair, its key must be one of names[] (else
 * "PREFIX.KEY: unknown key"), at most once; each[k] is its value node.
 */
static int mapping(pctx *p, const char *prefix, yaml_node_t *n,
		   const char *const *names, size_t nnames,
		   yaml_node_t **each)
{
	yaml_node_pair_t *pr;
	size_t k;
	char key[160];

	memset(each, 0, nnames * sizeof(*each));
	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, prefix[0] ? prefix : "(top level)", n,
			    "expected a mapping");
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = node(p, pr->key);

		if (kn == NULL || kn->type != YAML_SCALAR_NODE)
			return fail(p, prefix[0] ? prefix : "(top level)", kn,
				    "a key that is not a string");
		snprintf(key, sizeof(key), "%s%s%s", prefix,
			 prefix[0] ? "." : "", sval(kn));
		for (k = 0; k < nnames; k++)
			if (strcmp(sval(kn), names[k]) == 0)
				break;
		if (k == nnames)
			return fail(p, key, kn, "unknown key");
		if (each[k] != NULL)
			return fail(p, key, kn, "set twice");
		each[k] = node(p, pr->value);
	}
	return 0;
}

static int tls_section(pctx *p, yaml_node_t *n, wc_config *c)
{
	static const char *const names[] = {
		"cert", "key", "client_ca", "cert_file", "key_file",
		"client_auth_type", "client_ca_file", "client_allowed_sans",
		"min_version", "max_version", "cipher_suites",
		"prefer_server_cipher_suites", "curve_preferences",
	};
	enum { CERT, KEY, CLIENT_CA, CERT_FILE, KEY_FILE, CLIENT_AUTH,
	       CLIENT_CA_FILE, SANS, MINV, MAXV, CIPHERS, PREFER, CURVES, N };
	yaml_node_t *v[N];
	int auth_set = 0, rc = 0;
	const char *pre = "tls_server_config";

	if (mapping(p, pre, n, names, N, v) != 0)
		return -1;
#define K(i) (i == CERT ? "tls_server_config.cert" : \
	      i == KEY ? "tls_server_config.key" : \
	      i == CLIENT_CA ? "tls_server_config.client_ca" : \
	      i == CERT_FILE ? "tls_server_config.cert_file" : \
	      i == KEY_FILE ? "tls_server_config.key_file" : \
	      i == CLIENT_AUTH ? "tls_server_config.client_auth_type" : \
	      i == CLIENT_CA_FILE ? "tls_server_config.client_ca_file" : \
	      i == SANS ? "tls_server_config.client_allowed_sans" : \
	      i == MINV ? "tls_server_config.min_version" : \
	      i == MAXV ? "tls_server_config.max_version" : \
	      i == CIPHERS ? "tls_server_config.cipher_suites" : \
	      i == PREFER ? "tls_server_config.prefer_server_cipher_suites" : \
	      "tls_server_config.curve_preferences")
	if (v[CERT] && get_str(p, K(CERT), v[CERT], &c->cert) != 0)
		return -1;
	if (v[KEY] && get_str(p, K(KEY), v[KEY], &c->key) != 0)
		return -1;
	if (v[CLIENT_CA] &&
	    get_str(p, K(CLIENT_CA), v[CLIENT_CA], &c->client_ca) != 0)
		return -1;
	if (v[CERT_FILE] &&
	    get_path(p, K(CERT_FILE), v[CERT_FILE], &c->cert_file) != 0)
		return -1;
	if (v[KEY_FILE] &&
	    get_path(p, K(KEY_FILE), v[KEY_FILE], &c->key_file) != 0)
		return -1;
	if (v[CLIENT_CA_FILE] &&
	    get_path(p, K(CLIENT_CA_FILE), v[CLIENT_CA_FILE],
		     &c->client_ca_file) != 0)
		return -1;
	if (v[CLIENT_AUTH] &&
	    get_client_auth(p, K(CLIENT_AUTH), v[CLIENT_AUTH],
			    &c->client_auth, &auth_set) != 0)
		return -1;
	if (v[SANS] && get_list(p, K(SANS), v[SANS], san_item, c) != 0)
		return -1;
	if (v[MINV] && get_version(p, K(MINV), v[MINV], &c->min_version) != 0)
		return -1;
	if (v[MAXV] && get_version(p, K(MAXV), v[MAXV], &c->max_version) != 0)
		return -1;
	if (v[CIPHERS] &&
	    get_list(p, K(CIPHERS), v[CIPHERS], cipher_item, c) != 0)
		return -1;
	if (v[PREFER] &&
	    get_bool(p, K(PREFER), v[PREFER], &c->prefer_server_ciphers) != 0)
		return -1;
	if (v[CURVES] &&
	    get_list(p, K(CURVES), v[CURVES], curve_item, c) != 0)
		return -1;
	/* The toolkit's IsEnabled and validateTLSPaths. */
	c->tls = c->cert_file || c->cert || c->key_file || c->key ||
		 c->client_ca_file || c->client_ca || auth_set;
	if (!c->tls) {
		if (c->allowed_sans != NULL)
			return fail(p, K(SANS), v[SANS], "set without a "
				    "certificate (cert_file)");
		return 0;
	}
	if (c->cert_file == NULL && c->cert == NULL)
		rc = fail(p, pre, NULL, "missing one of cert or cert_file");
	else if (c->key_file == NULL && c->key == NULL)
		rc = fail(p, pre, NULL, "missing one of key or key_file");
	else if (c->cert_file != NULL && c->cert != NULL)
		rc = fail(p, K(CERT), v[CERT], "set with cert_file: one or "
			  "the other");
	else if (c->key_file != NULL && c->key != NULL)
		rc = fail(p, K(KEY), v[KEY], "set with key_file: one or the "
			  "other");
	else if (c->client_ca_file != NULL && c->client_ca != NULL)
		rc = fail(p, K(CLIENT_CA), v[CLIENT_CA], "set with "
			  "client_ca_file: one or the other");
	else if ((c->client_ca_file != NULL || c->client_ca != NULL) &&
		 c->client_auth == WC_NO_CLIENT_CERT)
		rc = fail(p, K(CLIENT_AUTH), v[CLIENT_AUTH], "client CA's "
			  "have been configured without a Client Auth "
			  "Policy (client_auth_type NoClientCert)");
	else if (c->allowed_sans != NULL &&
		 c->client_auth != WC_REQUIRE_ANY_CLIENT_CERT &&
		 c->client_auth != WC_REQUIRE_AND_VERIFY_CLIENT_CERT)
		rc = fail(p, K(SANS), v[SANS], "client_allowed_sans requires "
			  "client_auth_type to be one of RequireAnyClientCert "
			  "or RequireAndVerifyClientCert");
	else if (c->min_version > c->max_version)
		rc = fail(p, K(MINV), v[MINV], "above max_version");
#undef K
	return rc;
}

static int http_section(pctx *p, yaml_node_t *n, wc_config *c)
{
	/* The toolkit's extraHTTPHeaders: the names, and the values of the
	 * enumerated ones. */
	static const struct { const char *name, *vals[3]; } allowed[] = {
		{ "Strict-Transport-Security", { NULL } },
		{ "X-Content-Type-Options", { "nosniff", NULL } },
		{ "X-Frame-Options", { "deny", "sameorigin", NULL } },
		{ "X-XSS-Protection", { NULL } },
		{ "Content-Security-Policy", { NULL } },
	};
	static const char *const names[] = { "http2", "headers" };
	const char *hnames[5];
	yaml_node_t *v[2], *h[5];
	size_t i, k;
	char key[100];

	if (mapping(p, "http_server_config", n, names, 2, v) != 0)
		return -1;
	if (v[0] && get_bool(p, "http_server_config.http2", v[0],
			     &c->http2) != 0)
		return -1;
	if (v[1] == NULL)
		return 0;
	for (i = 0; i < 5; i++)
		hnames[i] = allowed[i].name;
	if (mapping(p, "http_server_config.headers", v[1], hnames, 5, h) != 0)
		return -1;
	for (i = 0; i < 5; i++) {
		char *val = NULL, *line;
		size_t len;

		if (h[i] == NULL)
			continue;
		snprintf(key, sizeof(key), "http_server_config.headers.%s",
			 allowed[i].name);
		if (get_str(p, key, h[i], &val) != 0)
			return -1;
		if (val == NULL || val[0] == '\0') {
			free(val);      /* unset if blank */
			continue;
		}
		if (strpbrk(val, "\r\n") != NULL) {
			free(val);
			return fail(p, key, h[i], "a line break in the "
				    "value");
		}
		if (allowed[i].vals[0] != NULL) {
			for (k = 0; allowed[i].vals[k] != NULL; k++)
				if (strcmp(val, allowed[i].vals[k]) == 0)
					break;
			if (allowed[i].vals[k] == NULL) {
				fail(p, key, h[i], "invalid value '%s'", val);
				snprintf(p->err + strlen(p->err),
					 p->errlen - strlen(p->err),
					 " (expected %s%s%s)", allowed[i].vals[0],
					 allowed[i].vals[1] ? " or " : "",
					 allowed[i].vals[1] ?
					 allowed[i].vals[1] : "");
				free(val);
				return -1;
			}
		}
		/* The server always sends X-Content-Type-Options: nosniff;
		 * the only value this header may have adds nothing. */
		if (i == 1) {
			free(val);
			continue;
		}
		len = strlen(allowed[i].name) + 2 + strlen(val) + 3;
		line = malloc(len);
		if (line != NULL)
			snprintf(line, len, "%s: %s\r\n", allowed[i].name, val);
		if (line == NULL || str_append(&c->headers, line) != 0) {
			free(line);
			free(val);
			return fail(p, key, h[i], "out of memory");
		}
		free(line);
		free(val);
	}
	return 0;
}

/* bcrypt as Go's bcrypt.Cost accepts it: $2a$, $2b$ or $2y$, cost 4-31,
 * 53 characters of salt and hash. */
static int bcrypt_ok(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789";
	int cost;
	size_t i;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
	    (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') || h[3] != '$' ||
	    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return 0;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return 0;
	for (i = 7; i < 60; i++)
		if (strchr(b64, h[i]) == NULL)
			return 0;
	return 1;
}

static int users_section(pctx *p, yaml_node_t *n, wc_config *c)
{
	yaml_node_pair_t *pr;
	size_t cnt, i;
	char key[200];

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, "basic_auth_users", n, "expected a mapping of "
			    "user names to bcrypt hashes");
	cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cnt == 0)
		return 0;
	c->users = calloc(cnt, sizeof(*c->users));
	if (c->users == NULL)
		return fail(p, "basic_auth_users", n, "out of memory");
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = node(p, pr->key), *vn = node(p, pr->value);
		wc_user *u = &c->users[c->nusers];

		if (kn == NULL || kn->type != YAML_SCALAR_NODE)
			return fail(p, "basic_auth_users", kn, "a user name "
				    "that is not a string");
		snprintf(key, sizeof(key), "basic_auth_users.%s", sval(kn));
		for (i = 0; i < c->nusers; i++)
			if (strcmp(c->users[i].name, sval(kn)) == 0)
				return fail(p, key, kn, "set twice");
		if (strchr(sval(kn), ':') != NULL)
			return fail(p, key, kn, "a user name with ':' cannot "
				    "log in with basic auth");
		u->name = strdup(sval(kn));
		if (u->name == NULL)
			return fail(p, key, kn, "out of memory");
		c->nusers++;
		if (vn == NULL || get_str(p, key, vn, &u->hash) != 0)
			return -1;
		if (u->hash == NULL || !bcrypt_ok(u->hash))
			return fail(p, key, vn, "not a bcrypt hash ($2y$10$ "
				    "and 53 characters: htpasswd -nBC 10 \"\" "
				    "| tr -d ':\\n')");
	}
	return 0;
}

static int rate_section(pctx *p, yaml_node_t *n, wc_config *c)
{
	static const char *const names[] = { "interval", "burst" };
	yaml_node_t *v[2];

	if (mapping(p, "rate_limit", n, names, 2, v) != 0)
		return -1;
	if (v[0] && get_duration(p, "rate_limit.interval", v[0],
				 &c->rate_interval) != 0)
		return -1;
	if (v[1] && get_int(p, "rate_limit.burst", v[1], &c->rate_burst) != 0)
		return -1;
	return 0;
}

/* The whole file into a NUL-terminated buffer (at most MAX_FILE). */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
		return NULL;
	}
	buf = malloc(MAX_FILE + 1);
	if (buf == NULL) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	if (ferror(f) || n > MAX_FILE) {
		snprintf(err, errlen, ferror(f) ? "cannot read it: %s" :
			 "larger than 1 MiB%s", ferror(f) ? strerror(errno) :
			 "");
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The message names values from the file, which may hold line breaks (a
 * plain scalar folded over empty lines): keep it one line. */
static void one_line(char *err)
{
	for (; *err != '\0'; err++)
		if ((unsigned char)*err < 0x20 || *err == 0x7f)
			*err = '?';
}

int wc_load(const char *path, wc_config *c, char *err, size_t errlen)
{
	static const char *const names[] = { "tls_server_config",
		"http_server_config", "basic_auth_users", "rate_limit" };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *v[4];
	char *buf, *dirbuf;
	size_t len = 0;
	pctx p;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	c->min_version = WC_TLS12;
	c->max_version = WC_TLS13;
	c->prefer_server_ciphers = 1;
	c->http2 = 1;
	buf = slurp(path, &len, err, errlen);
	if (buf == NULL)
		return -1;
	dirbuf = strdup(path);
	if (dirbuf == NULL || !yaml_parser_initialize(&parser)) {
		free(dirbuf);
		free(buf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "YAML syntax error at line %lu, column "
			 "%lu: %s%s%s", (unsigned long)parser.problem_mark.line
			 + 1, (unsigned long)parser.problem_mark.column + 1,
			 parser.problem ? parser.problem : "unknown",
			 parser.context ? " " : "",
			 parser.context ? parser.context : "");
		one_line(err);
		yaml_parser_delete(&parser);
		free(dirbuf);
		free(buf);
		return -1;
	}
	p.doc = &doc;
	p.dir = dirname(dirbuf);
	p.err = err;
	p.errlen = errlen;
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		rc = 0;         /* an empty file: plain HTTP, no auth */
	} else if (mapping(&p, "", root, names, 4, v) == 0 &&
		   (v[0] == NULL || tls_section(&p, v[0], c) == 0) &&
		   (v[1] == NULL || http_section(&p, v[1], c) == 0) &&
		   (v[2] == NULL || users_section(&p, v[2], c) == 0) &&
		   (v[3] == NULL || rate_section(&p, v[3], c) == 0)) {
		rc = 0;
	}
	yaml_document_delete(&doc);
	/* One document only: a second one would be ignored silently. */
	if (rc == 0 && yaml_parser_load(&parser, &doc)) {
		if (yaml_document_get_root_node(&doc) != NULL) {
			snprintf(err, errlen, "more than one YAML document");
			rc = -1;
		}
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	free(dirbuf);
	OPENSSL_cleanse(buf, len);      /* inline keys */
	free(buf);
	one_line(err);
	return rc;
}

/* ---- basic auth --------------------------------------------------------- */

struct wc_auth {
	struct crypt_data cd;
	struct {
		unsigned char key[32];
		int ok, used;
	} cache[WC_AUTH_CACHE];
	size_t next;
	wc_bucket budget;
	int budget_init;
};

wc_auth *wc_auth_new(void)
{
	return calloc(1, sizeof(wc_auth));
}

void wc_auth_free(wc_auth *a)
{
	if (a == NULL)
		return;
	OPENSSL_cleanse(a, sizeof(*a));
	free(a);
}

void wc_auth_reset(wc_auth *a)
{
	OPENSSL_cleanse(a->cache, sizeof(a->cache));
	a->next = 0;
}

/* "Basic base64(user:pass)" (the scheme case-insensitive, as Go's
 * Request.BasicAuth): the decoded bytes in out, NUL-terminated; the
 * length, or -1. */
static int decode_basic(const char *h, char *out, size_t outlen)
{
	size_t n, pad = 0;
	int len;

	if (strncasecmp(h, "Basic ", 6) != 0)
		return -1;
	h += 6;
	n = strlen(h);
	if (n == 0 || n % 4 != 0 || n / 4 * 3 + 1 > outlen)
		return -1;
	if (h[n - 1] == '=')
		pad++;
	if (n > 1 && h[n - 2] == '=')
		pad++;
	len = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)h,
			      (int)n);
	if (len < 0 || (size_t)len < pad)
		return -1;
	len -= (int)pad;
	out[len] = '\0';
	return len;
}

int wc_auth_check(wc_auth *a, const wc_config *c, const char *authz,
		  double now, char *why, size_t whylen)
{
	char buf[512], *colon, *res;
	const char *user, *pass, *hash = NULL;
	unsigned char key[32];
	unsigned int klen = 0;
	EVP_MD_CTX *md;
	size_t i;
	int len, ok;

	why[0] = '\0';
	if (c->nusers == 0)
		return 0;
	if (authz == NULL) {
		snprintf(why, whylen, "no credentials");
		return 401;
	}
	len = decode_basic(authz, buf, sizeof(buf));
	colon = len > 0 ? memchr(buf, ':', (size_t)len) : NULL;
	if (colon == NULL || strlen(buf) != (size_t)len) {
		OPENSSL_cleanse(buf, sizeof(buf));
		snprintf(why, whylen, "malformed Authorization header");
		return 401;
	}
	*colon = '\0';
	user = buf;
	pass = colon + 1;
	for (i = 0; i < c->nusers; i++)
		if (strcmp(c->users[i].name, user) == 0)
			hash = c->users[i].hash;
	/* bcrypt reads 72 bytes; Go's refuses longer passwords. */
	if (strlen(pass) > 72) {
		snprintf(why, whylen, "password of user '%.40s' longer than 72 "
			 "bytes", user);
		OPENSSL_cleanse(buf, sizeof(buf));
		return 401;
	}
	/* The cache key: SHA-256 of user, hash and password. */
	md = EVP_MD_CTX_new();
	if (md == NULL ||
	    !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(md, user, strlen(user) + 1) ||
	    !EVP_DigestUpdate(md, hash ? hash : "", hash ? 61 : 1) ||
	    !EVP_DigestUpdate(md, pass, strlen(pass)) ||
	    !EVP_DigestFinal_ex(md, key, &klen) || klen != sizeof(key)) {
		EVP_MD_CTX_free(md);
		OPENSSL_cleanse(buf, sizeof(buf));
		snprintf(why, whylen, "out of memory");
		return 401;
	}
	EVP_MD_CTX_free(md);
	for (i = 0; i < WC_AUTH_CACHE; i++)
		if (a->cache[i].used &&
		    CRYPTO_memcmp(a->cache[i].key, key, sizeof(key)) == 0) {
			ok = a->cache[i].ok;
			goto done;
		}
	if (!a->budget_init) {
		wc_bucket_init(&a->budget, 1.0 / WC_BCRYPT_PER_S,
			       WC_BCRYPT_BURST, now);
		a->budget_init = 1;
	}
	if (!wc_bucket_allow(&a->budget, now)) {
		OPENSSL_cleanse(buf, sizeof(buf));
		snprintf(why, whylen, "more than %d new credentials a second "
			 "to check", WC_BCRYPT_PER_S);
		return 429;
	}
	/* An unknown user costs a bcrypt all the same (the first user's
	 * hash), so that timing does not tell which users exist. */
	/* crypt_rn, not crypt_r: NULL on failure rather than a "*0" hash,
	 * and no sanitizer interceptor (ASan's crypt_r calls a NULL
	 * pointer when libcrypt came with a dlopen'ed module, as here) */
	res = crypt_rn(pass, hash ? hash : c->users[0].hash, &a->cd,
		       (int)sizeof(a->cd));
	ok = hash != NULL && res != NULL && res[0] != '*' &&
	     strlen(res) == strlen(hash) &&
	     CRYPTO_memcmp(res, hash, strlen(hash)) == 0;
	OPENSSL_cleanse(a->cd.output, sizeof(a->cd.output));
	memcpy(a->cache[a->next].key, key, sizeof(key));
	a->cache[a->next].ok = ok;
	a->cache[a->next].used = 1;
	a->next = (a->next + 1) % WC_AUTH_CACHE;
done:
	if (!ok)
		snprintf(why, whylen, hash ? "wrong password for user '%.40s'"
			 : "unknown user '%.40s'", user);
	OPENSSL_cleanse(buf, sizeof(buf));
	OPENSSL_cleanse(key, sizeof(key));
	return ok ? 0 : 401;
}

#endif

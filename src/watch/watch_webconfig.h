/*
 * watch_webconfig.h - `go-heap watch --web.config.file`: the Prometheus
 * exporter-toolkit's web configuration (docs/web-configuration.md of
 * prometheus/exporter-toolkit), read with libyaml into a plain struct and
 * validated; and the checks it configures that are not TLS: basic auth
 * (bcrypt through libxcrypt's crypt_rn) and the rate limit's token bucket
 * (src/watch/watch_webconfig.c, doc/watch.md).  No OpenSSL here: the TLS side
 * of the struct is applied by src/watch/watch_tls.c.
 */
#ifndef GH_WATCH_WEBCONFIG_H
#define GH_WATCH_WEBCONFIG_H

#include <stddef.h>

/* tls_server_config.client_auth_type (Go's tls.ClientAuthType). */
enum wc_client_auth {
	WC_NO_CLIENT_CERT,
	WC_REQUEST_CLIENT_CERT,
	WC_REQUIRE_ANY_CLIENT_CERT,
	WC_VERIFY_CLIENT_CERT_IF_GIVEN,
	WC_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

/* TLS versions as in the wire format (0x0301 TLS 1.0 .. 0x0304 TLS 1.3). */
enum { WC_TLS10 = 0x0301, WC_TLS11 = 0x0302, WC_TLS12 = 0x0303,
       WC_TLS13 = 0x0304 };

typedef struct wc_user {
	char *name;
	char *hash;                /* bcrypt: $2a$, $2b$ or $2y$, 60 chars */
} wc_user;

typedef struct wc_config {
	/* tls_server_config; tls is 1 when any of its TLS keys is set (the
	 * toolkit's IsEnabled), else the server speaks plain HTTP.  Paths
	 * are made absolute against the config file's directory, as the
	 * toolkit's SetDirectory does; the inline PEM keys (cert, key,
	 * client_ca) are kept as text. */
	int tls;
	char *cert_file, *key_file, *client_ca_file;
	char *cert, *key, *client_ca;
	int client_auth;           /* enum wc_client_auth */
	char **allowed_sans;       /* client_allowed_sans, NULL-terminated */
	size_t nsans;
	int min_version, max_version;  /* WC_TLS1x */
	char *cipher_list;         /* OpenSSL names of cipher_suites, ':' */
	char *curves_list;         /* OpenSSL names of curve_preferences */
	int prefer_server_ciphers; /* default 1 */
	/* http_server_config */
	int http2;                 /* accepted; HTTP/1.1 only is served */
	char *headers;             /* "Name: value\r\n" lines, or NULL */
	/* basic_auth_users, in file order */
	wc_user *users;
	size_t nusers;
	/* rate_limit: interval 0 disables it */
	double rate_interval;      /* seconds */
	long rate_burst;
} wc_config;

/*
 * Read and validate path into *out (zeroed first; wc_free it even on
 * error).  Unknown keys, duplicate keys, values of the wrong kind or out
 * of their set are errors naming the key ("tls_server_config.min_version:
 * ..."); YAML syntax errors name the line and column.  Files named by
 * the config are not read here (src/watch/watch_tls.c does).  0, or -1 with a
 * one-line message in err.
 */
int wc_load(const char *path, wc_config *out, char *err, size_t errlen);
void wc_free(wc_config *c);

/*
 * Basic auth.  wc_auth holds what the checks remember: a cache of the
 * credentials already checked (bcrypt costs ~70 ms at cost 10, and the
 * loop is single-threaded: the toolkit caches them too) and a budget of
 * uncached bcrypt checks (a token bucket of WC_BCRYPT_PER_S per second,
 * burst WC_BCRYPT_BURST), so that guessing passwords cannot take the
 * loop from the scrapes.  Its crypt_rn work area is its own (~32 KiB).
 */
enum { WC_BCRYPT_PER_S = 5, WC_BCRYPT_BURST = 10, WC_AUTH_CACHE = 64 };
typedef struct wc_auth wc_auth;
wc_auth *wc_auth_new(void);
void wc_auth_free(wc_auth *a);
/* Forget the cache (the users changed). */
void wc_auth_reset(wc_auth *a);

/*
 * Check an Authorization header value (NULL if the request had none)
 * against c's users at time now (CLOCK_MONOTONIC seconds).  0: allowed
 * (also when c has no users); 401: missing or wrong credentials; 429:
 * the bcrypt budget is spent (the credentials were not checked).  why
 * gets a short reason for the log ("no credentials", "unknown user
 * 'x'", "wrong password for user 'x'").
 */
int wc_auth_check(wc_auth *a, const wc_config *c, const char *authz,
		  double now, char *why, size_t whylen);

/* The rate_limit token bucket (golang.org/x/time/rate's Allow). */
typedef struct wc_bucket {
	double interval;           /* seconds per token; 0: no limit */
	double burst, tokens, last;
} wc_bucket;
void wc_bucket_init(wc_bucket *b, double interval, long burst, double now);
/* 1: allowed (a token taken), 0: over the limit. */
int wc_bucket_allow(wc_bucket *b, double now);

#endif

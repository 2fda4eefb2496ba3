/*
 * fuzz_webconfig.c - libFuzzer harness for `go-heap watch
 * --web.config.file`'s parser and basic auth (src/watch/watch_webconfig.c).
 *
 * The input is the file (written to a memfd, read through /proc/self/fd
 * as the real option reads a path).  A load that fails must say why in
 * one line; one that succeeds must hold what the validation promises:
 * versions in order, a client auth type in range, header lines that are
 * "Name: value\r\n" without a stray line break, users with 60-character
 * bcrypt hashes, a non-negative rate.  When the input's first line is
 * "#A ..." its rest is an Authorization header checked against the users
 * (only hashes of cost 4 or 5: the cost is the input's, and bcrypt at 31
 * would be a timeout, not a finding): the answer must be 0, 401 or 429.
 */
#include "fuzz.h"

#include "watch_webconfig.h"

static int g_fd = -1;
static char g_path[64];
static wc_auth *g_auth;
static double g_now;   /* a second a check: the bcrypt budget refills */

static void check_config(const wc_config *c)
{
	const char *h;
	size_t i;

	if (c->min_version < WC_TLS10 || c->max_version > WC_TLS13 ||
	    c->min_version > c->max_version)
		abort();
	if (c->client_auth < WC_NO_CLIENT_CERT ||
	    c->client_auth > WC_REQUIRE_AND_VERIFY_CLIENT_CERT)
		abort();
	if (c->tls && (c->cert_file == NULL) == (c->cert == NULL))
		abort();
	for (h = c->headers; h != NULL && *h != '\0';) {
		const char *eol = strstr(h, "\r\n");

		if (eol == NULL || memchr(h, '\n', (size_t)(eol - h)) != NULL ||
		    strstr(h, ": ") == NULL || strstr(h, ": ") > eol)
			abort();
		h = eol + 2;
	}
	for (i = 0; i < c->nusers; i++)
		if (c->users[i].name == NULL || c->users[i].hash == NULL ||
		    strlen(c->users[i].hash) != 60)
			abort();
	if (c->rate_interval < 0 || c->rate_burst < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[300], authz[256];
	const char *a = NULL;
	wc_config c;
	size_t i;

	if (g_fd < 0) {
		g_fd = memfd_create("fuzz_webconfig", 0);
		if (g_fd < 0)
			abort();
		snprintf(g_path, sizeof(g_path), "/proc/self/fd/%d", g_fd);
		g_auth = wc_auth_new();
	}
	if (ftruncate(g_fd, 0) != 0 ||
	    (size > 0 && pwrite(g_fd, data, size, 0) != (ssize_t)size))
		abort();
	if (size > 3 && memcmp(data, "#A ", 3) == 0) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) - 3 : size - 3;

		if (n < sizeof(authz)) {
			memcpy(authz, data + 3, n);
			authz[n] = '\0';
			a = authz;
		}
	}
	err[0] = '\0';
	if (wc_load(g_path, &c, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();
	} else {
		int cheap = c.nusers > 0;
		char why[160];
		int rc;

		check_config(&c);
		for (i = 0; i < c.nusers; i++)
			if (c.users[i].hash[4] != '0' || c.users[i].hash[5] > '5')
				cheap = 0;
		if (cheap) {
			wc_auth_reset(g_auth);
			g_now += 1;
			rc = wc_auth_check(g_auth, &c, a, g_now, why,
					   sizeof(why));
			if (rc != 0 && rc != 401 && rc != 429)
				abort();
		}
	}
	wc_free(&c);
	return 0;
}

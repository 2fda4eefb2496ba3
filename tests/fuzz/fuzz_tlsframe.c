/*
 * fuzz_tlsframe.c - libFuzzer harness for `go-heap watch
 * --web.config.file`'s TLS framing (src/watch/watch_tls.c): what a client sends
 * before and during the handshake.
 *
 * LLVMFuzzerInitialize loads a web configuration with an inline
 * certificate and key (a self-signed P-256 pair made for this harness)
 * and client_auth_type VerifyClientCertIfGiven.  Each input is written
 * into one end of a non-blocking socketpair, whose writing side is then
 * shut down; the other end is the server's connection, driven as the
 * server's loop drives it: the handshake until it waits, fails or is done
 * (at most 64 steps), then reads until EOF or an error.  Covered: the
 * first record's reader (partial headers, lengths past the limit,
 * non-handshake bytes, plain HTTP), the hand-over from the memory BIO to
 * the socket, OpenSSL's refusals and their log lines, the read path.
 * Nothing may crash or leak, a step must wait for POLLIN or POLLOUT only,
 * and the connection's measured memory must stay under 1 MiB.
 * Seeds: real ClientHellos (TLS 1.2 and 1.3, from python3's ssl) and a
 * plain HTTP request (tests/fuzz/seeds.sh).
 */
#include "fuzz.h"

#include <poll.h>
#include <sys/socket.h>

#include "watch_tls_impl.h"

static const char g_cert[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBdTCCARugAwIBAgIUH3gLFxlOAxOH5vq9bXc4XxLNN7kwCgYIKoZIzj0EAwIw\n"
	"DzENMAsGA1UEAwwEZnV6ejAgFw0yNjExMjcxNDAyNDZaGA8yMTI2MTEwMzE0MDI0\n"
	"NlowDzENMAsGA1UEAwwEZnV6ejBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABDEA\n"
	"3jcATdT6FgnWyYLS/05cE4b6ODuoAaUcSLWLW2Paq/GXTJvEAfbWj4St0YQgFfQi\n"
	"1wd9iVXx/e4+iRVcPxajUzBRMB0GA1UdDgQWBBT/y2dDidSusByeE4dpADiFloUT\n"
	"RTAfBgNVHSMEGDAWgBT/y2dDidSusByeE4dpADiFloUTRTAPBgNVHRMBAf8EBTAD\n"
	"AQH/MAoGCCqGSM49BAMCA0gAMEUCIQDxfv2HWJQpiliyOE3EpxeFv9IvXVIoEAeM\n"
	"JW0I9m+8rgIgMOoy6wRw/rUfma2VkLMXPlgWlYS2xFMzzNhLmompDmc=\n"
	"-----END CERTIFICATE-----\n";
static const char g_key[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgbzhjwHqAfMNtLBi3\n"
	"ejB+8JREs9Rv00wbJ3aTq84Sj+GhRANCAAQxAN43AE3U+hYJ1smC0v9OXBOG+jg7\n"
	"qAGlHEi1i1tj2qvxl0ybxAH21o+ErdGEIBX0ItcHfYlV8f3uPokVXD8W\n"
	"-----END PRIVATE KEY-----\n";

static const wtls_ops *g_ops;
static wtls_impl *g_t;

/* Indent PEM text under a YAML block scalar. */
static void put_block(FILE *f, const char *key, const char *pem)
{
	const char *p = pem;

	fprintf(f, "  %s: |\n", key);
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');

		fprintf(f, "    %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[64], err[300];
	int fd = memfd_create("fuzz_tlsframe", 0);
	FILE *f;

	(void)argc;
	(void)argv;
	f = fd >= 0 ? fdopen(dup(fd), "w") : NULL;
	if (f == NULL)
		abort();
	fprintf(f, "tls_server_config:\n");
	put_block(f, "cert", g_cert);
	put_block(f, "key", g_key);
	fprintf(f, "  client_auth_type: VerifyClientCertIfGiven\n");
	put_block(f, "client_ca", g_cert);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	g_ops = gh_webconfig_ops();
	if (g_ops->open(&g_t, path, 0, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_tlsframe: %s\n", err);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2], rc = 0, step;
	short ev = 0;
	char buf[4096];
	wtls_conn *c;
	ssize_t n;

	if (size > 65536)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		abort();
	if (size > 0 && write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return 0;     /* more than the socket buffer: not this case */
	}
	shutdown(sv[1], SHUT_WR);
	c = g_ops->conn_new(g_t, sv[0]);
	if (c == NULL)
		abort();
	for (step = 0; step < 64; step++) {
		rc = g_ops->handshake(c, &ev);
		if (rc != 0)
			break;
		/* (the input ends with EOF: a wait for POLLIN ends in an
		 * error at the next step) */
		if (ev != POLLIN && ev != POLLOUT)
			abort();
	}
	while (rc == 1) {
		n = g_ops->read(c, buf, sizeof(buf), &ev);
		if (n <= 0)
			break;
	}
	(void)g_ops->pending(c);
	if (g_ops->conn_memory(c) > (1u << 20))
		abort();
	g_ops->conn_free(c);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

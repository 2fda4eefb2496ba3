/*
 * watch_http.h - `go-heap watch`'s HTTP/1.1 server: plain sockets and
 * poll(2), one thread, bounded per connection (src/watch/watch_http.c,
 * doc/watch.md).  Knows nothing of targets or profiles: a complete
 * request goes to the handler, which answers it at once (wh_respond) or
 * defers it (wh_defer) to answer it later, between two wh_serve calls.
 */
#ifndef GH_WATCH_HTTP_H
#define GH_WATCH_HTTP_H

#include <stddef.h>

typedef struct wh_server wh_server;
typedef struct wh_conn wh_conn;

typedef struct wh_request {
	const char *path;           /* "/metrics", without the query */
	const char *query;          /* after '?', or NULL */
	int head;                   /* HEAD (else GET): no body */
} wh_request;

/*
 * Called for each complete GET or HEAD request (the server answers the
 * malformed ones itself).  Before returning it must call wh_respond* or
 * wh_defer on c.
 */
typedef void (*wh_request_fn)(void *ctx, wh_server *s, wh_conn *c,
			      const wh_request *r);
/* Called for a deferred request's token when its connection is closed
 * before the request was answered (deadline, shutdown). */
typedef void (*wh_drop_fn)(void *ctx, void *token);

typedef struct wh_stats {
	size_t conns;               /* open connections */
	size_t conns_max;           /* the cap */
	size_t conn_memory;         /* structs, header buffers, unsent bytes */
	unsigned long long evicted, refused, busy, requests, errors;
} wh_stats;

/*
 * Listen on spec ("HOST:PORT", "[V6]:PORT", ":PORT"; port 0 picks one)
 * and describe the bound address in desc.  The connection cap comes from
 * RLIMIT_NOFILE (whose soft limit is raised to the hard one).  0, or -1
 * with errno set.
 */
int wh_open(wh_server **out, const char *spec, wh_request_fn on_request,
	    wh_drop_fn on_drop, void *ctx, char *desc, size_t dlen);
/* Close every connection (dropping deferred tokens) and the listener. */
void wh_close(wh_server *s);

/*
 * One turn: wait for the sockets at most max_wait seconds (0: only look;
 * never more than 1 s) or until a deferred request is due or a deadline
 * passes, then read, answer, write and accept what is ready, and close
 * the connections past their deadline.
 */
void wh_serve(wh_server *s, double max_wait);

/*
 * Answer c: status, Content-Type, extra header lines ("Name: v\r\n", or
 * NULL), body (left out for HEAD).  The response is sent by wh_serve.
 */
void wh_respond(wh_server *s, wh_conn *c, int code, const char *ctype,
		const char *extra, const void *body, size_t len, int head);
/* A text/plain answer; errors carry X-Go-Pprof: 1, as net/http/pprof's
 * serveError sets it, so that go tool pprof shows the message. */
void wh_respond_text(wh_server *s, wh_conn *c, int code, const char *msg);

/*
 * Defer c's answer until `due` (CLOCK_MONOTONIC seconds; now: as soon as
 * the caller gets to it) with the caller's token; its deadline becomes
 * due plus the write timeout.  A connection not yet deferred is refused
 * (503, counted as busy; -1, the token stays the caller's) while
 * WH_MAX_BUSY responses are being written or deferred; 0 otherwise.
 */
enum { WH_MAX_BUSY = 64 };
int wh_defer(wh_server *s, wh_conn *c, double due, void *token);
/*
 * The deferred connection due longest at `now` and its token, or NULL.
 * The caller answers it or defers it again before the next wh_serve.
 */
wh_conn *wh_take_due(wh_server *s, double now, void **token);

void wh_stats_get(const wh_server *s, wh_stats *out);

/*
 * --web.config.file (src/watch/watch_tls.c): from now on, connections speak TLS
 * when it configures TLS, and every request passes its rate limit and
 * basic auth first (429, 401 with WWW-Authenticate) and gets its
 * headers.  web stays the caller's; set it before the first wh_serve.
 */
struct wtls;
void wh_set_web(wh_server *s, struct wtls *web);

/* The value of `key` in query string q ("a=1&b=2") into buf, or NULL. */
const char *wh_query_get(const char *q, const char *key, char *buf,
			 size_t len);

#endif

/*
 * watch_http.c - `go-heap watch`'s HTTP/1.1 server (doc/watch.md): plain
 * sockets and poll(2) in the caller's thread, every request bounded.
 *
 * A request is its request line and headers, at most MAX_REQ (8 KiB), to
 * arrive within READ_TIMEOUT_MS (10 s; 408 if part of it came, closed if
 * nothing did); a response is the bytes to send, written within
 * WRITE_TIMEOUT_MS (30 s); every response closes its connection.  GET and
 * HEAD only.  A complete request goes to the caller's handler, which
 * answers at once (wh_respond) or defers the answer (wh_defer: the
 * connection is kept, not polled, until the caller takes it back with
 * wh_take_due between two turns), so that slow answers (profiles) are
 * produced outside this module's turns, one at a time.
 *
 * Connections: idle clients must not stop scrapes, so the cap is high
 * (MAX_CONNS, 4096, or the descriptor limit less FD_RESERVE: the soft
 * RLIMIT_NOFILE is raised to the hard one first; poll(2) holds thousands)
 * and, at the cap, the connection that has been reading a request without
 * a byte for the longest time (the head of the idle list) is closed for
 * the new one; a new one is refused only when every open connection is
 * being answered.  A connection costs its struct until its first byte,
 * then a header buffer that grows from REQ_CHUNK (512 bytes) to at most
 * 8 KiB, freed once the request is parsed (1000 connections, half of them
 * with half a request line: 0.4 MB).  A request deferred while
 * WH_MAX_BUSY (64) responses are being written or deferred (each may hold
 * a profile) is answered 503.
 *
 * Deadlines are checked after the ready sockets are served, so a request
 * that arrived while the caller was busy is read, not timed out.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch_http.h"
#include "watch_tls.h"
#include "watch_util.h"

enum {
	MAX_CONNS = 4096,       /* fewer if RLIMIT_NOFILE is lower */
	FD_RESERVE = 256,       /* descriptors left for targets and files */
	MAX_REQ = 8192,         /* request line + headers */
	REQ_CHUNK = 512,        /* first size of a header buffer */
	READ_TIMEOUT_MS = 10000,
	WRITE_TIMEOUT_MS = 30000,
};

#define NO_CONN ((size_t)-1)

struct wh_conn {
	int fd;
	size_t slot;               /* its index in wh_server.c[] */
	char *in;                  /* the request so far: NULL, or incap bytes */
	size_t inlen, incap;
	gh_buf out;
	size_t outoff;
	double deadline;
	int writing;
	/* a deferred answer */
	int deferred;
	double due;
	void *token;               /* the caller's; NULL once taken back */
	/* the idle list: connections still reading a request, the one whose
	 * last byte (or accept) is oldest first */
	struct wh_conn *idle_prev, *idle_next;
	int idle_linked;
	/* --web.config.file with TLS: the connection's TLS (made when its
	 * first byte comes), the handshake still to do, and the poll event
	 * the TLS layer waits for (0: as the state says) */
	wtls_conn *tls;
	int hs;
	short want;
};

struct wh_server {
	int lfd;
	wh_request_fn on_request;
	wh_drop_fn on_drop;
	void *ctx;
	wh_conn **c;               /* cap slots, NULL when free */
	size_t *free_slots, nfree;
	size_t cap, nconns, ndeferred;
	wh_conn *idle_head, *idle_tail;
	double accept_pause;       /* out of descriptors: until then */
	struct pollfd *pfd;        /* cap + 1: the listener and each conn */
	size_t *idx;               /* pfd[i]'s slot, NO_CONN for the listener */
	unsigned long long evicted, refused, busy, requests, errors;
	wtls *web;                 /* --web.config.file, or NULL */
};

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 410: return "Gone";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

/* Memory of one connection: its state, header buffer, unsent response,
 * and its TLS state (as measured by watch_tls.c). */
static size_t conn_bytes(const wh_conn *c)
{
	return sizeof(*c) + c->incap + c->out.cap +
	       (c->tls != NULL ? wtls_conn_memory(c->tls) : 0);
}

/* The idle list (idle_head .. idle_tail): connections reading. */
static void idle_unlink(wh_server *s, wh_conn *c)
{
	if (!c->idle_linked)
		return;
	if (c->idle_prev != NULL)
		c->idle_prev->idle_next = c->idle_next;
	else
		s->idle_head = c->idle_next;
	if (c->idle_next != NULL)
		c->idle_next->idle_prev = c->idle_prev;
	else
		s->idle_tail = c->idle_prev;
	c->idle_prev = c->idle_next = NULL;
	c->idle_linked = 0;
}

/* Append c (it was just accepted, or just sent bytes): the newest. */
static void idle_touch(wh_server *s, wh_conn *c)
{
	idle_unlink(s, c);
	c->idle_prev = s->idle_tail;
	c->idle_next = NULL;
	if (s->idle_tail != NULL)
		s->idle_tail->idle_next = c;
	else
		s->idle_head = c;
	s->idle_tail = c;
	c->idle_linked = 1;
}

/* The request is done with: only the response will be kept. */
static void drop_request(wh_server *s, wh_conn *c)
{
	idle_unlink(s, c);
	free(c->in);
	c->in = NULL;
	c->inlen = c->incap = 0;
}

void wh_respond(wh_server *s, wh_conn *c, int code, const char *ctype,
		const char *extra, const void *body, size_t len, int head)
{
	drop_request(s, c);
	if (c->deferred) {
		c->deferred = 0;
		c->token = NULL;
		s->ndeferred--;
	}
	c->out.len = 0;
	gh_buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		  "Content-Length: %zu\r\nConnection: close\r\n"
		  "X-Content-Type-Options: nosniff\r\n%s%s\r\n", code,
		  reason(code), ctype, len,
		  s->web != NULL ? wtls_headers(s->web) : "",
		  extra ? extra : "");
	if (!head)
		gh_buf_append(&c->out, body, len);
	if (code >= 400)
		s->errors++;
	c->writing = 1;
	c->want = 0;
	c->outoff = 0;
	c->deadline = gh_now() + WRITE_TIMEOUT_MS / 1000.0;
}

void wh_respond_text(wh_server *s, wh_conn *c, int code, const char *msg)
{
	wh_respond(s, c, code, "text/plain; charset=utf-8",
		   code >= 400 ? "X-Go-Pprof: 1\r\n" : NULL, msg, strlen(msg),
		   0);
}

/* Responses being written or deferred (c itself is neither yet). */
static size_t busy_conns(const wh_server *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->cap; i++)
		n += s->c[i] != NULL && (s->c[i]->writing || s->c[i]->deferred);
	return n;
}

int wh_defer(wh_server *s, wh_conn *c, double due, void *token)
{
	if (!c->deferred) {
		if (busy_conns(s) >= WH_MAX_BUSY) {
			/* Each holds a profile or its bytes: bound the cost. */
			s->busy++;
			wh_respond_text(s, c, 503, "too many profile requests "
					"in progress, retry later\n");
			return -1;
		}
		drop_request(s, c);
		c->deferred = 1;
		s->ndeferred++;
	}
	c->token = token;
	c->due = due;
	c->deadline = due + WRITE_TIMEOUT_MS / 1000.0;
	return 0;
}

wh_conn *wh_take_due(wh_server *s, double now, void **token)
{
	wh_conn *best = NULL;
	size_t i;

	*token = NULL;
	if (s->ndeferred == 0)
		return NULL;
	for (i = 0; i < s->cap; i++) {
		wh_conn *c = s->c[i];

		if (c != NULL && c->deferred && c->token != NULL &&
		    c->due <= now && (best == NULL || c->due < best->due))
			best = c;
	}
	if (best != NULL) {
		*token = best->token;
		best->token = NULL;
	}
	return best;
}

/* The value of `key` in query string q ("a=1&b=2"), or NULL. */
const char *wh_query_get(const char *q, const char *key, char *buf,
			 size_t len)
{
	size_t kl = strlen(key);

	while (q != NULL && *q != '\0') {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);

		if (n > kl && strncmp(q, key, kl) == 0 && q[kl] == '=') {
			n -= kl + 1;
			if (n >= len)
				n = len - 1;
			memcpy(buf, q + kl + 1, n);
			buf[n] = '\0';
			return buf;
		}
		if (n == kl && strncmp(q, key, kl) == 0) {
			buf[0] = '\0';
			return buf;
		}
		q = amp ? amp + 1 : NULL;
	}
	return NULL;
}

/*
 * The value of header `name` in the header lines at h (after the request
 * line) into buf, or NULL.
 */
static const char *header_get(const char *h, const char *name, char *buf,
			      size_t len)
{
	size_t nl = strlen(name);

	while (*h != '\0' && *h != '\r' && *h != '\n') {
		const char *end = strchr(h, '\n'), *v;
		size_t n;

		if (end == NULL)
			end = h + strlen(h);
		if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
			v = h + nl + 1;
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			n = (size_t)(end - v);
			while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == ' ' ||
					 v[n - 1] == '\t'))
				n--;
			if (n >= len)
				return NULL;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return buf;
		}
		h = *end ? end + 1 : end;
	}
	return NULL;
}

/* --web.config.file's checks (rate limit, basic auth): 1 when c was
 * answered 401 or 429. */
static int gate(wh_server *s, wh_conn *c, const char *headers, int head)
{
	static const char unauth[] = "Unauthorized\n";
	static const char toomany[] = "Too Many Requests\n";
	char authz[1024];
	int code = wtls_gate(s->web, c->fd, header_get(headers,
			     "Authorization", authz, sizeof(authz)),
			     gh_now());

	memset(authz, 0, sizeof(authz));
	if (code == 401)
		wh_respond(s, c, 401, "text/plain; charset=utf-8",
			   "WWW-Authenticate: Basic\r\n", unauth,
			   sizeof(unauth) - 1, head);
	else if (code != 0)
		wh_respond(s, c, 429, "text/plain; charset=utf-8", NULL,
			   toomany, sizeof(toomany) - 1, head);
	return code != 0;
}

static void handle_request(wh_server *s, wh_conn *c)
{
	char *line = c->in, *sp1, *sp2, *q, *eol;
	wh_request r;

	s->requests++;
	eol = strstr(line, "\r\n");
	if (eol == NULL) {
		wh_respond_text(s, c, 400, "bad request\n");
		return;
	}
	*eol = '\0';
	sp1 = strchr(line, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (sp1 == NULL || sp2 == NULL || strncmp(sp2 + 1, "HTTP/1.", 7) != 0) {
		wh_respond_text(s, c, 400, "bad request\n");
		return;
	}
	*sp1 = '\0';
	*sp2 = '\0';
	if (s->web != NULL && gate(s, c, eol + 2, strcmp(line, "HEAD") == 0))
		return;
	memset(&r, 0, sizeof(r));
	if (strcmp(line, "HEAD") == 0) {
		r.head = 1;
	} else if (strcmp(line, "GET") != 0) {
		wh_respond_text(s, c, 405, "method not allowed\n");
		return;
	}
	line = sp1 + 1;
	q = strchr(line, '?');
	if (q != NULL)
		*q++ = '\0';
	r.path = line;
	r.query = q;
	s->on_request(s->ctx, s, c, &r);
	if (!c->writing && !c->deferred)
		wh_respond_text(s, c, 500, "no answer\n");
}

static void conn_close(wh_server *s, size_t i)
{
	wh_conn *c = s->c[i];

	idle_unlink(s, c);
	if (c->deferred) {
		s->ndeferred--;
		if (c->token != NULL && s->on_drop != NULL)
			s->on_drop(s->ctx, c->token);
	}
	wtls_conn_free(c->tls);
	close(c->fd);
	free(c->in);
	gh_buf_free(&c->out);
	free(c);
	s->c[i] = NULL;
	s->free_slots[s->nfree++] = i;
	s->nconns--;
}

/*
 * TLS: make the connection's TLS state at its first byte and advance its
 * handshake (the idle list counts it as reading).  0 when the request
 * can be read; -1 to wait (c->want), or when it failed (dropped).
 */
static int conn_handshake(wh_server *s, wh_conn *c)
{
	int rc;

	if (c->tls == NULL && (c->tls = wtls_conn_new(s->web, c->fd)) == NULL) {
		c->deadline = 0;  /* drop */
		return -1;
	}
	idle_touch(s, c);
	rc = wtls_handshake(c->tls, &c->want);
	if (rc < 0)
		c->deadline = 0;
	if (rc <= 0)
		return -1;
	c->hs = 0;
	return 0;
}

static ssize_t conn_recv(wh_conn *c, void *buf, size_t len)
{
	if (c->tls != NULL)
		return wtls_read(c->tls, buf, len, &c->want);
	return recv(c->fd, buf, len, 0);
}

static void conn_read(wh_server *s, wh_conn *c)
{
	ssize_t n;

	if (c->hs && conn_handshake(s, c) != 0)
		return;
	if (c->inlen >= MAX_REQ) {
		wh_respond_text(s, c, 431, "request too large\n");
		return;
	}
	/* Grow the header buffer as bytes come: REQ_CHUNK, then doubling up
	 * to MAX_REQ + 1 (an idle or half-sent request costs little). */
	if (c->incap - c->inlen < REQ_CHUNK / 2 && c->incap < MAX_REQ + 1) {
		size_t nc = c->incap ? c->incap * 2 : REQ_CHUNK;
		char *np;

		if (nc > MAX_REQ + 1)
			nc = MAX_REQ + 1;
		np = realloc(c->in, nc);
		if (np == NULL) {
			c->deadline = 0;  /* drop */
			return;
		}
		c->in = np;
		c->incap = nc;
	}
	n = conn_recv(c, c->in + c->inlen, c->incap - 1 - c->inlen);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		c->deadline = 0;  /* peer closed: drop */
		return;
	}
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if (strstr(c->in, "\r\n\r\n") != NULL ||
	    strstr(c->in, "\n\n") != NULL)
		handle_request(s, c);
	else if (c->inlen >= MAX_REQ)
		wh_respond_text(s, c, 431, "request too large\n");
	else {
		idle_touch(s, c);
		/* bytes OpenSSL holds already: poll(2) cannot tell */
		if (c->tls != NULL && wtls_pending(c->tls) > 0)
			conn_read(s, c);
	}
}

/* 1 when done (close it). */
static int conn_write(wh_conn *c)
{
	ssize_t n;

	while (c->outoff < c->out.len) {
		n = c->tls != NULL ?
		    wtls_write(c->tls, (char *)c->out.data + c->outoff,
			       c->out.len - c->outoff, &c->want) :
		    send(c->fd, (char *)c->out.data + c->outoff, c->out.len - c->outoff,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return 1;
		}
		c->outoff += (size_t)n;
	}
	return 1;
}

/*
 * Make room for one more connection: close the one that has been reading
 * a request, without a byte, for the longest time.  0, or -1 when every
 * connection is being answered (then the new one is refused).
 */
static int evict_idle(wh_server *s)
{
	if (s->idle_head == NULL)
		return -1;
	conn_close(s, s->idle_head->slot);
	s->evicted++;
	return 0;
}

static void accept_conns(wh_server *s)
{
	int fd;
	char peek;
	wh_conn *c;

	for (;;) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EMFILE && errno != ENFILE &&
			    errno != ENOBUFS && errno != ENOMEM)
				return;
			/* Out of descriptors or memory: free an idle one and
			 * retry, or stop accepting for a moment (the
			 * listener would wake poll at once). */
			if (evict_idle(s) == 0)
				continue;
			s->accept_pause = gh_now() + 0.1;
			return;
		}
		if (s->nconns >= s->cap && evict_idle(s) != 0) {
			s->refused++;
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			s->refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->hs = s->web != NULL && wtls_on(s->web);
		c->slot = s->free_slots[--s->nfree];
		c->deadline = gh_now() + READ_TIMEOUT_MS / 1000.0;
		s->c[c->slot] = c;
		s->nconns++;
		idle_touch(s, c);
		/* A request usually comes with its connection: answer it in
		 * this turn, not the next (the caller may do a step of work
		 * in between).  Peek first, so that a connection that sends
		 * nothing still costs no header buffer. */
		if (recv(fd, &peek, 1, MSG_PEEK) == 1) {
			conn_read(s, c);
			if (c->writing && conn_write(c))
				conn_close(s, c->slot);
		}
	}
}

/* Close what is past its deadline; a request that came in part gets 408. */
static void expire(wh_server *s, double t)
{
	size_t i;

	for (i = 0; i < s->cap; i++) {
		wh_conn *c = s->c[i];

		if (c == NULL || c->deadline > t)
			continue;
		if (!c->writing && !c->deferred && c->inlen > 0) {
			wh_respond_text(s, c, 408, "request timeout\n");
			if (c->deadline > t)
				continue;
		}
		conn_close(s, i);
	}
}

void wh_serve(wh_server *s, double max_wait)
{
	double t = gh_now(), wake;
	size_t i, n = 0;
	int ms;

	if (!(max_wait > 0))
		max_wait = 0;
	if (max_wait > 1)
		max_wait = 1;
	wake = t + max_wait;
	if (s->accept_pause <= t) {
		s->pfd[n].fd = s->lfd;
		s->pfd[n].events = POLLIN;
		s->pfd[n].revents = 0;
		s->idx[n++] = NO_CONN;
	} else if (s->accept_pause < wake) {
		wake = s->accept_pause;
	}
	for (i = 0; i < s->cap; i++) {
		wh_conn *c = s->c[i];

		if (c == NULL)
			continue;
		if (c->deadline < wake)
			wake = c->deadline;
		if (c->deferred) {
			if (c->token != NULL && c->due < wake)
				wake = c->due;
			continue;
		}
		s->pfd[n].fd = c->fd;
		s->pfd[n].events = c->want ? c->want :
				   c->writing ? POLLOUT : POLLIN;
		s->pfd[n].revents = 0;
		s->idx[n++] = i;
	}
	ms = wake <= t ? 0 : (int)((wake - t) * 1000) + 1;
	if (ms > 1000)
		ms = 1000;
	if (poll(s->pfd, (nfds_t)n, ms) > 0) {
		for (i = 0; i < n; i++) {
			wh_conn *c;

			if (s->idx[i] == NO_CONN || s->pfd[i].revents == 0)
				continue;
			c = s->c[s->idx[i]];
			if (c->writing) {
				if (conn_write(c))
					conn_close(s, s->idx[i]);
			} else if (s->pfd[i].revents & (POLLIN | POLLOUT |
							POLLHUP | POLLERR)) {
				conn_read(s, c);
				if (c->writing && conn_write(c))
					conn_close(s, s->idx[i]);
			}
		}
		if (n > 0 && s->idx[0] == NO_CONN &&
		    (s->pfd[0].revents & POLLIN))
			accept_conns(s);
	}
	expire(s, gh_now());
}

void wh_set_web(wh_server *s, wtls *web)
{
	s->web = web;
}

void wh_stats_get(const wh_server *s, wh_stats *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->conns = s->nconns;
	out->conns_max = s->cap;
	for (i = 0; i < s->cap; i++)
		if (s->c[i] != NULL)
			out->conn_memory += conn_bytes(s->c[i]);
	out->evicted = s->evicted;
	out->refused = s->refused;
	out->busy = s->busy;
	out->requests = s->requests;
	out->errors = s->errors;
}

/* ---- setup -------------------------------------------------------------- */

static int open_listener(const char *spec, char *desc, size_t dlen)
{
	char host[256], port[16];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints, *ai = NULL, *a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, one = 1;
	size_t hl;

	errno = EINVAL;
	if (colon == NULL || strlen(colon + 1) >= sizeof(port))
		return -1;
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	snprintf(port, sizeof(port), "%s", colon + 1);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (getaddrinfo(hl ? host : NULL, port, &hints, &ai) != 0) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	for (a = ai; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
		    listen(fd, 1024) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		char h[128], p[16];

		if (getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p,
				sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
			snprintf(desc, dlen, ss.ss_family == AF_INET6 ?
				 "[%s]:%s" : "%s:%s", h, p);
	}
	return fd;
}

/*
 * The connection cap: MAX_CONNS, or fewer when the descriptor limit
 * (raised to its hard limit first) leaves less than that beside
 * FD_RESERVE for the targets and files.
 */
static size_t connection_cap(void)
{
	struct rlimit rl;
	rlim_t avail;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 32;
	if (rl.rlim_cur != RLIM_INFINITY &&
	    (rl.rlim_max == RLIM_INFINITY || rl.rlim_cur < rl.rlim_max)) {
		struct rlimit want = rl;

		want.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return MAX_CONNS;
	avail = rl.rlim_cur > FD_RESERVE + 32 ? rl.rlim_cur - FD_RESERVE : 32;
	return avail < MAX_CONNS ? (size_t)avail : MAX_CONNS;
}

int wh_open(wh_server **out, const char *spec, wh_request_fn on_request,
	    wh_drop_fn on_drop, void *ctx, char *desc, size_t dlen)
{
	wh_server *s = calloc(1, sizeof(*s));
	size_t i;

	*out = NULL;
	if (s == NULL) {
		errno = ENOMEM;
		return -1;
	}
	s->lfd = -1;
	s->on_request = on_request;
	s->on_drop = on_drop;
	s->ctx = ctx;
	s->cap = connection_cap();
	s->c = calloc(s->cap, sizeof(*s->c));
	s->free_slots = calloc(s->cap, sizeof(*s->free_slots));
	s->pfd = calloc(s->cap + 1, sizeof(*s->pfd));
	s->idx = calloc(s->cap + 1, sizeof(*s->idx));
	if (s->c == NULL || s->free_slots == NULL || s->pfd == NULL ||
	    s->idx == NULL) {
		wh_close(s);
		errno = ENOMEM;
		return -1;
	}
	/* Free slots, lowest on top. */
	for (i = 0; i < s->cap; i++)
		s->free_slots[i] = s->cap - 1 - i;
	s->nfree = s->cap;
	snprintf(desc, dlen, "%s", spec);
	s->lfd = open_listener(spec, desc, dlen);
	if (s->lfd < 0) {
		int e = errno;

		wh_close(s);
		errno = e;
		return -1;
	}
	*out = s;
	return 0;
}

void wh_close(wh_server *s)
{
	size_t i;

	if (s == NULL)
		return;
	if (s->c != NULL)
		for (i = 0; i < s->cap; i++)
			if (s->c[i] != NULL)
				conn_close(s, i);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->c);
	free(s->free_slots);
	free(s->pfd);
	free(s->idx);
	free(s);
}

/*
 * pprof_stream.c - the streaming heap writer (gh_pprof_stream): heap
 * samples encoded on a thread of their own while the walker reads, fed
 * through a ring; the builder is fmt_pprof.c's (pprof_builder.h).
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pprof_builder.h"

/* ---- streaming: heap samples encoded while the walker reads ------------ */

/*
 * gh_pprof_stream: write_heap_proto on a thread of its own, fed record
 * by record through a ring by the walker (gh_walk_stream), so that the
 * encoding of a 100k-bucket profile overlaps its read and walk on a
 * second CPU.  The builder is the same; only the loop moves.
 *
 * The ring holds entries { ring_ent, nstk PCs }, 8-aligned, each one
 * contiguous: one that would cross the end is preceded by a wrap mark
 * (or by a gap too short for one) and starts again at 0.  head and
 * tail count bytes since the start (position = count % cap).  The
 * walker publishes head every RING_BATCH entries, the encoder releases
 * what it has used as often: a lock and a signal per batch, not per
 * record.  The first RING_LAZY records are encoded on the walker's
 * thread as they come, and all of them when the thread cannot start.
 */
#define RING_BYTES (256u * 1024u)
#define RING_BATCH 64u
#define RING_LAZY 256u

typedef struct ring_ent {
	heap_vals hv;         /* computed on the walker's side */
	uint32_t nstk;
	uint16_t wrap;        /* 1: skip to the ring's start */
	uint16_t same;        /* 1: the previous entry's stack */
} ring_ent;

struct gh_pprof_stream {
	builder b;
	gh_profile hdr;       /* the profile's header: p is the walker's */
	gh_err *err;
	int init_rc;

	int threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_data, cv_space;
	unsigned char *ring;
	uint64_t head;        /* walker: bytes written */
	uint64_t head_pub;    /* published head (mu) */
	uint64_t tail_pub;    /* released by the encoder (mu) */
	uint64_t tail_seen;   /* walker's copy of tail_pub */
	unsigned pending;     /* entries since the last publication */
	int done;             /* the walker has finished (mu) */

	/* the walker's previous ring entry's stack (in the ring: only the
	 * walker writes it, ahead of it), for ring_ent.same */
	const uint64_t *wprev;
	size_t wprev_n;
	/* the previous record, for the neighbour memo, while records are
	 * encoded on the walker's thread (stream_encode) */
	gh_record prev;
	uint64_t *prevstk;
	size_t cap_prevstk;
	int have_prev;
	double cpu;           /* the encoder thread's CPU seconds, at its end */
	int tried;            /* stream_thread_start ran */
	size_t inline_recs;   /* records before it (RING_LAZY) */
	scale_slot *wscale;   /* the walker's side's scale memo (or NULL) */
};

/* Encode r with its values on the walker's thread (the first RING_LAZY
 * records, or all without a thread). */
static void stream_encode(gh_pprof_stream *st, const gh_record *r,
			  const heap_vals *hv)
{
	builder *b = &st->b;

	if (b->err != 0)
		return;
	gh_pp_heap_emit(b, r, st->have_prev && gh_pp_same_stack(r, &st->prev), hv);
	/* Keep r for the next record's comparison (the caller's stack is
	 * gone after this call). */
	if (gh_grow(&st->prevstk, &st->cap_prevstk, r->nstk,
		    sizeof(*st->prevstk)) != 0) {
		b->err = GOHEAP_ENOMEM;
		return;
	}
	st->prev = *r;
	if (r->nstk > 0)
		memcpy(st->prevstk, r->stk, r->nstk * sizeof(*r->stk));
	st->prev.stk = st->prevstk;
	st->have_prev = 1;
}

static void *stream_thread(void *arg)
{
	gh_pprof_stream *st = arg;
	uint64_t tail, h;
	const ring_ent *e;
	gh_record r;
	size_t pos;
	unsigned n = 0;

	pthread_mutex_lock(&st->mu);
	tail = st->tail_pub;
	for (;;) {
		while (tail == st->head_pub && !st->done)
			pthread_cond_wait(&st->cv_data, &st->mu);
		if (tail == st->head_pub)
			break;
		h = st->head_pub;
		pthread_mutex_unlock(&st->mu);
		while (tail < h) {
			pos = (size_t)(tail % RING_BYTES);
			e = (const ring_ent *)(const void *)(st->ring + pos);
			if (RING_BYTES - pos < sizeof(*e) || e->wrap) {
				tail += RING_BYTES - pos;
				continue;
			}
			memset(&r, 0, sizeof(r));
			r.nstk = e->nstk;
			r.stk = (uint64_t *)(void *)(st->ring + pos + sizeof(*e));
			if (st->b.err == 0)
				gh_pp_heap_emit(&st->b, &r, e->same, &e->hv);
			tail += sizeof(*e) + (uint64_t)e->nstk * 8;
			if (++n % RING_BATCH == 0) {
				pthread_mutex_lock(&st->mu);
				st->tail_pub = tail;
				pthread_cond_signal(&st->cv_space);
				pthread_mutex_unlock(&st->mu);
			}
		}
		pthread_mutex_lock(&st->mu);
		st->tail_pub = tail;
		pthread_cond_signal(&st->cv_space);
	}
	pthread_mutex_unlock(&st->mu);
	{
		struct timespec ts;

		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
			st->cpu = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	}
	return NULL;
}

static void stream_publish(gh_pprof_stream *st)
{
	pthread_mutex_lock(&st->mu);
	st->head_pub = st->head;
	st->pending = 0;
	pthread_cond_signal(&st->cv_data);
	pthread_mutex_unlock(&st->mu);
}

/* Wait until n bytes past head are free. */
static void stream_room(gh_pprof_stream *st, uint64_t n)
{
	if (st->head + n - st->tail_seen <= RING_BYTES)
		return;
	pthread_mutex_lock(&st->mu);
	st->head_pub = st->head;
	st->pending = 0;
	pthread_cond_signal(&st->cv_data);
	while (st->head + n - st->tail_pub > RING_BYTES)
		pthread_cond_wait(&st->cv_space, &st->mu);
	st->tail_seen = st->tail_pub;
	pthread_mutex_unlock(&st->mu);
}

int gh_pprof_stream_start(gh_pprof_stream **out, const gh_profile *p,
			  const gh_wctx *w, gh_buf *buf, gh_err *err)
{
	gh_pprof_stream *st;
	int rc;

	*out = NULL;
	if (p->kind != GOHEAP_PROFILE_HEAP && p->kind != GOHEAP_PROFILE_ALLOCS)
		return gh_errf(err, GOHEAP_EINVAL, "only heap and allocs "
			       "profiles are written as a stream");
	st = gh_calloc(1, sizeof(*st));
	if (st == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	st->hdr = *p;
	st->hdr.recs = NULL;
	st->hdr.nrecs = 0;
	st->err = err;
	rc = gh_pp_init(&st->b, &st->hdr, w, buf, err);
	if (rc == 0) {
		gh_pp_heap_begin(&st->b);
		rc = st->b.err;
	}
	st->init_rc = rc;
	*out = st;
	if (rc != 0)
		return rc;
	return 0;
}

/*
 * The encoder thread, started once the stream has RING_LAZY records:
 * a small profile is encoded on the walker's thread as it comes (a
 * thread, its ring and its join cost more than encoding a few hundred
 * records).  Those records' state (the builder, the previous stack) is
 * the thread's from then on: pthread_create orders it.  Without a
 * thread (no memory, or it cannot start) records stay on this thread.
 */
static void stream_thread_start(gh_pprof_stream *st)
{
	sigset_t all, old;

	st->tried = 1;
	st->ring = malloc(RING_BYTES);
	/* A memo only: without it the values are computed in full. */
	st->wscale = gh_calloc(SCALE_CACHE, sizeof(*st->wscale));
	if (st->ring == NULL ||
	    pthread_mutex_init(&st->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&st->cv_data, NULL) != 0) {
		pthread_mutex_destroy(&st->mu);
		return;
	}
	if (pthread_cond_init(&st->cv_space, NULL) != 0) {
		pthread_cond_destroy(&st->cv_data);
		pthread_mutex_destroy(&st->mu);
		return;
	}
	/* Signals stay with the caller's threads. */
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) == 0) {
		st->threaded = pthread_create(&st->th, NULL, stream_thread,
					      st) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
#if defined(__linux__) && defined(__GLIBC__)
	/* For top -H, perf --sort comm and gdb: which thread this is. */
	if (st->threaded)
		(void)pthread_setname_np(st->th, "goheap-encode");
#endif
	if (!st->threaded) {
		pthread_cond_destroy(&st->cv_space);
		pthread_cond_destroy(&st->cv_data);
		pthread_mutex_destroy(&st->mu);
	}
}

int gh_pprof_stream_record(gh_pprof_stream *st, const gh_record *r)
{
	uint64_t need, gap;
	size_t pos;
	ring_ent *e;
	int same;

	if (st->init_rc != 0)
		return st->init_rc;
	if (!st->threaded && !st->tried && ++st->inline_recs > RING_LAZY)
		stream_thread_start(st);
	if (!st->threaded) {
		heap_vals hv;

		gh_pp_heap_values(&st->hdr, st->b.scale, st->b.impl, st->b.f2i, r,
			    &hv);
		stream_encode(st, r, &hv);
		return st->b.err;
	}
	need = sizeof(*e) + (uint64_t)r->nstk * 8;
	if (need > RING_BYTES / 2)
		return GOHEAP_ELIMIT;   /* no runtime stack is that deep */
	/*
	 * The neighbour test here, against the previous entry's stack
	 * where the walker just wrote it, before anything of this entry
	 * is: the encoder (the critical thread, bench/README.md) then
	 * keeps no copy of each stack to compare the next one with.
	 */
	same = st->wprev != NULL && st->wprev_n == r->nstk &&
	       (r->nstk == 0 || memcmp(st->wprev, r->stk, r->nstk * 8) == 0);
	pos = (size_t)(st->head % RING_BYTES);
	if (pos + need > RING_BYTES) {
		gap = RING_BYTES - pos;
		stream_room(st, gap);
		if (gap >= sizeof(*e)) {
			e = (ring_ent *)(void *)(st->ring + pos);
			e->wrap = 1;
		}
		st->head += gap;
		pos = 0;
	}
	stream_room(st, need);
	e = (ring_ent *)(void *)(st->ring + pos);
	/* The sample's values here, on the walker's thread: the encoder
	 * is the busier of the two. */
	gh_pp_heap_values(&st->hdr, st->wscale, st->b.impl, st->b.f2i, r, &e->hv);
	e->nstk = (uint32_t)r->nstk;
	e->wrap = 0;
	e->same = (uint16_t)same;
	if (r->nstk > 0)
		memcpy(st->ring + pos + sizeof(*e), r->stk, r->nstk * 8);
	st->wprev = (const uint64_t *)(const void *)(st->ring + pos +
						     sizeof(*e));
	st->wprev_n = r->nstk;
	st->head += need;
	if (++st->pending >= RING_BATCH)
		stream_publish(st);
	return 0;
}

int gh_pprof_stream_finish(gh_pprof_stream *st, const gh_profile *p,
			   int ok)
{
	int rc;

	if (st == NULL)
		return 0;
	if (st->threaded) {
		pthread_mutex_lock(&st->mu);
		st->head_pub = st->head;
		st->done = 1;
		pthread_cond_signal(&st->cv_data);
		pthread_mutex_unlock(&st->mu);
		pthread_join(st->th, NULL);
		if (st->b.stats != NULL)
			st->b.stats->t_encode_thread = st->cpu;
		pthread_cond_destroy(&st->cv_space);
		pthread_cond_destroy(&st->cv_data);
		pthread_mutex_destroy(&st->mu);
	}
	if (st->init_rc != 0) {
		gh_pp_free(&st->b);
		rc = st->init_rc;
	} else if (!ok) {
		gh_pp_free(&st->b);
		rc = 0;
	} else {
		/* What the walk learnt at its end (builder_build's note). */
		st->hdr.skipped = p->skipped;
		st->hdr.skipped_bucket = p->skipped_bucket;
		memcpy(st->hdr.skipped_reason, p->skipped_reason,
		       sizeof(st->hdr.skipped_reason));
		st->hdr.nbuckets = p->nbuckets;
		rc = gh_pp_finish(&st->b, 0, st->err);
	}
	free(st->ring);
	free(st->wscale);
	free(st->prevstk);
	free(st);
	return rc;
}

/*
 * pprof_gzip.c - the pprof writer's compressor (pprof_gzip.h): ISA-L's
 * igzip, else libdeflate, else zlib (doc/dependencies.md), on a thread of
 * its own started with the first full chunk.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_gzip.h"

/* Compress n bytes at p into g->out; last ends the stream (zlib). */
static int gz_compress(gh_gz *g, const unsigned char *p, size_t n, int last)
{
#if defined(HAVE_ISAL)
	/* compress/gzip's header: no flags, MTIME 0, XFL 4 (BestSpeed),
	 * OS 255; igzip writes the deflate stream and the trailer. */
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
					       4, 255 };
	const size_t max = (size_t)1 << 30;   /* avail_* are 32 bits */
	size_t take, room;

	if (!g->is_started) {
		if (gh_buf_reserve(g->out, sizeof(hdr)) != 0)
			return GOHEAP_ENOMEM;
		gh_buf_append(g->out, hdr, sizeof(hdr));
		g->is_started = 1;
	}
	do {
		take = n > max ? max : n;
		g->is.next_in = (uint8_t *)p;
		g->is.avail_in = (uint32_t)take;
		g->is.end_of_stream = last && take == n;
		p += take;
		n -= take;
		do {
			/* level 1 output rarely exceeds half its input */
			if (gh_buf_reserve(g->out, take / 2 + 4096) != 0)
				return GOHEAP_ENOMEM;
			room = g->out->cap - g->out->len;
			room = room > max ? max : room;
			g->is.next_out = g->out->data + g->out->len;
			g->is.avail_out = (uint32_t)room;
			if (isal_deflate(&g->is) != COMP_OK)
				return GOHEAP_ENOMEM;
#if defined(__x86_64__)
			/* igzip returns with the upper halves of the vector
			 * registers dirty, and every SSE instruction after
			 * it on this thread (doubles, inlined copies) pays a
			 * merge penalty: encoding after compressing on one
			 * thread ran at half speed (bench/README.md,
			 * session 8).  Only the compressor thread calls it
			 * mid-profile, unless that thread cannot start. */
			if (g->vzu)
				__asm__ __volatile__("vzeroupper" ::: "memory");
#endif
			g->out->len += room - g->is.avail_out;
		} while (g->is.avail_in != 0 ||
			 (g->is.end_of_stream &&
			  g->is.internal_state.state != ZSTATE_END));
	} while (n > 0);
	return 0;
#elif defined(HAVE_LIBDEFLATE)
	size_t bound, got;

	/* Every chunk is a member; a stream has at least one. */
	if (n == 0 && !(last && g->out->len == 0))
		return 0;
	bound = libdeflate_gzip_compress_bound(g->ld, n);
	if (gh_buf_reserve(g->out, bound) != 0)
		return GOHEAP_ENOMEM;
	got = libdeflate_gzip_compress(g->ld, p, n, g->out->data + g->out->len,
				       g->out->cap - g->out->len);
	if (got == 0)
		return GOHEAP_ENOMEM;
	g->out->len += got;
	return 0;
#else
	int flush = last ? Z_FINISH : Z_NO_FLUSH;
	int rc;

	g->zs.next_in = (unsigned char *)p;
	g->zs.avail_in = (uInt)n;
	do {
		if (gh_buf_reserve(g->out, 65536) != 0)
			return GOHEAP_ENOMEM;
		g->zs.next_out = g->out->data + g->out->len;
		g->zs.avail_out = (uInt)(g->out->cap - g->out->len);
		rc = deflate(&g->zs, flush);
		if (rc == Z_STREAM_ERROR)
			return GOHEAP_ENOMEM;
		g->out->len = g->out->cap - g->zs.avail_out;
	} while (g->zs.avail_out == 0 || g->zs.avail_in != 0 ||
		 (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
#endif
}

/* The compressing thread: chunks in order until finishing and drained. */
static void *gz_thread(void *arg)
{
	gh_gz *g = arg;
	gh_buf c;
	int rc;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (g->qn == 0 && !g->finishing)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->qn == 0)
			break;
		c = g->q[g->qhead];
		g->qhead = (g->qhead + 1) % GH_GZ_NBUF;
		g->qn--;
		rc = g->err;
		pthread_mutex_unlock(&g->mu);
		if (rc == 0)
			rc = gz_compress(g, c.data, c.len, 0);
		pthread_mutex_lock(&g->mu);
		if (rc != 0 && g->err == 0)
			g->err = rc;
		c.len = 0;
		g->spare[g->nspare++] = c;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int gh_gz_init(gh_gz *g, gh_buf *out, gh_wstats *stats, gh_err *err)
{
	size_t i;

	g->out = out;
	g->stats = stats;
#if defined(HAVE_ISAL)
	g->is_level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
	if (g->is_level_buf == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "initialising igzip");
	isal_deflate_init(&g->is);
	g->is.level = 1;
	g->is.level_buf = g->is_level_buf;
	g->is.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
	g->is.gzip_flag = IGZIP_GZIP_NO_HDR;
	g->is.flush = NO_FLUSH;
#elif defined(HAVE_LIBDEFLATE)
	/* libdeflate writes compress/gzip's header at level 1. */
	g->ld = libdeflate_alloc_compressor(1);
	if (g->ld == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "initialising libdeflate");
#else
	{
		gz_header hdr;

		memset(&hdr, 0, sizeof(hdr));
		/* compress/gzip: level BestSpeed, MTIME 0, OS 255. */
		if (deflateInit2(&g->zs, 1, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return gh_errf(err, GOHEAP_ENOMEM, "initialising zlib");
		g->zinit = 1;
		hdr.os = 255;
		if (deflateSetHeader(&g->zs, &hdr) != Z_OK)
			return gh_errf(err, GOHEAP_ENOMEM,
				       "setting the gzip header");
	}
#endif
#if defined(__x86_64__) && defined(HAVE_ISAL)
	g->vzu = __builtin_cpu_supports("avx");
#endif
	for (i = 0; i + 1 < GH_GZ_NBUF; i++)
		g->spare[g->nspare++] = (gh_buf)GH_BUF_INIT;
	if (pthread_mutex_init(&g->mu, NULL) != 0)
		return 0;             /* no thread: compress in place */
	if (pthread_cond_init(&g->cv, NULL) != 0) {
		pthread_mutex_destroy(&g->mu);
		return 0;
	}
	g->sync_init = 1;
	return 0;
}

/* Let the thread drain the queue and end; its error, if any. */
static int gz_join(gh_gz *g)
{
	int rc;

	if (!g->threaded)
		return 0;
	pthread_mutex_lock(&g->mu);
	g->finishing = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->th, NULL);
	g->threaded = 0;
	rc = g->err;
	return rc;
}

void gh_gz_free(gh_gz *g)
{
	size_t i;

	gz_join(g);
	for (i = 0; i < g->qn; i++)
		gh_buf_free(&g->q[(g->qhead + i) % GH_GZ_NBUF]);
	for (i = 0; i < g->nspare; i++)
		gh_buf_free(&g->spare[i]);
	if (g->sync_init) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
	}
#if defined(HAVE_ISAL)
	free(g->is_level_buf);
#elif defined(HAVE_LIBDEFLATE)
	if (g->ld != NULL)
		libdeflate_free_compressor(g->ld);
#else
	if (g->zinit)
		deflateEnd(&g->zs);
#endif
}

/* Hand *chunk to the compressing thread, take a spare one. */
static int gz_enqueue(gh_gz *g, gh_buf *chunk)
{
	int rc;

	pthread_mutex_lock(&g->mu);
	while (g->nspare == 0 && g->err == 0)
		pthread_cond_wait(&g->cv, &g->mu);
	rc = g->err;
	if (rc == 0) {
		g->q[(g->qhead + g->qn) % GH_GZ_NBUF] = *chunk;
		g->qn++;
		*chunk = g->spare[--g->nspare];
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}


int gh_gz_push(gh_gz *g, gh_buf *chunk, int last)
{
	double t0 = g->stats != NULL ? gh_now() : 0;
	int rc = 0;

	if (chunk->oom)
		return GOHEAP_ENOMEM;
	/* The thread starts with the first full chunk: a profile smaller
	 * than one chunk (most) is compressed in place at the end. */
	if (!last && !g->threaded && g->sync_init && !g->tried) {
		sigset_t all, old;

		/* Signals stay with the caller's threads: the compressor
		 * starts with every signal blocked. */
		g->tried = 1;
		sigfillset(&all);
		if (pthread_sigmask(SIG_SETMASK, &all, &old) == 0) {
			g->threaded = pthread_create(&g->th, NULL, gz_thread,
						     g) == 0;
			pthread_sigmask(SIG_SETMASK, &old, NULL);
#if defined(__linux__) && defined(__GLIBC__)
			if (g->threaded)
				(void)pthread_setname_np(g->th, "goheap-gzip");
#endif
		}
	}
	if (g->threaded && !last) {
		rc = gz_enqueue(g, chunk);
	} else {
		if (last)
			rc = gz_join(g);
		if (rc == 0)
			rc = gz_compress(g, chunk->data, chunk->len, last);
		chunk->len = 0;
	}
	if (g->stats != NULL)
		g->stats->t_compress += gh_now() - t0;
	return rc;
}


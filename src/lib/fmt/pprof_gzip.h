/*
 * pprof_gzip.h - the pprof writer's compressor: gzip at BestSpeed behind
 * compress/gzip's header, on a thread of the writer's own while the
 * builder encodes (src/lib/fmt/pprof_gzip.c).
 */
#ifndef GH_PPROF_GZIP_H
#define GH_PPROF_GZIP_H

#include <pthread.h>
#if defined(HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#elif defined(HAVE_LIBDEFLATE)
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

#include "fmt_common.h"

/*
 * proto.go flush() hands data to the compressor past 4096 bytes; we hand
 * it over in larger chunks, to a thread of our own (pprof_gzip.c): the
 * decompressed bytes do not depend on where a chunk ends.  igzip streams
 * across chunks, so they can be small: the compression left after the
 * last record is at most one chunk (64 KiB: 10k buckets 6.7 -> 6.3 ms
 * against 256 KiB).  libdeflate starts each member afresh: 256 KiB keeps
 * its ratio.
 */
#ifdef HAVE_ISAL
#define GH_GZ_CHUNK (64u * 1024)
#else
#define GH_GZ_CHUNK (256u * 1024)
#endif
/* Chunk buffers: one being encoded, the others queued or compressing. */
#define GH_GZ_NBUF 3

/*
 * The compressor: gzip at BestSpeed behind compress/gzip's header (MTIME 0,
 * XFL 4, OS 255).  It runs on a second thread while the builder encodes:
 * the builder hands over a chunk of encoded bytes at a top-level message
 * boundary (gh_gz_push) and goes on encoding into a spare buffer; the thread
 * compresses the chunks in order into *out.  The thread is the builder's
 * own, started with the first full chunk and joined before gh_write_pprof
 * returns; when it cannot be started the chunks are compressed in place.
 *
 * With libdeflate (doc/dependencies.md) each chunk becomes one gzip member
 * of the output; gzip readers (Go's gzip.Reader, hence `go tool pprof`,
 * gzip -d, Python's gzip) read concatenated members as one stream.  With
 * igzip or zlib the output is one member, as compress/gzip writes it.
 */
typedef struct gh_gz {
	gh_buf *out;
	gh_wstats *stats;
#if defined(HAVE_ISAL)
	struct isal_zstream is;
	uint8_t *is_level_buf;
	int is_started;       /* the gzip header is written */
#elif defined(HAVE_LIBDEFLATE)
	struct libdeflate_compressor *ld;
#else
	z_stream zs;
	int zinit;
#endif
	int threaded;         /* the thread runs (joined at the end) */
	int tried;            /* pthread_create was called */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;    /* queue, spare list or finishing changed */
	int sync_init;
	gh_buf q[GH_GZ_NBUF];    /* chunks to compress: q[qhead..qhead+qn) */
	size_t qhead, qn;
	gh_buf spare[GH_GZ_NBUF];/* emptied chunk buffers */
	size_t nspare;
	int finishing;        /* no more chunks: the thread drains and ends */
	int err;              /* the thread's GOHEAP_E* (under mu) */
	int vzu;              /* the host has AVX: vzeroupper after igzip */
} gh_gz;

/* Start a compressor that appends to *out.  0 or GOHEAP_E* (err set). */
int gh_gz_init(gh_gz *g, gh_buf *out, gh_wstats *stats, gh_err *err);
/*
 * Hand the encoded bytes in *chunk to the compressor (last: they end the
 * stream, and the thread is joined); *chunk comes back empty, possibly
 * another buffer.  The stats' "compress" is the time spent here: waiting
 * for a spare buffer, compressing in place or, at the end, for the
 * thread.  0 or GOHEAP_E*.
 */
int gh_gz_push(gh_gz *g, gh_buf *chunk, int last);
void gh_gz_free(gh_gz *g);

#endif

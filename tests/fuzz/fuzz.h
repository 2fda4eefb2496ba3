/*
 * fuzz.h - helpers shared by the libFuzzer harnesses in tests/fuzz/.
 *
 * The parsers under test take a path (they mmap the file, as go-heap does
 * with real cores and executables), so each input is copied into one
 * memfd per process and handed over as /proc/self/fd/N.  This keeps the
 * harnesses off the disk and exercises the same open/fstat/mmap path as
 * the CLI.  A plain temporary file was rejected: thousands of executions
 * per second would churn the file system for nothing.
 */
#ifndef GH_FUZZ_H
#define GH_FUZZ_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Replace the contents of the process's memfd with data[0..size) and return
 * its /proc/self/fd path (static storage), or NULL on failure.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("goheap-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0)
		return NULL;
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			return NULL;
		done += (size_t)n;
	}
	return path;
}

/*
 * Overlay mode of the ELF harnesses.  Mutating a whole 3 MB Go executable
 * wastes nearly every execution on bytes nobody reads and fills the corpus
 * with megabyte files, so when GOHEAP_FUZZ_EXE names an executable the
 * input is a patch for it instead:
 *
 *   bytes 0..3   little-endian offset; bit 31 set: cut the file right
 *                after the patch
 *   bytes 4..    written over the executable at offset % its size
 *
 * seeds.sh makes patches at the ELF header, the program and section header
 * tables, .go.buildinfo, .note.go.buildid, .symtab and several places of
 * .gopclntab.  fuzz_base() loads the executable once.
 */
static const uint8_t *fuzz_base_data;
static size_t fuzz_base_len;

static inline void fuzz_base(void)
{
	const char *path = getenv("GOHEAP_FUZZ_EXE");
	FILE *f;
	long n;
	uint8_t *b;

	if (path == NULL || path[0] == '\0')
		return;
	f = fopen(path, "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (b = malloc((size_t)n)) == NULL ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "fuzz: cannot read GOHEAP_FUZZ_EXE %s\n", path);
		exit(1);
	}
	fclose(f);
	fuzz_base_data = b;
	fuzz_base_len = (size_t)n;
}

/* The file the ELF harnesses parse: the input itself, or base + patch. */
static inline const char *fuzz_elf_file(const uint8_t *data, size_t size)
{
	static uint8_t *buf;
	size_t off, len, n;
	uint32_t w;

	if (fuzz_base_data == NULL)
		return fuzz_file(data, size);
	if (size < 4)
		return NULL;
	if (buf == NULL) {
		buf = malloc(fuzz_base_len + 65536);
		if (buf == NULL)
			return NULL;
	}
	w = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
	    (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	off = (size_t)(w & 0x7fffffffu) % fuzz_base_len;
	n = size - 4 > 65536 ? 65536 : size - 4;
	memcpy(buf, fuzz_base_data, fuzz_base_len);
	memcpy(buf + off, data + 4, n);
	len = off + n > fuzz_base_len ? off + n : fuzz_base_len;
	if (w & 0x80000000u)
		len = off + n;
	return fuzz_file(buf, len);
}

/* Little-endian word from the input, 0 past its end. */
static inline uint64_t fuzz_u64(const uint8_t *p, size_t size, size_t off)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < 8 && off + i < size; i++)
		v |= (uint64_t)p[off + i] << (8 * i);
	return v;
}

/* ---- the pprof writer's output (fuzz_pprof, fuzz_gor) ---------------------- */

/* A protobuf varint at *p (not past end) into *out; -1 when it runs off. */
static inline int fuzz_varint(const unsigned char **p, const unsigned char *end,
			      uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if ((c & 0x80) == 0) {
			*out = v;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

/*
 * The next field of a message at *p (before end), moving *p past it: its
 * number; *v a varint's value (wire type 0, *body NULL) or a
 * length-delimited field's length (wire type 2, its bytes [*body, *p)).
 * Abort on another wire type or a field that runs past end.
 */
static inline uint64_t fuzz_pb_field(const unsigned char **p,
				     const unsigned char *end, uint64_t *v,
				     const unsigned char **body)
{
	uint64_t key;

	if (fuzz_varint(p, end, &key) != 0 ||
	    ((key & 7) != 0 && (key & 7) != 2) || fuzz_varint(p, end, v) != 0)
		abort();
	*body = NULL;
	if ((key & 7) == 2) {
		if (*v > (uint64_t)(end - *p))
			abort();
		*body = *p;
		*p += *v;
	}
	return key >> 3;
}

/* A Sample: the sum of its values (field 2, packed or not); abort if malformed. */
static inline uint64_t fuzz_sample_sum(const unsigned char *p,
				       const unsigned char *end)
{
	const unsigned char *q;
	uint64_t v, sum = 0;

	while (p < end) {
		if (fuzz_pb_field(&p, end, &v, &q) != 2)
			continue;
		if (q == NULL)
			sum += v;
		else
			while (q < p) {
				if (fuzz_varint(&q, p, &v) != 0)
					abort();
				sum += v;
			}
	}
	return sum;
}

/*
 * Walk a Profile message p[0..len): every field must have a valid wire type
 * (varint or length-delimited) and fit in the message, and the string table
 * (field 6) must be there and start with "" (abort otherwise).  *nsample:
 * its samples (field 2); with total != NULL, *total: the sum of their
 * values (fuzz_sample_sum).
 */
static inline void fuzz_walk_profile(const unsigned char *p, size_t len,
				     size_t *nsample, uint64_t *total)
{
	const unsigned char *end = p + len, *body;
	size_t nstring = 0;
	uint64_t field, v;

	*nsample = 0;
	if (total != NULL)
		*total = 0;
	while (p < end) {
		field = fuzz_pb_field(&p, end, &v, &body);
		if (body == NULL)
			continue;
		if (field == 2) {
			(*nsample)++;
			if (total != NULL)
				*total += fuzz_sample_sum(body, p);
		}
		if (field == 6 && nstring++ == 0 && v != 0)
			abort();
	}
	if (nstring == 0)
		abort();
}

/*
 * Inflate the gzip stream gz[0..len) into a malloc'd *raw (abort when it
 * is corrupt or truncated, or bytes follow its trailer).  0, or -1
 * (nothing inflated) when zlib or malloc fail.
 */
static inline int fuzz_gunzip(const unsigned char *gz, size_t len,
			      unsigned char **out, size_t *outlen)
{
	z_stream zs;
	unsigned char *raw = NULL;
	size_t cap = 1 << 16;
	int zr, rc = -1;

	*out = NULL;
	*outlen = 0;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return -1;
	raw = malloc(cap);
	if (raw == NULL)
		goto out;
	zs.next_in = (unsigned char *)gz;
	zs.avail_in = (uInt)len;
	for (;;) {
		unsigned char *nr;

		zs.next_out = raw + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			abort();
		if (zs.avail_out != 0)
			abort(); /* truncated stream */
		nr = realloc(raw, cap * 2);
		if (nr == NULL)
			goto out;
		raw = nr;
		cap *= 2;
	}
	if (zs.avail_in != 0)
		abort(); /* bytes after the gzip trailer */
	*out = raw;
	*outlen = zs.total_out;
	raw = NULL;
	rc = 0;
out:
	inflateEnd(&zs);
	free(raw);
	return rc;
}

/*
 * gh_write_pprof's output gz[0..len): inflate it (fuzz_gunzip) and walk
 * it with fuzz_walk_profile.  0, or -1 (nothing checked) when zlib or
 * malloc fail.
 */
static inline int fuzz_check_pprof(const unsigned char *gz, size_t len,
				   size_t *nsample, uint64_t *total)
{
	unsigned char *raw;
	size_t n;

	if (fuzz_gunzip(gz, len, &raw, &n) != 0)
		return -1;
	fuzz_walk_profile(raw, n, nsample, total);
	free(raw);
	return 0;
}

#endif

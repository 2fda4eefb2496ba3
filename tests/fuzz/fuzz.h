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

#endif

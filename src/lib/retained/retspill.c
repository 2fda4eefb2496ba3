/*
 * retspill.c - -p retained's arrays that the dominators do not read while
 * they run (the objects' addresses and rows, then the CSR edges once the
 * predecessors are built) written to a temporary file and read back after
 * (retspill.h).  The file is made in $TMPDIR (else /tmp) and unlinked at
 * once: nothing is left behind, whatever happens.  A file that cannot be
 * made or written keeps the arrays in memory (the collection goes on, in
 * more memory); one that cannot be read back is an error.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "retspill.h"

void gh_ret_spill_init(gh_ret_spill *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
}

static int spill_open(gh_ret_spill *sp)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int n;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	n = snprintf(path, sizeof(path), "%s/go-heap-retained.XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	sp->fd = mkstemp(path);
	if (sp->fd < 0)
		return -1;
	(void)unlink(path);
	return 0;
}

void gh_ret_spill_out(gh_ret_spill *sp, void **arr, size_t len)
{
	const unsigned char *p = *arr;
	size_t done = 0;

	if (sp->failed || *arr == NULL || len == 0 ||
	    sp->n >= sizeof(sp->v) / sizeof(sp->v[0]))
		return;
	if (sp->fd < 0 && spill_open(sp) != 0) {
		sp->failed = 1;
		return;
	}
	while (done < len) {
		ssize_t w = pwrite(sp->fd, p + done, len - done,
				   (off_t)(sp->end + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sp->failed = 1;   /* the array stays in memory */
			return;
		}
		done += (size_t)w;
	}
	sp->v[sp->n].arr = arr;
	sp->v[sp->n].len = len;
	sp->v[sp->n].at = sp->end;
	sp->n++;
	sp->end += len;
	free(*arr);
	*arr = NULL;
}

int gh_ret_spill_in(gh_ret_spill *sp)
{
	int rc = 0;

	while (sp->n > 0) {
		size_t len = sp->v[sp->n - 1].len, done = 0;
		unsigned char *p = gh_malloc_huge(len);

		if (p == NULL) {
			rc = GOHEAP_ENOMEM;
			break;
		}
		while (done < len) {
			ssize_t g = pread(sp->fd, p + done, len - done,
					  (off_t)(sp->v[sp->n - 1].at + done));

			if (g < 0 && errno == EINTR)
				continue;
			if (g <= 0)
				break;
			done += (size_t)g;
		}
		if (done < len) {
			free(p);
			rc = GOHEAP_EIO;
			break;
		}
		*sp->v[sp->n - 1].arr = p;
		sp->n--;
	}
	gh_ret_spill_close(sp);
	return rc;
}

void gh_ret_spill_close(gh_ret_spill *sp)
{
	if (sp->fd >= 0)
		(void)close(sp->fd);
	sp->fd = -1;
	sp->n = 0;
}

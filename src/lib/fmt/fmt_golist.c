/*
 * fmt_golist.c - the goroutine profile as one line per goroutine
 * (-f list; gdb's `info goroutines`, gdb/go_heap.py).
 *
 * What runtime-gdb.py's `info goroutines` and delve's `goroutines` show,
 * in the runtime's own words: each goroutine of the traceback (-f
 * traceback, runtime.Stack(buf, true)), in allgs order, as
 *
 *   ID STATUS  FUNCTION  FILE:LINE[  created by F[ in goroutine N]][  (thread TID)]
 *
 *      1 [chan receive]                main.main  /src/main.go:31
 *     17 [chan receive, 3 minutes]     main.worker  /src/main.go:42  created by main.main in goroutine 1
 *     23 [running]                     (stack unavailable)  created by main.main in goroutine 1  (thread 4242)
 *
 *   - ID right-aligned to the widest; STATUS is the debug=2 header's
 *     bracketed part exactly ("[chan receive, 3 minutes, locked to
 *     thread]", with 1.26's labels inside it and 1.27's " {k: v}" after
 *     it), padded to the widest up to GH_GOLIST_STATUS_PAD columns;
 *   - FUNCTION and FILE:LINE are the first frame the traceback shows
 *     (the first not hidden by showframe, printFuncName's name without
 *     the argument list, the line without "+0x.."); "(stack
 *     unavailable)" where it shows none (a goroutine running elsewhere);
 *   - "created by ..." as the traceback's line (without its file:line);
 *   - "(thread TID)" when the goroutine is on an M (g.m != 0 and
 *     m.curg == g): m.procid, the thread's LWP, as gdb numbers it.  The
 *     gdb command marks with '*' the line of the selected thread.
 * Fields are separated by two spaces (a function name has none).  The
 * traceback's "# go-heap: ..." note, when there is one, ends the list.
 *
 * The lines are cut from the traceback writer's own text, block by block
 * (block i is gors[i]): the status and the first frame are then the
 * debug=2 ones by construction, whatever rules that writer follows per
 * release.  Only the thread comes from the target's memory: the session
 * must still be open (goheap_profile_write's rule); a g or m that cannot
 * be read just has no thread.
 */
#include "config.h"

#include <stdlib.h>

#include "goroutine.h"
#include "writers.h"

/* STATUS is padded to the widest, but not beyond this (labels can be long). */
#define GH_GOLIST_STATUS_PAD 32

/* One goroutine's line, as pointers into the traceback text. */
typedef struct golist_line {
	const char *status, *func, *file, *created;
	size_t lstatus, lfunc, lfile, lcreated;
	uint64_t tid;             /* 0: not on a thread (or unknown) */
} golist_line;

/* The next line of [*pos, end): its start and length (no '\n'). */
static int next_line(const char **pos, const char *end, const char **line,
		     size_t *len)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
	*pos = nl != NULL ? nl + 1 : end;
	return 1;
}

/*
 * Parse one traceback block (no blank line inside) for goroutine goid.
 * Returns 0, or -1 when the block is not what the traceback writer writes.
 */
static int parse_block(const char *b, size_t n, uint64_t goid, golist_line *L)
{
	const char *pos = b, *end = b + n, *l, *q;
	char head[48];
	size_t len, hl;
	int first = 1;

	if (!next_line(&pos, end, &l, &len))
		return -1;
	hl = (size_t)snprintf(head, sizeof(head), "goroutine %llu ",
			      (unsigned long long)goid);
	if (len < hl + 3 || memcmp(l, head, hl) != 0 || l[hl] != '[' ||
	    l[len - 1] != ':')
		return -1;
	L->status = l + hl;
	L->lstatus = len - hl - 1;
	while (next_line(&pos, end, &l, &len)) {
		/* GODEBUG=tracebackancestors: the creators' stacks follow;
		 * theirs are not this goroutine's */
		if (len >= 28 && memcmp(l, "[originating from goroutine ", 28) == 0)
			break;
		if (len >= 11 && memcmp(l, "created by ", 11) == 0) {
			L->created = l;
			L->lcreated = len;
			break;
		}
		if (!first || len == 0 || l[0] == '\t' || l[0] == '.')
			continue;       /* file lines, "...N frames elided..." */
		first = 0;
		/* "F(args)": the name ends at the last '(' */
		q = l + len;
		while (q > l && q[-1] != '(')
			q--;
		if (q == l || l[len - 1] != ')')
			return -1;
		L->func = l;
		L->lfunc = (size_t)(q - 1 - l);
		if (!next_line(&pos, end, &l, &len) || len < 2 || l[0] != '\t')
			return -1;
		L->file = l + 1;
		L->lfile = len - 1;
		/* drop " +0x..": the file name itself may hold spaces */
		for (q = L->file + L->lfile; q > L->file && q[-1] != ' '; q--)
			;
		if (q > L->file && L->file + L->lfile - q > 3 &&
		    memcmp(q, "+0x", 3) == 0)
			L->lfile = (size_t)(q - 1 - L->file);
	}
	return 0;
}

int gh_write_goroutine_list(const gh_profile *p, const gh_wctx *w,
			    gh_buf *out, gh_err *err)
{
	const gh_gorprof *gp = gh_gor_of(p);
	gh_buf tb = GH_BUF_INIT;
	golist_line *lines = NULL;
	const char *pos, *end, *b, *note = NULL;
	size_t i, n, idw = 1, stw = 0, nnote = 0;
	char num[24];
	int rc;

	rc = gh_write_goroutine_traceback(p, w, &tb, err);
	if (rc != 0)
		goto done;
	if (tb.oom) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "list: out of memory");
		goto done;
	}
	lines = gh_calloc(gp->ngors > 0 ? gp->ngors : 1, sizeof(*lines));
	if (lines == NULL) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "list: out of memory");
		goto done;
	}
	/* Blocks are separated by one blank line; the note is the last. */
	pos = tb.len > 0 ? (const char *)tb.data : "";  /* no goroutine, no note */
	end = pos + tb.len;
	for (i = 0; pos < end; i++) {
		const char *sep = pos;

		b = pos;
		while ((sep = memchr(sep, '\n', (size_t)(end - sep))) != NULL &&
		       !(sep + 1 < end && sep[1] == '\n'))
			sep++;
		n = sep != NULL ? (size_t)(sep - b) : (size_t)(end - b);
		pos = sep != NULL ? sep + 2 : end;
		while (n > 0 && b[n - 1] == '\n')
			n--;
		if (i == gp->ngors && n > 12 && memcmp(b, "# go-heap: ", 11) == 0) {
			note = b;
			nnote = n;
			continue;
		}
		if (i >= gp->ngors ||
		    parse_block(b, n, gp->gors[i].goid, &lines[i]) != 0) {
			rc = gh_errf(err, GOHEAP_ECORRUPT, "list: the traceback "
				     "of goroutine %zu is not as expected", i);
			goto done;
		}
	}
	if (i < gp->ngors + (note != NULL)) {
		rc = gh_errf(err, GOHEAP_ECORRUPT, "list: %zu tracebacks for "
			     "%zu goroutines", i, gp->ngors);
		goto done;
	}
	for (i = 0; i < gp->ngors; i++) {
		size_t k = (size_t)snprintf(num, sizeof(num), "%llu",
					    (unsigned long long)gp->gors[i].goid);

		if (k > idw)
			idw = k;
		if (lines[i].lstatus > stw)
			stw = lines[i].lstatus;
		lines[i].tid = gp->gors[i].tid;
	}
	if (stw > GH_GOLIST_STATUS_PAD)
		stw = GH_GOLIST_STATUS_PAD;
	for (i = 0; i < gp->ngors; i++) {
		const golist_line *L = &lines[i];

		gh_buf_printf(out, "%*llu %.*s%*s  ", (int)idw,
			      (unsigned long long)gp->gors[i].goid,
			      (int)L->lstatus, L->status,
			      L->lstatus < stw ? (int)(stw - L->lstatus) : 0, "");
		if (L->func != NULL)
			gh_buf_printf(out, "%.*s  %.*s", (int)L->lfunc, L->func,
				      (int)L->lfile, L->file);
		else
			gh_buf_printf(out, "(stack unavailable)");
		if (L->created != NULL)
			gh_buf_printf(out, "  %.*s", (int)L->lcreated,
				      L->created);
		if (L->tid != 0)
			gh_buf_printf(out, "  (thread %llu)",
				      (unsigned long long)L->tid);
		gh_buf_putc(out, '\n');
	}
	if (note != NULL)
		gh_buf_printf(out, "%.*s\n", (int)nnote, note);
	if (out->oom)
		rc = gh_errf(err, GOHEAP_ENOMEM, "list: out of memory");
done:
	free(lines);
	gh_buf_free(&tb);
	return rc;
}

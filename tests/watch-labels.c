/*
 * tests/watch-labels.c - renders `go-heap watch`'s /metrics and index page
 * (src/watch/watch_metrics.c) for processes with arbitrary names, for
 * tests/run-watch-churn.sh's property test: stdin has one line of hex per
 * process, the bytes of its comm and of its exe path (a NUL byte, which
 * the kernel never puts in either, is dropped); stdout gets the /metrics
 * page, or the index page with -i.  The script checks the page with
 * promtool and compares each label value with Go's (tests/go/labelref).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_metrics.h"

static int unhex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	       c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int main(int argc, char **argv)
{
	char line[8192];
	wt_view *v = NULL;
	char **names = NULL;
	size_t n = 0, i, j, k;
	wm_snapshot s;
	gh_buf b = GH_BUF_INIT;
	int rc = 0, index = argc > 1 && strcmp(argv[1], "-i") == 0;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		size_t l = strcspn(line, "\r\n");
		char *name = malloc(l / 2 + 1);
		void *nv = realloc(v, (n + 1) * sizeof(*v));
		void *nn = nv ? realloc(names, (n + 1) * sizeof(*names)) : NULL;

		if (name == NULL || nv == NULL || nn == NULL) {
			fprintf(stderr, "watch-labels: out of memory\n");
			free(name);
			rc = 1;
			break;
		}
		v = nv;
		names = nn;
		for (j = k = 0; j + 1 < l; j += 2) {
			int hi = unhex(line[j]), lo = unhex(line[j + 1]);

			if (hi < 0 || lo < 0)
				break;
			if (hi || lo)
				name[k++] = (char)(hi << 4 | lo);
		}
		name[k] = '\0';
		names[n] = name;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].pid = (int)n + 1;
		v[n].comm = v[n].exe = name;
		v[n].container = "";
		v[n].state = "ok";
		v[n].ok = 1;
		v[n].have_stats = 1;
		n++;
	}
	if (rc == 0) {
		memset(&s, 0, sizeof(s));
		s.t = v;
		s.nt = n;
		if (index)
			wm_index(v, n, &b);
		else
			wm_metrics(&s, &b);
		if (b.oom || fwrite((char *)b.data, 1, b.len, stdout) != b.len)
			rc = 1;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(v);
	gh_buf_free(&b);
	return rc;
}

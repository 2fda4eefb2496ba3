/*
 * watch_outdir.c - go-heap watch's --output-dir (watch_outdir.h): new
 * files only (O_EXCL|O_NOFOLLOW on the temporary name), renamed whole;
 * rotation by age within --output-max-bytes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "watch_outdir.h"

void wod_name_parts(const char *comm_in, time_t now, char *comm,
		    size_t ncomm, char *stamp, size_t nstamp)
{
	struct tm tm;
	size_t i;

	snprintf(comm, ncomm, "%s", comm_in != NULL && comm_in[0] ? comm_in : "go");
	for (i = 0; comm[i] != '\0'; i++)
		if (!((comm[i] >= 'a' && comm[i] <= 'z') ||
		      (comm[i] >= 'A' && comm[i] <= 'Z') ||
		      (comm[i] >= '0' && comm[i] <= '9') || comm[i] == '_' ||
		      comm[i] == '.'))
			comm[i] = '_';
	gmtime_r(&now, &tm);
	strftime(stamp, nstamp, "%Y%m%dT%H%M%SZ", &tm);
}

int wod_write(const char *dir, int pid, const char *comm_in,
	      const unsigned char *buf, size_t len, int verbose)
{
	char name[4200], comm[64], stamp[32], tmp[4300];
	time_t now = time(NULL);
	FILE *fp = NULL;
	int fd;

	wod_name_parts(comm_in, now, comm, sizeof(comm), stamp, sizeof(stamp));
	snprintf(name, sizeof(name), "%s/%d-%s-%s.pb.gz", dir,
		 pid, comm, stamp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	/* A new file or nothing: a name planted in a directory others can
	 * write (a symlink, a file) is never followed nor reused. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 || (fp = fdopen(fd, "wb")) == NULL) {
		if (fd >= 0)
			close(fd);
		if (verbose)
			fprintf(stderr, "go-heap watch: %s: %s; not written\n",
				tmp, strerror(errno));
		return WOD_REFUSED;
	}
	if (fwrite(buf, 1, len, fp) != len) {
		fclose(fp);
		unlink(tmp);
		return WOD_FAILED;
	}
	if (fclose(fp) != 0 || rename(tmp, name) != 0) {
		unlink(tmp);
		return WOD_FAILED;
	}
	return 0;
}

typedef struct ofile {
	char name[256];
	time_t mtime;
	unsigned long long size;
} ofile;

static int ofile_cmp(const void *a, const void *b)
{
	const ofile *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Ours: "PID-...-STAMP.pb.gz", and "PID-...-STAMP.pb.gz.tmp" while one is
 * written (*tmp = 1; one left behind by a watch that was killed).
 */
static int is_output_name(const char *n, int *tmp)
{
	size_t l = strlen(n);

	*tmp = l > 4 && strcmp(n + l - 4, ".tmp") == 0;
	if (*tmp)
		l -= 4;
	return l > 6 && n[0] >= '0' && n[0] <= '9' &&
	       strncmp(n + l - 6, ".pb.gz", 6) == 0 && strchr(n, '-') != NULL;
}

/* At start: remove the *.tmp files of ours that a killed watch left (a
 * running one writes and renames its file within one step). */
unsigned wod_sweep_tmp(const char *dir, int verbose)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4400];
	unsigned n = 0;
	int tmp;

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (!is_output_name(de->d_name, &tmp) || !tmp)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) == 0) {
			n++;
			if (verbose)
				fprintf(stderr, "go-heap watch: removed %s, left "
					"by an earlier run\n", path);
		}
	}
	if (d != NULL)
		closedir(d);
	return n;
}

/* Delete our oldest files until the directory holds at most --output-max
 * (*.tmp files count while present: ours exist only within a step). */
unsigned wod_rotate(const char *dir, unsigned long long max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	ofile *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	unsigned long long total = 0;
	char path[4400];
	struct stat st;
	unsigned removed = 0;
	int tmp;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!is_output_name(de->d_name, &tmp) ||
		    strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (tmp) {
			total += (unsigned long long)st.st_size;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].mtime = st.st_mtime;
		v[n].size = (unsigned long long)st.st_size;
		total += v[n].size;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), ofile_cmp);
	for (i = 0; i < n && total > max; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (unlink(path) == 0) {
			total -= v[i].size;
			removed++;
		}
	}
	free(v);
	return removed;
}

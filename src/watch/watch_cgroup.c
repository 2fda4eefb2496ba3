/*
 * watch_cgroup.c - the cgroup texts --on-memory-pressure reads
 * (watch_cgroup.h): mountinfo lines, /proc/PID/cgroup, memory.stat, and a
 * cgroup's directory under a mount, namespaces included.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch_cgroup.h"

/* mountinfo's octal escapes (\040 for a space, \011, \012, \134) undone
 * in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

int wcg_has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *q;

	for (q = list; q != NULL; q = strchr(q, ',')) {
		if (*q == ',')
			q++;
		if (strncmp(q, w, n) == 0 && (q[n] == ',' || q[n] == '\0'))
			return 1;
	}
	return 0;
}

int wcg_mountinfo_line(char *line, const char **dir, const char **root)
{
	char *f[5], *sep, *save = NULL, *t, *fstype, *opts;
	int i;

	line[strcspn(line, "\n")] = '\0';
	sep = strstr(line, " - ");
	if (sep == NULL)
		return WCG_OTHER;
	*sep = '\0';
	for (i = 0, t = strtok_r(line, " ", &save); t != NULL && i < 5;
	     t = strtok_r(NULL, " ", &save))
		f[i++] = t;
	if (i < 5)
		return WCG_OTHER;
	save = NULL;
	fstype = strtok_r(sep + 3, " ", &save);
	t = fstype != NULL ? strtok_r(NULL, " ", &save) : NULL;  /* source */
	opts = t != NULL ? strtok_r(NULL, " ", &save) : NULL;
	if (fstype == NULL)
		return WCG_OTHER;
	if (strcmp(fstype, "cgroup2") != 0 &&
	    !(strcmp(fstype, "cgroup") == 0 && opts != NULL &&
	      wcg_has_word(opts, "memory")))
		return WCG_OTHER;
	unescape(f[3]);
	unescape(f[4]);
	*root = f[3];
	*dir = f[4];
	return strcmp(fstype, "cgroup2") == 0 ? WCG_V2 : WCG_V1_MEMORY;
}

/* Whether a path has a ".." component. */
static int has_dotdot(const char *s)
{
	for (; (s = strstr(s, "/..")) != NULL; s += 3)
		if (s[3] == '/' || s[3] == '\0')
			return 1;
	return 0;
}

/*
 * In a cgroup namespace of its own, a hierarchy mounted whole has the
 * root "/../.." and a cgroup outside the namespace the path "/../../X",
 * stripped alike; a cgroupfs mounted inside the namespace has the root
 * "/", and "/../X" climbs out of it.
 */
int wcg_path(const char *mdir, const char *mroot, const char *path,
	     char *out, size_t len)
{
	size_t n = 0;

	if (mdir == NULL)
		return -2;
	if (strcmp(mroot, "/") != 0) {
		n = strlen(mroot);
		if (strncmp(path, mroot, n) != 0 ||
		    (path[n] != '/' && path[n] != '\0'))
			return -1;
	}
	if (has_dotdot(path + n))
		return -1;
	if ((size_t)snprintf(out, len, "%s%s", mdir,
			     strcmp(path + n, "/") == 0 ? "" : path + n) >= len)
		return -1;
	return 0;
}

void wcg_proc_cgroup(char *text, const char **v2, const char **v1)
{
	char *l, *c, *p, *nl;

	*v2 = *v1 = NULL;
	for (l = text; l != NULL && *l != '\0'; l = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl != NULL)
			*nl = '\0';
		c = strchr(l, ':');              /* N:CONTROLLERS:PATH */
		p = c != NULL ? strchr(c + 1, ':') : NULL;
		if (p == NULL)
			continue;
		*p = '\0';
		if (strcmp(l, "0:") == 0 && c[1] == '\0')
			*v2 = p + 1;
		else if (wcg_has_word(c + 1, "memory"))
			*v1 = p + 1;
	}
}

unsigned long long wcg_stat_value(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *q;

	for (q = text; q != NULL && *q != '\0'; q = strchr(q, '\n')) {
		if (*q == '\n')
			q++;
		if (strncmp(q, key, n) == 0 && q[n] == ' ')
			return strtoull(q + n + 1, NULL, 10);
	}
	return 0;
}

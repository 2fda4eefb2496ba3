/*
 * watch_cgroup.h - the text of /proc/self/mountinfo, /proc/PID/cgroup and
 * memory.stat as --on-memory-pressure reads them (watch_cgroup.c,
 * doc/watch.md "Memory pressure"): pure functions on strings, so that the
 * namespace cases are unit-tested (tests/test_watch.c).
 */
#ifndef GH_WATCH_CGROUP_H
#define GH_WATCH_CGROUP_H

#include <stddef.h>

enum { WCG_OTHER = 0, WCG_V1_MEMORY = 1, WCG_V2 = 2 };

/*
 * One line of /proc/self/mountinfo ("ID PARENT MAJ:MIN ROOT MOUNTPOINT
 * OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS"), cut in place: WCG_V2 for a
 * cgroup2 mount, WCG_V1_MEMORY for a cgroup v1 mount with the memory
 * controller, else WCG_OTHER; *dir and *root (octal escapes undone) point
 * into line when it is one of the first two.
 */
int wcg_mountinfo_line(char *line, const char **dir, const char **root);
/*
 * out = the directory of the cgroup at path (as /proc/PID/cgroup names it)
 * under the mount of a hierarchy at mdir showing mroot of it (both as
 * mountinfo gives them, relative to this process's cgroup namespace): 0,
 * -1 when the mount does not show that cgroup (the path is not below
 * mroot, or what is left climbs out with ".."), -2 when mdir is NULL (the
 * hierarchy is not mounted here).
 */
int wcg_path(const char *mdir, const char *mroot, const char *path,
	     char *out, size_t len);
/*
 * The text of /proc/PID/cgroup, cut in place: *v2 = the path of the
 * "0::PATH" line, *v1 = that of the "N:CONTROLLERS:PATH" line whose
 * controllers have "memory" (NULL when there is none).
 */
void wcg_proc_cgroup(char *text, const char **v2, const char **v1);
/* Whether the comma-separated list has the word w. */
int wcg_has_word(const char *list, const char *w);
/* The value of the "KEY N" line of a memory.stat text, or 0. */
unsigned long long wcg_stat_value(const char *text, const char *key);

#endif

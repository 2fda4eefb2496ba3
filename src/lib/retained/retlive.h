/*
 * retlive.h - -p retained on a live target with a brief stop (retlive.c):
 * the graph is built once while the target runs, through a recording of
 * the ranges read; the target is stopped only while those ranges, and
 * what changed since (new spans, moved stacks), are copied; the graph is
 * built again from the copy after the resume.
 */
#ifndef GH_RETLIVE_H
#define GH_RETLIVE_H

#include "profile.h"
#include "target.h"

/* Whether s can take the brief stop (a live source that stops, read
 * through the target's own cache). */
int gh_ret_live_can(const gh_target *s);

/*
 * Run pass(arg, 0) through the recording (its result is thrown away by
 * the caller), stop, copy, resume, then pass(arg, 1) over the snapshot;
 * the snapshot's figures in *out.  pass reads through s->mem only.  0 or
 * a GOHEAP_E* code with s->err set.
 */
int gh_ret_live(gh_target *s, gh_profile *p, gh_ret_snap *out,
		int (*pass)(void *arg, int final), void *arg);

#endif

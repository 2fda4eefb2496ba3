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

/* A live target's brief-stop snapshot (retlive.c), for the header. */
typedef struct gh_ret_snap {
	int on;               /* 1: read running, copied while stopped */
	uint64_t ranges, bytes, file_bytes;   /* copied; spilled to a file */
	uint64_t rounds;      /* copies while stopped (1: nothing changed) */
	uint64_t spans, spans_fetched;  /* in use at the stop; fetched */
	uint64_t lost;        /* bytes wanted that did not read */
	uint64_t misses, miss_bytes, first_miss;   /* reads outside it */
	double t_running, t_copy;
} gh_ret_snap;

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

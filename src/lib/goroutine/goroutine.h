/*
 * goroutine.h - the goroutine profile, read from outside.
 *
 * gh_gor_collect walks runtime.allgs, reads every g (status, goid,
 * labels, ...), leaves out dead and system goroutines exactly where
 * runtime.goroutineProfileWithLabelsConcurrent does, and unwinds each
 * stack as saveg's unwinder + tracebackPCs would (pclntab pcsp tables,
 * inline expansion).  doc/goroutines.md has the design and what is
 * verified per release.
 */
#ifndef GH_GOROUTINE_H
#define GH_GOROUTINE_H

#include "profile.h"
#include "target.h"

/*
 * Fill p (kind GOHEAP_PROFILE_GOROUTINE, already set up by the session)
 * with the target's goroutines.  0 or a GOHEAP_E* code with tg->err set.
 * A source with a stop slot (live) is read running, then stopped (unless
 * tg->no_stop) while every g header is read again in bulk and the
 * goroutines that changed, the running ones (from their thread's
 * registers) and the new ones are re-read: a consistent snapshot;
 * p->gor_snapshot and p->gor_stop_* say how it went (doc/goroutines.md).
 */
int gh_gor_collect(gh_profile *p, gh_target *tg);

/*
 * Go's strconv.Quote of s[0..n) appended to b (fmt's %q of a label):
 * gh_go_quote (goquote.c) with the IsPrint tables u, the target release's
 * (gh_profile_rt(p)->unicode).
 */
void gh_gor_quote(gh_buf *b, const char *s, size_t n, gh_unicode u);

#endif

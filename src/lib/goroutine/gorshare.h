/*
 * gorshare.h - what the goroutine collector lends the other collectors
 * (-p retained's stacks and live pass): the bound on allgs, a g's span in
 * bytes, allgs read whole and a running goroutine's registers from its
 * thread.  Its private state stays in goroutine_int.h.
 */
#ifndef GH_GORSHARE_H
#define GH_GORSHARE_H

#include <stdint.h>

#include "memsrc.h"
#include "rtlayout.h"
#include "target.h"

#define GH_GOR_MAX_GS (1u << 22)       /* len(allgs) */

/* goroutine.c: the bytes of a g this release's readers need */
unsigned gor_g_span(const gh_rtlayout *l);
/* gorsnap.c: runtime.allgs ({ptr, len, cap} at addr): *arr, *len, or
 * ECORRUPT for a slice that cannot be (len > cap, more than GH_GOR_MAX_GS,
 * fewer than min entries, a nil array with entries) */
int gor_read_allgs(gh_target *tg, uint64_t addr, uint64_t min,
		   uint64_t *arr, uint64_t *len);

/* The threads of the instant read (a core's notes, a live stop's:
 * gh_target_threads) and where their g, m and stacks are read. */
typedef struct gor_threads {
	gh_target *tg;                /* executable, symbols, layout */
	gh_mem *m;
	const gh_thread_regs *t;
	size_t n;
} gor_threads;
/* gorunwind.c: the thread id (m.procid) running gp (header gb), 0 none */
uint64_t gor_threads_tid(const gor_threads *th, const unsigned char *gb,
			 uint64_t gp);
/* gorunwind.c: a running goroutine's pc, sp and lr (arm64) from its
 * thread's registers, through the signal frame when the thread is in the
 * runtime's signal handler; 1 when found on its stack [lo, hi), else 0 */
int gor_threads_regs(const gor_threads *th, const unsigned char *gb,
		     uint64_t gp, uint64_t lo, uint64_t hi, uint64_t *pc,
		     uint64_t *sp, uint64_t *lr0);

#endif

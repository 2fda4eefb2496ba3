/*
 * testhooks.h - the library's test hooks, compiled into test builds only.
 *
 * A few behaviours can only be tested by slowing the library down at one
 * point (keep a target stopped 3 s to SIGKILL go-heap mid-stop; hold a
 * seize so that a thread can enter uninterruptible sleep; count a named
 * function as part of the sampling path).  Tests ask for them through
 * GOHEAP_TEST_* environment variables, read through gh_test_hook().  Only
 * the test archive (libgoheap-internal, linked into the build tree's
 * src/go-heap and the unit tests) is compiled with GOHEAP_TEST_HOOKS: the
 * installed libgoheap and CLI cannot be reached by them.
 */
#ifndef GH_TESTHOOKS_H
#define GH_TESTHOOKS_H

#include <stdlib.h>

static inline const char *gh_test_hook(const char *name)
{
#ifdef GOHEAP_TEST_HOOKS
	return getenv(name);
#else
	(void)name;
	return NULL;
#endif
}

#endif

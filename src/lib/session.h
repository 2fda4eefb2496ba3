/*
 * session.h - the public handle: one target (target.h) and what the public
 * API keeps beside it (the time limit, goheap_describe's text).
 */
#ifndef GH_SESSION_H
#define GH_SESSION_H

#include "target.h"

struct goheap_session {
	gh_target t;
	double time_limit;    /* goheap_set_time_limit, seconds; 0: none */
	char info[8192];      /* goheap_describe's text */
};

#endif

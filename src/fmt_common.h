#ifndef GH_FMT_COMMON_H
#define GH_FMT_COMMON_H
#include "gh.h"
#endif

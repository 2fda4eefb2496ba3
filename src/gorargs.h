#ifndef GH_GORARGS_H
#define GH_GORARGS_H
#include "gh.h"
#endif

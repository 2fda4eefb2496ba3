/* placeholder: being written this session */
#include "gh.h"

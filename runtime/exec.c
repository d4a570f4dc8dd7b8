/* exec.c - executor. */
#include "base.h"

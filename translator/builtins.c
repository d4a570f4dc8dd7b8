/* builtins.c - (placeholder) */
#include "interp.h"

/* interp.c - (placeholder) */
#include "interp.h"

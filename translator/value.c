/* value.c - (placeholder) */
#include "interp.h"

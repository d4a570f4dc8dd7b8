/* npy.c - .npy reader and writer. */
#include "base.h"

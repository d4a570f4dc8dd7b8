/* math.c - CPU kernels for elementwise, comparison, logical, activation and reduction ops. */
#include "../base.h"

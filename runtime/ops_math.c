/* ops_math.c - shape/dtype inference for elementwise, comparison, logical, activation and reduction ops. */
#include "base.h"

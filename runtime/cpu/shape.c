/* shape.c - CPU kernels for manipulation, creation, tensor-array and side-effect ops. */
#include "../base.h"

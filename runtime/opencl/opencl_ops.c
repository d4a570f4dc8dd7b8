/* opencl_ops.c - OpenCL kernels launch glue (placeholder). */
#include "opencl.h"

/* gemm.c - GEMM through BLIS with the best kernel set this CPU supports. */
#include "../base.h"

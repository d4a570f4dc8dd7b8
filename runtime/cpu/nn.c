/* nn.c - CPU kernels for matmul, linear, conv2d, pool2d, normalisation, embedding, dropout. */
#include "../base.h"

/* ops_nn.c - shape/dtype inference for matmul, linear, conv2d, pool2d, normalisation and embedding. */
#include "base.h"

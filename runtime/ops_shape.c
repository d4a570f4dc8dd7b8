/* ops_shape.c - shape/dtype inference for manipulation, creation and tensor-array ops. */
#include "base.h"

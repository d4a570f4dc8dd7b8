/* test_grad.c - every gradient rule of the registry against central finite differences.
 *
 * In the spirit of Paddle's OpTest.check_grad. For each sample of GRAD_CASES:
 * float64 inputs, a random upstream gradient dout per output, the analytic
 * gradients from d2_grad_run with the eager CPU builder, and for every element
 * of every differentiable input the central difference of
 * L(x) = sum_k <dout_k, out_k(x)> with eps = 1e-6. They must agree within
 * |analytic - numeric| <= 1e-7 + 1e-5 * |numeric| (float64 throughout).
 * Ops with a float32 output (casts) use eps = 1e-3 and 1e-4 + 1e-3 * |numeric|.
 * Each gradient must have its input's dtype and shape. Every op with a rule
 * needs a sample (so a new op cannot skip the check) but the tensor-array ops
 * (checked in test_backward.c); D2_OPF_NO_GRAD ops must have no rule; only
 * control ops may have neither.
 *
 * The rules also run on input types whose dims are all -1 (a builder over
 * static types, as append_backward sees them): inference of every op they
 * emit must pass, giving each input's rank and dtype. On OpenCL (when a
 * device is present) the analytic gradients must match the CPU's within
 * rtol 1e-9, atol 1e-12 in float64, or rtol 1e-4, atol 1e-5 in float32 on
 * devices without cl_khr_fp64. Double grad: a small tape differentiates the
 * ops a rule emitted again, checked against finite differences of the first
 * gradient. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grad.h"
#include "opencl/opencl.h"
#include "ops.h"

#define EPS 1e-6
#define RTOL 1e-5
#define ATOL 1e-7

/* C(op, attrs, inputs, outputs): inputs are "f64[2,3]" specs with an optional kind:
 * :pos values in [0.5, 2), :idxN int64 in [0, N), :i32idxN int32 in [0, N), :bool,
 * :nz magnitudes in [0.5, 1.5), :valN all N, :listA/B/C those values, "none" an absent
 * optional input. outputs is the number of outputs (variadic ops). */
#define GRAD_CASES(C)                                                                              \
    /* elementwise binary, with broadcasting both ways and 0-d operands */                         \
    C("add", "", "f64[2,3] f64[2,3]", 1)                                                           \
    C("add", "", "f64[2,3] f64[3]", 1)                                                             \
    C("add", "", "f64[2,1,4] f64[3,1]", 1)                                                         \
    C("subtract", "", "f64[2,3] f64[2,1]", 1)                                                      \
    C("subtract", "", "f64[] f64[4]", 1)                                                           \
    C("multiply", "", "f64[2,3] f64[3]", 1)                                                        \
    C("multiply", "", "f64[3,1] f64[1,4]", 1)                                                      \
    C("divide", "", "f64[2,3] f64[3]:nz", 1)                                                       \
    C("divide", "", "f64[] f64[2,2]:nz", 1)                                                        \
    C("remainder", "", "f64[2,3]:pos f64[3]:pos", 1)                                               \
    C("pow", "", "f64[2,3]:pos f64[3]", 1)                                                         \
    C("pow", "", "f64[4]:pos f64[]", 1)                                                            \
    C("maximum", "", "f64[2,3] f64[3]", 1)                                                         \
    C("minimum", "", "f64[2,3] f64[2,1]", 1)                                                       \
    /* elementwise unary and activations */                                                        \
    C("neg", "", "f64[2,3]", 1)                                                                    \
    C("abs", "", "f64[2,3]:nz", 1)                                                                 \
    C("sign", "", "f64[2,3]:nz", 1)                                                                \
    C("floor", "", "f64[5]", 1)                                                                    \
    C("ceil", "", "f64[5]", 1)                                                                     \
    C("square", "", "f64[2,3]", 1)                                                                 \
    C("exp", "", "f64[2,3]", 1)                                                                    \
    C("log", "", "f64[2,3]:pos", 1)                                                                \
    C("sqrt", "", "f64[2,3]:pos", 1)                                                               \
    C("rsqrt", "", "f64[2,3]:pos", 1)                                                              \
    C("reciprocal", "", "f64[2,3]:nz", 1)                                                          \
    C("sin", "", "f64[2,3]", 1)                                                                    \
    C("cos", "", "f64[2,3]", 1)                                                                    \
    C("tanh", "", "f64[2,3]", 1)                                                                   \
    C("sigmoid", "", "f64[2,3]", 1)                                                                \
    C("erf", "", "f64[2,3]", 1)                                                                    \
    C("relu", "", "f64[2,3]:nz", 1)                                                                \
    C("silu", "", "f64[2,3]", 1)                                                                   \
    C("gelu", "", "f64[2,3]", 1)                                                                   \
    C("gelu", "approximate = true", "f64[2,3]", 1)                                                 \
    C("leaky_relu", "negative_slope = 0.2", "f64[2,3]:nz", 1)                                      \
    C("scale", "scale = 2.5, bias = -1", "f64[2,3]", 1)                                            \
    C("scale", "scale = -0.5, bias = 3, bias_after_scale = false", "f64[4]", 1)                    \
    C("clip", "min = -0.3, max = 0.4", "f64[3,4]", 1)                                              \
    C("clip", "min = -0.3", "f64[6]", 1)                                                           \
    C("softmax", "", "f64[2,3]", 1)                                                                \
    C("softmax", "axis = 0", "f64[3,2,2]", 1)                                                      \
    C("log_softmax", "axis = 1", "f64[2,3,2]", 1)                                                  \
    C("cast", "dtype = float32", "f64[2,3]", 1)                                                    \
    C("cast", "dtype = float64", "f64[3]", 1)                                                      \
    C("where", "", "bool[2,3] f64[2,3] f64[3]", 1)                                                 \
    C("where", "", "bool[2,1] f64[] f64[2,3]", 1)                                                  \
    C("dropout", "p = 0.3", "f64[2,3]", 1)                                                         \
    C("dropout", "p = 0.3, mode = \"downscale_in_infer\"", "f64[2,3]", 1)                          \
    C("dropout_train", "p = 0.4", "f64[3,4] i64[]:val7", 2)                                         \
    C("dropout_train", "p = 0.5, mode = \"downscale_in_infer\"", "f64[2,5] i32[1]:val3", 2)        \
    C("assign", "", "f64[2,3]", 1)                                                                 \
    /* reductions */                                                                               \
    C("sum", "", "f64[2,3]", 1)                                                                    \
    C("sum", "axis = [1]", "f64[2,3,2]", 1)                                                        \
    C("sum", "axis = [0, -1], keepdim = true", "f64[2,3,2]", 1)                                    \
    C("sum", "axis = [1], dtype = float32", "f64[2,3]", 1)                                         \
    C("mean", "", "f64[2,3]", 1)                                                                   \
    C("mean", "axis = [-1]", "f64[2,3,4]", 1)                                                      \
    C("max", "axis = [1]", "f64[2,3,2]", 1)                                                        \
    C("max", "", "f64[2,3]", 1)                                                                    \
    C("min", "axis = [0], keepdim = true", "f64[3,2]", 1)                                          \
    C("amax", "axis = [1]", "f64[2,3,2]", 1)                                                       \
    C("amin", "axis = [0], keepdim = true", "f64[3,2]", 1)                                         \
    C("prod", "axis = [1]", "f64[2,3]:pos", 1)                                                     \
    C("prod", "", "f64[2,2]:nz", 1)                                                                \
    /* matmul and linear: transpose flags, 1-D operands, batch broadcasting */                     \
    C("matmul", "", "f64[2,3] f64[3,4]", 1)                                                        \
    C("matmul", "transpose_x = true", "f64[3,2] f64[3,4]", 1)                                      \
    C("matmul", "transpose_y = true", "f64[2,3] f64[4,3]", 1)                                      \
    C("matmul", "transpose_x = true, transpose_y = true", "f64[3,2] f64[4,3]", 1)                  \
    C("matmul", "", "f64[2,2,3] f64[3,2]", 1)                                                      \
    C("matmul", "", "f64[2,1,2,3] f64[3,3,2]", 1)                                                  \
    C("matmul", "", "f64[3] f64[3,2]", 1)                                                          \
    C("matmul", "", "f64[2,3] f64[3]", 1)                                                          \
    C("matmul", "", "f64[3] f64[3]", 1)                                                            \
    C("matmul", "transpose_y = true", "f64[3] f64[2,2,3]", 1)                                      \
    C("linear", "", "f64[2,3] f64[3,4] f64[4]", 1)                                                 \
    C("linear", "", "f64[2,2,3] f64[3,2] none", 1)                                                 \
    C("linear", "", "f64[3] f64[3,2] f64[2]", 1)                                                   \
    /* shape manipulation */                                                                       \
    C("reshape", "shape = [3, 2]", "f64[2,3]", 1)                                                  \
    C("reshape", "", "f64[2,3] i64[1]:val6", 1)                                                    \
    C("flatten", "start_axis = 1", "f64[2,3,2]", 1)                                                \
    C("squeeze", "", "f64[2,1,3]", 1)                                                              \
    C("unsqueeze", "axis = [0, 2]", "f64[2,3]", 1)                                                 \
    C("transpose", "perm = [2, 0, 1]", "f64[2,3,2]", 1)                                            \
    C("concat", "axis = 1", "f64[2,3] f64[2,1] f64[2,2]", 1)                                       \
    C("concat", "axis = -1", "f64[3] f64[2]", 1)                                                   \
    C("stack", "axis = 1", "f64[2,3] f64[2,3]", 1)                                                 \
    C("stack", "", "f64[] f64[] f64[]", 1)                                                         \
    C("split", "num = 3, axis = 1", "f64[2,6]", 3)                                                 \
    C("split", "sections = [1, 3], axis = 0", "f64[4,2]", 2)                                       \
    C("slice", "axes = [1], starts = [1], ends = [3]", "f64[2,4]", 1)                              \
    C("slice", "axes = [0, 1], starts = [-1, 0], ends = [-4, 4], strides = [-2, 3]", "f64[4,5]",   \
      1)                                                                                           \
    C("slice", "axes = [0], starts = [1], ends = [2], decrease_axis = [0]", "f64[3,2]", 1)         \
    C("set_value", "axes = [1], starts = [1], ends = [3]", "f64[2,4] f64[2]", 1)                   \
    C("set_value", "axes = [0], starts = [2], ends = [3], decrease_axis = [0]", "f64[3,2] f64[2]", \
      1)                                                                                           \
    C("set_value", "axes = [0], starts = [1], ends = [2], decrease_axis = [0]", "f64[3] f64[1]",   \
      1)                                                                                           \
    C("set_value", "axes = [1], starts = [0], ends = [1], decrease_axis = [1]", "f64[2,3] f64[1,1]",\
      1)                                                                                           \
    C("gather", "axis = 1", "f64[2,4] i64[5]:idx4", 1)                                             \
    C("gather", "", "f64[3,2] i32[]:val1", 1)                                                      \
    C("index_select", "axis = 0", "f64[3,2] i64[4]:idx3", 1)                                       \
    C("index_put", "axis = 0", "f64[4,2] f64[2] i64[2]:list3/1", 1)                                \
    C("index_put", "axis = 1", "f64[2,5] f64[2,3] i64[3]:list0/3/4", 1)                            \
    C("index_put", "axis = 0, accumulate = true", "f64[3,2] f64[4,2] i64[4]:idx3", 1)              \
    C("index_get", "axis = 0", "f64[3,4] i64[2]:idx3 i32[2,1]:idx4", 1)                            \
    C("expand", "shape = [2, 3, 4]", "f64[3,1]", 1)                                                \
    C("expand", "", "f64[1,3] i64[2]:list4/-1", 1)                                                 \
    C("tile", "repeat_times = [2, 3]", "f64[2,2]", 1)                                              \
    C("tile", "repeat_times = [2, 1, 2]", "f64[3]", 1)                                             \
    C("layer_norm", "", "f64[2,3] f64[3] f64[3]", 1)                                               \
    C("layer_norm", "begin_norm_axis = 1, epsilon = 0.001", "f64[2,2,3] f64[6] none", 1)           \
    C("layer_norm", "begin_norm_axis = -1", "f64[3,4] none none", 1)                               \
    C("embedding", "", "i64[2,3]:idx4 f64[4,3]", 1)                                                \
    C("embedding", "padding_idx = 1", "i32[5]:idx3 f64[3,2]", 1)                                   \
    C("embedding", "padding_idx = -2", "i64[]:val2 f64[4,2]", 1)                                   \
    /* convolution, pooling, normalisation */                                                      \
    C("conv2d", "", "f64[1,2,4,4] f64[3,2,2,2] f64[3]", 1)                                         \
    C("conv2d", "strides = [2, 1], paddings = [1, 0, 1, 2], dilations = [1, 2]",                   \
      "f64[2,2,5,5] f64[2,2,3,2] none", 1)                                                         \
    C("conv2d", "groups = 2, paddings = [1, 1]", "f64[1,4,3,3] f64[2,2,2,2] f64[2]", 1)            \
    C("conv2d", "strides = [2, 2], padding_algorithm = \"SAME\"",                                  \
      "f64[1,1,5,4] f64[2,1,3,3] none", 1)                                                         \
    C("pool2d", "ksize = [2, 2], strides = [2, 2]", "f64[1,2,4,4]", 1)                             \
    C("pool2d", "pooling_type = \"avg\", ksize = [3, 3], strides = [2, 2], paddings = [1, 1]",     \
      "f64[2,1,5,5]", 1)                                                                           \
    C("pool2d", "pooling_type = \"avg\", ksize = [3, 3], paddings = [1, 1], exclusive = false",    \
      "f64[1,1,4,3]", 1)                                                                           \
    C("pool2d", "ksize = [3, 2], strides = [2, 2], paddings = [1, 0], ceil_mode = true",           \
      "f64[1,2,5,4]", 1)                                                                           \
    C("pool2d", "pooling_type = \"avg\", ksize = [2, 3], adaptive = true", "f64[1,2,5,7]", 1)      \
    C("pool2d", "ksize = [2, 2], adaptive = true", "f64[1,1,5,3]", 1)                              \
    C("pool2d", "ksize = [3, 2], strides = [3, 2]", "f64[2,1,7,6]", 1)                             \
    C("pool2d", "pooling_type = \"avg\", global_pooling = true", "f64[2,3,3,2]", 1)                \
    C("batch_norm", "", "f64[2,3,2,2] f64[3] f64[3]:pos f64[3] f64[3]", 1)                         \
    C("batch_norm", "epsilon = 0.01", "f64[4,2] f64[2] f64[2]:pos f64[2] f64[2]", 1)               \
    /* gradient helpers */                                                                         \
    C("conv2d_grad_input", "strides = [2, 1], paddings = [1, 1]",                                  \
      "f64[1,2,4,3] f64[3,2,2,2] f64[1,3,3,4]", 1)                                                 \
    C("conv2d_grad_filter", "groups = 2, dilations = [2, 1]",                                      \
      "f64[2,4,4,3] f64[2,2,2,2] f64[2,2,2,2]", 1)                                                 \
    C("pool2d_grad",                                                                               \
      "pooling_type = \"avg\", ksize = [3, 2], strides = [2, 1], paddings = [1, 1], "              \
      "exclusive = false",                                                                         \
      "f64[1,2,5,4] f64[1,2,3,5] f64[1,2,3,5]", 1)                                                 \
    C("pool2d_grad", "pooling_type = \"avg\", ksize = [2, 2], adaptive = true",                    \
      "f64[2,1,5,3] f64[2,1,2,2] f64[2,1,2,2]", 1)                                                 \
    C("reduce_as", "", "f64[2,3,4] f64[3,1]", 1)                                               \
    C("relu_grad", "", "f64[2,3]:nz f64[2,3]", 1)                                                  \
    /* layers */                                                                                   \
    C("conv2d_transpose", "", "f64[1,2,3,3] f64[2,3,2,2] f64[3]", 1)                               \
    C("conv2d_transpose", "strides = [2, 1], paddings = [1, 0, 1, 1], output_padding = [1, 0]",    \
      "f64[2,2,3,4] f64[2,2,3,3] none", 1)                                                         \
    C("conv2d_transpose", "groups = 2, dilations = [2, 1], strides = [2, 2]",                      \
      "f64[1,4,2,3] f64[4,1,2,2] f64[2]", 1)                                                       \
    C("conv2d_transpose", "strides = [2, 2], padding_algorithm = \"SAME\"",                        \
      "f64[1,1,3,4] f64[1,2,3,2] none", 1)                                                         \
    C("conv2d_transpose", "strides = [2, 3], output_size = [7, 7]",                                \
      "f64[1,1,3,2] f64[1,1,2,2] none", 1)                                                         \
    /* special functions and activations (ops_elem.c) */                                           \
    C("erfinv", "", "f64[2,3]:list-0.7/-0.2/0.1/0.5/0.8", 1)                                       \
    C("lgamma", "", "f64[2,3]:pos", 1)                                                             \
    C("expm1", "", "f64[2,3]", 1)                                                                  \
    C("log1p", "", "f64[2,3]:pos", 1)                                                              \
    C("log2", "", "f64[2,3]:pos", 1)                                                               \
    C("log10", "", "f64[2,3]:pos", 1)                                                              \
    C("tan", "", "f64[2,3]", 1)                                                                    \
    C("asin", "", "f64[2,3]:list-0.7/-0.2/0.1/0.5/0.8", 1)                                         \
    C("acos", "", "f64[2,3]:list-0.7/-0.2/0.1/0.5/0.8", 1)                                         \
    C("atan", "", "f64[2,3]", 1)                                                                   \
    C("sinh", "", "f64[2,3]", 1)                                                                   \
    C("cosh", "", "f64[2,3]", 1)                                                                   \
    C("asinh", "", "f64[2,3]", 1)                                                                  \
    C("acosh", "", "f64[2,3]:list1.5/2/3.25", 1)                                                   \
    C("atanh", "", "f64[2,3]:list-0.7/-0.2/0.1/0.5/0.8", 1)                                        \
    C("trunc", "", "f64[5]:list-1.5/0.25/2.75", 1)                                                 \
    C("round", "", "f64[5]:list-1.25/0.25/2.75", 1)                                                \
    C("softsign", "", "f64[2,3]:nz", 1)                                                            \
    C("mish", "", "f64[2,3]", 1)                                                                   \
    C("logsigmoid", "", "f64[2,3]", 1)                                                             \
    C("tanhshrink", "", "f64[2,3]", 1)                                                             \
    C("hardswish", "", "f64[6]:list-4/-2/-0.5/0.7/2.5/4", 1)                                       \
    C("softplus", "", "f64[2,3]", 1)                                                               \
    C("softplus", "beta = 2, threshold = 0.5", "f64[6]:list-1/-0.5/0.1/0.2/0.6/0.9", 1)            \
    C("elu", "alpha = 0.5", "f64[2,3]:nz", 1)                                                      \
    C("celu", "alpha = 2", "f64[2,3]:nz", 1)                                                       \
    C("selu", "", "f64[2,3]:nz", 1)                                                                \
    C("hardsigmoid", "slope = 0.5, offset = 0.2", "f64[6]:list-2/-0.3/0.1/0.7/1.5/3", 1)           \
    C("hardshrink", "threshold = 0.6", "f64[6]:list-1/-0.3/0.1/0.7/1.5/-2", 1)                     \
    C("softshrink", "threshold = 0.6", "f64[6]:list-1/-0.3/0.1/0.7/1.5/-2", 1)                     \
    C("thresholded_relu", "threshold = 0.2", "f64[6]:list-1/-0.3/0.1/0.7/1.5/-2", 1)               \
    C("stanh", "scale_a = 1.5, scale_b = 0.5", "f64[2,3]", 1)                                      \
    C("logit", "", "f64[2,3]:list0.2/0.4/0.7/0.9", 1)                                              \
    C("logit", "eps = 0.3", "f64[4]:list0.2/0.4/0.6/0.9", 1)                                       \
    /* scans, sorting, index ops (ops_index.c) */                                                  \
    C("cumsum", "axis = 1", "f64[2,3]", 1)                                                         \
    C("cumsum", "axis = 0, exclusive = true, reverse = true", "f64[3,2]", 1)                       \
    C("cumsum", "flatten = true", "f64[2,3]", 1)                                                   \
    C("cumprod", "axis = 1", "f64[2,3]:pos", 1)                                                    \
    C("cumprod", "axis = 0, reverse = true", "f64[3,2]:pos", 1)                                    \
    C("logcumsumexp", "axis = 1", "f64[2,3]", 1)                                                   \
    C("logcumsumexp", "flatten = true, reverse = true", "f64[2,3]", 1)                             \
    C("cummax", "axis = 1", "f64[2,4]", 2)                                                         \
    C("cummin", "flatten = true", "f64[2,3]", 2)                                                   \
    C("argsort", "axis = 0, descending = true", "f64[3,2]", 2)                                     \
    C("topk", "k = 2", "f64[2,4]", 2)                                                              \
    C("topk", "k = 1, axis = 0, largest = false", "f64[3,2]", 2)                                   \
    C("tril_triu", "diagonal = 1", "f64[2,3,3]", 1)                                                \
    C("tril_triu", "diagonal = -1, lower = false", "f64[3,4]", 1)                                  \
    C("flip", "axis = [0, 1]", "f64[2,3]", 1)                                                      \
    C("roll", "shifts = [1, -2], axis = [0, 1]", "f64[3,4]", 1)                                    \
    C("roll", "shifts = [5]", "f64[2,3]", 1)                                                       \
    C("gather_nd", "", "f64[3,4] i64[2,2]:list0/1/2/3", 1)                                         \
    C("gather_nd", "", "f64[3,4] i64[3,1]:list2/0/2", 1)                                           \
    C("scatter", "", "f64[4,3] i64[2]:list2/0 f64[2,3]", 1)                                        \
    C("scatter", "overwrite = false", "f64[4,3] i64[3]:list1/3/1 f64[3,3]", 1)                     \
    C("scatter_nd_add", "", "f64[3,4] i64[3,2]:list0/1/2/3/1/0 f64[3]", 1)                         \
    C("take_along_axis", "axis = 0", "f64[3,4] i64[2,4]:idx3", 1)                                  \
    C("put_along_axis", "axis = 0", "f64[3,3] i64[1,3]:list0/2/1 f64[1,3]", 1)                     \
    C("put_along_axis", "axis = 1, reduce = \"add\"", "f64[2,4] i64[2,3]:idx4 f64[]", 1) \
    /* linear algebra (ops_linalg.c) */ \
    C("inv", "", "f64[2,3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4", 1) \
    C("det", "", "f64[2,3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4", 1) \
    C("slogdet", "", "f64[3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4", 2) \
    C("solve", "", "f64[2,3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4 f64[2,3,2]", 1) \
    C("triangular_solve", "", "f64[3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4 f64[3,2]", 1) \
    C("triangular_solve", "upper = false, transpose = true", "f64[2,3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4 f64[2,3,1]", 1) \
    C("triangular_solve", "unitriangular = true", "f64[3,3]:list3/1/0.5/-1/2/0.3/0.2/-0.4/4 f64[3,2]", 1) \
    C("cholesky", "", "f64[2,3,3]:list4/1/0.5/1/5/1/0.5/1/6", 1) \
    C("cholesky", "upper = true", "f64[3,3]:list4/1/0.5/1/5/1/0.5/1/6", 1) \
    C("eigh", "", "f64[3,3]:list2/1/0.5/1/3/0.2/0.5/0.2/5", 2) \
    C("eigh", "UPLO = \"U\"", "f64[2,3,3]:list2/1/0.5/1/3/0.2/0.5/0.2/5", 2)

typedef struct {
    const char *op, *attrs, *ins;
    int n_out;
} gcase;

static const gcase cases[] = {
#define C(op, attrs, ins, n) {op, attrs, ins, n},
    GRAD_CASES(C)
#undef C
};

/* Ops that have neither a rule nor D2_OPF_NO_GRAD: control ops (their callers
 * build cond/while_loop gradients from the blocks). */
static bool exempt(const d2_opdef *def)
{
    return (def->flags & D2_OPF_CONTROL) != 0;
}

/* Ops whose rules take or give tensor arrays, which the samples here do not
 * describe: tests/runtime/test_backward.c checks them by central differences
 * on a Program that grows an array in a while_loop. */
static bool array_op(const d2_opdef *def)
{
    return strncmp(def->name, "array_", 6) == 0;
}

/* ---- inputs ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Item i (cyclically) of "a/b/c". */
static double list_item(const char *s, int64_t i)
{
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '/';
    const char *p = s;
    for (int64_t k = i % n; k > 0; k--)
        p = strchr(p, '/') + 1;
    return strtod(p, NULL);
}

/* Parses one input spec into a new CPU tensor (NULL for "none"). */
static d2_tensor *make_input(const char *spec, size_t len, bool *absent)
{
    char buf[128];
    assert_true(len < sizeof buf);
    memcpy(buf, spec, len);
    buf[len] = 0;
    *absent = strcmp(buf, "none") == 0;
    if (*absent)
        return NULL;
    char *br = strchr(buf, '[');
    assert_non_null(br);
    int dt = d2_dtype_parse(buf, (size_t)(br - buf));
    assert_true(dt >= 0);
    int64_t dims[D2_MAX_DIMS];
    int nd = 0;
    char *p = br + 1;
    while (*p && *p != ']') {
        dims[nd++] = strtoll(p, &p, 10);
        if (*p == ',')
            p++;
    }
    const char *kind = strchr(p, ':') ? strchr(p, ':') + 1 : "";
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, nd, dims, &err);
    assert_non_null(t);
    int64_t n = d2_tensor_numel(t);
    void *d = d2_tensor_data(t);
    long lim = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = urand() * 2 - 1;
        if (strcmp(kind, "pos") == 0)
            v = 0.5 + 1.5 * urand();
        else if (strcmp(kind, "nz") == 0)
            v = (urand() < 0.5 ? -1 : 1) * (0.5 + urand());
        else if (sscanf(kind, "idx%ld", &lim) == 1 || sscanf(kind, "i32idx%ld", &lim) == 1)
            v = (double)(int64_t)(urand() * (double)lim);
        else if (sscanf(kind, "val%ld", &lim) == 1)
            v = (double)lim;
        else if (strncmp(kind, "list", 4) == 0)
            v = list_item(kind + 4, i);
        switch (t->dtype) {
        case D2_F64: ((double *)d)[i] = v; break;
        case D2_F32: ((float *)d)[i] = (float)v; break;
        case D2_I64: ((int64_t *)d)[i] = (int64_t)v; break;
        case D2_I32: ((int32_t *)d)[i] = (int32_t)v; break;
        case D2_BOOL: ((uint8_t *)d)[i] = urand() < 0.5; break;
        default: fail_msg("bad dtype in spec %s", buf);
        }
    }
    return t;
}

typedef struct {
    const gcase *c;
    const d2_opdef *def;
    d2_attrs attrs;
    int n_in, n_out;
    d2_tensor *in[D2_MAX_PORTS * 2];
    d2_tensor *out[D2_MAX_PORTS * 2];
    d2_tensor *dout[D2_MAX_PORTS * 2];
    bool need[D2_MAX_PORTS * 2];
} prepared;

static void prepare(const gcase *c, prepared *p)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->def = d2_op_lookup(c->op, strlen(c->op));
    assert_non_null(p->def);
    d2_err err = {0};
    if (d2_attrs_parse(p->def, c->attrs, &p->attrs, &err) < 0)
        fail_msg("%s {%s}: %s", c->op, c->attrs, err.msg);
    const char *s = c->ins;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t len = strcspn(s, " ");
        if (!len)
            break;
        bool absent;
        p->in[p->n_in] = make_input(s, len, &absent);
        p->need[p->n_in] = !absent && d2_op_input_differentiable(p->def->id, p->n_in) &&
                           d2_dtype_differentiable(p->in[p->n_in]->dtype);
        p->n_in++;
        s += len;
    }
    p->n_out = c->n_out;
    if (d2_op_run(NULL, p->def->id, &p->attrs, p->in, p->n_in, p->out, p->n_out, &err) < 0)
        fail_msg("%s {%s} (%s): forward: %s", c->op, c->attrs, c->ins, err.msg);
    for (int k = 0; k < p->n_out; k++) {
        if (!d2_dtype_differentiable(p->out[k]->dtype))
            continue;
        p->dout[k] = d2_tensor_new(NULL, p->out[k]->dtype, p->out[k]->ndim, p->out[k]->shape, &err);
        assert_non_null(p->dout[k]);
        int64_t n = d2_tensor_numel(p->dout[k]);
        for (int64_t i = 0; i < n; i++) {
            double v = urand() * 2 - 1;
            if (p->dout[k]->dtype == D2_F64)
                ((double *)d2_tensor_data(p->dout[k]))[i] = v;
            else
                ((float *)d2_tensor_data(p->dout[k]))[i] = (float)v;
        }
    }
}

static void unprepare(prepared *p)
{
    for (int i = 0; i < D2_MAX_PORTS * 2; i++) {
        d2_tensor_unref(p->in[i]);
        d2_tensor_unref(p->out[i]);
        d2_tensor_unref(p->dout[i]);
    }
    d2_attrs_free(&p->attrs);
}

/* Runs the rule through builder b; din[] receives new handles (or NULL). */
static int run_rule(prepared *p, d2_gbuilder *b, void **in, void **out, void **dout, void **din,
                    d2_err *err)
{
    d2_gctx g = {b, p->def, &p->attrs, p->n_in, in, p->n_out, out, dout, p->need, din, err};
    return d2_grad_run(&g);
}

static int analytic(prepared *p, d2_backend *be, d2_tensor **din, d2_err *err)
{
    d2_grad_eager eb;
    d2_grad_eager_init(&eb, be);
    return run_rule(p, &eb.base, (void **)p->in, (void **)p->out, (void **)p->dout, (void **)din,
                    err);
}

/* L(x) = sum_k <dout_k, out_k(x)> with input i replaced by xi. */
static double loss(prepared *p, int i, d2_tensor *xi)
{
    d2_tensor *in[D2_MAX_PORTS * 2], *out[D2_MAX_PORTS * 2] = {0};
    memcpy(in, p->in, sizeof in);
    in[i] = xi;
    d2_err err = {0};
    if (d2_op_run(NULL, p->def->id, &p->attrs, in, p->n_in, out, p->n_out, &err) < 0)
        fail_msg("%s: forward: %s", p->c->op, err.msg);
    double l = 0;
    for (int k = 0; k < p->n_out; k++) {
        if (p->dout[k]) {
            d2_tensor *o = d2_tensor_contiguous(out[k], &err);
            int64_t n = d2_tensor_numel(o);
            for (int64_t j = 0; j < n; j++)
                l += d2_tensor_get_f64(o, j) * d2_tensor_get_f64(p->dout[k], j);
            d2_tensor_unref(o);
        }
        d2_tensor_unref(out[k]);
    }
    return l;
}

static bool same_type(const d2_tensor *a, const d2_tensor *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return true;
}

static const char *case_name(const gcase *c)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s {%s} (%s)", c->op, c->attrs, c->ins);
    return buf;
}

/* Checks one case against finite differences; prints and counts failures. */
static int check_case(const gcase *c)
{
    prepared p;
    prepare(c, &p);
    d2_tensor *din[D2_MAX_PORTS * 2] = {0};
    d2_err err = {0};
    int bad = 0;
    if (analytic(&p, NULL, din, &err) < 0) {
        fprintf(stderr, "%s: rule failed: %s\n", case_name(c), err.msg);
        unprepare(&p);
        return 1;
    }
    for (int i = 0; i < p.n_in; i++) {
        if (!p.need[i]) {
            if (din[i]) {
                fprintf(stderr, "%s: input %d gets a gradient it did not ask for\n", case_name(c),
                        i);
                bad++;
            }
            continue;
        }
        d2_tensor *g = din[i] ? d2_tensor_contiguous(din[i], &err) : NULL;
        if (g && !same_type(g, p.in[i])) {
            fprintf(stderr, "%s: gradient %d has the wrong dtype or shape\n", case_name(c), i);
            bad++;
            d2_tensor_unref(g);
            continue;
        }
        bool f32 = false;
        for (int k = 0; k < p.n_out; k++)
            f32 = f32 || (p.dout[k] && p.dout[k]->dtype == D2_F32);
        double eps = f32 ? 1e-3 : EPS, rtol = f32 ? 1e-3 : RTOL, atol = f32 ? 1e-4 : ATOL;
        d2_tensor *x = d2_tensor_copy_to(p.in[i], NULL, &err);
        double *xd = d2_tensor_data(x);
        int64_t n = d2_tensor_numel(x);
        for (int64_t j = 0; j < n; j++) {
            double keep = xd[j];
            xd[j] = keep + eps;
            double lp = loss(&p, i, x);
            xd[j] = keep - eps;
            double lm = loss(&p, i, x);
            xd[j] = keep;
            double num = (lp - lm) / (2 * eps), ana = g ? d2_tensor_get_f64(g, j) : 0;
            if (!(fabs(ana - num) <= atol + rtol * fabs(num))) {
                if (bad < 8)
                    fprintf(stderr, "%s: d/d input %d [%lld]: analytic %.10g, numeric %.10g\n",
                            case_name(c), i, (long long)j, ana, num);
                bad++;
            }
        }
        d2_tensor_unref(x);
        d2_tensor_unref(g);
    }
    for (int i = 0; i < p.n_in; i++)
        d2_tensor_unref(din[i]);
    unprepare(&p);
    return bad ? 1 : 0;
}

static d2_backend *obe;

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    if (d2_ops_init(&err) < 0)
        return -1;
    obe = d2_opencl_backend(0, &err); /* NULL without a device: those checks skip */
    return 0;
}

static void test_every_op_covered(void **state)
{
    (void)state;
    int missing = 0;
    for (int id = 0; id < D2_NUM_OPS; id++) {
        const d2_opdef *def = d2_op_def((d2_op_id)id);
        bool rule = d2_op_grad((d2_op_id)id) != NULL;
        bool sample = false;
        for (size_t c = 0; c < sizeof cases / sizeof *cases && !sample; c++)
            sample = strcmp(cases[c].op, def->name) == 0;
        if ((def->flags & D2_OPF_NO_GRAD) && rule) {
            fprintf(stderr, "op %s is marked NO_GRAD but has a rule\n", def->name);
            missing++;
        }
        if (!(def->flags & D2_OPF_NO_GRAD) && !rule && !exempt(def)) {
            fprintf(stderr, "op %s has neither a gradient rule nor D2_OPF_NO_GRAD\n", def->name);
            missing++;
        }
        if (rule && !sample && !array_op(def)) {
            fprintf(stderr, "op %s has a gradient rule but no sample in GRAD_CASES\n", def->name);
            missing++;
        }
        if (!rule && sample) {
            fprintf(stderr, "op %s has a sample but no rule\n", def->name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

static void test_finite_differences(void **state)
{
    (void)state;
    int failed = 0, n = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < n; c++)
        failed += check_case(&cases[c]);
    if (failed)
        fail_msg("%d of %d gradient cases failed", failed, n);
}

/* ---- failures: every emit fails in turn; nothing leaks and din stays empty ---- */

typedef struct {
    d2_grad_eager eager;
    long live; /* handles the rule holds: made or referenced, not yet released */
    int calls, fail_at;
} counting;

static int cnt_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                    d2_gval *outs, int n_out, d2_err *err)
{
    counting *c = (counting *)b;
    if (++c->calls == c->fail_at)
        return d2_err_set(err, D2_ERR_NOMEM, "injected failure");
    if (d2_op_run(c->eager.be, id, attrs, (d2_tensor **)ins, n_in, (d2_tensor **)outs, n_out, err) <
        0)
        return -1;
    c->live += n_out;
    return 0;
}

static d2_gval cnt_ref(d2_gbuilder *b, d2_gval v)
{
    ((counting *)b)->live++;
    return d2_tensor_ref(v);
}

static void cnt_release(d2_gbuilder *b, d2_gval v)
{
    if (!v)
        return;
    ((counting *)b)->live--;
    d2_tensor_unref(v);
}

static void cnt_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    (void)b;
    const d2_tensor *t = v;
    out->kind = t->kind;
    out->dtype = t->dtype;
    d2_tensor_get_shape(t, &out->shape);
}

static const d2_gbuilder_vt cnt_vt = {cnt_emit, cnt_type_of, cnt_ref, cnt_release};

static int check_failures(const gcase *c)
{
    prepared p;
    prepare(c, &p);
    int bad = 0;
    for (int k = 1; !bad; k++) {
        counting cb = {{{&cnt_vt}, NULL}, 0, 0, k};
        d2_tensor *din[32] = {0};
        d2_err err = {0};
        int rc = run_rule(&p, &cb.eager.base, (void **)p.in, (void **)p.out, (void **)p.dout,
                          (void **)din, &err);
        long held = 0;
        for (int i = 0; i < p.n_in; i++)
            held += din[i] != NULL;
        if (rc < 0 && (held || cb.live || !strstr(err.msg, "injected failure") ||
                       !strstr(err.msg, p.def->name))) {
            fprintf(stderr, "%s: emit %d failing: %ld gradients, %ld live handles, \"%s\"\n",
                    case_name(c), k, held, cb.live, err.msg);
            bad = 1;
        }
        if (rc == 0 && cb.live != held) {
            fprintf(stderr, "%s: %ld handles live for %ld gradients\n", case_name(c), cb.live,
                    held);
            bad = 1;
        }
        for (int i = 0; i < p.n_in; i++)
            cnt_release(&cb.eager.base, din[i]);
        if (rc == 0)
            break;
    }
    unprepare(&p);
    return bad;
}

static void test_failures_release(void **state)
{
    (void)state;
    int failed = 0, n = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < n; c++)
        failed += check_failures(&cases[c]);
    if (failed)
        fail_msg("%d of %d cases mishandle a failing emit", failed, n);
    /* an op without a rule is an error naming it */
    d2_grad_eager eb;
    d2_grad_eager_init(&eb, NULL);
    bool need = true;
    d2_gval in = NULL, out = NULL, dout = NULL, din = &eb;
    d2_err err = {0};
    d2_gctx g = {&eb.base, d2_op_def(D2_OP_argmax), NULL, 1, &in, 1, &out, &dout, &need, &din,
                 &err};
    assert_int_equal(d2_grad_run(&g), -1);
    assert_null(din);
    assert_non_null(strstr(err.msg, "argmax"));
    assert_null(d2_op_grad(D2_OP_argmax));
    assert_false(d2_op_input_differentiable(D2_OP_argmax, 0));
    assert_false(d2_op_input_differentiable(D2_OP_embedding, 0));
    assert_true(d2_op_input_differentiable(D2_OP_embedding, 1));
    assert_false(d2_op_input_differentiable(D2_OP_index_put, 3));
    assert_true(d2_op_input_differentiable(D2_OP_concat, 5));
    assert_false(d2_op_input_differentiable(D2_OP_cond, 0));
}

/* ---- rules on static types with dynamic dims ---- */

/* A builder whose values are types only: emit runs shape inference with no
 * known values, as when a rule appends to a static Program. */
typedef struct {
    long rc;
    d2_type t;
} tval;

static int ty_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                   d2_gval *outs, int n_out, d2_err *err)
{
    (void)b;
    const d2_opdef *def = d2_op_def(id);
    d2_type in[32], out[32];
    assert_true(n_in <= 32 && n_out <= 32);
    for (int i = 0; i < n_in; i++) {
        if (ins[i]) {
            in[i] = ((tval *)ins[i])->t;
        } else {
            memset(&in[i], 0, sizeof in[i]);
            in[i].dtype = (d2_dtype)-1;
        }
    }
    d2_attrs defaults = {0, NULL};
    if (!attrs) {
        d2_attrs_init_default(def, &defaults);
        attrs = &defaults;
    }
    int rc = d2_op_infer(def, attrs, in, NULL, n_in, out, n_out, err);
    d2_attrs_free(&defaults);
    if (rc < 0)
        return -1;
    for (int i = 0; i < n_out; i++) {
        tval *v = malloc(sizeof *v);
        assert_non_null(v);
        v->rc = 1;
        v->t = out[i];
        outs[i] = v;
    }
    return 0;
}

static void ty_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    (void)b;
    *out = ((tval *)v)->t;
}

static d2_gval ty_ref(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    ((tval *)v)->rc++;
    return v;
}

static void ty_release(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    if (v && --((tval *)v)->rc == 0)
        free(v);
}

static const d2_gbuilder_vt ty_vt = {ty_emit, ty_type_of, ty_ref, ty_release};

static tval *tval_new(const d2_type *t)
{
    tval *v = malloc(sizeof *v);
    assert_non_null(v);
    v->rc = 1;
    v->t = *t;
    return v;
}

/* Float inputs get all dims -1 (integer inputs keep theirs: they are indices
 * and shape operands); every op a rule emits must infer, and each gradient
 * must have its input's rank and dtype. */
static int check_dynamic(const gcase *c)
{
    prepared p;
    prepare(c, &p);
    d2_gbuilder tb = {&ty_vt};
    d2_gval in[32] = {0}, out[32] = {0}, dout[32] = {0}, din[32] = {0};
    d2_type it[32], ot[32];
    int bad = 0;
    for (int i = 0; i < p.n_in; i++) {
        if (!p.in[i]) {
            memset(&it[i], 0, sizeof it[i]);
            it[i].dtype = (d2_dtype)-1;
            continue;
        }
        it[i].kind = D2_VALUE_TENSOR;
        it[i].dtype = p.in[i]->dtype;
        d2_tensor_get_shape(p.in[i], &it[i].shape);
        if (d2_dtype_is_float(it[i].dtype))
            for (int d = 0; d < it[i].shape.ndim; d++)
                it[i].shape.dims[d] = -1;
        in[i] = tval_new(&it[i]);
    }
    d2_err err = {0};
    if (d2_op_infer(p.def, &p.attrs, it, NULL, p.n_in, ot, p.n_out, &err) < 0) {
        fprintf(stderr, "%s: forward inference with dynamic dims: %s\n", case_name(c), err.msg);
        bad = 1;
    } else {
        for (int k = 0; k < p.n_out; k++) {
            out[k] = tval_new(&ot[k]);
            if (p.dout[k])
                dout[k] = tval_new(&ot[k]);
        }
        if (run_rule(&p, &tb, in, out, dout, din, &err) < 0) {
            fprintf(stderr, "%s: rule with dynamic dims: %s\n", case_name(c), err.msg);
            bad = 1;
        }
        for (int i = 0; i < p.n_in && !bad; i++) {
            if (!din[i])
                continue;
            const d2_type *g = &((tval *)din[i])->t;
            bool ok = g->dtype == it[i].dtype && g->shape.ndim == it[i].shape.ndim;
            for (int d = 0; ok && d < g->shape.ndim; d++)
                ok = g->shape.dims[d] == -1 || it[i].shape.dims[d] == -1 ||
                     g->shape.dims[d] == it[i].shape.dims[d];
            if (!ok) {
                char a[160], b2[160];
                d2_type_str(g, a, sizeof a);
                d2_type_str(&it[i], b2, sizeof b2);
                fprintf(stderr, "%s: dynamic gradient %d is %s, input is %s\n", case_name(c), i, a,
                        b2);
                bad = 1;
            }
        }
    }
    for (int i = 0; i < 32; i++) {
        ty_release(&tb, in[i]);
        ty_release(&tb, out[i]);
        ty_release(&tb, dout[i]);
        ty_release(&tb, din[i]);
    }
    unprepare(&p);
    return bad;
}

static void test_dynamic_dims(void **state)
{
    (void)state;
    int failed = 0, n = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < n; c++)
        failed += check_dynamic(&cases[c]);
    if (failed)
        fail_msg("%d of %d cases failed with dynamic dims", failed, n);
}

/* The same rules run eagerly while type_of hides every dim (-1): the paths a
 * rule takes for dynamic shapes compute the same gradients as the static ones
 * (within 1e-12 relative). */
static int hidden_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                       d2_gval *outs, int n_out, d2_err *err)
{
    (void)b;
    return d2_op_run(NULL, id, attrs, (d2_tensor **)ins, n_in, (d2_tensor **)outs, n_out, err);
}

static void hidden_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    (void)b;
    const d2_tensor *t = v;
    out->kind = t->kind;
    out->dtype = t->dtype;
    out->shape.ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++)
        out->shape.dims[d] = -1;
}

static d2_gval hidden_ref(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    return d2_tensor_ref(v);
}

static void hidden_release(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    d2_tensor_unref(v);
}

static const d2_gbuilder_vt hidden_vt = {hidden_emit, hidden_type_of, hidden_ref, hidden_release};

static int check_hidden(const gcase *c)
{
    prepared p;
    prepare(c, &p);
    d2_gbuilder hb = {&hidden_vt};
    d2_tensor *sg[32] = {0}, *hg[32] = {0};
    d2_err err = {0};
    int bad = 0;
    if (analytic(&p, NULL, sg, &err) < 0 ||
        run_rule(&p, &hb, (void **)p.in, (void **)p.out, (void **)p.dout, (void **)hg, &err) < 0) {
        fprintf(stderr, "%s: rule with hidden dims failed: %s\n", case_name(c), err.msg);
        bad = 1;
    }
    for (int i = 0; i < p.n_in && !bad; i++) {
        if (!sg[i] != !hg[i] || (sg[i] && !same_type(sg[i], hg[i]))) {
            fprintf(stderr, "%s: gradient %d differs in presence, dtype or shape\n", case_name(c),
                    i);
            bad = 1;
            continue;
        }
        d2_tensor *a = sg[i] ? d2_tensor_contiguous(sg[i], &err) : NULL;
        d2_tensor *b = hg[i] ? d2_tensor_contiguous(hg[i], &err) : NULL;
        int64_t n = a ? d2_tensor_numel(a) : 0;
        for (int64_t j = 0; j < n && !bad; j++) {
            double x = d2_tensor_get_f64(a, j), y = d2_tensor_get_f64(b, j);
            if (!(fabs(x - y) <= 1e-12 * (1 + fabs(x)))) {
                fprintf(stderr, "%s: gradient %d [%lld]: %.15g with static dims, %.15g hidden\n",
                        case_name(c), i, (long long)j, x, y);
                bad = 1;
            }
        }
        d2_tensor_unref(a);
        d2_tensor_unref(b);
    }
    for (int i = 0; i < 32; i++) {
        d2_tensor_unref(sg[i]);
        d2_tensor_unref(hg[i]);
    }
    unprepare(&p);
    return bad;
}

static void test_dynamic_paths(void **state)
{
    (void)state;
    int failed = 0, n = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < n; c++)
        failed += check_hidden(&cases[c]);
    if (failed)
        fail_msg("%d of %d cases differ when dims are hidden", failed, n);
}

/* ---- OpenCL: the same rules on the device agree with the CPU ---- */

static d2_tensor *to_dtype(d2_tensor *t, d2_dtype dt)
{
    if (!t || t->dtype != D2_F64)
        return t ? d2_tensor_ref(t) : NULL;
    const d2_opdef *def = d2_op_def(D2_OP_cast);
    d2_attrs a;
    d2_attrs_init_default(def, &a);
    d2_attr_set_int(def, &a, "dtype", dt);
    d2_tensor *o = NULL;
    d2_err err = {0};
    assert_int_equal(d2_op_run(NULL, D2_OP_cast, &a, &t, 1, &o, 1, &err), 0);
    d2_attrs_free(&a);
    return o;
}

/* Replaces every float64 tensor of p by a float32 copy. */
static void prepared_to_f32(prepared *p)
{
    d2_tensor **sets[3] = {p->in, p->out, p->dout};
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < D2_MAX_PORTS * 2; i++) {
            d2_tensor *o = to_dtype(sets[s][i], D2_F32);
            d2_tensor_unref(sets[s][i]);
            sets[s][i] = o;
        }
}

static int check_opencl(const gcase *c, bool f32)
{
    prepared p;
    prepare(c, &p);
    if (f32)
        prepared_to_f32(&p);
    d2_tensor *cg[32] = {0}, *og[32] = {0};
    d2_err err = {0};
    int bad = 0;
    if (analytic(&p, NULL, cg, &err) < 0) {
        fprintf(stderr, "%s: CPU rule failed: %s\n", case_name(c), err.msg);
        unprepare(&p);
        return 1;
    }
    prepared dp = p;
    for (int i = 0; i < D2_MAX_PORTS * 2; i++) {
        dp.in[i] = p.in[i] ? d2_tensor_copy_to(p.in[i], obe, &err) : NULL;
        dp.out[i] = p.out[i] ? d2_tensor_copy_to(p.out[i], obe, &err) : NULL;
        dp.dout[i] = p.dout[i] ? d2_tensor_copy_to(p.dout[i], obe, &err) : NULL;
    }
    if (analytic(&dp, obe, og, &err) < 0) {
        fprintf(stderr, "%s: OpenCL rule failed: %s\n", case_name(c), err.msg);
        bad = 1;
    }
    double rtol = f32 ? 1e-4 : 1e-9, atol = f32 ? 1e-5 : 1e-12;
    for (int i = 0; i < p.n_in && !bad; i++) {
        if (!cg[i] != !og[i]) {
            fprintf(stderr, "%s: gradient %d is present on one backend only\n", case_name(c), i);
            bad = 1;
            continue;
        }
        if (!cg[i])
            continue;
        d2_tensor *h = d2_tensor_copy_to(og[i], NULL, &err),
                  *ch = d2_tensor_contiguous(cg[i], &err);
        assert_non_null(h);
        if (!same_type(h, ch)) {
            fprintf(stderr, "%s: OpenCL gradient %d has another dtype or shape\n", case_name(c), i);
            bad = 1;
        }
        int64_t n = bad ? 0 : d2_tensor_numel(h);
        for (int64_t j = 0; j < n && !bad; j++) {
            double a = d2_tensor_get_f64(h, j), e = d2_tensor_get_f64(ch, j);
            if (!(fabs(a - e) <= atol + rtol * fabs(e))) {
                fprintf(stderr, "%s: gradient %d [%lld]: OpenCL %.12g, CPU %.12g\n", case_name(c),
                        i, (long long)j, a, e);
                bad = 1;
            }
        }
        d2_tensor_unref(h);
        d2_tensor_unref(ch);
    }
    for (int i = 0; i < 32; i++) {
        d2_tensor_unref(cg[i]);
        d2_tensor_unref(og[i]);
    }
    for (int i = 0; i < D2_MAX_PORTS * 2; i++) {
        d2_tensor_unref(dp.in[i]);
        d2_tensor_unref(dp.out[i]);
        d2_tensor_unref(dp.dout[i]);
    }
    unprepare(&p);
    return bad;
}

static void test_opencl(void **state)
{
    (void)state;
    if (!obe)
        skip();
    /* float64 where the device has cl_khr_fp64 */
    d2_err err = {0};
    d2_tensor *t = d2_tensor_zeros(D2_F64, 0, NULL, &err), *dt = NULL, *o = NULL;
    dt = d2_tensor_copy_to(t, obe, &err);
    bool f32 = !dt || d2_op_run(obe, D2_OP_neg, NULL, &dt, 1, &o, 1, &err) < 0;
    d2_tensor_unref(t);
    d2_tensor_unref(dt);
    d2_tensor_unref(o);
    int failed = 0, n = (int)(sizeof cases / sizeof *cases);
    for (int c = 0; c < n; c++)
        failed += check_opencl(&cases[c], f32);
    if (failed)
        fail_msg("%d of %d cases differ on OpenCL (%s)", failed, n, f32 ? "float32" : "float64");
}

/* ---- double grad: the ops a rule emits are differentiated again ----
 * A tape builder records every op it runs (the forward op and the rule's ops);
 * reverse-mode over that tape gives the gradient of S(x) = sum_i <v_i, dx_i(x)>,
 * checked against central differences of S with the first-order tolerance. */

typedef struct {
    d2_op_id id;
    d2_attrs attrs;
    int n_in, n_out;
    d2_tensor *in[16], *out[16];
} tape_op;

typedef struct {
    d2_gbuilder base;
    tape_op ops[512];
    int n;
} tape;

static int tape_emit(d2_gbuilder *b, d2_op_id id, const d2_attrs *attrs, d2_gval *ins, int n_in,
                     d2_gval *outs, int n_out, d2_err *err)
{
    tape *tp = (tape *)b;
    assert_true(tp->n < 512 && n_in <= 16 && n_out <= 16);
    if (d2_op_run(NULL, id, attrs, (d2_tensor **)ins, n_in, (d2_tensor **)outs, n_out, err) < 0)
        return -1;
    tape_op *op = &tp->ops[tp->n++];
    op->id = id;
    if (attrs)
        assert_int_equal(d2_attrs_copy(&op->attrs, attrs, err), 0);
    else
        d2_attrs_init_default(d2_op_def(id), &op->attrs);
    op->n_in = n_in;
    op->n_out = n_out;
    for (int i = 0; i < n_in; i++)
        op->in[i] = ins[i] ? d2_tensor_ref(ins[i]) : NULL;
    for (int i = 0; i < n_out; i++)
        op->out[i] = d2_tensor_ref(outs[i]);
    return 0;
}

static d2_gval tape_ref(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    return d2_tensor_ref(v);
}

static void tape_release(d2_gbuilder *b, d2_gval v)
{
    (void)b;
    d2_tensor_unref(v);
}

static void tape_type_of(d2_gbuilder *b, d2_gval v, d2_type *out)
{
    (void)b;
    const d2_tensor *t = v;
    out->kind = t->kind;
    out->dtype = t->dtype;
    d2_tensor_get_shape(t, &out->shape);
}

static const d2_gbuilder_vt tape_vt = {tape_emit, tape_type_of, tape_ref, tape_release};

/* Gradients by tensor identity. */
typedef struct {
    int n;
    d2_tensor *key[1024], *grad[1024];
} gmap;

static d2_tensor **gmap_slot(gmap *m, d2_tensor *k)
{
    for (int i = 0; i < m->n; i++)
        if (m->key[i] == k)
            return &m->grad[i];
    assert_true(m->n < 1024);
    m->key[m->n] = k;
    m->grad[m->n] = NULL;
    return &m->grad[m->n++];
}

static void gmap_add(gmap *m, d2_tensor *k, d2_tensor *g)
{
    d2_tensor **s = gmap_slot(m, k);
    if (!*s) {
        *s = d2_tensor_ref(g);
        return;
    }
    d2_tensor *in[2] = {*s, g}, *sum = NULL;
    d2_err err = {0};
    assert_int_equal(d2_op_run(NULL, D2_OP_add, NULL, in, 2, &sum, 1, &err), 0);
    d2_tensor_unref(*s);
    *s = sum;
}

/* S(x) with input i replaced by xi, or (xi NULL) its tape-derived gradients into grads. */
static double second(prepared *p, d2_tensor **v, int i, d2_tensor *xi, d2_tensor **grads)
{
    d2_tensor *ins[32];
    memcpy(ins, p->in, sizeof(d2_tensor *) * 32 > sizeof p->in ? sizeof p->in : sizeof ins);
    if (xi)
        ins[i] = xi;
    tape *tp = calloc(1, sizeof *tp);
    assert_non_null(tp);
    tp->base.vt = &tape_vt;
    d2_err err = {0};
    d2_tensor *outs[16] = {0}, *din[32] = {0};
    if (tape_emit(&tp->base, p->def->id, &p->attrs, (d2_gval *)ins, p->n_in, (d2_gval *)outs,
                  p->n_out, &err) < 0)
        fail_msg("%s: forward: %s", p->c->op, err.msg);
    d2_gctx g = {&tp->base,     p->def,           &p->attrs, p->n_in,      (void **)ins, p->n_out,
                 (void **)outs, (void **)p->dout, p->need,   (void **)din, &err};
    if (d2_grad_run(&g) < 0)
        fail_msg("%s: rule: %s", p->c->op, err.msg);
    double s = 0;
    for (int k = 0; k < p->n_in; k++)
        if (din[k] && v[k]) {
            int64_t n = d2_tensor_numel(din[k]);
            for (int64_t j = 0; j < n; j++)
                s += d2_tensor_get_f64(din[k], j) * d2_tensor_get_f64(v[k], j);
        }
    if (grads) {
        gmap *m = calloc(1, sizeof *m);
        assert_non_null(m);
        for (int k = 0; k < p->n_in; k++)
            if (din[k] && v[k])
                gmap_add(m, din[k], v[k]);
        for (int o = tp->n - 1; o >= 0; o--) {
            tape_op *op = &tp->ops[o];
            const d2_opdef *def = d2_op_def(op->id);
            d2_tensor *od[16] = {0}, *id[16] = {0};
            bool any = false, need[16];
            for (int k = 0; k < op->n_out; k++) {
                d2_tensor **sl = gmap_slot(m, op->out[k]);
                od[k] = *sl;
                any = any || od[k];
            }
            if (!any || !d2_op_grad(op->id))
                continue;
            for (int k = 0; k < op->n_in; k++)
                need[k] = op->in[k] && d2_op_input_differentiable(op->id, k) &&
                          d2_dtype_differentiable(op->in[k]->dtype);
            d2_grad_eager eb;
            d2_grad_eager_init(&eb, NULL);
            d2_gctx gg = {&eb.base,
                          def,
                          &op->attrs,
                          op->n_in,
                          (void **)op->in,
                          op->n_out,
                          (void **)op->out,
                          (void **)od,
                          need,
                          (void **)id,
                          &err};
            if (d2_grad_run(&gg) < 0)
                fail_msg("%s: gradient of %s on the tape: %s", p->c->op, def->name, err.msg);
            for (int k = 0; k < op->n_in; k++)
                if (id[k]) {
                    gmap_add(m, op->in[k], id[k]);
                    d2_tensor_unref(id[k]);
                }
        }
        for (int k = 0; k < p->n_in; k++) {
            d2_tensor **sl = p->in[k] ? gmap_slot(m, p->in[k]) : NULL;
            grads[k] = sl && *sl ? d2_tensor_ref(*sl) : NULL;
        }
        for (int k = 0; k < m->n; k++)
            d2_tensor_unref(m->grad[k]);
        free(m);
    }
    for (int o = 0; o < tp->n; o++) {
        for (int k = 0; k < tp->ops[o].n_in; k++)
            d2_tensor_unref(tp->ops[o].in[k]);
        for (int k = 0; k < tp->ops[o].n_out; k++)
            d2_tensor_unref(tp->ops[o].out[k]);
        d2_attrs_free(&tp->ops[o].attrs);
    }
    free(tp);
    for (int k = 0; k < 16; k++)
        d2_tensor_unref(outs[k]);
    for (int k = 0; k < 32; k++)
        d2_tensor_unref(din[k]);
    return s;
}

static const gcase double_cases[] = {
    {"tanh", "", "f64[2,3]", 1},
    {"exp", "", "f64[4]", 1},
    {"multiply", "", "f64[2,3] f64[3]", 1},
    {"matmul", "", "f64[2,3] f64[3,2]", 1},
    {"matmul", "transpose_y = true", "f64[2,2,3] f64[4,3]", 1},
    {"sigmoid", "", "f64[5]", 1},
    {"gelu", "", "f64[5]", 1},
    {"divide", "", "f64[2,3] f64[3]:nz", 1},
    {"softmax", "", "f64[2,3]", 1},
    {"layer_norm", "", "f64[2,3] f64[3] f64[3]", 1},
    {"conv2d", "paddings = [1, 1]", "f64[1,2,3,3] f64[2,2,2,2] none", 1},
};

static int check_double(const gcase *c)
{
    prepared p;
    prepare(c, &p);
    d2_tensor *v[32] = {0}, *ana[32] = {0};
    d2_err err = {0};
    for (int i = 0; i < p.n_in; i++)
        if (p.need[i]) {
            v[i] = d2_tensor_copy_to(p.in[i], NULL, &err);
            int64_t n = d2_tensor_numel(v[i]);
            for (int64_t j = 0; j < n; j++)
                ((double *)d2_tensor_data(v[i]))[j] = urand() * 2 - 1;
        }
    second(&p, v, 0, NULL, ana);
    int bad = 0;
    for (int i = 0; i < p.n_in; i++) {
        if (!p.need[i])
            continue;
        d2_tensor *x = d2_tensor_copy_to(p.in[i], NULL, &err);
        double *xd = d2_tensor_data(x);
        int64_t n = d2_tensor_numel(x);
        for (int64_t j = 0; j < n; j++) {
            double keep = xd[j];
            xd[j] = keep + EPS;
            double sp = second(&p, v, i, x, NULL);
            xd[j] = keep - EPS;
            double sm = second(&p, v, i, x, NULL);
            xd[j] = keep;
            double num = (sp - sm) / (2 * EPS), a = ana[i] ? d2_tensor_get_f64(ana[i], j) : 0;
            if (!(fabs(a - num) <= ATOL + RTOL * fabs(num))) {
                if (bad < 8)
                    fprintf(stderr,
                            "%s: second derivative, input %d [%lld]: tape %.10g, "
                            "numeric %.10g\n",
                            case_name(c), i, (long long)j, a, num);
                bad++;
            }
        }
        d2_tensor_unref(x);
    }
    for (int i = 0; i < 32; i++) {
        d2_tensor_unref(v[i]);
        d2_tensor_unref(ana[i]);
    }
    unprepare(&p);
    return bad ? 1 : 0;
}

static void test_double_grad(void **state)
{
    (void)state;
    int failed = 0, n = (int)(sizeof double_cases / sizeof *double_cases);
    for (int c = 0; c < n; c++)
        failed += check_double(&double_cases[c]);
    if (failed)
        fail_msg("%d of %d double-grad cases failed", failed, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_covered), cmocka_unit_test(test_finite_differences),
        cmocka_unit_test(test_failures_release), cmocka_unit_test(test_dynamic_dims),
        cmocka_unit_test(test_dynamic_paths),    cmocka_unit_test(test_opencl),
        cmocka_unit_test(test_double_grad),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}

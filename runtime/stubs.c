/* stubs.c - weak placeholders so the tree links while kernels land; removed once every op has one. */
#include "ops.h"

#define STUB_MSG(k, what) d2_err_set((k)->err, D2_ERR_UNSUPPORTED, "%s not implemented", what)
#define OP(name, ins, outs, attrs, infer, flags) \
    __attribute__((weak)) int cpu_##name(d2_kctx *k) { return STUB_MSG(k, "cpu_" #name); }
#define CTL(name, ins, outs, attrs, infer, flags) \
    __attribute__((weak)) int ctl_##name(d2_kctx *k) { return STUB_MSG(k, "ctl_" #name); }
#include "ops.def"
#undef OP
#undef CTL

#define INFER_STUB(f) \
    __attribute__((weak)) int f(d2_infer_ctx *ic) { return STUB_MSG(ic, #f); }
INFER_STUB(infer_binary) INFER_STUB(infer_compare) INFER_STUB(infer_unary)
INFER_STUB(infer_unary_bool) INFER_STUB(infer_unary_float) INFER_STUB(infer_softmax)
INFER_STUB(infer_cast) INFER_STUB(infer_where) INFER_STUB(infer_reduce)
INFER_STUB(infer_argminmax) INFER_STUB(infer_reshape) INFER_STUB(infer_flatten)
INFER_STUB(infer_squeeze) INFER_STUB(infer_unsqueeze) INFER_STUB(infer_transpose)
INFER_STUB(infer_concat) INFER_STUB(infer_stack) INFER_STUB(infer_split) INFER_STUB(infer_slice)
INFER_STUB(infer_gather) INFER_STUB(infer_expand) INFER_STUB(infer_tile) INFER_STUB(infer_full)
INFER_STUB(infer_full_like) INFER_STUB(infer_arange) INFER_STUB(infer_shape)
INFER_STUB(infer_numel) INFER_STUB(infer_matmul) INFER_STUB(infer_linear)
INFER_STUB(infer_conv2d) INFER_STUB(infer_pool2d) INFER_STUB(infer_batch_norm)
INFER_STUB(infer_layer_norm) INFER_STUB(infer_embedding) INFER_STUB(infer_array_create)
INFER_STUB(infer_array_write) INFER_STUB(infer_array_read) INFER_STUB(infer_array_length)
INFER_STUB(infer_array_stack) INFER_STUB(infer_cond) INFER_STUB(infer_while_loop)

/* fuse_linear.c - GEMM epilogue fusion (BuildStrategy.fuse_gemm_epilogue): linear(x, W, b) -> y,
 * then y + r (a residual of y's type) and/or an activation (relu, gelu), where each
 * intermediate result has that one reader, becomes one linear_fused(x, W, b, r)
 * {activation = ...}: the epilogue runs in one pass over the product instead of one op (and
 * one buffer) each. The fused op takes the place and the result variable of the chain's last
 * op. Level INFERENCE (linear_fused has no gradient). */
#include "passes.h"

#include <string.h>

/* The activation name linear_fused gives op, or NULL when op is no activation it takes. */
static const char *activation_of(const d2_op *op)
{
    if (op->id == D2_OP_relu)
        return "relu";
    if (op->id == D2_OP_gelu)
        return d2_attr_bool(d2_op_def(D2_OP_gelu), &op->attrs, "approximate") ? "gelu_tanh"
                                                                            : "gelu";
    return NULL;
}

/* Fuses the chain that starts at linear op li of block b: 1 when done, 0 when there is
 * nothing to fuse, -1 on error. */
static int fuse_one(d2_program *p, int b, int li, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *lin = &blk->ops[li];
    int y = lin->out[0];
    if (lin->n_out != 1 || lin->n_in < 2 || !d2_dtype_is_float(p->vars[y].type.dtype))
        return 0;
    int residual, add_i;
    int ri = d2_pass_residual_add(p, b, li, y, uses, &residual, &add_i);
    int last = add_i;
    const char *act = NULL;
    if (ri >= 0 && (act = activation_of(&blk->ops[ri])) != NULL)
        last = ri;
    if (last < 0)
        return 0;
    const d2_opdef *fdef = d2_op_def(D2_OP_linear_fused);
    d2_attrs a;
    d2_attrs_init_default(fdef, &a);
    if (a.n != fdef->n_attrs || (act && d2_attr_set_str(fdef, &a, "activation", act) < 0)) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    int in[4] = {lin->in[0], lin->in[1], lin->n_in > 2 ? lin->in[2] : -1, residual};
    int out = blk->ops[last].out[0], line = lin->line, col = lin->col;
    /* the fused op goes in at the end of the block, then moves to the chain's last slot */
    int fi = d2_block_add_op(p, b, D2_OP_linear_fused, in, 4, &out, 1, &a, err);
    d2_attrs_free(&a);
    if (fi < 0)
        return -1;
    d2_pass_place_fused(p, b, fi, last, add_i, li, line, col);
    return 1;
}

int d2_pass_fuse_linear(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    return d2_pass_fuse_each(p, D2_OP_linear, fuse_one, err);
}

/* fuse_bn_act.c - batch_norm epilogue fusion (BuildStrategy.fuse_bn_act_ops,
 * fuse_bn_add_act_ops): an inference batch_norm that bn_fold could not fold into a convolution,
 * then + r (a residual of its result's type) and/or relu, where each intermediate result has
 * that one reader, becomes one batch_norm_act(x, mean, variance, scale, bias, r)
 * {activation = "relu"}: one pass over memory instead of up to three. The fused op takes the
 * place and the result variable of the chain's last op. Level INFERENCE (batch_norm_act has no
 * gradient). */
#include "passes.h"

/* Fuses the chain that starts at batch_norm op bi of block b: 1 when done, 0 when there is
 * nothing to fuse, -1 on error. */
static int fuse_one(d2_program *p, int b, int bi, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *bn = &blk->ops[bi];
    int y = bn->out[0];
    if (bn->n_out != 1 || bn->n_in != 5 || !d2_dtype_is_float(p->vars[y].type.dtype))
        return 0;
    int residual, add_i;
    bool relu;
    int last = d2_pass_add_relu_epilogue(p, b, bi, y, uses, &residual, &add_i, &relu);
    if (last < 0)
        return 0;
    const d2_opdef *bdef = d2_op_def(D2_OP_batch_norm), *fdef = d2_op_def(D2_OP_batch_norm_act);
    d2_attrs a;
    d2_attrs_init_default(fdef, &a);
    if (a.n != fdef->n_attrs ||
        d2_attr_set_float(fdef, &a, "epsilon", d2_attr_float(bdef, &bn->attrs, "epsilon")) < 0 ||
        (relu && d2_attr_set_str(fdef, &a, "activation", "relu") < 0)) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    int in[6] = {bn->in[0], bn->in[1], bn->in[2], bn->in[3], bn->in[4], residual};
    int out = blk->ops[last].out[0], line = bn->line, col = bn->col;
    int fi = d2_block_add_op(p, b, D2_OP_batch_norm_act, in, 6, &out, 1, &a, err);
    d2_attrs_free(&a);
    if (fi < 0)
        return -1;
    d2_pass_place_fused(p, b, fi, last, add_i, bi, line, col);
    return 1;
}

int d2_pass_fuse_bn_act(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    return d2_pass_fuse_each(p, D2_OP_batch_norm, fuse_one, err);
}

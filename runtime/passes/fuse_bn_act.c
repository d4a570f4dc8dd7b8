/* fuse_bn_act.c - batch_norm epilogue fusion (BuildStrategy.fuse_bn_act_ops,
 * fuse_bn_add_act_ops): an inference batch_norm that bn_fold could not fold into a convolution,
 * then + r (a residual of its result's type) and/or relu, where each intermediate result has
 * that one reader, becomes one batch_norm_act(x, mean, variance, scale, bias, r)
 * {activation = "relu"}: one pass over memory instead of up to three. The fused op takes the
 * place and the result variable of the chain's last op. Level INFERENCE (batch_norm_act has no
 * gradient). */
#include "passes.h"

static bool same_type(const d2_type *a, const d2_type *b)
{
    return a->kind == b->kind && a->dtype == b->dtype && d2_shape_equal(&a->shape, &b->shape);
}

/* Fuses the chain that starts at batch_norm op bi of block b: 1 when done, 0 when there is
 * nothing to fuse, -1 on error. */
static int fuse_one(d2_program *p, int b, int bi, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *bn = &blk->ops[bi];
    int y = bn->out[0];
    if (bn->n_out != 1 || bn->n_in != 5 || !d2_dtype_is_float(p->vars[y].type.dtype))
        return 0;
    int last = -1, residual = -1, add_i = -1, cur = y;
    bool relu = false;
    int ri = d2_pass_only_reader(p, b, bi, cur, uses);
    if (ri >= 0 && blk->ops[ri].id == D2_OP_add && blk->ops[ri].n_in == 2) {
        const d2_op *add = &blk->ops[ri];
        int other = add->in[0] == cur ? add->in[1] : add->in[0];
        if (other != cur && same_type(&p->vars[other].type, &p->vars[y].type) &&
            same_type(&p->vars[add->out[0]].type, &p->vars[y].type)) {
            residual = other;
            last = add_i = ri;
            cur = add->out[0];
            ri = d2_pass_only_reader(p, b, ri, cur, uses);
        }
    }
    if (ri >= 0 && blk->ops[ri].id == D2_OP_relu) {
        relu = true;
        last = ri;
    }
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

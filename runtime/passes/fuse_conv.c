/* fuse_conv.c - epilogue fusion: conv2d(x, W, b) -> y, then y + r (a residual of y's type)
 * and/or relu, where each intermediate result has that one reader, becomes one
 * conv2d_fused(x, W, b, r) {activation = "relu"} (oneDNN post-ops on the CPU). The fused op
 * takes the place and the result variable of the chain's last op. Level INFERENCE (conv2d_fused
 * has no gradient). */
#include "passes.h"

#include <string.h>

/* Copies attribute value v into the attribute of the same name of def in a. */
static int set_attr(const d2_opdef *def, d2_attrs *a, const char *name, const d2_attr_value *v)
{
    switch (v->type) {
    case D2_ATTR_INT:
        return d2_attr_set_int(def, a, name, v->u.i);
    case D2_ATTR_BOOL:
        return d2_attr_set_bool(def, a, name, v->u.b);
    case D2_ATTR_FLOAT:
        return d2_attr_set_float(def, a, name, v->u.f);
    case D2_ATTR_STR:
        return d2_attr_set_str(def, a, name, v->u.s);
    case D2_ATTR_INTS:
        return d2_attr_set_ints(def, a, name, v->u.ints.v, v->u.ints.n);
    default:
        return -1; /* conv2d has no other kinds */
    }
}

/* Fuses the chain that starts at conv2d op ci of block b: 1 when done, 0 when there is
 * nothing to fuse, -1 on error. */
static int fuse_one(d2_program *p, int b, int ci, const int *uses, d2_err *err)
{
    const d2_block *blk = &p->blocks[b];
    const d2_op *conv = &blk->ops[ci];
    int y = conv->out[0];
    if (conv->n_out != 1 || conv->n_in < 2 || !d2_dtype_is_float(p->vars[y].type.dtype))
        return 0;
    int residual, add_i;
    bool relu;
    int last = d2_pass_add_relu_epilogue(p, b, ci, y, uses, &residual, &add_i, &relu);
    if (last < 0)
        return 0;
    const d2_opdef *cdef = d2_op_def(D2_OP_conv2d), *fdef = d2_op_def(D2_OP_conv2d_fused);
    d2_attrs a;
    d2_attrs_init_default(fdef, &a);
    if (a.n != fdef->n_attrs)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    for (int k = 0; k < cdef->n_attrs && k < conv->attrs.n; k++)
        if (set_attr(fdef, &a, cdef->attrs[k].name, &conv->attrs.v[k]) < 0) {
            d2_attrs_free(&a);
            return d2_err_set(err, D2_ERR_INVALID, "fuse_conv: cannot copy attribute '%s'",
                              cdef->attrs[k].name);
        }
    if (relu && d2_attr_set_str(fdef, &a, "activation", "relu") < 0) {
        d2_attrs_free(&a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    int in[4] = {conv->in[0], conv->in[1], conv->n_in > 2 ? conv->in[2] : -1, residual};
    int out = blk->ops[last].out[0], line = conv->line, col = conv->col;
    /* the fused op goes in at the end of the block, then moves to the chain's last slot */
    int fi = d2_block_add_op(p, b, D2_OP_conv2d_fused, in, 4, &out, 1, &a, err);
    d2_attrs_free(&a);
    if (fi < 0)
        return -1;
    d2_pass_place_fused(p, b, fi, last, add_i, ci, line, col);
    return 1;
}

int d2_pass_fuse_conv(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    D2_UNUSED(cx);
    return d2_pass_fuse_each(p, D2_OP_conv2d, fuse_one, err);
}

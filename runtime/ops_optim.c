/* ops_optim.c - shape/dtype inference of the optimizer update ops (sgd, momentum, adam, ...). */
#include "ops.h"

#include <stdio.h>

/* Every optimizer op reads param, grad, lr, then its state, and yields the new
 * param and the new state: output 0 has param's type, output i > 0 that of
 * input i + 2. grad matches param; lr is one float element; a state input
 * matches param's shape unless it is a one-element accumulator (beta pows). */
int infer_optimizer(d2_infer_ctx *ic)
{
    const char *name = ic->def->name;
    for (int i = 0; i < ic->n_in; i++) {
        if (ic->in[i].kind != D2_VALUE_TENSOR)
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' must be a tensor", name,
                              ic->def->in_names[i]);
        d2_dtype dt = ic->in[i].dtype;
        if (dt != D2_F32 && dt != D2_F64)
            return d2_err_set(ic->err, D2_ERR_DTYPE,
                              "%s: input '%s' has dtype %s; only float32 and float64 are "
                              "supported",
                              name, ic->def->in_names[i], d2_dtype_name(dt));
    }
    const d2_type *p = &ic->in[0];
    if (ic->in[1].dtype != p->dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: grad is %s but param is %s", name,
                          d2_dtype_name(ic->in[1].dtype), d2_dtype_name(p->dtype));
    if (d2_shape_is_static(&p->shape) && d2_shape_is_static(&ic->in[1].shape) &&
        !d2_shape_equal(&p->shape, &ic->in[1].shape)) {
        char a[160], b[160];
        d2_type_str(p, a, sizeof a);
        d2_type_str(&ic->in[1], b, sizeof b);
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: grad %s does not match param %s", name, b,
                          a);
    }
    for (int i = 2; i < ic->n_in; i++) {
        const d2_shape *s = &ic->in[i].shape;
        if (!d2_shape_is_static(s))
            continue;
        int64_t n = d2_shape_numel(s);
        if (i == 2 && n != 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: the learning rate must have one element, got %lld", name,
                              (long long)n);
        if (i > 2 && n != 1 && d2_shape_is_static(&p->shape) && !d2_shape_equal(s, &p->shape))
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: state '%s' does not have the shape of param", name,
                              ic->def->in_names[i]);
    }
    if (ic->n_out != ic->n_in - 2)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %d outputs for %d inputs", name,
                          ic->n_out, ic->n_in);
    ic->out[0] = *p;
    for (int i = 1; i < ic->n_out; i++)
        ic->out[i] = ic->in[i + 2];
    return 0;
}

/* ops_elem.c - shape/dtype inference for special functions, parameterised activations and bitwise ops. */
#include "ops.h"

#include <math.h>

#define OPN(ic) ((ic)->def->name)

static int check_tensor_in(d2_infer_ctx *ic, int i)
{
    const d2_type *t = &ic->in[i];
    if ((unsigned)t->dtype >= D2_NUM_DTYPES)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is missing", OPN(ic),
                          ic->def->in_names[i]);
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' is a tensor array, not a tensor",
                          OPN(ic), ic->def->in_names[i]);
    if (!d2_dtype_supported(t->dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: dtype %s of input '%s' is not supported",
                          OPN(ic), d2_dtype_name(t->dtype), ic->def->in_names[i]);
    return 0;
}

static int attr_range_error(d2_infer_ctx *ic, const char *what, double v)
{
    return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s, but received %g", OPN(ic), what, v);
}

/* Activations with float attributes: float input, same type out; the
 * attribute ranges Paddle checks are checked here. */
int infer_act(d2_infer_ctx *ic)
{
    if (check_tensor_in(ic, 0) < 0)
        return -1;
    if (!d2_dtype_is_float(ic->in[0].dtype))
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                          OPN(ic), d2_dtype_name(ic->in[0].dtype));
    for (int i = 0; i < ic->def->n_attrs; i++)
        if (isnan(ic->attrs->v[i].u.f))
            return attr_range_error(ic, "attributes must not be NaN", ic->attrs->v[i].u.f);
    switch (ic->def->id) {
    case D2_OP_celu:
        if (ATTR_FLOAT(ic, "alpha") == 0)
            return attr_range_error(ic, "alpha must not be 0", 0);
        break;
    case D2_OP_selu:
        if (ATTR_FLOAT(ic, "scale") <= 1)
            return attr_range_error(ic, "scale must be greater than 1.0", ATTR_FLOAT(ic, "scale"));
        if (ATTR_FLOAT(ic, "alpha") < 0)
            return attr_range_error(ic, "alpha must be no less than zero", ATTR_FLOAT(ic, "alpha"));
        break;
    case D2_OP_softshrink:
        if (ATTR_FLOAT(ic, "threshold") < 0)
            return attr_range_error(ic, "threshold must be no less than zero",
                                    ATTR_FLOAT(ic, "threshold"));
        break;
    case D2_OP_softplus:
        if (ATTR_FLOAT(ic, "beta") == 0)
            return attr_range_error(ic, "beta must not be 0", 0);
        break;
    case D2_OP_logit: {
        double e = ATTR_FLOAT(ic, "eps");
        if (e < 0 || e > 1)
            return attr_range_error(ic, "eps must be in [0, 1]", e);
        break;
    }
    default: break;
    }
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = ic->in[0].shape;
    return 0;
}

/* bitwise_and/or/xor (broadcasting) and bitwise_not: int32, int64 or bool,
 * both operands of one dtype, same dtype out; gcd and lcm the same without bool. */
int infer_bitwise(d2_infer_ctx *ic)
{
    int n = ic->def->id == D2_OP_bitwise_not ? 1 : 2;
    d2_shape s;
    for (int i = 0; i < n; i++) {
        if (check_tensor_in(ic, i) < 0)
            return -1;
        bool int_only = ic->def->id == D2_OP_gcd || ic->def->id == D2_OP_lcm;
        if (d2_dtype_is_float(ic->in[i].dtype) || (int_only && ic->in[i].dtype == D2_BOOL))
            return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: expected integer%s inputs, got %s",
                              OPN(ic), int_only ? "" : " or bool", d2_dtype_name(ic->in[i].dtype));
    }
    if (n == 2) {
        if (ic->in[0].dtype != ic->in[1].dtype)
            return d2_err_set(ic->err, D2_ERR_DTYPE,
                              "%s: x and y must have the same dtype, got %s and %s", OPN(ic),
                              d2_dtype_name(ic->in[0].dtype), d2_dtype_name(ic->in[1].dtype));
        if (d2_broadcast_shapes(&ic->in[0].shape, &ic->in[1].shape, &s, ic->def, ic->err) < 0)
            return -1;
    } else {
        s = ic->in[0].shape;
    }
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = s;
    return 0;
}

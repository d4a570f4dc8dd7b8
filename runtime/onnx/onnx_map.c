/* onnx_map.c - the ONNX mapping of the op registry: one row per op (the ONNX op it becomes, the
 * lowest opset the lowering needs, the lowering), and the lowerings that are not one node. */
#include "onnx_priv.h"
#include "../fused_expr.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define A_BOOL(op, n) d2_attr_bool(d2_op_def((op)->id), &(op)->attrs, n)
#define A_INT(op, n) d2_attr_int(d2_op_def((op)->id), &(op)->attrs, n)
#define A_FLOAT(op, n) d2_attr_float(d2_op_def((op)->id), &(op)->attrs, n)
#define A_STR(op, n) d2_attr_str(d2_op_def((op)->id), &(op)->attrs, n)
#define A_INTS(op, n, cnt) d2_attr_ints(d2_op_def((op)->id), &(op)->attrs, n, cnt)
#define A_DTYPE(op, n) d2_attr_dtype(d2_op_def((op)->id), &(op)->attrs, n)

/* ---- helpers --------------------------------------------------------------------------- */

static d2_dtype in_dt(ox_ctx *c, const d2_op *op, int i) { return ox_in_type(c, op, i)->dtype; }
static d2_dtype out_dt(ox_ctx *c, const d2_op *op, int i)
{
    return ox_vtype(c, op->out[i])->dtype;
}
static int in_rank(ox_ctx *c, const d2_op *op, int i) { return ox_in_type(c, op, i)->shape.ndim; }

/* A node whose single output is output 0 of op. */
static Onnx__NodeProto *node_out(ox_ctx *c, const d2_op *op, const char *type,
                                 const char *const *ins, int n_in)
{
    const char *o = ox_out(c, op, 0);
    return o ? ox_node(c, type, ins, n_in, &o, 1) : NULL;
}

/* Output 0 of op as Identity (or Cast, when dtypes differ) of name (of dtype dt). */
static int finish(ox_ctx *c, const d2_op *op, const char *name, d2_dtype dt)
{
    if (!name)
        return -1;
    d2_dtype want = out_dt(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, dt == want ? "Identity" : "Cast", &name, 1);
    if (!n)
        return -1;
    return dt == want ? 0 : ox_attr_int(c, n, "to", ox_onnx_dtype(want));
}

static const char *bin(ox_ctx *c, const char *type, const char *a, const char *b)
{
    const char *ins[2] = {a, b};
    return a && b ? ox_node1(c, type, ins, 2, NULL) : NULL;
}

static const char *un(ox_ctx *c, const char *type, const char *a)
{
    return a ? ox_node1(c, type, &a, 1, NULL) : NULL;
}

static const char *k(ox_ctx *c, const d2_op *op, int i, double v)
{
    return ox_const_scalar(c, in_dt(c, op, i), v);
}

/* Axes (normalised against rank) as an int64 constant tensor. */
static const char *axes_const(ox_ctx *c, const int64_t *ax, int n) { return ox_const_i64(c, ax, n, false); }

/* Unsqueeze / Squeeze / Reduce* with axes: an input from `input_from` on, else an attribute.
 * n_axes < 0: no axes at all (every axis / every size-1 axis). */
static const char *axes_node(ox_ctx *c, const char *type, const char *x, const int64_t *ax,
                             int n_axes, int input_from, Onnx__NodeProto **node)
{
    Onnx__NodeProto *n;
    const char *o;
    if (n_axes >= 0 && c->opset >= input_from) {
        const char *ins[2] = {x, axes_const(c, ax, n_axes)};
        o = ins[1] ? ox_node1(c, type, ins, 2, &n) : NULL;
    } else {
        o = ox_node1(c, type, &x, 1, &n);
        if (o && n_axes >= 0 && ox_attr_ints(c, n, "axes", ax, n_axes) < 0)
            return NULL;
    }
    if (node)
        *node = n;
    return o;
}

static const char *unsqueeze(ox_ctx *c, const char *x, const int64_t *ax, int n)
{
    return axes_node(c, "Unsqueeze", x, ax, n, 13, NULL);
}

/* ---- generic lowerings ------------------------------------------------------------------- */

/* one node, the op's inputs (absent optional ones dropped from the end) and outputs */
static int l_simple(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[D2_MAX_PORTS + 8];
    int n = 0;
    for (int i = 0; i < op->n_in && i < (int)D2_COUNTOF(ins); i++)
        ins[n++] = op->in[i] >= 0 ? ox_in(c, op, i) : "";
    while (n > 0 && !*ins[n - 1])
        n--;
    return node_out(c, op, type, ins, n) ? 0 : -1;
}

/* inputs taken as booleans (nonzero is true) */
static int l_logical(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[2] = {NULL, NULL};
    for (int i = 0; i < op->n_in; i++)
        ins[i] = ox_cast(c, ox_in(c, op, i), in_dt(c, op, i), D2_BOOL);
    return ins[0] && (op->n_in < 2 || ins[1]) && node_out(c, op, type, ins, op->n_in) ? 0 : -1;
}

static int l_not_equal(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *e = bin(c, "Equal", ox_in(c, op, 0), ox_in(c, op, 1));
    return e && node_out(c, op, "Not", &e, 1) ? 0 : -1;
}

/* float x -> Floor(x / y); integers: Python's floor division from truncating Div */
static int l_floor_divide(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *x = ox_in(c, op, 0), *y = ox_in(c, op, 1);
    if (d2_dtype_is_float(in_dt(c, op, 0)))
        return finish(c, op, un(c, "Floor", bin(c, "Div", x, y)), in_dt(c, op, 0));
    const char *q = bin(c, "Div", x, y);
    const char *r = bin(c, "Sub", x, bin(c, "Mul", q, y));
    const char *zero = k(c, op, 0, 0);
    const char *fix = bin(c, "And", un(c, "Not", bin(c, "Equal", r, zero)),
                          bin(c, "Xor", bin(c, "Less", r, zero), bin(c, "Less", y, zero)));
    const char *ins[3] = {fix, bin(c, "Sub", q, k(c, op, 0, 1)), q};
    return ins[0] && ins[1] && node_out(c, op, "Where", ins, 3) ? 0 : -1;
}

/* Python's modulo: integers through Mod (sign of the divisor); floats x - floor(x/y)*y */
static int l_remainder(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0), *y = ox_in(c, op, 1);
    if (d2_dtype_is_float(in_dt(c, op, 0)))
        return finish(c, op, bin(c, "Sub", x, bin(c, "Mul", un(c, "Floor", bin(c, "Div", x, y)), y)),
                      in_dt(c, op, 0));
    Onnx__NodeProto *n = node_out(c, op, type, (const char *[]){x, y}, 2);
    return n && ox_attr_int(c, n, "fmod", 0) == 0 ? 0 : -1;
}

/* ---- elementwise compositions -------------------------------------------------------------- */

static int l_square(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    return node_out(c, op, type, (const char *[]){x, x}, 2) ? 0 : -1;
}

/* type "Name" applied to x, then output = the op's combination (by name) */
static int l_rsqrt(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *s = un(c, "Sqrt", ox_in(c, op, 0));
    return s && node_out(c, op, type, &s, 1) ? 0 : -1;
}

static int l_silu(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    return node_out(c, op, type, (const char *[]){x, un(c, "Sigmoid", x)}, 2) ? 0 : -1;
}

/* exact: x/2 (1 + erf(x/sqrt 2)); approximate: x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)));
 * constants typed as op's input 0 */
static const char *gelu_of(ox_ctx *c, const d2_op *op, const char *x, bool approximate)
{
    const char *inner;
    if (approximate) {
        const char *x3 = bin(c, "Mul", x, bin(c, "Mul", x, x));
        inner = un(c, "Tanh", bin(c, "Mul", k(c, op, 0, sqrt(2.0 / M_PI)),
                                  bin(c, "Add", x, bin(c, "Mul", k(c, op, 0, 0.044715), x3))));
    } else {
        inner = un(c, "Erf", bin(c, "Div", x, k(c, op, 0, sqrt(2.0))));
    }
    return bin(c, "Mul", bin(c, "Mul", x, k(c, op, 0, 0.5)), bin(c, "Add", k(c, op, 0, 1), inner));
}

static int l_gelu(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    return finish(c, op, gelu_of(c, op, ox_in(c, op, 0), A_BOOL(op, "approximate")),
                  in_dt(c, op, 0));
}

static int l_leaky_relu(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, type, &x, 1);
    return n && ox_attr_float(c, n, "alpha", A_FLOAT(op, "negative_slope")) == 0 ? 0 : -1;
}

static int l_scale(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *x = ox_in(c, op, 0);
    const char *s = k(c, op, 0, A_FLOAT(op, "scale")), *b = k(c, op, 0, A_FLOAT(op, "bias"));
    const char *r = A_BOOL(op, "bias_after_scale") ? bin(c, "Add", bin(c, "Mul", x, s), b)
                                                   : bin(c, "Mul", bin(c, "Add", x, b), s);
    return finish(c, op, r, in_dt(c, op, 0));
}

static int l_clip(ox_ctx *c, const d2_op *op, const char *type)
{
    d2_dtype dt = in_dt(c, op, 0);
    double lo = A_FLOAT(op, "min"), hi = A_FLOAT(op, "max");
    const char *ins[3] = {ox_in(c, op, 0), "", ""};
    if (isfinite(lo))
        ins[1] = k(c, op, 0, lo);
    if (isfinite(hi))
        ins[2] = k(c, op, 0, hi);
    (void)dt;
    int n = *ins[2] ? 3 : *ins[1] ? 2 : 1;
    return ins[1] && ins[2] && node_out(c, op, type, ins, n) ? 0 : -1;
}

static int l_axis(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, type, &x, 1);
    return n && ox_attr_int(c, n, "axis", A_INT(op, "axis")) == 0 ? 0 : -1;
}

static int l_cast(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, type, &x, 1);
    return n && ox_attr_int(c, n, "to", ox_onnx_dtype(out_dt(c, op, 0))) == 0 ? 0 : -1;
}

static int l_where(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[3] = {ox_cast(c, ox_in(c, op, 0), in_dt(c, op, 0), D2_BOOL), ox_in(c, op, 1),
                          ox_in(c, op, 2)};
    return ins[0] && node_out(c, op, type, ins, 3) ? 0 : -1;
}

/* functions of x written with other ops, one row each */
static int l_expr(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0), *r = NULL;
    d2_dtype dt = in_dt(c, op, 0);
    const char *name = d2_op_def(op->id)->name;
    if (!strcmp(name, "expm1"))
        r = bin(c, "Sub", un(c, "Exp", x), k(c, op, 0, 1));
    else if (!strcmp(name, "log1p"))
        r = un(c, "Log", bin(c, "Add", x, k(c, op, 0, 1)));
    else if (!strcmp(name, "log2"))
        r = bin(c, "Div", un(c, "Log", x), k(c, op, 0, log(2.0)));
    else if (!strcmp(name, "log10"))
        r = bin(c, "Div", un(c, "Log", x), k(c, op, 0, log(10.0)));
    else if (!strcmp(name, "trunc")) {
        Onnx__NodeProto *n;
        const char *m = ox_node1(c, "Mod", (const char *[]){x, k(c, op, 0, 1)}, 2, &n);
        r = m && ox_attr_int(c, n, "fmod", 1) == 0 ? bin(c, "Sub", x, m) : NULL;
    } else if (!strcmp(name, "round")) /* half away from zero */
        r = bin(c, "Mul", un(c, "Sign", x),
                un(c, "Floor", bin(c, "Add", un(c, "Abs", x), k(c, op, 0, 0.5))));
    else if (!strcmp(name, "mish"))
        r = bin(c, "Mul", x, un(c, "Tanh", un(c, "Softplus", x)));
    else if (!strcmp(name, "logsigmoid"))
        r = un(c, "Neg", un(c, "Softplus", un(c, "Neg", x)));
    else if (!strcmp(name, "tanhshrink"))
        r = bin(c, "Sub", x, un(c, "Tanh", x));
    else if (!strcmp(name, "hardswish")) {
        Onnx__NodeProto *n;
        const char *h = ox_node1(c, "HardSigmoid", &x, 1, &n);
        r = h && ox_attr_float(c, n, "alpha", 1.0 / 6) == 0 && ox_attr_float(c, n, "beta", 0.5) == 0
                ? bin(c, "Mul", x, h) : NULL;
    } else if (!strcmp(name, "softplus")) {
        double beta = A_FLOAT(op, "beta"), thr = A_FLOAT(op, "threshold");
        const char *bx = bin(c, "Mul", x, k(c, op, 0, beta));
        const char *sp = bin(c, "Div", un(c, "Softplus", bx), k(c, op, 0, beta));
        const char *ins[3] = {bin(c, "Greater", bx, k(c, op, 0, thr)), x, sp};
        r = ins[0] && sp ? ox_node1(c, "Where", ins, 3, NULL) : NULL;
    } else if (!strcmp(name, "stanh"))
        r = bin(c, "Mul", k(c, op, 0, A_FLOAT(op, "scale_b")),
                un(c, "Tanh", bin(c, "Mul", x, k(c, op, 0, A_FLOAT(op, "scale_a")))));
    else if (!strcmp(name, "logit")) {
        double eps = A_FLOAT(op, "eps");
        const char *y = x;
        if (eps > 0)
            y = ox_node1(c, "Clip", (const char *[]){x, k(c, op, 0, eps), k(c, op, 0, 1 - eps)}, 3,
                         NULL);
        r = un(c, "Log", bin(c, "Div", y, bin(c, "Sub", k(c, op, 0, 1), y)));
    } else if (!strcmp(name, "isfinite"))
        r = un(c, "Not", bin(c, "Or", un(c, "IsNaN", x), un(c, "IsInf", x)));
    else if (!strcmp(name, "dropout")) {
        if (!strcmp(A_STR(op, "mode"), "downscale_in_infer"))
            r = bin(c, "Mul", x, k(c, op, 0, 1 - A_FLOAT(op, "p")));
        else
            r = x;
    } else
        return ox_fail(c, op, D2_ERR_INVALID, "no expression for %s (%s)", name, type);
    return finish(c, op, r, dt);
}

/* one node with float attributes named in type as "Op:attr=paddle_attr,..." */
static int l_act(ox_ctx *c, const d2_op *op, const char *type)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", type);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = 0;
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, buf, &x, 1);
    if (!n)
        return -1;
    for (char *s = colon ? colon + 1 : NULL; s && *s;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = 0;
        char *eq = strchr(s, '=');
        if (eq) {
            *eq = 0;
            /* "lambd=threshold" or "bias=0" */
            double v = (eq[1] >= '0' && eq[1] <= '9') ? atof(eq + 1) : A_FLOAT(op, eq + 1);
            if (ox_attr_float(c, n, s, v) < 0)
                return -1;
        }
        s = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* ---- reductions ---------------------------------------------------------------------------- */

static int reduce_axes(ox_ctx *c, const d2_op *op, int64_t *ax)
{
    int n;
    const int64_t *v = A_INTS(op, "axis", &n);
    int r = in_rank(c, op, 0);
    for (int i = 0; i < n; i++)
        ax[i] = v[i] < 0 ? v[i] + r : v[i];
    return n;
}

static const char *reduce(ox_ctx *c, const char *type, const char *x, const int64_t *ax, int n,
                          bool keep)
{
    int from = strcmp(type, "ReduceSum") == 0 ? 13 : 18;
    Onnx__NodeProto *node;
    const char *o = axes_node(c, type, x, ax, n ? n : -1, from, &node);
    return o && ox_attr_int(c, node, "keepdims", keep) == 0 ? o : NULL;
}

static int l_reduce(ox_ctx *c, const d2_op *op, const char *type)
{
    int64_t ax[D2_MAX_DIMS];
    int n = reduce_axes(c, op, ax);
    const char *x = ox_in(c, op, 0);
    d2_dtype dt = in_dt(c, op, 0), want = out_dt(c, op, 0);
    bool logic = !strcmp(type, "ReduceMax") && want == D2_BOOL;
    if (!strcmp(d2_op_def(op->id)->name, "sum") || !strcmp(type, "ReduceProd")) {
        x = ox_cast(c, x, dt, want == D2_BOOL ? D2_I64 : want);
        dt = want == D2_BOOL ? D2_I64 : want;
    }
    if (want == D2_BOOL) { /* any / all over booleans: Max / Min of 0/1 */
        x = ox_cast(c, ox_cast(c, x, dt, D2_BOOL), D2_BOOL, D2_I32);
        dt = D2_I32;
    }
    (void)logic;
    if (in_rank(c, op, 0) == 0) /* a scalar reduces to itself */
        return finish(c, op, x, dt);
    return finish(c, op, reduce(c, type, x, ax, n, A_BOOL(op, "keepdim")), dt);
}

static int l_argminmax(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    int64_t axis = A_INT(op, "axis");
    if (A_BOOL(op, "flatten") || in_rank(c, op, 0) == 0) {
        int64_t m1 = -1;
        x = bin(c, "Reshape", x, ox_const_i64(c, &m1, 1, false));
        axis = 0;
    }
    Onnx__NodeProto *n;
    const char *r = ox_node1(c, type, &x, 1, &n);
    if (!r || ox_attr_int(c, n, "axis", axis) < 0 ||
        ox_attr_int(c, n, "keepdims", A_BOOL(op, "keepdim")) < 0)
        return -1;
    if (A_BOOL(op, "flatten") && !A_BOOL(op, "keepdim"))
        r = ox_to_scalar(c, r);
    return finish(c, op, r, D2_I64);
}

/* ---- shapes -------------------------------------------------------------------------------- */

/* the shape input of reshape / expand / full (an int tensor) or the shape attribute */
static const char *shape_arg(ox_ctx *c, const d2_op *op, int in, bool ones_for_m1)
{
    if (in < op->n_in && op->in[in] >= 0) {
        const d2_type *t = ox_in_type(c, op, in);
        const char *s = ox_cast(c, ox_in(c, op, in), t->dtype, D2_I64);
        if (t->shape.ndim == 0) {
            int64_t one = 1;
            s = bin(c, "Reshape", s, ox_const_i64(c, &one, 1, false));
        }
        return s;
    }
    int n;
    const int64_t *v = A_INTS(op, "shape", &n);
    int64_t w[D2_MAX_DIMS];
    for (int i = 0; i < n && i < D2_MAX_DIMS; i++)
        w[i] = ones_for_m1 && v[i] == -1 ? 1 : v[i];
    return ox_const_i64(c, w, n, false);
}

static int l_reshape(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[2] = {ox_in(c, op, 0), shape_arg(c, op, 1, false)};
    return ins[1] && node_out(c, op, type, ins, 2) ? 0 : -1;
}

/* Reshape x to the op's output type: known dims as constants, one -1 inferred; with more
 * than one unknown dim the unknown ones are read from x's shape at positions src[i] (-1:
 * the inferred one). */
static int reshape_to_out(ox_ctx *c, const d2_op *op, const char *x, const int *src)
{
    const d2_shape *s = &ox_vtype(c, op->out[0])->shape;
    int unknown = 0;
    for (int i = 0; i < s->ndim; i++)
        unknown += s->dims[i] < 0;
    const char *shape;
    if (unknown <= 1) {
        shape = ox_const_i64(c, s->dims, s->ndim, false);
    } else {
        const char *sh = un(c, "Shape", x);
        const char *parts[D2_MAX_DIMS];
        for (int i = 0; i < s->ndim; i++) {
            int64_t d = s->dims[i] >= 0 ? s->dims[i] : -1;
            if (s->dims[i] < 0 && src[i] >= 0) {
                int64_t at = src[i];
                Onnx__NodeProto *n;
                parts[i] = ox_node1(c, "Gather", (const char *[]){sh, ox_const_i64(c, &at, 1, false)},
                                    2, &n);
            } else {
                parts[i] = ox_const_i64(c, &d, 1, false);
            }
            if (!parts[i])
                return -1;
        }
        Onnx__NodeProto *n;
        shape = ox_node1(c, "Concat", parts, s->ndim, &n);
        if (!shape || ox_attr_int(c, n, "axis", 0) < 0)
            return -1;
    }
    return node_out(c, op, "Reshape", (const char *[]){x, shape}, 2) ? 0 : -1;
}

static int l_flatten(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    int r = in_rank(c, op, 0);
    int64_t a = A_INT(op, "start_axis"), b = A_INT(op, "stop_axis");
    if (r == 0)
        return reshape_to_out(c, op, ox_in(c, op, 0), (int[]){-1});
    a = a < 0 ? a + r : a;
    b = b < 0 ? b + r : b;
    int src[D2_MAX_DIMS], n = 0;
    for (int i = 0; i < a; i++)
        src[n++] = i;
    src[n++] = -1;
    for (int i = (int)b + 1; i < r; i++)
        src[n++] = i;
    return reshape_to_out(c, op, ox_in(c, op, 0), src);
}

static int l_squeeze(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    int n;
    const int64_t *v = A_INTS(op, "axis", &n);
    const d2_shape *s = &ox_in_type(c, op, 0)->shape;
    int64_t ax[D2_MAX_DIMS];
    int m = 0;
    /* Paddle leaves axes whose size is not 1; [] squeezes every size-1 axis */
    for (int i = 0; i < (n ? n : s->ndim); i++) {
        int64_t a = n ? (v[i] < 0 ? v[i] + s->ndim : v[i]) : i;
        if (a >= 0 && a < s->ndim && s->dims[a] == 1)
            ax[m++] = a;
    }
    const char *x = ox_in(c, op, 0);
    if (m == 0)
        return finish(c, op, x, in_dt(c, op, 0));
    return finish(c, op, axes_node(c, "Squeeze", x, ax, m, 13, NULL), in_dt(c, op, 0));
}

static int l_unsqueeze(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    int n;
    const int64_t *v = A_INTS(op, "axis", &n);
    int64_t ax[D2_MAX_DIMS];
    int r = ox_vtype(c, op->out[0])->shape.ndim;
    for (int i = 0; i < n && i < D2_MAX_DIMS; i++)
        ax[i] = v[i] < 0 ? v[i] + r : v[i];
    return finish(c, op, unsqueeze(c, ox_in(c, op, 0), ax, n), in_dt(c, op, 0));
}

static int l_transpose(ox_ctx *c, const d2_op *op, const char *type)
{
    int n;
    const int64_t *perm = A_INTS(op, "perm", &n);
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *nd = node_out(c, op, type, &x, 1);
    return nd && ox_attr_ints(c, nd, "perm", perm, n) == 0 ? 0 : -1;
}

static int l_concat(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[64];
    if (op->n_in > 64)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "more than 64 inputs");
    for (int i = 0; i < op->n_in; i++)
        ins[i] = ox_in(c, op, i);
    Onnx__NodeProto *n = node_out(c, op, type, ins, op->n_in);
    return n && ox_attr_int(c, n, "axis", A_INT(op, "axis")) == 0 ? 0 : -1;
}

static int l_stack(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[64];
    if (op->n_in > 64)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "more than 64 inputs");
    int64_t axis = A_INT(op, "axis");
    int r = ox_vtype(c, op->out[0])->shape.ndim;
    axis = axis < 0 ? axis + r : axis;
    for (int i = 0; i < op->n_in; i++)
        if (!(ins[i] = unsqueeze(c, ox_in(c, op, i), &axis, 1)))
            return -1;
    Onnx__NodeProto *n = node_out(c, op, type, ins, op->n_in);
    return n && ox_attr_int(c, n, "axis", axis) == 0 ? 0 : -1;
}

static int l_split(ox_ctx *c, const d2_op *op, const char *type)
{
    int64_t axis = A_INT(op, "axis");
    int r = in_rank(c, op, 0);
    axis = axis < 0 ? axis + r : axis;
    const char *outs[64];
    if (op->n_out > 64)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "more than 64 outputs");
    int64_t sizes[64];
    bool known = true;
    for (int i = 0; i < op->n_out; i++) {
        sizes[i] = ox_vtype(c, op->out[i])->shape.dims[axis];
        known = known && sizes[i] >= 0;
        if (!(outs[i] = ox_out(c, op, i)))
            return -1;
    }
    const char *x = ox_in(c, op, 0);
    Onnx__NodeProto *n;
    if (known) {
        const char *s = ox_const_i64(c, sizes, op->n_out, false);
        n = s ? ox_node(c, type, (const char *[]){x, s}, 2, outs, op->n_out) : NULL;
    } else if (A_INT(op, "num") > 0) {
        n = ox_node(c, type, &x, 1, outs, op->n_out);
        if (n && c->opset >= 18 && ox_attr_int(c, n, "num_outputs", op->n_out) < 0)
            return -1;
    } else {
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "sections of unknown size");
    }
    return n && ox_attr_int(c, n, "axis", axis) == 0 ? 0 : -1;
}

static int l_slice(ox_ctx *c, const d2_op *op, const char *type)
{
    int na, ns, ne, nst, nd;
    const int64_t *axes = A_INTS(op, "axes", &na), *st = A_INTS(op, "starts", &ns),
                  *en = A_INTS(op, "ends", &ne), *sp = A_INTS(op, "strides", &nst),
                  *dec = A_INTS(op, "decrease_axis", &nd);
    int64_t steps[D2_MAX_DIMS];
    for (int i = 0; i < na && i < D2_MAX_DIMS; i++)
        steps[i] = nst ? sp[i] : 1;
    const char *ins[5] = {ox_in(c, op, 0), ox_const_i64(c, st, ns, false),
                          ox_const_i64(c, en, ne, false), ox_const_i64(c, axes, na, false),
                          ox_const_i64(c, steps, na, false)};
    const char *r = ins[1] && ins[2] && ins[3] && ins[4] ? ox_node1(c, type, ins, 5, NULL) : NULL;
    if (nd > 0) {
        int64_t ax[D2_MAX_DIMS];
        int rk = in_rank(c, op, 0);
        for (int i = 0; i < nd && i < D2_MAX_DIMS; i++)
            ax[i] = dec[i] < 0 ? dec[i] + rk : dec[i];
        r = axes_node(c, "Squeeze", r, ax, nd, 13, NULL);
    }
    return finish(c, op, r, in_dt(c, op, 0));
}

static int l_gather(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[2] = {ox_in(c, op, 0), ox_in(c, op, 1)};
    Onnx__NodeProto *n = node_out(c, op, type, ins, 2);
    return n && ox_attr_int(c, n, "axis", A_INT(op, "axis")) == 0 ? 0 : -1;
}

static int l_expand(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *s = shape_arg(c, op, 1, true);
    if (op->n_in > 1 && op->in[1] >= 0) /* -1 keeps the input's dim: 1 does that in Expand */
        s = ox_node1(c, "Max", (const char *[]){s, ox_const_i64(c, (int64_t[]){1}, 1, true)}, 2,
                     NULL);
    return s && node_out(c, op, type, (const char *[]){ox_in(c, op, 0), s}, 2) ? 0 : -1;
}

static int l_tile(ox_ctx *c, const d2_op *op, const char *type)
{
    int n;
    const int64_t *v = A_INTS(op, "repeat_times", &n);
    int r = in_rank(c, op, 0);
    const char *x = ox_in(c, op, 0);
    if (n > r) { /* Paddle prepends 1s to x's shape */
        int64_t ax[D2_MAX_DIMS];
        for (int i = 0; i < n - r; i++)
            ax[i] = i;
        x = unsqueeze(c, x, ax, n - r);
    }
    int64_t rep[D2_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < r - n; i++)
        rep[m++] = 1;
    for (int i = 0; i < n; i++)
        rep[m++] = v[i];
    return node_out(c, op, type, (const char *[]){x, ox_const_i64(c, rep, m, false)}, 2) ? 0 : -1;
}

static Onnx__TensorProto *value_tensor(ox_ctx *c, d2_dtype dt, double v)
{
    union {
        float f;
        double d;
        int32_t i32;
        int64_t i64;
        uint8_t b;
    } u;
    switch (dt) {
    case D2_F32: u.f = (float)v; break;
    case D2_F64: u.d = v; break;
    case D2_I32: u.i32 = (int32_t)v; break;
    case D2_I64: u.i64 = (int64_t)v; break;
    default: u.b = v != 0; break;
    }
    int64_t one = 1;
    return ox_tensor(c, dt, 1, &one, &u, d2_dtype_size(dt));
}

static int l_full(ox_ctx *c, const d2_op *op, const char *type)
{
    d2_dtype dt = out_dt(c, op, 0);
    double v = A_FLOAT(op, "value");
    const d2_shape *s = &ox_vtype(c, op->out[0])->shape;
    if ((op->n_in == 0 || op->in[0] < 0) && d2_shape_is_static(s) && d2_shape_numel(s) == 1) {
        const char *r = ox_const_scalar(c, dt, v);
        if (s->ndim > 0)
            r = bin(c, "Reshape", r, ox_const_i64(c, s->dims, s->ndim, false));
        return finish(c, op, r, dt);
    }
    const char *shape = shape_arg(c, op, 0, false);
    Onnx__NodeProto *n = shape ? node_out(c, op, type, &shape, 1) : NULL;
    return n && ox_attr_tensor(c, n, "value", value_tensor(c, dt, v)) == 0 ? 0 : -1;
}

static int l_full_like(ox_ctx *c, const d2_op *op, const char *type)
{
    d2_dtype dt = out_dt(c, op, 0);
    const char *shape = un(c, "Shape", ox_in(c, op, 0));
    Onnx__NodeProto *n = shape ? node_out(c, op, type, &shape, 1) : NULL;
    return n && ox_attr_tensor(c, n, "value", value_tensor(c, dt, A_FLOAT(op, "value"))) == 0
               ? 0 : -1;
}

static int l_arange(ox_ctx *c, const d2_op *op, const char *type)
{
    d2_dtype dt = out_dt(c, op, 0);
    const char *names[3] = {"start", "end", "step"};
    const char *ins[3];
    for (int i = 0; i < 3; i++) {
        if (i < op->n_in && op->in[i] >= 0) {
            const d2_type *t = ox_in_type(c, op, i);
            ins[i] = ox_cast(c, ox_in(c, op, i), t->dtype, dt);
            if (t->shape.ndim > 0)
                ins[i] = ox_to_scalar(c, ins[i]);
        } else {
            ins[i] = ox_const_scalar(c, dt, A_FLOAT(op, names[i]));
        }
        if (!ins[i])
            return -1;
    }
    return node_out(c, op, type, ins, 3) ? 0 : -1;
}

static int l_shape(ox_ctx *c, const d2_op *op, const char *type)
{
    return finish(c, op, un(c, type, ox_in(c, op, 0)), D2_I64);
}

/* ---- neural-network ops ---------------------------------------------------------------------- */

static const char *swap_last2(ox_ctx *c, const char *x, int r)
{
    int64_t perm[D2_MAX_DIMS];
    for (int i = 0; i < r; i++)
        perm[i] = i;
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    Onnx__NodeProto *n;
    const char *o = ox_node1(c, "Transpose", &x, 1, &n);
    return o && ox_attr_ints(c, n, "perm", perm, r) == 0 ? o : NULL;
}

static int l_matmul(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0), *y = ox_in(c, op, 1);
    if (A_BOOL(op, "transpose_x") && in_rank(c, op, 0) >= 2)
        x = swap_last2(c, x, in_rank(c, op, 0));
    if (A_BOOL(op, "transpose_y") && in_rank(c, op, 1) >= 2)
        y = swap_last2(c, y, in_rank(c, op, 1));
    return node_out(c, op, type, (const char *[]){x, y}, 2) ? 0 : -1;
}

static int l_linear(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *xw = bin(c, type, ox_in(c, op, 0), ox_in(c, op, 1));
    if (op->n_in > 2 && op->in[2] >= 0)
        return node_out(c, op, "Add", (const char *[]){xw, ox_in(c, op, 2)}, 2) ? 0 : -1;
    return finish(c, op, xw, in_dt(c, op, 0));
}

/* linear_fused: the ONNX graph of its parts (linear, + residual, activation) */
static int l_linear_fused(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *o = bin(c, type, ox_in(c, op, 0), ox_in(c, op, 1));
    if (op->n_in > 2 && op->in[2] >= 0)
        o = bin(c, "Add", o, ox_in(c, op, 2));
    if (op->n_in > 3 && op->in[3] >= 0)
        o = bin(c, "Add", o, ox_in(c, op, 3));
    const char *act = A_STR(op, "activation");
    if (!strcmp(act, "relu"))
        o = un(c, "Relu", o);
    else if (!strcmp(act, "gelu") || !strcmp(act, "gelu_tanh"))
        o = gelu_of(c, op, o, !strcmp(act, "gelu_tanh"));
    else if (*act)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "activation \"%s\"", act);
    return finish(c, op, o, in_dt(c, op, 0));
}

/* strides, dilations, pads ([t, b, l, r] -> ONNX [t, l, b, r]), group, auto_pad */
static int conv_attrs(ox_ctx *c, const d2_op *op, Onnx__NodeProto *n)
{
    int ns, nd, np;
    const int64_t *st = A_INTS(op, "strides", &ns), *dl = A_INTS(op, "dilations", &nd),
                  *pd = A_INTS(op, "paddings", &np);
    int64_t pads[4] = {0, 0, 0, 0};
    if (np == 2) {
        pads[0] = pads[2] = pd[0];
        pads[1] = pads[3] = pd[1];
    } else if (np == 4) {
        pads[0] = pd[0];
        pads[2] = pd[1];
        pads[1] = pd[2];
        pads[3] = pd[3];
    }
    const char *alg = A_STR(op, "padding_algorithm");
    int64_t ones[2] = {1, 1};
    int rc = ox_attr_ints(c, n, "strides", st, ns) | ox_attr_int(c, n, "group", A_INT(op, "groups"));
    if (!strcmp(alg, "SAME"))
        rc |= ox_attr_str(c, n, "auto_pad", "SAME_UPPER") | ox_attr_ints(c, n, "dilations", ones, 2);
    else if (!strcmp(alg, "VALID"))
        rc |= ox_attr_str(c, n, "auto_pad", "VALID") | ox_attr_ints(c, n, "dilations", dl, nd);
    else
        rc |= ox_attr_ints(c, n, "pads", pads, 4) | ox_attr_ints(c, n, "dilations", dl, nd);
    return rc ? -1 : 0;
}

static const char *transpose(ox_ctx *c, const char *x, const int64_t *perm, int r);

static int l_conv(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[3] = {ox_in(c, op, 0), ox_in(c, op, 1), ox_in(c, op, 2)};
    int n_in = ins[2] ? 3 : 2;
    bool fused = op->n_in > 3;
    const char *res = fused ? ox_in(c, op, 3) : NULL;
    const char *act = fused ? A_STR(op, "activation") : "";
    Onnx__NodeProto *n;
    const char *o;
    if (!res && !*act && !(fused && !strcmp(A_STR(op, "data_format"), "NHWC"))) {
        n = node_out(c, op, type, ins, n_in);
        return n ? conv_attrs(c, op, n) : -1;
    }
    /* conv2d_fused: the ONNX graph of its parts (runtimes fuse them again); in NHWC (the
     * layout pass's chains) x and the residual are turned to NCHW and the result back */
    static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1};
    bool nhwc = !strcmp(A_STR(op, "data_format"), "NHWC");
    if (nhwc) {
        ins[0] = transpose(c, ins[0], to_nchw, 4);
        if (res)
            res = transpose(c, res, to_nchw, 4);
        if (!ins[0] || (fused && op->in[3] >= 0 && !res))
            return -1;
    }
    o = ox_node1(c, type, ins, n_in, &n);
    if (!o || conv_attrs(c, op, n) < 0)
        return -1;
    if (res)
        o = bin(c, "Add", o, res);
    if (!strcmp(act, "relu"))
        o = un(c, "Relu", o);
    else if (*act)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "activation \"%s\"", act);
    if (nhwc && o)
        o = transpose(c, o, to_nhwc, 4);
    return finish(c, op, o, in_dt(c, op, 0));
}

static int l_conv_transpose(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[3] = {ox_in(c, op, 0), ox_in(c, op, 1), ox_in(c, op, 2)};
    Onnx__NodeProto *n = node_out(c, op, type, ins, ins[2] ? 3 : 2);
    if (!n || conv_attrs(c, op, n) < 0)
        return -1;
    int no, nos;
    const int64_t *opad = A_INTS(op, "output_padding", &no);
    const int64_t *osz = A_INTS(op, "output_size", &nos);
    if (nos > 0) {
        const d2_shape *s = &ox_vtype(c, op->out[0])->shape;
        return ox_attr_ints(c, n, "output_shape", s->dims + 2, 2);
    }
    (void)osz;
    return no ? ox_attr_ints(c, n, "output_padding", opad, no) : 0;
}

static int l_pool(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    bool avg = !strcmp(A_STR(op, "pooling_type"), "avg");
    const char *x = ox_in(c, op, 0);
    const d2_shape *in = &ox_in_type(c, op, 0)->shape, *out = &ox_vtype(c, op->out[0])->shape;
    int nk, ns, np;
    const int64_t *ks = A_INTS(op, "ksize", &nk), *st = A_INTS(op, "strides", &ns),
                  *pd = A_INTS(op, "paddings", &np);
    bool global = A_BOOL(op, "global_pooling");
    int64_t kk[2] = {ks[0], ks[1]}, ss[2] = {st[0], st[1]};
    if (A_BOOL(op, "adaptive")) {
        if (ks[0] == 1 && ks[1] == 1) {
            global = true;
        } else {
            for (int i = 0; i < 2; i++) {
                int64_t d = in->dims[2 + i];
                if (d < 0 || d % ks[i] != 0)
                    return ox_fail(c, op, D2_ERR_UNSUPPORTED,
                                   "adaptive pooling to %lldx%lld needs input sizes that are "
                                   "static multiples of it", (long long)ks[0], (long long)ks[1]);
                kk[i] = ss[i] = d / ks[i];
            }
            np = 0;
        }
    }
    (void)out;
    if (global)
        return node_out(c, op, avg ? "GlobalAveragePool" : "GlobalMaxPool", &x, 1) ? 0 : -1;
    Onnx__NodeProto *n = node_out(c, op, avg ? "AveragePool" : "MaxPool", &x, 1);
    int64_t pads[4] = {0, 0, 0, 0};
    if (np == 2) {
        pads[0] = pads[2] = pd[0];
        pads[1] = pads[3] = pd[1];
    } else if (np == 4) {
        pads[0] = pd[0];
        pads[2] = pd[1];
        pads[1] = pd[2];
        pads[3] = pd[3];
    }
    if (!n || ox_attr_ints(c, n, "kernel_shape", kk, 2) < 0 ||
        ox_attr_ints(c, n, "strides", ss, 2) < 0 || ox_attr_ints(c, n, "pads", pads, 4) < 0 ||
        ox_attr_int(c, n, "ceil_mode", A_BOOL(op, "ceil_mode")) < 0)
        return -1;
    if (avg && ox_attr_int(c, n, "count_include_pad", !A_BOOL(op, "exclusive")) < 0)
        return -1;
    return 0;
}

static int l_batch_norm(ox_ctx *c, const d2_op *op, const char *type)
{
    /* dy2st: x, mean, variance, scale, bias; ONNX: X, scale, B, mean, var */
    const char *ins[5] = {ox_in(c, op, 0), ox_in(c, op, 3), ox_in(c, op, 4), ox_in(c, op, 1),
                          ox_in(c, op, 2)};
    Onnx__NodeProto *n = node_out(c, op, type, ins, 5);
    return n && ox_attr_float(c, n, "epsilon", A_FLOAT(op, "epsilon")) == 0 ? 0 : -1;
}

/* normalised over axes begin..rank-1; scale and bias hold the normalised part flattened */
static int l_layer_norm(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *x = ox_in(c, op, 0);
    const d2_shape *s = &ox_in_type(c, op, 0)->shape;
    int r = s->ndim;
    int64_t b = A_INT(op, "begin_norm_axis");
    b = b < 0 ? b + r : b;
    int64_t ax[D2_MAX_DIMS], nshape[D2_MAX_DIMS];
    int na = 0;
    for (int64_t i = b; i < r; i++) {
        ax[na] = i;
        nshape[na++] = s->dims[i];
    }
    const char *mean = reduce(c, "ReduceMean", x, ax, na, true);
    const char *d = bin(c, "Sub", x, mean);
    const char *var = reduce(c, "ReduceMean", bin(c, "Mul", d, d), ax, na, true);
    const char *y = bin(c, "Div", d, un(c, "Sqrt", bin(c, "Add", var,
                                                     k(c, op, 0, A_FLOAT(op, "epsilon")))));
    for (int i = 1; i < 3; i++) {
        const char *p = ox_in(c, op, i);
        if (!p)
            continue;
        if (na > 1)
            p = bin(c, "Reshape", p, ox_const_i64(c, nshape, na, false));
        y = bin(c, i == 1 ? "Mul" : "Add", y, p);
    }
    return finish(c, op, y, in_dt(c, op, 0));
}

/* fused_elementwise: its postfix program as the ONNX nodes of its parts (runtimes fuse them
 * again); constants typed as input 0 */
static int l_fused_elementwise(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    d2_fx_prog prog;
    d2_err err = {0};
    if (d2_fx_parse(A_STR(op, "expr"), op->n_in, &prog, &err) < 0)
        return ox_fail(c, op, D2_ERR_INVALID, "%s", err.msg);
    const char *st[D2_FX_MAX_DEPTH];
    int sp = 0;
    for (int pc = 0; pc < prog.n; pc++) {
        const d2_fx_ins *in = &prog.ins[pc];
        const char *a = sp > 0 ? st[sp - 1] : NULL, *r;
        switch (in->code) {
        case D2_FX_IN:
            st[sp++] = ox_in(c, op, in->arg);
            continue;
        case D2_FX_CONST:
            st[sp++] = k(c, op, 0, in->c);
            continue;
        case D2_FX_ADD:
        case D2_FX_SUB:
        case D2_FX_MUL:
        case D2_FX_DIV: {
            static const char *const names[] = {"Add", "Sub", "Mul", "Div"};
            r = bin(c, names[in->code - D2_FX_ADD], st[sp - 2], a);
            sp--;
            break;
        }
        case D2_FX_RELU:
            r = un(c, "Relu", a);
            break;
        case D2_FX_SIGMOID:
            r = un(c, "Sigmoid", a);
            break;
        case D2_FX_TANH:
            r = un(c, "Tanh", a);
            break;
        case D2_FX_SILU:
            r = bin(c, "Mul", a, un(c, "Sigmoid", a));
            break;
        case D2_FX_GELU:
        case D2_FX_GELU_TANH:
            r = a ? gelu_of(c, op, a, in->code == D2_FX_GELU_TANH) : NULL;
            break;
        case D2_FX_NEG:
            r = un(c, "Neg", a);
            break;
        case D2_FX_EXP:
            r = un(c, "Exp", a);
            break;
        case D2_FX_SQUARE:
            r = bin(c, "Mul", a, a);
            break;
        default:
            r = un(c, "Abs", a);
            break;
        }
        if (!r)
            return -1;
        st[sp - 1] = r;
    }
    return finish(c, op, st[0], in_dt(c, op, 0));
}

/* add_layer_norm: Add, then layer_norm's graph over the sum */
static int l_add_layer_norm(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *x = bin(c, "Add", ox_in(c, op, 0), ox_in(c, op, 1));
    if (!x)
        return -1;
    const d2_shape *s = &ox_in_type(c, op, 0)->shape;
    int r = s->ndim;
    int64_t b = A_INT(op, "begin_norm_axis");
    b = b < 0 ? b + r : b;
    int64_t ax[D2_MAX_DIMS], nshape[D2_MAX_DIMS];
    int na = 0;
    for (int64_t i = b; i < r; i++) {
        ax[na] = i;
        nshape[na++] = s->dims[i];
    }
    const char *mean = reduce(c, "ReduceMean", x, ax, na, true);
    const char *d = bin(c, "Sub", x, mean);
    const char *var = reduce(c, "ReduceMean", bin(c, "Mul", d, d), ax, na, true);
    const char *y = bin(c, "Div", d, un(c, "Sqrt", bin(c, "Add", var,
                                                     k(c, op, 0, A_FLOAT(op, "epsilon")))));
    for (int i = 2; i < 4; i++) {
        const char *p = ox_in(c, op, i);
        if (!p)
            continue;
        if (na > 1)
            p = bin(c, "Reshape", p, ox_const_i64(c, nshape, na, false));
        y = bin(c, i == 2 ? "Mul" : "Add", y, p);
    }
    return finish(c, op, y, in_dt(c, op, 0));
}

/* batch_norm_act: BatchNormalization, then Add of the residual and Relu */
static int l_batch_norm_act(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[5] = {ox_in(c, op, 0), ox_in(c, op, 3), ox_in(c, op, 4), ox_in(c, op, 1),
                          ox_in(c, op, 2)};
    Onnx__NodeProto *n;
    const char *o = ox_node1(c, type, ins, 5, &n);
    if (!o || ox_attr_float(c, n, "epsilon", A_FLOAT(op, "epsilon")) < 0)
        return -1;
    if (op->n_in > 5 && op->in[5] >= 0)
        o = bin(c, "Add", o, ox_in(c, op, 5));
    if (!strcmp(A_STR(op, "activation"), "relu"))
        o = un(c, "Relu", o);
    return finish(c, op, o, in_dt(c, op, 0));
}

static int l_embedding(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *w = ox_in(c, op, 1), *ids = ox_in(c, op, 0);
    int64_t pad = A_INT(op, "padding_idx");
    if (pad == -1)
        return node_out(c, op, type, (const char *[]){w, ids}, 2) ? 0 : -1;
    /* rows at padding_idx read as zeros */
    const d2_shape *ws = &ox_in_type(c, op, 1)->shape;
    if (pad < 0)
        pad += ws->dims[0];
    const char *g = bin(c, type, w, ids);
    const char *is_pad = bin(c, "Equal", ids, ox_const_scalar(c, in_dt(c, op, 0), (double)pad));
    int64_t last = in_rank(c, op, 0);
    const char *ins[3] = {unsqueeze(c, is_pad, &last, 1), ox_const_scalar(c, in_dt(c, op, 1), 0),
                          g};
    return ins[0] && ins[1] && node_out(c, op, "Where", ins, 3) ? 0 : -1;
}

static int l_topk(ox_ctx *c, const d2_op *op, const char *type)
{
    int64_t kv = A_INT(op, "k");
    const char *ins[2] = {ox_in(c, op, 0), ox_const_i64(c, &kv, 1, false)};
    const char *outs[2] = {ox_out(c, op, 0), ox_tmp(c)};
    Onnx__NodeProto *n = ins[1] && outs[0] ? ox_node(c, type, ins, 2, outs, 2) : NULL;
    if (!n || ox_attr_int(c, n, "axis", A_INT(op, "axis")) < 0 ||
        ox_attr_int(c, n, "largest", A_BOOL(op, "largest")) < 0 ||
        ox_attr_int(c, n, "sorted", A_BOOL(op, "sorted")) < 0)
        return -1;
    const char *o = ox_out(c, op, 1);
    d2_dtype dt = out_dt(c, op, 1);
    Onnx__NodeProto *m = o ? ox_node(c, dt == D2_I64 ? "Identity" : "Cast", &outs[1], 1, &o, 1)
                           : NULL;
    return m && (dt == D2_I64 || ox_attr_int(c, m, "to", ox_onnx_dtype(dt)) == 0) ? 0 : -1;
}

static int l_cumsum(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *x = ox_in(c, op, 0);
    int64_t axis = A_INT(op, "axis"), m1 = -1;
    if (A_BOOL(op, "flatten")) {
        x = bin(c, "Reshape", x, ox_const_i64(c, &m1, 1, false));
        axis = 0;
    }
    Onnx__NodeProto *n = node_out(c, op, type, (const char *[]){x, ox_const_i64(c, &axis, 1, true)}, 2);
    return n && ox_attr_int(c, n, "exclusive", A_BOOL(op, "exclusive")) == 0 &&
                   ox_attr_int(c, n, "reverse", A_BOOL(op, "reverse")) == 0
               ? 0 : -1;
}

/* tril / triu: Trilu from opset 14; before it, the [R, C] mask col - row <= diagonal (>= for
 * triu) applied with Where (And for bool) */
static int l_tril_triu(ox_ctx *c, const d2_op *op, const char *type)
{
    int64_t d = A_INT(op, "diagonal");
    bool lower = A_BOOL(op, "lower");
    if (c->opset >= 14) {
        Onnx__NodeProto *n = node_out(c, op, type,
                                      (const char *[]){ox_in(c, op, 0), ox_const_i64(c, &d, 1, true)}, 2);
        return n && ox_attr_int(c, n, "upper", !lower) == 0 ? 0 : -1;
    }
    const char *x = ox_in(c, op, 0), *sh = un(c, "Shape", x), *ar[2];
    d2_dtype dt = in_dt(c, op, 0);
    int64_t zero = 0, one = 1, a1 = 1;
    for (int i = 0; i < 2; i++) {
        int64_t st = i - 2, en = i == 0 ? -1 : INT64_MAX;
        const char *len = ox_node1(c, "Slice", (const char *[]){sh, ox_const_i64(c, &st, 1, false),
                                   ox_const_i64(c, &en, 1, false)}, 3, NULL);
        ar[i] = len ? ox_node1(c, "Range", (const char *[]){ox_const_i64(c, &zero, 1, true),
                               ox_to_scalar(c, len), ox_const_i64(c, &one, 1, true)}, 3, NULL) : NULL;
    }
    const char *off = bin(c, "Sub", ar[1], unsqueeze(c, ar[0], &a1, 1));
    const char *keep = bin(c, lower ? "LessOrEqual" : "GreaterOrEqual", off, ox_const_i64(c, &d, 1, true));
    if (dt == D2_BOOL)
        return finish(c, op, bin(c, "And", keep, x), dt);
    const char *o = keep ? ox_node1(c, "Where", (const char *[]){keep, x, ox_const_scalar(c, dt, 0)}, 3,
                                    NULL) : NULL;
    return finish(c, op, o, dt);
}

/* bitwise ops: And / Or / Xor / Not on bool; on integers the Bitwise* ops of opset 18, and
 * before it two's complement arithmetic: a & b from the bits (a mod 2, then (a - bit) / 2,
 * the top bit weighing -2^(w-1)); a | b = a + b - (a & b); a ^ b = a + b - 2 (a & b);
 * ~a = -a - 1 (all exact, wrapping like the integers) */
static int l_bitwise(ox_ctx *c, const d2_op *op, const char *type)
{
    d2_dtype dt = in_dt(c, op, 0);
    bool is_not = op->n_in == 1;
    if (dt == D2_BOOL) {
        const char *t = is_not ? "Not" : !strcmp(type, "BitwiseAnd") ? "And"
                                       : !strcmp(type, "BitwiseOr") ? "Or" : "Xor";
        return l_logical(c, op, t);
    }
    if (c->opset >= 18)
        return l_simple(c, op, type);
    const char *a = ox_in(c, op, 0), *one = ox_const_scalar(c, dt, 1);
    if (is_not)
        return finish(c, op, bin(c, "Sub", un(c, "Neg", a), one), dt);
    const char *b = ox_in(c, op, 1), *two = ox_const_scalar(c, dt, 2);
    int w = (int)d2_dtype_size(dt) * 8;
    const char *x = a, *y = b, *acc = NULL;
    for (int k = 0; k < w && x && y; k++) {
        const char *xb = bin(c, "Mod", x, two), *yb = bin(c, "Mod", y, two);
        double wt = k == w - 1 ? -ldexp(1.0, w - 1) : ldexp(1.0, k);
        const char *t = bin(c, "Mul", bin(c, "Mul", xb, yb), ox_const_scalar(c, dt, wt));
        acc = acc ? bin(c, "Add", acc, t) : t;
        if (k < w - 1) {
            x = bin(c, "Div", bin(c, "Sub", x, xb), two);
            y = bin(c, "Div", bin(c, "Sub", y, yb), two);
        }
    }
    const char *r;
    if (!strcmp(type, "BitwiseAnd"))
        r = acc;
    else if (!strcmp(type, "BitwiseOr"))
        r = bin(c, "Sub", bin(c, "Add", a, b), acc);
    else
        r = bin(c, "Sub", bin(c, "Add", a, b), bin(c, "Mul", acc, two));
    return finish(c, op, r, dt);
}

static int l_flip(ox_ctx *c, const d2_op *op, const char *type)
{
    int n;
    const int64_t *ax = A_INTS(op, "axis", &n);
    int64_t st[D2_MAX_DIMS], en[D2_MAX_DIMS], sp[D2_MAX_DIMS];
    for (int i = 0; i < n && i < D2_MAX_DIMS; i++) {
        st[i] = -1;
        en[i] = INT64_MIN;
        sp[i] = -1;
    }
    const char *ins[5] = {ox_in(c, op, 0), ox_const_i64(c, st, n, false),
                          ox_const_i64(c, en, n, false), ox_const_i64(c, ax, n, false),
                          ox_const_i64(c, sp, n, false)};
    return node_out(c, op, type, ins, 5) ? 0 : -1;
}

static int l_gather_nd(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *idx = ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), D2_I64);
    return node_out(c, op, type, (const char *[]){ox_in(c, op, 0), idx}, 2) ? 0 : -1;
}

/* put_along_axis with reduce add / mul: ScatterElements' reduction, from opset 16 */
static int need_put_along(const d2_program *p, const d2_op *op)
{
    (void)p;
    const char *red = A_STR(op, "reduce");
    return !strcmp(red, "add") || !strcmp(red, "mul") ? 16 : 13;
}

static int l_take_along(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *ins[3] = {ox_in(c, op, 0), ox_in(c, op, 1), ox_in(c, op, 2)};
    Onnx__NodeProto *n = node_out(c, op, type, ins, op->n_in);
    if (!n || ox_attr_int(c, n, "axis", A_INT(op, "axis")) < 0)
        return -1;
    if (op->n_in == 3) {
        const char *red = A_STR(op, "reduce");
        if (strcmp(red, "assign") && !A_BOOL(op, "include_self"))
            return ox_fail(c, op, D2_ERR_UNSUPPORTED, "reduce \"%s\" without include_self", red);
        if (!strcmp(red, "add") || !strcmp(red, "mul"))
            return ox_attr_str(c, n, "reduction", red);
        if (strcmp(red, "assign"))
            return ox_fail(c, op, D2_ERR_UNSUPPORTED, "reduce \"%s\"", red);
    }
    return 0;
}

/* scatter_nd_add: ScatterND with reduction add from opset 16; before it, for an x of static
 * shape, the [R, P] match of x's leading rows (R of them, K index dims) and the index rows,
 * times the updates as [P, inner] (MatMul), added to x */
/* scatter_nd_add before opset 16 needs an x of static shape and a static index depth */
static int need_scatter_nd_add(const d2_program *p, const d2_op *op)
{
    const d2_shape *xs = &p->vars[op->in[0]].type.shape, *is = &p->vars[op->in[1]].type.shape;
    int kk = is->ndim ? (int)is->dims[is->ndim - 1] : -1;
    return d2_shape_is_static(xs) && kk >= 1 && kk <= xs->ndim ? 13 : 16;
}

static int scatter_nd_add_13(ox_ctx *c, const d2_op *op)
{
    const d2_shape *xs = &ox_in_type(c, op, 0)->shape, *is = &ox_in_type(c, op, 1)->shape;
    int kk = is->ndim ? (int)is->dims[is->ndim - 1] : -1;
    if (need_scatter_nd_add(c->p, op) > c->opset)
        return ox_fail(c, op, D2_ERR_INVALID, "opset not checked");
    d2_dtype dt = in_dt(c, op, 0);
    int64_t rows = 1, inner = 1, zero = 0, one = 1, m1 = -1, a0 = 0, a1 = 1;
    for (int d = 0; d < xs->ndim; d++)
        *(d < kk ? &rows : &inner) *= xs->dims[d];
    const char *idx = ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), D2_I64), *lin = NULL;
    for (int j = 0; j < kk && idx; j++) {
        int64_t jj = j, dim = xs->dims[j];
        Onnx__NodeProto *n;
        const char *v = ox_node1(c, "Gather", (const char *[]){idx, ox_const_i64(c, &jj, 1, true)}, 2, &n);
        if (!v || ox_attr_int(c, n, "axis", -1) < 0)
            return -1;
        const char *dc = ox_const_i64(c, &dim, 1, true);
        const char *neg = bin(c, "Less", v, ox_const_i64(c, &zero, 1, true));
        v = neg ? ox_node1(c, "Where", (const char *[]){neg, bin(c, "Add", v, dc), v}, 3, NULL) : NULL;
        lin = lin ? bin(c, "Add", bin(c, "Mul", lin, dc), v) : v;
    }
    lin = bin(c, "Reshape", lin, ox_const_i64(c, &m1, 1, false));
    const char *ar = ox_node1(c, "Range", (const char *[]){ox_const_i64(c, &zero, 1, true),
                              ox_const_i64(c, &rows, 1, true), ox_const_i64(c, &one, 1, true)}, 3, NULL);
    const char *match = bin(c, "Equal", unsqueeze(c, ar, &a1, 1), unsqueeze(c, lin, &a0, 1));
    d2_dtype mt = dt == D2_BOOL ? D2_F32 : dt;
    const char *u = bin(c, "Reshape", ox_cast(c, ox_in(c, op, 2), in_dt(c, op, 2), mt),
                        ox_const_i64(c, (const int64_t[]){-1, inner}, 2, false));
    const char *sum = bin(c, "MatMul", ox_cast(c, match, D2_BOOL, mt), u);
    sum = bin(c, "Reshape", sum, ox_const_i64(c, xs->dims, xs->ndim, false));
    return finish(c, op, ox_cast(c, bin(c, "Add", ox_cast(c, ox_in(c, op, 0), dt, mt), sum), mt, dt), dt);
}

static int l_scatter_nd_add(ox_ctx *c, const d2_op *op, const char *type)
{
    if (c->opset < 16)
        return scatter_nd_add_13(c, op);
    const char *idx = ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), D2_I64);
    Onnx__NodeProto *n = node_out(c, op, type, (const char *[]){ox_in(c, op, 0), idx, ox_in(c, op, 2)}, 3);
    return n && ox_attr_str(c, n, "reduction", "add") == 0 ? 0 : -1;
}

/* ---- ops along one axis, written as pairwise comparisons over that axis ----------------
 * The axis is swapped to the end; a [L, L] mask of (i, j) pairs (j the axis position that
 * feeds output position i) selects the values each output reduces over. Quadratic in the
 * axis length, but exact: no logarithms, no unstable TopK. */

typedef struct axis_pairs {
    const char *x;      /* the input, axis last */
    const char *ar;     /* Range(0, L), int64 [L] */
    const char *ii;     /* ar as [L, 1] (the output position i) */
    int64_t perm[D2_MAX_DIMS];
    int r;              /* rank of x */
    bool swapped;
} axis_pairs;

/* Prepares x (input 0 of op) with axis `axis` last; flatten: x as 1-D first. */
static int pairs_prepare(ox_ctx *c, const d2_op *op, int64_t axis, bool flatten, axis_pairs *q)
{
    const char *x = ox_in(c, op, 0);
    int r = in_rank(c, op, 0);
    int64_t m1 = -1, zero = 0, one = 1, ax1 = 1;
    if (flatten || r == 0) {
        x = bin(c, "Reshape", x, ox_const_i64(c, &m1, 1, false));
        r = 1;
        axis = 0;
    }
    if (axis < 0)
        axis += r;
    q->r = r;
    q->swapped = axis != r - 1;
    for (int i = 0; i < r; i++)
        q->perm[i] = i;
    q->perm[axis] = r - 1;
    q->perm[r - 1] = axis;
    q->x = q->swapped ? transpose(c, x, q->perm, r) : x;
    int64_t st = -1, en = INT64_MAX;
    const char *len = q->x ? ox_node1(c, "Slice", (const char *[]){un(c, "Shape", q->x),
                                      ox_const_i64(c, &st, 1, false), ox_const_i64(c, &en, 1, false)},
                                      3, NULL) : NULL;
    const char *ls = len ? ox_to_scalar(c, len) : NULL;
    q->ar = ls ? ox_node1(c, "Range", (const char *[]){ox_const_i64(c, &zero, 1, true), ls,
                          ox_const_i64(c, &one, 1, true)}, 3, NULL) : NULL;
    q->ii = q->ar ? unsqueeze(c, q->ar, &ax1, 1) : NULL;
    return q->ii ? 0 : -1;
}

/* y (axis last) with the axis back in place */
static const char *pairs_back(ox_ctx *c, const axis_pairs *q, const char *y)
{
    return q->swapped && y ? transpose(c, y, q->perm, q->r) : y;
}

/* x as [..., 1, L] (position j along the last axis) */
static const char *pairs_xj(ox_ctx *c, const axis_pairs *q)
{
    int64_t a = -2;
    return unsqueeze(c, q->x, &a, 1);
}

/* the [L, L] mask of the j that feed output i: j <= i (j < i exclusive); reversed: j >= i */
static const char *pairs_mask(ox_ctx *c, const axis_pairs *q, bool exclusive, bool reverse)
{
    const char *t = reverse ? (exclusive ? "Greater" : "GreaterOrEqual")
                            : (exclusive ? "Less" : "LessOrEqual");
    return bin(c, t, q->ar, q->ii);
}

static const char *reduce_last(ox_ctx *c, const char *type, const char *x)
{
    int64_t a = -1;
    return reduce(c, type, x, &a, 1, false);
}

/* the output's dtype and rank restored (flatten of a 0-D input gives [1]) */
static int pairs_finish(ox_ctx *c, const d2_op *op, int i, const char *y, d2_dtype dt)
{
    if (y && ox_vtype(c, op->out[i])->shape.ndim == 0)
        y = ox_to_scalar(c, y);
    if (!y)
        return -1;
    d2_dtype want = out_dt(c, op, i);
    const char *o = ox_out(c, op, i);
    Onnx__NodeProto *n = o ? ox_node(c, dt == want ? "Identity" : "Cast", &y, 1, &o, 1) : NULL;
    return n && (dt == want || ox_attr_int(c, n, "to", ox_onnx_dtype(want)) == 0) ? 0 : -1;
}

/* cumprod: the product of the masked values (1 elsewhere); logcumsumexp: the stable
 * max + log(sum(exp(x - max))) of the masked values (-inf elsewhere; an all -inf line, as the
 * first of an exclusive one, gives -inf) */
static int l_cum_masked(ox_ctx *c, const d2_op *op, const char *type)
{
    axis_pairs q;
    if (pairs_prepare(c, op, A_INT(op, "axis"), A_BOOL(op, "flatten"), &q) < 0)
        return -1;
    d2_dtype dt = in_dt(c, op, 0);
    const char *mask = pairs_mask(c, &q, A_BOOL(op, "exclusive"), A_BOOL(op, "reverse"));
    bool lse = !strcmp(type, "ReduceLogSumExp");
    const char *fill = ox_const_scalar(c, dt, lse ? -INFINITY : 1.0);
    const char *sel = mask && fill ? ox_node1(c, "Where", (const char *[]){mask, pairs_xj(c, &q), fill},
                                             3, NULL) : NULL;
    const char *y;
    if (!lse) {
        y = reduce_last(c, "ReduceProd", sel);
    } else {
        int64_t a = -1;
        const char *m = sel ? reduce(c, "ReduceMax", sel, &a, 1, true) : NULL;
        const char *zero = ox_const_scalar(c, dt, 0);
        const char *ms = m && zero ? ox_node1(c, "Where", (const char *[]){un(c, "IsInf", m), zero, m},
                                              3, NULL) : NULL;
        const char *s = reduce_last(c, "ReduceSum", un(c, "Exp", bin(c, "Sub", sel, ms)));
        y = bin(c, "Add", un(c, "Log", s), ms ? reduce_last(c, "ReduceMax", ms) : NULL);
    }
    return pairs_finish(c, op, 0, pairs_back(c, &q, y), dt);
}

/* cummax / cummin as the kernel defines them: the last index of the extreme value so far;
 * once a NaN is seen the value is NaN and the index that of the last NaN */
static int l_cum_extreme(ox_ctx *c, const d2_op *op, const char *type)
{
    axis_pairs q;
    if (pairs_prepare(c, op, A_INT(op, "axis"), A_BOOL(op, "flatten"), &q) < 0)
        return -1;
    d2_dtype dt = in_dt(c, op, 0);
    bool fl = d2_dtype_is_float(dt);
    bool is_max = !strcmp(type, "ReduceMax");
    const char *mask = pairs_mask(c, &q, false, false);
    const char *x = q.x, *nan = NULL;
    if (fl) {
        nan = un(c, "IsNaN", x);
        x = ox_node1(c, "Where", (const char *[]){nan, ox_const_scalar(c, dt, is_max ? -INFINITY
                                                                              : INFINITY), x},
                     3, NULL);
    }
    int64_t am2 = -2, am1 = -1;
    const char *xj = unsqueeze(c, x, &am2, 1), *xi = unsqueeze(c, x, &am1, 1);
    /* x_i is among the j <= i, so it stands in for the masked-out j */
    const char *sel = mask && xj && xi ? ox_node1(c, "Where", (const char *[]){mask, xj, xi}, 3, NULL)
                                       : NULL;
    const char *m = sel ? reduce(c, type, sel, &am1, 1, true) : NULL;
    const char *hit = bin(c, "And", mask, bin(c, "Equal", xj, m));
    if (fl) {
        const char *nj = unsqueeze(c, nan, &am2, 1);
        const char *seen = bin(c, "And", mask, nj);
        const char *any = seen ? reduce(c, "ReduceMax", ox_cast(c, seen, D2_BOOL, D2_F32), &am1, 1, true)
                               : NULL;
        any = ox_cast(c, any, D2_F32, D2_BOOL);
        hit = bin(c, "Or", bin(c, "And", any, seen), bin(c, "And", un(c, "Not", any), hit));
    }
    Onnx__NodeProto *n;
    const char *hf = ox_cast(c, hit, D2_BOOL, D2_F32);
    const char *idx = hf ? ox_node1(c, "ArgMax", &hf, 1, &n) : NULL;
    if (!idx || ox_attr_int(c, n, "axis", -1) < 0 || ox_attr_int(c, n, "keepdims", 0) < 0 ||
        ox_attr_int(c, n, "select_last_index", 1) < 0)
        return -1;
    const char *val = ox_node1(c, "GatherElements", (const char *[]){q.x, idx}, 2, &n);
    if (!val || ox_attr_int(c, n, "axis", -1) < 0)
        return -1;
    if (pairs_finish(c, op, 0, pairs_back(c, &q, val), dt) < 0)
        return -1;
    return pairs_finish(c, op, 1, pairs_back(c, &q, idx), D2_I64);
}

/* a < b in the kernel's order: NaN above every number (desc: the reverse) */
static const char *sort_less(ox_ctx *c, const char *a, const char *b, bool fl, bool desc)
{
    if (desc) {
        const char *t = a;
        a = b;
        b = t;
    }
    const char *lt = bin(c, "Less", a, b);
    if (!fl)
        return lt;
    return bin(c, "Or", lt, bin(c, "And", un(c, "Not", un(c, "IsNaN", a)), un(c, "IsNaN", b)));
}

static const char *sort_equal(ox_ctx *c, const char *a, const char *b, bool fl)
{
    const char *eq = bin(c, "Equal", a, b);
    return fl ? bin(c, "Or", eq, bin(c, "And", un(c, "IsNaN", a), un(c, "IsNaN", b))) : eq;
}

/* argsort, stable like the kernel's merge sort: the rank of x_i is the count of x_j before
 * it (less, or equal with j < i); the ranks are a permutation, whose inverse (ScatterElements)
 * are the indices */
static int l_argsort(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    axis_pairs q;
    if (pairs_prepare(c, op, A_INT(op, "axis"), false, &q) < 0)
        return -1;
    d2_dtype dt = in_dt(c, op, 0);
    bool fl = d2_dtype_is_float(dt), desc = A_BOOL(op, "descending");
    int64_t am1 = -1;
    const char *xj = pairs_xj(c, &q), *xi = unsqueeze(c, q.x, &am1, 1);
    const char *before = bin(c, "Or", sort_less(c, xj, xi, fl, desc),
                             bin(c, "And", sort_equal(c, xj, xi, fl), bin(c, "Less", q.ar, q.ii)));
    const char *rank = reduce_last(c, "ReduceSum", ox_cast(c, before, D2_BOOL, D2_I64));
    const char *pos = rank ? bin(c, "Expand", q.ar, un(c, "Shape", rank)) : NULL;
    Onnx__NodeProto *n;
    const char *idx = pos ? ox_node1(c, "ScatterElements", (const char *[]){rank, rank, pos}, 3, &n)
                          : NULL;
    if (!idx || ox_attr_int(c, n, "axis", -1) < 0)
        return -1;
    const char *val = ox_node1(c, "GatherElements", (const char *[]){q.x, idx}, 2, &n);
    if (!val || ox_attr_int(c, n, "axis", -1) < 0)
        return -1;
    if (pairs_finish(c, op, 0, pairs_back(c, &q, val), dt) < 0)
        return -1;
    return pairs_finish(c, op, 1, pairs_back(c, &q, idx), D2_I64);
}

/* roll: per axis, Concat(x[n - s:], x[:n - s]) with s = shift mod n (n read at run time);
 * no axis: the flattened input rolled and reshaped back */
static int l_roll(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    int ns, na;
    const int64_t *shifts = A_INTS(op, "shifts", &ns);
    const int64_t *axes = A_INTS(op, "axis", &na);
    const char *x = ox_in(c, op, 0), *shape = NULL;
    int r = in_rank(c, op, 0);
    int64_t flat_axis = 0, m1 = -1, one = 1, big = INT64_MAX, zero = 0;
    if (na == 0) {
        if (ns < 1)
            return ox_fail(c, op, D2_ERR_INVALID, "no shifts");
        shape = un(c, "Shape", x);
        x = bin(c, "Reshape", x, ox_const_i64(c, &m1, 1, false));
        axes = &flat_axis;
        na = 1;
        r = 1;
    } else if (ns != na) {
        return ox_fail(c, op, D2_ERR_INVALID, "%d shifts for %d axes", ns, na);
    }
    for (int i = 0; i < na && x; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + r : axes[i], a1 = a + 1;
        const char *n = ox_node1(c, "Slice", (const char *[]){un(c, "Shape", x),
                                 ox_const_i64(c, &a, 1, false), ox_const_i64(c, &a1, 1, false)}, 3,
                                 NULL);
        n = bin(c, "Max", n, ox_const_i64(c, &one, 1, false)); /* an empty axis rolls by 0 */
        const char *s = bin(c, "Mod", ox_const_i64(c, &shifts[i], 1, false), n);
        const char *cut = bin(c, "Sub", n, s);
        const char *axc = ox_const_i64(c, &a, 1, false);
        const char *hi = ox_node1(c, "Slice", (const char *[]){x, cut, ox_const_i64(c, &big, 1, false),
                                  axc}, 4, NULL);
        const char *lo = ox_node1(c, "Slice", (const char *[]){x, ox_const_i64(c, &zero, 1, false),
                                  cut, axc}, 4, NULL);
        Onnx__NodeProto *nd;
        x = hi && lo ? ox_node1(c, "Concat", (const char *[]){hi, lo}, 2, &nd) : NULL;
        if (!x || ox_attr_int(c, nd, "axis", a) < 0)
            return -1;
    }
    if (shape)
        x = bin(c, "Reshape", x, shape);
    return finish(c, op, x, in_dt(c, op, 0));
}

/* scatter along axis 0 with the kernel's semantics: overwrite, the last update of a row
 * wins; accumulate, the rows indexed are zeroed and every update added. Written with the
 * [N, M] match of rows and index entries, so repeated indices are exact. */
static int l_scatter(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    const char *x = ox_in(c, op, 0), *upd = ox_in(c, op, 2);
    d2_dtype dt = in_dt(c, op, 0);
    int r = in_rank(c, op, 0);
    int64_t zero = 0, one = 1, m1 = -1, a0 = 0, a1 = 1;
    const char *idx = ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), D2_I64);
    idx = bin(c, "Reshape", idx, ox_const_i64(c, &m1, 1, false));
    const char *n = ox_node1(c, "Slice", (const char *[]){un(c, "Shape", x), ox_const_i64(c, &a0, 1, false),
                             ox_const_i64(c, &a1, 1, false)}, 3, NULL);
    const char *neg = bin(c, "Less", idx, ox_const_i64(c, &zero, 1, true));
    idx = neg ? ox_node1(c, "Where", (const char *[]){neg, bin(c, "Add", idx, n), idx}, 3, NULL) : NULL;
    const char *rows = n ? ox_node1(c, "Range", (const char *[]){ox_const_i64(c, &zero, 1, true),
                                    ox_to_scalar(c, n), ox_const_i64(c, &one, 1, true)}, 3, NULL)
                         : NULL;
    const char *match = bin(c, "Equal", unsqueeze(c, rows, &a1, 1), unsqueeze(c, idx, &a0, 1));
    const char *mf = ox_cast(c, match, D2_BOOL, D2_F32);
    const char *has = mf ? ox_cast(c, reduce_last(c, "ReduceMax", mf), D2_F32, D2_BOOL) : NULL;
    int64_t rest[D2_MAX_DIMS];
    for (int i = 1; i < r; i++)
        rest[i - 1] = i;
    if (r > 1)
        has = unsqueeze(c, has, rest, r - 1);
    const char *val;
    if (A_BOOL(op, "overwrite")) {
        Onnx__NodeProto *nd;
        const char *last = mf ? ox_node1(c, "ArgMax", &mf, 1, &nd) : NULL;
        if (!last || ox_attr_int(c, nd, "axis", 1) < 0 || ox_attr_int(c, nd, "keepdims", 0) < 0 ||
            ox_attr_int(c, nd, "select_last_index", 1) < 0)
            return -1;
        val = ox_node1(c, "Gather", (const char *[]){upd, last}, 2, NULL);
    } else {
        d2_dtype mt = dt == D2_F64 || dt == D2_I64 || dt == D2_I32 ? dt : D2_F32;
        const char *u2 = bin(c, "Reshape", ox_cast(c, upd, in_dt(c, op, 2), mt),
                             ox_const_i64(c, (const int64_t[]){0, -1}, 2, false));
        const char *sum = bin(c, "MatMul", ox_cast(c, match, D2_BOOL, mt), u2);
        sum = bin(c, "Reshape", sum, un(c, "Shape", x));
        val = ox_cast(c, sum, mt, dt);
    }
    const char *o = val && has ? ox_node1(c, "Where", (const char *[]){has, val, x}, 3, NULL) : NULL;
    return finish(c, op, o, dt);
}

/* gcd by Euclid's algorithm on |x|, |y|, unrolled: Lame's bound (the step count of the
 * Fibonacci worst case) for the dtype's width; a step with b = 0 keeps (a, 0). lcm:
 * |x| / gcd * |y|, 0 when gcd is 0. */
static int l_gcd_lcm(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    d2_dtype dt = out_dt(c, op, 0);
    if (d2_dtype_is_float(dt) || dt == D2_BOOL)
        return ox_fail(c, op, D2_ERR_DTYPE, "%s of %s", d2_op_def(op->id)->name, d2_dtype_name(dt));
    const char *x = un(c, "Abs", ox_cast(c, ox_in(c, op, 0), in_dt(c, op, 0), dt));
    const char *y = un(c, "Abs", ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), dt));
    /* broadcast both to the output shape */
    const char *zero = ox_const_scalar(c, dt, 0), *one = ox_const_scalar(c, dt, 1);
    const char *a = bin(c, "Add", x, bin(c, "Mul", y, zero));
    const char *b = bin(c, "Add", y, bin(c, "Mul", x, zero));
    size_t w = d2_dtype_size(dt);
    int steps = w == 1 ? 13 : w == 2 ? 25 : w == 4 ? 48 : 94;
    for (int i = 0; i < steps && a && b; i++) {
        const char *bz = bin(c, "Equal", b, zero);
        const char *bs = bz ? ox_node1(c, "Where", (const char *[]){bz, one, b}, 3, NULL) : NULL;
        const char *rm = bin(c, "Mod", a, bs);
        const char *na = bs ? ox_node1(c, "Where", (const char *[]){bz, a, b}, 3, NULL) : NULL;
        b = rm ? ox_node1(c, "Where", (const char *[]){bz, zero, rm}, 3, NULL) : NULL;
        a = na;
    }
    if (!strcmp(d2_op_def(op->id)->name, "lcm") && a) {
        const char *gz = bin(c, "Equal", a, zero);
        const char *gs = gz ? ox_node1(c, "Where", (const char *[]){gz, one, a}, 3, NULL) : NULL;
        const char *l = bin(c, "Mul", bin(c, "Div", x, gs), y);
        a = l ? ox_node1(c, "Where", (const char *[]){gz, zero, l}, 3, NULL) : NULL;
    }
    return finish(c, op, a, dt);
}

/* ---- special functions, computed in float64 as the kernels do ---------------------------- */

static const char *f64(ox_ctx *c, double v) { return ox_const_scalar(c, D2_F64, v); }

static const char *where3(ox_ctx *c, const char *cond, const char *a, const char *b)
{
    return cond && a && b ? ox_node1(c, "Where", (const char *[]){cond, a, b}, 3, NULL) : NULL;
}

/* sin(pi x) in float64 (ONNX Runtime's Sin has no float64 kernel): x reduced exactly to
 * w in [-1/2, 1/2] with sin(pi x) = +-sin(pi w), then the Taylor series to w^23 (error below
 * 1e-17) */
static const char *sinpi(ox_ctx *c, const char *x)
{
    const char *u = bin(c, "Sub", x, bin(c, "Mul", f64(c, 2), un(c, "Floor", bin(c, "Mul", x, f64(c, 0.5)))));
    const char *w = bin(c, "Sub", f64(c, 1), u); /* in (-1, 1]: sin(pi u) = sin(pi w) */
    const char *hi = bin(c, "Greater", w, f64(c, 0.5)), *lo = bin(c, "Less", w, f64(c, -0.5));
    w = where3(c, hi, bin(c, "Sub", f64(c, 1), w), where3(c, lo, bin(c, "Sub", f64(c, -1), w), w));
    const char *th = bin(c, "Mul", w, f64(c, M_PI)), *t2 = bin(c, "Mul", th, th);
    /* th (1 - t2/(2*3) (1 - t2/(4*5) (1 - ...))) */
    const char *p = f64(c, 1);
    for (int k = 22; k >= 2; k -= 2)
        p = bin(c, "Sub", f64(c, 1), bin(c, "Mul", bin(c, "Div", t2, f64(c, (double)k * (k + 1))), p));
    return bin(c, "Mul", th, p);
}

/* x <= 0 and whole (the poles of lgamma and digamma; -inf included) */
static const char *nonpos_int(ox_ctx *c, const char *x)
{
    return bin(c, "And", bin(c, "LessOrEqual", x, f64(c, 0)), bin(c, "Equal", x, un(c, "Floor", x)));
}

/* lgamma: Lanczos' approximation (g = 7, 9 terms, relative error near 1e-15) for x >= 0.5,
 * the reflection log(pi / |sin(pi x)|) - lgamma(1 - x) below; +inf at the poles and at
 * +-inf, like libm's lgamma that the kernel calls */
static int l_lgamma(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    static const double cf[9] = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
                                 771.32342877765313, -176.61502916214059, 12.507343278686905,
                                 -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
    d2_dtype dt = in_dt(c, op, 0);
    const char *x = ox_cast(c, ox_in(c, op, 0), dt, D2_F64);
    const char *refl = bin(c, "Less", x, f64(c, 0.5));
    const char *y = where3(c, refl, bin(c, "Sub", f64(c, 1), x), x);
    const char *z = bin(c, "Sub", y, f64(c, 1));
    const char *a = f64(c, cf[0]);
    for (int i = 1; i < 9; i++)
        a = bin(c, "Add", a, bin(c, "Div", f64(c, cf[i]), bin(c, "Add", z, f64(c, i))));
    const char *t = bin(c, "Add", z, f64(c, 7.5));
    const char *lg = bin(c, "Add", bin(c, "Sub", bin(c, "Mul", bin(c, "Add", z, f64(c, 0.5)), un(c, "Log", t)), t),
                         bin(c, "Add", un(c, "Log", a), f64(c, 0.5 * log(2 * M_PI))));
    const char *s = un(c, "Abs", sinpi(c, x));
    const char *lr = bin(c, "Sub", bin(c, "Sub", f64(c, log(M_PI)), un(c, "Log", s)), lg);
    const char *r = where3(c, refl, lr, lg);
    const char *inf = bin(c, "Or", nonpos_int(c, x), un(c, "IsInf", x));
    r = where3(c, inf, f64(c, INFINITY), r);
    return finish(c, op, ox_cast(c, r, D2_F64, dt), dt);
}

/* digamma as the kernel computes it: the reflection -pi / tan(pi x) for x <= 0, the
 * recurrence up to x >= 10 (at most 10 steps from x > 0), then the asymptotic series;
 * NaN at the poles and -inf, +inf at +inf */
static int l_digamma(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    d2_dtype dt = in_dt(c, op, 0);
    const char *x0 = ox_cast(c, ox_in(c, op, 0), dt, D2_F64);
    const char *neg = bin(c, "LessOrEqual", x0, f64(c, 0));
    const char *cot = bin(c, "Div", sinpi(c, bin(c, "Add", x0, f64(c, 0.5))), sinpi(c, x0));
    const char *r = where3(c, neg, bin(c, "Mul", f64(c, -M_PI), cot), f64(c, 0));
    const char *x = where3(c, neg, bin(c, "Sub", f64(c, 1), x0), x0);
    for (int i = 0; i < 10 && x && r; i++) {
        const char *lt = bin(c, "Less", x, f64(c, 10));
        r = where3(c, lt, bin(c, "Sub", r, un(c, "Reciprocal", x)), r);
        x = where3(c, lt, bin(c, "Add", x, f64(c, 1)), x);
    }
    const char *f = un(c, "Reciprocal", bin(c, "Mul", x, x));
    static const double cs[5] = {-1.0 / 132, 1.0 / 240, -1.0 / 252, 1.0 / 120, -1.0 / 12};
    const char *t = f64(c, cs[0]);
    for (int i = 1; i < 5; i++)
        t = bin(c, "Add", f64(c, cs[i]), bin(c, "Mul", f, t));
    t = bin(c, "Mul", f, t);
    const char *o = bin(c, "Add", bin(c, "Sub", bin(c, "Add", r, un(c, "Log", x)),
                                      bin(c, "Div", f64(c, 0.5), x)), t);
    o = where3(c, nonpos_int(c, x0), f64(c, NAN), o);
    o = where3(c, bin(c, "Equal", x0, f64(c, INFINITY)), f64(c, INFINITY), o);
    return finish(c, op, ox_cast(c, o, D2_F64, dt), dt);
}

/* erfinv of float32: the kernel's first guess (Giles' rational approximation, in float64),
 * which is within 1.3e-7 relative of its Newton-refined value for every float32 input; the
 * kernel's Newton steps need erf in float64, which ONNX Runtime lacks, so float64 is
 * refused. +-inf for |y| >= 1, NaN for NaN, as the kernel. */
static int l_erfinv(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    static const double pa[9] = {2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                                 -4.39150654e-06, 0.00021858087, -0.00125372503,
                                 -0.00417768164, 0.246640727, 1.50140941};
    static const double pb[9] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                 -0.00367342844, 0.00573950773, -0.0076224613,
                                 0.00943887047, 1.00167406, 2.83297682};
    d2_dtype dt = in_dt(c, op, 0);
    if (dt != D2_F32)
        return ox_fail(c, op, D2_ERR_UNSUPPORTED,
                       "erfinv of %s: exact only for float32 (ONNX Runtime has no float64 Erf "
                       "for the Newton steps that reach float64 precision)", d2_dtype_name(dt));
    const char *y = ox_cast(c, ox_in(c, op, 0), dt, D2_F64);
    const char *w = un(c, "Neg", un(c, "Log", bin(c, "Mul", bin(c, "Sub", f64(c, 1), y),
                                                  bin(c, "Add", f64(c, 1), y))));
    const char *a = bin(c, "Sub", w, f64(c, 2.5)), *b = bin(c, "Sub", un(c, "Sqrt", w), f64(c, 3));
    const char *p = f64(c, pa[0]), *q = f64(c, pb[0]);
    for (int i = 1; i < 9; i++) {
        p = bin(c, "Add", f64(c, pa[i]), bin(c, "Mul", p, a));
        q = bin(c, "Add", f64(c, pb[i]), bin(c, "Mul", q, b));
    }
    const char *x = bin(c, "Mul", where3(c, bin(c, "Less", w, f64(c, 5)), p, q), y);
    x = where3(c, bin(c, "GreaterOrEqual", y, f64(c, 1)), f64(c, INFINITY),
               where3(c, bin(c, "LessOrEqual", y, f64(c, -1)), f64(c, -INFINITY), x));
    return finish(c, op, ox_cast(c, x, D2_F64, dt), dt);
}

/* x[key] = value over a slice of an x of static shape: ScatterND with the region's indices
 * (a constant) and value broadcast to the region */
static int l_set_value(ox_ctx *c, const d2_op *op, const char *type)
{
    const d2_shape *xs = &ox_in_type(c, op, 0)->shape;
    if (!d2_shape_is_static(xs))
        return ox_fail(c, op, D2_ERR_UNSUPPORTED,
                       "a slice assignment is exported for inputs of static shape only");
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS];
    d2_shape full, region;
    if (d2_slice_plan(d2_op_def(op->id), &op->attrs, xs, start, step, &full, &region, c->err) < 0)
        return -1;
    int64_t n = d2_shape_numel(&full);
    int r = xs->ndim;
    const char *x = ox_in(c, op, 0);
    if (n == 0)
        return finish(c, op, x, in_dt(c, op, 0));
    if (n > (1 << 20))
        return ox_fail(c, op, D2_ERR_UNSUPPORTED, "the assigned region has more than 2^20 elements");
    int64_t *idx = ox_alloc(c, (size_t)(n * r) * sizeof *idx);
    if (!idx)
        return -1;
    for (int64_t e = 0; e < n; e++) {
        int64_t rest = e;
        for (int d = r - 1; d >= 0; d--) {
            int64_t i = rest % full.dims[d];
            rest /= full.dims[d];
            idx[e * r + d] = start[d] + i * step[d];
        }
    }
    int64_t dims[D2_MAX_DIMS + 1];
    memcpy(dims, full.dims, (size_t)r * sizeof *dims);
    dims[r] = r;
    Onnx__NodeProto *cn;
    const char *ind = ox_node1(c, "Constant", NULL, 0, &cn);
    if (!ind || ox_attr_tensor(c, cn, "value", ox_tensor(c, D2_I64, r + 1, dims, idx,
                                                         (size_t)(n * r) * sizeof *idx)) < 0)
        return -1;
    const char *v = ox_cast(c, ox_in(c, op, 1), in_dt(c, op, 1), in_dt(c, op, 0));
    v = bin(c, "Expand", v, ox_const_i64(c, region.dims, region.ndim, false));
    v = bin(c, "Reshape", v, ox_const_i64(c, full.dims, r, false));
    return v && node_out(c, op, type, (const char *[]){x, ind, v}, 3) ? 0 : -1;
}

/* ---- x[i0, i1, ...] with int index tensors on axes axis.. (index_get / index_put) ----
 * The index tensors broadcast to B and stack into GatherND / ScatterND indices B + [n]; x is
 * transposed so that the indexed axes lead. */

static const char *transpose(ox_ctx *c, const char *x, const int64_t *perm, int r)
{
    bool id = true;
    for (int i = 0; i < r; i++)
        id = id && perm[i] == i;
    if (id)
        return x;
    Onnx__NodeProto *n;
    const char *o = ox_node1(c, "Transpose", &x, 1, &n);
    return o && ox_attr_ints(c, n, "perm", perm, r) == 0 ? o : NULL;
}

typedef struct nd_index {
    const char *xt;       /* x with the indexed axes first */
    const char *ind;      /* int64 indices, B + [n] */
    int r, n, axis, br;   /* rank of x, index tensors, first axis, rank of B */
    int64_t perm[D2_MAX_DIMS];
} nd_index;

static int nd_prepare(ox_ctx *c, const d2_op *op, int first, nd_index *q)
{
    q->r = in_rank(c, op, 0);
    q->n = op->n_in - first;
    q->axis = (int)A_INT(op, "axis");
    q->br = 0;
    if (q->n < 1 || q->axis < 0 || q->axis + q->n > q->r)
        return ox_fail(c, op, D2_ERR_INVALID, "bad index tensors");
    const char *idx[D2_MAX_DIMS], *z = NULL;
    const char *zero = ox_const_scalar(c, D2_I64, 0);
    for (int i = 0; i < q->n; i++) {
        idx[i] = ox_cast(c, ox_in(c, op, first + i), in_dt(c, op, first + i), D2_I64);
        int ri = in_rank(c, op, first + i);
        q->br = ri > q->br ? ri : q->br;
        const char *zi = bin(c, "Mul", idx[i], zero);
        z = z ? bin(c, "Add", z, zi) : zi;
    }
    int64_t last = q->br;
    for (int i = 0; i < q->n; i++)
        if (!(idx[i] = unsqueeze(c, bin(c, "Add", idx[i], z), &last, 1)))
            return -1;
    Onnx__NodeProto *cn;
    q->ind = ox_node1(c, "Concat", idx, q->n, &cn);
    if (!q->ind || ox_attr_int(c, cn, "axis", q->br) < 0)
        return -1;
    int k = 0;
    for (int d = q->axis; d < q->axis + q->n; d++)
        q->perm[k++] = d;
    for (int d = 0; d < q->axis; d++)
        q->perm[k++] = d;
    for (int d = q->axis + q->n; d < q->r; d++)
        q->perm[k++] = d;
    q->xt = transpose(c, ox_in(c, op, 0), q->perm, q->r);
    return q->xt ? 0 : -1;
}

/* GatherND's result (B, x[:axis], rest) in the order of the region (x[:axis], B, rest) */
static const char *nd_gather(ox_ctx *c, const nd_index *q)
{
    const char *g = bin(c, "GatherND", q->xt, q->ind);
    int64_t perm[D2_MAX_DIMS];
    int rr = q->r - q->n + q->br, k = 0;
    for (int d = q->br; d < q->br + q->axis; d++)
        perm[k++] = d;
    for (int d = 0; d < q->br; d++)
        perm[k++] = d;
    for (int d = q->br + q->axis; d < rr; d++)
        perm[k++] = d;
    return g ? transpose(c, g, perm, rr) : NULL;
}

static int l_index_get(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    nd_index q;
    if (nd_prepare(c, op, 1, &q) < 0)
        return -1;
    return finish(c, op, nd_gather(c, &q), in_dt(c, op, 0));
}

static int l_index_put(ox_ctx *c, const d2_op *op, const char *type)
{
    nd_index q;
    if (nd_prepare(c, op, 2, &q) < 0)
        return -1;
    /* value broadcast to the region, then laid out as GatherND's result */
    const char *g = nd_gather(c, &q);
    const char *upd = bin(c, "Expand", ox_in(c, op, 1), un(c, "Shape", g));
    int64_t perm[D2_MAX_DIMS], inv[D2_MAX_DIMS];
    int rr = q.r - q.n + q.br, k = 0;
    for (int d = q.axis; d < q.axis + q.br; d++)
        perm[k++] = d;
    for (int d = 0; d < q.axis; d++)
        perm[k++] = d;
    for (int d = q.axis + q.br; d < rr; d++)
        perm[k++] = d;
    upd = upd ? transpose(c, upd, perm, rr) : NULL;
    Onnx__NodeProto *n;
    const char *o = upd ? ox_node1(c, type, (const char *[]){q.xt, q.ind, upd}, 3, &n) : NULL;
    if (!o)
        return -1;
    if (A_BOOL(op, "accumulate")) {
        if (c->opset < 16)
            return ox_fail(c, op, D2_ERR_UNSUPPORTED,
                           "needs ONNX opset 16 or later with accumulate (ScatterND's reduction), "
                           "exporting opset %d: use --opset 16", c->opset);
        if (ox_attr_str(c, n, "reduction", "add") < 0)
            return -1;
    }
    for (int i = 0; i < q.r; i++)
        inv[q.perm[i]] = i;
    return finish(c, op, transpose(c, o, inv, q.r), in_dt(c, op, 0));
}

/* side effects that have no ONNX form: the exported model omits them */
static int l_drop(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)c;
    (void)op;
    (void)type;
    return 0;
}

/* ---- tensor arrays as ONNX sequences ------------------------------------------------------------ */

static int l_array_create(ox_ctx *c, const d2_op *op, const char *type)
{
    Onnx__NodeProto *n = node_out(c, op, type, NULL, 0);
    return n && ox_attr_int(c, n, "dtype", ox_onnx_dtype(out_dt(c, op, 0))) == 0 ? 0 : -1;
}

/* write at the end (the index is the array's length: a list append) inserts; a write at a
 * smaller index replaces the element (erase + insert), chosen at run time by If */
static int l_array_write(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *arr = ox_in(c, op, 0), *x = ox_in(c, op, 2);
    const d2_op *d = c->defop[op->in[1]];
    if (d && d->id == D2_OP_array_length && d->in[0] == op->in[0])
        return node_out(c, op, type, (const char *[]){arr, x}, 2) ? 0 : -1;
    const d2_type *it = ox_in_type(c, op, 1);
    const char *i = ox_cast(c, ox_in(c, op, 1), it->dtype, D2_I64);
    if (i && it->shape.ndim > 0)
        i = ox_to_scalar(c, i);
    const char *len = un(c, "SequenceLength", arr);
    /* a negative index counts from the end */
    const char *zero = ox_const_scalar(c, D2_I64, 0);
    i = ox_node1(c, "Where", (const char *[]){bin(c, "Less", i, zero), bin(c, "Add", i, len), i}, 3,
                 NULL);
    const char *at_end = bin(c, "GreaterOrEqual", i, len);
    if (!at_end)
        return -1;
    /* If(at_end) then SequenceInsert(arr, x) else SequenceInsert(SequenceErase(arr, i), x, i) */
    Onnx__GraphProto *gp[2];
    for (int b = 0; b < 2; b++) {
        ox_graph g = {{0}, {0}, {0}, {0}, c->g};
        c->g = &g;
        const char *r = b == 0 ? bin(c, type, arr, x)
                               : ox_node1(c, type, (const char *[]){bin(c, "SequenceErase", arr, i), x, i},
                                          3, NULL);
        c->g = g.up;
        if (!r)
            return -1;
        Onnx__GraphProto *gpb = ox_alloc(c, sizeof *gpb);
        Onnx__ValueInfoProto *vi = ox_alloc(c, sizeof *vi);
        Onnx__ValueInfoProto **outs = ox_alloc(c, sizeof *outs);
        Onnx__TypeProto *tp = ox_alloc(c, sizeof *tp);
        Onnx__TypeProto *el = ox_alloc(c, sizeof *el);
        Onnx__TypeProto__Sequence *sq = ox_alloc(c, sizeof *sq);
        Onnx__TypeProto__Tensor *tt = ox_alloc(c, sizeof *tt);
        if (!gpb || !vi || !outs || !tp || !el || !sq || !tt)
            return -1;
        onnx__graph_proto__init(gpb);
        onnx__value_info_proto__init(vi);
        onnx__type_proto__init(tp);
        onnx__type_proto__init(el);
        onnx__type_proto__sequence__init(sq);
        onnx__type_proto__tensor__init(tt);
        tt->has_elem_type = 1;
        tt->elem_type = ox_onnx_dtype(out_dt(c, op, 0));
        el->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        el->tensor_type = tt;
        sq->elem_type = el;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
        tp->sequence_type = sq;
        vi->name = (char *)r;
        vi->type = tp;
        outs[0] = vi;
        gpb->name = ox_strdup(c, b ? "array_replace" : "array_append");
        gpb->node = (Onnx__NodeProto **)g.nodes.v;
        gpb->n_node = g.nodes.n;
        gpb->output = outs;
        gpb->n_output = 1;
        gp[b] = gpb;
    }
    Onnx__NodeProto *n = node_out(c, op, "If", &at_end, 1);
    return n && ox_attr_graph(c, n, "then_branch", gp[0]) == 0 &&
                   ox_attr_graph(c, n, "else_branch", gp[1]) == 0
               ? 0 : -1;
}

static int l_array_read(ox_ctx *c, const d2_op *op, const char *type)
{
    const d2_type *it = ox_in_type(c, op, 1);
    const char *i = ox_cast(c, ox_in(c, op, 1), it->dtype, D2_I64);
    if (i && it->shape.ndim > 0)
        i = ox_to_scalar(c, i);
    return i && node_out(c, op, type, (const char *[]){ox_in(c, op, 0), i}, 2) ? 0 : -1;
}

static int l_array_length(ox_ctx *c, const d2_op *op, const char *type)
{
    return finish(c, op, un(c, type, ox_in(c, op, 0)), D2_I64);
}

static int l_array_stack(ox_ctx *c, const d2_op *op, const char *type)
{
    const char *a = ox_in(c, op, 0);
    Onnx__NodeProto *n = node_out(c, op, type, &a, 1);
    return n && ox_attr_int(c, n, "axis", A_INT(op, "axis")) == 0 &&
                   ox_attr_int(c, n, "new_axis", op->id == D2_OP_array_stack) == 0
               ? 0 : -1;
}

static int l_cond(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    return ox_lower_cond(c, op);
}

static int l_while(ox_ctx *c, const d2_op *op, const char *type)
{
    (void)type;
    return ox_lower_while(c, op);
}

/* ---- the table ------------------------------------------------------------------------------------ */

#define TRAINING "a training op (export the inference Program)"
#define NO_ONNX "ONNX has no operator for it"

static const ox_map MAP[] = {
    {"add", "Add", 13, l_simple, NULL},
    {"subtract", "Sub", 13, l_simple, NULL},
    {"multiply", "Mul", 13, l_simple, NULL},
    {"divide", "Div", 13, l_simple, NULL},
    {"floor_divide", "Div", 13, l_floor_divide, NULL},
    {"remainder", "Mod", 13, l_remainder, NULL},
    {"pow", "Pow", 13, l_simple, NULL},
    {"maximum", "Max", 13, l_simple, NULL},
    {"minimum", "Min", 13, l_simple, NULL},
    {"equal", "Equal", 13, l_simple, NULL},
    {"not_equal", "Equal", 13, l_not_equal, NULL},
    {"less_than", "Less", 13, l_simple, NULL},
    {"less_equal", "LessOrEqual", 13, l_simple, NULL},
    {"greater_than", "Greater", 13, l_simple, NULL},
    {"greater_equal", "GreaterOrEqual", 13, l_simple, NULL},
    {"logical_and", "And", 13, l_logical, NULL},
    {"logical_or", "Or", 13, l_logical, NULL},
    {"logical_xor", "Xor", 13, l_logical, NULL},
    {"logical_not", "Not", 13, l_logical, NULL},
    {"neg", "Neg", 13, l_simple, NULL},
    {"abs", "Abs", 13, l_simple, NULL},
    {"sign", "Sign", 13, l_simple, NULL},
    {"square", "Mul", 13, l_square, NULL},
    {"exp", "Exp", 13, l_simple, NULL},
    {"log", "Log", 13, l_simple, NULL},
    {"sqrt", "Sqrt", 13, l_simple, NULL},
    {"rsqrt", "Reciprocal", 13, l_rsqrt, NULL},
    {"reciprocal", "Reciprocal", 13, l_simple, NULL},
    {"floor", "Floor", 13, l_simple, NULL},
    {"ceil", "Ceil", 13, l_simple, NULL},
    {"sin", "Sin", 13, l_simple, NULL},
    {"cos", "Cos", 13, l_simple, NULL},
    {"tanh", "Tanh", 13, l_simple, NULL},
    {"sigmoid", "Sigmoid", 13, l_simple, NULL},
    {"relu", "Relu", 13, l_simple, NULL},
    {"silu", "Mul", 13, l_silu, NULL},
    {"erf", "Erf", 13, l_simple, NULL},
    {"gelu", "Erf", 13, l_gelu, NULL},
    {"leaky_relu", "LeakyRelu", 13, l_leaky_relu, NULL},
    {"scale", "Mul", 13, l_scale, NULL},
    {"clip", "Clip", 13, l_clip, NULL},
    {"softmax", "Softmax", 13, l_axis, NULL},
    {"log_softmax", "LogSoftmax", 13, l_axis, NULL},
    {"cast", "Cast", 13, l_cast, NULL},
    {"where", "Where", 13, l_where, NULL},
    {"sum", "ReduceSum", 13, l_reduce, NULL},
    {"mean", "ReduceMean", 13, l_reduce, NULL},
    {"max", "ReduceMax", 13, l_reduce, NULL},
    {"amax", "ReduceMax", 13, l_reduce, NULL},
    {"amin", "ReduceMin", 13, l_reduce, NULL},
    {"min", "ReduceMin", 13, l_reduce, NULL},
    {"prod", "ReduceProd", 13, l_reduce, NULL},
    {"any", "ReduceMax", 13, l_reduce, NULL},
    {"all", "ReduceMin", 13, l_reduce, NULL},
    {"argmax", "ArgMax", 13, l_argminmax, NULL},
    {"argmin", "ArgMin", 13, l_argminmax, NULL},
    {"reshape", "Reshape", 13, l_reshape, NULL},
    {"flatten", "Reshape", 13, l_flatten, NULL},
    {"squeeze", "Squeeze", 13, l_squeeze, NULL},
    {"unsqueeze", "Unsqueeze", 13, l_unsqueeze, NULL},
    {"transpose", "Transpose", 13, l_transpose, NULL},
    {"concat", "Concat", 13, l_concat, NULL},
    {"stack", "Concat", 13, l_stack, NULL},
    {"split", "Split", 13, l_split, NULL},
    {"slice", "Slice", 13, l_slice, NULL},
    {"gather", "Gather", 13, l_gather, NULL},
    {"index_select", "Gather", 13, l_gather, NULL},
    {"expand", "Expand", 13, l_expand, NULL},
    {"tile", "Tile", 13, l_tile, NULL},
    {"full", "ConstantOfShape", 13, l_full, NULL},
    {"full_like", "ConstantOfShape", 13, l_full_like, NULL},
    {"arange", "Range", 13, l_arange, NULL},
    {"shape", "Shape", 13, l_shape, NULL},
    {"numel", "Size", 13, l_shape, NULL},
    {"assign", "Identity", 13, l_simple, NULL},
    {"set_value", "ScatterND", 13, l_set_value, NULL},
    {"index_put", "ScatterND", 13, l_index_put, NULL},
    {"index_get", "GatherND", 13, l_index_get, NULL},
    {"matmul", "MatMul", 13, l_matmul, NULL},
    {"linear", "MatMul", 13, l_linear, NULL},
    {"linear_fused", "MatMul", 13, l_linear_fused, NULL},
    {"conv2d", "Conv", 13, l_conv, NULL},
    {"pool2d", "MaxPool", 13, l_pool, NULL},
    {"batch_norm", "BatchNormalization", 13, l_batch_norm, NULL},
    {"layer_norm", "ReduceMean", 13, l_layer_norm, NULL},
    {"embedding", "Gather", 13, l_embedding, NULL},
    {"dropout", "Identity", 13, l_expr, NULL},
    {"dropout_train", NULL, 0, NULL, TRAINING},
    {"sgd", NULL, 0, NULL, TRAINING},
    {"momentum", NULL, 0, NULL, TRAINING},
    {"adam", NULL, 0, NULL, TRAINING},
    {"adamw", NULL, 0, NULL, TRAINING},
    {"rmsprop", NULL, 0, NULL, TRAINING},
    {"adagrad", NULL, 0, NULL, TRAINING},
    {"lamb", NULL, 0, NULL, TRAINING},
    {"array_create", "SequenceEmpty", 13, l_array_create, NULL},
    {"array_write", "SequenceInsert", 13, l_array_write, NULL},
    {"array_read", "SequenceAt", 13, l_array_read, NULL},
    {"array_length", "SequenceLength", 13, l_array_length, NULL},
    {"array_stack", "ConcatFromSequence", 13, l_array_stack, NULL},
    {"array_concat", "ConcatFromSequence", 13, l_array_stack, NULL},
    {"array_zeros_like", NULL, 0, NULL, TRAINING},
    {"array_add", NULL, 0, NULL, TRAINING},
    {"array_unstack", NULL, 0, NULL, TRAINING},
    {"array_split_like", NULL, 0, NULL, TRAINING},
    {"array_truncate", NULL, 0, NULL, TRAINING},
    {"reduce_as", NULL, 0, NULL, TRAINING},
    {"relu_grad", NULL, 0, NULL, TRAINING},
    {"conv2d_grad_input", NULL, 0, NULL, TRAINING},
    {"conv2d_grad_filter", NULL, 0, NULL, TRAINING},
    {"pool2d_grad", NULL, 0, NULL, TRAINING},
    {"erfinv", "Log", 13, l_erfinv, NULL},
    {"lgamma", "Log", 13, l_lgamma, NULL},
    {"digamma", "Log", 13, l_digamma, NULL},
    {"expm1", "Exp", 13, l_expr, NULL},
    {"log1p", "Log", 13, l_expr, NULL},
    {"log2", "Log", 13, l_expr, NULL},
    {"log10", "Log", 13, l_expr, NULL},
    {"tan", "Tan", 13, l_simple, NULL},
    {"asin", "Asin", 13, l_simple, NULL},
    {"acos", "Acos", 13, l_simple, NULL},
    {"atan", "Atan", 13, l_simple, NULL},
    {"sinh", "Sinh", 13, l_simple, NULL},
    {"cosh", "Cosh", 13, l_simple, NULL},
    {"asinh", "Asinh", 13, l_simple, NULL},
    {"acosh", "Acosh", 13, l_simple, NULL},
    {"atanh", "Atanh", 13, l_simple, NULL},
    {"trunc", "Mod", 13, l_expr, NULL},
    {"round", "Floor", 13, l_expr, NULL},
    {"softsign", "Softsign", 13, l_simple, NULL},
    {"mish", "Softplus", 13, l_expr, NULL},
    {"logsigmoid", "Softplus", 13, l_expr, NULL},
    {"tanhshrink", "Tanh", 13, l_expr, NULL},
    {"hardswish", "HardSigmoid", 13, l_expr, NULL},
    {"softplus", "Softplus", 13, l_expr, NULL},
    {"elu", "Elu:alpha=alpha", 13, l_act, NULL},
    {"celu", "Celu:alpha=alpha", 13, l_act, NULL},
    {"selu", "Selu:alpha=alpha,gamma=scale", 13, l_act, NULL},
    {"hardsigmoid", "HardSigmoid:alpha=slope,beta=offset", 13, l_act, NULL},
    {"hardshrink", "Shrink:lambd=threshold,bias=0", 13, l_act, NULL},
    {"softshrink", "Shrink:lambd=threshold,bias=threshold", 13, l_act, NULL},
    {"thresholded_relu", "ThresholdedRelu:alpha=threshold", 13, l_act, NULL},
    {"stanh", "Tanh", 13, l_expr, NULL},
    {"logit", "Log", 13, l_expr, NULL},
    {"isnan", "IsNaN", 13, l_simple, NULL},
    {"isinf", "IsInf", 13, l_simple, NULL},
    {"isfinite", "IsNaN", 13, l_expr, NULL},
    {"bitwise_and", "BitwiseAnd", 13, l_bitwise, NULL},
    {"bitwise_or", "BitwiseOr", 13, l_bitwise, NULL},
    {"bitwise_xor", "BitwiseXor", 13, l_bitwise, NULL},
    {"bitwise_not", "BitwiseNot", 13, l_bitwise, NULL},
    {"gcd", "Mod", 13, l_gcd_lcm, NULL},
    {"lcm", "Mod", 13, l_gcd_lcm, NULL},
    {"cumsum", "CumSum", 13, l_cumsum, NULL},
    {"cumprod", "ReduceProd", 13, l_cum_masked, NULL},
    {"logcumsumexp", "ReduceLogSumExp", 13, l_cum_masked, NULL},
    {"cummax", "ReduceMax", 13, l_cum_extreme, NULL},
    {"cummin", "ReduceMin", 13, l_cum_extreme, NULL},
    {"argsort", "ScatterElements", 13, l_argsort, NULL},
    {"topk", "TopK", 13, l_topk, NULL},
    {"tril_triu", "Trilu", 13, l_tril_triu, NULL},
    {"flip", "Slice", 13, l_flip, NULL},
    {"roll", "Concat", 13, l_roll, NULL},
    {"gather_nd", "GatherND", 13, l_gather_nd, NULL},
    {"scatter", "Where", 13, l_scatter, NULL},
    {"scatter_nd_add", "ScatterND", 13, l_scatter_nd_add, NULL},
    {"take_along_axis", "GatherElements", 13, l_take_along, NULL},
    {"put_along_axis", "ScatterElements", 13, l_take_along, NULL},
    {"print", NULL, 13, l_drop, NULL},
    {"assert", NULL, 13, l_drop, NULL},
    {"cond", "If", 13, l_cond, NULL},
    {"while_loop", "Loop", 13, l_while, NULL},
    {"conv2d_transpose", "ConvTranspose", 13, l_conv_transpose, NULL},
    {"conv2d_fused", "Conv", 13, l_conv, NULL},
    {"inv", NULL, 0, NULL, NO_ONNX},
    {"det", "Det", 13, l_simple, NULL},
    {"slogdet", NULL, 0, NULL, NO_ONNX},
    {"solve", NULL, 0, NULL, NO_ONNX},
    {"triangular_solve", NULL, 0, NULL, NO_ONNX},
    {"cholesky", NULL, 0, NULL, NO_ONNX},
    {"qr", NULL, 0, NULL, NO_ONNX},
    {"svd", NULL, 0, NULL, NO_ONNX},
    {"eigh", NULL, 0, NULL, NO_ONNX},
    {"lu", NULL, 0, NULL, NO_ONNX},
    {"fused_elementwise", "Add", 13, l_fused_elementwise, NULL},
    {"add_layer_norm", "ReduceMean", 13, l_add_layer_norm, NULL},
    {"batch_norm_act", "BatchNormalization", 13, l_batch_norm_act, NULL},
};

/* MAP indexed by op id, built once */
static const ox_map *by_id[D2_NUM_OPS];
static int by_id_ready;

static void build_index(void)
{
    for (size_t i = 0; i < D2_COUNTOF(MAP); i++) {
        const d2_opdef *d = d2_op_lookup(MAP[i].op, strlen(MAP[i].op));
        if (d)
            by_id[d->id] = &MAP[i];
    }
}

const ox_map *ox_map_find(d2_op_id id)
{
    if (!__atomic_load_n(&by_id_ready, __ATOMIC_ACQUIRE)) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        pthread_once(&once, build_index);
        __atomic_store_n(&by_id_ready, 1, __ATOMIC_RELEASE);
    }
    return (unsigned)id < D2_NUM_OPS ? by_id[id] : NULL;
}

/* the ops whose opset depends on their attributes or input types */
static const struct {
    const char *op;
    int (*need)(const d2_program *p, const d2_op *op);
} NEED[] = {
    {"put_along_axis", need_put_along},
    {"scatter_nd_add", need_scatter_nd_add},
};

int ox_map_need(const ox_map *m, const d2_program *p, const d2_op *op)
{
    for (size_t i = 0; i < D2_COUNTOF(NEED); i++)
        if (!strcmp(m->op, NEED[i].op))
            return NEED[i].need(p, op);
    return m->min_opset;
}

int d2_onnx_op_min_opset(const char *name)
{
    d2_err err = {0};
    const d2_opdef *d = d2_ops_init(&err) == 0 ? d2_op_lookup(name, strlen(name)) : NULL;
    const ox_map *m = d ? ox_map_find(d->id) : NULL;
    return m && m->lower ? m->min_opset : 0;
}

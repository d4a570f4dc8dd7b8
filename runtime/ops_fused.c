/* ops_fused.c - the fused ops of the elementwise fusion passes: fused_elementwise's expression
 * (parser, inference) and add_layer_norm's inference, and both ops run as their parts (the
 * fallback of backends without a fused kernel). */
#include "fused_expr.h"
#include "backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOKENS[D2_FX_NCODES] = {
    [D2_FX_ADD] = "add",       [D2_FX_SUB] = "subtract",      [D2_FX_MUL] = "multiply",
    [D2_FX_DIV] = "divide",    [D2_FX_RELU] = "relu",         [D2_FX_SIGMOID] = "sigmoid",
    [D2_FX_TANH] = "tanh",     [D2_FX_SILU] = "silu",         [D2_FX_GELU] = "gelu",
    [D2_FX_GELU_TANH] = "gelu_tanh", [D2_FX_NEG] = "neg",     [D2_FX_EXP] = "exp",
    [D2_FX_SQUARE] = "square", [D2_FX_ABS] = "abs",
};

static const d2_op_id OPS[D2_FX_NCODES] = {
    [D2_FX_ADD] = D2_OP_add,         [D2_FX_SUB] = D2_OP_subtract,   [D2_FX_MUL] = D2_OP_multiply,
    [D2_FX_DIV] = D2_OP_divide,      [D2_FX_RELU] = D2_OP_relu,      [D2_FX_SIGMOID] = D2_OP_sigmoid,
    [D2_FX_TANH] = D2_OP_tanh,       [D2_FX_SILU] = D2_OP_silu,      [D2_FX_GELU] = D2_OP_gelu,
    [D2_FX_GELU_TANH] = D2_OP_gelu,  [D2_FX_NEG] = D2_OP_neg,        [D2_FX_EXP] = D2_OP_exp,
    [D2_FX_SQUARE] = D2_OP_square,   [D2_FX_ABS] = D2_OP_abs,
};

const char *d2_fx_token(d2_fx_code code)
{
    return (unsigned)code < D2_FX_NCODES ? TOKENS[code] : NULL;
}

bool d2_fx_binary(d2_fx_code code) { return code >= D2_FX_ADD && code <= D2_FX_DIV; }

d2_op_id d2_fx_op(d2_fx_code code) { return OPS[code]; }

int d2_fx_parse(const char *text, int n_inputs, d2_fx_prog *p, d2_err *err)
{
    p->n = p->depth = 0;
    int sp = 0;
    bool used[D2_FX_MAX_INPUTS] = {false};
    if (n_inputs < 1 || n_inputs > D2_FX_MAX_INPUTS)
        return d2_err_set(err, D2_ERR_INVALID, "fused_elementwise: %d inputs (1 to %d allowed)",
                          n_inputs, D2_FX_MAX_INPUTS);
    for (const char *s = text;;) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        size_t len = strcspn(s, " ");
        if (p->n == D2_FX_MAX_INS)
            return d2_err_set(err, D2_ERR_INVALID,
                              "fused_elementwise: expr has more than %d tokens", D2_FX_MAX_INS);
        d2_fx_ins *in = &p->ins[p->n];
        memset(in, 0, sizeof *in);
        if (s[0] == '$') {
            char *end;
            long k = strtol(s + 1, &end, 10);
            if (end != s + len || end == s + 1 || k < 0 || k >= n_inputs)
                return d2_err_set(err, D2_ERR_INVALID,
                                  "fused_elementwise: expr token '%.*s' names no input (the op "
                                  "has %d)",
                                  (int)len, s, n_inputs);
            in->code = D2_FX_IN;
            in->arg = (int)k;
            used[k] = true;
        } else {
            int code = -1;
            for (int c = D2_FX_ADD; c < D2_FX_NCODES && code < 0; c++)
                if (strlen(TOKENS[c]) == len && strncmp(TOKENS[c], s, len) == 0)
                    code = c;
            if (code >= 0) {
                int need = d2_fx_binary((d2_fx_code)code) ? 2 : 1;
                if (sp < need)
                    return d2_err_set(err, D2_ERR_INVALID,
                                      "fused_elementwise: expr token '%.*s' needs %d value%s, "
                                      "the stack holds %d",
                                      (int)len, s, need, need == 1 ? "" : "s", sp);
                in->code = (d2_fx_code)code;
                sp -= need - 1;
                p->n++;
                s += len;
                continue;
            }
            char *end;
            double v = strtod(s, &end);
            if (end != s + len)
                return d2_err_set(err, D2_ERR_INVALID,
                                  "fused_elementwise: unknown expr token '%.*s'", (int)len, s);
            in->code = D2_FX_CONST;
            in->c = v;
        }
        if (++sp > D2_FX_MAX_DEPTH)
            return d2_err_set(err, D2_ERR_INVALID,
                              "fused_elementwise: expr holds more than %d values at once",
                              D2_FX_MAX_DEPTH);
        if (sp > p->depth)
            p->depth = sp;
        p->n++;
        s += len;
    }
    if (p->n == 0 || sp != 1)
        return d2_err_set(err, D2_ERR_INVALID,
                          "fused_elementwise: expr \"%s\" leaves %d values (it must leave one)",
                          text, sp);
    if (p->ins[p->n - 1].code == D2_FX_IN || p->ins[p->n - 1].code == D2_FX_CONST)
        return d2_err_set(err, D2_ERR_INVALID,
                          "fused_elementwise: expr \"%s\" must end with an operation", text);
    for (int k = 0; k < n_inputs; k++)
        if (!used[k])
            return d2_err_set(err, D2_ERR_INVALID,
                              "fused_elementwise: expr \"%s\" never reads input $%d", text, k);
    return 0;
}

/* The per-thread cache of d2_fx_get: texts up to FX_CACHE_TEXT - 1 bytes. */
#define FX_CACHE_N 4
#define FX_CACHE_TEXT 192
static _Thread_local struct {
    int n_inputs;
    char text[FX_CACHE_TEXT];
    d2_fx_prog prog;
} fx_cache[FX_CACHE_N];
static _Thread_local int fx_cache_next;

int d2_fx_get(const char *text, int n_inputs, d2_fx_prog *scratch, const d2_fx_prog **out,
              d2_err *err)
{
    for (int i = 0; i < FX_CACHE_N; i++)
        if (fx_cache[i].n_inputs == n_inputs && fx_cache[i].text[0] &&
            strcmp(fx_cache[i].text, text) == 0) {
            *out = &fx_cache[i].prog;
            return 0;
        }
    size_t len = strlen(text);
    if (len >= FX_CACHE_TEXT || len == 0) {
        *out = scratch;
        return d2_fx_parse(text, n_inputs, scratch, err);
    }
    int i = fx_cache_next;
    fx_cache[i].text[0] = '\0';
    if (d2_fx_parse(text, n_inputs, &fx_cache[i].prog, err) < 0)
        return -1;
    memcpy(fx_cache[i].text, text, len + 1);
    fx_cache[i].n_inputs = n_inputs;
    fx_cache_next = (i + 1) % FX_CACHE_N;
    *out = &fx_cache[i].prog;
    return 0;
}

/* fused_elementwise: float32 or float64 inputs of one dtype; the result has the numpy
 * broadcast of their shapes (every input is read, and every operation broadcasts). */
int infer_fused_elementwise(d2_infer_ctx *ic)
{
    d2_fx_prog prog;
    if (d2_fx_parse(ATTR_STR(ic, "expr"), ic->n_in, &prog, ic->err) < 0)
        return -1;
    d2_dtype dt = ic->in[0].dtype;
    d2_shape s = ic->in[0].shape;
    for (int i = 0; i < ic->n_in; i++) {
        if (ic->in[i].kind != D2_VALUE_TENSOR)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "fused_elementwise: input %d must be a tensor, not an array", i);
        if (ic->in[i].dtype != dt || (dt != D2_F32 && dt != D2_F64))
            return d2_err_set(ic->err, D2_ERR_DTYPE,
                              "fused_elementwise: input %d has dtype %s; the inputs must all be "
                              "float32 or all float64",
                              i, d2_dtype_name(ic->in[i].dtype));
        if (i > 0 && d2_broadcast_shapes(&s, &ic->in[i].shape, &s, ic->def, ic->err) < 0)
            return -1;
    }
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = dt;
    ic->out[0].shape = s;
    return 0;
}

/* add_layer_norm: layer_norm of x + y, where y has x's type. */
int infer_add_layer_norm(d2_infer_ctx *ic)
{
    if (ic->in[1].kind != D2_VALUE_TENSOR || ic->in[1].dtype != ic->in[0].dtype ||
        ic->in[1].shape.ndim != ic->in[0].shape.ndim)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "add_layer_norm: y must have x's dtype and rank");
    for (int d = 0; d < ic->in[0].shape.ndim; d++) {
        int64_t a = ic->in[0].shape.dims[d], b = ic->in[1].shape.dims[d];
        if (a >= 0 && b >= 0 && a != b)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "add_layer_norm: y's dim %d is %lld, x's is %lld", d,
                              (long long)b, (long long)a);
    }
    /* layer_norm's inference sees x, scale, bias */
    d2_type in3[3] = {ic->in[0], ic->in[2], ic->in[3]};
    for (int d = 0; d < in3[0].shape.ndim; d++)
        if (in3[0].shape.dims[d] < 0)
            in3[0].shape.dims[d] = ic->in[1].shape.dims[d];
    d2_infer_ctx lc = *ic;
    lc.def = d2_op_def(D2_OP_layer_norm);
    lc.in = in3;
    lc.n_in = 3;
    lc.in_value = NULL;
    /* the attributes are layer_norm's, in its order */
    return infer_layer_norm(&lc);
}

/* batch_norm_act: batch_norm's result; residual (when given) has that type; the activation is
 * "" or "relu". */
int infer_batch_norm_act(d2_infer_ctx *ic)
{
    const char *act = ATTR_STR(ic, "activation");
    if (*act && strcmp(act, "relu") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "batch_norm_act: activation \"%s\" is not \"\" or \"relu\"", act);
    d2_infer_ctx bc = *ic;
    bc.def = d2_op_def(D2_OP_batch_norm);
    bc.n_in = 5;
    bc.in_value = NULL;
    if (infer_batch_norm(&bc) < 0)
        return -1;
    if (ic->n_in < 6 || (int)ic->in[5].dtype < 0)
        return 0;
    const d2_type *r = &ic->in[5], *o = &ic->out[0];
    bool fits = r->kind == D2_VALUE_TENSOR && r->dtype == o->dtype && r->shape.ndim == o->shape.ndim;
    for (int d = 0; fits && d < o->shape.ndim; d++)
        fits = r->shape.dims[d] < 0 || o->shape.dims[d] < 0 || r->shape.dims[d] == o->shape.dims[d];
    if (!fits) {
        char rs[160], os[160];
        d2_type_str(r, rs, sizeof rs);
        d2_type_str(o, os, sizeof os);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "batch_norm_act: residual %s does not match the result %s", rs, os);
    }
    return 0;
}

/* Runs op id on k's backend: into k->out[0] through the kernel when last, else into a new
 * tensor *r. */
static int run_part(d2_kctx *k, d2_op_id id, const d2_attrs *a, d2_tensor **args, int n,
                    bool last, d2_tensor **r)
{
    if (!last)
        return d2_op_run(k->be, id, a, args, n, r, 1, k->err);
    d2_kernel_fn fn = k->be->kernel(k->be, id);
    if (!fn)
        return d2_err_set(k->err, D2_ERR_UNSUPPORTED, "%s: no %s kernel on the %s backend",
                          k->def->name, d2_op_def(id)->name, k->be->name);
    d2_kctx kk = *k;
    kk.def = d2_op_def(id);
    kk.attrs = a;
    kk.n_in = n;
    kk.in = args;
    kk.n_out = 1;
    kk.frame = NULL;
    kk.op_index = 0;
    *r = NULL;
    return fn(&kk);
}

int d2_fx_run_parts(d2_kctx *k, const d2_fx_prog *p)
{
    d2_tensor *st[D2_FX_MAX_DEPTH] = {NULL};
    int sp = 0, rc = 0;
    d2_dtype dt = k->in[0]->dtype;
    for (int pc = 0; pc < p->n && rc == 0; pc++) {
        const d2_fx_ins *in = &p->ins[pc];
        if (in->code == D2_FX_IN) {
            st[sp++] = d2_tensor_ref(k->in[in->arg]);
            continue;
        }
        d2_op_id id = in->code == D2_FX_CONST ? D2_OP_full : d2_fx_op(in->code);
        const d2_opdef *def = d2_op_def(id);
        d2_attrs a;
        d2_attrs_init_default(def, &a);
        if (a.n != def->n_attrs) {
            rc = d2_err_set(k->err, D2_ERR_NOMEM, "out of memory");
            break;
        }
        if (in->code == D2_FX_CONST)
            rc = d2_attr_set_float(def, &a, "value", in->c) | d2_attr_set_int(def, &a, "dtype", dt);
        else if (in->code == D2_FX_GELU_TANH)
            rc = d2_attr_set_bool(def, &a, "approximate", true);
        if (rc < 0)
            d2_err_set(k->err, D2_ERR_NOMEM, "out of memory");
        int na = in->code == D2_FX_CONST ? 0 : d2_fx_binary(in->code) ? 2 : 1;
        d2_tensor *r = NULL;
        if (rc == 0)
            rc = run_part(k, id, &a, &st[sp - na], na, pc == p->n - 1, &r);
        d2_attrs_free(&a);
        for (int j = 0; j < na; j++) {
            d2_tensor_unref(st[--sp]);
            st[sp] = NULL;
        }
        st[sp++] = r;
    }
    for (int j = 0; j < sp; j++)
        d2_tensor_unref(st[j]);
    return rc < 0 ? -1 : 0;
}

int d2_add_layer_norm_parts(d2_kctx *k)
{
    d2_tensor *sum = NULL;
    if (d2_op_run(k->be, D2_OP_add, NULL, k->in, 2, &sum, 1, k->err) < 0)
        return -1;
    d2_tensor *args[3] = {sum, k->n_in > 2 ? k->in[2] : NULL, k->n_in > 3 ? k->in[3] : NULL};
    int rc = run_part(k, D2_OP_layer_norm, k->attrs, args, 3, true, &sum);
    d2_tensor_unref(args[0]);
    return rc;
}

int d2_batch_norm_act_parts(d2_kctx *k)
{
    bool res = k->n_in > 5 && k->in[5], relu = strcmp(ATTR_STR(k, "activation"), "relu") == 0;
    const d2_opdef *bdef = d2_op_def(D2_OP_batch_norm);
    d2_attrs a;
    d2_attrs_init_default(bdef, &a);
    if (a.n != bdef->n_attrs ||
        d2_attr_set_float(bdef, &a, "epsilon", ATTR_FLOAT(k, "epsilon")) < 0) {
        d2_attrs_free(&a);
        return d2_err_set(k->err, D2_ERR_NOMEM, "out of memory");
    }
    d2_tensor *v = NULL;
    int rc = run_part(k, D2_OP_batch_norm, &a, k->in, 5, !res && !relu, &v);
    d2_attrs_free(&a);
    if (rc == 0 && res) {
        d2_tensor *args[2] = {v, k->in[5]}, *s = NULL;
        rc = run_part(k, D2_OP_add, NULL, args, 2, !relu, &s);
        d2_tensor_unref(v);
        v = s;
    }
    if (rc == 0 && relu) {
        d2_tensor *none = NULL;
        rc = run_part(k, D2_OP_relu, NULL, &v, 1, true, &none);
    }
    d2_tensor_unref(v);
    return rc;
}

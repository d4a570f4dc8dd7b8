/* search.c - paddle's scans, sorting, top-k, triangles, rolls and along-axis functions over the ops of ops_index.c. */
#include "lib/paddle/functions_priv.h"

#include <string.h>

/* Runs op with two outputs into a new (out0, out1) tuple; b is freed. */
static d2_obj *op_pair(d2_interp *I, const char *fname, d2_op_id op, d2_obj **in, int n_in,
                       d2_ab *b, bool want_tuple, int pick)
{
    if (b->bad) {
        d2_ab_free(b);
        return d2_raise(I, "RuntimeError", "%s: internal error building attributes", fname);
    }
    d2_obj *outs[2] = {NULL, NULL};
    int rc = d2_pd_apply_named(I, fname, op, in, n_in, &b->a, outs, 2);
    d2_ab_free(b);
    if (rc < 0)
        return NULL;
    if (!want_tuple) {
        d2_decref(outs[1 - pick]);
        return outs[pick];
    }
    d2_obj *t = tuple_new(I, 2);
    if (!t) {
        d2_decref(outs[0]);
        d2_decref(outs[1]);
        return NULL;
    }
    D2_AS(d2_tuple, t)->items[0] = outs[0];
    D2_AS(d2_tuple, t)->items[1] = outs[1];
    return t;
}

/* An optional int argument: *present false for None. */
static int opt_int(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v,
                   bool *present)
{
    *present = !is_none(I, o);
    *v = 0;
    return *present ? d2_pd_get_int(I, o, fname, what, v) : 0;
}

/* x as a tensor, cast to dtype argument dt_arg when it is not None. New reference. */
static d2_obj *tensor_arg(d2_interp *I, d2_obj *o, d2_obj *dt_arg, const char *fname)
{
    d2_obj *x = d2_pd_as_tensor(I, o, -1, fname);
    if (!x || !dt_arg || is_none(I, dt_arg))
        return x;
    int dt;
    if (d2_pd_parse_dtype(I, dt_arg, fname, false, &dt) < 0) {
        d2_decref(x);
        return NULL;
    }
    d2_obj *c = obj_type(x)->dtype == (d2_dtype)dt ? d2_incref(x) : d2_pd_cast_to(I, fname, x, dt);
    d2_decref(x);
    return c;
}

/* cumsum / cumprod / logcumsumexp(x, axis=None, dtype=None): None flattens. */
static d2_obj *cum_call(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    int64_t axis;
    bool has;
    if (opt_int(I, a[1], fname, "axis", &axis, &has) < 0)
        return NULL;
    d2_obj *x = tensor_arg(I, a[0], a[2], fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_int(&b, "axis", has ? axis : -1);
    d2_ab_bool(&b, "flatten", !has);
    d2_obj *r = op1(I, fname, op, x, &b);
    d2_decref(x);
    return r;
}

D2_FN(f_cumsum) { return cum_call(I, "paddle.cumsum", D2_OP_cumsum, a); }
D2_FN(f_cumprod) { return cum_call(I, "paddle.cumprod", D2_OP_cumprod, a); }
D2_FN(f_logcumsumexp) { return cum_call(I, "paddle.logcumsumexp", D2_OP_logcumsumexp, a); }

/* cummax / cummin(x, axis=None, dtype='int64') -> (values, indices). */
static d2_obj *cumext_call(d2_interp *I, const char *fname, d2_op_id op, d2_obj **a)
{
    int64_t axis;
    bool has;
    int dt;
    if (opt_int(I, a[1], fname, "axis", &axis, &has) < 0 ||
        d2_pd_dtype_arg(I, a[2], fname, D2_I64, &dt) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, op);
    d2_ab_int(&b, "axis", has ? axis : -1);
    d2_ab_bool(&b, "flatten", !has);
    d2_ab_int(&b, "dtype", dt);
    d2_obj *r = op_pair(I, fname, op, &x, 1, &b, true, 0);
    d2_decref(x);
    return r;
}

D2_FN(f_cummax) { return cumext_call(I, "paddle.cummax", D2_OP_cummax, a); }
D2_FN(f_cummin) { return cumext_call(I, "paddle.cummin", D2_OP_cummin, a); }

/* sort / argsort(x, axis=-1, descending=False): one output of argsort. */
static d2_obj *sort_call(d2_interp *I, const char *fname, d2_obj **a, int pick)
{
    int64_t axis;
    bool desc;
    if (d2_pd_get_int(I, a[1], fname, "axis", &axis) < 0 ||
        d2_pd_get_bool(I, a[2], fname, "descending", &desc) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_argsort);
    d2_ab_int(&b, "axis", axis);
    d2_ab_bool(&b, "descending", desc);
    d2_obj *r = op_pair(I, fname, D2_OP_argsort, &x, 1, &b, false, pick);
    d2_decref(x);
    return r;
}

D2_FN(f_sort) { return sort_call(I, "paddle.sort", a, 0); }
D2_FN(f_argsort) { return sort_call(I, "paddle.argsort", a, 1); }

/* An int argument that may be a one-element concrete tensor (topk's k). */
static int int_or_tensor(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t *v)
{
    if (is_tensor(o) && !is_sym(o) && d2_tensor_numel(TOBJ(o)->t) == 1) {
        d2_tensor *h = d2_pd_host(I, o, fname);
        if (!h)
            return -1;
        *v = d2_tensor_get_i64(h, 0);
        d2_tensor_unref(h);
        return 0;
    }
    return d2_pd_get_int(I, o, fname, what, v);
}

/* topk(x, k, axis=None, largest=True, sorted=True) -> (values, indices). */
D2_FN(f_topk)
{
    const char *fname = "paddle.topk";
    int64_t k, axis;
    bool has, largest, sorted;
    if (int_or_tensor(I, a[1], fname, "k", &k) < 0 ||
        opt_int(I, a[2], fname, "axis", &axis, &has) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "largest", &largest) < 0 ||
        d2_pd_get_bool(I, a[4], fname, "sorted", &sorted) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_topk);
    d2_ab_int(&b, "k", k);
    d2_ab_int(&b, "axis", has ? axis : -1);
    d2_ab_bool(&b, "largest", largest);
    d2_ab_bool(&b, "sorted", sorted);
    d2_obj *r = op_pair(I, fname, D2_OP_topk, &x, 1, &b, true, 0);
    d2_decref(x);
    return r;
}

/* tril / triu(x, diagonal=0). */
static d2_obj *tri_call(d2_interp *I, const char *fname, d2_obj **a, bool lower)
{
    int64_t diag;
    if (d2_pd_get_int(I, a[1], fname, "diagonal", &diag) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_tril_triu);
    d2_ab_int(&b, "diagonal", diag);
    d2_ab_bool(&b, "lower", lower);
    d2_obj *r = op1(I, fname, D2_OP_tril_triu, x, &b);
    d2_decref(x);
    return r;
}

D2_FN(f_tril) { return tri_call(I, "paddle.tril", a, true); }
D2_FN(f_triu) { return tri_call(I, "paddle.triu", a, false); }

/* roll(x, shifts, axis=None). */
D2_FN(f_roll)
{
    const char *fname = "paddle.roll";
    int64_t sh[D2_MAX_DIMS], ax[D2_MAX_DIMS];
    int ns, na = 0;
    if (d2_pd_ints(I, a[1], fname, "shifts", sh, &ns, D2_MAX_DIMS) < 0 ||
        (!is_none(I, a[2]) && d2_pd_ints(I, a[2], fname, "axis", ax, &na, D2_MAX_DIMS) < 0))
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_ab b;
    d2_ab_init(&b, D2_OP_roll);
    d2_ab_ints(&b, "shifts", sh, ns);
    d2_ab_ints(&b, "axis", ax, na);
    d2_obj *r = op1(I, fname, D2_OP_roll, x, &b);
    d2_decref(x);
    return r;
}

/* take_along_axis(arr, indices, axis, broadcast=True). */
D2_FN(f_take_along_axis)
{
    const char *fname = "paddle.take_along_axis";
    int64_t axis;
    if (d2_pd_get_int(I, a[2], fname, "axis", &axis) < 0)
        return NULL;
    d2_obj *in[2] = {d2_pd_as_tensor(I, a[0], -1, fname), NULL};
    in[1] = in[0] ? d2_pd_as_tensor(I, a[1], -1, fname) : NULL;
    d2_obj *r = NULL;
    if (in[1]) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_take_along_axis);
        d2_ab_int(&b, "axis", axis);
        r = d2_pd_opn(I, fname, D2_OP_take_along_axis, in, 2, &b);
    }
    d2_decref(in[0]);
    d2_decref(in[1]);
    return r;
}

/* put_along_axis(arr, indices, values, axis, reduce='assign', ...). */
D2_FN(f_put_along_axis)
{
    const char *fname = "paddle.put_along_axis";
    int64_t axis;
    const char *red;
    bool incl;
    if (d2_pd_get_int(I, a[3], fname, "axis", &axis) < 0 ||
        !(red = d2_pd_get_str(I, a[4], fname, "reduce")) ||
        d2_pd_get_bool(I, a[5], fname, "include_self", &incl) < 0)
        return NULL;
    d2_obj *in[3] = {d2_pd_as_tensor(I, a[0], -1, fname), NULL, NULL};
    in[1] = in[0] ? d2_pd_as_tensor(I, a[1], -1, fname) : NULL;
    in[2] = in[1] ? d2_pd_as_tensor(I, a[2], obj_type(in[0])->dtype, fname) : NULL;
    if (in[2] && obj_type(in[2])->dtype != obj_type(in[0])->dtype) {
        d2_obj *c = d2_pd_cast_to(I, fname, in[2], obj_type(in[0])->dtype);
        d2_decref(in[2]);
        in[2] = c;
    }
    /* broadcast (Paddle's default): indices expanded to arr's shape, keeping
     * their size along axis, unless they are larger than arr somewhere */
    bool bc;
    if (in[2] && d2_pd_get_bool(I, a[6], fname, "broadcast", &bc) < 0) {
        d2_decref(in[2]);
        in[2] = NULL;
    }
    if (in[2] && bc) {
        const d2_shape *xs = &obj_type(in[0])->shape, *is = &obj_type(in[1])->shape;
        int64_t ax = axis < 0 ? axis + xs->ndim : axis, to[D2_MAX_DIMS];
        bool grow = xs->ndim == is->ndim && ax >= 0 && ax < xs->ndim, differ = false;
        for (int d = 0; grow && d < xs->ndim; d++) {
            if (xs->dims[d] < 0 || is->dims[d] < 0 || xs->dims[d] < is->dims[d])
                grow = false;
            to[d] = d == ax ? is->dims[d] : xs->dims[d];
            differ |= to[d] != is->dims[d];
        }
        if (grow && differ) {
            d2_ab eb;
            d2_ab_init(&eb, D2_OP_expand);
            d2_ab_ints(&eb, "shape", to, xs->ndim);
            d2_obj *e = op1(I, fname, D2_OP_expand, in[1], &eb);
            d2_decref(in[1]);
            in[1] = e;
            if (!e) {
                d2_decref(in[2]);
                in[2] = NULL;
            }
        }
    }
    d2_obj *r = NULL;
    if (in[2]) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_put_along_axis);
        d2_ab_int(&b, "axis", axis);
        d2_ab_str(&b, "reduce", red);
        d2_ab_bool(&b, "include_self", incl);
        r = d2_pd_opn(I, fname, D2_OP_put_along_axis, in, 3, &b);
    }
    for (int i = 0; i < 3; i++)
        d2_decref(in[i]);
    return r;
}

/* kthvalue(x, k, axis=None, keepdim=False) -> (values, indices): the k-th
 * smallest along axis (default the last). */
D2_FN(f_kthvalue)
{
    const char *fname = "paddle.kthvalue";
    int64_t k, axis;
    bool has, keep;
    if (d2_pd_get_int(I, a[1], fname, "k", &k) < 0 ||
        opt_int(I, a[2], fname, "axis", &axis, &has) < 0 ||
        d2_pd_get_bool(I, a[3], fname, "keepdim", &keep) < 0)
        return NULL;
    d2_obj *x = d2_pd_as_tensor(I, a[0], -1, fname);
    if (!x)
        return NULL;
    int nd = obj_type(x)->shape.ndim;
    if (!has)
        axis = -1;
    int64_t ax = axis < 0 ? axis + nd : axis;
    d2_ab b;
    d2_ab_init(&b, D2_OP_topk);
    d2_ab_int(&b, "k", k);
    d2_ab_int(&b, "axis", axis);
    d2_ab_bool(&b, "largest", false);
    d2_obj *pair = op_pair(I, fname, D2_OP_topk, &x, 1, &b, true, 0);
    d2_decref(x);
    if (!pair)
        return NULL;
    d2_obj *t = tuple_new(I, 2);
    for (int i = 0; t && i < 2; i++) {
        d2_obj *v = D2_AS(d2_tuple, pair)->items[i];
        if (nd == 0) {
            D2_AS(d2_tuple, t)->items[i] = d2_incref(v);
            continue;
        }
        int64_t st = k - 1, en = k;
        d2_ab sb;
        d2_ab_init(&sb, D2_OP_slice);
        d2_ab_ints(&sb, "axes", &ax, 1);
        d2_ab_ints(&sb, "starts", &st, 1);
        d2_ab_ints(&sb, "ends", &en, 1);
        if (!keep)
            d2_ab_ints(&sb, "decrease_axis", &ax, 1);
        d2_obj *s = op1(I, fname, D2_OP_slice, v, &sb);
        if (!s) {
            d2_setref(&t, NULL);
            break;
        }
        D2_AS(d2_tuple, t)->items[i] = s;
    }
    d2_decref(pair);
    return t;
}

static const d2_def SEARCH_DEFS[] = {
    D2_DEF("cumsum", "x, axis=None, dtype=None, name=None", f_cumsum, "paddle.cumsum"),
    D2_DEF("cumprod", "x, dim=None, dtype=None, name=None", f_cumprod, "paddle.cumprod"),
    D2_DEF("logcumsumexp", "x, axis=None, dtype=None, name=None", f_logcumsumexp,
           "paddle.logcumsumexp"),
    D2_DEF("cummax", "x, axis=None, dtype='int64', name=None", f_cummax, "paddle.cummax"),
    D2_DEF("cummin", "x, axis=None, dtype='int64', name=None", f_cummin, "paddle.cummin"),
    D2_DEF("sort", "x, axis=-1, descending=False, name=None", f_sort, "paddle.sort"),
    D2_DEF("argsort", "x, axis=-1, descending=False, name=None", f_argsort, "paddle.argsort"),
    D2_DEF("topk", "x, k, axis=None, largest=True, sorted=True, name=None", f_topk, "paddle.topk"),
    D2_DEF("kthvalue", "x, k, axis=None, keepdim=False, name=None", f_kthvalue, "paddle.kthvalue"),
    D2_DEF("tril", "x, diagonal=0, name=None", f_tril, "paddle.tril"),
    D2_DEF("triu", "x, diagonal=0, name=None", f_triu, "paddle.triu"),
    D2_DEF("roll", "x, shifts, axis=None, name=None", f_roll, "paddle.roll"),
    D2_DEF("take_along_axis", "arr, indices, axis, broadcast=True", f_take_along_axis,
           "paddle.take_along_axis"),
    D2_DEF("put_along_axis",
           "arr, indices, values, axis, reduce='assign', include_self=True, broadcast=True",
           f_put_along_axis, "paddle.put_along_axis"),
};

int d2_pd_search_add(d2_interp *I, pd_state *s)
{
    return d2_pd_add_tensor_fns(I, s, SEARCH_DEFS, D2_COUNTOF(SEARCH_DEFS));
}

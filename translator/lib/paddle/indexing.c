/* indexing.c - x[key] and x[key] = v for paddle.Tensor, and for numpy.ndarray on the CPU. */
#include "lib/paddle/paddle_priv.h"

#include <string.h>

/* ======================================================================
 * Indexing: x[key] and x[key] = v
 * ====================================================================== */

enum { IX_INT, IX_SLICE, IX_NONE, IX_TENSOR, IX_FULL };

typedef struct ix_item {
    int kind;
    int64_t start, stop, step; /* IX_INT: start; IX_SLICE: all three (sentinels for None) */
    d2_obj *index;             /* IX_TENSOR: owned int tensor */
} ix_item;

typedef struct ix_plan {
    ix_item it[2 * D2_MAX_DIMS + 2];
    int n;
} ix_plan;

static void ix_free(ix_plan *p)
{
    for (int i = 0; i < p->n; i++)
        d2_decref(p->it[i].index);
    p->n = 0;
}

/* A symbolic slice bound b (None: dflt) of a dim of size dim (an int64 0-D
 * tensor) as Python normalises it: negative counts from the end, then
 * clamped to [0, dim]. New reference. */
static d2_obj *norm_bound(d2_interp *I, d2_obj *b, d2_obj *dflt, d2_obj *dim, const char *fname)
{
    if (is_none(I, b))
        return d2_incref(dflt);
    d2_obj *t = d2_pd_as_tensor(I, b, D2_I64, fname);
    d2_obj *c = t ? d2_pd_cast_to(I, fname, t, D2_I64) : NULL;
    d2_decref(t);
    if (!c)
        return NULL;
    if (obj_type(c)->shape.ndim != 0) {
        d2_ab rb;
        d2_ab_init(&rb, D2_OP_reshape);
        d2_ab_ints(&rb, "shape", NULL, 0);
        d2_setref(&c, op1(I, fname, D2_OP_reshape, c, &rb));
        if (!c)
            return NULL;
    }
    d2_obj *zero = d2_pd_const_tensor(I, 0, 0, true, D2_I64);
    d2_obj *neg = zero ? op2(I, fname, D2_OP_less_than, c, zero, NULL) : NULL;
    d2_obj *negi = neg ? d2_pd_cast_to(I, fname, neg, D2_I64) : NULL;
    d2_obj *off = negi ? op2(I, fname, D2_OP_multiply, negi, dim, NULL) : NULL;
    d2_obj *r = off ? op2(I, fname, D2_OP_add, c, off, NULL) : NULL;
    if (r)
        d2_setref(&r, op2(I, fname, D2_OP_maximum, r, zero, NULL));
    if (r)
        d2_setref(&r, op2(I, fname, D2_OP_minimum, r, dim, NULL));
    d2_decref(c);
    d2_decref(zero);
    d2_decref(neg);
    d2_decref(negi);
    d2_decref(off);
    return r;
}

/* x[a:b:k] on dim d with a symbolic bound a or b (k a positive int) → the
 * int64 index arange(a', max(b', a'), k), gathered like a tensor index (the
 * selected dim keeps its place: one tensor index only). New reference. */
static d2_obj *dyn_slice_index(d2_interp *I, d2_obj *x, int d, d2_slice *sl, int64_t step,
                               const char *fname)
{
    int64_t n = obj_type(x)->shape.dims[d];
    d2_obj *dim = NULL;
    if (n >= 0) {
        dim = d2_pd_const_tensor(I, 0, n, true, D2_I64);
    } else {
        d2_obj *sh = op1(I, fname, D2_OP_shape, x, NULL);
        d2_ab b;
        d2_ab_init(&b, D2_OP_slice);
        int64_t ax = 0, st = d, en = d + 1;
        d2_ab_ints(&b, "axes", &ax, 1);
        d2_ab_ints(&b, "starts", &st, 1);
        d2_ab_ints(&b, "ends", &en, 1);
        d2_ab_ints(&b, "decrease_axis", &ax, 1);
        d2_obj *d0 = sh ? op1(I, fname, D2_OP_slice, sh, &b) : NULL;
        dim = d0 ? d2_pd_cast_to(I, fname, d0, D2_I64) : NULL;
        d2_decref(sh);
        d2_decref(d0);
    }
    d2_obj *zero = dim ? d2_pd_const_tensor(I, 0, 0, true, D2_I64) : NULL;
    d2_obj *a = zero ? norm_bound(I, sl->start, zero, dim, fname) : NULL;
    d2_obj *e = a ? norm_bound(I, sl->stop, dim, dim, fname) : NULL;
    d2_obj *e2 = e ? op2(I, fname, D2_OP_maximum, e, a, NULL) : NULL;
    d2_obj *k = e2 ? d2_pd_const_tensor(I, 0, step, true, D2_I64) : NULL;
    d2_obj *r = NULL;
    if (k) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_arange);
        d2_ab_int(&b, "dtype", D2_I64);
        d2_obj *in[3] = {a, e2, k};
        r = d2_pd_opn(I, fname, D2_OP_arange, in, 3, &b);
    }
    d2_decref(dim);
    d2_decref(zero);
    d2_decref(a);
    d2_decref(e);
    d2_decref(e2);
    d2_decref(k);
    return r;
}

/* Reads a slice bound: None, an int, or a one-element concrete int tensor. */
static int slice_bound(d2_interp *I, d2_obj *o, bool *none, int64_t *v)
{
    *none = is_none(I, o);
    if (*none)
        return 0;
    if (is_sym(o)) {
        d2_raise(I, "TypeError",
                 "Tensor.__getitem__: slice bounds must be Python ints; a symbolic tensor bound is "
                 "not supported (use paddle.slice or paddle.gather)");
        return -1;
    }
    return d2_pd_get_int(I, o, "Tensor.__getitem__", "a slice bound", v);
}

/* Turns key into a list of index items over x's dims (Ellipsis expanded). */
/* x (may be NULL) is the indexed tensor: a slice with a symbolic bound
 * becomes a tensor index over it. */
static int ix_parse(d2_interp *I, d2_obj *x, const d2_shape *xs, d2_obj *key, ix_plan *p,
                    const char *fname)
{
    p->n = 0;
    d2_obj *single[1] = {key};
    d2_obj **items = single;
    size_t n = 1;
    if (key->kind == D2_OBJ_TUPLE) {
        items = D2_AS(d2_tuple, key)->items;
        n = D2_AS(d2_tuple, key)->n;
    }
    int consumed = 0, ellipsis = -1;
    for (size_t i = 0; i < n; i++) {
        d2_obj *o = items[i];
        if (o->kind == D2_OBJ_ELLIPSIS) {
            if (ellipsis >= 0) {
                d2_raise(I, "IndexError", "%s: an index can only have a single ellipsis ('...')",
                         fname);
                return -1;
            }
            ellipsis = (int)i;
        } else if (!is_none(I, o)) {
            consumed++;
        }
    }
    if (consumed > xs->ndim) {
        d2_raise(I, "IndexError", "%s: too many indices for a tensor of dimension %d (got %d)",
                 fname, xs->ndim, consumed);
        return -1;
    }
    p->n = 0;
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        d2_obj *o = items[i];
        if ((int)i == ellipsis) {
            for (int k = 0; k < xs->ndim - consumed; k++) {
                p->it[p->n].kind = IX_FULL;
                p->it[p->n++].index = NULL;
                d++;
            }
            continue;
        }
        ix_item *it = &p->it[p->n];
        memset(it, 0, sizeof *it);
        if (is_none(I, o)) {
            it->kind = IX_NONE;
            p->n++;
            continue;
        }
        if (is_int(o) ||
            (is_ndarray(o) && NDA(o)->t->ndim == 0 && d2_dtype_is_int(NDA(o)->t->dtype))) {
            int64_t v;
            if (d2_pd_get_int(I, o, fname, "an index", &v) < 0)
                return -1;
            int64_t dim = xs->dims[d];
            if (dim >= 0 && (v >= dim || v < -dim)) {
                d2_raise(I, "IndexError",
                         "%s: index %lld is out of bounds for axis %d with size %lld", fname,
                         (long long)v, d, (long long)dim);
                return -1;
            }
            if (dim >= 0 && v < 0)
                v += dim;
            it->kind = IX_INT;
            it->start = v;
        } else if (o->kind == D2_OBJ_SLICE) {
            d2_slice *sl = D2_AS(d2_slice, o);
            bool n0, n1, n2;
            int64_t a = 0, b = 0, st = 1;
            if (x && (is_sym(sl->start) || is_sym(sl->stop)) && !is_sym(sl->step)) {
                if (slice_bound(I, sl->step, &n2, &st) < 0)
                    return -1;
                if (n2)
                    st = 1;
                if (st <= 0) {
                    d2_raise(I, "IndexError",
                             "%s: a slice with a tensor bound must have a positive step", fname);
                    return -1;
                }
                it->index = dyn_slice_index(I, x, d, sl, st, fname);
                if (!it->index)
                    return -1;
                it->kind = IX_TENSOR;
                p->n++;
                d++;
                continue;
            }
            if (slice_bound(I, sl->step, &n2, &st) < 0 || slice_bound(I, sl->start, &n0, &a) < 0 ||
                slice_bound(I, sl->stop, &n1, &b) < 0)
                return -1;
            if (n2)
                st = 1;
            if (st == 0) {
                d2_raise(I, "ValueError", "%s: slice step cannot be zero", fname);
                return -1;
            }
            it->kind = n0 && n1 && st == 1 ? IX_FULL : IX_SLICE;
            it->step = st;
            it->start = n0 ? (st > 0 ? 0 : INT64_MAX) : a;
            it->stop = n1 ? (st > 0 ? INT64_MAX : INT64_MIN) : b;
        } else if (is_tensor(o) || is_ndarray(o) || is_seq(o)) {
            d2_obj *t = d2_pd_as_tensor(I, o, -1, fname);
            if (!t)
                return -1;
            const d2_type *ty = obj_type(t);
            if (ty->dtype == D2_BOOL) {
                d2_decref(t);
                d2_raise(I, "IndexError",
                         "%s: boolean mask indexing is not supported; use paddle.masked_select or "
                         "paddle.where",
                         fname);
                return -1;
            }
            if (!d2_dtype_is_int(ty->dtype) || ty->shape.ndim > 1) {
                d2_decref(t);
                d2_raise(
                    I, "IndexError",
                    "%s: a tensor index must be a 0-D or 1-D int32/int64 tensor (got %s, %d-D)",
                    fname, dtname(ty->dtype), ty->shape.ndim);
                return -1;
            }
            it->kind = IX_TENSOR;
            it->index = t;
        } else {
            d2_raise(I, "IndexError",
                     "%s: only integers, slices (':'), ellipsis ('...'), None and integer tensors "
                     "are valid indices (got %s)",
                     fname, d2_type_name(o));
            return -1;
        }
        p->n++;
        d++;
    }
    return 0;
}

/* A boolean mask key of exactly x's shape, or of its leading dims when
 * leading is true (tensor or ndarray); *m receives a host copy. 1 when it is
 * one, 0 when not, -1 on error. */
static int bool_mask(d2_interp *I, d2_obj *key, const d2_shape *xs, bool leading,
                     const char *fname, d2_tensor **m)
{
    *m = NULL;
    bool is_mask = (is_tensor(key) && obj_type(key)->dtype == D2_BOOL) ||
                   (is_ndarray(key) && NDA(key)->t->dtype == D2_BOOL);
    if (!is_mask)
        return 0;
    if (is_sym(key) || D2_MODE(I)->builder) {
        d2_raise(I, "IndexError",
                 "%s: boolean mask indexing is not supported inside to_static (the result's size "
                 "depends on the data); use paddle.where",
                 fname);
        return -1;
    }
    d2_tensor *h = d2_pd_host(I, key, fname);
    if (!h)
        return -1;
    d2_shape ms;
    d2_tensor_get_shape(h, &ms);
    bool ok = leading ? ms.ndim <= xs->ndim : ms.ndim == xs->ndim;
    for (int d = 0; ok && d < ms.ndim; d++)
        ok = ms.dims[d] == xs->dims[d];
    if (!ok) {
        char a[128], b[128];
        d2_shape_str(&ms, a, sizeof a);
        d2_shape_str(xs, b, sizeof b);
        d2_tensor_unref(h);
        d2_raise(I, "IndexError", "%s: the boolean mask's shape %s does not match the tensor's %s",
                 fname, a, b);
        return -1;
    }
    *m = h;
    return 1;
}

/* x[mask] on the host: the selected elements as a 1-D tensor. */
static d2_obj *mask_select(d2_interp *I, d2_obj *x, d2_tensor *m, const char *fname)
{
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return NULL;
    int64_t n = d2_tensor_numel(h), k = 0;
    for (int64_t i = 0; i < n; i++)
        k += d2_tensor_get_i64(m, i) != 0;
    d2_err err = {0};
    d2_tensor *r = d2_tensor_new(NULL, h->dtype, 1, &k, &err);
    if (r) {
        size_t es = d2_dtype_size(h->dtype);
        char *dst = d2_tensor_data(r);
        const char *src = d2_tensor_data(h);
        for (int64_t i = 0, j = 0; i < n; i++)
            if (d2_tensor_get_i64(m, i))
                memcpy(dst + es * (size_t)j++, src + es * (size_t)i, es);
    }
    d2_tensor_unref(h);
    if (!r)
        return d2_raise_err(I, &err);
    return d2_pd_wrap_host(I, r);
}

/* x[mask] = v on the host for a mask over x's leading dims, as Paddle 2.6's
 * index_put: v is expanded to [selected rows, trailing dims...] and row j
 * of it goes to the j-th selected row; a mask of x's whole shape with one
 * value fills the selected elements. Replaces x's data. */
static int mask_assign(d2_interp *I, d2_obj *x, d2_tensor *m, d2_obj *v, const char *fname)
{
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return -1;
    d2_err err = {0};
    d2_tensor *w = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!w) {
        d2_raise_err(I, &err);
        return -1;
    }
    d2_shape xs;
    d2_tensor_get_shape(w, &xs);
    int mnd = m->ndim, rest = xs.ndim - mnd;
    int64_t nm = d2_tensor_numel(m), cnt = 0, row = 1;
    for (int64_t i = 0; i < nm; i++)
        cnt += d2_tensor_get_i64(m, i) != 0;
    for (int d = mnd; d < xs.ndim; d++)
        row *= xs.dims[d];
    d2_obj *val = NULL, *big = NULL;
    d2_tensor *vh = NULL;
    int rc = -1;
    d2_obj *vt = d2_pd_as_tensor(I, v, w->dtype, fname);
    if (!vt)
        goto done;
    val = d2_pd_cast_to(I, fname, vt, w->dtype);
    d2_decref(vt);
    if (!val)
        goto done;
    int64_t shape[D2_MAX_DIMS + 1];
    shape[0] = cnt;
    for (int d = 0; d < rest; d++)
        shape[1 + d] = xs.dims[mnd + d];
    d2_ab b;
    d2_ab_init(&b, D2_OP_expand);
    d2_ab_ints(&b, "shape", shape, rest + 1);
    big = op1(I, fname, D2_OP_expand, val, &b);
    vh = big ? d2_pd_host(I, big, fname) : NULL;
    if (!vh)
        goto done;
    size_t es = d2_dtype_size(w->dtype), rb = es * (size_t)row;
    char *dst = d2_tensor_data(w);
    const char *src = d2_tensor_data(vh);
    for (int64_t i = 0, j = 0; i < nm; i++)
        if (d2_tensor_get_i64(m, i))
            memcpy(dst + rb * (size_t)i, src + rb * (size_t)j++, rb);
    d2_tensor *nt = d2_pd_to_backend(I, w);
    w = NULL;
    if (nt) {
        d2_tensor_unref(TOBJ(x)->t);
        TOBJ(x)->t = nt;
        rc = 0;
    }
done:
    if (w)
        d2_tensor_unref(w);
    if (vh)
        d2_tensor_unref(vh);
    d2_decref(val);
    d2_decref(big);
    return rc;
}

/* x[..., T1, ..., Tk, ...] where an indexed dim is dynamic, or more than one
 * dim is → index_get(x', T1..Tk, axis), x' = x with the indexed dims moved to
 * the front (axis 0) unless they are adjacent (axis = the first of them): no
 * dim is merged, so any dim may be dynamic; the kernel checks the indices'
 * bounds and counts negative ones from the end. New reference. */
static d2_obj *index_get_several(d2_interp *I, d2_obj *x, d2_obj *const *idx, const int *ax,
                                 int k, const char *fname)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t perm[D2_MAX_DIMS];
    bool used[D2_MAX_DIMS] = {false}, adjacent = true;
    for (int j = 0; j < k; j++) {
        perm[j] = ax[j];
        used[ax[j]] = true;
        adjacent &= j == 0 || ax[j] == ax[j - 1] + 1;
    }
    for (int d = 0, m = k; d < nd; d++)
        if (!used[d])
            perm[m++] = d;
    d2_obj *in[1 + D2_MAX_DIMS] = {NULL}, *r = NULL;
    d2_ab b;
    if (adjacent) {
        in[0] = d2_incref(x);
    } else {
        d2_ab_init(&b, D2_OP_transpose);
        d2_ab_ints(&b, "perm", perm, nd);
        in[0] = op1(I, fname, D2_OP_transpose, x, &b);
    }
    int n = 0;
    while (in[0] && n < k && (in[1 + n] = d2_pd_cast_to(I, fname, idx[n], D2_I64)))
        n++;
    if (n == k) {
        d2_ab_init(&b, D2_OP_index_get);
        d2_ab_int(&b, "axis", adjacent ? ax[0] : 0);
        r = d2_pd_opn(I, fname, D2_OP_index_get, in, 1 + k, &b);
    }
    for (int i = 0; i <= n; i++)
        d2_decref(in[i]);
    return r;
}

/* x[..., T1, ..., Tk, ...] for k > 1 tensor indices (0-D or 1-D) at dims
 * ax[0..k) of x → the indexed dims moved to the front (transpose) and merged
 * (reshape), gathered with the broadcast linear index
 * ((T1 * D2) + T2) * D3 + ..., where the indexed dims' sizes must be static.
 * As numpy and Paddle: the index's dim goes where the first indexed dim was
 * when the indexed dims are adjacent, else first. New reference. */
static d2_obj *gather_several(d2_interp *I, d2_obj *x, d2_obj *const *idx, const int *ax, int k,
                              const char *fname)
{
    const d2_shape *xs = &obj_type(x)->shape;
    int nd = xs->ndim;
    if (k > nd)
        return d2_raise(I, "IndexError", "%s: too many tensor indices", fname);
    int64_t perm[D2_MAX_DIMS], shape[D2_MAX_DIMS];
    bool used[D2_MAX_DIMS] = {false};
    int64_t merged = 1;
    bool adjacent = true;
    int ndyn = 0;
    for (int d = 0; d < nd; d++)
        ndyn += xs->dims[d] < 0;
    for (int j = 0; j < k; j++)
        if (xs->dims[ax[j]] < 0 || ndyn > 1)
            return index_get_several(I, x, idx, ax, k, fname);
    for (int j = 0; j < k; j++) {
        merged *= xs->dims[ax[j]];
        perm[j] = ax[j];
        used[ax[j]] = true;
        adjacent &= j == 0 || ax[j] == ax[j - 1] + 1;
    }
    int m = k;
    shape[0] = merged;
    for (int d = 0; d < nd; d++)
        if (!used[d]) {
            shape[1 + m - k] = xs->dims[d];
            perm[m++] = d;
        }
    d2_obj *lin = NULL, *y = NULL, *r = NULL;
    for (int j = 0; j < k; j++) {
        d2_obj *t = d2_pd_cast_to(I, fname, idx[j], D2_I64);
        d2_obj *dim = t ? d2_pd_const_tensor(I, 0, xs->dims[ax[j]], true, D2_I64) : NULL;
        d2_obj *zero = dim ? d2_pd_const_tensor(I, 0, 0, true, D2_I64) : NULL;
        d2_obj *neg = zero ? op2(I, fname, D2_OP_less_than, t, zero, NULL) : NULL;
        d2_obj *negi = neg ? d2_pd_cast_to(I, fname, neg, D2_I64) : NULL;
        d2_obj *off = negi ? op2(I, fname, D2_OP_multiply, negi, dim, NULL) : NULL;
        d2_obj *tn = off ? op2(I, fname, D2_OP_add, t, off, NULL) : NULL;
        if (tn && lin) {
            d2_obj *sc = op2(I, fname, D2_OP_multiply, lin, dim, NULL);
            d2_setref(&lin, sc ? op2(I, fname, D2_OP_add, sc, tn, NULL) : NULL);
            d2_decref(sc);
        } else if (tn) {
            lin = d2_incref(tn);
        }
        bool bad = !tn;
        d2_decref(t);
        d2_decref(dim);
        d2_decref(zero);
        d2_decref(neg);
        d2_decref(negi);
        d2_decref(off);
        d2_decref(tn);
        if (bad || !lin)
            goto done;
    }
    d2_ab b;
    d2_ab_init(&b, D2_OP_transpose);
    d2_ab_ints(&b, "perm", perm, nd);
    y = op1(I, fname, D2_OP_transpose, x, &b);
    if (!y)
        goto done;
    d2_ab_init(&b, D2_OP_reshape);
    d2_ab_ints(&b, "shape", shape, nd - k + 1);
    d2_setref(&y, op1(I, fname, D2_OP_reshape, y, &b));
    if (!y)
        goto done;
    d2_ab_init(&b, D2_OP_gather);
    d2_ab_int(&b, "axis", 0);
    r = op2(I, fname, D2_OP_gather, y, lin, &b);
    if (r && adjacent && ax[0] > 0 && obj_type(lin)->shape.ndim == 1) {
        int64_t back[D2_MAX_DIMS];
        int n = 0, rn = obj_type(r)->shape.ndim;
        for (int d = 1; d <= ax[0]; d++)
            back[n++] = d;
        back[n++] = 0;
        for (int d = ax[0] + 1; d < rn; d++)
            back[n++] = d;
        d2_ab_init(&b, D2_OP_transpose);
        d2_ab_ints(&b, "perm", back, rn);
        d2_setref(&r, op1(I, fname, D2_OP_transpose, r, &b));
    }
done:
    d2_decref(lin);
    d2_decref(y);
    return r;
}

static d2_obj *getitem_impl(d2_interp *I, d2_obj *x, d2_obj *key, const char *fname)
{
    d2_tensor *mask;
    int mk = bool_mask(I, key, &obj_type(x)->shape, false, fname, &mask);
    if (mk != 0) {
        d2_obj *r = mk > 0 ? mask_select(I, x, mask, fname) : NULL;
        if (mask)
            d2_tensor_unref(mask);
        return r;
    }
    const d2_shape *xs = &obj_type(x)->shape;
    if (xs->ndim == 0 && !(key->kind == D2_OBJ_ELLIPSIS || is_none(I, key)))
        return d2_raise(I, "IndexError", "%s: a 0-D tensor cannot be indexed", fname);
    ix_plan p;
    if (ix_parse(I, x, xs, key, &p, fname) < 0) {
        ix_free(&p);
        return NULL;
    }
    int64_t axes[D2_MAX_DIMS], starts[D2_MAX_DIMS], ends[D2_MAX_DIMS], strides[D2_MAX_DIMS],
        dec[D2_MAX_DIMS], unsq[D2_MAX_DIMS * 2];
    int na = 0, nd = 0, nu = 0, d = 0, outpos = 0, n_tidx = 0, tidx_axis = 0;
    d2_obj *tidx = NULL, *tix[D2_MAX_DIMS];
    int tax[D2_MAX_DIMS];
    for (int i = 0; i < p.n; i++) {
        ix_item *it = &p.it[i];
        switch (it->kind) {
        case IX_NONE: unsq[nu++] = outpos++; continue;
        case IX_FULL: outpos++; break;
        case IX_INT:
            axes[na] = d;
            starts[na] = it->start;
            ends[na] = it->start == -1 ? INT64_MAX : it->start + 1;
            strides[na++] = 1;
            dec[nd++] = d;
            break;
        case IX_SLICE:
            axes[na] = d;
            starts[na] = it->start;
            ends[na] = it->stop;
            strides[na++] = it->step;
            outpos++;
            break;
        case IX_TENSOR:
            if (n_tidx < D2_MAX_DIMS) {
                tix[n_tidx] = it->index;
                tax[n_tidx] = d - nd;
            }
            n_tidx++;
            tidx = it->index;
            tidx_axis = d - nd; /* position after the decreased dims are gone */
            if (obj_type(it->index)->shape.ndim == 1)
                outpos++;
            break;
        }
        d++;
    }
    d2_obj *cur = d2_incref(x);
    if (n_tidx > 1 && nu > 0) {
        ix_free(&p);
        d2_decref(cur);
        return d2_raise(I, "IndexError",
                        "%s: None together with several tensor indices is not supported", fname);
    }
    if (na > 0) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_slice);
        d2_ab_ints(&b, "axes", axes, na);
        d2_ab_ints(&b, "starts", starts, na);
        d2_ab_ints(&b, "ends", ends, na);
        d2_ab_ints(&b, "strides", strides, na);
        d2_ab_ints(&b, "decrease_axis", dec, nd);
        d2_obj *r = op1(I, fname, D2_OP_slice, cur, &b);
        d2_decref(cur);
        cur = r;
    }
    if (cur && n_tidx > 1) {
        d2_obj *r = gather_several(I, cur, tix, tax, n_tidx, fname);
        d2_decref(cur);
        cur = r;
    } else if (cur && tidx) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_gather);
        d2_ab_int(&b, "axis", tidx_axis);
        d2_obj *r = op2(I, fname, D2_OP_gather, cur, tidx, &b);
        d2_decref(cur);
        cur = r;
    }
    if (cur && nu > 0) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_unsqueeze);
        d2_ab_ints(&b, "axis", unsq, nu);
        d2_obj *r = op1(I, fname, D2_OP_unsqueeze, cur, &b);
        d2_decref(cur);
        cur = r;
    }
    ix_free(&p);
    return cur;
}

static int setitem_static(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v, const char *fname);

/* Whether key is a tuple with more than one list, ndarray or tensor index, or
 * one with an int beside it. */
static bool several_index_arrays(d2_obj *key)
{
    if (key->kind != D2_OBJ_TUPLE)
        return false;
    int n = 0, ints = 0;
    for (size_t i = 0; i < D2_AS(d2_tuple, key)->n; i++) {
        d2_obj *o = D2_AS(d2_tuple, key)->items[i];
        n += is_tensor(o) || is_ndarray(o) || is_seq(o);
        ints += is_int(o);
    }
    /* an int beside an index array is an index array too (numpy) */
    return n > 1 || (n == 1 && ints > 0);
}

/* x[key] = v where a gradient flows through x or v: the taped functional
 * form, whose result x takes over (data and place on the tape), as Paddle's
 * in-place set_value. The value before holds x's old place. */
static int setitem_taped(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v)
{
    d2_tensor_obj *t = TOBJ(x);
    if (!t->stop_gradient && !t->grad_node) {
        d2_raise(I, "ValueError",
                 "(InvalidArgument) Leaf Tensor (%s) that doesn't stop gradient can't use inplace "
                 "strategy.",
                 t->name ? t->name : "generated_tensor");
        return -1;
    }
    d2_obj *old = d2_tensor_wrap(I, t->t);
    if (!old)
        return -1;
    d2_tensor_obj *o = TOBJ(old);
    d2_gnode *n = t->grad_node;
    if (n && n->watch[t->grad_slot] == t)
        n->watch[t->grad_slot] = NULL;
    o->stop_gradient = t->stop_gradient;
    o->grad_node = n; /* the reference moves */
    o->grad_slot = t->grad_slot;
    t->grad_node = NULL;
    d2_obj *r = d2_pd_setitem_functional(I, old, key, v);
    if (!r) {
        t->grad_node = o->grad_node;
        o->grad_node = NULL;
        d2_decref(old);
        return -1;
    }
    d2_tensor_obj *rt = TOBJ(r);
    d2_tensor_unref(t->t);
    t->t = d2_tensor_ref(rt->t);
    t->stop_gradient = rt->stop_gradient;
    t->grad_node = rt->grad_node;
    t->grad_slot = rt->grad_slot;
    rt->grad_node = NULL;
    if (t->grad_node && (t->grad_hooks || t->retain_grads))
        t->grad_node->watch[t->grad_slot] = t;
    d2_decref(r);
    d2_decref(old);
    return 0;
}

/* Host-side x[key] = v for int/slice/ellipsis/None keys and one int tensor
 * index; replaces x's data with the updated copy. */
static int setitem_impl(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v, const char *fname)
{
    if (is_sym(x) || (is_tensor(v) && is_sym(v)) || D2_MODE(I)->builder)
        return setitem_static(I, x, key, v, fname);
    bool full_mask = (is_tensor(key) && obj_type(key)->dtype == D2_BOOL &&
                      obj_type(key)->shape.ndim == obj_type(x)->shape.ndim) ||
                     (is_ndarray(key) && NDA(key)->t->dtype == D2_BOOL &&
                      NDA(key)->t->ndim == obj_type(x)->shape.ndim);
    if (full_mask || several_index_arrays(key)) {
        /* a mask of x's shape (Paddle expands v to x's shape), or index arrays
         * zipped together (numpy): the functional form, run now */
        d2_obj *r = d2_pd_setitem_functional(I, x, key, v);
        if (!r)
            return -1;
        d2_tensor_unref(TOBJ(x)->t);
        TOBJ(x)->t = d2_tensor_ref(TOBJ(r)->t);
        d2_decref(r);
        return 0;
    }
    d2_tensor *mask;
    int mk = bool_mask(I, key, &obj_type(x)->shape, true, fname, &mask);
    if (mk != 0) {
        int r = mk > 0 ? mask_assign(I, x, mask, v, fname) : -1;
        if (mask)
            d2_tensor_unref(mask);
        return r;
    }
    d2_tensor *h = d2_pd_host(I, x, fname);
    if (!h)
        return -1;
    d2_err err = {0};
    d2_tensor *w = d2_tensor_copy_to(h, NULL, &err);
    d2_tensor_unref(h);
    if (!w) {
        d2_raise_err(I, &err);
        return -1;
    }
    d2_shape xs;
    d2_tensor_get_shape(w, &xs);
    ix_plan p;
    int rc = -1;
    d2_tensor *val = NULL;
    d2_tensor *list[D2_MAX_DIMS] = {NULL}; /* explicit index lists per dim (owned) */
    if (ix_parse(I, NULL, &xs, key, &p, fname) < 0)
        goto done;
    /* per input dim: start, step, count, or an explicit index list */
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS], count[D2_MAX_DIMS];
    int64_t rshape[D2_MAX_DIMS];
    int region[D2_MAX_DIMS]; /* input dim -> dim of the selection, -1 when indexed away */
    int rn = 0, d = 0;
    for (int i = 0; i < p.n; i++) {
        ix_item *it = &p.it[i];
        if (it->kind == IX_NONE)
            continue;
        int64_t dim = xs.dims[d];
        region[d] = it->kind == IX_INT ? -1 : rn;
        start[d] = 0;
        step[d] = 1;
        count[d] = dim;
        if (it->kind == IX_INT) {
            start[d] = it->start < 0 ? it->start + dim : it->start;
            count[d] = 1;
        } else if (it->kind == IX_SLICE) {
            int64_t st = it->step, a = it->start, b = it->stop;
            if (a < 0) {
                a += dim;
                if (a < 0)
                    a = st < 0 ? -1 : 0;
            } else if (a >= dim)
                a = st < 0 ? dim - 1 : dim;
            if (b < 0) {
                b += dim;
                if (b < 0)
                    b = st < 0 ? -1 : 0;
            } else if (b >= dim)
                b = st < 0 ? dim - 1 : dim;
            int64_t diff = st > 0 ? (b > a ? b - a : 0) : (a > b ? a - b : 0);
            int64_t ust = st > 0 ? st : -st;
            start[d] = a;
            step[d] = st;
            count[d] = diff / ust + (diff % ust != 0);
            rshape[rn++] = count[d];
        } else if (it->kind == IX_TENSOR) {
            list[d] = d2_pd_host(I, it->index, fname);
            if (!list[d])
                goto done;
            count[d] = d2_tensor_numel(list[d]);
            for (int64_t k = 0; k < count[d]; k++) {
                int64_t iv = d2_tensor_get_i64(list[d], k);
                if (iv < -dim || iv >= dim) {
                    d2_raise(I, "IndexError",
                             "%s: index %lld is out of bounds for axis %d with size %lld", fname,
                             (long long)iv, d, (long long)dim);
                    goto done;
                }
            }
            if (list[d]->ndim == 1)
                rshape[rn++] = count[d];
            else
                region[d] = -1;
        } else {
            rshape[rn++] = dim;
        }
        d++;
    }
    for (; d < xs.ndim; d++) {
        start[d] = 0;
        step[d] = 1;
        count[d] = xs.dims[d];
        region[d] = rn;
        rshape[rn++] = xs.dims[d];
    }
    val = d2_pd_from_py(I, v, w->dtype, D2_F32, fname);
    if (!val)
        goto done;
    /* numpy broadcast of val's shape to the region shape */
    if (val->ndim > rn) {
        int extra = val->ndim - rn;
        for (int k = 0; k < extra; k++)
            if (val->shape[k] != 1) {
                d2_raise(I, "ValueError", "%s: cannot assign a value of %d dims into %d dims",
                         fname, val->ndim, rn);
                goto done;
            }
    }
    int64_t vstr[D2_MAX_DIMS];
    {
        int64_t s = 1;
        for (int k = rn - 1; k >= 0; k--) {
            int vk = val->ndim - rn + k;
            int64_t vd = vk >= 0 ? val->shape[vk] : 1;
            if (vd != 1 && vd != rshape[k]) {
                d2_raise(I, "ValueError",
                         "%s: could not broadcast a value of shape dim %lld into the selection of "
                         "size %lld",
                         fname, (long long)vd, (long long)rshape[k]);
                goto done;
            }
            vstr[k] = vd == 1 ? 0 : s;
            s *= vd;
        }
    }
    int64_t xstr[D2_MAX_DIMS];
    d2_contiguous_strides(xs.ndim, xs.dims, xstr);
    int64_t total = 1;
    for (int k = 0; k < xs.ndim; k++)
        total *= count[k];
    size_t es = d2_dtype_size(w->dtype);
    char *wd = d2_tensor_data(w);
    const char *vd = d2_tensor_data(val);
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0, voff = 0;
        for (int k = 0; k < xs.ndim; k++) {
            int64_t pos;
            if (list[k]) {
                pos = d2_tensor_get_i64(list[k], idx[k]);
                if (pos < 0)
                    pos += xs.dims[k];
            } else {
                pos = start[k] + idx[k] * step[k];
            }
            off += pos * xstr[k];
            if (region[k] >= 0)
                voff += idx[k] * vstr[region[k]];
        }
        memcpy(wd + off * (int64_t)es, vd + voff * (int64_t)es, es);
        for (int k = xs.ndim - 1; k >= 0; k--) {
            if (++idx[k] < count[k])
                break;
            idx[k] = 0;
        }
    }
    {
        d2_tensor *nt = d2_pd_to_backend(I, w);
        w = NULL;
        if (!nt)
            goto done;
        d2_tensor_unref(TOBJ(x)->t);
        TOBJ(x)->t = nt;
    }
    rc = 0;
done:
    for (int k = 0; k < D2_MAX_DIMS; k++)
        if (list[k])
            d2_tensor_unref(list[k]);
    ix_free(&p);
    if (val)
        d2_tensor_unref(val);
    if (w)
        d2_tensor_unref(w);
    return rc;
}

/* ======================================================================
 * Functional x[key] = v: a new tensor (set_value, index_put, where), for
 * static mode and to_static
 * ====================================================================== */

/* v as a tensor of x's dtype. */
static d2_obj *value_for(d2_interp *I, d2_obj *x, d2_obj *v, const char *fname)
{
    d2_obj *t = d2_pd_as_tensor(I, v, obj_type(x)->dtype, fname);
    if (!t)
        return NULL;
    d2_obj *c = d2_pd_cast_to(I, fname, t, obj_type(x)->dtype);
    d2_decref(t);
    return c;
}

/* slice's and set_value's attributes for items (ints, slices, full slices) over dims 0.. */
static void slice_attrs(d2_ab *b, const ix_item *const *it, int n)
{
    int64_t axes[D2_MAX_DIMS], starts[D2_MAX_DIMS], ends[D2_MAX_DIMS], strides[D2_MAX_DIMS],
        dec[D2_MAX_DIMS];
    int na = 0, nd = 0;
    for (int d = 0; d < n && d < D2_MAX_DIMS; d++) {
        if (it[d]->kind == IX_FULL)
            continue;
        axes[na] = d;
        starts[na] = it[d]->start;
        if (it[d]->kind == IX_INT) {
            ends[na] = it[d]->start == -1 ? INT64_MAX : it[d]->start + 1;
            strides[na++] = 1;
            dec[nd++] = d;
        } else {
            ends[na] = it[d]->stop;
            strides[na++] = it[d]->step;
        }
    }
    d2_ab_ints(b, "axes", axes, na);
    d2_ab_ints(b, "starts", starts, na);
    d2_ab_ints(b, "ends", ends, na);
    d2_ab_ints(b, "strides", strides, na);
    d2_ab_ints(b, "decrease_axis", dec, nd);
}

static d2_obj *emit_set_value(d2_interp *I, d2_obj *x, d2_obj *val, const ix_item *const *it,
                              int n, const char *fname)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_set_value);
    slice_attrs(&b, it, n);
    return op2(I, fname, D2_OP_set_value, x, val, &b);
}

static d2_obj *emit_index_put(d2_interp *I, d2_obj *x, d2_obj *val, const ix_item *const *it,
                              int nt, int axis, const char *fname)
{
    d2_obj *in[2 + D2_MAX_DIMS] = {x, val};
    for (int i = 0; i < nt; i++)
        in[2 + i] = it[i]->index;
    d2_ab b;
    d2_ab_init(&b, D2_OP_index_put);
    d2_ab_int(&b, "axis", axis);
    return d2_pd_opn(I, fname, D2_OP_index_put, in, 2 + nt, &b);
}

static bool all_full(const ix_item *const *it, int n)
{
    for (int i = 0; i < n; i++)
        if (it[i]->kind != IX_FULL)
            return false;
    return true;
}

static d2_obj *assign_items(d2_interp *I, d2_obj *x, const ix_item *const *it, int n, d2_obj *v,
                            const char *fname);

/* x[T1, :, T2] = v, tensor (or int) indices separated by full slices → the
 * indexed dims moved to the front (transpose), y[T1, T2] = v there, and the
 * dims moved back: numpy's and Paddle's order, where the broadcast index dims
 * come first in the shape v must fit. */
static d2_obj *assign_separated(d2_interp *I, d2_obj *x, const ix_item *const *it, int n,
                                d2_obj *v, const char *fname)
{
    int nd = obj_type(x)->shape.ndim;
    int64_t perm[D2_MAX_DIMS], inv[D2_MAX_DIMS];
    const ix_item *moved[2 * D2_MAX_DIMS + 2];
    ix_item full = {IX_FULL, 0, 0, 0, NULL};
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (it[i]->kind == IX_TENSOR || it[i]->kind == IX_INT) {
            moved[k] = it[i];
            perm[k++] = i;
        } else if (it[i]->kind != IX_FULL) {
            d2_raise(I, "IndexError",
                     "%s: tensor indices separated by a partial slice cannot be assigned into "
                     "inside to_static; assign through one index group at a time",
                     fname);
            return NULL;
        }
    }
    int nt = k;
    for (int i = 0; i < nd; i++)
        if (i >= n || it[i]->kind == IX_FULL)
            perm[k++] = i;
    for (int i = nt; i < nd; i++)
        moved[i] = &full;
    for (int i = 0; i < nd; i++)
        inv[perm[i]] = i;
    d2_ab b;
    d2_ab_init(&b, D2_OP_transpose);
    d2_ab_ints(&b, "perm", perm, nd);
    d2_obj *y = op1(I, fname, D2_OP_transpose, x, &b);
    d2_obj *y2 = y ? assign_items(I, y, moved, nd, v, fname) : NULL;
    d2_obj *r = NULL;
    if (y2) {
        d2_ab_init(&b, D2_OP_transpose);
        d2_ab_ints(&b, "perm", inv, nd);
        r = op1(I, fname, D2_OP_transpose, y2, &b);
    }
    d2_decref(y);
    d2_decref(y2);
    return r;
}

/* x with the selection of items it[0..n) (no None) replaced by v. */
static d2_obj *assign_items(d2_interp *I, d2_obj *x, const ix_item *const *it, int n, d2_obj *v,
                            const char *fname)
{
    int ft = -1, lt = -1;
    for (int i = 0; i < n; i++)
        if (it[i]->kind == IX_TENSOR) {
            if (ft < 0)
                ft = i;
            lt = i;
        }
    if (ft < 0) {
        d2_obj *val = value_for(I, x, v, fname);
        d2_obj *r = val ? emit_set_value(I, x, val, it, n, fname) : NULL;
        d2_decref(val);
        return r;
    }
    /* ints next to the tensor indices join them (numpy: they are advanced indices too) */
    while (ft > 0 && it[ft - 1]->kind == IX_INT)
        ft--;
    while (lt + 1 < n && it[lt + 1]->kind == IX_INT)
        lt++;
    for (int i = 0; i < n; i++) {
        bool inside = i >= ft && i <= lt;
        if ((inside && it[i]->kind != IX_TENSOR && it[i]->kind != IX_INT) ||
            (!inside && (it[i]->kind == IX_INT || it[i]->kind == IX_TENSOR)))
            return assign_separated(I, x, it, n, v, fname);
    }
    int nt = lt - ft + 1;
    ix_item conv[D2_MAX_DIMS];
    const ix_item *t[D2_MAX_DIMS];
    d2_obj *made[D2_MAX_DIMS] = {NULL};
    d2_obj *r = NULL;
    for (int i = 0; i < nt; i++) {
        t[i] = it[ft + i];
        if (t[i]->kind == IX_INT) {
            made[i] = d2_pd_const_tensor(I, 0, t[i]->start, true, D2_I64);
            if (!made[i])
                goto done;
            conv[i] = *t[i];
            conv[i].kind = IX_TENSOR;
            conv[i].index = made[i];
            t[i] = &conv[i];
        }
    }
    bool pfull = all_full(it, ft), sfull = all_full(it + lt + 1, n - lt - 1);
    if (pfull && sfull) {
        d2_obj *val = value_for(I, x, v, fname);
        r = val ? emit_index_put(I, x, val, t, nt, ft, fname) : NULL;
        d2_decref(val);
    } else if (!pfull) {
        /* x[P, T, S] = v: y = x[P]; y[:, T, S] = v; x[P] = y (P holds slices only) */
        ix_item full = {IX_FULL, 0, 0, 0, NULL};
        const ix_item *rest[2 * D2_MAX_DIMS + 2];
        for (int i = 0; i < n; i++)
            rest[i] = i < ft ? &full : i < ft + nt ? t[i - ft] : it[i];
        d2_ab b;
        d2_ab_init(&b, D2_OP_slice);
        slice_attrs(&b, it, ft);
        d2_obj *y = op1(I, fname, D2_OP_slice, x, &b);
        d2_obj *y2 = y ? assign_items(I, y, rest, n, v, fname) : NULL;
        r = y2 ? emit_set_value(I, x, y2, it, ft, fname) : NULL;
        d2_decref(y);
        d2_decref(y2);
    } else if (nt == 1) {
        /* x[:, T, S] = v: y = x[:, T]; y[:, :, S] = v; x[:, T] = y */
        d2_ab b;
        d2_ab_init(&b, D2_OP_gather);
        d2_ab_int(&b, "axis", ft);
        d2_obj *y = op2(I, fname, D2_OP_gather, x, t[0]->index, &b);
        int keep = obj_type(t[0]->index)->shape.ndim == 1 ? 1 : 0;
        ix_item full = {IX_FULL, 0, 0, 0, NULL};
        const ix_item *rest[2 * D2_MAX_DIMS + 2];
        int m = 0;
        for (int i = 0; i < ft + keep; i++)
            rest[m++] = &full;
        for (int i = lt + 1; i < n; i++)
            rest[m++] = it[i];
        d2_obj *y2 = y ? assign_items(I, y, rest, m, v, fname) : NULL;
        r = y2 ? emit_index_put(I, x, y2, t, 1, ft, fname) : NULL;
        d2_decref(y);
        d2_decref(y2);
    } else {
        d2_raise(I, "IndexError",
                 "%s: several tensor indices followed by a partial slice cannot be assigned into "
                 "inside to_static",
                 fname);
    }
done:
    for (int i = 0; i < nt; i++)
        d2_decref(made[i]);
    return r;
}

/* assert(sum(mi) == last + 1): the mask selects as many rows as v has
 * (Paddle's expand of v fails otherwise). */
static int check_row_count(d2_interp *I, d2_obj *mi, d2_obj *last, const char *fname)
{
    d2_ab b;
    d2_ab_init(&b, D2_OP_sum);
    d2_obj *n = op1(I, fname, D2_OP_sum, mi, &b);
    d2_obj *one = n ? d2_pd_const_tensor(I, 0, 1, true, D2_I64) : NULL;
    d2_obj *k = one ? op2(I, fname, D2_OP_add, last, one, NULL) : NULL;
    d2_obj *eq = k ? op2(I, fname, D2_OP_equal, n, k, NULL) : NULL;
    int rc = -1;
    if (eq) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "%s: the boolean mask selects a different number of rows than the value "
                 "gives (one value per selected row)",
                 fname);
        d2_ab_init(&b, D2_OP_assert);
        d2_ab_str(&b, "message", msg);
        d2_obj *none = NULL;
        rc = b.bad ? -1 : d2_apply_op(I, D2_OP_assert, &eq, 1, &b.a, &none, 0);
        d2_attrs_free(&b.a);
        if (rc < 0 && !d2_exc_pending(I))
            nomem(I);
    }
    d2_decref(n);
    d2_decref(one);
    d2_decref(k);
    d2_decref(eq);
    return rc;
}

/* x[mask] = v with one value per selected row, v of shape [k, trailing...]
 * (mask over x's leading dims) → where(mask, gather(v, min(rank, k - 1)), x),
 * rank = the exclusive cumsum of the flattened mask: the j-th selected row
 * takes v[j], as Paddle's index_put with a boolean index does, with shapes
 * that do not depend on the data. New reference: the gathered rows in the
 * mask's shape followed by v's trailing dims. */
static d2_obj *mask_rows(d2_interp *I, d2_obj *m, d2_obj *val, const char *fname)
{
    const d2_shape *ms = &obj_type(m)->shape, *vs = &obj_type(val)->shape;
    int64_t shape[D2_MAX_DIMS];
    int nd = 0, dyn = 0;
    for (int d = 0; d < ms->ndim; d++)
        dyn += (shape[nd++] = ms->dims[d]) < 0;
    for (int d = 1; d < vs->ndim && nd < D2_MAX_DIMS; d++)
        dyn += (shape[nd++] = vs->dims[d]) < 0;
    if (ms->ndim > 1 && dyn > 1)
        return d2_raise(I, "ValueError",
                        "%s: one value per selected row with a boolean mask over several dims "
                        "is not supported inside to_static when more than one of the mask's "
                        "and the value's dims are dynamic",
                        fname);
    d2_obj *flat = d2_incref(m);
    if (ms->ndim > 1) {
        int64_t all = -1;
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", &all, 1);
        d2_setref(&flat, op1(I, fname, D2_OP_reshape, flat, &b));
    }
    d2_obj *mi = flat ? d2_pd_cast_to(I, fname, flat, D2_I64) : NULL, *rank = NULL, *last = NULL;
    if (mi) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_cumsum);
        d2_ab_int(&b, "axis", 0);
        d2_ab_bool(&b, "exclusive", true);
        rank = op1(I, fname, D2_OP_cumsum, mi, &b);
    }
    if (rank && vs->dims[0] >= 0) {
        last = d2_pd_const_tensor(I, 0, vs->dims[0] - 1, true, D2_I64);
    } else if (rank) {
        d2_obj *sh = op1(I, fname, D2_OP_shape, val, NULL);
        d2_ab b;
        d2_ab_init(&b, D2_OP_slice);
        int64_t ax = 0, st = 0, en = 1;
        d2_ab_ints(&b, "axes", &ax, 1);
        d2_ab_ints(&b, "starts", &st, 1);
        d2_ab_ints(&b, "ends", &en, 1);
        d2_ab_ints(&b, "decrease_axis", &ax, 1);
        d2_obj *k = sh ? op1(I, fname, D2_OP_slice, sh, &b) : NULL;
        d2_obj *k64 = k ? d2_pd_cast_to(I, fname, k, D2_I64) : NULL;
        d2_obj *one = k64 ? d2_pd_const_tensor(I, 0, 1, true, D2_I64) : NULL;
        last = one ? op2(I, fname, D2_OP_subtract, k64, one, NULL) : NULL;
        d2_decref(sh);
        d2_decref(k);
        d2_decref(k64);
        d2_decref(one);
    }
    if (last && check_row_count(I, mi, last, fname) < 0)
        d2_setref(&last, NULL);
    d2_obj *idx = last ? op2(I, fname, D2_OP_minimum, rank, last, NULL) : NULL, *r = NULL;
    if (idx) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_gather);
        d2_ab_int(&b, "axis", 0);
        r = op2(I, fname, D2_OP_gather, val, idx, &b);
    }
    if (r && ms->ndim > 1) {
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", shape, nd);
        d2_setref(&r, op1(I, fname, D2_OP_reshape, r, &b));
    }
    d2_decref(flat);
    d2_decref(mi);
    d2_decref(rank);
    d2_decref(last);
    d2_decref(idx);
    return r;
}

/* x[mask] = v: where(mask, v, x), as Paddle 2.6 assigns: a mask of x's shape
 * takes v expanded to x's shape (so a v with one value per selected element
 * is not taken one by one); a mask over leading dims takes one v, or one per
 * trailing sub-tensor, for all the selected rows. */
static d2_obj *assign_mask(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v, const char *fname)
{
    const d2_shape *xs = &obj_type(x)->shape;
    d2_obj *m = d2_pd_as_tensor(I, key, D2_BOOL, fname);
    if (!m)
        return NULL;
    const d2_shape *ms = &obj_type(m)->shape;
    d2_obj *val = NULL, *r = NULL;
    bool ok = ms->ndim <= xs->ndim;
    for (int d = 0; ok && d < ms->ndim; d++)
        ok = ms->dims[d] < 0 || xs->dims[d] < 0 || ms->dims[d] == xs->dims[d];
    if (!ok) {
        char a[128], b[128];
        d2_shape_str(ms, a, sizeof a);
        d2_shape_str(xs, b, sizeof b);
        d2_raise(I, "IndexError", "%s: the boolean mask's shape %s does not match the tensor's %s",
                 fname, a, b);
        goto done;
    }
    val = value_for(I, x, v, fname);
    if (!val)
        goto done;
    const d2_shape *vs = &obj_type(val)->shape;
    if (ms->ndim == xs->ndim) {
        /* Paddle expands v to x's shape */
        bool fits = vs->ndim <= xs->ndim;
        int bad = -1;
        for (int d = 0; fits && d < vs->ndim; d++) {
            int64_t a = vs->dims[vs->ndim - 1 - d], b = xs->dims[xs->ndim - 1 - d];
            if (a != 1 && a >= 0 && b >= 0 && a != b) {
                fits = false;
                bad = d;
            }
        }
        if (!fits) {
            char a[128], b[128];
            d2_shape_str(vs, a, sizeof a);
            d2_shape_str(xs, b, sizeof b);
            if (bad >= 0)
                d2_raise(I, "ValueError",
                         "%s: the value's shape %s cannot be expanded to the tensor's %s (the "
                         "value (%lld) of a non-singleton dimension does not match the "
                         "corresponding value (%lld)); with a boolean mask of the tensor's shape "
                         "the value is expanded to the tensor's shape, not taken one per "
                         "selected element",
                         fname, a, b, (long long)vs->dims[vs->ndim - 1 - bad],
                         (long long)xs->dims[xs->ndim - 1 - bad]);
            else
                d2_raise(I, "ValueError", "%s: the value's shape %s cannot be expanded to the "
                         "tensor's %s", fname, a, b);
            goto done;
        }
    } else {
        int lead = vs->ndim - (xs->ndim - ms->ndim);
        for (int d = 0; d < lead; d++)
            if (vs->dims[d] != 1 && lead > 1) {
                char a[128], b[128];
                d2_shape_str(vs, a, sizeof a);
                d2_shape_str(xs, b, sizeof b);
                d2_raise(I, "ValueError",
                         "%s: the value's shape %s does not fit the rows a boolean mask over "
                         "%d leading dims of %s selects: give one value for all of them or one "
                         "per selected row",
                         fname, a, ms->ndim, b);
                goto done;
            }
        if (lead == 1 && vs->dims[0] != 1)
            d2_setref(&val, mask_rows(I, m, val, fname)); /* one value per selected row */
        if (!val)
            goto done;
    }
    if (ms->ndim < xs->ndim) {
        int64_t ax[D2_MAX_DIMS];
        int na = 0;
        for (int d = ms->ndim; d < xs->ndim; d++)
            ax[na++] = d;
        d2_ab b;
        d2_ab_init(&b, D2_OP_unsqueeze);
        d2_ab_ints(&b, "axis", ax, na);
        d2_setref(&m, op1(I, fname, D2_OP_unsqueeze, m, &b));
        if (!m)
            goto done;
    }
    d2_obj *in[3] = {m, val, x};
    r = d2_pd_opn(I, fname, D2_OP_where, in, 3, NULL);
done:
    d2_decref(m);
    d2_decref(val);
    return r;
}

d2_obj *d2_pd_setitem_functional(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v)
{
    const char *fname = "Tensor.__setitem__";
    if ((is_tensor(key) && obj_type(key)->dtype == D2_BOOL) ||
        (is_ndarray(key) && NDA(key)->t->dtype == D2_BOOL))
        return assign_mask(I, x, key, v, fname);
    const d2_shape *xs = &obj_type(x)->shape;
    if (xs->ndim == 0 && !(key->kind == D2_OBJ_ELLIPSIS || is_none(I, key) ||
                           (key->kind == D2_OBJ_TUPLE && D2_AS(d2_tuple, key)->n == 0)))
        return d2_raise(I, "IndexError", "%s: a 0-D tensor cannot be indexed", fname);
    ix_plan p;
    if (ix_parse(I, x, xs, key, &p, fname) < 0) {
        ix_free(&p);
        return NULL;
    }
    const ix_item *it[2 * D2_MAX_DIMS + 2];
    int n = 0;
    bool none = false, tensor = false;
    for (int i = 0; i < p.n; i++) {
        if (p.it[i].kind == IX_NONE) {
            none = true;
            continue;
        }
        tensor |= p.it[i].kind == IX_TENSOR;
        it[n++] = &p.it[i];
    }
    d2_obj *r = NULL;
    if (none && tensor)
        d2_raise(I, "IndexError",
                 "%s: None together with tensor indices cannot be assigned into inside to_static",
                 fname);
    else
        r = assign_items(I, x, it, n, v, fname);
    ix_free(&p);
    return r;
}

/* Whether symbolic tensor x stands for a variable of the block being built now. */
bool d2_pd_sym_in_current_block(d2_interp *I, d2_obj *x)
{
    d2_builder *B = D2_MODE(I)->builder;
    if (!is_sym(x) || !B || TOBJ(x)->builder != B || TOBJ(x)->var < 0 ||
        TOBJ(x)->var >= B->prog->n_vars)
        return false;
    return B->prog->vars[TOBJ(x)->var].block == B->block;
}

/* x[key] = v while a Program is built: x, a variable of the current block,
 * comes to stand for the updated value; elsewhere (a variable of an enclosing
 * block, a parameter) the assignment would escape its block, and to_static's
 * converted code rebinds the name instead (_jst.SetItem). */
static int setitem_static(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v, const char *fname)
{
    if (!d2_pd_sym_in_current_block(I, x)) {
        d2_raise(I, "TypeError",
                 "%s: assigning into a tensor defined outside the current branch or loop body "
                 "is not supported here; assign to the tensor where it is defined, or build the "
                 "new value with paddle.where",
                 fname);
        return -1;
    }
    d2_obj *r = d2_pd_setitem_functional(I, x, key, v);
    if (!r)
        return -1;
    d2_pd_sym_rebind(x, r);
    d2_decref(r);
    return 0;
}

/* Symbolic x takes over r's variable and type (both of the same builder). */
void d2_pd_sym_rebind(d2_obj *x, d2_obj *r)
{
    TOBJ(x)->var = TOBJ(r)->var;
    TOBJ(x)->type = TOBJ(r)->type;
}

d2_obj *d2_pd_tensor_getitem(d2_interp *I, d2_obj *x, d2_obj *key)
{
    return getitem_impl(I, x, key, "Tensor.__getitem__");
}

int d2_pd_tensor_setitem(d2_interp *I, d2_obj *x, d2_obj *key, d2_obj *v)
{
    if (D2_MODE(I)->tracer)
        trace_frozen(I, x, D2_FREEZE_SETITEM);
    bool eager = !is_sym(x) && !(is_tensor(v) && is_sym(v)) && !D2_MODE(I)->builder;
    if (eager && d2_pd_grad_enabled(I) &&
        (!TOBJ(x)->stop_gradient || (is_tensor(v) && !TOBJ(v)->stop_gradient)))
        return setitem_taped(I, x, key, v);
    return setitem_impl(I, x, key, v, "Tensor.__setitem__");
}

/* ======================================================================
 * Indexing for numpy.ndarray: the tensor rules, always eager on the CPU
 * ====================================================================== */

typedef struct eager_cpu {
    d2_builder *builder;
    struct d2_tracer *tracer;
    d2_backend *backend;
} eager_cpu;

static void eager_cpu_begin(d2_interp *I, eager_cpu *s)
{
    s->builder = D2_MODE(I)->builder;
    s->tracer = D2_MODE(I)->tracer;
    s->backend = D2_MODE(I)->backend;
    D2_MODE(I)->builder = NULL;
    D2_MODE(I)->tracer = NULL;
    D2_MODE(I)->backend = d2_cpu_backend();
}

static void eager_cpu_end(d2_interp *I, const eager_cpu *s)
{
    D2_MODE(I)->builder = s->builder;
    D2_MODE(I)->tracer = s->tracer;
    D2_MODE(I)->backend = s->backend;
}

int d2_pd_index_host(d2_interp *I, d2_tensor *t, d2_obj *key, d2_tensor **out)
{
    eager_cpu s;
    eager_cpu_begin(I, &s);
    d2_obj *x = d2_tensor_wrap(I, t);
    d2_obj *r = x ? getitem_impl(I, x, key, "ndarray.__getitem__") : NULL;
    eager_cpu_end(I, &s);
    *out = r ? d2_tensor_ref(TOBJ(r)->t) : NULL;
    d2_decref(x);
    d2_decref(r);
    return *out ? 0 : -1;
}

int d2_pd_setitem_host(d2_interp *I, d2_tensor **t, d2_obj *key, d2_obj *v)
{
    eager_cpu s;
    eager_cpu_begin(I, &s);
    d2_obj *x = d2_tensor_wrap(I, *t);
    int rc = x ? setitem_impl(I, x, key, v, "ndarray.__setitem__") : -1;
    eager_cpu_end(I, &s);
    if (rc == 0) {
        d2_tensor_unref(*t);
        *t = d2_tensor_ref(TOBJ(x)->t);
    }
    d2_decref(x);
    return rc;
}

/* shape.c - CPU kernels for manipulation, creation, tensor-array and side-effect ops. */
#include "../backend.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KN(k) ((k)->def->name)
#define VIEW_MAX (2 * D2_MAX_DIMS)

static size_t esize(const d2_tensor *t) { return d2_dtype_size(t->dtype); }

/* Fails unless t is a plain tensor on the host of a valid dtype: these
 * kernels move bytes, so the storage dtypes (float16, int8, ...) pass too. */
static int want_host(d2_kctx *k, const d2_tensor *t, const char *what)
{
    if (!t)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: %s is missing", KN(k), what);
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: %s is a tensor array, expected a tensor",
                          KN(k), what);
    if ((unsigned)t->dtype >= D2_NUM_DTYPES)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: %s has unsupported dtype %s", KN(k), what,
                          d2_dtype_name(t->dtype));
    if (t->storage && t->storage->backend->kind != D2_BACKEND_CPU)
        return d2_err_set(k->err, D2_ERR_DEVICE, "%s: %s is not on the CPU", KN(k), what);
    return 0;
}

static bool same_shape(const d2_tensor *t, const d2_shape *s)
{
    d2_shape ts;
    d2_tensor_get_shape(t, &ts);
    return d2_shape_equal(&ts, s);
}

static int bad_out(d2_kctx *k)
{
    return d2_err_set(k->err, D2_ERR_SHAPE, "%s: output does not match the inferred shape",
                      KN(k));
}

/* view_copy's case of a transpose: the innermost of the n merged dims (d, strides s) is
 * strided and the one before it contiguous in src (NCHW <-> NHWC, attention's head
 * transposes). Each [a, b] plane is copied in tiles of 16 source-contiguous elements, so that
 * reads run along memory instead of one element per row. */
static void transpose_copy(char *dst, const char *src, int n, const int64_t *d, const int64_t *s,
                           size_t es)
{
    int64_t a_n = d[n - 2], b_n = d[n - 1], bst = s[n - 1], outer = 1;
    for (int i = 0; i < n - 2; i++)
        outer *= d[i];
    int nt = d2_gemm_threads();
    if (nt > outer)
        nt = (int)outer;
    if (outer * a_n * b_n < 65536)
        nt = 1;
    /* large copies: planes split over threads (each plane's source offset from its index) */
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
    for (int64_t o = 0; o < outer; o++) {
        int64_t off = 0, r = o;
        for (int i = n - 3; i >= 0; i--) {
            off += (r % d[i]) * s[i];
            r /= d[i];
        }
        char *dp0 = dst + (size_t)(o * a_n * b_n) * es;
        for (int64_t a0 = 0; a0 < a_n; a0 += 16) {
            int64_t a1 = a0 + 16 < a_n ? a0 + 16 : a_n;
            for (int64_t b = 0; b < b_n; b++) {
                if (es == 4) {
                    const float *sp = (const float *)src + off + b * bst;
                    float *dp = (float *)dp0 + b;
                    for (int64_t a = a0; a < a1; a++)
                        dp[a * b_n] = sp[a];
                } else {
                    for (int64_t a = a0; a < a1; a++)
                        memcpy(dp0 + (size_t)(a * b_n + b) * es,
                               src + (size_t)(off + b * bst + a) * es, es);
                }
            }
        }
    }
}

/* Copies the strided view (dims, element strides st, origin src) into the
 * contiguous dst. Size-1 dims are dropped; the innermost dim is a memcpy when
 * its stride is 1. */
static void view_copy(char *dst, const char *src, int nd, const int64_t *dims, const int64_t *st,
                      size_t es)
{
    int64_t d[VIEW_MAX], s[VIEW_MAX];
    int n = 0;
    for (int i = 0; i < nd; i++) {
        if (dims[i] == 0)
            return;
        if (dims[i] == 1)
            continue;
        if (n > 0 && s[n - 1] == st[i] * dims[i]) { /* merge with the outer dim */
            d[n - 1] *= dims[i];
            s[n - 1] = st[i];
            continue;
        }
        d[n] = dims[i];
        s[n] = st[i];
        n++;
    }
    if (n == 0) {
        memcpy(dst, src, es);
        return;
    }
    int64_t inner = d[n - 1], ist = s[n - 1], outer = 1;
    if (n >= 2 && ist != 1 && s[n - 2] == 1) {
        transpose_copy(dst, src, n, d, s, es);
        return;
    }
    for (int i = 0; i < n - 1; i++)
        outer *= d[i];
    int64_t idx[VIEW_MAX] = {0}, off = 0;
    for (int64_t o = 0; o < outer; o++) {
        if (ist == 1) {
            memcpy(dst, src + off * (int64_t)es, (size_t)inner * es);
            dst += (size_t)inner * es;
        } else {
            switch (es) {
            case 1:
                for (int64_t j = 0; j < inner; j++)
                    dst[j] = src[off + j * ist];
                break;
            case 4:
                for (int64_t j = 0; j < inner; j++)
                    memcpy(dst + j * 4, src + (off + j * ist) * 4, 4);
                break;
            case 8:
                for (int64_t j = 0; j < inner; j++)
                    memcpy(dst + j * 8, src + (off + j * ist) * 8, 8);
                break;
            default:
                for (int64_t j = 0; j < inner; j++)
                    memcpy(dst + (size_t)j * es, src + (off + j * ist) * (int64_t)es, es);
            }
            dst += (size_t)inner * es;
        }
        for (int i = n - 2; i >= 0; i--) {
            off += s[i];
            if (++idx[i] < d[i])
                break;
            off -= s[i] * d[i];
            idx[i] = 0;
        }
    }
}

/* Copies x into out when both hold the same elements in the same order
 * (reshape, flatten, squeeze, unsqueeze, assign). */
static int copy_same(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (want_host(k, x, "x") < 0)
        return -1;
    if (out->dtype != x->dtype || d2_tensor_numel(out) != d2_tensor_numel(x))
        return bad_out(k);
    size_t n = (size_t)d2_tensor_numel(x) * esize(x);
    if (n)
        memmove(d2_tensor_data(out), d2_tensor_data(x), n);
    return 0;
}

int cpu_reshape(d2_kctx *k) { return copy_same(k); }
int cpu_flatten(d2_kctx *k) { return copy_same(k); }
int cpu_squeeze(d2_kctx *k) { return copy_same(k); }
int cpu_unsqueeze(d2_kctx *k) { return copy_same(k); }
int cpu_assign(d2_kctx *k) { return copy_same(k); }

int cpu_transpose(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (want_host(k, x, "x") < 0)
        return -1;
    int n;
    const int64_t *p = ATTR_INTS(k, "perm", &n);
    if (n != x->ndim)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: perm has %d entries for a %d-d tensor",
                          KN(k), n, x->ndim);
    int64_t dims[D2_MAX_DIMS], st[D2_MAX_DIMS];
    bool seen[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int64_t a = p[i] < 0 ? p[i] + n : p[i];
        if (a < 0 || a >= n || seen[a])
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: perm is not a permutation", KN(k));
        seen[a] = true;
        dims[i] = x->shape[a];
        st[i] = x->strides[a];
    }
    d2_shape os = {n, {0}};
    memcpy(os.dims, dims, sizeof(int64_t) * (size_t)n);
    if (out->dtype != x->dtype || !same_shape(out, &os))
        return bad_out(k);
    if (d2_tensor_numel(x) > 0)
        view_copy(d2_tensor_data(out), d2_tensor_data(x), n, dims, st, esize(x));
    return 0;
}

/* Joins xs[0..n) along axis of out (all contiguous host tensors). stack:
 * each input has out's shape without the axis; concat: out's shape except
 * along axis, whose sizes add up. Checks every input before copying. */
static int join_into(d2_kctx *k, d2_tensor **xs, int n, int axis, bool stack, d2_tensor *out)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        d2_tensor *x = xs[i];
        if (want_host(k, x, "input") < 0)
            return -1;
        if (x->dtype != out->dtype)
            return d2_err_set(k->err, D2_ERR_DTYPE, "%s: input %d has dtype %s, expected %s",
                              KN(k), i, d2_dtype_name(x->dtype), d2_dtype_name(out->dtype));
        bool ok = x->ndim == out->ndim - (stack ? 1 : 0);
        for (int d = 0, xd = 0; ok && d < out->ndim; d++) {
            if (d == axis && stack)
                continue;
            if (d != axis && x->shape[xd] != out->shape[d])
                ok = false;
            xd++;
        }
        if (!ok) {
            char a[160], b[160];
            d2_shape s0, si;
            d2_tensor_get_shape(xs[0], &s0);
            d2_tensor_get_shape(x, &si);
            d2_shape_str(&s0, a, sizeof a);
            d2_shape_str(&si, b, sizeof b);
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "%s: input %d has shape %s, which does not match %s", KN(k), i, b,
                              a);
        }
        sum += stack ? 1 : x->shape[axis];
    }
    if (sum != out->shape[axis])
        return bad_out(k);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= out->shape[d];
    for (int d = axis + 1; d < out->ndim; d++)
        inner *= out->shape[d];
    size_t es = esize(out);
    if (outer * inner * out->shape[axis] == 0)
        return 0;
    char *dst = d2_tensor_data(out);
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < n; i++) {
            size_t chunk = (size_t)((stack ? 1 : xs[i]->shape[axis]) * inner) * es;
            if (chunk) {
                memcpy(dst, (const char *)d2_tensor_data(xs[i]) + (size_t)o * chunk, chunk);
                dst += chunk;
            }
        }
    return 0;
}

int cpu_concat(d2_kctx *k)
{
    d2_tensor *out = k->out[0];
    if (k->n_in < 1 || out->ndim < 1)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: needs at least one input of rank >= 1",
                          KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), out->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    return join_into(k, k->in, k->n_in, axis, false, out);
}

int cpu_stack(d2_kctx *k)
{
    d2_tensor *out = k->out[0];
    if (k->n_in < 1 || out->ndim < 1)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: needs at least one input", KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), out->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    return join_into(k, k->in, k->n_in, axis, true, out);
}

/* split: the output shapes (from inference) give each part's size. */
int cpu_split(d2_kctx *k)
{
    d2_tensor *x = k->in[0];
    if (want_host(k, x, "x") < 0)
        return -1;
    if (x->ndim < 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: cannot split a 0-d tensor", KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t sum = 0;
    for (int i = 0; i < k->n_out; i++) {
        d2_tensor *o = k->out[i];
        bool ok = o->dtype == x->dtype && o->ndim == x->ndim;
        for (int d = 0; ok && d < x->ndim; d++)
            ok = d == axis || o->shape[d] == x->shape[d];
        if (!ok)
            return bad_out(k);
        sum += o->shape[axis];
    }
    if (sum != x->shape[axis])
        return bad_out(k);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->ndim; d++)
        inner *= x->shape[d];
    if (outer * inner * x->shape[axis] == 0)
        return 0;
    size_t es = esize(x);
    const char *src = d2_tensor_data(x);
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < k->n_out; i++) {
            size_t chunk = (size_t)(k->out[i]->shape[axis] * inner) * es;
            if (chunk) {
                memcpy((char *)d2_tensor_data(k->out[i]) + (size_t)o * chunk, src, chunk);
                src += chunk;
            }
        }
    return 0;
}

int cpu_slice(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (want_host(k, x, "x") < 0)
        return -1;
    d2_shape xs, full, os;
    d2_tensor_get_shape(x, &xs);
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS], st[D2_MAX_DIMS];
    if (d2_slice_plan(k->def, k->attrs, &xs, start, step, &full, &os, k->err) < 0)
        return -1;
    if (out->dtype != x->dtype || !same_shape(out, &os))
        return bad_out(k);
    if (d2_shape_numel(&full) == 0)
        return 0;
    int64_t base = 0;
    for (int d = 0; d < x->ndim; d++) {
        base += start[d] * x->strides[d];
        st[d] = step[d] * x->strides[d];
    }
    view_copy(d2_tensor_data(out), (const char *)d2_tensor_data(x) + base * (int64_t)esize(x),
              x->ndim, full.dims, st, esize(x));
    return 0;
}

/* gather / index_select: out[o, j, i] = x[o, index[j], i]; every index is
 * checked against the axis size before anything is copied. */
static int gather_impl(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *idx = k->in[1], *out = k->out[0];
    if (want_host(k, x, "x") < 0 || want_host(k, idx, "index") < 0)
        return -1;
    if (!d2_dtype_is_int(idx->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: index must be int32 or int64, got %s",
                          KN(k), d2_dtype_name(idx->dtype));
    if (x->ndim < 1 || idx->ndim > 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: bad x or index rank", KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t ni = d2_tensor_numel(idx), dim = x->shape[axis];
    d2_shape os;
    d2_tensor_get_shape(x, &os);
    if (idx->ndim == 1) {
        os.dims[axis] = ni;
    } else {
        for (int d = axis; d < x->ndim - 1; d++)
            os.dims[d] = x->shape[d + 1];
        os.ndim--;
    }
    if (out->dtype != x->dtype || !same_shape(out, &os))
        return bad_out(k);
    for (int64_t j = 0; j < ni; j++) {
        int64_t v = d2_tensor_get_i64(idx, j);
        if (v < 0 || v >= dim)
            return d2_err_set(k->err, D2_ERR_RUNTIME,
                              "%s: index %lld (at position %lld) is out of range for axis %d of "
                              "size %lld",
                              KN(k), (long long)v, (long long)j, axis, (long long)dim);
    }
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->ndim; d++)
        inner *= x->shape[d];
    size_t es = esize(x), row = (size_t)inner * es;
    if (outer * inner * ni == 0)
        return 0;
    const char *src = d2_tensor_data(x);
    char *dst = d2_tensor_data(out);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t v = d2_tensor_get_i64(idx, j);
            memcpy(dst, src + ((size_t)(o * dim + v)) * row, row);
            dst += row;
        }
    return 0;
}

int cpu_gather(d2_kctx *k) { return gather_impl(k); }
int cpu_index_select(d2_kctx *k) { return gather_impl(k); }

/* expand and tile share one strided view: dim d of the output is viewed as
 * (rep, xd) with strides (0, x's stride), rep = out dim / x dim. For expand
 * xd is 1 or equal to the output dim. */
static int repeat_view(d2_kctx *k, bool tile)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (want_host(k, x, "x") < 0)
        return -1;
    if (out->dtype != x->dtype || out->ndim < x->ndim)
        return bad_out(k);
    int n = out->ndim, pad = n - x->ndim;
    int64_t dims[VIEW_MAX], st[VIEW_MAX];
    int nv = 0;
    for (int d = 0; d < n; d++) {
        int64_t xd = d >= pad ? x->shape[d - pad] : 1, xst = d >= pad ? x->strides[d - pad] : 0;
        int64_t od = out->shape[d];
        bool ok = tile ? (xd == 0 ? od == 0 : od % xd == 0) : (xd == od || xd == 1);
        if (!ok)
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "%s: cannot repeat dim %d of size %lld to %lld", KN(k), d,
                              (long long)xd, (long long)od);
        dims[nv] = xd == 0 ? 0 : od / xd;
        st[nv++] = 0;
        dims[nv] = xd;
        st[nv++] = xst;
    }
    if (d2_tensor_numel(out) > 0)
        view_copy(d2_tensor_data(out), d2_tensor_data(x), nv, dims, st, esize(x));
    return 0;
}

int cpu_expand(d2_kctx *k) { return repeat_view(k, false); }
int cpu_tile(d2_kctx *k) { return repeat_view(k, true); }

/* Fills every element of out with v converted to out's dtype (integers
 * truncate toward zero; inference has checked the range). */
static int fill(d2_kctx *k, d2_tensor *out, double v)
{
    int64_t n = d2_tensor_numel(out);
    void *p = d2_tensor_data(out);
    if (n == 0)
        return 0;
    switch (out->dtype) {
    case D2_F32: {
        float f = (float)v;
        for (int64_t i = 0; i < n; i++)
            ((float *)p)[i] = f;
        return 0;
    }
    case D2_F64:
        for (int64_t i = 0; i < n; i++)
            ((double *)p)[i] = v;
        return 0;
    case D2_I32:
    case D2_I64:
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) ||
            (out->dtype == D2_I32 && !(v > -2147483649.0 && v < 2147483648.0)))
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: value %g does not fit in %s", KN(k), v,
                              d2_dtype_name(out->dtype));
        if (out->dtype == D2_I32)
            for (int64_t i = 0; i < n; i++)
                ((int32_t *)p)[i] = (int32_t)v;
        else
            for (int64_t i = 0; i < n; i++)
                ((int64_t *)p)[i] = (int64_t)v;
        return 0;
    case D2_BOOL: memset(p, v != 0, (size_t)n); return 0;
    case D2_F16:
    case D2_BF16:
    case D2_I8:
    case D2_I16:
    case D2_U8: { /* storage dtypes: the value as Paddle's cast makes it, repeated */
        size_t es = d2_dtype_size(out->dtype);
        d2_convert(D2_F64, out->dtype, 1, &v, p);
        for (int64_t i = 1; i < n; i++)
            memcpy((char *)p + (size_t)i * es, p, es);
        return 0;
    }
    default:
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype %s is not supported", KN(k),
                          d2_dtype_name(out->dtype));
    }
}

int cpu_full(d2_kctx *k) { return fill(k, k->out[0], ATTR_FLOAT(k, "value")); }
int cpu_full_like(d2_kctx *k) { return fill(k, k->out[0], ATTR_FLOAT(k, "value")); }

int cpu_arange(d2_kctx *k)
{
    d2_tensor *out = k->out[0];
    const d2_tensor *vals[3] = {NULL, NULL, NULL};
    for (int i = 0; i < k->n_in && i < 3; i++)
        if (k->in[i]) {
            if (want_host(k, k->in[i], k->def->in_names[i]) < 0)
                return -1;
            vals[i] = k->in[i];
        }
    int64_t is, ist, n;
    double fs, fst;
    if (d2_arange_plan(k->def, k->attrs, vals, out->dtype, &is, &ist, &fs, &fst, &n, k->err) < 0)
        return -1;
    if (out->ndim != 1 || out->shape[0] != n)
        return bad_out(k);
    void *p = d2_tensor_data(out);
    for (int64_t i = 0; i < n; i++) {
        switch (out->dtype) {
        case D2_F32: ((float *)p)[i] = (float)fs + (float)i * (float)fst; break;
        case D2_F64: ((double *)p)[i] = fs + (double)i * fst; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)(is + i * ist); break;
        default: ((int64_t *)p)[i] = is + i * ist; break;
        }
    }
    return 0;
}

int cpu_shape(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (!x || x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", KN(k));
    if (out->dtype != D2_I32 || d2_tensor_numel(out) != x->ndim)
        return bad_out(k);
    for (int d = 0; d < x->ndim; d++) {
        if (x->shape[d] > INT32_MAX)
            return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: dim %d (%lld) does not fit in int32",
                              KN(k), d, (long long)x->shape[d]);
        ((int32_t *)d2_tensor_data(out))[d] = (int32_t)x->shape[d];
    }
    return 0;
}

int cpu_numel(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (!x || x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", KN(k));
    if (out->dtype != D2_I64 || d2_tensor_numel(out) != 1)
        return bad_out(k);
    *(int64_t *)d2_tensor_data(out) = d2_tensor_numel(x);
    return 0;
}

/* ---- tensor arrays (the kernels store new references in k->out) ---- */

static int want_array(d2_kctx *k, const d2_tensor *a)
{
    if (!a || a->kind != D2_VALUE_ARRAY)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: input 'array' must be a tensor array",
                          KN(k));
    return 0;
}

/* Reads the one-element int index input t. */
static int read_index(d2_kctx *k, const d2_tensor *t, int64_t *i)
{
    if (want_host(k, t, "index") < 0)
        return -1;
    if (!d2_dtype_is_int(t->dtype) || d2_tensor_numel(t) != 1)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "%s: index must be an int32 or int64 tensor of one element", KN(k));
    *i = d2_tensor_get_i64(t, 0);
    return 0;
}

int cpu_array_create(d2_kctx *k)
{
    int dt = ATTR_DTYPE(k, "dtype");
    if (dt < 0 || !d2_dtype_supported((d2_dtype)dt))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: dtype %s is not supported", KN(k),
                          dt < 0 ? "none" : d2_dtype_name((d2_dtype)dt));
    k->out[0] = d2_tensor_array_new((d2_dtype)dt, k->err);
    return k->out[0] ? 0 : -1;
}

/* array_write(array, i, x) -> a new array equal to `array` with item i set to
 * x (i == length appends; negative i counts from the end). Items are shared
 * by reference, never copied. When the kernel holds the only reference to
 * `array` (nobody else can observe it), it is updated in place and returned
 * instead of copied; d2_op_run always keeps the caller's reference, so eager
 * callers always get a new array. */
int cpu_array_write(d2_kctx *k)
{
    d2_tensor *a = k->in[0], *x = k->in[2];
    int64_t i;
    if (want_array(k, a) < 0 || read_index(k, k->in[1], &i) < 0 || want_host(k, x, "x") < 0)
        return -1;
    if (x->dtype != a->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cannot write a %s tensor into an array of %s",
                          KN(k), d2_dtype_name(x->dtype), d2_dtype_name(a->dtype));
    int64_t pos = i < 0 ? i + a->array_len : i;
    if (pos < 0 || pos > a->array_len)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: index %lld is out of range for an array of length %lld", KN(k),
                          (long long)i, (long long)a->array_len);
    d2_tensor *r;
    if (__atomic_load_n(&a->refcount, __ATOMIC_ACQUIRE) == 1) {
        r = d2_tensor_ref(a);
    } else {
        r = d2_tensor_array_new(a->dtype, k->err);
        if (!r)
            return -1;
        for (int64_t j = 0; j < a->array_len; j++)
            if (d2_tensor_array_set(r, j, a->items[j], k->err) < 0) {
                d2_tensor_unref(r);
                return -1;
            }
    }
    if (d2_tensor_array_set(r, pos, x, k->err) < 0) {
        d2_tensor_unref(r);
        return -1;
    }
    k->out[0] = r;
    return 0;
}

/* array_read(array, i) -> a new reference to item i (shared, not copied). */
int cpu_array_read(d2_kctx *k)
{
    d2_tensor *a = k->in[0];
    int64_t i;
    if (want_array(k, a) < 0 || read_index(k, k->in[1], &i) < 0)
        return -1;
    int64_t pos = i < 0 ? i + a->array_len : i;
    if (pos < 0 || pos >= a->array_len)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: index %lld is out of range for an array of length %lld", KN(k),
                          (long long)i, (long long)a->array_len);
    k->out[0] = d2_tensor_ref(a->items[pos]);
    return 0;
}

int cpu_array_length(d2_kctx *k)
{
    d2_tensor *a = k->in[0], *out = k->out[0];
    if (want_array(k, a) < 0)
        return -1;
    if (out->dtype != D2_I64 || d2_tensor_numel(out) != 1)
        return bad_out(k);
    *(int64_t *)d2_tensor_data(out) = a->array_len;
    return 0;
}

/* Stacks (stack) or concatenates the items of the array into a new tensor on
 * the kernel's backend stored in k->out[0]. */
static int array_join(d2_kctx *k, bool stack)
{
    d2_tensor *a = k->in[0];
    if (want_array(k, a) < 0)
        return -1;
    int64_t n = a->array_len;
    if (n == 0)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: the tensor array is empty", KN(k));
    if (n > INT32_MAX)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: the tensor array is too long", KN(k));
    d2_tensor **xs = d2_calloc((size_t)n, sizeof *xs);
    if (!xs)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", KN(k));
    int rc = -1;
    d2_tensor *out = NULL;
    for (int64_t j = 0; j < n; j++)
        if (!(xs[j] = d2_tensor_contiguous(a->items[j], k->err)))
            goto done;
    if (want_host(k, xs[0], "item 0") < 0)
        goto done;
    int rank = xs[0]->ndim + (stack ? 1 : 0);
    if (rank < 1 || rank > D2_MAX_DIMS) {
        d2_err_set(k->err, D2_ERR_SHAPE, "%s: cannot %s items of rank %d", KN(k),
                   stack ? "stack" : "concatenate", xs[0]->ndim);
        goto done;
    }
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), rank, k->def, k->err);
    if (axis < 0)
        goto done;
    int64_t shape[D2_MAX_DIMS];
    for (int d = 0, xd = 0; d < rank; d++) {
        if (stack && d == axis) {
            shape[d] = n;
            continue;
        }
        shape[d] = xs[0]->shape[xd++];
    }
    if (!stack) {
        shape[axis] = 0;
        for (int64_t j = 0; j < n; j++) {
            if (xs[j]->ndim != rank) {
                d2_err_set(k->err, D2_ERR_SHAPE, "%s: item %lld has rank %d, item 0 has %d",
                           KN(k), (long long)j, xs[j]->ndim, rank);
                goto done;
            }
            shape[axis] += xs[j]->shape[axis];
        }
    }
    out = d2_tensor_new(k->be, xs[0]->dtype, rank, shape, k->err);
    if (!out || join_into(k, xs, (int)n, axis, stack, out) < 0)
        goto done;
    k->out[0] = out;
    out = NULL;
    rc = 0;
done:
    d2_tensor_unref(out);
    for (int64_t j = 0; j < n; j++)
        d2_tensor_unref(xs[j]);
    d2_free(xs);
    return rc;
}

int cpu_array_stack(d2_kctx *k) { return array_join(k, true); }
int cpu_array_concat(d2_kctx *k) { return array_join(k, false); }

/* The array ops of gradients build their items with other ops on the
 * kernel's backend, so that every backend shares these kernels. */

/* Appends item t (taken: its reference moves into r, or is dropped). */
static int push_item(d2_kctx *k, d2_tensor *r, d2_tensor *t)
{
    int rc = d2_tensor_array_set(r, r->array_len, t, k->err);
    d2_tensor_unref(t);
    return rc;
}

/* Runs the one-output op id on in with attrs (NULL: the defaults). */
static d2_tensor *run1(d2_kctx *k, d2_op_id id, d2_attrs *attrs, d2_tensor **in, int n_in)
{
    const d2_opdef *def = d2_op_def(id);
    d2_attrs a;
    if (!attrs) {
        d2_attrs_init_default(def, &a);
        if (a.n != def->n_attrs) {
            d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", KN(k));
            return NULL;
        }
    }
    d2_tensor *out = NULL;
    int rc = d2_op_run(k->be, id, attrs ? attrs : &a, in, n_in, &out, 1, k->err);
    if (!attrs)
        d2_attrs_free(&a);
    return rc < 0 ? NULL : out;
}

/* array_zeros_like(array): a new array of zero tensors shaped like the items. */
int cpu_array_zeros_like(d2_kctx *k)
{
    d2_tensor *a = k->in[0];
    if (want_array(k, a) < 0)
        return -1;
    d2_tensor *r = d2_tensor_array_new(a->dtype, k->err);
    if (!r)
        return -1;
    for (int64_t j = 0; j < a->array_len; j++) {
        d2_tensor *z = run1(k, D2_OP_full_like, NULL, &a->items[j], 1);
        if (!z || push_item(k, r, z) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
    }
    k->out[0] = r;
    return 0;
}

/* array_truncate(array, n): a new array holding the first n items (all of them when the array
 * is shorter). */
int cpu_array_truncate(d2_kctx *k)
{
    d2_tensor *a = k->in[0];
    int64_t n;
    if (want_array(k, a) < 0 || read_index(k, k->in[1], &n) < 0)
        return -1;
    if (n < 0)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: negative length %lld", KN(k),
                          (long long)n);
    d2_tensor *r = d2_tensor_array_new(a->dtype, k->err);
    if (!r)
        return -1;
    for (int64_t j = 0; j < n && j < a->array_len; j++)
        if (push_item(k, r, d2_tensor_ref(a->items[j])) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
    k->out[0] = r;
    return 0;
}

/* array_add(a, b): item-wise sums, as long as the longer array; an item
 * only one array has is taken as it is (the other counts as zero). */
int cpu_array_add(d2_kctx *k)
{
    d2_tensor *a = k->in[0], *b = k->in[1];
    if (want_array(k, a) < 0 || want_array(k, b) < 0)
        return -1;
    if (a->dtype != b->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cannot add an array of %s to one of %s",
                          KN(k), d2_dtype_name(b->dtype), d2_dtype_name(a->dtype));
    d2_tensor *r = d2_tensor_array_new(a->dtype, k->err);
    if (!r)
        return -1;
    int64_t n = a->array_len > b->array_len ? a->array_len : b->array_len;
    for (int64_t j = 0; j < n; j++) {
        d2_tensor *t;
        if (j < a->array_len && j < b->array_len) {
            d2_tensor *in[2] = {a->items[j], b->items[j]};
            t = run1(k, D2_OP_add, NULL, in, 2);
        } else {
            t = d2_tensor_ref(j < a->array_len ? a->items[j] : b->items[j]);
        }
        if (!t || push_item(k, r, t) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
    }
    k->out[0] = r;
    return 0;
}

/* Slices [start, end) of x along axis (dropping the axis when drop) onto the
 * end of array r. */
static int push_slice(d2_kctx *k, d2_tensor *r, d2_tensor *x, int axis, int64_t start,
                      int64_t end, bool drop)
{
    const d2_opdef *def = d2_op_def(D2_OP_slice);
    d2_attrs a;
    d2_attrs_init_default(def, &a);
    int64_t ax = axis;
    if (a.n != def->n_attrs || d2_attr_set_ints(def, &a, "axes", &ax, 1) < 0 ||
        d2_attr_set_ints(def, &a, "starts", &start, 1) < 0 ||
        d2_attr_set_ints(def, &a, "ends", &end, 1) < 0 ||
        (drop && d2_attr_set_ints(def, &a, "decrease_axis", &ax, 1) < 0)) {
        d2_attrs_free(&a);
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", KN(k));
    }
    d2_tensor *t = run1(k, D2_OP_slice, &a, &x, 1);
    d2_attrs_free(&a);
    return t ? push_item(k, r, t) : -1;
}

/* array_unstack(x, axis): the array of x's slices along axis. */
int cpu_array_unstack(d2_kctx *k)
{
    d2_tensor *x = k->in[0];
    if (!x || x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", KN(k));
    if (x->ndim < 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: cannot unstack a 0-d tensor", KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    d2_tensor *r = d2_tensor_array_new(x->dtype, k->err);
    if (!r)
        return -1;
    for (int64_t j = 0; j < x->shape[axis]; j++)
        if (push_slice(k, r, x, axis, j, j + 1, true) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
    k->out[0] = r;
    return 0;
}

/* array_split_like(x, array, axis): x cut along axis into consecutive pieces
 * as long along it as the array's items. */
int cpu_array_split_like(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *a = k->in[1];
    if (!x || x->kind != D2_VALUE_TENSOR)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x must be a tensor", KN(k));
    if (want_array(k, a) < 0)
        return -1;
    if (x->ndim < 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: cannot split a 0-d tensor", KN(k));
    int axis = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t total = 0;
    for (int64_t j = 0; j < a->array_len; j++) {
        if (a->items[j]->ndim != x->ndim)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: item %lld has rank %d, x has %d", KN(k),
                              (long long)j, a->items[j]->ndim, x->ndim);
        total += a->items[j]->shape[axis];
    }
    if (total != x->shape[axis])
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "%s: the items are %lld long along axis %d, x is %lld long", KN(k),
                          (long long)total, axis, (long long)x->shape[axis]);
    d2_tensor *r = d2_tensor_array_new(x->dtype, k->err);
    if (!r)
        return -1;
    int64_t at = 0;
    for (int64_t j = 0; j < a->array_len; j++) {
        int64_t len = a->items[j]->shape[axis];
        if (push_slice(k, r, x, axis, at, at + len, false) < 0) {
            d2_tensor_unref(r);
            return -1;
        }
        at += len;
    }
    k->out[0] = r;
    return 0;
}

/* ---- side effects ---- */

/* Appends "shape: [2, 3]  - dtype: float32  - data: [v v ...]" for host tensor
 * t, at most `limit` values (all when limit < 0). */
static void describe(d2_buf *b, const d2_tensor *t, int64_t limit)
{
    d2_buf_puts(b, "- shape: [");
    for (int d = 0; d < t->ndim; d++)
        d2_buf_printf(b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    d2_buf_printf(b, "]  - dtype: %s  - data: [", d2_dtype_name(t->dtype));
    int64_t n = d2_tensor_numel(t), m = limit < 0 || limit > n ? n : limit;
    for (int64_t i = 0; i < m; i++) {
        if (i)
            d2_buf_puts(b, " ");
        switch (t->dtype) {
        case D2_F32:
        case D2_F64: d2_buf_printf(b, "%g", d2_tensor_get_f64(t, i)); break;
        case D2_BOOL: d2_buf_puts(b, d2_tensor_get_i64(t, i) ? "True" : "False"); break;
        default: d2_buf_printf(b, "%lld", (long long)d2_tensor_get_i64(t, i)); break;
        }
    }
    d2_buf_puts(b, m < n ? " ...]" : "]");
}

/* Appends the description of t (a tensor or an array of tensors). */
static int describe_value(d2_kctx *k, d2_buf *b, d2_tensor *t, int64_t limit)
{
    if (t->kind == D2_VALUE_ARRAY) {
        d2_buf_printf(b, "- array of %lld %s tensors", (long long)t->array_len,
                      d2_dtype_name(t->dtype));
        for (int64_t j = 0; j < t->array_len; j++) {
            d2_tensor *c = d2_tensor_contiguous(t->items[j], k->err);
            if (!c)
                return -1;
            d2_buf_printf(b, "\n  [%lld] ", (long long)j);
            int rc = want_host(k, c, "item");
            if (rc == 0)
                describe(b, c, limit);
            d2_tensor_unref(c);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    if (want_host(k, t, "x") < 0)
        return -1;
    describe(b, t, limit);
    return 0;
}

static _Thread_local FILE *print_stream;

FILE *d2_print_stream_set(FILE *f)
{
    FILE *old = print_stream;
    print_stream = f;
    return old;
}

/* print(x, message, summarize): one line on stdout, like Paddle's Print op:
 * "message  - shape: [2, 3]  - dtype: float32  - data: [1 2 3 4 5 6]".
 * summarize < 0 prints every value. With style "tensor", what Python's
 * print shows of an eager tensor: message, Paddle's text of x, then end.
 * With style "text", only message and end (x only orders the op). */
int cpu_print(d2_kctx *k)
{
    if (k->n_in < 1 || !k->in[0])
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: x is missing", KN(k));
    d2_buf b;
    d2_buf_init(&b);
    const char *msg = ATTR_STR(k, "message");
    if (strcmp(ATTR_STR(k, "style"), "text") == 0) {
        d2_buf_puts(&b, msg);
        d2_buf_puts(&b, ATTR_STR(k, "end"));
    } else if (strcmp(ATTR_STR(k, "style"), "tensor") == 0) {
        d2_tensor *x = k->in[0];
        if (want_host(k, x, "x") < 0)
            return -1;
        d2_tensor *h = d2_tensor_is_contiguous(x) ? d2_tensor_ref(x)
                                                  : d2_tensor_copy_to(x, NULL, k->err);
        if (!h)
            return -1;
        d2_buf_puts(&b, msg);
        d2_tensor_paddle_text(&b, h, ATTR_BOOL(k, "stop_gradient"));
        d2_buf_puts(&b, ATTR_STR(k, "end"));
        d2_tensor_unref(h);
    } else {
        if (*msg)
            d2_buf_printf(&b, "%s  ", msg);
        if (describe_value(k, &b, k->in[0], ATTR_INT(k, "summarize")) < 0) {
            d2_buf_free(&b);
            return -1;
        }
        d2_buf_puts(&b, "\n");
    }
    if (b.oom) {
        d2_buf_free(&b);
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", KN(k));
    }
    FILE *f = print_stream ? print_stream : stdout;
    fwrite(b.data, 1, b.len, f);
    fflush(f);
    d2_buf_free(&b);
    return 0;
}

/* assert(cond, data...): fails with D2_ERR_RUNTIME, the message and a
 * summary of each data tensor unless every element of the bool cond is true. */
int cpu_assert(d2_kctx *k)
{
    d2_tensor *c = k->n_in > 0 ? k->in[0] : NULL;
    if (want_host(k, c, "cond") < 0)
        return -1;
    if (c->dtype != D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cond must be bool, got %s", KN(k),
                          d2_dtype_name(c->dtype));
    int64_t n = d2_tensor_numel(c);
    const uint8_t *p = d2_tensor_data(c);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++)
        ok = p[i] != 0;
    if (ok)
        return 0;
    d2_buf b;
    d2_buf_init(&b);
    const char *msg = ATTR_STR(k, "message");
    d2_buf_printf(&b, "assertion failed%s%s", *msg ? ": " : "", msg);
    for (int i = 1; i < k->n_in; i++) {
        if (!k->in[i])
            continue;
        d2_buf_printf(&b, "\n  data %d ", i - 1);
        if (describe_value(k, &b, k->in[i], 20) < 0) {
            d2_buf_free(&b);
            return -1;
        }
    }
    int rc = d2_err_set(k->err, D2_ERR_RUNTIME, "%s: %s", KN(k),
                        b.oom ? "assertion failed" : b.data);
    d2_buf_free(&b);
    return rc;
}

/* ---- set_value / index_put: a copy of x with a selection replaced ---- */

/* Element strides of t broadcast (numpy, right-aligned) to the nd dims of a target. */
static void bcast_strides(const d2_tensor *t, int nd, int64_t *st)
{
    for (int k = 0; k < nd; k++) {
        int j = t->ndim - nd + k;
        st[k] = j >= 0 && t->shape[j] != 1 ? t->strides[j] : 0;
    }
}

/* Steps the row-major multi-index idx over dims. */
static void next_index(int64_t *idx, const int64_t *dims, int nd)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d])
            return;
        idx[d] = 0;
    }
}

/* out = x (contiguous copy); 0 or -1. */
static int copy_x_into_out(d2_kctx *k, const d2_tensor *x, d2_tensor *out)
{
    if (out->dtype != x->dtype || out->ndim != x->ndim)
        return bad_out(k);
    for (int d = 0; d < x->ndim; d++)
        if (out->shape[d] != x->shape[d])
            return bad_out(k);
    if (d2_tensor_numel(x) > 0)
        view_copy(d2_tensor_data(out), d2_tensor_data(x), x->ndim, x->shape, x->strides,
                  esize(x));
    return 0;
}

static int value_fits(d2_kctx *k, const d2_tensor *v, int nd, const int64_t *dims)
{
    d2_shape vs, rs;
    d2_tensor_get_shape(v, &vs);
    rs.ndim = nd;
    for (int i = 0; i < nd; i++)
        rs.dims[i] = dims[i];
    return d2_value_fits(k->def, &vs, &rs, k->err);
}

int cpu_set_value(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *v = k->in[1], *out = k->out[0];
    if (want_host(k, x, "x") < 0 || want_host(k, v, "value") < 0)
        return -1;
    if (v->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: value must have x's dtype", KN(k));
    d2_shape xs, full, region;
    d2_tensor_get_shape(x, &xs);
    int64_t start[D2_MAX_DIMS], step[D2_MAX_DIMS];
    if (d2_slice_plan(k->def, k->attrs, &xs, start, step, &full, &region, k->err) < 0 ||
        value_fits(k, v, region.ndim, region.dims) < 0 || copy_x_into_out(k, x, out) < 0)
        return -1;
    int64_t total = d2_shape_numel(&full);
    if (total <= 0)
        return 0;
    /* value strides per dim of full: decreased dims (size 1, not in region) read nothing */
    int nd;
    const int64_t *dec = d2_attr_ints(k->def, k->attrs, "decrease_axis", &nd);
    bool dropped[D2_MAX_DIMS] = {false};
    for (int j = 0; j < nd; j++) {
        int a = d2_norm_axis(dec[j], xs.ndim, k->def, k->err);
        if (a < 0)
            return -1;
        dropped[a] = true;
    }
    int64_t rst[D2_MAX_DIMS], vst[D2_MAX_DIMS], ost[D2_MAX_DIMS];
    bcast_strides(v, region.ndim, rst);
    for (int d = 0, r = 0; d < xs.ndim; d++)
        vst[d] = dropped[d] ? 0 : rst[r++];
    d2_contiguous_strides(xs.ndim, xs.dims, ost);
    size_t es = esize(x);
    char *od = d2_tensor_data(out);
    const char *vd = d2_tensor_data(v);
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t oo = 0, vo = 0;
        for (int d = 0; d < xs.ndim; d++) {
            oo += (start[d] + idx[d] * step[d]) * ost[d];
            vo += idx[d] * vst[d];
        }
        memcpy(od + (size_t)oo * es, vd + (size_t)vo * es, es);
        next_index(idx, full.dims, xs.ndim);
    }
    return 0;
}

/* *dst += *src for one element of a numeric dtype (integers wrap). */
static void add_elem(d2_dtype dt, char *dst, const char *src)
{
    switch (dt) {
    case D2_F32: {
        float a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a += b;
        memcpy(dst, &a, 4);
        break;
    }
    case D2_F64: {
        double a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        a += b;
        memcpy(dst, &a, 8);
        break;
    }
    case D2_I32: {
        uint32_t a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a += b;
        memcpy(dst, &a, 4);
        break;
    }
    default: {
        uint64_t a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        a += b;
        memcpy(dst, &a, 8);
        break;
    }
    }
}

static int64_t read_index_at(const d2_tensor *t, int64_t off)
{
    const char *p = (const char *)d2_tensor_data(t);
    if (t->dtype == D2_I32) {
        int32_t v;
        memcpy(&v, p + (size_t)off * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p + (size_t)off * 8, 8);
    return v;
}

/* The walk shared by index_put (a copy of x with the picked elements replaced by,
 * or with accumulate increased by, value) and index_get (the picked elements).
 * Ports: x, then value unless get, then the index tensors. */
static int index_walk(d2_kctx *k, bool get)
{
    int first = get ? 1 : 2;
    d2_tensor *x = k->in[0], *v = get ? NULL : k->in[1], *out = k->out[0];
    int n = k->n_in - first;
    bool acc = !get && ATTR_BOOL(k, "accumulate");
    if (acc && k->in[0] && !d2_dtype_supported(k->in[0]->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: accumulate is not supported for %s", KN(k),
                          d2_dtype_name(k->in[0]->dtype));
    if (want_host(k, x, "x") < 0 || (v && want_host(k, v, "value") < 0))
        return -1;
    if (v && v->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: value must have x's dtype", KN(k));
    if (acc && x->dtype == D2_BOOL)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: cannot accumulate bool values", KN(k));
    if (n < 1 || n > D2_MAX_DIMS)
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: bad number of index tensors", KN(k));
    d2_shape xs, ishape[D2_MAX_DIMS], b, region;
    const d2_shape *ip[D2_MAX_DIMS];
    d2_tensor_get_shape(x, &xs);
    for (int i = 0; i < n; i++) {
        d2_tensor *t = k->in[first + i];
        if (want_host(k, t, "index") < 0)
            return -1;
        if (!d2_dtype_is_int(t->dtype))
            return d2_err_set(k->err, D2_ERR_DTYPE, "%s: index tensors must be int32 or int64",
                              KN(k));
        d2_tensor_get_shape(t, &ishape[i]);
        ip[i] = &ishape[i];
    }
    int axis;
    if (d2_index_put_region(k->def, ATTR_INT(k, "axis"), &xs, ip, n, &axis, &b, &region,
                            k->err) < 0)
        return -1;
    if (get) {
        if (out->dtype != x->dtype || out->ndim != region.ndim)
            return bad_out(k);
    } else if (value_fits(k, v, region.ndim, region.dims) < 0 || copy_x_into_out(k, x, out) < 0) {
        return -1;
    }
    int64_t total = d2_shape_numel(&region);
    if (total <= 0)
        return 0;
    int64_t vst[D2_MAX_DIMS], xst[D2_MAX_DIMS], ist[D2_MAX_DIMS][D2_MAX_DIMS];
    if (v)
        bcast_strides(v, region.ndim, vst);
    for (int i = 0; i < n; i++)
        bcast_strides(k->in[first + i], b.ndim, ist[i]);
    d2_contiguous_strides(xs.ndim, xs.dims, xst);
    size_t es = esize(x);
    char *od = d2_tensor_data(out);
    const char *xd = d2_tensor_data(x), *vd = v ? d2_tensor_data(v) : NULL;
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t xo = 0, vo = 0;
        for (int r = 0; v && r < region.ndim; r++)
            vo += idx[r] * vst[r];
        for (int d = 0; d < axis; d++)
            xo += idx[d] * xst[d];
        for (int i = 0; i < n; i++) {
            int64_t io = 0;
            for (int r = 0; r < b.ndim; r++)
                io += idx[axis + r] * ist[i][r];
            int64_t pos = read_index_at(k->in[first + i], io), dim = xs.dims[axis + i];
            if (pos < -dim || pos >= dim)
                return d2_err_set(k->err, D2_ERR_RUNTIME,
                                  "%s: index %lld is out of bounds for axis %d with size %lld",
                                  KN(k), (long long)pos, axis + i, (long long)dim);
            xo += (pos < 0 ? pos + dim : pos) * xst[axis + i];
        }
        for (int d = axis + n, r = axis + b.ndim; d < xs.ndim; d++, r++)
            xo += idx[r] * xst[d];
        if (get)
            memcpy(od + (size_t)e * es, xd + (size_t)xo * es, es);
        else if (!acc)
            memcpy(od + (size_t)xo * es, vd + (size_t)vo * es, es);
        else
            add_elem(x->dtype, od + (size_t)xo * es, vd + (size_t)vo * es);
        next_index(idx, region.dims, region.ndim);
    }
    return 0;
}

int cpu_index_put(d2_kctx *k) { return index_walk(k, false); }
int cpu_index_get(d2_kctx *k) { return index_walk(k, true); }

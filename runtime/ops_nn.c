/* ops_nn.c - inference for matmul, linear, conv2d(_transpose), pool2d, norms and embedding. */
#include "ops.h"

#include <stdio.h>
#include <string.h>

#define NAME(ic) ((ic)->def->name)

/* True when optional input i was given. */
static bool has_input(const d2_infer_ctx *ic, int i)
{
    return i < ic->n_in && (int)ic->in[i].dtype >= 0;
}

/* Input i must be a tensor (not a tensor array). */
static int need_tensor(d2_infer_ctx *ic, int i)
{
    if (ic->in[i].kind != D2_VALUE_TENSOR)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: input '%s' must be a tensor, not an array",
                          NAME(ic), ic->def->in_names[i]);
    return 0;
}

/* Input i must be a float32/float64 tensor. */
static int need_float(d2_infer_ctx *ic, int i)
{
    if (need_tensor(ic, i) < 0)
        return -1;
    d2_dtype dt = ic->in[i].dtype;
    if (dt != D2_F32 && dt != D2_F64)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "%s: input '%s' has dtype %s; only float32 and float64 are supported",
                          NAME(ic), ic->def->in_names[i], d2_dtype_name(dt));
    return 0;
}

/* Input i must be a tensor of the same dtype as input 0. */
static int need_same_dtype(d2_infer_ctx *ic, int i)
{
    if (need_tensor(ic, i) < 0)
        return -1;
    if (ic->in[i].dtype != ic->in[0].dtype)
        return d2_err_set(ic->err, D2_ERR_DTYPE, "%s: input '%s' has dtype %s but '%s' has %s",
                          NAME(ic), ic->def->in_names[i], d2_dtype_name(ic->in[i].dtype),
                          ic->def->in_names[0], d2_dtype_name(ic->in[0].dtype));
    return 0;
}

/* Input i must have ndim dims. */
static int need_ndim(d2_infer_ctx *ic, int i, int ndim)
{
    if (ic->in[i].shape.ndim != ndim) {
        char s[160];
        d2_shape_str(&ic->in[i].shape, s, sizeof s);
        return d2_err_set(ic->err, D2_ERR_SHAPE, "%s: input '%s' must be %d-D, got shape %s",
                          NAME(ic), ic->def->in_names[i], ndim, s);
    }
    return 0;
}

/* Input i must be 1-D with `want` elements (unless either is dynamic). */
static int need_vector(d2_infer_ctx *ic, int i, int64_t want, const char *what)
{
    if (need_ndim(ic, i, 1) < 0)
        return -1;
    int64_t got = ic->in[i].shape.dims[0];
    if (got >= 0 && want >= 0 && got != want)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "%s: input '%s' has %lld elements, expected %lld (%s)", NAME(ic),
                          ic->def->in_names[i], (long long)got, (long long)want, what);
    return 0;
}

/* ---- matmul: numpy matmul with Paddle's transpose flags ----
 * A 1-D x is a row vector [1,K] whose M dim is dropped from the result; a 1-D
 * y a column [K,1] whose N dim is dropped; transpose flags do not apply to
 * 1-D operands. Batch dims broadcast. */
int infer_matmul(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0)
        return -1;
    const d2_shape *xs = &ic->in[0].shape, *ys = &ic->in[1].shape;
    bool tx = ATTR_BOOL(ic, "transpose_x"), ty = ATTR_BOOL(ic, "transpose_y");
    int nx = xs->ndim, ny = ys->ndim;
    if (nx == 0 || ny == 0)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "matmul: operands must be at least 1-D (x is %d-D, y is %d-D)", nx, ny);
    int64_t m = 1, n = 1, kx, ky;
    if (nx == 1) {
        kx = xs->dims[0];
    } else {
        m = tx ? xs->dims[nx - 1] : xs->dims[nx - 2];
        kx = tx ? xs->dims[nx - 2] : xs->dims[nx - 1];
    }
    if (ny == 1) {
        ky = ys->dims[0];
    } else {
        ky = ty ? ys->dims[ny - 1] : ys->dims[ny - 2];
        n = ty ? ys->dims[ny - 2] : ys->dims[ny - 1];
    }
    if (kx >= 0 && ky >= 0 && kx != ky) {
        char a[160], b[160];
        d2_shape_str(xs, a, sizeof a);
        d2_shape_str(ys, b, sizeof b);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "matmul: inner dimensions differ: x %s%s gives K=%lld, y %s%s gives "
                          "K=%lld",
                          a, tx && nx > 1 ? " (transposed)" : "", (long long)kx, b,
                          ty && ny > 1 ? " (transposed)" : "", (long long)ky);
    }
    d2_shape bx = {0, {0}}, by = {0, {0}}, bo;
    bx.ndim = nx > 2 ? nx - 2 : 0;
    by.ndim = ny > 2 ? ny - 2 : 0;
    memcpy(bx.dims, xs->dims, sizeof(int64_t) * (size_t)bx.ndim);
    memcpy(by.dims, ys->dims, sizeof(int64_t) * (size_t)by.ndim);
    if (d2_broadcast_shapes(&bx, &by, &bo, ic->def, ic->err) < 0)
        return -1;
    if (nx > 1)
        bo.dims[bo.ndim++] = m;
    if (ny > 1)
        bo.dims[bo.ndim++] = n;
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = bo;
    return 0;
}

/* ---- linear: x[..., in] @ weight[in, out] + bias[out] (Paddle's weight layout) ---- */
int infer_linear(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0)
        return -1;
    const d2_shape *xs = &ic->in[0].shape, *ws = &ic->in[1].shape;
    if (xs->ndim < 1)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "linear: input 'x' must be at least 1-D");
    if (need_ndim(ic, 1, 2) < 0)
        return -1;
    int64_t in = xs->dims[xs->ndim - 1];
    if (in >= 0 && ws->dims[0] >= 0 && in != ws->dims[0]) {
        char a[160], b[160];
        d2_shape_str(xs, a, sizeof a);
        d2_shape_str(ws, b, sizeof b);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "linear: x %s has %lld input features but weight %s expects %lld", a,
                          (long long)in, b, (long long)ws->dims[0]);
    }
    if (has_input(ic, 2) &&
        (need_same_dtype(ic, 2) < 0 || need_vector(ic, 2, ws->dims[1], "weight.shape[1]") < 0))
        return -1;
    ic->out[0].kind = D2_VALUE_TENSOR;
    ic->out[0].dtype = ic->in[0].dtype;
    ic->out[0].shape = *xs;
    ic->out[0].shape.dims[xs->ndim - 1] = ws->dims[1];
    return 0;
}

/* Reads a 2-int attribute whose values must all be >= lo. */
static int attr_pair(d2_infer_ctx *ic, const char *name, int64_t lo, int64_t out[2])
{
    int n;
    const int64_t *v = ATTR_INTS(ic, name, &n);
    if (n != 2)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s must have 2 values, got %d", NAME(ic),
                          name, n);
    for (int i = 0; i < 2; i++) {
        if (v[i] < lo)
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: %s[%d] = %lld must be >= %lld",
                              NAME(ic), name, i, (long long)v[i], (long long)lo);
        out[i] = v[i];
    }
    return 0;
}

/* Reads paddings (2 values [h, w] or 4 [top, bottom, left, right]) as 4. */
static int attr_paddings(d2_infer_ctx *ic, int64_t pad[4])
{
    int n;
    const int64_t *v = ATTR_INTS(ic, "paddings", &n);
    if (n != 2 && n != 4)
        return d2_err_set(ic->err, D2_ERR_INVALID, "%s: paddings must have 2 or 4 values, got %d",
                          NAME(ic), n);
    for (int i = 0; i < n; i++)
        if (v[i] < 0)
            return d2_err_set(ic->err, D2_ERR_INVALID, "%s: paddings[%d] = %lld is negative",
                              NAME(ic), i, (long long)v[i]);
    if (n == 2) {
        pad[0] = pad[1] = v[0];
        pad[2] = pad[3] = v[1];
    } else {
        memcpy(pad, v, 4 * sizeof *pad);
    }
    return 0;
}

/* ---- conv2d: NCHW input, weight [OC, C/groups, KH, KW], Paddle's padding rules ----
 * SAME pads so that out = ceil(in / stride), the odd pixel at the end, and
 * forces dilation 1; VALID pads nothing. */
int infer_conv2d(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0 || need_ndim(ic, 0, 4) < 0 ||
        need_ndim(ic, 1, 4) < 0)
        return -1;
    const int64_t *x = ic->in[0].shape.dims, *w = ic->in[1].shape.dims;
    int64_t strides[2], dil[2], pad[4];
    if (attr_pair(ic, "strides", 1, strides) < 0 || attr_pair(ic, "dilations", 1, dil) < 0 ||
        attr_paddings(ic, pad) < 0)
        return -1;
    int64_t groups = ATTR_INT(ic, "groups");
    const char *alg = ATTR_STR(ic, "padding_algorithm");
    bool same = strcmp(alg, "SAME") == 0, valid = strcmp(alg, "VALID") == 0;
    if (!same && !valid && strcmp(alg, "EXPLICIT") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d: padding_algorithm \"%s\" is not EXPLICIT, SAME or VALID", alg);
    if (groups < 1)
        return d2_err_set(ic->err, D2_ERR_INVALID, "conv2d: groups = %lld must be >= 1",
                          (long long)groups);
    if (x[1] >= 0 && x[1] % groups != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d: groups = %lld does not divide the %lld input channels",
                          (long long)groups, (long long)x[1]);
    if (w[0] >= 0 && w[0] % groups != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d: groups = %lld does not divide the %lld output channels",
                          (long long)groups, (long long)w[0]);
    int64_t wcg = 0;
    if (x[1] >= 0 && w[1] >= 0 && (!d2_mul_i64(w[1], groups, &wcg) || wcg != x[1]))
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "conv2d: input has %lld channels but weight expects %lld x %lld groups",
                          (long long)x[1], (long long)w[1], (long long)groups);
    if (has_input(ic, 2) &&
        (need_same_dtype(ic, 2) < 0 || need_vector(ic, 2, w[0], "output channels") < 0))
        return -1;
    d2_type *o = &ic->out[0];
    o->kind = D2_VALUE_TENSOR;
    o->dtype = ic->in[0].dtype;
    o->shape.ndim = 4;
    o->shape.dims[0] = x[0];
    o->shape.dims[1] = w[0];
    for (int i = 0; i < 2; i++) {
        int64_t in = x[2 + i], k = w[2 + i];
        if (in < 0 || k < 0) {
            o->shape.dims[2 + i] = -1;
            continue;
        }
        if (k < 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE, "conv2d: kernel size %lld must be >= 1",
                              (long long)k);
        int64_t p0 = pad[2 * i], p1 = pad[2 * i + 1], d = dil[i];
        int64_t osz = 0, sum = 0, ext = 0, padded = 0;
        bool fits = true;
        if (same) {
            fits = d2_add_i64(in, strides[i] - 1, &osz);
            osz /= strides[i];
            fits = fits && d2_mul_i64(osz - 1, strides[i], &sum) && d2_add_i64(sum, k - in, &sum);
            sum = sum > 0 ? sum : 0;
            p0 = sum / 2;
            p1 = sum - p0;
            d = 1;
        } else if (valid) {
            p0 = p1 = 0;
        }
        fits = fits && d2_mul_i64(d, k - 1, &ext) && d2_add_i64(ext, 1, &ext) &&
               d2_add_i64(in, p0, &padded) && d2_add_i64(padded, p1, &padded);
        if (!fits)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d: the %s sizes overflow (input %lld, kernel %lld, padding "
                              "%lld+%lld, dilation %lld, stride %lld)",
                              i ? "width" : "height", (long long)in, (long long)k, (long long)p0,
                              (long long)p1, (long long)d, (long long)strides[i]);
        osz = (padded - ext) / strides[i] + 1;
        if (padded < ext || osz < 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d: %s of %lld (padded %lld) is smaller than the dilated kernel "
                              "extent %lld",
                              i ? "width" : "height", (long long)in, (long long)padded,
                              (long long)ext);
        o->shape.dims[2 + i] = osz;
    }
    return 0;
}

/* linear_fused: linear's result; residual (when given) has that type, the activation is
 * "", "relu", "gelu" or "gelu_tanh". */
int infer_linear_fused(d2_infer_ctx *ic)
{
    if (infer_linear(ic) < 0)
        return -1;
    const char *act = ATTR_STR(ic, "activation");
    if (*act && strcmp(act, "relu") != 0 && strcmp(act, "gelu") != 0 &&
        strcmp(act, "gelu_tanh") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "linear_fused: activation \"%s\" is not \"\", \"relu\", \"gelu\" or "
                          "\"gelu_tanh\"",
                          act);
    if (!has_input(ic, 3))
        return 0;
    if (need_same_dtype(ic, 3) < 0)
        return -1;
    const d2_shape *r = &ic->in[3].shape, *o = &ic->out[0].shape;
    bool fits = r->ndim == o->ndim;
    for (int i = 0; fits && i < o->ndim; i++)
        fits = r->dims[i] < 0 || o->dims[i] < 0 || r->dims[i] == o->dims[i];
    if (!fits) {
        char rs[160], os[160];
        d2_shape_str(r, rs, sizeof rs);
        d2_shape_str(o, os, sizeof os);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "linear_fused: residual of shape %s does not match the result %s", rs,
                          os);
    }
    return 0;
}

static int infer_conv2d_fused_nchw(d2_infer_ctx *ic);

/* Permutes the dims of a 4-D shape from NHWC to NCHW (to_nchw) or back. */
static void permute_shape(d2_shape *s, bool to_nchw)
{
    if (s->ndim != 4)
        return;
    int64_t d[4] = {s->dims[0], s->dims[1], s->dims[2], s->dims[3]};
    s->dims[1] = to_nchw ? d[3] : d[2];
    s->dims[2] = to_nchw ? d[1] : d[3];
    s->dims[3] = to_nchw ? d[2] : d[1];
}

/* conv2d_fused: conv2d's result; residual (when given) has that type, the
 * activation is "" or "relu"; with data_format NHWC, x, residual and the result are NHWC
 * (shapes inferred as conv2d's on the NCHW equivalents). */
int infer_conv2d_fused(d2_infer_ctx *ic)
{
    const char *fmt = ATTR_STR(ic, "data_format");
    bool nhwc = strcmp(fmt, "NHWC") == 0;
    if (!nhwc && strcmp(fmt, "NCHW") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d_fused: data_format \"%s\" is not \"NCHW\" or \"NHWC\"", fmt);
    if (nhwc) {
        if (ic->n_in < 1 || ic->in[0].shape.ndim != 4)
            return d2_err_set(ic->err, D2_ERR_SHAPE, "conv2d_fused: x must be 4-D");
        d2_type in[4];
        int n = ic->n_in < 4 ? ic->n_in : 4;
        for (int i = 0; i < n; i++) {
            in[i] = ic->in[i];
            if (i == 0 || i == 3)
                permute_shape(&in[i].shape, true);
        }
        d2_infer_ctx c = *ic;
        c.in = in;
        c.n_in = n;
        if (infer_conv2d_fused_nchw(&c) < 0)
            return -1;
        permute_shape(&ic->out[0].shape, false);
        return 0;
    }
    return infer_conv2d_fused_nchw(ic);
}

/* conv2d_fused in NCHW. */
static int infer_conv2d_fused_nchw(d2_infer_ctx *ic)
{
    if (infer_conv2d(ic) < 0)
        return -1;
    const char *act = ATTR_STR(ic, "activation");
    if (*act && strcmp(act, "relu") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d_fused: activation \"%s\" is not \"\" or \"relu\"", act);
    if (!has_input(ic, 3))
        return 0;
    if (need_same_dtype(ic, 3) < 0)
        return -1;
    const d2_shape *r = &ic->in[3].shape, *o = &ic->out[0].shape;
    bool fits = r->ndim == 4;
    for (int i = 0; fits && i < 4; i++)
        fits = r->dims[i] < 0 || o->dims[i] < 0 || r->dims[i] == o->dims[i];
    if (!fits) {
        char rs[160], os[160];
        d2_shape_str(r, rs, sizeof rs);
        d2_shape_str(o, os, sizeof os);
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "conv2d_fused: residual of shape %s does not match the result %s", rs,
                          os);
    }
    return 0;
}

/* ---- conv2d_grad_input / conv2d_grad_filter(x, weight, dout): the result has
 * the type of x / weight; dout must be what conv2d(x, weight) gives ---- */
static int infer_conv2d_grad(d2_infer_ctx *ic, int like)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0 || need_same_dtype(ic, 2) < 0 ||
        need_ndim(ic, 2, 4) < 0)
        return -1;
    d2_type fwd;
    d2_infer_ctx fc = *ic;
    fc.n_in = 2;
    fc.n_out = 1;
    fc.out = &fwd;
    if (infer_conv2d(&fc) < 0)
        return -1;
    const d2_shape *d = &ic->in[2].shape;
    for (int i = 0; i < 4; i++)
        if (d->dims[i] >= 0 && fwd.shape.dims[i] >= 0 && d->dims[i] != fwd.shape.dims[i]) {
            char a[160], b[160];
            d2_shape_str(d, a, sizeof a);
            d2_shape_str(&fwd.shape, b, sizeof b);
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "%s: dout has shape %s but conv2d gives %s", NAME(ic), a, b);
        }
    ic->out[0] = ic->in[like];
    return 0;
}

int infer_conv2d_grad_input(d2_infer_ctx *ic) { return infer_conv2d_grad(ic, 0); }
int infer_conv2d_grad_filter(d2_infer_ctx *ic) { return infer_conv2d_grad(ic, 1); }

/* ---- conv2d_transpose: NCHW input, weight [C, OC/groups, KH, KW] ----
 * out = (in - 1) * stride - pad_begin - pad_end + dilation * (k - 1) + 1 + output_padding;
 * SAME and VALID resolve the paddings from the input as conv2d does; a given output_size
 * must lie in [out, out + stride) and replaces out. */
int infer_conv2d_transpose(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0 || need_ndim(ic, 0, 4) < 0 ||
        need_ndim(ic, 1, 4) < 0)
        return -1;
    const int64_t *x = ic->in[0].shape.dims, *w = ic->in[1].shape.dims;
    int64_t strides[2], dil[2], pad[4], opad[2] = {0, 0}, osize[2] = {-1, -1};
    if (attr_pair(ic, "strides", 1, strides) < 0 || attr_pair(ic, "dilations", 1, dil) < 0 ||
        attr_paddings(ic, pad) < 0 || attr_pair(ic, "output_padding", 0, opad) < 0)
        return -1;
    int nos;
    ATTR_INTS(ic, "output_size", &nos);
    if (nos != 0 && attr_pair(ic, "output_size", 1, osize) < 0)
        return -1;
    int64_t groups = ATTR_INT(ic, "groups");
    const char *alg = ATTR_STR(ic, "padding_algorithm");
    bool same = strcmp(alg, "SAME") == 0, valid = strcmp(alg, "VALID") == 0;
    if (!same && !valid && strcmp(alg, "EXPLICIT") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d_transpose: padding_algorithm \"%s\" is not EXPLICIT, SAME or "
                          "VALID", alg);
    if (groups < 1)
        return d2_err_set(ic->err, D2_ERR_INVALID, "conv2d_transpose: groups = %lld must be >= 1",
                          (long long)groups);
    if (x[1] >= 0 && w[0] >= 0 && x[1] != w[0])
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "conv2d_transpose: input has %lld channels but weight expects %lld",
                          (long long)x[1], (long long)w[0]);
    if (w[0] >= 0 && w[0] % groups != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "conv2d_transpose: groups = %lld does not divide the %lld input "
                          "channels", (long long)groups, (long long)w[0]);
    int64_t oc = -1;
    if (w[1] >= 0 && !d2_mul_i64(w[1], groups, &oc))
        return d2_err_set(ic->err, D2_ERR_SHAPE, "conv2d_transpose: output channels overflow");
    if (has_input(ic, 2) &&
        (need_same_dtype(ic, 2) < 0 || need_vector(ic, 2, oc, "output channels") < 0))
        return -1;
    d2_type *o = &ic->out[0];
    o->kind = D2_VALUE_TENSOR;
    o->dtype = ic->in[0].dtype;
    o->shape.ndim = 4;
    o->shape.dims[0] = x[0];
    o->shape.dims[1] = oc;
    for (int i = 0; i < 2; i++) {
        int64_t in = x[2 + i], k = w[2 + i], s = strides[i], d = dil[i];
        if (k == 0)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d_transpose: kernel size 0 must be >= 1");
        if (opad[i] >= s && opad[i] >= d)
            return d2_err_set(ic->err, D2_ERR_INVALID,
                              "conv2d_transpose: output_padding[%d] = %lld must be smaller than "
                              "the stride %lld or the dilation %lld",
                              i, (long long)opad[i], (long long)s, (long long)d);
        if (in < 0 || k < 0) {
            o->shape.dims[2 + i] = osize[i];
            continue;
        }
        if (in == 0)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d_transpose: the input %s is 0", i ? "width" : "height");
        int64_t p0 = pad[2 * i], p1 = pad[2 * i + 1], osz = 0, sum = 0, ext = 0, full = 0;
        bool fits = true;
        if (same) {
            fits = d2_add_i64(in, s - 1, &osz);
            osz /= s;
            fits = fits && d2_mul_i64(osz - 1, s, &sum) && d2_add_i64(sum, k - in, &sum);
            sum = sum > 0 ? sum : 0;
            p0 = sum / 2;
            p1 = sum - p0;
            d = 1;
        } else if (valid) {
            p0 = p1 = 0;
        }
        fits = fits && d2_mul_i64(in - 1, s, &full) && d2_mul_i64(d, k - 1, &ext) &&
               d2_add_i64(full, ext, &full) && d2_add_i64(full, 1 + opad[i], &full);
        if (!fits)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d_transpose: the %s sizes overflow (input %lld, kernel "
                              "%lld, stride %lld, dilation %lld)",
                              i ? "width" : "height", (long long)in, (long long)k, (long long)s,
                              (long long)d);
        osz = full - p0 - p1;
        if (osz < 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "conv2d_transpose: the paddings %lld+%lld leave no output %s",
                              (long long)p0, (long long)p1, i ? "width" : "height");
        if (osize[i] >= 0) {
            if (osize[i] < osz || osize[i] - osz >= s)
                return d2_err_set(ic->err, D2_ERR_SHAPE,
                                  "conv2d_transpose: output_size[%d] = %lld is not in [%lld, "
                                  "%lld + stride %lld)",
                                  i, (long long)osize[i], (long long)osz, (long long)osz,
                                  (long long)s);
            osz = osize[i];
        }
        o->shape.dims[2 + i] = osz;
    }
    return 0;
}

/* ---- pool2d: NCHW max/avg pooling with Paddle's global, adaptive and ceil_mode rules ---- */
int infer_pool2d(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_ndim(ic, 0, 4) < 0)
        return -1;
    const int64_t *x = ic->in[0].shape.dims;
    const char *type = ATTR_STR(ic, "pooling_type");
    if (strcmp(type, "max") != 0 && strcmp(type, "avg") != 0)
        return d2_err_set(ic->err, D2_ERR_INVALID, "pool2d: pooling_type \"%s\" is not max or avg",
                          type);
    bool global = ATTR_BOOL(ic, "global_pooling"), adaptive = ATTR_BOOL(ic, "adaptive");
    bool ceil_mode = ATTR_BOOL(ic, "ceil_mode");
    int64_t ks[2], st[2], pad[4];
    int nk;
    const int64_t *kv = ATTR_INTS(ic, "ksize", &nk);
    if (nk != 2)
        return d2_err_set(ic->err, D2_ERR_INVALID, "pool2d: ksize must have 2 values, got %d", nk);
    if (!global)
        for (int i = 0; i < 2; i++)
            if (kv[i] < 1)
                return d2_err_set(ic->err, D2_ERR_INVALID, "pool2d: ksize[%d] = %lld must be >= 1",
                                  i, (long long)kv[i]);
    if (attr_pair(ic, "strides", 1, st) < 0 || attr_paddings(ic, pad) < 0)
        return -1;
    d2_type *o = &ic->out[0];
    o->kind = D2_VALUE_TENSOR;
    o->dtype = ic->in[0].dtype;
    o->shape.ndim = 4;
    o->shape.dims[0] = x[0];
    o->shape.dims[1] = x[1];
    for (int i = 0; i < 2; i++) {
        int64_t in = x[2 + i];
        ks[i] = global ? in : kv[i];
        if (adaptive) {
            o->shape.dims[2 + i] = ks[i];
            continue;
        }
        if (in < 0) {
            o->shape.dims[2 + i] = -1;
            continue;
        }
        int64_t p = 0, osz = 0;
        if ((!global && !d2_add_i64(pad[2 * i], pad[2 * i + 1], &p)) ||
            !d2_add_i64(in - ks[i], p, &osz) ||
            !d2_add_i64(osz, ceil_mode ? st[i] - 1 : 0, &osz))
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "pool2d: the %s sizes overflow (input %lld, ksize %lld, stride %lld)",
                              i ? "width" : "height", (long long)in, (long long)ks[i],
                              (long long)st[i]);
        /* C division like Paddle's PoolOutputSize */
        osz = osz / st[i] + 1;
        if (osz < 1)
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "pool2d: output %s would be %lld (input %lld, ksize %lld, padding "
                              "%lld, stride %lld)",
                              i ? "width" : "height", (long long)osz, (long long)in,
                              (long long)ks[i], (long long)p, (long long)st[i]);
        o->shape.dims[2 + i] = osz;
    }
    return 0;
}

/* ---- pool2d_grad(x, out, dout): dx has x's type; out and dout pool2d's ---- */
int infer_pool2d_grad(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_same_dtype(ic, 1) < 0 || need_same_dtype(ic, 2) < 0)
        return -1;
    d2_type fwd;
    d2_infer_ctx fc = *ic;
    fc.n_in = 1;
    fc.n_out = 1;
    fc.out = &fwd;
    if (infer_pool2d(&fc) < 0)
        return -1;
    for (int i = 1; i < 3; i++) {
        const d2_shape *s = &ic->in[i].shape;
        bool ok = s->ndim == 4;
        for (int d = 0; ok && d < 4; d++)
            ok = s->dims[d] < 0 || fwd.shape.dims[d] < 0 || s->dims[d] == fwd.shape.dims[d];
        if (!ok) {
            char a[160], b[160];
            d2_shape_str(s, a, sizeof a);
            d2_shape_str(&fwd.shape, b, sizeof b);
            return d2_err_set(ic->err, D2_ERR_SHAPE,
                              "pool2d_grad: %s has shape %s but pool2d gives %s",
                              ic->def->in_names[i], a, b);
        }
    }
    ic->out[0] = ic->in[0];
    return 0;
}

/* ---- dropout_train: out and mask like x; seed an int tensor of one element ---- */
int infer_dropout_train(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0 || need_tensor(ic, 1) < 0)
        return -1;
    const d2_type *s = &ic->in[1];
    if (!d2_dtype_is_int(s->dtype) || d2_shape_numel(&s->shape) > 1)
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "%s: seed must be an int32 or int64 tensor of one element", NAME(ic));
    ic->out[0] = ic->in[0];
    ic->out[1] = ic->in[0];
    return 0;
}

/* ---- batch_norm (inference): channel axis 1 of a 2-D to 5-D input ---- */
int infer_batch_norm(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0)
        return -1;
    int nd = ic->in[0].shape.ndim;
    if (nd < 2 || nd > 5)
        return d2_err_set(ic->err, D2_ERR_SHAPE,
                          "batch_norm: input 'x' must be 2-D to 5-D (N, C, ...), got %d-D", nd);
    int64_t c = ic->in[0].shape.dims[1];
    for (int i = 1; i < 5; i++)
        if (need_same_dtype(ic, i) < 0 || need_vector(ic, i, c, "channels of x") < 0)
            return -1;
    ic->out[0] = ic->in[0];
    return 0;
}

/* ---- layer_norm: normalise over the dims from begin_norm_axis on; scale and
 * bias are flattened vectors over those dims ---- */
int infer_layer_norm(d2_infer_ctx *ic)
{
    if (need_float(ic, 0) < 0)
        return -1;
    const d2_shape *xs = &ic->in[0].shape;
    if (xs->ndim < 1)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "layer_norm: input 'x' must be at least 1-D");
    int axis = d2_norm_axis(ATTR_INT(ic, "begin_norm_axis"), xs->ndim, ic->def, ic->err);
    if (axis < 0)
        return -1;
    int64_t right = 1;
    for (int i = axis; i < xs->ndim; i++)
        right = right < 0 || xs->dims[i] < 0 ? -1 : right * xs->dims[i];
    for (int i = 1; i < 3; i++)
        if (has_input(ic, i) &&
            (need_same_dtype(ic, i) < 0 || need_vector(ic, i, right, "normalised size") < 0))
            return -1;
    ic->out[0] = ic->in[0];
    return 0;
}

/* ---- embedding: ids (int32/int64, any shape) index rows of weight [V, D] ----
 * padding_idx -1 means none (Paddle's op-level convention); other negative
 * values count from V. */
int infer_embedding(d2_infer_ctx *ic)
{
    if (need_tensor(ic, 0) < 0 || need_tensor(ic, 1) < 0)
        return -1;
    d2_dtype it = ic->in[0].dtype, wt = ic->in[1].dtype;
    if (it != D2_I32 && it != D2_I64)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "embedding: ids must be int32 or int64, got %s", d2_dtype_name(it));
    if (wt != D2_F32 && wt != D2_F64)
        return d2_err_set(ic->err, D2_ERR_DTYPE,
                          "embedding: weight must be float32 or float64, got %s",
                          d2_dtype_name(wt));
    if (need_ndim(ic, 1, 2) < 0)
        return -1;
    const d2_shape *is = &ic->in[0].shape;
    if (is->ndim + 1 > D2_MAX_DIMS)
        return d2_err_set(ic->err, D2_ERR_SHAPE, "embedding: ids have too many dims (%d)",
                          is->ndim);
    int64_t v = ic->in[1].shape.dims[0], pad = ATTR_INT(ic, "padding_idx");
    if (v >= 0 && pad != -1 && (pad >= v || pad < -v))
        return d2_err_set(ic->err, D2_ERR_INVALID,
                          "embedding: padding_idx %lld is out of range for %lld rows",
                          (long long)pad, (long long)v);
    d2_type *o = &ic->out[0];
    o->kind = D2_VALUE_TENSOR;
    o->dtype = wt;
    o->shape = *is;
    o->shape.dims[is->ndim] = ic->in[1].shape.dims[1];
    o->shape.ndim = is->ndim + 1;
    return 0;
}

/* nn.c - CPU kernels for matmul, linear, conv2d(_transpose), pool2d, norms, embedding, dropout. */
#include "../ops.h"
#include "../fused_expr.h"
#include "conv_direct.h"
#include "conv_nhwc.h"
#include "dnnl.h"
#include "gemm.h"
#include "vecmath.h"
#include "../rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Leading dimensions must be >= 1 even for empty matrices. */
static int64_t ld(int64_t v) { return v > 1 ? v : 1; }

static int64_t prod(const int64_t *d, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

static int need_float(d2_kctx *k, const d2_tensor *t)
{
    if (t->dtype != D2_F32 && t->dtype != D2_F64)
        return d2_err_set(k->err, D2_ERR_DTYPE,
                          "%s: dtype %s is not supported (float32 or float64)", k->def->name,
                          d2_dtype_name(t->dtype));
    return 0;
}

/* ---- matmul ----
 * Every operand is viewed as a stack of row-major matrices: a 1-D x is one
 * [1, K] row, a 1-D y one [K, 1] column. When y has no batch dims and x is
 * not transposed, all of x's rows form one tall GEMM; otherwise the batch is
 * walked with broadcast strides, the innermost batch dim as one strided
 * batched GEMM call. */
int cpu_matmul(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (y->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "matmul: x is %s but y is %s",
                          d2_dtype_name(x->dtype), d2_dtype_name(y->dtype));
    bool tx = ATTR_BOOL(k, "transpose_x"), ty = ATTR_BOOL(k, "transpose_y");
    int nx = x->ndim, ny = y->ndim;
    if (nx < 1 || ny < 1)
        return d2_err_set(k->err, D2_ERR_SHAPE, "matmul: operands must be at least 1-D");
    /* stored matrix dims (rows, cols) of each operand */
    int64_t xr = nx == 1 ? 1 : x->shape[nx - 2], xc = x->shape[nx - 1];
    int64_t yr = ny == 1 ? y->shape[0] : y->shape[ny - 2], yc = ny == 1 ? 1 : y->shape[ny - 1];
    if (nx == 1)
        tx = false;
    if (ny == 1)
        ty = false;
    int64_t m = tx ? xc : xr, kk = tx ? xr : xc, ky = ty ? yc : yr, n = ty ? yr : yc;
    if (kk != ky)
        return d2_err_set(k->err, D2_ERR_SHAPE, "matmul: inner dimensions differ (%lld vs %lld)",
                          (long long)kk, (long long)ky);
    if (d2_tensor_numel(out) == 0)
        return 0;
    d2_dtype dt = x->dtype;
    size_t es = d2_dtype_size(dt);
    char *od = d2_tensor_data(out);
    if (kk == 0) {
        memset(od, 0, (size_t)d2_tensor_numel(out) * es);
        return 0;
    }
    const char *xd = d2_tensor_data(x), *yd = d2_tensor_data(y);
    int bxn = nx > 2 ? nx - 2 : 0, byn = ny > 2 ? ny - 2 : 0;
    int nb = bxn > byn ? bxn : byn;
    if (nb == 0 || (byn == 0 && !tx)) {
        int64_t rows = prod(x->shape, bxn) * m;
        return d2_gemm(dt, tx, ty, rows, n, kk, 1.0, xd, ld(xc), yd, ld(yc), 0.0, od, ld(n),
                       k->err);
    }
    /* broadcast strides (elements) of each batch dim; 0 where broadcast */
    int64_t bshape[D2_MAX_DIMS], sx[D2_MAX_DIMS], sy[D2_MAX_DIMS], so[D2_MAX_DIMS];
    int64_t stx = xr * xc, sty = yr * yc, sto = m * n;
    for (int i = nb - 1; i >= 0; i--) {
        int ix = i - (nb - bxn), iy = i - (nb - byn);
        int64_t dx = ix >= 0 ? x->shape[ix] : 1, dy = iy >= 0 ? y->shape[iy] : 1;
        bshape[i] = dx > dy ? dx : dy;
        if (dx == 0 || dy == 0)
            bshape[i] = 0;
        sx[i] = dx == 1 ? 0 : stx;
        sy[i] = dy == 1 ? 0 : sty;
        so[i] = sto;
        stx *= dx;
        sty *= dy;
        sto *= bshape[i];
    }
    int64_t inner = bshape[nb - 1], outer = prod(bshape, nb - 1);
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t o = 0; o < outer; o++) {
        int64_t ox = 0, oy = 0, oo = 0;
        for (int i = 0; i < nb - 1; i++) {
            ox += idx[i] * sx[i];
            oy += idx[i] * sy[i];
            oo += idx[i] * so[i];
        }
        if (d2_gemm_batched(dt, tx, ty, m, n, kk, 1.0, xd + (size_t)ox * es, ld(xc), sx[nb - 1],
                            yd + (size_t)oy * es, ld(yc), sy[nb - 1], 0.0, od + (size_t)oo * es,
                            ld(n), so[nb - 1], inner, k->err) < 0)
            return -1;
        for (int i = nb - 2; i >= 0; i--) {
            if (++idx[i] < bshape[i])
                break;
            idx[i] = 0;
        }
    }
    return 0;
}

/* Fills each of `rows` rows of c (width n) with the vector v, or with zeros
 * when v is NULL. */
static void fill_rows(d2_dtype dt, void *c, const void *v, int64_t rows, int64_t n)
{
    size_t es = d2_dtype_size(dt);
    for (int64_t r = 0; r < rows; r++) {
        if (v)
            memcpy((char *)c + (size_t)(r * n) * es, v, (size_t)n * es);
        else
            memset((char *)c + (size_t)(r * n) * es, 0, (size_t)n * es);
    }
}

/* Fills each [inner] block i of c with v[i % nv] (a per-channel value), or
 * zeros when v is NULL. */
static void fill_channels(d2_dtype dt, void *c, const void *v, int64_t blocks, int64_t nv,
                          int64_t inner)
{
    for (int64_t i = 0; i < blocks; i++) {
        if (dt == D2_F32) {
            float *o = (float *)c + i * inner, e = v ? ((const float *)v)[i % nv] : 0.0f;
            for (int64_t j = 0; j < inner; j++)
                o[j] = e;
        } else {
            double *o = (double *)c + i * inner, e = v ? ((const double *)v)[i % nv] : 0.0;
            for (int64_t j = 0; j < inner; j++)
                o[j] = e;
        }
    }
}

/* ---- linear: one GEMM over all rows of x; the bias pre-fills the output ---- */
int cpu_linear(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *w = k->in[1], *b = k->n_in > 2 ? k->in[2] : NULL, *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "linear: x, weight and bias must share a dtype");
    if (w->ndim != 2 || x->ndim < 1 || x->shape[x->ndim - 1] != w->shape[0])
        return d2_err_set(k->err, D2_ERR_SHAPE, "linear: x and weight shapes do not match");
    int64_t in = w->shape[0], nout = w->shape[1];
    int64_t rows = prod(x->shape, x->ndim - 1);
    if (b && d2_tensor_numel(b) != nout)
        return d2_err_set(k->err, D2_ERR_SHAPE, "linear: bias must have %lld elements",
                          (long long)nout);
    if (rows == 0 || nout == 0)
        return 0;
    void *od = d2_tensor_data(out);
    if (b || in == 0)
        fill_rows(x->dtype, od, b ? d2_tensor_data(b) : NULL, rows, nout);
    if (in == 0)
        return 0;
    return d2_gemm(x->dtype, false, false, rows, nout, in, 1.0, d2_tensor_data(x), ld(in),
                   d2_tensor_data(w), ld(nout), b ? 1.0 : 0.0, od, ld(nout), k->err);
}

/* linear_fused's epilogue over the GEMM's result o: + r (when given), then the activation
 * (0 none, 1 relu, 2 gelu, 3 gelu_tanh), one pass. */
D2_SIMD static void epilogue_f32(float *restrict o, const float *restrict r, int64_t n, int act)
{
    if (r)
        for (int64_t i = 0; i < n; i++)
            o[i] += r[i];
    if (act == 1)
        for (int64_t i = 0; i < n; i++)
            o[i] = o[i] < 0 ? 0 : o[i];
    else if (act == 2)
        for (int64_t i = 0; i < n; i++)
            o[i] = d2_gelu_f32(o[i]);
    else if (act == 3)
        for (int64_t i = 0; i < n; i++)
            o[i] = 0.5f * o[i] *
                   (1.0f + tanhf(0.79788456080286536f * (o[i] + 0.044715f * o[i] * o[i] * o[i])));
}

static void epilogue_f64(double *restrict o, const double *restrict r, int64_t n, int act)
{
    for (int64_t i = 0; i < n; i++) {
        double v = o[i] + (r ? r[i] : 0.0);
        if (act == 1)
            v = v < 0 ? 0 : v;
        else if (act == 2)
            v = 0.5 * v * (1 + erf(v * 0.70710678118654752));
        else if (act == 3)
            v = 0.5 * v * (1 + tanh(0.79788456080286536 * (v + 0.044715 * v * v * v)));
        o[i] = v;
    }
}

int cpu_linear_fused(d2_kctx *k)
{
    d2_tensor *res = k->n_in > 3 ? k->in[3] : NULL, *out = k->out[0];
    if (res && (res->dtype != out->dtype || d2_tensor_numel(res) != d2_tensor_numel(out)))
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "linear_fused: the residual must have the result's shape and dtype");
    const char *a = ATTR_STR(k, "activation");
    int act = !*a ? 0 : strcmp(a, "relu") == 0 ? 1 : strcmp(a, "gelu") == 0 ? 2 : 3;
    if (cpu_linear(k) < 0)
        return -1;
    int64_t n = d2_tensor_numel(out);
    if (n == 0 || (!res && !act))
        return 0;
    if (out->dtype == D2_F32)
        epilogue_f32(d2_tensor_data(out), res ? d2_tensor_data(res) : NULL, n, act);
    else
        epilogue_f64(d2_tensor_data(out), res ? d2_tensor_data(res) : NULL, n, act);
    return 0;
}

/* ---- conv2d via im2col + GEMM ---- */

typedef struct {
    int64_t sh, sw, dh, dw, pt, pl; /* strides, dilations, top/left padding */
} conv_geom;

/* Resolves strides, dilations and the top/left padding from the attributes
 * exactly as infer_conv2d does (SAME: out = ceil(in / stride), extra padding
 * at the end, dilation 1; VALID: none). */
static void conv_resolve(d2_kctx *k, int64_t h, int64_t w, int64_t kh, int64_t kw, conv_geom *g)
{
    int n;
    const int64_t *st = ATTR_INTS(k, "strides", &n);
    const int64_t *dl = ATTR_INTS(k, "dilations", &n);
    const int64_t *pd = ATTR_INTS(k, "paddings", &n);
    const char *alg = ATTR_STR(k, "padding_algorithm");
    g->sh = st[0];
    g->sw = st[1];
    g->dh = dl[0];
    g->dw = dl[1];
    g->pt = pd[0];
    g->pl = n == 4 ? pd[2] : pd[1];
    if (strcmp(alg, "VALID") == 0) {
        g->pt = g->pl = 0;
    } else if (strcmp(alg, "SAME") == 0) {
        int64_t in[2] = {h, w}, ks[2] = {kh, kw}, s[2] = {g->sh, g->sw}, p[2];
        for (int i = 0; i < 2; i++) {
            int64_t osz = (in[i] + s[i] - 1) / s[i];
            int64_t sum = (osz - 1) * s[i] + ks[i] - in[i];
            p[i] = (sum > 0 ? sum : 0) / 2;
        }
        g->pt = p[0];
        g->pl = p[1];
        g->dh = g->dw = 1;
    }
}

/* Unfolds one image's channels [C, H, W] into col [C*KH*KW, OH*OW]; padding reads as 0. */
#define DEFINE_IM2COL(T)                                                                          \
    static void im2col_##T(const T *x, int64_t c_n, int64_t h, int64_t w, int64_t kh_n,          \
                           int64_t kw_n, const conv_geom *g, int64_t oh_n, int64_t ow_n, T *col)  \
    {                                                                                             \
        for (int64_t c = 0; c < c_n; c++)                                                         \
            for (int64_t kh = 0; kh < kh_n; kh++)                                                 \
                for (int64_t kw = 0; kw < kw_n; kw++) {                                           \
                    T *row = col + ((c * kh_n + kh) * kw_n + kw) * oh_n * ow_n;                   \
                    const T *xc = x + c * h * w;                                                  \
                    int64_t off = kw * g->dw - g->pl; /* iw = ow * sw + off */                   \
                    int64_t lo = off >= 0 ? 0 : (-off + g->sw - 1) / g->sw;                       \
                    int64_t hi = w - 1 - off < 0 ? 0 : (w - 1 - off) / g->sw + 1;                 \
                    lo = lo < ow_n ? lo : ow_n;                                                   \
                    hi = hi < ow_n ? hi : ow_n;                                                   \
                    hi = hi > lo ? hi : lo;                                                       \
                    for (int64_t oh = 0; oh < oh_n; oh++) {                                       \
                        T *r = row + oh * ow_n;                                                   \
                        int64_t ih = oh * g->sh - g->pt + kh * g->dh;                             \
                        if (ih < 0 || ih >= h) {                                                  \
                            for (int64_t ow = 0; ow < ow_n; ow++)                                 \
                                r[ow] = 0;                                                        \
                            continue;                                                             \
                        }                                                                         \
                        const T *xr = xc + ih * w;                                                \
                        for (int64_t ow = 0; ow < lo; ow++)                                       \
                            r[ow] = 0;                                                            \
                        if (g->sw == 1)                                                           \
                            memcpy(r + lo, xr + lo + off, (size_t)(hi - lo) * sizeof(T));         \
                        else                                                                      \
                            for (int64_t ow = lo; ow < hi; ow++)                                  \
                                r[ow] = xr[ow * g->sw + off];                                     \
                        for (int64_t ow = hi; ow < ow_n; ow++)                                    \
                            r[ow] = 0;                                                            \
                    }                                                                             \
                }                                                                                 \
    }
DEFINE_IM2COL(float)
DEFINE_IM2COL(double)

/* The bottom/right padding that makes a convolution of in (padded by pb at
 * the start) come out at o positions: 0 where the last window already ends
 * inside the input (floor division dropped the rest). */
static int64_t pad_end(int64_t o, int64_t s, int64_t k, int64_t d, int64_t in, int64_t pb)
{
    int64_t p = (o - 1) * s + (k - 1) * d + 1 - in - pb;
    return p > 0 ? p : 0;
}

/* conv2d through im2col + GEMM (or one GEMM for 1x1 stride-1 layers) into od. */
static int conv_plain(d2_kctx *k, const char *xd, const char *wd, d2_tensor *b, char *od,
                      d2_dtype dt, int64_t nn, int64_t c, int64_t h, int64_t w, int64_t oc,
                      int64_t cg, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t groups,
                      const conv_geom *gp)
{
    conv_geom g = *gp;
    size_t es = d2_dtype_size(dt);
    int64_t ocg = oc / groups, kdim = cg * kh * kw, ohw = oh * ow;
    if (b || kdim == 0)
        fill_channels(dt, od, b ? d2_tensor_data(b) : NULL, nn * oc, oc, ohw);
    if (kdim == 0)
        return 0;
    double beta = b ? 1.0 : 0.0;
    bool direct = kh == 1 && kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 &&
                  oh == h && ow == w;
    if (direct) {
        /* 1x1, stride 1, no padding: each image already is the [C, H*W] matrix */
        for (int64_t gi = 0; gi < groups; gi++)
            if (d2_gemm_batched(dt, false, false, ocg, ohw, kdim, 1.0,
                                wd + (size_t)(gi * ocg * kdim) * es, ld(kdim), 0,
                                xd + (size_t)(gi * cg * h * w) * es, ld(ohw), c * h * w, beta,
                                od + (size_t)(gi * ocg * ohw) * es, ld(ohw), oc * ohw, nn,
                                k->err) < 0)
                return -1;
        return 0;
    }
    int64_t ncol;
    size_t col_bytes = 0;
    if (!d2_mul_i64(kdim, ohw, &ncol) || (uint64_t)ncol > SIZE_MAX ||
        !d2_mul_size((size_t)ncol, es, &col_bytes) || col_bytes > d2_tensor_max_bytes())
        return d2_err_set(k->err, D2_ERR_NOMEM,
                          "conv2d: the im2col buffer of %lld x %lld elements is too large",
                          (long long)kdim, (long long)ohw);
    void *col = d2_malloc(col_bytes);
    if (!col)
        return d2_err_set(k->err, D2_ERR_NOMEM, "conv2d: out of memory for the im2col buffer");
    int rc = 0;
    for (int64_t i = 0; i < nn && rc == 0; i++)
        for (int64_t gi = 0; gi < groups && rc == 0; gi++) {
            const char *xg = xd + (size_t)((i * c + gi * cg) * h * w) * es;
            if (dt == D2_F32)
                im2col_float((const float *)xg, cg, h, w, kh, kw, &g, oh, ow, col);
            else
                im2col_double((const double *)xg, cg, h, w, kh, kw, &g, oh, ow, col);
            rc = d2_gemm(dt, false, false, ocg, ohw, kdim, 1.0, wd + (size_t)(gi * ocg * kdim) * es,
                         ld(kdim), col, ld(ohw), beta,
                         od + (size_t)((i * oc + gi * ocg) * ohw) * es, ld(ohw), k->err);
        }
    d2_free(col);
    return rc;
}

/* The epilogue of a fused convolution: od += res (when given), then relu (which keeps NaN,
 * as the relu op does). One branch-free loop per case, each marked for vectorisation (-O2
 * alone vectorises only trip counts known to be a multiple of the vector width). */
#ifdef _OPENMP
#define EPI_SIMD _Pragma("omp simd")
#else
#define EPI_SIMD
#endif
#define EPILOGUE(T, o, r, relu, n)                                                                \
    do {                                                                                          \
        if ((r) && (relu))                                                                        \
            EPI_SIMD for (int64_t i = 0; i < (n); i++) {                                                   \
                T v = (o)[i] + (r)[i];                                                            \
                (o)[i] = v < 0 ? 0 : v;                                                           \
            }                                                                                     \
        else if (r)                                                                               \
            EPI_SIMD for (int64_t i = 0; i < (n); i++)                                                     \
                (o)[i] += (r)[i];                                                                 \
        else                                                                                      \
            EPI_SIMD for (int64_t i = 0; i < (n); i++)                                            \
                (o)[i] = (o)[i] < 0 ? 0 : (o)[i];                                                 \
    } while (0)

static void epilogue(d2_dtype dt, char *od, const char *res, bool relu, int64_t n)
{
    if (dt == D2_F32)
        EPILOGUE(float, (float *)od, (const float *)res, relu, n);
    else
        EPILOGUE(double, (double *)od, (const double *)res, relu, n);
}

/* The convolution of conv2d and conv2d_fused: out = conv(x, wt) + b, plus res
 * (NULL: none, else shaped as out) and relu when asked. */
static int conv_forward(d2_kctx *k, d2_tensor *x, d2_tensor *wt, d2_tensor *b, d2_tensor *res,
                        bool relu, d2_tensor *out)
{
    if (need_float(k, x) < 0)
        return -1;
    if (wt->dtype != x->dtype || (b && b->dtype != x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE, "conv2d: x, weight and bias must share a dtype");
    if (x->ndim != 4 || wt->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d: x and weight must be 4-D");
    int64_t nn = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
    int64_t oc = wt->shape[0], cg = wt->shape[1], kh = wt->shape[2], kw = wt->shape[3];
    int64_t oh = out->shape[2], ow = out->shape[3], groups = ATTR_INT(k, "groups");
    int64_t cgg = 0;
    if (groups < 1 || !d2_mul_i64(cg, groups, &cgg) || c != cgg || oc % groups != 0 ||
        out->shape[1] != oc ||
        out->shape[0] != nn)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d: channel counts do not match groups");
    if (b && d2_tensor_numel(b) != oc)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d: bias must have %lld elements",
                          (long long)oc);
    if (d2_tensor_numel(out) == 0)
        return 0;
    conv_geom g;
    conv_resolve(k, h, w, kh, kw, &g);
    d2_dtype dt = x->dtype;
    size_t es = d2_dtype_size(dt);
    int64_t kdim = cg * kh * kw;
    char *od = d2_tensor_data(out);
    const char *xd = d2_tensor_data(x), *wd = d2_tensor_data(wt);
    if (dt == D2_F32 && kdim > 0 && groups == 1 && g.sw == 1 &&
        d2_dnnl_get_mode() != D2_DNNL_ALWAYS) {
        /* few input channels: the direct kernel where measured faster (conv_direct.c), unless
         * oneDNN is asked for every shape */
        d2_conv_direct cd = {nn, c, h, w, oc, kh, kw, oh, ow, g.sh, g.dh, g.dw, g.pt, g.pl,
                             (const float *)xd, (const float *)wd,
                             b ? d2_tensor_data(b) : NULL, res ? d2_tensor_data(res) : NULL,
                             (float *)od, relu};
        int dr = d2_conv_direct_f32(&cd, d2_gemm_threads(), k->err);
        if (dr <= 0)
            return dr;
    }
    if (dt == D2_F32 && kdim > 0) {
        /* oneDNN where built with it and faster for this shape (dnnl.c) */
        d2_dnnl_conv cv = {nn, c, h, w, oc, kh, kw, oh, ow, groups, g.sh, g.sw, g.dh, g.dw, g.pt,
                           g.pl, pad_end(oh, g.sh, kh, g.dh, h, g.pt),
                           pad_end(ow, g.sw, kw, g.dw, w, g.pl), b != NULL, relu, res != NULL, false,
                           wt};
        /* the sum post-op adds what the output holds: the residual, unless the output took
         * the residual's buffer (in-place execution) */
        if (res && d2_tensor_data(res) != od)
            memcpy(od, d2_tensor_data(res), (size_t)d2_tensor_numel(out) * es);
        int dr = d2_dnnl_conv2d(&cv, (const float *)xd, (const float *)wd,
                                b ? d2_tensor_data(b) : NULL, (float *)od, k->err);
        if (dr <= 0)
            return dr;
    }
    /* the plain path overwrites the output before adding the residual: a residual sharing
     * the output's buffer is copied first */
    d2_tensor *rcopy = NULL;
    if (res && d2_tensor_data(res) == od && !(res = rcopy = d2_tensor_copy_to(res, NULL, k->err)))
        return -1;
    int rc = conv_plain(k, xd, wd, b, od, dt, nn, c, h, w, oc, cg, kh, kw, oh, ow, groups, &g);
    if (rc == 0 && (res || relu))
        epilogue(dt, od, res ? d2_tensor_data(res) : NULL, relu, d2_tensor_numel(out));
    d2_tensor_unref(rcopy);
    return rc;
}

int cpu_conv2d(d2_kctx *k)
{
    return conv_forward(k, k->in[0], k->in[1], k->n_in > 2 ? k->in[2] : NULL, NULL, false,
                        k->out[0]);
}

/* A copy of 4-D t with its dims permuted: to NCHW from NHWC (to_nchw) or back; NULL with
 * err set when out of memory. */
static d2_tensor *permute_nhwc(const d2_tensor *t, bool to_nchw, d2_err *err)
{
    const int64_t *s = t->shape;
    int64_t shape[4] = {s[0], to_nchw ? s[3] : s[2], to_nchw ? s[1] : s[3],
                        to_nchw ? s[2] : s[1]};
    d2_tensor *o = d2_tensor_new(NULL, t->dtype, 4, shape, err);
    if (!o)
        return NULL;
    /* as [n, a, b] -> [n, b, a] with a*b = the plane: (h*w, c) for NHWC -> NCHW */
    int64_t a = to_nchw ? s[1] * s[2] : s[1], b = to_nchw ? s[3] : s[2] * s[3];
    size_t es = d2_dtype_size(t->dtype);
    const char *src = d2_tensor_data(t);
    char *dst = d2_tensor_data(o);
    for (int64_t n = 0; n < s[0]; n++)
        for (int64_t i = 0; i < a; i++)
            for (int64_t j = 0; j < b; j++)
                memcpy(dst + (size_t)((n * b + j) * a + i) * es,
                       src + (size_t)((n * a + i) * b + j) * es, es);
    return o;
}

/* conv2d_fused with data_format NHWC (x, residual and out [n, h, w, c], weight OIHW):
 * oneDNN runs it in that layout; elsewhere (oneDNN absent or declining) it runs as NCHW on
 * permuted copies. */
static int conv_forward_nhwc(d2_kctx *k, d2_tensor *x, d2_tensor *wt, d2_tensor *b,
                             d2_tensor *res, bool relu, d2_tensor *out)
{
    if (x->ndim != 4 || wt->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d: x and weight must be 4-D");
    if (x->dtype == D2_F32 && wt->dtype == D2_F32 && (!b || b->dtype == D2_F32) &&
        d2_tensor_numel(out) > 0) {
        int64_t nn = x->shape[0], h = x->shape[1], w = x->shape[2], c = x->shape[3];
        int64_t oc = wt->shape[0], cg = wt->shape[1], kh = wt->shape[2], kw = wt->shape[3];
        int64_t oh = out->shape[1], ow = out->shape[2], groups = ATTR_INT(k, "groups");
        if (groups >= 1 && cg * groups == c && oc % groups == 0 && out->shape[3] == oc &&
            out->shape[0] == nn && cg * kh * kw > 0 && (!b || d2_tensor_numel(b) == oc)) {
            conv_geom g;
            conv_resolve(k, h, w, kh, kw, &g);
            d2_dnnl_conv cv = {nn, c, h, w, oc, kh, kw, oh, ow, groups, g.sh, g.sw, g.dh, g.dw,
                               g.pt, g.pl, pad_end(oh, g.sh, kh, g.dh, h, g.pt),
                               pad_end(ow, g.sw, kw, g.dw, w, g.pl), b != NULL, relu,
                               res != NULL, true, wt};
            float *od = d2_tensor_data(out);
            if (groups == 1 && d2_dnnl_get_mode() != D2_DNNL_ALWAYS) {
                /* the direct NHWC kernel where measured faster than oneDNN (conv_nhwc.c) */
                d2_conv_nhwc cn = {nn, h, w, c, oc, kh, kw, oh, ow, g.sh, g.sw, g.dh, g.dw,
                                   g.pt, g.pl, d2_tensor_data(x), d2_tensor_data(wt),
                                   b ? d2_tensor_data(b) : NULL,
                                   res ? d2_tensor_data(res) : NULL, od, relu, wt};
                int dr = d2_conv_nhwc_f32(&cn, d2_gemm_threads(), k->err);
                if (dr <= 0)
                    return dr;
            }
            if (res && d2_tensor_data(res) != (void *)od)
                memcpy(od, d2_tensor_data(res), (size_t)d2_tensor_numel(out) * sizeof *od);
            int dr = d2_dnnl_conv2d(&cv, d2_tensor_data(x), d2_tensor_data(wt),
                                    b ? d2_tensor_data(b) : NULL, od, k->err);
            if (dr <= 0)
                return dr;
        }
    }
    d2_tensor *xc = permute_nhwc(x, true, k->err), *resc = NULL, *outc = NULL;
    int ret = -1;
    if (xc && (!res || (resc = permute_nhwc(res, true, k->err)) != NULL) &&
        (outc = permute_nhwc(out, true, k->err)) != NULL &&
        conv_forward(k, xc, wt, b, resc, relu, outc) == 0) {
        d2_tensor *back = permute_nhwc(outc, false, k->err);
        if (back) {
            memcpy(d2_tensor_data(out), d2_tensor_data(back),
                   (size_t)d2_tensor_numel(out) * d2_dtype_size(out->dtype));
            d2_tensor_unref(back);
            ret = 0;
        }
    }
    d2_tensor_unref(xc);
    d2_tensor_unref(resc);
    d2_tensor_unref(outc);
    return ret;
}

int cpu_conv2d_fused(d2_kctx *k)
{
    d2_tensor *res = k->n_in > 3 ? k->in[3] : NULL, *out = k->out[0];
    if (res && (res->dtype != out->dtype || d2_tensor_numel(res) != d2_tensor_numel(out)))
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "conv2d_fused: the residual must have the result's shape and dtype");
    bool relu = strcmp(ATTR_STR(k, "activation"), "relu") == 0;
    if (strcmp(ATTR_STR(k, "data_format"), "NHWC") == 0)
        return conv_forward_nhwc(k, k->in[0], k->in[1], k->n_in > 2 ? k->in[2] : NULL, res, relu,
                                 out);
    return conv_forward(k, k->in[0], k->in[1], k->n_in > 2 ? k->in[2] : NULL, res, relu, out);
}

/* ---- conv2d gradients: conv2d_grad_filter(x, weight, dout) = dweight via im2col
 * and dout @ col^T; conv2d_grad_input(x, weight, dout) = dx via weight^T @ dout
 * folded back by col2im. x and weight give the shapes (and x the data for the
 * filter gradient). */

/* Adds col [C*KH*KW, OH*OW] back into one image's channels [C, H, W]. */
#define DEFINE_COL2IM(T)                                                                          \
    static void col2im_##T(const T *col, int64_t c_n, int64_t h, int64_t w, int64_t kh_n,        \
                           int64_t kw_n, const conv_geom *g, int64_t oh_n, int64_t ow_n, T *x)    \
    {                                                                                             \
        for (int64_t c = 0; c < c_n; c++)                                                         \
            for (int64_t kh = 0; kh < kh_n; kh++)                                                 \
                for (int64_t kw = 0; kw < kw_n; kw++) {                                           \
                    const T *row = col + ((c * kh_n + kh) * kw_n + kw) * oh_n * ow_n;             \
                    T *xc = x + c * h * w;                                                        \
                    for (int64_t oh = 0; oh < oh_n; oh++) {                                       \
                        int64_t ih = oh * g->sh - g->pt + kh * g->dh;                             \
                        if (ih < 0 || ih >= h)                                                    \
                            continue;                                                             \
                        for (int64_t ow = 0; ow < ow_n; ow++) {                                   \
                            int64_t iw = ow * g->sw - g->pl + kw * g->dw;                         \
                            if (iw >= 0 && iw < w)                                                \
                                xc[ih * w + iw] += row[oh * ow_n + ow];                           \
                        }                                                                         \
                    }                                                                             \
                }                                                                                 \
    }
DEFINE_COL2IM(float)
DEFINE_COL2IM(double)

static int conv_grad(d2_kctx *k, bool filter)
{
    d2_tensor *x = k->in[0], *wt = k->in[1], *dy = k->in[2], *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (wt->dtype != x->dtype || dy->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "%s: x, weight and dout must share a dtype",
                          k->def->name);
    if (x->ndim != 4 || wt->ndim != 4 || dy->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x, weight and dout must be 4-D",
                          k->def->name);
    int64_t nn = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
    int64_t oc = wt->shape[0], cg = wt->shape[1], kh = wt->shape[2], kw = wt->shape[3];
    int64_t oh = dy->shape[2], ow = dy->shape[3], groups = ATTR_INT(k, "groups");
    int64_t cgg = 0;
    if (groups < 1 || !d2_mul_i64(cg, groups, &cgg) || c != cgg || oc % groups != 0 ||
        dy->shape[0] != nn || dy->shape[1] != oc)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: shapes of x, weight and dout do not match",
                          k->def->name);
    d2_dtype dt = x->dtype;
    size_t es = d2_dtype_size(dt);
    int64_t ocg = oc / groups, kdim = cg * kh * kw, ohw = oh * ow;
    char *od = d2_tensor_data(out);
    const char *xd = d2_tensor_data(x), *wd = d2_tensor_data(wt), *dd = d2_tensor_data(dy);
    int64_t total = d2_tensor_numel(out);
    if (total == 0)
        return 0;
    memset(od, 0, (size_t)total * es);
    if (kdim == 0 || ohw == 0 || nn == 0)
        return 0;
    conv_geom g;
    conv_resolve(k, h, w, kh, kw, &g);
    int64_t ncol;
    size_t col_bytes = 0;
    if (!d2_mul_i64(kdim, ohw, &ncol) || (uint64_t)ncol > SIZE_MAX ||
        !d2_mul_size((size_t)ncol, es, &col_bytes) || col_bytes > d2_tensor_max_bytes())
        return d2_err_set(k->err, D2_ERR_NOMEM,
                          "%s: the im2col buffer of %lld x %lld elements is too large",
                          k->def->name, (long long)kdim, (long long)ohw);
    void *col = d2_malloc(col_bytes);
    if (!col)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory for the im2col buffer",
                          k->def->name);
    int rc = 0;
    for (int64_t i = 0; i < nn && rc == 0; i++)
        for (int64_t gi = 0; gi < groups && rc == 0; gi++) {
            const char *dyg = dd + (size_t)((i * oc + gi * ocg) * ohw) * es;
            size_t xoff = (size_t)((i * c + gi * cg) * h * w) * es;
            if (filter) {
                if (dt == D2_F32)
                    im2col_float((const float *)(xd + xoff), cg, h, w, kh, kw, &g, oh, ow, col);
                else
                    im2col_double((const double *)(xd + xoff), cg, h, w, kh, kw, &g, oh, ow,
                                  col);
                rc = d2_gemm(dt, false, true, ocg, kdim, ohw, 1.0, dyg, ld(ohw), col, ld(ohw),
                             1.0, od + (size_t)(gi * ocg * kdim) * es, ld(kdim), k->err);
            } else {
                rc = d2_gemm(dt, true, false, kdim, ohw, ocg, 1.0,
                             wd + (size_t)(gi * ocg * kdim) * es, ld(kdim), dyg, ld(ohw), 0.0,
                             col, ld(ohw), k->err);
                if (rc == 0 && dt == D2_F32)
                    col2im_float(col, cg, h, w, kh, kw, &g, oh, ow, (float *)(od + xoff));
                else if (rc == 0)
                    col2im_double(col, cg, h, w, kh, kw, &g, oh, ow, (double *)(od + xoff));
            }
        }
    d2_free(col);
    return rc;
}

int cpu_conv2d_grad_input(d2_kctx *k) { return conv_grad(k, false); }
int cpu_conv2d_grad_filter(d2_kctx *k) { return conv_grad(k, true); }

/* ---- conv2d_transpose via GEMM + col2im ----
 * Per image and group: col [OCg*KH*KW, H*W] = W_g^T X_g, folded into the output [OCg, OH, OW]
 * by col2im (the transposed convolution is conv2d's input gradient with x's roles swapped). */
int cpu_conv2d_transpose(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *wt = k->in[1], *b = k->n_in > 2 ? k->in[2] : NULL, *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (wt->dtype != x->dtype || (b && b->dtype != x->dtype))
        return d2_err_set(k->err, D2_ERR_DTYPE,
                          "conv2d_transpose: x, weight and bias must share a dtype");
    if (x->ndim != 4 || wt->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d_transpose: x and weight must be 4-D");
    int64_t nn = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
    int64_t ocg = wt->shape[1], kh = wt->shape[2], kw = wt->shape[3];
    int64_t oh = out->shape[2], ow = out->shape[3], groups = ATTR_INT(k, "groups");
    int64_t oc = out->shape[1];
    if (groups < 1 || wt->shape[0] != c || c % groups != 0 || ocg * groups != oc ||
        out->shape[0] != nn)
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "conv2d_transpose: channel counts do not match groups");
    if (b && d2_tensor_numel(b) != oc)
        return d2_err_set(k->err, D2_ERR_SHAPE, "conv2d_transpose: bias must have %lld elements",
                          (long long)oc);
    if (d2_tensor_numel(out) == 0)
        return 0;
    conv_geom g;
    conv_resolve(k, h, w, kh, kw, &g);
    d2_dtype dt = x->dtype;
    size_t es = d2_dtype_size(dt);
    int64_t cg = c / groups, kdim = ocg * kh * kw, hw = h * w, ohw = oh * ow;
    char *od = d2_tensor_data(out);
    const char *xd = d2_tensor_data(x), *wd = d2_tensor_data(wt);
    fill_channels(dt, od, b ? d2_tensor_data(b) : NULL, nn * oc, oc, ohw);
    if (kdim == 0 || hw == 0 || cg == 0)
        return 0;
    int64_t ncol;
    size_t col_bytes = 0;
    if (!d2_mul_i64(kdim, hw, &ncol) || (uint64_t)ncol > SIZE_MAX ||
        !d2_mul_size((size_t)ncol, es, &col_bytes) || col_bytes > d2_tensor_max_bytes())
        return d2_err_set(k->err, D2_ERR_NOMEM,
                          "conv2d_transpose: the col2im buffer of %lld x %lld elements is too "
                          "large", (long long)kdim, (long long)hw);
    void *col = d2_malloc(col_bytes);
    if (!col)
        return d2_err_set(k->err, D2_ERR_NOMEM,
                          "conv2d_transpose: out of memory for the col2im buffer");
    int rc = 0;
    for (int64_t i = 0; i < nn && rc == 0; i++)
        for (int64_t gi = 0; gi < groups && rc == 0; gi++) {
            const char *xg = xd + (size_t)((i * c + gi * cg) * hw) * es;
            rc = d2_gemm(dt, true, false, kdim, hw, cg, 1.0, wd + (size_t)(gi * cg * kdim) * es,
                         ld(kdim), xg, ld(hw), 0.0, col, ld(hw), k->err);
            if (rc < 0)
                break;
            char *yg = od + (size_t)((i * oc + gi * ocg) * ohw) * es;
            if (dt == D2_F32)
                col2im_float(col, ocg, oh, ow, kh, kw, &g, h, w, (float *)yg);
            else
                col2im_double(col, ocg, oh, ow, kh, kw, &g, h, w, (double *)yg);
        }
    d2_free(col);
    return rc;
}

/* ---- pool2d ----
 * Paddle's CPU pooling: windows start at o*stride - pad_top/left; the
 * non-exclusive average divides by the window clipped to the padded input
 * (only the top/left padding counts at the far end, as in Paddle);
 * exclusive and adaptive averages divide by the in-bounds window. Adaptive
 * windows are [floor(i*H/out), ceil((i+1)*H/out)) for max and avg alike. */
typedef struct {
    int64_t kh, kw, sh, sw, pt, pl;
    bool adaptive, exclusive, is_max;
} pool_geom;

/* The input window [hs, he) x [ws, we) of output (oh, ow) of one plane, clipped
 * to the input, and the divisor of an average over it (*size: the clipped
 * window when exclusive or adaptive, else the window within the padding). */
static inline void pool_window(const pool_geom *g, int64_t oh, int64_t ow, int64_t h, int64_t w,
                               int64_t oh_n, int64_t ow_n, int64_t *hs, int64_t *he, int64_t *ws,
                               int64_t *we, int64_t *size)
{
    if (g->adaptive) {
        *hs = oh * h / oh_n;
        *he = ((oh + 1) * h + oh_n - 1) / oh_n;
        *ws = ow * w / ow_n;
        *we = ((ow + 1) * w + ow_n - 1) / ow_n;
        *size = (*he - *hs) * (*we - *ws);
        return;
    }
    int64_t h0 = oh * g->sh - g->pt, w0 = ow * g->sw - g->pl;
    int64_t h1 = h0 + g->kh < h + g->pt ? h0 + g->kh : h + g->pt;
    int64_t w1 = w0 + g->kw < w + g->pl ? w0 + g->kw : w + g->pl;
    *size = (h1 - h0) * (w1 - w0);
    *hs = h0 > 0 ? h0 : 0;
    *ws = w0 > 0 ? w0 : 0;
    *he = h1 < h ? h1 : h;
    *we = w1 < w ? w1 : w;
    if (g->exclusive)
        *size = (*he - *hs) * (*we - *ws);
}

#define DEFINE_POOL(T)                                                                            \
    static void pool_##T(const T *x, T *y, int64_t planes, int64_t h, int64_t w, int64_t oh_n,   \
                         int64_t ow_n, const pool_geom *g)                                        \
    {                                                                                             \
        for (int64_t p = 0; p < planes; p++, x += h * w)                                          \
            for (int64_t oh = 0; oh < oh_n; oh++)                                                 \
                for (int64_t ow = 0; ow < ow_n; ow++) {                                           \
                    int64_t hs, he, ws, we, size;                                                 \
                    pool_window(g, oh, ow, h, w, oh_n, ow_n, &hs, &he, &ws, &we, &size);          \
                    T v = g->is_max ? (T)-FLT_MAX : (T)0;                                         \
                    for (int64_t ih = hs; ih < he; ih++)                                          \
                        for (int64_t iw = ws; iw < we; iw++) {                                    \
                            T e = x[ih * w + iw];                                                 \
                            if (g->is_max)                                                        \
                                v = v > e ? v : e;                                                \
                            else                                                                  \
                                v += e;                                                           \
                        }                                                                         \
                    *y++ = g->is_max ? v : v / (T)size;                                           \
                }                                                                                 \
    }
DEFINE_POOL(float)
DEFINE_POOL(double)

/* Marks a loop for vectorisation: -O2 alone vectorises only loops whose trip
 * count is a known multiple of the vector width. */
#ifdef _OPENMP
#define SIMD _Pragma("omp simd")
#else
#define SIMD
#endif

/* Max pooling without adaptive windows, in two vectorisable passes per
 * output row: the maximum over the window's rows for every input column
 * (contiguous), then over each window's columns, with the windows that lie
 * wholly inside the row taken without bounds checks. Same windows and the
 * same result as pool_T; row is scratch of w elements. */
#define DEFINE_POOL_MAX(T)                                                                        \
    static void pool_max_##T(const T *x, T *y, int64_t planes, int64_t h, int64_t w,             \
                             int64_t oh_n, int64_t ow_n, const pool_geom *g, T *row)              \
    {                                                                                             \
        /* ow in [lo, hi): the window's columns are all inside [0, w) */                          \
        int64_t lo = g->pl > 0 ? (g->pl + g->sw - 1) / g->sw : 0;                                 \
        int64_t hi = w + g->pl - g->kw < 0 ? 0 : (w + g->pl - g->kw) / g->sw + 1;                 \
        lo = lo < ow_n ? lo : ow_n;                                                               \
        hi = hi < ow_n ? hi : ow_n;                                                               \
        hi = hi > lo ? hi : lo;                                                                   \
        for (int64_t p = 0; p < planes; p++, x += h * w)                                          \
            for (int64_t oh = 0; oh < oh_n; oh++, y += ow_n) {                                    \
                int64_t hs = oh * g->sh - g->pt;                                                  \
                int64_t he = hs + g->kh < h + g->pt ? hs + g->kh : h + g->pt;                     \
                hs = hs > 0 ? hs : 0;                                                             \
                he = he < h ? he : h;                                                             \
                SIMD for (int64_t iw = 0; iw < w; iw++)                                           \
                    row[iw] = (T)-FLT_MAX;                                                        \
                for (int64_t ih = hs; ih < he; ih++) {                                            \
                    const T *xr = x + ih * w;                                                     \
                    SIMD for (int64_t iw = 0; iw < w; iw++)                                       \
                        row[iw] = row[iw] > xr[iw] ? row[iw] : xr[iw];                            \
                }                                                                                 \
                for (int64_t ow = lo; ow < hi; ow++)                                              \
                    y[ow] = (T)-FLT_MAX;                                                          \
                for (int64_t j = 0; j < g->kw; j++) {                                             \
                    const T *r = row + j - g->pl;                                                 \
                    SIMD for (int64_t ow = lo; ow < hi; ow++) {                                   \
                        T e = r[ow * g->sw];                                                      \
                        y[ow] = y[ow] > e ? y[ow] : e;                                            \
                    }                                                                             \
                }                                                                                 \
                for (int64_t ow = 0; ow < ow_n; ow++) {                                           \
                    if (ow == lo)                                                                 \
                        ow = hi;                                                                  \
                    if (ow >= ow_n)                                                               \
                        break;                                                                    \
                    int64_t ws = ow * g->sw - g->pl;                                              \
                    int64_t we = ws + g->kw < w + g->pl ? ws + g->kw : w + g->pl;                 \
                    ws = ws > 0 ? ws : 0;                                                         \
                    we = we < w ? we : w;                                                         \
                    T v = (T)-FLT_MAX;                                                            \
                    for (int64_t iw = ws; iw < we; iw++)                                          \
                        v = v > row[iw] ? v : row[iw];                                            \
                    y[ow] = v;                                                                    \
                }                                                                                 \
            }                                                                                     \
    }
DEFINE_POOL_MAX(float)
DEFINE_POOL_MAX(double)

/* 2x2 max pooling with stride 2 whose windows all lie inside the input (LeNet's and most
 * CNNs' pooling): each output row from two input rows in one vectorised pass. */
D2_SIMD static void pool_max2_f32(const float *x, float *y, int64_t planes, int64_t h, int64_t w,
                                  int64_t oh_n, int64_t ow_n)
{
    for (int64_t p = 0; p < planes; p++, x += h * w)
        for (int64_t oh = 0; oh < oh_n; oh++, y += ow_n) {
            const float *a = x + 2 * oh * w, *b = a + w;
            for (int64_t ow = 0; ow < ow_n; ow++) {
                float u = a[2 * ow] > a[2 * ow + 1] ? a[2 * ow] : a[2 * ow + 1];
                float v = b[2 * ow] > b[2 * ow + 1] ? b[2 * ow] : b[2 * ow + 1];
                y[ow] = u > v ? u : v;
            }
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* pool_max2_f32 with AVX-512 on planes [p0, p1): 16 outputs from two pairs of input vectors,
 * split into even and odd columns; max(a, b) as a > b ? a : b (vmaxps), as pool_max2_f32. */
__attribute__((target("avx512f"))) static void
pool_max2_avx512(const float *x, float *y, int64_t p0, int64_t p1, int64_t h, int64_t w,
                 int64_t oh_n, int64_t ow_n)
{
    const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i od = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    for (int64_t p = p0; p < p1; p++) {
        const float *xp = x + p * h * w;
        float *yp = y + p * oh_n * ow_n;
        for (int64_t oh = 0; oh < oh_n; oh++) {
            const float *a = xp + 2 * oh * w, *b = a + w;
            float *yr = yp + oh * ow_n;
            for (int64_t o0 = 0; o0 < ow_n; o0 += 16) {
                int64_t left = ow_n - o0 < 16 ? ow_n - o0 : 16, in = 2 * left;
                __mmask16 m0 = in >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << in) - 1);
                __mmask16 m1 = in >= 32 ? (__mmask16)0xFFFF
                                        : in <= 16 ? 0 : (__mmask16)((1u << (in - 16)) - 1);
                __mmask16 mo = (__mmask16)((1u << left) - 1);
                __m512 a0 = _mm512_maskz_loadu_ps(m0, a + 2 * o0);
                __m512 a1 = _mm512_maskz_loadu_ps(m1, a + 2 * o0 + 16);
                __m512 b0 = _mm512_maskz_loadu_ps(m0, b + 2 * o0);
                __m512 b1 = _mm512_maskz_loadu_ps(m1, b + 2 * o0 + 16);
                __m512 u = _mm512_max_ps(_mm512_permutex2var_ps(a0, ev, a1),
                                         _mm512_permutex2var_ps(a0, od, a1));
                __m512 v = _mm512_max_ps(_mm512_permutex2var_ps(b0, ev, b1),
                                         _mm512_permutex2var_ps(b0, od, b1));
                _mm512_mask_storeu_ps(yr + o0, mo, _mm512_max_ps(u, v));
            }
        }
    }
}

/* 2x2 stride-2 max pooling with AVX-512 on nt threads (planes split between them); false
 * where the CPU lacks AVX-512 (nothing written). */
static bool pool_max2_fast(const float *x, float *y, int64_t planes, int64_t h, int64_t w,
                           int64_t oh_n, int64_t ow_n, int nt)
{
    if (!d2_conv_direct_available())
        return false;
    if (nt > 1 && planes >= 2 * nt && planes * oh_n * ow_n >= 16384) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
        {
            int id = omp_get_thread_num(), k = omp_get_num_threads();
            pool_max2_avx512(x, y, planes * id / k, planes * (id + 1) / k, h, w, oh_n, ow_n);
        }
        return true;
#endif
    }
    pool_max2_avx512(x, y, 0, planes, h, w, oh_n, ow_n);
    return true;
}
#else
static bool pool_max2_fast(const float *x, float *y, int64_t planes, int64_t h, int64_t w,
                           int64_t oh_n, int64_t ow_n, int nt)
{
    D2_UNUSED(x), D2_UNUSED(y), D2_UNUSED(planes), D2_UNUSED(h), D2_UNUSED(w);
    D2_UNUSED(oh_n), D2_UNUSED(ow_n), D2_UNUSED(nt);
    return false;
}
#endif

int cpu_pool2d(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (x->ndim != 4 || out->ndim != 4)
        return d2_err_set(k->err, D2_ERR_SHAPE, "pool2d: x must be 4-D");
    int64_t h = x->shape[2], w = x->shape[3];
    int n;
    const int64_t *ks = ATTR_INTS(k, "ksize", &n);
    const int64_t *st = ATTR_INTS(k, "strides", &n);
    const int64_t *pd = ATTR_INTS(k, "paddings", &n);
    bool global = ATTR_BOOL(k, "global_pooling");
    pool_geom g = {global ? h : ks[0], global ? w : ks[1], st[0], st[1], pd[0],
                   n == 4 ? pd[2] : pd[1], ATTR_BOOL(k, "adaptive"), ATTR_BOOL(k, "exclusive"),
                   strcmp(ATTR_STR(k, "pooling_type"), "max") == 0};
    if (global || g.adaptive)
        g.pt = g.pl = 0;
    int64_t planes = x->shape[0] * x->shape[1];
    if (d2_tensor_numel(out) == 0)
        return 0;
    if (h == 0 || w == 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "pool2d: input has an empty spatial dimension");
    if (g.is_max && !g.adaptive && x->dtype == D2_F32 && g.kh == 2 && g.kw == 2 && g.sh == 2 &&
        g.sw == 2 && g.pt == 0 && g.pl == 0 && 2 * out->shape[2] <= h && 2 * out->shape[3] <= w) {
        if (!pool_max2_fast(d2_tensor_data(x), d2_tensor_data(out), planes, h, w,
                            out->shape[2], out->shape[3], d2_gemm_threads()))
            pool_max2_f32(d2_tensor_data(x), d2_tensor_data(out), planes, h, w, out->shape[2],
                          out->shape[3]);
        return 0;
    }
    if (g.is_max && !g.adaptive) {
        size_t es = d2_dtype_size(x->dtype), rb;
        if (!d2_mul_size((size_t)w, es, &rb))
            return d2_err_set(k->err, D2_ERR_NOMEM, "pool2d: rows of %lld elements are too long",
                              (long long)w);
        void *row = d2_malloc(rb);
        if (!row)
            return d2_err_set(k->err, D2_ERR_NOMEM, "pool2d: out of memory");
        if (x->dtype == D2_F32)
            pool_max_float(d2_tensor_data(x), d2_tensor_data(out), planes, h, w, out->shape[2],
                           out->shape[3], &g, row);
        else
            pool_max_double(d2_tensor_data(x), d2_tensor_data(out), planes, h, w, out->shape[2],
                            out->shape[3], &g, row);
        d2_free(row);
        return 0;
    }
    if (x->dtype == D2_F32)
        pool_float(d2_tensor_data(x), d2_tensor_data(out), planes, h, w, out->shape[2],
                   out->shape[3], &g);
    else
        pool_double(d2_tensor_data(x), d2_tensor_data(out), planes, h, w, out->shape[2],
                    out->shape[3], &g);
    return 0;
}

/* ---- pool2d_grad(x, out, dout): dx. Max sends each dout to the first element
 * of its window equal to the pooled value (Paddle's rule); average spreads it
 * over the window's in-bounds elements, divided as the forward op divides. */
#define DEFINE_POOL_GRAD(T)                                                                       \
    static void pool_grad_##T(const T *x, const T *y, const T *dy, T *dx, int64_t planes,        \
                              int64_t h, int64_t w, int64_t oh_n, int64_t ow_n,                   \
                              const pool_geom *g)                                                 \
    {                                                                                             \
        for (int64_t p = 0; p < planes; p++, x += h * w, dx += h * w)                             \
            for (int64_t oh = 0; oh < oh_n; oh++)                                                 \
                for (int64_t ow = 0; ow < ow_n; ow++, y++, dy++) {                                \
                    int64_t hs, he, ws, we, size;                                                 \
                    pool_window(g, oh, ow, h, w, oh_n, ow_n, &hs, &he, &ws, &we, &size);          \
                    bool done = false;                                                            \
                    for (int64_t ih = hs; ih < he && !done; ih++)                                 \
                        for (int64_t iw = ws; iw < we && !done; iw++) {                           \
                            if (!g->is_max) {                                                     \
                                dx[ih * w + iw] += *dy / (T)size;                                 \
                            } else if (x[ih * w + iw] == *y) {                                    \
                                dx[ih * w + iw] += *dy;                                           \
                                done = true;                                                      \
                            }                                                                     \
                        }                                                                         \
                }                                                                                 \
    }
DEFINE_POOL_GRAD(float)
DEFINE_POOL_GRAD(double)

/* Max pooling whose windows tile the input (stride = window, no padding, not adaptive): each
 * output's window is read in place, without the general window computation; the first
 * maximum in row-major order takes dout, as above. */
#define DEFINE_POOL_GRAD_TILED(T)                                                                 \
    static void pool_grad_tiled_##T(const T *x, const T *y, const T *dy, T *dx, int64_t planes,  \
                                    int64_t h, int64_t w, int64_t oh_n, int64_t ow_n, int64_t kh, \
                                    int64_t kw)                                                   \
    {                                                                                             \
        for (int64_t p = 0; p < planes; p++, x += h * w, dx += h * w)                             \
            for (int64_t oh = 0; oh < oh_n; oh++) {                                               \
                const T *xr = x + oh * kh * w;                                                    \
                T *dr = dx + oh * kh * w;                                                         \
                if (kh == 2 && kw == 2) {                                                         \
                    for (int64_t ow = 0; ow < ow_n; ow++, y++, dy++) {                            \
                        const T *a = xr + 2 * ow;                                                 \
                        T *d = dr + 2 * ow;                                                       \
                        int64_t at = a[0] == *y ? 0 : a[1] == *y ? 1 : a[w] == *y ? w             \
                                     : a[w + 1] == *y ? w + 1 : -1;                               \
                        if (at >= 0)                                                              \
                            d[at] += *dy;                                                         \
                    }                                                                             \
                    continue;                                                                     \
                }                                                                                 \
                for (int64_t ow = 0; ow < ow_n; ow++, y++, dy++) {                                \
                    const T *a = xr + kw * ow;                                                    \
                    int64_t at = -1;                                                              \
                    for (int64_t i = 0; i < kh && at < 0; i++)                                    \
                        for (int64_t j = 0; j < kw; j++)                                          \
                            if (a[i * w + j] == *y) {                                             \
                                at = i * w + j;                                                   \
                                break;                                                            \
                            }                                                                     \
                    if (at >= 0)                                                                  \
                        dr[kw * ow + at] += *dy;                                                  \
                }                                                                                 \
            }                                                                                     \
    }
DEFINE_POOL_GRAD_TILED(float)
DEFINE_POOL_GRAD_TILED(double)

int cpu_pool2d_grad(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *dy = k->in[2], *dx = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    if (y->dtype != x->dtype || dy->dtype != x->dtype)
        return d2_err_set(k->err, D2_ERR_DTYPE, "pool2d_grad: x, out and dout must share a dtype");
    if (x->ndim != 4 || y->ndim != 4 || dy->ndim != 4 || y->shape[0] != x->shape[0] ||
        y->shape[1] != x->shape[1])
        return d2_err_set(k->err, D2_ERR_SHAPE, "pool2d_grad: x, out and dout must be 4-D");
    for (int d = 0; d < 4; d++)
        if (dy->shape[d] != y->shape[d])
            return d2_err_set(k->err, D2_ERR_SHAPE, "pool2d_grad: dout must have out's shape");
    int64_t h = x->shape[2], w = x->shape[3];
    int n;
    const int64_t *ks = ATTR_INTS(k, "ksize", &n);
    const int64_t *st = ATTR_INTS(k, "strides", &n);
    const int64_t *pd = ATTR_INTS(k, "paddings", &n);
    bool global = ATTR_BOOL(k, "global_pooling");
    pool_geom g = {global ? h : ks[0], global ? w : ks[1], st[0], st[1], pd[0],
                   n == 4 ? pd[2] : pd[1], ATTR_BOOL(k, "adaptive"), ATTR_BOOL(k, "exclusive"),
                   strcmp(ATTR_STR(k, "pooling_type"), "max") == 0};
    if (global || g.adaptive)
        g.pt = g.pl = 0;
    int64_t planes = x->shape[0] * x->shape[1], nx = d2_tensor_numel(x);
    if (nx == 0)
        return 0;
    memset(d2_tensor_data(dx), 0, (size_t)nx * d2_dtype_size(x->dtype));
    if (d2_tensor_numel(y) == 0)
        return 0;
    int64_t oh_n = y->shape[2], ow_n = y->shape[3];
    if (g.is_max && !global && !g.adaptive && g.kh == g.sh && g.kw == g.sw && g.pt == 0 &&
        g.pl == 0 && oh_n * g.kh <= h && ow_n * g.kw <= w) {
        if (x->dtype == D2_F32)
            pool_grad_tiled_float(d2_tensor_data(x), d2_tensor_data(y), d2_tensor_data(dy),
                                  d2_tensor_data(dx), planes, h, w, oh_n, ow_n, g.kh, g.kw);
        else
            pool_grad_tiled_double(d2_tensor_data(x), d2_tensor_data(y), d2_tensor_data(dy),
                                   d2_tensor_data(dx), planes, h, w, oh_n, ow_n, g.kh, g.kw);
        return 0;
    }
    if (x->dtype == D2_F32)
        pool_grad_float(d2_tensor_data(x), d2_tensor_data(y), d2_tensor_data(dy),
                        d2_tensor_data(dx), planes, h, w, y->shape[2], y->shape[3], &g);
    else
        pool_grad_double(d2_tensor_data(x), d2_tensor_data(y), d2_tensor_data(dy),
                         d2_tensor_data(dx), planes, h, w, y->shape[2], y->shape[3], &g);
    return 0;
}

/* Element i of a float tensor's data as double, and the reverse. */
static double rd(d2_dtype dt, const void *p, int64_t i)
{
    return dt == D2_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

static void wr(d2_dtype dt, void *p, int64_t i, double v)
{
    if (dt == D2_F32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* ---- batch_norm (inference): y = (x - mean[c]) * scale[c] / sqrt(var[c] + eps) + bias[c] ----
 * batch_norm_act adds res (when given) and applies relu in the same loop, rounding as batch_norm,
 * add and relu would one after another: their results bit for bit. */
static int batch_norm_run(d2_kctx *k, d2_tensor *res, bool relu)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    const char *op = k->def->name;
    if (need_float(k, x) < 0)
        return -1;
    if (x->ndim < 2)
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: x must be at least 2-D", op);
    int64_t c = x->shape[1], inner = prod(x->shape + 2, x->ndim - 2), nn = x->shape[0];
    for (int i = 1; i < 5; i++)
        if (k->in[i]->dtype != x->dtype || d2_tensor_numel(k->in[i]) != c)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: '%s' must have %lld %s values", op,
                              k->def->in_names[i], (long long)c, d2_dtype_name(x->dtype));
    if (res && (res->dtype != x->dtype || d2_tensor_numel(res) != d2_tensor_numel(x)))
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "%s: the residual must have the result's shape and dtype", op);
    double eps = ATTR_FLOAT(k, "epsilon");
    d2_dtype dt = x->dtype;
    const void *xd = d2_tensor_data(x), *mean = d2_tensor_data(k->in[1]),
               *var = d2_tensor_data(k->in[2]), *scale = d2_tensor_data(k->in[3]),
               *bias = d2_tensor_data(k->in[4]), *rd_ = res ? d2_tensor_data(res) : NULL;
    void *od = d2_tensor_data(out);
    for (int64_t ch = 0; ch < c; ch++) {
        double mu = rd(dt, mean, ch), sc = rd(dt, scale, ch) / sqrt(rd(dt, var, ch) + eps);
        double bi = rd(dt, bias, ch);
        for (int64_t i = 0; i < nn; i++) {
            int64_t base = (i * c + ch) * inner;
            /* typed loops: the same double arithmetic, vectorised; the plain loop apart */
            if (dt == D2_F32) {
                const float *xs = (const float *)xd + base;
                const float *rs = rd_ ? (const float *)rd_ + base : NULL;
                float *os = (float *)od + base;
                if (!rs && !relu) {
                    SIMD for (int64_t j = 0; j < inner; j++)
                        os[j] = (float)(((double)xs[j] - mu) * sc + bi);
                    continue;
                }
                SIMD for (int64_t j = 0; j < inner; j++) {
                    float v = (float)(((double)xs[j] - mu) * sc + bi);
                    if (rs)
                        v = v + rs[j];
                    os[j] = relu && v < 0 ? 0 : v;
                }
            } else { /* F64 (need_float admits no other dtype) */
                const double *xs = (const double *)xd + base;
                const double *rs = rd_ ? (const double *)rd_ + base : NULL;
                double *os = (double *)od + base;
                SIMD for (int64_t j = 0; j < inner; j++) {
                    double v = (xs[j] - mu) * sc + bi;
                    if (rs)
                        v = v + rs[j];
                    os[j] = relu && v < 0 ? 0 : v;
                }
            }
        }
    }
    return 0;
}

int cpu_batch_norm(d2_kctx *k) { return batch_norm_run(k, NULL, false); }

int cpu_batch_norm_act(d2_kctx *k)
{
    return batch_norm_run(k, k->n_in > 5 ? k->in[5] : NULL,
                          strcmp(ATTR_STR(k, "activation"), "relu") == 0);
}

/* ---- layer_norm: each row of `right` elements from begin_norm_axis on is
 * normalised with its own mean and (biased) variance ---- */
/* layer_norm over float32 rows: sums in double, in 8 interleaved partial sums so that the
 * loops vectorise (the generic path below sums one element at a time). */
D2_SIMD static void layer_norm_f32(int64_t left, int64_t right, const float *x, const float *s,
                                   const float *b, float *o, double eps)
{
    for (int64_t r = 0; r < left; r++) {
        const float *xr = x + r * right;
        float *orow = o + r * right;
        double acc[8] = {0}, mean = 0, var = 0;
        int64_t j = 0;
        for (; j + 8 <= right; j += 8)
            for (int l = 0; l < 8; l++)
                acc[l] += xr[j + l];
        for (; j < right; j++)
            mean += xr[j];
        for (int l = 0; l < 8; l++)
            mean += acc[l];
        mean /= (double)right;
        for (int l = 0; l < 8; l++)
            acc[l] = 0;
        for (j = 0; j + 8 <= right; j += 8)
            for (int l = 0; l < 8; l++) {
                double d = xr[j + l] - mean;
                acc[l] += d * d;
            }
        for (; j < right; j++) {
            double d = xr[j] - mean;
            var += d * d;
        }
        for (int l = 0; l < 8; l++)
            var += acc[l];
        double inv = 1.0 / sqrt(var / (double)right + eps);
        if (s && b)
            for (j = 0; j < right; j++)
                orow[j] = (float)(((double)xr[j] - mean) * inv * (double)s[j] + (double)b[j]);
        else
            for (j = 0; j < right; j++) {
                double v = ((double)xr[j] - mean) * inv;
                if (s)
                    v *= (double)s[j];
                if (b)
                    v += (double)b[j];
                orow[j] = (float)v;
            }
    }
}

int cpu_layer_norm(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    d2_tensor *scale = k->n_in > 1 ? k->in[1] : NULL, *bias = k->n_in > 2 ? k->in[2] : NULL;
    if (need_float(k, x) < 0)
        return -1;
    int axis = d2_norm_axis(ATTR_INT(k, "begin_norm_axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t left = prod(x->shape, axis), right = prod(x->shape + axis, x->ndim - axis);
    if ((scale && (scale->dtype != x->dtype || d2_tensor_numel(scale) != right)) ||
        (bias && (bias->dtype != x->dtype || d2_tensor_numel(bias) != right)))
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "layer_norm: scale and bias must have %lld %s values", (long long)right,
                          d2_dtype_name(x->dtype));
    if (right == 0)
        return 0;
    double eps = ATTR_FLOAT(k, "epsilon");
    d2_dtype dt = x->dtype;
    const void *xd = d2_tensor_data(x);
    const void *sd = scale ? d2_tensor_data(scale) : NULL, *bd = bias ? d2_tensor_data(bias) : NULL;
    void *od = d2_tensor_data(out);
    if (dt == D2_F32) {
        layer_norm_f32(left, right, xd, sd, bd, od, eps);
        return 0;
    }
    for (int64_t r = 0; r < left; r++) {
        int64_t base = r * right;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < right; j++)
            mean += rd(dt, xd, base + j);
        mean /= (double)right;
        for (int64_t j = 0; j < right; j++) {
            double d = rd(dt, xd, base + j) - mean;
            var += d * d;
        }
        double inv = 1.0 / sqrt(var / (double)right + eps);
        for (int64_t j = 0; j < right; j++) {
            double v = (rd(dt, xd, base + j) - mean) * inv;
            if (sd)
                v *= rd(dt, sd, j);
            if (bd)
                v += rd(dt, bd, j);
            wr(dt, od, base + j, v);
        }
    }
    return 0;
}

/* add_layer_norm: each row of x + y summed into the output row (float32 sums, as add's), then
 * normalised there while it is in L1: add's and layer_norm's results bit for bit. float64 and
 * shapes that differ run as the parts. */
int cpu_add_layer_norm(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    d2_tensor *scale = k->n_in > 2 ? k->in[2] : NULL, *bias = k->n_in > 3 ? k->in[3] : NULL;
    bool same = x->dtype == D2_F32 && y->dtype == D2_F32 && x->ndim == y->ndim &&
                x->ndim == out->ndim;
    for (int d = 0; same && d < x->ndim; d++)
        same = x->shape[d] == y->shape[d] && x->shape[d] == out->shape[d];
    if (!same)
        return d2_add_layer_norm_parts(k);
    int axis = d2_norm_axis(ATTR_INT(k, "begin_norm_axis"), x->ndim, k->def, k->err);
    if (axis < 0)
        return -1;
    int64_t left = prod(x->shape, axis), right = prod(x->shape + axis, x->ndim - axis);
    if ((scale && (scale->dtype != x->dtype || d2_tensor_numel(scale) != right)) ||
        (bias && (bias->dtype != x->dtype || d2_tensor_numel(bias) != right)))
        return d2_err_set(k->err, D2_ERR_SHAPE,
                          "add_layer_norm: scale and bias must have %lld %s values",
                          (long long)right, d2_dtype_name(x->dtype));
    if (right == 0)
        return 0;
    double eps = ATTR_FLOAT(k, "epsilon");
    const float *xd = d2_tensor_data(x), *yd = d2_tensor_data(y);
    const float *sd = scale ? d2_tensor_data(scale) : NULL, *bd = bias ? d2_tensor_data(bias) : NULL;
    float *od = d2_tensor_data(out);
    for (int64_t r = 0; r < left; r++) {
        const float *xr = xd + r * right, *yr = yd + r * right;
        float *orow = od + r * right;
        SIMD for (int64_t j = 0; j < right; j++)
            orow[j] = xr[j] + yr[j];
        layer_norm_f32(1, right, orow, sd, bd, orow, eps);
    }
    return 0;
}

/* ---- embedding: out[i, :] = weight[ids[i], :]; padding_idx rows are zeros ---- */
int cpu_embedding(d2_kctx *k)
{
    d2_tensor *ids = k->in[0], *w = k->in[1], *out = k->out[0];
    if (ids->dtype != D2_I32 && ids->dtype != D2_I64)
        return d2_err_set(k->err, D2_ERR_DTYPE, "embedding: ids must be int32 or int64, got %s",
                          d2_dtype_name(ids->dtype));
    if (w->ndim != 2)
        return d2_err_set(k->err, D2_ERR_SHAPE, "embedding: weight must be 2-D");
    int64_t v = w->shape[0], dim = w->shape[1], n = d2_tensor_numel(ids);
    int64_t pad = ATTR_INT(k, "padding_idx");
    bool has_pad = pad != -1;
    if (has_pad && pad < 0)
        pad += v;
    if (has_pad && (pad < 0 || pad >= v))
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "embedding: padding_idx %lld is out of range for %lld rows",
                          (long long)ATTR_INT(k, "padding_idx"), (long long)v);
    size_t row = (size_t)dim * d2_dtype_size(w->dtype);
    const char *wd = d2_tensor_data(w);
    char *od = d2_tensor_data(out);
    const void *id = d2_tensor_data(ids);
    for (int64_t i = 0; i < n; i++) {
        int64_t t = ids->dtype == D2_I32 ? ((const int32_t *)id)[i] : ((const int64_t *)id)[i];
        if (has_pad && t == pad) {
            memset(od + (size_t)i * row, 0, row);
            continue;
        }
        if (t < 0 || t >= v)
            return d2_err_set(k->err, D2_ERR_RUNTIME,
                              "embedding: id %lld at position %lld is out of range [0, %lld)",
                              (long long)t, (long long)i, (long long)v);
        if (row)
            memcpy(od + (size_t)i * row, wd + (size_t)t * row, row);
    }
    return 0;
}

/* ---- dropout (inference): upscale_in_train is the identity, downscale_in_infer
 * scales by 1-p ---- */
int cpu_dropout(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (need_float(k, x) < 0)
        return -1;
    double p = ATTR_FLOAT(k, "p");
    const char *mode = ATTR_STR(k, "mode");
    if (!(p >= 0 && p <= 1))
        return d2_err_set(k->err, D2_ERR_INVALID, "dropout: p = %g must be in [0, 1]", p);
    bool down = strcmp(mode, "downscale_in_infer") == 0;
    if (!down && strcmp(mode, "upscale_in_train") != 0)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "dropout: mode \"%s\" is not upscale_in_train or downscale_in_infer",
                          mode);
    int64_t n = d2_tensor_numel(x);
    if (n == 0)
        return 0;
    const void *xd = d2_tensor_data(x);
    void *od = d2_tensor_data(out);
    if (!down) {
        memmove(od, xd, (size_t)n * d2_dtype_size(x->dtype));
        return 0;
    }
    if (x->dtype == D2_F32) {
        float s = (float)(1.0 - p);
        for (int64_t i = 0; i < n; i++)
            ((float *)od)[i] = ((const float *)xd)[i] * s;
    } else {
        for (int64_t i = 0; i < n; i++)
            ((double *)od)[i] = ((const double *)xd)[i] * (1.0 - p);
    }
    return 0;
}

/* ---- dropout_train: mask from the counter-based stream of seed, out = x * mask ---- */
int cpu_dropout_train(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *seed = k->in[1], *out = k->out[0], *mask = k->out[1];
    if (need_float(k, x) < 0)
        return -1;
    if (!d2_dtype_is_int(seed->dtype) || d2_tensor_numel(seed) != 1)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "dropout_train: seed must be an int32 or int64 tensor of one element");
    double p = ATTR_FLOAT(k, "p");
    const char *mode = ATTR_STR(k, "mode");
    if (!(p >= 0 && p <= 1))
        return d2_err_set(k->err, D2_ERR_INVALID, "dropout_train: p = %g must be in [0, 1]", p);
    bool down = strcmp(mode, "downscale_in_infer") == 0;
    if (!down && strcmp(mode, "upscale_in_train") != 0)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "dropout_train: mode \"%s\" is not upscale_in_train or downscale_in_infer",
                          mode);
    double keep = down ? 1.0 : (p < 1 ? 1.0 / (1.0 - p) : 0.0);
    uint64_t s = (uint64_t)d2_tensor_get_i64(seed, 0);
    s ^= k->rng_offset * 0x9e3779b97f4a7c15ull; /* a training run's own stream (0: none) */
    int64_t n = d2_tensor_numel(x);
    const void *xd = n ? d2_tensor_data(x) : NULL;
    void *od = n ? d2_tensor_data(out) : NULL, *md = n ? d2_tensor_data(mask) : NULL;
    for (int64_t i = 0; i < n; i++) {
        double m = d2_rng_at(s, (uint64_t)i) >= p ? keep : 0.0;
        if (x->dtype == D2_F32) {
            ((float *)md)[i] = (float)m;
            ((float *)od)[i] = ((const float *)xd)[i] * (float)m;
        } else {
            ((double *)md)[i] = m;
            ((double *)od)[i] = ((const double *)xd)[i] * m;
        }
    }
    return 0;
}

/* linalg.c - CPU kernels of the linear-algebra ops on LAPACK (LAPACKE), batched over leading dims. */
#include "../ops.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* Every kernel works in float64 row-major copies of one matrix at a time:
 * float32 inputs are widened, results narrowed on the way out. */

/* Element count of n doubles as bytes, checked; NULL with err set on overflow
 * or out of memory. */
static double *work(d2_kctx *k, int64_t n)
{
    int64_t bytes;
    if (n < 1)
        n = 1;
    if (!d2_mul_i64(n, (int64_t)sizeof(double), &bytes) || (uint64_t)bytes > SIZE_MAX) {
        d2_err_set(k->err, D2_ERR_SHAPE, "%s: workspace size overflows", k->def->name);
        return NULL;
    }
    double *p = d2_malloc((size_t)bytes);
    if (!p)
        d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    return p;
}

/* n elements of t from element off into dst (as float64). */
static void load(const d2_tensor *t, int64_t off, int64_t n, double *dst)
{
    if (t->dtype == D2_F64) {
        memcpy(dst, (const double *)d2_tensor_data(t) + off, (size_t)n * sizeof(double));
    } else {
        const float *s = (const float *)d2_tensor_data(t) + off;
        for (int64_t i = 0; i < n; i++)
            dst[i] = s[i];
    }
}

static void store(d2_tensor *t, int64_t off, int64_t n, const double *src)
{
    if (t->dtype == D2_F64) {
        memcpy((double *)d2_tensor_data(t) + off, src, (size_t)n * sizeof(double));
    } else {
        float *d = (float *)d2_tensor_data(t) + off;
        for (int64_t i = 0; i < n; i++)
            d[i] = (float)src[i];
    }
}

/* Rows, columns and batch count of x's matrices. */
static void dims_of(const d2_tensor *x, int64_t *m, int64_t *n, int64_t *batch)
{
    *m = x->shape[x->ndim - 2];
    *n = x->shape[x->ndim - 1];
    int64_t mn = *m * *n;
    *batch = mn ? d2_tensor_numel(x) / mn : 0;
    if (!mn) {
        int64_t b = 1;
        for (int i = 0; i < x->ndim - 2; i++)
            b *= x->shape[i];
        *batch = b;
    }
}

/* LAPACK's dimensions are lapack_int: larger matrices are refused. */
static int fits(d2_kctx *k, int64_t m, int64_t n)
{
    int64_t mn;
    if (m > INT32_MAX || n > INT32_MAX || !d2_mul_i64(m, n, &mn))
        return d2_err_set(k->err, D2_ERR_SHAPE, "%s: matrix of %lld x %lld is too large",
                          k->def->name, (long long)m, (long long)n);
    return 0;
}

static int lapack_fail(d2_kctx *k, lapack_int info)
{
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: LAPACK failed (info %d)", k->def->name,
                      (int)info);
}

static const char *NOT_INVERTIBLE = "(InvalidArgument) Input is not invertible.";

/* ---- inv, det, slogdet, solve: LU with partial pivoting ---- */

int cpu_inv(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    int64_t n, n2, batch;
    dims_of(x, &n, &n2, &batch);
    if (fits(k, n, n) < 0)
        return -1;
    double *a = work(k, n * n);
    lapack_int *piv = (lapack_int *)work(k, n);
    int rc = a && piv ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0 && n > 0; b++) {
        load(x, b * n * n, n * n, a);
        lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, a,
                                         (lapack_int)n, piv);
        if (info > 0)
            rc = d2_err_set(k->err, D2_ERR_INVALID, "%s", NOT_INVERTIBLE);
        else if (info < 0 || (info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, (lapack_int)n, a,
                                                    (lapack_int)n, piv)) != 0)
            rc = info > 0 ? d2_err_set(k->err, D2_ERR_INVALID, "%s", NOT_INVERTIBLE)
                          : lapack_fail(k, info);
        else
            store(out, b * n * n, n * n, a);
    }
    d2_free(a);
    d2_free(piv);
    return rc;
}

/* sign and log|det| of matrix b of x (LU; a singular matrix gives sign 0 and
 * -inf); *det the determinant itself. */
static int lu_det(d2_kctx *k, const d2_tensor *x, int64_t b, int64_t n, double *a,
                  lapack_int *piv, double *sign, double *logabs, double *det)
{
    load(x, b * n * n, n * n, a);
    double s = 1, l = 0, d = 1;
    *sign = *logabs = *det = 0;
    if (n > 0) {
        lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, a,
                                         (lapack_int)n, piv);
        if (info < 0)
            return lapack_fail(k, info);
        for (int64_t i = 0; i < n; i++) {
            double v = a[i * n + i];
            if (piv[i] != (lapack_int)(i + 1)) {
                s = -s;
                d = -d;
            }
            d *= v;
            if (v < 0)
                s = -s;
            else if (v == 0)
                s = 0;
            l += log(fabs(v));
        }
    }
    *sign = s;
    *logabs = l;
    *det = d;
    return 0;
}

static int det_kernel(d2_kctx *k, bool slog)
{
    d2_tensor *x = k->in[0];
    int64_t n, n2, batch;
    dims_of(x, &n, &n2, &batch);
    if (fits(k, n, n) < 0)
        return -1;
    double *a = work(k, n * n);
    lapack_int *piv = (lapack_int *)work(k, n);
    int rc = a && piv ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0; b++) {
        double s = 0, l = 0, d = 0;
        rc = lu_det(k, x, b, n, a, piv, &s, &l, &d);
        if (rc == 0 && slog) {
            store(k->out[0], b, 1, &s);
            store(k->out[1], b, 1, &l);
        } else if (rc == 0) {
            store(k->out[0], b, 1, &d);
        }
    }
    d2_free(a);
    d2_free(piv);
    return rc;
}

int cpu_det(d2_kctx *k) { return det_kernel(k, false); }
int cpu_slogdet(d2_kctx *k) { return det_kernel(k, true); }

int cpu_solve(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    int64_t n, n2, batch, m, nrhs, yb;
    dims_of(x, &n, &n2, &batch);
    dims_of(y, &m, &nrhs, &yb);
    if (fits(k, n, n) < 0 || fits(k, n, nrhs) < 0)
        return -1;
    double *a = work(k, n * n), *c = work(k, n * nrhs);
    lapack_int *piv = (lapack_int *)work(k, n);
    int rc = a && c && piv ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0 && n > 0 && nrhs > 0; b++) {
        load(x, b * n * n, n * n, a);
        load(y, b * n * nrhs, n * nrhs, c);
        lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)nrhs, a,
                                        (lapack_int)n, piv, c, (lapack_int)nrhs);
        if (info > 0)
            rc = d2_err_set(k->err, D2_ERR_INVALID, "%s", NOT_INVERTIBLE);
        else if (info < 0)
            rc = lapack_fail(k, info);
        else
            store(out, b * n * nrhs, n * nrhs, c);
    }
    d2_free(a);
    d2_free(c);
    d2_free(piv);
    return rc;
}

/* Substitution, as Paddle's triangular_solve: a zero pivot gives inf/nan, no error. */
int cpu_triangular_solve(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    bool upper = ATTR_BOOL(k, "upper"), trans = ATTR_BOOL(k, "transpose");
    bool unit = ATTR_BOOL(k, "unitriangular");
    int64_t n, n2, batch, m, nrhs, yb;
    dims_of(x, &n, &n2, &batch);
    dims_of(y, &m, &nrhs, &yb);
    if (fits(k, n, n) < 0 || fits(k, n, nrhs) < 0)
        return -1;
    double *a = work(k, n * n), *c = work(k, n * nrhs);
    int rc = a && c ? 0 : -1;
    /* op(A) = A^T turns an upper A into a lower system and back */
    bool up = upper != trans;
    for (int64_t b = 0; b < batch && rc == 0; b++) {
        load(x, b * n * n, n * n, a);
        load(y, b * n * nrhs, n * nrhs, c);
        for (int64_t s = 0; s < n; s++) {
            int64_t i = up ? n - 1 - s : s;
            for (int64_t j = 0; j < nrhs; j++) {
                double v = c[i * nrhs + j];
                int64_t lo = up ? i + 1 : 0, hi = up ? n : i;
                for (int64_t p = lo; p < hi; p++)
                    v -= (trans ? a[p * n + i] : a[i * n + p]) * c[p * nrhs + j];
                c[i * nrhs + j] = unit ? v : v / a[i * n + i];
            }
        }
        store(out, b * n * nrhs, n * nrhs, c);
    }
    d2_free(a);
    d2_free(c);
    return rc;
}

int cpu_cholesky(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    bool upper = ATTR_BOOL(k, "upper");
    int64_t n, n2, batch;
    dims_of(x, &n, &n2, &batch);
    if (fits(k, n, n) < 0)
        return -1;
    double *a = work(k, n * n);
    int rc = a ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0 && n > 0; b++) {
        load(x, b * n * n, n * n, a);
        /* the lower triangle is read, as Paddle does, for both results */
        lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, a, (lapack_int)n);
        if (info > 0) {
            rc = d2_err_set(k->err, D2_ERR_INVALID,
                            "(InvalidArgument) Cholesky decomposition was not successful. The "
                            "%lld-th input matrice might not be not be positive definite.",
                            (long long)b);
            break;
        }
        if (info < 0) {
            rc = lapack_fail(k, info);
            break;
        }
        /* L is the lower triangle; upper gives L^T */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++) {
                a[i * n + j] = upper ? a[j * n + i] : 0;
                if (upper)
                    a[j * n + i] = 0;
            }
        store(out, b * n * n, n * n, a);
    }
    d2_free(a);
    return rc;
}

/* ---- qr (geqrf + orgqr), svd (gesdd), eigh (syevd) ---- */

int cpu_qr(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *q = k->out[0], *r = k->out[1];
    int64_t m, n, batch;
    dims_of(x, &m, &n, &batch);
    if (fits(k, m, n) < 0 || fits(k, m, m) < 0)
        return -1;
    int64_t kq = q->shape[q->ndim - 1], kr = r->shape[r->ndim - 2], kmin = m < n ? m : n;
    int64_t w = n > kq ? n : kq;
    double *a = work(k, m * w), *tau = work(k, kmin), *rr = work(k, kr * n);
    int rc = a && tau && rr ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0; b++) {
        /* a is m x w: x's columns, then zero columns where complete q needs them */
        memset(a, 0, (size_t)(m * w) * sizeof(double));
        double *row = work(k, n);
        if (!row) {
            rc = -1;
            break;
        }
        for (int64_t i = 0; i < m; i++) {
            load(x, b * m * n + i * n, n, row);
            memcpy(a + i * w, row, (size_t)n * sizeof(double));
        }
        d2_free(row);
        lapack_int info = kmin > 0 ? LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m,
                                                   (lapack_int)n, a, (lapack_int)w, tau)
                                   : 0;
        if (info != 0) {
            rc = lapack_fail(k, info);
            break;
        }
        for (int64_t i = 0; i < kr; i++)
            for (int64_t j = 0; j < n; j++)
                rr[i * n + j] = j >= i ? a[i * w + j] : 0;
        store(r, b * kr * n, kr * n, rr);
        if (m > 0 && kq > 0) {
            info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)kq,
                                  (lapack_int)kmin, a, (lapack_int)w, tau);
            if (info != 0) {
                rc = lapack_fail(k, info);
                break;
            }
            for (int64_t i = 0; i < m; i++)
                store(q, b * m * kq + i * kq, kq, a + i * w);
        }
    }
    d2_free(a);
    d2_free(tau);
    d2_free(rr);
    return rc;
}

int cpu_svd(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *u = k->out[0], *s = k->out[1], *vh = k->out[2];
    bool full = ATTR_BOOL(k, "full_matrices");
    int64_t m, n, batch;
    dims_of(x, &m, &n, &batch);
    if (fits(k, m, n) < 0 || fits(k, m, m) < 0 || fits(k, n, n) < 0)
        return -1;
    int64_t kmin = m < n ? m : n, uc = full ? m : kmin, vr = full ? n : kmin;
    double *a = work(k, m * n), *sv = work(k, kmin), *uu = work(k, m * uc),
           *vv = work(k, vr * n);
    int rc = a && sv && uu && vv ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0; b++) {
        if (kmin == 0) {
            /* an empty matrix: identity singular vectors, as NumPy */
            memset(uu, 0, (size_t)(m * uc) * sizeof(double));
            memset(vv, 0, (size_t)(vr * n) * sizeof(double));
            for (int64_t i = 0; i < m && i < uc; i++)
                uu[i * uc + i] = 1;
            for (int64_t i = 0; i < n && i < vr; i++)
                vv[i * n + i] = 1;
        } else {
            load(x, b * m * n, m * n, a);
            lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, full ? 'A' : 'S', (lapack_int)m,
                                             (lapack_int)n, a, (lapack_int)n, sv, uu,
                                             (lapack_int)uc, vv, (lapack_int)n);
            if (info > 0) {
                rc = d2_err_set(k->err, D2_ERR_INVALID,
                                "%s: the singular value decomposition did not converge",
                                k->def->name);
                break;
            }
            if (info < 0) {
                rc = lapack_fail(k, info);
                break;
            }
        }
        store(u, b * m * uc, m * uc, uu);
        store(s, b * kmin, kmin, sv);
        store(vh, b * vr * n, vr * n, vv);
    }
    d2_free(a);
    d2_free(sv);
    d2_free(uu);
    d2_free(vv);
    return rc;
}

int cpu_eigh(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *w = k->out[0], *v = k->out[1];
    char uplo = ATTR_STR(k, "UPLO")[0] == 'U' ? 'U' : 'L';
    int64_t n, n2, batch;
    dims_of(x, &n, &n2, &batch);
    if (fits(k, n, n) < 0)
        return -1;
    double *a = work(k, n * n), *ev = work(k, n);
    int rc = a && ev ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0 && n > 0; b++) {
        load(x, b * n * n, n * n, a);
        lapack_int info =
            LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', uplo, (lapack_int)n, a, (lapack_int)n, ev);
        if (info > 0)
            rc = d2_err_set(k->err, D2_ERR_INVALID,
                            "%s: the eigenvalue decomposition did not converge", k->def->name);
        else if (info < 0)
            rc = lapack_fail(k, info);
        else {
            store(w, b * n, n, ev);
            store(v, b * n * n, n * n, a);
        }
    }
    d2_free(a);
    d2_free(ev);
    return rc;
}

int cpu_lu(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *lu = k->out[0];
    int32_t *piv = (int32_t *)d2_tensor_data(k->out[1]), *infos = (int32_t *)d2_tensor_data(k->out[2]);
    int64_t m, n, batch;
    dims_of(x, &m, &n, &batch);
    if (fits(k, m, n) < 0)
        return -1;
    int64_t kmin = m < n ? m : n;
    double *a = work(k, m * n);
    lapack_int *p = (lapack_int *)work(k, kmin);
    int rc = a && p ? 0 : -1;
    for (int64_t b = 0; b < batch && rc == 0; b++) {
        load(x, b * m * n, m * n, a);
        lapack_int info = kmin > 0 ? LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n,
                                                    a, (lapack_int)n, p)
                                   : 0;
        if (info < 0) {
            rc = lapack_fail(k, info);
            break;
        }
        /* info > 0: an exactly singular u, reported in infos as Paddle does */
        infos[b] = (int32_t)info;
        for (int64_t i = 0; i < kmin; i++)
            piv[b * kmin + i] = (int32_t)p[i];
        store(lu, b * m * n, m * n, a);
    }
    d2_free(a);
    d2_free(p);
    return rc;
}

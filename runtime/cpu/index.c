/* index.c - CPU kernels for scans, sorting, top-k, triangles, flips, rolls, gather_nd and the scatters. */
#include "../ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t b8;

/* ---- element access by dtype: floats as double, integers as int64 ---- */

static double rd_f(const d2_tensor *t, int64_t i)
{
    const void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_F32: return ((const float *)p)[i];
    case D2_F64: return ((const double *)p)[i];
    case D2_I32: return ((const int32_t *)p)[i];
    case D2_I64: return (double)((const int64_t *)p)[i];
    default: return ((const b8 *)p)[i];
    }
}

static int64_t rd_i(const d2_tensor *t, int64_t i)
{
    const void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_I32: return ((const int32_t *)p)[i];
    case D2_I64: return ((const int64_t *)p)[i];
    case D2_F32: return (int64_t)((const float *)p)[i];
    case D2_F64: return (int64_t)((const double *)p)[i];
    default: return ((const b8 *)p)[i];
    }
}

static void wr_f(d2_tensor *t, int64_t i, double v)
{
    void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_F32: ((float *)p)[i] = (float)v; break;
    case D2_F64: ((double *)p)[i] = v; break;
    default: break;
    }
}

static void wr_i(d2_tensor *t, int64_t i, int64_t v)
{
    void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case D2_I64: ((int64_t *)p)[i] = v; break;
    default: ((b8 *)p)[i] = v != 0; break;
    }
}

static bool is_fl(const d2_tensor *t) { return d2_dtype_is_float(t->dtype); }

/* outer x len x inner view of a contiguous tensor around axis. */
static void split_axis(const d2_tensor *t, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    *len = t->ndim ? t->shape[axis] : 1;
    for (int d = 0; d < axis; d++)
        *outer *= t->shape[d];
    for (int d = axis + 1; d < t->ndim; d++)
        *inner *= t->shape[d];
}

static int norm_axis(const d2_tensor *t, int64_t axis)
{
    if (t->ndim == 0)
        return 0;
    return (int)(axis < 0 ? axis + t->ndim : axis);
}

static int oom(d2_kctx *k) { return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name); }

/* ---- cumulative ops ---- */

enum { CUM_SUM, CUM_PROD, CUM_LSE, CUM_MAX, CUM_MIN };

static double lse(double a, double b)
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    double m = fmax(a, b);
    return m + log(exp(a - m) + exp(b - m));
}

static int cum(d2_kctx *k, int kind)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    bool flat = ATTR_BOOL(k, "flatten");
    bool excl = kind <= CUM_LSE && ATTR_BOOL(k, "exclusive");
    bool rev = kind <= CUM_LSE && ATTR_BOOL(k, "reverse");
    int64_t outer, len, inner;
    if (flat) {
        outer = inner = 1;
        len = d2_tensor_numel(x);
    } else {
        split_axis(x, norm_axis(x, ATTR_INT(k, "axis")), &outer, &len, &inner);
    }
    bool fl = is_fl(x);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            double fa = kind == CUM_PROD ? 1 : kind == CUM_LSE ? -INFINITY : 0;
            uint64_t ia = kind == CUM_PROD ? 1 : 0;
            int64_t best = 0;
            for (int64_t j = 0; j < len; j++) {
                int64_t jj = rev ? len - 1 - j : j;
                int64_t e = (o * len + jj) * inner + in;
                if (kind == CUM_MAX || kind == CUM_MIN) {
                    bool take;
                    if (fl) {
                        double v = rd_f(x, e), c = j ? fa : v;
                        take = j == 0 || isnan(v) ||
                               (!isnan(c) && (kind == CUM_MAX ? v >= c : v <= c));
                        if (take)
                            fa = v;
                        wr_f(out, e, fa);
                    } else {
                        int64_t v = rd_i(x, e), c = (int64_t)ia;
                        take = j == 0 || (kind == CUM_MAX ? v >= c : v <= c);
                        if (take)
                            ia = (uint64_t)v;
                        wr_i(out, e, (int64_t)ia);
                    }
                    if (take)
                        best = jj;
                    wr_i(k->out[1], e, best);
                    continue;
                }
                if (excl) {
                    if (fl)
                        wr_f(out, e, fa);
                    else
                        wr_i(out, e, (int64_t)ia);
                }
                if (fl) {
                    double v = rd_f(x, e);
                    fa = kind == CUM_SUM ? fa + v : kind == CUM_PROD ? fa * v : lse(fa, v);
                    if (!excl)
                        wr_f(out, e, fa);
                } else {
                    uint64_t v = (uint64_t)rd_i(x, e);
                    ia = kind == CUM_SUM ? ia + v : ia * v;
                    if (x->dtype == D2_I32)
                        ia = (uint64_t)(int64_t)(int32_t)(uint32_t)ia;
                    if (!excl)
                        wr_i(out, e, (int64_t)ia);
                }
            }
        }
    return 0;
}

int cpu_cumsum(d2_kctx *k) { return cum(k, CUM_SUM); }
int cpu_cumprod(d2_kctx *k) { return cum(k, CUM_PROD); }
int cpu_logcumsumexp(d2_kctx *k) { return cum(k, CUM_LSE); }
int cpu_cummax(d2_kctx *k) { return cum(k, CUM_MAX); }
int cpu_cummin(d2_kctx *k) { return cum(k, CUM_MIN); }

/* ---- sorting: a stable merge sort of (value, index) keys; NaN sorts as
 * the largest value ---- */

typedef struct {
    double f;
    int64_t i, pos;
} sortkey;

static int key_cmp(const sortkey *a, const sortkey *b, bool fl, bool desc)
{
    int c;
    if (fl) {
        bool na = isnan(a->f), nb = isnan(b->f);
        c = na || nb ? (int)na - (int)nb : (a->f > b->f) - (a->f < b->f);
    } else {
        c = (a->i > b->i) - (a->i < b->i);
    }
    return desc ? -c : c;
}

static void merge_sort(sortkey *v, sortkey *tmp, int64_t n, bool fl, bool desc)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t a = lo, b = mid, t = lo;
            while (a < mid && b < hi)
                tmp[t++] = key_cmp(&v[b], &v[a], fl, desc) < 0 ? v[b++] : v[a++];
            while (a < mid)
                tmp[t++] = v[a++];
            while (b < hi)
                tmp[t++] = v[b++];
        }
        memcpy(v, tmp, sizeof *v * (size_t)n);
    }
}

/* Sorts each line along axis and writes its first `keep` entries. */
static int sort_lines(d2_kctx *k, int axis, bool desc, int64_t keep)
{
    d2_tensor *x = k->in[0], *out = k->out[0], *idx = k->out[1];
    int64_t outer, len, inner;
    split_axis(x, axis, &outer, &len, &inner);
    if (len == 0 || outer == 0 || inner == 0)
        return 0;
    sortkey *v = d2_malloc(sizeof *v * (size_t)len * 2);
    if (!v)
        return oom(k);
    bool fl = is_fl(x);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            for (int64_t j = 0; j < len; j++) {
                int64_t e = (o * len + j) * inner + in;
                v[j].pos = j;
                if (fl)
                    v[j].f = rd_f(x, e);
                else
                    v[j].i = rd_i(x, e);
            }
            merge_sort(v, v + len, len, fl, desc);
            for (int64_t j = 0; j < keep; j++) {
                int64_t e = (o * keep + j) * inner + in;
                int64_t src = (o * len + v[j].pos) * inner + in;
                if (fl)
                    wr_f(out, e, rd_f(x, src));
                else
                    wr_i(out, e, rd_i(x, src));
                ((int64_t *)d2_tensor_data(idx))[e] = v[j].pos;
            }
        }
    d2_free(v);
    return 0;
}

int cpu_argsort(d2_kctx *k)
{
    d2_tensor *x = k->in[0];
    int axis = norm_axis(x, ATTR_INT(k, "axis"));
    return sort_lines(k, axis, ATTR_BOOL(k, "descending"), x->ndim ? x->shape[axis] : 1);
}

int cpu_topk(d2_kctx *k)
{
    d2_tensor *x = k->in[0];
    int axis = norm_axis(x, ATTR_INT(k, "axis"));
    return sort_lines(k, axis, ATTR_BOOL(k, "largest"), ATTR_INT(k, "k"));
}

/* ---- data movement: elements copied as bytes ---- */

static void copy_elem(d2_tensor *dst, int64_t di, const d2_tensor *src, int64_t si)
{
    size_t es = d2_dtype_size(dst->dtype);
    memcpy((char *)d2_tensor_data(dst) + (size_t)di * es,
           (const char *)d2_tensor_data(src) + (size_t)si * es, es);
}

/* Row-major multi-index of flat position i in shape. */
static void unravel(int64_t i, const int64_t *shape, int nd, int64_t *m)
{
    for (int d = nd - 1; d >= 0; d--) {
        m[d] = shape[d] ? i % shape[d] : 0;
        i = shape[d] ? i / shape[d] : 0;
    }
}

static int64_t ravel(const int64_t *m, const int64_t *shape, int nd)
{
    int64_t i = 0;
    for (int d = 0; d < nd; d++)
        i = i * shape[d] + m[d];
    return i;
}

int cpu_tril_triu(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    int64_t diag = ATTR_INT(k, "diagonal");
    bool lower = ATTR_BOOL(k, "lower");
    int64_t r = x->shape[x->ndim - 2], c = x->shape[x->ndim - 1], n = d2_tensor_numel(x);
    size_t es = d2_dtype_size(x->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t col = i % c, row = (i / c) % r, off = col - row;
        bool keep = lower ? off <= diag : off >= diag;
        if (keep)
            copy_elem(out, i, x, i);
        else
            memset((char *)d2_tensor_data(out) + (size_t)i * es, 0, es);
    }
    return 0;
}

int cpu_flip(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    int n_ax;
    const int64_t *ax = ATTR_INTS(k, "axis", &n_ax);
    bool fl[D2_MAX_DIMS] = {false};
    for (int i = 0; i < n_ax; i++)
        if (x->ndim)
            fl[norm_axis(x, ax[i])] = true;
    int64_t n = d2_tensor_numel(x), m[D2_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        unravel(i, x->shape, x->ndim, m);
        for (int d = 0; d < x->ndim; d++)
            if (fl[d])
                m[d] = x->shape[d] - 1 - m[d];
        copy_elem(out, i, x, ravel(m, x->shape, x->ndim));
    }
    return 0;
}

static int64_t wrap(int64_t v, int64_t n)
{
    if (n <= 0)
        return 0;
    v %= n;
    return v < 0 ? v + n : v;
}

int cpu_roll(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    int ns, na;
    const int64_t *sh = ATTR_INTS(k, "shifts", &ns);
    const int64_t *ax = ATTR_INTS(k, "axis", &na);
    int64_t n = d2_tensor_numel(x);
    if (na == 0) {
        for (int64_t i = 0; i < n; i++)
            copy_elem(out, i, x, wrap(i - wrap(sh[0], n), n));
        return 0;
    }
    int64_t shift[D2_MAX_DIMS] = {0}, m[D2_MAX_DIMS];
    for (int i = 0; i < na; i++) {
        int d = norm_axis(x, ax[i]);
        if (x->ndim)
            shift[d] = wrap(shift[d] + wrap(sh[i], x->shape[d]), x->shape[d]);
    }
    for (int64_t i = 0; i < n; i++) {
        unravel(i, x->shape, x->ndim, m);
        for (int d = 0; d < x->ndim; d++)
            m[d] = wrap(m[d] - shift[d], x->shape[d]);
        copy_elem(out, i, x, ravel(m, x->shape, x->ndim));
    }
    return 0;
}

/* Index value v for a dim of size n: negative counts from the end; -1 + err out of range. */
static int64_t check_index(d2_kctx *k, int64_t v, int64_t n)
{
    if (v < -n || v >= n) {
        d2_err_set(k->err, D2_ERR_INVALID,
                   "%s: index %lld is out of range for a dim of size %lld", k->def->name,
                   (long long)v, (long long)n);
        return -1;
    }
    return v < 0 ? v + n : v;
}

/* Flat offset into x of index row r (depth kk), scaled by the inner block; -1 on error. */
static int64_t nd_base(d2_kctx *k, const d2_tensor *x, const d2_tensor *index, int64_t r, int kk,
                       int64_t inner)
{
    int64_t base = 0;
    for (int j = 0; j < kk; j++) {
        int64_t v = check_index(k, rd_i(index, r * kk + j), x->shape[j]);
        if (v < 0)
            return -1;
        base = base * x->shape[j] + v;
    }
    return base * inner;
}

int cpu_gather_nd(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *index = k->in[1], *out = k->out[0];
    int kk = (int)index->shape[index->ndim - 1];
    int64_t inner = 1, rows = 1;
    for (int d = kk; d < x->ndim; d++)
        inner *= x->shape[d];
    for (int d = 0; d < index->ndim - 1; d++)
        rows *= index->shape[d];
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = nd_base(k, x, index, r, kk, inner);
        if (base < 0)
            return -1;
        for (int64_t j = 0; j < inner; j++)
            copy_elem(out, r * inner + j, x, base + j);
    }
    return 0;
}

/* dst[di] (op)= src[si]: 0 assign, 1 add, 2 multiply. */
static void acc_elem(d2_tensor *dst, int64_t di, const d2_tensor *src, int64_t si, int op)
{
    if (op == 0) {
        copy_elem(dst, di, src, si);
    } else if (is_fl(dst)) {
        double a = rd_f(dst, di), b = rd_f(src, si);
        wr_f(dst, di, op == 1 ? a + b : a * b);
    } else {
        uint64_t a = (uint64_t)rd_i(dst, di), b = (uint64_t)rd_i(src, si);
        int64_t r = (int64_t)(op == 1 ? a + b : a * b);
        wr_i(dst, di, dst->dtype == D2_BOOL ? (op == 1 ? (a | b) : (a & b)) != 0 : r);
    }
}

static void copy_all(d2_tensor *dst, const d2_tensor *src)
{
    size_t n = (size_t)d2_tensor_numel(src) * d2_dtype_size(src->dtype);
    if (n)
        memcpy(d2_tensor_data(dst), d2_tensor_data(src), n);
}

int cpu_scatter(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *index = k->in[1], *upd = k->in[2], *out = k->out[0];
    bool over = ATTR_BOOL(k, "overwrite");
    int64_t rows = d2_tensor_numel(index), inner = 1;
    for (int d = 1; d < x->ndim; d++)
        inner *= x->shape[d];
    for (int64_t r = 0; r < rows; r++)
        if (check_index(k, rd_i(index, r), x->shape[0]) < 0)
            return -1;
    copy_all(out, x);
    size_t es = d2_dtype_size(x->dtype);
    if (!over)
        for (int64_t r = 0; r < rows; r++) {
            int64_t row = check_index(k, rd_i(index, r), x->shape[0]);
            memset((char *)d2_tensor_data(out) + (size_t)(row * inner) * es, 0,
                   (size_t)inner * es);
        }
    for (int64_t r = 0; r < rows; r++) {
        int64_t row = check_index(k, rd_i(index, r), x->shape[0]);
        for (int64_t j = 0; j < inner; j++)
            acc_elem(out, row * inner + j, upd, r * inner + j, over ? 0 : 1);
    }
    return 0;
}

int cpu_scatter_nd_add(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *index = k->in[1], *upd = k->in[2], *out = k->out[0];
    int kk = (int)index->shape[index->ndim - 1];
    int64_t inner = 1, rows = 1;
    for (int d = kk; d < x->ndim; d++)
        inner *= x->shape[d];
    for (int d = 0; d < index->ndim - 1; d++)
        rows *= index->shape[d];
    for (int64_t r = 0; r < rows; r++)
        if (nd_base(k, x, index, r, kk, inner) < 0)
            return -1;
    copy_all(out, x);
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = nd_base(k, x, index, r, kk, inner);
        for (int64_t j = 0; j < inner; j++)
            acc_elem(out, base + j, upd, r * inner + j, 1);
    }
    return 0;
}

int cpu_take_along_axis(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *index = k->in[1], *out = k->out[0];
    int axis = norm_axis(x, ATTR_INT(k, "axis")), nd = out->ndim;
    int64_t n = d2_tensor_numel(out), m[D2_MAX_DIMS], mi[D2_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        unravel(i, out->shape, nd, m);
        for (int d = 0; d < nd; d++)
            mi[d] = index->shape[d] == 1 ? 0 : m[d];
        int64_t v = check_index(k, rd_i(index, ravel(mi, index->shape, nd)), x->shape[axis]);
        if (v < 0)
            return -1;
        for (int d = 0; d < nd; d++)
            mi[d] = d == axis ? v : x->shape[d] == 1 ? 0 : m[d];
        copy_elem(out, i, x, ravel(mi, x->shape, nd));
    }
    return 0;
}

/* dst[di] = min (amax: max) of itself and src[si] */
static void minmax_elem(d2_tensor *dst, int64_t di, const d2_tensor *src, int64_t si, bool max)
{
    if (is_fl(dst)) {
        double a = rd_f(dst, di), b = rd_f(src, si);
        if (max ? b > a : b < a)
            wr_f(dst, di, b);
    } else {
        int64_t a = rd_i(dst, di), b = rd_i(src, si);
        if (max ? b > a : b < a)
            wr_i(dst, di, b);
    }
}

/* Paddle's reductions: assign, add, mul, mean (the sum over the values and,
 * with include_self, arr's own value, divided by their count; integers
 * truncate), amin, amax; without include_self arr's value at a written
 * position is left out (the first value written replaces it). */
int cpu_put_along_axis(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *index = k->in[1], *val = k->in[2], *out = k->out[0];
    int axis = norm_axis(x, ATTR_INT(k, "axis")), nd = x->ndim;
    const char *r = ATTR_STR(k, "reduce");
    bool self = ATTR_BOOL(k, "include_self");
    enum { R_ASSIGN, R_ADD, R_MUL, R_MEAN, R_MIN, R_MAX } op =
        strcmp(r, "assign") == 0 ? R_ASSIGN
        : strcmp(r, "add") == 0  ? R_ADD
        : strcmp(r, "mean") == 0 ? R_MEAN
        : strcmp(r, "amin") == 0 ? R_MIN
        : strcmp(r, "amax") == 0 ? R_MAX
                                 : R_MUL;
    int64_t n = d2_tensor_numel(index), m[D2_MAX_DIMS], mv[D2_MAX_DIMS];
    for (int64_t i = 0; i < n; i++)
        if (check_index(k, rd_i(index, i), x->shape[axis]) < 0)
            return -1;
    copy_all(out, x);
    int64_t nx = d2_tensor_numel(x), *cnt = NULL;
    if (op == R_MEAN || (!self && op != R_ASSIGN)) {
        cnt = d2_calloc((size_t)nx + 1, sizeof *cnt);
        if (!cnt)
            return oom(k);
    }
    int off = nd - val->ndim;
    for (int64_t i = 0; i < n; i++) {
        unravel(i, index->shape, nd, m);
        for (int d = 0; d < val->ndim; d++)
            mv[d] = val->shape[d] == 1 ? 0 : m[d + off];
        int64_t vi = ravel(mv, val->shape, val->ndim);
        m[axis] = check_index(k, rd_i(index, i), x->shape[axis]);
        int64_t oi = ravel(m, x->shape, nd);
        if (cnt && !self && cnt[oi] == 0)
            copy_elem(out, oi, val, vi);
        else if (op == R_MIN || op == R_MAX)
            minmax_elem(out, oi, val, vi, op == R_MAX);
        else
            acc_elem(out, oi, val, vi, op == R_ASSIGN ? 0 : op == R_MUL ? 2 : 1);
        if (cnt)
            cnt[oi]++;
    }
    if (op == R_MEAN)
        for (int64_t i = 0; i < nx; i++) {
            int64_t c = cnt[i] + (self ? 1 : 0);
            if (cnt[i] == 0 || c == 1)
                continue;
            if (is_fl(out))
                wr_f(out, i, rd_f(out, i) / (double)c);
            else
                wr_i(out, i, rd_i(out, i) / c);
        }
    d2_free(cnt);
    return 0;
}

/* math.c - CPU kernels for elementwise, comparison, logical, activation and reduction ops. */
#include "../ops.h"
#include "gemm.h"
#include "vecmath.h"

#include <string.h>
#include <tgmath.h>

/* Kernels index their per-dtype tables by d2_dtype; these five come first. */
#define NDT 5
typedef uint8_t b8; /* bool tensors hold one byte, 0 or 1 */

static int dtype_error(d2_kctx *k, d2_dtype dt)
{
    return d2_err_set(k->err, D2_ERR_DTYPE, "%s: no CPU kernel for dtype %s", k->def->name,
                      (unsigned)dt < D2_NUM_DTYPES ? d2_dtype_name(dt) : "?");
}

/* Runs BODY (which sees int64_t i) for i in [0, n): in blocks of VB with a
 * fixed trip count, which GCC's -O2 ("very cheap") vectoriser accepts, then a
 * scalar tail. */
#define VB 16
#define VLOOP(n, BODY)                                                                             \
    do {                                                                                           \
        int64_t i_ = 0;                                                                            \
        for (; i_ + VB <= (n); i_ += VB)                                                           \
            for (int l_ = 0; l_ < VB; l_++) {                                                      \
                int64_t i = i_ + l_;                                                               \
                BODY;                                                                              \
            }                                                                                      \
        for (int64_t i = i_; i < (n); i++) {                                                       \
            BODY;                                                                                  \
        }                                                                                          \
    } while (0)

/* ---- integer arithmetic without undefined behaviour: wrap like two's complement */

#define INT_HELPERS(S, T, U)                                                                       \
    static inline T S##_add(T a, T b) { return (T)((U)a + (U)b); }                                 \
    static inline T S##_sub(T a, T b) { return (T)((U)a - (U)b); }                                 \
    static inline T S##_mul(T a, T b) { return (T)((U)a * (U)b); }                                 \
    static inline T S##_neg(T a) { return (T)((U)0 - (U)a); }                                      \
    /* truncating quotient and remainder; b != 0 (the caller substitutes 1) */                     \
    static inline T S##_tdiv(T a, T b) { return b == -1 ? S##_neg(a) : a / b; }                    \
    static inline T S##_tmod(T a, T b) { return b == -1 ? 0 : a % b; }                             \
    static inline T S##_floordiv(T a, T b)                                                         \
    {                                                                                              \
        T q = S##_tdiv(a, b), r = S##_tmod(a, b);                                                  \
        return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;                                       \
    }                                                                                              \
    static inline T S##_rem(T a, T b)                                                              \
    {                                                                                              \
        T r = S##_tmod(a, b);                                                                      \
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                       \
    }                                                                                              \
    /* a**b by squaring, wrapping; a negative b truncates the fraction toward                      \
     * zero (0**-n is rejected by the caller) */                                                   \
    static inline T S##_pow(T a, T b)                                                              \
    {                                                                                              \
        if (b < 0)                                                                                 \
            return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;                                  \
        U r = 1, base = (U)a;                                                                      \
        while (b) {                                                                                \
            if (b & 1)                                                                             \
                r *= base;                                                                         \
            base *= base;                                                                          \
            b >>= 1;                                                                               \
        }                                                                                          \
        return (T)r;                                                                               \
    }
INT_HELPERS(i32, int32_t, uint32_t)
INT_HELPERS(i64, int64_t, uint64_t)

/* numpy's floor division and modulo for floats (Python sign rules). */
#define FLOAT_HELPERS(S, T)                                                                        \
    static inline T S##_floordiv(T a, T b)                                                         \
    {                                                                                              \
        if (b == 0)                                                                                \
            return a / b;                                                                          \
        T mod = fmod(a, b), div = (a - mod) / b;                                                   \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            div -= 1;                                                                              \
        if (div == 0)                                                                              \
            return copysign((T)0, a / b);                                                          \
        T fl = floor(div);                                                                         \
        return div - fl > (T)0.5 ? fl + 1 : fl;                                                    \
    }                                                                                              \
    static inline T S##_rem(T a, T b)                                                              \
    {                                                                                              \
        T mod = fmod(a, b);                                                                        \
        if (mod == 0)                                                                              \
            return copysign((T)0, b);                                                              \
        return ((b < 0) != (mod < 0)) ? mod + b : mod;                                             \
    }
FLOAT_HELPERS(f32, float)
FLOAT_HELPERS(f64, double)

/* ---- broadcast iteration plan shared by binary ops and where */

/* The output's non-1 dims with adjacent dims merged where every input walks
 * them contiguously; st[k][d] is input k's element stride (0 = broadcast).
 * The innermost stride of every input is 0 or 1. */
typedef struct bplan {
    int nd;
    int64_t shape[D2_MAX_DIMS];
    int64_t st[3][D2_MAX_DIMS];
} bplan;

static int bplan_make(d2_kctx *k, bplan *p, const d2_tensor *out, d2_tensor *const *ins, int n)
{
    int nd = out->ndim;
    int64_t st[3][D2_MAX_DIMS];
    for (int j = 0; j < n; j++) {
        const d2_tensor *t = ins[j];
        if (t->ndim > nd)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: input %d has more dims than the output",
                              k->def->name, j);
        int64_t run = 1;
        for (int i = nd - 1; i >= 0; i--) {
            int ti = t->ndim - nd + i;
            int64_t d = ti >= 0 ? t->shape[ti] : 1;
            if (d != out->shape[i] && d != 1)
                return d2_err_set(k->err, D2_ERR_SHAPE,
                                  "%s: input %d does not broadcast to the output shape",
                                  k->def->name, j);
            st[j][i] = d == 1 ? 0 : run;
            run *= d;
        }
    }
    p->nd = 0;
    for (int i = 0; i < nd; i++) {
        int64_t d = out->shape[i];
        if (d == 1)
            continue;
        int r = p->nd - 1;
        bool merge = r >= 0;
        for (int j = 0; j < n && merge; j++)
            merge = p->st[j][r] == st[j][i] * d;
        if (merge) {
            p->shape[r] *= d;
            for (int j = 0; j < n; j++)
                p->st[j][r] = st[j][i];
        } else {
            p->shape[p->nd] = d;
            for (int j = 0; j < n; j++)
                p->st[j][p->nd] = st[j][i];
            p->nd++;
        }
    }
    if (p->nd == 0) {
        p->nd = 1;
        p->shape[0] = 1;
        for (int j = 0; j < n; j++)
            p->st[j][0] = 1;
    }
    return 0;
}

/* Advances the odometer over dims [0, nd-1) of plan p, updating the input offsets. */
static inline void bplan_step(const bplan *p, int64_t *idx, int64_t *off, int n)
{
    for (int d = p->nd - 2; d >= 0; d--) {
        for (int j = 0; j < n; j++)
            off[j] += p->st[j][d];
        if (++idx[d] < p->shape[d])
            return;
        for (int j = 0; j < n; j++)
            off[j] -= p->st[j][d] * p->shape[d];
        idx[d] = 0;
    }
}

/* ---- binary elementwise ops */

/* Inner loop over n outputs; sx/sy are 1 (walk) or 0 (broadcast one value).
 * Returns nonzero when an element was invalid (integer division by zero). */
typedef int (*binfn)(int64_t n, const void *x, int64_t sx, const void *y, int64_t sy, void *o);

/* The loops live in an inline function with restrict parameters (GCC drops
 * the restrict of local pointer variables and would not vectorise). Under
 * in-place execution o is x or y (the executor gives an output the buffer of
 * an input of its layout and dtype): restrict would then be a lie, so that
 * case runs a variant that reads and writes the shared buffer through o alone
 * (T is TO there; the _Generic test picks it at compile time). */
#define DEF_BIN(NAME, T, TO, EXPR)                                                                 \
    static inline int NAME##_ipx(int64_t n, TO *o, int64_t sx, const T *restrict y, int64_t sy)    \
    {                                                                                              \
        int bad = 0;                                                                               \
        if (sx && sy) {                                                                            \
            VLOOP(n, T a = (T)o[i]; T b = y[i]; o[i] = (TO)(EXPR));                                \
        } else if (sx) {                                                                           \
            const T b = y[0];                                                                      \
            VLOOP(n, T a = (T)o[i]; o[i] = (TO)(EXPR));                                            \
        } else {                                                                                   \
            const T a = (T)o[0];                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T b = y[i * sy];                                                                   \
                o[i] = (TO)(EXPR);                                                                 \
            }                                                                                      \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static inline int NAME##_ipy(int64_t n, const T *restrict x, int64_t sx, TO *o, int64_t sy)    \
    {                                                                                              \
        int bad = 0;                                                                               \
        if (sx && sy) {                                                                            \
            VLOOP(n, T a = x[i]; T b = (T)o[i]; o[i] = (TO)(EXPR));                                \
        } else if (sy) {                                                                           \
            const T a = x[0];                                                                      \
            VLOOP(n, T b = (T)o[i]; o[i] = (TO)(EXPR));                                            \
        } else {                                                                                   \
            const T b = (T)o[0];                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T a = x[i * sx];                                                                   \
                o[i] = (TO)(EXPR);                                                                 \
            }                                                                                      \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static inline int NAME##_k(int64_t n, const T *restrict x, int64_t sx, const T *restrict y,    \
                               int64_t sy, TO *restrict o)                                         \
    {                                                                                              \
        int bad = 0;                                                                               \
        if (sx && sy) {                                                                            \
            VLOOP(n, T a = x[i]; T b = y[i]; o[i] = (TO)(EXPR));                                   \
        } else if (sx) {                                                                           \
            const T b = y[0];                                                                      \
            VLOOP(n, T a = x[i]; o[i] = (TO)(EXPR));                                               \
        } else if (sy) {                                                                           \
            const T a = x[0];                                                                      \
            VLOOP(n, T b = y[i]; o[i] = (TO)(EXPR));                                               \
        } else {                                                                                   \
            const T a = x[0], b = y[0];                                                            \
            VLOOP(n, o[i] = (TO)(EXPR));                                                           \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static int NAME(int64_t n, const void *x, int64_t sx, const void *y, int64_t sy, void *o)      \
    {                                                                                              \
        if (_Generic((T)0, TO: 1, default: 0) && o == x)                                           \
            return NAME##_ipx(n, o, sx, y, sy);                                                    \
        if (_Generic((T)0, TO: 1, default: 0) && o == y)                                           \
            return NAME##_ipy(n, x, sx, o, sy);                                                    \
        return NAME##_k(n, x, sx, y, sy, o);                                                       \
    }

/* Runs a binary op: tab is indexed by input dtype (NULL: unsupported); what
 * names the failure reported when an inner loop flags a bad element. */
static int binary(d2_kctx *k, const binfn *tab, const char *what);

/* A comparison of two storage-dtype tensors (float16, int8, ...): both are
 * widened to float64, which holds their values exactly, and compared. */
static int binary_widened(d2_kctx *k, const binfn *tab, const char *what)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *w[2] = {NULL, NULL};
    int rc = -1;
    for (int i = 0; i < 2; i++) {
        d2_tensor *t = k->in[i];
        w[i] = d2_tensor_new(NULL, D2_F64, t->ndim, t->shape, k->err);
        if (!w[i])
            goto done;
        d2_convert(t->dtype, D2_F64, d2_tensor_numel(t), d2_tensor_data(t), d2_tensor_data(w[i]));
    }
    k->in[0] = w[0];
    k->in[1] = w[1];
    rc = binary(k, tab, what);
    k->in[0] = x;
    k->in[1] = y;
done:
    d2_tensor_unref(w[0]);
    d2_tensor_unref(w[1]);
    return rc;
}

static int binary(d2_kctx *k, const binfn *tab, const char *what)
{
    d2_tensor *x = k->in[0], *y = k->in[1], *out = k->out[0];
    if ((unsigned)x->dtype < D2_NUM_DTYPES && (unsigned)x->dtype >= NDT && y->dtype == x->dtype &&
        out->dtype == D2_BOOL && k->def->infer == infer_compare && tab[D2_F64])
        return binary_widened(k, tab, what);
    if ((unsigned)x->dtype >= NDT || !tab[x->dtype] || y->dtype != x->dtype)
        return dtype_error(k, x->dtype);
    binfn fn = tab[x->dtype];
    int64_t numel = d2_tensor_numel(out);
    if (numel == 0)
        return 0;
    size_t ex = d2_dtype_size(x->dtype), eo = d2_dtype_size(out->dtype);
    const char *xd = d2_tensor_data(x), *yd = d2_tensor_data(y);
    char *od = d2_tensor_data(out);
    /* operands of the output's shape or single values (most eager calls):
     * one flat loop, without a broadcast plan */
    size_t sb = (size_t)out->ndim * sizeof out->shape[0];
    bool xfull = x->ndim == out->ndim && memcmp(x->shape, out->shape, sb) == 0;
    bool yfull = y->ndim == out->ndim && memcmp(y->shape, out->shape, sb) == 0;
    if ((xfull || d2_tensor_numel(x) == 1) && (yfull || d2_tensor_numel(y) == 1) &&
        (xfull || yfull || numel == 1)) {
        if (fn(numel, xd, xfull, yd, yfull, od))
            return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: %s", k->def->name, what);
        return 0;
    }
    bplan p;
    if (bplan_make(k, &p, out, k->in, 2) < 0)
        return -1;
    int L = p.nd - 1;
    int64_t n = p.shape[L], outer = d2_tensor_numel(out) / n;
    int64_t idx[D2_MAX_DIMS] = {0}, off[2] = {0, 0};
    for (int64_t c = 0; c < outer; c++) {
        if (fn(n, xd + off[0] * ex, p.st[0][L], yd + off[1] * ex, p.st[1][L], od + c * n * eo))
            return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: %s", k->def->name, what);
        bplan_step(&p, idx, off, 2);
    }
    return 0;
}

/* Float versions of an op, written once with tgmath. */
#define BIN_F(NAME, EXPR)                                                                          \
    DEF_BIN(NAME##_f32, float, float, EXPR)                                                        \
    DEF_BIN(NAME##_f64, double, double, EXPR)
#define BIN_KERNEL(NAME, F32, F64, I32, I64, B, WHAT)                                              \
    int cpu_##NAME(d2_kctx *k)                                                                     \
    {                                                                                              \
        static const binfn tab[NDT] = {F32, F64, I32, I64, B};                                     \
        return binary(k, tab, WHAT);                                                               \
    }

BIN_F(add, a + b)
DEF_BIN(add_i32, int32_t, int32_t, i32_add(a, b))
DEF_BIN(add_i64, int64_t, int64_t, i64_add(a, b))
DEF_BIN(add_b, b8, b8, a | b)
BIN_KERNEL(add, add_f32, add_f64, add_i32, add_i64, add_b, "")

BIN_F(sub, a - b)
DEF_BIN(sub_i32, int32_t, int32_t, i32_sub(a, b))
DEF_BIN(sub_i64, int64_t, int64_t, i64_sub(a, b))
BIN_KERNEL(subtract, sub_f32, sub_f64, sub_i32, sub_i64, NULL, "")

BIN_F(mul, a * b)
DEF_BIN(mul_i32, int32_t, int32_t, i32_mul(a, b))
DEF_BIN(mul_i64, int64_t, int64_t, i64_mul(a, b))
DEF_BIN(mul_b, b8, b8, a & b)
BIN_KERNEL(multiply, mul_f32, mul_f64, mul_i32, mul_i64, mul_b, "")

/* Integer divide follows Paddle 2.x's kernel: C truncating division keeping
 * the integer dtype (not true division), with division by zero an error. The
 * `/` operator of Paddle's Python layer casts ints to float before dividing;
 * that promotion belongs to the translator, not to this op. */
#define DIVZERO "integer division by zero"
BIN_F(div, a / b)
DEF_BIN(div_i32, int32_t, int32_t, (bad |= b == 0, i32_tdiv(a, b ? b : 1)))
DEF_BIN(div_i64, int64_t, int64_t, (bad |= b == 0, i64_tdiv(a, b ? b : 1)))
BIN_KERNEL(divide, div_f32, div_f64, div_i32, div_i64, NULL, DIVZERO)

DEF_BIN(floordiv_f32, float, float, f32_floordiv(a, b))
DEF_BIN(floordiv_f64, double, double, f64_floordiv(a, b))
DEF_BIN(floordiv_i32, int32_t, int32_t, (bad |= b == 0, i32_floordiv(a, b ? b : 1)))
DEF_BIN(floordiv_i64, int64_t, int64_t, (bad |= b == 0, i64_floordiv(a, b ? b : 1)))
BIN_KERNEL(floor_divide, floordiv_f32, floordiv_f64, floordiv_i32, floordiv_i64, NULL, DIVZERO)

DEF_BIN(rem_f32, float, float, f32_rem(a, b))
DEF_BIN(rem_f64, double, double, f64_rem(a, b))
DEF_BIN(rem_i32, int32_t, int32_t, (bad |= b == 0, i32_rem(a, b ? b : 1)))
DEF_BIN(rem_i64, int64_t, int64_t, (bad |= b == 0, i64_rem(a, b ? b : 1)))
BIN_KERNEL(remainder, rem_f32, rem_f64, rem_i32, rem_i64, NULL, DIVZERO)

BIN_F(pow, pow(a, b))
DEF_BIN(pow_i32, int32_t, int32_t, (bad |= a == 0 && b < 0, i32_pow(a, b)))
DEF_BIN(pow_i64, int64_t, int64_t, (bad |= a == 0 && b < 0, i64_pow(a, b)))
BIN_KERNEL(pow, pow_f32, pow_f64, pow_i32, pow_i64, NULL,
           "zero cannot be raised to a negative integer power")

/* maximum/minimum propagate NaN from either side, like numpy. */
BIN_F(max, (a > b || a != a) ? a : b)
DEF_BIN(max_i32, int32_t, int32_t, a > b ? a : b)
DEF_BIN(max_i64, int64_t, int64_t, a > b ? a : b)
DEF_BIN(max_b, b8, b8, a | b)
BIN_KERNEL(maximum, max_f32, max_f64, max_i32, max_i64, max_b, "")

/* relu_grad(out, dout): dout where out > 0 */
BIN_F(relu_grad, a > 0 ? b : 0)
BIN_KERNEL(relu_grad, relu_grad_f32, relu_grad_f64, NULL, NULL, NULL, "")

BIN_F(min, (a < b || a != a) ? a : b)
DEF_BIN(min_i32, int32_t, int32_t, a < b ? a : b)
DEF_BIN(min_i64, int64_t, int64_t, a < b ? a : b)
DEF_BIN(min_b, b8, b8, a & b)
BIN_KERNEL(minimum, min_f32, min_f64, min_i32, min_i64, min_b, "")

/* Comparisons and logical ops: every dtype, bool out. */
#define BIN_ALL_BOOL(NAME, EXPR)                                                                   \
    DEF_BIN(NAME##_f32, float, b8, EXPR)                                                           \
    DEF_BIN(NAME##_f64, double, b8, EXPR)                                                          \
    DEF_BIN(NAME##_i32, int32_t, b8, EXPR)                                                         \
    DEF_BIN(NAME##_i64, int64_t, b8, EXPR)                                                         \
    DEF_BIN(NAME##_b, b8, b8, EXPR)                                                                \
    BIN_KERNEL(NAME, NAME##_f32, NAME##_f64, NAME##_i32, NAME##_i64, NAME##_b, "")

BIN_ALL_BOOL(equal, a == b)
BIN_ALL_BOOL(not_equal, a != b)
BIN_ALL_BOOL(less_than, a < b)
BIN_ALL_BOOL(less_equal, a <= b)
BIN_ALL_BOOL(greater_than, a > b)
BIN_ALL_BOOL(greater_equal, a >= b)
BIN_ALL_BOOL(logical_and, (a != 0) & (b != 0))
BIN_ALL_BOOL(logical_or, (a != 0) | (b != 0))
BIN_ALL_BOOL(logical_xor, (a != 0) ^ (b != 0))

/* ---- unary elementwise ops */

/* o[i] = f(x[i]) for n elements; prm holds the op's float attributes. */
typedef void (*unfn)(int64_t n, const void *x, void *o, const double *prm);

/* PRE declares constants from prm (statements without top-level commas);
 * it may name the element type val_t. As for DEF_BIN, an in-place call
 * (o is x, T is TO) runs a variant with the one pointer. */
#define DEF_UN(NAME, T, TO, PRE, EXPR)                                                             \
    static inline void NAME##_ipk(int64_t n, TO *o, const double *prm)                             \
    {                                                                                              \
        typedef T val_t;                                                                           \
        (void)prm;                                                                                 \
        PRE;                                                                                       \
        VLOOP(n, val_t a = (val_t)o[i]; o[i] = (TO)(EXPR));                                        \
    }                                                                                              \
    static inline void NAME##_k(int64_t n, const T *restrict x, TO *restrict o, const double *prm) \
    {                                                                                              \
        typedef T val_t;                                                                           \
        (void)prm;                                                                                 \
        PRE;                                                                                       \
        VLOOP(n, val_t a = x[i]; o[i] = (TO)(EXPR));                                               \
    }                                                                                              \
    static void NAME(int64_t n, const void *x, void *o, const double *prm)                         \
    {                                                                                              \
        if (_Generic((T)0, TO: 1, default: 0) && o == x)                                           \
            NAME##_ipk(n, o, prm);                                                                 \
        else                                                                                       \
            NAME##_k(n, x, o, prm);                                                                \
    }

static int unary(d2_kctx *k, const unfn *tab, const double *prm)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if ((unsigned)x->dtype >= NDT || !tab[x->dtype])
        return dtype_error(k, x->dtype);
    int64_t n = d2_tensor_numel(x);
    if (n > 0)
        tab[x->dtype](n, d2_tensor_data(x), d2_tensor_data(out), prm);
    return 0;
}

#define UN_F(NAME, PRE, EXPR)                                                                      \
    DEF_UN(NAME##_f32, float, float, PRE, EXPR)                                                    \
    DEF_UN(NAME##_f64, double, double, PRE, EXPR)
#define UN_KERNEL(NAME, F32, F64, I32, I64)                                                        \
    int cpu_##NAME(d2_kctx *k)                                                                     \
    {                                                                                              \
        static const unfn tab[NDT] = {F32, F64, I32, I64, NULL};                                   \
        return unary(k, tab, NULL);                                                                \
    }
#define UN_FLOAT(NAME, EXPR)                                                                       \
    UN_F(NAME, , EXPR)                                                                             \
    UN_KERNEL(NAME, NAME##_f32, NAME##_f64, NULL, NULL)

UN_F(neg, , -a)
DEF_UN(neg_i32, int32_t, int32_t, , i32_neg(a))
DEF_UN(neg_i64, int64_t, int64_t, , i64_neg(a))
UN_KERNEL(neg, neg_f32, neg_f64, neg_i32, neg_i64)

UN_F(abs, , fabs(a))
DEF_UN(abs_i32, int32_t, int32_t, , a < 0 ? i32_neg(a) : a)
DEF_UN(abs_i64, int64_t, int64_t, , a < 0 ? i64_neg(a) : a)
UN_KERNEL(abs, abs_f32, abs_f64, abs_i32, abs_i64)

UN_F(sign, , a > 0 ? 1 : a < 0 ? -1 : a) /* keeps NaN and signed zero */
DEF_UN(sign_i32, int32_t, int32_t, , (a > 0) - (a < 0))
DEF_UN(sign_i64, int64_t, int64_t, , (a > 0) - (a < 0))
UN_KERNEL(sign, sign_f32, sign_f64, sign_i32, sign_i64)

UN_F(square, , a * a)
DEF_UN(square_i32, int32_t, int32_t, , i32_mul(a, a))
DEF_UN(square_i64, int64_t, int64_t, , i64_mul(a, a))
UN_KERNEL(square, square_f32, square_f64, square_i32, square_i64)

UN_F(relu, , a < 0 ? 0 : a) /* keeps NaN */
DEF_UN(relu_i32, int32_t, int32_t, , a < 0 ? 0 : a)
DEF_UN(relu_i64, int64_t, int64_t, , a < 0 ? 0 : a)
UN_KERNEL(relu, relu_f32, relu_f64, relu_i32, relu_i64)

UN_FLOAT(exp, exp(a))
UN_FLOAT(log, log(a))
UN_FLOAT(sqrt, sqrt(a))
UN_FLOAT(rsqrt, 1 / sqrt(a))
UN_FLOAT(reciprocal, 1 / a)
UN_FLOAT(floor, floor(a))
UN_FLOAT(ceil, ceil(a))
UN_FLOAT(sin, sin(a))
UN_FLOAT(cos, cos(a))
/* float32 tanh and sigmoid in vecmath.h's branch-free forms, compiled per x86-64 level so that
 * they run in vector registers (libm's tanhf and expf are a call per element); float64 keeps
 * libm. The unfn wrapper picks the in-place variant as DEF_UN's does. */
#define DEF_UN_SIMD_F32(NAME, FN)                                                                  \
    D2_SIMD static void NAME##_ipk(int64_t n, float *o) { VLOOP(n, o[i] = FN(o[i])); }             \
    D2_SIMD static void NAME##_k(int64_t n, const float *restrict x, float *restrict o)            \
    {                                                                                              \
        VLOOP(n, o[i] = FN(x[i]));                                                                 \
    }                                                                                              \
    static void NAME(int64_t n, const void *x, void *o, const double *prm)                         \
    {                                                                                              \
        (void)prm;                                                                                 \
        if (o == x)                                                                                \
            NAME##_ipk(n, o);                                                                      \
        else                                                                                       \
            NAME##_k(n, x, o);                                                                     \
    }
DEF_UN_SIMD_F32(tanh_f32, d2_tanh_f32)
DEF_UN(tanh_f64, double, double, , tanh(a))
UN_KERNEL(tanh, tanh_f32, tanh_f64, NULL, NULL)
DEF_UN_SIMD_F32(sigmoid_f32, d2_sigmoid_f32)
DEF_UN(sigmoid_f64, double, double, , 1 / (1 + exp(-a)))
UN_KERNEL(sigmoid, sigmoid_f32, sigmoid_f64, NULL, NULL)
UN_FLOAT(silu, a / (1 + exp(-a)))
UN_FLOAT(erf, erf(a))

/* gelu: exact x/2 (1 + erf(x/sqrt 2)), or the tanh approximation
 * x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
/* Unlike libm's erff, d2_erf_poly vectorises: libm's made gelu a fifth of
 * transformer_encoder's run time. */
D2_SIMD static void gelu_erf_f32(int64_t n, const void *xv, void *ov, const double *prm)
{
    (void)prm;
    if (xv == ov) { /* in place: one pointer, no restrict */
        float *o = ov;
        for (int64_t i = 0; i < n; i++)
            o[i] = d2_gelu_f32(o[i]);
        return;
    }
    const float *restrict x = xv;
    float *restrict o = ov;
    for (int64_t i = 0; i < n; i++)
        o[i] = d2_gelu_f32(x[i]);
}
DEF_UN(gelu_erf_f64, double, double, , 0.5 * a * (1 + erf(a * 0.70710678118654752)))
DEF_UN(gelu_tanh_f32, float, float, ,
       (float)0.5 * a *
           (1 + tanh((float)0.79788456080286536 * (a + (float)0.044715 * a * a * a))))
DEF_UN(gelu_tanh_f64, double, double, ,
       0.5 * a * (1 + tanh(0.79788456080286536 * (a + 0.044715 * a * a * a))))

int cpu_gelu(d2_kctx *k)
{
    static const unfn exact[NDT] = {gelu_erf_f32, gelu_erf_f64, NULL, NULL, NULL};
    static const unfn approx[NDT] = {gelu_tanh_f32, gelu_tanh_f64, NULL, NULL, NULL};
    return unary(k, ATTR_BOOL(k, "approximate") ? approx : exact, NULL);
}

/* leaky_relu: x > 0 ? x : slope*x, written as pos + slope*neg so that GCC
 * if-converts it (it will not speculate the multiply); exact for finite slopes. */
UN_F(leaky_relu, const val_t s = (val_t)prm[0],
     (a < 0 ? 0 : a) + s * (a < 0 ? a : 0))

int cpu_leaky_relu(d2_kctx *k)
{
    static const unfn tab[NDT] = {leaky_relu_f32, leaky_relu_f64, NULL, NULL, NULL};
    double prm[1] = {ATTR_FLOAT(k, "negative_slope")};
    return unary(k, tab, prm);
}

/* Float attribute to an integer dtype: truncated toward zero (a C cast, as
 * Paddle casts attributes to T) and saturated, NaN giving 0. */
static int64_t attr_to_int(double v, int64_t lo, int64_t hi)
{
    if (v != v)
        return 0;
    if (v <= (double)lo)
        return lo;
    if (v >= (double)hi)
        return hi;
    return (int64_t)v;
}

/* scale: s*x + b, or s*(x + b) when bias_after_scale is false; prm =
 * {scale, bias}. Attributes are cast to the input dtype first. */
#define SCALE_PRE(T, LO, HI)                                                                       \
    const T s = (T)attr_to_int(prm[0], LO, HI);                                                    \
    const T c = (T)attr_to_int(prm[1], LO, HI)
UN_F(scale_after, const val_t s = (val_t)prm[0]; const val_t c = (val_t)prm[1], s * a + c)
UN_F(scale_before, const val_t s = (val_t)prm[0]; const val_t c = (val_t)prm[1], s * (a + c))
DEF_UN(scale_after_i32, int32_t, int32_t, SCALE_PRE(int32_t, INT32_MIN, INT32_MAX),
       i32_add(i32_mul(s, a), c))
DEF_UN(scale_before_i32, int32_t, int32_t, SCALE_PRE(int32_t, INT32_MIN, INT32_MAX),
       i32_mul(s, i32_add(a, c)))
DEF_UN(scale_after_i64, int64_t, int64_t, SCALE_PRE(int64_t, INT64_MIN, INT64_MAX),
       i64_add(i64_mul(s, a), c))
DEF_UN(scale_before_i64, int64_t, int64_t, SCALE_PRE(int64_t, INT64_MIN, INT64_MAX),
       i64_mul(s, i64_add(a, c)))

int cpu_scale(d2_kctx *k)
{
    static const unfn after[NDT] = {scale_after_f32, scale_after_f64, scale_after_i32,
                                    scale_after_i64, NULL};
    static const unfn before[NDT] = {scale_before_f32, scale_before_f64, scale_before_i32,
                                     scale_before_i64, NULL};
    double prm[2] = {ATTR_FLOAT(k, "scale"), ATTR_FLOAT(k, "bias")};
    return unary(k, ATTR_BOOL(k, "bias_after_scale") ? after : before, prm);
}

/* clip: min/max cast to the input dtype; NaN inputs stay NaN. */
UN_F(clip, const val_t lo = (val_t)prm[0]; const val_t hi = (val_t)prm[1],
     a < lo ? lo : a > hi ? hi : a)
DEF_UN(clip_i32, int32_t, int32_t,
       const int32_t lo = (int32_t)attr_to_int(prm[0], INT32_MIN, INT32_MAX);
       const int32_t hi = (int32_t)attr_to_int(prm[1], INT32_MIN, INT32_MAX),
       a < lo ? lo : a > hi ? hi : a)
DEF_UN(clip_i64, int64_t, int64_t,
       const int64_t lo = attr_to_int(prm[0], INT64_MIN, INT64_MAX);
       const int64_t hi = attr_to_int(prm[1], INT64_MIN, INT64_MAX),
       a < lo ? lo : a > hi ? hi : a)

int cpu_clip(d2_kctx *k)
{
    static const unfn tab[NDT] = {clip_f32, clip_f64, clip_i32, clip_i64, NULL};
    double prm[2] = {ATTR_FLOAT(k, "min"), ATTR_FLOAT(k, "max")};
    if (prm[0] != prm[0] || prm[1] != prm[1] || prm[0] > prm[1])
        return d2_err_set(k->err, D2_ERR_INVALID, "%s: attribute min must not be greater than max",
                          k->def->name);
    return unary(k, tab, prm);
}

/* logical_not: any dtype, nonzero is true. */
DEF_UN(lnot_f32, float, b8, , a == 0)
DEF_UN(lnot_f64, double, b8, , a == 0)
DEF_UN(lnot_i32, int32_t, b8, , a == 0)
DEF_UN(lnot_i64, int64_t, b8, , a == 0)
DEF_UN(lnot_b, b8, b8, , a == 0)

int cpu_logical_not(d2_kctx *k)
{
    static const unfn tab[NDT] = {lnot_f32, lnot_f64, lnot_i32, lnot_i64, lnot_b};
    return unary(k, tab, NULL);
}

/* ---- cast */

/* Float to integer truncates toward zero; NaN and out-of-range values give
 * the most negative integer (what x86 conversions produce) instead of UB. */
#define F2I(TI, TO, MINV, LIM) ((a >= -(TI)(LIM) && a < (TI)(LIM)) ? (TO)a : (TO)(MINV))
DEF_UN(c_f32_f64, float, double, , a)
DEF_UN(c_f32_i32, float, int32_t, , F2I(float, int32_t, INT32_MIN, 2147483648.0))
DEF_UN(c_f32_i64, float, int64_t, , F2I(float, int64_t, INT64_MIN, 9223372036854775808.0))
DEF_UN(c_f32_b, float, b8, , a != 0)
DEF_UN(c_f64_f32, double, float, , a)
DEF_UN(c_f64_i32, double, int32_t, , F2I(double, int32_t, INT32_MIN, 2147483648.0))
DEF_UN(c_f64_i64, double, int64_t, , F2I(double, int64_t, INT64_MIN, 9223372036854775808.0))
DEF_UN(c_f64_b, double, b8, , a != 0)
DEF_UN(c_i32_f32, int32_t, float, , a)
DEF_UN(c_i32_f64, int32_t, double, , a)
DEF_UN(c_i32_i64, int32_t, int64_t, , a)
DEF_UN(c_i32_b, int32_t, b8, , a != 0)
DEF_UN(c_i64_f32, int64_t, float, , a)
DEF_UN(c_i64_f64, int64_t, double, , a)
DEF_UN(c_i64_i32, int64_t, int32_t, , (uint32_t)a) /* wraps */
DEF_UN(c_i64_b, int64_t, b8, , a != 0)
DEF_UN(c_b_f32, b8, float, , a != 0)
DEF_UN(c_b_f64, b8, double, , a != 0)
DEF_UN(c_b_i32, b8, int32_t, , a != 0)
DEF_UN(c_b_i64, b8, int64_t, , a != 0)
DEF_UN(c_b_b, b8, b8, , a != 0)

/* [from][to]; NULL on the diagonal means a plain copy. */
static const unfn cast_tab[NDT][NDT] = {
    {NULL, c_f32_f64, c_f32_i32, c_f32_i64, c_f32_b},
    {c_f64_f32, NULL, c_f64_i32, c_f64_i64, c_f64_b},
    {c_i32_f32, c_i32_f64, NULL, c_i32_i64, c_i32_b},
    {c_i64_f32, c_i64_f64, c_i64_i32, NULL, c_i64_b},
    {c_b_f32, c_b_f64, c_b_i32, c_b_i64, c_b_b},
};

/* Converts n elements between two of the five kernel dtypes. */
static void convert(d2_dtype from, d2_dtype to, int64_t n, const void *src, void *dst)
{
    if (n <= 0)
        return;
    unfn f = cast_tab[from][to];
    if (f)
        f(n, src, dst, NULL);
    else
        memmove(dst, src, (size_t)n * d2_dtype_size(from));
}

int cpu_cast(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if ((unsigned)x->dtype >= D2_NUM_DTYPES)
        return dtype_error(k, x->dtype);
    if ((unsigned)out->dtype >= D2_NUM_DTYPES)
        return dtype_error(k, out->dtype);
    if ((unsigned)x->dtype >= NDT || (unsigned)out->dtype >= NDT) {
        /* storage dtypes: one element at a time */
        d2_convert(x->dtype, out->dtype, d2_tensor_numel(x), d2_tensor_data(x),
                   d2_tensor_data(out));
        return 0;
    }
    convert(x->dtype, out->dtype, d2_tensor_numel(x), d2_tensor_data(x), d2_tensor_data(out));
    return 0;
}

/* ---- where */

#define DEF_WHERE(NAME, T)                                                                         \
    static inline void NAME##_k(int64_t n, const b8 *restrict c, int64_t sc, const T *restrict x,  \
                                int64_t sx, const T *restrict y, int64_t sy, T *restrict o)        \
    {                                                                                              \
        if (sc && sx && sy) {                                                                      \
            VLOOP(n, T xi = x[i]; T yi = y[i]; o[i] = c[i] ? xi : yi);                             \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = c[i * sc] ? x[i * sx] : y[i * sy];                                          \
        }                                                                                          \
    }                                                                                              \
    static void NAME(int64_t n, const b8 *c, int64_t sc, const void *x, int64_t sx, const void *y, \
                     int64_t sy, void *o)                                                          \
    {                                                                                              \
        NAME##_k(n, c, sc, x, sx, y, sy, o);                                                       \
    }
DEF_WHERE(where_f32, float)
DEF_WHERE(where_f64, double)
DEF_WHERE(where_i32, int32_t)
DEF_WHERE(where_i64, int64_t)
DEF_WHERE(where_b, b8)

typedef void (*wherefn)(int64_t, const b8 *, int64_t, const void *, int64_t, const void *, int64_t,
                        void *);

int cpu_where(d2_kctx *k)
{
    d2_tensor *c = k->in[0], *x = k->in[1], *y = k->in[2], *out = k->out[0];
    if (c->dtype != D2_BOOL || x->dtype != y->dtype || (unsigned)x->dtype >= NDT)
        return dtype_error(k, x->dtype);
    if (d2_tensor_numel(out) == 0)
        return 0;
    static const wherefn tab[NDT] = {where_f32, where_f64, where_i32, where_i64, where_b};
    wherefn fn = tab[x->dtype];
    size_t es = d2_dtype_size(x->dtype);
    bplan p;
    if (bplan_make(k, &p, out, k->in, 3) < 0)
        return -1;
    const b8 *cd = d2_tensor_data(c);
    const char *xd = d2_tensor_data(x), *yd = d2_tensor_data(y);
    char *od = d2_tensor_data(out);
    int L = p.nd - 1;
    int64_t n = p.shape[L], outer = d2_tensor_numel(out) / n;
    int64_t idx[D2_MAX_DIMS] = {0}, off[3] = {0, 0, 0};
    for (int64_t i = 0; i < outer; i++) {
        fn(n, cd + off[0], p.st[0][L], xd + off[1] * es, p.st[1][L], yd + off[2] * es,
           p.st[2][L], od + i * n * es);
        bplan_step(&p, idx, off, 3);
    }
    return 0;
}

/* ---- softmax / log_softmax */

/* Rows of n elements spaced `inner` apart: subtract the max, exponentiate,
 * normalise (sums in double). Each x element is read before the output at its
 * index is written, so o may be x (in place). tmp holds inner Ts and inner
 * doubles. */
#define DEF_SOFTMAX(NAME, T)                                                                       \
    static void NAME##_rows(const T *x, T *o, int64_t outer, int64_t n, bool logsm)                \
    {                                                                                              \
        for (int64_t b = 0; b < outer; b++) {                                                      \
            const T *xb = x + b * n;                                                               \
            T *ob = o + b * n;                                                                     \
            T m = -INFINITY;                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                m = xb[i] > m ? xb[i] : m;                                                         \
            double s = 0;                                                                          \
            if (logsm) {                                                                           \
                for (int64_t i = 0; i < n; i++)                                                    \
                    s += exp(xb[i] - m);                                                           \
                double ls = log(s);                                                                \
                for (int64_t i = 0; i < n; i++)                                                    \
                    ob[i] = (T)((double)(xb[i] - m) - ls);                                         \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++) {                                                  \
                    T e = exp(xb[i] - m);                                                          \
                    ob[i] = e;                                                                     \
                    s += e;                                                                        \
                }                                                                                  \
                for (int64_t i = 0; i < n; i++)                                                    \
                    ob[i] = (T)(ob[i] / s);                                                        \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void NAME(const T *x, T *o, int64_t outer, int64_t n, int64_t inner, bool logsm,        \
                     void *tmp)                                                                    \
    {                                                                                              \
        if (inner == 1) {                                                                          \
            NAME##_rows(x, o, outer, n, logsm);                                                    \
            return;                                                                                \
        }                                                                                          \
        T *m = tmp;                                                                                \
        double *s = (double *)((char *)tmp + (size_t)inner * sizeof(double));                      \
        for (int64_t b = 0; b < outer; b++) {                                                      \
            const T *xb = x + b * n * inner;                                                       \
            T *ob = o + b * n * inner;                                                             \
            for (int64_t j = 0; j < inner; j++) {                                                  \
                m[j] = -INFINITY;                                                                  \
                s[j] = 0;                                                                          \
            }                                                                                      \
            for (int64_t i = 0; i < n; i++)                                                        \
                for (int64_t j = 0; j < inner; j++) {                                              \
                    T v = xb[i * inner + j];                                                       \
                    m[j] = v > m[j] ? v : m[j];                                                    \
                }                                                                                  \
            if (logsm) {                                                                           \
                for (int64_t i = 0; i < n; i++)                                                    \
                    for (int64_t j = 0; j < inner; j++)                                            \
                        s[j] += exp(xb[i * inner + j] - m[j]);                                     \
                for (int64_t j = 0; j < inner; j++)                                                \
                    s[j] = log(s[j]);                                                              \
                for (int64_t i = 0; i < n; i++)                                                    \
                    for (int64_t j = 0; j < inner; j++)                                            \
                        ob[i * inner + j] = (T)((double)(xb[i * inner + j] - m[j]) - s[j]);        \
            } else {                                                                               \
                for (int64_t i = 0; i < n; i++)                                                    \
                    for (int64_t j = 0; j < inner; j++) {                                          \
                        T e = exp(xb[i * inner + j] - m[j]);                                       \
                        ob[i * inner + j] = e;                                                     \
                        s[j] += e;                                                                 \
                    }                                                                              \
                for (int64_t i = 0; i < n; i++)                                                    \
                    for (int64_t j = 0; j < inner; j++)                                            \
                        ob[i * inner + j] = (T)(ob[i * inner + j] / s[j]);                         \
            }                                                                                      \
        }                                                                                          \
    }
DEF_SOFTMAX(softmax_f32, float)
DEF_SOFTMAX(softmax_f64, double)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SOFTMAX_ATTR __attribute__((target("avx512f,avx512dq,fma")))

/* exp(x - m) for x <= m (or NaN, kept) in 16 lanes. x - m and its reduction x - m = n ln2 + r
 * (|r| <= ln2/2) are computed in double, where they are exact or nearly so: a float x - m
 * would round, by up to 1e-6 relative in exp for differences near -17. Then Cephes' expf
 * polynomial of degree 6 in r in float, scaled by 2^n with scalef (which underflows to 0
 * and to subnormals as exp does): within 2 ulp of exp. A difference below -110 (exp rounds
 * to 0 there) is clamped, so that -inf gives 0. */
SOFTMAX_ATTR static inline __m512d reduce_pd(__m256 x, __m512d m, __m512d *n)
{
    __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(x), m);
    d = _mm512_max_pd(_mm512_set1_pd(-110.0), d); /* the second operand wins: NaN stays */
    *n = _mm512_roundscale_pd(_mm512_mul_pd(d, _mm512_set1_pd(1.4426950408889634)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_fnmadd_pd(*n, _mm512_set1_pd(0.6931471805599453), d);
}

SOFTMAX_ATTR static inline __m512 join_ps(__m256 lo, __m256 hi)
{
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)),
                                               _mm256_castps_pd(hi), 1));
}

SOFTMAX_ATTR static inline __m256 high_ps(__m512 x)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
}

/* exp(x - m) with m per lane: mlo for lanes 0-7, mhi for lanes 8-15. */
SOFTMAX_ATTR static inline __m512 exp_diff2_ps(__m512 x, __m512d mlo, __m512d mhi)
{
    __m512d nlo, nhi;
    __m512d rlo = reduce_pd(_mm512_castps512_ps256(x), mlo, &nlo);
    __m512d rhi = reduce_pd(high_ps(x), mhi, &nhi);
    __m512 r = join_ps(_mm512_cvtpd_ps(rlo), _mm512_cvtpd_ps(rhi));
    __m512 n = join_ps(_mm512_cvtpd_ps(nlo), _mm512_cvtpd_ps(nhi));
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    __m512 y = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(y, n);
}

SOFTMAX_ATTR static inline __m512 exp_diff_ps(__m512 x, __m512d m) { return exp_diff2_ps(x, m, m); }

static __mmask16 tail_mask(int64_t left) { return left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1); }

/* Softmax of float32 rows (attention's, 6 to a few hundred long) in 16 lanes: the maximum
 * ignores NaN as the scalar loop does, the sum and the division are in double as there; exp
 * is exp_diff_ps, closer to the exact value than the scalar loop's float x - m and expf. */
SOFTMAX_ATTR static void softmax_f32_rows_avx512(const float *x, float *o, int64_t outer,
                                                 int64_t n)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    for (int64_t b = 0; b < outer; b++) {
        const float *xb = x + b * n;
        float *ob = o + b * n;
        __m512 mv = ninf;
        for (int64_t i = 0; i < n; i += 16)
            mv = _mm512_max_ps(_mm512_mask_loadu_ps(ninf, tail_mask(n - i), xb + i), mv);
        __m512d m = _mm512_set1_pd((double)_mm512_reduce_max_ps(mv));
        __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
        for (int64_t i = 0; i < n; i += 16) {
            __mmask16 mk = tail_mask(n - i);
            __m512 e = _mm512_maskz_mov_ps(mk, exp_diff_ps(_mm512_maskz_loadu_ps(mk, xb + i), m));
            _mm512_mask_storeu_ps(ob + i, mk, e);
            s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
            s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(high_ps(e)));
        }
        __m512d sv = _mm512_set1_pd(_mm512_reduce_add_pd(_mm512_add_pd(s0, s1)));
        for (int64_t i = 0; i < n; i += 16) {
            __mmask16 mk = tail_mask(n - i);
            __m512 e = _mm512_maskz_loadu_ps(mk, ob + i);
            __m256 lo = _mm512_cvtpd_ps(_mm512_div_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(e)), sv));
            __m256 hi = _mm512_cvtpd_ps(_mm512_div_pd(_mm512_cvtps_pd(high_ps(e)), sv));
            _mm512_mask_storeu_ps(ob + i, mk, join_ps(lo, hi));
        }
    }
}

/* Rows of at most SHORT_ROW elements (attention's at short sequences: 6 at the transformer
 * sample's) 16 at a time, one row per lane, gathered column by column: the maximum and the sum
 * are lane-wise, where the row path above spends most of a short row in horizontal reductions.
 * Each element's arithmetic is the row path's: the maximum ignoring NaN, exp_diff2_ps, the sum
 * in double (in column order), the division in double. */
#define SHORT_ROW 16
SOFTMAX_ATTR static void softmax_f32_short_avx512(const float *x, float *o, int64_t outer,
                                                  int64_t n)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i idx = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)n));
    __m512 e[SHORT_ROW];
    for (int64_t b = 0; b < outer; b += 16) {
        __mmask16 mk = tail_mask(outer - b);
        const float *xb = x + b * n;
        float *ob = o + b * n;
        __m512 mv = ninf;
        for (int64_t j = 0; j < n; j++) {
            e[j] = _mm512_mask_i32gather_ps(ninf, mk, idx, xb + j, 4);
            mv = _mm512_max_ps(e[j], mv);
        }
        __m512d mlo = _mm512_cvtps_pd(_mm512_castps512_ps256(mv)), mhi = _mm512_cvtps_pd(high_ps(mv));
        __m512d slo = _mm512_setzero_pd(), shi = _mm512_setzero_pd();
        for (int64_t j = 0; j < n; j++) {
            e[j] = exp_diff2_ps(e[j], mlo, mhi);
            slo = _mm512_add_pd(slo, _mm512_cvtps_pd(_mm512_castps512_ps256(e[j])));
            shi = _mm512_add_pd(shi, _mm512_cvtps_pd(high_ps(e[j])));
        }
        for (int64_t j = 0; j < n; j++) {
            __m256 lo = _mm512_cvtpd_ps(_mm512_div_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(e[j])), slo));
            __m256 hi = _mm512_cvtpd_ps(_mm512_div_pd(_mm512_cvtps_pd(high_ps(e[j])), shi));
            _mm512_mask_i32scatter_ps(ob + j, mk, idx, join_ps(lo, hi), 4);
        }
    }
}

static bool softmax_avx512(void)
{
    static int has = -1; /* racing first calls store the same value */
    int h = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("fma");
        __atomic_store_n(&has, h, __ATOMIC_RELAXED);
    }
    return h;
}
#else
#define softmax_avx512() false
#define softmax_f32_rows_avx512(x, o, outer, n) ((void)0)
#define SHORT_ROW 0
#define softmax_f32_short_avx512(x, o, outer, n) ((void)0)
#endif

static int softmax(d2_kctx *k, bool logsm)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if (x->dtype != D2_F32 && x->dtype != D2_F64)
        return dtype_error(k, x->dtype);
    int a = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
    if (a < 0)
        return -1;
    if (d2_tensor_numel(x) == 0)
        return 0;
    int64_t outer = 1, n = x->ndim ? x->shape[a] : 1, inner = 1;
    for (int i = 0; i < a; i++)
        outer *= x->shape[i];
    for (int i = a + 1; i < x->ndim; i++)
        inner *= x->shape[i];
    /* rows along the last axis (attention's) need no scratch: no allocation per call */
    void *tmp = inner == 1 ? NULL : d2_malloc((size_t)inner * 2 * sizeof(double));
    if (inner != 1 && !tmp)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    if (x->dtype == D2_F32 && inner == 1 && !logsm && n <= SHORT_ROW && softmax_avx512())
        softmax_f32_short_avx512(d2_tensor_data(x), d2_tensor_data(out), outer, n);
    else if (x->dtype == D2_F32 && inner == 1 && !logsm && softmax_avx512())
        softmax_f32_rows_avx512(d2_tensor_data(x), d2_tensor_data(out), outer, n);
    else if (x->dtype == D2_F32)
        softmax_f32(d2_tensor_data(x), d2_tensor_data(out), outer, n, inner, logsm, tmp);
    else
        softmax_f64(d2_tensor_data(x), d2_tensor_data(out), outer, n, inner, logsm, tmp);
    d2_free(tmp);
    return 0;
}

int cpu_softmax(d2_kctx *k) { return softmax(k, false); }
int cpu_log_softmax(d2_kctx *k) { return softmax(k, true); }

/* ---- reductions */

/* Accumulators: floats sum/prod in double, integers in uint64 (wrapping),
 * max/min in the input dtype, any/all in bytes. row() folds n contiguous
 * elements into acc[0]; vec() folds x[j] into acc[j]. */
typedef void (*redfn)(const void *x, int64_t n, void *acc);

#define DEF_RED(NAME, T, A, ID, F)                                                                 \
    static void NAME##_row(const void *xv, int64_t n, void *accv)                                  \
    {                                                                                              \
        const T *restrict x = xv;                                                                  \
        A p[8];                                                                                    \
        for (int l = 0; l < 8; l++)                                                                \
            p[l] = (ID);                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int l = 0; l < 8; l++)                                                            \
                p[l] = F(p[l], x[i + l]);                                                          \
        for (; i < n; i++)                                                                         \
            p[0] = F(p[0], x[i]);                                                                  \
        A s = *(A *)accv;                                                                          \
        for (int l = 0; l < 8; l++)                                                                \
            s = F(s, p[l]);                                                                        \
        *(A *)accv = s;                                                                            \
    }                                                                                              \
    static inline void NAME##_veck(const T *restrict x, int64_t n, A *restrict acc)                \
    {                                                                                              \
        VLOOP(n, acc[i] = F(acc[i], x[i]));                                                        \
    }                                                                                              \
    static void NAME##_vec(const void *x, int64_t n, void *acc) { NAME##_veck(x, n, acc); }

/* integer operands convert to the uint64 accumulator, wrapping */
#define F_SUM(s, v) ((s) + (v))
#define F_PROD(s, v) ((s) * (v))
#define F_FMAX(s, v) (((v) > (s) || (v) != (v)) ? (v) : (s))
#define F_FMIN(s, v) (((v) < (s) || (v) != (v)) ? (v) : (s))
#define F_IMAX(s, v) ((v) > (s) ? (v) : (s))
#define F_IMIN(s, v) ((v) < (s) ? (v) : (s))
#define F_ANY(s, v) ((b8)((s) | ((v) != 0)))
#define F_ALL(s, v) ((b8)((s) & ((v) != 0)))

DEF_RED(sumd_f32, float, double, 0, F_SUM)
DEF_RED(sumd_f64, double, double, 0, F_SUM)
DEF_RED(sumd_i32, int32_t, double, 0, F_SUM)
DEF_RED(sumd_i64, int64_t, double, 0, F_SUM)
DEF_RED(sumd_b, b8, double, 0, F_SUM)
DEF_RED(sumu_i32, int32_t, uint64_t, 0, F_SUM)
DEF_RED(sumu_i64, int64_t, uint64_t, 0, F_SUM)
DEF_RED(sumu_b, b8, uint64_t, 0, F_SUM)
DEF_RED(prodd_f32, float, double, 1, F_PROD)
DEF_RED(prodd_f64, double, double, 1, F_PROD)
DEF_RED(produ_i32, int32_t, uint64_t, 1, F_PROD)
DEF_RED(produ_i64, int64_t, uint64_t, 1, F_PROD)
DEF_RED(max_f32, float, float, -INFINITY, F_FMAX)
DEF_RED(max_f64, double, double, -INFINITY, F_FMAX)
DEF_RED(max_i32, int32_t, int32_t, INT32_MIN, F_IMAX)
DEF_RED(max_i64, int64_t, int64_t, INT64_MIN, F_IMAX)
DEF_RED(min_f32, float, float, INFINITY, F_FMIN)
DEF_RED(min_f64, double, double, INFINITY, F_FMIN)
DEF_RED(min_i32, int32_t, int32_t, INT32_MAX, F_IMIN)
DEF_RED(min_i64, int64_t, int64_t, INT64_MAX, F_IMIN)
DEF_RED(any_f32, float, b8, 0, F_ANY)
DEF_RED(any_f64, double, b8, 0, F_ANY)
DEF_RED(any_i32, int32_t, b8, 0, F_ANY)
DEF_RED(any_i64, int64_t, b8, 0, F_ANY)
DEF_RED(any_b, b8, b8, 0, F_ANY)
DEF_RED(all_f32, float, b8, 1, F_ALL)
DEF_RED(all_f64, double, b8, 1, F_ALL)
DEF_RED(all_i32, int32_t, b8, 1, F_ALL)
DEF_RED(all_i64, int64_t, b8, 1, F_ALL)
DEF_RED(all_b, b8, b8, 1, F_ALL)

typedef enum { ACC_F64, ACC_U64, ACC_SAME, ACC_BOOL } acc_kind;
typedef enum { ID_ZERO, ID_ONE, ID_LOWEST, ID_HIGHEST } acc_ident;

/* One reduction: per input dtype the row/vec folds (NULL: dtype unsupported),
 * the accumulator kind and its starting value. */
typedef struct redop {
    redfn row[NDT], vec[NDT];
    acc_kind kind;
    acc_ident ident;
    bool need_nonempty; /* max/min: an empty reduction is an error */
    bool mean;
} redop;

#define RED_FNS(a, b, c, d, e)                                                                     \
    .row = {a##_row, b##_row, c##_row, d##_row, e##_row},                                          \
    .vec = {a##_vec, b##_vec, c##_vec, d##_vec, e##_vec}
#define RED_FNS_INT(c, d, e)                                                                       \
    .row = {NULL, NULL, c##_row, d##_row, e}, .vec = {NULL, NULL, c##_vec, d##_vec, e}
#define RED_FNS_NUM(a, b, c, d)                                                                    \
    .row = {a##_row, b##_row, c##_row, d##_row, NULL},                                             \
    .vec = {a##_vec, b##_vec, c##_vec, d##_vec, NULL}

static const redop red_sumd = {RED_FNS(sumd_f32, sumd_f64, sumd_i32, sumd_i64, sumd_b),
                               .kind = ACC_F64, .ident = ID_ZERO};
static const redop red_mean = {RED_FNS(sumd_f32, sumd_f64, sumd_i32, sumd_i64, sumd_b),
                               .kind = ACC_F64, .ident = ID_ZERO, .mean = true};
static const redop red_sumu = {.row = {NULL, NULL, sumu_i32_row, sumu_i64_row, sumu_b_row},
                               .vec = {NULL, NULL, sumu_i32_vec, sumu_i64_vec, sumu_b_vec},
                               .kind = ACC_U64, .ident = ID_ZERO};
static const redop red_prodd = {.row = {prodd_f32_row, prodd_f64_row, NULL, NULL, NULL},
                                .vec = {prodd_f32_vec, prodd_f64_vec, NULL, NULL, NULL},
                                .kind = ACC_F64, .ident = ID_ONE};
static const redop red_produ = {RED_FNS_INT(produ_i32, produ_i64, NULL), .kind = ACC_U64,
                                .ident = ID_ONE};
static const redop red_max = {RED_FNS_NUM(max_f32, max_f64, max_i32, max_i64), .kind = ACC_SAME,
                              .ident = ID_LOWEST, .need_nonempty = true};
static const redop red_min = {RED_FNS_NUM(min_f32, min_f64, min_i32, min_i64), .kind = ACC_SAME,
                              .ident = ID_HIGHEST, .need_nonempty = true};
static const redop red_any = {RED_FNS(any_f32, any_f64, any_i32, any_i64, any_b), .kind = ACC_BOOL,
                              .ident = ID_ZERO};
static const redop red_all = {RED_FNS(all_f32, all_f64, all_i32, all_i64, all_b), .kind = ACC_BOOL,
                              .ident = ID_ONE};

/* Fills acc (n accumulators of op for input dtype dt) with op's starting value. */
static void acc_init(const redop *op, d2_dtype dt, void *acc, int64_t n)
{
    bool one = op->ident == ID_ONE, low = op->ident == ID_LOWEST;
    for (int64_t i = 0; i < n; i++) {
        switch (op->kind) {
        case ACC_F64: ((double *)acc)[i] = one; break;
        case ACC_U64: ((uint64_t *)acc)[i] = one; break;
        case ACC_BOOL: ((b8 *)acc)[i] = one; break;
        case ACC_SAME:
            switch (dt) {
            case D2_F32: ((float *)acc)[i] = low ? -INFINITY : INFINITY; break;
            case D2_F64: ((double *)acc)[i] = low ? -INFINITY : INFINITY; break;
            case D2_I32: ((int32_t *)acc)[i] = low ? INT32_MIN : INT32_MAX; break;
            default: ((int64_t *)acc)[i] = low ? INT64_MIN : INT64_MAX; break;
            }
            break;
        }
    }
}

/* Dims of x with size-1 dims dropped and neighbours of the same kind
 * (reduced or kept) merged; ost is the output stride (0 when reduced). */
typedef struct rplan {
    int nd;
    int64_t shape[D2_MAX_DIMS], ost[D2_MAX_DIMS];
    bool red[D2_MAX_DIMS];
} rplan;

static void rplan_make(rplan *p, const d2_tensor *x, const bool *red)
{
    p->nd = 0;
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] == 1)
            continue;
        if (p->nd > 0 && p->red[p->nd - 1] == red[i]) {
            p->shape[p->nd - 1] *= x->shape[i];
        } else {
            p->shape[p->nd] = x->shape[i];
            p->red[p->nd] = red[i];
            p->nd++;
        }
    }
    if (p->nd == 0) {
        p->nd = 1;
        p->shape[0] = 1;
        p->red[0] = false;
    }
    int64_t run = 1;
    for (int d = p->nd - 1; d >= 0; d--) {
        p->ost[d] = p->red[d] ? 0 : run;
        if (!p->red[d])
            run *= p->shape[d];
    }
}

/* Same rules as infer_reduce's axis check. */
static int reduce_axes(d2_kctx *k, int ndim, bool *red)
{
    int n;
    const int64_t *axes = ATTR_INTS(k, "axis", &n);
    memset(red, 0, D2_MAX_DIMS * sizeof *red);
    for (int i = 0; i < (n ? 0 : ndim); i++)
        red[i] = true;
    for (int i = 0; i < n; i++) {
        int a = d2_norm_axis(axes[i], ndim, k->def, k->err);
        if (a < 0)
            return -1;
        if (red[a])
            return d2_err_set(k->err, D2_ERR_INVALID, "%s: axis %lld is given more than once",
                              k->def->name, (long long)axes[i]);
        red[a] = true;
    }
    return 0;
}

/* Writes the accumulators to the output, converting (and dividing by count for mean). */
static void acc_finish(const redop *op, d2_dtype in_dt, const void *acc, int64_t n, int64_t count,
                       d2_tensor *out)
{
    void *o = d2_tensor_data(out);
    if (op->kind == ACC_F64) {
        const double *a = acc;
        /* the mean of nothing is NaN, as in numpy */
        double div = !op->mean ? 1 : count > 0 ? (double)count : NAN;
        if (out->dtype == D2_F32) {
            float *of = o;
            for (int64_t i = 0; i < n; i++)
                of[i] = (float)(a[i] / div);
        } else {
            double *od = o;
            for (int64_t i = 0; i < n; i++)
                od[i] = a[i] / div;
        }
    } else if (op->kind == ACC_U64) {
        const uint64_t *a = acc;
        if (out->dtype == D2_I32) {
            int32_t *oi = o;
            for (int64_t i = 0; i < n; i++)
                oi[i] = (int32_t)(uint32_t)a[i];
        } else {
            int64_t *oi = o;
            for (int64_t i = 0; i < n; i++)
                oi[i] = (int64_t)a[i];
        }
    } else {
        memcpy(o, acc, (size_t)n * (op->kind == ACC_BOOL ? 1 : d2_dtype_size(in_dt)));
    }
}

/* Rows c0..c1-1 of n elements each (x's innermost merged dim) into acc, starting at output
 * offset oo: rows c0.. must begin a slice of plan p's first dim (or be all of x). */
static void reduce_rows(redfn fn, const rplan *p, const char *xd, size_t es, int64_t n, char *acc,
                        size_t asz, int64_t c0, int64_t c1, int64_t oo)
{
    int L = p->nd - 1;
    int64_t idx[D2_MAX_DIMS] = {0};
    for (int64_t c = c0; c < c1; c++) {
        fn(xd + (size_t)(c * n) * es, n, acc + (size_t)oo * asz);
        for (int d = L - 1; d >= 0; d--) {
            oo += p->ost[d];
            if (++idx[d] < p->shape[d])
                break;
            oo -= p->ost[d] * p->shape[d];
            idx[d] = 0;
        }
    }
}

/* Runs reduction op over the axes attribute of k; x may have been converted
 * to dtype dt first (sum with a dtype attribute). */
static int reduce_run(d2_kctx *k, const redop *op, d2_dtype dt, const void *xd)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if ((unsigned)dt >= NDT || !op->row[dt])
        return dtype_error(k, dt);
    bool red[D2_MAX_DIMS];
    if (reduce_axes(k, x->ndim, red) < 0)
        return -1;
    int64_t nout = d2_tensor_numel(out), nin = d2_tensor_numel(x), count = 1;
    for (int i = 0; i < x->ndim; i++)
        if (red[i])
            count *= x->shape[i];
    if (nout == 0)
        return 0;
    if (count == 0 && op->need_nonempty)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: reduction over an empty axis has no identity", k->def->name);
    size_t asz = op->kind == ACC_BOOL ? 1 : op->kind == ACC_SAME ? d2_dtype_size(dt) : 8;
    void *acc = d2_malloc((size_t)nout * asz);
    if (!acc)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    acc_init(op, dt, acc, nout);
    if (nin > 0) {
        rplan p;
        rplan_make(&p, x, red);
        size_t es = d2_dtype_size(dt);
        int L = p.nd - 1;
        int64_t n = p.shape[L], outer = nin / n;
        redfn fn = p.red[L] ? op->row[dt] : op->vec[dt];
        int nt = d2_gemm_threads();
        if (nt > 1 && nin >= 65536 && L >= 1 && !p.red[0] && p.shape[0] >= 2) {
            /* large inputs whose first dim is kept: its slices write apart, one per thread
             * at a time (each output still sums in the same order) */
            int64_t per = outer / p.shape[0];
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
            for (int64_t i = 0; i < p.shape[0]; i++)
                reduce_rows(fn, &p, (const char *)xd, es, n, (char *)acc, asz, i * per,
                            (i + 1) * per, i * p.ost[0]);
        } else {
            reduce_rows(fn, &p, (const char *)xd, es, n, (char *)acc, asz, 0, outer, 0);
        }
    }
    acc_finish(op, dt, acc, nout, count, out);
    d2_free(acc);
    return 0;
}

static int reduce(d2_kctx *k, const redop *op)
{
    return reduce_run(k, op, k->in[0]->dtype, d2_tensor_data(k->in[0]));
}

/* sum: float outputs accumulate in double, integer outputs in wrapping
 * uint64. A float input summed into an integer dtype is cast first (Paddle
 * casts x to the dtype attribute before summing). */
int cpu_sum(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if ((unsigned)x->dtype >= NDT)
        return dtype_error(k, x->dtype);
    if (d2_dtype_is_float(out->dtype))
        return reduce_run(k, &red_sumd, x->dtype, d2_tensor_data(x));
    if (!d2_dtype_is_float(x->dtype))
        return reduce_run(k, &red_sumu, x->dtype, d2_tensor_data(x));
    int64_t n = d2_tensor_numel(x);
    void *tmp = d2_malloc((size_t)(n > 0 ? n : 1) * d2_dtype_size(out->dtype));
    if (!tmp)
        return d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    convert(x->dtype, out->dtype, n, d2_tensor_data(x), tmp);
    int rc = reduce_run(k, &red_sumu, out->dtype, tmp);
    d2_free(tmp);
    return rc;
}

int cpu_mean(d2_kctx *k) { return reduce(k, &red_mean); }
int cpu_max(d2_kctx *k) { return reduce(k, &red_max); }
int cpu_amax(d2_kctx *k) { return reduce(k, &red_max); }
int cpu_min(d2_kctx *k) { return reduce(k, &red_min); }
int cpu_amin(d2_kctx *k) { return reduce(k, &red_min); }
int cpu_any(d2_kctx *k) { return reduce(k, &red_any); }
int cpu_all(d2_kctx *k) { return reduce(k, &red_all); }

int cpu_prod(d2_kctx *k)
{
    return reduce(k, d2_dtype_is_float(k->in[0]->dtype) ? &red_prodd : &red_produ);
}

/* ---- argmax / argmin */

/* Index of the best element along rows of n elements spaced `inner` apart,
 * first one on ties; a NaN beats everything (the first NaN wins, like numpy).
 * best holds inner Ts. */
#define DEF_ARG(NAME, T, BETTER)                                                                   \
    static void NAME(const void *xv, int64_t outer, int64_t n, int64_t inner,                      \
                     int64_t *restrict idx, void *bestv)                                           \
    {                                                                                              \
        const T *restrict x = xv;                                                                  \
        T *restrict best = bestv;                                                                  \
        for (int64_t b = 0; b < outer; b++) {                                                      \
            const T *xb = x + b * n * inner;                                                       \
            int64_t *ib = idx + b * inner;                                                         \
            for (int64_t j = 0; j < inner; j++) {                                                  \
                best[j] = xb[j];                                                                   \
                ib[j] = 0;                                                                         \
            }                                                                                      \
            for (int64_t i = 1; i < n; i++)                                                        \
                for (int64_t j = 0; j < inner; j++) {                                              \
                    T v = xb[i * inner + j], s = best[j];                                          \
                    if (BETTER) {                                                                  \
                        best[j] = v;                                                               \
                        ib[j] = i;                                                                 \
                    }                                                                              \
                }                                                                                  \
        }                                                                                          \
    }
DEF_ARG(argmax_f32, float, v > s || (v != v && s == s))
DEF_ARG(argmax_f64, double, v > s || (v != v && s == s))
DEF_ARG(argmax_i32, int32_t, v > s)
DEF_ARG(argmax_i64, int64_t, v > s)
DEF_ARG(argmin_f32, float, v < s || (v != v && s == s))
DEF_ARG(argmin_f64, double, v < s || (v != v && s == s))
DEF_ARG(argmin_i32, int32_t, v < s)
DEF_ARG(argmin_i64, int64_t, v < s)

typedef void (*argfn)(const void *, int64_t, int64_t, int64_t, int64_t *, void *);

static int argminmax(d2_kctx *k, const argfn *tab)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    if ((unsigned)x->dtype >= NDT || !tab[x->dtype])
        return dtype_error(k, x->dtype);
    if (out->dtype != D2_I32 && out->dtype != D2_I64)
        return dtype_error(k, out->dtype);
    int64_t outer = 1, n = d2_tensor_numel(x), inner = 1;
    if (!ATTR_BOOL(k, "flatten")) {
        int a = d2_norm_axis(ATTR_INT(k, "axis"), x->ndim, k->def, k->err);
        if (a < 0)
            return -1;
        n = x->ndim ? x->shape[a] : 1;
        for (int i = 0; i < a; i++)
            outer *= x->shape[i];
        for (int i = a + 1; i < x->ndim; i++)
            inner *= x->shape[i];
    }
    int64_t nout = outer * inner;
    if (nout == 0)
        return 0;
    if (n == 0)
        return d2_err_set(k->err, D2_ERR_RUNTIME, "%s: cannot take the index over an empty axis",
                          k->def->name);
    if (out->dtype == D2_I32 && n > INT32_MAX)
        return d2_err_set(k->err, D2_ERR_RUNTIME,
                          "%s: axis of %lld elements does not fit dtype int32", k->def->name,
                          (long long)n);
    /* int64 indices go straight to the output; int32 ones through a buffer */
    bool direct = out->dtype == D2_I64;
    int64_t *idx = direct ? d2_tensor_data(out) : d2_malloc((size_t)nout * sizeof *idx);
    void *best = d2_malloc((size_t)inner * 8);
    if (idx && best) {
        tab[x->dtype](d2_tensor_data(x), outer, n, inner, idx, best);
        if (!direct) {
            int32_t *o = d2_tensor_data(out);
            for (int64_t i = 0; i < nout; i++)
                o[i] = (int32_t)idx[i];
        }
    }
    int rc = idx && best ? 0 : d2_err_set(k->err, D2_ERR_NOMEM, "%s: out of memory", k->def->name);
    if (!direct)
        d2_free(idx);
    d2_free(best);
    return rc;
}

int cpu_argmax(d2_kctx *k)
{
    static const argfn tab[NDT] = {argmax_f32, argmax_f64, argmax_i32, argmax_i64, NULL};
    return argminmax(k, tab);
}

int cpu_argmin(d2_kctx *k)
{
    static const argfn tab[NDT] = {argmin_f32, argmin_f64, argmin_i32, argmin_i64, NULL};
    return argminmax(k, tab);
}

/* ---- reduce_as: out[j] = sum of x[i] over the i that broadcast to j ---- */

#define DEF_REDUCE_AS(S, T, ADD)                                                                   \
    static void reduce_as_##S(const T *x, T *o, int nd, const int64_t *shape, const int64_t *ost,  \
                              int64_t n, int64_t nout)                                             \
    {                                                                                              \
        int64_t idx[D2_MAX_DIMS] = {0}, j = 0;                                                     \
        for (int64_t i = 0; i < nout; i++)                                                         \
            o[i] = 0;                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            o[j] = ADD(o[j], x[i]);                                                                \
            for (int d = nd - 1; d >= 0; d--) {                                                    \
                j += ost[d];                                                                       \
                if (++idx[d] < shape[d])                                                           \
                    break;                                                                         \
                j -= ost[d] * shape[d];                                                            \
                idx[d] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }
#define FADD(a, b) ((a) + (b))
DEF_REDUCE_AS(f32, float, FADD)
DEF_REDUCE_AS(f64, double, FADD)
DEF_REDUCE_AS(i32, int32_t, i32_add)
DEF_REDUCE_AS(i64, int64_t, i64_add)

int cpu_reduce_as(d2_kctx *k)
{
    d2_tensor *x = k->in[0], *out = k->out[0];
    int nd = x->ndim, off = x->ndim - out->ndim;
    if (off < 0)
        return d2_err_set(k->err, D2_ERR_SHAPE, "reduce_as: target has more dims than x");
    int64_t ost[D2_MAX_DIMS], cst[D2_MAX_DIMS];
    d2_contiguous_strides(out->ndim, out->shape, cst);
    for (int d = 0; d < nd; d++) {
        int64_t t = d >= off ? out->shape[d - off] : 1;
        if (t != 1 && t != x->shape[d])
            return d2_err_set(k->err, D2_ERR_SHAPE,
                              "reduce_as: target dim %d (%lld) does not broadcast to x's %lld",
                              d - off, (long long)t, (long long)x->shape[d]);
        ost[d] = d >= off && t != 1 ? cst[d - off] : 0;
    }
    int64_t n = d2_tensor_numel(x), nout = d2_tensor_numel(out);
    if (nout == 0)
        return 0;
    void *xd = d2_tensor_data(x), *od = d2_tensor_data(out);
    switch (x->dtype) {
    case D2_F32: reduce_as_f32(xd, od, nd, x->shape, ost, n, nout); break;
    case D2_F64: reduce_as_f64(xd, od, nd, x->shape, ost, n, nout); break;
    case D2_I32: reduce_as_i32(xd, od, nd, x->shape, ost, n, nout); break;
    case D2_I64: reduce_as_i64(xd, od, nd, x->shape, ost, n, nout); break;
    default: return dtype_error(k, x->dtype);
    }
    return 0;
}

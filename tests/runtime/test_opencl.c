/* test_opencl.c - OpenCL backend: every op against the CPU backend, golden files, error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "exec.h"
#include "opcase.h"
#ifdef DY2ST_HAVE_OPENCL
#define D2_OPENCL_INTERNAL /* for ocl_errname */
#endif
#include "opencl/opencl.h"
#include "program.h"
#include "../testutil.h"

static d2_backend *obe;

#define SKIP_WITHOUT_DEVICE()                                                                      \
    do {                                                                                           \
        if (!obe)                                                                                  \
            skip();                                                                                \
    } while (0)

/* ---- tolerances ----
 * An OpenCL result g passes against the CPU result c when |g - c| <= atol +
 * rtol * |c| (NaN matches NaN, infinities must be equal). Classes:
 *   EXACT  integer and bool outputs, data movement (shape ops, gather, cast,
 *          where, fill, arrays), comparisons: bit-exact (rtol = atol = 0).
 *   ARITH  float + - * / floor_divide remainder min max neg abs sign square
 *          relu floor ceil reciprocal scale clip leaky_relu dropout:
 *          float32 rtol 1e-6 atol 1e-7 (OpenCL's float division may be 2.5
 *          ulp off), float64 rtol 1e-14 atol 1e-15.
 *   MATH   transcendental functions, pow, softmax, reductions, normalisation,
 *          pooling: float32 rtol 1e-4 atol 1e-5, float64 rtol 1e-10 atol 1e-12.
 *   GEMM   matmul, linear, conv2d (inputs in [-1, 1], K up to 257): float32
 *          rtol 1e-4 atol 1e-4, float64 rtol 1e-10 atol 1e-10.
 * Integer and bool outputs are always compared exactly. */
enum tol_class { EXACT, ARITH, MATH, GEMM };

static void tolerance(enum tol_class c, d2_dtype dt, double *rtol, double *atol)
{
    static const double f32[4][2] = {{0, 0}, {1e-6, 1e-7}, {1e-4, 1e-5}, {1e-4, 1e-4}};
    static const double f64[4][2] = {{0, 0}, {1e-14, 1e-15}, {1e-10, 1e-12}, {1e-10, 1e-10}};
    *rtol = *atol = 0;
    if (dt == D2_F32) {
        *rtol = f32[c][0];
        *atol = f32[c][1];
    } else if (dt == D2_F64) {
        *rtol = f64[c][0];
        *atol = f64[c][1];
    }
}

/* ---- deterministic random inputs ---- */

static _Thread_local uint64_t rng_state;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double rng_unit(void) { return (double)(rng_next() >> 11) / 9007199254740992.0; }

static int64_t rng_int(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* Value number i of kind `kind` (see parse_input) as double. */
static double gen_value(d2_dtype dt, const char *kind, int64_t i)
{
    bool fl = d2_dtype_is_float(dt);
    if (strncmp(kind, "val", 3) == 0)
        return atof(kind + 3);
    if (strncmp(kind, "list", 4) == 0) {
        const char *p = kind + 4;
        int64_t n = 1;
        for (const char *q = p; *q; q++)
            n += *q == '/';
        for (int64_t j = i % n; j > 0; j--)
            p = strchr(p, '/') + 1;
        return atof(p);
    }
    if (dt == D2_BOOL)
        return (double)rng_int(0, 1);
    if (!kind[0])
        return fl ? rng_unit() * 4 - 2 : (double)rng_int(-20, 20);
    if (strcmp(kind, "pos") == 0)
        return fl ? 0.1 + rng_unit() * 3 : (double)rng_int(1, 20);
    if (strcmp(kind, "unit") == 0)
        return fl ? rng_unit() * 2 - 1 : (double)rng_int(-1, 1);
    if (strcmp(kind, "nz") == 0) {
        double v = fl ? 0.5 + rng_unit() * 2 : (double)rng_int(1, 9);
        return rng_int(0, 1) ? v : -v;
    }
    if (strcmp(kind, "few") == 0) {
        static const double few[] = {-1, 0, 0.5, 1, 2};
        double v = few[rng_int(0, 4)];
        return fl ? v : floor(v);
    }
    if (strcmp(kind, "wide") == 0) {
        static const double wide[] = {-3e10, -2.5, 0, 7.75, 1e9, 5e18, NAN, -INFINITY};
        return wide[rng_int(0, 7)];
    }
    if (strcmp(kind, "near1") == 0)
        return 0.8 + rng_unit() * 0.4;
    if (strcmp(kind, "expo") == 0)
        return (double)rng_int(0, 4);
    if (strcmp(kind, "nan") == 0) {
        double v = rng_unit() * 4 - 2;
        return rng_int(0, 5) == 0 ? NAN : v;
    }
    if (strncmp(kind, "idx", 3) == 0)
        return (double)rng_int(0, atoll(kind + 3) - 1);
    if (strncmp(kind, "ints", 4) == 0) {
        int64_t n = atoll(kind + 4);
        return (double)rng_int(-n, n);
    }
    fail_msg("unknown value kind '%s'", kind);
    return 0;
}

static void set_elem(d2_tensor *t, int64_t i, double v)
{
    void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_F32: ((float *)p)[i] = (float)v; break;
    case D2_F64: ((double *)p)[i] = v; break;
    case D2_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case D2_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    default: ((uint8_t *)p)[i] = v != 0; break;
    }
}

static d2_dtype dtype_of(const char *s, size_t n)
{
    static const char *names[] = {"f32", "f64", "i32", "i64", "b8"};
    static const d2_dtype dts[] = {D2_F32, D2_F64, D2_I32, D2_I64, D2_BOOL};
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
            return dts[i];
    fail_msg("bad dtype in '%s'", s);
    return D2_F32;
}

/* Parses one input spec into a CPU tensor:
 *   none                      absent optional input (NULL)
 *   f32[2,3]  i64[]  b8[0,4]  random values of the dtype's default kind
 *   f32[2,3]:kind             kinds: pos, unit, nz (nonzero), few (small set,
 *                             so comparisons hit equality), wide (out of int
 *                             range, NaN, inf), near1, expo (0..4), nan (some
 *                             NaN), idxN ([0, N)), intsN ([-N, N]), valV (all V),
 *                             listA/B/C (A, B, C, A, ...)
 *   arr:f32[2,3]x4[:kind]     tensor array of 4 such items (x0: empty)
 * *present is false for none. */
static d2_tensor *parse_input(const char *spec, bool *present)
{
    d2_err err = {0};
    *present = strcmp(spec, "none") != 0;
    if (!*present)
        return NULL;
    bool arr = strncmp(spec, "arr:", 4) == 0;
    const char *p = arr ? spec + 4 : spec;
    const char *lb = strchr(p, '[');
    assert_non_null(lb);
    d2_dtype dt = dtype_of(p, (size_t)(lb - p));
    int64_t shape[D2_MAX_DIMS];
    int nd = 0;
    p = lb + 1;
    while (*p != ']') {
        char *e;
        shape[nd++] = strtoll(p, &e, 10);
        p = *e == ',' ? e + 1 : e;
    }
    p++;
    int64_t items = 1;
    if (arr) {
        assert_true(*p == 'x');
        char *e;
        items = strtoll(p + 1, &e, 10);
        p = e;
    }
    const char *kind = *p == ':' ? p + 1 : "";
    d2_tensor *a = arr ? d2_tensor_array_new(dt, &err) : NULL;
    d2_tensor *t = NULL;
    for (int64_t j = 0; j < items; j++) {
        t = d2_tensor_new(NULL, dt, nd, shape, &err);
        assert_non_null(t);
        for (int64_t i = 0; i < d2_tensor_numel(t); i++)
            set_elem(t, i, gen_value(dt, kind, i));
        if (arr) {
            assert_int_equal(d2_tensor_array_set(a, j, t, &err), 0);
            d2_tensor_unref(t);
        }
    }
    return arr ? a : t;
}

/* ---- comparison ---- */

/* Compares an OpenCL result (any backend) with the CPU one; false with why. */
static bool same_value(const d2_tensor *want, const d2_tensor *got, enum tol_class tc, char *why,
                       size_t n)
{
    if (!want || !got) {
        snprintf(why, n, "missing output");
        return false;
    }
    if (want->kind != got->kind || want->dtype != got->dtype) {
        snprintf(why, n, "kind/dtype %d/%s, want %d/%s", got->kind, d2_dtype_name(got->dtype),
                 want->kind, d2_dtype_name(want->dtype));
        return false;
    }
    if (want->kind == D2_VALUE_ARRAY) {
        if (want->array_len != got->array_len) {
            snprintf(why, n, "array length %lld, want %lld", (long long)got->array_len,
                     (long long)want->array_len);
            return false;
        }
        for (int64_t j = 0; j < want->array_len; j++)
            if (!same_value(want->items[j], got->items[j], tc, why, n))
                return false;
        return true;
    }
    d2_shape ws, gs;
    d2_tensor_get_shape(want, &ws);
    d2_tensor_get_shape(got, &gs);
    if (!d2_shape_equal(&ws, &gs)) {
        char a[160], b[160];
        d2_shape_str(&gs, a, sizeof a);
        d2_shape_str(&ws, b, sizeof b);
        snprintf(why, n, "shape %s, want %s", a, b);
        return false;
    }
    d2_err err = {0};
    d2_tensor *g = d2_tensor_copy_to((d2_tensor *)got, NULL, &err);
    d2_tensor *w = d2_tensor_contiguous((d2_tensor *)want, &err);
    if (!g || !w) {
        snprintf(why, n, "cannot read the result: %s", err.msg);
        d2_tensor_unref(g);
        d2_tensor_unref(w);
        return false;
    }
    double rtol, atol;
    tolerance(tc, want->dtype, &rtol, &atol);
    bool ok = true;
    for (int64_t i = 0; i < d2_tensor_numel(w) && ok; i++) {
        if (d2_dtype_is_float(want->dtype)) {
            double a = d2_tensor_get_f64(g, i), e = d2_tensor_get_f64(w, i);
            bool same = isnan(e)   ? isnan(a)
                        : isinf(e) ? a == e
                                   : fabs(a - e) <= atol + rtol * fabs(e);
            if (tc == EXACT && !isnan(e))
                same = a == e && signbit(a) == signbit(e);
            if (!same) {
                snprintf(why, n, "element %lld is %.10g, want %.10g", (long long)i, a, e);
                ok = false;
            }
        } else if (d2_tensor_get_i64(g, i) != d2_tensor_get_i64(w, i)) {
            snprintf(why, n, "element %lld is %lld, want %lld", (long long)i,
                     (long long)d2_tensor_get_i64(g, i), (long long)d2_tensor_get_i64(w, i));
            ok = false;
        }
    }
    d2_tensor_unref(g);
    d2_tensor_unref(w);
    return ok;
}

/* ---- the case table ---- */

typedef struct {
    const char *op;
    const char *attrs; /* text form */
    const char *ins;   /* space-separated input specs (parse_input) */
    int n_out;         /* -1: the op's fixed output count */
    enum tol_class tol;
    const char *error; /* both backends must fail with this in the (same) message */
} opcase_t;

static opcase_t *cases;
static int n_cases, cap_cases;

static void add_case(const char *op, const char *attrs, const char *ins, enum tol_class tol)
{
    if (n_cases == cap_cases) {
        cap_cases = cap_cases ? cap_cases * 2 : 256;
        cases = realloc(cases, sizeof *cases * (size_t)cap_cases);
        assert_non_null(cases);
    }
    cases[n_cases++] = (opcase_t){op, attrs, ins, -1, tol, NULL};
}

static void add_error_case(const char *op, const char *attrs, const char *ins, const char *error)
{
    add_case(op, attrs, ins, EXACT);
    cases[n_cases - 1].error = error;
}

/* Interned "a b" strings built while generating cases (freed at exit). */
static char **strs;
static int n_strs;

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    strs = realloc(strs, sizeof *strs * (size_t)(n_strs + 1));
    assert_non_null(strs);
    strs[n_strs] = strdup(buf);
    return strs[n_strs++];
}

static const char *DT[] = {"f32", "f64", "i32", "i64", "b8"};

/* Special functions, activations, bitwise, scans, sorting and index ops
 * (ops_elem.c, ops_index.c). */
static void build_ext_cases(void)
{
    static const char *ushapes[] = {"[257]", "[3,7,33]", "[]", "[0,5]"};
    static const struct {
        const char *op, *attrs, *kind;
    } fl[] = {
        {"erf", "", ""},
        {"erfinv", "", ":unit"},
        {"lgamma", "", ":pos"},
        {"digamma", "", ":pos"},
        {"expm1", "", ""},
        {"log1p", "", ":pos"},
        {"log2", "", ":pos"},
        {"log10", "", ":pos"},
        {"tan", "", ":unit"},
        {"asin", "", ":unit"},
        {"acos", "", ":unit"},
        {"atan", "", ""},
        {"sinh", "", ""},
        {"cosh", "", ""},
        {"asinh", "", ""},
        {"acosh", "", ":near1"},
        {"atanh", "", ":unit"},
        {"trunc", "", ":nan"},
        {"round", "", ":nan"},
        {"softsign", "", ""},
        {"mish", "", ""},
        {"logsigmoid", "", ""},
        {"tanhshrink", "", ""},
        {"hardswish", "", ":nan"},
        {"softplus", "", ""},
        {"softplus", "beta = 2, threshold = 1", ""},
        {"elu", "alpha = 0.5", ":nan"},
        {"celu", "alpha = -2", ""},
        {"selu", "", ""},
        {"hardsigmoid", "slope = 0.3, offset = 0.2", ":nan"},
        {"hardshrink", "threshold = 0.7", ""},
        {"softshrink", "threshold = 0.3", ""},
        {"thresholded_relu", "threshold = 0.25", ""},
        {"stanh", "", ""},
        {"logit", "", ":unit"},
        {"logit", "eps = 0.25", ":unit"},
    };
    for (size_t u = 0; u < D2_COUNTOF(fl); u++)
        for (int d = 0; d < 2; d++)
            for (size_t s = 0; s < D2_COUNTOF(ushapes); s++)
                add_case(fl[u].op, fl[u].attrs, fmt("%s%s%s", DT[d], ushapes[s], fl[u].kind), MATH);
    add_error_case("celu", "alpha = 0", "f32[3]", "alpha must not be 0");
    add_error_case("elu", "", "i32[3]", "expected a float32 or float64 input");
    static const char *cls[] = {"isnan", "isinf", "isfinite"};
    for (size_t c = 0; c < D2_COUNTOF(cls); c++)
        for (int d = 0; d < 5; d++) {
            add_case(cls[c], "", fmt("%s[3,7,33]:wide", DT[d]), EXACT);
            add_case(cls[c], "", fmt("%s[]", DT[d]), EXACT);
        }
    static const char *bw[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
    for (size_t c = 0; c < D2_COUNTOF(bw); c++)
        for (int d = 2; d < 5; d++) {
            add_case(bw[c], "", fmt("%s[3,7]:ints1000 %s[7]:ints1000", DT[d], DT[d]), EXACT);
            add_case(bw[c], "", fmt("%s[] %s[2,3]", DT[d], DT[d]), EXACT);
        }
    for (int d = 2; d < 5; d++)
        add_case("bitwise_not", "", fmt("%s[33]:ints1000", DT[d]), EXACT);
    add_error_case("bitwise_and", "", "f32[3] f32[3]", "expected integer or bool inputs");
    for (int d = 2; d < 4; d++) {
        add_case("gcd", "", fmt("%s[3,7]:ints50 %s[7]:ints50", DT[d], DT[d]), EXACT);
        add_case("lcm", "", fmt("%s[3,7]:ints50 %s[7]:ints50", DT[d], DT[d]), EXACT);
    }

    static const char *cum[] = {"cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"};
    static const char *cum_attrs[] = {"", "axis = 0", "flatten = true",
                                      "axis = 1, exclusive = true, reverse = true"};
    for (size_t c = 0; c < D2_COUNTOF(cum); c++)
        for (int d = 0; d < 4; d++)
            for (size_t a = 0; a < D2_COUNTOF(cum_attrs); a++) {
                if ((c == 2 && d >= 2) || (c >= 3 && a == 3))
                    continue;
                add_case(cum[c], cum_attrs[a], fmt("%s[3,33]%s", DT[d], c == 1 ? ":near1" : ""),
                         d < 2 ? MATH : EXACT);
            }
    for (int d = 0; d < 5; d++) {
        add_case("argsort", "", fmt("%s[4,33]", DT[d]), EXACT);
        add_case("argsort", "axis = 0, descending = true", fmt("%s[5,7]", DT[d]), EXACT);
    }
    add_case("topk", "k = 3", "f32[4,33]", EXACT);
    add_case("dropout_train", "p = 0.3", "f32[4,33] i64[]:val5", EXACT);
    add_case("dropout_train", "p = 0.5, mode = \"downscale_in_infer\"", "f32[65] i32[]:val2", EXACT);
    add_case("topk", "k = 2, axis = 0, largest = false", "i64[5,7]", EXACT);
    for (int d = 0; d < 5; d++) {
        add_case("tril_triu", "diagonal = 1", fmt("%s[2,5,7]", DT[d]), EXACT);
        add_case("tril_triu", "diagonal = -1, lower = false", fmt("%s[5,7]", DT[d]), EXACT);
        add_case("flip", "axis = [0, 2]", fmt("%s[2,5,7]", DT[d]), EXACT);
        add_case("roll", "shifts = [2, -1], axis = [1, 2]", fmt("%s[2,5,7]", DT[d]), EXACT);
        add_case("roll", "shifts = [9]", fmt("%s[2,5,7]", DT[d]), EXACT);
    }
    /* linear algebra: LAPACK on host copies, so the CPU's results exactly */
    for (int d = 0; d < 2; d++) {
        add_case("inv", "", fmt("%s[2,4,4]", DT[d]), EXACT);
        add_case("det", "", fmt("%s[3,3,3]", DT[d]), EXACT);
        add_case("slogdet", "", fmt("%s[2,5,5]", DT[d]), EXACT);
        add_case("solve", "", fmt("%s[2,4,4] %s[2,4,3]", DT[d], DT[d]), EXACT);
        add_case("triangular_solve", "upper = false, transpose = true",
                 fmt("%s[2,4,4] %s[2,4,2]", DT[d], DT[d]), EXACT);
        add_case("qr", "", fmt("%s[2,5,3]", DT[d]), EXACT);
        add_case("qr", "mode = \"complete\"", fmt("%s[3,5]", DT[d]), EXACT);
        add_case("svd", "", fmt("%s[2,4,6]", DT[d]), EXACT);
        add_case("svd", "full_matrices = true", fmt("%s[5,3]", DT[d]), EXACT);
        add_case("eigh", "UPLO = \"U\"", fmt("%s[2,4,4]", DT[d]), EXACT);
        add_case("lu", "", fmt("%s[2,5,3]", DT[d]), EXACT);
        add_case("cholesky", "upper = true", fmt("%s[2,3,3]:list4/1/0.5/1/5/1/0.5/1/6", DT[d]),
                 EXACT);
    }
    add_case("gather_nd", "", "f32[5,6,7] i64[4,2]:idx5", EXACT);
    add_case("gather_nd", "", "i32[5,6] i32[3,1]:idx5", EXACT);
    add_case("scatter", "", "f32[5,6] i64[3]:idx5 f32[3,6]", EXACT);
    add_case("scatter", "overwrite = false", "f64[5,6] i32[4]:idx5 f64[4,6]", MATH);
    add_case("scatter_nd_add", "", "f32[5,6] i64[4,1]:idx5 f32[4,6]", MATH);
    add_case("scatter_nd_add", "", "i64[5,6] i64[7,2]:idx5 i64[7]", EXACT);
    add_case("take_along_axis", "axis = 1", "f32[4,6] i64[4,3]:idx6", EXACT);
    add_case("take_along_axis", "axis = 0", "i32[4,6] i64[2,1]:idx4", EXACT);
    add_case("put_along_axis", "axis = 1", "f32[4,6] i64[4,2]:idx6 f32[4,2]", EXACT);
    add_case("put_along_axis", "axis = 0, reduce = \"add\"", "f64[4,6] i64[3,6]:idx4 f64[]", MATH);
    add_error_case("gather_nd", "", "f32[5,6] i64[2,2]:val9", "out of range");
}

static void build_cases(void)
{
    /* elementwise binary: same shape (odd sizes), broadcasting both ways, 0-d, empty */
    static const char *pairs[][2] = {
        {"[257]", "[257]"},         {"[3,7,33]", "[7,1]"}, {"[]", "[3,1]"}, {"[1,33]", "[7,1]"},
        {"[2,3,4,5]", "[2,1,4,1]"}, {"[0,3]", "[3]"},      {"[7]", "[]"},
    };
    static const struct {
        const char *op, *xk, *yk;
        enum tol_class tol;
        bool bools;
    } bins[] = {
        {"add", "", "", ARITH, true},
        {"subtract", "", "", ARITH, false},
        {"multiply", "", "", ARITH, true},
        {"divide", "", ":nz", ARITH, false},
        {"floor_divide", "", ":nz", ARITH, false},
        {"remainder", "", ":nz", ARITH, false},
        {"pow", ":pos", "", MATH, false},
        {"maximum", ":nan", ":nan", ARITH, true},
        {"minimum", ":nan", ":nan", ARITH, true},
    };
    for (size_t b = 0; b < D2_COUNTOF(bins); b++)
        for (int d = 0; d < 5; d++) {
            if (d == 4 && !bins[b].bools)
                continue;
            for (size_t s = 0; s < D2_COUNTOF(pairs); s++) {
                const char *xk = bins[b].xk, *yk = bins[b].yk;
                if (d >= 2 && strcmp(bins[b].op, "pow") == 0) {
                    xk = ":ints5";
                    yk = ":expo";
                }
                if (d >= 2 && strcmp(xk, ":nan") == 0)
                    xk = yk = "";
                add_case(bins[b].op, "",
                         fmt("%s%s%s %s%s%s", DT[d], pairs[s][0], xk, DT[d], pairs[s][1], yk),
                         bins[b].tol);
            }
        }
    add_error_case("divide", "", "i32[7] i32[7]:val0", "integer division by zero");
    add_error_case("floor_divide", "", "i64[3,1] i64[4]:val0", "integer division by zero");
    add_error_case("remainder", "", "i32[5] i32[]:val0", "integer division by zero");
    add_error_case("pow", "", "i64[3]:val0 i64[3]:val-1", "negative integer power");
    /* relu's gradient: floats (the CPU kernel has no integer version) */
    for (int d = 0; d < 2; d++) {
        add_case("relu_grad", "", fmt("%s[3,7,33] %s[3,7,33]", DT[d], DT[d]), EXACT);
        add_case("relu_grad", "", fmt("%s[257]:nan %s[257]", DT[d], DT[d]), EXACT);
    }

    /* comparisons and logic: every dtype */
    static const char *cmps[] = {"equal",       "not_equal",    "less_than",
                                 "less_equal",  "greater_than", "greater_equal",
                                 "logical_and", "logical_or",   "logical_xor"};
    for (size_t c = 0; c < D2_COUNTOF(cmps); c++)
        for (int d = 0; d < 5; d++)
            for (size_t s = 0; s < 5; s++)
                add_case(cmps[c], "",
                         fmt("%s%s:few %s%s:few", DT[d], pairs[s][0], DT[d], pairs[s][1]), EXACT);
    for (int d = 0; d < 5; d++) {
        add_case("logical_not", "", fmt("%s[3,7,33]:few", DT[d]), EXACT);
        add_case("logical_not", "", fmt("%s[]:few", DT[d]), EXACT);
    }

    /* unary: odd sizes, 0-d, empty */
    static const char *ushapes[] = {"[257]", "[3,7,33]", "[]", "[0,5]"};
    static const struct {
        const char *op, *attrs, *kind;
        enum tol_class tol;
        bool ints;
    } uns[] = {
        {"neg", "", ":nan", ARITH, true},
        {"abs", "", "", ARITH, true},
        {"sign", "", ":few", ARITH, true},
        {"square", "", "", ARITH, true},
        {"relu", "", ":nan", ARITH, true},
        {"exp", "", "", MATH, false},
        {"log", "", ":pos", MATH, false},
        {"sqrt", "", ":pos", MATH, false},
        {"rsqrt", "", ":pos", MATH, false},
        {"reciprocal", "", ":nz", ARITH, false},
        {"floor", "", "", ARITH, false},
        {"ceil", "", "", ARITH, false},
        {"sin", "", "", MATH, false},
        {"cos", "", "", MATH, false},
        {"tanh", "", "", MATH, false},
        {"sigmoid", "", "", MATH, false},
        {"silu", "", "", MATH, false},
        {"erf", "", "", MATH, false},
        {"gelu", "", "", MATH, false},
        {"gelu", "approximate = true", "", MATH, false},
        {"leaky_relu", "", "", ARITH, false},
        {"leaky_relu", "negative_slope = 0.3", "", ARITH, false},
        {"scale", "scale = 2.5, bias = -1", "", ARITH, true},
        {"scale", "scale = -3, bias = 0.5, bias_after_scale = false", "", ARITH, true},
        {"clip", "min = -0.5, max = 1.25", "", ARITH, true},
        {"clip", "max = 3", "", ARITH, true},
        {"dropout", "", "", ARITH, false},
        {"dropout", "p = 0.25, mode = \"downscale_in_infer\"", "", ARITH, false},
        {"assign", "", "", EXACT, true},
    };
    for (size_t u = 0; u < D2_COUNTOF(uns); u++)
        for (int d = 0; d < 4; d++) {
            if (d >= 2 && !uns[u].ints)
                continue;
            const char *kind = d >= 2 && strcmp(uns[u].kind, ":nan") == 0 ? "" : uns[u].kind;
            for (size_t s = 0; s < D2_COUNTOF(ushapes); s++)
                add_case(uns[u].op, uns[u].attrs, fmt("%s%s%s", DT[d], ushapes[s], kind),
                         uns[u].tol);
        }
    add_case("assign", "", "b8[7,3]", EXACT);
    add_error_case("clip", "min = 2, max = 1", "f32[3]", "must not be greater than max");

    /* softmax / log_softmax along each axis, rows long enough for the work-group path */
    static const char *sm[][2] = {{"[7,33]", "axis = -1"},
                                  {"[7,33]", "axis = 0"},
                                  {"[2,3,5]", "axis = 1"},
                                  {"[3,257]", "axis = 1"},
                                  {"[4,1000]", ""},
                                  {"[]", ""},
                                  {"[0,3]", ""}};
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(sm); s++) {
            add_case("softmax", sm[s][1], fmt("%s%s", DT[d], sm[s][0]), MATH);
            add_case("log_softmax", sm[s][1], fmt("%s%s", DT[d], sm[s][0]), MATH);
        }

    /* cast: every pair of dtypes, including out-of-range and NaN floats */
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++) {
            static const char *names[] = {"float32", "float64", "int32", "int64", "bool"};
            add_case("cast", fmt("dtype = %s", names[b]), fmt("%s[3,7]", DT[a]), EXACT);
            if (a < 2)
                add_case("cast", fmt("dtype = %s", names[b]), fmt("%s[33]:wide", DT[a]), EXACT);
        }

    /* where: three-way broadcasting */
    for (int d = 0; d < 5; d++) {
        add_case("where", "", fmt("b8[3,1] %s[3,7] %s[7]", DT[d], DT[d]), EXACT);
        add_case("where", "", fmt("b8[257] %s[257] %s[]", DT[d], DT[d]), EXACT);
        add_case("where", "", fmt("b8[] %s[2,3] %s[2,3]", DT[d], DT[d]), EXACT);
    }

    /* reductions: all axes, single axes, several, keepdim, 0-d, long rows */
    static const char *rd[][2] = {
        {"[3,7,33]", ""},
        {"[3,7,33]", "axis = [1]"},
        {"[3,7,33]", "axis = [0, 2], keepdim = true"},
        {"[3,7,33]", "axis = [-1]"},
        {"[257]", "axis = [0]"},
        {"[3,300]", "axis = [1]"},
        {"[5000]", ""},
        {"[]", ""},
        {"[2,0,3]", "axis = [0]"},
    };
    static const struct {
        const char *op, *kind;
        unsigned dts; /* bit d: dtype DT[d] */
        enum tol_class tol;
    } reds[] = {
        {"sum", "", 0x1f, MATH},      {"mean", "", 0x3, MATH},       {"max", ":nan", 0xf, EXACT},
        {"min", "", 0xf, EXACT},      {"prod", ":near1", 0x3, MATH}, {"any", ":few", 0x1f, EXACT},
        {"all", ":few", 0x1f, EXACT}, {"amax", "", 0xf, EXACT},      {"amin", "", 0xf, EXACT},
    };
    for (size_t r = 0; r < D2_COUNTOF(reds); r++)
        for (int d = 0; d < 5; d++) {
            if (!(reds[r].dts >> d & 1))
                continue;
            for (size_t s = 0; s < D2_COUNTOF(rd); s++) {
                bool empty = strstr(rd[s][0], "0,") != NULL;
                if (empty && (strcmp(reds[r].op, "max") == 0 || strcmp(reds[r].op, "min") == 0 ||
                              strcmp(reds[r].op, "amax") == 0 || strcmp(reds[r].op, "amin") == 0))
                    continue;
                const char *kind = d >= 2 && strcmp(reds[r].kind, ":nan") == 0 ? "" : reds[r].kind;
                add_case(reds[r].op, rd[s][1], fmt("%s%s%s", DT[d], rd[s][0], kind), reds[r].tol);
            }
        }
    add_case("prod", "axis = [1]", "i32[4,5]:ints3", EXACT);
    add_case("prod", "", "i64[7]:ints3", EXACT);
    add_case("sum", "dtype = float64", "f32[3,7]", MATH);
    add_case("sum", "axis = [0], dtype = int32", "f32[5,3]:ints9", EXACT);
    add_case("sum", "axis = [1], dtype = float32", "i32[4,9]", MATH);
    add_error_case("max", "axis = [0]", "f32[0,3]", "empty axis");
    add_error_case("sum", "axis = [0, 0]", "f32[2,3]", "more than once");

    /* reduce_as: sums broadcast dims back to the target's shape */
    for (int d = 0; d < 4; d++) {
        add_case("reduce_as", "", fmt("%s[3,7,33] f32[7,1]", DT[d]), d < 2 ? MATH : EXACT);
        add_case("reduce_as", "", fmt("%s[2,3,4,5] %s[2,1,4,1]", DT[d], DT[d]),
                 d < 2 ? MATH : EXACT);
        add_case("reduce_as", "", fmt("%s[257] %s[]", DT[d], DT[d]), d < 2 ? MATH : EXACT);
        add_case("reduce_as", "", fmt("%s[3,4] %s[3,4]", DT[d], DT[d]), EXACT);
        add_case("reduce_as", "", fmt("%s[0,3] %s[1,3]", DT[d], DT[d]), EXACT);
    }

    /* argmax / argmin */
    static const char *am[][2] = {
        {"[7,33]", "axis = 1"},
        {"[7,33]", "axis = 0, keepdim = true"},
        {"[3,4,5]", "axis = -1"},
        {"[257]", ""},
        {"[3,4,5]", "flatten = true"},
        {"[6,7]", "axis = 1, dtype = int32"},
        {"[]", "axis = 0"},
    };
    for (int d = 0; d < 4; d++)
        for (size_t s = 0; s < D2_COUNTOF(am); s++) {
            add_case("argmax", am[s][1], fmt("%s%s%s", DT[d], am[s][0], d < 2 ? ":nan" : ":few"),
                     EXACT);
            add_case("argmin", am[s][1], fmt("%s%s:few", DT[d], am[s][0]), EXACT);
        }

    /* shape manipulation, every dtype (data moves by element size) */
    for (int d = 0; d < 5; d++) {
        const char *t = DT[d];
        add_case("reshape", "shape = [7, -1]", fmt("%s[3,7,3]", t), EXACT);
        add_case("reshape", "", fmt("%s[3,7] i64[3]:list7/-1/1", t), EXACT);
        add_case("reshape", "shape = []", fmt("%s[1,1]", t), EXACT);
        add_case("flatten", "start_axis = 1", fmt("%s[2,3,5]", t), EXACT);
        add_case("flatten", "", fmt("%s[]", t), EXACT);
        add_case("squeeze", "", fmt("%s[1,7,1,3]", t), EXACT);
        add_case("squeeze", "axis = [0]", fmt("%s[1,7,1]", t), EXACT);
        add_case("unsqueeze", "axis = [0, 3]", fmt("%s[7,3]", t), EXACT);
        add_case("unsqueeze", "axis = [0]", fmt("%s[]", t), EXACT);
        add_case("transpose", "perm = [1, 0]", fmt("%s[33,7]", t), EXACT);
        add_case("transpose", "perm = [2, 0, 3, 1]", fmt("%s[2,3,5,7]", t), EXACT);
        add_case("transpose", "perm = [0, 2, 1]", fmt("%s[1,257,3]", t), EXACT);
        add_case("transpose", "perm = []", fmt("%s[]", t), EXACT);
        add_case("concat", "axis = 1", fmt("%s[3,7] %s[3,1] %s[3,0] %s[3,33]", t, t, t, t), EXACT);
        add_case("concat", "axis = 0", fmt("%s[5] %s[257]", t, t), EXACT);
        add_case("concat", "axis = -1", fmt("%s[2,3,4] %s[2,3,1]", t, t), EXACT);
        add_case("stack", "axis = 0", fmt("%s[3,7] %s[3,7] %s[3,7]", t, t, t), EXACT);
        add_case("stack", "axis = -1", fmt("%s[5] %s[5]", t, t), EXACT);
        add_case("stack", "axis = 0", fmt("%s[] %s[]", t, t), EXACT);
        add_case("slice", "axes = [1], starts = [2], ends = [30]", fmt("%s[3,33]", t), EXACT);
        add_case("slice", "axes = [0, 1], starts = [-2, 0], ends = [100, -1], strides = [1, 3]",
                 fmt("%s[7,33]", t), EXACT);
        add_case("slice", "axes = [0], starts = [-1], ends = [-1000], strides = [-2]",
                 fmt("%s[257]", t), EXACT);
        add_case("slice", "axes = [1], starts = [3], ends = [4], decrease_axis = [1]",
                 fmt("%s[2,7,3]", t), EXACT);
        add_case("slice", "axes = [0], starts = [5], ends = [2]", fmt("%s[7]", t), EXACT);
        add_case("gather", "axis = 0", fmt("%s[7,3] i64[5]:idx7", t), EXACT);
        add_case("gather", "axis = 1", fmt("%s[2,33,3] i32[40]:idx33", t), EXACT);
        add_case("gather", "axis = 0", fmt("%s[5,2] i64[]:val3", t), EXACT);
        add_case("index_select", "axis = -1", fmt("%s[4,9] i64[3]:idx9", t), EXACT);
        add_case("index_select", "axis = 0", fmt("%s[257] i32[7]:idx257", t), EXACT);
        add_case("set_value", "axes = [0, 1], starts = [1, 0], ends = [3, 100], strides = [1, 2]",
                 fmt("%s[4,33] %s[17]", t, t), EXACT);
        add_case("set_value", "axes = [1], starts = [-1], ends = [2147483647], decrease_axis = [1]",
                 fmt("%s[5,3] %s[5]", t, t), EXACT);
        add_case("set_value", "", fmt("%s[2,3] %s[]", t, t), EXACT);
        add_case("index_put", "axis = 0", fmt("%s[7,3] %s[3] i64[4]:idx7", t, t), EXACT);
        add_case("index_put", "axis = 1", fmt("%s[2,9,3] %s[2,4,1] i32[4]:idx9", t, t), EXACT);
        add_case("index_put", "axis = 0", fmt("%s[5,6] %s[] i64[3]:idx5 i64[3]:idx6", t, t), EXACT);
        if (d != 4)
            add_case("index_put", "axis = 0, accumulate = true",
                     fmt("%s[5,3] %s[9,3] i64[9]:idx5", t, t), d < 2 ? MATH : EXACT);
        add_case("index_get", "axis = 1", fmt("%s[2,9,3] i32[4]:idx9", t), EXACT);
        add_case("index_get", "axis = 0", fmt("%s[5,6] i64[3]:idx5 i64[2,1]:idx6", t), EXACT);
        add_case("expand", "shape = [3, 7, 33]", fmt("%s[7,1]", t), EXACT);
        add_case("expand", "shape = [4, -1]", fmt("%s[1,5]", t), EXACT);
        add_case("expand", "", fmt("%s[] i64[2]:val3", t), EXACT);
        add_case("tile", "repeat_times = [2, 3]", fmt("%s[3,7]", t), EXACT);
        add_case("tile", "repeat_times = [3, 1, 2]", fmt("%s[5]", t), EXACT);
        add_case("full_like", "value = 3", fmt("%s[3,7]", t), EXACT);
        add_case("shape", "", fmt("%s[3,7,1]", t), EXACT);
        add_case("shape", "", fmt("%s[]", t), EXACT);
        add_case("numel", "", fmt("%s[3,0]", t), EXACT);
        add_case("numel", "", fmt("%s[2,33]", t), EXACT);
        add_case("split", "num = 3, axis = 1", fmt("%s[2,9]", t), EXACT);
        cases[n_cases - 1].n_out = 3;
        add_case("split", "sections = [2, -1, 3], axis = 0", fmt("%s[7,3]", t), EXACT);
        cases[n_cases - 1].n_out = 3;
    }
    add_case("split", "num = 1", "f32[4]", EXACT);
    cases[n_cases - 1].n_out = 1;
    add_error_case("gather", "axis = 0", "f32[7,3] i64[4]:val7", "out of range");
    add_error_case("index_select", "axis = 1", "i32[2,3] i32[2]:val-1", "out of range");
    static const char *fulls[] = {
        "shape = [3, 7], value = 1.5",           "shape = [33], value = -2, dtype = int32",
        "shape = [], value = 1, dtype = bool",   "shape = [2, 0], value = 4, dtype = float64",
        "shape = [5], value = 7, dtype = int64",
    };
    for (size_t f = 0; f < D2_COUNTOF(fulls); f++)
        add_case("full", fulls[f], "", EXACT);
    add_case("full", "value = 2", "i64[2]:val3", EXACT);
    add_case("full_like", "value = 0.25, dtype = float64", "i32[5]", EXACT);
    add_error_case("full", "shape = [2], value = 3e10, dtype = int32", "", "does not fit");
    static const char *aranges[] = {
        "start = 0, end = 257, step = 1",
        "start = 3, end = -4, step = -2",
        "start = 0.5, end = 3, step = 0.25, dtype = float32",
        "start = 1, end = 2, step = 0.1, dtype = float64",
        "start = 5, end = 40, step = 3, dtype = int32",
    };
    for (size_t a = 0; a < D2_COUNTOF(aranges); a++)
        add_case("arange", aranges[a], "", ARITH);
    add_case("arange", "dtype = float32", "i64[]:val2 f32[]:val9 f32[]:val0.5", ARITH);

    /* GEMM: tile edges (63, 64, 65), odd sizes, K = 257, batches with broadcasting, 1-d */
    static const char *mm[][2] = {
        {"[33,257] [257,7]", ""},
        {"[1,1] [1,1]", ""},
        {"[65,64] [64,63]", ""},
        {"[64,16] [16,64]", ""},
        {"[2,3,17,19] [19,5]", ""},
        {"[2,1,5,7] [3,7,4]", ""},
        {"[7] [7]", ""},
        {"[7] [7,3]", ""},
        {"[3,7] [7]", ""},
        {"[19,17] [19,5]", "transpose_x = true"},
        {"[17,19] [5,19]", "transpose_y = true"},
        {"[4,19,17] [4,5,19]", "transpose_x = true, transpose_y = true"},
        {"[3,0] [0,4]", ""},
        {"[0,5] [5,3]", ""},
        {"[129,70] [70,3]", ""},
    };
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(mm); s++) {
            char a[64], b[64];
            sscanf(mm[s][0], "%63s %63s", a, b);
            add_case("matmul", mm[s][1], fmt("%s%s:unit %s%s:unit", DT[d], a, DT[d], b), GEMM);
        }
    static const char *lin[] = {"[3,5,33]:unit [33,7]:unit [7]:unit", "[33]:unit [33,65]:unit none",
                                "[257,3]:unit [3,2]:unit [2]:unit",
                                "[4,0]:unit [0,3]:unit [3]:unit"};
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(lin); s++) {
            char a[64], b[64], c[64];
            sscanf(lin[s], "%63s %63s %63s", a, b, c);
            add_case("linear", "",
                     strcmp(c, "none") == 0 ? fmt("%s%s %s%s none", DT[d], a, DT[d], b)
                                            : fmt("%s%s %s%s %s%s", DT[d], a, DT[d], b, DT[d], c),
                     GEMM);
        }
    static const char *cv[][2] = {
        {"[2,3,9,9] [4,3,3,3] [4]", "paddings = [1, 1]"},
        {"[1,3,7,33] [5,3,3,3] none", "strides = [2, 2]"},
        {"[2,4,9,9] [4,2,3,3] [4]", "groups = 2, dilations = [2, 2], paddings = [2, 2]"},
        {"[2,6,7,7] [6,1,3,3] none", "groups = 6, paddings = [1, 1]"},
        {"[2,8,5,7] [3,8,1,1] [3]", ""},
        {"[1,3,10,9] [2,3,3,2] [2]", "padding_algorithm = \"SAME\", strides = [2, 3]"},
        {"[1,3,10,9] [2,3,3,2] none", "padding_algorithm = \"VALID\""},
        {"[1,2,6,6] [3,2,3,3] none", "paddings = [1, 0, 2, 1]"},
        {"[2,16,15,15] [33,16,3,3] [33]", "paddings = [1, 1]"},
    };
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(cv); s++) {
            char a[64], b[64], c[64];
            sscanf(cv[s][0], "%63s %63s %63s", a, b, c);
            add_case("conv2d", cv[s][1],
                     strcmp(c, "none") == 0
                         ? fmt("%s%s:unit %s%s:unit none", DT[d], a, DT[d], b)
                         : fmt("%s%s:unit %s%s:unit %s%s:unit", DT[d], a, DT[d], b, DT[d], c),
                     GEMM);
        }
    /* conv2d_fused: bias, residual and relu after the convolution */
    for (int d = 0; d < 2; d++) {
        add_case("conv2d_fused", "paddings = [1, 1], activation = \"relu\"",
                 fmt("%s[2,3,9,9]:unit %s[4,3,3,3]:unit %s[4]:unit %s[2,4,9,9]", DT[d], DT[d],
                     DT[d], DT[d]),
                 GEMM);
        add_case("conv2d_fused", "strides = [2, 2], activation = \"relu\"",
                 fmt("%s[1,3,7,33]:unit %s[5,3,3,3]:unit none none", DT[d], DT[d]), GEMM);
        add_case("conv2d_fused", "",
                 fmt("%s[2,8,5,7]:unit %s[3,8,1,1]:unit none %s[2,3,5,7]", DT[d], DT[d], DT[d]),
                 GEMM);
        add_case("conv2d_fused",
                 "paddings = [1, 1], activation = \"relu\", data_format = \"NHWC\"",
                 fmt("%s[2,9,7,3]:unit %s[4,3,3,3]:unit %s[4]:unit %s[2,9,7,4]", DT[d], DT[d],
                     DT[d], DT[d]),
                 GEMM);
    }
    /* linear_fused: bias, residual and each activation after the product */
    for (int d = 0; d < 2; d++) {
        add_case("linear_fused", "activation = \"gelu\"",
                 fmt("%s[2,3,17] %s[17,9] %s[9] none", DT[d], DT[d], DT[d]), GEMM);
        add_case("linear_fused", "activation = \"gelu_tanh\"",
                 fmt("%s[5,17] %s[17,9] none none", DT[d], DT[d]), GEMM);
        add_case("linear_fused", "activation = \"relu\"",
                 fmt("%s[2,3,17] %s[17,9] %s[9] %s[2,3,9]", DT[d], DT[d], DT[d], DT[d]), GEMM);
        add_case("linear_fused", "",
                 fmt("%s[4,17] %s[17,9] %s[9] %s[4,9]", DT[d], DT[d], DT[d], DT[d]), GEMM);
    }
    static const char *ct[][2] = {
        {"[2,3,5,4] [3,4,3,3] [4]", "strides = [2, 2], paddings = [1, 1]"},
        {"[1,4,4,5] [4,2,3,2] none", "groups = 2, strides = [2, 3], output_padding = [1, 0]"},
        {"[1,3,5,5] [3,1,3,3] [3]", "groups = 3, padding_algorithm = \"SAME\", strides = [2, 2]"},
        {"[1,2,4,4] [2,3,2,2] none", "dilations = [2, 2], output_size = [10, 9], strides = [2, 2]"},
    };
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(ct); s++) {
            char a[64], b[64], c[64];
            sscanf(ct[s][0], "%63s %63s %63s", a, b, c);
            add_case("conv2d_transpose", ct[s][1],
                     strcmp(c, "none") == 0
                         ? fmt("%s%s:unit %s%s:unit none", DT[d], a, DT[d], b)
                         : fmt("%s%s:unit %s%s:unit %s%s:unit", DT[d], a, DT[d], b, DT[d], c),
                     GEMM);
        }
    static const char *pl[] = {
        "ksize = [2, 2], strides = [2, 2]",
        "ksize = [3, 3], strides = [1, 1], paddings = [1, 1]",
        "pooling_type = \"avg\", ksize = [3, 3], strides = [2, 2], paddings = [1, 1]",
        "pooling_type = \"avg\", ksize = [3, 3], strides = [2, 2], paddings = [1, 1], exclusive = "
        "false",
        "pooling_type = \"avg\", ksize = [2, 3], strides = [2, 2], ceil_mode = true",
        "ksize = [3, 2], strides = [2, 1], paddings = [0, 1, 1, 0], ceil_mode = true",
        "global_pooling = true",
        "pooling_type = \"avg\", global_pooling = true",
        "adaptive = true, ksize = [3, 4]",
        "pooling_type = \"avg\", adaptive = true, ksize = [2, 5]",
    };
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < D2_COUNTOF(pl); s++) {
            add_case("pool2d", pl[s], fmt("%s[2,3,7,9]", DT[d]), MATH);
            if (s < 2)
                add_case("pool2d", pl[s], fmt("%s[1,2,33,1]", DT[d]), MATH);
        }
    /* the backward ops of conv2d and pool2d */
    for (int d = 0; d < 2; d++) {
        add_case("conv2d_grad_input", "strides = [2, 1], paddings = [1, 1]",
                 fmt("%s[2,2,5,4] %s[3,2,2,2]:unit %s[2,3,3,5]:unit", DT[d], DT[d], DT[d]), GEMM);
        add_case("conv2d_grad_filter", "groups = 2, dilations = [2, 1]",
                 fmt("%s[2,4,6,3]:unit %s[2,2,2,2] %s[2,2,4,2]:unit", DT[d], DT[d], DT[d]), GEMM);
        add_case("pool2d_grad", "ksize = [2, 2], strides = [2, 2]",
                 fmt("%s[1,2,4,4] %s[1,2,2,2] %s[1,2,2,2]", DT[d], DT[d], DT[d]), MATH);
        add_case("pool2d_grad", "pooling_type = \"avg\", ksize = [3, 3], paddings = [1, 1]",
                 fmt("%s[2,1,5,4] %s[2,1,5,4] %s[2,1,5,4]", DT[d], DT[d], DT[d]), MATH);
    }
    for (int d = 0; d < 2; d++) {
        const char *t = DT[d];
        add_case("batch_norm", "", fmt("%s[2,3,5,7] %s[3] %s[3]:pos %s[3] %s[3]", t, t, t, t, t),
                 MATH);
        add_case("batch_norm", "epsilon = 0.001",
                 fmt("%s[33,4] %s[4] %s[4]:pos %s[4] %s[4]", t, t, t, t, t), MATH);
        add_case("layer_norm", "", fmt("%s[3,7,33] %s[231] %s[231]", t, t, t), MATH);
        add_case("layer_norm", "begin_norm_axis = 2", fmt("%s[3,7,33] %s[33] none", t, t), MATH);
        add_case("layer_norm", "begin_norm_axis = -1", fmt("%s[5,1000] none %s[1000]", t, t), MATH);
        add_case("layer_norm", "begin_norm_axis = 0, epsilon = 0.1", fmt("%s[3] none none", t),
                 MATH);
        add_case("embedding", "", fmt("i64[3,5]:idx11 %s[11,7]", t), EXACT);
        add_case("embedding", "padding_idx = 2", fmt("i32[33]:idx4 %s[4,3]", t), EXACT);
        add_case("embedding", "padding_idx = -3", fmt("i64[]:val4 %s[5,2]", t), EXACT);
    }
    /* the fused ops of the elementwise fusion passes: their parts on the device against the
     * CPU's one-pass kernels (bias and scalar operands, a block tail, general broadcasting) */
    for (int d = 0; d < 2; d++) {
        const char *t = DT[d];
        add_case("fused_elementwise",
                 "expr = \"$0 sigmoid $1 multiply $2 sigmoid $3 tanh multiply add\"",
                 fmt("%s[3,331] %s[3,331] %s[3,331] %s[3,331]", t, t, t, t), MATH);
        add_case("fused_elementwise",
                 "expr = \"$0 $1 add 2 multiply 0.5 add gelu $2 divide silu\"",
                 fmt("%s[2,5,37] %s[37] %s[]:pos", t, t, t), MATH);
        add_case("fused_elementwise", "expr = \"$0 $1 subtract gelu_tanh relu neg exp\"",
                 fmt("%s[4,1] %s[1,9]", t, t), MATH);
        add_case("fused_elementwise", "expr = \"$0 square $0 abs divide\"", fmt("%s[257]", t),
                 MATH);
        add_case("add_layer_norm", "begin_norm_axis = 2",
                 fmt("%s[3,7,33] %s[3,7,33] %s[33] %s[33]", t, t, t, t), MATH);
        add_case("add_layer_norm", "epsilon = 0.1",
                 fmt("%s[5,40] %s[5,40] none none", t, t), MATH);
        add_case("batch_norm_act", "activation = \"relu\"",
                 fmt("%s[2,3,5,7] %s[3] %s[3]:pos %s[3] %s[3] %s[2,3,5,7]", t, t, t, t, t, t), MATH);
        add_case("batch_norm_act", "epsilon = 0.001",
                 fmt("%s[33,4] %s[4] %s[4]:pos %s[4] %s[4] none", t, t, t, t, t), MATH);
    }
    add_error_case("embedding", "", "i64[4]:val11 f32[11,7]", "out of range");
    add_error_case("matmul", "", "i32[2,3] i32[3,2]", "only float32 and float64");

    /* tensor arrays: the container on the host, items on the device */
    add_case("array_create", "dtype = int64", "", EXACT);
    add_case("array_write", "", "arr:f32[3,7]x2 i64[]:val2 f32[3,7]", EXACT);
    add_case("array_write", "", "arr:i32[5]x3 i64[]:val0 i32[5]", EXACT);
    add_case("array_write", "", "arr:f64[2]x0 i32[]:val0 f64[2]", EXACT);
    add_case("array_write", "", "arr:b8[2]x3 i64[]:val-1 b8[2]", EXACT);
    add_error_case("array_write", "", "arr:f32[2]x1 i64[]:val3 f32[2]", "out of range");
    add_case("array_read", "", "arr:f32[3,7]x4 i64[]:val3", EXACT);
    add_case("array_read", "", "arr:i64[2]x2 i32[]:val-2", EXACT);
    add_error_case("array_read", "", "arr:f32[3]x2 i64[]:val2", "out of range");
    add_case("array_length", "", "arr:f32[3]x5", EXACT);
    add_case("array_length", "", "arr:f32[3]x0", EXACT);
    for (int d = 0; d < 5; d++) {
        add_case("array_stack", "axis = 0", fmt("arr:%s[3,7]x4", DT[d]), EXACT);
        add_case("array_stack", "axis = -1", fmt("arr:%s[5]x3", DT[d]), EXACT);
        add_case("array_concat", "axis = 0", fmt("arr:%s[3,7]x4", DT[d]), EXACT);
        add_case("array_concat", "axis = 1", fmt("arr:%s[2,33]x2", DT[d]), EXACT);
    }
    add_error_case("array_stack", "", "arr:f32[3]x0", "empty");
    /* the array ops of gradients */
    add_case("array_zeros_like", "", "arr:f32[3,7]x3", EXACT);
    add_case("array_zeros_like", "", "arr:f64[5]x0", EXACT);
    add_case("array_add", "", "arr:f32[3,7]x3 arr:f32[3,7]x2", EXACT);
    add_case("array_add", "", "arr:f64[5]x0 arr:f64[5]x2", EXACT);
    add_case("array_unstack", "axis = 1", "f32[3,7]", EXACT);
    add_case("array_unstack", "axis = -3", "f64[4,2,3]", EXACT);
    add_case("array_split_like", "axis = 1", "f32[3,14] arr:f32[3,7]x2", EXACT);
    add_case("array_split_like", "axis = 0", "f64[6,2] arr:f64[3,2]x2", EXACT);
    add_error_case("array_split_like", "axis = 0", "f32[5,2] arr:f32[3,2]x2", "long");
    add_case("array_truncate", "", "arr:f32[3,7]x4 i64[]:val2", EXACT);
    add_case("array_truncate", "", "arr:f64[5]x2 i64[]:val0", EXACT);
    add_case("array_truncate", "", "arr:i32[2]x2 i64[]:val5", EXACT);
    add_error_case("array_truncate", "", "arr:f32[3]x2 i64[]:val-1", "negative");

    /* optimizer updates: param, grad, lr, then the state */
    for (int d = 0; d < 2; d++) {
        const char *t = DT[d];
        add_case("sgd", "", fmt("%s[3,5] %s[3,5] %s[]:val0.1", t, t, t), MATH);
        add_case("momentum", "", fmt("%s[33] %s[33] %s[1]:val0.1 %s[33]", t, t, t, t), MATH);
        add_case("momentum",
                 "use_nesterov = true, regularization_method = \"l2_decay\", "
                 "regularization_coeff = 0.01",
                 fmt("%s[2,3] %s[2,3] %s[]:val0.05 %s[2,3]", t, t, t, t), MATH);
        const char *adam_ins = fmt("%s[4,9] %s[4,9] %s[]:val0.01 %s[4,9] %s[4,9]:pos "
                                   "%s[1]:val0.81 %s[1]:val0.998",
                                   t, t, t, t, t, t, t);
        add_case("adam", "", adam_ins, MATH);
        add_case("adam", "beta1 = 0.5, epsilon = 0.001", adam_ins, MATH);
        add_case("adamw", "coeff = 0.1, lr_ratio = 0.5", adam_ins, MATH);
        add_case("adamw", "with_decay = false", adam_ins, MATH);
        add_case("lamb", "", adam_ins, MATH);
        add_case("lamb", "weight_decay = 0, beta2 = 0.9", adam_ins, MATH);
        add_case("lamb", "weight_decay = 0, always_adapt = true", adam_ins, MATH);
        const char *rms_ins =
            fmt("%s[5,3] %s[5,3] %s[]:val0.01 %s[5,3]:pos %s[5,3] %s[5,3]:unit", t, t, t, t, t, t);
        add_case("rmsprop", "", rms_ins, MATH);
        add_case("rmsprop", "centered = true, momentum = 0.9, rho = 0.9", rms_ins, MATH);
        add_case("adagrad", "epsilon = 0.0001", fmt("%s[6] %s[6] %s[]:val0.3 %s[6]:pos", t, t, t, t),
                 MATH);
    }
    add_error_case("sgd", "", "f32[3] f32[3] f32[2]", "one element");
    add_error_case("adam", "", "f32[3] f32[3] f32[] f32[3] f32[2] f32[1] f32[1]", "param");
    add_error_case("sgd", "", "i32[3] i32[3] i32[]", "float32 and float64");

    /* side effects (print writes to stdout) */
    add_case("print", "message = \"device print\"", "f32[2,3]", EXACT);
    add_case("print", "summarize = 3", "arr:i64[4]x2", EXACT);
    add_case("assert", "", "b8[3]:val1 f32[2]", EXACT);
    add_error_case("assert", "message = \"boom\"", "b8[3]:val0 f32[2]:val1.5 i64[]:val7", "boom");
}

/* ---- running a case on both backends ---- */

typedef struct {
    d2_tensor *in[16];
    int n_in;
    d2_attrs attrs;
    const d2_opdef *def;
} prepared_case;

static void prepare_case(const opcase_t *c, int index, prepared_case *pc)
{
    memset(pc, 0, sizeof *pc);
    d2_err err = {0};
    pc->def = d2_op_lookup(c->op, strlen(c->op));
    if (!pc->def)
        fail_msg("case %d: unknown op %s", index, c->op);
    if (d2_attrs_parse(pc->def, c->attrs, &pc->attrs, &err) < 0)
        fail_msg("case %d (%s): bad attrs '%s': %s", index, c->op, c->attrs, err.msg);
    rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)index * 0x2545f4914f6cdd1dull);
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", c->ins);
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        bool present;
        assert_true(pc->n_in < 16);
        pc->in[pc->n_in++] = parse_input(tok, &present);
    }
}

static void unprepare_case(prepared_case *pc)
{
    for (int i = 0; i < pc->n_in; i++)
        d2_tensor_unref(pc->in[i]);
    d2_attrs_free(&pc->attrs);
}

static int case_outputs(const opcase_t *c, const d2_opdef *def)
{
    return c->n_out >= 0 ? c->n_out : def->n_outs;
}

/* Runs case c on the CPU and through d2_op_run on OpenCL; returns false
 * (printing why) when they disagree. */
static bool run_case(const opcase_t *c, int index)
{
    prepared_case pc;
    prepare_case(c, index, &pc);
    int n_out = case_outputs(c, pc.def);
    d2_tensor *cout[8] = {0}, *gout[8] = {0}, *gin[16] = {0};
    d2_err cerr = {0}, gerr = {0};
    int crc = d2_op_run(NULL, pc.def->id, &pc.attrs, pc.in, pc.n_in, cout, n_out, &cerr);
    bool ok = true;
    char why[3000] = "";
    for (int i = 0; i < pc.n_in && ok; i++)
        if (pc.in[i] && !(gin[i] = d2_tensor_copy_to(pc.in[i], obe, &gerr))) {
            snprintf(why, sizeof why, "upload of input %d failed: %s", i, gerr.msg);
            ok = false;
        }
    int grc = ok ? d2_op_run(obe, pc.def->id, &pc.attrs, gin, pc.n_in, gout, n_out, &gerr) : -1;
    /* bad indices and integer division by zero surface at the next sync or download */
    if (ok && grc == 0)
        grc = obe->sync(obe, &gerr);
    if (!ok) {
        /* why is set */
    } else if (c->error) {
        if (crc == 0 || grc == 0) {
            snprintf(why, sizeof why, "expected both backends to fail (cpu rc %d, opencl rc %d)",
                     crc, grc);
            ok = false;
        } else if (!strstr(cerr.msg, c->error) || strcmp(cerr.msg, gerr.msg) != 0) {
            snprintf(why, sizeof why, "errors differ or lack '%s':\n  cpu:    %s\n  opencl: %s",
                     c->error, cerr.msg, gerr.msg);
            ok = false;
        }
    } else if (crc < 0) {
        snprintf(why, sizeof why, "the CPU reference failed: %s", cerr.msg);
        ok = false;
    } else if (grc < 0) {
        snprintf(why, sizeof why, "OpenCL failed: %s", gerr.msg);
        ok = false;
    } else {
        for (int i = 0; i < n_out && ok; i++) {
            char w[1200];
            if (!same_value(cout[i], gout[i], c->tol, w, sizeof w)) {
                snprintf(why, sizeof why, "output %d: %s", i, w);
                ok = false;
            }
            if (ok && gout[i]->kind == D2_VALUE_TENSOR && gout[i]->storage &&
                gout[i]->storage->backend != obe) {
                snprintf(why, sizeof why, "output %d is not on the OpenCL device", i);
                ok = false;
            }
        }
    }
    if (!ok)
        fprintf(stderr, "case %d: %s {%s} (%s): %s\n", index, c->op, c->attrs, c->ins, why);
    for (int i = 0; i < 8; i++) {
        d2_tensor_unref(cout[i]);
        d2_tensor_unref(gout[i]);
    }
    for (int i = 0; i < 16; i++)
        d2_tensor_unref(gin[i]);
    unprepare_case(&pc);
    return ok;
}

/* A device copy of host tensor t placed `off` elements into a larger buffer
 * (so kernels must honour d2_tensor.offset). */
static d2_tensor *device_at_offset(const d2_tensor *t, int64_t off, int64_t tail)
{
    d2_err err = {0};
    int64_t n = d2_tensor_numel(t), tot = n + off + tail;
    size_t es = d2_dtype_size(t->dtype);
    d2_tensor *big = d2_tensor_new(obe, t->dtype, 1, &tot, &err);
    assert_non_null(big);
    char *fill = malloc((size_t)tot * es);
    assert_non_null(fill);
    memset(fill, 0xA5, (size_t)tot * es);
    if (n)
        memcpy(fill + off * (int64_t)es, d2_tensor_data(t), (size_t)n * es);
    assert_int_equal(obe->upload(obe, big->storage->data, 0, fill, (size_t)tot * es, &err), 0);
    free(fill);
    d2_tensor *v = d2_tensor_reshape_view(big, 1, &tot, &err);
    assert_non_null(v);
    d2_tensor_unref(big);
    v->ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++)
        v->shape[d] = t->shape[d];
    d2_contiguous_strides(t->ndim, t->shape, v->strides);
    v->offset = off;
    return v;
}

/* True when the elements of t's storage outside [offset, offset + numel)
 * still hold the 0xA5 fill. */
static bool guards_intact(const d2_tensor *t)
{
    d2_err err = {0};
    size_t nb = t->storage->nbytes, es = d2_dtype_size(t->dtype);
    unsigned char *h = malloc(nb);
    assert_non_null(h);
    assert_int_equal(obe->download(obe, h, t->storage->data, 0, nb, &err), 0);
    size_t lo = (size_t)t->offset * es, hi = lo + (size_t)d2_tensor_numel(t) * es;
    bool ok = true;
    for (size_t i = 0; i < nb && ok; i++)
        if ((i < lo || i >= hi) && h[i] != 0xA5)
            ok = false;
    free(h);
    return ok;
}

/* Runs case c's OpenCL kernel directly with every input and output placed
 * at an offset inside a larger buffer; compares with the CPU and checks that
 * nothing outside the outputs was written. Ops that allocate their outputs,
 * side effects and error cases are skipped. */
static bool run_case_at_offset(const opcase_t *c, int index)
{
    d2_ops_init(NULL);
    const d2_opdef *def = d2_op_lookup(c->op, strlen(c->op));
    if (c->error || (def->flags & (D2_OPF_ALLOCS_OUTPUTS | D2_OPF_SIDE_EFFECT)))
        return true;
    prepared_case pc;
    prepare_case(c, index, &pc);
    for (int i = 0; i < pc.n_in; i++)
        if (pc.in[i] && pc.in[i]->kind == D2_VALUE_ARRAY) {
            unprepare_case(&pc);
            return true;
        }
    int n_out = case_outputs(c, def);
    d2_tensor *cout[8] = {0}, *gout[8] = {0}, *gin[16] = {0};
    d2_err err = {0};
    bool ok = d2_op_run(NULL, def->id, &pc.attrs, pc.in, pc.n_in, cout, n_out, &err) == 0;
    char why[3000] = "";
    if (!ok)
        snprintf(why, sizeof why, "the CPU reference failed: %s", err.msg);
    d2_type itypes[16], otypes[8];
    const d2_tensor *ivals[16];
    for (int i = 0; i < pc.n_in; i++) {
        itypes[i].kind = D2_VALUE_TENSOR;
        itypes[i].dtype = pc.in[i] ? pc.in[i]->dtype : (d2_dtype)-1;
        itypes[i].shape.ndim = 0;
        if (pc.in[i])
            d2_tensor_get_shape(pc.in[i], &itypes[i].shape);
        ivals[i] = pc.in[i];
        if (pc.in[i])
            gin[i] = device_at_offset(pc.in[i], 3 + i, 2);
    }
    if (ok && d2_op_infer(def, &pc.attrs, itypes, ivals, pc.n_in, otypes, n_out, &err) < 0) {
        snprintf(why, sizeof why, "inference failed: %s", err.msg);
        ok = false;
    }
    for (int i = 0; ok && i < n_out; i++) {
        d2_tensor *h =
            d2_tensor_new(NULL, otypes[i].dtype, otypes[i].shape.ndim, otypes[i].shape.dims, &err);
        assert_non_null(h);
        gout[i] = device_at_offset(h, 5 + i, 4);
        d2_tensor_unref(h);
    }
    if (ok) {
        d2_kernel_fn fn = obe->kernel(obe, def->id);
        d2_kctx k = {def, &pc.attrs, obe, pc.n_in, gin, n_out, gout, &err, NULL, 0, 0};
        if (fn(&k) < 0) {
            snprintf(why, sizeof why, "OpenCL failed: %s", err.msg);
            ok = false;
        }
    }
    for (int i = 0; ok && i < n_out; i++) {
        char w[1200];
        if (!same_value(cout[i], gout[i], c->tol, w, sizeof w)) {
            snprintf(why, sizeof why, "output %d: %s", i, w);
            ok = false;
        } else if (!guards_intact(gout[i])) {
            snprintf(why, sizeof why, "output %d: wrote outside its elements", i);
            ok = false;
        }
    }
    if (!ok)
        fprintf(stderr, "case %d at offsets: %s {%s} (%s): %s\n", index, c->op, c->attrs, c->ins,
                why);
    for (int i = 0; i < 8; i++) {
        d2_tensor_unref(cout[i]);
        d2_tensor_unref(gout[i]);
    }
    for (int i = 0; i < 16; i++)
        d2_tensor_unref(gin[i]);
    unprepare_case(&pc);
    return ok;
}

/* Every non-control op of the registry has an OpenCL kernel and at least one
 * conformance case (control ops are covered by whole programs below). */
static void test_every_op_covered(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    int missing = 0;
    for (int id = 0; id < D2_NUM_OPS; id++) {
        const d2_opdef *def = d2_op_def((d2_op_id)id);
        if (def->flags & D2_OPF_CONTROL)
            continue;
        if (!obe->kernel(obe, (d2_op_id)id)) {
            fprintf(stderr, "op %s has no OpenCL kernel\n", def->name);
            missing++;
        }
        bool has_case = false;
        for (int c = 0; c < n_cases && !has_case; c++)
            has_case = strcmp(cases[c].op, def->name) == 0 && !cases[c].error;
        if (!has_case) {
            fprintf(stderr, "op %s has no conformance case\n", def->name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

static void test_conformance(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    int failed = 0;
    for (int c = 0; c < n_cases; c++)
        if (!run_case(&cases[c], c))
            failed++;
    if (failed)
        fail_msg("%d of %d conformance cases failed", failed, n_cases);
}

static void test_conformance_at_offsets(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    int failed = 0;
    for (int c = 0; c < n_cases; c++)
        if (!run_case_at_offset(&cases[c], c))
            failed++;
    if (failed)
        fail_msg("%d of %d cases failed with offset operands", failed, n_cases);
}

/* The GEMM cases (matmul, linear, conv2d) with each GEMM kernel forced, so
 * the tiled local-memory kernel is checked whatever the device type picks. */
static void test_gemm_kernels(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    int failed = 0, run = 0;
    for (int mode = 0; mode <= 1; mode++) {
        d2_opencl_set_gemm_tiled(obe, mode);
        for (int c = 0; c < n_cases; c++) {
            const char *op = cases[c].op;
            if (strcmp(op, "matmul") && strcmp(op, "linear") && strcmp(op, "conv2d"))
                continue;
            run++;
            if (!run_case(&cases[c], c) || !run_case_at_offset(&cases[c], c)) {
                fprintf(stderr, "  (with the %s GEMM kernel)\n", mode ? "tiled" : "simple");
                failed++;
            }
        }
    }
    d2_opencl_set_gemm_tiled(obe, -1);
    assert_true(run > 40);
    if (failed)
        fail_msg("%d of %d GEMM cases failed", failed, run);
}

/* The golden op files (expected values from NumPy) replayed on the device. */
static void test_golden_op_files(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/golden", D2_SRCDIR);
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    int files = 0, failed = 0, total = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name);
        if (strncmp(de->d_name, "ops_", 4) != 0 || len < 5 || strcmp(de->d_name + len - 4, ".txt"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        int n = 0, f = opcase_run_file(obe, path, &n);
        if (f < 0)
            fail_msg("cannot read %s", path);
        failed += f;
        total += n;
        files++;
    }
    closedir(dp);
    assert_true(files > 0);
    assert_true(total > 0);
    if (failed)
        fail_msg("%d of %d golden op cases failed on OpenCL", failed, total);
}

/* ---- whole programs (cond, while_loop, arrays) ---- */

/* Parses "#> in DTYPE [dims] values" lines (the exec golden format). */
static d2_tensor *parse_case_value(const char *s)
{
    char name[16];
    int used = 0;
    if (sscanf(s, "%15s %n", name, &used) != 1)
        return NULL;
    int dt = d2_dtype_parse(name, strlen(name));
    s += used;
    if (dt < 0 || *s != '[')
        return NULL;
    int64_t shape[D2_MAX_DIMS];
    int nd = 0;
    s++;
    while (*s != ']') {
        char *e;
        shape[nd++] = strtoll(s, &e, 10);
        if (e == s)
            return NULL;
        s = *e == ',' ? e + 1 : e;
    }
    s++;
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, nd, shape, &err);
    for (int64_t i = 0; t && i < d2_tensor_numel(t); i++) {
        char *e;
        double v = strtod(s, &e);
        if (e == s) {
            d2_tensor_unref(t);
            return NULL;
        }
        set_elem(t, i, v);
        if (dt == D2_I64)
            ((int64_t *)d2_tensor_data(t))[i] = strtoll(s, NULL, 10);
        s = e;
    }
    return t;
}

/* Runs every "#> case" of one exec golden file on the CPU and on OpenCL:
 * both must match the expected outputs (and each other) or fail alike. */
static int run_program_file(const char *path, int *n_run)
{
    char *text = tu_read_file(path, NULL);
    if (!text)
        fail_msg("cannot read %s", path);
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, path, &err);
    if (!p)
        fail_msg("parse %s: %s", path, err.msg);
    d2_prepared *cpu_pp = d2_exec_prepare(p, NULL, &err);
    d2_prepared *ocl_pp = cpu_pp ? d2_exec_prepare(p, obe, &err) : NULL;
    if (!cpu_pp || !ocl_pp)
        fail_msg("prepare %s: %s", path, err.msg);
    int n_out = p->blocks[0].n_yields, failed = 0;
    d2_tensor *in[8] = {0}, *want[8] = {0};
    int n_in = 0, n_want = 0;
    char name[64] = "", error[256] = "";
    bool open = false;
    for (char *line = strtok(text, "\n");; line = strtok(NULL, "\n")) {
        bool is_case = line && strncmp(line, "#> case ", 8) == 0;
        if ((!line || is_case) && open) {
            d2_tensor *cout[8] = {0}, *gout[8] = {0};
            d2_err ce = {0}, ge = {0};
            int crc = d2_exec_run(cpu_pp, in, n_in, cout, n_out, &ce);
            int grc = d2_exec_run(ocl_pp, in, n_in, gout, n_out, &ge);
            char why[3000] = "";
            if (error[0]) {
                if (crc == 0 || grc == 0 || !strstr(ge.msg, error))
                    snprintf(why, sizeof why, "want errors with '%s'; cpu: %s; opencl: %s", error,
                             crc ? ce.msg : "ran", grc ? ge.msg : "ran");
            } else if (crc < 0 || grc < 0) {
                snprintf(why, sizeof why, "cpu: %s; opencl: %s", crc ? ce.msg : "ok",
                         grc ? ge.msg : "ok");
            } else {
                for (int i = 0; i < n_out && !why[0]; i++) {
                    char w[1200];
                    if (i < n_want && !same_value(want[i], gout[i], MATH, w, sizeof w))
                        snprintf(why, sizeof why, "output %d vs expected: %s", i, w);
                    else if (!same_value(cout[i], gout[i], MATH, w, sizeof w))
                        snprintf(why, sizeof why, "output %d vs cpu: %s", i, w);
                }
            }
            if (why[0]) {
                fprintf(stderr, "%s case %s: %s\n", path, name, why);
                failed++;
            }
            for (int i = 0; i < 8; i++) {
                d2_tensor_unref(cout[i]);
                d2_tensor_unref(gout[i]);
                d2_tensor_unref(in[i]);
                d2_tensor_unref(want[i]);
                in[i] = want[i] = NULL;
            }
            n_in = n_want = 0;
            error[0] = '\0';
            open = false;
            (*n_run)++;
        }
        if (!line)
            break;
        if (is_case) {
            snprintf(name, sizeof name, "%s", line + 8);
            open = true;
        } else if (strncmp(line, "#> in ", 6) == 0 && n_in < 8) {
            in[n_in++] = parse_case_value(line + 6);
        } else if (strncmp(line, "#> out ", 7) == 0 && n_want < 8) {
            want[n_want++] = parse_case_value(line + 7);
        } else if (strncmp(line, "#> error ", 9) == 0) {
            snprintf(error, sizeof error, "%s", line + 9);
        }
    }
    d2_exec_free(cpu_pp);
    d2_exec_free(ocl_pp);
    d2_program_free(p);
    free(text);
    return failed;
}

static void test_golden_programs(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/golden/exec", D2_SRCDIR);
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    int failed = 0, n = 0, files = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".txt") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        failed += run_program_file(path, &n);
        files++;
    }
    closedir(dp);
    assert_true(files > 0 && n > 0);
    if (failed)
        fail_msg("%d of %d program cases failed on OpenCL", failed, n);
}

/* A while_loop with a cond inside, built with the builder: x is doubled
 * while its sum is below a limit, and negated on odd steps. */
static void test_built_program(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    static const char *text = "param limit : float32[] = [1000]\n"
                              "param two : float32[] = [2]\n"
                              "param one : int64[] = [1]\n"
                              "param twoi : int64[] = [2]\n"
                              "param zero : int64[] = [0]\n"
                              "block ^0 (x : float32[-1,3]) {\n"
                              "  i : int64[], y : float32[-1,3] = while_loop(zero, x) "
                              "{cond = ^1, body = ^2}\n"
                              "  s : float32[] = sum(y)\n"
                              "  return i, y, s\n"
                              "}\n"
                              "block ^1 parent ^0 (ci : int64[], cy : float32[-1,3]) {\n"
                              "  a : float32[-1,3] = abs(cy)\n"
                              "  t : float32[] = sum(a)\n"
                              "  c : bool[] = less_than(t, limit)\n"
                              "  yield c\n"
                              "}\n"
                              "block ^2 parent ^0 (bi : int64[], by : float32[-1,3]) {\n"
                              "  r : int64[] = remainder(bi, twoi)\n"
                              "  odd : bool[] = equal(r, zero)\n"
                              "  d : float32[-1,3] = multiply(by, two)\n"
                              "  n : float32[-1,3] = cond(odd, d) {then = ^3, else = ^4}\n"
                              "  i2 : int64[] = add(bi, one)\n"
                              "  yield i2, n\n"
                              "}\n"
                              "block ^3 parent ^2 (tv : float32[-1,3]) {\n"
                              "  ng : float32[-1,3] = neg(tv)\n"
                              "  yield ng\n"
                              "}\n"
                              "block ^4 parent ^2 (ev : float32[-1,3]) {\n"
                              "  yield ev\n"
                              "}\n";
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, "built", &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    d2_prepared *cpp = d2_exec_prepare(p, NULL, &err), *gpp = d2_exec_prepare(p, obe, &err);
    if (!cpp || !gpp)
        fail_msg("prepare: %s", err.msg);
    for (int rows = 1; rows <= 33; rows += 16) {
        int64_t shape[2] = {rows, 3};
        d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
        rng_state = 42 + (uint64_t)rows;
        for (int64_t i = 0; i < rows * 3; i++)
            set_elem(x, i, gen_value(D2_F32, "unit", i));
        d2_tensor *co[3] = {0}, *go[3] = {0};
        assert_int_equal(d2_exec_run(cpp, &x, 1, co, 3, &err), 0);
        if (d2_exec_run(gpp, &x, 1, go, 3, &err) < 0)
            fail_msg("opencl run: %s", err.msg);
        char why[1200];
        for (int i = 0; i < 3; i++)
            if (!same_value(co[i], go[i], MATH, why, sizeof why))
                fail_msg("rows %d output %d: %s", rows, i, why);
        assert_true(d2_tensor_get_i64(co[0], 0) > 3);
        for (int i = 0; i < 3; i++) {
            d2_tensor_unref(co[i]);
            d2_tensor_unref(go[i]);
        }
        d2_tensor_unref(x);
    }
    d2_exec_free(cpp);
    d2_exec_free(gpp);
    d2_program_free(p);
}

/* The sample MLP program (linear, relu, while_loop) on both backends. */
static void test_sample_program(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    char path[512];
    snprintf(path, sizeof path, "%s/samples/programs/mlp_loop.d2p", D2_SRCDIR);
    char *text = tu_read_file(path, NULL);
    if (!text)
        skip();
    d2_err err = {0};
    d2_program *p = d2_program_parse(text, path, &err);
    free(text);
    if (!p)
        fail_msg("parse: %s", err.msg);
    d2_prepared *cpp = d2_exec_prepare(p, NULL, &err), *gpp = d2_exec_prepare(p, obe, &err);
    if (!cpp || !gpp)
        fail_msg("prepare: %s", err.msg);
    int n_out = p->blocks[0].n_yields;
    int64_t shape[2] = {7, 4};
    d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
    rng_state = 7;
    for (int64_t i = 0; i < 28; i++)
        set_elem(x, i, gen_value(D2_F32, "", i));
    d2_tensor *co[8] = {0}, *go[8] = {0};
    assert_true(n_out <= 8);
    assert_int_equal(d2_exec_run(cpp, &x, 1, co, n_out, &err), 0);
    if (d2_exec_run(gpp, &x, 1, go, n_out, &err) < 0)
        fail_msg("opencl run: %s", err.msg);
    char why[1200];
    for (int i = 0; i < n_out; i++)
        if (!same_value(co[i], go[i], MATH, why, sizeof why))
            fail_msg("output %d: %s", i, why);
    for (int i = 0; i < n_out; i++) {
        d2_tensor_unref(co[i]);
        d2_tensor_unref(go[i]);
    }
    d2_tensor_unref(x);
    d2_exec_free(cpp);
    d2_exec_free(gpp);
    d2_program_free(p);
}

/* ---- whole Programs stay on the device ----
 * A while_loop whose body runs a matmul, a cond and a gather: per iteration
 * the host reads back exactly the while_loop's and the cond's one-element
 * predicates (4 and 1 bytes) and nothing else; the inputs are the only
 * uploads; once the pool is warm, further runs and more iterations create no
 * new device buffers. */
static const char loop_program[] =
    "param w : float32[8,8] = [\n"
    "  0.5, -0.25, 0, 0.125, 0.25, 0, -0.5, 0.25, 0, 0.5, -0.25, 0, 0.125, 0.25, 0, -0.5,\n"
    "  0.25, 0, 0.5, -0.25, 0, 0.125, 0.25, 0, -0.5, 0.25, 0, 0.5, -0.25, 0, 0.125, 0.25,\n"
    "  0, -0.5, 0.25, 0, 0.5, -0.25, 0, 0.125, 0.25, 0, -0.5, 0.25, 0, 0.5, -0.25, 0,\n"
    "  0.125, 0.25, 0, -0.5, 0.25, 0, 0.5, -0.25, 0, 0.125, 0.25, 0, -0.5, 0.25, 0, 0.5\n"
    "]\n"
    "param idx : int64[8] = [7, 6, 5, 4, 3, 2, 1, 0]\n"
    "\n"
    "block ^0 (x : float32[-1,8], n : int32[]) {\n"
    "  i0 : int32[] = full(_) {shape = [], value = 0, dtype = int32}\n"
    "  steps : int32[], h : float32[-1,8] = while_loop(i0, x) {cond = ^1, body = ^2}\n"
    "  return h, steps\n"
    "}\n"
    "\n"
    "block ^1 parent ^0 (ci : int32[], ch : float32[-1,8]) {\n"
    "  more : bool[] = less_than(ci, n)\n"
    "  yield more\n"
    "}\n"
    "\n"
    "block ^2 parent ^0 (bi : int32[], bh : float32[-1,8]) {\n"
    "  one : int32[] = full(_) {shape = [], value = 1, dtype = int32}\n"
    "  bi1 : int32[] = add(bi, one)\n"
    "  m : float32[-1,8] = matmul(bh, w)\n"
    "  t : float32[-1,8] = tanh(m)\n"
    "  g : float32[-1,8] = gather(t, idx) {axis = 1}\n"
    "  s : float32[] = sum(g) {axis = []}\n"
    "  zero : float32[] = full(_) {shape = [], value = 0, dtype = float32}\n"
    "  pos : bool[] = greater_than(s, zero)\n"
    "  r : float32[-1,8] = cond(pos, g) {then = ^3, else = ^4}\n"
    "  yield bi1, r\n"
    "}\n"
    "\n"
    "block ^3 parent ^2 (a : float32[-1,8]) {\n"
    "  half : float32[] = full(_) {shape = [], value = 0.5, dtype = float32}\n"
    "  a2 : float32[-1,8] = multiply(a, half)\n"
    "  yield a2\n"
    "}\n"
    "\n"
    "block ^4 parent ^2 (b : float32[-1,8]) {\n"
    "  onef : float32[] = full(_) {shape = [], value = 1, dtype = float32}\n"
    "  b2 : float32[-1,8] = add(b, onef)\n"
    "  yield b2\n"
    "}\n";

/* Runs loop_program with n iterations on both backends, checks the outputs
 * agree and returns the OpenCL counters of the run alone (not the download
 * of the outputs). */
static void run_loop_program(d2_prepared *cpp, d2_prepared *gpp, int n, d2_opencl_stats *st)
{
    d2_err err = {0};
    int64_t shape[2] = {5, 8};
    d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
    d2_tensor *nt = d2_tensor_new(NULL, D2_I32, 0, NULL, &err);
    assert_non_null(x);
    assert_non_null(nt);
    rng_state = 11;
    for (int64_t i = 0; i < 40; i++)
        set_elem(x, i, gen_value(D2_F32, "", i));
    set_elem(nt, 0, n);
    d2_tensor *in[2] = {x, nt}, *co[2] = {0}, *go[2] = {0};
    assert_int_equal(d2_exec_run(cpp, in, 2, co, 2, &err), 0);
    d2_opencl_reset_stats(obe);
    if (d2_exec_run(gpp, in, 2, go, 2, &err) < 0)
        fail_msg("opencl run: %s", err.msg);
    d2_opencl_get_stats(obe, st);
    assert_ptr_equal(go[0]->storage->backend, obe);
    char why[1200];
    for (int i = 0; i < 2; i++)
        if (!same_value(co[i], go[i], GEMM, why, sizeof why))
            fail_msg("output %d: %s", i, why);
    for (int i = 0; i < 2; i++) {
        d2_tensor_unref(co[i]);
        d2_tensor_unref(go[i]);
    }
    d2_tensor_unref(x);
    d2_tensor_unref(nt);
}

static void test_program_stays_on_device(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    d2_program *p = d2_program_parse(loop_program, "loop_program", &err);
    if (!p)
        fail_msg("parse: %s", err.msg);
    d2_prepared *cpp = d2_exec_prepare(p, NULL, &err), *gpp = d2_exec_prepare(p, obe, &err);
    if (!cpp || !gpp)
        fail_msg("prepare: %s", err.msg);
    d2_opencl_stats st;
    run_loop_program(cpp, gpp, 2, &st); /* warms the buffer pool and the kernels */
    static const int iters[] = {3, 12, 1, 0};
    for (size_t r = 0; r < D2_COUNTOF(iters); r++) {
        int n = iters[r];
        run_loop_program(cpp, gpp, n, &st);
        /* the inputs x and n go up; nothing else does */
        assert_int_equal(st.uploads, 2);
        assert_int_equal(st.upload_bytes, 5 * 8 * 4 + 4);
        /* n + 1 while_loop predicates (bool) and n cond predicates (bool) */
        /* ... each read together with the flags of the gathers since the last
         * one (4 bytes each, at most one pending here) */
        if (st.downloads != (uint64_t)(2 * n + 1) || st.download_bytes > (uint64_t)(5 * (2 * n + 1)))
            fail_msg("%d iterations: %llu downloads (%llu bytes), expected %d one-byte predicates",
                     n, (unsigned long long)st.downloads, (unsigned long long)st.download_bytes,
                     2 * n + 1);
        assert_true(st.launches >= (uint64_t)(6 * n));
        /* every buffer comes from the pool */
        if (st.buffers_created != 0)
            fail_msg("%d iterations: %llu new device buffers (%llu reused)", n,
                     (unsigned long long)st.buffers_created, (unsigned long long)st.buffers_reused);
        assert_true(st.buffers_reused >= (uint64_t)(4 * n));
    }
    /* a bad index inside the loop is reported by the next predicate read */
    {
        d2_program *q = d2_program_parse(loop_program, "loop_program", &err);
        assert_non_null(q);
        for (int v = 0; v < q->n_vars; v++)
            if (strcmp(q->vars[v].name, "idx") == 0)
                set_elem(q->vars[v].data, 3, 8);
        d2_prepared *qp = d2_exec_prepare(q, obe, &err);
        assert_non_null(qp);
        int64_t shape[2] = {5, 8};
        d2_tensor *x = d2_tensor_new(NULL, D2_F32, 2, shape, &err);
        d2_tensor *nt = d2_tensor_new(NULL, D2_I32, 0, NULL, &err);
        for (int64_t i = 0; i < 40; i++)
            set_elem(x, i, 0.25);
        set_elem(nt, 0, 3);
        d2_tensor *in[2] = {x, nt}, *go[2] = {0};
        assert_int_equal(d2_exec_run(qp, in, 2, go, 2, &err), -1);
        if (!strstr(err.msg, "gather: index 8 (at position 3) is out of range for axis 1 of size 8"))
            fail_msg("bad index: %s", err.msg);
        assert_null(go[0]);
        d2_tensor_unref(x);
        d2_tensor_unref(nt);
        d2_exec_free(qp);
        d2_program_free(q);
        d2_err_clear(&err);
    }
    /* an emptied pool refills: the first run creates, the next reuses */
    d2_opencl_trim_pool(obe);
    run_loop_program(cpp, gpp, 4, &st);
    assert_true(st.buffers_created > 0);
    run_loop_program(cpp, gpp, 9, &st);
    assert_int_equal(st.buffers_created, 0);
    d2_exec_free(cpp);
    d2_exec_free(gpp);
    d2_program_free(p);
}

/* ---- concurrency: kernels shared by threads ---- */

typedef struct {
    int seed, failures;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *ta = p;
    const opcase_t jobs[] = {
        {"matmul", "", "f32[65,33]:unit f32[33,17]:unit", -1, GEMM, NULL},
        {"add", "", "i64[7,33] i64[33]", -1, EXACT, NULL},
        {"sum", "axis = [1]", "f32[5,300]", -1, MATH, NULL},
        {"gather", "axis = 0", "f32[9,4] i64[6]:idx9", -1, EXACT, NULL},
        {"softmax", "", "f32[3,130]", -1, MATH, NULL},
    };
    for (int it = 0; it < 12; it++) {
        const opcase_t *c = &jobs[(it + ta->seed) % 5];
        if (!run_case(c, 100000 + ta->seed * 100 + it))
            ta->failures++;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    pthread_t th[4];
    thread_arg ta[4];
    for (int i = 0; i < 4; i++) {
        ta[i] = (thread_arg){i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &ta[i]), 0);
    }
    int failures = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        failures += ta[i].failures;
    }
    assert_int_equal(failures, 0);
}

/* ---- device and error paths ---- */

static void test_devices_and_names(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    d2_buf b;
    d2_buf_init(&b);
    int n = d2_opencl_list_devices(&b, &err);
    assert_true(n >= 1);
    assert_non_null(b.data);
    assert_non_null(strstr(b.data, "0: "));
    d2_buf_free(&b);
    assert_ptr_equal(d2_opencl_backend(0, &err), obe);
    assert_ptr_equal(d2_backend_from_name("opencl", &err), obe);
    assert_ptr_equal(d2_backend_from_name("opencl:0", &err), obe);
    assert_ptr_equal(d2_backend_from_name("cpu", &err), d2_cpu_backend());
    assert_int_equal(obe->kind, D2_BACKEND_OPENCL);

    d2_err_clear(&err);
    assert_null(d2_opencl_backend(n + 5, &err));
    assert_int_equal(err.code, D2_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "out of range"));
    d2_err_clear(&err);
    assert_null(d2_backend_from_name("opencl:99", &err));
    assert_int_equal(err.code, D2_ERR_DEVICE);
    static const char *bad[] = {"gpu", "opencl:", "opencl:x", "opencl:-1", "opencl:1x", ""};
    for (size_t i = 0; i < D2_COUNTOF(bad); i++) {
        d2_err_clear(&err);
        assert_null(d2_backend_from_name(bad[i], &err));
        assert_int_equal(err.code, D2_ERR_INVALID);
        assert_non_null(strstr(err.msg, "unknown device"));
    }
}

static void test_build_failure_shows_log(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    assert_int_equal(
        d2_opencl_build_source(obe, "__kernel void ok(__global float *x) { x[0] = 1; }", &err), 0);
    int rc = d2_opencl_build_source(
        obe, "__kernel void broken(__global float *x) { x[0] = no_such_symbol_d2; }", &err);
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, D2_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "build failed"));
    assert_non_null(strstr(err.msg, "CL_BUILD_PROGRAM_FAILURE"));
    assert_non_null(strstr(err.msg, "no_such_symbol_d2"));
}

static void test_missing_loader(void **state)
{
    (void)state;
    d2_err err = {0};
    assert_int_equal(d2_opencl_probe_loader("libdy2st-no-such-opencl.so.1", &err), -1);
    assert_int_equal(err.code, D2_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "cannot load the OpenCL ICD loader"));
    SKIP_WITHOUT_DEVICE();
    d2_err_clear(&err);
    assert_int_equal(d2_opencl_probe_loader("libOpenCL.so.1", &err), 0);
}

/* A fresh process whose ICD loader finds no vendor files reports that no
 * platform exists (the probe is this program run with --no-platform-probe). */
static void test_no_platform(void **state)
{
    (void)state;
    char self[1024], cmd[1400], out[2048] = "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        skip();
    self[n] = '\0';
    snprintf(cmd, sizeof cmd, "OCL_ICD_VENDORS=/nonexistent-dy2st-vendors '%s' --no-platform-probe",
             self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int status = pclose(p);
    if (!strstr(out, "no OpenCL platform"))
        fail_msg("probe printed '%s' (status %d)", out, status);
    assert_int_equal(status, 0);
}

/* DY2ST_OPENCL_LIBRARY names the ICD loader; a missing one is a clear error
 * that names the variable (a fresh process again: discovery runs once). */
static void test_loader_override(void **state)
{
    (void)state;
    char self[1024], cmd[1400], out[2048] = "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        skip();
    self[n] = '\0';
    snprintf(cmd, sizeof cmd,
             "DY2ST_OPENCL_LIBRARY=/nonexistent-dy2st/libOpenCL.so.1 '%s' --no-platform-probe", self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int status = pclose(p);
    if (!strstr(out, "cannot load the OpenCL ICD loader /nonexistent-dy2st/libOpenCL.so.1") ||
        !strstr(out, "named by DY2ST_OPENCL_LIBRARY"))
        fail_msg("probe printed '%s' (status %d)", out, status);
    assert_int_equal(status, 0);
}

static int no_platform_probe(void)
{
    d2_err err = {0};
    d2_backend *be = d2_opencl_backend(0, &err);
    printf("%s\n", be ? "found a device" : err.msg);
    return !be && err.code == D2_ERR_DEVICE ? 0 : 1;
}

/* cl error codes are reported by name. */
static void test_error_names(void **state)
{
    (void)state;
#ifdef DY2ST_HAVE_OPENCL
    assert_string_equal(ocl_errname(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
    assert_string_equal(ocl_errname(CL_MEM_OBJECT_ALLOCATION_FAILURE),
                        "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    assert_string_equal(ocl_errname(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
    assert_string_equal(ocl_errname(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    assert_string_equal(ocl_errname(-9999), "CL_UNKNOWN_ERROR");
#else
    skip();
#endif
}

static void test_allocation_failure(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    int64_t huge = (int64_t)1 << 50;
    assert_null(d2_tensor_new(obe, D2_F32, 1, &huge, &err));
    assert_int_equal(err.code, D2_ERR_NOMEM);
    assert_non_null(strstr(err.msg, "cannot allocate"));
    /* an empty tensor still gets a buffer */
    int64_t zero = 0;
    d2_err_clear(&err);
    d2_tensor *t = d2_tensor_new(obe, D2_I64, 1, &zero, &err);
    assert_non_null(t);
    assert_non_null(t->storage->data);
    d2_tensor_unref(t);
}

static void test_float64_without_extension(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    int64_t n = 3;
    d2_tensor *x = d2_tensor_new(obe, D2_F64, 1, &n, &err), *out = NULL;
    assert_non_null(x);
    d2_opencl_set_fp64(obe, false);
    int rc = d2_op_run(obe, D2_OP_exp, NULL, &x, 1, &out, 1, &err);
    d2_opencl_set_fp64(obe, true);
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, D2_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "cl_khr_fp64"));
    d2_tensor_unref(x);
}

/* The storage dtypes (float16, bfloat16, int8, int16, uint8) have no OpenCL
 * kernels: a cast into or out of one is refused with the dtype named, and a
 * tensor of one can still live on the device and come back intact. */
static void test_storage_dtypes_refused(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    static const d2_dtype dts[] = {D2_F16, D2_BF16, D2_I8, D2_I16, D2_U8};
    const d2_opdef *def = d2_op_def(D2_OP_cast);
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        d2_err err = {0};
        char a[64];
        snprintf(a, sizeof a, "dtype = %s", d2_dtype_name(dts[i]));
        d2_attrs attrs;
        assert_int_equal(d2_attrs_parse(def, a, &attrs, &err), 0);
        int64_t n = 4;
        d2_tensor *x = d2_tensor_new(obe, D2_F32, 1, &n, &err), *out = NULL;
        assert_non_null(x);
        assert_int_equal(d2_op_run(obe, D2_OP_cast, &attrs, &x, 1, &out, 1, &err), -1);
        assert_null(out);
        char want[96];
        snprintf(want, sizeof want, "cast: dtype %s has no OpenCL kernels", d2_dtype_name(dts[i]));
        assert_non_null(strstr(err.msg, want));
        d2_attrs_free(&attrs);
        d2_tensor_unref(x);
        /* storage round trip */
        static const unsigned char bytes[4] = {1, 0x80, 0xff, 7};
        int64_t m = 4 / (int64_t)d2_dtype_size(dts[i]);
        d2_tensor *h = d2_tensor_from_data(dts[i], 1, &m, bytes, &err);
        assert_non_null(h);
        d2_tensor *d = d2_tensor_copy_to(h, obe, &err);
        assert_non_null(d);
        d2_tensor *back = d2_tensor_copy_to(d, NULL, &err);
        assert_non_null(back);
        assert_memory_equal(d2_tensor_data(back), bytes, 4);
        d2_tensor_unref(back);
        d2_tensor_unref(d);
        d2_tensor_unref(h);
    }
}

static void test_input_on_wrong_backend(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    d2_err err = {0};
    d2_tensor *a = d2_tensor_scalar_f32(1, &err), *b = d2_tensor_scalar_f32(2, &err);
    d2_tensor *in[2] = {a, b}, *out = NULL;
    assert_int_equal(d2_op_run(obe, D2_OP_add, NULL, in, 2, &out, 1, &err), -1);
    assert_non_null(strstr(err.msg, "is on the cpu backend"));
    assert_null(out);
    d2_tensor_unref(a);
    d2_tensor_unref(b);
}

/* Allocation failure injected at every allocation of an OpenCL op run gives
 * D2_ERR_NOMEM and leaks nothing (the sanitizer build checks the leaks). */
static void test_out_of_memory(void **state)
{
    (void)state;
    SKIP_WITHOUT_DEVICE();
    static const opcase_t ops[] = {
        {"divide", "", "i32[7,3] i32[3]:nz", -1, EXACT, NULL},
        {"gather", "axis = 1", "f32[3,9] i64[4]:idx9", -1, EXACT, NULL},
        {"conv2d", "paddings = [1, 1]", "f32[1,2,5,5] f32[3,2,3,3] f32[3]", -1, GEMM, NULL},
        {"sum", "axis = [1]", "i32[3,300]", -1, EXACT, NULL},
        {"argmax", "axis = 0, dtype = int32", "f32[5,3]", -1, EXACT, NULL},
        {"where", "", "b8[3,1] f64[3,7] f64[7]", -1, EXACT, NULL},
        {"arange", "dtype = float32", "i64[]:val2 f32[]:val9 f32[]:val0.5", -1, EXACT, NULL},
        {"array_write", "", "arr:f32[3]x2 i64[]:val1 f32[3]", -1, EXACT, NULL},
        {"array_stack", "axis = 0", "arr:f32[3]x4", -1, EXACT, NULL},
        {"assert", "", "b8[2]:val1 f32[2]", -1, EXACT, NULL},
    };
    for (size_t o = 0; o < D2_COUNTOF(ops); o++) {
        prepared_case pc;
        prepare_case(&ops[o], 200000 + (int)o, &pc);
        d2_tensor *gin[16] = {0};
        d2_err err = {0};
        for (int i = 0; i < pc.n_in; i++)
            if (pc.in[i])
                assert_non_null(gin[i] = d2_tensor_copy_to(pc.in[i], obe, &err));
        int n_out = case_outputs(&ops[o], pc.def), k;
        char why[1200] = "";
        for (k = 0; k < 200; k++) {
            d2_tensor *out[4] = {0};
            d2_err_clear(&err);
            d2_alloc_fail_after(k);
            int rc = d2_op_run(obe, pc.def->id, &pc.attrs, gin, pc.n_in, out, n_out, &err);
            d2_alloc_fail_after(-1);
            for (int i = 0; i < 4; i++)
                d2_tensor_unref(out[i]);
            if (rc == 0)
                break;
            if (err.code != D2_ERR_NOMEM) {
                snprintf(why, sizeof why, "%s with allocation %d failing: %s (%s)", ops[o].op, k,
                         err.msg, d2_errcode_name(err.code));
                break;
            }
        }
        for (int i = 0; i < 16; i++)
            d2_tensor_unref(gin[i]);
        unprepare_case(&pc);
        if (why[0])
            fail_msg("%s", why);
        assert_true(k < 200);
    }
}

/* Builds the case list once; exits 77 (skip) when no device exists. */
int main(int argc, char **argv)
{
    d2_err err = {0};
    if (argc > 1 && strcmp(argv[1], "--no-platform-probe") == 0)
        return no_platform_probe();
    if (d2_ops_init(&err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    obe = d2_opencl_backend(0, &err);
    if (!obe) {
        printf("SKIP: no OpenCL device: %s\n", err.msg);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_covered),
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_conformance_at_offsets),
        cmocka_unit_test(test_gemm_kernels),
        cmocka_unit_test(test_golden_op_files),
        cmocka_unit_test(test_storage_dtypes_refused),
        cmocka_unit_test(test_golden_programs),
        cmocka_unit_test(test_built_program),
        cmocka_unit_test(test_sample_program),
        cmocka_unit_test(test_program_stays_on_device),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_devices_and_names),
        cmocka_unit_test(test_build_failure_shows_log),
        cmocka_unit_test(test_missing_loader),
        cmocka_unit_test(test_no_platform),
        cmocka_unit_test(test_loader_override),
        cmocka_unit_test(test_error_names),
        cmocka_unit_test(test_allocation_failure),
        cmocka_unit_test(test_float64_without_extension),
        cmocka_unit_test(test_input_on_wrong_backend),
        cmocka_unit_test(test_out_of_memory),
    };
    build_cases();
    build_ext_cases();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    for (int i = 0; i < n_strs; i++)
        free(strs[i]);
    free(strs);
    free(cases);
    return rc;
}

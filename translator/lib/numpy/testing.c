/* testing.c - numpy.testing: assert_allclose and friends with NumPy's failure messages. */
#include "lib/numpy/numpy_priv.h"

#include <math.h>
#include <stdio.h>

static void err_array_line(d2_interp *I, d2_buf *b, const char *name, d2_tensor *t)
{
    d2_obj *r = d2_np_format(I, t, true);
    if (!r) {
        d2_exc_clear(I);
        return;
    }
    const char *s = D2_AS(d2_str, r)->s;
    d2_buf_printf(b, "\n %s: ", name);
    int lines = 0;
    for (const char *p = s; *p; p++)
        if (*p == '\n')
            lines++;
    if (lines > 3) {
        int seen = 0;
        const char *p = s;
        for (; *p; p++) {
            if (*p == '\n' && ++seen == 3)
                break;
        }
        d2_buf_append(b, s, (size_t)(p - s));
        d2_buf_puts(b, "...");
    } else {
        d2_buf_puts(b, s);
    }
    d2_decref(r);
}

static void shape_str(d2_buf *b, const d2_tensor *t)
{
    d2_buf_puts(b, "(");
    for (int i = 0; i < t->ndim; i++)
        d2_buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    d2_buf_puts(b, t->ndim == 1 ? ",)" : ")");
}

/* assert_allclose / assert_array_equal: raises AssertionError with NumPy's message. */
static d2_obj *assert_compare(d2_interp *I, const char *fname, d2_obj *ao, d2_obj *bo, double rtol,
                              double atol, bool exact, bool equal_nan, const char *err_msg)
{
    d2_tensor *x = arr(I, ao, -1, fname);
    d2_tensor *y = x ? arr(I, bo, -1, fname) : NULL;
    if (!y) {
        if (x)
            d2_tensor_unref(x);
        return NULL;
    }
    d2_buf b;
    d2_buf_init(&b);
    char header[128];
    if (exact)
        snprintf(header, sizeof header, "Arrays are not equal");
    else
        snprintf(header, sizeof header, "Not equal to tolerance rtol=%g, atol=%g", rtol, atol);
    d2_buf_printf(&b, "\n%s", header);
    bool user = err_msg && err_msg[0];
    bool fail = false;
    bool shapes_ok = x->ndim == 0 || y->ndim == 0 || d2np_same_shape(x, y);
    if (!shapes_ok) {
        fail = true;
        if (user)
            d2_buf_printf(&b, "\n%s", err_msg);
        d2_buf_puts(&b, "\n\n(shapes ");
        shape_str(&b, x);
        d2_buf_puts(&b, ", ");
        shape_str(&b, y);
        d2_buf_puts(&b, " mismatch)");
    } else {
        d2_tensor *bx, *by;
        if (d2np_bcast_f64(I, fname, x, y, &bx, &by) < 0) {
            d2_buf_free(&b);
            d2_tensor_unref(x);
            d2_tensor_unref(y);
            return NULL;
        }
        int64_t n = d2_tensor_numel(bx), mism = 0, cnt = 0;
        double max_abs = 0, max_rel = 0;
        bool any_nz = false, ints = !d2_dtype_is_float(x->dtype) && !d2_dtype_is_float(y->dtype);
        for (int64_t i = 0; i < n; i++) {
            double u = d2_tensor_get_f64(bx, i), v = d2_tensor_get_f64(by, i);
            bool ok = exact ? (u == v || (equal_nan && isnan(u) && isnan(v)))
                            : d2np_close_enough(u, v, rtol, atol, equal_nan);
            if (!ok)
                mism++;
            if (isnan(u) && isnan(v) && equal_nan)
                continue;
            cnt++;
            double e = fabs(u - v);
            if (e > max_abs || isnan(e))
                max_abs = e;
            if (v != 0) {
                any_nz = true;
                double r = e / fabs(v);
                if (r > max_rel || isnan(r))
                    max_rel = r;
            }
        }
        if (mism > 0) {
            fail = true;
            d2_buf_printf(&b, "\n%s%sMismatched elements: %lld / %lld (", user ? err_msg : "", "\n",
                          (long long)mism, (long long)n);
            char pct[32];
            snprintf(pct, sizeof pct, "%.3g", 100.0 * (double)mism / (double)n);
            d2_buf_printf(&b, "%s%%)\nMax absolute difference: ", pct);
            d2np_format_value(&b, max_abs, ints ? D2_I64 : D2_F64);
            d2_buf_puts(&b, "\nMax relative difference: ");
            if (any_nz)
                d2np_format_value(&b, max_rel, D2_F64);
            else
                d2_buf_puts(&b, "inf");
        }
        d2_tensor_unref(bx);
        d2_tensor_unref(by);
    }
    d2_obj *r = d2_none(I);
    if (fail) {
        err_array_line(I, &b, "x", x);
        err_array_line(I, &b, "y", y);
        d2_decref(r);
        r = d2_raise(I, "AssertionError", "%s", b.data ? b.data : "");
    }
    d2_buf_free(&b);
    d2_tensor_unref(x);
    d2_tensor_unref(y);
    return r;
}

/* a[0] actual, a[1] desired, a[2] rtol, a[3] atol, a[4] equal_nan, a[5] err_msg,
 * a[6] verbose */
D2_FN(t_assert_allclose)
{
    const char *fname = "numpy.testing.assert_allclose";
    double rtol, atol;
    if (d2_to_double(I, a[2], "rtol", &rtol) < 0 || d2_to_double(I, a[3], "atol", &atol) < 0)
        return NULL;
    const char *em = d2_to_cstr(I, a[5], "err_msg");
    if (!em)
        return NULL;
    bool eqn = !is_pynum(a[4]) || D2_AS(d2_int, a[4])->v;
    return assert_compare(I, fname, a[0], a[1], rtol, atol, false, eqn, em);
}

D2_FN(t_assert_array_equal) /* a[0] x, a[1] y, a[2] err_msg, a[3] verbose */
{
    const char *fname = "numpy.testing.assert_array_equal";
    const char *em = d2_to_cstr(I, a[2], "err_msg");
    if (!em)
        return NULL;
    return assert_compare(I, fname, a[0], a[1], 0, 0, true, true, em);
}

/* a[0] actual, a[1] desired, a[2] decimal, a[3] err_msg, a[4] verbose */
D2_FN(t_assert_almost_equal)
{
    const char *fname = "numpy.testing.assert_array_almost_equal";
    int64_t dec;
    if (d2_to_int64(I, a[2], "decimal", &dec) < 0)
        return NULL;
    const char *em = d2_to_cstr(I, a[3], "err_msg");
    if (!em)
        return NULL;
    return assert_compare(I, fname, a[0], a[1], 0, 1.5 * pow(10.0, (double)-dec), false, true, em);
}

static const d2_def TESTING_DEFS[] = {
    D2_DEF("assert_allclose",
           "actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg='', verbose=True",
           t_assert_allclose, "numpy.testing.assert_allclose"),
    D2_DEF("assert_array_equal", "x, y, err_msg='', verbose=True", t_assert_array_equal,
           "numpy.testing.assert_array_equal"),
    D2_DEF("assert_equal", "x, y, err_msg='', verbose=True", t_assert_array_equal,
           "numpy.testing.assert_array_equal"),
    D2_DEF("assert_array_almost_equal", "actual, desired, decimal=6, err_msg='', verbose=True",
           t_assert_almost_equal, "numpy.testing.assert_array_almost_equal"),
    D2_DEF("assert_almost_equal", "actual, desired, decimal=6, err_msg='', verbose=True",
           t_assert_almost_equal, "numpy.testing.assert_array_almost_equal"),
};

int d2np_testing_init(d2_interp *I, d2_module *tst)
{
    return d2_module_add_defs(I, tst, TESTING_DEFS, D2_COUNTOF(TESTING_DEFS));
}

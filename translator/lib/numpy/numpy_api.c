/* numpy_api.c - the NumPy subset: ndarray, math, legacy random streams, printing, .npy I/O. */
#include "lib/paddle/tensor_api.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "syntax/ast.h"
#include "npy.h"

/* ======================================================================
 * Printing: NumPy's array2string (defaults: precision 8, floatmode
 * 'maxprec', linewidth 75, threshold 1000, edgeitems 3) and scalar reprs
 * ====================================================================== */

/* Shortest decimal digits that read back to v (as float32 when f32):
 * digits "d1d2..dn" (no dot) and the exponent e with v = d1.d2..dn x 10^e. */
static void shortest(double v, bool f32, char *digits, int *nd, int *e10)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        bool ok = f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v;
        if (ok || p == 17)
            break;
    }
    /* buf: [-]d.ddde[+-]xx */
    const char *q = buf;
    if (*q == '-')
        q++;
    int n = 0;
    for (; *q && *q != 'e'; q++)
        if (*q != '.')
            digits[n++] = *q;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    *nd = n;
    *e10 = *q == 'e' ? atoi(q + 1) : 0;
}

/* Positional digits of |v| with at most `prec` fraction digits (rounded when
 * the shortest form has more); int part and fraction (trailing zeros cut). */
static void positional(double v, bool f32, int prec, char *ip, char *fp)
{
    char dg[32];
    int nd, e;
    double a = fabs(v);
    shortest(a, f32, dg, &nd, &e);
    int frac_digits = nd - 1 - e;
    if (a == 0) {
        strcpy(ip, "0");
        fp[0] = 0;
        return;
    }
    if (frac_digits > prec) {
        char buf[400];
        snprintf(buf, sizeof buf, "%.*f", prec, a);
        char *dot = strchr(buf, '.');
        if (dot) {
            *dot = 0;
            strcpy(ip, buf);
            strcpy(fp, dot + 1);
        } else {
            strcpy(ip, buf);
            fp[0] = 0;
        }
        size_t l = strlen(fp);
        while (l > 0 && fp[l - 1] == '0')
            fp[--l] = 0;
        return;
    }
    /* digits placed around the decimal point */
    int ni = 0, nf = 0;
    if (e < 0) {
        ip[ni++] = '0';
        for (int k = 0; k < -e - 1; k++)
            fp[nf++] = '0';
        for (int k = 0; k < nd; k++)
            fp[nf++] = dg[k];
    } else {
        for (int k = 0; k <= e; k++)
            ip[ni++] = k < nd ? dg[k] : '0';
        for (int k = e + 1; k < nd; k++)
            fp[nf++] = dg[k];
    }
    ip[ni] = 0;
    fp[nf] = 0;
}

/* Scientific digits of |v|: mantissa int digit, fraction (at most prec
 * digits, rounded; trailing zeros cut) and exponent. */
static void scientific(double v, bool f32, int prec, char *ip, char *fp, int *e10)
{
    char dg[32];
    int nd, e;
    double a = fabs(v);
    shortest(a, f32, dg, &nd, &e);
    if (nd - 1 > prec) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*e", prec, a);
        ip[0] = buf[0];
        ip[1] = 0;
        int n = 0;
        const char *q = buf + 2;
        for (; *q && *q != 'e'; q++)
            fp[n++] = *q;
        while (n > 0 && fp[n - 1] == '0')
            n--;
        fp[n] = 0;
        *e10 = atoi(q + 1);
        return;
    }
    ip[0] = dg[0];
    ip[1] = 0;
    memcpy(fp, dg + 1, (size_t)nd - 1);
    fp[nd - 1] = 0;
    *e10 = e;
}

void d2_np_format_scalar(d2_buf *b, const d2_tensor *t, int64_t i)
{
    if (t->dtype == D2_BOOL) {
        d2_buf_puts(b, d2_tensor_get_i64(t, i) ? "True" : "False");
        return;
    }
    if (!d2_dtype_is_float(t->dtype)) {
        d2_buf_printf(b, "%" PRId64, d2_tensor_get_i64(t, i));
        return;
    }
    double v = d2_tensor_get_f64(t, i);
    bool f32 = t->dtype == D2_F32;
    if (isnan(v)) {
        d2_buf_puts(b, "nan");
        return;
    }
    if (isinf(v)) {
        d2_buf_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    char ip[400], fp[400];
    long double a = fabsl((long double)v);
    if (signbit(v))
        d2_buf_puts(b, "-");
    if (a == 0 || (a >= 1e-4L && a < 1e16L)) {
        positional(v, f32, 100, ip, fp);
        d2_buf_printf(b, "%s.%s", ip, fp[0] ? fp : "0");
    } else {
        int e;
        scientific(v, f32, 100, ip, fp, &e);
        d2_buf_printf(b, "%s%s%se%c%02d", ip, fp[0] ? "." : "", fp, e < 0 ? '-' : '+', abs(e));
    }
}

typedef struct npfmt {
    int kind; /* 0 bool, 1 int, 2 float positional, 3 float scientific */
    bool f32;
    int width;               /* int */
    int pad_left, pad_right; /* float */
    int precision, exp_size; /* scientific */
} npfmt;

/* Elements the formatter looks at: all of them, or only the edges of each
 * dim when summarising. */
static bool np_is_shown(const d2_tensor *t, int64_t flat, bool summary)
{
    if (!summary)
        return true;
    int64_t rem = flat;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d], k = rem % n;
        rem /= n;
        if (n > 6 && k >= 3 && k < n - 3)
            return false;
    }
    return true;
}

static void np_plan(const d2_tensor *t, bool summary, npfmt *f)
{
    memset(f, 0, sizeof *f);
    int64_t n = d2_tensor_numel(t);
    if (t->dtype == D2_BOOL) {
        f->kind = 0;
        return;
    }
    if (!d2_dtype_is_float(t->dtype)) {
        f->kind = 1;
        int w = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!np_is_shown(t, i, summary))
                continue;
            char buf[32];
            int l = snprintf(buf, sizeof buf, "%" PRId64, d2_tensor_get_i64(t, i));
            if (l > w)
                w = l;
        }
        f->width = w;
        return;
    }
    f->f32 = t->dtype == D2_F32;
    double maxv = 0, minv = INFINITY;
    bool any_nz = false, any_finite = false, neginf = false, nonfinite = false;
    for (int64_t i = 0; i < n; i++) {
        if (!np_is_shown(t, i, summary))
            continue;
        double v = d2_tensor_get_f64(t, i);
        if (!isfinite(v)) {
            nonfinite = true;
            if (isinf(v) && v < 0)
                neginf = true;
            continue;
        }
        any_finite = true;
        double a = fabs(v);
        if (a != 0) {
            any_nz = true;
            if (a > maxv)
                maxv = a;
            if (a < minv)
                minv = a;
        }
    }
    bool exp = any_nz && (maxv >= 1e8 || minv < 0.0001 || maxv / minv > 1000.0);
    f->kind = exp ? 3 : 2;
    int pl = 0, pr = 0, prec = 0, esz = 0;
    for (int64_t i = 0; any_finite && i < n; i++) {
        if (!np_is_shown(t, i, summary))
            continue;
        double v = d2_tensor_get_f64(t, i);
        if (!isfinite(v))
            continue;
        char ip[400], fp[400];
        if (exp) {
            int e;
            scientific(v, f->f32, 8, ip, fp, &e);
            int il = (int)strlen(ip) + (signbit(v) ? 1 : 0);
            int fl = (int)strlen(fp);
            char eb[16];
            int el = snprintf(eb, sizeof eb, "%02d", abs(e));
            if (il > pl)
                pl = il;
            if (fl > prec)
                prec = fl;
            if (el > esz)
                esz = el;
        } else {
            positional(v, f->f32, 8, ip, fp);
            int il = (int)strlen(ip) + (signbit(v) ? 1 : 0);
            int fl = (int)strlen(fp);
            if (il > pl)
                pl = il;
            if (fl > pr)
                pr = fl;
        }
    }
    if (exp) {
        f->precision = prec;
        f->exp_size = esz;
        f->pad_left = pl;
        f->pad_right = esz + 2 + prec;
    } else {
        f->pad_left = pl;
        f->pad_right = pr;
    }
    if (nonfinite) {
        int offset = f->pad_right + 1;
        int nanlen = 3 - offset, inflen = 3 + (neginf ? 1 : 0) - offset;
        if (nanlen > f->pad_left)
            f->pad_left = nanlen;
        if (inflen > f->pad_left)
            f->pad_left = inflen;
    }
}

static void pad_to(d2_buf *b, size_t start, int width, bool left)
{
    int len = (int)(b->len - start);
    if (len >= width)
        return;
    int extra = width - len;
    for (int k = 0; k < extra; k++)
        d2_buf_puts(b, " ");
    if (left && !b->oom) {
        memmove(b->data + start + extra, b->data + start, (size_t)len);
        memset(b->data + start, ' ', (size_t)extra);
    }
}

static void np_elem(d2_buf *b, const d2_tensor *t, int64_t i, const npfmt *f)
{
    size_t start = b->len;
    switch (f->kind) {
    case 0: d2_buf_puts(b, d2_tensor_get_i64(t, i) ? " True" : "False"); return;
    case 1:
        d2_buf_printf(b, "%" PRId64, d2_tensor_get_i64(t, i));
        pad_to(b, start, f->width, true);
        return;
    default: break;
    }
    double v = d2_tensor_get_f64(t, i);
    if (!isfinite(v)) {
        d2_buf_puts(b, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        pad_to(b, start, f->pad_left + f->pad_right + 1, true);
        return;
    }
    char ip[400], fp[400];
    if (f->kind == 2) {
        positional(v, f->f32, 8, ip, fp);
        d2_buf_printf(b, "%s%s", signbit(v) ? "-" : "", ip);
        pad_to(b, start, f->pad_left, true);
        size_t fs = b->len;
        d2_buf_printf(b, ".%s", fp);
        pad_to(b, fs, f->pad_right + 1, false);
    } else {
        int e;
        scientific(v, f->f32, 8, ip, fp, &e);
        if ((int)strlen(fp) < f->precision) {
            /* Dragon4 with min_digits: more digits of the exact value, not zeros */
            char buf[64];
            snprintf(buf, sizeof buf, "%.*e", f->precision, fabs(v));
            ip[0] = buf[0];
            ip[1] = 0;
            int n = 0;
            const char *q = buf + 2;
            for (; *q && *q != 'e'; q++)
                fp[n++] = *q;
            fp[n] = 0;
            e = atoi(q + 1);
        }
        d2_buf_printf(b, "%s%s", signbit(v) ? "-" : "", ip);
        pad_to(b, start, f->pad_left, true);
        d2_buf_printf(b, ".%s", fp);
        d2_buf_printf(b, "e%c%0*d", e < 0 ? '-' : '+', f->exp_size, abs(e));
    }
}

/* _formatArray's recursion; line holds the current last line. */
typedef struct npout {
    d2_buf s;    /* finished text */
    d2_buf line; /* current line */
} npout;

static void extend_line(npout *o, const char *word, int width, const char *prefix)
{
    size_t pl = strlen(prefix);
    bool wrap = o->line.len + strlen(word) > (size_t)width && o->line.len > pl;
    if (wrap) {
        size_t l = o->line.len;
        while (l > 0 && o->line.data[l - 1] == ' ')
            l--;
        d2_buf_append(&o->s, o->line.data, l);
        d2_buf_puts(&o->s, "\n");
        o->line.len = 0;
        d2_buf_puts(&o->line, prefix);
    }
    d2_buf_puts(&o->line, word);
}

static char *np_rec(const d2_tensor *t, int dim, int64_t off, const char *hang, int width,
                    const char *sep, bool summary, const npfmt *f)
{
    d2_buf out;
    d2_buf_init(&out);
    if (dim == t->ndim) {
        np_elem(&out, t, off, f);
        char *r = d2_buf_take(&out);
        return r;
    }
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    bool show_summary = summary && n > 6;
    int64_t lead = show_summary ? 3 : 0, trail = show_summary ? 3 : n;
    char next_hang[256];
    snprintf(next_hang, sizeof next_hang, "%s ", hang);
    int next_width = width - 1;
    size_t seplen = strlen(sep);
    while (seplen > 0 && sep[seplen - 1] == ' ')
        seplen--;
    if (t->ndim - dim == 1) {
        npout o;
        d2_buf_init(&o.s);
        d2_buf_init(&o.line);
        d2_buf_puts(&o.line, hang);
        int elem_width = width - (int)(seplen > 1 ? seplen : 1);
        for (int64_t i = 0; i < lead; i++) {
            char *w = np_rec(t, dim + 1, off + i * stride, next_hang, next_width, sep, summary, f);
            extend_line(&o, w ? w : "", elem_width, hang);
            d2_free(w);
            d2_buf_puts(&o.line, sep);
        }
        if (show_summary) {
            extend_line(&o, "...", elem_width, hang);
            d2_buf_puts(&o.line, sep);
        }
        for (int64_t i = trail; i > 1; i--) {
            char *w =
                np_rec(t, dim + 1, off + (n - i) * stride, next_hang, next_width, sep, summary, f);
            extend_line(&o, w ? w : "", elem_width, hang);
            d2_free(w);
            d2_buf_puts(&o.line, sep);
        }
        if (n > 0) {
            char *w =
                np_rec(t, dim + 1, off + (n - 1) * stride, next_hang, next_width, sep, summary, f);
            extend_line(&o, w ? w : "", elem_width, hang);
            d2_free(w);
        }
        d2_buf_append(&o.s, o.line.data, o.line.len);
        d2_buf_free(&o.line);
        d2_buf_puts(&out, "[");
        size_t hl = strlen(hang);
        if (o.s.len >= hl)
            d2_buf_append(&out, o.s.data + hl, o.s.len - hl);
        d2_buf_puts(&out, "]");
        d2_buf_free(&o.s);
    } else {
        d2_buf s;
        d2_buf_init(&s);
        char line_sep[16];
        int ls = snprintf(line_sep, sizeof line_sep, "%.*s", (int)seplen, sep);
        for (int k = 0; k < t->ndim - dim - 1 && ls < 15; k++)
            line_sep[ls++] = '\n';
        line_sep[ls] = 0;
        for (int64_t i = 0; i < lead; i++) {
            char *w = np_rec(t, dim + 1, off + i * stride, next_hang, next_width, sep, summary, f);
            d2_buf_printf(&s, "%s%s%s", hang, w ? w : "", line_sep);
            d2_free(w);
        }
        if (show_summary)
            d2_buf_printf(&s, "%s...%s", hang, line_sep);
        for (int64_t i = trail; i > 1; i--) {
            char *w =
                np_rec(t, dim + 1, off + (n - i) * stride, next_hang, next_width, sep, summary, f);
            d2_buf_printf(&s, "%s%s%s", hang, w ? w : "", line_sep);
            d2_free(w);
        }
        if (n > 0) {
            char *w =
                np_rec(t, dim + 1, off + (n - 1) * stride, next_hang, next_width, sep, summary, f);
            d2_buf_printf(&s, "%s%s", hang, w ? w : "");
            d2_free(w);
        }
        d2_buf_puts(&out, "[");
        size_t hl = strlen(hang);
        if (s.len >= hl)
            d2_buf_append(&out, s.data + hl, s.len - hl);
        d2_buf_puts(&out, "]");
        d2_buf_free(&s);
    }
    return d2_buf_take(&out);
}

d2_obj *d2_np_format(d2_interp *I, const d2_tensor *t, bool repr)
{
    d2_buf b;
    d2_buf_init(&b);
    if (t->ndim == 0) {
        d2_np_format_scalar(&b, t, 0);
    } else {
        int64_t n = d2_tensor_numel(t);
        bool summary = n > 1000;
        npfmt f;
        np_plan(t, summary, &f);
        const char *prefix = repr ? "array(" : "";
        char hang[16];
        snprintf(hang, sizeof hang, " %s", repr ? "      " : "");
        int width = repr ? 74 : 75;
        bool empty = n == 0;
        char *body;
        if (empty) {
            /* NumPy prints "[]" and, in repr, the shape unless it is (0,) */
            d2_buf e;
            d2_buf_init(&e);
            d2_buf_puts(&e, "[]");
            if (repr && !(t->ndim == 1 && t->shape[0] == 0)) {
                d2_buf_puts(&e, ", shape=(");
                for (int d = 0; d < t->ndim; d++)
                    d2_buf_printf(&e, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
                d2_buf_puts(&e, t->ndim == 1 ? ",)" : ")");
            }
            body = d2_buf_take(&e);
        } else {
            body = np_rec(t, 0, 0, hang, width, repr ? ", " : " ", summary, &f);
        }
        d2_buf_printf(&b, "%s%s", prefix, body ? body : "");
        d2_free(body);
        if (repr) {
            bool implied =
                (t->dtype == D2_F64 || t->dtype == D2_I64 || t->dtype == D2_BOOL) && !empty;
            if (implied) {
                d2_buf_puts(&b, ")");
            } else {
                d2_buf_puts(&b, ",");
                size_t last_nl = 0;
                for (size_t k = 0; k < b.len; k++)
                    if (b.data[k] == '\n')
                        last_nl = k + 1;
                size_t last_len = b.len - last_nl;
                char dts[40];
                snprintf(dts, sizeof dts, "dtype=%s)", d2_dtype_name(t->dtype));
                if (last_len + strlen(dts) + 1 > 75)
                    d2_buf_puts(&b, "\n      ");
                else
                    d2_buf_puts(&b, " ");
                d2_buf_puts(&b, dts);
            }
        }
    }
    d2_obj *r = b.oom ? d2_raise(I, "MemoryError", "out of memory")
                      : d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

/* ======================================================================
 * State and helpers
 * ====================================================================== */

typedef struct np_state {
    d2_module *np, *random, *testing;
    d2_class *rs_cls;  /* numpy.random.RandomState */
    d2_obj *global_rs; /* the module-level RandomState (borrowed: lives in numpy.random) */
} np_state;

static void np_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    d2_free(p);
}

static np_state *NS(d2_interp *I) { return I->ext[D2_EXT_NUMPY]; }

#define NDA(o) D2_AS(d2_ndarray, o)
#define SELF_ARG(fname)                                                                            \
    do {                                                                                           \
        if (!self) {                                                                               \
            if (nargs < 1)                                                                         \
                return d2_raise(I, "TypeError", "%s: missing the receiver", fname);                \
            self = args[0];                                                                        \
            args++;                                                                                \
            nargs--;                                                                               \
        }                                                                                          \
    } while (0)
#define PARSE(fname, spec, n)                                                                      \
    d2_obj *a[n] = {NULL};                                                                         \
    if (d2_parse_args(I, fname, spec, args, nargs, kw, a) < 0)                                     \
        return NULL;

static bool is_nd(const d2_obj *o) { return o && o->kind == D2_OBJ_NDARRAY; }
static bool is_none(d2_interp *I, const d2_obj *o)
{
    return !o || o == I->none || o->kind == D2_OBJ_NONE;
}
static bool is_pynum(const d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}

static d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

/* A tuple of n NULL items to fill with new references (n recorded). */
static d2_obj *tuple_new(d2_interp *I, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (t && n)
        D2_AS(d2_tuple, t)->n = n;
    return t;
}

static d2_obj *wrap(d2_interp *I, d2_tensor *t)
{
    if (!t)
        return NULL;
    d2_obj *o = d2_ndarray_wrap(I, t);
    d2_tensor_unref(t);
    return o;
}

static const char *dtn(int dt) { return d2_dtype_name((d2_dtype)dt); }

/* A CPU tensor for an array-like argument (new ref). Python floats give
 * float64 (NumPy's default). */
static d2_tensor *arr(d2_interp *I, d2_obj *o, int dt, const char *fname)
{
    return d2_pd_from_py(I, o, dt, D2_F64, fname);
}

/* Runs op on CPU tensors with attributes in text form ("axis = [0], keepdim = true"). */
static d2_tensor *run(d2_interp *I, const char *fname, d2_op_id op, d2_tensor **in, int n_in,
                      const char *attrs)
{
    const d2_opdef *def = d2_op_def(op);
    d2_attrs a;
    d2_err err = {0};
    if (d2_attrs_parse(def, attrs ? attrs : "", &a, &err) < 0) {
        d2_err_prefix(&err, "%s", fname);
        d2_raise_err(I, &err);
        return NULL;
    }
    d2_tensor *out = NULL;
    int rc = d2_op_run(NULL, op, &a, in, n_in, &out, 1, &err);
    d2_attrs_free(&a);
    if (rc < 0) {
        d2_err_prefix(&err, "%s", fname);
        d2_raise_err(I, &err);
        return NULL;
    }
    return out;
}

static d2_tensor *cast(d2_interp *I, const char *fname, d2_tensor *t, int dt)
{
    if ((int)t->dtype == dt)
        return d2_tensor_ref(t);
    char a[48];
    snprintf(a, sizeof a, "dtype = %s", dtn(dt));
    return run(I, fname, D2_OP_cast, &t, 1, a);
}

static int rank(d2_dtype dt)
{
    switch (dt) {
    case D2_BOOL: return 0;
    case D2_I32: return 1;
    case D2_I64: return 2;
    case D2_F32: return 3;
    case D2_F64: return 4;
    default: return 5;
    }
}

/* np.result_type of two array dtypes. */
static d2_dtype promote(d2_dtype a, d2_dtype b)
{
    if (a == b)
        return a;
    if (rank(a) > rank(b)) {
        d2_dtype t = a;
        a = b;
        b = t;
    }
    /* now rank(a) < rank(b) */
    if (b == D2_F32 && (a == D2_I32 || a == D2_I64))
        return D2_F64;
    return b;
}

/* Kind of an operand for value-based casting: 0 bool, 1 int, 2 float. */
static int kind_of_dt(d2_dtype dt) { return dt == D2_BOOL ? 0 : d2_dtype_is_float(dt) ? 2 : 1; }

/* Result dtype of a binary op between two operands, NumPy 1.x rules: a
 * Python scalar or 0-d array only matters by its kind against an n-d array. */
static d2_dtype result_dt(d2_tensor *x, bool xs, d2_tensor *y, bool ys)
{
    bool xscalar = xs || x->ndim == 0, yscalar = ys || y->ndim == 0;
    if (xscalar == yscalar)
        return promote(x->dtype, y->dtype);
    d2_tensor *arrt = xscalar ? y : x, *sc = xscalar ? x : y;
    int ka = kind_of_dt(arrt->dtype), ks = kind_of_dt(sc->dtype);
    if (ks <= ka)
        return arrt->dtype;
    /* the scalar's kind is higher: the smallest type of that kind that can hold it */
    if (ks == 2)
        return D2_F64;
    return sc->dtype == D2_I32 ? D2_I32 : D2_I64;
}

/* Writes "axis = [...]" for an axis argument (None: all axes) into buf;
 * 0, or -1 with an exception for a bad or out-of-range axis. */
static int axis_text(d2_interp *I, d2_obj *axis, const char *fname, char *buf, size_t cap, int ndim)
{
    if (is_none(I, axis)) {
        snprintf(buf, cap, "axis = []");
        return 0;
    }
    int64_t v[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, axis, fname, "axis", v, &n, D2_MAX_DIMS) < 0)
        return -1;
    size_t l = (size_t)snprintf(buf, cap, "axis = [");
    for (int i = 0; i < n; i++) {
        if (v[i] < -ndim || v[i] >= ndim) {
            d2_raise(I, "ValueError", "%s: axis %lld is out of bounds for array of dimension %d",
                     fname, (long long)v[i], ndim);
            return -1;
        }
        l += (size_t)snprintf(buf + l, cap - l, "%s%lld", i ? ", " : "", (long long)v[i]);
    }
    snprintf(buf + l, cap - l, "]");
    return 0;
}

/* ======================================================================
 * Arithmetic and comparisons
 * ====================================================================== */

static d2_op_id np_binop_id(int op, bool *ok)
{
    *ok = true;
    switch (op) {
    case D2_OP_ADD: return D2_OP_add;
    case D2_OP_SUB: return D2_OP_subtract;
    case D2_OP_MULT: return D2_OP_multiply;
    case D2_OP_DIV: return D2_OP_divide;
    case D2_OP_FLOOR_DIV: return D2_OP_floor_divide;
    case D2_OP_MOD: return D2_OP_remainder;
    case D2_OP_POW: return D2_OP_pow;
    case D2_OP_MAT_MULT: return D2_OP_matmul;
    case D2_OP_BIT_AND: return D2_OP_logical_and;
    case D2_OP_BIT_OR: return D2_OP_logical_or;
    case D2_OP_BIT_XOR: return D2_OP_logical_xor;
    default: *ok = false; return D2_OP_add;
    }
}

/* Bitwise ops on integer arrays (no kernels): host loop after broadcasting
 * through a multiply-by-one (cheap broadcast) is overkill; require equal
 * shapes or a scalar side. */
static d2_tensor *int_bitwise(d2_interp *I, int op, d2_tensor *x, d2_tensor *y)
{
    d2_tensor *ex[2] = {x, y};
    /* broadcast both to a common shape with expand via `add` of zeros */
    d2_tensor *zx = run(I, "numpy", D2_OP_full_like, &x, 1, "value = 0");
    d2_tensor *zy = zx ? run(I, "numpy", D2_OP_full_like, &y, 1, "value = 0") : NULL;
    d2_tensor *in1[2] = {ex[0], zy}, *in2[2] = {ex[1], zx};
    d2_tensor *bx = zy ? run(I, "numpy", D2_OP_add, in1, 2, NULL) : NULL;
    d2_tensor *by = bx ? run(I, "numpy", D2_OP_add, in2, 2, NULL) : NULL;
    d2_tensor *r = NULL;
    if (by) {
        d2_err err = {0};
        r = d2_tensor_new(NULL, bx->dtype, bx->ndim, bx->shape, &err);
        if (!r) {
            d2_raise_err(I, &err);
        } else {
            int64_t n = d2_tensor_numel(r);
            for (int64_t i = 0; i < n; i++) {
                int64_t a = d2_tensor_get_i64(bx, i), b = d2_tensor_get_i64(by, i);
                int64_t v = op == D2_OP_BIT_AND ? (a & b) : op == D2_OP_BIT_OR ? (a | b) : (a ^ b);
                if (r->dtype == D2_I32)
                    ((int32_t *)d2_tensor_data(r))[i] = (int32_t)v;
                else
                    ((int64_t *)d2_tensor_data(r))[i] = v;
            }
        }
    }
    if (zx)
        d2_tensor_unref(zx);
    if (zy)
        d2_tensor_unref(zy);
    if (bx)
        d2_tensor_unref(bx);
    if (by)
        d2_tensor_unref(by);
    return r;
}

static d2_tensor *np_binary_t(d2_interp *I, const char *fname, int op, d2_obj *a, d2_obj *b)
{
    bool ok;
    d2_op_id id = np_binop_id(op, &ok);
    bool as = is_pynum(a), bs = is_pynum(b);
    d2_tensor *x = arr(I, a, -1, fname);
    d2_tensor *y = x ? arr(I, b, -1, fname) : NULL;
    d2_tensor *r = NULL, *xc = NULL, *yc = NULL;
    if (!y)
        goto done;
    d2_dtype dt = result_dt(x, as, y, bs);
    if (id == D2_OP_divide && !d2_dtype_is_float(dt))
        dt = D2_F64;
    if ((op == D2_OP_BIT_AND || op == D2_OP_BIT_OR || op == D2_OP_BIT_XOR) && dt != D2_BOOL) {
        if (d2_dtype_is_float(dt)) {
            d2_raise(I, "TypeError", "ufunc 'bitwise' not supported for float arrays");
            goto done;
        }
        xc = cast(I, fname, x, dt);
        yc = xc ? cast(I, fname, y, dt) : NULL;
        r = yc ? int_bitwise(I, op, xc, yc) : NULL;
        goto done;
    }
    xc = cast(I, fname, x, dt);
    yc = xc ? cast(I, fname, y, dt) : NULL;
    if (yc) {
        d2_tensor *in[2] = {xc, yc};
        r = run(I, fname, id, in, 2, NULL);
    }
done:
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    if (xc)
        d2_tensor_unref(xc);
    if (yc)
        d2_tensor_unref(yc);
    return r;
}

static bool np_operand(d2_obj *o)
{
    return is_nd(o) || is_pynum(o) || o->kind == D2_OBJ_LIST || o->kind == D2_OBJ_TUPLE;
}

static const char *opsym(int op)
{
    static const char *s[] = {"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"};
    return op >= 0 && op < (int)D2_COUNTOF(s) ? s[op] : "?";
}

d2_obj *d2_np_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    if ((a && a->kind == D2_OBJ_TENSOR) || (b && b->kind == D2_OBJ_TENSOR))
        return d2_pd_binop(I, op, a, b);
    bool ok;
    np_binop_id(op, &ok);
    if (!ok || !np_operand(a) || !np_operand(b))
        return d2_raise(I, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
                        opsym(op), d2_type_name(a), d2_type_name(b));
    char fname[48];
    snprintf(fname, sizeof fname, "numpy operator %s", opsym(op));
    return wrap(I, np_binary_t(I, fname, op, a, b));
}

static d2_obj *np_hook_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_nd(a) ? b : a;
    bool ok;
    np_binop_id(op, &ok);
    if (!ok || !np_operand(other))
        return d2_incref(I->not_implemented);
    return d2_np_binop(I, op, a, b);
}

d2_obj *d2_np_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b)
{
    d2_op_id id;
    switch (cmpop) {
    case D2_CMP_EQ: id = D2_OP_equal; break;
    case D2_CMP_NOT_EQ: id = D2_OP_not_equal; break;
    case D2_CMP_LT: id = D2_OP_less_than; break;
    case D2_CMP_LT_E: id = D2_OP_less_equal; break;
    case D2_CMP_GT: id = D2_OP_greater_than; break;
    case D2_CMP_GT_E: id = D2_OP_greater_equal; break;
    default: return d2_raise(I, "TypeError", "unsupported comparison for ndarray");
    }
    if ((a && a->kind == D2_OBJ_TENSOR) || (b && b->kind == D2_OBJ_TENSOR))
        return d2_pd_compare(I, cmpop, a, b);
    if (!np_operand(a) || !np_operand(b)) {
        if (id == D2_OP_equal || id == D2_OP_not_equal)
            return d2_bool(I, (id == D2_OP_not_equal) ^ (a == b));
        return d2_raise(I, "TypeError", "'<' not supported between '%s' and '%s'", d2_type_name(a),
                        d2_type_name(b));
    }
    bool as = is_pynum(a), bs = is_pynum(b);
    d2_tensor *x = arr(I, a, -1, "numpy comparison");
    d2_tensor *y = x ? arr(I, b, -1, "numpy comparison") : NULL;
    d2_tensor *r = NULL;
    if (y) {
        d2_dtype dt = result_dt(x, as, y, bs);
        d2_tensor *xc = cast(I, "numpy comparison", x, dt);
        d2_tensor *yc = xc ? cast(I, "numpy comparison", y, dt) : NULL;
        if (yc) {
            d2_tensor *in[2] = {xc, yc};
            r = run(I, "numpy comparison", id, in, 2, NULL);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return wrap(I, r);
}

static d2_obj *np_hook_compare(d2_interp *I, int op, d2_obj *a, d2_obj *b)
{
    d2_obj *other = is_nd(a) ? b : a;
    if (!np_operand(other) && other->kind != D2_OBJ_TENSOR)
        return d2_incref(I->not_implemented);
    return d2_np_compare(I, op, a, b);
}

d2_obj *d2_np_unaryop(d2_interp *I, int op, d2_obj *a)
{
    d2_tensor *t = NDA(a)->t;
    switch (op) {
    case D2_UNARY_USUB:
        if (t->dtype == D2_BOOL)
            return d2_raise(I, "TypeError",
                            "The numpy boolean negative, the `-` operator, is not supported");
        return wrap(I, run(I, "numpy operator -", D2_OP_neg, &t, 1, NULL));
    case D2_UNARY_UADD: return d2_incref(a);
    case D2_UNARY_INVERT:
        if (t->dtype == D2_BOOL)
            return wrap(I, run(I, "numpy operator ~", D2_OP_logical_not, &t, 1, NULL));
        if (d2_dtype_is_int(t->dtype)) {
            d2_err err = {0};
            d2_tensor *c = d2_tensor_contiguous(t, &err);
            d2_tensor *r = c ? d2_tensor_new(NULL, c->dtype, c->ndim, c->shape, &err) : NULL;
            if (!r) {
                if (c)
                    d2_tensor_unref(c);
                return d2_raise_err(I, &err);
            }
            int64_t n = d2_tensor_numel(r);
            for (int64_t i = 0; i < n; i++) {
                int64_t v = ~d2_tensor_get_i64(c, i);
                if (r->dtype == D2_I32)
                    ((int32_t *)d2_tensor_data(r))[i] = (int32_t)v;
                else
                    ((int64_t *)d2_tensor_data(r))[i] = v;
            }
            d2_tensor_unref(c);
            return wrap(I, r);
        }
        return d2_raise(I, "TypeError", "ufunc 'invert' not supported for float arrays");
    default: return d2_raise(I, "TypeError", "bad operand type for unary operator: 'ndarray'");
    }
}

/* ======================================================================
 * ndarray protocol
 * ====================================================================== */

static d2_obj *shape_tuple(d2_interp *I, const d2_tensor *t)
{
    d2_obj *tu = tuple_new(I, (size_t)t->ndim);
    for (int i = 0; tu && i < t->ndim; i++) {
        D2_AS(d2_tuple, tu)->items[i] = d2_int_new(I, t->shape[i]);
        if (!D2_AS(d2_tuple, tu)->items[i])
            d2_setref(&tu, NULL);
    }
    return tu;
}

static d2_obj *np_transpose_t(d2_interp *I, d2_tensor *t, const int64_t *perm, int n);

static d2_obj *nd_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_tensor *t = NDA(o)->t;
    if (strcmp(name, "shape") == 0)
        return shape_tuple(I, t);
    if (strcmp(name, "dtype") == 0) {
        d2_obj *d = d2_pd_dtype_obj(I, t->dtype, true);
        return d ? d2_incref(d) : NULL;
    }
    if (strcmp(name, "ndim") == 0)
        return d2_int_new(I, t->ndim);
    if (strcmp(name, "size") == 0)
        return d2_int_new(I, d2_tensor_numel(t));
    if (strcmp(name, "itemsize") == 0)
        return d2_int_new(I, (int64_t)d2_dtype_size(t->dtype));
    if (strcmp(name, "nbytes") == 0)
        return d2_int_new(I, (int64_t)d2_dtype_size(t->dtype) * d2_tensor_numel(t));
    if (strcmp(name, "T") == 0)
        return np_transpose_t(I, t, NULL, 0);
    return NULL;
}

static int nd_truthy(d2_interp *I, d2_obj *o)
{
    d2_tensor *t = NDA(o)->t;
    if (d2_tensor_numel(t) != 1) {
        d2_raise(I, "ValueError",
                 "The truth value of an array with more than one element is ambiguous. Use a.any() "
                 "or a.all()");
        return -1;
    }
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    if (!c) {
        d2_raise_err(I, &err);
        return -1;
    }
    int v = d2_tensor_get_f64(c, 0) != 0;
    d2_tensor_unref(c);
    return v;
}

static int64_t nd_len(d2_interp *I, d2_obj *o)
{
    d2_tensor *t = NDA(o)->t;
    if (t->ndim == 0) {
        d2_raise(I, "TypeError", "len() of unsized object");
        return -1;
    }
    return t->shape[0];
}

/* Host boolean mask selection: x[mask] with mask of x's shape -> 1-D. */
static d2_tensor *mask_select(d2_interp *I, d2_tensor *x, d2_tensor *m)
{
    d2_err err = {0};
    d2_tensor *xc = d2_tensor_contiguous(x, &err);
    d2_tensor *mc = xc ? d2_tensor_contiguous(m, &err) : NULL;
    d2_tensor *r = NULL;
    if (mc) {
        int64_t n = d2_tensor_numel(mc), k = 0;
        for (int64_t i = 0; i < n; i++)
            k += d2_tensor_get_i64(mc, i) != 0;
        r = d2_tensor_new(NULL, xc->dtype, 1, &k, &err);
        if (r) {
            size_t es = d2_dtype_size(xc->dtype);
            char *dst = d2_tensor_data(r);
            const char *src = d2_tensor_data(xc);
            for (int64_t i = 0, j = 0; i < n; i++)
                if (d2_tensor_get_i64(mc, i))
                    memcpy(dst + es * (size_t)j++, src + es * (size_t)i, es);
        }
    }
    if (!r)
        d2_raise_err(I, &err);
    if (xc)
        d2_tensor_unref(xc);
    if (mc)
        d2_tensor_unref(mc);
    return r;
}

static bool same_shape(const d2_tensor *a, const d2_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

static d2_obj *nd_getitem(d2_interp *I, d2_obj *o, d2_obj *key)
{
    d2_tensor *t = NDA(o)->t;
    if (is_nd(key) && NDA(key)->t->dtype == D2_BOOL) {
        if (!same_shape(NDA(key)->t, t))
            return d2_raise(I, "IndexError",
                            "boolean index shape does not match the array's shape");
        return wrap(I, mask_select(I, t, NDA(key)->t));
    }
    d2_tensor *r;
    if (d2_pd_index_host(I, t, key, &r) < 0)
        return NULL;
    return wrap(I, r);
}

static int nd_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v)
{
    d2_tensor **tp = &NDA(o)->t;
    if (is_nd(key) && NDA(key)->t->dtype == D2_BOOL) {
        d2_tensor *m = NDA(key)->t;
        if (!same_shape(m, *tp)) {
            d2_raise(I, "IndexError", "boolean index shape does not match the array's shape");
            return -1;
        }
        d2_err err = {0};
        d2_tensor *w = d2_tensor_copy_to(*tp, NULL, &err);
        d2_tensor *mc = w ? d2_tensor_contiguous(m, &err) : NULL;
        if (!mc) {
            if (w)
                d2_tensor_unref(w);
            d2_raise_err(I, &err);
            return -1;
        }
        d2_tensor *val = arr(I, v, w->dtype, "ndarray.__setitem__");
        int rc = -1;
        if (val) {
            int64_t n = d2_tensor_numel(mc), nv = d2_tensor_numel(val), k = 0, cnt = 0;
            for (int64_t i = 0; i < n; i++)
                cnt += d2_tensor_get_i64(mc, i) != 0;
            if (nv != 1 && nv != cnt) {
                d2_raise(I, "ValueError",
                         "NumPy boolean array indexing assignment cannot assign %lld input values "
                         "to the %lld output values where the mask is true",
                         (long long)nv, (long long)cnt);
            } else {
                size_t es = d2_dtype_size(w->dtype);
                char *dst = d2_tensor_data(w);
                const char *src = d2_tensor_data(val);
                for (int64_t i = 0; i < n; i++)
                    if (d2_tensor_get_i64(mc, i)) {
                        memcpy(dst + es * (size_t)i, src + es * (size_t)(nv == 1 ? 0 : k), es);
                        k++;
                    }
                d2_tensor_unref(*tp);
                *tp = d2_tensor_ref(w);
                rc = 0;
            }
            d2_tensor_unref(val);
        }
        d2_tensor_unref(w);
        d2_tensor_unref(mc);
        return rc;
    }
    return d2_pd_setitem_host(I, tp, key, v);
}

static d2_obj *nd_iter_next(d2_interp *I, d2_iter *it, bool *done)
{
    *done = false;
    if (it->pos >= it->end) {
        *done = true;
        return NULL;
    }
    d2_obj *k = d2_int_new(I, it->pos++);
    if (!k)
        return NULL;
    d2_obj *r = nd_getitem(I, it->src, k);
    d2_decref(k);
    return r;
}

static d2_obj *nd_get_iter(d2_interp *I, d2_obj *o)
{
    int64_t n = nd_len(I, o);
    if (n < 0) {
        d2_exc_clear(I);
        return d2_raise(I, "TypeError", "iteration over a 0-d array");
    }
    d2_obj *io = d2_obj_alloc(I, D2_OBJ_ITERATOR, NULL, sizeof(d2_iter));
    if (!io)
        return NULL;
    d2_iter *it = D2_AS(d2_iter, io);
    it->next = nd_iter_next;
    it->src = d2_incref(o);
    it->end = n;
    it->step = 1;
    return io;
}

static d2_obj *nd_repr(d2_interp *I, d2_obj *o)
{
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(o)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r = d2_np_format(I, c, true);
    d2_tensor_unref(c);
    return r;
}

static d2_obj *nd_str(d2_interp *I, d2_obj *o)
{
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(o)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r = d2_np_format(I, c, false);
    d2_tensor_unref(c);
    return r;
}

static d2_obj *nd_to_number(d2_interp *I, d2_obj *o, d2_obj_kind to)
{
    d2_tensor *t = NDA(o)->t;
    if (d2_tensor_numel(t) != 1)
        return d2_raise(I, "ValueError", "only length-1 arrays can be converted to Python scalars");
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r;
    if (to == D2_OBJ_FLOAT)
        r = d2_float_new(I, d2_tensor_get_f64(c, 0));
    else if (d2_dtype_is_float(c->dtype)) {
        double v = d2_tensor_get_f64(c, 0);
        r = isfinite(v) ? d2_int_new(I, (int64_t)v)
                        : d2_raise(I, "ValueError", "cannot convert float %g to integer", v);
    } else
        r = d2_int_new(I, d2_tensor_get_i64(c, 0));
    d2_tensor_unref(c);
    return r;
}

static int nd_hash(d2_interp *I, d2_obj *o, uint64_t *h)
{
    d2_tensor *t = NDA(o)->t;
    if (t->ndim != 0) {
        d2_raise(I, "TypeError", "unhashable type: 'numpy.ndarray'");
        return -1;
    }
    d2_obj *v = nd_to_number(I, o, d2_dtype_is_float(t->dtype) ? D2_OBJ_FLOAT : D2_OBJ_INT);
    if (!v)
        return -1;
    int rc = d2_hash(I, v, h);
    d2_decref(v);
    return rc;
}

static const d2_type_hooks ndarray_hooks = {
    .binop = np_hook_binop,
    .unaryop = d2_np_unaryop,
    .compare = np_hook_compare,
    .truthy = nd_truthy,
    .len = nd_len,
    .getitem = nd_getitem,
    .setitem = nd_setitem,
    .get_iter = nd_get_iter,
    .repr = nd_repr,
    .str = nd_str,
    .getattr = nd_getattr,
    .to_number = nd_to_number,
    .hash = nd_hash,
};

/* ======================================================================
 * Functions shared by the module and ndarray methods
 * ====================================================================== */

/* Prepends self (methods) to the arguments; *buf holds up to 8. */
static d2_obj **prepend(d2_obj *self, d2_obj **args, size_t *nargs, d2_obj **buf, bool *heap)
{
    *heap = false;
    if (!self)
        return args;
    d2_obj **av = buf;
    if (*nargs + 1 > 8) {
        av = d2_calloc(*nargs + 1, sizeof *av);
        if (!av)
            return NULL;
        *heap = true;
    }
    av[0] = self;
    for (size_t i = 0; i < *nargs; i++)
        av[i + 1] = args[i];
    (*nargs)++;
    return av;
}

#define WITH_SELF                                                                                  \
    d2_obj *buf_[8];                                                                               \
    bool heap_;                                                                                    \
    args = prepend(self, args, &nargs, buf_, &heap_);                                              \
    if (!args)                                                                                     \
        return nomem(I);
#define END_SELF                                                                                   \
    if (heap_)                                                                                     \
        d2_free(args);

static int dt_arg(d2_interp *I, d2_obj *o, const char *fname, int *dt)
{
    return d2_pd_parse_dtype(I, o, fname, true, dt);
}

static d2_tensor *np_reduce_t(d2_interp *I, const char *fname, d2_op_id op, d2_tensor *x,
                              d2_obj *axis, bool keep, int dt)
{
    char at[200];
    if (axis_text(I, axis, fname, at, sizeof at, x->ndim) < 0)
        return NULL;
    d2_tensor *src = NULL;
    int want = dt;
    if (op == D2_OP_mean && want < 0 && !d2_dtype_is_float(x->dtype))
        want = D2_F64;
    if ((op == D2_OP_sum || op == D2_OP_prod) && want < 0 && !d2_dtype_is_float(x->dtype))
        want = D2_I64;
    src = want >= 0 ? cast(I, fname, x, want) : d2_tensor_ref(x);
    if (!src)
        return NULL;
    char attrs[260];
    snprintf(attrs, sizeof attrs, "%s, keepdim = %s", at, keep ? "true" : "false");
    d2_tensor *r = run(I, fname, op, &src, 1, attrs);
    d2_tensor_unref(src);
    return r;
}

static d2_obj *np_reduce(d2_interp *I, const char *fname, d2_op_id op, d2_obj **args, size_t nargs,
                         d2_dict *kw, bool has_dtype)
{
    d2_obj *a[5] = {NULL};
    const char *spec = has_dtype ? "a, axis=None, dtype=None, out=None, keepdims=False"
                                 : "a, axis=None, out=None, keepdims=False";
    if (d2_parse_args(I, fname, spec, args, nargs, kw, a) < 0)
        return NULL;
    int dt = -1;
    if (has_dtype && dt_arg(I, a[2], fname, &dt) < 0)
        return NULL;
    d2_obj *keep = has_dtype ? a[4] : a[3];
    bool k = keep && is_pynum(keep) && D2_AS(d2_int, keep)->v;
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *r = np_reduce_t(I, fname, op, x, a[1], k, dt);
    d2_tensor_unref(x);
    return wrap(I, r);
}

#define REDUCER(name, op, dt)                                                                      \
    static d2_obj *n_##name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)  \
    {                                                                                              \
        WITH_SELF                                                                                  \
        d2_obj *r = np_reduce(I, "numpy." #name, op, args, nargs, kw, dt);                         \
        END_SELF                                                                                   \
        return r;                                                                                  \
    }
REDUCER(sum, D2_OP_sum, true)
REDUCER(mean, D2_OP_mean, true)
REDUCER(prod, D2_OP_prod, true)
REDUCER(max, D2_OP_max, false)
REDUCER(min, D2_OP_min, false)
REDUCER(all, D2_OP_all, false)
REDUCER(any, D2_OP_any, false)
#undef REDUCER

static d2_obj *np_arg(d2_interp *I, const char *fname, d2_op_id op, d2_obj **args, size_t nargs,
                      d2_dict *kw)
{
    PARSE(fname, "a, axis=None, out=None, keepdims=False", 4);
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    char attrs[160];
    bool keep = is_pynum(a[3]) && D2_AS(d2_int, a[3])->v;
    if (is_none(I, a[1])) {
        snprintf(attrs, sizeof attrs, "flatten = true, keepdim = %s", keep ? "true" : "false");
    } else {
        int64_t ax;
        if (d2_to_int64(I, a[1], "axis", &ax) < 0) {
            d2_tensor_unref(x);
            return NULL;
        }
        snprintf(attrs, sizeof attrs, "axis = %lld, keepdim = %s", (long long)ax,
                 keep ? "true" : "false");
    }
    d2_tensor *r = run(I, fname, op, &x, 1, attrs);
    d2_tensor_unref(x);
    return wrap(I, r);
}

static d2_obj *n_argmax(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    WITH_SELF
    d2_obj *r = np_arg(I, "numpy.argmax", D2_OP_argmax, args, nargs, kw);
    END_SELF
    return r;
}

static d2_obj *n_argmin(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    WITH_SELF
    d2_obj *r = np_arg(I, "numpy.argmin", D2_OP_argmin, args, nargs, kw);
    END_SELF
    return r;
}

/* std / var: sqrt(mean(|x - mean(x)|^2)) over axis, with ddof. */
static d2_obj *np_var(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw, bool sd)
{
    const char *fname = sd ? "numpy.std" : "numpy.var";
    WITH_SELF
    d2_obj *a[6] = {NULL};
    d2_obj *r = NULL;
    d2_tensor *x = NULL, *m = NULL, *d = NULL, *sq = NULL, *s = NULL, *cnt = NULL, *q = NULL;
    if (d2_parse_args(I, fname, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False", args,
                      nargs, kw, a) < 0)
        goto done;
    int64_t ddof;
    if (d2_to_int64(I, a[4], "ddof", &ddof) < 0)
        goto done;
    bool keep = is_pynum(a[5]) && D2_AS(d2_int, a[5])->v;
    d2_tensor *x0 = arr(I, a[0], -1, fname);
    if (!x0)
        goto done;
    x = cast(I, fname, x0, d2_dtype_is_float(x0->dtype) ? (int)x0->dtype : D2_F64);
    d2_tensor_unref(x0);
    if (!x)
        goto done;
    m = np_reduce_t(I, fname, D2_OP_mean, x, a[1], true, -1);
    d2_tensor *in2[2] = {x, m};
    d = m ? run(I, fname, D2_OP_subtract, in2, 2, NULL) : NULL;
    sq = d ? run(I, fname, D2_OP_square, &d, 1, NULL) : NULL;
    s = sq ? np_reduce_t(I, fname, D2_OP_sum, sq, a[1], keep, -1) : NULL;
    if (s) {
        int64_t n = d2_tensor_numel(x) / (d2_tensor_numel(s) ? d2_tensor_numel(s) : 1);
        double div = (double)(n - ddof);
        char at[64];
        snprintf(at, sizeof at, "scale = %.17g", 1.0 / div);
        q = run(I, fname, D2_OP_scale, &s, 1, at);
        if (q && sd) {
            d2_tensor *rt = run(I, fname, D2_OP_sqrt, &q, 1, NULL);
            d2_tensor_unref(q);
            q = rt;
        }
        r = wrap(I, q);
        q = NULL;
    }
done:
    END_SELF
    d2_tensor *ts[] = {x, m, d, sq, s, cnt, q};
    for (size_t i = 0; i < D2_COUNTOF(ts); i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return r;
}

static d2_obj *n_std(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    return np_var(I, self, args, nargs, kw, true);
}

static d2_obj *n_var(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    return np_var(I, self, args, nargs, kw, false);
}

/* ---- elementwise ---- */

static d2_obj *np_unary(d2_interp *I, const char *fname, d2_op_id op, d2_obj **args, size_t nargs,
                        d2_dict *kw, bool float_only)
{
    PARSE(fname, "x, out=None", 2);
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *c =
        float_only && !d2_dtype_is_float(x->dtype) ? cast(I, fname, x, D2_F64) : d2_tensor_ref(x);
    d2_tensor_unref(x);
    if (!c)
        return NULL;
    d2_tensor *r = run(I, fname, op, &c, 1, NULL);
    d2_tensor_unref(c);
    return wrap(I, r);
}

#define UNARY_FN(name, op, fl)                                                                     \
    static d2_obj *n_##name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)  \
    {                                                                                              \
        D2_UNUSED(self);                                                                           \
        return np_unary(I, "numpy." #name, op, args, nargs, kw, fl);                               \
    }
UNARY_FN(exp, D2_OP_exp, true)
UNARY_FN(log, D2_OP_log, true)
UNARY_FN(sqrt, D2_OP_sqrt, true)
UNARY_FN(tanh, D2_OP_tanh, true)
UNARY_FN(sin, D2_OP_sin, true)
UNARY_FN(cos, D2_OP_cos, true)
UNARY_FN(floor, D2_OP_floor, true)
UNARY_FN(ceil, D2_OP_ceil, true)
UNARY_FN(abs, D2_OP_abs, false)
UNARY_FN(sign, D2_OP_sign, false)
UNARY_FN(square, D2_OP_square, false)
UNARY_FN(negative, D2_OP_neg, false)
UNARY_FN(logical_not, D2_OP_logical_not, false)
#undef UNARY_FN

static d2_obj *np_bin_fn(d2_interp *I, const char *fname, int op, d2_obj **args, size_t nargs,
                         d2_dict *kw)
{
    PARSE(fname, "x1, x2, out=None", 3);
    return wrap(I, np_binary_t(I, fname, op, a[0], a[1]));
}

#define BIN_FN(name, op)                                                                           \
    static d2_obj *n_##name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)  \
    {                                                                                              \
        D2_UNUSED(self);                                                                           \
        return np_bin_fn(I, "numpy." #name, op, args, nargs, kw);                                  \
    }
BIN_FN(add, D2_OP_ADD)
BIN_FN(subtract, D2_OP_SUB)
BIN_FN(multiply, D2_OP_MULT)
BIN_FN(divide, D2_OP_DIV)
BIN_FN(true_divide, D2_OP_DIV)
BIN_FN(floor_divide, D2_OP_FLOOR_DIV)
BIN_FN(mod, D2_OP_MOD)
BIN_FN(power, D2_OP_POW)
BIN_FN(matmul, D2_OP_MAT_MULT)
#undef BIN_FN

/* maximum/minimum/comparisons through a direct op after promotion */
static d2_obj *np_binop_op(d2_interp *I, const char *fname, d2_op_id op, d2_obj **args,
                           size_t nargs, d2_dict *kw)
{
    PARSE(fname, "x1, x2, out=None", 3);
    bool as = is_pynum(a[0]), bs = is_pynum(a[1]);
    d2_tensor *x = arr(I, a[0], -1, fname);
    d2_tensor *y = x ? arr(I, a[1], -1, fname) : NULL;
    d2_tensor *r = NULL;
    if (y) {
        d2_dtype dt = result_dt(x, as, y, bs);
        d2_tensor *xc = cast(I, fname, x, dt);
        d2_tensor *yc = xc ? cast(I, fname, y, dt) : NULL;
        if (yc) {
            d2_tensor *in[2] = {xc, yc};
            r = run(I, fname, op, in, 2, NULL);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return wrap(I, r);
}

static d2_obj *n_maximum(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_binop_op(I, "numpy.maximum", D2_OP_maximum, args, nargs, kw);
}

static d2_obj *n_minimum(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_binop_op(I, "numpy.minimum", D2_OP_minimum, args, nargs, kw);
}

static d2_obj *n_equal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_binop_op(I, "numpy.equal", D2_OP_equal, args, nargs, kw);
}

static d2_obj *n_logical_and(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_binop_op(I, "numpy.logical_and", D2_OP_logical_and, args, nargs, kw);
}

static d2_obj *n_logical_or(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_binop_op(I, "numpy.logical_or", D2_OP_logical_or, args, nargs, kw);
}

static d2_obj *n_where(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.where";
    PARSE(fname, "condition, x=None, y=None", 3);
    if (is_none(I, a[1]) || is_none(I, a[2]))
        return d2_raise(I, "NotImplementedError", "%s: the one-argument form is not supported",
                        fname);
    bool xs = is_pynum(a[1]), ys = is_pynum(a[2]);
    d2_tensor *c = arr(I, a[0], D2_BOOL, fname);
    d2_tensor *x = c ? arr(I, a[1], -1, fname) : NULL;
    d2_tensor *y = x ? arr(I, a[2], -1, fname) : NULL;
    d2_tensor *r = NULL;
    if (y) {
        d2_dtype dt = result_dt(x, xs, y, ys);
        d2_tensor *xc = cast(I, fname, x, dt);
        d2_tensor *yc = xc ? cast(I, fname, y, dt) : NULL;
        if (yc) {
            d2_tensor *in[3] = {c, xc, yc};
            r = run(I, fname, D2_OP_where, in, 3, NULL);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    d2_tensor *ts[] = {c, x, y};
    for (int i = 0; i < 3; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return wrap(I, r);
}

static d2_obj *n_clip(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.clip";
    WITH_SELF
    d2_obj *a[4] = {NULL};
    d2_obj *r = NULL;
    if (d2_parse_args(I, fname, "a, a_min=None, a_max=None, out=None", args, nargs, kw, a) == 0) {
        d2_tensor *x = arr(I, a[0], -1, fname);
        if (x) {
            char at[128];
            double lo = -INFINITY, hi = INFINITY;
            if ((is_none(I, a[1]) || d2_to_double(I, a[1], "a_min", &lo) == 0) &&
                (is_none(I, a[2]) || d2_to_double(I, a[2], "a_max", &hi) == 0)) {
                snprintf(at, sizeof at, "min = %.17g, max = %.17g", lo, hi);
                r = wrap(I, run(I, fname, D2_OP_clip, &x, 1, at));
            }
            d2_tensor_unref(x);
        }
    }
    END_SELF
    return r;
}

static d2_obj *n_round(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.round";
    WITH_SELF
    d2_obj *a[3] = {NULL};
    d2_obj *r = NULL;
    int64_t dec = 0;
    if (d2_parse_args(I, fname, "a, decimals=0, out=None", args, nargs, kw, a) == 0 &&
        d2_to_int64(I, a[1], "decimals", &dec) == 0) {
        d2_tensor *x = arr(I, a[0], -1, fname);
        d2_err err = {0};
        d2_tensor *c = x ? d2_tensor_copy_to(x, NULL, &err) : NULL;
        if (x && !c)
            d2_raise_err(I, &err);
        if (c && d2_dtype_is_float(c->dtype)) {
            int64_t n = d2_tensor_numel(c);
            double sc = pow(10.0, (double)dec);
            for (int64_t i = 0; i < n; i++) {
                double v = d2_tensor_get_f64(c, i);
                /* NumPy: round half to even of v * 10**dec, then divide */
                double y = dec >= 0 ? v * sc : v / pow(10.0, (double)-dec);
                double ry = nearbyint(y);
                double out = dec >= 0 ? ry / sc : ry * pow(10.0, (double)-dec);
                if (c->dtype == D2_F32)
                    ((float *)d2_tensor_data(c))[i] = (float)out;
                else
                    ((double *)d2_tensor_data(c))[i] = out;
            }
        }
        if (x)
            d2_tensor_unref(x);
        r = wrap(I, c);
    }
    END_SELF
    return r;
}

/* ---- shape manipulation ---- */

static d2_obj *np_transpose_t(d2_interp *I, d2_tensor *t, const int64_t *perm, int n)
{
    int64_t p[D2_MAX_DIMS];
    if (n == 0) {
        for (int i = 0; i < t->ndim; i++)
            p[i] = t->ndim - 1 - i;
        n = t->ndim;
        perm = p;
    }
    char at[200];
    size_t l = (size_t)snprintf(at, sizeof at, "perm = [");
    for (int i = 0; i < n; i++)
        l += (size_t)snprintf(at + l, sizeof at - l, "%s%lld", i ? ", " : "", (long long)perm[i]);
    snprintf(at + l, sizeof at - l, "]");
    return wrap(I, run(I, "numpy.transpose", D2_OP_transpose, &t, 1, at));
}

/* Reads a shape given as one int/tuple/list argument or as several ints. */
static int shape_args(d2_interp *I, d2_obj **args, size_t nargs, const char *fname, int64_t *dims,
                      int *n)
{
    if (nargs == 1)
        return d2_pd_ints(I, args[0], fname, "shape", dims, n, D2_MAX_DIMS);
    if (nargs > D2_MAX_DIMS) {
        d2_raise(I, "ValueError", "%s: too many dimensions", fname);
        return -1;
    }
    for (size_t i = 0; i < nargs; i++)
        if (d2_to_int64(I, args[i], "shape", &dims[i]) < 0)
            return -1;
    *n = (int)nargs;
    return 0;
}

static d2_tensor *reshape_t(d2_interp *I, const char *fname, d2_tensor *t, const int64_t *dims,
                            int n)
{
    int64_t known = 1, total = d2_tensor_numel(t);
    int neg = -1;
    int64_t d[D2_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        d[i] = dims[i];
        if (dims[i] == -1) {
            if (neg >= 0) {
                d2_raise(I, "ValueError", "%s: can only specify one unknown dimension", fname);
                return NULL;
            }
            neg = i;
        } else if (dims[i] < 0) {
            d2_raise(I, "ValueError", "%s: negative dimensions not allowed", fname);
            return NULL;
        } else {
            known *= dims[i];
        }
    }
    if (neg >= 0 && known > 0 && total % known == 0)
        d[neg] = total / known;
    int64_t prod = 1;
    for (int i = 0; i < n; i++)
        prod *= d[i];
    if (prod != total) {
        d2_buf b;
        d2_buf_init(&b);
        d2_buf_puts(&b, "(");
        for (int i = 0; i < n; i++)
            d2_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)dims[i]);
        d2_buf_puts(&b, n == 1 ? ",)" : ")");
        d2_raise(I, "ValueError", "cannot reshape array of size %lld into shape %s",
                 (long long)total, b.data ? b.data : "");
        d2_buf_free(&b);
        return NULL;
    }
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(t, &err);
    d2_tensor *r = c ? d2_tensor_copy_to(c, NULL, &err) : NULL;
    d2_tensor *v = r ? d2_tensor_reshape_view(r, n, d, &err) : NULL;
    if (c)
        d2_tensor_unref(c);
    if (r)
        d2_tensor_unref(r);
    if (!v)
        d2_raise_err(I, &err);
    return v;
}

static d2_obj *m_reshape(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.reshape");
    D2_UNUSED(kw);
    int64_t dims[D2_MAX_DIMS];
    int n;
    if (shape_args(I, args, nargs, "ndarray.reshape", dims, &n) < 0)
        return NULL;
    return wrap(I, reshape_t(I, "ndarray.reshape", NDA(self)->t, dims, n));
}

static d2_obj *n_reshape(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.reshape", "a, newshape, order='C'", 3);
    int64_t dims[D2_MAX_DIMS];
    int n;
    if (d2_pd_ints(I, a[1], "numpy.reshape", "newshape", dims, &n, D2_MAX_DIMS) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.reshape");
    if (!x)
        return NULL;
    d2_tensor *r = reshape_t(I, "numpy.reshape", x, dims, n);
    d2_tensor_unref(x);
    return wrap(I, r);
}

static d2_obj *m_flatten(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.flatten");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    int64_t n = -1;
    return wrap(I, reshape_t(I, "ndarray.flatten", NDA(self)->t, &n, 1));
}

static d2_obj *n_ravel(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    WITH_SELF
    d2_obj *a[2] = {NULL};
    d2_obj *r = NULL;
    if (d2_parse_args(I, "numpy.ravel", "a, order='C'", args, nargs, kw, a) == 0) {
        d2_tensor *x = arr(I, a[0], -1, "numpy.ravel");
        int64_t n = -1;
        if (x) {
            r = wrap(I, reshape_t(I, "numpy.ravel", x, &n, 1));
            d2_tensor_unref(x);
        }
    }
    END_SELF
    return r;
}

static d2_obj *m_transpose(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.transpose");
    D2_UNUSED(kw);
    int64_t p[D2_MAX_DIMS];
    int n = 0;
    if (nargs == 1 && is_none(I, args[0]))
        nargs = 0;
    if (nargs > 0 && shape_args(I, args, nargs, "ndarray.transpose", p, &n) < 0)
        return NULL;
    return np_transpose_t(I, NDA(self)->t, p, n);
}

static d2_obj *n_transpose(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.transpose", "a, axes=None", 2);
    int64_t p[D2_MAX_DIMS];
    int n = 0;
    if (!is_none(I, a[1]) && d2_pd_ints(I, a[1], "numpy.transpose", "axes", p, &n, D2_MAX_DIMS) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, "numpy.transpose");
    if (!x)
        return NULL;
    d2_obj *r = np_transpose_t(I, x, p, n);
    d2_tensor_unref(x);
    return r;
}

static d2_obj *n_squeeze(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    WITH_SELF
    d2_obj *a[2] = {NULL};
    d2_obj *r = NULL;
    if (d2_parse_args(I, "numpy.squeeze", "a, axis=None", args, nargs, kw, a) == 0) {
        d2_tensor *x = arr(I, a[0], -1, "numpy.squeeze");
        char at[200];
        if (x && axis_text(I, a[1], "numpy.squeeze", at, sizeof at, x->ndim) == 0)
            r = wrap(I, run(I, "numpy.squeeze", D2_OP_squeeze, &x, 1, at));
        if (x)
            d2_tensor_unref(x);
    }
    END_SELF
    return r;
}

static d2_obj *n_expand_dims(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.expand_dims", "a, axis", 2);
    d2_tensor *x = arr(I, a[0], -1, "numpy.expand_dims");
    if (!x)
        return NULL;
    char at[200];
    d2_obj *r = NULL;
    if (axis_text(I, a[1], "numpy.expand_dims", at, sizeof at, x->ndim + 1) == 0)
        r = wrap(I, run(I, "numpy.expand_dims", D2_OP_unsqueeze, &x, 1, at));
    d2_tensor_unref(x);
    return r;
}

static d2_obj *join(d2_interp *I, const char *fname, d2_op_id op, d2_obj *seq, int64_t axis)
{
    d2_obj *l = d2_list_from_iterable(I, seq);
    if (!l)
        return NULL;
    size_t n = D2_AS(d2_list, l)->n;
    if (n == 0) {
        d2_decref(l);
        return d2_raise(I, "ValueError", "%s: need at least one array", fname);
    }
    d2_tensor **ts = d2_calloc(n, sizeof *ts);
    d2_obj *r = NULL;
    if (!ts) {
        d2_decref(l);
        return nomem(I);
    }
    size_t i;
    d2_dtype dt = D2_BOOL;
    for (i = 0; i < n; i++) {
        ts[i] = arr(I, D2_AS(d2_list, l)->items[i], -1, fname);
        if (!ts[i])
            break;
        dt = i == 0 ? ts[i]->dtype : promote(dt, ts[i]->dtype);
    }
    if (i == n) {
        for (i = 0; i < n; i++) {
            d2_tensor *c = cast(I, fname, ts[i], dt);
            d2_tensor_unref(ts[i]);
            ts[i] = c;
            if (!c)
                break;
        }
    }
    if (i == n) {
        /* the op takes at most 16 inputs eagerly: join in groups */
        d2_tensor *acc = NULL;
        char at[64];
        if (op == D2_OP_stack) {
            /* stack = expand dims, then concat */
            int nd = ts[0]->ndim;
            int64_t ax = axis < 0 ? axis + nd + 1 : axis;
            snprintf(at, sizeof at, "axis = [%lld]", (long long)ax);
            for (size_t k = 0; k < n; k++) {
                d2_tensor *u = run(I, fname, D2_OP_unsqueeze, &ts[k], 1, at);
                d2_tensor_unref(ts[k]);
                ts[k] = u;
                if (!u)
                    break;
            }
            axis = ax;
        }
        snprintf(at, sizeof at, "axis = %lld", (long long)axis);
        bool ok = true;
        for (size_t k = 0; k < n && ok; k++)
            ok = ts[k] != NULL;
        for (size_t k = 0; ok && k < n; k += 15) {
            d2_tensor *grp[16];
            int g = 0;
            if (acc)
                grp[g++] = acc;
            for (size_t j = k; j < n && j < k + 15; j++)
                grp[g++] = ts[j];
            d2_tensor *nx = run(I, fname, D2_OP_concat, grp, g, at);
            if (acc)
                d2_tensor_unref(acc);
            acc = nx;
            ok = nx != NULL;
        }
        r = wrap(I, acc);
    }
    for (i = 0; i < n; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    d2_free(ts);
    d2_decref(l);
    return r;
}

static d2_obj *n_concatenate(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.concatenate", "arrays, axis=0, out=None", 3);
    int64_t ax;
    if (d2_to_int64(I, a[1], "axis", &ax) < 0)
        return NULL;
    return join(I, "numpy.concatenate", D2_OP_concat, a[0], ax);
}

static d2_obj *n_stack(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.stack", "arrays, axis=0, out=None", 3);
    int64_t ax;
    if (d2_to_int64(I, a[1], "axis", &ax) < 0)
        return NULL;
    return join(I, "numpy.stack", D2_OP_stack, a[0], ax);
}

/* ---- creation ---- */

static d2_obj *n_array(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.array", "object, dtype=None, copy=True, order=None, subok=False, ndmin=0", 6);
    int dt;
    if (dt_arg(I, a[1], "numpy.array", &dt) < 0)
        return NULL;
    d2_tensor *t = arr(I, a[0], dt, "numpy.array");
    if (!t)
        return NULL;
    int64_t ndmin;
    if (d2_to_int64(I, a[5], "ndmin", &ndmin) < 0) {
        d2_tensor_unref(t);
        return NULL;
    }
    if (ndmin > t->ndim && ndmin <= D2_MAX_DIMS) {
        int64_t d[D2_MAX_DIMS];
        int k = (int)ndmin - t->ndim;
        for (int i = 0; i < k; i++)
            d[i] = 1;
        for (int i = 0; i < t->ndim; i++)
            d[k + i] = t->shape[i];
        d2_err err = {0};
        d2_tensor *v = d2_tensor_reshape_view(t, (int)ndmin, d, &err);
        d2_tensor_unref(t);
        if (!v)
            return d2_raise_err(I, &err);
        t = v;
    }
    return wrap(I, t);
}

static d2_obj *n_asarray(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.asarray", "a, dtype=None, order=None", 3);
    int dt;
    if (dt_arg(I, a[1], "numpy.asarray", &dt) < 0)
        return NULL;
    if (is_nd(a[0]) && (dt < 0 || dt == (int)NDA(a[0])->t->dtype))
        return d2_incref(a[0]);
    return wrap(I, arr(I, a[0], dt, "numpy.asarray"));
}

static d2_tensor *filled(d2_interp *I, const char *fname, const int64_t *dims, int n, int dt,
                         double v)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, n, dims, &err);
    if (!t) {
        d2_raise_err(I, &err);
        return NULL;
    }
    D2_UNUSED(fname);
    int64_t k = d2_tensor_numel(t);
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < k; i++) {
        switch (dt) {
        case D2_F32: ((float *)p)[i] = (float)v; break;
        case D2_F64: ((double *)p)[i] = v; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)v; break;
        case D2_I64: ((int64_t *)p)[i] = (int64_t)v; break;
        case D2_BOOL: ((uint8_t *)p)[i] = v != 0; break;
        default: break;
        }
    }
    return t;
}

static d2_obj *np_fill_fn(d2_interp *I, const char *fname, d2_obj **args, size_t nargs, d2_dict *kw,
                          double v, bool has_fill)
{
    d2_obj *a[4] = {NULL};
    if (d2_parse_args(I, fname,
                      has_fill ? "shape, fill_value, dtype=None, order='C'"
                               : "shape, dtype=None, order='C'",
                      args, nargs, kw, a) < 0)
        return NULL;
    int64_t dims[D2_MAX_DIMS];
    int n, dt;
    if (d2_pd_ints(I, a[0], fname, "shape", dims, &n, D2_MAX_DIMS) < 0 ||
        dt_arg(I, a[has_fill ? 2 : 1], fname, &dt) < 0)
        return NULL;
    for (int i = 0; i < n; i++)
        if (dims[i] < 0)
            return d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
    if (has_fill) {
        if (!is_pynum(a[1]) && !is_nd(a[1]))
            return d2_raise(I, "TypeError", "%s: fill_value must be a number", fname);
        d2_tensor *fv = arr(I, a[1], -1, fname);
        if (!fv)
            return NULL;
        if (dt < 0)
            dt = fv->dtype;
        v = d2_tensor_numel(fv) ? d2_tensor_get_f64(fv, 0) : 0;
        d2_tensor_unref(fv);
    }
    if (dt < 0)
        dt = D2_F64;
    return wrap(I, filled(I, fname, dims, n, dt, v));
}

static d2_obj *n_zeros(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_fill_fn(I, "numpy.zeros", args, nargs, kw, 0, false);
}

static d2_obj *n_ones(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_fill_fn(I, "numpy.ones", args, nargs, kw, 1, false);
}

static d2_obj *n_empty(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_fill_fn(I, "numpy.empty", args, nargs, kw, 0, false);
}

static d2_obj *n_full(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_fill_fn(I, "numpy.full", args, nargs, kw, 0, true);
}

static d2_obj *np_like(d2_interp *I, const char *fname, d2_obj **args, size_t nargs, d2_dict *kw,
                       double v, bool has_fill)
{
    d2_obj *a[3] = {NULL};
    if (d2_parse_args(I, fname, has_fill ? "a, fill_value, dtype=None" : "a, dtype=None", args,
                      nargs, kw, a) < 0)
        return NULL;
    int dt;
    if (dt_arg(I, a[has_fill ? 2 : 1], fname, &dt) < 0)
        return NULL;
    if (has_fill && d2_to_double(I, a[1], "fill_value", &v) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    if (!x)
        return NULL;
    d2_tensor *r = filled(I, fname, x->shape, x->ndim, dt < 0 ? (int)x->dtype : dt, v);
    d2_tensor_unref(x);
    return wrap(I, r);
}

static d2_obj *n_zeros_like(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_like(I, "numpy.zeros_like", args, nargs, kw, 0, false);
}

static d2_obj *n_ones_like(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_like(I, "numpy.ones_like", args, nargs, kw, 1, false);
}

static d2_obj *n_full_like(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_like(I, "numpy.full_like", args, nargs, kw, 0, true);
}

static d2_obj *n_arange(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.arange";
    PARSE(fname, "start, stop=None, step=None, dtype=None", 4);
    d2_obj *st = a[0], *sp = a[1], *se = a[2];
    if (is_none(I, sp)) {
        sp = st;
        st = NULL;
    }
    bool flt = false;
    d2_obj *vs[3] = {st, sp, se};
    double v[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++) {
        if (!vs[i] || is_none(I, vs[i]))
            continue;
        if (vs[i]->kind == D2_OBJ_FLOAT)
            flt = true;
        if (d2_to_double(I, vs[i], "arange argument", &v[i]) < 0)
            return NULL;
    }
    int dt;
    if (dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = flt ? D2_F64 : D2_I64;
    if (v[2] == 0)
        return d2_raise(I, "ZeroDivisionError", "%s: step must not be zero", fname);
    double len = ceil((v[1] - v[0]) / v[2]);
    int64_t n = len > 0 ? (int64_t)len : 0;
    if (n > ((int64_t)1 << 40))
        return d2_raise(I, "ValueError", "%s: the result would be too large", fname);
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, 1, &n, &err);
    if (!t)
        return d2_raise_err(I, &err);
    void *p = d2_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        double x = v[0] + (double)i * v[2];
        switch (dt) {
        case D2_F32: ((float *)p)[i] = (float)x; break;
        case D2_F64: ((double *)p)[i] = x; break;
        case D2_I32: ((int32_t *)p)[i] = (int32_t)x; break;
        case D2_I64: ((int64_t *)p)[i] = (int64_t)x; break;
        default: ((uint8_t *)p)[i] = x != 0; break;
        }
    }
    return wrap(I, t);
}

static d2_obj *n_linspace(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.linspace";
    PARSE(fname, "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0", 7);
    double s, e;
    int64_t n;
    int dt;
    bool endpoint = !is_pynum(a[3]) || D2_AS(d2_int, a[3])->v;
    if (d2_to_double(I, a[0], "start", &s) < 0 || d2_to_double(I, a[1], "stop", &e) < 0 ||
        d2_to_int64(I, a[2], "num", &n) < 0 || dt_arg(I, a[5], fname, &dt) < 0)
        return NULL;
    if (n < 0)
        return d2_raise(I, "ValueError", "Number of samples, %lld, must be non-negative.",
                        (long long)n);
    if (dt < 0)
        dt = D2_F64;
    double div = endpoint ? (double)(n - 1) : (double)n;
    double step = div > 0 ? (e - s) / div : 0;
    double *v = d2_malloc(sizeof(double) * (size_t)(n + 1));
    if (!v)
        return nomem(I);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)i * step + s;
    if (endpoint && n > 1)
        v[n - 1] = e;
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F64, 1, &n, &err);
    if (t)
        memcpy(d2_tensor_data(t), v, sizeof(double) * (size_t)n);
    d2_free(v);
    if (!t)
        return d2_raise_err(I, &err);
    d2_tensor *c = cast(I, fname, t, dt);
    d2_tensor_unref(t);
    return wrap(I, c);
}

static d2_obj *n_eye(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.eye";
    PARSE(fname, "N, M=None, k=0, dtype=None", 4);
    int64_t n, m, k;
    int dt;
    if (d2_to_int64(I, a[0], "N", &n) < 0 || d2_to_int64(I, a[2], "k", &k) < 0 ||
        dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    m = n;
    if (!is_none(I, a[1]) && d2_to_int64(I, a[1], "M", &m) < 0)
        return NULL;
    if (n < 0 || m < 0)
        return d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
    int64_t dims[2] = {n, m};
    d2_tensor *t = filled(I, fname, dims, 2, dt < 0 ? D2_F64 : dt, 0);
    if (!t)
        return NULL;
    size_t es = d2_dtype_size(t->dtype);
    d2_tensor *one = filled(I, fname, dims, 0, t->dtype, 1);
    if (!one) {
        d2_tensor_unref(t);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t j = i + k;
        if (j >= 0 && j < m)
            memcpy((char *)d2_tensor_data(t) + es * (size_t)(i * m + j), d2_tensor_data(one), es);
    }
    d2_tensor_unref(one);
    return wrap(I, t);
}

static d2_obj *n_identity(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    PARSE("numpy.identity", "n, dtype=None", 2);
    d2_obj *av[1] = {a[0]};
    d2_obj *kd = d2_dict_new(I);
    if (!kd)
        return NULL;
    if (!is_none(I, a[1]) && d2_dict_set_str(I, D2_AS(d2_dict, kd), "dtype", a[1]) < 0) {
        d2_decref(kd);
        return NULL;
    }
    d2_obj *r = n_eye(I, self, av, 1, D2_AS(d2_dict, kd));
    d2_decref(kd);
    return r;
}

/* ---- ndarray methods ---- */

static d2_obj *m_astype(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.astype");
    PARSE("ndarray.astype", "dtype, order='K', casting='unsafe', subok=True, copy=True", 5);
    int dt;
    if (dt_arg(I, a[0], "ndarray.astype", &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = D2_F64;
    d2_tensor *t = NDA(self)->t;
    if ((int)t->dtype == dt) {
        d2_err err = {0};
        d2_tensor *c = d2_tensor_copy_to(t, NULL, &err);
        return c ? wrap(I, c) : d2_raise_err(I, &err);
    }
    return wrap(I, cast(I, "ndarray.astype", t, dt));
}

static d2_obj *m_tolist(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.tolist");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(self)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    d2_obj *r = d2_pd_tolist(I, c);
    d2_tensor_unref(c);
    return r;
}

static d2_obj *m_copy(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.copy");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(NDA(self)->t, NULL, &err);
    return c ? wrap(I, c) : d2_raise_err(I, &err);
}

static d2_obj *m_item(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.item");
    D2_UNUSED(kw);
    d2_err err = {0};
    d2_tensor *c = d2_tensor_contiguous(NDA(self)->t, &err);
    if (!c)
        return d2_raise_err(I, &err);
    int64_t n = d2_tensor_numel(c), i = 0;
    d2_obj *r = NULL;
    if (nargs == 0 && n != 1) {
        r = d2_raise(I, "ValueError", "can only convert an array of size 1 to a Python scalar");
    } else if (nargs == 1 && d2_to_int64(I, args[0], "index", &i) < 0) {
        r = NULL;
    } else if (nargs > 1) {
        r = d2_raise(I, "TypeError", "ndarray.item: multi-index is not supported");
    } else if (i < -n || i >= n) {
        r = d2_raise(I, "IndexError", "index %lld is out of bounds for size %lld", (long long)i,
                     (long long)n);
    } else {
        r = d2_pd_item(I, c, i < 0 ? i + n : i);
    }
    d2_tensor_unref(c);
    return r;
}

static d2_obj *m_fill(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("ndarray.fill");
    PARSE("ndarray.fill", "value", 1);
    double v;
    if (d2_to_double(I, a[0], "value", &v) < 0)
        return NULL;
    d2_tensor *t = NDA(self)->t;
    d2_tensor *f = filled(I, "ndarray.fill", t->shape, t->ndim, t->dtype, v);
    if (!f)
        return NULL;
    d2_tensor_unref(NDA(self)->t);
    NDA(self)->t = f;
    return d2_none(I);
}

static d2_obj *n_dot(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    WITH_SELF
    d2_obj *a[3] = {NULL};
    d2_obj *r = NULL;
    if (d2_parse_args(I, "numpy.dot", "a, b, out=None", args, nargs, kw, a) == 0) {
        d2_tensor *x = arr(I, a[0], -1, "numpy.dot");
        d2_tensor *y = x ? arr(I, a[1], -1, "numpy.dot") : NULL;
        if (y) {
            if (x->ndim == 0 || y->ndim == 0) {
                r = wrap(I, np_binary_t(I, "numpy.dot", D2_OP_MULT, a[0], a[1]));
            } else if (x->ndim == 1 && y->ndim == 1) {
                d2_tensor *m = np_binary_t(I, "numpy.dot", D2_OP_MULT, a[0], a[1]);
                if (m) {
                    r = wrap(I, run(I, "numpy.dot", D2_OP_sum, &m, 1, NULL));
                    d2_tensor_unref(m);
                }
            } else {
                r = wrap(I, np_binary_t(I, "numpy.dot", D2_OP_MAT_MULT, a[0], a[1]));
            }
        }
        if (x)
            d2_tensor_unref(x);
        if (y)
            d2_tensor_unref(y);
    }
    END_SELF
    return r;
}

/* ---- comparisons of whole arrays ---- */

/* Broadcasts x and y to a common shape as contiguous float64 tensors. */
static int bcast_f64(d2_interp *I, const char *fname, d2_tensor *x, d2_tensor *y, d2_tensor **bx,
                     d2_tensor **by)
{
    *bx = *by = NULL;
    d2_tensor *xc = cast(I, fname, x, D2_F64);
    d2_tensor *yc = xc ? cast(I, fname, y, D2_F64) : NULL;
    if (!yc) {
        if (xc)
            d2_tensor_unref(xc);
        return -1;
    }
    d2_tensor *zx = run(I, fname, D2_OP_full_like, &xc, 1, "value = 0");
    d2_tensor *zy = zx ? run(I, fname, D2_OP_full_like, &yc, 1, "value = 0") : NULL;
    d2_tensor *i1[2] = {xc, zy}, *i2[2] = {yc, zx};
    *bx = zy ? run(I, fname, D2_OP_add, i1, 2, NULL) : NULL;
    *by = *bx ? run(I, fname, D2_OP_add, i2, 2, NULL) : NULL;
    d2_tensor *ts[] = {xc, yc, zx, zy};
    for (int i = 0; i < 4; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    if (!*by) {
        if (*bx)
            d2_tensor_unref(*bx);
        *bx = NULL;
        return -1;
    }
    return 0;
}

static bool close_enough(double x, double y, double rtol, double atol, bool equal_nan)
{
    if (isnan(x) || isnan(y))
        return equal_nan && isnan(x) && isnan(y);
    if (isinf(x) || isinf(y))
        return x == y;
    return fabs(x - y) <= atol + rtol * fabs(y);
}

static d2_obj *np_close(d2_interp *I, d2_obj **args, size_t nargs, d2_dict *kw, bool all)
{
    const char *fname = all ? "numpy.allclose" : "numpy.isclose";
    PARSE(fname, "a, b, rtol=1e-05, atol=1e-08, equal_nan=False", 5);
    double rtol, atol;
    bool eqn = is_pynum(a[4]) && D2_AS(d2_int, a[4])->v;
    if (d2_to_double(I, a[2], "rtol", &rtol) < 0 || d2_to_double(I, a[3], "atol", &atol) < 0)
        return NULL;
    d2_tensor *x = arr(I, a[0], -1, fname);
    d2_tensor *y = x ? arr(I, a[1], -1, fname) : NULL;
    d2_tensor *bx = NULL, *by = NULL;
    d2_obj *r = NULL;
    if (y && bcast_f64(I, fname, x, y, &bx, &by) == 0) {
        int64_t n = d2_tensor_numel(bx);
        if (all) {
            bool ok = true;
            for (int64_t i = 0; i < n && ok; i++)
                ok = close_enough(d2_tensor_get_f64(bx, i), d2_tensor_get_f64(by, i), rtol, atol,
                                  eqn);
            r = d2_bool(I, ok);
        } else {
            d2_err err = {0};
            d2_tensor *o = d2_tensor_new(NULL, D2_BOOL, bx->ndim, bx->shape, &err);
            if (o) {
                for (int64_t i = 0; i < n; i++)
                    ((uint8_t *)d2_tensor_data(o))[i] = close_enough(
                        d2_tensor_get_f64(bx, i), d2_tensor_get_f64(by, i), rtol, atol, eqn);
                r = wrap(I, o);
            } else {
                r = d2_raise_err(I, &err);
            }
        }
    }
    d2_tensor *ts[] = {x, y, bx, by};
    for (int i = 0; i < 4; i++)
        if (ts[i])
            d2_tensor_unref(ts[i]);
    return r;
}

static d2_obj *n_allclose(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_close(I, args, nargs, kw, true);
}

static d2_obj *n_isclose(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_close(I, args, nargs, kw, false);
}

static d2_obj *n_array_equal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.array_equal", "a1, a2, equal_nan=False", 3);
    d2_tensor *x = arr(I, a[0], -1, "numpy.array_equal");
    d2_tensor *y = x ? arr(I, a[1], -1, "numpy.array_equal") : NULL;
    d2_obj *r = NULL;
    if (y) {
        bool eq = same_shape(x, y);
        d2_err err = {0};
        d2_tensor *xc = eq ? d2_tensor_contiguous(x, &err) : NULL;
        d2_tensor *yc = xc ? d2_tensor_contiguous(y, &err) : NULL;
        if (eq && !yc) {
            r = d2_raise_err(I, &err);
        } else {
            int64_t n = eq ? d2_tensor_numel(xc) : 0;
            for (int64_t i = 0; i < n && eq; i++)
                eq = d2_tensor_get_f64(xc, i) == d2_tensor_get_f64(yc, i);
            r = d2_bool(I, eq);
        }
        if (xc)
            d2_tensor_unref(xc);
        if (yc)
            d2_tensor_unref(yc);
    }
    if (x)
        d2_tensor_unref(x);
    if (y)
        d2_tensor_unref(y);
    return r;
}

static d2_obj *np_classify(d2_interp *I, d2_obj **args, size_t nargs, d2_dict *kw, int which)
{
    static const char *names[] = {"numpy.isnan", "numpy.isinf", "numpy.isfinite"};
    PARSE(names[which], "x", 1);
    d2_tensor *x = arr(I, a[0], -1, names[which]);
    if (!x)
        return NULL;
    d2_err err = {0};
    d2_tensor *xc = d2_tensor_contiguous(x, &err);
    d2_tensor_unref(x);
    d2_tensor *o = xc ? d2_tensor_new(NULL, D2_BOOL, xc->ndim, xc->shape, &err) : NULL;
    if (!o) {
        if (xc)
            d2_tensor_unref(xc);
        return d2_raise_err(I, &err);
    }
    int64_t n = d2_tensor_numel(xc);
    for (int64_t i = 0; i < n; i++) {
        double v = d2_tensor_get_f64(xc, i);
        ((uint8_t *)d2_tensor_data(o))[i] = which == 0   ? isnan(v)
                                            : which == 1 ? isinf(v)
                                                         : isfinite(v);
    }
    d2_tensor_unref(xc);
    return wrap(I, o);
}

static d2_obj *n_isnan(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_classify(I, args, nargs, kw, 0);
}

static d2_obj *n_isinf(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_classify(I, args, nargs, kw, 1);
}

static d2_obj *n_isfinite(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    return np_classify(I, args, nargs, kw, 2);
}

/* ======================================================================
 * numpy.testing
 * ====================================================================== */

/* array2string of one value (a 0-d array) into b. */
static void fmt_value(d2_buf *b, double v, d2_dtype dt)
{
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, dt, 1, (int64_t[]){1}, &err);
    if (!t)
        return;
    if (dt == D2_F64)
        *(double *)d2_tensor_data(t) = v;
    else
        *(int64_t *)d2_tensor_data(t) = (int64_t)v;
    npfmt f;
    np_plan(t, false, &f);
    if (f.kind == 1)
        f.width = 0;
    np_elem(b, t, 0, &f);
    d2_tensor_unref(t);
}

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
    bool shapes_ok = x->ndim == 0 || y->ndim == 0 || same_shape(x, y);
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
        if (bcast_f64(I, fname, x, y, &bx, &by) < 0) {
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
                            : close_enough(u, v, rtol, atol, equal_nan);
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
            fmt_value(&b, max_abs, ints ? D2_I64 : D2_F64);
            d2_buf_puts(&b, "\nMax relative difference: ");
            if (any_nz)
                fmt_value(&b, max_rel, D2_F64);
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

static d2_obj *t_assert_allclose(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.testing.assert_allclose";
    PARSE(fname, "actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg='', verbose=True",
          7);
    double rtol, atol;
    if (d2_to_double(I, a[2], "rtol", &rtol) < 0 || d2_to_double(I, a[3], "atol", &atol) < 0)
        return NULL;
    const char *em = d2_to_cstr(I, a[5], "err_msg");
    if (!em)
        return NULL;
    bool eqn = !is_pynum(a[4]) || D2_AS(d2_int, a[4])->v;
    return assert_compare(I, fname, a[0], a[1], rtol, atol, false, eqn, em);
}

static d2_obj *t_assert_array_equal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                    d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.testing.assert_array_equal";
    PARSE(fname, "x, y, err_msg='', verbose=True", 4);
    const char *em = d2_to_cstr(I, a[2], "err_msg");
    if (!em)
        return NULL;
    return assert_compare(I, fname, a[0], a[1], 0, 0, true, true, em);
}

static d2_obj *t_assert_almost_equal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                     d2_dict *kw)
{
    D2_UNUSED(self);
    const char *fname = "numpy.testing.assert_array_almost_equal";
    PARSE(fname, "actual, desired, decimal=6, err_msg='', verbose=True", 5);
    int64_t dec;
    if (d2_to_int64(I, a[2], "decimal", &dec) < 0)
        return NULL;
    const char *em = d2_to_cstr(I, a[3], "err_msg");
    if (!em)
        return NULL;
    return assert_compare(I, fname, a[0], a[1], 0, 1.5 * pow(10.0, (double)-dec), false, true, em);
}

/* ======================================================================
 * .npy files
 * ====================================================================== */

static d2_obj *n_save(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.save", "file, arr, allow_pickle=True, fix_imports=True", 4);
    const char *path = d2_to_cstr(I, a[0], "file");
    if (!path)
        return NULL;
    char buf[4096];
    size_t l = strlen(path);
    snprintf(buf, sizeof buf, "%s%s", path,
             l >= 4 && strcmp(path + l - 4, ".npy") == 0 ? "" : ".npy");
    d2_tensor *t = arr(I, a[1], -1, "numpy.save");
    if (!t)
        return NULL;
    d2_err err = {0};
    int rc = d2_npy_save(t, buf, &err);
    d2_tensor_unref(t);
    if (rc < 0)
        return d2_raise_err(I, &err);
    return d2_none(I);
}

static d2_obj *n_load(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    PARSE("numpy.load",
          "file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding='ASCII'", 5);
    const char *path = d2_to_cstr(I, a[0], "file");
    if (!path)
        return NULL;
    d2_err err = {0};
    d2_tensor *t = d2_npy_load(path, &err);
    if (!t) {
        if (err.code == D2_ERR_IO)
            return d2_raise(I, "FileNotFoundError", "%s", err.msg);
        return d2_raise_err(I, &err);
    }
    return wrap(I, t);
}

/* ======================================================================
 * numpy.random: RandomState with the legacy streams
 * ====================================================================== */

static void mt_free(void *p) { d2_free(p); }

/* The generator of a RandomState instance (or the module's global one). */
static d2_mt19937 *rs_state(d2_interp *I, d2_obj *self)
{
    if (!self)
        self = NS(I)->global_rs;
    d2_obj *o = self && self->kind == D2_OBJ_INSTANCE
                    ? d2_dict_get_str(I, D2_AS(d2_instance, self)->dict, "_mt")
                    : NULL;
    if (!o || o->kind != D2_OBJ_OPAQUE) {
        d2_raise(I, "TypeError", "RandomState: the generator is not initialised");
        return NULL;
    }
    return D2_AS(d2_opaque, o)->payload;
}

static int rs_seed_with(d2_interp *I, d2_mt19937 *mt, d2_obj *seed)
{
    if (is_none(I, seed)) {
        static uint32_t counter;
        d2_mt_seed(mt, (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)mt ^ (counter++ * 2654435761u));
        return 0;
    }
    if (seed->kind == D2_OBJ_INT || seed->kind == D2_OBJ_BOOL ||
        (is_nd(seed) && NDA(seed)->t->ndim == 0)) {
        int64_t s;
        if (d2_to_int64(I, seed, "seed", &s) < 0)
            return -1;
        if (s < 0 || s > 0xffffffffLL) {
            d2_raise(I, "ValueError", "Seed must be between 0 and 2**32 - 1");
            return -1;
        }
        d2_mt_seed(mt, (uint32_t)s);
        return 0;
    }
    d2_tensor *t = arr(I, seed, D2_I64, "RandomState.seed");
    if (!t)
        return -1;
    int64_t n = d2_tensor_numel(t);
    uint32_t *key = d2_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    int rc = -1;
    if (!key) {
        nomem(I);
    } else if (n == 0 || t->ndim != 1) {
        d2_raise(I, "ValueError", "Seed must be non-empty and 1-D");
    } else {
        rc = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = d2_tensor_get_i64(t, i);
            if (v < 0 || v > 0xffffffffLL) {
                d2_raise(I, "ValueError", "Seed values must be between 0 and 2**32 - 1");
                rc = -1;
                break;
            }
            key[i] = (uint32_t)v;
        }
        if (rc == 0)
            d2_mt_seed_array(mt, key, (int)n);
    }
    d2_free(key);
    d2_tensor_unref(t);
    return rc;
}

static d2_obj *RS_init(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("RandomState.__init__");
    PARSE("numpy.random.RandomState", "seed=None", 1);
    if (self->kind != D2_OBJ_INSTANCE)
        return d2_raise(I, "TypeError", "RandomState.__init__: bad receiver");
    d2_mt19937 *mt = d2_calloc(1, sizeof *mt);
    if (!mt)
        return nomem(I);
    d2_obj *op = d2_obj_alloc(I, D2_OBJ_OPAQUE, d2_pd_layout_class(I, D2_OBJ_OPAQUE, NULL),
                              sizeof(d2_opaque));
    if (!op) {
        d2_free(mt);
        return NULL;
    }
    D2_AS(d2_opaque, op)->payload = mt;
    D2_AS(d2_opaque, op)->fin = mt_free;
    int rc = d2_dict_set_str(I, D2_AS(d2_instance, self)->dict, "_mt", op);
    d2_decref(op);
    if (rc < 0 || rs_seed_with(I, mt, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *RS_seed(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    PARSE("numpy.random.seed", "seed=None", 1);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt || rs_seed_with(I, mt, a[0]) < 0)
        return NULL;
    return d2_none(I);
}

/* size argument: None (a scalar result), an int, or a tuple. */
static int size_arg(d2_interp *I, d2_obj *o, const char *fname, int64_t *dims, int *n, bool *scalar)
{
    *scalar = is_none(I, o);
    *n = 0;
    if (*scalar)
        return 0;
    if (d2_pd_ints(I, o, fname, "size", dims, n, D2_MAX_DIMS) < 0)
        return -1;
    for (int i = 0; i < *n; i++)
        if (dims[i] < 0) {
            d2_raise(I, "ValueError", "%s: negative dimensions are not allowed", fname);
            return -1;
        }
    return 0;
}

typedef enum { R_DOUBLE, R_GAUSS, R_UNIFORM, R_NORMAL } rkind;

static d2_obj *draw(d2_interp *I, d2_mt19937 *mt, const char *fname, rkind k, double p0, double p1,
                    const int64_t *dims, int n, bool scalar)
{
    if (scalar) {
        double v = k == R_DOUBLE    ? d2_mt_double(mt)
                   : k == R_GAUSS   ? d2_mt_gauss(mt)
                   : k == R_UNIFORM ? p0 + p1 * d2_mt_double(mt)
                                    : p0 + p1 * d2_mt_gauss(mt);
        return d2_float_new(I, v);
    }
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, D2_F64, n, dims, &err);
    if (!t)
        return d2_raise_err(I, &err);
    D2_UNUSED(fname);
    int64_t cnt = d2_tensor_numel(t);
    double *p = d2_tensor_data(t);
    for (int64_t i = 0; i < cnt; i++)
        p[i] = k == R_DOUBLE    ? d2_mt_double(mt)
               : k == R_GAUSS   ? d2_mt_gauss(mt)
               : k == R_UNIFORM ? p0 + p1 * d2_mt_double(mt)
                                : p0 + p1 * d2_mt_gauss(mt);
    return wrap(I, t);
}

static d2_obj *RS_random(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    PARSE("numpy.random.random", "size=None", 1);
    d2_mt19937 *mt = rs_state(I, self);
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || size_arg(I, a[0], "numpy.random.random", dims, &n, &sc) < 0)
        return NULL;
    return draw(I, mt, "numpy.random.random", R_DOUBLE, 0, 0, dims, n, sc);
}

static d2_obj *RS_standard_normal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                  d2_dict *kw)
{
    PARSE("numpy.random.standard_normal", "size=None", 1);
    d2_mt19937 *mt = rs_state(I, self);
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || size_arg(I, a[0], "numpy.random.standard_normal", dims, &n, &sc) < 0)
        return NULL;
    return draw(I, mt, "numpy.random.standard_normal", R_GAUSS, 0, 0, dims, n, sc);
}

/* rand(d0, d1, ...) / randn(d0, d1, ...) */
static d2_obj *rand_dims(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw,
                         rkind k, const char *fname)
{
    if (kw && kw->live)
        return d2_raise(I, "TypeError", "%s() takes no keyword arguments", fname);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    if (nargs > D2_MAX_DIMS)
        return d2_raise(I, "ValueError", "%s: too many dimensions", fname);
    int64_t dims[D2_MAX_DIMS];
    for (size_t i = 0; i < nargs; i++) {
        if (d2_to_int64(I, args[i], "dimension", &dims[i]) < 0)
            return NULL;
        if (dims[i] < 0)
            return d2_raise(I, "ValueError", "negative dimensions are not allowed");
    }
    return draw(I, mt, fname, k, 0, 0, dims, (int)nargs, nargs == 0);
}

static d2_obj *RS_rand(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    return rand_dims(I, self, args, nargs, kw, R_DOUBLE, "numpy.random.rand");
}

static d2_obj *RS_randn(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    return rand_dims(I, self, args, nargs, kw, R_GAUSS, "numpy.random.randn");
}

static d2_obj *RS_uniform(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.random.uniform";
    PARSE(fname, "low=0.0, high=1.0, size=None", 3);
    d2_mt19937 *mt = rs_state(I, self);
    double lo, hi;
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || d2_to_double(I, a[0], "low", &lo) < 0 || d2_to_double(I, a[1], "high", &hi) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0)
        return NULL;
    return draw(I, mt, fname, R_UNIFORM, lo, hi - lo, dims, n, sc);
}

static d2_obj *RS_normal(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.random.normal";
    PARSE(fname, "loc=0.0, scale=1.0, size=None", 3);
    d2_mt19937 *mt = rs_state(I, self);
    double loc, sc_;
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    if (!mt || d2_to_double(I, a[0], "loc", &loc) < 0 || d2_to_double(I, a[1], "scale", &sc_) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0)
        return NULL;
    if (sc_ < 0)
        return d2_raise(I, "ValueError", "scale < 0");
    return draw(I, mt, fname, R_NORMAL, loc, sc_, dims, n, sc);
}

static d2_obj *RS_randint(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.random.randint";
    PARSE(fname, "low, high=None, size=None, dtype=None", 4);
    d2_mt19937 *mt = rs_state(I, self);
    int64_t lo, hi;
    int64_t dims[D2_MAX_DIMS];
    int n, dt;
    bool sc;
    if (!mt || d2_to_int64(I, a[0], "low", &lo) < 0 ||
        size_arg(I, a[2], fname, dims, &n, &sc) < 0 || dt_arg(I, a[3], fname, &dt) < 0)
        return NULL;
    if (is_none(I, a[1])) {
        hi = lo;
        lo = 0;
    } else if (d2_to_int64(I, a[1], "high", &hi) < 0) {
        return NULL;
    }
    if (lo >= hi)
        return d2_raise(I, "ValueError", "low >= high");
    if (dt < 0)
        dt = D2_I64;
    if (dt != D2_I64 && dt != D2_I32 && dt != D2_BOOL)
        return d2_raise(I, "TypeError", "%s: unsupported dtype %s", fname, dtn(dt));
    uint64_t rng = (uint64_t)hi - (uint64_t)lo - 1;
    if (sc)
        return d2_int_new(I, lo + (int64_t)d2_mt_bounded(mt, rng));
    d2_err err = {0};
    d2_tensor *t = d2_tensor_new(NULL, (d2_dtype)dt, n, dims, &err);
    if (!t)
        return d2_raise_err(I, &err);
    int64_t cnt = d2_tensor_numel(t);
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = lo + (int64_t)d2_mt_bounded(mt, rng);
        if (dt == D2_I64)
            ((int64_t *)d2_tensor_data(t))[i] = v;
        else if (dt == D2_I32)
            ((int32_t *)d2_tensor_data(t))[i] = (int32_t)v;
        else
            ((uint8_t *)d2_tensor_data(t))[i] = v != 0;
    }
    return wrap(I, t);
}

/* Legacy in-place shuffle along the first axis. */
static int shuffle_tensor(d2_mt19937 *mt, d2_tensor *t)
{
    if (t->ndim == 0)
        return 0;
    int64_t n = t->shape[0];
    size_t row = d2_dtype_size(t->dtype);
    for (int d = 1; d < t->ndim; d++)
        row *= (size_t)t->shape[d];
    char *p = d2_tensor_data(t);
    char *tmp = d2_malloc(row + 1);
    if (!tmp)
        return -1;
    for (int64_t i = n - 1; i >= 1; i--) {
        int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i);
        if (j != i) {
            memcpy(tmp, p + row * (size_t)i, row);
            memcpy(p + row * (size_t)i, p + row * (size_t)j, row);
            memcpy(p + row * (size_t)j, tmp, row);
        }
    }
    d2_free(tmp);
    return 0;
}

static d2_obj *RS_shuffle(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    PARSE("numpy.random.shuffle", "x", 1);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    if (a[0]->kind == D2_OBJ_LIST) {
        d2_list *l = D2_AS(d2_list, a[0]);
        for (int64_t i = (int64_t)l->n - 1; i >= 1; i--) {
            int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i);
            d2_obj *t = l->items[i];
            l->items[i] = l->items[j];
            l->items[j] = t;
        }
        return d2_none(I);
    }
    if (!is_nd(a[0]))
        return d2_raise(I, "TypeError", "numpy.random.shuffle: x must be a list or an ndarray");
    d2_err err = {0};
    d2_tensor *c = d2_tensor_copy_to(NDA(a[0])->t, NULL, &err);
    if (!c)
        return d2_raise_err(I, &err);
    if (shuffle_tensor(mt, c) < 0) {
        d2_tensor_unref(c);
        return nomem(I);
    }
    d2_tensor_unref(NDA(a[0])->t);
    NDA(a[0])->t = c;
    return d2_none(I);
}

static d2_obj *RS_permutation(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    PARSE("numpy.random.permutation", "x", 1);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    d2_tensor *t;
    d2_err err = {0};
    if (a[0]->kind == D2_OBJ_INT) {
        int64_t n = D2_AS(d2_int, a[0])->v;
        if (n < 0)
            return d2_raise(I, "ValueError", "negative dimensions are not allowed");
        t = d2_tensor_new(NULL, D2_I64, 1, &n, &err);
        if (!t)
            return d2_raise_err(I, &err);
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)d2_tensor_data(t))[i] = i;
    } else {
        d2_tensor *x = arr(I, a[0], -1, "numpy.random.permutation");
        if (!x)
            return NULL;
        t = d2_tensor_copy_to(x, NULL, &err);
        d2_tensor_unref(x);
        if (!t)
            return d2_raise_err(I, &err);
    }
    if (shuffle_tensor(mt, t) < 0) {
        d2_tensor_unref(t);
        return nomem(I);
    }
    return wrap(I, t);
}

static d2_obj *RS_choice(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    const char *fname = "numpy.random.choice";
    PARSE(fname, "a, size=None, replace=True, p=None", 4);
    d2_mt19937 *mt = rs_state(I, self);
    if (!mt)
        return NULL;
    if (!is_none(I, a[3]))
        return d2_raise(I, "NotImplementedError", "%s: the p argument is not supported", fname);
    d2_tensor *pool = NULL;
    int64_t pop;
    if (a[0]->kind == D2_OBJ_INT) {
        pop = D2_AS(d2_int, a[0])->v;
    } else {
        pool = arr(I, a[0], -1, fname);
        if (!pool)
            return NULL;
        if (pool->ndim != 1) {
            d2_tensor_unref(pool);
            return d2_raise(I, "ValueError", "a must be 1-dimensional");
        }
        pop = pool->shape[0];
    }
    int64_t dims[D2_MAX_DIMS];
    int n;
    bool sc;
    bool replace = !is_pynum(a[2]) || D2_AS(d2_int, a[2])->v;
    if (pop <= 0 || size_arg(I, a[1], fname, dims, &n, &sc) < 0) {
        if (pool)
            d2_tensor_unref(pool);
        return pop <= 0 ? d2_raise(I, "ValueError", "a must be greater than 0") : NULL;
    }
    int64_t cnt = 1;
    for (int i = 0; i < n; i++)
        cnt *= dims[i];
    int64_t *idx = d2_malloc(sizeof(int64_t) * (size_t)(cnt > pop ? cnt : pop) + 8);
    if (!idx) {
        if (pool)
            d2_tensor_unref(pool);
        return nomem(I);
    }
    d2_obj *r = NULL;
    if (replace) {
        for (int64_t i = 0; i < cnt; i++)
            idx[i] = (int64_t)d2_mt_bounded(mt, (uint64_t)pop - 1);
    } else if (cnt > pop) {
        r = d2_raise(I, "ValueError",
                     "Cannot take a larger sample than population when 'replace=False'");
    } else {
        for (int64_t i = 0; i < pop; i++)
            idx[i] = i;
        for (int64_t i = pop - 1; i >= 1; i--) {
            int64_t j = (int64_t)d2_mt_bounded(mt, (uint64_t)i), t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
    }
    if (!d2_exc_pending(I)) {
        d2_err err = {0};
        d2_dtype dt = pool ? pool->dtype : D2_I64;
        d2_tensor *o = d2_tensor_new(NULL, dt, sc ? 0 : n, dims, &err);
        if (!o) {
            r = d2_raise_err(I, &err);
        } else {
            size_t es = d2_dtype_size(dt);
            d2_tensor *pc = pool ? d2_tensor_contiguous(pool, &err) : NULL;
            for (int64_t i = 0; i < cnt; i++) {
                if (pc)
                    memcpy((char *)d2_tensor_data(o) + es * (size_t)i,
                           (char *)d2_tensor_data(pc) + es * (size_t)idx[i], es);
                else
                    ((int64_t *)d2_tensor_data(o))[i] = idx[i];
            }
            if (pc)
                d2_tensor_unref(pc);
            r = sc ? d2_pd_item(I, o, 0) : d2_ndarray_wrap(I, o);
            d2_tensor_unref(o);
        }
    }
    d2_free(idx);
    if (pool)
        d2_tensor_unref(pool);
    return r;
}

/* Module-level numpy.random functions use the global RandomState. */
#define GLOBAL_RS(name)                                                                            \
    static d2_obj *G_##name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)  \
    {                                                                                              \
        D2_UNUSED(self);                                                                           \
        return RS_##name(I, NS(I)->global_rs, args, nargs, kw);                                    \
    }
GLOBAL_RS(seed)
GLOBAL_RS(random)
GLOBAL_RS(standard_normal)
GLOBAL_RS(rand)
GLOBAL_RS(randn)
GLOBAL_RS(uniform)
GLOBAL_RS(normal)
GLOBAL_RS(randint)
GLOBAL_RS(shuffle)
GLOBAL_RS(permutation)
GLOBAL_RS(choice)
#undef GLOBAL_RS

/* ======================================================================
 * Module setup
 * ====================================================================== */

typedef struct fn_entry {
    const char *name;
    d2_builtin_fn fn;
} fn_entry;

static d2_module *np_module(d2_interp *I, const char *name, d2_module *parent, const char *attr)
{
    d2_module *m = d2_module_new_builtin(I, name);
    if (!m)
        return NULL;
    if (parent && d2_dict_set_str(I, parent->dict, attr, (d2_obj *)m) < 0)
        return NULL;
    return m;
}

static int set_float(d2_interp *I, d2_module *m, const char *name, double v)
{
    d2_obj *o = d2_float_new(I, v);
    int rc = o ? d2_dict_set_str(I, m->dict, name, o) : -1;
    d2_decref(o);
    return rc;
}

int d2_numpy_api_init(d2_interp *I)
{
    np_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_NUMPY] = s;
    I->ext_fini[D2_EXT_NUMPY] = np_fini;
    d2_module *np = s->np = np_module(I, "numpy", NULL, NULL);
    d2_module *rnd = s->random = np ? np_module(I, "numpy.random", np, "random") : NULL;
    d2_module *tst = s->testing = np ? np_module(I, "numpy.testing", np, "testing") : NULL;
    if (!np || !rnd || !tst)
        return -1;
    /* ndarray */
    d2_class *nc = d2_pd_layout_class(I, D2_OBJ_NDARRAY, "numpy");
    if (!nc || d2_dict_set_str(I, np->dict, "ndarray", (d2_obj *)nc) < 0)
        return -1;
    I->hooks[D2_OBJ_NDARRAY] = &ndarray_hooks;
    static const fn_entry methods[] = {
        {"astype", m_astype}, {"reshape", m_reshape}, {"flatten", m_flatten},
        {"ravel", n_ravel},   {"tolist", m_tolist},   {"transpose", m_transpose},
        {"sum", n_sum},       {"mean", n_mean},       {"max", n_max},
        {"min", n_min},       {"prod", n_prod},       {"argmax", n_argmax},
        {"argmin", n_argmin}, {"all", n_all},         {"any", n_any},
        {"std", n_std},       {"var", n_var},         {"copy", m_copy},
        {"item", m_item},     {"squeeze", n_squeeze}, {"clip", n_clip},
        {"round", n_round},   {"dot", n_dot},         {"fill", m_fill},
    };
    for (size_t i = 0; i < D2_COUNTOF(methods); i++)
        if (d2_class_add_method(I, nc, methods[i].name, methods[i].fn) < 0)
            return -1;
    /* dtypes and constants */
    static const struct {
        const char *name;
        d2_dtype dt;
    } dts[] = {{"float32", D2_F32}, {"float64", D2_F64}, {"int32", D2_I32},  {"int64", D2_I64},
               {"bool_", D2_BOOL},  {"single", D2_F32},  {"double", D2_F64}, {"intc", D2_I32},
               {"int_", D2_I64},    {"float_", D2_F64}};
    for (size_t i = 0; i < D2_COUNTOF(dts); i++) {
        d2_obj *o = d2_pd_dtype_obj(I, dts[i].dt, true);
        if (!o || d2_dict_set_str(I, np->dict, dts[i].name, o) < 0)
            return -1;
    }
    d2_obj *dcls = (d2_obj *)d2_pd_layout_class(I, D2_OBJ_DTYPE, NULL);
    if (!dcls || d2_dict_set_str(I, np->dict, "dtype", dcls) < 0 ||
        d2_dict_set_str(I, np->dict, "newaxis", I->none) < 0 || set_float(I, np, "pi", M_PI) < 0 ||
        set_float(I, np, "e", M_E) < 0 || set_float(I, np, "inf", INFINITY) < 0 ||
        set_float(I, np, "nan", NAN) < 0)
        return -1;
    static const fn_entry fns[] = {
        {"array", n_array},
        {"asarray", n_asarray},
        {"ascontiguousarray", n_asarray},
        {"zeros", n_zeros},
        {"ones", n_ones},
        {"empty", n_empty},
        {"full", n_full},
        {"zeros_like", n_zeros_like},
        {"ones_like", n_ones_like},
        {"full_like", n_full_like},
        {"arange", n_arange},
        {"linspace", n_linspace},
        {"eye", n_eye},
        {"identity", n_identity},
        {"concatenate", n_concatenate},
        {"stack", n_stack},
        {"reshape", n_reshape},
        {"transpose", n_transpose},
        {"squeeze", n_squeeze},
        {"expand_dims", n_expand_dims},
        {"ravel", n_ravel},
        {"sum", n_sum},
        {"mean", n_mean},
        {"prod", n_prod},
        {"max", n_max},
        {"min", n_min},
        {"amax", n_max},
        {"amin", n_min},
        {"all", n_all},
        {"any", n_any},
        {"argmax", n_argmax},
        {"argmin", n_argmin},
        {"std", n_std},
        {"var", n_var},
        {"exp", n_exp},
        {"log", n_log},
        {"sqrt", n_sqrt},
        {"tanh", n_tanh},
        {"sin", n_sin},
        {"cos", n_cos},
        {"floor", n_floor},
        {"ceil", n_ceil},
        {"abs", n_abs},
        {"absolute", n_abs},
        {"sign", n_sign},
        {"square", n_square},
        {"negative", n_negative},
        {"logical_not", n_logical_not},
        {"logical_and", n_logical_and},
        {"logical_or", n_logical_or},
        {"add", n_add},
        {"subtract", n_subtract},
        {"multiply", n_multiply},
        {"divide", n_divide},
        {"true_divide", n_true_divide},
        {"floor_divide", n_floor_divide},
        {"mod", n_mod},
        {"remainder", n_mod},
        {"power", n_power},
        {"matmul", n_matmul},
        {"dot", n_dot},
        {"maximum", n_maximum},
        {"minimum", n_minimum},
        {"equal", n_equal},
        {"where", n_where},
        {"clip", n_clip},
        {"round", n_round},
        {"around", n_round},
        {"allclose", n_allclose},
        {"isclose", n_isclose},
        {"array_equal", n_array_equal},
        {"isnan", n_isnan},
        {"isinf", n_isinf},
        {"isfinite", n_isfinite},
        {"save", n_save},
        {"load", n_load},
    };
    for (size_t i = 0; i < D2_COUNTOF(fns); i++)
        if (d2_module_add_fn(I, np, fns[i].name, fns[i].fn, NULL) < 0)
            return -1;
    static const fn_entry tfns[] = {
        {"assert_allclose", t_assert_allclose},
        {"assert_array_equal", t_assert_array_equal},
        {"assert_equal", t_assert_array_equal},
        {"assert_array_almost_equal", t_assert_almost_equal},
        {"assert_almost_equal", t_assert_almost_equal},
    };
    for (size_t i = 0; i < D2_COUNTOF(tfns); i++)
        if (d2_module_add_fn(I, tst, tfns[i].name, tfns[i].fn, NULL) < 0)
            return -1;
    /* random */
    static const fn_entry rs_methods[] = {
        {"__init__", RS_init},
        {"seed", RS_seed},
        {"random", RS_random},
        {"random_sample", RS_random},
        {"rand", RS_rand},
        {"randn", RS_randn},
        {"standard_normal", RS_standard_normal},
        {"uniform", RS_uniform},
        {"normal", RS_normal},
        {"randint", RS_randint},
        {"shuffle", RS_shuffle},
        {"permutation", RS_permutation},
        {"choice", RS_choice},
    };
    d2_class *rs = s->rs_cls = d2_class_new_builtin(I, "RandomState", NULL, D2_OBJ_INSTANCE, rnd);
    if (!rs || d2_dict_set_str(I, rnd->dict, "RandomState", (d2_obj *)rs) < 0)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(rs_methods); i++)
        if (d2_class_add_method(I, rs, rs_methods[i].name, rs_methods[i].fn) < 0)
            return -1;
    d2_obj *g = d2_instance_new(I, rs);
    if (!g)
        return -1;
    int rc = d2_dict_set_str(I, rnd->dict, "_rand", g);
    d2_decref(g);
    if (rc < 0)
        return -1;
    s->global_rs = g; /* kept alive by numpy.random._rand */
    d2_obj *seed0 = d2_int_new(I, 0);
    d2_obj *r = seed0 ? RS_init(I, g, &seed0, 1, NULL) : NULL;
    d2_decref(seed0);
    if (!r)
        return -1;
    d2_decref(r);
    static const fn_entry rfns[] = {
        {"seed", G_seed},
        {"random", G_random},
        {"random_sample", G_random},
        {"sample", G_random},
        {"rand", G_rand},
        {"randn", G_randn},
        {"standard_normal", G_standard_normal},
        {"uniform", G_uniform},
        {"normal", G_normal},
        {"randint", G_randint},
        {"shuffle", G_shuffle},
        {"permutation", G_permutation},
        {"choice", G_choice},
    };
    for (size_t i = 0; i < D2_COUNTOF(rfns); i++)
        if (d2_module_add_fn(I, rnd, rfns[i].name, rfns[i].fn, NULL) < 0)
            return -1;
    return 0;
}

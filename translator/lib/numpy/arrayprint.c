/* arrayprint.c - NumPy-style printing: array2string for ndarray repr/str and scalar reprs. */
#include "lib/numpy/numpy_priv.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* a (>= 0) printed as "%.*e" with prec >= 1: the mantissa's int digit, its
 * fraction (trailing zeros cut when trim) and the exponent (returned). */
static int exp_digits(double a, int prec, bool trim, char *ip, char *fp)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", prec, a);
    ip[0] = buf[0];
    ip[1] = 0;
    int n = 0;
    const char *q = buf + 2;
    for (; *q && *q != 'e'; q++)
        fp[n++] = *q;
    while (trim && n > 0 && fp[n - 1] == '0')
        n--;
    fp[n] = 0;
    return atoi(q + 1);
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
        *e10 = exp_digits(a, prec, true, ip, fp);
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
            e = exp_digits(fabs(v), f->precision, false, ip, fp);
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

/* array2string of one value (a 0-d array) into b. */
void d2np_format_value(d2_buf *b, double v, d2_dtype dt)
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

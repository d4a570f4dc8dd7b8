/* format.c - formatting: float repr, format specs, printf-style % and str.format. */
#include "interp/interp_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- float repr: the shortest string that round-trips, formatted as Python's repr ---- */

void d2i_float_repr(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v < 0 ? "-inf" : "inf");
        return;
    }
    if (v == 0) {
        snprintf(buf, n, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char tmp[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp: [-]d[.ddd]e[+-]XX */
    const char *s = tmp;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    char out[64];
    size_t k = 0;
    if (neg)
        out[k++] = '-';
    if (decpt > 16 || decpt < -3) {
        out[k++] = digits[0];
        if (nd > 1) {
            out[k++] = '.';
            for (int i = 1; i < nd; i++)
                out[k++] = digits[i];
        }
        k += (size_t)snprintf(out + k, sizeof out - k, "e%c%02d", exp10 < 0 ? '-' : '+',
                              exp10 < 0 ? -exp10 : exp10);
    } else if (decpt <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -decpt; i++)
            out[k++] = '0';
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
    } else if (decpt >= nd) {
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
        for (int i = nd; i < decpt; i++)
            out[k++] = '0';
        out[k++] = '.';
        out[k++] = '0';
    } else {
        for (int i = 0; i < decpt; i++)
            out[k++] = digits[i];
        out[k++] = '.';
        for (int i = decpt; i < nd; i++)
            out[k++] = digits[i];
    }
    out[k] = 0;
    snprintf(buf, n, "%s", out);
}

/* ---- format(): the format-spec mini-language ---- */

typedef struct fspec {
    char fill[5];
    size_t fill_len;
    char align; /* 0 or one of < > ^ = */
    char sign;  /* 0 or + - ' ' */
    bool alt, zero;
    int64_t width;
    char group; /* 0 , _ */
    int64_t prec; /* -1 when absent */
    char type;    /* 0 when absent */
} fspec;

static int parse_spec(d2_interp *I, const char *s, size_t n, fspec *f)
{
    memset(f, 0, sizeof *f);
    f->prec = -1;
    f->fill[0] = ' ';
    f->fill_len = 1;
    size_t i = 0;
    if (n > 0) {
        size_t l = 0;
        d2i_utf8_decode(s, n, &l);
        if (l < n && strchr("<>^=", s[l])) {
            memcpy(f->fill, s, l);
            f->fill_len = l;
            f->align = s[l];
            i = l + 1;
        } else if (strchr("<>^=", s[0])) {
            f->align = s[0];
            i = 1;
        }
    }
    if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
        f->sign = s[i++];
    if (i < n && s[i] == 'z')
        i++;
    if (i < n && s[i] == '#') {
        f->alt = true;
        i++;
    }
    if (i < n && s[i] == '0') {
        f->zero = true;
        i++;
    }
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (f->width > 100000000)
            goto toobig;
        f->width = f->width * 10 + (s[i++] - '0');
    }
    if (i < n && (s[i] == ',' || s[i] == '_'))
        f->group = s[i++];
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') {
            d2_raise(I, "ValueError", "Format specifier missing precision");
            return -1;
        }
        f->prec = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (f->prec > 100000000)
                goto toobig;
            f->prec = f->prec * 10 + (s[i++] - '0');
        }
    }
    if (i < n)
        f->type = s[i++];
    if (i < n) {
        d2_raise(I, "ValueError", "Invalid format specifier '%.*s'", (int)n, s);
        return -1;
    }
    return 0;
toobig:
    d2_raise(I, "ValueError", "Too many decimal digits in format string");
    return -1;
}

/* Inserts separator sep every `every` digits into the leading run of digits of s. */
static void group_digits(d2_buf *out, const char *s, size_t n, char sep, int every)
{
    size_t nd = 0;
    while (nd < n && s[nd] >= '0' && s[nd] <= '9')
        nd++;
    for (size_t i = 0; i < nd; i++) {
        d2_buf_append(out, s + i, 1);
        size_t left = nd - i - 1;
        if (left && left % (size_t)every == 0)
            d2_buf_append(out, &sep, 1);
    }
    d2_buf_append(out, s + nd, n - nd);
}

/* Pads sign+prefix+body to the spec's width and alignment. */
static d2_obj *pad_field(d2_interp *I, const fspec *f, const char *sign, const char *prefix,
                         const char *body, size_t blen, bool numeric)
{
    size_t chars = strlen(sign) + strlen(prefix) + d2i_chars_in(body, blen);
    char align = f->align;
    const char *fill = f->fill;
    size_t fl = f->fill_len;
    if (f->zero && !f->align) {
        fill = "0";
        fl = 1;
        align = numeric ? '=' : '<';
    }
    if (!align)
        align = numeric ? '>' : '<';
    size_t pad = f->width > (int64_t)chars ? (size_t)f->width - chars : 0;
    if (pad && !d2i_size_ok(I, (uint64_t)f->width, 1, fl, "str"))
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    size_t left = 0, right = 0, mid = 0;
    switch (align) {
    case '<': right = pad; break;
    case '>': left = pad; break;
    case '^': left = pad / 2; right = pad - left; break;
    default: mid = pad; break;
    }
    for (size_t i = 0; i < left; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_puts(&b, sign);
    d2_buf_puts(&b, prefix);
    for (size_t i = 0; i < mid; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_append(&b, body, blen);
    for (size_t i = 0; i < right; i++)
        d2_buf_append(&b, fill, fl);
    return d2i_str_from_buf(I, &b);
}

static d2_obj *format_float(d2_interp *I, double x, fspec *f);

static d2_obj *format_int(d2_interp *I, int64_t v, fspec *f)
{
    char t = f->type;
    if (t && strchr("eEfFgG%", t))
        return format_float(I, (double)v, f);
    if (t && !strchr("dnbxXoc", t))
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'int'", t);
    if (f->prec >= 0)
        return d2_raise(I, "ValueError", "Precision not allowed in integer format specifier");
    if (t == 'c') {
        if (v < 0 || v > 0x10FFFF)
            return d2_raise(I, "OverflowError", "%%c arg not in range(0x110000)");
        char ch[4];
        size_t l = d2i_utf8_encode((uint32_t)v, ch);
        return pad_field(I, f, "", "", ch, l, true);
    }
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int base = t == 'b' ? 2 : t == 'o' ? 8 : (t == 'x' || t == 'X') ? 16 : 10;
    const char *dig = t == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[80];
    size_t k = sizeof tmp;
    do {
        tmp[--k] = dig[u % (uint64_t)base];
        u /= (uint64_t)base;
    } while (u);
    const char *sign = v < 0 ? "-" : f->sign == '+' ? "+" : f->sign == ' ' ? " " : "";
    const char *prefix = "";
    if (f->alt)
        prefix = base == 2 ? "0b" : base == 8 ? "0o" : base == 16 ? (t == 'X' ? "0X" : "0x") : "";
    if (f->group) {
        d2_buf g;
        d2_buf_init(&g);
        group_digits(&g, tmp + k, sizeof tmp - k, f->group, base == 10 ? 3 : 4);
        if (g.oom) {
            d2_buf_free(&g);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        d2_obj *r = pad_field(I, f, sign, prefix, g.data, g.len, true);
        d2_buf_free(&g);
        return r;
    }
    return pad_field(I, f, sign, prefix, tmp + k, sizeof tmp - k, true);
}

static d2_obj *format_float(d2_interp *I, double x, fspec *f)
{
    char t = f->type;
    if (t == 'n')
        t = 'g';
    if (t && !strchr("eEfFgG%", t))
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'float'", t);
    const char *sign = signbit(x) && !isnan(x) ? "-"
                       : f->sign == '+'        ? "+"
                       : f->sign == ' '        ? " "
                                               : "";
    double ax = fabs(x);
    char body[400];
    int prec = f->prec < 0 ? 6 : (int)(f->prec > 300 ? 300 : f->prec);
    if (isnan(x) || isinf(x)) {
        bool up = t && strchr("EFG", t);
        snprintf(body, sizeof body, "%s%s", isnan(x) ? (up ? "NAN" : "nan") : (up ? "INF" : "inf"),
                 t == '%' ? "%" : "");
    } else if (!t) {
        if (f->prec < 0) {
            d2i_float_repr(ax, body, sizeof body);
        } else {
            snprintf(body, sizeof body, f->alt ? "%#.*g" : "%.*g", prec ? prec : 1, ax);
            if (!strpbrk(body, ".e"))
                strcat(body, ".0");
        }
    } else if (t == '%') {
        snprintf(body, sizeof body, f->alt ? "%#.*f%%" : "%.*f%%", prec, ax * 100);
    } else {
        char cfmt[8] = "%.*";
        if (f->alt)
            strcpy(cfmt, "%#.*");
        size_t l = strlen(cfmt);
        cfmt[l] = t;
        cfmt[l + 1] = 0;
        snprintf(body, sizeof body, cfmt, (t == 'g' || t == 'G') && prec == 0 ? 1 : prec, ax);
    }
    if (f->group) {
        d2_buf g;
        d2_buf_init(&g);
        group_digits(&g, body, strlen(body), f->group, 3);
        if (g.oom) {
            d2_buf_free(&g);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        d2_obj *r = pad_field(I, f, sign, "", g.data, g.len, true);
        d2_buf_free(&g);
        return r;
    }
    return pad_field(I, f, sign, "", body, strlen(body), true);
}

static d2_obj *format_str(d2_interp *I, d2_str *s, fspec *f)
{
    if (f->type && f->type != 's')
        return d2_raise(I, "ValueError", "Unknown format code '%c' for object of type 'str'",
                        f->type);
    if (f->sign)
        return d2_raise(I, "ValueError", "Sign not allowed in string format specifier");
    if (f->align == '=')
        return d2_raise(I, "ValueError", "'=' alignment not allowed in string format specifier");
    size_t len = s->len;
    if (f->prec >= 0 && (size_t)f->prec < d2i_str_chars(s))
        len = d2i_str_offset(s, (size_t)f->prec);
    return pad_field(I, f, "", "", s->s, len, false);
}

d2_obj *d2i_format(d2_interp *I, d2_obj *v, const char *spec)
{
    size_t n = strlen(spec);
    if (v->kind == D2_OBJ_INSTANCE || v->kind >= D2_OBJ_TENSOR) {
        d2_obj *m = d2i_mro_lookup(I, v->cls, "__format__");
        if (m) {
            d2_obj *arg = d2_str_new(I, spec, n);
            if (!arg)
                return NULL;
            bool found;
            d2_obj *r = d2_call_special(I, v, "__format__", &arg, 1, &found);
            d2_decref(arg);
            if (r && r->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "__format__ must return a str, not %s", d2_type_name(r));
                d2_decref(r);
                return NULL;
            }
            return r;
        }
    }
    if (n == 0)
        return d2_str_of(I, v);
    fspec f;
    if (parse_spec(I, spec, n, &f) < 0)
        return NULL;
    switch (v->kind) {
    case D2_OBJ_INT:
    case D2_OBJ_BOOL:
        return format_int(I, D2_AS(d2_int, v)->v, &f);
    case D2_OBJ_FLOAT:
        return format_float(I, D2_AS(d2_float, v)->v, &f);
    case D2_OBJ_STR:
        return format_str(I, D2_AS(d2_str, v), &f);
    default:
        break;
    }
    return d2_raise(I, "TypeError", "unsupported format string passed to %s.__format__",
                    d2_type_name(v));
}

/* ---- printf-style formatting: fmt % args ---- */

static d2_obj *mod_int_body(d2_interp *I, d2_obj *v, char conv, const char *flags, int64_t width,
                            int64_t prec)
{
    int64_t iv;
    if (v->kind == D2_OBJ_FLOAT && (conv == 'd' || conv == 'i' || conv == 'u')) {
        double x = D2_AS(d2_float, v)->v;
        if (isnan(x) || isinf(x) || fabs(x) >= 9.2e18)
            return d2_raise(I, "OverflowError", "cannot convert float to integer");
        iv = (int64_t)x;
    } else if (v->kind == D2_OBJ_INT || v->kind == D2_OBJ_BOOL) {
        iv = D2_AS(d2_int, v)->v;
    } else if (I->hooks[v->kind] && I->hooks[v->kind]->to_number) {
        if (d2_index(I, v, &iv) < 0)
            return NULL;
    } else {
        if (conv == 'd' || conv == 'i' || conv == 'u')
            return d2_raise(I, "TypeError", "%%%c format: a real number is required, not %s", conv,
                            d2_type_name(v));
        return d2_raise(I, "TypeError", "%%%c format: an integer is required, not %s", conv,
                        d2_type_name(v));
    }
    uint64_t u = iv < 0 ? (uint64_t)0 - (uint64_t)iv : (uint64_t)iv;
    int base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
    const char *dig = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[80];
    size_t k = sizeof tmp;
    do {
        tmp[--k] = dig[u % (uint64_t)base];
        u /= (uint64_t)base;
    } while (u);
    d2_buf digits;
    d2_buf_init(&digits);
    for (int64_t i = (int64_t)(sizeof tmp - k); i < prec; i++)
        d2_buf_puts(&digits, "0");
    d2_buf_append(&digits, tmp + k, sizeof tmp - k);
    const char *sign = iv < 0 ? "-" : strchr(flags, '+') ? "+" : strchr(flags, ' ') ? " " : "";
    const char *prefix = "";
    if (strchr(flags, '#'))
        prefix = base == 8 ? "0o" : base == 16 ? (conv == 'X' ? "0X" : "0x") : "";
    fspec f;
    memset(&f, 0, sizeof f);
    f.fill[0] = ' ';
    f.fill_len = 1;
    f.width = width;
    f.align = strchr(flags, '-') ? '<' : strchr(flags, '0') ? '=' : '>';
    if (f.align == '=')
        f.fill[0] = '0';
    d2_obj *r = digits.oom ? d2_raise(I, "MemoryError", "out of memory")
                           : pad_field(I, &f, sign, prefix, digits.data, digits.len, true);
    d2_buf_free(&digits);
    return r;
}

d2_obj *d2i_str_mod(d2_interp *I, d2_obj *fmtobj, d2_obj *args)
{
    d2_str *fmt = D2_AS(d2_str, fmtobj);
    d2_obj **items = &args;
    size_t nitems = 1, next = 0;
    if (args->kind == D2_OBJ_TUPLE) {
        items = D2_AS(d2_tuple, args)->items;
        nitems = D2_AS(d2_tuple, args)->n;
    }
    bool mapping = (args->kind == D2_OBJ_DICT && !d2i_is_set(I, args)) ||
                   (args->kind == D2_OBJ_INSTANCE && d2i_mro_lookup(I, args->cls, "__getitem__"));
    bool used_map = false;
    d2_buf b;
    d2_buf_init(&b);
    const char *s = fmt->s, *end = fmt->s + fmt->len;
    while (s < end) {
        const char *pct = memchr(s, '%', (size_t)(end - s));
        if (!pct) {
            d2_buf_append(&b, s, (size_t)(end - s));
            break;
        }
        d2_buf_append(&b, s, (size_t)(pct - s));
        s = pct + 1;
        d2_obj *val = NULL, *owned = NULL;
        if (s < end && *s == '(') {
            const char *close = memchr(s, ')', (size_t)(end - s));
            if (!close) {
                d2_raise(I, "ValueError", "incomplete format key");
                goto fail;
            }
            if (!mapping) {
                d2_raise(I, "TypeError", "format requires a mapping");
                goto fail;
            }
            d2_obj *key = d2_str_new(I, s + 1, (size_t)(close - s - 1));
            if (!key)
                goto fail;
            owned = val = d2_getitem(I, args, key);
            d2_decref(key);
            if (!val)
                goto fail;
            used_map = true;
            s = close + 1;
        }
        char flags[8] = {0};
        size_t nf = 0;
        while (s < end && strchr("-+ #0", *s)) {
            if (nf < sizeof flags - 1 && !strchr(flags, *s))
                flags[nf++] = *s;
            s++;
        }
        int64_t width = 0, prec = -1;
        if (s < end && *s == '*') {
            if (next >= nitems || d2_to_int64(I, items[next++], "* wants int", &width) < 0) {
                if (!d2_exc_pending(I))
                    d2_raise(I, "TypeError", "not enough arguments for format string");
                goto fail_owned;
            }
            if (width < 0) {
                flags[nf++] = '-';
                width = -width;
            }
            s++;
        } else {
            while (s < end && *s >= '0' && *s <= '9')
                width = width * 10 + (*s++ - '0');
        }
        if (s < end && *s == '.') {
            s++;
            prec = 0;
            if (s < end && *s == '*') {
                if (next >= nitems || d2_to_int64(I, items[next++], "* wants int", &prec) < 0) {
                    if (!d2_exc_pending(I))
                        d2_raise(I, "TypeError", "not enough arguments for format string");
                    goto fail_owned;
                }
                s++;
            } else {
                while (s < end && *s >= '0' && *s <= '9')
                    prec = prec * 10 + (*s++ - '0');
            }
        }
        while (s < end && (*s == 'h' || *s == 'l' || *s == 'L'))
            s++;
        if (s >= end) {
            d2_raise(I, "ValueError", "incomplete format");
            goto fail_owned;
        }
        char conv = *s++;
        if (conv == '%') {
            d2_buf_puts(&b, "%");
            d2_decref(owned);
            continue;
        }
        if (!val) {
            if (next >= nitems) {
                d2_raise(I, "TypeError", "not enough arguments for format string");
                goto fail;
            }
            val = items[next++];
        }
        d2_obj *piece = NULL;
        switch (conv) {
        case 's':
        case 'r':
        case 'a': {
            d2_obj *sv = conv == 's' ? d2_str_of(I, val) : d2_repr(I, val);
            if (!sv)
                goto fail_owned;
            fspec f;
            memset(&f, 0, sizeof f);
            f.fill[0] = ' ';
            f.fill_len = 1;
            f.width = width;
            f.prec = prec;
            f.align = strchr(flags, '-') ? '<' : '>';
            piece = format_str(I, D2_AS(d2_str, sv), &f);
            d2_decref(sv);
            break;
        }
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            piece = mod_int_body(I, val, conv, flags, width, prec);
            break;
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G': {
            double x;
            if (d2_to_double(I, val, "float argument", &x) < 0) {
                d2_exc_clear(I);
                d2_raise(I, "TypeError", "must be real number, not %s", d2_type_name(val));
                goto fail_owned;
            }
            char cfmt[32], out[512];
            snprintf(cfmt, sizeof cfmt, "%%%s*.*%c", flags, conv);
            snprintf(out, sizeof out, cfmt, (int)(width > 400 ? 400 : width),
                     (int)(prec < 0 ? 6 : prec > 300 ? 300 : prec), x);
            if (isnan(x)) { /* C may print -nan */
                char *m = strstr(out, "-nan");
                if (!m)
                    m = strstr(out, "-NAN");
                if (m)
                    *m = ' ';
            }
            piece = d2_str_from(I, out);
            break;
        }
        case 'c': {
            d2_obj *ch = NULL;
            if (val->kind == D2_OBJ_STR && d2i_str_chars(D2_AS(d2_str, val)) == 1) {
                ch = d2_incref(val);
            } else if (val->kind == D2_OBJ_INT) {
                int64_t cp = D2_AS(d2_int, val)->v;
                if (cp < 0 || cp > 0x10FFFF) {
                    d2_raise(I, "OverflowError", "%%c arg not in range(0x110000)");
                    goto fail_owned;
                }
                ch = d2i_char(I, (uint32_t)cp);
            } else {
                d2_raise(I, "TypeError", "%%c requires int or char");
                goto fail_owned;
            }
            if (!ch)
                goto fail_owned;
            fspec f;
            memset(&f, 0, sizeof f);
            f.fill[0] = ' ';
            f.fill_len = 1;
            f.width = width;
            f.prec = -1;
            f.align = strchr(flags, '-') ? '<' : '>';
            piece = format_str(I, D2_AS(d2_str, ch), &f);
            d2_decref(ch);
            break;
        }
        default:
            d2_raise(I, "ValueError", "unsupported format character '%c' (0x%x) at index %zu", conv,
                     (unsigned)(unsigned char)conv, (size_t)(s - 1 - fmt->s));
            goto fail_owned;
        }
        d2_decref(owned);
        owned = NULL;
        if (!piece)
            goto fail;
        d2_buf_append(&b, D2_AS(d2_str, piece)->s, D2_AS(d2_str, piece)->len);
        d2_decref(piece);
        continue;
    fail_owned:
        d2_decref(owned);
        goto fail;
    }
    if (next < nitems && !used_map && !(mapping && args->kind != D2_OBJ_TUPLE)) {
        d2_raise(I, "TypeError", "not all arguments converted during string formatting");
        goto fail;
    }
    return d2i_str_from_buf(I, &b);
fail:
    d2_buf_free(&b);
    return NULL;
}

/* ---- str.format ---- */

typedef struct fmt_state {
    d2_obj **args;
    size_t nargs;
    d2_dict *kw;
    int auto_idx; /* next automatic index; -1 after a manual one */
    bool manual;
} fmt_state;

static int format_into(d2_interp *I, d2_buf *b, const char *fmt, size_t len, fmt_state *st,
                       int depth);

/* Resolves a field name ("0", "name", "x.attr[2]") to a new reference. */
static d2_obj *field_value(d2_interp *I, const char *s, size_t n, fmt_state *st)
{
    size_t i = 0;
    while (i < n && s[i] != '.' && s[i] != '[')
        i++;
    d2_obj *v;
    if (i == 0) {
        if (st->manual) {
            d2_raise(I, "ValueError",
                     "cannot switch from manual field specification to automatic field numbering");
            return NULL;
        }
        size_t idx = (size_t)st->auto_idx++;
        if (idx >= st->nargs)
            return d2_raise(I, "IndexError",
                            "Replacement index %zu out of range for positional args tuple", idx);
        v = d2_incref(st->args[idx]);
    } else if (s[0] >= '0' && s[0] <= '9') {
        if (st->auto_idx > 0) {
            d2_raise(I, "ValueError",
                     "cannot switch from automatic field numbering to manual field specification");
            return NULL;
        }
        st->manual = true;
        size_t idx = 0;
        for (size_t k = 0; k < i; k++) {
            if (s[k] < '0' || s[k] > '9')
                return d2_raise(I, "ValueError", "bad field name");
            idx = idx * 10 + (size_t)(s[k] - '0');
        }
        if (idx >= st->nargs)
            return d2_raise(I, "IndexError",
                            "Replacement index %zu out of range for positional args tuple", idx);
        v = d2_incref(st->args[idx]);
    } else {
        d2_obj *key = d2_str_new(I, s, i);
        if (!key)
            return NULL;
        d2_obj *got = st->kw ? d2_dict_get(I, st->kw, key) : NULL;
        if (!got) {
            d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "KeyError"), &key, 1);
            if (e)
                d2i_set_exc(I, e);
            d2_decref(key);
            return NULL;
        }
        d2_decref(key);
        v = d2_incref(got);
    }
    while (i < n) {
        if (s[i] == '.') {
            size_t j = ++i;
            while (j < n && s[j] != '.' && s[j] != '[')
                j++;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(j - i), s + i);
            d2_obj *x = d2_getattr(I, v, name);
            d2_decref(v);
            if (!x)
                return NULL;
            v = x;
            i = j;
        } else {
            size_t j = ++i;
            while (j < n && s[j] != ']')
                j++;
            if (j >= n) {
                d2_decref(v);
                return d2_raise(I, "ValueError", "Missing ']' in format string");
            }
            bool digits = j > i;
            for (size_t k = i; k < j; k++)
                digits &= s[k] >= '0' && s[k] <= '9';
            d2_obj *key =
                digits ? d2_int_new(I, strtoll(s + i, NULL, 10)) : d2_str_new(I, s + i, j - i);
            d2_obj *x = key ? d2_getitem(I, v, key) : NULL;
            d2_decref(key);
            d2_decref(v);
            if (!x)
                return NULL;
            v = x;
            i = j + 1;
        }
    }
    return v;
}

static int format_into(d2_interp *I, d2_buf *b, const char *fmt, size_t len, fmt_state *st,
                       int depth)
{
    if (depth > 2) {
        d2_raise(I, "ValueError", "Max string recursion exceeded");
        return -1;
    }
    size_t i = 0;
    while (i < len) {
        char c = fmt[i];
        if (c == '{' && i + 1 < len && fmt[i + 1] == '{') {
            d2_buf_puts(b, "{");
            i += 2;
            continue;
        }
        if (c == '}') {
            if (i + 1 < len && fmt[i + 1] == '}') {
                d2_buf_puts(b, "}");
                i += 2;
                continue;
            }
            d2_raise(I, "ValueError", "Single '}' encountered in format string");
            return -1;
        }
        if (c != '{') {
            d2_buf_append(b, &c, 1);
            i++;
            continue;
        }
        /* find the matching close brace */
        size_t j = i + 1;
        int nest = 1;
        while (j < len) {
            if (fmt[j] == '{')
                nest++;
            else if (fmt[j] == '}' && --nest == 0)
                break;
            j++;
        }
        if (j >= len) {
            d2_raise(I, "ValueError", "Single '{' encountered in format string");
            return -1;
        }
        const char *field = fmt + i + 1;
        size_t flen = j - i - 1;
        size_t name_end = 0;
        while (name_end < flen && field[name_end] != '!' && field[name_end] != ':') {
            if (field[name_end] == '[')
                while (name_end < flen && field[name_end] != ']')
                    name_end++;
            name_end++;
        }
        if (name_end > flen)
            name_end = flen;
        char conv = 0;
        size_t k = name_end;
        if (k < flen && field[k] == '!') {
            if (k + 1 >= flen) {
                d2_raise(I, "ValueError", "end of string while looking for conversion specifier");
                return -1;
            }
            conv = field[k + 1];
            k += 2;
            if (k < flen && field[k] != ':') {
                d2_raise(I, "ValueError", "expected ':' after conversion specifier");
                return -1;
            }
        }
        const char *spec = "";
        size_t slen = 0;
        if (k < flen && field[k] == ':') {
            spec = field + k + 1;
            slen = flen - k - 1;
        }
        d2_obj *v = field_value(I, field, name_end, st);
        if (!v)
            return -1;
        if (conv) {
            d2_obj *cv;
            if (conv == 'r' || conv == 'a')
                cv = d2_repr(I, v);
            else if (conv == 's')
                cv = d2_str_of(I, v);
            else {
                d2_decref(v);
                d2_raise(I, "ValueError", "Unknown conversion specifier %c", conv);
                return -1;
            }
            d2_decref(v);
            if (!cv)
                return -1;
            v = cv;
        }
        d2_buf sb;
        d2_buf_init(&sb);
        if (memchr(spec, '{', slen)) {
            if (format_into(I, &sb, spec, slen, st, depth + 1) < 0) {
                d2_buf_free(&sb);
                d2_decref(v);
                return -1;
            }
        } else {
            d2_buf_append(&sb, spec, slen);
        }
        d2_buf_append(&sb, "", 1);
        d2_obj *piece = sb.oom ? NULL : d2i_format(I, v, sb.data);
        if (sb.oom)
            d2_raise(I, "MemoryError", "out of memory");
        d2_buf_free(&sb);
        d2_decref(v);
        if (!piece)
            return -1;
        d2_buf_append(b, D2_AS(d2_str, piece)->s, D2_AS(d2_str, piece)->len);
        d2_decref(piece);
        i = j + 1;
    }
    return 0;
}

d2_obj *d2i_str_format(d2_interp *I, const char *fmt, size_t len, d2_obj **args, size_t nargs,
                       d2_dict *kwargs)
{
    fmt_state st = {args, nargs, kwargs, 0, false};
    d2_buf b;
    d2_buf_init(&b);
    if (format_into(I, &b, fmt, len, &st, 0) < 0) {
        d2_buf_free(&b);
        return NULL;
    }
    return d2i_str_from_buf(I, &b);
}

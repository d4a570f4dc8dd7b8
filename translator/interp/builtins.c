/* builtins.c - the builtins namespace: functions, types' constructors, open(), std streams. */
#include "interp/interp_priv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BUILTIN(name)                                                                              \
    static d2_obj *name(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)

/* ======================================================================
 * Type constructors (the __new__ of builtin classes)
 * ==================================================================== */

/* Parses a Python int literal of str s in base (0: from prefix). */
static d2_obj *parse_int(d2_interp *I, d2_obj *strobj, int base)
{
    d2_str *so = D2_AS(d2_str, strobj);
    const char *s = so->s, *e = so->s + so->len;
    while (s < e && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
        s++;
    while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r')))
        e--;
    bool neg = false;
    if (s < e && (*s == '+' || *s == '-'))
        neg = *s++ == '-';
    if (e - s >= 2 && s[0] == '0') {
        char p = (char)(s[1] | 32);
        int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (pb && (base == 0 || base == pb)) {
            base = pb;
            s += 2;
            if (s < e && *s == '_')
                s++;
        }
    }
    if (base == 0)
        base = 10;
    uint64_t acc = 0;
    bool any = false, ok = s < e, prev_us = true;
    for (const char *p = s; p < e && ok; p++) {
        if (*p == '_') {
            ok = !prev_us;
            prev_us = true;
            continue;
        }
        prev_us = false;
        int d = (*p >= '0' && *p <= '9')                 ? *p - '0'
                : ((*p | 32) >= 'a' && (*p | 32) <= 'z') ? (*p | 32) - 'a' + 10
                                                         : 99;
        if (d >= base) {
            ok = false;
            break;
        }
        if (acc > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
            return d2_raise(I, "OverflowError", "int too large (ints are 64-bit)");
        }
        acc = acc * (uint64_t)base + (uint64_t)d;
        any = true;
    }
    if (!ok || !any || prev_us) {
        d2_obj *r = d2_repr(I, strobj);
        if (!r)
            return NULL;
        d2_raise(I, "ValueError", "invalid literal for int() with base %d: %s", base,
                 D2_AS(d2_str, r)->s);
        d2_decref(r);
        return NULL;
    }
    if (neg ? acc > (uint64_t)INT64_MAX + 1 : acc > (uint64_t)INT64_MAX)
        return d2_raise(I, "OverflowError", "int too large (ints are 64-bit)");
    return d2_int_new(I, neg ? (int64_t)(0 - acc) : (int64_t)acc);
}

static d2_obj *float_to_int(d2_interp *I, double v)
{
    if (isnan(v))
        return d2_raise(I, "ValueError", "cannot convert float NaN to integer");
    if (isinf(v))
        return d2_raise(I, "OverflowError", "cannot convert float infinity to integer");
    double t = trunc(v);
    if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
        return d2_raise(I, "OverflowError", "int too large (ints are 64-bit)");
    return d2_int_new(I, (int64_t)t);
}

d2_obj *d2i_to_int_obj(d2_interp *I, d2_obj *o, int base)
{
    switch (o->kind) {
    case D2_OBJ_INT:
        return d2_incref(o);
    case D2_OBJ_BOOL:
        return d2_int_new(I, D2_AS(d2_int, o)->v);
    case D2_OBJ_FLOAT:
        return float_to_int(I, D2_AS(d2_float, o)->v);
    case D2_OBJ_STR:
        return parse_int(I, o, base);
    default:
        break;
    }
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->to_number) {
        d2_obj *r = hk->to_number(I, o, D2_OBJ_INT);
        if (r && r->kind == D2_OBJ_FLOAT) {
            d2_obj *x = float_to_int(I, D2_AS(d2_float, r)->v);
            d2_decref(r);
            return x;
        }
        return r;
    }
    bool found;
    d2_obj *r = d2_call_special(I, o, "__int__", NULL, 0, &found);
    if (!found)
        r = d2_call_special(I, o, "__index__", NULL, 0, &found);
    if (found) {
        if (r && r->kind == D2_OBJ_FLOAT) {
            d2_obj *x = float_to_int(I, D2_AS(d2_float, r)->v);
            d2_decref(r);
            return x;
        }
        return r;
    }
    return d2_raise(
        I, "TypeError",
        "int() argument must be a string, a bytes-like object or a real number, not '%s'",
        d2_type_name(o));
}

d2_obj *d2i_to_float_obj(d2_interp *I, d2_obj *o)
{
    if (o->kind == D2_OBJ_FLOAT)
        return d2_incref(o);
    if (o->kind == D2_OBJ_STR) {
        d2_str *so = D2_AS(d2_str, o);
        char buf[128];
        size_t k = 0;
        const char *s = so->s, *e = so->s + so->len;
        while (s < e && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
            s++;
        while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r')))
            e--;
        bool ok = s < e && (size_t)(e - s) < sizeof buf;
        for (const char *p = s; ok && p < e; p++)
            if (*p != '_')
                buf[k++] = *p;
        buf[k] = 0;
        double v = 0;
        if (ok) {
            const char *t = buf;
            bool neg = false;
            if (*t == '+' || *t == '-')
                neg = *t++ == '-';
            if (strcasecmp(t, "inf") == 0 || strcasecmp(t, "infinity") == 0)
                v = neg ? -INFINITY : INFINITY;
            else if (strcasecmp(t, "nan") == 0)
                v = NAN;
            else {
                char *end;
                bool alpha = false;
                for (const char *p = t; *p; p++)
                    alpha |= (*p == 'x' || *p == 'X' || *p == 'p' || *p == 'P' || *p == 'n' ||
                              *p == 'N' || *p == 'i' || *p == 'I');
                v = strtod(buf, &end);
                ok = *end == 0 && !alpha;
            }
        }
        if (!ok) {
            d2_obj *r = d2_repr(I, o);
            if (!r)
                return NULL;
            d2_raise(I, "ValueError", "could not convert string to float: %s", D2_AS(d2_str, r)->s);
            d2_decref(r);
            return NULL;
        }
        return d2_float_new(I, v);
    }
    double v;
    if (d2_to_double(I, o, "float() argument", &v) < 0) {
        if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
            d2_exc_clear(I);
            d2_raise(I, "TypeError", "float() argument must be a string or a real number, not '%s'",
                     d2_type_name(o));
        }
        return NULL;
    }
    return d2_float_new(I, v);
}

D2_FN(int_new) /* a[0] x, a[1] base */
{
    if (a[1]->kind != D2_OBJ_NONE) {
        int64_t base;
        if (d2_to_int64(I, a[1], "base", &base) < 0)
            return NULL;
        if (a[0]->kind != D2_OBJ_STR)
            return d2_raise(I, "TypeError", "int() can't convert non-string with explicit base");
        if (base != 0 && (base < 2 || base > 36))
            return d2_raise(I, "ValueError", "int() base must be >= 2 and <= 36, or 0");
        return parse_int(I, a[0], (int)base);
    }
    return d2i_to_int_obj(I, a[0], 10);
}

BUILTIN(float_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "float", kw) < 0 || d2i_nargs(I, "float", n, 0, 1) < 0)
        return NULL;
    return n ? d2i_to_float_obj(I, a[0]) : d2_float_new(I, 0.0);
}

BUILTIN(bool_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "bool", kw) < 0 || d2i_nargs(I, "bool", n, 0, 1) < 0)
        return NULL;
    if (!n)
        return d2_bool(I, false);
    int t = d2_truthy(I, a[0]);
    return t < 0 ? NULL : d2_bool(I, t);
}

D2_FN(str_new) /* a[0] object, a[1] encoding, a[2] errors */
{
    return d2_str_of(I, a[0]);
}

BUILTIN(list_new)
{
    d2_class *c = D2_AS(d2_class, self);
    if (d2i_no_kwargs(I, "list", kw) < 0 || d2i_nargs(I, "list", n, 0, 1) < 0)
        return NULL;
    d2_obj *l = n ? d2_list_from_iterable(I, a[0]) : d2_list_new(I, 0);
    if (l)
        l->cls = c;
    return l;
}

BUILTIN(tuple_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "tuple", kw) < 0 || d2i_nargs(I, "tuple", n, 0, 1) < 0)
        return NULL;
    d2_obj *t = n ? d2i_tuple_from_iterable(I, a[0]) : d2_tuple_new(I, 0);
    d2_class *c = D2_AS(d2_class, self);
    if (!t || !c || c == I->types[D2_OBJ_TUPLE])
        return t;
    /* a subclass (namedtuple): a tuple of its own, never the shared empty one */
    d2_tuple *src = D2_AS(d2_tuple, t);
    d2_obj *r = d2_obj_alloc(I, D2_OBJ_TUPLE, c, sizeof(d2_tuple) + src->n * sizeof(d2_obj *));
    if (r) {
        D2_AS(d2_tuple, r)->n = src->n;
        for (size_t i = 0; i < src->n; i++)
            D2_AS(d2_tuple, r)->items[i] = d2_incref(src->items[i]);
    }
    d2_decref(t);
    return r;
}

BUILTIN(dict_new)
{
    if (d2i_nargs(I, "dict", n, 0, 1) < 0)
        return NULL;
    d2_obj *d = d2_obj_alloc(I, D2_OBJ_DICT, D2_AS(d2_class, self), sizeof(d2_dict));
    if (!d)
        return NULL;
    if ((n && d2_dict_merge(I, D2_AS(d2_dict, d), a[0]) < 0) ||
        (kw && d2_dict_merge(I, D2_AS(d2_dict, d), (d2_obj *)kw) < 0)) {
        d2_decref(d);
        return NULL;
    }
    return d;
}

BUILTIN(set_new)
{
    if (d2i_no_kwargs(I, "set", kw) < 0 || d2i_nargs(I, "set", n, 0, 1) < 0)
        return NULL;
    d2_obj *s = d2i_set_from_iterable(I, n ? a[0] : NULL);
    if (s)
        s->cls = D2_AS(d2_class, self);
    return s;
}

BUILTIN(range_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "range", kw) < 0)
        return NULL;
    if (n < 1 || n > 3) {
        if (n == 0)
            return d2_raise(I, "TypeError", "range expected at least 1 argument, got 0");
        return d2_raise(I, "TypeError", "range expected at most 3 arguments, got %zu", n);
    }
    int64_t v[3] = {0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        if (d2_index(I, a[i], &v[n == 1 ? 1 : i]) < 0)
            return NULL;
    }
    if (v[2] == 0)
        return d2_raise(I, "ValueError", "range() arg 3 must not be zero");
    d2_obj *r = d2_obj_alloc(I, D2_OBJ_RANGE, NULL, sizeof(d2_range));
    if (!r)
        return NULL;
    D2_AS(d2_range, r)->start = v[0];
    D2_AS(d2_range, r)->stop = v[1];
    D2_AS(d2_range, r)->step = v[2];
    return r;
}

BUILTIN(slice_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "slice", kw) < 0 || d2i_nargs(I, "slice", n, 1, 3) < 0)
        return NULL;
    d2_obj *s = d2_obj_alloc(I, D2_OBJ_SLICE, NULL, sizeof(d2_slice));
    if (!s)
        return NULL;
    d2_slice *x = D2_AS(d2_slice, s);
    if (n == 1) {
        x->start = d2_none(I);
        x->stop = d2_incref(a[0]);
        x->step = d2_none(I);
    } else {
        x->start = d2_incref(a[0]);
        x->stop = d2_incref(a[1]);
        x->step = d2_incref(n == 3 ? a[2] : I->none);
    }
    return s;
}

BUILTIN(object_new)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_class *c = D2_AS(d2_class, self);
    if (c->layout != D2_OBJ_INSTANCE)
        return d2_raise(I, "TypeError", "object.__new__(%s) is not safe", c->name);
    return d2_instance_new(I, c);
}

/* type(x) is handled by the class call; type(name, bases, dict) makes a class. */
BUILTIN(type_new)
{
    (void)self;
    if (d2i_no_kwargs(I, "type", kw) < 0)
        return NULL;
    if (n != 3)
        return d2_raise(I, "TypeError", "type() takes 1 or 3 arguments");
    const char *name = d2_to_cstr(I, a[0], "type() argument 1");
    if (!name)
        return NULL;
    if (a[1]->kind != D2_OBJ_TUPLE || a[2]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "type() argument 2 must be tuple and argument 3 a dict");
    for (size_t i = 0; i < D2_AS(d2_tuple, a[1])->n; i++)
        if (D2_AS(d2_tuple, a[1])->items[i]->kind != D2_OBJ_CLASS)
            return d2_raise(I, "TypeError", "bases must be types");
    d2_obj *d = d2_dict_new(I);
    if (!d || d2_dict_merge(I, D2_AS(d2_dict, d), a[2]) < 0) {
        d2_decref(d);
        return NULL;
    }
    d2_class *base =
        D2_AS(d2_tuple, a[1])->n ? D2_AS(d2_class, D2_AS(d2_tuple, a[1])->items[0]) : NULL;
    d2_class *c = d2i_class_new(I, name, base, base ? base->layout : D2_OBJ_INSTANCE, NULL, false);
    if (!c) {
        d2_decref(d);
        return NULL;
    }
    if (d2_dict_merge(I, c->dict, d) < 0) {
        d2_decref(d);
        d2_decref((d2_obj *)c);
        return NULL;
    }
    d2_decref(d);
    c->flags |= D2I_CF_USER;
    d2i_class_update_flags(I, c);
    return (d2_obj *)c;
}

/* ======================================================================
 * Builtin functions
 * ==================================================================== */

static FILE *out_file(d2_interp *I) { return I->opt.out ? I->opt.out : stdout; }

/* sys.stdout / sys.stderr: OPAQUE objects whose payload is the FILE (not owned). */
/* sys.stdout / sys.stderr (by identity): where their text goes; NULL for
 * any other object. */
static FILE *stream_of(d2_interp *I, d2_obj *o)
{
    if (o == I->st->streams[0])
        return out_file(I);
    if (o == I->st->streams[1])
        return I->opt.errout ? I->opt.errout : stderr;
    return NULL;
}

/* print() to an object other than the standard streams: file.write() of
 * each argument's str, of sep between them and of end (None: " ", "\n"),
 * then file.flush() when flush is true. */
static int write_piece(d2_interp *I, d2_obj *file, d2_obj *text)
{
    d2_obj *r = text ? d2_call_method(I, file, "write", &text, 1, NULL) : NULL;
    d2_decref(text);
    d2_decref(r);
    return r ? 0 : -1;
}

static d2_obj *print_to_object(d2_interp *I, d2_obj *file, d2_tuple *args, d2_obj *sep,
                               d2_obj *end, d2_obj *flush)
{
    for (size_t i = 0; i < args->n; i++) {
        if (i && write_piece(I, file, sep->kind == D2_OBJ_NONE ? d2_str_from(I, " ")
                                                                : d2_incref(sep)) < 0)
            return NULL;
        if (write_piece(I, file, d2_str_of(I, args->items[i])) < 0)
            return NULL;
    }
    if (write_piece(I, file, end->kind == D2_OBJ_NONE ? d2_str_from(I, "\n") : d2_incref(end)) < 0)
        return NULL;
    int fl = d2_truthy(I, flush);
    if (fl < 0)
        return NULL;
    if (fl) {
        d2_obj *r = d2_call_method(I, file, "flush", NULL, 0, NULL);
        if (!r)
            return NULL;
        d2_decref(r);
    }
    return d2_none(I);
}

D2_FN(b_print) /* a[0] args, a[1] sep, a[2] end, a[3] file, a[4] flush */
{
    /* file: None or a standard stream is written directly; any other
     * object gets each piece through its write() method, as in CPython */
    FILE *f = a[3]->kind == D2_OBJ_NONE ? out_file(I) : stream_of(I, a[3]);
    const char *sep = " ", *end = "\n";
    size_t seplen = 1, endlen = 1;
    if (a[1]->kind != D2_OBJ_NONE) {
        if (a[1]->kind != D2_OBJ_STR)
            return d2_raise(I, "TypeError", "sep must be None or a string, not %s",
                            d2_type_name(a[1]));
        sep = D2_AS(d2_str, a[1])->s;
        seplen = D2_AS(d2_str, a[1])->len;
    }
    if (a[2]->kind != D2_OBJ_NONE) {
        if (a[2]->kind != D2_OBJ_STR)
            return d2_raise(I, "TypeError", "end must be None or a string, not %s",
                            d2_type_name(a[2]));
        end = D2_AS(d2_str, a[2])->s;
        endlen = D2_AS(d2_str, a[2])->len;
    }
    d2_tuple *args = D2_AS(d2_tuple, a[0]);
    if (!f)
        return print_to_object(I, a[3], args, a[1], a[2], a[4]);
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < args->n; i++) {
        d2_obj *s = d2_str_of(I, args->items[i]);
        if (!s) {
            d2_buf_free(&b);
            return NULL;
        }
        if (i)
            d2_buf_append(&b, sep, seplen);
        d2_buf_append(&b, D2_AS(d2_str, s)->s, D2_AS(d2_str, s)->len);
        d2_decref(s);
    }
    d2_buf_append(&b, end, endlen);
    if (b.len)
        fwrite(b.data, 1, b.len, f);
    d2_buf_free(&b);
    if (d2_truthy(I, a[4]) == 1)
        fflush(f);
    return d2_none(I);
}

BUILTIN(b_len)
{
    (void)self;
    if (d2i_no_kwargs(I, "len", kw) < 0 || d2i_nargs(I, "len", n, 1, 1) < 0)
        return NULL;
    int64_t l = d2_len(I, a[0]);
    return l < 0 ? NULL : d2_int_new(I, l);
}

static d2_obj *enumerate_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_obj *v = d2_iter_next(I, it->src, done);
    if (!v)
        return NULL;
    d2_obj *i = d2_int_new(I, it->pos++);
    d2_obj *t = i ? d2_tuple_pack(I, 2, i, v) : NULL;
    d2_decref(i);
    d2_decref(v);
    return t;
}

D2_FN(b_enumerate) /* a[0] iterable, a[1] start */
{
    int64_t start;
    if (d2_to_int64(I, a[1], "start", &start) < 0)
        return NULL;
    d2_obj *inner = d2_get_iter(I, a[0]);
    if (!inner)
        return NULL;
    d2_obj *it = d2i_iter_new(I, enumerate_next, inner);
    d2_decref(inner);
    if (it)
        D2_AS(d2_iter, it)->pos = start;
    return it;
}

static d2_obj *zip_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_tuple *its = D2_AS(d2_tuple, it->extra);
    if (its->n == 0) {
        *done = true;
        return NULL;
    }
    d2_obj *t = d2_tuple_new(I, its->n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < its->n; i++) {
        d2_obj *v = d2_iter_next(I, its->items[i], done);
        if (!v) {
            d2_decref(t);
            return NULL;
        }
        D2_AS(d2_tuple, t)->items[i] = v;
        D2_AS(d2_tuple, t)->n = i + 1;
    }
    return t;
}

/* A tuple of iterators over each of items. */
static d2_obj *iter_tuple(d2_interp *I, d2_obj **items, size_t n)
{
    d2_obj *t = d2_tuple_new(I, n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        d2_obj *it = d2_get_iter(I, items[i]);
        if (!it) {
            d2_decref(t);
            return NULL;
        }
        D2_AS(d2_tuple, t)->items[i] = it;
        D2_AS(d2_tuple, t)->n = i + 1;
    }
    return t;
}

D2_FN(b_zip) /* a[0] iterables, a[1] strict */
{
    d2_obj *its = iter_tuple(I, D2_AS(d2_tuple, a[0])->items, D2_AS(d2_tuple, a[0])->n);
    if (!its)
        return NULL;
    d2_obj *it = d2i_iter_new(I, zip_next, NULL);
    if (it)
        D2_AS(d2_iter, it)->extra = its;
    else
        d2_decref(its);
    return it;
}

static d2_obj *map_next(d2_interp *I, d2_iter *it, bool *done)
{
    d2_tuple *its = D2_AS(d2_tuple, it->extra);
    d2_obj *args[16];
    size_t k;
    for (k = 0; k < its->n; k++) {
        args[k] = d2_iter_next(I, its->items[k], done);
        if (!args[k])
            break;
    }
    d2_obj *r = NULL;
    if (k == its->n)
        r = d2_call(I, it->src, args, k, NULL);
    for (size_t i = 0; i < k; i++)
        d2_decref(args[i]);
    return r;
}

BUILTIN(b_map)
{
    (void)self;
    if (d2i_no_kwargs(I, "map", kw) < 0)
        return NULL;
    if (n < 2 || n > 17)
        return d2_raise(I, "TypeError", "map() must have at least two arguments.");
    d2_obj *its = iter_tuple(I, a + 1, n - 1);
    if (!its)
        return NULL;
    d2_obj *it = d2i_iter_new(I, map_next, a[0]);
    if (it)
        D2_AS(d2_iter, it)->extra = its;
    else
        d2_decref(its);
    return it;
}

static d2_obj *filter_next(d2_interp *I, d2_iter *it, bool *done)
{
    for (;;) {
        d2_obj *v = d2_iter_next(I, it->extra, done);
        if (!v)
            return NULL;
        int t;
        if (it->src->kind == D2_OBJ_NONE) {
            t = d2_truthy(I, v);
        } else {
            d2_obj *r = d2_call(I, it->src, &v, 1, NULL);
            t = r ? d2_truthy(I, r) : -1;
            d2_decref(r);
        }
        if (t > 0)
            return v;
        d2_decref(v);
        if (t < 0)
            return NULL;
    }
}

BUILTIN(b_filter)
{
    (void)self;
    if (d2i_no_kwargs(I, "filter", kw) < 0 || d2i_nargs(I, "filter", n, 2, 2) < 0)
        return NULL;
    d2_obj *inner = d2_get_iter(I, a[1]);
    if (!inner)
        return NULL;
    d2_obj *it = d2i_iter_new(I, filter_next, a[0]);
    if (it)
        D2_AS(d2_iter, it)->extra = inner;
    else
        d2_decref(inner);
    return it;
}

static d2_obj *seq_rev_next(d2_interp *I, d2_iter *it, bool *done)
{
    if (it->pos < 0) {
        *done = true;
        return NULL;
    }
    d2_obj *k = d2_int_new(I, it->pos--);
    if (!k)
        return NULL;
    d2_obj *v = d2_getitem(I, it->src, k);
    d2_decref(k);
    return v;
}

BUILTIN(b_reversed)
{
    (void)self;
    if (d2i_no_kwargs(I, "reversed", kw) < 0 || d2i_nargs(I, "reversed", n, 1, 1) < 0)
        return NULL;
    if (a[0]->cls->flags & D2I_CF_USER || a[0]->kind >= D2_OBJ_TENSOR) {
        bool found;
        d2_obj *r = d2_call_special(I, a[0], "__reversed__", NULL, 0, &found);
        if (found)
            return r;
    } else {
        d2_obj *r = d2i_builtin_reversed(I, a[0]);
        if (r || d2_exc_pending(I))
            return r;
    }
    if (a[0]->kind == D2_OBJ_DICT || !d2i_mro_lookup(I, a[0]->cls, "__getitem__") ||
        (!d2i_mro_lookup(I, a[0]->cls, "__len__") && !I->hooks[a[0]->kind]))
        return d2_raise(I, "TypeError", "'%s' object is not reversible", d2_type_name(a[0]));
    int64_t len = d2_len(I, a[0]);
    if (len < 0)
        return NULL;
    d2_obj *it = d2i_iter_new(I, seq_rev_next, a[0]);
    if (it)
        D2_AS(d2_iter, it)->pos = len - 1;
    return it;
}

static int class_check(d2_interp *I, d2_obj *cls, const char *fname, int arg)
{
    if (cls->kind == D2_OBJ_CLASS)
        return 0;
    if (cls->kind == D2_OBJ_TUPLE) {
        for (size_t i = 0; i < D2_AS(d2_tuple, cls)->n; i++)
            if (class_check(I, D2_AS(d2_tuple, cls)->items[i], fname, arg) < 0)
                return -1;
        return 0;
    }
    d2_raise(I, "TypeError", "%s() arg %d must be a type, a tuple of types, or a union", fname,
             arg);
    return -1;
}

static bool subclass_any(d2_class *c, d2_obj *cls)
{
    if (cls->kind == D2_OBJ_CLASS)
        return d2i_issubclass(c, D2_AS(d2_class, cls));
    for (size_t i = 0; i < D2_AS(d2_tuple, cls)->n; i++)
        if (subclass_any(c, D2_AS(d2_tuple, cls)->items[i]))
            return true;
    return false;
}

BUILTIN(b_isinstance)
{
    (void)self;
    if (d2i_no_kwargs(I, "isinstance", kw) < 0 || d2i_nargs(I, "isinstance", n, 2, 2) < 0 ||
        class_check(I, a[1], "isinstance", 2) < 0)
        return NULL;
    return d2_bool(I, subclass_any(a[0]->cls, a[1]));
}

BUILTIN(b_issubclass)
{
    (void)self;
    if (d2i_no_kwargs(I, "issubclass", kw) < 0 || d2i_nargs(I, "issubclass", n, 2, 2) < 0)
        return NULL;
    if (a[0]->kind != D2_OBJ_CLASS)
        return d2_raise(I, "TypeError", "issubclass() arg 1 must be a class");
    if (class_check(I, a[1], "issubclass", 2) < 0)
        return NULL;
    return d2_bool(I, subclass_any(D2_AS(d2_class, a[0]), a[1]));
}

static d2_obj *minmax(d2_interp *I, d2_obj **a, size_t n, d2_dict *kw, bool is_max)
{
    const char *fname = is_max ? "max" : "min";
    d2_obj *key = NULL, *dflt = NULL;
    if (kw) {
        for (size_t i = 0; i < kw->n; i++) {
            d2_dict_entry *e = &kw->entries[i];
            if (!e->key)
                continue;
            const char *k = D2_AS(d2_str, e->key)->s;
            if (strcmp(k, "key") == 0)
                key = e->value->kind == D2_OBJ_NONE ? NULL : e->value;
            else if (strcmp(k, "default") == 0)
                dflt = e->value;
            else
                return d2_raise(I, "TypeError", "%s() got an unexpected keyword argument '%s'",
                                fname, k);
        }
    }
    if (n == 0)
        return d2_raise(I, "TypeError", "%s expected at least 1 argument, got 0", fname);
    d2_obj *src = n == 1 ? a[0] : NULL;
    if (n > 1 && dflt)
        return d2_raise(I, "TypeError",
                        "Cannot specify a default for %s() with multiple positional arguments",
                        fname);
    d2_obj *seq = src ? d2_list_from_iterable(I, src) : d2i_list_from_array(I, a, n);
    if (!seq)
        return NULL;
    d2_list *l = D2_AS(d2_list, seq);
    if (l->n == 0) {
        d2_decref(seq);
        if (dflt)
            return d2_incref(dflt);
        return d2_raise(I, "ValueError", "%s() arg is an empty sequence", fname);
    }
    d2_obj *best = d2_incref(l->items[0]);
    d2_obj *bestk = key ? d2_call(I, key, &best, 1, NULL) : d2_incref(best);
    for (size_t i = 1; bestk && i < l->n; i++) {
        d2_obj *v = l->items[i];
        d2_obj *k = key ? d2_call(I, key, &v, 1, NULL) : d2_incref(v);
        if (!k) {
            d2_decref(bestk);
            bestk = NULL;
            break;
        }
        d2_obj *c = d2_compare(I, is_max ? D2_CMP_GT : D2_CMP_LT, k, bestk);
        int t = c ? d2_truthy(I, c) : -1;
        d2_decref(c);
        if (t < 0) {
            d2_decref(k);
            d2_decref(bestk);
            bestk = NULL;
            break;
        }
        if (t) {
            d2_setref(&best, d2_incref(v));
            d2_setref(&bestk, k);
        } else {
            d2_decref(k);
        }
    }
    d2_decref(seq);
    if (!bestk) {
        d2_decref(best);
        return NULL;
    }
    d2_decref(bestk);
    return best;
}

BUILTIN(b_max) { (void)self; return minmax(I, a, n, kw, true); }
BUILTIN(b_min) { (void)self; return minmax(I, a, n, kw, false); }

D2_FN(b_sum) /* a[0] iterable, a[1] start */
{
    if (a[1]->kind == D2_OBJ_STR)
        return d2_raise(I, "TypeError", "sum() can't sum strings [use ''.join(seq) instead]");
    d2_obj *it = d2_get_iter(I, a[0]);
    if (!it)
        return NULL;
    d2_obj *acc = d2_incref(a[1]);
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v) {
            d2_decref(it);
            if (done)
                return acc;
            d2_decref(acc);
            return NULL;
        }
        d2_obj *r = d2_binop(I, D2_OP_ADD, acc, v);
        d2_decref(v);
        d2_decref(acc);
        acc = r;
        if (!acc) {
            d2_decref(it);
            return NULL;
        }
    }
}

BUILTIN(b_abs)
{
    (void)self;
    if (d2i_no_kwargs(I, "abs", kw) < 0 || d2i_nargs(I, "abs", n, 1, 1) < 0)
        return NULL;
    d2_obj *x = a[0];
    if (x->kind == D2_OBJ_INT || x->kind == D2_OBJ_BOOL) {
        int64_t v = D2_AS(d2_int, x)->v;
        if (v == INT64_MIN)
            return d2_raise(I, "OverflowError", "integer result out of range (ints are 64-bit)");
        return d2_int_new(I, v < 0 ? -v : v);
    }
    if (x->kind == D2_OBJ_FLOAT)
        return d2_float_new(I, fabs(D2_AS(d2_float, x)->v));
    bool found;
    d2_obj *r = d2_call_special(I, x, "__abs__", NULL, 0, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "bad operand type for abs(): '%s'", d2_type_name(x));
}

/* round half to even of an int to a multiple of 10**k. */
static d2_obj *round_int(d2_interp *I, int64_t v, int64_t nd)
{
    if (nd >= 0)
        return d2_int_new(I, v);
    if (nd < -18)
        return d2_int_new(I, 0);
    int64_t p = 1;
    for (int64_t i = 0; i < -nd; i++)
        p *= 10;
    int64_t q = v / p, r = v % p;
    if (r < 0) {
        q--;
        r += p;
    }
    if (2 * r > p || (2 * r == p && (q & 1)))
        q++;
    int64_t out;
    if (__builtin_mul_overflow(q, p, &out))
        return d2_raise(I, "OverflowError", "integer result out of range (ints are 64-bit)");
    return d2_int_new(I, out);
}

D2_FN(b_round) /* a[0] number, a[1] ndigits */
{
    d2_obj *x = a[0];
    bool has_nd = a[1]->kind != D2_OBJ_NONE;
    int64_t nd = 0;
    if (has_nd && d2_to_int64(I, a[1], "ndigits", &nd) < 0)
        return NULL;
    if (x->kind == D2_OBJ_INT || x->kind == D2_OBJ_BOOL)
        return round_int(I, D2_AS(d2_int, x)->v, has_nd ? nd : 0);
    if (x->kind == D2_OBJ_FLOAT) {
        double v = D2_AS(d2_float, x)->v;
        if (!has_nd)
            return float_to_int(I, nearbyint(v));
        if (!isfinite(v) || v == 0)
            return d2_float_new(I, v);
        if (nd > 300)
            return d2_float_new(I, v);
        if (nd >= 0) {
            char buf[512];
            snprintf(buf, sizeof buf, "%.*f", (int)nd, v);
            return d2_float_new(I, strtod(buf, NULL));
        }
        if (nd < -308)
            return d2_float_new(I, copysign(0.0, v));
        double pw = pow(10.0, (double)-nd);
        double y = nearbyint(v / pw) * pw;
        return d2_float_new(I, y);
    }
    bool found;
    d2_obj *r = d2_call_special(I, x, "__round__", has_nd ? &a[1] : NULL, has_nd ? 1 : 0, &found);
    if (found)
        return r;
    return d2_raise(I, "TypeError", "type %s doesn't define __round__ method", d2_type_name(x));
}

BUILTIN(b_repr)
{
    (void)self;
    if (d2i_no_kwargs(I, "repr", kw) < 0 || d2i_nargs(I, "repr", n, 1, 1) < 0)
        return NULL;
    return d2_repr(I, a[0]);
}

BUILTIN(b_ascii)
{
    (void)self;
    if (d2i_no_kwargs(I, "ascii", kw) < 0 || d2i_nargs(I, "ascii", n, 1, 1) < 0)
        return NULL;
    return d2_repr(I, a[0]);
}

D2_FN(b_sorted) /* a[0] iterable, a[1] key, a[2] reverse */
{
    int rev = d2_truthy(I, a[2]);
    if (rev < 0)
        return NULL;
    d2_obj *l = d2_list_from_iterable(I, a[0]);
    if (!l)
        return NULL;
    if (d2i_sort(I, D2_AS(d2_list, l)->items, D2_AS(d2_list, l)->n, a[1], rev) < 0) {
        d2_decref(l);
        return NULL;
    }
    return l;
}

BUILTIN(b_hasattr)
{
    (void)self;
    if (d2i_no_kwargs(I, "hasattr", kw) < 0 || d2i_nargs(I, "hasattr", n, 2, 2) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[1], "hasattr(): attribute name");
    if (!name)
        return NULL;
    d2_obj *v = d2_getattr_opt(I, a[0], name);
    if (!v && d2_exc_pending(I))
        return NULL;
    d2_decref(v);
    return d2_bool(I, v != NULL);
}

BUILTIN(b_getattr)
{
    (void)self;
    if (d2i_no_kwargs(I, "getattr", kw) < 0 || d2i_nargs(I, "getattr", n, 2, 3) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[1], "getattr(): attribute name");
    if (!name)
        return NULL;
    if (n == 3) {
        d2_obj *v = d2_getattr_opt(I, a[0], name);
        if (v || d2_exc_pending(I))
            return v;
        return d2_incref(a[2]);
    }
    return d2_getattr(I, a[0], name);
}

BUILTIN(b_setattr)
{
    (void)self;
    if (d2i_no_kwargs(I, "setattr", kw) < 0 || d2i_nargs(I, "setattr", n, 3, 3) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[1], "setattr(): attribute name");
    if (!name || d2_setattr(I, a[0], name, a[2]) < 0)
        return NULL;
    return d2_none(I);
}

BUILTIN(b_delattr)
{
    (void)self;
    if (d2i_no_kwargs(I, "delattr", kw) < 0 || d2i_nargs(I, "delattr", n, 2, 2) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[1], "d2i_delattr(): attribute name");
    /* as `del o.name`: a class's __delattr__ (Paddle's Layer has one) decides */
    if (!name || d2i_delattr(I, a[0], name) < 0)
        return NULL;
    return d2_none(I);
}

BUILTIN(b_id)
{
    (void)self;
    if (d2i_no_kwargs(I, "id", kw) < 0 || d2i_nargs(I, "id", n, 1, 1) < 0)
        return NULL;
    return d2_int_new(I, (int64_t)(uintptr_t)a[0]);
}

BUILTIN(b_hash)
{
    (void)self;
    if (d2i_no_kwargs(I, "hash", kw) < 0 || d2i_nargs(I, "hash", n, 1, 1) < 0)
        return NULL;
    d2_obj *x = a[0];
    int64_t iv;
    if (x->kind == D2_OBJ_FLOAT && D2_AS(d2_float, x)->v == floor(D2_AS(d2_float, x)->v) &&
        fabs(D2_AS(d2_float, x)->v) < 9.2e18)
        iv = (int64_t)D2_AS(d2_float, x)->v;
    else if (x->kind == D2_OBJ_INT || x->kind == D2_OBJ_BOOL)
        iv = D2_AS(d2_int, x)->v;
    else
        iv = 0;
    if (x->kind != D2_OBJ_FLOAT || iv != 0 || D2_AS(d2_float, x)->v == 0) {
        if (d2i_is_number(x))
            return d2_int_new(I, iv == -1 ? -2 : iv);
    }
    uint64_t h;
    if (d2_hash(I, x, &h) < 0)
        return NULL;
    return d2_int_new(I, (int64_t)(h >> 1));
}

BUILTIN(b_iter)
{
    (void)self;
    if (d2i_no_kwargs(I, "iter", kw) < 0 || d2i_nargs(I, "iter", n, 1, 1) < 0)
        return NULL;
    return d2_get_iter(I, a[0]);
}

BUILTIN(b_next)
{
    (void)self;
    if (d2i_no_kwargs(I, "next", kw) < 0 || d2i_nargs(I, "next", n, 1, 2) < 0)
        return NULL;
    if (a[0]->kind != D2_OBJ_ITERATOR && !d2i_mro_lookup(I, a[0]->cls, "__next__"))
        return d2_raise(I, "TypeError", "'%s' object is not an iterator", d2_type_name(a[0]));
    bool done = false;
    d2_obj *v = d2_iter_next(I, a[0], &done);
    if (v || !done)
        return v;
    if (n == 2)
        return d2_incref(a[1]);
    d2_obj *e = d2i_exc_new(I, d2_exc_class(I, "StopIteration"), NULL, 0);
    if (e)
        d2i_set_exc(I, e);
    return NULL;
}

static d2_obj *any_all(d2_interp *I, d2_obj **a, size_t n, d2_dict *kw, bool any)
{
    const char *fname = any ? "any" : "all";
    if (d2i_no_kwargs(I, fname, kw) < 0 || d2i_nargs(I, fname, n, 1, 1) < 0)
        return NULL;
    d2_obj *it = d2_get_iter(I, a[0]);
    if (!it)
        return NULL;
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v) {
            d2_decref(it);
            return done ? d2_bool(I, !any) : NULL;
        }
        int t = d2_truthy(I, v);
        d2_decref(v);
        if (t < 0 || (t > 0) == any) {
            d2_decref(it);
            return t < 0 ? NULL : d2_bool(I, any);
        }
    }
}

BUILTIN(b_any) { (void)self; return any_all(I, a, n, kw, true); }
BUILTIN(b_all) { (void)self; return any_all(I, a, n, kw, false); }

BUILTIN(b_divmod)
{
    (void)self;
    if (d2i_no_kwargs(I, "divmod", kw) < 0 || d2i_nargs(I, "divmod", n, 2, 2) < 0)
        return NULL;
    if (d2i_is_number(a[0]) && d2i_is_number(a[1])) {
        bool fl = a[0]->kind == D2_OBJ_FLOAT || a[1]->kind == D2_OBJ_FLOAT;
        bool zero = a[1]->kind == D2_OBJ_FLOAT ? D2_AS(d2_float, a[1])->v == 0
                                               : D2_AS(d2_int, a[1])->v == 0;
        if (zero)
            return d2_raise(I, "ZeroDivisionError",
                            fl ? "float divmod()" : "integer division or modulo by zero");
    }
    d2_obj *q = d2_binop(I, D2_OP_FLOOR_DIV, a[0], a[1]);
    if (!q)
        return NULL;
    d2_obj *r = d2_binop(I, D2_OP_MOD, a[0], a[1]);
    if (!r) {
        d2_decref(q);
        return NULL;
    }
    d2_obj *t = d2_tuple_pack(I, 2, q, r);
    d2_decref(q);
    d2_decref(r);
    return t;
}

D2_FN(b_pow) /* a[0] base, a[1] exp, a[2] mod */
{
    if (a[2]->kind == D2_OBJ_NONE)
        return d2_binop(I, D2_OP_POW, a[0], a[1]);
    int64_t b, e, m;
    if (d2_to_int64(I, a[0], "pow() base", &b) < 0 || d2_to_int64(I, a[1], "pow() exp", &e) < 0 ||
        d2_to_int64(I, a[2], "pow() mod", &m) < 0)
        return NULL;
    if (m == 0)
        return d2_raise(I, "ValueError", "pow() 3rd argument cannot be 0");
    if (e < 0)
        return d2_raise(I, "ValueError", "base is not invertible for the given modulus");
    __int128 r = 1, x = ((b % m) + m) % m;
    while (e > 0) {
        if (e & 1)
            r = (r * x) % m;
        x = (x * x) % m;
        e >>= 1;
    }
    int64_t out = (int64_t)r;
    if (out && ((out < 0) != (m < 0)))
        out += m;
    return d2_int_new(I, out);
}

static d2_obj *radix(d2_interp *I, d2_obj **a, size_t n, d2_dict *kw, const char *fname,
                     const char *spec)
{
    if (d2i_no_kwargs(I, fname, kw) < 0 || d2i_nargs(I, fname, n, 1, 1) < 0)
        return NULL;
    int64_t v;
    if (d2_index(I, a[0], &v) < 0)
        return NULL;
    d2_obj *x = d2_int_new(I, v);
    if (!x)
        return NULL;
    d2_obj *r = d2i_format(I, x, spec);
    d2_decref(x);
    return r;
}

BUILTIN(b_hex) { (void)self; return radix(I, a, n, kw, "hex", "#x"); }
BUILTIN(b_oct) { (void)self; return radix(I, a, n, kw, "oct", "#o"); }
BUILTIN(b_bin) { (void)self; return radix(I, a, n, kw, "bin", "#b"); }

BUILTIN(b_chr)
{
    (void)self;
    if (d2i_no_kwargs(I, "chr", kw) < 0 || d2i_nargs(I, "chr", n, 1, 1) < 0)
        return NULL;
    int64_t v;
    if (d2_index(I, a[0], &v) < 0)
        return NULL;
    if (v < 0 || v > 0x10FFFF)
        return d2_raise(I, "ValueError", "chr() arg not in range(0x110000)");
    return d2i_char(I, (uint32_t)v);
}

BUILTIN(b_ord)
{
    (void)self;
    if (d2i_no_kwargs(I, "ord", kw) < 0 || d2i_nargs(I, "ord", n, 1, 1) < 0)
        return NULL;
    if (a[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "ord() expected string of length 1, but %s found",
                        d2_type_name(a[0]));
    d2_str *s = D2_AS(d2_str, a[0]);
    size_t nc = d2i_str_chars(s);
    if (nc != 1)
        return d2_raise(I, "TypeError",
                        "ord() expected a character, but string of length %zu found", nc);
    const unsigned char *p = (const unsigned char *)s->s;
    uint32_t cp = p[0];
    if (cp >= 0xF0)
        cp = ((cp & 7u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
    else if (cp >= 0xE0)
        cp = ((cp & 15u) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    else if (cp >= 0xC0)
        cp = ((cp & 31u) << 6) | (p[1] & 0x3Fu);
    return d2_int_new(I, cp);
}

BUILTIN(b_format)
{
    (void)self;
    if (d2i_no_kwargs(I, "format", kw) < 0 || d2i_nargs(I, "format", n, 1, 2) < 0)
        return NULL;
    const char *spec = "";
    if (n == 2 && !(spec = d2_to_cstr(I, a[1], "format() argument 2")))
        return NULL;
    return d2i_format(I, a[0], spec);
}

BUILTIN(b_callable)
{
    (void)self;
    if (d2i_no_kwargs(I, "callable", kw) < 0 || d2i_nargs(I, "callable", n, 1, 1) < 0)
        return NULL;
    d2_obj_kind k = a[0]->kind;
    bool c = k == D2_OBJ_FUNCTION || k == D2_OBJ_BUILTIN || k == D2_OBJ_BOUND_METHOD ||
             k == D2_OBJ_CLASS || d2i_mro_lookup(I, a[0]->cls, "__call__") != NULL;
    return d2_bool(I, c);
}

BUILTIN(b_vars)
{
    (void)self;
    if (d2i_no_kwargs(I, "vars", kw) < 0 || d2i_nargs(I, "vars", n, 0, 1) < 0)
        return NULL;
    if (n == 0) {
        d2_dict *g = d2i_current_globals(I);
        return g ? d2_incref((d2_obj *)g) : d2_dict_new(I);
    }
    d2_obj *v = d2_getattr_opt(I, a[0], "__dict__");
    if (v || d2_exc_pending(I))
        return v;
    return d2_raise(I, "TypeError", "vars() argument must have __dict__ attribute");
}

BUILTIN(b_globals)
{
    (void)self;
    (void)a;
    if (d2i_no_kwargs(I, "globals", kw) < 0 || d2i_nargs(I, "globals", n, 0, 0) < 0)
        return NULL;
    d2_dict *g = d2i_current_globals(I);
    return g ? d2_incref((d2_obj *)g) : d2_dict_new(I);
}

/* ---- numeric methods ---- */

BUILTIN(float_is_integer)
{
    (void)a;
    if (d2i_no_kwargs(I, "is_integer", kw) < 0 || d2i_nargs(I, "is_integer", n, 0, 0) < 0)
        return NULL;
    double v = D2_AS(d2_float, self)->v;
    return d2_bool(I, isfinite(v) && v == floor(v));
}

BUILTIN(int_bit_length)
{
    (void)a;
    if (d2i_no_kwargs(I, "bit_length", kw) < 0 || d2i_nargs(I, "bit_length", n, 0, 0) < 0)
        return NULL;
    int64_t v = D2_AS(d2_int, self)->v;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int bits = 0;
    while (u) {
        bits++;
        u >>= 1;
    }
    return d2_int_new(I, bits);
}

/* ---- sys.stdout and sys.stderr ---- */

BUILTIN(stream_write)
{
    if (d2i_no_kwargs(I, "write", kw) < 0 || d2i_nargs(I, "write", n, 1, 1) < 0)
        return NULL;
    if (a[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "write() argument must be str, not %s", d2_type_name(a[0]));
    FILE *f = stream_of(I, self);
    if (!f)
        return d2_raise(I, "ValueError", "I/O operation on closed file");
    d2_str *s = D2_AS(d2_str, a[0]);
    fwrite(s->s, 1, s->len, f);
    return d2_int_new(I, (int64_t)d2i_str_chars(s));
}

BUILTIN(stream_flush)
{
    (void)a;
    if (d2i_no_kwargs(I, "flush", kw) < 0 || d2i_nargs(I, "flush", n, 0, 0) < 0)
        return NULL;
    FILE *f = stream_of(I, self);
    if (f)
        fflush(f);
    return d2_none(I);
}

/* ---- open(): text files ---- */

static const char *path_arg_open(d2_interp *I, d2_obj *o)
{
    if (o->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "expected str, bytes or os.PathLike object, not %s", d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_str, o)->s;
}

typedef struct pyfile {
    FILE *f;
    bool readable, writable;
} pyfile;

static void pyfile_fin(void *p)
{
    pyfile *pf = p;
    if (pf->f)
        fclose(pf->f);
    d2_free(pf);
}

static pyfile *file_of(d2_interp *I, d2_obj *self, bool want_write)
{
    pyfile *pf = self->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, self)->payload : NULL;
    if (!pf || !pf->f) {
        d2_raise(I, "ValueError", "I/O operation on closed file.");
        return NULL;
    }
    if (want_write ? !pf->writable : !pf->readable) {
        d2_raise(I, "OSError", "not %s", want_write ? "writable" : "readable");
        return NULL;
    }
    return pf;
}

/* One line including its newline; an empty string at the end. */
static d2_obj *read_line(d2_interp *I, FILE *f)
{
    d2_buf b;
    d2_buf_init(&b);
    int c;
    while ((c = fgetc(f)) != EOF) {
        char ch = (char)c;
        d2_buf_append(&b, &ch, 1);
        if (c == '\n')
            break;
    }
    d2_obj *r = b.oom ? d2_raise(I, "MemoryError", "out of memory") : d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

BUILTIN(file_read)
{
    if (d2i_no_kwargs(I, "read", kw) < 0 || d2i_nargs(I, "read", n, 0, 1) < 0)
        return NULL;
    pyfile *pf = file_of(I, self, false);
    if (!pf)
        return NULL;
    int64_t size = -1;
    if (n == 1 && a[0]->kind != D2_OBJ_NONE && d2_to_int64(I, a[0], "size", &size) < 0)
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    char tmp[65536];
    size_t got;
    while (size != 0 && (got = fread(tmp, 1, size < 0 || size > (int64_t)sizeof tmp ? sizeof tmp : (size_t)size, pf->f)) > 0) {
        d2_buf_append(&b, tmp, got);
        if (size > 0)
            size -= (int64_t)got;
    }
    d2_obj *r = b.oom ? d2_raise(I, "MemoryError", "out of memory") : d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}

BUILTIN(file_readline)
{
    (void)a;
    if (d2i_no_kwargs(I, "readline", kw) < 0 || d2i_nargs(I, "readline", n, 0, 0) < 0)
        return NULL;
    pyfile *pf = file_of(I, self, false);
    return pf ? read_line(I, pf->f) : NULL;
}

BUILTIN(file_readlines)
{
    (void)a;
    if (d2i_no_kwargs(I, "readlines", kw) < 0 || d2i_nargs(I, "readlines", n, 0, 0) < 0)
        return NULL;
    pyfile *pf = file_of(I, self, false);
    if (!pf)
        return NULL;
    d2_obj *l = d2_list_new(I, 0);
    while (l) {
        d2_obj *line = read_line(I, pf->f);
        if (!line || D2_AS(d2_str, line)->len == 0 || d2_list_append(I, l, line) < 0) {
            bool err = !line || D2_AS(d2_str, line)->len != 0;
            d2_decref(line);
            if (err) {
                d2_decref(l);
                return NULL;
            }
            break;
        }
        d2_decref(line);
    }
    return l;
}

static d2_obj *file_line_next(d2_interp *I, d2_iter *it, bool *done)
{
    pyfile *pf = file_of(I, it->src, false);
    if (!pf)
        return NULL;
    d2_obj *line = read_line(I, pf->f);
    if (line && D2_AS(d2_str, line)->len == 0) {
        d2_decref(line);
        *done = true;
        return NULL;
    }
    return line;
}

BUILTIN(file_iter)
{
    (void)a;
    (void)n;
    (void)kw;
    return file_of(I, self, false) ? d2i_iter_new(I, file_line_next, self) : NULL;
}

BUILTIN(file_write)
{
    if (d2i_no_kwargs(I, "write", kw) < 0 || d2i_nargs(I, "write", n, 1, 1) < 0)
        return NULL;
    pyfile *pf = file_of(I, self, true);
    if (!pf)
        return NULL;
    if (a[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "write() argument must be str, not %s", d2_type_name(a[0]));
    d2_str *s = D2_AS(d2_str, a[0]);
    if (fwrite(s->s, 1, s->len, pf->f) != s->len)
        return d2_raise(I, "OSError", "write failed: %s", strerror(errno));
    return d2_int_new(I, (int64_t)d2i_str_chars(s));
}

BUILTIN(file_close)
{
    (void)a;
    (void)n;
    (void)kw;
    pyfile *pf = self->kind == D2_OBJ_OPAQUE ? D2_AS(d2_opaque, self)->payload : NULL;
    if (pf && pf->f) {
        fclose(pf->f);
        pf->f = NULL;
    }
    return d2_none(I);
}

BUILTIN(file_enter)
{
    (void)I;
    (void)a;
    (void)n;
    (void)kw;
    return d2_incref(self);
}

static d2_obj *open_file(d2_interp *I, d2_obj *file, d2_obj **a);

D2_FN(b_open) /* a[0] file, a[1] mode, a[2] buffering, a[3] encoding, a[4] newline */
{
    /* an os.PathLike file (pathlib.Path) opens its __fspath__() */
    d2_obj *f = a[0]->kind == D2_OBJ_INSTANCE ? d2_getattr_opt(I, a[0], "__fspath__") : NULL;
    if (!f)
        return d2_exc_pending(I) ? NULL : open_file(I, a[0], a);
    d2_obj *path = d2_call(I, f, NULL, 0, NULL);
    d2_decref(f);
    d2_obj *r = path ? open_file(I, path, a) : NULL;
    d2_decref(path);
    return r;
}

static d2_obj *open_file(d2_interp *I, d2_obj *file, d2_obj **a)
{
    const char *path = path_arg_open(I, file);
    const char *mode = path ? d2_to_cstr(I, a[1], "open() mode") : NULL;
    if (!mode)
        return NULL;
    if (strchr(mode, 'b'))
        return d2_raise(I, "NotImplementedError", "binary files are not supported (mode '%s')", mode);
    char cmode[4] = {0};
    bool plus = strchr(mode, '+') != NULL;
    char m0 = mode[0];
    if (m0 != 'r' && m0 != 'w' && m0 != 'a' && m0 != 'x')
        return d2_raise(I, "ValueError", "invalid mode: '%s'", mode);
    cmode[0] = m0 == 'x' ? 'w' : m0;
    if (plus)
        cmode[1] = '+';
    if (m0 == 'x') {
        struct stat sb;
        if (stat(path, &sb) == 0)
            return d2_raise(I, "FileExistsError", "[Errno 17] File exists: '%s'", path);
    }
    FILE *f = fopen(path, cmode);
    if (!f) {
        int e = errno;
        return d2_raise(I, e == ENOENT ? "FileNotFoundError" : e == EACCES ? "PermissionError" : "OSError",
                        "[Errno %d] %s: '%s'", e, strerror(e), path);
    }
    pyfile *pf = d2_calloc(1, sizeof *pf);
    d2_obj *o = pf ? d2_obj_alloc(I, D2_OBJ_OPAQUE, I->st->file_type, sizeof(d2_opaque)) : NULL;
    if (!o) {
        fclose(f);
        d2_free(pf);
        return pf ? NULL : d2_raise(I, "MemoryError", "out of memory");
    }
    pf->f = f;
    pf->readable = m0 == 'r' || plus;
    pf->writable = m0 != 'r' || plus;
    D2_AS(d2_opaque, o)->payload = pf;
    D2_AS(d2_opaque, o)->fin = pyfile_fin;
    return o;
}

/* A method that does nothing (a file's flush). */
BUILTIN(noop)
{
    (void)self;
    (void)a;
    (void)n;
    (void)kw;
    return d2_none(I);
}

/* ======================================================================
 * Registration
 * ==================================================================== */

/* The builtins that take keyword arguments are rows; the others check their
 * arguments by hand, as CPython's C functions do (cheaper on the hot path). */
static const d2_def PRINT = D2_DEF("print", "*args, sep=None, end=None, file=None, flush=False",
                                   b_print, NULL);
static const d2_def ENUMERATE = D2_DEF("enumerate", "iterable, start=0", b_enumerate, NULL);
static const d2_def ZIP = D2_DEF("zip", "*iterables, strict=False", b_zip, NULL);
static const d2_def SUM = D2_DEF("sum", "iterable, /, start=0", b_sum, NULL);
static const d2_def ROUND = D2_DEF("round", "number, ndigits=None", b_round, NULL);
static const d2_def SORTED =
    D2_DEF("sorted", "iterable, /, *, key=None, reverse=False", b_sorted, NULL);
static const d2_def POW = D2_DEF("pow", "base, exp, mod=None", b_pow, NULL);
static const d2_def OPEN = D2_DEF(
    "open", "file, mode='r', buffering=-1, encoding=None, *, newline=None", b_open, NULL);
static const d2_def INT_NEW = D2_DEF("__new__", "x=0, /, base=None", int_new, "int");
static const d2_def STR_NEW =
    D2_DEF("__new__", "object='', encoding=None, errors=None", str_new, "str");

static const method_def builtin_fns[] = {
    {"print", NULL, &PRINT}, {"len", b_len, NULL}, {"enumerate", NULL, &ENUMERATE},
    {"zip", NULL, &ZIP}, {"map", b_map, NULL}, {"filter", b_filter, NULL},
    {"reversed", b_reversed, NULL}, {"isinstance", b_isinstance, NULL},
    {"issubclass", b_issubclass, NULL}, {"min", b_min, NULL}, {"max", b_max, NULL},
    {"sum", NULL, &SUM}, {"abs", b_abs, NULL}, {"round", NULL, &ROUND}, {"repr", b_repr, NULL},
    {"ascii", b_ascii, NULL}, {"sorted", NULL, &SORTED}, {"hasattr", b_hasattr, NULL},
    {"getattr", b_getattr, NULL}, {"setattr", b_setattr, NULL}, {"delattr", b_delattr, NULL},
    {"id", b_id, NULL}, {"hash", b_hash, NULL}, {"iter", b_iter, NULL}, {"next", b_next, NULL},
    {"any", b_any, NULL}, {"all", b_all, NULL}, {"divmod", b_divmod, NULL},
    {"pow", NULL, &POW}, {"hex", b_hex, NULL}, {"oct", b_oct, NULL}, {"bin", b_bin, NULL},
    {"chr", b_chr, NULL}, {"ord", b_ord, NULL}, {"format", b_format, NULL},
    {"callable", b_callable, NULL}, {"vars", b_vars, NULL}, {"globals", b_globals, NULL},
    {"locals", b_globals, NULL}, {"open", NULL, &OPEN},
};

static int set_obj(d2_interp *I, d2_dict *d, const char *name, d2_obj *o) /* steals o */
{
    int rc = o ? d2_dict_set_str(I, d, name, o) : -1;
    d2_decref(o);
    return rc;
}

/* The class of open()'s files, and sys.stdout and sys.stderr. */
static int init_files(d2_interp *I)
{
    d2_class *fc = d2i_class_new(I, "TextIOWrapper", NULL, D2_OBJ_OPAQUE, NULL, false);
    static const method_def file_methods[] = {
        {"read", file_read, NULL},       {"readline", file_readline, NULL},
        {"readlines", file_readlines, NULL}, {"write", file_write, NULL},
        {"close", file_close, NULL},     {"flush", noop, NULL},
        {"__iter__", file_iter, NULL},   {"__enter__", file_enter, NULL},
        {"__exit__", file_close, NULL},
    };
    if (!fc)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(file_methods); i++)
        if (d2_class_add_method(I, fc, file_methods[i].name, file_methods[i].fn) < 0)
            return -1;
    I->st->file_type = fc;
    d2_class *tio = d2i_class_new(I, "TextIOWrapper", NULL, D2_OBJ_OPAQUE, NULL, false);
    if (!tio || d2_class_add_method(I, tio, "write", stream_write) < 0 ||
        d2_class_add_method(I, tio, "flush", stream_flush) < 0)
        return -1;
    for (int i = 1; i <= 2; i++) {
        d2_obj *s = d2_obj_alloc(I, D2_OBJ_OPAQUE, tio, sizeof(d2_opaque));
        if (!s)
            return -1;
        D2_AS(d2_opaque, s)->payload = (void *)(intptr_t)i;
        I->st->streams[i - 1] = s;
    }
    d2_decref((d2_obj *)tio);
    return 0;
}

d2_obj *d2_std_stream(d2_interp *I, int fd)
{
    return fd == 1 || fd == 2 ? I->st->streams[fd - 1] : NULL;
}

int d2i_init_builtins(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    for (size_t i = 0; i < D2_COUNTOF(builtin_fns); i++) {
        const method_def *f = &builtin_fns[i];
        d2_obj *b = f->def ? d2_def_new(I, f->def, NULL)
                           : d2_builtin_new(I, f->name, f->fn, NULL, NULL);
        if (set_obj(I, I->builtins, f->name, b) < 0)
            return -1;
    }
    struct {
        const char *name;
        d2_class *cls;
        d2_builtin_fn new_fn;
        const d2_def *new_def;
    } types[] = {
        {"int", I->types[D2_OBJ_INT], NULL, &INT_NEW},
        {"float", I->types[D2_OBJ_FLOAT], float_new, NULL},
        {"bool", I->types[D2_OBJ_BOOL], bool_new, NULL},
        {"str", I->types[D2_OBJ_STR], NULL, &STR_NEW},
        {"list", I->types[D2_OBJ_LIST], list_new, NULL},
        {"tuple", I->types[D2_OBJ_TUPLE], tuple_new, NULL},
        {"dict", I->types[D2_OBJ_DICT], dict_new, NULL},
        {"set", st->set, set_new, NULL},
        {"frozenset", st->set, NULL, NULL},
        {"range", I->types[D2_OBJ_RANGE], range_new, NULL},
        {"slice", I->types[D2_OBJ_SLICE], slice_new, NULL},
        {"object", st->object, object_new, NULL},
        {"type", st->type, type_new, NULL},
        {"property", I->types[D2_OBJ_PROPERTY], NULL, NULL},
        {"staticmethod", I->types[D2_OBJ_STATICMETHOD], NULL, NULL},
        {"classmethod", I->types[D2_OBJ_CLASSMETHOD], NULL, NULL},
        {"super", st->super, NULL, NULL},
    };
    for (size_t i = 0; i < D2_COUNTOF(types); i++) {
        if (types[i].new_fn && d2_class_add_method(I, types[i].cls, "__new__", types[i].new_fn) < 0)
            return -1;
        if (types[i].new_def && d2_class_add_defs(I, types[i].cls, types[i].new_def, 1, 0) < 0)
            return -1;
        if (d2_dict_set_str(I, I->builtins, types[i].name, (d2_obj *)types[i].cls) < 0)
            return -1;
    }
    st->object_new = d2_dict_get_str(I, st->object->dict, "__new__");
    if (d2_dict_set_str(I, I->builtins, "NotImplemented", I->not_implemented) < 0 ||
        d2_dict_set_str(I, I->builtins, "Ellipsis", I->ellipsis) < 0 ||
        d2_dict_set_str(I, I->builtins, "__debug__", I->true_) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_FLOAT], "is_integer", float_is_integer) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_INT], "bit_length", int_bit_length) < 0)
        return -1;
    return init_files(I);
}

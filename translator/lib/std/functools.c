/* functools.c - the functools module: reduce, partial, and decorators that change nothing. */
#include "lib/std/std.h"

#include <string.h>

D2_FN(ft_reduce) /* a[0] function, a[1] iterable, a[2] initial or NULL */
{
    d2_obj *it = d2_get_iter(I, a[1]);
    if (!it)
        return NULL;
    d2_obj *acc = a[2] ? d2_incref(a[2]) : NULL;
    for (;;) {
        bool done = false;
        d2_obj *v = d2_iter_next(I, it, &done);
        if (!v)
            break;
        if (!acc) {
            acc = v;
            continue;
        }
        d2_obj *args[2] = {acc, v};
        d2_obj *r = d2_call(I, a[0], args, 2, NULL);
        d2_decref(v);
        d2_decref(acc);
        acc = r;
        if (!acc)
            break;
    }
    d2_decref(it);
    if (d2_exc_pending(I)) {
        d2_decref(acc);
        return NULL;
    }
    if (!acc)
        return d2_raise(I, "TypeError", "reduce() of empty iterable with no initial value");
    return acc;
}

/* partial objects: a builtin whose self is (func, args, kwargs).
 * a[0] the call's positional arguments, a[1] its keywords. */
D2_FN(partial_call)
{
    d2_tuple *st = D2_AS(d2_tuple, self);
    d2_tuple *pa = D2_AS(d2_tuple, st->items[1]), *ca = D2_AS(d2_tuple, a[0]);
    d2_obj *kwo = d2_dict_new(I);
    if (!kwo || d2_dict_merge(I, D2_AS(d2_dict, kwo), st->items[2]) < 0 ||
        d2_dict_merge(I, D2_AS(d2_dict, kwo), a[1]) < 0) {
        d2_decref(kwo);
        return NULL;
    }
    d2_obj **all = d2_malloc((pa->n + ca->n + 1) * sizeof *all);
    if (!all) {
        d2_decref(kwo);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    memcpy(all, pa->items, pa->n * sizeof *all);
    memcpy(all + pa->n, ca->items, ca->n * sizeof *all);
    d2_obj *r = d2_call(I, st->items[0], all, pa->n + ca->n, D2_AS(d2_dict, kwo));
    d2_free(all);
    d2_decref(kwo);
    return r;
}

static const d2_def PARTIAL_CALL = D2_DEF("partial", "*args, **keywords", partial_call, NULL);

D2_FN(ft_partial) /* a[0] func and the arguments to fix, a[1] the keywords to fix */
{
    d2_tuple *t = D2_AS(d2_tuple, a[0]);
    if (t->n < 1)
        return d2_raise(I, "TypeError", "type 'partial' takes at least one argument");
    d2_obj *args = d2_tuple_from_array(I, t->items + 1, t->n - 1);
    d2_obj *kwd = d2_dict_new(I);
    if (!args || !kwd || d2_dict_merge(I, D2_AS(d2_dict, kwd), a[1]) < 0) {
        d2_decref(args);
        d2_decref(kwd);
        return NULL;
    }
    d2_obj *st = d2_tuple_pack(I, 3, t->items[0], args, kwd);
    d2_decref(args);
    d2_decref(kwd);
    if (!st)
        return NULL;
    d2_obj *b = d2_def_new(I, &PARTIAL_CALL, st);
    d2_decref(st);
    return b;
}

d2_obj *d2_std_identity(d2_interp *I, d2_obj *self, d2_obj **a, const d2_def *def)
{
    (void)self;
    (void)def;
    d2_tuple *t = D2_AS(d2_tuple, a[0]);
    if (t->n != 1)
        return d2_raise(I, "TypeError", "expected one argument");
    return d2_incref(t->items[0]);
}

static const d2_def DECORATOR = D2_DEF("decorator", "*args, **kwargs", d2_std_identity, NULL);

/* The decorator wraps(wrapped) returns (self is wrapped): copies the names
 * and the docstring of wrapped onto the wrapper, and sets __wrapped__. */
D2_FN(ft_update_wrapper) /* a[0] wrapper */
{
    static const char *const assigned[] = {"__module__", "__name__", "__qualname__", "__doc__"};
    for (size_t i = 0; i < D2_COUNTOF(assigned); i++) {
        d2_obj *v = d2_getattr_opt(I, self, assigned[i]);
        if (!v) {
            if (d2_exc_pending(I))
                return NULL;
            continue;
        }
        int rc = d2_setattr(I, a[0], assigned[i], v);
        d2_decref(v);
        if (rc < 0)
            return NULL;
    }
    if (d2_setattr(I, a[0], "__wrapped__", self) < 0)
        return NULL;
    return d2_incref(a[0]);
}

static const d2_def UPDATE_WRAPPER = D2_DEF_POS("wraps", "wrapper, /", ft_update_wrapper, NULL);

D2_FN(ft_wraps) /* a[0] wrapped, a[1] assigned, a[2] updated */
{
    return d2_def_new(I, &UPDATE_WRAPPER, a[0]);
}

/* lru_cache(...) / cache: decorators returning the function unchanged (no cache). */
D2_FN(ft_lru_cache) /* a[0] the positional arguments */
{
    d2_tuple *t = D2_AS(d2_tuple, a[0]);
    if (t->n == 1 && (t->items[0]->kind == D2_OBJ_FUNCTION || t->items[0]->kind == D2_OBJ_BUILTIN))
        return d2_incref(t->items[0]);
    return d2_def_new(I, &DECORATOR, NULL);
}

static const d2_def FUNCTOOLS_DEFS[] = {
    D2_DEF_POS("reduce", "function, iterable, [initial], /", ft_reduce, NULL),
    D2_DEF("partial", "*args, **keywords", ft_partial, NULL),
    D2_DEF("wraps", "wrapped, assigned=None, updated=None", ft_wraps, NULL),
    D2_DEF("lru_cache", "*args, **kwargs", ft_lru_cache, NULL),
    D2_DEF("cache", "*args, **kwargs", ft_lru_cache, NULL),
};

int d2_std_functools_init(d2_interp *I)
{
    return d2_std_module_defs(I, "functools", FUNCTOOLS_DEFS, D2_COUNTOF(FUNCTOOLS_DEFS)) ? 0 : -1;
}

/* framework.c - devices and places, no_grad and guard, dygraph/static switches, paddle.save. */
#include "lib/paddle/functions_priv.h"
#include "pickle.h"

#include <string.h>

/* ======================================================================
 * Devices, modes, paddle.save
 * ====================================================================== */

D2_FN(f_set_device)
{
    const char *d = d2_pd_get_str(I, a[0], "paddle.set_device", "device");
    if (!d)
        return NULL;
    if (strcmp(d, "cpu") != 0 && strncmp(d, "gpu", 3) != 0)
        return d2_raise(I, "ValueError", "paddle.set_device: unknown device '%s' (use 'cpu')", d);
    /* Paddle returns the Place it set: Place(cpu) */
    return d2_call(I, (d2_obj *)ST(I)->place_cls, NULL, 0, NULL);
}

D2_FN(f_get_device)
{
    return d2_str_from(I, "cpu");
}

static d2_obj *f_true(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_bool(I, D2_MODE(I)->builder == NULL);
}

static d2_obj *f_noop(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_none(I);
}

/* repr(paddle.CPUPlace()): Paddle's form */
static d2_obj *f_cpu_place_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                d2_dict *kw)
{
    D2_UNUSED(self);
    D2_UNUSED(args);
    D2_UNUSED(nargs);
    D2_UNUSED(kw);
    return d2_str_from(I, "Place(cpu)");
}

/* paddle.save(obj, path, protocol=4): a dict of str -> Tensor / ndarray (a
 * state_dict) written as Paddle writes it (see d2_pickle_save_params), so
 * that paddle.load here and in Paddle read it back. */
/* paddle.set_flags / get_flags (also paddle.base's): the FLAGS_ values a
 * script sets are kept (paddle._flags) and read back; none of them changes
 * how dy2st runs. */
static d2_dict *flags_dict(d2_interp *I)
{
    d2_dict *pd = ST(I)->paddle->dict;
    d2_obj *f = d2_dict_get_str(I, pd, "_flags");
    if (f && f->kind == D2_OBJ_DICT)
        return D2_AS(d2_dict, f);
    d2_obj *n = d2_dict_new(I);
    if (!n || d2_dict_set_str(I, pd, "_flags", n) < 0) {
        d2_decref(n);
        return NULL;
    }
    d2_decref(n);
    return D2_AS(d2_dict, n);
}

static int flag_name(d2_interp *I, d2_obj *k, const char *fname)
{
    if (!k || k->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "%s: a flag is a string that starts with 'FLAGS_', got %s",
                 fname, k ? d2_type_name(k) : "nothing");
        return -1;
    }
    if (strncmp(D2_AS(d2_str, k)->s, "FLAGS_", 6) != 0) {
        d2_raise(I, "ValueError", "%s: a flag starts with 'FLAGS_', got '%s'", fname,
                 D2_AS(d2_str, k)->s);
        return -1;
    }
    return 0;
}

D2_FN(f_set_flags)
{
    const char *fname = "paddle.set_flags";
    if (a[0]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "%s: flags must be a dict, got %s", fname,
                        d2_type_name(a[0]));
    d2_dict *in = D2_AS(d2_dict, a[0]), *fl = flags_dict(I);
    if (!fl)
        return NULL;
    for (size_t i = 0; i < in->n; i++) {
        d2_obj *k = in->entries[i].key;
        if (!k)
            continue;
        if (flag_name(I, k, fname) < 0 || d2_dict_set(I, fl, k, in->entries[i].value) < 0)
            return NULL;
    }
    return d2_none(I);
}

D2_FN(f_get_flags)
{
    const char *fname = "paddle.get_flags";
    d2_dict *fl = flags_dict(I);
    d2_obj *r = fl ? d2_dict_new(I) : NULL;
    if (!r)
        return NULL;
    bool one = a[0]->kind == D2_OBJ_STR;
    if (!one && !is_seq(a[0])) {
        d2_decref(r);
        return d2_raise(I, "TypeError", "%s: flags must be a str, list or tuple, got %s", fname,
                        d2_type_name(a[0]));
    }
    size_t n = one ? 1 : seq_len(a[0]);
    for (size_t i = 0; i < n; i++) {
        d2_obj *k = one ? a[0] : seq_item(a[0], i);
        d2_obj *v = flag_name(I, k, fname) < 0 ? NULL : d2_dict_get(I, fl, k);
        if (!v) {
            if (!d2_exc_pending(I))
                d2_raise(I, "ValueError", "%s: flag %s was not set (dy2st knows only the flags "
                         "a script sets)", fname, D2_AS(d2_str, k)->s);
            d2_decref(r);
            return NULL;
        }
        if (d2_dict_set(I, D2_AS(d2_dict, r), k, v) < 0) {
            d2_decref(r);
            return NULL;
        }
    }
    return r;
}

D2_FN(f_save)
{
    const char *fname = "paddle.save";
    int64_t proto;
    const char *path = d2_to_cstr(I, a[1], "path");
    if (!path || d2_pd_get_int(I, a[2], fname, "protocol", &proto) < 0)
        return NULL;
    if (proto != 4)
        return d2_raise(I, "NotImplementedError", "%s: only protocol=4 (the default) is supported",
                        fname);
    if (a[0]->kind != D2_OBJ_DICT)
        return d2_raise(I, "NotImplementedError",
                        "%s: only a dict of Tensors (a state_dict) can be saved, got %s", fname,
                        d2_type_name(a[0]));
    d2_dict *d = D2_AS(d2_dict, a[0]);
    d2_pickle_params pp = {0, NULL};
    pp.items = d2_calloc(d->live + 1, sizeof *pp.items);
    if (!pp.items)
        return nomem(I);
    d2_obj *r = NULL;
    for (size_t i = 0; i < d->n; i++) {
        d2_obj *k = d->entries[i].key, *v = d->entries[i].value;
        if (!k)
            continue;
        if (k->kind != D2_OBJ_STR) {
            d2_raise(I, "NotImplementedError", "%s: the dict's keys must be strings, got %s",
                     fname, d2_type_name(k));
            goto done;
        }
        if (!is_tensor(v) && !is_ndarray(v)) {
            d2_raise(I, "NotImplementedError",
                     "%s: only a dict of Tensors can be saved; '%s' is a %s", fname,
                     D2_AS(d2_str, k)->s, d2_type_name(v));
            goto done;
        }
        d2_tensor *h = d2_pd_host(I, v, fname);
        if (!h)
            goto done;
        pp.items[pp.n].name = D2_AS(d2_str, k)->s; /* borrowed: not freed below */
        pp.items[pp.n++].tensor = h;
    }
    d2_err err = {0};
    if (d2_pickle_save_params(path, &pp, &err) < 0)
        d2_raise_err(I, &err);
    else
        r = d2_incref(I->none);
done:
    for (size_t i = 0; i < pp.n; i++)
        d2_tensor_unref(pp.items[i].tensor);
    d2_free(pp.items);
    return r;
}

/* ======================================================================
 * no_grad, guard
 * ====================================================================== */

D2_FN(NG_init)
{
    if (iset(I, self, "_func", a[0]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *NG_enter(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__enter__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    ST(I)->no_grad++;
    return d2_none(I);
}

static d2_obj *NG_exit(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__exit__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    if (ST(I)->no_grad > 0)
        ST(I)->no_grad--;
    return d2_bool(I, false);
}

/* The function returned by no_grad()(fn): calls fn (its bound self) with gradients off. */
static d2_obj *NG_wrapped(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    ST(I)->no_grad++;
    d2_obj *r = d2_call(I, self, args, nargs, kw);
    ST(I)->no_grad--;
    return r;
}

static d2_obj *NG_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("no_grad.__call__");
    d2_obj *fn = iget(I, self, "_func");
    if (fn && !is_none(I, fn))
        return NG_wrapped(I, fn, args, nargs, kw);
    if (nargs != 1 || kw)
        return d2_raise(I, "TypeError", "no_grad()(func) takes one function");
    return d2_builtin_new(I, "no_grad_wrapper", NG_wrapped, args[0], NULL);
}

/* ======================================================================
 * The rows and classes
 * ====================================================================== */

static const d2_def FRAMEWORK_DEFS[] = {
    D2_DEF("set_device", "device", f_set_device, "paddle.set_device"),
    D2_DEF("get_device", "", f_get_device, "paddle.get_device"),
    D2_DEF("save", "obj, path, protocol=4", f_save, "paddle.save"),
    D2_DEF("set_flags", "flags", f_set_flags, "paddle.set_flags"),
    D2_DEF("get_flags", "flags", f_get_flags, "paddle.get_flags"),
};

/* paddle's functions above, no_grad, fluid.dygraph.guard and the places. */
int d2_pd_framework_add(d2_interp *I, pd_state *s)
{
    d2_module *pd = s->paddle, *dyg = s->dygraph;
    static const method_entry pfns[] = {
        {"in_dynamic_mode", f_true},
        {"disable_static", f_noop},
        {"enable_static", f_noop},
        {"set_printoptions", f_noop},
    };
    for (size_t i = 0; i < D2_COUNTOF(pfns); i++)
        if (add_fn(I, pd, pfns[i].name, pfns[i].fn) < 0)
            return -1;
    if (d2_module_add_defs(I, pd, FRAMEWORK_DEFS, D2_COUNTOF(FRAMEWORK_DEFS)) < 0)
        return -1;
    /* places and contexts */
    static const method_entry ng_m[] = {
        {"__enter__", NG_enter}, {"__exit__", NG_exit}, {"__call__", NG_call}};
    static const d2_def ng_defs[] = {
        D2_DEF("__init__", "func=None", NG_init, "paddle.no_grad"),
    };
    s->ctx_cls = d2_pd_new_class(I, pd, "no_grad", NULL, ng_m, D2_COUNTOF(ng_m));
    if (!s->ctx_cls || d2_class_add_defs(I, s->ctx_cls, ng_defs, D2_COUNTOF(ng_defs), 0) < 0)
        return -1;
    static const method_entry guard_m[] = {
        {"__init__", f_noop}, {"__enter__", f_noop}, {"__exit__", f_noop}};
    d2_class *guard = d2_pd_new_class(I, dyg, "guard", NULL, guard_m, D2_COUNTOF(guard_m));
    static const method_entry place_methods[] = {{"__init__", f_noop}};
    static const method_entry cpu_place_m[] = {{"__init__", f_noop},
                                               {"__repr__", f_cpu_place_repr}};
    s->place_cls = d2_pd_new_class(I, pd, "CPUPlace", NULL, cpu_place_m, D2_COUNTOF(cpu_place_m));
    d2_class *cuda_place = d2_pd_new_class(I, pd, "CUDAPlace", NULL, place_methods, 1);
    if (!guard || !s->place_cls || !cuda_place ||
        set_attr(I, dyg, "no_grad", (d2_obj *)s->ctx_cls) < 0 ||
        set_attr(I, s->fluid, "CPUPlace", (d2_obj *)s->place_cls) < 0 ||
        set_attr(I, s->fluid, "set_flags", d2_dict_get_str(I, pd->dict, "set_flags")) < 0 ||
        set_attr(I, s->fluid, "get_flags", d2_dict_get_str(I, pd->dict, "get_flags")) < 0)
        return -1;
    return 0;
}

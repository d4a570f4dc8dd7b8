/* layer.c - paddle.nn.Layer: parameters, sublayers, buffers, hooks, state_dict. */
#include "lib/paddle/layers_priv.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================
 * paddle.nn.Layer
 *
 * A builtin class of INSTANCE layout that user classes subclass. As in
 * Paddle, the instance dict holds _parameters, _sub_layers and _buffers
 * (insertion-ordered dicts), the hook dicts, training and _full_name;
 * __setattr__ routes parameters, sublayers and tensors into them and
 * __getattr__ finds them there.
 * ====================================================================== */

bool d2_pd_is_layer(d2_interp *I, d2_obj *o)
{
    pd_state *s = ST(I);
    return o && o->kind == D2_OBJ_INSTANCE && s->layer_cls && d2_isinstance(I, o, s->layer_cls);
}

static bool is_param(d2_obj *o) { return is_tensor(o) && TOBJ(o)->persistable; }

d2_dict *d2_pd_layer_dict(d2_interp *I, d2_obj *self, const char *which)
{
    d2_obj *d = iget(I, self, which);
    return d && d->kind == D2_OBJ_DICT ? D2_AS(d2_dict, d) : NULL;
}

/* Paddle's unique_name.generate(key): "key_N" with a counter per key. */
const char *d2_pd_unique_name(d2_interp *I, const char *key)
{
    pd_state *s = ST(I);
    d2_obj *c = d2_dict_get_str(I, s->name_counters, key);
    int64_t n = c ? D2_AS(d2_int, c)->v : 0;
    d2_obj *nv = d2_int_new(I, n + 1);
    if (!nv || d2_dict_set_str(I, s->name_counters, key, nv) < 0) {
        d2_decref(nv);
        return NULL;
    }
    d2_decref(nv);
    char *r = d2_arena_printf(I->arena, "%s_%lld", key, (long long)n);
    if (!r)
        nomem(I);
    return r;
}

/* Paddle's _convert_camel_to_snake: (.)([A-Z][a-z]+) -> \1_\2, then
 * ([a-z])([A-Z]) -> \1_\2, lowercased. */
static void camel_to_snake(const char *in, char *out, size_t cap)
{
    char tmp[256];
    size_t n = 0, len = strlen(in);
    for (size_t i = 0; i < len && n + 2 < sizeof tmp; i++) {
        if (i > 0 && isupper((unsigned char)in[i]) && i + 1 < len &&
            islower((unsigned char)in[i + 1]))
            tmp[n++] = '_';
        tmp[n++] = in[i];
    }
    tmp[n] = 0;
    size_t m = 0;
    for (size_t i = 0; i < n && m + 2 < cap; i++) {
        if (i > 0 && isupper((unsigned char)tmp[i]) && islower((unsigned char)tmp[i - 1]))
            out[m++] = '_';
        out[m++] = (char)tolower((unsigned char)tmp[i]);
    }
    out[m] = 0;
}

D2_FN(L_init)
{
    if (!idict(self))
        return d2_raise(I, "TypeError", "Layer.__init__: self must be a Layer instance");
    if (d2_pd_layer_dict(I, self, "_parameters"))
        return d2_none(I); /* already initialised (a second super().__init__()) */
    char snake[256];
    const char *scope;
    if (!is_none(I, a[0])) {
        scope = d2_pd_get_str(I, a[0], "Layer.__init__", "name_scope");
        if (!scope)
            return NULL;
        snprintf(snake, sizeof snake, "%s", scope);
    } else {
        camel_to_snake(self->cls->name, snake, sizeof snake);
    }
    const char *full = d2_pd_unique_name(I, snake);
    if (!full)
        return NULL;
    int dt;
    if (d2_pd_parse_dtype(I, a[1], "Layer.__init__", false, &dt) < 0)
        return NULL;
    if (dt < 0)
        dt = D2_F32;
    if (iset(I, self, "training", I->true_) < 0 ||
        iset_take(I, self, "_parameters", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_sub_layers", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_buffers", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_non_persistable_buffer_names_set", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_forward_pre_hooks", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_forward_post_hooks", d2_dict_new(I)) < 0 ||
        iset_take(I, self, "_full_name", d2_str_from(I, full)) < 0 ||
        iset_take(I, self, "_dtype", d2_str_from(I, dtname(dt))) < 0)
        return NULL;
    return d2_none(I);
}

static int need_init(d2_interp *I, d2_obj *self, const char *what)
{
    if (d2_pd_layer_dict(I, self, "_parameters"))
        return 0;
    d2_raise(I, "ValueError",
             "%s: super(%s, self).__init__() should be called first (the Layer is not "
             "initialised)",
             what, self->cls->name);
    return -1;
}

/* Removes name from the instance dict and the given layer dicts, if present. */
static void remove_from(d2_interp *I, d2_obj *self, const char *name, const char *d1,
                        const char *d2)
{
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return;
    d2_dict *ds[3] = {idict(self), d2_pd_layer_dict(I, self, d1), d2_pd_layer_dict(I, self, d2)};
    for (int i = 0; i < 3; i++)
        if (ds[i] && d2_dict_get(I, ds[i], key))
            d2_dict_del(I, ds[i], key);
    d2_decref(key);
}

int d2_pd_layer_setattr(d2_interp *I, d2_obj *self, const char *name, d2_obj *v)
{
    d2_dict *params = d2_pd_layer_dict(I, self, "_parameters");
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    d2_dict *bufs = d2_pd_layer_dict(I, self, "_buffers");
    if (is_param(v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_buffers", "_sub_layers");
        return d2_dict_set_str(I, params, name, v);
    }
    if (params && d2_dict_get_str(I, params, name)) {
        if (!is_none(I, v)) {
            d2_raise(
                I, "TypeError",
                "assignment to parameter '%s' should be of type Parameter or None, but got '%s'",
                name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, params, name, I->none);
    }
    if (d2_pd_is_layer(I, v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_parameters", "_buffers");
        return d2_dict_set_str(I, subs, name, v);
    }
    if (subs && d2_dict_get_str(I, subs, name)) {
        if (!is_none(I, v)) {
            d2_raise(I, "TypeError",
                     "assignment to sublayer '%s' should be of type Layer or None, but got '%s'",
                     name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, subs, name, I->none);
    }
    if (is_tensor(v)) {
        if (need_init(I, self, "Layer.__setattr__") < 0)
            return -1;
        remove_from(I, self, name, "_parameters", "_sub_layers");
        if (!d2_dict_get_str(I, bufs, name)) {
            d2_dict *np = d2_pd_layer_dict(I, self, "_non_persistable_buffer_names_set");
            if (np && d2_dict_set_str(I, np, name, I->true_) < 0)
                return -1;
        }
        return d2_dict_set_str(I, bufs, name, v);
    }
    if (bufs && d2_dict_get_str(I, bufs, name)) {
        if (!is_none(I, v)) {
            d2_raise(I, "TypeError",
                     "assignment to buffer '%s' should be of type Tensor or None, but got '%s'",
                     name, d2_type_name(v));
            return -1;
        }
        return d2_dict_set_str(I, bufs, name, I->none);
    }
    return iset(I, self, name, v);
}

static d2_obj *L_setattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__setattr__");
    D2_UNUSED(kw);
    if (nargs != 2 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError",
                        "Layer.__setattr__(name, value) takes a string and a value");
    if (d2_pd_layer_setattr(I, self, D2_AS(d2_str, args[0])->s, args[1]) < 0)
        return NULL;
    return d2_none(I);
}

/* del layer.name: the parameter, sublayer or buffer of that name, else the
 * instance attribute (Paddle's Layer.__delattr__). */
static d2_obj *L_delattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__delattr__");
    D2_UNUSED(kw);
    if (nargs != 1 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "Layer.__delattr__(name) takes a string");
    static const char *where[] = {"_parameters", "_sub_layers", "_buffers"};
    for (int i = 0; i < 3; i++) {
        d2_dict *d = d2_pd_layer_dict(I, self, where[i]);
        if (d && d2_dict_get(I, d, args[0])) {
            if (d2_dict_del(I, d, args[0]) < 0)
                return NULL;
            d2_dict *np = i == 2 ? d2_pd_layer_dict(I, self, "_non_persistable_buffer_names_set")
                                 : NULL;
            if (np && d2_dict_get(I, np, args[0]) && d2_dict_del(I, np, args[0]) < 0)
                return NULL;
            return d2_none(I);
        }
    }
    d2_dict *own = idict(self);
    if (!own || !d2_dict_get(I, own, args[0]))
        return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'",
                        self->cls->name, D2_AS(d2_str, args[0])->s);
    if (d2_dict_del(I, own, args[0]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *L_getattr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__getattr__");
    D2_UNUSED(kw);
    if (nargs != 1 || args[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "Layer.__getattr__(name) takes a string");
    const char *name = D2_AS(d2_str, args[0])->s;
    static const char *where[] = {"_parameters", "_sub_layers", "_buffers"};
    for (int i = 0; i < 3; i++) {
        d2_dict *d = d2_pd_layer_dict(I, self, where[i]);
        d2_obj *v = d ? d2_dict_get_str(I, d, name) : NULL;
        if (v)
            return d2_incref(v);
    }
    return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", self->cls->name,
                    name);
}

static d2_obj *L_forward(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.forward");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_raise(I, "NotImplementedError", "%s.forward is not implemented", self->cls->name);
}

static d2_obj *L_call(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__call__");
    if (need_init(I, self, "Layer.__call__") < 0)
        return NULL;
    d2_obj *inputs = tuple_new(I, nargs);
    if (!inputs)
        return NULL;
    for (size_t i = 0; i < nargs; i++)
        D2_AS(d2_tuple, inputs)->items[i] = d2_incref(args[i]);
    d2_dict *pre = d2_pd_layer_dict(I, self, "_forward_pre_hooks");
    for (size_t i = 0; pre && i < pre->n; i++) {
        d2_dict_entry *e = &pre->entries[i];
        if (!e->key)
            continue;
        d2_obj *hargs[2] = {self, inputs};
        d2_obj *hr = d2_call(I, e->value, hargs, 2, NULL);
        if (!hr) {
            d2_decref(inputs);
            return NULL;
        }
        if (!is_none(I, hr)) {
            if (hr->kind == D2_OBJ_TUPLE) {
                d2_setref(&inputs, hr);
                continue;
            }
            d2_obj *t = d2_tuple_pack(I, 1, hr);
            d2_decref(hr);
            if (!t) {
                d2_decref(inputs);
                return NULL;
            }
            d2_setref(&inputs, t);
        } else {
            d2_decref(hr);
        }
    }
    d2_obj *out = d2_call_method(I, self, "forward", D2_AS(d2_tuple, inputs)->items,
                                 D2_AS(d2_tuple, inputs)->n, kw);
    d2_dict *post = d2_pd_layer_dict(I, self, "_forward_post_hooks");
    for (size_t i = 0; out && post && i < post->n; i++) {
        d2_dict_entry *e = &post->entries[i];
        if (!e->key)
            continue;
        d2_obj *hargs[3] = {self, inputs, out};
        d2_obj *hr = d2_call(I, e->value, hargs, 3, NULL);
        if (!hr)
            d2_setref(&out, NULL);
        else if (!is_none(I, hr))
            d2_setref(&out, hr);
        else
            d2_decref(hr);
    }
    d2_decref(inputs);
    return out;
}

/* ---- hook handles ---- */

static d2_obj *H_remove(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("HookRemoveHelper.remove");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *d = iget(I, self, "_hooks");
    d2_obj *id = iget(I, self, "_hook_id");
    if (d && id && d->kind == D2_OBJ_DICT && d2_dict_get(I, D2_AS(d2_dict, d), id) &&
        d2_dict_del(I, D2_AS(d2_dict, d), id) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *add_hook(d2_interp *I, d2_obj *self, const char *which, d2_obj *fn)
{
    if (need_init(I, self, which) < 0)
        return NULL;
    d2_dict *d = d2_pd_layer_dict(I, self, which);
    static int64_t next_id;
    d2_obj *id = d2_int_new(I, next_id++);
    if (!id || d2_dict_set(I, d, id, fn) < 0) {
        d2_decref(id);
        return NULL;
    }
    d2_obj *h = d2_instance_new(I, ST(I)->hook_cls);
    if (!h || iset(I, h, "_hooks", (d2_obj *)d) < 0 || iset(I, h, "_hook_id", id) < 0) {
        d2_decref(h);
        h = NULL;
    }
    d2_decref(id);
    return h;
}

D2_FN(L_register_forward_pre_hook)
{
    return add_hook(I, self, "_forward_pre_hooks", a[0]);
}

D2_FN(L_register_forward_post_hook)
{
    return add_hook(I, self, "_forward_post_hooks", a[0]);
}

/* ---- traversal ---- */

static const char *join_name(char *buf, size_t cap, const char *prefix, const char *key)
{
    snprintf(buf, cap, "%s%s%s", prefix, prefix[0] ? "." : "", key);
    return buf;
}

/* Appends (name, layer) pairs of self's sublayers (depth first, pre-order,
 * each layer once) to list; include_self adds self first. */
static int named_sublayers_rec(d2_interp *I, d2_obj *self, const char *prefix, bool include_self,
                               d2_obj *list, d2_obj *seen)
{
    if (include_self) {
        for (size_t i = 0; i < D2_AS(d2_list, seen)->n; i++)
            if (D2_AS(d2_list, seen)->items[i] == self)
                return 0;
        if (d2_list_append(I, seen, self) < 0)
            return -1;
        d2_obj *name = d2_str_from(I, prefix);
        d2_obj *pair = name ? d2_tuple_pack(I, 2, name, self) : NULL;
        int rc = pair ? d2_list_append(I, list, pair) : -1;
        d2_decref(name);
        d2_decref(pair);
        if (rc < 0)
            return -1;
    }
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
            continue;
        char buf[1024];
        join_name(buf, sizeof buf, prefix, D2_AS(d2_str, e->key)->s);
        if (named_sublayers_rec(I, e->value, buf, true, list, seen) < 0)
            return -1;
    }
    return 0;
}

static d2_obj *named_sublayers(d2_interp *I, d2_obj *self, const char *prefix, bool include_self)
{
    d2_obj *list = d2_list_new(I, 0);
    d2_obj *seen = d2_list_new(I, 0);
    if (!list || !seen || named_sublayers_rec(I, self, prefix, include_self, list, seen) < 0) {
        d2_decref(list);
        d2_decref(seen);
        return NULL;
    }
    d2_decref(seen);
    return list;
}

/* (name, value) pairs of the _parameters or _buffers dicts of self and (when
 * include_sublayers) its sublayers, each value once. */
static d2_obj *named_members(d2_interp *I, d2_obj *self, const char *which, const char *prefix,
                             bool include_sublayers)
{
    d2_obj *layers;
    if (include_sublayers) {
        layers = named_sublayers(I, self, prefix, true);
    } else {
        d2_obj *name = d2_str_from(I, prefix);
        d2_obj *pair = name ? d2_tuple_pack(I, 2, name, self) : NULL;
        layers = pair ? d2_list_new(I, 0) : NULL;
        if (layers && d2_list_append(I, layers, pair) < 0)
            d2_setref(&layers, NULL);
        d2_decref(name);
        d2_decref(pair);
    }
    if (!layers)
        return NULL;
    d2_obj *out = d2_list_new(I, 0);
    d2_obj *seen = d2_list_new(I, 0);
    for (size_t i = 0; out && seen && i < D2_AS(d2_list, layers)->n; i++) {
        d2_tuple *pair = D2_AS(d2_tuple, D2_AS(d2_list, layers)->items[i]);
        const char *lp = D2_AS(d2_str, pair->items[0])->s;
        d2_dict *d = d2_pd_layer_dict(I, pair->items[1], which);
        for (size_t k = 0; d && k < d->n; k++) {
            d2_dict_entry *e = &d->entries[k];
            if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
                continue;
            bool dup = false;
            for (size_t j = 0; j < D2_AS(d2_list, seen)->n && !dup; j++)
                dup = D2_AS(d2_list, seen)->items[j] == e->value;
            if (dup)
                continue;
            char buf[1024];
            join_name(buf, sizeof buf, lp, D2_AS(d2_str, e->key)->s);
            d2_obj *name = d2_str_from(I, buf);
            d2_obj *np = name ? d2_tuple_pack(I, 2, name, e->value) : NULL;
            if (!np || d2_list_append(I, out, np) < 0 || d2_list_append(I, seen, e->value) < 0)
                d2_setref(&out, NULL);
            d2_decref(name);
            d2_decref(np);
            if (!out)
                break;
        }
    }
    d2_decref(seen);
    d2_decref(layers);
    return out;
}

/* The second items of a list of pairs. */
static d2_obj *seconds(d2_interp *I, d2_obj *pairs)
{
    if (!pairs)
        return NULL;
    d2_obj *out = d2_list_new(I, 0);
    for (size_t i = 0; out && i < D2_AS(d2_list, pairs)->n; i++)
        if (d2_list_append(I, out, D2_AS(d2_tuple, D2_AS(d2_list, pairs)->items[i])->items[1]) < 0)
            d2_setref(&out, NULL);
    d2_decref(pairs);
    return out;
}

D2_FN(L_named_parameters)
{
    bool inc;
    const char *prefix = d2_pd_get_str(I, a[0], "Layer.named_parameters", "prefix");
    if (!prefix || d2_pd_get_bool(I, a[1], "Layer.named_parameters", "include_sublayers", &inc) < 0)
        return NULL;
    return named_members(I, self, "_parameters", prefix, inc);
}

D2_FN(L_parameters)
{
    bool inc;
    if (d2_pd_get_bool(I, a[0], "Layer.parameters", "include_sublayers", &inc) < 0)
        return NULL;
    return seconds(I, named_members(I, self, "_parameters", "", inc));
}

/* Layer.clear_gradients: every parameter's gradient zeroed (set_to_zero) or dropped. */
D2_FN(L_clear_gradients)
{
    bool z;
    if (d2_pd_get_bool(I, a[0], "Layer.clear_gradients", "set_to_zero", &z) < 0)
        return NULL;
    d2_obj *ps = seconds(I, named_members(I, self, "_parameters", "", true));
    if (!ps)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, ps)->n; i++) {
        d2_obj *p = D2_AS(d2_list, ps)->items[i];
        if (is_tensor(p) && d2_pd_clear_grad(I, p, z) < 0) {
            d2_decref(ps);
            return NULL;
        }
    }
    d2_decref(ps);
    return d2_none(I);
}

D2_FN(L_named_buffers)
{
    bool inc;
    const char *prefix = d2_pd_get_str(I, a[0], "Layer.named_buffers", "prefix");
    if (!prefix || d2_pd_get_bool(I, a[1], "Layer.named_buffers", "include_sublayers", &inc) < 0)
        return NULL;
    return named_members(I, self, "_buffers", prefix, inc);
}

D2_FN(L_buffers)
{
    bool inc;
    if (d2_pd_get_bool(I, a[0], "Layer.buffers", "include_sublayers", &inc) < 0)
        return NULL;
    return seconds(I, named_members(I, self, "_buffers", "", inc));
}

D2_FN(L_named_sublayers)
{
    bool inc;
    const char *prefix = d2_pd_get_str(I, a[0], "Layer.named_sublayers", "prefix");
    if (!prefix || d2_pd_get_bool(I, a[1], "Layer.named_sublayers", "include_self", &inc) < 0)
        return NULL;
    return named_sublayers(I, self, prefix, inc);
}

D2_FN(L_sublayers)
{
    bool inc;
    if (d2_pd_get_bool(I, a[0], "Layer.sublayers", "include_self", &inc) < 0)
        return NULL;
    return seconds(I, named_sublayers(I, self, "", inc));
}

static d2_obj *L_named_children(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                d2_dict *kw)
{
    SELF_ARG("Layer.named_children");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *out = d2_list_new(I, 0);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    for (size_t i = 0; out && subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value))
            continue;
        bool dup = false;
        for (size_t j = 0; j < D2_AS(d2_list, out)->n && !dup; j++)
            dup = D2_AS(d2_tuple, D2_AS(d2_list, out)->items[j])->items[1] == e->value;
        if (dup)
            continue;
        d2_obj *pair = d2_tuple_pack(I, 2, e->key, e->value);
        if (!pair || d2_list_append(I, out, pair) < 0)
            d2_setref(&out, NULL);
        d2_decref(pair);
    }
    return out;
}

static d2_obj *L_children(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.children");
    return seconds(I, L_named_children(I, self, args, nargs, kw));
}

/* Paddle's _state_dict_impl: own parameters, own persistable buffers, then
 * each sublayer's entries under "name.". */
static int state_dict_rec(d2_interp *I, d2_obj *self, const char *prefix, bool include_sub,
                          bool all_buffers, d2_dict *dest)
{
    d2_dict *params = d2_pd_layer_dict(I, self, "_parameters");
    d2_dict *bufs = d2_pd_layer_dict(I, self, "_buffers");
    d2_dict *np = d2_pd_layer_dict(I, self, "_non_persistable_buffer_names_set");
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    d2_dict *srcs[2] = {params, bufs};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; srcs[s] && i < srcs[s]->n; i++) {
            d2_dict_entry *e = &srcs[s]->entries[i];
            if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
                continue;
            if (s == 1 && !all_buffers && np && d2_dict_get(I, np, e->key))
                continue;
            char buf[1024];
            snprintf(buf, sizeof buf, "%s%s", prefix, D2_AS(d2_str, e->key)->s);
            if (d2_dict_set_str(I, dest, buf, e->value) < 0)
                return -1;
        }
    }
    for (size_t i = 0; include_sub && subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || is_none(I, e->value) || e->key->kind != D2_OBJ_STR)
            continue;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%s.", prefix, D2_AS(d2_str, e->key)->s);
        if (state_dict_rec(I, e->value, buf, true, all_buffers, dest) < 0)
            return -1;
    }
    return 0;
}

/* state_dict (persistable buffers only) and to_static_state_dict (all buffers) */
static d2_obj *state_dict_impl(d2_interp *I, d2_obj *self, d2_obj **a, const char *fname,
                               bool all_buffers)
{
    bool inc;
    const char *prefix = d2_pd_get_str(I, a[2], fname, "structured_name_prefix");
    if (!prefix || d2_pd_get_bool(I, a[1], fname, "include_sublayers", &inc) < 0)
        return NULL;
    d2_obj *dest;
    if (!is_none(I, a[0])) {
        if (a[0]->kind != D2_OBJ_DICT)
            return d2_raise(I, "TypeError", "%s: destination must be a dict", fname);
        dest = d2_incref(a[0]);
    } else {
        /* an OrderedDict, as Paddle's (its repr shows) */
        d2_obj *m = d2_import(I, "_collections", NULL);
        d2_obj *od = m ? d2_getattr(I, m, "OrderedDict") : NULL;
        d2_decref(m);
        dest = od ? d2_call(I, od, NULL, 0, NULL) : NULL;
        d2_decref(od);
        if (!dest)
            return NULL;
        if (dest->kind != D2_OBJ_DICT) {
            d2_decref(dest);
            return d2_raise(I, "RuntimeError", "%s: OrderedDict is not a dict", fname);
        }
    }
    if (state_dict_rec(I, self, prefix, inc, all_buffers, D2_AS(d2_dict, dest)) < 0) {
        d2_decref(dest);
        return NULL;
    }
    return dest;
}

D2_FN(L_state_dict) { return state_dict_impl(I, self, a, "Layer.state_dict", false); }

D2_FN(L_to_static_state_dict)
{
    return state_dict_impl(I, self, a, "Layer.to_static_state_dict", true);
}

static void warn_here(d2_interp *I, const char *msg)
{
    d2_span sp;
    memset(&sp, 0, sizeof sp);
    const d2_module *m = NULL;
    if (I->frame) {
        sp = I->frame->span;
        m = I->frame->module;
    }
    d2_warn(I, sp, m, "%s", msg);
}

/* Copies v into dst's storage where their dtype, size, layout and backend agree, so that a
 * static Program or a to_static run holding the parameter's data sees the new value, as the
 * optimizers write theirs: 0; 1 when they differ (the caller rebinds); -1 with an exception. */
static int write_in_place(d2_tensor *dst, d2_tensor *v)
{
    int64_t n = dst ? d2_tensor_numel(dst) : -1;
    if (!dst || dst->dtype != v->dtype || n != d2_tensor_numel(v) ||
        !d2_tensor_is_contiguous(dst) || !d2_tensor_is_contiguous(v) || !dst->storage ||
        !v->storage || dst->storage->backend != v->storage->backend ||
        dst->kind != D2_VALUE_TENSOR || n == 0)
        return 1;
    d2_backend *be = dst->storage->backend ? dst->storage->backend : d2_cpu_backend();
    size_t es = d2_dtype_size(dst->dtype);
    d2_err err = {0};
    if (be->copy(be, dst->storage->data, (size_t)dst->offset * es, v->storage->data,
                 (size_t)v->offset * es, (size_t)n * es, &err) < 0)
        return 1; /* rebinding still gives the layer its value */
    return 0;
}

D2_FN(L_set_state_dict)
{
    const char *fname = "Layer.set_state_dict";
    if (a[0]->kind != D2_OBJ_DICT)
        return d2_raise(I, "TypeError", "%s: state_dict must be a dict, got %s", fname,
                        d2_type_name(a[0]));
    bool structured;
    if (d2_pd_get_bool(I, a[1], fname, "use_structured_name", &structured) < 0)
        return NULL;
    d2_dict *sd = D2_AS(d2_dict, a[0]);
    d2_obj *own = d2_dict_new(I);
    d2_obj *missing = d2_list_new(I, 0), *unexpected = d2_list_new(I, 0), *matched = d2_dict_new(I);
    d2_obj *r = NULL;
    if (!own || !missing || !unexpected || !matched ||
        state_dict_rec(I, self, "", true, false, D2_AS(d2_dict, own)) < 0)
        goto done;
    d2_dict *od = D2_AS(d2_dict, own);
    for (size_t i = 0; i < od->n; i++) {
        d2_dict_entry *e = &od->entries[i];
        if (!e->key)
            continue;
        d2_obj *param = e->value;
        d2_obj *key = e->key;
        if (!structured) {
            if (!TOBJ(param)->name)
                continue;
            key = d2_str_from(I, TOBJ(param)->name);
            if (!key)
                goto done;
        } else {
            d2_incref(key);
        }
        const char *ks = D2_AS(d2_str, key)->s;
        d2_obj *state = d2_dict_get(I, sd, key);
        char msg[1200];
        if (!state) {
            d2_list_append(I, missing, key);
            snprintf(msg, sizeof msg, "Skip loading for %s. %s is not found in the provided dict.",
                     D2_AS(d2_str, e->key)->s, ks);
            warn_here(I, msg);
            d2_decref(key);
            continue;
        }
        d2_tensor *v = d2_pd_from_py(I, state, TOBJ(param)->type.dtype, D2_F32, fname);
        if (!v) {
            d2_decref(key);
            goto done;
        }
        d2_shape vs;
        d2_tensor_get_shape(v, &vs);
        if (!d2_shape_equal(&vs, &TOBJ(param)->type.shape)) {
            d2_buf sb;
            d2_buf_init(&sb);
            d2_pd_shape_list_str(&sb, &vs);
            d2_buf_puts(&sb, ", but the expected shape is ");
            d2_pd_shape_list_str(&sb, &TOBJ(param)->type.shape);
            snprintf(msg, sizeof msg, "Skip loading for %s. %s receives a shape %s.",
                     D2_AS(d2_str, e->key)->s, ks, sb.data ? sb.data : "");
            d2_buf_free(&sb);
            warn_here(I, msg);
            d2_list_append(I, missing, key);
            d2_tensor_unref(v);
            d2_decref(key);
            continue;
        }
        d2_dict_set(I, D2_AS(d2_dict, matched), key, I->true_);
        d2_decref(key);
        v = d2_pd_to_backend(I, v);
        if (!v)
            goto done;
        int w = write_in_place(TOBJ(param)->t, v);
        if (w < 0) {
            d2_tensor_unref(v);
            goto done;
        }
        if (w == 0) {
            d2_tensor_unref(v);
            continue;
        }
        if (TOBJ(param)->t)
            d2_tensor_unref(TOBJ(param)->t);
        TOBJ(param)->t = v;
    }
    for (size_t i = 0; i < sd->n; i++) {
        d2_dict_entry *e = &sd->entries[i];
        if (e->key && !d2_dict_get(I, D2_AS(d2_dict, matched), e->key) &&
            d2_list_append(I, unexpected, e->key) < 0)
            goto done;
    }
    r = d2_tuple_pack(I, 2, missing, unexpected);
done:
    d2_decref(own);
    d2_decref(missing);
    d2_decref(unexpected);
    d2_decref(matched);
    return r;
}

static int set_training(d2_interp *I, d2_obj *self, bool on)
{
    d2_obj *all = named_sublayers(I, self, "", true);
    if (!all)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < D2_AS(d2_list, all)->n; i++)
        rc = iset(I, D2_AS(d2_tuple, D2_AS(d2_list, all)->items[i])->items[1], "training",
                  on ? I->true_ : I->false_);
    d2_decref(all);
    return rc;
}

static d2_obj *L_train(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.train");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return set_training(I, self, true) < 0 ? NULL : d2_none(I);
}

static d2_obj *L_eval(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.eval");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return set_training(I, self, false) < 0 ? NULL : d2_none(I);
}

D2_FN(L_add_sublayer)
{
    const char *name = d2_pd_get_str(I, a[0], "Layer.add_sublayer", "name");
    if (!name || need_init(I, self, "Layer.add_sublayer") < 0)
        return NULL;
    if (!d2_pd_is_layer(I, a[1]) && !is_none(I, a[1]))
        return d2_raise(I, "TypeError", "Layer.add_sublayer: sublayer must be a Layer, got %s",
                        d2_type_name(a[1]));
    if (d2_dict_set_str(I, d2_pd_layer_dict(I, self, "_sub_layers"), name, a[1]) < 0)
        return NULL;
    return d2_incref(a[1]);
}

D2_FN(L_add_parameter)
{
    const char *name = d2_pd_get_str(I, a[0], "Layer.add_parameter", "name");
    if (!name || need_init(I, self, "Layer.add_parameter") < 0)
        return NULL;
    if (!is_none(I, a[1]) && !is_tensor(a[1]))
        return d2_raise(I, "TypeError",
                        "Layer.add_parameter: parameter must be a Parameter, got %s",
                        d2_type_name(a[1]));
    if (is_tensor(a[1]))
        TOBJ(a[1])->persistable = true;
    if (d2_dict_set_str(I, d2_pd_layer_dict(I, self, "_parameters"), name, a[1]) < 0)
        return NULL;
    return d2_incref(a[1]);
}

D2_FN(L_register_buffer)
{
    const char *fname = "Layer.register_buffer";
    const char *name = d2_pd_get_str(I, a[0], fname, "name");
    bool pers;
    if (!name || d2_pd_get_bool(I, a[2], fname, "persistable", &pers) < 0 ||
        need_init(I, self, fname) < 0)
        return NULL;
    if (!name[0] || strchr(name, '.'))
        return d2_raise(I, "KeyError",
                        "%s: the name of a buffer must be non-empty and contain no '.'", fname);
    if (!is_none(I, a[1]) && !is_tensor(a[1]))
        return d2_raise(I, "TypeError", "%s: tensor must be a Tensor or None, got %s", fname,
                        d2_type_name(a[1]));
    remove_from(I, self, name, "_parameters", "_sub_layers");
    d2_dict *np = d2_pd_layer_dict(I, self, "_non_persistable_buffer_names_set");
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return NULL;
    int rc = 0;
    if (pers) {
        if (d2_dict_get(I, np, key))
            rc = d2_dict_del(I, np, key);
    } else {
        rc = d2_dict_set(I, np, key, I->true_);
    }
    d2_decref(key);
    if (rc < 0 || d2_dict_set_str(I, d2_pd_layer_dict(I, self, "_buffers"), name, a[1]) < 0)
        return NULL;
    if (is_tensor(a[1]) && !TOBJ(a[1])->name) {
        char buf[300];
        snprintf(buf, sizeof buf, "_buffers_%s", name);
        TOBJ(a[1])->name = d2_pd_unique_name(I, buf);
    }
    return d2_none(I);
}

static d2_obj *L_full_name(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.full_name");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *v = iget(I, self, "_full_name");
    return v ? d2_incref(v) : d2_str_from(I, "");
}

static d2_obj *L_extra_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.extra_repr");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    return d2_str_from(I, "");
}

/* Indents every line of s but the first by n spaces (Paddle's _addindent). */
static void add_indent(d2_buf *b, const char *s, int n)
{
    for (const char *p = s; *p; p++) {
        d2_buf_append(b, p, 1);
        if (*p == '\n')
            for (int i = 0; i < n; i++)
                d2_buf_puts(b, " ");
    }
}

static d2_obj *L_repr(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs, d2_dict *kw)
{
    SELF_ARG("Layer.__repr__");
    D2_UNUSED(args);
    D2_UNUSED(kw);
    d2_obj *extra = d2_call_method(I, self, "extra_repr", NULL, 0, NULL);
    if (!extra)
        return NULL;
    if (extra->kind != D2_OBJ_STR) {
        d2_decref(extra);
        return d2_raise(I, "TypeError", "extra_repr() must return a str");
    }
    d2_buf b;
    d2_buf_init(&b);
    d2_buf_printf(&b, "%s(", self->cls->name);
    const char *ex = D2_AS(d2_str, extra)->s;
    if (strchr(ex, '\n')) {
        d2_buf_puts(&b, "\n  ");
        add_indent(&b, ex, 2);
        d2_buf_puts(&b, "\n");
    } else {
        d2_buf_puts(&b, ex);
    }
    d2_decref(extra);
    d2_dict *subs = d2_pd_layer_dict(I, self, "_sub_layers");
    bool any = false;
    for (size_t i = 0; subs && i < subs->n; i++) {
        d2_dict_entry *e = &subs->entries[i];
        if (!e->key || e->key->kind != D2_OBJ_STR)
            continue;
        d2_obj *r = d2_repr(I, e->value);
        if (!r) {
            d2_buf_free(&b);
            return NULL;
        }
        d2_buf_printf(&b, "\n  (%s): ", D2_AS(d2_str, e->key)->s);
        add_indent(&b, D2_AS(d2_str, r)->s, 2);
        d2_decref(r);
        any = true;
    }
    if (any)
        d2_buf_puts(&b, "\n");
    d2_buf_puts(&b, ")");
    d2_obj *r = b.oom ? nomem(I) : d2_str_new(I, b.data, b.len);
    d2_buf_free(&b);
    return r;
}

/* Casts tensor object t in place to dtype dt, its gradient too (Paddle's
 * param._to(None, dtype)); floating_only leaves non-float tensors alone. */
static int cast_in_place(d2_interp *I, const char *fname, d2_obj *t, int dt, bool floating_only)
{
    if (!is_tensor(t) || TOBJ(t)->type.dtype == (d2_dtype)dt ||
        (floating_only && !d2_dtype_is_float(TOBJ(t)->type.dtype)))
        return 0;
    if (!TOBJ(t)->t) {
        d2_raise(I, "TypeError", "%s: the tensor is symbolic (inside to_static)", fname);
        return -1;
    }
    d2_obj *c = d2_pd_cast_to(I, fname, t, dt);
    if (!c)
        return -1;
    d2_tensor *nt = d2_tensor_ref(TOBJ(c)->t);
    d2_decref(c);
    d2_tensor_unref(TOBJ(t)->t);
    TOBJ(t)->t = nt;
    TOBJ(t)->type.dtype = (d2_dtype)dt;
    return TOBJ(t)->grad ? cast_in_place(I, fname, TOBJ(t)->grad, dt, false) : 0;
}

/* Casts a layer's own parameters and buffers (dt < 0: none) and sets its
 * _dtype to dtype_obj, as Paddle's Layer._to_impl does. */
static int layer_to_dtype(d2_interp *I, const char *fname, d2_obj *layer, int dt,
                          d2_obj *dtype_obj, bool floating_only)
{
    static const char *which[] = {"_parameters", "_buffers"};
    for (int w = 0; dt >= 0 && w < 2; w++) {
        d2_dict *d = d2_pd_layer_dict(I, layer, which[w]);
        for (size_t k = 0; d && k < d->n; k++)
            if (d->entries[k].key &&
                cast_in_place(I, fname, d->entries[k].value, dt, floating_only) < 0)
                return -1;
    }
    return iset(I, layer, "_dtype", dtype_obj);
}

/* The layer and its sublayers (new list of layers) */
static d2_obj *all_layers(d2_interp *I, d2_obj *self)
{
    return seconds(I, named_sublayers(I, self, "", true));
}

static bool is_place(d2_obj *o)
{
    size_t n = strlen(o->cls->name);
    return o->kind == D2_OBJ_INSTANCE && n >= 5 && strcmp(o->cls->name + n - 5, "Place") == 0;
}

/* Layer.to(device=None, dtype=None, blocking=None): every parameter and
 * buffer cast to dtype; each layer's _dtype becomes the dtype argument as
 * given (Paddle's _to_impl). The device is checked: only the CPU exists. */
D2_FN(L_to)
{
    const char *fname = "Layer.to";
    if (is_none(I, a[0]) && is_none(I, a[1]) && is_none(I, a[2]))
        return d2_incref(self);
    if (!is_none(I, a[0]) && a[0]->kind != D2_OBJ_STR && !is_place(a[0]))
        return d2_raise(I, "ValueError",
                        "device value error, must be str, paddle.CPUPlace(), paddle.CUDAPlace(), "
                        "paddle.CUDAPinnedPlace() or paddle.XPUPlace(), but the type of device is "
                        "%s",
                        d2_type_name(a[0]));
    if (a[0]->kind == D2_OBJ_STR && strncmp(D2_AS(d2_str, a[0])->s, "cpu", 3) != 0)
        return d2_raise(I, "ValueError", "%s: device '%s' is not available (dy2st runs on the CPU)",
                        fname, D2_AS(d2_str, a[0])->s);
    if (!is_none(I, a[2]) && a[2]->kind != D2_OBJ_BOOL)
        return d2_raise(I, "AssertionError", "blocking value error, must be the True, False or None");
    int dt = -1;
    if (d2_pd_parse_dtype(I, a[1], fname, false, &dt) < 0)
        return NULL;
    d2_obj *ls = all_layers(I, self);
    if (!ls)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, ls)->n; i++)
        if (layer_to_dtype(I, fname, D2_AS(d2_list, ls)->items[i], dt, a[1], false) < 0) {
            d2_decref(ls);
            return NULL;
        }
    d2_decref(ls);
    return d2_incref(self);
}

/* Layer.float(excluded_layers=None): the floating parameters and buffers of
 * every layer whose type is not excluded become float32. */
D2_FN(L_float)
{
    const char *fname = "Layer.float";
    d2_obj *ex = a[0];
    bool one = ex->kind == D2_OBJ_CLASS;
    if (!is_none(I, ex) && !one && ex->kind != D2_OBJ_LIST && ex->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "excluded_layers should be type nn.Layer or list, but got %s.",
                        d2_type_name(ex));
    d2_obj *ls = all_layers(I, self);
    if (!ls)
        return NULL;
    d2_obj *f32 = d2_pd_dtype_obj(I, D2_F32, false);
    for (size_t i = 0; i < D2_AS(d2_list, ls)->n; i++) {
        d2_obj *l = D2_AS(d2_list, ls)->items[i];
        bool skip = one && (d2_obj *)l->cls == ex;
        size_t n = ex->kind == D2_OBJ_LIST    ? D2_AS(d2_list, ex)->n
                   : ex->kind == D2_OBJ_TUPLE ? D2_AS(d2_tuple, ex)->n
                                              : 0;
        for (size_t k = 0; k < n && !skip; k++)
            skip = (d2_obj *)l->cls == (ex->kind == D2_OBJ_LIST ? D2_AS(d2_list, ex)->items[k]
                                                                : D2_AS(d2_tuple, ex)->items[k]);
        if (!skip && layer_to_dtype(I, fname, l, D2_F32, f32, true) < 0) {
            d2_decref(ls);
            return NULL;
        }
    }
    d2_decref(ls);
    return d2_incref(self);
}

/* Layer.astype(dtype): every parameter and buffer cast to dtype, which
 * becomes each layer's _dtype as a paddle dtype. */
D2_FN(L_astype)
{
    static const char *valid[] = {"bfloat16", "float16", "float32", "float64", "int8",
                                  "int16",    "int32",   "int64",   "uint8",   "complex64",
                                  "complex128", "bool"};
    bool ok = false;
    if (a[0]->kind == D2_OBJ_STR) {
        for (size_t i = 0; i < D2_COUNTOF(valid) && !ok; i++)
            ok = strcmp(D2_AS(d2_str, a[0])->s, valid[i]) == 0;
    } else {
        ok = !is_none(I, a[0]) && a[0]->kind != D2_OBJ_INT && a[0]->kind != D2_OBJ_FLOAT &&
             a[0]->kind != D2_OBJ_CLASS;
    }
    int dt = -1;
    if (!ok || d2_pd_parse_dtype(I, a[0], "Layer.astype", false, &dt) < 0 || dt < 0) {
        d2_exc_clear(I);
        d2_obj *r = d2_str_of(I, a[0]);
        if (r) {
            d2_raise(I, "ValueError",
                     "dtype value error, must be 'bfloat16', 'float16', 'float32', 'float64', "
                     "'int8', 'int16', 'int32', 'int64', 'uint8', 'complex64', 'complex128', "
                     "'bool', or paddle.dtype, numpy.dtype, but recieve %s",
                     D2_AS(d2_str, r)->s);
            d2_decref(r);
        }
        return NULL;
    }
    d2_obj *ls = all_layers(I, self);
    if (!ls)
        return NULL;
    d2_obj *dto = d2_pd_dtype_obj(I, (d2_dtype)dt, false);
    for (size_t i = 0; i < D2_AS(d2_list, ls)->n; i++)
        if (layer_to_dtype(I, "Layer.astype", D2_AS(d2_list, ls)->items[i], dt, dto, false) < 0) {
            d2_decref(ls);
            return NULL;
        }
    d2_decref(ls);
    return d2_incref(self);
}

D2_FN(L_apply)
{
    d2_obj *kids = L_children(I, self, NULL, 0, NULL);
    if (!kids)
        return NULL;
    for (size_t i = 0; i < D2_AS(d2_list, kids)->n; i++) {
        d2_obj *r = d2_call_method(I, D2_AS(d2_list, kids)->items[i], "apply", a, 1, NULL);
        if (!r) {
            d2_decref(kids);
            return NULL;
        }
        d2_decref(r);
    }
    d2_decref(kids);
    d2_obj *r = d2_call(I, a[0], &self, 1, NULL);
    if (!r)
        return NULL;
    d2_decref(r);
    return d2_incref(self);
}

/* Layer.__init__ with its defaults (the builtin layers' constructors). */
int d2_pd_layer_base_init(d2_interp *I, d2_obj *self)
{
    d2_obj *dflt[2] = {NULL, NULL}; /* Layer.__init__'s defaults */
    d2_obj *r = L_init(I, self, dflt, NULL);
    if (!r)
        return -1;
    d2_decref(r);
    return 0;
}

/* ======================================================================
 * The class
 * ====================================================================== */

static const d2_def LAYER_DEFS[] = {
    D2_DEF("__init__", "name_scope=None, dtype='float32'", L_init, "Layer.__init__"),
    D2_DEF("parameters", "include_sublayers=True", L_parameters, "Layer.parameters"),
    D2_DEF("named_parameters", "prefix='', include_sublayers=True", L_named_parameters,
           "Layer.named_parameters"),
    D2_DEF("clear_gradients", "set_to_zero=True", L_clear_gradients, "Layer.clear_gradients"),
    D2_DEF("buffers", "include_sublayers=True", L_buffers, "Layer.buffers"),
    D2_DEF("named_buffers", "prefix='', include_sublayers=True", L_named_buffers,
           "Layer.named_buffers"),
    D2_DEF("sublayers", "include_self=False", L_sublayers, "Layer.sublayers"),
    D2_DEF("named_sublayers", "prefix='', include_self=False, layers_set=None", L_named_sublayers,
           "Layer.named_sublayers"),
    D2_DEF("state_dict",
           "destination=None, include_sublayers=True, structured_name_prefix='', use_hook=True",
           L_state_dict, "Layer.state_dict"),
    D2_DEF("set_state_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("set_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("load_dict", "state_dict, use_structured_name=True", L_set_state_dict,
           "Layer.set_state_dict"),
    D2_DEF("register_forward_pre_hook", "hook", L_register_forward_pre_hook,
           "Layer.register_forward_pre_hook"),
    D2_DEF("register_forward_post_hook", "hook", L_register_forward_post_hook,
           "Layer.register_forward_post_hook"),
    D2_DEF("add_sublayer", "name, sublayer", L_add_sublayer, "Layer.add_sublayer"),
    D2_DEF("add_parameter", "name, parameter", L_add_parameter, "Layer.add_parameter"),
    D2_DEF("register_buffer", "name, tensor, persistable=True", L_register_buffer,
           "Layer.register_buffer"),
    D2_DEF("apply", "fn", L_apply, "Layer.apply"),
    D2_DEF("to", "device=None, dtype=None, blocking=None", L_to, "Layer.to"),
    D2_DEF("float", "excluded_layers=None", L_float, "Layer.float"),
    D2_DEF("astype", "dtype=None", L_astype, "Layer.astype"),
    D2_DEF("to_static_state_dict",
           "destination=None, include_sublayers=True, structured_name_prefix='', use_hook=True",
           L_to_static_state_dict, "Layer.to_static_state_dict"),
};

/* paddle.nn.Layer (also fluid.dygraph.Layer) and its hook handles. */
int d2_pd_layer_add(d2_interp *I, pd_state *s)
{
    static const method_entry hook_m[] = {{"remove", H_remove}};
    s->hook_cls = d2_pd_new_class(I, NULL, "HookRemoveHelper", NULL, hook_m, 1);
    if (!s->hook_cls)
        return -1;
    static const method_entry layer_m[] = {
        {"__setattr__", L_setattr},
        {"__getattr__", L_getattr},
        {"__delattr__", L_delattr},
        {"__call__", L_call},
        {"__repr__", L_repr},
        {"forward", L_forward},
        {"children", L_children},
        {"named_children", L_named_children},
        {"train", L_train},
        {"eval", L_eval},
        {"full_name", L_full_name},
        {"extra_repr", L_extra_repr},
    };
    d2_class *layer = s->layer_cls =
        d2_pd_new_class(I, s->nn, "Layer", NULL, layer_m, D2_COUNTOF(layer_m));
    if (!layer || d2_class_add_defs(I, layer, LAYER_DEFS, D2_COUNTOF(LAYER_DEFS), 0) < 0 ||
        set_attr(I, s->dygraph, "Layer", (d2_obj *)layer) < 0 ||
        set_attr(I, s->fluid, "Layer", (d2_obj *)layer) < 0)
        return -1;
    return 0;
}

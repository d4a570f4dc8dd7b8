/* class.c - classes: MRO, attribute lookup, descriptors, instantiation, object, super. */
#include "interp/interp_priv.h"

#include <stdatomic.h>
#include <string.h>

/* ---- classes ---- */

int d2i_issubclass(d2_class *a, d2_class *b)
{
    if (a == b)
        return 1;
    if (!a->mro)
        return 0;
    for (size_t i = 0; i < a->mro->n; i++)
        if (a->mro->items[i] == (d2_obj *)b)
            return 1;
    return 0;
}

bool d2_isinstance(d2_interp *I, d2_obj *o, d2_class *cls)
{
    (void)I;
    return cls && d2i_issubclass(o->cls, cls);
}

/* The class epoch (interp_priv.h): one counter for every interpreter, so
 * that a class shared by reference can never be served stale. */
static _Atomic unsigned long class_epoch = 1;

void d2i_class_changed(void)
{
    atomic_fetch_add_explicit(&class_epoch, 1, memory_order_relaxed);
}

static d2_obj *mro_walk(const d2_class *cls, const char *name, size_t n, uint64_t h)
{
    if (!cls->mro)
        return cls->dict ? d2i_dict_get_cstr(cls->dict, name, n, h) : NULL;
    for (size_t i = 0; i < cls->mro->n; i++) {
        d2_class *c = D2_AS(d2_class, cls->mro->items[i]);
        if (!c->dict)
            continue;
        d2_obj *v = d2i_dict_get_cstr(c->dict, name, n, h);
        if (v)
            return v;
    }
    return NULL;
}

/* d2i_mro_lookup with the name's length and hash already known, through the
 * attribute cache (borrowed result). A class without an MRO yet (being
 * built) is not cached. */
d2_obj *d2i_mro_lookup_h(d2_interp *I, d2_class *cls, const char *name, size_t n, uint64_t h)
{
    if (n >= D2I_ATTR_NAME || !cls->mro)
        return mro_walk(cls, name, n, h);
    unsigned long ep = atomic_load_explicit(&class_epoch, memory_order_relaxed);
    uintptr_t ck = (uintptr_t)cls;
    d2i_attr_entry *e = &I->st->attr_cache[(h ^ (ck >> 4) ^ (ck >> 13)) & (D2I_ATTR_CACHE - 1)];
    if (e->cls == cls && e->epoch == ep && e->hash == h && e->len == n &&
        memcmp(e->name, name, n) == 0)
        return e->value;
    d2_obj *v = mro_walk(cls, name, n, h);
    e->cls = cls;
    e->epoch = ep;
    e->hash = h;
    e->len = n;
    e->value = v;
    memcpy(e->name, name, n);
    return v;
}

d2_obj *d2i_mro_lookup(d2_interp *I, d2_class *cls, const char *name)
{
    size_t n = strlen(name);
    return d2i_mro_lookup_h(I, cls, name, n, d2i_hash_bytes(name, n));
}

void d2i_class_update_flags(d2_interp *I, d2_class *cls)
{
    unsigned f = cls->flags & D2I_CF_USER;
    d2_obj *sa = d2i_mro_lookup(I, cls, "__setattr__");
    if (sa && sa != I->st->object_setattr)
        f |= D2I_CF_SETATTR;
    if (d2i_mro_lookup(I, cls, "__getattr__"))
        f |= D2I_CF_GETATTR;
    if (I->st->base_exc && d2i_issubclass(cls, I->st->base_exc))
        f |= D2I_CF_EXC;
    cls->flags = f;
}

/* C3 linearisation of cls with bases; new tuple or NULL with TypeError. */
static d2_obj *c3_mro(d2_interp *I, d2_class *cls, d2_tuple *bases)
{
    size_t nl = bases->n + 1;
    d2_tuple **lists = d2_calloc(nl, sizeof *lists);
    size_t *pos = d2_calloc(nl, sizeof *pos);
    d2_obj *out = d2_list_new(I, 0);
    if (!lists || !pos || !out) {
        d2_free(lists);
        d2_free(pos);
        d2_decref(out);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    for (size_t i = 0; i < bases->n; i++)
        lists[i] = D2_AS(d2_class, bases->items[i])->mro;
    lists[bases->n] = bases;
    int rc = d2_list_append(I, out, (d2_obj *)cls);
    for (;;) {
        if (rc < 0)
            break;
        bool any = false;
        d2_obj *pick = NULL;
        for (size_t i = 0; i < nl && !pick; i++) {
            if (pos[i] >= lists[i]->n)
                continue;
            any = true;
            d2_obj *head = lists[i]->items[pos[i]];
            bool in_tail = false;
            for (size_t j = 0; j < nl && !in_tail; j++)
                for (size_t k = pos[j] + 1; k < lists[j]->n; k++)
                    if (lists[j]->items[k] == head) {
                        in_tail = true;
                        break;
                    }
            if (!in_tail)
                pick = head;
        }
        if (!any)
            break;
        if (!pick) {
            d2_buf b;
            d2_buf_init(&b);
            for (size_t i = 0; i < bases->n; i++)
                d2_buf_printf(&b, "%s%s", i ? ", " : "", D2_AS(d2_class, bases->items[i])->name);
            d2_raise(I, "TypeError",
                     "Cannot create a consistent method resolution order (MRO) for bases %s",
                     b.data ? b.data : "");
            d2_buf_free(&b);
            rc = -1;
            break;
        }
        rc = d2_list_append(I, out, pick);
        for (size_t i = 0; i < nl; i++)
            if (pos[i] < lists[i]->n && lists[i]->items[pos[i]] == pick)
                pos[i]++;
    }
    d2_free(lists);
    d2_free(pos);
    if (rc < 0) {
        d2_decref(out);
        return NULL;
    }
    d2_obj *t = d2_tuple_from_array(I, D2_AS(d2_list, out)->items, D2_AS(d2_list, out)->n);
    d2_decref(out);
    return t;
}

/* A class object; bases a tuple of classes (borrowed; NULL = (object,)). */
d2_class *d2i_class_make(d2_interp *I, const char *name, d2_obj *bases, d2_dict *dict,
                         d2_obj_kind layout, d2_module *module)
{
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_CLASS, I->st->type, sizeof(d2_class));
    if (!o)
        return NULL;
    d2_class *c = D2_AS(d2_class, o);
    c->name = d2_arena_strdup(I->arena, name);
    c->layout = layout;
    c->module = module ? D2_AS(d2_module, d2_incref((d2_obj *)module)) : NULL;
    if (bases)
        d2_incref(bases);
    else
        bases = d2_tuple_pack(I, 1, (d2_obj *)I->st->object);
    c->bases = bases ? D2_AS(d2_tuple, bases) : NULL;
    c->dict = dict ? D2_AS(d2_dict, d2_incref((d2_obj *)dict)) : D2_AS(d2_dict, d2_dict_new(I));
    d2_obj *mro = c->bases && c->dict ? c3_mro(I, c, c->bases) : NULL;
    if (!mro) {
        d2_decref(o);
        return NULL;
    }
    c->mro = D2_AS(d2_tuple, mro);
    c->dict->class_dict = true;
    d2i_class_changed();
    d2i_class_update_flags(I, c);
    return c;
}

d2_class *d2i_class_new(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                        d2_module *module, bool set_type)
{
    d2_obj *bases = base ? d2_tuple_pack(I, 1, (d2_obj *)base) : NULL;
    if (base && !bases)
        return NULL;
    d2_class *c = d2i_class_make(I, name, bases, NULL, layout, module);
    d2_decref(bases);
    if (c && set_type && !I->types[layout])
        I->types[layout] = c;
    return c;
}

d2_class *d2_class_new_builtin(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                               d2_module *module)
{
    return d2i_class_new(I, name, base, layout, module, true);
}

int d2i_class_add_descr(d2_interp *I, d2_class *cls, const char *name, d2_obj *b)
{
    if (!b)
        return -1;
    b->cls = I->st->method_descr;
    if (strcmp(name, "__new__") != 0)
        D2_AS(d2_builtin, b)->owner = cls;
    int rc = d2_dict_set_str(I, cls->dict, name, b);
    d2_decref(b);
    if (rc == 0 && name[0] == '_' && name[1] == '_')
        d2i_class_update_flags(I, cls);
    return rc;
}

int d2_class_add_method(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn fn)
{
    return d2i_class_add_descr(I, cls, name, d2_builtin_new(I, name, fn, NULL, NULL));
}

static d2_obj *property_new(d2_interp *I, d2_obj *get, d2_obj *set)
{
    d2_obj *p = d2_obj_alloc(I, D2_OBJ_PROPERTY, NULL, sizeof(d2_property));
    if (!p)
        return NULL;
    D2_AS(d2_property, p)->fget = d2_incref(get);
    D2_AS(d2_property, p)->fset = d2_incref(set);
    return p;
}

int d2_class_add_property(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn get,
                          d2_builtin_fn set)
{
    d2_obj *g = get ? d2_builtin_new(I, name, get, NULL, NULL) : NULL;
    d2_obj *s = set ? d2_builtin_new(I, name, set, NULL, NULL) : NULL;
    d2_obj *p = ((get && !g) || (set && !s)) ? NULL : property_new(I, g, s);
    d2_decref(g);
    d2_decref(s);
    if (!p)
        return -1;
    int rc = d2_dict_set_str(I, cls->dict, name, p);
    d2_decref(p);
    return rc;
}

/* ---- special methods, attribute lookup, descriptors ---- */

/* Calls special method name of o's class with o bound; *found false (and
 * NULL, no exception) when the class has none. */
d2_obj *d2_call_special(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                        bool *found)
{
    d2_obj *m = d2i_mro_lookup(I, o->cls, name);
    *found = m != NULL;
    if (!m)
        return NULL;
    d2_incref(m);
    d2_obj *r;
    if (m->kind == D2_OBJ_STATICMETHOD)
        r = d2_call(I, D2_AS(d2_wrapper, m)->func, args, nargs, NULL);
    else if (m->kind == D2_OBJ_CLASSMETHOD)
        r = d2i_call_with_self(I, D2_AS(d2_wrapper, m)->func, (d2_obj *)o->cls, args, nargs, NULL);
    else
        r = d2i_call_with_self(I, m, o, args, nargs, NULL);
    d2_decref(m);
    return r;
}

d2_obj *d2_bound_method_new(d2_interp *I, d2_obj *func, d2_obj *self)
{
    d2_obj *m = d2_obj_alloc(I, D2_OBJ_BOUND_METHOD, NULL, sizeof(d2_bound_method));
    if (!m)
        return NULL;
    D2_AS(d2_bound_method, m)->func = d2_incref(func);
    D2_AS(d2_bound_method, m)->self = d2_incref(self);
    return m;
}

/* Binds a class attribute found on the MRO to receiver o (a class for
 * class-level access when is_class). New reference. */
static d2_obj *bind_descr(d2_interp *I, d2_obj *descr, d2_obj *o, bool is_class)
{
    switch (descr->kind) {
    case D2_OBJ_FUNCTION:
        return is_class ? d2_incref(descr) : d2_bound_method_new(I, descr, o);
    case D2_OBJ_BUILTIN:
        if (descr->cls == I->st->method_descr && !D2_AS(d2_builtin, descr)->self && !is_class)
            return d2_bound_method_new(I, descr, o);
        return d2_incref(descr);
    case D2_OBJ_STATICMETHOD:
        return d2_incref(D2_AS(d2_wrapper, descr)->func);
    case D2_OBJ_CLASSMETHOD:
        return d2_bound_method_new(I, D2_AS(d2_wrapper, descr)->func,
                                   is_class ? o : (d2_obj *)o->cls);
    case D2_OBJ_PROPERTY: {
        if (is_class)
            return d2_incref(descr);
        d2_obj *g = D2_AS(d2_property, descr)->fget;
        if (!g)
            return d2_raise(I, "AttributeError", "property of '%s' object has no getter",
                            d2_type_name(o));
        return d2i_call_with_self(I, g, o, NULL, 0, NULL);
    }
    default:
        if (descr->kind == D2_OBJ_INSTANCE || descr->kind >= D2_OBJ_TENSOR) {
            /* user descriptors: __get__(instance or None, owner) */
            bool found;
            d2_obj *args[2] = {is_class ? I->none : o, is_class ? o : (d2_obj *)o->cls};
            d2_incref(descr);
            d2_obj *r = d2_call_special(I, descr, "__get__", args, 2, &found);
            d2_decref(descr);
            if (found)
                return r;
        }
        return d2_incref(descr);
    }
}

/* Whether a class attribute is a data descriptor (wins over the instance dict). */
static bool is_data_descr(d2_interp *I, d2_obj *descr)
{
    if (descr->kind == D2_OBJ_PROPERTY)
        return true;
    if (descr->kind != D2_OBJ_INSTANCE && descr->kind < D2_OBJ_TENSOR)
        return false;
    return d2i_mro_lookup(I, descr->cls, "__set__") && d2i_mro_lookup(I, descr->cls, "__get__");
}

static d2_obj *attr_error(d2_interp *I, d2_obj *o, const char *name)
{
    if (o->kind == D2_OBJ_MODULE)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'",
                        D2_AS(d2_module, o)->name, name);
    if (o->kind == D2_OBJ_CLASS)
        return d2_raise(I, "AttributeError", "type object '%s' has no attribute '%s'",
                        D2_AS(d2_class, o)->name, name);
    return d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", d2_type_name(o),
                    name);
}

static d2_obj *super_getattr(d2_interp *I, d2_obj *sup, const char *name)
{
    d2_dict *d = D2_AS(d2_instance, sup)->dict;
    d2_obj *thiscls = d2_dict_get_str(I, d, "__thisclass__");
    d2_obj *self = d2_dict_get_str(I, d, "__self__");
    if (!thiscls || !self)
        return attr_error(I, sup, name);
    bool self_is_class = self->kind == D2_OBJ_CLASS &&
                         d2i_issubclass(D2_AS(d2_class, self), D2_AS(d2_class, thiscls));
    d2_class *start = self_is_class ? D2_AS(d2_class, self) : self->cls;
    d2_tuple *mro = start->mro;
    size_t i = 0;
    while (i < mro->n && mro->items[i] != thiscls)
        i++;
    size_t n = strlen(name);
    uint64_t h = d2i_hash_bytes(name, n);
    for (i++; i < mro->n; i++) {
        d2_class *c = D2_AS(d2_class, mro->items[i]);
        d2_obj *v = d2i_dict_get_cstr(c->dict, name, n, h);
        if (v) {
            if (self_is_class) {
                if (v->kind == D2_OBJ_CLASSMETHOD)
                    return d2_bound_method_new(I, D2_AS(d2_wrapper, v)->func, self);
                if (v->kind == D2_OBJ_BUILTIN && strcmp(name, "__new__") == 0)
                    return d2_incref(v);
                return bind_descr(I, v, self, true);
            }
            return bind_descr(I, v, self, false);
        }
    }
    return d2_raise(I, "AttributeError", "'super' object has no attribute '%s'", name);
}

/* Attribute lookup without __getattr__ fallback and hooks: class MRO
 * (data descriptors first), then the instance dict. NULL without exception
 * when absent. */
static d2_obj *generic_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    size_t n = strlen(name);
    uint64_t h = d2i_hash_bytes(name, n);
    switch (o->kind) {
    case D2_OBJ_MODULE: {
        d2_obj *v = d2i_dict_get_cstr(D2_AS(d2_module, o)->dict, name, n, h);
        if (v)
            return d2_incref(v);
        if (strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)D2_AS(d2_module, o)->dict);
        break;
    }
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        d2_obj *v = d2i_mro_lookup_h(I, c, name, n, h);
        if (v)
            return bind_descr(I, v, o, true);
        if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
            return d2_str_from(I, c->name);
        if (strcmp(name, "__mro__") == 0)
            return d2_incref((d2_obj *)c->mro);
        if (strcmp(name, "__bases__") == 0)
            return d2_incref((d2_obj *)c->bases);
        if (strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)c->dict);
        if (strcmp(name, "__module__") == 0)
            return c->module ? d2_str_from(I, c->module->name) : d2_str_from(I, "builtins");
        if (strcmp(name, "__doc__") == 0)
            return d2_none(I);
        break;
    }
    default: {
        d2_obj *descr = d2i_mro_lookup_h(I, o->cls, name, n, h);
        if (descr && is_data_descr(I, descr))
            return bind_descr(I, descr, o, false);
        d2_dict *idict = NULL;
        if (o->kind == D2_OBJ_INSTANCE)
            idict = D2_AS(d2_instance, o)->dict;
        else if (o->kind == D2_OBJ_FUNCTION)
            idict = D2_AS(d2_function, o)->attrs;
        if (idict) {
            d2_obj *v = d2i_dict_get_cstr(idict, name, n, h);
            if (v)
                return d2_incref(v);
        }
        if (descr)
            return bind_descr(I, descr, o, false);
        if (name[0] != '_' || name[1] != '_') {
            /* a method reads its function's attributes (m.forward.code) */
            if (o->kind == D2_OBJ_BOUND_METHOD)
                return generic_getattr(I, D2_AS(d2_bound_method, o)->func, name);
            break;
        }
        if (strcmp(name, "__class__") == 0)
            return d2_incref((d2_obj *)o->cls);
        if (o->kind == D2_OBJ_INSTANCE && strcmp(name, "__dict__") == 0)
            return d2_incref((d2_obj *)D2_AS(d2_instance, o)->dict);
        if (o->kind == D2_OBJ_FUNCTION) {
            d2_function *f = D2_AS(d2_function, o);
            if (strcmp(name, "__name__") == 0)
                return d2_str_from(I, f->name);
            if (strcmp(name, "__qualname__") == 0)
                return d2_str_from(I, f->qualname ? f->qualname : f->name);
            if (strcmp(name, "__module__") == 0)
                return d2_str_from(I, f->module ? f->module->name : "builtins");
            if (strcmp(name, "__doc__") == 0)
                return d2_none(I);
            if (strcmp(name, "__defaults__") == 0)
                return f->defaults ? d2_incref((d2_obj *)f->defaults) : d2_none(I);
            if (strcmp(name, "__dict__") == 0) {
                if (!f->attrs) {
                    d2_obj *d = d2_dict_new(I);
                    if (!d)
                        return NULL;
                    f->attrs = D2_AS(d2_dict, d);
                }
                return d2_incref((d2_obj *)f->attrs);
            }
        }
        if (o->kind == D2_OBJ_BUILTIN) {
            if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
                return d2_str_from(I, D2_AS(d2_builtin, o)->name);
            if (strcmp(name, "__self__") == 0)
                return d2_incref(D2_AS(d2_builtin, o)->self ? D2_AS(d2_builtin, o)->self : I->none);
        }
        if (o->kind == D2_OBJ_BOUND_METHOD) {
            if (strcmp(name, "__self__") == 0)
                return d2_incref(D2_AS(d2_bound_method, o)->self);
            if (strcmp(name, "__func__") == 0)
                return d2_incref(D2_AS(d2_bound_method, o)->func);
            return generic_getattr(I, D2_AS(d2_bound_method, o)->func, name);
        }
        if ((o->kind == D2_OBJ_STATICMETHOD || o->kind == D2_OBJ_CLASSMETHOD) &&
            strcmp(name, "__func__") == 0)
            return d2_incref(D2_AS(d2_wrapper, o)->func);
        break;
    }
    }
    return NULL;
}

d2_obj *d2_getattr(d2_interp *I, d2_obj *o, const char *name)
{
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->getattr) {
        d2_obj *v = hk->getattr(I, o, name);
        if (v || I->exc)
            return v;
    }
    if (o->kind == D2_OBJ_INSTANCE && o->cls == I->st->super)
        return super_getattr(I, o, name);
    d2_obj *v = generic_getattr(I, o, name);
    if (v || I->exc)
        return v;
    /* a module's own __getattr__ (PEP 562) answers the names its dict lacks */
    d2_obj *mga = o->kind == D2_OBJ_MODULE && strcmp(name, "__getattr__") != 0
                      ? d2_dict_get_str(I, D2_AS(d2_module, o)->dict, "__getattr__")
                      : NULL;
    if (mga) {
        d2_obj *arg = d2_str_from(I, name);
        if (!arg)
            return NULL;
        d2_incref(mga);
        v = d2_call(I, mga, &arg, 1, NULL);
        d2_decref(mga);
        d2_decref(arg);
        return v;
    }
    if (o->cls->flags & D2I_CF_GETATTR && o->kind != D2_OBJ_CLASS) {
        d2_obj *arg = d2_str_from(I, name);
        if (!arg)
            return NULL;
        bool found;
        v = d2_call_special(I, o, "__getattr__", &arg, 1, &found);
        d2_decref(arg);
        if (found)
            return v;
    }
    return attr_error(I, o, name);
}

d2_obj *d2_getattr_opt(d2_interp *I, d2_obj *o, const char *name)
{
    d2_obj *v = d2_getattr(I, o, name);
    if (!v && d2_exc_matches(I, d2_exc_class(I, "AttributeError")))
        d2_exc_clear(I);
    return v;
}

/* object.__setattr__: properties, then the instance dict. */
int d2i_object_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    d2_obj *descr = d2i_mro_lookup(I, o->cls, name);
    if (descr && descr->kind != D2_OBJ_PROPERTY && is_data_descr(I, descr)) {
        bool found;
        d2_obj *args[2] = {o, v};
        d2_incref(descr);
        d2_obj *r = d2_call_special(I, descr, "__set__", args, 2, &found);
        d2_decref(descr);
        d2_decref(r);
        return r ? 0 : -1;
    }
    if (descr && descr->kind == D2_OBJ_PROPERTY) {
        d2_obj *s = D2_AS(d2_property, descr)->fset;
        if (!s) {
            d2_raise(I, "AttributeError", "property '%s' of '%s' object has no setter", name,
                     d2_type_name(o));
            return -1;
        }
        d2_obj *r = d2i_call_with_self(I, s, o, &v, 1, NULL);
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_dict *d = NULL;
    if (o->kind == D2_OBJ_INSTANCE)
        d = D2_AS(d2_instance, o)->dict;
    else if (o->kind == D2_OBJ_FUNCTION) {
        d2_function *f = D2_AS(d2_function, o);
        if (!f->attrs) {
            d2_obj *nd = d2_dict_new(I);
            if (!nd)
                return -1;
            f->attrs = D2_AS(d2_dict, nd);
        }
        d = f->attrs;
    }
    if (!d) {
        if (descr)
            d2_raise(I, "AttributeError", "'%s' object attribute '%s' is read-only",
                     d2_type_name(o), name);
        else
            d2_raise(I, "AttributeError", "'%s' object has no attribute '%s'", d2_type_name(o),
                     name);
        return -1;
    }
    return d2_dict_set_str(I, d, name, v);
}

int d2_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v)
{
    const d2_type_hooks *hk = I->hooks[o->kind];
    if (hk && hk->setattr) {
        int rc = hk->setattr(I, o, name, v);
        if (rc <= 0)
            return rc;
    }
    switch (o->kind) {
    case D2_OBJ_CLASS: {
        d2_class *c = D2_AS(d2_class, o);
        if (d2_dict_set_str(I, c->dict, name, v) < 0)
            return -1;
        if (name[0] == '_' && name[1] == '_')
            d2i_class_update_flags(I, c);
        return 0;
    }
    case D2_OBJ_MODULE:
        return d2_dict_set_str(I, D2_AS(d2_module, o)->dict, name, v);
    default:
        break;
    }
    if (o->cls->flags & D2I_CF_SETATTR) {
        d2_obj *args[2] = {d2_str_from(I, name), v};
        if (!args[0])
            return -1;
        bool found;
        d2_obj *r = d2_call_special(I, o, "__setattr__", args, 2, &found);
        d2_decref(args[0]);
        d2_decref(r);
        return r ? 0 : -1;
    }
    return d2i_object_setattr(I, o, name, v);
}

int d2i_delattr(d2_interp *I, d2_obj *o, const char *name)
{
    d2_dict *d = NULL;
    if (o->kind == D2_OBJ_INSTANCE)
        d = D2_AS(d2_instance, o)->dict;
    else if (o->kind == D2_OBJ_MODULE)
        d = D2_AS(d2_module, o)->dict;
    else if (o->kind == D2_OBJ_CLASS)
        d = D2_AS(d2_class, o)->dict;
    if (o->kind == D2_OBJ_INSTANCE && d2i_mro_lookup(I, o->cls, "__delattr__")) {
        d2_obj *arg = d2_str_from(I, name);
        if (!arg)
            return -1;
        bool found;
        d2_obj *r = d2_call_special(I, o, "__delattr__", &arg, 1, &found);
        d2_decref(arg);
        d2_decref(r);
        return r ? 0 : -1;
    }
    d2_obj *key = d2_str_from(I, name);
    if (!key)
        return -1;
    d2_obj *v = d ? d2i_dict_pop(I, d, key) : NULL;
    d2_decref(key);
    if (!v) {
        if (!I->exc)
            attr_error(I, o, name);
        return -1;
    }
    d2_decref(v);
    return 0;
}

/* ---- super and calling a class ---- */

d2_obj *d2i_super_new(d2_interp *I, d2_class *cls, d2_obj *self)
{
    bool ok = d2i_issubclass(self->cls, cls) ||
              (self->kind == D2_OBJ_CLASS && d2i_issubclass(D2_AS(d2_class, self), cls));
    if (!ok)
        return d2_raise(I, "TypeError",
                        "super(type, obj): obj must be an instance or subtype of type");
    d2_obj *s = d2_instance_new(I, I->st->super);
    if (!s)
        return NULL;
    d2_dict *d = D2_AS(d2_instance, s)->dict;
    if (d2_dict_set_str(I, d, "__thisclass__", (d2_obj *)cls) < 0 ||
        d2_dict_set_str(I, d, "__self__", self) < 0) {
        d2_decref(s);
        return NULL;
    }
    return s;
}

/* Calling a class: __new__ (or a plain instance), then __init__. */
d2_obj *d2i_type_call(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs, d2_dict *kw)
{
    if (cls == I->st->type && nargs == 1 && (!kw || !kw->live))
        return d2_incref((d2_obj *)args[0]->cls);
    d2_obj *newf = d2i_mro_lookup(I, cls, "__new__");
    if (newf == I->st->object_new)
        newf = NULL;
    d2_obj *obj;
    if (newf) {
        d2_incref(newf);
        if (newf->kind == D2_OBJ_BUILTIN)
            obj = d2i_call_builtin(I, D2_AS(d2_builtin, newf), (d2_obj *)cls, args, nargs, kw);
        else {
            d2_obj *f = newf->kind == D2_OBJ_STATICMETHOD ? D2_AS(d2_wrapper, newf)->func : newf;
            obj = d2i_call_with_self(I, f, (d2_obj *)cls, args, nargs, kw);
        }
        d2_decref(newf);
    } else if (cls->layout == D2_OBJ_INSTANCE) {
        obj = d2_instance_new(I, cls);
    } else {
        return d2_raise(I, "TypeError", "cannot create '%s' instances", cls->name);
    }
    if (!obj)
        return NULL;
    if (!d2i_issubclass(obj->cls, cls))
        return obj;
    d2_obj *init = d2i_mro_lookup(I, cls, "__init__");
    if (init && init != I->st->object_init) {
        d2_incref(init);
        d2_obj *r = d2i_call_with_self(I, init, obj, args, nargs, kw);
        d2_decref(init);
        if (!r) {
            d2_decref(obj);
            return NULL;
        }
        if (r->kind != D2_OBJ_NONE) {
            d2_raise(I, "TypeError", "__init__() should return None, not '%s'", d2_type_name(r));
            d2_decref(r);
            d2_decref(obj);
            return NULL;
        }
        d2_decref(r);
    } else if (!newf && (nargs || (kw && kw->live))) {
        d2_decref(obj);
        return d2_raise(I, "TypeError", "%s() takes no arguments", cls->name);
    }
    return obj;
}

/* ---- the methods of object, property, staticmethod, classmethod and super ---- */

/* object's methods */
static d2_obj *object_init(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)self;
    (void)a;
    if (n || (kw && kw->live))
        return d2_raise(
            I, "TypeError",
            "object.__init__() takes exactly one argument (the instance to initialize)");
    return d2_none(I);
}

static d2_obj *object_setattr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "__setattr__", kw) < 0 || d2i_nargs(I, "__setattr__", n, 2, 2) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[0], "attribute name");
    if (!name || d2i_object_setattr(I, self, name, a[1]) < 0)
        return NULL;
    return d2_none(I);
}

static d2_obj *object_repr_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    return d2i_builtin_repr(I, self);
}

static d2_obj *object_str_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    return d2_repr(I, self);
}

static d2_obj *object_getattribute_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "__getattribute__", kw) < 0 ||
        d2i_nargs(I, "__getattribute__", n, 1, 1) < 0)
        return NULL;
    const char *name = d2_to_cstr(I, a[0], "attribute name");
    if (!name)
        return NULL;
    d2_obj *v = generic_getattr(I, self, name);
    if (!v && !I->exc)
        attr_error(I, self, name);
    return v;
}

static d2_obj *property_setter(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "setter", kw) < 0 || d2i_nargs(I, "setter", n, 1, 1) < 0)
        return NULL;
    return property_new(I, D2_AS(d2_property, self)->fget, a[0]);
}

static d2_obj *property_getter(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    if (d2i_no_kwargs(I, "getter", kw) < 0 || d2i_nargs(I, "getter", n, 1, 1) < 0)
        return NULL;
    return property_new(I, a[0], D2_AS(d2_property, self)->fset);
}

static d2_obj *property_fget(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_obj *g = D2_AS(d2_property, self)->fget;
    return d2_incref(g ? g : I->none);
}

D2_FN(property_new_m) /* a[0] fget, a[1] fset, a[2] fdel, a[3] doc */
{
    return property_new(I, a[0]->kind == D2_OBJ_NONE ? NULL : a[0],
                        a[1]->kind == D2_OBJ_NONE ? NULL : a[1]);
}

static const d2_def PROPERTY_NEW =
    D2_DEF("__new__", "fget=None, fset=None, fdel=None, doc=None", property_new_m, "property");

static d2_obj *wrapper_new(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    d2_class *c = D2_AS(d2_class, self);
    if (d2i_no_kwargs(I, c->name, kw) < 0 || d2i_nargs(I, c->name, n, 1, 1) < 0)
        return NULL;
    d2_obj *w = d2_obj_alloc(I, c->layout, c, sizeof(d2_wrapper));
    if (w)
        D2_AS(d2_wrapper, w)->func = d2_incref(a[0]);
    return w;
}

static d2_obj *super_new_m(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)self;
    if (d2i_no_kwargs(I, "super", kw) < 0)
        return NULL;
    if (n != 2 || a[0]->kind != D2_OBJ_CLASS)
        return d2_raise(I, "RuntimeError", "super(): no arguments");
    return d2i_super_new(I, D2_AS(d2_class, a[0]), a[1]);
}

/* The methods of object, property, staticmethod, classmethod and super. */
int d2i_init_core_methods(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    /* object's methods */
    if (d2_class_add_method(I, st->object, "__init__", object_init) < 0 ||
        d2_class_add_method(I, st->object, "__setattr__", object_setattr_m) < 0 ||
        d2_class_add_method(I, st->object, "__repr__", object_repr_m) < 0 ||
        d2_class_add_method(I, st->object, "__str__", object_str_m) < 0 ||
        d2_class_add_method(I, st->object, "__getattribute__", object_getattribute_m) < 0)
        return -1;
    st->object_init = d2_dict_get_str(I, st->object->dict, "__init__");
    st->object_setattr = d2_dict_get_str(I, st->object->dict, "__setattr__");
    st->object_repr = d2_dict_get_str(I, st->object->dict, "__repr__");
    st->object_str = d2_dict_get_str(I, st->object->dict, "__str__");
    /* classes made before object had methods have stale flags */
    for (d2_obj *o = I->gc_head.gc_next; o != &I->gc_head; o = o->gc_next)
        if (o->kind == D2_OBJ_CLASS)
            d2i_class_update_flags(I, D2_AS(d2_class, o));
    d2_class *prop = I->types[D2_OBJ_PROPERTY];
    if (d2_class_add_method(I, prop, "setter", property_setter) < 0 ||
        d2_class_add_method(I, prop, "getter", property_getter) < 0 ||
        d2_class_add_property(I, prop, "fget", property_fget, NULL) < 0 ||
        d2_class_add_defs(I, prop, &PROPERTY_NEW, 1, 0) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_STATICMETHOD], "__new__", wrapper_new) < 0 ||
        d2_class_add_method(I, I->types[D2_OBJ_CLASSMETHOD], "__new__", wrapper_new) < 0 ||
        d2_class_add_method(I, st->super, "__new__", super_new_m) < 0)
        return -1;
    return 0;
}

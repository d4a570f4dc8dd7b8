/* interp.c - creating and freeing the interpreter: core classes, builtins, library modules. */
#include "interp/interp_priv.h"

/* ======================================================================
 * Interpreter creation and teardown
 * ==================================================================== */

/* Builtin layouts and their class names; TENSOR, NDARRAY, DTYPE and OPAQUE
 * classes come from the modules that own them. */
static const char *const layout_names[D2_OBJ_KIND_COUNT] = {
    [D2_OBJ_NONE] = "NoneType", [D2_OBJ_BOOL] = "bool", [D2_OBJ_INT] = "int",
    [D2_OBJ_FLOAT] = "float", [D2_OBJ_STR] = "str", [D2_OBJ_TUPLE] = "tuple",
    [D2_OBJ_LIST] = "list", [D2_OBJ_DICT] = "dict", [D2_OBJ_SLICE] = "slice",
    [D2_OBJ_RANGE] = "range", [D2_OBJ_ELLIPSIS] = "ellipsis", [D2_OBJ_FUNCTION] = "function",
    [D2_OBJ_BUILTIN] = "builtin_function_or_method", [D2_OBJ_BOUND_METHOD] = "method",
    [D2_OBJ_CLASS] = "type", [D2_OBJ_INSTANCE] = "object", [D2_OBJ_MODULE] = "module",
    [D2_OBJ_CELL] = "cell", [D2_OBJ_ITERATOR] = "iterator", [D2_OBJ_PROPERTY] = "property",
    [D2_OBJ_STATICMETHOD] = "staticmethod", [D2_OBJ_CLASSMETHOD] = "classmethod",
};

/* Makes the classes every other object needs: type, object and one per builtin layout. */
static int bootstrap_classes(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    d2_class *made[D2_OBJ_KIND_COUNT] = {0};
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        if (!layout_names[k])
            continue;
        d2_obj *o = d2_obj_alloc(I, D2_OBJ_CLASS, I->types[D2_OBJ_CLASS], sizeof(d2_class));
        if (!o)
            return -1;
        d2_class *c = D2_AS(d2_class, o);
        c->name = d2_arena_strdup(I->arena, layout_names[k]);
        c->layout = (d2_obj_kind)k;
        made[k] = c;
        I->types[k] = c;
    }
    st->type = I->types[D2_OBJ_CLASS];
    st->object = I->types[D2_OBJ_INSTANCE];
    /* every object made so far lacks a class */
    for (d2_obj *o = I->gc_head.gc_next; o != &I->gc_head; o = o->gc_next)
        if (!o->cls)
            o->cls = I->types[o->kind];
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        d2_class *c = made[k];
        if (!c)
            continue;
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        c->dict = D2_AS(d2_dict, d);
        c->dict->class_dict = true;
    }
    /* object first: its mro is (object,) and bases () */
    d2_obj *ob = d2_tuple_new(I, 0);
    d2_obj *omro = d2_tuple_pack(I, 1, (d2_obj *)st->object);
    if (!ob || !omro)
        return -1;
    st->object->bases = D2_AS(d2_tuple, ob);
    st->object->mro = D2_AS(d2_tuple, omro);
    for (int k = 0; k < D2_OBJ_KIND_COUNT; k++) {
        d2_class *c = made[k];
        if (!c || c == st->object)
            continue;
        d2_class *base = k == D2_OBJ_BOOL ? I->types[D2_OBJ_INT] : st->object;
        if (k == D2_OBJ_BOOL)
            continue; /* after int */
        c->bases = D2_AS(d2_tuple, d2_tuple_pack(I, 1, (d2_obj *)base));
        c->mro = D2_AS(d2_tuple, d2_tuple_pack(I, 2, (d2_obj *)c, (d2_obj *)base));
        if (!c->bases || !c->mro)
            return -1;
    }
    d2_class *b = made[D2_OBJ_BOOL], *in = I->types[D2_OBJ_INT];
    b->bases = D2_AS(d2_tuple, d2_tuple_pack(I, 1, (d2_obj *)in));
    b->mro = D2_AS(d2_tuple, d2_tuple_pack(I, 3, (d2_obj *)b, (d2_obj *)in, (d2_obj *)st->object));
    if (!b->bases || !b->mro)
        return -1;
    return 0;
}

static int make_core_objects(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    if (bootstrap_classes(I) < 0)
        return -1;
    /* singletons */
    I->none = d2_obj_alloc(I, D2_OBJ_NONE, NULL, sizeof(d2_obj));
    I->true_ = d2_obj_alloc(I, D2_OBJ_BOOL, NULL, sizeof(d2_int));
    I->false_ = d2_obj_alloc(I, D2_OBJ_BOOL, NULL, sizeof(d2_int));
    I->ellipsis = d2_obj_alloc(I, D2_OBJ_ELLIPSIS, NULL, sizeof(d2_obj));
    if (!I->none || !I->true_ || !I->false_ || !I->ellipsis)
        return -1;
    D2_AS(d2_int, I->true_)->v = 1;
    for (int64_t v = D2I_SMALL_MIN; v <= D2I_SMALL_MAX; v++) {
        d2_obj *o = d2_obj_alloc(I, D2_OBJ_INT, NULL, sizeof(d2_int));
        if (!o)
            return -1;
        D2_AS(d2_int, o)->v = v;
        st->small_ints[v - D2I_SMALL_MIN] = o;
    }
    st->empty_tuple = d2_tuple_new(I, 0);
    st->empty_str = d2_str_new(I, "", 0);
    if (!st->empty_tuple || !st->empty_str)
        return -1;
    d2_obj *mods = d2_dict_new(I), *bi = d2_dict_new(I);
    d2_obj *cache = d2_dict_new(I), *warned = d2_dict_new(I);
    if (!mods || !bi || !cache || !warned) {
        d2_decref(mods);
        d2_decref(bi);
        d2_decref(cache);
        d2_decref(warned);
        return -1;
    }
    I->modules = D2_AS(d2_dict, mods);
    I->builtins = D2_AS(d2_dict, bi);
    d2i_dict_track_layout(I->builtins);
    st->arg_cache = D2_AS(d2_dict, cache);
    st->warned = D2_AS(d2_dict, warned);
    /* more builtin classes */
    st->set = d2i_class_new(I, "set", NULL, D2_OBJ_DICT, NULL, false);
    st->method_descr = d2i_class_new(I, "method_descriptor", NULL, D2_OBJ_BUILTIN, NULL, false);
    st->super = d2i_class_new(I, "super", NULL, D2_OBJ_INSTANCE, NULL, false);
    st->notimpl_type = d2i_class_new(I, "NotImplementedType", NULL, D2_OBJ_OPAQUE, NULL, false);
    st->tb_type = d2i_class_new(I, "traceback", NULL, D2_OBJ_OPAQUE, NULL, false);
    if (!st->set || !st->method_descr || !st->super || !st->notimpl_type || !st->tb_type)
        return -1;
    I->not_implemented = d2_obj_alloc(I, D2_OBJ_OPAQUE, st->notimpl_type, sizeof(d2_opaque));
    if (!I->not_implemented)
        return -1;
    if (d2i_init_core_methods(I) < 0)
        return -1;
    st->builtins_mod = d2_module_new_builtin(I, "builtins");
    if (!st->builtins_mod)
        return -1;
    d2_setref((d2_obj **)&st->builtins_mod->dict, d2_incref((d2_obj *)I->builtins));
    if (d2i_make_exceptions(I) < 0)
        return -1;
    d2_obj *msg = d2_str_from(I, "out of memory");
    st->memory_error = msg ? d2i_exc_new(I, d2_exc_class(I, "MemoryError"), &msg, 1) : NULL;
    d2_decref(msg);
    return st->memory_error ? 0 : -1;
}

d2_interp *d2_interp_new(const d2_interp_options *opt, d2_err *err)
{
    d2_interp *I = d2_calloc(1, sizeof *I);
    struct d2_interp_state *st = d2_calloc(1, sizeof *st);
    d2_arena *a = d2_arena_new();
    if (!I || !st || !a) {
        d2_free(I);
        d2_free(st);
        d2_arena_delete(a);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the interpreter");
        return NULL;
    }
    if (opt)
        I->opt = *opt;
    I->st = st;
    I->arena = a;
    d2_diag_init(&I->diag, a);
    I->gc_head.gc_next = I->gc_head.gc_prev = &I->gc_head;
    I->gc_head.rc = 1;
    if (make_core_objects(I) < 0 || d2i_init_methods(I) < 0 || d2i_init_builtins(I) < 0) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the interpreter");
        d2_interp_free(I);
        return NULL;
    }
    for (size_t i = 0; i < d2_lib_nmodules; i++) {
        d2_err merr = {0};
        const d2_lib_module *lm = &d2_lib_modules[i];
        if ((lm->init ? lm->init(I) : lm->init_err(I, &merr)) == 0)
            continue;
        if (merr.code != D2_OK) {
            if (err)
                *err = merr;
        } else {
            d2_obj *s = I->exc ? d2_str_of(I, I->exc) : NULL;
            d2_err_set(err, D2_ERR_RUNTIME, "initialising the %s module: %s",
                       d2_lib_modules[i].name,
                       s && s->kind == D2_OBJ_STR ? D2_AS(d2_str, s)->s : "failed");
            d2_decref(s);
        }
        d2_interp_free(I);
        return NULL;
    }
    return I;
}

void d2_interp_free(d2_interp *I)
{
    if (!I)
        return;
    struct d2_interp_state *st = I->st;
    for (int i = 0; i < 8; i++)
        if (I->ext_fini[i] && I->ext[i]) {
            I->ext_fini[i](I, I->ext[i]);
            I->ext[i] = NULL;
        }
    d2_exc_clear(I);
    d2i_spec_cache_free(I);
    d2i_free_all(I);
    if (st) {
        for (d2i_unit *u = st->units; u;) {
            d2i_unit *next = u->next;
            d2i_pm_free(&u->names);
            d2i_pm_free(&u->consts);
            d2_free(u);
            u = next;
        }
        for (size_t i = 0; i < st->narenas; i++)
            d2_arena_delete(st->arenas[i]);
        d2_free(st->arenas);
        d2_free(st->sources);
        d2_free(st->pool);
        d2_free(st->handled);
        d2_free(st->repr_stack);
        d2_free(st);
    }
    d2_arena_delete(I->arena);
    d2_free(I);
}

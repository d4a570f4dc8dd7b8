/* copy.c - the copy module: shallow and deep copies. */
#include "lib/std/std.h"

static d2_obj *copy_obj(d2_interp *I, d2_obj *x, d2_obj *memo, int depth);

static d2_obj *copy_items(d2_interp *I, d2_obj **items, size_t n, d2_obj *memo, int depth,
                          bool tuple)
{
    d2_obj *r = d2_list_new(I, 0);
    for (size_t i = 0; r && i < n; i++) {
        d2_obj *c = memo ? copy_obj(I, items[i], memo, depth + 1) : d2_incref(items[i]);
        if (!c || d2_list_append(I, r, c) < 0) {
            d2_decref(c);
            d2_decref(r);
            return NULL;
        }
        d2_decref(c);
    }
    if (r && tuple) {
        d2_obj *t = d2_tuple_from_array(I, D2_AS(d2_list, r)->items, D2_AS(d2_list, r)->n);
        d2_decref(r);
        return t;
    }
    return r;
}

/* Shallow copy when memo is NULL, deep copy otherwise. */
static d2_obj *copy_obj(d2_interp *I, d2_obj *x, d2_obj *memo, int depth)
{
    if (depth > 500 || d2_stack_check(I) < 0)
        return d2_raise(I, "RecursionError", "maximum recursion depth exceeded while copying");
    d2_obj *key = NULL;
    if (memo) {
        key = d2_int_new(I, (int64_t)(uintptr_t)x);
        if (!key)
            return NULL;
        d2_obj *seen = d2_dict_get(I, D2_AS(d2_dict, memo), key);
        if (seen) {
            d2_decref(key);
            return d2_incref(seen);
        }
    }
    d2_obj *r;
    switch (x->kind) {
    case D2_OBJ_LIST:
        r = copy_items(I, D2_AS(d2_list, x)->items, D2_AS(d2_list, x)->n, memo, depth, false);
        break;
    case D2_OBJ_TUPLE:
        r = memo
                ? copy_items(I, D2_AS(d2_tuple, x)->items, D2_AS(d2_tuple, x)->n, memo, depth, true)
                : d2_incref(x);
        break;
    case D2_OBJ_DICT: {
        r = d2_obj_alloc(I, D2_OBJ_DICT, x->cls, sizeof(d2_dict));
        d2_dict *s = D2_AS(d2_dict, x);
        for (size_t i = 0; r && i < s->n; i++) {
            if (!s->entries[i].key)
                continue;
            d2_obj *v = memo ? copy_obj(I, s->entries[i].value, memo, depth + 1)
                             : d2_incref(s->entries[i].value);
            if (!v || d2_dict_set_h(I, D2_AS(d2_dict, r), s->entries[i].key, s->entries[i].hash,
                                    v) < 0) {
                d2_decref(v);
                d2_decref(r);
                r = NULL;
                break;
            }
            d2_decref(v);
        }
        break;
    }
    case D2_OBJ_INSTANCE: {
        bool found;
        d2_obj *m = memo ? d2_call_special(I, x, "__deepcopy__", &memo, 1, &found)
                         : d2_call_special(I, x, "__copy__", NULL, 0, &found);
        if (found) {
            r = m;
            break;
        }
        r = d2_instance_new(I, x->cls);
        if (r && memo && d2_dict_set(I, D2_AS(d2_dict, memo), key, r) < 0) {
            d2_decref(r);
            r = NULL;
        }
        d2_dict *s = D2_AS(d2_instance, x)->dict;
        for (size_t i = 0; r && i < s->n; i++) {
            if (!s->entries[i].key)
                continue;
            d2_obj *v = memo ? copy_obj(I, s->entries[i].value, memo, depth + 1)
                             : d2_incref(s->entries[i].value);
            if (!v || d2_dict_set_h(I, D2_AS(d2_instance, r)->dict, s->entries[i].key,
                                    s->entries[i].hash, v) < 0) {
                d2_decref(v);
                d2_decref(r);
                r = NULL;
                break;
            }
            d2_decref(v);
        }
        break;
    }
    default: {
        bool found = false;
        if (x->kind >= D2_OBJ_TENSOR) {
            d2_obj *m = memo ? d2_call_special(I, x, "__deepcopy__", &memo, 1, &found)
                             : d2_call_special(I, x, "__copy__", NULL, 0, &found);
            if (found) {
                r = m;
                break;
            }
        }
        r = d2_incref(x);
        break;
    }
    }
    if (r && memo && x->kind != D2_OBJ_INSTANCE)
        d2_dict_set(I, D2_AS(d2_dict, memo), key, r);
    d2_decref(key);
    return r;
}

D2_FN(copy_copy)
{
    return copy_obj(I, a[0], NULL, 0);
}

D2_FN(copy_deepcopy) /* a[0] x, a[1] memo or NULL */
{
    d2_obj *memo = a[1] && a[1]->kind == D2_OBJ_DICT ? d2_incref(a[1]) : d2_dict_new(I);
    if (!memo)
        return NULL;
    d2_obj *r = copy_obj(I, a[0], memo, 0);
    d2_decref(memo);
    return r;
}

static const d2_def COPY_DEFS[] = {
    D2_DEF_POS("copy", "x, /", copy_copy, NULL),
    D2_DEF_POS("deepcopy", "x, [memo], /", copy_deepcopy, NULL),
};

int d2_std_copy_init(d2_interp *I)
{
    return d2_std_module_defs(I, "copy", COPY_DEFS, D2_COUNTOF(COPY_DEFS)) ? 0 : -1;
}

/* api_compat.c - hand-called control flow (static.nn.cond/while_loop), paddle.tensor, fluid.layers
 * and the Paddle 1.x spellings (enable_imperative, fluid.Linear, paddle.Executor). */
#include "lib/paddle/jit.h"
#include "lib/paddle/jit_priv.h"
#include "lib/paddle/static_api.h"
#include "lib/paddle/tensor_api.h"

#include <stdio.h>
#include <string.h>

static bool is_none_obj(d2_interp *I, d2_obj *o) { return !o || o == I->none; }

/* Calls mod.name (a builtin of the paddle tree) with args and the keyword
 * arguments kn[i]=kv[i] (kv[i] NULL: left out). New reference or NULL. */
static d2_obj *call_attr(d2_interp *I, const char *mod, const char *name, d2_obj **args,
                         size_t n, const char *const *kn, d2_obj **kv, size_t nk)
{
    d2_obj *f = d2_jit_mod_attr(I, mod, name);
    if (!f)
        return d2_raise(I, "AttributeError", "module '%s' has no attribute '%s'", mod, name);
    d2_obj *kw = nk ? d2_dict_new(I) : NULL;
    if (nk && !kw)
        return NULL;
    for (size_t i = 0; i < nk; i++)
        if (kv[i] && d2_dict_set_str(I, D2_AS(d2_dict, kw), kn[i], kv[i]) < 0) {
            d2_decref(kw);
            return NULL;
        }
    d2_obj *r = d2_call(I, f, args, n, kw ? D2_AS(d2_dict, kw) : NULL);
    d2_decref(kw);
    return r;
}

/* ======================================================================
 * paddle.static.nn.cond / while_loop called by hand
 * ====================================================================== */

/* Paddle's test of a predicate: a tensor of one element, of dtype bool when
 * it builds an op (eagerly Paddle takes any dtype's truth value). */
static int check_pred(d2_interp *I, d2_obj *p, const char *fname, const char *what,
                      const char *exc)
{
    bool need_bool = is_sym(p);
    if (!is_tensor(p)) {
        d2_raise(I, exc, "%s: %s must be a Tensor of one element, got %s", fname, what,
                 d2_type_name(p));
        return -1;
    }
    const d2_type *t = &TOBJ(p)->type;
    int64_t numel = 1;
    for (int d = 0; d < t->shape.ndim; d++)
        numel = t->shape.dims[d] < 0 || numel < 0 ? -1 : numel * t->shape.dims[d];
    if ((need_bool && t->dtype != D2_BOOL) || (numel != 1 && numel != -1)) {
        char buf[200];
        d2_jit_type_text(t, buf, sizeof buf);
        d2_raise(I, exc, "%s: %s must be a %sTensor of one element, got %s", fname, what,
                 need_bool ? "bool " : "", buf);
        return -1;
    }
    return 0;
}

typedef struct hand_cond {
    d2_obj *fns[2];
} hand_cond;

static d2_obj *cond_branch(d2_interp *I, void *vctx, int which)
{
    hand_cond *c = vctx;
    if (is_none_obj(I, c->fns[which]))
        return d2_none(I);
    return d2_call(I, c->fns[which], NULL, 0, NULL);
}

/* paddle.static.nn.cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
 * eagerly the chosen function's result; on a symbolic pred a cond op */
D2_FN(SN_cond)
{
    const char *fname = "paddle.static.nn.cond";
    if (!is_tensor(a[0])) /* Paddle asserts these two eagerly */
        return d2_raise(I, "AssertionError", "%s: pred must be a Tensor of one element, got %s",
                        fname, d2_type_name(a[0]));
    if (check_pred(I, a[0], fname, "pred", is_sym(a[0]) ? "TypeError" : "AssertionError") < 0)
        return NULL;
    hand_cond c = {{a[1], a[2]}};
    if (!is_sym(a[0])) {
        int t = d2_truthy(I, a[0]);
        return t < 0 ? NULL : cond_branch(I, &c, t ? 0 : 1);
    }
    const char *names[1] = {"the output of cond"};
    d2_obj *out = NULL;
    /* a static Program built by hand: the branches extend pred's Program */
    d2_builder *saved = D2_MODE(I)->builder;
    if (!saved)
        D2_MODE(I)->builder = TOBJ(a[0])->builder;
    int rc = d2_jit_cond_core(I, a[0], cond_branch, &c, 1, names, "paddle.static.nn.cond",
                              c.fns, &out);
    D2_MODE(I)->builder = saved;
    return rc < 0 ? NULL : out;
}

typedef struct hand_loop {
    d2_obj *cond, *body;
    size_t n;
} hand_loop;

static d2_obj *loop_test(d2_interp *I, void *vctx, d2_obj **vals)
{
    hand_loop *c = vctx;
    return d2_call(I, c->cond, vals, c->n, NULL);
}

/* body's result as n new references: a list or tuple of n, or one value when n is 1 */
static int loop_body(d2_interp *I, void *vctx, d2_obj **vals, d2_obj **out)
{
    hand_loop *c = vctx;
    d2_obj *r = d2_call(I, c->body, vals, c->n, NULL);
    if (!r)
        return -1;
    size_t m = 1;
    d2_obj **items = d2_jit_seq_items(r, &m);
    if (!items && r->kind != D2_OBJ_TUPLE && r->kind != D2_OBJ_LIST) {
        items = &r;
        m = 1;
    }
    if (m != c->n) {
        d2_decref(r);
        d2_raise(I, "ValueError",
                 "body in while_loop should return the same arity (length and structure) and "
                 "types as loop_vars: %zu values for %zu loop_vars", m, c->n);
        return -1;
    }
    for (size_t i = 0; i < m; i++)
        out[i] = d2_incref(items[i]);
    d2_decref(r);
    return 0;
}

/* The result in the container kind of loop_vars. */
static d2_obj *same_kind(d2_interp *I, d2_obj *like, d2_obj **v, size_t n)
{
    d2_obj *r = like->kind == D2_OBJ_LIST ? d2_list_new(I, n) : d2_jit_tuple_n(I, n);
    for (size_t i = 0; r && i < n; i++) {
        if (like->kind == D2_OBJ_LIST)
            D2_AS(d2_list, r)->items[i] = d2_incref(v[i]);
        else
            D2_AS(d2_tuple, r)->items[i] = d2_incref(v[i]);
    }
    return r;
}

/* Eager: Paddle's dygraph loop, which assigns each new tensor value into the
 * loop_vars' tensors (other values keep their first value) and returns them. */
static d2_obj *eager_loop(d2_interp *I, hand_loop *c, d2_obj *pre, d2_obj *loop_vars,
                          d2_obj **vars, d2_obj **next)
{
    const char *fname = "paddle.static.nn.while_loop";
    size_t n_orig;
    d2_obj **orig = d2_jit_seq_items(loop_vars, &n_orig);
    int t = d2_truthy(I, pre);
    while (t > 0) {
        if (loop_body(I, c, vars, next) < 0)
            return NULL;
        d2_obj *p = loop_test(I, c, next);
        int ok = p ? check_pred(I, p, fname, "the value cond returns", "TypeError") : -1;
        t = ok < 0 ? -1 : d2_truthy(I, p);
        d2_decref(p);
        for (size_t j = 0; j < c->n; j++) {
            if (t >= 0 && is_tensor(next[j]) && is_tensor(orig[j])) {
                d2_obj *args[2] = {next[j], orig[j]};
                d2_obj *r = call_attr(I, "paddle", "assign", args, 2, NULL, NULL, 0);
                if (!r)
                    t = -1;
                d2_decref(r);
            }
            d2_setref(&next[j], NULL);
        }
    }
    if (t < 0)
        return NULL;
    return d2_incref(loop_vars);
}

/* paddle.static.nn.while_loop(cond, body, loop_vars, is_test=False, name=None) */
D2_FN(SN_while_loop)
{
    const char *fname = "paddle.static.nn.while_loop";
    d2_obj *lv = a[2];
    if (lv->kind != D2_OBJ_LIST && lv->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "%s: loop_vars must be a list or tuple, got %s", fname,
                        d2_type_name(lv));
    size_t n;
    d2_obj **init = d2_jit_seq_items(lv, &n);
    if (n == 0)
        return d2_raise(I, "ValueError", "loop_vars in while_loop should not be empty");
    hand_loop c = {a[0], a[1], n};
    d2_obj **vars = d2_calloc(2 * n + 1, sizeof *vars);
    char *nbuf = d2_calloc(n + 1, 32);
    const char **names = d2_calloc(n + 1, sizeof *names);
    d2_obj *result = NULL, *pre = NULL;
    if (!vars || !nbuf || !names) {
        nomem(I);
        goto done;
    }
    for (size_t j = 0; j < n; j++) {
        vars[j] = d2_incref(init[j]);
        snprintf(nbuf + 32 * j, 32, "loop_vars[%zu]", j);
        names[j] = nbuf + 32 * j;
    }
    bool building = D2_MODE(I)->builder != NULL;
    build_mark mark = {0, 0};
    if (building)
        mark = d2_jit_block_mark(I);
    pre = loop_test(I, &c, vars);
    if (!pre || check_pred(I, pre, fname, "the value cond returns", "TypeError") < 0)
        goto done;
    if (!is_sym(pre)) {
        result = eager_loop(I, &c, pre, lv, vars, vars + n);
        goto done;
    }
    /* drop the probe of cond; a static Program built by hand keeps it (dead) and the loop
     * extends pred's Program */
    if (building)
        d2_jit_rollback(I, mark);
    else
        D2_MODE(I)->builder = TOBJ(pre)->builder;
    int rc = d2_jit_build_while(I, n, vars, names, loop_test, loop_body, &c, fname, vars + n);
    if (!building)
        D2_MODE(I)->builder = NULL;
    if (rc < 0)
        goto done;
    result = same_kind(I, lv, vars + n, n);
done:
    d2_decref(pre);
    if (vars)
        decref_all(vars, 2 * n);
    d2_free(vars);
    d2_free(nbuf);
    d2_free(names);
    return result;
}

/* ======================================================================
 * paddle.tensor: the functions of paddle under the module they are defined in
 * ====================================================================== */

/* paddle.tensor.fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None) */
D2_FN(T_fill_constant)
{
    d2_obj *args[3] = {a[0], a[2], a[1]};
    d2_obj *r = call_attr(I, "paddle", "full", args, 3, NULL, NULL, 0);
    if (!r || is_none_obj(I, a[4]))
        return r;
    d2_obj *as[2] = {r, a[4]};
    d2_obj *o = call_attr(I, "paddle", "assign", as, 2, NULL, NULL, 0);
    d2_decref(r);
    return o;
}

/* ---- tensor arrays: Python lists eagerly (as Paddle's dygraph), a tensor
 * array (jit's TensorArray) while a Program is built ---- */

static bool building(d2_interp *I) { return D2_MODE(I)->builder != NULL; }

/* The index tensor i of an eager list: its value. */
static int eager_index(d2_interp *I, d2_obj *i, const char *fname, int64_t *v)
{
    if (!is_tensor(i) || is_sym(i) || !d2_dtype_is_int(TOBJ(i)->type.dtype)) {
        d2_raise(I, "TypeError", "%s: i must be an integer Tensor of one element, got %s", fname,
                 is_tensor(i) ? "a symbolic or float tensor" : d2_type_name(i));
        return -1;
    }
    d2_obj *item = d2_call_method(I, i, "item", NULL, 0, NULL);
    int rc = item ? d2_to_int64(I, item, "i", v) : -1;
    d2_decref(item);
    return rc;
}

/* The index as the int64 tensor array ops take. */
static d2_obj *array_index(d2_interp *I, d2_obj *i, const char *fname)
{
    if (is_tensor(i) && d2_dtype_is_int(TOBJ(i)->type.dtype))
        return d2_jit_cast_to(I, i, D2_I64);
    if (i->kind == D2_OBJ_INT)
        return d2_jit_constant(I, D2_I64, NULL, (double)D2_AS(d2_int, i)->v);
    return d2_raise(I, "TypeError", "%s: i must be an integer Tensor, got %s", fname,
                    d2_type_name(i));
}

D2_FN(T_create_array) /* dtype, initialized_list */
{
    const char *fname = "paddle.tensor.create_array";
    int dt;
    if (d2_pd_parse_dtype(I, a[0], fname, false, &dt) < 0)
        return NULL;
    size_t n = 0;
    d2_obj **items = NULL;
    if (!is_none_obj(I, a[1])) {
        items = d2_jit_seq_items(a[1], &n);
        if (!items && a[1]->kind != D2_OBJ_LIST && a[1]->kind != D2_OBJ_TUPLE)
            return d2_raise(I, "TypeError", "%s: initialized_list must be a list, got %s", fname,
                            d2_type_name(a[1]));
        for (size_t k = 0; k < n; k++)
            if (!is_tensor(items[k]))
                return d2_raise(I, "TypeError",
                                "%s: all values in initialized_list should be Tensors, got %s",
                                fname, d2_type_name(items[k]));
    }
    if (!building(I)) {
        d2_obj *l = d2_list_new(I, 0);
        for (size_t k = 0; l && k < n; k++)
            if (d2_list_append(I, l, items[k]) < 0)
                d2_setref(&l, NULL);
        return l;
    }
    d2_obj *t = d2_jit_array_of(I, items, n, dt < 0 ? D2_F32 : (d2_dtype)dt);
    d2_obj *r = t ? d2_jit_new_tarray(I, t, NULL, false) : NULL;
    d2_decref(t);
    return r;
}

D2_FN(T_array_write) /* x, i, array */
{
    const char *fname = "paddle.tensor.array_write";
    if (!is_tensor(a[0]))
        return d2_raise(I, "TypeError", "%s: x must be a Tensor, got %s", fname,
                        d2_type_name(a[0]));
    d2_obj *arr = a[2];
    if (is_none_obj(I, arr) ? building(I) : is_array(I, arr)) {
        d2_obj *fresh = NULL;
        if (is_none_obj(I, arr)) {
            fresh = d2_jit_array_of(I, NULL, 0, TOBJ(a[0])->type.dtype);
            arr = fresh ? d2_jit_new_tarray(I, fresh, NULL, false) : NULL;
            d2_decref(fresh);
            if (!arr)
                return NULL;
        } else {
            d2_incref(arr);
        }
        d2_obj *t = tarray_t(I, arr);
        d2_obj *idx = array_index(I, a[1], fname);
        d2_obj *x = idx ? d2_jit_cast_to(I, a[0], TOBJ(t)->type.dtype) : NULL;
        d2_obj *in[3] = {t, idx, x};
        d2_obj *nt = x ? d2_jit_op_n(I, D2_OP_array_write, in, 3, NULL) : NULL;
        d2_decref(idx);
        d2_decref(x);
        if (!nt || iset(I, arr, "_t", nt) < 0)
            d2_setref(&arr, NULL);
        d2_decref(nt);
        return arr;
    }
    if (!is_none_obj(I, arr) && arr->kind != D2_OBJ_LIST)
        return d2_raise(I, "TypeError", "%s: array must be a list made by create_array, got %s",
                        fname, d2_type_name(arr));
    int64_t i;
    if (eager_index(I, a[1], fname, &i) < 0)
        return NULL;
    d2_obj *l = is_none_obj(I, arr) ? d2_list_new(I, 0) : d2_incref(arr);
    if (!l)
        return NULL;
    d2_list *L = D2_AS(d2_list, l);
    if (i < 0 || (size_t)i > L->n) {
        d2_decref(l);
        return d2_raise(I, "IndexError",
                        "%s: index %lld is beyond the end of the array (its length is %zu)", fname,
                        (long long)i, L->n);
    }
    if ((size_t)i < L->n) {
        d2_setref(&L->items[i], d2_incref(a[0]));
    } else if (d2_list_append(I, l, a[0]) < 0) {
        d2_decref(l);
        return NULL;
    }
    return l;
}

D2_FN(T_array_read) /* array, i */
{
    const char *fname = "paddle.tensor.array_read";
    if (is_array(I, a[0])) {
        d2_obj *idx = array_index(I, a[1], fname);
        d2_obj *r = idx ? op_2(I, D2_OP_array_read, tarray_t(I, a[0]), idx, NULL) : NULL;
        d2_decref(idx);
        return r;
    }
    if (a[0]->kind != D2_OBJ_LIST)
        return d2_raise(I, "TypeError", "%s: array must be a list made by create_array, got %s",
                        fname, d2_type_name(a[0]));
    int64_t i;
    if (eager_index(I, a[1], fname, &i) < 0)
        return NULL;
    d2_list *L = D2_AS(d2_list, a[0]);
    if (i < 0 || (size_t)i >= L->n)
        return d2_raise(I, "IndexError", "%s: index %lld is out of range (the array has %zu)",
                        fname, (long long)i, L->n);
    return d2_incref(L->items[i]);
}

D2_FN(T_array_length) /* array */
{
    if (is_array(I, a[0])) {
        /* an int64 tensor of shape [1], as Paddle's static array_length */
        d2_obj *n = op_1(I, D2_OP_array_length, tarray_t(I, a[0]), NULL);
        if (!n)
            return NULL;
        d2_ab b;
        d2_ab_init(&b, D2_OP_reshape);
        d2_ab_ints(&b, "shape", (const int64_t[]){1}, 1);
        d2_obj *r = op_1(I, D2_OP_reshape, n, &b);
        d2_decref(n);
        return r;
    }
    if (a[0]->kind != D2_OBJ_LIST)
        return d2_raise(I, "TypeError",
                        "paddle.tensor.array_length: array must be a list made by create_array, "
                        "got %s", d2_type_name(a[0]));
    return d2_int_new(I, (int64_t)D2_AS(d2_list, a[0])->n);
}

/* Copies paddle's functions into paddle.tensor (classes and modules stay out). */
static int tensor_module(d2_interp *I)
{
    d2_module *t = d2_jit_get_module(I, "paddle.tensor");
    d2_obj *pd = d2_dict_get_str(I, I->modules, "paddle");
    if (!t || !pd || pd->kind != D2_OBJ_MODULE) {
        d2_decref((d2_obj *)t);
        return t ? 0 : -1;
    }
    d2_dict *src = D2_AS(d2_module, pd)->dict;
    int rc = d2_dict_set_str(I, src, "tensor", (d2_obj *)t);
    for (size_t i = 0; rc == 0 && i < src->n; i++) {
        d2_obj *k = src->entries[i].key, *v = src->entries[i].value;
        if (!k || k->kind != D2_OBJ_STR || !v || v->kind != D2_OBJ_BUILTIN)
            continue;
        const char *name = D2_AS(d2_str, k)->s;
        if (name[0] != '_' && !d2_dict_get_str(I, t->dict, name))
            rc = d2_dict_set_str(I, t->dict, name, v);
    }
    static const d2_def defs[] = {
        D2_DEF("fill_constant", "shape, dtype, value, force_cpu=False, out=None, name=None",
               T_fill_constant, "paddle.tensor.fill_constant"),
        D2_DEF("create_array", "dtype, initialized_list=None", T_create_array,
               "paddle.tensor.create_array"),
        D2_DEF("array_write", "x, i, array=None", T_array_write, "paddle.tensor.array_write"),
        D2_DEF("array_read", "array, i", T_array_read, "paddle.tensor.array_read"),
        D2_DEF("array_length", "array", T_array_length, "paddle.tensor.array_length"),
    };
    if (rc == 0)
        rc = d2_module_add_defs(I, t, defs, D2_COUNTOF(defs));
    size_t n_linalg;
    const d2_def *linalg = d2_pd_linalg_tensor_fns(&n_linalg);
    if (rc == 0)
        rc = d2_module_add_defs(I, t, linalg, n_linalg);
    /* paddle.tensor.math.frexp and the like: Paddle's files of paddle.tensor
     * as modules that hold its functions */
    static const char *const files[] = {"math",   "manipulation", "creation",  "search", "logic",
                                        "stat",   "linalg",       "attribute", "einsum", "random",
                                        "array",  "ops"};
    for (size_t f = 0; rc == 0 && f < D2_COUNTOF(files); f++) {
        char qual[64];
        snprintf(qual, sizeof qual, "paddle.tensor.%s", files[f]);
        d2_module *sub = d2_module_new_builtin(I, qual);
        if (!sub) {
            rc = -1;
            break;
        }
        for (size_t i = 0; rc == 0 && i < t->dict->n; i++) {
            d2_obj *k = t->dict->entries[i].key, *v = t->dict->entries[i].value;
            if (k && k->kind == D2_OBJ_STR && v && v->kind == D2_OBJ_BUILTIN &&
                D2_AS(d2_str, k)->s[0] != '_')
                rc = d2_dict_set(I, sub->dict, k, v);
        }
        if (rc == 0)
            rc = d2_dict_set_str(I, t->dict, files[f], (d2_obj *)sub);
        if (rc == 0)
            rc = d2_dict_set_str(I, I->modules, qual, (d2_obj *)sub);
        d2_decref((d2_obj *)sub);
    }
    d2_decref((d2_obj *)t);
    return rc;
}

/* ======================================================================
 * paddle.fluid.layers: the Paddle 1.x functions, on their 2.x forms
 * ====================================================================== */

#define CALL(mod, name, n, ...) call_attr(I, mod, name, (d2_obj *[]){__VA_ARGS__}, n, NULL, NULL, 0)

/* accuracy(input, label, k=1, correct=None, total=None, name=None): the share
 * of rows whose label is among the k highest scores (ties count as found) */
D2_FN(S_accuracy)
{
    const char *fname = def->qualname;
    int64_t k;
    if (d2_to_int64(I, a[2], "k", &k) < 0)
        return NULL;
    if (!is_tensor(a[0]) || !is_tensor(a[1]))
        return d2_raise(I, "TypeError", "%s: input and label must be Tensors", fname);
    const d2_shape *sh = &TOBJ(a[0])->type.shape;
    if (sh->ndim != 2 || k < 1)
        return d2_raise(I, "ValueError", "%s: input must be [N, C] scores and k >= 1 (got %d "
                        "dims, k=%lld)", fname, sh->ndim, (long long)k);
    d2_obj *m1 = d2_int_new(I, -1), *one = d2_int_new(I, 1), *tr = d2_bool(I, true);
    d2_obj *f32 = d2_str_from(I, "float32");
    d2_obj *lab = NULL, *hit = NULL, *r = NULL;
    if (!m1 || !one || !f32)
        goto done;
    {
        d2_obj *shape = d2_list_new(I, 0);
        bool ok = shape && d2_list_append(I, shape, m1) == 0 && d2_list_append(I, shape, one) == 0;
        lab = ok ? CALL("paddle", "reshape", 2, a[1], shape) : NULL;
        d2_decref(shape);
    }
    if (!lab)
        goto done;
    if (k == 1) {
        d2_obj *idx = CALL("paddle", "argmax", 3, a[0], m1, tr);
        hit = idx ? CALL("paddle", "equal", 2, idx, lab) : NULL;
        d2_decref(idx);
    } else {
        static const char *const kn[] = {"keepdim"};
        d2_obj *flat = CALL("paddle", "reshape", 2, lab, m1);
        d2_obj *nc = flat ? d2_int_new(I, sh->dims[1]) : NULL;
        d2_obj *oh = nc ? CALL("paddle.nn.functional", "one_hot", 2, flat, nc) : NULL;
        d2_obj *oc = oh ? CALL("paddle", "cast", 2, oh, d2_pd_dtype_obj(I, TOBJ(a[0])->type.dtype,
                                                                         false))
                        : NULL;
        d2_obj *pr = oc ? CALL("paddle", "multiply", 2, a[0], oc) : NULL;
        d2_obj *ls = pr ? call_attr(I, "paddle", "sum", (d2_obj *[]){pr, one}, 2, kn, &tr, 1)
                        : NULL;
        d2_obj *g = ls ? CALL("paddle", "greater_than", 2, a[0], ls) : NULL;
        d2_obj *gc = g ? CALL("paddle", "cast", 2, g, f32) : NULL;
        d2_obj *rank =
            gc ? call_attr(I, "paddle", "sum", (d2_obj *[]){gc, one}, 2, kn, &tr, 1) : NULL;
        d2_obj *kf = rank ? d2_float_new(I, (double)k) : NULL;
        d2_obj *kt = kf ? CALL("paddle", "full_like", 2, rank, kf) : NULL;
        hit = kt ? CALL("paddle", "less_than", 2, rank, kt) : NULL;
        d2_decref(flat);
        d2_decref(nc);
        d2_decref(oh);
        d2_decref(oc);
        d2_decref(pr);
        d2_decref(ls);
        d2_decref(g);
        d2_decref(gc);
        d2_decref(rank);
        d2_decref(kf);
        d2_decref(kt);
    }
    if (hit) {
        d2_obj *hc = CALL("paddle", "cast", 2, hit, f32);
        r = hc ? CALL("paddle", "mean", 1, hc) : NULL;
        d2_decref(hc);
    }
done:
    d2_decref(m1);
    d2_decref(one);
    d2_decref(tr);
    d2_decref(f32);
    d2_decref(lab);
    d2_decref(hit);
    return r;
}

#define ACCURACY_SPEC "input, label, k=1, correct=None, total=None, name=None"


/* x, then act applied when given (act is a paddle.nn.functional name). Takes x. */
static d2_obj *with_act(d2_interp *I, const char *fname, d2_obj *x, d2_obj *act)
{
    if (!x || is_none_obj(I, act))
        return x;
    const char *s = cstr(act);
    d2_obj *r;
    if (!s)
        r = d2_raise(I, "TypeError", "%s: act must be a str, got %s", fname, d2_type_name(act));
    else if (!d2_jit_mod_attr(I, "paddle.nn.functional", s))
        r = d2_raise(I, "ValueError", "%s: unsupported act '%s'", fname, s);
    else
        r = CALL("paddle.nn.functional", s, 1, x);
    d2_decref(x);
    return r;
}

D2_FN(L_reshape) /* x, shape, actual_shape, act, inplace, name */
{
    return with_act(I, "fluid.layers.reshape", CALL("paddle", "reshape", 2, a[0], a[1]), a[3]);
}

D2_FN(L_fc) /* input, size, num_flatten_dims, param_attr, bias_attr, act, name */
{
    static const char *const kn[] = {"num_flatten_dims", "weight_attr", "bias_attr",
                                     "activation"};
    d2_obj *kv[] = {a[2], a[3], a[4], a[5]};
    d2_obj *args[2] = {a[0], a[1]};
    return call_attr(I, "paddle.static.nn", "fc", args, 2, kn, kv, 4);
}

D2_FN(L_act) /* x, name: def->data is the paddle.nn.functional name */
{
    return CALL("paddle.nn.functional", (const char *)def->data, 1, a[0]);
}

D2_FN(L_softmax) /* input, use_cudnn, name, axis */
{
    return CALL("paddle.nn.functional", "softmax", 2, a[0], a[3]);
}

D2_FN(L_concat) /* input, axis, name */
{
    return CALL("paddle", "concat", 2, a[0], a[1]);
}

/* x op y where y's dims line up with x's from dim axis (-1: the trailing dims) */
D2_FN(L_elementwise) /* x, y, axis, act, name: def->data is the paddle function */
{
    const char *fname = def->qualname;
    int64_t axis;
    if (d2_to_int64(I, a[2], "axis", &axis) < 0)
        return NULL;
    d2_obj *y = d2_incref(a[1]);
    if (axis != -1 && is_tensor(a[0]) && is_tensor(y)) {
        int xn = TOBJ(a[0])->type.shape.ndim, yn = TOBJ(y)->type.shape.ndim;
        if (axis < 0 || axis + yn > xn) {
            d2_decref(y);
            return d2_raise(I, "ValueError",
                            "%s: axis %lld does not fit y's %d dims into x's %d dims", fname,
                            (long long)axis, yn, xn);
        }
        d2_obj *axes = d2_list_new(I, 0);
        for (int d = 0; axes && d < xn; d++) {
            if (d >= axis && d < axis + yn)
                continue;
            d2_obj *k = d2_int_new(I, d);
            if (!k || d2_list_append(I, axes, k) < 0)
                d2_setref(&axes, NULL);
            d2_decref(k);
        }
        d2_obj *u = axes ? CALL("paddle", "unsqueeze", 2, y, axes) : NULL;
        d2_decref(axes);
        d2_decref(y);
        if (!u)
            return NULL;
        y = u;
    }
    d2_obj *r = CALL("paddle", (const char *)def->data, 2, a[0], y);
    d2_decref(y);
    return with_act(I, fname, r, a[3]);
}

D2_FN(L_reduce) /* input, dim, keep_dim, name: def->data is the paddle function */
{
    static const char *const kn[] = {"axis", "keepdim"};
    d2_obj *kv[] = {a[1], a[2]};
    return call_attr(I, "paddle", (const char *)def->data, a, 1, kn, kv, 2);
}

D2_FN(L_mean) /* x, name */
{
    return CALL("paddle", "mean", 1, a[0]);
}

D2_FN(L_matmul) /* x, y, transpose_x, transpose_y, alpha, name */
{
    double alpha;
    if (d2_to_double(I, a[4], "alpha", &alpha) < 0)
        return NULL;
    d2_obj *r = CALL("paddle", "matmul", 4, a[0], a[1], a[2], a[3]);
    if (!r || alpha == 1.0)
        return r;
    d2_obj *s = CALL("paddle", "scale", 2, r, a[4]);
    d2_decref(r);
    return s;
}

D2_FN(L_data) /* name, shape, append_batch_size, dtype, lod_level, type, stop_gradient */
{
    int t = d2_truthy(I, a[2]);
    if (t < 0)
        return NULL;
    if (a[1]->kind != D2_OBJ_LIST && a[1]->kind != D2_OBJ_TUPLE)
        return d2_raise(I, "TypeError", "fluid.layers.data: shape must be a list or tuple, got %s",
                        d2_type_name(a[1]));
    size_t n;
    d2_obj **dims = d2_jit_seq_items(a[1], &n);
    d2_obj *shape = d2_list_new(I, 0);
    d2_obj *m1 = d2_int_new(I, -1);
    bool ok = shape && m1 && (!t || d2_list_append(I, shape, m1) == 0);
    for (size_t i = 0; ok && i < n; i++)
        ok = d2_list_append(I, shape, dims[i]) == 0;
    d2_decref(m1);
    d2_obj *r = ok ? CALL("paddle.static", "data", 3, a[0], shape, a[3]) : NULL;
    d2_decref(shape);
    return r;
}

D2_FN(L_creation) /* shape, dtype, force_cpu: def->data is paddle.zeros or ones */
{
    return CALL("paddle", (const char *)def->data, 2, a[0], a[1]);
}

D2_FN(L_argmax) /* x, axis */
{
    return CALL("paddle", "argmax", 2, a[0], a[1]);
}

D2_FN(L_pass) /* x, y, ...: paddle's function (def->data) of the first two arguments */
{
    return call_attr(I, "paddle", (const char *)def->data, a, 2, NULL, NULL, 0);
}

#define ELEMENTWISE(name, fn)                                                                      \
    D2_DEF_DATA(name, "x, y, axis=-1, act=None, name=None", L_elementwise, "fluid.layers." name,  \
                fn)
#define REDUCE(name, fn)                                                                           \
    D2_DEF_DATA(name, "input, dim=None, keep_dim=False, name=None", L_reduce,                     \
                "fluid.layers." name, fn)
#define ACT(name) D2_DEF_DATA(name, "x, name=None", L_act, "fluid.layers." name, name)

static const d2_def FLUID_LAYERS_DEFS[] = {
    D2_DEF("reshape", "x, shape, actual_shape=None, act=None, inplace=False, name=None",
           L_reshape, "fluid.layers.reshape"),
    D2_DEF("fc",
           "input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None",
           L_fc, "fluid.layers.fc"),
    D2_DEF("softmax", "input, use_cudnn=False, name=None, axis=-1", L_softmax,
           "fluid.layers.softmax"),
    D2_DEF("concat", "input, axis=0, name=None", L_concat, "fluid.layers.concat"),
    D2_DEF("fill_constant", "shape, dtype, value, force_cpu=False, out=None, name=None",
           T_fill_constant, "fluid.layers.fill_constant"),
    D2_DEF("mean", "x, name=None", L_mean, "fluid.layers.mean"),
    D2_DEF("matmul", "x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None",
           L_matmul, "fluid.layers.matmul"),
    D2_DEF("data",
           "name, shape, append_batch_size=True, dtype='float32', lod_level=0, type=None, "
           "stop_gradient=True",
           L_data, "fluid.layers.data"),
    D2_DEF_DATA("zeros", "shape, dtype, force_cpu=False", L_creation, "fluid.layers.zeros",
                "zeros"),
    D2_DEF_DATA("ones", "shape, dtype, force_cpu=False", L_creation, "fluid.layers.ones", "ones"),
    D2_DEF("argmax", "x, axis=0", L_argmax, "fluid.layers.argmax"),
    D2_DEF_DATA("transpose", "x, perm, name=None", L_pass, "fluid.layers.transpose",
                "transpose"),
    D2_DEF_DATA("cast", "x, dtype", L_pass, "fluid.layers.cast", "cast"),
    D2_DEF_DATA("unsqueeze", "input, axes, name=None", L_pass, "fluid.layers.unsqueeze",
                "unsqueeze"),
    D2_DEF_DATA("squeeze", "input, axes, name=None", L_pass, "fluid.layers.squeeze", "squeeze"),
    D2_DEF_DATA("assign", "input, output=None", L_pass, "fluid.layers.assign", "assign"),
    ELEMENTWISE("elementwise_add", "add"),
    ELEMENTWISE("elementwise_sub", "subtract"),
    ELEMENTWISE("elementwise_mul", "multiply"),
    ELEMENTWISE("elementwise_div", "divide"),
    REDUCE("reduce_sum", "sum"),
    REDUCE("reduce_mean", "mean"),
    REDUCE("reduce_max", "max"),
    REDUCE("reduce_min", "min"),
    ACT("relu"),
    ACT("sigmoid"),
    ACT("tanh"),
    ACT("relu6"),
    ACT("log_softmax"),
    D2_DEF("accuracy", "input, label, k=1, correct=None, total=None", S_accuracy,
           "fluid.layers.accuracy"),
};

/* ---- paddle.fluid.initializer: the 1.x names and keywords ---- */

D2_FN(I_normal) /* loc, scale, seed */
{
    return CALL("paddle.nn.initializer", "Normal", 2, a[0], a[1]);
}

D2_FN(I_uniform) /* low, high, seed */
{
    return CALL("paddle.nn.initializer", "Uniform", 2, a[0], a[1]);
}

D2_FN(I_constant) /* value, force_cpu */
{
    return CALL("paddle.nn.initializer", "Constant", 1, a[0]);
}

D2_FN(I_xavier) /* uniform, fan_in, fan_out, seed */
{
    int u = d2_truthy(I, a[0]);
    if (u < 0)
        return NULL;
    return CALL("paddle.nn.initializer", u ? "XavierUniform" : "XavierNormal", 2, a[1], a[2]);
}

static const d2_def FLUID_INIT_DEFS[] = {
    D2_DEF("NormalInitializer", "loc=0.0, scale=1.0, seed=0", I_normal,
           "fluid.initializer.NormalInitializer"),
    D2_DEF("Normal", "loc=0.0, scale=1.0, seed=0", I_normal, "fluid.initializer.Normal"),
    D2_DEF("UniformInitializer", "low=-1.0, high=1.0, seed=0", I_uniform,
           "fluid.initializer.UniformInitializer"),
    D2_DEF("Uniform", "low=-1.0, high=1.0, seed=0", I_uniform, "fluid.initializer.Uniform"),
    D2_DEF("ConstantInitializer", "value=0.0, force_cpu=False", I_constant,
           "fluid.initializer.ConstantInitializer"),
    D2_DEF("Constant", "value=0.0, force_cpu=False", I_constant, "fluid.initializer.Constant"),
    D2_DEF("XavierInitializer", "uniform=True, fan_in=None, fan_out=None, seed=0", I_xavier,
           "fluid.initializer.XavierInitializer"),
    D2_DEF("Xavier", "uniform=True, fan_in=None, fan_out=None, seed=0", I_xavier,
           "fluid.initializer.Xavier"),
};

/* Module name (made when missing) with the rows defs, set as attribute attr of parent. */
static int rows_module(d2_interp *I, const char *name, const char *parent, const char *attr,
                       const d2_def *defs, size_t n)
{
    d2_module *m = d2_jit_get_module(I, name);
    d2_obj *p = d2_dict_get_str(I, I->modules, parent);
    int rc = m ? d2_module_add_defs(I, m, defs, n) : -1;
    if (rc == 0 && p && p->kind == D2_OBJ_MODULE)
        rc = d2_dict_set_str(I, D2_AS(d2_module, p)->dict, attr, (d2_obj *)m);
    d2_decref((d2_obj *)m);
    return rc;
}

/* Module name (made when missing), set as attribute attr of parent, with
 * the public classes and functions of module of (the 1.x module paths of
 * names that live elsewhere now). */
static int copy_namespace(d2_interp *I, const char *name, const char *of, const char *parent,
                          const char *attr)
{
    d2_obj *src = d2_dict_get_str(I, I->modules, of);
    d2_obj *p = d2_dict_get_str(I, I->modules, parent);
    if (!src || src->kind != D2_OBJ_MODULE)
        return 0;
    d2_module *m = d2_jit_get_module(I, name);
    if (!m)
        return -1;
    d2_dict *d = D2_AS(d2_module, src)->dict;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < d->n; i++) {
        d2_obj *k = d->entries[i].key, *v = d->entries[i].value;
        if (!k || k->kind != D2_OBJ_STR || !v || D2_AS(d2_str, k)->s[0] == '_' ||
            (v->kind != D2_OBJ_CLASS && v->kind != D2_OBJ_BUILTIN))
            continue;
        rc = d2_dict_set_str(I, m->dict, D2_AS(d2_str, k)->s, v);
    }
    if (rc == 0 && p && p->kind == D2_OBJ_MODULE)
        rc = d2_dict_set_str(I, D2_AS(d2_module, p)->dict, attr, (d2_obj *)m);
    d2_decref((d2_obj *)m);
    return rc;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

/* m.name = the attribute src_name of module src (when both exist). */
static int alias(d2_interp *I, const char *mod, const char *name, const char *src,
                 const char *src_name)
{
    return d2_jit_alias(I, mod, name, d2_jit_mod_attr(I, src, src_name));
}

int d2_api_compat_init(d2_interp *I)
{
    static const d2_def static_nn_defs[] = {
        D2_DEF("cond", "pred, true_fn=None, false_fn=None, name=None, return_names=None", SN_cond,
               "paddle.static.nn.cond"),
        D2_DEF("while_loop", "cond, body, loop_vars, is_test=False, name=None", SN_while_loop,
               "paddle.static.nn.while_loop"),
    };
    static const d2_def static_defs[] = {
        D2_DEF("accuracy", ACCURACY_SPEC, S_accuracy, "paddle.static.accuracy"),
    };
    static const d2_def metric_defs[] = {
        D2_DEF("accuracy", ACCURACY_SPEC, S_accuracy, "paddle.metric.accuracy"),
    };
    if (rows_module(I, "paddle.static", "paddle", "static", static_defs,
                    D2_COUNTOF(static_defs)) < 0 ||
        rows_module(I, "paddle.metric", "paddle", "metric", metric_defs,
                    D2_COUNTOF(metric_defs)) < 0)
        return -1;
    d2_module *snn = d2_jit_get_module(I, "paddle.static.nn");
    int rc = snn ? d2_module_add_defs(I, snn, static_nn_defs, D2_COUNTOF(static_nn_defs)) : -1;
    d2_decref((d2_obj *)snn);
    if (rc < 0 || tensor_module(I) < 0)
        return -1;
    /* fluid.layers, fluid.initializer, and the module paths 1.x code imports from */
    if (rows_module(I, "paddle.fluid.layers", "paddle.fluid", "layers", FLUID_LAYERS_DEFS,
                    D2_COUNTOF(FLUID_LAYERS_DEFS)) < 0 ||
        rows_module(I, "paddle.fluid.initializer", "paddle.fluid", "initializer",
                    FLUID_INIT_DEFS, D2_COUNTOF(FLUID_INIT_DEFS)) < 0 ||
        copy_namespace(I, "paddle.fluid.dygraph.nn", "paddle.fluid.dygraph",
                        "paddle.fluid.dygraph", "nn") < 0 ||
        copy_namespace(I, "paddle.fluid.dygraph.jit", "paddle.fluid.dygraph",
                        "paddle.fluid.dygraph", "jit") < 0 ||
        copy_namespace(I, "paddle.fluid.param_attr", "paddle.fluid", "paddle.fluid",
                        "param_attr") < 0)
        return -1;
    /* paddle.base is paddle.fluid: its submodules import under both names */
    static const char *const subs[] = {"layers", "initializer", "dygraph.nn", "dygraph.jit",
                                       "param_attr"};
    for (size_t k = 0; k < D2_COUNTOF(subs); k++) {
        char fl[64], ba[64];
        snprintf(fl, sizeof fl, "paddle.fluid.%s", subs[k]);
        snprintf(ba, sizeof ba, "paddle.base.%s", subs[k]);
        d2_obj *m = d2_dict_get_str(I, I->modules, fl);
        if (m && d2_dict_set_str(I, I->modules, ba, m) < 0)
            return -1;
    }
    /* the Paddle 1.x and 2.0 spellings */
    if (alias(I, "paddle", "Executor", "paddle.static", "Executor") < 0 ||
        alias(I, "paddle.fluid", "enable_imperative", "paddle", "disable_static") < 0 ||
        alias(I, "paddle.fluid", "disable_imperative", "paddle", "enable_static") < 0 ||
        alias(I, "paddle.fluid", "Linear", "paddle.fluid.dygraph", "Linear") < 0)
        return -1;
    return 0;
}

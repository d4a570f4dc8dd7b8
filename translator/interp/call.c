/* call.c - calls: call expressions, argument binding of user functions, the call stack guards. */
#include "interp/interp_priv.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

/* ---- the call stack: C stack guard, builtins' temporaries, frames ---- */

int d2_stack_check(d2_interp *I)
{
    return d2i_stack_check(I);
}


/* Sets the C stack reference point and budget, and the deadline, at the outermost entry. */
void d2i_stack_begin(d2_interp *I, const char *base)
{
    struct d2_interp_state *st = I->st;
    if (st->stack_base)
        return;
    st->stack_base = base;
    size_t budget = 4u << 20;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            uintptr_t lo = (uintptr_t)addr, b = (uintptr_t)base;
            size_t avail = b > lo ? b - lo : 0;
            budget = avail > (1u << 20) ? avail - (768u << 10) : avail / 2;
        }
        pthread_attr_destroy(&attr);
    }
    st->stack_budget = budget;
    st->ticks = 1; /* the first check reads the clock */
    st->deadline = I->opt.timeout_s > 0 ? d2_monotonic_s() + I->opt.timeout_s : 0;
}

double d2_interp_deadline(const d2_interp *I)
{
    return I->st->deadline;
}

#define TICK_PERIOD 4096

int d2i_tick_slow(d2_interp *I)
{
    struct d2_interp_state *st = I->st;
    st->ticks = TICK_PERIOD;
    if (st->deadline == 0 || d2_monotonic_s() < st->deadline)
        return 0;
    st->ticks = 1; /* stays expired: an except clause cannot run on past it */
    d2_raise(I, "TimeoutError", "the run exceeded its time limit of %g s", I->opt.timeout_s);
    return -1;
}

void d2i_pool_add(d2_interp *I, d2_obj *o)
{
    struct d2_interp_state *st = I->st;
    if (st->npool == st->cappool) {
        size_t cap = st->cappool ? st->cappool * 2 : 16;
        d2_obj **p = d2_realloc(st->pool, cap * sizeof *p);
        if (!p)
            return; /* o then simply lives until teardown */
        st->pool = p;
        st->cappool = cap;
    }
    st->pool[st->npool++] = o;
}

static void pool_release(d2_interp *I, size_t mark)
{
    struct d2_interp_state *st = I->st;
    while (st->npool > mark)
        d2_decref(st->pool[--st->npool]);
}

void d2i_frame_push(d2_interp *I, d2i_frame *fr)
{
    fr->prev = I->st->cur;
    I->st->cur = fr;
    if (fr->pf == &fr->f) {
        fr->f.back = I->frame;
        I->frame = &fr->f;
    }
}

void d2i_frame_pop(d2_interp *I, d2i_frame *fr)
{
    I->st->cur = fr->prev;
    if (fr->pf == &fr->f)
        I->frame = fr->f.back;
}

static d2_obj *cell_new(d2_interp *I, d2_obj *v)
{
    d2_obj *c = d2_obj_alloc(I, D2_OBJ_CELL, NULL, sizeof(d2_cell));
    if (c)
        D2_AS(d2_cell, c)->value = v; /* steals v */
    else
        d2_decref(v);
    return c;
}

/* Pushes every item of iterable onto a. */
static int av_extend(d2_interp *I, argvec *a, d2_obj *iterable)
{
    d2_obj *it = d2_get_iter(I, iterable);
    if (!it)
        return -1;
    for (;;) {
        bool done = false;
        d2_obj *x = d2_iter_next(I, it, &done);
        if (!x) {
            d2_decref(it);
            return done ? 0 : -1;
        }
        if (av_push(I, a, x) < 0) {
            d2_decref(it);
            return -1;
        }
    }
}

/* Evaluates a list of expressions that may contain *starred items. */
int d2i_eval_items(d2_interp *I, d2i_frame *fr, const d2_ast_seq *elts, argvec *a)
{
    for (uint32_t i = 0; i < elts->n; i++) {
        const d2_ast_expr *x = elts->items[i];
        if (x->kind == D2_AST_STARRED) {
            d2_obj *v = d2i_eval(I, fr, x->starred.value);
            if (!v)
                return -1;
            fr->pf->span = x->span;
            int rc = av_extend(I, a, v);
            d2_decref(v);
            if (rc < 0)
                return -1;
            continue;
        }
        d2_obj *v = d2i_eval(I, fr, x);
        if (!v || av_push(I, a, v) < 0)
            return -1;
    }
    return 0;
}

/* ---- calls ---- */

static const char *callable_name(d2_obj *f)
{
    if (f->kind == D2_OBJ_FUNCTION)
        return D2_AS(d2_function, f)->qualname;
    if (f->kind == D2_OBJ_BUILTIN)
        return D2_AS(d2_builtin, f)->name;
    if (f->kind == D2_OBJ_CLASS)
        return D2_AS(d2_class, f)->name;
    return d2_type_name(f);
}

d2_obj *d2i_call_builtin(d2_interp *I, d2_builtin *b, d2_obj *self, d2_obj **args, size_t nargs,
                         d2_dict *kw)
{
    /* A method runs on instances of its class only (np.ndarray.astype([1]),
     * or a method copied into an unrelated class, must not reach a body
     * that reads the receiver's layout). */
    if (b->owner && self != b->self && (!self || (self->cls != b->owner && !d2_isinstance(I, self, b->owner))))
        return d2_raise(I, "TypeError", "descriptor '%s' for '%s' objects doesn't apply to a '%s' object",
                        b->name, b->owner->name, self ? d2_type_name(self) : "NoneType");
    size_t mark = I->st->npool;
    d2_obj *r = b->def ? d2_def_call(I, b->def, self, args, nargs, kw && kw->live ? kw : NULL)
                       : b->fn(I, self, args, nargs, kw && kw->live ? kw : NULL);
    pool_release(I, mark);
    if (!r && !I->exc)
        d2_raise(I, "SystemError", "%s() returned NULL without setting an exception", b->name);
    return r;
}

d2_obj *d2i_call_with_self(d2_interp *I, d2_obj *fn, d2_obj *self, d2_obj **args, size_t nargs,
                           d2_dict *kw)
{
    if (fn->kind == D2_OBJ_FUNCTION)
        return d2i_call_function(I, D2_AS(d2_function, fn), self, args, nargs, kw);
    if (fn->kind == D2_OBJ_BUILTIN && !D2_AS(d2_builtin, fn)->self)
        return d2i_call_builtin(I, D2_AS(d2_builtin, fn), self, args, nargs, kw);
    d2_obj *inl[8], **v = nargs + 1 <= 8 ? inl : d2_malloc((nargs + 1) * sizeof *v);
    if (!v)
        return d2_raise(I, "MemoryError", "out of memory");
    v[0] = self;
    memcpy(v + 1, args, nargs * sizeof *v);
    d2_obj *r = d2_call(I, fn, v, nargs + 1, kw);
    if (v != inl)
        d2_free(v);
    return r;
}

d2_obj *d2_call(d2_interp *I, d2_obj *callable, d2_obj **args, size_t nargs, d2_dict *kwargs)
{
    switch (callable->kind) {
    case D2_OBJ_FUNCTION:
        return d2i_call_function(I, D2_AS(d2_function, callable), NULL, args, nargs, kwargs);
    case D2_OBJ_BUILTIN: {
        d2_builtin *b = D2_AS(d2_builtin, callable);
        if (!b->self && callable->cls == I->st->method_descr) {
            /* unbound method descriptor: list.append(l, x) */
            if (nargs == 0)
                return d2_raise(I, "TypeError", "unbound method %s() needs an argument", b->name);
            return d2i_call_builtin(I, b, args[0], args + 1, nargs - 1, kwargs);
        }
        return d2i_call_builtin(I, b, b->self, args, nargs, kwargs);
    }
    case D2_OBJ_BOUND_METHOD: {
        d2_bound_method *m = D2_AS(d2_bound_method, callable);
        d2_obj *f = d2_incref(m->func), *s = d2_incref(m->self);
        d2_obj *r = d2i_call_with_self(I, f, s, args, nargs, kwargs);
        d2_decref(f);
        d2_decref(s);
        return r;
    }
    case D2_OBJ_CLASS:
        return d2i_type_call(I, D2_AS(d2_class, callable), args, nargs, kwargs);
    case D2_OBJ_STATICMETHOD:
    case D2_OBJ_CLASSMETHOD:
        return d2_call(I, D2_AS(d2_wrapper, callable)->func, args, nargs, kwargs);
    default:
        break;
    }
    d2_obj *m = d2i_mro_lookup(I, callable->cls, "__call__");
    if (m) {
        d2_incref(m);
        d2_obj *r = d2i_call_with_self(I, m, callable, args, nargs, kwargs);
        d2_decref(m);
        return r;
    }
    return d2_raise(I, "TypeError", "'%s' object is not callable", d2_type_name(callable));
}

d2_obj *d2_call_method(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                       d2_dict *kwargs)
{
    d2_obj *f = d2_getattr(I, o, name);
    if (!f)
        return NULL;
    d2_obj *r = d2_call(I, f, args, nargs, kwargs);
    d2_decref(f);
    return r;
}

static void name_list(d2_buf *b, const char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(b, n == 2 ? " and " : i + 1 == n ? ", and " : ", ");
        d2_buf_printf(b, "'%s'", names[i]);
    }
}

static int param_index(const d2_code *c, const char *name, int from)
{
    for (int i = from; i < c->nargs + c->nkwonly; i++)
        if (c->params[i][0] == name[0] && strcmp(c->params[i], name) == 0)
            return i;
    return -1;
}

/* Binds call arguments to the parameter slots of fast. */
static int bind_args(d2_interp *I, d2_function *f, d2_obj **fast, d2_obj *self, d2_obj **args,
                     size_t nargs, d2_dict *kw)
{
    const d2_code *c = f->code;
    size_t np = (size_t)c->nargs, total = nargs + (self ? 1 : 0);
#define ARG(i) (self ? ((i) == 0 ? self : args[(i)-1]) : args[(i)])
    size_t npos = total < np ? total : np;
    for (size_t i = 0; i < npos; i++)
        fast[i] = d2_incref(ARG(i));
    size_t ndef = f->defaults ? f->defaults->n : 0;
    if (total > np) {
        if (c->vararg_slot < 0) {
            if (ndef)
                d2_raise(I, "TypeError",
                         "%s() takes from %zu to %zu positional arguments but %zu %s given",
                         f->qualname, np - ndef, np, total, total == 1 ? "was" : "were");
            else
                d2_raise(I, "TypeError", "%s() takes %zu positional argument%s but %zu %s given",
                         f->qualname, np, np == 1 ? "" : "s", total, total == 1 ? "was" : "were");
            return -1;
        }
        d2_obj *t = d2_tuple_new(I, total - np);
        if (!t)
            return -1;
        D2_AS(d2_tuple, t)->n = total - np;
        for (size_t i = np; i < total; i++)
            D2_AS(d2_tuple, t)->items[i - np] = d2_incref(ARG(i));
        fast[c->vararg_slot] = t;
    } else if (c->vararg_slot >= 0) {
        fast[c->vararg_slot] = d2_tuple_new(I, 0);
        if (!fast[c->vararg_slot])
            return -1;
    }
#undef ARG
    d2_dict *kwd = NULL;
    if (c->kwarg_slot >= 0) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            return -1;
        fast[c->kwarg_slot] = d;
        kwd = D2_AS(d2_dict, d);
    }
    if (kw) {
        for (size_t i = 0; i < kw->n; i++) {
            d2_dict_entry *e = &kw->entries[i];
            if (!e->key)
                continue;
            if (e->key->kind != D2_OBJ_STR) {
                d2_raise(I, "TypeError", "%s() keywords must be strings", f->qualname);
                return -1;
            }
            const char *k = D2_AS(d2_str, e->key)->s;
            int idx = param_index(c, k, c->nposonly);
            if (idx >= 0) {
                if (fast[idx]) {
                    d2_raise(I, "TypeError", "%s() got multiple values for argument '%s'",
                             f->qualname, k);
                    return -1;
                }
                fast[idx] = d2_incref(e->value);
            } else if (kwd) {
                if (d2_dict_set_h(I, kwd, e->key, e->hash, e->value) < 0)
                    return -1;
            } else if (param_index(c, k, 0) >= 0) {
                d2_raise(
                    I, "TypeError",
                    "%s() got some positional-only arguments passed as keyword arguments: '%s'",
                    f->qualname, k);
                return -1;
            } else {
                d2_raise(I, "TypeError", "%s() got an unexpected keyword argument '%s'",
                         f->qualname, k);
                return -1;
            }
        }
    }
    if (ndef)
        for (size_t i = np - ndef; i < np; i++)
            if (!fast[i])
                fast[i] = d2_incref(f->defaults->items[i - (np - ndef)]);
    const char *missing[64];
    size_t nmiss = 0;
    for (size_t i = 0; i < np; i++)
        if (!fast[i] && nmiss < D2_COUNTOF(missing))
            missing[nmiss++] = c->params[i];
    if (nmiss) {
        d2_buf b;
        d2_buf_init(&b);
        name_list(&b, missing, nmiss);
        d2_raise(I, "TypeError", "%s() missing %zu required positional argument%s: %s", f->qualname,
                 nmiss, nmiss == 1 ? "" : "s", b.data ? b.data : "");
        d2_buf_free(&b);
        return -1;
    }
    for (int i = c->nargs; i < c->nargs + c->nkwonly; i++) {
        if (fast[i])
            continue;
        d2_obj *dv = f->kw_defaults ? d2_dict_get_str(I, f->kw_defaults, c->params[i]) : NULL;
        if (dv) {
            fast[i] = d2_incref(dv);
            continue;
        }
        if (nmiss < D2_COUNTOF(missing))
            missing[nmiss++] = c->params[i];
    }
    if (nmiss) {
        d2_buf b;
        d2_buf_init(&b);
        name_list(&b, missing, nmiss);
        d2_raise(I, "TypeError", "%s() missing %zu required keyword-only argument%s: %s",
                 f->qualname, nmiss, nmiss == 1 ? "" : "s", b.data ? b.data : "");
        d2_buf_free(&b);
        return -1;
    }
    return 0;
}

/* Fills the cell and free-variable slots of a new frame. closure holds the
 * cells in freevar order (a function's) or NULL to take them from parent. */
int d2i_setup_cells(d2_interp *I, const d2_code *c, d2_obj **fast, d2_dict *closure,
                    d2i_frame *parent)
{
    for (int i = 0; i < c->ncell_params; i++) {
        int s = c->cell_params[i];
        d2_obj *cell = cell_new(I, fast[s]);
        fast[s] = cell;
        if (!cell)
            return -1;
    }
    for (int i = 0; i < c->ncell_init; i++) {
        fast[c->cell_init[i]] = cell_new(I, NULL);
        if (!fast[c->cell_init[i]])
            return -1;
    }
    for (int i = 0; i < c->nfree; i++) {
        sym *fv = c->freevars[i];
        d2_obj *cell = NULL;
        if (closure) {
            if ((size_t)i < closure->n)
                cell = closure->entries[i].value;
        } else if (parent && parent->code) {
            sym *ps = code_find(parent->code, fv->name, fv->len, fv->hash);
            if (ps && ps->slot >= 0 && ps->res != R_LOCAL)
                cell = parent->fast[ps->slot];
        }
        if (!cell) {
            d2_raise(I, "SystemError", "no cell for free variable '%s'", fv->name);
            return -1;
        }
        fast[fv->slot] = d2_incref(cell);
    }
    return 0;
}

static d2_obj *generator_error(d2_interp *I, d2_function *f)
{
    d2_frame tmp = {.back = I->frame, .module = f->module, .func_name = f->name,
                    .span = f->code->yield_node->span};
    I->frame = &tmp;
    d2_raise(I, "NotImplementedError",
             "generator functions are not supported: '%s' uses yield", f->name);
    I->frame = tmp.back;
    return NULL;
}

d2_obj *d2i_call_function(d2_interp *I, d2_function *f, d2_obj *self, d2_obj **args,
                          size_t nargs, d2_dict *kw)
{
    const d2_code *c = f->code;
    if (c->yield_node)
        return generator_error(I, f);
    if (I->depth >= D2I_RECURSION_LIMIT)
        return d2_raise(I, "RecursionError", "maximum recursion depth exceeded");
    if (d2i_stack_check(I) < 0 || d2i_tick(I) < 0)
        return NULL;
    d2_obj *inl[16], **fast = inl;
    if (c->nslots > 16) {
        fast = d2_calloc((size_t)c->nslots, sizeof *fast);
        if (!fast)
            return d2_raise(I, "MemoryError", "out of memory");
    } else {
        memset(inl, 0, sizeof inl);
    }
    I->depth++;
    d2_obj *result = NULL;
    d2i_frame fr;
    memset(&fr, 0, sizeof fr);
    if (bind_args(I, f, fast, self, args, nargs, kw) == 0 &&
        d2i_setup_cells(I, c, fast, f->closure, NULL) == 0) {
        fr.pf = &fr.f;
        fr.f.module = f->module;
        fr.f.func_name = f->name;
        fr.f.span = f->def ? f->def->span : f->expr ? f->expr->span : (d2_span){0};
        fr.code = c;
        fr.unit = c->unit;
        fr.fast = fast;
        fr.globals = f->module->dict;
        fr.module = f->module;
        d2i_frame_push(I, &fr);
        if (f->expr) {
            result = d2i_eval(I, &fr, f->expr);
        } else {
            int x = d2i_exec_body(I, &fr, f->body);
            if (x == X_RETURN)
                result = fr.retval ? fr.retval : d2_none(I);
            else if (x != X_ERROR)
                result = d2_none(I);
            else
                d2_decref(fr.retval);
            fr.retval = NULL;
        }
        d2i_frame_pop(I, &fr);
    }
    I->depth--;
    for (int i = 0; i < c->nslots; i++)
        d2_decref(fast[i]);
    if (fast != inl)
        d2_free(fast);
    return result;
}

/* A function object for a def or lambda evaluated in fr. */
d2_obj *d2i_make_function(d2_interp *I, d2i_frame *fr, const void *node,
                          const d2_ast_arguments *args, const d2_ast_seq *body,
                          const d2_ast_expr *expr, const d2_ast_stmt *def)
{
    d2_code *c = pm_get(&fr->unit->names, node);
    if (!c)
        return d2_raise(I, "SystemError", "function was not analysed");
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_FUNCTION, NULL, sizeof(d2_function));
    if (!o)
        return NULL;
    d2_function *f = D2_AS(d2_function, o);
    f->name = c->name;
    f->qualname = c->qualname;
    f->args = args;
    f->body = body;
    f->expr = expr;
    f->def = def;
    f->code = c;
    f->is_generator = c->yield_node != NULL;
    f->module = D2_AS(d2_module, d2_incref((d2_obj *)fr->module));
    if (args->defaults.n) {
        d2_obj *t = d2_tuple_new(I, args->defaults.n);
        if (!t)
            goto fail;
        f->defaults = D2_AS(d2_tuple, t);
        for (uint32_t i = 0; i < args->defaults.n; i++) {
            d2_obj *v = d2i_eval(I, fr, args->defaults.items[i]);
            if (!v)
                goto fail;
            f->defaults->items[f->defaults->n++] = v;
        }
    }
    for (uint32_t i = 0; i < args->kw_defaults.n; i++) {
        const d2_ast_expr *de = args->kw_defaults.items[i];
        if (!de)
            continue;
        if (!f->kw_defaults) {
            d2_obj *d = d2_dict_new(I);
            if (!d)
                goto fail;
            f->kw_defaults = D2_AS(d2_dict, d);
        }
        d2_obj *v = d2i_eval(I, fr, de);
        if (!v)
            goto fail;
        int rc =
            d2_dict_set_str(I, f->kw_defaults, ((d2_ast_arg *)args->kwonlyargs.items[i])->arg, v);
        d2_decref(v);
        if (rc < 0)
            goto fail;
    }
    if (c->nfree) {
        d2_obj *d = d2_dict_new(I);
        if (!d)
            goto fail;
        f->closure = D2_AS(d2_dict, d);
        for (int i = 0; i < c->nfree; i++) {
            sym *fv = c->freevars[i];
            sym *ps = fr->code ? code_find(fr->code, fv->name, fv->len, fv->hash) : NULL;
            d2_obj *cell = ps && ps->slot >= 0 && ps->res != R_LOCAL && ps->res != R_NAME
                               ? fr->fast[ps->slot]
                               : NULL;
            if (!cell) {
                d2_raise(I, "SystemError", "no cell for free variable '%s'", fv->name);
                goto fail;
            }
            if (d2_dict_set_str(I, f->closure, fv->name, cell) < 0)
                goto fail;
        }
    }
    return o;
fail:
    d2_decref(o);
    return NULL;
}

/* Evaluates the call expression e. */
d2_obj *d2i_eval_call(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e)
{
    const d2_ast_expr *fe = e->call.func;
    d2_obj *fn = NULL, *self = NULL;
    if (fe->kind == D2_AST_ATTRIBUTE) {
        d2_obj *obj = d2i_eval(I, fr, fe->attribute.value);
        if (!obj)
            return NULL;
        fr->pf->span = fe->span;
        const char *name = fe->attribute.attr;
        const d2_type_hooks *hk = I->hooks[obj->kind];
        if (obj->kind != D2_OBJ_CLASS && obj->kind != D2_OBJ_MODULE && !(hk && hk->getattr) &&
            obj->cls != I->st->super) {
            size_t nlen = strlen(name);
            uint64_t h = d2i_hash_bytes(name, nlen);
            d2_obj *descr = d2i_mro_lookup_h(I, obj->cls, name, nlen, h);
            if (descr && (descr->kind == D2_OBJ_FUNCTION ||
                          (descr->kind == D2_OBJ_BUILTIN && descr->cls == I->st->method_descr &&
                           !D2_AS(d2_builtin, descr)->self))) {
                bool shadowed = obj->kind == D2_OBJ_INSTANCE &&
                                d2i_dict_get_cstr(D2_AS(d2_instance, obj)->dict, name, nlen, h);
                if (!shadowed) {
                    fn = d2_incref(descr);
                    self = obj;
                }
            }
        }
        if (!fn) {
            fn = d2_getattr(I, obj, name);
            d2_decref(obj);
            if (!fn)
                return NULL;
        }
    } else if (fe->kind == D2_AST_NAME && e->call.args.n == 0 && e->call.keywords.n == 0 &&
               strcmp(fe->name.id, "super") == 0) {
        fn = d2i_eval(I, fr, fe);
        if (!fn)
            return NULL;
        if (fn == (d2_obj *)I->st->super) {
            d2_decref(fn);
            fr->pf->span = e->span;
            sym *cs = fr->code ? code_lookup(fr->code, "__class__") : NULL;
            d2_obj *cls =
                cs && cs->slot >= 0 && fr->fast[cs->slot] && fr->fast[cs->slot]->kind == D2_OBJ_CELL
                    ? D2_AS(d2_cell, fr->fast[cs->slot])->value
                    : NULL;
            if (!cls || cls->kind != D2_OBJ_CLASS)
                return d2_raise(I, "RuntimeError", "super(): __class__ cell not found");
            d2_obj *first = NULL;
            if (fr->code->nargs > 0 && fr->fast[0]) {
                first = fr->fast[0];
                if (first->kind == D2_OBJ_CELL && fr->code->ncell_params &&
                    code_lookup(fr->code, fr->code->params[0])->res == R_CELL)
                    first = D2_AS(d2_cell, first)->value;
            } else if (fr->code->vararg_slot >= 0 && fr->fast[fr->code->vararg_slot] &&
                       D2_AS(d2_tuple, fr->fast[fr->code->vararg_slot])->n) {
                first = D2_AS(d2_tuple, fr->fast[fr->code->vararg_slot])->items[0];
            }
            if (!first)
                return d2_raise(I, "RuntimeError", "super(): no arguments");
            return d2i_super_new(I, D2_AS(d2_class, cls), first);
        }
    } else {
        fn = d2i_eval(I, fr, fe);
        if (!fn)
            return NULL;
    }
    argvec av;
    av_init(&av);
    d2_obj *kwo = NULL;
    d2_obj *result = NULL;
    if (d2i_eval_items(I, fr, &e->call.args, &av) < 0)
        goto out;
    if (e->call.keywords.n) {
        kwo = d2_dict_new(I);
        if (!kwo)
            goto out;
        d2_dict *kw = D2_AS(d2_dict, kwo);
        for (uint32_t i = 0; i < e->call.keywords.n; i++) {
            const d2_ast_keyword *k = e->call.keywords.items[i];
            d2_obj *v = d2i_eval(I, fr, k->value);
            if (!v)
                goto out;
            if (k->arg) {
                /* the keyword's name as a str, made once per call site */
                d2_obj *key = pm_get(&fr->unit->consts, k);
                if (key) {
                    d2_incref(key);
                } else {
                    key = d2_str_from(I, k->arg);
                    if (!key) {
                        d2_decref(v);
                        goto out;
                    }
                    if (d2i_pm_put(&fr->unit->consts, k, key) == 0)
                        d2_incref(key);
                }
                int rc = d2_dict_set_h(I, kw, key, D2_AS(d2_str, key)->hash, v);
                d2_decref(key);
                d2_decref(v);
                if (rc < 0)
                    goto out;
                continue;
            }
            fr->pf->span = k->span;
            if (v->kind != D2_OBJ_DICT || d2i_is_set(I, v)) {
                d2_obj *tmp = d2_dict_new(I);
                if (!tmp || d2_dict_merge(I, D2_AS(d2_dict, tmp), v) < 0) {
                    if (d2_exc_matches(I, d2_exc_class(I, "TypeError"))) {
                        d2_exc_clear(I);
                        d2_raise(I, "TypeError", "%s() argument after ** must be a mapping, not %s",
                                 callable_name(fn), d2_type_name(v));
                    }
                    d2_decref(tmp);
                    d2_decref(v);
                    goto out;
                }
                d2_decref(v);
                v = tmp;
            }
            d2_dict *src = D2_AS(d2_dict, v);
            for (size_t j = 0; j < src->n; j++) {
                d2_dict_entry *en = &src->entries[j];
                if (!en->key)
                    continue;
                if (en->key->kind != D2_OBJ_STR) {
                    d2_raise(I, "TypeError", "keywords must be strings");
                    d2_decref(v);
                    goto out;
                }
                if (d2i_dict_find(I, kw, en->key, en->hash) >= 0) {
                    d2_raise(I, "TypeError", "%s() got multiple values for keyword argument '%s'",
                             callable_name(fn), D2_AS(d2_str, en->key)->s);
                    d2_decref(v);
                    goto out;
                }
                if (d2_dict_set_h(I, kw, en->key, en->hash, en->value) < 0) {
                    d2_decref(v);
                    goto out;
                }
            }
            d2_decref(v);
        }
    }
    fr->pf->span = e->span;
    if (self)
        result = d2i_call_with_self(I, fn, self, av.v, av.n, kwo ? D2_AS(d2_dict, kwo) : NULL);
    else
        result = d2_call(I, fn, av.v, av.n, kwo ? D2_AS(d2_dict, kwo) : NULL);
    if (!result)
        fr->pf->span = e->span;
out:
    av_free(&av);
    d2_decref(kwo);
    d2_decref(fn);
    d2_decref(self);
    return result;
}

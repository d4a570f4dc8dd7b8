/* calls.c - the expression pass: calls, x.shape and assert to _jst helpers.
 *
 *   print(...)                      -> _jst.Print(...), an f-string argument
 *                                      f"a{y}" -> _jst.Fmt('a', y)
 *   len(x)                          -> _jst.Len(x)
 *   int(x), float(x), bool(x)       -> _jst.Cast(x, 'int'), ... 'float', 'bool'
 *   super() in converted control flow -> super(__class__, self)
 *   other builtins, calls through a library module (paddle, F, np, ...)
 *   and list mutators (x.append(v), ...) -> unchanged
 *   any other f(args)               -> _jst.Call(f)(args)
 *   x.shape (x not a library module) -> _jst.Shape(x)
 *   assert test, msg                -> _jst.Assert(test, msg)
 *   x[k] = v, x[k] op= v (x a local, an attribute of one, or a subscript of those)
 *                                   -> x = _jst.SetItem(x, k, v): a tensor's new value is
 *                                      an assignment that if/while carry
 *   x.name_(args) as a statement (x a local; an in-place method)
 *                                   -> x = _jst.Inplace(x, 'name_', args): the same for
 *                                      Tensor.add_, clip_, ...
 * xf_rewrite_block walks the statements, rewrite_expr the expressions
 * (innermost first); and/or/not and a if c else b go to logical.c, a for
 * loop's range/enumerate to loops.c. Nested functions and classes are left
 * alone: they are converted when called. */
#include "transform/transform_priv.h"

#include <string.h>

/* ---- rewrite: expressions into _jst helper calls ---- */

static const char *const builtin_names[] = {
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
    "classmethod", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
    "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "hex", "id",
    "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max",
    "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property",
    "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod",
    "str", "sum", "super", "tuple", "type", "vars", "zip",
};

static const char *const default_library_names[] = {"paddle", "F", "nn", "np", "numpy", "math"};

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool is_library_root(X *x, const char *root)
{
    if (strcmp(root, "_jst") == 0)
        return true;
    if (x->opt->library_names)
        return in_list(root, x->opt->library_names, x->opt->n_library_names);
    return in_list(root, default_library_names, D2_COUNTOF(default_library_names));
}

static d2_ast_expr *rewrite_expr(X *x, d2_ast_expr *e, int ctl);

/* Rewrites every expression below node (any kind) in place. */
static void rewrite_children(X *x, void *node, int ctl)
{
    const d2_ast_node *n = node;
    size_t nf;
    const d2_ast_field *fs = d2_ast_fields(n->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        char *p = (char *)node + fs[i].offset;
        if (fs[i].type == D2_AST_F_NODE || fs[i].type == D2_AST_F_OPT) {
            void **slot = (void **)p;
            if (!*slot)
                continue;
            if (d2_ast_is_expr(((d2_ast_node *)*slot)->kind))
                *slot = rewrite_expr(x, *slot, ctl);
            else
                rewrite_children(x, *slot, ctl);
        } else if (fs[i].type == D2_AST_F_SEQ) {
            d2_ast_seq *s = (d2_ast_seq *)p;
            for (uint32_t k = 0; k < s->n; k++) {
                if (!s->items[k])
                    continue;
                if (d2_ast_is_expr(((d2_ast_node *)s->items[k])->kind))
                    s->items[k] = rewrite_expr(x, s->items[k], ctl);
                else
                    rewrite_children(x, s->items[k], ctl);
            }
        }
    }
}

static bool plain_one_arg(const d2_ast_expr *e)
{
    return e->call.args.n == 1 && e->call.keywords.n == 0 &&
           ((const d2_ast_expr *)e->call.args.items[0])->kind != D2_AST_STARRED;
}

/* An f-string given to print, f"a{y}b" -> _jst.Fmt('a', y, 'b'), so that a
 * tensor in it prints at run time; others (with !r or a format spec) stay. */
static d2_ast_expr *print_fstring(X *x, d2_ast_expr *a)
{
    if (a->kind != D2_AST_JOINED_STR)
        return a;
    bool any = false;
    for (uint32_t i = 0; i < a->joined_str.values.n; i++) {
        const d2_ast_expr *v = a->joined_str.values.items[i];
        if (v->kind == D2_AST_FORMATTED_VALUE) {
            if (v->formatted_value.conversion != -1 || v->formatted_value.format_spec)
                return a;
            any = true;
        }
    }
    if (!any)
        return a;
    d2_ast_seq parts = {0, 0, NULL};
    for (uint32_t i = 0; i < a->joined_str.values.n; i++) {
        d2_ast_expr *v = a->joined_str.values.items[i];
        xf_push(x, &parts, v->kind == D2_AST_FORMATTED_VALUE ? v->formatted_value.value : v);
    }
    return xf_call(x, xf_jst(x, "Fmt", a->span), parts, a->span);
}

/* Calls: print(...) -> _jst.Print(...); len(x) -> _jst.Len(x);
 * int/float/bool(x) -> _jst.Cast(x, 'int'); builtins, library functions
 * and list mutators stay; any other f(args) -> _jst.Call(f)(args), so the
 * helper can convert user functions and layers on first call. A bare
 * super() inside converted control flow (which becomes a nested function)
 * gets its class and instance spelled out. */
static d2_ast_expr *rewrite_call(X *x, d2_ast_expr *e, int ctl)
{
    d2_ast_expr *f = e->call.func;
    d2_span sp = e->span;
    if (f->kind == D2_AST_NAME) {
        const char *id = f->name.id;
        if (strcmp(id, "print") == 0) {
            e->call.func = xf_jst(x, "Print", f->span);
            for (uint32_t i = 0; i < e->call.args.n; i++)
                e->call.args.items[i] = print_fstring(x, e->call.args.items[i]);
            return e;
        }
        if (strcmp(id, "len") == 0 && plain_one_arg(e))
            return xf_call1(x, xf_jst(x, "Len", sp), e->call.args.items[0], sp);
        if ((strcmp(id, "int") == 0 || strcmp(id, "float") == 0 || strcmp(id, "bool") == 0) &&
            plain_one_arg(e)) {
            d2_ast_seq args = {0, 0, NULL};
            xf_push(x, &args, e->call.args.items[0]);
            xf_push(x, &args, xf_str_const(x, id, f->span));
            return xf_call(x, xf_jst(x, "Cast", sp), args, sp);
        }
        if (strcmp(id, "super") == 0 && e->call.args.n == 0 && e->call.keywords.n == 0 && ctl > 0 &&
            x->self_name) {
            xf_push(x, &e->call.args, xf_name_load(x, "__class__", f->span));
            xf_push(x, &e->call.args, xf_name_load(x, x->self_name, f->span));
            return e;
        }
        if (in_list(id, builtin_names, D2_COUNTOF(builtin_names)) || is_library_root(x, id))
            return e;
    } else if (f->kind == D2_AST_ATTRIBUTE) {
        if (xf_is_mutator(f->attribute.attr))
            return e;
        const d2_ast_expr *root = f;
        while (root->kind == D2_AST_ATTRIBUTE)
            root = root->attribute.value;
        if (root->kind == D2_AST_NAME && is_library_root(x, root->name.id))
            return e;
    }
    e->call.func = xf_call1(x, xf_jst(x, "Call", f->span), f, f->span);
    return e;
}

static d2_ast_expr *rewrite_expr(X *x, d2_ast_expr *e, int ctl)
{
    rewrite_children(x, e, ctl);
    switch (e->kind) {
    case D2_AST_BOOL_OP: return xf_rewrite_bool_op(x, e);
    case D2_AST_UNARY_OP:
        if (e->unary_op.op == D2_UNARY_NOT)
            return xf_jst_not(x, e->unary_op.operand, e->span);
        return e;
    case D2_AST_IF_EXP: return xf_rewrite_if_exp(x, e);
    case D2_AST_CALL: return rewrite_call(x, e, ctl);
    case D2_AST_ATTRIBUTE:
        /* x.shape -> _jst.Shape(x): tensors for dynamic dims (not paddle.shape) */
        if (e->attribute.ctx == D2_CTX_LOAD && strcmp(e->attribute.attr, "shape") == 0) {
            const d2_ast_expr *root = e->attribute.value;
            while (root->kind == D2_AST_ATTRIBUTE)
                root = root->attribute.value;
            if (root->kind == D2_AST_NAME && is_library_root(x, root->name.id))
                return e;
            return xf_call1(x, xf_jst(x, "Shape", e->span), e->attribute.value, e->span);
        }
        return e;
    default: return e;
    }
}

/* ---- rewrite: stores into subscripts rebind their base ---- */

/* Whether a store into subscript target t can rebind its base: the base is a
 * local name, an attribute of one (self.buf[i]), or a subscript of those. */
static bool rebindable(X *x, const d2_ast_expr *t)
{
    if (t->kind != D2_AST_SUBSCRIPT)
        return false;
    const d2_ast_expr *e = t->subscript.value;
    while (e->kind == D2_AST_SUBSCRIPT || e->kind == D2_AST_ATTRIBUTE)
        e = e->kind == D2_AST_SUBSCRIPT ? e->subscript.value : e->attribute.value;
    return e->kind == D2_AST_NAME && xf_is_local(x, e->name.id);
}

/* e (a name, attribute or subscript) as a load or a store. */
static d2_ast_expr *with_ctx(X *x, const d2_ast_expr *e, d2_ast_ctx ctx)
{
    d2_ast_expr *c = xf_copy(x, e);
    if (c->kind == D2_AST_NAME)
        c->name.ctx = ctx;
    else if (c->kind == D2_AST_ATTRIBUTE)
        c->attribute.ctx = ctx;
    else if (c->kind == D2_AST_SUBSCRIPT)
        c->subscript.ctx = ctx;
    return c;
}

/* t = v with t a subscript: x[k] = v -> x = _jst.SetItem(x, k, v), through
 * nested subscripts (x[i][j] = v -> x = _jst.SetItem(x, i, _jst.SetItem(x[i], j, v))),
 * so a tensor's new value is a plain assignment that if/while carry. */
static d2_ast_stmt *rebind_store(X *x, const d2_ast_expr *t, d2_ast_expr *v, d2_span sp)
{
    while (t->kind == D2_AST_SUBSCRIPT) {
        d2_ast_seq args = {0, 0, NULL};
        xf_push(x, &args, with_ctx(x, t->subscript.value, D2_CTX_LOAD));
        xf_push(x, &args, xf_copy(x, t->subscript.slice));
        xf_push(x, &args, v);
        v = xf_call(x, xf_jst(x, "SetItem", t->span), args, t->span);
        t = t->subscript.value;
    }
    return xf_assign(x, with_ctx(x, t, D2_CTX_STORE), v, sp);
}

/* x[k] = v and x[k] op= v (the expressions already rewritten) rebinding x;
 * NULL when s is not one. */
static d2_ast_stmt *rewrite_subscript_store(X *x, d2_ast_stmt *s)
{
    if (s->kind == D2_AST_ASSIGN && s->assign.targets.n == 1 &&
        rebindable(x, s->assign.targets.items[0]))
        return rebind_store(x, s->assign.targets.items[0], s->assign.value, s->span);
    if (s->kind == D2_AST_AUG_ASSIGN && rebindable(x, s->aug_assign.target)) {
        d2_ast_expr *cur = with_ctx(x, s->aug_assign.target, D2_CTX_LOAD);
        d2_ast_expr *v = xf_chk(x, d2_ast_bin_op(x->a, cur, s->aug_assign.op, s->aug_assign.value,
                                                 s->span));
        return rebind_store(x, s->aug_assign.target, v, s->span);
    }
    return NULL;
}

/* x.name_(args) as a statement, x a local and name_ an in-place method name
 * (one trailing underscore): x = _jst.Inplace(x, 'name_', args, **kwargs);
 * NULL when s is not one. */
static d2_ast_stmt *rewrite_inplace_call(X *x, d2_ast_stmt *s, int ctl)
{
    if (s->kind != D2_AST_EXPR || s->expr.value->kind != D2_AST_CALL)
        return NULL;
    d2_ast_expr *call = s->expr.value, *f = call->call.func;
    if (f->kind != D2_AST_ATTRIBUTE || f->attribute.value->kind != D2_AST_NAME)
        return NULL;
    const char *attr = f->attribute.attr;
    size_t n = strlen(attr);
    if (n < 2 || attr[n - 1] != '_' || attr[n - 2] == '_' || attr[0] == '_')
        return NULL;
    /* xf_is_local caches the function's bound names on first use; later passes
     * add names (the jump flags), so a first use here must not leave a cache */
    bool cached = x->bound_ready;
    bool local = xf_is_local(x, f->attribute.value->name.id);
    if (!cached) {
        x->bound_ready = false;
        x->bound = (nameset){0, 0, NULL};
    }
    if (!local)
        return NULL;
    const char *id = f->attribute.value->name.id;
    d2_ast_seq args = {0, 0, NULL};
    xf_push(x, &args, xf_name_load(x, id, f->span));
    xf_push(x, &args, xf_str_const(x, attr, f->span));
    for (uint32_t k = 0; k < call->call.args.n; k++)
        xf_push(x, &args, rewrite_expr(x, call->call.args.items[k], ctl));
    for (uint32_t k = 0; k < call->call.keywords.n; k++) {
        d2_ast_keyword *kw = call->call.keywords.items[k];
        kw->value = rewrite_expr(x, kw->value, ctl);
    }
    d2_ast_expr *c = xf_call(x, xf_jst(x, "Inplace", call->span), args, call->span);
    c->call.keywords = call->call.keywords;
    return xf_assign(x, xf_name_store(x, id, s->span), c, s->span);
}

/* Rewrites the statements of b in place; ctl counts the enclosing
 * if/while/for statements. assert -> _jst.Assert(test, msg). Nested
 * functions and classes are left alone: they are converted when called. */
void xf_rewrite_block(X *x, d2_ast_seq *b, int ctl)
{
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_FUNCTION_DEF:
        case D2_AST_ASYNC_FUNCTION_DEF:
        case D2_AST_CLASS_DEF: break;
        case D2_AST_IF:
        case D2_AST_WHILE:
            s->if_.test = rewrite_expr(x, s->if_.test, ctl);
            xf_rewrite_block(x, &s->if_.body, ctl + 1);
            xf_rewrite_block(x, &s->if_.orelse, ctl + 1);
            break;
        case D2_AST_FOR:
            s->for_.target = rewrite_expr(x, s->for_.target, ctl);
            s->for_.iter = rewrite_expr(x, s->for_.iter, ctl);
            xf_rewrite_for_iter(x, s);
            xf_rewrite_block(x, &s->for_.body, ctl + 1);
            xf_rewrite_block(x, &s->for_.orelse, ctl + 1);
            break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                rewrite_children(x, s->with.items.items[k], ctl);
            xf_rewrite_block(x, &s->with.body, ctl);
            break;
        case D2_AST_ASSERT: {
            d2_ast_seq args = {0, 0, NULL};
            xf_push(x, &args, rewrite_expr(x, s->assert_.test, ctl));
            if (s->assert_.msg)
                xf_push(x, &args, rewrite_expr(x, s->assert_.msg, ctl));
            b->items[i] = xf_expr_stmt(x, xf_call(x, xf_jst(x, "Assert", s->span), args, s->span));
            break;
        }
        case D2_AST_ASSIGN:
        case D2_AST_AUG_ASSIGN: {
            rewrite_children(x, s, ctl);
            d2_ast_stmt *r = rewrite_subscript_store(x, s);
            if (r)
                b->items[i] = r;
            break;
        }
        case D2_AST_EXPR: {
            d2_ast_stmt *r = rewrite_inplace_call(x, s, ctl);
            if (r)
                b->items[i] = r;
            else
                rewrite_children(x, s, ctl);
            break;
        }
        default: rewrite_children(x, s, ctl); break;
        }
    }
}

/* transform.c - to_static's driver: the passes run on a function, `dy2st convert` on a module.
 *
 * The pipeline for one function (check reads the caller's tree; the other
 * passes work on a private deep copy of it, so it is never touched):
 *   check       unsupported syntax -> diagnostics and a fallback status
 *   rewrite     expressions: and/or/not, a if c else b, print, assert, casts,
 *               len, calls -> _jst helpers
 *   normalize   `if c: <exit>` followed by more statements moves them into
 *               the other branch, so exits end their block
 *   returns     return inside if/loops -> return flag and value
 *   exits       break/continue -> flags folded into loop tests and guards
 *   liveness    live variables after each if and at each loop head
 *   structure   if/while/for -> nested functions plus _jst.IfElse/While/For
 * Names the passes make (if_true_12, _break_20, ...) never clash with the
 * function's own names. Allocation failure anywhere longjmps back to
 * d2_xform_function, which reports it; nothing outside the transform's
 * files jumps.
 *
 * Where the passes live: check.c; rewrite in calls.c, with logical.c
 * (and/or/not, a if c else b) and loops.c (range, enumerate); normalize,
 * returns and exits in jumps.c; liveness in names.c, with the name sets,
 * traversal and fresh names every pass uses; structure here (the
 * dispatcher and the nested-function scaffolding), ifelse.c and loops.c.
 * nodes.c builds nodes and copies the input. */
#include "transform/transform_priv.h"
#include "syntax/unparse.h"

#include <stdio.h>
#include <string.h>

/* ---- structure: if/while/for to nested functions and helper calls ---- */

static d2_ast_seq structure_block(X *x, const d2_ast_seq *b, nameset *defined);

/* name = _jst.UndefinedVar('name') for each of vars not yet defined. */
void xf_undefined_inits(X *x, d2_ast_seq *out, const nameset *vars, nameset *defined, d2_span sp)
{
    for (uint32_t i = 0; i < vars->n; i++) {
        if (xf_set_has(defined, vars->v[i]))
            continue;
        d2_ast_expr *v =
            xf_call1(x, xf_jst(x, "UndefinedVar", sp), xf_str_const(x, vars->v[i], sp), sp);
        xf_push(x, out, xf_assign(x, xf_name_store(x, vars->v[i], sp), v, sp));
        xf_set_add(x, defined, vars->v[i]);
    }
}

/* The converted statements of a nested function's body: b converted with
 * params as the only local names defined so far, then `return` of the
 * packed results. */
d2_ast_seq xf_fn_body(X *x, const d2_ast_seq *b, const nameset *params, const nameset *results,
                      d2_ast_seq prologue, d2_span sp)
{
    nameset defined = xf_set_copy(x, params);
    for (uint32_t i = 0; i < prologue.n; i++)
        xf_names_of(x, prologue.items[i], NAMES_WRITES, &defined);
    d2_ast_seq body = structure_block(x, b, &defined);
    d2_ast_seq out = prologue;
    for (uint32_t i = 0; i < body.n; i++)
        xf_push(x, &out, body.items[i]);
    if (results->n)
        xf_push(x, &out, xf_chk(x, d2_ast_return(x->a, xf_packed(x, results, sp), sp)));
    return out;
}

/* The statement running the helper: `results = call` or just `call`. */
d2_ast_stmt *xf_run_helper(X *x, const nameset *results, d2_ast_expr *c, d2_span sp)
{
    if (results->n == 0)
        return xf_expr_stmt(x, c);
    return xf_assign(x, xf_packed_target(x, results, sp), c, sp);
}

/* Converts the control flow of b. defined: the local names assigned so
 * far in the function being built (updated). */
static d2_ast_seq structure_block(X *x, const d2_ast_seq *b, nameset *defined)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_IF: xf_structure_if(x, s, &out, defined); break;
        case D2_AST_WHILE: xf_structure_while(x, s, &out, defined); break;
        case D2_AST_FOR: xf_structure_for(x, s, &out, defined); break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                xf_names_of(x, s->with.items.items[k], NAMES_WRITES, defined);
            s->with.body = structure_block(x, &s->with.body, defined);
            xf_push(x, &out, s);
            break;
        default:
            xf_names_of(x, s, NAMES_WRITES, defined);
            xf_push(x, &out, s);
            break;
        }
    }
    return out;
}

/* ---- attributes assigned in if/loop bodies ---- */

typedef struct attr_ud {
    const nameset *written;
    xf_attrs *out;
    nameset *vars;
} attr_ud;

static bool attr_visit(X *x, const d2_ast_node *n, void *vud)
{
    attr_ud *ud = vud;
    if (n->kind == D2_AST_FUNCTION_DEF || n->kind == D2_AST_ASYNC_FUNCTION_DEF ||
        n->kind == D2_AST_CLASS_DEF || n->kind == D2_AST_LAMBDA)
        return true;
    if (n->kind != D2_AST_ATTRIBUTE)
        return false;
    const d2_ast_expr *e = (const d2_ast_expr *)n;
    if (e->attribute.ctx != D2_CTX_STORE || e->attribute.value->kind != D2_AST_NAME)
        return false;
    const char *obj = e->attribute.value->name.id, *attr = e->attribute.attr;
    if (xf_set_has(ud->written, obj))
        return false;
    xf_attrs *a = ud->out;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->obj[i], obj) == 0 && strcmp(a->attr[i], attr) == 0)
            return false;
    if (a->n == XF_MAX_ATTRS)
        return false;
    char base[200];
    snprintf(base, sizeof base, "_attr_%s_%s", obj, attr);
    a->obj[a->n] = obj;
    a->attr[a->n] = attr;
    a->syn[a->n] = xf_fresh(x, base);
    xf_set_add(x, ud->vars, a->syn[a->n]);
    a->n++;
    return false;
}

void xf_attr_stores(X *x, const d2_ast_seq *b1, const d2_ast_seq *b2, const nameset *written,
                    xf_attrs *out, nameset *vars)
{
    attr_ud ud = {written, out, vars};
    out->n = 0;
    for (int k = 0; k < 2; k++) {
        const d2_ast_seq *b = k ? b2 : b1;
        for (uint32_t i = 0; b && i < b->n; i++)
            xf_walk(x, b->items[i], attr_visit, &ud);
    }
}

void xf_attr_push(X *x, d2_ast_seq *s, const xf_attrs *a, bool get, d2_span sp)
{
    for (int i = 0; i < a->n; i++) {
        d2_ast_seq args = {0, 0, NULL};
        xf_push(x, &args, xf_name_load(x, a->obj[i], sp));
        xf_push(x, &args, xf_str_const(x, a->attr[i], sp));
        if (!get)
            xf_push(x, &args, xf_name_load(x, a->syn[i], sp));
        d2_ast_expr *c = xf_call(x, xf_jst(x, get ? "GetAttr" : "SetAttr", sp), args, sp);
        xf_push(x, s, get ? xf_assign(x, xf_name_store(x, a->syn[i], sp), c, sp)
                          : xf_expr_stmt(x, c));
    }
}

d2_ast_seq xf_attr_body(X *x, const d2_ast_seq *b, const xf_attrs *a, d2_span sp)
{
    d2_ast_seq r = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++)
        xf_push(x, &r, b->items[i]);
    xf_attr_push(x, &r, a, true, sp);
    return r;
}

/* ---- entry points ---- */

/* Whether decorator d names `name` (bare, dotted, or called). */
static bool decorator_is(const d2_ast_expr *d, const char *name)
{
    if (d->kind == D2_AST_CALL)
        d = d->call.func;
    if (d->kind == D2_AST_NAME)
        return strcmp(d->name.id, name) == 0;
    if (d->kind == D2_AST_ATTRIBUTE)
        return strcmp(d->attribute.attr, name) == 0;
    return false;
}

static bool has_decorator(const d2_ast_stmt *fn, const char *name)
{
    if (!fn || (fn->kind != D2_AST_FUNCTION_DEF && fn->kind != D2_AST_ASYNC_FUNCTION_DEF))
        return false;
    for (uint32_t i = 0; i < fn->function_def.decorator_list.n; i++)
        if (decorator_is(fn->function_def.decorator_list.items[i], name))
            return true;
    return false;
}

/* Paddle 1.x spelled to_static `declarative` (fluid.dygraph.declarative). */
bool d2_xform_is_to_static(const d2_ast_stmt *fn)
{
    return has_decorator(fn, "to_static") || has_decorator(fn, "declarative");
}

bool d2_xform_is_not_to_static(const d2_ast_stmt *fn) { return has_decorator(fn, "not_to_static"); }

static bool is_docstring(const d2_ast_stmt *s)
{
    return s->kind == D2_AST_EXPR && s->expr.value->kind == D2_AST_CONSTANT &&
           s->expr.value->constant.value.kind == D2_CONST_STR;
}

void xf_params_of(X *x, const d2_ast_arguments *a, nameset *s)
{
    for (uint32_t i = 0; i < a->posonlyargs.n; i++)
        xf_set_add(x, s, ((const d2_ast_arg *)a->posonlyargs.items[i])->arg);
    for (uint32_t i = 0; i < a->args.n; i++)
        xf_set_add(x, s, ((const d2_ast_arg *)a->args.items[i])->arg);
    for (uint32_t i = 0; i < a->kwonlyargs.n; i++)
        xf_set_add(x, s, ((const d2_ast_arg *)a->kwonlyargs.items[i])->arg);
    if (a->vararg)
        xf_set_add(x, s, a->vararg->arg);
    if (a->kwarg)
        xf_set_add(x, s, a->kwarg->arg);
}

/* The conversion proper; longjmps to x->oom when out of memory. */
static d2_xform_status convert(X *x, const d2_ast_stmt *fn, d2_ast_stmt **out)
{
    nameset written = xf_writes_of_block(x, &fn->function_def.body);
    if (fn->kind == D2_AST_ASYNC_FUNCTION_DEF)
        xf_unsupported(x, xf_keyword_span(fn->span, 5), "'async def' function cannot be converted",
                       NULL);
    xf_check_block(x, &fn->function_def.body, &written);
    if (x->problems)
        return x->opt->no_fallback ? D2_XFORM_ERROR : D2_XFORM_FALLBACK;

    d2_ast_stmt *f = xf_copy(x, fn);
    x->fn = f;
    xf_walk(x, f, xf_used_visit, NULL);
    xf_set_add(x, &x->used, "_jst");
    const d2_ast_arguments *args = f->function_def.args;
    if (args->posonlyargs.n)
        x->self_name = ((const d2_ast_arg *)args->posonlyargs.items[0])->arg;
    else if (args->args.n)
        x->self_name = ((const d2_ast_arg *)args->args.items[0])->arg;

    /* the docstring stays first and untouched */
    d2_ast_seq body = f->function_def.body, head = {0, 0, NULL};
    if (body.n && is_docstring(body.items[0])) {
        xf_push(x, &head, body.items[0]);
        body.items++;
        body.n--;
        body.cap = body.n;
    }

    xf_rewrite_block(x, &body, 0);
    xf_normalize_block(x, &body);
    if (xf_return_in_control(&body, false)) {
        /* falling off the end returns None: say so, where it happens */
        if (!xf_terminates(&body)) {
            xf_push(x, &body, xf_chk(x, d2_ast_return(x->a, NULL, f->span)));
            xf_normalize_block(x, &body);
        }
        x->ret_value = xf_fresh(x, "_return_value");
        if (xf_nontail_return(&body, true))
            x->ret_flag = xf_fresh(x, "_return_flag");
        d2_ast_seq nb = {0, 0, NULL};
        if (x->ret_flag)
            xf_push(x, &nb, xf_assign_flag(x, x->ret_flag, false, f->span));
        d2_ast_seq conv = xf_returns_block(x, &body, false, true);
        for (uint32_t i = 0; i < conv.n; i++)
            xf_push(x, &nb, conv.items[i]);
        xf_push(x, &nb,
                xf_chk(x, d2_ast_return(x->a, xf_name_load(x, x->ret_value, f->span), f->span)));
        body = nb;
    }
    body = xf_loops_block(x, &body);
    nameset none = {0, 0, NULL};
    xf_live_block(x, &body, &none);
    nameset defined = {0, 0, NULL};
    xf_params_of(x, args, &defined);
    body = structure_block(x, &body, &defined);

    for (uint32_t i = 0; i < body.n; i++)
        xf_push(x, &head, body.items[i]);
    f->function_def.body = head;
    d2_ast_seq decos = {0, 0, NULL};
    for (uint32_t i = 0; i < fn->function_def.decorator_list.n; i++) {
        d2_ast_expr *d = f->function_def.decorator_list.items[i];
        if (!decorator_is(d, "to_static") && !decorator_is(d, "declarative"))
            xf_push(x, &decos, d);
    }
    f->function_def.decorator_list = decos;
    *out = f;
    return D2_XFORM_OK;
}

d2_xform_status d2_xform_function(d2_arena *a, const d2_ast_stmt *fn, d2_diag *diag,
                                  const d2_xform_options *opt, d2_ast_stmt **out)
{
    static const d2_xform_options defaults = {false, NULL, 0};
    *out = NULL;
    if (!a || !fn || (fn->kind != D2_AST_FUNCTION_DEF && fn->kind != D2_AST_ASYNC_FUNCTION_DEF))
        return D2_XFORM_ERROR;
    if (d2_xform_is_not_to_static(fn)) {
        *out = (d2_ast_stmt *)fn;
        return D2_XFORM_OK;
    }
    X *x = d2_calloc(1, sizeof *x);
    if (!x)
        return D2_XFORM_ERROR;
    x->a = a;
    x->tmp = d2_arena_new();
    x->diag = diag;
    x->opt = opt ? opt : &defaults;
    x->fname = fn->function_def.name;
    d2_xform_status st = D2_XFORM_ERROR;
    if (x->tmp && !setjmp(x->oom))
        st = convert(x, fn, out);
    if (st == D2_XFORM_ERROR && x->problems == 0) {
        *out = NULL;
        if (diag)
            d2_diag_add(diag, D2_DIAG_ERROR, fn->span, "out of memory while converting %s()",
                        x->fname);
    }
    d2_arena_delete(x->tmp);
    d2_free(x);
    return st;
}

/* ---- dy2st convert ---- */

typedef struct conv_ctx {
    d2_arena *a;
    d2_diag *diag;
    const d2_xform_options *opt;
    d2_xform_status worst;
    bool failed; /* out of memory building the module */
} conv_ctx;

static void note_status(conv_ctx *c, d2_xform_status st)
{
    if (st == D2_XFORM_ERROR || (st == D2_XFORM_FALLBACK && c->worst == D2_XFORM_OK))
        c->worst = st;
}

/* b with each to_static function converted (recursing into classes);
 * statements are shared, changed ones are new. */
static d2_ast_seq convert_stmts(conv_ctx *c, const d2_ast_seq *b)
{
    d2_ast_seq out = {0, 0, NULL};
    for (uint32_t i = 0; i < b->n; i++) {
        d2_ast_stmt *s = b->items[i];
        if ((s->kind == D2_AST_FUNCTION_DEF || s->kind == D2_AST_ASYNC_FUNCTION_DEF) &&
            d2_xform_is_to_static(s) && !d2_xform_is_not_to_static(s)) {
            d2_ast_stmt *conv = NULL;
            d2_xform_status st = d2_xform_function(c->a, s, c->diag, c->opt, &conv);
            note_status(c, st);
            if (st == D2_XFORM_OK && conv)
                s = conv;
        } else if (s->kind == D2_AST_CLASS_DEF) {
            d2_ast_stmt *cls = d2_arena_alloc(c->a, sizeof *cls);
            if (!cls) {
                c->failed = true;
                break;
            }
            *cls = *s;
            cls->class_def.body = convert_stmts(c, &s->class_def.body);
            s = cls;
        }
        if (d2_ast_seq_push(c->a, &out, s) < 0) {
            c->failed = true;
            break;
        }
    }
    return out;
}

d2_xform_status d2_xform_convert_module(d2_arena *a, const d2_ast_module *m, const char *select,
                                        d2_diag *diag, const d2_xform_options *opt, d2_buf *out)
{
    if (!a || !m || !out)
        return D2_XFORM_ERROR;
    if (diag)
        d2_diag_set_source(diag, m->filename, m->source, m->source_len);
    conv_ctx c = {a, diag, opt, D2_XFORM_OK, false};
    d2_ast_seq picked = {0, 0, NULL};
    for (uint32_t i = 0; i < m->body.n; i++) {
        const d2_ast_stmt *s = m->body.items[i];
        const char *name = NULL;
        if (s->kind == D2_AST_FUNCTION_DEF || s->kind == D2_AST_ASYNC_FUNCTION_DEF)
            name = s->function_def.name;
        else if (s->kind == D2_AST_CLASS_DEF)
            name = s->class_def.name;
        if (select && (!name || strcmp(name, select) != 0))
            continue;
        if (d2_ast_seq_push(a, &picked, (void *)s) < 0)
            return D2_XFORM_ERROR;
    }
    if (select && picked.n == 0) {
        if (diag)
            d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0, 0, 0, 0, 0, 0},
                        "no function or class named '%s' in %s", select, m->filename);
        return D2_XFORM_ERROR;
    }
    d2_ast_module *nm = d2_arena_alloc(a, sizeof *nm);
    if (!nm)
        return D2_XFORM_ERROR;
    *nm = *m;
    nm->body = convert_stmts(&c, &picked);
    if (c.failed)
        return D2_XFORM_ERROR;
    d2_unparse(out, nm);
    if (out->len)
        d2_buf_puts(out, "\n");
    return out->oom ? D2_XFORM_ERROR : c.worst;
}

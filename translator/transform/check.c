/* check.c - syntax the transforms cannot convert: a fallback to tracing, or an error.
 *
 *   try, try*, match, async for, async with, yield, yield from, await,
 *   an assignment to a name declared global or nonlocal, nonlocal in a
 *   nested function, for ... else, while ... else
 *       -> a warning at the construct and D2_XFORM_FALLBACK (the function
 *          is traced instead), or with no_fallback an error and
 *          D2_XFORM_ERROR
 * The driver (transform.c) reports 'async def' the same way. */
#include "transform/transform_priv.h"

#include <stdio.h>
#include <string.h>

/* ---- check: syntax the transforms cannot convert ---- */

/* The span of the first k bytes of span (a keyword at its start). */
d2_span xf_keyword_span(d2_span sp, uint32_t k)
{
    d2_span r = sp;
    r.end_line = sp.line;
    r.end_col = sp.col + k;
    r.end = sp.start + k;
    return r;
}

void xf_unsupported(X *x, d2_span sp, const char *fmt, const char *arg)
{
    char what[256];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    x->problems++;
    if (!x->diag)
        return;
    if (x->opt->no_fallback)
        d2_diag_add(x->diag, D2_DIAG_ERROR, sp,
                    "%s; %s() cannot fall back to tracing because --no-fallback is set", what,
                    x->fname);
    else
        d2_diag_add(x->diag, D2_DIAG_WARNING, sp,
                    "%s; %s() is traced instead and its data-dependent branches are frozen", what,
                    x->fname);
}

/* The span of the `else` keyword of a loop whose else-block starts at
 * first, found in the diagnostics' source text; the loop's keyword when
 * the text is not at hand. */
static d2_span else_span(X *x, const d2_ast_stmt *loop, const d2_ast_stmt *first)
{
    const char *src = x->diag ? x->diag->src : NULL;
    if (src && first->span.start <= x->diag->len && loop->span.start < first->span.start) {
        for (size_t i = first->span.start; i >= loop->span.start + 4; i--) {
            const char *p = src + i - 4;
            if (memcmp(p, "else", 4) != 0 || (i - 4 > 0 && !memchr(" \t\n\r", p[-1], 4)))
                continue;
            size_t k = i;
            while (k < x->diag->len && (src[k] == ' ' || src[k] == '\t'))
                k++;
            if (k < x->diag->len && src[k] == ':')
                return d2_span_from_offsets(src, x->diag->len, i - 4, i);
        }
    }
    return xf_keyword_span(loop->span, loop->kind == D2_AST_FOR ? 3 : 5);
}

static bool check_expr_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    switch (n->kind) {
    case D2_AST_LAMBDA:
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF:
    case D2_AST_CLASS_DEF: return true;
    case D2_AST_YIELD: xf_unsupported(x, xf_keyword_span(n->span, 5), "'yield' cannot be converted", NULL); return true;
    case D2_AST_YIELD_FROM:
        xf_unsupported(x, xf_keyword_span(n->span, 5), "'yield from' cannot be converted", NULL);
        return true;
    case D2_AST_AWAIT: xf_unsupported(x, xf_keyword_span(n->span, 5), "'await' cannot be converted", NULL); return true;
    default: return false;
    }
}

/* nonlocal statements anywhere in a nested function */
static bool nested_nonlocal_visit(X *x, const d2_ast_node *n, void *ud)
{
    (void)ud;
    if (n->kind == D2_AST_NONLOCAL)
        xf_unsupported(x, xf_keyword_span(n->span, 8),
                       "'nonlocal' statement in a nested function cannot be converted", NULL);
    return false;
}

void xf_check_block(X *x, const d2_ast_seq *b, const nameset *written)
{
    for (uint32_t i = 0; i < b->n; i++) {
        const d2_ast_stmt *s = b->items[i];
        switch (s->kind) {
        case D2_AST_TRY:
        case D2_AST_TRY_STAR:
            xf_unsupported(x, xf_keyword_span(s->span, 3), "'try' statement cannot be converted",
                           NULL);
            continue;
        case D2_AST_MATCH:
            xf_unsupported(x, xf_keyword_span(s->span, 5), "'match' statement cannot be converted",
                           NULL);
            continue;
        case D2_AST_ASYNC_FOR:
            xf_unsupported(x, xf_keyword_span(s->span, 5), "'async for' statement cannot be converted", NULL);
            continue;
        case D2_AST_ASYNC_WITH:
            xf_unsupported(x, xf_keyword_span(s->span, 5), "'async with' statement cannot be converted", NULL);
            continue;
        case D2_AST_GLOBAL:
        case D2_AST_NONLOCAL:
            for (uint32_t k = 0; k < s->global.names.n; k++)
                if (xf_set_has(written, s->global.names.items[k]))
                    xf_unsupported(x, s->span,
                                   s->kind == D2_AST_GLOBAL
                                    ? "assignment to global variable '%s' cannot be converted"
                                    : "assignment to nonlocal variable '%s' cannot be converted",
                                   s->global.names.items[k]);
            continue;
        case D2_AST_FUNCTION_DEF:
        case D2_AST_ASYNC_FUNCTION_DEF:
        case D2_AST_CLASS_DEF: xf_walk(x, s, nested_nonlocal_visit, NULL); continue;
        case D2_AST_FOR:
        case D2_AST_WHILE: {
            const d2_ast_seq *orelse = s->kind == D2_AST_FOR ? &s->for_.orelse : &s->while_.orelse;
            if (orelse->n)
                xf_unsupported(x, else_span(x, s, orelse->items[0]),
                               s->kind == D2_AST_FOR ? "'for ... else' cannot be converted"
                                                  : "'while ... else' cannot be converted",
                               NULL);
            break;
        }
        default: break;
        }
        /* expressions of this statement (not those of nested blocks) */
        switch (s->kind) {
        case D2_AST_IF:
        case D2_AST_WHILE:
            xf_walk(x, s->if_.test, check_expr_visit, NULL);
            xf_check_block(x, &s->if_.body, written);
            xf_check_block(x, &s->if_.orelse, written);
            break;
        case D2_AST_FOR:
            xf_walk(x, s->for_.target, check_expr_visit, NULL);
            xf_walk(x, s->for_.iter, check_expr_visit, NULL);
            xf_check_block(x, &s->for_.body, written);
            xf_check_block(x, &s->for_.orelse, written);
            break;
        case D2_AST_WITH:
            for (uint32_t k = 0; k < s->with.items.n; k++)
                xf_walk(x, s->with.items.items[k], check_expr_visit, NULL);
            xf_check_block(x, &s->with.body, written);
            break;
        default: xf_walk(x, s, check_expr_visit, NULL); break;
        }
    }
}

/* cst.c - d2_ast_parse: tree-sitter's concrete tree of a Python file to dy2st's AST.
 *
 * d2_ast_parse checks the bytes (UTF-8, no NUL), parses with the
 * tree-sitter-python grammar, and then either reports the tree's first
 * ERROR or MISSING node as a compiler-style syntax error or converts the
 * tree node by node into the AST of ast.h, which matches CPython 3.11's
 * ast.parse (tests/golden/ast holds the proof). Where the grammar accepts
 * what CPython rejects (empty suites, bad indentation, Python 2 forms, bad
 * literals, bad targets), the converter reports CPython's error. Where the
 * grammar reads valid code differently from CPython, the converter repairs
 * the result: '&' binds tighter than '^' (binary_chain), unions in
 * annotations nest to the left (union_chain), "*a.b()" stars the whole
 * call (hoist_star), "x := a if b else c" assigns the conditional,
 * "except *E" is except*, "{x:=10}" in an f-string is a format spec, and
 * "type(x).y = 1" or "print >> f, x" are expressions (patch_keywords).
 *
 * This file holds the helpers every part uses, the syntax errors read off
 * the CST and the entry point; cst_stmt.c converts statements and blocks,
 * cst_expr.c expressions, targets, parameters and patterns, cst_literal.c
 * numbers and strings. cst_priv.h declares what they share. */
#include "syntax/cst_priv.h"
#include "syntax/pyparse.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>

const TSLanguage *tree_sitter_python(void);

/* ---- basics ---- */

static _Noreturn void oom(cx *c) { longjmp(c->jb, JUMP_OOM); }

void *cst_need(cx *c, void *p)
{
    if (!p)
        oom(c);
    return p;
}

_Noreturn void cst_fail(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_ERROR, sp, fmt, ap);
    va_end(ap);
    longjmp(c->jb, JUMP_ERROR);
}

void cst_warn(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_WARNING, sp, fmt, ap);
    va_end(ap);
}

int cst_T(const cx *c, TSNode n)
{
    TSSymbol s = ts_node_symbol(n);
    return s < c->nsym ? c->sym[s] : T_OTHER;
}

d2_span cst_span_of(TSNode n)
{
    TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
    d2_span sp = {s.row + 1, s.column, e.row + 1, e.column, ts_node_start_byte(n),
                  ts_node_end_byte(n)};
    return sp;
}

/* From the start of a to the end of b. */
d2_span cst_span_to(d2_span a, d2_span b)
{
    a.end_line = b.end_line;
    a.end_col = b.end_col;
    a.end = b.end;
    return a;
}

d2_span cst_span_bytes(cx *c, size_t start, size_t end)
{
    return d2_span_from_offsets(c->src, c->len, start, end);
}

kids cst_get_kids(cx *c, TSNode n)
{
    kids r = {NULL, 0};
    uint32_t cnt = ts_node_child_count(n);
    if (!cnt)
        return r;
    r.k = cst_need(c, d2_arena_alloc(c->a, cnt * sizeof(kid)));
    if (c->have_cur) {
        ts_tree_cursor_reset(&c->cur, n);
    } else {
        c->cur = ts_tree_cursor_new(n);
        c->have_cur = true;
    }
    TSTreeCursor *cur = &c->cur;
    if (ts_tree_cursor_goto_first_child(cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(cur);
            if (ts_node_is_extra(k) || r.n >= cnt)
                continue;
            r.k[r.n].n = k;
            r.k[r.n].t = cst_T(c, k);
            r.k[r.n].f = ts_tree_cursor_current_field_id(cur);
            r.n++;
        } while (ts_tree_cursor_goto_next_sibling(cur));
    }
    return r;
}

/* The first kid with field f, or NULL. */
kid *cst_kfield(cx *c, kids *ks, int f)
{
    for (uint32_t i = 0; i < ks->n; i++)
        if (ks->k[i].f && ks->k[i].f == c->fid[f])
            return &ks->k[i];
    return NULL;
}

bool cst_has_tok(kids *ks, int t)
{
    for (uint32_t i = 0; i < ks->n; i++)
        if (ks->k[i].t == t)
            return true;
    return false;
}

/* Named kids only (into a new list). */
kids cst_named(cx *c, kids *ks)
{
    kids r = {NULL, 0};
    if (!ks->n)
        return r;
    r.k = cst_need(c, d2_arena_alloc(c->a, ks->n * sizeof(kid)));
    for (uint32_t i = 0; i < ks->n; i++)
        if (ts_node_is_named(ks->k[i].n))
            r.k[r.n++] = ks->k[i];
    return r;
}

const char *cst_text(cx *c, TSNode n, size_t *len)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e > c->len)
        e = (uint32_t)c->len;
    if (s > e)
        s = e;
    *len = e - s;
    return c->src + s;
}

void cst_push(cx *c, d2_ast_seq *s, void *item)
{
    if (d2_ast_seq_push(c->a, s, item))
        oom(c);
}

d2_ast_expr *cst_new_expr(cx *c, d2_ast_kind k, d2_span sp)
{
    return cst_need(c, d2_ast_expr_new(c->a, k, sp));
}

d2_ast_stmt *cst_new_stmt(cx *c, d2_ast_kind k, d2_span sp)
{
    return cst_need(c, d2_ast_stmt_new(c->a, k, sp));
}

void *cst_new_node(cx *c, d2_ast_kind k, d2_span sp)
{
    return cst_need(c, d2_ast_node_new(c->a, k, sp));
}

/* Adds levels to the depth of the AST being built at n. */
void cst_deepen(cx *c, TSNode n, size_t levels)
{
    if ((size_t)c->ast_depth + levels > D2_AST_MAX_DEPTH) {
        d2_span sp = cst_span_of(n);
        cst_fail(c, cst_span_bytes(c, sp.start, sp.start),
                 "too deeply nested (more than %d levels)", D2_AST_MAX_DEPTH);
    }
    c->ast_depth += (int)levels;
}

/* Entering the conversion of node n one level deeper; leave() undoes it. */
void cst_enter(cx *c, TSNode n)
{
    if (++c->depth > MAX_DEPTH) {
        d2_span sp = cst_span_of(n);
        cst_fail(c, cst_span_bytes(c, sp.start, sp.start),
                 "too deeply nested (more than %d levels)", MAX_DEPTH);
    }
    cst_deepen(c, n, 1);
}

void cst_leave(cx *c)
{
    c->depth--;
    c->ast_depth--;
}

/* sp extended to the end of the last statement of body and a ';' right
 * after it (CPython ends a compound statement at the last token of its
 * suite); sp unchanged when body is empty. */
d2_span cst_end_at_last(cx *c, d2_span sp, const d2_ast_seq *body)
{
    if (!body->n)
        return sp;
    d2_span last = ((d2_ast_node *)body->items[body->n - 1])->span;
    size_t i = last.end;
    for (;;) {
        if (i < c->len && (c->src[i] == ' ' || c->src[i] == '\t' || c->src[i] == '\f'))
            i++;
        else if (i + 1 < c->len && c->src[i] == '\\' && c->src[i + 1] == '\n')
            i += 2;
        else
            break;
    }
    if (i < c->len && c->src[i] == ';')
        last = cst_span_bytes(c, last.end, i + 1);
    return cst_span_to(sp, last);
}

void cst_sb_add(cx *c, sbuf *b, const void *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = cst_need(c, d2_arena_realloc(c->a, b->p, b->cap, cap));
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void cst_sb_byte(cx *c, sbuf *b, unsigned ch)
{
    char ch8 = (char)ch;
    cst_sb_add(c, b, &ch8, 1);
}

/* Appends code point cp in UTF-8 (surrogates in the same 3-byte form). */
void cst_sb_utf8(cx *c, sbuf *b, uint32_t cp)
{
    unsigned char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | (cp >> 6));
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (cp >> 12));
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xF0 | (cp >> 18));
        u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    cst_sb_add(c, b, u, n);
}

const char *cst_sb_take(cx *c, sbuf *b)
{
    if (!b->p)
        b->p = cst_need(c, d2_arena_strndup(c->a, "", 0));
    return b->p;
}

/* Reads one code point of valid UTF-8 at s[*i] and advances *i. */
static uint32_t utf8_next(const char *s, size_t n, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp = u[*i];
    size_t extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
    cp &= extra == 3 ? 0x07 : extra == 2 ? 0x0F : extra == 1 ? 0x1F : 0x7F;
    (*i)++;
    for (size_t k = 0; k < extra && *i < n; k++)
        cp = (cp << 6) | (u[(*i)++] & 0x3Fu);
    return cp;
}

/* The NFKC compatibility mappings of identifier characters that occur in
 * practice (CPython normalises identifiers with full NFKC): fullwidth
 * ASCII, the micro sign, long s, Latin ligatures and mathematical
 * alphanumerics. Appends the mapping of cp to b. */
static void nfkc_char(cx *c, sbuf *b, uint32_t cp)
{
    static const char *const ligatures[] = {"ff", "fi", "fl", "ffi", "ffl", "st", "st"};
    if (cp >= 0xFF01 && cp <= 0xFF5E)
        cst_sb_byte(c, b, cp - 0xFEE0);
    else if (cp == 0xB5)
        cst_sb_utf8(c, b, 0x3BC);
    else if (cp == 0x17F)
        cst_sb_byte(c, b, 's');
    else if (cp >= 0xFB00 && cp <= 0xFB06)
        cst_sb_add(c, b, ligatures[cp - 0xFB00], strlen(ligatures[cp - 0xFB00]));
    else if (cp >= 0x1D400 && cp <= 0x1D6A3) {
        uint32_t k = (cp - 0x1D400) % 52;
        cst_sb_byte(c, b, k < 26 ? 'A' + k : 'a' + (k - 26));
    } else if (cp >= 0x1D7CE && cp <= 0x1D7FF)
        cst_sb_byte(c, b, '0' + (cp - 0x1D7CE) % 10);
    else
        cst_sb_utf8(c, b, cp);
}

const char *cst_ident(cx *c, TSNode n)
{
    size_t len;
    const char *s = cst_text(c, n, &len);
    size_t i = 0;
    while (i < len && (unsigned char)s[i] < 0x80)
        i++;
    if (i == len)
        return cst_need(c, d2_arena_strndup(c->a, s, len));
    sbuf b = {0};
    cst_sb_add(c, &b, s, i);
    while (i < len)
        nfkc_char(c, &b, utf8_next(s, len, &i));
    return cst_sb_take(c, &b);
}
/* ---- syntax errors reported from the CST ---- */

/* The first ERROR or MISSING node in document order (a null node if
 * none) and its parent (null for the root). */
static TSNode first_error(TSNode root, TSNode *parent)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    TSNode found = NULL_NODE;
    *parent = NULL_NODE;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (ts_node_is_missing(n) || strcmp(ts_node_type(n), "ERROR") == 0) {
            found = n;
            if (ts_tree_cursor_goto_parent(&cur))
                *parent = ts_tree_cursor_current_node(&cur);
            break;
        }
        if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = true;
            } else if (!ts_tree_cursor_goto_parent(&cur)) {
                break;
            }
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return found;
}

/* Leaves of n in order, into an arena array (for bracket matching). */
static void collect_leaves(cx *c, TSNode n, TSNode **out, uint32_t *count, uint32_t *cap)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    uint32_t depth = 0;
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&cur);
        if (ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        if (!ts_node_is_extra(x) || cst_T(c, x) != T_COMMENT) {
            if (*count == *cap) {
                uint32_t nc = *cap ? *cap * 2 : 64;
                TSNode *p = d2_arena_realloc(c->a, *out, *cap * sizeof(TSNode), nc * sizeof(TSNode));
                if (!p)
                    break;
                *out = p;
                *cap = nc;
            }
            (*out)[(*count)++] = x;
        }
        bool moved = false;
        while (!moved && depth > 0) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                moved = true;
            else if (ts_tree_cursor_goto_parent(&cur))
                depth--;
            else
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
}

static bool is_compound_keyword(const char *s, size_t n)
{
    static const char *const kw[] = {"if",  "elif", "else",    "for",   "while", "def",
                                     "class", "with", "try",   "except", "finally", "match",
                                     "case", "async"};
    for (size_t i = 0; i < D2_COUNTOF(kw); i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
            return true;
    return false;
}

static void syntax_error(cx *c, d2_span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void syntax_error(cx *c, d2_span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_vadd(c->diag, D2_DIAG_ERROR, sp, fmt, ap);
    va_end(ap);
}

/* Reports the first syntax error of the tree compiler style: the first
 * ERROR or MISSING node, refined by what it holds into the messages CPython
 * gives for the same mistakes. */
static void report_syntax_error(cx *c, TSNode root)
{
    TSNode parent;
    TSNode e = first_error(root, &parent);
    if (ts_node_is_null(e)) {
        syntax_error(c, cst_span_bytes(c, 0, 0), "invalid syntax");
        return;
    }
    int pt = ts_node_is_null(parent) ? T_MODULE : cst_T(c, parent);
    d2_span sp = cst_span_of(e);
    if (ts_node_is_missing(e)) {
        if (pt == T_INTERPOLATION || pt == T_FORMAT_EXPRESSION)
            syntax_error(c, sp, "f-string: empty expression not allowed");
        else if (ts_node_is_named(e))
            syntax_error(c, sp, "expected %s", ts_node_type(e));
        else
            syntax_error(c, sp, "expected '%s'", ts_node_type(e));
        return;
    }
    TSNode *leaves = NULL;
    uint32_t nl = 0, cap = 0;
    collect_leaves(c, e, &leaves, &nl, &cap);
    if (!nl) {
        syntax_error(c, sp, "invalid syntax");
        return;
    }
    d2_span first = cst_span_of(leaves[0]), last = cst_span_of(leaves[nl - 1]);
    int t0 = cst_T(c, leaves[0]);
    /* a string whose closing quote never came */
    if (t0 == T_STRING_START) {
        size_t len;
        const char *q = cst_text(c, leaves[0], &len);
        bool triple = len >= 3 && q[len - 1] == q[len - 2] && q[len - 2] == q[len - 3];
        size_t last_byte = c->len && c->src[c->len - 1] == '\n' ? c->len - 1 : c->len;
        d2_span eof = cst_span_bytes(c, last_byte, last_byte);
        if (triple)
            syntax_error(c, first, "unterminated triple-quoted string literal (detected at line %u)",
                         eof.line);
        else
            syntax_error(c, first, "unterminated string literal (detected at line %u)",
                         first.line);
        return;
    }
    if ((t0 == T_INTEGER || t0 == T_FLOAT) && nl == 1 && first.end < c->len &&
        (isalnum((unsigned char)c->src[first.end]) || c->src[first.end] == '_' ||
         c->src[first.end - 1] == '_')) {
        syntax_error(c, first, "invalid decimal literal");
        return;
    }
    /* unbalanced brackets explain most multi-line errors */
    uint32_t *stack = d2_arena_alloc(c->a, nl * sizeof(uint32_t));
    uint32_t depth = 0;
    for (uint32_t i = 0; stack && i < nl; i++) {
        int t = cst_T(c, leaves[i]);
        if (t == T_K_LPAREN || t == T_K_LBRACKET || t == T_K_LBRACE) {
            stack[depth++] = i;
        } else if (t == T_K_RPAREN || t == T_K_RBRACKET || t == T_K_RBRACE) {
            if (!depth) {
                syntax_error(c, cst_span_of(leaves[i]), "unmatched '%s'", ts_node_type(leaves[i]));
                return;
            }
            TSNode open = leaves[stack[depth - 1]];
            int ot = cst_T(c, open);
            bool match = (ot == T_K_LPAREN && t == T_K_RPAREN) ||
                         (ot == T_K_LBRACKET && t == T_K_RBRACKET) ||
                         (ot == T_K_LBRACE && t == T_K_RBRACE);
            if (!match) {
                syntax_error(c, cst_span_of(leaves[i]),
                             "closing parenthesis '%s' does not match opening parenthesis '%s'%s",
                             ts_node_type(leaves[i]), ts_node_type(open),
                             cst_span_of(open).line != cst_span_of(leaves[i]).line
                                 ? " on an earlier line"
                                 : "");
                return;
            }
            depth--;
        }
    }
    if (depth) {
        TSNode open = leaves[stack[0]];
        syntax_error(c, cst_span_of(open), "'%s' was never closed", ts_node_type(open));
        return;
    }
    size_t len;
    const char *s0 = cst_text(c, leaves[0], &len);
    /* "try:" and its suite with neither handler nor finally */
    if (len == 3 && memcmp(s0, "try", 3) == 0) {
        bool handler = false;
        for (uint32_t i = 0; i < nl; i++) {
            const char *w = cst_text(c, leaves[i], &len);
            if ((len == 6 && memcmp(w, "except", 6) == 0) || (len == 7 && memcmp(w, "finally", 7) == 0))
                handler = true;
        }
        if (!handler) {
            size_t after = ts_node_end_byte(e);
            /* after the suite: the node following the ':' */
            uint32_t nc = ts_node_child_count(e);
            for (uint32_t i = 0; i + 1 < nc && i < 8; i++)
                if (cst_T(c, ts_node_child(e, i)) == T_K_COLON) {
                    after = ts_node_end_byte(ts_node_child(e, i + 1));
                    break;
                }
            d2_span at = cst_missing_block_at(c, after);
            if (at.start >= c->len)
                at = cst_span_bytes(c, after, after);
            syntax_error(c, at, "expected 'except' or 'finally' block");
            return;
        }
    }
    /* a compound statement header without its colon */
    s0 = cst_text(c, leaves[0], &len);
    if (is_compound_keyword(s0, len) && nl > 1) {
        uint32_t lastk = 0;
        bool colon = false;
        for (uint32_t i = 0; i < nl && cst_span_of(leaves[i]).line == first.line; i++) {
            lastk = i;
            if (cst_T(c, leaves[i]) == T_K_COLON)
                colon = true;
        }
        if (!colon) {
            d2_span at = cst_span_of(leaves[lastk]);
            syntax_error(c, cst_span_bytes(c, at.end, at.end), "expected ':'");
            return;
        }
    }
    kids ks = cst_get_kids(c, e);
    /* "f() = 1": an assignment to something that cannot be assigned */
    if (ks.n == 2 && ks.k[1].t == T_K_EQUAL && ts_node_is_named(ks.k[0].n)) {
        int t = ks.k[0].t;
        if (t != T_IDENTIFIER && t != T_ATTRIBUTE && t != T_SUBSCRIPT && t != T_PATTERN_LIST &&
            t != T_TUPLE && t != T_LIST && t != T_EXPRESSION_LIST) {
            d2_ast_expr *x = cst_expr(c, ks.k[0].n);
            syntax_error(c, x->span, "cannot assign to %s here. Maybe you meant '==' instead of '='?",
                         cst_expr_name(x));
            return;
        }
    }
    /* two expressions side by side inside brackets */
    if ((pt == T_LIST || pt == T_TUPLE || pt == T_SET || pt == T_ARGUMENT_LIST ||
         pt == T_DICTIONARY || pt == T_PARENTHESIZED_EXPRESSION) &&
        ks.n && ts_node_is_named(ks.k[0].n)) {
        syntax_error(c, first, "invalid syntax. Perhaps you forgot a comma?");
        return;
    }
    /* an ERROR that swallowed a whole line: the line ended too early */
    if (nl > 1 && (pt == T_MODULE || pt == T_BLOCK)) {
        size_t i = last.end;
        while (i < c->len && (c->src[i] == ' ' || c->src[i] == '\t'))
            i++;
        if (i >= c->len || c->src[i] == '\n' || c->src[i] == '\r' || c->src[i] == '#') {
            syntax_error(c, cst_span_bytes(c, last.end, last.end), "invalid syntax");
            return;
        }
    }
    syntax_error(c, first, "invalid syntax");
}

/* The encoding named by a coding cookie in the first two lines, or NULL. */
static const char *coding_cookie(cx *c, size_t *len)
{
    size_t line_start = 0;
    for (int line = 0; line < 2 && line_start < c->len; line++) {
        size_t eol = line_start;
        while (eol < c->len && c->src[eol] != '\n')
            eol++;
        const char *l = c->src + line_start;
        size_t n = eol - line_start;
        size_t i = 0;
        while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\f'))
            i++;
        if (i < n && l[i] == '#') {
            for (; i + 7 < n; i++) {
                if (memcmp(l + i, "coding", 6) == 0 && (l[i + 6] == ':' || l[i + 6] == '=')) {
                    size_t j = i + 7;
                    while (j < n && (l[j] == ' ' || l[j] == '\t'))
                        j++;
                    size_t k = j;
                    while (k < n && (isalnum((unsigned char)l[k]) || strchr("-_.", l[k])))
                        k++;
                    *len = k - j;
                    return k > j ? l + j : NULL;
                }
            }
        }
        line_start = eol + 1;
    }
    return NULL;
}

/* CPython's tokenizer and compiler limits on nesting, checked before parsing,
 * so that a hostile source is refused with CPython's message at its position
 * instead of costing the parser unbounded work (its indentation scanner gives
 * up past 255 levels with a bare "invalid syntax"). */
#define MAX_INDENT 100 /* levels of indentation */
#define MAX_PARENS 200 /* open brackets */
#define MAX_BLOCKS 20  /* statically nested for/while/try/with */
/* Operators in one expression at one bracket level: each chain of them nests
 * the AST one level deeper per operator, so well past D2_AST_MAX_DEPTH of them
 * cannot convert; refusing them here keeps a megabyte-long `1+1+...` line from
 * being parsed into a tree first. */
#define MAX_OPERATORS (4 * D2_AST_MAX_DEPTH)

static bool nesting_error(cx *c, size_t at, const char *msg)
{
    d2_diag_add(c->diag, D2_DIAG_ERROR, cst_span_bytes(c, at, at), "%s", msg);
    return false;
}

/* Whether the logical line at s starts with a keyword whose body CPython
 * compiles as a block (a loop, try or with; async for and async with too). */
static bool opens_block(const char *s, size_t n)
{
    static const char *const kws[] = {"for", "while", "try", "with", "async"};
    for (size_t k = 0; k < D2_COUNTOF(kws); k++) {
        size_t l = strlen(kws[k]);
        if (n >= l && memcmp(s, kws[k], l) == 0 &&
            (n == l || !(isalnum((unsigned char)s[l]) || s[l] == '_' || (s[l] & 0x80))))
            return true;
    }
    return false;
}

/* Index just past the string literal whose quote is at i (or the end of a
 * line that leaves a short string open: the parser reports that). */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    char q = s[i];
    bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < n) {
        if (s[i] == '\\') {
            i += 2;
        } else if (s[i] == q && (!triple || (i + 2 < n && s[i + 1] == q && s[i + 2] == q))) {
            return i + (triple ? 3 : 1);
        } else if (!triple && s[i] == '\n') {
            return i;
        } else {
            i++;
        }
    }
    return n;
}

static bool check_nesting(cx *c)
{
    const char *s = c->src;
    size_t n = c->len, i = 0, ind[MAX_INDENT];
    bool blk[MAX_INDENT], opener = false, line_start = true;
    int nind = 0, nblk = 0, parens = 0;
    int ops[MAX_PARENS + 1] = {0}; /* operators since the last separator, by bracket level */
    while (i < n) {
        if (line_start && parens == 0) { /* a logical line: its indentation */
            line_start = false;
            ops[0] = 0;
            size_t col = 0;
            for (; i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'); i++)
                col = s[i] == ' ' ? col + 1 : s[i] == '\t' ? (col / 8 + 1) * 8 : 0;
            if (i >= n || s[i] == '\n' || s[i] == '\r' || s[i] == '#' || s[i] == '\\')
                continue; /* blank or comment-only lines do not indent */
            while (nind && col < ind[nind - 1])
                nblk -= blk[--nind];
            if (col > (nind ? ind[nind - 1] : 0)) {
                if (nind + 1 >= MAX_INDENT)
                    return nesting_error(c, i, "too many levels of indentation");
                blk[nind] = opener;
                nblk += opener;
                ind[nind++] = col;
            }
            opener = opens_block(s + i, n - i);
            if (opener && nblk >= MAX_BLOCKS)
                return nesting_error(c, i, "too many statically nested blocks");
            continue;
        }
        switch (s[i]) {
        case '#':
            while (i < n && s[i] != '\n')
                i++;
            break;
        case '\\':
            i += i + 1 < n && s[i + 1] == '\r' ? 3 : 2; /* a continuation line */
            break;
        case '\n':
            line_start = true;
            i++;
            break;
        case '(':
        case '[':
        case '{':
            if (parens >= MAX_PARENS)
                return nesting_error(c, i, "too many nested parentheses");
            ops[++parens] = 0;
            i++;
            break;
        case ')':
        case ']':
        case '}':
            parens -= parens > 0;
            i++;
            break;
        case ',':
        case ';':
        case ':':
        case '=':
            ops[parens] = 0;
            i++;
            break;
        case '+':
        case '-':
        case '*':
        case '/':
        case '%':
        case '@':
        case '|':
        case '&':
        case '^':
        case '<':
        case '>':
        case '~':
            if (++ops[parens] > MAX_OPERATORS)
                return nesting_error(c, i, "expression nested too deeply");
            i++;
            while (i < n && s[i] && strchr("*/<>=", s[i]))
                i++; /* the rest of a multi-character operator */
            break;
        case '\'':
        case '"':
            i = skip_string(s, n, i);
            break;
        default:
            i++;
        }
    }
    return true;
}

/* Rejects bytes CPython refuses before parsing: NULs and invalid UTF-8,
 * and non-ASCII text declared in another encoding than UTF-8 by a coding
 * cookie (dy2st reads UTF-8 only; ASCII reads the same in any of them). */
static bool check_encoding(cx *c)
{
    const unsigned char *s = (const unsigned char *)c->src;
    size_t clen;
    const char *cookie = coding_cookie(c, &clen);
    static const char *const utf8_names[] = {"utf-8", "utf8", "utf_8", "u8"};
    bool utf8 = !cookie;
    for (size_t k = 0; !utf8 && k < D2_COUNTOF(utf8_names); k++)
        utf8 = (clen == strlen(utf8_names[k]) ||
                (clen > strlen(utf8_names[k]) && cookie[strlen(utf8_names[k])] == '-')) &&
               strncasecmp(cookie, utf8_names[k], strlen(utf8_names[k])) == 0;
    if (!utf8) {
        for (size_t k = 0; k < c->len; k++) {
            if (s[k] >= 0x80) {
                d2_diag_add(c->diag, D2_DIAG_ERROR, cst_span_bytes(c, k, k + 1),
                            "source encoding '%.*s' is not supported (dy2st reads UTF-8)",
                            (int)clen, cookie);
                return false;
            }
        }
    }
    size_t i = 0;
    while (i < c->len) {
        unsigned ch = s[i];
        if (ch == 0) {
            d2_diag_add(c->diag, D2_DIAG_ERROR, cst_span_bytes(c, i, i + 1),
                        "source code cannot contain null bytes");
            return false;
        }
        if (ch < 0x80) {
            i++;
            continue;
        }
        size_t n = ch >= 0xF0 && ch <= 0xF4 ? 4 : ch >= 0xE0 && ch <= 0xEF ? 3
                                                : ch >= 0xC2 && ch <= 0xDF ? 2
                                                                           : 0;
        bool ok = n && i + n <= c->len;
        for (size_t k = 1; ok && k < n; k++)
            ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && n == 3) {
            uint32_t cp = ((ch & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
            ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
        } else if (ok && n == 4) {
            uint32_t cp = ((ch & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) |
                          ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
            ok = cp >= 0x10000 && cp <= 0x10FFFF;
        }
        if (!ok) {
            d2_diag_add(c->diag, D2_DIAG_ERROR, cst_span_bytes(c, i, i + 1),
                        "invalid UTF-8 byte 0x%02x in source", ch);
            return false;
        }
        i += n;
    }
    return true;
}

/* ---- entry point ---- */

/* The grammar's symbol and field ids mapped to the enums of cst_priv.h (so the
 * converter switches on integers, never on type names); computed once. */
#define MAX_SYMBOLS 1024
static uint16_t symbol_map[MAX_SYMBOLS];
static uint32_t symbol_count;
static TSFieldId field_map[F_COUNT];
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

/* A name's slot in init_maps' table (FNV-1a, open addressing). */
#define NAME_SLOTS 1024
static size_t name_slot(const char *s, bool named)
{
    uint32_t h = named ? 2166136261u : 84696351u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h & (NAME_SLOTS - 1);
}

/* Runs once per process, before the first parse: it is on the start-up path
 * of every command, so the grammar's symbols are found in a hash table of
 * CST_SYMBOLS' names rather than compared with each entry. */
static void init_maps(void)
{
    const TSLanguage *lang = tree_sitter_python();
    uint32_t nsym = ts_language_symbol_count(lang);
    if (nsym > MAX_SYMBOLS)
        return; /* symbol_count stays 0: d2_ast_parse reports it */
    static const struct {
        const char *name;
        bool named;
    } names[] = {
#define X(e, s, named) {s, named},
        CST_SYMBOLS(X)
#undef X
    };
    _Static_assert(D2_COUNTOF(names) < NAME_SLOTS / 2, "NAME_SLOTS too small");
    uint16_t slots[NAME_SLOTS] = {0}; /* 1 + an index in names; 0: empty */
    for (size_t i = 0; i < D2_COUNTOF(names); i++) {
        size_t h = name_slot(names[i].name, names[i].named);
        while (slots[h] && !(names[slots[h] - 1].named == names[i].named &&
                             strcmp(names[slots[h] - 1].name, names[i].name) == 0))
            h = (h + 1) & (NAME_SLOTS - 1);
        if (!slots[h]) /* a repeated name keeps its first entry */
            slots[h] = (uint16_t)(i + 1);
    }
    /* by name, so symbols that share a name (aliases) map the same way */
    for (TSSymbol k = 0; k < nsym; k++) {
        TSSymbolType type = ts_language_symbol_type(lang, k);
        const char *name = ts_language_symbol_name(lang, k);
        if (!name || (type != TSSymbolTypeRegular && type != TSSymbolTypeAnonymous))
            continue;
        bool named = type == TSSymbolTypeRegular;
        for (size_t h = name_slot(name, named); slots[h]; h = (h + 1) & (NAME_SLOTS - 1)) {
            if (names[slots[h] - 1].named == named && strcmp(names[slots[h] - 1].name, name) == 0) {
                symbol_map[k] = slots[h];
                break;
            }
        }
    }
    static const char *const fields[] = {
#define X(e, s) s,
        CST_FIELDS(X)
#undef X
    };
    for (size_t i = 0; i < F_COUNT; i++)
        field_map[i] = ts_language_field_id_for_name(lang, fields[i], (uint32_t)strlen(fields[i]));
    symbol_count = nsym;
}

static bool init_symbols(cx *c)
{
    pthread_once(&maps_once, init_maps);
    c->sym = symbol_map;
    c->nsym = symbol_count;
    memcpy(c->fid, field_map, sizeof c->fid);
    return symbol_count > 0;
}

/* module -> Module. */
static d2_ast_module *convert(cx *c, TSNode root)
{
    d2_ast_module *m = cst_new_node(c, D2_AST_MODULE, cst_span_of(root));
    kids all = cst_get_kids(c, root);
    kids ks = cst_named(c, &all); /* without the ';' separators */
    cst_check_indent(c, &ks, true);
    for (uint32_t i = 0; i < ks.n; i++)
        cst_push(c, &m->body, cst_stmt(c, ks.k[i].n));
    return m;
}

/* Whether a node of kind t can have statements below it (the only places
 * patch_keywords looks; expressions never hold one). Unknown kinds,
 * ERROR among them, are searched too. */
static bool holds_statements(int t)
{
    switch (t) {
    case T_MODULE: case T_BLOCK: case T_IF_STATEMENT: case T_ELIF_CLAUSE: case T_ELSE_CLAUSE:
    case T_FOR_STATEMENT: case T_WHILE_STATEMENT: case T_TRY_STATEMENT: case T_EXCEPT_CLAUSE:
    case T_EXCEPT_GROUP_CLAUSE: case T_FINALLY_CLAUSE: case T_WITH_STATEMENT:
    case T_FUNCTION_DEFINITION: case T_CLASS_DEFINITION: case T_DECORATED_DEFINITION:
    case T_MATCH_STATEMENT: case T_CASE_CLAUSE: case T_OTHER:
        return true;
    default:
        return false;
    }
}

/* Marks statements tree-sitter reads with a keyword where CPython 3.11
 * reads a name: "type(x).y = 1" (taken for a 3.12 type alias) and
 * "print >> f, x" (taken for a Python 2 print statement). The keyword's
 * first letter is upper-cased in patch, a private copy of the source, so a
 * second parse sees an identifier; names are still read from the original
 * text and positions do not move. Returns whether anything was patched. */
static bool patch_keywords(cx *c, TSNode root, char *patch)
{
    bool any = false;
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        int t = cst_T(c, n);
        size_t st = ts_node_start_byte(n);
        if (t == T_TYPE_ALIAS_STATEMENT && st + 4 < c->len && patch[st] == 't' &&
            !strchr(" \t\\", c->src[st + 4])) {
            patch[st] = 'T';
            any = true;
        } else if (t == T_PRINT_STATEMENT && patch[st] == 'p') {
            for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
                if (cst_T(c, ts_node_named_child(n, i)) == T_CHEVRON) {
                    patch[st] = 'P';
                    any = true;
                    break;
                }
            }
        }
        if (holds_statements(t) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                moved = true;
            else if (!ts_tree_cursor_goto_parent(&cur))
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return any;
}

/* Converts the tree (or reports its first syntax error); the one place
 * conversion errors and out-of-memory jump back to. */
static d2_ast_module *run(cx *c, TSNode root, const char *filename)
{
    int jumped = setjmp(c->jb);
    if (jumped == JUMP_OOM)
        c->diag->oom = true;
    if (jumped)
        return NULL;
    if (ts_node_has_error(root)) {
        report_syntax_error(c, root);
        return NULL;
    }
    d2_ast_module *m = convert(c, root);
    m->filename = cst_need(c, d2_arena_strdup(c->a, filename ? filename : "<input>"));
    m->source = cst_need(c, d2_arena_strndup(c->a, c->src, c->len));
    m->source_len = c->len;
    return m;
}

/* One idle parser kept for the next parse (creating one costs about as much
 * as parsing a short function). Taken and given back atomically, so threads
 * that parse at once each get their own; a second one given back is deleted. */
static _Atomic(TSParser *) idle_parser;

static TSParser *take_parser(void)
{
    TSParser *p = atomic_exchange(&idle_parser, NULL);
    return p ? p : ts_parser_new();
}

static void give_parser(TSParser *p)
{
    TSParser *none = NULL;
    ts_parser_reset(p);
    if (!atomic_compare_exchange_strong(&idle_parser, &none, p))
        ts_parser_delete(p);
}

/* Whether DY2ST_PARSER=treesitter turns the fast path off; read once. */
static bool fast_path_off;
static pthread_once_t parser_env_once = PTHREAD_ONCE_INIT;
static void read_parser_env(void)
{
    const char *v = getenv("DY2ST_PARSER");
    fast_path_off = v && strcmp(v, "treesitter") == 0;
}

static d2_ast_module *parse(d2_arena *a, const char *filename, const char *src, size_t len,
                            d2_diag *diag, bool fast);

d2_ast_module *d2_ast_parse(d2_arena *a, const char *filename, const char *src, size_t len,
                            d2_diag *diag)
{
    pthread_once(&parser_env_once, read_parser_env);
    return parse(a, filename, src, len, diag, !fast_path_off);
}

d2_ast_module *d2_ast_parse_treesitter(d2_arena *a, const char *filename, const char *src,
                                       size_t len, d2_diag *diag)
{
    return parse(a, filename, src, len, diag, false);
}

/* d2_ast_parse; with fast, d2_pyparse is tried first and tree-sitter only
 * runs where it gives up. */
static d2_ast_module *parse(d2_arena *a, const char *filename, const char *src, size_t len,
                            d2_diag *diag, bool fast)
{
    d2_diag local;
    if (!diag) {
        d2_diag_init(&local, a);
        diag = &local;
    }
    if (!src) {
        src = "";
        len = 0;
    }
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        /* a UTF-8 byte order mark is not part of the source, as in CPython */
        src += 3;
        len -= 3;
    }
    d2_diag_set_source(diag, filename, src, len);
    size_t errors_before = diag->nerrors;
    cx *c = d2_arena_alloc(a, sizeof(cx));
    if (!c) {
        diag->oom = true;
        return NULL;
    }
    c->a = a;
    c->diag = diag;
    c->src = src;
    c->len = len;
    if (len > UINT32_MAX / 2) {
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "source file too large");
        return NULL;
    }
    if (!check_encoding(c) || !check_nesting(c))
        return NULL;
    if (fast) {
        d2_ast_module *m = d2_pyparse(a, filename, c->src, len);
        if (m)
            return m;
    }
    const TSLanguage *lang = tree_sitter_python();
    if (!init_symbols(c)) {
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "cannot load the Python grammar");
        return NULL;
    }
    TSParser *parser = take_parser();
    if (!ts_parser_set_language(parser, lang)) {
        ts_parser_delete(parser);
        d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "cannot load the Python grammar");
        return NULL;
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, c->src, (uint32_t)len);
    char *patch = NULL;
    for (int pass = 0; tree && pass < 8; pass++) {
        if (!patch && !(patch = d2_arena_strndup(a, c->src, len))) {
            diag->oom = true;
            break;
        }
        if (!patch_keywords(c, ts_tree_root_node(tree), patch))
            break;
        ts_tree_delete(tree);
        tree = ts_parser_parse_string(parser, NULL, patch, (uint32_t)len);
    }
    give_parser(parser);
    if (!tree || diag->oom) {
        if (tree)
            ts_tree_delete(tree);
        else
            d2_diag_add(diag, D2_DIAG_ERROR, (d2_span){0}, "parsing failed");
        return NULL;
    }
    d2_ast_module *m = run(c, ts_tree_root_node(tree), filename);
    if (c->have_cur)
        ts_tree_cursor_delete(&c->cur);
    ts_tree_delete(tree);
    if (diag->nerrors > errors_before || diag->oom || d2_arena_oom(a))
        return NULL;
    return m;
}

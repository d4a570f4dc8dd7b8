/* pyparse.c - d2_pyparse: a hand-written tokenizer and recursive-descent parser from Python text to the AST.
 *
 * The fast path of d2_ast_parse: it reads the common forms of Python 3
 * source straight into the AST of ast.h, with the node kinds, fields and
 * spans the tree-sitter path (cst*.c) gives them, without building a
 * concrete tree. It knows no error messages: on anything it does not
 * accept (a syntax error, a construct it does not implement, a literal that
 * would be refused or warned about) it gives up and d2_ast_parse runs the
 * tree-sitter path, which reports. Numbers and string escapes are decoded
 * by cst_literal.c's helpers, through a context whose diagnostics go to a
 * private list that is only looked at to decide whether to give up.
 * tests/translator/test_pyparse.c checks both paths agree on every Python
 * file of the repository. */
#include "syntax/pyparse.h"

#include "syntax/cst_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest recursion of the parser before it gives up (the tree-sitter path
 * then reports or converts). */
#define PP_MAX_DEPTH 400
/* Longest left-nested chain of binary operators or trailers accepted. */
#define PP_MAX_CHAIN 1000

enum { K_NAME, K_NUM, K_STR, K_OP, K_NL, K_INDENT, K_DEDENT, K_END };

/* code: a NAME's or operator's text of up to 8 bytes packed into an
 * integer (pack()), 0 for a longer one, so that the parser compares tokens
 * with a literal without touching the text; kw: whether a NAME is a
 * keyword. */
typedef struct tok {
    uint8_t kind, kw;
    uint64_t code;
    uint32_t start, end;
    uint32_t line, col, eline, ecol;
} tok;

/* A token array: the file's in malloc'd memory, an f-string field's in the
 * arena (so giving up never leaves one behind). */
typedef struct toks {
    tok *t;
    size_t n, cap;
    d2_arena *arena;
} toks;

typedef struct pp {
    cx c; /* for cst_literal.c's helpers; its diag is scratch */
    d2_diag scratch;
    const char *s;
    size_t n;
    tok *t; /* the token stream being parsed */
    size_t i, nt;
    int depth;
    toks main;
    uint64_t kwcode[40]; /* pack() of each of keywords[] */
    uint64_t bincode[12]; /* pack() of each of binops[] */
} pp;

/* Gives up. DY2ST_PYPARSE_DEBUG=1 says where, for finding what the parser
 * lacks. */
static _Noreturn void fail_at(pp *p, int line)
{
    if (getenv("DY2ST_PYPARSE_DEBUG")) {
        size_t at = p->t && p->i < p->nt ? p->t[p->i].start : 0;
        fprintf(stderr, "pyparse: gave up (pyparse.c:%d) at byte %zu: %.30s\n", line, at, p->s + at);
    }
    longjmp(p->c.jb, JUMP_ERROR);
}
#define fail(p) fail_at(p, __LINE__)

/* ---- tokenizer ---- */

/* The first 8 bytes of s packed little-end first (folds to a constant for a
 * literal). */
static inline uint64_t pack(const char *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8 && s[i]; i++)
        v |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return v;
}

static uint64_t pack_n(const char *s, size_t n)
{
    uint64_t v = 0;
    if (n > 8)
        return 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return v;
}

static const char *const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield", NULL};


static void emit(pp *p, toks *ts, int kind, size_t st, size_t en, uint32_t line, size_t ls,
                 uint32_t eline, size_t els)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : ts->arena ? 16 : 256;
        tok *nt = ts->arena ? d2_arena_realloc(ts->arena, ts->t, ts->cap * sizeof *nt,
                                               cap * sizeof *nt)
                            : realloc(ts->t, cap * sizeof *nt);
        if (!nt)
            fail(p);
        ts->t = nt;
        ts->cap = cap;
    }
    tok *t = &ts->t[ts->n++];
    t->kind = (uint8_t)kind;
    t->start = (uint32_t)st;
    t->end = (uint32_t)en;
    t->line = line;
    t->col = (uint32_t)(st - ls);
    t->eline = eline;
    t->ecol = (uint32_t)(en - els);
    t->code = kind == K_NAME || kind == K_OP ? pack_n(p->s + st, en - st) : 0;
    t->kw = 0;
    if (kind == K_NAME && t->code && en - st >= 2)
        for (int k = 0; keywords[k]; k++)
            if (p->kwcode[k] == t->code) {
                t->kw = 1;
                break;
            }
}

static bool id_start(unsigned char ch) { return ch == '_' || ((ch | 32) >= 'a' && (ch | 32) <= 'z'); }
static bool id_char(unsigned char ch) { return id_start(ch) || (ch >= '0' && ch <= '9'); }

/* Index just past the string whose opening quote is at i, counting lines;
 * gives up on an unterminated string. */
static size_t scan_string(pp *p, size_t i, size_t lim, uint32_t *line, size_t *ls)
{
    const char *s = p->s;
    char q = s[i];
    bool triple = i + 2 < lim && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < lim) {
        char ch = s[i];
        if (ch == '\\') {
            if (i + 1 < lim && s[i + 1] == '\n') {
                (*line)++;
                *ls = i + 2;
            } else if (i + 1 < lim && s[i + 1] == '\r') {
                fail(p);
            }
            i += 2;
        } else if (ch == q && (!triple || (i + 2 < lim && s[i + 1] == q && s[i + 2] == q))) {
            return i + (triple ? 3 : 1);
        } else if (ch == '\n') {
            if (!triple)
                fail(p);
            (*line)++;
            *ls = ++i;
        } else if (ch == '\r') {
            fail(p);
        } else {
            i++;
        }
    }
    fail(p);
}

/* Whether the line starting at i, a continuation inside brackets or after a
 * backslash, begins left of the block's indentation ind (tree-sitter's
 * scanner reads such a line as a dedent, where CPython does not). */
static bool below_indent(const char *s, size_t i, size_t lim, uint32_t ind)
{
    uint32_t col = 0;
    for (; i < lim && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'); i++)
        col = s[i] == ' ' ? col + 1 : s[i] == '\t' ? (col / 8 + 1) * 8 : 0;
    return col < ind && i < lim;
}

static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char *const ops2[] = {"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=",
                                   "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", NULL};

/* Tokenizes s[from, lim) starting at line/line-start ls. With inner set the
 * text is inside brackets (an f-string field): no NEWLINE or INDENT. */
static void tokenize(pp *p, toks *ts, size_t from, size_t lim, uint32_t line, size_t ls,
                     bool inner)
{
    const char *s = p->s;
    size_t i = from;
    int depth = inner ? 1 : 0;
    uint32_t ind8[128], ind1[128];
    int nind = 1;
    ind8[0] = ind1[0] = 0;
    bool bol = !inner;
    while (i < lim) {
        if (bol) {
            bol = false;
            uint32_t c8 = 0, c1 = 0;
            size_t j = i;
            for (; j < lim && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f'); j++) {
                if (s[j] == ' ')
                    c8++, c1++;
                else if (s[j] == '\t')
                    c8 = (c8 / 8 + 1) * 8, c1++;
                else
                    c8 = c1 = 0;
            }
            if (j >= lim || s[j] == '#' || s[j] == '\n' || (s[j] == '\r' && j + 1 < lim && s[j + 1] == '\n')) {
                /* a blank or comment line */
                while (j < lim && s[j] != '\n')
                    j++;
                if (j < lim) {
                    line++;
                    ls = j + 1;
                    bol = true;
                }
                i = j + (j < lim);
                continue;
            }
            if (s[j] == '\\')
                fail(p);
            if (c8 > ind8[nind - 1]) {
                if (c1 <= ind1[nind - 1] || nind >= 100)
                    fail(p);
                ind8[nind] = c8;
                ind1[nind++] = c1;
                emit(p, ts, K_INDENT, j, j, line, ls, line, ls);
            } else {
                while (c8 < ind8[nind - 1]) {
                    nind--;
                    emit(p, ts, K_DEDENT, j, j, line, ls, line, ls);
                }
                if (c8 != ind8[nind - 1] || c1 != ind1[nind - 1])
                    fail(p);
            }
            i = j;
        }
        unsigned char ch = (unsigned char)s[i];
        if (ch == ' ' || ch == '\t' || ch == '\f') {
            i++;
        } else if (ch == '#') {
            while (i < lim && s[i] != '\n')
                i++;
        } else if (ch == '\\') {
            if (i + 1 < lim && s[i + 1] == '\n') {
                i += 2;
                line++;
                ls = i;
            } else if (i + 2 < lim && s[i + 1] == '\r' && s[i + 2] == '\n') {
                i += 3;
                line++;
                ls = i;
            } else {
                fail(p);
            }
            if (!inner && below_indent(s, i, lim, ind8[nind - 1]))
                fail(p);
        } else if (ch == '\n' || ch == '\r') {
            if (ch == '\r' && !(i + 1 < lim && s[i + 1] == '\n'))
                fail(p);
            size_t nl = i;
            i += ch == '\r' ? 2 : 1;
            if (depth == 0 && ts->n && ts->t[ts->n - 1].kind != K_NL)
                emit(p, ts, K_NL, nl, nl, line, ls, line, ls);
            line++;
            ls = i;
            if (depth == 0)
                bol = true;
            else if (!inner && below_indent(s, i, lim, ind8[nind - 1]))
                fail(p);
        } else if (id_start(ch)) {
            size_t j = i;
            while (j < lim && id_char((unsigned char)s[j]))
                j++;
            if (j < lim && (unsigned char)s[j] >= 0x80)
                fail(p);
            if (j < lim && (s[j] == '\'' || s[j] == '"') && j - i <= 2) {
                bool ok = true;
                for (size_t k = i; k < j; k++)
                    ok &= strchr("rRbBuUfF", s[k]) != NULL;
                if (ok) {
                    uint32_t l0 = line;
                    size_t ls0 = ls;
                    size_t e = scan_string(p, j, lim, &line, &ls);
                    emit(p, ts, K_STR, i, e, l0, ls0, line, ls);
                    i = e;
                    continue;
                }
            }
            emit(p, ts, K_NAME, i, j, line, ls, line, ls);
            i = j;
        } else if ((ch >= '0' && ch <= '9') || (ch == '.' && i + 1 < lim && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            size_t j = i;
            bool hex = ch == '0' && i + 1 < lim && (s[i + 1] | 32) == 'x';
            while (j < lim) {
                unsigned char d = (unsigned char)s[j];
                if (id_char(d) || d == '.') {
                    j++;
                    if (!hex && (d | 32) == 'e' && j < lim && (s[j] == '+' || s[j] == '-'))
                        j++;
                } else {
                    break;
                }
            }
            emit(p, ts, K_NUM, i, j, line, ls, line, ls);
            i = j;
        } else if (ch == '\'' || ch == '"') {
            uint32_t l0 = line;
            size_t ls0 = ls;
            size_t e = scan_string(p, i, lim, &line, &ls);
            emit(p, ts, K_STR, i, e, l0, ls0, line, ls);
            i = e;
        } else {
            size_t len = 0;
            for (int k = 0; !len && ops3[k]; k++)
                if (i + 3 <= lim && memcmp(s + i, ops3[k], 3) == 0)
                    len = 3;
            for (int k = 0; !len && ops2[k]; k++)
                if (i + 2 <= lim && memcmp(s + i, ops2[k], 2) == 0)
                    len = 2;
            if (!len) {
                if (!ch || !strchr("+-*/%@&|^~<>()[]{},:;.=", ch))
                    fail(p);
                len = 1;
                if (ch == '(' || ch == '[' || ch == '{') {
                    depth++;
                } else if (ch == ')' || ch == ']' || ch == '}') {
                    if (--depth < (inner ? 1 : 0))
                        fail(p);
                }
            }
            emit(p, ts, K_OP, i, i + len, line, ls, line, ls);
            i += len;
        }
    }
    if (depth != (inner ? 1 : 0))
        fail(p);
    if (!inner) {
        if (ts->n && ts->t[ts->n - 1].kind != K_NL)
            emit(p, ts, K_NL, lim, lim, line, ls, line, ls);
        while (nind-- > 1)
            emit(p, ts, K_DEDENT, lim, lim, line, ls, line, ls);
    }
    emit(p, ts, K_END, lim, lim, line, ls, line, ls);
}

/* ---- token helpers ---- */

static tok *cur(pp *p) { return &p->t[p->i]; }
static tok *ahead(pp *p, size_t k) { return &p->t[p->i + k < p->nt ? p->i + k : p->nt - 1]; }

static inline bool tok_is(pp *p, const tok *t, int kind, const char *text)
{
    (void)p;
    return t->kind == kind && t->code == pack(text);
}
static inline bool is_op(pp *p, const char *o) { return tok_is(p, cur(p), K_OP, o); }
static inline bool is_kw(pp *p, const char *k) { return tok_is(p, cur(p), K_NAME, k); }

static bool accept_op(pp *p, const char *o)
{
    if (!is_op(p, o))
        return false;
    p->i++;
    return true;
}
static bool accept_kw(pp *p, const char *k)
{
    if (!is_kw(p, k))
        return false;
    p->i++;
    return true;
}
static tok *expect_op(pp *p, const char *o)
{
    if (!is_op(p, o))
        fail(p);
    return &p->t[p->i++];
}
static void expect_kw(pp *p, const char *k)
{
    if (!accept_kw(p, k))
        fail(p);
}

static d2_span tspan(const tok *t)
{
    return (d2_span){t->line, t->col, t->eline, t->ecol, t->start, t->end};
}
static d2_span prev_span(pp *p) { return tspan(&p->t[p->i - 1]); }
static d2_span join(d2_span a, d2_span b) { return cst_span_to(a, b); }
/* From token st to the last token consumed: an expression's span reaches
 * over the parentheses of an operand that starts or ends it. */
static d2_span from(pp *p, size_t st) { return join(tspan(&p->t[st]), prev_span(p)); }

static bool is_keyword_tok(pp *p, const tok *t)
{
    (void)p;
    return t->kind == K_NAME && t->kw;
}

/* A NAME token that is no keyword, as an arena string. */
static const char *ident(pp *p)
{
    tok *t = cur(p);
    if (t->kind != K_NAME || is_keyword_tok(p, t))
        fail(p);
    p->i++;
    return cst_need(&p->c, d2_arena_strndup(p->c.a, p->s + t->start, t->end - t->start));
}

static void enter(pp *p)
{
    if (++p->depth > PP_MAX_DEPTH)
        fail(p);
}
static void leave(pp *p) { p->depth--; }

static d2_ast_expr *new_expr(pp *p, d2_ast_kind k, d2_span sp) { return cst_new_expr(&p->c, k, sp); }
static void push(pp *p, d2_ast_seq *s, void *item) { cst_push(&p->c, s, item); }

/* ---- expressions ---- */

static d2_ast_expr *test(pp *p);
static d2_ast_expr *or_test(pp *p);
static d2_ast_expr *bitor_expr(pp *p);
static d2_ast_expr *star_expressions(pp *p);
static d2_ast_expr *named_or_star(pp *p);
static d2_ast_expr *bitor_expr(pp *p);
static d2_ast_expr *yield_expr(pp *p);
static d2_ast_arguments *parameters(pp *p, bool lambda, d2_span sp);

/* Whether the current token can begin an expression. */
static bool starts_expr(pp *p)
{
    tok *t = cur(p);
    switch (t->kind) {
    case K_NUM:
    case K_STR:
        return true;
    case K_NAME:
        if (!is_keyword_tok(p, t))
            return true;
        return is_kw(p, "None") || is_kw(p, "True") || is_kw(p, "False") || is_kw(p, "not") ||
               is_kw(p, "lambda");
    case K_OP:
        return is_op(p, "(") || is_op(p, "[") || is_op(p, "{") || is_op(p, "-") ||
               is_op(p, "+") || is_op(p, "~") || is_op(p, "...") || is_op(p, "*");
    default:
        return false;
    }
}

/* Sets the context of a target expression; gives up on what cannot be one. */
static void set_ctx(pp *p, d2_ast_expr *e, d2_ast_ctx ctx)
{
    switch (e->kind) {
    case D2_AST_NAME: e->name.ctx = ctx; break;
    case D2_AST_ATTRIBUTE: e->attribute.ctx = ctx; break;
    case D2_AST_SUBSCRIPT: e->subscript.ctx = ctx; break;
    case D2_AST_STARRED:
        if (ctx == D2_CTX_DEL)
            fail(p);
        e->starred.ctx = ctx;
        set_ctx(p, e->starred.value, ctx);
        break;
    case D2_AST_LIST:
    case D2_AST_TUPLE:
        e->list.ctx = ctx;
        for (uint32_t i = 0; i < e->list.elts.n; i++)
            set_ctx(p, e->list.elts.items[i], ctx);
        break;
    default:
        fail(p);
    }
}

/* Fails on a NamedExpr outside the places both parsers are known to read
 * alike (alone in parentheses, an if or while test). */
static d2_ast_expr *no_walrus(pp *p, d2_ast_expr *e)
{
    if (e->kind == D2_AST_NAMED_EXPR)
        fail(p);
    return e;
}

/* Fails on a Starred where a plain expression is needed. */
static d2_ast_expr *no_star(pp *p, d2_ast_expr *e)
{
    if (e->kind == D2_AST_STARRED)
        fail(p);
    return e;
}

static d2_ast_expr *constant(pp *p, d2_ast_const_kind k, d2_span sp)
{
    return cst_need(&p->c, d2_ast_const_simple(p->c.a, k, sp));
}

/* ---- strings ---- */

typedef struct sinfo {
    bool raw, bytes, fstr, u, lower_u, triple;
    char quote;
    size_t bs, be; /* body */
} sinfo;

static sinfo string_info(pp *p, const tok *t)
{
    sinfo si = {0};
    size_t i = t->start;
    for (; p->s[i] != '\'' && p->s[i] != '"'; i++) {
        switch (p->s[i] | 32) {
        case 'r': if (si.raw) fail(p); si.raw = true; break;
        case 'b': if (si.bytes) fail(p); si.bytes = true; break;
        case 'f': if (si.fstr) fail(p); si.fstr = true; break;
        case 'u': if (si.u) fail(p); si.u = true; si.lower_u = p->s[i] == 'u'; break;
        default: fail(p);
        }
    }
    if ((si.bytes && (si.fstr || si.u)) || (si.raw && si.u))
        fail(p);
    si.quote = p->s[i];
    si.triple = i + 2 < t->end && p->s[i + 1] == si.quote && p->s[i + 2] == si.quote &&
                t->end - i >= 6;
    size_t q = si.triple ? 3 : 1;
    si.bs = i + q;
    si.be = t->end - q;
    return si;
}

typedef struct parts {
    sbuf lit;
    bool have_lit;
    d2_ast_seq values;
    const char *kind;
} parts;

static void flush_lit(pp *p, parts *ps, d2_span sp)
{
    if (ps->have_lit && ps->lit.n) {
        d2_ast_const k = {.kind = D2_CONST_STR, .str = {cst_sb_take(&p->c, &ps->lit), ps->lit.n}};
        d2_ast_expr *e = cst_need(&p->c, d2_ast_constant(p->c.a, k, sp));
        e->constant.kind = ps->kind;
        push(p, &ps->values, e);
    }
    memset(&ps->lit, 0, sizeof ps->lit);
    ps->have_lit = false;
}

/* Line and line start of byte off, counted from token t. */
static void line_at(pp *p, const tok *t, size_t off, uint32_t *line, size_t *ls)
{
    *line = t->line;
    *ls = t->start - t->col;
    for (size_t i = t->start; i < off; i++)
        if (p->s[i] == '\n') {
            (*line)++;
            *ls = i + 1;
        }
}

/* Index of the end of the replacement field's expression starting at i
 * (at a '}', '!', ':' or the debug '=' at depth 0). */
static size_t field_expr_end(pp *p, const sinfo *si, size_t i, size_t lim)
{
    const char *s = p->s;
    int depth = 0;
    while (i < lim) {
        char ch = s[i];
        if (ch == '\\' || ch == '#')
            fail(p);
        if (ch == si->quote)
            fail(p);
        if (ch == '\'' || ch == '"') {
            uint32_t l = 0;
            size_t ls = 0;
            i = scan_string(p, i, lim, &l, &ls);
            continue;
        }
        if (ch == '(' || ch == '[' || ch == '{') {
            depth++;
        } else if (ch == ')' || ch == ']' || ch == '}') {
            if (depth == 0)
                return ch == '}' ? i : (fail(p), i);
            depth--;
        } else if (depth == 0) {
            if (ch == '!' && i + 1 < lim && s[i + 1] != '=')
                return i;
            if (ch == ':')
                return i + 1 < lim && s[i + 1] == '=' ? (fail(p), i) : i;
            if (ch == '=' && i + 1 < lim && s[i + 1] != '=' && !strchr("=!<>", s[i - 1]))
                return i;
            if (ch == '!' || ch == '=' || ch == '<' || ch == '>') {
                i += i + 1 < lim && s[i + 1] == '=' ? 2 : 1;
                continue;
            }
        }
        i++;
    }
    fail(p);
}

static d2_ast_expr *fstring_field(pp *p, const tok *st, const sinfo *si, size_t open, size_t lim,
                                  size_t *next, parts *ps, bool debug_ok);

/* The format spec starting at the ':' at colon, up to the field's closing
 * '}' (whose index goes to *close). */
static d2_ast_expr *format_spec(pp *p, const tok *st, const sinfo *si, size_t colon, size_t lim,
                                size_t *close)
{
    size_t i = colon + 1, pos = colon + 1;
    parts ps = {0};
    d2_ast_seq fields = {0};
    (void)fields;
    /* find the end first: the spec's span is known before its parts */
    size_t end = i;
    int depth = 0;
    while (end < lim) {
        if (p->s[end] == '{')
            depth++;
        else if (p->s[end] == '}') {
            if (depth == 0)
                break;
            depth--;
        } else if (p->s[end] == '\\' || p->s[end] == si->quote) {
            fail(p);
        }
        end++;
    }
    if (end >= lim)
        fail(p);
    uint32_t l1, l2;
    size_t s1, s2;
    line_at(p, st, colon, &l1, &s1);
    line_at(p, st, end, &l2, &s2);
    d2_span sp = {l1, (uint32_t)(colon - s1), l2, (uint32_t)(end - s2), (uint32_t)colon,
                  (uint32_t)end};
    while (i < end) {
        if (p->s[i] == '{') {
            if (i > pos) {
                cst_decode(&p->c, &ps.lit, p->s + pos, i - pos, pos, si->raw, false, true);
                ps.have_lit = true;
            }
            flush_lit(p, &ps, sp);
            size_t nx;
            d2_ast_expr *f = fstring_field(p, st, si, i, end, &nx, NULL, false);
            push(p, &ps.values, f);
            i = pos = nx;
        } else {
            i++;
        }
    }
    if (end > pos) {
        cst_decode(&p->c, &ps.lit, p->s + pos, end - pos, pos, si->raw, false, true);
        ps.have_lit = true;
    }
    flush_lit(p, &ps, sp);
    d2_ast_expr *e = new_expr(p, D2_AST_JOINED_STR, sp);
    e->joined_str.values = ps.values;
    *close = end;
    return e;
}

/* The replacement field whose '{' is at open: a FormattedValue; *next is
 * the index after its '}'. With ps, a debug '=' adds the text to ps. */
static d2_ast_expr *fstring_field(pp *p, const tok *st, const sinfo *si, size_t open, size_t lim,
                                  size_t *next, parts *ps, bool debug_ok)
{
    enter(p);
    size_t xe = field_expr_end(p, si, open + 1, lim);
    for (size_t k = open + 1; k < xe; k++)
        if (p->s[k] == '\\')
            fail(p);
    bool debug = p->s[xe] == '=';
    if (debug && !debug_ok)
        fail(p);
    size_t after = debug ? xe + 1 : xe;
    while (after < lim && strchr(" \t", p->s[after]))
        after++;
    if (debug && after != xe + 1 && p->s[after] != '}' && p->s[after] != '!' && p->s[after] != ':')
        fail(p);
    /* the expression's tokens */
    toks sub = {.arena = p->c.a};
    uint32_t line;
    size_t ls;
    line_at(p, st, open + 1, &line, &ls);
    tok *saved_t = p->t;
    size_t saved_i = p->i, saved_nt = p->nt;
    tokenize(p, &sub, open + 1, xe, line, ls, true);
    p->t = sub.t;
    p->nt = sub.n;
    p->i = 0;
    d2_ast_expr *v = no_star(p, is_kw(p, "yield") ? yield_expr(p) : test(p));
    if (cur(p)->kind != K_END || v->kind == D2_AST_LAMBDA || v->kind == D2_AST_NAMED_EXPR)
        fail(p);
    p->t = saved_t;
    p->i = saved_i;
    p->nt = saved_nt;
    int conv = -1;
    d2_ast_expr *spec = NULL;
    size_t i = after;
    size_t conv_at = 0, spec_at = 0;
    if (i < lim && p->s[i] == '!') {
        conv_at = i;
        if (i + 2 >= lim || !strchr("sra", p->s[i + 1]) || !strchr(":}", p->s[i + 2]))
            fail(p);
        conv = p->s[i + 1];
        i += 2;
    }
    if (i < lim && p->s[i] == ':') {
        spec_at = i;
        spec = format_spec(p, st, si, i, lim, &i);
    }
    if (i >= lim || p->s[i] != '}')
        fail(p);
    uint32_t l1, l2;
    size_t s1, s2;
    line_at(p, st, open, &l1, &s1);
    line_at(p, st, i + 1, &l2, &s2);
    d2_span sp = {l1, (uint32_t)(open - s1), l2, (uint32_t)(i + 1 - s2), (uint32_t)open,
                  (uint32_t)(i + 1)};
    d2_ast_expr *e = new_expr(p, D2_AST_FORMATTED_VALUE, sp);
    e->formatted_value.value = v;
    e->formatted_value.conversion = conv;
    e->formatted_value.format_spec = spec;
    if (debug && ps) {
        size_t to = conv_at ? conv_at : spec_at ? spec_at : i;
        cst_sb_add(&p->c, &ps->lit, p->s + open + 1, to - open - 1);
        if (!conv_at && !spec_at)
            e->formatted_value.conversion = 'r';
    }
    *next = i + 1;
    leave(p);
    return e;
}

/* One or more adjacent string tokens: Constant or JoinedStr. */
static d2_ast_expr *strings(pp *p)
{
    size_t first = p->i;
    while (cur(p)->kind == K_STR)
        p->i++;
    size_t nparts = p->i - first;
    d2_span sp = join(tspan(&p->t[first]), prev_span(p));
    bool any_f = false, any_bytes = false, any_str = false;
    sinfo si0 = {0};
    for (size_t k = 0; k < nparts; k++) {
        sinfo si = string_info(p, &p->t[first + k]);
        if (k == 0)
            si0 = si;
        any_f |= si.fstr;
        any_bytes |= si.bytes;
        any_str |= !si.bytes;
    }
    if (any_bytes && any_str)
        fail(p);
    parts ps = {0};
    ps.kind = si0.lower_u ? "u" : NULL;
    for (size_t k = 0; k < nparts; k++) {
        const tok *t = &p->t[first + k];
        sinfo si = string_info(p, t);
        if (!si.fstr) {
            cst_decode(&p->c, &ps.lit, p->s + si.bs, si.be - si.bs, si.bs, si.raw, si.bytes, false);
            ps.have_lit = true;
            continue;
        }
        size_t pos = si.bs, i = si.bs;
        while (i < si.be) {
            char ch = p->s[i];
            if (ch == '{' || ch == '}') {
                if (i + 1 < si.be && p->s[i + 1] == ch) {
                    i += 2;
                    continue;
                }
                if (ch == '}')
                    fail(p);
                if (i > pos)
                    cst_decode(&p->c, &ps.lit, p->s + pos, i - pos, pos, si.raw, false, true);
                ps.have_lit = true;
                size_t nx;
                d2_ast_expr *fv = fstring_field(p, t, &si, i, si.be, &nx, &ps, true);
                flush_lit(p, &ps, sp);
                push(p, &ps.values, fv);
                i = pos = nx;
                continue;
            }
            if (ch == '\\' && !si.raw) {
                if (i + 2 < si.be && p->s[i + 1] == 'N' && p->s[i + 2] == '{') {
                    while (i < si.be && p->s[i] != '}')
                        i++;
                    i++;
                } else {
                    i += 2;
                }
                continue;
            }
            i++;
        }
        if (si.be > pos)
            cst_decode(&p->c, &ps.lit, p->s + pos, si.be - pos, pos, si.raw, false, true);
        ps.have_lit = true;
    }
    if (!any_f) {
        d2_ast_const k = {.kind = any_bytes ? D2_CONST_BYTES : D2_CONST_STR,
                          .str = {cst_sb_take(&p->c, &ps.lit), ps.lit.n}};
        d2_ast_expr *e = cst_need(&p->c, d2_ast_constant(p->c.a, k, sp));
        e->constant.kind = ps.kind;
        return e;
    }
    flush_lit(p, &ps, sp);
    d2_ast_expr *e = new_expr(p, D2_AST_JOINED_STR, sp);
    e->joined_str.values = ps.values;
    return e;
}

/* ---- comprehensions, displays, atoms ---- */

/* The Starred `*v` whose '*' is token t, just parsed (a load). */
static d2_ast_expr *starred(pp *p, tok *t, d2_ast_expr *v)
{
    d2_ast_expr *st = new_expr(p, D2_AST_STARRED, join(tspan(t), prev_span(p)));
    st->starred.value = v;
    st->starred.ctx = D2_CTX_LOAD;
    return st;
}

/* A target list element (no comparison: 'in' follows): '*' bitor | bitor. */
static d2_ast_expr *target_elem(pp *p)
{
    tok *t = cur(p);
    if (accept_op(p, "*")) {
        d2_ast_expr *v = bitor_expr(p);
        return starred(p, t, v);
    }
    return bitor_expr(p);
}

/* for_if_clauses after an element; the current token is 'for'. */
static d2_ast_seq comprehension(pp *p)
{
    d2_ast_seq gens = {0};
    while (is_kw(p, "for")) {
        d2_span sp = tspan(cur(p));
        p->i++;
        /* star_targets: a target list up to 'in' */
        size_t st = p->i;
        d2_ast_expr *first = target_elem(p);
        d2_ast_expr *target = first;
        if (is_op(p, ",")) {
            d2_ast_seq elts = {0};
            push(p, &elts, first);
            while (accept_op(p, ",")) {
                if (is_kw(p, "in"))
                    break;
                push(p, &elts, target_elem(p));
            }
            target = cst_need(&p->c, d2_ast_tuple(p->c.a, elts, D2_CTX_STORE,
                                                  from(p, st)));
        }
        set_ctx(p, target, D2_CTX_STORE);
        expect_kw(p, "in");
        d2_ast_expr *iter = no_star(p, or_test(p));
        d2_ast_comprehension *g = cst_new_node(&p->c, D2_AST_COMPREHENSION, join(sp, prev_span(p)));
        g->target = target;
        g->iter = iter;
        while (accept_kw(p, "if"))
            push(p, &g->ifs, no_star(p, or_test(p)));
        push(p, &gens, g);
    }
    if (is_kw(p, "async"))
        fail(p);
    return gens;
}

/* The elements of a display up to the closing bracket close; the first
 * element is given. */
static d2_ast_seq elements(pp *p, d2_ast_expr *first, const char *close, bool *comma)
{
    d2_ast_seq elts = {0};
    push(p, &elts, no_walrus(p, first));
    *comma = false;
    while (accept_op(p, ",")) {
        *comma = true;
        if (is_op(p, close))
            break;
        push(p, &elts, no_walrus(p, named_or_star(p)));
    }
    return elts;
}

/* ( ... ) */
static d2_ast_expr *paren(pp *p)
{
    tok *open = &p->t[p->i++];
    d2_span osp = tspan(open);
    if (accept_op(p, ")"))
        return cst_need(&p->c, d2_ast_tuple(p->c.a, (d2_ast_seq){0}, D2_CTX_LOAD,
                                            join(osp, prev_span(p))));
    if (is_kw(p, "yield")) {
        d2_ast_expr *y = yield_expr(p);
        expect_op(p, ")");
        return y;
    }
    d2_ast_expr *first = named_or_star(p);
    if (is_kw(p, "for")) {
        d2_ast_seq gens = comprehension(p);
        expect_op(p, ")");
        d2_ast_expr *e = new_expr(p, D2_AST_GENERATOR_EXP, join(osp, prev_span(p)));
        e->generator_exp.elt = no_star(p, first);
        e->generator_exp.generators = gens;
        return e;
    }
    if (accept_op(p, ")")) {
        if (first->kind == D2_AST_STARRED)
            fail(p);
        return first;
    }
    bool comma;
    d2_ast_seq elts = elements(p, first, ")", &comma);
    expect_op(p, ")");
    return cst_need(&p->c, d2_ast_tuple(p->c.a, elts, D2_CTX_LOAD, join(osp, prev_span(p))));
}

/* [ ... ] */
static d2_ast_expr *bracket(pp *p)
{
    d2_span osp = tspan(&p->t[p->i++]);
    if (accept_op(p, "]"))
        return cst_need(&p->c, d2_ast_list(p->c.a, (d2_ast_seq){0}, D2_CTX_LOAD,
                                           join(osp, prev_span(p))));
    d2_ast_expr *first = no_walrus(p, named_or_star(p));
    if (is_kw(p, "for")) {
        d2_ast_seq gens = comprehension(p);
        expect_op(p, "]");
        d2_ast_expr *e = new_expr(p, D2_AST_LIST_COMP, join(osp, prev_span(p)));
        e->list_comp.elt = no_star(p, first);
        e->list_comp.generators = gens;
        return e;
    }
    bool comma;
    d2_ast_seq elts = elements(p, first, "]", &comma);
    expect_op(p, "]");
    return cst_need(&p->c, d2_ast_list(p->c.a, elts, D2_CTX_LOAD, join(osp, prev_span(p))));
}

/* { ... } */
static d2_ast_expr *brace(pp *p)
{
    d2_span osp = tspan(&p->t[p->i++]);
    if (accept_op(p, "}"))
        return new_expr(p, D2_AST_DICT, join(osp, prev_span(p)));
    d2_ast_seq keys = {0}, values = {0};
    bool is_dict = false;
    d2_ast_expr *k0 = NULL;
    if (accept_op(p, "**")) {
        is_dict = true;
        push(p, &keys, NULL);
        push(p, &values, no_star(p, bitor_expr(p)));
    } else {
        k0 = no_walrus(p, named_or_star(p));
        if (accept_op(p, ":")) {
            is_dict = true;
            d2_ast_expr *v0 = no_star(p, test(p));
            if (is_kw(p, "for")) {
                if (k0->kind == D2_AST_STARRED || k0->kind == D2_AST_NAMED_EXPR)
                    fail(p);
                d2_ast_seq gens = comprehension(p);
                expect_op(p, "}");
                d2_ast_expr *e = new_expr(p, D2_AST_DICT_COMP, join(osp, prev_span(p)));
                e->dict_comp.key = k0;
                e->dict_comp.value = v0;
                e->dict_comp.generators = gens;
                return e;
            }
            if (k0->kind == D2_AST_STARRED || k0->kind == D2_AST_NAMED_EXPR)
                fail(p);
            push(p, &keys, k0);
            push(p, &values, v0);
        }
    }
    if (!is_dict) {
        if (is_kw(p, "for")) {
            d2_ast_seq gens = comprehension(p);
            expect_op(p, "}");
            d2_ast_expr *e = new_expr(p, D2_AST_SET_COMP, join(osp, prev_span(p)));
            e->set_comp.elt = no_star(p, k0);
            e->set_comp.generators = gens;
            return e;
        }
        bool comma;
        d2_ast_seq elts = elements(p, k0, "}", &comma);
        expect_op(p, "}");
        d2_ast_expr *e = new_expr(p, D2_AST_SET, join(osp, prev_span(p)));
        e->set.elts = elts;
        return e;
    }
    while (accept_op(p, ",")) {
        if (is_op(p, "}"))
            break;
        if (accept_op(p, "**")) {
            push(p, &keys, NULL);
            push(p, &values, no_star(p, bitor_expr(p)));
        } else {
            push(p, &keys, no_star(p, test(p)));
            expect_op(p, ":");
            push(p, &values, no_star(p, test(p)));
        }
    }
    expect_op(p, "}");
    d2_ast_expr *e = new_expr(p, D2_AST_DICT, join(osp, prev_span(p)));
    e->dict.keys = keys;
    e->dict.values = values;
    return e;
}

static d2_ast_expr *atom(pp *p)
{
    tok *t = cur(p);
    d2_span sp = tspan(t);
    switch (t->kind) {
    case K_NUM:
        p->i++;
        return cst_number_text(&p->c, p->s + t->start, t->end - t->start, sp);
    case K_STR:
        return strings(p);
    case K_NAME:
        if (is_kw(p, "None") || is_kw(p, "True") || is_kw(p, "False")) {
            p->i++;
            return constant(p, p->s[t->start] == 'N' ? D2_CONST_NONE
                               : p->s[t->start] == 'T' ? D2_CONST_TRUE
                                                       : D2_CONST_FALSE,
                            sp);
        }
        return cst_need(&p->c, d2_ast_name(p->c.a, ident(p), D2_CTX_LOAD, sp));
    case K_OP:
        if (is_op(p, "("))
            return paren(p);
        if (is_op(p, "["))
            return bracket(p);
        if (is_op(p, "{"))
            return brace(p);
        if (accept_op(p, "..."))
            return constant(p, D2_CONST_ELLIPSIS, sp);
        break;
    default:
        break;
    }
    fail(p);
}

/* Call arguments after '('; the ')' is consumed. */
static void call_args(pp *p, d2_span open, d2_ast_seq *args, d2_ast_seq *keywords)
{
    bool seen_kw = false, seen_kwsplat = false;
    while (!is_op(p, ")")) {
        tok *t = cur(p);
        if (accept_op(p, "**")) {
            d2_ast_expr *v = no_star(p, test(p));
            push(p, keywords, cst_need(&p->c, d2_ast_keyword_new(p->c.a, NULL, v,
                                                                 join(tspan(t), prev_span(p)))));
            seen_kw = seen_kwsplat = true;
        } else if (t->kind == K_NAME && tok_is(p, ahead(p, 1), K_OP, "=")) {
            const char *name = ident(p);
            p->i++;
            d2_ast_expr *v = no_star(p, test(p));
            push(p, keywords, cst_need(&p->c, d2_ast_keyword_new(p->c.a, name, v,
                                                                 join(tspan(t), prev_span(p)))));
            seen_kw = true;
        } else if (accept_op(p, "*")) {
            if (seen_kwsplat)
                fail(p);
            d2_ast_expr *v = no_star(p, test(p));
            d2_ast_expr *st = starred(p, t, v);
            push(p, args, st);
        } else {
            if (seen_kw)
                fail(p);
            d2_ast_expr *v = no_walrus(p, no_star(p, named_or_star(p)));
            if (is_kw(p, "for")) {
                if (args->n || keywords->n)
                    fail(p);
                d2_ast_seq gens = comprehension(p);
                if (!is_op(p, ")"))
                    fail(p);
                d2_ast_expr *g = new_expr(p, D2_AST_GENERATOR_EXP, join(open, tspan(cur(p))));
                g->generator_exp.elt = v;
                g->generator_exp.generators = gens;
                v = g;
            }
            push(p, args, v);
        }
        if (!accept_op(p, ","))
            break;
    }
    expect_op(p, ")");
}

/* One subscript element: an expression or a slice. */
static d2_ast_expr *slice_item(pp *p)
{
    d2_span sp = tspan(cur(p));
    d2_ast_expr *lower = NULL, *upper = NULL, *step = NULL;
    if (!is_op(p, ":")) {
        lower = no_walrus(p, no_star(p, named_or_star(p)));
        if (!is_op(p, ":"))
            return lower;
        if (lower->kind == D2_AST_NAMED_EXPR)
            fail(p);
    }
    p->i++;
    d2_span end = prev_span(p);
    if (!is_op(p, ":") && !is_op(p, "]") && !is_op(p, ",")) {
        upper = no_star(p, test(p));
        end = prev_span(p);
    }
    if (accept_op(p, ":")) {
        end = prev_span(p);
        if (!is_op(p, "]") && !is_op(p, ",")) {
            step = no_star(p, test(p));
            end = prev_span(p);
        }
    }
    d2_ast_expr *e = new_expr(p, D2_AST_SLICE, join(sp, end));
    e->slice.lower = lower;
    e->slice.upper = upper;
    e->slice.step = step;
    return e;
}

/* atom trailers: calls, subscripts, attributes. */
static d2_ast_expr *primary(pp *p)
{
    size_t st0 = p->i;
    d2_ast_expr *e = atom(p);
    int chain = 0;
    for (;;) {
        if (++chain > PP_MAX_CHAIN)
            fail(p);
        if (is_op(p, "(")) {
            d2_span open = tspan(cur(p));
            p->i++;
            d2_ast_seq args = {0}, kws = {0};
            call_args(p, open, &args, &kws);
            e = cst_need(&p->c, d2_ast_call(p->c.a, e, args, kws, from(p, st0)));
        } else if (is_op(p, "[")) {
            p->i++;
            size_t st = p->i;
            d2_ast_expr *first = slice_item(p);
            d2_ast_expr *sl = first;
            if (is_op(p, ",")) {
                d2_ast_seq elts = {0};
                push(p, &elts, first);
                while (accept_op(p, ",")) {
                    if (is_op(p, "]"))
                        break;
                    push(p, &elts, slice_item(p));
                }
                sl = cst_need(&p->c, d2_ast_tuple(p->c.a, elts, D2_CTX_LOAD,
                                                  from(p, st)));
            }
            expect_op(p, "]");
            e = cst_need(&p->c, d2_ast_subscript(p->c.a, e, sl, D2_CTX_LOAD,
                                                 from(p, st0)));
        } else if (is_op(p, ".")) {
            p->i++;
            const char *attr = ident(p);
            e = cst_need(&p->c, d2_ast_attribute(p->c.a, e, attr, D2_CTX_LOAD,
                                                 from(p, st0)));
        } else {
            return e;
        }
    }
}

static d2_ast_expr *factor(pp *p);

/* power: primary ['**' factor] */
static d2_ast_expr *power(pp *p)
{
    if (is_kw(p, "await"))
        fail(p);
    size_t st = p->i;
    d2_ast_expr *e = primary(p);
    if (accept_op(p, "**")) {
        enter(p);
        d2_ast_expr *r = factor(p);
        leave(p);
        e = cst_need(&p->c, d2_ast_bin_op(p->c.a, e, D2_OP_POW, r, from(p, st)));
    }
    return e;
}

static d2_ast_expr *factor(pp *p)
{
    d2_span sp = tspan(cur(p));
    d2_ast_unaryop op;
    if (is_op(p, "-"))
        op = D2_UNARY_USUB;
    else if (is_op(p, "+"))
        op = D2_UNARY_UADD;
    else if (is_op(p, "~"))
        op = D2_UNARY_INVERT;
    else
        return power(p);
    p->i++;
    enter(p);
    d2_ast_expr *v = factor(p);
    leave(p);
    return cst_need(&p->c, d2_ast_unary_op(p->c.a, op, v, join(sp, prev_span(p))));
}

/* The binary operator levels, loosest first. */
static const struct {
    const char *sym;
    d2_ast_operator op;
    int level;
} binops[] = {
    {"|", D2_OP_BIT_OR, 0},  {"^", D2_OP_BIT_XOR, 1}, {"&", D2_OP_BIT_AND, 2},
    {"<<", D2_OP_LSHIFT, 3}, {">>", D2_OP_RSHIFT, 3}, {"+", D2_OP_ADD, 4},
    {"-", D2_OP_SUB, 4},     {"*", D2_OP_MULT, 5},    {"/", D2_OP_DIV, 5},
    {"%", D2_OP_MOD, 5},     {"//", D2_OP_FLOOR_DIV, 5}, {"@", D2_OP_MAT_MULT, 5},
};

static d2_ast_expr *binary(pp *p, int level)
{
    if (level > 5)
        return factor(p);
    size_t st = p->i;
    d2_ast_expr *e = binary(p, level + 1);
    int chain = 0;
    for (;;) {
        tok *t = cur(p);
        int found = -1;
        if (t->kind == K_OP)
            for (size_t k = 0; k < D2_COUNTOF(binops); k++)
                if (binops[k].level == level && t->code == p->bincode[k])
                    found = (int)k;
        if (found < 0)
            return e;
        if (++chain > PP_MAX_CHAIN)
            fail(p);
        p->i++;
        d2_ast_expr *r = binary(p, level + 1);
        e = cst_need(&p->c, d2_ast_bin_op(p->c.a, e, binops[found].op, r, from(p, st)));
    }
}

static d2_ast_expr *bitor_expr(pp *p)
{
    enter(p);
    d2_ast_expr *e = binary(p, 0);
    leave(p);
    return e;
}

static d2_ast_expr *comparison(pp *p)
{
    size_t st = p->i;
    d2_ast_expr *left = bitor_expr(p);
    d2_ast_cmpop ops[64];
    d2_ast_seq comps = {0};
    uint32_t n = 0;
    for (;;) {
        d2_ast_cmpop op;
        size_t adv = 1;
        if (is_op(p, "=="))
            op = D2_CMP_EQ;
        else if (is_op(p, "!="))
            op = D2_CMP_NOT_EQ;
        else if (is_op(p, "<"))
            op = D2_CMP_LT;
        else if (is_op(p, "<="))
            op = D2_CMP_LT_E;
        else if (is_op(p, ">"))
            op = D2_CMP_GT;
        else if (is_op(p, ">="))
            op = D2_CMP_GT_E;
        else if (is_kw(p, "in"))
            op = D2_CMP_IN;
        else if (is_kw(p, "not") && tok_is(p, ahead(p, 1), K_NAME, "in"))
            op = D2_CMP_NOT_IN, adv = 2;
        else if (is_kw(p, "is") && tok_is(p, ahead(p, 1), K_NAME, "not"))
            op = D2_CMP_IS_NOT, adv = 2;
        else if (is_kw(p, "is"))
            op = D2_CMP_IS;
        else
            break;
        if (n == D2_COUNTOF(ops))
            fail(p);
        p->i += adv;
        ops[n++] = op;
        push(p, &comps, bitor_expr(p));
    }
    if (!n)
        return left;
    d2_ast_expr *e = new_expr(p, D2_AST_COMPARE, from(p, st));
    e->compare.left = left;
    e->compare.ops = cst_need(&p->c, d2_arena_alloc(p->c.a, n * sizeof(d2_ast_cmpop)));
    memcpy(e->compare.ops, ops, n * sizeof(d2_ast_cmpop));
    e->compare.comparators = comps;
    return e;
}

static d2_ast_expr *not_test(pp *p)
{
    if (!is_kw(p, "not"))
        return comparison(p);
    d2_span sp = tspan(cur(p));
    p->i++;
    enter(p);
    d2_ast_expr *v = not_test(p);
    leave(p);
    return cst_need(&p->c, d2_ast_unary_op(p->c.a, D2_UNARY_NOT, v, join(sp, prev_span(p))));
}

static d2_ast_expr *bool_chain(pp *p, bool is_or)
{
    size_t st = p->i;
    d2_ast_expr *e = is_or ? bool_chain(p, false) : not_test(p);
    if (!is_kw(p, is_or ? "or" : "and"))
        return e;
    d2_ast_seq vals = {0};
    push(p, &vals, e);
    while (accept_kw(p, is_or ? "or" : "and"))
        push(p, &vals, is_or ? bool_chain(p, false) : not_test(p));
    return cst_need(&p->c, d2_ast_bool_op(p->c.a, is_or ? D2_BOOLOP_OR : D2_BOOLOP_AND, vals,
                                          from(p, st)));
}

static d2_ast_expr *or_test(pp *p)
{
    if (is_kw(p, "lambda"))
        fail(p);
    return bool_chain(p, true);
}

static d2_ast_expr *lambda(pp *p)
{
    d2_span sp = tspan(cur(p));
    p->i++;
    d2_ast_arguments *args = parameters(p, true, sp);
    expect_op(p, ":");
    d2_ast_expr *body = no_star(p, test(p));
    d2_ast_expr *e = new_expr(p, D2_AST_LAMBDA, join(sp, prev_span(p)));
    if (!args->span.line)
        args->span = e->span;
    e->lambda.args = args;
    e->lambda.body = body;
    return e;
}

/* test: or_test ['if' or_test 'else' test] | lambdef */
static d2_ast_expr *test(pp *p)
{
    enter(p);
    size_t st = p->i;
    d2_ast_expr *e;
    if (is_kw(p, "lambda")) {
        e = lambda(p);
    } else {
        e = or_test(p);
        if (accept_kw(p, "if")) {
            d2_ast_expr *cond = or_test(p);
            expect_kw(p, "else");
            d2_ast_expr *orelse = test(p);
            d2_ast_expr *c = new_expr(p, D2_AST_IF_EXP, from(p, st));
            c->if_exp.test = cond;
            c->if_exp.body = e;
            c->if_exp.orelse = orelse;
            e = c;
        }
    }
    leave(p);
    return e;
}

/* A list element: '*' bitor_expr | NAME ':=' test | test. */
static d2_ast_expr *named_or_star(pp *p)
{
    tok *t = cur(p);
    if (accept_op(p, "*")) {
        d2_ast_expr *v = bitor_expr(p);
        return starred(p, t, v);
    }
    if (t->kind == K_NAME && tok_is(p, ahead(p, 1), K_OP, ":=")) {
        const char *name = ident(p);
        d2_ast_expr *target = cst_need(&p->c, d2_ast_name(p->c.a, name, D2_CTX_STORE, tspan(t)));
        p->i++;
        d2_ast_expr *v = no_star(p, test(p));
        d2_ast_expr *e = new_expr(p, D2_AST_NAMED_EXPR, join(tspan(t), prev_span(p)));
        e->named_expr.target = target;
        e->named_expr.value = v;
        return e;
    }
    return test(p);
}

/* star_expressions: an element, or a Tuple of them without brackets. */
static d2_ast_expr *star_expressions(pp *p)
{
    size_t st = p->i;
    d2_ast_expr *first = named_or_star(p);
    if (first->kind == D2_AST_NAMED_EXPR)
        fail(p);
    if (!is_op(p, ","))
        return first;
    d2_ast_seq elts = {0};
    push(p, &elts, first);
    while (accept_op(p, ",")) {
        if (!starts_expr(p))
            break;
        d2_ast_expr *e = named_or_star(p);
        if (e->kind == D2_AST_NAMED_EXPR)
            fail(p);
        push(p, &elts, e);
    }
    return cst_need(&p->c, d2_ast_tuple(p->c.a, elts, D2_CTX_LOAD, from(p, st)));
}

static d2_ast_expr *yield_expr(pp *p)
{
    d2_span sp = tspan(cur(p));
    p->i++;
    if (accept_kw(p, "from")) {
        d2_ast_expr *v = no_star(p, test(p));
        d2_ast_expr *e = new_expr(p, D2_AST_YIELD_FROM, join(sp, prev_span(p)));
        e->yield_from.value = v;
        return e;
    }
    d2_ast_expr *v = NULL;
    if (starts_expr(p))
        v = star_expressions(p);
    if (v && v->kind == D2_AST_STARRED)
        fail(p);
    d2_ast_expr *e = new_expr(p, D2_AST_YIELD, v ? join(sp, prev_span(p)) : sp);
    e->yield.value = v;
    return e;
}

/* ---- parameters ---- */

/* An annotation. The tree-sitter grammar reads annotations as types and
 * refuses some expressions CPython takes there (a comparison, say); only
 * the forms annotations take in practice are accepted here, so both paths
 * agree. */
static d2_ast_expr *annotation(pp *p)
{
    d2_ast_expr *e = no_star(p, test(p));
    d2_ast_expr *stack[64];
    int n = 0;
    stack[n++] = e;
    while (n) {
        d2_ast_expr *x = stack[--n];
        switch (x->kind) {
        case D2_AST_NAME:
        case D2_AST_CONSTANT:
            break;
        case D2_AST_ATTRIBUTE:
            stack[n++] = x->attribute.value;
            break;
        case D2_AST_SUBSCRIPT:
            if (n + 2 > 64)
                fail(p);
            stack[n++] = x->subscript.value;
            stack[n++] = x->subscript.slice;
            break;
        case D2_AST_TUPLE:
        case D2_AST_LIST:
            for (uint32_t i = 0; i < x->list.elts.n; i++) {
                if (n == 64)
                    fail(p);
                stack[n++] = x->list.elts.items[i];
            }
            break;
        case D2_AST_BIN_OP:
            if (x->bin_op.op != D2_OP_BIT_OR || n + 2 > 64)
                fail(p);
            stack[n++] = x->bin_op.left;
            stack[n++] = x->bin_op.right;
            break;
        default:
            fail(p);
        }
    }
    return e;
}

/* name [':' annotation] as an arg node. */
static d2_ast_arg *param(pp *p, bool lambda)
{
    tok *t = cur(p);
    const char *name = ident(p);
    d2_ast_expr *ann = NULL;
    d2_span sp = tspan(t);
    if (!lambda && accept_op(p, ":")) {
        ann = annotation(p);
        sp = join(sp, prev_span(p));
    }
    return cst_need(&p->c, d2_ast_arg_new(p->c.a, name, ann, sp));
}

/* The parameter list of a def (at '(') or a lambda (after 'lambda'); the
 * closing ')' of a def is consumed. */
static d2_ast_arguments *parameters(pp *p, bool lambda, d2_span lsp)
{
    (void)lsp;
    const char *close = lambda ? ":" : ")";
    d2_span sp = tspan(cur(p));
    if (!lambda)
        expect_op(p, "(");
    d2_ast_arguments *a = cst_new_node(&p->c, D2_AST_ARGUMENTS, sp);
    bool kwonly = false, seen_default = false, any = false;
    d2_ast_seq plain = {0};
    while (!is_op(p, close)) {
        any = true;
        if (a->kwarg)
            fail(p);
        if (accept_op(p, "/")) {
            if (kwonly || a->posonlyargs.n || !plain.n)
                fail(p);
            a->posonlyargs = plain;
            memset(&plain, 0, sizeof plain);
        } else if (accept_op(p, "**")) {
            a->kwarg = param(p, lambda);
        } else if (accept_op(p, "*")) {
            if (kwonly)
                fail(p);
            kwonly = true;
            if (!is_op(p, ","))
                a->vararg = param(p, lambda);
            else if (tok_is(p, ahead(p, 1), K_OP, close) || tok_is(p, ahead(p, 1), K_OP, "**"))
                fail(p);
        } else {
            d2_ast_arg *arg = param(p, lambda);
            d2_ast_expr *def = NULL;
            if (accept_op(p, "="))
                def = no_star(p, test(p));
            if (kwonly) {
                push(p, &a->kwonlyargs, arg);
                push(p, &a->kw_defaults, def);
            } else {
                if (def) {
                    seen_default = true;
                    push(p, &a->defaults, def);
                } else if (seen_default) {
                    fail(p);
                }
                push(p, &plain, arg);
            }
        }
        if (!accept_op(p, ","))
            break;
    }
    if (kwonly && !a->vararg && !a->kwonlyargs.n)
        fail(p);
    a->args = plain;
    if (lambda) {
        if (any)
            a->span = join(sp, prev_span(p));
        else
            a->span = (d2_span){0};
    } else {
        expect_op(p, ")");
        a->span = join(sp, prev_span(p));
    }
    return a;
}

/* ---- statements ---- */

static void block(pp *p, d2_ast_seq *body);
static void statement(pp *p, d2_ast_seq *out);

static d2_ast_stmt *new_stmt(pp *p, d2_ast_kind k, d2_span sp) { return cst_new_stmt(&p->c, k, sp); }

static d2_span end_at_last(pp *p, d2_span sp, const d2_ast_seq *body)
{
    return cst_end_at_last(&p->c, sp, body);
}

/* dotted_name as one string. */
static const char *dotted(pp *p, d2_span *sp)
{
    tok *t = cur(p);
    ident(p);
    while (is_op(p, ".") && ahead(p, 1)->kind == K_NAME) {
        p->i++;
        ident(p);
    }
    tok *e = &p->t[p->i - 1];
    *sp = join(tspan(t), tspan(e));
    /* no spaces or continuation lines inside (the name keeps the text) */
    for (uint32_t k = t->start; k < e->end; k++)
        if (!id_char((unsigned char)p->s[k]) && p->s[k] != '.')
            fail(p);
    return cst_need(&p->c, d2_arena_strndup(p->c.a, p->s + t->start, e->end - t->start));
}

static d2_ast_alias *alias(pp *p, bool is_dotted)
{
    d2_span sp = tspan(cur(p));
    const char *name = is_dotted ? dotted(p, &sp) : ident(p);
    const char *as = NULL;
    if (accept_kw(p, "as")) {
        as = ident(p);
        sp = join(sp, prev_span(p));
    }
    d2_ast_alias *al = cst_new_node(&p->c, D2_AST_ALIAS, sp);
    al->name = name;
    al->asname = as;
    return al;
}

static d2_ast_stmt *import_stmt(pp *p)
{
    d2_span sp = tspan(cur(p));
    if (accept_kw(p, "import")) {
        d2_ast_stmt *s = new_stmt(p, D2_AST_IMPORT, sp);
        do
            push(p, &s->import.names, alias(p, true));
        while (accept_op(p, ","));
        s->span = join(sp, prev_span(p));
        return s;
    }
    p->i++; /* from */
    int level = 0;
    for (;;) {
        if (accept_op(p, "."))
            level++;
        else if (accept_op(p, "..."))
            level += 3;
        else
            break;
    }
    const char *module = NULL;
    if (!is_kw(p, "import")) {
        d2_span msp;
        module = dotted(p, &msp);
    }
    if (!level && !module)
        fail(p);
    if (module && strcmp(module, "__future__") == 0)
        fail(p);
    expect_kw(p, "import");
    d2_ast_stmt *s = new_stmt(p, D2_AST_IMPORT_FROM, sp);
    s->import_from.module = module;
    s->import_from.level = level;
    if (is_op(p, "*")) {
        d2_ast_alias *al = cst_new_node(&p->c, D2_AST_ALIAS, tspan(cur(p)));
        al->name = "*";
        p->i++;
        push(p, &s->import_from.names, al);
    } else if (accept_op(p, "(")) {
        do {
            if (is_op(p, ")"))
                break;
            push(p, &s->import_from.names, alias(p, false));
        } while (accept_op(p, ","));
        expect_op(p, ")");
        if (!s->import_from.names.n)
            fail(p);
    } else {
        do
            push(p, &s->import_from.names, alias(p, false));
        while (accept_op(p, ","));
    }
    s->span = join(sp, prev_span(p));
    return s;
}

static bool is_augop(pp *p, d2_ast_operator *op)
{
    static const struct {
        const char *sym;
        d2_ast_operator op;
    } aug[] = {{"+=", D2_OP_ADD},     {"-=", D2_OP_SUB},        {"*=", D2_OP_MULT},
               {"@=", D2_OP_MAT_MULT}, {"/=", D2_OP_DIV},       {"//=", D2_OP_FLOOR_DIV},
               {"%=", D2_OP_MOD},      {"**=", D2_OP_POW},      {"<<=", D2_OP_LSHIFT},
               {">>=", D2_OP_RSHIFT},  {"&=", D2_OP_BIT_AND},   {"|=", D2_OP_BIT_OR},
               {"^=", D2_OP_BIT_XOR}};
    if (cur(p)->kind != K_OP)
        return false;
    for (size_t k = 0; k < D2_COUNTOF(aug); k++)
        if (is_op(p, aug[k].sym)) {
            *op = aug[k].op;
            return true;
        }
    return false;
}

static d2_ast_expr *rhs(pp *p)
{
    d2_ast_expr *v = is_kw(p, "yield") ? yield_expr(p) : star_expressions(p);
    return no_star(p, v);
}

/* Expression statements and assignments. */
static d2_ast_stmt *expr_stmt(pp *p)
{
    tok *first_tok = cur(p);
    size_t st = p->i;
    d2_ast_expr *first = is_kw(p, "yield") ? yield_expr(p) : star_expressions(p);
    d2_span sp = from(p, st);
    d2_ast_operator op;
    if (is_op(p, "=")) {
        d2_ast_seq targets = {0};
        d2_ast_expr *value = first;
        while (accept_op(p, "=")) {
            if (value->kind == D2_AST_YIELD || value->kind == D2_AST_YIELD_FROM)
                fail(p);
            set_ctx(p, value, D2_CTX_STORE);
            if (value->kind == D2_AST_STARRED)
                fail(p);
            push(p, &targets, value);
            value = rhs(p);
        }
        return cst_need(&p->c, d2_ast_assign(p->c.a, targets, value, join(sp, prev_span(p))));
    }
    if (is_augop(p, &op)) {
        if (first->kind != D2_AST_NAME && first->kind != D2_AST_ATTRIBUTE &&
            first->kind != D2_AST_SUBSCRIPT)
            fail(p);
        set_ctx(p, first, D2_CTX_STORE);
        p->i++;
        d2_ast_expr *v = rhs(p);
        d2_ast_stmt *s = new_stmt(p, D2_AST_AUG_ASSIGN, join(sp, prev_span(p)));
        s->aug_assign.target = first;
        s->aug_assign.op = op;
        s->aug_assign.value = v;
        return s;
    }
    if (accept_op(p, ":")) {
        if (first->kind != D2_AST_NAME && first->kind != D2_AST_ATTRIBUTE &&
            first->kind != D2_AST_SUBSCRIPT)
            fail(p);
        set_ctx(p, first, D2_CTX_STORE);
        d2_ast_expr *ann = annotation(p);
        d2_ast_expr *v = NULL;
        if (accept_op(p, "="))
            v = rhs(p);
        d2_ast_stmt *s = new_stmt(p, D2_AST_ANN_ASSIGN, join(sp, prev_span(p)));
        s->ann_assign.target = first;
        s->ann_assign.annotation = ann;
        s->ann_assign.value = v;
        s->ann_assign.simple = first->kind == D2_AST_NAME && !tok_is(p, first_tok, K_OP, "(");
        return s;
    }
    if (first->kind == D2_AST_STARRED)
        fail(p);
    /* "a,\nb = c": tree-sitter reads on past the newline */
    if (tok_is(p, &p->t[p->i - 1], K_OP, ","))
        fail(p);
    return cst_need(&p->c, d2_ast_expr_stmt(p->c.a, first, sp));
}

/* One small statement. */
static d2_ast_stmt *small_stmt(pp *p)
{
    tok *t = cur(p);
    d2_span sp = tspan(t);
    if (t->kind == K_NAME && is_keyword_tok(p, t)) {
        if (accept_kw(p, "pass"))
            return cst_need(&p->c, d2_ast_simple_stmt(p->c.a, D2_AST_PASS, sp));
        if (accept_kw(p, "break"))
            return cst_need(&p->c, d2_ast_simple_stmt(p->c.a, D2_AST_BREAK, sp));
        if (accept_kw(p, "continue"))
            return cst_need(&p->c, d2_ast_simple_stmt(p->c.a, D2_AST_CONTINUE, sp));
        if (accept_kw(p, "return")) {
            d2_ast_expr *v = starts_expr(p) ? no_star(p, star_expressions(p)) : NULL;
            return cst_need(&p->c, d2_ast_return(p->c.a, v, v ? join(sp, prev_span(p)) : sp));
        }
        if (is_kw(p, "import") || is_kw(p, "from"))
            return import_stmt(p);
        if (is_kw(p, "global") || is_kw(p, "nonlocal")) {
            bool g = is_kw(p, "global");
            p->i++;
            d2_ast_stmt *s = new_stmt(p, g ? D2_AST_GLOBAL : D2_AST_NONLOCAL, sp);
            do
                push(p, &s->global.names, (void *)ident(p));
            while (accept_op(p, ","));
            s->span = join(sp, prev_span(p));
            return s;
        }
        if (accept_kw(p, "assert")) {
            d2_ast_expr *t1 = no_star(p, test(p)), *msg = NULL;
            if (accept_op(p, ","))
                msg = no_star(p, test(p));
            d2_ast_stmt *s = new_stmt(p, D2_AST_ASSERT, join(sp, prev_span(p)));
            s->assert_.test = t1;
            s->assert_.msg = msg;
            return s;
        }
        if (accept_kw(p, "raise")) {
            d2_ast_stmt *s = new_stmt(p, D2_AST_RAISE, sp);
            if (starts_expr(p)) {
                s->raise.exc = no_star(p, test(p));
                s->span = join(sp, prev_span(p));
                if (accept_kw(p, "from")) {
                    s->raise.cause = no_star(p, test(p));
                    s->span = join(sp, prev_span(p));
                }
            }
            return s;
        }
        if (accept_kw(p, "del")) {
            d2_ast_stmt *s = new_stmt(p, D2_AST_DELETE, sp);
            do {
                if (!starts_expr(p))
                    break;
                d2_ast_expr *e = no_star(p, bitor_expr(p));
                set_ctx(p, e, D2_CTX_DEL);
                push(p, &s->delete.targets, e);
            } while (accept_op(p, ","));
            if (!s->delete.targets.n)
                fail(p);
            s->span = join(sp, prev_span(p));
            return s;
        }
        if (!is_kw(p, "None") && !is_kw(p, "True") && !is_kw(p, "False") && !is_kw(p, "not") &&
            !is_kw(p, "lambda") && !is_kw(p, "yield"))
            fail(p);
    }
    return expr_stmt(p);
}

/* small_stmt (';' small_stmt)* [';'] NEWLINE */
static void simple_stmts(pp *p, d2_ast_seq *out)
{
    for (;;) {
        push(p, out, small_stmt(p));
        if (!accept_op(p, ";"))
            break;
        if (cur(p)->kind == K_NL)
            break;
    }
    if (cur(p)->kind != K_NL)
        fail(p);
    p->i++;
}

/* ':' suite */
static void block(pp *p, d2_ast_seq *body)
{
    expect_op(p, ":");
    if (cur(p)->kind != K_NL) {
        simple_stmts(p, body);
        return;
    }
    p->i++;
    if (cur(p)->kind != K_INDENT)
        fail(p);
    p->i++;
    enter(p);
    while (cur(p)->kind != K_DEDENT) {
        if (cur(p)->kind == K_END)
            fail(p);
        statement(p, body);
    }
    leave(p);
    p->i++;
}

static d2_ast_stmt *if_stmt(pp *p)
{
    d2_span sp = tspan(cur(p));
    p->i++; /* if / elif */
    d2_ast_expr *cond = no_star(p, named_or_star(p));
    d2_ast_seq body = {0}, orelse = {0};
    block(p, &body);
    if (is_kw(p, "elif")) {
        enter(p);
        push(p, &orelse, if_stmt(p));
        leave(p);
    } else if (accept_kw(p, "else")) {
        block(p, &orelse);
    }
    d2_ast_stmt *s = cst_need(&p->c, d2_ast_if(p->c.a, cond, body, orelse, sp));
    s->span = end_at_last(p, sp, orelse.n ? &orelse : &body);
    return s;
}

static d2_ast_seq decorators(pp *p)
{
    d2_ast_seq decs = {0};
    while (accept_op(p, "@")) {
        push(p, &decs, no_walrus(p, no_star(p, named_or_star(p))));
        if (cur(p)->kind != K_NL)
            fail(p);
        p->i++;
    }
    return decs;
}

static d2_ast_stmt *funcdef(pp *p, d2_ast_seq decs)
{
    d2_span sp = tspan(cur(p));
    p->i++;
    d2_ast_stmt *s = new_stmt(p, D2_AST_FUNCTION_DEF, sp);
    s->function_def.name = ident(p);
    s->function_def.args = parameters(p, false, sp);
    if (accept_op(p, "->"))
        s->function_def.returns = annotation(p);
    block(p, &s->function_def.body);
    s->function_def.decorator_list = decs;
    s->span = end_at_last(p, sp, &s->function_def.body);
    return s;
}

static d2_ast_stmt *classdef(pp *p, d2_ast_seq decs)
{
    d2_span sp = tspan(cur(p));
    p->i++;
    d2_ast_stmt *s = new_stmt(p, D2_AST_CLASS_DEF, sp);
    s->class_def.name = ident(p);
    if (is_op(p, "(")) {
        d2_span open = tspan(cur(p));
        p->i++;
        call_args(p, open, &s->class_def.bases, &s->class_def.keywords);
        for (uint32_t k = 0; k < s->class_def.bases.n; k++)
            if (((d2_ast_expr *)s->class_def.bases.items[k])->kind == D2_AST_GENERATOR_EXP)
                fail(p);
    }
    block(p, &s->class_def.body);
    s->class_def.decorator_list = decs;
    s->span = end_at_last(p, sp, &s->class_def.body);
    return s;
}

/* A for-loop target list up to 'in'. */
static d2_ast_expr *for_targets(pp *p)
{
    size_t st = p->i;
    d2_ast_expr *first = target_elem(p);
    d2_ast_expr *target = first;
    if (is_op(p, ",")) {
        d2_ast_seq elts = {0};
        push(p, &elts, first);
        while (accept_op(p, ",")) {
            if (is_kw(p, "in"))
                break;
            push(p, &elts, target_elem(p));
        }
        target = cst_need(&p->c, d2_ast_tuple(p->c.a, elts, D2_CTX_STORE,
                                              from(p, st)));
    }
    set_ctx(p, target, D2_CTX_STORE);
    return target;
}

static d2_ast_stmt *compound(pp *p)
{
    tok *t = cur(p);
    d2_span sp = tspan(t);
    if (is_kw(p, "if"))
        return if_stmt(p);
    if (accept_kw(p, "while")) {
        d2_ast_expr *cond = no_star(p, named_or_star(p));
        d2_ast_seq body = {0}, orelse = {0};
        block(p, &body);
        if (accept_kw(p, "else"))
            block(p, &orelse);
        d2_ast_stmt *s = cst_need(&p->c, d2_ast_while(p->c.a, cond, body, orelse, sp));
        s->span = end_at_last(p, sp, orelse.n ? &orelse : &body);
        return s;
    }
    if (accept_kw(p, "for")) {
        d2_ast_stmt *s = new_stmt(p, D2_AST_FOR, sp);
        s->for_.target = for_targets(p);
        expect_kw(p, "in");
        s->for_.iter = no_star(p, star_expressions(p));
        block(p, &s->for_.body);
        if (accept_kw(p, "else"))
            block(p, &s->for_.orelse);
        s->span = end_at_last(p, sp, s->for_.orelse.n ? &s->for_.orelse : &s->for_.body);
        return s;
    }
    if (accept_kw(p, "try")) {
        d2_ast_stmt *s = new_stmt(p, D2_AST_TRY, sp);
        block(p, &s->try_.body);
        while (is_kw(p, "except")) {
            d2_span hsp = tspan(cur(p));
            p->i++;
            if (is_op(p, "*"))
                fail(p);
            d2_ast_excepthandler *h = cst_new_node(&p->c, D2_AST_EXCEPT_HANDLER, hsp);
            if (!is_op(p, ":")) {
                h->type = no_star(p, test(p));
                if (is_op(p, ","))
                    fail(p);
                if (accept_kw(p, "as"))
                    h->name = ident(p);
            }
            block(p, &h->body);
            h->span = end_at_last(p, hsp, &h->body);
            push(p, &s->try_.handlers, h);
        }
        if (s->try_.handlers.n && accept_kw(p, "else"))
            block(p, &s->try_.orelse);
        if (accept_kw(p, "finally"))
            block(p, &s->try_.finalbody);
        if (!s->try_.handlers.n && !s->try_.finalbody.n)
            fail(p);
        const d2_ast_seq *last = s->try_.finalbody.n ? &s->try_.finalbody
                                 : s->try_.orelse.n  ? &s->try_.orelse
                                                     : &s->try_.handlers;
        s->span = end_at_last(p, sp, last);
        return s;
    }
    if (accept_kw(p, "with")) {
        d2_ast_stmt *s = new_stmt(p, D2_AST_WITH, sp);
        do {
            size_t st = p->i;
            d2_ast_expr *ce = no_star(p, test(p));
            d2_ast_withitem *w = cst_new_node(&p->c, D2_AST_WITHITEM, from(p, st));
            w->context_expr = ce;
            if (accept_kw(p, "as")) {
                d2_ast_expr *v = no_star(p, bitor_expr(p));
                set_ctx(p, v, D2_CTX_STORE);
                w->optional_vars = v;
                w->span = from(p, st);
            }
            push(p, &s->with.items, w);
        } while (accept_op(p, ","));
        block(p, &s->with.body);
        s->span = end_at_last(p, sp, &s->with.body);
        return s;
    }
    if (is_op(p, "@") || is_kw(p, "def") || is_kw(p, "class")) {
        d2_ast_seq decs = decorators(p);
        if (is_kw(p, "def"))
            return funcdef(p, decs);
        if (is_kw(p, "class"))
            return classdef(p, decs);
        fail(p);
    }
    return NULL;
}

static void statement(pp *p, d2_ast_seq *out)
{
    enter(p);
    tok *t = cur(p);
    if (t->kind == K_INDENT || t->kind == K_DEDENT || t->kind == K_NL)
        fail(p);
    if ((t->kind == K_NAME && is_keyword_tok(p, t)) || is_op(p, "@")) {
        if (is_kw(p, "async") || is_kw(p, "elif") || is_kw(p, "else") || is_kw(p, "except") ||
            is_kw(p, "finally"))
            fail(p);
        d2_ast_stmt *s = compound(p);
        if (s) {
            push(p, out, s);
            leave(p);
            return;
        }
    }
    simple_stmts(p, out);
    leave(p);
}

/* ---- entry point ---- */

/* Whether the tree under m nests deeper than PP_MAX_TREE levels (any node
 * counted): the tree-sitter path refuses trees past its own limits, and
 * left-nested operator chains inside one another can get there without deep
 * recursion here. Iterative, so as not to need the stack it guards. */
#define PP_MAX_TREE 900
static bool too_deep(const d2_ast_module *m)
{
    typedef struct {
        const void *node;
        uint32_t depth;
    } item;
    size_t cap = 256, n = 0;
    item *st = malloc(cap * sizeof *st);
    if (!st)
        return true;
    for (uint32_t i = 0; i < m->body.n; i++) {
        if (n == cap) {
            item *g = realloc(st, (cap *= 2) * sizeof *st);
            if (!g) {
                free(st);
                return true;
            }
            st = g;
        }
        st[n++] = (item){m->body.items[i], 1};
    }
    bool deep = false;
    while (n && !deep) {
        item it = st[--n];
        if (it.depth > PP_MAX_TREE) {
            deep = true;
            break;
        }
        const d2_ast_node *node = it.node;
        size_t nf;
        const d2_ast_field *f = d2_ast_fields(node->kind, &nf);
        for (size_t k = 0; k < nf && !deep; k++) {
            const char *at = (const char *)node + f[k].offset;
            const void *one = NULL;
            const d2_ast_seq *seq = NULL;
            if (f[k].type == D2_AST_F_NODE || f[k].type == D2_AST_F_OPT)
                one = *(const void *const *)at;
            else if (f[k].type == D2_AST_F_SEQ)
                seq = (const d2_ast_seq *)(const void *)at;
            else
                continue;
            uint32_t cnt = seq ? seq->n : 1;
            for (uint32_t j = 0; j < cnt; j++) {
                const void *child = seq ? seq->items[j] : one;
                if (!child)
                    continue;
                if (n == cap) {
                    item *g = realloc(st, (cap *= 2) * sizeof *st);
                    if (!g) {
                        deep = true;
                        break;
                    }
                    st = g;
                }
                st[n++] = (item){child, it.depth + 1};
            }
        }
    }
    free(st);
    return deep;
}

static d2_ast_module *run(pp *p, const char *filename)
{
    if (setjmp(p->c.jb))
        return NULL;
    tokenize(p, &p->main, 0, p->n, 1, 0, false);
    p->t = p->main.t;
    p->nt = p->main.n;
    p->i = 0;
    /* as tree-sitter's module node: from the first byte that is not white
     * space to the end of the file */
    size_t st = 0, ls = 0;
    uint32_t line = 1;
    for (; st < p->n && strchr(" \t\n\r\f", p->s[st]); st++)
        if (p->s[st] == '\n') {
            line++;
            ls = st + 1;
        }
    const tok *end = &p->t[p->nt - 1];
    d2_span sp = {line, (uint32_t)(st - ls), end->eline, end->ecol, (uint32_t)st, end->end};
    d2_ast_module *m = cst_new_node(&p->c, D2_AST_MODULE, sp);
    while (cur(p)->kind != K_END)
        statement(p, &m->body);
    m->filename = cst_need(&p->c, d2_arena_strdup(p->c.a, filename ? filename : "<input>"));
    m->source = cst_need(&p->c, d2_arena_strndup(p->c.a, p->s, p->n));
    m->source_len = p->n;
    return m;
}

d2_ast_module *d2_pyparse(d2_arena *a, const char *filename, const char *src, size_t len)
{
    pp *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->s = src;
    p->n = len;
    _Static_assert(D2_COUNTOF(keywords) <= D2_COUNTOF(p->kwcode), "kwcode too small");
    _Static_assert(D2_COUNTOF(binops) == D2_COUNTOF(p->bincode), "bincode size");
    for (size_t k = 0; keywords[k]; k++)
        p->kwcode[k] = pack(keywords[k]);
    for (size_t k = 0; k < D2_COUNTOF(binops); k++)
        p->bincode[k] = pack(binops[k].sym);
    d2_diag_init(&p->scratch, a);
    d2_diag_set_source(&p->scratch, filename, src, len);
    p->c.a = a;
    p->c.diag = &p->scratch;
    p->c.src = src;
    p->c.len = len;
    d2_ast_module *m = run(p, filename);
    if (m && (too_deep(m) || p->scratch.count || p->scratch.oom || d2_arena_oom(a)))
        m = NULL;
    free(p->main.t);
    free(p);
    return m;
}

/* program_text.c - Program text form: printer and parser (exact round trip).
 *
 * Grammar (line-oriented; '#' starts a comment that runs to the end of the line):
 *
 *   program  := { param | block }                      blocks in order ^0, ^1, ...
 *   param    := 'param' NAME ':' TYPE [ '=' '[' value { ',' value } ']' ]
 *   block    := 'block' '^'N [ 'parent' '^'M ] '(' [ decl { ',' decl } ] ')' '{' NL
 *               { stmt NL } end NL '}'
 *   stmt     := [ decl { ',' decl } '=' ] OP '(' [ in { ',' in } ] ')'
 *               [ '{' attr { ',' attr } '}' ] [ 'loc' '(' LINE ':' COL ')' ]
 *   end      := 'return' [ NAME { ',' NAME } ]              block ^0
 *             | 'yield' [ NAME { ',' NAME } ]               sub-blocks
 *   decl     := NAME ':' TYPE
 *   in       := NAME | '_'                                  '_' = absent optional input
 *   attr     := IDENT '=' literal                           literal syntax of ops.c
 *   TYPE     := DTYPE '[' [ dim { ',' dim } ] ']' | 'array' '<' DTYPE '[' ... ']' '>'
 *   NAME     := [A-Za-z_][A-Za-z0-9_.@]*  |  "quoted"       (names that are not identifiers,
 *                                                            and a variable named _, are quoted)
 *
 * Newlines are free inside '[...]' data lists and '{...}' attribute lists. The
 * parser resolves names (a variable must be defined earlier, in its block or an
 * enclosing one, or be a parameter) and checks op names, arity and attributes;
 * typing and the finer visibility rules are d2_program_verify's job. The
 * printer writes every attribute in schema order, so its output is canonical.
 */
#include "program.h"

#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printer ---- */

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '@'; }

/* Prints a variable name, quoted unless it is a plain identifier other than '_'. */
static void print_name(d2_buf *b, const char *name)
{
    bool plain = name[0] && is_ident_start((unsigned char)name[0]) && strcmp(name, "_") != 0;
    for (const char *q = name; plain && *q; q++)
        plain = is_ident_char((unsigned char)*q);
    if (plain) {
        d2_buf_puts(b, name);
        return;
    }
    d2_attr_value v;
    v.type = D2_ATTR_STR;
    v.u.s = (char *)name;
    d2_attr_print_literal(b, &v);
}

static void print_var(d2_buf *b, const d2_program *p, int v)
{
    if (v == -1)
        d2_buf_puts(b, "_");
    else if (v < 0 || v >= p->n_vars)
        d2_buf_printf(b, "<invalid var %d>", v);
    else
        print_name(b, p->vars[v].name);
}

static void print_type(d2_buf *b, const d2_type *t)
{
    bool arr = t->kind == D2_VALUE_ARRAY;
    if (arr)
        d2_buf_puts(b, "array<");
    d2_buf_puts(b, d2_dtype_name(t->dtype));
    d2_buf_puts(b, "[");
    int nd = t->shape.ndim < 0 ? 0 : t->shape.ndim > D2_MAX_DIMS ? D2_MAX_DIMS : t->shape.ndim;
    for (int i = 0; i < nd; i++) {
        if (i)
            d2_buf_puts(b, ",");
        d2_buf_put_i64(b, t->shape.dims[i]);
    }
    d2_buf_puts(b, arr ? "]>" : "]");
}

static void print_decl(d2_buf *b, const d2_program *p, int v)
{
    print_var(b, p, v);
    if (v >= 0 && v < p->n_vars) {
        d2_buf_puts(b, " : ");
        print_type(b, &p->vars[v].type);
    }
}

enum { K_F64, K_F32, K_F16, K_BF16 };

/* True when the decimal t reads back as exactly the value v (of kind k;
 * bits are the raw float16/bfloat16 bits). */
static bool reads_back(const char *t, double v, int k, uint16_t bits)
{
    switch (k) {
    case K_F64: return strtod(t, NULL) == v;
    case K_F32: return strtof(t, NULL) == (float)v;
    case K_F16: return d2_f32_to_f16(strtof(t, NULL)) == bits;
    default: return d2_f32_to_bf16(strtof(t, NULL)) == bits;
    }
}

/* Prints the shortest decimal that reads back exactly; integral values
 * below 1e16 are written without an exponent (100, not 1e+02). */
static void print_real(d2_buf *b, double v, int k, uint16_t bits)
{
    if (isnan(v)) {
        d2_buf_puts(b, "nan");
        return;
    }
    if (isinf(v)) {
        d2_buf_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    char t[48];
    int maxprec = k == K_F64 ? 17 : 9, prec = 1;
    for (; prec <= maxprec; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, v);
        if (reads_back(t, v, k, bits))
            break;
    }
    const char *e = strchr(t, 'e');
    if (e) {
        int x = atoi(e + 1);
        char t2[48];
        if (x >= prec && x < 16) {
            snprintf(t2, sizeof t2, "%.*g", x + 1, v);
            if (reads_back(t2, v, k, bits))
                memcpy(t, t2, sizeof t);
        }
    }
    d2_buf_puts(b, t);
}

static void print_value(d2_buf *b, d2_dtype dt, const void *data, int64_t i)
{
    switch (dt) {
    case D2_F32: print_real(b, ((const float *)data)[i], K_F32, 0); break;
    case D2_F64: print_real(b, ((const double *)data)[i], K_F64, 0); break;
    case D2_I32: d2_buf_put_i64(b, ((const int32_t *)data)[i]); break;
    case D2_I64: d2_buf_put_i64(b, ((const int64_t *)data)[i]); break;
    case D2_BOOL: d2_buf_puts(b, ((const uint8_t *)data)[i] ? "true" : "false"); break;
    case D2_I8:
    case D2_I16:
    case D2_U8: d2_buf_printf(b, "%d", (int)d2_elem_get(dt, data, i)); break;
    case D2_F16: {
        uint16_t h = ((const uint16_t *)data)[i];
        print_real(b, d2_f16_to_f32(h), K_F16, h);
        break;
    }
    case D2_BF16: {
        uint16_t h = ((const uint16_t *)data)[i];
        print_real(b, d2_bf16_to_f32(h), K_BF16, h);
        break;
    }
    default: d2_buf_puts(b, "0"); break;
    }
}

#define VALUES_PER_LINE 8

/* Prints " = [v, v, ...]" for a parameter's data; prints nothing when the
 * data is not a CPU tensor. */
static void print_data(d2_buf *b, const d2_var *v)
{
    d2_tensor *t = v->data;
    if (t->kind != D2_VALUE_TENSOR || (unsigned)t->dtype >= D2_NUM_DTYPES)
        return;
    int64_t n = d2_tensor_numel(t);
    if (n > 0 && (!t->storage || !t->storage->backend ||
                  t->storage->backend->kind != D2_BACKEND_CPU))
        return;
    d2_tensor *c = n > 0 ? d2_tensor_contiguous(t, NULL) : NULL;
    if (n > 0 && !c) {
        b->oom = true;
        return;
    }
    const void *data = c ? d2_tensor_data(c) : NULL;
    bool wrap = n > VALUES_PER_LINE;
    d2_buf_puts(b, wrap ? " = [\n    " : " = [");
    for (int64_t i = 0; i < n; i++) {
        if (i)
            d2_buf_puts(b, i % VALUES_PER_LINE == 0 ? ",\n    " : ", ");
        print_value(b, t->dtype, data, i);
    }
    d2_buf_puts(b, wrap ? "\n]" : "]");
    d2_tensor_unref(c);
}

static void print_op(d2_buf *b, const d2_program *p, const d2_op *op)
{
    const d2_opdef *def = d2_op_def(op->id);
    d2_buf_puts(b, "  ");
    for (int i = 0; i < op->n_out; i++) {
        if (i)
            d2_buf_puts(b, ", ");
        print_decl(b, p, op->out[i]);
    }
    if (op->n_out)
        d2_buf_puts(b, " = ");
    d2_buf_puts(b, def ? def->name : "<invalid op>");
    d2_buf_puts(b, "(");
    for (int i = 0; i < op->n_in; i++) {
        if (i)
            d2_buf_puts(b, ", ");
        print_var(b, p, op->in[i]);
    }
    d2_buf_puts(b, ")");
    if (op->attrs.n > 0) {
        d2_buf_puts(b, " {");
        for (int i = 0; i < op->attrs.n; i++) {
            if (i)
                d2_buf_puts(b, ", ");
            if (def && i < def->n_attrs) {
                d2_buf_puts(b, def->attrs[i].name);
                d2_buf_puts(b, " = ");
            } else
                d2_buf_printf(b, "<attr %d> = ", i);
            d2_attr_print_literal(b, &op->attrs.v[i]);
        }
        d2_buf_puts(b, "}");
    }
    if (op->line > 0) {
        d2_buf_puts(b, " loc(");
        d2_buf_put_i64(b, op->line);
        d2_buf_puts(b, ":");
        d2_buf_put_i64(b, op->col);
        d2_buf_puts(b, ")");
    }
    d2_buf_puts(b, "\n");
}

char *d2_program_print(const d2_program *p, bool with_data)
{
    d2_buf b;
    d2_buf_init(&b);
    bool any_param = false;
    for (int i = 0; i < p->n_vars; i++) {
        const d2_var *v = &p->vars[i];
        if (!v->persistable)
            continue;
        any_param = true;
        d2_buf_puts(&b, "param ");
        print_decl(&b, p, i);
        if (with_data && v->data)
            print_data(&b, v);
        d2_buf_puts(&b, "\n");
    }
    for (int bi = 0; bi < p->n_blocks; bi++) {
        const d2_block *blk = &p->blocks[bi];
        if (bi > 0 || any_param)
            d2_buf_puts(&b, "\n");
        d2_buf_printf(&b, "block ^%d ", bi);
        if (blk->parent >= 0)
            d2_buf_printf(&b, "parent ^%d ", blk->parent);
        d2_buf_puts(&b, "(");
        for (int i = 0; i < blk->n_params; i++) {
            if (i)
                d2_buf_puts(&b, ", ");
            print_decl(&b, p, blk->params[i]);
        }
        d2_buf_puts(&b, ") {\n");
        for (int i = 0; i < blk->n_ops; i++)
            print_op(&b, p, &blk->ops[i]);
        d2_buf_puts(&b, bi == 0 ? "  return" : "  yield");
        for (int i = 0; i < blk->n_yields; i++) {
            d2_buf_puts(&b, i ? ", " : " ");
            print_var(&b, p, blk->yields[i]);
        }
        d2_buf_puts(&b, "\n}\n");
    }
    return d2_buf_take(&b);
}

/* ---- parser ---- */

#define MAX_DIM_VALUE ((int64_t)1 << 40)

typedef struct parser {
    const char *text, *src;
    const char *p; /* current position */
    d2_err *err;
    d2_program *prog;
    int cur_block;
    /* scratch, reused per statement */
    char **names;
    const char **name_pos;
    d2_type *types;
    int n_names, cap_names;
    int *ins;
    int n_ins, cap_ins;
    /* block references seen in attributes, checked once every block exists */
    int64_t *brefs;
    const char **bref_pos;
    int n_brefs, cap_brefs;
} parser;

/* Formats "<src>:<line>:<col>: error: <msg>" for position `at` into the
 * caller's error. Returns -1. */
static int perr(parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(parser *ps, const char *at, const char *fmt, ...)
{
    int line = 1, col = 1;
    for (const char *q = ps->text; q < at && *q; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[D2_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return d2_err_set(ps->err, D2_ERR_PARSE, "%s:%d:%d: error: %s", ps->src, line, col, msg);
}

static int oom(parser *ps)
{
    return d2_err_set(ps->err, D2_ERR_NOMEM, "out of memory parsing a program");
}

/* Passes a library error up with the position prepended (keeps NOMEM as is). */
static int pass_err(parser *ps, const char *at, const d2_err *e)
{
    if (e->code == D2_ERR_NOMEM)
        return d2_err_set(ps->err, D2_ERR_NOMEM, "%s", e->msg);
    return perr(ps, at, "%s", e->msg);
}

/* Describes what is at q for "expected X, found Y" messages. */
static const char *found(const char *q, char *buf, size_t n)
{
    unsigned char c = (unsigned char)*q;
    if (c == 0)
        return "end of input";
    if (c == '\n')
        return "end of line";
    if (is_ident_char(c)) {
        int len = 0;
        while (len < 32 && is_ident_char((unsigned char)q[len]))
            len++;
        snprintf(buf, n, "'%.*s'", len, q);
    } else if (c >= 0x20 && c < 0x7f) {
        snprintf(buf, n, "'%c'", c);
    } else {
        snprintf(buf, n, "byte 0x%02x", c);
    }
    return buf;
}

static int expected(parser *ps, const char *what)
{
    char fb[48];
    return perr(ps, ps->p, "expected %s, found %s", what, found(ps->p, fb, sizeof fb));
}

/* Skips blanks and a comment, not the newline. */
static void skip_sp(parser *ps)
{
    for (;;) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\r')
            ps->p++;
        else if (c == '#')
            while (*ps->p && *ps->p != '\n')
                ps->p++;
        else
            return;
    }
}

/* Skips blanks, comments and newlines. */
static void skip_all(parser *ps)
{
    for (;;) {
        skip_sp(ps);
        if (*ps->p != '\n')
            return;
        ps->p++;
    }
}

static bool accept(parser *ps, char c)
{
    skip_sp(ps);
    if (*ps->p != c)
        return false;
    ps->p++;
    return true;
}

static int expect(parser *ps, char c)
{
    if (accept(ps, c))
        return 0;
    char what[8];
    snprintf(what, sizeof what, "'%c'", c);
    return expected(ps, what);
}

/* Ends a statement: optional blanks/comment, then a newline or end of input. */
static int expect_eol(parser *ps)
{
    skip_sp(ps);
    if (*ps->p == '\n') {
        ps->p++;
        return 0;
    }
    if (*ps->p == 0)
        return 0;
    return expected(ps, "end of line");
}

/* Reads a bare identifier at the current position; returns its length (0 = none). */
static size_t ident(parser *ps)
{
    skip_sp(ps);
    const char *q = ps->p;
    if (!is_ident_start((unsigned char)*q))
        return 0;
    while (is_ident_char((unsigned char)*q))
        q++;
    return (size_t)(q - ps->p);
}

static bool keyword(parser *ps, const char *kw)
{
    size_t n = ident(ps);
    if (n != strlen(kw) || memcmp(ps->p, kw, n) != 0)
        return false;
    ps->p += n;
    return true;
}

/* Reads a NAME (identifier or quoted string) into a new string (*out, owned
 * by the caller); *bare_underscore (when not NULL) is set for a bare '_'. */
static int read_name(parser *ps, char **out, bool *bare_underscore)
{
    skip_sp(ps);
    *out = NULL;
    if (bare_underscore)
        *bare_underscore = false;
    if (*ps->p == '"') {
        if (ps->p[1] == '"')
            return perr(ps, ps->p, "empty variable name");
        d2_err e = {0};
        d2_attr_value v;
        const char *end;
        if (d2_attr_parse_literal(D2_ATTR_STR, ps->p, &end, &v, &e) < 0)
            return pass_err(ps, ps->p, &e);
        *out = v.u.s;
        ps->p = end;
        return 0;
    }
    size_t n = ident(ps);
    if (n == 0)
        return expected(ps, "a name");
    if (bare_underscore && n == 1 && *ps->p == '_')
        *bare_underscore = true;
    *out = d2_strndup(ps->p, n);
    if (!*out)
        return oom(ps);
    ps->p += n;
    return 0;
}

/* Reads a decimal integer (optionally negative) with overflow checking. */
static int read_int(parser *ps, int64_t *out, const char *what)
{
    skip_sp(ps);
    const char *q = ps->p;
    bool neg = false;
    if (*q == '-') {
        neg = true;
        q++;
    }
    if (!isdigit((unsigned char)*q))
        return expected(ps, what);
    int64_t v = 0;
    while (isdigit((unsigned char)*q)) {
        if (v > (INT64_MAX - 9) / 10)
            return perr(ps, ps->p, "integer is too large");
        v = v * 10 + (*q++ - '0');
    }
    if (is_ident_char((unsigned char)*q))
        return expected(ps, what);
    *out = neg ? -v : v;
    ps->p = q;
    return 0;
}

static int read_block_ref(parser *ps, int64_t *out)
{
    skip_sp(ps);
    if (*ps->p != '^')
        return expected(ps, "a block reference '^N'");
    ps->p++;
    if (!isdigit((unsigned char)*ps->p))
        return expected(ps, "a block number");
    return read_int(ps, out, "a block number");
}

/* TYPE := DTYPE '[' dims ']' | 'array' '<' DTYPE '[' dims ']' '>' */
static int read_type(parser *ps, d2_type *t)
{
    memset(t, 0, sizeof *t);
    t->kind = D2_VALUE_TENSOR;
    skip_sp(ps);
    if (keyword(ps, "array")) {
        t->kind = D2_VALUE_ARRAY;
        if (expect(ps, '<') < 0)
            return -1;
    }
    skip_sp(ps);
    const char *at = ps->p;
    size_t n = ident(ps);
    if (n == 0)
        return expected(ps, "a type such as float32[2,-1]");
    int dt = d2_dtype_parse(ps->p, n);
    if (dt < 0)
        return perr(ps, at, "unknown dtype '%.*s'", (int)(n > 40 ? 40 : n), at);
    ps->p += n;
    t->dtype = (d2_dtype)dt;
    if (expect(ps, '[') < 0)
        return -1;
    if (!accept(ps, ']')) {
        for (;;) {
            skip_sp(ps);
            const char *dat = ps->p;
            int64_t d;
            if (read_int(ps, &d, "a dimension") < 0)
                return -1;
            if (d < -1 || d > MAX_DIM_VALUE)
                return perr(ps, dat, "bad dimension %lld (use -1 for a dynamic one)",
                            (long long)d);
            if (t->shape.ndim == D2_MAX_DIMS)
                return perr(ps, dat, "more than %d dimensions", D2_MAX_DIMS);
            t->shape.dims[t->shape.ndim++] = d;
            if (accept(ps, ']'))
                break;
            if (expect(ps, ',') < 0)
                return -1;
        }
    }
    if (t->kind == D2_VALUE_ARRAY && expect(ps, '>') < 0)
        return -1;
    return 0;
}

/* Finds the block that defines variable v, or -1. Parameters are visible
 * everywhere; other variables must be in block `blk` or an ancestor. */
static bool visible_from(const d2_program *p, int v, int blk)
{
    if (p->vars[v].persistable)
        return true;
    for (int b = blk, guard = 0; b >= 0 && guard <= p->n_blocks; b = p->blocks[b].parent, guard++)
        if (p->vars[v].block == b)
            return true;
    return false;
}

/* Resolves a use of a variable at the current position; '_' gives -1 when allowed. */
static int read_use(parser *ps, int *var, bool allow_absent)
{
    skip_sp(ps);
    const char *at = ps->p;
    char *name;
    bool us;
    if (read_name(ps, &name, &us) < 0)
        return -1;
    if (us) {
        d2_free(name);
        if (!allow_absent)
            return perr(ps, at, "'_' (absent input) is not allowed here");
        *var = -1;
        return 0;
    }
    int v = d2_program_find_var(ps->prog, name);
    if (v < 0) {
        perr(ps, at, "undefined variable '%s'", name);
        d2_free(name);
        return -1;
    }
    if (!visible_from(ps->prog, v, ps->cur_block)) {
        perr(ps, at, "variable '%s' (block ^%d) is not visible in block ^%d", name,
             ps->prog->vars[v].block, ps->cur_block);
        d2_free(name);
        return -1;
    }
    d2_free(name);
    *var = v;
    return 0;
}

static void clear_names(parser *ps)
{
    for (int i = 0; i < ps->n_names; i++)
        d2_free(ps->names[i]);
    ps->n_names = 0;
}

/* Reads "name : TYPE" into the scratch list, checking the name is new. */
static int read_decl(parser *ps)
{
    if (ps->n_names == ps->cap_names) {
        int nc = ps->cap_names ? ps->cap_names * 2 : 8;
        char **nn = d2_realloc(ps->names, sizeof *nn * (size_t)nc);
        if (!nn)
            return oom(ps);
        ps->names = nn;
        const char **np = d2_realloc(ps->name_pos, sizeof *np * (size_t)nc);
        if (!np)
            return oom(ps);
        ps->name_pos = np;
        d2_type *nt = d2_realloc(ps->types, sizeof *nt * (size_t)nc);
        if (!nt)
            return oom(ps);
        ps->types = nt;
        ps->cap_names = nc;
    }
    skip_sp(ps);
    const char *at = ps->p;
    char *name;
    bool us;
    if (read_name(ps, &name, &us) < 0)
        return -1;
    if (us) {
        d2_free(name);
        return perr(ps, at, "'_' cannot name a variable (write \"_\" to quote it)");
    }
    int i = ps->n_names;
    ps->names[i] = name;
    ps->name_pos[i] = at;
    ps->n_names++;
    if (d2_program_find_var(ps->prog, name) >= 0)
        return perr(ps, at, "variable '%s' is already defined", name);
    for (int j = 0; j < i; j++)
        if (strcmp(ps->names[j], name) == 0)
            return perr(ps, at, "variable '%s' is already defined", name);
    if (expect(ps, ':') < 0)
        return -1;
    return read_type(ps, &ps->types[i]);
}

/* Creates the variables of the scratch list in the current block; their
 * indices go to out (n_names entries). */
static int define_names(parser *ps, int *out)
{
    for (int i = 0; i < ps->n_names; i++) {
        d2_err e = {0};
        int v = d2_program_add_var(ps->prog, ps->cur_block, ps->names[i], &ps->types[i], &e);
        if (v < 0)
            return pass_err(ps, ps->name_pos[i], &e);
        out[i] = v;
    }
    return 0;
}

static int push_in(parser *ps, int v)
{
    if (ps->n_ins == ps->cap_ins) {
        int nc = ps->cap_ins ? ps->cap_ins * 2 : 8;
        int *a = d2_realloc(ps->ins, sizeof *a * (size_t)nc);
        if (!a)
            return oom(ps);
        ps->ins = a;
        ps->cap_ins = nc;
    }
    ps->ins[ps->n_ins++] = v;
    return 0;
}

static int push_bref(parser *ps, int64_t b, const char *at)
{
    if (ps->n_brefs == ps->cap_brefs) {
        int nc = ps->cap_brefs ? ps->cap_brefs * 2 : 8;
        int64_t *a = d2_realloc(ps->brefs, sizeof *a * (size_t)nc);
        if (!a)
            return oom(ps);
        ps->brefs = a;
        const char **q = d2_realloc(ps->bref_pos, sizeof *q * (size_t)nc);
        if (!q)
            return oom(ps);
        ps->bref_pos = q;
        ps->cap_brefs = nc;
    }
    ps->brefs[ps->n_brefs] = b;
    ps->bref_pos[ps->n_brefs++] = at;
    return 0;
}

/* '{' attr { ',' attr } '}' into a (which starts from the defaults). */
static int read_attrs(parser *ps, const d2_opdef *def, d2_attrs *a, bool *seen)
{
    skip_all(ps);
    if (*ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        skip_all(ps);
        const char *at = ps->p;
        size_t n = ident(ps);
        if (n == 0)
            return expected(ps, "an attribute name");
        int idx = -1;
        for (int i = 0; i < def->n_attrs; i++)
            if (strlen(def->attrs[i].name) == n && memcmp(def->attrs[i].name, at, n) == 0)
                idx = i;
        if (idx < 0)
            return perr(ps, at, "op %s has no attribute '%.*s'", def->name, (int)(n > 64 ? 64 : n),
                        at);
        if (seen[idx])
            return perr(ps, at, "attribute '%s' is given twice", def->attrs[idx].name);
        seen[idx] = true;
        ps->p += n;
        if (expect(ps, '=') < 0)
            return -1;
        skip_all(ps);
        const char *vat = ps->p;
        d2_err e = {0};
        d2_attr_value v;
        const char *end;
        if (d2_attr_parse_literal(def->attrs[idx].type, ps->p, &end, &v, &e) < 0) {
            if (e.code == D2_ERR_NOMEM)
                return oom(ps);
            char *tail = strstr(e.msg, " at '"); /* the position says where */
            if (tail)
                *tail = 0;
            return perr(ps, vat, "attribute '%s' of %s: %s", def->attrs[idx].name, def->name,
                        e.msg);
        }
        if (is_ident_char((unsigned char)*end) && def->attrs[idx].type != D2_ATTR_STR &&
            def->attrs[idx].type != D2_ATTR_INTS && def->attrs[idx].type != D2_ATTR_FLOATS) {
            d2_attr_value_free(&v);
            return perr(ps, vat, "attribute '%s' of %s: malformed value", def->attrs[idx].name,
                        def->name);
        }
        d2_attr_value_free(&a->v[idx]);
        a->v[idx] = v;
        ps->p = end;
        if (v.type == D2_ATTR_BLOCK && push_bref(ps, v.u.i, vat) < 0)
            return -1;
        skip_all(ps);
        if (*ps->p == '}') {
            ps->p++;
            return 0;
        }
        if (*ps->p != ',')
            return expected(ps, "',' or '}' in the attribute list");
        ps->p++;
    }
}

/* An op statement after its outputs (already in the scratch list):
 * OP '(' ins ')' [attrs] [loc]. */
static int read_op(parser *ps)
{
    skip_sp(ps);
    const char *at = ps->p;
    size_t n = ident(ps);
    if (n == 0)
        return expected(ps, "an op name");
    const d2_opdef *def = d2_op_lookup(at, n);
    if (!def)
        return perr(ps, at, "unknown op '%.*s'", (int)(n > 64 ? 64 : n), at);
    ps->p += n;
    if (expect(ps, '(') < 0)
        return -1;
    ps->n_ins = 0;
    if (!accept(ps, ')')) {
        for (;;) {
            int v;
            if (read_use(ps, &v, true) < 0 || push_in(ps, v) < 0)
                return -1;
            if (accept(ps, ')'))
                break;
            if (!accept(ps, ','))
                return expected(ps, "',' or ')'");
        }
    }
    d2_err e = {0};
    if (d2_op_check_arity(def, ps->n_ins, ps->n_names, &e) < 0)
        return pass_err(ps, at, &e);

    d2_attrs attrs;
    d2_attrs_init_default(def, &attrs);
    bool *seen = d2_calloc((size_t)def->n_attrs + 1, 1);
    int *outs = d2_calloc((size_t)ps->n_names + 1, sizeof *outs);
    int rc = -1;
    if (attrs.n != def->n_attrs || !seen || !outs) {
        oom(ps);
        goto done;
    }
    if (accept(ps, '{') && read_attrs(ps, def, &attrs, seen) < 0)
        goto done;
    for (int i = 0; i < def->n_attrs; i++)
        if (!seen[i] && !def->attrs[i].has_default) {
            perr(ps, at, "op %s: required attribute '%s' is missing", def->name,
                 def->attrs[i].name);
            goto done;
        }
    int64_t line = 0, col = 0;
    if (keyword(ps, "loc")) {
        if (expect(ps, '(') < 0 || read_int(ps, &line, "a line number") < 0 ||
            expect(ps, ':') < 0 || read_int(ps, &col, "a column number") < 0 ||
            expect(ps, ')') < 0)
            goto done;
        if (line < 1 || line > INT32_MAX || col < 0 || col > INT32_MAX) {
            perr(ps, at, "bad source position %lld:%lld", (long long)line, (long long)col);
            goto done;
        }
    }
    if (expect_eol(ps) < 0 || define_names(ps, outs) < 0)
        goto done;
    int oi = d2_block_add_op(ps->prog, ps->cur_block, def->id, ps->ins, ps->n_ins, outs,
                             ps->n_names, &attrs, &e);
    if (oi < 0) {
        pass_err(ps, at, &e);
        goto done;
    }
    ps->prog->blocks[ps->cur_block].ops[oi].line = (int)line;
    ps->prog->blocks[ps->cur_block].ops[oi].col = (int)col;
    rc = 0;
done:
    d2_attrs_free(&attrs);
    d2_free(seen);
    d2_free(outs);
    return rc;
}

/* 'return' / 'yield' followed by names to the end of the line. */
static int read_yields(parser *ps)
{
    skip_sp(ps);
    if (*ps->p == '\n' || *ps->p == 0)
        return expect_eol(ps);
    for (;;) {
        int v;
        d2_err e = {0};
        if (read_use(ps, &v, false) < 0)
            return -1;
        if (d2_block_add_yield(ps->prog, ps->cur_block, v, &e) < 0)
            return pass_err(ps, ps->p, &e);
        if (!accept(ps, ','))
            break;
    }
    return expect_eol(ps);
}

/* Statements of one block up to its closing '}'. */
static int read_body(parser *ps)
{
    bool ended = false;
    const char *end_kw = ps->cur_block == 0 ? "return" : "yield";
    for (;;) {
        skip_all(ps);
        const char *at = ps->p;
        if (*at == 0)
            return perr(ps, at, "unexpected end of input in block ^%d (missing '}')",
                        ps->cur_block);
        if (*at == '}') {
            if (!ended)
                return perr(ps, at, "block ^%d must end with '%s'", ps->cur_block, end_kw);
            ps->p++;
            return expect_eol(ps);
        }
        if (ended)
            return perr(ps, at, "statement after '%s'", end_kw);
        clear_names(ps);
        size_t n = ident(ps);
        bool is_ret = n == 6 && memcmp(at, "return", 6) == 0;
        bool is_yield = n == 5 && memcmp(at, "yield", 5) == 0;
        if (is_ret || is_yield) {
            const char *q = at + n;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q != ':' && *q != ',') {
                if ((ps->cur_block == 0) != is_ret)
                    return perr(ps, at, "block ^%d ends with '%s', not '%.*s'", ps->cur_block,
                                end_kw, (int)n, at);
                ps->p += n;
                if (read_yields(ps) < 0)
                    return -1;
                ended = true;
                continue;
            }
        }
        if (n > 0) {
            const char *q = at + n;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '(') { /* op without outputs */
                if (read_op(ps) < 0)
                    return -1;
                continue;
            }
        } else if (*at != '"') {
            return expected(ps, "a statement");
        }
        for (;;) {
            if (read_decl(ps) < 0)
                return -1;
            if (accept(ps, '='))
                break;
            if (!accept(ps, ','))
                return expected(ps, "',' or '='");
        }
        if (read_op(ps) < 0)
            return -1;
    }
}

static int read_block(parser *ps)
{
    skip_sp(ps);
    const char *at = ps->p;
    int64_t idx, parent = -1;
    if (read_block_ref(ps, &idx) < 0)
        return -1;
    d2_program *p = ps->prog;
    int want = ps->cur_block + 1;
    if (idx != want)
        return perr(ps, at, "expected block ^%d here, found ^%lld (blocks are numbered in order)",
                    want, (long long)idx);
    const char *pat = NULL;
    if (keyword(ps, "parent")) {
        skip_sp(ps);
        pat = ps->p;
        if (read_block_ref(ps, &parent) < 0)
            return -1;
    }
    if (idx == 0 && pat)
        return perr(ps, pat, "block ^0 cannot have a parent");
    if (idx > 0 && !pat)
        return expected(ps, "'parent ^N'");
    if (idx > 0 && parent >= idx)
        return perr(ps, pat, "parent ^%lld must be defined before block ^%lld", (long long)parent,
                    (long long)idx);
    d2_err e = {0};
    if (idx > 0 && d2_program_add_block(p, (int)parent, &e) < 0)
        return pass_err(ps, at, &e);
    ps->cur_block = (int)idx;
    if (expect(ps, '(') < 0)
        return -1;
    clear_names(ps);
    if (!accept(ps, ')')) {
        for (;;) {
            if (read_decl(ps) < 0)
                return -1;
            if (accept(ps, ')'))
                break;
            if (!accept(ps, ','))
                return expected(ps, "',' or ')'");
        }
    }
    int *vars = d2_calloc((size_t)ps->n_names + 1, sizeof *vars);
    if (!vars)
        return oom(ps);
    int rc = define_names(ps, vars);
    for (int i = 0; rc == 0 && i < ps->n_names; i++)
        if (d2_block_add_param(p, ps->cur_block, vars[i], &e) < 0)
            rc = pass_err(ps, at, &e);
    d2_free(vars);
    if (rc < 0 || expect(ps, '{') < 0 || expect_eol(ps) < 0)
        return -1;
    return read_body(ps);
}

/* One value of parameter data into slot i of buf (element type dt). */
static int read_value(parser *ps, d2_dtype dt, void *buf, int64_t i)
{
    skip_all(ps);
    const char *at = ps->p, *q = ps->p;
    while (is_ident_char((unsigned char)*q) || *q == '-' || *q == '+')
        q++;
    size_t n = (size_t)(q - at);
    char tok[64];
    if (n == 0)
        return expected(ps, "a value");
    if (n >= sizeof tok)
        return perr(ps, at, "value is too long");
    memcpy(tok, at, n);
    tok[n] = 0;
    char *end = NULL;
    errno = 0;
    switch (dt) {
    case D2_F32:
    case D2_F16:
    case D2_BF16: {
        float f = strtof(tok, &end);
        if (end != tok + n)
            break;
        if (dt == D2_F32)
            ((float *)buf)[i] = f;
        else if (dt == D2_F16)
            ((uint16_t *)buf)[i] = d2_f32_to_f16(f);
        else
            ((uint16_t *)buf)[i] = d2_f32_to_bf16(f);
        ps->p = q;
        return 0;
    }
    case D2_F64: {
        double f = strtod(tok, &end);
        if (end != tok + n)
            break;
        ((double *)buf)[i] = f;
        ps->p = q;
        return 0;
    }
    case D2_I8:
    case D2_I16:
    case D2_U8: {
        long long v = strtoll(tok, &end, 10);
        if (end != tok + n || !(isdigit((unsigned char)tok[0]) || tok[0] == '-'))
            break;
        long long lo = dt == D2_I8 ? INT8_MIN : dt == D2_I16 ? INT16_MIN : 0;
        long long hi = dt == D2_I8 ? INT8_MAX : dt == D2_I16 ? INT16_MAX : UINT8_MAX;
        if (errno == ERANGE || v < lo || v > hi)
            return perr(ps, at, "value %s is out of range for %s", tok, d2_dtype_name(dt));
        if (dt == D2_I16)
            ((int16_t *)buf)[i] = (int16_t)v;
        else if (dt == D2_I8)
            ((int8_t *)buf)[i] = (int8_t)v;
        else
            ((uint8_t *)buf)[i] = (uint8_t)v;
        ps->p = q;
        return 0;
    }
    case D2_I32:
    case D2_I64: {
        long long v = strtoll(tok, &end, 10);
        if (end != tok + n || !(isdigit((unsigned char)tok[0]) || tok[0] == '-'))
            break;
        if (errno == ERANGE || (dt == D2_I32 && (v < INT32_MIN || v > INT32_MAX)))
            return perr(ps, at, "value %s is out of range for %s", tok, d2_dtype_name(dt));
        if (dt == D2_I32)
            ((int32_t *)buf)[i] = (int32_t)v;
        else
            ((int64_t *)buf)[i] = v;
        ps->p = q;
        return 0;
    }
    case D2_BOOL: {
        int b = strcmp(tok, "true") == 0 || strcmp(tok, "1") == 0    ? 1
                : strcmp(tok, "false") == 0 || strcmp(tok, "0") == 0 ? 0
                                                                     : -1;
        if (b < 0)
            break;
        ((uint8_t *)buf)[i] = (uint8_t)b;
        ps->p = q;
        return 0;
    }
    default: break;
    }
    return perr(ps, at, "'%s' is not a valid %s value", tok, d2_dtype_name(dt));
}

/* '[' values ']' of a parameter of type t; *out receives a new tensor. */
static int read_data(parser *ps, const d2_type *t, const char *type_at, d2_tensor **out)
{
    *out = NULL;
    if (t->kind != D2_VALUE_TENSOR)
        return perr(ps, type_at, "a tensor array parameter cannot carry data");
    if (!d2_shape_is_static(&t->shape))
        return perr(ps, type_at, "a parameter with data needs a static shape");
    int64_t numel = 1;
    for (int i = 0; i < t->shape.ndim; i++) {
        if (t->shape.dims[i] && numel > (INT64_MAX / 16) / t->shape.dims[i])
            return perr(ps, type_at, "parameter is too large");
        numel *= t->shape.dims[i];
    }
    size_t es = d2_dtype_size(t->dtype);
    if (es == 0)
        return perr(ps, type_at, "unsupported dtype");
    skip_all(ps);
    if (*ps->p != '[')
        return expected(ps, "'['");
    ps->p++;
    int64_t n = 0, cap = 0;
    char *buf = NULL;
    int rc = -1;
    skip_all(ps);
    if (*ps->p != ']') {
        for (;;) {
            skip_all(ps);
            if (n == numel) {
                perr(ps, ps->p, "too many values: the type has %lld", (long long)numel);
                goto done;
            }
            if (n == cap) {
                int64_t nc = cap ? cap * 2 : 16;
                if (nc > numel)
                    nc = numel;
                char *nb = d2_realloc(buf, (size_t)nc * es);
                if (!nb) {
                    oom(ps);
                    goto done;
                }
                buf = nb;
                cap = nc;
            }
            if (read_value(ps, t->dtype, buf, n) < 0)
                goto done;
            n++;
            skip_all(ps);
            if (*ps->p == ']')
                break;
            if (*ps->p != ',') {
                expected(ps, "',' or ']'");
                goto done;
            }
            ps->p++;
        }
    }
    if (n != numel) {
        perr(ps, ps->p, "expected %lld values, found %lld", (long long)numel, (long long)n);
        goto done;
    }
    ps->p++;
    d2_err e = {0};
    *out = numel ? d2_tensor_from_data(t->dtype, t->shape.ndim, t->shape.dims, buf, &e)
                 : d2_tensor_zeros(t->dtype, t->shape.ndim, t->shape.dims, &e);
    if (!*out) {
        pass_err(ps, type_at, &e);
        goto done;
    }
    rc = 0;
done:
    d2_free(buf);
    return rc;
}

static int read_param(parser *ps)
{
    clear_names(ps);
    if (read_decl(ps) < 0)
        return -1;
    d2_tensor *data = NULL;
    if (accept(ps, '=') && read_data(ps, &ps->types[0], ps->name_pos[0], &data) < 0)
        return -1;
    d2_err e = {0};
    int v = d2_program_add_param(ps->prog, ps->names[0], data, &ps->types[0], &e);
    d2_tensor_unref(data);
    if (v < 0)
        return pass_err(ps, ps->name_pos[0], &e);
    return expect_eol(ps);
}

static int read_program(parser *ps)
{
    for (;;) {
        skip_all(ps);
        if (*ps->p == 0)
            break;
        if (keyword(ps, "param")) {
            if (read_param(ps) < 0)
                return -1;
        } else if (keyword(ps, "block")) {
            if (read_block(ps) < 0)
                return -1;
        } else {
            return expected(ps, "'param' or 'block'");
        }
    }
    if (ps->cur_block < 0)
        return perr(ps, ps->p, "the program has no block ^0");
    for (int i = 0; i < ps->n_brefs; i++)
        if (ps->brefs[i] < 0 || ps->brefs[i] >= ps->prog->n_blocks)
            return perr(ps, ps->bref_pos[i], "block ^%lld does not exist", (long long)ps->brefs[i]);
    return 0;
}

d2_program *d2_program_parse(const char *text, const char *srcname, d2_err *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.text = ps.p = text ? text : "";
    ps.src = srcname ? srcname : "<input>";
    ps.err = err;
    ps.cur_block = -1;
    ps.prog = d2_program_new(err);
    if (!ps.prog)
        return NULL;
    int rc = read_program(&ps);
    clear_names(&ps);
    d2_free(ps.names);
    d2_free(ps.name_pos);
    d2_free(ps.types);
    d2_free(ps.ins);
    d2_free(ps.brefs);
    d2_free(ps.bref_pos);
    if (rc < 0) {
        if (err && err->code == D2_OK)
            d2_err_set(err, D2_ERR_PARSE, "%s: error: malformed program", ps.src);
        d2_program_free(ps.prog);
        return NULL;
    }
    return ps.prog;
}

/* ops.c - the op registry table built from ops.def, attribute schemas, literals, eager op runs. */
#include "ops.h"

#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP(name, ins, outs, attrs, infer, flags)                                                   \
    {D2_OP_##name, #name, ins, outs, attrs, infer, NULL, flags, 0, 0, {0}, {0}, {0}, 0, 0, 0, NULL},
#define CTL(name, ins, outs, attrs, infer, flags)                                                  \
    {D2_OP_##name, #name, ins, outs, attrs, infer, ctl_##name, flags, 0, 0, {0}, {0}, {0}, 0, 0,   \
     0, NULL},
static d2_opdef op_table[D2_NUM_OPS] = {
#include "ops.def"
};
#undef OP
#undef CTL

static pthread_once_t ops_once = PTHREAD_ONCE_INIT;
static int ops_init_rc;
static char ops_init_msg[256];

/* Splits "a,b?,c*" into names and flags. */
static int parse_ports(const char *spec, char **names, bool *optional, int *n, bool *variadic)
{
    *n = 0;
    *variadic = false;
    const char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ',')
            p++;
        const char *e = p;
        while (e > s && e[-1] == ' ')
            e--;
        if (*n >= D2_MAX_PORTS || *variadic)
            return -1;
        bool opt = false;
        if (e[-1] == '*') {
            *variadic = true;
            e--;
        } else if (e[-1] == '?') {
            opt = true;
            e--;
        }
        names[*n] = d2_strndup(s, (size_t)(e - s));
        if (!names[*n])
            return -1;
        if (optional)
            optional[*n] = opt;
        (*n)++;
    }
    return 0;
}

static const struct {
    const char *name;
    d2_attr_type type;
} attr_types[] = {{"bool", D2_ATTR_BOOL},   {"int", D2_ATTR_INT},       {"float", D2_ATTR_FLOAT},
                  {"str", D2_ATTR_STR},     {"ints", D2_ATTR_INTS},     {"floats", D2_ATTR_FLOATS},
                  {"dtype", D2_ATTR_DTYPE}, {"block", D2_ATTR_BLOCK}};

static int parse_schema(d2_opdef *def, d2_err *err)
{
    const char *p = def->attrs_spec;
    int cap = 0;
    for (const char *q = p; *q; q++)
        if (*q == ':')
            cap++;
    def->attrs = d2_calloc((size_t)(cap ? cap : 1), sizeof *def->attrs);
    if (!def->attrs)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ':')
            p++;
        if (!*p)
            return d2_err_set(err, D2_ERR_INVALID, "op %s: bad attribute spec", def->name);
        d2_attr_schema *a = &def->attrs[def->n_attrs];
        a->name = d2_strndup(s, (size_t)(p - s));
        if (!a->name)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        def->n_attrs++;
        p++;
        s = p;
        while (isalpha((unsigned char)*p))
            p++;
        bool found = false;
        for (size_t i = 0; i < D2_COUNTOF(attr_types); i++)
            if (strlen(attr_types[i].name) == (size_t)(p - s) &&
                memcmp(attr_types[i].name, s, (size_t)(p - s)) == 0) {
                a->type = attr_types[i].type;
                found = true;
            }
        if (!found)
            return d2_err_set(err, D2_ERR_INVALID, "op %s: bad attribute type", def->name);
        a->def.type = a->type;
        while (*p == ' ')
            p++;
        if (*p == '=') {
            p++;
            while (*p == ' ')
                p++;
            const char *end;
            if (d2_attr_parse_literal(a->type, p, &end, &a->def, err) < 0)
                return -1;
            a->has_default = true;
            p = end;
        }
    }
    return 0;
}

/* Op names hashed into an open-addressing index (built once with the
 * registry; 0 marks an empty slot, otherwise the op's index + 1), so that a
 * lookup by name costs one hash instead of a scan over every op. */
#define OP_INDEX_CAP 4096
static uint16_t op_index[OP_INDEX_CAP];

static uint32_t op_name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void ops_index_build(void)
{
    _Static_assert(D2_NUM_OPS < OP_INDEX_CAP / 2 && D2_NUM_OPS < UINT16_MAX,
                   "grow OP_INDEX_CAP with the op registry");
    for (int i = 0; i < D2_NUM_OPS; i++) {
        const char *nm = op_table[i].name;
        uint32_t p = op_name_hash(nm, strlen(nm)) & (OP_INDEX_CAP - 1);
        while (op_index[p])
            p = (p + 1) & (OP_INDEX_CAP - 1);
        op_index[p] = (uint16_t)(i + 1);
    }
}

static void ops_init_once(void)
{
    d2_err err = {0};
    ops_index_build();
    for (int i = 0; i < D2_NUM_OPS; i++) {
        d2_opdef *d = &op_table[i];
        if (parse_ports(d->ins_spec, d->in_names, d->in_optional, &d->n_ins, &d->ins_variadic) <
                0 ||
            parse_ports(d->outs_spec, d->out_names, NULL, &d->n_outs, &d->outs_variadic) < 0 ||
            parse_schema(d, &err) < 0) {
            ops_init_rc = -1;
            snprintf(ops_init_msg, sizeof ops_init_msg, "op registry: %s: %.200s", d->name,
                     err.code ? err.msg : "bad port spec");
            return;
        }
    }
}

int d2_ops_init(d2_err *err)
{
    pthread_once(&ops_once, ops_init_once);
    if (ops_init_rc < 0)
        return d2_err_set(err, D2_ERR_INVALID, "%s", ops_init_msg);
    return 0;
}

const d2_opdef *d2_op_def(d2_op_id id)
{
    if ((unsigned)id >= D2_NUM_OPS)
        return NULL;
    d2_ops_init(NULL);
    return &op_table[id];
}

const d2_opdef *d2_op_lookup(const char *name, size_t len)
{
    d2_ops_init(NULL);
    for (uint32_t p = op_name_hash(name, len) & (OP_INDEX_CAP - 1); op_index[p];
         p = (p + 1) & (OP_INDEX_CAP - 1)) {
        const d2_opdef *d = &op_table[op_index[p] - 1];
        if (strncmp(d->name, name, len) == 0 && d->name[len] == '\0')
            return d;
    }
    return NULL;
}

int d2_op_check_arity(const d2_opdef *def, int n_in, int n_out, d2_err *err)
{
    int min_in = 0;
    for (int i = 0; i < def->n_ins; i++)
        if (!def->in_optional[i] && !(def->ins_variadic && i == def->n_ins - 1))
            min_in = i + 1;
    int max_in = def->ins_variadic ? 1 << 20 : def->n_ins;
    if (n_in < min_in || n_in > max_in)
        return d2_err_set(err, D2_ERR_INVALID, "op %s takes %s%d input%s (%s), got %d", def->name,
                          def->ins_variadic ? "at least " : "", min_in, min_in == 1 ? "" : "s",
                          def->ins_spec, n_in);
    int fixed_out = def->outs_variadic ? def->n_outs - 1 : def->n_outs;
    if (def->outs_variadic ? n_out < fixed_out : n_out != fixed_out)
        return d2_err_set(err, D2_ERR_INVALID, "op %s has %s%d output%s, got %d", def->name,
                          def->outs_variadic ? "at least " : "", fixed_out,
                          fixed_out == 1 ? "" : "s", n_out);
    return 0;
}

/* ---- attribute values ---- */

void d2_attr_value_free(d2_attr_value *v)
{
    switch (v->type) {
    case D2_ATTR_STR: d2_free(v->u.s); v->u.s = NULL; break;
    case D2_ATTR_INTS: d2_free(v->u.ints.v); v->u.ints.v = NULL; v->u.ints.n = 0; break;
    case D2_ATTR_FLOATS: d2_free(v->u.floats.v); v->u.floats.v = NULL; v->u.floats.n = 0; break;
    default: break;
    }
}

static int attr_value_copy(d2_attr_value *dst, const d2_attr_value *src)
{
    *dst = *src;
    switch (src->type) {
    case D2_ATTR_STR:
        dst->u.s = d2_strdup(src->u.s ? src->u.s : "");
        return dst->u.s ? 0 : -1;
    case D2_ATTR_INTS:
        dst->u.ints.v = d2_malloc(sizeof(int64_t) * (size_t)(src->u.ints.n + 1));
        if (!dst->u.ints.v)
            return -1;
        if (src->u.ints.n)
            memcpy(dst->u.ints.v, src->u.ints.v, sizeof(int64_t) * (size_t)src->u.ints.n);
        return 0;
    case D2_ATTR_FLOATS:
        dst->u.floats.v = d2_malloc(sizeof(double) * (size_t)(src->u.floats.n + 1));
        if (!dst->u.floats.v)
            return -1;
        if (src->u.floats.n)
            memcpy(dst->u.floats.v, src->u.floats.v, sizeof(double) * (size_t)src->u.floats.n);
        return 0;
    default: return 0;
    }
}

bool d2_attr_value_equal(const d2_attr_value *a, const d2_attr_value *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case D2_ATTR_BOOL: return a->u.b == b->u.b;
    case D2_ATTR_FLOAT:
        return a->u.f == b->u.f || (isnan(a->u.f) && isnan(b->u.f));
    case D2_ATTR_STR: return strcmp(a->u.s ? a->u.s : "", b->u.s ? b->u.s : "") == 0;
    case D2_ATTR_INTS:
        return a->u.ints.n == b->u.ints.n &&
               (a->u.ints.n == 0 ||
                memcmp(a->u.ints.v, b->u.ints.v, sizeof(int64_t) * (size_t)a->u.ints.n) == 0);
    case D2_ATTR_FLOATS:
        if (a->u.floats.n != b->u.floats.n)
            return false;
        for (int i = 0; i < a->u.floats.n; i++)
            if (a->u.floats.v[i] != b->u.floats.v[i])
                return false;
        return true;
    default: return a->u.i == b->u.i;
    }
}

void d2_attrs_init_default(const d2_opdef *def, d2_attrs *a)
{
    a->n = 0;
    a->v = NULL;
    if (def->n_attrs == 0)
        return;
    a->v = d2_calloc((size_t)def->n_attrs, sizeof *a->v);
    if (!a->v)
        return;
    for (int i = 0; i < def->n_attrs; i++) {
        const d2_attr_schema *s = &def->attrs[i];
        if (s->has_default) {
            if (attr_value_copy(&a->v[i], &s->def) < 0) {
                a->n = i;
                d2_attrs_free(a);
                return;
            }
        } else {
            memset(&a->v[i], 0, sizeof a->v[i]);
            a->v[i].type = s->type;
        }
    }
    a->n = def->n_attrs;
}

int d2_attrs_copy(d2_attrs *dst, const d2_attrs *src, d2_err *err)
{
    dst->n = 0;
    dst->v = NULL;
    if (src->n == 0)
        return 0;
    dst->v = d2_calloc((size_t)src->n, sizeof *dst->v);
    if (!dst->v)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory copying attributes");
    for (int i = 0; i < src->n; i++) {
        if (attr_value_copy(&dst->v[i], &src->v[i]) < 0) {
            dst->n = i;
            d2_attrs_free(dst);
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory copying attributes");
        }
    }
    dst->n = src->n;
    return 0;
}

void d2_attrs_free(d2_attrs *a)
{
    for (int i = 0; i < a->n; i++)
        d2_attr_value_free(&a->v[i]);
    d2_free(a->v);
    a->v = NULL;
    a->n = 0;
}

int d2_attr_index(const d2_opdef *def, const char *name)
{
    /* the first byte rules most names out without a call */
    for (int i = 0; i < def->n_attrs; i++) {
        const char *n = def->attrs[i].name;
        if (n == name || (n[0] == name[0] && strcmp(n, name) == 0))
            return i;
    }
    return -1;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static int parse_number(const char *s, const char **end, bool want_int, int64_t *iv, double *fv,
                        d2_err *err)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        p++;
    }
    if (!want_int && (strncmp(p, "inf", 3) == 0 || strncmp(p, "nan", 3) == 0)) {
        *fv = p[0] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
        *end = p + 3;
        return 0;
    }
    char *e;
    errno = 0;
    if (want_int) {
        long long v = strtoll(s, &e, 10);
        if (e == s || errno == ERANGE)
            return d2_err_set(err, D2_ERR_PARSE, "expected an integer at '%.20s'", s);
        *iv = v;
    } else {
        double v = strtod(s, &e);
        if (e == s)
            return d2_err_set(err, D2_ERR_PARSE, "expected a number at '%.20s'", s);
        *fv = v;
    }
    *end = e;
    return 0;
}

int d2_attr_parse_literal(d2_attr_type type, const char *s, const char **end, d2_attr_value *out,
                          d2_err *err)
{
    memset(out, 0, sizeof *out);
    out->type = type;
    s = skip_ws(s);
    switch (type) {
    case D2_ATTR_BOOL:
        if (strncmp(s, "true", 4) == 0) {
            out->u.b = true;
            *end = s + 4;
        } else if (strncmp(s, "false", 5) == 0) {
            out->u.b = false;
            *end = s + 5;
        } else
            return d2_err_set(err, D2_ERR_PARSE, "expected true or false at '%.20s'", s);
        return 0;
    case D2_ATTR_INT: return parse_number(s, end, true, &out->u.i, NULL, err);
    case D2_ATTR_FLOAT: return parse_number(s, end, false, NULL, &out->u.f, err);
    case D2_ATTR_BLOCK:
        if (*s != '^')
            return d2_err_set(err, D2_ERR_PARSE, "expected a block reference ^N at '%.20s'", s);
        if (parse_number(s + 1, end, true, &out->u.i, NULL, err) < 0)
            return -1;
        return 0;
    case D2_ATTR_DTYPE: {
        const char *p = s;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (p - s == 4 && strncmp(s, "none", 4) == 0) {
            out->u.i = -1;
        } else {
            int dt = d2_dtype_parse(s, (size_t)(p - s));
            if (dt < 0)
                return d2_err_set(err, D2_ERR_PARSE, "unknown dtype '%.*s'", (int)(p - s), s);
            out->u.i = dt;
        }
        *end = p;
        return 0;
    }
    case D2_ATTR_STR: {
        if (*s != '"')
            return d2_err_set(err, D2_ERR_PARSE, "expected a string at '%.20s'", s);
        d2_buf b;
        d2_buf_init(&b);
        const char *p = s + 1;
        while (*p && *p != '"') {
            char c = *p++;
            if (c == '\\') {
                char e = *p++;
                switch (e) {
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                case 'r': c = '\r'; break;
                case '\\': c = '\\'; break;
                case '"': c = '"'; break;
                case 'x': {
                    if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1])) {
                        d2_buf_free(&b);
                        return d2_err_set(err, D2_ERR_PARSE, "bad \\x escape in string");
                    }
                    char hex[3] = {p[0], p[1], 0};
                    c = (char)strtol(hex, NULL, 16);
                    p += 2;
                    break;
                }
                default:
                    d2_buf_free(&b);
                    return d2_err_set(err, D2_ERR_PARSE, "bad escape '\\%c' in string", e ? e : ' ');
                }
            }
            d2_buf_append(&b, &c, 1);
        }
        if (*p != '"') {
            d2_buf_free(&b);
            return d2_err_set(err, D2_ERR_PARSE, "unterminated string");
        }
        out->u.s = d2_buf_take(&b);
        if (!out->u.s)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        *end = p + 1;
        return 0;
    }
    case D2_ATTR_INTS:
    case D2_ATTR_FLOATS: {
        bool ints = type == D2_ATTR_INTS;
        if (*s != '[')
            return d2_err_set(err, D2_ERR_PARSE, "expected a list '[...]' at '%.20s'", s);
        const char *p = skip_ws(s + 1);
        int n = 0, cap = 4;
        void *v = d2_malloc((size_t)cap * 8);
        if (!v)
            return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        while (*p != ']') {
            if (n == cap) {
                cap *= 2;
                void *nv = d2_realloc(v, (size_t)cap * 8);
                if (!nv) {
                    d2_free(v);
                    return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
                }
                v = nv;
            }
            const char *e;
            int64_t iv = 0;
            double fv = 0;
            if (parse_number(p, &e, ints, &iv, &fv, err) < 0) {
                d2_free(v);
                return -1;
            }
            if (ints)
                ((int64_t *)v)[n++] = iv;
            else
                ((double *)v)[n++] = fv;
            p = skip_ws(e);
            if (*p == ',')
                p = skip_ws(p + 1);
            else if (*p != ']') {
                d2_free(v);
                return d2_err_set(err, D2_ERR_PARSE, "expected ',' or ']' in list at '%.20s'", p);
            }
        }
        if (ints) {
            out->u.ints.v = v;
            out->u.ints.n = n;
        } else {
            out->u.floats.v = v;
            out->u.floats.n = n;
        }
        *end = p + 1;
        return 0;
    }
    }
    return d2_err_set(err, D2_ERR_INVALID, "bad attribute type");
}

static void print_float(d2_buf *b, double f)
{
    if (isnan(f)) {
        d2_buf_puts(b, "nan");
        return;
    }
    if (isinf(f)) {
        d2_buf_puts(b, f < 0 ? "-inf" : "inf");
        return;
    }
    /* the shortest form that reads back exactly; plain digits rather than an
     * exponent for integral values below 1e16 (100, not 1e+02) */
    char tmp[40];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, f);
        if (strtod(tmp, NULL) == f)
            break;
    }
    const char *e = strchr(tmp, 'e');
    if (e) {
        int x = atoi(e + 1);
        if (x >= prec && x < 16)
            snprintf(tmp, sizeof tmp, "%.*g", x + 1, f);
    }
    d2_buf_puts(b, tmp);
}

void d2_attr_print_literal(d2_buf *b, const d2_attr_value *v)
{
    switch (v->type) {
    case D2_ATTR_BOOL: d2_buf_puts(b, v->u.b ? "true" : "false"); break;
    case D2_ATTR_INT: d2_buf_put_i64(b, v->u.i); break;
    case D2_ATTR_FLOAT: print_float(b, v->u.f); break;
    case D2_ATTR_BLOCK: d2_buf_printf(b, "^%lld", (long long)v->u.i); break;
    case D2_ATTR_DTYPE:
        d2_buf_puts(b, v->u.i < 0 ? "none" : d2_dtype_name((d2_dtype)v->u.i));
        break;
    case D2_ATTR_STR:
        d2_buf_puts(b, "\"");
        for (const char *p = v->u.s ? v->u.s : ""; *p; p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\')
                d2_buf_printf(b, "\\%c", c);
            else if (c == '\n')
                d2_buf_puts(b, "\\n");
            else if (c == '\t')
                d2_buf_puts(b, "\\t");
            else if (c == '\r')
                d2_buf_puts(b, "\\r");
            else if (c < 0x20 || c == 0x7f)
                d2_buf_printf(b, "\\x%02x", c);
            else
                d2_buf_append(b, &c, 1);
        }
        d2_buf_puts(b, "\"");
        break;
    case D2_ATTR_INTS:
        d2_buf_puts(b, "[");
        for (int i = 0; i < v->u.ints.n; i++)
        {
            if (i)
                d2_buf_puts(b, ", ");
            d2_buf_put_i64(b, v->u.ints.v[i]);
        }
        d2_buf_puts(b, "]");
        break;
    case D2_ATTR_FLOATS:
        d2_buf_puts(b, "[");
        for (int i = 0; i < v->u.floats.n; i++) {
            if (i)
                d2_buf_puts(b, ", ");
            print_float(b, v->u.floats.v[i]);
        }
        d2_buf_puts(b, "]");
        break;
    }
}

int d2_attrs_parse(const d2_opdef *def, const char *text, d2_attrs *a, d2_err *err)
{
    d2_attrs_init_default(def, a);
    if (a->n != def->n_attrs)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    bool *seen = d2_calloc((size_t)def->n_attrs + 1, 1);
    if (!seen) {
        d2_attrs_free(a);
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    }
    const char *p = skip_ws(text ? text : "");
    while (*p) {
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t len = (size_t)(p - s);
        int idx = -1;
        for (int i = 0; i < def->n_attrs; i++)
            if (strlen(def->attrs[i].name) == len && memcmp(def->attrs[i].name, s, len) == 0)
                idx = i;
        if (idx < 0) {
            d2_err_set(err, D2_ERR_PARSE, "op %s has no attribute '%.*s'", def->name, (int)len, s);
            goto fail;
        }
        if (seen[idx]) {
            d2_err_set(err, D2_ERR_PARSE, "op %s: attribute '%s' given twice", def->name,
                       def->attrs[idx].name);
            goto fail;
        }
        seen[idx] = true;
        p = skip_ws(p);
        if (*p != '=') {
            d2_err_set(err, D2_ERR_PARSE, "op %s: expected '=' after attribute '%s'", def->name,
                       def->attrs[idx].name);
            goto fail;
        }
        const char *e;
        d2_attr_value v;
        if (d2_attr_parse_literal(def->attrs[idx].type, p + 1, &e, &v, err) < 0) {
            d2_err_prefix(err, "op %s, attribute '%s'", def->name, def->attrs[idx].name);
            goto fail;
        }
        d2_attr_value_free(&a->v[idx]);
        a->v[idx] = v;
        p = skip_ws(e);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p) {
            d2_err_set(err, D2_ERR_PARSE, "op %s: expected ',' between attributes at '%.20s'",
                       def->name, p);
            goto fail;
        }
    }
    for (int i = 0; i < def->n_attrs; i++)
        if (!seen[i] && !def->attrs[i].has_default) {
            d2_err_set(err, D2_ERR_INVALID, "op %s: required attribute '%s' is missing", def->name,
                       def->attrs[i].name);
            goto fail;
        }
    d2_free(seen);
    return 0;
fail:
    d2_free(seen);
    d2_attrs_free(a);
    return -1;
}

static const d2_attr_value *attr_get(const d2_opdef *def, const d2_attrs *a, const char *name,
                                     d2_attr_type type)
{
    int i = d2_attr_index(def, name);
    D2_ASSERT(i >= 0 && def->attrs[i].type == type);
    if (i < 0 || i >= a->n || a->v[i].type != type)
        return NULL;
    return &a->v[i];
}

bool d2_attr_bool(const d2_opdef *def, const d2_attrs *a, const char *name)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_BOOL);
    return v ? v->u.b : false;
}

int64_t d2_attr_int(const d2_opdef *def, const d2_attrs *a, const char *name)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_INT);
    if (!v)
        v = attr_get(def, a, name, D2_ATTR_BLOCK);
    return v ? v->u.i : 0;
}

double d2_attr_float(const d2_opdef *def, const d2_attrs *a, const char *name)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_FLOAT);
    return v ? v->u.f : 0;
}

const char *d2_attr_str(const d2_opdef *def, const d2_attrs *a, const char *name)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_STR);
    return v && v->u.s ? v->u.s : "";
}

const int64_t *d2_attr_ints(const d2_opdef *def, const d2_attrs *a, const char *name, int *n)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_INTS);
    *n = v ? v->u.ints.n : 0;
    return v ? v->u.ints.v : NULL;
}

const double *d2_attr_floats(const d2_opdef *def, const d2_attrs *a, const char *name, int *n)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_FLOATS);
    *n = v ? v->u.floats.n : 0;
    return v ? v->u.floats.v : NULL;
}

int d2_attr_dtype(const d2_opdef *def, const d2_attrs *a, const char *name)
{
    const d2_attr_value *v = attr_get(def, a, name, D2_ATTR_DTYPE);
    return v ? (int)v->u.i : -1;
}

static d2_attr_value *attr_slot(const d2_opdef *def, d2_attrs *a, const char *name)
{
    int i = d2_attr_index(def, name);
    if (i < 0 || i >= a->n)
        return NULL;
    return &a->v[i];
}

int d2_attr_set_bool(const d2_opdef *def, d2_attrs *a, const char *name, bool v)
{
    d2_attr_value *s = attr_slot(def, a, name);
    if (!s || s->type != D2_ATTR_BOOL)
        return -1;
    s->u.b = v;
    return 0;
}

int d2_attr_set_int(const d2_opdef *def, d2_attrs *a, const char *name, int64_t v)
{
    d2_attr_value *s = attr_slot(def, a, name);
    if (!s || (s->type != D2_ATTR_INT && s->type != D2_ATTR_DTYPE && s->type != D2_ATTR_BLOCK))
        return -1;
    s->u.i = v;
    return 0;
}

int d2_attr_set_float(const d2_opdef *def, d2_attrs *a, const char *name, double v)
{
    d2_attr_value *s = attr_slot(def, a, name);
    if (!s || s->type != D2_ATTR_FLOAT)
        return -1;
    s->u.f = v;
    return 0;
}

int d2_attr_set_str(const d2_opdef *def, d2_attrs *a, const char *name, const char *v)
{
    d2_attr_value *s = attr_slot(def, a, name);
    if (!s || s->type != D2_ATTR_STR)
        return -1;
    char *c = d2_strdup(v);
    if (!c)
        return -1;
    d2_free(s->u.s);
    s->u.s = c;
    return 0;
}

int d2_attr_set_ints(const d2_opdef *def, d2_attrs *a, const char *name, const int64_t *v, int n)
{
    d2_attr_value *s = attr_slot(def, a, name);
    if (!s || s->type != D2_ATTR_INTS)
        return -1;
    int64_t *c = d2_malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!c)
        return -1;
    if (n)
        memcpy(c, v, sizeof(int64_t) * (size_t)n);
    d2_free(s->u.ints.v);
    s->u.ints.v = c;
    s->u.ints.n = n;
    return 0;
}

/* ---- running ops ---- */

int d2_op_infer(const d2_opdef *def, const d2_attrs *attrs, const d2_type *in,
                const d2_tensor *const *in_value, int n_in, d2_type *out, int n_out, d2_err *err)
{
    if (d2_op_check_arity(def, n_in, n_out, err) < 0)
        return -1;
    if (attrs->n != def->n_attrs)
        return d2_err_set(err, D2_ERR_INVALID, "op %s: expected %d attributes, got %d", def->name,
                          def->n_attrs, attrs->n);
    d2_infer_ctx ic = {def, attrs, n_in, in, in_value, n_out, out, err, NULL, NULL};
    for (int i = 0; i < n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].dtype = (d2_dtype)-1;
    }
    if (d2_infer_checked(&ic) < 0) {
        if (err && strncmp(err->msg, def->name, strlen(def->name)) != 0)
            d2_err_prefix(err, "%s", def->name);
        return -1;
    }
    return 0;
}

/* Looks up the kernel of op id on backend be. */
static d2_kernel_fn backend_kernel(d2_backend *be, const d2_opdef *def, d2_err *err)
{
    if (def->ctl_kernel)
        return def->ctl_kernel;
    d2_kernel_fn fn = be->kernel(be, def->id);
    if (!fn)
        d2_err_set(err, D2_ERR_UNSUPPORTED, "op %s has no kernel on the %s backend", def->name,
                   be->name);
    return fn;
}

/* The default attributes of an op, built on first use and then shared
 * read-only by every eager call that passes none (an allocation and copy
 * per op otherwise); NULL when they could not be built. They live until the
 * process ends. */
static _Atomic(d2_attrs *) default_attrs_cache[D2_NUM_OPS];

static const d2_attrs *default_attrs(const d2_opdef *def)
{
    if ((unsigned)def->id >= D2_NUM_OPS)
        return NULL;
    d2_attrs *a = atomic_load_explicit(&default_attrs_cache[def->id], memory_order_acquire);
    if (a)
        return a;
    a = d2_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    d2_attrs_init_default(def, a);
    if (a->n != def->n_attrs) {
        d2_attrs_free(a);
        d2_free(a);
        return NULL;
    }
    d2_attrs *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&default_attrs_cache[def->id], &expected, a,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        d2_attrs_free(a); /* another thread built them first */
        d2_free(a);
        return expected;
    }
    return a;
}

int d2_op_run(d2_backend *be, d2_op_id id, const d2_attrs *attrs, d2_tensor **in, int n_in,
              d2_tensor **out, int n_out, d2_err *err)
{
    if (!be)
        be = d2_cpu_backend();
    const d2_opdef *def = d2_op_def(id);
    if (!def)
        return d2_err_set(err, D2_ERR_INVALID, "unknown op id %d", (int)id);
    if (def->flags & D2_OPF_CONTROL)
        return d2_err_set(err, D2_ERR_INVALID, "op %s cannot run eagerly", def->name);
    d2_attrs defaults = {0, NULL};
    if (!attrs && !(attrs = default_attrs(def))) {
        d2_attrs_init_default(def, &defaults);
        attrs = &defaults;
    }
    int rc = -1;
    d2_type itypes[16], otypes[16];
    const d2_tensor *ivals[16];
    d2_tensor *cin[16], *hval[16];
    int n_cin = 0, n_hval = 0; /* hval[0..n_hval) are set (NULL where not copied) */
    for (int i = 0; i < n_out; i++)
        out[i] = NULL;
    if (n_in > 16 || n_out > 16) {
        /* variadic ops with many ports are rare eagerly; keep the stack bounded */
        d2_err_set(err, D2_ERR_UNSUPPORTED, "op %s: more than 16 inputs or outputs", def->name);
        goto done;
    }
    d2_kernel_fn fn = backend_kernel(be, def, err);
    if (!fn)
        goto done;
    for (int i = 0; i < n_in; i++) {
        if (!in[i]) {
            itypes[i].kind = D2_VALUE_TENSOR;
            itypes[i].dtype = (d2_dtype)-1;
            itypes[i].shape.ndim = 0;
            ivals[i] = NULL;
            cin[n_cin++] = NULL;
            hval[n_hval++] = NULL;
            continue;
        }
        hval[n_hval++] = NULL;
        cin[n_cin] = d2_tensor_contiguous(in[i], err);
        if (!cin[n_cin])
            goto done;
        n_cin++;
        itypes[i].kind = in[i]->kind;
        itypes[i].dtype = in[i]->dtype;
        d2_tensor_get_shape(in[i], &itypes[i].shape);
        bool host = cin[i]->kind == D2_VALUE_TENSOR && cin[i]->storage &&
                    cin[i]->storage->backend->kind == D2_BACKEND_CPU;
        ivals[i] = host ? cin[i] : NULL;
        /* shape-carrying inputs are read on the host on every backend */
        if (!host && (def->flags & D2_OPF_SHAPE_INPUTS) && cin[i]->kind == D2_VALUE_TENSOR) {
            hval[i] = d2_tensor_copy_to(cin[i], NULL, err);
            if (!hval[i])
                goto done;
            ivals[i] = hval[i];
        }
    }
    if (d2_op_infer(def, attrs, itypes, ivals, n_in, otypes, n_out, err) < 0)
        goto done;
    if (!(def->flags & D2_OPF_ALLOCS_OUTPUTS)) {
        for (int i = 0; i < n_out; i++) {
            if (!d2_shape_is_static(&otypes[i].shape)) {
                d2_err_set(err, D2_ERR_SHAPE, "op %s: output %d has an unresolved shape",
                           def->name, i);
                goto done;
            }
            out[i] = d2_tensor_new(be, otypes[i].dtype, otypes[i].shape.ndim,
                                   otypes[i].shape.dims, err);
            if (!out[i])
                goto done;
        }
    }
    d2_kctx k = {def, attrs, be, n_in, cin, n_out, out, err, NULL, 0, 0};
    if (fn(&k) < 0) {
        if (err && strncmp(err->msg, def->name, strlen(def->name)) != 0)
            d2_err_prefix(err, "%s", def->name);
        goto done;
    }
    /* a device reports bad indices and integer division by zero at its next
     * sync (Programs read them with their next download): an op run on its
     * own reports them here */
    if (be && be->kind != D2_BACKEND_CPU && be->sync(be, err) < 0)
        goto done;
    rc = 0;
done:
    for (int i = 0; i < n_hval; i++)
        if (hval[i])
            d2_tensor_unref(hval[i]);
    for (int i = 0; i < n_cin; i++)
        d2_tensor_unref(cin[i]);
    if (rc < 0)
        for (int i = 0; i < n_out; i++) {
            d2_tensor_unref(out[i]);
            out[i] = NULL;
        }
    d2_attrs_free(&defaults);
    return rc;
}

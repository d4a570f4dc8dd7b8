/* astcache.c - the on-disk cache of parsed modules: encoding, verified decoding, files. */
#include "syntax/astcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the parser's output changes without a change of the node layout
 * (which the layout fingerprint catches by itself). */
#define FORMAT_VERSION 1u
#define MAGIC "DY2STAST"
#define MAX_FILE ((size_t)1 << 30)
/* how the interpreter names the library's own modules written in Python */
#define LIBRARY_PREFIX "<dy2st>/"

/* ---- hashing: FNV-1a, 64 bits ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV0 0xcbf29ce484222325ull

/* A hash of every kind's fields (names, types, offsets) and node sizes: a
 * file from a build with another node layout never matches. */
static uint64_t layout_fingerprint(void)
{
    uint64_t h = FNV0;
    for (int k = 0; k < D2_AST_KIND_COUNT; k++) {
        size_t n;
        const d2_ast_field *f = d2_ast_fields((d2_ast_kind)k, &n);
        h = fnv(h, &k, sizeof k);
        for (size_t i = 0; i < n; i++) {
            h = fnv(h, f[i].name, strlen(f[i].name));
            uint32_t t = (uint32_t)f[i].type, off = (uint32_t)f[i].offset;
            h = fnv(h, &t, sizeof t);
            h = fnv(h, &off, sizeof off);
        }
    }
    return h;
}

/* A source as d2_ast_parse sees it: without a UTF-8 byte order mark. */
static void strip_bom(const char **src, size_t *len)
{
    if (!*src) {
        *src = "";
        *len = 0;
    }
    if (*len >= 3 && memcmp(*src, "\xEF\xBB\xBF", 3) == 0) {
        *src += 3;
        *len -= 3;
    }
}

/* ---- encoding (little endian, fixed widths) ---- */

static void put(d2_buf *b, const void *p, size_t n) { d2_buf_append(b, p, n); }
static void put_u8(d2_buf *b, uint8_t v) { put(b, &v, 1); }
static void put_u32(d2_buf *b, uint32_t v)
{
    uint8_t s[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, s, 4);
}
static void put_u64(d2_buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}
/* A string of n bytes, or NULL as length 0xFFFFFFFF. */
static void put_str(d2_buf *b, const char *s, size_t n)
{
    if (!s) {
        put_u32(b, UINT32_MAX);
        return;
    }
    put_u32(b, (uint32_t)n);
    put(b, s, n);
}

#define NIL 0xFFu

static void put_node(d2_buf *b, const void *node);

static void put_const(d2_buf *b, const d2_ast_const *c)
{
    put_u8(b, (uint8_t)c->kind);
    switch (c->kind) {
    case D2_CONST_INT: put_u64(b, (uint64_t)c->i); break;
    case D2_CONST_FLOAT:
    case D2_CONST_COMPLEX: {
        uint64_t bits;
        memcpy(&bits, &c->f, sizeof bits);
        put_u64(b, bits);
        break;
    }
    case D2_CONST_BIGINT:
    case D2_CONST_STR:
    case D2_CONST_BYTES: put_str(b, c->str.data, c->str.len); break;
    default: break;
    }
}

static void put_node(d2_buf *b, const void *node)
{
    if (!node) {
        put_u8(b, NIL);
        return;
    }
    const d2_ast_node *h = node;
    put_u8(b, (uint8_t)h->kind);
    const uint32_t sp[6] = {h->span.line, h->span.col, h->span.end_line,
                            h->span.end_col, h->span.start, h->span.end};
    for (int i = 0; i < 6; i++)
        put_u32(b, sp[i]);
    size_t nf;
    const d2_ast_field *f = d2_ast_fields(h->kind, &nf);
    for (size_t i = 0; i < nf; i++) {
        const char *at = (const char *)node + f[i].offset;
        switch (f[i].type) {
        case D2_AST_F_NODE:
        case D2_AST_F_OPT: put_node(b, *(void *const *)at); break;
        case D2_AST_F_SEQ: {
            const d2_ast_seq *s = (const d2_ast_seq *)at;
            put_u32(b, s->n);
            for (uint32_t j = 0; j < s->n; j++)
                put_node(b, s->items[j]);
            break;
        }
        case D2_AST_F_IDENT: {
            const char *s = *(const char *const *)at;
            put_str(b, s, s ? strlen(s) : 0);
            break;
        }
        case D2_AST_F_IDENTS: {
            const d2_ast_seq *s = (const d2_ast_seq *)at;
            put_u32(b, s->n);
            for (uint32_t j = 0; j < s->n; j++)
                put_str(b, s->items[j], s->items[j] ? strlen(s->items[j]) : 0);
            break;
        }
        case D2_AST_F_INT: put_u32(b, (uint32_t) * (const int *)at); break;
        case D2_AST_F_CONST: put_const(b, (const d2_ast_const *)at); break;
        case D2_AST_F_CTX:
        case D2_AST_F_BOOLOP:
        case D2_AST_F_OP:
        case D2_AST_F_UNARY: put_u8(b, (uint8_t) * (const int *)at); break;
        case D2_AST_F_CMPOPS: {
            /* as many as the next field's (comparators) items */
            const d2_ast_seq *next = (const d2_ast_seq *)((const char *)node + f[i + 1].offset);
            const d2_ast_cmpop *ops = *(d2_ast_cmpop *const *)at;
            put_u32(b, next->n);
            for (uint32_t j = 0; j < next->n; j++)
                put_u8(b, (uint8_t)ops[j]);
            break;
        }
        }
    }
}

static void put_header(d2_buf *b, const char *src, size_t len, uint64_t plen, uint64_t phash)
{
    put(b, MAGIC, 8);
    put_u32(b, FORMAT_VERSION);
    put_u64(b, layout_fingerprint());
    put_str(b, PACKAGE_VERSION, strlen(PACKAGE_VERSION));
    put_u64(b, (uint64_t)len);
    put_u64(b, fnv(FNV0, src, len));
    put_u64(b, plen);
    put_u64(b, phash);
}

void d2_ast_cache_encode(const d2_ast_module *m, const char *src, size_t len, d2_buf *out)
{
    if (!src) {
        src = "";
        len = 0;
    }
    d2_buf payload;
    d2_buf_init(&payload);
    put_node(&payload, m);
    if (payload.oom) {
        out->oom = true;
    } else {
        put_header(out, src, len, payload.len, fnv(FNV0, payload.data, payload.len));
        put(out, payload.data, payload.len);
    }
    d2_buf_free(&payload);
}

/* ---- decoding: every read is bounds-checked; any flaw fails the whole ---- */

typedef struct rd {
    const uint8_t *p, *end;
    bool bad;
    d2_arena *a;
    size_t srclen;   /* spans must lie within the source */
    int depth;       /* statement, expression and pattern levels */
    int nest;        /* all levels, for the recursion itself */
} rd;

static bool need(rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return false;
    }
    return true;
}

static uint8_t get_u8(rd *r) { return need(r, 1) ? *r->p++ : 0; }
static uint32_t get_u32(rd *r)
{
    if (!need(r, 4))
        return 0;
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    return v;
}
static uint64_t get_u64(rd *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

/* A string into the arena (NUL-terminated); *isnull for the NULL marker. */
static const char *get_str(rd *r, size_t *n, bool nullable)
{
    uint32_t len = get_u32(r);
    *n = 0;
    if (r->bad)
        return NULL;
    if (len == UINT32_MAX) {
        if (!nullable)
            r->bad = true;
        return NULL;
    }
    if (!need(r, len))
        return NULL;
    char *s = d2_arena_strndup(r->a, (const char *)r->p, len);
    if (!s)
        r->bad = true;
    r->p += len;
    *n = len;
    return s;
}

/* An identifier: non-empty and without NULs, as the parser makes them. */
static const char *get_ident(rd *r, bool nullable)
{
    size_t n;
    const char *s = get_str(r, &n, nullable);
    if (s && (n == 0 || strlen(s) != n))
        r->bad = true;
    return s;
}

/* What a field's nodes must be. */
typedef enum { C_STMT, C_EXPR, C_PATTERN, C_ONE } cat;

static bool in_cat(d2_ast_kind k, cat c, d2_ast_kind one)
{
    switch (c) {
    case C_STMT: return d2_ast_is_stmt(k);
    case C_EXPR: return d2_ast_is_expr(k);
    case C_PATTERN: return d2_ast_is_pattern(k);
    default: return k == one;
    }
}

/* The kind of node that field `name` of a `parent` node holds. */
static cat field_cat(d2_ast_kind parent, const char *name, d2_ast_kind *one)
{
    if (!strcmp(name, "body") || !strcmp(name, "orelse") || !strcmp(name, "finalbody"))
        return parent == D2_AST_IF_EXP || parent == D2_AST_LAMBDA ? C_EXPR : C_STMT;
    if (!strcmp(name, "pattern") || !strcmp(name, "patterns") || !strcmp(name, "kwd_patterns"))
        return C_PATTERN;
    *one = D2_AST_KIND_COUNT;
    if (!strcmp(name, "handlers"))
        *one = D2_AST_EXCEPT_HANDLER;
    else if (!strcmp(name, "cases"))
        *one = D2_AST_MATCH_CASE;
    else if (!strcmp(name, "generators"))
        *one = D2_AST_COMPREHENSION;
    else if (!strcmp(name, "keywords"))
        *one = D2_AST_KEYWORD;
    else if (!strcmp(name, "items"))
        *one = D2_AST_WITHITEM;
    else if (!strcmp(name, "names"))
        *one = D2_AST_ALIAS;
    else if (!strcmp(name, "args") && parent != D2_AST_CALL)
        *one = parent == D2_AST_ARGUMENTS ? D2_AST_ARG : D2_AST_ARGUMENTS;
    else if (!strcmp(name, "posonlyargs") || !strcmp(name, "kwonlyargs") ||
             !strcmp(name, "vararg") || !strcmp(name, "kwarg"))
        *one = D2_AST_ARG;
    return *one == D2_AST_KIND_COUNT ? C_EXPR : C_ONE;
}

static void *get_node(rd *r, bool nullable, cat c, d2_ast_kind one);

static void get_const(rd *r, d2_ast_const *c)
{
    uint8_t k = get_u8(r);
    if (k > D2_CONST_BYTES) {
        r->bad = true;
        return;
    }
    c->kind = (d2_ast_const_kind)k;
    switch (c->kind) {
    case D2_CONST_INT: c->i = (int64_t)get_u64(r); break;
    case D2_CONST_FLOAT:
    case D2_CONST_COMPLEX: {
        uint64_t bits = get_u64(r);
        memcpy(&c->f, &bits, sizeof bits);
        break;
    }
    case D2_CONST_BIGINT:
    case D2_CONST_STR:
    case D2_CONST_BYTES: c->str.data = get_str(r, &c->str.len, false); break;
    default: break;
    }
}

/* An enum stored as one byte, below `count`. */
static int get_enum(rd *r, int count)
{
    uint8_t v = get_u8(r);
    if (v >= count)
        r->bad = true;
    return v;
}

static void get_fields(rd *r, void *node, d2_ast_kind k)
{
    size_t nf;
    const d2_ast_field *f = d2_ast_fields(k, &nf);
    d2_ast_cmpop *ops = NULL;
    uint32_t nops = 0;
    for (size_t i = 0; i < nf && !r->bad; i++) {
        char *at = (char *)node + f[i].offset;
        d2_ast_kind one = D2_AST_KIND_COUNT;
        switch (f[i].type) {
        case D2_AST_F_NODE:
        case D2_AST_F_OPT: {
            cat c = field_cat(k, f[i].name, &one);
            *(void **)at = get_node(r, f[i].type == D2_AST_F_OPT, c, one);
            break;
        }
        case D2_AST_F_SEQ: {
            cat c = field_cat(k, f[i].name, &one);
            /* NULL items: Dict keys (`**m`) and kw_defaults only, as CPython */
            bool nullable = !strcmp(f[i].name, "kw_defaults") ||
                            (k == D2_AST_DICT && !strcmp(f[i].name, "keys"));
            uint32_t n = get_u32(r);
            if (!need(r, n)) /* every item takes at least a byte */
                break;
            d2_ast_seq *s = (d2_ast_seq *)at;
            for (uint32_t j = 0; j < n && !r->bad; j++) {
                void *item = get_node(r, nullable, c, one);
                if (!r->bad && d2_ast_seq_push(r->a, s, item) < 0)
                    r->bad = true;
            }
            if (i > 0 && f[i - 1].type == D2_AST_F_CMPOPS && s->n != nops)
                r->bad = true;
            break;
        }
        case D2_AST_F_IDENT:
            /* Constant.kind, alias.asname, ... may be None; a def's name not */
            *(const char **)at = get_ident(r, true);
            break;
        case D2_AST_F_IDENTS: {
            uint32_t n = get_u32(r);
            if (!need(r, n))
                break;
            d2_ast_seq *s = (d2_ast_seq *)at;
            for (uint32_t j = 0; j < n && !r->bad; j++) {
                const char *id = get_ident(r, false);
                if (!r->bad && d2_ast_seq_push(r->a, s, (void *)id) < 0)
                    r->bad = true;
            }
            break;
        }
        case D2_AST_F_INT: *(int *)at = (int)get_u32(r); break;
        case D2_AST_F_CONST: get_const(r, (d2_ast_const *)at); break;
        case D2_AST_F_CTX: *(int *)at = get_enum(r, D2_CTX_DEL + 1); break;
        case D2_AST_F_BOOLOP: *(int *)at = get_enum(r, D2_BOOLOP_OR + 1); break;
        case D2_AST_F_OP: *(int *)at = get_enum(r, D2_OP_FLOOR_DIV + 1); break;
        case D2_AST_F_UNARY: *(int *)at = get_enum(r, D2_UNARY_USUB + 1); break;
        case D2_AST_F_CMPOPS: {
            nops = get_u32(r);
            if (i + 1 >= nf || f[i + 1].type != D2_AST_F_SEQ || !need(r, nops)) {
                r->bad = true;
                break;
            }
            ops = d2_arena_alloc(r->a, (nops ? nops : 1) * sizeof *ops);
            if (!ops) {
                r->bad = true;
                break;
            }
            for (uint32_t j = 0; j < nops; j++)
                ops[j] = (d2_ast_cmpop)get_enum(r, D2_CMP_NOT_IN + 1);
            *(d2_ast_cmpop **)at = ops;
            break;
        }
        }
    }
}

static void *get_node(rd *r, bool nullable, cat c, d2_ast_kind one)
{
    uint8_t k = get_u8(r);
    if (r->bad)
        return NULL;
    if (k == NIL) {
        if (!nullable)
            r->bad = true;
        return NULL;
    }
    if (k >= D2_AST_KIND_COUNT || !in_cat((d2_ast_kind)k, c, one)) {
        r->bad = true;
        return NULL;
    }
    d2_span sp;
    sp.line = get_u32(r);
    sp.col = get_u32(r);
    sp.end_line = get_u32(r);
    sp.end_col = get_u32(r);
    sp.start = get_u32(r);
    sp.end = get_u32(r);
    if (r->bad || sp.start > sp.end || sp.end > r->srclen || sp.line > sp.end_line) {
        r->bad = true;
        return NULL;
    }
    bool level = d2_ast_is_stmt(k) || d2_ast_is_expr(k) || d2_ast_is_pattern(k);
    if ((level && r->depth >= D2_AST_MAX_DEPTH) || r->nest >= 4 * D2_AST_MAX_DEPTH) {
        r->bad = true;
        return NULL;
    }
    void *node = d2_ast_node_new(r->a, (d2_ast_kind)k, sp);
    if (!node) {
        r->bad = true;
        return NULL;
    }
    r->depth += level;
    r->nest++;
    get_fields(r, node, (d2_ast_kind)k);
    r->depth -= level;
    r->nest--;
    return r->bad ? NULL : node;
}

d2_ast_module *d2_ast_cache_decode(d2_arena *a, const char *filename, const char *src,
                                   size_t len, const void *data, size_t n)
{
    if (!src) {
        src = "";
        len = 0;
    }
    rd r = {data, (const uint8_t *)data + n, false, a, 0, 0, 0};
    if (!need(&r, 8) || memcmp(r.p, MAGIC, 8) != 0)
        return NULL;
    r.p += 8;
    if (get_u32(&r) != FORMAT_VERSION || get_u64(&r) != layout_fingerprint())
        return NULL;
    uint32_t vlen = get_u32(&r);
    if (r.bad || vlen != strlen(PACKAGE_VERSION) || !need(&r, vlen) ||
        memcmp(r.p, PACKAGE_VERSION, vlen) != 0)
        return NULL;
    r.p += vlen;
    if (get_u64(&r) != (uint64_t)len || get_u64(&r) != fnv(FNV0, src, len))
        return NULL; /* stale: another source */
    uint64_t plen = get_u64(&r), phash = get_u64(&r);
    if (r.bad || plen != (uint64_t)(r.end - r.p) || fnv(FNV0, r.p, (size_t)plen) != phash)
        return NULL; /* truncated, extended or corrupt */
    const char *s = src;
    size_t sl = len;
    strip_bom(&s, &sl);
    r.srclen = sl;
    d2_ast_module *m = get_node(&r, false, C_ONE, D2_AST_MODULE);
    if (!m || r.bad || r.p != r.end)
        return NULL;
    m->filename = d2_arena_strdup(a, filename ? filename : "<input>");
    m->source = d2_arena_strndup(a, s, sl);
    m->source_len = sl;
    return m->filename && m->source ? m : NULL;
}

int d2_ast_cache_reseal(void *data, size_t n)
{
    uint8_t *p = data;
    size_t at = 8 + 4 + 8; /* magic, format version, layout fingerprint */
    if (n < at + 4)
        return -1;
    uint32_t vlen = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 |
                    (uint32_t)p[at + 3] << 24;
    if (vlen > n || n - vlen < at + 4 + 32)
        return -1;
    at += 4 + vlen + 16; /* version, source length and hash */
    size_t body = at + 16;
    uint64_t plen = n - body, h = fnv(FNV0, p + body, n - body);
    for (int k = 0; k < 8; k++) {
        p[at + k] = (uint8_t)(plen >> (8 * k));
        p[at + 8 + k] = (uint8_t)(h >> (8 * k));
    }
    return 0;
}

/* ---- files ---- */

/* The per-user cache directory for the library's own Python modules:
 * $XDG_CACHE_HOME/dy2st or $HOME/.cache/dy2st; NULL when neither is set. */
static void user_cache_dir(d2_buf *b)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        d2_buf_printf(b, "%s/dy2st", xdg);
    else if (home && home[0] == '/')
        d2_buf_printf(b, "%s/.cache/dy2st", home);
}

char *d2_ast_cache_path(const char *filename, const char *cache_dir)
{
    if (!filename || !*filename)
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    bool library = strncmp(filename, LIBRARY_PREFIX, strlen(LIBRARY_PREFIX)) == 0;
    if (library && !(cache_dir && *cache_dir)) {
        user_cache_dir(&b);
        if (!b.len) {
            d2_buf_free(&b);
            return NULL;
        }
        cache_dir = b.data;
    }
    /* otherwise only files on disk: not "<string>"-like names of generated code */
    struct stat st;
    if (!library && (filename[0] == '<' || stat(filename, &st) < 0 || !S_ISREG(st.st_mode))) {
        d2_buf_free(&b);
        return NULL;
    }
    const char *slash = strrchr(filename, '/');
    const char *base = slash ? slash + 1 : filename;
    if (cache_dir && *cache_dir) {
        char *dir = d2_strdup(cache_dir);
        d2_buf_free(&b);
        d2_buf_init(&b);
        if (!dir)
            return NULL;
        d2_buf_printf(&b, "%s/%s-%016llx.ast", dir, base,
                      (unsigned long long)fnv(FNV0, filename, strlen(filename)));
        d2_free(dir);
    } else {
        if (slash)
            d2_buf_append(&b, filename, (size_t)(slash - filename) + 1);
        d2_buf_printf(&b, "__dy2st_cache__/%s.ast", base);
    }
    return d2_buf_take(&b);
}

/* Reads the file at path whole (NULL if absent, unreadable or oversized). */
static void *read_all(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_FILE &&
        (buf = d2_malloc((size_t)st.st_size + 1))) {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t k = read(fd, buf + got, want - got);
            if (k <= 0) {
                if (k < 0 && errno == EINTR)
                    continue;
                break;
            }
            got += (size_t)k;
        }
        if (got != want) {
            d2_free(buf);
            buf = NULL;
        }
        *n = got;
    }
    close(fd);
    return buf;
}

/* Writes data to path through a temporary file renamed into place, creating
 * the directory (one level) when missing. 0, or -1. */
static int write_atomic(const char *path, const void *data, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (slash) {
        char *dir = d2_strndup(path, (size_t)(slash - path));
        if (!dir)
            return -1;
        /* the directory and any missing parents */
        int rc = 0;
        for (char *q = dir + 1; rc == 0; q++) {
            if (*q != '/' && *q != '\0')
                continue;
            char c = *q;
            *q = '\0';
            if (mkdir(dir, 0777) < 0 && errno != EEXIST)
                rc = -1;
            *q = c;
            if (c == '\0')
                break;
        }
        d2_free(dir);
        if (rc < 0)
            return -1;
    }
    static _Atomic unsigned counter;
    d2_buf tmp;
    d2_buf_init(&tmp);
    d2_buf_printf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(), counter++);
    if (tmp.oom) {
        d2_buf_free(&tmp);
        return -1;
    }
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    int rc = fd < 0 ? -1 : 0;
    const char *p = data;
    while (rc == 0 && n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            rc = -1;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
    if (fd >= 0 && close(fd) < 0)
        rc = -1;
    if (rc == 0 && rename(tmp.data, path) < 0)
        rc = -1;
    if (rc < 0 && fd >= 0)
        unlink(tmp.data);
    d2_buf_free(&tmp);
    return rc;
}

d2_ast_module *d2_ast_parse_cached(d2_arena *a, const char *filename, const char *src,
                                   size_t len, d2_diag *diag, const char *cache_path,
                                   d2_ast_cache_result *how)
{
    d2_ast_cache_result res = D2_AST_CACHE_OFF;
    if (how)
        *how = res;
    if (!cache_path)
        return d2_ast_parse(a, filename, src, len, diag);
    size_t n = 0;
    void *data = read_all(cache_path, &n);
    if (data) {
        d2_ast_module *m = d2_ast_cache_decode(a, filename, src, len, data, n);
        d2_free(data);
        if (m) {
            if (how)
                *how = D2_AST_CACHE_HIT;
            return m;
        }
        res = D2_AST_CACHE_REJECTED;
    }
    d2_diag local;
    if (!diag) {
        d2_diag_init(&local, a);
        diag = &local;
    }
    size_t warnings = diag->nwarnings;
    d2_ast_module *m = d2_ast_parse(a, filename, src, len, diag);
    if (!m || diag->nwarnings != warnings) {
        if (how)
            *how = D2_AST_CACHE_OFF;
        return m;
    }
    d2_buf b;
    d2_buf_init(&b);
    d2_ast_cache_encode(m, src, len, &b);
    if (b.oom || write_atomic(cache_path, b.data, b.len) < 0)
        res = D2_AST_CACHE_UNWRITABLE;
    else if (res != D2_AST_CACHE_REJECTED)
        res = D2_AST_CACHE_WRITTEN;
    d2_buf_free(&b);
    if (how)
        *how = res;
    return m;
}

/* pickle.c - restricted unpickler: the pickle machine without calls, for paddle.save's files. */
#include "pickle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Limits on what a parameter file may hold. */
#define MAX_MARKS 256    /* nested MARKs alive at once */
#define MAX_NEST 32      /* dict/list nesting of the result */
#define SKIP_KEY "StructuredToParameterName@@"
#define BIG_KEY "UnpackBigParamInfor@@"

typedef enum { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_BYTES, V_TUPLE, V_LIST, V_DICT,
               V_GLOBAL, V_DTYPE, V_ARRAY } vkind;

/* The callables a pickle may name. */
typedef enum { G_RECONSTRUCT, G_SCALAR, G_NDARRAY, G_DTYPE, G_ENCODE, G_BYTES, G_ODICT,
               G_TUPLE } gkind;

static const struct {
    const char *mod, *name;
    gkind g;
} allowed[] = {
    {"numpy.core.multiarray", "_reconstruct", G_RECONSTRUCT},
    {"numpy._core.multiarray", "_reconstruct", G_RECONSTRUCT},
    {"numpy.core.multiarray", "scalar", G_SCALAR},
    {"numpy._core.multiarray", "scalar", G_SCALAR},
    {"numpy", "ndarray", G_NDARRAY},
    {"numpy", "dtype", G_DTYPE},
    {"_codecs", "encode", G_ENCODE},
    {"builtins", "bytes", G_BYTES},
    {"__builtin__", "bytes", G_BYTES},
    {"collections", "OrderedDict", G_ODICT},
    {"builtins", "tuple", G_TUPLE},
    {"__builtin__", "tuple", G_TUPLE},
};

/* A value of the pickle machine. Every value of one parse is on one list and
 * freed at once, so shared and cyclic references need no counting. Strings
 * and bytes point into the input unless `own`. */
typedef struct val val;
struct val {
    val *next;
    vkind kind;
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            const unsigned char *p;
            size_t n;
            bool own;
        } s;
        struct {
            val **v; /* dict: key, value, key, value ... */
            size_t n, cap;
        } seq;
        gkind g;
        struct {
            d2_dtype dt;
            char order; /* '<', '>', '|' or '=' */
        } dt;
        struct {
            d2_tensor *t; /* NULL until BUILD */
        } arr;
    } u;
};

typedef struct P {
    const unsigned char *d;
    size_t n, pos, op;   /* input, read position, offset of the current opcode */
    const char *opname;
    const char *name;
    d2_err *err;
    val *all;
    val **stack;
    size_t sp, scap;
    size_t marks[MAX_MARKS];
    size_t nmarks;
    val **memo;
    size_t memo_cap, memo_count;
    size_t visits; /* values flattened so far */
} P;

static const char *op_names[256] = {
    ['('] = "MARK", ['.'] = "STOP", ['0'] = "POP", ['1'] = "POP_MARK", ['2'] = "DUP",
    ['N'] = "NONE", [0x88] = "NEWTRUE", [0x89] = "NEWFALSE", ['J'] = "BININT",
    ['K'] = "BININT1", ['M'] = "BININT2", [0x8a] = "LONG1", [0x8b] = "LONG4",
    ['G'] = "BINFLOAT", [0x8c] = "SHORT_BINUNICODE", ['X'] = "BINUNICODE",
    [0x8d] = "BINUNICODE8", ['C'] = "SHORT_BINBYTES", ['B'] = "BINBYTES",
    [0x8e] = "BINBYTES8", [0x96] = "BYTEARRAY8", [')'] = "EMPTY_TUPLE", ['t'] = "TUPLE",
    [0x85] = "TUPLE1", [0x86] = "TUPLE2", [0x87] = "TUPLE3", [']'] = "EMPTY_LIST",
    ['l'] = "LIST", ['a'] = "APPEND", ['e'] = "APPENDS", ['}'] = "EMPTY_DICT", ['d'] = "DICT",
    ['s'] = "SETITEM", ['u'] = "SETITEMS", ['c'] = "GLOBAL", [0x93] = "STACK_GLOBAL",
    ['R'] = "REDUCE", ['b'] = "BUILD", ['h'] = "BINGET", ['j'] = "LONG_BINGET",
    ['q'] = "BINPUT", ['r'] = "LONG_BINPUT", [0x94] = "MEMOIZE", [0x80] = "PROTO",
    [0x95] = "FRAME",
    /* known but refused */
    ['P'] = "PERSID", ['Q'] = "BINPERSID", [0x82] = "EXT1", [0x83] = "EXT2", [0x84] = "EXT4",
    ['i'] = "INST", ['o'] = "OBJ", [0x81] = "NEWOBJ", [0x92] = "NEWOBJ_EX",
    [0x97] = "NEXT_BUFFER", [0x98] = "READONLY_BUFFER", ['g'] = "GET", ['p'] = "PUT",
    ['I'] = "INT", ['L'] = "LONG", ['F'] = "FLOAT", ['S'] = "STRING", ['V'] = "UNICODE",
    ['T'] = "BINSTRING", ['U'] = "SHORT_BINSTRING", [0x8f] = "EMPTY_SET",
    [0x90] = "ADDITEMS", [0x91] = "FROZENSET",
};

static int perr(P *p, d2_errcode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "NAME: offset N: OPCODE: message" */
static int perr(P *p, d2_errcode code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->opname)
        return d2_err_set(p->err, code, "%s: offset %zu: %s: %s", p->name, p->op, p->opname, msg);
    return d2_err_set(p->err, code, "%s: %s", p->name, msg);
}

static int nomem(P *p) { return perr(p, D2_ERR_NOMEM, "out of memory"); }

static const char *kind_name(const val *v)
{
    static const char *const names[] = {"None", "bool", "int", "float", "str", "bytes",
                                        "tuple", "list", "dict", "global", "dtype", "ndarray"};
    return names[v->kind];
}

/* Copies up to 60 bytes of s into out with anything unprintable as '?'. */
static const char *printable(const unsigned char *s, size_t n, char out[64])
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < 60; i++)
        out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
    if (n > 60)
        out[k - 1] = '.', out[k - 2] = '.', out[k - 3] = '.';
    out[k] = '\0';
    return out;
}

static val *newval(P *p, vkind k)
{
    val *v = d2_calloc(1, sizeof *v);
    if (!v) {
        nomem(p);
        return NULL;
    }
    v->kind = k;
    v->next = p->all;
    p->all = v;
    return v;
}

static void free_all(P *p)
{
    for (val *v = p->all, *nx; v; v = nx) {
        nx = v->next;
        if ((v->kind == V_STR || v->kind == V_BYTES) && v->u.s.own)
            d2_free((void *)v->u.s.p);
        else if (v->kind == V_TUPLE || v->kind == V_LIST || v->kind == V_DICT)
            d2_free(v->u.seq.v);
        else if (v->kind == V_ARRAY && v->u.arr.t)
            d2_tensor_unref(v->u.arr.t);
        d2_free(v);
    }
    p->all = NULL;
    d2_free(p->stack);
    d2_free(p->memo);
}

static int seq_add(P *p, val *s, val *x)
{
    if (s->u.seq.n == s->u.seq.cap) {
        size_t cap = s->u.seq.cap ? s->u.seq.cap * 2 : 4;
        val **nv = d2_realloc(s->u.seq.v, cap * sizeof *nv);
        if (!nv)
            return nomem(p);
        s->u.seq.v = nv;
        s->u.seq.cap = cap;
    }
    s->u.seq.v[s->u.seq.n++] = x;
    return 0;
}

/* ---- the stack ------------------------------------------------------------ */

static size_t base(const P *p) { return p->nmarks ? p->marks[p->nmarks - 1] : 0; }

static int push(P *p, val *v)
{
    if (!v)
        return -1;
    if (p->sp == p->scap) {
        size_t cap = p->scap ? p->scap * 2 : 64;
        val **ns = d2_realloc(p->stack, cap * sizeof *ns);
        if (!ns)
            return nomem(p);
        p->stack = ns;
        p->scap = cap;
    }
    p->stack[p->sp++] = v;
    return 0;
}

static val *pop(P *p)
{
    if (p->sp <= base(p)) {
        perr(p, D2_ERR_FORMAT, "stack underflow");
        return NULL;
    }
    return p->stack[--p->sp];
}

static val *top(P *p)
{
    if (p->sp <= base(p)) {
        perr(p, D2_ERR_FORMAT, "stack underflow");
        return NULL;
    }
    return p->stack[p->sp - 1];
}

/* Pops the topmost mark; returns the stack index the marked items start at. */
static int pop_mark(P *p, size_t *start)
{
    if (!p->nmarks)
        return perr(p, D2_ERR_FORMAT, "no MARK on the stack");
    *start = p->marks[--p->nmarks];
    return 0;
}

/* ---- reading -------------------------------------------------------------- */

static int need(P *p, size_t k)
{
    if (k > p->n - p->pos)
        return perr(p, D2_ERR_FORMAT, "truncated (needs %zu more bytes, %zu left)", k,
                    p->n - p->pos);
    return 0;
}

static uint64_t rdle(const unsigned char *s, int k)
{
    uint64_t v = 0;
    for (int i = k - 1; i >= 0; i--)
        v = v << 8 | s[i];
    return v;
}

/* Reads a k-byte little-endian length and checks that many bytes follow. */
static int rdlen(P *p, int k, size_t *len)
{
    if (need(p, (size_t)k) < 0)
        return -1;
    uint64_t v = rdle(p->d + p->pos, k);
    p->pos += (size_t)k;
    if (v > p->n - p->pos)
        return perr(p, D2_ERR_FORMAT, "length %llu runs past the end of the data (%zu bytes left)",
                    (unsigned long long)v, p->n - p->pos);
    *len = (size_t)v;
    return 0;
}

/* Decodes one UTF-8 sequence (surrogates allowed, as pickle writes them);
 * returns its length, 0 when malformed. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2, min = 0x80, *cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, min = 0x800, *cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, min = 0x10000, *cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        *cp = *cp << 6 | (s[i] & 0x3f);
    }
    return *cp < min || *cp > 0x10ffff ? 0 : len;
}

static val *new_str(P *p, vkind k, size_t len)
{
    val *v = newval(p, k);
    if (!v)
        return NULL;
    v->u.s.p = p->d + p->pos;
    v->u.s.n = len;
    p->pos += len;
    if (k == V_STR)
        for (size_t i = 0; i < len;) {
            uint32_t cp;
            size_t l = utf8_next(v->u.s.p + i, len - i, &cp);
            if (!l) {
                perr(p, D2_ERR_FORMAT, "string is not valid UTF-8");
                return NULL;
            }
            i += l;
        }
    return v;
}

static bool str_is(const val *v, const char *s)
{
    size_t l = strlen(s);
    return v->kind == V_STR && v->u.s.n == l && memcmp(v->u.s.p, s, l) == 0;
}

/* ---- memo ----------------------------------------------------------------- */

static int memo_put(P *p, uint64_t idx, val *v)
{
    /* Python's pickler numbers the memo 0, 1, 2...; a bound on the gaps
     * keeps a hostile index from sizing the memo */
    if (idx > p->memo_count + 65536)
        return perr(p, D2_ERR_FORMAT, "memo index %llu out of range", (unsigned long long)idx);
    if (idx >= p->memo_cap) {
        size_t cap = p->memo_cap ? p->memo_cap : 64;
        while (cap <= idx)
            cap *= 2;
        val **nm = d2_realloc(p->memo, cap * sizeof *nm);
        if (!nm)
            return nomem(p);
        memset(nm + p->memo_cap, 0, (cap - p->memo_cap) * sizeof *nm);
        p->memo = nm;
        p->memo_cap = cap;
    }
    if (!p->memo[idx])
        p->memo_count++;
    p->memo[idx] = v;
    return 0;
}

static int memo_get(P *p, uint64_t idx)
{
    if (idx >= p->memo_cap || !p->memo[idx])
        return perr(p, D2_ERR_FORMAT, "memo index %llu is not defined", (unsigned long long)idx);
    return push(p, p->memo[idx]);
}

/* ---- globals, REDUCE and BUILD ------------------------------------------- */

static int global(P *p, const unsigned char *mod, size_t ml, const unsigned char *nm, size_t nl)
{
    for (size_t i = 0; i < D2_COUNTOF(allowed); i++)
        if (strlen(allowed[i].mod) == ml && memcmp(allowed[i].mod, mod, ml) == 0 &&
            strlen(allowed[i].name) == nl && memcmp(allowed[i].name, nm, nl) == 0) {
            val *v = newval(p, V_GLOBAL);
            if (!v)
                return -1;
            v->u.g = allowed[i].g;
            return push(p, v);
        }
    char a[64], b[64];
    return perr(p, D2_ERR_UNSUPPORTED,
                "'%s.%s' is not allowed (only the globals that rebuild NumPy arrays and dicts are)",
                printable(mod, ml, a), printable(nm, nl, b));
}

static bool is_int(const val *v) { return v->kind == V_INT || v->kind == V_BOOL; }
static int64_t int_of(const val *v) { return v->kind == V_BOOL ? v->u.b : v->u.i; }

static int dtype_of(P *p, const val *code, val *out)
{
    static const struct {
        const char *code;
        d2_dtype dt;
    } codes[] = {{"f4", D2_F32}, {"f8", D2_F64}, {"i4", D2_I32}, {"i8", D2_I64}, {"b1", D2_BOOL}};
    for (size_t i = 0; i < D2_COUNTOF(codes); i++)
        if (str_is(code, codes[i].code)) {
            out->u.dt.dt = codes[i].dt;
            out->u.dt.order = codes[i].dt == D2_BOOL ? '|' : '=';
            return 0;
        }
    char a[64];
    return perr(p, D2_ERR_DTYPE,
                "unsupported dtype '%s' (float32, float64, int32, int64 and bool are)",
                printable(code->u.s.p, code->u.s.n, a));
}

static bool host_little(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* True when the product of the dims (zeros counted as ones, as strides are)
 * fits in an int64. */
static bool dims_fit(int ndim, const int64_t *shape)
{
    int64_t prod = 1;
    for (int k = 0; k < ndim; k++)
        if (shape[k] < 0 || !d2_mul_i64(prod, shape[k] > 1 ? shape[k] : 1, &prod))
            return false;
    return true;
}

/* Fills a new tensor of `dt`/shape from raw NumPy bytes in C or Fortran order
 * and byte order `order`. */
static d2_tensor *make_tensor(P *p, const val *dtv, int ndim, const int64_t *shape,
                              bool fortran, const unsigned char *data, size_t nbytes)
{
    d2_dtype dt = dtv->u.dt.dt;
    size_t es = d2_dtype_size(dt);
    uint64_t numel = 1;
    size_t total = es;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] < 0)
            return perr(p, D2_ERR_FORMAT, "negative dimension %lld", (long long)shape[k]), NULL;
        if ((uint64_t)shape[k] > SIZE_MAX || !d2_mul_size(total, (size_t)shape[k], &total))
            return perr(p, D2_ERR_FORMAT, "array too large"), NULL;
        numel *= (uint64_t)shape[k]; /* <= total */
    }
    if (!dims_fit(ndim, shape))
        return perr(p, D2_ERR_FORMAT, "array dimensions too large"), NULL;
    if (numel * es != nbytes) {
        char s[128];
        d2_shape sh = {.ndim = ndim};
        if (ndim > 0) /* shape is NULL for a 0-d array */
            memcpy(sh.dims, shape, (size_t)ndim * sizeof *shape);
        d2_shape_str(&sh, s, sizeof s);
        perr(p, D2_ERR_FORMAT, "array data has %zu bytes but shape %s of %s needs %llu", nbytes,
             s, d2_dtype_name(dt), (unsigned long long)(numel * es));
        return NULL;
    }
    if (dt == D2_BOOL)
        for (size_t i = 0; i < nbytes; i++)
            if (data[i] > 1) {
                perr(p, D2_ERR_FORMAT, "bool array holds the byte %u", data[i]);
                return NULL;
            }
    d2_err e = {0};
    d2_tensor *t = d2_tensor_new(NULL, dt, ndim, shape, &e);
    if (!t) {
        perr(p, e.code, "%s", e.msg);
        return NULL;
    }
    unsigned char *dst = d2_tensor_data(t);
    if (!fortran || ndim < 2) {
        if (nbytes)
            memcpy(dst, data, nbytes);
    } else {
        /* walk the result in C order; the source offset is in Fortran order */
        int64_t idx[D2_MAX_DIMS] = {0}, fs[D2_MAX_DIMS];
        fs[0] = 1;
        for (int k = 1; k < ndim; k++)
            fs[k] = fs[k - 1] * shape[k - 1];
        for (uint64_t i = 0; i < numel; i++) {
            int64_t off = 0;
            for (int k = 0; k < ndim; k++)
                off += idx[k] * fs[k];
            memcpy(dst + i * es, data + (size_t)off * es, es);
            for (int k = ndim - 1; k >= 0 && ++idx[k] == shape[k]; k--)
                idx[k] = 0;
        }
    }
    char order = dtv->u.dt.order;
    bool swap = es > 1 && (order == '>' ? host_little() : order == '<' ? !host_little() : false);
    for (size_t i = 0; swap && i < nbytes; i += es)
        for (size_t a = 0, b = es - 1; a < b; a++, b--) {
            unsigned char c = dst[i + a];
            dst[i + a] = dst[i + b];
            dst[i + b] = c;
        }
    return t;
}

/* ndarray.__setstate__((version,) shape, dtype, is_fortran, rawdata) */
static int build_array(P *p, val *a, val *st)
{
    if (a->u.arr.t)
        return perr(p, D2_ERR_FORMAT, "ndarray is already filled");
    if (st->kind != V_TUPLE || (st->u.seq.n != 4 && st->u.seq.n != 5))
        return perr(p, D2_ERR_FORMAT, "ndarray state must be a tuple of 4 or 5 items, got %s",
                    kind_name(st));
    val **s = st->u.seq.v;
    if (st->u.seq.n == 5) {
        if (!is_int(s[0]) || int_of(s[0]) != 1)
            return perr(p, D2_ERR_FORMAT, "unknown ndarray state version");
        s++;
    }
    val *shp = s[0], *dt = s[1], *fo = s[2], *data = s[3];
    if (shp->kind != V_TUPLE || shp->u.seq.n > D2_MAX_DIMS)
        return perr(p, D2_ERR_FORMAT, "ndarray shape must be a tuple of at most %d ints",
                    D2_MAX_DIMS);
    int64_t shape[D2_MAX_DIMS];
    for (size_t k = 0; k < shp->u.seq.n; k++) {
        if (!is_int(shp->u.seq.v[k]))
            return perr(p, D2_ERR_FORMAT, "ndarray shape holds a %s", kind_name(shp->u.seq.v[k]));
        shape[k] = int_of(shp->u.seq.v[k]);
    }
    if (dt->kind != V_DTYPE)
        return perr(p, D2_ERR_FORMAT, "ndarray dtype is a %s", kind_name(dt));
    if (!is_int(fo) || (int_of(fo) != 0 && int_of(fo) != 1))
        return perr(p, D2_ERR_FORMAT, "ndarray order flag is not a bool");
    if (data->kind == V_LIST)
        return perr(p, D2_ERR_UNSUPPORTED, "object arrays are not supported");
    if (data->kind != V_BYTES)
        return perr(p, D2_ERR_FORMAT, "ndarray data is a %s, not bytes", kind_name(data));
    a->u.arr.t = make_tensor(p, dt, (int)shp->u.seq.n, shape, int_of(fo) == 1, data->u.s.p,
                             data->u.s.n);
    return a->u.arr.t ? 0 : -1;
}

/* dtype.__setstate__((version, order, subarray, names, fields, elsize, align, flags[, meta])) */
static int build_dtype(P *p, val *d, val *st)
{
    if (st->kind != V_TUPLE || (st->u.seq.n != 8 && st->u.seq.n != 9))
        return perr(p, D2_ERR_FORMAT, "dtype state must be a tuple of 8 or 9 items");
    val **s = st->u.seq.v;
    if (!is_int(s[0]) || s[1]->kind != V_STR || s[1]->u.s.n != 1)
        return perr(p, D2_ERR_FORMAT, "malformed dtype state");
    char o = (char)s[1]->u.s.p[0];
    if (o != '<' && o != '>' && o != '|' && o != '=')
        return perr(p, D2_ERR_FORMAT, "unknown byte order '%c'", o >= 0x20 && o < 0x7f ? o : '?');
    if (s[2]->kind != V_NONE || s[3]->kind != V_NONE || s[4]->kind != V_NONE)
        return perr(p, D2_ERR_UNSUPPORTED, "structured and subarray dtypes are not supported");
    if (o == '|' && d2_dtype_size(d->u.dt.dt) > 1)
        return perr(p, D2_ERR_FORMAT, "byte order '|' on a %s dtype",
                    d2_dtype_name(d->u.dt.dt));
    d->u.dt.order = o;
    return 0;
}

static int reduce(P *p)
{
    val *args = pop(p), *fn = args ? pop(p) : NULL;
    if (!fn)
        return -1;
    if (fn->kind != V_GLOBAL)
        return perr(p, D2_ERR_UNSUPPORTED, "calling a %s is not allowed", kind_name(fn));
    if (args->kind != V_TUPLE)
        return perr(p, D2_ERR_FORMAT, "arguments are a %s, not a tuple", kind_name(args));
    size_t n = args->u.seq.n;
    val **a = args->u.seq.v;
    val *r = NULL;
    switch (fn->u.g) {
    case G_RECONSTRUCT: /* _reconstruct(ndarray, (0,), b'b') */
        if (n != 3 || a[0]->kind != V_GLOBAL || a[0]->u.g != G_NDARRAY || a[1]->kind != V_TUPLE ||
            (a[2]->kind != V_BYTES && a[2]->kind != V_STR))
            return perr(p, D2_ERR_UNSUPPORTED,
                        "_reconstruct is only allowed as _reconstruct(numpy.ndarray, shape, "
                        "typecode)");
        r = newval(p, V_ARRAY);
        break;
    case G_DTYPE: /* dtype('f4', False, True) */
        if (n < 1 || n > 3 || a[0]->kind != V_STR || (n > 1 && !is_int(a[1])) ||
            (n > 2 && !is_int(a[2])))
            return perr(p, D2_ERR_UNSUPPORTED, "dtype is only allowed as dtype(str, bool, bool)");
        r = newval(p, V_DTYPE);
        if (r && dtype_of(p, a[0], r) < 0)
            return -1;
        break;
    case G_SCALAR: /* scalar(dtype, bytes): a 0-d array */
        if (n != 2 || a[0]->kind != V_DTYPE || a[1]->kind != V_BYTES)
            return perr(p, D2_ERR_UNSUPPORTED, "scalar is only allowed as scalar(dtype, bytes)");
        r = newval(p, V_ARRAY);
        if (r && !(r->u.arr.t = make_tensor(p, a[0], 0, NULL, false, a[1]->u.s.p, a[1]->u.s.n)))
            return -1;
        break;
    case G_ENCODE: { /* _codecs.encode(str, 'latin1'): how protocol 2 writes bytes */
        if (n != 2 || a[0]->kind != V_STR || !(str_is(a[1], "latin1") || str_is(a[1], "latin-1")))
            return perr(p, D2_ERR_UNSUPPORTED,
                        "_codecs.encode is only allowed as encode(str, 'latin1')");
        unsigned char *b = d2_malloc(a[0]->u.s.n + 1);
        if (!b)
            return nomem(p);
        size_t k = 0;
        for (size_t i = 0; i < a[0]->u.s.n;) {
            uint32_t cp = 0;
            size_t l = utf8_next(a[0]->u.s.p + i, a[0]->u.s.n - i, &cp);
            if (!l || cp > 0xff) {
                d2_free(b);
                return perr(p, D2_ERR_FORMAT, "string cannot be encoded as latin1");
            }
            b[k++] = (unsigned char)cp;
            i += l;
        }
        r = newval(p, V_BYTES);
        if (!r) {
            d2_free(b);
            return -1;
        }
        r->u.s.p = b;
        r->u.s.n = k;
        r->u.s.own = true;
        break;
    }
    case G_BYTES: /* bytes(): how protocol 2 writes b'' */
        if (n != 0)
            return perr(p, D2_ERR_UNSUPPORTED, "bytes is only allowed without arguments");
        r = newval(p, V_BYTES);
        break;
    case G_ODICT: /* OrderedDict(): items follow by SETITEMS */
        if (n != 0)
            return perr(p, D2_ERR_UNSUPPORTED, "OrderedDict is only allowed without arguments");
        r = newval(p, V_DICT);
        break;
    case G_TUPLE: /* tuple((name, ndarray)): Paddle's pickled Tensor; as in
                   * Python, the tuple itself (no copy to amplify) */
        if (n != 1 || a[0]->kind != V_TUPLE)
            return perr(p, D2_ERR_UNSUPPORTED, "tuple is only allowed as tuple(tuple)");
        r = a[0];
        break;
    case G_NDARRAY:
        return perr(p, D2_ERR_UNSUPPORTED, "calling numpy.ndarray is not allowed");
    }
    return push(p, r);
}

static int build(P *p)
{
    val *st = pop(p), *obj = st ? top(p) : NULL;
    if (!obj)
        return -1;
    if (obj->kind == V_ARRAY)
        return build_array(p, obj, st);
    if (obj->kind == V_DTYPE)
        return build_dtype(p, obj, st);
    return perr(p, D2_ERR_UNSUPPORTED, "setting the state of a %s is not allowed", kind_name(obj));
}

/* ---- the machine ---------------------------------------------------------- */

static int seq_from_mark(P *p, vkind k)
{
    size_t start = 0;
    if (pop_mark(p, &start) < 0)
        return -1;
    val *v = newval(p, k);
    if (!v)
        return -1;
    if (k == V_DICT && (p->sp - start) % 2)
        return perr(p, D2_ERR_FORMAT, "odd number of items for a dict");
    for (size_t i = start; i < p->sp; i++)
        if (seq_add(p, v, p->stack[i]) < 0)
            return -1;
    p->sp = start;
    return push(p, v);
}

static int tuple_n(P *p, size_t n)
{
    if (p->sp - base(p) < n)
        return perr(p, D2_ERR_FORMAT, "stack underflow");
    val *v = newval(p, V_TUPLE);
    if (!v)
        return -1;
    for (size_t i = p->sp - n; i < p->sp; i++)
        if (seq_add(p, v, p->stack[i]) < 0)
            return -1;
    p->sp -= n;
    return push(p, v);
}

/* APPEND(S) / SETITEM(S): adds the marked items (or the top 1 or 2) to the
 * list or dict below them. */
static int add_items(P *p, vkind want, bool marked)
{
    size_t start = 0;
    if (marked) {
        if (pop_mark(p, &start) < 0)
            return -1;
    } else {
        size_t k = want == V_DICT ? 2 : 1;
        if (p->sp - base(p) < k + 1)
            return perr(p, D2_ERR_FORMAT, "stack underflow");
        start = p->sp - k;
    }
    if (start <= base(p))
        return perr(p, D2_ERR_FORMAT, "stack underflow");
    val *target = p->stack[start - 1];
    if (target->kind != want)
        return perr(p, D2_ERR_UNSUPPORTED, "adding items to a %s is not allowed",
                    kind_name(target));
    if (want == V_DICT && (p->sp - start) % 2)
        return perr(p, D2_ERR_FORMAT, "odd number of items for a dict");
    for (size_t i = start; i < p->sp; i++)
        if (seq_add(p, target, p->stack[i]) < 0)
            return -1;
    p->sp = start;
    return 0;
}

static int run(P *p, val **result)
{
    while (p->pos < p->n) {
        p->op = p->pos;
        unsigned char c = p->d[p->pos++];
        p->opname = op_names[c];
        size_t len = 0;
        val *v;
        int rc = 0;
        switch (c) {
        case 0x80: /* PROTO */
            if (need(p, 1) < 0)
                return -1;
            if (p->d[p->pos] > 5)
                return perr(p, D2_ERR_UNSUPPORTED, "pickle protocol %u is not supported",
                            p->d[p->pos]);
            p->pos++;
            break;
        case 0x95: /* FRAME: a size hint; its bytes are read as opcodes */
            rc = rdlen(p, 8, &len);
            break;
        case '.':
            if (p->nmarks || p->sp != 1)
                return perr(p, D2_ERR_FORMAT, "%zu values and %zu marks left on the stack",
                            p->sp, p->nmarks);
            if (p->pos != p->n)
                return perr(p, D2_ERR_FORMAT, "%zu bytes after the end of the pickle",
                            p->n - p->pos);
            *result = p->stack[0];
            return 0;
        case '(':
            if (p->nmarks == MAX_MARKS)
                return perr(p, D2_ERR_FORMAT, "nested deeper than %d marks", MAX_MARKS);
            p->marks[p->nmarks++] = p->sp;
            break;
        case '0':
            if (p->sp > base(p))
                p->sp--;
            else
                rc = pop_mark(p, &len);
            break;
        case '1':
            if ((rc = pop_mark(p, &len)) == 0)
                p->sp = len;
            break;
        case '2':
            v = top(p);
            rc = v ? push(p, v) : -1;
            break;
        case 'N':
            rc = push(p, newval(p, V_NONE));
            break;
        case 0x88:
        case 0x89:
            if ((v = newval(p, V_BOOL)))
                v->u.b = c == 0x88;
            rc = push(p, v);
            break;
        case 'J':
        case 'K':
        case 'M': {
            int k = c == 'J' ? 4 : c == 'K' ? 1 : 2;
            if (need(p, (size_t)k) < 0)
                return -1;
            uint64_t u = rdle(p->d + p->pos, k);
            p->pos += (size_t)k;
            if ((v = newval(p, V_INT)))
                v->u.i = c == 'J' ? (int64_t)(int32_t)(uint32_t)u : (int64_t)u;
            rc = push(p, v);
            break;
        }
        case 0x8a:
        case 0x8b: /* LONG1, LONG4: little-endian two's complement */
            if (rdlen(p, c == 0x8a ? 1 : 4, &len) < 0)
                return -1;
            if (len > 8)
                return perr(p, D2_ERR_UNSUPPORTED, "integer of %zu bytes is too large", len);
            if ((v = newval(p, V_INT))) {
                uint64_t u = rdle(p->d + p->pos, (int)len);
                if (len && len < 8 && (p->d[p->pos + len - 1] & 0x80))
                    u |= ~(uint64_t)0 << (8 * len);
                v->u.i = (int64_t)u;
            }
            p->pos += len;
            rc = push(p, v);
            break;
        case 'G': {
            if (need(p, 8) < 0)
                return -1;
            uint64_t u = 0;
            for (int i = 0; i < 8; i++)
                u = u << 8 | p->d[p->pos + (size_t)i];
            p->pos += 8;
            if ((v = newval(p, V_FLOAT)))
                memcpy(&v->u.f, &u, sizeof u);
            rc = push(p, v);
            break;
        }
        case 0x8c:
        case 'X':
        case 0x8d:
            if (rdlen(p, c == 0x8c ? 1 : c == 'X' ? 4 : 8, &len) < 0)
                return -1;
            rc = push(p, new_str(p, V_STR, len));
            break;
        case 'C':
        case 'B':
        case 0x8e:
        case 0x96:
            if (rdlen(p, c == 'C' ? 1 : c == 'B' ? 4 : 8, &len) < 0)
                return -1;
            rc = push(p, new_str(p, V_BYTES, len));
            break;
        case ')':
            rc = push(p, newval(p, V_TUPLE));
            break;
        case 't':
            rc = seq_from_mark(p, V_TUPLE);
            break;
        case 0x85:
        case 0x86:
        case 0x87:
            rc = tuple_n(p, (size_t)(c - 0x84));
            break;
        case ']':
            rc = push(p, newval(p, V_LIST));
            break;
        case 'l':
            rc = seq_from_mark(p, V_LIST);
            break;
        case 'a':
        case 'e':
            rc = add_items(p, V_LIST, c == 'e');
            break;
        case '}':
            rc = push(p, newval(p, V_DICT));
            break;
        case 'd':
            rc = seq_from_mark(p, V_DICT);
            break;
        case 's':
        case 'u':
            rc = add_items(p, V_DICT, c == 'u');
            break;
        case 'c': { /* GLOBAL "module\nname\n" */
            const unsigned char *m = p->d + p->pos, *e1, *e2;
            e1 = memchr(m, '\n', p->n - p->pos);
            e2 = e1 ? memchr(e1 + 1, '\n', (size_t)(p->d + p->n - (e1 + 1))) : NULL;
            if (!e2)
                return perr(p, D2_ERR_FORMAT, "truncated");
            p->pos = (size_t)(e2 + 1 - p->d);
            rc = global(p, m, (size_t)(e1 - m), e1 + 1, (size_t)(e2 - e1 - 1));
            break;
        }
        case 0x93: { /* STACK_GLOBAL */
            val *nm = pop(p), *mod = nm ? pop(p) : NULL;
            if (!mod)
                return -1;
            if (mod->kind != V_STR || nm->kind != V_STR)
                return perr(p, D2_ERR_FORMAT, "module and name must be strings");
            rc = global(p, mod->u.s.p, mod->u.s.n, nm->u.s.p, nm->u.s.n);
            break;
        }
        case 'R':
            rc = reduce(p);
            break;
        case 'b':
            rc = build(p);
            break;
        case 'h':
        case 'j':
            if (need(p, c == 'h' ? 1 : 4) < 0)
                return -1;
            len = (size_t)rdle(p->d + p->pos, c == 'h' ? 1 : 4);
            p->pos += c == 'h' ? 1 : 4;
            rc = memo_get(p, len);
            break;
        case 'q':
        case 'r':
        case 0x94:
            if (c == 0x94) {
                len = p->memo_count;
            } else {
                if (need(p, c == 'q' ? 1 : 4) < 0)
                    return -1;
                len = (size_t)rdle(p->d + p->pos, c == 'q' ? 1 : 4);
                p->pos += c == 'q' ? 1 : 4;
            }
            v = top(p);
            rc = v ? memo_put(p, len, v) : -1;
            break;
        default:
            if (p->opname)
                return perr(p, D2_ERR_UNSUPPORTED, "opcode not allowed in a parameter file");
            p->opname = "opcode";
            return perr(p, D2_ERR_FORMAT, "unknown opcode 0x%02x", c);
        }
        if (rc < 0)
            return -1;
    }
    p->opname = NULL;
    return perr(p, D2_ERR_FORMAT, "truncated: the pickle ends without STOP");
}

/* ---- flattening the result ----------------------------------------------- */

typedef struct out {
    d2_pickle_params *r;
    size_t cap;
    size_t *slots; /* hash of names -> index + 1; 0 empty */
    size_t nslots;
} out;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int out_rehash(P *p, out *o)
{
    size_t ns = o->nslots ? o->nslots * 2 : 64;
    size_t *sl = d2_calloc(ns, sizeof *sl);
    if (!sl)
        return nomem(p);
    for (size_t i = 0; i < o->r->n; i++) {
        size_t h = (size_t)hash(o->r->items[i].name) & (ns - 1);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = i + 1;
    }
    d2_free(o->slots);
    o->slots = sl;
    o->nslots = ns;
    return 0;
}

/* Adds (or replaces) name -> t; takes a new reference on t. */
static int out_add(P *p, out *o, const char *name, d2_tensor *t)
{
    if ((o->r->n + 1) * 2 > o->nslots && out_rehash(p, o) < 0)
        return -1;
    size_t h = (size_t)hash(name) & (o->nslots - 1);
    for (; o->slots[h]; h = (h + 1) & (o->nslots - 1)) {
        d2_pickle_entry *e = &o->r->items[o->slots[h] - 1];
        if (strcmp(e->name, name) == 0) {
            d2_tensor_unref(e->tensor);
            e->tensor = d2_tensor_ref(t);
            return 0;
        }
    }
    if (o->r->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        d2_pickle_entry *ni = d2_realloc(o->r->items, cap * sizeof *ni);
        if (!ni)
            return nomem(p);
        o->r->items = ni;
        o->cap = cap;
    }
    char *nm = d2_strdup(name);
    if (!nm)
        return nomem(p);
    o->r->items[o->r->n] = (d2_pickle_entry){nm, d2_tensor_ref(t)};
    o->slots[h] = ++o->r->n;
    return 0;
}

static d2_tensor *as_tensor(const val *v)
{
    if (v->kind == V_ARRAY)
        return v->u.arr.t;
    if (v->kind == V_TUPLE && v->u.seq.n == 2 && v->u.seq.v[0]->kind == V_STR &&
        v->u.seq.v[1]->kind == V_ARRAY)
        return v->u.seq.v[1]->u.arr.t;
    return NULL;
}

static int flatten(P *p, out *o, const val *v, d2_buf *name, int depth)
{
    if ((v->kind == V_ARRAY && !v->u.arr.t) ||
        (v->kind == V_TUPLE && v->u.seq.n == 2 && v->u.seq.v[1]->kind == V_ARRAY &&
         !v->u.seq.v[1]->u.arr.t))
        return perr(p, D2_ERR_FORMAT, "'%s': ndarray never filled (no BUILD)",
                    name->data ? name->data : "");
    d2_tensor *t = as_tensor(v);
    if (t)
        return out_add(p, o, name->data, t);
    if (v->kind != V_DICT && v->kind != V_LIST && v->kind != V_TUPLE)
        return 0; /* None, numbers, strings: not parameters */
    /* Each container's items were pushed by at least one opcode each, so a
     * tree visits fewer values than the input has bytes; more means shared
     * containers, which could make the walk exponential. */
    p->visits += v->u.seq.n;
    if (p->visits > p->n)
        return perr(p, D2_ERR_FORMAT, "'%.200s': containers shared so much that the result "
                    "would be larger than the file", name->data ? name->data : "");
    if (depth >= MAX_NEST)
        return perr(p, D2_ERR_FORMAT, "'%.200s': nested deeper than %d levels", name->data,
                    MAX_NEST);
    size_t len0 = name->len;
    bool dict = v->kind == V_DICT;
    for (size_t i = 0; i < v->u.seq.n; i += dict ? 2 : 1) {
        name->len = len0;
        if (len0)
            d2_buf_puts(name, ".");
        if (dict) {
            const val *k = v->u.seq.v[i];
            if (k->kind != V_STR)
                return perr(p, D2_ERR_FORMAT, "'%.200s': dict key is a %s, not a str",
                            name->data ? name->data : "", kind_name(k));
            if (depth == 0 && (str_is(k, SKIP_KEY) || str_is(k, BIG_KEY)))
                continue;
            d2_buf_append(name, k->u.s.p, k->u.s.n);
        } else {
            d2_buf_printf(name, "%zu", i);
        }
        d2_buf_append(name, "", 1);
        name->len--;
        if (name->oom)
            return nomem(p);
        if (memchr(name->data, '\0', name->len))
            return perr(p, D2_ERR_FORMAT, "name holds a NUL character");
        if (flatten(p, o, v->u.seq.v[i + (dict ? 1 : 0)], name, depth + 1) < 0)
            return -1;
    }
    name->len = len0;
    if (name->data)
        name->data[len0] = '\0';
    return 0;
}

static const val *dict_get(const val *d, const char *key)
{
    const val *r = NULL;
    for (size_t i = 0; d->kind == V_DICT && i < d->u.seq.n; i += 2)
        if (str_is(d->u.seq.v[i], key))
            r = d->u.seq.v[i + 1];
    return r;
}

static ptrdiff_t find_entry(const out *o, const char *name)
{
    if (!o->nslots)
        return -1;
    size_t h = (size_t)hash(name) & (o->nslots - 1);
    for (; o->slots[h]; h = (h + 1) & (o->nslots - 1))
        if (strcmp(o->r->items[o->slots[h] - 1].name, name) == 0)
            return (ptrdiff_t)o->slots[h] - 1;
    return -1;
}

/* paddle.save (protocols 2 and 3) splits arrays over 1 GiB into flat slices
 * "KEY@@.0", "KEY@@.1"... and records {KEY: {"OriginShape": shape, "slices":
 * [names]}} under "UnpackBigParamInfor@@"; joins them back. */
static int join_big(P *p, out *o, const val *info, bool *drop)
{
    if (info->kind != V_DICT)
        return perr(p, D2_ERR_FORMAT, "'%s' is a %s, not a dict", BIG_KEY, kind_name(info));
    for (size_t i = 0; i < info->u.seq.n; i += 2) {
        const val *k = info->u.seq.v[i], *d = info->u.seq.v[i + 1];
        const val *shp = dict_get(d, "OriginShape"), *sl = dict_get(d, "slices");
        if (k->kind != V_STR || !shp || !sl || (shp->kind != V_TUPLE && shp->kind != V_LIST) ||
            shp->u.seq.n > D2_MAX_DIMS || (sl->kind != V_LIST && sl->kind != V_TUPLE))
            return perr(p, D2_ERR_FORMAT, "malformed '%s' entry", BIG_KEY);
        int64_t shape[D2_MAX_DIMS];
        uint64_t numel = 1;
        for (size_t j = 0; j < shp->u.seq.n; j++) {
            if (!is_int(shp->u.seq.v[j]) || int_of(shp->u.seq.v[j]) < 0)
                return perr(p, D2_ERR_FORMAT, "malformed '%s' shape", BIG_KEY);
            shape[j] = int_of(shp->u.seq.v[j]);
            int64_t n;
            if (!d2_mul_i64((int64_t)numel, shape[j], &n))
                return perr(p, D2_ERR_FORMAT, "malformed '%s' shape", BIG_KEY);
            numel = (uint64_t)n;
        }
        if (!dims_fit((int)shp->u.seq.n, shape))
            return perr(p, D2_ERR_FORMAT, "malformed '%s' shape", BIG_KEY);
        /* check the slices: present, 1-d, one dtype, sizes adding up */
        uint64_t total = 0;
        d2_dtype dt = D2_F32;
        for (size_t j = 0; j < sl->u.seq.n; j++) {
            const val *s = sl->u.seq.v[j];
            char nm[1024];
            if (s->kind != V_STR || s->u.s.n >= sizeof nm)
                return perr(p, D2_ERR_FORMAT, "malformed '%s' slice name", BIG_KEY);
            memcpy(nm, s->u.s.p, s->u.s.n);
            nm[s->u.s.n] = '\0';
            ptrdiff_t e = find_entry(o, nm);
            if (e < 0)
                return perr(p, D2_ERR_FORMAT, "slice '%s' is missing", nm);
            /* each slice once, so the joined arrays are no larger than the input */
            if (drop[e])
                return perr(p, D2_ERR_FORMAT, "slice '%s' is listed twice", nm);
            drop[e] = true;
            d2_tensor *t = o->r->items[e].tensor;
            if (t->ndim != 1 || (j && t->dtype != dt))
                return perr(p, D2_ERR_FORMAT, "slice '%s' is not a 1-d %s array", nm,
                            d2_dtype_name(dt));
            dt = t->dtype;
            total += (uint64_t)t->shape[0];
        }
        if (total != numel || !sl->u.seq.n)
            return perr(p, D2_ERR_FORMAT, "slices of '%.*s' do not add up to its shape",
                        (int)(k->u.s.n > 200 ? 200 : k->u.s.n), (const char *)k->u.s.p);
        d2_err e = {0};
        d2_tensor *t = d2_tensor_new(NULL, dt, (int)shp->u.seq.n, shape, &e);
        if (!t)
            return perr(p, e.code, "%s", e.msg);
        size_t at = 0, es = d2_dtype_size(dt);
        for (size_t j = 0; j < sl->u.seq.n; j++) {
            char nm[1024];
            memcpy(nm, sl->u.seq.v[j]->u.s.p, sl->u.seq.v[j]->u.s.n);
            nm[sl->u.seq.v[j]->u.s.n] = '\0';
            d2_pickle_entry *en = &o->r->items[find_entry(o, nm)];
            size_t nb = (size_t)en->tensor->shape[0] * es;
            if (nb)
                memcpy((char *)d2_tensor_data(t) + at, d2_tensor_data(en->tensor), nb);
            at += nb;
        }
        char *key = d2_strndup((const char *)k->u.s.p, k->u.s.n);
        size_t n0 = o->r->n;
        int rc = key ? out_add(p, o, key, t) : nomem(p);
        if (rc == 0 && o->r->n == n0)
            drop[find_entry(o, key)] = false; /* replaced an entry (perhaps a slice) */
        d2_free(key);
        d2_tensor_unref(t);
        if (rc < 0)
            return -1;
    }
    /* drop the slices */
    size_t w = 0;
    for (size_t r = 0; r < o->r->n; r++) {
        if (drop[r]) {
            d2_free(o->r->items[r].name);
            d2_tensor_unref(o->r->items[r].tensor);
        } else {
            o->r->items[w++] = o->r->items[r];
        }
    }
    o->r->n = w;
    return 0;
}

void d2_pickle_params_free(d2_pickle_params *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        d2_free(r->items[i].name);
        d2_tensor_unref(r->items[i].tensor);
    }
    d2_free(r->items);
    r->items = NULL;
    r->n = 0;
}

int d2_pickle_parse_params(const void *data, size_t size, const char *name,
                           d2_pickle_params *res, d2_err *err)
{
    P p = {.d = data, .n = size, .name = name ? name : "<pickle>", .err = err};
    res->n = 0;
    res->items = NULL;
    if (size == 0 || p.d[0] != 0x80)
        return perr(&p, D2_ERR_FORMAT,
                    "not a Python pickle of protocol 2 or later (paddle.save's format)");
    val *root = NULL;
    out o = {.r = res};
    d2_buf nm;
    d2_buf_init(&nm);
    int rc = run(&p, &root);
    p.opname = NULL;
    if (rc == 0 && root->kind != V_DICT)
        rc = perr(&p, D2_ERR_FORMAT, "the pickle holds a %s, not a dict of arrays (a state_dict)",
                  kind_name(root));
    if (rc == 0)
        rc = flatten(&p, &o, root, &nm, 0);
    if (rc == 0 && dict_get(root, BIG_KEY)) {
        /* one flag per entry, and per entry the joins may add */
        size_t nd = res->n + dict_get(root, BIG_KEY)->u.seq.n + 1;
        bool *drop = d2_calloc(nd, sizeof *drop);
        rc = drop ? join_big(&p, &o, dict_get(root, BIG_KEY), drop) : nomem(&p);
        d2_free(drop);
    }
    d2_buf_free(&nm);
    d2_free(o.slots);
    free_all(&p);
    if (rc < 0)
        d2_pickle_params_free(res);
    return rc;
}

int d2_pickle_load_params(const char *path, d2_pickle_params *res, d2_err *err)
{
    res->n = 0;
    res->items = NULL;
    size_t len = 0;
    char *data = d2_read_file(path, &len, err);
    if (!data)
        return -1;
    int rc = d2_pickle_parse_params(data, len, path, res, err);
    d2_free(data);
    return rc;
}

/* ---- writer ---- */

static void pw_op(d2_buf *b, int op) { d2_buf_append(b, &(unsigned char){(unsigned char)op}, 1); }

static void pw_u32(d2_buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    d2_buf_append(b, c, 4);
}

static void pw_str(d2_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n < 256) {
        pw_op(b, 0x8c); /* SHORT_BINUNICODE */
        pw_op(b, (int)n);
    } else {
        pw_op(b, 'X'); /* BINUNICODE */
        pw_u32(b, (uint32_t)n);
    }
    d2_buf_append(b, s, n);
}

static void pw_int(d2_buf *b, int64_t v)
{
    if (v >= 0 && v < 256) {
        pw_op(b, 'K'); /* BININT1 */
        pw_op(b, (int)v);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        pw_op(b, 'J'); /* BININT */
        pw_u32(b, (uint32_t)(int32_t)v);
    } else {
        unsigned char c[9] = {8};
        for (int i = 0; i < 8; i++)
            c[i + 1] = (unsigned char)((uint64_t)v >> (8 * i));
        pw_op(b, 0x8a); /* LONG1 */
        d2_buf_append(b, c, 9);
    }
}

static void pw_global(d2_buf *b, const char *mod, const char *name)
{
    pw_str(b, mod);
    pw_str(b, name);
    pw_op(b, 0x93); /* STACK_GLOBAL */
}

/* One ndarray as NumPy pickles it: _reconstruct(ndarray, (0,), b'b') then
 * BUILD with (1, shape, dtype, is_fortran, raw bytes). */
static int pw_array(d2_buf *b, const d2_tensor *t, d2_err *err)
{
    const char *code, *order = "<";
    switch (t->dtype) {
    case D2_F32: code = "f4"; break;
    case D2_F64: code = "f8"; break;
    case D2_I32: code = "i4"; break;
    case D2_I64: code = "i8"; break;
    case D2_BOOL: code = "b1", order = "|"; break;
    default:
        return d2_err_set(err, D2_ERR_INVALID, "paddle.save: dtype %s cannot be saved",
                          d2_dtype_name(t->dtype));
    }
    pw_global(b, "numpy.core.multiarray", "_reconstruct");
    pw_global(b, "numpy", "ndarray");
    pw_int(b, 0);
    pw_op(b, 0x85); /* TUPLE1 */
    pw_op(b, 'C');  /* SHORT_BINBYTES */
    pw_op(b, 1);
    d2_buf_append(b, "b", 1);
    pw_op(b, 0x87); /* TUPLE3 */
    pw_op(b, 'R');  /* REDUCE */
    pw_op(b, '(');  /* MARK */
    pw_int(b, 1);
    d2_shape s;
    d2_tensor_get_shape(t, &s);
    pw_op(b, '(');
    for (int i = 0; i < s.ndim; i++)
        pw_int(b, s.dims[i]);
    pw_op(b, 't'); /* TUPLE */
    pw_global(b, "numpy", "dtype");
    pw_str(b, code);
    pw_op(b, 0x89); /* NEWFALSE */
    pw_op(b, 0x88); /* NEWTRUE */
    pw_op(b, 0x87);
    pw_op(b, 'R');
    pw_op(b, '(');
    pw_int(b, 3);
    pw_str(b, order);
    pw_op(b, 'N');
    pw_op(b, 'N');
    pw_op(b, 'N');
    pw_int(b, -1);
    pw_int(b, -1);
    pw_int(b, 0);
    pw_op(b, 't');
    pw_op(b, 'b'); /* BUILD */
    pw_op(b, 0x89);
    size_t nbytes = (size_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
    if (nbytes <= UINT32_MAX) {
        pw_op(b, 'B'); /* BINBYTES */
        pw_u32(b, (uint32_t)nbytes);
    } else {
        pw_op(b, 0x8e); /* BINBYTES8 */
        pw_u32(b, (uint32_t)nbytes);
        pw_u32(b, (uint32_t)((uint64_t)nbytes >> 32));
    }
    /* little-endian host assumed, as everywhere in the runtime */
    d2_buf_append(b, d2_tensor_data(t), nbytes);
    pw_op(b, 't');
    pw_op(b, 'b');
    return 0;
}

int d2_pickle_save_params(const char *path, const d2_pickle_params *p, d2_err *err)
{
    d2_buf b;
    d2_buf_init(&b);
    pw_op(&b, 0x80); /* PROTO 4 */
    pw_op(&b, 4);
    pw_op(&b, '}'); /* EMPTY_DICT */
    for (size_t i = 0; i < p->n; i++) {
        if (!d2_tensor_is_contiguous(p->items[i].tensor)) {
            d2_buf_free(&b);
            return d2_err_set(err, D2_ERR_INVALID, "paddle.save: '%s' is not contiguous",
                              p->items[i].name);
        }
        pw_str(&b, p->items[i].name);
        if (pw_array(&b, p->items[i].tensor, err) < 0) {
            d2_buf_free(&b);
            return -1;
        }
        pw_op(&b, 's'); /* SETITEM */
    }
    pw_op(&b, '.'); /* STOP */
    if (b.oom) {
        d2_buf_free(&b);
        return d2_err_set(err, D2_ERR_NOMEM, "paddle.save: out of memory");
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        d2_buf_free(&b);
        return d2_err_set(err, D2_ERR_IO, "%s: %s", path, strerror(errno));
    }
    bool bad = fwrite(b.data, 1, b.len, f) != b.len;
    bad |= fclose(f) != 0;
    d2_buf_free(&b);
    if (bad)
        return d2_err_set(err, D2_ERR_IO, "%s: cannot write the file", path);
    return 0;
}

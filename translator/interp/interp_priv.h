/* interp_priv.h - interpreter internals shared by the files of translator/interp only. */
#ifndef DY2ST_INTERP_PRIV_H
#define DY2ST_INTERP_PRIV_H

#include "interp/interp.h"

#include <math.h>
#include <string.h>

#define D2I_SMALL_MIN (-5)
#define D2I_SMALL_MAX 256
#define D2I_RECURSION_LIMIT 1000

/* d2_class.flags: which special methods a class's MRO defines (recomputed
 * when a class is made or a dunder is assigned on it). */
enum {
    D2I_CF_SETATTR = 1u << 0,  /* __setattr__ other than object's */
    D2I_CF_GETATTR = 1u << 1,  /* __getattr__ */
    D2I_CF_USER = 1u << 2,     /* made by a class statement */
    D2I_CF_EXC = 1u << 3,      /* BaseException or a subclass */
};

/* One entry of a captured traceback: where a frame was when the exception was raised. */
typedef struct d2i_tb_entry {
    const d2_module *module;
    d2_span span;
    const char *func;
} d2i_tb_entry;

typedef struct d2i_tb {
    size_t n;
    d2i_tb_entry e[];
} d2i_tb;

struct d2i_frame;
struct d2i_unit;

/* The attribute cache (class.c): what a class's MRO gives for a name,
 * remembered per (class, name) while no class namespace changes. Every
 * change to a class's dict (d2_dict.class_dict) and every class made bumps
 * the class epoch, which empties the cache at once. */
#define D2I_ATTR_CACHE 512   /* entries, a power of two */
#define D2I_ATTR_NAME 32     /* longest cached name + 1 */
typedef struct d2i_attr_entry {
    const d2_class *cls;     /* NULL: empty */
    unsigned long epoch;
    uint64_t hash;
    size_t len;
    d2_obj *value;           /* borrowed from the class dict; NULL: not on the MRO */
    char name[D2I_ATTR_NAME];
} d2i_attr_entry;
void d2i_class_changed(void);
/* d2i_mro_lookup with the name's length and d2i_hash_bytes hash known. */
d2_obj *d2i_mro_lookup_h(d2_interp *I, d2_class *cls, const char *name, size_t n, uint64_t h);

struct d2_interp_state {
    d2_obj *small_ints[D2I_SMALL_MAX - D2I_SMALL_MIN + 1];
    d2_obj *empty_tuple, *empty_str;
    d2_obj *memory_error;        /* raised without allocating when memory runs out */
    d2_obj *chars[128];          /* one-character ASCII strings, made on demand */
    d2_class *object, *type, *set, *method_descr, *super, *base_exc, *notimpl_type, *tb_type;
    d2_class *views[3];          /* dict_keys, dict_values, dict_items */
    d2_class *file_type;         /* objects made by open() */
    d2_obj *streams[2];          /* sys.stdout, sys.stderr */
    /* modules written in Python (d2_module_add_source), run on first import;
     * refused modules (d2_module_add_absent) have absent set and src the reason */
    struct d2i_source {
        const char *name, *src;
        bool absent;
    } *sources;
    size_t nsources, capsources;
    size_t nthawed; /* library modules whose frozen tree was used (d2_interp_thawed) */
    /* object's own methods, to tell overrides */
    d2_obj *object_init, *object_setattr, *object_repr, *object_str, *object_new;
    d2_module *builtins_mod;
    d2_dict *arg_cache;          /* d2_parse_args literal defaults, by literal text */
    struct d2i_spec_cache *spec_cache; /* d2_parse_args parsed specs */
    d2_dict *warned;             /* warning positions already reported */
    /* objects kept alive while a builtin runs (d2_parse_args star parameters) */
    d2_obj **pool;
    size_t npool, cappool;
    /* exceptions being handled by except clauses, innermost last (bare raise) */
    d2_obj **handled;
    size_t nhandled, caphandled;
    /* containers being printed, for [...] on self reference */
    d2_obj **repr_stack;
    size_t nrepr, caprepr;
    /* parsed files: each arena owns one module's AST, kept until teardown */
    d2_arena **arenas;
    size_t narenas, caparenas;
    struct d2i_unit *units;      /* scope analyses, one per executed module AST */
    struct d2i_frame *cur;       /* innermost evaluation frame */
    const char *stack_base;      /* C stack position at entry, for the overflow guard */
    int exit_status;             /* the status an uncaught sys.exit(n) asked for */
    size_t stack_budget;
    int32_t ticks;               /* back-edges and calls left before the next clock read */
    double deadline;             /* monotonic seconds when the run must stop; 0: none */
    d2i_attr_entry attr_cache[D2I_ATTR_CACHE];
};

/* A builtin written by hand (a d2_builtin_fn) rather than as a table row. */
#define METHOD(name)                                                                               \
    static d2_obj *name(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)

/* A method (or function) of a table: fn, or the row def (then fn is NULL). */
typedef struct method_def {
    const char *name;
    d2_builtin_fn fn;
    const d2_def *def;
} method_def;

/* ---- value.c ---- */
void d2i_free_all(d2_interp *I); /* teardown: frees every live object, cycles included */
void d2i_clear_refs(d2_obj *o);  /* drops every reference o holds (list.clear, teardown) */
d2_obj *d2i_iter_new(d2_interp *I, d2_obj *(*next)(d2_interp *, d2_iter *, bool *), d2_obj *src);
static inline bool d2i_is_number(d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}

/* ---- str.c ---- */
uint64_t d2i_hash_bytes(const char *s, size_t n);
d2_obj *d2i_char(d2_interp *I, uint32_t cp); /* one-character string */
/* Code points of a UTF-8 string; byte offset of code point i. */
static inline size_t d2i_str_chars(const d2_str *s)
{
    size_t c = 0;
    for (size_t i = 0; i < s->len; i++)
        c += ((unsigned char)s->s[i] & 0xC0) != 0x80;
    return c;
}
size_t d2i_str_offset(const d2_str *s, size_t i);
size_t d2i_chars_in(const char *s, size_t n); /* code points in n bytes of UTF-8 */
/* The code point at s[*i] (advancing *i); the UTF-8 bytes of cp into out (returns their count). */
uint32_t d2i_utf8_decode(const char *s, size_t len, size_t *i);
size_t d2i_utf8_encode(uint32_t cp, char *out);
d2_obj *d2i_str_from_buf(d2_interp *I, d2_buf *b); /* a str of b's bytes; frees b */
d2_obj *d2i_str_concat(d2_interp *I, d2_obj *a, d2_obj *b);
/* A str of len bytes to fill in place, then d2i_str_finish (sets len, NUL and hash). */
d2_obj *d2i_str_alloc(d2_interp *I, size_t len);
d2_obj *d2i_str_finish(d2_obj *o, size_t len);
bool d2i_is_ascii(const char *s, size_t n);
extern const method_def d2i_str_methods[];
extern const size_t d2i_nstr_methods;

/* ---- containers.c ---- */
int d2i_init_methods(d2_interp *I); /* str, list, tuple, dict and set methods */
/* Borrowed value for a C-string key with its precomputed d2i_hash_bytes hash. */
d2_obj *d2i_dict_get_cstr(d2_dict *d, const char *s, size_t n, uint64_t h);
/* The value slot of a str key given as C string, or NULL when absent. */
d2_obj **d2i_dict_slot_cstr(d2_dict *d, const char *s, size_t n, uint64_t h);
/* The entry index of a C-string key, or -1. */
int64_t d2i_dict_index_cstr(d2_dict *d, const char *s, size_t n, uint64_t h);
/* Marks d as a namespace whose layout is tracked (module globals, builtins). */
void d2i_dict_track_layout(d2_dict *d);
/* Index of a key's entry or -1 (-2 with an exception). */
int64_t d2i_dict_find(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h);
d2_obj *d2i_dict_pop(d2_interp *I, d2_dict *d, d2_obj *key); /* new ref or NULL (absent, no exc) */
void d2i_dict_clear(d2_dict *d);
bool d2i_is_set(d2_interp *I, d2_obj *o);
d2_obj *d2i_set_new(d2_interp *I);
d2_obj *d2i_set_from_iterable(d2_interp *I, d2_obj *iterable); /* iterable may be NULL */
d2_obj *d2i_set_op(d2_interp *I, int op, d2_obj *a, d2_obj *b); /* | & - ^ of sets */
bool d2i_is_view(d2_obj *o); /* dict_keys, dict_values, dict_items */
d2_obj *d2i_seq_repeat(d2_interp *I, d2_obj *seq, int64_t n);
d2_obj *d2i_seq_concat(d2_interp *I, d2_obj *a, d2_obj *b);
int d2i_list_extend(d2_interp *I, d2_obj *list, d2_obj *iterable);
d2_obj *d2i_list_from_array(d2_interp *I, d2_obj **items, size_t n);
d2_obj *d2i_tuple_from_iterable(d2_interp *I, d2_obj *o);
/* Resolves a slice against len: 0, or -1 with an exception. */
int d2i_slice_indices(d2_interp *I, d2_obj *slice, int64_t len, int64_t *start, int64_t *stop,
                      int64_t *step, int64_t *n);
d2_obj *d2i_seq_getitem(d2_interp *I, d2_obj *o, d2_obj *key);
int d2i_list_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v);
int d2i_list_delitem(d2_interp *I, d2_obj *o, d2_obj *key);
/* Stable merge sort with optional key function and reverse; 0 or -1. */
int d2i_sort(d2_interp *I, d2_obj **items, size_t n, d2_obj *key, bool reverse);
/* Iteration, reversal and length of the builtin layouts: NULL (no exception)
 * or -2 when o is none of them. */
d2_obj *d2i_builtin_iter(d2_interp *I, d2_obj *o);
d2_obj *d2i_builtin_reversed(d2_interp *I, d2_obj *o);
int64_t d2i_builtin_len(d2_interp *I, d2_obj *o);

/* ---- format.c ---- */
void d2i_float_repr(double v, char *buf, size_t n);
d2_obj *d2i_format(d2_interp *I, d2_obj *v, const char *spec);
d2_obj *d2i_str_mod(d2_interp *I, d2_obj *fmt, d2_obj *args);
d2_obj *d2i_str_format(d2_interp *I, const char *fmt, size_t len, d2_obj **args, size_t nargs,
                       d2_dict *kwargs);

/* ---- object.c ---- */
/* Compares two numbers (int, bool or float): -1, 0, 1, or 2 when either is NaN. */
static inline int d2i_num_cmp(d2_obj *a, d2_obj *b)
{
    if (a->kind != D2_OBJ_FLOAT && b->kind != D2_OBJ_FLOAT) {
        int64_t x = D2_AS(d2_int, a)->v, y = D2_AS(d2_int, b)->v;
        return x < y ? -1 : x > y;
    }
    long double x = a->kind == D2_OBJ_FLOAT ? (long double)D2_AS(d2_float, a)->v
                                            : (long double)D2_AS(d2_int, a)->v;
    long double y = b->kind == D2_OBJ_FLOAT ? (long double)D2_AS(d2_float, b)->v
                                            : (long double)D2_AS(d2_int, b)->v;
    if (isnan(x) || isnan(y))
        return 2;
    return x < y ? -1 : x > y;
}
d2_obj *d2i_builtin_repr(d2_interp *I, d2_obj *o); /* repr of builtin layouts */
int d2i_compare_values(d2_interp *I, int op, d2_obj *a, d2_obj *b); /* 1/0/-1, -2 unsupported */
int d2i_contains(d2_interp *I, d2_obj *container, d2_obj *item);
int d2i_set_subset(d2_interp *I, d2_dict *a, d2_dict *b); /* 1 if every key of a is in b, 0, -1 */
d2_obj *d2i_inplace_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b); /* a op= b */

/* ---- class.c ---- */
int d2i_init_core_methods(d2_interp *I);
d2_class *d2i_class_new(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                        d2_module *module, bool set_type);
/* A class object; bases a tuple of classes (borrowed; NULL = (object,)). */
d2_class *d2i_class_make(d2_interp *I, const char *name, d2_obj *bases, d2_dict *dict,
                         d2_obj_kind layout, d2_module *module);
d2_obj *d2i_mro_lookup(d2_interp *I, d2_class *cls, const char *name);
void d2i_class_update_flags(d2_interp *I, d2_class *cls);
/* Makes builtin b (a new reference it steals; NULL: -1) a method of cls
 * named name: a method descriptor whose receiver must be an instance of
 * cls (except __new__, which receives the class). */
int d2i_class_add_descr(d2_interp *I, d2_class *cls, const char *name, d2_obj *b);
int d2i_issubclass(d2_class *a, d2_class *b);
d2_obj *d2i_type_call(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs, d2_dict *kw);
int d2i_object_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v);
int d2i_delattr(d2_interp *I, d2_obj *o, const char *name);
d2_obj *d2i_super_new(d2_interp *I, d2_class *cls, d2_obj *self);

/* ---- exc.c ---- */
int d2i_make_exceptions(d2_interp *I);
d2_obj *d2i_exc_new(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs);
void d2i_set_nomem(d2_interp *I); /* raises the preallocated MemoryError */
/* The largest object a script may build, in bytes: above it MemoryError is
 * raised before anything is allocated. */
#define D2I_MAX_OBJECT_BYTES ((size_t)1 << 30)
/* The MemoryError of d2i_size_ok (false). */
bool d2i_size_error(d2_interp *I, uint64_t a, uint64_t b, size_t unit, const char *kind)
    __attribute__((cold));
/* true when a*b items of unit bytes each fit the object size limit; otherwise
 * false with MemoryError "cannot allocate a KIND of N characters/items".
 * Inline: every str, list and dict allocation asks. */
static inline bool d2i_size_ok(d2_interp *I, uint64_t a, uint64_t b, size_t unit,
                               const char *kind)
{
    size_t n, bytes;
    if ((uint64_t)(size_t)a == a && (uint64_t)(size_t)b == b &&
        d2_mul_size((size_t)a, (size_t)b, &n) && d2_mul_size(n, unit ? unit : 1, &bytes) &&
        bytes <= D2I_MAX_OBJECT_BYTES)
        return true;
    return d2i_size_error(I, a, b, unit, kind);
}
void d2i_set_exc(d2_interp *I, d2_obj *exc);
void d2i_render_exception(d2_interp *I); /* the uncaught exception into I->diag, cleared */

/* ---- args.c ---- */
void d2i_spec_cache_free(d2_interp *I);
/* Checks a function call's argument count etc. for builtins taking no kwargs. */
int d2i_no_kwargs(d2_interp *I, const char *fname, d2_dict *kw);
int d2i_nargs(d2_interp *I, const char *fname, size_t nargs, size_t lo, size_t hi);
int d2i_check_args(d2_interp *I, const char *fname, size_t n, size_t lo, size_t hi, d2_dict *kw);

/* ---- builtins.c ---- */
int d2i_init_builtins(d2_interp *I);
d2_obj *d2i_to_int_obj(d2_interp *I, d2_obj *o, int base);
d2_obj *d2i_to_float_obj(d2_interp *I, d2_obj *o);

/* ======================================================================
 * Scope analysis (scope.c): a scope per function, lambda, class body and
 * comprehension, its symbols, and the unit mapping a module's AST nodes to
 * them. The lookups below run on every name the evaluator touches.
 * ==================================================================== */

typedef enum { SC_MODULE, SC_FUNCTION, SC_CLASS } scope_kind;

enum {
    F_BOUND = 1,     /* assigned, imported, def'd, a loop or except target */
    F_PARAM = 2,
    F_GLOBAL = 4,    /* declared global */
    F_NONLOCAL = 8,  /* declared nonlocal */
    F_USED = 16,
    F_FREE = 32,     /* resolved as free: the value lives in a cell of an outer scope */
    F_CELL = 64,     /* captured by an inner scope */
};

typedef enum { R_LOCAL, R_CELL, R_FREE, R_GLOBAL, R_NAME, R_CLASSDEREF } resolution;

typedef struct sym {
    const char *name;
    size_t len;
    uint64_t hash;
    unsigned flags;
    int res;
    int slot;
    const void *decl; /* the nonlocal statement declaring it, for errors */
    /* global loads: the entry found last time, valid while the dicts' layouts
     * are those recorded (eval_expr.c, load_global_sym) */
    const d2_dict *gdict;
    uint64_t glayout, blayout; /* blayout: 0 when found in the globals */
    int64_t gix;
} sym;

typedef struct d2_code {
    scope_kind kind;
    bool is_comp;
    const char *name, *qualname;
    const void *node;
    struct d2_code *parent;
    struct d2i_unit *unit;
    sym **tab;           /* open addressing by name */
    size_t tabcap, nsyms;
    sym **order;         /* insertion order */
    size_t cap_order;
    struct d2_code **children;
    size_t nchildren, capchildren;
    /* signature (functions) */
    const d2_ast_arguments *args;
    int nposonly, nargs, nkwonly;
    int vararg_slot, kwarg_slot; /* -1 when absent */
    const char **params;         /* nargs + nkwonly names, slots 0.. */
    int nslots;
    int *cell_init, ncell_init;     /* slots that start as empty cells */
    int *cell_params, ncell_params; /* parameter slots wrapped into cells */
    sym **freevars;                 /* in closure order */
    int nfree;
    const d2_ast_node *yield_node;  /* first yield: generator functions are rejected */
} d2_code;

typedef struct ptrmap {
    const void **keys;
    void **vals;
    size_t cap, n;
} ptrmap;

typedef struct d2i_unit {
    struct d2i_unit *next;
    const void *root;
    const d2_module *module;
    ptrmap names;   /* Name node -> sym; scope node -> d2_code */
    ptrmap consts;  /* Constant node -> cached object */
    d2_code *top;
} d2i_unit;

static inline size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static inline void *pm_get(const ptrmap *m, const void *k)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = ptr_hash(k) & mask; m->keys[i]; i = (i + 1) & mask)
        if (m->keys[i] == k)
            return m->vals[i];
    return NULL;
}

static inline sym *code_find(const d2_code *c, const char *name, size_t len, uint64_t h)
{
    if (!c->tabcap)
        return NULL;
    size_t mask = c->tabcap - 1;
    for (size_t i = h & mask; c->tab[i]; i = (i + 1) & mask) {
        sym *s = c->tab[i];
        if (s->hash == h && s->len == len && memcmp(s->name, name, len) == 0)
            return s;
    }
    return NULL;
}

static inline sym *code_lookup(const d2_code *c, const char *name)
{
    size_t len = strlen(name);
    return code_find(c, name, len, d2i_hash_bytes(name, len));
}

/* ======================================================================
 * Evaluation frames (eval_expr.c, eval_stmt.c, call.c)
 * ==================================================================== */

typedef struct d2i_frame {
    d2_frame f;               /* the public frame (tracebacks) */
    d2_frame *pf;             /* receives span updates: f, or the parent's for comprehensions */
    struct d2i_frame *prev;
    const d2_code *code;
    d2i_unit *unit;
    d2_obj **fast;
    d2_dict *ns;              /* R_NAME namespace: module globals or the class body dict */
    d2_dict *globals;
    d2_module *module;
    d2_obj *retval;
} d2i_frame;

enum { X_NORMAL, X_BREAK, X_CONTINUE, X_RETURN, X_ERROR };


/* The symbol of a Name node in fr's scope, or NULL for nodes made after analysis. */
static inline sym *node_sym(d2i_frame *fr, const d2_ast_expr *e)
{
    sym *s = pm_get(&fr->unit->names, e);
    if (s)
        return s;
    return fr->code ? code_lookup(fr->code, e->name.id) : NULL;
}

/* ---- argument vectors ---- */

typedef struct argvec {
    d2_obj *inl[8];
    d2_obj **v;
    size_t n, cap;
} argvec;

static inline void av_init(argvec *a)
{
    a->v = a->inl;
    a->n = 0;
    a->cap = D2_COUNTOF(a->inl);
}

static inline int av_push(d2_interp *I, argvec *a, d2_obj *o) /* steals o */
{
    if (a->n == a->cap) {
        size_t cap = a->cap * 2;
        d2_obj **v =
            a->v == a->inl ? d2_malloc(cap * sizeof *v) : d2_realloc(a->v, cap * sizeof *v);
        if (!v) {
            d2_decref(o);
            d2_raise(I, "MemoryError", "out of memory");
            return -1;
        }
        if (a->v == a->inl)
            memcpy(v, a->inl, a->n * sizeof *v);
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = o;
    return 0;
}

static inline void av_free(argvec *a)
{
    for (size_t i = 0; i < a->n; i++)
        d2_decref(a->v[i]);
    if (a->v != a->inl)
        d2_free(a->v);
}

/* ---- scope.c ---- */
/* Scope analysis of a module (or any statement list) root; cached per root.
 * NULL with err (and *err_span) set on a SyntaxError. */
d2i_unit *d2i_analyze(d2_interp *I, const void *root, const d2_ast_seq *body, const d2_module *m,
                      d2_span *err_span, char *err, size_t errn);
int d2i_pm_put(ptrmap *m, const void *k, void *v);
void d2i_pm_free(ptrmap *m);

/* ---- eval_expr.c, eval_stmt.c ---- */
d2_dict *d2i_current_globals(d2_interp *I);
d2_obj *d2i_name_error(d2_interp *I, const char *name);
d2_obj *d2i_eval(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e);
d2_obj *d2i_load_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name);
/* Binds name (symbol s, or looked up by string when s is NULL) to v (borrowed). */
int d2i_store_sym(d2_interp *I, d2i_frame *fr, sym *s, const char *name, d2_obj *v);
int d2i_dict_store(d2_interp *I, d2_dict *d, const char *name, size_t n, uint64_t h, d2_obj *v);
int d2i_assign(d2_interp *I, d2i_frame *fr, const d2_ast_expr *t, d2_obj *v);
int d2i_exec_stmt(d2_interp *I, d2i_frame *fr, const d2_ast_stmt *s); /* an X_ code */
/* Runs a statement list: X_NORMAL, or the X_ code that ended it. */
static inline int d2i_exec_body(d2_interp *I, d2i_frame *fr, const d2_ast_seq *body)
{
    for (uint32_t i = 0; i < body->n; i++) {
        int x = d2i_exec_stmt(I, fr, body->items[i]);
        if (x != X_NORMAL)
            return x;
    }
    return X_NORMAL;
}

/* ---- call.c ---- */
/* Makes fr the innermost frame (and the traceback's, unless it reports into its parent's). */
void d2i_frame_push(d2_interp *I, d2i_frame *fr);
void d2i_frame_pop(d2_interp *I, d2i_frame *fr);
/* 0, or -1 with RecursionError when the C stack is nearly used up. */
static inline int d2i_stack_check(d2_interp *I)
{
    char here;
    struct d2_interp_state *st = I->st;
    if (!st->stack_base)
        return 0;
    uintptr_t p = (uintptr_t)&here, b = (uintptr_t)st->stack_base;
    size_t used = p < b ? b - p : p - b;
    if (used > st->stack_budget) {
        d2_raise(I, "RecursionError", "maximum recursion depth exceeded");
        return -1;
    }
    return 0;
}
void d2i_stack_begin(d2_interp *I, const char *base);
int d2i_tick_slow(d2_interp *I);
/* 0, or -1 with TimeoutError once the run's deadline has passed; called at
 * loop back-edges and calls, it reads the clock only every few thousand. */
static inline bool d2i_tick_due(d2_interp *I) { return __builtin_expect(--I->st->ticks <= 0, 0); }
static inline int d2i_tick(d2_interp *I) { return d2i_tick_due(I) ? d2i_tick_slow(I) : 0; }
void d2i_pool_add(d2_interp *I, d2_obj *o); /* steals o */
int d2i_eval_items(d2_interp *I, d2i_frame *fr, const d2_ast_seq *elts, argvec *a);
d2_obj *d2i_eval_call(d2_interp *I, d2i_frame *fr, const d2_ast_expr *e);
d2_obj *d2i_call_builtin(d2_interp *I, d2_builtin *b, d2_obj *self, d2_obj **args, size_t nargs,
                         d2_dict *kw);
d2_obj *d2i_call_with_self(d2_interp *I, d2_obj *fn, d2_obj *self, d2_obj **args, size_t nargs,
                           d2_dict *kw);
d2_obj *d2i_call_function(d2_interp *I, d2_function *f, d2_obj *self, d2_obj **args, size_t nargs,
                          d2_dict *kw);
int d2i_setup_cells(d2_interp *I, const d2_code *c, d2_obj **fast, d2_dict *closure,
                    d2i_frame *parent);
d2_obj *d2i_make_function(d2_interp *I, d2i_frame *fr, const void *node,
                          const d2_ast_arguments *args, const d2_ast_seq *body,
                          const d2_ast_expr *expr, const d2_ast_stmt *def);

#endif

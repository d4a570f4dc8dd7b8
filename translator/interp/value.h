/* value.h - the interpreter's objects: reference-counted Python values, classes, tensors. */
#ifndef DY2ST_VALUE_H
#define DY2ST_VALUE_H

#include "syntax/ast.h"

/* Every Python value is a d2_obj*. Objects are reference counted: a function
 * returning d2_obj* returns a NEW reference unless documented as borrowed;
 * arguments are borrowed. NULL means an exception is pending in the
 * interpreter (see interp.h). None, True, False and small ints are shared
 * objects. Reference cycles (an instance holding itself) are reclaimed when
 * the interpreter is destroyed (every object is on the interpreter's list).
 *
 * The kinds below are the object layouts. Python-visible types are class
 * objects (d2_class); builtin layouts have a builtin class each (int, list,
 * paddle.Tensor, ...), so isinstance and attribute lookup are uniform: an
 * attribute is looked up in the instance dict (instances only), then along
 * the class's MRO; functions found on a class bind to the receiver. */
#define D2_OBJ_KINDS(X)                                                                          \
    X(NONE, "NoneType")                                                                          \
    X(BOOL, "bool")                                                                              \
    X(INT, "int")                                                                                \
    X(FLOAT, "float")                                                                            \
    X(STR, "str")                                                                                \
    X(TUPLE, "tuple")                                                                            \
    X(LIST, "list")                                                                              \
    X(DICT, "dict")                                                                              \
    X(SLICE, "slice")                                                                            \
    X(RANGE, "range")                                                                            \
    X(ELLIPSIS, "ellipsis")                                                                      \
    X(FUNCTION, "function")              /* user function: code + closure + defaults */         \
    X(BUILTIN, "builtin_function_or_method")                                                     \
    X(BOUND_METHOD, "method")                                                                    \
    X(CLASS, "type")                                                                             \
    X(INSTANCE, "object")                /* instance of a user class (incl. exceptions) */      \
    X(MODULE, "module")                                                                          \
    X(CELL, "cell")                                                                              \
    X(ITERATOR, "iterator")              /* generic iterator over a builtin sequence */         \
    X(PROPERTY, "property")                                                                      \
    X(STATICMETHOD, "staticmethod")                                                              \
    X(CLASSMETHOD, "classmethod")                                                                \
    X(TENSOR, "Tensor")                  /* paddle.Tensor: concrete or symbolic */              \
    X(NDARRAY, "ndarray")                /* numpy.ndarray: always concrete */                   \
    X(DTYPE, "dtype")                    /* paddle.float32, np.float32, ... */                  \
    X(OPAQUE, "object")                  /* builtin object with a C payload and finaliser */

typedef enum {
#define X(e, n) D2_OBJ_##e,
    D2_OBJ_KINDS(X)
#undef X
        D2_OBJ_KIND_COUNT
} d2_obj_kind;

typedef struct d2_obj d2_obj;
typedef struct d2_class d2_class;
typedef struct d2_interp d2_interp;

struct d2_obj {
    long rc;
    d2_obj_kind kind;
    unsigned pool;              /* allocation size class + 1 in value.c's pools, or 0 */
    d2_class *cls;              /* the object's class (borrowed: classes live until teardown) */
    struct d2_obj *gc_prev, *gc_next; /* the interpreter's list of live objects */
};

typedef struct { d2_obj h; int64_t v; } d2_int;   /* INT and BOOL (v is 0/1) */
typedef struct { d2_obj h; double v; } d2_float;
typedef struct { d2_obj h; size_t len; uint64_t hash; char s[]; } d2_str; /* UTF-8, NUL-terminated */
typedef struct { d2_obj h; size_t n; d2_obj *items[]; } d2_tuple;
typedef struct { d2_obj h; size_t n, cap; d2_obj **items; } d2_list;

/* Insertion-ordered hash map keyed by hashable objects (str, int, float,
 * bool, None, tuple of hashables, classes/functions/instances by identity). */
typedef struct d2_dict_entry { d2_obj *key, *value; uint64_t hash; } d2_dict_entry;
typedef struct {
    d2_obj h;
    size_t n, cap;        /* entries in use (including deleted), capacity */
    size_t live;          /* live entries */
    d2_dict_entry *entries;
    int32_t *index;       /* open-addressing table of entry indices, -1 empty */
    size_t index_cap;
    bool class_dict;      /* a class's namespace: a change invalidates attribute caches */
    bool ns_dict;         /* a module's globals or the builtins: layout is kept */
    uint64_t layout;      /* ns_dict: a new value whenever a key is added or removed or the
                           * table rebuilt (an entry's index stays valid while it holds) */
} d2_dict;

typedef struct { d2_obj h; d2_obj *start, *stop, *step; } d2_slice;
typedef struct { d2_obj h; int64_t start, stop, step; } d2_range;

/* A user function: its AST, the module it was defined in (globals), the
 * closure cells it captured, and evaluated defaults. */
typedef struct {
    d2_obj h;
    const char *name, *qualname;
    const d2_ast_arguments *args;
    const d2_ast_seq *body;          /* statements; for a lambda, NULL and `expr` set */
    const d2_ast_expr *expr;
    const d2_ast_stmt *def;          /* the FunctionDef (NULL for lambdas) */
    struct d2_module *module;        /* globals; owned reference */
    d2_tuple *defaults;              /* positional defaults (owned) */
    d2_dict *kw_defaults;            /* keyword-only defaults (owned) */
    d2_dict *closure;                /* free-variable name -> CELL (owned) */
    d2_dict *attrs;                  /* function attributes (__dict__), may be NULL */
    struct d2_code *code;            /* scope analysis (locals, cells), cached */
    bool is_generator;
} d2_function;

/* Builtin function: fn(I, self, args, nargs, kwargs) with self NULL for plain
 * functions; kwargs may be NULL. Returns a new reference or NULL. */
typedef d2_obj *(*d2_builtin_fn)(d2_interp *I, d2_obj *self, d2_obj **args, size_t nargs,
                                 d2_dict *kwargs);
typedef struct {
    d2_obj h;
    const char *name;
    d2_builtin_fn fn;
    d2_obj *self;     /* bound receiver (owned) or NULL */
    const void *data; /* static data for table-driven builtins (e.g. an op binding) */
    const struct d2_def *def; /* a table row (interp.h): called through d2_def_call, fn unused */
    struct d2_class *owner;   /* a method's class (borrowed): the receiver must be an instance */
} d2_builtin;

typedef struct { d2_obj h; d2_obj *func, *self; } d2_bound_method;

struct d2_class {
    d2_obj h;
    const char *name;
    d2_tuple *bases;   /* of d2_class */
    d2_tuple *mro;     /* C3 linearisation, starting with the class itself */
    d2_dict *dict;     /* class attributes and methods */
    d2_obj_kind layout; /* the builtin layout instances use (INSTANCE for user classes) */
    struct d2_module *module; /* owned reference; NULL for the core builtin classes */
    unsigned flags;     /* interpreter's cache: which special methods the MRO defines */
};

typedef struct { d2_obj h; d2_dict *dict; } d2_instance; /* cls in h.cls */

typedef struct d2_module {
    d2_obj h;
    const char *name;
    const char *path;          /* source file, NULL for builtin modules */
    d2_dict *dict;             /* globals */
    const d2_ast_module *ast;  /* NULL for builtin modules */
} d2_module;

typedef struct { d2_obj h; d2_obj *value; } d2_cell; /* value NULL = unbound */

typedef struct { d2_obj h; d2_obj *fget, *fset; } d2_property;
typedef struct { d2_obj h; d2_obj *func; } d2_wrapper; /* STATICMETHOD, CLASSMETHOD */

/* Iterator over a builtin: next(I, it) returns a new reference, or NULL with
 * *done set at the end (no exception), or NULL with an exception. */
typedef struct d2_iter {
    d2_obj h;
    d2_obj *(*next)(d2_interp *I, struct d2_iter *it, bool *done);
    d2_obj *src;        /* owned */
    int64_t pos, end, step;
    d2_obj *extra;      /* owned (zip's tuple of iterators, enumerate's counter...) */
} d2_iter;

/* The layouts TENSOR, NDARRAY and DTYPE belong to library modules
 * (lib/paddle, lib/numpy): their structs live there, and the module that
 * owns a layout registers how to free its payload (d2_layout_set_free). The
 * core only allocates such objects (d2_obj_alloc) and links them into the
 * live list. */
typedef void (*d2_layout_free_fn)(d2_obj *o);
/* Sets the function that releases what an object of layout kind owns,
 * called before the object's memory goes. Process-wide; the same function
 * may be set again by every interpreter. */
void d2_layout_set_free(d2_obj_kind kind, d2_layout_free_fn fn);

/* Builtin object with a C payload (e.g. paddle.static.InputSpec internals,
 * removable hook handles); fin frees payload. */
typedef struct { d2_obj h; void *payload; void (*fin)(void *payload); } d2_opaque;

/* ---- reference counting ---- */
static inline d2_obj *d2_incref(d2_obj *o)
{
    if (o)
        o->rc++;
    return o;
}
void d2_obj_dealloc(d2_obj *o);
static inline void d2_decref(d2_obj *o)
{
    if (o && --o->rc == 0)
        d2_obj_dealloc(o);
}
/* Replaces *slot with v (a new reference), releasing the old value. */
static inline void d2_setref(d2_obj **slot, d2_obj *v)
{
    d2_obj *old = *slot;
    *slot = v;
    d2_decref(old);
}

#define D2_AS(type, o) ((type *)(o))
#define D2_IS(o, K) ((o)->kind == D2_OBJ_##K)

#endif

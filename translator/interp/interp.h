/* interp.h - the Python-subset interpreter: object protocol, exceptions, modules, builtin rows. */
#ifndef DY2ST_INTERP_H
#define DY2ST_INTERP_H

#include <stdio.h>

#include "syntax/diag.h"
#include "interp/value.h"

/* ---- per-layout hooks ----
 * The library module that owns a builtin layout (lib/paddle: TENSOR and
 * DTYPE, lib/numpy: NDARRAY) installs a hook table for it at init:
 *     I->hooks[D2_OBJ_TENSOR] = &tensor_hooks;
 * The generic protocol functions below dispatch on o->kind to these. Every
 * member may be NULL; the generic path then applies (special methods found
 * on the object's class such as __len__ or __getitem__, identity equality
 * and hashing, TypeError). Return conventions are those of the protocol
 * function of the same name. binop/compare are called when EITHER operand
 * has the layout (the left operand's hook first), so they must accept a
 * foreign value on either side; they decline with a new reference to
 * I->not_implemented, and the other operand's hook, then the builtin
 * numeric/sequence rules, then __add__/__radd__-style methods are tried. */
typedef struct d2_type_hooks {
    d2_obj *(*binop)(d2_interp *I, int op, d2_obj *a, d2_obj *b);    /* d2_ast_operator */
    d2_obj *(*unaryop)(d2_interp *I, int op, d2_obj *a);             /* d2_ast_unaryop but Not */
    d2_obj *(*compare)(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b); /* Eq..GtE only */
    int (*truthy)(d2_interp *I, d2_obj *o);
    int64_t (*len)(d2_interp *I, d2_obj *o);
    d2_obj *(*getitem)(d2_interp *I, d2_obj *o, d2_obj *key);
    int (*setitem)(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v);
    d2_obj *(*get_iter)(d2_interp *I, d2_obj *o);
    d2_obj *(*repr)(d2_interp *I, d2_obj *o);
    d2_obj *(*str)(d2_interp *I, d2_obj *o); /* NULL: repr */
    /* Computed attributes, consulted BEFORE the class: return NULL without an
     * exception to fall through to the class (methods, properties). */
    d2_obj *(*getattr)(d2_interp *I, d2_obj *o, const char *name);
    /* 0 stored, -1 error, 1 not handled (then AttributeError: no instance dict). */
    int (*setattr)(d2_interp *I, d2_obj *o, const char *name, d2_obj *v);
    /* int(o) / float(o) / index use (range(t), list[t]): `to` is D2_OBJ_INT or
     * D2_OBJ_FLOAT; returns a new INT or FLOAT object. */
    d2_obj *(*to_number)(d2_interp *I, d2_obj *o, d2_obj_kind to);
    int (*hash)(d2_interp *I, d2_obj *o, uint64_t *h); /* NULL: by identity */
} d2_type_hooks;

typedef struct d2_interp_options {
    const char *device;      /* "cpu" (default) or "opencl[:N]" */
    bool no_fallback;        /* to_static fallback to tracing is an error */
    bool quiet_warnings;
    FILE *out;               /* where print() writes (stdout when NULL) */
    FILE *errout;            /* where warnings go (stderr when NULL) */
    double timeout_s;        /* wall-clock limit of a run (exec --timeout); 0: none */
    /* Cache parsed source files on disk (syntax/astcache.h) so that running
     * an unchanged file again skips its parse: in cache_dir, or in
     * __dy2st_cache__ beside each source when cache_dir is NULL or empty. */
    bool ast_cache;
    const char *cache_dir;   /* borrowed; must outlive the interpreter */
} d2_interp_options;

/* The absolute deadline of the run in progress (timeout_s after it started),
 * in seconds of CLOCK_MONOTONIC; 0 when there is none. Library modules bound
 * the work they start (Program runs) by it. */
double d2_interp_deadline(const d2_interp *I);

/* One frame of the Python call stack, for tracebacks and diagnostics. */
typedef struct d2_frame {
    struct d2_frame *back;
    const d2_module *module;
    const char *func_name;
    d2_span span;           /* the statement/expression being evaluated */
} d2_frame;

struct d2_interp {
    d2_interp_options opt;
    d2_arena *arena;            /* interpreter-lifetime strings, parsed files' ASTs live in their own */
    d2_diag diag;               /* warnings and the final error, rendered compiler-style */
    d2_obj *exc;                /* pending exception instance, or NULL */
    d2_frame *frame;            /* innermost frame */
    d2_frame *exc_frame;        /* frame where the pending exception was raised (valid while it runs) */
    d2_span exc_span;
    const d2_module *exc_module;
    d2_dict *modules;           /* sys.modules: name -> module */
    d2_class *types[D2_OBJ_KIND_COUNT]; /* builtin class per layout */
    d2_dict *builtins;          /* the builtins namespace */
    d2_obj *none, *true_, *false_, *ellipsis;
    d2_obj gc_head;             /* circular list of every live object (sentinel) */
    unsigned next_gen;
    int64_t depth;              /* Python call depth, bounded to catch runaway recursion */
    void *ext[8];               /* per-module extension state (paddle, numpy, jit) */
    /* called at teardown, before any object is freed, for each non-NULL ext */
    void (*ext_fini[8])(d2_interp *I, void *ext);
    const d2_type_hooks *hooks[D2_OBJ_KIND_COUNT]; /* per layout, may be NULL */
    d2_obj *not_implemented;    /* the NotImplemented singleton */
    struct d2_interp_state *st; /* private to the interpreter (translator/interp) */
};

/* ---- library modules ----
 * The core knows no library: the modules it offers besides builtins (paddle,
 * numpy, the standard-library subset) are rows of this table, defined in
 * translator/lib/modules.c, as CPython's inittab. d2_interp_new calls each
 * init in order: it registers its modules in sys.modules, its classes and its
 * layout hooks. 0, or -1 with an exception pending or with *err set (a
 * failure that is not a Python exception, e.g. no such OpenCL device). */
typedef struct d2_lib_module {
    const char *name;
    int (*init)(d2_interp *I);                  /* the usual form, or NULL */
    int (*init_err)(d2_interp *I, d2_err *err); /* one that may fail outside Python */
} d2_lib_module;
extern const d2_lib_module d2_lib_modules[];
extern const size_t d2_lib_nmodules;

/* Creates the interpreter: builtin classes, exceptions, builtins, then the
 * library modules of d2_lib_modules. NULL with *err set on failure. */
d2_interp *d2_interp_new(const d2_interp_options *opt, d2_err *err);
/* Objects currently alive (walks the live list; for tests and statistics). */
size_t d2_interp_live_objects(const d2_interp *I);
/* Frees every object (cycles included), module and arena. */
void d2_interp_free(d2_interp *I);

/* Runs a script file as module "__main__". Returns 0, or -1 with the
 * exception rendered into I->diag (file:line:col: error: ... with the source
 * line, and a traceback as notes). An uncaught SystemExit with code None or
 * 0 counts as success. After an out-of-memory failure the interpreter may
 * only be freed (its arena's out-of-memory state is sticky). Scope analysis
 * is cached by AST address: ASTs run by the interpreter must outlive it. */
int d2_interp_run_file(d2_interp *I, const char *path);
int d2_interp_run_source(d2_interp *I, const char *filename, const char *src, size_t len);
/* After a run that returned -1 because of an uncaught sys.exit(n) with a
 * nonzero int n: n & 0xff, the status the process should exit with (nothing
 * is rendered then, as CPython prints nothing). 0 otherwise. */
int d2_interp_exit_status(const d2_interp *I);
/* Runs the statements of ast in module m's globals, as an import does: 0, or
 * -1 with the exception left pending (not rendered). Positions are reported
 * against m->ast's source, so a transformed tree that keeps the user's spans
 * gets diagnostics in the user's file. ast must outlive the interpreter. */
int d2_interp_exec_ast(d2_interp *I, const d2_ast_module *ast, d2_module *m);
/* Imports a module by dotted name (builtin modules such as paddle, numpy,
 * paddle.nn.functional; or NAME.py beside the importing file). New ref. */
d2_obj *d2_import(d2_interp *I, const char *name, const d2_module *from);

/* ---- exceptions ----
 * d2_raise sets the pending exception (an instance of the named builtin
 * exception class: "TypeError", "ValueError", "IndexError", "KeyError",
 * "AttributeError", "NameError", "ZeroDivisionError", "RuntimeError",
 * "AssertionError", "StopIteration", "NotImplementedError", "ImportError",
 * "RecursionError", "SyntaxError", ...) at the current frame's span and
 * returns NULL, so `return d2_raise(...)` works in builtins. */
d2_obj *d2_raise(d2_interp *I, const char *exc_class, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Raises from a runtime d2_err (op failures): the message becomes a
 * ValueError/RuntimeError/MemoryError depending on err->code. */
d2_obj *d2_raise_err(d2_interp *I, const d2_err *err);
/* Raises the named builtin exception made with args (borrowed), as
 * `raise SystemExit(*args)` does; returns NULL. */
d2_obj *d2_raise_args(d2_interp *I, const char *exc_class, d2_obj **args, size_t nargs);
bool d2_exc_pending(const d2_interp *I);
/* True if the pending exception is an instance of class cls (or a subclass). */
bool d2_exc_matches(d2_interp *I, d2_class *cls);
void d2_exc_clear(d2_interp *I);
/* The builtin exception class of that name, or NULL when there is none. */
d2_class *d2_exc_class(d2_interp *I, const char *name);

/* ---- constructors (new references; NULL + MemoryError on OOM) ---- */
/* A zeroed object of `size` bytes (at least sizeof(d2_obj)) with rc 1, the
 * given layout and class, linked into the live list: how other modules make
 * TENSOR / NDARRAY / DTYPE / OPAQUE objects. d2_obj_dealloc frees it by kind
 * (unrefs a tensor's d2_tensor, calls an OPAQUE's fin). */
d2_obj *d2_obj_alloc(d2_interp *I, d2_obj_kind kind, d2_class *cls, size_t size);
/* Frees the calling thread's pools of freed objects (see value.c). */
void d2_obj_pool_trim(void);
/* A new instance (INSTANCE layout, empty dict) of cls without calling __init__. */
d2_obj *d2_instance_new(d2_interp *I, d2_class *cls);
d2_obj *d2_none(d2_interp *I);
d2_obj *d2_bool(d2_interp *I, bool v);
d2_obj *d2_int_new(d2_interp *I, int64_t v);
d2_obj *d2_float_new(d2_interp *I, double v);
d2_obj *d2_str_new(d2_interp *I, const char *s, size_t len);
d2_obj *d2_str_from(d2_interp *I, const char *s);
d2_obj *d2_str_printf(d2_interp *I, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
d2_obj *d2_tuple_new(d2_interp *I, size_t n); /* items NULL; fill them with new refs */
d2_obj *d2_tuple_pack(d2_interp *I, size_t n, ...); /* borrowed args, increfs them */
d2_obj *d2_tuple_from_array(d2_interp *I, d2_obj **items, size_t n); /* borrows items */
d2_obj *d2_list_new(d2_interp *I, size_t n); /* n NULL items to fill with new refs */
d2_obj *d2_list_from_iterable(d2_interp *I, d2_obj *iterable);
int d2_list_append(d2_interp *I, d2_obj *list, d2_obj *v); /* borrows v */
d2_obj *d2_dict_new(d2_interp *I);
/* Dict access: get returns a BORROWED reference or NULL (no exception when
 * simply absent; check d2_exc_pending for unhashable keys). */
d2_obj *d2_dict_get(d2_interp *I, d2_dict *d, d2_obj *key);
d2_obj *d2_dict_get_str(d2_interp *I, d2_dict *d, const char *key);
int d2_dict_set(d2_interp *I, d2_dict *d, d2_obj *key, d2_obj *v); /* borrows both */
int d2_dict_set_str(d2_interp *I, d2_dict *d, const char *key, d2_obj *v);
/* d2_dict_set with the key's hash known (another dict entry's): no __hash__ call. */
int d2_dict_set_h(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h, d2_obj *v);
int d2_dict_del(d2_interp *I, d2_dict *d, d2_obj *key); /* KeyError when absent */
/* Adds src's items to d, as dict.update(src): a dict, an object with keys(),
 * or an iterable of pairs. 0, or -1 with an exception. */
int d2_dict_merge(d2_interp *I, d2_dict *d, d2_obj *src);
/* A method object: func bound to self (both borrowed). */
d2_obj *d2_bound_method_new(d2_interp *I, d2_obj *func, d2_obj *self);
d2_obj *d2_builtin_new(d2_interp *I, const char *name, d2_builtin_fn fn, d2_obj *self,
                       const void *data);
/* A builtin class with the given layout and base (NULL = object); methods
 * are added with d2_class_add_method. Lives until interpreter teardown. The
 * first class made for a layout becomes I->types[layout]. name is copied.
 * User classes may subclass builtin classes of INSTANCE layout. */
d2_class *d2_class_new_builtin(d2_interp *I, const char *name, d2_class *base,
                               d2_obj_kind layout, d2_module *module);
/* Adds a method: fn receives the receiver as self. A method named "__new__"
 * receives the class as self and makes the instance when the class is
 * called (then __init__ runs if the result is an instance of the class);
 * without one, calling a class of INSTANCE layout makes a d2_instance. */
int d2_class_add_method(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn fn);
/* Adds a property whose getter/setter are builtins called with self and no
 * argument / one argument (set may be NULL: read-only). */
int d2_class_add_property(d2_interp *I, d2_class *cls, const char *name, d2_builtin_fn get,
                          d2_builtin_fn set);
/* A builtin module registered in sys.modules under its dotted name (a new
 * reference like every constructor here; sys.modules holds another). "a.b"
 * also becomes attribute b of module "a" when that is registered already. */
d2_module *d2_module_new_builtin(d2_interp *I, const char *name);
int d2_module_add_fn(d2_interp *I, d2_module *m, const char *name, d2_builtin_fn fn,
                     const void *data);
/* A module written in Python: the first `import name` runs src (name and src
 * are static text) as the module, unless a name.py beside the importing file
 * comes first. 0, or -1 with an exception. */
int d2_module_add_source(d2_interp *I, const char *name, const char *src);
/* A module dy2st refuses: `import name` raises "ImportError: dy2st does not
 * provide name: reason" at the import (reason is static text), unless a
 * name.py beside the importing file comes first. 0, or -1 with an exception. */
int d2_module_add_absent(d2_interp *I, const char *name, const char *reason);
/* The i-th module registered by d2_module_add_source/_absent (in order of
 * registration), with its source in *src (NULL for an absent one); NULL
 * past the last. For tools/freeze. */
const char *d2_module_source_at(d2_interp *I, size_t i, const char **src);

/* The library's modules written in Python, parsed at build time by
 * tools/freeze into the parsed-module cache's format (syntax/astcache.h)
 * and linked into dy2st (the C API runs no Python) as the generated tools/frozen.c,
 * so that importing one decodes its tree instead of parsing its source.
 * Weak: a program linked without frozen.c parses every module, as before. */
typedef struct d2_frozen_module {
    const char *name;          /* as registered by d2_module_add_source */
    const unsigned char *data; /* the cache file's bytes for that source */
    size_t len;
} d2_frozen_module;
extern const d2_frozen_module d2_frozen_modules[] __attribute__((weak));
extern const size_t d2_frozen_nmodules __attribute__((weak));
/* How many imports so far used a frozen tree instead of parsing. */
size_t d2_interp_thawed(const d2_interp *I);

/* ---- object protocol (new references / -1 on error) ----
 * Besides the hooks, special methods defined on an object's class (by a
 * class statement or d2_class_add_method) are honoured for every layout:
 * __add__/__radd__/__iadd__..., __eq__/__lt__..., __len__, __getitem__,
 * __setitem__, __delitem__, __contains__, __iter__/__next__, __bool__,
 * __call__, __repr__/__str__, __format__, __hash__, __index__/__int__/
 * __float__, __getattr__/__setattr__, __enter__/__exit__, __get__/__set__
 * (descriptors on INSTANCE, TENSOR..OPAQUE layouts). */
d2_obj *d2_getattr(d2_interp *I, d2_obj *o, const char *name);
/* Like d2_getattr but returns NULL without an exception when absent. */
d2_obj *d2_getattr_opt(d2_interp *I, d2_obj *o, const char *name);
int d2_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v);
d2_obj *d2_call(d2_interp *I, d2_obj *callable, d2_obj **args, size_t nargs, d2_dict *kwargs);
d2_obj *d2_call_method(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                       d2_dict *kwargs);
/* Binary operator by AST operator (d2_ast_operator); dispatches to tensors,
 * ndarrays, numbers, sequences, and user classes' __add__/__radd__... */
d2_obj *d2_binop(d2_interp *I, int op, d2_obj *a, d2_obj *b);
d2_obj *d2_unaryop(d2_interp *I, int op, d2_obj *a);
d2_obj *d2_compare(d2_interp *I, int cmpop, d2_obj *a, d2_obj *b);
/* Python truth value: 1, 0, or -1 with an exception. For a symbolic tensor
 * this raises (the transforms route tensor predicates to cond/while_loop);
 * for a concrete tensor under the tracer it records a frozen-branch warning. */
int d2_truthy(d2_interp *I, d2_obj *o);
d2_obj *d2_getitem(d2_interp *I, d2_obj *o, d2_obj *key);
int d2_setitem(d2_interp *I, d2_obj *o, d2_obj *key, d2_obj *v);
int d2_delitem(d2_interp *I, d2_obj *o, d2_obj *key);
d2_obj *d2_get_iter(d2_interp *I, d2_obj *o);
/* Next item (new ref); NULL with *done at the end; NULL with an exception on error. */
d2_obj *d2_iter_next(d2_interp *I, d2_obj *it, bool *done);
int64_t d2_len(d2_interp *I, d2_obj *o); /* -1 with an exception */
d2_obj *d2_repr(d2_interp *I, d2_obj *o);
d2_obj *d2_str_of(d2_interp *I, d2_obj *o);
/* Guards a container's repr against containing itself: 1 when o is being
 * printed already (print "..." then), 0 once entered (call d2_repr_leave
 * when done), -1 with an exception. */
int d2_repr_enter(d2_interp *I, d2_obj *o);
void d2_repr_leave(d2_interp *I);
/* Calls the special method name of o's class with o bound, as the protocol
 * functions do (the instance dict is not consulted). *found is false, and
 * NULL is returned without an exception, when the class defines none. */
d2_obj *d2_call_special(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                        bool *found);
/* The integer an index-like object stands for (int, bool, a layout's
 * to_number hook, __index__): 0, or -1 with TypeError. */
int d2_index(d2_interp *I, d2_obj *o, int64_t *v);
/* 0, or -1 with RecursionError when the C stack is nearly used up: for
 * builtins that recurse into nested values (copy.deepcopy). */
int d2_stack_check(d2_interp *I);
/* sys.stdout (fd 1) and sys.stderr (fd 2): the stream objects print(file=)
 * takes, writing to opt.out and opt.errout. Borrowed. */
d2_obj *d2_std_stream(d2_interp *I, int fd);
bool d2_isinstance(d2_interp *I, d2_obj *o, d2_class *cls);
/* Hash for dict keys: 0 with *h set, -1 with TypeError for unhashable. */
int d2_hash(d2_interp *I, d2_obj *o, uint64_t *h);
/* Equality used by dicts, `in`, list.index: 1, 0, or -1. */
int d2_equal(d2_interp *I, d2_obj *a, d2_obj *b);
const char *d2_type_name(d2_obj *o);

/* ---- argument parsing for builtins ----
 * spec lists parameters as in Python: "x, y=None, *args, axis=-1, **kwargs".
 * out receives BORROWED references (NULL for a missing optional without a
 * default; a literal default in spec ("None", "True", "-1", "0.5", "'mean'")
 * is materialised as a new object owned by the interpreter cache; a
 * parameter written "[name]" is optional without a default: NULL when not
 * given). Raises TypeError naming fname for missing/unexpected/duplicate
 * arguments. */
int d2_parse_args(d2_interp *I, const char *fname, const char *spec, d2_obj **args, size_t nargs,
                  d2_dict *kwargs, d2_obj **out);
/* (out needs one slot per parameter named in spec, star parameters
 * included; "/" marks the preceding parameters positional-only, "*" the following
 * keyword-only; the tuple and dict made for star parameters are borrowed too,
 * kept alive until the builtin called through d2_call returns.) */
/* ---- builtins defined by table rows ----
 * Every builtin function and method of a library module is one row: the
 * Python signature as Paddle (or Python) documents it, in the spec language
 * of d2_parse_args, parsed once and cached, and a C body that receives the
 * arguments already bound to the parameters:
 *
 *     D2_FN(f_split)   // a[0] x, a[1] num_or_sections, a[2] axis, a[3] name
 *     {
 *         return do_split(I, a[0], a[1], a[2]);
 *     }
 *     static const d2_def SPLIT_DEFS[] = {
 *         D2_DEF("split", "x, num_or_sections, axis=0, name=None", f_split, "paddle.split"),
 *     };
 *     d2_module_add_defs(I, paddle, SPLIT_DEFS, D2_COUNTOF(SPLIT_DEFS));
 *     d2_class_add_defs(I, tensor_cls, SPLIT_DEFS, 1, D2_DEF_SELF);
 *
 * a[] holds one BORROWED reference per parameter (NULL for an absent
 * optional parameter without a default, written "[name]"; *args a tuple,
 * **kwargs a dict, as d2_parse_args makes them). A wrong call raises the same
 * TypeError for every builtin, naming def->qualname. self is the receiver of
 * a method; with D2_DEF_SELF (a Tensor method that is also a paddle function)
 * the receiver is bound to the first parameter instead and is also in a[0].
 * With D2_DEF_ARGC the call is checked as CPython checks its C builtins
 * before binding: any keyword raises "f() takes no keyword arguments", a
 * count outside [parameters without a default, positional parameters] "f()
 * takes exactly 1 argument (2 given)" (at least / at most). */
typedef struct d2_def d2_def;
typedef d2_obj *(*d2_def_fn)(d2_interp *I, d2_obj *self, d2_obj **a, const d2_def *def);
struct d2_def {
    const char *name;     /* the attribute name */
    const char *sig;      /* the Python signature; NULL or "" takes no argument */
    d2_def_fn fn;
    const char *qualname; /* the name in error messages ("paddle.split"); NULL: name */
    const void *data;     /* static data the body reads as def->data */
    unsigned flags;       /* D2_DEF_SELF, D2_DEF_ARGC */
};
#define D2_DEF_SELF 1u
#define D2_DEF_ARGC 2u
/* A row: attribute name, signature, body, name in messages (NULL: name). */
#define D2_DEF(name, sig, fn, qualname) {(name), (sig), (fn), (qualname), NULL, 0u}
/* A row whose body reads static data through def->data. */
#define D2_DEF_DATA(name, sig, fn, qualname, data) {(name), (sig), (fn), (qualname), (data), 0u}
/* A row taking positional arguments only, counted C-style (D2_DEF_ARGC). */
#define D2_DEF_POS(name, sig, fn, qualname) {(name), (sig), (fn), (qualname), NULL, D2_DEF_ARGC}
/* The definition of a row's body (parameters unused by the body are fine). */
#define D2_FN(cname)                                                                               \
    static d2_obj *cname(d2_interp *I __attribute__((unused)),                                     \
                         d2_obj *self __attribute__((unused)), d2_obj **a __attribute__((unused)), \
                         const d2_def *def __attribute__((unused)))
/* A builtin object for one row, bound to self (borrowed, may be NULL); rows
 * must outlive the interpreter (static tables). New reference. */
d2_obj *d2_def_new(d2_interp *I, const d2_def *def, d2_obj *self);
/* Adds each row as an attribute of module m / a method of cls. extra_flags
 * are or-ed into each row's flags (D2_DEF_SELF: the same rows serve as
 * paddle.X(x, ...) and x.X(...)); a row whose flags differ is copied once
 * into interpreter-owned memory. 0, or -1 with an exception. */
int d2_module_add_defs(d2_interp *I, d2_module *m, const d2_def *defs, size_t n);
int d2_class_add_defs(d2_interp *I, d2_class *cls, const d2_def *defs, size_t n,
                      unsigned extra_flags);
/* Calls the body of row def as a call with these arguments would. */
d2_obj *d2_def_call(d2_interp *I, const d2_def *def, d2_obj *self, d2_obj **args, size_t nargs,
                    d2_dict *kwargs);

/* Conversions raising TypeError with the parameter name. */
int d2_to_int64(d2_interp *I, d2_obj *o, const char *what, int64_t *v);
int d2_to_double(d2_interp *I, d2_obj *o, const char *what, double *v);
int d2_to_bool(d2_interp *I, d2_obj *o, const char *what, bool *v);
const char *d2_to_cstr(d2_interp *I, d2_obj *o, const char *what); /* borrowed */

/* ---- warnings (compiler style, once per source position) ---- */
void d2_warn(d2_interp *I, d2_span span, const d2_module *m, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif

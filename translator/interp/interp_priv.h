/* interp_priv.h - interpreter internals shared by value.c, interp.c and builtins.c only. */
#ifndef DY2ST_INTERP_PRIV_H
#define DY2ST_INTERP_PRIV_H

#include "interp/interp.h"

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

struct d2_interp_state {
    d2_obj *small_ints[D2I_SMALL_MAX - D2I_SMALL_MIN + 1];
    d2_obj *empty_tuple, *empty_str;
    d2_obj *memory_error;        /* raised without allocating when memory runs out */
    d2_obj *chars[128];          /* one-character ASCII strings, made on demand */
    d2_class *object, *type, *set, *method_descr, *super, *base_exc, *notimpl_type, *tb_type;
    d2_class *views[3];          /* dict_keys, dict_values, dict_items */
    d2_class *file_type;         /* objects made by open() */
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
    size_t stack_budget;
};

/* ---- value.c ---- */
int d2i_init_methods(d2_interp *I);
void d2i_free_all(d2_interp *I); /* teardown: frees every live object, cycles included */
uint64_t d2i_hash_bytes(const char *s, size_t n);
/* Borrowed value for a C-string key with its precomputed d2i_hash_bytes hash. */
d2_obj *d2i_dict_get_cstr(d2_dict *d, const char *s, size_t n, uint64_t h);
/* The value slot of a str key given as C string, or NULL when absent. */
d2_obj **d2i_dict_slot_cstr(d2_dict *d, const char *s, size_t n, uint64_t h);
/* Index of a key's entry or -1 (-2 with an exception). */
int64_t d2i_dict_find(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h);
int d2i_dict_set_h(d2_interp *I, d2_dict *d, d2_obj *key, uint64_t h, d2_obj *v);
d2_obj *d2i_dict_pop(d2_interp *I, d2_dict *d, d2_obj *key); /* new ref or NULL (absent, no exc) */
void d2i_dict_clear(d2_dict *d);
bool d2i_is_set(d2_interp *I, d2_obj *o);
d2_obj *d2i_set_new(d2_interp *I);
d2_obj *d2i_char(d2_interp *I, uint32_t cp); /* one-character string */
/* Code points of a UTF-8 string; byte offset of code point i. */
size_t d2i_str_chars(const d2_str *s);
size_t d2i_str_offset(const d2_str *s, size_t i);
void d2i_float_repr(double v, char *buf, size_t n);
d2_obj *d2i_format(d2_interp *I, d2_obj *v, const char *spec);
d2_obj *d2i_str_mod(d2_interp *I, d2_obj *fmt, d2_obj *args);
d2_obj *d2i_str_format(d2_interp *I, const char *fmt, size_t len, d2_obj **args, size_t nargs,
                       d2_dict *kwargs);
d2_obj *d2i_str_concat(d2_interp *I, d2_obj *a, d2_obj *b);
d2_obj *d2i_seq_repeat(d2_interp *I, d2_obj *seq, int64_t n);
d2_obj *d2i_seq_concat(d2_interp *I, d2_obj *a, d2_obj *b);
int d2i_list_extend(d2_interp *I, d2_obj *list, d2_obj *iterable);
d2_obj *d2i_tuple_from_array(d2_interp *I, d2_obj **items, size_t n); /* borrows items */
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
d2_obj *d2i_iter_new(d2_interp *I, d2_obj *(*next)(d2_interp *, d2_iter *, bool *), d2_obj *src);
d2_obj *d2i_builtin_repr(d2_interp *I, d2_obj *o); /* repr of builtin layouts */
int d2i_repr_enter(d2_interp *I, d2_obj *o);       /* 1 = already being printed */
void d2i_repr_leave(d2_interp *I);
int d2i_compare_values(d2_interp *I, int op, d2_obj *a, d2_obj *b); /* 1/0/-1, -2 unsupported */
int d2i_contains(d2_interp *I, d2_obj *container, d2_obj *item);
bool d2i_is_number(d2_obj *o);

/* ---- interp.c ---- */
d2_class *d2i_class_new(d2_interp *I, const char *name, d2_class *base, d2_obj_kind layout,
                        d2_module *module, bool set_type);
d2_obj *d2i_mro_lookup(d2_interp *I, d2_class *cls, const char *name);
d2_obj *d2i_call_special(d2_interp *I, d2_obj *o, const char *name, d2_obj **args, size_t nargs,
                         bool *found);
void d2i_class_update_flags(d2_interp *I, d2_class *cls);
d2_dict *d2i_current_globals(d2_interp *I);
int d2i_stack_check(d2_interp *I);
void d2i_pool_add(d2_interp *I, d2_obj *o); /* steals o */
d2_obj *d2i_exc_new(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs);
void d2i_set_nomem(d2_interp *I); /* raises the preallocated MemoryError */
void d2i_set_exc(d2_interp *I, d2_obj *exc);
int d2i_issubclass(d2_class *a, d2_class *b);
d2_obj *d2i_type_call(d2_interp *I, d2_class *cls, d2_obj **args, size_t nargs, d2_dict *kw);
int d2i_object_setattr(d2_interp *I, d2_obj *o, const char *name, d2_obj *v);
d2_obj *d2i_super_new(d2_interp *I, d2_class *cls, d2_obj *self);
/* Checks a function call's argument count etc. for builtins taking no kwargs. */
int d2i_no_kwargs(d2_interp *I, const char *fname, d2_dict *kw);
int d2i_nargs(d2_interp *I, const char *fname, size_t nargs, size_t lo, size_t hi);
int d2i_index(d2_interp *I, d2_obj *o, int64_t *v); /* __index__: ints, bools, hooks */

/* ---- builtins.c ---- */
int d2i_init_builtins(d2_interp *I);
void d2i_spec_cache_free(d2_interp *I);
const char *d2i_embedded_source(const char *name); /* modules written in Python */
d2_obj *d2i_to_int_obj(d2_interp *I, d2_obj *o, int base);
d2_obj *d2i_to_float_obj(d2_interp *I, d2_obj *o);

#endif

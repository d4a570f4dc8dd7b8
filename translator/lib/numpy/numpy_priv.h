/* numpy_priv.h - declarations shared by the files of the NumPy subset (internal to lib/numpy). */
#ifndef DY2ST_NUMPY_PRIV_H
#define DY2ST_NUMPY_PRIV_H

#include "lib/paddle/tensor_api.h"

/* The one-line helpers every file uses are static inline here; functions
 * one file defines for the others are named d2np_*. */

/* ======================================================================
 * State and helpers
 * ====================================================================== */

typedef struct np_state {
    d2_module *np, *random, *testing;
    d2_class *rs_cls;  /* numpy.random.RandomState */
    d2_obj *global_rs; /* the module-level RandomState (borrowed: lives in numpy.random) */
} np_state;

static inline np_state *NS(d2_interp *I) { return I->ext[D2_EXT_NUMPY]; }

#define NDA(o) D2_AS(d2_ndarray, o)

static inline bool is_nd(const d2_obj *o) { return o && o->kind == D2_OBJ_NDARRAY; }
static inline bool is_none(d2_interp *I, const d2_obj *o)
{
    return !o || o == I->none || o->kind == D2_OBJ_NONE;
}
static inline bool is_pynum(const d2_obj *o)
{
    return o->kind == D2_OBJ_INT || o->kind == D2_OBJ_BOOL || o->kind == D2_OBJ_FLOAT;
}

static inline d2_obj *nomem(d2_interp *I) { return d2_raise(I, "MemoryError", "out of memory"); }

static inline d2_obj *wrap(d2_interp *I, d2_tensor *t)
{
    if (!t)
        return NULL;
    d2_obj *o = d2_ndarray_wrap(I, t);
    d2_tensor_unref(t);
    return o;
}

static inline const char *dtn(int dt) { return d2_dtype_name((d2_dtype)dt); }

/* A CPU tensor for an array-like argument (new ref). Python floats give
 * float64 (NumPy's default). */
static inline d2_tensor *arr(d2_interp *I, d2_obj *o, int dt, const char *fname)
{
    return d2_pd_from_py(I, o, dt, D2_F64, fname);
}

static inline int dt_arg(d2_interp *I, d2_obj *o, const char *fname, int *dt)
{
    return d2_pd_parse_dtype(I, o, fname, true, dt);
}

/* ---- ndarray.c: ops on CPU tensors, dtype rules, the ndarray class ---- */

/* Runs op on CPU tensors with attributes in text form ("axis = [0], keepdim = true"). */
d2_tensor *d2np_run(d2_interp *I, const char *fname, d2_op_id op, d2_tensor **in, int n_in,
                    const char *attrs);
d2_tensor *d2np_cast(d2_interp *I, const char *fname, d2_tensor *t, int dt);
/* np.result_type of two array dtypes. */
d2_dtype d2np_promote(d2_dtype a, d2_dtype b);
/* Result dtype of a binary op between two operands, NumPy 1.x rules: a
 * Python scalar or 0-d array only matters by its kind against an n-d array. */
d2_dtype d2np_result_dt(d2_tensor *x, bool xs, d2_tensor *y, bool ys);
/* a <op> b for an operator of syntax/ast.h (D2_OP_ADD ...): a new tensor. */
d2_tensor *d2np_binary_t(d2_interp *I, const char *fname, int op, d2_obj *a, d2_obj *b);
/* op(a, b) after promoting both to their result dtype: a new ndarray. */
d2_obj *d2np_promoted_op(d2_interp *I, const char *fname, d2_op_id op, d2_obj *a, d2_obj *b);
/* Broadcasts x and y to a common shape: 0 with new *bx and *by, or -1 with
 * an exception (*bx and *by NULL). */
int d2np_broadcast(d2_interp *I, const char *fname, d2_tensor *x, d2_tensor *y, d2_tensor **bx,
                   d2_tensor **by);
bool d2np_same_shape(const d2_tensor *a, const d2_tensor *b);
/* t transposed by perm (n == 0: all axes reversed): a new ndarray. */
d2_obj *d2np_transpose_t(d2_interp *I, d2_tensor *t, const int64_t *perm, int n);
/* A contiguous copy of t reshaped to dims (one may be -1). */
d2_tensor *d2np_reshape_t(d2_interp *I, const char *fname, d2_tensor *t, const int64_t *dims,
                          int n);
/* numpy.ndarray: the class with its hooks and the methods of its own. */
d2_class *d2np_ndarray_init(d2_interp *I, d2_module *np);

/* ---- functions.c: the module-level functions ---- */

/* A new tensor of shape dims filled with v. */
d2_tensor *d2np_filled(d2_interp *I, const char *fname, const int64_t *dims, int n, int dt,
                       double v);
/* Broadcasts x and y to a common shape as contiguous float64 tensors. */
int d2np_bcast_f64(d2_interp *I, const char *fname, d2_tensor *x, d2_tensor *y, d2_tensor **bx,
                   d2_tensor **by);
bool d2np_close_enough(double x, double y, double rtol, double atol, bool equal_nan);
/* The functions of numpy; those that are also ndarray methods go to nc too. */
int d2np_functions_init(d2_interp *I, d2_module *np, d2_class *nc);

/* ---- arrayprint.c ---- */

/* array2string of one value (a 0-d array) into b. */
void d2np_format_value(d2_buf *b, double v, d2_dtype dt);

/* ---- testing.c, io.c, random.c ---- */

int d2np_testing_init(d2_interp *I, d2_module *tst);
int d2np_io_init(d2_interp *I, d2_module *np);
int d2np_random_init(d2_interp *I, d2_module *rnd);

#endif

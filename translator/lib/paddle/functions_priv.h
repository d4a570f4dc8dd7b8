/* functions_priv.h - what the paddle functions and the Tensor class share (the functions floor). */
#ifndef DY2ST_FUNCTIONS_PRIV_H
#define DY2ST_FUNCTIONS_PRIV_H

#include "lib/paddle/paddle_priv.h"

/* Each file's add function puts its rows and classes into the modules of
 * pd_state (paddle_module.c calls them in order); 0, or -1 with an exception. */

/* ---- bindings.c ---- */
/* In static mode, gives the result's open dims the known positive ints of a
 * shape list that mixed ints and tensors (n < 0: nothing to do). */
void d2_pd_refine_dims(d2_interp *I, d2_obj *out, const int64_t *dims, int n);
/* The shape argument of reshape/expand/full: ints into b's "shape", or (with
 * tensors in it) an int64 shape input in *shape_in (new reference). */
int d2_pd_shape_arg(d2_interp *I, d2_obj *o, const char *fname, d2_ab *b, d2_obj **shape_in,
                    int64_t *partial, int *n_partial);
int d2_pd_bindings_add(d2_interp *I, pd_state *s);

/* ---- creation.c ---- */
/* A dtype argument, def when None. */
int d2_pd_dtype_arg(d2_interp *I, d2_obj *o, const char *fname, int def, int *dt);
/* A static, non-negative shape argument. */
int d2_pd_shape_list(d2_interp *I, d2_obj *o, const char *fname, int64_t *shape, int *n);
int d2_pd_creation_add(d2_interp *I, pd_state *s);

/* ---- search.c: scans, sorting, top-k, triangles, rolls, along-axis ---- */
int d2_pd_search_add(d2_interp *I, pd_state *s);

/* ---- composite.c: functions composed of registry ops, and in-place variants ---- */
int d2_pd_composite_add(d2_interp *I, pd_state *s);

/* ---- activation.c: activation functions beyond the one-op rows ---- */
int d2_pd_activation_add(d2_interp *I, pd_state *s);

/* ---- manipulation.c ---- */
int d2_pd_manipulation_add(d2_interp *I, pd_state *s);

/* ---- tensor_math.c ---- */
/* x * sc + bias, and x clipped to [lo, hi]. */
d2_obj *d2_pd_scale_by(d2_interp *I, const char *fname, d2_obj *x, double sc, double bias);
d2_obj *d2_pd_clip_to(d2_interp *I, const char *fname, d2_obj *x, double lo, double hi);
/* The p-norm of x over axes (na 0: all). */
d2_obj *d2_pd_pnorm(d2_interp *I, const char *fname, d2_obj *x, double p, const int64_t *axes,
                    int na, bool keep);
int d2_pd_math_add(d2_interp *I, pd_state *s);
/* ---- linalg_api.c: paddle.linalg on the ops of ops_linalg.c ---- */
int d2_pd_linalg_add(d2_interp *I, pd_state *s);

/* ---- nn_functional.c: the building blocks of the layers ---- */
/* An int or a pair [a, b] into two values. */
int d2_pd_pair_arg(d2_interp *I, d2_obj *o, const char *fname, const char *what, int64_t v[2]);
/* data_format must be None or 'NCHW'. */
int d2_pd_check_nchw(d2_interp *I, d2_obj *df, const char *fname);
d2_obj *d2_pd_conv2d(d2_interp *I, const char *fname, d2_obj *x, d2_obj *w, d2_obj *bias,
                     d2_obj *stride, d2_obj *padding, d2_obj *dilation, d2_obj *groups);
/* Adaptive max pooling of an NCHW x with the indices of the maxima: (out, mask). */
d2_obj *d2_pd_adaptive_max_mask(d2_interp *I, const char *fname, d2_obj *x, d2_obj *output_size);
/* Pooling of type "max" or "avg"; adaptive: ksize is the output size. */
d2_obj *d2_pd_pool2d(d2_interp *I, const char *fname, d2_obj *x, const char *type, d2_obj *ksize,
                     d2_obj *stride, d2_obj *padding, bool ceil_mode, bool exclusive,
                     bool adaptive);
/* Max pooling; with want_mask the tuple (out, mask). */
d2_obj *d2_pd_max_pool2d(d2_interp *I, const char *fname, d2_obj *x, d2_obj *ksize, d2_obj *stride,
                         d2_obj *padding, bool ceil_mode, bool want_mask);
d2_obj *d2_pd_batch_norm(d2_interp *I, const char *fname, d2_obj *x, d2_obj *rm, d2_obj *rv,
                         d2_obj *w, d2_obj *bias, bool training, double momentum, double eps,
                         bool use_global);
d2_obj *d2_pd_layer_norm(d2_interp *I, const char *fname, d2_obj *x, d2_obj *nshape, d2_obj *w,
                         d2_obj *bias, double eps);
d2_obj *d2_pd_embedding(d2_interp *I, const char *fname, d2_obj *ids, d2_obj *w,
                        d2_obj *padding_idx);
/* Dropout with Paddle's axis argument (None: elementwise). */
d2_obj *d2_pd_dropout(d2_interp *I, const char *fname, d2_obj *x, double p, bool training,
                      const char *mode, d2_obj *axis);
int d2_pd_functional_add(d2_interp *I, pd_state *s);

/* ---- framework.c ---- */
int d2_pd_framework_add(d2_interp *I, pd_state *s);

/* ---- autograd.c ---- */
/* Tensor.grad: the accumulated gradient or None. New reference. */
d2_obj *d2_pd_tensor_grad(d2_interp *I, d2_obj *o);
/* Tensor.grad = v: v's value (a Tensor of the same shape) becomes the
 * gradient. 0 or -1. */
int d2_pd_set_tensor_grad(d2_interp *I, d2_obj *o, d2_obj *v);
/* Tensor.clear_grad: zeros in place (set_to_zero) or no gradient. 0 or -1. */
int d2_pd_clear_grad(d2_interp *I, d2_obj *o, bool set_to_zero);
int d2_pd_autograd_add(d2_interp *I, pd_state *s);

/* ---- tensor_methods.c ---- */
/* x with all its dims reversed (Tensor.T). */
d2_obj *d2_pd_transpose_all(d2_interp *I, d2_obj *x);
/* paddle.Tensor; first of the functions floor (the others add methods to it). */
int d2_pd_tensor_class_init(d2_interp *I, pd_state *s);

#endif

/* layers_priv.h - what nn.Layer, initializers and the builtin layers share (the layers floor). */
#ifndef DY2ST_LAYERS_PRIV_H
#define DY2ST_LAYERS_PRIV_H

#include "lib/paddle/functions_priv.h"

/* ---- layer.c ---- */
bool d2_pd_is_layer(d2_interp *I, d2_obj *o);
/* One of a layer's dicts (_parameters, _sub_layers, _buffers, ...); NULL
 * before Layer.__init__. */
d2_dict *d2_pd_layer_dict(d2_interp *I, d2_obj *self, const char *which);
/* Paddle's unique_name.generate(key): "key_N" (interpreter-owned). */
const char *d2_pd_unique_name(d2_interp *I, const char *key);
/* Layer.__setattr__: parameters, sublayers and tensors into their dicts. */
int d2_pd_layer_setattr(d2_interp *I, d2_obj *self, const char *name, d2_obj *v);
/* Layer.__init__ with its defaults on self. */
int d2_pd_layer_base_init(d2_interp *I, d2_obj *self);
int d2_pd_layer_add(d2_interp *I, pd_state *s);

/* ---- init.c ---- */
/* The k-th parameter name of a signature, into buf; NULL past the last. */
const char *d2_pd_param_name(const char *spec, int k, char *buf, size_t cap);
/* Creates parameter attr_name of layer self (also None, for attr False). */
int d2_pd_add_param(d2_interp *I, d2_obj *self, const char *attr_name, const int64_t *shape, int nd,
                    d2_obj *attr, bool is_bias, d2_obj *default_init);
/* A new initializer object of the given kind with up to two float arguments. */
d2_obj *d2_pd_make_init(d2_interp *I, const char *kind, const char *arg, double v, const char *arg2,
                        double v2);
int d2_pd_init_add(d2_interp *I, pd_state *s);

/* ---- layers.c ---- */
int d2_pd_layers_add(d2_interp *I, pd_state *s);
/* act_layers.c: the activation layers beyond layers.c's ACT_LAYERS */
int d2_pd_act_layers_add(d2_interp *I, pd_state *s);

/* ---- layers_py.c ---- */
/* The layers written in Python: registers their sources. */
int d2_pd_layers_py_add(d2_interp *I, pd_state *s);
/* The Python module that defines `name` of paddle.nn or paddle.nn.functional
 * (owner), loaded on first use by that module's __getattr__; NULL if none. */
const char *d2_pd_layers_py_home(d2_interp *I, d2_module *owner, const char *name);
/* layers_ext_src.c: the Python sources of paddle.nn.layer.transformer (attention, Transformer,
 * scaled_dot_product_attention, gather_tree), paddle.nn.layer.loss_ext, paddle.nn.decode,
 * paddle.vision.transforms, paddle.metric.auc, paddle._more_py (paddle's functions found by its
 * __getattr__), paddle.nn.layer.vision_ext (affine_grid, grid_sample, gumbel_softmax) and
 * paddle._tensor_more_py (Tensor methods only), paddle.nn.initializer_ext (Dirac, Bilinear,
 * Orthogonal, calculate_gain) */
extern const char d2_pd_transformer_src[];
extern const char d2_pd_loss_ext_src[];
extern const char d2_pd_decode_src[];
extern const char d2_pd_vision_transforms_src[];
extern const char d2_pd_metric_auc_src[];
extern const char d2_pd_more_src[];
extern const char d2_pd_nn_utils_src[];
extern const char d2_pd_vision_ext_src[];
extern const char d2_pd_tensor_more_src[];
extern const char d2_pd_init_ext_src[];

#endif

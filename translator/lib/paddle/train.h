/* train.h - training support: in-place optimizer updates, gradients, and the Python-written
 * modules (paddle.optimizer, paddle.optimizer.lr, paddle.regularizer, paddle.io, losses,
 * gradient clipping, paddle.metric's classes). */
#ifndef DY2ST_TRAIN_H
#define DY2ST_TRAIN_H

#include "interp/interp.h"

/* Registers the helper module paddle._optim, Tensor._set_grad_ivar, the
 * Python-written modules (run on first use) and the module __getattr__ hooks
 * that reach them from paddle, paddle.nn, paddle.nn.functional and
 * paddle.metric. 0, or -1 with an exception pending. */
int d2_train_init(d2_interp *I);

/* Sources of the Python-written modules (train_*_src.c). */
extern const char d2_train_optimizer_src[];
extern const char d2_train_lr_src[];
extern const char d2_train_regularizer_src[];
extern const char d2_train_clip_src[];
extern const char d2_train_loss_src[];
extern const char d2_train_loss_layers_src[];
extern const char d2_train_metric_src[];
extern const char d2_train_io_src[];
/* paddle.device, paddle.device.cuda, paddle.utils, paddle.utils.unique_name (device_src.c) */
extern const char d2_pd_device_src[];
extern const char d2_pd_device_cuda_src[];
extern const char d2_pd_utils_src[];
extern const char d2_pd_unique_name_src[];

/* paddle._dist and the Python-written paddle.distributed (distributed.c,
 * distributed_src.c). 0, or -1 with an exception pending. */
int d2_pd_distributed_init(d2_interp *I);
extern const char d2_distributed_src[];
extern const char d2_fleet_src[];

#endif

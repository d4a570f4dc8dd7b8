/* dnnl.h - float32 convolution through oneDNN, with primitives cached per shape. */
#ifndef DY2ST_CPU_DNNL_H
#define DY2ST_CPU_DNNL_H

#include "../tensor.h"

/* One NCHW float32 convolution: x [n, c, h, w], weight [oc, c/groups, kh, kw],
 * y [n, oc, oh, ow]; paddings top/left and bottom/right (bottom/right are what
 * makes oh and ow come out, possibly negative), dilations as in Paddle (1 =
 * none). sum: add what y holds on entry (a residual, NCHW) to the convolution
 * (a oneDNN sum post-op); relu: then apply max(0, .) to the result. nhwc: x, y and the
 * residual are NHWC instead ([n, h, w, c]), the layout oneDNN's convolutions run in, so
 * that no reorder runs; such a convolution always goes to oneDNN where it can run it. */
typedef struct d2_dnnl_conv {
    int64_t n, c, h, w, oc, kh, kw, oh, ow, groups;
    int64_t sh, sw, dh, dw, pt, pl, pb, pr;
    bool bias, relu, sum, nhwc;
    /* The weights' tensor (NULL: not given). When it is constant (d2_tensor_set_const), the
     * reordered weights are kept with its storage and used without comparing the bytes. */
    const d2_tensor *wt;
} d2_dnnl_conv;

/* When the oneDNN path is taken: D2_DNNL_AUTO picks per shape (small
 * convolutions stay on im2col + GEMM), ALWAYS takes it for every shape it
 * supports, NEVER turns it off. The default is AUTO, or DY2ST_DNNL
 * (auto, always/1, never/0) when set in the environment at first use. */
typedef enum { D2_DNNL_AUTO = 0, D2_DNNL_ALWAYS, D2_DNNL_NEVER } d2_dnnl_mode;
void d2_dnnl_set_mode(d2_dnnl_mode m);
d2_dnnl_mode d2_dnnl_get_mode(void);

/* Whether the library was built with oneDNN. */
bool d2_dnnl_available(void);

/* Runs the convolution through oneDNN when built with it and chosen for this
 * shape; threads as d2_gemm_threads(). Returns 0 when done, 1 when not taken
 * (the caller runs its own kernel; nothing was written), -1 with err set.
 * Safe to call from several threads at once. */
int d2_dnnl_conv2d(const d2_dnnl_conv *cv, const float *x, const float *w, const float *b,
                   float *y, d2_err *err);

/* The thread count the calling thread's last oneDNN convolution ran with (0: none yet), for
 * tests that check a run's ExecutionStrategy.num_threads. */
int d2_dnnl_last_threads(void);

/* Cached primitive sets (for tests); the cache holds at most this many. */
int d2_dnnl_cache_count(void);
#define D2_DNNL_CACHE_MAX 128

#endif

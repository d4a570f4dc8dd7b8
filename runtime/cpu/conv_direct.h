/* conv_direct.h - direct float32 convolution for layers with few input channels (NCHW). */
#ifndef DY2ST_CPU_CONV_DIRECT_H
#define DY2ST_CPU_CONV_DIRECT_H

#include "../tensor.h"

/* One NCHW float32 convolution with groups = 1 and width stride 1: x [n, c, h, w],
 * wt [oc, c, kh, kw], bias [oc] or NULL, res [n, oc, oh, ow] or NULL (added after the bias;
 * it may be out itself), then max(0, .) when relu; y [n, oc, oh, ow]. Paddings top/left as
 * Paddle resolves them; the bottom/right ones follow from oh and ow. */
typedef struct d2_conv_direct {
    int64_t n, c, h, w, oc, kh, kw, oh, ow;
    int64_t sh, dh, dw, pt, pl;
    const float *x, *wt, *bias, *res;
    float *y;
    bool relu;
} d2_conv_direct;

/* When the direct kernel is taken: AUTO for the shapes it was measured faster on (few input
 * channels: see conv_direct.c), ALWAYS for every shape it supports, NEVER turns it off
 * (benchmarks and tests). The default is AUTO, or DY2ST_CONV_DIRECT (auto, always/1,
 * never/0) when set in the environment at first use. */
typedef enum { D2_CONV_DIRECT_AUTO = 0, D2_CONV_DIRECT_ALWAYS, D2_CONV_DIRECT_NEVER } d2_conv_direct_mode;
void d2_conv_direct_set_mode(d2_conv_direct_mode m);

/* Whether this CPU runs the direct kernel at all (AVX-512F; elsewhere it always declines). */
bool d2_conv_direct_available(void);

/* How many convolutions the direct kernel has run in this process (for tests). */
long d2_conv_direct_runs(void);

/* Runs the convolution on nt threads when the mode and the shape choose the direct kernel.
 * Returns 0 when done, 1 when declined (nothing was written), -1 with err set (out of
 * memory). */
int d2_conv_direct_f32(const d2_conv_direct *p, int nt, d2_err *err);

#endif

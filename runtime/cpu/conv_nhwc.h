/* conv_nhwc.h - direct float32 convolution in NHWC (activations) with fused epilogue. */
#ifndef DY2ST_CPU_CONV_NHWC_H
#define DY2ST_CPU_CONV_NHWC_H

#include "../tensor.h"

/* One NHWC float32 convolution with groups = 1: x [n, h, w, c], wt [oc, c, kh, kw] (its
 * tensor in wt_tensor when there is one, for the packed copy kept with constant weights),
 * bias [oc] or NULL, res [n, oh, ow, oc] or NULL (added after the bias; it may be y itself),
 * then max(0, .) when relu; y [n, oh, ow, oc]. Paddings top/left as resolved by the caller;
 * the bottom/right ones follow from oh and ow. */
typedef struct d2_conv_nhwc {
    int64_t n, h, w, c, oc, kh, kw, oh, ow;
    int64_t sh, sw, dh, dw, pt, pl;
    const float *x, *wt, *bias, *res;
    float *y;
    bool relu;
    const d2_tensor *wt_tensor;
} d2_conv_nhwc;

/* When the kernel is taken: AUTO for the shapes it was measured faster on than oneDNN
 * (conv_nhwc.c), ALWAYS for every shape it supports, NEVER turns it off (benchmarks and
 * tests). The default is AUTO, or DY2ST_CONV_NHWC (auto, always/1, never/0) when set in the
 * environment at first use. */
typedef enum { D2_CONV_NHWC_AUTO = 0, D2_CONV_NHWC_ALWAYS, D2_CONV_NHWC_NEVER } d2_conv_nhwc_mode;
void d2_conv_nhwc_set_mode(d2_conv_nhwc_mode m);

/* Whether this CPU runs the kernel at all (AVX-512F; elsewhere it always declines). */
bool d2_conv_nhwc_available(void);

/* How many convolutions the kernel has run in this process (for tests). */
long d2_conv_nhwc_runs(void);

/* Runs the convolution on nt threads when the mode and the shape choose this kernel (output
 * channels a multiple of 16). Returns 0 when done, 1 when declined (nothing was written), -1
 * with err set (out of memory). */
int d2_conv_nhwc_f32(const d2_conv_nhwc *p, int nt, d2_err *err);

#endif

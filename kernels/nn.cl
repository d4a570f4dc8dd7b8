/* nn.cl - pool2d and its gradient, batch_norm (inference) and layer_norm kernels. */

/* pool2d_S: NCHW, one work-item per output element, as Paddle's CPU pooling:
 * windows start at o * stride - pad (top/left); max ignores padding and
 * starts from -FLT_MAX; the exclusive average divides by the in-bounds
 * window, the non-exclusive one by the window clipped to the input plus the
 * top/left padding. Adaptive windows are [floor(o H / OH), ceil((o+1) H / OH)). */
#define D2_POOL2D_KERNEL(T, S)                                                                  \
    __kernel void pool2d_##S(long total, long H, long W, long OH, long OW, long KH, long KW,    \
                             long SH, long SW, long PH, long PW, int avg, int adaptive,         \
                             int exclusive, __global const T *x, long xo, __global T *out,      \
                             long oo)                                                           \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= total)                                                                         \
            return;                                                                             \
        long ow = i % OW, t = i / OW;                                                           \
        long oh = t % OH, nc = t / OH;                                                          \
        long hs, he, ws, we, size;                                                              \
        if (adaptive) {                                                                         \
            hs = oh * H / OH;                                                                   \
            he = ((oh + 1) * H + OH - 1) / OH;                                                  \
            ws = ow * W / OW;                                                                   \
            we = ((ow + 1) * W + OW - 1) / OW;                                                  \
            size = (he - hs) * (we - ws);                                                       \
        } else {                                                                                \
            hs = oh * SH - PH;                                                                  \
            ws = ow * SW - PW;                                                                  \
            he = min(hs + KH, H + PH);                                                          \
            we = min(ws + KW, W + PW);                                                          \
            size = (he - hs) * (we - ws);                                                       \
            hs = max(hs, 0L);                                                                   \
            ws = max(ws, 0L);                                                                   \
            he = min(he, H);                                                                    \
            we = min(we, W);                                                                    \
            if (exclusive)                                                                      \
                size = (he - hs) * (we - ws);                                                   \
        }                                                                                       \
        __global const T *p = x + xo + nc * H * W;                                              \
        T acc = avg ? (T)0 : (T)(-FLT_MAX);                                                     \
        for (long h = hs; h < he; h++)                                                          \
            for (long w = ws; w < we; w++) {                                                    \
                T v = p[h * W + w];                                                             \
                acc = avg ? acc + v : (acc > v ? acc : v);                                      \
            }                                                                                   \
        out[oo + i] = avg ? acc / (T)size : acc;                                                \
    }
D2_FLOAT_TYPES(D2_POOL2D_KERNEL)

/* pool2d_grad_S: dx of pool2d_S. One work-item per (n, c) plane walks the
 * plane's windows in order and scatters into it (no two work-items write the
 * same element): max sends dout to the first element equal to the pooled
 * value, average spreads it over the window with the forward op's divisor. */
#define D2_POOL2D_GRAD_KERNEL(T, S)                                                             \
    __kernel void pool2d_grad_##S(long planes, long H, long W, long OH, long OW, long KH,       \
                                  long KW, long SH, long SW, long PH, long PW, int avg,         \
                                  int adaptive, int exclusive, __global const T *x, long xo,   \
                                  __global const T *y, long yo, __global const T *dy, long dyo, \
                                  __global T *dx, long dxo)                                     \
    {                                                                                           \
        long nc = get_global_id(0);                                                             \
        if (nc >= planes)                                                                       \
            return;                                                                             \
        __global const T *p = x + xo + nc * H * W;                                              \
        __global T *g = dx + dxo + nc * H * W;                                                  \
        for (long e = 0; e < H * W; e++)                                                        \
            g[e] = 0;                                                                           \
        for (long oh = 0; oh < OH; oh++)                                                        \
            for (long ow = 0; ow < OW; ow++) {                                                  \
                long hs, he, ws, we, size;                                                      \
                if (adaptive) {                                                                 \
                    hs = oh * H / OH;                                                           \
                    he = ((oh + 1) * H + OH - 1) / OH;                                          \
                    ws = ow * W / OW;                                                           \
                    we = ((ow + 1) * W + OW - 1) / OW;                                          \
                    size = (he - hs) * (we - ws);                                               \
                } else {                                                                        \
                    hs = oh * SH - PH;                                                          \
                    ws = ow * SW - PW;                                                          \
                    he = min(hs + KH, H + PH);                                                  \
                    we = min(ws + KW, W + PW);                                                  \
                    size = (he - hs) * (we - ws);                                               \
                    hs = max(hs, 0L);                                                           \
                    ws = max(ws, 0L);                                                           \
                    he = min(he, H);                                                            \
                    we = min(we, W);                                                            \
                    if (exclusive)                                                              \
                        size = (he - hs) * (we - ws);                                           \
                }                                                                               \
                long o = (nc * OH + oh) * OW + ow;                                              \
                T d = dy[dyo + o], v = y[yo + o];                                               \
                int done = 0;                                                                   \
                for (long h = hs; h < he && !done; h++)                                         \
                    for (long w = ws; w < we && !done; w++) {                                   \
                        if (avg) {                                                              \
                            g[h * W + w] += d / (T)size;                                        \
                        } else if (p[h * W + w] == v) {                                         \
                            g[h * W + w] += d;                                                  \
                            done = 1;                                                           \
                        }                                                                       \
                    }                                                                           \
            }                                                                                   \
    }
D2_FLOAT_TYPES(D2_POOL2D_GRAD_KERNEL)

/* batch_norm_S: x [N, C, inner]; per channel (x - mean) / sqrt(var + eps) *
 * scale + bias. */
#define D2_BATCH_NORM_KERNEL(T, S)                                                              \
    __kernel void batch_norm_##S(long n, long C, long inner, __global const T *x, long xo,      \
                                 __global const T *mean, long mo, __global const T *var,        \
                                 long vo, __global const T *scale, long so,                     \
                                 __global const T *bias, long bo, T eps, __global T *out,       \
                                 long oo)                                                       \
    {                                                                                           \
        long i = get_global_id(0);                                                              \
        if (i >= n)                                                                             \
            return;                                                                             \
        long c = (i / inner) % C;                                                               \
        T inv = 1 / sqrt(var[vo + c] + eps);                                                    \
        out[oo + i] = (x[xo + i] - mean[mo + c]) * inv * scale[so + c] + bias[bo + c];          \
    }
D2_FLOAT_TYPES(D2_BATCH_NORM_KERNEL)

/* layer_norm_S: rows of D contiguous elements, one work-group per row
 * (power-of-two local size <= 256): mean, then the mean of squared
 * deviations, then (x - mean) / sqrt(var + eps) * scale[j] + bias[j]. */
#define D2_LAYER_NORM_KERNEL(T, S)                                                              \
    __kernel void layer_norm_##S(long D, __global const T *x, long xo, __global const T *scale, \
                                 long so, int has_scale, __global const T *bias, long bo,       \
                                 int has_bias, T eps, __global T *out, long oo)                 \
    {                                                                                           \
        __local T buf[256];                                                                     \
        long base = (long)get_group_id(0) * D;                                                  \
        int lid = get_local_id(0), ls = get_local_size(0);                                      \
        T s = 0;                                                                                \
        for (long j = lid; j < D; j += ls)                                                      \
            s += x[xo + base + j];                                                              \
        buf[lid] = s;                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        for (int h = ls / 2; h > 0; h >>= 1) {                                                  \
            if (lid < h)                                                                        \
                buf[lid] += buf[lid + h];                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        T mean = buf[0] / (T)D;                                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        s = 0;                                                                                  \
        for (long j = lid; j < D; j += ls) {                                                    \
            T d = x[xo + base + j] - mean;                                                      \
            s += d * d;                                                                         \
        }                                                                                       \
        buf[lid] = s;                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                           \
        for (int h = ls / 2; h > 0; h >>= 1) {                                                  \
            if (lid < h)                                                                        \
                buf[lid] += buf[lid + h];                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
        T inv = 1 / sqrt(buf[0] / (T)D + eps);                                                  \
        for (long j = lid; j < D; j += ls) {                                                    \
            T v = (x[xo + base + j] - mean) * inv;                                              \
            if (has_scale)                                                                      \
                v *= scale[so + j];                                                             \
            if (has_bias)                                                                       \
                v += bias[bo + j];                                                              \
            out[oo + base + j] = v;                                                             \
        }                                                                                       \
    }
D2_FLOAT_TYPES(D2_LAYER_NORM_KERNEL)

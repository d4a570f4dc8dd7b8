/* conv_direct.c - direct float32 convolution for layers with few input channels (NCHW). */
/* Layers such as LeNet's and MNIST's (1 -> 6 and 6 -> 16 channels, 3x3 and 5x5 kernels on
 * 28x28 and 14x14 images) have too little depth for im2col + GEMM (the unfolded matrix costs
 * as much as the product) and run far below peak in oneDNN, whose blocked kernels expect
 * channel counts in multiples of 16 and reorder in and out of NCHW on every call. Here each
 * output tile of O channels x R rows x V*16 columns lives in O*R*V AVX-512 registers: per
 * (input channel, kernel row, kernel column), R*V vectors of the input are loaded once and
 * multiplied by O broadcast weights. The input is copied once into a zero-padded buffer
 * so that the inner loop has no bounds checks; the bias, the residual and relu are applied
 * as the tile is stored. Threads split the tiles of a batch.
 * Each output element sums its products in (channel, kernel row, kernel column) order with
 * fused multiply-adds from zero, then adds the bias, as a GEMM's epilogue (and Paddle) does. */
#include "conv_direct.h"
#include "kswitch.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_mode = -1;
static atomic_long g_runs;

long d2_conv_direct_runs(void) { return atomic_load(&g_runs); }

void d2_conv_direct_set_mode(d2_conv_direct_mode m) { atomic_store(&g_mode, (int)m); }

static d2_conv_direct_mode mode(void)
{
    return (d2_conv_direct_mode)d2_kswitch_get(&g_mode, "DY2ST_CONV_DIRECT");
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

bool d2_conv_direct_available(void) { return d2_cpu_avx512f(); }

#define CD_ATTR __attribute__((target("avx512f,fma")))

/* What every tile of one call shares. xs is the (padded) input of the chunk's first image,
 * ld its row stride, plane its channel stride, img its image stride. */
typedef struct {
    const d2_conv_direct *p;
    const float *xs;
    int64_t ld, plane, img;
    int64_t n0;                   /* the chunk's first image */
    int64_t n_ob, n_rb, n_cb;     /* tiles per image along channels, rows, column chunks */
    const float *last;            /* the last image's copy, read instead of xs (or NULL) */
    const float *wt;              /* channel tiles: the weights as [c, kh, kw, ocp] */
    int64_t ocp;                  /* oc rounded up to 16 */
} cd_ctx;

/* A tile's coordinates: column chunk, row block, channel block and image of the chunk. */
typedef struct cd_pos {
    int64_t cb, rb, ob, n;
} cd_pos;

/* The coordinates of tile t (tiles run column chunk fastest, then rows, channels, images). */
static cd_pos tile_at(const cd_ctx *cx, int64_t t)
{
    cd_pos q;
    q.cb = t % cx->n_cb;
    t /= cx->n_cb;
    q.rb = t % cx->n_rb;
    t /= cx->n_rb;
    q.ob = t % cx->n_ob;
    q.n = t / cx->n_ob;
    return q;
}

/* Steps q to the next tile without dividing. */
static inline void tile_next(const cd_ctx *cx, cd_pos *q)
{
    if (++q->cb < cx->n_cb)
        return;
    q->cb = 0;
    if (++q->rb < cx->n_rb)
        return;
    q->rb = 0;
    if (++q->ob < cx->n_ob)
        return;
    q->ob = 0;
    q->n++;
}

/* The lanes of a 16-float chunk that hold columns, where left columns remain from its start. */
static inline __mmask16 lane_mask(int64_t left)
{
    return left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

/* The input of the chunk's image n. */
static inline const float *image(const cd_ctx *cx, int64_t n)
{
    return cx->last && cx->n0 + n == cx->p->n - 1 ? cx->last : cx->xs + n * cx->img;
}

/* One tile: output channels oc0.. (O of them), rows r0.. (R), columns ow0.. (V vectors under
 * masks mk). Channels and rows past the end repeat the last one and are not stored. */
#define DEFINE_TILE(O, R, V, K, NAME)                                                             \
    CD_ATTR static void NAME(const cd_ctx *cx, const float *xn, float *yn,                        \
                                             const float *rn, int64_t oc0, int64_t r0,           \
                                             int64_t ow0, const __mmask16 *mk)                   \
    {                                                                                             \
        const d2_conv_direct *p = cx->p;                                                          \
        int64_t kk = p->c * p->kh * p->kw;                                                        \
        __m512 acc[O][R][V];                                                                      \
        const float *wo[O];                                                                       \
        _Pragma("GCC unroll 16") for (int o = 0; o < O; o++)                                      \
        {                                                                                         \
            int64_t oc = oc0 + o < p->oc ? oc0 + o : p->oc - 1;                                   \
            wo[o] = p->wt + oc * kk;                                                              \
            _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < V; v++) acc[o][r][v] =               \
                    _mm512_setzero_ps();                                                          \
        }                                                                                         \
        const float *xr[R];                                                                       \
        _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                                      \
        {                                                                                         \
            int64_t row = r0 + r < p->oh ? r0 + r : p->oh - 1;                                    \
            xr[r] = xn + row * p->sh * cx->ld + ow0;                                              \
        }                                                                                         \
        int64_t wi = 0;                                                                           \
        for (int64_t c = 0; c < p->c; c++)                                                        \
            for (int64_t kh = 0; kh < p->kh; kh++) {                                              \
                int64_t off0 = c * cx->plane + kh * p->dh * cx->ld;                               \
                /* K > 0: the kernel width, known here, so that the loop unrolls */           \
                _Pragma("GCC unroll 8") for (int64_t kw = 0; kw < (K > 0 ? K : p->kw); kw++, wi++) \
                {                                                                                 \
                    int64_t off = off0 + kw * p->dw;                                              \
                    __m512 xv[R][V];                                                              \
                    _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                          \
                        _Pragma("GCC unroll 4") for (int v = 0; v < V; v++) xv[r][v] =           \
                            _mm512_maskz_loadu_ps(mk[v], xr[r] + off + 16 * v);                   \
                    _Pragma("GCC unroll 16") for (int o = 0; o < O; o++)                          \
                    {                                                                             \
                        __m512 wv = _mm512_set1_ps(wo[o][wi]);                                    \
                        _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                      \
                            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++) acc[o][r][v] =   \
                                _mm512_fmadd_ps(wv, xv[r][v], acc[o][r][v]);                      \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
        __m512 zero = _mm512_setzero_ps();                                                        \
        _Pragma("GCC unroll 16") for (int o = 0; o < O; o++)                                      \
        {                                                                                         \
            if (oc0 + o >= p->oc)                                                                 \
                break;                                                                            \
            _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                                  \
            {                                                                                     \
                if (r0 + r >= p->oh)                                                              \
                    break;                                                                        \
                int64_t at = ((oc0 + o) * p->oh + r0 + r) * p->ow + ow0;                          \
                __m512 b = p->bias ? _mm512_set1_ps(p->bias[oc0 + o]) : _mm512_setzero_ps();      \
                _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                               \
                {                                                                                 \
                    __m512 a = p->bias ? _mm512_add_ps(acc[o][r][v], b) : acc[o][r][v];           \
                    if (rn)                                                                       \
                        a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(mk[v], rn + at + 16 * v));     \
                    if (p->relu)                                                                  \
                        a = _mm512_max_ps(zero, a); /* NaN stays NaN, as the relu op */          \
                    _mm512_mask_storeu_ps(yn + at + 16 * v, mk[v], a);                            \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

/* Tile shapes: at most 24 accumulators, leaving registers for R*V inputs and a weight. */
DEFINE_TILE(8, 3, 1, 0, tile_8_3_1)
DEFINE_TILE(8, 3, 1, 3, tile_8_3_1_k3)
DEFINE_TILE(8, 3, 1, 5, tile_8_3_1_k5)
DEFINE_TILE(6, 4, 1, 0, tile_6_4_1)
DEFINE_TILE(6, 4, 1, 3, tile_6_4_1_k3)
DEFINE_TILE(6, 4, 1, 5, tile_6_4_1_k5)
DEFINE_TILE(4, 6, 1, 0, tile_4_6_1)
DEFINE_TILE(4, 6, 1, 3, tile_4_6_1_k3)
DEFINE_TILE(4, 6, 1, 5, tile_4_6_1_k5)
DEFINE_TILE(6, 2, 2, 0, tile_6_2_2)
DEFINE_TILE(6, 2, 2, 3, tile_6_2_2_k3)
DEFINE_TILE(6, 2, 2, 5, tile_6_2_2_k5)
DEFINE_TILE(4, 3, 2, 0, tile_4_3_2)
DEFINE_TILE(4, 3, 2, 3, tile_4_3_2_k3)
DEFINE_TILE(4, 3, 2, 5, tile_4_3_2_k5)
DEFINE_TILE(3, 4, 2, 0, tile_3_4_2)
DEFINE_TILE(3, 4, 2, 3, tile_3_4_2_k3)
DEFINE_TILE(3, 4, 2, 5, tile_3_4_2_k5)
DEFINE_TILE(4, 2, 3, 0, tile_4_2_3)
DEFINE_TILE(4, 2, 3, 3, tile_4_2_3_k3)
DEFINE_TILE(4, 2, 3, 5, tile_4_2_3_k5)
DEFINE_TILE(2, 4, 3, 0, tile_2_4_3)
DEFINE_TILE(2, 4, 3, 3, tile_2_4_3_k3)
DEFINE_TILE(2, 4, 3, 5, tile_2_4_3_k5)
DEFINE_TILE(3, 2, 4, 0, tile_3_2_4)
DEFINE_TILE(3, 2, 4, 3, tile_3_2_4_k3)
DEFINE_TILE(3, 2, 4, 5, tile_3_2_4_k5)
DEFINE_TILE(2, 3, 4, 0, tile_2_3_4)
DEFINE_TILE(2, 3, 4, 3, tile_2_3_4_k3)
DEFINE_TILE(2, 3, 4, 5, tile_2_3_4_k5)

typedef void (*tile_fn)(const cd_ctx *, const float *, float *, const float *, int64_t, int64_t,
                        int64_t, const __mmask16 *);
/* per shape: any kernel width, and kernel widths 3 and 5 */
static const struct {
    int o, r, v;
    tile_fn fn, fn3, fn5;
} TILES[] = {
    {8, 3, 1, tile_8_3_1, tile_8_3_1_k3, tile_8_3_1_k5},
    {6, 4, 1, tile_6_4_1, tile_6_4_1_k3, tile_6_4_1_k5},
    {4, 6, 1, tile_4_6_1, tile_4_6_1_k3, tile_4_6_1_k5},
    {6, 2, 2, tile_6_2_2, tile_6_2_2_k3, tile_6_2_2_k5},
    {4, 3, 2, tile_4_3_2, tile_4_3_2_k3, tile_4_3_2_k5},
    {3, 4, 2, tile_3_4_2, tile_3_4_2_k3, tile_3_4_2_k5},
    {4, 2, 3, tile_4_2_3, tile_4_2_3_k3, tile_4_2_3_k5},
    {2, 4, 3, tile_2_4_3, tile_2_4_3_k3, tile_2_4_3_k5},
    {3, 2, 4, tile_3_2_4, tile_3_2_4_k3, tile_3_2_4_k5},
    {2, 3, 4, tile_2_3_4, tile_2_3_4_k3, tile_2_3_4_k5},
};

/* The tile shape that wastes least on this layer's channel, row and column tails (ties: the
 * first listed, the one with more channels per tile). */
static int pick_tile(const d2_conv_direct *p)
{
    int64_t nvec = (p->ow + 15) / 16, best_cost = 0;
    int best = 0;
    for (int i = 0; i < (int)(sizeof TILES / sizeof TILES[0]); i++) {
        int64_t o = TILES[i].o, r = TILES[i].r, v = TILES[i].v;
        int64_t cost = (p->oc + o - 1) / o * o * ((p->oh + r - 1) / r * r) * ((nvec + v - 1) / v * v);
        /* fewer accumulators per input load cost more per multiply-add */
        cost = cost * 24 / (o * r * v);
        if (i == 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
        }
    }
    return best;
}

/* Layers with 16 or more output channels and narrow images (LeNet's second convolution:
 * 10 columns would fill 10 of 16 lanes) vectorise over output channels instead: a tile of
 * 16 channels x R rows x W columns in R*W registers; per (input channel, kernel row, kernel
 * column) one vector of 16 weights (cx->wt, zero past oc) is multiplied by R*W broadcast
 * inputs. The columns past the end read the padded buffer's slack and are not stored; the
 * tile goes through a small buffer to the NCHW output, adding the residual and relu there. */
#define DEFINE_CTILE(R, W, K, NAME)                                                               \
    CD_ATTR static void NAME(const cd_ctx *cx, const float *xn, float *yn,                        \
                                        const float *rn, int64_t oc0, int64_t r0, int64_t ow0)    \
    {                                                                                             \
        const d2_conv_direct *p = cx->p;                                                          \
        __m512 acc[R][W];                                                                         \
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                                       \
            _Pragma("GCC unroll 16") for (int j = 0; j < W; j++) acc[r][j] = _mm512_setzero_ps(); \
        const float *xr[R];                                                                       \
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                                       \
        {                                                                                         \
            int64_t row = r0 + r < p->oh ? r0 + r : p->oh - 1;                                    \
            xr[r] = xn + row * p->sh * cx->ld + ow0;                                              \
        }                                                                                         \
        const float *wp = cx->wt + oc0;                                                           \
        if (K == 0) {                                                                             \
            for (int64_t c = 0; c < p->c; c++)                                                    \
                for (int64_t kh = 0; kh < p->kh; kh++) {                                          \
                    int64_t off0 = c * cx->plane + kh * p->dh * cx->ld;                           \
                    for (int64_t kw = 0; kw < p->kw; kw++, wp += cx->ocp) {                       \
                        int64_t off = off0 + kw * p->dw;                                          \
                        __m512 wv = _mm512_loadu_ps(wp);                                          \
                        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                       \
                            _Pragma("GCC unroll 16") for (int j = 0; j < W; j++) acc[r][j] =     \
                                _mm512_fmadd_ps(_mm512_set1_ps(xr[r][off + j]), wv, acc[r][j]);   \
                    }                                                                             \
                }                                                                                 \
        } else {                                                                                  \
            /* kw = K, dilation 1: each input broadcast once per kernel row serves the K      \
             * outputs it reaches (each output still sums in kw order), K weight vectors held */ \
            for (int64_t c = 0; c < p->c; c++)                                                    \
                for (int64_t kh = 0; kh < p->kh; kh++, wp += (K > 0 ? K : 1) * cx->ocp) {        \
                    int64_t off = c * cx->plane + kh * p->dh * cx->ld;                            \
                    __m512 wv[K > 0 ? K : 1];                                                     \
                    _Pragma("GCC unroll 8") for (int kw = 0; kw < K; kw++) wv[kw] =              \
                        _mm512_loadu_ps(wp + kw * cx->ocp);                                       \
                    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                           \
                        _Pragma("GCC unroll 24") for (int q = 0; q < W + K - 1; q++)              \
                        {                                                                         \
                            __m512 bx = _mm512_set1_ps(xr[r][off + q]);                           \
                            _Pragma("GCC unroll 8") for (int kw = 0; kw < K; kw++)                \
                            {                                                                     \
                                int j = q - kw;                                                   \
                                if (j >= 0 && j < W)                                              \
                                    acc[r][j] = _mm512_fmadd_ps(bx, wv[kw], acc[r][j]);           \
                            }                                                                     \
                        }                                                                         \
                }                                                                                 \
        }                                                                                         \
        float buf[R][W][16] __attribute__((aligned(64)));                                         \
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                                       \
            _Pragma("GCC unroll 16") for (int j = 0; j < W; j++)                                 \
                _mm512_store_ps(buf[r][j], acc[r][j]);                                            \
        int64_t no = p->oc - oc0 < 16 ? p->oc - oc0 : 16;                                         \
        int64_t nr = p->oh - r0 < R ? p->oh - r0 : R, nj = p->ow - ow0 < W ? p->ow - ow0 : W;     \
        __mmask16 mj = (__mmask16)((1u << nj) - 1);                                               \
        __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, \
                                                          4, 3, 2, 1, 0),                         \
                                         _mm512_set1_epi32(16));                                  \
        __m512 zero = _mm512_setzero_ps();                                                        \
        for (int64_t o = 0; o < no; o++)                                                          \
            for (int64_t r = 0; r < nr; r++) {                                                    \
                int64_t at = ((oc0 + o) * p->oh + r0 + r) * p->ow + ow0;                          \
                __m512 v = _mm512_mask_i32gather_ps(zero, mj, idx, &buf[r][0][o], 4);             \
                if (p->bias)                                                                      \
                    v = _mm512_add_ps(v, _mm512_set1_ps(p->bias[oc0 + o]));                       \
                if (rn)                                                                           \
                    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mj, rn + at));                     \
                if (p->relu)                                                                      \
                    v = _mm512_max_ps(zero, v); /* NaN stays NaN, as the relu op */              \
                _mm512_mask_storeu_ps(yn + at, mj, v);                                            \
            }                                                                                     \
    }

DEFINE_CTILE(1, 16, 0, ctile_1_16)
DEFINE_CTILE(1, 16, 3, ctile_1_16_k3)
DEFINE_CTILE(1, 16, 5, ctile_1_16_k5)
DEFINE_CTILE(2, 12, 0, ctile_2_12)
DEFINE_CTILE(2, 12, 3, ctile_2_12_k3)
DEFINE_CTILE(2, 12, 5, ctile_2_12_k5)
DEFINE_CTILE(2, 10, 0, ctile_2_10)
DEFINE_CTILE(2, 10, 3, ctile_2_10_k3)
DEFINE_CTILE(2, 10, 5, ctile_2_10_k5)
DEFINE_CTILE(3, 8, 0, ctile_3_8)
DEFINE_CTILE(3, 8, 3, ctile_3_8_k3)
DEFINE_CTILE(3, 8, 5, ctile_3_8_k5)
DEFINE_CTILE(3, 7, 0, ctile_3_7)
DEFINE_CTILE(3, 7, 3, ctile_3_7_k3)
DEFINE_CTILE(3, 7, 5, ctile_3_7_k5)
DEFINE_CTILE(4, 6, 0, ctile_4_6)
DEFINE_CTILE(4, 6, 3, ctile_4_6_k3)
DEFINE_CTILE(4, 6, 5, ctile_4_6_k5)
DEFINE_CTILE(4, 5, 0, ctile_4_5)
DEFINE_CTILE(4, 5, 3, ctile_4_5_k3)
DEFINE_CTILE(4, 5, 5, ctile_4_5_k5)
DEFINE_CTILE(6, 4, 0, ctile_6_4)
DEFINE_CTILE(6, 4, 3, ctile_6_4_k3)
DEFINE_CTILE(6, 4, 5, ctile_6_4_k5)

typedef void (*ctile_fn)(const cd_ctx *, const float *, float *, const float *, int64_t, int64_t,
                         int64_t);
/* per shape: any kernel width, and kernel widths 3 and 5 without dilation */
static const struct {
    int r, w;
    ctile_fn fn, fn3, fn5;
} CTILES[] = {
    {1, 16, ctile_1_16, ctile_1_16_k3, ctile_1_16_k5},
    {2, 12, ctile_2_12, ctile_2_12_k3, ctile_2_12_k5},
    {2, 10, ctile_2_10, ctile_2_10_k3, ctile_2_10_k5},
    {3, 8, ctile_3_8, ctile_3_8_k3, ctile_3_8_k5},
    {3, 7, ctile_3_7, ctile_3_7_k3, ctile_3_7_k5},
    {4, 6, ctile_4_6, ctile_4_6_k3, ctile_4_6_k5},
    {4, 5, ctile_4_5, ctile_4_5_k3, ctile_4_5_k5},
    {6, 4, ctile_6_4, ctile_6_4_k3, ctile_6_4_k5},
};
#define CTILE_SLACK 16 /* columns a channel tile may read past a row's end */

/* The channel tile shape that wastes least on the row and column tails. */
static int pick_ctile(const d2_conv_direct *p)
{
    int64_t best_cost = 0;
    int best = 0;
    for (int i = 0; i < (int)(sizeof CTILES / sizeof CTILES[0]); i++) {
        int64_t r = CTILES[i].r, w = CTILES[i].w;
        /* the multiply-adds issued, plus one weight load per r * w of them */
        int64_t cost = ((p->oh + r - 1) / r * r) * ((p->ow + w - 1) / w * w) * (r * w + 1) * 64 /
                       (r * w);
        if (i == 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
        }
    }
    return best;
}

/* Runs channel tiles [t0, t1) of the chunk with tile shape ti. */
CD_ATTR static void run_ctiles(const cd_ctx *cx, int ti, int64_t t0, int64_t t1)
{
    const d2_conv_direct *p = cx->p;
    int r = CTILES[ti].r, w = CTILES[ti].w;
    ctile_fn fn = p->dw == 1 && p->kw == 3 ? CTILES[ti].fn3
                  : p->dw == 1 && p->kw == 5 ? CTILES[ti].fn5 : CTILES[ti].fn;
    if (t0 >= t1)
        return;
    cd_pos q = tile_at(cx, t0);
    for (int64_t t = t0; t < t1; t++, tile_next(cx, &q)) {
        size_t yo = (size_t)((cx->n0 + q.n) * p->oc * p->oh * p->ow);
        fn(cx, image(cx, q.n), p->y + yo, p->res ? p->res + yo : NULL, q.ob * 16, q.rb * r,
           q.cb * w);
    }
}

/* Copies channel planes [q0, q1) of the chunk (q = image * c + channel) into the padded buffer
 * xp: rows of ld = WP elements, hp rows per plane, zeros outside the input. */
CD_ATTR static void pad_planes(const d2_conv_direct *p, int64_t n0, float *xp, int64_t hp,
                               int64_t wp, int64_t q0, int64_t q1)
{
    int64_t lo = p->pl < wp ? p->pl : wp, hi = p->pl + p->w < wp ? p->pl + p->w : wp;
    __m512 zero = _mm512_setzero_ps();
    /* rows are short (tens of elements): masked vector stores, not calls into libc */
    for (int64_t q = q0; q < q1; q++) {
        const float *src = p->x + (n0 * p->c + q) * p->h * p->w;
        float *dst = xp + q * hp * wp;
        for (int64_t r = 0; r < hp; r++) {
            float *d = dst + r * wp;
            int64_t ih = r - p->pt;
            for (int64_t j = 0; j < wp; j += 16) {
                int64_t n = wp - j < 16 ? wp - j : 16;
                _mm512_mask_storeu_ps(d + j, (__mmask16)((1u << n) - 1), zero);
            }
            if (ih < 0 || ih >= p->h)
                continue;
            const float *s = src + ih * p->w + (lo - p->pl);
            for (int64_t j = lo; j < hi; j += 16) {
                int64_t n = hi - j < 16 ? hi - j : 16;
                __mmask16 m = (__mmask16)((1u << n) - 1);
                _mm512_mask_storeu_ps(d + j, m, _mm512_maskz_loadu_ps(m, s + (j - lo)));
            }
        }
    }
}

/* Runs tiles [t0, t1) of the chunk with tile shape ti. */
CD_ATTR static void run_tiles(const cd_ctx *cx, int ti, int64_t t0, int64_t t1)
{
    const d2_conv_direct *p = cx->p;
    int o = TILES[ti].o, r = TILES[ti].r, v = TILES[ti].v;
    tile_fn fn = p->kw == 3 ? TILES[ti].fn3 : p->kw == 5 ? TILES[ti].fn5 : TILES[ti].fn;
    if (t0 >= t1)
        return;
    __mmask16 masks[64][4]; /* per column chunk; chunks past 64 compute theirs */
    for (int64_t c = 0; c < cx->n_cb && c < 64; c++)
        for (int j = 0; j < v; j++)
            masks[c][j] = lane_mask(p->ow - c * 16 * v - 16 * j);
    cd_pos q = tile_at(cx, t0);
    for (int64_t t = t0; t < t1; t++, tile_next(cx, &q)) {
        int64_t ow0 = q.cb * 16 * v;
        __mmask16 mk[4];
        const __mmask16 *m = masks[q.cb < 64 ? q.cb : 0];
        if (q.cb >= 64) {
            for (int j = 0; j < v; j++)
                mk[j] = lane_mask(p->ow - ow0 - 16 * j);
            m = mk;
        }
        size_t yo = (size_t)((cx->n0 + q.n) * p->oc * p->oh * p->ow);
        fn(cx, image(cx, q.n), p->y + yo, p->res ? p->res + yo : NULL, q.ob * o, q.rb * r, ow0,
           m);
    }
}

/* The shapes the direct kernel is measured faster on than oneDNN and im2col + GEMM
 * (bench/conv_bench, one and two threads, Xeon with AVX-512): few input channels. */
static bool chosen(const d2_conv_direct *p)
{
    return p->c <= 8 && p->c * p->kh * p->kw <= 400;
}

/* Whether channel tiles fill more vector lanes than column tiles on this layer. */
static bool channel_tiles(const d2_conv_direct *p)
{
    double by_col = (double)p->ow / (double)((p->ow + 15) / 16 * 16);
    double by_chan = (double)p->oc / (double)((p->oc + 15) / 16 * 16);
    return by_chan > by_col;
}

#define CHUNK_FLOATS ((int64_t)1 << 20) /* the padded copy of a chunk of images: 4 MiB */

/* Runs tiles [t0, t1) of either kind. */
static void run_any(const cd_ctx *cx, bool chan, int ti, int64_t t0, int64_t t1)
{
    if (chan)
        run_ctiles(cx, ti, t0, t1);
    else
        run_tiles(cx, ti, t0, t1);
}

int d2_conv_direct_f32(const d2_conv_direct *p, int nt, d2_err *err)
{
    d2_conv_direct_mode m = mode();
    if (m == D2_CONV_DIRECT_NEVER || !d2_conv_direct_available())
        return 1;
    if (p->n <= 0 || p->c <= 0 || p->oc <= 0 || p->oh <= 0 || p->ow <= 0 || p->kh <= 0 ||
        p->kw <= 0 || p->sh <= 0 || p->dh <= 0 || p->dw <= 0 || p->pt < 0 || p->pl < 0)
        return 1;
    if (m == D2_CONV_DIRECT_AUTO && !chosen(p))
        return 1;
    bool chan = channel_tiles(p);
    int64_t hp = (p->oh - 1) * p->sh + (p->kh - 1) * p->dh + 1;
    int64_t wp = p->ow + (p->kw - 1) * p->dw;
    /* without padding the images are read in place, but channel tiles read up to
     * CTILE_SLACK past a row's end: the last image is read from a copy followed by that */
    bool pad = p->pt > 0 || p->pl > 0 || hp > p->h || wp > p->w;
    /* images smaller than the slack: a read past one could pass the next, the last, too */
    if (chan && p->c * p->h * p->w < CTILE_SLACK)
        pad = true;
    bool copy_last = chan && !pad;
    int64_t plane = pad ? hp * wp : p->h * p->w;
    int64_t kk = p->c * p->kh * p->kw, ocp = (p->oc + 15) / 16 * 16;
    if (plane > CHUNK_FLOATS || p->c > CHUNK_FLOATS / plane || kk > CHUNK_FLOATS / ocp)
        return 1;
    int64_t img = p->c * plane;
    int64_t nb = pad ? CHUNK_FLOATS / img : p->n;
    if (nb > p->n)
        nb = p->n;
    float *xp = NULL, *wt = NULL;
    if (((pad || copy_last) &&
         !(xp = d2_malloc((size_t)((pad ? nb : 1) * img + CTILE_SLACK) * sizeof *xp))) ||
        (chan && !(wt = d2_malloc((size_t)(kk * ocp) * sizeof *wt)))) {
        d2_free(xp);
        return d2_err_set(err, D2_ERR_NOMEM, "conv2d: out of memory for the direct kernel");
    }
    int ti;
    int64_t n_ob, n_rb, n_cb;
    if (chan) {
        /* [oc, c, kh, kw] -> [c, kh, kw, ocp], zeros past oc */
        for (int64_t q = 0; q < kk; q++)
            for (int64_t o = 0; o < ocp; o++)
                wt[q * ocp + o] = o < p->oc ? p->wt[o * kk + q] : 0.0f;
        memset(xp + (pad ? nb : 1) * img, 0, CTILE_SLACK * sizeof *xp);
        if (copy_last)
            memcpy(xp, p->x + (p->n - 1) * img, (size_t)img * sizeof *xp);
        ti = pick_ctile(p);
        n_ob = ocp / 16;
        n_rb = (p->oh + CTILES[ti].r - 1) / CTILES[ti].r;
        n_cb = (p->ow + CTILES[ti].w - 1) / CTILES[ti].w;
    } else {
        ti = pick_tile(p);
        int64_t nvec = (p->ow + 15) / 16;
        n_ob = (p->oc + TILES[ti].o - 1) / TILES[ti].o;
        n_rb = (p->oh + TILES[ti].r - 1) / TILES[ti].r;
        n_cb = (nvec + TILES[ti].v - 1) / TILES[ti].v;
    }
    for (int64_t n0 = 0; n0 < p->n; n0 += nb) {
        int64_t cnt = p->n - n0 < nb ? p->n - n0 : nb;
        cd_ctx cx = {.p = p,
                     .xs = pad ? xp : p->x + n0 * img,
                     .ld = pad ? wp : p->w,
                     .plane = plane,
                     .img = img,
                     .n0 = n0,
                     .n_ob = n_ob,
                     .n_rb = n_rb,
                     .n_cb = n_cb,
                     .last = copy_last ? xp : NULL,
                     .wt = wt,
                     .ocp = ocp};
        int64_t planes = cnt * p->c, tiles = cnt * n_ob * n_rb * n_cb;
        if (nt <= 1) {
            if (pad)
                pad_planes(p, n0, xp, hp, wp, 0, planes);
            run_any(&cx, chan, ti, 0, tiles);
            continue;
        }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
        {
            int id = omp_get_thread_num(), k = omp_get_num_threads();
            if (cnt >= k) {
                /* whole images per thread: each pads only what its own tiles read */
                int64_t i0 = cnt * id / k, i1 = cnt * (id + 1) / k, per = tiles / cnt;
                if (pad)
                    pad_planes(p, n0, xp, hp, wp, i0 * p->c, i1 * p->c);
                run_any(&cx, chan, ti, i0 * per, i1 * per);
            } else {
                if (pad) {
                    pad_planes(p, n0, xp, hp, wp, planes * id / k, planes * (id + 1) / k);
#pragma omp barrier
                }
                run_any(&cx, chan, ti, tiles * id / k, tiles * (id + 1) / k);
            }
        }
#else
        if (pad)
            pad_planes(p, n0, xp, hp, wp, 0, planes);
        run_any(&cx, chan, ti, 0, tiles);
#endif
    }
    d2_free(xp);
    d2_free(wt);
    atomic_fetch_add(&g_runs, 1);
    return 0;
}

#else /* not x86-64 with GCC's intrinsics: the callers' kernels run */

bool d2_conv_direct_available(void) { return false; }

int d2_conv_direct_f32(const d2_conv_direct *p, int nt, d2_err *err)
{
    D2_UNUSED(p);
    D2_UNUSED(nt);
    D2_UNUSED(err);
    (void)mode;
    return 1;
}

#endif

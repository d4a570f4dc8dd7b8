/* conv_nhwc.c - direct float32 convolution in NHWC for small and medium channel counts. */
/* A model's conv chain runs in NHWC after the nhwc pass. For the layer sizes of small image
 * models (3-64 channels, 8x8-32x32 images) oneDNN's brgconv spends much of a call in its C++
 * driver, outside the JIT kernel, and splits small outputs unevenly over threads. Here one
 * task is one output row of one image, and threads take equal runs of tasks. A thread copies
 * the input rows a chunk of its output rows reads into a zero-padded buffer (so the inner loop
 * has no bounds checks; without padding the rows are read where they are), then computes
 * tiles of P output pixels x B blocks of 16 output channels held in P*B AVX-512 registers:
 * per (kernel row, kernel column, input channel) it loads B weight vectors and multiplies them
 * by P broadcast inputs. The bias, the residual and relu are applied as a tile is stored.
 * Each output element sums its products in (kernel row, kernel column, input channel) order
 * with fused multiply-adds from zero, then adds the bias and the residual. The weights are
 * packed as [kh][kw][c][oc]: once for constant weights (a loaded model's; the packed copy is
 * kept with their storage), and again for other weights only when their bytes change (a
 * per-thread cache). */
#include "conv_nhwc.h"
#include "kswitch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long g_runs;

long d2_conv_nhwc_runs(void) { return atomic_load(&g_runs); }

static atomic_int g_mode = -1;

void d2_conv_nhwc_set_mode(d2_conv_nhwc_mode m) { atomic_store(&g_mode, (int)m); }

static d2_conv_nhwc_mode nhwc_mode(void)
{
    return (d2_conv_nhwc_mode)d2_kswitch_get(&g_mode, "DY2ST_CONV_NHWC");
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

bool d2_conv_nhwc_available(void) { return d2_cpu_avx512f(); }

/* no predictive commoning: with small pixel strides it carries loads across steps in
 * shuffled registers (and spills), several times slower than loading again */
#define CN_ATTR __attribute__((target("avx512f,fma"), optimize("no-predictive-commoning")))

/* What the tasks of one call share. */
typedef struct {
    const d2_conv_nhwc *p;
    const float *w;     /* packed [kh][kw][c][oc] */
    int64_t wp;         /* padded row width in pixels: (ow - 1) * sw + (kw - 1) * dw + 1 */
    bool direct;        /* no padding in view: rows are read from x as they are */
    int64_t chunk;      /* output rows per chunk (the input rows of one chunk are copied) */
    int64_t rows_per_pass; /* kernel rows summed per pass over a row's tiles (kh: one pass) */
} cn_ctx;

/* Where a task reads its input rows: input row iy (of the image or chunk) starts at
 * base + (iy - iy0) * ld, its padded column j at j * c further. */
typedef struct {
    const float *base;
    int64_t iy0, ld;
} cn_rows;

/* nk steps of one tile: per step, B weight vectors (from wstart, oc floats apart) times the P
 * inputs a0[i * xs + k] broadcast. */
#define CN_STEPS(B, P, nk, wstart)                                                               \
    {                                                                                            \
        const float *wk = (wstart);                                                              \
        for (int64_t k = 0, nk_ = (nk); k < nk_; k++, wk += oc) {                                \
            __m512 wv[B];                                                                        \
            _Pragma("GCC unroll 4") for (int o = 0; o < B; o++) wv[o] =                          \
                _mm512_loadu_ps(wk + 16 * o);                                                    \
            _Pragma("GCC unroll 16") for (int i = 0; i < P; i++)                                 \
            {                                                                                    \
                __m512 xv = _mm512_set1_ps(a0[i * xs + k]);                                      \
                _Pragma("GCC unroll 4") for (int o = 0; o < B; o++) acc[i][o] =                  \
                    _mm512_fmadd_ps(xv, wv[o], acc[i][o]);                                       \
            }                                                                                    \
        }                                                                                        \
    }

/* One tile of output row oy: P pixels from column ow0, B channel blocks from oc0, kernel rows
 * r0..r1-1, reading the (padded) input rows rw. Pixel i of a tile reads xs = sw * c floats
 * after pixel i - 1: XS when nonzero, a compile-time constant, so that every input is
 * addressed from one pointer and one index (with a run-time stride the compiler keeps P
 * pointers, more than the registers hold, and spills them). The sums start from zero (first)
 * or from arow, and go to arow (not last) or, with the bias, the residual and relu, to yrow
 * (last); rows are [ow][oc]. */
#define DEFINE_TILE(B, P, XS, NAME)                                                                  \
    CN_ATTR static void NAME(const cn_ctx *cx, const cn_rows *rw, int64_t oy, int64_t r0,        \
                             int64_t r1, float *yrow, const float *rrow, float *arow, bool first, \
                             bool last, int64_t ow0, int64_t oc0)                                \
    {                                                                                            \
        const d2_conv_nhwc *p = cx->p;                                                           \
        const int64_t c = p->c, oc = p->oc, xs = XS ? XS : p->sw * c;                            \
        __m512 acc[P][B];                                                                        \
        _Pragma("GCC unroll 16") for (int i = 0; i < P; i++)                                     \
            _Pragma("GCC unroll 4") for (int o = 0; o < B; o++) acc[i][o] =                      \
                first ? _mm512_setzero_ps()                                                      \
                      : _mm512_loadu_ps(arow + (ow0 + i) * oc + oc0 + 16 * o);                   \
        for (int64_t r = r0; r < r1; r++) {                                                      \
            const float *row = rw->base + (oy * p->sh + r * p->dh - rw->iy0) * rw->ld;           \
            const float *wr = cx->w + (r * p->kw * c) * oc + oc0;                                \
            const float *a0 = row + ow0 * xs;                                                    \
            if (p->dw == 1) {                                                                    \
                /* per pixel, the kw taps' channels are kw * c consecutive floats */             \
                CN_STEPS(B, P, p->kw * c, wr)                                                    \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t s = 0; s < p->kw; s++) {                                                \
                CN_STEPS(B, P, c, wr + s * c * oc)                                               \
                a0 += p->dw * c;                                                                 \
            }                                                                                    \
        }                                                                                        \
        if (!last) {                                                                             \
            _Pragma("GCC unroll 16") for (int i = 0; i < P; i++)                                 \
                _Pragma("GCC unroll 4") for (int o = 0; o < B; o++)                              \
                    _mm512_storeu_ps(arow + (ow0 + i) * oc + oc0 + 16 * o, acc[i][o]);           \
            return;                                                                              \
        }                                                                                        \
        const __m512 zero = _mm512_setzero_ps();                                                 \
        _Pragma("GCC unroll 4") for (int o = 0; o < B; o++)                                      \
        {                                                                                        \
            __m512 bv = p->bias ? _mm512_loadu_ps(p->bias + oc0 + 16 * o) : zero;                \
            _Pragma("GCC unroll 16") for (int i = 0; i < P; i++)                                 \
            {                                                                                    \
                int64_t at = (ow0 + i) * oc + oc0 + 16 * o;                                      \
                __m512 v = _mm512_add_ps(acc[i][o], bv);                                         \
                if (rrow)                                                                        \
                    v = _mm512_add_ps(v, _mm512_loadu_ps(rrow + at));                            \
                if (p->relu)                                                                     \
                    v = _mm512_max_ps(v, zero);                                                  \
                _mm512_storeu_ps(yrow + at, v);                                                  \
            }                                                                                    \
        }                                                                                        \
    }

/* The tiles for one pixel stride XS (0: any), by channel blocks (1, 2, 4), widest first. */
typedef void (*tile_fn)(const cn_ctx *, const cn_rows *, int64_t, int64_t, int64_t, float *,
                        const float *, float *, bool, bool, int64_t, int64_t);
typedef struct {
    int px;
    tile_fn fn;
} tile_kind;

#define DEFINE_TILES(XS)                                                                         \
    DEFINE_TILE(1, 12, XS, t1x12_##XS)                                                           \
    DEFINE_TILE(1, 8, XS, t1x8_##XS)                                                             \
    DEFINE_TILE(1, 4, XS, t1x4_##XS)                                                             \
    DEFINE_TILE(1, 2, XS, t1x2_##XS)                                                             \
    DEFINE_TILE(1, 1, XS, t1x1_##XS)                                                             \
    DEFINE_TILE(2, 8, XS, t2x8_##XS)                                                             \
    DEFINE_TILE(2, 4, XS, t2x4_##XS)                                                             \
    DEFINE_TILE(2, 2, XS, t2x2_##XS)                                                             \
    DEFINE_TILE(2, 1, XS, t2x1_##XS)                                                             \
    DEFINE_TILE(4, 4, XS, t4x4_##XS)                                                             \
    DEFINE_TILE(4, 2, XS, t4x2_##XS)                                                             \
    DEFINE_TILE(4, 1, XS, t4x1_##XS)                                                             \
    static const tile_kind TILES_##XS[3][6] = {                                                  \
        {{12, t1x12_##XS}, {8, t1x8_##XS}, {4, t1x4_##XS}, {2, t1x2_##XS}, {1, t1x1_##XS}, {0, NULL}}, \
        {{8, t2x8_##XS}, {4, t2x4_##XS}, {2, t2x2_##XS}, {1, t2x1_##XS}, {0, NULL}, {0, NULL}},   \
        {{4, t4x4_##XS}, {2, t4x2_##XS}, {1, t4x1_##XS}, {0, NULL}, {0, NULL}, {0, NULL}},        \
    };

/* the pixel strides (sw * c) of common layers: 3-channel images, 6 (LeNet), 16-128 */
DEFINE_TILES(0)
DEFINE_TILES(3)
DEFINE_TILES(6)
DEFINE_TILES(16)
DEFINE_TILES(32)
DEFINE_TILES(64)
DEFINE_TILES(128)

static const tile_kind (*tiles_for(int64_t xs))[6]
{
    switch (xs) {
    case 3: return TILES_3;
    case 6: return TILES_6;
    case 16: return TILES_16;
    case 32: return TILES_32;
    case 64: return TILES_64;
    case 128: return TILES_128;
    default: return TILES_0;
    }
}

/* Output row oy: channel blocks in groups of 4, 2, then 1; kernel rows in passes of
 * rows_per_pass (partial sums kept in arow between passes); pixels in the widest tile that
 * fits what is left of the row. */
static void row_tiles(const cn_ctx *cx, const cn_rows *rw, int64_t oy, float *yrow,
                      const float *rrow, float *arow)
{
    const d2_conv_nhwc *p = cx->p;
    const tile_kind(*tiles)[6] = tiles_for(p->sw * p->c);
    int64_t nob = p->oc / 16, ob = 0;
    while (ob < nob) {
        int bi = nob - ob >= 4 ? 2 : nob - ob >= 2 ? 1 : 0;
        for (int64_t r0 = 0; r0 < p->kh; r0 += cx->rows_per_pass) {
            int64_t r1 = r0 + cx->rows_per_pass < p->kh ? r0 + cx->rows_per_pass : p->kh;
            int64_t x = 0;
            for (const tile_kind *t = tiles[bi]; t->px; t++)
                for (; x + t->px <= p->ow; x += t->px)
                    t->fn(cx, rw, oy, r0, r1, yrow, rrow, arow, r0 == 0, r1 == p->kh, x, ob * 16);
        }
        ob += (int64_t)1 << bi;
    }
}

/* Copies the input rows output rows oy0..oy1-1 of image n read into buf, zero-padded (rows
 * in the padding are zeros, padded column j holds input column j - pl), and describes them
 * in *rw. */
static void copy_rows(const cn_ctx *cx, int64_t n, int64_t oy0, int64_t oy1, float *buf,
                      cn_rows *rw)
{
    const d2_conv_nhwc *p = cx->p;
    const int64_t c = p->c, wp = cx->wp;
    const float *img = p->x + n * p->h * p->w * c;
    /* rows are indexed in padded coordinates: padded row y holds input row y - pt */
    int64_t y0 = oy0 * p->sh, y1 = (oy1 - 1) * p->sh + (p->kh - 1) * p->dh + 1;
    int64_t j0 = p->pl < wp ? p->pl : wp, j1 = p->pl + p->w < wp ? p->pl + p->w : wp;
    for (int64_t y = y0; y < y1; y++) {
        float *dst = buf + (y - y0) * wp * c;
        int64_t iy = y - p->pt;
        if (iy < 0 || iy >= p->h || j1 <= j0) {
            memset(dst, 0, (size_t)(wp * c) * sizeof *dst);
            continue;
        }
        if (j0 > 0)
            memset(dst, 0, (size_t)(j0 * c) * sizeof *dst);
        memcpy(dst + j0 * c, img + (iy * p->w + (j0 - p->pl)) * c,
               (size_t)((j1 - j0) * c) * sizeof *dst);
        if (wp > j1)
            memset(dst + j1 * c, 0, (size_t)((wp - j1) * c) * sizeof *dst);
    }
    rw->base = buf;
    rw->iy0 = y0;
    rw->ld = wp * c;
}

/* Tasks t0..t1-1 (output rows of all images, image-major), a chunk of rows at a time. */
static void run_tasks(const cn_ctx *cx, float *buf, float *arow, int64_t t0, int64_t t1)
{
    const d2_conv_nhwc *p = cx->p;
    for (int64_t t = t0; t < t1;) {
        int64_t n = t / p->oh, oy0 = t % p->oh;
        int64_t oy1 = oy0 + cx->chunk;
        if (oy1 > p->oh)
            oy1 = p->oh;
        if (oy1 - oy0 > t1 - t)
            oy1 = oy0 + (t1 - t);
        cn_rows rw;
        if (cx->direct) {
            rw.base = p->x + n * p->h * p->w * p->c;
            rw.iy0 = 0;
            rw.ld = p->w * p->c;
        } else {
            copy_rows(cx, n, oy0, oy1, buf, &rw);
        }
        for (int64_t oy = oy0; oy < oy1; oy++) {
            int64_t at = (n * p->oh + oy) * p->ow * p->oc;
            row_tiles(cx, &rw, oy, p->y + at, p->res ? p->res + at : NULL, arow);
        }
        t += oy1 - oy0;
    }
}

/* The packed copy of weights that are not constant (a Program run from a script), with the
 * bytes it was packed from: a later call with the same pointer, shape and bytes uses it. */
typedef struct {
    const float *src;
    int64_t oc, c, kh, kw;
    float *orig, *packed;
    unsigned long long used;
} pack_entry;

#define PACK_CACHE 8

/* Each thread's scratch (padded rows and partial sums) and packed weights, kept between calls:
 * a fresh allocation per call would take page faults on every run, and packing weights again
 * costs as much as a small layer's convolution. */
typedef struct {
    float *p;
    size_t cap; /* floats */
    pack_entry pk[PACK_CACHE];
    unsigned long long tick;
} scratch;

static pthread_key_t g_key;
static bool g_key_ok;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *v)
{
    scratch *s = v;
    if (s) {
        free(s->p);
        for (int i = 0; i < PACK_CACHE; i++) {
            free(s->pk[i].orig);
            free(s->pk[i].packed);
        }
    }
    free(s);
}

static void key_init(void) { g_key_ok = pthread_key_create(&g_key, scratch_free) == 0; }

/* The calling thread's scratch state; NULL when out of memory. */
static scratch *scratch_state(void)
{
    pthread_once(&g_key_once, key_init);
    if (!g_key_ok)
        return NULL;
    scratch *s = pthread_getspecific(g_key);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || pthread_setspecific(g_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    return s;
}

/* The calling thread's scratch of at least n floats; NULL when out of memory. */
static float *scratch_get(size_t n)
{
    scratch *s = scratch_state();
    if (!s)
        return NULL;
    if (n > s->cap) {
        size_t cap = (n + 1023) & ~(size_t)1023;
        void *q = NULL;
        if (posix_memalign(&q, 64, cap * sizeof(float)) != 0)
            return NULL;
        free(s->p);
        s->p = q;
        s->cap = cap;
    }
    return s->p;
}

/* The weights [oc][c][kh][kw] packed as [kh][kw][c][oc] into dst. */
static void pack_weights(const d2_conv_nhwc *p, float *dst)
{
    for (int64_t o = 0; o < p->oc; o++)
        for (int64_t ci = 0; ci < p->c; ci++)
            for (int64_t r = 0; r < p->kh; r++)
                for (int64_t s = 0; s < p->kw; s++)
                    dst[((r * p->kw + s) * p->c + ci) * p->oc + o] =
                        p->wt[((o * p->c + ci) * p->kh + r) * p->kw + s];
}

/* Packed weights kept with a constant storage (at byte offset off, for this shape). */
typedef struct packed_aux {
    d2_storage_aux base;
    size_t off;
    int64_t oc, c, kh, kw;
    float *data;
} packed_aux;

static void packed_aux_free(d2_storage_aux *a)
{
    free(((packed_aux *)a)->data);
    free(a);
}

/* The packed weights for non-constant weights: from the calling thread's cache when the same
 * pointer and shape hold the same bytes as when they were packed, else packed again into the
 * entry (the least recently used one for a new pointer). NULL when out of memory. */
static const float *packed_cached(const d2_conv_nhwc *p, size_t n)
{
    scratch *s = scratch_state();
    if (!s)
        return NULL;
    pack_entry *e = NULL;
    for (int i = 0; i < PACK_CACHE && !e; i++) {
        pack_entry *q = &s->pk[i];
        if (q->packed && q->src == p->wt && q->oc == p->oc && q->c == p->c && q->kh == p->kh &&
            q->kw == p->kw)
            e = q;
    }
    if (e && memcmp(e->orig, p->wt, n * sizeof *p->wt) == 0) {
        e->used = ++s->tick;
        return e->packed;
    }
    if (!e) {
        e = &s->pk[0];
        for (int i = 1; i < PACK_CACHE; i++)
            if (s->pk[i].used < e->used)
                e = &s->pk[i];
        free(e->orig);
        free(e->packed);
        memset(e, 0, sizeof *e);
        float *orig = malloc(n * sizeof *orig), *packed = NULL;
        if (!orig || posix_memalign((void **)&packed, 64, n * sizeof *packed) != 0) {
            free(orig);
            return NULL;
        }
        *e = (pack_entry){p->wt, p->oc, p->c, p->kh, p->kw, orig, packed, 0};
    }
    memcpy(e->orig, p->wt, n * sizeof *p->wt);
    pack_weights(p, e->packed);
    e->used = ++s->tick;
    return e->packed;
}

/* The packed weights: kept with the weights' constant storage when there is one (found or
 * made and kept), else from the calling thread's cache (packed_cached); NULL when out of
 * memory. */
static const float *packed_weights(const d2_conv_nhwc *p)
{
    size_t n = (size_t)(p->oc * p->c * p->kh * p->kw);
    const d2_tensor *wt = p->wt_tensor;
    uint64_t gen = wt && d2_tensor_data(wt) == (const void *)p->wt ? d2_tensor_const_gen(wt) : 0;
    d2_storage *st = gen ? wt->storage : NULL;
    if (!st)
        return packed_cached(p, n);
    size_t off = (size_t)((const char *)p->wt - (const char *)st->data);
    for (const d2_storage_aux *a = d2_storage_aux_first(st); a; a = a->next) {
        const packed_aux *k = (const packed_aux *)a;
        if (a->free == packed_aux_free && a->gen == gen && k->off == off && k->oc == p->oc &&
            k->c == p->c && k->kh == p->kh && k->kw == p->kw)
            return k->data;
    }
    float *d = NULL;
    packed_aux *k = calloc(1, sizeof *k);
    if (!k || posix_memalign((void **)&d, 64, n * sizeof *d) != 0) {
        free(k);
        return NULL;
    }
    pack_weights(p, d);
    k->base.free = packed_aux_free;
    k->base.gen = gen;
    k->off = off;
    k->oc = p->oc;
    k->c = p->c;
    k->kh = p->kh;
    k->kw = p->kw;
    k->data = d;
    d2_storage_aux_push(st, &k->base);
    return d;
}

/* Whether AUTO mode takes this shape on nt threads rather than oneDNN 2.6. Measured on the
 * layers of resnet_small and mnist_cnn in NHWC, alternating with oneDNN in one process (time
 * oneDNN / time here; bench/conv_bench's NHWCd column, bench/kernel_ab for whole models):
 * - 1x1 convolutions: 1.1-1.7 at batch 1 and 32 (oneDNN's brgconv_1x1 spends most of a small
 *   call in its driver);
 * - first layers (fewer than 8 input channels): 1.03-1.34;
 * - other 3x3 layers with at most 1024 output pixels (batch 1 at 32x32 and below): 0.9-1.0 on
 *   one thread, 1.0-1.13 on two, where the rows split evenly; at batch 32 oneDNN is 2-10%
 *   ahead;
 * - 64 -> 64 channel 3x3 layers: oneDNN's Winograd form 1.7 ahead, its direct one 1.1. */
static bool auto_takes(const d2_conv_nhwc *p, int nt)
{
    if (p->kh == 1 && p->kw == 1)
        return true;
    if (p->c >= 64 && p->oc >= 64)
        return false;
    return p->c < 8 || (nt > 1 && p->n * p->oh * p->ow <= 1024);
}

int d2_conv_nhwc_f32(const d2_conv_nhwc *p, int nt, d2_err *err)
{
    d2_conv_nhwc_mode m = nhwc_mode();
    if (m == D2_CONV_NHWC_NEVER || !d2_conv_nhwc_available() || p->oc % 16 != 0 ||
        p->oc <= 0 || p->c <= 0 || p->kh <= 0 || p->kw <= 0 || p->sw <= 0 || p->sh <= 0 ||
        p->dh <= 0 || p->dw <= 0 || p->oh <= 0 || p->ow <= 0 || p->n <= 0)
        return 1;
    if (m == D2_CONV_NHWC_AUTO && !auto_takes(p, nt))
        return 1;
    const float *w = packed_weights(p);
    if (!w) {
        d2_err_set(err, D2_ERR_NOMEM, "conv2d: out of memory for packed weights");
        return -1;
    }
    cn_ctx cx = {.p = p, .w = w, .wp = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1};
    int64_t rows_read = (p->oh - 1) * p->sh + (p->kh - 1) * p->dh + 1;
    cx.direct = p->pt == 0 && p->pl == 0 && rows_read <= p->h && cx.wp <= p->w;
    /* chunks of output rows whose padded input rows take at most 64 KiB (or one row) */
    int64_t row_bytes = cx.wp * p->c * (int64_t)sizeof(float);
    cx.chunk = 1;
    while (cx.chunk < p->oh &&
           (cx.chunk * p->sh + (p->kh - 1) * p->dh + 1) * row_bytes <= 65536)
        cx.chunk++;
    /* a pass's weights (rows x kw x c x 64 channels at most) kept within 32 KiB of L1 */
    int64_t per_row = p->kw * p->c * (p->oc < 64 ? p->oc : 64) * (int64_t)sizeof(float);
    cx.rows_per_pass = per_row > 0 && 32768 / per_row >= 1 ? 32768 / per_row : 1;
    if (cx.rows_per_pass > p->kh)
        cx.rows_per_pass = p->kh;
    int64_t tasks = p->n * p->oh;
    size_t bufn = cx.direct ? 0
                            : (size_t)(((cx.chunk - 1) * p->sh + (p->kh - 1) * p->dh + 1) *
                                       cx.wp * p->c);
    size_t arn = cx.rows_per_pass < p->kh ? (size_t)(p->ow * p->oc) : 0;
    if (nt > tasks)
        nt = (int)tasks;
    int rc = 0;
#ifdef _OPENMP
    if (nt > 1) {
        atomic_int failed = 0;
#pragma omp parallel num_threads(nt)
        {
            int id = omp_get_thread_num(), k = omp_get_num_threads();
            float *buf = bufn + arn ? scratch_get(bufn + arn) : NULL;
            if (bufn + arn && !buf)
                atomic_store(&failed, 1);
            else
                run_tasks(&cx, buf, buf ? buf + bufn : NULL, tasks * id / k,
                          tasks * (id + 1) / k);
        }
        rc = atomic_load(&failed) ? -1 : 0;
    } else
#endif
    {
        float *buf = bufn + arn ? scratch_get(bufn + arn) : NULL;
        if (bufn + arn && !buf)
            rc = -1;
        else
            run_tasks(&cx, buf, buf ? buf + bufn : NULL, 0, tasks);
    }
    if (rc < 0) {
        d2_err_set(err, D2_ERR_NOMEM, "conv2d: out of memory for padded input rows");
        return -1;
    }
    atomic_fetch_add(&g_runs, 1);
    return 0;
}

#else /* not x86-64 with GCC's intrinsics: the callers' kernels run */

bool d2_conv_nhwc_available(void) { return false; }

int d2_conv_nhwc_f32(const d2_conv_nhwc *p, int nt, d2_err *err)
{
    (void)p;
    (void)nt;
    (void)err;
    (void)nhwc_mode;
    return 1;
}

#endif

/* tensor.c - dtypes, shapes, storage and tensor lifetime, tensor arrays, Paddle's text of a tensor. */
#include "tensor.h"

#include "backend.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtype_info[] = {
#define X(e, n, s) {n, s},
    D2_DTYPES(X)
#undef X
};

size_t d2_dtype_size(d2_dtype dt)
{
    return (unsigned)dt < D2_NUM_DTYPES ? dtype_info[dt].size : 0;
}

const char *d2_dtype_name(d2_dtype dt)
{
    return (unsigned)dt < D2_NUM_DTYPES ? dtype_info[dt].name : "invalid";
}

int d2_dtype_parse(const char *s, size_t len)
{
    static const struct {
        const char *alias;
        d2_dtype dt;
    } aliases[] = {{"f32", D2_F32},    {"float", D2_F32},  {"f64", D2_F64},   {"double", D2_F64},
                   {"i32", D2_I32},    {"int", D2_I64},    {"i64", D2_I64},   {"f16", D2_F16},
                   {"half", D2_F16},   {"bf16", D2_BF16},  {"bool_", D2_BOOL}, {"i8", D2_I8},
                   {"i16", D2_I16},    {"u8", D2_U8}};
    for (int i = 0; i < D2_NUM_DTYPES; i++)
        if (strlen(dtype_info[i].name) == len && memcmp(dtype_info[i].name, s, len) == 0)
            return i;
    for (size_t i = 0; i < D2_COUNTOF(aliases); i++)
        if (strlen(aliases[i].alias) == len && memcmp(aliases[i].alias, s, len) == 0)
            return (int)aliases[i].dt;
    return -1;
}

bool d2_dtype_is_float(d2_dtype dt)
{
    return dt == D2_F32 || dt == D2_F64 || dt == D2_F16 || dt == D2_BF16;
}

bool d2_dtype_is_int(d2_dtype dt) { return dt == D2_I32 || dt == D2_I64; }

bool d2_dtype_supported(d2_dtype dt) { return dt <= D2_BOOL; }

bool d2_dtype_is_small_int(d2_dtype dt) { return dt == D2_I8 || dt == D2_I16 || dt == D2_U8; }

double d2_elem_get(d2_dtype dt, const void *data, int64_t i)
{
    switch (dt) {
    case D2_F32: return ((const float *)data)[i];
    case D2_F64: return ((const double *)data)[i];
    case D2_I32: return ((const int32_t *)data)[i];
    case D2_I64: return (double)((const int64_t *)data)[i];
    case D2_BOOL: return ((const uint8_t *)data)[i] != 0;
    case D2_F16: return d2_f16_to_f32(((const uint16_t *)data)[i]);
    case D2_BF16: return d2_bf16_to_f32(((const uint16_t *)data)[i]);
    case D2_I8: return ((const int8_t *)data)[i];
    case D2_I16: return ((const int16_t *)data)[i];
    case D2_U8: return ((const uint8_t *)data)[i];
    default: return 0;
    }
}

static int64_t int_get(d2_dtype dt, const void *data, int64_t i)
{
    switch (dt) {
    case D2_I32: return ((const int32_t *)data)[i];
    case D2_I64: return ((const int64_t *)data)[i];
    case D2_BOOL: return ((const uint8_t *)data)[i] != 0;
    case D2_I8: return ((const int8_t *)data)[i];
    case D2_I16: return ((const int16_t *)data)[i];
    case D2_U8: return ((const uint8_t *)data)[i];
    default: return 0;
    }
}

/* Truncation toward zero as x86's cvtt* instructions do it: NaN and values
 * out of range give the most negative integer. */
static int64_t trunc_i32(double a)
{
    return (a >= -2147483648.0 && a < 2147483648.0) ? (int32_t)a : INT32_MIN;
}

static int64_t trunc_i64(double a)
{
    return (a >= -9223372036854775808.0 && a < 9223372036854775808.0) ? (int64_t)a : INT64_MIN;
}

/* float to float16 as Paddle's CPU float16 type converts (phi's float16.h
 * without F16C): the mantissa is truncated toward zero, subnormals too, and
 * values above 65504 become inf. */
static uint16_t f32_to_f16_cast(float f)
{
    enum { MAXC = 0x477FE000 >> 13, SUBC = 0x3FF, MAXD = 0x1C000, MIND = 0x1C000 };
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = u & 0x80000000u;
    uint32_t v = u ^ sign;
    if (v < 0x38800000u) { /* below the smallest normal: scale by 2^37 and truncate */
        float vf;
        memcpy(&vf, &v, sizeof vf);
        v = (uint32_t)(vf * 0x1p37f);
    } else if (v > 0x477FE000u && v < 0x7F800000u) {
        v = 0x7F800000u;
    } else if (v > 0x7F800000u && v < 0x7F802000u) {
        v = 0x7F802000u;
    }
    v >>= 13;
    if (v > MAXC)
        v -= MAXD;
    if (v > SUBC)
        v -= MIND;
    return (uint16_t)(v | (sign >> 16));
}

/* float to bfloat16 as Paddle's CPU bfloat16 type converts: the upper half
 * of the bits (truncation toward zero). */
static uint16_t f32_to_bf16_cast(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

void d2_convert(d2_dtype from, d2_dtype to, int64_t n, const void *src, void *dst)
{
    if (n <= 0)
        return;
    if (from == to) {
        memmove(dst, src, (size_t)n * d2_dtype_size(from));
        return;
    }
    bool ff = d2_dtype_is_float(from);
    for (int64_t i = 0; i < n; i++) {
        double d = ff ? d2_elem_get(from, src, i) : 0;
        int64_t v = ff ? 0 : int_get(from, src, i);
        switch (to) {
        case D2_F32: ((float *)dst)[i] = ff ? (float)d : (float)v; break;
        case D2_F64: ((double *)dst)[i] = ff ? d : (double)v; break;
        case D2_F16: ((uint16_t *)dst)[i] = f32_to_f16_cast(ff ? (float)d : (float)v); break;
        case D2_BF16: ((uint16_t *)dst)[i] = f32_to_bf16_cast(ff ? (float)d : (float)v); break;
        case D2_BOOL: ((uint8_t *)dst)[i] = ff ? d != 0 : v != 0; break;
        case D2_I64: ((int64_t *)dst)[i] = ff ? trunc_i64(d) : v; break;
        default: {
            /* the narrower integers keep the low bits (two's complement) */
            uint64_t u = (uint64_t)(ff ? trunc_i32(d) : v);
            switch (to) {
            case D2_I32: ((int32_t *)dst)[i] = (int32_t)(uint32_t)u; break;
            case D2_I16: ((int16_t *)dst)[i] = (int16_t)(uint16_t)u; break;
            case D2_I8: ((int8_t *)dst)[i] = (int8_t)(uint8_t)u; break;
            case D2_U8: ((uint8_t *)dst)[i] = (uint8_t)u; break;
            default: break;
            }
        }
        }
    }
}

/* ---- element conversions (half precision, Paddle's cast) ---- */

float d2_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Round to nearest even. */
uint16_t d2_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7c00);
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        if (ax < 0x33000000u)
            return sign;
        uint32_t e = ax >> 23, man = (ax & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e; /* 14..24 */
        uint32_t r = man >> shift, rem = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (r & 1)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((ax >> 13) - ((127 - 15) << 10));
    uint32_t rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
        r++;
    return (uint16_t)(sign | r);
}

float d2_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t d2_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}


bool d2_numel_checked(int ndim, const int64_t *dims, int64_t *n)
{
    int64_t r = 1;
    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0 || !d2_mul_i64(r, dims[i], &r))
            return false;
    *n = r;
    return true;
}

int64_t d2_shape_numel(const d2_shape *s)
{
    for (int i = 0; i < s->ndim; i++)
        if (s->dims[i] < 0)
            return -1;
    int64_t n;
    return d2_numel_checked(s->ndim, s->dims, &n) ? n : INT64_MAX;
}

static size_t max_tensor_bytes; /* 0: the default */

static size_t default_max_bytes(void)
{
    return SIZE_MAX > UINT32_MAX ? (size_t)1 << 40 : SIZE_MAX / 4;
}

size_t d2_tensor_max_bytes(void)
{
    size_t n = __atomic_load_n(&max_tensor_bytes, __ATOMIC_RELAXED);
    return n ? n : default_max_bytes();
}

void d2_tensor_set_max_bytes(size_t n) { __atomic_store_n(&max_tensor_bytes, n, __ATOMIC_RELAXED); }

/* Writes the exact decimal product es * dims[0] * ... into out (the product
 * may exceed every integer type: base-1e9 limbs, least significant first). */
static void product_str(size_t es, int ndim, const int64_t *dims, char *out, size_t n)
{
    uint32_t limb[64] = {(uint32_t)es};
    int nl = 1;
    for (int d = 0; d < ndim; d++) {
        unsigned __int128 carry = 0;
        for (int i = 0; i < nl; i++) {
            unsigned __int128 v = (unsigned __int128)limb[i] * (uint64_t)dims[d] + carry;
            limb[i] = (uint32_t)(v % 1000000000u);
            carry = v / 1000000000u;
        }
        while (carry && nl < (int)D2_COUNTOF(limb)) {
            limb[nl++] = (uint32_t)(carry % 1000000000u);
            carry /= 1000000000u;
        }
    }
    while (nl > 1 && limb[nl - 1] == 0)
        nl--;
    size_t off = (size_t)snprintf(out, n, "%u", (unsigned)limb[nl - 1]);
    for (int i = nl - 2; i >= 0 && off < n; i--)
        off += (size_t)snprintf(out + off, n - off, "%09u", (unsigned)limb[i]);
}

/* The error of d2_tensor_check_size, kept out of its hot path. */
static __attribute__((noinline, cold)) int size_error(d2_dtype dt, int ndim, const int64_t *shape,
                                                       d2_err *err)
{
    if (ndim < 0 || ndim > D2_MAX_DIMS)
        return d2_err_set(err, D2_ERR_SHAPE, "tensor rank %d exceeds the maximum of %d", ndim,
                          D2_MAX_DIMS);
    if ((unsigned)dt >= D2_NUM_DTYPES)
        return d2_err_set(err, D2_ERR_DTYPE, "invalid dtype %d", (int)dt);
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return d2_err_set(err, D2_ERR_SHAPE, "tensor dim %d is negative (%lld)", i,
                              (long long)shape[i]);
    char sh[D2_MAX_DIMS * 22 + 4], nb[200];
    size_t off = (size_t)snprintf(sh, sizeof sh, "[");
    for (int i = 0; i < ndim; i++)
        off += (size_t)snprintf(sh + off, sizeof sh - off, "%s%lld", i ? ", " : "",
                                (long long)shape[i]);
    snprintf(sh + off, sizeof sh - off, "]");
    bool empty = false;
    for (int i = 0; i < ndim; i++)
        empty = empty || shape[i] == 0;
    if (empty)
        return d2_err_set(err, D2_ERR_SHAPE,
                          "cannot make a %s tensor of shape %s: its strides overflow",
                          d2_dtype_name(dt), sh);
    product_str(d2_dtype_size(dt), ndim, shape, nb, sizeof nb);
    return d2_err_set(err, D2_ERR_NOMEM, "cannot allocate a %s tensor of shape %s: %s bytes",
                      d2_dtype_name(dt), sh, nb);
}

int d2_tensor_check_size(d2_dtype dt, int ndim, const int64_t *shape, d2_err *err)
{
    if ((unsigned)ndim > D2_MAX_DIMS || (unsigned)dt >= D2_NUM_DTYPES)
        return size_error(dt, ndim, shape, err);
    /* the strides are products of the nonzero dims, so those must fit too */
    int64_t numel = 1, span = 1;
    bool fits = true;
    for (int i = 0; i < ndim; i++) {
        int64_t d = shape[i];
        fits &= d >= 0 && d2_mul_i64(span, d ? d : 1, &span) && d2_mul_i64(numel, d, &numel);
    }
    size_t bytes = 0;
    if (fits && numel > 0)
        fits = (uint64_t)numel <= SIZE_MAX && d2_mul_size((size_t)numel, d2_dtype_size(dt), &bytes);
    if (__builtin_expect(fits, 1) && bytes <= d2_tensor_max_bytes())
        return 0;
    return size_error(dt, ndim, shape, err);
}

bool d2_shape_is_static(const d2_shape *s) { return d2_shape_numel(s) >= 0; }

bool d2_shape_equal(const d2_shape *a, const d2_shape *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

void d2_shape_str(const d2_shape *s, char *out, size_t n)
{
    size_t off = 0;
    off += (size_t)snprintf(out + off, n - off, "[");
    for (int i = 0; i < s->ndim && off < n; i++)
        off += (size_t)snprintf(out + off, n - off, "%s%lld", i ? "," : "", (long long)s->dims[i]);
    if (off < n)
        snprintf(out + off, n - off, "]");
}

void d2_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    /* saturates instead of overflowing; tensors never need that (see
     * d2_tensor_check_size) */
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = st;
        if (!d2_mul_i64(st, shape[i] > 0 ? shape[i] : 1, &st))
            st = INT64_MAX;
    }
}

/* ----------------------------------------------------------------------
 * Per-thread caches of freed tensor headers, storages and small CPU buffers
 *
 * Eager code creates and drops a few small tensors per op; going to malloc
 * for the header, the storage and the data each time was a fifth of a tiny
 * op's cost. Each thread keeps up to POOL_DEPTH freed blocks of each kind
 * (buffers in power-of-two size classes from 64 bytes to 4 KiB) and takes
 * from them before calling the allocator. The blocks are ordinary allocator
 * blocks, so one freed on another thread than the one that allocated it is
 * simply cached there; a thread's cache is freed when the thread exits.
 * With AddressSanitizer the caches are off, so that it still sees every
 * use after free.
 * ---------------------------------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ON 0
#else
#define POOL_ON 1
#endif
#define POOL_CLASSES 7 /* 64 << c bytes */
#define POOL_DEPTH 64

typedef struct {
    void *hdr[POOL_DEPTH], *sto[POOL_DEPTH], *buf[POOL_CLASSES][POOL_DEPTH];
    int nhdr, nsto, nbuf[POOL_CLASSES];
    bool registered, dead;
} tensor_cache;

static _Thread_local tensor_cache tcache;
static pthread_key_t tcache_key;
static pthread_once_t tcache_once = PTHREAD_ONCE_INIT;
static bool tcache_key_ok;

static void tcache_drain(tensor_cache *c)
{
    for (int i = 0; i < c->nhdr; i++)
        d2_free(c->hdr[i]);
    for (int i = 0; i < c->nsto; i++)
        d2_free(c->sto[i]);
    for (int k = 0; k < POOL_CLASSES; k++)
        for (int i = 0; i < c->nbuf[k]; i++)
            d2_cpu_backend()->free(d2_cpu_backend(), c->buf[k][i]);
    c->nhdr = c->nsto = 0;
    memset(c->nbuf, 0, sizeof c->nbuf);
}

static void tcache_thread_exit(void *p)
{
    tensor_cache *c = p;
    tcache_drain(c);
    c->dead = true; /* frees after this (other destructors) go to the allocator */
}

static void tcache_make_key(void) { tcache_key_ok = pthread_key_create(&tcache_key, tcache_thread_exit) == 0; }

/* This thread's cache, or NULL where caching is off or the thread is exiting. */
static tensor_cache *tcache_get(void)
{
    if (!POOL_ON)
        return NULL;
    tensor_cache *c = &tcache;
    if (__builtin_expect(!c->registered, 0)) {
        if (c->dead)
            return NULL;
        pthread_once(&tcache_once, tcache_make_key);
        if (!tcache_key_ok || pthread_setspecific(tcache_key, c) != 0)
            return NULL;
        c->registered = true;
    }
    return c->dead ? NULL : c;
}

void d2_tensor_pool_trim(void)
{
    if (POOL_ON && tcache.registered)
        tcache_drain(&tcache);
}

/* Size class of a CPU buffer of n bytes, or -1 (too large to cache). */
static int buf_class(size_t n)
{
    if (n > ((size_t)64 << (POOL_CLASSES - 1)))
        return -1;
    int c = 0;
    while (((size_t)64 << c) < n)
        c++;
    return c;
}

static void *pool_header(void)
{
    tensor_cache *c = tcache_get();
    if (c && c->nhdr && !d2_alloc_faults_armed()) {
        d2_tensor *t = c->hdr[--c->nhdr];
        memset(t, 0, sizeof *t);
        return t;
    }
    return d2_calloc(1, sizeof(d2_tensor));
}

static void unpool_header(d2_tensor *t)
{
    tensor_cache *c = tcache_get();
    if (c && c->nhdr < POOL_DEPTH)
        c->hdr[c->nhdr++] = t;
    else
        d2_free(t);
}

static d2_storage *pool_storage(void)
{
    tensor_cache *c = tcache_get();
    if (c && c->nsto && !d2_alloc_faults_armed()) {
        d2_storage *s = c->sto[--c->nsto];
        memset(s, 0, sizeof *s);
        return s;
    }
    return d2_calloc(1, sizeof(d2_storage));
}

/* Whether the caller holds the only reference to a count: then no other thread can reach the
 * object to take or drop one, so the count is dropped without a locked instruction (most
 * values an executor run makes die with one reference). The acquire load orders the caller's
 * frees after the other threads' earlier drops, as the decrement's acquire would. */
static inline bool sole_ref(long *count)
{
    return __atomic_load_n(count, __ATOMIC_ACQUIRE) == 1;
}

static void storage_unref(d2_storage *s)
{
    if (!s)
        return;
    if (!sole_ref(&s->refcount) && __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (d2_storage_aux *a = s->aux, *next; a; a = next) {
        next = a->next;
        a->free(a);
    }
    tensor_cache *c = tcache_get();
    if (s->release) {
        s->release(s->release_ctx, s->data);
    } else if (s->data) {
        int k = s->pool_class - 1;
        if (k >= 0 && c && c->nbuf[k] < POOL_DEPTH)
            c->buf[k][c->nbuf[k]++] = s->data;
        else
            s->backend->free(s->backend, s->data);
    }
    if (c && c->nsto < POOL_DEPTH)
        c->sto[c->nsto++] = s;
    else
        d2_free(s);
}

static d2_tensor *tensor_alloc_header(d2_dtype dt, int ndim, const int64_t *shape, d2_err *err)
{
    if (d2_tensor_check_size(dt, ndim, shape, err) < 0)
        return NULL;
    d2_tensor *t = pool_header();
    if (!t) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating a tensor");
        return NULL;
    }
    t->refcount = 1;
    t->kind = D2_VALUE_TENSOR;
    t->dtype = dt;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    d2_contiguous_strides(ndim, shape, t->strides);
    return t;
}

d2_tensor *d2_tensor_new(d2_backend *be, d2_dtype dt, int ndim, const int64_t *shape, d2_err *err)
{
    if (!be)
        be = d2_cpu_backend();
    d2_tensor *t = tensor_alloc_header(dt, ndim, shape, err);
    if (!t)
        return NULL;
    /* checked by tensor_alloc_header: n * es fits the byte cap */
    int64_t n = d2_tensor_numel(t);
    size_t es = d2_dtype_size(dt);
    d2_storage *s = pool_storage();
    if (!s) {
        unpool_header(t);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating a tensor");
        return NULL;
    }
    s->refcount = 1;
    s->backend = be;
    s->nbytes = (size_t)n * es;
    size_t want = s->nbytes ? s->nbytes : es;
    int k = be == d2_cpu_backend() ? buf_class(want) : -1;
    if (k >= 0) {
        tensor_cache *c = tcache_get();
        if (c && c->nbuf[k] && !d2_alloc_faults_armed())
            s->data = c->buf[k][--c->nbuf[k]];
        else
            s->data = be->alloc(be, (size_t)64 << k, err);
        s->pool_class = s->data ? k + 1 : 0;
    } else {
        s->data = be->alloc(be, want, err);
    }
    if (!s->data) {
        storage_unref(s);
        unpool_header(t);
        return NULL;
    }
    t->storage = s;
    return t;
}

d2_tensor *d2_tensor_new_over(d2_backend *be, d2_dtype dt, int ndim, const int64_t *shape,
                              void *data, void (*release)(void *ctx, void *data), void *ctx,
                              d2_err *err)
{
    if (!be)
        be = d2_cpu_backend();
    d2_tensor *t = tensor_alloc_header(dt, ndim, shape, err);
    if (!t)
        return NULL;
    d2_storage *s = pool_storage();
    if (!s) {
        unpool_header(t);
        d2_err_set(err, D2_ERR_NOMEM, "out of memory allocating a tensor");
        return NULL;
    }
    s->refcount = 1;
    s->backend = be;
    s->nbytes = (size_t)d2_tensor_numel(t) * d2_dtype_size(dt);
    s->data = data;
    s->release = release;
    s->release_ctx = ctx;
    t->storage = s;
    return t;
}

d2_tensor *d2_tensor_zeros(d2_dtype dt, int ndim, const int64_t *shape, d2_err *err)
{
    d2_tensor *t = d2_tensor_new(NULL, dt, ndim, shape, err);
    if (t)
        memset(t->storage->data, 0, t->storage->nbytes);
    return t;
}

d2_tensor *d2_tensor_from_data(d2_dtype dt, int ndim, const int64_t *shape, const void *data,
                               d2_err *err)
{
    d2_tensor *t = d2_tensor_new(NULL, dt, ndim, shape, err);
    if (t && t->storage->nbytes)
        memcpy(t->storage->data, data, t->storage->nbytes);
    return t;
}

d2_tensor *d2_tensor_scalar_f32(float v, d2_err *err)
{
    return d2_tensor_from_data(D2_F32, 0, NULL, &v, err);
}

d2_tensor *d2_tensor_scalar_i64(int64_t v, d2_err *err)
{
    return d2_tensor_from_data(D2_I64, 0, NULL, &v, err);
}

d2_tensor *d2_tensor_scalar_bool(bool v, d2_err *err)
{
    uint8_t b = v;
    return d2_tensor_from_data(D2_BOOL, 0, NULL, &b, err);
}

d2_tensor *d2_tensor_reshape_view(d2_tensor *t, int ndim, const int64_t *shape, d2_err *err)
{
    if (!d2_tensor_is_contiguous(t)) {
        d2_err_set(err, D2_ERR_INVALID, "reshape view of a non-contiguous tensor");
        return NULL;
    }
    d2_tensor *v = tensor_alloc_header(t->dtype, ndim, shape, err);
    if (!v)
        return NULL;
    int64_t nv = d2_tensor_numel(v);
    if (nv != d2_tensor_numel(t)) {
        d2_free(v);
        d2_err_set(err, D2_ERR_SHAPE, "cannot view %lld elements as %lld",
                   (long long)d2_tensor_numel(t), (long long)nv);
        return NULL;
    }
    v->storage = t->storage;
    v->offset = t->offset;
    if (v->storage)
        __atomic_add_fetch(&v->storage->refcount, 1, __ATOMIC_RELAXED);
    return v;
}

/* Copies a strided CPU tensor into contiguous dst (same dtype). */
static void strided_copy(const d2_tensor *src, char *dst)
{
    size_t es = d2_dtype_size(src->dtype);
    int64_t n = d2_tensor_numel(src);
    int64_t idx[D2_MAX_DIMS] = {0};
    const char *base = (const char *)src->storage->data;
    for (int64_t k = 0; k < n; k++) {
        int64_t off = src->offset;
        for (int d = 0; d < src->ndim; d++)
            off += idx[d] * src->strides[d];
        memcpy(dst + (size_t)k * es, base + (size_t)off * es, es);
        for (int d = src->ndim - 1; d >= 0; d--) {
            if (++idx[d] < src->shape[d])
                break;
            idx[d] = 0;
        }
    }
}

d2_tensor *d2_tensor_contiguous(d2_tensor *t, d2_err *err)
{
    if (t->kind != D2_VALUE_TENSOR || d2_tensor_is_contiguous(t))
        return d2_tensor_ref(t);
    return d2_tensor_copy_to(t, t->storage ? t->storage->backend : NULL, err);
}

d2_tensor *d2_tensor_copy_to(d2_tensor *t, d2_backend *be, d2_err *err)
{
    if (!be)
        be = d2_cpu_backend();
    if (t->kind == D2_VALUE_ARRAY) {
        d2_tensor *a = d2_tensor_array_new(t->dtype, err);
        if (!a)
            return NULL;
        for (int64_t i = 0; i < t->array_len; i++) {
            d2_tensor *c = d2_tensor_copy_to(t->items[i], be, err);
            if (!c || d2_tensor_array_set(a, i, c, err) < 0) {
                d2_tensor_unref(c);
                d2_tensor_unref(a);
                return NULL;
            }
            d2_tensor_unref(c);
        }
        return a;
    }
    d2_tensor *r = d2_tensor_new(be, t->dtype, t->ndim, t->shape, err);
    if (!r)
        return NULL;
    size_t nbytes = r->storage->nbytes;
    if (nbytes == 0)
        return r;
    d2_backend *sb = t->storage->backend;
    size_t es = d2_dtype_size(t->dtype);
    int rc = 0;
    if (sb->kind == D2_BACKEND_CPU && be->kind == D2_BACKEND_CPU) {
        if (d2_tensor_is_contiguous(t))
            memcpy(r->storage->data, (char *)t->storage->data + t->offset * es, nbytes);
        else
            strided_copy(t, r->storage->data);
    } else if (!d2_tensor_is_contiguous(t)) {
        rc = d2_err_set(err, D2_ERR_UNSUPPORTED, "strided copy across backends");
    } else if (sb == be) {
        rc = be->copy(be, r->storage->data, 0, t->storage->data, (size_t)t->offset * es, nbytes,
                      err);
    } else if (sb->kind == D2_BACKEND_CPU) {
        rc = be->upload(be, r->storage->data, 0, (char *)t->storage->data + t->offset * es, nbytes,
                        err);
    } else if (be->kind == D2_BACKEND_CPU) {
        rc = sb->download(sb, r->storage->data, t->storage->data, (size_t)t->offset * es, nbytes,
                          err);
    } else {
        rc = d2_err_set(err, D2_ERR_UNSUPPORTED, "copy between two device backends");
    }
    if (rc < 0) {
        d2_tensor_unref(r);
        return NULL;
    }
    return r;
}

d2_tensor *d2_tensor_array_new(d2_dtype dt, d2_err *err)
{
    d2_tensor *t = tensor_alloc_header(dt, 0, NULL, err);
    if (t)
        t->kind = D2_VALUE_ARRAY;
    return t;
}

int d2_tensor_array_set(d2_tensor *arr, int64_t i, d2_tensor *x, d2_err *err)
{
    if (arr->kind != D2_VALUE_ARRAY)
        return d2_err_set(err, D2_ERR_INVALID, "not a tensor array");
    if (x->dtype != arr->dtype)
        return d2_err_set(err, D2_ERR_DTYPE, "tensor array of %s cannot hold a %s tensor",
                          d2_dtype_name(arr->dtype), d2_dtype_name(x->dtype));
    if (i < 0 || i > arr->array_len)
        return d2_err_set(err, D2_ERR_RUNTIME,
                          "tensor array index %lld out of range (length %lld)", (long long)i,
                          (long long)arr->array_len);
    if (i == arr->array_len) {
        if (arr->array_len == arr->array_cap) {
            int64_t cap = 8;
            size_t nb = 0;
            d2_tensor **it = NULL;
            if ((!arr->array_cap || d2_mul_i64(arr->array_cap, 2, &cap)) &&
                (uint64_t)cap <= SIZE_MAX && d2_mul_size((size_t)cap, sizeof *it, &nb))
                it = d2_realloc(arr->items, nb);
            if (!it)
                return d2_err_set(err, D2_ERR_NOMEM, "out of memory growing a tensor array");
            arr->items = it;
            arr->array_cap = cap;
        }
        arr->items[arr->array_len++] = d2_tensor_ref(x);
    } else {
        d2_tensor *old = arr->items[i];
        arr->items[i] = d2_tensor_ref(x);
        d2_tensor_unref(old);
    }
    return 0;
}

void d2_tensor_set_const(d2_tensor *t)
{
    static uint64_t next_gen = 1;
    if (t && t->kind == D2_VALUE_TENSOR && t->storage)
        __atomic_store_n(&t->storage->const_gen,
                         __atomic_fetch_add(&next_gen, 1, __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

void d2_tensor_clear_const(d2_tensor *t)
{
    if (t && t->kind == D2_VALUE_TENSOR && t->storage)
        __atomic_store_n(&t->storage->const_gen, 0, __ATOMIC_RELEASE);
}

uint64_t d2_tensor_const_gen(const d2_tensor *t)
{
    if (!t || t->kind != D2_VALUE_TENSOR || !t->storage)
        return 0;
    return __atomic_load_n(&t->storage->const_gen, __ATOMIC_ACQUIRE);
}

d2_storage_aux *d2_storage_aux_first(const d2_storage *s)
{
    return s ? __atomic_load_n(&s->aux, __ATOMIC_ACQUIRE) : NULL;
}

void d2_storage_aux_push(d2_storage *s, d2_storage_aux *a)
{
    a->next = __atomic_load_n(&s->aux, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&s->aux, &a->next, a, true, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}

d2_tensor *d2_tensor_ref(d2_tensor *t)
{
    if (t)
        __atomic_add_fetch(&t->refcount, 1, __ATOMIC_RELAXED);
    return t;
}

void d2_tensor_unref(d2_tensor *t)
{
    if (!t)
        return;
    if (!sole_ref(&t->refcount) && __atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (int64_t i = 0; i < t->array_len; i++)
        d2_tensor_unref(t->items[i]);
    d2_free(t->items);
    storage_unref(t->storage);
    unpool_header(t);
}

int64_t d2_tensor_numel(const d2_tensor *t)
{
    /* fits: every tensor passed d2_tensor_check_size */
    int64_t n;
    return d2_numel_checked(t->ndim, t->shape, &n) ? n : INT64_MAX;
}

bool d2_tensor_is_contiguous(const d2_tensor *t)
{
    /* an empty tensor has no element out of place, whatever its strides */
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] == 0)
            return true;
    int64_t st = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->strides[i] != st)
            return false;
        if (!d2_mul_i64(st, t->shape[i], &st))
            return false;
    }
    return true;
}

void d2_tensor_get_shape(const d2_tensor *t, d2_shape *s)
{
    s->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        s->dims[i] = t->shape[i];
}

void *d2_tensor_data(const d2_tensor *t)
{
    if (!t->storage)
        return NULL;
    return (char *)t->storage->data + (size_t)t->offset * d2_dtype_size(t->dtype);
}

double d2_tensor_get_f64(const d2_tensor *t, int64_t i)
{
    return d2_elem_get(t->dtype, d2_tensor_data(t), i);
}

int64_t d2_tensor_get_i64(const d2_tensor *t, int64_t i)
{
    const void *p = d2_tensor_data(t);
    switch (t->dtype) {
    case D2_I64: return ((const int64_t *)p)[i];
    case D2_F32:
    case D2_F64:
    case D2_F16:
    case D2_BF16: return (int64_t)d2_elem_get(t->dtype, p, i);
    default: return (unsigned)t->dtype < D2_NUM_DTYPES ? int_get(t->dtype, p, i) : 0;
    }
}

/* ---- printing tensors the way Paddle does (paddle/tensor/to_string.py) ---- */

enum { PD_PRECISION = 8, PD_THRESHOLD = 1000, PD_EDGE = 3, PD_LINEWIDTH = 80 };

/* One element without padding (_format_item with max_width 0). */
static void pd_item(d2_buf *b, const d2_tensor *t, int64_t i)
{
    if (d2_dtype_is_float(t->dtype)) {
        double v = d2_tensor_get_f64(t, i);
        if (isnan(v))
            d2_buf_puts(b, "nan");
        else if (ceil(v) == v)
            d2_buf_printf(b, "%.0f.", v);
        else
            d2_buf_printf(b, "%.*f", PD_PRECISION, v);
    } else if (t->dtype == D2_BOOL) {
        d2_buf_puts(b, d2_tensor_get_i64(t, i) ? "True" : "False");
    } else {
        d2_buf_printf(b, "%" PRId64, d2_tensor_get_i64(t, i));
    }
}

static int pd_item_width(const d2_tensor *t, int64_t i)
{
    d2_buf b;
    d2_buf_init(&b);
    pd_item(&b, t, i);
    int w = (int)b.len;
    d2_buf_free(&b);
    return w;
}

static void pd_item_padded(d2_buf *b, const d2_tensor *t, int64_t i, int maxw, bool sgn)
{
    size_t start = b->len;
    pd_item(b, t, i);
    int len = (int)(b->len - start);
    if (maxw <= len)
        return;
    bool neg = d2_tensor_get_f64(t, i) < 0;
    if (sgn && !neg) {
        /* ' ' + item.ljust(maxw - 1) */
        d2_buf_puts(b, " ");
        memmove(b->data + start + 1, b->data + start, (size_t)len);
        b->data[start] = ' ';
        len++;
    }
    for (; len < maxw; len++)
        d2_buf_puts(b, " ");
}

/* Visits the elements _to_summary keeps (the first and last PD_EDGE along
 * every dim longer than 2 * PD_EDGE) to find the widest item and a sign. */
static void pd_width_rec(const d2_tensor *t, int dim, int64_t off, int *maxw, bool *sgn)
{
    if (dim == t->ndim) {
        int w = pd_item_width(t, off);
        if (w > *maxw)
            *maxw = w;
        if (t->dtype != D2_BOOL && d2_tensor_get_f64(t, off) < 0)
            *sgn = true;
        return;
    }
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    for (int64_t k = 0; k < n; k++) {
        if (n > 2 * PD_EDGE && k == PD_EDGE)
            k = n - PD_EDGE;
        pd_width_rec(t, dim + 1, off + k * stride, maxw, sgn);
    }
}

static void pd_format_rec(d2_buf *b, const d2_tensor *t, int dim, int64_t off, bool summary,
                          int indent, int maxw, bool sgn)
{
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    bool last = dim == t->ndim - 1;
    int per_line = (PD_LINEWIDTH - indent) / (maxw + 2);
    if (per_line < 1)
        per_line = 1;
    d2_buf_puts(b, "[");
    int64_t cnt = 0; /* entries written, "..." included */
    for (int64_t k = 0; k < n; k++, cnt++) {
        bool dots = summary && n > 2 * PD_EDGE && k == PD_EDGE;
        if (cnt > 0) {
            if (last && cnt % per_line != 0) {
                d2_buf_puts(b, ", ");
            } else {
                d2_buf_puts(b, ",");
                for (int s = 0; s < (last ? 1 : t->ndim - dim - 1); s++)
                    d2_buf_puts(b, "\n");
                for (int s = 0; s < indent + 1; s++)
                    d2_buf_puts(b, " ");
            }
        }
        if (dots) {
            d2_buf_puts(b, "...");
            k = n - PD_EDGE - 1;
            continue;
        }
        if (last)
            pd_item_padded(b, t, off + k * stride, maxw, sgn);
        else
            pd_format_rec(b, t, dim + 1, off + k * stride, summary, indent + 1, maxw, sgn);
    }
    d2_buf_puts(b, "]");
}

void d2_tensor_paddle_text(d2_buf *b, const d2_tensor *h, bool stop_gradient)
{
    d2_buf_puts(b, "Tensor(shape=[");
    for (int i = 0; i < h->ndim; i++)
        d2_buf_printf(b, "%s%" PRId64, i ? ", " : "", h->shape[i]);
    d2_buf_printf(b, "], dtype=%s, place=Place(cpu), stop_gradient=%s,\n       ",
                  d2_dtype_name(h->dtype), stop_gradient ? "True" : "False");
    int64_t n = d2_tensor_numel(h);
    int maxw = 0;
    bool sgn = false;
    if (n > 0)
        pd_width_rec(h, 0, 0, &maxw, &sgn);
    if (h->ndim == 0)
        pd_item_padded(b, h, 0, maxw, sgn);
    else
        pd_format_rec(b, h, 0, 0, n > PD_THRESHOLD, 7, maxw, sgn);
    d2_buf_puts(b, ")");
}

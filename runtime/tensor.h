/* tensor.h - dtypes, shapes, reference-counted storage and tensors (also tensor arrays). */
#ifndef DY2ST_TENSOR_H
#define DY2ST_TENSOR_H

#include "base.h"

#include <stdio.h>

#define D2_MAX_DIMS 8

/* X(enum, name, size). The enum value is the dtype code of the model file
 * format, so new dtypes are appended. float16, bfloat16, int8, int16 and
 * uint8 are storage dtypes: they are created, cast, printed, loaded and
 * saved, and compute ops refuse them. */
#define D2_DTYPES(X)                                                                  \
    X(D2_F32, "float32", 4)                                                           \
    X(D2_F64, "float64", 8)                                                           \
    X(D2_I32, "int32", 4)                                                             \
    X(D2_I64, "int64", 8)                                                             \
    X(D2_BOOL, "bool", 1)                                                             \
    X(D2_F16, "float16", 2)                                                           \
    X(D2_BF16, "bfloat16", 2)                                                         \
    X(D2_I8, "int8", 1)                                                               \
    X(D2_I16, "int16", 2)                                                             \
    X(D2_U8, "uint8", 1)

typedef enum {
#define X(e, n, s) e,
    D2_DTYPES(X)
#undef X
        D2_NUM_DTYPES
} d2_dtype;

size_t d2_dtype_size(d2_dtype dt);
/* Paddle's name ("float32"); short text-form name is the same. */
const char *d2_dtype_name(d2_dtype dt);
/* Accepts "float32", "f32", "int64", "i64", "bool", "float" (=float32), ...
 * Returns -1 when unknown. */
int d2_dtype_parse(const char *s, size_t len);
bool d2_dtype_is_float(d2_dtype dt);
bool d2_dtype_is_int(d2_dtype dt);
/* True for dtypes with CPU kernels (f32, f64, i32, i64, bool). */
bool d2_dtype_supported(d2_dtype dt);
/* True for int8, int16 and uint8 (storage-only integer dtypes). */
bool d2_dtype_is_small_int(d2_dtype dt);

/* IEEE half and bfloat16 conversions; float to 16 bits rounds to nearest
 * even, overflows to inf and keeps NaN a (quiet) NaN. */
float d2_f16_to_f32(uint16_t h);
uint16_t d2_f32_to_f16(float f);
float d2_bf16_to_f32(uint16_t h);
uint16_t d2_f32_to_bf16(float f);
/* Element i of data (dtype dt) as a double; 0 for an invalid dtype. */
double d2_elem_get(d2_dtype dt, const void *data, int64_t i);
/* Converts n elements from one dtype to another with Paddle's CPU cast
 * semantics: float to integer truncates toward zero through int32 for the
 * 8/16/32-bit integers (out of range and NaN give INT32_MIN, whose low bits
 * are kept) and through int64 for int64; narrower integers wrap; float16 and
 * bfloat16 truncate toward zero as Paddle's CPU types do (float16 above 65504
 * is inf; d2_f32_to_f16 is NumPy's rounding instead); bool is x != 0. Same
 * dtype copies. */
void d2_convert(d2_dtype from, d2_dtype to, int64_t n, const void *src, void *dst);

/* A shape as used in Programs: dims may be -1 (unknown until run time). */
typedef struct d2_shape {
    int ndim;
    int64_t dims[D2_MAX_DIMS];
} d2_shape;

/* Number of elements, or -1 when a dim is dynamic; INT64_MAX when the count
 * overflows (no tensor or verified Program has such a shape). */
int64_t d2_shape_numel(const d2_shape *s);
/* Checked element count of ndim dims: false when a dim is negative or the
 * count overflows int64. */
bool d2_numel_checked(int ndim, const int64_t *dims, int64_t *n);
/* 0 when a tensor of dtype dt and this shape can exist: no dim is negative,
 * the element count and the strides fit int64 (else D2_ERR_SHAPE), and the
 * byte size is at most d2_tensor_max_bytes() (else D2_ERR_NOMEM, "cannot
 * allocate a float32 tensor of shape [..]: N bytes"). -1 otherwise. */
int d2_tensor_check_size(d2_dtype dt, int ndim, const int64_t *shape, d2_err *err);
/* The byte size above which no tensor is created, views included (default:
 * 1 TiB on 64-bit hosts, a quarter of the address space on smaller ones).
 * d2_tensor_set_max_bytes(0) restores the default. Process-wide. */
size_t d2_tensor_max_bytes(void);
void d2_tensor_set_max_bytes(size_t n);
bool d2_shape_is_static(const d2_shape *s);
bool d2_shape_equal(const d2_shape *a, const d2_shape *b);
/* Writes "[2,-1,3]" into out (at least 128 bytes). */
void d2_shape_str(const d2_shape *s, char *out, size_t n);

struct d2_backend;

/* A node of data derived from a constant storage's bytes (oneDNN's reordered weights),
 * embedded at the start of its owner's struct and freed with the storage by `free`; gen: the
 * storage's constant generation the bytes were read under (valid while it is the same). */
typedef struct d2_storage_aux {
    struct d2_storage_aux *next;
    void (*free)(struct d2_storage_aux *a);
    uint64_t gen;
} d2_storage_aux;

/* Storage: a reference-counted buffer owned by a backend. `release` (when set)
 * is called instead of the backend's free, e.g. for memory-mapped parameters. */
typedef struct d2_storage {
    long refcount; /* updated with __atomic builtins only */
    struct d2_backend *backend;
    void *data; /* host pointer (CPU) or backend handle (OpenCL) */
    size_t nbytes;
    void (*release)(void *ctx, void *data);
    void *release_ctx;
    int pool_class; /* 1 + size class of a cached CPU buffer (tensor.c); 0: not cached */
    /* Nonzero while the bytes are not written: a process-unique number set by
     * d2_tensor_set_const, 0 again after d2_tensor_clear_const (both __atomic). Caches derived
     * from the bytes (aux, a list pushed to with __atomic and freed with the storage) are
     * valid while the generation they were made under is the current one. */
    uint64_t const_gen;
    d2_storage_aux *aux;
} d2_storage;

typedef enum { D2_VALUE_TENSOR = 0, D2_VALUE_ARRAY = 1 } d2_value_kind;

/* A tensor: a strided view of a storage, or (kind == D2_VALUE_ARRAY) a tensor
 * array, a growable list of tensors of one dtype used for Python lists grown
 * inside loops. Tensors are reference counted; d2_tensor_unref frees at zero.
 * Strides and offset are in elements. A tensor with numel 0 may have no storage. */
typedef struct d2_tensor {
    long refcount; /* updated with __atomic builtins only */
    d2_value_kind kind;
    d2_dtype dtype;
    int ndim;
    int64_t shape[D2_MAX_DIMS];
    int64_t strides[D2_MAX_DIMS];
    int64_t offset;
    d2_storage *storage;
    /* tensor arrays only */
    int64_t array_len, array_cap;
    struct d2_tensor **items;
} d2_tensor;

/* Constant tensors. d2_tensor_set_const promises that t's storage is not written from now on
 * and gives it a new constant generation: only for storages that nobody can write, such as a
 * loaded model's parameters (the C API gives no writable access to them, the executor never
 * writes into a parameter and in-place execution takes only values held once). Whoever writes
 * into such a storage anyway calls d2_tensor_clear_const first; a later d2_tensor_set_const
 * starts a new generation, so caches made under the old one are no longer used. */
void d2_tensor_set_const(d2_tensor *t);
void d2_tensor_clear_const(d2_tensor *t);
/* t's storage's constant generation; 0 when it is not constant. */
uint64_t d2_tensor_const_gen(const d2_tensor *t);
/* The first derived node of a storage (NULL: none; the caller checks each node's gen), and
 * pushing one (thread-safe; the storage then owns a and frees it with itself). */
d2_storage_aux *d2_storage_aux_first(const d2_storage *s);
void d2_storage_aux_push(d2_storage *s, d2_storage_aux *a);

/* Frees the calling thread's cache of freed tensor headers, storages and
 * small buffers (each thread's is freed when it exits). */
void d2_tensor_pool_trim(void);

/* The backend every CPU tensor lives on. */
struct d2_backend *d2_cpu_backend(void);

/* New contiguous tensor on backend `be` (NULL = CPU), data uninitialised. */
d2_tensor *d2_tensor_new(struct d2_backend *be, d2_dtype dt, int ndim, const int64_t *shape,
                         d2_err *err);
/* New contiguous tensor on backend be (NULL = CPU) over `data`, a buffer of
 * at least its byte size; release(ctx, data) is called instead of the
 * backend's free when the storage's last reference goes. On failure (NULL,
 * err set) the caller still owns data. */
d2_tensor *d2_tensor_new_over(struct d2_backend *be, d2_dtype dt, int ndim,
                              const int64_t *shape, void *data,
                              void (*release)(void *ctx, void *data), void *ctx, d2_err *err);
/* New contiguous CPU tensor filled with zeros. */
d2_tensor *d2_tensor_zeros(d2_dtype dt, int ndim, const int64_t *shape, d2_err *err);
/* New CPU tensor copying `data` (contiguous, numel elements of dt). */
d2_tensor *d2_tensor_from_data(d2_dtype dt, int ndim, const int64_t *shape, const void *data,
                               d2_err *err);
/* 0-d CPU tensors. */
d2_tensor *d2_tensor_scalar_f32(float v, d2_err *err);
d2_tensor *d2_tensor_scalar_i64(int64_t v, d2_err *err);
d2_tensor *d2_tensor_scalar_bool(bool v, d2_err *err);
/* A view sharing t's storage with a new shape (t must be contiguous). */
d2_tensor *d2_tensor_reshape_view(d2_tensor *t, int ndim, const int64_t *shape, d2_err *err);
/* Returns t with a new reference if contiguous, else a contiguous copy. */
d2_tensor *d2_tensor_contiguous(d2_tensor *t, d2_err *err);
/* Deep copy (contiguous) onto backend be (NULL = CPU). */
d2_tensor *d2_tensor_copy_to(d2_tensor *t, struct d2_backend *be, d2_err *err);
/* Empty tensor array of element dtype dt. */
d2_tensor *d2_tensor_array_new(d2_dtype dt, d2_err *err);
/* Appends or sets item i (i == len appends; i < len replaces). Takes a new ref on x. */
int d2_tensor_array_set(d2_tensor *arr, int64_t i, d2_tensor *x, d2_err *err);

d2_tensor *d2_tensor_ref(d2_tensor *t);
void d2_tensor_unref(d2_tensor *t);

int64_t d2_tensor_numel(const d2_tensor *t);
bool d2_tensor_is_contiguous(const d2_tensor *t);
void d2_tensor_get_shape(const d2_tensor *t, d2_shape *s);
/* Host pointer to element [offset] (CPU tensors only). */
void *d2_tensor_data(const d2_tensor *t);
/* Reads element i of a contiguous CPU tensor as double / int64. */
double d2_tensor_get_f64(const d2_tensor *t, int64_t i);
int64_t d2_tensor_get_i64(const d2_tensor *t, int64_t i);
/* Paddle's text of a contiguous CPU tensor, as print(tensor) shows it:
 * "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [1., 2.])". */
void d2_tensor_paddle_text(d2_buf *b, const d2_tensor *host, bool stop_gradient);
/* Where print ops of this thread write (NULL: stdout); returns the previous stream. */
FILE *d2_print_stream_set(FILE *f);
/* Computes contiguous strides for shape into strides. */
void d2_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);

#endif

/* base.h - allocation, error context and small helpers shared by every module. */
#ifndef DY2ST_BASE_H
#define DY2ST_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef DY2ST_DEBUG
#include <assert.h>
#define D2_ASSERT(c) assert(c)
#else
#define D2_ASSERT(c) ((void)0)
#endif

#define D2_UNUSED(x) ((void)(x))
#define D2_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* D2_SIMD: marks a hot float loop to be compiled once per x86-64 level (AVX-512, AVX2 + FMA,
 * baseline) with the best picked at load time, vectorised as at -O3; the library itself is
 * built for the baseline. Results do not depend on the clone: ISO C mode keeps
 * -ffp-contract=off and no reduction is reassociated. */
/* Not under the sanitizers: a clone is chosen by an ifunc resolver, which the dynamic loader
 * runs before the sanitizer runtime is set up, and the resolver's instrumented code crashes. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&        \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define D2_SIMD                                                                                    \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("O3")))
#else
#define D2_SIMD
#endif

/* All allocation goes through these, so tests can inject out-of-memory:
 * d2_alloc_fail_after(k) makes the k-th following allocation fail (k >= 0);
 * d2_alloc_fail_after(-1) turns injection off. */
void *d2_malloc(size_t n);
void *d2_calloc(size_t count, size_t size);
void *d2_realloc(void *p, size_t n);
void d2_free(void *p);
char *d2_strdup(const char *s);
char *d2_strndup(const char *s, size_t n);
void d2_alloc_fail_after(long k);
/* Whether injection is on: caches of freed blocks then allocate anew, so that
 * every allocation they would have saved can still be made to fail. */
bool d2_alloc_faults_armed(void);

/* Error kinds; D2_OK is 0 and every failing function returns -1 after filling
 * a d2_err. */
typedef enum {
    D2_OK = 0,
    D2_ERR_INVALID,   /* bad argument, bad attribute, bad program */
    D2_ERR_SHAPE,     /* shape mismatch */
    D2_ERR_DTYPE,     /* dtype mismatch or unsupported dtype */
    D2_ERR_NOMEM,     /* allocation failed */
    D2_ERR_IO,        /* file I/O */
    D2_ERR_FORMAT,    /* corrupt, truncated or unsupported file */
    D2_ERR_PARSE,     /* text form syntax */
    D2_ERR_RUNTIME,   /* failure while running (assert op, index out of range) */
    D2_ERR_UNSUPPORTED,
    D2_ERR_DEVICE,
    D2_ERR_LIMIT,     /* a run limit was reached: deadline, cancel, memory cap */
} d2_errcode;

#define D2_ERR_MSG_MAX 1024

/* An error context. The first error set wins; later ones are ignored until
 * d2_err_clear, so the innermost cause survives unwinding. */
typedef struct d2_err {
    d2_errcode code;
    char msg[D2_ERR_MSG_MAX];
} d2_err;

/* A fresh error context without zeroing its message buffer (on hot paths:
 * `d2_err e = {0}` clears a kilobyte). */
#define D2_ERR_FRESH(e) ((e).code = D2_OK, (e).msg[0] = '\0')

/* Sets err (if no error is set yet) and returns -1. err may be NULL. */
int d2_err_set(d2_err *err, d2_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int d2_err_vset(d2_err *err, d2_errcode code, const char *fmt, va_list ap);
/* Prefixes the current message with "<prefix>: " (used to add context such
 * as the op being run while unwinding). */
void d2_err_prefix(d2_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void d2_err_clear(d2_err *err);
const char *d2_errcode_name(d2_errcode code);

/* Seconds of CLOCK_MONOTONIC: the one clock of deadlines, timeouts and
 * timings (the executor's run limits, the interpreter's timeout, time.monotonic). */
double d2_monotonic_s(void);

/* Checked size arithmetic: every shape -> element count -> byte count
 * computation goes through these. They store the result and return true, or
 * return false (result unspecified) when it does not fit. */
static inline bool d2_mul_i64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}
static inline bool d2_add_i64(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}
static inline bool d2_mul_size(size_t a, size_t b, size_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}
static inline bool d2_add_size(size_t a, size_t b, size_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

/* Growable byte buffer used by printers and serializers. */
typedef struct d2_buf {
    char *data;
    size_t len, cap;
    bool oom; /* sticky: set when an append failed */
} d2_buf;

void d2_buf_init(d2_buf *b);
void d2_buf_free(d2_buf *b);
void d2_buf_append(d2_buf *b, const void *p, size_t n);
void d2_buf_puts(d2_buf *b, const char *s);
/* Appends v in decimal, as "%lld" would, without printf. */
void d2_buf_put_i64(d2_buf *b, int64_t v);
void d2_buf_printf(d2_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes ownership of the NUL-terminated contents; NULL when out of memory. */
char *d2_buf_take(d2_buf *b);

/* Reads a whole file into a new NUL-terminated buffer (d2_free it); *len is
 * its size without the NUL. NULL on failure, with err (may be NULL) set to
 * "PATH: reason" and errno left saying why (fopen's error, EIO, ENOMEM). */
char *d2_read_file(const char *path, size_t *len, d2_err *err);

#endif

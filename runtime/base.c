/* base.c - the one allocator (with fault injection), error contexts, byte buffers. */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdatomic.h>

static atomic_long fail_countdown = -1;

void d2_alloc_fail_after(long k) { atomic_store(&fail_countdown, k); }

bool d2_alloc_faults_armed(void) { return atomic_load_explicit(&fail_countdown, memory_order_relaxed) >= 0; }

static bool should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c < 0)
        return false;
    if (c == 0)
        return true; /* stays failing until reset: OOM is sticky */
    atomic_fetch_sub(&fail_countdown, 1);
    return false;
}

void *d2_malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return malloc(n ? n : 1);
}

void *d2_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return calloc(count, size);
}

void *d2_realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    return realloc(p, n ? n : 1);
}

void d2_free(void *p) { free(p); }

char *d2_strndup(const char *s, size_t n)
{
    char *r = d2_malloc(n + 1);
    if (!r)
        return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *d2_strdup(const char *s) { return d2_strndup(s, strlen(s)); }

int d2_err_vset(d2_err *err, d2_errcode code, const char *fmt, va_list ap)
{
    if (!err || err->code != D2_OK)
        return -1;
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return -1;
}

int d2_err_set(d2_err *err, d2_errcode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_err_vset(err, code, fmt, ap);
    va_end(ap);
    return -1;
}

void d2_err_prefix(d2_err *err, const char *fmt, ...)
{
    if (!err || err->code == D2_OK)
        return;
    char pre[256], old[D2_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t lp = strlen(pre);
    if (lp + 2 >= sizeof err->msg)
        return;
    memcpy(err->msg, pre, lp);
    memcpy(err->msg + lp, ": ", 2);
    size_t lo = strnlen(old, sizeof old - 1);
    if (lo > sizeof err->msg - lp - 3)
        lo = sizeof err->msg - lp - 3;
    memcpy(err->msg + lp + 2, old, lo);
    err->msg[lp + 2 + lo] = '\0';
}

void d2_err_clear(d2_err *err)
{
    if (!err)
        return;
    err->code = D2_OK;
    err->msg[0] = '\0';
}

const char *d2_errcode_name(d2_errcode code)
{
    switch (code) {
    case D2_OK: return "ok";
    case D2_ERR_INVALID: return "invalid argument";
    case D2_ERR_SHAPE: return "shape error";
    case D2_ERR_DTYPE: return "dtype error";
    case D2_ERR_NOMEM: return "out of memory";
    case D2_ERR_IO: return "I/O error";
    case D2_ERR_FORMAT: return "format error";
    case D2_ERR_PARSE: return "parse error";
    case D2_ERR_RUNTIME: return "runtime error";
    case D2_ERR_UNSUPPORTED: return "unsupported";
    case D2_ERR_DEVICE: return "device error";
    case D2_ERR_LIMIT: return "limit reached";
    }
    return "error";
}

void d2_buf_init(d2_buf *b) { memset(b, 0, sizeof *b); }

void d2_buf_free(d2_buf *b)
{
    d2_free(b->data);
    d2_buf_init(b);
}

static bool buf_reserve(d2_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = d2_realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void d2_buf_append(d2_buf *b, const void *p, size_t n)
{
    if (!buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void d2_buf_puts(d2_buf *b, const char *s) { d2_buf_append(b, s, strlen(s)); }

void d2_buf_put_i64(d2_buf *b, int64_t v)
{
    char t[24];
    size_t i = sizeof t;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        t[--i] = '-';
    d2_buf_append(b, t + i, sizeof t - i);
}

void d2_buf_printf(d2_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        d2_buf_append(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *d2_buf_take(d2_buf *b)
{
    if (b->oom) {
        d2_buf_free(b);
        return NULL;
    }
    if (!b->data) {
        if (!buf_reserve(b, 0))
            return NULL;
        b->data[0] = '\0';
    }
    char *r = b->data;
    d2_buf_init(b);
    return r;
}

char *d2_read_file(const char *path, size_t *len, d2_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        d2_err_set(err, D2_ERR_IO, "%s: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    d2_buf b;
    d2_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        d2_buf_append(&b, chunk, n);
    bool bad = ferror(f) != 0;
    fclose(f);
    size_t got = b.len;
    char *s = bad ? NULL : d2_buf_take(&b);
    if (!s) {
        d2_buf_free(&b);
        int e = bad ? EIO : ENOMEM;
        d2_err_set(err, bad ? D2_ERR_IO : D2_ERR_NOMEM, "%s: cannot read the file (%s)", path,
                   strerror(e));
        errno = e;
        return NULL;
    }
    *len = got;
    return s;
}

double d2_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* npy.c - NumPy .npy files (read, write) and .npz archives of them (read). */
#include "npy.h"

#include "backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_GROWTH_DIGITS 21
/* Headers this large are certainly not ours to read; NumPy's own default
 * limit is far smaller. */
#define NPY_MAX_HEADER (1u << 20)

static const struct {
    const char *descr;
    d2_dtype dtype;
} npy_dtypes[] = {
    {"<f4", D2_F32}, {"<f8", D2_F64}, {"<i4", D2_I32},
    {"<i8", D2_I64}, {"|b1", D2_BOOL}, {"<b1", D2_BOOL},
    {"<f2", D2_F16}, {"|i1", D2_I8},   {"<i1", D2_I8},
    {"<i2", D2_I16}, {"|u1", D2_U8},   {"<u1", D2_U8},
};

typedef struct npy_info {
    d2_dtype dtype;
    int ndim;
    int64_t shape[D2_MAX_DIMS];
    size_t nbytes;
} npy_info;

/* ---- header parsing ------------------------------------------------------ */

typedef struct hparse {
    const char *p, *end;
    const char *name; /* file name for messages */
    d2_err *err;
} hparse;

static int bad(hparse *h, const char *what)
{
    return d2_err_set(h->err, D2_ERR_FORMAT, "%s: malformed .npy header: %s", h->name, what);
}

static void skip_ws(hparse *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
        h->p++;
}

static bool eat(hparse *h, char c)
{
    skip_ws(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return true;
    }
    return false;
}

/* Parses a quoted Python string without escapes into out (NUL-terminated). */
static int parse_str(hparse *h, char *out, size_t cap)
{
    skip_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return bad(h, "expected a string");
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        if (*h->p == '\\' || *h->p == '\n')
            return bad(h, "unsupported string literal");
        if (n + 1 < cap)
            out[n] = *h->p;
        n++;
        h->p++;
    }
    if (h->p >= h->end)
        return bad(h, "unterminated string");
    h->p++;
    if (n + 1 > cap)
        n = cap - 1; /* truncated; callers compare against short names */
    out[n] = '\0';
    return 0;
}

static bool match_word(hparse *h, const char *w)
{
    skip_ws(h);
    size_t n = strlen(w);
    if ((size_t)(h->end - h->p) >= n && memcmp(h->p, w, n) == 0) {
        h->p += n;
        return true;
    }
    return false;
}

static int parse_shape(hparse *h, npy_info *info)
{
    if (!eat(h, '('))
        return bad(h, "'shape' is not a tuple");
    info->ndim = 0;
    for (;;) {
        skip_ws(h);
        if (eat(h, ')'))
            return 0;
        if (h->p >= h->end || *h->p < '0' || *h->p > '9')
            return bad(h, "'shape' holds something other than non-negative integers");
        int64_t v = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            int d = *h->p++ - '0';
            if (v > (INT64_MAX - d) / 10)
                return d2_err_set(h->err, D2_ERR_FORMAT, "%s: dimension too large in .npy header",
                                  h->name);
            v = v * 10 + d;
        }
        if (h->p < h->end && (*h->p == 'L' || *h->p == 'l'))
            h->p++; /* Python 2 long suffix written by old NumPy */
        if (info->ndim == D2_MAX_DIMS)
            return d2_err_set(h->err, D2_ERR_FORMAT,
                              "%s: array has more than the maximum of %d dimensions", h->name,
                              D2_MAX_DIMS);
        info->shape[info->ndim++] = v;
        if (eat(h, ','))
            continue;
        if (eat(h, ')'))
            return 0;
        return bad(h, "expected ',' or ')' in 'shape'");
    }
}

static int parse_descr(hparse *h, npy_info *info)
{
    skip_ws(h);
    if (h->p < h->end && *h->p == '[')
        return d2_err_set(h->err, D2_ERR_UNSUPPORTED,
                          "%s: structured dtypes are not supported", h->name);
    char d[40];
    if (parse_str(h, d, sizeof d) < 0)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(npy_dtypes); i++)
        if (strcmp(d, npy_dtypes[i].descr) == 0) {
            info->dtype = npy_dtypes[i].dtype;
            return 0;
        }
    if (d[0] == '|' && d[1] == 'O')
        return d2_err_set(h->err, D2_ERR_UNSUPPORTED, "%s: object arrays are not supported",
                          h->name);
    if (d[0] == '>')
        for (size_t i = 0; i < D2_COUNTOF(npy_dtypes); i++)
            if (strcmp(d + 1, npy_dtypes[i].descr + 1) == 0)
                return d2_err_set(h->err, D2_ERR_UNSUPPORTED,
                                  "%s: big-endian data ('%s') is not supported", h->name, d);
    return d2_err_set(h->err, D2_ERR_DTYPE, "%s: unsupported dtype '%s'", h->name, d);
}

/* Parses the dict literal header[0..n) into info (nbytes excluded). */
static int parse_header(const char *text, size_t n, const char *name, npy_info *info, d2_err *err)
{
    hparse h = {text, text + n, name, err};
    bool have_descr = false, have_order = false, have_shape = false;
    if (!eat(&h, '{'))
        return bad(&h, "expected '{'");
    for (;;) {
        if (eat(&h, '}'))
            break;
        char key[32];
        if (parse_str(&h, key, sizeof key) < 0)
            return -1;
        if (!eat(&h, ':'))
            return bad(&h, "expected ':' after a key");
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (parse_descr(&h, info) < 0)
                return -1;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (match_word(&h, "True"))
                return d2_err_set(err, D2_ERR_UNSUPPORTED,
                                  "%s: Fortran-ordered arrays are not supported", name);
            if (!match_word(&h, "False"))
                return bad(&h, "'fortran_order' is not True or False");
            have_order = true;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (parse_shape(&h, info) < 0)
                return -1;
            have_shape = true;
        } else {
            return d2_err_set(err, D2_ERR_FORMAT, "%s: malformed .npy header: unexpected key '%s'",
                              name, key);
        }
        if (eat(&h, ','))
            continue;
        if (eat(&h, '}'))
            break;
        return bad(&h, "expected ',' or '}'");
    }
    skip_ws(&h);
    if (h.p != h.end)
        return bad(&h, "trailing characters after the dictionary");
    if (!have_descr || !have_order || !have_shape)
        return d2_err_set(err, D2_ERR_FORMAT, "%s: malformed .npy header: missing '%s'", name,
                          !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return 0;
}

/* Reads the preamble (magic, version, header length) from b[0..avail).
 * Sets *hstart and *hlen to the header text's offset and length. */
static int parse_preamble(const unsigned char *b, size_t avail, const char *name, size_t *hstart,
                          size_t *hlen, d2_err *err)
{
    if (avail < NPY_MAGIC_LEN + 2 || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        if (avail >= NPY_MAGIC_LEN && memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
            return d2_err_set(err, D2_ERR_FORMAT, "%s: not a .npy file (bad magic)", name);
        return d2_err_set(err, D2_ERR_FORMAT, "%s: truncated .npy file (%zu bytes)", name, avail);
    }
    int major = b[6], minor = b[7];
    size_t lenbytes;
    if (major == 1 && minor == 0)
        lenbytes = 2;
    else if ((major == 2 || major == 3) && minor == 0)
        lenbytes = 4;
    else
        return d2_err_set(err, D2_ERR_UNSUPPORTED, "%s: unsupported .npy format version %d.%d",
                          name, major, minor);
    if (avail < 8 + lenbytes)
        return d2_err_set(err, D2_ERR_FORMAT, "%s: truncated .npy file (%zu bytes)", name, avail);
    size_t n = (size_t)b[8] | (size_t)b[9] << 8;
    if (lenbytes == 4)
        n |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
    if (n > NPY_MAX_HEADER)
        return d2_err_set(err, D2_ERR_FORMAT, "%s: .npy header length %zu is implausibly large",
                          name, n);
    *hstart = 8 + lenbytes;
    *hlen = n;
    return 0;
}

/* Fills info->nbytes from dtype and shape, rejecting overflow (the product
 * of the nonzero dims must fit too, so strides never overflow). */
static int compute_nbytes(npy_info *info, const char *name, d2_err *err)
{
    size_t n = d2_dtype_size(info->dtype);
    bool zero = false;
    for (int i = 0; i < info->ndim; i++) {
        size_t d = info->shape[i] ? (size_t)info->shape[i] : 1;
        if ((uint64_t)info->shape[i] > SIZE_MAX / 4 || !d2_mul_size(n, d, &n) || n > SIZE_MAX / 4)
            return d2_err_set(err, D2_ERR_FORMAT, "%s: array size overflows", name);
        zero = zero || info->shape[i] == 0;
    }
    info->nbytes = zero ? 0 : n;
    return 0;
}

static int check_bools(const d2_tensor *t, const char *name, d2_err *err)
{
    if (t->dtype != D2_BOOL)
        return 0;
    const unsigned char *d = d2_tensor_data(t);
    int64_t n = d2_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        if (d[i] > 1)
            return d2_err_set(err, D2_ERR_FORMAT, "%s: invalid bool value %u at element %lld",
                              name, d[i], (long long)i);
    return 0;
}

/* Validates the preamble+header in the first `avail` bytes of an image of
 * total size `total`; fills info and *data_off. */
static int read_header_mem(const unsigned char *b, size_t avail, size_t total, const char *name,
                           npy_info *info, size_t *data_off, d2_err *err)
{
    size_t hstart, hlen;
    if (parse_preamble(b, avail, name, &hstart, &hlen, err) < 0)
        return -1;
    if (hlen > total - hstart)
        return d2_err_set(err, D2_ERR_FORMAT,
                          "%s: truncated .npy file (header claims %zu bytes, file has %zu)", name,
                          hstart + hlen, total);
    if (parse_header((const char *)b + hstart, hlen, name, info, err) < 0)
        return -1;
    if (compute_nbytes(info, name, err) < 0)
        return -1;
    *data_off = hstart + hlen;
    size_t have = total - *data_off;
    if (have < info->nbytes)
        return d2_err_set(err, D2_ERR_FORMAT,
                          "%s: truncated .npy data (expected %zu bytes, found %zu)", name,
                          info->nbytes, have);
    if (have > info->nbytes)
        return d2_err_set(err, D2_ERR_FORMAT, "%s: %zu unexpected bytes after the .npy data",
                          name, have - info->nbytes);
    return 0;
}

d2_tensor *d2_npy_parse(const void *data, size_t size, const char *name, d2_err *err)
{
    npy_info info;
    size_t off;
    if (!name)
        name = "<memory>";
    if (read_header_mem(data, size, size, name, &info, &off, err) < 0)
        return NULL;
    d2_tensor *t = d2_tensor_from_data(info.dtype, info.ndim, info.shape,
                                       (const char *)data + off, err);
    if (t && check_bools(t, name, err) < 0) {
        d2_tensor_unref(t);
        return NULL;
    }
    return t;
}

d2_tensor *d2_npy_load(const char *path, d2_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        d2_err_set(err, D2_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    d2_tensor *t = NULL;
    unsigned char *hdr = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        d2_err_set(err, D2_ERR_IO, "%s: not a regular file", path);
        goto done;
    }
    size_t total = (size_t)st.st_size;
    unsigned char pre[12];
    size_t npre = fread(pre, 1, total < sizeof pre ? total : sizeof pre, f);
    size_t hstart, hlen;
    if (parse_preamble(pre, npre, path, &hstart, &hlen, err) < 0)
        goto done;
    if (hlen > total - hstart) {
        d2_err_set(err, D2_ERR_FORMAT,
                   "%s: truncated .npy file (header claims %zu bytes, file has %zu)", path,
                   hstart + hlen, total);
        goto done;
    }
    hdr = d2_malloc(hstart + hlen);
    if (!hdr) {
        d2_err_set(err, D2_ERR_NOMEM, "%s: out of memory reading the header", path);
        goto done;
    }
    memcpy(hdr, pre, hstart);
    if (fseek(f, (long)hstart, SEEK_SET) != 0 || fread(hdr + hstart, 1, hlen, f) != hlen) {
        d2_err_set(err, D2_ERR_IO, "%s: read error", path);
        goto done;
    }
    npy_info info;
    size_t off;
    if (read_header_mem(hdr, hstart + hlen, total, path, &info, &off, err) < 0)
        goto done;
    t = d2_tensor_new(NULL, info.dtype, info.ndim, info.shape, err);
    if (!t)
        goto done;
    if (info.nbytes && fread(d2_tensor_data(t), 1, info.nbytes, f) != info.nbytes) {
        d2_err_set(err, D2_ERR_IO, "%s: read error (file changed while reading?)", path);
        goto fail;
    }
    if (check_bools(t, path, err) < 0)
        goto fail;
    goto done;
fail:
    d2_tensor_unref(t);
    t = NULL;
done:
    d2_free(hdr);
    fclose(f);
    return t;
}

/* ---- writing ------------------------------------------------------------- */

static const char *descr_of(d2_dtype dt)
{
    switch (dt) {
    case D2_F32: return "<f4";
    case D2_F64: return "<f8";
    case D2_I32: return "<i4";
    case D2_I64: return "<i8";
    case D2_BOOL: return "|b1";
    case D2_F16: return "<f2";
    case D2_I8: return "|i1";
    case D2_I16: return "<i2";
    case D2_U8: return "|u1";
    case D2_BF16: return "<u2"; /* NumPy has no bfloat16: its raw bits, as Paddle's numpy() */
    default: return NULL;
    }
}

int d2_npy_write(d2_buf *b, const d2_tensor *t, d2_err *err)
{
    if (t->kind != D2_VALUE_TENSOR)
        return d2_err_set(err, D2_ERR_INVALID, "cannot write a tensor array as .npy");
    const char *descr = descr_of(t->dtype);
    if (!descr)
        return d2_err_set(err, D2_ERR_DTYPE, "cannot write %s tensors as .npy",
                          d2_dtype_name(t->dtype));
    /* the header exactly as NumPy's format module lays it out */
    char hdr[512];
    size_t n = (size_t)snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    for (int i = 0; i < t->ndim; i++)
        n += (size_t)snprintf(hdr + n, sizeof hdr - n, "%s%lld", i ? ", " : "",
                              (long long)t->shape[i]);
    n += (size_t)snprintf(hdr + n, sizeof hdr - n, "%s), }", t->ndim == 1 ? "," : "");
    if (t->ndim > 0) {
        char first[32];
        int digits = snprintf(first, sizeof first, "%lld", (long long)t->shape[0]);
        for (int i = digits; i < NPY_GROWTH_DIGITS; i++)
            hdr[n++] = ' ';
    }
    size_t hlen = n + 1; /* + '\n' */
    size_t lenbytes = 2;
    size_t pad = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + lenbytes + hlen) % NPY_ALIGN;
    if (hlen + pad > 65535) {
        lenbytes = 4;
        pad = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + lenbytes + hlen) % NPY_ALIGN;
    }
    size_t total_h = hlen + pad;
    unsigned char pre[12];
    memcpy(pre, NPY_MAGIC, NPY_MAGIC_LEN);
    pre[6] = lenbytes == 2 ? 1 : 2;
    pre[7] = 0;
    for (size_t i = 0; i < lenbytes; i++)
        pre[8 + i] = (unsigned char)(total_h >> (8 * i));
    d2_buf_append(b, pre, 8 + lenbytes);
    d2_buf_append(b, hdr, n);
    for (size_t i = 0; i < pad; i++)
        d2_buf_append(b, " ", 1);
    d2_buf_append(b, "\n", 1);

    size_t nbytes = (size_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
    if (nbytes && t->storage->backend->kind == D2_BACKEND_CPU && d2_tensor_is_contiguous(t)) {
        d2_buf_append(b, d2_tensor_data(t), nbytes);
    } else if (nbytes) {
        d2_tensor *c = d2_tensor_copy_to((d2_tensor *)t, NULL, err);
        if (!c)
            return -1;
        d2_buf_append(b, d2_tensor_data(c), nbytes);
        d2_tensor_unref(c);
    }
    if (b->oom)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory writing .npy data");
    return 0;
}

int d2_npy_save(const d2_tensor *t, const char *path, d2_err *err)
{
    d2_buf b;
    d2_buf_init(&b);
    if (d2_npy_write(&b, t, err) < 0) {
        d2_buf_free(&b);
        d2_err_prefix(err, "%s", path);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        d2_buf_free(&b);
        return d2_err_set(err, D2_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    bool ok = fwrite(b.data, 1, b.len, f) == b.len;
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    d2_buf_free(&b);
    if (!ok) {
        remove(path);
        return d2_err_set(err, D2_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return 0;
}

/* ======================================================================
 * .npz files (numpy.savez: a zip archive of stored .npy members)
 * ====================================================================== */

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

int d2_npz_load(const char *path, d2_npz_fn fn, void *ctx, d2_err *err)
{
    size_t len = 0;
    unsigned char *z = (unsigned char *)d2_read_file(path, &len, err);
    if (!z)
        return -1;
    int rc = -1;
    /* end of central directory: 22 bytes plus a comment of up to 65535 */
    size_t eocd = (size_t)-1;
    for (size_t i = len >= 22 ? len - 22 : 0; len >= 22; i--) {
        if (rd32(z + i) == 0x06054b50) {
            eocd = i;
            break;
        }
        if (i == 0 || len - i > 22 + 65535)
            break;
    }
    if (eocd == (size_t)-1) {
        d2_err_set(err, D2_ERR_FORMAT, "%s: not an .npz file (no zip directory)", path);
        goto done;
    }
    uint64_t count = rd16(z + eocd + 10), cd = rd32(z + eocd + 16);
    if (count == 0xffff || cd == 0xffffffffu) {
        /* zip64 end of central directory locator just before */
        if (eocd < 20 || rd32(z + eocd - 20) != 0x07064b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: bad zip64 directory", path);
            goto done;
        }
        uint64_t off = rd64(z + eocd - 20 + 8);
        if (off + 56 > len || rd32(z + off) != 0x06064b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: bad zip64 directory", path);
            goto done;
        }
        count = rd64(z + off + 32);
        cd = rd64(z + off + 48);
    }
    uint64_t pos = cd;
    for (uint64_t k = 0; k < count; k++) {
        if (pos + 46 > len || rd32(z + pos) != 0x02014b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip directory", path);
            goto done;
        }
        uint32_t method = rd16(z + pos + 10);
        uint64_t csize = rd32(z + pos + 20), usize = rd32(z + pos + 24);
        uint32_t nlen = rd16(z + pos + 28), xlen = rd16(z + pos + 30), clen = rd16(z + pos + 32);
        uint64_t loff = rd32(z + pos + 42);
        if (pos + 46 + nlen + xlen + clen > len) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip directory", path);
            goto done;
        }
        const unsigned char *x = z + pos + 46 + nlen, *xe = x + xlen;
        while (x + 4 <= xe) {
            uint32_t id = rd16(x), sz = rd16(x + 2);
            const unsigned char *f = x + 4;
            if (id == 1 && f + sz <= xe) {
                if (usize == 0xffffffffu && f + 8 <= x + 4 + sz)
                    usize = rd64(f), f += 8;
                if (csize == 0xffffffffu && f + 8 <= x + 4 + sz)
                    csize = rd64(f), f += 8;
                if (loff == 0xffffffffu && f + 8 <= x + 4 + sz)
                    loff = rd64(f);
            }
            x += 4 + sz;
        }
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)nlen, (const char *)z + pos + 46);
        pos += 46 + nlen + xlen + clen;
        if (method != 0) {
            d2_err_set(err, D2_ERR_UNSUPPORTED,
                       "%s: member '%s' is compressed; only numpy.savez archives (stored members) "
                       "are supported, not savez_compressed", path, name);
            goto done;
        }
        if (loff + 30 > len || rd32(z + loff) != 0x04034b50) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: corrupt zip member '%s'", path, name);
            goto done;
        }
        uint64_t data = loff + 30 + rd16(z + loff + 26) + rd16(z + loff + 28);
        if (data + csize > len || csize != usize) {
            d2_err_set(err, D2_ERR_FORMAT, "%s: truncated zip member '%s'", path, name);
            goto done;
        }
        size_t nl = strlen(name);
        if (nl > 4 && strcmp(name + nl - 4, ".npy") == 0)
            name[nl - 4] = '\0';
        char what[1100];
        snprintf(what, sizeof what, "%s:%s", path, name);
        d2_tensor *t = d2_npy_parse(z + data, (size_t)csize, what, err);
        if (!t)
            goto done;
        int r = fn(ctx, name, t, err);
        d2_tensor_unref(t);
        if (r != 0) {
            rc = r;
            goto done;
        }
    }
    rc = 0;
done:
    d2_free(z);
    return rc;
}

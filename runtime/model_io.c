/* model_io.c - the saved-model file format: writer, validating loader (mmap, zero-copy parameters).
 *
 * Format version 1. All integers are little-endian; offsets count from the
 * start of the file.
 *
 *   offset  size  field
 *   0       8     magic "DY2STMDL"
 *   8       4     u32 format version (1)
 *   12      4     u32 number of sections N (3 in version 1)
 *   16      8     u64 file size in bytes
 *   24      4     u32 CRC-32 of the header bytes [0, 32 + 32*N), this field taken as 0
 *   28      4     u32 reserved (0)
 *   32      32*N  section table, one 32-byte entry per section:
 *                   u32 kind (1 = program, 2 = parameter table, 3 = parameter data)
 *                   u32 reserved (0)
 *                   u64 offset, u64 size
 *                   u32 CRC-32 of the section's bytes
 *                   u32 reserved (0)
 *
 * The sections appear in the order program, table, data. Each starts at the
 * first multiple of 64 at or after the end of what precedes it (the header for
 * the first); the gap bytes are zero and the file ends where the last section
 * ends. So every byte of a valid file is covered by a CRC or is a zero that
 * the loader checks, and a file has exactly one valid layout.
 *
 * Program section: the Program's text form without parameter data
 * (d2_program_print(p, false)); UTF-8, no NUL.
 *
 * Parameter table: u32 count, u32 reserved (0), then one record per
 * parameter (every persistable variable, in variable order), each a multiple
 * of 8 bytes:
 *   u32 name length L (1..D2_MODEL_MAX_NAME), u32 dtype (0 float32, 1 float64,
 *   2 int32, 3 int64, 4 bool, 5 float16, 6 bfloat16, 7 int8, 8 int16, 9 uint8;
 *   codes 7..9 came later, files without them load as before), u32 ndim (0..8),
 *   u32 reserved (0), u64 data offset, u64 nbytes, i64 dims[ndim],
 *   the L name bytes, zero padding to a multiple of 8.
 * nbytes = numel * dtype size. The table's size is exactly its records.
 *
 * Parameter data section: the parameters' bytes (C order, little-endian), in
 * table order; each starts at the first multiple of 64 at or after the end of
 * the previous one (the section's start for the first), so a mapped file can
 * be used in place. The section ends where the last parameter's bytes end.
 *
 * The loader checks all of this with overflow-safe arithmetic, then checks
 * that every table entry names a persistable variable of the Program with
 * exactly the declared dtype and shape, that no name repeats, and that every
 * parameter of the Program has data.
 */
#include "model_io.h"

#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the saved-model code assumes a little-endian host"
#endif

#define HDR_FIXED 32
#define SEC_ENTRY 32
#define N_SECTIONS 3
#define HDR_SIZE (HDR_FIXED + SEC_ENTRY * N_SECTIONS)
#define ALIGN 64
#define REC_FIXED 32
#define D2_MODEL_MAX_NAME 4096

enum { SEC_PROGRAM = 1, SEC_TABLE = 2, SEC_DATA = 3 };

static const char *const section_names[] = {"", "program", "parameter table", "parameter data"};

/* ---- CRC-32 (reflected polynomial 0xEDB88320), slicing by 8 ---------------- */

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xFF];
}

uint32_t d2_model_crc32(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&crc_once, crc_init);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (n >= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^ crc_tab[5][(lo >> 16) & 0xFF] ^
            crc_tab[4][lo >> 24] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^
            crc_tab[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = crc_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

/* ---- little-endian helpers ------------------------------------------------ */

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

bool d2_model_is_saved(const void *data, size_t size)
{
    return size >= D2_MODEL_MAGIC_LEN && memcmp(data, D2_MODEL_MAGIC, D2_MODEL_MAGIC_LEN) == 0;
}

/* ---- writer ----------------------------------------------------------------- */

static const unsigned char zeros[ALIGN];

/* Where the image goes: a memory buffer or a file. */
typedef struct sink {
    d2_buf *buf;
    FILE *f;
    bool failed;
} sink;

static void sink_put(sink *s, const void *p, size_t n)
{
    if (s->failed || n == 0)
        return;
    if (s->buf) {
        d2_buf_append(s->buf, p, n);
        s->failed = s->buf->oom;
    } else if (fwrite(p, 1, n, s->f) != n) {
        s->failed = true;
    }
}

static void sink_pad(sink *s, uint64_t from, uint64_t to)
{
    while (from < to) {
        size_t k = to - from < ALIGN ? (size_t)(to - from) : ALIGN;
        sink_put(s, zeros, k);
        from += k;
    }
}

static uint32_t crc_pad(uint32_t crc, uint64_t from, uint64_t to)
{
    while (from < to) {
        size_t k = to - from < ALIGN ? (size_t)(to - from) : ALIGN;
        crc = d2_model_crc32(crc, zeros, k);
        from += k;
    }
    return crc;
}

/* Everything computed before the image is emitted. */
typedef struct layout {
    char *text;
    size_t text_len;
    int n_params;
    int *vars;          /* variable index of each parameter */
    d2_tensor **data;   /* contiguous CPU copies or references */
    uint64_t *data_off; /* absolute offsets */
    unsigned char *table;
    size_t table_len;
    uint64_t off[N_SECTIONS + 1], size[N_SECTIONS + 1];
    uint32_t crc[N_SECTIONS + 1];
    unsigned char header[HDR_SIZE];
} layout;

static void layout_free(layout *L)
{
    d2_free(L->text);
    for (int i = 0; i < L->n_params; i++)
        d2_tensor_unref(L->data ? L->data[i] : NULL);
    d2_free(L->data);
    d2_free(L->vars);
    d2_free(L->data_off);
    d2_free(L->table);
}

static size_t param_nbytes(const d2_tensor *t)
{
    return (size_t)d2_tensor_numel(t) * d2_dtype_size(t->dtype);
}

static int layout_build(const d2_program *p, layout *L, d2_err *err)
{
    memset(L, 0, sizeof *L);
    int n = 0;
    for (int i = 0; i < p->n_vars; i++)
        if (p->vars[i].persistable)
            n++;
    L->vars = d2_calloc((size_t)n + 1, sizeof *L->vars);
    L->data = d2_calloc((size_t)n + 1, sizeof *L->data);
    L->data_off = d2_calloc((size_t)n + 1, sizeof *L->data_off);
    if (!L->vars || !L->data || !L->data_off)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory saving a model");
    uint64_t table_len = 8;
    for (int i = 0; i < p->n_vars; i++) {
        const d2_var *v = &p->vars[i];
        if (!v->persistable)
            continue;
        size_t nl = strlen(v->name);
        if (nl == 0 || nl > D2_MODEL_MAX_NAME)
            return d2_err_set(err, D2_ERR_INVALID, "parameter name '%.64s' has bad length %zu",
                              v->name, nl);
        if (!v->data)
            return d2_err_set(err, D2_ERR_INVALID, "parameter '%s' has no data", v->name);
        d2_shape s;
        d2_tensor_get_shape(v->data, &s);
        if (v->data->kind != D2_VALUE_TENSOR || v->type.kind != D2_VALUE_TENSOR ||
            v->data->dtype != v->type.dtype || !d2_shape_equal(&s, &v->type.shape))
            return d2_err_set(err, D2_ERR_INVALID,
                              "parameter '%s': its data does not match its declared type",
                              v->name);
        d2_tensor *c = v->data;
        if (!c->storage || c->storage->backend->kind != D2_BACKEND_CPU ||
            !d2_tensor_is_contiguous(c))
            c = d2_tensor_copy_to(c, NULL, err);
        else
            c = d2_tensor_ref(c);
        if (!c)
            return -1;
        L->vars[L->n_params] = i;
        L->data[L->n_params++] = c;
        table_len += REC_FIXED + 8 * (uint64_t)s.ndim + align_up(nl, 8);
    }
    L->text = d2_program_print(p, false);
    if (!L->text)
        return d2_err_set(err, D2_ERR_NOMEM,
                          "cannot print the program (text form unavailable or out of memory)");
    L->text_len = strlen(L->text);

    L->off[SEC_PROGRAM] = align_up(HDR_SIZE, ALIGN);
    L->size[SEC_PROGRAM] = L->text_len;
    L->off[SEC_TABLE] = align_up(L->off[SEC_PROGRAM] + L->size[SEC_PROGRAM], ALIGN);
    L->size[SEC_TABLE] = table_len;
    L->off[SEC_DATA] = align_up(L->off[SEC_TABLE] + table_len, ALIGN);
    uint64_t cur = L->off[SEC_DATA];
    for (int k = 0; k < L->n_params; k++) {
        L->data_off[k] = align_up(cur, ALIGN);
        cur = L->data_off[k] + param_nbytes(L->data[k]);
    }
    L->size[SEC_DATA] = cur - L->off[SEC_DATA];

    /* the table */
    L->table_len = (size_t)table_len;
    L->table = d2_calloc(1, L->table_len);
    if (!L->table)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory saving a model");
    unsigned char *t = L->table;
    put32(t, (uint32_t)L->n_params);
    t += 8;
    for (int k = 0; k < L->n_params; k++) {
        const d2_var *v = &p->vars[L->vars[k]];
        const d2_tensor *d = L->data[k];
        size_t nl = strlen(v->name);
        put32(t, (uint32_t)nl);
        put32(t + 4, (uint32_t)d->dtype);
        put32(t + 8, (uint32_t)d->ndim);
        put64(t + 16, L->data_off[k]);
        put64(t + 24, param_nbytes(d));
        t += REC_FIXED;
        for (int i = 0; i < d->ndim; i++, t += 8)
            put64(t, (uint64_t)d->shape[i]);
        memcpy(t, v->name, nl);
        t += align_up(nl, 8);
    }

    /* checksums */
    L->crc[SEC_PROGRAM] = d2_model_crc32(0, L->text, L->text_len);
    L->crc[SEC_TABLE] = d2_model_crc32(0, L->table, L->table_len);
    uint32_t c = 0;
    cur = L->off[SEC_DATA];
    for (int k = 0; k < L->n_params; k++) {
        c = crc_pad(c, cur, L->data_off[k]);
        size_t nb = param_nbytes(L->data[k]);
        if (nb)
            c = d2_model_crc32(c, d2_tensor_data(L->data[k]), nb);
        cur = L->data_off[k] + nb;
    }
    L->crc[SEC_DATA] = c;

    /* the header */
    unsigned char *h = L->header;
    memcpy(h, D2_MODEL_MAGIC, D2_MODEL_MAGIC_LEN);
    put32(h + 8, D2_MODEL_VERSION);
    put32(h + 12, N_SECTIONS);
    put64(h + 16, L->off[SEC_DATA] + L->size[SEC_DATA]);
    for (int s = 1; s <= N_SECTIONS; s++) {
        unsigned char *e = h + HDR_FIXED + SEC_ENTRY * (s - 1);
        put32(e, (uint32_t)s);
        put64(e + 8, L->off[s]);
        put64(e + 16, L->size[s]);
        put32(e + 24, L->crc[s]);
    }
    put32(h + 24, d2_model_crc32(0, h, HDR_SIZE));
    return 0;
}

static void emit(const layout *L, sink *s)
{
    sink_put(s, L->header, HDR_SIZE);
    sink_pad(s, HDR_SIZE, L->off[SEC_PROGRAM]);
    sink_put(s, L->text, L->text_len);
    sink_pad(s, L->off[SEC_PROGRAM] + L->size[SEC_PROGRAM], L->off[SEC_TABLE]);
    sink_put(s, L->table, L->table_len);
    sink_pad(s, L->off[SEC_TABLE] + L->size[SEC_TABLE], L->off[SEC_DATA]);
    uint64_t cur = L->off[SEC_DATA];
    for (int k = 0; k < L->n_params; k++) {
        sink_pad(s, cur, L->data_off[k]);
        size_t nb = param_nbytes(L->data[k]);
        if (nb)
            sink_put(s, d2_tensor_data(L->data[k]), nb);
        cur = L->data_off[k] + nb;
    }
}

int d2_model_save_mem(const d2_program *p, d2_buf *out, d2_err *err)
{
    layout L;
    int rc = layout_build(p, &L, err);
    if (rc == 0) {
        sink s = {out, NULL, false};
        emit(&L, &s);
        if (s.failed)
            rc = d2_err_set(err, D2_ERR_NOMEM, "out of memory saving a model");
    }
    layout_free(&L);
    return rc;
}

int d2_model_save(const d2_program *p, const char *path, d2_err *err)
{
    layout L;
    if (layout_build(p, &L, err) < 0) {
        layout_free(&L);
        d2_err_prefix(err, "%s", path);
        return -1;
    }
    int rc = -1;
    size_t n = strlen(path);
    char *tmp = d2_malloc(n + 32);
    if (!tmp) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory");
        goto done;
    }
    snprintf(tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        d2_err_set(err, D2_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        goto done;
    }
    sink s = {NULL, f, false};
    emit(&L, &s);
    int e = errno;
    if (fclose(f) != 0 && !s.failed) {
        s.failed = true;
        e = errno;
    }
    if (s.failed) {
        remove(tmp);
        d2_err_set(err, D2_ERR_IO, "%s: write failed: %s", path, strerror(e));
        goto done;
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        remove(tmp);
        d2_err_set(err, D2_ERR_IO, "%s: cannot replace: %s", path, strerror(e));
        goto done;
    }
    rc = 0;
done:
    d2_free(tmp);
    layout_free(&L);
    return rc;
}

/* ---- loader ----------------------------------------------------------------- */

/* A memory-mapped file shared by the parameter tensors that use it in place. */
typedef struct mapping {
    long refs; /* updated with __atomic builtins only */
    void *base;
    size_t size;
} mapping;

static void mapping_unref(mapping *m)
{
    if (m && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        munmap(m->base, m->size);
        d2_free(m);
    }
}

static void mapping_release(void *ctx, void *data)
{
    D2_UNUSED(data);
    mapping_unref(ctx);
}

typedef struct loader {
    const unsigned char *b;
    size_t size;
    const char *name;
    mapping *map; /* non-NULL: parameters may use the mapping in place */
    d2_err *err;
    uint64_t off[N_SECTIONS + 1], len[N_SECTIONS + 1];
} loader;

static int ferr(loader *ld, d2_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets an error prefixed with the file name. */
static int ferr(loader *ld, d2_errcode code, const char *fmt, ...)
{
    char msg[D2_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return d2_err_set(ld->err, code, "%s: %s", ld->name, msg);
}

static bool all_zero(const unsigned char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Checks magic, version, sizes, the header CRC and the section layout. */
static int check_header(loader *ld)
{
    const unsigned char *b = ld->b;
    size_t size = ld->size;
    if (size == 0)
        return ferr(ld, D2_ERR_FORMAT, "empty file, not a saved model");
    size_t m = size < D2_MODEL_MAGIC_LEN ? size : D2_MODEL_MAGIC_LEN;
    if (memcmp(b, D2_MODEL_MAGIC, m) != 0)
        return ferr(ld, D2_ERR_FORMAT, "not a dy2st saved model (bad magic)");
    if (size < 12)
        return ferr(ld, D2_ERR_FORMAT, "truncated saved model (%zu bytes)", size);
    uint32_t version = get32(b + 8);
    if (version != D2_MODEL_VERSION)
        return ferr(ld, D2_ERR_UNSUPPORTED,
                    "unsupported model format version %u (this build reads %d)", version,
                    D2_MODEL_VERSION);
    if (size < HDR_FIXED)
        return ferr(ld, D2_ERR_FORMAT, "truncated saved model (%zu bytes)", size);
    uint32_t nsec = get32(b + 12);
    if (nsec != N_SECTIONS)
        return ferr(ld, D2_ERR_FORMAT, "bad section count %u (expected %d)", nsec, N_SECTIONS);
    if (size < HDR_SIZE)
        return ferr(ld, D2_ERR_FORMAT, "truncated saved model (%zu bytes)", size);
    uint64_t fsize = get64(b + 16);
    if (fsize != size)
        return ferr(ld, D2_ERR_FORMAT,
                    "file size is %zu bytes but the header records %llu (truncated or extended?)",
                    size, (unsigned long long)fsize);
    unsigned char h[HDR_SIZE];
    memcpy(h, b, HDR_SIZE);
    put32(h + 24, 0);
    if (d2_model_crc32(0, h, HDR_SIZE) != get32(b + 24))
        return ferr(ld, D2_ERR_FORMAT, "header checksum mismatch (corrupt file)");
    if (get32(b + 28) != 0)
        return ferr(ld, D2_ERR_FORMAT, "reserved header field is not zero");
    uint64_t expect = HDR_SIZE;
    for (int s = 1; s <= N_SECTIONS; s++) {
        const unsigned char *e = b + HDR_FIXED + SEC_ENTRY * (s - 1);
        uint32_t kind = get32(e);
        uint64_t off = get64(e + 8), len = get64(e + 16);
        if (kind != (uint32_t)s)
            return ferr(ld, D2_ERR_FORMAT, "section %d has kind %u (expected %d, the %s)", s - 1,
                        kind, s, section_names[s]);
        if (get32(e + 4) != 0 || get32(e + 28) != 0)
            return ferr(ld, D2_ERR_FORMAT, "reserved field of the %s section is not zero",
                        section_names[s]);
        uint64_t at = align_up(expect, ALIGN);
        if (off != at)
            return ferr(ld, D2_ERR_FORMAT, "%s section at offset %llu (expected %llu)",
                        section_names[s], (unsigned long long)off, (unsigned long long)at);
        if (off > size || len > size - off)
            return ferr(ld, D2_ERR_FORMAT,
                        "%s section [%llu, +%llu) extends past the end of the file (%zu bytes)",
                        section_names[s], (unsigned long long)off, (unsigned long long)len, size);
        if (!all_zero(b + expect, off - expect))
            return ferr(ld, D2_ERR_FORMAT, "nonzero padding before the %s section",
                        section_names[s]);
        if (d2_model_crc32(0, b + off, (size_t)len) != get32(e + 24))
            return ferr(ld, D2_ERR_FORMAT, "%s section checksum mismatch (corrupt file)",
                        section_names[s]);
        ld->off[s] = off;
        ld->len[s] = len;
        expect = off + len;
    }
    if (expect != size)
        return ferr(ld, D2_ERR_FORMAT, "%llu unexpected bytes after the last section",
                    (unsigned long long)(size - expect));
    return 0;
}

/* Parses the program section. */
static d2_program *load_program(loader *ld)
{
    const char *t = (const char *)ld->b + ld->off[SEC_PROGRAM];
    size_t n = (size_t)ld->len[SEC_PROGRAM];
    if (memchr(t, '\0', n)) {
        ferr(ld, D2_ERR_FORMAT, "program section contains a NUL byte");
        return NULL;
    }
    char *text = d2_strndup(t, n);
    if (!text) {
        ferr(ld, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    d2_err perr = {0};
    d2_program *p = d2_program_parse(text, ld->name, &perr);
    d2_free(text);
    if (!p) {
        ferr(ld, perr.code ? perr.code : D2_ERR_FORMAT, "bad program section: %s", perr.msg);
        return NULL;
    }
    for (int i = 0; i < p->n_vars; i++)
        if (p->vars[i].data) {
            ferr(ld, D2_ERR_FORMAT, "program section carries data for '%s'", p->vars[i].name);
            d2_program_free(p);
            return NULL;
        }
    return p;
}

/* A tensor over the mapping (zero-copy) or a copy of the bytes. */
static d2_tensor *make_param(loader *ld, d2_dtype dt, int ndim, const int64_t *dims, uint64_t off,
                             uint64_t nbytes)
{
    const unsigned char *src = ld->b + off;
    if (!ld->map || nbytes == 0)
        return d2_tensor_from_data(dt, ndim, dims, src, ld->err);
    d2_tensor *t = d2_calloc(1, sizeof *t);
    d2_storage *s = d2_calloc(1, sizeof *s);
    if (!t || !s) {
        d2_free(t);
        d2_free(s);
        ferr(ld, D2_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->refcount = 1;
    s->backend = d2_cpu_backend();
    s->data = (void *)src;
    s->nbytes = (size_t)nbytes;
    s->release = mapping_release;
    s->release_ctx = ld->map;
    __atomic_add_fetch(&ld->map->refs, 1, __ATOMIC_RELAXED);
    t->refcount = 1;
    t->kind = D2_VALUE_TENSOR;
    t->dtype = dt;
    t->ndim = ndim;
    memcpy(t->shape, dims, sizeof(int64_t) * (size_t)ndim);
    d2_contiguous_strides(ndim, t->shape, t->strides);
    t->storage = s;
    return t;
}

/* Parses the parameter table and attaches the data to p's variables. */
static int load_params(loader *ld, d2_program *p)
{
    const unsigned char *t = ld->b + ld->off[SEC_TABLE];
    uint64_t n = ld->len[SEC_TABLE], pos = 8;
    if (n < 8)
        return ferr(ld, D2_ERR_FORMAT, "parameter table is truncated");
    uint32_t count = get32(t);
    if (get32(t + 4) != 0)
        return ferr(ld, D2_ERR_FORMAT, "reserved field of the parameter table is not zero");
    uint64_t data_cur = ld->off[SEC_DATA];
    uint64_t data_end = ld->off[SEC_DATA] + ld->len[SEC_DATA];
    for (uint32_t k = 0; k < count; k++) {
        if (n - pos < REC_FIXED)
            return ferr(ld, D2_ERR_FORMAT, "parameter table is truncated at entry %u", k);
        const unsigned char *r = t + pos;
        uint32_t nl = get32(r), dt = get32(r + 4), ndim = get32(r + 8);
        uint64_t off = get64(r + 16), nbytes = get64(r + 24);
        if (get32(r + 12) != 0)
            return ferr(ld, D2_ERR_FORMAT, "parameter entry %u: reserved field is not zero", k);
        if (nl == 0 || nl > D2_MODEL_MAX_NAME)
            return ferr(ld, D2_ERR_FORMAT, "parameter entry %u: bad name length %u", k, nl);
        if (ndim > D2_MAX_DIMS)
            return ferr(ld, D2_ERR_FORMAT, "parameter entry %u: %u dims exceed the maximum of %d",
                        k, ndim, D2_MAX_DIMS);
        uint64_t rec = REC_FIXED + 8 * (uint64_t)ndim + align_up(nl, 8);
        if (n - pos < rec)
            return ferr(ld, D2_ERR_FORMAT, "parameter table is truncated at entry %u", k);
        const char *name = (const char *)r + REC_FIXED + 8 * ndim;
        if (memchr(name, '\0', nl))
            return ferr(ld, D2_ERR_FORMAT, "parameter entry %u: name contains a NUL byte", k);
        if (!all_zero((const unsigned char *)name + nl, align_up(nl, 8) - nl))
            return ferr(ld, D2_ERR_FORMAT, "parameter entry %u: nonzero name padding", k);
        char vname[D2_MODEL_MAX_NAME + 1];
        memcpy(vname, name, nl);
        vname[nl] = '\0';
        if (dt >= D2_NUM_DTYPES)
            return ferr(ld, D2_ERR_FORMAT, "parameter '%s': unknown dtype code %u", vname, dt);
        /* the product of the nonzero dims must fit as well, so strides never overflow */
        int64_t dims[D2_MAX_DIMS];
        int64_t span = (int64_t)d2_dtype_size((d2_dtype)dt);
        bool empty = false;
        for (uint32_t i = 0; i < ndim; i++) {
            uint64_t d = get64(r + REC_FIXED + 8 * i);
            if (d > (uint64_t)INT64_MAX)
                return ferr(ld, D2_ERR_FORMAT, "parameter '%s': negative dimension", vname);
            dims[i] = (int64_t)d;
            empty = empty || d == 0;
            if (!d2_mul_i64(span, d ? (int64_t)d : 1, &span))
                return ferr(ld, D2_ERR_FORMAT, "parameter '%s': size overflows", vname);
        }
        uint64_t expect_bytes = empty ? 0 : (uint64_t)span;
        if (nbytes != expect_bytes)
            return ferr(ld, D2_ERR_FORMAT,
                        "parameter '%s': %llu data bytes recorded, its %s shape needs %llu",
                        vname, (unsigned long long)nbytes, d2_dtype_name((d2_dtype)dt),
                        (unsigned long long)expect_bytes);
        uint64_t at = align_up(data_cur, ALIGN);
        if (off != at)
            return ferr(ld, D2_ERR_FORMAT, "parameter '%s': data at offset %llu (expected %llu)",
                        vname, (unsigned long long)off, (unsigned long long)at);
        if (off > data_end || nbytes > data_end - off)
            return ferr(ld, D2_ERR_FORMAT,
                        "parameter '%s': data [%llu, +%llu) lies outside the data section", vname,
                        (unsigned long long)off, (unsigned long long)nbytes);
        if (!all_zero(ld->b + data_cur, off - data_cur))
            return ferr(ld, D2_ERR_FORMAT, "nonzero padding before parameter '%s'", vname);
        data_cur = off + nbytes;

        int v = d2_program_find_var(p, vname);
        if (v < 0)
            return ferr(ld, D2_ERR_FORMAT, "parameter '%s' is not a variable of the program",
                        vname);
        d2_var *var = &p->vars[v];
        if (!var->persistable)
            return ferr(ld, D2_ERR_FORMAT, "'%s' has data but is not a parameter of the program",
                        vname);
        if (var->data)
            return ferr(ld, D2_ERR_FORMAT, "parameter '%s' appears twice", vname);
        d2_shape s = {.ndim = (int)ndim};
        memcpy(s.dims, dims, sizeof(int64_t) * ndim);
        if (var->type.kind != D2_VALUE_TENSOR || var->type.dtype != (d2_dtype)dt ||
            !d2_shape_equal(&var->type.shape, &s)) {
            char want[128], got[128];
            d2_shape_str(&var->type.shape, want, sizeof want);
            d2_shape_str(&s, got, sizeof got);
            return ferr(ld, D2_ERR_FORMAT,
                        "parameter '%s': data is %s%s but the program declares %s%s", vname,
                        d2_dtype_name((d2_dtype)dt), got, d2_dtype_name(var->type.dtype), want);
        }
        var->data = make_param(ld, (d2_dtype)dt, (int)ndim, dims, off, nbytes);
        if (!var->data)
            return -1;
        if (dt == D2_BOOL && nbytes) {
            const unsigned char *bv = ld->b + off;
            for (uint64_t i = 0; i < nbytes; i++)
                if (bv[i] > 1)
                    return ferr(ld, D2_ERR_FORMAT, "parameter '%s': invalid bool byte %u",
                                vname, bv[i]);
        }
        pos += rec;
    }
    if (pos != n)
        return ferr(ld, D2_ERR_FORMAT, "%llu unexpected bytes at the end of the parameter table",
                    (unsigned long long)(n - pos));
    if (data_cur != data_end)
        return ferr(ld, D2_ERR_FORMAT, "%llu unexpected bytes at the end of the data section",
                    (unsigned long long)(data_end - data_cur));
    for (int i = 0; i < p->n_vars; i++)
        if (p->vars[i].persistable && !p->vars[i].data)
            return ferr(ld, D2_ERR_FORMAT, "parameter '%s' has no data in the file",
                        p->vars[i].name);
    return 0;
}

static d2_program *load_image(loader *ld)
{
    if (check_header(ld) < 0)
        return NULL;
    d2_program *p = load_program(ld);
    if (!p)
        return NULL;
    if (load_params(ld, p) < 0) {
        d2_program_free(p);
        return NULL;
    }
    d2_err verr = {0};
    if (d2_program_verify(p, &verr) < 0) {
        ferr(ld, verr.code, "invalid program: %s", verr.msg);
        d2_program_free(p);
        return NULL;
    }
    return p;
}

d2_program *d2_model_load_mem(const void *data, size_t size, const char *name, d2_err *err)
{
    loader ld = {.b = data, .size = size, .name = name ? name : "<memory>", .err = err};
    if (!data && size) {
        d2_err_set(err, D2_ERR_INVALID, "%s: no data", ld.name);
        return NULL;
    }
    if (!data)
        ld.b = (const unsigned char *)"";
    return load_image(&ld);
}

/* Reads the whole file into a new buffer (caller frees). */
static unsigned char *read_all(int fd, size_t size, const char *path, d2_err *err)
{
    unsigned char *buf = d2_malloc(size + 1);
    if (!buf) {
        d2_err_set(err, D2_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size);
        return NULL;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            d2_err_set(err, D2_ERR_IO, "%s: read error: %s", path,
                       r < 0 ? strerror(errno) : "file shrank while reading");
            d2_free(buf);
            return NULL;
        }
        got += (size_t)r;
    }
    buf[size] = '\0';
    return buf;
}

static int open_regular(const char *path, size_t *size, d2_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return d2_err_set(err, D2_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return d2_err_set(err, D2_ERR_IO, "%s: not a regular file", path);
    }
    *size = (size_t)st.st_size;
    return fd;
}

d2_program *d2_model_load(const char *path, d2_err *err)
{
    size_t size;
    int fd = open_regular(path, &size, err);
    if (fd < 0)
        return NULL;
    d2_program *p = NULL;
    mapping *m = NULL;
    void *base = MAP_FAILED;
    if (size > 0) {
        m = d2_calloc(1, sizeof *m);
        if (m)
            /* private and writable: kernels that write in place get copies */
            base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    }
    if (base != MAP_FAILED) {
        close(fd);
        m->refs = 1;
        m->base = base;
        m->size = size;
        loader ld = {.b = base, .size = size, .name = path, .map = m, .err = err};
        p = load_image(&ld);
        mapping_unref(m);
        return p;
    }
    d2_free(m);
    unsigned char *buf = read_all(fd, size, path, err);
    close(fd);
    if (!buf)
        return NULL;
    p = d2_model_load_mem(buf, size, path, err);
    d2_free(buf);
    return p;
}

d2_program *d2_model_open(const char *path, d2_err *err)
{
    size_t size;
    int fd = open_regular(path, &size, err);
    if (fd < 0)
        return NULL;
    unsigned char head[D2_MODEL_MAGIC_LEN];
    ssize_t r = read(fd, head, sizeof head);
    if (r == (ssize_t)sizeof head && d2_model_is_saved(head, sizeof head)) {
        close(fd);
        return d2_model_load(path, err);
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        d2_err_set(err, D2_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char *text = read_all(fd, size, path, err);
    close(fd);
    if (!text)
        return NULL;
    d2_program *p = NULL;
    if (memchr(text, '\0', size))
        d2_err_set(err, D2_ERR_FORMAT,
                   "%s: neither a saved model nor a text-form program (binary data)", path);
    else
        p = d2_program_parse((const char *)text, path, err);
    d2_free(text);
    return p;
}

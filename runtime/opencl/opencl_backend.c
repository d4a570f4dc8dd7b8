/* opencl_backend.c - OpenCL backend: ICD loader, devices, buffers, transfers, programs, kernels. */
#define D2_OPENCL_INTERNAL
#include "opencl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated runtime/opencl/cl_sources.c: every kernels/NAME.cl as a string. */
extern const struct {
    const char *name;
    const char *text;
} d2_cl_sources[];
extern const int d2_cl_num_sources;

ocl_api ocl;

#define MAX_DEVICES 32

/* Process-wide discovery state, filled once by discover(). */
static pthread_once_t disc_once = PTHREAD_ONCE_INIT;
static d2_errcode disc_code;
static char disc_msg[D2_ERR_MSG_MAX];
static int n_devices;
static cl_device_id dev_ids[MAX_DEVICES];
static cl_platform_id dev_platforms[MAX_DEVICES];
static void *loader_handle;

static pthread_mutex_t devs_mu = PTHREAD_MUTEX_INITIALIZER;
static ocl_dev *devs[MAX_DEVICES];

/* ---- error names ---- */

const char *ocl_errname(cl_int rc)
{
    switch (rc) {
        /* clang-format off */
#define E(c) case c: return #c;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
            /* clang-format on */
            case -1001 : return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "CL_UNKNOWN_ERROR";
    }
}

static bool is_alloc_error(cl_int rc)
{
    return rc == CL_MEM_OBJECT_ALLOCATION_FAILURE || rc == CL_OUT_OF_RESOURCES ||
           rc == CL_OUT_OF_HOST_MEMORY || rc == CL_INVALID_BUFFER_SIZE;
}

int ocl_fail(ocl_dev *d, d2_err *err, const char *what, cl_int rc)
{
    const char *dev = d ? d->name : "OpenCL";
    if (is_alloc_error(rc))
        return d2_err_set(err, D2_ERR_NOMEM, "OpenCL device %s: %s: out of device memory (%s, %d)",
                          dev, what, ocl_errname(rc), (int)rc);
    return d2_err_set(err, D2_ERR_DEVICE, "OpenCL device %s: %s failed: %s (%d)", dev, what,
                      ocl_errname(rc), (int)rc);
}

/* ---- loader ---- */

/* Opens libname and resolves every entry point into *api; returns the handle
 * (owned by the caller) or NULL with err set. */
static void *load_api(const char *libname, ocl_api *api, d2_err *err)
{
    dlerror();
    void *h = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        d2_err_set(err, D2_ERR_DEVICE,
                   "cannot load the OpenCL ICD loader %s: %s (install an OpenCL ICD loader, e.g. "
                   "ocl-icd-libopencl1, and a driver such as pocl-opencl-icd)",
                   libname, why ? why : "unknown error");
        return NULL;
    }
#define X(ret, name, args)                                                                         \
    *(void **)&api->name = dlsym(h, "cl" #name);                                                   \
    if (!api->name) {                                                                              \
        d2_err_set(err, D2_ERR_DEVICE, "the OpenCL ICD loader %s lacks cl%s (OpenCL 1.2 needed)",  \
                   libname, #name);                                                                \
        dlclose(h);                                                                                \
        return NULL;                                                                               \
    }
    OCL_API(X)
#undef X
    return h;
}

int d2_opencl_probe_loader(const char *libname, d2_err *err)
{
    ocl_api api;
    void *h = load_api(libname, &api, err);
    if (!h)
        return -1;
    dlclose(h);
    return 0;
}

static void disc_fail(d2_errcode code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void disc_fail(d2_errcode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(disc_msg, sizeof disc_msg, fmt, ap);
    va_end(ap);
    disc_code = code;
}

/* Loads the ICD loader and lists every device of every platform (once). */
static void discover(void)
{
    d2_err err = {0};
    const char *lib = getenv("DY2ST_OPENCL_LIBRARY");
    if (lib && *lib) {
        loader_handle = load_api(lib, &ocl, &err);
        if (!loader_handle) {
            disc_fail(err.code, "%s (named by DY2ST_OPENCL_LIBRARY)", err.msg);
            return;
        }
    } else {
        loader_handle = load_api("libOpenCL.so.1", &ocl, &err);
        if (!loader_handle) {
            d2_err_clear(&err);
            loader_handle = load_api("libOpenCL.so", &ocl, &err);
        }
    }
    if (!loader_handle) {
        disc_fail(err.code, "%s", err.msg);
        return;
    }
    cl_uint np = 0;
    cl_int rc = ocl.GetPlatformIDs(0, NULL, &np);
    if (rc == -1001 || (rc == CL_SUCCESS && np == 0)) {
        disc_fail(D2_ERR_DEVICE, "no OpenCL platform found (no ICD driver is installed; PoCL's "
                                 "pocl-opencl-icd provides one for CPUs)");
        return;
    }
    if (rc != CL_SUCCESS) {
        disc_fail(D2_ERR_DEVICE, "clGetPlatformIDs failed: %s (%d)", ocl_errname(rc), (int)rc);
        return;
    }
    cl_platform_id plats[16];
    if (np > 16)
        np = 16;
    rc = ocl.GetPlatformIDs(np, plats, NULL);
    if (rc != CL_SUCCESS) {
        disc_fail(D2_ERR_DEVICE, "clGetPlatformIDs failed: %s (%d)", ocl_errname(rc), (int)rc);
        return;
    }
    for (cl_uint p = 0; p < np && n_devices < MAX_DEVICES; p++) {
        cl_uint nd = 0;
        if (ocl.GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || !nd)
            continue;
        if (nd > (cl_uint)(MAX_DEVICES - n_devices))
            nd = (cl_uint)(MAX_DEVICES - n_devices);
        if (ocl.GetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, dev_ids + n_devices, NULL) !=
            CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd; i++)
            dev_platforms[n_devices + (int)i] = plats[p];
        n_devices += (int)nd;
    }
    if (n_devices == 0)
        disc_fail(D2_ERR_DEVICE, "no OpenCL device found on %u platform(s)", (unsigned)np);
}

/* Runs discovery; returns 0 when at least one device exists. */
static int discovered(d2_err *err)
{
    pthread_once(&disc_once, discover);
    if (disc_code != D2_OK)
        return d2_err_set(err, disc_code, "%s", disc_msg);
    return 0;
}

static void info_str(cl_device_id dev, cl_device_info what, char *out, size_t n)
{
    out[0] = '\0';
    if (ocl.GetDeviceInfo(dev, what, n - 1, out, NULL) != CL_SUCCESS)
        snprintf(out, n, "?");
    out[n - 1] = '\0';
}

static void platform_str(cl_platform_id p, char *out, size_t n)
{
    out[0] = '\0';
    if (ocl.GetPlatformInfo(p, CL_PLATFORM_NAME, n - 1, out, NULL) != CL_SUCCESS)
        snprintf(out, n, "?");
    out[n - 1] = '\0';
}

int d2_opencl_list_devices(d2_buf *out, d2_err *err)
{
    if (discovered(err) < 0)
        return -1;
    for (int i = 0; i < n_devices; i++) {
        char name[256], plat[256], ver[128];
        info_str(dev_ids[i], CL_DEVICE_NAME, name, sizeof name);
        info_str(dev_ids[i], CL_DEVICE_VERSION, ver, sizeof ver);
        platform_str(dev_platforms[i], plat, sizeof plat);
        d2_buf_printf(out, "%d: %s / %s (%s)\n", i, plat, name, ver);
    }
    if (out->oom)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory listing OpenCL devices");
    return n_devices;
}

/* ---- counters ---- */

#define STAT_ADD(d, field, v) __atomic_fetch_add(&(d)->stats.field, (uint64_t)(v), __ATOMIC_RELAXED)

void d2_opencl_get_stats(d2_backend *be, d2_opencl_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return;
    ocl_dev *d = (ocl_dev *)be;
#define G(f) out->f = __atomic_load_n(&d->stats.f, __ATOMIC_RELAXED);
    G(uploads) G(upload_bytes) G(downloads) G(download_bytes) G(copies) G(launches)
    G(buffers_created) G(buffers_reused)
#undef G
}

void d2_opencl_reset_stats(d2_backend *be)
{
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return;
    ocl_dev *d = (ocl_dev *)be;
#define Z(f) __atomic_store_n(&d->stats.f, 0, __ATOMIC_RELAXED);
    Z(uploads) Z(upload_bytes) Z(downloads) Z(download_bytes) Z(copies) Z(launches)
    Z(buffers_created) Z(buffers_reused)
#undef Z
}

/* With DY2ST_OPENCL_STATS set (and not "0"), prints every used device's
 * counters to stderr at exit. */
static void print_stats_at_exit(void)
{
    for (int i = 0; i < MAX_DEVICES; i++) {
        ocl_dev *d = devs[i];
        if (!d)
            continue;
        d2_opencl_stats st;
        d2_opencl_get_stats(&d->be, &st);
        fprintf(stderr,
                "dy2st: opencl:%d (%s): %llu kernel launches, %llu uploads (%llu bytes), "
                "%llu downloads (%llu bytes), %llu device copies, %llu buffers created, "
                "%llu reused\n",
                i, d->name, (unsigned long long)st.launches, (unsigned long long)st.uploads,
                (unsigned long long)st.upload_bytes, (unsigned long long)st.downloads,
                (unsigned long long)st.download_bytes, (unsigned long long)st.copies,
                (unsigned long long)st.buffers_created, (unsigned long long)st.buffers_reused);
    }
}

/* ---- buffers and transfers ---- */

/* The size a buffer of n bytes is allocated with, so that freed buffers can be
 * reused for requests of nearly the same size: multiples of 256 bytes up to
 * 4 KiB, then four classes per power of two (at most 25% larger). */
static size_t size_class(size_t n)
{
    if (n <= 4096)
        return (n + 255) & ~(size_t)255;
    size_t p = 4096;
    while (p * 2 < n && p < ((size_t)1 << 62))
        p *= 2;
    size_t step = p / 4, c;
    /* no class above SIZE_MAX: such a request is exact (and fails) */
    if (!d2_add_size(n, step - 1, &c))
        return n;
    c = c / step * step;
    return c < n ? n : c;
}

/* Takes a pooled buffer of exactly `size` bytes, or NULL. */
static cl_mem pool_take(ocl_dev *d, size_t size)
{
    cl_mem m = NULL;
    pthread_mutex_lock(&d->pool_mu);
    for (int i = d->pool_n - 1; i >= 0; i--)
        if (d->pool[i].size == size) {
            m = d->pool[i].m;
            d->pool_bytes -= size;
            d->pool[i] = d->pool[--d->pool_n];
            break;
        }
    pthread_mutex_unlock(&d->pool_mu);
    return m;
}

void d2_opencl_trim_pool(d2_backend *be)
{
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return;
    ocl_dev *d = (ocl_dev *)be;
    pthread_mutex_lock(&d->pool_mu);
    for (int i = 0; i < d->pool_n; i++)
        ocl.ReleaseMemObject(d->pool[i].m);
    d->pool_n = 0;
    d->pool_bytes = 0;
    pthread_mutex_unlock(&d->pool_mu);
}

static void *be_alloc(d2_backend *be, size_t n, d2_err *err)
{
    ocl_dev *d = (ocl_dev *)be;
    if (n < 8)
        n = 8;
    size_t want = size_class(n);
    if (want > d->max_alloc)
        want = n;
    if (n > d->max_alloc) {
        d2_err_set(err, D2_ERR_NOMEM,
                   "OpenCL device %s: cannot allocate %zu bytes: more than the device's largest "
                   "allocation (%llu bytes)",
                   d->name, n, (unsigned long long)d->max_alloc);
        return NULL;
    }
    cl_mem m = pool_take(d, want);
    if (m) {
        STAT_ADD(d, buffers_reused, 1);
        return m;
    }
    cl_int rc;
    m = ocl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, want, NULL, &rc);
    if ((!m || rc != CL_SUCCESS) && d->pool_n > 0) {
        /* the pooled buffers may be what fills the device: release them, retry */
        d2_opencl_trim_pool(be);
        m = ocl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, want, NULL, &rc);
    }
    if (!m || rc != CL_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "allocating %zu bytes", n);
        ocl_fail(d, err, what, rc == CL_SUCCESS ? CL_MEM_OBJECT_ALLOCATION_FAILURE : rc);
        return NULL;
    }
    STAT_ADD(d, buffers_created, 1);
    return m;
}

/* Keeps the buffer for reuse when the pool has room, else releases it. The
 * queue is in order, so work still queued on the buffer's old contents runs
 * before anything its next owner enqueues. */
static void be_free(d2_backend *be, void *buf)
{
    ocl_dev *d = (ocl_dev *)be;
    if (!buf)
        return;
    size_t size = 0;
    if (ocl.GetMemObjectInfo((cl_mem)buf, CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS &&
        size > 0) {
        pthread_mutex_lock(&d->pool_mu);
        bool kept = d->pool_n < OCL_POOL_MAX && d->pool_bytes + size <= d->pool_max_bytes;
        if (kept) {
            d->pool[d->pool_n].m = (cl_mem)buf;
            d->pool[d->pool_n].size = size;
            d->pool_n++;
            d->pool_bytes += size;
        }
        pthread_mutex_unlock(&d->pool_mu);
        if (kept)
            return;
    }
    ocl.ReleaseMemObject((cl_mem)buf);
}

static int be_upload(d2_backend *be, void *dst, size_t dst_off, const void *src, size_t n,
                     d2_err *err)
{
    ocl_dev *d = (ocl_dev *)be;
    if (n == 0)
        return 0;
    STAT_ADD(d, uploads, 1);
    STAT_ADD(d, upload_bytes, n);
    cl_int rc =
        ocl.EnqueueWriteBuffer(d->queue, (cl_mem)dst, CL_TRUE, dst_off, n, src, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, err, "upload (clEnqueueWriteBuffer)", rc);
}

/* ---- deferred checks ---- */

cl_mem ocl_check_begin(ocl_dev *d, cl_int init, d2_err *err)
{
    cl_mem m = be_alloc(&d->be, sizeof init, err);
    if (!m)
        return NULL;
    cl_int rc = ocl.EnqueueFillBuffer(d->queue, m, &init, sizeof init, 0, sizeof init, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        be_free(&d->be, m);
        ocl_fail(d, err, "clEnqueueFillBuffer", rc);
        return NULL;
    }
    return m;
}

void ocl_check_abort(ocl_dev *d, cl_mem flag) { be_free(&d->be, flag); }

/* The runs this thread is in, innermost first (see ocl_runstate). */
static _Thread_local ocl_runstate *thread_runs;

/* The innermost run of this thread on d, or NULL outside any. */
static ocl_runstate *current_run(ocl_dev *d)
{
    for (ocl_runstate *r = thread_runs; r; r = r->outer)
        if (r->d == d)
            return r;
    return NULL;
}

static void *be_run_begin(d2_backend *be, d2_err *err)
{
    ocl_runstate *r = d2_calloc(1, sizeof *r);
    if (!r) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory starting a run");
        return NULL;
    }
    r->d = (ocl_dev *)be;
    r->outer = thread_runs;
    thread_runs = r;
    return r;
}

/* Drops checks[0..n) of a run: their flags and index references. The queue
 * is in order, so a flag's kernel runs before the buffer's next owner. */
static void drop_checks(ocl_dev *d, ocl_check *checks, int n)
{
    for (int i = 0; i < n; i++) {
        be_free(&d->be, checks[i].flag);
        d2_tensor_unref(checks[i].index);
    }
}

static void be_run_end(d2_backend *be, void *run)
{
    ocl_runstate *r = run;
    if (!r)
        return;
    /* unlink it wherever it is (runs end innermost first when used correctly) */
    for (ocl_runstate **p = &thread_runs; *p; p = &(*p)->outer)
        if (*p == r) {
            *p = r->outer;
            break;
        }
    drop_checks((ocl_dev *)be, r->checks, r->n_checks);
    d2_free(r);
}

/* Reads every pending check of run r and, when src is given, n <= 16 bytes of
 * src at off into dst, in one download; then reports the first failed check
 * (in launch order). The run's checks are consumed either way. */
static int read_checked(ocl_dev *d, ocl_runstate *r, void *dst, cl_mem src, size_t off, size_t n,
                        d2_err *err)
{
    cl_int flags[OCL_CHECKS];
    unsigned char buf[16 + 4 * OCL_CHECKS];
    int nt = r->n_checks;
    ocl_check *taken = r->checks;
    cl_int rc = CL_SUCCESS;
    const char *what = "download (clEnqueueReadBuffer)";
    pthread_mutex_lock(&d->chk_mu);
    if (src)
        rc = ocl.EnqueueCopyBuffer(d->queue, src, d->errbuf, off, 0, n, 0, NULL, NULL);
    for (int i = 0; i < nt && rc == CL_SUCCESS; i++)
        rc = ocl.EnqueueCopyBuffer(d->queue, taken[i].flag, d->errbuf, 0, 16 + 4 * (size_t)i, 4, 0,
                                   NULL, NULL);
    if (rc != CL_SUCCESS)
        what = "copy (clEnqueueCopyBuffer)";
    size_t nb = 16 + 4 * (size_t)nt;
    if (rc == CL_SUCCESS) {
        STAT_ADD(d, downloads, 1);
        STAT_ADD(d, download_bytes, (src ? n : 0) + 4 * (size_t)nt);
        rc = ocl.EnqueueReadBuffer(d->queue, d->errbuf, CL_TRUE, 0, nb, buf, 0, NULL, NULL);
    }
    pthread_mutex_unlock(&d->chk_mu);
    int result = 0;
    if (rc != CL_SUCCESS)
        result = ocl_fail(d, err, what, rc);
    else if (src)
        memcpy(dst, buf, n);
    for (int i = 0; i < nt && result == 0; i++) {
        memcpy(&flags[i], buf + 16 + 4 * i, 4);
        ocl_check *c = &taken[i];
        cl_int f = flags[i];
        if (f == c->init)
            continue;
        result = -1;
        if (c->kind == OCL_CHECK_DIV) {
            d2_err_set(err, D2_ERR_RUNTIME, "%s: %s", c->op,
                       f == 2 ? "zero cannot be raised to a negative integer power"
                              : "integer division by zero");
        } else {
            /* the bad index itself, for the message */
            union {
                int32_t i;
                int64_t l;
            } v = {0};
            size_t es = d2_dtype_size(c->index->dtype);
            ocl.EnqueueReadBuffer(d->queue, (cl_mem)c->index->storage->data, CL_TRUE,
                                  (size_t)(c->index->offset + f) * es, es, &v, 0, NULL, NULL);
            long long bad = c->index->dtype == D2_I32 ? v.i : v.l;
            if (c->kind == OCL_CHECK_GATHER)
                d2_err_set(err, D2_ERR_RUNTIME,
                           "%s: index %lld (at position %d) is out of range for axis %d of "
                           "size %lld",
                           c->op, bad, (int)f, (int)c->axis, (long long)c->size);
            else
                d2_err_set(err, D2_ERR_RUNTIME,
                           "%s: id %lld at position %d is out of range [0, %lld)", c->op, bad,
                           (int)f, (long long)c->size);
        }
    }
    drop_checks(d, taken, nt);
    r->n_checks = 0;
    return result;
}

int ocl_check_commit(ocl_dev *d, cl_mem flag, cl_int init, ocl_check_kind kind, const char *op,
                     int64_t axis, int64_t size, d2_tensor *index, d2_err *err)
{
    /* outside a run there is nobody to defer to: read the flag right away */
    ocl_runstate alone = {.d = d};
    ocl_runstate *r = current_run(d);
    if (!r)
        r = &alone;
    /* full: read the pending ones now */
    if (r->n_checks == OCL_CHECKS && read_checked(d, r, NULL, NULL, 0, 0, err) < 0) {
        be_free(&d->be, flag);
        return -1;
    }
    ocl_check *c = &r->checks[r->n_checks++];
    c->flag = flag;
    c->kind = kind;
    c->init = init;
    snprintf(c->op, sizeof c->op, "%s", op);
    c->axis = axis;
    c->size = size;
    c->index = index ? d2_tensor_ref(index) : NULL;
    return r == &alone ? read_checked(d, r, NULL, NULL, 0, 0, err) : 0;
}

static int be_download(d2_backend *be, void *dst, const void *src, size_t src_off, size_t n,
                       d2_err *err)
{
    ocl_dev *d = (ocl_dev *)be;
    if (n == 0)
        return 0;
    ocl_runstate *r = current_run(d);
    if (r && r->n_checks > 0) {
        if (n <= 16)
            return read_checked(d, r, dst, (cl_mem)src, src_off, n, err);
        if (read_checked(d, r, NULL, NULL, 0, 0, err) < 0)
            return -1;
    }
    STAT_ADD(d, downloads, 1);
    STAT_ADD(d, download_bytes, n);
    cl_int rc =
        ocl.EnqueueReadBuffer(d->queue, (cl_mem)src, CL_TRUE, src_off, n, dst, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, err, "download (clEnqueueReadBuffer)", rc);
}

static int be_copy(d2_backend *be, void *dst, size_t dst_off, const void *src, size_t src_off,
                   size_t n, d2_err *err)
{
    ocl_dev *d = (ocl_dev *)be;
    if (n == 0 || (dst == src && dst_off == src_off))
        return 0;
    STAT_ADD(d, copies, 1);
    cl_int rc;
    if (dst == src && dst_off < src_off + n && src_off < dst_off + n) {
        /* overlapping ranges of one buffer: go through a temporary */
        cl_mem t = ocl_temp(d, n, err);
        if (!t)
            return -1;
        rc = ocl.EnqueueCopyBuffer(d->queue, (cl_mem)src, t, src_off, 0, n, 0, NULL, NULL);
        if (rc == CL_SUCCESS)
            rc = ocl.EnqueueCopyBuffer(d->queue, t, (cl_mem)dst, 0, dst_off, n, 0, NULL, NULL);
        ocl_release(t);
    } else {
        rc = ocl.EnqueueCopyBuffer(d->queue, (cl_mem)src, (cl_mem)dst, src_off, dst_off, n, 0, NULL,
                                   NULL);
    }
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, err, "copy (clEnqueueCopyBuffer)", rc);
}

cl_mem ocl_temp(ocl_dev *d, size_t n, d2_err *err) { return (cl_mem)be_alloc(&d->be, n, err); }

void ocl_release(cl_mem m)
{
    if (m)
        ocl.ReleaseMemObject(m);
}

static int be_sync(d2_backend *be, d2_err *err)
{
    ocl_dev *d = (ocl_dev *)be;
    cl_int rc = ocl.Finish(d->queue);
    if (rc != CL_SUCCESS)
        return ocl_fail(d, err, "clFinish", rc);
    ocl_runstate *r = current_run(d);
    if (r && r->n_checks > 0)
        return read_checked(d, r, NULL, NULL, 0, 0, err);
    return 0;
}

/* ---- kernel table (one entry per op of ops.def) ---- */

static const d2_kernel_fn ocl_kernels[D2_NUM_OPS] = {
#define OP(name, ins, outs, attrs, infer, flags) [D2_OP_##name] = ocl_##name,
#define CTL(name, ins, outs, attrs, infer, flags) [D2_OP_##name] = ctl_##name,
#include "../ops.def"
#undef OP
#undef CTL
};

static d2_kernel_fn be_kernel(d2_backend *be, d2_op_id op)
{
    D2_UNUSED(be);
    return (unsigned)op < D2_NUM_OPS ? ocl_kernels[op] : NULL;
}

/* ---- program build ---- */

/* Builds `n` sources into a program for d; on failure sets err with the build
 * log (truncated to fit) and returns NULL. */
static cl_program build_program(ocl_dev *d, int n, const char **src, d2_err *err)
{
    cl_int rc;
    cl_program p = ocl.CreateProgramWithSource(d->ctx, (cl_uint)n, src, NULL, &rc);
    if (!p || rc != CL_SUCCESS) {
        ocl_fail(d, err, "clCreateProgramWithSource", rc);
        return NULL;
    }
    char opts[128];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2%s%s", d->has_fp64 ? " -DD2_FP64=1" : "",
             d->max_wg >= 256 ? " -DD2_WG256=1" : "");
    rc = ocl.BuildProgram(p, 1, &d->device, opts, NULL, NULL);
    if (rc == CL_SUCCESS)
        return p;
    size_t len = 0;
    char *log = NULL;
    if (ocl.GetProgramBuildInfo(p, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
        len > 0 && (log = d2_malloc(len + 1)) != NULL) {
        if (ocl.GetProgramBuildInfo(p, d->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) !=
            CL_SUCCESS)
            log[0] = '\0';
        log[len] = '\0';
    }
    d2_err_set(err, D2_ERR_DEVICE,
               "OpenCL device %s: program build failed: %s (%d); build log:\n%.700s", d->name,
               ocl_errname(rc), (int)rc, log && log[0] ? log : "(empty)");
    d2_free(log);
    ocl.ReleaseProgram(p);
    return NULL;
}

int d2_opencl_build_source(d2_backend *be, const char *source, d2_err *err)
{
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return d2_err_set(err, D2_ERR_INVALID, "not an OpenCL backend");
    ocl_dev *d = (ocl_dev *)be;
    cl_program p = build_program(d, 1, &source, err);
    if (!p)
        return -1;
    ocl.ReleaseProgram(p);
    return 0;
}

void d2_opencl_set_fp64(d2_backend *be, bool on)
{
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return;
    ocl_dev *d = (ocl_dev *)be;
    d->fp64 = on && d->has_fp64;
}

void d2_opencl_set_gemm_tiled(d2_backend *be, int mode)
{
    if (!be || be->kind != D2_BACKEND_OPENCL)
        return;
    ocl_dev *d = (ocl_dev *)be;
    d->gemm_tiled = mode < 0 ? d->gemm_tiled_auto : mode != 0;
}

/* Builds the embedded program once (d->mu held). common.cl comes first. */
static int ensure_program(ocl_dev *d, d2_err *err)
{
    if (d->build_state == 1)
        return 0;
    if (d->build_state < 0)
        return d2_err_set(err, d->build_code, "%s", d->build_msg);
    const char *src[64];
    int n = 0;
    for (int i = 0; i < d2_cl_num_sources && n < 64; i++)
        if (strcmp(d2_cl_sources[i].name, "common.cl") == 0)
            src[n++] = d2_cl_sources[i].text;
    for (int i = 0; i < d2_cl_num_sources && n < 64; i++)
        if (strcmp(d2_cl_sources[i].name, "common.cl") != 0)
            src[n++] = d2_cl_sources[i].text;
    d2_err e = {0};
    d->program = build_program(d, n, src, &e);
    if (!d->program) {
        d->build_state = -1;
        d->build_code = e.code;
        snprintf(d->build_msg, sizeof d->build_msg, "%s", e.msg);
        return d2_err_set(err, e.code, "%s", e.msg);
    }
    d->build_state = 1;
    return 0;
}

static size_t hash_name(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Returns the cache slot of `name` (d->mu held), creating the kernel on a miss. */
static ocl_kentry *kernel_entry(ocl_dev *d, const char *name, d2_err *err)
{
    if (ensure_program(d, err) < 0)
        return NULL;
    size_t h = hash_name(name);
    for (size_t probe = 0; probe < OCL_KCACHE; probe++) {
        ocl_kentry *e = &d->kcache[(h + probe) % OCL_KCACHE];
        if (e->name && strcmp(e->name, name) == 0)
            return e;
        if (!e->name) {
            cl_int rc;
            cl_kernel k = ocl.CreateKernel(d->program, name, &rc);
            if (!k || rc != CL_SUCCESS) {
                char what[160];
                snprintf(what, sizeof what, "creating kernel %s", name);
                ocl_fail(d, err, what, rc);
                return NULL;
            }
            size_t wg = 0;
            if (ocl.GetKernelWorkGroupInfo(k, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                           NULL) != CL_SUCCESS ||
                wg == 0)
                wg = 1;
            char *nm = d2_strdup(name);
            if (!nm) {
                ocl.ReleaseKernel(k);
                d2_err_set(err, D2_ERR_NOMEM, "out of memory");
                return NULL;
            }
            e->name = nm;
            e->kernel = k;
            e->max_wg = wg;
            return e;
        }
    }
    d2_err_set(err, D2_ERR_DEVICE, "OpenCL kernel cache is full");
    return NULL;
}

cl_kernel ocl_kernel(ocl_dev *d, const char *name, size_t *max_wg, d2_err *err)
{
    pthread_mutex_lock(&d->mu);
    ocl_kentry *e = kernel_entry(d, name, err);
    cl_kernel k = e ? e->kernel : NULL;
    if (e && max_wg)
        *max_wg = e->max_wg;
    pthread_mutex_unlock(&d->mu);
    return k;
}

/* ---- launches ---- */

static void arg_push(ocl_args *a, size_t size)
{
    D2_ASSERT(a->n < OCL_MAX_ARGS);
    a->size[a->n++] = size;
}

void ocl_arg_mem(ocl_args *a, cl_mem m)
{
    a->v[a->n].m = m;
    arg_push(a, sizeof(cl_mem));
}

void ocl_arg_int(ocl_args *a, int v)
{
    a->v[a->n].i = v;
    arg_push(a, sizeof(cl_int));
}

void ocl_arg_long(ocl_args *a, int64_t v)
{
    a->v[a->n].l = v;
    arg_push(a, sizeof(cl_long));
}

void ocl_arg_float(ocl_args *a, float v)
{
    a->v[a->n].f = v;
    arg_push(a, sizeof(cl_float));
}

void ocl_arg_double(ocl_args *a, double v)
{
    a->v[a->n].d = v;
    arg_push(a, sizeof(cl_double));
}

void ocl_arg_long8(ocl_args *a, const int64_t *v, int n, bool fill1)
{
    for (int i = 0; i < 8; i++)
        a->v[a->n].l8.s[i] = i < n ? v[i] : (fill1 ? 1 : 0);
    arg_push(a, sizeof(cl_long8));
}

int ocl_run(ocl_dev *d, const char *name, int dims, const size_t *gws, const size_t *lws,
            const ocl_args *a, d2_err *err)
{
    if (a->n > OCL_MAX_ARGS)
        return d2_err_set(err, D2_ERR_DEVICE, "kernel %s: too many arguments", name);
    pthread_mutex_lock(&d->mu);
    ocl_kentry *e = kernel_entry(d, name, err);
    if (!e) {
        pthread_mutex_unlock(&d->mu);
        return -1;
    }
    cl_int rc = CL_SUCCESS;
    char what[160];
    for (int i = 0; i < a->n && rc == CL_SUCCESS; i++) {
        rc = ocl.SetKernelArg(e->kernel, (cl_uint)i, a->size[i], &a->v[i]);
        if (rc != CL_SUCCESS)
            snprintf(what, sizeof what, "kernel %s: setting argument %d", name, i);
    }
    if (rc == CL_SUCCESS) {
        STAT_ADD(d, launches, 1);
        rc = ocl.EnqueueNDRangeKernel(d->queue, e->kernel, (cl_uint)dims, NULL, gws, lws, 0, NULL,
                                      NULL);
        if (rc != CL_SUCCESS)
            snprintf(what, sizeof what, "kernel %s: clEnqueueNDRangeKernel", name);
    }
    pthread_mutex_unlock(&d->mu);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, err, what, rc);
}

/* ---- devices ---- */

/* Creates the context and queue of device index i; NULL with err set. */
static ocl_dev *dev_create(int i, d2_err *err)
{
    ocl_dev *d = d2_calloc(1, sizeof *d);
    if (!d) {
        d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the OpenCL backend");
        return NULL;
    }
    d->index = i;
    d->device = dev_ids[i];
    info_str(d->device, CL_DEVICE_NAME, d->name, sizeof d->name);
    info_str(d->device, CL_DEVICE_VERSION, d->version, sizeof d->version);
    platform_str(dev_platforms[i], d->platform, sizeof d->platform);
    size_t elen = 0;
    char *ext = NULL;
    if (ocl.GetDeviceInfo(d->device, CL_DEVICE_EXTENSIONS, 0, NULL, &elen) == CL_SUCCESS &&
        (ext = d2_calloc(elen + 1, 1)) != NULL &&
        ocl.GetDeviceInfo(d->device, CL_DEVICE_EXTENSIONS, elen, ext, NULL) == CL_SUCCESS)
        d->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    d2_free(ext);
    d->fp64 = d->has_fp64;
    if (ocl.GetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc,
                          &d->max_alloc, NULL) != CL_SUCCESS)
        d->max_alloc = (cl_ulong)1 << 30;
    if (ocl.GetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg,
                          NULL) != CL_SUCCESS)
        d->max_wg = 64;
    cl_device_type type = CL_DEVICE_TYPE_GPU;
    ocl.GetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    d->gemm_tiled_auto = !(type & CL_DEVICE_TYPE_CPU);
    d->gemm_tiled = d->gemm_tiled_auto;
    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev_platforms[i],
                                     0};
    d->ctx = ocl.CreateContext(props, 1, &d->device, NULL, NULL, &rc);
    if (!d->ctx || rc != CL_SUCCESS) {
        ocl_fail(d, err, "clCreateContext", rc);
        d2_free(d);
        return NULL;
    }
    d->queue = ocl.CreateCommandQueue(d->ctx, d->device, 0, &rc);
    if (!d->queue || rc != CL_SUCCESS) {
        ocl_fail(d, err, "clCreateCommandQueue", rc);
        ocl.ReleaseContext(d->ctx);
        d2_free(d);
        return NULL;
    }
    d->dummy = ocl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &rc);
    if (!d->dummy || rc != CL_SUCCESS) {
        ocl_fail(d, err, "allocating 64 bytes", rc);
        ocl.ReleaseCommandQueue(d->queue);
        ocl.ReleaseContext(d->ctx);
        d2_free(d);
        return NULL;
    }
    d->errbuf = ocl.CreateBuffer(d->ctx, CL_MEM_READ_WRITE, 16 + 4 * OCL_CHECKS, NULL, &rc);
    if (!d->errbuf || rc != CL_SUCCESS) {
        ocl_fail(d, err, "allocating the check buffer", rc);
        ocl.ReleaseMemObject(d->dummy);
        ocl.ReleaseCommandQueue(d->queue);
        ocl.ReleaseContext(d->ctx);
        d2_free(d);
        return NULL;
    }
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->pool_mu, NULL);
    pthread_mutex_init(&d->chk_mu, NULL);
    cl_ulong gmem = 0;
    if (ocl.GetDeviceInfo(d->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL) !=
            CL_SUCCESS ||
        gmem == 0)
        gmem = (cl_ulong)1 << 30;
    d->pool_max_bytes = (size_t)(gmem / 8 < ((cl_ulong)512 << 20) ? gmem / 8 : (cl_ulong)512 << 20);
    d->be.name = "opencl";
    d->be.kind = D2_BACKEND_OPENCL;
    d->be.alloc = be_alloc;
    d->be.free = be_free;
    d->be.upload = be_upload;
    d->be.download = be_download;
    d->be.copy = be_copy;
    d->be.kernel = be_kernel;
    d->be.sync = be_sync;
    d->be.run_begin = be_run_begin;
    d->be.run_end = be_run_end;
    d->be.impl = d;
    return d;
}

d2_backend *d2_opencl_backend(int index, d2_err *err)
{
    if (discovered(err) < 0)
        return NULL;
    if (index < 0 || index >= n_devices) {
        d2_err_set(err, D2_ERR_DEVICE, "OpenCL device index %d is out of range (%d device%s found)",
                   index, n_devices, n_devices == 1 ? "" : "s");
        return NULL;
    }
    pthread_mutex_lock(&devs_mu);
    static bool stats_hooked;
    const char *st = getenv("DY2ST_OPENCL_STATS");
    if (!stats_hooked && st && *st && strcmp(st, "0") != 0) {
        stats_hooked = true;
        atexit(print_stats_at_exit);
    }
    if (!devs[index])
        devs[index] = dev_create(index, err);
    ocl_dev *d = devs[index];
    pthread_mutex_unlock(&devs_mu);
    return d ? &d->be : NULL;
}

/* ---- selection by name ---- */

d2_backend *d2_backend_from_name(const char *spec, d2_err *err)
{
    if (!spec || strcmp(spec, "cpu") == 0)
        return d2_cpu_backend();
    if (strcmp(spec, "opencl") == 0)
        return d2_opencl_backend(0, err);
    if (strncmp(spec, "opencl:", 7) == 0 && spec[7] >= '0' && spec[7] <= '9') {
        const char *p = spec + 7;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end != p && *end == '\0' && errno == 0 && v >= 0 && v <= 1000000)
            return d2_opencl_backend((int)v, err);
    }
    d2_err_set(err, D2_ERR_INVALID, "unknown device '%s' (expected cpu, opencl or opencl:N)", spec);
    return NULL;
}

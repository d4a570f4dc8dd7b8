/* opencl.h - the OpenCL backend: device listing, backend creation, backend selection by name. */
#ifndef DY2ST_OPENCL_H
#define DY2ST_OPENCL_H

#include "../backend.h"

/* Returns the OpenCL backend for device `index` (over all platforms, in
 * listing order), creating it on first use; NULL with a clear error when the
 * loader, a platform or the device is missing (D2_ERR_DEVICE). Backends live
 * until exit. Thread-safe. The ICD loader is libOpenCL.so.1 (or .so), or the
 * library DY2ST_OPENCL_LIBRARY names.
 *
 * A Program runs wholly on the device: the host reads back only cond and
 * while_loop predicates (and the few small values ops need on the host:
 * tensor-array indices, arange bounds, shape operands, print/assert).
 * Kernels that find bad input (an index out of range, integer division by
 * zero) set a device flag. Within a run (be->run_begin .. run_end, which
 * d2_exec_run brackets) the flag is read with that run's next download or
 * sync on the same thread, so the error is reported there and only to that
 * run; outside a run it is read as soon as the kernel is enqueued. */
d2_backend *d2_opencl_backend(int index, d2_err *err);
/* Writes one line per device ("N: platform / device (version)") into out;
 * returns the number of devices or -1 with err set. */
int d2_opencl_list_devices(d2_buf *out, d2_err *err);
/* Parses a device spec: "cpu", "opencl" (= "opencl:0") or "opencl:N" and
 * returns that backend (not owned by the caller), or NULL with err set. */
d2_backend *d2_backend_from_name(const char *spec, d2_err *err);

/* ---- hooks for tests ----
 * Builds `source` (OpenCL C) for be's device, as the embedded kernels are
 * built; a build failure returns -1 with the build log in err. */
int d2_opencl_build_source(d2_backend *be, const char *source, d2_err *err);
/* Tries to open `libname` as the ICD loader and resolve every entry point the
 * backend needs, then closes it; -1 with err set when that fails. */
int d2_opencl_probe_loader(const char *libname, d2_err *err);
/* Overrides whether be's device is treated as having cl_khr_fp64 (true
 * restores the device's real answer). */
void d2_opencl_set_fp64(d2_backend *be, bool on);
/* Selects the GEMM kernel: 1 the tiled local-memory kernel, 0 the simple one
 * (one output per work-item), -1 the default for the device type (tiled on
 * GPUs and accelerators, simple on CPUs, where PoCL runs it far faster). */
void d2_opencl_set_gemm_tiled(d2_backend *be, int mode);

/* Counters of one device's traffic since its creation or the last reset:
 * host<->device transfers (each upload/download call, with bytes), device-side
 * copies, kernel launches, and device buffers newly created versus taken from
 * the backend's pool of freed buffers. Setting DY2ST_OPENCL_STATS=1 in the
 * environment prints them for every device used when the process exits. */
typedef struct d2_opencl_stats {
    uint64_t uploads, upload_bytes;
    uint64_t downloads, download_bytes;
    uint64_t copies;
    uint64_t launches;
    uint64_t buffers_created, buffers_reused;
} d2_opencl_stats;
/* Fills *out with be's counters (all zero when be is not an OpenCL backend). */
void d2_opencl_get_stats(d2_backend *be, d2_opencl_stats *out);
void d2_opencl_reset_stats(d2_backend *be);
/* Releases every pooled (freed, kept for reuse) buffer of be. */
void d2_opencl_trim_pool(d2_backend *be);

#ifdef D2_OPENCL_INTERNAL
/* ---- internal: shared by opencl_backend.c and opencl_ops.c only ---- */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>

/* Entry points resolved from the ICD loader with dlsym. */
#define OCL_API(X)                                                                                 \
    X(cl_int, GetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                              \
    X(cl_int, GetPlatformInfo, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))       \
    X(cl_int, GetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))  \
    X(cl_int, GetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *))             \
    X(cl_context, CreateContext,                                                                   \
      (const cl_context_properties *, cl_uint, const cl_device_id *,                               \
       void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))         \
    X(cl_int, ReleaseContext, (cl_context))                                                        \
    X(cl_command_queue, CreateCommandQueue,                                                        \
      (cl_context, cl_device_id, cl_command_queue_properties, cl_int *))                           \
    X(cl_int, ReleaseCommandQueue, (cl_command_queue))                                             \
    X(cl_mem, CreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *))                  \
    X(cl_int, ReleaseMemObject, (cl_mem))                                                          \
    X(cl_int, GetMemObjectInfo, (cl_mem, cl_mem_info, size_t, void *, size_t *))                   \
    X(cl_int, EnqueueWriteBuffer,                                                                  \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, \
       cl_event *))                                                                                \
    X(cl_int, EnqueueReadBuffer,                                                                   \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *,       \
       cl_event *))                                                                                \
    X(cl_int, EnqueueCopyBuffer,                                                                   \
      (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *,        \
       cl_event *))                                                                                \
    X(cl_int, EnqueueFillBuffer,                                                                   \
      (cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint, const cl_event *,  \
       cl_event *))                                                                                \
    X(cl_program, CreateProgramWithSource,                                                         \
      (cl_context, cl_uint, const char **, const size_t *, cl_int *))                              \
    X(cl_int, BuildProgram,                                                                        \
      (cl_program, cl_uint, const cl_device_id *, const char *,                                    \
       void(CL_CALLBACK *)(cl_program, void *), void *))                                           \
    X(cl_int, GetProgramBuildInfo,                                                                 \
      (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *))                 \
    X(cl_int, ReleaseProgram, (cl_program))                                                        \
    X(cl_kernel, CreateKernel, (cl_program, const char *, cl_int *))                               \
    X(cl_int, ReleaseKernel, (cl_kernel))                                                          \
    X(cl_int, SetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                            \
    X(cl_int, GetKernelWorkGroupInfo,                                                              \
      (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *))              \
    X(cl_int, EnqueueNDRangeKernel,                                                                \
      (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,       \
       cl_uint, const cl_event *, cl_event *))                                                     \
    X(cl_int, Finish, (cl_command_queue))

typedef struct ocl_api {
#define X(ret, name, args) ret(CL_API_CALL *name) args;
    OCL_API(X)
#undef X
} ocl_api;

/* The resolved entry points (valid once any backend exists). */
extern ocl_api ocl;

typedef struct ocl_kentry {
    const char *name; /* points into the program's kernel list (static) or NULL */
    cl_kernel kernel;
    size_t max_wg;
} ocl_kentry;

#define OCL_KCACHE 1024
#define OCL_POOL_MAX 256
#define OCL_CHECKS 32

/* What a checked kernel's flag means (see ocl_check_begin). */
typedef enum {
    OCL_CHECK_DIV,    /* integer division: 1 division by zero, 2 0 to a negative power */
    OCL_CHECK_GATHER, /* gather/index_select: the first bad position, INT32_MAX none */
    OCL_CHECK_EMBED,  /* embedding: the first bad position, INT32_MAX none */
} ocl_check_kind;

/* One checked launch whose flag has not been read yet. */
typedef struct ocl_check {
    cl_mem flag;
    ocl_check_kind kind;
    cl_int init;
    char op[32];
    int64_t axis, size; /* gather: axis and its size; embedding: the number of rows */
    d2_tensor *index;   /* the indices (a reference), to name a bad one */
} ocl_check;

/* One run's checked launches whose flags have not been read yet. A thread's
 * runs form a stack (see ocl_run_begin in opencl_backend.c); only the thread
 * that runs it touches one, so it needs no lock. */
typedef struct ocl_runstate {
    struct ocl_dev *d;
    struct ocl_runstate *outer; /* the thread's enclosing run, or NULL */
    int n_checks;
    ocl_check checks[OCL_CHECKS];
} ocl_runstate;

/* One device. The d2_backend comes first so a d2_backend* is an ocl_dev*.
 * `mu` guards the lazy program build, the kernel cache and every
 * set-arguments + enqueue pair (clSetKernelArg is not thread-safe). */
typedef struct ocl_dev {
    d2_backend be;
    int index;
    char name[256], platform[256], version[128];
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    bool fp64, has_fp64;
    bool gemm_tiled;      /* the GEMM kernel in use (see d2_opencl_set_gemm_tiled) */
    bool gemm_tiled_auto; /* the device type's default */
    cl_ulong max_alloc;
    size_t max_wg;
    pthread_mutex_t mu;
    int build_state; /* 0 not built, 1 built, -1 failed (build_msg holds why) */
    char build_msg[D2_ERR_MSG_MAX];
    d2_errcode build_code;
    cl_program program;
    ocl_kentry kcache[OCL_KCACHE];
    cl_mem dummy; /* 64 bytes, for unused buffer arguments */
    d2_opencl_stats stats; /* updated with __atomic builtins */
    /* Checked launches (bad indices, integer division by zero) report through
     * flags that a run reads at its next download or sync, together with
     * whatever is read then, so that a Program makes no extra round trip for
     * them (the pending ones are per run: ocl_runstate). errbuf, guarded by
     * chk_mu, holds 16 bytes of the downloaded value and one int per check. */
    pthread_mutex_t chk_mu;
    cl_mem errbuf;
    /* Freed buffers kept for reuse (guarded by pool_mu): a loop that frees and
     * allocates the same sizes every iteration allocates nothing new. */
    pthread_mutex_t pool_mu;
    int pool_n;
    size_t pool_bytes, pool_max_bytes;
    struct {
        cl_mem m;
        size_t size;
    } pool[OCL_POOL_MAX];
} ocl_dev;

/* Kernel arguments collected before a launch (values are copied in). */
#define OCL_MAX_ARGS 40
typedef struct ocl_args {
    int n;
    size_t size[OCL_MAX_ARGS];
    union {
        cl_mem m;
        cl_int i;
        cl_long l;
        cl_float f;
        cl_double d;
        cl_long8 l8;
    } v[OCL_MAX_ARGS];
} ocl_args;

void ocl_arg_mem(ocl_args *a, cl_mem m);
void ocl_arg_int(ocl_args *a, int v);
void ocl_arg_long(ocl_args *a, int64_t v);
void ocl_arg_float(ocl_args *a, float v);
void ocl_arg_double(ocl_args *a, double v);
/* Packs up to 8 values into a long8 (missing ones are 0, or 1 with fill1). */
void ocl_arg_long8(ocl_args *a, const int64_t *v, int n, bool fill1);

/* The name of a cl error code ("CL_INVALID_KERNEL_ARGS"). */
const char *ocl_errname(cl_int rc);
/* Sets err from a failed cl call: D2_ERR_NOMEM for allocation failures,
 * D2_ERR_DEVICE otherwise; returns -1. */
int ocl_fail(ocl_dev *d, d2_err *err, const char *what, cl_int rc);
/* Builds the embedded program if needed and returns kernel `name` with its
 * maximum work-group size; NULL with err set when the build or lookup fails. */
cl_kernel ocl_kernel(ocl_dev *d, const char *name, size_t *max_wg, d2_err *err);
/* Sets the arguments and enqueues kernel `name` over gws (local size lws or
 * NULL) in `dims` dimensions. gws must already be a multiple of lws. */
int ocl_run(ocl_dev *d, const char *name, int dims, const size_t *gws, const size_t *lws,
            const ocl_args *a, d2_err *err);
/* Starts a checked launch: returns a flag buffer set to init on the device
 * (no host transfer), or NULL with err set. After enqueueing the kernel, hand
 * it to ocl_check_commit (which takes a reference to index when given); on
 * failure before that, to ocl_check_abort. */
cl_mem ocl_check_begin(ocl_dev *d, cl_int init, d2_err *err);
int ocl_check_commit(ocl_dev *d, cl_mem flag, cl_int init, ocl_check_kind kind, const char *op,
                     int64_t axis, int64_t size, d2_tensor *index, d2_err *err);
void ocl_check_abort(ocl_dev *d, cl_mem flag);
/* A temporary device buffer of n bytes (at least 8); release with ocl_release. */
cl_mem ocl_temp(ocl_dev *d, size_t n, d2_err *err);
void ocl_release(cl_mem m);

/* Kernel table entries, one per op of ops.def (control ops use ctl_). */
#define OP(name, ins, outs, attrs, infer, flags) int ocl_##name(d2_kctx *k);
#define CTL(name, ins, outs, attrs, infer, flags)
#include "../ops.def"
#undef OP
#undef CTL
#endif /* D2_OPENCL_INTERNAL */

#endif

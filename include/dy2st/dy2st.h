/* dy2st.h - public C API: load a saved dy2st model, inspect its inputs and outputs, run it.
 *
 * Ownership: every *_new / *_load has a matching *_free. Functions that can
 * fail return NULL or -1 and, when given a dy2st_status, store a message there
 * (read it with dy2st_status_message). Nothing here exits or aborts.
 */
#ifndef DY2ST_DY2ST_H
#define DY2ST_DY2ST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DY2ST_API __attribute__((visibility("default")))
#else
#define DY2ST_API
#endif

#define DY2ST_MAX_DIMS 8

typedef enum {
    DY2ST_FLOAT32 = 0,
    DY2ST_FLOAT64 = 1,
    DY2ST_INT32 = 2,
    DY2ST_INT64 = 3,
    DY2ST_BOOL = 4,
    DY2ST_FLOAT16 = 5,
    DY2ST_BFLOAT16 = 6,
} dy2st_dtype;

/* Status codes (dy2st_status.code). */
typedef enum {
    DY2ST_OK = 0,
    DY2ST_ERR_INVALID = 1,      /* bad argument or bad program */
    DY2ST_ERR_SHAPE = 2,        /* shape mismatch */
    DY2ST_ERR_DTYPE = 3,        /* dtype mismatch or unsupported dtype */
    DY2ST_ERR_NOMEM = 4,        /* out of memory */
    DY2ST_ERR_IO = 5,           /* file I/O */
    DY2ST_ERR_FORMAT = 6,       /* corrupt, truncated or unsupported file */
    DY2ST_ERR_PARSE = 7,        /* text-form syntax */
    DY2ST_ERR_RUNTIME = 8,      /* failure while running (assert op, index out of range) */
    DY2ST_ERR_UNSUPPORTED = 9,
    DY2ST_ERR_DEVICE = 10,
    DY2ST_ERR_LIMIT = 11,       /* a run passed its deadline or its byte cap */
    DY2ST_ERR_CANCELLED = 12,   /* a run was cancelled (dy2st_run_options_cancel) */
} dy2st_status_code;

/* Error state: zero-initialise (dy2st_status st = {0};) before use. */
typedef struct dy2st_status {
    int code; /* a dy2st_status_code; 0 = ok */
    char message[1024];
} dy2st_status;

typedef struct dy2st_model dy2st_model;   /* a loaded, prepared model */
typedef struct dy2st_tensor dy2st_tensor; /* a host tensor */
typedef struct dy2st_run_options dy2st_run_options; /* limits for runs */

/* Library version string, e.g. "0.1.0". */
DY2ST_API const char *dy2st_version(void);
DY2ST_API const char *dy2st_status_message(const dy2st_status *st);
DY2ST_API const char *dy2st_dtype_name(dy2st_dtype dt);
DY2ST_API size_t dy2st_dtype_size(dy2st_dtype dt);

/* Tensors (host memory, contiguous, row-major). dy2st_tensor_new copies
 * numel * dtype-size bytes from data, or fills with zeros when data is NULL. */
DY2ST_API dy2st_tensor *dy2st_tensor_new(dy2st_dtype dt, int ndim, const int64_t *shape,
                                         const void *data, dy2st_status *st);
DY2ST_API void dy2st_tensor_free(dy2st_tensor *t);
DY2ST_API dy2st_dtype dy2st_tensor_dtype(const dy2st_tensor *t);
DY2ST_API int dy2st_tensor_ndim(const dy2st_tensor *t);
DY2ST_API int64_t dy2st_tensor_dim(const dy2st_tensor *t, int i);
DY2ST_API int64_t dy2st_tensor_numel(const dy2st_tensor *t);
/* Pointer to the contiguous data (NULL possible when numel is 0); valid
 * until dy2st_tensor_free. */
DY2ST_API const void *dy2st_tensor_data(const dy2st_tensor *t);
/* Reads / writes a .npy file. */
DY2ST_API dy2st_tensor *dy2st_tensor_load_npy(const char *path, dy2st_status *st);
DY2ST_API int dy2st_tensor_save_npy(const dy2st_tensor *t, const char *path, dy2st_status *st);

/* Models. path: a saved model, or a text-form program with its parameter
 * data inline. device: NULL or "cpu" (or "opencl[:N]" where built with OpenCL). */
DY2ST_API dy2st_model *dy2st_model_load(const char *path, const char *device, dy2st_status *st);
DY2ST_API void dy2st_model_free(dy2st_model *m);
DY2ST_API int dy2st_model_num_inputs(const dy2st_model *m);
DY2ST_API int dy2st_model_num_outputs(const dy2st_model *m);
/* Name, dtype and shape (-1 for dynamic dims) of input/output i. shape must
 * hold DY2ST_MAX_DIMS entries; returns ndim, or -1 if i is out of range. */
DY2ST_API const char *dy2st_model_input_name(const dy2st_model *m, int i);
DY2ST_API const char *dy2st_model_output_name(const dy2st_model *m, int i);
DY2ST_API int dy2st_model_input_info(const dy2st_model *m, int i, dy2st_dtype *dt,
                                     int64_t *shape);
DY2ST_API int dy2st_model_output_info(const dy2st_model *m, int i, dy2st_dtype *dt,
                                      int64_t *shape);
/* Index of the input/output with this name, or -1. */
DY2ST_API int dy2st_model_input_index(const dy2st_model *m, const char *name);
DY2ST_API int dy2st_model_output_index(const dy2st_model *m, const char *name);
/* Runs the model. inputs: one per model input, in order, each matching the
 * input's dtype and its static dims. outputs receives num_outputs new tensors
 * the caller frees (all NULL on failure). Thread-safe on one model. */
DY2ST_API int dy2st_model_run(dy2st_model *m, dy2st_tensor *const *inputs, int n_inputs,
                              dy2st_tensor **outputs, int n_outputs, dy2st_status *st);

/* Run options: limits that bound a run. A new options object sets no limit,
 * and dy2st_model_run_with_options with it behaves as dy2st_model_run.
 * The limits are checked after every op and at every while_loop iteration;
 * an op already running (one large matmul) is not interrupted.
 * Set the limits before starting runs: the setters must not race with a run
 * that uses the options. dy2st_run_options_cancel may be called from any
 * thread (or a signal handler) at any time. One options object may serve
 * several runs, at once or one after another. */
/* Returns new options with no limits (free with dy2st_run_options_free), or
 * NULL when out of memory. */
DY2ST_API dy2st_run_options *dy2st_run_options_new(void);
/* Frees the options; no run may be using them. NULL is ignored. */
DY2ST_API void dy2st_run_options_free(dy2st_run_options *o);
/* Each run stops with DY2ST_ERR_LIMIT once it has run `seconds` (wall-clock,
 * monotonic, counted from the start of that run); 0 removes the limit.
 * Returns -1 with st set when seconds is negative, NaN or infinite. */
DY2ST_API int dy2st_run_options_set_timeout(dy2st_run_options *o, double seconds,
                                            dy2st_status *st);
DY2ST_API double dy2st_run_options_timeout(const dy2st_run_options *o);
/* Each run stops with DY2ST_ERR_LIMIT when an op's output would take the
 * bytes of the outputs the run's ops have allocated (in all, not the most held
 * at once) past max_bytes; 0 removes the cap. The check comes before the
 * output is allocated (after the kernel for the few ops that make their own
 * outputs). Inputs, parameters and views of them are not counted. */
DY2ST_API void dy2st_run_options_set_max_bytes(dy2st_run_options *o, size_t max_bytes);
DY2ST_API size_t dy2st_run_options_max_bytes(const dy2st_run_options *o);
/* Each run using o runs its matrix products and convolutions on n threads (as Paddle's
 * ExecutionStrategy.num_threads and Config.set_cpu_math_library_num_threads); 0, the
 * default, keeps the library's setting (DY2ST_NUM_THREADS, else 1). Returns -1 with st set
 * when n is negative or above 4096. */
DY2ST_API int dy2st_run_options_set_num_threads(dy2st_run_options *o, int n, dy2st_status *st);
DY2ST_API int dy2st_run_options_num_threads(const dy2st_run_options *o);
/* Requests that every run using o stop: running ones fail with
 * DY2ST_ERR_CANCELLED at their next check, and later ones fail at once, until
 * dy2st_run_options_reset_cancel. Thread-safe and async-signal-safe. */
DY2ST_API void dy2st_run_options_cancel(dy2st_run_options *o);
DY2ST_API void dy2st_run_options_reset_cancel(dy2st_run_options *o);
DY2ST_API int dy2st_run_options_cancelled(const dy2st_run_options *o);
/* dy2st_model_run under the limits of opts (NULL: none). A run that passes
 * its deadline or byte cap fails with DY2ST_ERR_LIMIT, a cancelled one with
 * DY2ST_ERR_CANCELLED; the message names the op or while_loop that was
 * running. Outputs are as for dy2st_model_run (all NULL on failure). */
DY2ST_API int dy2st_model_run_with_options(dy2st_model *m, const dy2st_run_options *opts,
                                           dy2st_tensor *const *inputs, int n_inputs,
                                           dy2st_tensor **outputs, int n_outputs,
                                           dy2st_status *st);

#ifdef __cplusplus
}
#endif

#endif

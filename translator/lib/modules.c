/* modules.c - the library modules the interpreter core offers, in the order they initialise. */
#include "lib/paddle/jit.h"
#include "lib/paddle/static_api.h"
#include "lib/paddle/tensor_api.h"
#include "lib/paddle/trace.h"
#include "lib/std/std.h"
#include "opencl/opencl.h"

#include <stdlib.h>

static void mode_fini(d2_interp *I, void *ext)
{
    (void)I;
    d2_free(ext);
}

/* paddle's value mode first (the backend eager tensors live on: --device,
 * else DY2ST_DEVICE), then the paddle module tree. */
static int paddle_init(d2_interp *I, d2_err *err)
{
    d2_pd_mode *m = d2_calloc(1, sizeof *m);
    if (!m)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory creating the interpreter");
    I->ext[D2_EXT_MODE] = m;
    I->ext_fini[D2_EXT_MODE] = mode_fini;
    const char *dev = I->opt.device && *I->opt.device ? I->opt.device : getenv("DY2ST_DEVICE");
    if (dev && *dev) {
        m->backend = d2_backend_from_name(dev, err);
        if (!m->backend)
            return -1;
    }
    return d2_tensor_api_init(I);
}

#define NO_ERR(fn)                                                                                 \
    static int fn##_entry(d2_interp *I, d2_err *err)                                               \
    {                                                                                              \
        (void)err;                                                                                 \
        return fn(I);                                                                              \
    }
NO_ERR(d2_numpy_api_init)
NO_ERR(d2_jit_init)
NO_ERR(d2_trace_init)
NO_ERR(d2_static_api_init)
NO_ERR(d2_std_math_init)
NO_ERR(d2_std_sys_init)
NO_ERR(d2_std_os_init)
NO_ERR(d2_std_time_init)
NO_ERR(d2_std_functools_init)
NO_ERR(d2_std_copy_init)
NO_ERR(d2_std_warnings_init)
NO_ERR(d2_std_typing_init)
NO_ERR(d2_std_argparse_init)
NO_ERR(d2_std_shutil_init)
NO_ERR(d2_std_tempfile_init)
NO_ERR(d2_std_json_init)
NO_ERR(d2_std_collections_init)
NO_ERR(d2_std_random_init)
NO_ERR(d2_std_pathlib_init)
NO_ERR(d2_std_fnmatch_init)
NO_ERR(d2_std_logging_init)
NO_ERR(d2_std_itertools_init)
NO_ERR(d2_std_dataclasses_init)
NO_ERR(d2_std_re_init)

const d2_lib_module d2_lib_modules[] = {
    {"paddle", paddle_init},
    {"numpy", d2_numpy_api_init_entry},
    {"paddle.jit", d2_jit_init_entry},
    {"paddle.jit.TracedLayer", d2_trace_init_entry},
    {"paddle.static", d2_static_api_init_entry},
    /* the standard-library subset (nothing above imports it) */
    {"math", d2_std_math_init_entry},
    {"sys", d2_std_sys_init_entry},
    {"os", d2_std_os_init_entry},
    {"time", d2_std_time_init_entry},
    {"functools", d2_std_functools_init_entry},
    {"copy", d2_std_copy_init_entry},
    {"warnings", d2_std_warnings_init_entry},
    {"typing", d2_std_typing_init_entry},
    {"argparse", d2_std_argparse_init_entry},
    {"shutil", d2_std_shutil_init_entry},
    {"tempfile", d2_std_tempfile_init_entry},
    {"json", d2_std_json_init_entry},
    {"collections", d2_std_collections_init_entry},
    {"random", d2_std_random_init_entry},
    {"pathlib", d2_std_pathlib_init_entry},
    {"fnmatch", d2_std_fnmatch_init_entry},
    {"logging", d2_std_logging_init_entry},
    {"itertools", d2_std_itertools_init_entry},
    {"dataclasses", d2_std_dataclasses_init_entry},
    {"re", d2_std_re_init_entry},
};
const size_t d2_lib_nmodules = sizeof d2_lib_modules / sizeof d2_lib_modules[0];

/* modules.c - the library modules the interpreter core offers, in the order they initialise. */
#include "lib/paddle/jit.h"
#include "lib/paddle/static_api.h"
#include "lib/paddle/tensor_api.h"
#include "lib/paddle/trace.h"
#include "lib/paddle/train.h"
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

const d2_lib_module d2_lib_modules[] = {
    {"paddle", NULL, paddle_init},
    {"numpy", d2_numpy_api_init, NULL},
    {"paddle.jit", d2_jit_init, NULL},
    {"paddle.jit.TracedLayer", d2_trace_init, NULL},
    {"paddle.static", d2_static_api_init, NULL},
    {"paddle.optimizer", d2_train_init, NULL},
    /* the standard-library subset (nothing above imports it) */
    {"math", d2_std_math_init, NULL},
    {"sys", d2_std_sys_init, NULL},
    {"os", d2_std_os_init, NULL},
    {"time", d2_std_time_init, NULL},
    {"functools", d2_std_functools_init, NULL},
    {"copy", d2_std_copy_init, NULL},
    {"warnings", d2_std_warnings_init, NULL},
    {"importlib", d2_std_importlib_init, NULL},
    {"typing", d2_std_typing_init, NULL},
    {"argparse", d2_std_argparse_init, NULL},
    {"shutil", d2_std_shutil_init, NULL},
    {"tempfile", d2_std_tempfile_init, NULL},
    {"json", d2_std_json_init, NULL},
    {"collections", d2_std_collections_init, NULL},
    {"random", d2_std_random_init, NULL},
    {"pathlib", d2_std_pathlib_init, NULL},
    {"fnmatch", d2_std_fnmatch_init, NULL},
    {"logging", d2_std_logging_init, NULL},
    {"itertools", d2_std_itertools_init, NULL},
    {"dataclasses", d2_std_dataclasses_init, NULL},
    {"re", d2_std_re_init, NULL},
};
const size_t d2_lib_nmodules = sizeof d2_lib_modules / sizeof d2_lib_modules[0];

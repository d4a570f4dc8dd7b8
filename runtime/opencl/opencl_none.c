/* opencl_none.c - stand-in for builds without OpenCL headers: every request is a clear error. */
#include "opencl.h"

#include <string.h>

#define NO_OPENCL "this build of dy2st has no OpenCL backend (CL/cl.h was missing)"

d2_backend *d2_opencl_backend(int index, d2_err *err)
{
    D2_UNUSED(index);
    d2_err_set(err, D2_ERR_DEVICE, NO_OPENCL);
    return NULL;
}

int d2_opencl_list_devices(d2_buf *out, d2_err *err)
{
    D2_UNUSED(out);
    return d2_err_set(err, D2_ERR_DEVICE, NO_OPENCL);
}

d2_backend *d2_backend_from_name(const char *spec, d2_err *err)
{
    if (!spec || strcmp(spec, "cpu") == 0)
        return d2_cpu_backend();
    if (strcmp(spec, "opencl") == 0 || strncmp(spec, "opencl:", 7) == 0) {
        d2_err_set(err, D2_ERR_DEVICE, NO_OPENCL);
        return NULL;
    }
    d2_err_set(err, D2_ERR_INVALID, "unknown device '%s' (expected cpu, opencl or opencl:N)", spec);
    return NULL;
}

int d2_opencl_build_source(d2_backend *be, const char *source, d2_err *err)
{
    D2_UNUSED(be);
    D2_UNUSED(source);
    return d2_err_set(err, D2_ERR_DEVICE, NO_OPENCL);
}

int d2_opencl_probe_loader(const char *libname, d2_err *err)
{
    D2_UNUSED(libname);
    return d2_err_set(err, D2_ERR_DEVICE, NO_OPENCL);
}

void d2_opencl_set_fp64(d2_backend *be, bool on)
{
    D2_UNUSED(be);
    D2_UNUSED(on);
}

void d2_opencl_set_gemm_tiled(d2_backend *be, int mode)
{
    D2_UNUSED(be);
    D2_UNUSED(mode);
}

void d2_opencl_get_stats(d2_backend *be, d2_opencl_stats *out)
{
    D2_UNUSED(be);
    memset(out, 0, sizeof *out);
}

void d2_opencl_reset_stats(d2_backend *be) { D2_UNUSED(be); }

void d2_opencl_trim_pool(d2_backend *be) { D2_UNUSED(be); }

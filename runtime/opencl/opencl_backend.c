/* opencl_backend.c - OpenCL backend (placeholder). */
#include "opencl.h"

d2_backend *d2_opencl_backend(int index, d2_err *err)
{
    D2_UNUSED(index);
    d2_err_set(err, D2_ERR_DEVICE, "this build of dy2st has no OpenCL backend (CL/cl.h was missing)");
    return NULL;
}

int d2_opencl_list_devices(d2_buf *out, d2_err *err)
{
    D2_UNUSED(out);
    return d2_err_set(err, D2_ERR_DEVICE,
                      "this build of dy2st has no OpenCL backend (CL/cl.h was missing)");
}

/* opencl.h - the OpenCL backend: device listing and backend creation. */
#ifndef DY2ST_OPENCL_H
#define DY2ST_OPENCL_H

#include "../backend.h"

/* Returns the OpenCL backend for device `index` (over all platforms, in
 * listing order), creating it on first use; NULL with a clear error when the
 * loader, a platform or the device is missing. Backends live until exit. */
d2_backend *d2_opencl_backend(int index, d2_err *err);
/* Writes one line per device ("N: platform / device (version)") into out;
 * returns the number of devices or -1 with err set. */
int d2_opencl_list_devices(d2_buf *out, d2_err *err);

#endif

/* common.cl - helpers shared by every OpenCL kernel file (placeholder). */

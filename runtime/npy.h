/* npy.h - .npy files. */
#ifndef DY2ST_NPY_H
#define DY2ST_NPY_H
#endif

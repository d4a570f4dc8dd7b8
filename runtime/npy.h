/* npy.h - NumPy .npy files: read (format versions 1.0, 2.0, 3.0) and write; .npz archives: read. */
#ifndef DY2ST_NPY_H
#define DY2ST_NPY_H

#include "tensor.h"

/* Supported element types: little-endian '<f4', '<f8', '<i4', '<i8' and
 * '|b1', C order only, up to D2_MAX_DIMS dims (0-d and zero-size arrays
 * included). Everything else (Fortran order, big-endian, object or
 * structured arrays, other dtypes, malformed headers, truncated data,
 * trailing bytes, bool bytes other than 0/1) is an error whose message names
 * the file and the problem, e.g. "x.npy: unsupported dtype '<c8'". */

/* Reads the .npy file at path into a new contiguous CPU tensor (caller
 * unrefs). */
d2_tensor *d2_npy_load(const char *path, d2_err *err);

/* Parses a whole .npy image held in memory; `name` is used in messages.
 * Returns a new CPU tensor (a copy; data need not outlive it). */
d2_tensor *d2_npy_parse(const void *data, size_t size, const char *name, d2_err *err);

/* Appends the .npy image of t (any backend, any strides; not a tensor array)
 * to b, with the header laid out exactly as NumPy writes it (version 1.0, or
 * 2.0 when the header does not fit). */
int d2_npy_write(d2_buf *b, const d2_tensor *t, d2_err *err);

/* Writes t to path as .npy (replacing the file). */
int d2_npy_save(const d2_tensor *t, const char *path, d2_err *err);

/* Reads every array of an .npz file (numpy.savez: a zip archive of stored
 * .npy members; savez_compressed's deflated members are refused). fn is called
 * with each member's name (without ".npy") and a new CPU tensor it borrows;
 * a non-zero return stops the walk and is returned. -1 with err set on a
 * bad file. */
typedef int (*d2_npz_fn)(void *ctx, const char *name, d2_tensor *t, d2_err *err);
int d2_npz_load(const char *path, d2_npz_fn fn, void *ctx, d2_err *err);

#endif

/* pickle.h - a restricted unpickler for Paddle's .pdparams/.pdopt files (paddle.save). */
#ifndef DY2ST_PICKLE_H
#define DY2ST_PICKLE_H

#include "tensor.h"

/* paddle.save writes a Python pickle (protocol 2 to 4) of a dict whose
 * values are NumPy arrays. This reader runs the pickle machine for the
 * binary opcodes of protocols 2-5 but never calls anything: the only globals
 * it accepts are the ones that rebuild NumPy arrays and dicts
 * (numpy.core.multiarray._reconstruct / scalar, numpy.ndarray, numpy.dtype,
 * _codecs.encode, builtins.bytes, collections.OrderedDict, builtins.tuple),
 * and only in the
 * call patterns NumPy and Paddle write. Any other global, call or opcode
 * (os.system, eval, PERSID, EXT*, INST, OBJ, NEWOBJ, ...) is an error naming
 * the opcode or global and its byte offset, e.g.
 * "m.pdparams: offset 12: GLOBAL: 'posix.system' is not allowed (only the
 * globals that rebuild NumPy arrays and dicts are)".
 *
 * Arrays: little- or big-endian (converted) float32, float64, int32, int64
 * and bool, C or Fortran order (converted to C order), up to D2_MAX_DIMS
 * dims; the byte count must match shape * itemsize exactly.
 *
 * The result is flat: the top-level dict's tensors by key; nested dicts and
 * lists are flattened with '.' ("model.fc.weight", "layers.0"); a Paddle
 * Tensor saved inside a structure (the tuple (name, ndarray)) counts as its
 * ndarray; the "StructuredToParameterName@@" table of optimizer states and
 * values that are not arrays (ints, floats, strings, None) are skipped.
 * Nesting deeper than 32, non-string keys, a top level that is not a dict
 * and tensors split by paddle.save's large-tensor path are errors. A later
 * duplicate name replaces the earlier one, as in Python. */

typedef struct d2_pickle_entry {
    char *name;
    d2_tensor *tensor; /* contiguous CPU tensor, owned */
} d2_pickle_entry;

typedef struct d2_pickle_params {
    size_t n;
    d2_pickle_entry *items; /* in pickle order */
} d2_pickle_params;

/* Parses a pickle image held in memory; `name` is used in messages. On
 * success fills *out (free with d2_pickle_params_free) and returns 0; on
 * error returns -1 with *out empty. */
int d2_pickle_parse_params(const void *data, size_t size, const char *name,
                           d2_pickle_params *out, d2_err *err);

/* Reads the file at path and parses it as above. */
int d2_pickle_load_params(const char *path, d2_pickle_params *out, d2_err *err);

void d2_pickle_params_free(d2_pickle_params *p);

/* Writes p as paddle.save writes a dict of arrays (pickle protocol 4, each
 * array as numpy.core.multiarray._reconstruct + BUILD, as NumPy pickles it),
 * so that this reader, Python's pickle and paddle.load read it back. Tensors
 * must be contiguous CPU tensors of float32/64, int32/64 or bool. */
int d2_pickle_save_params(const char *path, const d2_pickle_params *p, d2_err *err);

#endif

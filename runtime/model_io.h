/* model_io.h - saved models: one file holding a Program's text form and its parameter data. */
#ifndef DY2ST_MODEL_IO_H
#define DY2ST_MODEL_IO_H

#include "program.h"

/* The format is described at the top of model_io.c and in doc/model-format.md. */
#define D2_MODEL_MAGIC "DY2STMDL"
#define D2_MODEL_MAGIC_LEN 8
#define D2_MODEL_VERSION 1

/* Writes p (every persistable variable must carry data) to path. The file
 * is written beside path under a temporary name and renamed into place. */
int d2_model_save(const d2_program *p, const char *path, d2_err *err);
/* Appends the saved-model image of p to out. */
int d2_model_save_mem(const d2_program *p, d2_buf *out, d2_err *err);

/* Loads a saved model. The file is memory-mapped where possible and the
 * parameters then use the mapping without copying (it is unmapped when the
 * last parameter tensor is released). Every field is validated; a corrupt,
 * truncated or inconsistent file gives an error naming the file and the
 * problem. The caller frees the result with d2_program_free. */
d2_program *d2_model_load(const char *path, d2_err *err);
/* The same from an image in memory (parameters are copied; data need not
 * outlive the result). `name` is used in messages. */
d2_program *d2_model_load_mem(const void *data, size_t size, const char *name, d2_err *err);

/* True when the first bytes are the saved-model magic. */
bool d2_model_is_saved(const void *data, size_t size);
/* Loads path as a saved model when it starts with the magic, otherwise as a
 * text-form program (with parameter data inline). */
d2_program *d2_model_open(const char *path, d2_err *err);

/* CRC-32 (IEEE 802.3, as zlib's crc32): d2_model_crc32(0, p, n) starts a new
 * checksum; pass a previous result to continue it. */
uint32_t d2_model_crc32(uint32_t crc, const void *data, size_t n);

#endif

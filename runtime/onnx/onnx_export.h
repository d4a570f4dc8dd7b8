/* onnx_export.h - writes a Program as an ONNX model (ModelProto through protobuf-c). */
#ifndef DY2ST_ONNX_EXPORT_H
#define DY2ST_ONNX_EXPORT_H

#include "program.h"

#define D2_ONNX_OPSET_DEFAULT 13
#define D2_ONNX_OPSET_MIN 13
/* the newest opset ONNX Runtime 1.20 runs */
#define D2_ONNX_OPSET_MAX 21

typedef struct d2_onnx_options {
    int opset; /* 0: D2_ONNX_OPSET_DEFAULT */
    /* Parameters whose bytes add up to more than this are written to
     * "<path>.data" beside the model (ONNX external data); 0: the 2 GB limit
     * of a protobuf message, less a margin for the graph. */
    uint64_t external_threshold;
    bool external_data; /* always write the parameters to "<path>.data" */
    const char *graph_name; /* NULL: "dy2st" */
    /* Raise the opset to D2_ONNX_OPSET_MIN and to what the Program's ops need instead of
     * failing (paddle.onnx.export, like paddle2onnx's auto_update_opset). */
    bool auto_opset;
} d2_onnx_options;

/* Writes p as an ONNX model to path (beside it "<path>.data" when the
 * parameters are too large for one protobuf message). Block 0's params are
 * the graph inputs (-1 dims become symbolic dims named "<input>_d<k>"), its
 * yields the outputs, parameters initializers; cond becomes If, while_loop
 * Loop, tensor arrays ONNX sequences. An op without a mapping, or one that
 * needs a newer opset than opt->opset, is an error naming the op and its
 * source position. The file is written under a temporary name and renamed
 * into place. 0, or -1 with err set. */
int d2_onnx_export(const d2_program *p, const char *path, const d2_onnx_options *opt,
                   d2_err *err);

/* The lowest opset that can export op `name` (a registry op), or 0 when the
 * op has no ONNX mapping; for tests and documentation. */
int d2_onnx_op_min_opset(const char *name);

#endif

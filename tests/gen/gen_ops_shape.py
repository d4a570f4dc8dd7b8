#!/usr/bin/env python3
"""gen_ops_shape.py - writes tests/golden/ops_shape.txt: golden cases for the
shape-manipulation and creation ops, with expected outputs computed by NumPy
(following Paddle 2.x where the two differ: Paddle's unsqueeze order, tile
padding, arange length rule, shape -> int32, numel -> int64 0-d).

Run from anywhere: python3 tests/gen/gen_ops_shape.py
"""
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "golden", "ops_shape.txt")

rng = np.random.default_rng(20240611)
cases = []
I64_MIN = -(2 ** 63)
I64_MAX = 2 ** 63 - 1

DTYPES = {
    np.dtype(np.float32): "float32",
    np.dtype(np.float64): "float64",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.bool_): "bool",
}


def rand(shape, dtype="float32"):
    shape = tuple(shape)
    if dtype in ("float32", "float64"):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    return rng.integers(-50, 50, shape).astype(dtype)


def fmt_value(v, dt):
    if dt == "bool":
        return "1" if v else "0"
    if dt in ("int32", "int64"):
        return str(int(v))
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return "%.9g" % f if dt == "float32" else repr(f)


def fmt(a):
    a = np.asarray(a)
    dt = DTYPES[a.dtype]
    vals = " ".join(fmt_value(v, dt) for v in a.reshape(-1))
    dims = ",".join(str(d) for d in a.shape)
    return ("%s [%s] %s" % (dt, dims, vals)).rstrip()


def case(name, op, ins, outs=None, attrs=None, error=None, n_dummy_outs=0):
    lines = ["case " + name, "op " + op]
    if attrs:
        lines.append("attrs " + attrs)
    for x in ins:
        lines.append("in none" if x is None else "in " + fmt(x))
    if error is not None:
        for _ in range(n_dummy_outs):
            lines.append("out float32 [0]")
        lines.append("error " + error)
    else:
        for y in outs:
            lines.append("out " + fmt(y))
    lines.append("end")
    cases.append("\n".join(lines))


def ints(v):
    return "[" + ", ".join(str(int(i)) for i in v) + "]"


# ---- reshape: 0 copies the input dim, -1 is inferred
def paddle_shape(x, shape):
    return [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]


for name, shp, tgt, dt in [
    ("reshape_infer", (2, 3, 4), [4, -1], "float32"),
    ("reshape_copy0", (3, 5), [0, -1, 1], "int64"),
    ("reshape_bool", (2, 3), [3, 2], "bool"),
    ("reshape_to_0d", (1,), [], "float64"),
    ("reshape_from_0d", (), [1, 1], "int32"),
    ("reshape_zero_size", (0, 3), [-1, 3], "float32"),
    ("reshape_odd", (7, 1, 3), [3, -1, 7], "float32"),
]:
    x = rand(shp, dt)
    case(name, "reshape", [x], [x.reshape(paddle_shape(x, tgt))], "shape = " + ints(tgt))
x = rand((2, 5, 3), "float32")
case("reshape_shape_tensor_i32", "reshape", [x, np.array([5, -1, 2], np.int32)],
     [x.reshape(5, 3, 2)])
x = rand((4, 3), "int32")
case("reshape_shape_tensor_overrides_attr", "reshape", [x, np.array([0, 3, 1], np.int64)],
     [x.reshape(4, 3, 1)], "shape = [12]")
x = rand((2, 3), "float32")
case("reshape_err_two_unknown", "reshape", [x], attrs="shape = [-1, -1]", error="more than one -1")
case("reshape_err_count", "reshape", [x], attrs="shape = [4, 2]", error="cannot reshape")
case("reshape_err_indivisible", "reshape", [x], attrs="shape = [4, -1]", error="cannot reshape")
case("reshape_err_copy_rank", "reshape", [x], attrs="shape = [6, 0, 0]", error="has only 2 dims")
case("reshape_err_negative", "reshape", [x], attrs="shape = [-2, 3]", error="invalid dim")
case("reshape_err_zero_infer", "reshape", [rand((0, 3))], attrs="shape = [0, -1]",
     error="cannot infer the -1 dim")
case("reshape_err_float_shape", "reshape", [x, np.array([3, 2], np.float32)],
     error="int32 or int64")
case("reshape_err_shape_rank", "reshape", [x, np.array([[3, 2]], np.int32)], error="must be 1-D")

# ---- flatten
for name, shp, s, e, dt in [
    ("flatten_mid", (2, 3, 4, 5), 1, 2, "float32"),
    ("flatten_neg", (2, 3, 4, 5), -3, -1, "int64"),
    ("flatten_all", (3, 1, 2), 0, -1, "bool"),
    ("flatten_single", (3, 4), 1, 1, "float64"),
    ("flatten_zero", (2, 0, 3), 0, 1, "int32"),
]:
    x = rand(shp, dt)
    ns = s % len(shp)
    ne = e % len(shp)
    want = x.reshape(shp[:ns] + (-1,) + shp[ne + 1:]) if np.prod(shp) else \
        np.zeros(shp[:ns] + (int(np.prod(shp[ns:ne + 1])),) + shp[ne + 1:], x.dtype)
    case(name, "flatten", [x], [want], "start_axis = %d, stop_axis = %d" % (s, e))
x = np.array(3.5, np.float32)
case("flatten_0d", "flatten", [x], [x.reshape(1)])
x = rand((2, 3, 4))
case("flatten_err_order", "flatten", [x], attrs="start_axis = 2, stop_axis = 1",
     error="comes after")
case("flatten_err_axis", "flatten", [x], attrs="start_axis = 3", error="out of range")

# ---- squeeze: [] drops all size-1 dims; a listed non-1 dim stays


def paddle_squeeze(x, axes):
    if not axes:
        return np.squeeze(x)
    nd = x.ndim
    drop = tuple(sorted({a % nd for a in axes if x.shape[a % nd] == 1}))
    return np.squeeze(x, axis=drop) if drop else x


for name, shp, axes, dt in [
    ("squeeze_all", (1, 3, 1, 2), [], "float32"),
    ("squeeze_neg", (1, 3, 1, 2), [-2], "int32"),
    ("squeeze_non1_noop", (1, 3, 1, 2), [1], "float64"),
    ("squeeze_two", (1, 3, 1, 2), [0, 2], "bool"),
    ("squeeze_mixed", (1, 3, 1), [0, 1], "int64"),
    ("squeeze_to_0d", (1, 1), [], "float32"),
]:
    x = rand(shp, dt)
    case(name, "squeeze", [x], [paddle_squeeze(x, axes)], "axis = " + ints(axes))
x = np.array(2.0, np.float32)
case("squeeze_0d", "squeeze", [x], [x], "axis = [0]")
case("squeeze_err_axis", "squeeze", [rand((1, 3))], attrs="axis = [2]", error="out of range")

# ---- unsqueeze: axes applied one after another (Paddle)


def paddle_unsqueeze(x, axes):
    for a in axes:
        x = np.expand_dims(x, a if a >= 0 else a + x.ndim + 1)
    return x


for name, shp, axes, dt in [
    ("unsqueeze_front", (3, 4), [0], "float32"),
    ("unsqueeze_back", (3, 4), [-1], "int64"),
    ("unsqueeze_seq", (3, 4), [0, 2], "float64"),
    ("unsqueeze_neg_twice", (3, 4), [-1, -1], "bool"),
    ("unsqueeze_mixed", (2, 3), [1, -3, 4], "int32"),
    ("unsqueeze_0d", (), [0], "float32"),
]:
    x = rand(shp, dt)
    case(name, "unsqueeze", [x], [paddle_unsqueeze(x, axes)], "axis = " + ints(axes))
case("unsqueeze_err_axis", "unsqueeze", [rand((3, 4))], attrs="axis = [4]", error="out of range")
case("unsqueeze_err_rank", "unsqueeze", [rand((1,) * 7)], attrs="axis = [0, 0]",
     error="exceeds the maximum")

# ---- transpose
for name, shp, perm, dt in [
    ("transpose_3d", (2, 3, 4), [2, 0, 1], "float32"),
    ("transpose_neg", (2, 3, 4), [-1, 0, 1], "int64"),
    ("transpose_4d", (2, 1, 3, 5), [3, 1, 0, 2], "float64"),
    ("transpose_2d_bool", (3, 5), [1, 0], "bool"),
    ("transpose_1d", (5,), [0], "int32"),
    ("transpose_0d", (), [], "float32"),
    ("transpose_zero", (0, 3), [1, 0], "float32"),
]:
    x = rand(shp, dt)
    case(name, "transpose", [x], [np.transpose(x, [p % max(len(shp), 1) for p in perm])],
         "perm = " + ints(perm))
x = rand((2, 3, 4))
case("transpose_err_repeat", "transpose", [x], attrs="perm = [0, 0, 1]", error="repeats")
case("transpose_err_len", "transpose", [x], attrs="perm = [1, 0]", error="2 entries")
case("transpose_err_range", "transpose", [x], attrs="perm = [0, 1, 3]", error="out of range")

# ---- concat
for name, shps, axis, dt in [
    ("concat_axis0", [(2, 3), (4, 3), (1, 3)], 0, "float32"),
    ("concat_neg", [(2, 1), (2, 4)], -1, "int64"),
    ("concat_single", [(3, 2)], 1, "float64"),
    ("concat_zero_size", [(0, 3), (2, 3)], 0, "int32"),
    ("concat_3d", [(2, 1, 3), (2, 4, 3), (2, 2, 3)], 1, "bool"),
]:
    xs = [rand(s, dt) for s in shps]
    case(name, "concat", xs, [np.concatenate(xs, axis)], "axis = %d" % axis)
case("concat_err_dtype", "concat", [rand((2, 3)), rand((2, 3), "float64")], error="dtype")
case("concat_err_dim", "concat", [rand((2, 3)), rand((2, 4))], error="dim 1 differs")
case("concat_err_rank", "concat", [rand((2, 3)), rand((2, 3, 1))], error="ranks differ")
case("concat_err_0d", "concat", [np.array(1.0, np.float32)] * 2, error="0-d")
case("concat_err_axis", "concat", [rand((2, 3))] * 2, attrs="axis = 2", error="out of range")

# ---- stack
for name, shps, axis, dt in [
    ("stack_axis0", [(2, 3)] * 3, 0, "float32"),
    ("stack_last", [(2, 3)] * 3, -1, "int64"),
    ("stack_mid", [(2, 3)] * 2, 1, "float64"),
    ("stack_0d", [()] * 4, 0, "bool"),
    ("stack_one", [(5,)], -2, "int32"),
]:
    xs = [rand(s, dt) for s in shps]
    case(name, "stack", xs, [np.stack(xs, axis)], "axis = %d" % axis)
case("stack_err_shape", "stack", [rand((2, 3)), rand((3, 2))], error="dim 0 differs")
case("stack_err_axis", "stack", [rand((2, 3))] * 2, attrs="axis = 3", error="out of range")

# ---- split
x = rand((6, 4))
case("split_num", "split", [x], np.split(x, 3, 0), "num = 3")
x = rand((3, 5), "int64")
case("split_sections_infer", "split", [x], np.split(x, [1, 3], 1),
     "sections = [1, -1, 2], axis = 1")
x = rand((2, 5), "bool")
case("split_sections_zero", "split", [x], np.split(x, [2, 2], -1),
     "sections = [2, 0, 3], axis = -1")
x = rand((4, 2, 3), "float64")
case("split_num_neg_axis", "split", [x], np.split(x, 3, -1), "num = 3, axis = -1")
x = rand((6,), "int32")
case("split_one", "split", [x], [x], "num = 1")
x = rand((6, 4))
case("split_err_divide", "split", [x], attrs="num = 4", error="4 equal parts", n_dummy_outs=4)
case("split_err_nout", "split", [x], attrs="num = 3", error="has 2 outputs", n_dummy_outs=2)
case("split_err_sum", "split", [x], attrs="sections = [2, 3]", error="add up to 5",
     n_dummy_outs=2)
case("split_err_two_unknown", "split", [x], attrs="sections = [-1, -1, 2]",
     error="only one -1", n_dummy_outs=3)
case("split_err_none", "split", [x], error="give num or sections", n_dummy_outs=1)

# ---- slice (Python clamping rules)


def paddle_slice(x, axes, starts, ends, strides, dec):
    idx = [slice(None)] * x.ndim
    for j, a in enumerate(axes):
        st = strides[j] if strides else 1
        idx[a % x.ndim] = slice(starts[j], ends[j], st)
    y = x[tuple(idx)]
    if dec:
        y = y.reshape([d for i, d in enumerate(y.shape) if i not in [a % x.ndim for a in dec]])
    return y


for name, shp, axes, starts, ends, strides, dec, dt in [
    ("slice_step", (10,), [0], [2], [8], [3], [], "float32"),
    ("slice_neg_start", (10,), [0], [-3], [10000], [], [], "int64"),
    ("slice_neg_step", (10,), [0], [8], [1], [-2], [], "float64"),
    ("slice_reverse", (7,), [0], [-1], [I64_MIN], [-1], [], "int32"),
    ("slice_reverse_big_start", (7,), [0], [I64_MAX], [-1000], [-3], [], "float32"),
    ("slice_empty_clamped", (10,), [0], [20], [30], [], [], "float32"),
    ("slice_empty_backwards", (10,), [0], [6], [2], [], [], "bool"),
    ("slice_2d", (4, 5), [1, 0], [1, -1], [4, -5], [1, -1], [], "float32"),
    ("slice_first", (3, 4), [0], [0], [1], [], [0], "int64"),
    ("slice_last", (3, 4), [0], [-1], [2 ** 62], [], [0], "float32"),
    ("slice_scalar", (3, 4), [0, 1], [1, 2], [2, 3], [], [0, 1], "float64"),
    ("slice_3d_neg_axis", (2, 5, 6), [-1, 1], [1, -4], [-1, 5], [2, 1], [], "int32"),
    ("slice_decrease_mid", (2, 5, 3), [1], [3], [4], [], [1], "bool"),
    ("slice_odd", (3, 7, 1), [1, 2], [-100, 0], [100, 1], [4, 1], [2], "float32"),
]:
    x = rand(shp, dt)
    attrs = "axes = %s, starts = %s, ends = %s" % (ints(axes), ints(starts), ints(ends))
    if strides:
        attrs += ", strides = " + ints(strides)
    if dec:
        attrs += ", decrease_axis = " + ints(dec)
    case(name, "slice", [x], [paddle_slice(x, axes, starts, ends, strides, dec)], attrs)
x = rand((4, 5))
case("slice_err_stride0", "slice", [x], attrs="axes = [0], starts = [0], ends = [2], strides = [0]",
     error="stride for axis 0 is 0")
case("slice_err_decrease", "slice", [x],
     attrs="axes = [0], starts = [0], ends = [2], decrease_axis = [0]", error="expected 1")
case("slice_err_len", "slice", [x], attrs="axes = [0, 1], starts = [0], ends = [2, 3]",
     error="same length")
case("slice_err_axis", "slice", [x], attrs="axes = [2], starts = [0], ends = [1]",
     error="out of range")
case("slice_err_dup", "slice", [x], attrs="axes = [1, -1], starts = [0, 0], ends = [1, 1]",
     error="listed twice")
case("slice_err_dec_unsliced", "slice", [x],
     attrs="axes = [0], starts = [0], ends = [1], decrease_axis = [1]",
     error="not one of the sliced axes")
case("slice_err_0d", "slice", [np.array(1.0, np.float32)],
     attrs="axes = [0], starts = [0], ends = [1]", error="0-d")

# ---- gather / index_select
for op in ("gather", "index_select"):
    x = rand((5, 3))
    idx = np.array([4, 0, 2, 4], np.int64)
    case(op + "_axis0", op, [x, idx], [np.take(x, idx, 0)])
    x = rand((2, 4, 3), "int64")
    idx = np.array([3, 3, 1], np.int32)
    case(op + "_axis1_i32", op, [x, idx], [np.take(x, idx, 1)], "axis = 1")
    x = rand((2, 3), "bool")
    idx = np.array([2, 0], np.int64)
    case(op + "_neg_axis", op, [x, idx], [np.take(x, idx, -1)], "axis = -1")
    x = rand((3, 2), "float64")
    idx = np.zeros((0,), np.int64)
    case(op + "_empty_index", op, [x, idx], [np.take(x, idx, 0)])
    x = rand((5, 3))
    case(op + "_err_range", op, [x, np.array([1, 5], np.int64)], error="index 5")
    case(op + "_err_negative", op, [x, np.array([-1], np.int32)], error="index -1")
    case(op + "_err_float_index", op, [x, np.array([1.0], np.float32)], error="int32 or int64")
    case(op + "_err_2d_index", op, [x, np.array([[1]], np.int64)], error="must be 1-D")
    case(op + "_err_axis", op, [x, np.array([1], np.int64)], attrs="axis = 2",
         error="out of range")
x = rand((4, 3), "int32")
case("gather_0d_index", "gather", [x, np.array(2, np.int64)], [x[:, 2]], "axis = 1")
case("index_select_err_0d_index", "index_select", [x, np.array(2, np.int64)], error="1-D")

# ---- expand (numpy broadcast_to; -1 keeps the dim)


def paddle_expand(x, shape):
    n = len(shape)
    tgt = [x.shape[i - (n - x.ndim)] if s == -1 else s for i, s in enumerate(shape)]
    return np.broadcast_to(x, tgt).copy()


for name, shp, tgt, dt in [
    ("expand_new_dims", (3, 1), [2, 3, 4], "float32"),
    ("expand_keep", (3, 1), [-1, 4], "int64"),
    ("expand_vector", (1,), [2, 2], "bool"),
    ("expand_0d", (), [3], "float64"),
    ("expand_same", (2, 3), [2, 3], "int32"),
    ("expand_odd", (1, 5, 1), [3, -1, -1, 2], "float32"),
]:
    x = rand(shp, dt)
    case(name, "expand", [x], [paddle_expand(x, tgt)], "shape = " + ints(tgt))
x = rand((3, 1))
case("expand_shape_tensor", "expand", [x, np.array([2, -1, 5], np.int32)],
     [paddle_expand(x, [2, -1, 5])])
case("expand_err_dim", "expand", [rand((3, 2))], attrs="shape = [3, 4]", error="cannot expand")
case("expand_err_fewer", "expand", [rand((2, 3))], attrs="shape = [3]", error="fewer dims")
case("expand_err_lead_unknown", "expand", [rand((3,))], attrs="shape = [-1, 3]",
     error="cannot be -1")
case("expand_err_zero", "expand", [rand((3,))], attrs="shape = [0, 3]", error="positive or -1")

# ---- tile (Paddle pads the shorter of shape and repeat_times with leading 1s)


def paddle_tile(x, reps):
    return np.tile(x, reps) if len(reps) else x.copy()


for name, shp, reps, dt in [
    ("tile_2d", (2, 3), [2, 1], "float32"),
    ("tile_short_reps", (2, 3), [3], "int64"),
    ("tile_long_reps", (2, 3), [2, 1, 2], "bool"),
    ("tile_0d", (), [3], "float64"),
    ("tile_odd", (3, 1, 2), [1, 4, 3], "int32"),
    ("tile_zero_size", (0, 2), [2, 2], "float32"),
]:
    x = rand(shp, dt)
    case(name, "tile", [x], [paddle_tile(x, reps)], "repeat_times = " + ints(reps))
case("tile_err_zero", "tile", [rand((2,))], attrs="repeat_times = [0]", error="must be positive")

# ---- full / full_like (integers truncate toward zero)
case("full_f32", "full", [], [np.full((2, 3), 1.5, np.float32)],
     "shape = [2, 3], value = 1.5")
case("full_i32_trunc", "full", [], [np.full((3,), np.trunc(-2.7), np.int32)],
     "shape = [3], value = -2.7, dtype = int32")
case("full_bool", "full", [], [np.full((2, 2), True)], "shape = [2, 2], value = 3, dtype = bool")
case("full_f64_inf", "full", [], [np.full((1, 2), -np.inf, np.float64)],
     "shape = [1, 2], value = -inf, dtype = float64")
case("full_0d", "full", [], [np.full((), 7, np.int64)], "value = 7, dtype = int64")
case("full_zero_size", "full", [], [np.full((0, 2), 1, np.float32)], "shape = [0, 2], value = 1")
case("full_shape_tensor", "full", [np.array([2, 1, 3], np.int64)],
     [np.full((2, 1, 3), 0.25, np.float32)], "shape = [5], value = 0.25")
case("full_err_negative", "full", [], attrs="shape = [2, -1]", error="negative dim")
case("full_err_overflow", "full", [], attrs="shape = [2], value = 1e10, dtype = int32",
     error="does not fit in int32")
case("full_err_nan_int", "full", [], attrs="shape = [2], value = nan, dtype = int64",
     error="does not fit in int64")
case("full_err_dtype", "full", [], attrs="shape = [2], dtype = none", error="not supported")
x = rand((2, 3))
case("full_like_same", "full_like", [x], [np.full_like(x, 7)], "value = 7")
x = rand((3, 1), "int64")
case("full_like_cast", "full_like", [x], [np.full(x.shape, 0.5, np.float64)],
     "value = 0.5, dtype = float64")
x = rand((4,), "float32")
case("full_like_bool", "full_like", [x], [np.zeros((4,), np.bool_)], "value = 0, dtype = bool")
# (float16 and the other storage dtypes are fillable: gen_dtypes.py, dtypes_storage.py)
case("full_like_err_dtype", "full_like", [x], attrs="value = 3e9, dtype = int32", error="does not fit in int32")

# ---- arange (Paddle: length ceil((end-start)/step); step must point towards end)
case("arange_int", "arange", [], [np.arange(0, 5, dtype=np.int64)], "end = 5")
case("arange_i32_step", "arange", [], [np.arange(1, 10, 3, dtype=np.int32)],
     "start = 1, end = 10, step = 3, dtype = int32")
case("arange_neg_step", "arange", [], [np.arange(10, 0, -3, dtype=np.int64)],
     "start = 10, end = 0, step = -3")
case("arange_f32", "arange", [],
     [(np.float32(0) + np.arange(10, dtype=np.float32) * np.float32(0.1))],
     "start = 0, end = 1, step = 0.1, dtype = float32")
case("arange_f64_down", "arange", [], [np.arange(2.5, -1, -0.5, dtype=np.float64)],
     "start = 2.5, end = -1, step = -0.5, dtype = float64")
case("arange_empty", "arange", [], [np.arange(3, 3, dtype=np.int64)], "start = 3, end = 3")
case("arange_end_tensor", "arange", [None, np.array(7, np.int64), None],
     [np.arange(0, 7, dtype=np.int64)])
case("arange_tensors", "arange",
     [np.array([1.5], np.float32), np.array(4, np.float32), np.array(0.5, np.float32)],
     [np.arange(1.5, 4, 0.5, dtype=np.float32)], "end = 100, dtype = float32")
case("arange_int_tensor_trunc", "arange", [np.array(1.7, np.float64), np.array(6, np.int32)],
     [np.arange(1, 6, dtype=np.int64)])
case("arange_err_step0", "arange", [], attrs="end = 5, step = 0", error="step must not be 0")
case("arange_err_direction", "arange", [], attrs="start = 5, end = 0", error="must be negative")
case("arange_err_direction2", "arange", [], attrs="start = 0, end = 5, step = -1",
     error="must be positive")
case("arange_err_dtype", "arange", [], attrs="end = 3, dtype = bool", error="not supported")
case("arange_err_trunc_step0", "arange", [], attrs="end = 3, step = 0.5, dtype = int64",
     error="step must not be 0")
case("arange_err_tensor_numel", "arange", [np.array([1, 2], np.int64)], error="one element")

# ---- shape / numel / assign
for shp, dt in [((2, 3, 4), "float32"), ((), "int64"), ((0, 5), "bool")]:
    x = rand(shp, dt)
    tag = "x".join(str(d) for d in shp) or "0d"
    case("shape_" + tag, "shape", [x], [np.array(x.shape, np.int32)])
    case("numel_" + tag, "numel", [x], [np.array(x.size, np.int64)])
    case("assign_" + tag, "assign", [x], [x.copy()])

with open(OUT, "w") as f:
    f.write("# ops_shape.txt - generated by tests/gen/gen_ops_shape.py from NumPy; do not edit.\n")
    f.write("\n\n".join(cases))
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.relpath(OUT)))

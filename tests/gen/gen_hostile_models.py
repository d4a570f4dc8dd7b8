#!/usr/bin/env python3
"""gen_hostile_models.py - writes hostile saved models with valid checksums.

Run from anywhere:  python3 tests/gen/gen_hostile_models.py
Standard library only. Writes tests/hostile/NAME/ for each case below:
model.d2m (a saved model, format version 1, written from
doc/model-format.md with correct CRCs, so every case reaches the program
checks), one INPUT.npy per model input, and `expect`: its first line is
`load` (loading must fail), `run` (loading works, running must fail) or
`load-only` (loading works; the case is not run here: a loop that never
ends, for a run deadline to stop), its second line a piece of the error
message. tests/cli/test_hostile.sh runs each through `dy2st run`, and
tests/runtime/test_hostile.c through the C API.
"""
import os
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "hostile")

F32, I64 = 0, 3


def align(v, a=64):
    return (v + a - 1) // a * a


def saved_model(program_text, params=()):
    """A saved model of program_text and [(name, dtype code, shape, raw bytes)]."""
    text = program_text.encode()
    prog_off = align(32 + 32 * 3)
    table_len = 8 + sum(32 + 8 * len(shape) + align(len(n.encode()), 8) for n, _, shape, _ in params)
    table_off = align(prog_off + len(text))
    data_off = align(table_off + table_len)
    table = struct.pack("<II", len(params), 0)
    data = b""
    for name, code, shape, raw in params:
        off = align(data_off + len(data))
        data += b"\0" * (off - data_off - len(data))
        nb = name.encode()
        table += struct.pack("<IIIIQQ", len(nb), code, len(shape), 0, off, len(raw))
        table += b"".join(struct.pack("<q", d) for d in shape)
        table += nb + b"\0" * (align(len(nb), 8) - len(nb))
        data += raw
    sections = [(1, prog_off, text), (2, table_off, table), (3, data_off, data)]
    file_size = data_off + len(data)
    entries = b"".join(struct.pack("<IIQQII", k, 0, off, len(b), zlib.crc32(b), 0)
                       for k, off, b in sections)
    head = b"DY2STMDL" + struct.pack("<IIQII", 1, 3, file_size, 0, 0) + entries
    head = head[:24] + struct.pack("<I", zlib.crc32(head)) + head[28:]
    out = bytearray(head)
    for _, off, b in sections:
        out += b"\0" * (off - len(out))
        out += b
    return bytes(out)


def npy(shape, values, descr):
    """A version 1.0 .npy image of a C-order array."""
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape) if len(shape) == 1 else ", ".join(str(d) for d in shape))
    hdr = hdr.encode()
    hdr += b" " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + b"\n"
    fmt = {"<f4": "f", "<i8": "q"}[descr]
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr +
            struct.pack("<%d%s" % (len(values), fmt), *values))


def f32(shape, values):
    return npy(shape, values, "<f4")


def i64(shape, values):
    return npy(shape, values, "<i8")


BIG = 2 ** 32
CASES = []


def case(name, expect, needle, program, inputs=(), params=()):
    CASES.append((name, expect, needle, program, inputs, params))


# ---- sizes the verifier sees: rejected when loading, naming the op
case("expand_static", "load", "op 0 (expand): output 0: cannot allocate a float32 tensor of shape "
     "[4294967296, 4294967296]: 73786976294838206464 bytes", """\
block ^0 (x : float32[1,1]) {
  y : float32[-1,-1] = expand(x) {shape = [4294967296, 4294967296]}
  return y
}
""")
case("tile_static", "load", "(tile): output 0: cannot allocate a float32 tensor", """\
block ^0 (x : float32[2]) {
  y : float32[-1,-1] = tile(x) {repeat_times = [4611686018427387904, 4]}
  return y
}
""")
case("full_static", "load", "op 0 (full): output 0: cannot allocate a float32 tensor", """\
block ^0 (x : float32[2]) {
  y : float32[-1,-1,-1] = full(_) {shape = [65536, 65536, 65536], value = 1, dtype = float32}
  z : float32[2] = add(x, x)
  return y, z
}
""")
case("reshape_static", "load", "(reshape): shape [4294967296,4294967296] is too large", """\
block ^0 (x : float32[4]) {
  y : float32[-1,-1] = reshape(x) {shape = [4294967296, 4294967296]}
  return y
}
""")
# the product wraps to 256 elements in 64 bits: must not give 256 stray bytes
case("expand_wraps", "load", "cannot allocate a float32 tensor of shape [4611686018427387968, 4]", """\
block ^0 (x : float32[1,4]) {
  y : float32[-1,4] = expand(x) {shape = [4611686018427387968, 4]}
  return y
}
""")
case("declared_huge", "load", "output 'y': cannot allocate a float32 tensor", """\
block ^0 (x : float32[-1]) {
  y : float32[4294967296,4294967296] = relu(x)
  return y
}
""")
case("feed_huge", "load", "cannot allocate a float32 tensor of shape [4294967296, 4294967296, 1]", """\
block ^0 (x : float32[4294967296,4294967296,-1]) {
  y : float32[4294967296,4294967296,-1] = relu(x)
  return y
}
""")
case("conv_pads_overflow", "load", "(conv2d): the height sizes overflow", """\
block ^0 (x : float32[1,1,4,4], w : float32[1,1,3,3]) {
  y : float32[-1,-1,-1,-1] = conv2d(x, w, _) {strides = [1, 1], paddings = [9223372036854775807, 0], dilations = [1, 1], groups = 1, padding_algorithm = "EXPLICIT"}
  return y
}
""")
case("conv_t_stride_overflow", "load", "(conv2d_transpose): the width sizes overflow", """\
block ^0 (x : float32[1,1,4,4], w : float32[1,1,3,3]) {
  y : float32[-1,-1,-1,-1] = conv2d_transpose(x, w, _) {strides = [1, 4611686018427387904], paddings = [0, 0], output_padding = [0, 0], output_size = [], dilations = [1, 1], groups = 1, padding_algorithm = "EXPLICIT"}
  return y
}
""")
# ---- wrong dtypes on edges
case("dtype_edge", "load", "is declared int32[3] but inferred float32[3]", """\
block ^0 (x : float32[3]) {
  y : int32[3] = add(x, x)
  return y
}
""")
case("param_dtype", "load", "param", """\
param w : float32[3]
block ^0 (x : float32[3]) {
  y : float32[3] = add(x, w)
  return y
}
""", params=[("w", I64, [3], struct.pack("<3q", 1, 2, 3))])
# ---- a cycle through blocks: two loop bodies, each the other's parent
case("block_cycle", "load", "parent ^2 must be defined before block ^1", """\
block ^0 (x : int64[]) {
  r : int64[] = while_loop(x) {cond = ^1, body = ^2}
  return r
}

block ^1 parent ^2 (cx : int64[]) {
  zero : int64[] = full(_) {shape = [], value = 0, dtype = int64}
  more : bool[] = less_than(cx, zero)
  yield more
}

block ^2 parent ^1 (bx : int64[]) {
  br : int64[] = while_loop(bx) {cond = ^1, body = ^2}
  yield br
}
""")
# a loop body that runs itself as a loop
case("block_self_loop", "load", "attribute 'cond': block ^2 has parent ^0, not ^1", """\
block ^0 (x : int64[]) {
  r : int64[] = while_loop(x) {cond = ^2, body = ^1}
  return r
}

block ^1 parent ^0 (bx : int64[]) {
  br : int64[] = while_loop(bx) {cond = ^2, body = ^1}
  yield br
}

block ^2 parent ^0 (cx : int64[]) {
  zero : int64[] = full(_) {shape = [], value = 0, dtype = int64}
  more : bool[] = less_than(cx, zero)
  yield more
}
""")
# ---- sizes known only when running: the executor's inference fails cleanly
case("expand_dynamic", "run", "cannot allocate a float32 tensor of shape [4294967296, 4294967296]", """\
block ^0 (x : float32[-1,-1], s : int64[2]) {
  y : float32[-1,-1] = expand(x, s)
  return y
}
""", inputs=[("x", f32([1, 1], [1.0])), ("s", i64([2], [BIG, BIG]))])
case("tile_dynamic", "run", "tile: result is too large", """\
block ^0 (x : float32[-1]) {
  y : float32[-1,-1] = tile(x) {repeat_times = [2147483648, 4611686018427387904]}
  return y
}
""", inputs=[("x", f32([2], [1.0, 2.0]))])
case("full_dynamic", "run", "cannot allocate a float32 tensor of shape [4294967296, 4294967296]", """\
block ^0 (s : int64[2]) {
  y : float32[-1,-1] = full(s) {value = 7, dtype = float32}
  return y
}
""", inputs=[("s", i64([2], [BIG, BIG]))])
case("full_negative", "run", "negative", """\
block ^0 (s : int64[2]) {
  y : float32[-1,-1] = full(s) {value = 7, dtype = float32}
  return y
}
""", inputs=[("s", i64([2], [-5, 3]))])
case("reshape_dynamic", "run", "reshape", """\
block ^0 (x : float32[-1], s : int64[2]) {
  y : float32[-1,-1] = reshape(x, s)
  return y
}
""", inputs=[("x", f32([4], [1.0, 2.0, 3.0, 4.0])), ("s", i64([2], [BIG, BIG]))])
case("reshape_negative", "run", "reshape", """\
block ^0 (x : float32[-1], s : int64[2]) {
  y : float32[-1,-1] = reshape(x, s)
  return y
}
""", inputs=[("x", f32([4], [1.0, 2.0, 3.0, 4.0])), ("s", i64([2], [-4, -1]))])
case("expand_dynamic_wraps", "run", "cannot allocate a float32 tensor of shape [4611686018427387968, 4]", """\
block ^0 (x : float32[-1,4], s : int64[2]) {
  y : float32[-1,-1] = expand(x, s)
  return y
}
""", inputs=[("x", f32([1, 4], [1.0, 2.0, 3.0, 4.0])), ("s", i64([2], [4611686018427387968, 4]))])
case("concat_of_expands", "run", "cannot allocate", """\
block ^0 (x : float32[-1], s : int64[1]) {
  a : float32[-1] = expand(x, s)
  y : float32[-1] = concat(a, a) {axis = 0}
  return y
}
""", inputs=[("x", f32([1], [1.0])), ("s", i64([1], [2 ** 62]))])
# ---- scans, sorting and index ops: hostile attributes and index values
case("topk_huge_k", "load", "(topk): output 0: cannot allocate a float32 tensor", """\
block ^0 (x : float32[-1]) {
  v : float32[-1], i : int64[-1] = topk(x) {k = 4611686018427387904}
  return v, i
}
""")
case("topk_k_too_large", "run", "k must be in [1, 3]", """\
block ^0 (x : float32[-1]) {
  v : float32[-1], i : int64[-1] = topk(x) {k = 4}
  return v, i
}
""", inputs=[("x", f32([3], [1.0, 2.0, 3.0]))])
case("gather_nd_index_range", "run", "out of range", """\
block ^0 (x : float32[-1,-1], i : int64[-1,2]) {
  y : float32[-1] = gather_nd(x, i)
  return y
}
""", inputs=[("x", f32([2, 2], [1.0, 2.0, 3.0, 4.0])), ("i", i64([1, 2], [0, BIG]))])
case("put_along_axis_index_range", "run", "out of range", """\
block ^0 (x : float32[-1,-1], i : int64[-1,-1], v : float32[-1,-1]) {
  y : float32[-1,-1] = put_along_axis(x, i, v) {axis = 0}
  return y
}
""", inputs=[("x", f32([2, 2], [1.0, 2.0, 3.0, 4.0])), ("i", i64([1, 2], [-BIG, 0])),
             ("v", f32([1, 2], [5.0, 6.0]))])
case("scatter_index_range", "run", "out of range", """\
block ^0 (x : float32[-1,-1], i : int64[-1], u : float32[-1,-1]) {
  y : float32[-1,-1] = scatter(x, i, u)
  return y
}
""", inputs=[("x", f32([2, 2], [1.0, 2.0, 3.0, 4.0])), ("i", i64([1], [-9223372036854775808])),
             ("u", f32([1, 2], [5.0, 6.0]))])
case("cumsum_flatten_huge", "load", "(cumsum): input is too large", """\
block ^0 (x : float32[4294967296,4294967296,-1]) {
  y : float32[-1] = cumsum(x) {flatten = true}
  return y
}
""")
# ---- a loop that never ends: only a run deadline stops it
case("endless_loop", "load-only", "", """\
block ^0 (x : int64[]) {
  r : int64[] = while_loop(x) {cond = ^1, body = ^2}
  return r
}

block ^1 parent ^0 (cx : int64[]) {
  zero : int64[] = full(_) {shape = [], value = 0, dtype = int64}
  more : bool[] = greater_equal(cx, zero)
  yield more
}

block ^2 parent ^0 (bx : int64[]) {
  yield bx
}
""", inputs=[("x", i64([], [0]))])


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for name, expect, needle, program, inputs, params in CASES:
        d = os.path.join(OUT, name)
        os.makedirs(d)
        with open(os.path.join(d, "model.d2m"), "wb") as f:
            f.write(saved_model(program, params))
        for iname, data in inputs:
            with open(os.path.join(d, iname + ".npy"), "wb") as f:
                f.write(data)
        with open(os.path.join(d, "expect"), "w") as f:
            f.write("%s\n%s\n" % (expect, needle))
    print("wrote %d cases to %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()

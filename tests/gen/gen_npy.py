#!/usr/bin/env python3
"""gen_npy.py - writes the .npy golden files and the sample program's parameters and outputs.

Run from anywhere:  python3 tests/gen/gen_npy.py
Writes tests/golden/npy/*.npy (files NumPy wrote, good and bad),
samples/programs/mlp_loop.d2p plus tests/golden/cli/mlp_loop/*.npy (its
input and the outputs NumPy computes for it), samples/programs/sign_cond.d2p
with tests/golden/cli/sign_cond/*.npy, and the MLP as a saved
model, tests/golden/cli/mlp_loop/mlp_loop.d2m, written here from the format
description in doc/model-format.md (an independent writer). Deterministic:
fixed seeds.

The sample program uses only values that are multiples of small powers of
two, so every intermediate result is exact in float32 and the runtime's
outputs must equal NumPy's bit for bit whatever the summation order.
"""
import io
import os
import struct
import zlib

import numpy as np
import numpy.lib.format as npformat

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NPY = os.path.join(ROOT, "tests", "golden", "npy")
CLI = os.path.join(ROOT, "tests", "golden", "cli", "mlp_loop")
PROGRAMS = os.path.join(ROOT, "samples", "programs")


def save(name, arr, version=None):
    path = os.path.join(NPY, name)
    with open(path, "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=True)


def write_bytes(name, data):
    with open(os.path.join(NPY, name), "wb") as f:
        f.write(data)


def good_files():
    # values follow simple formulas the C tests restate
    save("f32_2x3.npy", (np.arange(6, dtype=np.float32) * 0.5 - 1).reshape(2, 3))
    save("f64_5.npy", np.arange(5, dtype=np.float64) / 4 + 0.1)
    save("i32_2x3x4.npy", (np.arange(24, dtype=np.int32) - 12).reshape(2, 3, 4))
    save("i64_scalar.npy", np.array(-7, dtype=np.int64))
    save("bool_2x2.npy", np.array([[True, False], [False, True]]))
    save("f32_0x4.npy", np.zeros((0, 4), dtype=np.float32))
    save("f32_v2.npy", np.arange(3, dtype=np.float32), version=(2, 0))
    save("i64_v3.npy", np.arange(4, dtype=np.int64) * 1000000000000, version=(3, 0))


def bad_files():
    save("bad_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    save("bad_bigendian.npy", np.arange(3, dtype=">f4"))
    save("bad_complex.npy", np.zeros(2, dtype="<c8"))
    save("bad_u1.npy", np.arange(3, dtype=np.uint8))
    save("bad_f16.npy", np.arange(3, dtype=np.float16))
    save("bad_object.npy", np.array([1, "a"], dtype=object))
    save("bad_structured.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]))
    buf = io.BytesIO()
    npformat.write_array(buf, np.arange(6, dtype=np.float32))
    good = buf.getvalue()
    write_bytes("bad_truncated.npy", good[:-5])
    write_bytes("bad_trailing.npy", good + b"\0\0\0\0")
    write_bytes("bad_magic.npy", b"\x93NUMPZ" + good[6:])
    write_bytes("bad_version.npy", good[:6] + b"\x04\x00" + good[8:])
    # header length field claims more than the file holds
    write_bytes("bad_hlen.npy", good[:8] + b"\xff\xff" + good[10:])
    hdr = good[10:good.index(b"\n") + 1]
    write_bytes("bad_header.npy", good[:10] + hdr.replace(b"'shape'", b"'shapz'") + good[10 + len(hdr):])
    write_bytes("bad_bool.npy", good_bool_with(2))


def good_bool_with(value):
    buf = io.BytesIO()
    npformat.write_array(buf, np.array([True, False, True]))
    data = bytearray(buf.getvalue())
    data[-2] = value
    return bytes(data)


def dyadic(rng, shape, denom, lo, hi):
    """Random multiples of 1/denom in [lo, hi], as float32 (exactly representable)."""
    return (rng.integers(int(lo * denom), int(hi * denom) + 1, size=shape) / denom).astype(np.float32)


def fmt_list(arr):
    vals = [repr(float(v)) if float(v) != int(v) else str(int(v)) for v in arr.reshape(-1)]
    lines = []
    for i in range(0, len(vals), 8):
        lines.append("    " + ", ".join(vals[i:i + 8]))
    return "[\n" + ",\n".join(lines) + "\n]"


DTYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int32): 2,
               np.dtype(np.int64): 3, np.dtype(np.bool_): 4}


def align(v, a=64):
    return (v + a - 1) // a * a


def saved_model(program_text, params):
    """A saved model (format version 1) of program_text and [(name, array)]."""
    text = program_text.encode()
    hdr_size = 32 + 32 * 3
    prog_off = align(hdr_size)
    table_len = 8 + sum(32 + 8 * a.ndim + align(len(n.encode()), 8) for n, a in params)
    table_off = align(prog_off + len(text))
    data_off = align(table_off + table_len)
    table = struct.pack("<II", len(params), 0)
    data = b""
    for name, a in params:
        off = align(data_off + len(data))
        data += b"\0" * (off - data_off - len(data))
        raw = np.ascontiguousarray(a).tobytes()
        nb = name.encode()
        table += struct.pack("<IIIIQQ", len(nb), DTYPE_CODES[a.dtype], a.ndim, 0, off, len(raw))
        table += b"".join(struct.pack("<q", d) for d in a.shape)
        table += nb + b"\0" * (align(len(nb), 8) - len(nb))
        data += raw
    assert len(table) == table_len
    sections = [(1, prog_off, text), (2, table_off, table), (3, data_off, data)]
    file_size = data_off + len(data)
    entries = b"".join(struct.pack("<IIQQII", k, 0, off, len(b), zlib.crc32(b), 0)
                       for k, off, b in sections)
    head = b"DY2STMDL" + struct.pack("<IIQII", 1, 3, file_size, 0, 0) + entries
    crc = zlib.crc32(head)
    head = head[:24] + struct.pack("<I", crc) + head[28:]
    out = bytearray(head)
    for _, off, b in sections:
        out += b"\0" * (off - len(out))
        out += b
    assert len(out) == file_size
    return bytes(out)


def mlp_loop():
    """The sample program: out = linear(loop(relu(linear(x))), W2, b2)."""
    rng = np.random.default_rng(20240611)
    w1 = dyadic(rng, (4, 8), 8, -1, 1)
    b1 = dyadic(rng, (8,), 4, -1, 1)
    w2 = dyadic(rng, (8, 3), 8, -1, 1)
    b2 = dyadic(rng, (3,), 4, -1, 1)
    x = dyadic(rng, (5, 4), 4, -2, 2)

    h = np.maximum(x @ w1 + b1, np.float32(0))
    i = np.int64(0)
    while i < 3:  # body: h = relu(h * 1.5 - 0.5); i += 1
        h = np.maximum(h * np.float32(1.5) + np.float32(-0.5), np.float32(0))
        i += 1
    logits = (h @ w2 + b2).astype(np.float32)
    # the same in float64 must agree exactly, or the float32 result depends on rounding
    h64 = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    for _ in range(3):
        h64 = np.maximum(h64 * 1.5 - 0.5, 0)
    assert np.array_equal(h64 @ w2 + b2, logits.astype(np.float64)), "sample is not exact"
    positive = logits > 0
    steps = np.array(i, dtype=np.int64)

    params = [("fc1.weight", w1), ("fc1.bias", b1), ("fc2.weight", w2), ("fc2.bias", b2)]
    decls = "".join(f"param {n} : float32[{','.join(map(str, a.shape))}]{{{n}}}\n" for n, a in params)
    program = decls + f"""
block ^0 (x : float32[-1,4]) {{
  h0 : float32[-1,8] = linear(x, fc1.weight, fc1.bias)
  h1 : float32[-1,8] = relu(h0)
  i0 : int64[] = full(_) {{shape = [], value = 0, dtype = int64}}
  steps : int64[], h2 : float32[-1,8] = while_loop(i0, h1) {{cond = ^1, body = ^2}}
  logits : float32[-1,3] = linear(h2, fc2.weight, fc2.bias)
  zero : float32[] = full(_) {{shape = [], value = 0, dtype = float32}}
  positive : bool[-1,3] = greater_than(logits, zero)
  return logits, steps, positive
}}

block ^1 parent ^0 (ci : int64[], ch : float32[-1,8]) {{
  limit : int64[] = full(_) {{shape = [], value = 3, dtype = int64}}
  more : bool[] = less_than(ci, limit)
  yield more
}}

block ^2 parent ^0 (bi : int64[], bh : float32[-1,8]) {{
  one : int64[] = full(_) {{shape = [], value = 1, dtype = int64}}
  bi1 : int64[] = add(bi, one)
  bs : float32[-1,8] = scale(bh) {{scale = 1.5, bias = -0.5}}
  bh1 : float32[-1,8] = relu(bs)
  yield bi1, bh1
}}
"""
    header = ("# mlp_loop.d2p - a two-layer MLP whose hidden state is refined by a while_loop.\n"
              "# Written by tests/gen/gen_npy.py; every value is exact in float32.\n")
    with_data = program
    without = program
    for n, a in params:
        with_data = with_data.replace("{" + n + "}", " = " + fmt_list(a))
        without = without.replace("{" + n + "}", "")
    os.makedirs(PROGRAMS, exist_ok=True)
    with open(os.path.join(PROGRAMS, "mlp_loop.d2p"), "w") as f:
        f.write(header + with_data)
    os.makedirs(CLI, exist_ok=True)
    with open(os.path.join(CLI, "mlp_loop.d2m"), "wb") as f:
        f.write(saved_model(without, params))
    for name, arr in (("x", x), ("logits", logits), ("steps", steps), ("positive", positive)):
        np.save(os.path.join(CLI, name + ".npy"), arr)
    # inputs of the wrong dtype and shape for the error tests
    np.save(os.path.join(CLI, "x_f64.npy"), x.astype(np.float64))
    np.save(os.path.join(CLI, "x_bad_shape.npy"), np.zeros((5, 3), dtype=np.float32))


def sign_cond():
    """A cond sample: y = x * 2 where sum(x) > 0, else -x + 0.5."""
    text = """# sign_cond.d2p - data-dependent branch: doubles x when its sum is positive, else negates it.
# Written by tests/gen/gen_npy.py.

block ^0 (x : float32[-1]) {
  s : float32[] = sum(x)
  zero : float32[] = full(_) {shape = [], value = 0, dtype = float32}
  pos : bool[] = greater_than(s, zero)
  y : float32[-1] = cond(pos, x) {then = ^1, else = ^2}
  return y
}

block ^1 parent ^0 (tx : float32[-1]) {
  ty : float32[-1] = scale(tx) {scale = 2}
  yield ty
}

block ^2 parent ^0 (ex : float32[-1]) {
  ey : float32[-1] = scale(ex) {scale = -1, bias = 0.5}
  yield ey
}
"""
    with open(os.path.join(PROGRAMS, "sign_cond.d2p"), "w") as f:
        f.write(text)
    out = os.path.join(ROOT, "tests", "golden", "cli", "sign_cond")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    for tag, shift in (("pos", 1.0), ("neg", -1.0)):
        x = (rng.integers(-8, 9, size=6) / 4 + shift).astype(np.float32)
        y = x * np.float32(2) if x.sum() > 0 else -x + np.float32(0.5)
        assert (x.sum() > 0) == (tag == "pos")
        np.save(os.path.join(out, f"x_{tag}.npy"), x)
        np.save(os.path.join(out, f"y_{tag}.npy"), y.astype(np.float32))


def main():
    os.makedirs(NPY, exist_ok=True)
    good_files()
    bad_files()
    mlp_loop()
    sign_cond()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""gen_ops_nn.py - writes tests/golden/ops_nn.txt, golden cases for matmul, linear, conv2d,
conv2d_transpose, pool2d, batch_norm, layer_norm, embedding and dropout, with expected values
from NumPy.

The references here are written from Paddle's documented semantics, not from dy2st:
conv2d is a direct sum over an explicitly padded input (einsum per output pixel), pooling
walks Paddle's window rules (ceil_mode, exclusive averages, adaptive windows
[floor(i*H/out), ceil((i+1)*H/out)) ), normalisations use float64 NumPy arithmetic.
GEMM-heavy cases use multiples of 1/2 in a small range so float32 results are exact
whatever the summation order. Deterministic: fixed seed, re-runnable.

Run: python3 tests/gen/gen_ops_nn.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "ops_nn.txt")
rng = np.random.default_rng(7310)

F32, F64, I32, I64 = "float32", "float64", "int32", "int64"
NP = {F32: np.float32, F64: np.float64, I32: np.int32, I64: np.int64}

lines = []
names = set()


def fmt(a, dt):
    if a is None:
        return "none"
    a = np.asarray(a).astype(NP[dt])
    vals = []
    for v in a.ravel():
        if dt in (I32, I64):
            vals.append(str(int(v)))
        elif float(v).is_integer() and abs(v) < 1e15:
            vals.append(str(int(v)))
        elif dt == F32:
            vals.append(str(np.float32(v)))  # shortest text that reads back as this float32
        else:
            vals.append(repr(float(v)))
    return " ".join([dt, "[" + ",".join(str(d) for d in a.shape) + "]"] + vals)


def case(name, op, ins, out=None, attrs=None, error=None, tol=None):
    """ins: list of (array or None, dtype); out: (array, dtype)."""
    assert name not in names, name
    names.add(name)
    lines.append("case " + name)
    lines.append("op " + op)
    if attrs:
        lines.append("attrs " + attrs)
    for a, dt in ins:
        lines.append("in " + fmt(a, dt))
    if error is not None:
        lines.append("error " + error)
    else:
        lines.append("out " + fmt(out[0], out[1]))
    if tol:
        lines.append("tol %g %g" % tol)
    lines.append("end")


def halves(shape, dt=F32, lim=3):
    """Multiples of 1/2 in [-lim, lim]: products and sums stay exact in float32."""
    return (rng.integers(-2 * lim, 2 * lim + 1, size=shape) / 2.0).astype(NP[dt])


def normal(shape, dt=F32):
    return rng.standard_normal(size=shape).astype(NP[dt])


def b(v):
    return "true" if v else "false"


def ints(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


# ---------------------------------------------------------------- matmul
def ref_matmul(x, y, tx, ty):
    x = x.astype(np.float64)
    y = y.astype(np.float64)
    if tx and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if ty and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def mm(name, xs, ys, tx=False, ty=False, dt=F32, gen=halves, tol=None):
    x, y = gen(xs, dt), gen(ys, dt)
    case(name, "matmul", [(x, dt), (y, dt)], (ref_matmul(x, y, tx, ty), dt),
         attrs="transpose_x = %s, transpose_y = %s" % (b(tx), b(ty)), tol=tol)


mm("matmul_2d", (3, 4), (4, 5))
mm("matmul_2d_f64", (3, 4), (4, 5), dt=F64, gen=normal)
mm("matmul_tx", (4, 3), (4, 5), tx=True)
mm("matmul_ty", (3, 4), (5, 4), ty=True)
mm("matmul_txty", (4, 3), (5, 4), tx=True, ty=True)
mm("matmul_vec_vec", (6,), (6,))
mm("matmul_vec_mat", (4,), (4, 3))
mm("matmul_mat_vec", (3, 4), (4,))
mm("matmul_vec_batch", (4,), (2, 4, 3))
mm("matmul_batch_vec", (2, 3, 4), (4,))
mm("matmul_vec_flags_ignored", (4,), (3, 4), tx=True, ty=True)
mm("matmul_batch_vec_tx", (2, 4, 3), (4,), tx=True)
mm("matmul_batched", (2, 3, 4), (2, 4, 5))
mm("matmul_batched_ty", (3, 2, 4), (3, 5, 4), ty=True)
mm("matmul_fold_rows", (2, 3, 4), (4, 5))
mm("matmul_fold_rows_ty", (2, 2, 3, 4), (5, 4), ty=True)
mm("matmul_x_broadcast", (3, 4), (2, 4, 5))
mm("matmul_batch_tx_2d_y", (2, 4, 3), (4, 5), tx=True)
mm("matmul_broadcast_4d", (2, 1, 3, 4), (3, 4, 2))
mm("matmul_broadcast_both", (2, 1, 3, 4), (1, 3, 4, 2), tx=False)
mm("matmul_broadcast_both_t", (1, 3, 4, 3), (2, 1, 2, 4), tx=True, ty=True)
mm("matmul_big_f32", (100, 100), (100, 100))
mm("matmul_skinny_f32", (4, 64), (64, 96))
mm("matmul_batched_medium", (3, 40, 40), (3, 40, 40), tx=True)
mm("matmul_big_f64", (50, 50), (50, 52), dt=F64, gen=normal)
mm("matmul_normal_f32", (6, 30), (30, 7), gen=normal, tol=(1e-5, 1e-5))
mm("matmul_empty_m", (0, 3), (3, 4))
mm("matmul_empty_k", (2, 0), (0, 3))
mm("matmul_empty_batch", (0, 2, 3), (3, 4))
x, y = halves((2, 3)), halves((4, 5))
case("matmul_err_inner", "matmul", [(x, F32), (y, F32)], error="inner dimensions differ")
case("matmul_err_inner_ty", "matmul", [(halves((2, 3)), F32), (halves((3, 4)), F32)],
     attrs="transpose_y = true", error="inner dimensions differ")
case("matmul_err_int", "matmul", [(np.ones((2, 2)), I32), (np.ones((2, 2)), I32)],
     error="only float32 and float64")
case("matmul_err_mixed", "matmul", [(np.ones((2, 2)), F32), (np.ones((2, 2)), F64)],
     error="dtype float64 but 'x' has float32")
case("matmul_err_scalar", "matmul", [(np.float32(2.0), F32), (np.ones((2, 2)), F32)],
     error="at least 1-D")
case("matmul_err_batch", "matmul", [(halves((2, 3, 4)), F32), (halves((3, 4, 5)), F32)],
     error="cannot be broadcast")


# ---------------------------------------------------------------- linear
def lin(name, xs, ins, outs, bias=True, dt=F32, gen=halves, none_bias=False):
    x, w = gen(xs, dt), gen((ins, outs), dt)
    bb = gen((outs,), dt) if bias else None
    ref = np.matmul(x.astype(np.float64), w.astype(np.float64))
    if bias:
        ref = ref + bb
    inputs = [(x, dt), (w, dt)]
    if bias or none_bias:
        inputs.append((bb, dt))
    case(name, "linear", inputs, (ref, dt))


lin("linear_2d", (3, 4), 4, 5)
lin("linear_3d", (2, 3, 4), 4, 6)
lin("linear_1d", (4,), 4, 3)
lin("linear_nobias", (2, 3, 4), 4, 2, bias=False)
lin("linear_nobias_none", (3, 4), 4, 2, bias=False, none_bias=True)
lin("linear_f64", (5, 7), 7, 3, dt=F64, gen=normal)
lin("linear_wide", (8, 64), 64, 48)
lin("linear_empty_rows", (0, 4), 4, 3)
case("linear_err_features", "linear", [(halves((2, 3)), F32), (halves((4, 5)), F32)],
     error="input features")
case("linear_err_bias", "linear",
     [(halves((2, 4)), F32), (halves((4, 5)), F32), (halves((4,)), F32)],
     error="has 4 elements, expected 5")
case("linear_err_weight_1d", "linear", [(halves((2, 4)), F32), (halves((4,)), F32)],
     error="must be 2-D")
case("linear_err_dtype", "linear", [(np.ones((2, 4)), I64), (np.ones((4, 5)), I64)],
     error="only float32 and float64")


# ---------------------------------------------------------------- conv2d
def conv_pads(H, W, KH, KW, strides, paddings, dilations, alg):
    """Paddle's padding resolution: returns ([top, bottom, left, right], dilations)."""
    if len(paddings) == 2:
        pads = [paddings[0], paddings[0], paddings[1], paddings[1]]
    else:
        pads = list(paddings)
    dil = list(dilations)
    if alg == "SAME":
        pads = []
        for size, k, s in ((H, KH, strides[0]), (W, KW, strides[1])):
            out = -(-size // s)
            total = max((out - 1) * s + k - size, 0)
            pads += [total // 2, total - total // 2]
        dil = [1, 1]
    elif alg == "VALID":
        pads = [0, 0, 0, 0]
    return pads, dil


def ref_conv(x, w, bias, strides, paddings, dilations, groups, alg):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    N, C, H, W = x.shape
    OC, CG, KH, KW = w.shape
    pads, dil = conv_pads(H, W, KH, KW, strides, paddings, dilations, alg)
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    eh, ew = dil[0] * (KH - 1) + 1, dil[1] * (KW - 1) + 1
    OH = (H + pads[0] + pads[1] - eh) // strides[0] + 1
    OW = (W + pads[2] + pads[3] - ew) // strides[1] + 1
    out = np.zeros((N, OC, OH, OW))
    ocg = OC // groups
    for g in range(groups):
        wg = w[g * ocg:(g + 1) * ocg]
        xg = xp[:, g * CG:(g + 1) * CG]
        for i in range(OH):
            for j in range(OW):
                r0, c0 = i * strides[0], j * strides[1]
                patch = xg[:, :, r0:r0 + eh:dil[0], c0:c0 + ew:dil[1]]
                out[:, g * ocg:(g + 1) * ocg, i, j] = np.einsum("nchw,ochw->no", patch, wg)
    if bias is not None:
        out += bias.astype(np.float64).reshape(1, -1, 1, 1)
    return out


def conv(name, xs, ws, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
         alg="EXPLICIT", bias=False, dt=F32, gen=halves, tol=None):
    x, w = gen(xs, dt), gen(ws, dt)
    bb = gen((ws[0],), dt) if bias else None
    ref = ref_conv(x, w, bb, strides, paddings, dilations, groups, alg)
    attrs = ("strides = %s, paddings = %s, dilations = %s, groups = %d, "
             "padding_algorithm = \"%s\"") % (ints(strides), ints(paddings), ints(dilations),
                                              groups, alg)
    ins = [(x, dt), (w, dt)] + ([(bb, dt)] if bias else [])
    case(name, "conv2d", ins, (ref, dt), attrs=attrs, tol=tol)


conv("conv_basic", (1, 2, 5, 5), (3, 2, 3, 3))
conv("conv_pad1", (2, 3, 5, 5), (4, 3, 3, 3), paddings=(1, 1), bias=True)
conv("conv_stride2", (1, 2, 7, 6), (2, 2, 3, 3), strides=(2, 2))
conv("conv_stride_hw", (1, 2, 7, 8), (2, 2, 3, 2), strides=(2, 3), paddings=(1, 0))
conv("conv_pad4", (1, 2, 5, 6), (3, 2, 3, 3), paddings=(1, 0, 2, 1))
conv("conv_pad4_stride", (2, 1, 6, 6), (2, 1, 2, 3), strides=(2, 2), paddings=(0, 1, 1, 2),
     bias=True)
conv("conv_dilation", (1, 2, 7, 7), (2, 2, 3, 3), dilations=(2, 2), paddings=(1, 1))
conv("conv_dilation_hw", (1, 1, 8, 9), (2, 1, 2, 3), dilations=(2, 3), strides=(1, 2))
conv("conv_groups2", (2, 4, 5, 5), (6, 2, 3, 3), groups=2, paddings=(1, 1), bias=True)
conv("conv_depthwise", (1, 3, 6, 6), (3, 1, 3, 3), groups=3, paddings=(1, 1), strides=(2, 2))
conv("conv_depthwise_mult", (1, 2, 5, 5), (4, 1, 3, 3), groups=2)
conv("conv_same_s1", (1, 2, 5, 6), (2, 2, 3, 3), alg="SAME", paddings=(4, 4))
conv("conv_same_s2", (1, 2, 7, 6), (3, 2, 3, 3), alg="SAME", strides=(2, 2), bias=True)
conv("conv_same_even_k", (1, 1, 5, 5), (2, 1, 2, 4), alg="SAME", strides=(2, 1),
     dilations=(2, 2))
conv("conv_valid", (1, 2, 6, 5), (2, 2, 3, 2), alg="VALID", paddings=(2, 2))
conv("conv_1x1", (2, 8, 4, 5), (6, 8, 1, 1), bias=True)
conv("conv_1x1_groups", (2, 4, 3, 3), (6, 2, 1, 1), groups=2)
conv("conv_1x1_stride", (1, 3, 5, 5), (2, 3, 1, 1), strides=(2, 2))
conv("conv_1x1_pad", (1, 3, 3, 3), (2, 3, 1, 1), paddings=(1, 1))
conv("conv_f64", (2, 3, 6, 5), (4, 3, 3, 3), paddings=(1, 2), strides=(1, 2), bias=True, dt=F64,
     gen=normal)
conv("conv_f32_normal", (1, 4, 6, 6), (5, 4, 3, 3), paddings=(1, 1), gen=normal, tol=(1e-5, 1e-5))
conv("conv_medium", (1, 16, 12, 12), (32, 16, 3, 3), paddings=(1, 1), bias=True)
conv("conv_kernel_covers", (1, 1, 3, 3), (1, 1, 3, 3))
conv("conv_empty_batch", (0, 2, 4, 4), (3, 2, 3, 3))
case("conv_err_channels", "conv2d", [(halves((1, 3, 5, 5)), F32), (halves((2, 2, 3, 3)), F32)],
     error="input has 3 channels but weight expects 2")
case("conv_err_groups", "conv2d", [(halves((1, 4, 5, 5)), F32), (halves((6, 1, 3, 3)), F32)],
     attrs="groups = 3", error="does not divide the 4 input channels")
case("conv_err_groups_out", "conv2d", [(halves((1, 4, 5, 5)), F32), (halves((3, 2, 3, 3)), F32)],
     attrs="groups = 2", error="does not divide the 3 output channels")
case("conv_err_groups_zero", "conv2d", [(halves((1, 4, 5, 5)), F32), (halves((3, 4, 3, 3)), F32)],
     attrs="groups = 0", error="groups = 0")
case("conv_err_small", "conv2d", [(halves((1, 1, 2, 2)), F32), (halves((1, 1, 3, 3)), F32)],
     error="smaller than the dilated kernel")
case("conv_err_pads3", "conv2d", [(halves((1, 1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     attrs="paddings = [1, 1, 1]", error="paddings must have 2 or 4 values")
case("conv_err_alg", "conv2d", [(halves((1, 1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     attrs="padding_algorithm = \"FULL\"", error="padding_algorithm")
case("conv_err_3d", "conv2d", [(halves((1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     error="must be 4-D")
case("conv_err_stride0", "conv2d", [(halves((1, 1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     attrs="strides = [0, 1]", error="strides[0] = 0")
case("conv_err_bias", "conv2d",
     [(halves((1, 1, 4, 4)), F32), (halves((2, 1, 3, 3)), F32), (halves((3,)), F32)],
     error="expected 2 (output channels)")
case("conv_err_dtype", "conv2d", [(np.ones((1, 1, 4, 4)), I32), (np.ones((1, 1, 3, 3)), I32)],
     error="only float32 and float64")


# ---------------------------------------------------------------- pool2d
def pool_out(size, k, p, s, ceil):
    num = size - k + p + (s - 1 if ceil else 0)
    return int(num / s) + 1  # C division truncates toward zero


def ref_pool(x, ptype, ksize, strides, paddings, global_pooling, adaptive, ceil, exclusive):
    """Paddle's CPU pooling, written out: windows start at o*stride - pad_top (pad_left);
    the window end is clipped to H + pad_top (Paddle's kernel only keeps the top/left
    paddings); non-exclusive averages divide by that clipped window, exclusive and
    adaptive ones by the in-bounds part."""
    x = x.astype(np.float64)
    N, C, H, W = x.shape
    if len(paddings) == 2:
        pads = [paddings[0], paddings[0], paddings[1], paddings[1]]
    else:
        pads = list(paddings)
    ks = list(ksize)
    if global_pooling:
        ks = [H, W]
    if global_pooling or adaptive:
        pads = [0, 0, 0, 0]
    if adaptive:
        OH, OW = ks
    else:
        OH = pool_out(H, ks[0], pads[0] + pads[1], strides[0], ceil)
        OW = pool_out(W, ks[1], pads[2] + pads[3], strides[1], ceil)
    out = np.zeros((N, C, OH, OW))
    for i in range(OH):
        for j in range(OW):
            if adaptive:
                h0, h1 = (i * H) // OH, -(-((i + 1) * H) // OH)
                w0, w1 = (j * W) // OW, -(-((j + 1) * W) // OW)
                cnt = (h1 - h0) * (w1 - w0)
            else:
                h0, w0 = i * strides[0] - pads[0], j * strides[1] - pads[2]
                h1 = min(h0 + ks[0], H + pads[0])
                w1 = min(w0 + ks[1], W + pads[2])
                cnt = (h1 - h0) * (w1 - w0)
                h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
                if exclusive:
                    cnt = (h1 - h0) * (w1 - w0)
            win = x[:, :, h0:h1, w0:w1]
            if ptype == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


def pool(name, xs, ptype="max", ksize=(2, 2), strides=(1, 1), paddings=(0, 0), global_pooling=False,
         adaptive=False, ceil=False, exclusive=True, dt=F32):
    x = normal(xs, dt)
    ref = ref_pool(x, ptype, ksize, strides, paddings, global_pooling, adaptive, ceil, exclusive)
    attrs = ("pooling_type = \"%s\", ksize = %s, strides = %s, paddings = %s, global_pooling = %s, "
             "adaptive = %s, ceil_mode = %s, exclusive = %s") % (
        ptype, ints(ksize), ints(strides), ints(paddings), b(global_pooling), b(adaptive), b(ceil),
        b(exclusive))
    case(name, "pool2d", [(x, dt)], (ref, dt), attrs=attrs)


pool("pool_max_2x2", (2, 3, 4, 6), ksize=(2, 2), strides=(2, 2))
pool("pool_max_3x3_s1", (1, 2, 5, 5), ksize=(3, 3))
pool("pool_max_pad", (1, 2, 5, 5), ksize=(3, 3), strides=(2, 2), paddings=(1, 1))
pool("pool_max_ceil", (1, 2, 5, 7), ksize=(2, 2), strides=(2, 2), ceil=True)
pool("pool_max_ceil_pad", (1, 1, 6, 6), ksize=(3, 3), strides=(2, 2), paddings=(1, 1), ceil=True)
pool("pool_max_pad4", (1, 2, 6, 7), ksize=(3, 2), strides=(2, 2), paddings=(1, 0, 0, 1))
pool("pool_max_rect", (1, 1, 7, 5), ksize=(3, 2), strides=(2, 1))
pool("pool_avg_2x2", (2, 2, 4, 4), ptype="avg", ksize=(2, 2), strides=(2, 2))
pool("pool_avg_pad_excl", (1, 2, 5, 5), ptype="avg", ksize=(3, 3), paddings=(1, 1))
pool("pool_avg_pad_incl", (1, 2, 5, 5), ptype="avg", ksize=(3, 3), paddings=(1, 1),
     exclusive=False)
pool("pool_avg_ceil_excl", (1, 2, 5, 7), ptype="avg", ksize=(2, 3), strides=(2, 2), ceil=True)
pool("pool_avg_ceil_incl", (1, 1, 6, 6), ptype="avg", ksize=(3, 3), strides=(2, 2),
     paddings=(1, 1), ceil=True, exclusive=False)
pool("pool_avg_pad4_excl", (1, 1, 6, 6), ptype="avg", ksize=(3, 3), strides=(2, 2),
     paddings=(1, 0, 1, 2))
pool("pool_avg_pad4_incl", (1, 1, 6, 6), ptype="avg", ksize=(3, 3), strides=(2, 2),
     paddings=(0, 1, 2, 0), exclusive=False)
pool("pool_global_max", (2, 3, 4, 5), global_pooling=True, ksize=(1, 1))
pool("pool_global_avg", (2, 3, 4, 5), ptype="avg", global_pooling=True, ksize=(2, 2),
     paddings=(1, 1))
pool("pool_adaptive_avg", (1, 2, 7, 5), ptype="avg", adaptive=True, ksize=(3, 2))
pool("pool_adaptive_avg_1", (2, 3, 4, 6), ptype="avg", adaptive=True, ksize=(1, 1))
pool("pool_adaptive_max", (1, 2, 7, 5), ptype="max", adaptive=True, ksize=(3, 4))
pool("pool_adaptive_up", (1, 1, 3, 2), ptype="avg", adaptive=True, ksize=(5, 4))
pool("pool_global_adaptive", (1, 2, 3, 4), ptype="avg", adaptive=True, global_pooling=True,
     ksize=(1, 1))
pool("pool_max_f64", (1, 2, 6, 6), ksize=(3, 3), strides=(2, 2), paddings=(1, 1), dt=F64)
pool("pool_avg_f64", (1, 2, 6, 6), ptype="avg", ksize=(3, 3), strides=(2, 2), paddings=(1, 1),
     dt=F64, ceil=True, exclusive=False)
x4 = normal((1, 1, 4, 4))
case("pool_err_ksize3", "pool2d", [(x4, F32)], attrs="ksize = [2, 2, 2]",
     error="ksize must have 2 values")
case("pool_err_ksize0", "pool2d", [(x4, F32)], attrs="ksize = [0, 2]", error="ksize[0] = 0")
case("pool_err_too_big", "pool2d", [(x4, F32)], attrs="ksize = [6, 2]",
     error="output height would be")
case("pool_err_type", "pool2d", [(x4, F32)], attrs="pooling_type = \"min\"",
     error="pooling_type \"min\"")
case("pool_err_3d", "pool2d", [(normal((1, 4, 4)), F32)], error="must be 4-D")
case("pool_err_pads", "pool2d", [(x4, F32)], attrs="paddings = [1]",
     error="paddings must have 2 or 4 values")
case("pool_err_stride", "pool2d", [(x4, F32)], attrs="strides = [1, -1]", error="strides[1] = -1")
case("pool_err_dtype", "pool2d", [(np.ones((1, 1, 4, 4)), I64)], error="only float32 and float64")


# ---------------------------------------------------------------- batch_norm
def bn(name, xs, dt=F32, eps=1e-5):
    c = xs[1]
    x = normal(xs, dt)
    mean, var = normal((c,), dt), rng.uniform(0.1, 2.0, size=c).astype(NP[dt])
    scale, bias = normal((c,), dt), normal((c,), dt)
    shape = (1, c) + (1,) * (len(xs) - 2)
    f = lambda a: a.astype(np.float64).reshape(shape)
    ref = (x.astype(np.float64) - f(mean)) / np.sqrt(f(var) + eps) * f(scale) + f(bias)
    case(name, "batch_norm", [(x, dt), (mean, dt), (var, dt), (scale, dt), (bias, dt)], (ref, dt),
         attrs="epsilon = %r" % eps)


bn("bn_nchw", (2, 3, 4, 5))
bn("bn_nc", (4, 3))
bn("bn_ncl", (2, 3, 6))
bn("bn_ncdhw", (1, 2, 2, 3, 2))
bn("bn_f64", (2, 3, 3, 3), dt=F64)
bn("bn_eps", (2, 2, 3, 3), eps=0.5)
xb = normal((2, 3, 2, 2))
v3 = np.ones(3, np.float32)
case("bn_err_len", "batch_norm", [(xb, F32), (np.ones(4), F32), (v3, F32), (v3, F32), (v3, F32)],
     error="has 4 elements, expected 3")
case("bn_err_1d", "batch_norm", [(np.ones(3), F32), (v3, F32), (v3, F32), (v3, F32), (v3, F32)],
     error="must be 2-D to 5-D")
case("bn_err_dtype", "batch_norm", [(xb, F32), (v3, F64), (v3, F32), (v3, F32), (v3, F32)],
     error="dtype float64")


# ---------------------------------------------------------------- layer_norm
def ln(name, xs, axis, scale=True, bias=True, dt=F32, eps=1e-5, explicit_none=False):
    x = normal(xs, dt)
    a = axis % len(xs)
    right = int(np.prod(xs[a:]))
    s = normal((right,), dt) if scale else None
    bb = normal((right,), dt) if bias else None
    xd = x.astype(np.float64).reshape(-1, right)
    mu = xd.mean(axis=1, keepdims=True)
    var = ((xd - mu) ** 2).mean(axis=1, keepdims=True)
    ref = (xd - mu) / np.sqrt(var + eps)
    if scale:
        ref = ref * s.astype(np.float64)
    if bias:
        ref = ref + bb.astype(np.float64)
    ins = [(x, dt)]
    if scale or bias or explicit_none:
        ins.append((s, dt))
    if bias or explicit_none:
        ins.append((bb, dt))
    case(name, "layer_norm", ins, (ref.reshape(xs), dt),
         attrs="epsilon = %r, begin_norm_axis = %d" % (eps, axis), tol=(1e-5, 1e-5))


ln("ln_axis1", (2, 3, 4), 1)
ln("ln_axis2", (2, 3, 4), 2)
ln("ln_axis_neg", (3, 2, 5), -1)
ln("ln_axis0", (2, 3), 0)
ln("ln_1d", (6,), 0)
ln("ln_noaffine", (4, 5), 1, scale=False, bias=False)
ln("ln_noaffine_none", (4, 5), 1, scale=False, bias=False, explicit_none=True)
ln("ln_scale_only", (3, 4), 1, bias=False)
ln("ln_bias_only", (3, 4), 1, scale=False, explicit_none=True)
ln("ln_f64", (2, 2, 6), 1, dt=F64)
ln("ln_eps", (2, 8), 1, eps=1e-3)
xl = normal((2, 3, 4))
case("ln_err_scale", "layer_norm", [(xl, F32), (np.ones(4), F32)],
     error="has 4 elements, expected 12")
case("ln_err_axis", "layer_norm", [(xl, F32)], attrs="begin_norm_axis = 3", error="out of range")
case("ln_err_dtype", "layer_norm", [(np.ones((2, 3)), I32)], error="only float32 and float64")


# ---------------------------------------------------------------- embedding
def emb(name, ids, V, D, pad=None, dt=F32, idt=I64):
    w = normal((V, D), dt)
    ids = np.asarray(ids)
    ref = w.astype(np.float64)[ids.reshape(-1)].reshape(ids.shape + (D,))
    attrs = None
    if pad is not None:
        attrs = "padding_idx = %d" % pad
        p = pad if pad >= 0 else pad + V
        ref[ids == p] = 0.0
    case(name, "embedding", [(ids, idt), (w, dt)], (ref, dt), attrs=attrs)


emb("emb_basic", [[0, 2, 4], [1, 1, 3]], 5, 4)
emb("emb_int32", [3, 0, 2], 4, 3, idt=I32)
emb("emb_scalar_id", np.int64(2), 4, 3)
emb("emb_3d_ids", [[[0, 1], [2, 0]], [[1, 1], [2, 2]]], 3, 2)
emb("emb_padding", [[0, 2, 4], [2, 1, 2]], 5, 3, pad=2)
emb("emb_padding_neg", [0, 3, 4, 3], 5, 2, pad=-2)
emb("emb_padding_zero", [0, 1, 0], 3, 2, pad=0)
emb("emb_f64", [1, 0, 1], 2, 5, dt=F64)
we = normal((5, 3))
case("emb_err_range", "embedding", [(np.array([1, 5, 0]), I64), (we, F32)],
     error="id 5 at position 1 is out of range [0, 5)")
case("emb_err_negative", "embedding", [(np.array([1, -1]), I32), (we, F32)],
     error="id -1 at position 1 is out of range")
case("emb_err_ids_dtype", "embedding", [(np.array([1.0]), F32), (we, F32)],
     error="ids must be int32 or int64")
case("emb_err_weight_dtype", "embedding", [(np.array([1]), I64), (np.ones((2, 2)), I32)],
     error="weight must be float32 or float64")
case("emb_err_weight_1d", "embedding", [(np.array([1]), I64), (np.ones(4), F32)],
     error="must be 2-D")
case("emb_err_padding", "embedding", [(np.array([1]), I64), (we, F32)], attrs="padding_idx = 5",
     error="padding_idx 5 is out of range")


# ---------------------------------------------------------------- dropout (inference)
xd = normal((3, 4))
case("dropout_upscale", "dropout", [(xd, F32)], (xd, F32),
     attrs="p = 0.3, mode = \"upscale_in_train\"")
case("dropout_default", "dropout", [(xd, F32)], (xd, F32))
case("dropout_downscale", "dropout", [(xd, F32)], (xd.astype(np.float64) * 0.7, F32),
     attrs="p = 0.3, mode = \"downscale_in_infer\"")
xd64 = normal((2, 5), F64)
case("dropout_downscale_f64", "dropout", [(xd64, F64)], (xd64 * 0.75, F64),
     attrs="p = 0.25, mode = \"downscale_in_infer\"")
case("dropout_err_mode", "dropout", [(xd, F32)], attrs="mode = \"random\"", error="mode \"random\"")
case("dropout_err_p", "dropout", [(xd, F32)], attrs="p = 1.5", error="p = 1.5 must be in [0, 1]")

# ---------------------------------------------------------------- conv2d_transpose
def ref_conv_t(x, w, bias, strides, paddings, dilations, groups, alg, output_padding=(0, 0),
               output_size=None):
    """Scatter definition: x[n, c, ih, iw] * w[c, o, kh, kw] adds into the full output at
    (ih * s + kh * d, iw * s + kw * d); the paddings then crop its start and end."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    N, C, H, W = x.shape
    _, OCG, KH, KW = w.shape
    pads, dil = conv_pads(H, W, KH, KW, strides, paddings, dilations, alg)
    FH = (H - 1) * strides[0] + dil[0] * (KH - 1) + 1
    FW = (W - 1) * strides[1] + dil[1] * (KW - 1) + 1
    full = np.zeros((N, OCG * groups, FH + strides[0] + 2, FW + strides[1] + 2))
    cg = C // groups
    for g in range(groups):
        for kh in range(KH):
            for kw in range(KW):
                contrib = np.einsum("nchw,co->nohw", x[:, g * cg:(g + 1) * cg],
                                    w[g * cg:(g + 1) * cg, :, kh, kw])
                r0, c0 = kh * dil[0], kw * dil[1]
                full[:, g * OCG:(g + 1) * OCG, r0:r0 + (H - 1) * strides[0] + 1:strides[0],
                     c0:c0 + (W - 1) * strides[1] + 1:strides[1]] += contrib
    OH = FH - pads[0] - pads[1] + output_padding[0]
    OW = FW - pads[2] - pads[3] + output_padding[1]
    if output_size is not None:
        OH, OW = output_size
    out = full[:, :, pads[0]:pads[0] + OH, pads[2]:pads[2] + OW]
    if bias is not None:
        out = out + bias.astype(np.float64).reshape(1, -1, 1, 1)
    return out


def conv_t(name, xs, ws, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
           alg="EXPLICIT", bias=False, output_padding=(0, 0), output_size=None, dt=F32,
           gen=halves, tol=None):
    x, w = gen(xs, dt), gen(ws, dt)
    bb = gen((ws[1] * groups,), dt) if bias else None
    ref = ref_conv_t(x, w, bb, strides, paddings, dilations, groups, alg, output_padding,
                     output_size)
    attrs = ("strides = %s, paddings = %s, dilations = %s, groups = %d, "
             "padding_algorithm = \"%s\", output_padding = %s, output_size = %s") % (
                 ints(strides), ints(paddings), ints(dilations), groups, alg,
                 ints(output_padding), ints(output_size or []))
    ins = [(x, dt), (w, dt)] + ([(bb, dt)] if bias else [])
    case(name, "conv2d_transpose", ins, (ref, dt), attrs=attrs, tol=tol)


conv_t("convt_basic", (1, 2, 4, 3), (2, 3, 3, 3))
conv_t("convt_stride2", (2, 2, 4, 3), (2, 3, 3, 2), strides=(2, 2), bias=True)
conv_t("convt_pad", (1, 3, 5, 5), (3, 2, 3, 3), strides=(2, 2), paddings=(1, 1))
conv_t("convt_pad4", (1, 2, 4, 5), (2, 2, 3, 3), strides=(2, 3), paddings=(1, 0, 2, 1),
       dilations=(2, 1))
conv_t("convt_out_padding", (1, 2, 4, 4), (2, 1, 3, 3), strides=(2, 2), paddings=(1, 1),
       output_padding=(1, 0))
conv_t("convt_output_size", (1, 2, 4, 3), (2, 2, 3, 3), strides=(2, 3), output_size=(10, 10))
conv_t("convt_groups", (2, 4, 3, 3), (4, 3, 2, 2), groups=2, strides=(2, 1), bias=True)
conv_t("convt_depthwise", (1, 3, 4, 4), (3, 1, 3, 3), groups=3, strides=(2, 2), paddings=(1, 1))
conv_t("convt_same", (1, 2, 5, 4), (2, 3, 3, 2), strides=(2, 2), alg="SAME")
conv_t("convt_same_s3", (1, 2, 5, 4), (2, 3, 3, 2), strides=(3, 3), alg="SAME",
       dilations=(2, 2))
conv_t("convt_valid", (1, 2, 3, 3), (2, 2, 2, 2), strides=(2, 2), alg="VALID", paddings=(1, 1))
conv_t("convt_1x1", (2, 3, 3, 4), (3, 4, 1, 1), bias=True)
conv_t("convt_f64", (1, 3, 4, 4), (3, 2, 3, 3), strides=(2, 2), paddings=(1, 1), bias=True,
       dt=F64, gen=normal)
conv_t("convt_f32_normal", (1, 4, 5, 5), (4, 3, 3, 3), strides=(2, 2), gen=normal,
       tol=(1e-5, 1e-5))
conv_t("convt_empty_batch", (0, 2, 3, 3), (2, 2, 3, 3))
case("convt_err_channels", "conv2d_transpose",
     [(halves((1, 3, 4, 4)), F32), (halves((2, 2, 3, 3)), F32)],
     error="input has 3 channels but weight expects 2")
case("convt_err_groups", "conv2d_transpose",
     [(halves((1, 3, 4, 4)), F32), (halves((3, 2, 3, 3)), F32)], attrs="groups = 2",
     error="does not divide the 3 input channels")
case("convt_err_out_padding", "conv2d_transpose",
     [(halves((1, 1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     attrs="strides = [2, 2], output_padding = [2, 0]", error="output_padding[0] = 2")
case("convt_err_output_size", "conv2d_transpose",
     [(halves((1, 1, 4, 4)), F32), (halves((1, 1, 3, 3)), F32)],
     attrs="strides = [2, 2], output_size = [12, 9]", error="output_size[0] = 12 is not in")
case("convt_err_pads", "conv2d_transpose",
     [(halves((1, 1, 2, 2)), F32), (halves((1, 1, 1, 1)), F32)], attrs="paddings = [1, 1]",
     error="leave no output")
case("convt_err_bias", "conv2d_transpose",
     [(halves((1, 1, 4, 4)), F32), (halves((1, 2, 3, 3)), F32), (halves((3,)), F32)],
     error="expected 2 (output channels)")
case("convt_err_dtype", "conv2d_transpose",
     [(np.ones((1, 1, 4, 4)), I32), (np.ones((1, 1, 3, 3)), I32)], error="only float32 and float64")


with open(OUT, "w") as f:
    f.write("# ops_nn.txt - generated by tests/gen/gen_ops_nn.py from NumPy; do not edit.\n")
    f.write("\n".join(lines) + "\n")
print("wrote %d cases to %s (%d bytes)" % (len(names), os.path.normpath(OUT),
                                          os.path.getsize(OUT)))

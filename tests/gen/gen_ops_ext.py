#!/usr/bin/env python3
"""gen_ops_ext.py - writes tests/golden/ops_ext.txt, golden cases for the special functions,
parameterised activations, isnan/isinf/isfinite, bitwise ops, gcd/lcm, scans, sorting, top-k,
tril/triu, flip, roll, gather_nd, the scatters and take/put_along_axis. Expected values
come from NumPy and Python's math module; erfinv and digamma, which neither has, from
real Paddle (the oracle environment) in float64. Deterministic: fixed seed, re-runnable.
"""
import math
import os
import warnings

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "ops_ext.txt")
rng = np.random.default_rng(20261127)
warnings.simplefilter("ignore")
np.seterr(all="ignore")

F32, F64, I32, I64, BOOL = "float32", "float64", "int32", "int64", "bool"
NP = {F32: np.float32, F64: np.float64, I32: np.int32, I64: np.int64, BOOL: np.bool_}
FLOATS = [F32, F64]
INTS = [I32, I64]

lines = []
names = set()


def fmt_tensor(a, dt):
    a = np.asarray(a).astype(NP[dt])
    shape = "[" + ",".join(str(d) for d in a.shape) + "]"
    flat = a.ravel()
    if dt == BOOL:
        vals = ["1" if v else "0" for v in flat]
    elif dt in INTS:
        vals = [str(int(v)) for v in flat]
    elif dt == F32:
        vals = [str(np.float32(v)) for v in flat]
    else:
        vals = [repr(float(v)) for v in flat]
    return " ".join([dt, shape] + vals)


def case(name, op, ins, outs=None, attrs=None, error=None, tol=None):
    base, k = name, 1
    while name in names:
        k += 1
        name = "%s_%d" % (base, k)
    names.add(name)
    lines.append("case " + name)
    lines.append("op " + op)
    if attrs:
        lines.append("attrs " + attrs)
    for a, dt in ins:
        lines.append("in " + fmt_tensor(a, dt))
    if error is not None:
        lines.append("error " + error)
    else:
        for a, dt in outs:
            lines.append("out " + fmt_tensor(a, dt))
    if tol:
        lines.append("tol %g %g" % tol)
    lines.append("end")


def rand(shape, dt, lo=-3.0, hi=3.0):
    if dt in FLOATS:
        return rng.uniform(lo, hi, size=shape).astype(NP[dt])
    if dt in INTS:
        return rng.integers(int(lo), int(hi) + 1, size=shape).astype(NP[dt])
    return rng.integers(0, 2, size=shape).astype(np.bool_)


def f64(x):
    return np.asarray(x, dtype=np.float64)


def vec(f):
    return lambda x: np.array([f(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def m_lgamma(v):
    if math.isnan(v) or v == -math.inf:
        return math.inf if v == -math.inf else math.nan
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


def paddle_f64(name):
    """erfinv/digamma from real Paddle in float64 (neither NumPy nor math has them)."""
    import paddle
    fn = getattr(paddle, name)
    return lambda x: fn(paddle.to_tensor(f64(x))).numpy()


def softplus(x, beta=1.0, thr=20.0):
    return np.where(beta * x > thr, x, np.log1p(np.exp(beta * x)) / beta)


def logit(x, eps=0.0):
    if eps > 0:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


# op -> (f(x, **attrs) on float64, lo, hi, attrs text for a second case or None, its kwargs)
UNARY = {
    "erf": (vec(math.erf), -3, 3),
    "erfinv": (None, -0.99, 0.99),
    "lgamma": (vec(m_lgamma), 0.1, 6),
    "digamma": (None, 0.1, 6),
    "expm1": (np.expm1, -3, 3),
    "log1p": (np.log1p, -0.9, 5),
    "log2": (np.log2, 0.01, 10),
    "log10": (np.log10, 0.01, 10),
    "tan": (np.tan, -1.4, 1.4),
    "asin": (np.arcsin, -1, 1),
    "acos": (np.arccos, -1, 1),
    "atan": (np.arctan, -5, 5),
    "sinh": (np.sinh, -3, 3),
    "cosh": (np.cosh, -3, 3),
    "asinh": (np.arcsinh, -5, 5),
    "acosh": (np.arccosh, 1, 6),
    "atanh": (np.arctanh, -0.99, 0.99),
    "trunc": (np.trunc, -5, 5),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), -5, 5),
    "softsign": (lambda x: x / (1 + np.abs(x)), -5, 5),
    "mish": (lambda x: x * np.tanh(softplus(x)), -5, 5),
    "logsigmoid": (lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), -8, 8),
    "tanhshrink": (lambda x: x - np.tanh(x), -3, 3),
    "hardswish": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, -5, 5),
    "softplus": (softplus, -5, 5),
    "elu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x)), -3, 3),
    "celu": (lambda x, alpha=1.0: np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)), -3, 3),
    "selu": (lambda x, scale=1.0507009873554805, alpha=1.6732632423543772:
             scale * np.where(x > 0, x, alpha * np.expm1(x)), -3, 3),
    "hardsigmoid": (lambda x, slope=0.1666667, offset=0.5: np.clip(slope * x + offset, 0, 1), -5, 5),
    "hardshrink": (lambda x, threshold=0.5: x * (np.abs(x) > threshold), -2, 2),
    "softshrink": (lambda x, threshold=0.5:
                   np.where(x > threshold, x - threshold, np.where(x < -threshold, x + threshold, 0)), -2, 2),
    "thresholded_relu": (lambda x, threshold=1.0: x * (x > threshold), -3, 3),
    "stanh": (lambda x, scale_a=0.67, scale_b=1.7159: scale_b * np.tanh(scale_a * x), -3, 3),
    "logit": (logit, 0.01, 0.99),
}

ATTR_CASES = {
    "softplus": [("beta = 2, threshold = 3", dict(beta=2.0, thr=3.0)), ("beta = -1.5", dict(beta=-1.5))],
    "elu": [("alpha = 0.5", dict(alpha=0.5))],
    "celu": [("alpha = 2.5", dict(alpha=2.5)), ("alpha = -1", dict(alpha=-1.0))],
    "selu": [("scale = 2, alpha = 0.5", dict(scale=2.0, alpha=0.5))],
    "hardsigmoid": [("slope = 0.2, offset = 0.3", dict(slope=0.2, offset=0.3))],
    "hardshrink": [("threshold = 1.25", dict(threshold=1.25))],
    "softshrink": [("threshold = 0", dict(threshold=0.0)), ("threshold = 1", dict(threshold=1.0))],
    "thresholded_relu": [("threshold = -0.5", dict(threshold=-0.5))],
    "stanh": [("scale_a = 1.5, scale_b = 0.5", dict(scale_a=1.5, scale_b=0.5))],
    "logit": [("eps = 0.2", dict(eps=0.2))],
}

ATTR_ERRORS = [
    ("celu", "alpha = 0", "alpha must not be 0"),
    ("selu", "scale = 0.5", "scale must be greater than 1.0"),
    ("selu", "alpha = -1", "alpha must be no less than zero"),
    ("softshrink", "threshold = -1", "threshold must be no less than zero"),
    ("softplus", "beta = 0", "beta must not be 0"),
    ("logit", "eps = 2", "eps must be in [0, 1]"),
    ("elu", "alpha = nan", "must not be NaN"),
]


def gen_unary():
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan])
    for op, (f, lo, hi) in UNARY.items():
        if f is None:
            f = paddle_f64(op)
        for dt in FLOATS:
            for s in [(2, 3, 5), (), (0, 3), (33,)] if dt == F32 else [(2, 3, 5), ()]:
                x = rand(s, dt, lo, hi)
                case("%s_%s" % (op, dt), op, [(x, dt)], [(f(f64(x)).astype(NP[dt]), dt)])
            x = special.astype(NP[dt])
            case("%s_%s_special" % (op, dt), op, [(x, dt)], [(f(f64(x)).astype(NP[dt]), dt)])
        for attrs, kw in ATTR_CASES.get(op, []):
            for dt in FLOATS:
                x = rand((4, 5), dt, lo, hi)
                case("%s_%s_attrs" % (op, dt), op, [(x, dt)], [(f(f64(x), **kw).astype(NP[dt]), dt)],
                     attrs=attrs)
        case(op + "_int32", op, [(rand((3,), I32), I32)], error="expected a float32 or float64 input, got int32")
    for op, attrs, msg in ATTR_ERRORS:
        case(op + "_bad_attr", op, [(rand((3,), F32), F32)], attrs=attrs, error=msg)

    special = np.array([0.0, 1.5, -np.inf, np.inf, np.nan, -0.0, 3e38])
    for op, f in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        for dt in FLOATS:
            x = special.astype(NP[dt])
            case("%s_%s" % (op, dt), op, [(x, dt)], [(f(x), BOOL)])
            x = rand((2, 3), dt)
            case("%s_%s_rand" % (op, dt), op, [(x, dt)], [(f(x), BOOL)])
        for dt in INTS + [BOOL]:
            x = rand((2, 2), dt)
            case("%s_%s" % (op, dt), op, [(x, dt)], [(np.full((2, 2), op == "isfinite"), BOOL)])
        case(op + "_empty", op, [(np.zeros((0,), np.float32), F32)], [(np.zeros((0,), bool), BOOL)])


def gen_bitwise():
    fns = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}
    for op, f in fns.items():
        for dt in INTS + [BOOL]:
            x, y = rand((3, 4), dt, -100, 100), rand((4,), dt, -100, 100)
            case("%s_%s" % (op, dt), op, [(x, dt), (y, dt)], [(f(x, y), dt)])
            x, y = rand((2, 1, 3), dt, -100, 100), rand((4, 1), dt, -100, 100)
            case("%s_%s_bcast" % (op, dt), op, [(x, dt), (y, dt)], [(f(x, y), dt)])
        m = np.array([-2147483648, 2147483647, -1, 0], np.int32)
        case(op + "_int32_edges", op, [(m, I32), (m[::-1].copy(), I32)], [(f(m, m[::-1]), I32)])
        case(op + "_float", op, [(rand((2,), F32), F32), (rand((2,), F32), F32)],
             error="expected integer or bool inputs, got float32")
        case(op + "_mixed", op, [(rand((2,), I32), I32), (rand((2,), I64), I64)], error="same dtype")
        case(op + "_shapes", op, [(rand((2,), I32), I32), (rand((3,), I32), I32)], error="broadcast")
    for dt in INTS + [BOOL]:
        x = rand((2, 5), dt, -100, 100)
        case("bitwise_not_" + dt, "bitwise_not", [(x, dt)], [(np.invert(x), dt)])
    case("bitwise_not_float", "bitwise_not", [(rand((2,), F64), F64)], error="expected integer or bool")
    for op, f in (("gcd", np.gcd), ("lcm", np.lcm)):
        for dt in INTS:
            x, y = rand((3, 4), dt, -30, 30), rand((4,), dt, -30, 30)
            case("%s_%s" % (op, dt), op, [(x, dt), (y, dt)], [(f(x.astype(np.int64), y.astype(np.int64)), dt)])
        z = np.array([0, 0, 5, -7, 12], np.int64)
        w = np.array([0, 3, 0, -21, -18], np.int64)
        case(op + "_zeros", op, [(z, I64), (w, I64)], [(f(z, w), I64)])
        case(op + "_bool", op, [(rand((2,), BOOL), BOOL), (rand((2,), BOOL), BOOL)], error="expected integer inputs")
        case(op + "_float", op, [(rand((2,), F32), F32), (rand((2,), F32), F32)], error="expected integer inputs")


def cum_np(x, op, axis, flatten, exclusive, reverse):
    a = x.ravel() if flatten else x
    ax = 0 if flatten else axis
    if a.ndim == 0:
        a = a.reshape(1)
    if reverse:
        a = np.flip(a, ax)
    if op == "cumsum":
        r = np.cumsum(a, axis=ax, dtype=a.dtype)
        init = 0
    elif op == "cumprod":
        r = np.cumprod(a, axis=ax, dtype=a.dtype)
        init = 1
    else:
        r = np.logaddexp.accumulate(f64(a), axis=ax)
        init = -np.inf
    if exclusive:
        r = np.concatenate([np.full_like(np.take(r, [0], axis=ax), init), np.delete(r, -1, axis=ax)], axis=ax)
    if reverse:
        r = np.flip(r, ax)
    return r.reshape(x.shape) if (x.ndim == 0 and not flatten) else r


def cumext_np(x, op, axis):
    a = np.moveaxis(x, axis, -1)
    vals, idx = np.empty_like(a), np.empty(a.shape, np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        line = a[pos]
        best, bi = None, 0
        for j, v in enumerate(line.tolist()):
            if j == 0 or (isinstance(v, float) and math.isnan(v)) or (
                    not (isinstance(best, float) and math.isnan(best)) and (v >= best if op == "cummax" else v <= best)):
                best, bi = v, j
            vals[pos + (j,)], idx[pos + (j,)] = best, bi
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def gen_scans():
    for op in ("cumsum", "cumprod", "logcumsumexp"):
        dts = FLOATS + INTS if op != "logcumsumexp" else FLOATS
        for dt in dts:
            x = rand((3, 4), dt, -2, 2) if op != "cumprod" else rand((3, 4), dt, 0.5, 1.5) if dt in FLOATS else rand((3, 4), dt, -3, 3)
            for axis, flat, excl, rev in [(0, False, False, False), (-1, False, False, False), (1, True, False, False),
                                          (1, False, True, False), (0, False, False, True), (-1, False, True, True)]:
                attrs = "axis = %d, flatten = %s, exclusive = %s, reverse = %s" % (
                    axis, str(flat).lower(), str(excl).lower(), str(rev).lower())
                exp = cum_np(x, op, axis, flat, excl, rev)
                case("%s_%s" % (op, dt), op, [(x, dt)], [(exp, dt)], attrs=attrs)
        x = np.array(2.5)
        case(op + "_0d", op, [(x, F32)], [(cum_np(x, op, 0, False, False, False), F32)])
        case(op + "_0d_flat", op, [(x, F32)], [(np.array([2.5]) if op != "logcumsumexp" else np.array([2.5]), F32)],
             attrs="flatten = true")
        case(op + "_empty", op, [(np.zeros((0, 3)), F32)], [(np.zeros((0, 3)), F32)], attrs="axis = 1")
        case(op + "_bool", op, [(rand((3,), BOOL), BOOL)], error="bool inputs are not supported")
        case(op + "_axis", op, [(rand((3,), F32), F32)], attrs="axis = 1", error="out of range")
    big = rand((1025,), F64, -1, 1)
    case("cumsum_long", "cumsum", [(big, F64)], [(np.cumsum(big), F64)])
    m = np.array([2147483647, 1, 5], np.int32)
    case("cumsum_int32_wrap", "cumsum", [(m, I32)], [(np.array([2147483647, -2147483648, -2147483643]), I32)])
    case("logcumsumexp_int", "logcumsumexp", [(rand((3,), I32), I32)], error="expected a float32")
    for op in ("cummax", "cummin"):
        for dt in FLOATS + INTS:
            x = rand((3, 5), dt, -3, 3)
            if dt in FLOATS:
                x = np.round(x)  # ties
            for axis in (0, 1, -1):
                v, i = cumext_np(x, op, axis % 2)
                case("%s_%s" % (op, dt), op, [(x, dt)], [(v, dt), (i, I64)], attrs="axis = %d" % axis)
        x = np.array([1.0, 3.0, 3.0, 2.0, np.nan, 5.0, -1.0])
        v, i = cumext_np(x, op, 0)
        case(op + "_nan", op, [(x, F32)], [(v, F32), (i, I64)])
        x = rand((2, 3), F32)
        v, i = cumext_np(x.ravel(), op, 0)
        case(op + "_flat_i32", op, [(x, F32)], [(v, F32), (i, I32)], attrs="flatten = true, dtype = int32")
        case(op + "_bad_dtype", op, [(x, F32)], attrs="dtype = float32", error="int32 or int64")


def stable_argsort(x, axis, desc):
    if not desc:
        return np.argsort(x, axis=axis, kind="stable")
    if x.dtype.kind == "f":
        # by -x stably, then stably by "is not NaN": NaN first, ties in input order
        o1 = np.argsort(-f64(np.where(np.isnan(x), 0, x)), axis=axis, kind="stable")
        flag = np.take_along_axis(np.where(np.isnan(x), 0, 1), o1, axis)
        return np.take_along_axis(o1, np.argsort(flag, axis=axis, kind="stable"), axis)
    return np.argsort(-x.astype(np.int64), axis=axis, kind="stable")


def gen_sort():
    for dt in FLOATS + INTS:
        x = rand((3, 6), dt, -4, 4)
        for axis in (0, 1, -1):
            for desc in (False, True):
                idx = stable_argsort(x, axis, desc)
                case("argsort_%s" % dt, "argsort", [(x, dt)],
                     [(np.take_along_axis(x, idx, axis), dt), (idx, I64)],
                     attrs="axis = %d, descending = %s" % (axis, str(desc).lower()))
    x = np.array([1.0, 3.0, np.nan, 2.0, 3.0, -np.inf, 0.0])
    for desc in (False, True):
        idx = stable_argsort(x, 0, desc)
        case("argsort_nan", "argsort", [(x, F64)], [(x[idx], F64), (idx, I64)],
             attrs="descending = %s" % str(desc).lower())
    case("argsort_0d", "argsort", [(np.array(4.0), F32)], [(np.array(4.0), F32), (np.array(0), I64)])
    case("argsort_empty", "argsort", [(np.zeros((2, 0)), F32)], [(np.zeros((2, 0)), F32), (np.zeros((2, 0)), I64)])
    case("argsort_bool", "argsort", [(np.array([True, False, True]), BOOL)],
         [(np.array([False, True, True]), BOOL), (np.array([1, 0, 2]), I64)])
    case("argsort_axis", "argsort", [(rand((2, 3), F32), F32)], attrs="axis = 2", error="out of range")
    big = rand((1025,), F32)
    idx = np.argsort(big, kind="stable")
    case("argsort_long", "argsort", [(big, F32)], [(big[idx], F32), (idx, I64)])

    for dt in FLOATS + INTS:
        x = rand((4, 5), dt, -5, 5)
        for k, axis, largest in [(2, -1, True), (3, 0, False), (1, 1, True), (5, 1, False)]:
            idx = stable_argsort(x, axis, largest)
            idx = np.take(idx, range(k), axis=axis)
            case("topk_%s" % dt, "topk", [(x, dt)], [(np.take_along_axis(x, idx, axis), dt), (idx, I64)],
                 attrs="k = %d, axis = %d, largest = %s" % (k, axis, str(largest).lower()))
    case("topk_ties", "topk", [(np.array([1.0, 3.0, 3.0, 2.0]), F32)],
         [(np.array([3.0, 3.0]), F32), (np.array([1, 2]), I64)], attrs="k = 2")
    case("topk_k_big", "topk", [(rand((2, 3), F32), F32)], attrs="k = 4", error="k must be in [1, 3]")
    case("topk_k_zero", "topk", [(rand((2, 3), F32), F32)], attrs="k = 0", error="k must be in")


def gen_movement():
    for dt in FLOATS + INTS + [BOOL]:
        x = rand((2, 3, 4), dt)
        for diag in (-1, 0, 2):
            case("tril_%s" % dt, "tril_triu", [(x, dt)], [(np.tril(x, diag), dt)], attrs="diagonal = %d" % diag)
            case("triu_%s" % dt, "tril_triu", [(x, dt)], [(np.triu(x, diag), dt)],
                 attrs="diagonal = %d, lower = false" % diag)
    x = rand((5, 3), F32)
    case("tril_tall", "tril_triu", [(x, F32)], [(np.tril(x, 10), F32)], attrs="diagonal = 10")
    case("triu_tall", "tril_triu", [(x, F32)], [(np.triu(x, -10), F32)], attrs="diagonal = -10, lower = false")
    case("tril_1d", "tril_triu", [(rand((3,), F32), F32)], error="at least 2 dims")

    for dt in (F32, I64, BOOL):
        x = rand((2, 3, 4), dt)
        for axes in ([0], [2], [0, 2], [-1, 1], []):
            case("flip_%s" % dt, "flip", [(x, dt)], [(np.flip(x, axes) if axes else x, dt)],
                 attrs="axis = [%s]" % ", ".join(map(str, axes)))
    case("flip_0d", "flip", [(np.array(1.5), F64)], [(np.array(1.5), F64)], attrs="axis = [0]")
    case("flip_dup", "flip", [(rand((2, 3), F32), F32)], attrs="axis = [1, -1]", error="listed twice")
    case("flip_axis", "flip", [(rand((2, 3), F32), F32)], attrs="axis = [2]", error="out of range")

    for dt in (F32, I32, BOOL):
        x = rand((3, 4), dt)
        for sh, ax in [([1], []), ([-5], []), ([2], [1]), ([1, -1], [0, 1]), ([7], [0]), ([1, 2], [1, 1])]:
            exp = np.roll(x, sh[0]) if not ax else np.roll(x, sh, ax)
            case("roll_%s" % dt, "roll", [(x, dt)], [(exp, dt)],
                 attrs="shifts = [%s], axis = [%s]" % (", ".join(map(str, sh)), ", ".join(map(str, ax))))
    case("roll_empty", "roll", [(np.zeros((0, 2)), F32)], [(np.zeros((0, 2)), F32)], attrs="shifts = [3]")
    case("roll_count", "roll", [(rand((3,), F32), F32)], attrs="shifts = [1, 2], axis = [0]", error="one value per axis")


def gen_index():
    x = rand((3, 4, 2), F32)
    for dt in INTS:
        for idx in (np.array([[0, 1], [2, 3], [1, 0]]), np.array([[2], [0]]), np.array([[[1, 1, 1]], [[0, 3, 0]]]),
                    np.array([[-1, -2]]), np.zeros((0, 2))):
            exp = np.array([x[tuple(r)] for r in idx.reshape(-1, idx.shape[-1]).astype(np.int64)]).reshape(
                idx.shape[:-1] + x.shape[idx.shape[-1]:])
            case("gather_nd_" + dt, "gather_nd", [(x, F32), (idx, dt)], [(exp, F32)])
    xi = rand((4, 3), I64)
    case("gather_nd_int64_data", "gather_nd", [(xi, I64), (np.array([[3], [0]]), I32)], [(xi[[3, 0]], I64)])
    case("gather_nd_depth0", "gather_nd", [(xi, I64), (np.zeros((2, 0)), I64)], [(np.stack([xi, xi]), I64)])
    case("gather_nd_range", "gather_nd", [(x, F32), (np.array([[3, 0]]), I64)], error="out of range")
    case("gather_nd_deep", "gather_nd", [(x, F32), (np.zeros((1, 4)), I64)], error="must not exceed the rank")
    case("gather_nd_float_index", "gather_nd", [(x, F32), (np.zeros((1, 1)), F32)], error="int32 or int64")

    x = rand((5, 3), F32)
    idx = np.array([3, 0, 3, 1])
    upd = rand((4, 3), F32)
    over = x.copy()
    for i, r in enumerate(idx):
        over[r] = upd[i]
    acc = x.copy()
    acc[np.unique(idx)] = 0
    for i, r in enumerate(idx):
        acc[r] += upd[i]
    case("scatter_overwrite", "scatter", [(x, F32), (idx, I64), (upd, F32)], [(over, F32)])
    case("scatter_add", "scatter", [(x, F32), (idx, I32), (upd, F32)], [(acc, F32)], attrs="overwrite = false")
    xi = rand((4,), I32)
    case("scatter_1d_int", "scatter", [(xi, I32), (np.array([2]), I64), (np.array([9]), I32)],
         [(np.where(np.arange(4) == 2, 9, xi), I32)])
    case("scatter_range", "scatter", [(x, F32), (np.array([5]), I64), (rand((1, 3), F32), F32)], error="out of range")
    case("scatter_shape", "scatter", [(x, F32), (idx, I64), (rand((4, 2), F32), F32)], error="updates must have")
    case("scatter_dtype", "scatter", [(x, F32), (idx, I64), (rand((4, 3), F64), F64)], error="same dtype")

    x = rand((3, 4), F64)
    idx = np.array([[0, 1], [2, 3], [0, 1]])
    upd = rand((3,), F64)
    exp = x.copy()
    for i, r in enumerate(idx):
        exp[tuple(r)] += upd[i]
    case("scatter_nd_add_elems", "scatter_nd_add", [(x, F64), (idx, I64), (upd, F64)], [(exp, F64)])
    idx = np.array([[2], [2], [0]])
    upd = rand((3, 4), F64)
    exp = x.copy()
    for i, r in enumerate(idx):
        exp[r[0]] += upd[i]
    case("scatter_nd_add_rows", "scatter_nd_add", [(x, F64), (idx, I32), (upd, F64)], [(exp, F64)])
    xi = rand((2, 3), I64)
    case("scatter_nd_add_int", "scatter_nd_add", [(xi, I64), (np.array([[1, -1]]), I64), (np.array([5]), I64)],
         [(xi + np.array([[0, 0, 0], [0, 0, 5]]), I64)])
    case("scatter_nd_add_shape", "scatter_nd_add", [(x, F64), (idx, I64), (rand((3, 3), F64), F64)],
         error="updates must have")
    case("scatter_nd_add_range", "scatter_nd_add", [(x, F64), (np.array([[3]]), I64), (rand((1, 4), F64), F64)],
         error="out of range")

    x = rand((3, 4), F32)
    for axis, idx in [(0, rng.integers(0, 3, (2, 4))), (1, rng.integers(-4, 4, (3, 2))), (1, rng.integers(0, 4, (1, 3)))]:
        ii = np.where(idx < 0, idx + x.shape[axis], idx)
        shape = list(np.broadcast_shapes(tuple(np.delete(x.shape, axis)), tuple(np.delete(idx.shape, axis))))
        shape.insert(axis, idx.shape[axis])
        bi = np.broadcast_to(ii, shape)
        bx_shape = list(shape)
        bx_shape[axis] = x.shape[axis]
        bx = np.broadcast_to(x, bx_shape)
        case("take_along_axis_%d" % axis, "take_along_axis", [(x, F32), (idx, I64)],
             [(np.take_along_axis(bx, bi, axis), F32)], attrs="axis = %d" % axis)
    case("take_along_axis_rank", "take_along_axis", [(x, F32), (np.zeros((3,)), I64)], attrs="axis = 0",
         error="same (nonzero) rank")
    case("take_along_axis_range", "take_along_axis", [(x, F32), (np.full((1, 4), 3), I64)], attrs="axis = 0",
         error="out of range")

    for red in ("assign", "add", "mul", "multiply"):
        for dt in (F32, I64):
            x = rand((3, 4), dt, 1, 4)
            idx = np.array([[2, 0, 1, 1]])
            vals = rand((1, 4), dt, 1, 4)
            exp = x.copy()
            for j in range(4):
                r = idx[0, j]
                exp[r, j] = vals[0, j] if red == "assign" else exp[r, j] + vals[0, j] if red == "add" else exp[r, j] * vals[0, j]
            case("put_along_axis_%s_%s" % (red, dt), "put_along_axis", [(x, dt), (idx, I64), (vals, dt)], [(exp, dt)],
                 attrs="axis = 0, reduce = \"%s\"" % red)
    x = rand((2, 5), F64)
    idx = np.array([[4, 0], [1, -1]])
    exp = x.copy()
    exp[0, 4] = exp[0, 0] = 7.0
    exp[1, 1] = exp[1, 4] = 7.0
    case("put_along_axis_scalar", "put_along_axis", [(x, F64), (idx, I64), (np.array(7.0), F64)], [(exp, F64)],
         attrs="axis = 1")
    case("put_along_axis_reduce", "put_along_axis", [(x, F64), (idx, I64), (np.array(7.0), F64)],
         attrs="axis = 1, reduce = \"max\"", error="reduce must be")
    case("put_along_axis_range", "put_along_axis", [(x, F64), (np.array([[5]]), I64), (np.array(7.0), F64)],
         attrs="axis = 1", error="out of range")


def main():
    gen_unary()
    gen_bitwise()
    gen_scans()
    gen_sort()
    gen_movement()
    gen_index()
    header = ["# ops_ext.txt - golden cases for special functions, activations, bitwise, scans, sorting",
              "# and index ops, written by tests/gen/gen_ops_ext.py (NumPy; erfinv and digamma from",
              "# Paddle); do not edit by hand: change the generator and re-run it."]
    with open(OUT, "w") as f:
        f.write("\n".join(header + lines) + "\n")
    print("%d cases, %d bytes -> %s" % (len(names), os.path.getsize(OUT), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""gen_ops_math.py - writes tests/golden/ops_math.txt, golden cases for the elementwise,
comparison, logical, activation and reduction ops, with expected values from NumPy
(and math.erf for exact gelu). Deterministic: fixed seed, re-runnable.

Semantics follow Paddle 2.x where it differs from NumPy: integer divide truncates
toward zero, sum of bool/int32 gives int64, float->int casts truncate toward zero.
"""
import math
import os
import warnings

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "ops_math.txt")
rng = np.random.default_rng(20240611)
warnings.simplefilter("ignore")
np.seterr(all="ignore")

F32, F64, I32, I64, BOOL = "float32", "float64", "int32", "int64", "bool"
NP = {F32: np.float32, F64: np.float64, I32: np.int32, I64: np.int64, BOOL: np.bool_}
FLOATS = [F32, F64]
INTS = [I32, I64]
NUMERIC = FLOATS + INTS
ALL = NUMERIC + [BOOL]

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
    """ins/outs: lists of (array, dtype)."""
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


# ops that get a 1025-element case (64 vector blocks and a tail); the rest use 33
BIG_OPS = {"add", "divide", "maximum", "exp", "sigmoid", "gelu", "relu", "abs", "softmax", "log_softmax",
           "sum", "max", "all", "mean", "argmax"}


def big(op):
    return 1025 if op in BIG_OPS else 33


def variants(dt, primary, items, few=3):
    """All items for the primary dtype(s), the first `few` for the others (keeps the file small)."""
    return items if dt in primary else items[:few]


def shp(s):
    return "x".join(str(d) for d in s) if s else "0d"


def wrap(a64, dt):
    """int64 (or Python int) values wrapped to dt like two's complement."""
    a = np.asarray(a64, dtype=object) if not isinstance(a64, np.ndarray) else a64
    if dt == I64:
        return np.asarray(a).astype(np.int64)
    return (np.asarray(a).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).astype(np.int32)


def f64(x):
    return np.asarray(x, dtype=np.float64)


# ---------------------------------------------------------------- binary ops

def tdiv(a, b):
    a, b = a.astype(np.int64), b.astype(np.int64)
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


def ipow(a, b, dt):
    bits = 32 if dt == I32 else 64
    out = []
    for x, y in zip(np.broadcast_to(a, np.broadcast(a, b).shape).ravel().tolist(),
                    np.broadcast_to(b, np.broadcast(a, b).shape).ravel().tolist()):
        if y < 0:
            r = 1 if x == 1 else ((-1 if y % 2 else 1) if x == -1 else 0)
        else:
            r = pow(x, y, 1 << bits)
        r &= (1 << bits) - 1
        if r >= 1 << (bits - 1):
            r -= 1 << bits
        out.append(r)
    return np.array(out, dtype=NP[dt]).reshape(np.broadcast(a, b).shape)


def binary_expect(op, a, b, dt):
    if dt == BOOL:
        f = {"add": np.logical_or, "multiply": np.logical_and,
             "maximum": np.maximum, "minimum": np.minimum}[op]
        return f(a, b)
    if op in ("add", "subtract", "multiply"):
        f = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[op]
        return f(a, b)
    if op == "divide":
        return a / b if dt in FLOATS else wrap(tdiv(a, b), dt)
    if op == "floor_divide":
        return np.floor_divide(a, b) if dt in FLOATS else wrap(
            np.floor_divide(a.astype(np.int64), b.astype(np.int64)), dt)
    if op == "remainder":
        return np.remainder(a, b)
    if op == "pow":
        if dt in FLOATS:
            return np.power(f64(a), f64(b)).astype(NP[dt])
        return ipow(a, b, dt)
    if op == "maximum":
        return np.maximum(a, b)
    if op == "minimum":
        return np.minimum(a, b)
    raise ValueError(op)


BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
          "maximum", "minimum"]
BOOL_BINARY = ["add", "multiply", "maximum", "minimum"]
SHAPE_PAIRS = [((7,), (7,)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (33,)), ((), ()),
               ((2, 1, 3), (4, 1)), ((1,), (1, 1)), ((3, 1), ()), ((1025,), (1025,)),
               ((2, 0), (1,))]


def binary_inputs(op, dt, sa, sb):
    a = rand(sa, dt, -4, 4)
    b = rand(sb, dt, -4, 4)
    if op in ("divide", "floor_divide", "remainder") and dt in INTS:
        b = np.where(b == 0, 3, b).astype(NP[dt])
        a = rand(sa, dt, -20, 20)
    if op in ("floor_divide", "remainder") and dt in FLOATS:
        b = np.where(np.abs(b) < 0.25, 1.5, b).astype(NP[dt])
    if op == "pow":
        if dt in FLOATS:
            a = rand(sa, dt, 0.1, 3)
            b = rand(sb, dt, -2, 3)
        else:
            a = rand(sa, dt, -5, 5)
            b = rand(sb, dt, 0, 6)
    return a, b


def gen_binary():
    for op in BINARY:
        for dt in NUMERIC:
            pairs = [((big(op),), (big(op),)) if p == ((1025,), (1025,)) else p for p in SHAPE_PAIRS]
            for sa, sb in variants(dt, (F32,), pairs):
                a, b = binary_inputs(op, dt, sa, sb)
                case("%s_%s_%s_%s" % (op, dt, shp(sa), shp(sb)), op, [(a, dt), (b, dt)],
                     [(binary_expect(op, a, b, dt), dt)])
        for dt in ([BOOL] if op in BOOL_BINARY else []):
            a, b = rand((2, 3), BOOL), rand((3,), BOOL)
            case("%s_bool" % op, op, [(a, dt), (b, dt)], [(binary_expect(op, a, b, dt), dt)])
    # special values
    x = np.array([1.0, -1.0, 0.0, np.inf, -np.inf, np.nan, 2.5, -0.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, 1.0, np.inf, 1.0, np.nan, 3.0], np.float32)
    for op in ("add", "subtract", "multiply", "divide", "maximum", "minimum"):
        case(op + "_f32_special", op, [(x, F32), (y, F32)], [(binary_expect(op, x, y, F32), F32)])
    x = np.array([np.inf, -np.inf, np.nan, 5, 5, -5, 0, 1e30, 7, -7], np.float64)
    y = np.array([2, 2, 2, np.inf, -np.inf, np.inf, 0, 1e-30, 0, 0], np.float64)
    for dt in FLOATS:
        for op in ("floor_divide", "remainder", "pow"):
            xs, ys = x.astype(NP[dt]), y.astype(NP[dt])
            case(op + "_special_" + dt, op, [(xs, dt), (ys, dt)], [(binary_expect(op, xs, ys, dt), dt)])
    # sign rules of floor_divide/remainder
    a = np.array([7, -7, 7, -7, 0, 6, -6, 1, -1], np.int64)
    b = np.array([2, 2, -2, -2, 3, -3, 3, -5, 5], np.int64)
    for dt in INTS:
        for op in ("divide", "floor_divide", "remainder"):
            case(op + "_signs_" + dt, op, [(a, dt), (b, dt)],
                 [(binary_expect(op, a.astype(NP[dt]), b.astype(NP[dt]), dt), dt)])
    for dt in FLOATS:
        af = np.array([7.5, -7.5, 7.5, -7.5, 0.0, 6.0, -6.0, 1.0, -1.0], NP[dt])
        bf = np.array([2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 3.0, -5.0, 5.0], NP[dt])
        for op in ("floor_divide", "remainder"):
            case(op + "_signs_" + dt, op, [(af, dt), (bf, dt)], [(binary_expect(op, af, bf, dt), dt)])
    # integer overflow wraps (no UB)
    big32 = np.array([2147483647, -2147483648, 65536, 2147483647], np.int32)
    one32 = np.array([1, 1, 65536, 2147483647], np.int32)
    for op in ("add", "subtract", "multiply"):
        case(op + "_i32_wrap", op, [(big32, I32), (one32, I32)],
             [(binary_expect(op, big32, one32, I32), I32)])
    big64 = np.array([9223372036854775807, -9223372036854775808, 4294967296], np.int64)
    one64 = np.array([1, 1, 4294967296], np.int64)
    for op in ("add", "subtract", "multiply"):
        case(op + "_i64_wrap", op, [(big64, I64), (one64, I64)],
             [(binary_expect(op, big64, one64, I64), I64)])
    case("divide_i32_min_by_minus1", "divide",
         [(np.array([-2147483648], np.int32), I32), (np.array([-1], np.int32), I32)],
         [(np.array([-2147483648], np.int32), I32)])
    case("pow_i64_negative_exp", "pow",
         [(np.array([1, -1, -1, 2, -3, 5], np.int64), I64), (np.array([-3, -3, -2, -1, -2, 0], np.int64), I64)],
         [(np.array([1, -1, 1, 0, 0, 1], np.int64), I64)])
    case("pow_i32_wrap", "pow", [(np.array([3, -2], np.int32), I32), (np.array([40, 31], np.int32), I32)],
         [(ipow(np.array([3, -2]), np.array([40, 31]), I32), I32)])
    # errors
    case("add_dtype_mismatch", "add", [(rand((2,), F32), F32), (rand((2,), I32), I32)],
         error="x and y must have the same dtype, got float32 and int32")
    case("add_unbroadcastable", "add", [(rand((2, 3), F32), F32), (rand((4,), F32), F32)],
         error="cannot be broadcast")
    case("subtract_bool", "subtract", [(rand((2,), BOOL), BOOL), (rand((2,), BOOL), BOOL)],
         error="bool inputs are not supported")
    case("pow_bool", "pow", [(rand((2,), BOOL), BOOL), (rand((2,), BOOL), BOOL)],
         error="bool inputs are not supported")
    for op in ("divide", "floor_divide", "remainder"):
        for dt in INTS:
            case("%s_%s_by_zero" % (op, dt), op,
                 [(np.array([1, 2, 3], NP[dt]), dt), (np.array([1, 0, 1], NP[dt]), dt)],
                 error="integer division by zero")
    case("pow_i32_zero_negative", "pow", [(np.array([0], np.int32), I32), (np.array([-1], np.int32), I32)],
         error="negative integer power")
    case("divide_f32_by_zero_ok", "divide",
         [(np.array([1, -1, 0], np.float32), F32), (np.array([0, 0, 0], np.float32), F32)],
         [(np.array([np.inf, -np.inf, np.nan], np.float32), F32)])


# ---------------------------------------------------------------- compare / logical

COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "less_than": np.less,
           "less_equal": np.less_equal, "greater_than": np.greater, "greater_equal": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def gen_compare():
    for op, f in COMPARE.items():
        for dt in ALL:
            for sa, sb in variants(dt, (F32,), [((2, 3), (1, 3)), ((7,), (7,)), ((), (5,)), ((33,), ())], 1):
                a, b = rand(sa, dt, -2, 2), rand(sb, dt, -2, 2)
                if dt in FLOATS:  # make ties likely
                    a, b = np.round(a).astype(NP[dt]), np.round(b).astype(NP[dt])
                case("%s_%s_%s_%s" % (op, dt, shp(sa), shp(sb)), op, [(a, dt), (b, dt)],
                     [(f(a, b), BOOL)])
        x = np.array([np.nan, 1, np.inf, -np.inf, np.nan], np.float64)
        y = np.array([np.nan, np.nan, np.inf, 0, 1], np.float64)
        case(op + "_nan", op, [(x, F64), (y, F64)], [(f(x, y), BOOL)])
    a, b = rand((1025,), I32, -3, 3), rand((1,), I32, -3, 3)
    case("less_than_1025", "less_than", [(a, I32), (b, I32)], [(a < b, BOOL)])
    for op, f in LOGICAL.items():
        for dt in ALL:
            a, b = rand((3, 4), dt, -1, 1), rand((4,), dt, -1, 1)
            case("%s_%s" % (op, dt), op, [(a, dt), (b, dt)], [(f(a != 0, b != 0), BOOL)])
        x = np.array([np.nan, 0.0, -0.0, 2.0])
        case(op + "_nan", op, [(x, F32), (x[::-1].copy(), F32)], [(f(x != 0, x[::-1] != 0), BOOL)])
    for dt in ALL:
        a = rand((2, 7), dt, -1, 1)
        case("logical_not_" + dt, "logical_not", [(a, dt)], [(a == 0, BOOL)])
    case("logical_not_0d", "logical_not", [(np.array(0.0), F64)], [(np.array(True), BOOL)])
    case("equal_dtype_mismatch", "equal", [(rand((2,), F32), F32), (rand((2,), F64), F64)],
         error="same dtype, got float32 and float64")
    case("less_than_unbroadcastable", "less_than", [(rand((3,), I64), I64), (rand((2, 2), I64), I64)],
         error="cannot be broadcast")
    case("logical_and_dtype_mismatch", "logical_and", [(rand((2,), BOOL), BOOL), (rand((2,), I32), I32)],
         error="same dtype")


# ---------------------------------------------------------------- unary ops

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gelu_exact(x):
    return np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.ravel().tolist()],
                    dtype=np.float64).reshape(x.shape)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


FLOAT_UNARY = {
    "exp": (np.exp, -5, 5), "log": (np.log, 0.01, 10), "sqrt": (np.sqrt, 0, 10),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 10), "reciprocal": (lambda x: 1 / x, 0.1, 5),
    "floor": (np.floor, -5, 5), "ceil": (np.ceil, -5, 5), "sin": (np.sin, -6, 6),
    "cos": (np.cos, -6, 6), "tanh": (np.tanh, -4, 4), "sigmoid": (sigmoid, -8, 8),
    "silu": (lambda x: x / (1 + np.exp(-x)), -8, 8), "gelu": (gelu_exact, -5, 5),
}


def gen_unary():
    specials = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan])
    for op, (f, lo, hi) in FLOAT_UNARY.items():
        for dt in FLOATS:
            for s in variants(dt, (F32,), [(2, 3, 5), (7,), (), (big(op),), (0, 3)], 1):
                x = rand(s, dt, lo, hi)
                case("%s_%s_%s" % (op, dt, shp(s)), op, [(x, dt)], [(f(f64(x)).astype(NP[dt]), dt)])
            x = specials.astype(NP[dt])
            case("%s_%s_special" % (op, dt), op, [(x, dt)], [(f(f64(x)).astype(NP[dt]), dt)])
        case(op + "_int32", op, [(rand((3,), I32), I32)], error="expected a float32 or float64 input, got int32")
    for dt in FLOATS:
        x = rand((33,), dt, -5, 5)
        case("gelu_tanh_" + dt, "gelu", [(x, dt)], [(gelu_tanh(f64(x)).astype(NP[dt]), dt)],
             attrs="approximate = true")
        for slope in (0.01, 0.2):
            case("leaky_relu_%s_%g" % (dt, slope), "leaky_relu", [(x, dt)],
                 [(np.where(x > 0, f64(x), slope * f64(x)).astype(NP[dt]), dt)],
                 attrs="negative_slope = %r" % slope if slope != 0.01 else None)
    case("leaky_relu_int64", "leaky_relu", [(rand((3,), I64), I64)], error="expected a float32")

    # int and float unary ops
    IU = {"neg": np.negative, "abs": np.abs, "sign": np.sign, "square": np.square,
          "relu": lambda x: np.where(x < 0, np.zeros_like(x), x)}
    for op, f in IU.items():
        for dt in NUMERIC:
            for s in variants(dt, (F32,), [(3, 4), (7,), (), (big(op),)], 1):
                x = rand(s, dt, -5, 5)
                case("%s_%s_%s" % (op, dt, shp(s)), op, [(x, dt)], [(f(x), dt)])
        x = specials.astype(np.float32)
        case(op + "_f32_special", op, [(x, F32)], [(f(x), F32)])
        case(op + "_bool", op, [(rand((3,), BOOL), BOOL)], error="bool inputs are not supported")
    m = np.array([-2147483648, 2147483647, 46341], np.int32)
    for op in ("neg", "abs", "square"):
        case(op + "_i32_wrap", op, [(m, I32)], [(IU[op](m), I32)])

    # scale
    for dt in NUMERIC:
        x = rand((2, 5), dt, -10, 10)
        for sc, bias, after in [(2.0, 1.0, True), (-3.0, 0.5, False), (1.0, 0.0, True), (0.5, 4.0, True)]:
            if dt in FLOATS:
                s, c = NP[dt](sc), NP[dt](bias)
                exp = s * x + c if after else s * (x + c)
            else:
                s, c = int(sc), int(bias)
                x64 = x.astype(np.int64)
                exp = wrap(s * x64 + c if after else s * (x64 + c), dt)
            case("scale_%s_%g_%g_%s" % (dt, sc, bias, after), "scale", [(x, dt)], [(exp, dt)],
                 attrs="scale = %r, bias = %r, bias_after_scale = %s" % (sc, bias, str(after).lower()))
    case("scale_default", "scale", [(np.array([1.5, -2], np.float32), F32)],
         [(np.array([1.5, -2], np.float32), F32)])
    case("scale_bool", "scale", [(rand((2,), BOOL), BOOL)], error="bool")

    # clip
    for dt in NUMERIC:
        x = rand((4, 6), dt, -10, 10)
        for lo, hi in [(-2.0, 3.0), (0.0, 0.0), (-np.inf, 1.0), (-1.0, np.inf), (-np.inf, np.inf)]:
            if dt in FLOATS:
                l, h = NP[dt](lo), NP[dt](hi)
            else:
                info = np.iinfo(NP[dt])
                l = info.min if lo == -np.inf else int(lo)
                h = info.max if hi == np.inf else int(hi)
            exp = np.where(x < l, l, np.where(x > h, h, x)).astype(NP[dt])
            attrs = []
            if lo != -np.inf:
                attrs.append("min = %r" % lo)
            if hi != np.inf:
                attrs.append("max = %r" % hi)
            case("clip_%s_%g_%g" % (dt, lo, hi), "clip", [(x, dt)], [(exp, dt)],
                 attrs=", ".join(attrs) if attrs else None)
    x = np.array([np.nan, -5, 5, 0.5], np.float32)
    case("clip_nan", "clip", [(x, F32)], [(np.array([np.nan, -1, 1, 0.5], np.float32), F32)],
         attrs="min = -1.0, max = 1.0")
    case("clip_min_gt_max", "clip", [(x, F32)], attrs="min = 2.0, max = 1.0", error="must not be greater than max")


# ---------------------------------------------------------------- softmax / cast / where

def softmax_ref(x, axis, log):
    x = f64(x)
    if x.ndim == 0:
        return np.array(0.0 if log else 1.0)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return (x - m - np.log(s)) if log else e / s


def gen_softmax_cast_where():
    for op, log in (("softmax", False), ("log_softmax", True)):
        for dt in FLOATS:
            for s, axis in variants(dt, (F32,), [((3, 5), 1), ((2, 3, 4), -2), ((), -1), ((7,), -1),
                                                 ((3, 5), 0), ((2, 3, 4), 0), ((4, 1), 1), ((big(op),), 0),
                                                 ((0, 3), 1), ((), 0)]):
                x = rand(s, dt, -10, 10)
                case("%s_%s_%s_axis%d" % (op, dt, shp(s), axis), op, [(x, dt)],
                     [(softmax_ref(x, axis, log).astype(NP[dt]), dt)],
                     attrs="axis = %d" % axis if axis != -1 else None)
        x = np.array([[1.0, -np.inf, 2.0], [1000.0, 1001.0, 999.0]], np.float32)
        case(op + "_stable", op, [(x, F32)], [(softmax_ref(x, -1, log).astype(np.float32), F32)])
        case(op + "_int", op, [(rand((3,), I64), I64)], error="expected a float32 or float64 input")
        case(op + "_bad_axis", op, [(rand((2, 3), F32), F32)], attrs="axis = 2", error="axis 2 is out of range")
        case(op + "_bad_axis_neg", op, [(rand((2, 3), F32), F32)], attrs="axis = -3", error="out of range")

    # cast between all five dtypes
    src = {
        F32: np.array([0.0, 1.5, -1.5, 2.7, -2.7, 100.25, -0.0, 3e9 / 2], np.float32),
        F64: np.array([0.0, 1.5, -1.5, 2.999999, -2.999999, 123456789.75, 1e-300, 0.1]),
        I32: np.array([0, 1, -1, 2147483647, -2147483648, 7, 16777217, -5], np.int32),
        I64: np.array([0, 1, -1, 1 << 40, -(1 << 40) - 3, 2147483648, 9007199254740993, 5], np.int64),
        BOOL: np.array([True, False, True, True, False, False, True, False]),
    }
    for fr in ALL:
        for to in ALL:
            x = src[fr]
            if fr in FLOATS and to in INTS:
                y = np.trunc(x).astype(NP[to])
            elif fr == I64 and to == I32:
                y = wrap(x, I32)
            else:
                y = x.astype(NP[to])
            case("cast_%s_%s" % (fr, to), "cast", [(x, fr)], [(y, to)], attrs="dtype = " + to)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30], np.float64)
    case("cast_f64_bool_special", "cast", [(x, F64)], [(x.astype(bool), BOOL)], attrs="dtype = bool")
    case("cast_f32_f64_special", "cast", [(x.astype(np.float32), F32)], [(x.astype(np.float32), F64)],
         attrs="dtype = float64")
    case("cast_0d", "cast", [(np.array(-3.9), F64)], [(np.array(-3), I32)], attrs="dtype = int32")
    x = rand((1, 1025), F32)
    case("cast_big_f32_f64", "cast", [(x, F32)], [(x.astype(np.float64), F64)], attrs="dtype = float64")
    # float16 and the other storage dtypes have cast goldens from Paddle (gen_dtypes.py); a cast
    # to no dtype is the bad input here
    case("cast_bad_dtype", "cast", [(rand((2,), F32), F32)], attrs="dtype = none",
         error="bad attribute dtype")

    # where
    for dt in ALL:
        for sc, sx, sy in variants(dt, (F32,), [((2, 3), (3,), ()), ((4, 1, 5), (3, 1), (1,)),
                                                ((7,), (7,), (7,)), ((2, 1), (1, 4), (2, 4)),
                                                ((), (3,), (3,))], 2):
            c = rand(sc, BOOL)
            x, y = rand(sx, dt, -9, 9), rand(sy, dt, -9, 9)
            case("where_%s_%s_%s_%s" % (dt, shp(sc), shp(sx), shp(sy)), "where",
                 [(c, BOOL), (x, dt), (y, dt)], [(np.where(c, x, y), dt)])
    c = rand((1025,), BOOL)
    x, y = rand((1025,), F64), rand((1025,), F64)
    case("where_f64_1025", "where", [(c, BOOL), (x, F64), (y, F64)], [(np.where(c, x, y), F64)])
    case("where_cond_not_bool", "where", [(rand((2,), I32), I32), (rand((2,), F32), F32), (rand((2,), F32), F32)],
         error="cond must be bool, got int32")
    case("where_xy_mismatch", "where", [(rand((2,), BOOL), BOOL), (rand((2,), F32), F32), (rand((2,), I64), I64)],
         error="x and y must have the same dtype, got float32 and int64")
    case("where_unbroadcastable", "where", [(rand((2,), BOOL), BOOL), (rand((3,), F32), F32), (rand((3,), F32), F32)],
         error="cannot be broadcast")


# ---------------------------------------------------------------- reductions

def np_axis(axis, ndim):
    return None if not axis else tuple(a % max(ndim, 1) for a in axis) if ndim else None


def red_attrs(axis, keep, extra=None):
    parts = []
    if axis:
        parts.append("axis = [%s]" % ", ".join(str(a) for a in axis))
    if keep:
        parts.append("keepdim = true")
    if extra:
        parts.append(extra)
    return ", ".join(parts) if parts else None


def reduce_expect(op, x, dt, axis, keep, sum_dtype=None):
    ax = np_axis(axis, x.ndim)
    kw = dict(axis=ax, keepdims=keep)
    if op == "sum":
        out = sum_dtype or (I64 if dt in (BOOL, I32) else dt)
        if out in FLOATS:
            return np.sum(f64(x), **kw).astype(NP[out]), out
        xi = np.trunc(x).astype(NP[out]) if dt in FLOATS else x
        return wrap(np.sum(xi.astype(np.int64), **kw), out), out
    if op == "mean":
        return np.mean(f64(x), **kw).astype(NP[dt]), dt
    if op == "prod":
        if dt in FLOATS:
            return np.prod(f64(x), **kw).astype(NP[dt]), dt
        return wrap(np.prod(x.astype(np.int64), **kw), dt), dt
    if op == "max":
        return np.max(x, **kw), dt
    if op == "min":
        return np.min(x, **kw), dt
    if op == "any":
        return np.any(x != 0, **kw), BOOL
    if op == "all":
        return np.all(x != 0, **kw), BOOL
    raise ValueError(op)


REDUCE_DTYPES = {"sum": ALL, "mean": FLOATS, "prod": NUMERIC, "max": NUMERIC, "min": NUMERIC,
                 "any": ALL, "all": ALL}
REDUCE_SHAPES = [((2, 3, 4), [0, 2], False), ((3, 4), [0], True), ((2, 3, 4), [-1], False),
                 ((7,), [], False), ((3, 4), [1], False), ((2, 3, 4), [0, -2], True),
                 ((2, 3, 4), [], True), ((), [], False), ((), [-1], True), ((4, 1, 3), [1], False),
                 ((2, 3, 1, 5), [0, 1], False)]
REDUCE_PRIMARY = {"sum": (F32, I32), "mean": (F32,), "prod": (F64,), "max": (F32, I64), "min": (F64,),
                  "any": (BOOL,), "all": (F32,)}


def gen_reduce():
    for op, dts in REDUCE_DTYPES.items():
        for dt in dts:
            for s, axis, keep in variants(dt, REDUCE_PRIMARY[op], REDUCE_SHAPES):
                lo, hi = (0.5, 1.5) if op == "prod" and dt in FLOATS else (-3, 3)
                x = rand(s, dt, lo, hi)
                if op in ("any", "all") and dt in FLOATS:
                    x = np.round(x / 2).astype(NP[dt])  # some zeros
                y, odt = reduce_expect(op, x, dt, axis, keep)
                case("%s_%s_%s_%s%s" % (op, dt, shp(s), "_".join(str(a) for a in axis) or "all",
                                        "_keep" if keep else ""), op, [(x, dt)], [(y, odt)],
                     attrs=red_attrs(axis, keep))
        for dt in dts:
            if dt in REDUCE_PRIMARY[op]:
                x = rand((big(op),), dt, 0.9 if op == "prod" else -3, 1.1 if op == "prod" else 3)
                y, odt = reduce_expect(op, x, dt, [], False)
                case("%s_%s_%d" % (op, dt, big(op)), op, [(x, dt)], [(y, odt)])
                x = rand((33, 31), dt, 0.9 if op == "prod" else -3, 1.1 if op == "prod" else 3)
                y, odt = reduce_expect(op, x, dt, [0], False)
                case("%s_%s_33x31_0" % (op, dt), op, [(x, dt)], [(y, odt)], attrs="axis = [0]")
    # sum with a dtype attribute
    for dt, to in [(I32, I32), (BOOL, I32), (F32, F64), (F64, F32), (I64, F32), (F32, I64), (F64, I32),
                   (I32, F64)]:
        x = rand((3, 5), dt, -4, 4)
        y, odt = reduce_expect("sum", x, dt, [1], False, to)
        case("sum_%s_as_%s" % (dt, to), "sum", [(x, dt)], [(y, odt)], attrs="axis = [1], dtype = " + to)
    x = np.array([2147483647, 1, 5], np.int32)
    case("sum_i32_no_overflow_in_i64", "sum", [(x, I32)], [(np.array(2147483653, np.int64), I64)])
    case("sum_i32_as_i32_wraps", "sum", [(x, I32)], [(wrap(2147483653, I32), I32)], attrs="dtype = int32")
    # nan/inf
    x = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, -1.0], [-np.inf, np.inf, 0.0]], np.float32)
    for op in ("sum", "mean", "max", "min", "prod"):
        y, odt = reduce_expect(op, x, F32, [1], False)
        case(op + "_nan_inf", op, [(x, F32)], [(y, odt)], attrs="axis = [1]")
    # empty tensors
    e = np.zeros((0,), np.float32)
    case("sum_empty", "sum", [(e, F32)], [(np.array(0, np.float32), F32)])
    case("sum_empty_i32", "sum", [(np.zeros((0,), np.int32), I32)], [(np.array(0, np.int64), I64)])
    case("prod_empty", "prod", [(e, F32)], [(np.array(1, np.float32), F32)])
    case("mean_empty", "mean", [(e, F32)], [(np.array(np.nan, np.float32), F32)])
    case("any_empty", "any", [(e, F32)], [(np.array(False), BOOL)])
    case("all_empty", "all", [(e, F32)], [(np.array(True), BOOL)])
    e2 = np.zeros((2, 0), np.float64)
    case("sum_empty_axis", "sum", [(e2, F64)], [(np.zeros((2,)), F64)], attrs="axis = [1]")
    case("sum_empty_keep", "sum", [(e2, F64)], [(np.zeros((1, 0)), F64)], attrs="axis = [0], keepdim = true")
    case("max_empty_out", "max", [(e2, F64)], [(np.zeros((0,)), F64)], attrs="axis = [0]")
    case("max_empty", "max", [(e, F32)], error="empty")
    case("min_empty_axis", "min", [(e2, F64)], attrs="axis = [1]", error="empty")
    # errors
    x = rand((2, 3), F32)
    case("sum_axis_out_of_range", "sum", [(x, F32)], attrs="axis = [2]", error="axis 2 is out of range")
    case("sum_axis_neg_out_of_range", "sum", [(x, F32)], attrs="axis = [-3]", error="out of range")
    case("sum_axis_duplicate", "sum", [(x, F32)], attrs="axis = [1, -1]", error="more than once")
    case("max_axis_duplicate", "max", [(x, F32)], attrs="axis = [0, 0]", error="more than once")
    case("sum_bad_dtype", "sum", [(x, F32)], attrs="dtype = bool", error="bad attribute dtype")
    case("mean_int", "mean", [(rand((3,), I64), I64)], error="expected a float32 or float64 input, got int64")
    case("max_bool", "max", [(rand((3,), BOOL), BOOL)], error="bool inputs are not supported")
    case("prod_bool", "prod", [(rand((3,), BOOL), BOOL)], error="bool inputs are not supported")

    # argmax / argmin
    for op, f in (("argmax", np.argmax), ("argmin", np.argmin)):
        for dt in NUMERIC:
            for s, axis, keep in variants(dt, (F32, I64), [((3, 4), 1, False), ((2, 3, 4), 1, True),
                                                           ((33, 5), 0, False), ((7,), 0, False),
                                                           ((3, 4), 0, True), ((2, 3, 4), -1, False),
                                                           ((), 0, False), ((), -1, True)], 2):
                x = rand(s, dt, -3, 3)
                y = f(x, axis=axis % max(x.ndim, 1)) if x.ndim else np.array(0)
                if keep and x.ndim:
                    y = np.expand_dims(y, axis % x.ndim)
                attrs = "axis = %d" % axis + (", keepdim = true" if keep else "")
                case("%s_%s_%s_%d%s" % (op, dt, shp(s), axis, "_keep" if keep else ""), op,
                     [(x, dt)], [(y, I64)], attrs=attrs)
            x = rand((3, 4, 5), dt, -3, 3)
            case("%s_%s_flatten" % (op, dt), op, [(x, dt)], [(np.array(f(x)), I64)], attrs="flatten = true")
            case("%s_%s_flatten_keep" % (op, dt), op, [(x, dt)], [(np.array(f(x)).reshape(1, 1, 1), I64)],
                 attrs="flatten = true, keepdim = true")
            case("%s_%s_int32" % (op, dt), op, [(x, dt)], [(f(x, axis=2), I32)], attrs="axis = 2, dtype = int32")
        x = rand((big(op),), F32)
        case("%s_%d" % (op, big(op)), op, [(x, F32)], [(np.array(f(x)), I64)])
        x = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 1.0]], np.float64)
        case(op + "_nan_ties", op, [(x, F64)], [(f(x, axis=1), I64)], attrs="axis = 1")
        case(op + "_bad_dtype", op, [(x, F64)], attrs="dtype = float32", error="bad attribute dtype")
        case(op + "_bad_axis", op, [(x, F64)], attrs="axis = 2", error="axis 2 is out of range")
        case(op + "_bool", op, [(rand((3,), BOOL), BOOL)], error="bool inputs are not supported")
        case(op + "_empty", op, [(np.zeros((0, 3), np.float32), F32)], error="empty")


def main():
    gen_binary()
    gen_compare()
    gen_unary()
    gen_softmax_cast_where()
    gen_reduce()
    header = ["# ops_math.txt - golden cases for the math ops, written by tests/gen/gen_ops_math.py",
              "# (NumPy); do not edit by hand: change the generator and re-run it."]
    with open(OUT, "w") as f:
        f.write("\n".join(header + lines) + "\n")
    print("%d cases, %d bytes -> %s" % (len(names), os.path.getsize(OUT), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""gen_ops_linalg.py - writes tests/golden/ops_linalg.txt, golden cases for the linear-algebra
ops (inv, det, slogdet, solve, triangular_solve, cholesky, qr, svd, eigh). Expected values come
from NumPy (LAPACK underneath, the same factorizations), computed in float64 and rounded to
each case's dtype. Deterministic: fixed seed, re-runnable.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "ops_linalg.txt")
rng = np.random.default_rng(20261127)
F32, F64 = "float32", "float64"
NP = {F32: np.float32, F64: np.float64}
TOL = {F32: (2e-4, 2e-5), F64: (1e-9, 1e-12)}

lines = []
names = set()


def fmt_tensor(a, dt):
    a = np.asarray(a).astype(NP[dt])
    shape = "[" + ",".join(str(d) for d in a.shape) + "]"
    flat = a.ravel()
    vals = [str(np.float32(v)) for v in flat] if dt == F32 else [repr(float(v)) for v in flat]
    return " ".join([dt, shape] + vals)


def case(name, op, ins, outs=None, attrs=None, error=None):
    base, k = name, 1
    while name in names:
        k += 1
        name = "%s_%d" % (base, k)
    names.add(name)
    lines.append("case " + name)
    lines.append("op " + op)
    if attrs:
        lines.append("attrs " + attrs)
    dt = ins[0][1]
    for a, d in ins:
        lines.append("in " + fmt_tensor(a, d))
    if error is not None:
        lines.append("error " + error)
    else:
        for a, d in outs:
            lines.append("out " + fmt_tensor(a, d))
        lines.append("tol %g %g" % TOL[dt])
    lines.append("end")


def rand(shape, dt):
    # values exactly representable in float32, so both dtypes see the same matrix
    return rng.uniform(-2.0, 2.0, size=shape).astype(np.float32).astype(np.float64)


def well(shape):
    """Random square matrices made well conditioned by a dominant diagonal."""
    a = rand(shape, F64)
    n = shape[-1]
    return (a + 4.0 * np.eye(n)).astype(np.float32).astype(np.float64)


def spd(shape):
    a = rand(shape, F64)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(np.float32).astype(np.float64)


def gen():
    for dt in (F32, F64):
        for shape in ((3, 3), (2, 4, 4), (1, 1)):
            a = well(shape)
            case("inv_" + dt, "inv", [(a, dt)], [(np.linalg.inv(a), dt)])
            case("det_" + dt, "det", [(a, dt)], [(np.linalg.det(a), dt)])
            s, l = np.linalg.slogdet(a)
            case("slogdet_" + dt, "slogdet", [(a, dt)], [(s, dt), (l, dt)])
        a = rand((2, 3, 3), F64)
        s, l = np.linalg.slogdet(a)
        case("slogdet_neg_" + dt, "slogdet", [(a, dt)], [(s, dt), (l, dt)])
        sing = np.array([[1.0, 2.0], [2.0, 4.0]])
        case("det_singular_" + dt, "det", [(sing, dt)], [(np.float64(0.0), dt)])
        case("slogdet_singular_" + dt, "slogdet", [(sing, dt)],
             [(np.float64(0.0), dt), (np.float64(-np.inf), dt)])
        case("inv_singular_" + dt, "inv", [(sing, dt)], error="not invertible")
        case("solve_singular_" + dt, "solve", [(sing, dt), (np.ones((2, 1)), dt)], error="not invertible")
        a, b = well((2, 4, 4)), rand((2, 4, 3), F64)
        case("solve_" + dt, "solve", [(a, dt), (b, dt)], [(np.linalg.solve(a, b), dt)])
        for upper in (True, False):
            for trans in (False, True):
                for unit in (False, True):
                    t = np.triu(a) if upper else np.tril(a)
                    if unit:
                        eye = np.eye(4, dtype=bool)
                        t = np.where(eye, 1.0, t)  # unit diagonal
                    m = np.swapaxes(t, -1, -2) if trans else t
                    # the op reads only the triangle: fill the other one with noise
                    mask = np.triu(np.ones((4, 4), bool), 0 if not unit else 1) if upper else \
                        np.tril(np.ones((4, 4), bool), 0 if not unit else -1)
                    noisy = np.where(mask, t, a * 7.0)
                    case("triangular_solve_" + dt, "triangular_solve", [(noisy, dt), (b, dt)],
                         [(np.linalg.solve(m, b), dt)],
                         attrs="upper = %s, transpose = %s, unitriangular = %s" % (
                             str(upper).lower(), str(trans).lower(), str(unit).lower()))
        a = spd((2, 4, 4))
        low = np.linalg.cholesky(a)
        case("cholesky_" + dt, "cholesky", [(a, dt)], [(low, dt)])
        case("cholesky_upper_" + dt, "cholesky", [(a, dt)], [(np.swapaxes(low, -1, -2), dt)],
             attrs="upper = true")
        case("cholesky_not_pd_" + dt, "cholesky", [(np.array([[1.0, 2.0], [2.0, 1.0]]), dt)],
             error="positive definite")
        for shape in ((5, 3), (2, 3, 5), (4, 4)):
            x = rand(shape, F64)
            q, r = np.linalg.qr(x, mode="reduced")
            case("qr_" + dt, "qr", [(x, dt)], [(q, dt), (r, dt)])
            q, r = np.linalg.qr(x, mode="complete")
            case("qr_complete_" + dt, "qr", [(x, dt)], [(q, dt), (r, dt)], attrs='mode = "complete"')
            u, s, vh = np.linalg.svd(x, full_matrices=False)
            case("svd_" + dt, "svd", [(x, dt)], [(u, dt), (s, dt), (vh, dt)])
            u, s, vh = np.linalg.svd(x, full_matrices=True)
            case("svd_full_" + dt, "svd", [(x, dt)], [(u, dt), (s, dt), (vh, dt)],
                 attrs="full_matrices = true")
        x = rand((2, 4, 4), F64)
        for uplo in ("L", "U"):
            w, v = np.linalg.eigh(x, UPLO=uplo)
            case("eigh_" + dt, "eigh", [(x, dt)], [(w, dt), (v, dt)], attrs='UPLO = "%s"' % uplo)
    case("inv_not_square", "inv", [(rand((2, 3), F64), F32)], error="square")
    case("inv_1d", "inv", [(rand((3,), F64), F32)], error="at least 2 dims")
    case("solve_mismatch", "solve", [(well((3, 3)), F32), (rand((4, 1), F64), F32)], error="do not match")
    case("qr_bad_mode", "qr", [(rand((3, 3), F64), F32)], attrs='mode = "full"', error="mode must be")
    case("eigh_bad_uplo", "eigh", [(rand((3, 3), F64), F32)], attrs='UPLO = "X"', error="UPLO must be")


def main():
    gen()
    header = ["# ops_linalg.txt - golden cases for the linear-algebra ops, written by",
              "# tests/gen/gen_ops_linalg.py (NumPy); do not edit by hand: change the generator and re-run it."]
    with open(OUT, "w") as f:
        f.write("\n".join(header + lines) + "\n")
    print("%d cases, %d bytes -> %s" % (len(names), os.path.getsize(OUT), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()

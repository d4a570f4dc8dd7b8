"""and/or/not and conditional expressions: _jst.And/Or/Not/IfExp with thunks."""
import paddle


@paddle.jit.to_static
def logic(a, b, c):
    x = a and b
    y = a or b or c
    z = not a
    w = a and not b or c
    return x, y, z, w


@paddle.jit.to_static
def in_tests(a, b):
    if a > 0 and b > 0:
        r = 1
    elif not (a > 0 or b > 0):
        r = -1
    else:
        r = 0
    return r


@paddle.jit.to_static
def ternary(x):
    sign = 1 if x >= 0 else -1
    mag = x if x >= 0 else -x
    return sign * mag, 'even' if x % 2 == 0 else 'odd' if x > 0 else 'neg-odd'


@paddle.jit.to_static
def short_circuit(xs):
    return len(xs) > 0 and xs[0] == 1


@paddle.jit.to_static
def walrus(xs):
    if (n := len(xs)) > 2 and n < 5:
        return n
    return 0


@paddle.jit.to_static
def in_lambda_and_comprehension(xs):
    f = lambda v: v > 0 and v < 10
    return [v for v in xs if f(v) or v == -1]


EXAMPLES = {
    'logic': [(1, 0, 2), (0, 3, 0), (4, 5, 6)],
    'in_tests': [(1, 1), (-1, -1), (1, -1)],
    'ternary': [5, -3, 4],
    'short_circuit': [[[]], [[1, 2]], [[2]]],
    'walrus': [[[1, 2, 3]], [[1]]],
    'in_lambda_and_comprehension': [[[5, -1, 20, 3]]],
}

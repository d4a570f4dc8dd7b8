"""Transforms nested in one another: loops in loops, exits inside branches inside loops."""
import paddle


@paddle.jit.to_static
def grid(n, m):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < m:
            if (i + j) % 2 == 0:
                total = total + i * j
            else:
                total = total - 1
            j = j + 1
        i = i + 1
    return total, i


@paddle.jit.to_static
def skip_stop(rows, limit):
    total = 0
    for r in rows:
        if r < 0:
            continue
        total = total + r
        if total > limit:
            break
    return total


@paddle.jit.to_static
def halve_until(x, target):
    steps = 0
    while steps < 20:
        if x < target:
            return x, steps
        x = x / 2
        steps = steps + 1
    return 0, steps


@paddle.jit.to_static
def first_big(rows, target):
    for k, r in enumerate(rows):
        if r > target:
            return k
    return -1


@paddle.jit.to_static
def gather(x, n):
    parts = []
    i = 0
    while i < n:
        if i % 2 == 0:
            parts.append(x * i)
        i = i + 1
    return parts


@paddle.jit.to_static
def shapes_and_casts(x, flag):
    rows = len(x)
    if flag and rows > 1:
        y = int(x[0]) + float(x[1])
    elif not flag or rows == 0:
        y = bool(rows)
    else:
        y = -1
    return y if y else 0


@paddle.jit.to_static
def flatten_rows(x):
    batch = x.shape[0]
    n = paddle.shape(x)[1]
    if x.shape[1] > 1:
        x = paddle.reshape(x, [batch, -1])
    return x, n


EXAMPLES = {
    "grid": [(3, 4), (0, 4), (2, 0)],
    "skip_stop": [([1, -2, 5, 3, 9], 8), ([1, 2], 100), ([], 1)],
    "halve_until": [(40.0, 6.0), (40.0, 0.0), (1.0, 2.0)],
    "first_big": [([1, 5, 9], 4), ([1, 2], 9)],
    "gather": [(2, 5), (3, 0)],
    "shapes_and_casts": [([3, 4.5], True), ([3], True), ([], False), ([1, 2], False)],
}

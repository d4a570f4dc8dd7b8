# to_static: transforms nested in one another (loops in loops, exits inside branches inside loops).
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


@paddle.jit.to_static
def grid(n, m):
    # a cond inside a while inside a while
    i = paddle.zeros([1], dtype="int64")
    total = paddle.zeros([1], dtype="float32")
    while i < n:
        j = paddle.zeros([1], dtype="int64")
        while j < m:
            if (i + j) % 2 == 0:
                total = total + paddle.cast(i * j, "float32")
            else:
                total = total - 1.0
            j = j + 1
        i = i + 1
    return total, i


@paddle.jit.to_static
def range_break(n, limit):
    # break inside a for over a range with a tensor bound
    acc = paddle.zeros([1], dtype="int64")
    for i in range(n):
        acc = acc + i
        if acc > limit:
            break
    return acc


@paddle.jit.to_static
def rows_skip_stop(x, limit):
    # continue and break inside a for over a tensor
    total = paddle.zeros([x.shape[1]], dtype="float32")
    for row in x:
        if paddle.min(row) < 0:
            continue
        total = total + row
        if paddle.sum(total) > limit:
            break
    return total


@paddle.jit.to_static
def weighted_rows(x):
    # enumerate over a tensor
    total = paddle.zeros([1], dtype="float32")
    ks = paddle.zeros([1], dtype="int64")
    for k, row in enumerate(x):
        total = total + paddle.sum(row) * 2
        ks = ks + k
    return total, ks


@paddle.jit.to_static
def first_big_row(x, target):
    # early return inside a cond inside a for over a tensor
    for row in x:
        if paddle.sum(row) > target:
            return row * 10
    return x[0] * 0


@paddle.jit.to_static
def first_big_pair(x, target):
    # early return of two values inside a cond inside a for over a tensor
    for row in x:
        if paddle.sum(row) > target:
            return row, paddle.sum(row)
    return x[0] * 0, paddle.sum(x[0]) * 0


@paddle.jit.to_static
def halve_until(x, target):
    # early return of two values inside a cond inside a while
    steps = paddle.zeros([1], dtype="int64")
    while steps < 20:
        if paddle.max(x) < target:
            return x, steps
        x = x / 2
        steps = steps + 1
    return x * 0, steps


@paddle.jit.to_static
def gather_parts(x, n):
    # a list appended to inside a while, then concat and stack
    parts = []
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        parts.append(x * paddle.cast(i + 1, "float32"))
        i = i + 1
    return paddle.concat(parts), paddle.stack(parts)


@paddle.jit.to_static
def even_parts(x, n):
    # a list appended to inside a cond inside a while
    parts = []
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        if i % 2 == 0:
            parts.append(x * paddle.cast(i, "float32"))
        i = i + 1
    return paddle.concat(parts)


@paddle.jit.to_static
def row_sums(x):
    # a list appended to inside a for over a tensor
    sums = []
    for row in x:
        sums.append(paddle.sum(row, keepdim=True))
    return paddle.stack(sums)


@paddle.jit.to_static
def unrolled_outer(x, n):
    # a Python for (unrolled) around a tensor while around a tensor if
    out = x * 0
    for k in [1.0, 2.0, 3.0]:
        i = paddle.zeros([1], dtype="int64")
        while i < n:
            if paddle.sum(out) > 20:
                out = out - k
            else:
                out = out + k
            i = i + 1
    return out


@paddle.jit.to_static
def ternary_loop(x, n):
    # a conditional expression inside a for with a tensor bound
    for i in range(n):
        x = x * 2 if paddle.sum(x) < 10 else x - 3
    return x


n3 = paddle.to_tensor([3], dtype="int64")
n4 = paddle.to_tensor([4], dtype="int64")
t, i = grid(n3, n4)
show("grid total", t)
show("grid i", i)
t, i = grid(paddle.to_tensor([0], dtype="int64"), n4)
show("grid empty", t)
show("range_break", range_break(paddle.to_tensor([10], dtype="int64"), paddle.to_tensor([7], dtype="int64")))
show("range_break none", range_break(n3, paddle.to_tensor([70], dtype="int64")))
m = paddle.to_tensor(np.array([[1, 2], [-1, 5], [3, 4], [2, 2], [9, 9]], dtype="float32"))
show("skip_stop", rows_skip_stop(m, paddle.to_tensor([8.0])))
show("skip_stop all", rows_skip_stop(m, paddle.to_tensor([100.0])))
t, k = weighted_rows(m)
show("weighted", t)
show("weighted k", k)
show("first_big", first_big_row(m, paddle.to_tensor([6.0])))
show("first_big none", first_big_row(m, paddle.to_tensor([60.0])))
for t in [6.0, 60.0]:
    r, s = first_big_pair(m, paddle.to_tensor([t]))
    show("first_big_pair row", r)
    show("first_big_pair sum", s)
v, s = halve_until(paddle.to_tensor([40.0, 3.0]), paddle.to_tensor([6.0]))
show("halve x", v)
show("halve steps", s)
v, s = halve_until(paddle.to_tensor([40.0, 3.0]), paddle.to_tensor([0.0]))
show("halve never x", v)
show("halve never steps", s)
c, s = gather_parts(paddle.to_tensor([1.0, -2.0]), n3)
show("gather concat", c)
show("gather stack", s)
show("even_parts", even_parts(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([5], dtype="int64")))
show("row_sums", row_sums(m))
show("unrolled", unrolled_outer(paddle.to_tensor([1.0, 2.0]), n4))
show("ternary_loop", ternary_loop(paddle.to_tensor([1.0, 0.5]), n4))

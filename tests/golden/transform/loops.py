"""while and for loops: loop-carried variables found by liveness."""
import paddle


@paddle.jit.to_static
def count_down(n):
    steps = 0
    while n > 0:
        n = n - 1
        steps += 1
    return steps


@paddle.jit.to_static
def sum_range(n):
    total = 0
    for i in range(n):
        total = total + i * i
    return total


@paddle.jit.to_static
def range_step(a, b):
    out = []
    for i in range(a, b, 2):
        out.append(i)
    return out


@paddle.jit.to_static
def over_list(xs):
    best = None
    for x in xs:
        if best is None or x > best:
            best = x
    return best


@paddle.jit.to_static
def target_after_loop(xs):
    i = -1
    for i in xs:
        pass
    return i


@paddle.jit.to_static
def tuple_target(pairs):
    acc = 0
    for k, (a, b) in enumerate(pairs):
        acc += k * a - b
    return acc


@paddle.jit.to_static
def nested_loops(n):
    rows = []
    i = 0
    while i < n:
        row = []
        for j in range(i + 1):
            row.append(i * j)
        rows.append(row)
        i += 1
    return rows


@paddle.jit.to_static
def temp_in_loop(n):
    x = 1
    while n > 0:
        tmp = x * 2
        x = tmp + 1
        n -= 1
    return x


EXAMPLES = {
    'count_down': [5, 0],
    'sum_range': [4, 0],
    'range_step': [(1, 8), (5, 2)],
    'over_list': [[3, 9, 2], []],
    'target_after_loop': [[1, 2, 3], []],
    'tuple_target': [[[(1, 2), (3, 4), (5, 6)]]],
    'nested_loops': [3],
    'temp_in_loop': [3],
}

"""break and continue: flags folded into loop tests and guards."""
import paddle


@paddle.jit.to_static
def first_over(xs, limit):
    found = -1
    i = 0
    while i < len(xs):
        if xs[i] > limit:
            found = i
            break
        i += 1
    return found


@paddle.jit.to_static
def skip_odd(n):
    total = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        total += i
    return total


@paddle.jit.to_static
def both(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i == 3:
            continue
        if i > 6:
            break
        total += i
    return total, i


@paddle.jit.to_static
def nested_break(grid, target):
    hits = 0
    for row in grid:
        for v in row:
            if v == target:
                hits += 1
                break
            if v < 0:
                continue
            hits += 100
    return hits


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@paddle.jit.to_static
def continue_in_with(xs):
    seen = []
    for x in xs:
        with Ctx():
            if x < 0:
                continue
            seen.append(x)
        seen.append(-1)
    return seen


@paddle.jit.to_static
def break_for_else_free(xs):
    last = None
    for x in xs:
        last = x
        if x == 0:
            break
    return last


EXAMPLES = {
    'first_over': [([1, 5, 9], 4), ([1, 2], 7)],
    'skip_odd': [7, 0],
    'both': [10, 2],
    'nested_break': [([[1, 2, 3], [-1, 2]], 2), ([[-1], [5]], 9)],
    'continue_in_with': [[[1, -2, 3]]],
    'break_for_else_free': [[[3, 0, 4]], [[1, 2]]],
}

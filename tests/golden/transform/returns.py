"""return inside branches and loops: a return flag and value, one return at the end."""
import paddle


@paddle.jit.to_static
def early(x):
    if x < 0:
        return -x
    y = x * 2
    return y


@paddle.jit.to_static
def in_loop(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            return i
        i += 1
    return -1


@paddle.jit.to_static
def in_for(xs):
    for x in xs:
        if x > 10:
            return x
    print('none above 10')


@paddle.jit.to_static
def nested_loops(grid):
    for i in range(len(grid)):
        for j in range(len(grid[i])):
            if grid[i][j] == 0:
                return i, j
        grid[i].append(0)
    return None


@paddle.jit.to_static
def chain(x):
    if x == 1:
        return 'one'
    elif x == 2:
        return 'two'
    else:
        if x > 100:
            return 'big'
    return 'other'


@paddle.jit.to_static
def bare(x, out):
    if x:
        out.append(1)
        return
    out.append(2)


@paddle.jit.to_static
def after_with(x):
    with open(__file__) as f:
        if x:
            return f.readline()[:3]
    return x


EXAMPLES = {
    'early': [-3, 4],
    'in_loop': [([4, 5, 6], 5), ([1], 7)],
    'in_for': [[[1, 20, 30]], [[1, 2]]],
    'nested_loops': [[[[1, 2], [3, 0]]], [[[1]]]],
    'chain': [1, 2, 500, 7],
    'bare': [(1, []), (0, [])],
    'after_with': [0, 1],
}

"""Constructs combined: loops in branches, exits through several levels, names first bound in loops."""
import paddle


@paddle.jit.to_static
def loop_in_branch(x):
    if x > 0:
        while x > 0:
            if x == 5:
                return 'hit five'
            x -= 1
    return 'done'


@paddle.jit.to_static
def bound_in_loop(n):
    for i in range(n):
        last = i * 10
    return last if n > 0 else None


@paddle.jit.to_static
def read_after_while(n):
    k = 0
    while k < n:
        sq = k * k
        k += 1
    return sq


@paddle.jit.to_static
def def_in_branch(x):
    if x > 0:
        def act(v):
            return v + 1
    else:
        def act(v):
            return v - 1
    return act(x)


@paddle.jit.to_static
def names_clash(x):
    if_true_46 = 1
    _return_value = 2
    if x:
        return if_true_46
    return _return_value


@paddle.jit.to_static
def deep_exits(rows):
    out = []
    for r in rows:
        i = 0
        while True:
            if i >= len(r):
                break
            v = r[i]
            i += 1
            if v < 0:
                continue
            if v == 99:
                return out
            out.append(v)
    return out


@paddle.jit.to_static
def delete_and_reuse(x):
    tmp = x + 1
    del tmp
    if x:
        tmp = 3
    else:
        tmp = 4
    return tmp


EXAMPLES = {
    'loop_in_branch': [7, 3, -1],
    'bound_in_loop': [3, 0],
    'read_after_while': [3, 0],
    'def_in_branch': [1, -1],
    'names_clash': [0, 1],
    'deep_exits': [[[[1, -2, 3], [4]]], [[[1, 99, 2], [5]]]],
    'delete_and_reuse': [0, 1],
}

"""if/elif/else: branch functions over the variables each branch writes."""
import paddle


@paddle.jit.to_static
def branch(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y + 1


@paddle.jit.to_static
def elif_chain(x):
    if x < -10:
        label = 'very negative'
        scale = 3
    elif x < 0:
        label = 'negative'
        scale = 2
    elif x == 0:
        label = 'zero'
        scale = 1
    else:
        label = 'positive'
        scale = 0
    return label, scale * x


@paddle.jit.to_static
def one_branch(x, flag):
    total = x
    if flag:
        extra = x + 1
        total = total + extra
    return total


@paddle.jit.to_static
def defined_in_one_branch(x):
    if x > 5:
        big = x
    if x > 5:
        return big
    return 0


@paddle.jit.to_static
def temporaries(x, y):
    if x > y:
        diff = x - y
        out = diff * diff
    else:
        out = 0
    return out


@paddle.jit.to_static
def nested(x, y):
    z = 0
    if x > 0:
        if y > 0:
            z = x + y
        else:
            z = x - y
        z = z * 10
    return z


@paddle.jit.to_static
def side_effects(x, log):
    if x > 1:
        log.append(x)
    else:
        print('small', x)
    return len(log)


@paddle.jit.to_static
def augmented(x):
    acc = [0, 0]
    if x % 2 == 0:
        acc[0] += x
    else:
        acc[1] += x
    return acc


EXAMPLES = {
    'branch': [3, -4, 0],
    'elif_chain': [-20, -3, 0, 7],
    'one_branch': [(2, True), (2, False)],
    'defined_in_one_branch': [9, 1],
    'temporaries': [(5, 2), (1, 4)],
    'nested': [(1, 2), (3, -1), (-1, 5)],
    'side_effects': [(3, []), (0, [1])],
    'augmented': [4, 5],
}

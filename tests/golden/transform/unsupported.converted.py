"""Syntax the transforms do not convert: each function is traced instead, with a warning."""
import paddle
counter = 0

@paddle.jit.to_static
def with_try(x):
    try:
        y = 1 / x
    except ZeroDivisionError:
        y = 0
    return y

@paddle.jit.to_static
def generator(x):
    for i in range(x):
        yield i

@paddle.jit.to_static
def global_write(x):
    global counter
    counter += x
    return counter

def global_read(x):
    global counter
    return counter + x

@paddle.jit.to_static
def loop_else(xs):
    for x in xs:
        if x:
            break
    else:
        return None
    while xs:
        xs = xs[1:]
    else:
        pass
    return xs

@paddle.jit.to_static
def with_match(x):
    match x:
        case 0:
            return 'zero'
        case _:
            return 'other'

@paddle.jit.to_static
def closure_write(x):
    total = 0

    def add(v):
        nonlocal total
        total += v
    add(x)
    return total

@paddle.jit.to_static
async def coroutine(x):
    return await x

# functools: wraps keeps the wrapped function's name, partial, reduce, lru_cache
import functools


def logged(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs) + 1
    return wrapper


@logged
def forward(x, scale=2):
    return x * scale


print(forward.__name__, forward(3), forward(3, scale=3), forward.__wrapped__(3), forward.__wrapped__.__name__)
print(functools.reduce(lambda a, b: a + b, [1, 2, 3], 10), functools.partial(forward, scale=5)(1))


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(20))

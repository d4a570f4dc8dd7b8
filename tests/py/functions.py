# defaults, keywords, *args/**kwargs, closures, nonlocal/global, lambdas, decorators, recursion
def f(a, b=2, *args, k=3, **kw):
    return (a, b, args, k, sorted(kw.items()))
print(f(1))
print(f(1, 5, 6, 7, k=0, z=9, y=8))
print(f(*[1, 2, 3], **{"k": 4, "q": 5}))
print(f(b=1, a=2))
def pos_only(a, b, /, c):
    return a + b + c
print(pos_only(1, 2, c=3), pos_only(1, 2, 3))
def kw_only(*, x, y=10):
    return x * y
print(kw_only(x=2), kw_only(y=1, x=5))
def mutable_default(x, acc=[]):
    acc.append(x)
    return acc
print(mutable_default(1), mutable_default(2))
def counter():
    n = 0
    def inc(step=1):
        nonlocal n
        n += step
        return n
    return inc
c1, c2 = counter(), counter()
print(c1(), c1(), c1(10), c2())
g = "global"
def read_global():
    return g
def write_global():
    global g
    g = "changed"
print(read_global())
write_global()
print(read_global(), g)
def outer():
    x = "outer"
    def middle():
        def inner():
            return x + "!"
        return inner()
    return middle()
print(outer())
def make_multipliers():
    return [lambda v, i=i: v * i for i in range(4)]
print([m(10) for m in make_multipliers()])
def late_binding():
    fs = []
    for i in range(3):
        fs.append(lambda: i)
    return [f() for f in fs]
print(late_binding())
square = lambda x: x * x
add = lambda a, b=1: a + b
print(square(7), add(1), add(1, 2), (lambda *a, **k: (a, k))(1, z=2))
def trace(fn):
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__, args)
        return fn(*args, **kwargs)
    return wrapper
def repeat(times):
    def deco(fn):
        def wrapper(*a):
            return [fn(*a) for _ in range(times)]
        return wrapper
    return deco
@trace
def hello(name):
    return "hello " + name
@repeat(3)
def one():
    return 1
print(hello("bob"), one())
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fact(20), fib(20))
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
print(depth(400))
def apply(fn, *args):
    return fn(*args)
print(apply(max, 3, 9, 4), apply(str.upper, "abc"), apply(len, [1, 2]))
def doc():
    """docstring is a plain expression statement"""
    return doc.__name__
print(doc(), hello.__name__, (lambda: 0).__name__)
def returns_none():
    pass
print(returns_none())
def multi():
    return 1, "two", [3]
a, b, c = multi()
print(a, b, c)
def varargs_only(*args):
    return len(args), args
print(varargs_only(), varargs_only(1, 2))
def kwargs_only(**kw):
    return kw
print(kwargs_only(), kwargs_only(a=1, b=2))
def fn_attr():
    fn_attr.calls = getattr(fn_attr, "calls", 0) + 1
    return fn_attr.calls
fn_attr()
print(fn_attr())
def shadow(len):
    return len * 2
print(shadow(4), len("abc"))
def closure_over_loop():
    result = []
    for i in range(3):
        def get(i=i):
            return i * 10
        result.append(get())
    return result
print(closure_over_loop())
def counter_class_like():
    state = {"n": 0}
    def bump():
        state["n"] += 1
        return state["n"]
    return bump
b = counter_class_like()
b()
print(b())

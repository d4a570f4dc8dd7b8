# constructs the parser must build even where the interpreter rejects them
async def fetch(xs, /, *, n=1, **kw):
    async with lock as l, other:
        async for x in aiter(xs):
            await x
    return [y async for y in xs if (z := y)]

match point:
    case (0, 0) | [1, *rest] if rest:
        pass
    case {"k": v, **more}:
        pass
    case Point(x=0, y=_) as p:
        pass

type Alias[T] = list[T]
def g[T: int](a: T) -> T: ...
lambda *a, b=2, **c: (yield)
x: "int" = f"{a!r:>{width}}" rb"\x00" 0x_f 1_0.5e-3j
del a[1:2, ::3], b.c
global q; nonlocal r
try:
    raise E from None
except* (A, B) as e:
    pass

# Every statement kind with their variants.
import os
import os.path as osp, sys
import a . b . c
from . import sibling
from .. import parent as p
from ...pkg.mod import (x, y as z,)
from __future__ import annotations
from m import *


@decorator
@decorator.attr
@decorator(arg, kw=1)
@(lambda f: f)
def full(a, b: int, /, c, d: str = "d", *args: "A", e, f: float = 1.0, g=2, **kwargs) -> None:
    """Docstring."""
    pass


def only_kw(*, a, b=1):
    return


def only_pos(a, b=2, /):
    return a, b


async def coro(x):
    await x
    async for i in x:
        pass
    else:
        pass
    async with x as y, z:
        pass
    return [i async for i in x]


class Empty:
    pass


class Derived(Base1, Base2, metaclass=Meta, **extra):
    attr: int
    other: "str" = "x"
    (paren): int = 1
    self.field: list[int] = []
    d["k"]: dict[str, int | None]

    def method(self):
        return self


def gen():
    yield
    yield 1
    yield 1, 2
    x = yield
    y = yield from range(3)
    return (yield)


x = 1
x = y = z = 2
x, y = y, x
[a, b] = (c, d) = e
a.b = a[0] = a[1:2] = 3
*rest, last = items
x += 1
x -= 1
x *= 2
x /= 2
x //= 2
x %= 3
x **= 2
x @= m
x &= 1
x |= 2
x ^= 3
x <<= 1
x >>= 1
obj.attr += 1
arr[0] -= 1
a = 1; b = 2; c = 3;
if a: b; c

if a:
    pass
elif b:
    pass
elif c:
    pass
else:
    pass

for i in range(10):
    if i:
        break
    continue
else:
    pass

for i, (j, k) in pairs: pass

while True:
    break
else:
    pass

with a:
    pass
with a as b, c as (d, e), f as [g, h]:
    pass
with (a as b, c):
    pass
with (a, b):
    pass
with (a, b) as c:
    pass
with (yield):
    pass

try:
    pass
except ValueError:
    pass
except (TypeError, KeyError) as e:
    raise
except:
    raise RuntimeError("x") from None
else:
    pass
finally:
    pass

try:
    pass
finally:
    x = 1;

try:
    pass
except* ValueError as eg:
    pass
except* (TypeError, KeyError):
    pass

try:
    pass
except *TypeError:
    pass

raise
raise E
raise E("msg") from cause
assert x
assert x, "message"
del x
del x, y[0], z.a
del (a, b), [c]
global g1, g2
nonlocal n1
pass

match command:
    case "quit":
        pass
    case ["go", direction] | ["move", direction]:
        pass
    case ["drop", *objects]:
        pass
    case [*_]:
        pass
    case Point(x=0, y=0):
        pass
    case Point(1, 2, z=3):
        pass
    case {"x": x, "y": y, **rest}:
        pass
    case {1: _, -2: _, 1.5: _}:
        pass
    case -1 | 1.5 | -2.5 | 1 + 2j | 1 - 2j | -1 + 2j:
        pass
    case "a" "b":
        pass
    case b"bytes":
        pass
    case None | True | False:
        pass
    case a.b.c:
        pass
    case (1 | 2) as num:
        pass
    case (inner):
        pass
    case (1, 2, *rest):
        pass
    case ():
        pass
    case []:
        pass
    case _ if guard:
        pass
    case _:
        pass

match a, b:
    case 1, 2:
        pass
    case (1, 2), *_:
        pass

match (x):
    case y:
        pass

"""Module docstring with 'quotes' and "double" quotes."""
import os, sys as system
from . import a
from .. import b as c
from ..pkg.mod import (d, e as f)
from mod import *
x: int
x: int = 1
(y): int = 2
a.b: int = 3
a[0]: int
x += 1
x **= 2
x //= 3
x @= m
x >>= 1
a = b = c = 1
global g1, g2


@decorator
@decorator.attr(arg, kw=1)
def f(a, b: int = 1, /, c=2, *args: str, d, e: int = 3, **kwargs) -> None:
    """Function docstring."""
    nonlocal_ = 1
    return


def g(*, a):
    pass


def h(a, /):
    pass


def k(a=1, /, b=2):

    def inner():
        nonlocal a
        a = 1
    return inner


async def co(x):
    await x
    async for i in x:
        pass
    async with x as y, z:
        pass
    return [i async for i in x]


class C:
    pass


class D(Base, metaclass=Meta, **kw):
    '''Class docstring.'''
    attr = 1

    def method(self):
        return self.attr


@dataclass
class E(A, B):
    x: int = 0


def doc_only():
    """Only a docstring."""


def doc_quotes():
    """A docstring with \""" inside and a trailing quote\""""


def doc_newline():
    """
    Indented
        docstring.
    """


def not_doc():
    x = 1
    'not a docstring'


for i in range(10):
    if i % 2:
        continue
    elif i > 5:
        break
    else:
        pass
else:
    done = True
while x:
    x -= 1
else:
    y = 2
if a:
    pass
elif b:
    pass
elif c:
    pass
else:
    pass
if a:
    pass
else:
    if b:
        pass
    x = 1
with a as b, c as (d, e):
    pass
with a:
    with b:
        pass
try:
    pass
except ValueError as e:
    raise RuntimeError('x') from e
except (TypeError, KeyError):
    raise
except:
    pass
else:
    pass
finally:
    pass
try:
    pass
except* ValueError:
    pass
except* (TypeError, KeyError) as eg:
    pass
try:
    pass
finally:
    x = 1
raise
raise E
del x
assert x
assert x, 'msg'
pass
lambda: 0
match command:
    case 'go' | 'move':
        pass
    case ['drop', *objects]:
        pass
    case [x, y, *_]:
        pass
    case {'x': x, 'y': y, **rest}:
        pass
    case {}:
        pass
    case Point(x=0, y=0):
        pass
    case Point(1, 2, z=3):
        pass
    case Point():
        pass
    case [Point(x=0) as p, _]:
        pass
    case (1 | 2) as n if n > 0:
        pass
    case None | True | False:
        pass
    case -1 | 1.5 | 2 + 3j | 'a' 'b' | b'c':
        pass
    case a.b.c:
        pass
    case (x, y):
        pass
    case [(a | b) as c]:
        pass
    case _:
        pass

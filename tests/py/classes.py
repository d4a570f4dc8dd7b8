# classes: attributes, inheritance (C3), super(), properties, static/class methods, special methods
class Animal:
    kingdom = "animalia"
    count = 0
    def __init__(self, name, sound="..."):
        self.name = name
        self.sound = sound
        Animal.count += 1
    def speak(self):
        return f"{self.name} says {self.sound}"
    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"
    def __str__(self):
        return "animal " + self.name
class Dog(Animal):
    def __init__(self, name):
        super().__init__(name, "woof")
        self.tricks = []
    def add_trick(self, t):
        self.tricks.append(t)
        return self
    def speak(self):
        return super().speak() + "!"
d = Dog("rex").add_trick("sit").add_trick("roll")
a = Animal("generic")
print(d.speak(), a.speak(), d.tricks, Animal.count, d.kingdom, Dog.kingdom)
print(repr(d), str(d), [d, a], f"{d}", isinstance(d, Animal), isinstance(a, Dog), issubclass(Dog, Animal))
print(type(d).__name__, type(d) is Dog, Dog.__bases__[0].__name__, Dog.__name__, d.__class__.__name__)
d.kingdom = "own"
print(d.kingdom, Animal.kingdom, hasattr(d, "tricks"), getattr(d, "missing", None), sorted(vars(a)))
class A:
    def who(self):
        return "A"
class B(A):
    def who(self):
        return "B>" + super().who()
class C(A):
    def who(self):
        return "C>" + super().who()
class D(B, C):
    def who(self):
        return "D>" + super().who()
print(D().who(), [k.__name__ for k in D.__mro__])
class Temperature:
    unit = "C"
    def __init__(self, c):
        self._c = c
    @property
    def celsius(self):
        return self._c
    @celsius.setter
    def celsius(self, v):
        if v < -273.15:
            raise ValueError("too cold")
        self._c = v
    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32
    @staticmethod
    def convert(c):
        return c * 9 / 5 + 32
    @classmethod
    def freezing(cls):
        return cls(0)
t = Temperature(100)
t.celsius = 37
print(t.celsius, t.fahrenheit, Temperature.convert(10), t.convert(20), Temperature.freezing().celsius)
try:
    t.celsius = -300
except ValueError as e:
    print("error:", e)
try:
    t.fahrenheit = 5
except AttributeError as e:
    print("AttributeError")
class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.xs[i]
    def __setitem__(self, i, v):
        self.xs[i] = v
    def __iter__(self):
        return iter(self.xs)
    def __add__(self, o):
        return Vec(*[a + b for a, b in zip(self, o)])
    def __radd__(self, o):
        return Vec(*[o + a for a in self])
    def __sub__(self, o):
        return Vec(*[a - b for a, b in zip(self, o)])
    def __mul__(self, k):
        return Vec(*[a * k for a in self])
    __rmul__ = __mul__
    def __neg__(self):
        return self * -1
    def __eq__(self, o):
        return isinstance(o, Vec) and self.xs == o.xs
    def __lt__(self, o):
        return sum(self.xs) < sum(o.xs)
    def __hash__(self):
        return hash(tuple(self.xs))
    def __repr__(self):
        return "Vec(%s)" % ", ".join(str(x) for x in self.xs)
    def __call__(self, k):
        return self.xs[k]
    def __contains__(self, x):
        return x in self.xs
    def __bool__(self):
        return any(self.xs)
v = Vec(1, 2, 3)
w = v + Vec(10, 20, 30)
print(v, w, w - v, -v, len(w), w[1], w[-1], v * 2, 3 * v, 5 + v, v(0), 2 in v, 9 in v)
print(v == Vec(1, 2, 3), v != w, v < w, w > v, sorted([w, v]), bool(Vec(0, 0)), bool(v), {v: 1}[Vec(1, 2, 3)])
v[0] = 100
v += Vec(1, 1, 1)
print(v, list(v), max(v), sum(v), [x * 2 for x in v], sorted(v, reverse=True))
class Seq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError("done")
        return i * 10
print(list(Seq()), [x for x in Seq()], 20 in Seq())
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n + 1
print(list(Countdown(3)), sum(Countdown(4)), dict(zip("ab", Countdown(2))))
class Registry:
    items = []
    @classmethod
    def register(cls, x):
        cls.items.append(x)
        return x
@Registry.register
class Plugin:
    pass
print(Registry.items[0].__name__, len(Registry.items))
def add_method(cls):
    cls.extra = lambda self: "extra from " + type(self).__name__
    return cls
@add_method
class Decorated:
    pass
print(Decorated().extra())
class Lazy:
    def __init__(self):
        self.real = 1
    def __getattr__(self, name):
        return "computed " + name
lz = Lazy()
print(lz.real, lz.anything)
class Guarded:
    def __setattr__(self, name, value):
        if name.startswith("_"):
            raise AttributeError("private: " + name)
        object.__setattr__(self, name, value)
g = Guarded()
g.x = 5
try:
    g._y = 1
except AttributeError as e:
    print(e, g.x)
class Node:
    def __init__(self, val, children=()):
        self.val = val
        self.children = list(children)
    def total(self):
        return self.val + sum(c.total() for c in self.children)
tree = Node(1, [Node(2, [Node(4)]), Node(3)])
print(tree.total())
class Shape:
    sides = 0
    def describe(self):
        return f"{type(self).__name__} with {self.sides} sides, area {self.area():.2f}"
    def area(self):
        raise NotImplementedError
class Square(Shape):
    sides = 4
    def __init__(self, s):
        self.s = s
    def area(self):
        return self.s ** 2
class Circle(Shape):
    def __init__(self, r):
        self.r = r
    def area(self):
        return 3.14159 * self.r ** 2
for sh in [Square(2), Circle(1)]:
    print(sh.describe())
try:
    Shape().describe()
except NotImplementedError:
    print("abstract")
class WithClassAttrs:
    scale = 2
    table = [i * 2 for i in range(3)]
    def m(self):
        return self.scale
print(WithClassAttrs.table, WithClassAttrs().m(), WithClassAttrs.m(WithClassAttrs()))
class Point:
    def __init__(self, x=0, y=0):
        self.x, self.y = x, y
    def __eq__(self, o):
        return (self.x, self.y) == (o.x, o.y)
    def __ne__(self, o):
        return not self == o
    def __repr__(self):
        return f"Point({self.x}, {self.y})"
print(Point(1, 2) == Point(1, 2), Point(1, 2) != Point(2, 1), Point(), Point(y=5))
class Base2:
    def __init__(self):
        self.log = ["Base2"]
class Child2(Base2):
    def __init__(self):
        super(Child2, self).__init__()
        self.log.append("Child2")
print(Child2().log)
print(str(Animal), Dog.speak is Dog.speak, Animal.speak(d))
class Typed:
    """a data descriptor: __get__ and __set__"""
    def __init__(self, kind):
        self.kind = kind
        self.name = None
    def __get__(self, obj, owner):
        if obj is None:
            return self
        return obj.__dict__.get("_" + self.kind, 0)
    def __set__(self, obj, value):
        if not isinstance(value, int):
            raise TypeError("expected int")
        obj.__dict__["_" + self.kind] = value
class Bound:
    """a non-data descriptor returning a callable bound to the instance"""
    def __init__(self, fn):
        self.fn = fn
    def __get__(self, obj, owner):
        if obj is None:
            return self
        return lambda *a: self.fn(obj, *a)
class Holder:
    size = Typed("size")
    @Bound
    def doubled(self, k):
        return self.size * 2 * k
h = Holder()
h.size = 21
try:
    h.size = "big"
except TypeError as e:
    print(e)
print(h.size, h.doubled(1), type(Holder.size).__name__, type(Holder.doubled).__name__)

"""Attribute lookups stay right when classes change between calls at the same site.

The interpreter remembers what a class's MRO gives for a name; every change to
a class namespace (assignment, deletion, a new class) must be seen at once.
"""


class Base:
    kind = "base"

    def who(self):
        return "Base.who"

    def twice(self, x):
        return 2 * x


class Child(Base):
    pass


def call_who(o):
    return o.who()  # one call site, used before and after each change


def read_kind(o):
    return o.kind  # one attribute site


c = Child()
out = []
for step in range(6):
    if step == 1:
        Child.who = lambda self: "Child.who (added)"
    elif step == 2:
        Base.who = lambda self: "Base.who (replaced)"
    elif step == 3:
        del Child.who
    elif step == 4:
        c.who = lambda: "instance attribute"
    elif step == 5:
        del c.who
        setattr(Base, "who", lambda self: "Base.who (setattr)")
    out.append(call_who(c))
print(out)

kinds = []
for step in range(5):
    if step == 1:
        Child.kind = "child"
    elif step == 2:
        Base.kind = "base2"
    elif step == 3:
        del Child.kind
    elif step == 4:
        Base.kind = property(lambda self: "property")
    kinds.append(read_kind(c))
print(kinds)


# classes made and dropped in a loop: the same names, different classes (a
# class's memory may be reused by the next one)
def make(v):
    class Made:
        def get(self):
            return v

        label = "made-%d" % v

    return Made


got = []
for i in range(40):
    m = make(i)()
    got.append((m.get(), m.label))
print(got[:3], got[-1], all(g == (i, "made-%d" % i) for i, g in enumerate(got)))


# a descriptor class that becomes a data descriptor after first use
class Desc:
    def __get__(self, obj, owner):
        return "from descriptor"


class Holder:
    attr = Desc()


h = Holder()
h.__dict__["attr"] = "from instance dict"
seen = [h.attr]
Desc.__set__ = lambda self, obj, value: None
seen.append(h.attr)
del Desc.__set__
seen.append(h.attr)
print(seen)


# methods reached through a long MRO, then overridden in the middle
class A:
    def f(self):
        return "A"


class B(A):
    pass


class C(B):
    pass


class D(C):
    pass


d = D()
res = [d.f()]
B.f = lambda self: "B"
res.append(d.f())
C.f = lambda self: "C"
res.append(d.f())
del B.f, C.f
res.append(d.f())
print(res, D.f(d), getattr(d, "f")())


# a long name (not kept in the cache) and a short one, side by side
class Names:
    a_rather_long_attribute_name_beyond_the_cache = 1
    x = 2


n = Names()
vals = []
for i in range(3):
    vals.append((n.a_rather_long_attribute_name_beyond_the_cache, n.x))
    Names.a_rather_long_attribute_name_beyond_the_cache += 10
    Names.x += 10
print(vals)

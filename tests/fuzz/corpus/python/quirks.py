# Constructs whose tree-sitter parse needs correcting to match CPython.
type(obj).attr = 1
type(self).counter += 1
type.__call__(cls)
print >> sys.stderr, "message"
print(*values.keys(), *[1, 2])
f(*a.b(), **c.d)
x = [*a[0], *b.c]
x = a ^ b & c
x = a & b ^ c | d
x = ~a ^ b & c | d & e ^ -f
x = a << b & c >> d
x: list[int] | dict[str, int] | None = None
def f(a: int | str | None, b: Callable[..., int] | None = None) -> tuple[int, ...] | list[int]: pass
(y := 1 if a else 2)
f"{x:=10}"
f"{x, y}"
f"{x, y = }"
r"ends in backslash\\"
rb"\\"
with (open(p) as fh):
    pass
with (open(p) as fh, open(q) as gh,):
    pass
match (1 | 2):
    case (0 | 1) | 2:
        pass
    case -0 | -1 | -0.5 | -1j | -1 - 1j:
        pass
    case {-1: x}:
        pass
x = 1 \
    + 2
if x:
    y = 1;
z = 3

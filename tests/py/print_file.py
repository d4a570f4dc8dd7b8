# print(file=...) writes through the file's write(), as CPython does: an open
# file, or any object with a write method; sys.stdout and sys.stderr directly.
import math
import os
import sys
import tempfile


class Collect:
    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)
        return len(s)

    def flush(self):
        self.parts.append("<flush>")


c = Collect()
print("a", 1, [2], sep="-", end="!\n", file=c)
print("b", file=c, flush=True)
print(c.parts)

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "out.txt")
    with open(p, "w") as f:
        print("hello", 3, file=f)
        print("world", file=f, end="")
    with open(p) as f:
        print(repr(f.read()))

print("to stdout", file=sys.stdout)
print("to None", file=None)
try:
    print("x", file=3)
except AttributeError as e:
    print("AttributeError", e)
for bad in ("a", None):
    try:
        math.floor(bad)
    except TypeError as e:
        print("TypeError", e)

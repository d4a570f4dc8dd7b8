"""Global and builtin names read at one site stay right as the module's names change.

The interpreter remembers where a global name was found; adding, rebinding
or deleting globals (and shadowing a builtin with a global) must be seen at
the next read.
"""
import builtins


def read_counter():
    return counter  # a global read from a function


def read_len(x):
    return len(x)  # a builtin, until a global shadows it


counter = 0
seen = []
for i in range(4):
    seen.append(read_counter())
    counter += 10  # the value changes, the name stays
print(seen)

lens = []
for step in range(5):
    if step == 1:
        def len(x):  # noqa: F811 - a global now shadows the builtin
            return -1
    elif step == 2:
        len = lambda x: -2  # noqa: E731
    elif step == 3:
        del len
    elif step == 4:
        filler = [globals().setdefault("filler_%d" % k, k) for k in range(40)]  # the dict grows
    lens.append(read_len("abc"))
print(lens)

vals = []
for step in range(4):
    if step == 1:
        del counter
    elif step == 2:
        counter = "back"
    try:
        vals.append(read_counter())
    except NameError as e:
        vals.append("NameError: %s" % e)
print(vals)

# module-level reads of the same names
total = 0
for k in range(3):
    total += len(counter) + abs(-k)
print(total)

# a builtin replaced on the builtins module itself
orig_abs = builtins.abs
res = [abs(-3)]
builtins.abs = lambda v: "patched"
res.append(abs(-3))
builtins.abs = orig_abs
res.append(abs(-3))
print(res)


# many globals made and removed around a reading function
def read_many():
    return [globals().get("g_%d" % k) for k in range(3)], g_fixed


g_fixed = "fixed"
out = []
for r in range(3):
    for k in range(3):
        globals()["g_%d" % k] = r * 10 + k
    out.append(read_many())
    for k in range(3):
        del globals()["g_%d" % k]
print(out)

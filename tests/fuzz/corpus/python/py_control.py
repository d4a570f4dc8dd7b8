# if/elif/else, while, for (over many iterables), break/continue/else, pass
def classify(n):
    if n < 0:
        return "neg"
    elif n == 0:
        return "zero"
    elif n < 10:
        return "small"
    else:
        return "big"
print([classify(n) for n in (-5, 0, 3, 42)])
i = 0
while i < 10:
    i += 1
    if i % 2:
        continue
    if i > 6:
        break
    print("even", i)
else:
    print("not reached")
n = 0
while n < 3:
    n += 1
else:
    print("while-else ran", n)
for x in [1, 2, 3]:
    if x == 5:
        break
else:
    print("for-else ran")
for x in range(3):
    pass
print("x after loop", x)
for ch in "héy":
    print(ch, end=" ")
print()
for k in {"a": 1, "b": 2}:
    print(k, end=" ")
print()
for a, b in [(1, 2), (3, 4)]:
    print(a + b, end=" ")
print()
for i, (a, b) in enumerate(zip("xyz", range(3)), start=1):
    print(i, a, b, end="; ")
print()
for v in (10, 20):
    for w in (1, 2):
        if w == 2:
            break
        print(v + w, end=" ")
print()
for i in range(10, 0, -3):
    print(i, end=" ")
print()
for i in range(0):
    print("never")
for t in reversed(range(3)):
    print(t, end=" ")
print()
for item in iter([7, 8]):
    print(item, end=" ")
print()
it = iter([1, 2, 3])
print(next(it), next(it), list(it), next(it, "end"))
total = 0
for i in range(100):
    if i % 3 == 0 or i % 5 == 0:
        total += i
print("euler1", total)
flag = True
if flag and not False:
    pass
print("walrus", [y for x in range(5) if (y := x * 2) > 4], y)
data = [3, 8, 1]
if (m := max(data)) > 5:
    print("max is", m)
x = 5
result = "big" if x > 3 else "small"
print(result, 0 or "default", "" and "never", [] or [1])
i = 0
while True:
    i += 1
    if i >= 4:
        break
print("loop count", i)

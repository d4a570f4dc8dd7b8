# list/set/dict comprehensions and generator expressions
print([x * x for x in range(6)])
print([x for x in range(20) if x % 3 == 0 if x % 2 == 0])
print([(x, y) for x in range(3) for y in range(x)])
print([[r * c for c in range(3)] for r in range(3)])
print({x % 4 for x in range(10)} == {0, 1, 2, 3}, sorted({c.upper() for c in "banana"}))
print({k: v for k, v in zip("abc", range(3))}, {n: n ** 2 for n in range(4) if n})
print(sum(x for x in range(101)), max(len(w) for w in ["a", "abc", "ab"]), any(x > 3 for x in [1, 5]), all(x > 0 for x in []))
print(list(x * 2 for x in [1, 2]), tuple(c for c in "xy"), sorted((-x for x in range(3))), ", ".join(str(i) for i in range(3)))
g = (x + 1 for x in range(3))
print(next(g), list(g))
words = ["apple", "Banana", "cherry", "date"]
print([w[0] for w in words], [w for w in words if len(w) > 4], {w: len(w) for w in words})
matrix = [[1, 2, 3], [4, 5, 6]]
print([list(col) for col in zip(*matrix)], [x for row in matrix for x in row])
offset = 10
def scaled(xs, k):
    return [x * k + offset for x in xs]
print(scaled([1, 2], 3))
def nested_scope():
    base = 100
    return [[base + i + j for j in range(2)] for i in range(2)]
print(nested_scope())
x = "outer"
print([x for x in "ab"], x)
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])
pairs = [(a, b) for a in range(1, 20) for b in range(a, 20) if a * b == 24]
print(pairs)
print([i if i % 2 else -i for i in range(5)], [y for x in [[1], [2, 3]] for y in x])
class K:
    items = [1, 2, 3]
    doubled = [i * 2 for i in items]
print(K.doubled)
print({(i, j): i * j for i in range(2) for j in range(2)})
print(sorted({frozen for frozen in ("b", "a", "b")}), dict((i, str(i)) for i in range(3)))
print([n for n in range(2, 30) if all(n % d for d in range(2, n))])

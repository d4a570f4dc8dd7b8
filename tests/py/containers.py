# lists, tuples, dicts, sets, slicing
l = [3, 1, 2]
l.append(4)
l.extend([5, 6])
l.insert(0, 0)
l.insert(-1, 99)
l.insert(100, 7)
print(l, len(l), l.pop(), l.pop(0), l.pop(-2), l)
print(l.index(2), l.count(1), 1 in l, 42 in l, l[0], l[-1], l[1:3], l[:-2], l[::-1], l[::2], l[10:])
l.remove(1)
l.sort()
print(l)
l.sort(reverse=True)
print(l, sorted(l), l.copy() == l, l.copy() is l)
l.reverse()
print(l)
l[0] = "x"
l[1:3] = ["a", "b", "c", "d"]
print(l)
l[::2] = [0, 0, 0, 0]
print(l)
del l[0]
del l[1:3]
print(l)
l.clear()
print(l, [] == [], [1, [2]] == [1, [2]], [1, 2] < [1, 3], [1, 2] < [1, 2, 0], [2] > [1, 9])
nested = [[1, 2], [3, 4]]
nested[1][0] = 30
print(nested, [row[1] for row in nested], [1, 2] + [3], [0] * 3, [[0] * 2] * 2, list("abc"), list(range(3)))
a = [1, 2]
b = a
b += [3]
print(a, a is b)
a = a + [4]
print(a, b)
words = ["banana", "Apple", "cherry"]
print(sorted(words), sorted(words, key=len), sorted(words, key=str.lower), sorted(words, key=lambda w: w[-1], reverse=True))
print(sorted([(2, "b"), (1, "z"), (2, "a")]), sorted([3, 1, 2]), min(words), max(words, key=len))
t = (1, 2, 3)
print(t, t[0], t[-1], t[1:], t + (4,), t * 2, len(t), t.index(2), t.count(3), (1,), (), tuple([1, 2]))
print((1, 2) < (1, 3), (1, 2) == (1, 2), hash((1, 2)) == hash((1, 2)), tuple("ab"))
d = {"b": 2, "a": 1}
d["c"] = 3
d["a"] = 10
print(d, len(d), d["b"], d.get("z"), d.get("z", 0), "a" in d, "z" not in d)
print(list(d), list(d.keys()), list(d.values()), list(d.items()))
print(d.keys(), d.values(), d.items())
print(d.pop("b"), d.pop("zz", "default"), d.setdefault("c", 0), d.setdefault("n", []), d)
d.update({"a": 1}, extra=True)
d.update([("p", 1)])
print(d, d.copy(), dict(a=1, b=2), dict([("x", 1)]), dict(zip("ab", [1, 2])), dict.fromkeys("xy", 0))
del d["p"]
print(d.popitem(), d)
for k, v in {"one": 1, "two": 2}.items():
    print(k, v)
print({1: "int", 1.0: "float", True: "bool"}, {(1, 2): "tuple", None: "none"}[(1, 2)])
counts = {}
for ch in "mississippi":
    counts[ch] = counts.get(ch, 0) + 1
print(counts, sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
print({"a": 1} == {"a": 1}, {"a": 1} == {"a": 2}, {**{"x": 1}, "y": 2, **{"x": 3}}, {"a": 1} | {"b": 2})
s = {3, 1, 2}
s.add(4)
s.add(1)
s.discard(10)
s.remove(3)
print(sorted(s), len(s), 2 in s, 3 in s, sorted(set("hello")), set(), sorted({x % 3 for x in range(10)}))
print(sorted(s | {9}), sorted(s & {1, 4, 5}), sorted(s - {1}), sorted(s ^ {1, 7}), {1, 2} <= {1, 2, 3}, {1} < {1})
print(sorted(s.union([8])), sorted(s.intersection({2, 4})), sorted(s.difference({2})), s.issubset({1, 2, 4, 5}), s.isdisjoint({9}))
print(list(range(5)), list(range(2, 8, 2)), list(range(5, 0, -1)), range(3), range(1, 9, 2), len(range(0, 10, 3)), range(10)[2], range(10)[::3])
a, b, *rest = [1, 2, 3, 4, 5]
print(a, b, rest)
(p, q), r = (1, 2), 3
first, *mid, last = "hello"
print(p, q, r, first, mid, last)
x, y = y, x = 1, 2
print(x, y)
m = [[0] * 3 for _ in range(2)]
m[0][1] = 5
print(m)
cyc = [1]
cyc.append(cyc)
print(cyc)
dd = {}
dd["self"] = dd
print(dd)

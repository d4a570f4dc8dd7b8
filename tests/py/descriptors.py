# A builtin method runs on instances of its class only: called unbound with
# another receiver, or copied into an unrelated class, it raises TypeError.
cases = [
    lambda: list.append((), 1),
    lambda: str.upper(5),
    lambda: dict.get([], 1),
    lambda: list.sort("abc"),
    lambda: str.split(b"a b" if False else 3),
]
for f in cases:
    try:
        f()
    except TypeError as e:
        print("TypeError:", e)


class A:
    g = list.append
    h = str.strip


for name in ("g", "h"):
    try:
        getattr(A(), name)()
    except TypeError as e:
        print("TypeError:", e)


class MyList(list):
    pass


m = MyList()
list.append(m, 4)
m.append(5)
print(m, str.upper("ok"), dict.get({"a": 1}, "a"))

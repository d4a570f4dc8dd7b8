# Operator precedence and ast.unparse's parenthesisation quirks.
x = a + b * c
x = (a + b) * c
x = a - (b - c)
x = (a - b) - c
x = a ** b ** c
x = (a ** b) ** c
x = -a ** b
x = (-a) ** b
x = not a == b
x = (not a) == b
x = a or b and c
x = (a or b) and c
x = a and b and c and d
x = a and b and x > 1
x = a or b or c or d or e or f or g or h or i or j or k or l or m or n
x = a if b else c if d else e
x = (a if b else c) if d else e
x = lambda: (yield)
x = lambda a, *b, c=1, **d: a + b
x = lambda: lambda: 0
f(lambda x: x)(1)
y = (yield)
y = yield x
y = yield from z
await_ = [(yield)]
x = a, b
x = (a, b),
x = ()
x = (1,)
x[1:2, ::3]
x[a, b]
x[(a, b)]
x[()]
x[(a,)]
x[1:2][::-1]
x = {**a, 'b': 1, **{'c': 2}}
x = {*a, *b}
x = {*()}
x = [*a, *b]
f(*args, **kwargs)
f(a, *b, c=1, **d)
f(x for x in y)
f((x for x in y), 1)
x = [a for b in c if d if e for f in g]
x = {k: v for k, v in items if k}
x = {a for a in (1, 2)}
x = [a for a in (b if c else d)]
x = [a for a in (lambda: 1)()]
(x := 5)
print((y := f(x)))
x = (y := a + 1)
x = 3 .real
x = 3.5.real
x = True.real
x = 1j.imag
x = (a < b) < c
x = a < b < c
x = a < (b < c)
x = a is not b
x = a not in b
x = ~a | b ^ c & d << e + f * g ** h
x = a @ b
x = a // b % c
x = (a + b).c
x = (a + b)[c]
x = (a + b)(c)
x = -(-a)
x = +a
x = ~~a
x = not not a
x = -(a + b)
x = (-1) ** 2
x = 2 ** -1
x = a[b](c).d
x = (yield a), b
*a, b = c
a, *b = c
[a, b] = c
(a, b), c = d
for (a, b), c in d:
    pass
for a, in b:
    pass
x = (a for b in c)
x = await_ if a else b
del a, (b, c), d[e]
assert (a, b)
assert a, (b, c)
return_ = [lambda: (a, b)]
x = f'{a if b else c}'
x = a if (lambda: b) else c
x = (lambda: a) if b else c
x = a.b.c(d)[e]
x = (1).bit_length()
x = 1.0.hex()

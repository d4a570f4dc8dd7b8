# Every expression kind, operator precedence and literal form.
a and b and c
a or b and not c
(a and b) and c
a or (b or c)
(x := 1 if False else 2)
(y := f(x))
a + b - c * d / e // f % g ** h ** i @ j
-a ** -b
~a ^ b & c | d << e >> f
a ^ b & c
a & b ^ c
(a | b) & c
+a - -b
not a is not b
a < b <= c > d >= e == f != g in h not in i is j is not k
lambda: 0
lambda x, /, y=1, *args, z, w=2, **kw: (x, y, z, w)
lambda *, k: k
body if test else orelse
{}
{1: 2, **d, "k": [3]}
{1, 2, *s}
[x * y for x in range(3) if x for y in range(x) if y if not y % 2]
{x for x in s}
{k: v for k, v in pairs}
(x for x in xs)
sum(x for x in xs)
await coro()
f(a, *args, b, c=1, *more, d=2, **kw, **kw2)
f.g.h(1)(2)[3]
x[1]
x[1:2]
x[1:2:3]
x[::2]
x[:]
x[::]
x[1:, :2]
x[..., None]
x[1,]
x[a, b:c]
x[*idx]
*a, b = c
[a, *b] = c
t = ()
t = (1,)
t = 1, 2,
t = [1, 2, 3,]
0, 7, 0x1F, 0XdeadBEEF, 0o17, 0O7, 0b1010, 0B1, 1_000_000, 0x_ff_ff
123456789012345678901234567890
0xFFFFFFFFFFFFFFFFFFFFFFFF
0b11111111111111111111111111111111111111111111111111111111111111111
0x123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
0o7777777777777777777777777777777777777777777777777777777777777777777
9223372036854775807
9223372036854775808
1.0, 1., .5, 1e10, 1E-10, 1.5e+3, 1_0.0_1, 1e16, 1e15, 0.0001, 0.00001
123456789012345678.0, 3.141592653589793, 1e308, 1e309, 2.5e-324
1j, 2.5J, 1e3j, 0j, 1e16j, 10_0j
True, False, None, ...
"abc", 'abc', """triple "quoted" """, '''also
multi-line'''
"escapes: \\ \' \" \a \b \f \n \r \t \v \0 \7 \101 \777 \x41 \u00e9 \U0001F600"
"named: \N{EM DASH} \N{greek small letter alpha} \N{DEGREE SIGN} \N{LATIN SMALL LETTER E WITH ACUTE}"
"more names: \N{DAGGER} \N{SNAKE} \N{CJK UNIFIED IDEOGRAPH-4E2D} \N{LATIN CAPITAL LETTER A} \N{DIGIT SEVEN}"
"\N{GREEK CAPITAL LETTER OMEGA} \N{CYRILLIC CAPITAL LETTER YA} \N{GREEK SMALL LETTER FINAL SIGMA}"
"surrogates: \ud800 \udfff, astral: \U0010FFFF, nul: \x00"
"invalid escapes kept: \d \w \q"
b"\N{no escape in bytes} \u1234"
"line\
continuation"
r"raw \n \d \\", R'raw', rb"\x00", Rb'x', bR"y", BR'z', br'\\'
b"bytes \x00\xff \n \\ \" \777", B"upper"
u"unicode kind", U"also u"
"implicit" " concatenation" ' of ' """strings"""
u"first u" " then plain"
b"by" b"tes"
f"plain f-string"
f""
f"{x}"
f"{x!r} {y!s} {z!a}"
f"{x:>10} {y:{width}.{precision}f} {z!r:^{w}}"
f"{x = }" f"{y=!s}" f"{z=:>5}"
f"{{literal braces}} {x}}}"
f"{a, b}"
f"{x:=10}"
f"{'nested'} {f'{inner}'}"
f'{"a" if x else "b"}'
rf"raw {x} \n" fr'{y}\d'
"plain " f"then {x} " "more"
f"{x}" "" f""
f"""multi
line {x +
y} done"""
f"{x:}"
f"{x!r:}"

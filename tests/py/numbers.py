# ints (64-bit), floats (repr is the shortest round-trip), bools, None, arithmetic
print(1 + 2, 7 - 10, 6 * 7, 2 ** 10, 2 ** 0, (-2) ** 3, 2 ** -2)
print(7 / 2, -7 / 2, 6 / 3, 1 / 3, 2 / 3, 10 / 4)
print(7 // 2, -7 // 2, 7 // -2, -7 // -2, 7 % 3, -7 % 3, 7 % -3, -7 % -3)
print(7.5 // 2, -7.5 // 2, 7.5 % 2, -7.5 % 2, 7.5 % -2, 0.0 % 5, -0.0 // 1)
print(divmod(17, 5), divmod(-17, 5), divmod(17.5, -5))
print(3 << 4, -16 >> 2, -1 >> 10, 5 & 3, 5 | 3, 5 ^ 3, ~5, ~-1)
print(True + True, True * 3, True & False, True | False, True ^ True, -True, ~True)
print(0.1 + 0.2, 0.1 * 3, 1.1 * 1.1, 1e16, 1e15, 1e-4, 1e-5, 123.456, 1.0, -0.0, 100.0)
print(1 / 7, 2 ** 0.5, 3.0 * 1e300 * 1e10, -1e400, 1e308 * 10 - 1e308 * 10 != 0)
print(12345678901234567890.0, 0.000123, 123456789.0, 1.5e-10, 2.5e+20, float(2 ** 53))
print(9223372036854775807, -9223372036854775807 - 1, 2 ** 62 + (2 ** 62 - 1))
print(int(3.9), int(-3.9), int("42"), int(" -17 "), int("0x1f", 16), int("ff", 16), int("0b101", 0))
print(int("1_000"), float("1.5"), float(" -2.25 "), float("inf"), float("-inf"), float("1e3"))
print(float(7), int(True), float(False), bool(0), bool(0.0), bool(""), bool([]), bool([0]), bool(None))
print(round(2.5), round(3.5), round(-2.5), round(0.5), round(1.5), round(2.675, 2), round(0.125, 2))
print(round(1234, -2), round(1250, -2), round(1350, -2), round(-1250, -2), round(7.0), round(3.14159, 3))
print(abs(-5), abs(5.5), abs(-0.0), abs(True), pow(2, 10), pow(3, 4, 5), pow(2.0, 3))
print(1 == 1.0, 1 < 1.5, 2 > 1.99, 0.5 == 1 / 2, 10 ** 18 == 10.0 ** 18, 1 != 2)
print(1 < 2 < 3, 1 < 3 < 2, 3 > 2 >= 2, 1 == 1 == 1.0, 5 in range(10), 10 in range(10))
z = 0
print(None is None, None == None, None is not None, z is not None)
print(max(1, 2.5), min(-1, -1.5), sum([1, 2, 3]), sum([0.5, 0.25], 1), sum(range(101)))
print(hex(255), hex(-255), oct(8), bin(10), bin(-3), chr(97), ord("z"))
print((5).bit_length(), (1.0).is_integer(), (1.5).is_integer())
x = 10
x += 5
x -= 3
x *= 2
x //= 5
x **= 3
x %= 7
print(x)
y = 2.0
y /= 4
y += 1
print(y)
print(float("nan") == float("nan"), float("nan") != float("nan"), 0.0 == -0.0)

# random: CPython's Mersenne Twister numbers for the same seed
import random
random.seed(42)
print(random.random(), random.random(), random.randint(1, 100), random.randint(-5, 5))
print(random.uniform(1.5, 2.5), random.choice("abcdef"), random.choice([10, 20, 30]))
xs = list(range(10))
random.shuffle(xs)
print(xs, random.randrange(10), random.randrange(0, 100, 7), random.randrange(10, 0, -3))
print(random.sample(range(100), 5), random.sample(list(range(1000)), 3), random.getrandbits(8), random.getrandbits(40))
print(random.gauss(0, 1), random.gauss(0, 1), random.normalvariate(1, 2))
for s in (0, 1, 12345, 2 ** 32 + 7, -3, 2 ** 62):
    random.seed(s)
    print(s, random.random(), random.randint(0, 10 ** 9))
r = random.Random(7)
print(r.random(), r.randint(0, 9), [r.randint(0, 1) for _ in range(10)])
random.seed(123)
a = [random.random() for _ in range(3)]
random.seed(123)
print(a == [random.random() for _ in range(3)], len(set(random.random() for _ in range(50))))
for bad in [lambda: random.choice([]), lambda: random.randint(5, 1), lambda: random.randrange(0)]:
    try:
        bad()
    except (IndexError, ValueError) as e:
        print(type(e).__name__, e)

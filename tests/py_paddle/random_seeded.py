# paddle.seed(s) then Paddle's random functions: the same numbers as Paddle's
# CPU generator (an mt19937_64 seeded through seed_seq) and its kernels'
# distributions, for float32 and float64, consecutive calls, integer ranges,
# permutations, a kernel seed, and bad arguments.
import paddle


def show(name, t):
    v = t.numpy().reshape([-1]).tolist()
    if t.dtype in (paddle.float32, paddle.float64):
        v = ["%.6f" % x for x in v]
    print(name, t.dtype, t.shape, v)


for s in [2023, 100, 0, 4294967297]:
    print("seed", s)
    paddle.seed(s)
    show("rand", paddle.rand([2, 3]))
    show("rand again", paddle.rand([2]))
    show("rand f64", paddle.rand([3], dtype="float64"))
    show("randn", paddle.randn([5]))
    show("randn f64", paddle.randn([3], dtype="float64"))
    show("standard_normal", paddle.standard_normal([3]))
    show("uniform", paddle.uniform([4], min=-2.5, max=3.0))
    show("uniform f64", paddle.uniform([2], dtype="float64", min=-1.0, max=1.0))
    show("normal", paddle.normal(1.5, 2.0, [3]))
    show("randint", paddle.randint(-5, 17, [6]))
    show("randint wide", paddle.randint(0, 2**31 - 1, [2]))
    show("randint i32", paddle.randint(3, 9, [4], dtype="int32"))
    show("randperm 7", paddle.randperm(7))
    show("randperm 10", paddle.randperm(10))
    show("bernoulli", paddle.bernoulli(paddle.full([6], 0.5)))
    show("multinomial", paddle.multinomial(paddle.to_tensor([0.1, 0.2, 0.3, 0.4]), 4, True))

# uniform's seed argument: an engine of its own, the same every time
show("uniform seed=7", paddle.uniform([3], min=-1.0, max=1.0, seed=7))
show("uniform seed=7 again", paddle.uniform([3], min=-1.0, max=1.0, seed=7))

for bad in [lambda: paddle.randint(5, 5, [2]), lambda: paddle.randint(7, 2, [2])]:
    try:
        bad()
        print("no error")
    except ValueError:
        print("ValueError")

# paddle special functions, elementwise math and bitwise ops, as functions and Tensor methods.
import numpy as np
import paddle


def show(name, t):
    a = t.numpy()
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        print(name, t.dtype, t.shape, a.tolist())
    else:
        print(name, t.dtype, t.shape, np.round(a.astype("float64"), 4).tolist())


rng = np.random.RandomState(5)
x = paddle.to_tensor(rng.uniform(-0.9, 0.9, (2, 5)).astype("float32"))
pos = paddle.to_tensor(rng.uniform(0.2, 4.0, (2, 5)).astype("float32"))
big = paddle.to_tensor(rng.uniform(1.1, 5.0, (2, 5)))
for name in ["erf", "erfinv", "expm1", "log1p", "tan", "asin", "acos", "atan", "sinh", "cosh",
             "asinh", "atanh", "trunc", "frac"]:
    show(name, getattr(paddle, name)(x))
    show(name + "_m", getattr(x, name)())
for name in ["lgamma", "digamma", "log2", "log10"]:
    show(name, getattr(paddle, name)(pos))
    show(name + "_f64", getattr(paddle, name)(big))
show("acosh", paddle.acosh(big))
show("stanh", paddle.stanh(x))
show("stanh_ab", x.stanh(scale_a=1.2, scale_b=0.5))
show("logit", paddle.logit(paddle.to_tensor([0.1, 0.5, 0.8, 1.5])))
show("logit_eps", paddle.logit(paddle.to_tensor([0.01, 0.5, 0.99]), eps=0.1))
s = paddle.to_tensor([1.0, float("nan"), float("inf"), -float("inf"), -0.0, 3.5])
for name in ["isnan", "isinf", "isfinite"]:
    show(name, getattr(paddle, name)(s))
    show(name + "_int", getattr(paddle.to_tensor([1, 2]), name)())
show("nan_to_num", paddle.nan_to_num(s))
show("nan_to_num_args", paddle.nan_to_num(s, nan=1.5, posinf=9.0, neginf=-9.0))
a = paddle.to_tensor([[12, -7, 0], [5, 255, -1]])
b = paddle.to_tensor([6, 3, -4])
for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    show(name, getattr(paddle, name)(a, b))
    show(name + "_m", getattr(a, name)(b))
show("bitwise_not", paddle.bitwise_not(a))
show("gcd", paddle.gcd(a, b))
show("lcm", paddle.lcm(a, b))
show("gcd_m", a.gcd(paddle.to_tensor([[4], [10]])))
show("lcm_m", b.lcm(paddle.to_tensor(4)))
t = paddle.to_tensor([True, False, True])
u = paddle.to_tensor([True, True, False])
show("bitwise_and_bool", paddle.bitwise_and(t, u))
show("bitwise_not_bool", paddle.bitwise_not(t))
y = paddle.to_tensor(rng.uniform(-1, 1, (2, 5)).astype("float32"))
show("lerp", paddle.lerp(x, y, 0.3))
show("lerp_t", paddle.lerp(x, y, paddle.to_tensor([0.5], dtype="float32")))
show("heaviside", paddle.heaviside(paddle.to_tensor([-1.0, 0.0, 2.0]), paddle.to_tensor([0.5])))
f1 = paddle.to_tensor([1.0, float("nan"), 3.0, float("nan")])
f2 = paddle.to_tensor([2.0, 1.0, float("nan"), float("nan")])
show("fmax", paddle.fmax(f1, f2))
show("fmin", paddle.fmin(f1, f2))
show("isclose", paddle.isclose(paddle.to_tensor([1.0, 2.0, float("nan")]),
                               paddle.to_tensor([1.0 + 1e-9, 2.1, float("nan")])))
show("isclose_nan", paddle.isclose(paddle.to_tensor([1.0, float("nan")]),
                                   paddle.to_tensor([1.0, float("nan")]), equal_nan=True))
show("count_nonzero", paddle.count_nonzero(paddle.to_tensor([[0, 1, 2], [0, 0, 3]])))
show("count_nonzero_ax", paddle.count_nonzero(paddle.to_tensor([[0, 1, 2], [0, 0, 3]]), axis=1))
n = paddle.to_tensor([[1.0, float("nan"), 2.0], [float("nan"), float("nan"), 4.0]])
show("nansum", paddle.nansum(n))
show("nansum_ax", paddle.nansum(n, axis=0))
show("nanmean", paddle.nanmean(n, axis=1, keepdim=True))
show("logsumexp", paddle.logsumexp(x))
show("logsumexp_ax", paddle.logsumexp(x, axis=1))
show("logsumexp_kd", x.logsumexp(axis=[0], keepdim=True))
show("logsumexp_big", paddle.logsumexp(paddle.to_tensor([1000.0, 1000.0])))
show("diff", paddle.diff(paddle.to_tensor([1, 4, 9, 16, 25])))
show("diff2", paddle.diff(x, n=2, axis=1))
show("diff_pa", paddle.diff(paddle.to_tensor([1.0, 3.0]), prepend=paddle.to_tensor([0.0]),
                            append=paddle.to_tensor([10.0, 20.0])))
print("rank", paddle.rank(x).numpy(), "is_empty", paddle.is_empty(x).numpy(),
      paddle.is_empty(paddle.zeros([0, 3])).numpy())

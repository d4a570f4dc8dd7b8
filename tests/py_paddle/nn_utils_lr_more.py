# paddle.nn.utils (parameters <-> vector, in-place gradient clipping, weight_norm and its
# removal), Layer.__delattr__ and the schedulers OneCycleLR, CyclicLR, LinearLR and
# CosineAnnealingWarmRestarts. Values printed with 5 decimals.
import numpy as np
import paddle
from paddle.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                             remove_weight_norm, vector_to_parameters, weight_norm)
from paddle.optimizer import lr


def r(t):
    return ["%.5f" % v for v in np.asarray(t.numpy(), dtype="float64").ravel()]


lin = paddle.nn.Linear(3, 2)
lin.weight.set_value(paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2) - 2))
lin.bias.set_value(paddle.to_tensor([0.5, -0.5]))
x = paddle.to_tensor([[1.0, 2.0, 3.0]])
vec = parameters_to_vector(lin.parameters())
print("vector", vec.shape, r(vec))
other = paddle.nn.Linear(3, 2)
vector_to_parameters(vec * 2, other.parameters())
print("copied", r(other.weight), r(other.bias))
try:
    vector_to_parameters(vec[:3], other.parameters())
except ValueError:
    print("ValueError")

for dim in (0, 1, None):
    m = paddle.nn.Linear(3, 2)
    m.weight.set_value(lin.weight)
    weight_norm(m, dim=dim)
    print("weight_norm dim", dim, sorted(n for n, _ in m.named_parameters()),
          m.weight_g.shape, r(m.weight_g), r(m(x)))
    try:
        weight_norm(m, dim=dim)
    except RuntimeError as e:
        print("RuntimeError", e)
    remove_weight_norm(m)
    print("removed", sorted(n for n, _ in m.named_parameters()), r(m(x)))
    try:
        remove_weight_norm(m)
    except ValueError as e:
        print("ValueError", e)
conv = paddle.nn.Conv2D(2, 3, 2)
conv.weight.set_value(paddle.reshape(paddle.arange(24, dtype="float32") / 10 - 1, [3, 2, 2, 2]))
weight_norm(conv, dim=1)
print("conv weight_g", conv.weight_g.shape, r(conv.weight_g))
img = paddle.reshape(paddle.arange(18, dtype="float32") / 9, [1, 2, 3, 3])
print("conv out", r(conv(img)))

loss = (lin(x) ** 2).sum()
loss.backward()
print("norm", r(clip_grad_norm_(lin.parameters(), 1.0)))
print("clipped", r(lin.weight.grad), r(lin.bias.grad))
print("inf norm", r(clip_grad_norm_(lin.parameters(), 0.05, norm_type=float("inf"))))
print("clipped", r(lin.weight.grad), r(lin.bias.grad))
clip_grad_value_(lin.parameters(), 0.02)
print("by value", r(lin.weight.grad), r(lin.bias.grad))
print("no grads", r(clip_grad_norm_(paddle.nn.Linear(2, 2).parameters(), 1.0)))

lin.extra = 3
del lin.extra
del lin.bias
lin.buf = paddle.ones([2])
delattr(lin, "buf")
print("after del", [n for n, _ in lin.named_parameters()], lin.buffers())
try:
    del lin.nothing
except AttributeError as e:
    print("AttributeError", e)


def seq(name, s, n=12):
    out = []
    for _ in range(n):
        out.append(round(s(), 6))
        s.step()
    print(name, out, s.last_epoch)


seq("OneCycleLR", lr.OneCycleLR(0.1, total_steps=12))
seq("OneCycleLR linear 3", lr.OneCycleLR(0.1, total_steps=12, anneal_strategy="linear",
                                         three_phase=True, phase_pct=0.25))
seq("CyclicLR", lr.CyclicLR(0.01, 0.1, step_size_up=3))
seq("CyclicLR triangular2", lr.CyclicLR(0.01, 0.1, step_size_up=2, step_size_down=3,
                                         mode="triangular2"))
seq("CyclicLR exp_range", lr.CyclicLR(0.01, 0.1, step_size_up=2, mode="exp_range",
                                       exp_gamma=0.9))
seq("LinearLR", lr.LinearLR(0.5, total_steps=6))
seq("LinearLR factors", lr.LinearLR(0.5, total_steps=4, start_factor=0.5, end_factor=0.1))
seq("CosineAnnealingWarmRestarts", lr.CosineAnnealingWarmRestarts(0.1, T_0=3, T_mult=2,
                                                                  eta_min=0.01))
s = lr.CosineAnnealingWarmRestarts(0.1, T_0=3, T_mult=2)
s.step(7)
print("warm restarts epoch 7", round(s(), 6), s.T_i, s.T_cur)
for name, fn in [("OneCycleLR steps", lambda: lr.OneCycleLR(0.1, total_steps=0)),
                 ("OneCycleLR strategy", lambda: lr.OneCycleLR(0.1, 10, anneal_strategy="x")),
                 ("CyclicLR mode", lambda: lr.CyclicLR(0.01, 0.1, 2, mode="x")),
                 ("LinearLR factor", lambda: lr.LinearLR(0.1, 4, start_factor=0)),
                 ("WarmRestarts T_0", lambda: lr.CosineAnnealingWarmRestarts(0.1, 0))]:
    try:
        fn()
    except (ValueError, TypeError) as e:
        print(name, type(e).__name__, e)

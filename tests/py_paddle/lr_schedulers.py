# Every paddle.optimizer.lr scheduler: the learning rates of 20 steps, state_dict round trips,
# bad arguments. Rates printed rounded to 8 decimals.
import paddle
from paddle.optimizer import lr


def seq(name, s, n=20, metric=None):
    out = []
    for i in range(n):
        out.append(round(s(), 8))
        if metric is None:
            s.step()
        else:
            s.step(metric[i])
    print(name, out, s.last_epoch)


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, (str(e).splitlines() or [""])[0][:150])


seq("StepDecay", lr.StepDecay(0.5, step_size=3, gamma=0.5))
seq("MultiStepDecay", lr.MultiStepDecay(0.5, milestones=[2, 5, 11], gamma=0.3))
seq("ExponentialDecay", lr.ExponentialDecay(0.5, gamma=0.9))
seq("NaturalExpDecay", lr.NaturalExpDecay(0.5, gamma=0.1))
seq("InverseTimeDecay", lr.InverseTimeDecay(0.5, gamma=0.2))
seq("PolynomialDecay", lr.PolynomialDecay(0.5, decay_steps=8, end_lr=0.01, power=2.0))
seq("PolynomialDecay cycle", lr.PolynomialDecay(0.5, decay_steps=6, end_lr=0.0, cycle=True))
seq("PiecewiseDecay", lr.PiecewiseDecay(boundaries=[3, 7, 12], values=[1.0, 0.5, 0.1, 0.01]))
seq("CosineAnnealingDecay", lr.CosineAnnealingDecay(0.5, T_max=6, eta_min=0.05))
seq("LinearWarmup", lr.LinearWarmup(0.5, warmup_steps=5, start_lr=0.0, end_lr=0.5))
seq("LinearWarmup sched", lr.LinearWarmup(lr.StepDecay(0.4, 2, 0.5), warmup_steps=4,
                                          start_lr=0.01, end_lr=0.4))
seq("LambdaDecay", lr.LambdaDecay(0.5, lambda e: 0.95 ** e))
seq("MultiplicativeDecay", lr.MultiplicativeDecay(0.5, lambda e: 0.9))
seq("NoamDecay", lr.NoamDecay(d_model=64, warmup_steps=5, learning_rate=2.0))
losses = [1.0, 0.9, 0.95, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.5, 0.6, 0.7,
          0.8, 0.9, 1.0, 1.1, 1.2]
seq("ReduceOnPlateau", lr.ReduceOnPlateau(0.5, patience=2, factor=0.5, cooldown=1), metric=losses)
seq("ReduceOnPlateau max abs", lr.ReduceOnPlateau(0.5, mode="max", patience=1, factor=0.2,
                                                  threshold=0.05, threshold_mode="abs",
                                                  min_lr=0.03), metric=losses)
seq("ReduceOnPlateau tensor", lr.ReduceOnPlateau(0.5, patience=0),
    metric=[paddle.to_tensor(v) for v in losses])

s = lr.StepDecay(0.5, step_size=2)
for _ in range(5):
    s.step()
print("state", s.state_dict())
t = lr.StepDecay(0.5, step_size=2)
t.set_state_dict(s.state_dict())
print("restored", t.last_epoch, t(), t.state_dict())
c = lr.CosineAnnealingDecay(0.5, T_max=4)
c.step(7)
print("closed form", round(c(), 8), c.last_epoch)
w = lr.LinearWarmup(lr.StepDecay(0.4, 2, 0.5), warmup_steps=2, start_lr=0.0, end_lr=0.4)
for _ in range(6):
    w.step()
print("warmup state", w.state_dict())
r = lr.ReduceOnPlateau(0.5, patience=0)
r.step(1.0)
r.step(2.0)
print("plateau state", r.state_dict())
print("base", s.base_lr, s.last_lr, isinstance(s, lr.LRScheduler))

err("StepDecay step_size", lambda: lr.StepDecay(0.5, step_size=2.0))
err("StepDecay gamma", lambda: lr.StepDecay(0.5, step_size=2, gamma=1.5))
err("MultiStepDecay order", lambda: lr.MultiStepDecay(0.5, milestones=[5, 2]))
err("MultiStepDecay type", lambda: lr.MultiStepDecay(0.5, milestones=3))
err("PiecewiseDecay empty", lambda: lr.PiecewiseDecay([], [1.0]))
err("PiecewiseDecay values", lambda: lr.PiecewiseDecay([2, 3], [1.0, 0.5]))
err("CosineAnnealingDecay T_max", lambda: lr.CosineAnnealingDecay(0.5, T_max=2.5))
err("LambdaDecay", lambda: lr.LambdaDecay(0.5, 3))
err("ReduceOnPlateau mode", lambda: lr.ReduceOnPlateau(0.5, mode="avg"))
err("ReduceOnPlateau factor", lambda: lr.ReduceOnPlateau(0.5, factor=2.0))
err("ReduceOnPlateau threshold_mode", lambda: lr.ReduceOnPlateau(0.5, threshold_mode="x"))
err("ReduceOnPlateau metric", lambda: lr.ReduceOnPlateau(0.5).step("x"))
err("LRScheduler lr", lambda: lr.StepDecay("0.5", 2))
err("set_state_dict", lambda: lr.StepDecay(0.5, 2).set_state_dict({"last_epoch": 3}))
err("get_lr", lambda: lr.LRScheduler(0.1))

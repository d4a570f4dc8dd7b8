# The optimizers of paddle.optimizer on Linear layers whose gradients are set by hand
# (Tensor._set_grad_ivar), three steps each: every option, weight decay and gradient clipping,
# param groups, learning-rate schedulers, clear_grad, state_dict round trips, bad arguments.
# Weights printed rounded to 5 decimals (tolerance 1e-5).
import os
import tempfile

import numpy as np
import paddle

W0 = (np.sin(np.arange(6) * 0.9) * 0.8 + 0.3).reshape(3, 2).astype("float32")
B0 = np.array([0.2, -0.4], dtype="float32")
GW = (np.cos(np.arange(6) * 1.3) * 0.6).reshape(3, 2).astype("float32")
GB = np.array([0.3, -0.5], dtype="float32")


def linear():
    return paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Assign(W0),
                            bias_attr=paddle.nn.initializer.Assign(B0))


def set_grads(m, k):
    m.weight._set_grad_ivar(paddle.to_tensor(GW * (1.0 + 0.5 * k)))
    m.bias._set_grad_ivar(paddle.to_tensor(GB * (1.0 - 0.3 * k)))


def show(name, m):
    print(name, np.round(m.weight.numpy().astype("float64"), 5).tolist(),
          np.round(m.bias.numpy().astype("float64"), 5).tolist())


def run(name, make, steps=3, sched=None):
    m = linear()
    opt = make(m.parameters())
    for k in range(steps):
        set_grads(m, k)
        opt.step()
        if sched is not None:
            sched.step()
    show(name, m)
    return m, opt


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, (str(e).splitlines() or [""])[0][:150])


O = paddle.optimizer
run("SGD", lambda ps: O.SGD(0.1, parameters=ps))
run("SGD l2", lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.05))
run("SGD L2Decay", lambda ps: O.SGD(0.1, parameters=ps, weight_decay=paddle.regularizer.L2Decay(0.2)))
run("SGD L1Decay", lambda ps: O.SGD(0.1, parameters=ps, weight_decay=paddle.regularizer.L1Decay(0.2)))
run("SGD clip value", lambda ps: O.SGD(0.1, parameters=ps, grad_clip=paddle.nn.ClipGradByValue(0.3)))
run("SGD clip value min", lambda ps: O.SGD(0.1, parameters=ps, grad_clip=paddle.nn.ClipGradByValue(0.3, min=-0.1)))
run("SGD clip norm", lambda ps: O.SGD(0.1, parameters=ps, grad_clip=paddle.nn.ClipGradByNorm(0.5)))
run("SGD clip global", lambda ps: O.SGD(0.1, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)))
run("SGD clip global+l2", lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.1, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)))
run("Momentum", lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps))
run("Momentum nesterov", lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps, use_nesterov=True))
run("Momentum l2", lambda ps: O.Momentum(0.1, parameters=ps, weight_decay=0.1))
run("Momentum L1", lambda ps: O.Momentum(0.1, parameters=ps, weight_decay=paddle.regularizer.L1Decay(0.1)))
run("Momentum rescale", lambda ps: O.Momentum(0.1, parameters=ps, rescale_grad=0.5))
run("Adam", lambda ps: O.Adam(0.01, parameters=ps))
run("Adam betas", lambda ps: O.Adam(0.01, beta1=0.5, beta2=0.9, epsilon=1e-3, parameters=ps))
run("Adam l2", lambda ps: O.Adam(0.01, parameters=ps, weight_decay=0.1))
run("Adam clip", lambda ps: O.Adam(0.01, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.2)))
run("AdamW", lambda ps: O.AdamW(0.01, parameters=ps))
run("AdamW decay", lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.3))
run("AdamW apply_decay", lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.3,
                                            apply_decay_param_fun=lambda n: "w_" in n))
run("RMSProp", lambda ps: O.RMSProp(0.01, parameters=ps))
run("RMSProp centered", lambda ps: O.RMSProp(0.01, rho=0.9, epsilon=1e-4, momentum=0.5, centered=True, parameters=ps))
run("Adagrad", lambda ps: O.Adagrad(0.1, parameters=ps))
run("Adagrad init", lambda ps: O.Adagrad(0.1, epsilon=1e-3, initial_accumulator_value=0.5, parameters=ps))
run("Lamb", lambda ps: O.Lamb(0.01, parameters=ps))
run("Lamb wd", lambda ps: O.Lamb(0.01, lamb_weight_decay=0.1, beta1=0.8, parameters=ps))
run("Lamb no wd", lambda ps: O.Lamb(0.01, lamb_weight_decay=0.0, parameters=ps))
run("Lamb always_adapt", lambda ps: O.Lamb(0.01, lamb_weight_decay=0.0, always_adapt=True, parameters=ps))
run("Lamb exclude", lambda ps: O.Lamb(0.01, parameters=ps, exclude_from_weight_decay_fn=lambda p: len(p.shape) == 1))

sched = O.lr.StepDecay(0.1, step_size=1, gamma=0.5)
m, opt = run("SGD StepDecay", lambda ps: O.SGD(sched, parameters=ps), sched=sched)
print("get_lr", opt.get_lr(), sorted(opt.state_dict().keys()), opt.state_dict()["LR_Scheduler"])
sched2 = O.lr.LinearWarmup(0.05, warmup_steps=2, start_lr=0.0, end_lr=0.05)
run("Adam LinearWarmup", lambda ps: O.Adam(sched2, parameters=ps), sched=sched2)

# param groups: a group's learning_rate multiplies the optimizer's; weight_decay per group
m = linear()
opt = O.Momentum(0.1, parameters=[{"params": [m.weight]},
                                  {"params": [m.bias], "learning_rate": 0.5, "weight_decay": 0.2}])
for k in range(3):
    set_grads(m, k)
    opt.step()
show("Momentum groups", m)
m = linear()
opt = O.Adam(0.01, parameters=[{"params": [m.weight], "weight_decay": paddle.regularizer.L1Decay(0.1)},
                               {"params": [m.bias], "learning_rate": 2.0}])
for k in range(3):
    set_grads(m, k)
    opt.step()
show("Adam groups", m)

# get_lr / set_lr, clear_grad, minimize
m = linear()
opt = O.SGD(0.1, parameters=m.parameters())
print("lr", opt.get_lr())
opt.set_lr(0.2)
print("lr", opt.get_lr())
set_grads(m, 0)
opt.minimize(paddle.to_tensor(0.0))
show("minimize", m)
opt.clear_grad()
opt.step()
show("after clear_grad", m)
opt.clear_grad(set_to_zero=False)
opt.step()
show("after clear_grad(False)", m)
m.weight.stop_gradient = True
set_grads(m, 1)
opt.step()
show("frozen weight", m)

# state_dict round trip, through paddle.save / paddle.load
m = linear()
opt = O.Adam(0.01, parameters=m.parameters())
for k in range(2):
    set_grads(m, k)
    opt.step()
sd = opt.state_dict()
for k in sorted(sd.keys()):
    print(k, list(sd[k].shape), np.round(sd[k].numpy().astype("float64").ravel(), 6).tolist()[:3])
tmp = tempfile.mkdtemp()
paddle.save(sd, os.path.join(tmp, "adam.pdopt"))
loaded = paddle.load(os.path.join(tmp, "adam.pdopt"))
saved = {k: paddle.to_tensor(v.numpy()) for k, v in m.state_dict().items()}
set_grads(m, 2)
opt.step()
show("continued", m)
m.set_state_dict(saved)
opt.set_state_dict(loaded)
opt.step()
show("restored", m)
print("restored keys", sorted(opt.state_dict().keys()) == sorted(sd.keys()))
# a scheduler's state travels in the optimizer's state_dict
sch = O.lr.StepDecay(0.1, step_size=2)
opt4 = O.SGD(sch, parameters=linear().parameters())
for _ in range(3):
    sch.step()
sch2 = O.lr.StepDecay(0.1, step_size=2)
opt5 = O.SGD(sch2, parameters=linear().parameters())
opt5.set_state_dict(opt4.state_dict())
print("scheduler restored", sch2.last_epoch, sch2(), opt5.get_lr())
# the update writes into the parameter's storage: the state_dict's tensors see it
m3 = linear()
keep = m3.state_dict()["weight"]
opt3 = O.SGD(0.5, parameters=m3.parameters())
set_grads(m3, 0)
opt3.step()
print("alias", np.round(keep.numpy().astype("float64"), 5).tolist())

err("no parameters", lambda: O.SGD(0.1))
err("lr type", lambda: O.SGD("0.1", parameters=linear().parameters()))
err("lr int", lambda: O.SGD(1, parameters=linear().parameters()))
err("set_lr sched", lambda: O.SGD(O.lr.StepDecay(0.1, 2), parameters=linear().parameters()).set_lr(0.3))
err("set_lr type", lambda: O.SGD(0.1, parameters=linear().parameters()).set_lr("x"))
err("Adam beta1", lambda: O.Adam(0.1, beta1=1.5, parameters=linear().parameters()))
err("Adam beta2", lambda: O.Adam(0.1, beta2=-0.5, parameters=linear().parameters()))
err("Adam epsilon", lambda: O.Adam(0.1, epsilon=-1.0, parameters=linear().parameters()))
err("RMSProp rho", lambda: O.RMSProp(0.1, rho=-1.0, parameters=linear().parameters()))
err("RMSProp momentum", lambda: O.RMSProp(0.1, momentum=-1.0, parameters=linear().parameters()))
err("Momentum none", lambda: O.Momentum(None, parameters=linear().parameters()))
err("groups overlap", lambda: O.SGD(0.1, parameters=[{"params": linear().parameters()}] * 2))
try:
    O.SGD(0.1, parameters=linear().weight)
except TypeError as e:
    print("tensor parameters", str(e)[:100])
err("AdamW lr_ratio", lambda: O.AdamW(0.05, parameters=linear().parameters(), lr_ratio=lambda p: 0.5))
err("grad_clip type", lambda: O.SGD(0.1, parameters=linear().parameters(), grad_clip=1.0))
print(paddle.nn.ClipGradByValue(0.5), "|", paddle.nn.ClipGradByNorm(0.5), "|", paddle.nn.ClipGradByGlobalNorm(1.5))
print(paddle.regularizer.L1Decay(0.25), "|", paddle.regularizer.L2Decay(0.5))

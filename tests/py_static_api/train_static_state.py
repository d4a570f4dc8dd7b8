# Static-graph training state: minimize returns (update ops, [(param, param@GRAD)]); ParamAttr
# regularizer (L2Decay, L1Decay) and learning_rate multipliers, optimizer weight_decay as a float
# or an L2Decay, and the three gradient clips, in static and dygraph training; the startup
# Program initialises the parameters (running it again resets them); Layer.set_state_dict,
# Program.set_state_dict and paddle.static.set_program_state after exe.run(startup) reach the
# executor; Program.state_dict, paddle.static.save/load_program_state. Losses are
# printed with 5 decimals (tolerance 1e-5), weights with 4 (1e-4); all start from Assign/Constant
# initializers.
import os

import numpy as np
import paddle

w1 = (np.sin(np.arange(12, dtype="float32") * 0.37) * 0.5).reshape(4, 3)
w2 = (np.cos(np.arange(6, dtype="float32") * 0.21) * 0.4).reshape(3, 2)
xv = np.linspace(-1.0, 1.0, 20).astype("float32").reshape(5, 4)
yv = np.linspace(0.5, -0.5, 10).astype("float32").reshape(5, 2)


def show(name, a):
    # weights: 4 decimals (tolerance 1e-4; float32 sums sit on 5-decimal rounding boundaries)
    print(name, list(np.asarray(a).shape), " ".join("%.4f" % v for v in np.asarray(a).ravel()))


def attrs(reg1, lr1, reg2):
    a1 = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w1), regularizer=reg1,
                          learning_rate=lr1)
    a2 = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w2), regularizer=reg2)
    b = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))
    return a1, a2, b


CASES = [
    ("sgd_attr", lambda: paddle.optimizer.SGD(0.2),
     (paddle.regularizer.L2Decay(0.05), 2.0, paddle.regularizer.L1Decay(0.02))),
    ("sgd_wd_float", lambda: paddle.optimizer.SGD(0.2, weight_decay=0.01), (None, 1.0, None)),
    ("momentum_attr_wd", lambda: paddle.optimizer.Momentum(
        0.1, momentum=0.9, weight_decay=paddle.regularizer.L2Decay(0.01)),
     (paddle.regularizer.L2Decay(0.1), 0.5, paddle.regularizer.L1Decay(0.03))),
    ("adam_global_clip", lambda: paddle.optimizer.Adam(
        0.05, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.3)),
     (paddle.regularizer.L2Decay(0.05), 3.0, None)),
    ("sgd_norm_clip", lambda: paddle.optimizer.SGD(
        0.3, grad_clip=paddle.nn.ClipGradByNorm(0.2)), (None, 1.0, None)),
    ("rmsprop_value_clip", lambda: paddle.optimizer.RMSProp(
        0.01, grad_clip=paddle.nn.ClipGradByValue(0.05), weight_decay=0.02),
     (None, 1.5, paddle.regularizer.L2Decay(0.04))),
    ("adamw_attr", lambda: paddle.optimizer.AdamW(0.05, weight_decay=0.1),
     (paddle.regularizer.L1Decay(0.05), 2.0, None)),
]


def static_train(tag, make_opt, regs):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 2], dtype="float32")
        a1, a2, b = attrs(*regs)
        h = paddle.static.nn.fc(x, 3, activation="tanh", weight_attr=a1, bias_attr=b)
        out = paddle.static.nn.fc(h, 2, weight_attr=a2, bias_attr=False)
        loss = paddle.nn.functional.mse_loss(out, y)
        ops, params_grads = make_opt().minimize(loss)
    print(tag, "static update ops", [op.type for op in ops if op.type != "scale"])
    print(tag, "static grads", [(p.name, g.name) for p, g in params_grads])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    first = None
    for step in range(4):
        l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
        first = float(l) if first is None else first
        print(tag, "static step", step, "%.5f" % float(l))
    for p, _ in params_grads:
        show(tag + " static " + p.name, np.array(paddle.static.global_scope().find_var(
            p.name).get_tensor()))
    # the startup Program again: the parameters and the optimizer state start over
    exe.run(startup)
    l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
    print(tag, "after startup again, first loss repeats:", abs(float(l) - first) < 1e-6)
    return main, startup, exe, loss, params_grads


def dygraph_train(tag, make_opt_params, regs):
    paddle.disable_static()
    a1, a2, b = attrs(*regs)
    l1 = paddle.nn.Linear(4, 3, weight_attr=a1, bias_attr=b)
    l2 = paddle.nn.Linear(3, 2, weight_attr=a2, bias_attr=False)
    opt = make_opt_params(l1.parameters() + l2.parameters())
    x, y = paddle.to_tensor(xv), paddle.to_tensor(yv)
    for step in range(4):
        loss = paddle.nn.functional.mse_loss(l2(paddle.tanh(l1(x))), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        print(tag, "dygraph step", step, "%.5f" % float(loss))
    show(tag + " dygraph w1", l1.weight.numpy())
    show(tag + " dygraph w2", l2.weight.numpy())


def with_params(make_opt):
    def make(params):
        opt = make_opt()
        opt._parameter_list = list(params)
        return opt
    return make


for tag, make_opt, regs in CASES:
    static_train(tag, make_opt, regs)

paddle.disable_static()
dy_cases = [
    ("sgd_attr", lambda ps: paddle.optimizer.SGD(0.2, parameters=ps),
     (paddle.regularizer.L2Decay(0.05), 2.0, paddle.regularizer.L1Decay(0.02))),
    ("momentum_attr_wd", lambda ps: paddle.optimizer.Momentum(
        0.1, momentum=0.9, parameters=ps, weight_decay=paddle.regularizer.L2Decay(0.01)),
     (paddle.regularizer.L2Decay(0.1), 0.5, paddle.regularizer.L1Decay(0.03))),
    ("adam_global_clip", lambda ps: paddle.optimizer.Adam(
        0.05, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.3)),
     (paddle.regularizer.L2Decay(0.05), 3.0, None)),
    ("adamw_attr", lambda ps: paddle.optimizer.AdamW(0.05, parameters=ps, weight_decay=0.1),
     (paddle.regularizer.L1Decay(0.05), 2.0, None)),
]
for tag, make, regs in dy_cases:
    dygraph_train(tag, make, regs)

# state: set after exe.run(startup), seen by the next run
main, startup, exe, loss, params_grads = static_train(
    "state", lambda: paddle.optimizer.Adam(0.05), (None, 1.0, None))
names = [p.name for p, _ in params_grads]  # w1, b1, w2
sd = main.state_dict()
print("state_dict keys", len(sd), "params", sorted(main.state_dict("param").keys()) == sorted(names))
print("opt keys", len(main.state_dict("opt")))
main.set_state_dict({names[0]: np.full(w1.shape, 0.25, "float32")})
l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
print("after Program.set_state_dict %.5f" % float(l))
paddle.static.set_program_state(main, {names[2]: np.full(w2.shape, -0.3, "float32")})
l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
print("after set_program_state %.5f" % float(l))
paddle.static.save(main, "ckpt/state")
print("saved", [f for f in sorted(os.listdir("ckpt")) if not f.endswith(".pdmodel")])
for _ in range(2):
    l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
print("trained on %.5f" % float(l))
st = paddle.static.load_program_state("ckpt/state")
print("loaded keys", len(st), sorted(k for k in st if k in names) == sorted(names))
paddle.static.set_program_state(main, st)
l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
print("restored %.5f" % float(l))

# a Layer made in static mode: its set_state_dict after the startup run reaches the executor
m2, s2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(m2, s2):
    x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
    lin = paddle.nn.Linear(4, 2)
    out = lin(x)
exe.run(s2)
lin.set_state_dict({"weight": w1[:, :2].copy(), "bias": np.array([0.5, -0.5], "float32")})
o, = exe.run(m2, feed={"x": xv}, fetch_list=[out])
show("layer set_state_dict", o)

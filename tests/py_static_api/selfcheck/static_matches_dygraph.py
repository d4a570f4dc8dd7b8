# Static training with minimize follows the dygraph optimizers step for step: parameter groups
# with their own learning-rate factor, a scheduler stepped between runs, weight decay and
# global-norm clipping give the same losses in both modes (the dygraph path is checked against
# Paddle elsewhere). Checks its own results.
import numpy as np
import paddle

xv = np.linspace(-1.0, 1.0, 12).astype("float32").reshape(4, 3)
yv = np.linspace(0.5, -0.5, 8).astype("float32").reshape(4, 2)


def net():
    init = paddle.nn.initializer.Assign
    w1 = (np.sin(np.arange(12, dtype="float32")) * 0.5).reshape(3, 4)
    w2 = (np.cos(np.arange(8, dtype="float32")) * 0.5).reshape(4, 2)
    return (paddle.nn.Linear(3, 4, weight_attr=paddle.ParamAttr(initializer=init(w1))),
            paddle.nn.Linear(4, 2, weight_attr=paddle.ParamAttr(initializer=init(w2))))


def optimizer(kind, l1, l2):
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.2, step_size=1, gamma=0.5)
    groups = [{"params": l1.parameters()}, {"params": l2.parameters(), "learning_rate": 0.5}]
    if kind == "sgd":
        return paddle.optimizer.SGD(learning_rate=sched, parameters=groups,
                                    weight_decay=0.05), sched
    if kind == "momentum":
        return paddle.optimizer.Momentum(learning_rate=sched, momentum=0.9, parameters=groups,
                                         weight_decay=paddle.regularizer.L1Decay(0.01)), sched
    return paddle.optimizer.Adam(learning_rate=sched, parameters=groups,
                                 grad_clip=paddle.nn.ClipGradByGlobalNorm(0.3),
                                 weight_decay=paddle.regularizer.L2Decay(0.02)), sched


def loss_of(l1, l2, x, y):
    return paddle.nn.functional.mse_loss(paddle.tanh(l2(paddle.nn.functional.relu(l1(x)))), y)


def dygraph(kind, steps=4):
    l1, l2 = net()
    opt, sched = optimizer(kind, l1, l2)
    out = []
    for _ in range(steps):
        loss = loss_of(l1, l2, paddle.to_tensor(xv), paddle.to_tensor(yv))
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
        out.append(float(loss))
    return out


def static(kind, steps=4):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 2], dtype="float32")
        l1, l2 = net()
        loss = loss_of(l1, l2, x, y)
        opt, sched = optimizer(kind, l1, l2)
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    out = []
    for _ in range(steps):
        out.append(float(exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]))
        sched.step()
    paddle.disable_static()
    return out


for kind in ("sgd", "momentum", "adam"):
    d, s = dygraph(kind), static(kind)
    assert np.allclose(d, s, atol=1e-6), (kind, d, s)
    assert d[-1] < d[0], (kind, d)
print("selfcheck OK")

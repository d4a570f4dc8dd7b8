# Static-graph training with an LR scheduler (the learning-rate variable takes the scheduler's
# value on every run, scheduler.step() by hand as in Paddle), weight decay (L2Decay, a float, and
# Momentum's fused L2) and gradient clipping by global norm and by value. Weights from Assign
# initializers; losses and final weights with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
w1 = (np.sin(np.arange(12, dtype="float32") * 0.53) * 0.6).reshape(4, 3)
xv = np.linspace(-1.0, 1.5, 20).astype("float32").reshape(5, 4)
yv = np.linspace(0.5, -0.5, 15).astype("float32").reshape(5, 3)


def train(make_opt, tag, steps=4):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 3], dtype="float32")
        out = paddle.static.nn.fc(
            x, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w1)),
            bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.05)))
        loss = paddle.nn.functional.mse_loss(paddle.tanh(out), y)
        opt, sched = make_opt()
        _, params_grads = opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for step in range(steps):
        l, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
        lr = "" if sched is None else " lr %.5f" % sched.get_lr()
        print(tag, "step", step, "loss %.5f" % float(l) + lr)
        if sched is not None:
            sched.step()
    for i, (p, _) in enumerate(params_grads):
        v = np.array(paddle.static.global_scope().find_var(p.name).get_tensor())
        print(tag, "param", i, list(v.shape), " ".join("%.5f" % e for e in v.ravel()))


def step_decay():
    s = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5)
    return paddle.optimizer.SGD(learning_rate=s), s


def adam_l2_clip():
    return paddle.optimizer.Adam(learning_rate=0.05, weight_decay=paddle.regularizer.L2Decay(0.1),
                                 grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)), None


def momentum_fused_l2():
    return paddle.optimizer.Momentum(learning_rate=0.2, momentum=0.8, weight_decay=0.05,
                                     use_nesterov=True), None


def adamw_clip_value():
    s = paddle.optimizer.lr.ExponentialDecay(learning_rate=0.1, gamma=0.7)
    return paddle.optimizer.AdamW(learning_rate=s, weight_decay=0.02,
                                  grad_clip=paddle.nn.ClipGradByValue(0.05)), s


train(step_decay, "sgd+StepDecay")
train(adam_l2_clip, "adam+L2+GlobalNorm")
train(momentum_fused_l2, "momentum+nesterov+L2")
train(adamw_clip_value, "adamw+ExponentialDecay+ClipByValue")

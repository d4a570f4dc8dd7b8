# Static-graph training: optimizer.minimize(loss) appends the backward and the update ops to the
# main Program; exe.run(startup) then 5 runs of exe.run(main, feed, fetch_list=[loss]) train an
# MLP with SGD, Momentum and Adam (weights from Assign initializers, no RNG). Per-step losses
# and the final weights are printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
w1 = (np.sin(np.arange(32, dtype="float32") * 0.37) * 0.5).reshape(4, 8)
w2 = (np.cos(np.arange(24, dtype="float32") * 0.21) * 0.4).reshape(8, 3)
xv = np.linspace(-1.0, 1.0, 24).astype("float32").reshape(6, 4)
lv = np.array([[0], [2], [1], [1], [0], [2]], dtype="int64")


def show(name, a):
    print(name, list(a.shape), " ".join("%.5f" % v for v in np.asarray(a).ravel()))


def train(make_opt, tag):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
        h = paddle.static.nn.fc(
            x, 8, activation="relu",
            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w1)),
            bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)))
        logits = paddle.static.nn.fc(
            h, 3,
            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w2)),
            bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(-0.2)))
        loss = paddle.nn.functional.cross_entropy(logits, label)
        test_prog = main.clone(for_test=True)
        opt = make_opt()
        ops, params_grads = opt.minimize(loss)
    print(tag, "params with gradients:", len(params_grads))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for step in range(5):
        l, = exe.run(main, feed={"x": xv, "label": lv}, fetch_list=[loss])
        print(tag, "step", step, "loss", l.shape, l.dtype, "%.5f" % float(l))
    # the evaluation Program leaves the weights alone: the same loss twice
    for _ in range(2):
        l, = exe.run(test_prog, feed={"x": xv, "label": lv}, fetch_list=[loss])
        print(tag, "eval loss %.5f" % float(l))
    # the trained parameters, fetched by name and read from the global scope
    scope = paddle.static.global_scope()
    for i, (p, g) in enumerate(params_grads):
        v, = exe.run(test_prog, feed={"x": xv, "label": lv}, fetch_list=[p.name])
        show("%s param %d" % (tag, i), v)
        print("  scope holds the same:", np.array_equal(np.array(scope.find_var(p.name).get_tensor()), v))
    return main, x, logits, exe


train(lambda: paddle.optimizer.SGD(learning_rate=0.1), "sgd")
train(lambda: paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9), "momentum")
main, x, logits, exe = train(lambda: paddle.optimizer.Adam(learning_rate=0.05), "adam")

# the trained weights go into the inference model
paddle.static.save_inference_model("trained/mlp", [x], [logits], exe, program=main)
prog, feeds, fetches = paddle.static.load_inference_model("trained/mlp", exe)
print("feeds", feeds)
out, = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
show("inference logits", out)

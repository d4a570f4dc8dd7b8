# Evaluation between training steps: a Program cloned for test shares its parameters with the
# training Program, so each Executor.run of it must see the weights the last step wrote, also
# when it runs again with a fetch list it ran with before (dy2st keeps the pruned and prepared
# copy for a fetch list) and when fetch lists alternate. The same with the test Program
# compiled with a BuildStrategy (its fusions). An MLP with SGD, weights from Assign
# initializers (no RNG); values printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
w1 = (np.sin(np.arange(32, dtype="float32") * 0.37) * 0.5).reshape(4, 8)
w2 = (np.cos(np.arange(24, dtype="float32") * 0.21) * 0.4).reshape(8, 3)
xv = np.linspace(-1.0, 1.0, 24).astype("float32").reshape(6, 4)
lv = np.array([[0], [2], [1], [1], [0], [2]], dtype="int64")


def show(name, a):
    print(name, list(a.shape), " ".join("%.5f" % v for v in np.asarray(a).ravel()))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
    label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
    h = paddle.static.nn.fc(
        x, 8,
        weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w1)),
        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)))
    h = paddle.nn.functional.relu(h)
    logits = paddle.static.nn.fc(
        h, 3,
        weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w2)),
        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(-0.2)))
    prob = paddle.nn.functional.softmax(logits)
    loss = paddle.nn.functional.cross_entropy(logits, label)
    test_prog = main.clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)

strategy = paddle.static.BuildStrategy()
strategy.fuse_elewise_add_act_ops = True
strategy.fuse_gemm_epilogue = True
compiled = paddle.static.CompiledProgram(test_prog.clone(), build_strategy=strategy)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"x": xv, "label": lv}
for step in range(4):
    l, = exe.run(test_prog, feed=feed, fetch_list=[loss])
    print("step", step, "eval loss %.5f" % float(l))
    p, l2 = exe.run(test_prog, feed=feed, fetch_list=[prob, loss])
    show("  prob", p)
    print("  eval loss again %.5f" % float(l2))
    lg, = exe.run(test_prog, feed=feed, fetch_list=[logits])
    show("  logits", lg)
    c, = exe.run(compiled, feed=feed, fetch_list=[logits])
    print("  compiled logits match:", np.allclose(c, lg, atol=1e-5))
    t, = exe.run(main, feed=feed, fetch_list=[loss])
    print("  train loss %.5f" % float(t))
l, = exe.run(test_prog, feed=feed, fetch_list=[loss])
print("final eval loss %.5f" % float(l))

# paddle.static.save / load after static training: Momentum trains 2 steps, save writes the
# parameters (.pdparams) and the optimizer state (.pdopt); 3 more steps move them on; load puts
# the saved values back, so the next steps repeat steps 2..4 exactly. Weights from Assign
# initializers; losses with 5 decimals (tolerance 1e-5).
import os

import numpy as np
import paddle

paddle.enable_static()
w1 = (np.sin(np.arange(15, dtype="float32") * 0.41) * 0.5).reshape(5, 3)
xv = np.linspace(-1.0, 1.0, 30).astype("float32").reshape(6, 5)
lv = np.array([[0], [2], [1], [1], [0], [2]], dtype="int64")

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 5], dtype="float32")
    label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
    logits = paddle.static.nn.fc(
        x, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w1)),
        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.0)))
    loss = paddle.nn.functional.cross_entropy(logits, label)
    paddle.optimizer.Momentum(learning_rate=0.5, momentum=0.9).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)


def steps(tag, n):
    for i in range(n):
        l, = exe.run(main, feed={"x": xv, "label": lv}, fetch_list=[loss])
        print(tag, i, "%.5f" % float(l))


steps("train", 2)
paddle.static.save(main, "ckpt/model")
print(sorted(f for f in os.listdir("ckpt") if not f.endswith(".pdmodel")))
steps("after save", 3)
paddle.static.load(main, "ckpt/model", exe)
steps("after load", 3)
state = paddle.load("ckpt/model.pdparams")
print("saved parameters:", len(state))

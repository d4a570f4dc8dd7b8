# A static training script with periodic evaluation on main.clone(for_test=True), the layout
# of Paddle's static-mode tutorials: a small CNN with BatchNorm2D and BatchNorm1D (and a
# Dropout), Momentum, a train loop over fixed batches and an eval of a held-out batch every
# other step, also through a CompiledProgram of the clone (its fusions), and an inference
# model saved from the training Program. Each training run updates the BatchNorm moving mean
# and variance; the test clone normalises with them (is_test), does not update them, and
# drops nothing, while the training Program goes on normalising with batch statistics.
# Weights from Assign initializers (no RNG); the Dropout's p is 0 in the trained net (its mask
# streams differ from Paddle's) and 0.5 in a second net whose clone must be deterministic.
# Values printed with 5 decimals (tolerance 1e-5), the larger inference logits with 3.
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.4
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


class Net(paddle.nn.Layer):
    def __init__(self, p):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 4, 3, padding=1, weight_attr=assign([4, 1, 3, 3], 0.71))
        self.bn2d = paddle.nn.BatchNorm2D(4)
        self.pool = paddle.nn.MaxPool2D(2, 2)
        self.fc1 = paddle.nn.Linear(4 * 3 * 3, 16, weight_attr=assign([36, 16], 0.37))
        self.bn1d = paddle.nn.BatchNorm1D(16, momentum=0.8)
        self.drop = paddle.nn.Dropout(p)
        self.fc2 = paddle.nn.Linear(16, 3, weight_attr=assign([16, 3], 0.53))

    def forward(self, x):
        x = self.pool(F.relu(self.bn2d(self.conv(x))))
        x = paddle.flatten(x, 1)
        x = self.drop(F.relu(self.bn1d(self.fc1(x))))
        return self.fc2(x)


def batch(i, n=8):
    v = np.cos(np.arange(n * 36, dtype="float32") * (0.11 + 0.07 * i)) * (1.0 + 0.3 * i) + 0.2 * i
    lab = (np.arange(n) * (i + 1) % 3).astype("int64").reshape(n, 1)
    return v.reshape(n, 1, 6, 6), lab


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    image = paddle.static.data("image", [None, 1, 6, 6], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    net = Net(0.0)
    logits = net(image)
    loss = F.cross_entropy(logits, label)
    acc = paddle.static.accuracy(F.softmax(logits), label)
    test_prog = main.clone(for_test=True)
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
strategy = paddle.static.BuildStrategy()
strategy.fuse_bn_act_ops = True
strategy.fuse_elewise_add_act_ops = True
compiled = paddle.static.CompiledProgram(test_prog, build_strategy=strategy)
tx, tl = batch(9, 6)
for step in range(8):
    x, l = batch(step % 4)
    tr, = exe.run(main, feed={"image": x, "label": l}, fetch_list=[loss])
    line = "step %d train loss %.5f" % (step, float(tr))
    if step % 2 == 1:
        ev, ea = exe.run(test_prog, feed={"image": tx, "label": tl}, fetch_list=[loss, acc])
        ev2, = exe.run(test_prog, feed={"image": tx, "label": tl}, fetch_list=[loss])
        line += " | eval loss %.5f acc %.5f again %.5f" % (float(ev), float(ea), float(ev2))
        cv, = exe.run(compiled, feed={"image": tx, "label": tl}, fetch_list=[loss])
        line += " compiled %.5f" % float(cv)
    print(line)
scope = paddle.static.global_scope()
for name, t in (("bn2d mean", net.bn2d._mean), ("bn1d variance", net.bn1d._variance)):
    v = np.array(scope.find_var(t.name).get_tensor())
    print(name, " ".join("%.5f" % e for e in v.ravel()[:6]))
# an inference model saved from the training Program normalises with the moving statistics
lg, = exe.run(test_prog, feed={"image": tx, "label": tl}, fetch_list=[logits])
paddle.static.save_inference_model("inf/cnn", [image], [logits], exe, program=main)
prog, feeds, fetches = paddle.static.load_inference_model("inf/cnn", exe)
il, = exe.run(prog, feed={feeds[0]: tx}, fetch_list=fetches)
print("inference logits", " ".join("%.3f" % e for e in il.ravel()[:9]))
print("inference model matches the test clone", bool(np.allclose(il, lg, atol=1e-5)))
# the eval of the training Program itself still uses batch statistics
tr, = exe.run(main, feed={"image": tx, "label": tl}, fetch_list=[loss])
print("train-mode loss on the eval batch %.5f" % float(tr))

# Dropout 0.5: the training Program drops, the test clone is the identity and deterministic
main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    image = paddle.static.data("image", [None, 1, 6, 6], "float32")
    net2 = Net(0.5)
    out = net2(image)
    test2 = main2.clone(for_test=True)
exe.run(startup2)
x, _ = batch(1)
a, = exe.run(test2, feed={"image": x}, fetch_list=[out])
b, = exe.run(test2, feed={"image": x}, fetch_list=[out])
c, = exe.run(main2, feed={"image": x}, fetch_list=[out])
print("test clone deterministic", bool((a == b).all()), "differs from training", not np.allclose(a, c))
print("test clone out", " ".join("%.5f" % e for e in a.ravel()[:9]))

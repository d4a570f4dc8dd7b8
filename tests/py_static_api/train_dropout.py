# Dropout in training runs draws a new mask on every run, as Paddle's seed generator gives:
# a to_static Layer run twice, and a static training Program run twice by the Executor, drop
# different elements; the gradient of a to_static run follows that run's mask. In eval mode,
# in clone(for_test=True) and in a saved inference model dropout is the identity, run after
# run. Random streams differ from Paddle's, so this prints booleans.
import numpy as np
import paddle
x = np.ones((4, 50), "float32")

class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(50, 50)
        self.drop = paddle.nn.Dropout(0.5)
    @paddle.jit.to_static
    def forward(self, x):
        return self.drop(self.fc(x))
net = Net()
xt = paddle.to_tensor(x)
m1 = (net(xt).numpy() == 0); m2 = (net(xt).numpy() == 0)
print("to_static masks differ per run", bool((m1 != m2).any()))
# gradient uses the forward's mask
out = net(xt); out.sum().backward()
g = net.fc.bias.grad.numpy()
mask = (out.numpy() != 0).astype("float32")
print("grad follows the run's mask", bool(np.allclose(g, (mask * 2.0).sum(0), atol=1e-5)))
net.eval()
e1 = net(xt).numpy(); e2 = net(xt).numpy()
print("eval identity", bool((e1 == e2).all()), bool(np.allclose(e1, net.fc(xt).numpy())))

paddle.enable_static()
main, st = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, st):
    xs = paddle.static.data("x", [4, 50], "float32")
    h = paddle.static.nn.fc(xs, 50)
    y = paddle.nn.functional.dropout(h, 0.5)
    loss = y.sum()
    test = main.clone(for_test=True)
    paddle.optimizer.SGD(0.0).minimize(loss)
exe = paddle.static.Executor()
exe.run(st)
a, = exe.run(main, feed={"x": x}, fetch_list=[y])
b, = exe.run(main, feed={"x": x}, fetch_list=[y])
print("static masks differ per run", bool(((a == 0) != (b == 0)).any()))
hh, t1 = exe.run(test, feed={"x": x}, fetch_list=[h, y])
t2, = exe.run(test, feed={"x": x}, fetch_list=[y])
print("clone(for_test) dropout is identity", bool(np.allclose(t1, hh)), bool((t1 == t2).all()))
paddle.static.save_inference_model("inf/m", [xs], [y], exe, program=main)
prog, feeds, fetches = paddle.static.load_inference_model("inf/m", exe)
i1, = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)
i2, = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)
print("saved inference model deterministic", bool((i1 == i2).all()), bool(np.allclose(i1, hh)))

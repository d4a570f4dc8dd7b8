# Static training of hand-written layers whose forward computes with its parameters before
# using them: paddle.create_parameter weights stored as [out, in] and applied through
# paddle.transpose / paddle.t, and a hand-written L2 penalty summed over the weights. In
# Paddle these are ops of the Program, so every Executor.run reads the weights the last SGD
# step wrote; the gradient reaches the parameters through them. Weights from Assign
# initializers (no RNG); values printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.5
    return paddle.nn.initializer.Assign(a.reshape(shape))


class TorchStyleLinear(paddle.nn.Layer):
    """y = x W^T + b with W of shape [out, in]."""

    def __init__(self, n_in, n_out, k):
        super().__init__()
        self.weight = self.create_parameter([n_out, n_in], default_initializer=assign([n_out, n_in], k))
        self.bias = self.create_parameter([n_out], is_bias=True)

    def forward(self, x):
        return paddle.matmul(x, paddle.t(self.weight)) + self.bias


xv = (np.cos(np.arange(40, dtype="float32") * 0.37) * 1.2).reshape(8, 5)
yv = (np.sin(np.arange(16, dtype="float32") * 0.29)).reshape(8, 2)

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 2], "float32")
    w1 = paddle.create_parameter([6, 5], "float32", default_initializer=assign([6, 5], 0.61))
    b1 = paddle.create_parameter([6], "float32", is_bias=True)
    h = F.relu(x @ paddle.transpose(w1, [1, 0]) + b1)
    out_layer = TorchStyleLinear(6, 2, 0.83)
    pred = out_layer(h)
    l2 = paddle.sum(paddle.square(w1)) + paddle.sum(out_layer.weight * out_layer.weight)
    loss = F.mse_loss(pred, y) + 0.01 * l2
    test_prog = main.clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for step in range(6):
    l, pen = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss, l2])
    print("step %d loss %.5f l2 %.5f" % (step, float(l), float(pen)))
ev, = exe.run(test_prog, feed={"x": xv, "y": yv}, fetch_list=[loss])
print("eval loss %.5f" % float(ev))
w, = exe.run(test_prog, feed={"x": xv, "y": yv}, fetch_list=[w1])
print("w1", " ".join("%.5f" % e for e in w.ravel()[:8]))
ws = np.array(paddle.static.global_scope().find_var(out_layer.weight.name).get_tensor())
print("out weight", " ".join("%.5f" % e for e in ws.ravel()[:8]))

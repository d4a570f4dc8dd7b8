# A to_static model with a data-dependent if and while, saved, loaded and run by the Executor
# on inputs that take each branch.
import numpy as np
import paddle
from _models import fill


class Branchy(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    @paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 3], "float32", "x")])
    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(h) > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        i = paddle.zeros([1], dtype="int64")
        while paddle.sum(paddle.abs(h)) > 1.0:
            h = h * 0.5
            i = i + 1
        return h, i


net = fill(Branchy())
net.eval()
inputs = [np.full((2, 3), 3.0, dtype="float32"), np.full((2, 3), -3.0, dtype="float32"),
          np.array([[0.1, -0.2, 0.3]], dtype="float32")]
eager = [[o.numpy() for o in net(paddle.to_tensor(v))] for v in inputs]
paddle.jit.save(net, "branchy")

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("branchy", exe)
print(feeds, len(fetches))
for v, (eh, ei) in zip(inputs, eager):
    h, i = exe.run(prog, feed={feeds[0]: v}, fetch_list=fetches)
    print(h.shape, i.tolist())
    print(np.round(h, 4))
    print("matches eager:", bool(np.allclose(h, eh, atol=1e-5)), bool((i == ei).all()))

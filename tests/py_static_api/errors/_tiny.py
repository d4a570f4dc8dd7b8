# A one-layer model saved as PREFIX with paddle.jit.save, for the error scripts.
import paddle


class Tiny(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def save(prefix):
    net = Tiny()
    net.eval()
    spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), prefix)

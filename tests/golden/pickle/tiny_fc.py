"""Two Linear layers: the model the CLI test saves with .pdparams and with .npz parameters."""
import paddle
from paddle.static import InputSpec


class TinyFc(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 5)
        self.fc2 = paddle.nn.Linear(5, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


def build_model():
    return TinyFc()


INPUT_SPEC = [InputSpec(shape=[-1, 4], dtype="float32", name="x")]

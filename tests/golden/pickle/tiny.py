"""A small Layer whose state_dict has float32, float64 and int64 entries (fixtures of the unpickler tests)."""
import numpy as np
import paddle


class Tiny(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.scale = self.create_parameter([2, 2], dtype="float64")
        self.register_buffer("steps", paddle.to_tensor(np.array([1, -2, 2**40], dtype="int64")))

    def forward(self, x):
        return self.fc(x)

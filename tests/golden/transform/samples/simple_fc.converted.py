"""SimpleFcLayer from Paddle's jit.save documentation: a linear layer plus a fixed offset."""
import numpy as np
import paddle
from paddle.static import InputSpec
BATCH_SIZE = 4
FEATURE_SIZE = 784
FC_SIZE = 10

class SimpleFcLayer(paddle.nn.Layer):

    def __init__(self, batch_size, feature_size, fc_size):
        super().__init__()
        self._linear = paddle.nn.Linear(feature_size, fc_size)
        self._offset = paddle.to_tensor(np.random.random((batch_size, fc_size)).astype('float32'))

    def forward(self, x):
        fc = _jst.Call(self._linear)(x)
        return fc + self._offset

def build_model():
    np.random.seed(2024)
    return SimpleFcLayer(BATCH_SIZE, FEATURE_SIZE, FC_SIZE)
INPUT_SPEC = [InputSpec(shape=[BATCH_SIZE, FEATURE_SIZE], dtype='float32', name='x')]

def example_inputs(batch=BATCH_SIZE, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.rand(BATCH_SIZE, FEATURE_SIZE).astype('float32')]
if __name__ == '__main__':
    model = build_model()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

"""An LSTM cell unrolled by a `for` over a sequence whose length is only known at run time."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec
INPUT = 8
HIDDEN = 16

class LSTMCellLoop(nn.Layer):

    def __init__(self, input_size=INPUT, hidden=HIDDEN):
        super().__init__()
        self.gates_x = nn.Linear(input_size, 4 * hidden)
        self.gates_h = nn.Linear(hidden, 4 * hidden, bias_attr=False)
        self.hidden = hidden

    def forward(self, x):
        batch = paddle.shape(x)[0]
        h = paddle.zeros([batch, self.hidden], dtype='float32')
        c = paddle.zeros([batch, self.hidden], dtype='float32')
        outputs = []

        def for_body_26(t, c, h, outputs):
            x_t = x[:, t, :]
            gates = _jst.Call(self.gates_x)(x_t) + _jst.Call(self.gates_h)(h)
            i, f, g, o = paddle.split(gates, num_or_sections=4, axis=1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
            h = F.sigmoid(o) * paddle.tanh(c)
            outputs.append(h)
            return (c, h, outputs)
        c, h, outputs = _jst.For(_jst.Range(paddle.shape(x)[1]), for_body_26, (c, h, outputs), ('c', 'h', 'outputs'))
        return (paddle.stack(outputs, axis=1), h)

def build_model():
    return LSTMCellLoop()
INPUT_SPEC = [InputSpec(shape=[None, None, INPUT], dtype='float32', name='x')]

def example_inputs(batch=2, time=5, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(batch, time, INPUT).astype('float32')]

def other_inputs(batch=3, time=9, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.randn(batch, time, INPUT).astype('float32')]
if __name__ == '__main__':
    model = build_model()
    seq, h = model(paddle.to_tensor(example_inputs()[0]))
    print(seq.shape, h.shape)

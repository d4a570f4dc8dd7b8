# Recurrent layers under to_static (a while_loop over the time dim), jit.save/load with a dynamic length.
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, v in enumerate(t):
            show(name + "[%d]" % i, v)
        return
    print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


def load_weights(model):
    sd = {}
    for key, value in model.state_dict().items():
        seed = 0
        for ch in key:
            seed = (seed * 31 + ord(ch)) % 2147483647
        rng = np.random.RandomState(seed)
        sd[key] = rng.uniform(-0.5, 0.5, size=value.shape).astype("float32")
    model.set_state_dict(sd)


class Tagger(nn.Layer):
    """A 2-layer bidirectional LSTM tagger over embedded tokens."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.lstm = nn.LSTM(4, 3, num_layers=2, direction="bidirect")
        self.fc = nn.Linear(6, 5)

    @paddle.jit.to_static
    def forward(self, ids, lengths):
        h, (hn, cn) = self.lstm(self.emb(ids), sequence_length=lengths)
        return self.fc(h), hn


class Both(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, time_major=True)
        self.rnn = nn.SimpleRNN(4, 2, activation="relu", direction="bidirectional")
        self.cell = nn.RNN(nn.LSTMCell(2 * 2, 3), is_reverse=True)
        self.bi = nn.BiRNN(nn.GRUCell(3, 2), nn.SimpleRNNCell(3, 2))

    def forward(self, x):
        y, h = self.gru(x)
        y = paddle.transpose(y, [1, 0, 2])
        y, h2 = self.rnn(y)
        y, (h3, c3) = self.cell(y)
        z, (f, b) = self.bi(paddle.transpose(x, [1, 0, 2]))
        return y, h + 0.0, h2, c3, z, f, b


class GatedCell(nn.RNNCellBase):
    """A user cell with a data-dependent branch: converted inside the time loop's body."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 2)
        self.input_size = 3
        self.hidden_size = 2

    def forward(self, x, h):
        z = self.fc(paddle.concat([x, h], axis=-1))
        if paddle.mean(z) > 0:
            z = paddle.tanh(z)
        else:
            z = z * 0.5
        return z, z

    @property
    def state_shape(self):
        return (2,)


class Custom(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(GatedCell())

    @paddle.jit.to_static
    def forward(self, x):
        return self.rnn(x)


rs = np.random.RandomState(0)
ids = paddle.to_tensor(rs.randint(0, 10, size=(2, 5)).astype("int64"))
lengths = paddle.to_tensor(np.array([5, 3], dtype="int64"))
tagger = Tagger()
load_weights(tagger)
tagger.eval()
show("tagger", tagger(ids, lengths))

x = paddle.to_tensor(rs.rand(5, 2, 3).astype("float32") - 0.5)
both = Both()
load_weights(both)
show("eager", both(x))
static = paddle.jit.to_static(both, input_spec=[InputSpec([None, None, 3], "float32", "x")])
show("to_static", static(x))
show("to_static shorter", static(x[:3]))

custom = Custom()
load_weights(custom)
show("custom cell", custom(paddle.transpose(x, [1, 0, 2])))

# saved with a dynamic length and batch; the loaded model runs other lengths
paddle.jit.enable_to_static(True)
paddle.jit.save(tagger, "rnn_tagger", input_spec=[InputSpec([None, None], "int64", "ids"),
                                                  InputSpec([None], "int64", "lengths")])
loaded = paddle.jit.load("rnn_tagger")
show("loaded", loaded(ids, lengths))
ids2 = paddle.to_tensor(rs.randint(0, 10, size=(2, 7)).astype("int64"))
show("loaded longer", loaded(ids2, paddle.to_tensor(np.array([7, 4], dtype="int64"))))


# Recurrent layers eagerly: cells, RNN/BiRNN wrappers, SimpleRNN/LSTM/GRU nets, on fixed weights.
import numpy as np
import paddle


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, x in enumerate(t):
            show(name + "[%d]" % i, x)
        return
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


rs = np.random.RandomState(0)
x = paddle.to_tensor(rs.rand(2, 4, 3).astype("float32") - 0.5)
xt = paddle.transpose(x, [1, 0, 2])
sl = paddle.to_tensor(np.array([4, 2], dtype="int32"))

# ---- cells: one step, default and given states, repr, parameter shapes and ranges
paddle.seed(3)
for cls in [paddle.nn.SimpleRNNCell, paddle.nn.LSTMCell, paddle.nn.GRUCell]:
    c = cls(3, 5)
    print(c, [(n, p.shape) for n, p in c.named_parameters()])
    std = 1.0 / 5 ** 0.5
    print("in range", all(float(p.abs().max()) <= std for p in c.parameters()))
    print("state_shape", c.state_shape)
    setw(c, 2)
    y, s = c(x[:, 0])
    show(cls.__name__ + " step", y)
    y2, s2 = c(x[:, 1], s)
    show(cls.__name__ + " step2", s2)
c = paddle.nn.SimpleRNNCell(3, 4, activation="relu")
print(c)
setw(c, 5)
show("relu cell", c(x[:, 0])[0])
print(isinstance(c, paddle.nn.RNNCellBase), isinstance(c, paddle.nn.Layer))
try:
    paddle.nn.SimpleRNNCell(3, 4, activation="sigmoid")
except ValueError as e:
    print("ValueError", e)
init = c.get_initial_states(x, shape=((4,), (2,)), init_value=1.5)
show("initial", init)

# ---- RNN / BiRNN wrappers
cell = paddle.nn.GRUCell(3, 4)
setw(cell, 7)
rnn = paddle.nn.RNN(cell)
print(rnn, sorted(rnn.state_dict().keys()))
show("rnn", rnn(x))
show("rnn seq", rnn(x, sequence_length=sl))
h0 = paddle.full([2, 4], 0.25)
show("rnn h0", rnn(x, h0))
show("rnn reverse", paddle.nn.RNN(cell, is_reverse=True)(x, sequence_length=sl))
show("rnn time_major", paddle.nn.RNN(cell, time_major=True)(xt))
fw = paddle.nn.LSTMCell(3, 4)
bw = paddle.nn.LSTMCell(3, 4)
setw(fw, 8)
setw(bw, 9)
bi = paddle.nn.BiRNN(fw, bw)
print(bi, sorted(bi.state_dict().keys()))
show("birnn", bi(x))
show("birnn seq", bi(x, sequence_length=sl))

# ---- networks: layers, directions, time_major, sequence_length, initial states
for cls in [paddle.nn.SimpleRNN, paddle.nn.LSTM, paddle.nn.GRU]:
    for kw in [dict(), dict(num_layers=2, direction="bidirect"),
               dict(direction="bidirectional", time_major=True), dict(num_layers=2, dropout=0.5)]:
        m = cls(3, 5, **kw)
        print(m)
        print(list(m.state_dict().keys()))
        print([(n, p.shape) for n, p in m.named_parameters()])
        setw(m, 1)
        m.eval()
        xi = xt if kw.get("time_major") else x
        y, h = m(xi)
        show(cls.__name__ + " y", y)
        show(cls.__name__ + " h", h)
        y, h = m(xi, sequence_length=sl)
        show(cls.__name__ + " ys", y)
        show(cls.__name__ + " hs", h)
m = paddle.nn.LSTM(3, 5, num_layers=2)
setw(m, 4)
h0 = paddle.to_tensor(rs.rand(2, 2, 5).astype("float32"))
c0 = paddle.to_tensor(rs.rand(2, 2, 5).astype("float32"))
y, (h, c) = m(x, (h0, c0))
show("lstm init y", y)
show("lstm init h", h)
show("lstm init c", c)
m = paddle.nn.SimpleRNN(3, 5, activation="relu", direction="bidirect")
setw(m, 6)
show("relu rnn", m(x, paddle.zeros([2, 2, 5]), sl))
m = paddle.nn.GRU(3, 5, bias_ih_attr=False)
print(list(m.state_dict().keys()))
try:
    paddle.nn.GRU(3, 5, direction="backward")
except ValueError as e:
    print("ValueError", e)

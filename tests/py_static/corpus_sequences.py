# Conformance corpus: sequence models, tensor arrays written in place, and utilities inside to_static.
import numpy as np
import paddle
from paddle.static import InputSpec


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


class RNNLoop(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = paddle.nn.Linear(4, 2)
        rng = np.random.RandomState(1)
        self.cell.weight.set_value(paddle.to_tensor(rng.uniform(-0.5, 0.5, [4, 2]).astype("float32")))
        self.cell.bias.set_value(paddle.to_tensor([0.1, -0.1]))

    @paddle.jit.to_static(input_spec=[InputSpec([None, None, 2], "float32")])
    def forward(self, seq):
        h = paddle.zeros([paddle.shape(seq)[0], 2])
        outs = []
        for t in range(paddle.shape(seq)[1]):
            h = paddle.tanh(self.cell(paddle.concat([seq[:, t], h], axis=-1)))
            outs.append(h)
        return paddle.stack(outs, axis=1), h


@paddle.jit.to_static
def beam_like(logits, k):
    scores = paddle.nn.functional.log_softmax(logits, axis=-1)
    best = paddle.argmax(scores, axis=-1)
    total = paddle.zeros([1])
    i = 0
    while i < k:
        total = total + scores[i, best[i]]
        i += 1
    return best, total


@paddle.jit.to_static
def tensor_array_loop(x):
    arr = paddle.tensor.create_array("float32")
    i = paddle.zeros([1], dtype="int64")
    n = paddle.shape(x)[0]
    while i < n:
        paddle.tensor.array_write(x[i] * 2, i, array=arr)
        i += 1
    return paddle.tensor.array_read(arr, paddle.to_tensor([1], dtype="int64"))


@paddle.jit.to_static
def accumulate_dict_lists(x):
    stats = {"pos": [], "neg": []}
    for i in range(x.shape[0]):
        v = x[i]
        stats["pos"].append(paddle.nn.functional.relu(v))
        stats["neg"].append(paddle.nn.functional.relu(-v))
    return paddle.add_n(stats["pos"]), paddle.add_n(stats["neg"])


@paddle.jit.to_static
def gather_in_loop(x, idx):
    out = []
    for j in range(idx.shape[0]):
        out.append(paddle.gather(x, idx[j:j + 1]))
    return paddle.concat(out)


@paddle.jit.to_static
def where_chain(x):
    y = paddle.where(x > 1, x * 2, x)
    y = paddle.where(y < -1, -y, y)
    if (y > 3).any():
        y = y / 2
    return y


@paddle.jit.to_static
def early_exit_flag(x):
    found = False
    for i in range(3):
        if x[i] > 2:
            found = True
            break
    if found:
        return x * 0 + 1
    return x


@paddle.jit.to_static
def int_cast_of_tensor(x):
    n = int(x.shape[0])
    s = paddle.zeros([])
    for i in range(n):
        s = s + x[i] * float(i)
    return s


@paddle.jit.to_static
def item_in_condition(x):
    m = x.mean()
    if m.item() > 0:
        return x - m
    return x + m


rnn = RNNLoop()
show("rnn", rnn(paddle.arange(12, dtype="float32").reshape([2, 3, 2]) / 10))
show("beam_like", beam_like(paddle.to_tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]]), 2))
show("tensor_array_loop", tensor_array_loop(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
show("accumulate_dict_lists", accumulate_dict_lists(paddle.to_tensor([[1.0, -2.0], [-3.0, 4.0]])))
show("gather_in_loop", gather_in_loop(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), paddle.to_tensor([2, 0])))
show("where_chain", where_chain(paddle.to_tensor([0.5, 3.0, -4.0])))
show("early_exit_flag", early_exit_flag(paddle.to_tensor([1.0, 3.0, 0.0])))
show("early_exit_flag", early_exit_flag(paddle.to_tensor([1.0, 1.0, 0.0])))
show("int_cast_of_tensor", int_cast_of_tensor(paddle.to_tensor([1.0, 2.0, 3.0])))
show("item_in_condition", item_in_condition(paddle.to_tensor([1.0, 3.0])))
show("item_in_condition", item_in_condition(paddle.to_tensor([-1.0, -3.0])))

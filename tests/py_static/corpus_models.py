# Conformance corpus: model-zoo style to_static code (decoders, layer lists, masks, slicing in loops).
import numpy as np
import paddle


def show(name, t):
    if isinstance(t, (list, tuple)):
        print(name, type(t).__name__, len(t))
        for i, u in enumerate(t):
            show("%s[%d]" % (name, i), u)
    elif isinstance(t, paddle.Tensor):
        print(name, t.dtype, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())
    else:
        print(name, type(t).__name__, t)


def init_linear(fc, seed):
    rng = np.random.RandomState(seed)
    fc.weight.set_value(paddle.to_tensor(rng.uniform(-0.5, 0.5, fc.weight.shape).astype("float32")))
    fc.bias.set_value(paddle.to_tensor(rng.uniform(-0.1, 0.1, fc.bias.shape).astype("float32")))


class Stack(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = paddle.nn.LayerList([paddle.nn.Linear(3, 3) for _ in range(3)])
        for k, l in enumerate(self.layers):
            init_linear(l, k)

    @paddle.jit.to_static
    def forward(self, x):
        for i, layer in enumerate(self.layers):
            h = layer(x)
            if i % 2 == 0:
                x = paddle.nn.functional.relu(h) + x
            else:
                x = h
        return x


class GreedyDecode(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(5, 4)
        self.emb.weight.set_value(paddle.to_tensor(np.linspace(-1, 1, 20).reshape(5, 4).astype("float32")))
        self.out = paddle.nn.Linear(4, 5)
        init_linear(self.out, 7)

    @paddle.jit.to_static
    def forward(self, start, max_len):
        tok = start
        outs = []
        step = 0
        while step < max_len:
            logits = self.out(self.emb(tok))
            tok = paddle.argmax(logits, axis=-1)
            outs.append(tok)
            if tok.sum() == 0:
                break
            step += 1
        return paddle.stack(outs, axis=1)


class Seq(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = paddle.nn.Sequential(paddle.nn.Linear(2, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 2))
        init_linear(self.body[0], 3)
        init_linear(self.body[2], 4)

    @paddle.jit.to_static
    def forward(self, x, steps):
        for _ in range(steps):
            x = x + self.body(x)
        return x


@paddle.jit.to_static
def masked_fill_where(x, lengths):
    n = x.shape[1]
    pos = paddle.arange(n).unsqueeze(0)
    mask = pos < lengths.unsqueeze(1)
    return paddle.where(mask, x, paddle.full_like(x, -1e4))


@paddle.jit.to_static
def cumulative_loop(x):
    out = paddle.ones_like(x[0])
    res = []
    for i in range(x.shape[0]):
        out = out * x[i]
        res.append(out)
    return paddle.stack(res)


@paddle.jit.to_static
def shape_arith(x):
    b, t = x.shape[0], x.shape[-1]
    y = paddle.reshape(x, [b * t])
    z = paddle.full([b, 2], 7.0)
    return y, z


@paddle.jit.to_static
def paddle_shape_loop(x):
    n = paddle.shape(x)[0]
    i = paddle.zeros([1], dtype="int32")
    acc = paddle.zeros_like(x[0])
    while i < n:
        acc = acc + paddle.gather(x, i)[0]
        i += 1
    return acc


@paddle.jit.to_static
def assert_and_minmax(x):
    assert x.shape[-1] == 2, "need two columns"
    a = paddle.max(x)
    b = paddle.min(x)
    return paddle.maximum(x - b, a * 0.1)


@paddle.jit.to_static
def lambda_and_comprehension(x):
    double = lambda t: t * 2
    parts = [double(x[i]) for i in range(2)]
    return paddle.add_n(parts)


@paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 3], "float32")])
def slice_tensor_bound(x):
    y = paddle.zeros([0, 3])
    i = paddle.to_tensor(0)
    while i < x.shape[0]:
        if x[i].sum() > 0:
            y = paddle.concat([y, x[i:i + 1]])
        i += 1
    return y


@paddle.jit.to_static
def slice_window(x):
    res = []
    for i in range(x.shape[0] - 1):
        res.append(x[i:i + 2].sum())
    return paddle.stack(res)


@paddle.jit.to_static
def slice_shape_bounds(x, a, b):
    n = paddle.shape(x)[0]
    y = x.clone()
    y[n - 1:] = 0.0
    return x[a:b], x[:, a:], x[-b:], x[a:b + 10:2], y


@paddle.jit.to_static
def clip_norm_loop(x):
    while paddle.linalg.norm(x) > 1.0:
        x = x * 0.5
    return x


@paddle.jit.to_static
def cast_compare_sum(x):
    pos = paddle.cast(x > 0, "float32")
    if pos.sum() >= 2:
        out = x * pos
    else:
        out = x
    return out


stack = Stack()
show("stack", stack(paddle.to_tensor([[0.5, -1.0, 2.0]])))
gd = GreedyDecode()
show("greedy", gd(paddle.to_tensor([1, 3]), 4))
seq = Seq()
show("seq", seq(paddle.to_tensor([[0.1, 0.2]]), 3))
show("masked_fill_where", masked_fill_where(paddle.ones([2, 4]), paddle.to_tensor([1, 3])))
show("cumulative_loop", cumulative_loop(paddle.to_tensor([[1.0, 2.0], [3.0, 0.5], [2.0, 2.0]])))
show("shape_arith", shape_arith(paddle.ones([2, 3])))
show("paddle_shape_loop", paddle_shape_loop(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
show("assert_and_minmax", assert_and_minmax(paddle.to_tensor([[1.0, 2.0], [-3.0, 4.0]])))
show("lambda_and_comprehension", lambda_and_comprehension(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])))
show("slice_tensor_bound", slice_tensor_bound(paddle.to_tensor([[1.0, 2.0, 3.0], [-1, -2, -3], [4, 5, 6]])))
show("slice_window", slice_window(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])))
show("slice_shape_bounds", slice_shape_bounds(paddle.arange(12, dtype="float32").reshape([4, 3]), paddle.to_tensor(1), paddle.to_tensor(3)))
show("clip_norm_loop", clip_norm_loop(paddle.to_tensor([3.0, 4.0])))
show("cast_compare_sum", cast_compare_sum(paddle.to_tensor([1.0, -2.0, 3.0])))
show("cast_compare_sum", cast_compare_sum(paddle.to_tensor([1.0, -2.0, -3.0])))

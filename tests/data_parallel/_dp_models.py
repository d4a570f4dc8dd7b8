# Static Programs the data-parallel tests train, shared by the golden generator (real Paddle,
# one process on the whole batch) and the dy2st scripts (replicas on threads, ranks on MPI):
# an MLP, the MNIST CNN of Paddle's dynamic-to-static guide, and an RNN whose time loop is
# paddle.static.nn.while_loop. Weights come from Assign initializers and data from fixed
# formulas (no RNG), so every runtime starts from the same values.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

BATCH = 8
STEPS = 3
MODELS = ["mlp", "cnn", "rnn"]
OPTIMIZERS = ["sgd", "adam"]


def pattern(shape, k, scale):
    n = int(np.prod(shape))
    v = np.sin(np.arange(n, dtype="float64") * 0.37 + k) * scale
    return v.reshape(shape).astype("float32")


def _attr(shape, k, scale):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(pattern(shape, k, scale)))


def linear(i, o, k, bias=True):
    scale = 1.0 / np.sqrt(i)
    return nn.Linear(i, o, weight_attr=_attr([i, o], k, scale),
                     bias_attr=_attr([o], k + 0.5, 0.1) if bias else False)


def conv(ci, co, ks, k, **kw):
    scale = 1.0 / np.sqrt(ci * ks * ks)
    return nn.Conv2D(ci, co, ks, weight_attr=_attr([co, ci, ks, ks], k, scale),
                     bias_attr=_attr([co], k + 0.5, 0.1), **kw)


def data(model, step, rows=BATCH):
    """The feed of one training step: {name: array} of `rows` samples."""
    base = step * rows
    idx = np.arange(base, base + rows)
    if model == "mlp":
        x = pattern([rows, 16], 0.3 + step, 1.0)
        ncls = 10
    elif model == "cnn":
        x = (pattern([rows, 1, 28, 28], 1.1 + step, 0.5) + 0.5).astype("float32")
        ncls = 10
    else:
        x = pattern([rows, 5, 8], 2.7 + step, 1.0)
        ncls = 4
    label = ((idx * 7 + 3) % ncls).astype("int64").reshape(rows, 1)
    return {"x": x, "label": label}


def make_layers(model):
    """The model's layers, with their fixed initial weights."""
    if model == "mlp":
        return [linear(16, 32, 1), linear(32, 10, 2)]
    if model == "cnn":
        return [conv(1, 6, 5, 3, stride=1, padding=2), conv(6, 16, 5, 4, stride=1),
                linear(400, 120, 5), linear(120, 84, 6), linear(84, 10, 7)]
    return [linear(8, 16, 8), linear(16, 16, 9, bias=False), linear(16, 4, 10)]


def forward(model, layers, x):
    """The logits of x, in dygraph or static mode (the RNN's time loop is a while_loop op
    in a static Program, a Python loop in dygraph mode)."""
    if model == "mlp":
        l1, l2 = layers
        return l2(F.relu(l1(x)))
    if model == "cnn":
        c1, c2, f1, f2, f3 = layers
        h = F.max_pool2d(F.relu(c1(x)), kernel_size=2, stride=2)
        h = F.max_pool2d(F.relu(c2(h)), kernel_size=2, stride=2)
        h = paddle.flatten(h, start_axis=1, stop_axis=-1)
        return f3(F.relu(f2(F.relu(f1(h)))))
    wx, wh, head = layers
    h0 = paddle.tanh(wx(x[:, 0, :]))
    n = paddle.shape(x)[1:2]  # the number of time steps, a tensor
    i0 = paddle.ones_like(n)

    def cond(i, h):
        return i < n

    def body(i, h):
        xt = paddle.squeeze(paddle.gather(x, i, axis=1), axis=[1])
        return i + 1, paddle.tanh(wx(xt) + wh(h))

    if paddle.in_dynamic_mode():
        # Paddle's eager while_loop assigns the loop variables in place, which its autograd
        # refuses for an index a gather keeps: the same steps as a Python loop
        i, h = i0, h0
        while bool(cond(i, h)):
            i, h = body(i, h)
    else:
        _, h = paddle.static.nn.while_loop(cond, body, [i0, h0])
    return head(h)


def parameters(layers):
    """The layers' parameters in a fixed order."""
    params = []
    for l in layers:
        params.append(l.weight)
        if l.bias is not None:
            params.append(l.bias)
    return params


XSHAPE = {"mlp": [None, 16], "cnn": [None, 1, 28, 28], "rnn": [None, 5, 8]}


def build(model):
    """Builds the model's forward and loss into the current static Programs: (loss,
    parameters)."""
    x = paddle.static.data(name="x", shape=XSHAPE[model], dtype="float32")
    label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
    layers = make_layers(model)
    loss = F.cross_entropy(forward(model, layers, x), label)
    return loss, parameters(layers)


def optimizer(name, parameters=None):
    if name == "sgd":
        return paddle.optimizer.SGD(learning_rate=0.1, parameters=parameters)
    return paddle.optimizer.Adam(learning_rate=0.01, parameters=parameters)

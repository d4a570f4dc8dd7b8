# Bad arguments to the Paddle/NumPy subset: each raises a Python exception with a message.
import paddle
import numpy as np
import paddle.nn as nn
import paddle.nn.functional as F
x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
cases = [
    lambda: paddle.reshape(x, "abc"),
    lambda: paddle.reshape(x, [3, 3]),
    lambda: paddle.zeros(-1),
    lambda: paddle.zeros([2, -3]),
    lambda: x[1.5],
    lambda: x[0, 0, 0],
    lambda: x[5],
    lambda: x[::0],
    lambda: x[paddle.to_tensor([True, False])],
    lambda: paddle.split(x, 3),
    lambda: paddle.split(x, [1, 2]),
    lambda: paddle.concat([]),
    lambda: paddle.concat([x, paddle.ones([3])]),
    lambda: paddle.stack([x, paddle.ones([3, 2])]),
    lambda: paddle.transpose(x, [0]),
    lambda: paddle.transpose(x, [0, 0]),
    lambda: paddle.squeeze(x, 5),
    lambda: paddle.sum(x, axis=3),
    lambda: paddle.matmul(x, paddle.ones([3, 3])),
    lambda: paddle.gather(x, paddle.to_tensor([5])),
    lambda: paddle.gather(x, paddle.to_tensor([0.5])),
    lambda: paddle.to_tensor([[1, 2], [3]]),
    lambda: paddle.to_tensor("abc"),
    lambda: paddle.to_tensor([1], dtype="complex64"),
    lambda: paddle.cast(x, "float16") + 1,
    lambda: paddle.matmul(x.astype("int8"), x.astype("int8")),
    lambda: paddle.cast(x, "uint16"),
    lambda: paddle.arange(0, 10, 0),
    lambda: paddle.linspace(0, 1, 0),
    lambda: paddle.eye(-1),
    lambda: paddle.randint(5, 2),
    lambda: paddle.full([2], "x"),
    lambda: F.conv2d(x, x),
    lambda: F.conv2d(paddle.ones([1, 1, 4, 4]), paddle.ones([1, 2, 3, 3])),
    lambda: F.max_pool2d(x, 2),
    lambda: F.adaptive_max_pool2d(paddle.ones([4, 4]), 2, return_mask=True),
    lambda: F.linear(x, paddle.ones([3, 2])),
    lambda: F.embedding(paddle.to_tensor([9]), paddle.ones([3, 2])),
    lambda: F.embedding(paddle.to_tensor([0.5]), paddle.ones([3, 2])),
    lambda: F.layer_norm(x, [3]),
    lambda: F.batch_norm(x, paddle.ones([3]), paddle.ones([3])),
    lambda: F.softmax(x, axis=2),
    lambda: F.dropout(x, 2.0),
    lambda: F.dropout(x, 0.5, mode="bad"),
    lambda: F.one_hot(x, 3),
    lambda: nn.Linear(2, -1),
    lambda: nn.Conv2D(3, 4, 3, groups=2),
    lambda: nn.Conv2D(2, 2, 3, padding_mode="reflect"),
    lambda: nn.Embedding(3, 2, padding_idx=5),
    lambda: nn.Sequential(1, 2),
    lambda: nn.LayerList([1]),
    lambda: nn.Linear(2, 2)(paddle.ones([3, 3])),
    lambda: nn.Linear(2, 2).set_state_dict(5),
    lambda: nn.Layer().forward(),
    lambda: x.item(),
    lambda: float(x),
    lambda: bool(x),
    lambda: len(paddle.to_tensor(1.0)),
    lambda: x.set_value(np.ones((3, 3))),
    lambda: paddle.to_tensor([1.0], stop_gradient=False).backward(paddle.ones([3])),
    lambda: x + "a",
    lambda: x @ 3,
    lambda: ~x,
    lambda: x & x,
    lambda: paddle.to_tensor([1]) // 0,
    lambda: paddle.to_tensor([1]) % 0,
    lambda: paddle.divide(x, paddle.ones([2], dtype="float64")),
    lambda: paddle.nn.initializer.Constant(1.0)(5),
    lambda: np.zeros((2, -1)),
    lambda: np.ones((2, 3)).reshape(4),
    lambda: np.array([[1, 2], [3]]),
    lambda: np.arange(0, 1, 0),
    lambda: np.random.seed(-1),
    lambda: np.random.randint(5, 2),
    lambda: np.random.normal(0, -1),
    lambda: np.ones(3)[5],
    lambda: np.ones(3) + "a",
    lambda: np.ones((2, 2)) @ np.ones((3, 3)),
    lambda: np.concatenate([]),
    lambda: np.load("/nonexistent/file.npy"),
    lambda: np.testing.assert_allclose(np.ones(2), np.zeros(2)),
    lambda: bool(np.ones(3)),
    lambda: np.ones(3).item(),
    lambda: np.float32("abc"),
    lambda: x.reshape([2, 2, 2, 2, 2, 2, 2, 2, 2]),
]
@paddle.jit.to_static
def nonzero_static(t):
    return paddle.nonzero(t)
@paddle.jit.to_static
def where1_static(t):
    return paddle.where(t > 1)
@paddle.jit.to_static
def pool_mask_static(t):
    return paddle.nn.functional.max_pool2d(t, 2, return_mask=True)
def setit(t, k, v):
    t[k] = v
more = [
    lambda: setit(x, 5, 1.0),
    lambda: setit(x, (0, 0, 0), 1.0),
    lambda: setit(x, 1.5, 1.0),
    lambda: setit(x, 0, paddle.ones([3])),
    lambda: setit(x, paddle.to_tensor([3]), 1.0),
    lambda: setit(x, slice(None, None, 0), 1.0),
    lambda: setit(np.ones(3), np.array([True, False]), 1.0),
    lambda: setit(np.ones(3), np.array([True, False, True]), np.ones(5)),
    lambda: setit(np.ones(3), 7, 1.0),
    lambda: x[paddle.to_tensor([[0]])],
    lambda: x[...,...],
    lambda: paddle.nonzero(paddle.to_tensor(1.0)),
    lambda: paddle.where(x > 1, x),
    lambda: paddle.where(x > 1, y=x),
    lambda: paddle.linalg.norm(x, p="nuc"),
    lambda: paddle.norm(x, p=float("nan")),
    lambda: nonzero_static(x),
    lambda: where1_static(x),
    lambda: pool_mask_static(paddle.ones([1, 1, 4, 4])),
    lambda: paddle.nn.functional.max_pool2d(paddle.ones([4, 4]), 2, return_mask=True),
    lambda: paddle.save([x], "never_written.pdparams"),
    lambda: paddle.save({"w": 1.0}, "never_written.pdparams"),
    lambda: paddle.save({1: x}, "never_written.pdparams"),
    lambda: paddle.save({"w": x}, "never_written.pdparams", protocol=2),
    lambda: paddle.nn.functional.dropout(x, 0.5, axis=-1),
]
missing = []
for i, c in enumerate(cases + more):
    try:
        c()
        missing.append(i)
    except Exception as e:
        if not str(e):
            missing.append(i)
print("cases", len(cases + more), "without an exception", missing)

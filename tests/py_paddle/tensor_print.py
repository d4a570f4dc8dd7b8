# Paddle's tensor printing on many magnitudes, dtypes and shapes.
import numpy as np
import paddle

rng = np.random.RandomState(5)
for k in [-9, -4, -2, 0, 1, 3, 6, 9]:
    a = rng.randn(6) * (10.0 ** k)
    print(paddle.to_tensor(a.astype("float32")))
    print(paddle.to_tensor(a))
print(paddle.to_tensor(rng.randn(3, 4).astype("float32")))
print(paddle.to_tensor(rng.randint(-50, 50, size=(2, 3, 4))))
print(paddle.to_tensor(rng.randint(0, 5, size=(20,)).astype("int32")))
print(paddle.to_tensor(np.arange(30, dtype="float32") / 3))
print(paddle.to_tensor(np.arange(1500, dtype="float32").reshape(3, 500)))
print(paddle.to_tensor(np.arange(2400, dtype="int64").reshape(4, 3, 200)))
print(paddle.to_tensor(rng.rand(2, 2, 2, 2).astype("float32")))
print(paddle.to_tensor([[True, False], [False, True]]))
print(paddle.to_tensor(np.array([1e-20, 1.0, 1e20], dtype="float32")))
print(paddle.to_tensor(-0.0))
print(paddle.to_tensor([1.0, 2.0]).stop_gradient, paddle.nn.Linear(2, 1).bias)

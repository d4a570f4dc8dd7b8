"""Eager micro-benchmark: Linear+ReLU+Linear, cross_entropy, backward, SGD step at batch 4."""
import sys
import time
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
paddle.set_device("cpu")
paddle.seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
rng = np.random.RandomState(0)
x = paddle.to_tensor(rng.rand(4, 16).astype("float32"))
y = paddle.to_tensor(np.array([0, 1, 2, 3], dtype="int64"))


def step():
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


for _ in range(20):
    loss = step()
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(n):
    loss = step()
t1, c1 = time.perf_counter(), time.process_time()
print("train_step %.3f us/iter cpu %.3f us/iter loss %.6f" % ((t1 - t0) * 1e6 / n, (c1 - c0) * 1e6 / n, float(loss)))

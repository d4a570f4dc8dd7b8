"""Eager micro-benchmark: x = tanh(matmul(x, w) + 0.1) on 4x4 float32."""
import sys
import time
import numpy as np
import paddle

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
paddle.set_device("cpu")
x = paddle.to_tensor(np.full((4, 4), 0.5, dtype="float32"))
w = paddle.to_tensor(np.full((4, 4), 0.1, dtype="float32"))
for _ in range(100):
    x = paddle.tanh(paddle.matmul(x, w) + 0.1)
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(n):
    x = paddle.tanh(paddle.matmul(x, w) + 0.1)
t1, c1 = time.perf_counter(), time.process_time()
print("matmul_loop %.3f us/iter cpu %.3f us/iter checksum %.6f" % ((t1 - t0) * 1e6 / n, (c1 - c0) * 1e6 / n, float(x.sum())))

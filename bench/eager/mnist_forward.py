"""Eager micro-benchmark: the MNIST CNN's Layer forward at batch 1, no to_static."""
import sys
import time
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
paddle.set_device("cpu")
paddle.seed(0)


class MNIST(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 6, 5, stride=1, padding=2)
        self.pool1 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2D(6, 16, 5, stride=1)
        self.pool2 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.fc3(x))


model = MNIST()
model.eval()
x = paddle.to_tensor(np.random.RandomState(0).rand(1, 1, 28, 28).astype("float32"))
with paddle.no_grad():
    for _ in range(20):
        y = model(x)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        y = model(x)
    t1, c1 = time.perf_counter(), time.process_time()
print("mnist_forward %.3f us/iter cpu %.3f us/iter checksum %.6f" % ((t1 - t0) * 1e6 / n, (c1 - c0) * 1e6 / n, float(y.sum())))

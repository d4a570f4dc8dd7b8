"""PyTorch eager counterpart of train_step.py: Linear+ReLU+Linear, cross_entropy, backward, SGD step."""
import sys
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
torch.set_num_threads(1)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
rng = np.random.RandomState(0)
x = torch.from_numpy(rng.rand(4, 16).astype("float32"))
y = torch.from_numpy(np.array([0, 1, 2, 3], dtype="int64"))


def step():
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss


for _ in range(20):
    loss = step()
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(n):
    loss = step()
t1, c1 = time.perf_counter(), time.process_time()
print("train_step %.3f us/iter cpu %.3f us/iter loss %.6f" % ((t1 - t0) * 1e6 / n, (c1 - c0) * 1e6 / n, float(loss)))

# A dygraph training loop fed by paddle.io.DataLoader over a TensorDataset
# (shuffle=False, batch_size 4, so the last batch of each epoch is short): an
# MLP whose weights come from NumPy (seed 4) through set_state_dict, trained
# 3 epochs with AdamW on cross-entropy. Batch shapes, per-step losses and a
# checksum of each final weight are printed rounded to 5 decimals (tolerance
# 5e-6 on each printed value).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.io import DataLoader, TensorDataset


def checksum(name, a):
    shape = list(a.shape)
    a = np.asarray(a, dtype="float64").ravel()
    k = np.cos(np.arange(a.size) * 0.1)
    print(name, shape, "%.5f %.5f %.5f" % (a.sum(), np.abs(a).mean(), (a * k).sum()))


rng = np.random.RandomState(4)
features = rng.randn(10, 6).astype("float32")
labels = rng.randint(0, 3, size=(10, 1)).astype("int64")
dataset = TensorDataset([paddle.to_tensor(features), paddle.to_tensor(labels)])
loader = DataLoader(dataset, batch_size=4, shuffle=False)
print("dataset", len(dataset), "batches", len(loader))

model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
model.set_state_dict({name: (rng.uniform(-1, 1, p.shape) * 0.5).astype("float32")
                      for name, p in model.named_parameters()})
opt = paddle.optimizer.AdamW(learning_rate=0.05, parameters=model.parameters(), weight_decay=0.01)

for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        print("epoch", epoch, "batch", i, x.shape, y.shape, "loss %.5f" % float(loss))

for name, p in model.named_parameters():
    checksum(name, p.numpy())

# The MNIST CNN of samples/mnist_cnn.py (Conv2D, MaxPool2D, Linear) trained in
# dygraph for 5 steps at batch 8 on fixed NumPy data: cross-entropy, Momentum
# with a StepDecay schedule and L2 weight decay. Weights come from NumPy
# (seed 14) through set_state_dict. Per-step losses and a checksum of each final
# weight (sum, mean of |w|, a fixed weighted sum) are printed rounded to 5
# decimals (tolerance 5e-6 on each printed value).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class MNIST(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1, padding=2)
        self.pool1 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.pool2 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.fc1 = nn.Linear(in_features=400, out_features=120)
        self.fc2 = nn.Linear(in_features=120, out_features=84)
        self.fc3 = nn.Linear(in_features=84, out_features=10)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def checksum(name, a):
    shape = list(a.shape)
    a = np.asarray(a, dtype="float64").ravel()
    k = np.cos(np.arange(a.size) * 0.1)
    print(name, shape, "%.5f %.5f %.5f" % (a.sum(), np.abs(a).mean(), (a * k).sum()))


rng = np.random.RandomState(14)
model = MNIST()
state = {}
for name, p in model.named_parameters():
    fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else 10
    state[name] = (rng.uniform(-1, 1, p.shape) / np.sqrt(fan_in)).astype("float32")
model.set_state_dict(state)

x_all = rng.rand(5, 8, 1, 28, 28).astype("float32")
y_all = rng.randint(0, 10, size=(5, 8, 1)).astype("int64")

sched = paddle.optimizer.lr.StepDecay(learning_rate=0.05, step_size=2, gamma=0.5)
opt = paddle.optimizer.Momentum(learning_rate=sched, momentum=0.9, parameters=model.parameters(),
                                weight_decay=paddle.regularizer.L2Decay(1e-3))
model.train()
for step in range(5):
    logits = model(paddle.to_tensor(x_all[step]))
    loss = F.cross_entropy(logits, paddle.to_tensor(y_all[step]))
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, "lr %.5f" % sched.get_lr(), "loss %.5f" % float(loss))
    sched.step()

for name, p in model.named_parameters():
    checksum(name, p.numpy())

# Paddle's "MNIST with LeNet" beginner tutorial (dygraph, the high-level-free loop users write):
# the tutorial's LeNet class, Adam, CrossEntropyLoss, a DataLoader over a Dataset, accuracy per
# step. The images are synthetic (no download) and the weights are set from a fixed generator
# so both runs start equal. Losses printed with 5 decimals.
import numpy as np
import paddle
import paddle.nn.functional as F


class LeNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1,
                                      padding=2)
        self.max_pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = paddle.nn.Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.max_pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.linear1 = paddle.nn.Linear(in_features=16 * 5 * 5, out_features=120)
        self.linear2 = paddle.nn.Linear(in_features=120, out_features=84)
        self.linear3 = paddle.nn.Linear(in_features=84, out_features=10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.max_pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.max_pool2(x)
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = self.linear1(x)
        x = F.relu(x)
        x = self.linear2(x)
        x = F.relu(x)
        x = self.linear3(x)
        return x


class SyntheticMNIST(paddle.io.Dataset):
    def __init__(self, n):
        rng = np.random.RandomState(7)
        self.images = rng.uniform(0, 1, (n, 1, 28, 28)).astype("float32")
        self.labels = (self.images.reshape(n, -1)[:, :10].argmax(1)).astype("int64").reshape(n, 1)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]

    def __len__(self):
        return len(self.images)


train_dataset = SyntheticMNIST(128)
train_loader = paddle.io.DataLoader(train_dataset, batch_size=32, shuffle=False)

model = LeNet()
prng = np.random.RandomState(0)
state = model.state_dict()
model.set_state_dict({k: (prng.uniform(-0.2, 0.2, v.shape)).astype("float32") for k, v in state.items()})
model.train()
optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())

epochs = 2
for epoch in range(epochs):
    for batch_id, data in enumerate(train_loader()):
        x_data = data[0]
        y_data = data[1]
        predicts = model(x_data)
        loss = F.cross_entropy(predicts, y_data)
        acc = paddle.metric.accuracy(predicts, y_data)
        loss.backward()
        print("epoch: {}, batch_id: {}, loss is: {:.5f}, acc is: {:.5f}".format(
            epoch, batch_id, float(loss.numpy()), float(acc.numpy())))
        optim.step()
        optim.clear_grad()

model.eval()
x = paddle.to_tensor(train_dataset.images[:4])
print("eval logits", " ".join("%.4f" % v for v in model(x).numpy().ravel()[:12]))
paddle.save(model.state_dict(), "lenet.pdparams")
print("saved", sorted(paddle.load("lenet.pdparams").keys()))

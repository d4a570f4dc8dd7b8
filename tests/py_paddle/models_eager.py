# The sample architectures run eagerly with weights drawn from NumPy by state_dict key.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def load_weights(model):
    sd = {}
    for key, value in model.state_dict().items():
        seed = 0
        for ch in key:
            seed = (seed * 31 + ord(ch)) % 2147483647
        rng = np.random.RandomState(seed)
        shape = value.shape
        if key.endswith("_variance"):
            arr = rng.uniform(0.5, 1.5, size=shape)
        else:
            arr = rng.uniform(-0.3, 0.3, size=shape)
        sd[key] = arr.astype("float32")
    model.set_state_dict(sd)


def show(name, t):
    a = t.numpy()
    print(name, t.dtype, t.shape, np.round(a.astype("float64"), 3).tolist())


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
        return F.softmax(self.fc3(x))


class LeNetBranch(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Linear(16 * 5 * 5, 84)
        self.head_dark = nn.Linear(84, num_classes)
        self.head_bright = nn.Linear(84, num_classes)

    def forward(self, x):
        h = self.features(x)
        h = paddle.flatten(h, 1)
        h = F.relu(self.fc(h))
        if paddle.mean(x) > 0.5:
            out = self.head_bright(h) * 2.0
        else:
            out = self.head_dark(h) - 1.0
        return out


class BasicBlock(nn.Layer):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2D(in_ch, out_ch, 3, stride=stride, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(out_ch)
        self.conv2 = nn.Conv2D(out_ch, out_ch, 3, stride=1, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(out_ch)
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(
                nn.Conv2D(in_ch, out_ch, 1, stride=stride, bias_attr=False), nn.BatchNorm2D(out_ch))
        else:
            self.shortcut = None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.shortcut is None else self.shortcut(x)
        return F.relu(out + identity)


class SmallResNet(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 8, 3, padding=1, bias_attr=False),
                                  nn.BatchNorm2D(8), nn.ReLU())
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer2(self.layer1(x))
        x = paddle.flatten(self.pool(x), 1)
        return self.fc(x)


class MultiHeadAttention(nn.Layer):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        batch, seq = x.shape[0], x.shape[1]
        qkv = self.qkv(x)
        qkv = paddle.reshape(qkv, [0, 0, 3, self.n_heads, self.d_head])
        qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = paddle.matmul(q, k, transpose_y=True) / (self.d_head ** 0.5)
        weights = F.softmax(scores, axis=-1)
        ctx = paddle.matmul(weights, v)
        ctx = paddle.transpose(ctx, [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [0, 0, self.n_heads * self.d_head])
        return self.proj(ctx)


class EncoderLayer(nn.Layer):
    def __init__(self, d_model=16, n_heads=4, d_ff=32):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        x = self.norm1(x + self.dropout(self.attn(x)))
        x = self.norm2(x + self.dropout(self.ff2(F.gelu(self.ff1(x)))))
        return x


class LSTMCellLoop(nn.Layer):
    def __init__(self, input_size=4, hidden=6):
        super().__init__()
        self.gates_x = nn.Linear(input_size, 4 * hidden)
        self.gates_h = nn.Linear(hidden, 4 * hidden, bias_attr=False)
        self.hidden = hidden

    def forward(self, x):
        batch = paddle.shape(x)[0]
        h = paddle.zeros([batch, self.hidden], dtype="float32")
        c = paddle.zeros([batch, self.hidden], dtype="float32")
        outputs = []
        for t in range(paddle.shape(x)[1]):
            x_t = x[:, t, :]
            gates = self.gates_x(x_t) + self.gates_h(h)
            i, f, g, o = paddle.split(gates, num_or_sections=4, axis=1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
            h = F.sigmoid(o) * paddle.tanh(c)
            outputs.append(h)
        return paddle.stack(outputs, axis=1), h


class CharRNN(nn.Layer):
    def __init__(self, vocab=12, embed=5, hidden=7):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.w_ih = nn.Linear(embed, hidden)
        self.w_hh = nn.Linear(hidden, hidden, bias_attr=False)
        self.out = nn.Linear(hidden, vocab)
        self.hidden = hidden

    def forward(self, ids):
        emb = self.embedding(ids)
        batch = paddle.shape(ids)[0]
        seq_len = paddle.shape(ids)[1]
        h = paddle.zeros([batch, self.hidden], dtype="float32")
        t = paddle.zeros([1], dtype="int32")
        while t < seq_len:
            x_t = paddle.gather(emb, t, axis=1)
            x_t = paddle.squeeze(x_t, axis=1)
            h = paddle.tanh(self.w_ih(x_t) + self.w_hh(h))
            t = t + 1
        return self.out(h)


class GreedyDecoder(nn.Layer):
    def __init__(self, vocab=9, hidden=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.cell = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, state, start):
        token = start
        tokens = []
        step = paddle.zeros([1], dtype="int64")
        while step < 8:
            emb = self.embedding(token)
            state = paddle.tanh(self.cell(paddle.concat([emb, state], axis=1)))
            token = paddle.argmax(self.out(state), axis=-1)
            tokens.append(token)
            step = step + 1
            if token == 3:
                break
        return paddle.concat(tokens), step


class SimpleFcLayer(paddle.nn.Layer):
    def __init__(self, batch_size, feature_size, fc_size):
        super().__init__()
        self._linear = paddle.nn.Linear(feature_size, fc_size)
        self._offset = paddle.to_tensor(
            np.random.random((batch_size, fc_size)).astype("float32"))

    def forward(self, x):
        fc = self._linear(x)
        return fc + self._offset


rng = np.random.RandomState(0)
m = MNIST()
load_weights(m)
m.eval()
out = m(paddle.to_tensor(rng.rand(2, 1, 28, 28).astype("float32")))
show("mnist", out)
print("mnist argmax", paddle.argmax(out, axis=1).numpy().tolist())

m = LeNetBranch()
load_weights(m)
m.eval()
show("lenet_bright", m(paddle.to_tensor((rng.rand(1, 1, 28, 28) * 0.5 + 0.5).astype("float32"))))
show("lenet_dark", m(paddle.to_tensor((rng.rand(1, 1, 28, 28) * 0.5).astype("float32"))))

m = SmallResNet()
load_weights(m)
m.eval()
show("resnet", m(paddle.to_tensor(rng.randn(2, 3, 8, 8).astype("float32"))))
print("resnet keys", len(m.state_dict()), list(m.state_dict().keys())[:6])

m = EncoderLayer()
load_weights(m)
m.eval()
show("encoder", m(paddle.to_tensor(rng.randn(2, 3, 16).astype("float32")))[0])

m = LSTMCellLoop()
load_weights(m)
seq, h = m(paddle.to_tensor(rng.randn(2, 3, 4).astype("float32")))
show("lstm_h", h)
print("lstm_seq", seq.shape)

m = CharRNN()
load_weights(m)
show("charrnn", m(paddle.to_tensor(rng.randint(0, 12, size=(2, 5)).astype("int64"))))

m = GreedyDecoder()
load_weights(m)
tokens, n = m(paddle.to_tensor(rng.randn(1, 6).astype("float32")), paddle.to_tensor([0]))
print("greedy", tokens.numpy().tolist(), n.numpy().tolist())

np.random.seed(2024)
m = SimpleFcLayer(2, 6, 3)
load_weights(m)
show("simple_fc", m(paddle.to_tensor(rng.rand(2, 6).astype("float32"))))
print("simple_fc state", list(m.state_dict().keys()))

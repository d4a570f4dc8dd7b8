"""PyTorch ports of the eight sample models, written to be torch.jit.script-able.

Each port keeps the sample's sub-module names, so a Paddle state_dict key maps
onto the same torch key; load_paddle_weights() transposes Linear weights
(Paddle stores [in, out], torch [out, in]) and renames BatchNorm's _mean /
_variance to running_mean / running_var. Convolution, Embedding and LayerNorm
weights have the same layout in both. Data-dependent control flow stays
Python control flow on tensor values, as in the samples.
"""
import math
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleFcLayer(nn.Module):
    """samples/simple_fc.py: linear layer plus a fixed [4, 10] offset."""

    def __init__(self, batch_size: int = 4, feature_size: int = 784, fc_size: int = 10):
        super().__init__()
        self._linear = nn.Linear(feature_size, fc_size)
        # The sample draws its offset from NumPy right after np.random.seed(2024);
        # it is a plain attribute, not part of the state_dict.
        offset = np.random.RandomState(2024).random_sample((batch_size, fc_size)).astype("float32")
        self.register_buffer("_offset", torch.from_numpy(offset))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._linear(x) + self._offset


class MNIST(nn.Module):
    """samples/mnist_cnn.py: two conv/pool stages, three linear layers, softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, stride=1, padding=2)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5, stride=1)
        self.pool2 = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.fc3(x), dim=-1)


class LeNetBranch(nn.Module):
    """samples/lenet_branch.py: the head depends on the mean brightness of the batch."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.fc = nn.Linear(16 * 5 * 5, 84)
        self.head_dark = nn.Linear(84, num_classes)
        self.head_bright = nn.Linear(84, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.features(x)
        h = torch.flatten(h, 1)
        h = F.relu(self.fc(h))
        if bool(torch.mean(x) > 0.5):
            out = self.head_bright(h) * 2.0
        else:
            out = self.head_dark(h) - 1.0
        return out


class CharRNN(nn.Module):
    """samples/char_rnn.py: embedding, then a while loop over the time axis."""

    def __init__(self, vocab: int = 32, embed: int = 16, hidden: int = 32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.w_ih = nn.Linear(embed, hidden)
        self.w_hh = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(hidden, vocab)
        self.hidden = hidden

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        emb = self.embedding(ids)
        batch = ids.size(0)
        seq_len = ids.size(1)
        h = torch.zeros(batch, self.hidden, dtype=torch.float32)
        t = 0
        while t < seq_len:
            x_t = emb[:, t, :]
            h = torch.tanh(self.w_ih(x_t) + self.w_hh(h))
            t = t + 1
        return self.out(h)


class LSTMCellLoop(nn.Module):
    """samples/lstm_cell.py: an LSTM cell unrolled by a for loop over run-time length."""

    def __init__(self, input_size: int = 8, hidden: int = 16):
        super().__init__()
        self.gates_x = nn.Linear(input_size, 4 * hidden)
        self.gates_h = nn.Linear(hidden, 4 * hidden, bias=False)
        self.hidden = hidden

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        batch = x.size(0)
        h = torch.zeros(batch, self.hidden, dtype=torch.float32)
        c = torch.zeros(batch, self.hidden, dtype=torch.float32)
        outputs: List[torch.Tensor] = []
        for t in range(x.size(1)):
            x_t = x[:, t, :]
            gates = self.gates_x(x_t) + self.gates_h(h)
            i, f, g, o = torch.chunk(gates, 4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        return torch.stack(outputs, dim=1), h


class BasicBlock(nn.Module):
    def __init__(self, in_ch: int, out_ch: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False), nn.BatchNorm2d(out_ch))
        else:
            # The sample's `None` shortcut; Identity keeps the port scriptable.
            self.shortcut = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class SmallResNet(nn.Module):
    """samples/resnet_small.py: three residual blocks with BatchNorm, global average pool."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.layer3 = BasicBlock(32, 64, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = self.layer3(self.layer2(self.layer1(x)))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.scale = math.sqrt(self.d_head)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq = x.size(0), x.size(1)
        qkv = self.qkv(x).reshape(batch, seq, 3, self.n_heads, self.d_head)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-1, -2)) / self.scale
        weights = F.softmax(scores, dim=-1)
        ctx = torch.matmul(weights, v).permute(0, 2, 1, 3)
        ctx = ctx.reshape(batch, seq, self.n_heads * self.d_head)
        return self.proj(ctx)


class EncoderLayer(nn.Module):
    """samples/transformer_encoder.py: self-attention, LayerNorm, GELU feed-forward (eval)."""

    def __init__(self, d_model: int = 32, n_heads: int = 4, d_ff: int = 64):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.norm1 = nn.LayerNorm(d_model, eps=1e-5)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-5)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.dropout(self.attn(x)))
        x = self.norm2(x + self.dropout(self.ff2(F.gelu(self.ff1(x)))))
        return x


class GreedyDecoder(nn.Module):
    """samples/greedy_decoder.py: a while loop that breaks when it emits the end token."""

    def __init__(self, vocab: int = 16, hidden: int = 24, end_token: int = 7, max_len: int = 12):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.cell = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, vocab)
        self.end_token = end_token
        self.max_len = max_len

    def forward(self, state: torch.Tensor, start: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        token = start
        tokens: List[torch.Tensor] = []
        step = torch.zeros(1, dtype=torch.int64)
        while bool(step < self.max_len):
            emb = self.embedding(token)
            state = torch.tanh(self.cell(torch.cat([emb, state], dim=1)))
            token = torch.argmax(self.out(state), dim=-1)
            tokens.append(token)
            step = step + 1
            if bool(token == self.end_token):
                break
        return torch.cat(tokens), step


PORTS = {
    "simple_fc": SimpleFcLayer, "mnist_cnn": MNIST, "lenet_branch": LeNetBranch,
    "char_rnn": CharRNN, "lstm_cell": LSTMCellLoop, "resnet_small": SmallResNet,
    "transformer_encoder": EncoderLayer, "greedy_decoder": GreedyDecoder,
}


def load_paddle_weights(model, weights):
    """Copies a Paddle state_dict (numpy arrays by Paddle key) into `model`.

    Raises KeyError when a key has no counterpart or a torch parameter is left
    without a value, ValueError when a shape does not match.
    """
    state = model.state_dict()
    modules = dict(model.named_modules())
    new = {}
    for key, value in weights.items():
        owner, _, leaf = key.rpartition(".")
        leaf = {"_mean": "running_mean", "_variance": "running_var"}.get(leaf, leaf)
        tkey = f"{owner}.{leaf}" if owner else leaf
        if tkey not in state:
            raise KeyError(f"Paddle weight {key} has no counterpart {tkey} in the port")
        if isinstance(modules.get(owner), nn.Linear) and leaf == "weight":
            value = value.T
        if tuple(value.shape) != tuple(state[tkey].shape):
            raise ValueError(f"{key}: Paddle shape {value.shape} vs torch {tuple(state[tkey].shape)}")
        new[tkey] = torch.from_numpy(np.ascontiguousarray(value))
    for tkey, value in state.items():
        if tkey in new:
            continue
        if tkey.endswith("num_batches_tracked") or tkey.endswith("_offset"):
            new[tkey] = value
        else:
            raise KeyError(f"torch {tkey} has no Paddle weight")
    model.load_state_dict(new, strict=True)
    return model


def build(sample, weights):
    """The port of `sample` in eval mode with Paddle's weights loaded."""
    model = PORTS[sample]()
    load_paddle_weights(model, weights)
    model.eval()
    return model

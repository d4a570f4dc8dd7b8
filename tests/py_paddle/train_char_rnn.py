# Char-RNN training in dygraph: Embedding, a recurrence over 8 time steps and a
# Linear head predicting the next character, trained with Adam and
# ClipGradByGlobalNorm. Two recurrences: the hand-written tanh cell of
# samples/char_rnn.py (a Python loop over time) and paddle.nn.LSTM. Weights come
# from NumPy (seed 7) through set_value. Per-step losses and a checksum of
# each final weight are printed rounded to 5 decimals (tolerance 5e-6 on each
# printed value).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

VOCAB, EMBED, HIDDEN, T, B = 24, 12, 16, 8, 4


class HandRNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMBED)
        self.w_ih = nn.Linear(EMBED, HIDDEN)
        self.w_hh = nn.Linear(HIDDEN, HIDDEN, bias_attr=False)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids):
        emb = self.embedding(ids)
        h = paddle.zeros([ids.shape[0], HIDDEN], dtype="float32")
        outs = []
        for t in range(ids.shape[1]):
            h = paddle.tanh(self.w_ih(emb[:, t, :]) + self.w_hh(h))
            outs.append(h)
        return self.out(paddle.stack(outs, axis=1))


class LSTMRNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMBED)
        self.rnn = nn.LSTM(EMBED, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids):
        y, (h, c) = self.rnn(self.embedding(ids))
        return self.out(y)


def checksum(name, a):
    shape = list(a.shape)
    a = np.asarray(a, dtype="float64").ravel()
    k = np.cos(np.arange(a.size) * 0.1)
    print(" ", name, shape, "%.5f %.5f %.5f" % (a.sum(), np.abs(a).mean(), (a * k).sum()))


def run(title, model):
    rng = np.random.RandomState(7)
    for name, p in model.named_parameters():
        p.set_value((rng.uniform(-1, 1, p.shape) * 0.3).astype("float32"))
    text = rng.randint(0, VOCAB, size=(5, B, T + 1)).astype("int64")
    clip = nn.ClipGradByGlobalNorm(clip_norm=0.5)
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters(), grad_clip=clip)
    print(title)
    for step in range(5):
        ids = paddle.to_tensor(text[step, :, :T])
        target = paddle.to_tensor(text[step, :, 1:])
        logits = model(ids)
        loss = F.cross_entropy(logits.reshape([-1, VOCAB]), target.reshape([-1, 1]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        print("  step", step, "loss %.5f" % float(loss))
    for name, p in model.named_parameters():
        checksum(name, p.numpy())


run("hand-written tanh cell", HandRNN())
run("nn.LSTM", LSTMRNN())

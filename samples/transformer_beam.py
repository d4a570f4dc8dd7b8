"""A small Transformer encoder-decoder (Vaswani et al., "Attention Is All You Need", 2017) that
translates a source token sequence with beam search: token embeddings scaled by sqrt(d_model)
plus sinusoidal position encodings, nn.Transformer's encoder and causally masked decoder, a
linear projection to the vocabulary, and a beam search loop as users write it: every step
decodes the whole prefix of each hypothesis, adds the log-probabilities to the hypotheses'
scores, keeps the best BEAM of beam x vocabulary continuations, and a hypothesis that emitted
the end token is only extended by the end token again at no cost. The chosen tokens and their
parent hypotheses are backtracked by F.gather_tree."""
import math

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

VOCAB = 12
D_MODEL = 16
HEADS = 2
FF = 32
SRC_LEN = 6
MAX_LEN = 5
BEAM = 3
BOS = 0
EOS = 1
NEG = -1e9


def positions(length, d):
    """The sinusoidal encodings of positions 0..length-1: [length, d]."""
    pos = np.arange(length)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / np.power(10000.0, (2 * (i // 2)) / d)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle)).astype("float32")


class Translator(nn.Layer):
    def __init__(self):
        super().__init__()
        self.src_embed = nn.Embedding(VOCAB, D_MODEL)
        self.tgt_embed = nn.Embedding(VOCAB, D_MODEL)
        self.transformer = nn.Transformer(D_MODEL, HEADS, 1, 1, FF, dropout=0.0)
        self.project = nn.Linear(D_MODEL, VOCAB)
        self.pe = paddle.to_tensor(positions(max(SRC_LEN, MAX_LEN + 1), D_MODEL))

    def embed(self, emb, tokens):
        length = tokens.shape[1]
        return emb(tokens) * math.sqrt(D_MODEL) + self.pe[:length]

    @paddle.jit.to_static
    def forward(self, src):
        # src: [batch, SRC_LEN] int64 source tokens
        memory = self.transformer.encoder(self.embed(self.src_embed, src))   # [B, S, D]
        # every hypothesis gets its own copy of the memory: [B * BEAM, S, D]
        memory = paddle.reshape(paddle.tile(paddle.unsqueeze(memory, 1), [1, BEAM, 1, 1]),
                                [-1, SRC_LEN, D_MODEL])
        prefix = paddle.full_like(memory[:, :1, 0], BOS, dtype="int64")       # [B * BEAM, 1]
        # only the first hypothesis is live at the start, so the first step picks distinct tokens
        scores = paddle.reshape(paddle.full_like(memory[:, 0, 0], 0.0), [-1, BEAM])
        scores = scores + paddle.to_tensor([[0.0] + [NEG] * (BEAM - 1)])    # [B, BEAM]
        eos_only = paddle.to_tensor([[0.0 if v == EOS else NEG for v in range(VOCAB)]])
        ids, parents = [], []
        for t in range(MAX_LEN):
            mask = self.transformer.generate_square_subsequent_mask(t + 1)
            h = self.transformer.decoder(self.embed(self.tgt_embed, prefix), memory,
                                         tgt_mask=mask)
            logp = F.log_softmax(self.project(h[:, -1]))                    # [B * BEAM, V]
            done = paddle.cast(prefix[:, -1:] == EOS, "float32")
            logp = done * eos_only + (1.0 - done) * logp
            total = paddle.reshape(scores, [-1, 1]) + logp
            scores, best = paddle.topk(paddle.reshape(total, [-1, BEAM * VOCAB]), BEAM)
            parent = paddle.floor_divide(best, paddle.to_tensor(VOCAB, dtype="int64"))
            token = paddle.remainder(best, paddle.to_tensor(VOCAB, dtype="int64"))
            # the prefixes of the chosen parents, then the new tokens
            rows = paddle.reshape(parent + paddle.unsqueeze(
                paddle.arange(0, parent.shape[0], dtype="int64") * BEAM, 1), [-1])
            prefix = paddle.concat([paddle.gather(prefix, rows),
                                    paddle.reshape(token, [-1, 1])], axis=1)
            ids.append(token)
            parents.append(parent)
        seqs = F.gather_tree(paddle.stack(ids), paddle.stack(parents))         # [T, B, BEAM]
        return paddle.transpose(seqs, [1, 2, 0]), scores


def build_model():
    model = Translator()
    model.eval()
    return model


INPUT_SPEC = [InputSpec(shape=[2, SRC_LEN], dtype="int64", name="src")]


def example_inputs(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randint(2, VOCAB, size=(2, SRC_LEN)).astype("int64")]


def other_inputs(seed=5):
    rng = np.random.RandomState(seed)
    return [rng.randint(2, VOCAB, size=(2, SRC_LEN)).astype("int64")]


if __name__ == "__main__":
    model = build_model()
    seqs, scores = model(paddle.to_tensor(example_inputs()[0]))
    print(seqs.numpy(), scores.numpy())

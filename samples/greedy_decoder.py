"""A greedy decoder: a tensor `while` that stops early with `break` when it emits the end token."""
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec

VOCAB = 16
HIDDEN = 24
END_TOKEN = 7
MAX_LEN = 12


class GreedyDecoder(nn.Layer):
    def __init__(self, vocab=VOCAB, hidden=HIDDEN):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.cell = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    @paddle.jit.to_static
    def forward(self, state, start):
        # state: [1, hidden] encoder summary; start: [1] int64 start token
        token = start
        tokens = []
        step = paddle.zeros([1], dtype="int64")
        while step < MAX_LEN:
            emb = self.embedding(token)                              # [1, hidden]
            state = paddle.tanh(self.cell(paddle.concat([emb, state], axis=1)))
            token = paddle.argmax(self.out(state), axis=-1)          # [1]
            tokens.append(token)
            step = step + 1
            if token == END_TOKEN:
                break
        return paddle.concat(tokens), step


def build_model():
    return GreedyDecoder()


INPUT_SPEC = [InputSpec(shape=[1, HIDDEN], dtype="float32", name="state"),
              InputSpec(shape=[1], dtype="int64", name="start")]


def example_inputs(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(1, HIDDEN).astype("float32"), np.array([0], dtype="int64")]


def other_inputs(seed=3):
    rng = np.random.RandomState(seed)
    return [(rng.randn(1, HIDDEN) * 3).astype("float32"), np.array([5], dtype="int64")]


if __name__ == "__main__":
    model = build_model()
    tokens, n = model(*[paddle.to_tensor(a) for a in example_inputs()])
    print("tokens:", tokens.numpy(), "steps:", n.numpy())

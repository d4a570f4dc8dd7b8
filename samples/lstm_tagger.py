"""A sequence tagger: embeddings, a 2-layer bidirectional LSTM over padded batches with their
lengths, and a per-token classifier (nn.LSTM's time loop is a while_loop in the Program)."""
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec

VOCAB = 40
EMBED = 12
HIDDEN = 16
TAGS = 7


class LSTMTagger(nn.Layer):
    def __init__(self, vocab=VOCAB, embed=EMBED, hidden=HIDDEN, tags=TAGS):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=2, direction="bidirect")
        self.classify = nn.Linear(2 * hidden, tags)

    @paddle.jit.to_static
    def forward(self, ids, lengths):
        feats, (h, c) = self.lstm(self.embedding(ids), sequence_length=lengths)
        return self.classify(feats), h


def build_model():
    return LSTMTagger()


INPUT_SPEC = [InputSpec(shape=[None, None], dtype="int64", name="ids"),
              InputSpec(shape=[None], dtype="int64", name="lengths")]


def example_inputs(batch=3, time=6, seed=0):
    rng = np.random.RandomState(seed)
    lengths = np.array([time, 4, 1][:batch], dtype="int64")
    return [rng.randint(0, VOCAB, size=(batch, time)).astype("int64"), lengths]


def other_inputs(batch=2, time=9, seed=1):
    rng = np.random.RandomState(seed)
    lengths = np.array([5, time][:batch], dtype="int64")
    return [rng.randint(0, VOCAB, size=(batch, time)).astype("int64"), lengths]


if __name__ == "__main__":
    model = build_model()
    out, h = model(*[paddle.to_tensor(a) for a in example_inputs()])
    print(out.shape, h.shape)

"""A character-level RNN whose time loop is a tensor `while` over the sequence length."""
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec
VOCAB = 32
EMBED = 16
HIDDEN = 32

class CharRNN(nn.Layer):

    def __init__(self, vocab=VOCAB, embed=EMBED, hidden=HIDDEN):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.w_ih = nn.Linear(embed, hidden)
        self.w_hh = nn.Linear(hidden, hidden, bias_attr=False)
        self.out = nn.Linear(hidden, vocab)
        self.hidden = hidden

    def forward(self, ids):
        emb = _jst.Call(self.embedding)(ids)
        batch = paddle.shape(ids)[0]
        seq_len = paddle.shape(ids)[1]
        h = paddle.zeros([batch, self.hidden], dtype='float32')
        t = paddle.zeros([1], dtype='int32')

        def while_cond_28(h, t):
            return t < seq_len

        def while_body_28(h, t):
            x_t = paddle.gather(emb, t, axis=1)
            x_t = paddle.squeeze(x_t, axis=1)
            h = paddle.tanh(_jst.Call(self.w_ih)(x_t) + _jst.Call(self.w_hh)(h))
            t = t + 1
            return (h, t)
        h, t = _jst.While(while_cond_28, while_body_28, (h, t), ('h', 't'))
        return _jst.Call(self.out)(h)

def build_model():
    return CharRNN()
INPUT_SPEC = [InputSpec(shape=[None, None], dtype='int64', name='ids')]

def example_inputs(batch=3, time=7, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randint(0, VOCAB, size=(batch, time)).astype('int64')]

def other_inputs(batch=2, time=12, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.randint(0, VOCAB, size=(batch, time)).astype('int64')]
if __name__ == '__main__':
    model = build_model()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

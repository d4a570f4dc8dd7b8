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

    def forward(self, state, start):
        token = start
        tokens = []
        step = paddle.zeros([1], dtype='int64')
        _break_26 = False

        def while_cond_26(_break_26, state, step, token, tokens):
            return _jst.And(lambda: _jst.Not(_break_26), lambda: step < MAX_LEN)

        def while_body_26(_break_26, state, step, token, tokens):
            emb = _jst.Call(self.embedding)(token)
            state = paddle.tanh(_jst.Call(self.cell)(paddle.concat([emb, state], axis=1)))
            token = paddle.argmax(_jst.Call(self.out)(state), axis=-1)
            tokens.append(token)
            step = step + 1

            def if_true_32(_break_26):
                _break_26 = True
                return _break_26

            def if_false_32(_break_26):
                return _break_26
            _break_26 = _jst.IfElse(token == END_TOKEN, if_true_32, if_false_32, (_break_26,), ('_break_26',))
            return (_break_26, state, step, token, tokens)
        _break_26, state, step, token, tokens = _jst.While(while_cond_26, while_body_26, (_break_26, state, step, token, tokens), ('_break_26', 'state', 'step', 'token', 'tokens'))
        return (paddle.concat(tokens), step)

def build_model():
    return GreedyDecoder()
INPUT_SPEC = [InputSpec(shape=[1, HIDDEN], dtype='float32', name='state'), InputSpec(shape=[1], dtype='int64', name='start')]

def example_inputs(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(1, HIDDEN).astype('float32'), np.array([0], dtype='int64')]

def other_inputs(seed=3):
    rng = np.random.RandomState(seed)
    return [(rng.randn(1, HIDDEN) * 3).astype('float32'), np.array([5], dtype='int64')]
if __name__ == '__main__':
    model = build_model()
    tokens, n = model(*[paddle.to_tensor(a) for a in example_inputs()])
    print('tokens:', tokens.numpy(), 'steps:', n.numpy())

"""A Transformer encoder layer: multi-head self-attention, LayerNorm and a GELU feed-forward block."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec
D_MODEL = 32
N_HEADS = 4
D_FF = 64

class MultiHeadAttention(nn.Layer):

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        batch, seq = (x.shape[0], x.shape[1])
        qkv = self.qkv(x)
        qkv = paddle.reshape(qkv, [0, 0, 3, self.n_heads, self.d_head])
        qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = (qkv[0], qkv[1], qkv[2])
        scores = paddle.matmul(q, k, transpose_y=True) / self.d_head ** 0.5
        weights = F.softmax(scores, axis=-1)
        ctx = paddle.matmul(weights, v)
        ctx = paddle.transpose(ctx, [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [0, 0, self.n_heads * self.d_head])
        return self.proj(ctx)

class EncoderLayer(nn.Layer):

    def __init__(self, d_model=D_MODEL, n_heads=N_HEADS, d_ff=D_FF):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        x = _jst.Call(self.norm1)(x + _jst.Call(self.dropout)(_jst.Call(self.attn)(x)))
        x = _jst.Call(self.norm2)(x + _jst.Call(self.dropout)(_jst.Call(self.ff2)(F.gelu(_jst.Call(self.ff1)(x)))))
        return x

def build_model():
    return EncoderLayer()
INPUT_SPEC = [InputSpec(shape=[None, None, D_MODEL], dtype='float32', name='x')]

def example_inputs(batch=2, seq=6, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(batch, seq, D_MODEL).astype('float32')]

def other_inputs(batch=1, seq=11, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.randn(batch, seq, D_MODEL).astype('float32')]
if __name__ == '__main__':
    model = build_model()
    model.eval()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

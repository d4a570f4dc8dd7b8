# MultiHeadAttention (masks, caches, need_weights), the Transformer encoder/decoder layers and
# stacks, Transformer itself, scaled_dot_product_attention and gather_tree, on fixed weights,
# eagerly and through to_static; bad arguments. Values rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, x in enumerate(t):
            show(name + "[%d]" % i, x)
        return
    a = t.numpy()
    if a.dtype.kind in "iub":
        print(name, t.shape, a.tolist())
        return
    print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn, typed=True):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__ if typed else "error")


rs = np.random.RandomState(0)
q = paddle.to_tensor(rs.rand(2, 3, 8).astype("float32") - 0.5)
kv = paddle.to_tensor(rs.rand(2, 5, 6).astype("float32") - 0.5)

# ---- MultiHeadAttention: self, cross with kdim/vdim, masks of each kind, weights, caches
mha = nn.MultiHeadAttention(8, 2, need_weights=True)
print(sorted((k, v.shape) for k, v in mha.state_dict().items()))
setw(mha, 1)
show("mha self", mha(q))
bool_mask = paddle.to_tensor(np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1]], dtype="bool"))
show("mha bool mask", mha(q, attn_mask=bool_mask))
show("mha int mask", mha(q, attn_mask=paddle.cast(bool_mask, "int64")))
show("mha float mask", mha(q, attn_mask=paddle.to_tensor(
    np.array([[0, -1.0, -2.0], [0, 0, -1e9], [0.5, 0, 0]], dtype="float32"))))
cross = nn.MultiHeadAttention(8, 4, kdim=6, vdim=6)
setw(cross, 2)
show("mha cross", cross(q, kv, kv))
show("mha cross mask", cross(q, kv, kv, paddle.to_tensor(rs.rand(2, 1, 3, 5) > 0.3)))
cache = mha.gen_cache(q)
print("empty cache", cache.k.shape, cache.v.shape, type(cache).__name__)
out, w, c1 = mha(q[:, :1], cache=cache)
out2, w2, c2 = mha(q[:, 1:2], cache=c1)
show("mha cached step2", out2)
show("mha cached weights", w2)
print("cache grows", c2.k.shape)
st = cross.gen_cache(kv, kv, type=nn.MultiHeadAttention.StaticCache)
o1, _ = cross(q, kv, kv, None, st)
show("mha static cache", o1)

# ---- encoder/decoder layers, post-norm and pre-norm, gelu, stacks
for pre in [False, True]:
    enc_layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=pre,
                                           activation="gelu" if pre else "relu")
    enc = nn.TransformerEncoder(enc_layer, 2, nn.LayerNorm(8) if pre else None)
    setw(enc, 3)
    show("encoder pre=%s" % pre, enc(q))
    show("encoder mask pre=%s" % pre, enc(q, paddle.to_tensor(rs.rand(2, 1, 1, 3) > 0.2)))
    dec_layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=pre)
    dec = nn.TransformerDecoder(dec_layer, 2)
    setw(dec, 4)
    mem = enc(q)
    tgt = paddle.to_tensor(rs.rand(2, 4, 8).astype("float32") - 0.5)
    show("decoder pre=%s" % pre, dec(tgt, mem))
print("decoder layers", len(dec.layers), sorted(dec.layers[1].state_dict().keys())[:4])

# incremental decoding with the decoder's caches equals the full causal pass
t = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0)
setw(t, 5)
src = paddle.to_tensor(rs.rand(2, 3, 8).astype("float32") - 0.5)
tgt = paddle.to_tensor(rs.rand(2, 4, 8).astype("float32") - 0.5)
causal = t.generate_square_subsequent_mask(4)
show("causal mask", causal)
full = t(src, tgt, tgt_mask=causal)
show("transformer", full)
mem = t.encoder(src)
caches = t.decoder.gen_cache(mem)
steps = []
for i in range(4):
    y, caches = t.decoder(tgt[:, i:i + 1], mem, cache=caches)
    steps.append(y)
print("incremental == full", bool(paddle.allclose(paddle.concat(steps, 1), full, atol=1e-5)))
print("transformer params", len(t.parameters()))


# ---- to_static
class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, normalize_before=True)

    @paddle.jit.to_static
    def forward(self, s, g):
        return self.t(s, g, tgt_mask=self.t.generate_square_subsequent_mask(4))


m = Seq2Seq()
setw(m, 6)
m.eval()
show("to_static transformer", m(src, tgt))

# ---- scaled_dot_product_attention and gather_tree
a = paddle.to_tensor(rs.rand(2, 3, 2, 4).astype("float32") - 0.5)
b = paddle.to_tensor(rs.rand(2, 5, 2, 4).astype("float32") - 0.5)
show("sdpa", F.scaled_dot_product_attention(a, b, b))
ids = paddle.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
parents = paddle.to_tensor([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
show("gather_tree", F.gather_tree(ids, parents))
show("gather_tree one step", F.gather_tree(ids[:1], parents[:1]))

# ---- bad arguments
err("embed not divisible", lambda: nn.MultiHeadAttention(6, 4))
err("gather_tree shapes", lambda: F.gather_tree(ids, parents[:2]))
err("gather_tree float", lambda: F.gather_tree(paddle.cast(ids, "float32"), parents), False)
err("transformer attr list", lambda: nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None] * 4))

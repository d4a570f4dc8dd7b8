# Padding, interpolation, shuffles, unfold/fold, 1-D and 3-D pooling, distances, Bilinear, the small
# layers (Identity, Unflatten, ParameterList), eagerly on fixed values.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, v in enumerate(t):
            show(name + "[%d]" % i, v)
        return
    print(name, t.shape, (np.round(t.numpy().astype("float64"), 4) + 0.0).tolist())


rs = np.random.RandomState(0)
x3 = paddle.to_tensor(rs.rand(2, 3, 5).astype("float32"))
x4 = paddle.to_tensor(rs.rand(2, 3, 4, 5).astype("float32"))
x5 = paddle.to_tensor(rs.rand(1, 2, 3, 3, 4).astype("float32"))

# ---- pad
for mode in ["constant", "reflect", "replicate", "circular"]:
    show("pad1d " + mode, F.pad(x3, [2, 1], mode=mode, value=0.5, data_format="NCL"))
    show("pad2d " + mode, F.pad(x4, [1, 2, 2, 0], mode=mode))
    show("pad3d " + mode, F.pad(x5, [1, 0, 0, 1, 2, 1], mode=mode, data_format="NCDHW"))
show("pad nhwc", F.pad(paddle.transpose(x4, [0, 2, 3, 1]), [1, 1, 2, 0], mode="reflect",
                       data_format="NHWC"))
show("pad all dims", F.pad(x3, [1, 0, 0, 1, 2, 2], value=-1.0))
for layer, inp in [(nn.Pad1D(2, mode="reflect"), x3), (nn.Pad2D([1, 0, 2, 1], value=3.0), x4),
                   (nn.Pad3D(1, mode="replicate"), x5), (nn.ZeroPad2D([0, 1, 1, 0]), x4)]:
    print(layer)
    show(type(layer).__name__, layer(inp))

# ---- interpolate / Upsample
xi = paddle.to_tensor(rs.rand(1, 2, 3, 4).astype("float32"))
cases = [
    dict(scale_factor=2), dict(size=[5, 7]), dict(scale_factor=[1.5, 0.5]),
    dict(size=[5, 7], mode="bilinear"), dict(size=[5, 7], mode="bilinear", align_corners=True),
    dict(size=[2, 6], mode="bilinear", align_mode=1), dict(scale_factor=1.7, mode="bilinear"),
    dict(size=[5, 7], mode="bicubic"), dict(size=[6, 3], mode="bicubic", align_corners=True),
    dict(scale_factor=2, mode="bicubic"),
    dict(size=[4, 6], mode="nearest", data_format="NHWC"),
]
for kw in cases:
    inp = paddle.transpose(xi, [0, 2, 3, 1]) if kw.get("data_format") == "NHWC" else xi
    show("interp %s" % sorted(kw.items()), F.interpolate(inp, **kw))
# mode "area" is left out: Paddle 2.6 prints its size to stdout there
show("interp linear", F.interpolate(x3, size=[8], mode="linear", data_format="NCW"))
show("interp linear ac", F.interpolate(x3, scale_factor=0.6, mode="linear", align_corners=True,
                                       data_format="NCW"))
show("interp trilinear", F.interpolate(x5, size=[2, 4, 5], mode="trilinear",
                                       data_format="NCDHW"))
show("interp nearest 3d", F.interpolate(x5, scale_factor=2, data_format="NCDHW"))
show("upsample fn", F.upsample(xi, scale_factor=2, mode="bilinear"))
for layer in [nn.Upsample(scale_factor=2), nn.Upsample(size=[4, 5], mode="bilinear",
                                                       align_corners=True),
              nn.UpsamplingNearest2D(scale_factor=2), nn.UpsamplingBilinear2D(size=[5, 6])]:
    print(layer)
    show(type(layer).__name__, layer(xi))

# ---- shuffles
xs = paddle.to_tensor(np.arange(2 * 8 * 2 * 2).reshape(2, 8, 2, 2).astype("float32"))
show("pixel_shuffle", F.pixel_shuffle(xs, 2))
show("pixel_unshuffle", F.pixel_unshuffle(F.pixel_shuffle(xs, 2), 2))
show("channel_shuffle", F.channel_shuffle(xs, 4))
for layer, inp in [(nn.PixelShuffle(2), xs), (nn.PixelUnshuffle(2, "NHWC"),
                                              paddle.transpose(xs, [0, 2, 3, 1])),
                   (nn.ChannelShuffle(2, "NHWC"), paddle.transpose(xs, [0, 2, 3, 1]))]:
    print(layer)
    show(type(layer).__name__, layer(inp))

# ---- unfold / fold
show("unfold", F.unfold(x4, [2, 3]))
show("unfold strided", F.unfold(x4, 2, strides=2, paddings=1, dilations=1))
show("unfold pads4", F.unfold(x4, [2, 2], paddings=[1, 0, 0, 1], dilations=[1, 2]))
cols = F.unfold(x4, [2, 2], strides=1)
show("fold", F.fold(cols, [4, 5], [2, 2]))
show("fold strided", F.fold(F.unfold(x4, 2, strides=2, paddings=1), [4, 5], 2, strides=2,
                            paddings=1))
print(nn.Unfold([2, 2], strides=2), nn.Fold([4, 5], 2, paddings=1))
show("Unfold", nn.Unfold([2, 2], strides=2)(x4))

# ---- 1-D pooling
show("avg_pool1d", F.avg_pool1d(x3, 2))
show("avg_pool1d pad", F.avg_pool1d(x3, 3, stride=2, padding=1, exclusive=False))
show("max_pool1d", F.max_pool1d(x3, 2, stride=1))
show("max_pool1d ceil", F.max_pool1d(x3, 2, ceil_mode=True))
show("max_pool1d mask", F.max_pool1d(x3, 2, return_mask=True))
show("adaptive_avg_pool1d", F.adaptive_avg_pool1d(x3, 3))
show("adaptive_max_pool1d", F.adaptive_max_pool1d(x3, 2))
for layer in [nn.AvgPool1D(2), nn.MaxPool1D(3, 1, 1), nn.AdaptiveAvgPool1D(4),
              nn.AdaptiveMaxPool1D(2)]:
    print(layer)
    show(type(layer).__name__, layer(x3))

# ---- distances, Bilinear
a = paddle.to_tensor(rs.rand(3, 4).astype("float32") - 0.5)
b = paddle.to_tensor(rs.rand(3, 4).astype("float32") - 0.5)
show("cosine_similarity", F.cosine_similarity(a, b))
show("cosine_similarity axis0", F.cosine_similarity(a, b, axis=0))
print(nn.CosineSimilarity(axis=-1, eps=1e-6))
show("CosineSimilarity", nn.CosineSimilarity(axis=-1)(a, b))
for p in [2.0, 1.0, 3.0, float("inf")]:
    show("pairwise_distance p=%s" % p, F.pairwise_distance(a, b, p=p))
show("pairwise keepdim", F.pairwise_distance(a, b, keepdim=True, epsilon=0.0))
print(nn.PairwiseDistance(p=1.0, epsilon=1e-3, keepdim=True))
show("PairwiseDistance", nn.PairwiseDistance()(a, b))
bl = nn.Bilinear(4, 4, 2)
bl.weight.set_value(rs.rand(2, 4, 4).astype("float32") - 0.5)
bl.bias.set_value(rs.rand(1, 2).astype("float32"))
print(bl, [(n, p.shape) for n, p in bl.named_parameters()])
show("Bilinear", bl(a, b))
show("F.bilinear", F.bilinear(a, b, bl.weight))

# ---- Identity, Unflatten, ParameterList, Embedding options
print(nn.Identity(3, k=4), nn.Unflatten(1, [2, 2]))
show("Identity", nn.Identity()(a))
show("Unflatten", nn.Unflatten(1, [2, 2])(a))
show("Unflatten -1", nn.Unflatten(-1, [-1, 5])(x4))
params = nn.ParameterList([paddle.create_parameter([2], "float32") for _ in range(2)])
params.append(paddle.create_parameter([3], "float32"))
print(params, len(params), list(params.state_dict().keys()), [p.shape for p in params])
print(params[2].shape)
emb = nn.Embedding(5, 3, padding_idx=-2, sparse=True)
emb.weight.set_value(np.arange(15).reshape(5, 3).astype("float32"))
print(emb)
show("Embedding padding_idx", emb(paddle.to_tensor([[0, 3, 4]])))

# ---- 3-D pooling
rs = np.random.RandomState(1)
x5p = paddle.to_tensor(rs.rand(2, 3, 5, 4, 6).astype("float32") - 0.5)
show("max_pool3d", F.max_pool3d(x5p, 2))
show("max_pool3d s p", F.max_pool3d(x5p, 3, stride=2, padding=1))
show("max_pool3d ceil", F.max_pool3d(x5p, [2, 3, 2], stride=[2, 2, 3], ceil_mode=True))
show("avg_pool3d", F.avg_pool3d(x5p, 2))
show("avg_pool3d pad excl", F.avg_pool3d(x5p, 3, stride=2, padding=1))
show("avg_pool3d pad incl", F.avg_pool3d(x5p, 3, stride=2, padding=[1, 0, 1], exclusive=False))
show("avg_pool3d pad6 ceil", F.avg_pool3d(x5p, [2, 2, 3], stride=2, padding=[1, 0, 0, 1, 1, 1],
                                          ceil_mode=True, exclusive=False))
show("avg_pool3d same", F.avg_pool3d(x5p, 3, stride=2, padding="SAME"))
show("max_pool3d ndhwc", F.max_pool3d(paddle.transpose(x5p, [0, 2, 3, 4, 1]), 2,
                                      data_format="NDHWC"))
show("adaptive_avg_pool3d", F.adaptive_avg_pool3d(x5p, [2, 3, 4]))
show("adaptive_avg_pool3d 1", F.adaptive_avg_pool3d(x5p, 1))
show("adaptive_max_pool3d", F.adaptive_max_pool3d(x5p, [3, 2, 4]))
for layer in [nn.MaxPool3D(2, 1), nn.AvgPool3D(3, 2, 1), nn.AdaptiveAvgPool3D([1, 2, 3]),
              nn.AdaptiveMaxPool3D(2)]:
    print(layer)
    show(type(layer).__name__, layer(x5p))

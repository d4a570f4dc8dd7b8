# affine_grid and grid_sample (bilinear and nearest; zeros, border and reflection padding;
# align_corners both ways), their gradients, and gumbel_softmax's properties (its noise is
# random); bad arguments. Values rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    a = t.numpy()
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        print(name, t.shape, a.tolist())
    else:
        print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


theta = paddle.to_tensor([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]],
                          [[1.3, 0.0, 0.4], [0.0, 1.2, 0.35]]], dtype="float32")
show("affine_grid", F.affine_grid(theta, [2, 1, 3, 4]))
show("affine_grid noalign", F.affine_grid(theta, [2, 3, 3, 4], align_corners=False))
show("affine_grid shape tensor", F.affine_grid(theta[:1], paddle.to_tensor([1, 1, 2, 2])))
x = paddle.to_tensor(np.arange(2 * 2 * 4 * 5).reshape(2, 2, 4, 5).astype("float32") / 10)
for align in [True, False]:
    grid = F.affine_grid(theta, [2, 2, 3, 3], align_corners=align)
    for pad in ["zeros", "border", "reflection"]:
        show("grid_sample %s %s" % (align, pad),
             F.grid_sample(x, grid, padding_mode=pad, align_corners=align))
g2 = paddle.to_tensor(np.array([[[[-0.93, -0.61], [0.27, 0.41]], [[0.82, -0.33], [1.4, 1.1]]],
                                [[[0.14, 0.72], [-1.3, 0.05]], [[0.55, 0.56], [0.0, -0.88]]]],
                               "float32"))
show("grid_sample nearest", F.grid_sample(x, g2, mode="nearest"))
show("grid_sample nearest noalign", F.grid_sample(x, g2, mode="nearest", align_corners=False))
xg = paddle.to_tensor(x.numpy(), stop_gradient=False)
gg = paddle.to_tensor(g2.numpy(), stop_gradient=False)
F.grid_sample(xg, gg, align_corners=False).sum().backward()
show("grad x", xg.grad)
show("grad grid", gg.grad)

paddle.seed(1)
logits = paddle.to_tensor(np.random.RandomState(2).randn(4, 6).astype("float32"))
s = F.gumbel_softmax(logits, temperature=0.5)
print("gumbel shape", s.shape, "sums", np.allclose(s.sum(-1).numpy(), 1.0, atol=1e-5),
      "positive", bool((s > 0).all()))
h = F.gumbel_softmax(logits, hard=True)
print("gumbel hard", sorted(set(h.numpy().ravel().tolist())), h.sum(-1).numpy().tolist())
h0 = F.gumbel_softmax(paddle.to_tensor(np.random.RandomState(3).randn(3, 4).astype("float32")),
                      hard=True, axis=0)
print("gumbel axis0", h0.sum(0).numpy().tolist())
peaked = F.gumbel_softmax(paddle.to_tensor([[0.0, 40.0, 0.0]]), hard=True)
print("gumbel peaked", peaked.numpy().tolist())

err("grid_sample mode", lambda: F.grid_sample(x, g2, mode="bicubic"))
err("grid_sample padding", lambda: F.grid_sample(x, g2, padding_mode="wrap"))
err("affine_grid theta", lambda: F.affine_grid([[1.0]], [1, 1, 2, 2]))

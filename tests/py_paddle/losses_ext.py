# The metric-learning, margin and likelihood losses of paddle.nn.functional and their Layers,
# with their options, edge cases and bad arguments; values rounded to 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def show(name, t):
    a = np.array(t.numpy(), dtype="float64")
    print(name, list(t.shape), str(t.dtype).replace("paddle.", ""), (np.round(a, 5) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, (str(e).splitlines() or [""])[0][:150])


x = paddle.to_tensor(np.sin(np.arange(12) * 0.7).reshape(4, 3).astype("float32") * 2)
y = paddle.to_tensor(np.cos(np.arange(12) * 0.3).reshape(4, 3).astype("float32"))
z = paddle.to_tensor(np.sin(np.arange(12) * 1.3 + 0.5).reshape(4, 3).astype("float32"))
sign = paddle.to_tensor(np.array([[1, -1, 1], [-1, -1, 1], [1, 1, 1], [-1, 1, -1]], "float32"))
multi = paddle.to_tensor(np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 1, 0]], "float32"))
cls = paddle.to_tensor(np.array([0, 2, 1, 2], "int64"))
w = paddle.to_tensor(np.array([0.5, 1.0, 2.0], "float32"))
pos = paddle.abs(y) + 0.1

for red in ["mean", "sum", "none"]:
    show("soft_margin " + red, F.soft_margin_loss(x, sign, red))
    show("multi_label " + red, F.multi_label_soft_margin_loss(x, multi, reduction=red))
    show("multi_label w " + red, F.multi_label_soft_margin_loss(x, multi, w, red))
    show("cosine_emb " + red, F.cosine_embedding_loss(x, y, paddle.to_tensor([1, -1, 1, -1]),
                                                     margin=0.2, reduction=red))
    show("multi_margin " + red, F.multi_margin_loss(x, cls, reduction=red))
    show("poisson " + red, F.poisson_nll_loss(x, pos, reduction=red))
    show("gauss " + red, F.gaussian_nll_loss(x, y, pos, reduction=red))
    show("triplet " + red, F.triplet_margin_loss(x, y, z, reduction=red))
    show("triplet_dist " + red, F.triplet_margin_with_distance_loss(x, y, z, reduction=red))
    show("focal " + red, F.sigmoid_focal_loss(x, multi, reduction=red))

show("multi_margin p2 w", F.multi_margin_loss(x, cls, p=2, margin=0.5, weight=w))
show("poisson raw full", F.poisson_nll_loss(pos, pos * 3, log_input=False, full=True))
show("gauss full homosc", F.gaussian_nll_loss(x, y, paddle.to_tensor([0.5, 1.0, 2.0, 0.0]),
                                              full=True, reduction="none"))
show("gauss var col", F.gaussian_nll_loss(x, y, paddle.ones([4, 1]) * 0.3))
show("triplet p1 swap", F.triplet_margin_loss(x, y, z, margin=0.3, p=1, swap=True))
show("triplet_dist fn", F.triplet_margin_with_distance_loss(
    x, y, z, distance_function=lambda a, b: paddle.sum(paddle.abs(a - b), -1) + 0.1,
    margin=0.5, swap=True))
show("cosine_emb 1d", F.cosine_embedding_loss(x[0], y[0], paddle.to_tensor([-1])))
show("focal norm", F.sigmoid_focal_loss(x, multi, normalizer=paddle.to_tensor([2.0]),
                                        alpha=0.5, gamma=1.0))
probs = F.softmax(x)
show("dice", F.dice_loss(probs, paddle.to_tensor([[0], [2], [1], [2]])))
show("dice 3d", F.dice_loss(F.softmax(paddle.reshape(x, [2, 2, 3])),
                            paddle.to_tensor([[[0], [2]], [[1], [1]]])))
show("npair", F.npair_loss(x, y, paddle.to_tensor([1.0, 2.0, 1.0, 3.0])))
show("npair int", F.npair_loss(x, z, paddle.to_tensor([0, 0, 0, 0]), l2_reg=0.1))

# the Layers, and a gradient through one
show("L soft", nn.SoftMarginLoss()(x, sign))
show("L multi_label", nn.MultiLabelSoftMarginLoss(weight=w, reduction="sum")(x, multi))
show("L cosine", nn.CosineEmbeddingLoss(margin=-0.5)(x, y, paddle.to_tensor([1, -1, -1, -1])))
show("L multi_margin", nn.MultiMarginLoss(p=2, weight=w)(x, cls))
show("L poisson", nn.PoissonNLLLoss(log_input=False, full=True, reduction="none")(pos, pos * 2))
show("L gauss", nn.GaussianNLLLoss(full=True)(x, y, pos))
show("L triplet", nn.TripletMarginLoss(margin=0.5, p=3, swap=True)(x, y, z))
show("L triplet_dist", nn.TripletMarginWithDistanceLoss(margin=2.0)(x, y, z))
xg = paddle.to_tensor(x.numpy(), stop_gradient=False)
F.triplet_margin_loss(xg, y, z).backward()
show("triplet grad", xg.grad)
xg = paddle.to_tensor(x.numpy(), stop_gradient=False)
F.multi_margin_loss(xg, cls, weight=w).backward()
show("multi_margin grad", xg.grad)

# bad arguments
err("soft_margin red", lambda: F.soft_margin_loss(x, sign, "avg"))
err("soft_margin shape", lambda: F.soft_margin_loss(x, sign[:2]))
err("cosine label 2d", lambda: F.cosine_embedding_loss(x, y, paddle.ones([4, 1])))
err("cosine shapes", lambda: F.cosine_embedding_loss(x, y[:2], paddle.ones([4])))
err("cosine margin", lambda: nn.CosineEmbeddingLoss(margin=2))
err("multi_margin rows", lambda: F.multi_margin_loss(x, cls[:3]))
err("poisson eps", lambda: F.poisson_nll_loss(x, pos, epsilon=0))
err("gauss var shape", lambda: F.gaussian_nll_loss(x, y, paddle.ones([3])))
err("gauss negative", lambda: F.gaussian_nll_loss(x, y, -pos))
err("triplet margin", lambda: F.triplet_margin_loss(x, y, z, margin=-1.0))
err("triplet shapes", lambda: F.triplet_margin_loss(x, y[:2], z))
err("triplet_dist zero", lambda: F.triplet_margin_with_distance_loss(x, x, z))
err("dice label last", lambda: F.dice_loss(probs, paddle.to_tensor([[0, 1], [2, 1], [1, 1], [2, 0]])))
err("focal red", lambda: F.sigmoid_focal_loss(x, multi, reduction="max"))
err("multi_label shape", lambda: F.multi_label_soft_margin_loss(x, multi[:, :2]))

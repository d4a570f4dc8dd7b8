# Every loss of paddle.nn.functional and paddle.nn with its options, and bad arguments;
# values printed rounded to 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    a = np.array(t.numpy(), dtype="float64")
    print(name, list(t.shape), str(t.dtype).replace("paddle.", ""), np.round(a, 5).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, (str(e).splitlines() or [""])[0][:150])


x = paddle.to_tensor(np.sin(np.arange(12) * 0.7).reshape(4, 3).astype("float32") * 2)
lab = paddle.to_tensor(np.array([0, 2, 1, 2], dtype="int64"))
lab2 = paddle.to_tensor(np.array([[0], [2], [1], [2]], dtype="int64"))
w = paddle.to_tensor(np.array([0.5, 1.0, 2.0], dtype="float32"))
soft = F.softmax(paddle.to_tensor(np.cos(np.arange(12) * 0.3).reshape(4, 3).astype("float32")))

for red in ["mean", "sum", "none"]:
    show("ce " + red, F.cross_entropy(x, lab, reduction=red))
    show("ce2 " + red, F.cross_entropy(x, lab2, reduction=red))
    show("ce w " + red, F.cross_entropy(x, lab, weight=w, reduction=red))
    show("ce soft " + red, F.cross_entropy(x, soft, soft_label=True, reduction=red))
    show("ce soft w " + red, F.cross_entropy(x, soft, soft_label=True, weight=w, reduction=red))
    show("ce ls " + red, F.cross_entropy(x, lab, label_smoothing=0.1, reduction=red))
labi = paddle.to_tensor(np.array([0, 1, 1, 2], dtype="int64"))
show("ce ignore", F.cross_entropy(x, labi, ignore_index=1))
show("ce ignore none", F.cross_entropy(x, labi, ignore_index=1, reduction="none"))
show("ce ignore w", F.cross_entropy(x, labi, ignore_index=1, weight=w))
labm = paddle.to_tensor(np.array([0, -100, 1, 2], dtype="int64"))
show("ce -100 mean", F.cross_entropy(x, labm))
show("ce nosoftmax", F.cross_entropy(F.softmax(x), lab, use_softmax=False))
x3 = paddle.to_tensor(np.cos(np.arange(24) * 0.4).reshape(2, 3, 4).astype("float32"))
l3 = paddle.to_tensor(np.array([[0, 1, 2, 1], [2, 2, 0, 1]], dtype="int64"))
show("ce axis1", F.cross_entropy(x3, l3, axis=1))
show("ce axis1 none", F.cross_entropy(x3, l3, axis=1, reduction="none"))
show("swce", F.softmax_with_cross_entropy(x, lab2))
loss, sm = F.softmax_with_cross_entropy(x, soft, soft_label=True, return_softmax=True)
show("swce soft", loss)
show("swce sm", sm)
show("CrossEntropyLoss", paddle.nn.CrossEntropyLoss()(x, lab))
show("CrossEntropyLoss w", paddle.nn.CrossEntropyLoss(weight=w, reduction="sum")(x, lab))

y = paddle.to_tensor(np.cos(np.arange(12) * 0.5).reshape(4, 3).astype("float32") * 1.5)
for red in ["mean", "sum", "none"]:
    show("mse " + red, F.mse_loss(x, y, red))
    show("l1 " + red, F.l1_loss(x, y, red))
    show("smooth_l1 " + red, F.smooth_l1_loss(x, y, red))
    show("smooth_l1 d " + red, F.smooth_l1_loss(x, y, red, delta=0.5))
    show("MSELoss " + red, paddle.nn.MSELoss(red)(x, y))
    show("L1Loss " + red, paddle.nn.L1Loss(red)(x, y))
    show("SmoothL1Loss " + red, paddle.nn.SmoothL1Loss(red, delta=2.0)(x, y))
show("square_error_cost", F.square_error_cost(x, y))

logp = F.log_softmax(x)
for red in ["mean", "sum", "none"]:
    show("nll " + red, F.nll_loss(logp, lab, reduction=red))
    show("nll w " + red, F.nll_loss(logp, lab, weight=w, reduction=red))
    show("NLLLoss " + red, paddle.nn.NLLLoss(reduction=red)(logp, lab))
show("nll ignore", F.nll_loss(logp, labi, ignore_index=1))
show("nll 4d", F.nll_loss(F.log_softmax(paddle.reshape(x3, [2, 3, 2, 2]), axis=1),
                          paddle.reshape(l3, [2, 2, 2])))

p = F.sigmoid(x)
t = paddle.to_tensor((np.arange(12) % 3 == 0).reshape(4, 3).astype("float32"))
pw = paddle.to_tensor(np.array([1.0, 2.0, 0.5], dtype="float32"))
for red in ["mean", "sum", "none"]:
    show("bce " + red, F.binary_cross_entropy(p, t, reduction=red))
    show("bce w " + red, F.binary_cross_entropy(p, t, weight=w, reduction=red))
    show("bcel " + red, F.binary_cross_entropy_with_logits(x, t, reduction=red))
    show("bcel pw " + red, F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction=red))
    show("bcel w " + red, F.binary_cross_entropy_with_logits(x, t, weight=w, reduction=red))
    show("BCELoss " + red, paddle.nn.BCELoss(reduction=red)(p, t))
    show("BCEWithLogitsLoss " + red, paddle.nn.BCEWithLogitsLoss(reduction=red, pos_weight=pw)(x, t))
show("bce edge", F.binary_cross_entropy(paddle.to_tensor([0.0, 1.0, 0.5]), paddle.to_tensor([1.0, 0.0, 1.0])))

for red in ["mean", "sum", "none", "batchmean"]:
    show("kl " + red, F.kl_div(logp, soft, reduction=red))
    show("KLDivLoss " + red, paddle.nn.KLDivLoss(red)(logp, soft))
show("kl zero", F.kl_div(logp, paddle.to_tensor(np.eye(4, 3, dtype="float32")), reduction="sum"))

a = paddle.to_tensor([0.5, 1.0, -0.3, 2.0])
b = paddle.to_tensor([0.7, 0.2, 0.1, 2.5])
s = paddle.to_tensor([1.0, -1.0, 1.0, -1.0])
for red in ["mean", "sum", "none"]:
    show("mrl " + red, F.margin_ranking_loss(a, b, s, margin=0.2, reduction=red))
    show("MarginRankingLoss " + red, paddle.nn.MarginRankingLoss(0.1, red)(a, b, s))
    show("hinge " + red, F.hinge_embedding_loss(a, s, margin=1.0, reduction=red))
    show("HingeEmbeddingLoss " + red, paddle.nn.HingeEmbeddingLoss(0.5, red)(a, s))
show("label_smooth", F.label_smooth(F.one_hot(lab, 3), epsilon=0.2))

err("ce reduction", lambda: F.cross_entropy(x, lab, reduction="avg"))
err("ce soft ignore", lambda: F.cross_entropy(x, soft, soft_label=True, ignore_index=2))
err("ce rank", lambda: F.cross_entropy(x, paddle.zeros([4, 1, 1], "int64")))
err("ce weight size", lambda: F.cross_entropy(x, lab, weight=paddle.ones([4])))
err("mse reduction", lambda: F.mse_loss(x, y, "avg"))
err("l1 reduction", lambda: F.l1_loss(x, y, "avg"))
err("smooth_l1 reduction", lambda: F.smooth_l1_loss(x, y, "avg"))
err("nll reduction", lambda: F.nll_loss(logp, lab, reduction="avg"))
err("nll rank", lambda: F.nll_loss(paddle.ones([3]), lab))
err("bce reduction", lambda: F.binary_cross_entropy(p, t, reduction="avg"))
err("bce range", lambda: F.binary_cross_entropy(paddle.to_tensor([0.5, 1.5]), paddle.to_tensor([1.0, 0.0])))
err("bcel reduction", lambda: F.binary_cross_entropy_with_logits(x, t, reduction="avg"))
err("mrl reduction", lambda: F.margin_ranking_loss(a, b, s, reduction="avg"))
err("hinge reduction", lambda: F.hinge_embedding_loss(a, s, reduction="avg"))
err("MSELoss reduction", lambda: paddle.nn.MSELoss("avg"))
err("L1Loss reduction", lambda: paddle.nn.L1Loss("avg"))
err("NLLLoss reduction", lambda: paddle.nn.NLLLoss(reduction="avg"))
err("BCELoss reduction", lambda: paddle.nn.BCELoss(reduction="avg"))
err("BCEWithLogitsLoss reduction", lambda: paddle.nn.BCEWithLogitsLoss(reduction="avg"))
err("label_smooth eps", lambda: F.label_smooth(soft, epsilon=1.5))

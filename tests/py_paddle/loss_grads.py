# Gradients of every loss with respect to its input (loss.backward()), against Paddle's;
# the loss rounded to 5 decimals, the gradients to 4 (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn.functional as F

X = (np.sin(np.arange(12) * 0.7) * 2).reshape(4, 3).astype("float32")
Y = (np.cos(np.arange(12) * 0.5) * 1.5).reshape(4, 3).astype("float32")
LAB = np.array([0, 2, 1, 2], dtype="int64")
W = np.array([0.5, 1.0, 2.0], dtype="float32")
T = (np.arange(12) % 3 == 0).reshape(4, 3).astype("float32")


def grad(name, fn):
    x = paddle.to_tensor(X, stop_gradient=False)
    loss = fn(x)
    if loss.ndim > 0:
        loss = paddle.sum(loss * paddle.arange(1, loss.size + 1, dtype="float32").reshape(loss.shape))
    loss.backward()
    print(name, round(float(loss), 5), (np.round(x.grad.numpy().astype("float64"), 4) + 0.0).tolist())


lab = paddle.to_tensor(LAB)
w = paddle.to_tensor(W)
y = paddle.to_tensor(Y)
t = paddle.to_tensor(T)
soft = F.softmax(paddle.to_tensor(np.cos(np.arange(12) * 0.3).reshape(4, 3).astype("float32")))
grad("ce", lambda x: F.cross_entropy(x, lab))
grad("ce none", lambda x: F.cross_entropy(x, lab, reduction="none"))
grad("ce w", lambda x: F.cross_entropy(x, lab, weight=w))
grad("ce ignore", lambda x: F.cross_entropy(x, lab, ignore_index=2))
grad("ce soft", lambda x: F.cross_entropy(x, soft, soft_label=True))
grad("ce ls", lambda x: F.cross_entropy(x, lab, label_smoothing=0.2))
grad("ce nosoftmax", lambda x: F.cross_entropy(F.softmax(x), lab, use_softmax=False))
grad("swce", lambda x: F.softmax_with_cross_entropy(x, paddle.unsqueeze(lab, 1)))
grad("mse", lambda x: F.mse_loss(x, y))
grad("l1", lambda x: F.l1_loss(x, y, reduction="sum"))
grad("smooth_l1", lambda x: F.smooth_l1_loss(x, y))
grad("smooth_l1 none", lambda x: F.smooth_l1_loss(x, y, reduction="none", delta=0.7))
grad("nll", lambda x: F.nll_loss(F.log_softmax(x), lab))
grad("nll w", lambda x: F.nll_loss(F.log_softmax(x), lab, weight=w, reduction="sum"))
grad("bce", lambda x: F.binary_cross_entropy(F.sigmoid(x), t))
grad("bce w", lambda x: F.binary_cross_entropy(F.sigmoid(x), t, weight=w, reduction="sum"))
grad("bcel", lambda x: F.binary_cross_entropy_with_logits(x, t))
grad("bcel pw", lambda x: F.binary_cross_entropy_with_logits(x, t, pos_weight=w))
grad("kl", lambda x: F.kl_div(F.log_softmax(x), soft, reduction="batchmean"))
grad("kl none", lambda x: F.kl_div(F.log_softmax(x), soft, reduction="none"))
grad("mrl", lambda x: F.margin_ranking_loss(x, y, paddle.sign(y), margin=0.1))
grad("hinge", lambda x: F.hinge_embedding_loss(x, paddle.sign(y)))

# F.rnnt_loss and nn.RNNTLoss against Paddle's CPU warprnnt (whose input is log-probabilities):
# a padded batch with different input and label lengths, each reduction, FastEmit's gradient
# scaling, a log_softmax'd input; and the Tensor methods element_size, contiguous,
# is_same_shape, copy_, fill_diagonal_tensor(_); bad arguments. Values rounded to 4 decimals
# (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    if not isinstance(t, paddle.Tensor):
        print(name, t)
        return
    a = t.numpy()
    print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


rs = np.random.RandomState(11)
B, T, U, V = 3, 4, 2, 5
x = paddle.to_tensor(rs.randn(B, T, U + 1, V).astype("float32"))
lab = paddle.to_tensor(np.array([[1, 2], [3, 3], [4, 0]], "int32"))
il = paddle.to_tensor(np.array([4, 3, 2], "int32"))
ll = paddle.to_tensor(np.array([2, 2, 1], "int32"))
lp = F.log_softmax(x, -1)
for red in ["none", "sum", "mean"]:
    show("rnnt " + red, F.rnnt_loss(lp, lab, il, ll, fastemit_lambda=0.0, reduction=red))
show("rnnt raw input", F.rnnt_loss(x, lab, il, ll, reduction="none"))
show("rnnt blank 4", F.rnnt_loss(lp, paddle.to_tensor(np.array([[1, 2], [3, 3], [0, 0]], "int32")),
                                 il, ll, blank=4, reduction="none"))
show("RNNTLoss", paddle.nn.RNNTLoss(fastemit_lambda=0.0)(lp, lab, il, ll))
for lam in [0.0, 0.5]:
    xg = paddle.to_tensor(lp.numpy(), stop_gradient=False)
    loss = F.rnnt_loss(xg, lab, il, ll, fastemit_lambda=lam, reduction="sum")
    loss.backward()
    show("rnnt loss lambda=%s" % lam, loss)
    show("rnnt grad lambda=%s" % lam, xg.grad)
err("rnnt 3d", lambda: F.rnnt_loss(lp[0], lab, il, ll))
err("rnnt reduction", lambda: F.rnnt_loss(lp, lab, il, ll, reduction="max"))

y = paddle.ones([2, 3, 4])
print("element_size", y.element_size(), paddle.ones([2], "int64").element_size(),
      paddle.ones([2], "bool").element_size(), paddle.ones([2], "float64").element_size())
show("contiguous", paddle.to_tensor([[1.0, 2.0]]).contiguous())
print("is_same_shape", y.is_same_shape(paddle.zeros([2, 3, 4])), y.is_same_shape(paddle.ones([3])))
z = paddle.zeros([2, 3])
print("copy_ returns", z.copy_(paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), False))
show("copy_", z)
w = paddle.zeros([3, 4])
show("fill_diagonal_tensor", w.fill_diagonal_tensor(paddle.to_tensor([1.0, 2.0, 3.0])))
show("fill_diagonal_tensor off", w.fill_diagonal_tensor(paddle.to_tensor([5.0, 6.0]), offset=2))
w.fill_diagonal_tensor_(paddle.to_tensor([7.0, 8.0, 9.0]), offset=1)
show("fill_diagonal_tensor_", w)
err("fill_diagonal_tensor shape", lambda: w.fill_diagonal_tensor(paddle.ones([2])))

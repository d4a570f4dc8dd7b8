# F.ctc_loss and nn.CTCLoss against Paddle's warpctc: padded batches with different input and
# label lengths, repeated labels, an empty label, blank not 0, each reduction, norm_by_times, the
# gradient of the logits; bad arguments. Values rounded to 3 decimals (tolerance 1e-3: float32
# sums land within 1e-6 of warpctc here, yet 4.24655 rounds apart at 4 decimals).
import numpy as np
import paddle
import paddle.nn.functional as F


def show(name, t):
    a = t.numpy()
    print(name, t.shape, (np.round(a.astype("float64"), 3) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


rs = np.random.RandomState(7)
T, B, C = 6, 4, 5
logits = rs.randn(T, B, C).astype("float32")
labels = paddle.to_tensor(np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0], [2, 3, 1]], "int32"))
in_len = paddle.to_tensor(np.array([6, 5, 3, 6], "int64"))
lab_len = paddle.to_tensor(np.array([3, 2, 1, 3], "int64"))
x = paddle.to_tensor(logits)
for red in ["none", "sum", "mean"]:
    show("ctc " + red, F.ctc_loss(x, labels, in_len, lab_len, reduction=red))
show("ctc empty label", F.ctc_loss(x, labels, in_len, paddle.to_tensor([3, 2, 0, 3], "int64"),
                                   reduction="none"))
show("ctc blank 4", F.ctc_loss(x, paddle.to_tensor(np.array([[1, 2, 2], [3, 1, 0], [0, 0, 0],
                                                              [2, 3, 1]], "int32")),
                               in_len, lab_len, blank=4, reduction="none"))
show("CTCLoss", paddle.nn.CTCLoss()(x, labels, in_len, lab_len))
xg = paddle.to_tensor(logits, stop_gradient=False)
F.ctc_loss(xg, labels, in_len, lab_len).backward()
show("grad", xg.grad)
xg = paddle.to_tensor(logits, stop_gradient=False)
loss = F.ctc_loss(xg, labels, in_len, lab_len, reduction="sum", norm_by_times=True)
loss.backward()
show("norm_by_times loss", loss)
show("norm_by_times grad", xg.grad)
err("ctc 2d logits", lambda: F.ctc_loss(x[0], labels, in_len, lab_len))
err("ctc reduction", lambda: F.ctc_loss(x, labels, in_len, lab_len, reduction="avg"))

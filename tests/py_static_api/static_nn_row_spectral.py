# paddle.static.nn.row_conv (the lookahead convolution of Deep Speech 2) on a dense
# [batch, time, dim] input fed with a varying time length, trained with SGD, and
# paddle.static.nn.spectral_norm of a weight parameter (dim 0 and dim 1); power iteration runs
# long enough (30 steps) that the result does not depend on the random start vector u.
# Weights from Assign initializers; values printed with 4 decimals (tolerance 1e-4).
import numpy as np
import paddle

paddle.enable_static()


def arr(shape, k):
    return (np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k + 0.4) * 0.6).reshape(shape)


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, None, 3], "float32")
    rc = paddle.static.nn.row_conv(
        x, future_context_size=2,
        param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(arr([3, 3], 0.9))))
    rc_act = paddle.static.nn.row_conv(
        x, 1, param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
            arr([2, 3], 0.5))), act="relu")
    loss = paddle.mean(paddle.square(rc - 0.3))
    wp = paddle.create_parameter([4, 6], "float32",
                                 default_initializer=paddle.nn.initializer.Assign(arr([4, 6], 0.77)))
    sn0 = paddle.static.nn.spectral_norm(wp, dim=0, power_iters=30)
    wc = paddle.create_parameter([3, 2, 2, 2], "float32",
                                 default_initializer=paddle.nn.initializer.Assign(
                                     arr([3, 2, 2, 2], 0.37)))
    sn1 = paddle.static.nn.spectral_norm(wc, dim=1, power_iters=30)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
print("parameters", [p.name for p in main.all_parameters()])
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for t in [5, 3]:
    xv = arr([2, t, 3], 0.21 * t)
    r, ra, lv = exe.run(main, feed={"x": xv}, fetch_list=[rc, rc_act, loss])
    print("time", t, list(r.shape), np.round(r[0], 4).tolist(), np.round(ra[1, -1], 4).tolist(),
          round(float(lv), 4))
s0, s1 = exe.run(main, feed={"x": arr([1, 2, 3], 0.3)}, fetch_list=[sn0, sn1])
print("spectral_norm dim 0", list(s0.shape), np.round(s0[0], 4).tolist())
print("spectral_norm dim 1", list(s1.shape), np.round(s1.ravel()[:8], 4).tolist())

# paddle.nn.Dropout2D, Dropout3D and AlphaDropout in a static Program trained with
# paddle.static, the way a conv net is written in static mode: the inputs' batch dim is None
# (fed at run time). Dropout2D/3D drop whole channels, one draw per (sample, channel), scaling
# the kept ones by 1/(1-p); AlphaDropout sets dropped elements to the SELU saturation value
# and applies the affine correction a*x+b. Each Executor.run draws new masks. Paddle builds
# these three of uniform_random, which has no is_test attribute, so the clone(for_test=True)
# Program keeps dropping (only dropout's own op turns into the identity there); a test
# Program built with the layers in eval() mode is. Paddle 2.6's alpha_dropout needs the input's
# dims known in static mode, so its input has a fixed shape. Random streams differ from
# Paddle's, so this prints shapes and booleans (tolerance 1e-5 on values, fractions of
# dropped channels within 0.1 of p over several hundred draws).
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.3
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    img = paddle.static.data("img", [None, 4, 6, 6], "float32")
    vol = paddle.static.data("vol", [None, 3, 2, 4, 4], "float32")
    feat = paddle.static.data("feat", [16, 32], "float32")
    conv = paddle.nn.Conv2D(4, 8, 3, padding=1, weight_attr=assign([8, 4, 3, 3], 0.7))
    h = F.relu(conv(img))
    hd = paddle.nn.Dropout2D(p=0.5)(h)
    vd = paddle.nn.Dropout3D(p=0.4)(vol)
    fd = paddle.nn.AlphaDropout(p=0.3)(feat)
    fc = paddle.nn.Linear(8, 2, weight_attr=assign([8, 2], 0.3))
    logits = fc(paddle.flatten(F.adaptive_avg_pool2d(hd, 1), 1))
    loss = paddle.mean(logits * logits) + paddle.mean(vd) + paddle.mean(fd)
    test = main.clone(for_test=True)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(3)
iv = rng.uniform(0.5, 1.5, (50, 4, 6, 6)).astype("float32")
vv = rng.uniform(0.5, 1.5, (40, 3, 2, 4, 4)).astype("float32")
fv = rng.uniform(-1, 1, (16, 32)).astype("float32")
feed = {"img": iv, "vol": vv, "feat": fv}

hv, hdv, vdv, fdv, lv = exe.run(main, feed=feed, fetch_list=[h, hd, vd, fd, loss])
print("shapes", hdv.shape, vdv.shape, fdv.shape, "loss finite", bool(np.isfinite(lv).all()))
ch_zero = (hdv == 0).reshape(50, 8, -1).all(-1)
ch_kept = np.isclose(hdv, 2 * hv, atol=1e-5).reshape(50, 8, -1).all(-1)
print("Dropout2D drops whole channels", bool((ch_zero | ch_kept).all()),
      "fraction near 0.5", abs(float(ch_zero.mean()) - 0.5) < 0.1)
v_zero = (vdv == 0).reshape(40, 3, -1).all(-1)
v_kept = np.isclose(vdv, vv / 0.6, atol=1e-5).reshape(40, 3, -1).all(-1)
print("Dropout3D drops whole channels", bool((v_zero | v_kept).all()),
      "fraction near 0.4", abs(float(v_zero.mean()) - 0.4) < 0.1)
alpha, scale, p = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 0.3
alpha_p = -alpha * scale
a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
b = -a * alpha_p * p
kept = np.isclose(fdv, a * fv + b, atol=1e-5)
dropped = np.isclose(fdv, a * alpha_p + b, atol=1e-5)
print("AlphaDropout kept or saturated", bool((kept | dropped).all()),
      "fraction near 0.3", abs(float(dropped.mean()) - 0.3) < 0.1)

hd2, vd2, fd2 = exe.run(main, feed=feed, fetch_list=[hd, vd, fd])
print("new masks per run", bool((hd2 != hdv).any()), bool((vd2 != vdv).any()),
      bool((fd2 != fdv).any()))
small = exe.run(main, feed={"img": iv[:3], "vol": vv[:2], "feat": fv}, fetch_list=[hd, vd])
print("batch fed at run time", small[0].shape, small[1].shape)
th, thd, tvd, tfd = exe.run(test, feed=feed, fetch_list=[h, hd, vd, fd])
print("for_test clone keeps dropping: output == input", bool(np.allclose(thd, th)), bool(np.allclose(tvd, vv)),
      bool(np.allclose(tfd, fv)))

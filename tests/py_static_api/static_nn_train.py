# Training through the rest of paddle.static.nn's layer functions: conv2d_transpose,
# group_norm, instance_norm, prelu (channel mode), conv3d and bilinear_tensor_product feed one
# loss minimized with SGD, so each one's parameters get gradients and updates as in Paddle.
# Weights from Assign initializers; losses and a few trained weights printed with 5 decimals
# (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k + 0.3) * 0.4
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    z = paddle.static.data("z", [None, 4, 5, 5], "float32")
    v = paddle.static.data("v", [None, 2, 3, 4, 4], "float32")
    a = paddle.static.data("a", [None, 4], "float32")
    b = paddle.static.data("b", [None, 5], "float32")
    h = paddle.static.nn.conv2d_transpose(z, 3, filter_size=3, stride=2, padding=1,
                                          param_attr=assign([4, 3, 3, 3], 0.29),
                                          bias_attr=assign([3], 0.1))
    h = paddle.static.nn.group_norm(h, groups=3, param_attr=assign([3], 0.5),
                                    bias_attr=assign([3], 0.25))
    h = paddle.static.nn.prelu(h, "channel", param_attr=assign([1, 3, 1, 1], 0.9))
    h = paddle.static.nn.instance_norm(h, param_attr=assign([3], 0.35), bias_attr=assign([3], 0.15))
    c3 = paddle.static.nn.conv3d(v, 3, 2, param_attr=assign([3, 2, 2, 2, 2], 0.41),
                                 bias_attr=assign([3], 0.3), act="tanh")
    btp = paddle.static.nn.bilinear_tensor_product(a, b, 6, param_attr=assign([6, 4, 5], 0.23),
                                                   bias_attr=assign([1, 6], 0.5))
    loss = (paddle.mean(paddle.square(h - 0.1)) + paddle.mean(paddle.square(c3 - 0.2)) +
            paddle.mean(paddle.square(btp - 0.3)))
    paddle.optimizer.SGD(learning_rate=0.2).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(4)
feed = {"z": rng.uniform(-1, 1, (2, 4, 5, 5)).astype("float32"),
        "v": rng.uniform(-1, 1, (2, 2, 3, 4, 4)).astype("float32"),
        "a": rng.uniform(-1, 1, (3, 4)).astype("float32"),
        "b": rng.uniform(-1, 1, (3, 5)).astype("float32")}
for step in range(4):
    lv, = exe.run(main, feed=feed, fetch_list=[loss])
    print("step", step, round(float(lv), 5))
scope = paddle.static.global_scope()
for name in ["conv2d_transpose_0.w_0", "group_norm_0.w_0", "prelu_0.w_0", "instance_norm_0.b_0",
             "conv3d_0.w_0", "bilinear_tensor_product_0.w_0"]:
    val = np.array(scope.find_var(name).get_tensor())
    print(name, list(val.shape), np.round(val.ravel()[:3], 5).tolist())

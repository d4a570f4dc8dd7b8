# paddle.static.nn's layer functions in hand-built static Programs, as Paddle's static-mode
# docs and tutorials write them: a conv2d + batch_norm + fc image classifier trained with
# Momentum through minimize (batch_norm's running statistics updated by every run, read by
# the clone(for_test=True) Program), an embedding + layer_norm text encoder trained with Adam,
# conv2d_transpose, group_norm, instance_norm, prelu, bilinear_tensor_product and conv3d on
# fixed inputs, and case / switch_case choosing branches from fed values. Parameters get
# Paddle's names (conv2d_0.w_0, batch_norm_0.w_1, ...); weights come from Assign initializers
# (no RNG). Values printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k + 0.3) * 0.4
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


def show(name, v):
    v = np.asarray(v, dtype="float64")
    print(name, list(v.shape), np.round(v.ravel()[:6], 5).tolist(), round(float(v.sum()), 3))


rng = np.random.RandomState(0)
img = rng.uniform(-1, 1, (8, 3, 8, 8)).astype("float32")
label = (np.arange(8) % 4).astype("int64").reshape(8, 1)

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("img", [None, 3, 8, 8], "float32")
    y = paddle.static.data("label", [None, 1], "int64")
    c1 = paddle.static.nn.conv2d(x, 6, 3, padding=1, param_attr=assign([6, 3, 3, 3], 0.7),
                                 bias_attr=assign([6], 0.2))
    b1 = paddle.static.nn.batch_norm(c1, act="relu", param_attr=assign([6], 0.5),
                                     bias_attr=assign([6], 0.9))
    p1 = F.max_pool2d(b1, 2, 2)
    c2 = paddle.static.nn.conv2d(p1, 4, [3, 3], stride=1, padding="SAME", act="relu",
                                 param_attr=assign([4, 6, 3, 3], 0.3), bias_attr=False)
    logits = paddle.static.nn.fc(paddle.flatten(c2, 1), 4,
                                 weight_attr=assign([64, 4], 0.11), bias_attr=assign([4], 0.4))
    loss = F.cross_entropy(logits, y)
    test = main.clone(for_test=True)
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
print("classifier parameters", [p.name for p in main.all_parameters()])
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for step in range(4):
    lv, = exe.run(main, feed={"img": img, "label": label}, fetch_list=[loss])
    print("step", step, "loss", round(float(lv), 5))
scope = paddle.static.global_scope()
show("batch_norm_0 moving mean", np.array(scope.find_var("batch_norm_0.w_1").get_tensor()))
show("batch_norm_0 moving variance", np.array(scope.find_var("batch_norm_0.w_2").get_tensor()))
tl, tb = exe.run(test, feed={"img": img[:3], "label": label[:3]}, fetch_list=[logits, b1])
show("test logits", tl)
show("test batch_norm (running statistics)", tb)

main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    ids = paddle.static.data("ids", [None, 5], "int64")
    tgt = paddle.static.data("tgt", [None, 1], "float32")
    emb = paddle.static.nn.embedding(ids, size=[20, 8], padding_idx=0,
                                     param_attr=assign([20, 8], 0.37))
    ln = paddle.static.nn.layer_norm(emb, begin_norm_axis=2, param_attr=assign([8], 0.8),
                                     bias_attr=assign([8], 0.6))
    pooled = paddle.mean(ln, axis=1)
    pred = paddle.static.nn.fc(pooled, 1, weight_attr=assign([8, 1], 0.45))
    loss2 = F.mse_loss(pred, tgt)
    paddle.optimizer.Adam(learning_rate=0.01).minimize(loss2)
print("encoder parameters", [p.name for p in main2.all_parameters()])
exe.run(startup2)
idv = np.array([[1, 4, 7, 0, 0], [3, 3, 9, 12, 0], [19, 2, 5, 6, 8]], dtype="int64")
tv = np.array([[0.5], [-0.5], [1.0]], dtype="float32")
for step in range(3):
    lv, ev = exe.run(main2, feed={"ids": idv, "tgt": tv}, fetch_list=[loss2, emb])
    print("encoder step", step, "loss", round(float(lv), 5), "padding row stays zero",
          bool((ev[0, 3:] == 0).all()))

main3, startup3 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main3, startup3):
    z = paddle.static.data("z", [2, 4, 5, 5], "float32")
    v = paddle.static.data("v", [2, 2, 3, 4, 4], "float32")
    a = paddle.static.data("a", [3, 4], "float32")
    b = paddle.static.data("b", [3, 5], "float32")
    ct = paddle.static.nn.conv2d_transpose(z, 3, filter_size=3, stride=2, padding=1,
                                           param_attr=assign([4, 3, 3, 3], 0.29),
                                           bias_attr=assign([3], 0.1))
    ct2 = paddle.static.nn.conv2d_transpose(z, 2, output_size=[7, 7], padding=1,
                                            param_attr=assign([4, 2, 5, 5], 0.61), bias_attr=False)
    gn = paddle.static.nn.group_norm(z, groups=2, param_attr=assign([4], 0.5),
                                     bias_attr=assign([4], 0.25))
    inn = paddle.static.nn.instance_norm(z, param_attr=assign([4], 0.35),
                                         bias_attr=assign([4], 0.15))
    pr_all = paddle.static.nn.prelu(z - 0.2, "all")
    pr_ch = paddle.static.nn.prelu(z - 0.2, "channel", param_attr=assign([1, 4, 1, 1], 0.9))
    pr_el = paddle.static.nn.prelu(z - 0.2, "element", param_attr=assign([1, 4, 5, 5], 0.13))
    btp = paddle.static.nn.bilinear_tensor_product(a, b, 6, act="tanh",
                                                   param_attr=assign([6, 4, 5], 0.23),
                                                   bias_attr=assign([1, 6], 0.5))
    c3 = paddle.static.nn.conv3d(v, 3, 2, param_attr=assign([3, 2, 2, 2, 2], 0.41),
                                 bias_attr=assign([3], 0.3))
exe.run(startup3)
zv = rng.uniform(-1, 1, (2, 4, 5, 5)).astype("float32")
vv = rng.uniform(-1, 1, (2, 2, 3, 4, 4)).astype("float32")
av = rng.uniform(-1, 1, (3, 4)).astype("float32")
bv = rng.uniform(-1, 1, (3, 5)).astype("float32")
outs = exe.run(main3, feed={"z": zv, "v": vv, "a": av, "b": bv},
               fetch_list=[ct, ct2, gn, inn, pr_all, pr_ch, pr_el, btp, c3])
for name, o in zip(["conv2d_transpose", "conv2d_transpose output_size", "group_norm",
                    "instance_norm", "prelu all", "prelu channel", "prelu element",
                    "bilinear_tensor_product", "conv3d"], outs):
    show(name, o)

main4, startup4 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main4, startup4):
    xi = paddle.static.data("xi", [1], "float32")
    idx = paddle.static.data("idx", [1], "int32")
    r_case = paddle.static.nn.case(
        [(xi < 0.0, lambda: xi * 10.0), (xi < 1.0, lambda: xi + 100.0)],
        default=lambda: xi - 100.0)
    r_case2 = paddle.static.nn.case([(xi < 0.0, lambda: xi * 2.0), (xi > 5.0, lambda: xi * 3.0)])
    r_sw = paddle.static.nn.switch_case(
        idx, {1: lambda: paddle.full([1], 11.0), 3: lambda: paddle.full([1], 33.0)},
        default=lambda: paddle.full([1], -1.0))
    r_sw2 = paddle.static.nn.switch_case(
        idx, [lambda: paddle.full([1], 0.5), lambda: paddle.full([1], 1.5),
              lambda: paddle.full([1], 2.5)])
exe.run(startup4)
for xv_, iv_ in [(-1.0, 1), (0.5, 3), (2.0, 0), (7.0, 2), (3.0, 9)]:
    rc, rc2, rs, rs2 = exe.run(main4, feed={"xi": np.array([xv_], "float32"),
                                            "idx": np.array([iv_], "int32")},
                               fetch_list=[r_case, r_case2, r_sw, r_sw2])
    print("case", xv_, round(float(rc[0]), 5), round(float(rc2[0]), 5), "switch_case", iv_,
          float(rs[0]), float(rs2[0]))

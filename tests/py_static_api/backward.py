# paddle.static.append_backward and paddle.static.gradients on Programs built by hand: an MLP
# (static.nn.fc, nn.Linear) with a dynamic batch dim, a while_loop and a cond on data-dependent
# predicates; the gradients are fetched with Executor.run. Weights are set with Assign/Constant
# initializers (no RNG); values printed rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle

paddle.enable_static()
A = paddle.nn.initializer.Assign
C = paddle.nn.initializer.Constant
w1 = (np.sin(np.arange(12, dtype="float32") * 0.37) * 0.5).reshape(4, 3)
w2 = (np.cos(np.arange(6, dtype="float32") * 0.21) * 0.4).reshape(3, 2)
exe = paddle.static.Executor(paddle.CPUPlace())


def show(name, v):
    print(name, list(v.shape), np.round(v.astype("float64"), 4).tolist())


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
    h = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(name="w1", initializer=A(w1)),
                            bias_attr=paddle.ParamAttr(name="b1", initializer=C(0.1)),
                            activation="tanh")
    y = paddle.static.nn.fc(h, 2, weight_attr=paddle.ParamAttr(name="w2", initializer=A(w2)),
                            bias_attr=paddle.ParamAttr(name="b2", initializer=C(-0.2)))
    loss = paddle.mean(y * y)
    pg = paddle.static.append_backward(loss)
print([(p.name, g.name) for p, g in pg])
exe.run(startup)
xv = np.linspace(-1.0, 1.0, 12).astype("float32").reshape(3, 4)
outs = exe.run(main, feed={"x": xv}, fetch_list=[loss] + [g for _, g in pg])
print("loss", round(float(outs[0]), 4))
for (p, g), v in zip(pg, outs[1:]):
    show(g.name, v)
# another batch size through the dynamic dim; a gradient fetched by its name
outs = exe.run(main, feed={"x": xv[:2]}, fetch_list=[pg[0][1], "b2@GRAD"])
for v in outs:
    show("batch 2", v)

# parameter_list picks the parameters (by name or by parameter)
main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
    lin = paddle.nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name="lw", initializer=A(w2)),
                           bias_attr=paddle.ParamAttr(name="lb", initializer=C(0.5)))
    loss2 = paddle.sum(paddle.square(lin(x)))
    pg2 = paddle.static.append_backward(loss2, parameter_list=["lw"])
print([(p.name, g.name) for p, g in pg2])
exe.run(startup2)
xv2 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float32")
show("lw@GRAD", exe.run(main2, feed={"x": xv2}, fetch_list=[pg2[0][1]])[0])

# gradients through a while_loop that multiplies by a parameter n times, then a cond
main3, startup3 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main3, startup3):
    x = paddle.static.data(name="x", shape=[3], dtype="float32")
    x.stop_gradient = False
    n = paddle.static.data(name="n", shape=[1], dtype="int64")
    wp = paddle.create_parameter([3], "float32", name="wp",
                                 default_initializer=A(np.array([0.9, -1.1, 1.2], "float32")))

    def cond(i, v):
        return i < n

    def body(i, v):
        return [i + 1, v * wp]

    i0 = paddle.full(shape=[1], fill_value=0, dtype="int64")
    # Paddle's while_loop writes the final values into its loop variables: loop on a copy of x
    i, hh = paddle.static.nn.while_loop(cond, body, [i0, x * 1.0])
    r = paddle.static.nn.cond(paddle.sum(hh) > 0.0, lambda: paddle.tanh(hh) * wp,
                              lambda: hh * hh)
    out = paddle.sum(r * x)
    gx, gw = paddle.static.gradients([out], [x, wp])
print(gx.name, gw.name)
exe.run(startup3)
for xv3, nv in (([0.5, 0.25, 1.0], 2), ([0.5, -0.25, -1.0], 1), ([0.3, 0.2, 0.1], 0),
                ([-0.4, 0.6, 0.2], 3)):
    feed = {"x": np.array(xv3, "float32"), "n": np.array([nv], "int64")}
    o, a, b = exe.run(main3, feed=feed, fetch_list=[out, gx, gw])
    print(nv, round(float(o), 4), np.round(a.astype("float64"), 4).tolist(),
          np.round(b.astype("float64"), 4).tolist())
print(gx)

# target_gradients seed the backward; no_grad_set stops it at a variable
main4, startup4 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main4, startup4):
    x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
    y = paddle.static.data(name="y", shape=[2, 3], dtype="float32")
    x.stop_gradient = False
    y.stop_gradient = False
    gz = paddle.static.data(name="gz", shape=[2, 3], dtype="float32")
    z = paddle.tanh(x) * y
    gx, gy = paddle.static.gradients([z], [x, y], target_gradients=[gz])
    t = x * y
    u = paddle.sum(t * x)
    gx2, = paddle.static.gradients([u], [x], no_grad_set={t.name})
xv4 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float32")
yv4 = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]], dtype="float32")
gv4 = np.array([[1.0, 0.5, 2.0], [-1.0, 1.5, 0.25]], dtype="float32")
for name, v in zip(["x", "y", "x through x only"],
                   exe.run(main4, feed={"x": xv4, "y": yv4, "gz": gv4}, fetch_list=[gx, gy, gx2])):
    show(name, v)

# Building a static Program by hand: paddle.static.data -> static.nn.fc / nn.Linear -> softmax,
# run with Executor.run(feed, fetch_list). Weights are set with Assign/Constant initializers
# (no RNG, so every runtime agrees); values printed rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle

paddle.enable_static()
print("dynamic:", paddle.in_dynamic_mode())
w1 = (np.sin(np.arange(12, dtype="float32") * 0.37) * 0.5).reshape(4, 3)
w2 = (np.cos(np.arange(9, dtype="float32") * 0.21) * 0.4).reshape(3, 3)

x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
h = paddle.static.nn.fc(x, 3,
                        weight_attr=paddle.ParamAttr(name="w1", initializer=paddle.nn.initializer.Assign(w1)),
                        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)),
                        activation="relu")
lin = paddle.nn.Linear(3, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w2)),
                       bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(-0.2)))
logits = lin(h)
prob = paddle.nn.functional.softmax(logits)
label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
loss = paddle.nn.functional.cross_entropy(logits, label)
mean_prob = paddle.mean(prob)
print("x:", x.name, list(x.shape), x.dtype)
print("prob:", list(prob.shape), prob.dtype)
print(x)
print(h)

exe = paddle.static.Executor(paddle.CPUPlace())
print("startup:", exe.run(paddle.static.default_startup_program()))
xv = np.linspace(-1.0, 1.0, 12).astype("float32").reshape(3, 4)
lv = np.array([[0], [2], [1]], dtype="int64")
p, l, m = exe.run(paddle.static.default_main_program(), feed={"x": xv, "label": lv},
                  fetch_list=[prob, loss, mean_prob])
print("prob", p.shape, p.dtype)
print(np.round(p, 4))
print("loss", l.shape, round(float(l), 4))
print("mean", round(float(m), 4))
# fetch by name, Tensors back
out, = exe.run(feed={"x": xv[:2], "label": lv[:2]}, fetch_list=[prob.name], return_numpy=False)
print("by name", np.round(np.array(out), 4).tolist())
# a parameter by its name
w, = exe.run(feed={"x": xv, "label": lv}, fetch_list=["w1"])
print("w1 matches", np.allclose(w, w1))
# num_flatten_dims=2 on a rank-3 input, and fc over two inputs, in a Program of their own
prog2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(prog2, startup2):
    x3 = paddle.static.data(name="x3", shape=[2, 2, 2], dtype="float32")
    f3 = paddle.static.nn.fc(x3, size=1, num_flatten_dims=2,
                             weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)),
                             bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0)))
    xa = paddle.static.data(name="xa", shape=[2, 2, 2], dtype="float32")
    xb = paddle.static.data(name="xb", shape=[2, 1, 3], dtype="float32")
    f2 = paddle.static.nn.fc([xa, xb], size=2,
                             weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)),
                             bias_attr=False)
    named = paddle.static.nn.fc(x3, 2, name="myfc")  # random weights: only its name is printed
print(named)
print("fc shapes", list(f3.shape), list(f2.shape))
print(f3)
print(f2)
v3 = np.arange(8, dtype="float32").reshape(2, 2, 2)
vb = np.arange(6, dtype="float32").reshape(2, 1, 3)
exe.run(startup2)
r3, r2 = exe.run(prog2, feed={"x3": v3, "xa": v3, "xb": vb}, fetch_list=[f3, f2])
print(r3.tolist())
print(r2.tolist())
# a plain data example: z = a + b * 2
prog3 = paddle.static.Program()
with paddle.static.program_guard(prog3):
    a = paddle.static.data(name="a", shape=[3, 2, 1])
    b = paddle.static.data(name="b", shape=[-1, 2, 1], dtype="float32")
    z = a + b * 2.0
ones = np.ones((3, 2, 1), dtype="float32")
print(exe.run(prog3, feed={"a": ones, "b": ones}, fetch_list=[z.name])[0].reshape(-1).tolist())
print("blocks:", paddle.static.default_main_program().num_blocks)
paddle.disable_static()
print("dynamic:", paddle.in_dynamic_mode())

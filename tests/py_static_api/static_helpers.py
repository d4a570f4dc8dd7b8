# paddle.static's helpers for hand-built Programs: create_parameter (Paddle's names
# create_parameter_N.w_0 / .b_0, trained by minimize), create_global_var (a persistable
# variable read by every run; its doc example), name_scope (nested; it changes no result),
# device_guard (its doc example: shape ops pinned to the CPU, "gpu" accepted on a CPU-only
# build; a bad device is a ValueError), scope_guard around Executor.run, and
# Program.all_parameters. Values printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 3], "float32")
    w = paddle.static.create_parameter([3, 2], "float32",
                                       default_initializer=paddle.nn.initializer.Constant(0.5))
    b = paddle.static.create_parameter([2], "float32", is_bias=True)
    named = paddle.static.create_parameter(
        [2], "float32", attr=paddle.ParamAttr(name="scale_w",
                                              initializer=paddle.nn.initializer.Constant(2.0)))
    gv = paddle.static.create_global_var(shape=[1], value=3.0, dtype="float32",
                                         persistable=True, force_cpu=True, name="new_var")
    with paddle.static.name_scope("encoder"):
        h = paddle.matmul(x, w) + b
        with paddle.static.name_scope("inner"):
            h = h * named
    out = h * gv
    loss = paddle.mean(paddle.square(out - 1.0))
    paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
print("parameters", [p.name for p in main.all_parameters()])
print("global var", gv.name, list(gv.shape), str(gv.dtype), gv.persistable)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
xv = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype="float32")
for step in range(3):
    ov, lv = exe.run(main, feed={"x": xv}, fetch_list=[out, loss])
    print("step", step, np.round(ov, 5).tolist(), round(float(lv), 5))
with paddle.static.scope_guard(paddle.static.global_scope()):
    wv, = exe.run(main, feed={"x": xv}, fetch_list=[w])
print("w after 4 steps", np.round(wv, 5).tolist())
print("scope holds w", np.round(np.array(
    paddle.static.global_scope().find_var(w.name).get_tensor()), 5).tolist())

# device_guard's doc example
place = paddle.CPUPlace()
main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    d1 = paddle.static.data("d1", [1, 3, 8, 8], "float32")
    d2 = paddle.static.data("d2", [1, 3, 64], "float32")
    shape = paddle.shape(d2)
    with paddle.static.device_guard("cpu"):
        shape = paddle.slice(shape, axes=[0], starts=[0], ends=[4])
    with paddle.static.device_guard("gpu"):
        out2 = paddle.reshape(d1, shape=shape)
exe2 = paddle.static.Executor(place)
exe2.run(startup2)
r, = exe2.run(main2, feed={"d1": np.full([1, 3, 8, 8], 0.5, "float32"),
                           "d2": np.full([1, 3, 64], 0.5, "float32")}, fetch_list=[out2])
print("device_guard result", r.shape, float(r.sum()))
for bad in ["tpu", "cpu:1"]:
    try:
        with paddle.static.device_guard(bad):
            pass
    except ValueError as e:
        print("device_guard", bad, "ValueError:", e)

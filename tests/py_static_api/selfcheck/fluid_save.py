# fluid.io.save_inference_model(dirname, feeded_var_names, target_vars, executor) of a
# hand-built Program writes dirname/model.dy2st, which fluid.io.load_inference_model reads back;
# results checked against Executor.run of the Program itself (atol 1e-5).
import numpy as np
import paddle
import paddle.fluid as fluid

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
y = paddle.static.data(name="y", shape=[None, 3], dtype="float32")
h = paddle.static.nn.fc(x, 4, activation="tanh")
out = paddle.nn.functional.sigmoid(h) + paddle.sum(y)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
xv = np.linspace(-1.0, 1.0, 6).astype("float32").reshape(2, 3)
yv = np.ones((2, 3), "float32")
want, hv = exe.run(feed={"x": xv, "y": yv}, fetch_list=[out, h])
names = fluid.io.save_inference_model("saved_dir", ["x", "y"], [out, h], exe)
assert len(names) == 2 and names[0] == out.name, names
import os
assert os.path.isfile("saved_dir/model.dy2st")
prog, feeds, fetches = fluid.io.load_inference_model("saved_dir", exe)
assert feeds == ["x", "y"], feeds
got, gh = exe.run(prog, feed={"x": xv, "y": yv}, fetch_list=fetches)
assert np.allclose(got, want, atol=1e-5) and np.allclose(gh, hv, atol=1e-5)
# only h: y is pruned away and needs no feed
fluid.io.save_inference_model("h_dir", ["x"], [h], exe, model_filename="h_model")
prog2, feeds2, fetches2 = fluid.io.load_inference_model("h_dir", exe, model_filename="h_model")
assert feeds2 == ["x"], feeds2
assert np.allclose(exe.run(prog2, feed={"x": xv}, fetch_list=fetches2)[0], hv, atol=1e-5)
# feeding a variable that is not an input fails
try:
    fluid.io.save_inference_model("bad_dir", [h.name], [out], exe)
    raise SystemExit("no error")
except ValueError as e:
    assert "not an input" in str(e), e
# the program's text names its ops
assert "tanh" in str(fluid.default_main_program())
paddle.disable_static()
print("selfcheck OK")

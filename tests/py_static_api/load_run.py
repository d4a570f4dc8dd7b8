# paddle.jit.save, then enable_static + Executor + load_inference_model + exe.run.
import numpy as np
import paddle
from _models import MLP, TwoInTwoOut, fill, save_mlp

x = (np.arange(12, dtype="float32").reshape(3, 4) - 5.0) / 4.0
net = save_mlp("mlp")
eager = net(paddle.to_tensor(x)).numpy()

two = fill(TwoInTwoOut())
two.eval()
spec = [paddle.static.InputSpec([None, 4], "float32", "x"),
        paddle.static.InputSpec([None, 2], "float32", "y")]
paddle.jit.save(paddle.jit.to_static(two, input_spec=spec), "two")
y = np.ones((3, 2), dtype="float32")
e1, e2 = two(paddle.to_tensor(x), paddle.to_tensor(y))

print("dynamic before:", paddle.in_dynamic_mode())
paddle.enable_static()
print("dynamic after enable_static:", paddle.in_dynamic_mode())
place = paddle.CPUPlace()
exe = paddle.static.Executor(place)
print("startup:", exe.run(paddle.static.default_startup_program()))

[prog, feed_names, fetch_targets] = paddle.static.load_inference_model("mlp", exe)
print("feeds:", feed_names)
print("fetches:", len(fetch_targets), [list(t.shape) for t in fetch_targets])
print("fetch dtype float32:", fetch_targets[0].dtype == paddle.float32)
print("blocks:", len(prog.blocks), prog.num_blocks)
print("feed var shape:", list(prog.global_block().var("x").shape))

res = exe.run(prog, feed={feed_names[0]: x}, fetch_list=fetch_targets)
print("results:", type(res).__name__, len(res), type(res[0]).__name__, res[0].shape, res[0].dtype)
print(np.round(res[0], 4))
print("matches eager:", bool(np.allclose(res[0], eager, atol=1e-5)))

# fetch by name, a single row, and return_numpy=False
out, = exe.run(prog, feed={"x": x[:1]}, fetch_list=[fetch_targets[0].name])
print("by name:", out.shape, np.round(out, 4))
t, = exe.run(prog, feed={"x": x}, fetch_list=fetch_targets, return_numpy=False)
print("tensor:", np.array(t).shape, bool(np.allclose(np.array(t), eager, atol=1e-5)))
# fetch_list omitted: every output
print("default fetch:", [r.shape for r in exe.run(prog, feed={"x": x})])
# a list feed is converted to the input's dtype; extra feed names are ignored
r = exe.run(prog, feed={"x": x[:2].tolist(), "unused": x}, fetch_list=fetch_targets)
print("list feed:", r[0].dtype, bool(np.allclose(r[0], eager[:2], atol=1e-5)))

[prog2, names2, fetch2] = paddle.static.load_inference_model("two", exe)
print("two feeds:", names2, "fetches:", len(fetch2), [list(f.shape) for f in fetch2])
a, b = exe.run(prog2, feed={"y": y, "x": x}, fetch_list=fetch2)
print(np.round(a, 4))
print(np.round(b, 4))
print("two matches eager:", bool(np.allclose(a, e1.numpy(), atol=1e-5)),
      bool(np.allclose(b, e2.numpy(), atol=1e-5)))
# the same Program object runs many times
for n in (1, 2, 5):
    print(n, exe.run(prog, feed={"x": np.ones((n, 4), "float32")}, fetch_list=fetch_targets)[0].shape)

paddle.disable_static()
print("dynamic after disable_static:", paddle.in_dynamic_mode())
print(paddle.to_tensor([1.0, 2.0]).numpy() * 2)

# Program / Block / Variable views of a loaded model, CompiledProgram, Program.clone and
# paddle.static.save_inference_model of a loaded Program (dy2st's own names and text form).
import numpy as np
import paddle


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 5)
        self.fc2 = paddle.nn.Linear(5, 2)

    def forward(self, a, b):
        h = paddle.tanh(self.fc1(a))
        return self.fc2(h) + b, h


net = Net()
net.eval()
a = np.linspace(-2.0, 2.0, 12).astype("float32").reshape(4, 3)
b = np.ones((4, 2), "float32")
out0, hid = [t.numpy() for t in net(paddle.to_tensor(a), paddle.to_tensor(b))]
spec = [paddle.static.InputSpec([None, 3], "float32", "a"),
        paddle.static.InputSpec([None, 2], "float32", "b")]
paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), "net")

paddle.enable_static()
exe = paddle.static.Executor(paddle.static.cpu_places()[0])
prog, feeds, fetches = paddle.static.load_inference_model("net", exe)
assert feeds == ["a", "b"] and len(fetches) == 2
text = str(prog)
assert "block" in text and "param" in text, text
blk = prog.global_block()
assert blk.idx == 0 and "a" in blk.vars and "b" in blk.vars
assert len(blk.ops) >= 4 and all(isinstance(op.type, str) for op in blk.ops)
params = blk.all_parameters()
assert len(params) == 4 and all(p.persistable for p in params), params
assert repr(blk.var("a")).startswith("var a : LOD_TENSOR.shape(-1, 3).dtype(float32)"), repr(blk.var("a"))
assert fetches[0].dtype == paddle.float32 and list(fetches[1].shape) == [-1, 5]
assert len(prog.list_vars()) >= 6

r = exe.run(paddle.static.CompiledProgram(prog), feed={"a": a, "b": b}, fetch_list=fetches)
assert np.allclose(r[0], out0, atol=1e-5) and np.allclose(r[1], hid, atol=1e-5)
r = exe.run(prog.clone(for_test=True), feed={"a": a, "b": b}, fetch_list=[fetches[1].name, fetches[0]])
assert np.allclose(r[0], hid, atol=1e-5) and np.allclose(r[1], out0, atol=1e-5)
# a parameter can be fetched too
w, = exe.run(prog, feed={"a": a, "b": b}, fetch_list=[params[0]])
assert w.shape in ((3, 5), (5,), (5, 2), (2,)), w.shape

# resave with the hidden output only: input b is no longer needed
paddle.static.save_inference_model("sub/hidden", [blk.var("a")], [fetches[1]], exe, program=prog)
prog2, feeds2, fetches2 = paddle.static.load_inference_model("sub/hidden", exe)
assert feeds2 == ["a"] and len(fetches2) == 1
h2, = exe.run(prog2, feed={"a": a}, fetch_list=fetches2)
assert np.allclose(h2, hid, atol=1e-5)
try:
    paddle.static.save_inference_model("bad", [blk.var("a")], [fetches[0]], exe, program=prog)
    raise AssertionError("expected ValueError")
except ValueError as e:
    assert "input 'b' is needed" in str(e), str(e)
print("selfcheck OK")

# ProgramTranslator (paddle.jit / fluid.dygraph, gone from Paddle 2.6): enable, get_output,
# get_func, get_code, get_program and save_inference_model, checked against eager results.
import numpy as np
import paddle
import paddle.fluid as fluid


@paddle.jit.to_static
def scale_or_shift(x):
    if paddle.mean(x) > 0:
        y = x * 3.0
    else:
        y = x - 2.0
    return y, paddle.sum(y)


pt = paddle.jit.ProgramTranslator()
assert pt is paddle.jit.ProgramTranslator() and pt is fluid.dygraph.ProgramTranslator()
assert pt is paddle.jit.ProgramTranslator.get_instance()
pos = paddle.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
neg = -pos
for t, want in ((pos, pos.numpy() * 3.0), (neg, neg.numpy() - 2.0)):
    y, s = pt.get_output(scale_or_shift, t)
    assert np.allclose(y.numpy(), want) and np.allclose(s.numpy(), want.sum())
code = pt.get_code(scale_or_shift)
assert "def scale_or_shift" in code and "_jst" in code, code
f = pt.get_func(scale_or_shift)
assert np.allclose(f(pos)[0].numpy(), pos.numpy() * 3.0)
main, startup, inputs, outputs = pt.get_program(scale_or_shift, pos)
assert len(inputs) == 1 and len(outputs) == 2, (inputs, outputs)
assert list(inputs[0].shape) == [2, 2] and len(main.blocks) >= 1

# save the last compiled program (the call on pos), all outputs, then only the second
pt.save_inference_model("both")
pt.save_inference_model("sum_only", feed=[0], fetch=[1])
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("both", exe)
assert len(feeds) == 1 and len(fetches) == 2
for v in (pos.numpy(), neg.numpy(), np.full((2, 2), 0.5, "float32")):
    y, s = exe.run(prog, feed={feeds[0]: v}, fetch_list=fetches)
    want = v * 3.0 if v.mean() > 0 else v - 2.0
    assert np.allclose(y, want) and np.allclose(s, want.sum()), (y, s)
prog2, feeds2, fetches2 = paddle.static.load_inference_model("sum_only", exe)
assert len(fetches2) == 1 and list(fetches2[0].shape) == []
s, = exe.run(prog2, feed={feeds2[0]: neg.numpy()}, fetch_list=fetches2)
assert np.allclose(s, (neg.numpy() - 2.0).sum())
for bad, msg in (({"fetch": [2]}, "out of range"), ({"feed": []}, "not fed"),
                 ({"fetch": "0"}, "list of int")):
    try:
        pt.save_inference_model("bad", **bad)
        raise AssertionError("expected an error for %s" % bad)
    except (ValueError, TypeError) as e:
        assert msg in str(e), str(e)
paddle.disable_static()

# enable(False): the function runs eagerly, with the same results
pt.enable(False)
y, s = pt.get_output(scale_or_shift, neg)
assert np.allclose(y.numpy(), neg.numpy() - 2.0)
pt.enable(True)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return paddle.nn.functional.relu(self.fc(x))


net = Net()
net.eval()
eager = net(pos).numpy()
pt.save_inference_model("net_dir")
paddle.enable_static()
[prog, feeds, fetches] = fluid.io.load_inference_model("net_dir", exe)
out, = exe.run(prog, feed={feeds[0]: pos.numpy()}, fetch_list=fetches)
assert np.allclose(out, eager, atol=1e-5)
print("selfcheck OK")

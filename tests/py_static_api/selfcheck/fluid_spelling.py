# The fluid spellings (fluid.Executor, fluid.CPUPlace, fluid.io.load_inference_model with
# dirname and model_filename), checked against the eager model's outputs (atol 1e-5).
import numpy as np
import paddle
import paddle.fluid as fluid


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return paddle.nn.functional.sigmoid(self.fc(x))


net = Net()
net.eval()
x = np.linspace(-1.0, 1.0, 8).astype("float32").reshape(2, 4)
eager = net(paddle.to_tensor(x)).numpy()
spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), "net")
# a directory holding model.dy2st, as save_inference_model(dirname) writes it
paddle.jit.ProgramTranslator().save_inference_model("net_dir")

assert fluid.in_dygraph_mode()
fluid.disable_dygraph()
assert not fluid.in_dygraph_mode() and not paddle.in_dynamic_mode()
exe = fluid.Executor(fluid.CPUPlace())
assert exe.run(fluid.default_startup_program()) == []
for kwargs in ({"dirname": "net_dir"}, {"dirname": ".", "model_filename": "net"},
               {"dirname": ".", "model_filename": "net.dy2st", "params_filename": "ignored"}):
    [program, feed_names, fetch_targets] = fluid.io.load_inference_model(executor=exe, **kwargs)
    assert feed_names == ["x"], feed_names
    out = exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch_targets)
    assert np.allclose(out[0], eager, atol=1e-5), kwargs
    print(kwargs, out[0].shape)
try:
    fluid.io.load_inference_model("no_such_dir", exe)
    raise AssertionError("expected ValueError")
except ValueError as e:
    assert "no directory named 'no_such_dir'" in str(e), str(e)
fluid.enable_dygraph()
assert fluid.in_dygraph_mode() and fluid.dygraph.enabled()
print("selfcheck OK")

# The TracedLayer example of Paddle's docs (paddle.jit.TracedLayer, gone from Paddle 2.6):
# trace, save_inference_model, then load_inference_model (both spellings) and Executor.run,
# checked against the eager output (atol 1e-5).
import numpy as np
import paddle
import paddle.fluid as fluid


class ExampleLayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self._fc = paddle.nn.Linear(3, 10)

    def forward(self, input):
        return self._fc(input)


save_dirname = "./saved_infer_model"
in_np = np.random.random([2, 3]).astype("float32")
in_var = paddle.to_tensor(in_np)
layer = ExampleLayer()
out_dygraph, static_layer = paddle.jit.TracedLayer.trace(layer, inputs=[in_var])
static_layer.save_inference_model(save_dirname, feed=[0], fetch=[0])

paddle.enable_static()
place = paddle.CPUPlace()
exe = paddle.static.Executor(place)
program, feed_vars, fetch_vars = paddle.static.load_inference_model(save_dirname, exe)
fetch, = exe.run(program, feed={feed_vars[0]: in_np}, fetch_list=fetch_vars)
print(fetch.shape)
assert fetch.shape == (2, 10)
assert np.allclose(fetch, out_dygraph.numpy(), atol=1e-5)
program, feed_names, fetch_targets = fluid.io.load_inference_model(save_dirname, exe)
fetch, = exe.run(program, feed={feed_names[0]: in_np * 2}, fetch_list=fetch_targets)
paddle.disable_static()
assert np.allclose(fetch, layer(paddle.to_tensor(in_np * 2)).numpy(), atol=1e-5)
print("selfcheck OK")

# TracedLayer (gone from Paddle 2.6): trace, save_inference_model, then
# load_inference_model (both spellings) and Executor.run, checked against the
# eager output (atol 1e-5).
import numpy as np
import paddle
import paddle.fluid as fluid


class Projection(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.proj = paddle.nn.Linear(3, 10)

    def forward(self, feats):
        return self.proj(feats)


model_dir = "./traced_projection"
feats_np = np.random.random([2, 3]).astype("float32")
layer = Projection()
eager_out, traced = paddle.jit.TracedLayer.trace(layer, inputs=[paddle.to_tensor(feats_np)])
traced.save_inference_model(model_dir, feed=[0], fetch=[0])

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model(model_dir, exe)
(got,) = exe.run(prog, feed={feeds[0]: feats_np}, fetch_list=fetches)
print(got.shape)
assert got.shape == (2, 10)
assert np.allclose(got, eager_out.numpy(), atol=1e-5)
prog, feed_names, fetch_targets = fluid.io.load_inference_model(model_dir, exe)
(got,) = exe.run(prog, feed={feed_names[0]: feats_np * 2}, fetch_list=fetch_targets)
paddle.disable_static()
assert np.allclose(got, layer(paddle.to_tensor(feats_np * 2)).numpy(), atol=1e-5)
print("selfcheck OK")

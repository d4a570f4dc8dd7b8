# The calls of the TracedLayer.save_inference_model example in Paddle 2.x's
# documentation, written for this suite: trace, save with feed/fetch indices,
# then load with paddle.static.load_inference_model and run with an Executor;
# it prints the fetched shape the example documents, (2, 10).
import numpy as np
import paddle


class Projection(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.proj = paddle.nn.Linear(3, 10)

    def forward(self, feats):
        return self.proj(feats)


feats_np = np.random.random([2, 3]).astype("float32")
_, traced = paddle.jit.TracedLayer.trace(Projection(), inputs=[paddle.to_tensor(feats_np)])
traced.save_inference_model("./projection_model", feed=[0], fetch=[0])

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("./projection_model", exe)
(result,) = exe.run(prog, feed={feeds[0]: feats_np}, fetch_list=fetches)
print(result.shape)

# The calls of the TracedLayer.trace example in Paddle 2.x's documentation
# (trace a small Linear model, run the traced program, save it), written for
# this suite; it prints what that example says it prints: one output of shape
# (2, 10). Paddle 2.6, whose outputs make the other expected files here, no
# longer has TracedLayer, so this .out holds the documented values.
import paddle


class Projection(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.proj = paddle.nn.Linear(3, 10)

    def forward(self, feats):
        return self.proj(feats)


model = Projection()
feats = paddle.uniform(shape=[2, 3], dtype="float32")
eager_out, traced = paddle.jit.TracedLayer.trace(model, inputs=[feats])
static_outs = traced([feats])
print(len(static_outs))
print(static_outs[0].shape)
traced.save_inference_model("./traced_projection")

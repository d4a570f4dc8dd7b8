# The calls of the TracedLayer.set_strategy example in Paddle 2.x's
# documentation, written for this suite: strategies are set before the first
# run of the traced program, which then runs; nothing is printed.
import paddle


class Projection(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.proj = paddle.nn.Linear(3, 10)

    def forward(self, feats):
        return self.proj(feats)


feats = paddle.uniform(shape=[2, 3], dtype="float32")
_, traced = paddle.jit.TracedLayer.trace(Projection(), inputs=[feats])

bs = paddle.static.BuildStrategy()
bs.enable_inplace = True
es = paddle.static.ExecutionStrategy()
es.num_threads = 2
traced.set_strategy(build_strategy=bs, exec_strategy=es)
traced([feats])

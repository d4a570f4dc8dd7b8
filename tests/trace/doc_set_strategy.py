# The example of TracedLayer.set_strategy in Paddle's documentation, unchanged.
import paddle

class ExampleLayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self._fc = paddle.nn.Linear(3, 10)

    def forward(self, input):
        return self._fc(input)

layer = ExampleLayer()
in_var = paddle.uniform(shape=[2, 3], dtype='float32')

out_dygraph, static_layer = paddle.jit.TracedLayer.trace(layer, inputs=[in_var])

build_strategy = paddle.static.BuildStrategy()
build_strategy.enable_inplace = True

exec_strategy = paddle.static.ExecutionStrategy()
exec_strategy.num_threads = 2

static_layer.set_strategy(build_strategy=build_strategy, exec_strategy=exec_strategy)
out_static_graph = static_layer([in_var])

# The example of paddle.jit.TracedLayer.trace in Paddle's documentation, unchanged.
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

# run the static graph model using Executor inside
out_static_graph = static_layer([in_var])

print(len(out_static_graph)) # 1
print(out_static_graph[0].shape) # (2, 10)

# save the static graph model for inference
static_layer.save_inference_model('./saved_infer_model')

import paddle

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, None], dtype="float32")
y = paddle.static.nn.fc(x, 10)

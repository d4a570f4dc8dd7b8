import paddle

# paddle.enable_static() was not called
image = paddle.static.data(name="img", shape=[None, 28, 28], dtype="float32")

import paddle

paddle.enable_static()
x = paddle.static.data("x", [None, 4], "float32")
y = paddle.static.nn.fc(x, 3)
data = paddle.static.serialize_program([x], [y])
prog = paddle.static.deserialize_program(data)
paddle.static.deserialize_program(data[:len(data) - 9])

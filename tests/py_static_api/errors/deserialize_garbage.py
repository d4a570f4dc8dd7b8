import paddle

with open("model.pdmodel", "w") as f:
    f.write("this is no model\n")
paddle.enable_static()
data = paddle.static.load_from_file("model.pdmodel")
prog = paddle.static.deserialize_program(data)

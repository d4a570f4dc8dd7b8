import paddle

with open("broken.dy2st", "w") as f:
    f.write("not a model\n")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feed_names, fetch_targets = paddle.static.load_inference_model("broken", exe)

import paddle

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feed_names, fetch_targets = paddle.static.load_inference_model("no_such_model", exe)

import numpy as np
import paddle
import _tiny

_tiny.save("tiny")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("tiny", exe)
exe.run(prog, feed={"x": np.ones((2, 5), "float32")}, fetch_list=fetches)

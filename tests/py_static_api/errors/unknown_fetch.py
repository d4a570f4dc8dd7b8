import numpy as np
import paddle
import _tiny

_tiny.save("tiny")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("tiny", exe)
out = exe.run(prog, feed={"x": np.ones((2, 4), "float32")},
              fetch_list=[fetches[0], "linear_1.tmp_1"])

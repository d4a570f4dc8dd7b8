import numpy as np
import paddle
import _tiny

_tiny.save("tiny")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("tiny", exe)
x = np.ones((2, 4))
exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)

import numpy as np
import paddle

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
loss, = exe.run(paddle.static.default_main_program(), feed={"X": np.ones((2, 1), "float32")},
                fetch_list=["loss"])

# CompiledProgram with BuildStrategy.fuse_gemm_epilogue: linear + gelu, linear + residual add
# and linear + add + relu (with an eval-mode dropout between) fuse into single ops in dy2st;
# the results stay as they were (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F


def assign(shape, k):
    v = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.4
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(v.reshape(shape)))


paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 3, 8], dtype="float32")
    fc1 = paddle.nn.Linear(8, 16, weight_attr=assign([8, 16], 0.7), bias_attr=assign([16], 0.3))
    fc2 = paddle.nn.Linear(16, 8, weight_attr=assign([16, 8], 1.1), bias_attr=assign([8], 0.9))
    fc3 = paddle.nn.Linear(8, 8, weight_attr=assign([8, 8], 0.5), bias_attr=assign([8], 1.3))
    drop = paddle.nn.Dropout(0.1)
    drop.eval()
    h = F.gelu(fc1(x))
    r = x + drop(fc2(h))
    out = F.relu(fc3(r) + r)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
xv = np.cos(np.arange(48, dtype="float32") * 0.37).reshape(2, 3, 8)
plain, = exe.run(main, feed={"x": xv}, fetch_list=[out])
bs = paddle.static.BuildStrategy()
bs.fuse_gemm_epilogue = True
compiled = paddle.static.CompiledProgram(main, build_strategy=bs)
fused, = exe.run(compiled, feed={"x": xv}, fetch_list=[out])
print("shape", fused.shape)
print("equal", np.allclose(plain, fused, rtol=1e-5, atol=1e-5))
print(np.round(fused[0], 4))
# the Program object itself is not rewritten
print("gelu kept in the Program", "gelu" in str(main))

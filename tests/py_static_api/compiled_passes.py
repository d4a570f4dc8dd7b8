# CompiledProgram with a BuildStrategy: the graph passes it selects (batch_norm folding, conv
# epilogue fusion) leave the results as they were (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 2, 6, 6], dtype="float32")
    w = (np.sin(np.arange(36, dtype="float32") * 0.7) * 0.5).reshape(2, 2, 3, 3)
    conv = paddle.nn.Conv2D(2, 2, 3, padding=1,
                            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w)),
                            bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)))
    bn = paddle.nn.BatchNorm2D(2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.5)),
                               bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(-0.2)))
    bn.eval()
    y = paddle.nn.functional.relu(bn(conv(x)) + x)
    out = paddle.mean(y, axis=[2, 3])

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
xv = np.cos(np.arange(144, dtype="float32") * 0.3).reshape(2, 2, 6, 6)
plain, = exe.run(main, feed={"x": xv}, fetch_list=[out])
bs = paddle.static.BuildStrategy()
bs.fuse_bn_act_ops = True
bs.fuse_elewise_add_act_ops = True
compiled = paddle.static.CompiledProgram(main, build_strategy=bs)
fused, = exe.run(compiled, feed={"x": xv}, fetch_list=[out])
print("shape", fused.shape)
print("equal", np.allclose(plain, fused, rtol=1e-5, atol=1e-5))
print(np.round(fused, 4))
# a saved inference model loads with the same passes (its Program object stays as saved)
paddle.static.save_inference_model("bnmodel", [x], [out], exe, program=main)
prog, feeds, fetches = paddle.static.load_inference_model("bnmodel", exe)
loaded, = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
print("loaded equal", np.allclose(plain, loaded, rtol=1e-5, atol=1e-5))
print("batch_norm kept in the Program", "batch_norm" in str(prog))

# CompiledProgram with fuse_elewise_add_act_ops, fuse_bn_act_ops and fuse_bn_add_act_ops: an
# LSTM cell's elementwise update, a bias + relu chain, a residual add + layer_norm and a
# batch_norm after pooling (which no convolution can absorb) + residual add + relu give the
# results of the Program without the passes (tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 8], dtype="float32")
    h = paddle.static.data(name="h", shape=[None, 8], dtype="float32")
    img = paddle.static.data(name="img", shape=[None, 2, 4, 4], dtype="float32")
    b = paddle.create_parameter(
        [8], "float32", default_initializer=paddle.nn.initializer.Assign(
            np.linspace(-1, 1, 8).astype("float32")))
    c = paddle.nn.functional.sigmoid(x) * h + paddle.nn.functional.sigmoid(h) * paddle.tanh(x)
    hn = paddle.nn.functional.sigmoid(paddle.scale(x, 2.0, 1.0)) * paddle.tanh(c)
    z = paddle.nn.functional.silu(paddle.nn.functional.relu(x + b) / 3.0)
    ln = paddle.nn.LayerNorm(8, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(1.5)))
    y = ln(hn + x)
    pooled = paddle.nn.functional.avg_pool2d(img, 3, stride=1, padding=1)
    bn = paddle.nn.BatchNorm2D(2, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(0.5)), bias_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(-0.1)))
    bn.eval()
    r = paddle.nn.functional.relu(bn(pooled) + img)
    outs = [c, z, y, paddle.mean(r, axis=[2, 3])]

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"x": np.sin(np.arange(24, dtype="float32") * 0.7).reshape(3, 8) * 2,
        "h": np.cos(np.arange(24, dtype="float32") * 0.3).reshape(3, 8),
        "img": np.cos(np.arange(96, dtype="float32") * 0.2).reshape(3, 2, 4, 4)}
plain = exe.run(main, feed=feed, fetch_list=outs)
bs = paddle.static.BuildStrategy()
bs.fuse_elewise_add_act_ops = True
bs.fuse_bn_act_ops = True
bs.fuse_bn_add_act_ops = True
compiled = paddle.static.CompiledProgram(main, build_strategy=bs)
fused = exe.run(compiled, feed=feed, fetch_list=outs)
for p, f in zip(plain, fused):
    print("shape", f.shape, "equal", np.allclose(p, f, rtol=1e-5, atol=1e-5))
    print(np.round(f, 4))

# CompiledProgram with BuildStrategy.memory_optimize and enable_inplace on and off: a small
# conv + MLP classifier gives the plain Program's results at every batch size, run after run
# (tolerance 1e-5), and a fetched result stays as it was after later runs.
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()


def assign(shape, k):
    v = (np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.4).reshape(shape)
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(v))


with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 3, 8, 8], dtype="float32")
    conv = paddle.nn.Conv2D(3, 4, 3, padding=1, weight_attr=assign([4, 3, 3, 3], 0.3),
                            bias_attr=assign([4], 0.9))
    h = paddle.nn.functional.relu(conv(x))
    h = paddle.nn.functional.max_pool2d(h, 2)
    h = paddle.flatten(h, start_axis=1)
    fc1 = paddle.nn.Linear(64, 32, weight_attr=assign([64, 32], 0.7), bias_attr=assign([32], 1.1))
    fc2 = paddle.nn.Linear(32, 5, weight_attr=assign([32, 5], 0.5), bias_attr=assign([5], 1.3))
    z = paddle.tanh(fc1(h))
    z = paddle.nn.functional.sigmoid(z) * z + z
    out = paddle.nn.functional.softmax(fc2(z), axis=-1)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feeds = {b: np.cos(np.arange(b * 192, dtype="float32") * 0.11).reshape(b, 3, 8, 8)
         for b in (1, 4, 7)}
plain = {b: exe.run(main, feed={"x": feeds[b]}, fetch_list=[out])[0] for b in feeds}
for mem, inplace in ((True, True), (False, True), (True, False), (False, False)):
    bs = paddle.static.BuildStrategy()
    bs.memory_optimize = mem
    bs.enable_inplace = inplace
    compiled = paddle.static.CompiledProgram(main, build_strategy=bs)
    same = True
    held = None
    for b in (4, 1, 7, 4, 1):
        got, = exe.run(compiled, feed={"x": feeds[b]}, fetch_list=[out])
        same = same and got.shape == plain[b].shape and np.allclose(got, plain[b], rtol=1e-5,
                                                                       atol=1e-5)
        if held is None:
            held = got
            kept = got.copy()
    print("memory_optimize", mem, "enable_inplace", inplace, "same", same,
          "held result unchanged", np.allclose(held, kept, rtol=0, atol=0))
print(np.round(plain[4], 4))

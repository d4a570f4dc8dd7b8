# A static Program built by hand with paddle.static.nn.while_loop and cond (Paddle's
# documented examples), run by the Executor on fed values.
import numpy as np
import paddle

paddle.enable_static()
main = paddle.static.Program()
startup = paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[3], dtype="float32")
    limit = paddle.static.data(name="limit", shape=[1], dtype="int64")

    def cond(i, s):
        return i < limit

    def body(i, s):
        i = i + 1
        return [i, s + x]

    i = paddle.full(shape=[1], fill_value=0, dtype="int64")
    s = paddle.zeros(shape=[3], dtype="float32")
    i, s = paddle.static.nn.while_loop(cond, body, [i, s])
    y = paddle.static.nn.cond(paddle.sum(s) > 5.0, lambda: s * 2.0, lambda: s - 1.0)
    p, q = paddle.static.nn.cond(paddle.mean(x) < 1.0, lambda: (x, x + 1.0), lambda: (x * 0.0, x))

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
for xv, lim in (([1.0, 2.0, 3.0], 4), ([0.5, -1.0, 0.25], 0), ([2.0, 2.0, 2.0], 1)):
    feed = {"x": np.array(xv, "float32"), "limit": np.array([lim], "int64")}
    outs = exe.run(main, feed=feed, fetch_list=[i, s, y, p, q])
    print([np.round(o.astype("float64"), 4).tolist() for o in outs])

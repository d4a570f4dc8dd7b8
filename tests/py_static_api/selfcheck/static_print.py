# paddle.static.Print in a static Program (its doc example's shape): the op prints on every
# Executor.run (the variable's name, the message, lod and place lines, then shape, dtype and
# data on one line; Paddle prints those on lines of their own, so the text is not compared
# with Paddle's), returns its input unchanged, and prints even when its result is not fetched;
# a concrete tensor (paddle.full in static mode, the doc example) is printed by the default
# main Program.
import numpy as np
import paddle

paddle.enable_static()
x = paddle.full(shape=[2, 3], fill_value=3, dtype="int64")
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    d = paddle.static.data("d", [None, 3], "float32")
    h = d * 2.0
    hp = paddle.static.Print(h, message="The content of input layer:")
    out = paddle.sum(hp)
    paddle.static.Print(d, summarize=2, print_tensor_lod=False)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
dv = np.arange(6, dtype="float32").reshape(2, 3) / 3
hv, ov = exe.run(main, feed={"d": dv}, fetch_list=[hp, out])
assert np.allclose(hv, dv * 2), hv
assert abs(float(ov) - float((dv * 2).sum())) < 1e-5, ov
hv, = exe.run(main, feed={"d": dv[:1]}, fetch_list=[h])
assert hv.shape == (1, 3), hv.shape
assert exe.run(main, feed={"d": dv}) == []  # prints with nothing fetched
try:
    paddle.static.Print([1.0])
    raise AssertionError("Print of a list must fail")
except TypeError as e:
    assert "must be a Variable" in str(e), e
# the doc example: a paddle.full result printed by the default main Program
x = paddle.full(shape=[2, 3], fill_value=3, dtype="int64")
out = paddle.static.Print(x, message="The content of input layer:")
main_program = paddle.static.default_main_program()
exe = paddle.static.Executor(place=paddle.CPUPlace())
res = exe.run(main_program, fetch_list=[out])
assert (res[0] == 3).all() and res[0].shape == (2, 3), res
print("selfcheck OK")

# program_guard switches the default main/startup Programs and restores them; Programs built in
# separate guards are independent; empty startup Programs run to nothing.
import numpy as np
import paddle

paddle.enable_static()
default_main = paddle.static.default_main_program()
default_startup = paddle.static.default_startup_program()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    print("inside: main is guarded", paddle.static.default_main_program() is main)
    print("inside: startup is guarded", paddle.static.default_startup_program() is startup)
    x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
    y = paddle.nn.functional.relu(x) * 3.0 - 1.0
print("after: main restored", paddle.static.default_main_program() is default_main)
print("after: startup restored", paddle.static.default_startup_program() is default_startup)
other = paddle.static.Program()
with paddle.static.program_guard(other):
    # the same input name in another Program
    x2 = paddle.static.data(name="x", shape=[2], dtype="float32")
    y2 = paddle.exp(x2)
print("startup still default", paddle.static.default_startup_program() is default_startup)
exe = paddle.static.Executor(paddle.CPUPlace())
print(exe.run(startup))
print(exe.run(paddle.static.default_startup_program()))
xv = np.array([[-1.0, 0.5, 2.0]], dtype="float32")
print(exe.run(main, feed={"x": xv}, fetch_list=[y])[0].tolist())
print(np.round(exe.run(other, feed={"x": np.array([0.0, 1.0], "float32")}, fetch_list=[y2])[0], 4).tolist())
print("num_blocks", main.num_blocks, other.num_blocks)
print("vars in global block:", "x" in main.global_block().vars)
# nested guards restore in order
inner = paddle.static.Program()
with paddle.static.program_guard(main):
    with paddle.static.program_guard(inner):
        print("nested inner", paddle.static.default_main_program() is inner)
    print("nested outer", paddle.static.default_main_program() is main)
print("nested done", paddle.static.default_main_program() is default_main)

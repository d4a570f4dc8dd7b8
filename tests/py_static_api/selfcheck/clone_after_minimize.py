# Program.clone(for_test=True) after minimize drops the backward and the optimizer ops (Paddle's
# prune_backward): running the clone leaves the weights alone, and it sees what the main
# Program's runs trained. Checks its own results.
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, 2], dtype="float32")
y = paddle.static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(
    initializer=paddle.nn.initializer.Constant(0.5)))
loss = paddle.mean(y * y)
main = paddle.static.default_main_program()
before = len(main.global_block().ops)
_, params_grads = paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
test = main.clone(for_test=True)
full = main.clone()
assert len(test.global_block().ops) == before, (len(test.global_block().ops), before)
assert len(full.global_block().ops) == len(main.global_block().ops) > before
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
xv = np.ones([3, 2], "float32")


def run(prog):
    return float(exe.run(prog, feed={"x": xv}, fetch_list=[loss])[0])


# y = 0.5 + 0.5 = 1 (zero bias): loss 1; the clone runs twice without updating
assert abs(run(test) - 1.0) < 1e-6 and abs(run(test) - 1.0) < 1e-6
# one SGD step: d loss / d w = 2 y x = [2, 2], d loss / d b = 2, so w = 0.3, b = -0.2
assert abs(run(main) - 1.0) < 1e-6
w = np.array(paddle.static.global_scope().find_var(params_grads[0][0].name).get_tensor())
assert np.allclose(w, [[0.3], [0.3]], atol=1e-6), w
# y = 0.3 + 0.3 - 0.2 = 0.4: the clone sees the trained weights
assert abs(run(test) - 0.16) < 1e-6
print("selfcheck OK")

# paddle.static.ExponentialMovingAverage as its documentation uses it: built after
# Adam.minimize, update() appended to the training Program, apply(exe) around evaluation
# runs of the clone(for_test=True) Program (parameters replaced by the bias-corrected
# averages, restored after the block), apply(exe, need_restore=False) then restore(exe); and
# in a program_guard Program with batch_norm, whose running statistics are averaged too
# (Paddle 2.6's thres_steps fails in its own cond, so it is not used). Fixed data and Assign-initialized
# weights instead of the doc's random ones. Values printed with 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.static as static
from paddle.static import ExponentialMovingAverage

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k + 0.2) * 0.5
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


def r5(v):
    return np.round(np.asarray(v, "float64"), 5).ravel().tolist()


data = static.data(name="x", shape=[-1, 5], dtype="float32")
hidden = static.nn.fc(x=data, size=3, weight_attr=assign([5, 3], 0.7), bias_attr=assign([3], 0.3))
cost = paddle.mean(hidden * hidden)
test_program = static.default_main_program().clone(for_test=True)
optimizer = paddle.optimizer.Adam(learning_rate=0.05)
optimizer.minimize(cost)

ema = ExponentialMovingAverage(0.9)
ema.update()

place = paddle.CPUPlace()
exe = static.Executor(place)
exe.run(static.default_startup_program())
batches = [(np.cos(np.arange(50, dtype="float32") * (0.1 + 0.07 * i))).reshape(10, 5)
           for i in range(6)]
probe = (np.sin(np.arange(10, dtype="float32") * 0.9)).reshape(2, 5)
w = static.default_main_program().global_block().var("fc_0.w_0")
for pass_id in range(2):
    for batch in batches:
        c, = exe.run(program=static.default_main_program(), feed={"x": batch},
                     fetch_list=[cost.name])
    print("pass", pass_id, "last cost", round(float(c), 5))
    h, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
    print("  trained weights", r5(h))
    with ema.apply(exe):
        h, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
        print("  averaged weights", r5(h))
    h, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
    print("  restored", r5(h))
    with ema.apply(exe, need_restore=False):
        h, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
    h2, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
    print("  kept averaged until restore", r5(h2) == r5(h))
    ema.restore(exe)
    h, = exe.run(program=test_program, feed={"x": probe}, fetch_list=[hidden.name])
    print("  restore(exe)", r5(h))

main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    x = static.data("x", [None, 4], "float32")
    out = static.nn.fc(static.nn.batch_norm(x), 2, weight_attr=assign([4, 2], 0.4),
                       bias_attr=False)
    loss = paddle.mean(paddle.square(out - 1.0))
    test2 = main.clone(for_test=True)
    paddle.optimizer.SGD(0.1).minimize(loss)
    ema2 = ExponentialMovingAverage(0.8)
    ema2.update()
print("averaged", [p.name for p in main.all_parameters()])
exe.run(startup)
for i in range(5):
    xv = np.cos(np.arange(12, dtype="float32") * (1 + 0.1 * i)).reshape(3, 4)
    exe.run(main, feed={"x": xv})
with ema2.apply(exe):
    o, = exe.run(test2, feed={"x": xv}, fetch_list=[out])
    print("with batch_norm, averaged", r5(o))
o, = exe.run(test2, feed={"x": xv}, fetch_list=[out])
print("with batch_norm, restored", r5(o))

# A data-parallel CompiledProgram keeps its prepared replica and update Programs between runs
# (keyed by the fetch list, the replicas' devices and the Program as it stands). This script
# checks that the kept copy is dropped when it must be: when the Program's parameters are
# rebound to other data (share_vars_from on a training Program that ran already) and when the
# fetch list changes; each SGD step is
# checked against NumPy (float64) within 1e-5 per element.
import numpy as np
import paddle
import paddle.static as static

paddle.enable_static()
bad = []


def check(what, ok):
    print(what, "ok" if ok else "FAILED")
    if not ok:
        bad.append(what)


LR = 0.1
XV = np.linspace(-1, 1, 24).reshape(8, 3)


def build(w0):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name='x', shape=[None, 3], dtype='float32')
        y = static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
            name='w_shared', initializer=paddle.nn.initializer.Assign(w0.astype('float32'))),
            bias_attr=False)
        lo = paddle.mean(y * y)
        paddle.optimizer.SGD(learning_rate=LR).minimize(lo)
    return main, startup, x, y, lo


def sgd_step(w):
    """One SGD step of mean((x w)^2) on the whole batch, in float64."""
    y = XV @ w
    return w - LR * (2.0 * XV.T @ y / y.size)


def weight(main):
    w = main.global_block().all_parameters()[0]
    return np.array(static.global_scope().find_var(w.name).get_tensor()).astype('float64')


exe = static.Executor(paddle.CPUPlace())
w1 = np.arange(6, dtype='float64').reshape(3, 2) / 10
w2 = -w1 * 2
main1, start1, x1, y1, lo1 = build(w1)
exe.run(start1)
cp1 = static.CompiledProgram(main1).with_data_parallel(loss_name=lo1.name,
                                                      places=[paddle.CPUPlace()] * 2)
feed = {'x': XV.astype('float32')}
want1 = w1
for step in range(3):
    exe.run(cp1, feed=feed, fetch_list=[lo1])
    want1 = sgd_step(want1)
check("three cached steps follow SGD", np.allclose(weight(main1), want1, atol=1e-5))

# the fetch list changes between runs: a new copy, then the old one again
lo_a, h = exe.run(cp1, feed=feed, fetch_list=[lo1, y1])
want1_before = want1
want1 = sgd_step(want1)
check("fetching another list: the hidden layer is x w before the step",
      h.shape == (8, 2) and np.allclose(h, XV @ want1_before, atol=1e-5))
lo_b, = exe.run(cp1, feed=feed, fetch_list=[lo1])
want1 = sgd_step(want1)
check("back to the first fetch list: SGD goes on", np.allclose(weight(main1), want1, atol=1e-5))

# a second training Program with the same parameter name: it runs on its own weights, then
# shares cp1's; its kept copy must then read (and update) the shared ones
main2, start2, x2, y2, lo2 = build(w2)
exe.run(start2)
cp2 = static.CompiledProgram(main2).with_data_parallel(loss_name=lo2.name,
                                                      places=[paddle.CPUPlace()] * 2)
exe.run(cp2, feed=feed, fetch_list=[lo2])
check("the second Program trains its own weights",
      np.allclose(weight(main2), sgd_step(w2), atol=1e-5))
cp2s = static.CompiledProgram(main2).with_data_parallel(
    loss_name=lo2.name, share_vars_from=cp1, places=[paddle.CPUPlace()] * 2)
l2, = exe.run(cp2s, feed=feed, fetch_list=[lo2])
check("after share_vars_from the loss is that of the shared weights",
      abs(float(np.mean(l2)) - float(np.mean((XV @ want1) ** 2))) < 1e-5)
want1 = sgd_step(want1)
check("after share_vars_from the step updates the shared weights",
      np.allclose(weight(main1), want1, atol=1e-5))

print("selfcheck OK" if not bad else "selfcheck FAILED: %s" % bad)

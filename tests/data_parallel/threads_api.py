# CompiledProgram.with_data_parallel beyond the equivalence: the document example of Paddle's
# CompiledProgram (train on two places, evaluate with share_vars_from), fetches merged along
# dim 0, uneven splits, too small a batch, places=None taking CPU_NUM, the gradient scale
# strategies, and share_vars_from before the shared program ran. Paddle 2.6 no longer has
# with_data_parallel, so the script checks itself against plain Executor runs.
import os
import numpy
import numpy as np
import paddle
import paddle.static as static

paddle.enable_static()
bad = []


def check(what, ok):
    print(what, "ok" if ok else "FAILED")
    if not ok:
        bad.append(what)


# ---- the CompiledProgram document example (Paddle 2.4), CPU places ----
place = paddle.CPUPlace()
parallel_places = [paddle.CPUPlace()] * 2
os.environ['CPU_NUM'] = str(2)
exe = static.Executor(place)
data = static.data(name='X', shape=[None, 1], dtype='float32')
hidden = static.nn.fc(x=data, size=10)
loss = paddle.mean(hidden)
test_program = static.default_main_program().clone(for_test=True)
paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
exe.run(static.default_startup_program())
compiled_train_prog = static.CompiledProgram(
    static.default_main_program()).with_data_parallel(
        loss_name=loss.name, places=parallel_places)
compiled_test_prog = static.CompiledProgram(
    test_program).with_data_parallel(
        share_vars_from=compiled_train_prog,
        places=parallel_places)
train_data = numpy.linspace(0, 1, 10).astype('float32').reshape(10, 1)
try:
    exe.run(compiled_test_prog, feed={"X": train_data}, fetch_list=[loss.name])
    check("share_vars_from before the shared program ran is an error", False)
except ValueError as e:
    check("share_vars_from before the shared program ran is an error",
          "not compiled and executed" in str(e))
loss_data, = exe.run(compiled_train_prog, feed={"X": train_data}, fetch_list=[loss.name])
print("train loss shape", loss_data.shape)
check("merged train loss has shape (2,)", loss_data.shape == (2,))
test_data = numpy.linspace(1, 2, 10).astype('float32').reshape(10, 1)
loss_data, = exe.run(compiled_test_prog, feed={"X": test_data}, fetch_list=[loss.name])
print("test loss shape", loss_data.shape)
check("merged test loss has shape (2,)", loss_data.shape == (2,))
# the test program reads the trained parameters: the same as a plain run of it
plain, = exe.run(test_program, feed={"X": test_data}, fetch_list=[loss.name])
check("evaluation with shared variables equals a plain run",
      abs(float(np.mean(loss_data)) - float(plain)) < 1e-6)
# evaluation does not train: twice the same
again, = exe.run(compiled_test_prog, feed={"X": test_data}, fetch_list=[loss.name])
check("evaluation leaves the parameters alone", np.array_equal(again, loss_data))

# ---- fetches: a hidden layer merged along dim 0, a feed whole; uneven splits ----
h, x_back, l = exe.run(compiled_test_prog, feed={"X": test_data}, fetch_list=[hidden, data, loss])
ref_h, = exe.run(test_program, feed={"X": test_data}, fetch_list=[hidden])
check("hidden layer merged to (10, 10) equals the plain run",
      h.shape == (10, 10) and np.allclose(h, ref_h, atol=1e-6))
check("a fetched feed comes back whole", np.array_equal(x_back, test_data))
four = static.CompiledProgram(test_program).with_data_parallel(
    share_vars_from=compiled_train_prog, places=[paddle.CPUPlace()] * 4)
h4, l4 = exe.run(four, feed={"X": test_data}, fetch_list=[hidden, loss])
# 10 rows on 4 places: 3, 3, 2, 2 rows, as Paddle's split
want = [float(np.mean(ref_h[a:b])) for a, b in [(0, 3), (3, 6), (6, 8), (8, 10)]]
check("10 rows on 4 places split 3,3,2,2", l4.shape == (4,) and np.allclose(l4, want, atol=1e-6))
check("uneven split merges the hidden layer back", np.allclose(h4, ref_h, atol=1e-6))
try:
    exe.run(four, feed={"X": test_data[:3]}, fetch_list=[loss])
    check("a batch smaller than the places is an error", False)
except ValueError as e:
    print("error:", e)
    check("a batch smaller than the places is an error", "less than the count (4)" in str(e))

# ---- places=None: CPU_NUM from the environment ----
os.environ['CPU_NUM'] = '3'
three = static.CompiledProgram(test_program).with_data_parallel(
    share_vars_from=compiled_train_prog)
l3, = exe.run(three, feed={"X": test_data}, fetch_list=[loss])
check("places=None uses CPU_NUM=3", l3.shape == (3,))


# ---- gradient scale strategies: One sums the replicas' gradients ----
def sgd_run(lr, n, strategy):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name='x', shape=[None, 3], dtype='float32')
        y = static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Assign(np.arange(6, dtype='float32').reshape(3, 2) / 10)))
        lo = paddle.mean(y * y)
        paddle.optimizer.SGD(learning_rate=lr).minimize(lo)
    exe.run(startup)
    bs = static.BuildStrategy()
    if strategy is not None:
        bs.gradient_scale_strategy = strategy
    cp = static.CompiledProgram(main).with_data_parallel(
        loss_name=lo.name, build_strategy=bs, places=[paddle.CPUPlace()] * n)
    xv = np.linspace(-1, 1, 24).astype('float32').reshape(8, 3)
    for _ in range(3):
        exe.run(cp, feed={'x': xv}, fetch_list=[lo])
    w = main.global_block().all_parameters()[0]
    return np.array(static.global_scope().find_var(w.name).get_tensor())


avg = sgd_run(0.1, 2, None)
one = sgd_run(0.05, 2, static.BuildStrategy.GradientScaleStrategy.One)
single = sgd_run(0.1, 1, None)
check("CoeffNumDevice on 2 places equals one place", np.allclose(avg, single, atol=1e-6))
check("One on 2 places with lr/2 equals CoeffNumDevice", np.allclose(one, avg, atol=1e-6))
summed = sgd_run(0.1, 2, static.BuildStrategy.GradientScaleStrategy.One)
check("One sums: it differs from the average", not np.allclose(summed, avg, atol=1e-4))

# Customized: the user would feed the loss gradient, which dy2st does not take
try:
    sgd_run(0.1, 2, static.BuildStrategy.GradientScaleStrategy.Customized)
    check("Customized gradient scale is refused", False)
except NotImplementedError as e:
    print("error:", e)
    check("Customized gradient scale is refused", "Customized" in str(e) and "loss gradient" in str(e))

# ---- bad arguments ----
try:
    static.CompiledProgram(test_program).with_data_parallel(places=[])
    check("empty places is an error", False)
except ValueError as e:
    check("empty places is an error", "no places" in str(e))
try:
    static.CompiledProgram(test_program).with_data_parallel(share_vars_from=test_program)
    check("share_vars_from must be a data-parallel CompiledProgram", False)
except TypeError as e:
    check("share_vars_from must be a data-parallel CompiledProgram", "share_vars_from" in str(e))
print("selfcheck OK" if not bad else "selfcheck FAILED: %s" % bad)

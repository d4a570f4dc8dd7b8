# CompiledProgram(main).with_data_parallel with replicas on an OpenCL device: a place is
# paddle.CPUPlace() or a device named as dy2st's --device names it ('cpu', 'opencl',
# 'opencl:N'). Two replicas on the device, and one on the CPU beside one on the device, train
# the MLP, the MNIST CNN and the while_loop RNN of _dp_models with SGD and Adam (each replica's
# gradients come back to the host, where they are averaged before the update), and must end
# with the parameters real Paddle reaches in one CPU process on the whole batch (expected.npz,
# from tests/gen/gen_data_parallel_expected.py). Tolerance: |got - want| <= atol + 1e-4 * |want|
# per element, atol 1e-5 for SGD as threads_equiv.py, and 2e-4 for Adam, twice the CPU bound:
# Adam's step moves an element by up to lr = 0.01 whatever its gradient's size, so elements
# whose gradient is float32 rounding noise move by part of a step, and the device's kernels
# (convolutions above all) sum in another order than the CPU's (the CNN's first Linear layer
# differs by 1.6e-4 at most, against 4e-5 on CPU places). A place naming a device that does not exist is an error
# that says so; without any OpenCL device (or in a build without OpenCL) the script checks
# only that error and says SKIP for the rest.
import numpy as np
import paddle
import _dp_models as M

paddle.enable_static()
want = np.load("expected.npz")
RTOL = 1e-4
ATOL = {"sgd": 1e-5, "adam": 2e-4}
bad = 0


def close(got, exp, opt):
    got, exp = np.asarray(got, "float64"), np.asarray(exp, "float64")
    return got.shape == exp.shape and bool(np.all(np.abs(got - exp) <= ATOL[opt] + RTOL * np.abs(exp)))


def compiled(main, loss, places):
    return paddle.static.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                   places=places)


# a device index past the last device: always an error naming the index
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    loss, params = M.build("mlp")
try:
    compiled(main, loss, ["opencl:4096"])
    print("places=['opencl:4096'] did not fail")
    bad += 1
except ValueError as e:
    msg = str(e)
    if "places[0]" not in msg or ("4096" not in msg and "OpenCL" not in msg):
        print("unclear error for a missing device:", msg)
        bad += 1
    else:
        print("missing device: error ok")
try:
    compiled(main, loss, ["tpu"])
    print("places=['tpu'] did not fail")
    bad += 1
except ValueError as e:
    print("unknown device: error ok" if "tpu" in str(e) else "unclear error: %s" % e)
    bad += 0 if "tpu" in str(e) else 1

have_device = True
try:
    compiled(main, loss, ["opencl:0"])
except ValueError as e:
    have_device = False
    print("SKIP: no OpenCL device (%s)" % e)

if have_device:
    for model in M.MODELS:
        for opt in M.OPTIMIZERS:
            for places in (["opencl", "opencl"], [paddle.CPUPlace(), "opencl:0"]):
                main, startup = paddle.static.Program(), paddle.static.Program()
                with paddle.static.program_guard(main, startup):
                    loss, params = M.build(model)
                    M.optimizer(opt).minimize(loss)
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup)
                cp = compiled(main, loss, places)
                losses = []
                for step in range(M.STEPS):
                    l, = exe.run(cp, feed=M.data(model, step), fetch_list=[loss])
                    if l.shape != (2,):
                        print("%s %s: merged loss has shape %s" % (model, opt, l.shape))
                        bad += 1
                    losses.append(float(np.mean(l)))
                scope = paddle.static.global_scope()
                got = [np.array(scope.find_var(p.name).get_tensor()) for p in params]
                tag = "%s_%s" % (model, opt)
                ok_loss = close(losses, want[tag + "_loss"], opt)
                ok_par = [close(g, want["%s_p%d" % (tag, k)], opt) for k, g in enumerate(got)]
                where = "+".join("cpu" if not isinstance(p, str) else p for p in places)
                print("%s %s on %s: losses %s, %d parameters %s" % (
                    model, opt, where, "match" if ok_loss else "DIFFER", len(got),
                    "match" if all(ok_par) else "DIFFER"))
                if not ok_loss:
                    print("   got", losses, "want", list(want[tag + "_loss"]))
                    bad += 1
                for k, ok in enumerate(ok_par):
                    if not ok:
                        w = want["%s_p%d" % (tag, k)]
                        print("   parameter %d: max abs err %g" % (k, np.max(np.abs(got[k] - w))))
                        bad += 1
print("selfcheck OK" if bad == 0 else "selfcheck FAILED: %d mismatches" % bad)

# CompiledProgram(main).with_data_parallel on N = 1, 2, 4 CPU places (replicas on threads)
# trains the MLP, the MNIST CNN and the while_loop RNN of _dp_models with SGD and Adam on the
# whole batch fed at once (each replica takes BATCH/N rows); the gradients are averaged over
# the replicas (GradientScaleStrategy.CoeffNumDevice), so the run must end with the parameters
# real Paddle reaches in one process on the whole batch (expected.npz, from
# tests/gen/gen_data_parallel_expected.py). Tolerance: |got - want| <= atol + 1e-4 * |want| per
# element, atol 1e-5 for SGD (float32 sums taken in another order) and 1e-4 for Adam, whose step
# moves an element by up to lr = 0.01 whatever its gradient's size, so elements whose gradient
# is float32 rounding noise may move by part of a step (a single dy2st process differs from
# Paddle by up to 4e-5 there too); the mean of the merged per-replica losses must match the
# one-process loss of each step within the same bounds.
import numpy as np
import paddle
import _dp_models as M

paddle.enable_static()
want = np.load("expected.npz")
RTOL = 1e-4
ATOL = {"sgd": 1e-5, "adam": 1e-4}
bad = 0


def close(got, exp, opt):
    got, exp = np.asarray(got, "float64"), np.asarray(exp, "float64")
    return got.shape == exp.shape and bool(np.all(np.abs(got - exp) <= ATOL[opt] + RTOL * np.abs(exp)))


for model in M.MODELS:
    for opt in M.OPTIMIZERS:
        for n in [1, 2, 4]:
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                loss, params = M.build(model)
                M.optimizer(opt).minimize(loss)
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            cp = paddle.static.CompiledProgram(main).with_data_parallel(
                loss_name=loss.name, places=[paddle.CPUPlace()] * n)
            losses = []
            for step in range(M.STEPS):
                l, = exe.run(cp, feed=M.data(model, step), fetch_list=[loss])
                if l.shape != (n,):
                    print("%s %s N=%d: merged loss has shape %s" % (model, opt, n, l.shape))
                    bad += 1
                losses.append(float(np.mean(l)))
            scope = paddle.static.global_scope()
            got = [np.array(scope.find_var(p.name).get_tensor()) for p in params]
            tag = "%s_%s" % (model, opt)
            ok_loss = close(losses, want[tag + "_loss"], opt)
            ok_par = [close(g, want["%s_p%d" % (tag, k)], opt) for k, g in enumerate(got)]
            print("%s %s N=%d: losses %s, %d parameters %s" % (
                model, opt, n, "match" if ok_loss else "DIFFER", len(got),
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

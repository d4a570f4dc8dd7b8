# Static collective training on MPI ranks (`mpirun -np N dy2st exec mpi_fleet.py`, or one
# process): fleet.init(is_collective=True), fleet.distributed_optimizer(opt).minimize(loss) on
# the static MLP, MNIST CNN and while_loop RNN of _dp_models, each rank feeding its BATCH/N rows
# of every step; the gradients are averaged over the ranks before each update, so every rank
# must end with the parameters real Paddle reaches in one process on the whole batch
# (expected.npz). Tolerance as threads_equiv.py; the mean over the steps and ranks of the
# fetched local losses must match the one-process mean within 1e-4.
import numpy as np
import paddle
import paddle.distributed as dist
from paddle.distributed import fleet
import _dp_models as M

paddle.enable_static()
fleet.init(is_collective=True)
rank, nranks = fleet.worker_index(), fleet.worker_num()
want = np.load("expected.npz")
RTOL = 1e-4
ATOL = {"sgd": 1e-5, "adam": 1e-4}
bad = 0


def close(got, exp, opt):
    got, exp = np.asarray(got, "float64"), np.asarray(exp, "float64")
    return got.shape == exp.shape and bool(np.all(np.abs(got - exp) <= ATOL[opt] + RTOL * np.abs(exp)))


rows = M.BATCH // nranks
for model in M.MODELS:
    for opt_name in M.OPTIMIZERS:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            loss, params = M.build(model)
            opt = fleet.distributed_optimizer(M.optimizer(opt_name))
            opt.minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        scope = paddle.static.global_scope()
        losses = []
        for step in range(M.STEPS):
            d = M.data(model, step)
            feed = {k: v[rank * rows:(rank + 1) * rows] for k, v in d.items()}
            l, = exe.run(main, feed=feed, fetch_list=[loss])
            losses.append(float(l))
        # the whole batch's mean loss is the mean of the ranks' means
        all_l = []
        paddle.disable_static()
        dist.all_gather_object(all_l, float(np.mean(losses)))
        paddle.enable_static()
        got = [np.array(scope.find_var(p.name).get_tensor()) for p in params]
        tag = "%s_%s" % (model, opt_name)
        ok_loss = abs(float(np.mean(all_l)) - float(np.mean(want[tag + "_loss"]))) <= 1e-4
        ok_par = [close(g, want["%s_p%d" % (tag, k)], opt_name) for k, g in enumerate(got)]
        if rank == 0:
            print("%s %s on %d ranks: losses %s, %d parameters %s" % (
                model, opt_name, nranks, "match" if ok_loss else "DIFFER", len(got),
                "match" if all(ok_par) else "DIFFER"))
        if not ok_loss or not all(ok_par):
            print("rank %d: %s %s parameters matching: %s" % (rank, model, opt_name, ok_par))
            bad += 1
paddle.disable_static()
flag = paddle.to_tensor(np.array([bad], "int64"))
dist.all_reduce(flag)
if rank == 0:
    print("selfcheck OK" if int(flag) == 0 else "selfcheck FAILED: %d mismatches" % int(flag))

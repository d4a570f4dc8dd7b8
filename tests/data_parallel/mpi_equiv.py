# paddle.DataParallel on MPI ranks: `mpirun -np N dy2st exec mpi_equiv.py` (N = 1, 2, 4, or no
# mpirun: one process) trains the MLP, the MNIST CNN and the RNN of _dp_models in dygraph mode
# with SGD and Adam, each rank on its BATCH/N rows of every step's batch. Ranks other than 0
# first scale their weights, so the run also shows DataParallel giving every rank rank 0's
# parameters; backward averages the gradients over the ranks, so every rank must end with the
# parameters real Paddle reaches in one process on the whole batch (expected.npz, from
# tests/gen/gen_data_parallel_expected.py). Tolerance as threads_equiv.py: |got - want| <=
# atol + 1e-4 * |want|, atol 1e-5 for SGD and 1e-4 for Adam.
import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn.functional as F
import _dp_models as M

dist.init_parallel_env()
rank, nranks = dist.get_rank(), dist.get_world_size()
want = np.load("expected.npz")
RTOL = 1e-4
ATOL = {"sgd": 1e-5, "adam": 1e-4}
bad = 0


class Net(paddle.nn.Layer):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.body = paddle.nn.LayerList(M.make_layers(model))

    def forward(self, x):
        return M.forward(self.model, list(self.body), x)


def close(got, exp, opt):
    got, exp = np.asarray(got, "float64"), np.asarray(exp, "float64")
    return got.shape == exp.shape and bool(np.all(np.abs(got - exp) <= ATOL[opt] + RTOL * np.abs(exp)))


rows = M.BATCH // nranks
for model in M.MODELS:
    for opt_name in M.OPTIMIZERS:
        net = Net(model)
        params = M.parameters(list(net.body))
        if rank != 0:
            for p in params:
                p.set_value(p.numpy() * 1.5)
        dp = paddle.DataParallel(net)
        opt = M.optimizer(opt_name, params)
        losses = []
        for step in range(M.STEPS):
            d = M.data(model, step)
            x = paddle.to_tensor(d["x"][rank * rows:(rank + 1) * rows])
            label = paddle.to_tensor(d["label"][rank * rows:(rank + 1) * rows])
            loss = F.cross_entropy(dp(x), label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            # the mean over the ranks of the local means is the whole batch's mean
            lt = loss.detach().clone()
            dist.all_reduce(lt, op=dist.ReduceOp.AVG)
            losses.append(float(lt))
        tag = "%s_%s" % (model, opt_name)
        ok_loss = close(losses, want[tag + "_loss"], opt_name)
        ok_par = [close(p.numpy(), want["%s_p%d" % (tag, k)], opt_name) for k, p in enumerate(params)]
        if rank == 0:
            print("%s %s on %d ranks: losses %s, %d parameters %s" % (
                model, opt_name, nranks, "match" if ok_loss else "DIFFER", len(params),
                "match" if all(ok_par) else "DIFFER"))
        if not ok_loss or not all(ok_par):
            print("rank %d: %s %s: losses %s want %s; parameters matching: %s" % (
                rank, model, opt_name, losses, list(want[tag + "_loss"]), ok_par))
            bad += 1
# wrappers made and used many times over: one backward hook serves them all, and no wrapper is
# held once its backward has averaged its gradients
for _ in range(20):
    small = paddle.DataParallel(Net("mlp"))
    small(paddle.to_tensor(M.data("mlp", 0, 2)["x"])).sum().backward()
if len(paddle._backward_final_hooks) != 1 or len(dist._pending_dps) != 0:
    print("rank %d: %d backward hooks and %d pending wrappers after 26 DataParallel wrappers" % (
        rank, len(paddle._backward_final_hooks), len(dist._pending_dps)))
    bad += 1
# every rank reports; rank 0 prints the verdict once all agree
flag = paddle.to_tensor(np.array([bad], "int64"))
dist.all_reduce(flag)
if rank == 0:
    print("selfcheck OK" if int(flag) == 0 else "selfcheck FAILED: %d mismatches" % int(flag))

# paddle.distributed's collectives on MPI ranks (`mpirun -np N dy2st exec mpi_collectives.py`,
# or one process without mpirun): every rank computes what each collective must give from the
# rank numbers and checks it; rank 0 prints the verdict once every rank's count of failures is
# summed. Float results are compared exactly: the values are small integers.
import numpy as np
import paddle
import paddle.distributed as dist

dist.init_parallel_env()
r, n = dist.get_rank(), dist.get_world_size()
bad = []


def check(what, ok):
    if not ok:
        bad.append(what)
        print("rank %d: %s FAILED" % (r, what))


env = dist.ParallelEnv()
check("ParallelEnv", env.rank == r and env.world_size == n and env.nranks == n)
check("is_initialized", dist.is_initialized())


def t(v, dt="float32"):
    return paddle.to_tensor(np.array(v, dt))


ranks = np.arange(n)
for name, op, want in [("SUM", dist.ReduceOp.SUM, [(ranks + 1).sum(), 2 * (ranks + 1).sum()]),
                       ("MAX", dist.ReduceOp.MAX, [n, 2 * n]),
                       ("MIN", dist.ReduceOp.MIN, [1, 2]),
                       ("PROD", dist.ReduceOp.PROD, [np.prod(ranks + 1), np.prod(2 * (ranks + 1))]),
                       ("AVG", dist.ReduceOp.AVG, [(ranks + 1).mean(), 2 * (ranks + 1).mean()])]:
    x = t([r + 1, 2 * (r + 1)])
    alias = x  # all_reduce works in place: every object of the tensor sees the result
    dist.all_reduce(x, op=op)
    check("all_reduce %s" % name, np.array_equal(alias.numpy(), np.array(want, "float32")))
x = t([[r, 1], [2, r]], "int64")
dist.all_reduce(x)
check("all_reduce int64", np.array_equal(x.numpy(), np.array([[ranks.sum(), n], [2 * n, ranks.sum()]])))

x = t([r * 10.0, r * 10.0 + 1])
dist.broadcast(x, src=n - 1)
check("broadcast from the last rank", np.array_equal(x.numpy(), [(n - 1) * 10.0, (n - 1) * 10.0 + 1]))

parts = []
dist.all_gather(parts, t([[r, -r]], "int32"))
check("all_gather", len(parts) == n and all(
    np.array_equal(p.numpy(), np.array([[k, -k]], "int32")) for k, p in enumerate(parts)))
objs = []
dist.all_gather_object(objs, r * 3)
check("all_gather_object", objs == [k * 3 for k in range(n)])

x = t([r + 1.0])
dist.reduce(x, dst=0)
check("reduce to rank 0", float(x) == (float((ranks + 1).sum()) if r == 0 else r + 1.0))

x = t([0.0, 0.0])
src_parts = [t([k * 10.0, k * 10.0 + 1]) for k in range(n)] if r == 0 else None
dist.scatter(x, src_parts, src=0)
check("scatter from rank 0", np.array_equal(x.numpy(), [r * 10.0, r * 10.0 + 1]))

dist.barrier()

# point to point: each rank sends to the next, receives from the previous (in rank order, so
# no two ranks wait on each other); one process cannot send to itself
if n > 1:
    x = t([r * 1.0, -r * 1.0])
    if r % 2 == 0:
        dist.send(x, dst=(r + 1) % n)
        dist.recv(x, src=(r - 1) % n)
    else:
        y = t([0.0, 0.0])
        dist.recv(y, src=(r - 1) % n)
        dist.send(x, dst=(r + 1) % n)
        x = y
    p = (r - 1) % n
    check("send/recv", np.array_equal(x.numpy(), [p * 1.0, -p * 1.0]))
else:
    try:
        dist.send(t([1.0]), dst=0)
        check("send to itself is an error", False)
    except Exception as e:
        check("send to itself is an error", "cannot send to itself" in str(e))

# isend/irecv do not block: every rank first posts its receive from the previous rank, then its
# send to the next, and only then waits (blocking calls in this order would wait forever)
if n > 1:
    got = t([0.0, 0.0, 0.0])
    rtask = dist.irecv(got, src=(r - 1) % n)
    stask = dist.isend(t([r * 1.0, 2.0, -r * 1.0]), dst=(r + 1) % n)
    stask.wait()
    rtask.wait()
    p = (r - 1) % n
    check("isend/irecv", np.array_equal(got.numpy(), [p * 1.0, 2.0, -p * 1.0]))
    check("tasks completed", rtask.is_completed() and stask.is_completed())
else:
    try:
        dist.isend(t([1.0]), dst=0)
        check("isend to itself is an error", False)
    except Exception as e:
        check("isend to itself is an error", "cannot send to itself" in str(e))

# reduce_scatter: rank k gets the sum over ranks of their tensor_list[k]
out = t([0.0, 0.0])
dist.reduce_scatter(out, [t([j * 100.0 + r, 1.0]) for j in range(n)])
check("reduce_scatter", np.array_equal(out.numpy(), [n * r * 100.0 + ranks.sum(), float(n)]))

got = []
dist.gather(t([r * 2]), got if r == 0 else None, dst=0)
check("gather to rank 0", r != 0 or [int(p) for p in got] == [k * 2 for k in range(n)])

outs = []
dist.alltoall([t([r * 10 + k]) for k in range(n)], outs)
check("alltoall", [int(o) for o in outs] == [j * 10 + r for j in range(n)])

# a group of the first two ranks (or of rank 0 alone)
members = [0, 1] if n >= 2 else [0]
g = dist.new_group(members)
check("group rank", g.rank == (members.index(r) if r in members else -1))
if r in members:
    x = t([r + 1.0])
    dist.all_reduce(x, group=g)
    check("all_reduce in a group", float(x) == float(sum(m + 1 for m in members)))
    check("get_world_size(group)", dist.get_world_size(g) == len(members))

# DistributedBatchSampler gives each rank its share: together every sample (padded), once
sampler = paddle.io.DistributedBatchSampler(list(range(10)), batch_size=2)
mine = [i for b in sampler for i in b]
per = (10 + n - 1) // n
check("DistributedBatchSampler share size", len(mine) == per)
everything = []
dist.all_gather_object(everything, len(mine))
got = []
for k in range(per):
    cell = []
    dist.all_gather_object(cell, mine[k])
    got.extend(cell)
check("DistributedBatchSampler covers the dataset", sorted(set(got)) == list(range(10)) and
      len(got) == per * n)

flag = t([len(bad)], "int64")
dist.all_reduce(flag)
if r == 0:
    print("ranks:", n)
    print("selfcheck OK" if int(flag) == 0 else "selfcheck FAILED: %d failures" % int(flag))

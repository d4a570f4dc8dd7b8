"""Data-parallel training throughput of the MNIST CNN (samples/mnist_cnn.py's layers, built as
a static Program), under `dy2st exec`:

    dy2st exec bench/dp_step.py threads N BATCH STEPS WARMUP
    mpirun -np N dy2st exec bench/dp_step.py ranks N BATCH STEPS WARMUP

threads: CompiledProgram(main).with_data_parallel on N CPU places (replicas on threads), the
whole batch of BATCH samples fed per step. ranks: fleet.distributed_optimizer on N MPI
processes, each fed BATCH / N samples per step. Either way a step trains on BATCH samples with
SGD. After WARMUP untimed steps, STEPS steps are timed; rank 0 prints one line:
`samples/s S wall W cpu C loss L` (wall seconds of the timed steps, CPU seconds of every
thread of every process over them, the last step's mean loss). Weights and data come from
NumPy (seed 0), identical for every N.
"""
import sys
import time

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

MODE, N = sys.argv[1], int(sys.argv[2])
BATCH, STEPS, WARMUP = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
paddle.enable_static()
paddle.seed(0)
if MODE == "ranks":
    from paddle.distributed import fleet
    fleet.init(is_collective=True)
    rank, nranks = fleet.worker_index(), fleet.worker_num()
else:
    rank, nranks = 0, 1

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 1, 28, 28], dtype="float32")
    y = paddle.static.data(name="y", shape=[None, 1], dtype="int64")
    h = F.max_pool2d(F.relu(nn.Conv2D(1, 6, 5, padding=2)(x)), 2, 2)
    h = F.max_pool2d(F.relu(nn.Conv2D(6, 16, 5)(h)), 2, 2)
    h = paddle.flatten(h, start_axis=1, stop_axis=-1)
    h = F.relu(nn.Linear(120, 84)(F.relu(nn.Linear(400, 120)(h))))
    loss = F.cross_entropy(nn.Linear(84, 10)(h), y)
    opt = paddle.optimizer.SGD(learning_rate=0.01)
    if MODE == "ranks":
        opt = fleet.distributed_optimizer(opt)
    opt.minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
prog = main
if MODE == "threads":
    prog = paddle.static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * N)

rng = np.random.RandomState(0)
xs = rng.rand(4, BATCH, 1, 28, 28).astype("float32")
ys = rng.randint(0, 10, size=(4, BATCH, 1)).astype("int64")
part = BATCH // nranks


def step(k):
    feed = {"x": xs[k % 4][rank * part:(rank + 1) * part],
            "y": ys[k % 4][rank * part:(rank + 1) * part]}
    out, = exe.run(prog, feed=feed, fetch_list=[loss])
    return float(np.mean(out))


for k in range(WARMUP):
    step(k)
c0, t0 = time.process_time(), time.perf_counter()
for k in range(STEPS):
    last = step(k)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
if MODE == "ranks":
    paddle.disable_static()
    import paddle.distributed as dist
    walls, cpus = [], []
    dist.all_gather_object(walls, wall)
    dist.all_gather_object(cpus, cpu)
    wall, cpu = max(walls), sum(cpus)
if rank == 0:
    print("samples/s %.1f wall %.3f cpu %.3f loss %.4f" % (BATCH * STEPS / wall, wall, cpu, last))

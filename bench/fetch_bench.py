# fetch_bench.py - the cost of one Executor.run of a static Program whose fetch list is not
# the Program's own outputs (an intermediate, or a pruned subset): an MLP built op by op, run
# with fetch_list=[hidden], then with fetch_list=[logits, hidden].
#     dy2st exec bench/fetch_bench.py [RUNS]
# Prints the median wall and CPU (process_time) microseconds per run over 5 samples of RUNS
# runs (default 2000). It runs under real Paddle too (python bench/fetch_bench.py).
import sys
import time

import numpy as np
import paddle

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data(name="x", shape=[None, 16], dtype="float32")
    h = paddle.static.nn.fc(x, 32, activation="relu")
    h2 = paddle.static.nn.fc(h, 32, activation="relu")
    logits = paddle.static.nn.fc(h2, 4)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"x": np.linspace(-1.0, 1.0, 64).astype("float32").reshape(4, 16)}


def sample(fetch):
    exe.run(main, feed=feed, fetch_list=fetch)
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        exe.run(main, feed=feed, fetch_list=fetch)
    return ((time.perf_counter() - w0) / runs * 1e6, (time.process_time() - c0) / runs * 1e6)


for name, fetch in (("fetch_list=[hidden]", [h2]), ("fetch_list=[logits, hidden]", [logits, h])):
    walls, cpus = [], []
    for _ in range(5):
        w, c = sample(fetch)
        walls.append(w)
        cpus.append(c)
    walls.sort()
    cpus.sort()
    print("%s: %.1f us/run wall, %.1f us/run cpu (medians of 5 x %d runs)"
          % (name, walls[2], cpus[2], runs))

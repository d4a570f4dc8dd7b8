# Run under mpirun with a short DY2ST_DIST_TIMEOUT: rank 1 hangs (sleeps) before the second
# training step's gradient all_reduce; rank 0 must fail with a timeout error, and the job must
# end (every rank) soon after instead of waiting for the sleeper.
import time
import numpy as np
import paddle
import paddle.distributed as dist

dist.init_parallel_env()
r = dist.get_rank()
net = paddle.DataParallel(paddle.nn.Linear(4, 2))
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
for step in range(3):
    if r == 1 and step == 1:
        time.sleep(120)
    loss = net(paddle.to_tensor(np.ones([2, 4], "float32"))).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("rank %d: step %d done" % (r, step), flush=True)

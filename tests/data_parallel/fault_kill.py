# Run under mpirun: DataParallel training of the MNIST CNN for many steps; after its first
# step each rank creates the file named by argv[1] + its rank, so the test can kill one rank
# mid-training and check that the others stop in bounded time.
import sys
import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn.functional as F
import _dp_models as M

dist.init_parallel_env()
r = dist.get_rank()


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = paddle.nn.LayerList(M.make_layers("cnn"))

    def forward(self, x):
        return M.forward("cnn", list(self.body), x)


net = paddle.DataParallel(Net())
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
d = M.data("cnn", 0)
x, label = paddle.to_tensor(d["x"]), paddle.to_tensor(d["label"])
for step in range(100000):
    loss = F.cross_entropy(net(x), label)
    loss.backward()
    opt.step()
    opt.clear_grad()
    if step == 0:
        with open("%s%d" % (sys.argv[1], r), "w") as f:
            f.write("started\n")

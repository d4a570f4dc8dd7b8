# The example of Paddle's paddle.DataParallel document, started by paddle.distributed.spawn
# (which here runs the script again under mpirun, two processes), with a check added at its
# end: after one step both ranks hold the same parameters (rank 0's at the start, the averaged
# gradient applied). The parent process prints "selfcheck OK" once spawn has returned.
import numpy as np
import paddle
import paddle.nn as nn
import paddle.optimizer as opt
import paddle.distributed as dist


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear1 = nn.Linear(10, 10)
        self._linear2 = nn.Linear(10, 1)

    def forward(self, x):
        return self._linear2(self._linear1(x))


def train():
    # 1. initialize parallel environment
    dist.init_parallel_env()

    # 2. create data parallel layer & optimizer
    layer = LinearNet()
    dp_layer = paddle.DataParallel(layer)

    loss_fn = nn.MSELoss()
    adam = opt.Adam(
        learning_rate=0.001, parameters=dp_layer.parameters())

    # 3. run layer
    inputs = paddle.randn([10, 10], 'float32')
    outputs = dp_layer(inputs)
    labels = paddle.randn([10, 1], 'float32')
    loss = loss_fn(outputs, labels)

    loss.backward()

    adam.step()
    adam.clear_grad()

    # the check: every rank's parameters equal rank 0's
    for p in dp_layer.parameters():
        mine = p.numpy()
        all_p = []
        dist.all_gather(all_p, p)
        assert all(np.array_equal(q.numpy(), mine) for q in all_p), "parameters differ"
    assert dist.get_world_size() == 2


if __name__ == '__main__':
    # 1. start by ``paddle.distributed.spawn`` (default)
    dist.spawn(train, nprocs=2)
    # 2. start by ``paddle.distributed.launch``
    # train()
    print("selfcheck OK")

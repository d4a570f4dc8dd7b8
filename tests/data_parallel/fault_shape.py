# Run under mpirun: the ranks pass all_reduce tensors of different shapes (rank r: r + 1
# elements); every rank must stop with an error naming the collective and the ranks.
import numpy as np
import paddle
import paddle.distributed as dist

dist.init_parallel_env()
r = dist.get_rank()
x = paddle.to_tensor(np.ones([r + 1], "float32"))
dist.all_reduce(x)
print("rank %d: all_reduce of mismatched shapes returned" % r)

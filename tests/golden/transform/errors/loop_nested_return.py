import paddle


@paddle.jit.to_static
def count(n, stop):
    acc = paddle.zeros([1], dtype="int64")
    for i in range(n):
        if i == stop:
            return acc, [acc * 2, acc * 3]
        acc = acc + i
    return acc, [acc, acc]


count(paddle.to_tensor([6], dtype="int64"), paddle.to_tensor([3], dtype="int64"))

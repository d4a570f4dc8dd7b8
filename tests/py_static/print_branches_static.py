# print of Python values inside an if/while on a tensor: printed when the branch runs, once per iteration.
import paddle


@paddle.jit.to_static
def branch_messages(x):
    y = x + 1
    print(y)
    if y.sum() > 0:
        print("positive", 1, sep="-")
    else:
        print("not positive", end="!\n")
    return y


@paddle.jit.to_static
def loop_messages(x):
    i = paddle.to_tensor(0)
    while i < 3:
        print("step")
        if x[i] > 0:
            print("x[i] is positive")
        i = i + 1
    print("done")
    return x


branch_messages(paddle.to_tensor([1.0, 2.0]))
branch_messages(paddle.to_tensor([-3.0, 0.0]))
branch_messages(paddle.to_tensor([5.0, 0.0]))
loop_messages(paddle.to_tensor([1.0, -1.0, 2.0]))
loop_messages(paddle.to_tensor([-1.0, -1.0, 2.0]))

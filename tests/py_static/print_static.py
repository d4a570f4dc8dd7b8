# to_static: print() of tensors (f-strings too) shows what Python's print shows of the eager
# tensors, at run time.
import paddle


@paddle.jit.to_static
def show(x, w):
    y = x * 2
    print(y)
    print("value:", y)
    print("pair", y, "and", y.sum(), "end")
    print(y.astype("int64"), sep=" | ", end=" <\n")
    z = paddle.matmul(x.reshape([1, 3]), w)
    print("z", z, "!")
    print(f"f-string y={y} sum={y.sum()}!", f"n={3}", end="|\n")
    return y + 1


w = paddle.create_parameter([3, 2], "float32")
w.set_value(paddle.to_tensor([[1.0, 0.5], [-1.0, 2.0], [0.25, 3.0]]))
r = show(paddle.to_tensor([1.0, -2.5, 3.0]), w)
print("done", r.numpy().tolist())
r = show(paddle.to_tensor([0.5, 0.0, 100.0]), w)
print("done", r.numpy().tolist())

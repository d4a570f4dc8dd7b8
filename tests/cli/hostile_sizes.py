# hostile_sizes.py - shapes whose element or byte count overflows: each is a clean MemoryError or
# ValueError (real Paddle 2.6.2 wraps some of them silently, so the expected lines are in
# tests/cli/test_hostile.sh, not a Paddle golden).
import paddle
import numpy as np


def attempt(name, f):
    try:
        x = f()
    except (MemoryError, ValueError) as e:
        print(name, type(e).__name__)
        return
    print(name, "made", x.shape)


big = 2 ** 32
attempt("ones", lambda: paddle.ones([big, big]))
attempt("zeros", lambda: paddle.zeros([big, big], dtype="int64"))
attempt("full", lambda: paddle.full([big, big], 1.5))
attempt("empty", lambda: paddle.empty([big, big]))
attempt("rand", lambda: paddle.rand([big, big]))
attempt("rand_wraps", lambda: paddle.rand([2 ** 62 + 1, 4]))
attempt("rand_empty", lambda: paddle.rand([0, 2 ** 40, 2 ** 40]))
attempt("tile", lambda: paddle.tile(paddle.ones([2]), [2 ** 31, 2 ** 31]))
attempt("tile_wrap", lambda: paddle.tile(paddle.ones([4]), [2 ** 62]))
attempt("expand", lambda: paddle.expand(paddle.ones([1, 1]), [big, big]))
attempt("broadcast_to", lambda: paddle.broadcast_to(paddle.ones([1]), [big, big]))
attempt("reshape", lambda: paddle.reshape(paddle.ones([4]), [big, big]))
attempt("eye", lambda: paddle.eye(big, big))
attempt("linspace", lambda: paddle.linspace(0, 1, 2 ** 62))
attempt("arange", lambda: paddle.arange(0, 2 ** 62, 1))
attempt("outer", lambda: paddle.ones([2 ** 40, 1]) + paddle.ones([1, 2 ** 40]))
attempt("np_ones", lambda: np.ones([big, big]))
attempt("np_zeros", lambda: np.zeros([big, big, 0]))
x = paddle.ones([2, 3])
try:
    x[0, 5000] = 7.0
    print("setitem no error")
except (IndexError, ValueError) as e:
    print("setitem", type(e).__name__)
print("alive", float(x.sum()))

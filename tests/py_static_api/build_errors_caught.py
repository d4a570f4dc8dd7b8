# Bad feeds and fetches of a hand-built Program raise the exception classes Paddle raises.
import numpy as np
import paddle

paddle.enable_static()
w = np.arange(12, dtype="float32").reshape(4, 3) / 10.0
x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
y = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w)),
                        activation="softmax")
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())


def attempt(what, fn):
    try:
        fn()
        print(what, "ran")
    except ValueError:
        print(what, "ValueError")
    except RuntimeError:
        print(what, "RuntimeError")
    except Exception as e:
        print(what, type(e).__name__)


attempt("wrong last dim", lambda: exe.run(feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y]))
attempt("wrong rank", lambda: exe.run(feed={"x": np.ones((4,), "float32")}, fetch_list=[y]))
attempt("missing feed", lambda: exe.run(feed={}, fetch_list=[y]))
attempt("wrong feed name", lambda: exe.run(feed={"image": np.ones((2, 4), "float32")}, fetch_list=[y]))
attempt("unknown fetch", lambda: exe.run(feed={"x": np.ones((2, 4), "float32")}, fetch_list=["no_such_var"]))
# the Program still runs after all that
print(np.round(exe.run(feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])[0], 4).tolist())

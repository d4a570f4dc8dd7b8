# Bad feeds, fetches and model files raise the exception classes Paddle raises.
import numpy as np
import paddle
from _models import save_mlp

save_mlp("mlp")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("mlp", exe)
x = np.ones((2, 4), dtype="float32")


def attempt(what, fn):
    try:
        fn()
        print(what, "ran")
    except ValueError:
        print(what, "ValueError")
    except RuntimeError:
        print(what, "RuntimeError")
    except FileNotFoundError:
        print(what, "FileNotFoundError")
    except Exception:
        print(what, "Exception")


def attempt_any(what, fn):
    # Paddle raises a bare Exception here; dy2st a ValueError (an Exception too)
    try:
        fn()
        print(what, "ran")
    except Exception:
        print(what, "raised")


attempt_any("missing feed", lambda: exe.run(prog, feed={}, fetch_list=fetches))
attempt_any("wrong feed name", lambda: exe.run(prog, feed={"image": x}, fetch_list=fetches))
attempt("wrong last dim", lambda: exe.run(prog, feed={"x": np.ones((2, 5), "float32")}, fetch_list=fetches))
attempt("float64 feed", lambda: exe.run(prog, feed={"x": np.ones((2, 4))}, fetch_list=fetches))
attempt("int64 feed", lambda: exe.run(prog, feed={"x": np.ones((2, 4), "int64")}, fetch_list=fetches))
attempt("unknown fetch", lambda: exe.run(prog, feed={"x": x}, fetch_list=["no_such_var"]))
attempt("missing directory", lambda: paddle.static.load_inference_model("no_such_dir/model", exe))
attempt("missing model", lambda: paddle.static.load_inference_model("no_such_model", exe))
# a corrupt model under both runtimes' file names
for name in ("bad.pdmodel", "bad.pdiparams", "bad.dy2st"):
    with open(name, "w") as f:
        f.write("this is not a model\n")
attempt("corrupt model", lambda: paddle.static.load_inference_model("bad", exe))
# the good model still runs after all that
print(exe.run(prog, feed={"x": x}, fetch_list=fetches)[0].shape)

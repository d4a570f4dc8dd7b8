# paddle.jit.save creates the missing directories of its path, as Paddle does; the model is then
# loaded with load_inference_model and run (values rounded to 4 decimals, tolerance 1e-4).
import numpy as np
import paddle
from _models import MLP, fill

net = fill(MLP())
net.eval()
x = np.linspace(-1.0, 1.0, 8).astype("float32").reshape(2, 4)
eager = net(paddle.to_tensor(x)).numpy()
spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), "new/nested/dir/mlp")
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
print(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model("new/nested/dir/mlp", exe)
out, = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)
print(feeds, out.shape, np.allclose(out, eager, atol=1e-5))
print(np.round(out, 4).tolist())

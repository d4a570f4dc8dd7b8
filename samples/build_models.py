# build_models.py - a build script that saves inference models, the way a
# Makefile or CI job would produce them:
#
#     dy2st exec samples/build_models.py OUTDIR
#
# (also runs unchanged under Python with PaddlePaddle installed, where the
# TracedLayer step needs a Paddle release that still has TracedLayer).
# It saves two models and checks each against the eager layer:
#   OUTDIR/lenet       paddle.jit.save of the LeNet with a data-dependent
#                      branch: to_static keeps the branch as a `cond` op;
#   OUTDIR/mnist_traced TracedLayer.save_inference_model of the MNIST CNN:
#                      recorded by running it once on an example input.
# Both are read back with paddle.jit.load / paddle.static.load_inference_model,
# and with the C API: `dy2st run OUTDIR/lenet.dy2st --input image=OUTDIR/image.npy`
# (the script writes that example input too).
import os
import sys

import numpy as np
import paddle

from lenet_branch import LeNetBranch, INPUT_SPEC as LENET_SPEC
from mnist_cnn import MNIST

out = sys.argv[1] if len(sys.argv) > 1 else "models"
os.makedirs(out, exist_ok=True)
paddle.seed(2024)
np.random.seed(2024)

# 1. to_static + jit.save: control flow is converted, so the saved model
#    takes the right branch for every input.
lenet = LeNetBranch()
lenet.eval()
x_np = np.random.rand(4, 1, 28, 28).astype("float32")
np.save(os.path.join(out, "image.npy"), x_np)
x = paddle.to_tensor(x_np)
want = lenet(x).numpy()
paddle.jit.save(lenet, os.path.join(out, "lenet"), input_spec=LENET_SPEC)
loaded = paddle.jit.load(os.path.join(out, "lenet"))
got = loaded(x).numpy()
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
print("lenet: saved, outputs", list(got.shape), "match eager")

# 2. TracedLayer: the layer runs once on an example input and every op is
#    recorded; save_inference_model keeps input 0 and output 0.
mnist = MNIST()
mnist.eval()
img = paddle.to_tensor(np.random.rand(2, 1, 28, 28).astype("float32"))
eager_out, traced = paddle.jit.TracedLayer.trace(mnist, inputs=[img])
traced.save_inference_model(os.path.join(out, "mnist_traced"), feed=[0], fetch=[0])

paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feed_names, fetch_targets = paddle.static.load_inference_model(
    os.path.join(out, "mnist_traced"), exe)
res = exe.run(program, feed={feed_names[0]: img.numpy()}, fetch_list=fetch_targets)
np.testing.assert_allclose(res[0], eager_out.numpy(), rtol=1e-5, atol=1e-6)
print("mnist_traced: saved, feeds", len(feed_names), "fetches", len(fetch_targets),
      "output", list(res[0].shape), "matches eager")

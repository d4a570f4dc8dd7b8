"""Writes the goldens of the data-parallel tests from real PaddlePaddle, one process on the
whole batch.

    <python with paddlepaddle 2.6 and numpy 1.26> tests/gen/gen_data_parallel_expected.py

(for instance the oracle environment made by tests/oracle/install.sh). For every model of
tests/data_parallel/_dp_models.py (an MLP, the MNIST CNN, an RNN on while_loop) and every
optimizer (SGD, Adam) it trains STEPS steps on BATCH samples per step, with the mean
cross-entropy loss, and stores the per-step losses and the final parameters in
tests/data_parallel/expected.npz as MODEL_OPT_loss and MODEL_OPT_pK. The training runs in
dygraph mode: Paddle 2.6's static while_loop backward loses part of the gradient of a parameter
read both before and inside the loop (the RNN's input layer; its eager gradient is the exact
one), so the static result is not a golden. For the MLP and the CNN the generator also trains
the same Program in static mode and checks that it agrees with the eager run (rtol 1e-4,
atol 1e-5). dy2st never produces this file; the data-parallel tests (replicas on threads,
ranks on MPI) compare their final parameters with it.
"""
import os
import sys

import numpy as np
import paddle
import paddle.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(HERE), "data_parallel")
sys.path.insert(0, DIR)
import _dp_models as M  # noqa: E402


def eager(model, opt_name):
    layers = M.make_layers(model)
    params = M.parameters(layers)
    opt = M.optimizer(opt_name, params)
    losses = []
    for step in range(M.STEPS):
        d = M.data(model, step)
        x, label = paddle.to_tensor(d["x"]), paddle.to_tensor(d["label"])
        loss = F.cross_entropy(M.forward(model, layers, x), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses, "float32"), [p.numpy() for p in params]


def static(model, opt_name):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            loss, params = M.build(model)
            M.optimizer(opt_name).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        losses = [float(exe.run(main, feed=M.data(model, s), fetch_list=[loss])[0])
                  for s in range(M.STEPS)]
        scope = paddle.static.global_scope()
        return (np.array(losses, "float32"),
                [np.array(scope.find_var(p.name).get_tensor()) for p in params])
    finally:
        paddle.disable_static()


def main():
    out = {}
    for model in M.MODELS:
        for opt in M.OPTIMIZERS:
            losses, params = eager(model, opt)
            if model != "rnn":
                sl, sp = static(model, opt)
                for a, b in zip([losses] + params, [sl] + sp):
                    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
            out["%s_%s_loss" % (model, opt)] = losses
            for k, p in enumerate(params):
                out["%s_%s_p%d" % (model, opt, k)] = p
    path = os.path.join(DIR, "expected.npz")
    np.savez(path, **out)
    print("wrote", os.path.relpath(path, os.path.dirname(os.path.dirname(HERE))))


if __name__ == "__main__":
    main()

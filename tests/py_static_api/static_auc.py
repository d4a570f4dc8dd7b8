# paddle.static.auc in a static Program run batch after batch, as Paddle's CTR examples use
# it: the global AUC over every batch so far, the batch AUC over the last slide_steps batches,
# and the persistable positive/negative counts per bucket; predictions are a two-column
# softmax (the positive class last). Counts are exact; AUCs printed with 6 decimals.
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    w = paddle.to_tensor(np.array([[0.5, -0.8], [-0.3, 0.9], [0.2, 0.1]], "float32"))
    prob = paddle.nn.functional.softmax(paddle.matmul(x, w))
    auc_out, batch_auc, states = paddle.static.auc(prob, y, num_thresholds=200, slide_steps=2)
    auc_default, _, _ = paddle.static.auc(prob, y)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(5)
for step in range(4):
    xv = rng.uniform(-1, 1, (16, 3)).astype("float32")
    yv = ((xv[:, 1] + 0.3 * rng.uniform(-1, 1, 16)) > 0).astype("int64").reshape(16, 1)
    a, b, ad, sp, sn = exe.run(main, feed={"x": xv, "y": yv},
                               fetch_list=[auc_out, batch_auc, auc_default, states[2], states[3]])
    print("step", step, "auc", round(float(np.asarray(a).ravel()[0]), 6), "batch auc",
          round(float(np.asarray(b).ravel()[0]), 6), "default thresholds",
          round(float(np.asarray(ad).ravel()[0]), 6), "positives", int(sp.sum()),
          "negatives", int(sn.sum()), "stat shape", list(sp.shape))

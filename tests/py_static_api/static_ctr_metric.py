# paddle.static.ctr_metric_bundle as its doc example builds it (a sigmoid fc predicting a click
# probability), run over several batches: the accumulated squared and absolute errors, the
# sums of predictions, of sigmoid(prediction) (q), of positive labels, and the instance
# count; from them the doc's MAE, RMSE, predicted CTR and q. Weights from Assign initializers;
# sums printed with 4 decimals, ratios with 5 (float32 sums: tolerance 1e-4).
import numpy as np
import paddle

paddle.enable_static()
data = paddle.static.data(name="input", shape=[-1, 4], dtype="float32")
label = paddle.static.data(name="label", shape=[-1, 1], dtype="float32")
w0 = np.linspace(-0.5, 0.5, 4, dtype="float32").reshape(4, 1)
predict = paddle.nn.functional.sigmoid(paddle.static.nn.fc(
    data, size=1, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w0))))
res = paddle.static.ctr_metric_bundle(input=predict, label=label)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
rng = np.random.RandomState(11)
for step in range(3):
    xv = rng.uniform(-2, 2, (8, 4)).astype("float32")
    yv = (rng.uniform(0, 1, (8, 1)) < 0.4).astype("float32")
    sq, ab, prob, q, pos, ins = [float(np.asarray(v).ravel()[0]) for v in
                                 exe.run(feed={"input": xv, "label": yv}, fetch_list=list(res))]
    print("step", step, [round(v, 4) for v in (sq, ab, prob, q, pos, ins)])
    print("  MAE", round(ab / ins, 5), "RMSE", round((sq / ins) ** 0.5, 5), "predicted_ctr",
          round(prob / ins, 5), "q", round(q / ins, 5))

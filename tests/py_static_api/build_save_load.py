# save_inference_model of a hand-built Program (pruned to feed -> fetch: the label and the loss
# are left out), load_inference_model of the result, and runs of both. Weights are set with
# Assign initializers; values printed rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle

paddle.enable_static()
w = (np.sin(np.arange(16 * 10, dtype="float32") * 0.37) * 0.2).reshape(16, 10)
image = paddle.static.data(name="img", shape=[None, 4, 4], dtype="float32")
label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
predict = paddle.static.nn.fc(image, 10, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w)),
                              activation="softmax")
loss = paddle.nn.functional.cross_entropy(predict, label)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
xv = np.linspace(-2.0, 2.0, 3 * 16).astype("float32").reshape(3, 4, 4)
lv = np.array([[1], [5], [9]], dtype="int64")
direct, lval = exe.run(feed={"img": xv, "label": lv}, fetch_list=[predict, loss])
print("direct", direct.shape, "loss", round(float(lval), 4))
paddle.static.save_inference_model("./infer_model", [image], [predict], exe)
prog, feed_names, fetch_targets = paddle.static.load_inference_model("./infer_model", exe)
print("feeds", feed_names, "fetches", len(fetch_targets))
loaded, = exe.run(prog, feed={feed_names[0]: xv}, fetch_list=fetch_targets)
print("loaded", loaded.shape, loaded.dtype, "same as direct:", np.allclose(loaded, direct, atol=1e-5))
print(np.round(loaded, 4))
# batch size is free in the saved model
one, = exe.run(prog, feed={feed_names[0]: xv[:1]}, fetch_list=fetch_targets)
print("one", one.shape, np.allclose(one, direct[:1], atol=1e-5))

# the load_inference_model example: create_parameter, matmul and add under program_guard
main_prog, startup_prog = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main_prog, startup_prog):
    x = paddle.static.data(name="x", shape=[5, 6])
    pw = paddle.create_parameter(shape=[6, 3], dtype="float32",
                                 default_initializer=paddle.nn.initializer.Assign(np.eye(6, 3, dtype="float32")))
    pb = paddle.create_parameter(shape=[3], dtype="float32", is_bias=True)
    hidden = paddle.add(paddle.matmul(x=x, y=pw), pb)
exe.run(startup_prog)
paddle.static.save_inference_model("sub/dir/model", [x], [hidden], exe, program=main_prog)
prog2, names2, targets2 = paddle.static.load_inference_model("sub/dir/model", exe)
xin = np.arange(30, dtype="float32").reshape(5, 6)
res, = exe.run(prog2, feed={names2[0]: xin}, fetch_list=targets2)
print("names", names2, res.shape)
print(res.tolist())

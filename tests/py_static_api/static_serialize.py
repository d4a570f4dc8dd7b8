# paddle.static.serialize_program / serialize_persistables / save_to_file / load_from_file /
# deserialize_program / deserialize_persistables and normalize_program, as their docs use them:
# a softmax regression trained a few SGD steps, its inference program and parameters
# serialized, written to files, read back into a fresh Program whose runs give the trained
# model's outputs; deserialize_persistables also refreshes a Program deserialized before more
# training. The serialized bytes are each implementation's own, so only lengths' signs and
# outputs are printed (5 decimals, tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()


def assign(shape, k):
    a = np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k) * 0.1
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(a.reshape(shape)))


path_prefix = "./infer_model"
image = paddle.static.data(name="img", shape=[None, 28, 28], dtype="float32")
label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
predict = paddle.static.nn.fc(image, 10, activation="softmax", weight_attr=assign([784, 10], 0.3),
                              bias_attr=assign([10], 0.7))
loss = paddle.mean(paddle.nn.functional.cross_entropy(predict, label, use_softmax=False))
paddle.optimizer.SGD(learning_rate=0.002).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
xs = (np.cos(np.arange(4 * 784, dtype="float32") * 0.013) * 0.2).reshape(4, 28, 28)
ys = np.array([[1], [3], [5], [7]], dtype="int64")
for _ in range(3):
    exe.run(feed={"img": xs, "label": ys}, fetch_list=[loss])
want, = exe.run(paddle.static.default_main_program().clone(for_test=True),
                feed={"img": xs, "label": ys}, fetch_list=[predict])

program_bytes = paddle.static.serialize_program([image], [predict])
persistables_bytes = paddle.static.serialize_persistables([image], [predict], exe)
print("serialized", len(program_bytes) > 0, len(persistables_bytes) > 0)
paddle.static.save_to_file(path_prefix + ".pdmodel", program_bytes)
paddle.static.save_to_file(path_prefix + ".pdiparams", persistables_bytes)

program_bytes = paddle.static.load_from_file(path_prefix + ".pdmodel")
prog = paddle.static.deserialize_program(program_bytes)
persistables_bytes = paddle.static.load_from_file(path_prefix + ".pdiparams")
paddle.static.deserialize_persistables(prog, persistables_bytes, exe)
got, = exe.run(prog, feed={"img": xs}, fetch_list=[predict.name])
print("deserialized program", got.shape, np.round(got[0], 5).tolist())
print("same as the trained model", bool(np.allclose(got, want, atol=1e-5)))

# more training; the old deserialized program is refreshed with the new persistables
for _ in range(2):
    exe.run(paddle.static.default_main_program(), feed={"img": xs, "label": ys},
            fetch_list=[loss])
paddle.static.deserialize_persistables(
    prog, paddle.static.serialize_persistables([image], [predict], exe), exe)
now, = exe.run(prog, feed={"img": xs}, fetch_list=[predict.name])
print("after 2 more steps", np.round(now[1], 5).tolist())

norm = paddle.static.normalize_program(paddle.static.default_main_program(), [image], [predict])
print("normalize_program", type(norm).__name__)
nv, = exe.run(norm, feed={"img": xs}, fetch_list=[predict.name])
print("normalized program runs", bool(np.allclose(nv, now, atol=1e-5)))
try:
    paddle.static.save_to_file(path_prefix + ".txt", "not bytes")
except ValueError as e:
    print("save_to_file of a str: ValueError:", e)
try:
    paddle.static.normalize_program("main", [image], [predict])
except TypeError as e:
    print("normalize_program of a str: TypeError:", e)

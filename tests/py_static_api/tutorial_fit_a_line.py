# Paddle's fit_a_line (UCI housing linear regression) tutorial, static-graph version as the
# Paddle 2.x docs write it; the dataset is 13-feature synthetic data (no download) and the
# weights are set after the startup run so both runs start equal. Costs printed with 5 decimals.
import numpy as np
import paddle
import paddle.static as static

paddle.enable_static()

rng = np.random.RandomState(42)
TRUE_W = rng.uniform(-1, 1, (13, 1)).astype("float32")
train_x = rng.uniform(-1, 1, (404, 13)).astype("float32")
train_y = (train_x @ TRUE_W + 0.5 + rng.normal(0, 0.1, (404, 1))).astype("float32")

BATCH_SIZE = 20

x = static.data(name='x', shape=[None, 13], dtype='float32')
y = static.data(name='y', shape=[None, 1], dtype='float32')
y_predict = static.nn.fc(x, size=1)
cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
avg_loss = paddle.mean(cost)

test_program = static.default_main_program().clone(for_test=True)

sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.001)
sgd_optimizer.minimize(avg_loss)

place = paddle.CPUPlace()
exe = static.Executor(place)
exe.run(static.default_startup_program())

state = static.default_main_program().state_dict()
w_name = [k for k in state if k.endswith("w_0")][0]
b_name = [k for k in state if k.endswith("b_0")][0]
static.set_program_state(static.default_main_program(),
                         {w_name: np.full((13, 1), 0.1, "float32"),
                          b_name: np.zeros((1,), "float32")})

num_epochs = 3
step = 0
for pass_id in range(num_epochs):
    for i in range(0, len(train_x), BATCH_SIZE):
        batch_x, batch_y = train_x[i:i + BATCH_SIZE], train_y[i:i + BATCH_SIZE]
        avg_loss_value, = exe.run(static.default_main_program(),
                                  feed={'x': batch_x, 'y': batch_y},
                                  fetch_list=[avg_loss])
        if step % 5 == 0:
            print("Pass %d, Step %d, Cost %.5f" % (pass_id, step, avg_loss_value))
        step += 1
    test_loss, = exe.run(test_program, feed={'x': train_x[:100], 'y': train_y[:100]},
                         fetch_list=[avg_loss])
    print("Pass %d, test cost %.5f" % (pass_id, test_loss))

infer_x = train_x[:5]
results, = exe.run(test_program, feed={'x': infer_x, 'y': train_y[:5]}, fetch_list=[y_predict])
for idx, val in enumerate(results):
    print("%d: infer %.4f, ground truth %.3f" % (idx, val[0], train_y[idx][0]))
static.save_inference_model("fit_a_line.inference.model", [x], [y_predict], exe)
[prog, feed_names, fetch_targets] = static.load_inference_model("fit_a_line.inference.model", exe)
out, = exe.run(prog, feed={feed_names[0]: infer_x}, fetch_list=fetch_targets)
print("reloaded", " ".join("%.4f" % v for v in out.ravel()))

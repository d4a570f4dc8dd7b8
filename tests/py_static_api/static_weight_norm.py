# paddle.static.WeightNormParamAttr: its doc example's fc (dim=None, a named attribute with a
# Constant initializer and L2Decay) and a conv2d with an Assign initializer, both trained with
# SGD through minimize (Paddle 2.6's backward fails for dim=0, a SumOp shape mismatch, so both
# normalize over the whole weight). The weight is g * v / ||v|| with parameters NAME_g
# (starting at ||v||) and NAME_v; printed: the parameters, the losses, and the g and v values
# after training (5 decimals, tolerance 1e-5).
import numpy as np
import paddle

paddle.enable_static()


def arr(shape, k):
    return (np.sin(np.arange(int(np.prod(shape)), dtype="float32") * k + 0.1) * 0.5).reshape(shape)


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    data = paddle.static.data(name="data", shape=[3, 32, 32], dtype="float32")
    fc = paddle.static.nn.fc(
        x=data, size=10,
        weight_attr=paddle.static.WeightNormParamAttr(
            dim=None, name="weight_norm_param",
            initializer=paddle.nn.initializer.Constant(1.0), learning_rate=1.0,
            regularizer=paddle.regularizer.L2Decay(0.1), trainable=True,
            do_model_average=False, need_clip=True))
    img = paddle.static.data("img", [None, 2, 6, 6], "float32")
    conv = paddle.static.nn.conv2d(
        img, 3, 3, param_attr=paddle.static.WeightNormParamAttr(
            dim=None, initializer=paddle.nn.initializer.Assign(arr([3, 2, 3, 3], 0.7))),
        bias_attr=False)
    loss = paddle.mean(paddle.square(fc - 0.5)) + paddle.mean(paddle.square(conv - 0.2))
    paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
print("parameters", [p.name for p in main.all_parameters()])
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
dv = arr([3, 32, 32], 0.013) * 0.05
iv = arr([2, 2, 6, 6], 0.31)
for step in range(4):
    lv, = exe.run(main, feed={"data": dv, "img": iv}, fetch_list=[loss])
    print("step", step, round(float(lv), 5))
scope = paddle.static.global_scope()
for name in ["weight_norm_param_g", "conv2d_0.w_0_g", "conv2d_0.w_0_v"]:
    v = np.array(scope.find_var(name).get_tensor())
    print(name, list(v.shape), np.round(v.ravel()[:4], 5).tolist())

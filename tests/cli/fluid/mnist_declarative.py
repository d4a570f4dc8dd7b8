# The MNIST example of Paddle 1.8's release notes: fluid.dygraph layers with act=, a
# @declarative forward, then ProgramTranslator().save_inference_model(dirname, fetch=[0]).
# dy2st does not train: the weights stay as initialised (seeded). The script saves the input
# and the dygraph output as .npy files for `dy2st run` to check the saved model against.
import numpy as np
import paddle.fluid as fluid
from paddle.fluid.dygraph import ProgramTranslator
from paddle.fluid.dygraph.jit import declarative
from paddle.fluid.dygraph.nn import Conv2D, Linear, Pool2D


class SimpleImgConvPool(fluid.dygraph.Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride,
                 pool_padding=0, pool_type="max", global_pooling=False, conv_stride=1,
                 conv_padding=0, conv_dilation=1, conv_groups=1, act=None, use_cudnn=False,
                 param_attr=None, bias_attr=None):
        super(SimpleImgConvPool, self).__init__()
        self._conv2d = Conv2D(num_channels=num_channels, num_filters=num_filters,
                              filter_size=filter_size, stride=conv_stride, padding=conv_padding,
                              dilation=conv_dilation, groups=conv_groups, param_attr=None,
                              bias_attr=None, act=act, use_cudnn=use_cudnn)
        self._pool2d = Pool2D(pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                              pool_padding=pool_padding, global_pooling=global_pooling,
                              use_cudnn=use_cudnn)

    def forward(self, inputs):
        x = self._conv2d(inputs)
        x = self._pool2d(x)
        return x


class MNIST(fluid.dygraph.Layer):
    def __init__(self):
        super(MNIST, self).__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 20, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(20, 50, 5, 2, 2, act="relu")
        self.pool_2_shape = 50 * 4 * 4
        SIZE = 10
        scale = (2.0 / (self.pool_2_shape ** 2 * SIZE)) ** 0.5
        self._fc = Linear(self.pool_2_shape, 10,
                          param_attr=fluid.param_attr.ParamAttr(
                              initializer=fluid.initializer.NormalInitializer(loc=0.0,
                                                                              scale=scale)),
                          act="softmax")

    @declarative
    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = fluid.layers.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        if label is not None:
            acc = fluid.layers.accuracy(input=x, label=label)
            return x, acc
        else:
            return x


np.random.seed(1)
img_np = np.random.random((3, 1, 28, 28)).astype("float32")
with fluid.dygraph.guard():
    mnist = MNIST()
    mnist.eval()
    img = fluid.dygraph.to_variable(img_np)
    prediction = mnist(img)
    print(prediction.shape, float(prediction.numpy().sum(axis=1).min()) > 0.999)
    ProgramTranslator().save_inference_model("./dy2stat_infer_model", fetch=[0])
    np.save("img.npy", img_np)
    np.save("prediction.npy", prediction.numpy())
print("saved")

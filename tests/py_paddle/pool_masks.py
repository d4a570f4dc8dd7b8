# return_mask=True of max_pool3d, adaptive_max_pool1d/2d/3d and their layers: the indices of
# the maxima (first maximum of each window, flat in the input plane, int32), with padding
# and unequal kernels, strides and windows; the pooled sums printed with 1 decimal.
import numpy as np
import paddle
import paddle.nn.functional as F

x = paddle.to_tensor(((np.arange(2 * 2 * 5 * 6 * 7) * 37) % 101).astype("float32")
                     .reshape(2, 2, 5, 6, 7) / 10)


def show(name, y, m):
    print(name, m.dtype, y.shape, m.shape, m.numpy().ravel()[:16].tolist(),
          "%.1f" % float(y.sum()), int(m.sum()))


show("max_pool3d", *F.max_pool3d(x, kernel_size=2, stride=2, padding=0, return_mask=True))
show("max_pool3d pad", *F.max_pool3d(x, kernel_size=3, stride=2, padding=1, return_mask=True))
show("max_pool3d ceil", *F.max_pool3d(x, kernel_size=[2, 3, 2], stride=[1, 2, 3],
                                      padding=[0, 1, 1], return_mask=True, ceil_mode=True))
show("MaxPool3D", *paddle.nn.MaxPool3D(3, 1, 1, return_mask=True)(x))
show("adaptive_max_pool3d", *F.adaptive_max_pool3d(x, output_size=[2, 4, 3], return_mask=True))
show("AdaptiveMaxPool3D", *paddle.nn.AdaptiveMaxPool3D(3, return_mask=True)(x))
x2 = x[:, :, 0]
show("adaptive_max_pool2d", *F.adaptive_max_pool2d(x2, output_size=[4, 5], return_mask=True))
show("AdaptiveMaxPool2D", *paddle.nn.AdaptiveMaxPool2D(output_size=3, return_mask=True)(x=x2))
print("AdaptiveMaxPool2D no mask", paddle.nn.AdaptiveMaxPool2D(output_size=3)(x2).shape)
x1 = x2[:, :, 0]
show("adaptive_max_pool1d", *F.adaptive_max_pool1d(x1, output_size=4, return_mask=True))
show("AdaptiveMaxPool1D", *paddle.nn.AdaptiveMaxPool1D(3, return_mask=True)(x1))
y, m = F.max_pool3d(x[:, :, :4, :, :6], 2, 2, return_mask=True)
u = F.max_unpool3d(y, m, kernel_size=2)
print("max_unpool3d", u.shape, "%.1f" % float(u.sum()))
ties = paddle.to_tensor(np.array([1, 3, 3, 2, 5, 5, 5, 0], dtype="float32").reshape(1, 1, 2, 2, 2))
show("ties", *F.max_pool3d(ties, 2, return_mask=True))
show("ties adaptive", *F.adaptive_max_pool3d(ties, 1, return_mask=True))

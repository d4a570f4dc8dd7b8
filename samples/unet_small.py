"""A small UNet-style segmenter: two down blocks, a bottleneck, and up blocks that upsample with
interpolate (bilinear) or a transposed convolution, concatenate the skip features and classify
each pixel."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

CLASSES = 3


class DoubleConv(nn.Layer):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2D(cin, cout, 3, padding=1)
        self.norm1 = nn.GroupNorm(2, cout)
        self.conv2 = nn.Conv2D(cout, cout, 3, padding=1)
        self.norm2 = nn.BatchNorm2D(cout)

    def forward(self, x):
        x = F.relu(self.norm1(self.conv1(x)))
        return F.relu(self.norm2(self.conv2(x)))


class UNetSmall(nn.Layer):
    def __init__(self, cin=3, width=8, classes=CLASSES):
        super().__init__()
        self.enc1 = DoubleConv(cin, width)
        self.enc2 = DoubleConv(width, 2 * width)
        self.mid = DoubleConv(2 * width, 4 * width)
        self.up2 = nn.Conv2DTranspose(4 * width, 2 * width, 2, stride=2)
        self.dec2 = DoubleConv(4 * width, 2 * width)
        self.dec1 = DoubleConv(3 * width, width)
        self.head = nn.Conv2D(width, classes, 1)

    @paddle.jit.to_static
    def forward(self, x):
        e1 = self.enc1(x)                                  # [N, w, H, W]
        e2 = self.enc2(F.max_pool2d(e1, 2))                # [N, 2w, H/2, W/2]
        m = self.mid(F.max_pool2d(e2, 2))                  # [N, 4w, H/4, W/4]
        d2 = self.dec2(paddle.concat([self.up2(m), e2], axis=1))
        up1 = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(paddle.concat([up1, e1], axis=1))
        return self.head(d1)


def build_model():
    return UNetSmall()


INPUT_SPEC = [InputSpec(shape=[None, 3, 16, 16], dtype="float32", name="image")]


def example_inputs(batch=2, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 16, 16)).astype("float32")]


def other_inputs(batch=1, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 16, 16)).astype("float32")]


if __name__ == "__main__":
    model = build_model()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

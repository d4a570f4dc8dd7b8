"""MobileNetV3-Small (Howard et al., "Searching for MobileNetV3", 2019): a 3x3 stride-2 stem with
hard-swish, eleven inverted-residual bottlenecks (1x1 expansion, depthwise 3x3 or 5x5, optional
squeeze-and-excite with a hard-sigmoid gate, 1x1 linear projection, residual when the shape is
kept) with the paper's kernel sizes, expansions, widths, activations and strides, a 1x1
convolution, global pooling, a 1x1 convolution without batch norm as the last hidden layer and
the classifier. A width multiplier scales the channels (rounded to multiples of 8), as the paper
does for its smaller models; 0.25 here so the weights stay small."""
import numpy as np
import paddle
import paddle.nn as nn
from paddle.static import InputSpec

CLASSES = 10
SCALE = 0.25

# kernel, expansion, output, squeeze-excite, activation, stride (the paper's Table 2)
BNECK = [
    (3, 16, 16, True, "relu", 2),
    (3, 72, 24, False, "relu", 2),
    (3, 88, 24, False, "relu", 1),
    (5, 96, 40, True, "hardswish", 2),
    (5, 240, 40, True, "hardswish", 1),
    (5, 240, 40, True, "hardswish", 1),
    (5, 120, 48, True, "hardswish", 1),
    (5, 144, 48, True, "hardswish", 1),
    (5, 288, 96, True, "hardswish", 2),
    (5, 576, 96, True, "hardswish", 1),
    (5, 576, 96, True, "hardswish", 1),
]


def divisible(v, d=8):
    """v rounded to a multiple of d, never below 90% of v."""
    r = max(d, int(v + d / 2) // d * d)
    return r + d if r < 0.9 * v else r


def act(name):
    return nn.ReLU() if name == "relu" else nn.Hardswish()


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k, stride=1, groups=1, activation=None):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2, groups=groups,
                              bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)
        self.act = act(activation) if activation else None

    def forward(self, x):
        x = self.bn(self.conv(x))
        return self.act(x) if self.act is not None else x


class SqueezeExcite(nn.Layer):
    def __init__(self, ch):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(ch, divisible(ch // 4), 1)
        self.fc2 = nn.Conv2D(divisible(ch // 4), ch, 1)
        self.gate = nn.Hardsigmoid()

    def forward(self, x):
        s = self.gate(self.fc2(nn.functional.relu(self.fc1(self.pool(x)))))
        return x * s


class Bottleneck(nn.Layer):
    def __init__(self, cin, k, exp, cout, se, activation, stride):
        super().__init__()
        self.residual = stride == 1 and cin == cout
        self.expand = ConvBN(cin, exp, 1, activation=activation) if exp != cin else None
        self.depthwise = ConvBN(exp, exp, k, stride=stride, groups=exp, activation=activation)
        self.se = SqueezeExcite(exp) if se else None
        self.project = ConvBN(exp, cout, 1)

    def forward(self, x):
        y = self.expand(x) if self.expand is not None else x
        y = self.depthwise(y)
        if self.se is not None:
            y = self.se(y)
        y = self.project(y)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Layer):
    def __init__(self, scale=SCALE, classes=CLASSES):
        super().__init__()
        cin = divisible(16 * scale)
        self.stem = ConvBN(3, cin, 3, stride=2, activation="hardswish")
        blocks = []
        for k, exp, cout, se, a, s in BNECK:
            exp, cout = divisible(exp * scale), divisible(cout * scale)
            blocks.append(Bottleneck(cin, k, exp, cout, se, a, s))
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        last = divisible(576 * scale)
        self.last_conv = ConvBN(cin, last, 1, activation="hardswish")
        self.pool = nn.AdaptiveAvgPool2D(1)
        hidden = divisible(1024 * scale)
        self.hidden = nn.Conv2D(last, hidden, 1)
        self.hidden_act = nn.Hardswish()
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Conv2D(hidden, classes, 1)

    @paddle.jit.to_static
    def forward(self, x):
        x = self.last_conv(self.blocks(self.stem(x)))
        x = self.hidden_act(self.hidden(self.pool(x)))
        x = self.classifier(self.dropout(x))
        return paddle.flatten(x, 1)


def build_model():
    model = MobileNetV3Small()
    model.eval()
    return model


INPUT_SPEC = [InputSpec(shape=[None, 3, 64, 64], dtype="float32", name="image")]


def example_inputs(batch=2, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 64, 64)).astype("float32")]


def other_inputs(batch=1, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 64, 64)).astype("float32")]


if __name__ == "__main__":
    model = build_model()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

"""ResNet-18 (He et al., "Deep Residual Learning for Image Recognition", 2015): a 7x7 stride-2
stem with 3x3 max pooling, four stages of two basic blocks (two 3x3 convolutions with batch norm
and an identity or 1x1-projection shortcut) that halve the resolution and double the width from
the second stage on, global average pooling and a linear classifier. The layer layout is the
paper's; the base width is a parameter (64 in the paper, 4 here so the weights stay small)."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

CLASSES = 10
WIDTH = 4


class BasicBlock(nn.Layer):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2D(cin, cout, 3, stride=stride, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(cout)
        self.conv2 = nn.Conv2D(cout, cout, 3, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2D(cin, cout, 1, stride=stride, bias_attr=False),
                                            nn.BatchNorm2D(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + identity)


class ResNet18(nn.Layer):
    def __init__(self, width=WIDTH, classes=CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2D(3, width, 7, stride=2, padding=3, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(width)
        self.maxpool = nn.MaxPool2D(3, stride=2, padding=1)
        stages = []
        cin = width
        for i, blocks in enumerate([2, 2, 2, 2]):
            cout = width * 2 ** i
            layers = []
            for b in range(blocks):
                layers.append(BasicBlock(cin, cout, 2 if (b == 0 and i > 0) else 1))
                cin = cout
            stages.append(nn.Sequential(*layers))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(cin, classes)

    @paddle.jit.to_static
    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = paddle.flatten(self.avgpool(x), 1)
        return self.fc(x)


def build_model():
    model = ResNet18()
    model.eval()
    return model


INPUT_SPEC = [InputSpec(shape=[None, 3, 32, 32], dtype="float32", name="image")]


def example_inputs(batch=2, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 32, 32)).astype("float32")]


def other_inputs(batch=1, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=(batch, 3, 32, 32)).astype("float32")]


if __name__ == "__main__":
    model = build_model()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

"""A small ResNet: basic residual blocks with BatchNorm, and adaptive average pooling."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

class BasicBlock(nn.Layer):

    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2D(in_ch, out_ch, 3, stride=stride, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(out_ch)
        self.conv2 = nn.Conv2D(out_ch, out_ch, 3, stride=1, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(out_ch)
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(nn.Conv2D(in_ch, out_ch, 1, stride=stride, bias_attr=False), nn.BatchNorm2D(out_ch))
        else:
            self.shortcut = None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.shortcut is None else self.shortcut(x)
        return F.relu(out + identity)

class SmallResNet(nn.Layer):

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 16, 3, padding=1, bias_attr=False), nn.BatchNorm2D(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.layer3 = BasicBlock(32, 64, stride=2)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = _jst.Call(self.stem)(x)
        x = _jst.Call(self.layer3)(_jst.Call(self.layer2)(_jst.Call(self.layer1)(x)))
        x = paddle.flatten(_jst.Call(self.pool)(x), 1)
        return _jst.Call(self.fc)(x)

def build_model():
    return SmallResNet()
INPUT_SPEC = [InputSpec(shape=[None, 3, 32, 32], dtype='float32', name='image')]

def example_inputs(batch=2, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(batch, 3, 32, 32).astype('float32')]
if __name__ == '__main__':
    model = build_model()
    model.eval()
    print(model(paddle.to_tensor(example_inputs()[0])).shape)

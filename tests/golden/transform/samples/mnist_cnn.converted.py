"""MNIST CNN from Paddle's dynamic-to-static guide: two conv/pool stages and three linear layers."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

class MNIST(nn.Layer):

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1, padding=2)
        self.pool1 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.pool2 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.fc1 = nn.Linear(in_features=400, out_features=120)
        self.fc2 = nn.Linear(in_features=120, out_features=84)
        self.fc3 = nn.Linear(in_features=84, out_features=10)

    def forward(self, x):
        x = _jst.Call(self.pool1)(F.relu(_jst.Call(self.conv1)(x)))
        x = _jst.Call(self.pool2)(F.relu(_jst.Call(self.conv2)(x)))
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = F.relu(_jst.Call(self.fc1)(x))
        x = F.relu(_jst.Call(self.fc2)(x))
        return F.softmax(_jst.Call(self.fc3)(x))

def build_model():
    return MNIST()
INPUT_SPEC = [InputSpec(shape=[None, 1, 28, 28], dtype='float32', name='image')]

def example_inputs(batch=4, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.rand(batch, 1, 28, 28).astype('float32')]
if __name__ == '__main__':
    model = build_model()
    model.eval()
    out = model(paddle.to_tensor(example_inputs()[0]))
    print('probabilities:', out.shape, 'argmax:', paddle.argmax(out, axis=1).numpy())

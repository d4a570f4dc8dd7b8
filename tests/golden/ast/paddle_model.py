# Paddle-style model code: a LeNet-like classifier, a training step and helpers.
import math
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.jit import to_static
from paddle.static import InputSpec
from .utils import (accuracy as acc,
                    count_params,)

__all__ = ["LeNet", "train_step"]

_STEP = 0


class LeNet(nn.Layer):
    """A small convolutional network."""

    num_classes: int = 10

    def __init__(self, num_classes=10, *, dropout: float = 0.5, **kwargs):
        super(LeNet, self).__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        if num_classes > 0:
            self.fc = nn.Sequential(
                nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes)
            )
        self.drop = nn.Dropout(p=dropout) if dropout else None
        self.extra = {k: v for k, v in kwargs.items() if not k.startswith("_")}

    @to_static(input_spec=[InputSpec(shape=[None, 1, 28, 28], dtype="float32")])
    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = paddle.flatten(x, 1)
            x = self.fc(x)
        elif self.drop is not None and 0 < self.num_classes <= 10:
            x = self.drop(x)
        else:
            pass
        i = 0
        while paddle.mean(x) > 5.0 and i < 10:
            x = x * 0.5
            i += 1
        for j in range(3):
            if j == 1:
                continue
            x = x + j
        else:
            x = -x
        return x[:, ::2], x[..., -1], x[1:-1:2, None]

    @paddle.no_grad()
    def predict(self, *inputs, **options):
        return [F.softmax(self(t), axis=-1) for t in inputs if t is not None]


def train_step(model: LeNet, batch, opt, loss_fn=F.cross_entropy) -> "paddle.Tensor":
    global _STEP
    images, labels = batch
    logits = model(images)
    loss = loss_fn(logits, labels)
    loss.backward()
    opt.step()
    opt.clear_grad()
    _STEP += 1
    if (n := count_params(model)) > 1_000_000:
        print(f"step {_STEP}: loss={float(loss):.4f} params={n:,} {model!r}")
    return loss


def make_scheduler(base_lr=0.1, warmup=5):
    step = 0

    def lr():
        nonlocal step
        step += 1
        return base_lr * min(1.0, step / warmup) * 0.5 * (1 + math.cos(math.pi * step / 100))

    return lambda: lr()


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    try:
        with paddle.no_grad(), open("log.txt", "w") as log:
            for images, labels in loader:
                pred = model(images).argmax(axis=1)
                correct += int((pred == labels).sum())
                total += labels.shape[0]
                log.write("%d/%d\n" % (correct, total))
    except (RuntimeError, ValueError) as err:
        raise RuntimeError("evaluation failed") from err
    except KeyboardInterrupt:
        return None
    finally:
        model.train()
    return correct / max(total, 1)


async def fetch(session, url, *, retries=3):
    async with session.get(url) as resp:
        async for chunk in resp.content:
            yield chunk
    await session.close()


def describe(shape):
    match shape:
        case [n, c, h, w] if h == w:
            return f"square {n}x{c}x{h}x{w}"
        case [n, *rest]:
            return "batch of %d" % n
        case {"dtype": "float32" | "float64" as dt, **others}:
            return dt
        case paddle.Tensor(shape=[_, _]):
            return "matrix"
        case None:
            return "nothing"
        case _:
            return "unknown"


if __name__ == "__main__":
    net = LeNet(num_classes=10)
    x = paddle.randn([4, 1, 28, 28])
    print(net(x).shape, *[p.shape for p in net.parameters()][:2], sep=", ")
    assert net(x).shape == [4, 10], "wrong shape"
    del net, x

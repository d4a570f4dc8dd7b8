# paddle.vision.transforms' ToTensor, Resize, Normalize and Compose on float HWC ndarrays and
# CHW tensors, and paddle.metric.Auc; values rounded to 4 decimals (tolerance 1e-4). Paddle's
# Resize of an ndarray needs OpenCV, which the oracle does not have: Resize is checked on tensors.
import numpy as np
import paddle
import paddle.vision.transforms as T
from paddle.vision.transforms import functional as VF


def show(name, t):
    a = t.numpy() if isinstance(t, paddle.Tensor) else t
    print(name, type(t).__name__, list(a.shape), str(a.dtype).replace("paddle.", ""),
          (np.round(np.asarray(a, dtype="float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__)


rs = np.random.RandomState(1)
hwc = rs.rand(4, 6, 3).astype("float32")
gray = rs.rand(3, 5).astype("float32")
chw = paddle.to_tensor(rs.rand(3, 4, 6).astype("float32"))

show("to_tensor", T.ToTensor()(hwc))
show("to_tensor hwc", T.ToTensor(data_format="HWC")(hwc))
show("to_tensor gray", VF.to_tensor(gray))
show("to_tensor tensor", T.ToTensor()(chw))
show("normalize ndarray chw", T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.5])(hwc.transpose(2, 0, 1)))
show("normalize ndarray hwc", T.Normalize(0.5, 0.25, data_format="HWC")(hwc))
show("normalize to_rgb", T.Normalize([0.5, 0.4, 0.3], [1.0, 1.0, 1.0], data_format="HWC",
                                     to_rgb=True)(hwc))
show("normalize tensor", T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.5])(chw))
show("resize tensor", T.Resize((6, 9))(chw))
show("resize tensor short", T.Resize(2)(chw))
show("resize tensor same", T.Resize(4)(chw))
show("resize nearest", VF.resize(chw, [3, 3], "nearest"))
pipe = T.Compose([T.ToTensor(), T.Resize((8, 12)), T.Normalize([0.485, 0.456, 0.406],
                                                                [0.229, 0.224, 0.225])])
show("compose", pipe(hwc))
err("to_tensor list", lambda: T.ToTensor()([1, 2, 3]))
err("resize size", lambda: VF.resize(chw, [1, 2, 3]))
err("resize 2d tensor", lambda: VF.resize(paddle.ones([4, 4]), 2))

m = paddle.metric.Auc()
print("auc name", m.name())
preds = np.stack([1 - np.linspace(0.05, 0.95, 10), np.linspace(0.05, 0.95, 10)], 1).astype("float32")
labels = np.array([0, 0, 1, 0, 1, 0, 1, 1, 1, 1]).reshape(10, 1)
m.update(preds, labels)
print("auc", round(m.accumulate(), 6))
m.update(paddle.to_tensor(preds[::-1].copy()), paddle.to_tensor(labels))
print("auc twice", round(m.accumulate(), 6))
m.reset()
print("auc reset", m.accumulate())
m2 = paddle.metric.Auc(num_thresholds=3)
m2.update(preds, labels.reshape(10))
print("auc 3 thresholds", round(m2.accumulate(), 6))
m3 = paddle.metric.Auc()
m3.update(preds, np.ones([10, 1]))
print("auc one class", m3.accumulate())
err("auc bad preds", lambda: m.update([[0.1, 0.9]], labels[:1]))
err("auc above one", lambda: m.update(np.array([[0.0, 1.5]], "float32"), labels[:1]))

# F.class_center_sample: the sorted classes of the labels come first and the labels are remapped
# to them (compared exactly); the other sampled centers are random, so they are checked by their
# count, range and distinctness. int32 and int64 labels, more positives than num_samples; bad
# arguments.
import numpy as np
import paddle
import paddle.nn.functional as F


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


paddle.seed(3)
lab = paddle.to_tensor([11, 5, 1, 3, 12, 2, 15, 19, 18, 19], dtype="int64")
r, c = F.class_center_sample(lab, 20, 6)
print("more positives", r.dtype, r.numpy().tolist(), c.numpy().tolist())
r, c = F.class_center_sample(lab, 20, 12)
cn = c.numpy().tolist()
print("remapped", r.numpy().tolist(), "positives", cn[:9])
neg = cn[9:]
print("negatives", len(neg), all(0 <= v < 20 for v in neg), len(set(cn)) == len(cn),
      all(v not in cn[:9] for v in neg))
print("remap ok", bool((c.numpy()[r.numpy()] == lab.numpy()).all()))
r, c = F.class_center_sample(paddle.to_tensor([3, 3, 0], dtype="int32"), 5, 2)
print("int32", r.dtype, r.numpy().tolist(), c.dtype, c.numpy().tolist())
r, c = F.class_center_sample(paddle.to_tensor([4, 0], dtype="int64"), 5, 5)
print("all classes", sorted(c.numpy().tolist()), c.numpy().tolist()[:2], r.numpy().tolist())
err("too many samples", lambda: F.class_center_sample(lab, 20, 30))

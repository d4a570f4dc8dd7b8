# paddle.io: datasets, samplers and the DataLoader's batching, collation and shuffling
# (RandomSampler draws from NumPy's global RandomState, fixed by np.random.seed), and
# paddle.metric.Accuracy. Values are exact.
import numpy as np
import paddle
from paddle.io import (BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler,
                       SequenceSampler, Subset, TensorDataset)


def desc(v):
    if isinstance(v, paddle.Tensor):
        return "T%s%s%s" % (str(v.dtype).replace("paddle.", ""), list(v.shape), v.numpy().tolist())
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, desc(v[k])) for k in sorted(v)) + "}"
    if isinstance(v, (list, tuple)):
        return type(v).__name__ + "[" + ", ".join(desc(x) for x in v) + "]"
    return repr(v)


def show(name, loader):
    print(name, [desc(b) for b in loader])


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, (str(e).splitlines() or [""])[0][:150])


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.array([i, i * i], dtype="float32"), np.array([i % 3], dtype="int64")

    def __len__(self):
        return self.n


class Dicts(Dataset):
    def __getitem__(self, i):
        return {"x": np.full([2], i, dtype="float32"), "id": i, "w": i * 0.5}

    def __len__(self):
        return 5


class Numbers(Dataset):
    def __getitem__(self, i):
        return i * 10

    def __len__(self):
        return 7


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter([np.array([i, -i], dtype="int32") for i in range(self.n)])


ds = Squares(7)
print("len", len(ds), desc(ds[3]))
show("batch3", DataLoader(ds, batch_size=3))
show("drop_last", DataLoader(ds, batch_size=3, drop_last=True))
print("len loader", len(DataLoader(ds, batch_size=3)), len(DataLoader(ds, batch_size=3, drop_last=True)))
show("dicts", DataLoader(Dicts(), batch_size=2))
show("numbers", DataLoader(Numbers(), batch_size=4))
show("collate_fn", DataLoader(ds, batch_size=4, collate_fn=lambda b: [len(b), b[0][0]]))
show("workers", DataLoader(ds, batch_size=4, num_workers=2))
show("iterable", DataLoader(Stream(5), batch_size=2))
show("iterable drop", DataLoader(Stream(5), batch_size=2, drop_last=True))
t = TensorDataset([paddle.arange(6, dtype="float32").reshape([3, 2]), paddle.to_tensor([7, 8, 9])])
print("TensorDataset", len(t), desc(t[1]))
show("tensors", DataLoader(t, batch_size=2))
sub = Subset(ds, [6, 0, 2])
print("Subset", len(sub), desc(sub[0]))
print("SequenceSampler", list(SequenceSampler(ds)))
print("BatchSampler", list(BatchSampler(ds, batch_size=3)), len(BatchSampler(ds, batch_size=3)))
print("BatchSampler sampler", list(BatchSampler(sampler=SequenceSampler(ds), batch_size=4, drop_last=True)))


class Picked(paddle.io.Sampler):
    def __iter__(self):
        return iter([5, 1, 3])

    def __len__(self):
        return 3


show("batch_sampler", DataLoader(ds, batch_sampler=BatchSampler(sampler=Picked(), batch_size=2)))
err("sampler list", lambda: BatchSampler(sampler=[5, 1, 3], batch_size=2))

np.random.seed(2024)
print("RandomSampler", list(RandomSampler(ds)))
print("RandomSampler replacement", list(RandomSampler(ds, replacement=True, num_samples=4)))
print("shuffled", list(BatchSampler(ds, shuffle=True, batch_size=3)))
np.random.seed(7)
show("shuffle loader", DataLoader(Numbers(), batch_size=3, shuffle=True))
show("shuffle loader 2", DataLoader(Numbers(), batch_size=3, shuffle=True))
a, b = paddle.io.random_split(ds, [5, 2])
print("random_split", len(a), len(b))

acc = paddle.metric.Accuracy()
pred = paddle.to_tensor([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.4, 0.35, 0.25]])
label = paddle.to_tensor([[1], [2], [2], [1]])
c = acc.compute(pred, label)
print("compute", desc(c))
print("update", acc.update(c), acc.accumulate(), acc.name())
print("update2", acc.update(acc.compute(pred[:2], paddle.to_tensor([0, 1]))), acc.accumulate())
acc.reset()
print("reset", acc.accumulate())
acc2 = paddle.metric.Accuracy(topk=(1, 2), name="a")
print("top2", acc2.update(acc2.compute(pred, label)), acc2.accumulate(), acc2.name())
onehot = paddle.to_tensor([[0, 1, 0], [0, 0, 1], [0, 0, 1], [1, 0, 0]], dtype="float32")
print("onehot", acc2.update(acc2.compute(pred, onehot)), acc2.accumulate())
print("accuracy fn", round(float(paddle.metric.accuracy(pred, label)), 5),
      round(float(paddle.metric.accuracy(pred, label, k=2)), 5))

err("Dataset getitem", lambda: Dataset()[0])
err("Dataset len", lambda: len(Dataset()))
err("Iterable getitem", lambda: Stream(2)[0])
err("iterable shuffle", lambda: DataLoader(Stream(2), shuffle=True))
err("batch_size", lambda: BatchSampler(ds, batch_size=0))
err("shuffle type", lambda: BatchSampler(ds, shuffle=1))
err("sampler and dataset", lambda: BatchSampler(ds, sampler=SequenceSampler(ds)))
err("RandomSampler num_samples", lambda: RandomSampler(ds, num_samples=3))
err("TensorDataset", lambda: TensorDataset([paddle.ones([3]), paddle.ones([4])]))
err("random_split", lambda: paddle.io.random_split(ds, [3, 3]))

# DistributedBatchSampler: one process, or a rank of several given explicitly
dbs = paddle.io.DistributedBatchSampler(ds, batch_size=2)
print("dbs", list(dbs), len(dbs))
dbs = paddle.io.DistributedBatchSampler(ds, batch_size=2, shuffle=True, drop_last=True)
print("dbs shuffle", list(dbs), list(dbs), len(dbs))
dbs.set_epoch(5)
print("dbs epoch", list(dbs))
for r in range(3):
    print("dbs rank", r, list(paddle.io.DistributedBatchSampler(Numbers(), batch_size=2, num_replicas=3, rank=r)))
show("dbs loader", DataLoader(Numbers(), batch_sampler=paddle.io.DistributedBatchSampler(Numbers(), batch_size=3, shuffle=True)))

# Precision and Recall (binary predictions rounded at 0.5)
pm = paddle.metric.Precision()
rm = paddle.metric.Recall()
preds = np.array([0.1, 0.7, 0.6, 0.3, 0.9, 0.5, 0.2], dtype="float32")
labels = np.array([0, 1, 0, 1, 1, 1, 0], dtype="int64")
pm.update(preds, labels)
rm.update(paddle.to_tensor(preds.reshape(7, 1)), paddle.to_tensor(labels.reshape(7, 1)))
print("precision", pm.accumulate(), pm.name(), "recall", rm.accumulate(), rm.name())
pm.update(np.array([0.8, 0.8]), np.array([0, 0]))
print("precision 2", pm.accumulate())
pm.reset()
rm.reset()
print("reset", pm.accumulate(), rm.accumulate())
err("precision type", lambda: pm.update([0.5], np.array([1])))

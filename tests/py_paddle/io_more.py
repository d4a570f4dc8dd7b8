# paddle.io.ConcatDataset, SubsetRandomSampler (its length and set of indices),
# WeightedRandomSampler and numpy.random.choice with p (NumPy's stream after a seed, with and
# without replacement, bad p), paddle.nn.clip.clip_by_norm.
import numpy as np
import paddle
from paddle.io import ConcatDataset, Dataset, SubsetRandomSampler, WeightedRandomSampler


class Range(Dataset):
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __getitem__(self, i):
        return self.lo + i

    def __len__(self):
        return self.hi - self.lo


ds = ConcatDataset([Range(0, 3), Range(10, 12), Range(20, 24)])
print(len(ds), ds.cumulative_sizes, [ds[i] for i in range(len(ds))], ds[-1], ds[-9])
for bad in [lambda: ds[-10], lambda: ConcatDataset([])]:
    try:
        bad()
    except (ValueError, AssertionError) as e:
        print(type(e).__name__, e)
s = SubsetRandomSampler([1, 3, 5, 7, 9])
print(len(s), sorted(s))
np.random.seed(2023)
print([i for i in WeightedRandomSampler([0.1, 0.3, 0.5, 0.7, 0.2], 6, replacement=True)])
print([i for i in WeightedRandomSampler([0.1, 0.3, 0.5, 0.7, 0.2], 4, replacement=False)])
print(np.random.choice(5, 8, p=[0.1, 0.2, 0.3, 0.25, 0.15]).tolist())
print(np.random.choice(np.array([10, 20, 30, 40]), size=(2, 3),
                       p=np.array([0.4, 0.0, 0.5, 0.1])).tolist())
print(np.random.choice(6, 4, replace=False, p=[0.3, 0.05, 0.25, 0.1, 0.2, 0.1]).tolist())
print(np.random.choice(3, 3, replace=False, p=[0.9, 0.05, 0.05]).tolist())
print(np.random.choice(4, p=[0.25, 0.25, 0.25, 0.25]), round(np.random.random(), 8))
for bad in [lambda: np.random.choice(3, p=[0.5, 0.6, -0.1]),
            lambda: np.random.choice(3, p=[0.5, 0.6, 0.1]),
            lambda: np.random.choice(3, p=[0.5, 0.5]),
            lambda: np.random.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]),
            lambda: np.random.choice(3, p=[[0.5, 0.5, 0.0]])]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
x = paddle.to_tensor([[2.0, 2.0], [2.0, 2.0]])
print(paddle.nn.clip.clip_by_norm(x, max_norm=1.0).numpy().tolist())
print(paddle.nn.clip.clip_by_norm(x, max_norm=10.0).numpy().tolist())

# paddle.nn.functional.loss.edit_distance on padded batches with lengths: Levenshtein distances,
# normalized or not; ignored tokens and missing lengths (LoD input) are errors; Paddle's dygraph form returns (sequence_num, distance).
import paddle
import paddle.nn.functional as F

h = paddle.to_tensor([[1, 2, 3, 0], [5, 5, 0, 0], [7, 8, 9, 1], [4, 0, 4, 4]], dtype="int64")
r = paddle.to_tensor([[1, 3, 0], [5, 0, 0], [9, 8, 7], [4, 4, 0]], dtype="int64")
hl = paddle.to_tensor([3, 2, 4, 4], dtype="int64")
rl = paddle.to_tensor([2, 1, 3, 2], dtype="int64")
for normalized in (False, True):
    num, dist = F.loss.edit_distance(h, r, normalized=normalized, input_length=hl, label_length=rl)
    print(normalized, num.numpy().tolist(), dist.shape, dist.numpy().ravel().tolist())
for kw in [dict(ignored_tokens=[0]), dict()]:
    try:
        F.loss.edit_distance(h, r, **kw)
    except ValueError:
        print("ValueError", sorted(kw))

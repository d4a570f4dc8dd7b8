# paddle.seed then rand, randn, uniform, normal, randint, training dropout and the initial
# weights of layers and initializers: Paddle's CPU generator (std::mt19937_64 seeded through
# std::seed_seq) drawn as its kernels draw, so the values equal Paddle's; rrelu's slopes (one per
# negative element); randperm (std::shuffle); set_device's Place and state_dict's OrderedDict.
import paddle
import numpy as np
paddle.seed(100)
print(paddle.rand([5]).numpy().tolist())
paddle.seed(7)
print(paddle.randn([3]).numpy().tolist(), paddle.randn([2]).numpy().tolist())
paddle.seed(3); print(paddle.uniform([4], min=-2, max=3).numpy().tolist(), paddle.rand([2], dtype='float64').numpy().tolist())
paddle.seed(3); print(paddle.normal(1.0, 2.0, [3]).numpy().tolist(), paddle.standard_normal([2]).numpy().tolist())
paddle.seed(3); print(paddle.randn([3], dtype='float64').numpy().tolist())
paddle.seed(3); l = paddle.nn.Linear(2, 3); print(l.weight.numpy().ravel().tolist(), l.bias.numpy().tolist())
paddle.seed(3); c = paddle.nn.Conv2D(2, 3, 2); print(c.weight.numpy().ravel()[:6].tolist(), c.bias.numpy().tolist())
paddle.seed(3); print(paddle.randint(0, 10, [8]).numpy().tolist(), paddle.randint(-5, 1000, [3]).numpy().tolist())
paddle.seed(3); x = paddle.ones([10]); print(paddle.nn.functional.dropout(x, 0.5).numpy().tolist())
paddle.seed(5); e = paddle.nn.Embedding(4, 3); print(e.weight.numpy().ravel()[:5].tolist())
paddle.seed(5); p = paddle.create_parameter([2, 3], 'float32', default_initializer=paddle.nn.initializer.Normal(0.5, 2.0)); print(p.numpy().ravel().tolist())
paddle.seed(5); p = paddle.create_parameter([2, 3], 'float32', default_initializer=paddle.nn.initializer.KaimingNormal()); print(p.numpy().ravel().tolist())
paddle.seed(5); p = paddle.create_parameter([2, 3], 'float32', default_initializer=paddle.nn.initializer.KaimingUniform()); print(p.numpy().ravel().tolist())
paddle.seed(5); p = paddle.create_parameter([2, 3], 'float32', default_initializer=paddle.nn.initializer.XavierNormal()); print(p.numpy().ravel().tolist())
paddle.seed(5); p = paddle.create_parameter([2, 3], 'float32', default_initializer=paddle.nn.initializer.Uniform(-0.5, 0.25)); print(p.numpy().ravel().tolist())
paddle.seed(5); b = paddle.nn.BatchNorm1D(3); l = paddle.nn.LayerNorm(3); print(b.weight.numpy().tolist(), l.weight.numpy().tolist())
paddle.seed(5); r = paddle.nn.LSTM(2, 2); print(r.weight_ih_l0.numpy().ravel()[:5].tolist())
paddle.seed(1); print(paddle.nn.functional.rrelu(paddle.to_tensor([1.0, -2.0, 3.0, -4.0, -5.0]), 0.1, 0.3).numpy().tolist())
print(paddle.set_device('cpu'), type(paddle.nn.Linear(1, 1).state_dict()).__name__)
for n in (6, 7, 10, 1, 0):
    paddle.seed(3); print("randperm", n, paddle.randperm(n).numpy().tolist())
paddle.seed(2023); print(paddle.randperm(5, dtype='int32').numpy().tolist(), paddle.randperm(5, dtype='float32').numpy().tolist())
paddle.seed(2023); print([len(s) for s in paddle.io.random_split(range(10), [3, 7])], list(paddle.io.random_split(range(10), [3, 7])[0]))

"""One training benchmark run: times the training step of a sample model.

    train_step.py SAMPLE MODE BATCH STEPS WARMUP

Runs under real Paddle (python) and under `dy2st exec` alike; bench/train_bench.py
copies it beside the samples it imports and alternates the runs. SAMPLE is
mnist_cnn or char_rnn (samples/), MODE eager (to_static switched off: dygraph),
to_static (the sample's @paddle.jit.to_static forward, trained dygraph-style)
or static (paddle.enable_static, optimizer.minimize, Executor.run; mnist_cnn
only: char_rnn's `while` over a tensor needs the to_static conversion). The weights
and data come from NumPy (seed 0). A step is forward, loss, backward and the
optimizer's update (and clear_grad); each is timed with time.perf_counter (and
time.process_time), after WARMUP untimed steps. Prints `loss0 L` (the first
step's loss, to check that the tools agree), `times t1 t2 ...` (wall seconds),
`cpu c1 c2 ...` (CPU seconds of the process) and, in eager and to_static
modes, `updated N of M` (how many parameters the steps changed).
"""
import sys
import time

import numpy as np
import paddle
import paddle.nn.functional as F

SAMPLE, MODE = sys.argv[1], sys.argv[2]
BATCH, STEPS, WARMUP = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
SEQ = 8

if SAMPLE == "mnist_cnn":
    import mnist_cnn as S
else:
    import char_rnn as S

rng = np.random.RandomState(0)
if SAMPLE == "mnist_cnn":
    xs = rng.rand(4, BATCH, 1, 28, 28).astype("float32")
    ys = rng.randint(0, 10, size=(4, BATCH, 1)).astype("int64")
else:
    xs = rng.randint(0, S.VOCAB, size=(4, BATCH, SEQ)).astype("int64")
    ys = rng.randint(0, S.VOCAB, size=(4, BATCH, 1)).astype("int64")


def init_weights(model):
    wr = np.random.RandomState(1)
    state = {}
    for name, p in model.named_parameters():
        shape = list(p.shape)
        fan_in = 1
        for d in shape[1:] if len(shape) > 1 else [10]:
            fan_in *= d
        state[name] = (wr.uniform(-1, 1, shape) / np.sqrt(fan_in)).astype("float32")
    model.set_state_dict(state)


def make_opt(model):
    if SAMPLE == "mnist_cnn":
        return paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                         parameters=model.parameters())
    return paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())


times = []
cpu = []
loss0 = None
if MODE == "static":
    # the decorated forward is built into the Program as plain Python (a
    # to_static function cannot be called in static mode)
    paddle.jit.enable_to_static(False)
    paddle.enable_static()
    main = paddle.static.Program()
    startup = paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        if SAMPLE == "mnist_cnn":
            x = paddle.static.data("x", [BATCH, 1, 28, 28], "float32")
        else:
            x = paddle.static.data("x", [BATCH, SEQ], "int64")
        y = paddle.static.data("y", [BATCH, 1], "int64")
        model = S.build_model()
        loss = F.cross_entropy(model(x), y)
        opt = make_opt(model)
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    init_weights(model)
    for i in range(WARMUP + STEPS):
        c0 = time.process_time()
        t0 = time.perf_counter()
        (lv,) = exe.run(main, feed={"x": xs[i % 4], "y": ys[i % 4]}, fetch_list=[loss])
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i == 0:
            loss0 = float(np.array(lv))
        if i >= WARMUP:
            times.append(t1 - t0)
            cpu.append(c1 - c0)
else:
    if MODE == "eager":
        paddle.jit.enable_to_static(False)
    model = S.build_model()
    init_weights(model)
    model.train()
    opt = make_opt(model)
    before = [p.numpy().copy() for p in model.parameters()]
    xt = [paddle.to_tensor(xs[k]) for k in range(4)]
    yt = [paddle.to_tensor(ys[k]) for k in range(4)]
    for i in range(WARMUP + STEPS):
        c0 = time.process_time()
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(xt[i % 4]), yt[i % 4])
        loss.backward()
        opt.step()
        opt.clear_grad()
        lv = float(loss)
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i == 0:
            loss0 = lv
        if i >= WARMUP:
            times.append(t1 - t0)
            cpu.append(c1 - c0)

    # a step that does not update the weights (no gradient reached them) is
    # not a training step: train_bench.py reports it instead of timing it
    changed = 0
    for p, b in zip(model.parameters(), before):
        if float(np.abs(p.numpy() - b).max()) > 0:
            changed += 1
    print("updated %d of %d" % (changed, len(before)))

print("loss0 %.6f" % loss0)
print("times " + " ".join("%.7f" % t for t in times))
print("cpu " + " ".join("%.7f" % t for t in cpu))

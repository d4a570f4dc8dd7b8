# End-to-end dygraph training: a small MLP (Linear-Tanh-Linear) whose weights are set by
# Assign, trained a few steps with each optimizer on cross-entropy or MSE, with weight decay,
# gradient clipping and a scheduler; loss.backward(), opt.step(), opt.clear_grad().
# Losses and weights printed rounded to 5 decimals (tolerance 1e-5).
import numpy as np
import paddle
import paddle.nn.functional as F

X = (np.sin(np.arange(24) * 0.37) * 1.5).reshape(8, 3).astype("float32")
Y = np.array([0, 1, 2, 1, 0, 2, 2, 1], dtype="int64")
T = (np.cos(np.arange(16) * 0.5)).reshape(8, 2).astype("float32")
W1 = (np.sin(np.arange(12) * 0.9) * 0.5).reshape(3, 4).astype("float32")
W2 = (np.cos(np.arange(12) * 0.7) * 0.5).reshape(4, 3).astype("float32")


class MLP(paddle.nn.Layer):
    def __init__(self, out=3):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4, weight_attr=paddle.nn.initializer.Assign(W1),
                                    bias_attr=paddle.nn.initializer.Constant(0.1))
        self.fc2 = paddle.nn.Linear(4, out, weight_attr=paddle.nn.initializer.Assign(W2[:, :out]),
                                    bias_attr=paddle.nn.initializer.Constant(-0.05))

    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


def r(v):
    return np.round(np.array(v, dtype="float64"), 5).tolist()


def train(name, make_opt, loss_kind="ce", steps=4, sched=None):
    m = MLP(3 if loss_kind != "mse" else 2)
    opt = make_opt(m.parameters())
    x = paddle.to_tensor(X)
    losses = []
    for _ in range(steps):
        out = m(x)
        if loss_kind == "ce":
            loss = F.cross_entropy(out, paddle.to_tensor(Y))
        elif loss_kind == "ce_ls":
            loss = paddle.nn.CrossEntropyLoss(label_smoothing=0.1)(out, paddle.to_tensor(Y))
        elif loss_kind == "nll":
            loss = F.nll_loss(F.log_softmax(out), paddle.to_tensor(Y))
        else:
            loss = F.mse_loss(out, paddle.to_tensor(T))
        loss.backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
        losses.append(round(float(loss), 5))
    print(name, losses)
    print("  fc2.w", r(m.fc2.weight.numpy())[0], "fc1.b", r(m.fc1.bias.numpy()))


O = paddle.optimizer
train("SGD", lambda ps: O.SGD(0.5, parameters=ps))
train("SGD mse", lambda ps: O.SGD(0.2, parameters=ps), "mse")
train("SGD l2", lambda ps: O.SGD(0.5, parameters=ps, weight_decay=0.01))
train("SGD l1", lambda ps: O.SGD(0.5, parameters=ps, weight_decay=paddle.regularizer.L1Decay(0.01)))
train("SGD clip global", lambda ps: O.SGD(0.5, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.3)))
train("SGD clip norm", lambda ps: O.SGD(0.5, parameters=ps, grad_clip=paddle.nn.ClipGradByNorm(0.2)))
train("SGD clip value", lambda ps: O.SGD(0.5, parameters=ps, grad_clip=paddle.nn.ClipGradByValue(0.05)))
train("Momentum", lambda ps: O.Momentum(0.2, momentum=0.9, parameters=ps))
train("Momentum nesterov l2", lambda ps: O.Momentum(0.2, parameters=ps, use_nesterov=True, weight_decay=0.01))
train("Adam", lambda ps: O.Adam(0.05, parameters=ps))
train("Adam nll", lambda ps: O.Adam(0.05, parameters=ps), "nll")
train("Adam ls", lambda ps: O.Adam(0.05, parameters=ps), "ce_ls")
train("AdamW", lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.1))
train("RMSProp", lambda ps: O.RMSProp(0.01, parameters=ps))
train("RMSProp centered", lambda ps: O.RMSProp(0.01, momentum=0.5, centered=True, parameters=ps))
train("Adagrad", lambda ps: O.Adagrad(0.1, parameters=ps))
train("Lamb", lambda ps: O.Lamb(0.05, parameters=ps))
s = O.lr.StepDecay(0.5, step_size=2, gamma=0.5)
train("SGD StepDecay", lambda ps: O.SGD(s, parameters=ps), sched=s)
s2 = O.lr.CosineAnnealingDecay(0.05, T_max=3)
train("Adam Cosine", lambda ps: O.Adam(s2, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)), sched=s2)

# minimize after backward, and the gradients backward left
m = MLP()
opt = O.SGD(0.5, parameters=m.parameters())
loss = F.cross_entropy(m(paddle.to_tensor(X)), paddle.to_tensor(Y))
loss.backward()
print("grad", r(m.fc2.bias.grad.numpy()))
opt.minimize(loss)
print("minimized", r(m.fc2.bias.numpy()))
opt.clear_grad()
print("cleared", r(m.fc2.bias.grad.numpy()))
opt.clear_grad(set_to_zero=False)
print("released", m.fc2.bias.grad)
# Adamax and Adadelta
train("Adamax", lambda ps: O.Adamax(0.05, parameters=ps))
train("Adamax l2", lambda ps: O.Adamax(0.05, beta1=0.8, beta2=0.9, parameters=ps, weight_decay=0.01))
train("Adadelta", lambda ps: O.Adadelta(0.5, parameters=ps))
train("Adadelta rho", lambda ps: O.Adadelta(1.0, rho=0.8, epsilon=1e-4, parameters=ps))
m = MLP()
opt = O.Adamax(0.05, parameters=m.parameters())
m(paddle.to_tensor(X)).sum().backward()
opt.step()
print(sorted(opt.state_dict().keys())[:3])

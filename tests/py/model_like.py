# the shape of typical model code, in pure Python: a Layer base class with
# parameter registration, sublayers, __call__ -> forward, state dicts, training loop
class Parameter:
    def __init__(self, shape, value=0.0):
        self.shape = shape
        self.data = [value] * (shape[0] * shape[1] if len(shape) == 2 else shape[0])

    def __repr__(self):
        return f"Parameter(shape={self.shape})"


class Layer:
    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_sub_layers", {})
        self.training = True

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        object.__setattr__(self, name, value)

    def create_parameter(self, shape, default=0.0):
        return Parameter(shape, default)

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)

    def forward(self, *inputs):
        raise NotImplementedError(type(self).__name__ + ".forward")

    def named_parameters(self, prefix=""):
        for name, p in self._parameters.items():
            yield_name = prefix + name
            self._collected.append((yield_name, p))
        for lname, layer in self._sub_layers.items():
            layer._collected = self._collected
            layer.named_parameters(prefix + lname + ".")

    def parameters(self):
        object.__setattr__(self, "_collected", [])
        self.named_parameters()
        return [p for _, p in self._collected]

    def state_dict(self):
        object.__setattr__(self, "_collected", [])
        self.named_parameters()
        return {name: p.shape for name, p in self._collected}

    def train(self):
        self.training = True
        for l in self._sub_layers.values():
            l.train()

    def eval(self):
        self.training = False
        for l in self._sub_layers.values():
            l.eval()


class Linear(Layer):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = self.create_parameter([in_features, out_features], 0.5)
        self.bias = self.create_parameter([out_features])
        self.in_features = in_features
        self.out_features = out_features

    def forward(self, x):
        out = []
        for j in range(self.out_features):
            acc = self.bias.data[j]
            for i in range(self.in_features):
                acc += x[i] * self.weight.data[i * self.out_features + j]
            out.append(acc)
        return out


def relu(xs):
    return [x if x > 0 else 0.0 for x in xs]


class MLP(Layer):
    def __init__(self, sizes):
        super().__init__()
        self.layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layer = Linear(a, b)
            setattr(self, f"fc{i}", layer)
            self.layers.append(layer)
        self.dropout_p = 0.1

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = relu(x)
        return x


model = MLP([3, 4, 2])
print(model.state_dict())
print(len(model.parameters()), model.parameters()[0])
out = model([1.0, -2.0, 3.0])
print(out)
model.eval()
print(model.training, model.fc0.training, model.fc1.training)
try:
    Layer()(1)
except NotImplementedError as e:
    print("NotImplementedError:", e)
losses = []
lr = 0.01
for epoch in range(3):
    pred = model([1.0, 2.0, 3.0])
    loss = sum((p - 1.0) ** 2 for p in pred) / len(pred)
    losses.append(round(loss, 6))
    for p in model.parameters():
        p.data = [v - lr * v for v in p.data]
print(losses)
config = {"hidden": [8, 8], "act": "relu", "lr": 1e-3}
print("config: " + ", ".join(f"{k}={v}" for k, v in sorted(config.items())))
print(f"epoch {3:>3d} | loss {losses[-1]:.4f} | lr {lr:.0e}")

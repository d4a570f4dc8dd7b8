import paddle

paddle.enable_static()
x = paddle.static.data(name="X", shape=[None, 1], dtype="float32")
loss = paddle.mean(paddle.static.nn.fc(x, 10))
paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)

# The CompiledProgram document example (CPU): a fc network minimized with SGD, the startup
# Program run once, then the main Program run through CompiledProgram; prints the loss's shape
# (0-d in Paddle 2.6) and that training moved the loss.
import numpy
import paddle
import paddle.static as static

paddle.enable_static()

place = paddle.CPUPlace()
exe = static.Executor(place)

data = static.data(name='X', shape=[None, 1], dtype='float32')
hidden = static.nn.fc(x=data, size=10)
loss = paddle.mean(hidden)
paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)

exe.run(static.default_startup_program())
compiled_prog = static.CompiledProgram(
    static.default_main_program())

x = numpy.random.random(size=(10, 1)).astype('float32')
loss_data, = exe.run(compiled_prog,
                     feed={"X": x},
                     fetch_list=[loss.name])
print(loss_data.shape)
print(type(loss_data).__name__, loss_data.dtype)
# the mean of fc's outputs falls by lr * |d loss / d params|^2 per SGD step
second, = exe.run(compiled_prog, feed={"X": x}, fetch_list=[loss.name])
print("loss decreased:", bool(second < loss_data))

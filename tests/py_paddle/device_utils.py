"""paddle.device, paddle.device.cuda, paddle.is_compiled_with_*, paddle.utils (run_check,
try_import, the nested-structure helpers) and paddle.utils.unique_name, as code written for
GPU-or-CPU machines calls them; importlib.import_module."""
import paddle
import paddle.utils
from paddle.utils import unique_name

print(paddle.is_compiled_with_cuda(), paddle.is_compiled_with_rocm(), paddle.is_compiled_with_xpu())
print(paddle.device.is_compiled_with_cuda(), paddle.device.is_compiled_with_ipu(),
      paddle.device.is_compiled_with_cinn(), paddle.device.is_compiled_with_custom_device("npu"))
print(paddle.is_compiled_with_distribute())
print(paddle.device.get_device())
place = paddle.device.set_device("gpu" if paddle.is_compiled_with_cuda() else "cpu")
print(place)
print(paddle.device.get_all_device_type(), paddle.device.get_all_custom_device_type())
print(paddle.device.get_available_device(), paddle.device.get_available_custom_device())
print(paddle.device.cuda.device_count())
paddle.device.cuda.empty_cache()
print(unique_name.generate("fc"), unique_name.generate("fc"), unique_name.generate("conv"))
with unique_name.guard():
    print(unique_name.generate("fc"))
print(unique_name.generate("fc"))
print(paddle.utils.flatten([1, [2, (3, 4)], {"b": 5, "a": 6}]))
print(paddle.utils.map_structure(lambda v: v * 10, [1, (2, 3), {"k": 4}]))
print(paddle.utils.pack_sequence_as([0, (0, 0)], [7, 8, 9]))
math = paddle.utils.try_import("math")
print(math.sqrt(16.0))
try:
    paddle.utils.try_import("no_such_module_xyz")
except ImportError as e:
    print("ImportError", str(e)[:60])
paddle.utils.run_check()
import importlib
print(importlib.import_module("os.path").basename("a/b.txt"))
print(paddle.utils.flatten(7), paddle.utils.pack_sequence_as(1, [5]))
try:
    paddle.utils.pack_sequence_as([0, 0], [1])
except ValueError as e:
    print("ValueError", e)

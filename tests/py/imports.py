# importing a .py file beside the script, and builtin modules
import _helper_mod
import _helper_mod as hm
from _helper_mod import triple, CONST as C, Greeter
print(_helper_mod.double(4), hm.double(5), triple(2), C, hm is _helper_mod, _helper_mod.calls)
print(Greeter("ann").greet(), type(Greeter("b")).__name__, hm.__name__)
import math
import os.path
import os
from math import sqrt, pi as PI
print(math.floor(2.7), sqrt(16.0), round(PI, 5), os.path.join("a", "b"), os.path.basename("/x/y.txt"))
import sys
print(type(sys.argv).__name__, "math" in sys.modules, "_helper_mod" in sys.modules)
from _helper_mod import *
print(double(10), Greeter("z").name)
def local_import():
    import _helper_mod as inner
    from math import ceil
    return inner.triple(ceil(1.2))
print(local_import())
try:
    from _helper_mod import no_such_name
except ImportError as e:
    print("ImportError", "no_such_name" in str(e))
try:
    import no_such_module_here
except ModuleNotFoundError as e:
    print(e)

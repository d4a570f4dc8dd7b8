# the small standard-library subset: math, os.path, functools, copy, typing, collections, time
import math
print(math.sqrt(2), math.exp(1), math.log(math.e), math.log(8, 2), math.log2(1024), math.log10(0.001))
print(math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.5), math.fabs(-3), math.pow(2, 0.5), math.hypot(3, 4))
print(math.sin(0), math.cos(0), math.tanh(0.5), math.atan2(1, 1), math.degrees(math.pi), math.radians(180))
print(math.isnan(float("nan")), math.isinf(math.inf), math.isfinite(1.0), math.isclose(0.1 + 0.2, 0.3), math.gcd(12, 18))
print(math.factorial(10), math.prod([1, 2, 3, 4]), math.pi, math.e, math.erf(0.5), math.fmod(7, -3), math.copysign(1, -0.0))
try:
    math.sqrt(-1)
except ValueError as e:
    print(e)
try:
    math.log(0)
except ValueError as e:
    print(e)
import os.path as osp
print(osp.join("dir", "sub", "f.txt"), osp.join("/abs", "x"), osp.splitext("model.pdparams"), osp.dirname("a/b/c"), osp.split("a/b/c"))
print(osp.basename("a/b/"), osp.dirname("file"), osp.splitext(".hidden"), osp.exists("definitely/not/here"))
import functools
print(functools.reduce(lambda a, b: a * b, [1, 2, 3, 4]), functools.reduce(lambda a, b: a + b, [], 7))
add3 = functools.partial(lambda a, b, c: a + b + c, 1, c=3)
print(add3(2))
import copy
orig = {"a": [1, 2], "b": {"c": 3}}
sh = copy.copy(orig)
dp = copy.deepcopy(orig)
orig["a"].append(99)
orig["b"]["c"] = 0
print(sh, dp)
class P:
    def __init__(self):
        self.items = [1]
p1 = P()
p2 = copy.deepcopy(p1)
p2.items.append(2)
print(p1.items, p2.items, type(p2).__name__)
from typing import List, Dict, Optional, Tuple
def typed(xs: List[int], m: Optional[Dict[str, int]] = None) -> Tuple[int, int]:
    return len(xs), len(m or {})
print(typed([1, 2]), typed([], {"a": 1}))
y: int = 5
print(y)
from collections import OrderedDict
od = OrderedDict()
od["z"] = 1
od["a"] = 2
print(od, list(od.keys()), isinstance(od, dict), OrderedDict(), dict(od))
import time
t0 = time.time()
print(time.time() >= t0, time.perf_counter() > 0)
c0 = time.process_time()
sum(range(20000))
print(time.process_time() >= c0 >= 0)

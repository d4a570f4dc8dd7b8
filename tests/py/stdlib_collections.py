# collections: OrderedDict, defaultdict, namedtuple, deque, Counter
from collections import OrderedDict, defaultdict, namedtuple, deque, Counter
import collections
od = OrderedDict([("b", 1), ("a", 2)])
print(od, list(od))
dd = defaultdict(list)
dd["x"].append(1)
dd["y"]
print(dd, dict(dd), isinstance(dd, dict), dd["x"], len(dd), "z" in dd)
di = defaultdict(int)
for w in "a b a c a".split():
    di[w] += 1
print(sorted(di.items()), di.default_factory is int, defaultdict(None, {"k": 1}))
try:
    defaultdict()["missing"]
except KeyError as e:
    print("KeyError", e)
Point = namedtuple("Point", ["x", "y"])
p = Point(1, y=2)
print(p, p.x, p.y, p[0], p == (1, 2), isinstance(p, tuple), len(p), Point._fields, Point.__name__)
x, y = p
print(x + y, p._asdict(), p._replace(x=5), Point._make([7, 8]), tuple(p), hash(p) == hash((1, 2)))
Spec = namedtuple("Spec", "shape dtype name", defaults=["x"])
print(Spec([1, 3], "float32"), Spec(shape=[2], dtype="int64", name="ids"))
try:
    Point(1)
except TypeError as e:
    print(e)
q = deque([1, 2, 3], maxlen=4)
q.append(4)
q.append(5)
q.appendleft(0)
print(q, len(q), q[0], q[-1], list(q), 3 in q)
print(q.pop(), q.popleft(), q)
r = deque(range(5))
r.rotate(2)
print(r, deque())
try:
    deque().pop()
except IndexError as e:
    print(e)
c = Counter("abracadabra")
print(c, c["a"], c["z"], c.most_common(2))
c.update(["z", "z"])
print(c.most_common(1), sorted(c.elements())[:4], Counter(a=2) + Counter(a=1, b=1), Counter(a=3) - Counter(a=1, b=2))
print(Counter(), isinstance(c, dict), collections.OrderedDict is OrderedDict)

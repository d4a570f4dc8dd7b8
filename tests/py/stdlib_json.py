# json: CPython's exact text for dumps/dump, and loads/load
import json
import os
import tempfile
cfg = {"model": "resnet", "lr": 0.001, "layers": [1, 2, 3], "nested": {"b": None, "a": True},
       "empty": {}, "none": [], "pi": 3.141592653589793, "big": 1e20, "neg": -0.0, "t": (1, "x")}
print(json.dumps(cfg))
print(json.dumps(cfg, indent=2))
print(json.dumps(cfg, indent=4, sort_keys=True))
print(json.dumps(cfg, sort_keys=True, separators=(",", ":")))
print(json.dumps([1, [2, [3, {}]]], indent="\t"))
print(json.dumps({1: "a", 2.5: "b", True: "c", None: "d"}))
print(json.dumps("quote\" back\\ nl\n tab\t ctl\x01 é € 𝄞"), json.dumps("é", ensure_ascii=False))
print(json.dumps(float("nan")), json.dumps(float("inf")), json.dumps(-float("inf")), json.dumps(1 / 3), json.dumps(100.0))
print(json.dumps({"shape": [1, 3, 224, 224]}, indent=0))
text = '{"a": [1, 2.5, -3e2, true, false, null], "s": "x\\u00e9\\n\\"q\\" \\ud834\\udd1e", "o": {}, "l": []}'
obj = json.loads(text)
print(obj, type(obj["a"][2]).__name__, obj["s"])
print(json.loads("  42 "), json.loads("[NaN, Infinity, -Infinity]"), json.loads('"\\/"'))
print(json.loads(json.dumps(cfg, indent=2)) == json.loads(json.dumps(cfg)))
for bad in ["", "[1, 2", '{"a" 1}', '{"a": 1,}', "[1,]", "nul", '"abc', '{1: 2}', "[1] x", '"\\x"', "[1 2]"]:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(repr(bad), "->", e, isinstance(e, ValueError), e.pos)
try:
    json.dumps({"x": object()})
except TypeError as e:
    print(e)
try:
    json.dumps({(1, 2): 3})
except TypeError as e:
    print(e)
print(json.dumps({"x": {1, 2} and sorted({2, 1})}, default=str), json.dumps(object(), default=lambda o: "obj"))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "cfg.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
    with open(path) as f:
        back = json.load(f)
    print(back["layers"], back["nested"], back["t"])
    print(open(path).read())

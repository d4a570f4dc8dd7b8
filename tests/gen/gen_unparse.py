#!/usr/bin/env python3
"""gen_unparse.py - expected unparser output from CPython's ast.unparse; checks converted sources.

dy2st's unparser (translator/syntax/unparse.c) must print exactly what CPython
3.11's ast.unparse prints. For every Python file of the corpus

    tests/golden/ast/*.py         (the parser's corpus)
    tests/golden/unparse/*.py     (more constructs, quoting and precedence cases)
    tests/golden/transform/*.py   (the transforms' inputs; not *.converted.py)
    samples/*.py                  (the sample models)

this writes tests/golden/unparse/expected/<dir>/<name>.txt holding
ast.unparse(ast.parse(source)) followed by a newline (nothing for an empty
module), where <dir> is ast, unparse, transform or samples.

It then checks the transforms' expected outputs without producing them:
every tests/golden/transform/NAME.converted.py (and samples/NAME.converted.py
there for samples/NAME.py) must compile and must already be in ast.unparse's
canonical form (so it is what an unparser prints); where NAME.py defines
EXAMPLES = {"function": [args, ...]}, each listed function of
NAME.converted.py, run with the reference `_jst` helpers below (plain Python
semantics, as dy2st's helpers behave on Python values), must return, raise,
print and leave its arguments as the original function does; and every
diagnostic of NAME.diag must point at the construct it names in CPython's
tree.

Usage: gen_unparse.py            regenerate expected/ and run the checks
       gen_unparse.py --check    only run the checks
       gen_unparse.py --table    rewrite the table of unprintable code points
                                 in translator/syntax/unparse.c
"""
import ast
import contextlib
import copy
import io
import os
import re
import sys
import types

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = [
    ("ast", "tests/golden/ast"),
    ("unparse", "tests/golden/unparse"),
    ("transform", "tests/golden/transform"),
    ("samples", "samples"),
]


def corpus_files(rel):
    d = os.path.join(ROOT, rel)
    if not os.path.isdir(d):
        return []
    return sorted(f for f in os.listdir(d)
                  if f.endswith(".py") and not f.endswith(".converted.py"))


def write_if_changed(path, text):
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8", newline="") as f:
            old = f.read()
    if old != text:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        print("wrote", os.path.relpath(path, ROOT))


def gen_expected():
    for tag, rel in CORPUS:
        outdir = os.path.join(ROOT, "tests/golden/unparse/expected", tag)
        inputs = set(corpus_files(rel))
        if os.path.isdir(outdir):
            for old in sorted(os.listdir(outdir)):
                if old.endswith(".txt") and old[:-4] + ".py" not in inputs:
                    os.remove(os.path.join(outdir, old))
                    print("removed", os.path.join("tests/golden/unparse/expected", tag, old))
        for name in corpus_files(rel):
            with open(os.path.join(ROOT, rel, name), "rb") as f:
                src = f.read()
            text = ast.unparse(ast.parse(src))
            if text:
                text += "\n"
            out = os.path.join(ROOT, "tests/golden/unparse/expected", tag, name[:-3] + ".txt")
            write_if_changed(out, text)


def gen_table():
    ranges, start = [], None
    for c in range(0x110000):
        bad = not chr(c).isprintable()
        if bad and start is None:
            start = c
        elif not bad and start is not None:
            ranges.append((start, c - 1))
            start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    lines = ["static const uint32_t nonprintable[][2] = {"]
    row = []
    for a, b in ranges:
        row.append("{0x%X, 0x%X}," % (a, b))
        if len(row) == 6:
            lines.append("    " + " ".join(row))
            row = []
    if row:
        lines.append("    " + " ".join(row))
    lines.append("};")
    path = os.path.join(ROOT, "translator/syntax/unparse.c")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin = "/* BEGIN GENERATED nonprintable */\n"
    end = "/* END GENERATED nonprintable */"
    i, j = text.index(begin) + len(begin), text.index(end)
    write_if_changed(path, text[:i] + "\n".join(lines) + "\n" + text[j:])


# ---- reference helpers: the `_jst` API on plain Python values ----

class UndefinedVar:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "UndefinedVar(%r)" % self.name


def _pack(vals, n):
    if n == 0:
        return None
    if n == 1:
        return vals[0]
    return tuple(vals)


def _unpack(res, n):
    """The n values packed in res; checks the packing rule."""
    if n == 0:
        assert res is None, res
        return ()
    if n == 1:
        return (res,)
    assert isinstance(res, tuple) and len(res) == n, res
    return res


class Jst:
    UndefinedVar = UndefinedVar

    @staticmethod
    def IfElse(pred, true_fn, false_fn, args, names):
        assert isinstance(args, tuple) and isinstance(names, tuple)
        res = (true_fn if pred else false_fn)(*args)
        _unpack(res, len(names))
        return res

    @staticmethod
    def While(cond_fn, body_fn, loop_vars, names):
        n = len(names)
        assert len(loop_vars) == n
        vals = tuple(loop_vars)
        while cond_fn(*vals):
            vals = _unpack(body_fn(*vals), n)
        return _pack(vals, n)

    @staticmethod
    def For(iterable, body_fn, loop_vars, names, cond_fn=None):
        n = len(names)
        assert len(loop_vars) == n
        vals = tuple(loop_vars)
        for item in iterable:
            if cond_fn is not None and not cond_fn(*vals):
                break
            vals = _unpack(body_fn(item, *vals), n)
        return _pack(vals, n)

    @staticmethod
    def Range(*args):
        return range(*args)

    @staticmethod
    def Enumerate(x, start=0):
        return enumerate(x, start)

    @staticmethod
    def And(*fns):
        v = None
        for f in fns:
            v = f()
            if not v:
                return v
        return v

    @staticmethod
    def Or(*fns):
        v = None
        for f in fns:
            v = f()
            if v:
                return v
        return v

    @staticmethod
    def Not(x):
        return not x

    @staticmethod
    def IfExp(c, t, f):
        return t() if c else f()

    @staticmethod
    def Print(*args, **kw):
        print(*args, **kw)

    @staticmethod
    def Assert(test, msg=None):
        if not test:
            raise AssertionError(msg) if msg is not None else AssertionError()

    @staticmethod
    def Cast(x, to):
        return {"int": int, "float": float, "bool": bool}[to](x)

    @staticmethod
    def Len(x):
        return len(x)

    @staticmethod
    def Shape(x):
        return x.shape

    @staticmethod
    def Call(f):
        return f

    @staticmethod
    def Fmt(*parts):
        return "".join(format(p) for p in parts)

    @staticmethod
    def SetItem(x, key, value):
        x[key] = value
        return x


def stub_paddle():
    """A stand-in `paddle` package: the decorators and names the inputs use."""
    def identity(f=None, **kw):
        return f if f is not None else identity

    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m
    jit = module("paddle.jit", to_static=identity, not_to_static=identity)
    static = module("paddle.static", InputSpec=lambda *a, **k: None)
    functional = module("paddle.nn.functional")
    nn = module("paddle.nn", functional=functional)
    return module("paddle", jit=jit, static=static, nn=nn, to_tensor=lambda v: v)


def run_examples(name, src, converted):
    tree = ast.parse(src)
    examples = None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "EXAMPLES"):
            examples = ast.literal_eval(node.value)
    if not examples:
        return 0
    path = os.path.join(ROOT, "tests/golden/transform", name)
    paddle = stub_paddle()
    env0 = {"paddle": paddle, "__name__": "golden", "__file__": path}
    exec(compile(src, name, "exec"), env0)
    env1 = {"paddle": paddle, "_jst": Jst, "__name__": "golden", "__file__": path}
    # globals other than functions (constants) come from the original module
    for k, v in env0.items():
        if not isinstance(v, types.FunctionType) and k not in env1:
            env1[k] = v
    exec(compile(converted, name + ".converted", "exec"), env1)
    count = 0
    for fname, calls in examples.items():
        for args in calls:
            args = tuple(args) if isinstance(args, (list, tuple)) else (args,)
            want = outcome(env0[fname], args)
            got = outcome(env1[fname], args)
            if (want[0] == "raises" and want[1] in ("NameError", "UnboundLocalError")
                    and got[0] == "value" and has_undefined(got[1])):
                got = want  # reading a never-assigned variable: the helper's UndefinedVar
            if want != got:
                sys.exit("%s: %s%r: converted returns %r, original %r" % (name, fname, args, got, want))
            count += 1
    return count


def has_undefined(v):
    if isinstance(v, UndefinedVar):
        return True
    return isinstance(v, (tuple, list)) and any(has_undefined(e) for e in v)


def outcome(fn, args):
    """What a call returns or raises, with what it prints and its arguments afterwards."""
    args = copy.deepcopy(args)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            result = ("value", fn(*args))
        except Exception as e:  # the same exception type is expected
            result = ("raises", type(e).__name__)
    return result + (printed.getvalue(), args)


def check_converted(conv_path):
    """The converted source compiles and is in ast.unparse's canonical form."""
    with open(conv_path, encoding="utf-8") as f:
        conv = f.read()
    compile(conv, conv_path, "exec")
    canon = ast.unparse(ast.parse(conv))
    if (canon + "\n" if canon else "") != conv:
        sys.exit("%s: not in ast.unparse's canonical form" % os.path.relpath(conv_path, ROOT))
    return conv


# the construct each unsupported-syntax message names, as CPython's node type
DIAG_NODES = [
    ("'try' statement", (ast.Try, ast.TryStar)),
    ("'yield from'", (ast.YieldFrom,)),
    ("'yield'", (ast.Yield,)),
    ("'await'", (ast.Await,)),
    ("'match' statement", (ast.Match,)),
    ("'async def'", (ast.AsyncFunctionDef,)),
    ("'async for'", (ast.AsyncFor,)),
    ("'async with'", (ast.AsyncWith,)),
    ("global variable", (ast.Global,)),
    ("nonlocal variable", (ast.Nonlocal,)),
    ("'nonlocal' statement", (ast.Nonlocal,)),
]


def check_diag(name, src, diag_path):
    """Each diagnostic's line:col is where CPython puts the construct it names
    (for loop else-clauses: the `else` keyword)."""
    tree = ast.parse(src)
    lines = src.split("\n")
    count = 0
    with open(diag_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"([^:]+):(\d+):(\d+): (warning|error): (.*)", line)
            if not m:
                continue
            if m.group(1) != name:
                sys.exit("%s: diagnostic names file %s" % (diag_path, m.group(1)))
            ln, col, msg = int(m.group(2)), int(m.group(3)) - 1, m.group(5)
            count += 1
            if "... else'" in msg:
                if not lines[ln - 1][col:].startswith("else"):
                    sys.exit("%s:%d:%d: no 'else' there" % (name, ln, col + 1))
                continue
            kinds = next((k for key, k in DIAG_NODES if key in msg), None)
            if kinds is None:
                sys.exit("%s: unexpected message %r" % (diag_path, msg))
            if not any(isinstance(n, kinds) and n.lineno == ln and n.col_offset == col
                       for n in ast.walk(tree)):
                sys.exit("%s:%d:%d: no %s there" % (name, ln, col + 1, kinds[0].__name__))
    return count


def check_transform():
    d = os.path.join(ROOT, "tests/golden/transform")
    if not os.path.isdir(d):
        return
    nfiles = nruns = ndiags = 0
    for name in corpus_files("tests/golden/transform"):
        conv_path = os.path.join(d, name[:-3] + ".converted.py")
        if not os.path.exists(conv_path):
            sys.exit("%s: missing %s" % (name, os.path.relpath(conv_path, ROOT)))
        with open(os.path.join(d, name), encoding="utf-8") as f:
            src = f.read()
        conv = check_converted(conv_path)
        nruns += run_examples(name, src, conv)
        diag_path = os.path.join(d, name[:-3] + ".diag")
        if os.path.exists(diag_path):
            ndiags += check_diag(name, src, diag_path)
        nfiles += 1
    for name in corpus_files("samples"):
        conv_path = os.path.join(d, "samples", name[:-3] + ".converted.py")
        if not os.path.exists(conv_path):
            sys.exit("%s: missing %s" % (name, os.path.relpath(conv_path, ROOT)))
        check_converted(conv_path)
        nfiles += 1
    print("checked %d converted sources, %d example calls, %d diagnostics" % (nfiles, nruns, ndiags))


def main():
    args = sys.argv[1:]
    if args == ["--table"]:
        gen_table()
    elif args == ["--check"]:
        check_transform()
    elif not args:
        gen_expected()
        check_transform()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

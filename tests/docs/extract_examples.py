"""Extracts the code examples of Paddle's API docstrings from a Paddle wheel.

    python3 tests/docs/extract_examples.py WHEEL APIS OUTDIR

WHEEL is the pinned paddlepaddle wheel (a zip file), APIS is tests/docs/apis.txt
and OUTDIR a directory of the build tree. Only the standard library is used:
the wheel is never installed or imported; each listed API's source file is read
from the zip and parsed with ast, and its docstring taken from the definition
named in apis.txt.

Every `.. code-block:: python` block of a docstring is one example. A doctest
block (lines starting with `>>> ` and `... `) becomes a script the way doctest
runs it: the expected-output lines are dropped, statements marked
`# doctest: +SKIP` are left out, and a statement that is a bare expression
prints its repr when it is not None (as the interactive interpreter does). A
block without `>>>` is taken as it is. A block marked
`# doctest: +REQUIRES(env:GPU)` (or any other REQUIRES) is not extracted.

OUTDIR receives ID.py for each example, where ID is the API's qualified name
with `.exN` appended (N counts the API's blocks from 1), and index.txt, one
line per example: `ID SHA256 run` or `ID SHA256 excluded REASON` (the
exclusions come from apis.txt), plus `ID - skipped REASON` for blocks that
were not extracted. SHA256 is the digest of the script's text; the expected
outputs in tests/docs/expected/ record it, so a changed example is noticed.
"""
import ast
import hashlib
import os
import re
import sys
import textwrap
import zipfile

DIRECTIVE = re.compile(r"^(\s*)\.\.\s+code-block::\s*python\s*$")
SKIP = re.compile(r"#\s*doctest:\s*\+SKIP")
REQUIRES = re.compile(r"#\s*doctest:\s*\+REQUIRES\(([^)]*)\)")


def die(msg):
    sys.exit("extract_examples.py: error: " + msg)


def read_apis(path):
    """Returns ([(qualname, file, definition)], {id_or_qualname: reason})."""
    apis, excluded = [], {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            if words[0] == "exclude":
                if len(words) < 3:
                    die("%s:%d: 'exclude ID REASON' needs a reason" % (path, lineno))
                excluded[words[1]] = " ".join(words[2:])
            elif len(words) == 3:
                apis.append(tuple(words))
            else:
                die("%s:%d: expected 'QUALNAME FILE DEFINITION' or 'exclude ID REASON'"
                    % (path, lineno))
    return apis, excluded


def find_definition(tree, dotted):
    """The FunctionDef/ClassDef named by a dotted path (nested functions included)."""
    nodes = [tree]
    for name in dotted.split("."):
        found = None
        for parent in nodes:
            for node in ast.walk(parent):
                if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                        and node.name == name and node is not parent):
                    found = node
                    break
            if found:
                break
        if found is None:
            return None
        nodes = [found]
    return nodes[0]


def code_blocks(doc):
    """The bodies of the docstring's python code blocks, dedented."""
    lines = doc.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = DIRECTIVE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        i += 1
        body = []
        while i < len(lines):
            ln = lines[i]
            if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
                break
            body.append(ln)
            i += 1
        text = textwrap.dedent("\n".join(body))
        # directive options (:name: ...) come first
        out = [ln for ln in text.splitlines()]
        while out and (not out[0].strip() or re.match(r"^:\w[\w-]*:", out[0])):
            out.pop(0)
        blocks.append("\n".join(out).strip("\n"))
    if not blocks and ">>>" in doc:
        # no directive: the docstring's doctest lines form one block
        body = [ln.strip() for ln in doc.splitlines()
                if ln.strip().startswith((">>>", "..."))]
        blocks.append("\n".join(body))
    return blocks


def doctest_groups(block):
    """Splits a doctest block into statements: lists of source lines."""
    groups = []
    for ln in block.splitlines():
        s = ln.strip()
        if s.startswith(">>>"):
            groups.append([s[4:] if s.startswith(">>> ") else s[3:]])
        elif s.startswith("...") and groups and not ln.lstrip().startswith("...:"):
            # a continuation line ('...' alone is an empty continuation line)
            groups[-1].append(s[4:] if s.startswith("... ") else s[3:])
    return groups


def is_print_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "print")


def to_script(block):
    """The script a block runs as, or (None, reason) when it is not extracted."""
    req = REQUIRES.search(block)
    if req:
        return None, "the block is marked doctest +REQUIRES(%s)" % req.group(1)
    if ">>>" not in block:
        return block.rstrip() + "\n", None
    out = []
    for group in doctest_groups(block):
        src = "\n".join(group).rstrip()
        if SKIP.search(group[0]):
            continue
        try:
            tree = ast.parse(src)
        except SyntaxError:
            out.append(src)
            continue
        if (len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
                and not is_print_call(tree.body[0].value)):
            # doctest shows a bare expression's repr unless it is None
            out.append("_ = (\n%s\n)\nif _ is not None:\n    print(repr(_))" % src)
        else:
            out.append(src)
    return "\n".join(out).rstrip() + "\n", None


def main(argv):
    if len(argv) != 4:
        die("usage: extract_examples.py WHEEL APIS OUTDIR")
    wheel, apis_path, outdir = argv[1:]
    apis, excluded = read_apis(apis_path)
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith(".py") or old == "index.txt":
            os.remove(os.path.join(outdir, old))
    index = []
    seen = set()
    with zipfile.ZipFile(wheel) as zf:
        sources = {}
        for qualname, path, definition in apis:
            if qualname in seen:
                die("%s: %s listed twice" % (apis_path, qualname))
            seen.add(qualname)
            if path not in sources:
                try:
                    sources[path] = ast.parse(zf.read(path).decode("utf-8"))
                except KeyError:
                    die("%s: %s is not in the wheel" % (qualname, path))
            node = find_definition(sources[path], definition)
            if node is None:
                die("%s: no definition %s in %s" % (qualname, definition, path))
            doc = ast.get_docstring(node, clean=True) or ""
            blocks = code_blocks(doc)
            if not blocks:
                die("%s: the docstring of %s in %s has no code example"
                    % (qualname, definition, path))
            for n, block in enumerate(blocks, 1):
                ex = "%s.ex%d" % (qualname, n)
                script, why = to_script(block)
                if script is None:
                    index.append("%s - skipped %s" % (ex, why))
                    continue
                digest = hashlib.sha256(script.encode("utf-8")).hexdigest()
                with open(os.path.join(outdir, ex + ".py"), "w", encoding="utf-8") as f:
                    f.write(script)
                reason = excluded.get(ex) or excluded.get(qualname)
                if reason:
                    index.append("%s %s excluded %s" % (ex, digest, reason))
                else:
                    index.append("%s %s run" % (ex, digest))
    known = {line.split()[0] for line in index} | seen
    for key in excluded:
        if key not in known:
            die("%s: 'exclude %s' names no API or example" % (apis_path, key))
    with open(os.path.join(outdir, "index.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(index) + "\n")
    runs = sum(1 for line in index if line.split()[2] == "run")
    print("extract_examples.py: %d examples of %d APIs (%d to run) in %s"
          % (len(index), len(apis), runs, outdir))


if __name__ == "__main__":
    main(sys.argv)

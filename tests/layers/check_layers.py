#!/usr/bin/env python3
"""Checks the include rules between the translator's folders and the runtime.

    check_layers.py [SRCDIR]

Each C file belongs to a layer (its folder). A quoted #include is resolved as
the compiler does (the including file's folder, then translator/, runtime/,
include/) and the edge between the two layers must be allowed below. The
folder graph must have no cycle. Inside lib/paddle the files form floors
(FLOORS): a file may include headers of its own floor or lower ones, never of
a higher one; a lower floor asks a higher one through a hook it registers.
Two C files of the library (runtime/, translator/) may not share a base
name: their objects would collide in the library's archive.
Prints every violation as FILE:LINE: error: ... and exits 1 if there is one.
"""
import os
import re
import sys

# layer -> the layers it may include (besides itself)
ALLOWED = {
    "runtime": {"runtime/base", "include"},
    "runtime/base": set(),
    "syntax": {"runtime/base"},
    "transform": {"syntax", "runtime/base"},
    "interp": {"syntax", "runtime/base"},
    "lib": {"lib/paddle", "lib/numpy", "lib/std", "interp", "syntax", "transform", "runtime", "runtime/base"},
    "lib/paddle": {"interp", "syntax", "transform", "runtime", "runtime/base"},
    "lib/numpy": {"lib/paddle", "interp", "syntax", "runtime", "runtime/base"},
    "lib/std": {"interp", "syntax", "runtime", "runtime/base"},
    "tools": None,  # the CLI and tests may use anything
    "tests": None,
    "include": set(),
}

# lib/paddle floors, lowest first: a header's floor is its file's (name
# without extension); files not listed are on the top floor.
FLOORS_FILE = "translator/lib/paddle/FLOORS"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "translator":
        if len(parts) > 2 and parts[1] == "lib" and len(parts) > 3:
            return "lib/" + parts[2]
        if len(parts) > 2:
            return parts[1]
        return "translator"
    if parts[0] == "runtime":
        return "runtime/base" if parts[-1] in ("base.h", "base.c") else "runtime"
    return parts[0]


def resolve(src, rel, name):
    for d in (os.path.dirname(rel), "translator", "runtime", "include"):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def floors(src):
    path = os.path.join(src, FLOORS_FILE)
    fl = {}
    if not os.path.isfile(path):
        return fl
    with open(path) as f:
        level = 0
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            for name in line:
                fl[name] = level
            level += 1
    return fl


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
    errors = []
    edges = {}
    fl = floors(src)
    top = max(fl.values()) + 1 if fl else 0
    for top_dir in ("translator", "runtime", "tools", "include"):
        for root, _, files in os.walk(os.path.join(src, top_dir)):
            for fn in sorted(files):
                if not fn.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(root, fn), src)
                if "/grammar/" in rel:
                    continue
                la = layer_of(rel)
                with open(os.path.join(src, rel), errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = resolve(src, rel, m.group(1))
                        if target is None:
                            continue  # generated or system header
                        lb = layer_of(target)
                        if lb != la:
                            edges.setdefault(la, set()).add(lb)
                            allowed = ALLOWED.get(la, set())
                            if allowed is not None and lb not in allowed:
                                errors.append("%s:%d: error: %s includes %s: layer %s may not use %s"
                                              % (rel, lineno, rel, target, la, lb))
                        elif la == "lib/paddle" and fl:
                            a = fl.get(os.path.splitext(fn)[0], top)
                            b = fl.get(os.path.splitext(os.path.basename(target))[0], top)
                            if b > a:
                                errors.append("%s:%d: error: %s (floor %d) includes %s (floor %d): a lower "
                                              "floor asks a higher one through a hook"
                                              % (rel, lineno, rel, a, target, b))
    # no two library sources with the same base name
    seen = {}
    for top_dir in ("translator", "runtime"):
        for root, _, files in os.walk(os.path.join(src, top_dir)):
            for fn in files:
                if fn.endswith(".c") and "/grammar/" not in root:
                    rel = os.path.relpath(os.path.join(root, fn), src)
                    if fn in seen:
                        errors.append("%s:1: error: %s has the same base name as %s (their objects "
                                      "collide in the library)" % (rel, rel, seen[fn]))
                    seen[fn] = rel
    # no cycle between layers (tools/tests excluded: they sit on top)
    graph = {k: v for k, v in edges.items() if ALLOWED.get(k, set()) is not None}
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                cyc = path[path.index(m):] + [m] if m in path else [n, m]
                errors.append("error: include cycle between layers: %s" % " -> ".join(cyc))
            elif m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])
    for e in errors:
        print(e)
    if errors:
        return 1
    print("check_layers: %d layers, no violation" % len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())

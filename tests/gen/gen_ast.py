#!/usr/bin/env python3
"""gen_ast.py - writes the expected AST dumps for tests/golden/ast from CPython's own parser.

For every tests/golden/ast/NAME.py this writes NAME.ast: the module parsed by
CPython's `ast` module, dumped in the canonical text form that dy2st's AST
printer (translator/syntax/ast.c, d2_ast_print) produces:

  node  = "(" Kind [" @" L ":" C "-" EL ":" EC] fields ")"

Kind is the node's class name; the position is lineno:col_offset-end_lineno:
end_col_offset (columns in UTF-8 bytes) on kinds that have positions, except
on the parts of a JoinedStr (its Constant/FormattedValue items and their
format_spec), whose positions CPython does not define usefully. Fields come in
_fields order (type_comment and type_ignores left out), each " name=value";
if any field holds a node or a non-empty list of nodes, every field goes on a
line of its own, indented two spaces deeper than the node's line. A list of
nodes prints "[" then each item on its own line two spaces deeper, then "]"
right after the last item; other lists print inline, space separated.

The files under tests/golden/ast/errors are broken inputs; their .err files
hold dy2st's expected diagnostics, written by hand. `gen_ast.py --errors`
prints CPython's verdict on each of them (line, column, message) to review
those expectations against.

Run it with CPython 3.11: other versions differ in f-string details.

Usage: gen_ast.py            regenerate every golden .ast file
       gen_ast.py FILE...    print the dumps of FILEs to stdout
       gen_ast.py --errors   show CPython's errors for the broken inputs
"""
import ast
import os
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

SKIP_FIELDS = {"type_comment", "type_ignores"}
SCALAR_LISTS = {("Global", "names"), ("Nonlocal", "names"),
                ("MatchClass", "kwd_attrs"), ("Compare", "ops")}
SINGLETONS = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)


def q_str(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def q_bytes(b):
    out = []
    for o in b:
        ch = chr(o)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o >= 0x7F:
            out.append("\\x%02x" % o)
        else:
            out.append(ch)
    return 'b"' + "".join(out) + '"'


def const(v):
    if v is None or v is True or v is False:
        return repr(v)
    if v is Ellipsis:
        return "Ellipsis"
    if isinstance(v, str):
        return q_str(v)
    if isinstance(v, bytes):
        return q_bytes(v)
    if isinstance(v, (int, float, complex)):
        return repr(v)
    raise TypeError(type(v))


def is_node_list(kind, field, v):
    return isinstance(v, list) and (kind, field) not in SCALAR_LISTS


def scalar(kind, field, v):
    if isinstance(v, SINGLETONS):
        return type(v).__name__
    if isinstance(v, list):
        return "[" + " ".join(scalar(kind, field, x) for x in v) + "]"
    if field in ("value",) and kind in ("Constant", "MatchSingleton"):
        return const(v)
    if isinstance(v, str):
        return q_str(v)
    if v is None:
        return "None"
    if isinstance(v, int):
        return str(v)
    raise TypeError((kind, field, v))


def dump(node, indent, nopos, out):
    if node is None:
        out.append("None")
        return
    kind = type(node).__name__
    out.append("(" + kind)
    if not nopos and "lineno" in node._attributes:
        out.append(" @%d:%d-%d:%d" % (node.lineno, node.col_offset,
                                       node.end_lineno, node.end_col_offset))
    fields = [f for f in node._fields if f not in SKIP_FIELDS]
    values = [getattr(node, f, None) for f in fields]
    nested = any(isinstance(v, ast.AST) and not isinstance(v, SINGLETONS)
                 or (is_node_list(kind, f, v) and v) for f, v in zip(fields, values))
    for f, v in zip(fields, values):
        out.append("\n" + " " * (indent + 2) if nested else " ")
        out.append(f + "=")
        child_nopos = kind == "JoinedStr" or (kind == "FormattedValue" and f == "format_spec")
        if is_node_list(kind, f, v):
            out.append("[")
            for item in v:
                out.append("\n" + " " * (indent + 4))
                dump(item, indent + 4, child_nopos, out)
            out.append("]")
        elif isinstance(v, ast.AST) and not isinstance(v, SINGLETONS):
            dump(v, indent + 2, child_nopos, out)
        else:
            out.append(scalar(kind, f, v))
    out.append(")")


def dump_source(src, filename):
    tree = ast.parse(src, filename)
    out = []
    dump(tree, 0, False, out)
    return "".join(out) + "\n"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def show_errors(gold):
    edir = os.path.join(gold, "errors")
    for name in sorted(os.listdir(edir)):
        if not name.endswith(".py"):
            continue
        try:
            compile(read(os.path.join(edir, name)), name, "exec", ast.PyCF_ONLY_AST)
            print("%s: accepted by CPython" % name)
        except (SyntaxError, ValueError) as e:
            print("%s:%s:%s: %s" % (name, getattr(e, "lineno", "?"), getattr(e, "offset", "?"),
                                    getattr(e, "msg", e)))


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("gen_ast.py: needs CPython 3.11 (this is %d.%d)" % sys.version_info[:2])
    here = os.path.dirname(os.path.abspath(__file__))
    gold = os.path.join(here, "..", "golden", "ast")
    if sys.argv[1:] == ["--errors"]:
        show_errors(gold)
        return
    if len(sys.argv) > 1:
        for path in sys.argv[1:]:
            sys.stdout.write(dump_source(read(path), path))
        return
    for name in sorted(os.listdir(gold)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(gold, name)
        text = dump_source(read(path), name)
        with open(path[:-3] + ".ast", "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


if __name__ == "__main__":
    main()

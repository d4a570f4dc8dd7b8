"""Compares an example's output with the output real Paddle printed.

    python3 tests/docs/compare_output.py EXPECTED ACTUAL

EXPECTED is a tests/docs/expected/ID.out (its `# sha256` first line is
skipped), ACTUAL what dy2st printed. The texts are split into numbers and the
text between them. The text must be equal, except that spaces are not compared
(column alignment and sign padding follow the numbers' widths) and object addresses (`at 0x7f..`) are not compared;
each number must be within
rtol 1e-5 and atol 1e-6 of Paddle's (nan matches nan, inf matches inf of the
same sign). Exit status 0 when they match, 1 with the first difference
printed otherwise.
"""
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")
RTOL, ATOL = 1e-5, 1e-6


def tokens(text):
    """[(kind, value, line)]: ('t', text) and ('n', float) in order."""
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        pos = 0
        for m in NUMBER.finditer(line):
            gap = line[pos:m.start()].replace(" ", "")
            if gap:
                out.append(("t", gap, lineno))
            out.append(("n", m.group(0), lineno))
            pos = m.end()
        gap = line[pos:].replace(" ", "")
        if gap:
            out.append(("t", gap, lineno))
        out.append(("t", "\n", lineno))
    return out


def close(a, b):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= ATOL + RTOL * abs(x)


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        want = f.read()
    if want.startswith("# sha256 "):
        want = want.split("\n", 1)[1] if "\n" in want else ""
    with open(argv[2], encoding="utf-8", errors="replace") as f:
        got = f.read()
    # object addresses differ from run to run (gen_expected.py wrote Paddle's so)
    got = re.sub(r"\bat 0x[0-9a-fA-F]+", "at 0x...", got)
    a, b = tokens(want), tokens(got)
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b):
            extra = (b if i < len(b) else a)[i]
            print("output %s at line %d" % ("has extra text" if i < len(b) else "ends early",
                                            extra[2]))
            return 1
        ka, va, la = a[i]
        kb, vb, lb = b[i]
        if ka != kb or (ka == "t" and va != vb) or (ka == "n" and not close(va, vb)):
            print("expected line %d: %s" % (la, want.splitlines()[la - 1]))
            print("got      line %d: %s" % (lb, got.splitlines()[lb - 1] if got else ""))
            print("first difference: expected %r, got %r" % (va, vb))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/bin/sh
# test_onnx_errors.sh - 'dy2st export' on bad input: each is a clear error with exit status 1
# (2 for a usage error), and no output file is left behind. Needs no Python.
#   an op with no ONNX mapping (tests/onnx/no_mapping.d2p: cholesky) names the op and its line;
#   an op that needs a newer opset (tests/onnx/needs_opset16.d2p: put_along_axis with reduce
#   "add" -> ScatterElements with a reduction) says which;
#   an unwritable output path, a corrupt saved model, an opset out of range, and options that
#   only apply to FILE.py.
. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
make_tmp onnx-errors
T="$top_srcdir/tests/onnx"
S="$top_srcdir/samples"

expect 0 "--opset N                  the ONNX opset, 13 (default) to 21" "$DY2ST" help export

expect_exact 1 "dy2st: error: $T/no_mapping.d2p: line 7:13: op cholesky: no ONNX mapping: ONNX has no operator for it" \
    "$DY2ST" export "$T/no_mapping.d2p" -o "$TMP/a.onnx"
[ ! -e "$TMP/a.onnx" ] || fail "no_mapping.d2p left $TMP/a.onnx"

expect_exact 1 "dy2st: error: $T/needs_opset16.d2p: line 12:9: op put_along_axis: needs ONNX opset 16 or later (ScatterElements), exporting opset 13: use --opset 16" \
    "$DY2ST" export "$T/needs_opset16.d2p" -o "$TMP/b.onnx"
[ ! -e "$TMP/b.onnx" ] || fail "needs_opset16.d2p left $TMP/b.onnx"
expect 0 "exported $TMP/b.onnx" "$DY2ST" export "$T/needs_opset16.d2p" --opset 16 -o "$TMP/b.onnx"
[ -s "$TMP/b.onnx" ] || fail "--opset 16 wrote no $TMP/b.onnx"

# an op mapped for some dtypes only: erfinv of float64 says why
printf 'block ^0 (y : float64[-1]) {\n  x : float64[-1] = erfinv(y) loc(3:7)\n  return x\n}\n' \
    >"$TMP/erfinv64.d2p"
expect 1 "line 3:7: op erfinv: erfinv of float64: exact only for float32" \
    "$DY2ST" export "$TMP/erfinv64.d2p" -o "$TMP/g.onnx"
[ ! -e "$TMP/g.onnx" ] || fail "erfinv64.d2p left $TMP/g.onnx"

# a model written through the whole path, then the failures around it
expect 0 "exported $TMP/m.onnx" "$DY2ST" export "$S/programs/mlp_loop.d2p" -o "$TMP/m.onnx"
expect_exact 1 "dy2st: error: -o $TMP/no/such/dir/m.onnx: cannot create: No such file or directory" \
    "$DY2ST" export "$S/programs/mlp_loop.d2p" -o "$TMP/no/such/dir/m.onnx"
mkdir "$TMP/isdir.onnx"
expect 1 "dy2st: error: -o $TMP/isdir.onnx: write failed: Is a directory" \
    "$DY2ST" export "$S/programs/mlp_loop.d2p" -o "$TMP/isdir.onnx"
[ -z "$(ls "$TMP" | grep '\.tmp')" ] || fail "a temporary file was left in $TMP"

"$DY2ST" save "$S/simple_fc.py" --params "$top_srcdir/tests/oracle/expected/simple_fc.npz" \
    -o "$TMP/fc.dy2st" >/dev/null 2>&1 || fail "dy2st save simple_fc"
head -c 200 "$TMP/fc.dy2st" >"$TMP/cut.dy2st"
expect 1 "dy2st: error: $TMP/cut.dy2st: file size is 200 bytes but the header records" \
    "$DY2ST" export "$TMP/cut.dy2st" -o "$TMP/c.onnx"
printf 'not a model\n' >"$TMP/junk.dy2st"
expect 1 "dy2st: error: $TMP/junk.dy2st:1:" "$DY2ST" export "$TMP/junk.dy2st" -o "$TMP/c.onnx"
expect 1 "dy2st: error: $TMP/none.dy2st" "$DY2ST" export "$TMP/none.dy2st" -o "$TMP/c.onnx"
[ ! -e "$TMP/c.onnx" ] || fail "a failed export left $TMP/c.onnx"

expect 2 "dy2st: error: --opset 12: supported opsets are 13 to 21" \
    "$DY2ST" export "$TMP/fc.dy2st" --opset 12 -o "$TMP/d.onnx"
expect 2 "dy2st: error: --opset needs a number" "$DY2ST" export "$TMP/fc.dy2st" --opset x -o "$TMP/d.onnx"
expect 2 "dy2st: error: no output file given (-o OUT)" "$DY2ST" export "$TMP/fc.dy2st"
expect 2 "dy2st: error: --input, --params and --no-fallback apply to FILE.py only" \
    "$DY2ST" export "$TMP/fc.dy2st" --input x:float32[1,4] -o "$TMP/d.onnx"

# a converted model whose op cannot be exported: a compiler-style error at the op's place in
# the file (erfinv of float64, which only float32 can be exported for)
cat >"$TMP/erfinv.py" <<'PY'
import paddle


@paddle.jit.to_static
def factor(x):
    y = x + 1.0
    return paddle.erfinv(y)


INPUT_SPEC = [paddle.static.InputSpec([3, 3], "float64", "x")]
PY
expect_exact 1 "$TMP/erfinv.py:7:12: error: op erfinv: erfinv of float64: exact only for float32 (ONNX Runtime has no float64 Erf for the Newton steps that reach float64 precision)
    return paddle.erfinv(y)
           ^" "$DY2ST" export "$TMP/erfinv.py:factor" -o "$TMP/e.onnx"
[ ! -e "$TMP/e.onnx" ] || fail "a failed export left $TMP/e.onnx"

# the same through paddle.onnx.export in a script
cat >"$TMP/erfinv_script.py" <<PY
import paddle


@paddle.jit.to_static
def factor(x):
    return paddle.erfinv(x)


try:
    paddle.onnx.export(factor, "$TMP/f", input_spec=[paddle.static.InputSpec([3, 3], "float64", "x")])
except Exception as e:
    print(type(e).__name__, e)
PY
expect 0 "op erfinv: erfinv of float64: exact only for float32" "$DY2ST" exec "$TMP/erfinv_script.py"
finish

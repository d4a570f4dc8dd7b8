#!/bin/sh
# test_cli.sh - the dy2st command: run (text-form and saved models), show, help, errors and exit codes.
# Expected outputs are .npy files NumPy wrote (tests/gen/gen_npy.py); they are compared byte for byte.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st

GOLD="$top_srcdir/tests/golden/cli/mlp_loop"
SAMPLE="$top_srcdir/samples/programs/mlp_loop.d2p"
make_tmp cli

# same_file A B: byte-for-byte equal
same_file() {
    checks=$((checks + 1))
    cmp -s "$1" "$2" || fail "$1 differs from $2"
}

# ---- version and help
expect 0 "dy2st 0." "$DY2ST" --version
expect 0 "commands:" "$DY2ST" help
expect 0 "commands:" "$DY2ST" --help
expect 0 "--output-dir DIR" "$DY2ST" help run
expect 0 "--dot" "$DY2ST" show --help
expect 2 "dy2st: error: unknown command 'nosuch'" "$DY2ST" help nosuch
expect 2 "dy2st: error: unknown command 'frobnicate'" "$DY2ST" frobnicate
expect 2 "usage: dy2st COMMAND" "$DY2ST"
expect 2 "dy2st: error: unknown option '--frob'" "$DY2ST" --frob

# ---- run: text form and saved model give NumPy's outputs exactly
for model in "$SAMPLE" "$GOLD/mlp_loop.d2m"; do
    out="$TMP/out-$(basename "$model")"
    expect 0 "logits: float32[5,3] -> $out/logits.npy" \
        "$DY2ST" run "$model" --input "x=$GOLD/x.npy" --output-dir "$out"
    for name in logits steps positive; do
        same_file "$out/$name.npy" "$GOLD/$name.npy"
    done
done
# a data-dependent cond, both branches
for branch in pos neg; do
    expect 0 "y: float32[6] -> $TMP/sc-$branch/y.npy" "$DY2ST" run "$top_srcdir/samples/programs/sign_cond.d2p" \
        --input "x=$top_srcdir/tests/golden/cli/sign_cond/x_$branch.npy" --output-dir "$TMP/sc-$branch"
    same_file "$TMP/sc-$branch/y.npy" "$top_srcdir/tests/golden/cli/sign_cond/y_$branch.npy"
done
# option spellings: -i, --input=, -o, --device cpu, options before MODEL
expect 0 "" "$DY2ST" run -i "x=$GOLD/x.npy" -o "$TMP/o2" --device cpu "$SAMPLE"
same_file "$TMP/o2/logits.npy" "$GOLD/logits.npy"
expect 0 "" "$DY2ST" run "$SAMPLE" --input="x=$GOLD/x.npy" --output-dir="$TMP/o3" --device=cpu
same_file "$TMP/o3/positive.npy" "$GOLD/positive.npy"
# the OpenCL backend gives the same bytes, where a device exists
if "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --output-dir "$TMP/ocl" --device opencl \
        >"$TMP/ocl.log" 2>&1; then
    for name in logits steps positive; do
        same_file "$TMP/ocl/$name.npy" "$GOLD/$name.npy"
    done
    expect 0 "" env DY2ST_DEVICE=opencl "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --output-dir "$TMP/ocl2"
    same_file "$TMP/ocl2/logits.npy" "$GOLD/logits.npy"
else
    grep -q "OpenCL" "$TMP/ocl.log" || fail "--device opencl failed without naming OpenCL"
fi

# without --output-dir: a summary of each output
expect 0 "logits: float32[5,3] = [-4.29297, 7.4707, -0.150391, 0.901367, 0.624512, 0.315918, -3.30273, 12.623, ...] (15 values, min -4.29297, max 12.623, mean" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy"
expect 0 "steps: int64[] = 3" "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy"
expect 0 "positive: bool[5,3] = [false, true, false, true, true, true, false, true, ...] (11 of 15 true)" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy"

# ---- run: errors (exit 1) and usage errors (exit 2)
expect_exact 1 "dy2st: error: $SAMPLE: missing input 'x' (float32[-1,4]); pass --input x=FILE.npy" \
    "$DY2ST" run "$SAMPLE"
expect 1 "dy2st: error: $SAMPLE has no input named 'y' (its inputs: x)" \
    "$DY2ST" run "$SAMPLE" --input "y=$GOLD/x.npy"
expect 1 "dy2st: error: input 'x' is given twice" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --input "x=$GOLD/x.npy"
expect_exact 1 "dy2st: error: --input x=$GOLD/x_f64.npy: expected float32, got float64" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x_f64.npy"
expect_exact 1 "dy2st: error: --input x=$GOLD/x_bad_shape.npy: expected shape [-1,4], got [5,3]" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x_bad_shape.npy"
expect_exact 1 "dy2st: error: --input x=$TMP/none.npy: cannot open: No such file or directory" \
    "$DY2ST" run "$SAMPLE" --input "x=$TMP/none.npy"
expect 1 "unsupported dtype '<c8'" \
    "$DY2ST" run "$SAMPLE" --input "x=$top_srcdir/tests/golden/npy/bad_complex.npy"
expect 1 "dy2st: error: OpenCL" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --device opencl:99
expect 1 "dy2st: error: unknown device 'tpu'" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --device tpu
expect 1 "dy2st: error: $TMP/missing.d2m: cannot open" "$DY2ST" run "$TMP/missing.d2m"
head -c 300 "$GOLD/mlp_loop.d2m" >"$TMP/cut.d2m"
expect 1 "dy2st: error: $TMP/cut.d2m: file size is 300 bytes" "$DY2ST" run "$TMP/cut.d2m"
printf 'DY2STMDL\002\000\000\000' >"$TMP/v2.d2m"
expect 1 "unsupported model format version 2 (this build reads 1)" "$DY2ST" run "$TMP/v2.d2m"
printf 'block ^0 () {\n  retur\n}\n' >"$TMP/bad.d2p"
# an error in a text-form Program: one prefix, the line and a caret
expect 1 "$TMP/bad.d2p:2:" "$DY2ST" run "$TMP/bad.d2p"
checks=$((checks + 1))
head -n 1 "$TMP/out" | grep -q "^$TMP/bad.d2p:2:[0-9]*: error: " || fail "run bad.d2p: no FILE:LINE:COL: error: line"
grep -q "dy2st: error:" "$TMP/out" && fail "run bad.d2p: two error prefixes"
sed -n 2p "$TMP/out" | grep -qx "  retur" || fail "run bad.d2p: no source line"
sed -n 3p "$TMP/out" | grep -q "^ *^$" || fail "run bad.d2p: no caret"
printf 'block ^0 (x : float32[-1]) {\n  y : float32[-1] = relu(q)\n  return y\n}\n' >"$TMP/undef.d2p"
expect_exact 1 "$TMP/undef.d2p:2:26: error: undefined variable 'q'
  y : float32[-1] = relu(q)
                         ^" "$DY2ST" show "$TMP/undef.d2p"
: >"$TMP/file"
expect 1 "cannot create directory" \
    "$DY2ST" run "$SAMPLE" --input "x=$GOLD/x.npy" --output-dir "$TMP/file"
expect 2 "dy2st: error: no MODEL given" "$DY2ST" run
expect 2 "dy2st: error: bad --input 'x' (expected NAME=FILE.npy)" "$DY2ST" run "$SAMPLE" --input x
expect 2 "dy2st: error: --input needs NAME=FILE.npy" "$DY2ST" run "$SAMPLE" --input
expect 2 "dy2st: error: unknown option '--bogus'" "$DY2ST" run "$SAMPLE" --bogus
expect 2 "dy2st: error: unexpected argument" "$DY2ST" run "$SAMPLE" "$SAMPLE"

# ---- the manual page names every command the tool has
checks=$((checks + 1))
"$DY2ST" help >"$TMP/help" 2>&1 || fail "dy2st help failed"
cmds=$(sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$TMP/help")
[ -n "$cmds" ] || fail "no commands in 'dy2st help'"
MAN="$top_srcdir/doc/dy2st.1"
for c in $cmds; do
    # each command opens a .TP entry of COMMANDS: ".B NAME" or ".BI \"NAME ..."
    checks=$((checks + 1))
    grep -qE "^\.BI? \"?$c( |\"|$)" "$MAN" || fail "doc/dy2st.1 does not describe 'dy2st $c'"
    # and every option its help lists appears, with roff's escaped hyphens
    for opt in $("$DY2ST" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        checks=$((checks + 1))
        grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$MAN" ||
            fail "doc/dy2st.1 does not mention $opt (dy2st $c)"
    done
done

# ---- show
expect 0 "steps : int64[], h2 : float32[-1,8] = while_loop(i0, h1)" "$DY2ST" show "$SAMPLE"
expect 0 "param fc1.weight : float32[4,8]" "$DY2ST" show "$GOLD/mlp_loop.d2m"
expect 0 "param fc2.bias : float32[3] = [1, 1, 0]" "$DY2ST" show --data "$GOLD/mlp_loop.d2m"
expect 0 "digraph" "$DY2ST" show --dot "$SAMPLE"
expect 2 "dy2st: error: no MODEL given" "$DY2ST" show
expect 2 "do not go together" "$DY2ST" show --dot --data "$SAMPLE"
expect 1 "dy2st: error: $TMP/missing.d2m: cannot open" "$DY2ST" show "$TMP/missing.d2m"
# show --passes: the rewritten Program and each pass's count; a bad list is a usage error
cat >"$TMP/fuse.d2p" <<'EOF'
param w : float32[1,1,1,1] = [2]

block ^0 (x : float32[1,1,2,2]) {
  c : float32[1,1,2,2] = conv2d(x, w, _)
  r : float32[1,1,2,2] = relu(c)
  return r
}
EOF
expect 0 "r : float32[1,1,2,2] = conv2d_fused(x, w, _, _)" "$DY2ST" show --passes all "$TMP/fuse.d2p"
expect 0 "pass fuse_conv: 1 rewrite" "$DY2ST" show --passes=fuse_conv,dce "$TMP/fuse.d2p"
expect 0 "r : float32[1,1,2,2] = relu(c)" "$DY2ST" show --passes basic "$TMP/fuse.d2p"
expect 2 "unknown pass 'fusion'" "$DY2ST" show --passes fusion "$TMP/fuse.d2p"
# the elementwise fusions: an LSTM cell's update becomes one fused_elementwise, norm(x + y) one
# add_layer_norm, and show counts each
cat >"$TMP/chain.d2p" <<'EOF'
param w : float32[4] = [1, 0.5, -2, 0.25]

block ^0 (f : float32[2,4], c : float32[2,4], i : float32[2,4], g : float32[2,4]) {
  sf : float32[2,4] = sigmoid(f)
  fc : float32[2,4] = multiply(sf, c)
  si : float32[2,4] = sigmoid(i)
  tg : float32[2,4] = tanh(g)
  ig : float32[2,4] = multiply(si, tg)
  c2 : float32[2,4] = add(fc, ig)
  s : float32[2,4] = add(c2, f)
  n : float32[2,4] = layer_norm(s, w, _)
  return c2, n
}
EOF
expect 0 'c2 : float32[2,4] = fused_elementwise(f, c, i, g) {expr = "$0 sigmoid $1 multiply $2 sigmoid $3 tanh multiply add"}' \
    "$DY2ST" show --passes all "$TMP/chain.d2p"
expect 0 "n : float32[2,4] = add_layer_norm(c2, f, w, _)" "$DY2ST" show --passes all "$TMP/chain.d2p"
expect 0 "pass fuse_elementwise: 1 rewrite" "$DY2ST" show --passes=fuse_add_norm,fuse_elementwise "$TMP/chain.d2p"
expect 0 "pass fuse_add_norm: 1 rewrite" "$DY2ST" show --passes=fuse_add_norm,fuse_elementwise "$TMP/chain.d2p"

# show prints without data what show --data prints, and the text form reads back
"$DY2ST" show --data "$SAMPLE" >"$TMP/data.d2p" 2>&1 || fail "show --data failed"
expect 0 "" "$DY2ST" run "$TMP/data.d2p" --input "x=$GOLD/x.npy" --output-dir "$TMP/o4"
same_file "$TMP/o4/logits.npy" "$GOLD/logits.npy"

# the hand-written parser runs first and hands what it lacks (here a
# non-ASCII name) to tree-sitter; DY2ST_PARSER=treesitter skips it
printf 'caf\303\251 = "one"\nprint(caf\303\251)\n' >"$TMP/accent.py"
expect 0 "pyparse: gave up" env DY2ST_CACHE=off DY2ST_PYPARSE_DEBUG=1 "$DY2ST" exec "$TMP/accent.py"
expect_exact 0 "one" env DY2ST_CACHE=off DY2ST_PYPARSE_DEBUG=1 DY2ST_PARSER=treesitter \
    "$DY2ST" exec "$TMP/accent.py"

finish

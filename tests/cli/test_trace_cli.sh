#!/bin/sh
# test_trace_cli.sh - trace mode from the command line: the scripts of tests/trace under
# 'dy2st exec' (stdout equal to NAME.out, made by real Paddle's eager run, values printed rounded
# to 4 decimals; warnings equal to NAME.warn), --no-fallback, and 'dy2st trace'.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st

make_tmp trace-cli
S="$top_srcdir/samples"
T="$top_srcdir/tests/trace"
E="$top_srcdir/tests/oracle/expected"

# ---- the scripts: each runs in a scratch directory under its own name
cat >"$TMP/probe.py" <<PY
import paddle
paddle.static.Executor
paddle.static.load_inference_model
PY
have_executor=1
"$DY2ST" exec "$TMP/probe.py" >/dev/null 2>&1 || have_executor=0
for py in "$T"/*.py; do
    name=$(basename "$py" .py)
    if [ "$name" = doc_save_inference_model ] && [ "$have_executor" -eq 0 ]; then
        echo "SKIP: $name (no paddle.static.Executor)"
        continue
    fi
    checks=$((checks + 1))
    d="$TMP/run_$name"
    mkdir -p "$d" && cp "$py" "$d/"
    (cd "$d" && "$DY2ST" exec "$name.py" >out 2>err)
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$name.py exited $rc"
        sed 's/^/    /' "$d/err" | head -n 30
        continue
    fi
    if ! cmp -s "$d/out" "$T/$name.out"; then
        fail "$name.py: output differs from $name.out"
        diff "$T/$name.out" "$d/out" | head -n 20 | sed 's/^/    /'
    fi
    grep ': warning: ' "$d/err" >"$d/warn"
    if [ -f "$T/$name.warn" ]; then
        cmp -s "$d/warn" "$T/$name.warn" || {
            fail "$name.py: warnings differ from $name.warn"
            diff "$T/$name.warn" "$d/warn" | sed 's/^/    /'
        }
    elif [ -s "$d/warn" ]; then
        fail "$name.py: unexpected warnings"
        sed 's/^/    /' "$d/warn"
    fi
done

# ---- --no-fallback: unsupported syntax is an error at the construct
cp "$T/fallback_try.py" "$TMP/fallback_try.py"
expect 1 "fallback_try.py:27:9: error: 'try' statement cannot be converted; forward() cannot be converted to a static program (with --no-fallback it is not traced instead)" \
    "$DY2ST" exec --no-fallback "$TMP/fallback_try.py"

# ---- dy2st trace: a saved model by tracing, equal to the converted one
expect 0 "saved $TMP/fc_trace.dy2st" "$DY2ST" trace "$S/simple_fc.py" \
    --params "$E/simple_fc.npz" -o "$TMP/fc_trace.dy2st"
expect 0 "saved $TMP/fc_save.dy2st" "$DY2ST" save "$S/simple_fc.py" \
    --params "$E/simple_fc.npz" -o "$TMP/fc_save.dy2st"
expect 0 "param linear_0.w_0 : float32[784,10]" "$DY2ST" show "$TMP/fc_trace.dy2st"
cat >"$TMP/cmp.py" <<PY
import numpy as np
import paddle
a = paddle.jit.load("$TMP/fc_trace.dy2st")
b = paddle.jit.load("$TMP/fc_save.dy2st")
x = paddle.to_tensor(np.random.RandomState(0).rand(4, 784).astype("float32"))
assert np.allclose(a(x).numpy(), b(x).numpy(), rtol=1e-5, atol=1e-6)
print("traced == converted")
PY
expect 0 "traced == converted" "$DY2ST" exec "$TMP/cmp.py"
expect 0 "lenet_branch.py:24:12: warning: converting a traced tensor to a Python bool freezes this branch" \
    "$DY2ST" trace "$S/lenet_branch.py" --input "image:float32[2,1,28,28]" -o "$TMP/lenet.dy2st"
expect 0 "block ^0 (image : float32[2,1,28,28])" "$DY2ST" show "$TMP/lenet.dy2st"
expect 2 "no output file given" "$DY2ST" trace "$S/simple_fc.py"
expect 2 "unknown option '--no-fallback'" "$DY2ST" trace --no-fallback "$S/simple_fc.py" -o "$TMP/x"
expect_exact 1 "dy2st: error: $S/simple_fc.py:BATCH_SIZE: expected a Layer or a function, got int" \
    "$DY2ST" trace "$S/simple_fc.py:BATCH_SIZE" -o "$TMP/x.dy2st"
expect 0 "trace FILE.py:NAME" "$DY2ST" help trace

finish

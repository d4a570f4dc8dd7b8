#!/bin/sh
# test_fluid_examples.sh - Paddle 1.8's documented examples as written: the release notes' MNIST
# with a @declarative forward saved by ProgramTranslator().save_inference_model, whose directory
# 'dy2st run' loads and runs to the dygraph output, and register_forward_pre_hook.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st

make_tmp fluid-examples
F="$top_srcdir/tests/cli/fluid"
case $F in /*) ;; *) F="$PWD/$F" ;; esac

# ---- MNIST: the script saves ./dy2stat_infer_model, its input and the dygraph prediction
checks=$((checks + 1))
(cd "$TMP" && "$DY2ST" exec "$F/mnist_declarative.py") >"$TMP/out" 2>&1
if [ $? -ne 0 ] || [ "$(cat "$TMP/out")" != "$(printf '[3, 10] True\nsaved')" ]; then
    fail "mnist_declarative.py"
    sed 's/^/    /' "$TMP/out"
fi
[ -f "$TMP/dy2stat_infer_model/model.dy2st" ] || fail "no dy2stat_infer_model/model.dy2st"
expect 0 "output_0: float32[3,10]" "$DY2ST" run "$TMP/dy2stat_infer_model" \
    --input "inputs=$TMP/img.npy" -o "$TMP/run"
cat >"$TMP/cmp.py" <<PY
import numpy as np
got = np.load("$TMP/run/output_0.npy")
want = np.load("$TMP/prediction.npy")
print("match", got.shape == want.shape and bool(np.allclose(got, want, atol=1e-5)))
PY
expect 0 "match True" "$DY2ST" exec "$TMP/cmp.py"

# ---- register_forward_pre_hook (fluid.Linear, fluid.dygraph.guard, to_variable)
expect 0 "True" "$DY2ST" exec "$F/forward_pre_hook.py"

finish

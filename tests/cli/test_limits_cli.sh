#!/bin/sh
# test_limits_cli.sh - run and exec --timeout: a saved model, or a script's to_static function,
# with an endless while_loop stops with a clean error soon after its deadline; bad values are
# usage errors.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st

make_tmp limits-cli
X="$top_srcdir/tests/golden/cli/mlp_loop/x.npy"

cat >"$TMP/spin.py" <<'PY'
import paddle


class Spin(paddle.nn.Layer):
    def forward(self, x):
        i = paddle.zeros([1], dtype="int64")
        while i >= 0:
            i = i + 1
        return x + i.astype("float32")
PY
expect 0 "saved" "$DY2ST" save "$TMP/spin.py:Spin" --input "x:float32[-1,4]" -o "$TMP/spin.d2m"

# the endless loop stops after about half a second (the outer timeout only guards the test);
# the loaded model runs after the passes, which hoist the loop's two constants before it
start=$(date +%s)
expect 1 "dy2st: error: line 7: block ^0 op 3 (while_loop): deadline of 0.5 s exceeded after" \
    timeout 30 "$DY2ST" run "$TMP/spin.d2m" --input "x=$X" --timeout 0.5
took=$(($(date +%s) - start))
[ "$took" -le 10 ] || fail "run --timeout 0.5 took $took s"
[ "$(grep -c . "$TMP/out")" -eq 1 ] || fail "run --timeout printed more than the error line"

# a model that finishes is not affected by a generous timeout
expect 0 "logits: float32[" "$DY2ST" run "$top_srcdir/samples/programs/mlp_loop.d2p" \
    --input "x=$X" --timeout=60

for bad in x 0 -1 1e999 nan 2s ""; do
    expect 2 "dy2st: error: --timeout: expected a positive number of seconds, got '$bad'" \
        "$DY2ST" run "$TMP/spin.d2m" --timeout "$bad"
done
expect 2 "dy2st: error: --timeout needs a number of seconds" "$DY2ST" run "$TMP/spin.d2m" --timeout

# exec --timeout bounds the runs a script starts: a to_static function that loops forever
cat >"$TMP/spin_exec.py" <<'PY'
import paddle


@paddle.jit.to_static
def spin(x):
    i = paddle.zeros([1], dtype="int64")
    while i >= 0:
        i = i + 1
    return x + i.astype("float32")


print(spin(paddle.ones([4])))
PY
start=$(date +%s)
expect 1 "line 7: block ^0 op 1 (while_loop): deadline of 0.5 s exceeded after" \
    timeout 30 "$DY2ST" exec --timeout 0.5 "$TMP/spin_exec.py"
took=$(($(date +%s) - start))
[ "$took" -le 10 ] || fail "exec --timeout 0.5 took $took s"
# ... as the script's own TimeoutError, and with what is left of the script's
# time: a run started after 1.2 s of a 1.5 s limit does not get 1.5 s more
expect 1 "error: TimeoutError: line 7: block ^0 op 1 (while_loop): deadline of 1.5 s" \
    "$DY2ST" exec --timeout 1.5 "$TMP/spin_exec.py"
cat >"$TMP/late_exec.py" <<'PY'
import time

import paddle


@paddle.jit.to_static
def spin(x):
    i = paddle.zeros([1], dtype="int64")
    while i >= 0:
        i = i + 1
    return x + i.astype("float32")


t = time.perf_counter()
while time.perf_counter() - t < 1.2:
    pass
print("spun", flush=True)
print(spin(paddle.ones([4])))
PY
"$DY2ST" exec --timeout 1.5 "$TMP/late_exec.py" >"$TMP/late.out" 2>&1 &
late=$!
sleep 2.3 # 1.5 s in all; with a fresh 1.5 s for the Program it would run to 2.7 s
if kill -0 "$late" 2>/dev/null; then
    kill "$late"
    fail "exec --timeout 1.5: the Program run got more than the script's time left"
fi
wait "$late" || true
grep -q "deadline of 1.5 s exceeded" "$TMP/late.out" ||
    fail "exec --timeout 1.5: no deadline error in: $(cat "$TMP/late.out")"

# exec takes the same option (a quick script is not affected by it)
echo 'print("done")' >"$TMP/quick.py"
expect 0 "done" "$DY2ST" exec --timeout 30 "$TMP/quick.py"
expect 2 "dy2st: error: --timeout: expected a positive number of seconds, got 'soon'" \
    "$DY2ST" exec --timeout soon "$TMP/quick.py"

finish

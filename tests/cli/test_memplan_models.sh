#!/bin/sh
# test_memplan_models.sh - every sample model with the static memory plan on and off.
#
# Samples: 'dy2st save' with Paddle's weights, then 'dy2st run' on the inputs stored by the
# oracle (tests/oracle/expected/NAME.npz, real Paddle 2.6.2) twice: with every pass (the
# default: in-place execution and the memory plan included) and with every pass but the plan
# (DY2ST_PASSES=all,-memplan). The run with the plan must match Paddle's to_static outputs
# within the sample's tolerance from NAME.json (float32: |got - want| <= atol + rtol * |want|,
# 1e-5 and 1e-5 for every sample; int64 and bool: exact), and the two runs must agree bit for
# bit (the plan moves buffers, never arithmetic; equal values, NaN where NaN). DY2ST_MEMPLAN_STATS shows that the plan
# placed values of the convolution and transformer samples and that no arena was left behind.
# DY2ST_TEST_QUICK=1 runs a subset.

. "${top_srcdir:-.}/tests/cli/lib.sh"
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
need_dy2st

make_tmp memplan-models
S="$top_srcdir/samples"
E="$top_srcdir/tests/oracle/expected"
if [ "${DY2ST_TEST_QUICK:-0}" = 1 ]; then
    samples="mnist_cnn lenet_branch char_rnn"
else
    samples="simple_fc mnist_cnn lenet_branch char_rnn greedy_decoder lstm_cell lstm_tagger unet_small resnet_small transformer_encoder resnet18 mobilenetv3_small transformer_beam"
fi
# samples whose plan must place values (their runs make intermediate tensors in block 0)
planned="mnist_cnn lenet_branch unet_small resnet_small transformer_encoder resnet18 mobilenetv3_small"

# Compares DIR_ON/output_K.npy with the oracle's SET/staticK and, exactly, with DIR_OFF's.
cat >"$TMP/compare.py" <<'PY'
import sys
import numpy as np
import _jst

npz, st, on, off, rtol, atol = sys.argv[1:7]
rtol, atol = float(rtol), float(atol)
arrays = _jst._load_npz(npz)
bad = 0
k = 0
while st + "/static" + str(k) in arrays:
    want = arrays[st + "/static" + str(k)].numpy()
    a = np.load(on + "/output_" + str(k) + ".npy")
    b = np.load(off + "/output_" + str(k) + ".npy")
    what = st + " output " + str(k)
    if a.shape != want.shape or str(a.dtype) != str(want.dtype):
        print(what + ": got " + str(a.dtype) + str(list(a.shape)) + ", want "
              + str(want.dtype) + str(list(want.shape)))
        bad += 1
    elif str(want.dtype) in ("float32", "float64"):
        d = np.abs(a.astype("float64") - want.astype("float64"))
        if not bool(np.all(d <= atol + rtol * np.abs(want.astype("float64")))):
            print(what + " with the plan vs paddle: max |diff| " + str(float(np.max(d))))
            bad += 1
    elif not bool(np.all(a == want)):
        print(what + " with the plan vs paddle: values differ")
        bad += 1
    same = a.shape == b.shape and str(a.dtype) == str(b.dtype)
    if same and str(a.dtype) in ("float32", "float64"):
        same = bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    elif same:
        same = bool(np.all(a == b))
    if not same:
        print(what + ": the runs with and without the plan differ")
        bad += 1
    k += 1
if k == 0:
    print("no outputs in the oracle file")
    bad += 1
sys.exit(1 if bad else 0)
PY

json_num() { # FILE KEY
    sed -n "s/.*\"$2\": *\([0-9.eE+-]*\).*/\1/p" "$1" | head -n 1
}

for s in $samples; do
    checks=$((checks + 1))
    rtol=$(json_num "$E/$s.json" rtol)
    atol=$(json_num "$E/$s.json" atol)
    if ! "$DY2ST" save "$S/$s.py" --params "$E/$s.npz" -o "$TMP/$s.dy2st" >"$TMP/log" 2>&1; then
        fail "$s: dy2st save failed"
        sed 's/^/    /' "$TMP/log"
        continue
    fi
    mkdir -p "$TMP/in_$s"
    if ! "$DY2ST" exec "$top_srcdir/tests/cli/oracle_inputs.py" "$S/$s.py" "$E/$s.npz" "$TMP/in_$s" >"$TMP/sets" 2>"$TMP/log"; then
        fail "$s: cannot extract the oracle's inputs"
        sed 's/^/    /' "$TMP/log"
        continue
    fi
    while read -r set args; do
        rm -rf "$TMP/on" "$TMP/off"
        # shellcheck disable=SC2086
        if ! DY2ST_MEMPLAN_STATS=1 "$DY2ST" run "$TMP/$s.dy2st" $args -o "$TMP/on" >"$TMP/log" 2>&1; then
            fail "$s/$set: dy2st run failed"
            sed 's/^/    /' "$TMP/log"
            continue
        fi
        stats=$(grep '^dy2st: memplan:' "$TMP/log")
        # shellcheck disable=SC2086
        if ! DY2ST_PASSES=all,-memplan "$DY2ST" run "$TMP/$s.dy2st" $args -o "$TMP/off" \
            >"$TMP/log" 2>&1; then
            fail "$s/$set: dy2st run without the plan failed"
            sed 's/^/    /' "$TMP/log"
            continue
        fi
        if ! "$DY2ST" exec "$TMP/compare.py" "$E/$s.npz" "$set" "$TMP/on" "$TMP/off" \
            "$rtol" "$atol" >"$TMP/log" 2>&1; then
            fail "$s/$set: outputs differ"
            sed 's/^/    /' "$TMP/log"
            continue
        fi
        case $stats in
        *", 0 orphaned") ;;
        *) fail "$s/$set: an arena outlived its run: $stats"; continue ;;
        esac
        case " $planned " in
        *" $s "*)
            case $stats in
            *" arena 0 bytes"* | "") fail "$s/$set: the plan placed nothing: $stats"; continue ;;
            esac ;;
        esac
        echo "ok: $s/$set (matches Paddle, rtol $rtol atol $atol; same bits without the plan; ${stats#dy2st: memplan: })"
    done <"$TMP/sets"
done

# ---- dy2st show reports the plan; a bad -NAME is an unknown pass
checks=$((checks + 1))
"$DY2ST" show --passes=memplan "$top_srcdir/tests/golden/passes/inplace_exec.prog" >/dev/null 2>"$TMP/log"
grep -q "^memplan: [0-9]* values in [0-9]* slots, arena [0-9]* bytes" "$TMP/log" ||
    { fail "show --passes=memplan printed no plan"; sed 's/^/    /' "$TMP/log"; }
expect 2 "unknown pass 'memplna'" "$DY2ST" show --passes=all,-memplna "$top_srcdir/tests/golden/passes/inplace_exec.prog"

finish

#!/bin/sh
# test_opencl_models.sh - every sample model and the control-flow corpus on --device opencl.
#
# Samples: 'dy2st save' with Paddle's weights, then 'dy2st run --device cpu' and
# '--device opencl' on the inputs stored by the oracle (tests/oracle/expected/NAME.npz,
# real Paddle 2.6.2). Both must match Paddle's to_static outputs within the sample's
# tolerance from NAME.json (float32: |got - want| <= atol + rtol * |want|, 1e-5 and
# 1e-5 for every sample; int64 and bool: exact), and OpenCL must match the CPU backend
# within the same bound (integers and bools exactly).
# Corpus: tests/py_static/NAME.py under 'dy2st exec --device opencl' must print NAME.out
# (what real Paddle printed), with DY2ST_OPENCL_STATS showing that kernels ran on the device.
# Skips (exit 77) when no OpenCL device exists. DY2ST_TEST_QUICK=1 runs a subset (for slow
# devices; the whole set takes about 30 s on PoCL under ASan).

. "${top_srcdir:-.}/tests/cli/lib.sh"
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
need_dy2st
DEVICE=${DY2ST_TEST_OPENCL_DEVICE:-opencl}
if ! "$DY2ST" devices >/dev/null 2>&1 || ! "$DY2ST" devices 2>/dev/null | grep -q '^0: '; then
    echo "SKIP: no OpenCL device"
    exit 77
fi

make_tmp ocl-models
S="$top_srcdir/samples"
E="$top_srcdir/tests/oracle/expected"
quick=${DY2ST_TEST_QUICK:-0}
if [ "$quick" = 1 ]; then
    samples="simple_fc lenet_branch char_rnn greedy_decoder"
    corpus="while_loops if_else"
else
    samples="simple_fc mnist_cnn lenet_branch char_rnn greedy_decoder lstm_cell lstm_tagger unet_small resnet_small transformer_encoder resnet18 mobilenetv3_small transformer_beam"
    # every script of the corpus
    corpus=$(cd "$top_srcdir/tests/py_static" && ls *.py | sed 's/\.py$//')
fi

# Compares DIR_CPU/output_K.npy and DIR_OCL/output_K.npy with the oracle's SET/staticK.
cat >"$TMP/compare.py" <<'PY'
import sys
import numpy as np
import _jst

npz, st, cpu, ocl, rtol, atol = sys.argv[1:7]
rtol, atol = float(rtol), float(atol)
arrays = _jst._load_npz(npz)
bad = 0
k = 0

def close(what, got, want):
    if got.shape != want.shape or str(got.dtype) != str(want.dtype):
        print(what + ": got " + str(got.dtype) + str(list(got.shape)) + ", want "
              + str(want.dtype) + str(list(want.shape)))
        return False
    if str(want.dtype) in ("float32", "float64"):
        g = got.astype("float64")
        w = want.astype("float64")
        d = np.abs(g - w)
        ok = bool(np.all(d <= atol + rtol * np.abs(w)))
        if not ok:
            print(what + ": max |diff| " + str(float(np.max(d))))
        return ok
    ok = bool(np.all(got == want))
    if not ok:
        print(what + ": integer values differ")
    return ok

while st + "/static" + str(k) in arrays:
    want = arrays[st + "/static" + str(k)].numpy()
    c = np.load(cpu + "/output_" + str(k) + ".npy")
    o = np.load(ocl + "/output_" + str(k) + ".npy")
    for what, got, ref in [("cpu vs paddle", c, want), ("opencl vs paddle", o, want),
                           ("opencl vs cpu", o, c)]:
        if not close(st + " output " + str(k) + " " + what, got, ref):
            bad += 1
    k += 1
if k == 0:
    print("no outputs in the oracle file")
    bad += 1
sys.exit(1 if bad else 0)
PY

# Compares printed outputs: GOT against WANT (what real Paddle printed) line by line and
# token by token. A device's reductions sum in another order than the CPU's, so a printed
# float32 may differ in its last digit: tokens that parse as floats (with a '.', 'e', 'inf'
# or 'nan') must satisfy |got - want| <= 1e-5 + 1e-5 * |want| (the float32 bound above);
# every other token (integers, shapes, dtypes, words) must be equal.
cat >"$TMP/compare_text.py" <<'PY'
import sys

want_path, got_path = sys.argv[1], sys.argv[2]
want = open(want_path).read().split("\n")
got = open(got_path).read().split("\n")

def is_float(tok):
    t = tok.strip("[](),")
    if t == "" or not ("." in t or "e" in t or "inf" in t or "nan" in t):
        return False
    try:
        float(t)
        return True
    except ValueError:
        return False

def same(g, w):
    if g == w:
        return True
    if not (is_float(g) and is_float(w)):
        return False
    if g.replace(g.strip("[](),"), "") != w.replace(w.strip("[](),"), ""):
        return False
    a = float(g.strip("[](),"))
    b = float(w.strip("[](),"))
    if a != a or b != b:
        return a != a and b != b
    return abs(a - b) <= 1e-5 + 1e-5 * abs(b)

bad = 0
if len(got) != len(want):
    print("got " + str(len(got)) + " lines, want " + str(len(want)))
    bad = 1
for i in range(min(len(got), len(want))):
    gt = got[i].split()
    wt = want[i].split()
    ok = len(gt) == len(wt)
    if ok:
        for j in range(len(gt)):
            if not same(gt[j], wt[j]):
                ok = False
                break
    if not ok:
        print("line " + str(i + 1) + ": got  " + got[i])
        print("line " + str(i + 1) + ": want " + want[i])
        bad += 1
        if bad > 10:
            break
sys.exit(1 if bad else 0)
PY

# same_text WANT GOT: exactly equal, or equal within the float32 bound (compare_text.py)
same_text() {
    cmp -s "$1" "$2" || "$DY2ST" exec "$TMP/compare_text.py" "$1" "$2" >"$TMP/textdiff" 2>&1
}

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
    if ! "$DY2ST" exec "$top_srcdir/tests/cli/oracle_inputs.py" "$S/$s.py" "$E/$s.npz" "$TMP" >"$TMP/sets" 2>"$TMP/log"; then
        fail "$s: cannot extract the oracle's inputs"
        sed 's/^/    /' "$TMP/log"
        continue
    fi
    while read -r set args; do
        ok=1
        for dev in cpu "$DEVICE"; do
            rm -rf "$TMP/out_$dev"
            # shellcheck disable=SC2086
            if ! "$DY2ST" run "$TMP/$s.dy2st" --device "$dev" $args -o "$TMP/out_$dev" \
                >"$TMP/log" 2>&1; then
                fail "$s/$set: dy2st run --device $dev failed"
                sed 's/^/    /' "$TMP/log"
                ok=0
            fi
        done
        [ $ok = 1 ] || continue
        if "$DY2ST" exec "$TMP/compare.py" "$E/$s.npz" "$set" "$TMP/out_cpu" "$TMP/out_$DEVICE" \
            "$rtol" "$atol" >"$TMP/log" 2>&1; then
            echo "ok: $s/$set (cpu and $DEVICE match Paddle, rtol $rtol atol $atol)"
        else
            fail "$s/$set: outputs differ"
            sed 's/^/    /' "$TMP/log"
        fi
    done <"$TMP/sets"
done

# ---- the control-flow corpus under exec --device opencl
# Under LeakSanitizer, the scan of dynamic TLS at exit of these runs can crash on a
# block of the OpenCL driver's compiler ("Tracer caught signal 11", seen with PoCL and
# glibc 2.36): here leaks are checked without TLS as roots (use_tls=0).
lsan_notls="${LSAN_OPTIONS:+$LSAN_OPTIONS:}use_tls=0:suppressions=$top_srcdir/tests/lsan.supp"
for c in $corpus; do
    checks=$((checks + 1))
    dir="$TMP/exec_$c"
    mkdir -p "$dir"
    (cd "$dir" && LSAN_OPTIONS=$lsan_notls DY2ST_OPENCL_STATS=1 "$DY2ST" exec --device "$DEVICE" \
        "$top_srcdir/tests/py_static/$c.py" >out 2>err)
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "exec --device $DEVICE $c.py exited $rc"
        sed 's/^/    /' "$dir/err" | head -n 20
        continue
    fi
    if ! same_text "$top_srcdir/tests/py_static/$c.out" "$dir/out"; then
        fail "exec --device $DEVICE $c.py: output differs from $c.out"
        sed 's/^/    /' "$TMP/textdiff" | head -n 20
        continue
    fi
    launches=$(sed -n 's/^dy2st: opencl:.*: \([0-9]*\) kernel launches,.*/\1/p' "$dir/err" | head -n 1)
    if [ -z "$launches" ] || [ "$launches" -eq 0 ]; then
        fail "exec --device $DEVICE $c.py ran no OpenCL kernels"
        sed 's/^/    /' "$dir/err" | head -n 5
        continue
    fi
    echo "ok: exec --device $DEVICE $c.py ($launches kernel launches on the device)"
done

# ---- eager training scripts: optimizer updates, losses and the DataLoader on the device;
# training through to_static (parameters on the device bound into its Programs)
for c in optimizers losses io_data jit_train; do
    checks=$((checks + 1))
    dir="$TMP/train_$c"
    mkdir -p "$dir"
    (cd "$dir" && LSAN_OPTIONS=$lsan_notls "$DY2ST" exec --device "$DEVICE" \
        "$top_srcdir/tests/py_paddle/$c.py" >out 2>err)
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "exec --device $DEVICE $c.py exited $rc"
        sed 's/^/    /' "$dir/err" | head -n 20
        continue
    fi
    if ! same_text "$top_srcdir/tests/py_paddle/$c.out" "$dir/out"; then
        fail "exec --device $DEVICE $c.py: output differs from $c.out"
        sed 's/^/    /' "$TMP/textdiff" | head -n 20
        continue
    fi
    echo "ok: exec --device $DEVICE $c.py"
done

# ---- device selection errors
checks=$((checks + 1))
"$DY2ST" exec --device opencl:99 "$top_srcdir/tests/py_static/if_else.py" >"$TMP/log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "OpenCL device index 99 is out of range" "$TMP/log" ||
    { fail "exec --device opencl:99: exit $rc"; sed 's/^/    /' "$TMP/log"; }
checks=$((checks + 1))
DY2ST_OPENCL_LIBRARY="$TMP/no-such-libOpenCL.so" "$DY2ST" run "$TMP/simple_fc.dy2st" \
    --device opencl --input "x=$TMP/example_x.npy" >"$TMP/log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "cannot load the OpenCL ICD loader" "$TMP/log" &&
    grep -q "DY2ST_OPENCL_LIBRARY" "$TMP/log" ||
    { fail "a missing OpenCL loader: exit $rc"; sed 's/^/    /' "$TMP/log"; }
checks=$((checks + 1))
OCL_ICD_VENDORS="$TMP/no-vendors" "$DY2ST" devices >"$TMP/log" 2>&1
grep -q "^opencl: none (no OpenCL platform found" "$TMP/log" ||
    { fail "devices without a platform"; sed 's/^/    /' "$TMP/log"; }
checks=$((checks + 1))
OCL_ICD_VENDORS="$TMP/no-vendors" "$DY2ST" run "$TMP/simple_fc.dy2st" \
    --device opencl --input "x=$TMP/example_x.npy" >"$TMP/log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no OpenCL platform found" "$TMP/log" ||
    { fail "run without a platform: exit $rc"; sed 's/^/    /' "$TMP/log"; }

finish

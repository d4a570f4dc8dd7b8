#!/bin/sh
# test_omp_env.sh - the dy2st command runs libgomp with a short spin (GOMP_SPINCOUNT=300,
# tools/omp_env.c) when the user set neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY, and a
# user's own setting wins. What libgomp itself took is read back from what it prints at start
# under OMP_DISPLAY_ENV=verbose. Setting the default means executing the command once more:
# that must happen once, and keep argv, stdin and the exit status.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
make_tmp omp_env
GOLD="$top_srcdir/tests/golden/cli/mlp_loop"
SAMPLE="$top_srcdir/samples/programs/mlp_loop.d2p"

# libgomp_spin EXPECTED_STARTS EXPECTED_SPIN [VAR=VALUE]...: runs `dy2st --version` with only
# the given OpenMP variables set, and checks how many times libgomp started in the process
# (the default's re-execution makes two) and the spin count the last start took
libgomp_spin() {
    starts=$1 spin=$2
    shift 2
    checks=$((checks + 1))
    env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$@" "$DY2ST" --version \
        >"$TMP/out" 2>&1
    got_status=$?
    got_starts=$(grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN' "$TMP/out")
    got_spin=$(sed -n "s/^ *GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p" "$TMP/out" | tail -n 1)
    if [ "$got_status" -ne 0 ] || [ "$got_starts" != "$starts" ] || [ "$got_spin" != "$spin" ] ||
        ! grep -q '^dy2st ' "$TMP/out"; then
        fail "with '$*': exit $got_status, $got_starts libgomp starts, spin count '$got_spin';" \
            "expected exit 0, $starts, '$spin'"
        sed 's/^/    /' "$TMP/out"
    fi
}

if ! env OMP_DISPLAY_ENV=true "$DY2ST" --version 2>&1 | grep -q 'OPENMP DISPLAY ENVIRONMENT'; then
    echo "SKIP: dy2st is built without OpenMP"
    exit 77
fi

# neither variable set: the default, after one re-execution (libgomp's own 300000, then ours)
libgomp_spin 2 300
# a user's setting, any of them, wins and costs no re-execution
libgomp_spin 1 5000 GOMP_SPINCOUNT=5000
libgomp_spin 1 300000 GOMP_SPINCOUNT=300000
libgomp_spin 1 0 OMP_WAIT_POLICY=passive
libgomp_spin 1 30000000000 OMP_WAIT_POLICY=active
libgomp_spin 1 0 OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=0

# a script under `exec` sees the variable, and its argv and exit status survive the re-execution
cat >"$TMP/args.py" <<'PY'
import os
import sys
print(sys.argv[1:], os.environ.get("GOMP_SPINCOUNT"))
sys.exit(int(sys.argv[1]))
PY
expect 7 "['7', 'two words', '']" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT \
    "$DY2ST" exec "$TMP/args.py" 7 "two words" ""
expect 7 "['7'] 300" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$DY2ST" exec "$TMP/args.py" 7
expect 0 "['0'] 123" env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=123 "$DY2ST" exec "$TMP/args.py" 0

# stdin reaches the new image untouched: the model's input read from it gives NumPy's outputs
expect 0 "logits: float32[5,3] -> $TMP/stdin/logits.npy" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT \
    "$DY2ST" run "$SAMPLE" --input x=/dev/stdin --output-dir "$TMP/stdin" <"$GOLD/x.npy"
for name in logits steps positive; do
    checks=$((checks + 1))
    cmp -s "$TMP/stdin/$name.npy" "$GOLD/$name.npy" || fail "$name.npy from stdin input differs"
done
finish

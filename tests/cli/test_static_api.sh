#!/bin/sh
# test_static_api.sh - enable_static, Executor.run, load_inference_model, ProgramTranslator under
# 'dy2st exec'. Each tests/py_static_api/NAME.py runs in a scratch directory and must print
# NAME.out (real Paddle's output, from tests/gen/gen_static_api_expected.py); each errors/NAME.py
# must fail with the diagnostics in errors/NAME.err; each selfcheck/NAME.py (APIs Paddle 2.6 no
# longer has: fluid, ProgramTranslator) checks its own results and must end with "selfcheck OK".

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
D=$(cd "$top_srcdir/tests/py_static_api" && pwd) || exit 99

make_tmp static-api

# run SCRIPT: runs it with 'dy2st exec' in a fresh scratch directory; stdout in $TMP/out,
# stderr (with the script's folder removed from paths) in $TMP/err, exit status in $rc.
run() {
    rm -rf "$TMP/work" && mkdir "$TMP/work" || exit 99
    (cd "$TMP/work" && "$DY2ST" exec "$1" >"$TMP/out" 2>"$TMP/err.raw")
    rc=$?
    sed "s#$(dirname "$1")/##g" "$TMP/err.raw" >"$TMP/err"
}

for py in "$D"/[a-z]*.py; do
    [ -e "$py" ] || continue
    name=$(basename "$py" .py)
    checks=$((checks + 1))
    run "$py"
    if [ "$rc" -ne 0 ]; then
        fail "$name.py exited $rc"
        sed 's/^/    /' "$TMP/err"
    elif ! cmp -s "$TMP/out" "$D/$name.out"; then
        fail "$name.py output differs from $name.out"
        diff "$D/$name.out" "$TMP/out" | head -20 | sed 's/^/    /'
    fi
done

for py in "$D"/errors/[a-z]*.py; do
    [ -e "$py" ] || continue
    name=$(basename "$py" .py)
    checks=$((checks + 1))
    run "$py"
    if [ "$rc" -ne 1 ]; then
        fail "errors/$name.py exited $rc, expected 1"
        sed 's/^/    /' "$TMP/err"
    elif ! cmp -s "$TMP/err" "$D/errors/$name.err"; then
        fail "errors/$name.py diagnostics differ from $name.err"
        diff "$D/errors/$name.err" "$TMP/err" | head -20 | sed 's/^/    /'
    fi
done

for py in "$D"/selfcheck/[a-z]*.py; do
    [ -e "$py" ] || continue
    name=$(basename "$py" .py)
    checks=$((checks + 1))
    run "$py"
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$TMP/out")" != "selfcheck OK" ]; then
        fail "selfcheck/$name.py exited $rc"
        sed 's/^/    /' "$TMP/out" "$TMP/err" | tail -20
    fi
done

finish

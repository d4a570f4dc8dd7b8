#!/bin/sh
# test_doc_examples.sh - runs the code examples of Paddle's API docs through `dy2st exec`.
#
# The examples are Paddle's, so they are not in the source tree:
# tests/docs/fetch_examples.sh extracts them, pinned by version and checksum,
# into $top_builddir/tests/docs/fetched (setup.sh does it, in the source tree;
# DOC_EXAMPLES names another directory). Each example to run (index.txt) must match the digest
# recorded in tests/docs/expected/ID.out, exit 0 and print what real Paddle
# printed, numbers within rtol 1e-5 / atol 1e-6 (compare_output.py).
# Skipped (exit 77) only when the examples were not fetched.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
HERE="$top_srcdir/tests/docs"
EX=${DOC_EXAMPLES:-$top_builddir/tests/docs/fetched/examples}
# an out-of-tree build may use what setup.sh fetched into the source tree
[ -n "${DOC_EXAMPLES:-}" ] || [ -f "$EX/index.txt" ] || EX="$top_srcdir/tests/docs/fetched/examples"
if [ ! -f "$EX/index.txt" ]; then
    echo "SKIP: Paddle's doc examples are not fetched; run tests/docs/fetch_examples.sh $top_builddir/tests/docs/fetched"
    exit 77
fi
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "SKIP: $PYTHON not found"; exit 77; }
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 120"
make_tmp docs

passed=0 excluded=0 skipped=0
while read -r id digest status reason; do
    case $status in
    excluded) excluded=$((excluded + 1)); continue ;;
    skipped) skipped=$((skipped + 1)); continue ;;
    esac
    want="$HERE/expected/$id.out"
    if [ ! -f "$want" ]; then
        fail "$id: no expected output $want (run tests/docs/gen_expected.py)"
        continue
    fi
    if [ "$(head -n 1 "$want")" != "# sha256 $digest" ]; then
        fail "$id: the example's text changed since $want was made (run tests/docs/gen_expected.py)"
        continue
    fi
    rm -rf "$TMP/run" && mkdir "$TMP/run" && cp "$EX/$id.py" "$TMP/run/" || exit 99
    (cd "$TMP/run" && $TIMEOUT "$DY2ST" exec "$id.py") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$id: dy2st exec exited $rc"
        sed 's/^/    /' "$TMP/err" | head -n 20
        continue
    fi
    # most outputs are Paddle's text byte for byte: only the others need the numeric comparison
    if ! tail -n +2 "$want" | cmp -s - "$TMP/out" &&
        ! "$PYTHON" "$HERE/compare_output.py" "$want" "$TMP/out" >"$TMP/diff"; then
        fail "$id: output differs from Paddle's"
        sed 's/^/    /' "$TMP/diff"
        continue
    fi
    if [ -s "$TMP/err" ]; then
        fail "$id: dy2st wrote to stderr"
        sed 's/^/    /' "$TMP/err" | head -n 20
        continue
    fi
    passed=$((passed + 1))
done <"$EX/index.txt"
echo "doc examples: $passed passed, $failures failed, $excluded excluded, $skipped not extracted (GPU-only)"
[ $failures -eq 0 ] || exit 1
[ $passed -gt 0 ] || { echo "FAIL: no example ran"; exit 1; }
exit 0

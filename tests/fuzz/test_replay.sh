#!/bin/sh
# test_replay.sh - replays each fuzz target's seed corpus (and a short burst of mutations of it) through its target.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
CORPUS="$top_srcdir/tests/fuzz/corpus"
# mutations of each seed per run; FUZZ_MUTATE=0 replays the seeds only
MUTATE=${FUZZ_MUTATE:-20}

failures=0
for target in model npy program python pickle; do
    bin="$top_builddir/tests/fuzz/replay_$target"
    if [ ! -x "$bin" ]; then
        echo "FAIL: $bin not built"
        failures=$((failures + 1))
        continue
    fi
    if [ -z "$(ls "$CORPUS/$target" 2>/dev/null)" ]; then
        echo "FAIL: empty corpus $CORPUS/$target"
        failures=$((failures + 1))
        continue
    fi
    crashdir=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-replay.XXXXXX") || exit 99
    if "$bin" --mutate "$MUTATE" --crash-dir "$crashdir" "$CORPUS/$target"; then
        echo "PASS: $target"
        rm -rf "$crashdir"
    else
        echo "FAIL: $target (crashing inputs, if any, kept in $crashdir)"
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ]

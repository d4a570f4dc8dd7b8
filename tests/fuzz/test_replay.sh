#!/bin/sh
# test_replay.sh - replays each fuzz target's seed corpus (and a short burst of mutations of it) through its target.

. "${top_srcdir:-.}/tests/cli/lib.sh"
CORPUS="$top_srcdir/tests/fuzz/corpus"
# mutations of each seed per run; FUZZ_MUTATE=0 replays the seeds only
MUTATE=${FUZZ_MUTATE:-20}

G="$top_srcdir/tests/golden"
seed_files() { ls "$G"/ast/*.py "$G"/ast/errors/*.py "$G"/unparse/*.py "$top_srcdir"/tests/py/*.py; }

for target in model npy program python pickle run astcache pyparse; do
    bin="$top_builddir/tests/fuzz/replay_$target"
    if [ ! -x "$bin" ]; then
        fail "$bin not built"
        continue
    fi
    # the parse cache's target takes Python sources: the parser's seeds
    corpus=$target
    [ "$target" = astcache ] && corpus=python
    [ "$target" = pyparse ] && corpus=python
    if [ -z "$(ls "$CORPUS/$corpus" 2>/dev/null)" ]; then
        fail "empty corpus $CORPUS/$corpus"
        continue
    fi
    crashdir=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-replay.XXXXXX") || exit 99
    # the parser's seeds also include the AST/unparse goldens and tests/py (not copied)
    seeds="$CORPUS/$corpus"
    [ "$corpus" = python ] && seeds="$seeds $(seed_files)"
    # shellcheck disable=SC2086
    if "$bin" --mutate "$MUTATE" --crash-dir "$crashdir" $seeds; then
        echo "PASS: $target"
        rm -rf "$crashdir"
    else
        fail "$target (crashing inputs, if any, kept in $crashdir)"
    fi
done
[ "$failures" -eq 0 ]

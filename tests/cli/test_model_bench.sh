#!/bin/sh
# test_model_bench.sh - bench/model_bench reads its inputs from .npy files (-i), as
# bench/latency_compare.py feeds it the arrays the other runtimes get, and says clearly
# when they do not fit the model.

. "${top_srcdir:-.}/tests/cli/lib.sh"
BENCH="$top_builddir/bench/model_bench"
[ -x "$BENCH" ] || { echo "SKIP: $BENCH not built"; exit 77; }
GOLD="$top_srcdir/tests/golden/cli/mlp_loop"
SAMPLE="$top_srcdir/samples/programs/mlp_loop.d2p"
make_tmp model_bench

# the file is fed: a timing line (BATCH only labels it)
expect 0 "batch 2: median" "$BENCH" "$SAMPLE" -i "$GOLD/x.npy" 2 3
expect 0 "cpu " "$BENCH" -i "$GOLD/x.npy" "$SAMPLE" 1 3
# the file's shape, not a generated one, reaches the model
expect 1 "model_bench: input 'x': expected shape [-1,4], got [5,3]" \
    "$BENCH" "$SAMPLE" -i "$GOLD/x_bad_shape.npy" 1 3
# one file per input
expect 2 "model_bench: the model has 1 inputs, 2 -i files given" \
    "$BENCH" "$SAMPLE" -i "$GOLD/x.npy" -i "$GOLD/x.npy"
expect 1 "nosuch.npy" "$BENCH" "$SAMPLE" -i "$TMP/nosuch.npy"
expect 2 "model_bench: -i needs a .npy file" "$BENCH" "$SAMPLE" 1 3 -i
# -n: single runs timed one by one (bench/omp_load.sh reads this line)
expect 0 "batch 2: single runs: 5, median " "$BENCH" -n 5 "$SAMPLE" 2
expect 0 " us; cpu " "$BENCH" "$SAMPLE" -i "$GOLD/x.npy" -n 3 2
expect 2 "model_bench: -n needs a run count from 1 to 1000000" "$BENCH" "$SAMPLE" -n 0
expect 2 "model_bench: -n needs a run count" "$BENCH" "$SAMPLE" -n 5x
expect 2 "model_bench: -n needs a run count" "$BENCH" "$SAMPLE" -n
# without -i, generated inputs as before
expect 0 "batch 4: median" "$BENCH" "$SAMPLE" 4 3
finish

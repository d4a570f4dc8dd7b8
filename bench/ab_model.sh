#!/bin/sh
# ab_model.sh - run latency of one saved model under two builds of libdy2st, alternating.
#
#   sh bench/ab_model.sh BEFORE_LIBDIR AFTER_LIBDIR MODEL BATCH THREADS [ROUNDS [SAMPLES]]
#
# Each round runs bench/model_bench once against each library directory (a build's .libs),
# one after the other, in fresh processes, so that load from other work falls on both alike.
# Prints the load average before and after, and per run model_bench's line: the median wall
# time per run and the CPU time per run (less disturbed on a busy machine).
set -e
if [ $# -lt 5 ]; then
    echo "usage: sh bench/ab_model.sh BEFORE_LIBDIR AFTER_LIBDIR MODEL BATCH THREADS [ROUNDS [SAMPLES]]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
bench="$here/.libs/model_bench"
[ -x "$bench" ] || bench="$here/model_bench"
before=$1 after=$2 model=$3 batch=$4 threads=$5 rounds=${6:-5} samples=${7:-5}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$rounds" ]; do
    for which in before after; do
        if [ "$which" = before ]; then lib=$before; else lib=$after; fi
        printf '%-6s ' "$which"
        DY2ST_NUM_THREADS=$threads LD_LIBRARY_PATH=$lib "$bench" "$model" "$batch" "$samples" 2>&1 |
            sed 's/^.*: median/median/'
    done
    i=$((i + 1))
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

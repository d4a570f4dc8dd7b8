#!/bin/sh
# dp_bench.sh - data-parallel training throughput of the MNIST CNN (bench/dp_step.py): one and
# two replicas on threads (CompiledProgram.with_data_parallel) and one and two MPI processes
# (fleet.distributed_optimizer), the same global batch per step. The four configurations run
# alternately, ROUNDS times, so load on the machine hits them alike; the table gives the median
# samples/s, the median wall and CPU seconds of the timed steps (CPU summed over threads and
# processes), the scaling efficiency (samples/s at 2 / (2 x samples/s at 1)) and the load
# average before and after.
#
#     bench/dp_bench.sh [ROUNDS [BATCH [STEPS]]]      (from a built checkout; defaults 5 64 20)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5} BATCH=${2:-64} STEPS=${3:-20}
DY2ST=./dy2st
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
command -v mpirun >/dev/null 2>&1 || { echo "dp_bench: Open MPI's mpirun is missing" >&2; exit 1; }
OUT=$(mktemp -d "${TMPDIR:-/tmp}/dp-bench.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$ROUNDS"); do
    $DY2ST exec bench/dp_step.py threads 1 "$BATCH" "$STEPS" 2 >>"$OUT/threads1"
    $DY2ST exec bench/dp_step.py threads 2 "$BATCH" "$STEPS" 2 >>"$OUT/threads2"
    $DY2ST exec bench/dp_step.py ranks 1 "$BATCH" "$STEPS" 2 >>"$OUT/ranks1"
    $MPIRUN -np 2 $DY2ST exec bench/dp_step.py ranks 2 "$BATCH" "$STEPS" 2 >>"$OUT/ranks2"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
med() { # the median of column $2 of file $1
    awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
echo "MNIST CNN training, batch $BATCH per step, $STEPS timed steps, median of $ROUNDS alternating rounds"
echo "$(nproc) CPUs; load average before: $load0, after: $load1"
echo
echo "| configuration | samples/s | wall s | CPU s | scaling efficiency |"
echo "|---|---|---|---|---|"
for k in threads ranks; do
    s1=$(med "$OUT/${k}1" 2) s2=$(med "$OUT/${k}2" 2)
    echo "| $k 1 | $s1 | $(med "$OUT/${k}1" 4) | $(med "$OUT/${k}1" 6) | |"
    echo "| $k 2 | $s2 | $(med "$OUT/${k}2" 4) | $(med "$OUT/${k}2" 6) | $(awk -v a="$s1" -v b="$s2" 'BEGIN {printf "%.2f", b / (2 * a)}') |"
done

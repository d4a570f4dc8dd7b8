#!/bin/sh
# omp_load.sh - run latency of a saved model at 1 and 2 threads under several OpenMP wait
# settings, with the machine as it is ("idle") and with one busy loop beside it ("loaded").
#
#   sh bench/omp_load.sh MODEL [BATCH [ROUNDS [RUNS]]]
#
# Each round measures every configuration once idle and once loaded, each in a fresh process
# (libgomp reads its settings when a process starts), in an order that rotates from round to
# round, so that the machine's slow spells fall on all of them alike. A configuration is
# THREADS:SETTING, SETTING one of default (neither variable set: libgomp's 300000 spins),
# spin=N (GOMP_SPINCOUNT=N), passive (OMP_WAIT_POLICY=passive) or adapt (DY2ST_ADAPT_THREADS=1:
# no more threads than idle cores), or several joined by '+' (spin=300+adapt); CONFIGS overrides
# the list.
# The load is one `while :; do :; done` shell loop, started before and stopped after the
# loaded half of each round. Each process runs `model_bench -n RUNS` (RUNS single runs timed one
# by one after a warm-up, at most 2 s of them).
#
# Prints one line per process (round, load, configuration, then model_bench's number of runs
# and their median, 90th percentile, maximum and mean in us and CPU us per run, then the
# 1-minute load average and the CPU cores that other processes kept busy while it ran, from
# /proc/stat less the process's own CPU time), and at the end two tables over the processes:
# per configuration and load made, and per configuration and the cores others actually kept
# busy (on a shared machine "idle" is not always idle), the median of their medians, the median
# of their 90th percentiles, the largest maximum, the median of their means, the median CPU per
# run and the median of the others' cores.
# RAW=FILE keeps the per-process lines in FILE; LOADS=idle or LOADS=loaded measures one half only.
set -u
if [ $# -lt 1 ]; then
    echo "usage: sh bench/omp_load.sh MODEL [BATCH [ROUNDS [RUNS]]]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
bench="$here/model_bench" # libtool's wrapper in a build tree: it finds the built library
[ -x "$bench" ] || { echo "omp_load.sh: build bench/model_bench first" >&2; exit 2; }
model=$1 batch=${2:-1} rounds=${3:-10} runs=${4:-400}
configs=${CONFIGS:-"1:default 2:default 2:spin=100000 2:spin=10000 2:spin=1000 2:spin=100 2:passive"}
loads=${LOADS:-both}
case $loads in both | idle | loaded) ;; *) echo "omp_load.sh: LOADS is both, idle or loaded" >&2; exit 2 ;; esac
raw=${RAW:-$(mktemp)}
: >"$raw"
hz=$(getconf CLK_TCK)
loop_pid=

stop_loop() {
    if [ -n "$loop_pid" ]; then
        kill "$loop_pid" 2>/dev/null
        wait "$loop_pid" 2>/dev/null
        loop_pid=
    fi
}
trap 'stop_loop; [ -n "${RAW:-}" ] || rm -f "$raw"; exit 1' INT TERM
trap 'stop_loop; [ -n "${RAW:-}" ] || rm -f "$raw"' EXIT

# busy and total jiffies of the whole machine, from /proc/stat's "cpu" line
jiffies() { awk '/^cpu /{b=$2+$3+$4+$7+$8+$9; t=b+$5+$6; print b, t}' /proc/stat; }

# measure ROUND LOAD CONFIG: one model_bench process, one line into $raw
measure() {
    round=$1 load=$2 cfg=$3
    threads=${cfg%%:*} setting=${cfg#*:}
    envs=""
    for part in $(echo "$setting" | tr '+' ' '); do
        case $part in
            default) ;;
            passive) envs="$envs OMP_WAIT_POLICY=passive" ;;
            spin=*) envs="$envs GOMP_SPINCOUNT=${part#spin=}" ;;
            adapt) envs="$envs DY2ST_ADAPT_THREADS=1" ;;
            *) echo "omp_load.sh: unknown setting '$part'" >&2; exit 2 ;;
        esac
    done
    la=$(cut -d' ' -f1 /proc/loadavg)
    j0=$(jiffies)
    out=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u DY2ST_ADAPT_THREADS DY2ST_NUM_THREADS="$threads" $envs \
        /usr/bin/time -f 'TIME %e %U %S' "$bench" -n "$runs" "$model" "$batch" 2>&1)
    j1=$(jiffies)
    line=$(printf '%s\n' "$out" | sed -n 's/.*single runs: \([0-9]*\), median \([0-9.]*\), p90 \([0-9.]*\), max \([0-9.]*\), mean \([0-9.]*\) us; cpu \([0-9.]*\) us\/run.*/\1 \2 \3 \4 \5 \6/p')
    tm=$(printf '%s\n' "$out" | sed -n 's/^TIME //p')
    if [ -z "$line" ] || [ -z "$tm" ]; then
        echo "omp_load.sh: model_bench failed:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
    # cores busy with other processes: the machine's busy time less this process's, per wall second
    others=$(echo "$j0 $j1 $tm $hz" | awk '{ w = $5; if (w <= 0) w = 1e-9;
        o = (($3 - $1) / $8 - ($6 + $7)) / w; if (o < 0) o = 0; printf "%.2f", o }')
    echo "$round $load $cfg $line $la $others" | tee -a "$raw"
}

echo "model $model, batch $batch, $rounds rounds, $runs single runs per process; $(nproc) CPUs"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round load config runs median p90 max mean cpu/run loadavg others"
r=0
while [ "$r" -lt "$rounds" ]; do
    # rotate the configurations by r, and swap which half goes first every round
    set -- $configs
    k=0
    while [ "$k" -lt $((r % $#)) ]; do
        first=$1
        shift
        set -- "$@" "$first"
        k=$((k + 1))
    done
    order="$*"
    if [ $((r % 2)) -eq 0 ]; then halves="idle loaded"; else halves="loaded idle"; fi
    [ "$loads" = both ] || halves=$loads
    for load in $halves; do
        if [ "$load" = loaded ]; then
            sh -c 'while :; do :; done' &
            loop_pid=$!
            sleep 0.3
        fi
        for cfg in $order; do
            measure "$r" "$load" "$cfg"
        done
        stop_loop
    done
    r=$((r + 1))
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
# summary GROUP_FIELD: per group and configuration, over the processes, the median of their
# medians, the median of their 90th percentiles, the largest maximum, the median of their means,
# the median CPU per run and the median busy cores of others
summary() {
    awk -v G="$1" -v CONFIGS="$configs" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        function group(o) {
            if (G == "load") return $2
            return o < 0.3 ? "others < 0.3" : o < 0.7 ? "others 0.3-0.7" : o < 1.3 ? "others 0.7-1.3" : "others >= 1.3"
        }
        { g = group($11); k = g SUBSEP $3; if (!(g in seen)) { seen[g] = 1; gs[++ng] = g }
          n[k]++; i = n[k]; m[k, i] = $5; p[k, i] = $6; a[k, i] = $8; c[k, i] = $9; o[k, i] = $11
          if ($7 > mx[k]) mx[k] = $7 }
        END {
            print "| " (G == "load" ? "load" : "cores others kept busy") " | threads | wait setting | processes | median us | p90 us | max us | mean us | CPU us/run | others'"'"' cores |"
            print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
            nc = split(CONFIGS, cs, " ")
            for (gi = 1; gi <= ng; gi++) for (ci = 1; ci <= nc; ci++) {
                k = gs[gi] SUBSEP cs[ci]; if (!n[k]) continue
                for (i = 1; i <= n[k]; i++) { M[i] = m[k, i]; P[i] = p[k, i]; A[i] = a[k, i]; C[i] = c[k, i]; O[i] = o[k, i] }
                split(cs[ci], tc, ":")
                printf "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n", gs[gi], tc[1], tc[2], n[k],
                       med(M, n[k]), med(P, n[k]), mx[k], med(A, n[k]), med(C, n[k]), med(O, n[k])
            }
        }' "$raw"
}
echo "By the load the script made:"
echo
summary load
echo
echo "By the cores other processes (the busy loop included) kept busy while each process ran:"
echo
summary others

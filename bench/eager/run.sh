#!/bin/sh
# run.sh DY2ST [PYTHON [OLD_DY2ST]] - the eager micro-benchmarks, alternating
# dy2st (and an older dy2st binary, when given) with Python + Paddle eager
# (and PyTorch eager where PYTHON has torch: torch_*.py) ROUNDS times each,
# printing every run's microseconds per iteration (wall and CPU time, both
# measured inside the script around the timed loop), the medians, the ratios
# and the load average before and after. Every side runs on one thread.
set -eu
OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 DY2ST_NUM_THREADS=1
export OMP_NUM_THREADS MKL_NUM_THREADS DY2ST_NUM_THREADS
here=$(cd "$(dirname "$0")" && pwd)
d2=$1
py=${2:-}
old=${3:-}
rounds=${ROUNDS:-3}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "load before: $(cat /proc/loadavg)"
for b in matmul_loop:20000 mnist_forward:2000 train_step:2000; do
    name=${b%%:*}
    n=${b#*:}
    : >"$tmp"
    r=0
    while [ "$r" -lt "$rounds" ]; do
        "$d2" exec "$here/$name.py" "$n" | sed 's/^/dy2st /' >>"$tmp"
        [ -n "$old" ] && "$old" exec "$here/$name.py" "$n" | sed 's/^/dy2st-old /' >>"$tmp"
        if [ -n "$py" ]; then
            "$py" "$here/$name.py" "$n" 2>/dev/null | sed 's/^/paddle /' >>"$tmp"
            if "$py" -c "import torch" 2>/dev/null && [ -f "$here/torch_$name.py" ]; then
                "$py" "$here/torch_$name.py" "$n" | sed 's/^/torch /' >>"$tmp"
            fi
        fi
        r=$((r + 1))
    done
    cat "$tmp"
    awk -v name="$name" '
        function median(list,    n, a, i, j, t) {
            n = split(list, a, " ")
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            return a[int((n + 1) / 2)]
        }
        { w[$1] = w[$1] " " $3; c[$1] = c[$1] " " $6 }
        END {
            for (k in w) { mw[k] = median(w[k]); mc[k] = median(c[k]) }
            for (k in mw) {
                line = sprintf("%s median %-9s wall %10.2f  cpu %10.2f us/iter", name, k, mw[k], mc[k])
                if (k != "dy2st" && ("dy2st" in mw))
                    line = line sprintf("   %s/dy2st wall %.2fx cpu %.2fx", k, mw[k] / mw["dy2st"], mc[k] / mc["dy2st"])
                print line
            }
        }' "$tmp"
done
echo "load after: $(cat /proc/loadavg)"

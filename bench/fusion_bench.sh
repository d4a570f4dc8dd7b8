#!/bin/sh
# fusion_bench.sh - the elementwise fusion passes measured with bench/model_bench: each model is
# run alternately with the fusions off and on in this build (DY2ST_PASSES without / with
# fuse_add_norm, fuse_bn_act and fuse_elementwise) and, when OLD_BUILD names another build
# directory (the build before the fusions), with that build's model_bench too. One thread.
#
#   bench/fusion_bench.sh WORK_DIR [ROUNDS]      (run from the build directory)
#
# Prints one line per run and, at the end, a table of the medians over the rounds of each
# run's CPU time per run (getrusage) and median wall time per run, with the load average
# before and after.
set -e
work=${1:?usage: fusion_bench.sh WORK_DIR [ROUNDS]}
rounds=${2:-9}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
NEW=./bench/model_bench
mkdir -p "$work"
OFF=const_fold,cse,hoist,drop_identity,bn_fold,fuse_conv,nhwc,fuse_linear,dce,inplace
# the models: samples saved with their initial weights, and a bias + gelu + scale + multiply +
# relu chain over [batch, 1024]
[ -e "$work/transformer_encoder.dy2st" ] ||
    ./dy2st save "$top_srcdir/samples/transformer_encoder.py:EncoderLayer" \
        --input 'x:float32[-1,-1,32]' -o "$work/transformer_encoder.dy2st" 2>/dev/null
[ -e "$work/lstm_cell.dy2st" ] ||
    ./dy2st save "$top_srcdir/samples/lstm_cell.py:LSTMCellLoop" \
        --input 'x:float32[-1,-1,8]' -o "$work/lstm_cell.dy2st" 2>/dev/null
[ -e "$work/mnist_cnn.dy2st" ] ||
    ./dy2st save "$top_srcdir/samples/mnist_cnn.py:MNIST" \
        --input 'image:float32[-1,1,28,28]' -o "$work/mnist_cnn.dy2st" 2>/dev/null
python3 - "$work/chain.d2p" <<'PY'
import math, sys
vals = ", ".join("%g" % (math.sin(i * 0.1) * 0.5) for i in range(1024))
open(sys.argv[1], "w").write(f"""param bias : float32[1024] = [{vals}]

block ^0 (x : float32[-1,1024], c : float32[-1,1024]) {{
  b1 : float32[-1,1024] = add(x, bias)
  g1 : float32[-1,1024] = gelu(b1)
  s1 : float32[-1,1024] = scale(g1) {{scale = 0.5}}
  m1 : float32[-1,1024] = multiply(s1, c)
  r1 : float32[-1,1024] = relu(m1)
  return r1
}}
""")
PY
log="$work/runs.txt"
: >"$log"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
for r in $(seq "$rounds"); do
    for spec in "transformer_encoder 1 5 6" "transformer_encoder 32 5 6" "lstm_cell 1 5 16" \
        "lstm_cell 32 5 16" "mnist_cnn 1 5" "mnist_cnn 32 3" "chain 1 5" "chain 256 5"; do
        set -- $spec
        m="$work/$1.dy2st"
        [ "$1" = chain ] && m="$work/chain.d2p"
        shift
        runs="off on"
        [ -n "${OLD_BUILD:-}" ] && runs="old off on"
        [ $((r % 2)) = 0 ] && runs=$(echo $runs | tr ' ' '\n' | tac | tr '\n' ' ')
        for w in $runs; do
            case $w in
            old) line=$(OMP_NUM_THREADS=1 "$OLD_BUILD/bench/model_bench" "$m" "$@" 2>&1) ;;
            off) line=$(DY2ST_PASSES=$OFF OMP_NUM_THREADS=1 $NEW "$m" "$@" 2>&1) ;;
            on) line=$(DY2ST_PASSES=all OMP_NUM_THREADS=1 $NEW "$m" "$@" 2>&1) ;;
            esac
            echo "$r $(basename "$m") b$1 $w $line" | tee -a "$log"
        done
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
python3 - "$log" <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(list)
for ln in open(sys.argv[1]):
    m = re.match(r"\d+ (\S+) (b\d+) (old|off|on) .*median ([\d.]+) us/run.*cpu ([\d.]+) us/run", ln)
    if m:
        d[(m[1], m[2], m[3])].append((float(m[4]), float(m[5])))
print("| model | batch | run | CPU us/run | wall us/run | runs |")
print("|---|---|---|---|---|---|")
for key in sorted(d):
    v = d[key]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {statistics.median(x[1] for x in v):.1f} | "
          f"{statistics.median(x[0] for x in v):.1f} | {len(v)} |")
PY

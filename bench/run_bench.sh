#!/bin/sh
# run_bench.sh - runs every benchmark (GEMM, the peers, dy2st) and writes bench/RESULTS.md.
#
#   bench/run_bench.sh [BUILD_DIR]        # what `make bench` runs, with its build directory
#
# Needs bench/venv (bench/install.sh). Writes bench/results/{results.json,
# results.csv,ratios.png,gemm.txt,latency.json} and bench/RESULTS.md; the models it exports
# and the raw files go to a scratch directory ($BENCH_WORKDIR, or a new one
# under $TMPDIR) that is removed at the end unless BENCH_KEEP=1.
# BENCH_QUICK=1 takes fewer timing samples and fewer GEMM shapes (for trying the
# runner out); BENCH_SAMPLES=a,b limits the run to those samples;
# BENCH_CONVERT_RUNS=N sets the Paddle processes per sample of the conversion step.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-.}" && pwd) || { echo "run_bench.sh: error: no build directory '${1:-.}'" >&2; exit 1; }
py="$here/venv/bin/python"
if [ ! -x "$py" ]; then
    # first run on a fresh machine: install the peers (pinned) first
    echo "run_bench.sh: bench/venv is missing; running bench/install.sh" >&2
    "$here/install.sh" || { echo "run_bench.sh: error: bench/install.sh failed" >&2; exit 1; }
fi
if [ ! -x "$py" ]; then
    echo "run_bench.sh: error: bench/venv is missing after bench/install.sh" >&2
    exit 1
fi
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    export BENCH_MAX_RUNS=8 BENCH_BUDGET_S=0.2 BENCH_WARMUP=2 BENCH_MIN_RUNS=3
    export BENCH_CONVERT_RUNS=${BENCH_CONVERT_RUNS:-3}
    set -- -r 1 -s 256
else
    set -- -r 3
fi
work=${BENCH_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/dy2st-bench.XXXXXX")}
mkdir -p "$work" "$here/results"
cmds="$work/commands.txt"
: >"$cmds"
start=$(date +%s)
cd "$root" || exit 1

# Logs a command (with the directories named neutrally) to commands.txt and stderr.
logcmd() {
    echo "$*" | sed -e "s|$work|WORK|g" -e "s|$build|BUILD|g" -e "s|$root/||g" >>"$cmds"
    echo "run_bench.sh: $*" | sed -e "s|$root/||g" >&2
}
step() {
    logcmd "$@"
    "$@"
}

# 1. GEMM: dy2st's matmul against raw BLIS (bench/gemm_bench.c), when it is built.
if [ -x "$build/bench/gemm_bench" ]; then
    logcmd "$build/bench/gemm_bench" "$@"
    "$build/bench/gemm_bench" "$@" >"$work/gemm.txt" 2>&1 ||
        echo "(gemm_bench exited with status $?)" >>"$work/gemm.txt"
else
    echo "bench/gemm_bench is not built in $build (make bench/gemm_bench)" >"$work/gemm.txt"
fi

# 2. The peers: Paddle eager / to_static / Inference, PyTorch eager / TorchScript, ONNX Runtime.
# (sample names have no spaces: the unquoted expansion is one word or none)
step "$py" bench/peers.py run --workdir "$work" ${BENCH_SAMPLES:+--samples=$BENCH_SAMPLES} \
    --out "$work/peers.json" ||
    echo "run_bench.sh: warning: peers.py failed" >&2

# 3. dy2st: `dy2st save` per sample, then load and run through the C API.
step "$py" bench/dy2st_bench.py run --build-dir "$build" --workdir "$work" \
    ${BENCH_SAMPLES:+--samples=$BENCH_SAMPLES} --out "$work/dy2st.json" || echo "run_bench.sh: warning: dy2st_bench.py failed" >&2

# 3b. Latency: dy2st, ONNX Runtime and Paddle Inference measured alternately, round by
#     round, on the samples prepared above (bench/latency_compare.py); its section is
#     appended to RESULTS.md.
if [ "${BENCH_QUICK:-0}" = 1 ]; then lat_quick="--rounds 2 --budget 0.1"; else lat_quick=; fi
# (lat_quick unquoted on purpose: two options or none)
step "$py" bench/latency_compare.py run --build "$build" --workdir "$work" $lat_quick \
    ${BENCH_SAMPLES:+--samples=$BENCH_SAMPLES} --json "$here/results/latency.json" \
    --markdown "$work/latency.md" || echo "run_bench.sh: warning: latency_compare.py failed" >&2

# 4. Conversion time: dy2st against Paddle's first to_static call (fresh processes per run).
step "$py" bench/convert_bench.py run --build-dir "$build" --workdir "$work" \
    ${BENCH_SAMPLES:+--samples=$BENCH_SAMPLES} ${BENCH_CONVERT_RUNS:+--runs=$BENCH_CONVERT_RUNS} \
    --out "$work/convert.json" || echo "run_bench.sh: warning: convert_bench.py failed" >&2

# 5. OpenCL (bench/opencl_bench.sh, where present): called as
#    opencl_bench.sh BUILD_DIR WORK_DIR; a WORK_DIR/opencl.md it writes is
#    included in RESULTS.md as it is.
if [ -x "$here/opencl_bench.sh" ]; then
    step "$here/opencl_bench.sh" "$build" "$work" ||
        echo "run_bench.sh: warning: opencl_bench.sh failed" >&2
fi

# 6. Training step: dy2st against Paddle (eager, to_static, static) and PyTorch, 1 thread.
step "$py" bench/train_bench.py run --build-dir "$build" --workdir "$work/train" \
    --markdown "$work/train.md" || echo "run_bench.sh: warning: train_bench.py failed" >&2

# 7. The report.
"$py" bench/report.py --raw "$work" --build-dir "$build" --results "$here/results" \
    --markdown "$here/RESULTS.md"
rc=$?
if [ -s "$work/latency.md" ]; then
    { echo; cat "$work/latency.md"; } >>"$here/RESULTS.md"
fi
echo "run_bench.sh: done in $(( $(date +%s) - start )) s; see bench/RESULTS.md" >&2
[ "${BENCH_KEEP:-0}" = 1 ] || [ -n "${BENCH_WORKDIR:-}" ] || rm -rf "$work"
exit $rc

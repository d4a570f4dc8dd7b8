#!/bin/sh
# opencl_bench.sh - the OpenCL backend against the CPU backend on every sample, and the GFLOP/s
# of the OpenCL GEMM kernels; writes bench/RESULTS-opencl.md (and WORK_DIR/opencl.md, which
# run_bench.sh includes in bench/RESULTS.md).
#
#   bench/opencl_bench.sh [-d DEVICE] [BUILD_DIR [WORK_DIR]]
#
# DEVICE is an OpenCL device as `dy2st devices` numbers them (opencl, opencl:N; also
# $BENCH_OPENCL_DEVICE), so the same run can be pointed at a GPU's OpenCL driver.
# BUILD_DIR needs dy2st, .libs/libdy2st.so and bench/opencl_gemm_bench (make
# bench/opencl_gemm_bench). WORK_DIR is where the samples are prepared (reused when
# run_bench.sh has prepared them already) and where opencl.md is written; without it a
# new scratch directory is used (removed at the end unless BENCH_KEEP=1) and the tables
# go to bench/RESULTS-opencl.md. Needs bench/venv (bench/install.sh) for the preparation,
# which runs real Paddle once to write the inputs and the outputs the results are checked
# against. BENCH_SAMPLES=a,b limits the samples; BENCH_QUICK=1 takes fewer samples of
# each timing; BENCH_GEMM_SIZES="64 256" sets the GEMM sizes; BENCH_THREADS=N the CPU
# backend's threads (default 1; PoCL always uses its own pool of threads).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
invocation="bench/opencl_bench.sh $*"
envs=$(env | grep '^BENCH_' | grep -v '^BENCH_WORKDIR=' | sort | tr '\n' ' ')
device=${BENCH_OPENCL_DEVICE:-opencl}
if [ "${1:-}" = "-d" ]; then
    [ $# -ge 2 ] || { echo "opencl_bench.sh: error: -d needs a device" >&2; exit 2; }
    device=$2
    shift 2
fi
build_arg=${1:-.}
build=$(cd "$build_arg" && pwd) || { echo "opencl_bench.sh: error: no build directory '${1:-.}'" >&2; exit 1; }
py="$here/venv/bin/python"
[ -x "$py" ] || { echo "opencl_bench.sh: error: bench/venv is missing; run bench/install.sh first" >&2; exit 1; }
[ -x "$build/dy2st" ] || { echo "opencl_bench.sh: error: $build/dy2st is not built" >&2; exit 1; }
own_work=0
if [ -n "${2:-}" ]; then
    work=$2
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-ocl-bench.XXXXXX")
    own_work=1
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    export BENCH_MAX_RUNS=8 BENCH_BUDGET_S=0.2 BENCH_WARMUP=2 BENCH_MIN_RUNS=3
fi
cd "$root" || exit 1
md="$work/opencl.md"
cmds="$work/opencl_commands.txt"
: >"$cmds"
logcmd() {
    echo "$*" | sed -e "s|$work|WORK|g" -e "s|$build|BUILD|g" -e "s|$root/||g" >>"$cmds"
    echo "opencl_bench.sh: $*" | sed -e "s|$root/||g" >&2
}

# The device, named as `dy2st devices` lists it.
index=${device#opencl}
index=${index#:}
[ -n "$index" ] || index=0
devline=$("$build/dy2st" devices 2>&1 | sed -n "s/^$index: //p")
if [ -z "$devline" ]; then
    echo "opencl_bench.sh: error: no OpenCL device $device:" >&2
    "$build/dy2st" devices >&2
    printf '## OpenCL backend\n\nNot measured: no OpenCL device %s on this machine.\n' "$device" >"$md"
    exit 1
fi
threads=${BENCH_THREADS:-1}

# 1. The samples' inputs and Paddle's outputs (skipped where run_bench.sh prepared them).
samples=${BENCH_SAMPLES:-$("$py" -c "import sys; sys.path.insert(0, 'bench'); import common; print(','.join(common.SAMPLE_NAMES))")}
need=0
for s in $(echo "$samples" | tr ',' ' '); do
    [ -f "$work/$s/meta.json" ] || need=1
done
if [ $need = 1 ]; then
    logcmd "$py" bench/peers.py prepare-paddle --workdir "$work" --samples "$samples"
    "$py" bench/peers.py prepare-paddle --workdir "$work" --samples "$samples" >&2 ||
        echo "opencl_bench.sh: warning: the preparation failed" >&2
fi

# 2. Latency per sample: the CPU backend, then the OpenCL device, through the C API.
for dev in cpu "$device"; do
    tag=$( [ "$dev" = cpu ] && echo cpu || echo ocl )
    logcmd "$py" bench/dy2st_bench.py run --build-dir "$build" --workdir "$work" \
        --samples "$samples" --threads "$threads" --device "$dev" --out "$work/opencl_$tag.json"
    "$py" bench/dy2st_bench.py run --build-dir "$build" --workdir "$work" --samples "$samples" \
        --threads "$threads" --device "$dev" --out "$work/opencl_$tag.json" ||
        echo "opencl_bench.sh: warning: dy2st_bench.py --device $dev failed" >&2
done

# 3. GEMM GFLOP/s of both OpenCL kernels.
gemm="$work/opencl_gemm.md"
if [ -x "$build/bench/opencl_gemm_bench" ]; then
    set -- -d "$device"
    for n in ${BENCH_GEMM_SIZES:-64 128 256 512 1024}; do
        set -- "$@" -s "$n"
    done
    logcmd "$build/bench/opencl_gemm_bench" "$@"
    "$build/bench/opencl_gemm_bench" "$@" >"$gemm" 2>"$work/opencl_gemm.err" ||
        { echo "(opencl_gemm_bench failed: $(tail -n 1 "$work/opencl_gemm.err"))" >>"$gemm"; }
else
    echo "(bench/opencl_gemm_bench is not built in the build directory: make bench/opencl_gemm_bench)" >"$gemm"
fi

# 4. The tables.
DEVLINE="$devline" DEVICE="$device" THREADS="$threads" SAMPLES="$samples" "$py" - "$work" "$md" "$cmds" "$gemm" <<'PY'
import json, os, platform, sys, time

work, md, cmds, gemm = sys.argv[1:5]


def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


cpu, ocl = load("opencl_cpu.json"), load("opencl_ocl.json")
dev = os.environ["DEVICE"]
cpu_model = "?"
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
except OSError:
    pass


def cell(entry):
    """(median ms per batch key, or a reason) of one sample's run at the thread count."""
    if not entry:
        return None, "not run"
    runs = list(entry.get("by_threads", {}).values())
    if not runs:
        return None, entry.get("reason", entry.get("status", "?"))
    r = runs[0]
    if r.get("status") != "ok":
        return None, r.get("reason", r.get("status", "?"))
    return {k: v["median_s"] * 1e3 for k, v in r.get("latency", {}).items()}, None


lines = ["## OpenCL backend against the CPU backend", "",
         "Device %s: %s. Host: %s, %s logical CPUs, %s. Generated %s." % (
             dev, os.environ["DEVLINE"], cpu_model, os.cpu_count(), platform.platform(),
             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), "",
         "Median latency of one `dy2st_model_run` through the C API (inputs uploaded, the whole "
         "Program run on the device, outputs read back), %s thread(s) for the CPU backend (PoCL uses its own pool of threads); "
         "each result was first checked against real Paddle's outputs. `fixed` is a sample whose "
         "batch is fixed by its input spec." % os.environ["THREADS"], "",
         "| sample | batch | CPU backend (ms) | OpenCL %s (ms) | OpenCL / CPU |" % dev,
         "|---|---|---:|---:|---:|"]
for s in os.environ["SAMPLES"].split(","):
    c, cwhy = cell(cpu.get("samples", {}).get(s))
    o, owhy = cell(ocl.get("samples", {}).get(s))
    keys = sorted(set((c or {}).keys()) | set((o or {}).keys())) or ["-"]
    for k in keys:
        cv = "%.3f" % c[k] if c and k in c else (cwhy or "-")
        ov = "%.3f" % o[k] if o and k in o else (owhy or "-")
        ratio = "%.2fx" % (o[k] / c[k]) if c and o and k in c and k in o and c[k] > 0 else "-"
        lines.append("| %s | %s | %s | %s | %s |" % (s, k, cv, ov, ratio))
lines += ["", "### OpenCL GEMM kernels (float32 M=N=K, best of 5)", ""]
with open(gemm) as f:
    lines += [ln.rstrip("\n") for ln in f]
lines += ["", "Commands (BUILD is the build directory, WORK the scratch directory):", "", "```"]
with open(cmds) as f:
    lines += [ln.rstrip("\n") for ln in f]
lines += ["```", ""]
with open(md, "w") as f:
    f.write("\n".join(lines))
PY
# bench/RESULTS-opencl.md only from a run of its own (run_bench.sh, which passes
# WORK_DIR, includes WORK_DIR/opencl.md in bench/RESULTS.md instead)
[ $own_work = 1 ] || { echo "opencl_bench.sh: wrote $md" >&2; exit 0; }
{
    echo "# OpenCL benchmark results"
    echo
    echo "Written by \`bench/opencl_bench.sh\`. The machine these numbers come from is shared with"
    echo "other jobs and noisy: treat single numbers as rough (differences under about 2x may be"
    echo "noise). Run it again on an idle machine, or pointed at a GPU with \`-d opencl:N\`."
    echo "Load average at the end of this run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc 2>/dev/null) CPUs."
    echo
    echo "Command: \`${envs}$(echo "$invocation" | sed -e "s|$build|BUILD|g" -e "s|$work|WORK|g" -e "s| $build_arg| BUILD|")\`"
    echo
    cat "$md"
} >"$here/RESULTS-opencl.md"
echo "opencl_bench.sh: wrote bench/RESULTS-opencl.md" >&2
[ "${BENCH_KEEP:-0}" = 1 ] || [ $own_work = 0 ] || rm -rf "$work"
exit 0

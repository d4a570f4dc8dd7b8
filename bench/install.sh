#!/bin/sh
# install.sh - creates bench/venv with the peers the benchmarks compare dy2st with (pinned).
#
#   bench/install.sh            # once; then `make bench` (or bench/run_bench.sh BUILD_DIR)
#
# Each requirement is installed on its own, so that one that cannot be installed
# on this machine does not stop the others: the benchmark then marks that peer
# "unavailable" with the reason. Set PYTHON to choose the interpreter.
set -u
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
venv="$here/venv"
if ! "$PYTHON" -m venv --help >/dev/null 2>&1; then
    echo "install.sh: error: $PYTHON cannot create virtual environments (install python3-venv)" >&2
    exit 1
fi
[ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv" || exit 1
pip="$venv/bin/pip"
"$pip" install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
failed=""
# In file order (NumPy first); every install is constrained by the whole file,
# so no wheel pulls in another version of a pinned package.
for req in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/requirements.txt"); do
    echo "install.sh: $req"
    if ! "$pip" install --quiet --disable-pip-version-check "$req" \
            -c "$here/requirements.txt" >"$venv/install-${req%%=*}.log" 2>&1; then
        echo "install.sh: warning: $req could not be installed (see $venv/install-${req%%=*}.log)" >&2
        failed="$failed ${req%%=*}"
    fi
done
"$venv/bin/python" - <<'PY'
import importlib
for mod in ("paddle", "numpy", "torch", "onnxruntime", "paddle2onnx", "onnx", "matplotlib", "psutil"):
    try:
        m = importlib.import_module(mod)
        print(f"install.sh: {mod} {getattr(m, '__version__', '?')}")
    except Exception as e:  # report and go on: the runner marks the peer unavailable
        print(f"install.sh: {mod} unavailable: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
PY
[ -z "$failed" ] || echo "install.sh: not installed:$failed (those peers are reported unavailable)" >&2
exit 0

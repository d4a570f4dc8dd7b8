#!/bin/sh
# install.sh - creates tests/oracle/venv with the real PaddlePaddle CPU wheel (pinned), NumPy,
# and ONNX with ONNX Runtime (which check dy2st's ONNX export: tests/onnx).
# Only the oracle and the benchmarks use it; dy2st itself never needs Python or Paddle.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -m venv --help >/dev/null 2>&1; then
    echo "install.sh: error: $PYTHON cannot create virtual environments (apt-get install python3-venv)" >&2
    exit 1
fi
[ -x "$here/venv/bin/python" ] || "$PYTHON" -m venv "$here/venv"
"$here/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$here/venv/bin/python" -c "import paddle, numpy; print('oracle: paddle', paddle.__version__, 'numpy', numpy.__version__)"

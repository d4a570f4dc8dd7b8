#!/bin/sh
# setup.sh - installs every dependency, fetches the grammar, builds dy2st and runs the default sample.
#
#   ./setup.sh            install (apt-get, needs root or sudo), build, run the sample
#   ./setup.sh --no-deps  skip the package installation
#
# Debian packages: the build tools, BLIS, oneDNN, cmocka, the OpenCL ICD
# loader and headers, PoCL (OpenCL on the CPU, for tests), Python (pip fetches
# the pinned tree-sitter-python grammar and tree-sitter runtime sources and
# the Paddle wheel whose docstring examples the tests run), clang and its
# fuzzer runtime (CI's fuzzing), protobuf-c and its compiler (ONNX export;
# onnx.proto is fetched pinned and checksummed by runtime/onnx/fetch.sh).
set -eu
cd "$(dirname "$0")"

PACKAGES="build-essential autoconf automake libtool pkg-config \
libblis-dev liblapacke-dev libdnnl-dev libcmocka-dev libpcre2-dev \
ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo \
libopenmpi-dev openmpi-bin \
python3 python3-pip python3-venv ca-certificates \
clang libclang-rt-14-dev \
libprotobuf-c-dev protobuf-c-compiler"

if [ "${1:-}" != "--no-deps" ]; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq $PACKAGES >/dev/null
fi

./grammar/fetch.sh
# onnx.proto, from which the build generates the ONNX exporter's protobuf code
./runtime/onnx/fetch.sh
# Paddle's docstring examples, which `make check` runs (tests/docs)
./tests/docs/fetch_examples.sh tests/docs/fetched
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
make -j"$(nproc)"

# The default sample: a LeNet whose head depends on the data. dy2st shows the
# converted source of its to_static forward (the branch becomes a cond op)
# and runs the script, which calls the converted model on two batches.
echo
echo "== dy2st convert samples/lenet_branch.py =="
./dy2st convert samples/lenet_branch.py
echo
echo "== dy2st exec samples/lenet_branch.py =="
./dy2st exec samples/lenet_branch.py

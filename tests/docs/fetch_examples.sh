#!/bin/sh
# fetch_examples.sh - fetches Paddle's docstring examples, pinned and checksummed, into the build tree.
#
#   tests/docs/fetch_examples.sh OUTDIR
#
# Downloads the paddlepaddle CPU wheel named below with pip (never installs it),
# verifies its sha256 and extracts the code examples of the APIs listed in
# tests/docs/apis.txt into OUTDIR/examples (see extract_examples.py), which
# test_doc_examples.sh then runs. Paddle's code never enters the source tree
# (setup.sh's in-tree build uses tests/docs/fetched, which git ignores). The
# wheel stays in OUTDIR/wheel, so a later run only re-extracts, and nothing is
# done when OUTDIR already matches the pins, apis.txt and the extractor.
set -eu

PADDLE_VERSION=2.6.2
PADDLE_WHEEL=paddlepaddle-2.6.2-cp311-cp311-manylinux1_x86_64.whl
PADDLE_SHA256=b090db204af19c0b1c187a72a2694faa008c22a4405942e8ea3946eae222be33

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
PYTHON=${PYTHON:-python3}
apis_sum=$(sha256sum "$here/apis.txt" "$here/extract_examples.py" | cut -d' ' -f1 | tr '\n' ' ')
want="$PADDLE_VERSION $PADDLE_SHA256 $apis_sum"
stamp="$out/.version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$out/examples/index.txt" ]; then
    exit 0
fi

wheel="$out/wheel/$PADDLE_WHEEL"
check() { [ -f "$wheel" ] && [ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$PADDLE_SHA256" ]; }
if ! check; then
    rm -rf "$out/wheel"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux1_x86_64 --python-version 3.11 --implementation cp --abi cp311 \
        "paddlepaddle==$PADDLE_VERSION" -d "$out/wheel" >&2 ||
        { echo "fetch_examples.sh: error: could not download paddlepaddle $PADDLE_VERSION with pip" >&2; exit 1; }
    if ! check; then
        echo "fetch_examples.sh: error: checksum mismatch for $wheel" >&2
        echo "  expected $PADDLE_SHA256" >&2
        echo "  got      $(sha256sum "$out/wheel/"*.whl 2>/dev/null | cut -d' ' -f1)" >&2
        exit 1
    fi
fi
rm -f "$stamp"
"$PYTHON" "$here/extract_examples.py" "$wheel" "$here/apis.txt" "$out/examples"
echo "$want" > "$stamp"

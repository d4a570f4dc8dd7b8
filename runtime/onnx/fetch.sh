#!/bin/sh
# fetch.sh - obtains onnx.proto (the ONNX model schema), pinned and checksummed.
#
# onnx.proto comes from ONNX's release 1.17.0 as published in its wheel for
# CPython 3.11 on manylinux x86_64 (a wheel needs no build step to download,
# unlike ONNX's source distribution); the wheel is downloaded with pip,
# verified by sha256 and only onnx/onnx.proto is kept, unpacked under
# runtime/onnx/proto/ (ignored by git). The build generates onnx.pb-c.c and
# onnx.pb-c.h from it with protoc-c (Debian's protobuf-c-compiler) into the
# build tree. The ONNX license (Apache-2.0) is kept beside it.
set -eu

ONNX_VERSION=1.17.0
ONNX_WHEEL=onnx-1.17.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
ONNX_SHA256=4a183c6178be001bf398260e5ac2c927dc43e7746e8638d6c05c20e321f8c949

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/proto"
stamp="$dest/.version"
want="$ONNX_VERSION $ONNX_SHA256"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dest/onnx.proto" ]; then
    exit 0
fi

PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$PYTHON" -m pip download --quiet --no-deps --only-binary :all: \
    --platform manylinux_2_17_x86_64 --python-version 3.11 --implementation cp --abi cp311 \
    "onnx==$ONNX_VERSION" -d "$tmp" >&2 ||
    { echo "runtime/onnx/fetch.sh: error: could not download onnx $ONNX_VERSION with pip" >&2; exit 1; }
f="$tmp/$ONNX_WHEEL"
if [ ! -f "$f" ]; then
    echo "runtime/onnx/fetch.sh: error: pip did not download $ONNX_WHEEL" >&2
    exit 1
fi
got=$(sha256sum "$f" | cut -d' ' -f1)
if [ "$got" != "$ONNX_SHA256" ]; then
    echo "runtime/onnx/fetch.sh: error: checksum mismatch for $f" >&2
    echo "  expected $ONNX_SHA256" >&2
    echo "  got      $got" >&2
    exit 1
fi
"$PYTHON" - "$f" "$tmp/x" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = [n for n in z.namelist() if n == "onnx/onnx.proto" or n.endswith(".dist-info/LICENSE")]
for n in names:
    z.extract(n, sys.argv[2])
PY
rm -rf "$dest"
mkdir -p "$dest"
cp "$tmp/x/onnx/onnx.proto" "$dest/onnx.proto"
lic=$(ls "$tmp"/x/*.dist-info/LICENSE 2>/dev/null | head -n 1)
[ -z "$lic" ] || cp "$lic" "$dest/LICENSE"
echo "$want" > "$stamp"
echo "onnx: onnx.proto of ONNX $ONNX_VERSION unpacked in $dest"

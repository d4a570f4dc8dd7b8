#!/bin/sh
# check_install.sh - make installcheck: checks an installed dy2st as a user of it would.
#
# Run by `make installcheck` after `make install` with the same DESTDIR and
# prefix. It needs DESTDIR (may be empty), bindir, libdir, includedir, mandir,
# CC and top_srcdir in the environment. It checks that the header, library,
# dy2st.pc and man page are where they belong, builds samples/run_model.c with
# nothing but `pkg-config --cflags --libs dy2st`, saves samples/simple_fc.py
# with Paddle's parameters using the installed dy2st, runs the saved model with
# the built sample and compares its output with Paddle's.
set -u
: "${DESTDIR=}" "${CC:=cc}"
root=$DESTDIR
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-installcheck.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT INT TERM

for f in "$root$includedir/dy2st/dy2st.h" "$root$libdir/pkgconfig/dy2st.pc" \
    "$root$bindir/dy2st" "$root$mandir/man1/dy2st.1"; do
    [ -f "$f" ] || fail "not installed: $f"
done
[ -e "$root$includedir/include" ] && fail "stray directory installed: $root$includedir/include"
[ "$failures" -eq 0 ] || { echo "installcheck: $failures failures (was 'make install' run with the same DESTDIR and prefix?)"; exit 1; }

# pkg-config alone: the .pc names the installed prefix; under DESTDIR the
# sysroot variable puts DESTDIR in front of its -I and -L paths
PKG_CONFIG_PATH="$root$libdir/pkgconfig"
PKG_CONFIG_SYSROOT_DIR=$root
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
flags=$(pkg-config --cflags --libs dy2st) || { echo "FAIL: pkg-config --cflags --libs dy2st"; exit 1; }
# shellcheck disable=SC2086
if ! $CC -std=c11 -Wall -Wextra -Werror -o "$TMP/run_model" "$top_srcdir/samples/run_model.c" $flags \
    >"$TMP/cc.out" 2>&1; then
    fail "$CC samples/run_model.c $flags"
    sed 's/^/    /' "$TMP/cc.out"
    exit 1
fi
LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

DY2ST="$root$bindir/dy2st"
NPZ="$top_srcdir/tests/oracle/expected/simple_fc.npz"
"$DY2ST" --version >/dev/null || fail "dy2st --version"
"$DY2ST" save "$top_srcdir/samples/simple_fc.py" --params "$NPZ" -o "$TMP/fc.dy2st" \
    >"$TMP/save.out" 2>&1 || { fail "dy2st save samples/simple_fc.py"; sed 's/^/    /' "$TMP/save.out"; }

# the example input of Paddle's run, and its output to compare with
cat >"$TMP/cmp.py" <<'PY'
import sys
import numpy as np
import _jst
z = _jst._load_npz(sys.argv[1])
if sys.argv[3] == "-":
    np.save(sys.argv[2], z["example/input0"].numpy())
else:
    want = z["example/static0"].numpy().reshape([-1])[:10]
    got = np.array([float(v) for v in sys.argv[3].split(",")], dtype="float32")
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        print("run_model printed", got, "Paddle gives", want)
        raise SystemExit(1)
PY
"$DY2ST" exec "$TMP/cmp.py" "$NPZ" "$TMP/x.npy" - || fail "writing the example input"
if "$TMP/run_model" "$TMP/fc.dy2st" "x=$TMP/x.npy" >"$TMP/run.out" 2>&1; then
    # the line after "output_0: float32[4,10]" in "results:" holds the first ten values
    vals=$(sed -n '/^results:/,$p' "$TMP/run.out" | sed -n 's/^ *\[\(.*\), \.\.\.\]$/\1/p' | head -n 1)
    if [ -z "$vals" ]; then
        fail "run_model printed no values"
        sed 's/^/    /' "$TMP/run.out"
    else
        "$DY2ST" exec "$TMP/cmp.py" "$NPZ" "$TMP/x.npy" "$vals" ||
            fail "run_model's output differs from Paddle's"
    fi
else
    fail "run_model fc.dy2st x=x.npy"
    sed 's/^/    /' "$TMP/run.out"
fi

if [ "$failures" -eq 0 ]; then
    echo "installcheck: 1 passed, 0 failed"
    exit 0
fi
echo "installcheck: 0 passed, 1 failed ($failures checks)"
exit 1

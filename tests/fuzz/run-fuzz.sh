#!/bin/sh
# run-fuzz.sh - builds the fuzz targets with clang's libFuzzer, ASan and UBSan, and runs each for a while.
#
# Usage: tests/fuzz/run-fuzz.sh [-t SECONDS] [-b BUILDDIR] [-o CRASHDIR] [TARGET...]
#   TARGET     model, npy, program, python or pickle (default: all five)
#   -t SECONDS how long each target runs (default 60)
#   -b BUILDDIR where the instrumented build goes (default build-libfuzzer in
#              the source tree; it is configured once and reused)
#   -o CRASHDIR where crashing, leaking or hanging inputs are written
#              (default BUILDDIR/crashes)
# CC picks the compiler (default clang), FUZZ_MAKE_JOBS the build's -j (2).
# Each target runs as one process; the inputs it finds go to
# BUILDDIR/corpus-TARGET, never into the seed corpus.
# Exit status 1 when any target found a problem, 2 on a usage or build error.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=60
build="$top/build-libfuzzer"
crashes=
while getopts t:b:o:h opt; do
    case $opt in
    t) secs=$OPTARG ;;
    b) build=$OPTARG ;;
    o) crashes=$OPTARG ;;
    *) sed -n '4,15s/^# \{0,1\}//p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=${*:-model npy program python pickle}
for t in $targets; do
    [ -f "$here/fuzz_$t.c" ] || { echo "run-fuzz: unknown target '$t'" >&2; exit 2; }
done
CC=${CC:-clang}

# ---- the compiler and its fuzzer runtime
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "run-fuzz: $CC not found; install clang (apt-get install clang)" >&2
    exit 2
fi
major=$("$CC" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
probe=$(mktemp -d "${TMPDIR:-/tmp}/run-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$probe"' EXIT INT TERM
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$probe/t.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$probe/t.c" -o "$probe/t" 2>"$probe/err"; then
    sed 's/^/    /' "$probe/err" >&2
    echo "run-fuzz: $CC cannot link -fsanitize=fuzzer,address,undefined: its fuzzer runtime is missing." >&2
    echo "run-fuzz: install it with: apt-get install libclang-rt-${major:-N}-dev  (older Debian: libfuzzer-${major:-N}-dev)" >&2
    exit 2
fi

# ---- the instrumented library, built by the project's own build system
mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)
crashes=${crashes:-$build/crashes}
mkdir -p "$crashes" || exit 2
if [ ! -f "$build/Makefile" ]; then
    [ -x "$top/configure" ] || { echo "run-fuzz: $top/configure missing; run autoreconf -fi there" >&2; exit 2; }
    echo "run-fuzz: configuring $build"
    # Without oneDNN: Debian's libdnnl brings GCC's OpenMP runtime, which
    # would meet clang's in one process; its kernels are tested by make check.
    # Without MPI: the fuzzed inputs never reach a collective.
    (cd "$build" && "$top/configure" -q CC="$CC" --enable-asan --enable-ubsan --without-dnnl --without-mpi \
        CFLAGS="-O1 -g -fsanitize=fuzzer-no-link") || exit 2
fi
echo "run-fuzz: building the library"
make -s -C "$build" -j"${FUZZ_MAKE_JOBS:-2}" libdy2st_core.la libtsgrammar.la libonnxpb.la >"$build/run-fuzz-build.log" 2>&1 || {
    tail -n 30 "$build/run-fuzz-build.log" >&2
    exit 2
}
var() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
libs="$build/.libs/libdy2st_core.a $build/.libs/libtsgrammar.a $build/.libs/libonnxpb.a \
$(var PROTOBUF_C_LIBS) $(var BLIS_LIBS) $(var LAPACK_LIBS) $(var PCRE2_LIBS) $(var TREE_SITTER_LIBS) $(var OPENMP_CFLAGS) $(var LIBS) -pthread"
mkdir -p "$build/fuzz"
for t in $targets; do
    echo "run-fuzz: linking fuzz_$t"
    # shellcheck disable=SC2086
    "$CC" -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -include "$build/config.h" \
        -I"$top/include" -I"$top/runtime" -I"$top/translator" \
        "$here/fuzz_$t.c" $libs -o "$build/fuzz/fuzz_$t" || exit 2
done

# ---- fuzzing
# The parser also starts from the Python sources of the AST/unparse goldens and
# tests/py, copied into one folder: only the sources, since the expected-output
# files beside them (large AST dumps) are not Python and cost seconds each to
# parse under the fuzzer's instrumentation.
extra_seeds() {
    [ "$1" = python ] || return 0
    seeds="$build/seeds-python"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    for d in "$top/tests/golden/ast" "$top/tests/golden/unparse" "$top/tests/py"; do
        for f in "$d"/*.py; do
            [ -f "$f" ] && cp "$f" "$seeds/$(basename "$d")-$(basename "$f")"
        done
    done
    echo "$seeds"
}
status=0
for t in $targets; do
    work="$build/corpus-$t"
    mkdir -p "$work"
    dict=
    [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
    echo "run-fuzz: fuzzing $t for ${secs}s (log: $build/fuzz-$t.log)"
    # shellcheck disable=SC2086
    (cd "$build" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$crashes/$t-" $dict \
        "$work" "$here/corpus/$t" $(extra_seeds "$t")) >"$build/fuzz-$t.log" 2>&1
    rc=$?
    grep -E '^stat::(number_of_executed_units|new_units_added)|^Done' "$build/fuzz-$t.log" | sed 's/^/    /'
    if [ $rc -ne 0 ]; then
        status=1
        echo "run-fuzz: $t FAILED (exit $rc); the report:"
        grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x|Test unit written' "$build/fuzz-$t.log" | head -n 40 | sed 's/^/    /'
    fi
done
found=$(ls "$crashes" 2>/dev/null)
if [ -n "$found" ]; then
    echo "run-fuzz: inputs that failed (replay one with: $build/fuzz/fuzz_TARGET FILE):"
    for f in $found; do echo "    $crashes/$f"; done
fi
exit $status

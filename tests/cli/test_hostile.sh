#!/bin/sh
# test_hostile.sh - every hostile saved model of tests/hostile (written by
# tests/gen/gen_hostile_models.py) fails `dy2st run` with status 1 and one clean
# error line naming the problem; no crash, no output file.
. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
make_tmp hostile

n=0
for dir in "$top_srcdir"/tests/hostile/*/; do
    name=$(basename "$dir")
    mode=$(sed -n 1p "$dir/expect")
    needle=$(sed -n 2p "$dir/expect")
    n=$((n + 1))
    set --
    for f in "$dir"*.npy; do
        [ -e "$f" ] && set -- "$@" -i "$(basename "$f" .npy)=$f"
    done
    case $mode in
    load-only)
        # loads, and never ends when run: a deadline stops it cleanly
        expect 0 "" "$DY2ST" show "$dir/model.d2m"
        expect 1 "deadline of 0.3 s exceeded" timeout 60 "$DY2ST" run --timeout 0.3 \
            "$dir/model.d2m" "$@" -o "$TMP/out-$name"
        continue ;;
    load | run) ;;
    *) fail "$name: unknown mode '$mode'"; continue ;;
    esac
    expect 1 "$needle" "$DY2ST" run "$dir/model.d2m" "$@" -o "$TMP/out-$name"
    if [ "$(wc -l <"$TMP/out")" -ne 1 ] || ! grep -q '^dy2st: error: ' "$TMP/out"; then
        fail "$name: expected exactly one 'dy2st: error:' line"
        sed 's/^/    /' "$TMP/out"
    fi
    [ ! -e "$TMP/out-$name" ] || [ -z "$(ls "$TMP/out-$name")" ] ||
        fail "$name: a failed run wrote outputs"
    if [ "$mode" = load ]; then
        # the load error comes before any input is looked at
        expect 1 "$needle" "$DY2ST" show "$dir/model.d2m"
    fi
done
[ "$n" -ge 20 ] || fail "only $n hostile cases found"

# the same sizes from Python: clean exceptions, and the interpreter goes on
cat >"$TMP/sizes.expected" <<'END'
ones MemoryError
zeros MemoryError
full MemoryError
empty MemoryError
rand MemoryError
rand_wraps MemoryError
rand_empty ValueError
tile MemoryError
tile_wrap ValueError
expand MemoryError
broadcast_to MemoryError
reshape ValueError
eye MemoryError
linspace MemoryError
arange MemoryError
outer MemoryError
np_ones MemoryError
np_zeros ValueError
setitem IndexError
alive 6.0
END
expect 0 "alive 6.0" "$DY2ST" exec "$top_srcdir/tests/cli/hostile_sizes.py"
diff -u "$TMP/sizes.expected" "$TMP/out" || fail "hostile_sizes.py printed something else"
finish

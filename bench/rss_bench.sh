#!/bin/sh
# rss_bench.sh - peak RSS of `dy2st run` on every sample at batch 1 and 32, with the static
# memory plan on (the default) and off (DY2ST_PASSES=all,-memplan), and, given a dy2st built
# from an earlier commit, that build's. Run from the build tree:
#     bench/rss_bench.sh [BEFORE_DY2ST] > table.md
# Each sample is saved with Paddle's weights (tests/oracle/expected/NAME.npz); its inputs are
# the oracle's example inputs tiled along the dynamic (batch) axis to 1 and 32 rows ("fixed"
# where the sample has no dynamic axis). Each configuration runs REPS times (default 3), the
# configurations alternating, each in a fresh process under /usr/bin/time; the table holds the
# median maximum resident set size in KiB and the plan's arena from DY2ST_MEMPLAN_STATS.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
DY2ST=${DY2ST:-./dy2st}
BEFORE=${1:-}
REPS=${REPS:-3}
SAMPLES=${SAMPLES:-"simple_fc mnist_cnn lenet_branch char_rnn greedy_decoder lstm_cell lstm_tagger unet_small resnet_small transformer_encoder resnet18 mobilenetv3_small transformer_beam"}
[ -x "$DY2ST" ] || { echo "rss_bench.sh: $DY2ST is not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "rss_bench.sh: needs /usr/bin/time (Debian: time)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-rss.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
E="$top_srcdir/tests/oracle/expected"

cat >"$TMP/inputs.py" <<'PY'
import sys
import numpy as np
import _jst

py, npz, out, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mod = _jst._load_file(py)
arrays = _jst._load_npz(npz)
args = []
fixed = True
for i, spec in enumerate(mod.INPUT_SPEC):
    a = arrays["example/input" + str(i)].numpy()
    shape = list(spec.shape)
    if -1 in shape or None in shape:
        ax = shape.index(-1) if -1 in shape else shape.index(None)
        fixed = False
        n = a.shape[ax]
        a = np.concatenate([a] * ((batch + n - 1) // n), axis=ax)
        idx = [slice(None)] * a.ndim
        idx[ax] = slice(0, batch)
        a = a[tuple(idx)]
    path = out + "/in" + str(i) + "_b" + str(batch) + ".npy"
    np.save(path, a)
    args.append("--input " + spec.name + "=" + path)
print(("fixed" if fixed else "b" + str(batch)) + " " + " ".join(args))
PY

# peak KiB of one run: CONFIG ARGS...
peak() {
    cfg=$1
    shift
    case $cfg in
    on) DY2ST_MEMPLAN_STATS=1 /usr/bin/time -f "rss %M" "$DY2ST" run "$@" >/dev/null 2>"$TMP/err" ;;
    off) DY2ST_PASSES=all,-memplan /usr/bin/time -f "rss %M" "$DY2ST" run "$@" >/dev/null 2>"$TMP/err" ;;
    before) /usr/bin/time -f "rss %M" "$BEFORE" run "$@" >/dev/null 2>"$TMP/err" ;;
    esac
    sed -n 's/^rss //p' "$TMP/err"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "| sample | batch |${BEFORE:+ before (KiB) |} plan off (KiB) | plan on (KiB) | on / off | arena (bytes) | values' buffers (bytes) |"
echo "|---|---|${BEFORE:+---|}---|---|---|---|---|"
for s in $SAMPLES; do
    if ! "$DY2ST" save "$top_srcdir/samples/$s.py" --params "$E/$s.npz" -o "$TMP/$s.dy2st" >"$TMP/log" 2>&1; then
        echo "rss_bench.sh: $s: save failed" >&2
        continue
    fi
    seen=""
    for b in 1 32; do
        line=$("$DY2ST" exec "$TMP/inputs.py" "$top_srcdir/samples/$s.py" "$E/$s.npz" "$TMP" "$b") || continue
        label=${line%% *}
        args=${line#* }
        case " $seen " in *" $label "*) continue ;; esac
        seen="$seen $label"
        on="" off="" bef=""
        for r in $(seq "$REPS"); do
            # shellcheck disable=SC2086
            [ -n "$BEFORE" ] && bef="$bef $(peak before "$TMP/$s.dy2st" $args)"
            # shellcheck disable=SC2086
            off="$off $(peak off "$TMP/$s.dy2st" $args)"
            # shellcheck disable=SC2086
            on="$on $(peak on "$TMP/$s.dy2st" $args)"
        done
        arena=$(sed -n 's/.* arena \([0-9]*\) bytes (buffers \([0-9]*\)).*/\1 | \2/p' "$TMP/err")
        mon=$(echo "$on" | median)
        moff=$(echo "$off" | median)
        ratio=$(awk -v a="$mon" -v b="$moff" 'BEGIN { printf "%.3f", a / b }')
        if [ -n "$BEFORE" ]; then
            echo "| $s | $label | $(echo "$bef" | median) | $moff | $mon | $ratio | ${arena:-0 | 0} |"
        else
            echo "| $s | $label | $moff | $mon | $ratio | ${arena:-0 | 0} |"
        fi
    done
done

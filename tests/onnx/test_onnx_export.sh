#!/bin/sh
# test_onnx_export.sh - ONNX files 'dy2st export' writes, checked by ONNX itself and run by
# ONNX Runtime against 'dy2st run' on the same inputs (tests/onnx/check_onnx.py: the full
# onnx.checker, then every output within 1e-5 + 1e-5 |want|, integers exactly).
#   samples: saved with Paddle's weights (tests/oracle/expected/NAME.npz) and exported at
#     opset 13, run on every input set of the oracle's goldens; the control-flow samples
#     must keep If / Loop / sequences (lenet_branch's cond, char_rnn's and greedy_decoder's
#     while loops with break, lstm_cell's list grown in a loop), and are exported at
#     opset 21 too; mnist_cnn with --external-data; simple_fc straight from FILE.py.
#   the to_static corpus (tests/py_static/*.py): with DY2ST_ONNX_CHECK_DIR set, every
#     converted Program a script runs is exported with its inputs and outputs; every one
#     that exports must pass (the ops that cannot be exported are listed).
#   the fused convolution of the inference passes (tests/onnx/conv_fused.d2p), unfused.
#   the ops ONNX has no single operator for, as compositions (tests/onnx/axis_ops.d2p), and
#   those whose operator is newer than opset 13 (tests/onnx/opset13_ops.d2p) at 13 and 18,
#   and lgamma / digamma / erfinv in float64 (tests/onnx/special_ops.d2p).
#   paddle.onnx.export in a script (Paddle's documented example).
# Skips (exit 77) when the oracle environment (tests/oracle/install.sh) lacks onnx or
# onnxruntime.
. "${top_srcdir:-.}/tests/cli/lib.sh"
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
need_dy2st
PY="$top_srcdir/tests/oracle/venv/bin/python"
if [ ! -x "$PY" ]; then
    echo "SKIP: no oracle environment (tests/oracle/venv): run tests/oracle/install.sh"
    exit 77
fi
if ! "$PY" -c "import onnx, onnxruntime" >/dev/null 2>&1; then
    echo "SKIP: onnx or onnxruntime missing in tests/oracle/venv: run tests/oracle/install.sh"
    exit 77
fi
make_tmp onnx-export
S="$top_srcdir/samples"
E="$top_srcdir/tests/oracle/expected"
M="$TMP/manifest.tsv"
: >"$M"

# add NAME ONNX MODEL OPS: runs MODEL (a saved model) with dy2st on every input set of
# sample NAME and adds a manifest line per set comparing ONNX with it
add() {
    name=$1 onnx=$2 model=$3 ops=$4
    d="$TMP/$name.d"
    mkdir -p "$d"
    "$DY2ST" exec "$top_srcdir/tests/cli/oracle_inputs.py" "$S/$name.py" "$E/$name.npz" "$d" >"$d/sets" 2>"$d/err" ||
        { fail "inputs of $name: $(cat "$d/err")"; return; }
    while read -r st rest; do
        args="" files=""
        for kv in $rest; do
            [ "$kv" = --input ] && continue # oracle_inputs.py prints --input NAME=FILE
            args="$args --input $kv"
            files="$files${files:+,}${kv#*=}"
        done
        out="$d/$(basename "$onnx" .onnx)_$st"
        # shellcheck disable=SC2086
        "$DY2ST" run "$model" $args --output-dir "$out" >"$d/run" 2>"$d/err" ||
            { fail "dy2st run $name $st: $(cat "$d/err")"; continue; }
        # "NAME: TYPE -> FILE", one line per output in order
        outs=$(sed -n 's/.* -> //p' "$d/run" | tr '\n' ',' | sed 's/,$//')
        printf '%s\t%s\t%s\t%s\n' "$onnx" "$files" "$outs" "$ops" >>"$M"
    done <"$d/sets"
}

ops_of() {
    case $1 in
    lenet_branch) echo If ;;
    char_rnn) echo Loop ;;
    greedy_decoder) echo Loop,If,SequenceInsert,ConcatFromSequence ;;
    lstm_cell) echo Loop,SequenceInsert,ConcatFromSequence ;;
    lstm_tagger) echo Loop ;;
    *) echo - ;;
    esac
}

for name in simple_fc mnist_cnn lenet_branch char_rnn greedy_decoder lstm_cell lstm_tagger \
    unet_small resnet_small transformer_encoder; do
    model="$TMP/$name.dy2st"
    "$DY2ST" save "$S/$name.py" --params "$E/$name.npz" -o "$model" >/dev/null 2>"$TMP/err" ||
        { fail "dy2st save $name: $(cat "$TMP/err")"; continue; }
    expect 0 "exported $TMP/$name.onnx" "$DY2ST" export "$model" -o "$TMP/$name.onnx" || continue
    add "$name" "$TMP/$name.onnx" "$model" "$(ops_of "$name")"
    case $name in
    lenet_branch | char_rnn | greedy_decoder | lstm_cell)
        expect 0 "exported" "$DY2ST" export "$model" --opset 21 -o "$TMP/${name}_21.onnx" &&
            add "$name" "$TMP/${name}_21.onnx" "$model" "$(ops_of "$name")"
        ;;
    mnist_cnn)
        expect 0 "exported" "$DY2ST" export "$model" --external-data -o "$TMP/mnist_ext.onnx" &&
            add "$name" "$TMP/mnist_ext.onnx" "$model" -
        [ -s "$TMP/mnist_ext.onnx.data" ] || fail "--external-data wrote no $TMP/mnist_ext.onnx.data"
        ;;
    simple_fc)
        expect 0 "exported $TMP/fc_py.onnx" "$DY2ST" export "$S/simple_fc.py" \
            --params "$E/simple_fc.npz" -o "$TMP/fc_py.onnx" &&
            add "$name" "$TMP/fc_py.onnx" "$model" -
        ;;
    esac
done

# the fused convolution of the inference passes, written as Conv + Add + Relu
"$PY" -c "
import numpy as np
rng = np.random.RandomState(0)
np.save('$TMP/cf_x.npy', rng.randn(3, 1, 4, 4).astype('float32'))
np.save('$TMP/cf_r.npy', rng.randn(3, 2, 2, 2).astype('float32'))
" || fail "inputs of conv_fused.d2p"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/conv_fused.d2p" -o "$TMP/cf.onnx" &&
    "$DY2ST" run "$top_srcdir/tests/onnx/conv_fused.d2p" --input "x=$TMP/cf_x.npy" \
        --input "r=$TMP/cf_r.npy" --output-dir "$TMP/cf" >/dev/null 2>&1 &&
    printf '%s\t%s\t%s\tConv,Add,Relu\n' "$TMP/cf.onnx" "$TMP/cf_x.npy,$TMP/cf_r.npy" \
        "$TMP/cf/y.npy,$TMP/cf/z.npy" >>"$M" || fail "conv_fused.d2p"

# the other fused ops of the inference passes: linear_fused, and conv2d_fused in NHWC
"$PY" -c "
import numpy as np
rng = np.random.RandomState(1)
np.save('$TMP/fo_x.npy', rng.randn(3, 4).astype('float32'))
np.save('$TMP/fo_u.npy', rng.randn(2, 2, 6, 5).astype('float32'))
" || fail "inputs of fused_ops.d2p"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/fused_ops.d2p" -o "$TMP/fo.onnx" &&
    DY2ST_PASSES=none "$DY2ST" run "$top_srcdir/tests/onnx/fused_ops.d2p" \
        --input "x=$TMP/fo_x.npy" --input "u=$TMP/fo_u.npy" --output-dir "$TMP/fo" >/dev/null 2>&1 &&
    printf '%s\t%s\t%s\tMatMul,Transpose,Conv,Relu,Erf,Tanh\n' "$TMP/fo.onnx" \
        "$TMP/fo_x.npy,$TMP/fo_u.npy" "$TMP/fo/g4.npy,$TMP/fo/c3.npy" >>"$M" || fail "fused_ops.d2p"

# the fused ops of the elementwise fusion passes: fused_elementwise, add_layer_norm,
# batch_norm_act (NaN and infinities in x)
"$PY" -c "
import numpy as np
rng = np.random.RandomState(2)
x = rng.randn(5, 4).astype('float32') * 2
x[0, 1] = np.nan
x[1, 2] = np.inf
x[2, 3] = -np.inf
np.save('$TMP/ef_x.npy', x)
np.save('$TMP/ef_y.npy', rng.randn(5, 4).astype('float32'))
np.save('$TMP/ef_u.npy', rng.randn(3, 2, 3, 3).astype('float32'))
" || fail "inputs of elementwise_fused.d2p"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/elementwise_fused.d2p" -o "$TMP/ef.onnx" &&
    DY2ST_PASSES=none "$DY2ST" run "$top_srcdir/tests/onnx/elementwise_fused.d2p" \
        --input "x=$TMP/ef_x.npy" --input "y=$TMP/ef_y.npy" --input "u=$TMP/ef_u.npy" \
        --output-dir "$TMP/ef" >/dev/null 2>&1 &&
    printf '%s\t%s\t%s\tErf,Tanh,Sigmoid,ReduceMean,BatchNormalization,Relu\n' "$TMP/ef.onnx" \
        "$TMP/ef_x.npy,$TMP/ef_y.npy,$TMP/ef_u.npy" "$TMP/ef/n1.npy,$TMP/ef/a2.npy" >>"$M" ||
    fail "elementwise_fused.d2p"

# the ops without a single ONNX operator, as compositions (tests/onnx/axis_ops.d2p): ties,
# zeros, negatives and NaN along the axis; repeated and negative scatter indices
"$PY" -c "
import numpy as np
rng = np.random.RandomState(3)
x = rng.randint(-3, 4, size=(5, 6)).astype('float32')
x[0, 2] = x[3, 1] = x[3, 4] = np.nan
x[1, :] = 0
xs = (rng.randint(-4, 5, size=(5, 6)) * 0.5).astype('float32')
a = rng.randint(-12, 13, size=(5, 6)).astype('int64')
b = rng.randint(-18, 19, size=(5, 6)).astype('int64')
a[0, 0] = b[0, 0] = a[1, 1] = 0
a[2, :] = [2 ** 40, -(2 ** 41), 3 ** 25, 7, 0, -1]
b[2, :] = [2 ** 20 * 3, 2 ** 35, 3 ** 30, 0, 5, 1]
np.save('$TMP/ax_x.npy', x)
np.save('$TMP/ax_xs.npy', xs)
np.save('$TMP/ax_a.npy', a)
np.save('$TMP/ax_b.npy', b)
np.save('$TMP/ax_idx.npy', np.array([1, -1, 1, 3], dtype='int64'))
np.save('$TMP/ax_upd.npy', rng.randn(4, 6).astype('float32'))
" || fail "inputs of axis_ops.d2p"
ax_in="" ax_args=""
for v in x xs a b idx upd; do
    ax_in="$ax_in${ax_in:+,}$TMP/ax_$v.npy"
    ax_args="$ax_args --input $v=$TMP/ax_$v.npy"
done
ax_out=""
for v in cp cp0 cpr cpf ap ls lse mx mxi mn mni ax axi s si sd sdi ia iai r1 r2 so sa g l; do
    ax_out="$ax_out${ax_out:+,}$TMP/ax/$v.npy"
done
# shellcheck disable=SC2086
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/axis_ops.d2p" -o "$TMP/ax.onnx" &&
    "$DY2ST" run "$top_srcdir/tests/onnx/axis_ops.d2p" $ax_args --output-dir "$TMP/ax" >/dev/null 2>&1 &&
    printf '%s\t%s\t%s\tReduceProd,ArgMax,ScatterElements,Mod\n' "$TMP/ax.onnx" "$ax_in" "$ax_out" \
        >>"$M" || fail "axis_ops.d2p"

# ops whose ONNX operator came after opset 13 (tests/onnx/opset13_ops.d2p): at opset 13 as
# compositions, at opset 18 as Trilu, Bitwise*, ScatterND; int32 / int64 extremes for the bits
"$PY" -c "
import numpy as np
rng = np.random.RandomState(5)
v = {}
v['x'] = rng.randn(4, 5).astype('float32')
for n, t, lo in [('a', 'int32', 2 ** 31), ('b', 'int32', 2 ** 31), ('c', 'int64', 2 ** 62), ('d', 'int64', 2 ** 62)]:
    v[n] = rng.randint(-lo, lo - 1, size=(4, 5)).astype(t)
v['a'][0, :] = [0, -1, -2 ** 31, 2 ** 31 - 1, 5]
v['b'][0, :] = [0, -1, -1, -2 ** 31, 3]
v['c'][0, :] = [0, -1, -2 ** 63, 2 ** 63 - 1, 5]
v['d'][0, :] = [0, -1, -1, -2 ** 63, 3]
v['p'] = rng.rand(4, 5) > 0.5
v['q'] = rng.rand(4, 5) > 0.5
v['s'] = rng.randn(3, 4, 2).astype('float32')
v['si'] = np.array([[0, 1], [2, 3], [0, 1], [-1, 0], [1, -2]], dtype='int64')
v['su'] = rng.randn(5, 2).astype('float32')
v['ci'] = np.array([rng.permutation(5) for _ in range(4)], dtype='int64')
for n, a in v.items():
    np.save('$TMP/o13_' + n + '.npy', a)
" || fail "inputs of opset13_ops.d2p"
o_in="" o_args="" o_out=""
for v in x a b c d p q s si su ci; do
    o_in="$o_in${o_in:+,}$TMP/o13_$v.npy"
    o_args="$o_args --input $v=$TMP/o13_$v.npy"
done
for v in t1 t2 t3 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 sn pa; do
    o_out="$o_out${o_out:+,}$TMP/o13/$v.npy"
done
# shellcheck disable=SC2086
"$DY2ST" run "$top_srcdir/tests/onnx/opset13_ops.d2p" $o_args --output-dir "$TMP/o13" >/dev/null 2>&1 ||
    fail "dy2st run opset13_ops.d2p"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/opset13_ops.d2p" -o "$TMP/o13.onnx" &&
    printf '%s\t%s\t%s\tWhere,Mod,MatMul,ScatterElements\n' "$TMP/o13.onnx" "$o_in" "$o_out" >>"$M"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/opset13_ops.d2p" --opset 18 -o "$TMP/o18.onnx" &&
    printf '%s\t%s\t%s\tTrilu,BitwiseAnd,BitwiseNot,ScatterND\n' "$TMP/o18.onnx" "$o_in" "$o_out" >>"$M"

# lgamma, digamma, erfinv in float64 (tests/onnx/special_ops.d2p): small, large, negative, whole
# (the poles), infinite and NaN inputs, random ones, and erfinv's float32 values nearest +-1
"$PY" -c "
import numpy as np
rng = np.random.RandomState(7)
v = np.concatenate([[1e-6, 1e-3, 0.1, 0.5, 1, 1.5, 2, 2.5, 3, 7.25, 9.99, 10, 10.5, 33.3, 171.5,
                     1e4, 3e6, 0, -0.5, -1, -2, -2.5, -3.75, -10.2, -100.5, -1e-4, np.inf,
                     -np.inf, np.nan], rng.uniform(-20, 40, 200), rng.uniform(0, 3, 50)])
np.save('$TMP/sp_x.npy', v.astype('float32'))
np.save('$TMP/sp_y.npy', v.astype('float64'))
one = np.float32(1)
z = np.concatenate([np.linspace(-1, 1, 20001), 1 - np.logspace(-7, -1, 300), -1 + np.logspace(-7, -1, 300),
                    [np.nextafter(one, 0), -np.nextafter(one, 0), 1.5, -2, 0, np.nan]])
np.save('$TMP/sp_z.npy', z.astype('float32'))
" || fail "inputs of special_ops.d2p"
expect 0 "exported" "$DY2ST" export "$top_srcdir/tests/onnx/special_ops.d2p" -o "$TMP/sp.onnx" &&
    "$DY2ST" run "$top_srcdir/tests/onnx/special_ops.d2p" --input "x=$TMP/sp_x.npy" \
        --input "y=$TMP/sp_y.npy" --input "z=$TMP/sp_z.npy" --output-dir "$TMP/sp" >/dev/null 2>&1 &&
    printf '%s\t%s\t%s\tLog,Floor\n' "$TMP/sp.onnx" "$TMP/sp_x.npy,$TMP/sp_y.npy,$TMP/sp_z.npy" \
        "$TMP/sp/lg.npy,$TMP/sp/dg.npy,$TMP/sp/lg64.npy,$TMP/sp/dg64.npy,$TMP/sp/ei.npy" >>"$M" ||
    fail "special_ops.d2p"

# paddle.onnx.export, as Paddle documents it (the layer's own weights; path + ".onnx")
cat >"$TMP/doc_export.py" <<PY
import numpy as np
import paddle


class LinearNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = paddle.nn.Linear(128, 10)

    def forward(self, x):
        return self._linear(x)


layer = LinearNet()
save_path = "$TMP/onnx.save/linear_net"
x_spec = paddle.static.InputSpec(shape=[None, 128], dtype="float32", name="x")
paddle.onnx.export(layer, save_path, input_spec=[x_spec], opset_version=11)
x = paddle.rand([3, 128])
np.save("$TMP/doc_x.npy", x.numpy())
np.save("$TMP/doc_y.npy", layer(x).numpy())
PY
expect 0 "" "$DY2ST" exec "$TMP/doc_export.py" &&
    printf '%s\t%s\t%s\t-\n' "$TMP/onnx.save/linear_net.onnx" "$TMP/doc_x.npy" "$TMP/doc_y.npy" >>"$M"

# the corpus: every converted Program run on concrete inputs
mkdir "$TMP/corpus" "$TMP/cwd"
for f in "$top_srcdir"/tests/py_static/*.py; do
    # (in a scratch directory: some scripts save models where they run)
    (cd "$TMP/cwd" && DY2ST_ONNX_CHECK_DIR="$TMP/corpus" "$DY2ST" exec "$f" >/dev/null 2>&1) ||
        fail "dy2st exec $f failed with DY2ST_ONNX_CHECK_DIR set"
done
n_corpus=$(wc -l <"$TMP/corpus/manifest.tsv" 2>/dev/null || echo 0)
[ "$n_corpus" -ge 100 ] || fail "only $n_corpus corpus Programs were exported"
cat "$TMP/corpus/manifest.tsv" >>"$M" 2>/dev/null
if [ -s "$TMP/corpus/skipped.txt" ]; then
    echo "corpus Programs that cannot be exported (by reason):"
    sed 's/^[^:]*: //; s/^line [0-9]*:[0-9]*: //' "$TMP/corpus/skipped.txt" | sort | uniq -c
fi

checks=$((checks + 1))
if ! "$PY" "$top_srcdir/tests/onnx/check_onnx.py" "$M" >"$TMP/check.out" 2>&1; then
    grep -v '^ok ' "$TMP/check.out"
    fail "ONNX Runtime disagrees with dy2st (above)"
else
    tail -n 1 "$TMP/check.out"
fi
finish

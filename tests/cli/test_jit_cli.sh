#!/bin/sh
# test_jit_cli.sh - dy2st convert, program and save: outputs, saved models that run, errors, exit codes.
# Converted sources are compared with the transform goldens (CPython's ast.unparse of the expected
# trees); saved models are run with 'dy2st run'.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st

make_tmp jit-cli
S="$top_srcdir/samples"
G="$top_srcdir/tests/golden/transform"

# ---- convert: the transform goldens, NAME selection, unsupported syntax
for f in if_else loops break_continue returns bool_ops mixed; do
    checks=$((checks + 1))
    "$DY2ST" convert "$G/$f.py" >"$TMP/conv" 2>"$TMP/err" || fail "convert $f.py failed"
    cmp -s "$TMP/conv" "$G/$f.converted.py" || fail "convert $f.py differs from $f.converted.py"
done
expect 0 "_jst.While(" "$DY2ST" convert "$S/char_rnn.py:CharRNN"
expect 1 "no function or class named 'Nope'" "$DY2ST" convert "$S/char_rnn.py:Nope"
expect 0 "warning: 'try' statement cannot be converted" "$DY2ST" convert "$G/unsupported.py"
expect 1 "cannot fall back to tracing" "$DY2ST" convert --no-fallback "$G/unsupported.py"
expect 1 "cannot read" "$DY2ST" convert "$TMP/missing.py"
expect 2 "no FILE.py given" "$DY2ST" convert

# ---- program: text and DOT forms, inputs from INPUT_SPEC or --input
expect 0 "= cond(" "$DY2ST" program "$S/lenet_branch.py"
expect 0 "block ^0 (image : float32[-1,1,28,28])" "$DY2ST" program "$S/lenet_branch.py:LeNetBranch"
expect 0 "block ^0 (x : float32[3,1,28,28])" \
    "$DY2ST" program "$S/lenet_branch.py:build_model" --input "x:float32[3,1,28,28]"
expect 0 "= while_loop(" "$DY2ST" program "$S/char_rnn.py" --input "ids:int64[None,None]"
expect 0 "digraph" "$DY2ST" program "$S/greedy_decoder.py" --dot
expect 2 "bad input" "$DY2ST" program "$S/char_rnn.py" --input "ids:int64[1"
# program --passes: the Program after the graph passes, each pass's count (on stderr)
expect 0 '= fused_elementwise(' "$DY2ST" program "$S/lstm_cell.py:LSTMCellLoop" --passes all
expect 0 "pass fuse_elementwise: 2 rewrites" \
    "$DY2ST" program "$S/lstm_cell.py:LSTMCellLoop" --passes=fuse_elementwise,dce
expect 2 "unknown pass 'fusion'" "$DY2ST" program "$S/lstm_cell.py" --passes fusion
expect 2 "unknown option '--frob'" "$DY2ST" program "$S/char_rnn.py" --frob
expect_exact 1 "dy2st: error: $S/char_rnn.py:Nope: no class or function 'Nope' in $S/char_rnn.py" \
    "$DY2ST" program "$S/char_rnn.py:Nope"
expect 1 "returned a" "$DY2ST" program "$S/char_rnn.py:example_inputs"
expect_exact 1 "dy2st: error: $TMP/missing.py: no such file" "$DY2ST" program "$TMP/missing.py"
expect_exact 1 "dy2st: error: $TMP/missing.py:Net: no such file" "$DY2ST" save "$TMP/missing.py:Net" -o "$TMP/m.dy2st"
expect_exact 1 "dy2st: error: $S/simple_fc.py:BATCH_SIZE: expected a Layer or a function to convert, got int" \
    "$DY2ST" program "$S/simple_fc.py:BATCH_SIZE"
expect_exact 1 "dy2st: error: --params $TMP/none.npz: No such file or directory" \
    "$DY2ST" program "$S/greedy_decoder.py:GreedyDecoder" --params "$TMP/none.npz"
# an error inside the model's code points at the model file, with its line and a caret,
# and nothing of the command's own driver shows
cat >"$TMP/typo.py" <<PY
import paddle


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(y)


INPUT_SPEC = [paddle.static.InputSpec([-1, 4], "float32", "x")]
PY
typo_err="$TMP/typo.py:10:24: error: NameError: name 'y' is not defined
        return self.fc(y)
                       ^"
expect_exact 1 "$typo_err" "$DY2ST" program "$TMP/typo.py:Net"
expect_exact 1 "dy2st: error: $TMP/typo.py: no build_model() in $TMP/typo.py; name the Layer class or function as $TMP/typo.py:NAME" \
    "$DY2ST" trace "$TMP/typo.py" -o "$TMP/t.dy2st"
no_params="dy2st: warning: no --params given: saving the layer's initial (random) weights"
expect_exact 1 "$no_params
$typo_err" "$DY2ST" trace "$TMP/typo.py:Net" -o "$TMP/t.dy2st"
expect_exact 1 "$no_params
$typo_err" "$DY2ST" save "$TMP/typo.py:Net" -o "$TMP/t.dy2st"


# ---- shape specialisation: a call with concrete tensors whose InputSpec build fails runs a
# Program specialised on its shapes (one warning per failing site, one Program per shape);
# saving the InputSpec signature still reports the error at the user's line
cat >"$TMP/spec.py" <<PY
import paddle
from paddle.static import InputSpec


@paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "x")])
def build_model(x):
    if x.shape[0] > 1:
        y = paddle.cast(x, "float64")
    else:
        y = paddle.cast(x, "int64")
    return y


if __name__ == "__main__":
    import _jst
    print(build_model(paddle.ones([2, 3])).dtype, build_model(paddle.ones([1, 3])).dtype)
    print(build_model(paddle.ones([2, 3])).dtype, _jst._cache_size(build_model))
PY
spec_err="$TMP/spec.py:7:5: error: TypeError: 'y' is a float64[-1,3] tensor in the true branch but a int64[-1,3] tensor in the false branch of the if at spec.py:7; both branches must give the same dtype
    if x.shape[0] > 1:
    ^~~~~~~~~~~~~~~~~~"
expect_exact 0 "$TMP/spec.py:7:5: warning: build_model() cannot be built for its InputSpec's dynamic dims (TypeError: 'y' is a float64[-1,3] tensor in the true branch but a int64[-1,3] tensor in the false branch of the if at spec.py:7; both branches must give the same dtype); it is specialised on the shapes of this call (x: float32[2,3]), as Paddle's default to_static does
    if x.shape[0] > 1:
    ^~~~~~~~~~~~~~~~~~
paddle.float64 paddle.int64
paddle.float64 2" "$DY2ST" exec "$TMP/spec.py"
expect_exact 1 "$spec_err" "$DY2ST" save "$TMP/spec.py" -o "$TMP/spec.dy2st"
cat >>"$TMP/spec.py" <<PY
    paddle.jit.save(build_model, "$TMP/spec_saved")
PY
expect 1 "$spec_err" "$DY2ST" exec "$TMP/spec.py"
# ---- save: a saved model that 'dy2st run' and 'dy2st show' read
expect_exact 0 "saved $TMP/fc.dy2st" "$DY2ST" save "$S/simple_fc.py" \
    --params "$top_srcdir/tests/oracle/expected/simple_fc.npz" -o "$TMP/fc.dy2st"
expect 0 "param linear_0.w_0 : float32[784,10]" "$DY2ST" show "$TMP/fc.dy2st"
cat >"$TMP/mk.py" <<PY
import numpy as np
np.save("$TMP/x.npy", np.ones((4, 784), dtype="float32"))
PY
expect 0 "" "$DY2ST" exec "$TMP/mk.py"
expect 0 "output_0: float32[4,10]" "$DY2ST" run "$TMP/fc.dy2st" --input "x=$TMP/x.npy"
expect_exact 1 "dy2st: error: $TMP/fc.dy2st: missing input 'x' (float32[4,784]); pass --input x=FILE.npy" \
    "$DY2ST" run "$TMP/fc.dy2st"
# without --params the layer's random initial weights are saved, with a warning
expect_exact 0 "dy2st: warning: no --params given: saving the layer's initial (random) weights
saved $TMP/gd.dy2st" "$DY2ST" save "$S/greedy_decoder.py:GreedyDecoder" -o "$TMP/gd.dy2st"
expect_exact 1 "dy2st: warning: no --params given: saving the layer's initial (random) weights
dy2st: error: -o $TMP/no/gd.dy2st: cannot create: No such file or directory" \
    "$DY2ST" save "$S/greedy_decoder.py:GreedyDecoder" -o "$TMP/no/gd.dy2st"
expect 0 "while_loop(" "$DY2ST" show "$TMP/gd.dy2st"
expect 2 "no output file given" "$DY2ST" save "$S/simple_fc.py"
# --params FILE.pdparams (paddle.save's pickle) gives the model that the same
# parameters as .npz give, and Paddle's output (tolerance 1e-6)
PK="$top_srcdir/tests/golden/pickle"
expect 0 "saved $TMP/p.dy2st" "$DY2ST" save "$PK/tiny_fc.py" --params "$PK/tiny_fc.pdparams" \
    -o "$TMP/p.dy2st"
expect 0 "saved $TMP/z.dy2st" "$DY2ST" save "$PK/tiny_fc.py" --params "$PK/tiny_fc.npz" \
    -o "$TMP/z.dy2st"
cat >"$TMP/pk.py" <<PY
import numpy as np
np.save("$TMP/xs.npy", (np.arange(12, dtype="float32").reshape(3, 4) - 5) / 4)
PY
expect 0 "" "$DY2ST" exec "$TMP/pk.py"
expect 0 "output_0: float32[3,2]" "$DY2ST" run "$TMP/p.dy2st" --input "x=$TMP/xs.npy" \
    --output-dir "$TMP/op"
expect 0 "output_0: float32[3,2]" "$DY2ST" run "$TMP/z.dy2st" --input "x=$TMP/xs.npy" \
    --output-dir "$TMP/oz"
cat >"$TMP/pkcmp.py" <<PY
import numpy as np
p, z = np.load("$TMP/op/output_0.npy"), np.load("$TMP/oz/output_0.npy")
assert np.array_equal(p, z), "pdparams and npz models differ"
assert np.allclose(p, np.load("$PK/tiny_fc_out.npy"), rtol=1e-6, atol=1e-6), "differs from Paddle"
print("same")
PY
expect 0 "same" "$DY2ST" exec "$TMP/pkcmp.py"
expect 1 "STACK_GLOBAL: 'posix.system' is not allowed" "$DY2ST" save "$PK/tiny_fc.py" \
    --params "$PK/bad_os_system.pkl" -o "$TMP/w.dy2st"
expect 1 "truncated" "$DY2ST" program "$PK/tiny_fc.py" --params "$PK/bad_truncated.pkl"
expect 1 "No such file" "$DY2ST" save "$S/simple_fc.py" --params "$TMP/w.pdparams" -o "$TMP/w.dy2st"
# paddle.load + set_state_dict in a script
cat >"$TMP/pl.py" <<PY
import numpy as np
import paddle
class TinyFc(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 5)
        self.fc2 = paddle.nn.Linear(5, 2)
    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))
m = TinyFc()
sd = paddle.load("$PK/tiny_fc.pdparams")
print(sorted(sd.keys()))
m.set_state_dict(sd)
m.eval()
y = m(paddle.to_tensor(np.load("$TMP/xs.npy")))
assert np.allclose(y.numpy(), np.load("$PK/tiny_fc_out.npy"), rtol=1e-6, atol=1e-6)
print("loaded", type(sd["fc1.weight"]).__name__)
PY
expect 0 "loaded Tensor" "$DY2ST" exec "$TMP/pl.py"
cat >"$TMP/pe.py" <<PY
import paddle
paddle.load("$PK/bad_eval.pkl")
PY
expect 1 "'__builtin__.eval' is not allowed" "$DY2ST" exec "$TMP/pe.py"
# sys.exit(n) is the process's exit status, as under CPython; a message exits 1
printf 'import sys\nprint("leaving")\nsys.exit(3)\n' >"$TMP/exit3.py"
expect 3 "leaving" "$DY2ST" exec "$TMP/exit3.py"
printf 'import sys\nsys.exit(0)\n' >"$TMP/exit0.py"
expect 0 "" "$DY2ST" exec "$TMP/exit0.py"
printf 'import sys\nsys.exit("bad input")\n' >"$TMP/exitmsg.py"
expect 1 "bad input" "$DY2ST" exec "$TMP/exitmsg.py"
expect 1 "is not in the model's state_dict" "$DY2ST" save "$S/mnist_cnn.py" \
    --params "$top_srcdir/tests/oracle/expected/simple_fc.npz" -o "$TMP/m.dy2st"
expect 0 "save FILE.py[:NAME]" "$DY2ST" help save

# ---- the build-script sample: jit.save and TracedLayer.save_inference_model,
# each checked against the eager layer inside the script, then run from C
expect 0 "mnist_traced: saved, feeds 1 fetches 1 output [2, 10] matches eager" \
    "$DY2ST" exec "$S/build_models.py" "$TMP/built"
expect 0 "output_0: float32[4,10]" "$DY2ST" run "$TMP/built/lenet.dy2st" \
    --input "image=$TMP/built/image.npy"

# ---- training through to_static, then jit.save: the saved model holds the
# trained weights ('dy2st run' gives the trained layer's outputs)
cat >"$TMP/jtrain.py" <<PY
import numpy as np
import paddle


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(3, 4)
        self.fc2 = paddle.nn.Linear(4, 1)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


paddle.seed(3)
net = MLP()
x = paddle.to_tensor(np.linspace(-1, 1, 24).reshape(8, 3).astype("float32"))
t = x.sum(axis=1, keepdim=True) * 0.5
before = net(x).numpy()
opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())
for step in range(5):
    loss = ((net(x) - t) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
after = net(x).numpy()
print("trained", float(np.abs(after - before).max()) > 1e-3)
paddle.jit.save(net, "$TMP/jtrain/model")
np.save("$TMP/jtrain_x.npy", x.numpy())
np.save("$TMP/jtrain_want.npy", after)
PY
expect_exact 0 "trained True" "$DY2ST" exec "$TMP/jtrain.py"
expect 0 "" "$DY2ST" run "$TMP/jtrain/model.dy2st" --input "x=$TMP/jtrain_x.npy" -o "$TMP/jtrain_out"
cat >"$TMP/jtrain_cmp.py" <<PY
import numpy as np
got = np.load("$TMP/jtrain_out/output_0.npy")
want = np.load("$TMP/jtrain_want.npy")
print("saved model gives the trained outputs", got.shape == want.shape and np.allclose(got, want, atol=1e-6))
PY
expect_exact 0 "saved model gives the trained outputs True" "$DY2ST" exec "$TMP/jtrain_cmp.py"

# ---- the cache of parsed sources: beside the source by default, in
# DY2ST_CACHE_DIR when set, off with DY2ST_CACHE=off; the Program and a
# script's output are the same cold, warm, off, and after a corrupt,
# truncated or stale cache file, which is rebuilt
mkdir "$TMP/csrc" "$TMP/cdir"
cp "$S/lenet_branch.py" "$TMP/csrc/"
CS="$TMP/csrc/lenet_branch.py"
CF="$TMP/csrc/__dy2st_cache__/lenet_branch.py.ast"
DY2ST_CACHE=off "$DY2ST" program "$CS" >"$TMP/prog-off.txt" 2>&1 || fail "program with the cache off failed"
[ ! -e "$TMP/csrc/__dy2st_cache__" ] || fail "DY2ST_CACHE=off wrote a cache"
for run in cold warm corrupt truncated; do
    case $run in
    corrupt) printf 'garbage' | dd of="$CF" bs=1 seek=60 conv=notrunc 2>/dev/null ;;
    truncated) head -c 100 "$CF" >"$TMP/cut" && mv "$TMP/cut" "$CF" ;;
    esac
    env -u DY2ST_CACHE_DIR "$DY2ST" program "$CS" >"$TMP/prog-$run.txt" 2>&1 || fail "program ($run cache) failed"
    checks=$((checks + 1))
    cmp -s "$TMP/prog-off.txt" "$TMP/prog-$run.txt" || fail "the Program differs with a $run cache"
    [ -s "$CF" ] || fail "no cache file beside the source after a $run run"
done
cp "$CF" "$TMP/cf-before"
sed 's/nn.Linear(84, num_classes)/nn.Linear(84, num_classes + 1)/' "$CS" >"$TMP/stale" && cat "$TMP/stale" >"$CS"
DY2ST_CACHE=off "$DY2ST" program "$CS" >"$TMP/prog-off2.txt" 2>&1 || fail "program of the changed source failed"
env -u DY2ST_CACHE_DIR "$DY2ST" program "$CS" >"$TMP/prog-stale.txt" 2>&1 || fail "program (stale cache) failed"
checks=$((checks + 1))
cmp -s "$TMP/prog-off2.txt" "$TMP/prog-stale.txt" || fail "the Program differs with a stale cache"
cmp -s "$TMP/cf-before" "$CF" && fail "a stale cache file was not rewritten"
cat >"$TMP/csrc/run.py" <<'PY'
import numpy as np
import paddle
x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
print(paddle.tanh(paddle.matmul(x, x.T) + 0.1).numpy().round(4).tolist())
PY
for run in off cold warm; do
    case $run in off) c=off ;; *) c=1 ;; esac
    DY2ST_CACHE=$c DY2ST_CACHE_DIR="$TMP/cdir" "$DY2ST" exec "$TMP/csrc/run.py" >"$TMP/run-$run.txt" 2>&1 || fail "exec ($run) failed"
    checks=$((checks + 1))
    cmp -s "$TMP/run-off.txt" "$TMP/run-$run.txt" || fail "exec prints other output with a $run cache"
done
[ "$(ls "$TMP/cdir" | grep -c '^run.py-.*\.ast$')" = 1 ] || fail "DY2ST_CACHE_DIR does not hold run.py's cache file"
[ ! -e "$TMP/csrc/__dy2st_cache__/run.py.ast" ] || fail "DY2ST_CACHE_DIR was not used"

finish

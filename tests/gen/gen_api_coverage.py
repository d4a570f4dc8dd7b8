"""Writes doc/api-coverage.md: which names of Paddle 2.6's public API dy2st has.

    <python with paddlepaddle 2.6> tests/gen/gen_api_coverage.py [--dy2st PATH]

(for instance the oracle environment made by tests/oracle/install.sh), from the
top of a built tree. The list of names comes from real Paddle: the `__all__`
of each module below (paddle.tensor has none: its public non-module
attributes), and the public methods and properties of paddle.Tensor (looked up
on a tensor, as scripts do). dy2st's
side is read by running `dy2st exec` on a probe script that imports each
module and does `hasattr` on each name, so the table states what a script run
by dy2st finds.
"""
import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "doc", "api-coverage.md")

MODULES = ["paddle", "paddle.nn", "paddle.nn.functional", "paddle.static", "paddle.static.nn",
           "paddle.jit",
           "paddle.optimizer", "paddle.io", "paddle.linalg", "paddle.metric",
           "paddle.nn.initializer", "paddle.tensor", "paddle.distributed"]
TENSOR_METHODS = "paddle.Tensor methods"
TENSOR_PROPS = "paddle.Tensor properties"

# Names outside dy2st's scope, with the reason: dy2st runs on the CPU and on
# OpenCL devices, has real dtypes only, dense tensors only, and no auto-parallel
# (distributed) tensors. Each reason was checked on Paddle 2.6.2's CPU wheel
# where it says CPU: the name fails there too.
GPU = "GPU-only (CUDA; Paddle's CPU build has no kernel for it)"
IPU = "IPU-only (Graphcore devices)"
XPU = "XPU-only (Kunlun devices)"
COMPLEX = "complex numbers (dy2st has real dtypes only)"
SPARSE = "sparse tensors (COO/CSR, SelectedRows)"
DIST = "auto-parallel distributed tensors"
LOD = "LoD tensors (variable-length sequences packed with level-of-detail offsets)"
OUT_OF_SCOPE = {}
for _group, _names, _why in [
    ("paddle", ["CUDAPinnedPlace", "get_cuda_rng_state", "set_cuda_rng_state"], GPU),
    ("paddle", ["as_complex", "as_real", "complex", "complex64", "complex128", "real", "imag",
                "polar"], COMPLEX),
    ("paddle.nn.functional", ["margin_cross_entropy"], GPU),
    ("paddle.nn.functional", ["sparse_attention"], GPU + "; " + SPARSE),
    ("paddle.static", ["cuda_places"], GPU),
    ("paddle.static", ["IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard"],
     IPU),
    ("paddle.static", ["xpu_places"], XPU),
    ("paddle.static.nn", ["sequence_concat", "sequence_conv", "sequence_enumerate",
                          "sequence_expand", "sequence_expand_as", "sequence_first_step",
                          "sequence_last_step", "sequence_pad", "sequence_pool",
                          "sequence_reshape", "sequence_reverse", "sequence_scatter",
                          "sequence_slice", "sequence_softmax", "sequence_unpad"], LOD),
    ("paddle.static.nn", ["sparse_embedding"], SPARSE),
    ("paddle.linalg", ["eig", "eigvals"], COMPLEX + ": the results are complex"),
    ("paddle.tensor", ["as_complex", "as_real", "complex", "real", "imag", "polar"], COMPLEX),
    ("paddle.tensor", ["eig", "eigvals"], COMPLEX + ": the results are complex"),
    ("paddle.tensor", ["stft", "istft"], COMPLEX + ": the spectrum is complex"),
    ("paddle.tensor", ["top_p_sampling"], GPU),
    (TENSOR_METHODS, ["as_complex", "as_real", "real", "imag", "polar"], COMPLEX),
    (TENSOR_METHODS, ["eig", "eigvals"], COMPLEX + ": the results are complex"),
    (TENSOR_METHODS, ["stft", "istft"], COMPLEX + ": the spectrum is complex"),
    (TENSOR_METHODS, ["top_p_sampling"], GPU),
    (TENSOR_METHODS, ["pin_memory"], GPU + ": CUDA pinned host memory"),
    (TENSOR_METHODS, ["coalesce", "cols", "crows", "indices", "values", "nnz", "is_sparse",
                      "is_sparse_coo", "is_sparse_csr", "to_dense", "to_sparse_coo",
                      "to_sparse_csr", "is_selected_rows", "get_selected_rows", "rows"], SPARSE),
    (TENSOR_METHODS, ["is_dist"], DIST),
    (TENSOR_PROPS, ["dist_attr", "placements", "process_mesh", "num_shard"], DIST),
]:
    for _n in _names:
        OUT_OF_SCOPE[(_group, _n)] = _why


def paddle_names():
    import paddle  # noqa: F401
    groups = []
    for name in MODULES:
        mod = importlib.import_module(name)
        if hasattr(mod, "__all__"):
            names = list(mod.__all__)
        else:
            names = [n for n in dir(mod) if not n.startswith("_")
                     and not isinstance(getattr(mod, n), types.ModuleType)]
        groups.append((name, sorted(set(names))))
    T = importlib.import_module("paddle").Tensor
    pub = [n for n in dir(T) if not n.startswith("_")]
    groups.append((TENSOR_METHODS, sorted(n for n in pub if callable(getattr(T, n)))))
    groups.append((TENSOR_PROPS, sorted(n for n in pub if not callable(getattr(T, n)))))
    return groups


def probe_source(groups):
    """A script for dy2st: prints 'GROUP NAME 1|0' per name, or 'GROUP - missing'."""
    lines = ["import paddle", "found = {}"]
    for group, names in groups:
        if group in (TENSOR_METHODS, TENSOR_PROPS):
            lines.append("found[%r] = paddle.to_tensor([1.0])" % group)
            continue
        lines += ["try:",
                  "    import %s" % group,
                  "    found[%r] = %s" % (group, group),
                  "except Exception:",
                  "    found[%r] = None" % group]
    for group, names in groups:
        lines += ["m = found[%r]" % group,
                  "if m is None:",
                  "    print(%r, '-', 'missing')" % group,
                  "else:",
                  "    for n in %r:" % (names,),
                  "        print(%r, n, 1 if hasattr(m, n) else 0)" % group]
    return "\n".join(lines) + "\n"


def run_probe(dy2st, groups):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.py")
        with open(path, "w") as f:
            f.write(probe_source(groups))
        res = subprocess.run([dy2st, "exec", path], cwd=tmp, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("the probe failed under dy2st (exit %d)" % res.returncode)
    have = {}
    for line in res.stdout.splitlines():
        parts = line.rsplit(" ", 2)
        if len(parts) != 3:
            sys.exit("unexpected probe output: %r" % line)
        group, name, mark = parts
        have[(group, name)] = mark == "1"
    return have


def write_table(groups, have, version):
    rows, body = [], []
    total_n = total_have = total_oos = 0
    for group, names in groups:
        n_have = sum(1 for n in names if have.get((group, n)))
        n_oos = sum(1 for n in names if (group, n) in OUT_OF_SCOPE and not have.get((group, n)))
        total_n += len(names)
        total_have += n_have
        total_oos += n_oos
        anchor = group.replace(".", "").replace(" ", "-").lower()
        rows.append("| [%s](#%s) | %d | %d | %d | %d | %s |" % (
            group, anchor, len(names), n_have, n_oos, len(names) - n_have - n_oos,
            percent(n_have, len(names) - n_oos)))
        body += ["", "## %s" % group, ""]
        if have.get((group, "-")) is False:
            body.append("dy2st has no module %s." % group)
            body.append("")
        body += ["| name | in dy2st |", "|---|---|"]
        for n in names:
            if have.get((group, n)):
                mark = "yes"
            elif (group, n) in OUT_OF_SCOPE:
                mark = "out of scope: " + OUT_OF_SCOPE[(group, n)]
            else:
                mark = "no"
            body.append("| `%s` | %s |" % (n, mark))
    head = [
        "# Paddle %s public API in dy2st" % version,
        "",
        "Generated by `tests/gen/gen_api_coverage.py` (do not edit by hand): the names",
        "come from real Paddle %s (each module's `__all__`; `paddle.tensor` has" % version,
        "none, so its public non-module attributes; the public methods and properties",
        "of `paddle.Tensor`), and a name counts as present when `hasattr` finds it in",
        "a script run by `dy2st exec`. Present means the name exists, not that every",
        "argument of it is supported. Names out of scope (device-specific, complex,",
        "sparse, distributed-internal) say why; coverage counts the other names only.",
        "`tests/cli/test_api_coverage.sh` fails when a name marked yes is absent.",
        "",
        "| module | names | in dy2st | out of scope | absent | coverage |",
        "|---|---|---|---|---|---|",
    ] + rows + ["| all | %d | %d | %d | %d | %s |" % (
        total_n, total_have, total_oos, total_n - total_have - total_oos,
        percent(total_have, total_n - total_oos))]
    with open(OUT, "w") as f:
        f.write("\n".join(head + body) + "\n")
    print("wrote", os.path.relpath(OUT, ROOT), "(%d of %d names; %d out of scope)" % (
        total_have, total_n, total_oos))


def percent(n, d):
    return "%.1f%%" % (100.0 * n / d) if d else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dy2st", default=os.path.join(ROOT, "dy2st"))
    args = ap.parse_args()
    import paddle
    groups = paddle_names()
    have = run_probe(os.path.abspath(args.dy2st), groups)
    names_of = dict(groups)
    for key in OUT_OF_SCOPE:
        if key[1] not in names_of.get(key[0], ()):
            sys.exit("out-of-scope name %s.%s is not a public name of Paddle" % key)
    for group, names in groups:
        if (group, "-") not in have:
            for n in names:
                if (group, n) not in have:
                    sys.exit("the probe printed nothing for %s.%s" % (group, n))
    write_table(groups, have, paddle.__version__)


if __name__ == "__main__":
    main()

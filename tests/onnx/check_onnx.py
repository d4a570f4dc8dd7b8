"""check_onnx.py - checks ONNX files dy2st exported against dy2st's own outputs.

Usage: check_onnx.py MANIFEST

Each line of MANIFEST is four tab-separated fields: an ONNX file, its inputs as .npy
files (comma-separated, in the graph's input order), the outputs 'dy2st run' wrote for
those inputs (.npy, comma-separated, in output order), and the ONNX op types the graph
must contain somewhere, subgraphs included (comma-separated, or '-'), e.g. If or Loop
for a model whose control flow must stay control flow.

For each line: onnx.checker.check_model(full_check=True), then ONNX Runtime (CPU) on the
inputs; every output must have dy2st's shape and dtype and equal it, floats within
|got - want| <= 1e-5 + 1e-5 |want| (infinities equal), integers and bools exactly. Prints one line per
model ("ok NAME" or what differs) and exits 1 when any fails.
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort

ATOL = 1e-5
RTOL = 1e-5


def op_types(graph, acc):
    for n in graph.node:
        acc.add(n.op_type)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                op_types(a.g, acc)
    return acc


def check(model, inputs, wants, need):
    onnx.checker.check_model(model, full_check=True)
    m = onnx.load(model)
    missing = sorted(set(need) - op_types(m.graph, set()))
    if missing:
        return ["graph has no %s node" % ", ".join(missing)]
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(inputs):
        return ["%d graph inputs, %d given" % (len(names), len(inputs))]
    got = sess.run(None, dict(zip(names, inputs)))
    if len(got) != len(wants):
        return ["%d outputs from ONNX Runtime, %d from dy2st" % (len(got), len(wants))]
    errs = []
    for k, (g, w) in enumerate(zip(got, wants)):
        g = np.asarray(g)
        if g.shape != w.shape or g.dtype != w.dtype:
            errs.append("output %d: ONNX Runtime gives %s%s, dy2st %s%s"
                        % (k, g.dtype, list(g.shape), w.dtype, list(w.shape)))
        elif w.dtype.kind == "f":
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            if not np.array_equal(np.isnan(g64), np.isnan(w64)):
                errs.append("output %d: NaNs differ" % k)
                continue
            inf = np.isinf(w64)
            if not np.array_equal(g64[inf], w64[inf]):
                errs.append("output %d: infinities differ" % k)
                continue
            ok = np.isfinite(w64)
            d = np.abs(g64[ok] - w64[ok])
            if d.size and not np.all(d <= ATOL + RTOL * np.abs(w64[ok])):
                errs.append("output %d: max |diff| %.3g beyond 1e-5 + 1e-5 |want|" % (k, d.max()))
        elif not np.array_equal(g, w):
            errs.append("output %d: values differ" % k)
    return errs


def main(argv):
    bad = 0
    with open(argv[1]) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    for line in lines:
        model, ins, outs, need = line.split("\t")
        inputs = [np.load(p) for p in ins.split(",") if p]
        wants = [np.load(p) for p in outs.split(",") if p]
        need = [] if need == "-" else need.split(",")
        try:
            errs = check(model, inputs, wants, need)
        except Exception as e:  # checker and runtime errors are failures of this model
            errs = ["%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")]
        if errs:
            bad += 1
            for e in errs:
                print("FAIL %s: %s" % (model, e))
        else:
            print("ok %s" % model)
    print("%d passed, %d failed" % (len(lines) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

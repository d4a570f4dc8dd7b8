"""oracle_inputs.py SAMPLE.py ORACLE.npz DIR - run by `dy2st exec`: writes DIR/SET_NAME.npy for
every model input of every input set ("example", "other") in the oracle's .npz, and prints one
"SET --input NAME=FILE ..." line per set, for `dy2st run`."""
import sys
import numpy as np
import _jst

py, npz, out = sys.argv[1], sys.argv[2], sys.argv[3]
mod = _jst._load_file(py)
names = [s.name for s in mod.INPUT_SPEC]
arrays = _jst._load_npz(npz)
for st in ["example", "other"]:
    if st + "/input0" not in arrays:
        continue
    args = []
    for i, name in enumerate(names):
        path = out + "/" + st + "_" + name + ".npy"
        np.save(path, arrays[st + "/input" + str(i)].numpy())
        args.append("--input " + name + "=" + path)
    print(st + " " + " ".join(args))

# numpy.load of an .npz archive (numpy.savez): an NpzFile mapping names to arrays.
import os

import numpy as np

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "pickle", "tiny.npz")
z = np.load(path)
print(sorted(z.files), len(z), "fc.bias" in z, "w" in z)
for k in sorted(z.files):
    a = z[k]
    print(k, a.shape, a.dtype, np.round(a, 4).tolist())
with np.load(path) as z2:
    print(sorted(z2.keys()), z2.get("nope") is None)
try:
    z["nope"]
except KeyError as e:
    print("KeyError", e)

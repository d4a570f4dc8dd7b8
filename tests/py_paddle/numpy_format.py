# NumPy's array printing on many magnitudes, dtypes and shapes.
import numpy as np

rng = np.random.RandomState(11)
for k in [-7, -5, -4, -3, -1, 0, 1, 2, 3, 5, 7, 8, 9, 12]:
    a = rng.randn(5) * (10.0 ** k)
    print(repr(a))
    print(a.astype("float32"))
    print(repr(np.round(a, 2)))
print(repr(rng.rand(3, 4)))
print(rng.rand(2, 3, 2).astype("float32"))
print(repr(rng.randint(-1000, 1000, size=(3, 5))))
print(repr(rng.randint(0, 5, size=12).astype("int32")))
print(repr(np.arange(100) / 7.0))
print(np.arange(40).reshape(5, 8) * 1000003)
print(repr(np.array([0.0, 1.0, -1.0])), repr(np.array([1e16, 1.0])), repr(np.array([0.5, np.nan])))
print(repr(np.array([np.inf, -np.inf, 1e-9])), repr(np.array([123456.789, 0.001])))
print(repr(np.ones(2000)))
print(np.arange(3000).reshape(30, 100))
print(repr(np.array([1.5], dtype="float32").sum()), np.array([2.5, 3.25]).mean(), np.float64(1.0) / 3)
print(np.array([True, False, True]), np.array(7), np.array(2.5), repr(np.array([[True], [False]])))

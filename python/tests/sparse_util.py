# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the op tests of several families: random SparseTensors with a numpy reference
(integers exact, floats within TOL), and the small fixed tensors of TensorFlow's documented examples."""
import numpy as np

import spt


DTYPES = [np.float64, np.float32, np.int64, np.complex128]


# float32 sums of a few products of values in [-2, 2]: relative error well under 1e-4
TOL = {np.float64: 1e-12, np.float32: 1e-4, np.complex128: 1e-12}


def rvals(rng, n, dt):
    dt = np.dtype(dt)
    if dt.kind == "i":
        return rng.integers(-5, 6, n).astype(dt)
    v = rng.uniform(-2, 2, n)
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-2, 2, n)
    return v.astype(dt)


def rsparse(rng, shape, dt, density=0.4, unsorted=False):
    """A random SparseTensor without repeated indices (row-major unless unsorted)."""
    vol = int(np.prod(shape))
    n = max(1, int(round(density * vol)))
    flat = np.sort(rng.choice(vol, size=n, replace=False))
    if unsorted:
        flat = rng.permutation(flat)
    if shape == ():
        idx = np.zeros((n, 0), dtype=np.int64)
    else:
        idx = np.array(np.unravel_index(flat, shape), dtype=np.int64).T.reshape(n, len(shape))
    vals = rvals(rng, n, dt)
    if np.dtype(dt).kind == "i":  # no stored zeros: the result's pattern is then predictable
        vals[vals == 0] = 1
    return spt.SparseTensor(idx, vals, shape, order=None if unsorted else list(range(len(shape))))


def dense(sp):
    """The dense value of a SparseTensor computed in numpy alone (duplicates summed)."""
    d = np.zeros(tuple(sp.shape), dtype=sp.dtype)
    if len(sp.shape) == 0:
        d[()] = np.sum(np.asarray(sp.values))
    else:
        np.add.at(d, tuple(np.asarray(sp.indices).T), np.asarray(sp.values))
    return d


def check(got, want, dt):
    dt = np.dtype(dt)
    assert got.shape == want.shape
    if dt.kind in "iub":
        assert got.dtype == dt and np.array_equal(got, want)
    else:
        tol = TOL[dt.type]
        assert np.allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max(initial=0.0)))


def row_major_unique(sp):
    idx = np.asarray(sp.indices)
    if len(idx) < 2:
        return True
    flat = np.ravel_multi_index(tuple(idx.T), tuple(sp.shape))
    return bool(np.all(np.diff(flat) > 0))


def adj(x, flag):
    return np.conj(np.swapaxes(x, -1, -2)) if flag else x


DATA = np.arange(1, 41, dtype=np.float32).reshape(10, 4)


def st(ix, vals, shape, dtype=None):
    return spt.SparseTensor(ix, vals, shape, dtype=dtype)


def same(a, b):
    assert a.dtype == b.dtype and list(a.shape) == list(b.shape)
    assert a.indices.tolist() == b.indices.tolist()
    assert np.asarray(a.values).tolist() == np.asarray(b.values).tolist()


SP = st([[0, 1], [1, 0], [1, 1]], np.array([1.0, -2.25, 0.5], np.float32), [2, 3])


P = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)


IDS = st([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([0, 1, 3, 2]), [3, 2])


W = st([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([0.5, 1.0, 0.5, 2.0], np.float32), [3, 2])

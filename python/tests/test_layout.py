# SPDX-License-Identifier: Apache-2.0
"""The layout ops from Python (src/ops/layout): expand_dims, eye and mask against TensorFlow's documented
examples; the older layout ops are covered by test_tensor.py, test_numpy_ops.py and the conformance and
differential suites."""
import pickle

import numpy as np
import pytest

import spt
from sparse_util import st


# ---- expand_dims, eye ----------------------------------------------------------------------------


def test_expand_dims_every_axis():
    sp = st([[3, 4, 1]], np.array([7], np.int32), [10, 10, 3])
    assert list(spt.expand_dims(sp, axis=0).shape) == [1, 10, 10, 3]
    assert spt.expand_dims(sp, 1).indices.tolist() == [[3, 0, 4, 1]]
    assert list(spt.expand_dims(sp).shape) == [10, 10, 3, 1]  # TF2's default axis -1
    assert list(spt.expand_dims(sp, axis=-4).shape) == [1, 10, 10, 3]
    for bad in (4, -5):
        with pytest.raises(spt.OutOfRangeError):
            spt.expand_dims(sp, bad)
    with pytest.raises(spt.OverflowError, match="axis"):
        spt.expand_dims(sp, 2 ** 64 + 1)
    with pytest.raises(spt.DtypeError, match="axis"):
        spt.expand_dims(sp, 1.0)


def test_eye():
    e = spt.eye(2, num_columns=4)
    assert e.dtype == np.float32 and list(e.shape) == [2, 4] and e.indices.tolist() == [[0, 0], [1, 1]]
    assert spt.eye(3, dtype=np.complex64).values.tolist() == [1 + 0j] * 3
    assert spt.eye(0).nnz == 0
    with pytest.raises(spt.InvalidArgumentError, match="num_rows") as ei:  # a count, not an index (TF's class)
        spt.eye(-1)
    assert not isinstance(ei.value, spt.OutOfRangeError)
    with pytest.raises(spt.InvalidArgumentError, match="num_columns"):
        spt.eye(2, -1)  # -1 is not None
    with pytest.raises(spt.OverflowError, match="num_rows"):
        spt.eye(2 ** 63)
    big = spt.eye(2 ** 62, 4)  # a volume beyond int64 stores nothing per cell (spt's any-volume shapes)
    assert list(big.shape) == [2 ** 62, 4] and big.indices.tolist() == [[k, k] for k in range(4)]
    with pytest.raises(spt.DtypeError):
        spt.eye(2, dtype="string")
    with pytest.raises(spt.DtypeError, match="dtype"):
        spt.eye(2, dtype="float16")


# ---- tf.sparse.mask ------------------------------------------------------------------------------


def test_mask_tensorflow_example():
    a = spt.IndexedSlices(np.arange(10.0).reshape(5, 2), np.array([12, 26, 37, 45, 12]), [100, 2])
    r = spt.mask(a, [12, 45])  # TensorFlow's docstring example, with a repeated kept-out index
    assert r.indices.tolist() == [26, 37] and r.values.tolist() == [[2, 3], [4, 5]] and r.dense_shape == [100, 2]
    r = spt.mask(a, [])
    assert r.indices.tolist() == [12, 26, 37, 45, 12]
    r = spt.mask(spt.IndexedSlices(np.ones(3), [7, 7, 8]), np.array([8]))
    assert r.indices.tolist() == [7, 7]
    assert pickle.loads(pickle.dumps(r)).indices.tolist() == [7, 7]
    with pytest.raises(spt.DtypeError):
        spt.mask(np.ones(3), [1])
    with pytest.raises(spt.InvalidArgumentError, match="one slice per index"):
        spt.mask(spt.IndexedSlices(np.ones(2), [1, 2, 3]), [1])
    with pytest.raises(spt.OverflowError):
        spt.mask(a, [2 ** 63])
    with pytest.raises(spt.DtypeError):
        spt.mask(a, [1.5])

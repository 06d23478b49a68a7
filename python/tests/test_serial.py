# SPDX-License-Identifier: Apache-2.0
"""Serialization from Python (src/ops/serial): round trips and deserialization of hostile bytes."""
import numpy as np
import pytest

import spt
from sparse_util import same, st


@pytest.mark.parametrize("t", [
    st([[0, 0], [1, 3], [3, 2]], np.array([0, 13, 32], np.int32), [5, 6]),
    st([[0], [2]], [b"ab", b"\0c"], [3]),
    st([[1, 1]], np.array([1 - 2j], np.complex64), [2, 2]),
    st(np.zeros((0, 2), np.int64), np.zeros(0), [0, 4]),
])
def test_serialize_round_trip(t):
    b = spt.serialize_sparse(t)
    assert isinstance(b, bytes) and b[:4] == b"SPTS"
    same(spt.deserialize_sparse(b, t.dtype, rank=t.rank), t)
    two = spt.deserialize_sparse([b, b], t.dtype)
    assert list(two.shape) == [2] + list(t.shape) and two.nnz == 2 * t.nnz


def test_serialize_many_round_trip():
    t = st([[0, 0], [1, 3], [3, 2]], np.array([1.5, 2.5, 3.5]), [4, 6])
    items = spt.serialize_many_sparse(t)
    assert items.shape == (4,) and all(isinstance(x, bytes) for x in items)
    assert spt.deserialize_sparse(items[1], np.float64).indices.tolist() == [[3]]
    back = spt.deserialize_many_sparse(items, np.float64, rank=1)
    same(back, t)


def test_deserialize_trusts_nothing():
    b = spt.serialize_sparse(st([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(spt.ParseError):
        spt.deserialize_sparse(b[:-1], np.float64)
    with pytest.raises(spt.ParseError):
        spt.deserialize_sparse(b[:-9] + bytes([b[-9] ^ 1]) + b[-8:], np.float64)  # checksum
    with pytest.raises(spt.ParseError):
        spt.deserialize_sparse(b"", np.float64)
    with pytest.raises(spt.DtypeError):
        spt.deserialize_sparse(b, np.float32)
    with pytest.raises(spt.DtypeError):
        spt.deserialize_sparse("SPTS", np.float64)
    with pytest.raises(spt.DtypeError, match=r"serialized\[1\]"):
        spt.deserialize_sparse([b, 3], np.float64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.deserialize_sparse([], np.float64)
    with pytest.raises(spt.DtypeError, match="object array"):
        spt.deserialize_sparse(np.array([b, b]), np.float64)  # 'S' arrays drop trailing NUL bytes
    with pytest.raises(spt.InvalidArgumentError, match="rank"):
        spt.deserialize_sparse(b, np.float64, rank=3)
    with pytest.raises(spt.InvalidArgumentError, match="vector"):
        spt.deserialize_many_sparse([[b]], np.float64)
    with pytest.raises(spt.DtypeError, match="out_type"):
        spt.serialize_sparse(st([[0]], [1.0], [1]), out_type=np.int64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.serialize_many_sparse(st([[0]], [1.0], [1]))  # rank >= 2

# SPDX-License-Identifier: Apache-2.0
"""Serialization from Python (src/ops/serial): TensorFlow's form (serialize_sparse) and spt's own packed form
(pack_sparse): round trips and deserialization of hostile bytes."""
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
    b = spt.serialize_sparse(t)  # TensorFlow's form: three TensorProto byte strings
    assert b.shape == (3,) and all(isinstance(x, bytes) for x in b)
    same(spt.deserialize_sparse(b, t.dtype, rank=t.rank), t)
    two = spt.deserialize_sparse([b, b], t.dtype)
    assert list(two.shape) == [2] + list(t.shape) and two.nnz == 2 * t.nnz
    p = spt.pack_sparse(t)  # spt's own form
    assert isinstance(p, bytes) and p[:4] == b"SPTS"
    same(spt.unpack_sparse(p, t.dtype, rank=t.rank), t)
    two = spt.unpack_sparse([p, p], t.dtype)
    assert list(two.shape) == [2] + list(t.shape) and two.nnz == 2 * t.nnz


def test_serialize_many_round_trip():
    t = st([[0, 0], [1, 3], [3, 2]], np.array([1.5, 2.5, 3.5]), [4, 6])
    items = spt.serialize_many_sparse(t)
    assert items.shape == (4, 3) and all(isinstance(x, bytes) for x in items.reshape(-1))
    assert spt.deserialize_sparse(items[1], np.float64).indices.tolist() == [[3]]
    same(spt.deserialize_many_sparse(items, np.float64, rank=1), t)
    packed = spt.pack_many_sparse(t)
    assert packed.shape == (4,)
    assert spt.unpack_sparse(packed[1], np.float64).indices.tolist() == [[3]]
    same(spt.unpack_many_sparse(packed, np.float64, rank=1), t)


def test_deserialize_trusts_nothing():
    s = spt.serialize_sparse(st([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(spt.ParseError, match=r"serialized_sparse\[0, 1\]"):
        spt.deserialize_sparse([s[0], s[1][:-1], s[2]], np.float64)
    with pytest.raises(spt.InvalidArgumentError, match="Requested SparseTensor of type float but"):
        spt.deserialize_sparse(s, np.float32)
    with pytest.raises(spt.InvalidArgumentError, match="3 as the last dimension"):
        spt.deserialize_sparse(s[:2], np.float64)
    with pytest.raises(spt.DtypeError):
        spt.deserialize_sparse("abc", np.float64)
    with pytest.raises(spt.DtypeError, match=r"serialized_sparse\[1\]"):
        spt.deserialize_sparse([s[0], 3, s[2]], np.float64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.deserialize_sparse(np.empty((0, 3), object), np.float64)
    with pytest.raises(spt.DtypeError, match="object array"):
        spt.deserialize_sparse(np.array(list(s)), np.float64)  # 'S' arrays drop trailing NUL bytes
    with pytest.raises(spt.InvalidArgumentError, match="rank"):
        spt.deserialize_sparse(s, np.float64, rank=3)
    with pytest.raises(spt.InvalidArgumentError, match="matrix"):
        spt.deserialize_many_sparse(s, np.float64)
    with pytest.raises(spt.DtypeError, match="out_type"):
        spt.serialize_sparse(st([[0]], [1.0], [1]), out_type=np.int64)
    with pytest.raises(spt.InvalidArgumentError, match="should be > 1"):
        spt.serialize_many_sparse(st([[0]], [1.0], [1]))  # rank >= 2
    b = spt.pack_sparse(st([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b[:-1], np.float64)
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b[:-9] + bytes([b[-9] ^ 1]) + b[-8:], np.float64)  # checksum
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b"", np.float64)
    with pytest.raises(spt.DtypeError):
        spt.unpack_sparse(b, np.float32)
    with pytest.raises(spt.DtypeError, match=r"packed\[1\]"):
        spt.unpack_sparse([b, 3], np.float64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.unpack_sparse([], np.float64)
    with pytest.raises(spt.InvalidArgumentError, match="vector"):
        spt.unpack_many_sparse([[b]], np.float64)
